//! The candidate pairs between the candidate stage and the alignment: on disk, so that their
//! number is bounded by the disk rather than by memory.
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::ReuseError;

/// Bytes of one candidate on disk: two document numbers and the support.
const BYTES: usize = 12;

/// Writes candidate pairs, ascending, to a temporary file.
pub(crate) struct CandidateWriter {
    file: BufWriter<File>,
    dir: PathBuf,
    len: u64,
    last: Option<(u32, u32)>,
}

/// The candidate pairs `((a, b), support)` of a run, ascending, read back in batches.
pub(crate) struct CandidateList {
    file: BufReader<File>,
    dir: PathBuf,
    len: u64,
}

fn error(dir: &Path, e: io::Error) -> ReuseError {
    ReuseError::Candidates {
        dir: dir.to_path_buf(),
        source: e,
    }
}

impl CandidateWriter {
    /// A writer into a new temporary file under `dir` (default: the system's), deleted when
    /// closed.
    pub(crate) fn new(dir: Option<&Path>) -> Result<CandidateWriter, ReuseError> {
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let file = tempfile::tempfile_in(&dir).map_err(|e| error(&dir, e))?;
        Ok(CandidateWriter {
            file: BufWriter::with_capacity(1 << 20, file),
            dir,
            len: 0,
            last: None,
        })
    }

    /// Appends a pair; pairs come in ascending order, each once.
    pub(crate) fn push(&mut self, pair: (u32, u32), support: u32) -> Result<(), ReuseError> {
        debug_assert!(self.last < Some(pair), "candidates ascend");
        self.last = Some(pair);
        let mut record = [0u8; BYTES];
        record[..4].copy_from_slice(&pair.0.to_le_bytes());
        record[4..8].copy_from_slice(&pair.1.to_le_bytes());
        record[8..].copy_from_slice(&support.to_le_bytes());
        self.file
            .write_all(&record)
            .map_err(|e| error(&self.dir, e))?;
        self.len += 1;
        Ok(())
    }

    /// The list, read from its start.
    pub(crate) fn finish(self) -> Result<CandidateList, ReuseError> {
        let dir = self.dir;
        let mut file = self
            .file
            .into_inner()
            .map_err(|e| error(&dir, e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(|e| error(&dir, e))?;
        Ok(CandidateList {
            file: BufReader::with_capacity(1 << 20, file),
            dir,
            len: self.len,
        })
    }
}

impl CandidateList {
    /// The number of candidate pairs.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Replaces `batch` with the next (up to) `max` candidates; false at the end.
    pub(crate) fn next_batch(
        &mut self,
        batch: &mut Vec<((u32, u32), u32)>,
        max: usize,
    ) -> Result<bool, ReuseError> {
        batch.clear();
        let mut record = [0u8; BYTES];
        while batch.len() < max {
            match self.file.read_exact(&mut record) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(error(&self.dir, e)),
            }
            let word = |i: usize| u32::from_le_bytes(record[i..i + 4].try_into().expect("4"));
            batch.push(((word(0), word(4)), word(8)));
        }
        Ok(!batch.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_come_back_in_batches() {
        let mut w = CandidateWriter::new(None).unwrap();
        for i in 0..2500u32 {
            w.push((i / 7, i), i % 5 + 1).unwrap();
        }
        let mut list = w.finish().unwrap();
        assert_eq!(list.len(), 2500);
        let (mut batch, mut all) = (Vec::new(), Vec::new());
        while list.next_batch(&mut batch, 1024).unwrap() {
            assert!(batch.len() <= 1024);
            all.extend_from_slice(&batch);
        }
        assert_eq!(all.len(), 2500);
        assert_eq!(all[2499], ((2499 / 7, 2499), 2499 % 5 + 1));
    }
}
