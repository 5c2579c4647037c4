//! Go's `time.Parse(time.RFC3339, s)`, step for step, with its error texts; its
//! `time.ParseDuration`, RFC 3339 and duration formatting as CEL prints them, and CEL's
//! timestamp range. Three places read
//! RFC 3339 text the way Go does: `metav1.Time` fields of `metadata` (the apiserver refuses the
//! request with this error), cel-go's `timestamp(string)` at runtime and its constant literals at
//! check time. Go's general parser accepts more than RFC 3339 (a one-digit hour, a comma before
//! the fraction, a `+24:00` offset): Go's strict checks for those are disabled, and so are they
//! here.

use std::fmt::Write as _;

/// `time.RFC3339`.
const LAYOUT: &str = "2006-01-02T15:04:05Z07:00";

/// A time as `time.Parse` read it, in its own zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rfc3339 {
    /// The year, 0 to 9999.
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, valid for the month.
    pub day: u32,
    /// The hour, 0 to 23.
    pub hour: u32,
    /// The minute, 0 to 59.
    pub minute: u32,
    /// The second, 0 to 59.
    pub second: u32,
    /// Nanoseconds (Go keeps the first nine digits of the fraction).
    pub nanos: u32,
    /// The zone's offset east of UTC, in seconds (up to 24 hours and 60 minutes either way).
    pub offset_seconds: i64,
}

impl Rfc3339 {
    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * 86_400
            + i64::from(self.hour * 3600 + self.minute * 60 + self.second)
            - self.offset_seconds
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date (year, month, day) of a day count from 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Go's `t.Format(time.RFC3339Nano)` of the instant `unix_seconds` + `nanos` in a zone
/// `offset_seconds` east of UTC: the zone's wall clock, the fraction without its trailing
/// zeros, and `Z` for a zero offset (else `+hh:mm`), as `string(timestamp)` prints it.
///
/// ```
/// use crd_cel_core::go::time::format_rfc3339_nano;
///
/// assert_eq!(format_rfc3339_nano(0, 500_000_000, 3600), "1970-01-01T01:00:00.5+01:00");
/// assert_eq!(format_rfc3339_nano(86_399, 0, 0), "1970-01-01T23:59:59Z");
/// ```
pub fn format_rfc3339_nano(unix_seconds: i64, nanos: u32, offset_seconds: i64) -> String {
    let local = unix_seconds + offset_seconds;
    let (year, month, day) = civil_from_days(local.div_euclid(86_400));
    let sod = local.rem_euclid(86_400);
    let mut out = String::with_capacity(35);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    if nanos > 0 {
        let frac = format!("{nanos:09}");
        out.push('.');
        out.push_str(frac.trim_end_matches('0'));
    }
    if offset_seconds == 0 {
        out.push('Z');
    } else {
        let minutes = offset_seconds.abs() / 60;
        let sign = if offset_seconds < 0 { '-' } else { '+' };
        let _ = write!(out, "{sign}{:02}:{:02}", minutes / 60, minutes % 60);
    }
    out
}

/// CEL's `string(duration)`: Go's `strconv.FormatFloat(d.Seconds(), 'f', -1, 64)`, then `s`.
///
/// ```
/// use crd_cel_core::go::time::format_duration;
///
/// assert_eq!(format_duration(1_500_000_000), "1.5s");
/// assert_eq!(format_duration(-3_600_000_000_000), "-3600s");
/// ```
pub fn format_duration(nanos: i64) -> String {
    const SECOND: i64 = 1_000_000_000;
    // Go's `Duration.Seconds`: whole seconds and the remainder converted apart.
    let secs = (nanos / SECOND) as f64 + (nanos % SECOND) as f64 / 1e9;
    format!("{secs}s")
}

/// The number of days in `month` (1 to 12) of `year`, leap years as Go counts them.
pub fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `time.Parse(time.RFC3339, value)`, or its error text (`parsing time "x" as
/// "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`, `parsing time "...": month out of
/// range`, `... extra text: "..."`).
///
/// ```
/// use crd_cel_core::go::time::parse_rfc3339;
///
/// assert_eq!(parse_rfc3339("2024-02-29T23:59:60Z").unwrap_err(),
///     r#"parsing time "2024-02-29T23:59:60Z": second out of range"#);
/// assert_eq!(parse_rfc3339("2024-01-01T9:30:00+05:30").unwrap().hour, 9);
/// ```
pub fn parse_rfc3339(value: &str) -> Result<Rfc3339, String> {
    let cannot = |elem: &[u8], layout_elem: &str| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            quote(value.as_bytes()),
            quote(LAYOUT.as_bytes()),
            quote(elem),
            quote(layout_elem.as_bytes())
        )
    };
    let message = |m: &str| format!("parsing time {}{m}", quote(value.as_bytes()));
    let out_of_range = |what: &str| message(&format!(": {what} out of range"));
    let skip = |v: &mut &[u8], literal: u8| -> Result<(), String> {
        match v.first() {
            Some(&c) if c == literal => {
                *v = &v[1..];
                Ok(())
            }
            _ => Err(cannot(
                v,
                std::str::from_utf8(&[literal]).unwrap_or_default(),
            )),
        }
    };
    let mut v = value.as_bytes();

    // 2006
    if v.len() < 4 || !v[..4].iter().all(u8::is_ascii_digit) {
        return Err(cannot(v, "2006"));
    }
    let year = number(&v[..4]);
    v = &v[4..];
    // -01
    skip(&mut v, b'-')?;
    let month = two_digits(&mut v).ok_or_else(|| cannot(v, "01"))?;
    if !(1..=12).contains(&month) {
        return Err(out_of_range("month"));
    }
    // -02 (checked against the month at the end)
    skip(&mut v, b'-')?;
    let day = two_digits(&mut v).ok_or_else(|| cannot(v, "02"))?;
    // T15: one or two digits
    skip(&mut v, b'T')?;
    let hour = match v {
        [a, b, ..] if a.is_ascii_digit() && b.is_ascii_digit() => two_digits(&mut v),
        [a, ..] if a.is_ascii_digit() => {
            v = &v[1..];
            Some(u32::from(a - b'0'))
        }
        _ => None,
    }
    .ok_or_else(|| cannot(v, "15"))?;
    if hour >= 24 {
        return Err(out_of_range("hour"));
    }
    // :04
    skip(&mut v, b':')?;
    let minute = two_digits(&mut v).ok_or_else(|| cannot(v, "04"))?;
    if minute >= 60 {
        return Err(out_of_range("minute"));
    }
    // :05, and a fraction the layout does not name (after `.` or `,`)
    skip(&mut v, b':')?;
    let second = two_digits(&mut v).ok_or_else(|| cannot(v, "05"))?;
    if second >= 60 {
        return Err(out_of_range("second"));
    }
    let mut nanos = 0;
    if v.len() >= 2 && matches!(v[0], b'.' | b',') && v[1].is_ascii_digit() {
        let n = 1 + v[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        // Go reads at most nine digits and scales them to nanoseconds.
        let kept = &v[1..n.min(10)];
        nanos = number(kept) as u32 * 10u32.pow(9 - kept.len() as u32);
        v = &v[n..];
    }
    // Z07:00
    let offset_seconds = if v.first() == Some(&b'Z') {
        v = &v[1..];
        0
    } else {
        let hold = v;
        if v.len() < 6 || v[3] != b':' {
            return Err(cannot(hold, "Z07:00"));
        }
        let (mut h, mut m) = (&v[1..3], &v[4..6]);
        let hours = two_digits(&mut h);
        let minutes = hours.and_then(|_| two_digits(&mut m));
        // Go checks the ranges before it reports a bad digit or sign, and only as `>`.
        let (hr, mm) = (hours.unwrap_or(0), minutes.unwrap_or(0));
        if mm > 60 {
            return Err(out_of_range("time zone offset minute"));
        }
        if hr > 24 {
            return Err(out_of_range("time zone offset hour"));
        }
        let magnitude = i64::from((hr * 60 + mm) * 60);
        let offset = match (hours.and(minutes), v[0]) {
            (Some(_), b'+') => magnitude,
            (Some(_), b'-') => -magnitude,
            _ => return Err(cannot(hold, "Z07:00")),
        };
        v = &v[6..];
        offset
    };
    if !v.is_empty() {
        return Err(message(&format!(": extra text: {}", quote(v))));
    }
    if day < 1 || day > days_in(month, year) {
        return Err(out_of_range("day"));
    }
    Ok(Rfc3339 {
        year,
        month,
        day,
        hour,
        minute,
        second,
        nanos,
        offset_seconds,
    })
}

/// Go's `getnum(s, true)`: exactly two digits, consumed.
fn two_digits(v: &mut &[u8]) -> Option<u32> {
    match v {
        [a, b, ..] if a.is_ascii_digit() && b.is_ascii_digit() => {
            let n = u32::from(a - b'0') * 10 + u32::from(b - b'0');
            *v = &v[2..];
            Some(n)
        }
        _ => None,
    }
}

/// The value of ASCII digits (at most nine here).
fn number(digits: &[u8]) -> i64 {
    digits.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'))
}

/// The `time` package's own `quote`: `"` and `\` escaped, every byte of a non-ASCII or control
/// character as `\xNN` (not `strconv.Quote`'s rules).
fn quote(s: &[u8]) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_ascii() && c >= ' ' {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            } else {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out.push('"');
    out
}

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or `0`; nanoseconds.
pub fn parse_go_duration(s: &str) -> Option<i128> {
    let mut rest = s;
    let mut neg = false;
    if let Some(r) = rest.strip_prefix('-') {
        neg = true;
        rest = r;
    } else if let Some(r) = rest.strip_prefix('+') {
        rest = r;
    }
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (int_part, r) = rest.split_at(int_len);
        let (frac_part, r) = match r.strip_prefix('.') {
            Some(r) => {
                let n = r.bytes().take_while(u8::is_ascii_digit).count();
                r.split_at(n)
            }
            None => ("", r),
        };
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let unit_len = r
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map(|(i, _)| i)
            .unwrap_or(r.len());
        let (unit, r) = r.split_at(unit_len);
        let scale: i128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        let int: i128 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().ok()?
        };
        let mut value = int.checked_mul(scale)?;
        let mut frac_scale = scale;
        for d in frac_part.bytes() {
            frac_scale /= 10;
            value += i128::from(d - b'0') * frac_scale;
        }
        total = total.checked_add(value)?;
        if total > i128::from(i64::MAX) + i128::from(neg) {
            return None;
        }
        rest = r;
    }
    Some(if neg { -total } else { total })
}

/// The first and last seconds a CEL timestamp may take (0001-01-01T00:00:00Z to
/// 9999-12-31T23:59:59Z): cel-go's `minUnixTime` and `maxUnixTime`.
pub const TIMESTAMP_SECONDS: std::ops::RangeInclusive<i64> = -62_135_596_800..=253_402_300_799;

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts recorded from Go 1.26's `time.Parse(time.RFC3339, s)` (through the oracle's
    /// ObjectMeta decoding, which prints them as they are).
    #[test]
    fn errors_are_go_s() {
        let layout = "\"2006-01-02T15:04:05Z07:00\"";
        let cases = [
            (
                "garbage",
                format!(
                    "parsing time \"garbage\" as {layout}: cannot parse \"garbage\" as \"2006\""
                ),
            ),
            (
                "2024-01-01",
                format!("parsing time \"2024-01-01\" as {layout}: cannot parse \"\" as \"T\""),
            ),
            (
                "2024-13-01T00:00:00Z",
                "parsing time \"2024-13-01T00:00:00Z\": month out of range".to_owned(),
            ),
            (
                "2024-01-01T25:00:00Z",
                "parsing time \"2024-01-01T25:00:00Z\": hour out of range".to_owned(),
            ),
            (
                "2024-01-01T00:00:00+25:00",
                "parsing time \"2024-01-01T00:00:00+25:00\": time zone offset hour out of range"
                    .to_owned(),
            ),
            (
                "2024-01-01T00:00:00",
                format!(
                    "parsing time \"2024-01-01T00:00:00\" as {layout}: cannot parse \"\" as \"Z07:00\""
                ),
            ),
            (
                "2024-01-01T00:00:00Zjunk",
                "parsing time \"2024-01-01T00:00:00Zjunk\": extra text: \"junk\"".to_owned(),
            ),
            (
                "2024-1-01T00:00:00Z",
                format!(
                    "parsing time \"2024-1-01T00:00:00Z\" as {layout}: cannot parse \"1-01T00:00:00Z\" as \"01\""
                ),
            ),
            (
                "",
                format!("parsing time \"\" as {layout}: cannot parse \"\" as \"2006\""),
            ),
            (
                "2024-02-30T00:00:00Z",
                "parsing time \"2024-02-30T00:00:00Z\": day out of range".to_owned(),
            ),
            (
                "2024-01-01t00:00:00z",
                format!(
                    "parsing time \"2024-01-01t00:00:00z\" as {layout}: cannot parse \"t00:00:00z\" as \"T\""
                ),
            ),
            (
                "2024-01-01T00:00:60Z",
                "parsing time \"2024-01-01T00:00:60Z\": second out of range".to_owned(),
            ),
            (
                "2024-01-01T00:00:00.Z",
                format!(
                    "parsing time \"2024-01-01T00:00:00.Z\" as {layout}: cannot parse \".Z\" as \"Z07:00\""
                ),
            ),
            (
                "20240-01-01T00:00:00Z",
                format!(
                    "parsing time \"20240-01-01T00:00:00Z\" as {layout}: cannot parse \"0-01-01T00:00:00Z\" as \"-\""
                ),
            ),
            (
                "2024-01-01T00:00:00+0530",
                format!(
                    "parsing time \"2024-01-01T00:00:00+0530\" as {layout}: cannot parse \"+0530\" as \"Z07:00\""
                ),
            ),
        ];
        for (value, want) in cases {
            assert_eq!(parse_rfc3339(value).unwrap_err(), want, "{value}");
        }
    }

    #[test]
    fn go_accepts_more_than_rfc_3339() {
        let t = parse_rfc3339("2024-01-01T1:02:03,5+24:00").unwrap();
        assert_eq!(
            (t.hour, t.minute, t.second, t.nanos),
            (1, 2, 3, 500_000_000)
        );
        assert_eq!(t.offset_seconds, 24 * 3600);
        let t = parse_rfc3339("0000-02-29T00:00:00.1234567891234Z").unwrap();
        assert_eq!((t.year, t.nanos), (0, 123_456_789));
        assert_eq!(
            parse_rfc3339("1970-01-02T00:00:00-01:00")
                .unwrap()
                .unix_seconds(),
            86_400 + 3600
        );
    }

    #[test]
    fn quoting_is_the_time_package_s() {
        assert_eq!(quote("é\"\\\n".as_bytes()), r#""\xc3\xa9\"\\\x0a""#);
    }
}
