//! An append-only array of fixed-size records that moves to a temporary file once its memory
//! share is spent (the indexes of the text store, SimHash's fingerprints and the edit filter's
//! pairs, under [`DedupBuilder::max_memory`]).
//!
//! [`DedupBuilder::max_memory`]: crate::DedupBuilder::max_memory
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::Error;

/// Records of `N` bytes, appended; read back by position with [`SpillArray::read`]. While the
/// records fit in `share` bytes they stay in memory; the push that would pass it writes them to
/// a temporary file under `dir`, and every later record goes there too (through a 64 KiB
/// buffer), so memory stays within `share` plus the buffer however many records come.
pub(crate) struct SpillArray<const N: usize> {
    mem: Vec<u8>,
    share: u64,
    dir: PathBuf,
    file: Option<(BufWriter<File>, tempfile::TempPath)>,
    len: u64,
}

/// The write buffer of a spilled array.
const SPILL_BUFFER: usize = 64 << 10;

impl<const N: usize> SpillArray<N> {
    /// An empty array that spills beyond `share` bytes into a file under `dir`.
    pub(crate) fn new(share: u64, dir: &Path) -> SpillArray<N> {
        SpillArray {
            mem: Vec::new(),
            share,
            dir: dir.to_path_buf(),
            file: None,
            len: 0,
        }
    }

    fn error(&self, what: &'static str, source: std::io::Error) -> Error {
        Error::TextStore {
            what,
            dir: self.dir.clone(),
            source,
        }
    }

    /// Records so far.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// True once the records have moved to disk.
    pub(crate) fn spilled(&self) -> bool {
        self.file.is_some()
    }

    /// Appends a record.
    pub(crate) fn push(&mut self, record: [u8; N]) -> Result<(), Error> {
        if self.file.is_none() && (self.mem.len() + N) as u64 > self.share {
            let tmp = tempfile::NamedTempFile::new_in(&self.dir)
                .map_err(|e| self.error("cannot create a spill file", e))?;
            let (file, path) = tmp.into_parts();
            let mut file = BufWriter::with_capacity(SPILL_BUFFER, file);
            file.write_all(&self.mem)
                .map_err(|e| self.error("cannot write a spill file", e))?;
            self.mem = Vec::new();
            self.file = Some((file, path));
        }
        match &mut self.file {
            Some((file, _)) => {
                if let Err(e) = file.write_all(&record) {
                    return Err(self.error("cannot write a spill file", e));
                }
            }
            None => self.mem.extend_from_slice(&record),
        }
        self.len += 1;
        Ok(())
    }

    /// The read side.
    pub(crate) fn into_reader(self) -> Result<SpillReader<N>, Error> {
        let dir = self.dir;
        let storage = match self.file {
            None => {
                let mut mem = self.mem;
                mem.shrink_to_fit();
                Storage::Memory(mem)
            }
            Some((file, path)) => {
                let file = file.into_inner().map_err(|e| Error::TextStore {
                    what: "cannot write a spill file",
                    dir: dir.clone(),
                    source: e.into_error(),
                })?;
                Storage::File { file, _path: path }
            }
        };
        Ok(SpillReader {
            storage,
            dir,
            len: self.len,
        })
    }
}

enum Storage {
    Memory(Vec<u8>),
    /// The file, and its path, which removes it when dropped.
    File {
        file: File,
        _path: tempfile::TempPath,
    },
}

/// The read side of a [`SpillArray`]; reads take `&self` (positioned reads), so workers share
/// it.
pub(crate) struct SpillReader<const N: usize> {
    storage: Storage,
    dir: PathBuf,
    len: u64,
}

impl<const N: usize> SpillReader<N> {
    /// Records in the array.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Records `start..end` into `buf` (resized to their bytes). Positions past the end are a
    /// bug of the caller.
    pub(crate) fn read(&self, start: u64, end: u64, buf: &mut Vec<u8>) -> Result<(), Error> {
        assert!(
            start <= end && end <= self.len,
            "records {start}..{end} of {}",
            self.len
        );
        let (from, to) = (start as usize * N, end as usize * N);
        buf.clear();
        match &self.storage {
            Storage::Memory(mem) => buf.extend_from_slice(&mem[from..to]),
            Storage::File { file, .. } => {
                buf.resize(to - from, 0);
                file.read_exact_at(buf, from as u64)
                    .map_err(|source| Error::TextStore {
                        what: "cannot read a spill file",
                        dir: self.dir.clone(),
                        source,
                    })?;
            }
        }
        Ok(())
    }

    /// Records `start..end`: borrowed when in memory, else read into `buf`. Positions past
    /// the end are a bug of the caller.
    pub(crate) fn slice<'a>(
        &'a self,
        start: u64,
        end: u64,
        buf: &'a mut Vec<u8>,
    ) -> Result<&'a [u8], Error> {
        match &self.storage {
            Storage::Memory(mem) => {
                assert!(
                    start <= end && end <= self.len,
                    "records {start}..{end} of {}",
                    self.len
                );
                Ok(&mem[start as usize * N..end as usize * N])
            }
            Storage::File { .. } => {
                self.read(start, end, buf)?;
                Ok(buf)
            }
        }
    }

    /// Record `i`.
    pub(crate) fn get(&self, i: u64) -> Result<[u8; N], Error> {
        let mut record = [0u8; N];
        match &self.storage {
            Storage::Memory(mem) => {
                let at = i as usize * N;
                record.copy_from_slice(&mem[at..at + N]);
            }
            Storage::File { .. } => {
                let mut buf = Vec::with_capacity(N);
                self.read(i, i + 1, &mut buf)?;
                record.copy_from_slice(&buf);
            }
        }
        Ok(record)
    }
}

/// Records of two `u64`s (little-endian) read back at a time by [`SpillReader::for_each_pair`].
const PAIRS_AT_ONCE: u64 = 4096;

impl SpillArray<16> {
    /// Appends a record of two `u64`s (SimHash's fingerprint and id, the edit filter's pair).
    pub(crate) fn push_pair(&mut self, a: u64, b: u64) -> Result<(), Error> {
        let mut r = [0u8; 16];
        r[..8].copy_from_slice(&a.to_le_bytes());
        r[8..].copy_from_slice(&b.to_le_bytes());
        self.push(r)
    }
}

impl SpillReader<16> {
    /// Calls `f` with every record [`SpillArray::push_pair`] wrote, in order (borrowed when in
    /// memory, else read 4,096 records at a time).
    pub(crate) fn for_each_pair(
        &self,
        mut f: impl FnMut(u64, u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut buf = Vec::new();
        for start in (0..self.len).step_by(PAIRS_AT_ONCE as usize) {
            let end = (start + PAIRS_AT_ONCE).min(self.len);
            for r in self.slice(start, end, &mut buf)?.chunks_exact(16) {
                let (a, b) = r.split_at(8);
                f(
                    u64::from_le_bytes(a.try_into().expect("8 bytes")),
                    u64::from_le_bytes(b.try_into().expect("8 bytes")),
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_in_memory_and_spilled() {
        let dir = std::env::temp_dir();
        for share in [0u64, 7, 8 * 10, 1 << 20] {
            let mut array = SpillArray::<8>::new(share, &dir);
            for i in 0..1000u64 {
                array.push(i.to_le_bytes()).unwrap();
            }
            assert_eq!(array.spilled(), share < 8000);
            let reader = array.into_reader().unwrap();
            assert_eq!(reader.len(), 1000);
            for i in [0u64, 1, 499, 999] {
                assert_eq!(reader.get(i).unwrap(), i.to_le_bytes());
            }
            let mut buf = Vec::new();
            reader.read(10, 13, &mut buf).unwrap();
            assert_eq!(buf.len(), 24);
            assert_eq!(buf[8..16], 11u64.to_le_bytes());
        }
    }
}
