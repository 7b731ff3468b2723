//! The external sort: `(u64, u64)` records partitioned in memory, spilled as sorted runs,
//! merged back in order.
use super::*;

/// One spilled run on disk.
#[derive(Debug)]
pub(super) struct Run {
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
    /// Whether a spill frees the buffer's allocations instead of keeping them for the next run.
    release: bool,
}

impl RecordSorter {
    /// A sorter for keys below `2^key_bits` (64 for any key).
    pub(super) fn with_budget(
        budget: u64,
        tmp_parent: Option<PathBuf>,
        key_bits: u32,
    ) -> RecordSorter {
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
            release: false,
        }
    }

    /// A sorter that frees its buffer's allocations at each spill. Keys that arrive in about
    /// ascending order (the passes of [`Components`](crate::Components)) fill a few partitions
    /// per run and other ones the next run, so allocations kept for the next run would add up,
    /// run after run, to many times the budget. Well-mixed keys (band keys) fill every
    /// partition alike and keep theirs.
    pub(super) fn releasing(mut self) -> RecordSorter {
        self.release = true;
        self
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
        if self.release {
            self.buf.release();
        } else {
            self.buf.clear();
        }
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
    pub(super) fn finish_inner(mut self, spill_tail: bool) -> Result<SortedRecords, ShuffleError> {
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
pub(super) fn write_run(
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

pub(super) fn open_runs(runs: &[Run]) -> Result<Vec<Source>, ShuffleError> {
    runs.iter()
        .map(|run| open_run(run, 0..PARTS, READ_BUFFER))
        .collect()
}

/// A source reading partitions `parts` of `run`.
pub(super) fn open_run(
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
pub(super) struct RunReader {
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
pub(super) enum Source {
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
pub(super) struct Merger {
    pub(super) sources: Vec<Source>,
    heap: BinaryHeap<Reverse<(u64, u64, usize)>>,
    last: Option<(u64, u64)>,
}

impl Merger {
    pub(super) fn new(mut sources: Vec<Source>) -> Result<Merger, ShuffleError> {
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
    pub(super) merger: Merger,
    pub(super) pending: Option<(u64, u64)>,
    pub(super) bytes_spilled: u64,
    pub(super) runs: u64,
    /// The run files the merge reads.
    pub(super) run_files: Vec<Run>,
    pub(super) _dir: Option<tempfile::TempDir>,
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
    pub(super) fn all_spilled(&self) -> Option<&[Run]> {
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
    pub(super) fn in_memory(&self) -> Option<&Partitioned> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys pushed in ascending order fill a few partitions per run; a releasing sorter's
    /// allocations stay near the budget however many runs are written.
    #[test]
    fn ascending_keys_keep_a_releasing_buffer_near_its_budget() {
        let dir = tempfile::tempdir().unwrap();
        let mut sorter =
            RecordSorter::with_budget(64 << 10, Some(dir.path().into()), 40).releasing();
        for key in 0..200_000u64 {
            sorter.push(key << 20, key).unwrap();
            assert!(
                sorter.buf.capacity() <= sorter.cap * 2,
                "{}",
                sorter.buf.capacity()
            );
        }
        assert!(sorter.runs() > 40);
        let merged: Vec<(u64, u64)> = sorter.finish().unwrap().map(Result::unwrap).collect();
        assert_eq!(merged.len(), 200_000);
        assert!(merged.windows(2).all(|w| w[0] < w[1]));
    }
}
