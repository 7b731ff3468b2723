//! Documents whose texts live on disk: a corpus larger than memory.
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use textreuse_dedup::Document;

/// Builds a [`DocumentStore`]: each pushed document's text is appended to a temporary file,
/// and only its id, title and provenance stay in memory.
///
/// ```
/// use textreuse_dedup::Document;
/// use textreuse_reuse::DocumentStoreBuilder;
///
/// let mut store = DocumentStoreBuilder::new(None::<&std::path::Path>)?;
/// store.push(Document::new(1, "Bees", "Bees store honey."))?;
/// store.push(Document::new(2, "Wasps", "Wasps build nests."))?;
/// let store = store.finish()?;
/// assert_eq!((store.len(), store.text(1)), (2, "Wasps build nests."));
/// assert_eq!(store.info(1).title, "Wasps");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct DocumentStoreBuilder {
    file: BufWriter<File>,
    path: tempfile::TempPath,
    dir: PathBuf,
    ends: Vec<u64>,
    info: Vec<Document>,
}

/// Documents with their texts in a file mapped into memory ([`DocumentStoreBuilder`]): the
/// operating system pages texts in as a run reads them and drops them under memory pressure,
/// so the corpus need not fit in memory. The file is deleted when the store is dropped.
#[derive(Debug)]
pub struct DocumentStore {
    map: Option<Mmap>,
    _path: tempfile::TempPath,
    ends: Vec<u64>,
    info: Vec<Document>,
}

impl DocumentStoreBuilder {
    /// An empty store in a new temporary file under `dir` (default: the system's).
    pub fn new(dir: Option<impl AsRef<Path>>) -> io::Result<DocumentStoreBuilder> {
        let dir = dir.map_or_else(std::env::temp_dir, |d| d.as_ref().to_path_buf());
        let tmp = tempfile::Builder::new()
            .prefix(".textreuse-docs-")
            .tempfile_in(&dir)
            .map_err(|e| with_path(e, "cannot create the document text file in", &dir))?;
        let (file, path) = tmp.into_parts();
        Ok(DocumentStoreBuilder {
            file: BufWriter::with_capacity(1 << 20, file),
            path,
            dir,
            ends: Vec::new(),
            info: Vec::new(),
        })
    }

    /// Appends a document.
    pub fn push(&mut self, mut doc: Document) -> io::Result<()> {
        self.file
            .write_all(doc.text.as_bytes())
            .map_err(|e| with_path(e, "cannot write the document texts to", &self.dir))?;
        let end = self.ends.last().copied().unwrap_or(0) + doc.text.len() as u64;
        self.ends.push(end);
        doc.text = String::new();
        self.info.push(doc);
        Ok(())
    }

    /// The number of documents pushed.
    pub fn len(&self) -> usize {
        self.info.len()
    }

    /// Whether no document was pushed.
    pub fn is_empty(&self) -> bool {
        self.info.is_empty()
    }

    /// The store, its file mapped into memory.
    pub fn finish(self) -> io::Result<DocumentStore> {
        let file = self.file.into_inner().map_err(|e| {
            with_path(
                e.into_error(),
                "cannot write the document texts to",
                &self.dir,
            )
        })?;
        let map = if self.ends.last().copied().unwrap_or(0) == 0 {
            None // an empty file cannot be mapped everywhere
        } else {
            // SAFETY: the file is this store's own temporary file, written above and never
            // written again; nothing else is expected to change it while it is mapped.
            let map =
                unsafe { Mmap::map(&file) }.map_err(|e| with_path(e, "cannot map", &self.dir))?;
            // Checked once here, so that `text` need not check on every read.
            if std::str::from_utf8(&map).is_err() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the document text file in {} was changed",
                        self.dir.display()
                    ),
                ));
            }
            Some(map)
        };
        Ok(DocumentStore {
            map,
            _path: self.path,
            ends: self.ends,
            info: self.info,
        })
    }
}

fn with_path(e: io::Error, what: &str, dir: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", dir.display()))
}

impl DocumentStore {
    /// The number of documents.
    pub fn len(&self) -> usize {
        self.info.len()
    }

    /// Whether the store has no document.
    pub fn is_empty(&self) -> bool {
        self.info.is_empty()
    }

    /// Document `i`'s text.
    pub fn text(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] } as usize;
        let end = self.ends[i] as usize;
        let bytes = self.map.as_deref().map_or(&[][..], |m| &m[start..end]);
        // SAFETY: the file holds the UTF-8 texts of `String`s back to back, checked whole
        // when it was mapped, and `start..end` is one text's span (so on char boundaries); the
        // file is not written again (see `finish`).
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// Document `i`'s id, title and provenance (its `text` is empty: see
    /// [`DocumentStore::text`]).
    pub fn info(&self, i: usize) -> &Document {
        &self.info[i]
    }
}
