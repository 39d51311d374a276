//! `since` values, read the same by the `logs` client (which checks them before sending)
//! and the `dev` server (which filters by them): an age (`30s`, `10m`, `1.5h`, `1d`, read
//! by [`crate::time::clock::parse_length`]) or an RFC 3339 time; and the RFC 3339 reading that
//! also turns a record's `at` into UTC.

use jiff::Timestamp;

/// What a `since` value says: lines from this long ago, or from this instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    Ago(std::time::Duration),
    At(Timestamp),
}

impl Since {
    /// The earliest instant a line may have, given the time `now`. An age older than the
    /// clock reaches back before any line.
    pub fn lower_bound(self, now: Timestamp) -> Timestamp {
        match self {
            Since::At(instant) => instant,
            Since::Ago(age) => jiff::SignedDuration::try_from(age)
                .ok()
                .and_then(|age| now.checked_sub(age).ok())
                .map_or(earliest(), |bound| bound.max(earliest())),
        }
    }
}

/// `0000-01-01T00:00:00Z`, before any line: a bound earlier than it is this one, so that
/// every bound keeps the four-digit year that string comparison of `at`s relies on.
fn earliest() -> Timestamp {
    Timestamp::from_second(-62_167_219_200).unwrap_or(Timestamp::UNIX_EPOCH)
}

/// Reads a `since` value: an RFC 3339 time when it has a date, else an age.
pub fn parse_since(value: &str) -> Result<Since, String> {
    let value = value.trim();
    if let Some(instant) = parse_rfc3339(value) {
        return Ok(Since::At(instant));
    }
    crate::time::clock::parse_length(value).map(Since::Ago).map_err(|_| refusal(&format!("`{value}`")))
}

/// Checks a `--since` value; the value itself is passed to the server unchanged.
pub fn validate_since(value: &str) -> Result<(), String> {
    parse_since(value).map(|_| ()).map_err(|_| refusal(&format!("`--since {}`", value.trim())))
}

fn refusal(shown: &str) -> String {
    format!(
        "{shown} is neither an age such as `30s`, `10m`, `1.5h`, `1h 30m`, `1d` nor an RFC 3339 time such as `2026-11-30T05:52:01Z`"
    )
}

/// An RFC 3339 date-time (`2026-11-30T05:52:01.123Z`, `…+01:00`), or `None` if it is not
/// one (no date, no offset, an impossible date). jiff also reads a space for the `T`.
pub fn parse_rfc3339(value: &str) -> Option<Timestamp> {
    value.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::clock::format_timestamp;

    #[test]
    fn ages_are_accepted() {
        for value in ["30s", "10m", "2h", "0s", "1.5h", "1h 30m", "1440m", "7304484d"] {
            assert!(matches!(parse_since(value), Ok(Since::Ago(_))), "{value}");
        }
    }

    #[test]
    fn an_age_older_than_the_clock_reaches_back_before_any_line() {
        let bound = parse_since("7304484d").unwrap().lower_bound(Timestamp::now());
        assert_eq!(format_timestamp(bound), "0000-01-01T00:00:00.000Z");
    }

    #[test]
    fn rfc3339_times_are_accepted() {
        for value in [
            "2026-11-30T05:52:01Z",
            "2026-11-30T05:52:01.123Z",
            "2026-11-30t05:52:01.5+01:00",
            "2024-02-29T23:59:60-08:00",
            "2026-11-30 05:52:01Z",
        ] {
            assert!(matches!(parse_since(value), Ok(Since::At(_))), "{value}");
        }
    }

    #[test]
    fn bad_values_are_refused_with_a_hint() {
        for value in [
            "",
            "10",
            "m",
            "10x",
            "-5m",
            "1.5d",
            "10M",
            "1mo",
            "yesterday",
            "999999999999d",
            "2026-11-30",
            "2026-02-30T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-30T24:00:00Z",
            "2026-11-30T05:52:01",
            "2026-11-30T05:52:01.Z",
            "2026-11-30T05:52:01Zjunk",
        ] {
            let error = parse_since(value).expect_err(value);
            assert!(error.contains("RFC 3339"), "{error}");
        }
    }

    #[test]
    fn rfc3339_reads_to_the_millisecond_in_utc() {
        let read = |value| parse_rfc3339(value).map(format_timestamp);
        assert_eq!(read("1970-01-01T00:00:00Z").as_deref(), Some("1970-01-01T00:00:00.000Z"));
        assert_eq!(read("2026-11-30T06:52:01.007123+01:00").as_deref(), Some("2026-11-30T05:52:01.007Z"));
        assert_eq!(read("2000-02-29T00:00:00.12Z").as_deref(), Some("2000-02-29T00:00:00.120Z"));
        assert_eq!(read("1969-12-31T23:59:59Z").as_deref(), Some("1969-12-31T23:59:59.000Z"));
    }
}
