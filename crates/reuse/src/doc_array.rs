//! Arrays of one fixed-size entry per document, in memory while they fit their share of a
//! memory bound ([`MemoryPlan::doc_arrays`](crate::MemoryPlan::doc_arrays)) and in a
//! temporary file past it, read back by positioned reads.
use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::Path;

/// An entry of a [`DocArray`]: a fixed number of bytes, all zero for the default value.
pub(crate) trait Entry: Copy + Default {
    /// Bytes of one entry on disk.
    const BYTES: usize;
    /// Writes the entry into `out` (`BYTES` long).
    fn put(self, out: &mut [u8]);
    /// The entry `put` wrote into `bytes` (`BYTES` long).
    fn take(bytes: &[u8]) -> Self;
}

impl Entry for u32 {
    const BYTES: usize = 4;
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn take(bytes: &[u8]) -> Self {
        u32::from_le_bytes(bytes.try_into().expect("4 bytes"))
    }
}

impl Entry for u64 {
    const BYTES: usize = 8;
    fn put(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    fn take(bytes: &[u8]) -> Self {
        u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
    }
}

impl<A: Entry, B: Entry> Entry for (A, B) {
    const BYTES: usize = A::BYTES + B::BYTES;
    fn put(self, out: &mut [u8]) {
        self.0.put(&mut out[..A::BYTES]);
        self.1.put(&mut out[A::BYTES..]);
    }
    fn take(bytes: &[u8]) -> Self {
        (A::take(&bytes[..A::BYTES]), B::take(&bytes[A::BYTES..]))
    }
}

impl<const N: usize> Entry for [u32; N]
where
    [u32; N]: Default,
{
    const BYTES: usize = 4 * N;
    fn put(self, out: &mut [u8]) {
        for (v, slot) in self.into_iter().zip(out.chunks_exact_mut(4)) {
            v.put(slot);
        }
    }
    fn take(bytes: &[u8]) -> Self {
        let mut v = [0u32; N];
        for (v, slot) in v.iter_mut().zip(bytes.chunks_exact(4)) {
            *v = u32::take(slot);
        }
        v
    }
}

/// Appended entries are written to the file in pieces of this many bytes.
#[cfg(not(test))]
const WRITE_BUFFER: usize = 64 << 10;
/// Small in tests, so that a few entries already cross the line between the file and the
/// buffer.
#[cfg(test)]
const WRITE_BUFFER: usize = 64;

/// A growable array of [`Entry`]s: a `Vec` until it would take more than its share of memory,
/// then a temporary file (deleted when dropped) that reads and writes go to, with at most
/// 64 KiB of appended entries buffered in memory.
#[derive(Debug)]
pub(crate) struct DocArray<T> {
    memory: Vec<T>,
    disk: Option<Disk>,
    len: usize,
    /// Entries kept in memory at most.
    max_entries: usize,
}

#[derive(Debug)]
struct Disk {
    file: File,
    /// Entries in the file; the rest (up to `len`) are in `pending`.
    written: usize,
    /// Entries appended but not yet written, as bytes.
    pending: Vec<u8>,
}

impl<T: Entry> DocArray<T> {
    /// An empty array that moves to a temporary file once its entries would take more than
    /// `share` bytes (`u64::MAX`: never).
    pub(crate) fn new(share: u64) -> DocArray<T> {
        DocArray {
            memory: Vec::new(),
            disk: None,
            len: 0,
            max_entries: usize::try_from(share / T::BYTES as u64).unwrap_or(usize::MAX),
        }
    }

    /// `len` default entries (all-zero bytes), in memory if they fit in `share` bytes, else
    /// in a sparse temporary file under `dir` (default: the system's).
    pub(crate) fn zeroed(len: usize, share: u64, dir: Option<&Path>) -> io::Result<DocArray<T>> {
        let mut array = DocArray::new(share);
        if len <= array.max_entries {
            array.memory = vec![T::default(); len];
        } else {
            let file = temp_file(dir)?;
            file.set_len((len * T::BYTES) as u64)?;
            array.disk = Some(Disk {
                file,
                written: len,
                pending: Vec::new(),
            });
        }
        array.len = len;
        Ok(array)
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no entry.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sets the share: the array moves to a file at its next append past it (when in memory).
    pub(crate) fn set_share(&mut self, share: u64) {
        self.max_entries = usize::try_from(share / T::BYTES as u64).unwrap_or(usize::MAX);
    }

    /// Whether the entries are in a file.
    pub(crate) fn on_disk(&self) -> bool {
        self.disk.is_some()
    }

    /// Appends an entry, moving the array to a file under `dir` (default: the system's) when
    /// it passes its share.
    pub(crate) fn push(&mut self, value: T, dir: Option<&Path>) -> io::Result<()> {
        if self.disk.is_none() && self.len >= self.max_entries {
            self.move_to_disk(dir)?;
        }
        match &mut self.disk {
            None => self.memory.push(value),
            Some(disk) => {
                let at = disk.pending.len();
                disk.pending.resize(at + T::BYTES, 0);
                value.put(&mut disk.pending[at..]);
                if disk.pending.len() >= WRITE_BUFFER {
                    write_at(&disk.file, &disk.pending, (disk.written * T::BYTES) as u64)?;
                    disk.written += disk.pending.len() / T::BYTES;
                    disk.pending.clear();
                }
            }
        }
        self.len += 1;
        Ok(())
    }

    /// Writes the entries held in memory to a new file, which takes over.
    fn move_to_disk(&mut self, dir: Option<&Path>) -> io::Result<()> {
        let file = temp_file(dir)?;
        let mut bytes = Vec::with_capacity(WRITE_BUFFER);
        let mut at = 0u64;
        for piece in self.memory.chunks(WRITE_BUFFER / T::BYTES) {
            bytes.clear();
            bytes.resize(piece.len() * T::BYTES, 0);
            for (v, slot) in piece.iter().zip(bytes.chunks_exact_mut(T::BYTES)) {
                v.put(slot);
            }
            write_at(&file, &bytes, at)?;
            at += bytes.len() as u64;
        }
        bytes.clear();
        self.disk = Some(Disk {
            file,
            written: self.memory.len(),
            pending: bytes,
        });
        self.memory = Vec::new();
        Ok(())
    }

    /// Entry `i`.
    pub(crate) fn get(&self, i: usize) -> io::Result<T> {
        assert!(i < self.len, "entry {i} of {}", self.len);
        match &self.disk {
            None => Ok(self.memory[i]),
            Some(disk) if i >= disk.written => {
                let at = (i - disk.written) * T::BYTES;
                Ok(T::take(&disk.pending[at..at + T::BYTES]))
            }
            Some(disk) => {
                let mut bytes = [0u8; MAX_BYTES];
                let bytes = &mut bytes[..T::BYTES];
                read_at(&disk.file, bytes, (i * T::BYTES) as u64)?;
                Ok(T::take(bytes))
            }
        }
    }

    /// Replaces entry `i`.
    pub(crate) fn set(&mut self, i: usize, value: T) -> io::Result<()> {
        assert!(i < self.len, "entry {i} of {}", self.len);
        match &mut self.disk {
            None => self.memory[i] = value,
            Some(disk) if i >= disk.written => {
                let at = (i - disk.written) * T::BYTES;
                value.put(&mut disk.pending[at..at + T::BYTES]);
            }
            Some(disk) => {
                let mut bytes = [0u8; MAX_BYTES];
                let bytes = &mut bytes[..T::BYTES];
                value.put(bytes);
                write_at(&disk.file, bytes, (i * T::BYTES) as u64)?;
            }
        }
        Ok(())
    }

    /// Entries `range` into `out`, replacing what it held (one read on disk).
    pub(crate) fn read_range(&self, range: Range<usize>, out: &mut Vec<T>) -> io::Result<()> {
        assert!(range.end <= self.len, "entries {range:?} of {}", self.len);
        out.clear();
        match &self.disk {
            None => out.extend_from_slice(&self.memory[range]),
            Some(disk) => {
                let in_file = range.start.min(disk.written)..range.end.min(disk.written);
                let mut bytes = vec![0u8; in_file.len() * T::BYTES];
                read_at(&disk.file, &mut bytes, (in_file.start * T::BYTES) as u64)?;
                out.extend(bytes.chunks_exact(T::BYTES).map(T::take));
                let pending = range.start.max(disk.written)..range.end;
                out.extend(pending.map(|i| {
                    let at = (i - disk.written) * T::BYTES;
                    T::take(&disk.pending[at..at + T::BYTES])
                }));
            }
        }
        Ok(())
    }
}

/// The largest [`Entry::BYTES`] of the entries in use.
const MAX_BYTES: usize = 16;

/// An anonymous temporary file in `dir` (the system's temporary directory when `None`).
pub(crate) fn temp_file(dir: Option<&Path>) -> io::Result<File> {
    match dir {
        Some(dir) => tempfile::tempfile_in(dir),
        None => tempfile::tempfile(),
    }
}

#[cfg(unix)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(unix)]
pub(crate) fn write_at(file: &File, buf: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, at)
}

#[cfg(windows)]
pub(crate) fn read_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, at)? {
            0 => return Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(windows)]
pub(crate) fn write_at(file: &File, mut buf: &[u8], mut at: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_write(buf, at)? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            n => {
                buf = &buf[n..];
                at += n as u64;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same entries whether the array stays in memory, moves to disk part way, or starts
    /// there.
    #[test]
    fn entries_are_the_same_in_memory_and_on_disk() {
        for share in [u64::MAX, 100 * 16, 0] {
            let mut array: DocArray<(u64, u64)> = DocArray::new(share);
            // Many write buffers, so that some entries are in the file and some still
            // buffered.
            let n = 5000;
            for i in 0..n as u64 {
                array.push((i, i * i), None).unwrap();
            }
            assert_eq!(array.len(), n);
            assert_eq!(array.on_disk(), share != u64::MAX, "{share}");
            for i in [0, 1, 99, 100, 4095, 4096, n - 1] {
                assert_eq!(array.get(i).unwrap(), (i as u64, (i * i) as u64));
            }
            let mut out = Vec::new();
            array.read_range(n - 20..n, &mut out).unwrap();
            let expected: Vec<(u64, u64)> = (n as u64 - 20..n as u64).map(|i| (i, i * i)).collect();
            assert_eq!(out, expected);
            array.set(5, (7, 7)).unwrap();
            array.set(n - 1, (8, 8)).unwrap();
            assert_eq!(array.get(5).unwrap(), (7, 7));
            assert_eq!(array.get(n - 1).unwrap(), (8, 8));
            array.read_range(0..0, &mut out).unwrap();
            assert!(out.is_empty());
        }
    }

    #[test]
    fn zeroed_arrays_start_at_the_default() {
        for share in [u64::MAX, 0] {
            let mut array: DocArray<[u32; 3]> = DocArray::zeroed(1000, share, None).unwrap();
            assert_eq!(array.on_disk(), share == 0);
            assert_eq!(array.get(999).unwrap(), [0; 3]);
            array.set(999, [1, 2, u32::MAX]).unwrap();
            array.set(0, [3, 0, 4]).unwrap();
            let mut out = Vec::new();
            array.read_range(0..1000, &mut out).unwrap();
            assert_eq!(out.len(), 1000);
            assert_eq!(
                (out[0], out[1], out[999]),
                ([3, 0, 4], [0; 3], [1, 2, u32::MAX])
            );
        }
    }

    proptest::proptest! {
        /// Any mix of appends, writes and reads sees what a `Vec` would, whatever the share.
        #[test]
        fn an_array_behaves_as_a_vec(
            ops in proptest::collection::vec((0u8..4, proptest::prelude::any::<u32>()), 1..400),
            share in proptest::sample::select(vec![0u64, 4 * 10, 4 * 1000, u64::MAX]),
        ) {
            let mut array: DocArray<u32> = DocArray::new(share);
            let mut model: Vec<u32> = Vec::new();
            let mut out = Vec::new();
            for (op, v) in ops {
                let at = |n: usize| v as usize % n.max(1);
                match op {
                    0 | 1 => {
                        array.push(v, None).unwrap();
                        model.push(v);
                    }
                    2 if !model.is_empty() => {
                        let i = at(model.len());
                        array.set(i, v ^ 1).unwrap();
                        model[i] = v ^ 1;
                    }
                    _ if !model.is_empty() => {
                        let i = at(model.len());
                        proptest::prop_assert_eq!(array.get(i).unwrap(), model[i]);
                        array.read_range(i..model.len(), &mut out).unwrap();
                        proptest::prop_assert_eq!(&out[..], &model[i..]);
                    }
                    _ => {}
                }
            }
            proptest::prop_assert_eq!(array.len(), model.len());
            proptest::prop_assert_eq!(array.on_disk(), share != u64::MAX && model.len() * 4 > share as usize);
        }
    }
}
