//! rensa 0.5's sketches, bit for bit: its token hash, R-MinHash and C-MinHash (algorithm
//! version 2) and their saved states, so digests made here and by `rensa` can be compared,
//! indexed and restored together.
//!
//! [rensa](https://pypi.org/project/rensa/) (MIT) is a MinHash library for Python. Its sketches
//! are defined by the values they produce, which this module reproduces with its own code:
//!
//! * [`token_hash`]: each token's bytes (a `str` as UTF-8) hashed as
//!   `rustc_hash::FxHasher` 2.x hashes a byte slice on 64-bit targets (`write` then `finish`).
//! * [`RMinHasher`]: R-MinHash, a Fast Similarity Sketching variant (Dahlgaard, Knudsen and
//!   Thorup, arXiv:1704.04370). Every token hash takes part in three bucket rounds: a seeded
//!   SplitMix64 mix picks one slot (Lemire's multiply-shift range reduction, with rejection
//!   when `num_perm` is not a power of two) and a 30-bit rank, stored under a 2-bit round tag,
//!   so round 0 beats round 1 beats round 2. A slot no round filled takes a fallback value:
//!   tag 3 over the top 30 bits of its own affine permutation `a·x + b mod 2^64` of a second
//!   mix of the token. Each slot is thus a minimum over tokens of a fixed function of the
//!   token, so the digest does not depend on token order, duplicates or how the tokens are
//!   split into updates. Values are `u32`; an empty sketch is all `u32::MAX`.
//! * [`CMinHasher`]: C-MinHash (Li and Li, ICML 2022) with two seeded SplitMix64 finalizers
//!   as the permutations: slot `k` is the minimum over tokens of
//!   `pi(sigma(x) - (k + 1))`. Values are `u64`; rensa's 32-bit `digest()` is their top halves.
//! * [`RMinHashState`] and [`CMinHashState`]: the bytes of rensa's `__getstate__` (a prefix and
//!   a postcard record), so a state one side saved, the other restores.
//!
//! The parameters come from `Xoshiro256PlusPlus::seed_from_u64(seed)` (SplitMix64-seeded) as in
//! rensa: `num_perm` pairs `(a | 1, b)` for R-MinHash, `(sigma_key, pi_key)` for C-MinHash.
//!
//! ```
//! use textreuse_minhash::rensa::{token_hash, RMinHasher};
//!
//! let hasher = RMinHasher::new(128, 42)?;
//! let a: Vec<u64> = ["the", "quick", "brown", "fox"].iter().map(|t| token_hash(t.as_bytes())).collect();
//! let b: Vec<u64> = ["the", "quick", "brown", "dog"].iter().map(|t| token_hash(t.as_bytes())).collect();
//! let (sa, sb) = (hasher.sketch(&a), hasher.sketch(&b));
//! let estimate = textreuse_minhash::rensa::jaccard(&sa, &sb);
//! assert!(estimate > 0.3 && estimate < 0.9); // exact: 3/5
//!
//! // Incremental updates give the same digest, whatever the order.
//! let mut values = hasher.empty();
//! hasher.update(&mut values, &b[2..])?;
//! hasher.update(&mut values, &b[..2])?;
//! assert_eq!(values, sb);
//! # Ok::<(), textreuse_minhash::rensa::RensaError>(())
//! ```
//!
//! # Performance
//!
//! R-MinHash costs three mixes per token and round while slots remain to be improved (dense
//! inputs fill every slot in round 0 and stop there), plus, for the slots still empty after
//! the rounds, one multiply per token and slot: sets much smaller than `num_perm` cost like
//! classical MinHash, larger ones a small constant per token. C-MinHash costs one finalizer per
//! token and slot. rensa adds SIMD kernels and a rank filter for very long inputs; they change
//! speed, not values.
//!
//! # Accuracy
//!
//! Both estimate Jaccard similarity as the fraction of equal slots. rensa's own accuracy tests
//! (mean error, and mean squared error within 1.65 times the `s(1-s)/num_perm` of independent
//! permutations) pass on these sketches in the Python package's compatibility suite.
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use textreuse_hash::mix64;

mod state;

pub use state::{CMinHashState, RMinHashState, StateError};

/// rensa's `ALGORITHM_VERSION`: the version of the R-MinHash and C-MinHash values reproduced
/// here. Values of other versions are not comparable with these.
pub const ALGORITHM_VERSION: u32 = 2;

/// Why a sketch could not be made or updated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RensaError {
    /// A sketch needs at least one slot. Recover by asking for `num_perm >= 1`.
    #[error("num_perm must be greater than 0")]
    ZeroPermutations,
    /// The values passed to `update` are not one sketch of this hasher. Recover by passing a
    /// slice of `num_perm` values (made by `empty` or `sketch` of a hasher with the same
    /// `num_perm`).
    #[error("a sketch of {expected} values was expected, got {got}")]
    Length {
        /// The hasher's `num_perm`.
        expected: usize,
        /// The number of values given.
        got: usize,
    },
}

// ---------------------------------------------------------------- token hash

const FX_K: u64 = 0xf135_7aea_2e62_a9c5;
const FX_SEED1: u64 = 0x243f_6a88_85a3_08d3;
const FX_SEED2: u64 = 0x1319_8a2e_0370_7344;
const FX_NONZERO: u64 = 0xa409_3822_299f_31d0;

/// The high and low halves of the 128-bit product, xored.
#[inline]
fn fold_multiply(x: u64, y: u64) -> u64 {
    let full = (x as u128) * (y as u128);
    (full as u64) ^ ((full >> 64) as u64)
}

#[inline]
fn le64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[inline]
fn le32(bytes: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as u64
}

/// The 64-bit hash of a token's bytes, as rensa computes it: `rustc_hash::FxHasher` (2.x, on a
/// 64-bit target) after one `write(bytes)`, then `finish()`. A `str` token is hashed as its
/// UTF-8 bytes.
///
/// ```
/// assert_eq!(textreuse_minhash::rensa::token_hash(b""), 17606491139363777937);
/// ```
pub fn token_hash(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    let (mut s0, mut s1) = (FX_SEED1, FX_SEED2);
    if len <= 16 {
        if len >= 8 {
            s0 ^= le64(bytes, 0);
            s1 ^= le64(bytes, len - 8);
        } else if len >= 4 {
            s0 ^= le32(bytes, 0);
            s1 ^= le32(bytes, len - 4);
        } else if len > 0 {
            s0 ^= bytes[0] as u64;
            s1 ^= ((bytes[len - 1] as u64) << 8) | bytes[len / 2] as u64;
        }
    } else {
        // 16-byte blocks, all but the last (which may overlap the one before).
        let mut at = 0;
        while at < len - 16 {
            let mixed = fold_multiply(s0 ^ le64(bytes, at), FX_NONZERO ^ le64(bytes, at + 8));
            s0 = s1;
            s1 = mixed;
            at += 16;
        }
        s0 ^= le64(bytes, len - 16);
        s1 ^= le64(bytes, len - 8);
    }
    let compressed = fold_multiply(s0, s1) ^ len as u64;
    // FxHasher's state after adding `compressed` to 0, and its `finish`.
    compressed.wrapping_mul(FX_K).rotate_left(26)
}

// ---------------------------------------------------------------- R-MinHash

/// SplitMix64's increment ("golden gamma").
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
/// Bits of the round tag in front of each 30-bit rank.
const TAG_BITS: u32 = 2;
/// A rank is the top `32 - TAG_BITS` bits of a 64-bit mix.
const RANK_SHIFT: u32 = 32 + TAG_BITS;
const RANK_WIDTH: u32 = 32 - TAG_BITS;
/// Bucket rounds; the tag after the last marks fallback values.
const ROUNDS: u32 = (1 << TAG_BITS) - 1;
const FALLBACK_TAG: u32 = ROUNDS << RANK_WIDTH;
/// Domain separators of the three mixes (SHA-512's first initial values: the fractional parts
/// of the square roots of 2, 5 and 3).
const BUCKET_DOMAIN: u64 = 0x6a09_e667_f3bc_c909;
const ROUND_DOMAIN: u64 = 0x3c6e_f372_fe94_f82b;
const FALLBACK_DOMAIN: u64 = 0xbb67_ae85_84ca_a73b;

/// A full SplitMix64 step: add the increment, then finalize.
#[inline]
fn splitmix64(x: u64) -> u64 {
    mix64(x.wrapping_add(GOLDEN_GAMMA))
}

/// The slot of a mixed hash among `slots`: Lemire's `(x · n) >> 32` over the low 32 bits,
/// remixing (SplitMix64) the rare values of the incomplete last interval; slots beyond 2^32
/// use the 64-bit form on a remixed value.
#[inline]
fn slot(mixed: u64, slots: Slots) -> usize {
    match slots {
        Slots::Narrow { count, threshold } => {
            let mut x = mixed;
            loop {
                let product = (x as u32 as u64) * count;
                if product as u32 >= threshold {
                    return (product >> 32) as usize;
                }
                x = splitmix64(x);
            }
        }
        Slots::Wide { count, threshold } => {
            let mut x = splitmix64(mixed);
            loop {
                let product = (x as u128) * (count as u128);
                if product as u64 >= threshold {
                    return (product >> 64) as usize;
                }
                x = splitmix64(x);
            }
        }
    }
}

/// The slot count and its rejection threshold (`2^w mod count`, `w` = 32 or 64).
#[derive(Clone, Copy, Debug)]
enum Slots {
    Narrow { count: u64, threshold: u32 },
    Wide { count: u64, threshold: u64 },
}

impl Slots {
    fn new(count: usize) -> Slots {
        match u32::try_from(count) {
            Ok(n) => Slots::Narrow {
                count: n as u64,
                threshold: n.wrapping_neg() % n,
            },
            Err(_) => {
                let n = count as u64;
                Slots::Wide {
                    count: n,
                    threshold: n.wrapping_neg() % n,
                }
            }
        }
    }
}

/// R-MinHash of one `(num_perm, seed)`: folds token hashes into `u32` digests bit-identical to
/// rensa's `RMinHash` (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RMinHasher {
    seed: u64,
    /// The affine parameters `(a, b)` of each slot's fallback permutation; `a` is odd.
    pairs: Vec<(u64, u64)>,
}

impl RMinHasher {
    /// The hasher with `num_perm` slots drawn from `seed`.
    pub fn new(num_perm: usize, seed: u64) -> Result<RMinHasher, RensaError> {
        if num_perm == 0 {
            return Err(RensaError::ZeroPermutations);
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let pairs = (0..num_perm)
            .map(|_| {
                let a = rng.next_u64() | 1;
                (a, rng.next_u64())
            })
            .collect();
        Ok(RMinHasher { seed, pairs })
    }

    /// The number of slots (`num_perm`).
    pub fn num_perm(&self) -> usize {
        self.pairs.len()
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The digest of no tokens: `u32::MAX` in every slot.
    pub fn empty(&self) -> Vec<u32> {
        vec![u32::MAX; self.pairs.len()]
    }

    /// The digest of `hashes` (token hashes, see [`token_hash`]).
    pub fn sketch(&self, hashes: &[u64]) -> Vec<u32> {
        let mut values = self.empty();
        self.fold(&mut values, hashes);
        values
    }

    /// Overwrites `out` (of `num_perm` values) with the digest of `hashes`, without allocating
    /// a new digest.
    pub fn sketch_into(&self, hashes: &[u64], out: &mut [u32]) -> Result<(), RensaError> {
        self.check(out.len())?;
        out.fill(u32::MAX);
        self.fold(out, hashes);
        Ok(())
    }

    /// Adds `hashes` to the digest `values`: the result is the digest of all tokens added so
    /// far, whatever the order and grouping of the updates.
    pub fn update(&self, values: &mut [u32], hashes: &[u64]) -> Result<(), RensaError> {
        self.check(values.len())?;
        self.fold(values, hashes);
        Ok(())
    }

    fn check(&self, got: usize) -> Result<(), RensaError> {
        if got != self.pairs.len() {
            return Err(RensaError::Length {
                expected: self.pairs.len(),
                got,
            });
        }
        Ok(())
    }

    fn fold(&self, values: &mut [u32], hashes: &[u64]) {
        if hashes.is_empty() {
            return;
        }
        let (a0, b0) = self.pairs[0];
        let slots = Slots::new(values.len());
        for round in 0..ROUNDS {
            let key = b0 ^ BUCKET_DOMAIN ^ (round as u64).wrapping_mul(ROUND_DOMAIN);
            let tag = round << RANK_WIDTH;
            for &h in hashes {
                let mixed = splitmix64(h ^ key);
                let rank = tag | (mixed >> RANK_SHIFT) as u32;
                let v = &mut values[slot(mixed, slots)];
                *v = (*v).min(rank);
            }
            // Later rounds carry larger tags: once every slot holds a value of this round or an
            // earlier one, nothing after can lower it.
            let next = (round + 1) << RANK_WIDTH;
            if values.iter().all(|&v| v < next) {
                return;
            }
        }
        // Slots no round filled (all rounds of all updates so far) take the minimum of their
        // fallback permutation. Filled slots hold smaller tags, so they need none.
        let key = a0 ^ FALLBACK_DOMAIN;
        let mut mixed: Vec<u64> = hashes.iter().map(|&h| splitmix64(h ^ key)).collect();
        if mixed.len() > 4 * values.len() {
            // Long inputs repeat tokens; the fallback loop is per slot, so drop repeats first.
            mixed.sort_unstable();
            mixed.dedup();
        }
        for (v, &(a, b)) in values.iter_mut().zip(&self.pairs) {
            if *v < FALLBACK_TAG {
                continue;
            }
            let rank = mixed
                .iter()
                .map(|&x| (a.wrapping_mul(x).wrapping_add(b) >> RANK_SHIFT) as u32)
                .min()
                .unwrap_or(u32::MAX >> TAG_BITS);
            *v = (*v).min(FALLBACK_TAG | rank);
        }
    }
}

// ---------------------------------------------------------------- C-MinHash

/// C-MinHash of one `(num_perm, seed)`: folds token hashes into `u64` digests bit-identical to
/// rensa's `CMinHash.digest_u64()` (see the [module docs](self)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CMinHasher {
    num_perm: usize,
    seed: u64,
    sigma_key: u64,
    pi_key: u64,
}

impl CMinHasher {
    /// The hasher with `num_perm` slots and its two permutations drawn from `seed`.
    pub fn new(num_perm: usize, seed: u64) -> Result<CMinHasher, RensaError> {
        if num_perm == 0 {
            return Err(RensaError::ZeroPermutations);
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let sigma_key = rng.next_u64();
        let pi_key = rng.next_u64();
        Ok(CMinHasher {
            num_perm,
            seed,
            sigma_key,
            pi_key,
        })
    }

    /// The number of slots (`num_perm`).
    pub fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The digest of no tokens: `u64::MAX` in every slot.
    pub fn empty(&self) -> Vec<u64> {
        vec![u64::MAX; self.num_perm]
    }

    /// The digest of `hashes` (token hashes, see [`token_hash`]).
    pub fn sketch(&self, hashes: &[u64]) -> Vec<u64> {
        let mut values = self.empty();
        self.fold(&mut values, hashes);
        values
    }

    /// Overwrites `out` (of `num_perm` values) with the digest of `hashes`.
    pub fn sketch_into(&self, hashes: &[u64], out: &mut [u64]) -> Result<(), RensaError> {
        self.check(out.len())?;
        out.fill(u64::MAX);
        self.fold(out, hashes);
        Ok(())
    }

    /// Adds `hashes` to the digest `values` (order and grouping do not matter).
    pub fn update(&self, values: &mut [u64], hashes: &[u64]) -> Result<(), RensaError> {
        self.check(values.len())?;
        self.fold(values, hashes);
        Ok(())
    }

    fn check(&self, got: usize) -> Result<(), RensaError> {
        if got != self.num_perm {
            return Err(RensaError::Length {
                expected: self.num_perm,
                got,
            });
        }
        Ok(())
    }

    fn fold(&self, values: &mut [u64], hashes: &[u64]) {
        // Tokens in blocks, so each block's sigmas stay in cache while every slot sees them.
        for block in hashes.chunks(32) {
            let mut bases = [0u64; 32];
            for (base, &h) in bases.iter_mut().zip(block) {
                // sigma(x), already shifted by the pi key: pi(y) = mix64(y + pi_key).
                *base = mix64(h.wrapping_add(self.sigma_key)).wrapping_add(self.pi_key);
            }
            let bases = &bases[..block.len()];
            for (k, v) in values.iter_mut().enumerate() {
                let shift = (k as u64).wrapping_add(1);
                for &base in bases {
                    *v = (*v).min(mix64(base.wrapping_sub(shift)));
                }
            }
        }
    }
}

/// The fraction of equal slots of two digests (rensa's `jaccard`), 0 for empty digests. Slots
/// past the shorter digest count as unequal.
pub fn jaccard<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let n = a.len().max(b.len());
    if n == 0 {
        return 0.0;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f64 / n as f64
}

/// The upper 32 bits of each C-MinHash value: rensa's `CMinHash.digest()`.
pub fn c_digest32(values: &[u64]) -> Vec<u32> {
    values.iter().map(|&v| (v >> 32) as u32).collect()
}

#[cfg(test)]
mod tests;
