//! Hamming-distance search: all pairs of fingerprints within `k` bits.

use crate::{DEFAULT_SEED, MAX_BITS, SimHashError, words_for};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// Two signatures within the Hamming threshold: indices `a < b` into the searched slice and their
/// Hamming distance.
///
/// Searches return these sorted by `(a, b)` without duplicates, so the output is the same
/// whatever the internal order of work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HammingPair {
    /// The smaller index.
    pub a: u32,
    /// The larger index.
    pub b: u32,
    /// The number of differing bits.
    pub distance: u8,
}

impl HammingPair {
    #[inline]
    fn new(i: u32, j: u32, distance: u32) -> HammingPair {
        HammingPair {
            a: i.min(j),
            b: i.max(j),
            distance: distance as u8,
        }
    }
}

fn check_len(n: usize) -> Result<(), SimHashError> {
    if n > u32::MAX as usize + 1 {
        Err(SimHashError::TooManySignatures { n })
    } else {
        Ok(())
    }
}

/// Every pair of 64-bit fingerprints within `max_hamming` bits, by comparing all `n(n-1)/2`
/// pairs. The baseline the searches are tested and benchmarked against.
pub fn brute_force_pairs(
    fingerprints: &[u64],
    max_hamming: u32,
) -> Result<Vec<HammingPair>, SimHashError> {
    check_len(fingerprints.len())?;
    let mut out = Vec::new();
    for (i, &x) in fingerprints.iter().enumerate() {
        for (j, &y) in fingerprints.iter().enumerate().skip(i + 1) {
            let d = (x ^ y).count_ones();
            if d <= max_hamming {
                out.push(HammingPair::new(i as u32, j as u32, d));
            }
        }
    }
    Ok(out)
}

/// The fraction of `truth` pairs present in `found` (both sorted by `(a, b)`, as the searches
/// return them); 1 when `truth` is empty.
pub fn recall(found: &[HammingPair], truth: &[HammingPair]) -> f64 {
    if truth.is_empty() {
        return 1.0;
    }
    let hits = truth
        .iter()
        .filter(|t| {
            found
                .binary_search_by_key(&(t.a, t.b), |f| (f.a, f.b))
                .is_ok()
        })
        .count();
    hits as f64 / truth.len() as f64
}

/// Largest number of tables a [`TableSearch`] may use.
const MAX_TABLES: u64 = 1 << 16;

/// Exact search for all pairs of 64-bit fingerprints within `k` bits with permuted sorted tables
/// (Manku, Jain and Das Sarma, "Detecting near-duplicates for web crawling", WWW 2007).
///
/// The 64 bits are split into `m > k` contiguous blocks. Two fingerprints within `k` bits differ
/// in at most `k` blocks, so they agree exactly on at least `m - k`. For each of the
/// `C(m, k)` choices of `m - k` blocks there is one table: every fingerprint with its bits
/// permuted so that the chosen blocks come first, sorted. Pairs within `k` bits then sit in runs
/// of equal prefix in at least one table; each run is compared pairwise. A pair is reported only
/// by the first table (in lexicographic order of block choices) whose blocks it agrees on, so
/// nothing is reported twice and no global de-duplication is needed.
///
/// The result is exactly the set [`brute_force_pairs`] returns, sorted by `(a, b)`.
///
/// ```
/// use textreuse_simhash::{HammingPair, TableSearch};
///
/// let fps = [0xffff_0000_ffff_0000, 0x1234, 0xffff_0000_ffff_0007, 0x1235];
/// let pairs = TableSearch::new(3)?.pairs(&fps)?;
/// assert_eq!(pairs, [
///     HammingPair { a: 0, b: 2, distance: 3 },
///     HammingPair { a: 1, b: 3, distance: 1 },
/// ]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSearch {
    max_hamming: u32,
    blocks: Option<u32>,
}

/// Builds a [`TableSearch`].
#[derive(Clone, Debug, Default)]
pub struct TableSearchBuilder {
    max_hamming: u32,
    blocks: Option<u32>,
}

impl TableSearchBuilder {
    /// The Hamming threshold `k` (0 to 64; default 0).
    pub fn max_hamming(&mut self, k: u32) -> &mut Self {
        self.max_hamming = k;
        self
    }

    /// The number of blocks `m` (`k < m <= 64`). By default it is chosen per search from `n`
    /// and `k` to minimise the estimated work (sorting `C(m, k)` tables against comparing the
    /// pairs that share a prefix).
    pub fn blocks(&mut self, m: u32) -> &mut Self {
        self.blocks = Some(m);
        self
    }

    /// Checks the parameters and builds the search.
    pub fn build(&self) -> Result<TableSearch, SimHashError> {
        let k = self.max_hamming;
        if k > 64 {
            return Err(SimHashError::InvalidThreshold { max_hamming: k });
        }
        if let Some(m) = self.blocks
            && (m <= k || m > 64 || binomial(m, k) > MAX_TABLES)
        {
            return Err(SimHashError::InvalidBlocks {
                blocks: m,
                max_hamming: k,
            });
        }
        Ok(TableSearch {
            max_hamming: k,
            blocks: self.blocks,
        })
    }
}

/// `C(n, k)`, saturating at `u64::MAX`.
fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k) as u128;
    let mut c: u128 = 1;
    for i in 0..k {
        // Exact: c · (n - i) is divisible by i + 1 (it is C(n, i + 1) · (i + 1)).
        c = c * (n as u128 - i) / (i + 1);
        if c > u64::MAX as u128 {
            return u64::MAX;
        }
    }
    c as u64
}

/// The tables and prefix width a [`TableSearch`] uses for a given input size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TablePlan {
    /// The number of blocks `m`.
    pub blocks: u32,
    /// The number of tables `C(m, k)`.
    pub tables: u64,
    /// The smallest prefix width (bits of the chosen blocks) over the tables.
    pub min_prefix_bits: u32,
}

impl TableSearch {
    /// A search for pairs within `max_hamming` bits (0 to 64) with the default block count.
    pub fn new(max_hamming: u32) -> Result<TableSearch, SimHashError> {
        TableSearchBuilder::default()
            .max_hamming(max_hamming)
            .build()
    }

    /// A builder.
    pub fn builder() -> TableSearchBuilder {
        TableSearchBuilder::default()
    }

    /// The Hamming threshold `k`.
    pub fn max_hamming(&self) -> u32 {
        self.max_hamming
    }

    /// The plan used for `n` fingerprints.
    pub fn plan(&self, n: usize) -> TablePlan {
        let k = self.max_hamming;
        let m = self.blocks.unwrap_or_else(|| default_blocks(k, n));
        let m = m.clamp(k + 1, 64);
        TablePlan {
            blocks: m,
            tables: binomial(m, k),
            min_prefix_bits: (64 / m) * (m - k),
        }
    }

    /// The tables of the search for `n` fingerprints (its [`plan`](TableSearch::plan)), in
    /// the order [`pairs`](TableSearch::pairs) goes through them; empty when `k >= 64`, where
    /// every pair is within `k` bits. For a search whose tables do not fit in memory: permute
    /// every fingerprint with [`Table::permute`], sort (an external sort), and compare within
    /// each run of equal [`Table::prefix`] with [`Table::reports`]; every pair within `k` bits
    /// is then reported by exactly one table.
    pub fn tables(&self, n: usize) -> Vec<Table> {
        let k = self.max_hamming;
        if k >= 64 {
            return Vec::new();
        }
        let m = self.plan(n).blocks as usize;
        // Block t covers bits [start[t], start[t] + len[t]); the first 64 % m blocks are longer.
        let (mut start, mut len) = (vec![0u32; m], vec![0u32; m]);
        let mut s = 0;
        for t in 0..m {
            len[t] = 64 / m as u32 + u32::from(t < 64 % m);
            start[t] = s;
            s += len[t];
        }
        let r = m - k as usize;
        let mut chosen: Vec<usize> = (0..r).collect();
        let mut tables = Vec::new();
        loop {
            // Permutation: chosen blocks from the top, then the others, each in block order.
            let mut chosen_mask = 0u64;
            for &t in &chosen {
                chosen_mask |= 1 << t;
            }
            let (mut shift_to, mut perm_mask) = (vec![0u32; m], vec![0u64; m]);
            let mut top = 64u32;
            let mut prefix_bits = 0;
            for pass in 0..2 {
                for t in 0..m {
                    if ((chosen_mask >> t) & 1 == 1) == (pass == 0) {
                        top -= len[t];
                        shift_to[t] = top;
                        perm_mask[t] = low_mask(len[t]) << top;
                        if pass == 0 {
                            prefix_bits += len[t];
                        }
                    }
                }
            }
            tables.push(Table {
                start: start.clone(),
                len: len.clone(),
                shift_to,
                perm_mask,
                chosen_mask,
                prefix_bits,
                r,
                max_hamming: k,
            });
            if !next_combination(&mut chosen, m) {
                break;
            }
        }
        tables
    }

    /// Every pair of `fingerprints` within `k` bits, sorted by `(a, b)`.
    ///
    /// Memory: one table at a time, 16 bytes per fingerprint, plus the output.
    pub fn pairs(&self, fingerprints: &[u64]) -> Result<Vec<HammingPair>, SimHashError> {
        check_len(fingerprints.len())?;
        if self.max_hamming >= 64 {
            return brute_force_pairs(fingerprints, self.max_hamming);
        }
        let mut table: Vec<(u64, u32)> = Vec::with_capacity(fingerprints.len());
        let mut scratch: Vec<(u64, u32)> = Vec::new();
        let mut out = Vec::new();
        for t in self.tables(fingerprints.len()) {
            table.clear();
            table.extend(
                fingerprints
                    .iter()
                    .enumerate()
                    .map(|(i, &fp)| (t.permute(fp), i as u32)),
            );
            // Only runs of equal prefix matter, so sorting by the prefix is enough.
            radix_sort_by_prefix(&mut table, &mut scratch, t.prefix_bits);
            let mut run = 0;
            while run < table.len() {
                let key = t.prefix(table[run].0);
                let mut end = run + 1;
                while end < table.len() && t.prefix(table[end].0) == key {
                    end += 1;
                }
                for p in run..end {
                    let (x, i) = table[p];
                    for &(y, j) in &table[p + 1..end] {
                        if let Some(d) = t.reports(x, y) {
                            out.push(HammingPair::new(i, j, d));
                        }
                    }
                }
                run = end;
            }
        }
        out.sort_unstable();
        Ok(out)
    }
}

/// One table of a [`TableSearch`] ([`TableSearch::tables`]): a permutation of the 64 bits that
/// brings its `m - k` chosen blocks to the top, as a prefix.
///
/// ```
/// use textreuse_simhash::TableSearch;
///
/// let (a, b) = (0xffff_0000_ffff_0000u64, 0xffff_0000_ffff_0007u64);
/// let tables = TableSearch::new(3)?.tables(2);
/// // Exactly one table reports the pair, and it shares its prefix there.
/// let reporting: Vec<_> = tables
///     .iter()
///     .filter(|t| t.reports(t.permute(a), t.permute(b)).is_some())
///     .collect();
/// assert_eq!(reporting.len(), 1);
/// let t = reporting[0];
/// assert_eq!(t.prefix(t.permute(a)), t.prefix(t.permute(b)));
/// assert_eq!(t.reports(t.permute(a), t.permute(b)), Some(3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Table {
    start: Vec<u32>,
    len: Vec<u32>,
    /// Where each block lands in the permuted word.
    shift_to: Vec<u32>,
    /// Each block's bits in the permuted word.
    perm_mask: Vec<u64>,
    /// The chosen blocks, as a bit set over block indices.
    chosen_mask: u64,
    prefix_bits: u32,
    /// Chosen blocks.
    r: usize,
    max_hamming: u32,
}

impl Table {
    /// `fp` with its blocks permuted: the chosen ones first (the prefix).
    #[inline]
    pub fn permute(&self, fp: u64) -> u64 {
        let mut p = 0u64;
        for t in 0..self.start.len() {
            p |= ((fp >> self.start[t]) & low_mask(self.len[t])) << self.shift_to[t];
        }
        p
    }

    /// The prefix of a permuted fingerprint (its other bits zero): permuted fingerprints
    /// within `k` bits that this table reports have the same prefix.
    #[inline]
    pub fn prefix(&self, permuted: u64) -> u64 {
        permuted & (low_mask(self.prefix_bits) << (64 - self.prefix_bits))
    }

    /// Bits of the prefix.
    pub fn prefix_bits(&self) -> u32 {
        self.prefix_bits
    }

    /// The distance of two permuted fingerprints of the same prefix when it is at most `k` and
    /// this is the first table (in the search's order) whose blocks they agree on, so the one
    /// table that reports them; `None` otherwise.
    #[inline]
    pub fn reports(&self, x: u64, y: u64) -> Option<u32> {
        let diff = x ^ y;
        let d = diff.count_ones();
        (d <= self.max_hamming && first_table(diff, &self.perm_mask, self.r) == self.chosen_mask)
            .then_some(d)
    }
}

/// Sorts `v` by the top `bits` bits of the key, equal prefixes in index order (LSD radix sort,
/// 11-bit digits, `tmp` as scratch). Entries must start in index order (the radix sort is stable).
fn radix_sort_by_prefix(v: &mut Vec<(u64, u32)>, tmp: &mut Vec<(u64, u32)>, bits: u32) {
    const DIGIT: u32 = 11;
    if v.len() < 1024 {
        // Small inputs: a comparison sort beats clearing 2048 counters per pass. Sorting by
        // (prefix, index) gives the same order as the stable radix sort of index-ordered input.
        let shift = 64 - bits.min(64);
        let prefix = |k: u64| if shift == 64 { 0 } else { k >> shift };
        v.sort_unstable_by_key(|&(k, i)| (prefix(k), i));
        return;
    }
    let mut counts = [0usize; 1 << DIGIT];
    tmp.clear();
    tmp.resize(v.len(), (0, 0));
    let mut low = 64 - bits.min(64);
    while low < 64 {
        let width = DIGIT.min(64 - low);
        let mask = (1u64 << width) - 1;
        counts.fill(0);
        for &(key, _) in v.iter() {
            counts[((key >> low) & mask) as usize] += 1;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        for &e in v.iter() {
            let d = ((e.0 >> low) & mask) as usize;
            tmp[counts[d]] = e;
            counts[d] += 1;
        }
        core::mem::swap(v, tmp);
        low += width;
    }
}

/// The first `r` blocks (as a bit set over block indices) on which `diff` is zero: the block
/// choice of the first table in which the pair shares its prefix.
#[inline]
fn first_table(diff: u64, perm_mask: &[u64], r: usize) -> u64 {
    let mut set = 0u64;
    let mut count = 0;
    for (t, &mask) in perm_mask.iter().enumerate() {
        if diff & mask == 0 {
            set |= 1 << t;
            count += 1;
            if count == r {
                break;
            }
        }
    }
    set
}

#[inline]
fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Advances `c` (a strictly increasing list of indices below `n`) to the next combination in
/// lexicographic order; false after the last.
fn next_combination(c: &mut [usize], n: usize) -> bool {
    let r = c.len();
    let mut i = r;
    while i > 0 {
        i -= 1;
        if c[i] < n - r + i {
            c[i] += 1;
            for j in i + 1..r {
                c[j] = c[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// The block count minimising `tables · (n log2 n + expected same-prefix pairs)`.
fn default_blocks(k: u32, n: usize) -> u32 {
    if k == 0 {
        return 1;
    }
    let nf = n.max(2) as f64;
    let mut best = (f64::INFINITY, k + 1);
    for m in k + 1..=64 {
        let tables = binomial(m, k);
        if tables > MAX_TABLES {
            break;
        }
        let prefix = ((64 / m) * (m - k)) as f64;
        let pairs = nf * nf / 2.0 / prefix.exp2();
        let cost = tables as f64 * (nf * nf.log2() + pairs);
        if cost < best.0 {
            best = (cost, m);
        }
    }
    best.1
}

/// The most permutations `Q` a [`WindowSearch`] takes. Each permutation is a full permuted,
/// sorted copy of the signatures and a pass over them, so the search costs `Q` times a sort; the
/// literature's settings are tens to a few hundred.
pub const MAX_PERMUTATIONS: u32 = 1024;

/// Approximate search over `Q` random bit permutations of sorted signatures (Ture, Elsayed and
/// Lin, "No free lunch: brute force vs. locality-sensitive hashing for cross-lingual pairwise
/// similarity", SIGIR 2011; after Charikar 2002).
///
/// For each of `Q` permutations of the `D` bit positions (drawn from the seed), every signature
/// is permuted and the permuted signatures are sorted; each is then compared with the next `B`
/// in sorted order, and pairs within `T` bits are reported with their distance. Similar
/// signatures tend to share a long prefix under some permutation and so land within the window.
/// The union over permutations is returned, sorted by `(a, b)`; every reported pair is a true
/// pair (the distance is exact), but some true pairs are missed: measure the recall with
/// [`recall`] against [`TableSearch`] or [`brute_force_pairs`]. The defaults are the seed
/// replication's `Q = 10`, `B = 10`, `T = 5`, `D = 64`.
///
/// ```
/// use textreuse_simhash::WindowSearch;
///
/// let fps = [0xffff_0000_ffff_0000u64, 0x1234, 0xffff_0000_ffff_0007, 0x1235];
/// let pairs = WindowSearch::new().pairs(&fps)?;
/// assert_eq!(pairs.len(), 2); // tiny inputs fit in one window: nothing is missed
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowSearch {
    bits: u32,
    permutations: u32,
    window: u32,
    max_hamming: u32,
    seed: u64,
}

impl Default for WindowSearch {
    fn default() -> Self {
        WindowSearch::new()
    }
}

/// Builds a [`WindowSearch`].
#[derive(Clone, Debug)]
pub struct WindowSearchBuilder {
    inner: WindowSearch,
}

impl WindowSearchBuilder {
    /// The signature width `D` in bits (default 64; 1 to 65536). Signatures are `ceil(D/64)`
    /// consecutive words of the searched slice.
    pub fn bits(&mut self, bits: u32) -> &mut Self {
        self.inner.bits = bits;
        self
    }

    /// The number of random permutations `Q` (default 10; 1 to [`MAX_PERMUTATIONS`]).
    pub fn permutations(&mut self, q: u32) -> &mut Self {
        self.inner.permutations = q;
        self
    }

    /// The window `B`: each signature is compared with the next `B` in sorted order (default 10;
    /// at least 1).
    pub fn window(&mut self, b: u32) -> &mut Self {
        self.inner.window = b;
        self
    }

    /// The Hamming threshold `T` (default 5; at most 255 and at most the width `D`).
    pub fn max_hamming(&mut self, t: u32) -> &mut Self {
        self.inner.max_hamming = t;
        self
    }

    /// The seed the permutations are drawn from (default 1123456).
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.inner.seed = seed;
        self
    }

    /// Checks the parameters and builds the search.
    pub fn build(&self) -> Result<WindowSearch, SimHashError> {
        let s = &self.inner;
        if s.bits == 0 || s.bits > MAX_BITS {
            return Err(SimHashError::InvalidBits { bits: s.bits });
        }
        if s.max_hamming > 255 || s.max_hamming > s.bits {
            return Err(SimHashError::InvalidThreshold {
                max_hamming: s.max_hamming,
            });
        }
        if s.permutations == 0 {
            return Err(SimHashError::InvalidParameter {
                name: "permutations",
                value: 0,
            });
        }
        if s.permutations > MAX_PERMUTATIONS {
            return Err(SimHashError::AboveLimit {
                name: "permutations",
                value: s.permutations.into(),
                max: MAX_PERMUTATIONS.into(),
            });
        }
        if s.window == 0 {
            return Err(SimHashError::InvalidParameter {
                name: "window",
                value: 0,
            });
        }
        Ok(s.clone())
    }
}

impl WindowSearch {
    /// The defaults: `D = 64`, `Q = 10`, `B = 10`, `T = 5`, seed 1123456.
    pub fn new() -> WindowSearch {
        WindowSearch {
            bits: 64,
            permutations: crate::DEFAULT_PERMUTATIONS,
            window: crate::DEFAULT_WINDOW,
            max_hamming: crate::DEFAULT_WINDOW_MAX_HAMMING,
            seed: DEFAULT_SEED,
        }
    }

    /// A builder starting from the defaults.
    pub fn builder() -> WindowSearchBuilder {
        WindowSearchBuilder {
            inner: WindowSearch::new(),
        }
    }

    /// The signature width `D`.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The Hamming threshold `T`.
    pub fn max_hamming(&self) -> u32 {
        self.max_hamming
    }

    /// The number of permutations `Q`.
    pub fn permutations(&self) -> u32 {
        self.permutations
    }

    /// The window `B`.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// The seed of the permutations.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The `Q` bit permutations, each as the destination of every source bit (`perm[src]`).
    ///
    /// Drawn with Fisher-Yates from one `Xoshiro256PlusPlus::seed_from_u64(seed)`, permutation
    /// after permutation, the swap index being `(next_u64() · (i + 1)) >> 64`.
    pub fn permutation_table(&self) -> Vec<Vec<u32>> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.seed);
        (0..self.permutations)
            .map(|_| {
                let mut p: Vec<u32> = (0..self.bits).collect();
                for i in (1..p.len()).rev() {
                    let j = ((rng.next_u64() as u128 * (i as u128 + 1)) >> 64) as usize;
                    p.swap(i, j);
                }
                p
            })
            .collect()
    }

    /// The pairs found among `signatures` (`ceil(D/64)` words each), sorted by `(a, b)`.
    ///
    /// Fails with [`SimHashError::LengthMismatch`] if the slice is not a whole number of
    /// signatures. Memory: `n · (8·ceil(D/64) + 4)` bytes plus the output.
    ///
    /// The search is [`BitPermutation::permute_into`] for each permutation of
    /// [`WindowSearch::permutation_table`], a sort, and [`WindowSearch::window_pairs`] over the
    /// sorted run: a distributed driver that sorts each permutation's signatures globally and
    /// scans each part with the rows that follow it gets the same pairs.
    pub fn pairs(&self, signatures: &[u64]) -> Result<Vec<HammingPair>, SimHashError> {
        let w = words_for(self.bits);
        if !signatures.len().is_multiple_of(w) {
            return Err(SimHashError::LengthMismatch {
                expected: signatures.len() / w * w,
                got: signatures.len(),
            });
        }
        let n = signatures.len() / w;
        check_len(n)?;
        let mut permuted = vec![0u64; n * w];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(if w == 1 { n } else { 0 });
        let mut scratch: Vec<(u64, u32)> = Vec::new();
        let mut sorted: Vec<u64> = Vec::with_capacity(n * w);
        let mut out = Vec::new();
        for perm in self.permutation_table() {
            let perm = BitPermutation::new(&perm);
            for (sig, dst) in signatures.chunks_exact(w).zip(permuted.chunks_exact_mut(w)) {
                perm.permute_into(sig, dst);
            }
            sorted.clear();
            if w == 1 {
                keyed.clear();
                keyed.extend(permuted.iter().enumerate().map(|(i, &p)| (p, i as u32)));
                radix_sort_by_prefix(&mut keyed, &mut scratch, 64);
                sorted.extend(keyed.iter().map(|&(p, _)| p));
                self.window_pairs(&sorted, n, |p, q, d| {
                    out.push(HammingPair::new(keyed[p].1, keyed[q].1, d));
                })?;
            } else {
                order.clear();
                order.extend(0..n as u32);
                let key = |i: u32| &permuted[i as usize * w..][..w];
                order.sort_unstable_by(|&x, &y| key(x).cmp(key(y)).then(x.cmp(&y)));
                for &i in &order {
                    sorted.extend_from_slice(key(i));
                }
                self.window_pairs(&sorted, n, |p, q, d| {
                    out.push(HammingPair::new(order[p], order[q], d));
                })?;
            }
        }
        out.sort_unstable();
        out.dedup_by_key(|p| (p.a, p.b));
        Ok(out)
    }

    /// The window step over one permutation's sorted run: `sorted` holds permuted signatures
    /// (`ceil(D/64)` words each) in ascending order (as slices of words, which is the byte order
    /// of their words written big-endian one after the other); each of the first `own` is
    /// compared with the next `B` of the run, and `f(p, q, distance)` is called for the
    /// positions `p < q` within `T` bits. A part of a longer run passes the rows that follow it
    /// (at least `B`, or all there are) after its own `own` rows.
    ///
    /// Fails with [`SimHashError::LengthMismatch`] if `sorted` is not a whole number of
    /// signatures or holds fewer than `own`. The order is not checked.
    pub fn window_pairs(
        &self,
        sorted: &[u64],
        own: usize,
        mut f: impl FnMut(usize, usize, u32),
    ) -> Result<(), SimHashError> {
        let w = words_for(self.bits);
        let n = sorted.len() / w;
        if !sorted.len().is_multiple_of(w) || own > n {
            return Err(SimHashError::LengthMismatch {
                expected: own.max(n) * w,
                got: sorted.len(),
            });
        }
        let window = self.window as usize;
        let key = |p: usize| &sorted[p * w..][..w];
        for p in 0..own {
            let x = key(p);
            for q in p + 1..n.min(p + 1 + window) {
                let y = key(q);
                let d = if w == 1 {
                    (x[0] ^ y[0]).count_ones()
                } else {
                    crate::hamming_words(x, y)
                };
                if d <= self.max_hamming {
                    f(p, q, d);
                }
            }
        }
        Ok(())
    }
}

/// One bit permutation of a [`WindowSearch`], ready to apply to signatures: source bit `s` of a
/// signature becomes bit `perm[s]` of the permuted one (bit `b` being bit `b % 64` of word
/// `b / 64`).
///
/// Up to about `D = 1024` it permutes a byte at a time through lookup tables (`ceil(D/8) · 256`
/// rows of `ceil(D/64)` words), beyond that bit by bit.
#[derive(Clone, Debug)]
pub struct BitPermutation {
    perm: Vec<u32>,
    words: usize,
    /// `lut[(byte * 256 + value) * words ..][..words]`: the permuted bits of one input byte
    /// (empty when permuting bit by bit).
    lut: Vec<u64>,
}

impl BitPermutation {
    /// The permutation `perm` of `perm.len()` bits (a row of
    /// [`WindowSearch::permutation_table`]). Panics if `perm` is not a permutation of
    /// `0..perm.len()`.
    pub fn new(perm: &[u32]) -> BitPermutation {
        let bits = perm.len();
        let mut seen = vec![false; bits];
        for &d in perm {
            assert!(
                (d as usize) < bits && !std::mem::replace(&mut seen[d as usize], true),
                "not a permutation of 0..{bits}"
            );
        }
        let w = bits.div_ceil(64);
        let nbytes = bits.div_ceil(8);
        // Byte lookup tables cost nbytes · 256 · w words, quadratic in D: above 2^20 words (8 MiB,
        // D > 1024 or so) permute bit by bit instead.
        let use_lut = nbytes * 256 * w <= 1 << 20;
        let mut lut = vec![0u64; if use_lut { nbytes * 256 * w } else { 0 }];
        if use_lut {
            // Single-bit rows first, then every other row as the row without its lowest bit
            // OR the row of that bit.
            for (src, &dst) in perm.iter().enumerate() {
                let (byte, bit) = (src / 8, src % 8);
                lut[(byte * 256 + (1 << bit)) * w + dst as usize / 64] |= 1 << (dst % 64);
            }
            for byte in 0..nbytes {
                for value in 3..256usize {
                    if value.is_power_of_two() {
                        continue;
                    }
                    let (rest, low) = (value & (value - 1), value & value.wrapping_neg());
                    for k in 0..w {
                        lut[(byte * 256 + value) * w + k] =
                            lut[(byte * 256 + rest) * w + k] | lut[(byte * 256 + low) * w + k];
                    }
                }
            }
        }
        BitPermutation {
            perm: perm.to_vec(),
            words: w,
            lut,
        }
    }

    /// The words of a signature, `ceil(D/64)`.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Writes the permutation of `sig` into `out` (both `ceil(D/64)` words; bits of `sig` at
    /// `D` and above are ignored). Panics if a slice has another length.
    pub fn permute_into(&self, sig: &[u64], out: &mut [u64]) {
        let w = self.words;
        assert!(
            sig.len() == w && out.len() == w,
            "signatures of {w} words expected"
        );
        out.fill(0);
        if self.lut.is_empty() {
            for (src, &to) in self.perm.iter().enumerate() {
                let bit = (sig[src / 64] >> (src % 64)) & 1;
                out[to as usize / 64] |= bit << (to % 64);
            }
            return;
        }
        for byte in 0..self.perm.len().div_ceil(8) {
            // Bits at D and above have all-zero rows.
            let value = ((sig[byte / 8] >> (8 * (byte % 8))) & 0xff) as usize;
            let row = &self.lut[(byte * 256 + value) * w..][..w];
            for (d, &r) in out.iter_mut().zip(row) {
                *d |= r;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        BitPermutation, MAX_PERMUTATIONS, TableSearch, WindowSearch, binomial, default_blocks,
        next_combination, radix_sort_by_prefix,
    };
    use crate::SimHashError;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn radix_sort_matches_sort(
            keys in proptest::collection::vec(any::<u64>(), 0..3000),
            bits in 1u32..=64,
        ) {
            // Few distinct key bits, so that equal prefixes (and index order among them) occur.
            let v: Vec<(u64, u32)> = keys
                .iter()
                .enumerate()
                .map(|(i, &k)| (k & 0xf00f_0000_0000_00ff, i as u32))
                .collect();
            let mut got = v.clone();
            radix_sort_by_prefix(&mut got, &mut Vec::new(), bits);
            let mut want = v;
            let shift = 64 - bits;
            want.sort_by_key(|&(k, i)| (if bits == 64 { k } else { k >> shift }, i));
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn combinations_and_binomials() {
        let mut c = vec![0, 1];
        let mut count = 1;
        while next_combination(&mut c, 5) {
            count += 1;
        }
        assert_eq!(count, 10);
        assert_eq!(c, [3, 4]);
        assert_eq!(binomial(5, 3), 10);
        assert_eq!(binomial(64, 3), 41664);
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binomial(3, 5), 0);
        assert_eq!(default_blocks(0, 1000), 1);
        let plan = TableSearch::new(3).unwrap().plan(1_000_000);
        assert!(plan.blocks > 3 && plan.tables <= 1 << 16);
    }

    #[test]
    fn invalid_parameters() {
        assert!(TableSearch::new(65).is_err());
        assert!(
            TableSearch::builder()
                .max_hamming(3)
                .blocks(3)
                .build()
                .is_err()
        );
        assert!(
            TableSearch::builder()
                .max_hamming(3)
                .blocks(65)
                .build()
                .is_err()
        );
        assert!(
            TableSearch::builder()
                .max_hamming(30)
                .blocks(64)
                .build()
                .is_err()
        );
        assert!(WindowSearch::builder().window(0).build().is_err());
        assert!(WindowSearch::builder().permutations(0).build().is_err());
        assert!(WindowSearch::builder().max_hamming(256).build().is_err());
        // The threshold cannot exceed the width; Q is bounded (issue #22: Q = 10^6 ran for
        // minutes on a small input).
        assert!(WindowSearch::builder().max_hamming(65).build().is_err());
        assert!(
            WindowSearch::builder()
                .bits(128)
                .max_hamming(65)
                .build()
                .is_ok()
        );
        let q = WindowSearch::builder()
            .permutations(MAX_PERMUTATIONS + 1)
            .build()
            .unwrap_err();
        assert_eq!(
            q,
            SimHashError::AboveLimit {
                name: "permutations",
                value: 1025,
                max: 1024
            }
        );
        assert!(
            WindowSearch::builder()
                .permutations(MAX_PERMUTATIONS)
                .build()
                .is_ok()
        );
        assert!(WindowSearch::builder().bits(0).build().is_err());
        let w = WindowSearch::builder().bits(100).build().unwrap();
        assert!(w.pairs(&[1, 2, 3]).is_err());
        assert_eq!(w.pairs(&[]).unwrap(), []);
        assert_eq!(TableSearch::new(3).unwrap().pairs(&[]).unwrap(), []);
    }

    #[test]
    fn wide_signatures_without_lookup_tables() {
        // D = 2000 takes the bit-by-bit path; a window covering all of a tiny input must find
        // exactly the brute-force pairs.
        let w = 32;
        let mut sigs = vec![0u64; 6 * w];
        for (i, x) in sigs.iter_mut().enumerate() {
            *x = textreuse_hash::mix64(i as u64 / (2 * w as u64) + 1);
        }
        for x in sigs[w..2 * w].iter_mut() {
            *x ^= 1;
        }
        sigs[2 * w - 1] &= (1 << 16) - 1;
        for s in sigs.chunks_exact_mut(w) {
            s[w - 1] &= (1 << 16) - 1; // D = 2000 = 31 * 64 + 16
        }
        let search = WindowSearch::builder()
            .bits(2000)
            .window(5)
            .max_hamming(40)
            .build()
            .unwrap();
        let found = search.pairs(&sigs).unwrap();
        let mut want = Vec::new();
        for a in 0..6 {
            for b in a + 1..6 {
                let d = crate::hamming_words(&sigs[a * w..][..w], &sigs[b * w..][..w]);
                if d <= 40 {
                    want.push(super::HammingPair::new(a as u32, b as u32, d));
                }
            }
        }
        assert_eq!(found, want);
        assert!(!want.is_empty());
    }

    #[test]
    fn permutations_are_permutations() {
        let w = WindowSearch::builder().bits(100).build().unwrap();
        for p in w.permutation_table() {
            let mut s = p.clone();
            s.sort_unstable();
            assert_eq!(s, (0..100).collect::<Vec<u32>>());
        }
    }

    /// A distributed run's scheme: each permutation's signatures sorted as a whole (here by
    /// their big-endian bytes, as Spark sorts binary keys), cut into parts, each part scanned
    /// with the `B` rows that follow it, finds exactly the pairs of `pairs`.
    #[test]
    fn window_pairs_over_parts_equal_pairs() {
        use rand_xoshiro::Xoshiro256PlusPlus;
        use rand_xoshiro::rand_core::{Rng, SeedableRng};
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for (bits, n, parts) in [(64u32, 400usize, 7usize), (100, 500, 5), (130, 300, 40)] {
            let search = WindowSearch::builder()
                .bits(bits)
                .max_hamming(bits / 3)
                .build()
                .unwrap();
            let w = (bits as usize).div_ceil(64);
            // Clumps of near copies, so that windows find pairs.
            let mut sigs = Vec::new();
            for i in 0..n {
                let base: Vec<u64> = if i % 3 == 0 || sigs.is_empty() {
                    (0..w).map(|_| rng.next_u64()).collect()
                } else {
                    sigs[sigs.len() - w..].to_vec()
                };
                for (k, b) in base.into_iter().enumerate() {
                    let flip = 1u64 << (rng.next_u64() % 64);
                    let mut v = if rng.next_u64() % 2 == 0 { b ^ flip } else { b };
                    if k == w - 1 && bits % 64 != 0 {
                        v &= (1u64 << (bits % 64)) - 1;
                    }
                    sigs.push(v);
                }
            }
            let want = search.pairs(&sigs).unwrap();
            assert!(want.len() > n / 10, "{} pairs", want.len());
            let mut got = Vec::new();
            for perm in search.permutation_table() {
                let perm = BitPermutation::new(&perm);
                let mut rows: Vec<(Vec<u8>, Vec<u64>, u32)> = sigs
                    .chunks_exact(w)
                    .enumerate()
                    .map(|(i, sig)| {
                        let mut p = vec![0u64; w];
                        perm.permute_into(sig, &mut p);
                        let key = p.iter().flat_map(|x| x.to_be_bytes()).collect();
                        (key, p, i as u32)
                    })
                    .collect();
                rows.sort();
                let size = n.div_ceil(parts);
                for start in (0..n).step_by(size) {
                    let own = size.min(n - start);
                    let end = (start + own + search.window() as usize).min(n);
                    let run: Vec<u64> = rows[start..end].iter().flat_map(|r| r.1.clone()).collect();
                    search
                        .window_pairs(&run, own, |p, q, d| {
                            let (i, j) = (rows[start + p].2, rows[start + q].2);
                            got.push(super::HammingPair::new(i, j, d));
                        })
                        .unwrap();
                }
            }
            got.sort_unstable();
            got.dedup_by_key(|p| (p.a, p.b));
            assert_eq!(got, want, "D = {bits}");
        }
        assert!(
            WindowSearch::new()
                .window_pairs(&[1, 2], 3, |_, _, _| {})
                .is_err()
        );
    }
}
