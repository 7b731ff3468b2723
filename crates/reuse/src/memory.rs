//! How a run's memory bound ([`ReuseBuilder::max_memory`]) is shared out.
//!
//! [`ReuseBuilder::max_memory`]: crate::ReuseBuilder::max_memory
use crate::{PREPARED_TEXT_BYTES, ReuseError};

/// The memory of a run, by structure, in bytes: what [`ReuseBuilder::max_memory`] bounds and
/// how it is shared out ([`Reuse::memory`](crate::Reuse::memory)).
///
/// The minimum is the fixed cost of a run whatever its input: the program and its thread
/// stacks, the reading of the inputs, the batches of documents whose chunk vectors are
/// computed at once, the read buffers of the sorts' merges (up to 64 spilled runs at 256 KiB
/// each, two sorts at a time) and of the candidate list, and the write buffers of the text
/// store, the tokens and the output files. What is left of the bound goes to the structures
/// that grow with the input:
///
/// * three eighths to the sorts ([`MemoryPlan::sorts`]): with tf-idf candidates two thirds of
///   it to the inverted index's blocks (the index side is cut into more blocks, each one more
///   pass over the queries) and a sixth to each of the two sorts of nominations and pairs;
///   with MinHash candidates three quarters to the shuffle of band-key records and a quarter
///   to the sort of chunk pairs into document pairs. Each sort spills sorted runs to disk.
/// * a quarter to alignment: three quarters of it to the parts of a batch
///   ([`MemoryPlan::align_text`]): a batch of candidate pairs is cut into parts whose documents
///   have at most a sixth of those bytes of text together (their tokens take about five times
///   their text); stored texts count also a sixth of the pages reading them maps in (64 KiB
///   windows), which stay resident while their part is aligned. The last quarter to the caches
///   of normalized words that the threads tokenizing keep ([`MemoryPlan::align_caches`],
///   shared equally among the threads; `AlignerBuilder::cache_memory`).
/// * an eighth to the pages of the stored texts (and their ids, titles and provenance) mapped
///   into memory ([`MemoryPlan::mapped_texts`]): once the run has read that many bytes of them,
///   their pages are handed back to the operating system (they are read again from the page
///   cache or the disk when needed).
/// * an eighth to the arrays of one entry per document ([`MemoryPlan::doc_arrays`]), each
///   in proportion to its bytes per document: the text stores' offsets (16 bytes: where a
///   document's text and information end), the tokens' places (12), the tf-idf stage's first
///   chunk numbers (4) and posting counts (8). An array that would take more than its part
///   moves to a temporary file, read back by positioned reads (the stores' offsets and the
///   tokens' places, once per document read) or a batch of documents at a time (the tf-idf
///   arrays). The document of each chunk is held per index block, within the sorts' share.
/// * a sixteenth to what is kept per document with a passage by name ([`MemoryPlan::documents`]):
///   half to the rows of `documents.tsv` (id, title, counts and reused ranges; past it, the
///   rows are written to a temporary file as a sorted run, and the runs are merged when the file
///   is written), half to the corpus view's ids and titles (past it, in a temporary file, read
///   back for the names the summary lists).
/// * a thirty-second to the corpus view's article graph ([`MemoryPlan::articles`]): per
///   document with a passage (an article) its degree, case count, union-find entry and where
///   its names are, 35 to 70 bytes an article in memory; past it, in a temporary file of 24
///   bytes per document number, read and written by positioned reads.
/// * the rest ([`unbounded`](MemoryPlan#structfield.unbounded)) to the structures that are
///   not bounded yet: per distinct term of more than one document its
///   document frequency (a term of one document is left out: its weight is the same without
///   it; 290,472 of 728,636 terms kept on 63,362 Wikipedia articles) (under a bound the terms'
///   document frequencies and posting counts are counted by external sorts within the sorts'
///   share, and kept as sorted arrays of 12 bytes a term, the posting counts only for the
///   terms over the cap; without one, in two hash maps of 20 to 40 bytes a term), which the
///   run estimates from all distinct terms and warns about when it passes this share.
///
/// The documents of [`Reuse::run`](crate::Reuse::run) are the caller's memory and outside the
/// bound; [`Reuse::run_stored`](crate::Reuse::run_stored) keeps them on disk.
///
/// Measured with `textreuse reuse CORPUS --terms 1 --max-memory B` under `/usr/bin/time -v` on
/// 6,200,000 short documents (1.29 GB; `docs/performance.md` in the repository has the commands)
/// on a 2-core VM (AMD EPYC, 23 GiB) shared with a niced fuzzer and other runs, one run each;
/// peak RSS with the per-document arrays' share, and before they had one:
///
/// | B | peak RSS | before |
/// |---|---|---|
/// | 128MiB | 90 MiB | 262 MiB |
/// | 256MB (244 MiB) | 197 MiB | 360 MiB |
/// | 1GB (954 MiB) | 344 MiB | 542 MiB |
///
/// The output files were the same bytes in every run.
///
/// [`ReuseBuilder::max_memory`]: crate::ReuseBuilder::max_memory
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
    /// The budget of the sorts and of the tf-idf index blocks together.
    pub sorts: u64,
    /// Bytes of text a part of an alignment batch tokenizes at once, at most (unless one
    /// pair's two documents are longer).
    pub align_text: usize,
    /// Bytes of the caches of normalized words of the threads that tokenize, all of them
    /// together (`u64::MAX`: each thread takes the aligner's default).
    pub align_caches: u64,
    /// Bytes of the stored texts and their information read before their mapped pages are
    /// handed back to the operating system (`u64::MAX`: never).
    pub mapped_texts: u64,
    /// Bytes of the arrays of one entry per document kept in memory, all of them together
    /// (`u64::MAX`: no limit); past its part ([`MemoryPlan::store_offsets`] and the like), an
    /// array moves to a temporary file.
    pub doc_arrays: u64,
    /// Bytes of the rows of `documents.tsv` held in memory (`u64::MAX`: no limit); past it,
    /// they go to sorted runs on disk.
    pub documents: u64,
    /// Bytes of the corpus view's article graph held in memory (`u64::MAX`: no limit); past
    /// it, the graph moves to a temporary file.
    pub articles: u64,
    /// What is left for the structures without a share (per document, per chunk, per distinct
    /// term); they are not held to it.
    pub unbounded: u64,
}

/// The fixed cost of a run (see [`MemoryPlan`]): the program and its threads (about 15 MiB
/// resident), the reading of the inputs (a few MiB), a batch of 1,024 documents' chunk vectors
/// (a few MiB), the merges' read buffers (32 MiB for two sorts of 64 runs), and the write
/// buffers (a few MiB).
const FIXED: u64 = 80 << 20;

/// The smallest share of what is left after the fixed cost: 48 MiB, so that the sorts get at
/// least 18 MiB, alignment 12 MiB (1.5 MiB of text at a time and 3 MiB of caches of normalized
/// words), the mapped texts 6 MiB, the
/// per-document arrays 6 MiB and the rows of `documents.tsv` 3 MiB.
const LEFT_FLOOR: u64 = 48 << 20;

/// Bytes of memory per byte of text in a part of an alignment batch: the text's mapped pages
/// and its tokens (about five times the text), with room for the aligner's work space.
pub(crate) const ALIGN_BYTES_PER_TEXT_BYTE: u64 = 6;

/// Bytes per document of the text stores' offsets (where its text and information end).
pub(crate) const STORE_OFFSETS_BYTES: u64 = 16;
/// Bytes per document of the tokens' places (start and length in their file).
pub(crate) const TOKEN_PLACE_BYTES: u64 = 12;
/// Bytes per document of the tf-idf stage's first chunk numbers.
pub(crate) const FIRST_CHUNK_BYTES: u64 = 4;
/// Bytes per document of the tf-idf stage's posting counts.
pub(crate) const POSTINGS_OF_DOC_BYTES: u64 = 8;
/// Bytes per document of all the arrays that share [`MemoryPlan::doc_arrays`].
const DOC_ARRAY_BYTES: u64 =
    STORE_OFFSETS_BYTES + TOKEN_PLACE_BYTES + FIRST_CHUNK_BYTES + POSTINGS_OF_DOC_BYTES;

impl MemoryPlan {
    /// The smallest `max_memory` accepted: the fixed cost of a run (80 MiB) and the smallest
    /// shares of the structures that grow with the input (48 MiB).
    pub const MINIMUM: u64 = FIXED + LEFT_FLOOR;

    /// No bound: the sorts get `sorts` bytes, everything else what it needs.
    pub(crate) fn unbounded(sorts: u64) -> MemoryPlan {
        MemoryPlan {
            max_memory: None,
            minimum: 0,
            fixed: 0,
            sorts,
            align_text: PREPARED_TEXT_BYTES,
            align_caches: u64::MAX,
            mapped_texts: u64::MAX,
            doc_arrays: u64::MAX,
            documents: u64::MAX,
            articles: u64::MAX,
            unbounded: u64::MAX,
        }
    }

    /// The shares of `max_memory`; the sorts get their share, or `sorts` when that is given
    /// (it must fit in the share). [`ReuseError::MemoryTooSmall`] when the bound is below the
    /// minimum, [`ReuseError::Parameter`] when `sorts` does not fit.
    pub(crate) fn bounded(max_memory: u64, sorts: Option<u64>) -> Result<MemoryPlan, ReuseError> {
        let minimum = MemoryPlan::MINIMUM;
        if max_memory < minimum {
            return Err(ReuseError::MemoryTooSmall {
                max_memory,
                minimum,
            });
        }
        let left = max_memory - FIXED;
        let share = left / 8 * 3;
        let sorts = match sorts {
            Some(given) if given > share => {
                return Err(ReuseError::Parameter(format!(
                    "mem_budget: {given} bytes for the sorts and index blocks do not fit in their \
                     share of max_memory {max_memory} ({share} bytes: three eighths of what is \
                     left after the fixed cost of {FIXED}); give a smaller budget, or none to \
                     use the share"
                )));
            }
            Some(given) => given,
            None => share,
        };
        let align = left / 4;
        let mapped_texts = left / 8;
        let doc_arrays = left / 8;
        let documents = left / 16;
        let articles = left / 32;
        Ok(MemoryPlan {
            max_memory: Some(max_memory),
            minimum,
            fixed: FIXED,
            sorts,
            align_text: (align / 4 * 3 / ALIGN_BYTES_PER_TEXT_BYTE).min(PREPARED_TEXT_BYTES as u64)
                as usize,
            align_caches: align / 4,
            mapped_texts,
            doc_arrays,
            documents,
            articles,
            unbounded: left - share - align - mapped_texts - doc_arrays - documents - articles,
        })
    }

    /// Whether a bound was set.
    pub fn is_bounded(&self) -> bool {
        self.max_memory.is_some()
    }

    /// The part of [`MemoryPlan::doc_arrays`] of an array of `bytes` per document: its share
    /// of their bytes per document together.
    pub(crate) fn doc_array_share(&self, bytes: u64) -> u64 {
        match self.doc_arrays {
            u64::MAX => u64::MAX,
            all => all / DOC_ARRAY_BYTES * bytes,
        }
    }

    /// The bytes of the text stores' offsets kept in memory, for the stores of a run together
    /// (the part of [`MemoryPlan::doc_arrays`] of their 16 bytes per document;
    /// [`DocumentStoreBuilder::max_offsets_memory`](crate::DocumentStoreBuilder::max_offsets_memory)
    /// takes it, halved for each of two stores).
    pub fn store_offsets(&self) -> u64 {
        self.doc_array_share(STORE_OFFSETS_BYTES)
    }
}

/// Bytes each distinct term costs under a bound: its key and document frequency in sorted
/// arrays (12 bytes), twice while the arrays grow by doubling.
pub(crate) const BYTES_PER_TERM: u64 = 24;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_and_the_minimum_is_enforced() {
        let plan = MemoryPlan::bounded(2 << 30, None).unwrap();
        let left = (2 << 30) - FIXED;
        assert_eq!(
            plan.sorts
                + left / 4
                + plan.mapped_texts
                + plan.doc_arrays
                + plan.documents
                + plan.articles
                + plan.unbounded,
            left
        );
        // The arrays' parts add up to at most their share.
        let parts = [
            STORE_OFFSETS_BYTES,
            TOKEN_PLACE_BYTES,
            FIRST_CHUNK_BYTES,
            POSTINGS_OF_DOC_BYTES,
        ]
        .map(|b| plan.doc_array_share(b));
        assert!(parts.iter().sum::<u64>() <= plan.doc_arrays);
        assert_eq!(plan.store_offsets(), parts[0]);
        assert!(parts[0] > plan.doc_arrays / 3);
        assert_eq!(plan.sorts, left / 8 * 3);
        assert_eq!(plan.align_text, PREPARED_TEXT_BYTES);
        let small = MemoryPlan::bounded(MemoryPlan::MINIMUM, None).unwrap();
        assert_eq!(small.align_text, 3 << 19);
        assert_eq!(small.align_caches, 3 << 20);
        assert!(
            small.align_text as u64 * ALIGN_BYTES_PER_TEXT_BYTE + small.align_caches <= 12 << 20
        );
        assert_eq!(small.sorts, 18 << 20);
        assert!(matches!(
            MemoryPlan::bounded(MemoryPlan::MINIMUM - 1, None),
            Err(ReuseError::MemoryTooSmall {
                minimum: MemoryPlan::MINIMUM,
                ..
            })
        ));
        assert_eq!(
            MemoryPlan::bounded(1 << 30, Some(1 << 20)).unwrap().sorts,
            1 << 20
        );
        assert!(MemoryPlan::bounded(1 << 30, Some(1 << 30)).is_err());
        let none = MemoryPlan::unbounded(1 << 30);
        assert!(!none.is_bounded() && none.mapped_texts == u64::MAX);
        assert_eq!(none.align_caches, u64::MAX);
        assert_eq!(none.store_offsets(), u64::MAX);
    }
}
