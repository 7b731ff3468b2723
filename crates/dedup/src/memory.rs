//! How a run's memory bound ([`DedupBuilder::max_memory`]) is shared out.
//!
//! [`DedupBuilder::max_memory`]: crate::DedupBuilder::max_memory
use crate::Error;

/// The memory of a run, by structure, in bytes: what [`DedupBuilder::max_memory`] bounds and
/// how it is shared out ([`Dedup::memory`](crate::Dedup::memory)).
///
/// The minimum is the fixed cost of a run whatever its input: the program and its thread stacks,
/// the pipeline's batches of documents in flight, the buffers of the spill files and the output
/// files, and the batches of clusters being fetched and formatted. What is left of the bound
/// goes to the structures that grow with the input: half to the shuffle's sorts (their buffers,
/// which spill sorted runs to disk when full), a sixteenth to the index of the text store (12
/// bytes per kept unit, 16 per document, moved to a temporary file when its share is full), a
/// sixteenth to the text store's file, which stages 6-8 map into memory to read the members'
/// texts when it fits in the share (else they read it with positioned reads; the file is
/// mapped up to 1 GiB without a bound),
/// three sixteenths to the clusters of stage 5 (union-find over the candidate pairs' ids and
/// the cluster lists stages 6-8 read, about 70-90 bytes per clustered unit at their peak; beyond
/// the share the connected components are computed on disk and read back a batch at a time).
/// Stage 8's article tally and ranking (about 100-140 bytes per clustered document in memory)
/// come after the shuffle is done, so they take the sorts' half again and what is left but a
/// thirty-second ([`MemoryPlan::article_tally`]); beyond it they are sorted on disk. That
/// thirty-second holds the records a deduplicated copy leaves out ([`MemoryPlan::drop_list`],
/// 16 bytes a duplicate, sorted runs on disk past it). With [`Method::SimHash`] the
/// fingerprints (16 bytes a unit) take half the sorts' share, in a temporary file past it, and
/// each table of the search is sorted within the other half by an external sort. With
/// [`DedupBuilder::max_edit`] the candidate pairs kept for stage 7 (16 bytes a pair) take a
/// quarter of the clusters' share, in a temporary file past it, and stage 7 loads their texts
/// a batch at a time within half the sorts' share. The words and vectors of
/// [`Method::RandomProjection`] are not bounded.
///
/// [`DedupBuilder::max_edit`]: crate::DedupBuilder::max_edit
/// [`Method::SimHash`]: crate::Method::SimHash
/// [`Method::RandomProjection`]: crate::Method::RandomProjection
///
/// [`DedupBuilder::max_memory`]: crate::DedupBuilder::max_memory
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
    /// The budget of the shuffle's sorts.
    pub sorts: u64,
    /// The share of the text store's index kept in memory.
    pub text_index: u64,
    /// The largest text store that stages 6-8 map into memory to read the members' texts
    /// (larger ones are read with positioned reads).
    pub mapped_texts: u64,
    /// The share of stage 5's clusters: union-find and the cluster lists in memory while their
    /// peak fits in it, else connected components on disk (`u64::MAX` without a bound).
    pub components: u64,
    /// The share of stage 8's article tally and ranking: in memory while their estimated peak
    /// fits in it, else sorted on disk (`u64::MAX` without a bound). It reuses the sorts'
    /// share, whose shuffle is done before stage 8 starts.
    pub article_tally: u64,
    /// The share of the duplicate records a deduplicated copy leaves out
    /// ([`DropList::with_budget`](crate::rewrite::DropList::with_budget): 16 bytes a record,
    /// sorted runs on disk past it), collected while stages 6-8 run (`u64::MAX` without a
    /// bound).
    pub drop_list: u64,
    /// Members fetched and classified at a time in stages 6-8, and formatted at a time by the
    /// output files.
    pub chunk_members: usize,
    /// Bytes of text (and titles) per batch of the stage 1-2 pipeline, beside its 512
    /// documents ([`DocumentPipeline::batch_bytes`](crate::pipeline::DocumentPipeline::batch_bytes)).
    pub batch_bytes: usize,
}

/// Members per chunk of stages 6-8 without a bound (a few MiB of text).
const CHUNK_MEMBERS: usize = 1 << 15;

/// Bytes of memory a member of a chunk of stages 6-8 takes, counted generously for sentences:
/// the fetched text, the [`Member`](crate::Member) and its JSON line in `clusters.jsonl` and
/// `duplicates.jsonl`, with up to four chunks alive (fetched, being formatted, two queued for
/// the writer).
const CHUNK_BYTES_PER_MEMBER: u64 = 4 * 1024;

/// The fixed cost of a run: the program (about 12 MiB resident), the stage 1-2 pipeline (its
/// batches in flight, of 512 documents and at most about [`BATCH_BYTES`] of text each),
/// the read buffers of the shuffle's merge (up to 64 spilled runs read at once with 256 KiB
/// buffers, and each read again by four parallel range merges with 64 KiB buffers: 32 MiB),
/// the write buffers of the text store, the spill files and the outputs (a few MiB).
const FIXED: u64 = 80 << 20;

/// Bytes of text per pipeline batch under a bound: with about six batches alive (two queued,
/// one processed, two waiting, one consumed), each as the source and as the document it is
/// cleaned into, about 24 MiB of the fixed cost.
const BATCH_BYTES: usize = 2 << 20;

/// The largest text store that stages 6-8 read through a memory map without a bound (a few
/// million sentences; larger ones are read with positioned reads).
const MAPPED_TEXTS: u64 = 1 << 30;

/// The smallest budget of the sorts under a bound (smaller ones write a run every few records).
const SORTS_FLOOR: u64 = 16 << 20;

impl MemoryPlan {
    /// The smallest `max_memory` accepted: the fixed cost of a run (the program, the pipeline's
    /// batches, the read and write buffers of spill and output files: 80 MiB) and twice the
    /// smallest budget of the sorts (16 MiB), since they get half of what is left.
    pub const MINIMUM: u64 = FIXED + 2 * SORTS_FLOOR;

    /// No bound: the sorts get `sorts` bytes, everything else what it needs.
    pub(crate) fn unbounded(sorts: u64) -> MemoryPlan {
        MemoryPlan {
            max_memory: None,
            minimum: 0,
            fixed: 0,
            sorts,
            text_index: u64::MAX,
            mapped_texts: MAPPED_TEXTS,
            components: u64::MAX,
            article_tally: u64::MAX,
            drop_list: u64::MAX,
            chunk_members: CHUNK_MEMBERS,
            batch_bytes: usize::MAX,
        }
    }

    /// The shares of `max_memory`; the sorts get their share, or `sorts` when that is given
    /// (it must fit in the share). [`Error::MemoryTooSmall`] when the bound is below the
    /// minimum, [`Error::InvalidOption`] when `sorts` does not fit.
    pub(crate) fn bounded(max_memory: u64, sorts: Option<u64>) -> Result<MemoryPlan, Error> {
        let minimum = MemoryPlan::MINIMUM;
        if max_memory < minimum {
            return Err(Error::MemoryTooSmall {
                max_memory,
                minimum,
            });
        }
        let left = max_memory - FIXED;
        let share = left / 2;
        let sorts = match sorts {
            Some(given) if given > share => {
                return Err(Error::InvalidOption {
                    option: "mem_budget",
                    message: format!(
                        "{given} bytes for the sorts do not fit in their share of max_memory \
                         {max_memory} ({share} bytes: half of what is left after the fixed \
                         cost of {FIXED}); give a smaller budget for the sorts, or none to use \
                         the share"
                    ),
                });
            }
            Some(given) => given,
            None => share,
        };
        let text_index = left / 16;
        let mapped_texts = left / 16;
        let components = left / 16 * 3;
        let drop_list = left / 32;
        // Chunks of stages 6-8 grow with the bound, from 1,024 members near the minimum to the
        // unbounded run's 32,768 (at about 1.1 GiB of bound).
        let chunk_members =
            ((left / 8 / CHUNK_BYTES_PER_MEMBER) as usize).clamp(1 << 10, CHUNK_MEMBERS);
        Ok(MemoryPlan {
            max_memory: Some(max_memory),
            minimum,
            fixed: FIXED,
            sorts,
            text_index,
            mapped_texts,
            components,
            article_tally: left - text_index - mapped_texts - components - drop_list,
            drop_list,
            chunk_members,
            batch_bytes: BATCH_BYTES,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_and_the_minimum_is_enforced() {
        let plan = MemoryPlan::bounded(2 << 30, None).unwrap();
        let left = (2 << 30) - FIXED;
        assert_eq!(
            plan.text_index
                + plan.mapped_texts
                + plan.components
                + plan.article_tally
                + plan.drop_list,
            left
        );
        assert!(plan.components >= left / 6 && plan.article_tally >= plan.sorts + left / 8);
        assert_eq!(plan.sorts, left / 2);
        assert_eq!(plan.chunk_members, CHUNK_MEMBERS);
        let small = MemoryPlan::bounded(MemoryPlan::MINIMUM, None).unwrap();
        assert_eq!((small.sorts, small.chunk_members), (SORTS_FLOOR, 1 << 10));
        assert!(matches!(
            MemoryPlan::bounded(MemoryPlan::MINIMUM - 1, None),
            Err(Error::MemoryTooSmall {
                minimum: MemoryPlan::MINIMUM,
                ..
            })
        ));
        assert_eq!(
            MemoryPlan::bounded(1 << 30, Some(1 << 20)).unwrap().sorts,
            1 << 20
        );
        assert!(MemoryPlan::bounded(1 << 30, Some(1 << 30)).is_err());
    }
}
