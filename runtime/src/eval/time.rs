//! `duration` and `timestamp` values, and the apiserver's parsing of `format: duration`,
//! `date` and `date-time` data (kube-openapi `strfmt`, `k8s.io/apiserver/pkg/cel/common/valuesunstructured.go`).

use crd_cel_core::go::time::{civil_from_days, days_from_civil, days_in};
use crd_cel_core::literals::parse_go_duration;

/// A CEL duration: Go's `time.Duration`, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    /// Nanoseconds.
    pub nanos: i64,
}

/// A CEL timestamp: seconds since the Unix epoch (UTC) and nanoseconds, and the zone offset
/// of the text it was read from.
#[derive(Debug, Clone, Copy)]
pub struct Timestamp {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub secs: i64,
    /// Nanoseconds within the second, `0..1e9`.
    pub nanos: u32,
    /// The offset east of UTC, in seconds, of the zone the timestamp was written in
    /// (`2024-01-01T10:00:00+02:00`: 7200). cel-go keeps the parsed `time.Time` with its zone,
    /// which `string()` and `format()` print and `+`/`-` of a duration keep; everything else
    /// (equality, order, the accessors) reads the instant only.
    pub offset: i32,
}

impl Timestamp {
    /// The timestamp at `secs` and `nanos` since the epoch, in UTC.
    pub const fn utc(secs: i64, nanos: u32) -> Timestamp {
        Timestamp {
            secs,
            nanos,
            offset: 0,
        }
    }

    fn instant(&self) -> (i64, u32) {
        (self.secs, self.nanos)
    }
}

impl PartialEq for Timestamp {
    fn eq(&self, other: &Timestamp) -> bool {
        self.instant() == other.instant()
    }
}

impl Eq for Timestamp {}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Timestamp) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Timestamp) -> std::cmp::Ordering {
        self.instant().cmp(&other.instant())
    }
}

impl std::hash::Hash for Timestamp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.instant().hash(state);
    }
}

const NANOS_PER: [(&[&str], i64); 8] = [
    (&["ns", "nano"], 1),
    (&["us", "µs", "micro"], 1_000),
    (&["ms", "milli"], 1_000_000),
    (&["s", "sec"], 1_000_000_000),
    (&["m", "min"], 60_000_000_000),
    (&["h", "hr", "hour"], 3_600_000_000_000),
    (&["d", "day"], 86_400_000_000_000),
    (&["w", "wk", "week"], 604_800_000_000_000),
];

/// `strfmt.ParseDuration`: Go's `time.ParseDuration`, else every `<digits><space>*<letters>`
/// in the text summed with kube-openapi's units (`2d`, `1 day`, `3 weeks`); `None` when nothing
/// matched. Go's arithmetic wraps on overflow, and so does this.
pub fn parse_data_duration(s: &str) -> Option<Duration> {
    if let Some(n) = parse_go_duration(s) {
        return Some(Duration { nanos: n as i64 });
    }
    let mut total: i64 = 0;
    let mut ok = false;
    let mut rest = s;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let after = &rest[start..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let (num, tail) = after.split_at(digits);
        let unit_start = tail.trim_start_matches(char::is_whitespace);
        let unit_len: usize = unit_start
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == 'µ')
            .map(char::len_utf8)
            .sum();
        if unit_len == 0 {
            rest = tail;
            continue;
        }
        // Go's strconv.Atoi fails on out-of-range numbers, which fails the parse.
        let factor: i64 = num.parse().ok()?;
        let unit = unit_start[..unit_len].to_lowercase();
        for (variants, mult) in NANOS_PER {
            let last = variants.len() - 1;
            for (i, v) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(v)) || unit.eq_ignore_ascii_case(v) {
                    ok = true;
                    total = total.wrapping_add(factor.wrapping_mul(mult));
                }
            }
        }
        rest = &unit_start[unit_len..];
    }
    ok.then_some(Duration { nanos: total })
}

fn digits(b: &[u8], from: usize, n: usize) -> Option<u32> {
    let part = b.get(from..from + n)?;
    part.iter().try_fold(0u32, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
    })
}

fn valid_date(y: u32, m: u32, d: u32) -> bool {
    (1..=12).contains(&m) && d >= 1 && d <= days_in(m, i64::from(y))
}

/// `format: date` data: Go layout `2006-01-02`, midnight UTC.
pub fn parse_date(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (digits(b, 0, 4)?, digits(b, 5, 2)?, digits(b, 8, 2)?);
    valid_date(y, m, d).then(|| Timestamp::utc(days_from_civil(i64::from(y), m, d) * 86_400, 0))
}

/// `format: date-time` data (`strfmt.ParseDateTime`): RFC 3339 with or without fractional
/// seconds, in the zone it is written in, or `2006-01-02T15:04:05[.frac]` without a zone (UTC);
/// the empty string is the epoch.
pub fn parse_date_time(s: &str) -> Option<Timestamp> {
    if s.is_empty() {
        return Some(Timestamp::utc(0, 0));
    }
    let b = s.as_bytes();
    let (y, mo, d) = (digits(b, 0, 4)?, digits(b, 5, 2)?, digits(b, 8, 2)?);
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') || b.get(10) != Some(&b'T') {
        return None;
    }
    let (h, mi, se) = (digits(b, 11, 2)?, digits(b, 14, 2)?, digits(b, 17, 2)?);
    if b.get(13) != Some(&b':') || b.get(16) != Some(&b':') {
        return None;
    }
    if !valid_date(y, mo, d) || h > 23 || mi > 59 || se > 59 {
        return None;
    }
    let mut i = 19;
    let mut nanos = 0u32;
    if b.get(i) == Some(&b'.') {
        let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 9 {
            return None;
        }
        nanos = digits(b, i + 1, n)? * 10u32.pow(9 - n as u32);
        i += 1 + n;
    }
    let offset: i64 = match b.get(i) {
        None => 0,
        Some(b'Z') if i + 1 == b.len() => 0,
        Some(sign @ (b'+' | b'-')) if i + 6 == b.len() && b[i + 3] == b':' => {
            let (oh, om) = (digits(b, i + 1, 2)?, digits(b, i + 4, 2)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let o = i64::from(oh * 3600 + om * 60);
            if *sign == b'-' { -o } else { o }
        }
        _ => return None,
    };
    let secs =
        days_from_civil(i64::from(y), mo, d) * 86_400 + i64::from(h * 3600 + mi * 60 + se) - offset;
    Some(Timestamp {
        secs,
        nanos,
        offset: offset as i32,
    })
}

/// A timestamp broken down in a time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// The year.
    pub year: i64,
    /// The month, 1-based.
    pub month: i64,
    /// The day of the month, 1-based.
    pub day: i64,
    /// The day of the year, 1-based.
    pub day_of_year: i64,
    /// The day of the week, Sunday = 0.
    pub weekday: i64,
    /// The hour.
    pub hour: i64,
    /// The minute.
    pub minute: i64,
    /// The second.
    pub second: i64,
    /// The millisecond.
    pub millisecond: i64,
}

impl Timestamp {
    /// The timestamp if it is in CEL's range, else cel-go's `timestamp overflow`.
    pub fn checked(self) -> Result<Timestamp, super::error::EvalError> {
        if !crd_cel_core::literals::TIMESTAMP_SECONDS.contains(&self.secs) {
            return Err(super::error::EvalError::new("timestamp overflow"));
        }
        Ok(self)
    }

    /// `timestamp + duration`, in the same zone.
    pub fn plus(self, d: Duration) -> Result<Timestamp, super::error::EvalError> {
        let total =
            i128::from(self.secs) * 1_000_000_000 + i128::from(self.nanos) + i128::from(d.nanos);
        let secs = total.div_euclid(1_000_000_000);
        let secs =
            i64::try_from(secs).map_err(|_| super::error::EvalError::new("timestamp overflow"))?;
        Timestamp {
            secs,
            nanos: total.rem_euclid(1_000_000_000) as u32,
            offset: self.offset,
        }
        .checked()
    }

    /// `self - other`, or `integer overflow` past Go's duration range.
    pub fn since(self, other: &Timestamp) -> Result<Duration, super::error::EvalError> {
        let total = (i128::from(self.secs) - i128::from(other.secs)) * 1_000_000_000
            + i128::from(self.nanos)
            - i128::from(other.nanos);
        i64::try_from(total)
            .map(|nanos| Duration { nanos })
            .map_err(|_| super::error::EvalError::new("integer overflow"))
    }

    /// The calendar fields at a UTC offset (seconds).
    pub fn civil(self, offset: i64) -> Civil {
        let local = self.secs + offset;
        let days = local.div_euclid(86_400);
        let sod = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        let jan1 = days_from_civil(year, 1, 1);
        Civil {
            year,
            month: i64::from(month),
            day: i64::from(day),
            day_of_year: days - jan1 + 1,
            weekday: (days + 4).rem_euclid(7),
            hour: sod / 3600,
            minute: sod % 3600 / 60,
            second: sod % 60,
            millisecond: i64::from(self.nanos / 1_000_000),
        }
    }

    /// Go's `time.RFC3339Nano` rendering in the timestamp's zone (`string(timestamp)`).
    pub fn to_rfc3339(self) -> String {
        crd_cel_core::go::time::format_rfc3339_nano(self.secs, self.nanos, i64::from(self.offset))
    }
}

impl Duration {
    /// cel-go's `string(duration)`: seconds in the shortest decimal form, then `s`.
    pub fn to_cel_string(self) -> String {
        crd_cel_core::go::time::format_duration(self.nanos)
    }
}

/// Go's `time.Parse(time.RFC3339, s)`, which CEL's `timestamp(string)` uses (the range is
/// checked by [`Timestamp::checked`]).
pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
    let t = crd_cel_core::go::time::parse_rfc3339(s).ok()?;
    Some(Timestamp {
        secs: t.unix_seconds(),
        nanos: t.nanos,
        offset: t.offset_seconds as i32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_durations_accept_kube_openapi_units() {
        let d = |s| parse_data_duration(s).map(|d| d.nanos);
        assert_eq!(d("1h30m"), Some(5_400_000_000_000));
        assert_eq!(d("2d"), Some(2 * 86_400_000_000_000));
        assert_eq!(d("1 day"), Some(86_400_000_000_000));
        assert_eq!(d("3 weeks"), Some(3 * 604_800_000_000_000));
        assert_eq!(d("5 mins"), Some(300_000_000_000));
        assert_eq!(d("abc"), None);
        assert_eq!(d("10"), None);
    }

    #[test]
    fn dates_and_date_times() {
        assert_eq!(parse_date("1970-01-02").unwrap().secs, 86_400);
        assert_eq!(parse_date("2024-02-30"), None);
        let t = parse_date_time("2024-03-01T12:00:00.5+01:00").unwrap();
        assert_eq!(t.secs, days_from_civil(2024, 3, 1) * 86_400 + 11 * 3600);
        assert_eq!(t.nanos, 500_000_000);
        assert_eq!(
            parse_date_time("2024-03-01T12:00:00").unwrap().secs % 86_400,
            43_200
        );
        assert_eq!(parse_date_time("").unwrap().secs, 0);
        assert_eq!(parse_date_time("2024-03-01 12:00:00Z"), None);
    }
}
