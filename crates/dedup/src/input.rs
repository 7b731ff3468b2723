//! Documents from plain-text files and JSON Lines.
//!
//! * A file whose name ends in `.jsonl` holds one JSON object per line: `{"id": <u64>, "title":
//!   <string, optional>, "text": <string>}`, or instead of `text` the `paragraphs` array written
//!   by `textreuse extract` (objects with a `text` field, or plain strings), whose texts are joined
//!   with blank lines so that no sentence crosses a paragraph. Blank lines are skipped.
//! * Any other file is one document: its id is given by the caller (the CLI uses the file's
//!   1-based position in the argument list), its title the file name without its extension, its
//!   text the whole file (UTF-8; a leading byte-order mark is dropped).
//!
//! Errors ([`InputError`]) name the file, and the line for JSON Lines.
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One input document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// The document id (from JSON, or the file's position in the argument list).
    pub id: u64,
    /// The title (from JSON, or the file stem).
    pub title: String,
    /// The text.
    pub text: String,
}

impl Document {
    /// A document from its parts.
    pub fn new(id: u64, title: impl Into<String>, text: impl Into<String>) -> Document {
        Document {
            id,
            title: title.into(),
            text: text.into(),
        }
    }
}

/// Why an input could not be read, naming the file (and line).
///
/// [`InputError::is_recoverable`] tells the two kinds apart: damage inside a dump is reported
/// and reading goes on (the dump still yields every complete page), and the pipeline counts it
/// in [`Stats::input_problems`](crate::Stats::input_problems); any other error stops the run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The file cannot be opened or read. Recover by fixing the path, permissions or device.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line of a JSON Lines file is not a document object (or cannot be read). Recover by
    /// fixing or removing that line.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A plain-text file is not UTF-8. Recover by converting it (`iconv -t UTF-8`).
    #[error("{}: not UTF-8 (invalid byte at offset {offset})", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The offset of the first invalid byte.
        offset: u64,
    },
    /// A dump cannot be opened at all (not bz2 or XML, unreadable). Recover by checking the
    /// file; a truncated download can be fetched again.
    #[error("{}", path.display())]
    Dump {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        #[source]
        source: textreuse_wikidump::Error,
    },
    /// Damage inside a dump; reading went on with the next intact part. Recoverable: nothing to
    /// do, but the pages in the damaged part are missing from the results.
    #[error("{}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// The reader's description of the damage.
        #[source]
        source: textreuse_wikidump::Error,
    },
}

impl InputError {
    /// Whether reading went on after this error (damage inside a dump).
    pub fn is_recoverable(&self) -> bool {
        matches!(self, InputError::Damaged { .. })
    }

    /// The input file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::Line { path, .. }
            | InputError::NotUtf8 { path, .. }
            | InputError::Dump { path, .. }
            | InputError::Damaged { path, .. } => path,
        }
    }
}

#[derive(Deserialize)]
struct JsonDocument {
    id: u64,
    #[serde(default)]
    title: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    paragraphs: Option<Vec<JsonParagraph>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum JsonParagraph {
    Text(String),
    Object { text: String },
}

/// Whether `path` is read as JSON Lines (its name ends in `.jsonl`).
pub fn is_json_lines(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"))
}

/// Parses one JSON Lines record into a document; the error is the one-line cause.
pub fn parse_json_document(line: &str) -> Result<Document, String> {
    let doc: JsonDocument = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let text = match (doc.text, doc.paragraphs) {
        (Some(text), _) => text,
        (None, Some(paragraphs)) => {
            let mut text = String::new();
            for p in paragraphs {
                let t = match p {
                    JsonParagraph::Text(t) | JsonParagraph::Object { text: t } => t,
                };
                if !text.is_empty() {
                    text.push_str("\n\n");
                }
                text.push_str(&t);
            }
            text
        }
        (None, None) => return Err("the object has neither \"text\" nor \"paragraphs\"".into()),
    };
    Ok(Document {
        id: doc.id,
        title: doc.title,
        text,
    })
}

/// The documents of a JSON Lines file, in order (made by [`JsonLines::open`]).
///
/// The iterator yields `Err` for an unreadable or malformed line (the error names the file and
/// line) and then ends.
#[derive(Debug)]
pub struct JsonLines {
    path: PathBuf,
    reader: BufReader<File>,
    line_no: u64,
    buf: String,
    failed: bool,
}

impl JsonLines {
    /// Opens `path`.
    pub fn open(path: &Path) -> Result<JsonLines, InputError> {
        let file = File::open(path).map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(JsonLines {
            path: path.to_path_buf(),
            reader: BufReader::with_capacity(1 << 16, file),
            line_no: 0,
            buf: String::new(),
            failed: false,
        })
    }
}

impl Iterator for JsonLines {
    type Item = Result<Document, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            self.buf.clear();
            self.line_no += 1;
            match self.reader.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(source) => {
                    self.failed = true;
                    return Some(Err(InputError::Line {
                        path: self.path.clone(),
                        line: self.line_no,
                        message: format!("cannot read line: {source}"),
                    }));
                }
            }
            let line = self.buf.trim();
            if line.is_empty() {
                continue;
            }
            let doc = parse_json_document(line).map_err(|cause| InputError::Line {
                path: self.path.clone(),
                line: self.line_no,
                message: format!("not a document object {{\"id\",\"title\",\"text\"}}: {cause}"),
            });
            self.failed = doc.is_err();
            return Some(doc);
        }
    }
}

impl std::iter::FusedIterator for JsonLines {}

/// Reads a plain-text file as one document with the given id.
pub fn read_plain(path: &Path, id: u64) -> Result<Document, InputError> {
    let bytes = std::fs::read(path).map_err(|source| InputError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut text = String::from_utf8(bytes).map_err(|e| InputError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to() as u64,
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    let title = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Document { id, title, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_forms() {
        let d = parse_json_document(r#"{"id": 3, "title": "T", "text": "Hi."}"#).unwrap();
        assert_eq!((d.id, d.title.as_str(), d.text.as_str()), (3, "T", "Hi."));
        let d = parse_json_document(
            r#"{"id": 4, "title": "P", "paragraphs": [{"section": "", "text": "A."}, "B."]}"#,
        )
        .unwrap();
        assert_eq!(d.text, "A.\n\nB.");
        assert!(parse_json_document(r#"{"id": 5}"#).is_err());
        assert!(parse_json_document(r#"{"title": "no id", "text": ""}"#).is_err());
    }

    #[test]
    fn files_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let txt = dir.path().join("My Doc.txt");
        std::fs::write(&txt, "\u{feff}Plain text.").unwrap();
        let jsonl = dir.path().join("docs.jsonl");
        std::fs::write(
            &jsonl,
            "{\"id\": 9, \"text\": \"x\"}\n\n{\"id\": 10, \"text\": \"y\"}\n",
        )
        .unwrap();
        let docs: Vec<Document> = JsonLines::open(&jsonl)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let ids: Vec<u64> = docs.iter().map(|d| d.id).collect();
        assert_eq!(ids, [9, 10]);
        let plain = read_plain(&txt, 2).unwrap();
        assert_eq!(plain.title, "My Doc");
        assert_eq!(plain.text, "Plain text.");

        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, "{\"id\": 1, \"text\": \"ok\"}\n{oops\n").unwrap();
        let mut it = JsonLines::open(&bad).unwrap();
        assert!(it.next().unwrap().is_ok());
        let err = it.next().unwrap().unwrap_err().to_string();
        assert!(err.contains("bad.jsonl:2"), "{err}");
        assert!(it.next().is_none());

        let err = JsonLines::open(&dir.path().join("missing.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing.jsonl"), "{err}");
        std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9").unwrap();
        let err = read_plain(&dir.path().join("latin1.txt"), 1).unwrap_err();
        assert!(
            matches!(err, InputError::NotUtf8 { offset: 3, .. }),
            "{err}"
        );
    }
}
