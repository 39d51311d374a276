//! `agent-sdk sdk`: write the SDK packages into the project's `node_modules/`.

use std::path::Path;

use crate::cli::SdkArgs;
use crate::exit_status::ExitStatus;
use crate::printer::Printer;
use crate::sdk::packages::{VERSION, WrittenPackage, write_packages};

/// Writes the three SDK packages under `--dir` and says, a line each, what changed; then
/// a hint when the project's `tsconfig.json` would not find them.
pub fn sdk(args: &SdkArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let dir = &args.dir.dir;
    let written = write_packages(dir)?;
    let mut out: String = written.iter().map(|package| format!("{}\n", describe(package))).collect();
    if let Some(hint) = tsconfig_hint(dir) {
        out.push_str(&format!("hint: {hint}\n"));
    }
    printer.stdout(&out)?;
    Ok(ExitStatus::Success)
}

/// One package's line: written, updated or already up to date.
fn describe(package: &WrittenPackage) -> String {
    let shown = package.dir.strip_prefix(".").unwrap_or(&package.dir).display();
    match package.written {
        0 => format!("{shown} is up to date (agent-sdk {VERSION})"),
        all if all == package.files => format!("wrote {shown} (agent-sdk {VERSION}, {all} files)"),
        some => format!("updated {shown} (agent-sdk {VERSION}, {some} of {} files changed)", package.files),
    }
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
    let mut text = crate::json_file::without_bom(&text).to_owned();
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
