//! Extensions (SPEC §3a): packages that contribute hooks, mounted by a file in
//! `<src>/extensions/` whose name is the namespace (`ci.ts` → hooks `ci__<name>`).
//!
//! ```text
//!   discover ─▶ mount_file (the shape, statically) ─▶ graph walk (as for hooks)
//!                                                         │
//!       probe (Node runs each mount once, dispatching nothing) ◀┘
//!         └─▶ mounted: hook reports `<ns>__<key>`, diagnostics, what `info` lists
//! ```
//!
//! Only a project with mount files starts Node to be checked: what a mount contributes is
//! known only by running the extension's factory.

pub mod discover;
pub mod mount_file;
pub mod mounted;
pub mod probe;

use crate::check::CheckedProject;
use crate::loader::cache::Cache;
use crate::loader::graph::{self, Visited};
use crate::loader::resolver::Resolver;
use crate::project::Project;
use crate::protocol::Mounted;
use discover::MountFile;
use mount_file::MountShape;

/// One mount file and what became of it.
#[derive(Debug, Clone)]
pub struct Mount {
    pub file: MountFile,
    /// Its shape; `None` when it has none (see the diagnostics).
    pub shape: Option<MountShape>,
    /// Whether it can be run: its shape is right and what it imports loads.
    pub loads: bool,
    /// What running it mounted (`None`: not run).
    pub mounted: Option<Mounted>,
    /// The package its factory comes from: `(name, version)`, when it is one.
    pub package: Option<(String, Option<String>)>,
}

impl Mount {
    pub fn namespace(&self) -> &str {
        &self.file.namespace
    }
}

/// Finds and reads every mount file of `project`: each whose shape is right is compiled (or
/// found in `cache`) like a hook, and returned with its index as an entry of the import
/// walk. What is wrong goes into `checked`.
pub fn read_mounts(
    project: &Project,
    resolver: &Resolver,
    cache: Option<&Cache>,
    checked: &mut CheckedProject,
) -> (Vec<Mount>, Vec<(usize, Visited)>) {
    let (files, diagnostics) = discover::discover(project);
    checked.diagnostics.extend(diagnostics);
    let mut mounts = Vec::new();
    let mut entries = Vec::new();
    for file in files {
        let (shape, entry) = read_mount(&file, resolver, cache, checked);
        if let Some(entry) = entry {
            entries.push((mounts.len(), entry));
        }
        let loads = shape.is_some();
        mounts.push(Mount { file, shape, loads, mounted: None, package: None });
    }
    (mounts, entries)
}

fn read_mount(
    file: &MountFile,
    resolver: &Resolver,
    cache: Option<&Cache>,
    checked: &mut CheckedProject,
) -> (Option<MountShape>, Option<Visited>) {
    let unsaved = resolver.unsaved_text(&file.real_path);
    let text = match crate::check::analyze::read::read_hook_or_unsaved(&file.path, &file.display_path, unsaved) {
        Ok(text) => text,
        Err(diagnostic) => {
            checked.diagnostics.push(*diagnostic);
            return (None, None);
        }
    };
    let read = crate::parse::on_a_big_enough_stack(text.len(), || {
        crate::check::analyze::parse_then(&file.display_path, &text, |source, allocator, program| {
            match mount_file::read_shape(source, &program) {
                Ok(shape) => {
                    let entry = graph::visit_entry(
                        &file.real_path,
                        &file.display_path,
                        &text,
                        (allocator, program),
                        resolver,
                        cache,
                    );
                    (Ok(shape), Some(entry))
                }
                Err(diagnostic) => (Err(diagnostic), None),
            }
        })
    });
    let (shape, entry) = match read {
        Some(Ok((Ok(shape), entry))) => (Some(shape), entry),
        Some(Ok((Err(diagnostic), _))) => {
            checked.diagnostics.push(*diagnostic);
            (None, None)
        }
        Some(Err(diagnostics)) => {
            checked.diagnostics.extend(diagnostics);
            (None, None)
        }
        None => {
            checked.diagnostics.push(crate::diagnostics::too_big_to_parse(&file.display_path));
            (None, None)
        }
    };
    checked.sources.insert(file.display_path.clone(), text);
    (shape, entry)
}

/// Whether the check found mount files to run.
pub fn any_to_run(checked: &CheckedProject) -> bool {
    checked.mounts.iter().any(|mount| mount.loads)
}

/// Runs the mount files that can run (in Node, through the loader `run` uses; see
/// [`probe`]) and takes in what they mount: hooks `<ns>__<key>` join `checked.hooks` in
/// discovery order, and every problem is a diagnostic at the mount's call (the mount file's
/// `agent-sdk-ignore` comments apply to them in [`crate::check::full`]'s finishing pass, so
/// a warning about an extension's own hook can be silenced where the mount is written).
/// Without mount files it does nothing (and starts nothing).
pub fn mount(checked: &mut CheckedProject, config: &crate::runtime::host::RuntimeConfig, timeout: std::time::Duration) {
    if any_to_run(checked) {
        run_and_take_in(checked, config, timeout);
    }
}

fn run_and_take_in(
    checked: &mut CheckedProject,
    config: &crate::runtime::host::RuntimeConfig,
    timeout: std::time::Duration,
) {
    name_packages(checked);
    let runnable: Vec<usize> = (0..checked.mounts.len()).filter(|&index| checked.mounts[index].loads).collect();
    let to_run: Vec<probe::ToRun> = runnable
        .iter()
        .map(|&index| probe::ToRun {
            namespace: checked.mounts[index].namespace().to_owned(),
            url: crate::text::uri::file_url(&checked.mounts[index].file.real_path),
        })
        .collect();
    let ran = crate::loader::manifest(&checked.modules, &config.runtime_dir)
        .map_err(anyhow::Error::new)
        .and_then(|manifest| probe::run_mounts(config, &manifest, &to_run, timeout));
    match ran {
        Ok(results) => {
            for (index, mounted) in runnable.into_iter().zip(results) {
                let minimal_env = config.environment == crate::runtime::environment::Environment::Minimal;
                mounted::take_in(checked, index, mounted, minimal_env);
            }
        }
        Err(error) => {
            for index in runnable {
                checked.diagnostics.push(needs_node(&checked.mounts[index], &error));
            }
        }
    }
    checked.hooks.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
}

/// Names the package each mount's factory comes from (what `info` shows).
fn name_packages(checked: &mut CheckedProject) {
    for mount in &mut checked.mounts {
        mount.package = factory_package(&checked.modules, mount);
    }
}

fn needs_node(mount: &Mount, error: &anyhow::Error) -> crate::diagnostics::Diagnostic {
    let help = if error.is::<crate::loader::NotUtf8Path>() {
        "move the project to a folder whose path is UTF-8 text, or rename the folder that is not"
    } else {
        "install Node.js 20.6 or later and put `node` on PATH (or set AGENT_SDK_NODE to its path)"
    };
    crate::diagnostics::Diagnostic::new(
        crate::diagnostics::Code::MountNeedsNode,
        format!(
            "extension `{}` could not be checked: what a mount contributes is known only by running it in Node.js, and {error:#}",
            mount.namespace()
        ),
        help,
    )
    .with_path(&mount.file.display_path)
}

/// The package the mount's factory is imported from: the nearest `package.json` with a
/// `name` above the file its specifier resolved to, unless that is the project's own.
fn factory_package(graph: &crate::loader::graph::ModuleGraph, mount: &Mount) -> Option<(String, Option<String>)> {
    let shape = mount.shape.as_ref()?;
    let module = graph.modules.iter().find(|module| module.path == mount.file.real_path)?;
    let target = module.resolved.iter().find(|(specifier, _)| specifier == &shape.factory_source)?;
    let crate::loader::resolver::Target::File(path) = &target.1 else { return None };
    let mount_package = mount.file.real_path.ancestors().find(|dir| dir.join("package.json").is_file());
    for dir in path.ancestors().skip(1) {
        let manifest = dir.join("package.json");
        let Ok(text) = std::fs::read_to_string(&manifest) else { continue };
        if Some(dir) == mount_package {
            return None;
        }
        let Ok(json) = crate::fs::json::parse(&text) else { return None };
        let Some(name) = json["name"].as_str() else { continue };
        return Some((name.to_owned(), json["version"].as_str().map(str::to_owned)));
    }
    None
}

/// Whether a static check (`validate`, `info`, the editor) may run the project's extension
/// mounts, the only code such a check can run: what a mount contributes is known only by
/// running its extension's factory, which may be a module of the pull request under check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountRuns {
    /// Each mount runs once in Node.js, with a minimal environment (see
    /// [`crate::runtime::environment`]) plus the variables `pass_env` names, its state in
    /// the user's cache folder, and every process it started ended with it.
    Contained { pass_env: Vec<String> },
    /// No code runs; each mount that would load gets `extensions::not-run`, saying why.
    Forbidden(Forbidden),
}

impl From<&crate::cli::ExecArgs> for MountRuns {
    /// What `--no-exec` and `--pass-env` allow.
    fn from(args: &crate::cli::ExecArgs) -> Self {
        if args.no_exec {
            Self::Forbidden(Forbidden::Flag)
        } else {
            Self::Contained { pass_env: args.pass_env.clone() }
        }
    }
}

/// Who forbade running the mounts: what `extensions::not-run` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forbidden {
    /// `--no-exec`.
    Flag,
    /// The settings' `"noExec": true`.
    Settings,
    /// The language server, which runs no code unless its `runExtensions` option is set.
    Editor,
}

/// What a static check of a project with mounts did with them, for the line the command
/// prints on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MountsRan {
    /// It has no mounts to run (none, or none whose shape and imports are right).
    NoneToRun,
    /// This many ran in Node.js.
    Ran(usize),
    /// None ran: this forbade it.
    Forbidden(Forbidden),
}

impl MountsRan {
    /// What `checked` says of its mounts.
    pub fn of(checked: &CheckedProject) -> Self {
        let ran = checked.mounts.iter().filter(|mount| mount.mounted.is_some()).count();
        match checked.mounts_forbidden {
            Some(why) if checked.mounts.iter().any(|mount| mount.loads) => Self::Forbidden(why),
            _ if ran > 0 => Self::Ran(ran),
            _ => Self::NoneToRun,
        }
    }

    /// `ran 1 extension mount in Node.js …`, or nothing when there was none to run.
    pub fn line(self) -> Option<String> {
        match self {
            Self::NoneToRun => None,
            Self::Ran(count) => Some(format!(
                "ran {} in Node.js to learn what {} (minimal environment, state in the user's cache; --no-exec runs none)\n",
                crate::printer::plural(count, "extension mount"),
                if count == 1 { "it mounts" } else { "they mount" }
            )),
            Self::Forbidden(why) => Some(format!(
                "ran no code ({}): the extension mounts were not run, so what they mount is not checked\n",
                why.as_str()
            )),
        }
    }
}

impl Forbidden {
    /// What forbade it, in the words of `extensions::not-run`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Flag => "--no-exec",
            Self::Settings => "the settings' \"noExec\": true",
            Self::Editor => "the language server runs no code unless its `runExtensions` option is set",
        }
    }

    /// How to have them run.
    fn help(self) -> &'static str {
        match self {
            Self::Flag => {
                "run `agent-sdk validate` without --no-exec to run each mount once in Node.js (a minimal environment, nothing written into the project) and check its hooks and options"
            }
            Self::Settings => {
                "remove \"noExec\" from the settings to have `validate` run each mount once in Node.js (a minimal environment, nothing written into the project) and check its hooks and options"
            }
            Self::Editor => {
                "`agent-sdk validate` checks what it mounts; to see it here, set the server's initialization option `runExtensions: true` (VS Code: the setting `agentSdk.runExtensions`, in a trusted workspace)"
            }
        }
    }
}

/// One `extensions::not-run` at the call of each mount that would have run.
pub(crate) fn not_run(checked: &mut CheckedProject, why: Forbidden) {
    checked.mounts_forbidden = Some(why);
    name_packages(checked);
    for mount in checked.mounts.iter().filter(|mount| mount.loads) {
        let Some(shape) = &mount.shape else { continue };
        let text = checked.sources.get(&mount.file.display_path).map_or("", String::as_str);
        let file = crate::diagnostics::SourceFile::new(&mount.file.display_path, text);
        checked.diagnostics.push(file.diagnostic(
            crate::diagnostics::Code::MountNotRun,
            shape.call,
            "not run",
            format!(
                "extension `{}` was not run ({}), so the hooks it mounts and its check of these options are unknown",
                mount.namespace(),
                why.as_str()
            ),
            why.help(),
        ));
    }
}
