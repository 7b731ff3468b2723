//! Documents tokenized for alignment, kept in a temporary file for the rest of the run: at
//! scale each document is in dozens of candidate pairs spread over the whole run, and reading
//! its tokens back ([`Prepared::decode`]) is several times faster than tokenizing it again.
use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use textreuse_align::Prepared;

use crate::ReuseError;
use crate::doc_array::{DocArray, read_at, write_at};

/// Where a document's tokens are in the file: their start plus one (0: not written yet), low
/// word first, and their length.
type Slot = [u32; 3];

fn slot(start: u64, len: u32) -> Slot {
    let s = start + 1;
    [s as u32, (s >> 32) as u32, len]
}

fn unslot(slot: Slot) -> Option<(u64, u32)> {
    let s = u64::from(slot[0]) | u64::from(slot[1]) << 32;
    (s != 0).then(|| (s - 1, slot[2]))
}

/// The tokenized documents of a run, by document number, in a temporary file (deleted when
/// dropped). Memory holds 12 bytes per document (where its tokens are), or past their share a
/// second temporary file does.
pub(crate) struct TokenFile {
    file: File,
    dir: PathBuf,
    slots: DocArray<Slot>,
    end: u64,
    stored: usize,
    /// The bytes of one [`TokenFile::put`], kept for the next (at most one part of a batch:
    /// bounded as its text is, by `PREPARED_TEXT_BYTES`).
    buf: Vec<u8>,
}

thread_local! {
    static BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn error(dir: &Path, e: io::Error) -> ReuseError {
    ReuseError::Tokens {
        dir: dir.to_path_buf(),
        source: e,
    }
}

impl TokenFile {
    /// An empty file for `docs` documents under `dir` (default: the system's), their places
    /// in memory if they fit in `share` bytes.
    pub(crate) fn new(
        dir: Option<&Path>,
        docs: usize,
        share: u64,
    ) -> Result<TokenFile, ReuseError> {
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let file = tempfile::tempfile_in(&dir).map_err(|e| error(&dir, e))?;
        let slots = DocArray::zeroed(docs, share, Some(&dir)).map_err(|e| error(&dir, e))?;
        Ok(TokenFile {
            file,
            dir,
            slots,
            end: 0,
            stored: 0,
            buf: Vec::new(),
        })
    }

    /// Where document `i`'s tokens are in the file, if they are.
    fn place(&self, i: usize) -> Result<Option<(u64, u32)>, ReuseError> {
        let slot = self.slots.get(i).map_err(|e| error(&self.dir, e))?;
        Ok(unslot(slot))
    }

    /// Whether the places of the documents are in a file.
    pub(crate) fn on_disk(&self) -> bool {
        self.slots.on_disk()
    }

    /// Document `i` read back, with `text`, its text; `None` if it is not in the file.
    pub(crate) fn get<'t>(
        &self,
        i: usize,
        text: &'t str,
    ) -> Result<Option<Prepared<'t>>, ReuseError> {
        let Some((start, len)) = self.place(i)? else {
            return Ok(None);
        };
        BUF.with_borrow_mut(|buf| {
            buf.resize(len as usize, 0);
            read_at(&self.file, buf, start).map_err(|e| error(&self.dir, e))?;
            Prepared::decode(text, buf)
                .map(Some)
                .map_err(|e| error(&self.dir, io::Error::new(io::ErrorKind::InvalidData, e)))
        })
    }

    /// Appends the documents `docs` (numbers and tokens) that are not in the file yet.
    pub(crate) fn put<'a, 't: 'a>(
        &mut self,
        docs: impl IntoIterator<Item = (usize, &'a Prepared<'t>)>,
    ) -> Result<(), ReuseError> {
        let mut bytes = std::mem::take(&mut self.buf);
        bytes.clear();
        let start = self.end;
        for (i, p) in docs {
            if self.place(i)?.is_some() {
                continue;
            }
            let at = bytes.len();
            p.encode(&mut bytes);
            let Ok(len) = u32::try_from(bytes.len() - at) else {
                bytes.truncate(at); // over 4 GiB: tokenized again each time instead
                continue;
            };
            self.slots
                .set(i, slot(start + at as u64, len))
                .map_err(|e| error(&self.dir, e))?;
            self.stored += 1;
        }
        write_at(&self.file, &bytes, start).map_err(|e| error(&self.dir, e))?;
        self.end += bytes.len() as u64;
        self.buf = bytes;
        Ok(())
    }

    /// The number of documents in the file and its size.
    pub(crate) fn size(&self) -> (usize, u64) {
        (self.stored, self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_align::Aligner;

    #[test]
    fn documents_come_back_as_they_were_put() {
        let aligner = Aligner::new();
        let texts = [
            "Bees store honey. They build combs of wax.",
            "",
            "Wasps build nests of paper. They hunt other insects.",
        ];
        let prepared: Vec<Prepared<'_>> = texts.iter().map(|t| aligner.prepare(t)).collect();
        // The places in memory, and in a file.
        for share in [u64::MAX, 0] {
            documents_come_back(&texts, &prepared, TokenFile::new(None, 4, share).unwrap());
        }
    }

    fn documents_come_back(texts: &[&str], prepared: &[Prepared<'_>], mut file: TokenFile) {
        assert!(file.get(0, texts[0]).unwrap().is_none());
        file.put([(0, &prepared[0]), (2, &prepared[2])]).unwrap();
        file.put([(1, &prepared[1]), (2, &prepared[2])]).unwrap();
        let mut expected = 0;
        for (i, (t, p)) in texts.iter().zip(prepared).enumerate() {
            let back = file.get(i, t).unwrap().unwrap();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            back.encode(&mut a);
            p.encode(&mut b);
            assert_eq!(a, b);
            expected += b.len() as u64;
        }
        assert_eq!(file.size(), (3, expected));
        assert!(file.get(3, "").unwrap().is_none());
        // The tokens of another text are refused, not misread.
        assert!(matches!(
            file.get(0, texts[2]),
            Err(ReuseError::Tokens { .. })
        ));
    }
}
