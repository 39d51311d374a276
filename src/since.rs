//! `since` values, read the same by the `logs` client (which checks them before sending)
//! and the `dev` server (which filters by them): an age (`30s`, `10m`, `2h`, `1d`) or an
//! RFC 3339 time; and the RFC 3339 reading that also turns a record's `at` into UTC.

/// The units an age may use, as the server reads them.
const AGE_UNITS: [char; 4] = ['s', 'm', 'h', 'd'];

/// Checks a `--since` value; the value itself is passed to the server unchanged.
pub fn validate_since(value: &str) -> Result<(), String> {
    if is_age(value) || rfc3339_millis(value).is_some() {
        Ok(())
    } else {
        Err(format!(
            "`--since {value}` is neither an age such as `30s`, `10m`, `2h`, `1d` nor an RFC 3339 time such as `2026-11-30T05:52:01Z`"
        ))
    }
}

fn is_age(value: &str) -> bool {
    age_millis(value).is_some()
}

/// `10m` (whole digits followed by one unit) in milliseconds; an age longer than an i64 of
/// milliseconds (about 292 million years) is that long, which reaches back before any line.
pub fn age_millis(value: &str) -> Option<i64> {
    let (count, unit_millis) = age_count(value)?;
    Some(count.saturating_mul(unit_millis))
}

/// An age's count and its unit in milliseconds: `10m` is (10, 60 000).
fn age_count(value: &str) -> Option<(i64, i64)> {
    let unit = value.chars().last()?;
    let digits = &value[..value.len() - unit.len_utf8()];
    if !AGE_UNITS.contains(&unit)
        || digits.is_empty()
        || digits.len() > 12
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let unit_millis = match unit {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        _ => 86_400_000,
    };
    Some((digits.parse().ok()?, unit_millis))
}

/// An RFC 3339 date-time (`2026-11-30T05:52:01.123Z`, `…+01:00`) as milliseconds since the
/// Unix epoch, or `None` if it is not one (wrong shape or an impossible date).
pub fn rfc3339_millis(value: &str) -> Option<i64> {
    let bytes = value.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || !matches!(bytes[10], b'T' | b't') {
        return None;
    }
    let (year, month, day) = (number(value, 0, 4)?, number(value, 5, 7)?, number(value, 8, 10)?);
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let time_millis = time_of_day_millis(&value[11..])?;
    let (fraction_millis, rest) = fraction(&value[19..])?;
    let offset_minutes = offset_minutes(rest)?;
    let days = days_from_civil(year, month, day);
    Some(days * 86_400_000 + time_millis + fraction_millis - offset_minutes * 60_000)
}

/// `HH:MM:SS` (a leap second `60` is allowed, as RFC 3339 does) in milliseconds.
fn time_of_day_millis(value: &str) -> Option<i64> {
    let bytes = value.as_bytes();
    if bytes.len() < 8 || bytes[2] != b':' || bytes[5] != b':' {
        return None;
    }
    let (hour, minute, second) = (number(value, 0, 2)?, number(value, 3, 5)?, number(value, 6, 8)?);
    (hour < 24 && minute < 60 && second <= 60).then_some(((hour * 60 + minute) * 60 + second) * 1000)
}

/// An optional `.fraction` of a second: its milliseconds and what follows it.
fn fraction(value: &str) -> Option<(i64, &str)> {
    let Some(digits_and_rest) = value.strip_prefix('.') else { return Some((0, value)) };
    let digits = digits_and_rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let millis = digits_and_rest[..digits.min(3)].bytes().fold(0, |sum, digit| sum * 10 + i64::from(digit - b'0'));
    let scale = [100, 10, 1][digits.min(3) - 1];
    Some((millis * scale, &digits_and_rest[digits..]))
}

/// `Z` or `±HH:MM`, as minutes east of UTC.
fn offset_minutes(value: &str) -> Option<i64> {
    if value == "Z" || value == "z" {
        return Some(0);
    }
    let bytes = value.as_bytes();
    if bytes.len() != 6 || bytes[3] != b':' {
        return None;
    }
    let sign = match bytes[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (hours, minutes) = (number(value, 1, 3)?, number(value, 4, 6)?);
    (hours < 24 && minutes < 60).then_some(sign * (hours * 60 + minutes))
}

/// The decimal number in `value[start..end]`, digits only.
fn number(value: &str, start: usize, end: usize) -> Option<i64> {
    let digits = value.get(start..end)?;
    digits.bytes().all(|b| b.is_ascii_digit()).then(|| digits.parse().ok()).flatten()
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// (year, month, day) → days since 1970-01-01, after Howard Hinnant's `days_from_civil`
/// (the inverse of the one in [`crate::clock`]).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::format_millis;

    #[test]
    fn ages_are_accepted() {
        for value in ["30s", "10m", "2h", "0s", "1440m", "999999999999d"] {
            assert_eq!(validate_since(value), Ok(()), "{value}");
        }
    }

    #[test]
    fn an_age_too_long_to_count_reaches_back_before_any_line_not_overflowed() {
        assert_eq!(age_millis("999999999999d"), Some(i64::MAX));
    }

    #[test]
    fn rfc3339_times_are_accepted() {
        for value in [
            "2026-11-30T05:52:01Z",
            "2026-11-30T05:52:01.123Z",
            "2026-11-30t05:52:01.5+01:00",
            "2024-02-29T23:59:60-08:00",
        ] {
            assert_eq!(validate_since(value), Ok(()), "{value}");
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
            "1.5h",
            "10 m",
            "10M",
            "2w",
            "yesterday",
            "2026-11-30",
            "2026-02-30T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-30T24:00:00Z",
            "2026-11-30T05:52:01",
            "2026-11-30T05:52:01.Z",
            "2026-11-30 05:52:01Z",
            "2026-11-30T05:52:01+0100",
            "2026-11-30T05:52:01Zjunk",
        ] {
            let error = validate_since(value).expect_err(value);
            assert!(error.contains("RFC 3339"), "{error}");
        }
    }

    #[test]
    fn rfc3339_reads_to_the_millisecond_in_utc() {
        assert_eq!(rfc3339_millis("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(rfc3339_millis("2026-11-30T05:52:01.007Z"), Some(1_796_017_921_007));
        assert_eq!(rfc3339_millis("2026-11-30T06:52:01.007123+01:00"), Some(1_796_017_921_007));
        assert_eq!(
            rfc3339_millis("2000-02-29T00:00:00.12Z").map(format_millis).as_deref(),
            Some("2000-02-29T00:00:00.120Z")
        );
        assert_eq!(rfc3339_millis("1969-12-31T23:59:59Z"), Some(-1000));
    }
}
