//! `agent-sdk sdk`: write the SDK packages into the project's `vendor/agent-sdk/`, make
//! `node_modules/` see them, and have `package.json` name them.

use std::path::Path;

use anyhow::Context;

use crate::cli::SdkArgs;
use crate::exit_status::{Exit, ExitStatus};
use crate::printer::Printer;
use crate::project::package_json::{PackageJson, fragment};
use crate::sdk::folders::VERSION;
use crate::sdk::freshness::listed;
use crate::sdk::node_modules::Installed;
use crate::sdk::packages::{WrittenPackage, dependencies, write_packages};

/// Writes the three SDK packages under `--dir` and says, a line each, what changed; then
/// what `package.json` lacks of them (added with `--update-package-json`), and a hint when
/// the project's `tsconfig.json` would not find them.
pub fn sdk(args: &SdkArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let dir = &args.dir.dir;
    // Before anything is written: a package.json that cannot be read stops the update.
    let manifest = PackageJson::read(dir);
    if args.update_package_json && matches!(manifest, Ok(None)) {
        return Err(Exit::usage(format!(
            "there is no package.json in {} to add the SDK packages to (`npm init` makes one)",
            crate::text::untrusted::escape(&dir.display().to_string())
        ))
        .into());
    }
    let manifest = match manifest {
        Err(error) if args.update_package_json => return Err(error.context("sdk did not change package.json")),
        other => other,
    };
    let written = write_packages(dir, args.force)?;
    let mut out: String = written.iter().map(|package| format!("{}\n", describe(package))).collect();
    match manifest {
        Ok(Some(manifest)) => out.push_str(&name_the_packages(manifest, args.update_package_json)?),
        Ok(None) => {}
        Err(error) => out.push_str(&format!("hint: {error:#}, so sdk cannot tell whether it names the SDK packages\n")),
    }
    if let Some(hint) = tsconfig_hint(dir) {
        out.push_str(&format!("hint: {hint}\n"));
    }
    printer.stdout(&out)?;
    Ok(ExitStatus::Success)
}

/// The dependencies `manifest` lacks of the SDK packages: added with `update` (and a line
/// saying so), else a hint saying what to add. Nothing when it names them all.
fn name_the_packages(mut manifest: PackageJson, update: bool) -> anyhow::Result<String> {
    let wanted = dependencies();
    if update {
        let added = manifest.add(&wanted).context("sdk did not change package.json")?;
        if added.is_empty() {
            return Ok(String::new());
        }
        manifest.write()?;
        let names: Vec<String> = added.iter().map(|entry| format!("`{}`", entry.key)).collect();
        return Ok(format!(
            "added {} to the dependencies of package.json: run `npm install` to record {} in the lockfile\n",
            listed(&names),
            if added.len() == 1 { "it" } else { "them" }
        ));
    }
    let lacking = manifest.lacking(&wanted);
    if lacking.is_empty() {
        return Ok(String::new());
    }
    let names: Vec<String> = lacking.iter().map(|entry| format!("`{}`", entry.key)).collect();
    let named = if lacking.len() == wanted.len() { "the SDK packages".to_owned() } else { listed(&names) };
    Ok(format!(
        "hint: package.json does not name {named}, so the next `npm install` removes {} from node_modules/; add:\n{}or run `{} sdk --update-package-json`\n",
        if lacking.len() == 1 { "it" } else { "them" },
        fragment(&lacking, "  "),
        crate::process::invocation::command()
    ))
}

/// One package's line: written, updated, taken over or already up to date, and what was
/// done to `node_modules/` for it.
fn describe(package: &WrittenPackage) -> String {
    let folder_shown = shown(&package.dir);
    let folder = match package.written {
        _ if package.taken_over => {
            format!("took over {folder_shown} (--force; agent-sdk {VERSION}, {} files)", package.files)
        }
        0 => format!("{folder_shown} is up to date (agent-sdk {VERSION})"),
        all if all == package.files => format!("wrote {folder_shown} (agent-sdk {VERSION}, {all} files)"),
        some => format!("updated {folder_shown} (agent-sdk {VERSION}, {some} of {} files changed)", package.files),
    };
    match &package.installed {
        Installed::AlreadyLinked => folder,
        Installed::Copied { dir } => format!("{folder}; copied it to {}", shown(dir)),
        Installed::Copy { written: 0, .. } => folder,
        Installed::Copy { dir, written } => {
            format!("{folder}; updated its copy {} ({written} of {} files changed)", shown(dir), package.files)
        }
        Installed::TakenOver { dir } => format!("{folder}; took over {} (--force): a copy now", shown(dir)),
        Installed::Left { dir, link } => format!(
            "{folder}; left {} as it is: {} is a link out of the project (to {}), which sdk never writes through; your package manager installs it from package.json",
            shown(dir),
            shown(&link.link),
            crate::text::untrusted::escape_path(&link.leads_to)
        ),
    }
}

/// A path as the user gave the project's: without a leading `./`, its control characters
/// shown escaped.
fn shown(path: &Path) -> String {
    crate::text::untrusted::escape_path(path.strip_prefix(".").unwrap_or(path))
}

/// What to change in `<dir>/tsconfig.json` for `tsc` to find the packages, if anything:
/// none at all, or one that resolves modules the "classic" way (which never looks in
/// `node_modules/`). Only the file's own options are read: with `extends` and none of
/// them set, it says nothing.
fn tsconfig_hint(dir: &Path) -> Option<String> {
    let Ok(text) = std::fs::read_to_string(dir.join("tsconfig.json")) else {
        return Some(
            "there is no tsconfig.json: for `tsc --noEmit`, add one with \"strict\": true and \"module\": \"nodenext\" (or \"preserve\" when a bundler builds the code)"
                .to_owned(),
        );
    };
    let mut text = crate::fs::json::without_bom(&text).to_owned();
    json_strip_comments::strip(&mut text).ok()?;
    let tsconfig: serde_json::Value = serde_json::from_str(&text).ok()?;
    let options = &tsconfig["compilerOptions"];
    let option = |name: &str| options[name].as_str().map(str::to_ascii_lowercase);
    let classic = match (option("moduleResolution"), option("module"), option("target")) {
        (Some(resolution), _, _) => resolution == "classic",
        _ if tsconfig.get("extends").is_some() => false,
        // TypeScript 5 resolves the classic way for every `module` but these.
        (None, Some(module), _) => {
            !matches!(module.as_str(), "commonjs" | "node16" | "node18" | "node20" | "nodenext" | "preserve")
        }
        // No `module`: ES5 and older targets imply CommonJS; newer ones ES modules, classic.
        (None, None, Some(target)) => !matches!(target.as_str(), "es3" | "es5"),
        (None, None, None) => false,
    };
    classic.then(|| {
        "tsconfig.json resolves modules the \"classic\" way, which never looks in node_modules/: add \"moduleResolution\": \"bundler\", or set \"module\": \"nodenext\""
            .to_owned()
    })
}
