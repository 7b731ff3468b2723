//! Documents tokenized for alignment, kept in a temporary file for the rest of the run: at
//! scale each document is in dozens of candidate pairs spread over the whole run, and reading
//! its tokens back ([`Prepared::decode`]) is several times faster than tokenizing it again.
use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use textreuse_align::Prepared;

use crate::ReuseError;

/// Where each document's bytes are in the file: `NONE` until they are written.
const NONE: u64 = u64::MAX;

/// The tokenized documents of a run, by document number, in a temporary file (deleted when
/// dropped). Memory holds 12 bytes per document.
pub(crate) struct TokenFile {
    file: File,
    dir: PathBuf,
    starts: Vec<u64>,
    lens: Vec<u32>,
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
    /// An empty file for `docs` documents under `dir` (default: the system's).
    pub(crate) fn new(dir: Option<&Path>, docs: usize) -> Result<TokenFile, ReuseError> {
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let file = tempfile::tempfile_in(&dir).map_err(|e| error(&dir, e))?;
        Ok(TokenFile {
            file,
            dir,
            starts: vec![NONE; docs],
            lens: vec![0; docs],
            end: 0,
            stored: 0,
            buf: Vec::new(),
        })
    }

    /// Whether document `i` is in the file.
    pub(crate) fn has(&self, i: usize) -> bool {
        self.starts[i] != NONE
    }

    /// Document `i` read back, with `text`, its text; `None` if it is not in the file.
    pub(crate) fn get<'t>(
        &self,
        i: usize,
        text: &'t str,
    ) -> Result<Option<Prepared<'t>>, ReuseError> {
        if !self.has(i) {
            return Ok(None);
        }
        BUF.with_borrow_mut(|buf| {
            buf.resize(self.lens[i] as usize, 0);
            read_at(&self.file, buf, self.starts[i]).map_err(|e| error(&self.dir, e))?;
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
            if self.has(i) {
                continue;
            }
            let at = bytes.len();
            p.encode(&mut bytes);
            let Ok(len) = u32::try_from(bytes.len() - at) else {
                bytes.truncate(at); // over 4 GiB: tokenized again each time instead
                continue;
            };
            self.starts[i] = start + at as u64;
            self.lens[i] = len;
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

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(unix)]
fn write_at(file: &File, buf: &[u8], at: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
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
fn write_at(file: &File, mut buf: &[u8], mut at: u64) -> io::Result<()> {
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
        let mut file = TokenFile::new(None, 4).unwrap();
        assert!(file.get(0, texts[0]).unwrap().is_none());
        file.put([(0, &prepared[0]), (2, &prepared[2])]).unwrap();
        file.put([(1, &prepared[1]), (2, &prepared[2])]).unwrap();
        let mut expected = 0;
        for (i, (t, p)) in texts.iter().zip(&prepared).enumerate() {
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
