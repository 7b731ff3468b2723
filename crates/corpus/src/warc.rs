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
use std::io::{BufRead, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use warc::{RecordIter, RecordType, WarcHeader, WarcReader};

use crate::input::{DocId, Document, InputError, Origin};

/// What a [`Tracked`] reader has consumed: the byte count, and whether a byte other than
/// whitespace was consumed since the last record boundary ([`Tracked::mark`]).
#[derive(Debug, Default)]
struct Consumed {
    bytes: AtomicU64,
    /// Offset of the first non-whitespace byte since the mark, plus one (0: none).
    first_stray: AtomicU64,
}

/// A reader that notes what the WARC parser consumed. The parser (the `warc` crate) ends its
/// iteration without an error when the input ends inside a record's header, or with bytes that
/// never form one; comparing what was consumed after the last whole record tells those apart
/// from a clean end.
struct Tracked<R> {
    inner: R,
    consumed: Arc<Consumed>,
}

impl<R: BufRead> Read for Tracked<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(buf.len());
            buf[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Tracked<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        let at = self.consumed.bytes.load(Ordering::Relaxed);
        if self.consumed.first_stray.load(Ordering::Relaxed) == 0
            && let Ok(buf) = self.inner.fill_buf()
            && let Some(i) = buf[..amt.min(buf.len())]
                .iter()
                .position(|b| !b.is_ascii_whitespace())
        {
            self.consumed
                .first_stray
                .store(at + i as u64 + 1, Ordering::Relaxed);
        }
        self.consumed
            .bytes
            .store(at + amt as u64, Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

impl Consumed {
    /// A record ended here: what follows starts afresh.
    fn mark(&self) {
        self.first_stray.store(0, Ordering::Relaxed);
    }
}

/// The documents of one WARC or WET stream.
pub(crate) struct WarcDocs {
    path: PathBuf,
    source: Arc<str>,
    records: RecordIter<Tracked<Box<dyn BufRead + Send>>>,
    consumed: Arc<Consumed>,
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
        let consumed = Arc::new(Consumed::default());
        let tracked = Tracked {
            inner: reader,
            consumed: Arc::clone(&consumed),
        };
        WarcDocs {
            path: path.to_path_buf(),
            source: path.to_string_lossy().into(),
            records: WarcReader::new(tracked).iter_records(),
            consumed,
            record: 0,
            done: false,
        }
    }

    /// At the parser's end of input: an error if bytes after the last whole record were not
    /// a record (the file was cut inside one, or junk follows the last).
    fn end(&mut self) -> Option<Result<Document, InputError>> {
        self.done = true;
        let stray = self.consumed.first_stray.load(Ordering::Relaxed);
        if stray == 0 {
            return None;
        }
        let total = self.consumed.bytes.load(Ordering::Relaxed);
        Some(Err(InputError::Line {
            path: self.path.clone(),
            line: self.record + 1,
            message: format!(
                "WARC record {}: the input ends inside a record header at byte {total} \
                 (decompressed), or {} bytes from byte {} after the last whole record are not a \
                 WARC record: the file is cut or has junk at its end",
                self.record + 1,
                total + 1 - stray,
                stray - 1
            ),
        }))
    }
}

impl Iterator for WarcDocs {
    type Item = Result<Document, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let Some(next) = self.records.next() else {
                return self.end();
            };
            let record = match next {
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
            self.consumed.mark();
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

    /// The records of testdata/warc/pages.warc.gz, decompressed.
    fn pages() -> Vec<u8> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/warc/pages.warc.gz"
        );
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn read(bytes: Vec<u8>) -> Vec<Result<Document, InputError>> {
        let reader: Box<dyn BufRead + Send> = Box::new(std::io::Cursor::new(bytes));
        WarcDocs::new(std::path::Path::new("t.warc"), reader).collect()
    }

    #[test]
    fn a_whole_file_ends_cleanly() {
        let docs = read(pages());
        assert_eq!(docs.len(), 2, "the HTML response and the conversion record");
        assert!(docs.iter().all(Result::is_ok));
        // Whitespace after the last record is no damage.
        let mut padded = pages();
        padded.extend_from_slice(b" \n");
        assert!(read(padded).iter().all(Result::is_ok));
    }

    #[test]
    fn a_file_cut_inside_a_record_header_is_reported() {
        let whole = pages();
        // Cut inside the header of the last record (the conversion record).
        let last = whole
            .windows(9)
            .rposition(|w| w == b"WARC/1.0\r")
            .expect("a last record");
        let cut = whole[..last + 40].to_vec();
        let docs = read(cut);
        let err = docs.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(err.contains("ends inside a record header"), "{err}");
        assert_eq!(
            docs.iter().filter(|d| d.is_ok()).count(),
            1,
            "the records before it are read"
        );
    }

    #[test]
    fn junk_after_the_last_record_is_reported() {
        let mut junk = pages();
        junk.extend_from_slice(b"<html>not a record</html>\n");
        let docs = read(junk);
        assert_eq!(docs.iter().filter(|d| d.is_ok()).count(), 2);
        let err = docs.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(err.contains("are not a WARC record"), "{err}");
        assert!(err.contains("WARC record 6"), "{err}");
    }

    #[test]
    fn paragraphs_are_separated_by_one_blank_line() {
        assert_eq!(paragraphs("  a \n b\n\n\n\n c  \n"), "a b\n\nc");
        assert_eq!(paragraphs("\n\n"), "");
    }
}
