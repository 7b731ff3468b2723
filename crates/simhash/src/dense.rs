//! Dense vectors: `D` stored Gaussian hyperplanes -> `D`-bit signatures.

use crate::sparse::{add_gaussian, pack_positive, word_salt};
use crate::{DEFAULT_SEED, MAX_BITS, SimHashError, words_for};

/// Bits signed per pass over a vector: the accumulators of one block stay in a stack array.
const BLOCK: usize = 256;

/// `D` random hyperplanes through the origin of `R^dim`, with standard normal entries.
///
/// Bit `b` of a vector's signature is 1 when its dot product with hyperplane `b` is positive.
/// Entry `i` of hyperplane `b` is the implicit Gaussian entry of feature `i` for bit `b` under the
/// seed (as [`Projection::Gaussian`] defines it), so signing a dense vector gives bit for bit the
/// same signature as [`SimHasher`] with that projection on the features `(i, v[i])` in order;
/// the matrix is just materialised for speed. The entries come from this crate's own normal
/// generator ([`Normals`]), so they are identical on every machine.
///
/// ```
/// use textreuse_simhash::{Hyperplanes, cosine_estimate};
///
/// let planes = Hyperplanes::new(3, 100, 1123456)?; // dim 3, the research's D = 100
/// let a = planes.sign(&[1.0, 0.0, 0.0])?;
/// let b = planes.sign(&[1.0, 0.2, 0.0])?;
/// let h = a.hamming(&b).unwrap();
/// // cos(a, b) = 0.98; the estimate cos(pi h / D) is close to it.
/// assert!(cosine_estimate(h, 100) > 0.8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`Projection::Gaussian`]: crate::Projection::Gaussian
/// [`SimHasher`]: crate::SimHasher
/// [`Normals`]: crate::Normals
#[derive(Clone, Debug, PartialEq)]
pub struct Hyperplanes {
    dim: usize,
    bits: u32,
    seed: u64,
    /// Row-major, `bits` rows of `dim` entries.
    planes: Vec<f64>,
    /// The same entries by block of [`BLOCK`] bits and column: for the block of bits
    /// `lo..hi` and coordinate `i`, the `hi - lo` entries of those bits, so signing adds one
    /// column per coordinate (a loop the compiler vectorizes) while each bit's dot product is
    /// still summed in coordinate order, bit for bit as the row-major loop.
    columns: Vec<f64>,
}

impl Hyperplanes {
    /// `bits` hyperplanes (1 to 65536; the research used 100) in dimension `dim` (at least 1),
    /// drawn from `seed`. Needs `16 · dim · bits` bytes (the entries by plane and by column).
    pub fn new(dim: usize, bits: u32, seed: u64) -> Result<Hyperplanes, SimHashError> {
        if bits == 0 || bits > MAX_BITS {
            return Err(SimHashError::InvalidBits { bits });
        }
        if dim == 0 {
            return Err(SimHashError::InvalidDimension { dim });
        }
        let nb = bits as usize;
        let Some(len) = nb.checked_mul(dim) else {
            return Err(SimHashError::InvalidDimension { dim });
        };
        let mut planes = vec![0.0f64; len];
        let mut column = [0.0f64; 64];
        for w in 0..words_for(bits) {
            let salt = word_salt(seed, w);
            let lo = 64 * w;
            let hi = (lo + 64).min(nb);
            for i in 0..dim {
                let col = &mut column[..hi - lo];
                col.fill(0.0);
                add_gaussian(col, salt, i as u64, 1.0);
                for (j, &x) in col.iter().enumerate() {
                    planes[(lo + j) * dim + i] = x;
                }
            }
        }
        let mut columns = vec![0.0f64; len];
        for (b, row) in planes.chunks_exact(dim).enumerate() {
            let lo = b / BLOCK * BLOCK;
            let width = (lo + BLOCK).min(nb) - lo;
            for (i, &x) in row.iter().enumerate() {
                columns[lo * dim + i * width + (b - lo)] = x;
            }
        }
        Ok(Hyperplanes {
            dim,
            bits,
            seed,
            planes,
            columns,
        })
    }

    /// `D = 100` hyperplanes (the research's width) in dimension `dim` from the default seed.
    pub fn with_dim(dim: usize) -> Result<Hyperplanes, SimHashError> {
        Hyperplanes::new(dim, crate::DEFAULT_DENSE_BITS, DEFAULT_SEED)
    }

    /// The dimension of the vectors.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The number of hyperplanes, which is the signature width `D`.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of `u64` words of one signature, `ceil(D / 64)`.
    pub fn words(&self) -> usize {
        words_for(self.bits)
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Hyperplane `b` (its normal vector), or `None` if `b >= D`.
    pub fn plane(&self, b: usize) -> Option<&[f64]> {
        let start = b.checked_mul(self.dim)?;
        self.planes.get(start..start.checked_add(self.dim)?)
    }

    /// Writes the signature of `v` (length `dim`) into `out` (`words()` words). No allocation.
    pub fn sign_into(&self, v: &[f64], out: &mut [u64]) -> Result<(), SimHashError> {
        if v.len() != self.dim {
            return Err(SimHashError::LengthMismatch {
                expected: self.dim,
                got: v.len(),
            });
        }
        if out.len() != self.words() {
            return Err(SimHashError::LengthMismatch {
                expected: self.words(),
                got: out.len(),
            });
        }
        let mut acc = [0.0f64; BLOCK];
        let nb = self.bits as usize;
        for lo in (0..nb).step_by(BLOCK) {
            let hi = (lo + BLOCK).min(nb);
            let acc = &mut acc[..hi - lo];
            // Every bit's sum runs in coordinate order, as the sparse path does for features
            // (0, v[0]), (1, v[1]), ...: 0 + x0·p0 + x1·p1 + ...
            acc.fill(0.0);
            let columns = &self.columns[lo * self.dim..hi * self.dim];
            for (&x, column) in v.iter().zip(columns.chunks_exact(hi - lo)) {
                for (a, &p) in acc.iter_mut().zip(column) {
                    *a += x * p;
                }
            }
            for (o, bits) in out[lo / 64..].iter_mut().zip(acc.chunks(64)) {
                *o = pack_positive(bits);
            }
        }
        Ok(())
    }

    /// The signature of `v` (length `dim`).
    pub fn sign(&self, v: &[f64]) -> Result<Signature, SimHashError> {
        let mut words = vec![0u64; self.words()];
        self.sign_into(v, &mut words)?;
        Ok(Signature {
            words,
            bits: self.bits,
        })
    }

    /// Signs `n` vectors stored row-major in `vectors` (`n · dim` values), appending
    /// `n · words()` words to `out`.
    pub fn sign_batch(&self, vectors: &[f64], out: &mut Vec<u64>) -> Result<(), SimHashError> {
        if !vectors.len().is_multiple_of(self.dim) {
            return Err(SimHashError::LengthMismatch {
                expected: vectors.len() / self.dim * self.dim,
                got: vectors.len(),
            });
        }
        let start = out.len();
        let words = self.words();
        out.resize(start + vectors.len() / self.dim * words, 0);
        for (v, o) in vectors
            .chunks_exact(self.dim)
            .zip(out[start..].chunks_exact_mut(words))
        {
            self.sign_into(v, o)?;
        }
        Ok(())
    }
}

/// A `D`-bit signature: bit `b` is bit `b % 64` of word `b / 64`; bits at and above `D` are 0.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    words: Vec<u64>,
    bits: u32,
}

impl Signature {
    /// A signature of `bits` bits from its words, or `None` if `words.len() != ceil(bits / 64)`
    /// or a bit at or above `bits` is set.
    pub fn from_words(words: Vec<u64>, bits: u32) -> Option<Signature> {
        if bits == 0 || words.len() != words_for(bits) {
            return None;
        }
        let rem = bits % 64;
        if rem != 0 && words[words.len() - 1] >> rem != 0 {
            return None;
        }
        Some(Signature { words, bits })
    }

    /// The words.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The width `D` in bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Bit `b` (false for `b >= D`).
    pub fn bit(&self, b: u32) -> bool {
        b < self.bits && (self.words[(b / 64) as usize] >> (b % 64)) & 1 == 1
    }

    /// The Hamming distance to `other`, or `None` if the widths differ.
    pub fn hamming(&self, other: &Signature) -> Option<u32> {
        (self.bits == other.bits).then(|| hamming_words(&self.words, &other.words))
    }
}

/// The Hamming distance between two equally long word slices (over the common prefix if the
/// lengths differ).
#[inline]
pub fn hamming_words(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

#[cfg(test)]
mod tests {
    use super::{Hyperplanes, Signature};
    use crate::{Projection, SimHasher};

    #[test]
    fn dense_equals_sparse_gaussian() {
        let planes = Hyperplanes::new(17, 130, 99).unwrap();
        let hasher = SimHasher::builder()
            .bits(130)
            .seed(99)
            .projection(Projection::Gaussian)
            .build()
            .unwrap();
        for k in 0..20 {
            let v: Vec<f64> = (0..17)
                .map(|i| ((i * 7 + k * 3) % 11) as f64 - 5.3)
                .collect();
            let dense = planes.sign(&v).unwrap();
            let mut sparse = [0u64; 3];
            hasher
                .signature_into(
                    v.iter().enumerate().map(|(i, &x)| (i as u64, x)),
                    &mut sparse,
                )
                .unwrap();
            assert_eq!(dense.words(), &sparse);
        }
        let mut batch = Vec::new();
        planes.sign_batch(&[1.0; 34], &mut batch).unwrap();
        assert_eq!(batch.len(), 6);
        assert_eq!(&batch[..3], planes.sign(&[1.0; 17]).unwrap().words());
        assert!(planes.sign_batch(&[1.0; 35], &mut batch).is_err());
        assert!(planes.sign(&[1.0; 16]).is_err());
    }

    proptest::proptest! {
        /// The column-wise signing equals the dot product with each plane, summed in
        /// coordinate order, for any width and dimension.
        #[test]
        fn columns_equal_rows(
            dim in 1usize..40,
            bits in 1u32..300,
            seed in 0u64..1000,
            scale in -3.0f64..3.0,
        ) {
            let planes = Hyperplanes::new(dim, bits, seed).unwrap();
            let v: Vec<f64> = (0..dim).map(|i| scale * ((i * 37 % 11) as f64 - 4.5)).collect();
            let got = planes.sign(&v).unwrap();
            for b in 0..bits {
                let mut s = 0.0;
                for (&p, &x) in planes.plane(b as usize).unwrap().iter().zip(&v) {
                    s += x * p;
                }
                proptest::prop_assert_eq!(got.bit(b), s > 0.0);
            }
        }
    }

    #[test]
    fn signature_accessors() {
        let s = Signature::from_words(vec![0b101, 0b1], 65).unwrap();
        assert!(s.bit(0) && !s.bit(1) && s.bit(2) && s.bit(64) && !s.bit(65));
        assert!(Signature::from_words(vec![0, 2], 65).is_none());
        assert!(Signature::from_words(vec![0], 65).is_none());
        let t = Signature::from_words(vec![0b110, 0], 65).unwrap();
        assert_eq!(s.hamming(&t), Some(3));
        let u = Signature::from_words(vec![0, 0], 66).unwrap();
        assert_eq!(s.hamming(&u), None);
        assert!(Hyperplanes::new(0, 10, 1).is_err());
        assert!(Hyperplanes::new(1, 0, 1).is_err());
        assert!(Hyperplanes::new(usize::MAX / 2, 100, 1).is_err());
    }
}
