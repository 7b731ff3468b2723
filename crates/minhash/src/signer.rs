//! The [`Signer`], its builder, [`Signature`] and band keys.
use std::fmt;
use std::iter::FusedIterator;

use rand_xoshiro::rand_core::{Rng, SeedableRng};
use textreuse_hash::{Family, FamilyKind, Xoshiro256PlusPlus, fingerprint_words, mix64};

use crate::kernel::{self, Isa, LANES};
use crate::math::Curve;
use crate::oph::Oph;
use crate::{BuildError, SignError};

/// How the `M` signatures (bands) of `K` minhashes are formed from the `N` hash functions.
///
/// With the `serde` feature it is (de)serialized as its name ([`BandScheme::as_str`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
#[non_exhaustive]
pub enum BandScheme {
    /// The seed research's scheme: each band is a `K`-subset of the `N` functions, drawn once from
    /// the seed, so bands may share functions (`N` may be smaller than `K·M`). The exact match
    /// probability is computed by inclusion-exclusion over the drawn subsets.
    #[default]
    Drawn,
    /// Classic banding: band `m` uses functions `m·K .. (m+1)·K`, so `N = K·M` and the match
    /// probability is `1 - (1 - s^K)^M`.
    Disjoint,
    /// One-permutation hashing with optimal densification: one hash per shingle spreads the
    /// shingles over `N = K·M` bins, each bin keeps its minimum, empty bins borrow from a
    /// non-empty one, and band `m` is bins `m·K .. (m+1)·K`. About the cost of one hash per
    /// shingle for any `N`; each bin agrees with probability `s` like a minhash, and the band
    /// curve is [`Signer::match_probability`] (for large sets `1 - (1 - s^K)^M`).
    Oph,
}

impl BandScheme {
    /// Its name: `drawn`, `disjoint` or `oph` (as on the command line and in `stats.json`).
    pub fn as_str(self) -> &'static str {
        match self {
            BandScheme::Drawn => "drawn",
            BandScheme::Disjoint => "disjoint",
            BandScheme::Oph => "oph",
        }
    }
}

impl std::str::FromStr for BandScheme {
    type Err = String;

    /// Parses a name of [`BandScheme::as_str`]; the error says which names exist.
    fn from_str(s: &str) -> Result<BandScheme, String> {
        match s {
            "drawn" => Ok(BandScheme::Drawn),
            "disjoint" => Ok(BandScheme::Disjoint),
            "oph" => Ok(BandScheme::Oph),
            other => Err(format!(
                "unknown band scheme {other:?} (use drawn, disjoint or oph)"
            )),
        }
    }
}

impl fmt::Display for BandScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Largest `N` for the [`BandScheme::Drawn`] scheme (band subsets are bit masks).
pub const MAX_DRAWN_HASHES: usize = 128;
/// Largest `M` for the [`BandScheme::Drawn`] scheme (the exact curve enumerates `2^M` subsets).
pub const MAX_DRAWN_BANDS: usize = 20;
/// Largest `N = K·M` (bins) for the [`BandScheme::Oph`] scheme.
pub const MAX_OPH_BINS: usize = crate::oph::MAX_BINS;
/// Largest `N = K·M` for the [`BandScheme::Disjoint`] scheme. Every signature holds `N`
/// minhashes and signing evaluates `N` functions per shingle, so a larger `N` only costs memory
/// and time (the planner's default budget is 512; `K = 1` with 4096 bands already finds pairs
/// at Jaccard 0.01 half the time).
pub const MAX_DISJOINT_HASHES: usize = 4096;

/// The default number of hash functions `N` of drawn bands (the seed research's 20).
pub const DEFAULT_HASHES: usize = 20;
/// The default output bits of each hash function.
pub const DEFAULT_BITS: u32 = 60;
/// The default rows `K` per band (of the default, Weissman preset).
pub const DEFAULT_ROWS: usize = 10;
/// The default number of bands `M` (of the default, Weissman preset).
pub const DEFAULT_BANDS: usize = 10;
/// Rows `K` of the OPH preset ([`SignerConfig::oph`]).
pub const DEFAULT_OPH_ROWS: usize = 11;
/// Bands `M` of the OPH preset ([`SignerConfig::oph`]).
pub const DEFAULT_OPH_BANDS: usize = 13;
/// Rows `K` of the chunk preset ([`SignerConfig::chunks`]).
pub const DEFAULT_CHUNK_ROWS: usize = 2;
/// Bands `M` of the chunk preset ([`SignerConfig::chunks`]).
pub const DEFAULT_CHUNK_BANDS: usize = 30;
/// The default seed of the hash functions and the drawn bands.
pub const DEFAULT_SEED: u64 = 1123456;

/// Words of the stack buffer band keys are hashed from: `K + 1` for bands of up to 31 functions.
const KEY_WORDS: usize = 32;

/// Domain separator so band subsets are drawn from a different stream than the hash functions.
const BAND_DRAW_DOMAIN: u64 = 0x6261_6e64_7375_6273; // "bandsubs"

/// The MinHash parameters of a [`Signer`] as a plain value: the [`BandScheme`], `N`
/// ([`hashes`](SignerConfig::hashes)), output [`bits`](SignerConfig::bits), `K`
/// ([`rows`](SignerConfig::rows)), `M` ([`bands`](SignerConfig::bands)) and the
/// [`seed`](SignerConfig::seed).
///
/// Builders that sign something (the chunk indexes, the reuse job, the persistent index's
/// parameters) take one whole instead of declaring their own rows, bands and seed setters, so
/// each default is defined once, here. The presets are associated functions:
/// [`SignerConfig::weissman`] (the default), [`SignerConfig::oph`], [`SignerConfig::for_unit`],
/// [`SignerConfig::preset`] and [`SignerConfig::chunks`]. [`SignerConfig::build`] checks the
/// parameters and makes the signer; [`Signer::config`] gives them back.
///
/// ```
/// use textreuse_minhash::{BandScheme, SignerConfig};
///
/// let config = SignerConfig { scheme: BandScheme::Disjoint, rows: 5, bands: 20, ..SignerConfig::default() };
/// let signer = config.build()?;
/// assert_eq!(signer.hashes(), 100); // N = K·M for disjoint bands
/// assert_eq!(signer.config().build()?.config(), signer.config());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SignerConfig {
    /// How bands are formed (default [`BandScheme::Drawn`]).
    pub scheme: BandScheme,
    /// The number of hash functions `N` (bins for [`BandScheme::Oph`]); `None` for the default:
    /// [`DEFAULT_HASHES`] for [`BandScheme::Drawn`], `K·M` for [`BandScheme::Disjoint`] and
    /// [`BandScheme::Oph`] (where any other value is an error).
    pub hashes: Option<usize>,
    /// Rows `K`: minhashes per band signature (default [`DEFAULT_ROWS`]).
    pub rows: usize,
    /// Bands `M`: signatures (band keys) per item (default [`DEFAULT_BANDS`]).
    pub bands: usize,
    /// Output bits of each hash function, 1 to 64 (default [`DEFAULT_BITS`]).
    pub bits: u32,
    /// The seed all random choices come from (default [`DEFAULT_SEED`]).
    pub seed: u64,
}

impl Default for SignerConfig {
    fn default() -> Self {
        SignerConfig::weissman()
    }
}

impl SignerConfig {
    /// The Weissman preset, the default: the seed research's `N = 20` functions of 60 bits,
    /// `K = 10`, `M = 10`, drawn bands, seed 1123456. Cheap, and the configuration the
    /// Wikipedia results were produced with, but its bands share functions: pairs at Jaccard 0.9
    /// share a band key with probability 0.83, not 0.99.
    pub const fn weissman() -> SignerConfig {
        SignerConfig {
            scheme: BandScheme::Drawn,
            hashes: None,
            rows: DEFAULT_ROWS,
            bands: DEFAULT_BANDS,
            bits: DEFAULT_BITS,
            seed: DEFAULT_SEED,
        }
    }

    /// The OPH preset: [`BandScheme::Oph`] with `K = 11`, `M = 13` (143 bins), the cheapest
    /// configuration that finds 99% of pairs at Jaccard 0.9 while making at most 1% of pairs at
    /// 0.5 candidates, for sets of 75 shingles and more ([`plan`](crate::plan) of
    /// [`Target::new(0.9)`](crate::Target::new)). The default of `textreuse dedup` for
    /// paragraphs and documents.
    ///
    /// ```
    /// let oph = textreuse_minhash::SignerConfig::oph().build()?;
    /// assert!(oph.match_probability(142, 158) > 0.99); // 150 shingles each, J = 0.9
    /// assert!(oph.match_probability(100, 200) < 0.01); // J = 0.5
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn oph() -> SignerConfig {
        SignerConfig {
            scheme: BandScheme::Oph,
            rows: DEFAULT_OPH_ROWS,
            bands: DEFAULT_OPH_BANDS,
            ..SignerConfig::weissman()
        }
    }

    /// The chunk preset of the plagiarism checker's chunk indexes and the reuse job:
    /// [`BandScheme::Disjoint`] with `K =` [`DEFAULT_CHUNK_ROWS`] (2), `M =`
    /// [`DEFAULT_CHUNK_BANDS`] (30), so 60 hash functions, seed 1123456. Word 2-gram Jaccard of
    /// obfuscated reuse is often only 0.1 to 0.3; these bands find a pair of paragraphs at 0.1
    /// with probability about 0.25, at 0.2 about 0.7 and at 0.3 about 0.93.
    ///
    /// ```
    /// let chunks = textreuse_minhash::SignerConfig::chunks().build()?;
    /// assert_eq!((chunks.rows(), chunks.bands(), chunks.hashes()), (2, 30, 60));
    /// assert!(chunks.exact_match_probability(0.3) > 0.9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn chunks() -> SignerConfig {
        SignerConfig {
            scheme: BandScheme::Disjoint,
            rows: DEFAULT_CHUNK_ROWS,
            bands: DEFAULT_CHUNK_BANDS,
            ..SignerConfig::weissman()
        }
    }

    /// The default preset of a text unit: for sentences the Weissman preset
    /// ([`SignerConfig::weissman`]), for paragraphs and documents the OPH preset
    /// ([`SignerConfig::oph`]: one hash per shingle into 143 bins, 99% recall at Jaccard 0.9
    /// where the Weissman preset has 83%).
    ///
    /// ```
    /// use textreuse_minhash::{BandScheme, SignerConfig};
    /// use textreuse_shingle::units::Unit;
    ///
    /// assert_eq!(SignerConfig::for_unit(Unit::Sentence).scheme, BandScheme::Drawn);
    /// assert_eq!(SignerConfig::for_unit(Unit::Document).scheme, BandScheme::Oph);
    /// ```
    pub fn for_unit(unit: textreuse_shingle::units::Unit) -> SignerConfig {
        use textreuse_shingle::units::Unit;
        match unit {
            Unit::Sentence => SignerConfig::weissman(),
            // Paragraphs, documents, and any longer unit to come.
            _ => SignerConfig::oph(),
        }
    }

    /// The preset of a scheme: [`SignerConfig::weissman`] for drawn bands,
    /// [`SignerConfig::oph`] for OPH, and for disjoint bands `K = 10`, `M = 10` (`N = 100`).
    pub const fn preset(scheme: BandScheme) -> SignerConfig {
        match scheme {
            BandScheme::Drawn => SignerConfig::weissman(),
            BandScheme::Oph => SignerConfig::oph(),
            BandScheme::Disjoint => SignerConfig {
                scheme: BandScheme::Disjoint,
                ..SignerConfig::weissman()
            },
        }
    }

    /// Checks the parameters, draws the hash functions and band subsets, and precomputes the
    /// exact collision curve. Every size is checked before anything is allocated: at most
    /// [`MAX_DRAWN_HASHES`] functions and [`MAX_DRAWN_BANDS`] bands for drawn bands,
    /// [`MAX_DISJOINT_HASHES`] functions for disjoint bands and [`MAX_OPH_BINS`] bins for OPH;
    /// the [`BuildError`] names the parameter and the limit.
    pub fn build(&self) -> Result<Signer, BuildError> {
        let (k, m) = (self.rows, self.bands);
        if k == 0 {
            return Err(BuildError::ZeroRows);
        }
        if m == 0 {
            return Err(BuildError::ZeroBands);
        }
        let n = match self.scheme {
            BandScheme::Drawn => {
                let n = self.hashes.unwrap_or(DEFAULT_HASHES);
                if n > MAX_DRAWN_HASHES {
                    return Err(BuildError::TooManyHashes {
                        hashes: n,
                        max: MAX_DRAWN_HASHES,
                    });
                }
                if m > MAX_DRAWN_BANDS {
                    return Err(BuildError::TooManyBands {
                        bands: m,
                        max: MAX_DRAWN_BANDS,
                    });
                }
                if k > n {
                    return Err(BuildError::RowsExceedHashes { rows: k, hashes: n });
                }
                n
            }
            BandScheme::Disjoint | BandScheme::Oph => {
                // Checked before anything is allocated; a product that overflows is "too many".
                let want = k.saturating_mul(m);
                if self.scheme == BandScheme::Oph && want > MAX_OPH_BINS {
                    return Err(BuildError::TooManyBins {
                        bins: want,
                        max: MAX_OPH_BINS,
                    });
                }
                if self.scheme == BandScheme::Disjoint && want > MAX_DISJOINT_HASHES {
                    return Err(BuildError::TooManyDisjointHashes {
                        hashes: want,
                        max: MAX_DISJOINT_HASHES,
                    });
                }
                let n = self.hashes.unwrap_or(want);
                if n != want {
                    return Err(BuildError::DisjointMismatch {
                        hashes: n,
                        rows: k,
                        bands: m,
                    });
                }
                n
            }
        };
        let hasher = match self.scheme {
            BandScheme::Drawn | BandScheme::Disjoint => {
                let family = Family::new(FamilyKind::MultiplyAddShift, n, self.bits, self.seed)?;
                // Pad the function arrays to whole vector blocks; padded lanes are computed and
                // ignored.
                let padded = n.div_ceil(LANES) * LANES;
                let mut multipliers = family.multipliers().to_vec();
                let mut increments = family.increments().to_vec();
                multipliers.resize(padded, 1);
                increments.resize(padded, 0);
                Hasher::MinHash {
                    family,
                    multipliers,
                    increments,
                }
            }
            BandScheme::Oph => {
                if !(1..=64).contains(&self.bits) {
                    return Err(textreuse_hash::HashError::InvalidBits { bits: self.bits }.into());
                }
                Hasher::Oph(Oph::new(n, self.seed))
            }
        };
        let band_functions = match self.scheme {
            BandScheme::Drawn => draw_bands(n, k, m, self.seed),
            BandScheme::Disjoint | BandScheme::Oph => (0..n as u32).collect(),
        };
        let curve = Curve::new(self.scheme, n, k, m, &band_functions);
        Ok(Signer {
            hasher,
            hashes: n,
            bits: self.bits,
            rows: k,
            bands: m,
            seed: self.seed,
            scheme: self.scheme,
            band_functions,
            curve,
            isa: Isa::detect(),
        })
    }
}

/// Builds a [`Signer`]: a [`SignerConfig`] set field by field. The defaults are the seed
/// research's: `N = 20` hash functions with 60-bit outputs, `K = 10` rows, `M = 10` bands, seed
/// 1123456, [`BandScheme::Drawn`] ([`SignerConfig::weissman`]).
///
/// ```
/// use textreuse_minhash::{BandScheme, SignerBuilder};
///
/// let signer = SignerBuilder::new()
///     .scheme(BandScheme::Disjoint)
///     .rows(5)
///     .bands(20)
///     .build()?;
/// assert_eq!(signer.hashes(), 100); // N = K·M for disjoint bands
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct SignerBuilder {
    config: SignerConfig,
}

impl From<SignerConfig> for SignerBuilder {
    fn from(config: SignerConfig) -> Self {
        SignerBuilder::from_config(config)
    }
}

impl SignerBuilder {
    /// A builder with the research defaults ([`SignerConfig::default`]).
    pub fn new() -> SignerBuilder {
        SignerBuilder::from_config(SignerConfig::default())
    }

    /// A builder starting from `config`.
    pub fn from_config(config: SignerConfig) -> SignerBuilder {
        SignerBuilder { config }
    }

    /// The parameters set so far.
    pub fn config(&self) -> SignerConfig {
        self.config
    }

    /// The Weissman preset ([`SignerConfig::weissman`], the same as [`SignerBuilder::new`]).
    pub fn weissman() -> SignerBuilder {
        SignerBuilder::from_config(SignerConfig::weissman())
    }

    /// The OPH preset ([`SignerConfig::oph`]).
    ///
    /// ```
    /// let oph = textreuse_minhash::SignerBuilder::oph().build()?;
    /// assert!(oph.match_probability(142, 158) > 0.99); // 150 shingles each, J = 0.9
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn oph() -> SignerBuilder {
        SignerBuilder::from_config(SignerConfig::oph())
    }

    /// The default preset of a text unit ([`SignerConfig::for_unit`]).
    ///
    /// ```
    /// use textreuse_minhash::{BandScheme, SignerBuilder};
    /// use textreuse_shingle::units::Unit;
    ///
    /// assert_eq!(SignerBuilder::for_unit(Unit::Sentence).build()?.scheme(), BandScheme::Drawn);
    /// assert_eq!(SignerBuilder::for_unit(Unit::Document).build()?.scheme(), BandScheme::Oph);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn for_unit(unit: textreuse_shingle::units::Unit) -> SignerBuilder {
        SignerBuilder::from_config(SignerConfig::for_unit(unit))
    }

    /// The preset of a scheme ([`SignerConfig::preset`]).
    pub fn preset(scheme: BandScheme) -> SignerBuilder {
        SignerBuilder::from_config(SignerConfig::preset(scheme))
    }

    /// The number of hash functions `N` (bins for [`BandScheme::Oph`]). Default: 20 for
    /// [`BandScheme::Drawn`], `K·M` for [`BandScheme::Disjoint`] and [`BandScheme::Oph`] (where
    /// any other value is an error).
    pub fn hashes(&mut self, n: usize) -> &mut Self {
        self.config.hashes = Some(n);
        self
    }

    /// Output bits of each hash function, 1 to 64 (default 60).
    pub fn bits(&mut self, bits: u32) -> &mut Self {
        self.config.bits = bits;
        self
    }

    /// Rows `K`: minhashes per band signature (default 10).
    pub fn rows(&mut self, k: usize) -> &mut Self {
        self.config.rows = k;
        self
    }

    /// Bands `M`: signatures (band keys) per item (default 10).
    pub fn bands(&mut self, m: usize) -> &mut Self {
        self.config.bands = m;
        self
    }

    /// The seed all random choices come from (default 1123456).
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.config.seed = seed;
        self
    }

    /// How bands are formed (default [`BandScheme::Drawn`]).
    pub fn scheme(&mut self, scheme: BandScheme) -> &mut Self {
        self.config.scheme = scheme;
        self
    }

    /// Checks the parameters and builds the signer ([`SignerConfig::build`]).
    pub fn build(&self) -> Result<Signer, BuildError> {
        self.config.build()
    }
}

/// Draws `m` sorted `k`-subsets of `0..n` with a partial Fisher-Yates shuffle each.
fn draw_bands(n: usize, k: usize, m: usize, seed: u64) -> Vec<u32> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(mix64(seed ^ BAND_DRAW_DOMAIN));
    let mut out = Vec::with_capacity(k * m);
    let mut pool: Vec<u32> = Vec::with_capacity(n);
    for _ in 0..m {
        pool.clear();
        pool.extend(0..n as u32);
        for i in 0..k {
            let j = i + below(&mut rng, (n - i) as u64) as usize;
            pool.swap(i, j);
        }
        let start = out.len();
        out.extend_from_slice(&pool[..k]);
        out[start..].sort_unstable();
    }
    out
}

/// An unbiased draw from `0..bound` (Lemire's multiply-and-reject), defined here so the band
/// subsets never depend on another crate's sampling algorithm.
fn below(rng: &mut Xoshiro256PlusPlus, bound: u64) -> u64 {
    debug_assert!(bound > 0);
    let threshold = bound.wrapping_neg() % bound;
    loop {
        let m = (rng.next_u64() as u128) * (bound as u128);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

/// Computes MinHash signatures and band keys.
///
/// Build one with [`Signer::new`] (the research defaults) or [`SignerBuilder`]. A signer is
/// immutable and `Sync`: share one across threads.
///
/// ```
/// use textreuse_minhash::Signer;
///
/// let signer = Signer::new();
/// let a: Vec<u64> = (0..100).collect();
/// let b: Vec<u64> = (10..110).collect(); // Jaccard 90/110 = 0.82
/// let (sa, sb) = (signer.sign(a)?, signer.sign(b)?);
/// let estimate = sa.jaccard(&sb);
/// assert!((0.0..=1.0).contains(&estimate));
/// let keys: Vec<u64> = signer.band_keys(&sa).collect();
/// assert_eq!(keys.len(), 10);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Signer {
    hasher: Hasher,
    hashes: usize,
    bits: u32,
    rows: usize,
    bands: usize,
    seed: u64,
    scheme: BandScheme,
    /// `M` sorted runs of `K` function indices.
    band_functions: Vec<u32>,
    curve: Curve,
    isa: Isa,
}

/// Where the minhashes come from.
#[derive(Clone, Debug)]
enum Hasher {
    /// `N` multiply-add-shift functions, their coefficients padded to whole kernel blocks.
    MinHash {
        family: Family,
        multipliers: Vec<u64>,
        increments: Vec<u64>,
    },
    /// One hash and `N` bins.
    Oph(Oph),
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("hashes", &self.hashes())
            .field("bits", &self.bits())
            .field("rows", &self.rows)
            .field("bands", &self.bands)
            .field("seed", &self.seed)
            .field("scheme", &self.scheme)
            .finish_non_exhaustive()
    }
}

impl Default for Signer {
    fn default() -> Self {
        Signer::new()
    }
}

impl Signer {
    /// A signer with the research defaults (see [`SignerBuilder`]).
    pub fn new() -> Signer {
        SignerBuilder::new()
            .build()
            .expect("the default parameters are valid")
    }

    /// A builder with the research defaults.
    pub fn builder() -> SignerBuilder {
        SignerBuilder::new()
    }

    /// The number of hash functions `N` (bins for [`BandScheme::Oph`]): the length of a
    /// [`Signature`].
    pub fn hashes(&self) -> usize {
        self.hashes
    }

    /// Output bits of each minhash.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Rows `K` per band.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Bands `M`.
    pub fn bands(&self) -> usize {
        self.bands
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The band scheme.
    pub fn scheme(&self) -> BandScheme {
        self.scheme
    }

    /// The parameters of this signer, with `N` given explicitly
    /// ([`SignerConfig::hashes`] is `Some(self.hashes())`): building them gives an equal signer.
    pub fn config(&self) -> SignerConfig {
        SignerConfig {
            scheme: self.scheme,
            hashes: Some(self.hashes),
            rows: self.rows,
            bands: self.bands,
            bits: self.bits,
            seed: self.seed,
        }
    }

    /// The hash family the minhashes come from (`None` for [`BandScheme::Oph`], which hashes
    /// each shingle once with `mix64` and a key drawn from the seed).
    pub fn family(&self) -> Option<&Family> {
        match &self.hasher {
            Hasher::MinHash { family, .. } => Some(family),
            Hasher::Oph(_) => None,
        }
    }

    /// The sorted indices of the `K` hash functions of band `m`.
    ///
    /// # Panics
    ///
    /// Panics if `m >= self.bands()`.
    pub fn band(&self, m: usize) -> &[u32] {
        &self.band_functions[m * self.rows..(m + 1) * self.rows]
    }

    /// Signs a set of shingle fingerprints. Duplicates do not matter (MinHash sees a set).
    ///
    /// Returns [`SignError::Empty`] for an empty set: an empty set has no minimum, and a
    /// sentinel signature would make all empty items match each other.
    pub fn sign<I: IntoIterator<Item = u64>>(&self, shingles: I) -> Result<Signature, SignError> {
        let shingles: Vec<u64> = shingles.into_iter().collect();
        let mut mins = vec![0u64; self.hashes()];
        self.sign_into(&shingles, &mut mins)?;
        Ok(Signature {
            mins: mins.into_boxed_slice(),
        })
    }

    /// Signs `shingles` into `out` without allocating: `out[i]` becomes the minimum of hash
    /// function `i` over the shingles.
    ///
    /// Returns [`SignError::Empty`] for no shingles and [`SignError::BufferLength`] if
    /// `out.len() != self.hashes()`; `out` is unspecified after an error.
    #[inline]
    pub fn sign_into(&self, shingles: &[u64], out: &mut [u64]) -> Result<(), SignError> {
        if shingles.is_empty() {
            return Err(SignError::Empty);
        }
        if out.len() != self.hashes() {
            return Err(SignError::BufferLength {
                expected: self.hashes(),
                got: out.len(),
            });
        }
        match &self.hasher {
            Hasher::MinHash {
                family,
                multipliers,
                increments,
            } => kernel::min_hashes(
                self.isa,
                multipliers,
                increments,
                shingles,
                family.shift(),
                out,
            ),
            Hasher::Oph(oph) => oph.sign(self.isa, shingles, 64 - self.bits, out),
        }
        Ok(())
    }

    /// The `M` band keys of a signature, in band order (see [`Signer::band_key`]).
    ///
    /// # Panics
    ///
    /// Panics if the signature has a different length than [`Signer::hashes`].
    pub fn band_keys<'a>(&'a self, signature: &'a Signature) -> BandKeys<'a> {
        self.band_keys_of(&signature.mins)
    }

    /// The band keys of raw minhashes as filled in by [`Signer::sign_into`].
    ///
    /// # Panics
    ///
    /// Panics if `mins.len() != self.hashes()`.
    pub fn band_keys_of<'a>(&'a self, mins: &'a [u64]) -> BandKeys<'a> {
        assert_eq!(
            mins.len(),
            self.hashes(),
            "signature length must equal the signer's number of hash functions"
        );
        BandKeys {
            signer: self,
            mins,
            next: 0,
        }
    }

    /// The stable key of band `m`: [`fingerprint_words`] over `[m, mins[S_m[0]], ...,
    /// mins[S_m[K-1]]]` where `S_m` is [`Signer::band`]`(m)`. Two items share the key exactly when
    /// their minhashes agree on all `K` functions of the band (up to 64-bit collisions). The band
    /// index is mixed in so that equal values in different bands give different keys.
    ///
    /// # Panics
    ///
    /// Panics if `m >= self.bands()` or `mins.len() != self.hashes()`.
    pub fn band_key(&self, mins: &[u64], m: usize) -> u64 {
        assert_eq!(mins.len(), self.hashes());
        self.key(mins, m, &mut [0; KEY_WORDS])
    }

    /// Writes the `M` band keys of `mins` into `out` (no allocation for `K < 32`).
    ///
    /// # Panics
    ///
    /// Panics if `out.len() != self.bands()` or `mins.len() != self.hashes()`.
    pub fn band_keys_into(&self, mins: &[u64], out: &mut [u64]) {
        assert_eq!(out.len(), self.bands());
        assert_eq!(mins.len(), self.hashes());
        let mut words = [0; KEY_WORDS];
        for (m, o) in out.iter_mut().enumerate() {
            *o = self.key(mins, m, &mut words);
        }
    }

    /// [`Signer::band_key`] with the hashed words gathered in `words` (a small buffer, so that
    /// no call clears more memory than the key needs; larger bands allocate).
    #[inline]
    fn key(&self, mins: &[u64], m: usize, words: &mut [u64; KEY_WORDS]) -> u64 {
        let band = self.band(m);
        match words.get_mut(..=band.len()) {
            Some(words) => {
                words[0] = m as u64;
                for (w, &f) in words[1..].iter_mut().zip(band) {
                    *w = mins[f as usize];
                }
                fingerprint_words(words)
            }
            None => {
                let mut words = Vec::with_capacity(band.len() + 1);
                words.push(m as u64);
                words.extend(band.iter().map(|&f| mins[f as usize]));
                fingerprint_words(&words)
            }
        }
    }

    /// The exact probability that two sets of Jaccard similarity `s` share at least one band key,
    /// assuming each hash function is min-wise independent and the functions are independent.
    ///
    /// For [`BandScheme::Disjoint`] this is `1 - (1 - s^K)^M`. For [`BandScheme::Drawn`] it is
    /// the inclusion-exclusion sum over the drawn band subsets `S_1..S_M`:
    /// `Σ_{∅≠T⊆{1..M}} (-1)^{|T|+1} s^{|∪_{m∈T} S_m|}` (precomputed as a polynomial in `s`).
    /// For [`BandScheme::Oph`] the curve depends on the set sizes
    /// ([`Signer::match_probability`]); this is its limit for large sets, `1 - (1 - s^K)^M`.
    pub fn exact_match_probability(&self, s: f64) -> f64 {
        self.curve.exact(s)
    }

    /// The exact probability that two sets with `shared` elements in common and `union`
    /// elements in all share at least one band key, for random hash functions.
    ///
    /// For [`BandScheme::Drawn`] and [`BandScheme::Disjoint`] this depends only on the Jaccard
    /// similarity `shared / union` and equals [`Signer::exact_match_probability`]. For
    /// [`BandScheme::Oph`] it depends on the sizes too: sets with fewer elements than bins leave
    /// bins empty, and the borrowed values make bins agree together. The value is exact on
    /// average over seeds (each seed fixes one order of borrowing; the tests measure how close
    /// one seed stays). With many bands at high similarity, where the exact series would lose
    /// precision, it is a proven lower bound instead (see [`Signer::match_probability_bound`]).
    ///
    /// ```
    /// use textreuse_minhash::{BandScheme, SignerBuilder};
    ///
    /// let oph = SignerBuilder::new().scheme(BandScheme::Oph).rows(11).bands(13).build()?;
    /// // Two sentences of 150 shingles with Jaccard 0.9 share 142 of 158 shingles.
    /// let p = oph.match_probability(142, 158);
    /// assert!(p > 0.99 && p < 1.0);
    /// // Large sets follow 1 - (1 - s^K)^M.
    /// let large = oph.match_probability(900_000, 1_000_000);
    /// assert!((large - oph.exact_match_probability(0.9)).abs() < 1e-3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Panics
    ///
    /// Panics if `shared > union` or `union == 0`.
    pub fn match_probability(&self, shared: usize, union: usize) -> f64 {
        assert!(
            union > 0 && shared <= union,
            "need 0 <= shared <= union, union > 0"
        );
        self.match_probability_bound(shared, union).0
    }

    /// [`Signer::match_probability`] and whether it is exact (`true`) or a lower bound
    /// (`false`: [`BandScheme::Oph`] with many bands at high similarity, where the
    /// inclusion-exclusion series would lose precision and a shorter, precise series bounds part
    /// of it).
    ///
    /// # Panics
    ///
    /// Panics if `shared > union` or `union == 0`.
    pub fn match_probability_bound(&self, shared: usize, union: usize) -> (f64, bool) {
        assert!(
            union > 0 && shared <= union,
            "need 0 <= shared <= union, union > 0"
        );
        match self.scheme {
            BandScheme::Oph => {
                crate::oph::sized_match_probability(shared, union, self.rows, self.bands)
            }
            _ => (
                self.exact_match_probability(shared as f64 / union as f64),
                true,
            ),
        }
    }

    /// The approximation that treats the `M` bands as independent: `1 - (1 - s^K)^M`. Exact for
    /// [`BandScheme::Disjoint`]; an overestimate for drawn bands that share functions.
    pub fn independent_approximation(&self, s: f64) -> f64 {
        crate::math::independent(s, self.rows, self.bands)
    }

    /// The usual estimate of where the S-curve rises, `(1/M)^(1/K)`: the similarity at which
    /// the bands' match probability is about one half (dedup's `--verify` uses it when no
    /// threshold is given).
    ///
    /// ```
    /// let signer = textreuse_minhash::Signer::new(); // K = 10, M = 10
    /// assert!((signer.threshold_estimate() - 0.794).abs() < 1e-3);
    /// ```
    pub fn threshold_estimate(&self) -> f64 {
        (1.0 / self.bands as f64).powf(1.0 / self.rows as f64)
    }
}

/// The `N` minhashes of one set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    mins: Box<[u64]>,
}

impl Signature {
    /// Wraps minhashes filled in by [`Signer::sign_into`].
    pub fn from_mins(mins: Vec<u64>) -> Signature {
        Signature {
            mins: mins.into_boxed_slice(),
        }
    }

    /// The minhashes, one per hash function.
    pub fn as_slice(&self) -> &[u64] {
        &self.mins
    }

    /// The number of minhashes `N`.
    pub fn len(&self) -> usize {
        self.mins.len()
    }

    /// Always false for signatures made by a [`Signer`].
    pub fn is_empty(&self) -> bool {
        self.mins.is_empty()
    }

    /// Estimates the Jaccard similarity of the two signed sets: the fraction of hash functions
    /// whose minhashes agree. Its standard deviation is about `sqrt(s(1-s)/N)`.
    ///
    /// # Panics
    ///
    /// Panics if the signatures have different lengths (they came from different signers, and
    /// comparing them is meaningless).
    pub fn jaccard(&self, other: &Signature) -> f64 {
        assert_eq!(
            self.mins.len(),
            other.mins.len(),
            "signatures from different signers cannot be compared"
        );
        if self.mins.is_empty() {
            return 0.0;
        }
        let equal = self
            .mins
            .iter()
            .zip(other.mins.iter())
            .filter(|(a, b)| a == b)
            .count();
        equal as f64 / self.mins.len() as f64
    }
}

/// The band keys of one signature, from [`Signer::band_keys`].
#[derive(Clone, Debug)]
pub struct BandKeys<'a> {
    signer: &'a Signer,
    mins: &'a [u64],
    next: usize,
}

impl Iterator for BandKeys<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.next >= self.signer.bands {
            return None;
        }
        let key = self.signer.band_key(self.mins, self.next);
        self.next += 1;
        Some(key)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.signer.bands - self.next.min(self.signer.bands);
        (left, Some(left))
    }
}

impl ExactSizeIterator for BandKeys<'_> {}
impl FusedIterator for BandKeys<'_> {}
