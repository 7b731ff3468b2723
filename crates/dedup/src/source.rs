//! Every input the pipeline reads, as one stream of [`Source`]s: Wikipedia dumps (`.xml`,
//! `.xml.bz2`, `.bz2`) through `textreuse-wikidump`, plain text and JSON Lines through
//! [`crate::input`], or documents a program already holds ([`Source::from`] a [`Document`]).
//!
//! Dump pages arrive as raw wikitext ([`Source::Wiki`]) so that the expensive cleaning runs in
//! parallel in stage 1 ([`Source::into_document`]); a cleaned article becomes one document
//! whose text is its prose paragraphs joined by blank lines (list items are left out, as the
//! thesis dropped bullet fragments), so no sentence crosses a paragraph.
//!
//! ```no_run
//! use textreuse_dedup::{Inputs, Source};
//!
//! // Files in order; a damaged dump yields its complete pages and a recoverable error.
//! for source in Inputs::new(["enwiki.xml.bz2", "more.jsonl"]).threads(2) {
//!     match source {
//!         Ok(Source::Wiki { title, .. }) => println!("page {title}"),
//!         Ok(Source::Text(doc)) => println!("document {}", doc.id),
//!         Err(e) if e.is_recoverable() => eprintln!("warning: {e}"),
//!         Err(e) => return Err(e.into()),
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::path::{Path, PathBuf};

use textreuse_wikidump::{Cleaner, DumpReader};

use crate::input::{self, Document, InputError, JsonLines};

/// Whether `path` is read as a Wikipedia XML dump (`.xml`, `.xml.bz2`, `.bz2`).
pub fn is_dump(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".xml") || name.ends_with(".xml.bz2") || name.ends_with(".bz2")
}

/// One input document before cleaning.
#[derive(Debug)]
pub enum Source {
    /// A ready document (plain text, JSON Lines, or built by a program).
    Text(Document),
    /// A Wikipedia page: id, title and wikitext.
    Wiki {
        /// The page id.
        id: u64,
        /// The page title.
        title: String,
        /// The raw wikitext.
        wikitext: String,
    },
}

impl From<Document> for Source {
    fn from(doc: Document) -> Source {
        Source::Text(doc)
    }
}

impl Source {
    /// The document, cleaning wikitext with `cleaner`.
    pub fn into_document(self, cleaner: &Cleaner) -> Document {
        match self {
            Source::Text(doc) => doc,
            Source::Wiki {
                id,
                title,
                wikitext,
            } => {
                let article = cleaner.clean(&wikitext);
                let mut text = String::with_capacity(wikitext.len() / 2);
                for p in article.paragraphs.iter().filter(|p| !p.list) {
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(&p.text);
                }
                Document { id, title, text }
            }
        }
    }
}

/// The sources of a list of files, in order: an iterator of `Result<Source, InputError>`.
///
/// Dumps are read page by page (on [`Inputs::threads`] decompression threads), `.jsonl` files
/// line by line, and any other file is one plain-text document whose id is its 1-based position
/// in the list. After an error that is not [recoverable](InputError::is_recoverable) the
/// iterator ends.
#[derive(Debug)]
pub struct Inputs {
    paths: Vec<PathBuf>,
    next: usize,
    threads: usize,
    current: Current,
    failed: bool,
}

#[derive(Debug)]
enum Current {
    None,
    Dump(PathBuf, DumpReader),
    Lines(JsonLines),
}

impl Inputs {
    /// The files `paths`, read in order with one decompression thread per dump.
    pub fn new<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Inputs {
        Inputs {
            paths: paths
                .into_iter()
                .map(|p| p.as_ref().to_path_buf())
                .collect(),
            next: 0,
            threads: 1,
            current: Current::None,
            failed: false,
        }
    }

    /// Decompression threads per dump (multistream dumps are decoded in parallel); default 1.
    pub fn threads(mut self, threads: usize) -> Inputs {
        self.threads = threads.max(1);
        self
    }

    fn fail(&mut self, e: InputError) -> Option<Result<Source, InputError>> {
        self.failed = true;
        Some(Err(e))
    }
}

impl Iterator for Inputs {
    type Item = Result<Source, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            match &mut self.current {
                Current::Dump(path, reader) => match reader.next() {
                    Some(Ok(page)) => {
                        return Some(Ok(Source::Wiki {
                            id: page.id,
                            title: page.title,
                            wikitext: page.text,
                        }));
                    }
                    Some(Err(source)) => {
                        return Some(Err(InputError::Damaged {
                            path: path.clone(),
                            source,
                        }));
                    }
                    None => self.current = Current::None,
                },
                Current::Lines(lines) => match lines.next() {
                    Some(Ok(doc)) => return Some(Ok(Source::Text(doc))),
                    Some(Err(e)) => return self.fail(e),
                    None => self.current = Current::None,
                },
                Current::None => {
                    let path = self.paths.get(self.next)?.clone();
                    self.next += 1;
                    if is_dump(&path) {
                        match textreuse_wikidump::ReaderBuilder::new()
                            .threads(self.threads)
                            .open(&path)
                        {
                            Ok(reader) => self.current = Current::Dump(path, reader),
                            Err(source) => return self.fail(InputError::Dump { path, source }),
                        }
                    } else if input::is_json_lines(&path) {
                        match JsonLines::open(&path) {
                            Ok(lines) => self.current = Current::Lines(lines),
                            Err(e) => return self.fail(e),
                        }
                    } else {
                        // A plain-text document's id is its position in the whole list.
                        return match input::read_plain(&path, self.next as u64) {
                            Ok(doc) => Some(Ok(Source::Text(doc))),
                            Err(e) => self.fail(e),
                        };
                    }
                }
            }
        }
    }
}

impl std::iter::FusedIterator for Inputs {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ids_are_positions_and_errors_end_the_stream() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.jsonl");
        let c = dir.path().join("c.txt");
        std::fs::write(&a, "A.").unwrap();
        std::fs::write(&b, "{\"id\": 40, \"text\": \"B.\"}\n").unwrap();
        std::fs::write(&c, "C.").unwrap();
        let ids: Vec<u64> = Inputs::new([&a, &b, &c])
            .map(|s| match s.unwrap() {
                Source::Text(d) => d.id,
                Source::Wiki { id, .. } => id,
            })
            .collect();
        assert_eq!(ids, [1, 40, 3]);

        let missing = dir.path().join("missing.txt");
        let mut it = Inputs::new([&missing, &a]);
        let err = it.next().unwrap().unwrap_err();
        assert!(!err.is_recoverable());
        assert_eq!(err.path(), missing);
        assert!(it.next().is_none());
    }
}
