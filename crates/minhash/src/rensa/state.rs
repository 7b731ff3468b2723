//! The saved states of rensa's sketches: what `RMinHash.__getstate__()` and
//! `CMinHash.__getstate__()` return in rensa 0.5, byte for byte.
//!
//! A state is a prefix naming the sketch and its algorithm version (`Rensa:RMinHash:2\0`,
//! `Rensa:CMinHash:2\0`) and a postcard record: a format version word (`u32`), `num_perm`,
//! `seed` and the values, every integer an unsigned LEB128 varint and the values preceded by
//! their count. States of rensa 0.4 and earlier (no prefix) are refused: their values came from
//! another algorithm.
//!
//! ```
//! use textreuse_minhash::rensa::{RMinHashState, RMinHasher};
//!
//! let hasher = RMinHasher::new(3, 5)?;
//! let state = RMinHashState { seed: 5, values: hasher.sketch(&[1, 2, 3]) };
//! let bytes = state.encode();
//! assert!(bytes.starts_with(b"Rensa:RMinHash:2\0"));
//! assert_eq!(RMinHashState::decode(&bytes)?, state);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// Why a saved state was refused. Every case is recovered the same way: sketch the original
/// tokens again (states of other algorithm versions hold values that cannot be converted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The bytes do not start with the prefix of this sketch's version-2 states: a state of
    /// rensa 0.4 or earlier, of another sketch, or not a state at all.
    #[error("unsupported {sketch} state version; rebuild the sketch from its tokens")]
    Unsupported {
        /// `RMinHash` or `CMinHash`.
        sketch: &'static str,
    },
    /// The record's format version is not the one this code reads.
    #[error(
        "unsupported {sketch} state version {found:#x} (expected {expected:#x}); rebuild the \
         sketch from its tokens"
    )]
    Version {
        /// `RMinHash` or `CMinHash`.
        sketch: &'static str,
        /// The version word found.
        found: u32,
        /// The version word expected.
        expected: u32,
    },
    /// The record is cut short, has an integer out of range, or has bytes after its end.
    #[error(
        "failed to deserialize {sketch} state at byte {offset}: {what}; rebuild the sketch from its tokens"
    )]
    Malformed {
        /// `RMinHash` or `CMinHash`.
        sketch: &'static str,
        /// The offset in the state (prefix included) where decoding failed.
        offset: usize,
        /// What was wrong there.
        what: &'static str,
    },
    /// `num_perm` is zero or differs from the number of values.
    #[error(
        "invalid {sketch} state: num_perm ({num_perm}) must equal the nonempty hash_values \
         length ({values}); rebuild the sketch from its tokens"
    )]
    Length {
        /// `RMinHash` or `CMinHash`.
        sketch: &'static str,
        /// The `num_perm` field.
        num_perm: u64,
        /// The number of values.
        values: usize,
    },
}

/// A saved R-MinHash: rensa's `RMinHash` state (`num_perm` is the number of values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RMinHashState {
    /// The seed the sketch was made with.
    pub seed: u64,
    /// The digest.
    pub values: Vec<u32>,
}

/// A saved C-MinHash: rensa's `CMinHash` state (`num_perm` is the number of values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CMinHashState {
    /// The seed the sketch was made with.
    pub seed: u64,
    /// The 64-bit digest (`digest_u64`).
    pub values: Vec<u64>,
}

const R_PREFIX: &[u8] = b"Rensa:RMinHash:2\0";
const R_VERSION: u32 = 0x524d_4802;
const C_PREFIX: &[u8] = b"Rensa:CMinHash:2\0";
const C_VERSION: u32 = 0x434d_4802;

impl RMinHashState {
    /// The state's bytes, as rensa's `RMinHash.__getstate__()` returns them.
    pub fn encode(&self) -> Vec<u8> {
        let values = self.values.iter().map(|&v| v as u64);
        encode(R_PREFIX, R_VERSION, self.seed, self.values.len(), values)
    }

    /// The state in `bytes` (written by [`encode`](Self::encode) or by rensa 0.5).
    pub fn decode(bytes: &[u8]) -> Result<RMinHashState, StateError> {
        let (seed, values) = decode(bytes, "RMinHash", R_PREFIX, R_VERSION, u32::MAX as u64)?;
        let values = values.into_iter().map(|v| v as u32).collect();
        Ok(RMinHashState { seed, values })
    }
}

impl CMinHashState {
    /// The state's bytes, as rensa's `CMinHash.__getstate__()` returns them.
    pub fn encode(&self) -> Vec<u8> {
        let values = self.values.iter().copied();
        encode(C_PREFIX, C_VERSION, self.seed, self.values.len(), values)
    }

    /// The state in `bytes` (written by [`encode`](Self::encode) or by rensa 0.5).
    pub fn decode(bytes: &[u8]) -> Result<CMinHashState, StateError> {
        let (seed, values) = decode(bytes, "CMinHash", C_PREFIX, C_VERSION, u64::MAX)?;
        Ok(CMinHashState { seed, values })
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn encode(
    prefix: &[u8],
    version: u32,
    seed: u64,
    len: usize,
    values: impl Iterator<Item = u64>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(prefix.len() + 24 + 5 * len);
    out.extend_from_slice(prefix);
    put_varint(&mut out, version as u64);
    put_varint(&mut out, len as u64); // num_perm
    put_varint(&mut out, seed);
    put_varint(&mut out, len as u64); // the values' count
    for v in values {
        put_varint(&mut out, v);
    }
    out
}

/// A reader of postcard varints that names the offset of what it refuses.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    sketch: &'static str,
}

impl Reader<'_> {
    fn malformed(&self, offset: usize, what: &'static str) -> StateError {
        StateError::Malformed {
            sketch: self.sketch,
            offset,
            what,
        }
    }

    /// A varint of at most `max`; postcard allows the encoded length of `max` (10 bytes for
    /// u64, 5 for u32) and refuses larger values.
    fn varint(&mut self, max: u64) -> Result<u64, StateError> {
        let start = self.at;
        let limit = (64 - max.leading_zeros()).div_ceil(7).max(1) as usize;
        let mut value: u64 = 0;
        for i in 0..limit {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(self.malformed(self.at, "unexpected end of state"));
            };
            self.at += 1;
            let bits = (byte & 0x7f) as u64;
            let shift = 7 * i as u32;
            if shift >= 64 || (shift > 0 && bits >> (64 - shift) != 0) {
                return Err(self.malformed(start, "integer out of range"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return if value > max {
                    Err(self.malformed(start, "integer out of range"))
                } else {
                    Ok(value)
                };
            }
        }
        Err(self.malformed(start, "integer out of range"))
    }
}

fn decode(
    bytes: &[u8],
    sketch: &'static str,
    prefix: &[u8],
    version: u32,
    max_value: u64,
) -> Result<(u64, Vec<u64>), StateError> {
    if !bytes.starts_with(prefix) {
        return Err(StateError::Unsupported { sketch });
    }
    let mut r = Reader {
        bytes,
        at: prefix.len(),
        sketch,
    };
    let found = r.varint(u32::MAX as u64)? as u32;
    if found != version {
        return Err(StateError::Version {
            sketch,
            found,
            expected: version,
        });
    }
    let num_perm = r.varint(u64::MAX)?;
    let seed = r.varint(u64::MAX)?;
    let count_at = r.at;
    let count = r.varint(u64::MAX)?;
    // Each value takes at least one byte: a count beyond the bytes left is a damaged state,
    // found before allocating for it.
    if count > (bytes.len() - r.at) as u64 {
        return Err(r.malformed(count_at, "more values than bytes"));
    }
    let values = (0..count)
        .map(|_| r.varint(max_value))
        .collect::<Result<Vec<u64>, _>>()?;
    if r.at != bytes.len() {
        return Err(r.malformed(r.at, "bytes after the end of the state"));
    }
    if num_perm == 0 || num_perm != values.len() as u64 {
        return Err(StateError::Length {
            sketch,
            num_perm,
            values: values.len(),
        });
    }
    Ok((seed, values))
}
