//! `agent-sdk validate`: check every hook statically and report; the CI gate. With `--fix`,
//! apply the fixes the findings know first ([`fix`]).

mod fix;

use std::path::Path;

use crate::check::CheckedProject;
use crate::check::extensions::{MountRuns, MountsRan, check_project};
use crate::cli::{OutputFormat, ValidateArgs};
use crate::diagnostics::{Applicability, Severity};
use crate::exit_status::ExitStatus;
use crate::printer::{Printer, plural};
use crate::report;

/// Checks the project at `--dir` (its hooks, and whether the SDK packages `tsc` sees are
/// there and current) and prints the findings in `--format`, naming files from the current
/// directory in the formats CI and editors read. With `--fix`, writes the fixes first and
/// says on stderr what it changed. Exit 1 on any error, or on any warning with
/// `--deny-warnings`.
pub fn validate(args: &ValidateArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let runs = MountRuns::from(&args.exec);
    let (checked, fixed) = if args.fix || args.unsafe_fixes {
        let check = |dir: &Path| check(dir, &runs);
        let (checked, fixed) = fix::fix_project(&args.dir.dir, args.unsafe_fixes, check)?;
        (checked, Some(fixed))
    } else {
        (check(&args.dir.dir, &runs)?, None)
    };
    if let Some(line) = MountsRan::of(&checked).line().filter(|_| !printer.is_quiet()) {
        printer.stderr(&line);
    }
    let dir = report::ProjectDir::new(&args.dir.dir, &checked);
    // Which settings apply, first: they decide what was fixed and found.
    if args.verbose && checked.project.is_some() {
        printer.stderr(&report::settings::read_line(&checked.config, &dir));
    } else if let Some(line) = report::settings::from_above(&checked.config, &dir) {
        printer.stderr(&line);
    }
    if let Some(fixed) = fixed.filter(|fixed| !printer.is_quiet() || fixed.count() > 0) {
        printer.stderr(&fixed_lines(&fixed, &dir));
    }
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
    let deny_warnings = args.deny_warnings || checked.config.deny_warnings;
    let warnings = checked.count(Severity::Warning);
    let over_budget = args.max_warnings.filter(|&most| warnings > most);
    if let Some(most) = over_budget {
        printer.stderr(&format!(
            "error: {}, more than --max-warnings {most} allows\n",
            crate::printer::plural(warnings, "warning")
        ));
    }
    let failed = checked.count(Severity::Error) > 0 || (deny_warnings && warnings > 0) || over_budget.is_some();
    Ok(if failed { ExitStatus::Failure } else { ExitStatus::Success })
}

/// The whole check `validate` reports: the project's, and whether the SDK packages are
/// there and current (only `validate` looks: `run` and `info` never depend on them).
fn check(dir: &Path, runs: &MountRuns) -> anyhow::Result<CheckedProject> {
    let mut checked = check_project(dir, runs)?;
    if checked.project.is_some() {
        let mut packages = crate::sdk::freshness::check_packages(dir);
        checked.config.apply(&mut packages);
        checked.diagnostics.extend(packages);
        checked.diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    Ok(checked)
}

/// `Fixed 3 findings in 2 files:` and each file with the codes fixed in it, or that none was.
fn fixed_lines(fixed: &fix::Fixed, dir: &report::ProjectDir) -> String {
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
        out.push_str(&format!("  {}: {}\n", crate::untrusted::escape(&dir.file(path)), counted.join(", ")));
    }
    for path in &fixed.changed_meanwhile {
        out.push_str(&format!(
            "  {}: not fixed, it changed while it was checked; run again\n",
            crate::untrusted::escape(&dir.file(path))
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
