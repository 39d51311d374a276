//! `agent-sdk validate`: check every hook statically and report; the CI gate. With `--fix`,
//! apply the fixes the findings know first ([`fix`]). Its PATHs name a project, a folder of
//! agents, or files ([`targets`]); several checks are reported as one ([`combine`]).

mod combine;
mod fix;
mod targets;

use std::path::Path;

use crate::check::extensions::{MountRuns, MountsRan};
use crate::check::full::check_project_with;
use crate::check::{CheckedProject, Scope};
use crate::cli::{OutputFormat, ValidateArgs};
use crate::diagnostics::{Applicability, Severity};
use crate::exit_status::ExitStatus;
use crate::printer::{Printer, plural};
use crate::report;

/// Checks what the PATHs name (the project at `--dir` or found from here, every agent below
/// a folder that holds none, or the projects of the files given, reporting only those files'
/// findings): its hooks, and whether the SDK packages `tsc` sees are there and current. Prints
/// the findings in `--format`, naming files from the current directory in the formats CI and
/// editors read. With `--fix`, writes the fixes first and says on stderr what it changed.
/// Exit 1 on any error, or on any warning with `--deny-warnings` (or an agent's settings).
pub fn validate(args: &ValidateArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let targets = targets::resolve(&args.dir)?;
    let runs = MountRuns::from(&args.exec);
    if let Some(line) = targets.said().filter(|_| !printer.is_quiet()) {
        printer.stderr(&line);
    }
    if targets.agents.is_empty() {
        return Ok(ExitStatus::Success);
    }
    // What each agent's check says on stderr before the report: its settings and its fixes.
    let mut said = String::new();
    let mut parts = Vec::new();
    let mut denied = false;
    let mut all_fixed: Option<fix::Fixed> = None;
    for agent in &targets.agents {
        let checked = check_agent(agent, args, &runs)?;
        said.push_str(&checked.settings_line);
        if let Some(fixed) = checked.fixed {
            let all = all_fixed.get_or_insert_default();
            for (path, codes) in fixed.files {
                all.files.entry(path).or_default().extend(codes);
            }
            all.changed_meanwhile.extend(fixed.changed_meanwhile);
        }
        denied |= checked.denied;
        parts.push(checked.part);
    }
    if let Some(fixed) = all_fixed.filter(|fixed| !printer.is_quiet() || fixed.count() > 0) {
        said.push_str(&fixed_lines(&fixed));
    }
    let checked = match parts.as_slice() {
        [only] if only.prefix.is_empty() => parts.pop().map(|part| part.checked).unwrap_or_default(),
        _ => combine::join(parts),
    };
    if let Some(line) = MountsRan::of(&checked).line().filter(|_| !printer.is_quiet()) {
        printer.stderr(&line);
    }
    if !said.is_empty() {
        printer.stderr(&said);
    }
    let dir = report::ProjectDir::new(&targets.root, &checked);
    let format = args.format();
    let rendered = match format {
        // `--quiet`: the findings without the summary line.
        OutputFormat::Pretty if printer.is_quiet() => {
            report::render_diagnostics(&checked.diagnostics, &checked.sources, printer)
        }
        format => report::render(format, &checked, &dir, printer),
    };
    printer.stdout(&rendered)?;
    if !printer.is_quiet() {
        if let Some(summary) = report::render_summary(format, &checked) {
            printer.stderr(&summary);
        }
        if let Some(hint) =
            fixable_hint(&checked, args).filter(|_| matches!(format, OutputFormat::Pretty | OutputFormat::Concise))
        {
            printer.stderr(&hint);
        }
    }
    let warnings = checked.count(Severity::Warning);
    let over_budget = args.max_warnings.filter(|&most| warnings > most);
    if let Some(most) = over_budget {
        printer.stderr(&format!(
            "error: {}, more than --max-warnings {most} allows\n",
            crate::printer::plural(warnings, "warning")
        ));
    }
    let failed =
        checked.count(Severity::Error) > 0 || denied || (args.deny_warnings && warnings > 0) || over_budget.is_some();
    Ok(if failed { ExitStatus::Failure } else { ExitStatus::Success })
}

/// One agent's check, and what it says before the report.
struct AgentChecked {
    part: combine::Part,
    /// Which settings apply (with `--verbose`, whichever they are), as a line or nothing.
    settings_line: String,
    /// What `--fix` did, each file named from the current directory.
    fixed: Option<fix::Fixed>,
    /// Whether its own settings' `denyWarnings` fail it.
    denied: bool,
}

/// Checks one agent as `validate` reports it: the hooks `agent` covers and whether the SDK
/// packages `tsc` sees are there and current; with `--fix`, after writing the fixes.
fn check_agent(agent: &targets::Agent, args: &ValidateArgs, runs: &MountRuns) -> anyhow::Result<AgentChecked> {
    let scope = agent.only.clone().map_or(Scope::Project, Scope::Files);
    let check = |dir: &Path| check_project_with(dir, std::sync::Arc::default(), runs, &scope, true);
    let (checked, fixed) = if args.fix || args.unsafe_fixes {
        let (checked, fixed) = fix::fix_project(&agent.dir, args.unsafe_fixes, check)?;
        (checked, Some(fixed))
    } else {
        (check(&agent.dir)?, None)
    };
    let dir = report::ProjectDir::new(&agent.dir, &checked);
    // Which settings apply, first: they decide what was fixed and found.
    let settings_line = if args.verbose && checked.project.is_some() {
        report::settings::read_line(&checked.config, &dir)
    } else {
        report::settings::from_above(&checked.config, &dir).unwrap_or_default()
    };
    let fixed = fixed.map(|fixed| fix::Fixed {
        files: fixed.files.into_iter().map(|(path, codes)| (dir.file(&path), codes)).collect(),
        changed_meanwhile: fixed.changed_meanwhile.iter().map(|path| dir.file(path)).collect(),
    });
    let denied = checked.config.deny_warnings && checked.count(Severity::Warning) > 0;
    let part = combine::Part { prefix: agent.prefix.clone(), anchor: dir.anchor().to_owned(), checked };
    Ok(AgentChecked { part, settings_line, fixed, denied })
}

/// `Fixed 3 findings in 2 files:` and each file (named from the current directory) with the
/// codes fixed in it, or that none was.
fn fixed_lines(fixed: &fix::Fixed) -> String {
    let mut out = match fixed.count() {
        0 => "No fixes applied.\n".to_owned(),
        count => format!("Fixed {} in {}:\n", plural(count, "finding"), plural(fixed.files.len(), "file")),
    };
    for (path, codes) in &fixed.files {
        // `codes` is sorted: `hooks::unknown-event (2), suppression::unused`.
        let mut counted: Vec<String> = Vec::new();
        for run in codes.chunk_by(|a, b| a == b) {
            counted.push(match run.len() {
                1 => run[0].as_str().to_owned(),
                count => format!("{} ({count})", run[0].as_str()),
            });
        }
        out.push_str(&format!("  {}: {}\n", crate::text::untrusted::escape(path), counted.join(", ")));
    }
    for path in &fixed.changed_meanwhile {
        out.push_str(&format!(
            "  {}: not fixed, it changed while it was checked; run again\n",
            crate::text::untrusted::escape(path)
        ));
    }
    out
}

/// `2 findings are fixable with --fix (1 more with --unsafe-fixes).`, when some are.
fn fixable_hint(checked: &CheckedProject, args: &ValidateArgs) -> Option<String> {
    let count = |applicability| {
        checked
            .diagnostics
            .iter()
            .filter(|d| d.fix.as_ref().is_some_and(|fix| fix.applicability == applicability))
            .count()
    };
    let (safe, unsafe_) = (count(Applicability::Safe), count(Applicability::Unsafe));
    // After `--unsafe-fixes`, what remains did not apply: the hint would only repeat itself.
    if args.unsafe_fixes || (safe == 0 && unsafe_ == 0) {
        return None;
    }
    let findings = |count: usize| if count == 1 { "1 finding is".to_owned() } else { format!("{count} findings are") };
    Some(match (safe, unsafe_) {
        (0, unsafe_) => format!("{} fixable with --unsafe-fixes.\n", findings(unsafe_)),
        (safe, 0) => format!("{} fixable with --fix.\n", findings(safe)),
        (safe, unsafe_) => format!("{} fixable with --fix ({unsafe_} more with --unsafe-fixes).\n", findings(safe)),
    })
}
