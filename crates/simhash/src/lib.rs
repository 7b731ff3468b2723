//! Random-projection (SimHash) signatures, weighted paragraph fingerprints and Hamming-distance
//! search.
//!
//! This crate is the random-projection family of the toolkit: a vector (dense, or sparse weighted
//! features such as word fingerprints) becomes a short bit signature whose Hamming distance
//! estimates the angle between vectors, and similar items are then found by searching for pairs
//! of signatures within `k` bits.
//!
//! ```
//! use textreuse_hash::fingerprint;
//! use textreuse_simhash::{SimHasher, TableSearch, cosine_estimate};
//!
//! let sentences = [
//!     "the old mill stands beside the river below the village church",
//!     "the old mill stands beside the river below the village chapel",
//!     "an entirely unrelated sentence about railway timetables in winter",
//! ];
//! let hasher = SimHasher::new(); // 64-bit fingerprints, the default seed
//! let lists: Vec<Vec<u64>> = sentences
//!     .iter()
//!     .map(|s| s.split(' ').map(|w| fingerprint(w.as_bytes())).collect())
//!     .collect();
//! let fps = hasher.fingerprint_lists(&lists);
//!
//! // All pairs within 16 bits, exactly (the same as comparing every pair).
//! let pairs = TableSearch::new(16)?.pairs(&fps)?;
//! assert_eq!((pairs[0].a, pairs[0].b), (0, 1));
//! assert!(cosine_estimate(pairs[0].distance.into(), 64) > 0.6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`Hyperplanes`]: `D` stored Gaussian hyperplanes for dense vectors of a fixed dimension,
//!   `D`-bit [`Signature`]s (the research used `D = 100`).
//! * [`SimHasher`]: sparse weighted features `(u64 hash, weight)` with *implicit* hyperplanes
//!   generated from `(seed, feature hash, bit)`, so no `V x D` matrix is ever stored (the seed
//!   research's dense `V x D` matrix ran out of memory on full Wikipedia). 64-bit fingerprints
//!   are the common case; any width up to 65536 bits is supported. Entries are `+-1`
//!   (Charikar's SimHash, [`Projection::Sign`], the default) or Gaussian
//!   ([`Projection::Gaussian`]). Batch entry points take a slice of per-sentence feature lists
//!   ([`SimHasher::fingerprint_lists`], [`SimHasher::fingerprint_weighted_lists`]) or Arrow-style
//!   flat buffers with offsets ([`SimHasher::signatures_flat`]).
//! * [`ParagraphFingerprinter`]: paragraph fingerprints from a paragraph's long sentences, by
//!   one of two [`ParagraphMethod`]s. [`ParagraphMethod::Wang`] is Wang, Liu and Jia's method
//!   as their paper defines it ([`ParagraphFingerprinter::wang`]: sentences of at least `k = 11`
//!   words, the `m = 9` longest per paragraph, weight `W_kw + W_len + W_po`, each sentence
//!   hashed to `b = 32` bits and folded into one `b`-bit fingerprint); a document is the
//!   [`FingerprintSet`] of its paragraphs, two documents are compared by the cosine
//!   [`set_similarity`] `S(M, N)`, and [`SetSearch`] finds every pair of documents with
//!   `S >= r` (or each query against a corpus) through an index of the fingerprints.
//!   [`ParagraphMethod::Weighted`] is this crate's earlier variant (the default, which `dedup
//!   --method simhash` uses); [`set_cosine`] is its fuzzy set comparison.
//! * Estimators: [`agreement_probability`] `1 - theta/pi`, [`cosine_estimate`]
//!   `cos(pi·h/D)`, [`angle_estimate`], [`hamming_for_cosine`].
//! * Search for all pairs within `k` bits, each reported as a [`HammingPair`] `(a < b,
//!   distance)`, sorted: [`TableSearch`] is exact (Manku, Jain and Das Sarma's permuted sorted
//!   tables), [`WindowSearch`] is approximate (Ture, Elsayed and Lin's sliding window over `Q`
//!   random bit permutations), [`brute_force_pairs`] is the quadratic baseline and [`recall`]
//!   measures one against another.
//! * [`Normals`]: the standard normal generator behind the Gaussian entries, defined by this
//!   crate's code (polar Box-Muller with its own logarithm), so hyperplanes are bit-identical on
//!   every machine.
//!
//! Everything random comes from one `u64` seed (default 1123456, the research's) through
//! `rand_xoshiro` and `textreuse_hash::mix64`; fingerprints for a fixed seed are pinned by
//! known-answer tests and never change between versions.
//!
//! # Accuracy
//!
//! With Gaussian hyperplanes one signature bit of two vectors at angle `theta` agrees with
//! probability exactly `1 - theta/pi`, independently across bits, so the Hamming distance is
//! `Binomial(D, theta/pi)`: `pi·h/D` estimates `theta` without bias, and `cos(pi·h/D)` estimates
//! the cosine with a bias below `pi²/(8D)` and a standard deviation of about
//! `pi·sin(theta)·sqrt(p(1-p)/D)`, `p = theta/pi`. The tests check both within 4.5 standard
//! deviations. With `+-1` entries ([`Projection::Sign`]) the agreement probability is exact only
//! in the limit of many features of comparable weight; the tests measure the gap.
//!
//! [`TableSearch`] returns exactly the pairs brute force returns (property-tested on random and
//! on clustered fingerprints). [`WindowSearch`] misses pairs; its recall depends on the data and
//! on `Q` and `B`, and is measured in the tests.
//!
//! # Performance
//!
//! [`SimHasher`] with [`Projection::Sign`] costs one 64-bit mix and 64 additions per feature
//! per 64 bits; [`Projection::Gaussian`] draws 64 normal variates instead (tens of times slower).
//! [`TableSearch`] sorts `C(m, k)` tables of `n` entries (for `k = 3` and a million
//! fingerprints it picks a handful of tables) and compares only fingerprints that share a table
//! prefix; [`WindowSearch`] sorts `Q` permuted copies and does `Q·B·n` comparisons. Measured
//! numbers are in `docs/performance.md` of the repository.
//!
//! # Crate features
//!
//! None; the crate needs `std`.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

mod dense;
mod estimate;
mod gaussian;
mod paragraph;
mod search;
mod sets;
mod sparse;
mod wang;

pub use dense::{Hyperplanes, Signature, hamming_words};
pub use estimate::{
    agreement_from_cosine, agreement_probability, angle_estimate, cosine_estimate,
    hamming_for_cosine,
};
pub use gaussian::Normals;
pub use paragraph::{
    Fallback, ParagraphFingerprint, ParagraphFingerprinter, ParagraphFingerprinterBuilder,
    ParagraphMethod, ParagraphScratch, ParagraphSplit, set_cosine,
};
pub use search::{
    BitPermutation, HammingPair, MAX_PERMUTATIONS, Table, TablePlan, TableSearch,
    TableSearchBuilder, WindowSearch, WindowSearchBuilder, brute_force_pairs, recall,
};
pub use sets::{
    DEFAULT_SET_THRESHOLD, FingerprintSet, SetPair, SetSearch, SetSearchBuilder, set_similarity,
    set_similarity_within,
};
pub use sparse::{Projection, SimHasher, SimHasherBuilder};

/// The default seed of every random choice (the seed research's).
pub const DEFAULT_SEED: u64 = 1123456;

/// The research's width of dense random-projection signatures (Meng and Zheng report 60 and
/// 100 bits; [`Hyperplanes::with_dim`]).
pub const DEFAULT_DENSE_BITS: u32 = 100;

/// The default number of bit permutations `Q` of a [`WindowSearch`] (the seed replication's).
pub const DEFAULT_PERMUTATIONS: u32 = 10;

/// The default window `B` of a [`WindowSearch`]: each signature is compared with the next `B`
/// in each sorted order.
pub const DEFAULT_WINDOW: u32 = 10;

/// The default Hamming threshold `T` of a [`WindowSearch`].
pub const DEFAULT_WINDOW_MAX_HAMMING: u32 = 5;

/// The widest signature supported, in bits.
pub const MAX_BITS: u32 = 1 << 16;

/// `ceil(bits / 64)`.
#[inline]
pub(crate) fn words_for(bits: u32) -> usize {
    (bits as usize).div_ceil(64)
}

/// The error type of this crate. Every variant is a caller mistake in a parameter or in the
/// shape of the input; the message names it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimHashError {
    /// A signature width outside the supported range (1 to 65536 bits; 1 to 64 where a `u64`
    /// fingerprint is produced). Recover by choosing a width in range.
    #[error(
        "signature width must be 1 to 65536 bits (at most 64 for u64 fingerprints), got {bits}"
    )]
    InvalidBits {
        /// The width asked for.
        bits: u32,
    },
    /// Dense vectors need at least one dimension, and `dim · D` must not overflow `usize`.
    /// Recover by passing a dimension in range.
    #[error("vector dimension {dim} is out of range (at least 1, and dim · D must fit in usize)")]
    InvalidDimension {
        /// The dimension asked for.
        dim: usize,
    },
    /// An input or output slice has the wrong length (a vector that is not `dim` long, an output
    /// that is not `ceil(D/64)` words, a batch that is not a whole number of items, weights that
    /// do not match features). Recover by passing a slice of the expected length.
    #[error("slice length must be {expected}, got {got}")]
    LengthMismatch {
        /// The length expected (for a batch: the nearest whole number of items below).
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Offsets into a flat buffer decrease or run past its end. Recover by fixing the offsets
    /// from `index` on.
    #[error("offsets must be non-decreasing and within the buffer; offset {index} is not")]
    InvalidOffsets {
        /// The index of the first bad offset.
        index: usize,
    },
    /// A Hamming threshold beyond what the search supports (64 for [`TableSearch`]; 255 and the
    /// signature width for [`WindowSearch`]). Recover by lowering it.
    #[error(
        "Hamming threshold {max_hamming} is too large for this search (at most 64 bits for the \
         table search, the signature width for the window search)"
    )]
    InvalidThreshold {
        /// The threshold asked for.
        max_hamming: u32,
    },
    /// A [`TableSearch`] block count must satisfy `k < m <= 64` with at most 65536 tables
    /// `C(m, k)`. Recover by leaving the block count to its default.
    #[error("block count {blocks} is invalid for Hamming threshold {max_hamming}")]
    InvalidBlocks {
        /// The block count asked for.
        blocks: u32,
        /// The threshold `k`.
        max_hamming: u32,
    },
    /// A count parameter that must be positive (or at least 2) is not. Recover by raising it.
    #[error("parameter {name} is out of range: {value}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: u64,
    },
    /// A count parameter is above the limit the search supports (the limit bounds the time and
    /// memory one call can take). Recover by lowering it.
    #[error("parameter {name} is {value}, above the supported {max}")]
    AboveLimit {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: u64,
        /// The largest value supported.
        max: u64,
    },
    /// A weight parameter that must be finite and positive is not. Recover by fixing it.
    #[error("weight {name} must be finite and positive, got {value}")]
    InvalidWeight {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// An option that the chosen [`ParagraphMethod`] does not have (a fallback other than
    /// [`Fallback::Skip`] for the weighted method, a keyword length for Wang's). Recover by
    /// leaving the option unset or choosing the other method.
    #[error("option {option} does not apply to the {method} paragraph method")]
    NotForMethod {
        /// The option's name.
        option: &'static str,
        /// The method's name.
        method: &'static str,
    },
    /// A similarity threshold `r` outside `(0, 1]` (or NaN). Recover by choosing one in range.
    #[error("similarity threshold must be in (0, 1], got {threshold}")]
    InvalidSimilarityThreshold {
        /// The threshold given.
        threshold: f64,
    },
    /// Results carry `u32` indices, so at most `2^32` signatures can be searched at once.
    /// Recover by splitting the input (and searching across the parts) or by de-duplicating it
    /// first.
    #[error("at most 2^32 signatures can be searched at once, got {n}")]
    TooManySignatures {
        /// The number of signatures given.
        n: usize,
    },
}
