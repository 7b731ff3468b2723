//! datasketch's MinHash, bit for bit: its input hashes, permutation families and parameter
//! criterion, so signatures made here and by `datasketch.MinHash` can be mixed.
//!
//! datasketch 2.0 hashes each item with SHA-1 ([`sha1_hash32`], [`sha1_hash64`]) and applies
//! `num_perm` permutations of one of three [`Scheme`]s to the hash:
//!
//! * [`Scheme::Affine32`] (its default): the hash is pre-mixed with the 32-bit MurmurHash3
//!   finalizer ([`fmix32`]), then `a·h + b mod 2^32` with `a` odd;
//! * [`Scheme::Affine64`]: the same over 64 bits ([`fmix64`]);
//! * [`Scheme::Legacy`] (before 2.0): `((a·h + b) mod 2^64 mod (2^61 - 1)) & (2^32 - 1)`; the
//!   first reduction is numpy's wrapping `uint64` arithmetic, kept because datasketch computes
//!   it that way.
//!
//! A [`Permutations`] holds the `a` and `b` parameters (datasketch draws them from numpy's
//! `RandomState(seed)`; callers pass them in) and folds hashes into running minima with
//! [`Permutations::update`]. This is the compatibility layer's kernel; the pipeline's own
//! signing is [`Signer`](crate::Signer).
//!
//! ```
//! use textreuse_minhash::affine::{sha1_hash32, Permutations, Scheme};
//!
//! let perms = Permutations::new(Scheme::Affine32, vec![3, 5, 7], vec![1, 2, 3])?;
//! let mut values = perms.empty();
//! perms.update(&mut values, [b"mill".as_slice(), b"river"].iter().map(|t| sha1_hash32(t) as u64));
//! assert!(values.iter().all(|&v| v < u32::MAX as u64));
//! # Ok::<(), textreuse_minhash::affine::AffineError>(())
//! ```
use sha1::{Digest, Sha1};

/// A datasketch permutation scheme (`MinHash(scheme=...)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// `"affine32"`: fmix32, then `a·h + b mod 2^32`; values fit 32 bits.
    Affine32,
    /// `"affine64"`: fmix64, then `a·h + b mod 2^64`.
    Affine64,
    /// `"legacy"`: `((a·h + b) mod 2^64 mod (2^61 - 1)) & (2^32 - 1)`.
    Legacy,
}

impl Scheme {
    /// The scheme's name in datasketch (`"affine32"`, `"affine64"`, `"legacy"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Affine32 => "affine32",
            Scheme::Affine64 => "affine64",
            Scheme::Legacy => "legacy",
        }
    }

    /// The scheme named `name`, if any.
    pub fn from_name(name: &str) -> Option<Scheme> {
        match name {
            "affine32" => Some(Scheme::Affine32),
            "affine64" => Some(Scheme::Affine64),
            "legacy" => Some(Scheme::Legacy),
            _ => None,
        }
    }

    /// The largest hash value, which is also the value of an empty MinHash.
    pub fn max_value(self) -> u64 {
        match self {
            Scheme::Affine32 | Scheme::Legacy => u32::MAX as u64,
            Scheme::Affine64 => u64::MAX,
        }
    }

    /// The largest input hash the scheme takes (datasketch refuses larger ones; the legacy
    /// scheme takes any 64-bit value, as numpy's `uint64` arithmetic does).
    pub fn max_input(self) -> u64 {
        match self {
            Scheme::Affine32 => u32::MAX as u64,
            Scheme::Affine64 | Scheme::Legacy => u64::MAX,
        }
    }
}

/// The Mersenne prime `2^61 - 1` of the legacy scheme.
pub const MERSENNE_PRIME: u64 = (1 << 61) - 1;

/// Why a [`Permutations`] cannot be built or applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AffineError {
    /// `a` and `b` differ in length. Recover by passing one parameter of each per permutation.
    #[error("numbers of `a` ({a}) and `b` ({b}) permutation parameters differ")]
    Lengths {
        /// Length of `a`.
        a: usize,
        /// Length of `b`.
        b: usize,
    },
    /// An affine scheme needs odd `a` (a bijection). Recover with the parameters datasketch
    /// generated, or any odd values.
    #[error("all `a` permutation parameters must be odd for scheme {scheme:?}")]
    EvenMultiplier {
        /// The scheme.
        scheme: &'static str,
    },
    /// A parameter or input hash does not fit the scheme's width. Recover by using a hash of
    /// the scheme's width, or scheme `affine64` for 64-bit hashes.
    #[error("{what} {value} out of range for scheme {scheme:?} (at most {max})")]
    OutOfRange {
        /// What was out of range.
        what: &'static str,
        /// The value.
        value: u64,
        /// The scheme.
        scheme: &'static str,
        /// The largest allowed value.
        max: u64,
    },
}

/// The permutation parameters of one datasketch MinHash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permutations {
    scheme: Scheme,
    a: Vec<u64>,
    b: Vec<u64>,
}

impl Permutations {
    /// Permutations with the given parameters, checked as datasketch checks them.
    pub fn new(scheme: Scheme, a: Vec<u64>, b: Vec<u64>) -> Result<Permutations, AffineError> {
        if a.len() != b.len() {
            return Err(AffineError::Lengths {
                a: a.len(),
                b: b.len(),
            });
        }
        if scheme == Scheme::Affine32 {
            for &value in a.iter().chain(&b) {
                if value > u32::MAX as u64 {
                    return Err(AffineError::OutOfRange {
                        what: "permutation parameter",
                        value,
                        scheme: scheme.as_str(),
                        max: u32::MAX as u64,
                    });
                }
            }
        }
        if scheme != Scheme::Legacy && a.iter().any(|&x| x & 1 == 0) {
            return Err(AffineError::EvenMultiplier {
                scheme: scheme.as_str(),
            });
        }
        Ok(Permutations { scheme, a, b })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The number of permutations.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// True if there are no permutations.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// The values of an empty MinHash: every permutation at the scheme's maximum.
    pub fn empty(&self) -> Vec<u64> {
        vec![self.scheme.max_value(); self.len()]
    }

    /// Checks that every hash fits the scheme's input width (datasketch raises `ValueError`).
    pub fn check_inputs(&self, hashes: &[u64]) -> Result<(), AffineError> {
        let max = self.scheme.max_input();
        match hashes.iter().find(|&&h| h > max) {
            Some(&value) => Err(AffineError::OutOfRange {
                what: "input hash",
                value,
                scheme: self.scheme.as_str(),
                max,
            }),
            None => Ok(()),
        }
    }

    /// Folds `hashes` into `values` (one running minimum per permutation), exactly as
    /// datasketch's `MinHash.update_batch` does. For `affine32`, hashes above 32 bits are
    /// truncated; call [`check_inputs`](Self::check_inputs) first to refuse them.
    ///
    /// # Panics
    /// If `values` does not hold one value per permutation.
    pub fn update(&self, values: &mut [u64], hashes: impl IntoIterator<Item = u64>) {
        assert_eq!(values.len(), self.len(), "one value per permutation");
        match self.scheme {
            Scheme::Affine32 => {
                let mixed: Vec<u32> = hashes.into_iter().map(|h| fmix32(h as u32)).collect();
                for ((v, &a), &b) in values.iter_mut().zip(&self.a).zip(&self.b) {
                    let (a, b) = (a as u32, b as u32);
                    let low = mixed
                        .iter()
                        .map(|&h| a.wrapping_mul(h).wrapping_add(b))
                        .min()
                        .unwrap_or(u32::MAX);
                    *v = (*v).min(low as u64);
                }
            }
            Scheme::Affine64 => {
                let mixed: Vec<u64> = hashes.into_iter().map(fmix64).collect();
                for ((v, &a), &b) in values.iter_mut().zip(&self.a).zip(&self.b) {
                    let low = mixed
                        .iter()
                        .map(|&h| a.wrapping_mul(h).wrapping_add(b))
                        .min()
                        .unwrap_or(u64::MAX);
                    *v = (*v).min(low);
                }
            }
            Scheme::Legacy => {
                let hashes: Vec<u64> = hashes.into_iter().collect();
                for ((v, &a), &b) in values.iter_mut().zip(&self.a).zip(&self.b) {
                    let low = hashes
                        .iter()
                        .map(|&h| {
                            (a.wrapping_mul(h).wrapping_add(b) % MERSENNE_PRIME) & 0xFFFF_FFFF
                        })
                        .min()
                        .unwrap_or(u64::MAX);
                    *v = (*v).min(low);
                }
            }
        }
    }
}

/// datasketch's `sha1_hash32`: the first 4 bytes of the SHA-1 digest, little-endian.
pub fn sha1_hash32(data: &[u8]) -> u32 {
    let digest = Sha1::digest(data);
    u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// datasketch's `sha1_hash64`: the first 8 bytes of the SHA-1 digest, little-endian.
pub fn sha1_hash64(data: &[u8]) -> u64 {
    let digest = Sha1::digest(data);
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

/// The 32-bit MurmurHash3 finalizer (a bijection).
pub const fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85EB_CA6B);
    h ^= h >> 13;
    h = h.wrapping_mul(0xC2B2_AE35);
    h ^ (h >> 16)
}

/// The 64-bit MurmurHash3 finalizer (a bijection).
pub const fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^ (h >> 33)
}

/// The weights of datasketch's parameter criterion: how much a false positive and a false
/// negative count (`MinHashLSH(weights=...)`, default `(0.5, 0.5)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorWeights {
    /// Weight of the false-positive area.
    pub false_positive: f64,
    /// Weight of the false-negative area.
    pub false_negative: f64,
}

impl Default for ErrorWeights {
    fn default() -> Self {
        ErrorWeights {
            false_positive: 0.5,
            false_negative: 0.5,
        }
    }
}

/// datasketch's `MinHashLSH` parameters: the `(bands, rows)` with `bands·rows <= num_perm`
/// minimizing the weighted areas under the S-curve `1 - (1 - s^r)^b` below `threshold` (false
/// positives) and above it (false negatives). Bands are tried from 1 up, rows from 1 up, and
/// only a strictly smaller error replaces the best, as datasketch does. Returns `(0, 0)` for
/// `num_perm == 0`.
///
/// ```
/// use textreuse_minhash::affine::{jaccard_params, ErrorWeights};
///
/// // datasketch's MinHashLSH(threshold=0.8, num_perm=128) uses 9 bands of 13 rows.
/// assert_eq!(jaccard_params(0.8, 128, ErrorWeights::default()), (9, 13));
/// ```
pub fn jaccard_params(threshold: f64, num_perm: usize, weights: ErrorWeights) -> (usize, usize) {
    let mut best = (0, 0);
    let mut min_error = f64::INFINITY;
    for b in 1..=num_perm {
        for r in 1..=num_perm / b {
            let (bf, rf) = (b as f64, r as f64);
            let hit = |s: f64| 1.0 - (1.0 - s.powf(rf)).powf(bf);
            let fp = integrate(&hit, 0.0, threshold);
            let fn_ = integrate(&|s| 1.0 - hit(s), threshold, 1.0);
            let error = fp * weights.false_positive + fn_ * weights.false_negative;
            if error < min_error {
                min_error = error;
                best = (b, r);
            }
        }
    }
    best
}

/// datasketch's `MinHashLSHEnsemble` parameters for one size ratio `xq = |X| / |Q|`: the
/// `(bands, rows)` with `rows <= max_r` and `bands·rows <= num_perm` minimizing the weighted
/// false-positive and false-negative areas of the containment curve, where containment `t`
/// maps to Jaccard `t / (1 + xq - t)`.
pub fn containment_params(
    threshold: f64,
    num_perm: usize,
    max_r: usize,
    xq: f64,
    weights: ErrorWeights,
) -> (usize, usize) {
    let mut best = (0, 0);
    let mut min_error = f64::INFINITY;
    for b in 1..=num_perm {
        for r in 1..=max_r {
            if b * r > num_perm {
                continue;
            }
            let (bf, rf) = (b as f64, r as f64);
            let hit = |t: f64| 1.0 - (1.0 - (t / (1.0 + xq - t)).powf(rf)).powf(bf);
            let fp = integrate(&hit, 0.0, if xq >= threshold { threshold } else { xq });
            let fn_ = if xq >= 1.0 {
                integrate(&|t| 1.0 - hit(t), threshold, 1.0)
            } else if xq >= threshold {
                integrate(&|t| 1.0 - hit(t), threshold, xq)
            } else {
                0.0
            };
            let error = fp * weights.false_positive + fn_ * weights.false_negative;
            if error < min_error {
                min_error = error;
                best = (b, r);
            }
        }
    }
    best
}

/// Adaptive Simpson integration to about 1e-12 (the S-curves are smooth; datasketch uses
/// QUADPACK's `quad`, whose default tolerance is 1.5e-8).
fn integrate(f: &dyn Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    if b <= a {
        return 0.0;
    }
    fn step(
        f: &dyn Fn(f64) -> f64,
        (a, fa): (f64, f64),
        (m, fm): (f64, f64),
        (b, fb): (f64, f64),
        whole: f64,
        eps: f64,
        depth: u32,
    ) -> f64 {
        let (lm, rm) = ((a + m) / 2.0, (m + b) / 2.0);
        let (flm, frm) = (f(lm), f(rm));
        let left = (m - a) / 6.0 * (fa + 4.0 * flm + fm);
        let right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
        let delta = left + right - whole;
        if depth == 0 || delta.abs() <= 15.0 * eps {
            return left + right + delta / 15.0;
        }
        step(f, (a, fa), (lm, flm), (m, fm), left, eps / 2.0, depth - 1)
            + step(f, (m, fm), (rm, frm), (b, fb), right, eps / 2.0, depth - 1)
    }
    // Start from 16 panels so a curve that is flat at the ends is not mistaken for a line.
    let panels = 16;
    let h = (b - a) / panels as f64;
    (0..panels)
        .map(|i| {
            let (x0, x1) = (a + i as f64 * h, a + (i + 1) as f64 * h);
            let xm = (x0 + x1) / 2.0;
            let (f0, fm, f1) = (f(x0), f(xm), f(x1));
            let part = h / 6.0 * (f0 + 4.0 * fm + f1);
            step(f, (x0, f0), (xm, fm), (x1, f1), part, 1e-13, 40)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha1_hashes_match_python() {
        // struct.unpack("<I", hashlib.sha1(b"hello").digest()[:4])[0] and "<Q" of [:8].
        assert_eq!(sha1_hash32(b"hello"), 0x1dc6_f4aa);
        assert_eq!(sha1_hash64(b"hello"), 0xa2e8_c5dc_1dc6_f4aa);
    }

    #[test]
    fn finalizers_are_murmur3s() {
        assert_eq!(fmix32(0), 0);
        assert_eq!(fmix64(0), 0);
        assert_eq!(fmix32(1), 0x514e_28b7);
        assert_eq!(fmix64(1), 0xb456_bcfc_34c2_cb2c);
    }

    #[test]
    fn affine_parameters_are_checked() {
        assert_eq!(
            Permutations::new(Scheme::Affine32, vec![2], vec![1]),
            Err(AffineError::EvenMultiplier { scheme: "affine32" })
        );
        assert!(matches!(
            Permutations::new(Scheme::Affine32, vec![1, 3], vec![1]),
            Err(AffineError::Lengths { a: 2, b: 1 })
        ));
        assert!(Permutations::new(Scheme::Legacy, vec![2], vec![1]).is_ok());
        let p = Permutations::new(Scheme::Affine32, vec![1], vec![0]).unwrap();
        assert!(p.check_inputs(&[1 << 32]).is_err());
        assert!(p.check_inputs(&[u32::MAX as u64]).is_ok());
    }

    #[test]
    fn update_takes_the_minimum_of_each_permutation() {
        let p = Permutations::new(Scheme::Affine64, vec![1, 3], vec![0, 5]).unwrap();
        let mut v = p.empty();
        p.update(&mut v, [10, 20]);
        let expect = |a: u64, b: u64| {
            [10u64, 20]
                .iter()
                .map(|&h| a.wrapping_mul(fmix64(h)).wrapping_add(b))
                .min()
                .unwrap()
        };
        assert_eq!(v, vec![expect(1, 0), expect(3, 5)]);
        // Order and batching do not matter.
        let mut w = p.empty();
        p.update(&mut w, [20]);
        p.update(&mut w, [10]);
        assert_eq!(v, w);
    }

    #[test]
    fn legacy_wraps_like_numpy_uint64() {
        let a = (1u64 << 60) + 12345;
        let b = 99;
        let p = Permutations::new(Scheme::Legacy, vec![a], vec![b]).unwrap();
        let mut v = p.empty();
        p.update(&mut v, [u32::MAX as u64]);
        let wrapped = a.wrapping_mul(u32::MAX as u64).wrapping_add(b);
        assert_eq!(v, vec![(wrapped % MERSENNE_PRIME) & 0xFFFF_FFFF]);
    }

    #[test]
    fn integration_is_accurate_on_s_curves() {
        // ∫0^1 1 - (1 - s^2)^3 ds = 1 - (1 - 1 + 3/5 - 3/7... ) computed in closed form:
        // (1 - s^2)^3 = 1 - 3s^2 + 3s^4 - s^6, so the integral is 3/3 - 3/5 + 1/7.
        let exact = 1.0 - 3.0 / 5.0 + 1.0 / 7.0;
        let got = integrate(&|s| 1.0 - (1.0 - s * s).powi(3), 0.0, 1.0);
        assert!((got - exact).abs() < 1e-12, "{got} vs {exact}");
    }

    #[test]
    fn datasketch_parameters_of_known_settings() {
        // MinHashLSH(threshold=0.8, num_perm=128) and (0.5, 128) in datasketch 2.0.0.
        assert_eq!(jaccard_params(0.8, 128, ErrorWeights::default()), (9, 13));
        assert_eq!(jaccard_params(0.5, 128, ErrorWeights::default()), (25, 5));
        assert_eq!(jaccard_params(0.5, 16, ErrorWeights::default()), (5, 3));
        assert_eq!(jaccard_params(0.9, 256, ErrorWeights::default()), (9, 28));
    }
}
