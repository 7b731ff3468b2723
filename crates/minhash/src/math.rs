//! Collision math: S-curves for both band schemes and a parameter tuner.
use crate::{BandScheme, BuildError, SignerBuilder};

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
pub fn tune(threshold: f64, options: &TuneOptions) -> Result<Recommendation, BuildError> {
    if !(threshold > 0.0 && threshold < 1.0) {
        return Err(BuildError::Threshold { threshold });
    }
    let mut best: Option<Recommendation> = None;
    let n = options.hashes;
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
