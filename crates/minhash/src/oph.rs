//! One-permutation hashing with optimal densification ([`BandScheme::Oph`](crate::BandScheme)).
//!
//! Each shingle `x` is hashed once, `h = mix64(x ^ key)` (a bijection of 64-bit words, so
//! distinct shingles never share a value), and goes to bin `⌊h·D / 2^64⌋` of `D = K·M` bins;
//! each bin keeps the smallest `h` it received. A bin no shingle reached borrows the value of a
//! non-empty bin: the first non-empty bin in its own fixed random order of all bins (Shrivastava
//! 2017, "Optimal densification for fast and accurate minwise hashing"). The order of bin `j`
//! sorts bins `b` by `mix64(rank_key ^ (j·2^32 + b))`; its first [`PROBES`] entries are kept in a
//! table, and when all of those are empty the first non-empty bin is found as the minimum rank
//! over the non-empty bins, which is the same bin a longer table would have reached.
//!
//! Why bin `j` of two sets `A` and `B` agrees with probability exactly `J = |A∩B| / |A∪B|` (for
//! a random hash): follow `j`'s order in the union `A∪B` to its first non-empty bin `b`. Earlier
//! bins are empty in the union, so in `A` and `B` too. If the union's minimum in `b` belongs to
//! both sets, both stop at `b` with that element; otherwise one set does not contain it and the
//! two pick different elements, hence different values. The element the union picks is uniform
//! over `A∪B` (nothing in the procedure depends on which element is which), so it lies in `A∩B`
//! with probability `J`.
//!
//! The band curve needs more: see [`sized_match_probability`], exact when the bins' orders are
//! random (which the fixed orders of one seed approximate).
use textreuse_hash::mix64;

use crate::kernel::Isa;

/// Entries of each bin's order kept in the probe table.
pub(crate) const PROBES: usize = 16;

/// Largest `D = K·M` (bin indices are stored as `u16` and the empty-bin bitmap lives on the
/// stack).
pub(crate) const MAX_BINS: usize = 4096;

/// A bin no shingle reached. (The one shingle whose hash is `u64::MAX` would be taken for
/// empty in the last bin; that has probability `2^-64` per shingle and harms nothing but that
/// bin's borrowing.)
const EMPTY: u64 = u64::MAX;

/// Domain separators for the two keys drawn from the seed.
const HASH_DOMAIN: u64 = 0x6f70_685f_6861_7368; // "oph_hash"
const ORDER_DOMAIN: u64 = 0x6f70_685f_6f72_6472; // "oph_ordr"

/// The hash key, the probe orders and the bin count of one OPH signer.
#[derive(Clone, Debug)]
pub(crate) struct Oph {
    bins: usize,
    key: u64,
    rank_key: u64,
    /// `bins × probes` bin indices: the start of each bin's order (itself excluded).
    table: Box<[u16]>,
    probes: usize,
}

impl Oph {
    /// `bins` is 1 to [`MAX_BINS`].
    pub(crate) fn new(bins: usize, seed: u64) -> Oph {
        assert!((1..=MAX_BINS).contains(&bins));
        let key = mix64(seed ^ HASH_DOMAIN);
        let rank_key = mix64(seed ^ ORDER_DOMAIN);
        let probes = PROBES.min(bins - 1);
        let mut table = Vec::with_capacity(bins * probes);
        let mut order: Vec<(u64, u16)> = Vec::with_capacity(bins);
        for j in 0..bins {
            order.clear();
            order.extend(
                (0..bins)
                    .filter(|&b| b != j)
                    .map(|b| (rank(rank_key, j, b), b as u16)),
            );
            if probes < order.len() {
                order.select_nth_unstable(probes);
                order.truncate(probes);
            }
            order.sort_unstable();
            table.extend(order.iter().map(|&(_, b)| b));
        }
        Oph {
            bins,
            key,
            rank_key,
            table: table.into_boxed_slice(),
            probes,
        }
    }

    /// The shingle's 64-bit hash: SplitMix64's finalizer ([`mix64`]) of `x ^ key`.
    #[inline]
    pub(crate) fn hash(&self, x: u64) -> u64 {
        mix64(x ^ self.key)
    }

    /// The bin of a hash, from its top 32 bits: `⌊⌊h / 2^32⌋·D / 2^32⌋`. Monotone in `h`, so
    /// a bin holds one range of hash values.
    #[inline]
    pub(crate) fn bin(&self, h: u64) -> usize {
        (((h >> 32) * self.bins as u64) >> 32) as usize
    }

    /// Fills `out` (`D` words) with the densified bin minima of `shingles` (not empty),
    /// shifted right by `shift`, with code compiled for `isa` (the same results on every ISA).
    #[inline]
    pub(crate) fn sign(&self, isa: Isa, shingles: &[u64], shift: u32, out: &mut [u64]) {
        assert!(!shingles.is_empty() && out.len() == self.bins && shift < 64);
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Ifma` and `Isa::Avx512` are only produced by `Isa::supported`
            // after the CPU reported avx512f and avx512dq.
            Isa::Ifma | Isa::Avx512 => unsafe { self.sign_avx512(shingles, shift, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only produced after the CPU reported avx2.
            Isa::Avx2 => unsafe { self.sign_avx2(shingles, shift, out) },
            Isa::Portable => self.sign_generic(shingles, shift, out),
        }
    }

    /// [`Oph::sign_generic`] compiled with AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
    fn sign_avx512(&self, shingles: &[u64], shift: u32, out: &mut [u64]) {
        self.sign_generic(shingles, shift, out)
    }

    /// [`Oph::sign_generic`] compiled with AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn sign_avx2(&self, shingles: &[u64], shift: u32, out: &mut [u64]) {
        self.sign_generic(shingles, shift, out)
    }

    /// The signing code: hash and place every shingle, densify, shift. (Hashing eight
    /// shingles per AVX-512 vector and placing them from a buffer measured slower: the 64-bit
    /// vector multiplies have long latency and the reloads wait for the buffer's store.)
    #[inline(always)]
    fn sign_generic(&self, shingles: &[u64], shift: u32, out: &mut [u64]) {
        out.fill(EMPTY);
        for &x in shingles {
            let h = self.hash(x);
            let slot = &mut out[self.bin(h)];
            *slot = (*slot).min(h);
        }
        self.densify(out);
        if shift > 0 {
            for v in out.iter_mut() {
                *v >>= shift;
            }
        }
    }

    /// Fills every empty bin with the value of the first non-empty bin in its order.
    ///
    /// Branch-free where the pattern of empty bins is random (finding the empty bins, the first
    /// [`FIRST`] probes): mispredicted branches cost more than the work itself.
    #[inline(always)]
    fn densify(&self, out: &mut [u64]) {
        // filled[b] = 1 for a bin some shingle reached (a vector compare per 8 bins).
        let mut filled = [0u8; MAX_BINS];
        let filled = &mut filled[..self.bins];
        let mut any_empty = false;
        for (f, &v) in filled.iter_mut().zip(out.iter()) {
            *f = (v != EMPTY) as u8;
            any_empty |= v == EMPTY;
        }
        if !any_empty {
            return;
        }
        let filled = &*filled;
        for j in 0..self.bins {
            if filled[j] == 1 {
                continue;
            }
            let probes = &self.table[j * self.probes..(j + 1) * self.probes];
            // Which of the first FIRST probes hit a filled bin, as a bit mask.
            let mut hits = 0u32;
            for (i, &b) in probes.iter().take(FIRST).enumerate() {
                hits |= (filled[b as usize] as u32) << i;
            }
            let source = if hits != 0 {
                probes[hits.trailing_zeros() as usize] as usize
            } else {
                match probes.iter().skip(FIRST).find(|&&b| filled[b as usize] == 1) {
                    Some(&b) => b as usize,
                    None => (0..self.bins)
                        .filter(|&b| filled[b] == 1)
                        .min_by_key(|&b| (rank(self.rank_key, j, b), b))
                        .expect("a non-empty set fills at least one bin"),
                }
            };
            // Sources are filled bins, which this loop never writes.
            out[j] = out[source];
        }
    }
}

/// Probes checked together, without branches, before the rest of the table.
const FIRST: usize = 4;

/// The rank of bin `b` in bin `j`'s order.
#[inline]
fn rank(rank_key: u64, j: usize, b: usize) -> u64 {
    mix64(rank_key ^ ((j as u64) << 32 | b as u64))
}

/// Largest `M` for which [`sized_match_probability`] sums its inclusion-exclusion series (the
/// alternating terms grow like `C(M, t)`; beyond this the rounding error could show).
pub(crate) const MAX_SIZED_BANDS: usize = 48;

/// The exact probability that two sets with `shared` common elements and `union` elements in
/// all share at least one of `M` band keys of `K` OPH bins each, for a random hash and random
/// bin orders.
///
/// Condition on the union's occupancy: `d` non-empty bins (the occupancy distribution of
/// `union` balls in `D` bins), whose minima are `d` distinct elements of the union, `x` of them
/// shared (hypergeometric). Every arrangement of the `D - d` empty, `x` shared and `d - x`
/// unshared bins is equally likely, and each empty bin copies a uniformly chosen non-empty bin,
/// independently, so it agrees with probability `x / d`. A set of `t` bands all agree when none
/// of their `tK` bins is unshared and every empty one among them copies a shared bin:
///
/// ```text
/// q_t = Σ_e C(D-d, e)·C(x, tK-e) / C(D, tK) · (x/d)^e,   P(no band agrees) = Σ_t (-1)^t C(M, t) q_t.
/// ```
///
/// Requires `0 <= shared <= union`, `union >= 1` and `bands <= MAX_SIZED_BANDS`.
pub(crate) fn sized_match_probability(
    shared: usize,
    union: usize,
    rows: usize,
    bands: usize,
) -> f64 {
    assert!(union >= 1 && shared <= union && bands <= MAX_SIZED_BANDS);
    if shared == union {
        return 1.0;
    }
    let bins = rows * bands;
    let ln_fact = LnFactorial::new(union.max(bins) + 1);
    let ln_choose = |n: usize, k: usize| ln_fact.choose(n, k);
    let occupancy = occupancy(union, bins);
    // ln C(D, tK) and C(M, t) for t = 0..=M.
    let per_t: Vec<(f64, f64)> = (0..=bands)
        .map(|t| (ln_choose(bins, t * rows), ln_choose(bands, t).exp()))
        .collect();
    let mut none = 0.0;
    for (d, &pd) in occupancy.iter().enumerate() {
        if pd < 1e-18 || d == 0 {
            continue;
        }
        // x shared minima among d: hypergeometric(union, shared, d).
        let lo = d.saturating_sub(union - shared);
        for x in lo..=shared.min(d) {
            let ln_px = ln_choose(shared, x) + ln_choose(union - shared, d - x) - ln_choose(union, d);
            let px = ln_px.exp();
            if px < 1e-18 {
                continue;
            }
            let r = x as f64 / d as f64;
            let mut sum = 0.0;
            for (t, &(ln_bins_tk, c)) in per_t.iter().enumerate() {
                let tk = t * rows;
                let mut q = 0.0;
                // e empty bins among the tK, the other tK - e shared.
                for e in tk.saturating_sub(x)..=tk.min(bins - d) {
                    let ln = ln_choose(bins - d, e) + ln_choose(x, tk - e) - ln_bins_tk;
                    q += ln.exp() * r.powi(e as i32);
                }
                sum += if t % 2 == 0 { c * q } else { -c * q };
            }
            none += pd * px * sum;
        }
    }
    (1.0 - none).clamp(0.0, 1.0)
}

/// `P(d non-empty bins)` after throwing `balls` into `bins` uniformly, `d = 0..=bins`.
fn occupancy(balls: usize, bins: usize) -> Vec<f64> {
    let mut p = vec![0.0; bins + 1];
    p[0] = 1.0;
    // Past D·(ln D + 45) balls an empty bin has probability below e^-45: all bins are full.
    let cap = bins as f64 * ((bins as f64).ln() + 45.0);
    if balls as f64 > cap {
        p[0] = 0.0;
        p[bins] = 1.0;
        return p;
    }
    let inv = 1.0 / bins as f64;
    for ball in 0..balls {
        let top = (ball + 1).min(bins);
        for d in (1..=top).rev() {
            // Land in one of the d - 1 filled bins, or fill a new one.
            p[d] = p[d] * (d as f64 * inv) + p[d - 1] * ((bins - d + 1) as f64 * inv);
        }
        p[0] = 0.0;
    }
    p
}

/// `ln k!` for `k < n`.
struct LnFactorial(Vec<f64>);

impl LnFactorial {
    fn new(n: usize) -> LnFactorial {
        let mut v = Vec::with_capacity(n + 1);
        let mut acc = 0.0f64;
        v.push(0.0);
        for k in 1..=n {
            acc += (k as f64).ln();
            v.push(acc);
        }
        LnFactorial(v)
    }

    /// `ln C(n, k)`, `-inf` when `k > n`.
    fn choose(&self, n: usize, k: usize) -> f64 {
        if k > n {
            return f64::NEG_INFINITY;
        }
        self.0[n] - self.0[k] - self.0[n - k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_is_a_distribution_with_the_known_mean() {
        for (balls, bins) in [(1, 5), (10, 10), (75, 143), (600, 143)] {
            let p = occupancy(balls, bins);
            let total: f64 = p.iter().sum();
            assert!((total - 1.0).abs() < 1e-12);
            let mean: f64 = p.iter().enumerate().map(|(d, q)| d as f64 * q).sum();
            let want = bins as f64 * (1.0 - (1.0 - 1.0 / bins as f64).powi(balls as i32));
            assert!((mean - want).abs() < 1e-9, "{balls} in {bins}: {mean} vs {want}");
        }
    }

    #[test]
    fn one_bin_per_band_is_the_jaccard_similarity() {
        // K = 1, M = 1: one bin, which agrees with probability J for any sizes.
        for (shared, union) in [(1, 3), (5, 10), (90, 100)] {
            let p = sized_match_probability(shared, union, 1, 1);
            assert!((p - shared as f64 / union as f64).abs() < 1e-12);
        }
    }

    #[test]
    fn large_sets_approach_the_independent_curve() {
        // Sets much larger than D: every bin filled, minima sampled without replacement from a
        // huge union, so the curve is 1 - (1 - J^K)^M.
        let (k, m) = (5, 4);
        let union = 200_000;
        for shared in [100_000, 160_000, 190_000] {
            let p = sized_match_probability(shared, union, k, m);
            let s = shared as f64 / union as f64;
            let want = crate::independent(s, k, m);
            assert!((p - want).abs() < 1e-3, "{s}: {p} vs {want}");
        }
    }

    /// The definition, computed the slow way: each bin's minimum, and for an empty bin the first
    /// non-empty bin of its whole order.
    fn naive(oph: &Oph, shingles: &[u64]) -> Vec<u64> {
        let mut mins = vec![None; oph.bins];
        for &x in shingles {
            let h = oph.hash(x);
            let b = oph.bin(h);
            mins[b] = Some(mins[b].map_or(h, |m: u64| m.min(h)));
        }
        (0..oph.bins)
            .map(|j| {
                mins[j].unwrap_or_else(|| {
                    let mut order: Vec<usize> = (0..oph.bins).filter(|&b| b != j).collect();
                    order.sort_by_key(|&b| (rank(oph.rank_key, j, b), b));
                    order.iter().find_map(|&b| mins[b]).unwrap()
                })
            })
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn sign_matches_the_definition(
            shingles in proptest::collection::vec(proptest::prelude::any::<u64>(), 1..60),
            bins in 1usize..300,
            seed: u64,
        ) {
            // Few shingles in many bins: most empty bins exhaust the probe table and take the
            // minimum-rank fallback.
            let oph = Oph::new(bins, seed);
            let want = naive(&oph, &shingles);
            for isa in Isa::supported() {
                let mut out = vec![0; bins];
                oph.sign(isa, &shingles, 0, &mut out);
                proptest::prop_assert_eq!(&out, &want, "{:?}", isa);
            }
        }
    }

    #[test]
    fn probe_table_lists_other_bins_in_rank_order() {
        let oph = Oph::new(37, 9);
        for j in 0..37 {
            let row = &oph.table[j * oph.probes..(j + 1) * oph.probes];
            assert!(!row.contains(&(j as u16)));
            let ranks: Vec<(u64, u16)> = row
                .iter()
                .map(|&b| (rank(oph.rank_key, j, b as usize), b))
                .collect();
            assert!(ranks.windows(2).all(|w| w[0] < w[1]));
            // Nothing outside the row ranks before its last entry.
            let last = *ranks.last().unwrap();
            for b in (0..37).filter(|&b| b != j && !row.contains(&(b as u16))) {
                assert!((rank(oph.rank_key, j, b), b as u16) > last);
            }
        }
    }
}
