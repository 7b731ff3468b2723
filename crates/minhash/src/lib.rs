//! MinHash signatures, band keys and their exact collision math.
//!
//! A [`Signer`] turns a set of 64-bit shingle fingerprints into a [`Signature`] of `N` minhashes
//! (one per multiply-add-shift function from [`textreuse_hash::Family`]) and the signature into
//! `M` stable band keys, each covering `K` of the minhashes. Items that share a band key are
//! candidate near-duplicates; that is the whole locality-sensitive-hashing step of the dedup
//! pipeline.
//!
//! ```
//! use textreuse_minhash::Signer;
//!
//! // The seed research's parameters: N = 20 functions of 60 bits, K = 10, M = 10, drawn bands.
//! let signer = Signer::new();
//! let shingles_a: Vec<u64> = (0..150).map(textreuse_hash::mix64).collect();
//! let shingles_b: Vec<u64> = (5..155).map(textreuse_hash::mix64).collect(); // J = 145/155
//!
//! let a = signer.sign(shingles_a)?;
//! let b = signer.sign(shingles_b)?;
//! println!("estimated Jaccard {:.2}", a.jaccard(&b));
//!
//! let shared = signer
//!     .band_keys(&a)
//!     .zip(signer.band_keys(&b))
//!     .filter(|(x, y)| x == y)
//!     .count();
//! println!("{shared} of {} band keys shared", signer.bands());
//! // How likely is at least one shared key at J = 0.935?
//! let p = signer.exact_match_probability(145.0 / 155.0);
//! assert!(p > 0.5 && p <= signer.independent_approximation(145.0 / 155.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`SignerConfig`] is the parameters as a plain value (what other crates' builders take);
//!   [`SignerBuilder`] sets `N` ([`hashes`](SignerBuilder::hashes)), output
//!   [`bits`](SignerBuilder::bits), `K` ([`rows`](SignerBuilder::rows)), `M`
//!   ([`bands`](SignerBuilder::bands)), the [`seed`](SignerBuilder::seed) and the
//!   [`BandScheme`]: [`Drawn`](BandScheme::Drawn) (each band a random `K`-subset of the `N`
//!   functions, drawn once from the seed, as the seed research did),
//!   [`Disjoint`](BandScheme::Disjoint) (classic banding, `N = K·M`) or
//!   [`Oph`](BandScheme::Oph) (one-permutation hashing: one hash per shingle into `K·M` bins,
//!   empty bins densified). Presets: [`SignerConfig::weissman`] (the research's `N = 20`,
//!   `K = 10`, `M = 10` drawn bands, the default), [`SignerConfig::oph`] (143 bins, 99% of
//!   pairs at Jaccard 0.9 found) and [`SignerConfig::chunks`] (the chunk indexes' 30 disjoint
//!   bands of 2 rows).
//! * [`TextSigner`] signs *text* the one way every front end does (normalize, 12-character
//!   shingle fingerprints, sign, band keys); [`Signer::sign_text`] is its one-off form.
//! * [`Signer::sign`] allocates a [`Signature`]; [`Signer::sign_into`] fills a caller buffer.
//!   [`Signer::band_keys`] (an iterator) and [`Signer::band_keys_into`] give the band keys.
//! * [`Signer::exact_match_probability`] is the exact S-curve for the configured bands (for
//!   OPH, of large sets), [`Signer::match_probability`] the exact probability for given set
//!   sizes (which OPH's curve depends on), [`Signer::independent_approximation`] and
//!   [`independent`] the textbook `1 - (1 - s^K)^M`.
//! * [`plan`] picks the cheapest scheme and `(K, M)` whose exact curve meets a [`Target`]
//!   (recall at a threshold, candidate rate below it); [`tune`] minimizes datasketch's weighted
//!   error areas for a fixed scheme and `N`.
//! * [`affine`] and [`rensa`] reproduce other libraries' MinHash values bit for bit
//!   (datasketch's permutation schemes; rensa's token hash, R-MinHash and C-MinHash and their
//!   saved states), for the Python package's drop-in `textreuse.compat` modules.
//!
//! An empty shingle set cannot be signed: [`SignError::Empty`]. (A sentinel signature would make
//! every empty item match every other one.)
//!
//! # Accuracy
//!
//! For sets of Jaccard similarity `s`, one minhash agrees with probability `s` (if the hash
//! functions were min-wise independent; multiply-add-shift is only universal, so the crate's
//! tests *measure* the rate on sets with exactly controlled `s`), one band of `K` minhashes with
//! `s^K`, and at least one of the `M` bands with [`Signer::exact_match_probability`]. With drawn
//! bands the bands share functions and are not independent: for `N = 20, K = 10, M = 10` the
//! independent formula says 0.986 at `s = 0.9`, the exact curve about 0.8. The Jaccard estimate
//! [`Signature::jaccard`] has standard deviation `sqrt(s(1-s)/N)`.
//!
//! # Performance
//!
//! OPH signing costs one hash and one bin update per shingle plus the densification of empty
//! bins, whatever `N` (about 0.36 µs for 150 shingles into 143 bins). Multiply-add-shift signing
//! costs `N` multiply-add-min operations per shingle; duplicate shingles cost like any
//! other (the minimum over a multiset is the minimum over its set), so there is no need to sort
//! or deduplicate them first. The kernel keeps the running minima of up to 32 functions in
//! vector registers and streams the shingles through them. It exists as AVX-512 IFMA (the
//! exact 64-bit `a·x + b` from 52-bit multiply-adds), AVX-512DQ (`vpmullq`), AVX2 and portable
//! code, chosen once per [`Signer`]; all give identical results. [`Signer::sign_into`] and
//! [`Signer::band_keys_into`] do not allocate. With `N = 20` a sentence of 150 shingles takes
//! about 0.5-0.7 µs on a loaded Sapphire Rapids VM (`docs/performance.md`).
//!
//! # Crate features
//!
//! * `serde`: `Serialize` and `Deserialize` for [`BandScheme`] (as its name, `drawn`,
//!   `disjoint` or `oph`) and [`SignerConfig`].
//!
//! # Stability
//!
//! The hash functions, the drawn band subsets and the band keys depend only on the parameters and
//! the seed, through code in this crate and `textreuse-hash`; known-answer tests pin them, so
//! signatures and band keys computed on different machines and versions can be merged.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod affine;
mod kernel;
mod math;
mod oph;
pub mod rensa;
mod signer;
mod text;
pub mod weighted;

pub use math::{
    DEFAULT_CANDIDATE_RATE, DEFAULT_RECALL, MAX_SET_SIZE, Plan, Recommendation, Target,
    TuneOptions, cost_ns, independent, plan, sized_pair, tune,
};
pub use signer::{
    BandKeys, BandScheme, DEFAULT_BANDS, DEFAULT_BITS, DEFAULT_CHUNK_BANDS, DEFAULT_CHUNK_ROWS,
    DEFAULT_HASHES, DEFAULT_OPH_BANDS, DEFAULT_OPH_ROWS, DEFAULT_ROWS, DEFAULT_SEED,
    MAX_DISJOINT_HASHES, MAX_DRAWN_BANDS, MAX_DRAWN_HASHES, MAX_OPH_BINS, Signature, Signer,
    SignerBuilder, SignerConfig,
};
pub use text::TextSigner;

/// Errors from [`SignerConfig::build`] and [`tune`]: the parameters are inconsistent. Each
/// variant's message names the parameter to change.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// `K` was zero. Recover by asking for at least one row.
    #[error("rows (K) must be at least 1")]
    ZeroRows,
    /// `M` was zero. Recover by asking for at least one band.
    #[error("bands (M) must be at least 1")]
    ZeroBands,
    /// A drawn band cannot hold more distinct functions than exist. Recover by lowering `K` or
    /// raising `N`.
    #[error("rows (K = {rows}) cannot exceed the number of hash functions (N = {hashes})")]
    RowsExceedHashes {
        /// `K`.
        rows: usize,
        /// `N`.
        hashes: usize,
    },
    /// Disjoint and OPH bands need exactly `N = K·M` functions (bins). Recover by leaving
    /// `hashes` unset (it then defaults to `K·M`) or choosing `K` and `M` whose product is `N`.
    #[error(
        "disjoint and oph bands need hashes = rows * bands, got N = {hashes}, K = {rows}, M = {bands}"
    )]
    DisjointMismatch {
        /// `N` as given.
        hashes: usize,
        /// `K`.
        rows: usize,
        /// `M`.
        bands: usize,
    },
    /// The drawn scheme stores band subsets as 128-bit masks. Recover by using fewer functions or
    /// the disjoint scheme.
    #[error("the drawn band scheme supports at most {max} hash functions, got {hashes}")]
    TooManyHashes {
        /// `N` as given.
        hashes: usize,
        /// The limit.
        max: usize,
    },
    /// The exact curve of the drawn scheme enumerates all `2^M` subsets of bands. Recover by using
    /// fewer bands or the disjoint scheme.
    #[error("the drawn band scheme supports at most {max} bands, got {bands}")]
    TooManyBands {
        /// `M` as given.
        bands: usize,
        /// The limit.
        max: usize,
    },
    /// OPH bins are counted in 16 bits. Recover by using fewer rows or bands.
    #[error("the oph scheme supports at most {max} bins (rows * bands), got {bins}")]
    TooManyBins {
        /// `K·M` as given (`usize::MAX` when the product overflows).
        bins: usize,
        /// The limit.
        max: usize,
    },
    /// Disjoint bands need `N = K·M` functions, and every signature holds `N` minhashes: above
    /// [`MAX_DISJOINT_HASHES`] a signer would only cost memory and time. Recover by using fewer
    /// rows or bands.
    #[error(
        "the disjoint band scheme supports at most {max} hash functions (rows * bands; each \
         signature holds one minhash per function), got {hashes}"
    )]
    TooManyDisjointHashes {
        /// `K·M` as given (`usize::MAX` when the product overflows).
        hashes: usize,
        /// The limit.
        max: usize,
    },
    /// A probability or weight of a [`Target`] or [`TuneOptions`] is out of its range (or NaN).
    /// Recover by passing a value in the range the message gives.
    #[error("{name} must be {allowed}, got {value}")]
    OutOfRange {
        /// The field, as [`Target`] or [`TuneOptions`] names it.
        name: &'static str,
        /// The value given.
        value: f64,
        /// The range allowed.
        allowed: &'static str,
    },
    /// The planner evaluates the OPH curve at sets of `min_set` shingles and up to four times
    /// that; the exact curve tabulates `ln k!` up to the union of two such sets, so sizes above
    /// [`MAX_SET_SIZE`] are refused. Recover by a smaller `min_set` (sets that large follow the
    /// large-set curve `1 - (1 - s^K)^M` closely) or by planning without OPH.
    #[error(
        "sets of {min_set} shingles are above the {max} the oph curve is computed for; ask for \
         smaller sets (large ones follow the large-set curve)"
    )]
    SetTooLarge {
        /// The target's `min_set`.
        min_set: usize,
        /// The limit.
        max: usize,
    },
    /// The output width was not 1 to 64 bits.
    #[error(transparent)]
    Hash(#[from] textreuse_hash::HashError),
    /// No configuration [`plan`] considers meets the target. Recover by asking for less: a
    /// lower recall, a higher candidate rate, or a `below` further from the threshold.
    #[error(
        "no configuration finds pairs at J >= {threshold} with probability {recall} while \
         keeping pairs at J <= {below} below candidate rate {candidate_rate}; relax the target"
    )]
    Unreachable {
        /// The target's threshold.
        threshold: f64,
        /// The target's recall.
        recall: f64,
        /// The target's `below`.
        below: f64,
        /// The target's candidate rate.
        candidate_rate: f64,
    },
    /// A tuning threshold must lie strictly between 0 and 1.
    #[error("the similarity threshold must be strictly between 0 and 1, got {threshold}")]
    Threshold {
        /// The threshold given.
        threshold: f64,
    },
}

/// Errors from signing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignError {
    /// There were no shingles. An empty set has no minhash; skip the item (for text: it is
    /// shorter than one shingle) instead of giving it a signature that would match every other
    /// empty item.
    #[error("cannot sign an empty set of shingles")]
    Empty,
    /// The output buffer of [`Signer::sign_into`] has the wrong length. Recover by sizing it to
    /// [`Signer::hashes`].
    #[error("signature buffer has length {got}, the signer has {expected} hash functions")]
    BufferLength {
        /// [`Signer::hashes`].
        expected: usize,
        /// The buffer's length.
        got: usize,
    },
}

#[cfg(test)]
mod tests;
