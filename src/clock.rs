//! Wall-clock timestamps as RFC 3339 UTC with milliseconds, unique ids, and the durations
//! users type (`30s`, `500ms`, `2m`), without a date library: the envelope's `at`, the
//! serve log and the timeout flags need nothing more.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Now, as `2026-11-30T05:52:01.123Z`.
pub fn now_rfc3339() -> String {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    format_millis(since_epoch.as_millis() as i64)
}

/// Milliseconds since the Unix epoch as RFC 3339 UTC.
pub fn format_millis(millis: i64) -> String {
    let (days, in_day) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let (hour, minute) = (in_day / 3_600_000, in_day / 60_000 % 60);
    let (second, milli) = (in_day / 1000 % 60, in_day % 1000);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}

/// Days since 1970-01-01 → (year, month, day), after Howard Hinnant's `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A fresh id such as `ses_0193a1b2c3d4e5f6`: unique within this machine.
pub fn new_id(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_nanos() as u64;
    let mixed = nanos ^ (u64::from(std::process::id()) << 48) ^ COUNTER.fetch_add(1, Ordering::Relaxed).rotate_left(32);
    format!("{prefix}_{mixed:016x}")
}

/// `30s`, `1.5s`, `250ms`, `2m`.
pub fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis}ms")
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

/// Parses `30s`, `500ms`, `2m`, `1h`, `1d`, `1.5s` (a bare number is seconds), from
/// [`SHORTEST_DURATION`] to [`LONGEST_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let unit_at = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(unit_at);
    let not_a_duration =
        || format!("`{text}` is not a duration: write a number and a unit (ms, s, m, h or d), e.g. 500ms, 30s or 2m");
    if !number.bytes().any(|b| b.is_ascii_digit()) || number.matches('.').count() > 1 {
        return Err(not_a_duration());
    }
    let value: f64 = number.parse().map_err(|_| not_a_duration())?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86_400.0,
        _ => return Err(not_a_duration()),
    };
    // A number too long for a float reads as infinity.
    if !seconds.is_finite() || seconds > LONGEST_DURATION.as_secs_f64() {
        return Err(format!("`{text}` is longer than the longest duration allowed, 7d"));
    }
    if seconds < SHORTEST_DURATION.as_secs_f64() {
        return Err(format!("`{text}` is shorter than the shortest duration allowed, 1ms"));
    }
    Duration::try_from_secs_f64(seconds).map_err(|_| not_a_duration())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_millis(1_796_017_921_007), "2026-11-30T05:52:01.007Z");
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
        assert_eq!(parse_duration("1.5").unwrap(), Duration::from_millis(1500));
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("7d").unwrap(), LONGEST_DURATION);
        assert_eq!(parse_duration("1ms").unwrap(), SHORTEST_DURATION);
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_millis(200)), "200ms");
    }
}
