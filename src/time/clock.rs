//! Wall-clock timestamps as RFC 3339 UTC with milliseconds, unique ids, and the one reading
//! of the durations users type (`30s`, `500ms`, `1.5h`, `1h 30m`), which is jiff's: every
//! duration flag and every `since` age is read here.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Now, as `2026-11-30T05:52:01.123Z`.
pub fn now_rfc3339() -> String {
    format_timestamp(jiff::Timestamp::now())
}

/// An instant as RFC 3339 UTC with milliseconds, the one format every recorded `at` has
/// (so that two of them compare as strings the way they compare as times).
pub fn format_timestamp(instant: jiff::Timestamp) -> String {
    instant.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A fresh id such as `ses_0193a1b2c3d4e5f6`: unique within this machine.
pub fn new_id(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos() as u64;
    let mixed = nanos ^ (u64::from(std::process::id()) << 48) ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(32);
    format!("{prefix}_{mixed:016x}")
}

/// `30s`, `1.5s`, `250ms`, `2m`, `1h`.
pub fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
    } else if millis.is_multiple_of(3_600_000) {
        format!("{}h", millis / 3_600_000)
    } else if millis.is_multiple_of(60_000) {
        format!("{}m", millis / 60_000)
    } else if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{}s", millis as f64 / 1000.0)
    }
}

/// The longest duration a flag takes (`--hook-timeout`, `--session-idle`, `--retry-for`):
/// a week. Longer is refused, not clamped, so that no deadline overflows a clock and no
/// timer (Node's stop at about 24.8 days) silently fires early.
pub const LONGEST_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

/// The shortest: a millisecond (the hook runtime counts its timers in whole milliseconds).
pub const SHORTEST_DURATION: Duration = Duration::from_millis(1);

/// Reads a length of time as jiff's friendly format does (`500ms`, `30s`, `2m`, `1.5h`,
/// `1h 30m`, `2 hours`, `1d`, `1w`; a fraction only on the last unit, and only up to hours)
/// or as ISO 8601 (`PT1H`). A day is 24 hours; months and years have no fixed length and
/// are refused, as are a number without its unit and a negative length.
pub fn parse_length(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let not_a_duration = |reason: &str| {
        format!(
            "`{text}` is not a duration ({reason}): write a number and a unit (ms, s, m, h, d or w), e.g. 500ms, 30s, 1.5h or 1h 30m"
        )
    };
    let span: jiff::Span = text.parse().map_err(|error: jiff::Error| not_a_duration(&jiff_reason(&error)))?;
    let length = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .map_err(|_| not_a_duration("months and years have no fixed length"))?;
    Duration::try_from(length).map_err(|_| not_a_duration("it is negative"))
}

/// jiff's reason, without the preamble every one of them shares.
fn jiff_reason(error: &jiff::Error) -> String {
    let reason = error.to_string();
    match reason.split_once(": ") {
        Some((preamble, rest)) if preamble.starts_with("failed to parse") => rest.to_owned(),
        _ => reason,
    }
}

/// Parses a duration flag's value as [`parse_length`] does, from [`SHORTEST_DURATION`] to
/// [`LONGEST_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let length = parse_length(text)?;
    let text = text.trim();
    if length > LONGEST_DURATION {
        return Err(format!("`{text}` is longer than the longest duration allowed, 7d"));
    }
    if length < SHORTEST_DURATION {
        return Err(format!("`{text}` is shorter than the shortest duration allowed, 1ms"));
    }
    Ok(length)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        let at = |millis| format_timestamp(jiff::Timestamp::from_millisecond(millis).unwrap());
        assert_eq!(at(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(at(1_796_017_921_007), "2026-11-30T05:52:01.007Z");
    }

    #[test]
    fn ids_differ() {
        assert_ne!(new_id("ses"), new_id("ses"));
    }

    #[test]
    fn durations_round_trip() {
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("1h 30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("2 minutes").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("PT1M").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_duration("7d").unwrap(), LONGEST_DURATION);
        assert_eq!(parse_duration("1w").unwrap(), LONGEST_DURATION);
        assert_eq!(parse_duration("1ms").unwrap(), SHORTEST_DURATION);
        for refused in ["0s", "soon", "1.5", "30", "-5s", "5m ago", "1mo", "1h1h", "1.5d", "8d", "0.5ms"] {
            assert!(parse_duration(refused).is_err(), "{refused}");
        }
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_millis(200)), "200ms");
        assert_eq!(format_duration(Duration::from_secs(60)), "1m");
        assert_eq!(format_duration(Duration::from_secs(3600)), "1h");
    }
}
