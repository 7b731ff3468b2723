//! Reading documents from plain-text files and JSON Lines, for every subcommand that takes
//! `FILE...` (sentences, dedup).
//!
//! * A file whose name ends in `.jsonl` holds one JSON object per line: `{"id": <u64>, "title":
//!   <string, optional>, "text": <string>}`, or instead of `text` the `paragraphs` array written
//!   by `textreuse extract` (objects with a `text` field, or plain strings), whose texts are joined
//!   with blank lines so that no sentence crosses a paragraph. Blank lines are skipped.
//! * Any other file is one document: its id is the file's 1-based position in the argument list,
//!   its title the file name without its extension, its text the whole file (UTF-8; a leading
//!   byte-order mark is dropped).
//!
//! Errors name the file, and the line for JSON Lines.
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
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

/// Parses one JSON Lines record into a document.
pub fn parse_json_document(line: &str) -> anyhow::Result<Document> {
    let doc: JsonDocument = serde_json::from_str(line)?;
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
        (None, None) => bail!("the object has neither \"text\" nor \"paragraphs\""),
    };
    Ok(Document {
        id: doc.id,
        title: doc.title,
        text,
    })
}

/// The documents of `paths`, in order; see the [module docs](self) for the formats.
///
/// The iterator yields `Err` for the first unreadable file or malformed line (the message names
/// the file and line) and then ends.
pub fn documents(paths: &[PathBuf]) -> Documents<'_> {
    Documents {
        paths,
        next_path: 0,
        lines: None,
        failed: false,
    }
}

/// Iterator over the documents of a list of files, made by [`documents`].
#[derive(Debug)]
pub struct Documents<'p> {
    paths: &'p [PathBuf],
    next_path: usize,
    lines: Option<JsonLines<'p>>,
    failed: bool,
}

#[derive(Debug)]
struct JsonLines<'p> {
    path: &'p Path,
    reader: BufReader<File>,
    line_no: u64,
    buf: String,
}

impl JsonLines<'_> {
    fn next_document(&mut self) -> Option<anyhow::Result<Document>> {
        loop {
            self.buf.clear();
            self.line_no += 1;
            match self.reader.read_line(&mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => {
                    return Some(Err(anyhow::Error::new(e).context(format!(
                        "{}:{}: cannot read line",
                        self.path.display(),
                        self.line_no
                    ))));
                }
            }
            let line = self.buf.trim();
            if line.is_empty() {
                continue;
            }
            return Some(parse_json_document(line).with_context(|| {
                format!(
                    "{}:{}: not a document object {{\"id\",\"title\",\"text\"}}",
                    self.path.display(),
                    self.line_no
                )
            }));
        }
    }
}

fn read_plain(path: &Path, id: u64) -> anyhow::Result<Document> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: not UTF-8 (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
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

impl Iterator for Documents<'_> {
    type Item = anyhow::Result<Document>;

    fn next(&mut self) -> Option<anyhow::Result<Document>> {
        if self.failed {
            return None;
        }
        loop {
            if let Some(lines) = &mut self.lines {
                match lines.next_document() {
                    Some(Ok(doc)) => return Some(Ok(doc)),
                    Some(Err(e)) => {
                        self.failed = true;
                        return Some(Err(e));
                    }
                    None => self.lines = None,
                }
            }
            let path = self.paths.get(self.next_path)?;
            self.next_path += 1;
            if is_json_lines(path) {
                match File::open(path) {
                    Ok(f) => {
                        self.lines = Some(JsonLines {
                            path,
                            reader: BufReader::with_capacity(1 << 16, f),
                            line_no: 0,
                            buf: String::new(),
                        });
                    }
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(anyhow::Error::new(e)
                            .context(format!("cannot open {}", path.display()))));
                    }
                }
            } else {
                let doc = read_plain(path, self.next_path as u64);
                self.failed = doc.is_err();
                return Some(doc);
            }
        }
    }
}

impl std::iter::FusedIterator for Documents<'_> {}

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
        let paths = vec![jsonl.clone(), txt.clone()];
        let docs: Vec<Document> = documents(&paths).collect::<anyhow::Result<_>>().unwrap();
        let ids: Vec<u64> = docs.iter().map(|d| d.id).collect();
        assert_eq!(ids, [9, 10, 2]);
        assert_eq!(docs[2].title, "My Doc");
        assert_eq!(docs[2].text, "Plain text.");

        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, "{\"id\": 1, \"text\": \"ok\"}\n{oops\n").unwrap();
        let paths = vec![bad];
        let mut it = documents(&paths);
        assert!(it.next().unwrap().is_ok());
        let err = format!("{:#}", it.next().unwrap().unwrap_err());
        assert!(err.contains("bad.jsonl:2"), "{err}");
        assert!(it.next().is_none());

        let missing = vec![dir.path().join("missing.txt")];
        let err = format!("{:#}", documents(&missing).next().unwrap().unwrap_err());
        assert!(err.contains("missing.txt"), "{err}");
    }
}
