//! `cli_size`: the `--work-mem` size parser (`crates/cli/src/args/size.rs`, compiled into this
//! target because the CLI is a binary crate) on arbitrary text and on sizes it should read:
//! no panic; every exact size written with every unit reads back as itself; a fraction is
//! rounded down and never exceeds the next whole unit; surrounding whitespace and case do not
//! matter.
#![no_main]

#[allow(dead_code)]
#[path = "../../crates/cli/src/args/size.rs"]
mod size;

use libfuzzer_sys::fuzz_target;
use size::{SizeError, parse_size};

const UNITS: &[(&str, u64)] = &[
    ("", 1),
    ("B", 1),
    ("K", 1_000),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("g", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("mib", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];

fuzz_target!(|data: &[u8]| {
    // Arbitrary text: a size or a typed error, never a panic.
    if let Ok(text) = std::str::from_utf8(data) {
        match parse_size(text) {
            Ok(n) => {
                // Whitespace around and the unit's case do not change the value.
                assert_eq!(parse_size(&format!(" {text}\t")), Ok(n), "{text:?}");
                assert_eq!(parse_size(&text.to_ascii_uppercase()), Ok(n), "{text:?}");
            }
            Err(SizeError::Empty) => assert!(text.trim().is_empty()),
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
    // Numbers written with units: exact values read back, fractions round down.
    if data.len() >= 10 {
        let n = u64::from_le_bytes(data[..8].try_into().unwrap());
        let (unit, mult) = UNITS[usize::from(data[8]) % UNITS.len()];
        let space = if data[9] & 1 == 0 { "" } else { " " };
        let n = if data[9] & 2 == 0 {
            n >> (data[9] >> 2)
        } else {
            n
        };
        let want = n.checked_mul(mult);
        match parse_size(&format!("{n}{space}{unit}")) {
            Ok(got) => assert_eq!(Some(got), want, "{n}{space}{unit}"),
            Err(SizeError::Overflow { .. }) => assert_eq!(want, None, "{n}{unit}"),
            Err(e) => panic!("{n}{space}{unit}: {e}"),
        }
        // n.frac units: between n units and n + 1 units, rounded down.
        let frac: String = data[10..]
            .iter()
            .take(30)
            .map(|b| char::from(b'0' + b % 10))
            .collect();
        if let Some(lo) = want {
            match parse_size(&format!("{n}.{frac}{unit}")) {
                Ok(got) => {
                    assert!(got >= lo, "{n}.{frac}{unit}: {got} < {lo}");
                    assert!(
                        u128::from(got) <= u128::from(lo) + u128::from(mult),
                        "{n}.{frac}{unit}: {got}"
                    );
                    if mult == 1 {
                        assert_eq!(got, lo, "{n}.{frac}{unit}");
                    }
                }
                Err(SizeError::Overflow { .. }) => {
                    assert!(u128::from(lo) + u128::from(mult) > u128::from(u64::MAX))
                }
                Err(e) => panic!("{n}.{frac}{unit}: {e}"),
            }
        }
    }
});
