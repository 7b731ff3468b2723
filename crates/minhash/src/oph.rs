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
        // Zeroing the whole 4 KiB for every signature cost about 5% at sentence sizes; most
        // configurations have at most 256 bins.
        let (mut small, mut large);
        let filled: &mut [u8] = if self.bins <= 256 {
            small = [0u8; 256];
            &mut small[..self.bins]
        } else {
            large = [0u8; MAX_BINS];
            &mut large[..self.bins]
        };
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
                match probes
                    .iter()
                    .skip(FIRST)
                    .find(|&&b| filled[b as usize] == 1)
                {
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
/// The alternating series loses precision when its terms are large, which happens with many
/// bands at high similarity (where almost every pair matches). Where the rounding error of a
/// `(d, x)` term, weighted by its probability, could exceed `1e-12`, that term is replaced by
/// the probability that none of the first `l` bands agrees, for the largest `l` whose series is
/// precise: an upper bound on the term (no band of `M` agrees only if none of `l` does). The
/// result is then a proven lower bound, and the second value says so (`true` = exact).
///
/// Requires `0 <= shared <= union` and `union >= 1`.
pub(crate) fn sized_match_probability(
    shared: usize,
    union: usize,
    rows: usize,
    bands: usize,
) -> (f64, bool) {
    assert!(union >= 1 && shared <= union);
    if shared == union {
        return (1.0, true);
    }
    let bins = rows * bands;
    let ln_fact = LnFactorial::new(union.max(bins) + 1);
    let ln_choose = |n: usize, k: usize| ln_fact.choose(n, k);
    let occupancy = occupancy(union, bins);
    // ln C(D, tK) for t = 0..=M.
    let per_t: Vec<f64> = (0..=bands).map(|t| ln_choose(bins, t * rows)).collect();
    let binomials = Binomials::new(bins, rows);
    let mut q = vec![0.0; bands + 1];
    let mut none = 0.0;
    let mut exact = true;
    for (d, &pd) in occupancy.iter().enumerate() {
        if pd < 1e-18 || d == 0 {
            continue;
        }
        // x shared minima among d: hypergeometric(union, shared, d).
        let lo = d.saturating_sub(union - shared);
        for x in lo..=shared.min(d) {
            let ln_px =
                ln_choose(shared, x) + ln_choose(union - shared, d - x) - ln_choose(union, d);
            let px = ln_px.exp();
            if px < 1e-18 {
                continue;
            }
            let r = x as f64 / d as f64;
            for (t, (q, &ln_bins_tk)) in q.iter_mut().zip(&per_t).enumerate() {
                let tk = t * rows;
                // e empty bins among the tK, the other tK - e shared.
                *q = (tk.saturating_sub(x)..=tk.min(bins - d))
                    .map(|e| {
                        let ln = ln_choose(bins - d, e) + ln_choose(x, tk - e) - ln_bins_tk;
                        ln.exp() * r.powi(e as i32)
                    })
                    .sum();
            }
            // P(none of the first `l` bands agrees), and the size of its terms (each carries a
            // few ulps of relative error; what matters is that error weighted by the
            // probability of this (d, x)).
            let series = |l: usize| {
                let (mut sum, mut magnitude) = (0.0, 0.0);
                for (t, &qt) in q.iter().enumerate().take(l + 1) {
                    let c = ln_choose(l, t).exp();
                    sum += if t % 2 == 0 { c * qt } else { -c * qt };
                    magnitude += c * qt;
                }
                let precise = pd * px * magnitude * ROUNDING * (l + 1) as f64 <= 1e-12;
                (sum.clamp(0.0, 1.0), precise)
            };
            let none_dx = match series(bands) {
                (none, true) => none,
                // Few arrangements: sum them band by band, all terms positive.
                _ if (x + 1) * (d - x + 1) <= MAX_DP_STATES => {
                    no_band_by_bands(x, d - x, bins - d, rows, bands, r, &binomials)
                }
                _ => {
                    // No band of M agrees only if none of the first l agrees either: the
                    // largest l whose series is precise bounds this term from above.
                    exact = false;
                    (1..bands)
                        .rev()
                        .map(series)
                        .find(|&(_, precise)| precise)
                        .map_or(1.0, |(none, _)| none)
                }
            };
            none += pd * px * none_dx;
        }
    }
    ((1.0 - none).clamp(0.0, 1.0), exact)
}

/// Largest `(x + 1)(d - x + 1)` for which an imprecise series is replaced by
/// [`no_band_by_bands`].
const MAX_DP_STATES: usize = 4096;

/// `P(no band agrees | d, x)` summed over the bands' compositions one band at a time: the
/// state is how many shared (`i`) and unshared (`o`) bins the remaining bands hold (the rest are
/// empty); a band takes `a` shared, `b` unshared and `K - a - b` empty bins with the
/// multivariate hypergeometric probability, and then fails to agree with probability
/// `1 - [b = 0]·r^(K-a-b)`. Every term is positive, so unlike the inclusion-exclusion series
/// this loses no precision; it costs `(x+1)(d-x+1)·M·K²` steps.
fn no_band_by_bands(
    shared: usize,
    unshared: usize,
    empty: usize,
    rows: usize,
    bands: usize,
    r: f64,
    c: &Binomials,
) -> f64 {
    let width = unshared + 1;
    let mut p = vec![0.0; (shared + 1) * width];
    p[shared * width + unshared] = 1.0;
    let mut next = vec![0.0; p.len()];
    let r_pow: Vec<f64> = (0..=rows).map(|e| r.powi(e as i32)).collect();
    for band in 0..bands {
        let left = (bands - band) * rows;
        let all = c.get(left, rows);
        next.fill(0.0);
        for i in 0..=shared {
            for o in 0..=unshared {
                let here = p[i * width + o];
                if here == 0.0 || i + o > left || left - i - o > empty {
                    continue;
                }
                let e_left = left - i - o;
                for a in 0..=rows.min(i) {
                    for b in 0..=(rows - a).min(o) {
                        let e = rows - a - b;
                        if e > e_left {
                            continue;
                        }
                        let take = c.get(i, a) * c.get(o, b) * c.get(e_left, e) / all;
                        let fail = if b == 0 { 1.0 - r_pow[e] } else { 1.0 };
                        next[(i - a) * width + (o - b)] += here * take * fail;
                    }
                }
            }
        }
        std::mem::swap(&mut p, &mut next);
    }
    p[0]
}

/// `C(n, k)` for `n <= N`, `k <= K`, as floating point.
struct Binomials {
    k: usize,
    table: Vec<f64>,
}

impl Binomials {
    fn new(n: usize, k: usize) -> Binomials {
        let mut table = vec![0.0; (n + 1) * (k + 1)];
        for i in 0..=n {
            table[i * (k + 1)] = 1.0;
            for j in 1..=k.min(i) {
                let above = if j < i {
                    table[(i - 1) * (k + 1) + j]
                } else {
                    0.0
                };
                table[i * (k + 1) + j] = table[(i - 1) * (k + 1) + j - 1] + above;
            }
        }
        Binomials { k, table }
    }

    fn get(&self, n: usize, k: usize) -> f64 {
        if k > n || k > self.k {
            return 0.0;
        }
        self.table[n * (self.k + 1) + k]
    }
}

/// Relative rounding error assumed per term of the inclusion-exclusion series (a few ulps).
const ROUNDING: f64 = 4.0 * f64::EPSILON;

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
            assert!(
                (mean - want).abs() < 1e-9,
                "{balls} in {bins}: {mean} vs {want}"
            );
        }
    }

    #[test]
    fn one_bin_per_band_is_the_jaccard_similarity() {
        // K = 1, M = 1: one bin, which agrees with probability J for any sizes.
        for (shared, union) in [(1, 3), (5, 10), (90, 100)] {
            let (p, exact) = sized_match_probability(shared, union, 1, 1);
            assert!(exact && (p - shared as f64 / union as f64).abs() < 1e-12);
        }
    }

    #[test]
    fn large_sets_approach_the_independent_curve() {
        // Sets much larger than D: every bin filled, minima sampled without replacement from a
        // huge union, so the curve is 1 - (1 - J^K)^M.
        let (k, m) = (5, 4);
        let union = 200_000;
        for shared in [100_000, 160_000, 190_000] {
            let (p, _) = sized_match_probability(shared, union, k, m);
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
    fn band_by_band_sum_agrees_with_the_series() {
        // Where the inclusion-exclusion series is precise, both ways give the same value.
        let c = Binomials::new(12, 3);
        for (x, o, e) in [(3, 2, 7), (5, 0, 7), (0, 6, 6), (9, 3, 0)] {
            let d = x + o;
            let r = x as f64 / d as f64;
            let by_bands = no_band_by_bands(x, o, e, 3, 4, r, &c);
            // The series for these counts, from its definition.
            let lnf = LnFactorial::new(20);
            let q = |t: usize| -> f64 {
                let tk = t * 3;
                (tk.saturating_sub(x)..=tk.min(e))
                    .map(|k| {
                        (lnf.choose(e, k) + lnf.choose(x, tk - k) - lnf.choose(12, tk)).exp()
                            * r.powi(k as i32)
                    })
                    .sum()
            };
            let series: f64 = (0..=4)
                .map(|t| {
                    let sign = if t % 2 == 0 { 1.0 } else { -1.0 };
                    sign * lnf.choose(4, t).exp() * q(t)
                })
                .sum();
            assert!(
                (by_bands - series).abs() < 1e-12,
                "{x} {o} {e}: {by_bands} vs {series}"
            );
        }
    }

    #[test]
    fn many_bands_at_high_similarity_give_a_lower_bound() {
        // 80 bands of 8: the series would cancel catastrophically near s = 1.
        let (k, m) = (8, 80);
        // Small sets: summed band by band instead, exactly.
        let (p, exact) = sized_match_probability(95, 100, k, m);
        assert!(exact && p > 0.999 && p <= 1.0, "{p}");
        // Large sets (too many arrangements for that): a lower bound, and not a useless one
        // (the large-set curve is 1 - 1e-36).
        let (p, exact) = sized_match_probability(97_000, 100_000, k, m);
        assert!(!exact, "{p}");
        assert!(p > 0.999 && p <= 1.0, "{p}");
        // Where the series is well conditioned it is exact and agrees with large sets.
        let (p, exact) = sized_match_probability(70_000, 100_000, k, m);
        assert!(exact);
        assert!((p - crate::independent(0.7, k, m)).abs() < 1e-3, "{p}");
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
