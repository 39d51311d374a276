//! Exit codes and the command line itself: usage errors, `--deny-warnings`, `bdk`.

use crate::common;

use crate::common::{exit_code, fixture, root, run_in, transcript};

#[test]
fn a_clean_project_exits_0() {
    assert_eq!(exit_code(&run_in(&fixture("validate", "accepted-forms"), &["validate"])), 0);
}

#[test]
fn warnings_fail_only_with_deny_warnings() {
    let dir = fixture("validate", "duplicate-event");
    assert_eq!(exit_code(&run_in(&dir, &["validate"])), 0);
    assert_eq!(exit_code(&run_in(&dir, &["validate", "--deny-warnings"])), 1);
}

#[test]
fn advice_never_fails() {
    let dir = fixture("validate", "dynamic-events");
    assert_eq!(exit_code(&run_in(&dir, &["validate", "--deny-warnings"])), 0);
}

#[test]
fn a_bad_flag_is_a_usage_error() {
    insta::assert_snapshot!(transcript(&root(), &["validate", "--format", "xml"]));
}

#[test]
fn help_exits_0() {
    let output = run_in(&root(), &["validate", "--help"]);
    assert_eq!(exit_code(&output), 0);
    assert!(String::from_utf8_lossy(&output.stdout).contains("--deny-warnings"));
}

#[test]
fn info_prints_a_tree_and_says_when_hooks_have_errors() {
    insta::assert_snapshot!(transcript(&fixture("validate", "parse-error"), &["info"]));
}

/// A hook whose events cannot be known before it runs (re-exported here) reads `null` in
/// JSON and "events unknown" in the tree, not as a hook with no events; a handler that cannot
/// be checked leaves its key known.
#[test]
fn info_says_when_a_hook_s_events_are_unknown() {
    insta::assert_snapshot!(common::transcripts(&fixture("info", "events-unknown"), &[&["info"], &["info", "--json"]]));
}

#[test]
fn info_tree_of_every_accepted_form() {
    insta::assert_snapshot!(transcript(&fixture("validate", "accepted-forms"), &["info"]));
}

#[test]
fn sarif_is_a_sarif_2_1_0_log() {
    let output = run_in(&fixture("validate", "unknown-event"), &["validate", "--format", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    insta::assert_json_snapshot!(log, { ".runs[0].tool.driver.version" => "[version]" });
}

#[test]
fn bdk_is_the_same_program() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_bdk"))
        .args(["validate", "--format", "json"])
        .current_dir(fixture("validate", "accepted-forms"))
        .output()
        .unwrap();
    let expected = run_in(&fixture("validate", "accepted-forms"), &["validate", "--format", "json"]);
    assert_eq!(output.stdout, expected.stdout);
    assert_eq!(exit_code(&output), 0);
}

/// `cargo install`'s `bdk` is a small program that runs the `agent-sdk` beside its real file
/// (through a link too) under the name `bdk`, and says what is missing when it is alone.
#[cfg(unix)]
#[test]
fn cargo_installs_bdk_as_a_program_that_runs_the_agent_sdk_beside_it() {
    let bdk = std::path::Path::new(env!("CARGO_BIN_EXE_bdk"));
    assert!(
        std::fs::metadata(bdk).unwrap().len() * 4 < std::fs::metadata(env!("CARGO_BIN_EXE_agent-sdk")).unwrap().len(),
        "bdk is not a second copy of the program"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let linked = elsewhere.path().join("bdk");
    std::os::unix::fs::symlink(bdk, &linked).unwrap();
    let output = std::process::Command::new(&linked).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("bdk {}\n", env!("CARGO_PKG_VERSION")));

    let alone = elsewhere.path().join("alone");
    std::fs::create_dir(&alone).unwrap();
    let alone = std::fs::canonicalize(alone).unwrap();
    std::fs::copy(bdk, alone.join("bdk")).unwrap();
    let output = std::process::Command::new(alone.join("bdk")).arg("--version").output().unwrap();
    assert_eq!(exit_code(&output), 2);
    let stderr = String::from_utf8_lossy(&output.stderr).replace(&*alone.to_string_lossy(), "[dir]");
    assert_eq!(
        stderr,
        "error: bdk runs `[dir]/agent-sdk`, which is not there; install both again with `cargo install agent-sdk`\n"
    );
}

/// `agent-sdk validate` in a pipe, with only the given colour variables set.
fn validate_with_colour_env(env: &[(&str, &str)]) -> bool {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_agent-sdk"))
        .arg("validate")
        .current_dir(fixture("validate", "unknown-event"))
        .env_remove("NO_COLOR")
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    output.stdout.contains(&0x1b)
}

#[test]
fn force_color_and_clicolor_force_colour_a_pipe_unless_no_color() {
    assert!(!validate_with_colour_env(&[]), "a pipe is not coloured");
    assert!(validate_with_colour_env(&[("FORCE_COLOR", "1")]));
    assert!(validate_with_colour_env(&[("FORCE_COLOR", "3")]));
    assert!(validate_with_colour_env(&[("CLICOLOR_FORCE", "1")]));
    assert!(!validate_with_colour_env(&[("FORCE_COLOR", "0")]), "0 forces nothing");
    assert!(!validate_with_colour_env(&[("CLICOLOR_FORCE", "")]), "empty forces nothing");
    assert!(!validate_with_colour_env(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]), "NO_COLOR wins");
    let never = run_in(&fixture("validate", "unknown-event"), &["validate", "--color", "never"]);
    assert!(!never.stdout.contains(&0x1b));
}

#[test]
fn quiet_prints_the_findings_without_the_summary() {
    let dir = fixture("validate", "unknown-event");
    let quiet = String::from_utf8(run_in(&dir, &["validate", "--quiet"]).stdout).unwrap();
    let full = String::from_utf8(run_in(&dir, &["validate"]).stdout).unwrap();
    assert!(quiet.contains("`turn.complete` is not an event type"), "{quiet}");
    assert!(!quiet.contains("Found"), "{quiet}");
    assert!(full.starts_with(&quiet) && full.ends_with("Found 3 errors in 1 file; 1 hook would load.\n"), "{full}");
    let clean = run_in(&root(), &["-q", "validate", "examples/acme-bot"]);
    assert_eq!((exit_code(&clean), clean.stdout.as_slice(), clean.stderr.as_slice()), (0, &b""[..], &b""[..]));
}

#[test]
fn quiet_run_prints_the_reply_and_no_info_lines() {
    let project = common::copy_project(&root().join("examples/acme-bot"));
    let ran = common::run_recorded(project.path(), &["run", "-q", "--message", "hi"], &[]);
    assert_eq!(exit_code(&ran.output), 0, "{}", ran.both());
    assert!(ran.stdout().contains("You said: \"hi\""), "{}", ran.both());
    assert_eq!(ran.log(), "", "no serve-log line but warnings and errors");
    let loud = common::run_recorded(project.path(), &["run", "--message", "hi"], &[]);
    assert!(loud.log().contains("INFO"), "{}", loud.both());
}

/// Every command's `--help`, as a user reads it: each names an example.
#[test]
fn every_command_has_help_with_an_example() {
    insta::assert_snapshot!("help", transcript(&root(), &["--help"]));
    for command in
        ["validate", "info", "run", "dev", "chat", "test", "logs", "sdk", "init", "completions", "lsp", "help"]
    {
        let help = transcript(&root(), &[command, "--help"]);
        assert!(help.contains("Example: agent-sdk "), "{help}");
        insta::assert_snapshot!(format!("help_{command}"), help);
    }
}

#[test]
fn the_about_text_names_every_command() {
    let help = String::from_utf8(run_in(&root(), &["--help"]).stdout).unwrap();
    let about = help.split("Usage:").next().unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    for command in
        ["validate", "info", "run", "dev", "chat", "test", "logs", "sdk", "init", "completions", "lsp", "help"]
    {
        assert!(about.contains(&format!(" {command} ")), "{command} is not named in:\n{about}");
    }
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let dir = fixture("validate", "unknown-event");
    let plain = run_in(&dir, &["validate"]);
    assert!(!plain.stdout.contains(&0x1b), "no escape codes in a pipe");
    let forced = run_in(&dir, &["validate", "--color", "always"]);
    assert!(forced.stdout.contains(&0x1b), "--color always colours even in a pipe");
}

#[test]
fn the_example_project_is_clean() {
    let dir = root().join("examples/acme-bot");
    insta::assert_snapshot!(common::transcripts(&dir, &[&["validate"], &["info"]]));
}

#[test]
fn the_project_is_found_from_a_folder_inside_it() {
    let nested = fixture("validate", "unknown-event").join("bot/hooks");
    let info = run_in(&nested, &["info", "--json"]);
    assert_eq!(exit_code(&info), 0, "{}", String::from_utf8_lossy(&info.stderr));
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["dir"], "../..", "the root, spelt from where the user is");
    let validate = run_in(&nested, &["validate", "--deny-warnings"]);
    assert_eq!(exit_code(&validate), 1, "the project's warnings were found");
    assert!(String::from_utf8_lossy(&validate.stdout).contains("typos.ts"));
}

#[test]
fn with_no_project_above_the_folder_says_there_is_no_agent_source() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("some/folder");
    std::fs::create_dir_all(&nested).unwrap();
    let above = |folder: &std::path::Path| folder.join("bot").is_dir() || folder.join("agent").is_dir();
    assert!(!nested.ancestors().any(above), "a folder above the temporary one holds a project");
    let output = run_in(&nested, &["validate"]);
    assert_eq!(exit_code(&output), 1);
    assert!(String::from_utf8_lossy(&output.stdout).contains("no agent source folder"));
}

#[test]
fn the_project_can_be_given_as_a_path() {
    let positional = run_in(&root(), &["validate", "examples/acme-bot", "--format", "json"]);
    let flag = run_in(&root(), &["validate", "--dir", "examples/acme-bot", "--format", "json"]);
    assert_eq!(exit_code(&positional), 0, "{}", String::from_utf8_lossy(&positional.stderr));
    assert_eq!(positional.stdout, flag.stdout);
    let info = run_in(&root(), &["info", "examples/acme-bot", "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(info["dir"], "examples/acme-bot");
    assert_eq!(info["agents"][0]["name"], "acme-bot");
}

#[test]
fn a_path_and_dir_together_are_a_usage_error() {
    insta::assert_snapshot!(transcript(&root(), &["info", "examples/acme-bot", "--dir", "examples/acme-bot"]));
}

/// The vendor's CLI: bare `agent-sdk` prints the command index on stdout and exits 0.
#[test]
fn bare_prints_the_command_index_and_exits_0() {
    let output = run_in(&root(), &[]);
    assert_eq!(exit_code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
    let index = String::from_utf8(output.stdout).unwrap();
    insta::assert_snapshot!("bare_index", index);
    assert_eq!(String::from_utf8(run_in(&root(), &["help"]).stdout).unwrap(), index);
}

/// `help <command>` is `<command> --help`; `help --all` is each of them under its heading.
#[test]
fn help_of_a_command_and_of_all_is_what_each_command_s_help_says() {
    let mut all = String::new();
    for command in
        ["validate", "info", "run", "dev", "test", "logs", "chat", "sdk", "init", "completions", "lsp", "help"]
    {
        let own = String::from_utf8(run_in(&root(), &[command, "--help"]).stdout).unwrap();
        let asked = run_in(&root(), &["help", command]);
        assert_eq!(exit_code(&asked), 0);
        assert_eq!(String::from_utf8(asked.stdout).unwrap(), own, "help {command}");
        if !all.is_empty() {
            all.push('\n');
        }
        all.push_str(&format!("# agent-sdk {command}\n\n{own}"));
    }
    let output = run_in(&root(), &["help", "--all"]);
    assert_eq!(exit_code(&output), 0);
    assert_eq!(String::from_utf8(output.stdout).unwrap(), all);
}

#[test]
fn help_of_an_unknown_command_is_a_usage_error_naming_the_nearest() {
    insta::assert_snapshot!(transcript(&root(), &["help", "valdate"]));
}

/// `help run --json`, as a script reads it.
#[test]
fn help_json_prints_a_command_s_arguments_and_flags() {
    let output = run_in(&root(), &["help", "run", "--json"]);
    assert_eq!(exit_code(&output), 0);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    insta::assert_json_snapshot!("help_run_json", json);
}

/// `help --json` has every command, and each lists every flag its `--help` shows.
#[test]
fn help_json_of_the_program_has_every_command_and_every_flag_help_shows() {
    let output = run_in(&root(), &["help", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["name"], "agent-sdk");
    assert_eq!(json["version"], env!("CARGO_PKG_VERSION"));
    let commands = json["commands"].as_array().unwrap();
    let names: Vec<&str> = commands.iter().map(|command| command["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["validate", "info", "run", "dev", "test", "logs", "chat", "sdk", "init", "completions", "lsp", "help"]
    );
    let flag = regex::Regex::new(r"(?m)^\s+(?:-\w, )?(--[a-z][a-z-]*)").unwrap();
    for command in commands {
        let name = command["name"].as_str().unwrap();
        let listed: std::collections::BTreeSet<&str> =
            command["flags"].as_array().unwrap().iter().filter_map(|flag| flag["long"].as_str()).collect();
        let help = String::from_utf8(run_in(&root(), &[name, "--help"]).stdout).unwrap();
        // (`--help` groups them under headings, so the order differs.)
        let shown: std::collections::BTreeSet<&str> =
            flag.captures_iter(&help).map(|found| found.get(1).unwrap().as_str()).collect();
        assert_eq!(listed, shown, "{name}");
        let own = run_in(&root(), &["help", name, "--json"]);
        assert_eq!(&serde_json::from_slice::<serde_json::Value>(&own.stdout).unwrap(), command, "{name}");
    }
}

/// At a monorepo's root, the hint names the first agents it found and counts the rest.
#[test]
fn at_a_root_of_many_agents_the_hint_names_three_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    for agent in ["apps/a", "apps/b", "apps/c", "apps/d", "e"] {
        std::fs::create_dir_all(dir.path().join(agent).join("bot/hooks")).unwrap();
    }
    // (`validate` checks them all: tests/it/validate.rs.)
    let output = run_in(dir.path(), &["info"]);
    assert_eq!(exit_code(&output), 1);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("found agents in apps/a, apps/b, apps/c and 2 more: point --dir at one"), "{said}");
}

/// `--max-warnings N`, as eslint's: more warnings than N fail, N or fewer pass; errors
/// fail whatever N is.
#[test]
fn max_warnings_is_a_budget_of_warnings() {
    let dir = fixture("validate", "duplicate-event");
    let warnings = {
        let json = run_in(&dir, &["validate", "--format", "json"]);
        let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        json["summary"]["warnings"].as_u64().unwrap() as usize
    };
    assert!(warnings > 0);
    let within = run_in(&dir, &["validate", "--max-warnings", &warnings.to_string()]);
    assert_eq!(exit_code(&within), 0, "{}", String::from_utf8_lossy(&within.stderr));
    let over = run_in(&dir, &["validate", "--max-warnings", &(warnings - 1).to_string()]);
    assert_eq!(exit_code(&over), 1);
    let said = String::from_utf8_lossy(&over.stderr);
    let expected = format!(
        "error: {warnings} warning{}, more than --max-warnings {} allows",
        if warnings == 1 { "" } else { "s" },
        warnings - 1
    );
    assert!(said.contains(&expected), "{said}");
    // Two warnings, as docs/commands/validate.md quotes the sentence.
    let two = crate::common::copy_fixture("validate", "duplicate-event");
    let hooks = two.path().join("bot/hooks");
    std::fs::copy(hooks.join("twice.ts"), hooks.join("again.ts")).unwrap();
    let over = run_in(two.path(), &["validate", "--max-warnings", "1"]);
    assert_eq!(exit_code(&over), 1);
    let said = String::from_utf8_lossy(&over.stderr);
    assert!(said.contains("error: 2 warnings, more than --max-warnings 1 allows\n"), "{said}");
    let errors = run_in(&fixture("validate", "parse-error"), &["validate", "--max-warnings", "100"]);
    assert_eq!(exit_code(&errors), 1);
}

/// `info --format json` is `info --json`; `--format tree` the default.
#[test]
fn info_takes_format_json_and_tree() {
    let dir = fixture("validate", "accepted-forms");
    let json = run_in(&dir, &["info", "--json"]);
    assert_eq!(run_in(&dir, &["info", "--format", "json"]).stdout, json.stdout);
    assert_eq!(run_in(&dir, &["info", "--format", "tree"]).stdout, run_in(&dir, &["info"]).stdout);
    assert_eq!(exit_code(&run_in(&dir, &["info", "--json", "--format", "tree"])), 2);
}
