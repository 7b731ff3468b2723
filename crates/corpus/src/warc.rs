//! WARC and WET inputs (the web archives Common Crawl ships, gzip-compressed record by record):
//! one document per record that carries text.
//!
//! * `conversion` records (WET files: the text Common Crawl extracted) are taken as they are;
//! * `response` records holding an HTTP response with an HTML body get the page's main content,
//!   extracted by a Readability port (`dom_smoothie`), paragraphs separated by blank lines;
//! * `resource` records of `text/plain` or `text/html` likewise;
//! * other records (`warcinfo`, `request`, `metadata`, `revisit`, non-HTML responses) are
//!   skipped.
//!
//! A document's id is its `WARC-Record-ID`, its title the `WARC-Target-URI` (else the id), its
//! origin the file and the record's 1-based number in it, with the record's date as timestamp.
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;

use warc::{RecordIter, RecordType, WarcHeader, WarcReader};

use crate::input::{DocId, Document, InputError, Origin};

/// The documents of one WARC or WET stream.
pub(crate) struct WarcDocs {
    path: PathBuf,
    source: Arc<str>,
    records: RecordIter<Box<dyn BufRead + Send>>,
    /// Records read so far.
    record: u64,
    /// Set after an error the stream cannot be read past.
    done: bool,
}

impl std::fmt::Debug for WarcDocs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarcDocs")
            .field("path", &self.path)
            .field("record", &self.record)
            .finish()
    }
}

impl WarcDocs {
    pub(crate) fn new(path: &std::path::Path, reader: Box<dyn BufRead + Send>) -> WarcDocs {
        WarcDocs {
            path: path.to_path_buf(),
            source: path.to_string_lossy().into(),
            records: WarcReader::new(reader).iter_records(),
            record: 0,
            done: false,
        }
    }
}

impl Iterator for WarcDocs {
    type Item = Result<Document, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let record = match self.records.next()? {
                Ok(r) => r,
                Err(e) => {
                    // The reader cannot resynchronize inside a damaged stream: report and stop.
                    self.done = true;
                    return Some(Err(InputError::Line {
                        path: self.path.clone(),
                        line: self.record + 1,
                        message: format!(
                            "WARC record {}: {e}; the rest of the file is skipped",
                            self.record + 1
                        ),
                    }));
                }
            };
            self.record += 1;
            let content_type = record
                .header(WarcHeader::ContentType)
                .map(|c| c.to_ascii_lowercase())
                .unwrap_or_default();
            let uri = record.header(WarcHeader::TargetURI).map(|u| u.into_owned());
            let text = match record.warc_type() {
                RecordType::Conversion => Some(String::from_utf8_lossy(record.body()).into_owned()),
                RecordType::Response if content_type.starts_with("application/http") => {
                    http_html(record.body()).map(|html| main_content(&html, uri.as_deref()))
                }
                RecordType::Resource if content_type.starts_with("text/html") => Some(
                    main_content(&String::from_utf8_lossy(record.body()), uri.as_deref()),
                ),
                RecordType::Resource if content_type.starts_with("text/plain") => {
                    Some(String::from_utf8_lossy(record.body()).into_owned())
                }
                _ => None,
            };
            let Some(text) = text else { continue };
            let id = record.warc_id().to_string();
            return Some(Ok(Document {
                title: uri.unwrap_or_else(|| id.clone()),
                id: DocId::Str(id.into()),
                text,
                origin: Origin {
                    source: Some(self.source.clone()),
                    record: Some(self.record),
                    revision: None,
                    timestamp: Some(record.date().to_rfc3339().into()),
                },
            }));
        }
        None
    }
}

/// The body of an HTTP response whose `Content-Type` is HTML, as text (invalid UTF-8 replaced);
/// `None` for other responses.
fn http_html(message: &[u8]) -> Option<String> {
    let end = memchr::memmem::find(message, b"\r\n\r\n")
        .map(|i| (i, i + 4))
        .or_else(|| memchr::memmem::find(message, b"\n\n").map(|i| (i, i + 2)))?;
    let head = String::from_utf8_lossy(&message[..end.0]).to_ascii_lowercase();
    let html = head.lines().any(|l| {
        l.strip_prefix("content-type:")
            .is_some_and(|v| v.trim_start().starts_with("text/html"))
    });
    html.then(|| String::from_utf8_lossy(&message[end.1..]).into_owned())
}

/// The main content of an HTML page (Readability), paragraphs separated by blank lines; the
/// whole page's text when no main content is found.
fn main_content(html: &str, url: Option<&str>) -> String {
    // A URL Readability cannot use (not absolute) is left out rather than failing the page.
    // Formatted text keeps the blocks (paragraphs, headings, list items) apart.
    let config = || dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Formatted,
        ..dom_smoothie::Config::default()
    };
    let readability = dom_smoothie::Readability::new(html, url, Some(config()))
        .or_else(|_| dom_smoothie::Readability::new(html, None, Some(config())));
    let Ok(mut readability) = readability else {
        return String::new();
    };
    let text = match readability.parse() {
        Ok(article) => article.text_content.to_string(),
        // No main content found: the page's whole text.
        Err(_) => dom_smoothie::Readability::new(html, None, None)
            .map(|r| r.doc.select("body").text().to_string())
            .unwrap_or_default(),
    };
    paragraphs(&text)
}

/// Text as paragraphs (blocks separated by blank lines), each on one line with its whitespace
/// collapsed, separated by exactly one blank line.
fn paragraphs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for block in text.split("\n\n") {
        let mut words = block.split_whitespace().peekable();
        if words.peek().is_none() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        for (i, w) in words.enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(w);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_html_needs_an_html_content_type() {
        let ok = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>x</p>";
        assert_eq!(http_html(ok).as_deref(), Some("<p>x</p>"));
        let json = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}";
        assert_eq!(http_html(json), None);
        assert_eq!(http_html(b"no headers"), None);
    }

    #[test]
    fn paragraphs_are_separated_by_one_blank_line() {
        assert_eq!(paragraphs("  a \n b\n\n\n\n c  \n"), "a b\n\nc");
        assert_eq!(paragraphs("\n\n"), "");
    }
}
