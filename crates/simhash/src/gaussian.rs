//! Standard normal variates defined entirely by this crate's code.
//!
//! The random hyperplanes need Gaussian entries that are the same on every machine. The platform
//! `ln`, `sin` and `cos` are not required to be correctly rounded and do differ between C
//! libraries, so this module uses the polar form of the Box-Muller transform (Marsaglia) with its
//! own natural logarithm built only from IEEE 754 operations that are exactly rounded everywhere
//! (`+`, `-`, `*`, `/`, `sqrt`). Rust never contracts `a * b + c` into a fused multiply-add on its
//! own, so the bits of every variate are fixed by this code and the seed.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// `ln 2` split into a high part with trailing zero bits (exact when multiplied by a small
/// integer exponent) and the rest (fdlibm's constants).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

/// The natural logarithm of a positive, finite, normal or subnormal `x`, to about 1 ulp.
///
/// `x = m · 2^e` with `m` in `[sqrt(1/2), sqrt(2))`, then `ln m = 2 atanh(f)` with
/// `f = (m - 1) / (m + 1)`, `|f| <= 0.1716`, summed as the odd series of `atanh` up to `f^21`
/// (the first omitted term is below `1e-18` relative). Inputs outside `(0, inf)` give NaN or
/// `-inf`/`inf`, like `f64::ln`.
pub(crate) fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let mut bits = x.to_bits();
    let mut e: i64 = 0;
    if bits >> 52 == 0 {
        // Subnormal: scale by 2^54 into the normal range.
        bits = (x * f64::from_bits(0x4350_0000_0000_0000)).to_bits();
        e -= 54;
    }
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > core::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let f = (m - 1.0) / (m + 1.0);
    let f2 = f * f;
    // atanh(f) / f = 1 + f^2/3 + f^4/5 + ... + f^20/21, by Horner.
    let mut p = 1.0 / 21.0;
    let mut k = 19.0;
    while k > 2.0 {
        p = p * f2 + 1.0 / k;
        k -= 2.0;
    }
    p = p * f2 + 1.0;
    let ef = e as f64;
    ef * LN2_HI + (ef * LN2_LO + 2.0 * f * p)
}

/// A uniform `f64` in `[0, 1)` on the grid of multiples of `2^-53`.
#[inline]
fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// An endless stream of independent standard normal variates (mean 0, variance 1).
///
/// Draws pairs with the polar Box-Muller method: `u, v` uniform in `[-1, 1)` (two `next_u64`
/// calls, top 53 bits each), rejected unless `0 < s = u² + v² < 1`, then
/// `u·sqrt(-2 ln s / s)` and `v·sqrt(-2 ln s / s)` are returned in that order. The values depend
/// only on the generator's state and this crate's code (see the module docs), so the same seed
/// gives bit-identical variates everywhere.
///
/// ```
/// use textreuse_simhash::Normals;
///
/// let a: Vec<f64> = Normals::new(7).take(4).collect();
/// let b: Vec<f64> = Normals::new(7).take(4).collect();
/// assert_eq!(a, b);
/// ```
#[derive(Clone, Debug)]
pub struct Normals {
    rng: Xoshiro256PlusPlus,
    spare: Option<f64>,
}

impl Normals {
    /// A stream from `Xoshiro256PlusPlus::seed_from_u64(seed)`.
    pub fn new(seed: u64) -> Normals {
        Normals::from_rng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// A stream drawing from `rng`.
    pub fn from_rng(rng: Xoshiro256PlusPlus) -> Normals {
        Normals { rng, spare: None }
    }

    /// The next variate.
    #[inline]
    pub fn next_normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        loop {
            let u = 2.0 * uniform(&mut self.rng) - 1.0;
            let v = 2.0 * uniform(&mut self.rng) - 1.0;
            let s = u * u + v * v;
            if s < 1.0 && s > 0.0 {
                let factor = (-2.0 * ln(s) / s).sqrt();
                self.spare = Some(v * factor);
                return u * factor;
            }
        }
    }
}

impl Iterator for Normals {
    type Item = f64;

    #[inline]
    fn next(&mut self) -> Option<f64> {
        Some(self.next_normal())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

impl core::iter::FusedIterator for Normals {}

#[cfg(test)]
mod tests {
    use super::{Normals, ln};

    #[test]
    fn ln_matches_std_closely() {
        let mut x = 1e-300_f64;
        while x < 1e300 {
            let (ours, std) = (ln(x), x.ln());
            assert!(
                (ours - std).abs() <= 2.0 * f64::EPSILON * std.abs().max(1.0),
                "ln({x}) = {ours}, std {std}"
            );
            x *= 1.37;
        }
        for x in [
            0.5,
            std::f64::consts::FRAC_1_SQRT_2,
            0.7072,
            1.0,
            1.0 + 1e-12,
            std::f64::consts::SQRT_2,
            1.4143,
            2.0,
            3.0,
            1e-310,
        ] {
            let (ours, std) = (ln(x), x.ln());
            assert!(
                (ours - std).abs() <= 2.0 * f64::EPSILON * std.abs().max(1.0),
                "ln({x}) = {ours}, std {std}"
            );
        }
        assert_eq!(ln(1.0), 0.0);
        assert!(ln(-1.0).is_nan());
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn normals_known_answers() {
        let got: Vec<u64> = Normals::new(1123456).take(4).map(f64::to_bits).collect();
        assert_eq!(
            got,
            KAT_NORMALS,
            "{:?}",
            got.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>()
        );
    }

    const KAT_NORMALS: [u64; 4] = [
        4602407488919038149,
        4602598995647740834,
        13827492805335741917,
        4603834108751356940,
    ];

    #[test]
    fn normals_moments() {
        // 200k variates: mean within 4.5 sigma (sigma = 1/sqrt(n)), variance within 4.5 sigma
        // (sigma of the sample variance = sqrt(2/n)), fourth moment near 3, and the fraction
        // within one standard deviation near 0.6827.
        let n = 200_000;
        let xs: Vec<f64> = Normals::new(42).take(n).collect();
        let nf = n as f64;
        let mean = xs.iter().sum::<f64>() / nf;
        let var = xs.iter().map(|x| x * x).sum::<f64>() / nf;
        let m4 = xs.iter().map(|x| x.powi(4)).sum::<f64>() / nf;
        let within = xs.iter().filter(|x| x.abs() < 1.0).count() as f64 / nf;
        assert!(mean.abs() < 4.5 / nf.sqrt(), "mean {mean}");
        assert!((var - 1.0).abs() < 4.5 * (2.0 / nf).sqrt(), "var {var}");
        // Var of x^4 is E[x^8] - 9 = 96.
        assert!((m4 - 3.0).abs() < 4.5 * (96.0 / nf).sqrt(), "m4 {m4}");
        let p = 0.682_689_492;
        assert!(
            (within - p).abs() < 4.5 * (p * (1.0 - p) / nf).sqrt(),
            "within {within}"
        );
    }
}
