//! Stage 6's store: kept sentence texts in a temporary file, addressed by sentence id.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::Error;

/// Kept sentence texts on disk, addressed by sentence id.
///
/// The index is two-level so that a lookup touches a few cache lines, not a binary search over
/// every kept sentence: `doc_first[seq]` is the position of the document's first kept sentence,
/// and the document's positions hold its sentence indices (`idx`, ascending) and file offsets.
/// Memory: 12 bytes per kept sentence and 8 per document.
pub(crate) struct TextStore {
    file: BufWriter<File>,
    path: tempfile::TempPath,
    dir: PathBuf,
    /// Per kept sentence, in push order (ascending id): the low 32 bits of its id.
    idx: Vec<u32>,
    /// Per kept sentence: its offset in the file; one more entry, the file length, is added by
    /// [`TextStore::into_reader`].
    offsets: Vec<u64>,
    /// Per document `seq` up to the last one pushed: the position of its first kept sentence.
    doc_first: Vec<usize>,
    last_id: Option<u64>,
    len: u64,
}

impl TextStore {
    /// An empty store in a new temporary file under `dir` (default: the system's).
    pub(crate) fn new(dir: Option<&Path>) -> Result<TextStore, Error> {
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|source| Error::TextStore {
            what: "cannot create the sentence text file",
            dir: dir.clone(),
            source,
        })?;
        let (file, path) = tmp.into_parts();
        Ok(TextStore {
            file: BufWriter::with_capacity(1 << 20, file),
            path,
            dir,
            idx: Vec::new(),
            offsets: Vec::new(),
            doc_first: Vec::new(),
            last_id: None,
            len: 0,
        })
    }

    fn error(&self, what: &'static str, source: std::io::Error) -> Error {
        Error::TextStore {
            what,
            dir: self.dir.clone(),
            source,
        }
    }

    /// Appends the text of unit `id` and its character span in its document; ids must be
    /// pushed in ascending order (the pipeline does: documents in input order, units by index).
    /// The span is written after the text (16 bytes, so reading it back cuts it off without
    /// moving the text), and memory stays at 12 bytes per unit.
    pub(crate) fn push(
        &mut self,
        id: u64,
        text: &str,
        chars: std::ops::Range<u64>,
    ) -> Result<(), Error> {
        assert!(
            self.last_id.is_none_or(|last| last < id),
            "sentence {id:#x} was stored out of order"
        );
        self.last_id = Some(id);
        let seq = (id >> 32) as usize;
        while self.doc_first.len() <= seq {
            self.doc_first.push(self.idx.len());
        }
        self.idx.push(id as u32);
        self.offsets.push(self.len);
        let mut header = [0u8; SPAN_BYTES];
        header[..8].copy_from_slice(&chars.start.to_le_bytes());
        header[8..].copy_from_slice(&chars.end.to_le_bytes());
        if let Err(e) = self
            .file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.write_all(&header))
        {
            return Err(self.error("cannot write the sentence text file", e));
        }
        self.len += (SPAN_BYTES + text.len()) as u64;
        Ok(())
    }

    /// The read side.
    pub(crate) fn into_reader(mut self) -> Result<TextReader, Error> {
        let dir = self.dir.clone();
        let file = self.file.into_inner().map_err(|e| Error::TextStore {
            what: "cannot write the sentence text file",
            dir: dir.clone(),
            source: e.into_error(),
        })?;
        self.offsets.push(self.len);
        // The sentinel: the documents after the last one with a kept sentence start at the end.
        self.doc_first.push(self.idx.len());
        self.idx.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.doc_first.shrink_to_fit();
        Ok(TextReader {
            file,
            _path: self.path,
            dir,
            idx: self.idx,
            offsets: self.offsets,
            doc_first: self.doc_first,
        })
    }
}

/// Bytes of the character span written after each text.
const SPAN_BYTES: usize = 16;

/// A stored unit: its text and its character span in its document.
pub(crate) struct StoredUnit {
    pub(crate) text: String,
    pub(crate) chars: std::ops::Range<u64>,
}

/// The read side of [`TextStore`]; `get` takes `&self` (positioned reads), so workers share it.
pub(crate) struct TextReader {
    file: File,
    _path: tempfile::TempPath,
    dir: PathBuf,
    idx: Vec<u32>,
    offsets: Vec<u64>,
    doc_first: Vec<usize>,
}

impl TextReader {
    /// The position of sentence `id` in the index. Every clustered id was stored in stage 1, so
    /// a missing one is a bug.
    fn position(&self, id: u64) -> usize {
        let seq = (id >> 32) as usize;
        let missing = || panic!("sentence {id:#x} has no stored text");
        // `doc_first` ends with a sentinel, so `seq + 1` is in bounds for every stored document.
        let (Some(&first), Some(&end)) = (self.doc_first.get(seq), self.doc_first.get(seq + 1))
        else {
            missing()
        };
        first
            + self.idx[first..end]
                .binary_search(&(id as u32))
                .unwrap_or_else(|_| missing())
    }

    /// The text and character span of unit `id`.
    pub(crate) fn get(&self, id: u64) -> Result<StoredUnit, Error> {
        let i = self.position(id);
        let (start, end) = (self.offsets[i], self.offsets[i + 1]);
        let mut buf = vec![0u8; (end - start) as usize];
        let error = |what, source| Error::TextStore {
            what,
            dir: self.dir.clone(),
            source,
        };
        self.file
            .read_exact_at(&mut buf, start)
            .map_err(|e| error("cannot read the sentence text file", e))?;
        let changed = |e: Box<dyn std::error::Error + Send + Sync>| {
            error(
                "the sentence text file was changed while it was read",
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        };
        let Some(at) = buf.len().checked_sub(SPAN_BYTES) else {
            return Err(changed("a record is shorter than its span".into()));
        };
        let start = u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"));
        let end = u64::from_le_bytes(buf[at + 8..].try_into().expect("8 bytes"));
        buf.truncate(at);
        let text = String::from_utf8(buf).map_err(|e| changed(Box::new(e)))?;
        Ok(StoredUnit {
            text,
            chars: start..end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_come_back_by_id() {
        let mut store = TextStore::new(None).unwrap();
        let ids = [0u64, 3, 2 << 32 | 1, 2 << 32 | 7, 5 << 32];
        for &id in &ids {
            store
                .push(id, &format!("text of {id}"), id..id + 3)
                .unwrap();
        }
        let reader = store.into_reader().unwrap();
        for &id in ids.iter().rev() {
            let unit = reader.get(id).unwrap();
            assert_eq!(unit.text, format!("text of {id}"));
            assert_eq!(unit.chars, id..id + 3);
        }
    }
}
