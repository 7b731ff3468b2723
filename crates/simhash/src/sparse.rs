//! SimHash over sparse weighted features with implicit random hyperplanes.

use crate::gaussian::Normals;
use crate::{DEFAULT_SEED, MAX_BITS, SimHashError, words_for};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::SeedableRng;
use textreuse_hash::mix64;

/// SplitMix64's golden-ratio increment.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The salt of signature word `word` (bits `64·word .. 64·word + 63`) under `seed`.
#[inline]
pub(crate) fn word_salt(seed: u64, word: usize) -> u64 {
    mix64(seed.wrapping_add((word as u64).wrapping_add(1).wrapping_mul(GAMMA)))
}

/// The 64-bit key from which the hyperplane entries of one feature for one signature word are
/// generated: `mix64(mix64(feature) ^ salt)`.
#[inline]
pub(crate) fn feature_key(salt: u64, feature: u64) -> u64 {
    mix64(mix64(feature) ^ salt)
}

/// How the implicit hyperplane entries of a feature are generated from its key.
///
/// Both kinds are a pure function of `(seed, feature hash, bit index)`: no `V x D` matrix is ever
/// stored, and a feature seen for the first time on another machine gets the same entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Projection {
    /// Charikar's SimHash: entry `+1` or `-1` from one bit of the feature key (bit `j` of word
    /// `w` is bit `j` of `feature_key(salt_w, feature)`). One key per feature per 64 bits, so this
    /// is the fast choice and the default. The agreement probability `1 - theta/pi` holds
    /// approximately (exactly only in the limit of many comparable features); see the crate
    /// docs' accuracy section.
    #[default]
    Sign,
    /// Random-hyperplane LSH proper: entries are standard normal variates ([`Normals`] seeded by
    /// the feature key, one stream per 64 bits, bit `j` of the word takes the `j`-th variate).
    /// Hyperplanes are then rotation invariant, so one bit of two vectors at angle `theta`
    /// agrees with probability exactly `1 - theta/pi`. Much slower than [`Sign`] (about 90 times
    /// in the `simhash/fingerprint` bench).
    ///
    /// [`Sign`]: Projection::Sign
    Gaussian,
}

/// Computes SimHash fingerprints of sparse weighted features.
///
/// A feature is a `u64` hash (a word or shingle fingerprint from `textreuse_hash::fingerprint`)
/// with a weight (a count, a tf-idf value). Bit `b` of the fingerprint is 1 when
/// `sum over features of weight · r_b(feature) > 0`, where `r_b(feature)` is the entry of an
/// implicit random hyperplane generated from `(seed, feature, b)` (see [`Projection`]). Bit `b`
/// is bit `b % 64` of word `b / 64`.
///
/// Fingerprints of up to 64 bits (the default is 64) come back as a `u64` from
/// [`fingerprint`](SimHasher::fingerprint); wider signatures (the research's `D = 100`) are
/// written into a slice of words by [`signature_into`](SimHasher::signature_into). A wider
/// signature starts with the narrower one: the bits of a `D`-bit signature are the first `D`
/// bits of any wider one with the same seed and projection.
///
/// ```
/// use textreuse_hash::fingerprint;
/// use textreuse_simhash::SimHasher;
///
/// let hasher = SimHasher::new();
/// let words = |s: &str| s.split(' ').map(|w| fingerprint(w.as_bytes())).collect::<Vec<_>>();
/// let a = hasher.fingerprint_unweighted(words("the cat sat on the mat today"));
/// let b = hasher.fingerprint_unweighted(words("the cat sat on the mat yesterday"));
/// let c = hasher.fingerprint_unweighted(words("completely different words are here now"));
/// assert!((a ^ b).count_ones() < (a ^ c).count_ones());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimHasher {
    bits: u32,
    seed: u64,
    projection: Projection,
    /// `word_salt(seed, w)` for every signature word.
    salts: Vec<u64>,
}

impl Default for SimHasher {
    fn default() -> Self {
        SimHasher::new()
    }
}

/// Builds a [`SimHasher`]: `SimHasher::builder().bits(100).seed(7).build()?`.
#[derive(Clone, Debug)]
pub struct SimHasherBuilder {
    bits: u32,
    seed: u64,
    projection: Projection,
}

impl Default for SimHasherBuilder {
    fn default() -> Self {
        SimHasherBuilder {
            bits: 64,
            seed: DEFAULT_SEED,
            projection: Projection::Sign,
        }
    }
}

impl SimHasherBuilder {
    /// The signature width `D` in bits (default 64; 1 to 65536).
    pub fn bits(&mut self, bits: u32) -> &mut Self {
        self.bits = bits;
        self
    }

    /// The seed of the implicit hyperplanes (default 1123456, the research's seed).
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// How hyperplane entries are generated (default [`Projection::Sign`]).
    pub fn projection(&mut self, projection: Projection) -> &mut Self {
        self.projection = projection;
        self
    }

    /// Checks the parameters and builds the hasher.
    pub fn build(&self) -> Result<SimHasher, SimHashError> {
        if self.bits == 0 || self.bits > MAX_BITS {
            return Err(SimHashError::InvalidBits { bits: self.bits });
        }
        let words = words_for(self.bits);
        Ok(SimHasher {
            bits: self.bits,
            seed: self.seed,
            projection: self.projection,
            salts: (0..words).map(|w| word_salt(self.seed, w)).collect(),
        })
    }
}

impl SimHasher {
    /// 64-bit fingerprints with [`Projection::Sign`] and the default seed 1123456.
    pub fn new() -> SimHasher {
        SimHasherBuilder::default()
            .build()
            .expect("the default parameters are valid")
    }

    /// A builder starting from the defaults.
    pub fn builder() -> SimHasherBuilder {
        SimHasherBuilder::default()
    }

    /// The signature width `D` in bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of `u64` words of one signature, `ceil(D / 64)`.
    pub fn words(&self) -> usize {
        self.salts.len()
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The projection kind.
    pub fn projection(&self) -> Projection {
        self.projection
    }

    /// The number of bits held by signature word `w`.
    #[inline]
    fn bits_in_word(&self, w: usize) -> u32 {
        (self.bits - 64 * w as u32).min(64)
    }

    /// The fingerprint of weighted features: the first `min(D, 64)` bits of the signature.
    ///
    /// Weights are anything convertible to `f64` (`f32`, `f64`, `u32`, ...); a feature listed
    /// twice counts with the sum of its weights. The sums are accumulated in `f64` in the order
    /// of the features, so the result is deterministic for a given order; a different order can
    /// only change a bit whose sum is within rounding error of zero. A NaN weight makes every
    /// sum NaN and every bit 0; the empty feature set also gives 0.
    ///
    /// Bits at and above `D` are 0. When `D > 64` this is word 0 of
    /// [`signature_into`](SimHasher::signature_into).
    pub fn fingerprint<I, W>(&self, features: I) -> u64
    where
        I: IntoIterator<Item = (u64, W)>,
        W: Into<f64>,
    {
        self.word_weighted(features, 0)
    }

    /// The fingerprint of unweighted features (every weight 1), as
    /// [`fingerprint`](SimHasher::fingerprint).
    ///
    /// With [`Projection::Sign`] the sums are exact integer counts, so the result does not
    /// depend on the order of the features at all.
    pub fn fingerprint_unweighted<I>(&self, features: I) -> u64
    where
        I: IntoIterator<Item = u64>,
    {
        self.word_unweighted(features, 0)
    }

    /// Writes the full `D`-bit signature of weighted features into `out` (`ceil(D/64)` words).
    ///
    /// The features are iterated once per 64 bits, hence the `Clone` bound (pass
    /// `slice.iter().copied()`).
    pub fn signature_into<I, W>(&self, features: I, out: &mut [u64]) -> Result<(), SimHashError>
    where
        I: IntoIterator<Item = (u64, W)> + Clone,
        W: Into<f64>,
    {
        self.check_out(out.len())?;
        for (w, o) in out.iter_mut().enumerate() {
            *o = self.word_weighted(features.clone(), w);
        }
        Ok(())
    }

    /// Writes the full `D`-bit signature of unweighted features into `out` (`ceil(D/64)` words).
    pub fn signature_unweighted_into(
        &self,
        features: &[u64],
        out: &mut [u64],
    ) -> Result<(), SimHashError> {
        self.check_out(out.len())?;
        for (w, o) in out.iter_mut().enumerate() {
            *o = self.word_unweighted(features.iter().copied(), w);
        }
        Ok(())
    }

    /// The fingerprints of many unweighted feature lists (one per sentence, say), in order.
    ///
    /// This is the batch entry point for a pipeline stage: one `u64` per list, no allocation
    /// besides the returned vector. For `D > 64` each value is the signature's first word; use
    /// [`signatures_flat`](SimHasher::signatures_flat) for full signatures.
    pub fn fingerprint_lists<L: AsRef<[u64]>>(&self, lists: &[L]) -> Vec<u64> {
        lists
            .iter()
            .map(|l| self.word_unweighted(l.as_ref().iter().copied(), 0))
            .collect()
    }

    /// The fingerprints of many weighted feature lists, in order; the weighted counterpart of
    /// [`fingerprint_lists`](SimHasher::fingerprint_lists).
    pub fn fingerprint_weighted_lists<L: AsRef<[(u64, f32)]>>(&self, lists: &[L]) -> Vec<u64> {
        lists
            .iter()
            .map(|l| self.word_weighted(l.as_ref().iter().copied(), 0))
            .collect()
    }

    /// Full signatures of the lists `features[offsets[i]..offsets[i + 1]]` (Arrow-style flat
    /// buffers), appended to `out` as `words()` words per list.
    ///
    /// `offsets` must be non-decreasing and end within `features`; otherwise nothing is written
    /// and [`SimHashError::InvalidOffsets`] names the first bad offset.
    pub fn signatures_flat(
        &self,
        features: &[u64],
        offsets: &[usize],
        out: &mut Vec<u64>,
    ) -> Result<(), SimHashError> {
        check_offsets(offsets, features.len())?;
        out.reserve(offsets.len().saturating_sub(1) * self.words());
        for pair in offsets.windows(2) {
            let list = &features[pair[0]..pair[1]];
            for w in 0..self.words() {
                out.push(self.word_unweighted(list.iter().copied(), w));
            }
        }
        Ok(())
    }

    /// Like [`signatures_flat`](SimHasher::signatures_flat) with one `f32` weight per feature.
    pub fn signatures_flat_weighted(
        &self,
        features: &[u64],
        weights: &[f32],
        offsets: &[usize],
        out: &mut Vec<u64>,
    ) -> Result<(), SimHashError> {
        if weights.len() != features.len() {
            return Err(SimHashError::LengthMismatch {
                expected: features.len(),
                got: weights.len(),
            });
        }
        check_offsets(offsets, features.len())?;
        out.reserve(offsets.len().saturating_sub(1) * self.words());
        for pair in offsets.windows(2) {
            let (f, wt) = (&features[pair[0]..pair[1]], &weights[pair[0]..pair[1]]);
            for w in 0..self.words() {
                out.push(self.word_weighted(f.iter().copied().zip(wt.iter().copied()), w));
            }
        }
        Ok(())
    }

    fn check_out(&self, len: usize) -> Result<(), SimHashError> {
        if len == self.words() {
            Ok(())
        } else {
            Err(SimHashError::LengthMismatch {
                expected: self.words(),
                got: len,
            })
        }
    }

    /// Signature word `w` of weighted features.
    #[inline]
    fn word_weighted<I, W>(&self, features: I, w: usize) -> u64
    where
        I: IntoIterator<Item = (u64, W)>,
        W: Into<f64>,
    {
        let salt = self.salts[w];
        let nbits = self.bits_in_word(w);
        let mut acc = [0.0f64; 64];
        match self.projection {
            Projection::Sign => {
                for (feature, weight) in features {
                    let key = feature_key(salt, feature);
                    let weight: f64 = weight.into();
                    // acc[j] += weight * (+1 or -1), eight bits at a time from a table of signs
                    // (the products are exact, so this is the same sum as a branch per bit).
                    for (b, chunk) in acc.chunks_exact_mut(8).enumerate() {
                        let row = &SIGNS[((key >> (8 * b)) & 0xff) as usize];
                        for (a, &sign) in chunk.iter_mut().zip(row) {
                            *a += weight * sign;
                        }
                    }
                }
            }
            Projection::Gaussian => {
                for (feature, weight) in features {
                    let weight: f64 = weight.into();
                    add_gaussian(&mut acc[..nbits as usize], salt, feature, weight);
                }
            }
        }
        pack_positive(&acc[..nbits as usize])
    }

    /// Signature word `w` of unweighted features.
    #[inline]
    fn word_unweighted<I>(&self, features: I, w: usize) -> u64
    where
        I: IntoIterator<Item = u64>,
    {
        match self.projection {
            Projection::Sign => {
                let salt = self.salts[w];
                // Counts of one bits per position, SWAR style: lanes[b] holds eight byte-wide
                // counters for bits 8b..8b+7, flushed into `ones` before a byte can overflow.
                let mut ones = [0u64; 64];
                let mut lanes = [0u64; 8];
                let mut pending = 0u32;
                let mut n: u64 = 0;
                for feature in features {
                    let key = feature_key(salt, feature);
                    for (b, lane) in lanes.iter_mut().enumerate() {
                        *lane += SPREAD[((key >> (8 * b)) & 0xff) as usize];
                    }
                    n += 1;
                    pending += 1;
                    if pending == 255 {
                        flush(&mut lanes, &mut ones);
                        pending = 0;
                    }
                }
                flush(&mut lanes, &mut ones);
                let mut out = 0u64;
                for (j, &o) in ones.iter().enumerate().take(self.bits_in_word(w) as usize) {
                    // The sum of +-1 is ones - (n - ones) > 0.
                    out |= ((2 * o > n) as u64) << j;
                }
                out
            }
            Projection::Gaussian => {
                self.word_weighted(features.into_iter().map(|f| (f, 1.0f64)), w)
            }
        }
    }
}

/// `SPREAD[v]` has byte `k` equal to bit `k` of `v`.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut v = 0;
    while v < 256 {
        let mut k = 0;
        while k < 8 {
            t[v] |= ((v as u64 >> k) & 1) << (8 * k);
            k += 1;
        }
        v += 1;
    }
    t
};

/// `SIGNS[v][k]` is `+1.0` if bit `k` of `v` is set, else `-1.0`.
const SIGNS: [[f64; 8]; 256] = {
    let mut t = [[0.0f64; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut k = 0;
        while k < 8 {
            t[v][k] = if (v >> k) & 1 == 1 { 1.0 } else { -1.0 };
            k += 1;
        }
        v += 1;
    }
    t
};

/// Adds the byte counters of `lanes` into `ones` and clears them.
#[inline]
fn flush(lanes: &mut [u64; 8], ones: &mut [u64; 64]) {
    for (b, lane) in lanes.iter_mut().enumerate() {
        for k in 0..8 {
            ones[8 * b + k] += (*lane >> (8 * k)) & 0xff;
        }
        *lane = 0;
    }
}

/// Adds `weight` times the Gaussian hyperplane entries of `feature` to `acc` (one per bit).
#[inline]
pub(crate) fn add_gaussian(acc: &mut [f64], salt: u64, feature: u64, weight: f64) {
    let mut normals = Normals::from_rng(Xoshiro256PlusPlus::seed_from_u64(feature_key(
        salt, feature,
    )));
    for a in acc.iter_mut() {
        *a += weight * normals.next_normal();
    }
}

/// Bit `j` set where `acc[j] > 0`.
#[inline]
pub(crate) fn pack_positive(acc: &[f64]) -> u64 {
    let mut out = 0u64;
    for (j, &a) in acc.iter().enumerate() {
        out |= ((a > 0.0) as u64) << j;
    }
    out
}

fn check_offsets(offsets: &[usize], len: usize) -> Result<(), SimHashError> {
    let mut prev = 0;
    for (index, &o) in offsets.iter().enumerate() {
        if (index > 0 && o < prev) || o > len {
            return Err(SimHashError::InvalidOffsets { index });
        }
        prev = o;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Projection, SimHasher};
    use crate::SimHashError;

    #[test]
    fn empty_and_errors() {
        let h = SimHasher::new();
        assert_eq!(h.fingerprint_unweighted([]), 0);
        assert_eq!(h.fingerprint(core::iter::empty::<(u64, f64)>()), 0);
        assert_eq!(
            SimHasher::builder().bits(0).build(),
            Err(SimHashError::InvalidBits { bits: 0 })
        );
        assert!(SimHasher::builder().bits(65537).build().is_err());
        let mut out = Vec::new();
        assert_eq!(
            h.signatures_flat(&[1, 2, 3], &[0, 2, 1], &mut out),
            Err(SimHashError::InvalidOffsets { index: 2 })
        );
        assert_eq!(
            h.signatures_flat(&[1, 2, 3], &[0, 4], &mut out),
            Err(SimHashError::InvalidOffsets { index: 1 })
        );
        assert!(out.is_empty());
        let mut two = [0u64; 2];
        assert!(h.signature_into([(1u64, 1.0f64)], &mut two).is_err());
    }

    #[test]
    fn unweighted_equals_unit_weights_and_narrow_is_prefix() {
        for projection in [Projection::Sign, Projection::Gaussian] {
            let wide = SimHasher::builder()
                .bits(150)
                .projection(projection)
                .build()
                .unwrap();
            let narrow = SimHasher::builder()
                .bits(40)
                .projection(projection)
                .build()
                .unwrap();
            let features: Vec<u64> = (0..37u64).map(|i| i * 7919 + 3).collect();
            let mut sig = [0u64; 3];
            wide.signature_unweighted_into(&features, &mut sig).unwrap();
            let mut sig_w = [0u64; 3];
            wide.signature_into(features.iter().map(|&f| (f, 1.0f32)), &mut sig_w)
                .unwrap();
            assert_eq!(sig, sig_w);
            assert_eq!(sig[2] >> 22, 0, "bits above D are zero");
            let n = narrow.fingerprint_unweighted(features.iter().copied());
            assert_eq!(n, sig[0] & ((1 << 40) - 1));
            let mut flat = Vec::new();
            wide.signatures_flat(&features, &[0, 37, 37], &mut flat)
                .unwrap();
            assert_eq!(flat.len(), 6);
            assert_eq!(&flat[0..3], &sig);
            assert_eq!(&flat[3..6], &[0, 0, 0]);
            assert_eq!(
                narrow.fingerprint_lists(&[&features[..10], &features[..]])[1],
                n
            );
            let ones: Vec<(u64, f32)> = features.iter().map(|&f| (f, 1.0)).collect();
            assert_eq!(
                narrow.fingerprint_weighted_lists(&[&ones[..], &[]])[..],
                [n, 0]
            );
        }
    }

    #[test]
    fn counters_survive_many_features() {
        // More than 255 features exercises the byte-counter flush; the weighted path counts in
        // f64 independently.
        let h = SimHasher::new();
        for n in [254u64, 255, 256, 511, 700, 2000] {
            let f: Vec<u64> = (0..n).map(|i| i % 300).collect();
            assert_eq!(
                h.fingerprint_unweighted(f.iter().copied()),
                h.fingerprint(f.iter().map(|&x| (x, 1.0f64))),
                "n {n}"
            );
        }
    }

    #[test]
    fn unweighted_sign_is_order_independent() {
        let h = SimHasher::new();
        let f: Vec<u64> = (0..100).collect();
        let mut r = f.clone();
        r.reverse();
        assert_eq!(h.fingerprint_unweighted(f), h.fingerprint_unweighted(r));
    }

    #[test]
    fn negating_weights_complements_bits() {
        for projection in [Projection::Sign, Projection::Gaussian] {
            let h = SimHasher::builder().projection(projection).build().unwrap();
            let f: Vec<(u64, f64)> = (0..20).map(|i| (i * 31, (i as f64 + 2.0).sqrt())).collect();
            let a = h.fingerprint(f.iter().copied());
            let b = h.fingerprint(f.iter().map(|&(x, w)| (x, -w)));
            assert_eq!(a, !b);
        }
    }
}
