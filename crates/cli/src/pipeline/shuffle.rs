//! Stages 3-5 of the dedup pipeline: the shuffle (group band-key records by key under a memory
//! budget), buckets -> candidate pairs, and pairs -> clusters.
//!
//! A record is `(key, id)`: a MinHash band key and a sentence id packed as `doc << 32 | idx`.
//! Two sentences are candidates when they share a band key, so the shuffle groups records by key
//! (a *bucket* is the sorted, de-duplicated ids of one key), every bucket becomes pairs, and the
//! pairs become clusters through `textreuse-unionfind`.
//!
//! ```
//! use textreuse_cli::pipeline::shuffle::ShuffleBuilder;
//!
//! let mut shuffle = ShuffleBuilder::new().mem_budget(1 << 20).max_bucket(100).build()?;
//! // (band key, sentence id): sentences 1, 2 and 3 share keys, 4 is alone.
//! for (key, id) in [(0xaa, 2), (0xbb, 4), (0xaa, 1), (0xcc, 3), (0xcc, 2)] {
//!     shuffle.push(key, id)?;
//! }
//! let (clusters, stats) = shuffle.finish()?.into_clusters(2)?;
//! assert_eq!(clusters.len(), 1);
//! assert_eq!(clusters.get(0).unwrap().members(), &[1, 2, 3]);
//! assert_eq!((stats.records, stats.buckets, stats.candidate_pairs), (5, 3, 2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`RecordSorter`] is an external sort of `(u64, u64)` records under a memory budget: records
//!   go into an in-memory buffer of at most `budget / 16` records, *partitioned* on arrival into
//!   256 partitions by a byte of the key (the top byte for band keys, which are well-mixed
//!   hashes; the byte below the largest id for pair keys, which are sentence ids). When the
//!   buffer is full its partitions are sorted in parallel on rayon (a radix sort per partition,
//!   see `shuffle/radix.rs`) and written, in partition order, to a temporary directory as a *run*
//!   (raw little-endian `key, id` pairs, 16 bytes a record, written through a 1 MiB buffer).
//!   [`RecordSorter::finish`] returns [`SortedRecords`], a k-way merge (binary heap) of the runs
//!   and the in-memory tail that yields records in `(key, id)` order without duplicates. More
//!   than 64 runs are first merged 64 at a time, so open files and read buffers stay bounded.
//! * Partitions are key ranges, so every run is range-partitioned by key: that is the layout a
//!   distributed shuffle would exchange. When nothing was spilled, [`Shuffle::finish`] turns the
//!   partitions into pairs in parallel (their keys are disjoint); after a spill each run knows
//!   where its partitions start, so ranges of 8 partitions are k-way merged in parallel, each
//!   from its own slices of the runs (128 KiB read buffer per run and range).
//! * [`Shuffle`] composes the stages: [`Shuffle::push`] feeds band-key records to one sorter;
//!   [`Shuffle::finish`] merges them into buckets, turns each bucket into pairs
//!   ([`PairMode`]), caps buckets larger than `max_bucket` to their first `max_bucket` ids, and
//!   feeds the pairs to a second sorter, which de-duplicates them (a pair shared by several bands
//!   is reported once). The result, [`PairStream`], yields the distinct candidate pairs `(a, b)`,
//!   `a < b`, in ascending order; [`PairStream::into_clusters`] unions them into clusters.
//!
//! # Star pairs or all pairs
//!
//! By default ([`PairMode::Star`]) a bucket `m0 < m1 < ... < mk` emits the `k` pairs `(m0, mi)`:
//! a spanning star. For clustering that is sufficient, because the connected components of the
//! stars are exactly the components of the complete graphs on the buckets, and it is linear in
//! the bucket size. [`PairMode::All`] emits all `k (k + 1) / 2` pairs; it is needed only when a
//! caller wants the exact list of sentence pairs that share a band (for instance to check each
//! pair's edit distance individually); with the bucket cap the cost per bucket stays at most
//! `max_bucket^2 / 2` pairs.
//!
//! # Determinism
//!
//! Everything downstream of [`Shuffle::push`] depends only on the multiset of records: runs are
//! sorted by the total order on `(key, id)`, the merge yields that order however the records were
//! split into runs, the cap keeps the smallest ids, and cluster ids are smallest members. So the
//! pairs, clusters and counts are identical for every memory budget and thread count (only
//! `runs` and `bytes_spilled` in [`ShuffleStats`] depend on the budget).
//!
//! # Performance
//!
//! Memory: the record buffer is at most the budget; the merge adds 256 KiB of read buffer per run
//! (at most 64 runs at once; 128 KiB per run and range in the parallel merge) and the pairs of
//! the 32 partitions being turned into pairs at a time; the pair sorter gets whatever part of the
//! budget the records do not hold, but at least a sixteenth of the budget (so when the records
//! stayed in memory and fill the budget, the peak can reach 17/16 of it). Disk: every record is
//! written once when the budget is exceeded (16 bytes a record, plus a second pass only beyond 64
//! runs). Measured numbers are in `docs/benchmarks.md` under
//! "shuffle and unionfind" (`textreuse shuffle-bench`).
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::iter::FusedIterator;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use textreuse_unionfind::{Clustering, Clusters, UnionFindError};

use radix::{PARTS, Partitioned};

/// Bytes per record in memory and on disk (`key` and `id`, two little-endian `u64`s).
pub const RECORD_BYTES: u64 = 16;

/// The smallest accepted memory budget (1 KiB: tiny budgets are for tests that force spilling).
pub const MIN_MEM_BUDGET: u64 = 1 << 10;

/// The default memory budget (2 GiB).
pub const DEFAULT_MEM_BUDGET: u64 = 2 << 30;

/// The default bucket cap (the research's: the first 100 ids of a larger bucket).
pub const DEFAULT_MAX_BUCKET: usize = 100;

/// The most runs merged at once; more runs are merged in passes first.
const MAX_FAN_IN: usize = 64;

/// Read buffer per run during the merge.
const READ_BUFFER: usize = 256 << 10;

/// The pair sorter's budget is at least `budget / PAIR_BUDGET_FLOOR`, even when the records
/// held in memory leave less.
const PAIR_BUDGET_FLOOR: u64 = 16;

/// Records per write block when spilling.
const WRITE_BLOCK_RECORDS: usize = 1 << 16;

/// The error type of the shuffle stages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ShuffleError {
    /// The memory budget is below [`MIN_MEM_BUDGET`]. Recover by passing a larger budget.
    #[error("memory budget of {budget} bytes is too small (the minimum is {min} bytes)")]
    BudgetTooSmall {
        /// The budget that was given.
        budget: u64,
        /// The minimum, [`MIN_MEM_BUDGET`].
        min: u64,
    },
    /// The bucket cap must be at least 2 (a smaller cap would emit no pairs at all). Recover by
    /// passing a larger cap, or `usize::MAX` for none.
    #[error("bucket cap must be at least 2, got {max_bucket}")]
    InvalidMaxBucket {
        /// The cap that was given.
        max_bucket: usize,
    },
    /// The temporary directory for spilled runs could not be created. Recover by pointing the
    /// spill directory (`--tmp`) at a writable file system.
    #[error("cannot create a spill directory in {}", path.display())]
    TempDir {
        /// The parent directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Writing or reading a spilled run failed (disk full, file removed). Recover by freeing disk
    /// space (about 16 bytes per record) or choosing another spill directory.
    #[error("I/O error on spill file {}", path.display())]
    Spill {
        /// The run file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A spilled run ended in the middle of a record (it was truncated by someone else). Recover
    /// by running again with a private spill directory.
    #[error("spill file {} is truncated", path.display())]
    Truncated {
        /// The run file.
        path: PathBuf,
    },
    /// The clustering stage saw more distinct ids than union-find supports.
    #[error(transparent)]
    UnionFind(#[from] UnionFindError),
}

/// Counts reported by the shuffle stages (the `stats.json` numbers of stages 3-5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ShuffleStats {
    /// Band-key records pushed.
    pub records: u64,
    /// Distinct keys (buckets), singletons included.
    pub buckets: u64,
    /// Buckets larger than the cap, which contributed only their first `max_bucket` ids.
    pub buckets_capped: u64,
    /// Pairs emitted by the buckets before de-duplication.
    pub pairs_emitted: u64,
    /// Distinct candidate pairs (complete once the [`PairStream`] is exhausted).
    pub candidate_pairs: u64,
    /// Bytes written to spill files by both sorters.
    pub bytes_spilled: u64,
    /// Runs written by both sorters (intermediate merge passes included).
    pub runs: u64,
}

/// The options of [`RecordSorter`] and [`Shuffle`].
///
/// ```
/// use textreuse_cli::pipeline::shuffle::{PairMode, ShuffleBuilder, parse_size};
///
/// let shuffle = ShuffleBuilder::new()
///     .mem_budget(parse_size("64MB")?)
///     .max_bucket(100)
///     .pair_mode(PairMode::Star)
///     .tmp_dir(std::env::temp_dir())
///     .build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ShuffleBuilder {
    mem_budget: u64,
    tmp_dir: Option<PathBuf>,
    max_bucket: usize,
    pair_mode: PairMode,
}

impl Default for ShuffleBuilder {
    fn default() -> Self {
        ShuffleBuilder::new()
    }
}

impl ShuffleBuilder {
    /// The defaults: a [`DEFAULT_MEM_BUDGET`] budget, the system temporary directory, a cap of
    /// [`DEFAULT_MAX_BUCKET`] and star pairs.
    pub fn new() -> ShuffleBuilder {
        ShuffleBuilder {
            mem_budget: DEFAULT_MEM_BUDGET,
            tmp_dir: None,
            max_bucket: DEFAULT_MAX_BUCKET,
            pair_mode: PairMode::Star,
        }
    }

    /// The memory budget in bytes for buffered records (at least [`MIN_MEM_BUDGET`]).
    pub fn mem_budget(&mut self, bytes: u64) -> &mut Self {
        self.mem_budget = bytes;
        self
    }

    /// The directory under which a private spill directory is created (default: the system
    /// temporary directory). Nothing is created unless the budget is exceeded.
    pub fn tmp_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.tmp_dir = Some(dir.into());
        self
    }

    /// A bucket with more ids contributes only its `n` smallest (at least 2; `usize::MAX` for no
    /// cap).
    pub fn max_bucket(&mut self, n: usize) -> &mut Self {
        self.max_bucket = n;
        self
    }

    /// Star or all pairs per bucket (see the module docs).
    pub fn pair_mode(&mut self, mode: PairMode) -> &mut Self {
        self.pair_mode = mode;
        self
    }

    /// A record sorter with this budget and spill directory.
    pub fn build_sorter(&self) -> Result<RecordSorter, ShuffleError> {
        if self.mem_budget < MIN_MEM_BUDGET {
            return Err(ShuffleError::BudgetTooSmall {
                budget: self.mem_budget,
                min: MIN_MEM_BUDGET,
            });
        }
        Ok(RecordSorter::with_budget(
            self.mem_budget,
            self.tmp_dir.clone(),
            u64::BITS,
        ))
    }

    /// The shuffle (stages 3-5).
    pub fn build(&self) -> Result<Shuffle, ShuffleError> {
        if self.max_bucket < 2 {
            return Err(ShuffleError::InvalidMaxBucket {
                max_bucket: self.max_bucket,
            });
        }
        Ok(Shuffle {
            records: self.build_sorter()?,
            max_id: 0,
            options: self.clone(),
        })
    }
}

/// How a bucket becomes pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PairMode {
    /// `(smallest id, other)` for every other id: linear, sufficient for clustering.
    #[default]
    Star,
    /// Every pair of ids in the bucket: the exact pair list, quadratic in the bucket size.
    All,
}

/// One spilled run on disk.
#[derive(Debug)]
struct Run {
    path: PathBuf,
    /// `bounds[p]`: the index of the first record whose partition byte is at least `p` (257
    /// entries): partition `p` is records `bounds[p]..bounds[p + 1]`.
    bounds: Vec<u64>,
}

/// An external sort of `(u64, u64)` records under a memory budget (see the module docs).
#[derive(Debug)]
pub struct RecordSorter {
    buf: Partitioned,
    /// The partition byte of a key is `key >> shift` (the buffer's, kept for the runs).
    shift: u32,
    cap: usize,
    tmp_parent: Option<PathBuf>,
    dir: Option<tempfile::TempDir>,
    runs: Vec<Run>,
    pushed: u64,
    bytes_spilled: u64,
    runs_written: u64,
}

impl RecordSorter {
    /// A sorter for keys below `2^key_bits` (64 for any key).
    fn with_budget(budget: u64, tmp_parent: Option<PathBuf>, key_bits: u32) -> RecordSorter {
        let cap = (budget / RECORD_BYTES).clamp(1, usize::MAX as u64) as usize;
        let buf = Partitioned::new(key_bits);
        RecordSorter {
            shift: buf.shift(),
            // The partitions grow as records come: a small input never touches the budget.
            buf,
            cap,
            tmp_parent,
            dir: None,
            runs: Vec::new(),
            pushed: 0,
            bytes_spilled: 0,
            runs_written: 0,
        }
    }

    /// Adds one record, spilling a sorted run first if the buffer is full.
    #[inline]
    pub fn push(&mut self, key: u64, id: u64) -> Result<(), ShuffleError> {
        if self.buf.len() >= self.cap {
            self.spill()?;
        }
        self.buf.push((key, id));
        self.pushed += 1;
        Ok(())
    }

    /// Adds many records.
    pub fn push_slice(&mut self, records: &[(u64, u64)]) -> Result<(), ShuffleError> {
        let mut rest = records;
        while !rest.is_empty() {
            if self.buf.len() >= self.cap {
                self.spill()?;
            }
            let n = rest.len().min(self.cap - self.buf.len());
            for &record in &rest[..n] {
                self.buf.push(record);
            }
            rest = &rest[n..];
            self.pushed += n as u64;
        }
        Ok(())
    }

    /// Records pushed so far.
    pub fn len(&self) -> u64 {
        self.pushed
    }

    /// Whether no record was pushed.
    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Bytes written to spill files so far.
    pub fn bytes_spilled(&self) -> u64 {
        self.bytes_spilled
    }

    /// Runs written so far.
    pub fn runs(&self) -> u64 {
        self.runs_written
    }

    /// Sorts the buffer and writes it as a run.
    fn spill(&mut self) -> Result<(), ShuffleError> {
        self.buf.sort_dedup();
        let path = self.next_run_path()?;
        let (bytes, bounds) = write_run(&path, self.buf.iter().map(Ok), self.shift)?;
        self.buf.clear();
        self.bytes_spilled += bytes;
        self.runs_written += 1;
        self.runs.push(Run { path, bounds });
        Ok(())
    }

    fn next_run_path(&mut self) -> Result<PathBuf, ShuffleError> {
        if self.dir.is_none() {
            let parent = self.tmp_parent.clone().unwrap_or_else(std::env::temp_dir);
            let dir = tempfile::Builder::new()
                .prefix("textreuse-shuffle-")
                .tempdir_in(&parent)
                .map_err(|source| ShuffleError::TempDir {
                    path: parent,
                    source,
                })?;
            self.dir = Some(dir);
        }
        let dir = self.dir.as_ref().map(|d| d.path()).unwrap_or(Path::new(""));
        Ok(dir.join(format!("run-{:06}.bin", self.runs_written)))
    }

    /// Sorts what is buffered and returns the merged, de-duplicated record stream.
    ///
    /// With `spill_tail`, a sorter that already spilled also writes its buffer out and frees it,
    /// so the merge holds only read buffers (used by [`Shuffle`] to give the pair sorter the
    /// whole budget).
    fn finish_inner(mut self, spill_tail: bool) -> Result<SortedRecords, ShuffleError> {
        if spill_tail && !self.runs.is_empty() && !self.buf.is_empty() {
            self.spill()?;
        }
        if self.buf.is_empty() {
            // Free the (possibly budget-sized) allocations before the merge.
            self.buf = Partitioned::new(64);
        }
        // Merge passes until at most MAX_FAN_IN sources remain.
        let tail = usize::from(!self.buf.is_empty());
        while self.runs.len() + tail > MAX_FAN_IN {
            let batch: Vec<Run> = self.runs.drain(..MAX_FAN_IN).collect();
            let mut merger = Merger::new(open_runs(&batch)?)?;
            let path = self.next_run_path()?;
            let records = std::iter::from_fn(|| merger.next().transpose());
            let (bytes, bounds) = write_run(&path, records, self.shift)?;
            self.bytes_spilled += bytes;
            self.runs_written += 1;
            for run in &batch {
                // Best effort: the directory is removed at the end anyway.
                let _ = std::fs::remove_file(&run.path);
            }
            self.runs.push(Run { path, bounds });
        }
        let mut sources = open_runs(&self.runs)?;
        if !self.buf.is_empty() {
            self.buf.sort_dedup();
            sources.push(Source::Memory {
                records: std::mem::replace(&mut self.buf, Partitioned::new(64)),
                part: 0,
                pos: 0,
            });
        }
        Ok(SortedRecords {
            merger: Merger::new(sources)?,
            pending: None,
            bytes_spilled: self.bytes_spilled,
            runs: self.runs_written,
            run_files: self.runs,
            _dir: self.dir,
        })
    }

    /// Sorts what is buffered and returns the merged record stream: every distinct record once,
    /// in `(key, id)` order.
    pub fn finish(self) -> Result<SortedRecords, ShuffleError> {
        self.finish_inner(false)
    }
}

/// Writes sorted records to a new run file; returns the bytes written and the partition bounds
/// (see [`Run`]) for partition bytes `key >> shift`.
fn write_run(
    path: &Path,
    records: impl Iterator<Item = Result<(u64, u64), ShuffleError>>,
    shift: u32,
) -> Result<(u64, Vec<u64>), ShuffleError> {
    let err = |source| ShuffleError::Spill {
        path: path.to_path_buf(),
        source,
    };
    let mut file = File::create(path).map_err(err)?;
    let mut block = Vec::with_capacity(WRITE_BLOCK_RECORDS * RECORD_BYTES as usize);
    let mut bytes = 0u64;
    let mut bounds = Vec::with_capacity(PARTS + 1);
    let mut count = 0u64;
    for record in records {
        let (key, id) = record?;
        // Sorted keys: partition bytes never decrease.
        let part = (key >> shift) as usize;
        while bounds.len() <= part {
            bounds.push(count);
        }
        count += 1;
        block.extend_from_slice(&key.to_le_bytes());
        block.extend_from_slice(&id.to_le_bytes());
        if block.len() == block.capacity() {
            file.write_all(&block).map_err(err)?;
            bytes += block.len() as u64;
            block.clear();
        }
    }
    file.write_all(&block).map_err(err)?;
    bytes += block.len() as u64;
    file.flush().map_err(err)?;
    bounds.resize(PARTS + 1, count);
    Ok((bytes, bounds))
}

fn open_runs(runs: &[Run]) -> Result<Vec<Source>, ShuffleError> {
    runs.iter()
        .map(|run| open_run(run, 0..PARTS, READ_BUFFER))
        .collect()
}

/// A source reading partitions `parts` of `run`.
fn open_run(
    run: &Run,
    parts: std::ops::Range<usize>,
    buffer: usize,
) -> Result<Source, ShuffleError> {
    let err = |source| ShuffleError::Spill {
        path: run.path.clone(),
        source,
    };
    let mut file = File::open(&run.path).map_err(err)?;
    let (start, end) = (run.bounds[parts.start], run.bounds[parts.end]);
    if start > 0 {
        file.seek(io::SeekFrom::Start(start * RECORD_BYTES))
            .map_err(err)?;
    }
    Ok(Source::File(RunReader {
        file,
        path: run.path.clone(),
        buf: vec![0; buffer],
        pos: 0,
        len: 0,
        remaining: (end - start) * RECORD_BYTES,
    }))
}

/// A buffered reader of one run file.
#[derive(Debug)]
struct RunReader {
    file: File,
    path: PathBuf,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    /// Bytes of the run still to read (the reader may cover a range of partitions).
    remaining: u64,
}

impl RunReader {
    #[inline]
    fn next(&mut self) -> Result<Option<(u64, u64)>, ShuffleError> {
        if self.pos == self.len && !self.refill()? {
            return Ok(None);
        }
        let r = &self.buf[self.pos..self.pos + RECORD_BYTES as usize];
        self.pos += RECORD_BYTES as usize;
        let key = u64::from_le_bytes(r[..8].try_into().expect("8 bytes"));
        let id = u64::from_le_bytes(r[8..].try_into().expect("8 bytes"));
        Ok(Some((key, id)))
    }

    /// Fills the buffer; returns false at the end of the file.
    fn refill(&mut self) -> Result<bool, ShuffleError> {
        let mut len = 0;
        let want = self
            .buf
            .len()
            .min(self.remaining.try_into().unwrap_or(usize::MAX));
        while len < want {
            match self.file.read(&mut self.buf[len..want]) {
                Ok(0) => break,
                Ok(n) => len += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(ShuffleError::Spill {
                        path: self.path.clone(),
                        source,
                    });
                }
            }
        }
        if len % RECORD_BYTES as usize != 0 || (len < want) {
            return Err(ShuffleError::Truncated {
                path: self.path.clone(),
            });
        }
        self.remaining -= len as u64;
        self.pos = 0;
        self.len = len;
        Ok(len > 0)
    }
}

/// A sorted source of the merge.
#[derive(Debug)]
enum Source {
    File(RunReader),
    Memory {
        records: Partitioned,
        part: usize,
        pos: usize,
    },
}

impl Source {
    #[inline]
    fn next(&mut self) -> Result<Option<(u64, u64)>, ShuffleError> {
        match self {
            Source::File(reader) => reader.next(),
            Source::Memory { records, part, pos } => Ok(records.get(part, pos)),
        }
    }
}

/// A k-way merge of sorted sources through a binary heap, dropping duplicate records.
#[derive(Debug)]
struct Merger {
    sources: Vec<Source>,
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    last: Option<(u64, u64)>,
}

impl Merger {
    fn new(mut sources: Vec<Source>) -> Result<Merger, ShuffleError> {
        let mut heap = BinaryHeap::with_capacity(sources.len());
        for (i, source) in sources.iter_mut().enumerate() {
            if let Some((k, v)) = source.next()? {
                heap.push(Reverse((k, v, i)));
            }
        }
        Ok(Merger {
            sources,
            heap,
            last: None,
        })
    }

    #[inline]
    fn next(&mut self) -> Result<Option<(u64, u64)>, ShuffleError> {
        loop {
            let Some(mut top) = self.heap.peek_mut() else {
                return Ok(None);
            };
            let Reverse((k, v, s)) = *top;
            match self.sources[s].next()? {
                Some((k2, v2)) => *top = Reverse((k2, v2, s)),
                None => {
                    PeekMut::pop(top);
                }
            }
            if self.last != Some((k, v)) {
                self.last = Some((k, v));
                return Ok(Some((k, v)));
            }
        }
    }
}

/// The output of [`RecordSorter::finish`]: distinct records in `(key, id)` order.
///
/// Read it record by record ([`SortedRecords::next_record`], or as an iterator) or group by
/// group ([`SortedRecords::next_group`]). The spill files are deleted when it is dropped.
#[derive(Debug)]
pub struct SortedRecords {
    merger: Merger,
    pending: Option<(u64, u64)>,
    bytes_spilled: u64,
    runs: u64,
    /// The run files the merge reads.
    run_files: Vec<Run>,
    _dir: Option<tempfile::TempDir>,
}

impl SortedRecords {
    /// The next record, or `None` at the end.
    #[inline]
    pub fn next_record(&mut self) -> Result<Option<(u64, u64)>, ShuffleError> {
        match self.pending.take() {
            Some(r) => Ok(Some(r)),
            None => self.merger.next(),
        }
    }

    /// The next group: returns its key and replaces `ids` with its ids (ascending, distinct),
    /// or returns `None` at the end. Reusing `ids` avoids an allocation per group.
    pub fn next_group(&mut self, ids: &mut Vec<u64>) -> Result<Option<u64>, ShuffleError> {
        ids.clear();
        let Some((key, id)) = self.next_record()? else {
            return Ok(None);
        };
        ids.push(id);
        while let Some((k, v)) = self.merger.next()? {
            if k != key {
                self.pending = Some((k, v));
                break;
            }
            ids.push(v);
        }
        Ok(Some(key))
    }

    /// Bytes the sorter wrote to spill files.
    pub fn bytes_spilled(&self) -> u64 {
        self.bytes_spilled
    }

    /// The run files when every record was spilled (no in-memory tail) and none was read yet,
    /// for callers that merge ranges of partitions in parallel.
    fn all_spilled(&self) -> Option<&[Run]> {
        let untouched = self.pending.is_none() && self.merger.last.is_none();
        let files = self
            .merger
            .sources
            .iter()
            .all(|s| matches!(s, Source::File(_)));
        (untouched && files && !self.run_files.is_empty()).then_some(&self.run_files[..])
    }

    /// The sorted records when nothing was spilled and none was read yet: the one in-memory
    /// buffer, for callers that walk its partitions in parallel.
    fn in_memory(&self) -> Option<&Partitioned> {
        match self.merger.sources.as_slice() {
            [Source::Memory { records, .. }]
                if self.pending.is_none() && self.merger.last.is_none() =>
            {
                Some(records)
            }
            _ => None,
        }
    }

    /// Runs the sorter wrote.
    pub fn runs(&self) -> u64 {
        self.runs
    }
}

impl Iterator for SortedRecords {
    type Item = Result<(u64, u64), ShuffleError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Stages 3-5: band-key records in, candidate pairs and clusters out (see the module docs).
#[derive(Debug)]
pub struct Shuffle {
    records: RecordSorter,
    /// The largest id pushed: pair keys are ids, so the pair sorter partitions below its bits.
    max_id: u64,
    options: ShuffleBuilder,
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
                add_wave(done, &mut stats, &mut pairs, progress)?;
            }
        } else if let Some(runs) = buckets.all_spilled() {
            // Every run is sorted and partitioned the same way, so ranges of partitions merge
            // independently: in parallel, a few ranges at a time, pushed in range order.
            let ranges: Vec<std::ops::Range<usize>> = (0..PARTS)
                .step_by(MERGE_RANGE)
                .map(|p| p..(p + MERGE_RANGE).min(PARTS))
                .collect();
            for wave in ranges.chunks(PARTITIONS_IN_FLIGHT / MERGE_RANGE) {
                let done: Vec<PartitionPairs> = wave
                    .par_iter()
                    .map(|parts| merge_range(runs, parts.clone(), &options))
                    .collect::<Result<_, _>>()?;
                add_wave(done, &mut stats, &mut pairs, progress)?;
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
                let capped = bucket_pairs(&mut ids, &options, |a, b| pairs.push(a, b))?;
                stats.buckets_capped += u64::from(capped);
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

/// Read buffer per run and range in the parallel merge (two tasks at a time on two cores).
const RANGE_READ_BUFFER: usize = 128 << 10;

/// The pairs of partitions `parts` of every run: a k-way merge of those slices of the runs.
fn merge_range(
    runs: &[Run],
    parts: std::ops::Range<usize>,
    options: &ShuffleBuilder,
) -> Result<PartitionPairs, ShuffleError> {
    let sources = runs
        .iter()
        .map(|run| open_run(run, parts.clone(), RANGE_READ_BUFFER))
        .collect::<Result<Vec<_>, _>>()?;
    let mut records = SortedRecords {
        merger: Merger::new(sources)?,
        pending: None,
        bytes_spilled: 0,
        runs: 0,
        run_files: Vec::new(),
        _dir: None,
    };
    let mut out = PartitionPairs::default();
    let mut ids = Vec::new();
    while records.next_group(&mut ids)?.is_some() {
        out.add_bucket(&mut ids, options);
    }
    Ok(out)
}

/// What some partitions of sorted records contribute (the parallel paths of
/// [`Shuffle::finish`]).
#[derive(Default)]
struct PartitionPairs {
    pairs: Vec<(u64, u64)>,
    buckets: u64,
    capped: u64,
    records: u64,
}

impl PartitionPairs {
    /// Adds one bucket (its ids ascending and distinct) and its pairs.
    fn add_bucket(&mut self, ids: &mut Vec<u64>, options: &ShuffleBuilder) {
        self.records += ids.len() as u64;
        self.buckets += 1;
        let pairs = &mut self.pairs;
        let capped = bucket_pairs(ids, options, |a, b| {
            pairs.push((a, b));
            Ok::<(), std::convert::Infallible>(())
        });
        self.capped += u64::from(matches!(capped, Ok(true)));
    }
}

/// Adds the results of one parallel wave, in partition order: counts, pairs and progress.
fn add_wave(
    done: Vec<PartitionPairs>,
    stats: &mut ShuffleStats,
    pairs: &mut RecordSorter,
    progress: &mut dyn FnMut(u64),
) -> Result<(), ShuffleError> {
    let mut records = 0;
    for d in done {
        stats.buckets += d.buckets;
        stats.buckets_capped += d.capped;
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

/// Emits the pairs of one bucket (its ids ascending and distinct): caps it to `max_bucket` ids,
/// then a star or all pairs. Returns whether the bucket was capped.
fn bucket_pairs<E>(
    ids: &mut Vec<u64>,
    options: &ShuffleBuilder,
    mut emit: impl FnMut(u64, u64) -> Result<(), E>,
) -> Result<bool, E> {
    let capped = ids.len() > options.max_bucket;
    ids.truncate(options.max_bucket);
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
    Ok(capped)
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

/// The error of [`parse_size`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SizeError {
    /// The text is empty. Recover by giving a size such as `64MB`.
    #[error("empty size (expected a number and a unit, such as 64MB or 4GiB)")]
    Empty,
    /// The number part is not a non-negative decimal number. Recover by fixing the number.
    #[error("invalid number {number:?} in size {text:?} (expected digits, such as 64MB or 1.5GB)")]
    InvalidNumber {
        /// The whole text.
        text: String,
        /// The number part.
        number: String,
    },
    /// The unit is not one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (or K, M, G, T).
    #[error("unknown unit {unit:?} in size {text:?} (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)")]
    UnknownUnit {
        /// The whole text.
        text: String,
        /// The unit part.
        unit: String,
    },
    /// The size does not fit in 64 bits. Recover by giving a smaller size.
    #[error("size {text:?} is too large")]
    Overflow {
        /// The whole text.
        text: String,
    },
}

/// Parses a byte size such as `64MB`, `4GB`, `512KiB`, `1.5GiB` or `1000000`.
///
/// Units are case-insensitive: `KB`, `MB`, `GB`, `TB` are powers of 1000, `KiB`, `MiB`, `GiB`,
/// `TiB` powers of 1024, `K`, `M`, `G`, `T` are the same as `KB`..`TB`, and no unit (or `B`)
/// means bytes. A space between number and unit is allowed; a fraction is rounded down to whole
/// bytes.
///
/// ```
/// use textreuse_cli::pipeline::shuffle::parse_size;
///
/// assert_eq!(parse_size("64MB")?, 64_000_000);
/// assert_eq!(parse_size("512KiB")?, 512 * 1024);
/// assert_eq!(parse_size("1.5 GiB")?, 3 << 29);
/// assert!(parse_size("4 parsecs").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let s = text.trim();
    if s.is_empty() {
        return Err(SizeError::Empty);
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = (&s[..split], s[split..].trim_start());
    let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "t" | "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => {
            return Err(SizeError::UnknownUnit {
                text: text.to_string(),
                unit: unit.to_string(),
            });
        }
    };
    let invalid = || SizeError::InvalidNumber {
        text: text.to_string(),
        number: number.to_string(),
    };
    let overflow = || SizeError::Overflow {
        text: text.to_string(),
    };
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && frac.is_empty()) || frac.contains('.') {
        return Err(invalid());
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| overflow())?
    };
    let mut bytes = whole.checked_mul(multiplier).ok_or_else(overflow)?;
    // The fraction, exactly: digits / 10^len * multiplier, rounded down. Only the first 18
    // digits matter (multiplier < 10^13).
    let frac = &frac[..frac.len().min(18)];
    if !frac.is_empty() {
        let digits: u128 = frac.parse().map_err(|_| invalid())?;
        let scale = 10u128.pow(frac.len() as u32);
        let part = digits * multiplier as u128 / scale;
        bytes = bytes.checked_add(part as u64).ok_or_else(overflow)?;
    }
    Ok(bytes)
}

mod radix;
#[cfg(test)]
mod tests;
