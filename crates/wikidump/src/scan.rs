//! Finding the next byte of a small set, the inner loop of the cleaner's passes. On x86-64 the
//! bytes are compared 16 at a time with SSE2 (part of the x86-64 baseline, so no run-time
//! detection is needed); elsewhere, and for the last few bytes, one at a time with a table.

/// A set of `K` bytes, with a table for the byte-at-a-time path.
#[derive(Debug)]
pub(crate) struct ByteSet<const K: usize> {
    bytes: [u8; K],
    table: [bool; 256],
}

impl<const K: usize> ByteSet<K> {
    pub(crate) const fn new(bytes: [u8; K]) -> Self {
        let mut table = [false; 256];
        let mut i = 0;
        while i < K {
            table[bytes[i] as usize] = true;
            i += 1;
        }
        ByteSet { bytes, table }
    }

    /// Whether `b` is in the set.
    #[inline(always)]
    pub(crate) fn contains(&self, b: u8) -> bool {
        self.table[b as usize]
    }

    /// The first index at or after `from` whose byte is in the set, or `hay.len()`.
    #[inline(always)]
    pub(crate) fn find(&self, hay: &[u8], from: usize) -> usize {
        let mut i = from;
        #[cfg(target_arch = "x86_64")]
        while let Some(block) = hay.get(i..i + 16) {
            let mask = self.mask16(block);
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
        while i < hay.len() && !self.contains(hay[i]) {
            i += 1;
        }
        i
    }

    /// The end of the run that starts at `from`: bytes outside the set, and single spaces
    /// between two of them (a space ends the run when it comes first, or is followed by a space,
    /// a byte of the set or the end). The run may end earlier, at a space that is the last byte of
    /// a 16-byte block, so callers must handle a space at the returned index like any other.
    #[inline(always)]
    pub(crate) fn spaced_run_end(&self, hay: &[u8], from: usize) -> usize {
        let mut i = from;
        #[cfg(target_arch = "x86_64")]
        while let Some(block) = hay.get(i..i + 16) {
            let set = self.mask16(block);
            let spaces = mask16_of(block, b' ');
            // A space ends the run if the next byte is a space or in the set; the byte after
            // the block is unknown, so a space in the last position ends it too.
            let next_special = ((set | spaces) >> 1) | (1 << 15);
            let mut stop = set | (spaces & next_special);
            if i == from {
                stop |= spaces & 1;
            }
            if stop != 0 {
                return i + stop.trailing_zeros() as usize;
            }
            i += 16;
        }
        while i < hay.len() {
            let c = hay[i];
            if self.contains(c) {
                return i;
            }
            if c == b' '
                && (i == from
                    || i + 1 == hay.len()
                    || hay[i + 1] == b' '
                    || self.contains(hay[i + 1]))
            {
                return i;
            }
            i += 1;
        }
        i
    }

    /// Bit `k` set when byte `k` of the first 16 bytes of `block` is in the set.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mask16(&self, block: &[u8]) -> u32 {
        use core::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
            _mm_setzero_si128,
        };
        assert!(block.len() >= 16);
        // SAFETY: SSE2 is part of the x86-64 baseline, so these intrinsics exist on every
        // x86-64 CPU; the unaligned load reads 16 bytes of `block`, which holds at least 16
        // (checked above; the check folds away at the call site).
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast());
            let mut hits = _mm_setzero_si128();
            for &b in &self.bytes {
                hits = _mm_or_si128(hits, _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)));
            }
            _mm_movemask_epi8(hits) as u32
        }
    }
}

/// Bit `k` set when byte `k` of the first 16 bytes of `block` is `byte`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn mask16_of(block: &[u8], byte: u8) -> u32 {
    use core::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    assert!(block.len() >= 16);
    // SAFETY: as in `ByteSet::mask16`: SSE2 is baseline on x86-64, the load reads 16 bytes of
    // `block`.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_matches_a_byte_scan() {
        const SET: ByteSet<5> = ByteSet::new(*b"{}[]|");
        let hay = "plain text {{template|x}} and [[link]] then a long tail without any".repeat(3);
        let b = hay.as_bytes();
        for from in 0..=b.len() {
            let want = (from..b.len())
                .find(|&i| b"{}[]|".contains(&b[i]))
                .unwrap_or(b.len());
            assert_eq!(SET.find(b, from), want, "from {from}");
        }
    }

    /// The byte-at-a-time definition of `spaced_run_end`'s maximal run.
    fn naive_run_end(set: &[u8], b: &[u8], from: usize) -> usize {
        let special = |c: u8| c == b' ' || set.contains(&c);
        let mut j = from;
        while j < b.len() && !special(b[j]) {
            j += 1;
        }
        if j > from {
            while j + 1 < b.len() && b[j] == b' ' && !special(b[j + 1]) {
                j += 2;
                while j < b.len() && !special(b[j]) {
                    j += 1;
                }
            }
        }
        j
    }

    #[test]
    fn spaced_run_end_stops_at_or_before_the_naive_run_end() {
        const SET: ByteSet<4> = ByteSet::new(*b",.\n)");
        let hay =
            "one two  three, four (five) six.\nseven eight nine ten eleven twelve  x ".repeat(3);
        let b = hay.as_bytes();
        for from in 0..=b.len() {
            let want = naive_run_end(b",.\n)", b, from);
            let got = SET.spaced_run_end(b, from);
            // Equal, or earlier only at a space that ends a 16-byte block.
            assert!(
                got == want || (got < want && b[got] == b' ' && (got - from) % 16 == 15),
                "from {from}: {got} vs {want}"
            );
            assert!(got > from || want == from || b[from] == b' ');
        }
    }
}
