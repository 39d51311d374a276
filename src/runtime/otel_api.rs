//! Whether, and as which version, the runtime's OpenTelemetry providers register
//! (`node/sdk/otel-api.cjs`, which the test kit registers too): a copy of `@opentelemetry/api` 1.x takes a global provider whose
//! version has its own major and at least its own minor, so they claim the newest version
//! installed in the project, and never less than the newest this binary knows; and a
//! project that installs the OpenTelemetry SDK to set up its own gets none.

use std::path::Path;

/// The newest `@opentelemetry/api` release this binary knows (npm, 2026-12).
pub const KNOWN_NEWEST: &str = "1.10.0";

/// The packages of the OpenTelemetry SDK: a project that installs one sets up its own
/// providers (`metrics.setGlobalMeterProvider`, `NodeSDK`), which the API refuses to register
/// over another, so the runtime then registers none and leaves the project's in charge.
pub const SDK_PACKAGES: [&str; 4] = [
    "@opentelemetry/sdk-node",
    "@opentelemetry/sdk-metrics",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/sdk-trace-node",
];

/// What the runtime's providers do for the project at `project_root`: register as
/// [`version_for`], or stand aside for the SDK package it installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Providers {
    Register { version: String },
    StandAside { sdk_package: &'static str },
}

impl Providers {
    pub fn for_project(project_root: &Path) -> Self {
        let installed = |package: &str| {
            project_root.ancestors().any(|dir| dir.join("node_modules").join(package).join("package.json").is_file())
        };
        match SDK_PACKAGES.iter().find(|package| installed(package)) {
            Some(sdk_package) => Providers::StandAside { sdk_package },
            None => Providers::Register { version: version_for(project_root) },
        }
    }

    /// What `run` and `dev` say when the runtime stands aside; nothing when it registers.
    pub fn summary(&self) -> Option<String> {
        match self {
            Providers::Register { .. } => None,
            Providers::StandAside { sdk_package } => Some(format!(
                "OpenTelemetry: the project installs {sdk_package}, so its own providers are left in charge; the summary shows what ctx.host.otel records"
            )),
        }
    }

    /// The version the runtime registers as; `None`: it registers nothing.
    pub fn version(&self) -> Option<&str> {
        match self {
            Providers::Register { version } => Some(version),
            Providers::StandAside { .. } => None,
        }
    }
}

/// The version to register as: the newest 1.x of `node_modules/@opentelemetry/api` in
/// `project_root` and the folders above it (where Node finds the hooks' copies), or
/// [`KNOWN_NEWEST`] when that is newer.
pub fn version_for(project_root: &Path) -> String {
    let newest = project_root
        .ancestors()
        .filter_map(|dir| std::fs::read_to_string(dir.join("node_modules/@opentelemetry/api/package.json")).ok())
        .filter_map(|text| crate::fs::json::parse(&text).ok()?["version"].as_str().and_then(parse))
        .chain(parse(KNOWN_NEWEST))
        .filter(|&(major, _, _)| major == 1)
        .max()
        .unwrap_or((1, 10, 0));
    format!("{}.{}.{}", newest.0, newest.1, newest.2)
}

/// `1.9.0` → `(1, 9, 0)`; a prerelease or anything else → `None`.
fn parse(version: &str) -> Option<(u32, u32, u32)> {
    let mut parts = version.trim().split('.');
    let number = |part: Option<&str>| part?.parse::<u32>().ok();
    let parsed = (number(parts.next())?, number(parts.next())?, number(parts.next())?);
    parts.next().is_none().then_some(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test kit registers the same providers by the same rule, in JavaScript.
    #[test]
    fn the_test_kit_knows_the_same_versions_and_packages() {
        let kit = include_str!("node/sdk/telemetry.cjs");
        assert!(kit.contains(&format!("const KNOWN_NEWEST = '{KNOWN_NEWEST}';")));
        for package in SDK_PACKAGES {
            assert!(kit.contains(&format!("  '{package}',\n")), "{package}");
        }
    }

    #[test]
    fn the_newest_installed_or_the_newest_known() {
        let project = tempfile::tempdir().unwrap();
        assert_eq!(version_for(project.path()), KNOWN_NEWEST);
        let api = project.path().join("node_modules/@opentelemetry/api");
        std::fs::create_dir_all(&api).unwrap();
        std::fs::write(api.join("package.json"), r#"{ "name": "@opentelemetry/api", "version": "1.9.0" }"#).unwrap();
        assert_eq!(version_for(project.path()), KNOWN_NEWEST);
        std::fs::write(api.join("package.json"), r#"{ "name": "@opentelemetry/api", "version": "1.12.3" }"#).unwrap();
        assert_eq!(version_for(&project.path().join("bot")), "1.12.3");
        assert_eq!(parse("1.13.0-rc.1"), None);
        assert_eq!(Providers::for_project(project.path()).version(), Some("1.12.3"));
        let sdk = project.path().join("node_modules/@opentelemetry/sdk-metrics");
        std::fs::create_dir_all(&sdk).unwrap();
        std::fs::write(sdk.join("package.json"), "{}").unwrap();
        let aside = Providers::for_project(project.path());
        assert_eq!(aside, Providers::StandAside { sdk_package: "@opentelemetry/sdk-metrics" });
        assert_eq!(aside.version(), None);
    }
}
