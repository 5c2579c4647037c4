//! Go's renderings of doubles: `%g` (CEL's `string(double)`, which the runtime prints and the
//! CRD checks fold in constants; the OpenAPI checks' numbers in messages) and the special values.

/// Go's `%g` (shortest representation; an exponent below -4 or from 6 on switches to `e`
/// notation with at least two exponent digits): CEL's `string(double)`.
pub fn go_g(x: f64) -> String {
    if let Some(special) = go_special(x) {
        return special.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let (digits, exp) = shortest_digits(x.abs());
    let nd = digits.len() as i64;
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let mantissa = if rest.is_empty() {
            first.to_owned()
        } else {
            format!("{first}.{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{esign}{:02}", exp.unsigned_abs());
    }
    // Decimal point after `exp + 1` digits.
    let point = exp + 1;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if point >= nd {
        format!("{digits}{}", "0".repeat((point - nd) as usize))
    } else {
        let (int, frac) = digits.split_at(point as usize);
        format!("{int}.{frac}")
    };
    format!("{sign}{body}")
}

/// `+Inf`, `-Inf` and `NaN`, as Go's `fmt` prints them.
pub fn go_special(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("NaN")
    } else if x == f64::INFINITY {
        Some("+Inf")
    } else if x == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

/// The shortest round-tripping decimal digits of a finite non-negative double and the exponent
/// of the first one (`1234.5` gives `("12345", 3)`).
fn shortest_digits(x: f64) -> (String, i64) {
    let e = format!("{x:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::go_g;

    #[test]
    fn doubles_print_as_go_percent_g() {
        assert_eq!(go_g(1.0), "1");
        assert_eq!(go_g(1.5), "1.5");
        assert_eq!(go_g(-0.25), "-0.25");
        assert_eq!(go_g(0.0001), "0.0001");
        assert_eq!(go_g(0.00001), "1e-05");
        assert_eq!(go_g(123456.0), "123456");
        assert_eq!(go_g(1234567.0), "1.234567e+06");
        assert_eq!(go_g(123456789.0), "1.23456789e+08");
        assert_eq!(go_g(1e21), "1e+21");
        assert_eq!(go_g(2.5e-7), "2.5e-07");
    }
}
