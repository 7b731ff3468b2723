//! Weighted MinHash by consistent weighted sampling (Ioffe, "Improved Consistent Sampling,
//! Weighted Minhash and L1 Sketching", ICDM 2010), the sampler of datasketch's
//! `WeightedMinHashGenerator`.
//!
//! For `samples` independent draws `(r, ln c, β)` per dimension (`r, c ~ Gamma(2, 1)`,
//! `β ~ Uniform(0, 1)`; the caller draws them, datasketch with numpy's `RandomState(seed)`),
//! sample `i` of a weight vector `v` is the dimension `k` minimizing
//! `ln a = ln c - (t - β + 1)·r` (see [`Form`]) with `t = ⌊ln v_k / r + β⌋`, and the pair `(k, t)`. Two
//! vectors' samples agree with probability equal to their weighted Jaccard similarity
//! `Σ min(v, w) / Σ max(v, w)`. Arithmetic is in `f32`, as datasketch's.
//!
//! ```
//! use textreuse_minhash::weighted::WeightedSampler;
//!
//! // 2 samples over 3 dimensions; parameters row by row (sample-major).
//! let sampler = WeightedSampler::new(3, 2, vec![1.0; 6], vec![0.0; 6], vec![0.5; 6])?;
//! let a = sampler.sample(&[0, 2], &[1.0, 4.0])?;
//! assert_eq!(a.len(), 2);
//! assert_eq!(a, sampler.sample(&[0, 2], &[1.0, 4.0])?); // deterministic
//! # Ok::<(), textreuse_minhash::weighted::WeightedError>(())
//! ```

/// Why a weighted sample cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WeightedError {
    /// A parameter matrix is not `samples × dim`. Recover by passing `samples · dim` values
    /// per matrix.
    #[error("parameter matrix of {got} values, expected {samples} x {dim}")]
    Shape {
        /// Values given.
        got: usize,
        /// Samples.
        samples: usize,
        /// Dimensions.
        dim: usize,
    },
    /// The vector has no positive weight. Recover by passing at least one positive weight.
    #[error("Input is all zeros")]
    Empty,
    /// A dimension index is out of range, or indices and weights differ in length.
    #[error("dimension {index} out of range 0..{dim} (or indices and weights differ in length)")]
    Index {
        /// The index.
        index: usize,
        /// Dimensions.
        dim: usize,
    },
}

/// The sampler's parameters: `samples × dim` matrices of `r`, `ln c` and `β`.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedSampler {
    dim: usize,
    samples: usize,
    rs: Vec<f32>,
    ln_cs: Vec<f32>,
    betas: Vec<f32>,
}

impl WeightedSampler {
    /// A sampler over `dim` dimensions with `samples` samples; each matrix holds
    /// `samples · dim` values, sample-major (row `i` is sample `i`).
    pub fn new(
        dim: usize,
        samples: usize,
        rs: Vec<f32>,
        ln_cs: Vec<f32>,
        betas: Vec<f32>,
    ) -> Result<WeightedSampler, WeightedError> {
        for m in [&rs, &ln_cs, &betas] {
            if m.len() != dim * samples {
                return Err(WeightedError::Shape {
                    got: m.len(),
                    samples,
                    dim,
                });
            }
        }
        Ok(WeightedSampler {
            dim,
            samples,
            rs,
            ln_cs,
            betas,
        })
    }

    /// The samples `(k, t)` of the sparse vector with weights `weights` at dimensions
    /// `indices` (zero weights are skipped; ties go to the first index given), in
    /// [`Form::Sparse`].
    pub fn sample(
        &self,
        indices: &[usize],
        weights: &[f32],
    ) -> Result<Vec<(u64, i64)>, WeightedError> {
        let logs: Vec<f32> = weights
            .iter()
            .map(|&w| if w > 0.0 { w.ln() } else { f32::NAN })
            .collect();
        self.sample_logs(indices, &logs, Form::Sparse)
    }

    /// [`sample`](Self::sample) from the natural logarithms of the weights (NaN for a zero
    /// weight, which is skipped), so a caller can take them from the same `log` as datasketch
    /// (numpy's `float32` log) and get its samples bit for bit.
    pub fn sample_logs(
        &self,
        indices: &[usize],
        log_weights: &[f32],
        form: Form,
    ) -> Result<Vec<(u64, i64)>, WeightedError> {
        if indices.len() != log_weights.len() {
            return Err(WeightedError::Index {
                index: indices.len(),
                dim: self.dim,
            });
        }
        if let Some(&index) = indices.iter().find(|&&i| i >= self.dim) {
            return Err(WeightedError::Index {
                index,
                dim: self.dim,
            });
        }
        let live: Vec<(usize, f32)> = indices
            .iter()
            .zip(log_weights)
            .filter(|(_, l)| !l.is_nan())
            .map(|(&i, &l)| (i, l))
            .collect();
        if live.is_empty() {
            return Err(WeightedError::Empty);
        }
        let mut out = Vec::with_capacity(self.samples);
        for s in 0..self.samples {
            let row = s * self.dim;
            let mut best = (f32::INFINITY, 0u64, 0i64);
            for &(k, ln_v) in &live {
                let (r, beta, ln_c) = (self.rs[row + k], self.betas[row + k], self.ln_cs[row + k]);
                let t = (ln_v / r + beta).floor();
                let ln_a = match form {
                    Form::Dense => ln_c - (t - beta) * r - r,
                    Form::Sparse => ln_c - (t - beta + 1.0) * r,
                };
                if ln_a < best.0 {
                    best = (ln_a, k as u64, t as i64);
                }
            }
            out.push((best.1, best.2));
        }
        Ok(out)
    }
}

/// Which of datasketch's two (mathematically equal) forms of `ln a` to compute, since they
/// round differently in `f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `ln c - (t - β)·r - r`: `WeightedMinHashGenerator.minhash`.
    Dense,
    /// `ln c - (t - β + 1)·r`: `WeightedMinHashGenerator.minhash_many`.
    Sparse,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_xoshiro::Xoshiro256PlusPlus;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};

    fn sampler(dim: usize, samples: usize, seed: u64) -> WeightedSampler {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut unit = || (rng.next_u64() >> 11) as f32 / (1u64 << 53) as f32;
        // Gamma(2, 1) = -ln(u1 u2).
        let gamma = |u: &mut dyn FnMut() -> f32| -(u().max(1e-12) * u().max(1e-12)).ln();
        let n = dim * samples;
        let rs: Vec<f32> = (0..n).map(|_| gamma(&mut unit)).collect();
        let ln_cs: Vec<f32> = (0..n).map(|_| gamma(&mut unit).ln()).collect();
        let betas: Vec<f32> = (0..n).map(|_| unit()).collect();
        WeightedSampler::new(dim, samples, rs, ln_cs, betas).unwrap()
    }

    #[test]
    fn refuses_bad_input() {
        let s = sampler(4, 8, 1);
        assert_eq!(s.sample(&[0], &[0.0]), Err(WeightedError::Empty));
        assert!(matches!(
            s.sample(&[9], &[1.0]),
            Err(WeightedError::Index { index: 9, .. })
        ));
        assert!(WeightedSampler::new(2, 2, vec![1.0; 3], vec![0.0; 4], vec![0.0; 4]).is_err());
    }

    #[test]
    fn agreement_estimates_weighted_jaccard() {
        // v = (1, 2, 3, 0), w = (1, 1, 3, 1): Σmin = 5, Σmax = 7.
        let s = sampler(4, 4000, 7);
        let a = s.sample(&[0, 1, 2], &[1.0, 2.0, 3.0]).unwrap();
        let b = s.sample(&[0, 1, 2, 3], &[1.0, 1.0, 3.0, 1.0]).unwrap();
        let agree = a.iter().zip(&b).filter(|(x, y)| x == y).count() as f64 / 4000.0;
        // Standard deviation sqrt(p(1-p)/n) ≈ 0.007; allow 4 of them.
        assert!((agree - 5.0 / 7.0).abs() < 0.03, "{agree}");
    }

    #[test]
    fn scaling_all_weights_keeps_k_and_shifts_nothing_for_identical_vectors() {
        let s = sampler(5, 64, 3);
        let a = s.sample(&[1, 3], &[0.5, 2.0]).unwrap();
        assert_eq!(a, s.sample(&[1, 3], &[0.5, 2.0]).unwrap());
        assert!(a.iter().all(|&(k, _)| k == 1 || k == 3));
    }
}
