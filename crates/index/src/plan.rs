//! How a bound on a writer's or a reader's peak resident memory
//! ([`IndexWriter::max_memory`](crate::IndexWriter::max_memory),
//! [`Index::max_memory`](crate::Index::max_memory)) is shared out.
use crate::Error;

/// The memory of an index run (`index add`, `query`, `compact`), by structure, in bytes: what
/// [`IndexWriter::max_memory`](crate::IndexWriter::max_memory) and
/// [`Index::max_memory`](crate::Index::max_memory) bound and how they share it out.
///
/// The minimum is the fixed cost of a run whatever its input: the program and its thread
/// stacks, the readers of the inputs, the chunk of documents being signed or queried (at most
/// [`MemoryPlan::chunk_bytes`] of text) with their signed units, and the write buffers of a
/// segment. What is left goes to three structures that grow with the input:
///
/// - half to the uncommitted batch ([`IndexWriter::memory_budget`](crate::IndexWriter::memory_budget)):
///   it is written as a segment and committed when it fills half of its share, and writing it
///   (sorting its band-key records) takes about as much again;
/// - three quarters, the batch's share included, to the merges (the automatic ones after a
///   commit, and `compact`: both run when the batch is empty, just committed): their tables
///   of new document and entry numbers, the new segment's bucket directory and document
///   offsets, and the id table, about 4 bytes per entry, 2 per band-key record and 36 per
///   document (at the smallest bound, merges of up to about half a million sentences). A
///   merge that needs more is not run: an automatic one is put off (the index
///   keeps more segments than [`MAX_SEGMENTS`](crate::MAX_SEGMENTS), which queries read the
///   same), and [`IndexWriter::compact`](crate::IndexWriter::compact) fails with
///   [`Error::MergeTooLarge`] before it writes anything;
/// - a quarter to the pages of the memory-mapped segments that a run has touched (they count
///   as resident memory): a merge or a check reading a segment whole, and queries, give their
///   pages back to the OS (they stay in its file cache) whenever they may have read that many.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryPlan {
    /// The bound on peak resident memory, if one was set.
    pub max_memory: Option<u64>,
    /// The smallest bound accepted ([`MemoryPlan::MINIMUM`]; 0 without a bound).
    pub minimum: u64,
    /// The fixed cost of a run, taken off the bound before it is shared out (0 without a
    /// bound).
    pub fixed: u64,
    /// The share of the uncommitted batch: the writer's memory budget.
    pub batch: u64,
    /// The share of a merge's tables, the batch's share included (a merge runs when the batch
    /// is empty); `u64::MAX` without a bound.
    pub merge: u64,
    /// The share of mapped segment pages (`u64::MAX` without a bound: pages are never given
    /// back).
    pub pages: u64,
    /// Documents read, signed and added (or queried) together.
    pub chunk_docs: usize,
    /// Bytes of text read, signed and added (or queried) together, beside `chunk_docs`.
    pub chunk_bytes: usize,
}

/// Documents of a chunk without a bound: enough to keep every core busy.
const CHUNK_DOCS: usize = 4096;
/// Bytes of text of a chunk without a bound.
const CHUNK_BYTES: usize = 32 << 20;
/// Documents of a chunk under a bound: few, so that the pages their queries touch between two
/// releases stay small.
const BOUNDED_CHUNK_DOCS: usize = 256;
/// Bytes of text of a chunk under a bound: the text, its cleaned copy and the signed units
/// (about twice the text for sentences) stay a few MiB.
const BOUNDED_CHUNK_BYTES: usize = 1 << 20;

/// The fixed cost of a run under a bound: the program (about 12 MiB resident, with the
/// thread pool's stacks), the input readers (decompressors and their buffers, a few MiB per
/// thread), the chunk of documents in flight (1 MiB of text, its copies and signed units),
/// and the write buffer of a segment.
const FIXED: u64 = 48 << 20;

/// The smallest batch budget under a bound: smaller ones commit a segment every few thousand
/// sentences (and merge often).
const BATCH_FLOOR: u64 = 16 << 20;

/// Bytes of each of `segments` segments read whole (by a merge or a check) before its pages
/// are given back under a bound: half the pages' share `pages` among them, at least 256 KiB.
pub(crate) fn release_stride(pages: u64, segments: usize) -> usize {
    let stride = pages / 2 / segments.max(1) as u64;
    (stride as usize).max(256 << 10)
}

impl MemoryPlan {
    /// The smallest `max_memory` accepted: the fixed cost of a run (the program, the input
    /// readers, the chunk in flight, the write buffers: 48 MiB) and twice the smallest batch
    /// budget (16 MiB), since the batch gets half of what is left: 80 MiB.
    pub const MINIMUM: u64 = FIXED + 2 * BATCH_FLOOR;

    /// No bound: the batch gets `batch` bytes, everything else what it needs.
    pub(crate) fn unbounded(batch: u64) -> MemoryPlan {
        MemoryPlan {
            max_memory: None,
            minimum: 0,
            fixed: 0,
            batch,
            merge: u64::MAX,
            pages: u64::MAX,
            chunk_docs: CHUNK_DOCS,
            chunk_bytes: CHUNK_BYTES,
        }
    }

    /// The shares of `max_memory`; the batch gets its share, or `batch` when that is given (it
    /// must fit in the share). [`Error::MemoryTooSmall`] when the bound is below the minimum,
    /// [`Error::BatchTooLarge`] when `batch` does not fit.
    pub fn bounded(max_memory: u64, batch: Option<u64>) -> Result<MemoryPlan, Error> {
        let minimum = MemoryPlan::MINIMUM;
        if max_memory < minimum {
            return Err(Error::MemoryTooSmall {
                max_memory,
                minimum,
            });
        }
        let left = max_memory - FIXED;
        let share = left / 2;
        let batch = match batch {
            Some(given) if given > share => {
                return Err(Error::BatchTooLarge {
                    batch: given,
                    share,
                    max_memory,
                });
            }
            Some(given) => given,
            None => share,
        };
        Ok(MemoryPlan {
            max_memory: Some(max_memory),
            minimum,
            fixed: FIXED,
            batch,
            merge: left - left / 4,
            pages: left / 4,
            chunk_docs: BOUNDED_CHUNK_DOCS,
            chunk_bytes: BOUNDED_CHUNK_BYTES,
        })
    }

    /// The smallest bound [`Index::max_memory`](crate::Index::max_memory) accepts for an index
    /// of `segments` segments and `bands` bands queried on `threads` threads (at least
    /// [`MemoryPlan::MINIMUM`]): what the pages one query on each thread may touch need.
    pub fn query_minimum(bands: usize, segments: usize, threads: usize) -> u64 {
        query_minimum(query_pages(bands, segments, threads, FAULT_BYTES))
    }

    /// The plan of a reader: no batch, no merge; the pages get seven eighths of what is left
    /// (the rest for the answers of a chunk of queries).
    pub(crate) fn for_queries(mut self) -> MemoryPlan {
        if let Some(max_memory) = self.max_memory {
            let left = max_memory - self.fixed;
            self.pages = left - left / 8;
        }
        self
    }

    /// Whether mapped pages are given back (a bound was set).
    pub(crate) fn releases(&self) -> bool {
        self.max_memory.is_some()
    }
}

/// The memory of a merge's tables for segments holding `docs` documents, `entries` entries and
/// `pairs` band-key records in all: the new numbers of documents and entries (4 bytes each),
/// the new segment's bucket directory (a `u32` per 4 records at most: 1 byte a record) and
/// document offsets (8 bytes a document), its id table (16 bytes a document, and 8 more per
/// document of the segment being read). The check of each segment before it is copied (16
/// bytes per document of one segment) is done before these are made.
pub(crate) fn merge_bytes(docs: u64, entries: u64, pairs: u64) -> u64 {
    docs.saturating_mul(4 + 8 + 16 + 8)
        .saturating_add(entries.saturating_mul(4))
        .saturating_add(pairs)
        // The smallest directory: 2^16 buckets.
        .saturating_add(1 << 18)
}

/// What one page fault of a query may map at least: up to 16 pages around it (the kernel's
/// fault-around, which the segments' `MADV_RANDOM` does not turn off). Where a fault maps a
/// whole large folio of the page cache instead (Linux 6.18 on ext4: 64 KiB to 2 MiB), a reader
/// under a bound measures what a fault maps and counts that
/// ([`Index::max_memory`](crate::Index::max_memory)).
pub(crate) const FAULT_BYTES: u64 = 64 << 10;

/// Places of the band-key records read to measure what a fault maps.
pub(crate) const FAULT_SAMPLES: usize = 32;

/// What queries on `threads` threads may touch of an index of `segments` segments and `bands`
/// bands between two page releases: per thread, one unit's lookups, two faults of `fault`
/// bytes per band and segment (the directory, the band-key records; the batch counts as a
/// segment). The entries the lookups find are counted one at a time as they are read (two
/// faults each, less than a unit's lookups), and the pages given back when needed: they add
/// nothing here.
pub(crate) fn query_pages(bands: usize, segments: usize, threads: usize, fault: u64) -> u64 {
    ((threads.max(1) * bands * 2 * (segments + 1)) as u64).saturating_mul(fault)
}

/// The smallest bound under which queries touching `need` bytes between releases fit: half
/// the pages' share of a reader.
pub(crate) fn query_minimum(need: u64) -> u64 {
    FIXED
        .saturating_add(need.saturating_mul(2).saturating_mul(8).div_ceil(7))
        .max(MemoryPlan::MINIMUM)
}

/// The smallest bound whose merges' share (three quarters of what is left) holds `needed`
/// bytes.
pub(crate) fn bound_for_merge(needed: u64) -> u64 {
    FIXED
        .saturating_add(needed.saturating_mul(4).div_ceil(3))
        .max(MemoryPlan::MINIMUM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_and_the_minimum_is_enforced() {
        let plan = MemoryPlan::bounded(1 << 30, None).unwrap();
        let left = (1 << 30) - FIXED;
        assert_eq!(plan.merge + plan.pages, left);
        assert!(plan.merge > plan.batch);
        assert_eq!(plan.batch, left / 2);
        let small = MemoryPlan::bounded(MemoryPlan::MINIMUM, None).unwrap();
        assert_eq!(small.batch, BATCH_FLOOR);
        assert!(matches!(
            MemoryPlan::bounded(MemoryPlan::MINIMUM - 1, None),
            Err(Error::MemoryTooSmall {
                minimum: MemoryPlan::MINIMUM,
                ..
            })
        ));
        assert_eq!(
            MemoryPlan::bounded(1 << 30, Some(1 << 20)).unwrap().batch,
            1 << 20
        );
        assert!(matches!(
            MemoryPlan::bounded(1 << 30, Some(1 << 30)),
            Err(Error::BatchTooLarge { .. })
        ));
        let none = MemoryPlan::unbounded(1 << 30);
        assert!(!none.releases() && none.merge == u64::MAX);
    }
}
