//! cel-go's type conversions between constants (`int()`, `uint()`, `double()`, `bool()`,
//! `bytes()`, `string()`, `duration()`, `timestamp()`): their results and error texts, written
//! once. The runtime's conversion functions call these, and the CRD checks
//! call them on constants (`literals`), because cel-go's planner folds a conversion of a
//! constant when it builds the program and fails the program with the conversion's error.

/// A constant scalar, as the literal checks fold them.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// A bool.
    Bool(bool),
    /// An int.
    Int(i64),
    /// A uint.
    Uint(u64),
    /// A double.
    Double(f64),
    /// A string.
    String(String),
    /// Bytes.
    Bytes(Vec<u8>),
    /// A duration, in nanoseconds.
    Duration(i64),
    /// A timestamp: the instant, and the offset east of UTC of the zone it was written in
    /// (`string()` prints the wall clock there).
    Timestamp {
        /// Seconds since the Unix epoch.
        secs: i64,
        /// Nanoseconds within the second.
        nanos: u32,
        /// The zone's offset, in seconds.
        offset: i64,
    },
}

/// `integer overflow`, cel-go's error for an int out of range.
pub const INT_OVERFLOW: &str = "integer overflow";
/// `unsigned integer overflow`, cel-go's error for a uint out of range.
pub const UINT_OVERFLOW: &str = "unsigned integer overflow";
/// cel-go's error for `string(bytes)` of bytes that are not UTF-8.
pub const INVALID_UTF8: &str = "invalid UTF-8 in bytes, cannot convert to string";

/// `type conversion error from '<from>' to '<to>'`.
pub fn conversion_error(from: &str, to: &str) -> String {
    format!("type conversion error from '{from}' to '{to}'")
}

/// `int(uint)`.
pub fn int_of_uint(u: u64) -> Result<i64, String> {
    i64::try_from(u).map_err(|_| INT_OVERFLOW.to_owned())
}

/// `int(double)`: NaN and values outside (-2^63, 2^63) overflow; the rest truncate.
pub fn int_of_double(d: f64) -> Result<i64, String> {
    if d.is_nan() || d <= -9.223_372_036_854_776e18 || d >= 9.223_372_036_854_776e18 {
        Err(INT_OVERFLOW.to_owned())
    } else {
        Ok(d as i64)
    }
}

/// `int(string)`: Go's `strconv.ParseInt(s, 10, 64)`.
pub fn int_of_string(s: &str) -> Result<i64, String> {
    s.parse::<i64>()
        .map_err(|_| conversion_error("string", "int"))
}

/// `uint(int)`.
pub fn uint_of_int(i: i64) -> Result<u64, String> {
    u64::try_from(i).map_err(|_| UINT_OVERFLOW.to_owned())
}

/// `uint(double)`: NaN and values outside [0, 2^64) overflow; the rest truncate.
pub fn uint_of_double(d: f64) -> Result<u64, String> {
    if d.is_nan() || !(0.0..1.844_674_407_370_955_2e19).contains(&d) {
        Err(UINT_OVERFLOW.to_owned())
    } else {
        Ok(d as u64)
    }
}

/// `uint(string)`: Go's `strconv.ParseUint(s, 10, 64)`.
pub fn uint_of_string(s: &str) -> Result<u64, String> {
    s.parse::<u64>()
        .map_err(|_| conversion_error("string", "uint"))
}

/// `double(string)`: Go's `strconv.ParseFloat(s, 64)` for the forms CEL strings use (decimal,
/// exponent, `Inf`, `NaN`).
pub fn double_of_string(s: &str) -> Result<f64, String> {
    parse_go_float(s).ok_or_else(|| conversion_error("string", "double"))
}

/// Go's `strconv.ParseFloat(s, 64)` for decimal, exponent, `Inf` and `NaN` forms.
pub fn parse_go_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        return s.parse().ok().or(Some(if lower.starts_with('-') {
            f64::NEG_INFINITY
        } else if body == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        }));
    }
    if body.is_empty()
        || !body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-' | b'_'))
    {
        return None;
    }
    s.parse::<f64>().ok()
}

/// `bool(string)`: Go's `strconv.ParseBool`.
pub fn bool_of_string(s: &str) -> Result<bool, String> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(conversion_error("string", "bool")),
    }
}

/// `string(bytes)`.
pub fn string_of_bytes(b: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(b).map_err(|_| INVALID_UTF8.to_owned())
}

/// `timestamp overflow`, cel-go's error for a timestamp outside CEL's range.
pub const TIMESTAMP_OVERFLOW: &str = "timestamp overflow";

/// `duration(string)`: Go's `time.ParseDuration`, within Go's range.
pub fn duration_of_string(s: &str) -> Result<i64, String> {
    crate::go::time::parse_go_duration(s)
        .and_then(|n| i64::try_from(n).ok())
        .ok_or_else(|| conversion_error("string", "google.protobuf.Duration"))
}

/// `timestamp(string)`: Go's `time.Parse(time.RFC3339, s)` in CEL's range, as the instant and
/// the zone's offset.
pub fn timestamp_of_string(s: &str) -> Result<(i64, u32, i64), String> {
    let t = crate::go::time::parse_rfc3339(s)
        .map_err(|_| conversion_error("string", "google.protobuf.Timestamp"))?;
    let secs = t.unix_seconds();
    if !crate::go::time::TIMESTAMP_SECONDS.contains(&secs) {
        return Err(TIMESTAMP_OVERFLOW.to_owned());
    }
    Ok((secs, t.nanos, t.offset_seconds))
}

/// `timestamp(int)`: the second, in UTC, within CEL's range.
pub fn timestamp_of_int(i: i64) -> Result<i64, String> {
    if crate::go::time::TIMESTAMP_SECONDS.contains(&i) {
        Ok(i)
    } else {
        Err(TIMESTAMP_OVERFLOW.to_owned())
    }
}

/// A conversion `function(arg)` of a constant, as cel-go's planner folds it: `Some(Ok(value))`
/// when the result is a constant this module represents, `Some(Err(message))` when the
/// conversion fails (the program is not built), `None` when the result is not one (`type`):
/// the caller stops folding there.
pub fn fold(function: &str, arg: &Scalar) -> Option<Result<Scalar, String>> {
    use Scalar as S;
    Some(match (function, arg) {
        ("dyn", v) => Ok(v.clone()),
        ("int", S::Int(i)) => Ok(S::Int(*i)),
        ("int", S::Uint(u)) => int_of_uint(*u).map(S::Int),
        ("int", S::Double(d)) => int_of_double(*d).map(S::Int),
        ("int", S::String(s)) => int_of_string(s).map(S::Int),
        ("int", S::Duration(n)) => Ok(S::Int(*n)),
        ("int", S::Timestamp { secs, .. }) => Ok(S::Int(*secs)),
        ("uint", S::Uint(u)) => Ok(S::Uint(*u)),
        ("uint", S::Int(i)) => uint_of_int(*i).map(S::Uint),
        ("uint", S::Double(d)) => uint_of_double(*d).map(S::Uint),
        ("uint", S::String(s)) => uint_of_string(s).map(S::Uint),
        ("double", S::Double(d)) => Ok(S::Double(*d)),
        ("double", S::Int(i)) => Ok(S::Double(*i as f64)),
        ("double", S::Uint(u)) => Ok(S::Double(*u as f64)),
        ("double", S::String(s)) => double_of_string(s).map(S::Double),
        ("bool", S::Bool(b)) => Ok(S::Bool(*b)),
        ("bool", S::String(s)) => bool_of_string(s).map(S::Bool),
        ("bytes", S::Bytes(b)) => Ok(S::Bytes(b.clone())),
        ("bytes", S::String(s)) => Ok(S::Bytes(s.as_bytes().to_vec())),
        ("string", S::String(s)) => Ok(S::String(s.clone())),
        ("string", S::Bool(b)) => Ok(S::String(b.to_string())),
        ("string", S::Int(i)) => Ok(S::String(i.to_string())),
        ("string", S::Uint(u)) => Ok(S::String(u.to_string())),
        ("string", S::Double(d)) => Ok(S::String(crate::go::float::go_g(*d))),
        ("string", S::Bytes(b)) => string_of_bytes(b).map(|s| S::String(s.to_owned())),
        ("string", S::Duration(n)) => Ok(S::String(crate::go::time::format_duration(*n))),
        (
            "string",
            S::Timestamp {
                secs,
                nanos,
                offset,
            },
        ) => Ok(S::String(crate::go::time::format_rfc3339_nano(
            *secs, *nanos, *offset,
        ))),
        ("duration", S::Duration(n)) => Ok(S::Duration(*n)),
        ("duration", S::String(s)) => duration_of_string(s).map(S::Duration),
        ("timestamp", S::Timestamp { .. }) => Ok(arg.clone()),
        ("timestamp", S::String(s)) => {
            timestamp_of_string(s).map(|(secs, nanos, offset)| S::Timestamp {
                secs,
                nanos,
                offset,
            })
        }
        ("timestamp", S::Int(i)) => timestamp_of_int(*i).map(|secs| S::Timestamp {
            secs,
            nanos: 0,
            offset: 0,
        }),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_fail_with_cel_go_texts() {
        assert_eq!(int_of_uint(u64::MAX), Err("integer overflow".into()));
        assert_eq!(int_of_double(f64::NAN), Err("integer overflow".into()));
        assert_eq!(int_of_double(-1.9), Ok(-1));
        assert_eq!(
            int_of_string("a.b"),
            Err("type conversion error from 'string' to 'int'".into())
        );
        assert_eq!(uint_of_int(-1), Err("unsigned integer overflow".into()));
        assert_eq!(bool_of_string("T"), Ok(true));
        assert_eq!(
            fold("string", &Scalar::Bytes(vec![0xff])),
            Some(Err(INVALID_UTF8.to_owned()))
        );
        assert_eq!(
            fold("string", &Scalar::Double(1.5)),
            Some(Ok(Scalar::String("1.5".into())))
        );
        assert_eq!(
            fold("int", &Scalar::String("1e+06".into())),
            Some(Err("type conversion error from 'string' to 'int'".into()))
        );
        assert_eq!(fold("type", &Scalar::Int(1)), None);
        assert_eq!(
            fold("int", &Scalar::String("12".into())),
            Some(Ok(Scalar::Int(12)))
        );
    }
}
