//! The pair stage: buckets of the merged band-key records -> star (or capped all) pairs,
//! de-duplicated by a second sorter -> the candidate-pair stream and clusters.
use super::sort::{Merger, Run, Source, open_run};
use super::*;

/// Stages 3-5: band-key records in, candidate pairs and clusters out (see the module docs).
#[derive(Debug)]
pub struct Shuffle {
    pub(super) records: RecordSorter,
    /// The largest id pushed: pair keys are ids, so the pair sorter partitions below its bits.
    pub(super) max_id: u64,
    pub(super) options: ShuffleBuilder,
}

impl Shuffle {
    /// Adds one band-key record `(key, sentence id)`.
    #[inline]
    pub fn push(&mut self, key: u64, id: u64) -> Result<(), ShuffleError> {
        self.max_id = self.max_id.max(id);
        self.records.push(key, id)
    }

    /// Adds many band-key records.
    pub fn push_slice(&mut self, records: &[(u64, u64)]) -> Result<(), ShuffleError> {
        let max = records.iter().map(|&(_, id)| id).max().unwrap_or(0);
        self.max_id = self.max_id.max(max);
        self.records.push_slice(records)
    }

    /// Records pushed so far.
    pub fn len(&self) -> u64 {
        self.records.len()
    }

    /// Whether no record was pushed.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Merges the records into buckets, turns the buckets into pairs and de-duplicates them.
    pub fn finish(self) -> Result<PairStream, ShuffleError> {
        self.finish_with_progress(&mut |_| {})
    }

    /// [`Shuffle::finish`], calling `progress(n)` each time `n` more records were merged into
    /// buckets (every 65,536 records or so; the calls add up to the distinct records), for a
    /// progress bar.
    pub fn finish_with_progress(
        self,
        progress: &mut dyn FnMut(u64),
    ) -> Result<PairStream, ShuffleError> {
        let Shuffle {
            records,
            max_id,
            options,
        } = self;
        let mut stats = ShuffleStats {
            records: records.len(),
            ..ShuffleStats::default()
        };
        let mut buckets = records.finish_inner(true)?;
        // The pair sorter gets the part of the budget that the in-memory records do not hold
        // (all of it once the records spilled; read buffers are outside the budget), but at
        // least a sixteenth of it: a pair sorter squeezed to a few records would write a run
        // every few records and merge them in many passes.
        let held = buckets
            .merger
            .sources
            .iter()
            .map(Source::held_bytes)
            .sum::<u64>();
        let pair_budget = options
            .mem_budget
            .saturating_sub(held)
            .max(options.mem_budget / PAIR_BUDGET_FLOOR)
            .max(MIN_MEM_BUDGET);
        let id_bits = (u64::BITS - max_id.leading_zeros()).max(1);
        let mut pairs = RecordSorter::with_budget(pair_budget, options.tmp_dir.clone(), id_bits);
        if let Some(records) = buckets.in_memory() {
            // Everything is in one sorted in-memory buffer whose partitions hold disjoint keys:
            // turn the partitions into pairs in parallel, a slice of partitions at a time (so
            // the pairs in flight stay a fraction of all), and push them in partition order.
            for chunk in records.partitions().chunks(PARTITIONS_IN_FLIGHT) {
                let done: Vec<PartitionPairs> = chunk
                    .par_iter()
                    .map(|part| partition_pairs(part, &options))
                    .collect();
                add_wave(&done, &mut stats, &mut pairs, progress)?;
            }
        } else if let Some(runs) = buckets.all_spilled() {
            // Every run is sorted and partitioned the same way, so ranges of partitions merge
            // independently: in parallel, a few ranges at a time, pushed in range order.
            let ranges: Vec<std::ops::Range<usize>> = (0..PARTS)
                .step_by(MERGE_RANGE)
                .map(|p| p..(p + MERGE_RANGE).min(PARTS))
                .collect();
            // Each range hands over its pairs a slice at a time (a round), so the pairs in
            // flight stay bounded however many records a range holds.
            let round = round_pairs(options.mem_budget);
            for wave in ranges.chunks(PARTITIONS_IN_FLIGHT / MERGE_RANGE) {
                let mut merges = wave
                    .iter()
                    .map(|parts| RangeMerge::open(runs, parts.clone()))
                    .collect::<Result<Vec<_>, _>>()?;
                while merges.iter().any(|m| !m.done) {
                    merges
                        .par_iter_mut()
                        .try_for_each(|m| m.next_pairs(&options, round))?;
                    add_wave(
                        merges.iter().map(|m| &m.out),
                        &mut stats,
                        &mut pairs,
                        progress,
                    )?;
                }
            }
        } else {
            let (mut ids, mut merged) = (Vec::new(), 0u64);
            while buckets.next_group(&mut ids)?.is_some() {
                merged += ids.len() as u64;
                if merged >= 1 << 16 {
                    progress(merged);
                    merged = 0;
                }
                stats.buckets += 1;
                let left_out = bucket_pairs(&mut ids, &options, |a, b| pairs.push(a, b))?;
                stats.buckets_capped += u64::from(left_out > 0);
                stats.bucket_ids_left_out += left_out;
            }
            progress(merged);
        }
        stats.pairs_emitted = pairs.len();
        stats.bytes_spilled = buckets.bytes_spilled();
        stats.runs = buckets.runs();
        drop(buckets);
        let pairs = pairs.finish()?;
        stats.bytes_spilled += pairs.bytes_spilled();
        stats.runs += pairs.runs();
        Ok(PairStream { pairs, stats })
    }
}

/// Partitions turned into pairs at once by the parallel paths of [`Shuffle::finish`].
const PARTITIONS_IN_FLIGHT: usize = 32;

/// Partitions per range merged by one task when every record was spilled.
const MERGE_RANGE: usize = 8;

/// Read buffer per run and range in the parallel merge: the four ranges of a wave stay open
/// from round to round, so at most 64 runs x 4 ranges x 64 KiB = 16 MiB.
const RANGE_READ_BUFFER: usize = 64 << 10;

/// Pairs a range merge hands over at most per round (one bucket more may pass it): a
/// 256th of the budget (16 bytes a pair, four ranges a wave: a sixty-fourth of the budget in
/// flight), from 16,384 to 262,144 pairs (4 MiB), so a wave's pairs stay a few MiB whatever
/// the corpus (a corpus of copies makes a pair of nearly every record). Smaller rounds hand
/// over more often: at 65,536 pairs, stage 3-5 of 10M sentences took about a fifth longer.
pub(super) fn round_pairs(budget: u64) -> usize {
    (budget / 256).clamp(1 << 14, 1 << 18) as usize
}

/// The merge of partitions `parts` of every run (a k-way merge of those slices of the runs),
/// turned into pairs a round at a time.
struct RangeMerge {
    records: SortedRecords,
    ids: Vec<u64>,
    /// The round's pairs (the buffer kept from round to round).
    out: PartitionPairs,
    done: bool,
}

impl RangeMerge {
    fn open(runs: &[Run], parts: std::ops::Range<usize>) -> Result<RangeMerge, ShuffleError> {
        let sources = runs
            .iter()
            .map(|run| open_run(run, parts.clone(), RANGE_READ_BUFFER))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RangeMerge {
            records: SortedRecords {
                merger: Merger::new(sources)?,
                pending: None,
                bytes_spilled: 0,
                runs: 0,
                run_files: Vec::new(),
                _dir: None,
            },
            ids: Vec::new(),
            out: PartitionPairs::default(),
            done: false,
        })
    }

    /// Replaces `out` with the pairs of the next buckets, until `cap` pairs or the end of the
    /// range.
    fn next_pairs(&mut self, options: &ShuffleBuilder, cap: usize) -> Result<(), ShuffleError> {
        self.out.clear();
        // Room for the round and a bucket past it, so that the buffer does not double.
        self.out.pairs.reserve(cap + 1024);
        while !self.done && self.out.pairs.len() < cap {
            if self.records.next_group(&mut self.ids)?.is_some() {
                self.out.add_bucket(&mut self.ids, options);
            } else {
                self.done = true;
            }
        }
        Ok(())
    }
}

/// What some partitions of sorted records contribute (the parallel paths of
/// [`Shuffle::finish`]).
#[derive(Default)]
struct PartitionPairs {
    pairs: Vec<(u64, u64)>,
    buckets: u64,
    capped: u64,
    left_out: u64,
    records: u64,
}

impl PartitionPairs {
    /// Empties it, keeping the pairs' buffer.
    fn clear(&mut self) {
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.clear();
        *self = PartitionPairs {
            pairs,
            ..PartitionPairs::default()
        };
    }

    /// Adds one bucket (its ids ascending and distinct) and its pairs.
    fn add_bucket(&mut self, ids: &mut Vec<u64>, options: &ShuffleBuilder) {
        self.records += ids.len() as u64;
        self.buckets += 1;
        let pairs = &mut self.pairs;
        let Ok(left_out) = bucket_pairs(ids, options, |a, b| {
            pairs.push((a, b));
            Ok::<(), std::convert::Infallible>(())
        });
        self.capped += u64::from(left_out > 0);
        self.left_out += left_out;
    }
}

/// Adds the results of one parallel wave, in partition order: counts, pairs and progress.
fn add_wave<'a>(
    done: impl IntoIterator<Item = &'a PartitionPairs>,
    stats: &mut ShuffleStats,
    pairs: &mut RecordSorter,
    progress: &mut dyn FnMut(u64),
) -> Result<(), ShuffleError> {
    let mut records = 0;
    for d in done {
        stats.buckets += d.buckets;
        stats.buckets_capped += d.capped;
        stats.bucket_ids_left_out += d.left_out;
        pairs.push_slice(&d.pairs)?;
        records += d.records;
    }
    progress(records);
    Ok(())
}

/// The pairs of every bucket in one sorted, de-duplicated partition.
fn partition_pairs(part: &[(u64, u64)], options: &ShuffleBuilder) -> PartitionPairs {
    let mut out = PartitionPairs::default();
    let mut ids = Vec::new();
    for bucket in part.chunk_by(|a, b| a.0 == b.0) {
        ids.clear();
        ids.extend(bucket.iter().map(|&(_, id)| id));
        out.add_bucket(&mut ids, options);
    }
    out
}

/// Emits the pairs of one bucket (its ids ascending and distinct): a star over all of them, or
/// all pairs of its first `max_bucket` ids. Returns how many ids the cap left out (0 for a star,
/// which needs no cap: it is linear in the bucket).
fn bucket_pairs<E>(
    ids: &mut Vec<u64>,
    options: &ShuffleBuilder,
    mut emit: impl FnMut(u64, u64) -> Result<(), E>,
) -> Result<u64, E> {
    let mut left_out = 0;
    if options.pair_mode == PairMode::All && ids.len() > options.max_bucket {
        left_out = (ids.len() - options.max_bucket) as u64;
        ids.truncate(options.max_bucket);
    }
    match options.pair_mode {
        PairMode::Star => {
            if let Some((&first, rest)) = ids.split_first() {
                for &other in rest {
                    emit(first, other)?;
                }
            }
        }
        PairMode::All => {
            for (i, &a) in ids.iter().enumerate() {
                for &b in &ids[i + 1..] {
                    emit(a, b)?;
                }
            }
        }
    }
    Ok(left_out)
}

impl Source {
    fn held_bytes(&self) -> u64 {
        match self {
            Source::File(_) => 0,
            Source::Memory { records, .. } => records.len() as u64 * RECORD_BYTES,
        }
    }
}

/// The distinct candidate pairs `(a, b)`, `a < b`, ascending; returned by [`Shuffle::finish`].
#[derive(Debug)]
pub struct PairStream {
    pairs: SortedRecords,
    stats: ShuffleStats,
}

impl PairStream {
    /// The next pair, or `None` at the end.
    #[inline]
    pub fn next_pair(&mut self) -> Result<Option<(u64, u64)>, ShuffleError> {
        let pair = self.pairs.next_record()?;
        if pair.is_some() {
            self.stats.candidate_pairs += 1;
        }
        Ok(pair)
    }

    /// The counts so far (`candidate_pairs` is complete once the stream is exhausted).
    pub fn stats(&self) -> ShuffleStats {
        self.stats
    }

    /// The number of distinct pairs when they were all held in memory (nothing spilled), before
    /// any was read; `None` otherwise. A capacity hint for the clustering.
    pub fn len_hint(&self) -> Option<u64> {
        self.pairs.in_memory().map(|records| records.len() as u64)
    }

    /// Stage 5: unions every remaining pair and lists the clusters with at least `min_size`
    /// members (ids are smallest members, clusters ascending, members ascending), with the final
    /// counts.
    pub fn into_clusters(
        mut self,
        min_size: usize,
    ) -> Result<(Clusters, ShuffleStats), ShuffleError> {
        // Pairs share members, so about one new id per pair is a fair guess.
        let hint = self.len_hint().unwrap_or(0).min(1 << 26) as usize;
        let mut clustering = Clustering::with_capacity(hint);
        while let Some((a, b)) = self.next_pair()? {
            clustering.union(a, b)?;
        }
        Ok((clustering.clusters(min_size), self.stats))
    }
}

impl Iterator for PairStream {
    type Item = Result<(u64, u64), ShuffleError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_pair().transpose()
    }
}

impl FusedIterator for PairStream {}
