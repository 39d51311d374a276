//! `agent-sdk init`: a working project in one command — hooks, a test, `tsconfig.json`,
//! `.gitignore` and the SDK packages — that never overwrites a file without `--force`, and
//! says what an existing `package.json` lacks (or adds it, `--update-package-json`).

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::cli::{InitArgs, LayoutChoice};
use crate::exit_status::{Exit, ExitStatus};
use crate::fs::link_out::{LinkOut, link_out};
use crate::printer::Printer;
use crate::project::Layout;
use crate::project::package_json::{PackageJson, fragment, quoted};
use crate::runtime::node_version::{NodeVersion, version_command};
use crate::scaffold::{self, FileKind, Scaffold, ScaffoldFile};
use crate::text::untrusted::{escape, escape_path};

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
    let sdk = args.sdk.as_deref().unwrap_or(scaffold::default_sdk(layout));
    let node_major = node_major().unwrap_or(scaffold::NEWEST_LTS_NODE);
    let mut files = scaffold::files(&Scaffold { name: &name, layout, sdk, node_major });
    // A repository's own tsconfig.json is kept (its build depends on it): the hooks' settings
    // go into the source folder instead, unless --force asks for the scaffold's at the root.
    let kept_tsconfig = keep_tsconfig(dir, &mut files, layout, args.force);
    refuse_links_out(dir, &files)?;
    let in_the_way: Vec<&ScaffoldFile> = files
        .iter()
        .filter(|file| file.kind == FileKind::Owned && dir.join(&file.path).exists() && !holds(dir, file))
        .collect();
    if !in_the_way.is_empty() && !args.force {
        let mut message = String::from("init would overwrite files that exist (nothing was written):\n");
        for file in &in_the_way {
            message.push_str(&format!("  {}\n", escape(&file.path.to_string_lossy())));
        }
        message.push_str("run it again with --force to overwrite them");
        return Err(Exit::failure(message).into());
    }
    // The packages are written last: what they would refuse stops init before anything is written.
    if let Err(refused) = crate::sdk::plan::plan_packages(dir, args.force) {
        return Err(Exit::failure(refused.to_string()).into());
    }

    std::fs::create_dir_all(dir).with_context(|| format!("could not create `{}`", dir.display()))?;
    let existing = PackageJson::read(dir);
    let mut report = format!("Created the agent \"{}\" in {}:\n", escape(&name), escape(&dir.display().to_string()));
    for file in &files {
        if let Some(what) = write(dir, file)? {
            report.push_str(&format!("  {:<32} {what}\n", file.path.to_string_lossy()));
        }
    }
    let lacking = match existing {
        Ok(Some(existing)) => {
            complete_package_json(existing, layout, node_major, args.update_package_json, &mut report)?
        }
        Ok(None) => None,
        Err(error) if args.update_package_json => return Err(error.context("init did not change package.json")),
        Err(error) => Some(format!(
            "\n{:#}, so init left it alone; the scaffold needs in it:\n{}",
            error,
            fragment(&scaffold::package_json_entries(layout, node_major).iter().collect::<Vec<_>>(), "  ")
        )),
    };
    for package in crate::sdk::packages::write_packages(dir, args.force)? {
        let path = package.dir.strip_prefix(dir).unwrap_or(&package.dir).to_string_lossy().into_owned();
        report.push_str(&format!("  {path:<32} the SDK package {}, {} files\n", package.name, package.files));
    }
    if let Some(lacking) = lacking {
        report.push_str(&crate::text::untrusted::escape_keeping_lines(&lacking));
    }
    if let Some(kept) = kept_tsconfig {
        report.push_str(&kept);
    }
    report.push_str("\nNext:\n");
    if dir != Path::new(".") {
        report.push_str(&format!("  cd {}\n", shell_word(dir)));
    }
    let command = crate::process::invocation::command();
    let mut steps = Vec::new();
    if layout == Layout::Agent {
        steps.push((crate::process::invocation::install_command(), "@opentelemetry/api, which the usage hook imports"));
    }
    for (step, what) in [
        ("run --message \"hello\"", "one local turn; the hooks run for real"),
        ("test", "the hooks' tests"),
        ("validate", "the CI gate"),
    ] {
        steps.push((format!("{command} {step}"), what));
    }
    let width = steps.iter().map(|(step, _)| step.len()).max().unwrap_or(0);
    for (step, what) in steps {
        report.push_str(&format!("  {step:width$}   # {what}\n"));
    }
    printer.stdout(&report)?;
    Ok(ExitStatus::Success)
}

/// What an existing `package.json` lacks of the scaffold's entries: added to it with
/// `update` (a line in `report`), else the text telling the user what to add (`None` when
/// it lacks nothing).
fn complete_package_json(
    mut existing: PackageJson,
    layout: Layout,
    node_major: u32,
    update: bool,
    report: &mut String,
) -> anyhow::Result<Option<String>> {
    let wanted = scaffold::package_json_entries(layout, node_major);
    let kept: String = existing
        .other_scripts(&wanted)
        .iter()
        .map(|(entry, own)| {
            format!(
                "its {} script stays {}; the scaffold's is {}\n",
                quoted(&entry.key),
                quoted(own),
                quoted(&entry.value)
            )
        })
        .collect();
    let kept_only = || (!kept.is_empty()).then(|| format!("\npackage.json: {kept}"));
    if update {
        if !existing.add(&wanted).context("init did not change package.json")?.is_empty() {
            existing.write()?;
            report.push_str(&format!("  {:<32} added the scripts and dependencies it lacked\n", "package.json"));
        }
        return Ok(kept_only());
    }
    let lacking = existing.lacking(&wanted);
    if lacking.is_empty() {
        return Ok(kept_only());
    }
    Ok(Some(format!(
        "\npackage.json is kept as it is, and lacks what the scaffold needs; add:\n{}or run init again with --update-package-json to add it, then `npm install`\n{kept}",
        fragment(&lacking, "  ")
    )))
}

/// Refuses a scaffold file whose path leads out of `dir` through a link (the file itself, a
/// link to nowhere too, or a folder above it): init would write outside the folder, with
/// `--force` over the link's target. Nothing is written then.
fn refuse_links_out(dir: &Path, files: &[ScaffoldFile]) -> Result<(), Exit> {
    let mut links: Vec<LinkOut> = files.iter().filter_map(|file| link_out(dir, &dir.join(&file.path))).collect();
    links.sort_by(|a, b| a.link.cmp(&b.link));
    links.dedup();
    if links.is_empty() {
        return Ok(());
    }
    let mut message =
        format!("init would write through links that lead out of `{}` (nothing was written):\n", escape_path(dir));
    for link in &links {
        let shown = link.link.strip_prefix(dir).unwrap_or(&link.link);
        message.push_str(&format!("  {} is a link to {}\n", escape_path(shown), escape_path(&link.leads_to)));
    }
    message.push_str("make each a file or folder of the project, or remove it: init never writes outside the folder, with --force neither");
    Err(Exit::failure(message))
}

/// The major version of the Node.js that would run the hooks, when one answers (asked
/// as the runtime asks it; too old is no matter here: `init` only names its `@types/node`).
fn node_major() -> Option<u32> {
    let node = crate::runtime::host::node_command();
    let output = version_command(&node, &[]).output().ok().filter(|output| output.status.success())?;
    NodeVersion::parse(&String::from_utf8_lossy(&output.stdout)).map(|version| version.major)
}

/// Whether the scaffold's `file` is in `dir` already, exactly as init would write it.
fn holds(dir: &Path, file: &ScaffoldFile) -> bool {
    std::fs::read(dir.join(&file.path)).is_ok_and(|text| text == file.text.as_bytes())
}

/// The agent's name: the `name` of a `package.json` that is there (it names the agent, and
/// init leaves it alone), else `--name`, else the folder's name made into a package name.
fn agent_name(args: &InitArgs, printer: &Printer) -> String {
    let existing = std::fs::read_to_string(args.dir.join("package.json")).ok();
    let named = existing
        .and_then(|text| crate::fs::json::parse(&text).ok())
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
        (FileKind::Owned, true) if holds(dir, file) => return Ok(Some("unchanged")),
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

/// When `dir` has a `tsconfig.json` of its own (not the scaffold's) and `force` is not
/// given: the scaffold's tsconfig in `files` becomes `<src>/tsconfig.json`, and what to tell
/// the user comes back (that theirs was kept, and, when it takes in the source folder too,
/// what to add so that its build leaves the hooks to their own settings).
fn keep_tsconfig(dir: &Path, files: &mut [ScaffoldFile], layout: Layout, force: bool) -> Option<String> {
    let at_root = files.iter_mut().find(|file| file.path == Path::new("tsconfig.json"))?;
    let theirs = dir.join("tsconfig.json");
    if force || !theirs.exists() || holds(dir, at_root) {
        return None;
    }
    *at_root = scaffold::source_tsconfig(layout);
    let src = layout.folder();
    let mut said = format!(
        "\nYour tsconfig.json was kept; the hooks' own settings are in {src}/tsconfig.json (editors take it for the hooks; check them with `tsc -p {src}`)."
    );
    let text = std::fs::read_to_string(&theirs).unwrap_or_default();
    if scaffold::tsconfig_reaches(&text, src) {
        said.push_str(&format!(
            " Your tsconfig.json takes in {src}/ too, so your build would check the hooks with your settings: add \"{src}\" to its \"exclude\" (\"exclude\": [\"{src}\"]) to leave them to theirs."
        ));
    }
    said.push('\n');
    Some(said)
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
