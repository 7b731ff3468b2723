//! Collision math: S-curves for both band schemes and a parameter tuner.
use crate::{BandScheme, BuildError, SignerBuilder, SignerConfig};

/// `1 - (1 - s^K)^M`: the probability that at least one of `M` independent bands of `K` minhashes
/// matches for sets of Jaccard similarity `s`.
///
/// ```
/// let p = textreuse_minhash::independent(0.9, 10, 10);
/// assert!((p - 0.9863).abs() < 1e-4); // the paper's "99% chance of a match"
/// ```
pub fn independent(s: f64, rows: usize, bands: usize) -> f64 {
    let s = s.clamp(0.0, 1.0);
    // ln1p/exp_m1 keep precision when s^K is tiny.
    let band = s.powi(rows as i32);
    if band >= 1.0 {
        return 1.0;
    }
    -((bands as f64) * (-band).ln_1p()).exp_m1()
}

/// The exact match curve of a signer, as a polynomial in `s` for the drawn scheme.
#[derive(Clone, Debug)]
pub(crate) enum Curve {
    Disjoint {
        rows: usize,
        bands: usize,
    },
    /// `P(no band matches) = Σ_j coefficients[j] · s^j`.
    Drawn {
        coefficients: Vec<f64>,
    },
}

impl Curve {
    pub(crate) fn new(
        scheme: BandScheme,
        hashes: usize,
        rows: usize,
        bands: usize,
        band_functions: &[u32],
    ) -> Curve {
        match scheme {
            BandScheme::Disjoint | BandScheme::Oph => Curve::Disjoint { rows, bands },
            BandScheme::Drawn => Curve::Drawn {
                coefficients: no_match_polynomial(hashes, rows, bands, band_functions),
            },
        }
    }

    pub(crate) fn exact(&self, s: f64) -> f64 {
        let s = s.clamp(0.0, 1.0);
        match self {
            Curve::Disjoint { rows, bands } => independent(s, *rows, *bands),
            Curve::Drawn { coefficients } => {
                let mut none = 0.0;
                for &c in coefficients.iter().rev() {
                    none = none * s + c;
                }
                (1.0 - none).clamp(0.0, 1.0)
            }
        }
    }
}

/// Inclusion-exclusion: `P(no band matches) = Σ_{T⊆{1..M}} (-1)^{|T|} s^{|∪_{m∈T} S_m|}`
/// (the empty `T` contributes `s^0 = 1`), collected by the size of the union. The unions of all
/// `2^M` subsets are built incrementally, each from the subset without its lowest band.
fn no_match_polynomial(
    hashes: usize,
    rows: usize,
    bands: usize,
    band_functions: &[u32],
) -> Vec<f64> {
    debug_assert!(hashes <= 128);
    let masks: Vec<u128> = band_functions
        .chunks_exact(rows)
        .map(|band| band.iter().fold(0u128, |m, &f| m | (1u128 << f)))
        .collect();
    debug_assert_eq!(masks.len(), bands);
    let mut counts = vec![0i64; hashes + 1];
    let mut unions = vec![0u128; 1usize << bands];
    counts[0] = 1;
    for t in 1usize..(1 << bands) {
        let low = t.trailing_zeros() as usize;
        let u = unions[t & (t - 1)] | masks[low];
        unions[t] = u;
        let sign = if t.count_ones() % 2 == 1 { -1 } else { 1 };
        counts[u.count_ones() as usize] += sign;
    }
    counts.into_iter().map(|c| c as f64).collect()
}

/// What [`tune`] optimizes and over which parameters.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// The band scheme to tune for.
    pub scheme: BandScheme,
    /// `N`: for [`BandScheme::Disjoint`] and [`BandScheme::Oph`] the budget `K·M <= N`; for
    /// [`BandScheme::Drawn`] the number of functions the bands are drawn from.
    pub hashes: usize,
    /// Largest `M` to consider for [`BandScheme::Drawn`] (at most
    /// [`MAX_DRAWN_BANDS`](crate::MAX_DRAWN_BANDS)).
    pub max_bands: usize,
    /// Output bits (only passed on to the signers that are built).
    pub bits: u32,
    /// Seed the drawn subsets come from (the exact curve depends on the draw).
    pub seed: u64,
    /// Weight of the false-positive area `∫_0^t P(s) ds`.
    pub false_positive_weight: f64,
    /// Weight of the false-negative area `∫_t^1 (1 - P(s)) ds`.
    pub false_negative_weight: f64,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            scheme: BandScheme::Drawn,
            hashes: 20,
            max_bands: 16,
            bits: 60,
            seed: 1123456,
            false_positive_weight: 0.5,
            false_negative_weight: 0.5,
        }
    }
}

/// The parameters [`tune`] recommends, with the error areas it weighed.
#[derive(Clone, Debug, PartialEq)]
pub struct Recommendation {
    /// Rows `K`.
    pub rows: usize,
    /// Bands `M`.
    pub bands: usize,
    /// `∫_0^t P(s) ds`: how much probability mass falls on pairs below the threshold.
    pub false_positive: f64,
    /// `∫_t^1 (1 - P(s)) ds`: how much is missed above the threshold.
    pub false_negative: f64,
    /// The weighted sum that was minimized.
    pub error: f64,
}

/// Picks `(K, M)` for a Jaccard threshold `t` by minimizing the weighted false-positive and
/// false-negative areas under the exact S-curve, like datasketch's optimal-parameter search
/// (which does the same for the disjoint scheme). Ties go to fewer bands, then fewer rows.
///
/// ```
/// use textreuse_minhash::{BandScheme, TuneOptions, tune};
///
/// let options = TuneOptions { scheme: BandScheme::Disjoint, hashes: 128, ..TuneOptions::default() };
/// let best = tune(0.8, &options)?;
/// assert!(best.rows * best.bands <= 128);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Returns [`BuildError::Threshold`] for a threshold outside `(0, 1)`,
/// [`BuildError::OutOfRange`] for a negative, infinite or NaN weight (or two zero weights), and
/// the error of [`SignerBuilder::build`] when `hashes` is zero or above the scheme's limit.
pub fn tune(threshold: f64, options: &TuneOptions) -> Result<Recommendation, BuildError> {
    if !(threshold > 0.0 && threshold < 1.0) {
        return Err(BuildError::Threshold { threshold });
    }
    for (name, value) in [
        ("false_positive_weight", options.false_positive_weight),
        ("false_negative_weight", options.false_negative_weight),
    ] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(BuildError::OutOfRange {
                name,
                value,
                allowed: "finite and at least 0",
            });
        }
    }
    if options.false_positive_weight + options.false_negative_weight == 0.0 {
        return Err(BuildError::OutOfRange {
            name: "false_positive_weight + false_negative_weight",
            value: 0.0,
            allowed: "above 0",
        });
    }
    let n = options.hashes;
    if n == 0 {
        return Err(BuildError::ZeroRows);
    }
    // The widest signer (one band of all `n` functions) is checked, and refused with the
    // scheme's limit, before the candidates are listed: their number grows with `n`.
    SignerBuilder::new()
        .scheme(options.scheme)
        .hashes(n)
        .rows(n)
        .bands(1)
        .bits(options.bits)
        .build()?;
    let mut best: Option<Recommendation> = None;
    let candidates: Vec<(usize, usize)> = match options.scheme {
        BandScheme::Disjoint | BandScheme::Oph => (1..=n)
            .flat_map(|m| (1..=n / m).map(move |k| (k, m)))
            .collect(),
        BandScheme::Drawn => {
            let max_m = options.max_bands.min(crate::MAX_DRAWN_BANDS);
            (1..=max_m)
                .flat_map(|m| (1..=n).map(move |k| (k, m)))
                .collect()
        }
    };
    for (k, m) in candidates {
        let signer = SignerBuilder::new()
            .scheme(options.scheme)
            .hashes(if options.scheme == BandScheme::Drawn {
                n
            } else {
                k * m
            })
            .rows(k)
            .bands(m)
            .bits(options.bits)
            .seed(options.seed)
            .build()?;
        let p = |s: f64| signer.exact_match_probability(s);
        let false_positive = simpson(&p, 0.0, threshold);
        let false_negative = simpson(&|s| 1.0 - p(s), threshold, 1.0);
        let error = options.false_positive_weight * false_positive
            + options.false_negative_weight * false_negative;
        if best.as_ref().is_none_or(|b| error < b.error) {
            best = Some(Recommendation {
                rows: k,
                bands: m,
                false_positive,
                false_negative,
                error,
            });
        }
    }
    best.ok_or(BuildError::ZeroBands)
}

/// What [`plan`] must achieve: find pairs at or above `threshold` with probability at least
/// `recall`, and make pairs at or below `below` candidates with probability at most
/// `candidate_rate`, for sets of `min_set` shingles and more; among the configurations that do,
/// [`plan`] returns the cheapest for sets of `set_size` shingles.
///
/// ```
/// use textreuse_minhash::Target;
///
/// let t = Target::new(0.9);
/// assert_eq!((t.recall, t.below, t.candidate_rate), (0.99, 0.5, 0.01));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Pairs of at least this Jaccard similarity must be found...
    pub threshold: f64,
    /// ...with at least this probability (default 0.99).
    pub recall: f64,
    /// Pairs of at most this similarity (default `max(threshold - 0.4, threshold / 6)`)...
    pub below: f64,
    /// ...may become candidates with at most this probability (default 0.01).
    pub candidate_rate: f64,
    /// The smallest set the curve must hold for, in shingles (default 75, the research's
    /// shortest sentence; at most [`MAX_SET_SIZE`]). Only [`BandScheme::Oph`]'s curve depends
    /// on it.
    pub min_set: usize,
    /// The set size costs are compared at (default 150, the median kept sentence).
    pub set_size: usize,
    /// The schemes to choose from (default all three).
    pub schemes: Vec<BandScheme>,
    /// `N` for [`BandScheme::Drawn`] (default 20).
    pub hashes: usize,
    /// The largest `N = K·M` for [`BandScheme::Disjoint`] (default 512; at most
    /// [`MAX_DISJOINT_HASHES`](crate::MAX_DISJOINT_HASHES) is used).
    pub max_hashes: usize,
    /// Output bits of the signer that is built (default 60).
    pub bits: u32,
    /// Seed of the signer that is built (default 1123456; the drawn scheme's curve depends on it).
    pub seed: u64,
}

impl Target {
    /// The defaults for a similarity threshold (strictly between 0 and 1).
    pub fn new(threshold: f64) -> Target {
        Target {
            threshold,
            recall: DEFAULT_RECALL,
            below: (threshold - 0.4).max(threshold / 6.0),
            candidate_rate: DEFAULT_CANDIDATE_RATE,
            min_set: 75,
            set_size: 150,
            schemes: vec![BandScheme::Drawn, BandScheme::Disjoint, BandScheme::Oph],
            hashes: crate::DEFAULT_HASHES,
            max_hashes: 512,
            bits: crate::DEFAULT_BITS,
            seed: crate::DEFAULT_SEED,
        }
    }
}

/// The default [`Target::recall`]: pairs at the threshold are found with probability 0.99.
pub const DEFAULT_RECALL: f64 = 0.99;
/// The default [`Target::candidate_rate`]: pairs at or below [`Target::below`] become
/// candidates with probability at most 0.01.
pub const DEFAULT_CANDIDATE_RATE: f64 = 0.01;

/// The configuration [`plan`] chose, with what it achieves and costs.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The band scheme.
    pub scheme: BandScheme,
    /// `N` (bins for [`BandScheme::Oph`]).
    pub hashes: usize,
    /// Rows `K`.
    pub rows: usize,
    /// Bands `M`.
    pub bands: usize,
    /// The match probability at the target's threshold (for OPH the smallest over the set sizes
    /// checked).
    pub recall: f64,
    /// The match probability at the target's `below` (the largest over the set sizes checked).
    pub candidate_rate: f64,
    /// The modelled cost of one set of `set_size` shingles in nanoseconds ([`cost_ns`]).
    pub cost_ns: f64,
    bits: u32,
    seed: u64,
}

impl Plan {
    /// The chosen parameters (with the target's bits and seed).
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

    /// A builder for the chosen signer (with the target's bits and seed).
    pub fn builder(&self) -> SignerBuilder {
        SignerBuilder::from_config(self.config())
    }
}

/// Modelled nanoseconds to sign one set of `set_size` shingles and handle its `M` band keys,
/// from criterion runs on the 2-core Sapphire Rapids VM of `docs/performance.md`
/// (`cargo bench -p textreuse-benches --bench minhash -- 'minhash/(scheme|band_keys)'`):
///
/// * multiply-add-shift schemes: 0.75 ns per block of 8 functions and shingle;
/// * OPH: 1.35 ns per shingle, 2.5 ns per empty bin (the expected number for `set_size`
///   shingles in `N` bins) and 0.3 ns per bin;
/// * per band: `K + 3` ns to hash its key and 25 ns for the entry it adds to the shuffle or
///   index (writing, sorting and scanning a bucket entry).
///
/// Only the ratios matter to [`plan`]; another machine scales them alike.
pub fn cost_ns(
    scheme: BandScheme,
    hashes: usize,
    rows: usize,
    bands: usize,
    set_size: usize,
) -> f64 {
    let n = set_size as f64;
    let sign = match scheme {
        BandScheme::Oph => {
            let d = hashes as f64;
            let empty = d * (1.0 - 1.0 / d).powf(n);
            1.35 * n + 2.5 * empty + 0.3 * d
        }
        _ => 0.75 * hashes.div_ceil(crate::kernel::LANES) as f64 * n,
    };
    sign + bands as f64 * (rows as f64 + 3.0 + 25.0)
}

/// The largest [`Target::min_set`] [`plan`] accepts when OPH is among the schemes. It computes
/// OPH's exact curve for sets of up to four times `min_set` shingles, which tabulates `ln k!` up
/// to the union of two such sets (here at most 2^23 values, 64 MiB). Sets that large follow the
/// large-set curve `1 - (1 - s^K)^M` closely.
pub const MAX_SET_SIZE: usize = 1 << 20;

/// Largest `K` [`plan`] considers.
const PLAN_MAX_ROWS: usize = 32;
/// Largest `M` of the OPH scheme [`plan`] considers.
const PLAN_MAX_OPH_BANDS: usize = 256;

/// The cheapest scheme and `(K, M)` that meets `target` (by [`cost_ns`]), checked against the
/// exact curve of each scheme: [`Signer::exact_match_probability`](crate::Signer) for drawn and
/// disjoint bands, and for OPH [`Signer::match_probability`](crate::Signer) for two sets of
/// `min_set`, `2·min_set` and `4·min_set` shingles as well as for large sets.
///
/// ```
/// use textreuse_minhash::{BandScheme, Target, plan};
///
/// let p = plan(&Target::new(0.9))?;
/// assert!(p.recall >= 0.99 && p.candidate_rate <= 0.01);
/// assert_eq!(p.scheme, BandScheme::Oph); // one hash per shingle beats 100+ functions
/// let signer = p.builder().build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A [`Target::max_hashes`] above [`MAX_DISJOINT_HASHES`](crate::MAX_DISJOINT_HASHES) is
/// that limit: no larger disjoint signer can be built.
///
/// Returns [`BuildError::Threshold`] for a threshold or `below` outside `(0, 1)`,
/// [`BuildError::OutOfRange`] for a recall or candidate rate outside `[0, 1]` (or NaN),
/// [`BuildError::SetTooLarge`] for a `min_set` above [`MAX_SET_SIZE`] when OPH is among the
/// schemes, and [`BuildError::Unreachable`] when no configuration in range meets the target.
pub fn plan(target: &Target) -> Result<Plan, BuildError> {
    for t in [target.threshold, target.below] {
        if !(t > 0.0 && t < 1.0) {
            return Err(BuildError::Threshold { threshold: t });
        }
    }
    for (name, value) in [
        ("recall", target.recall),
        ("candidate_rate", target.candidate_rate),
    ] {
        if !(0.0..=1.0).contains(&value) {
            return Err(BuildError::OutOfRange {
                name,
                value,
                allowed: "a probability from 0 to 1",
            });
        }
    }
    if target.schemes.contains(&BandScheme::Oph) && target.min_set > MAX_SET_SIZE {
        return Err(BuildError::SetTooLarge {
            min_set: target.min_set,
            max: MAX_SET_SIZE,
        });
    }
    if !(1..=64).contains(&target.bits) {
        return Err(textreuse_hash::HashError::InvalidBits { bits: target.bits }.into());
    }
    let mut candidates: Vec<(f64, BandScheme, usize, usize, usize)> = Vec::new();
    for &scheme in &target.schemes {
        for k in 1..=PLAN_MAX_ROWS {
            match scheme {
                BandScheme::Drawn => {
                    let n = target.hashes;
                    if k > n || n > crate::MAX_DRAWN_HASHES {
                        continue;
                    }
                    for m in 1..=crate::MAX_DRAWN_BANDS {
                        candidates.push((
                            cost_ns(scheme, n, k, m, target.set_size),
                            scheme,
                            n,
                            k,
                            m,
                        ));
                    }
                }
                BandScheme::Disjoint | BandScheme::Oph => {
                    let (max_n, max_m) = if scheme == BandScheme::Oph {
                        (crate::MAX_OPH_BINS, PLAN_MAX_OPH_BANDS)
                    } else {
                        (
                            target.max_hashes.min(crate::MAX_DISJOINT_HASHES),
                            usize::MAX,
                        )
                    };
                    for m in (1..=max_m).take_while(|m| k * m <= max_n) {
                        let n = k * m;
                        candidates.push((
                            cost_ns(scheme, n, k, m, target.set_size),
                            scheme,
                            n,
                            k,
                            m,
                        ));
                    }
                }
            }
        }
    }
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (cost, scheme, n, k, m) in candidates {
        // The large-set curve first: cheap, and OPH's sized curve is close to it.
        let (hi, lo) = (
            independent(target.threshold, k, m),
            independent(target.below, k, m),
        );
        if scheme != BandScheme::Drawn && (hi < target.recall || lo > target.candidate_rate) {
            continue;
        }
        // Drawn bands that share functions match together (their match events are increasing
        // in the same per-function agreements, so by Harris' inequality they are positively
        // correlated): their exact curve is at most the independent one, and a configuration
        // whose independent recall misses the target is skipped without drawing its bands.
        if scheme == BandScheme::Drawn && hi < target.recall {
            continue;
        }
        let (recall, candidate_rate) = match scheme {
            // The only scheme whose curve depends on the seed: build the signer to draw them.
            BandScheme::Drawn => {
                let signer = SignerBuilder::new()
                    .hashes(n)
                    .rows(k)
                    .bands(m)
                    .bits(target.bits)
                    .seed(target.seed)
                    .build()?;
                (
                    signer.exact_match_probability(target.threshold),
                    signer.exact_match_probability(target.below),
                )
            }
            BandScheme::Oph => {
                // For sets of min_set, twice and four times as many shingles: the least similar
                // pair at or above the threshold (the hardest to find) and the most similar at
                // or below `below` (the likeliest candidate).
                let sized =
                    |(shared, union)| crate::oph::sized_match_probability(shared, union, k, m).0;
                let (mut recall, mut candidates) = (hi, lo);
                for size in [1, 2, 4].map(|f| f * target.min_set) {
                    if recall < target.recall || candidates > target.candidate_rate {
                        break;
                    }
                    recall = recall.min(sized(sized_pair(size, target.threshold, true)));
                    candidates = candidates.max(sized(sized_pair(size, target.below, false)));
                }
                (recall, candidates)
            }
            // Disjoint bands: the large-set curve is exact.
            _ => (hi, lo),
        };
        if recall >= target.recall && candidate_rate <= target.candidate_rate {
            return Ok(Plan {
                scheme,
                hashes: n,
                rows: k,
                bands: m,
                recall,
                candidate_rate,
                cost_ns: cost,
                bits: target.bits,
                seed: target.seed,
            });
        }
    }
    Err(BuildError::Unreachable {
        threshold: target.threshold,
        recall: target.recall,
        below: target.below,
        candidate_rate: target.candidate_rate,
    })
}

/// Two sets of `size` elements whose Jaccard similarity is the largest at most `s` (`up`
/// false) or the smallest at least `s` (`up` true): `(shared, union)`, to put into
/// [`Signer::match_probability`](crate::Signer::match_probability).
///
/// ```
/// // Sets of 150 shingles: 142 shared of 158 is J = 0.8987, 143 of 157 is 0.9108.
/// assert_eq!(textreuse_minhash::sized_pair(150, 0.9, false), (142, 158));
/// assert_eq!(textreuse_minhash::sized_pair(150, 0.9, true), (143, 157));
/// ```
pub fn sized_pair(size: usize, s: f64, up: bool) -> (usize, usize) {
    let size = size.max(1);
    // shared / (2·size - shared) = s  <=>  shared = 2·size·s / (1 + s); the tolerance keeps an
    // exact similarity (s = 0.5 with 75 shingles: 50 of 100) from rounding the wrong way.
    let exact = (2 * size) as f64 * s / (1.0 + s);
    let shared = if up {
        (exact - 1e-9).ceil()
    } else {
        (exact + 1e-9).floor()
    } as usize;
    let shared = shared.min(size);
    (shared, 2 * size - shared)
}

/// Composite Simpson's rule with 200 intervals (the curves are smooth polynomials).
fn simpson(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    const INTERVALS: usize = 200;
    let h = (b - a) / INTERVALS as f64;
    let mut sum = f(a) + f(b);
    for i in 1..INTERVALS {
        let x = a + i as f64 * h;
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    sum * h / 3.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simpson_integrates_polynomials() {
        assert!((simpson(&|x| x * x, 0.0, 1.0) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn drawn_curve_with_disjoint_subsets_is_the_closed_form() {
        // Drawn bands that happen not to overlap follow 1 - (1 - s^K)^M exactly.
        let bands: Vec<u32> = (0..12).collect();
        let curve = Curve::Drawn {
            coefficients: no_match_polynomial(12, 3, 4, &bands),
        };
        for i in 0..=20 {
            let s = i as f64 / 20.0;
            assert!(
                (curve.exact(s) - independent(s, 3, 4)).abs() < 1e-12,
                "s={s}"
            );
        }
    }

    #[test]
    fn identical_bands_count_once() {
        // Two copies of the same band match exactly when one does: s^K.
        let bands = [0u32, 1, 2, 0, 1, 2];
        let curve = Curve::Drawn {
            coefficients: no_match_polynomial(3, 3, 2, &bands),
        };
        assert!((curve.exact(0.5) - 0.125).abs() < 1e-12);
    }

    #[test]
    fn independent_edges() {
        assert_eq!(independent(0.0, 10, 10), 0.0);
        assert_eq!(independent(1.0, 10, 10), 1.0);
        assert!((independent(0.5, 1, 1) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn tune_rejects_bad_thresholds() {
        assert!(tune(0.0, &TuneOptions::default()).is_err());
        assert!(tune(1.0, &TuneOptions::default()).is_err());
        assert!(tune(f64::NAN, &TuneOptions::default()).is_err());
    }

    #[test]
    fn plan_meets_the_target_at_the_lowest_cost() {
        let target = Target::new(0.9);
        let p = plan(&target).unwrap();
        assert!(p.recall >= 0.99 && p.candidate_rate <= 0.01, "{p:?}");
        // Nothing cheaper meets it, whatever the scheme.
        for scheme in [BandScheme::Drawn, BandScheme::Disjoint, BandScheme::Oph] {
            let one = Target {
                schemes: vec![scheme],
                ..target.clone()
            };
            match plan(&one) {
                Ok(q) => assert!(q.cost_ns >= p.cost_ns, "{q:?} is cheaper than {p:?}"),
                // N = 20 drawn functions cannot reach 0.99 at 0.9 with <= 1% at 0.5.
                Err(e) => assert_eq!(scheme, BandScheme::Drawn, "{e}"),
            }
        }
        let signer = p.builder().build().unwrap();
        assert_eq!((signer.rows(), signer.bands()), (p.rows, p.bands));
        // The OPH preset is this plan.
        let preset = SignerBuilder::oph().build().unwrap();
        assert_eq!(
            (preset.scheme(), preset.rows(), preset.bands()),
            (p.scheme, p.rows, p.bands)
        );
    }

    #[test]
    fn plan_says_when_a_target_is_out_of_reach() {
        let t = Target {
            recall: 0.999_999,
            candidate_rate: 1e-9,
            schemes: vec![BandScheme::Drawn],
            ..Target::new(0.6)
        };
        assert!(matches!(plan(&t), Err(BuildError::Unreachable { .. })));
        assert!(matches!(
            plan(&Target::new(1.0)),
            Err(BuildError::Threshold { .. })
        ));
    }

    #[test]
    fn sized_pairs_have_the_asked_similarity() {
        assert_eq!(sized_pair(150, 0.9, false), (142, 158)); // 0.8987
        assert_eq!(sized_pair(150, 0.9, true), (143, 157)); // 0.9108
        assert_eq!(sized_pair(75, 0.5, true), (50, 100));
        assert_eq!(sized_pair(10, 1.0, false), (10, 10));
    }

    #[test]
    fn higher_thresholds_want_more_rows_per_band() {
        let opts = TuneOptions {
            scheme: BandScheme::Disjoint,
            hashes: 128,
            ..TuneOptions::default()
        };
        let low = tune(0.3, &opts).unwrap();
        let high = tune(0.9, &opts).unwrap();
        let steep = |r: &Recommendation| r.rows as f64 / r.bands as f64;
        assert!(steep(&high) > steep(&low), "{low:?} vs {high:?}");
    }
}
