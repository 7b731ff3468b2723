//! Human sizes for `--work-mem` and `--max-memory`: `64MB`, `4GiB`, `1.5 GB`.

/// The error of [`parse_size`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SizeError {
    /// The text is empty. Recover by giving a size such as `64MB`.
    #[error("empty size (expected a number and a unit, such as 64MB or 4GiB)")]
    Empty,
    /// The number part is not a non-negative decimal number. Recover by fixing the number.
    #[error("invalid number {number:?} in size {text:?} (expected digits, such as 64MB or 1.5GB)")]
    InvalidNumber {
        /// The whole text.
        text: String,
        /// The number part.
        number: String,
    },
    /// The unit is not one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (or K, M, G, T).
    #[error("unknown unit {unit:?} in size {text:?} (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)")]
    UnknownUnit {
        /// The whole text.
        text: String,
        /// The unit part.
        unit: String,
    },
    /// The size does not fit in 64 bits. Recover by giving a smaller size.
    #[error("size {text:?} is too large")]
    Overflow {
        /// The whole text.
        text: String,
    },
}

/// Parses a byte size such as `64MB`, `4GB`, `512KiB`, `1.5GiB` or `1000000`.
///
/// Units are case-insensitive: `KB`, `MB`, `GB`, `TB` are powers of 1000, `KiB`, `MiB`, `GiB`,
/// `TiB` powers of 1024, `K`, `M`, `G`, `T` are the same as `KB`..`TB`, and no unit (or `B`)
/// means bytes. A space between number and unit is allowed; a fraction is rounded down to whole
/// bytes.
///
/// ```text
/// assert_eq!(parse_size("64MB")?, 64_000_000);
/// assert_eq!(parse_size("512KiB")?, 512 * 1024);
/// assert_eq!(parse_size("1.5 GiB")?, 3 << 29);
/// assert!(parse_size("4 parsecs").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(SizeError::Empty);
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = (&s[..split], s[split..].trim_start());
    let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "t" | "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => {
            return Err(SizeError::UnknownUnit {
                text: text.to_string(),
                unit: unit.to_string(),
            });
        }
    };
    let invalid = || SizeError::InvalidNumber {
        text: text.to_string(),
        number: number.to_string(),
    };
    let overflow = || SizeError::Overflow {
        text: text.to_string(),
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && frac.is_empty()) || frac.contains('.') {
        return Err(invalid());
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| overflow())?
    };
    let mut bytes = whole.checked_mul(multiplier).ok_or_else(overflow)?;
    // The fraction, exactly: digits / 10^len * multiplier, rounded down. Only the first 18
    // digits matter (multiplier < 10^13).
    let frac = &frac[..frac.len().min(18)];
    if !frac.is_empty() {
        let digits: u128 = frac.parse().map_err(|_| invalid())?;
        let scale = 10u128.pow(frac.len() as u32);
        let part = digits * multiplier as u128 / scale;
        bytes = bytes.checked_add(part as u64).ok_or_else(overflow)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        let ok = [
            ("64MB", 64_000_000),
            ("4GB", 4_000_000_000),
            ("512KiB", 512 << 10),
            ("4gib", 4 << 30),
            ("1.5 GiB", 3 << 29),
            ("0.5k", 500),
            ("12345", 12345),
            ("10 b", 10),
            ("2T", 2_000_000_000_000),
            (" 3MiB ", 3 << 20),
            (".5KB", 500),
        ];
        for (text, want) in ok {
            assert_eq!(parse_size(text), Ok(want), "{text}");
        }
        assert_eq!(parse_size(""), Err(SizeError::Empty));
        assert!(matches!(
            parse_size("4 GBs"),
            Err(SizeError::UnknownUnit { .. })
        ));
        assert!(matches!(
            parse_size("MB"),
            Err(SizeError::InvalidNumber { .. })
        ));
        assert!(matches!(
            parse_size("1.2.3MB"),
            Err(SizeError::InvalidNumber { .. })
        ));
        assert!(matches!(
            parse_size("-4GB"),
            Err(SizeError::UnknownUnit { .. })
        ));
        assert!(matches!(
            parse_size("20000000TB"),
            Err(SizeError::Overflow { .. })
        ));
        assert!(matches!(
            parse_size("99999999999999999999"),
            Err(SizeError::Overflow { .. })
        ));
        let msg = parse_size("4 parsecs").unwrap_err().to_string();
        assert!(msg.contains("parsecs") && msg.contains("GiB"), "{msg}");
    }
}
