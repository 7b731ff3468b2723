//! The in-memory record buffer of the shuffle: records partitioned by a byte of the key as they
//! arrive, and sorted partition by partition with a radix sort.
//!
//! Band keys are well-mixed 64-bit hashes, so their top byte splits the records into 256 nearly
//! equal partitions; pair keys are sentence ids, whose top byte is taken below the largest id
//! (`key_bits`), so that they spread too. Partitioning on push costs a scattered write instead of
//! a copy, and leaves 256 independent sorts that run in parallel on rayon. Each partition is
//! sorted by a least-significant-digit radix sort on just enough of the key bits that vary
//! within it (from the highest down; sentence-id keys have long stretches of constant bits) that
//! the records left with equal upper bits are few (two passes for a partition of a million
//! records), and those short runs are finished with `sort_unstable`, which also orders
//! the ids of equal keys. The scratch buffer is one partition per worker.
//!
//! The order is the total order on `(key, id)`, whatever the keys: the property tests compare it
//! with `sort_unstable`, also for keys that all fall in one partition. Measured against rayon's
//! parallel pdqsort in `docs/performance.md` ("dedup").
use rayon::prelude::*;

/// Partitions (one per value of the partition byte).
pub(super) const PARTS: usize = 256;

/// A partition at most this long is sorted with `sort_unstable` alone.
const SMALL: usize = 256;

/// Records, partitioned by the key byte at `shift` (see the module docs).
#[derive(Debug)]
pub(super) struct Partitioned {
    parts: Vec<Vec<(u64, u64)>>,
    shift: u32,
    len: usize,
}

impl Partitioned {
    /// An empty buffer for keys below `2^key_bits` (`key_bits` in `1..=64`).
    pub(super) fn new(key_bits: u32) -> Partitioned {
        Partitioned {
            parts: (0..PARTS).map(|_| Vec::new()).collect(),
            shift: key_bits.clamp(8, 64) - 8,
            len: 0,
        }
    }

    /// Adds a record; its key must be below `2^key_bits`.
    #[inline]
    pub(super) fn push(&mut self, record: (u64, u64)) {
        self.parts[(record.0 >> self.shift) as usize].push(record);
        self.len += 1;
    }

    /// The partitions, in key order (each sorted after [`Partitioned::sort_dedup`]).
    pub(super) fn partitions(&self) -> &[Vec<(u64, u64)>] {
        &self.parts
    }

    /// The partition byte of a key is `key >> shift()`.
    pub(super) fn shift(&self) -> u32 {
        self.shift
    }

    /// Records held.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Whether no record is held.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sorts every partition by `(key, id)` and drops duplicate records, in parallel.
    pub(super) fn sort_dedup(&mut self) {
        self.parts
            .par_iter_mut()
            .with_max_len(1)
            .for_each_init(Vec::new, |scratch, part| {
                sort_partition(part, scratch);
                part.dedup();
            });
        self.len = self.parts.iter().map(Vec::len).sum();
    }

    /// Empties the buffer, keeping its allocations for the next records.
    pub(super) fn clear(&mut self) {
        self.parts.iter_mut().for_each(Vec::clear);
        self.len = 0;
    }

    /// Empties the buffer and frees its allocations.
    pub(super) fn release(&mut self) {
        self.parts.iter_mut().for_each(|part| *part = Vec::new());
        self.len = 0;
    }

    /// Records the partitions have room for.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> usize {
        self.parts.iter().map(Vec::capacity).sum()
    }

    /// The records in partition order (sorted after [`Partitioned::sort_dedup`]).
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.parts.iter().flatten().copied()
    }

    /// The record at `(partition, position)`, moving to the next partition at a partition's end;
    /// `None` after the last record. For a merge source that walks the buffer.
    #[inline]
    pub(super) fn get(&self, part: &mut usize, pos: &mut usize) -> Option<(u64, u64)> {
        loop {
            let records = self.parts.get(*part)?;
            if let Some(&r) = records.get(*pos) {
                *pos += 1;
                return Some(r);
            }
            *part += 1;
            *pos = 0;
        }
    }
}

/// Sorts one partition by `(key, id)`.
fn sort_partition(v: &mut [(u64, u64)], scratch: &mut Vec<(u64, u64)>) {
    let n = v.len();
    if n <= SMALL {
        v.sort_unstable();
        return;
    }
    // Radix passes over the key bits that vary within the partition (sentence ids as keys leave
    // long stretches of zero bits), from the highest down, enough of them that about 8 records
    // share the sorted bits: `passes * 8 >= log2(n / 8)`. A digit may reach below the lowest
    // varying bit or overlap the next digit's constant bits; that only repeats bits, and the
    // order is by the union of the digits' bits either way.
    let first = v[0].0;
    let mut varying = v.iter().fold(0u64, |acc, &(key, _)| acc | (key ^ first));
    let wanted = (usize::BITS - (n / 8).leading_zeros()).div_ceil(8).max(1);
    let mut positions: Vec<u32> = Vec::with_capacity(wanted as usize);
    while varying != 0 && positions.len() < wanted as usize {
        let top = u64::BITS - 1 - varying.leading_zeros();
        let pos = top.saturating_sub(7);
        positions.push(pos);
        varying &= (1u64 << pos) - 1;
    }
    if positions.is_empty() {
        // One key: order the ids.
        v.sort_unstable();
        return;
    }
    // Least significant digit first.
    positions.reverse();
    let low = positions[0];
    let mut hist = vec![[0usize; 256]; positions.len()];
    for &(key, _) in v.iter() {
        for (h, &pos) in hist.iter_mut().zip(&positions) {
            h[((key >> pos) & 0xff) as usize] += 1;
        }
    }
    scratch.clear();
    scratch.resize(n, (0, 0));
    let mut src: &mut [(u64, u64)] = v;
    let mut dst: &mut [(u64, u64)] = scratch;
    let mut in_scratch = false;
    for (h, &pos) in hist.iter().zip(&positions) {
        if h.contains(&n) {
            continue; // every record has the same digit: nothing to move
        }
        let mut next = [0usize; 256];
        let mut sum = 0;
        for (o, &c) in next.iter_mut().zip(h.iter()) {
            *o = sum;
            sum += c;
        }
        for &r in src.iter() {
            let d = ((r.0 >> pos) & 0xff) as usize;
            dst[next[d]] = r;
            next[d] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
        in_scratch = !in_scratch;
    }
    if in_scratch {
        dst.copy_from_slice(src);
        std::mem::swap(&mut src, &mut dst);
    }
    // `src` is the partition again, ordered by the key bits from `low` up: finish the runs that
    // agree on those bits.
    let v = src;
    let mut i = 0;
    while i < n {
        let upper = v[i].0 >> low;
        let mut j = i + 1;
        while j < n && v[j].0 >> low == upper {
            j += 1;
        }
        // Equal keys usually arrive with ascending ids (the pipeline pushes in id order).
        if j - i > 1 && !v[i..j].is_sorted() {
            v[i..j].sort_unstable();
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn check(v: Vec<(u64, u64)>, key_bits: u32) {
        let mut expected = v.clone();
        expected.sort_unstable();
        expected.dedup();
        let mut p = Partitioned::new(key_bits);
        for &r in &v {
            p.push(r);
        }
        assert_eq!(p.len(), v.len());
        p.sort_dedup();
        assert_eq!(p.len(), expected.len());
        assert_eq!(p.iter().collect::<Vec<_>>(), expected);
        let (mut part, mut pos) = (0, 0);
        let walked: Vec<_> = std::iter::from_fn(|| p.get(&mut part, &mut pos)).collect();
        assert_eq!(walked, expected);
    }

    /// A splitmix64 step (test data only).
    fn mix(x: u64) -> u64 {
        let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn sorts_like_sort_unstable(v in proptest::collection::vec(any::<(u64, u64)>(), 0..5000)) {
            check(v, 64);
        }

        /// Few distinct keys and ids: long runs of equal keys, duplicate records, and keys that
        /// leave most partitions empty.
        #[test]
        fn sorts_equal_keys(v in proptest::collection::vec((0u64..4, 0u64..50), 0..5000)) {
            check(v.iter().map(|&(k, id)| (k << 60 | k, id)).collect(), 64);
            check(v, 2);
        }

        /// Keys below `2^bits`, as the pair sorter sees sentence ids.
        #[test]
        fn sorts_narrow_keys(bits in 1u32..=64, v in proptest::collection::vec(any::<(u64, u64)>(), 0..3000)) {
            let mask = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
            check(v.into_iter().map(|(k, id)| (k & mask, id)).collect(), bits);
        }
    }

    #[test]
    fn large_partitions_take_the_radix_passes() {
        // 600,000 records: about 2,300 per partition, some keys repeated with unsorted ids.
        let v: Vec<(u64, u64)> = (0..600_000u64)
            .map(|i| {
                let key = mix(i % 450_000);
                (key, mix(i) >> 40)
            })
            .collect();
        check(v.clone(), 64);
        // The same as sentence-id-like keys: dense and small.
        check(v.iter().map(|&(k, id)| (k >> 44, id)).collect(), 20);
        // Packed sentence ids `doc << 32 | idx` as keys: constant bits between the two fields.
        let packed: Vec<(u64, u64)> = v
            .iter()
            .map(|&(k, id)| ((k % 5_000) << 32 | (k >> 58), id))
            .collect();
        check(packed, 45);
    }
}
