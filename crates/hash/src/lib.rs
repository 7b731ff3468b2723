//! Multiply-shift hash families and stable 64-bit fingerprints of byte strings.
//!
//! Two things live here, both defined entirely by this crate's code so that their outputs are the
//! same on every machine, every platform and every version (they are pinned by known-answer tests):
//!
//! * [`Family`]: `N` hash functions from `u64` keys to `m`-bit values, `1 <= m <= 64`, drawn from
//!   one `u64` seed through `rand_xoshiro`. Each function is Dietzfelbinger's multiply-shift
//!   `h_a(x) = (a·x mod 2^64) >> (64 - m)` with an odd random `a`, or the multiply-add-shift
//!   variant `h_{a,b}(x) = ((a·x + b) mod 2^64) >> (64 - m)`. The seed research used `N = 20`
//!   functions with 60-bit outputs; `textreuse-minhash` builds its signatures from this type.
//! * [`fingerprint`]: a variable-length byte string to a 64-bit key with *vector multiply-shift*
//!   over the bytes packed into little-endian 64-bit words (Thorup, "High Speed Hashing for
//!   Integers and Strings"). This is what a shingle becomes.
//!
//! ```
//! use textreuse_hash::{Family, FamilyKind, fingerprint};
//!
//! // The seed research's family: 20 functions with 60-bit outputs.
//! let family = Family::new(FamilyKind::MultiplyAddShift, 20, 60, 1123456)?;
//! let key = fingerprint("the quick br".as_bytes());
//! let mut out = [0u64; 20];
//! family.hash_all(key, &mut out);
//! assert!(out.iter().all(|&h| h < (1 << 60)));
//! assert_eq!(out[3], family.hash(3, key));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`MultiplyShift`] and [`MultiplyAddShift`] are single functions; [`Family`] stores `N` of
//!   them as two plain `u64` arrays (multipliers and increments), which is the layout SIMD code
//!   wants.
//! * [`fingerprint`] hashes bytes, [`fingerprint_words`] hashes `u64` words, [`mix64`] is a stable
//!   bijective finalizer for combining values into keys. [`FINGERPRINT_COEFFICIENTS`] are the
//!   fingerprint's coefficients, for specialized implementations elsewhere.
//! * [`Xoshiro256PlusPlus`] is re-exported so that dependent crates draw their random choices from
//!   the same generator without depending on `rand_xoshiro` themselves.
//!
//! # Accuracy
//!
//! Multiply-shift is *universal*: for any fixed pair of distinct keys, the probability over the
//! random odd multiplier that they collide in `m` bits is at most `2 / 2^m`. It is not min-wise
//! independent, so wherever a collision rate matters (MinHash) the rate is measured in tests, not
//! assumed. The string fingerprint is strongly universal for inputs of up to 248 bytes (31 words
//! plus the length word); longer inputs are chained block by block, which keeps it a good hash but
//! without a proof.
//!
//! # Performance
//!
//! One function evaluation is a 64-bit multiply, an add and a shift. [`fingerprint`] costs one
//! 64x128-bit multiply-add per 8 bytes of input.
//!
//! # Crate features
//!
//! * `std` (default): implements `std::error::Error` for [`HashError`]. Without it the crate is
//!   `no_std` + `alloc`.
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

extern crate alloc;

use alloc::vec::Vec;
use core::fmt;

pub use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// The error type for constructing hash functions and families.
///
/// Every variant is a caller mistake in the parameters; fix the parameter named in the message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HashError {
    /// The output width must be between 1 and 64 bits. Recover by choosing a width in that range.
    InvalidBits {
        /// The width that was asked for.
        bits: u32,
    },
    /// A multiply-shift multiplier must be odd (an even one loses its lowest key bit). Recover by
    /// setting the lowest bit (`a | 1`).
    EvenMultiplier {
        /// The multiplier that was given.
        multiplier: u64,
    },
    /// A family needs at least one function. Recover by asking for `n >= 1`.
    EmptyFamily,
}

impl fmt::Display for HashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            HashError::InvalidBits { bits } => {
                write!(f, "hash output width must be 1 to 64 bits, got {bits}")
            }
            HashError::EvenMultiplier { multiplier } => {
                write!(
                    f,
                    "multiply-shift multiplier must be odd, got {multiplier:#x}"
                )
            }
            HashError::EmptyFamily => write!(f, "a hash family needs at least one function"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for HashError {}

fn shift_for(bits: u32) -> Result<u32, HashError> {
    if (1..=64).contains(&bits) {
        Ok(64 - bits)
    } else {
        Err(HashError::InvalidBits { bits })
    }
}

/// Dietzfelbinger's multiply-shift: `h_a(x) = (a·x mod 2^64) >> (64 - m)` with odd `a`.
///
/// Universal: two distinct keys collide with probability at most `2 / 2^m` over the choice of
/// `a`. Note that `h_a(0) = 0` for every `a`; use [`MultiplyAddShift`] where that matters (it
/// does for MinHash).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MultiplyShift {
    a: u64,
    shift: u32,
}

impl MultiplyShift {
    /// A function with multiplier `a` (must be odd) and `bits` output bits (1 to 64).
    pub fn new(a: u64, bits: u32) -> Result<Self, HashError> {
        let shift = shift_for(bits)?;
        if a & 1 == 0 {
            return Err(HashError::EvenMultiplier { multiplier: a });
        }
        Ok(MultiplyShift { a, shift })
    }

    /// A function with a random odd multiplier drawn from `rng`.
    pub fn random(rng: &mut Xoshiro256PlusPlus, bits: u32) -> Result<Self, HashError> {
        MultiplyShift::new(rng.next_u64() | 1, bits)
    }

    /// Hashes `x` to a value below `2^bits`.
    #[inline]
    pub fn hash(&self, x: u64) -> u64 {
        self.a.wrapping_mul(x) >> self.shift
    }

    /// The multiplier `a`.
    pub fn multiplier(&self) -> u64 {
        self.a
    }

    /// The number of output bits `m`.
    pub fn bits(&self) -> u32 {
        64 - self.shift
    }
}

/// The multiply-add-shift variant: `h_{a,b}(x) = ((a·x + b) mod 2^64) >> (64 - m)`, odd `a`.
///
/// The random increment `b` removes multiply-shift's fixed point at zero, so no key is the
/// minimum under every function of a family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MultiplyAddShift {
    a: u64,
    b: u64,
    shift: u32,
}

impl MultiplyAddShift {
    /// A function with multiplier `a` (must be odd), increment `b` and `bits` output bits.
    pub fn new(a: u64, b: u64, bits: u32) -> Result<Self, HashError> {
        let shift = shift_for(bits)?;
        if a & 1 == 0 {
            return Err(HashError::EvenMultiplier { multiplier: a });
        }
        Ok(MultiplyAddShift { a, b, shift })
    }

    /// A function with a random odd multiplier and a random increment drawn from `rng`
    /// (in that order).
    pub fn random(rng: &mut Xoshiro256PlusPlus, bits: u32) -> Result<Self, HashError> {
        let a = rng.next_u64() | 1;
        let b = rng.next_u64();
        MultiplyAddShift::new(a, b, bits)
    }

    /// Hashes `x` to a value below `2^bits`.
    #[inline]
    pub fn hash(&self, x: u64) -> u64 {
        self.a.wrapping_mul(x).wrapping_add(self.b) >> self.shift
    }

    /// The multiplier `a`.
    pub fn multiplier(&self) -> u64 {
        self.a
    }

    /// The increment `b`.
    pub fn increment(&self) -> u64 {
        self.b
    }

    /// The number of output bits `m`.
    pub fn bits(&self) -> u32 {
        64 - self.shift
    }
}

/// Which kind of function a [`Family`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum FamilyKind {
    /// [`MultiplyShift`]: `(a·x) >> (64 - m)`; the increments are all zero.
    MultiplyShift,
    /// [`MultiplyAddShift`]: `(a·x + b) >> (64 - m)`. The default.
    #[default]
    MultiplyAddShift,
}

/// `N` multiply-shift functions drawn from one seed.
///
/// The functions are drawn from `Xoshiro256PlusPlus::seed_from_u64(seed)`: for each function in
/// order, the multiplier (`next_u64() | 1`) and then, for [`FamilyKind::MultiplyAddShift`], the
/// increment (`next_u64()`). The same `(kind, n, bits, seed)` therefore always gives the same
/// functions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    kind: FamilyKind,
    shift: u32,
    multipliers: Vec<u64>,
    increments: Vec<u64>,
}

impl Family {
    /// Draws `n` functions of the given kind with `bits` output bits from `seed`.
    pub fn new(kind: FamilyKind, n: usize, bits: u32, seed: u64) -> Result<Family, HashError> {
        let shift = shift_for(bits)?;
        if n == 0 {
            return Err(HashError::EmptyFamily);
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut multipliers = Vec::with_capacity(n);
        let mut increments = Vec::with_capacity(n);
        for _ in 0..n {
            multipliers.push(rng.next_u64() | 1);
            increments.push(match kind {
                FamilyKind::MultiplyShift => 0,
                FamilyKind::MultiplyAddShift => rng.next_u64(),
            });
        }
        Ok(Family {
            kind,
            shift,
            multipliers,
            increments,
        })
    }

    /// The kind of the functions.
    pub fn kind(&self) -> FamilyKind {
        self.kind
    }

    /// The number of functions `N`.
    pub fn len(&self) -> usize {
        self.multipliers.len()
    }

    /// Always false: a family has at least one function.
    pub fn is_empty(&self) -> bool {
        self.multipliers.is_empty()
    }

    /// The number of output bits `m`.
    pub fn bits(&self) -> u32 {
        64 - self.shift
    }

    /// The right shift `64 - m` applied after the multiply-add.
    pub fn shift(&self) -> u32 {
        self.shift
    }

    /// The odd multipliers `a_i`, one per function.
    pub fn multipliers(&self) -> &[u64] {
        &self.multipliers
    }

    /// The increments `b_i`, one per function (all zero for [`FamilyKind::MultiplyShift`]).
    pub fn increments(&self) -> &[u64] {
        &self.increments
    }

    /// Function `i` as a [`MultiplyAddShift`] (with `b = 0` for plain multiply-shift).
    ///
    /// # Panics
    ///
    /// Panics if `i >= self.len()`.
    pub fn get(&self, i: usize) -> MultiplyAddShift {
        MultiplyAddShift {
            a: self.multipliers[i],
            b: self.increments[i],
            shift: self.shift,
        }
    }

    /// Hashes `x` with function `i`.
    ///
    /// # Panics
    ///
    /// Panics if `i >= self.len()`.
    #[inline]
    pub fn hash(&self, i: usize, x: u64) -> u64 {
        self.multipliers[i]
            .wrapping_mul(x)
            .wrapping_add(self.increments[i])
            >> self.shift
    }

    /// Hashes `x` with every function, writing `out[i] = h_i(x)`.
    ///
    /// # Panics
    ///
    /// Panics if `out.len() != self.len()`.
    #[inline]
    pub fn hash_all(&self, x: u64, out: &mut [u64]) {
        assert_eq!(
            out.len(),
            self.len(),
            "output length must equal family size"
        );
        let shift = self.shift;
        for ((o, &a), &b) in out.iter_mut().zip(&self.multipliers).zip(&self.increments) {
            *o = a.wrapping_mul(x).wrapping_add(b) >> shift;
        }
    }
}

/// SplitMix64's output function on a state, usable in `const` context.
const fn splitmix64(state: u64) -> u64 {
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A stable bijective 64-bit finalizer (SplitMix64's, applied to `x`).
///
/// Use it to turn structured values (counters, packed ids) into well-spread keys, or to combine
/// values: `mix64(a ^ mix64(b))`. It is a bijection, so distinct inputs never collide.
///
/// ```
/// use textreuse_hash::mix64;
/// assert_eq!(mix64(0), 0);
/// assert_eq!(mix64(1), 0x5692161d100b05e5);
/// ```
#[inline]
pub const fn mix64(x: u64) -> u64 {
    splitmix64(x)
}

/// Words per [`fingerprint`] block before chaining: strings of up to `FINGERPRINT_BLOCK - 1`
/// words (248 bytes) plus the length word are hashed with one strongly universal vector
/// multiply-shift.
pub const FINGERPRINT_BLOCK: usize = 32;

/// The fixed seed the fingerprint coefficients come from ("textreus" in ASCII).
const FINGERPRINT_SEED: u64 = 0x7465_7874_7265_7573;

/// Golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

const fn coefficients() -> [u128; BLOCK + 1] {
    let mut out = [0u128; BLOCK + 1];
    let mut state = FINGERPRINT_SEED;
    let mut i = 0;
    while i < BLOCK + 1 {
        state = state.wrapping_add(GAMMA);
        let hi = splitmix64(state);
        state = state.wrapping_add(GAMMA);
        let lo = splitmix64(state);
        out[i] = ((hi as u128) << 64) | lo as u128;
        i += 1;
    }
    out
}

/// The 128-bit coefficients `c_0, ..., c_32` of [`fingerprint`] and [`fingerprint_words`].
///
/// `c_0` is the additive constant and `c_i` multiplies word `i` of a block (from 1), the length
/// word included: a string of `w < FINGERPRINT_BLOCK` words `x_1..x_w` and byte (or word) length
/// `len` hashes to `((c_0 + c_1·x_1 + ... + c_w·x_w + c_{w+1}·len) mod 2^128) >> 64`. They are
/// drawn by SplitMix64 from a fixed seed and are part of the stable interface like the
/// fingerprints themselves. Exported for code that computes fingerprints its own way (the
/// fixed-width shingle windows of `textreuse-shingle`), so that the coefficients are defined only
/// here.
///
/// ```
/// use textreuse_hash::{FINGERPRINT_COEFFICIENTS as C, fingerprint};
/// // "ab" is one little-endian word, then the length word 2.
/// let x = u16::from_le_bytes(*b"ab") as u128;
/// let acc = C[0].wrapping_add(C[1].wrapping_mul(x)).wrapping_add(C[2].wrapping_mul(2));
/// assert_eq!(fingerprint(b"ab"), (acc >> 64) as u64);
/// ```
pub const FINGERPRINT_COEFFICIENTS: [u128; FINGERPRINT_BLOCK + 1] = coefficients();

// Short names for the hashing code below.
use crate::{FINGERPRINT_BLOCK as BLOCK, FINGERPRINT_COEFFICIENTS as COEFFS};

/// Vector multiply-shift over a stream of words, chaining every `BLOCK - 1` words.
#[derive(Clone, Copy)]
struct VectorMultiplyShift {
    acc: u128,
    next: usize,
}

impl VectorMultiplyShift {
    #[inline]
    fn new() -> Self {
        VectorMultiplyShift {
            acc: COEFFS[0],
            next: 1,
        }
    }

    #[inline]
    fn push(&mut self, w: u64) {
        if self.next == BLOCK + 1 {
            // Block full: its hash becomes the first word of the next block.
            let h = (self.acc >> 64) as u64;
            self.acc = COEFFS[0].wrapping_add(COEFFS[1].wrapping_mul(h as u128));
            self.next = 2;
        }
        self.acc = self
            .acc
            .wrapping_add(COEFFS[self.next].wrapping_mul(w as u128));
        self.next += 1;
    }

    #[inline]
    fn finish(mut self, len: u64) -> u64 {
        self.push(len);
        (self.acc >> 64) as u64
    }
}

/// The stable 64-bit fingerprint of a byte string.
///
/// The bytes are packed into little-endian `u64` words (the last one zero-padded), the byte length
/// is appended as a final word, and the words are hashed with vector multiply-shift:
/// `h(x) = ((c_0 + Σ c_i·x_i) mod 2^128) >> 64` with fixed 128-bit coefficients `c_i` derived by
/// SplitMix64 from a constant seed. Inputs longer than 31 words are chained: each full block's
/// hash becomes the first word of the next block.
///
/// The output is part of the crate's stable interface: it never changes between versions or
/// machines (it is pinned by known-answer tests), so fingerprints computed anywhere can be merged.
///
/// ```
/// use textreuse_hash::fingerprint;
/// assert_eq!(fingerprint(b"textreuse"), fingerprint("textreuse".as_bytes()));
/// assert_ne!(fingerprint(b"a"), fingerprint(b"a\0"));
/// ```
#[inline]
pub fn fingerprint(bytes: &[u8]) -> u64 {
    let mut h = VectorMultiplyShift::new();
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        h.push(u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h.push(u64::from_le_bytes(w));
    }
    h.finish(bytes.len() as u64)
}

/// The stable 64-bit fingerprint of a sequence of `u64` words.
///
/// Defined like [`fingerprint`] with the words taken as they are and the word count as the final
/// word. Useful to combine several values (say a band index and `K` minhashes) into one key.
///
/// ```
/// use textreuse_hash::fingerprint_words;
/// assert_ne!(fingerprint_words(&[1, 2]), fingerprint_words(&[2, 1]));
/// ```
#[inline]
pub fn fingerprint_words(words: &[u64]) -> u64 {
    if words.len() < BLOCK {
        // One block (the words and the length word), no chaining: a straight multiply-add
        // loop without the per-word block bookkeeping of `VectorMultiplyShift` (band keys of
        // MinHash hash K + 2 words per band this way).
        let mut acc = COEFFS[0];
        for (c, &w) in COEFFS[1..].iter().zip(words) {
            acc = acc.wrapping_add(c.wrapping_mul(w as u128));
        }
        acc = acc.wrapping_add(COEFFS[words.len() + 1].wrapping_mul(words.len() as u128));
        return (acc >> 64) as u64;
    }
    fingerprint_words_streamed(words)
}

/// [`fingerprint_words`] through the general, chaining hasher.
fn fingerprint_words_streamed(words: &[u64]) -> u64 {
    let mut h = VectorMultiplyShift::new();
    for &w in words {
        h.push(w);
    }
    h.finish(words.len() as u64)
}

#[cfg(test)]
mod tests;
