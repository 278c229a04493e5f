//! Numbers as text: the shortest decimal that reads back to the same bits, laid out as
//! Python's `repr(float)` lays it out.
//!
//! The digits are the fewest that parse back (with `str::parse` of the same type, or
//! Python's `float` for f64) to the same bits; the layout is Python's (`float_repr_style`
//! `'short'`):
//!
//! * fixed notation when the decimal exponent `e` (of `d.ddd × 10^e`) is in `-5 < e < 16`,
//!   always with a decimal point: `0.1`, `123.0`, `0.0001`, `1000000000000000.0`;
//! * otherwise scientific, with a sign and at least two exponent digits, and a point only
//!   when there is more than one digit: `1e+16`, `1.5e-07`, `5e-324`;
//! * `nan`, `inf`, `-inf`; negative zero is `-0.0`.
//!
//! Where two shortest strings are equally close to the value (it lies exactly halfway), the
//! one with the even last digit is taken, as Python does.
//!
//! f32 values get the shortest digits that read back to the same f32 (`0.1`, not
//! `0.10000000149011612`), in the same layout.

use std::fmt::{LowerExp, Write as _};
use std::str::FromStr;

/// Appends the text of `x` to `out` (see the module documentation).
///
/// ```
/// use reprosum_cli::number::push_repr;
/// let mut s = String::new();
/// for x in [1e16, 1e15, 1e-5, 0.0001, 10000.0, -0.0, 0.1 + 0.2, f64::MIN_POSITIVE] {
///     push_repr(&mut s, x);
///     s.push(' ');
/// }
/// assert_eq!(
///     s,
///     "1e+16 1000000000000000.0 1e-05 0.0001 10000.0 -0.0 0.30000000000000004 2.2250738585072014e-308 "
/// );
/// let mut t = String::new();
/// push_repr(&mut t, 0.1f32);
/// assert_eq!(t, "0.1");
/// ```
pub fn push_repr<T: LowerExp + FromStr + PartialEq + Copy>(out: &mut String, x: T) {
    // `{:e}` is Rust's shortest round trip in scientific form: `1e16`, `-1.5e-7`, `0e0`,
    // `NaN`, `inf`, `-inf`.
    let start = out.len();
    write!(out, "{x:e}").expect("writing to a String cannot fail");
    let mut sci = out.split_off(start);
    match sci.as_str() {
        "NaN" => return out.push_str("nan"),
        "inf" | "-inf" => return out.push_str(&sci),
        _ => {}
    }
    // Where two strings of the shortest length read back to `x` and are equally close to it
    // (`x` lies exactly halfway), Rust's shortest mode rounds the last digit up and Python
    // takes the even one. The correctly rounded string of that length (Rust rounds exact
    // ties to even) is Python's whenever it reads back to `x`.
    let digits = sci
        .bytes()
        .take_while(|&b| b != b'e')
        .filter(u8::is_ascii_digit)
        .count();
    let nearest = format!("{:.*e}", digits - 1, x);
    if nearest != sci && nearest.parse::<T>().is_ok_and(|y| y == x) {
        sci = nearest;
    }
    let (neg, body) = match sci.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, sci.as_str()),
    };
    let (mant, exp) = body.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}` exponent is an integer");
    let (lead, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if neg {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        // Python's decpt: the digits are 0.DIGITS × 10^decpt.
        let digits: String = [lead, frac].concat();
        let decpt = exp + 1;
        if decpt <= 0 {
            out.push_str("0.");
            for _ in 0..-decpt {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let d = decpt as usize;
            if d < digits.len() {
                out.push_str(&digits[..d]);
                out.push('.');
                out.push_str(&digits[d..]);
            } else {
                out.push_str(&digits);
                for _ in digits.len()..d {
                    out.push('0');
                }
                out.push_str(".0");
            }
        }
    } else {
        out.push_str(lead);
        if !frac.is_empty() {
            out.push('.');
            out.push_str(frac);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        write!(out, "{:02}", exp.unsigned_abs()).expect("writing to a String cannot fail");
    }
}

/// The text of `x` (see the module documentation).
///
/// ```
/// assert_eq!(reprosum_cli::number::repr(f64::NAN), "nan");
/// assert_eq!(reprosum_cli::number::repr(-f32::INFINITY), "-inf");
/// assert_eq!(reprosum_cli::number::repr(3e38f32), "3e+38");
/// ```
pub fn repr<T: LowerExp + FromStr + PartialEq + Copy>(x: T) -> String {
    let mut s = String::new();
    push_repr(&mut s, x);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CPython's `repr` of each value (as printed by `python3 -c 'print(repr(x))'`).
    #[test]
    fn matches_python_repr() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.0, "-1.0"),
            (123.0, "123.0"),
            (0.1, "0.1"),
            (1.5, "1.5"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1.2345e16, "1.2345e+16"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (1e22, "1e+22"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (499500.0, "499500.0"),
            (123456789.125, "123456789.125"),
            (0.30000000000000004, "0.30000000000000004"),
            (1e-7, "1e-07"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "nan"),
            // Exactly halfway between two shortest strings: Python takes the even digit.
            (f64::from_bits(0x4312_f6d9_66b4_e7f5), "1334490793064957.2"),
            (f64::from_bits(0xc2e6_0192_7b6e_14a4), "-193568066728101.12"),
            (f64::from_bits(0x42e9_6e4c_29e9_8254), "223692119297042.62"),
        ];
        for &(x, want) in cases {
            assert_eq!(repr(x), want, "{x:e}");
        }
    }

    #[test]
    fn f32_is_shortest_for_f32() {
        let cases: &[(f32, &str)] = &[
            (0.1, "0.1"),
            (1.0, "1.0"),
            (16777216.0, "16777216.0"),
            (1e16, "1e+16"),
            (3.4028235e38, "3.4028235e+38"),
            (1e-45, "1e-45"),
            (1.1754944e-38, "1.1754944e-38"),
            (0.0001, "0.0001"),
            (1e-5, "1e-05"),
            (f32::NAN, "nan"),
        ];
        for &(x, want) in cases {
            assert_eq!(repr(x), want, "{x:e}");
        }
    }

    #[test]
    fn reads_back_to_the_same_bits() {
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = f64::from_bits(s);
            let y = f32::from_bits(s as u32);
            if !x.is_nan() {
                assert_eq!(repr(x).parse::<f64>().unwrap().to_bits(), x.to_bits(), "{x:e}");
            }
            if !y.is_nan() {
                assert_eq!(repr(y).parse::<f32>().unwrap().to_bits(), y.to_bits(), "{y:e}");
            }
        }
    }
}
