//! `agent-sdk init`: a working project in one command — hooks, a test, `tsconfig.json`,
//! `.gitignore` and the SDK packages — that never overwrites a file without `--force`.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::{InitArgs, LayoutChoice};
use crate::exit_status::{Exit, ExitStatus};
use crate::printer::Printer;
use crate::project::Layout;
use crate::scaffold::{self, FileKind, ScaffoldFile};
use crate::untrusted::escape;

pub fn init(args: &InitArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let dir = &args.dir;
    if dir.exists() && !dir.is_dir() {
        return Err(Exit::usage(format!("`{}` exists and is not a folder", escape(&dir.display().to_string()))).into());
    }
    let layout = match args.layout {
        LayoutChoice::Bot => Layout::Bot,
        LayoutChoice::Agent => Layout::Agent,
    };
    let other = Layout::ALL.into_iter().find(|other| *other != layout && dir.join(other.folder()).is_dir());
    if let Some(other) = other {
        return Err(Exit::usage(format!(
            "`{}` already has an `{}/` source folder; a project has one: use `--layout {}`",
            escape(&dir.display().to_string()),
            other.folder(),
            other.folder()
        ))
        .into());
    }
    let name = agent_name(args, printer);
    let files = scaffold::files(&name, layout);
    let in_the_way: Vec<&ScaffoldFile> =
        files.iter().filter(|file| file.kind == FileKind::Owned && dir.join(&file.path).exists()).collect();
    if !in_the_way.is_empty() && !args.force {
        let mut message = String::from("init would overwrite files that exist (nothing was written):\n");
        for file in &in_the_way {
            message.push_str(&format!("  {}\n", escape(&file.path.to_string_lossy())));
        }
        message.push_str("run it again with --force to overwrite them");
        return Err(Exit::failure(message).into());
    }

    std::fs::create_dir_all(dir).with_context(|| format!("could not create `{}`", dir.display()))?;
    let mut report = format!("Created the agent \"{}\" in {}:\n", escape(&name), escape(&dir.display().to_string()));
    for file in &files {
        if let Some(what) = write(dir, file)? {
            report.push_str(&format!("  {:<28} {what}\n", file.path.to_string_lossy()));
        }
    }
    for package in crate::sdk::packages::write_packages(dir)? {
        let path = package.dir.strip_prefix(dir).unwrap_or(&package.dir).to_string_lossy().into_owned();
        report.push_str(&format!("  {path:<28} the SDK's modules and types, {} files\n", package.files));
    }
    report.push_str("\nNext:\n");
    if dir != Path::new(".") {
        report.push_str(&format!("  cd {}\n", shell_word(dir)));
    }
    report.push_str(
        "  agent-sdk run --message \"hello\"   # one local turn; the hooks run for real\n  \
         agent-sdk test                    # the hooks' tests\n  \
         agent-sdk validate                # the CI gate\n",
    );
    printer.stdout(&report)?;
    Ok(ExitStatus::Success)
}

/// The agent's name: the `name` of a `package.json` that is there (it names the agent, and
/// init leaves it alone), else `--name`, else the folder's name made into a package name.
fn agent_name(args: &InitArgs, printer: &Printer) -> String {
    let existing = std::fs::read_to_string(args.dir.join("package.json")).ok();
    let named = existing
        .and_then(|text| crate::json_file::parse(&text).ok())
        .and_then(|json| json["name"].as_str().map(str::to_owned))
        .filter(|name| !name.is_empty());
    if let Some(name) = named {
        if args.name.as_ref().is_some_and(|wanted| *wanted != name) {
            printer.stderr(&format!(
                "note: package.json is kept, and its name \"{}\" names the agent; --name is for a new package.json\n",
                escape(&name)
            ));
        }
        return name;
    }
    if let Some(name) = &args.name {
        return name.clone();
    }
    let absolute = std::path::absolute(&args.dir).unwrap_or_else(|_| args.dir.clone());
    let folder = absolute.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    scaffold::package_name(&folder)
}

/// Writes one scaffold file as its kind says; what was done, or `None` when nothing was.
fn write(dir: &Path, file: &ScaffoldFile) -> anyhow::Result<Option<&'static str>> {
    let path: PathBuf = dir.join(&file.path);
    let exists = path.exists();
    let (text, what) = match (file.kind, exists) {
        (FileKind::IfAbsent, true) => return Ok(None),
        (FileKind::Lines, true) => {
            let existing =
                std::fs::read_to_string(&path).with_context(|| format!("could not read `{}`", path.display()))?;
            let missing = scaffold::missing_lines(&existing, &file.text);
            if missing.is_empty() {
                return Ok(None);
            }
            let separator = if existing.is_empty() || existing.ends_with('\n') { "" } else { "\n" };
            (format!("{existing}{separator}{}\n", missing.join("\n")), "added what it lacked")
        }
        (_, true) => (file.text.clone(), "overwritten (--force)"),
        (_, false) => (file.text.clone(), "created"),
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("could not create `{}`", parent.display()))?;
    }
    std::fs::write(&path, text).with_context(|| format!("could not write `{}`", path.display()))?;
    Ok(Some(what))
}

/// `dir` as a shell word for the "Next" lines: quoted when it has anything but plain characters.
fn shell_word(dir: &Path) -> String {
    let text = escape(&dir.to_string_lossy()).into_owned();
    if text.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')) {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
