//! Estimators for random-projection signatures.

use core::f64::consts::PI;

/// The probability that one random-hyperplane bit agrees for two vectors at angle `theta`
/// (radians, clamped to `[0, pi]`): `1 - theta / pi` (Goemans and Williamson; Charikar 2002).
///
/// ```
/// use textreuse_simhash::agreement_probability;
/// assert_eq!(agreement_probability(0.0), 1.0);
/// assert_eq!(agreement_probability(std::f64::consts::FRAC_PI_2), 0.5);
/// ```
pub fn agreement_probability(theta: f64) -> f64 {
    1.0 - theta.clamp(0.0, PI) / PI
}

/// The agreement probability for two vectors with cosine similarity `cosine` (clamped to
/// `[-1, 1]`): `1 - acos(cosine) / pi`.
pub fn agreement_from_cosine(cosine: f64) -> f64 {
    agreement_probability(cosine.clamp(-1.0, 1.0).acos())
}

/// The angle estimate `pi · hamming / bits`, an unbiased estimate of the angle between the two
/// vectors (each bit disagrees with probability `theta / pi`). `bits` must be positive (0 gives
/// NaN).
pub fn angle_estimate(hamming: u32, bits: u32) -> f64 {
    PI * hamming as f64 / bits as f64
}

/// The cosine estimate `cos(pi · hamming / bits)`.
///
/// Its bias is second order: with `p = theta/pi`, `E[cos(pi·h/D)] ≈ cos(theta) -
/// cos(theta)·pi²·p(1 - p) / (2D)`, at most `pi²/(8D)` in absolute value (0.012 for `D = 100`),
/// and its standard deviation is about `pi·sin(theta)·sqrt(p(1 - p)/D)`.
///
/// ```
/// use textreuse_simhash::cosine_estimate;
/// assert_eq!(cosine_estimate(0, 64), 1.0);
/// assert!((cosine_estimate(32, 64)).abs() < 1e-15);
/// ```
pub fn cosine_estimate(hamming: u32, bits: u32) -> f64 {
    angle_estimate(hamming, bits).cos()
}

/// The largest Hamming distance whose cosine estimate is at least `cosine` for `bits`-bit
/// signatures: `floor(bits · acos(cosine) / pi)`. Handy to turn a similarity threshold into
/// the `k` of a search.
///
/// ```
/// use textreuse_simhash::hamming_for_cosine;
/// assert_eq!(hamming_for_cosine(0.9, 64), 9);
/// ```
pub fn hamming_for_cosine(cosine: f64, bits: u32) -> u32 {
    let theta = cosine.clamp(-1.0, 1.0).acos();
    ((bits as f64 * theta / PI) + 1e-9).floor() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_relations() {
        for h in 0..=64 {
            let c = cosine_estimate(h, 64);
            assert_eq!(hamming_for_cosine(c, 64), h, "h {h}");
            assert!((agreement_from_cosine(c) - (1.0 - h as f64 / 64.0)).abs() < 1e-12);
        }
        assert_eq!(agreement_probability(-1.0), 1.0);
        assert_eq!(agreement_probability(10.0), 0.0);
        assert_eq!(agreement_from_cosine(-1.0), 0.0);
    }
}
