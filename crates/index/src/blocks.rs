//! Block checksums: every committed file of an index carries them, and a reader checks each
//! block the first time it touches it.
//!
//! A segment's data (everything after its 4 KiB header block) is cut into [`BLOCK`]-byte
//! blocks, each with a 64-bit [`fingerprint`] in a table at the end of the file; the header
//! holds the table's fingerprint and its own. Opening a segment checks the header and the
//! table (0.2% of the file); a block of data is checked when a query first reads from it, so
//! that a query on a large index reads only the pages it needs, as before. A block that fails
//! is never used: the reader gets zeros instead, the segment records the damage
//! ([`Blocks::damage`]), and the query that touched it returns [`Error::Corrupt`](crate::Error)
//! instead of its result.
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use textreuse_hash::fingerprint;

/// Bytes per checksummed block.
pub(crate) const BLOCK: usize = 4096;

/// The checksums of `data`, one per [`BLOCK`] bytes (the last block may be shorter).
pub(crate) fn block_sums(data: &[u8]) -> Vec<u64> {
    data.chunks(BLOCK).map(fingerprint).collect()
}

/// The fingerprint of a table of `u64` values, as stored (little-endian).
pub(crate) fn table_sum(table: &[u64]) -> u64 {
    textreuse_hash::fingerprint_words(table)
}

/// Which blocks of a mapped region were checked, and the first damage found.
#[derive(Debug)]
pub(crate) struct Blocks {
    /// Where the checked region starts in its file (for messages).
    base: usize,
    /// The expected checksum of each block.
    sums: Vec<u64>,
    /// One bit per block: checked and good.
    good: Vec<AtomicU64>,
    /// What was found wrong first (a failed block, a value out of range, a fault).
    damage: OnceLock<String>,
}

impl Blocks {
    /// The blocks of a region starting at byte `base` of its file, with checksums `sums`.
    pub(crate) fn new(base: usize, sums: Vec<u64>) -> Blocks {
        let good = (0..sums.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Blocks {
            base,
            sums,
            good,
            damage: OnceLock::new(),
        }
    }

    /// Whether bytes `start..end` of `data` (the checksummed region) lie in good blocks,
    /// checking those not checked yet. A failed block is recorded as damage.
    #[inline]
    pub(crate) fn check(&self, data: &[u8], start: usize, end: usize) -> bool {
        if start >= end {
            return true;
        }
        let (first, last) = (start / BLOCK, (end - 1) / BLOCK);
        // Most reads lie in one block.
        if first == last {
            return self.check_block(data, first);
        }
        (first..=last).all(|b| self.check_block(data, b))
    }

    #[inline]
    fn check_block(&self, data: &[u8], b: usize) -> bool {
        match self.good.get(b / 64) {
            Some(word) if word.load(Ordering::Relaxed) & (1u64 << (b % 64)) != 0 => true,
            _ => self.check_new_block(data, b),
        }
    }

    /// A block not checked yet (or past the table): hashed and compared, once.
    #[cold]
    fn check_new_block(&self, data: &[u8], b: usize) -> bool {
        let Some(word) = self.good.get(b / 64) else {
            self.record(format!("block {b} is past the checksum table"));
            return false;
        };
        let bit = 1u64 << (b % 64);
        let start = b * BLOCK;
        let end = (start + BLOCK).min(data.len());
        let ok = start < end && fingerprint(&data[start..end]) == self.sums[b];
        if ok {
            word.fetch_or(bit, Ordering::Relaxed);
        } else {
            self.record(format!(
                "bytes {}..{} fail their checksum",
                self.base + start,
                self.base + start + BLOCK
            ));
        }
        ok
    }

    /// Checks every block not checked yet; the first failure, if any.
    pub(crate) fn check_all(&self, data: &[u8]) -> Result<(), String> {
        for b in 0..self.sums.len() {
            if !self.check_block(data, b) {
                return Err(self.damage().unwrap_or("damaged").to_string());
            }
        }
        Ok(())
    }

    /// Records damage found by a reader (only the first is kept).
    pub(crate) fn record(&self, what: String) {
        let _ = self.damage.set(what);
    }

    /// The first damage found, if any.
    pub(crate) fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_byte_fails_its_block_only() {
        let data: Vec<u8> = (0..3 * BLOCK + 100).map(|i| (i * 7) as u8).collect();
        let sums = block_sums(&data);
        assert_eq!(sums.len(), 4);
        let mut bad = data.clone();
        bad[BLOCK + 5] ^= 1;
        let blocks = Blocks::new(100, sums);
        assert!(blocks.check(&bad, 0, BLOCK));
        assert!(blocks.check(&bad, 2 * BLOCK, bad.len()));
        assert_eq!(blocks.damage(), None);
        assert!(!blocks.check(&bad, BLOCK + 5, BLOCK + 6));
        assert!(blocks.damage().unwrap().contains("4196..8292"));
        assert!(blocks.check_all(&bad).is_err());
        assert!(Blocks::new(0, block_sums(&data)).check_all(&data).is_ok());
    }

    #[test]
    fn ranges_past_the_table_are_damage_not_panics() {
        let data = vec![1u8; 10];
        let blocks = Blocks::new(0, block_sums(&data));
        assert!(!blocks.check(&data, 0, 5 * BLOCK));
        assert!(blocks.damage().is_some());
    }
}
