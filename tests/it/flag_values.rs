//! No flag value panics: every duration and number flag takes any text and answers with a
//! value in its documented range or a usage error (exit 2) that says what is wrong.
//!
//! The property runs the real command-line parser in process (spawning the binary for
//! each case would take minutes); a handful of extreme values then go through the binary.

use std::time::{Duration, Instant};

use agent_sdk::cli::{Cli, Command};
use agent_sdk::time::clock::{LONGEST_DURATION, SHORTEST_DURATION};
use clap::Parser;
use proptest::prelude::*;
use proptest::test_runner::Config;

use crate::common::{exit_code, run_in};

/// Each flag that takes a duration or a number, with the arguments its command needs
/// besides it.
const FLAGS: [(&[&str], &str); 7] = [
    (&["run", "--event", "turn.completed"], "--hook-timeout"),
    (&["dev"], "--hook-timeout"),
    (&["dev"], "--session-idle"),
    (&["dev"], "--port"),
    (&["logs"], "--retry-for"),
    (&["logs"], "--tail"),
    (&["logs"], "--since"),
];

/// Text shaped like a duration or a number, and every near miss: signs, exponents,
/// many digits, several units, odd spaces, non-ASCII digits.
fn flag_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,12}",
        "[+-]?[0-9]{0,30}(\\.[0-9]{0,12})?(e[+-]?[0-9]{1,3})?(ms|s|m|h|d|w|M|µs|)",
        "[0-9]{1,25}(ms|s|m|h|d)[0-9]{0,3}(ms|s|m|h|d)?",
        "( |\t)?(inf|NaN|infinity|-0|0x10|１２|٣s|5 s)( |\t)?",
        "[0-9]{1,14}(s|m|h|d)",
    ]
}

/// Parses `agent-sdk <command> <flag> <value>` and checks any value it accepts.
fn parse_one(command: &[&str], flag: &str, value: &str) -> Result<(), TestCaseError> {
    let flag_and_value = format!("{flag}={value}");
    let argv = std::iter::once("agent-sdk").chain(command.iter().copied()).chain([flag_and_value.as_str()]);
    let Ok(cli) = Cli::try_parse_from(argv) else { return Ok(()) };
    let durations = match &cli.command {
        Some(Command::Run(args)) => vec![args.hook_timeout],
        Some(Command::Dev(args)) => vec![args.hook_timeout, args.session_idle],
        Some(Command::Logs(args)) => {
            // `--since` is checked by the command before anything is sent.
            if let Some(Ok(since)) = args.since.as_deref().map(agent_sdk::time::since::parse_since) {
                let _ = since.lower_bound(jiff::Timestamp::now());
            }
            vec![args.retry_for]
        }
        _ => vec![],
    };
    for duration in durations {
        prop_assert!((SHORTEST_DURATION..=LONGEST_DURATION).contains(&duration), "{flag}={value:?} gave {duration:?}");
        // Every deadline the engine computes from it fits the clock.
        prop_assert!(Instant::now().checked_add(duration + Duration::from_secs(60)).is_some());
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 512, failure_persistence: None, ..Config::default() })]

    #[test]
    fn no_flag_value_panics_the_parser(flag in 0..FLAGS.len(), value in flag_value()) {
        let (command, flag) = FLAGS[flag];
        parse_one(command, flag, &value)?;
    }

    #[test]
    fn a_duration_is_in_range_or_refused_with_a_reason(value in flag_value()) {
        match agent_sdk::time::clock::parse_duration(&value) {
            Ok(duration) => prop_assert!((SHORTEST_DURATION..=LONGEST_DURATION).contains(&duration)),
            Err(reason) => prop_assert!(reason.contains(value.trim()), "{reason}"),
        }
    }
}

/// Values that panicked (exit 101) or could: past every clock, past a float, no number,
/// no unit, two units, a sign, non-ASCII digits, months.
const EXTREME_VALUES: [&str; 15] = [
    "99999999999999999999h",
    "18446744073709551615s",
    "99999999999999999999",
    "1e30",
    "1e30s",
    "-5s",
    "",
    "1h1h",
    "５s",
    "NaN",
    "8d",
    "0.0001ms",
    "1.5",
    "1mo",
    "99999999999d",
];

#[test]
fn extreme_values_are_usage_errors_never_panics() {
    let dir = tempfile::tempdir().unwrap();
    for (command, flag) in FLAGS {
        for value in EXTREME_VALUES {
            if flag == "--since" && agent_sdk::time::since::validate_since(value).is_ok() {
                continue; // `8d` is a fine age.
            }
            let mut args: Vec<String> = command.iter().map(|arg| (*arg).to_owned()).collect();
            args.extend(["--dir".to_owned(), ".".to_owned(), format!("{flag}={value}")]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = run_in(dir.path(), &args);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
            assert_eq!(exit_code(&output), 2, "{args:?}:\n{stderr}");
            assert!(stderr.contains(flag) && stderr.contains(value), "{args:?} does not say what is wrong:\n{stderr}");
        }
    }
}

#[test]
fn the_reasons_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let reason = |args: &[&str]| String::from_utf8_lossy(&run_in(dir.path(), args).stderr).into_owned();
    let too_long = reason(&["dev", "--session-idle=9999h"]);
    assert!(too_long.contains("is longer than the longest duration allowed, 7d"), "{too_long}");
    let past_counting = reason(&["dev", "--session-idle=99999999999999999999h"]);
    assert!(past_counting.contains("number too big"), "{past_counting}");
    let too_short = reason(&["logs", "--retry-for=0s"]);
    assert!(too_short.contains("is shorter than the shortest duration allowed, 1ms"), "{too_short}");
    let no_duration = reason(&["run", "--event", "turn.completed", "--hook-timeout=1h1h"]);
    assert!(no_duration.contains("units must be written from largest to smallest"), "{no_duration}");
    assert!(no_duration.contains("write a number and a unit (ms, s, m, h, d or w)"), "{no_duration}");
    let no_unit = reason(&["dev", "--session-idle=90"]);
    assert!(no_unit.contains("`90` is not a duration"), "{no_unit}");
    let months = reason(&["logs", "--retry-for=1mo"]);
    assert!(months.contains("months and years have no fixed length"), "{months}");
}

#[test]
fn friendly_and_fractional_durations_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    for value in ["1.5h", "1h 30m", "500ms", "2 minutes", "PT90M", "1w"] {
        let cli = Cli::try_parse_from(["agent-sdk", "dev", "--hook-timeout", value]).unwrap();
        let Some(Command::Dev(args)) = cli.command else { unreachable!() };
        assert!(args.hook_timeout >= Duration::from_millis(500), "{value}: {:?}", args.hook_timeout);
    }
    // Through the binary: a friendly `--since` passes the check and reaches the (absent) server.
    for since in ["1.5h", "1h 30m", "2026-11-30T05:52:01Z"] {
        let output = run_in(dir.path(), &["logs", "--since", since, "--host", "http://127.0.0.1:9"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("is neither an age"), "--since {since}: {stderr}");
    }
}
