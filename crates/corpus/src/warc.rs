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
//!
//! HTML records also give the page's links ([`Document::links`]): the `href` of each `<a>` and
//! `<area>`, resolved against the page's `<base href>` or else its target URI, `http` and
//! `https` only, fragments removed, each distinct target once, bounded by [`MAX_LINKS`] and
//! [`MAX_LINK_LEN`]. WET `conversion` and `text/plain` records carry no links (`None`).
use std::io::{BufRead, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use warc::{RecordIter, RecordType, WarcHeader, WarcReader};

use crate::input::{DocId, Document, InputError, Link, MAX_LINK_LEN, MAX_LINKS, Origin};

/// What a [`Tracked`] reader has consumed: the byte count, and whether a byte other than
/// whitespace was consumed since the last record boundary ([`Consumed::mark`]).
#[derive(Debug, Default)]
struct Consumed {
    bytes: AtomicU64,
    /// Offset of the first non-whitespace byte since the mark, plus one (0: none): where the
    /// record being read starts.
    first_stray: AtomicU64,
    /// Whether a byte other than whitespace was seen since the mark (until then, whitespace is
    /// skipped).
    inside: AtomicBool,
}

/// A reader that notes what the WARC parser consumed. The parser (the `warc` crate) ends its
/// iteration without an error when the input ends inside a record's header, or with bytes that
/// never form one; comparing what was consumed after the last whole record tells those apart
/// from a clean end. Between records (and before the first) it skips whitespace, which the
/// parser would take for an empty, broken record header when it forms a line of its own (a
/// blank line after the last record).
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
        while !self.consumed.inside.load(Ordering::Relaxed) {
            let (blank, len) = {
                let buf = self.inner.fill_buf()?;
                let blank = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
                (blank, buf.len())
            };
            if len == 0 {
                break;
            }
            self.consume(blank);
            if blank < len {
                self.consumed.inside.store(true, Ordering::Relaxed);
            }
        }
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
        self.inside.store(false, Ordering::Relaxed);
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
                    let total = self.consumed.bytes.load(Ordering::Relaxed);
                    let start = match self.consumed.first_stray.load(Ordering::Relaxed) {
                        0 => total,
                        stray => stray - 1,
                    };
                    return Some(Err(InputError::Line {
                        path: self.path.clone(),
                        line: self.record + 1,
                        message: format!(
                            "WARC record {}: {} (the record starting at byte {start}, read up \
                             to byte {total}, decompressed); the rest of the file is skipped",
                            self.record + 1,
                            describe(&e)
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
            let html = match record.warc_type() {
                RecordType::Response if content_type.starts_with("application/http") => {
                    http_html(record.body())
                }
                RecordType::Resource if content_type.starts_with("text/html") => {
                    Some(String::from_utf8_lossy(record.body()).into_owned())
                }
                _ => None,
            };
            if let Some(html) = &html {
                let shape = html_shape(html);
                let why = if shape.depth > MAX_HTML_DEPTH {
                    Some(format!(
                        "HTML nested {} elements deep, more than {MAX_HTML_DEPTH}: the page is \
                         skipped (so deep a page is damaged or hostile, and extracting it could \
                         exhaust the stack)",
                        shape.depth
                    ))
                } else if shape.work > MAX_HTML_WORK {
                    Some(format!(
                        "HTML of {} elements nested {} deep on average, more than the extraction \
                         budget ({MAX_HTML_WORK} element levels, a few seconds): the page is \
                         skipped",
                        shape.elements,
                        shape.work / shape.elements.max(1)
                    ))
                } else {
                    None
                };
                if let Some(why) = why {
                    // Reported and skipped; the records after it are read.
                    return Some(Err(InputError::Line {
                        path: self.path.clone(),
                        line: self.record,
                        message: format!(
                            "WARC record {} ({}): {why}",
                            self.record,
                            uri.as_deref().unwrap_or("no URI")
                        ),
                    }));
                }
            }

            let (text, links) = match record.warc_type() {
                RecordType::Conversion => (
                    Some(String::from_utf8_lossy(record.body()).into_owned()),
                    None,
                ),
                RecordType::Response | RecordType::Resource if html.is_some() => {
                    match html.as_deref().map(|h| main_content(h, uri.as_deref())) {
                        Some((text, links)) => (Some(text), Some(links)),
                        None => (None, None),
                    }
                }
                RecordType::Resource if content_type.starts_with("text/plain") => (
                    Some(String::from_utf8_lossy(record.body()).into_owned()),
                    None,
                ),
                _ => (None, None),
            };
            let Some(text) = text else { continue };
            let id = record.warc_id().to_string();
            let url = uri.as_deref().map(Arc::from);
            return Some(Ok(Document {
                title: uri.unwrap_or_else(|| id.clone()),
                id: DocId::Str(id.into()),
                text,
                origin: Origin {
                    source: Some(self.source.clone()),
                    record: Some(self.record),
                    revision: None,
                    timestamp: Some(record.date().to_rfc3339().into()),
                    url,
                },
                links,
            }));
        }
        None
    }
}

/// What is wrong with a record, in our words (the parser's are terse: "Error parsing
/// headers.").
fn describe(e: &warc::Error) -> String {
    match e {
        warc::Error::ParseHeaders(_) => {
            "its header is not a WARC header (it must start with a `WARC/1.x` line, then \
             `Name: value` lines and a blank line)"
                .to_string()
        }
        warc::Error::MissingHeader(h) => {
            format!("it has no `{h}` header, which every WARC record must have")
        }
        warc::Error::MalformedHeader(h, why) => format!("its `{h}` header is malformed: {why}"),
        warc::Error::ReadData(io) => format!("reading it failed: {io}"),
        warc::Error::ReadOverflow => {
            "its body does not end where its Content-Length says (a damaged header or body)"
                .to_string()
        }
        warc::Error::UnexpectedEOB => {
            "the input ends inside its body (the file is cut)".to_string()
        }
    }
}

/// The deepest element nesting an HTML page may have to be extracted: real pages stay within a
/// few dozen levels; the HTML parser and Readability recurse per level (100,000 unclosed `<b>`
/// overflowed the stack) and take quadratic time in nested `<div>`s (20,000 levels: 52 s).
pub(crate) const MAX_HTML_DEPTH: usize = 1024;

/// The extraction budget of one page, in element levels: the sum over its elements of the
/// depth each is nested at ([`HtmlShape::work`]). Readability's time grows with it: 100,000
/// elements in runs nested 1,000 deep (50 million levels) took 11.8 s on a 2-core VM, about 4
/// million levels a second, while 200,000 flat paragraphs (10 MB, 400,000 levels) took 0.4 s.
/// A heavy real page (50,000 elements 30 deep) is 1.5 million; the budget, 10 million, bounds
/// a page at about 2.5 s on that machine. A budget of work, not of wall time, so that which
/// pages are skipped does not depend on the machine or its load: the same input gives the same
/// output everywhere.
pub(crate) const MAX_HTML_WORK: usize = 10_000_000;

/// What [`html_shape`] estimates of a page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HtmlShape {
    /// The deepest nesting.
    pub depth: usize,
    /// Elements that nest (start tags not void, not self-closing, not optional-end).
    pub elements: usize,
    /// The sum over those elements of the depth each opens at: the extraction's work.
    pub work: usize,
}

/// An estimate of the element nesting of `html`; see [`html_shape`].
#[cfg(test)]
pub(crate) fn html_depth(html: &str) -> usize {
    html_shape(html).depth
}

/// An estimate of the element nesting of `html`, and of the work of extracting it
/// ([`HtmlShape`]), from its tags alone (no parse), meant never to
/// fall far below what the HTML parser builds: start tags open a level, except void elements,
/// self-closing tags in SVG and MathML (HTML ignores the slash: `<b/>` is `<b>`), and the elements
/// whose end tags are optional (`p`, `li`, `td`, ...: an unclosed one does not nest); a start tag
/// that ends SVG or MathML content (`<b>`, `<div>`, ...) closes it, as in the parser; an end tag closes the open elements down to the one it names, as
/// the parser does, and is ignored like the parser ignores it: when no such element is open
/// among the last [`END_TAG_REACH`], or when a special element (`div`, `table`, ...) stands
/// before it for the end tag of an ordinary element (`</span>`, `</b>`; for `</div>` and other
/// special ones, a scope boundary such as `table`); `</form>` takes the form alone off the stack.
/// So end tags that close nothing (`<b></x>` repeated) do not hide nesting. Comments (to `-->`
/// or `--!>`), declarations and the contents of HTML `script` and `style` elements are skipped.
pub(crate) fn html_shape(html: &str) -> HtmlShape {
    const FLAT: &[&str] = &[
        // void elements
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
        "source", "track", "wbr", "keygen", "command", "basefont", "frame", "isindex",
        // elements whose end tag may be omitted
        "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "thead", "tbody", "tfoot",
        "colgroup", "caption", "rb", "rt", "rp", "rtc", "html", "head", "body",
    ];
    // The HTML standard's "special" elements that the stack can hold: the parser does not close
    // them for the end tag of an ordinary element.
    const SPECIAL: &[&str] = &[
        // HTML
        "address",
        "applet",
        "article",
        "aside",
        "bgsound",
        "blockquote",
        "button",
        "center",
        "details",
        "dir",
        "div",
        "dl",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "iframe",
        "listing",
        "main",
        "marquee",
        "menu",
        "nav",
        "noembed",
        "noframes",
        "noscript",
        "object",
        "ol",
        "plaintext",
        "pre",
        "script",
        "search",
        "section",
        "select",
        "style",
        "summary",
        "table",
        "template",
        "textarea",
        "title",
        "ul",
        "xmp",
        // SVG and MathML
        "foreignobject",
        "desc",
        "mi",
        "mo",
        "mn",
        "ms",
        "mtext",
        "annotation-xml",
    ];
    // Elements that bound the scope in which the end tag of a special element finds its element.
    const SCOPE: &[&str] = &["applet", "marquee", "object", "table", "template", "html"];
    // Start tags that end SVG and MathML content: the parser closes the `svg` or `math` element
    // and takes them as HTML.
    const BREAKOUT: &[&str] = &[
        "b",
        "big",
        "blockquote",
        "body",
        "br",
        "center",
        "code",
        "dd",
        "div",
        "dl",
        "dt",
        "em",
        "embed",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "hr",
        "i",
        "img",
        "li",
        "listing",
        "menu",
        "meta",
        "nobr",
        "ol",
        "p",
        "pre",
        "ruby",
        "s",
        "small",
        "span",
        "strong",
        "strike",
        "sub",
        "sup",
        "table",
        "tt",
        "u",
        "ul",
        "var",
        "font",
    ];
    // Elements of SVG and MathML whose content is HTML again.
    const INTEGRATION: &[&str] = &[
        "foreignobject",
        "desc",
        "title",
        "mi",
        "mo",
        "mn",
        "ms",
        "mtext",
        "annotation-xml",
    ];
    let bytes = html.as_bytes();
    let mut open: Vec<String> = Vec::new();
    // Where SVG or MathML content starts (true: an `svg` or `math` element) or HTML content starts
    // again inside it (false: an integration point), as indices into `open`.
    let mut contexts: Vec<(usize, bool)> = Vec::new();
    let mut shape = HtmlShape::default();
    let mut i = 0usize;
    while let Some(off) = memchr::memchr(b'<', &bytes[i..]) {
        i += off + 1;
        let rest = &bytes[i..];
        if rest.starts_with(b"!--") {
            // A comment ends at the first `-->` or `--!>`.
            let end =
                |pat: &[u8]| memchr::memmem::find(&bytes[i..], pat).map(|e| i + e + pat.len());
            i = match (end(b"-->"), end(b"--!>")) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).unwrap_or(bytes.len()),
            };
            continue;
        }
        let closing = rest.first() == Some(&b'/');
        let start = usize::from(closing);
        let name_len = rest[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
            .count();
        if name_len == 0 || !rest[start].is_ascii_alphabetic() {
            continue;
        }
        let name = html[i + start..i + start + name_len].to_ascii_lowercase();
        let end = memchr::memchr(b'>', &bytes[i..]).map_or(bytes.len(), |e| i + e);
        let self_closing = end > i && bytes[end - 1] == b'/';
        i = end.min(bytes.len());
        let foreign = contexts.last().filter(|c| c.1).map(|c| c.0);
        if closing {
            if FLAT.contains(&name.as_str()) {
                continue;
            }
            let special = SPECIAL.contains(&name.as_str());
            let blocks = |e: &str| {
                if special {
                    SCOPE.contains(&e)
                } else {
                    SPECIAL.contains(&e)
                }
            };
            let found = open
                .iter()
                .rev()
                .take(END_TAG_REACH)
                .position(|e| *e == name || blocks(e))
                .map(|k| open.len() - 1 - k)
                .filter(|&at| open[at] == name);
            if let Some(at) = found {
                if name == "form" {
                    open.remove(at);
                    for c in &mut contexts {
                        c.0 -= usize::from(c.0 > at);
                    }
                } else {
                    open.truncate(at);
                    while contexts.last().is_some_and(|c| c.0 >= at) {
                        contexts.pop();
                    }
                }
            }
            continue;
        }
        if let Some(root) = foreign {
            if BREAKOUT.contains(&name.as_str()) {
                // Out of SVG or MathML, then an HTML start tag.
                open.truncate(root);
                while contexts.last().is_some_and(|c| c.0 >= root) {
                    contexts.pop();
                }
            } else if self_closing {
                // Self-closing tags close only in SVG and MathML (HTML ignores the slash).
                continue;
            }
        }
        if FLAT.contains(&name.as_str()) {
            continue;
        }
        let in_foreign = contexts.last().is_some_and(|c| c.1);
        if name == "svg" || name == "math" {
            contexts.push((open.len(), true));
        } else if in_foreign && INTEGRATION.contains(&name.as_str()) {
            contexts.push((open.len(), false));
        }
        // `script` and `style` hold raw text in HTML (in SVG they are elements like any other).
        let raw_text = !in_foreign && (name == "script" || name == "style");
        open.push(name);
        shape.depth = shape.depth.max(open.len());
        shape.elements += 1;
        shape.work = shape.work.saturating_add(open.len());
        if raw_text {
            // Raw text up to the matching end tag (found without copying the rest).
            let name = open.last().map(String::as_bytes).unwrap_or_default();
            let mut at = i;
            i = loop {
                match memchr::memmem::find(&bytes[at..], b"</") {
                    None => break bytes.len(),
                    Some(e) => {
                        let tag = at + e + 2;
                        if bytes[tag..]
                            .get(..name.len())
                            .is_some_and(|t| t.eq_ignore_ascii_case(name))
                        {
                            break at + e;
                        }
                        at = tag;
                    }
                }
            };
        }
    }
    shape
}

/// How far down the open elements [`html_depth`] looks for the element an end tag closes: a
/// bound on the work per tag. An end tag whose element is deeper is taken to close nothing, which
/// can only overestimate.
const END_TAG_REACH: usize = 64;

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

/// The main content of an HTML page (Readability), paragraphs separated by blank lines (the
/// whole page's text when no main content is found), and the page's links ([`page_links`]).
fn main_content(html: &str, url: Option<&str>) -> (String, Vec<Link>) {
    // A URL Readability cannot use (not absolute) is left out rather than failing the page.
    // Formatted text keeps the blocks (paragraphs, headings, list items) apart.
    let config = || dom_smoothie::Config {
        text_mode: dom_smoothie::TextMode::Formatted,
        ..dom_smoothie::Config::default()
    };
    let readability = dom_smoothie::Readability::new(html, url, Some(config()))
        .or_else(|_| dom_smoothie::Readability::new(html, None, Some(config())));
    let Ok(mut readability) = readability else {
        return (String::new(), Vec::new());
    };
    // Before `parse`, which strips the page down to its main content.
    let links = page_links(&readability, url);
    let text = match readability.parse() {
        Ok(article) => article.text_content.to_string(),
        // No main content found: the page's whole text.
        Err(_) => dom_smoothie::Readability::new(html, None, None)
            .map(|r| r.doc.select("body").text().to_string())
            .unwrap_or_default(),
    };
    (paragraphs(&text), links)
}

/// The links of a parsed page: the `href` of every `<a>` and `<area>`, resolved against the
/// first `<base href>` (itself resolved against `address`), else against `address`; only `http` and
/// `https` targets, without their fragment, each once. Links to other hosts come first (in
/// document order), then links within the page's own host, at most [`MAX_LINKS`] in all;
/// targets longer than [`MAX_LINK_LEN`] are left out. A page without an absolute address
/// keeps only its absolute links.
fn page_links(readability: &dom_smoothie::Readability, address: Option<&str>) -> Vec<Link> {
    let doc = &readability.doc;
    let page = address.and_then(|u| url::Url::parse(u).ok());
    let base = doc
        .select("base[href]")
        .nodes()
        .first()
        .and_then(|b| b.attr("href"))
        .and_then(|href| match &page {
            Some(p) => p.join(href.trim()).ok(),
            None => url::Url::parse(href.trim()).ok(),
        })
        .or_else(|| page.clone());
    let own_host = page.as_ref().and_then(|p| p.host_str().map(str::to_owned));
    // Two lists, each bounded by MAX_LINKS (with its set of seen targets), so that a page of a
    // million links holds at most 2 * MAX_LINKS targets at once.
    let (mut other, mut own): (Vec<Link>, Vec<Link>) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for node in doc.select("a[href], area[href]").nodes() {
        if other.len() >= MAX_LINKS {
            break;
        }
        let Some(href) = node.attr("href") else {
            continue;
        };
        let href = href.trim();
        if href.is_empty() || href.starts_with('#') || href.len() > MAX_LINK_LEN {
            continue;
        }
        let target = match &base {
            Some(b) => b.join(href),
            None => url::Url::parse(href),
        };
        let Ok(mut target) = target else { continue };
        if !matches!(target.scheme(), "http" | "https") {
            continue;
        }
        target.set_fragment(None);
        let mine = own_host.is_some() && target.host_str() == own_host.as_deref();
        let target = String::from(target);
        if target.len() > MAX_LINK_LEN {
            continue;
        }
        if mine && own.len() >= MAX_LINKS {
            continue;
        }
        if seen.insert(target.clone()) {
            if mine {
                own.push(Link::new(target));
            } else {
                other.push(Link::new(target));
            }
        }
    }
    let room = MAX_LINKS - other.len();
    other.extend(own.into_iter().take(room));
    other
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
    fn blank_lines_between_and_after_records_are_no_damage() {
        // corpus_warc_framing: "\r\n" after the last record was read as an empty record header
        // ("Error parsing headers"), while " \n" was not.
        assert!(read(b"\r\n".to_vec()).is_empty());
        // A blank line before every record and two after the last.
        let whole = pages();
        let mut spaced = Vec::new();
        for (i, b) in whole.iter().enumerate() {
            if whole[i..].starts_with(b"WARC/1.0\r\n") {
                spaced.extend_from_slice(b"\r\n");
            }
            spaced.push(*b);
        }
        spaced.extend_from_slice(b"\r\n \t\r\n");
        let docs = read(spaced);
        assert_eq!(docs.len(), 2, "{docs:?}");
        assert!(docs.iter().all(Result::is_ok), "{docs:?}");
    }

    #[test]
    fn errors_of_the_record_parser_name_a_byte_offset() {
        let whole = pages();
        let last = whole
            .windows(9)
            .rposition(|w| w == b"WARC/1.0\r")
            .expect("a last record");
        // Cut inside the last record's body.
        let cut = whole.len() - 10;
        let docs = read(whole[..cut].to_vec());
        let err = docs.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(
            err.contains(&format!("record starting at byte {last}")),
            "{err}"
        );
        assert!(err.contains(&format!("up to byte {cut}")), "{err}");
        // A header block that does not parse.
        let mut damaged = whole[..last].to_vec();
        damaged.extend_from_slice(b"WARC/1.0\r\nno colon\r\n\r\n");
        let docs = read(damaged);
        let err = docs.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(
            err.contains(&format!("record starting at byte {last}")),
            "{err}"
        );
        // ... and say what is wrong in our words (the parser's: "Error parsing headers.",
        // "Unexpected end of body.").
        assert!(err.contains("not a WARC header"), "{err}");
        let docs = read(whole[..cut].to_vec());
        let err = docs.last().unwrap().as_ref().unwrap_err().to_string();
        assert!(err.contains("ends inside its body"), "{err}");
    }

    /// testdata/warc/hostile.warc.gz (issue #51, defects 8 and 9): 100,000 unclosed `<b><i>`
    /// (the stack overflow that aborted whole runs), 30,000 nested tables, 20,000 nested
    /// `<div>`s (52 s of quadratic extraction), 100 runs of 1,000 nested `<div>`s (within the
    /// depth limit, 50 million element levels: 11.8 s), then a fine page. Each hostile page is
    /// reported and skipped, before extraction; the fine page is read.
    #[test]
    fn hostile_pages_are_reported_and_skipped_before_extraction() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/warc/hostile.warc.gz"
        );
        let reader: Box<dyn BufRead + Send> = Box::new(std::io::BufReader::new(
            flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap()),
        ));
        let docs: Vec<_> = WarcDocs::new(std::path::Path::new(path), reader).collect();
        assert_eq!(docs.len(), 5);
        let errors: Vec<String> = docs[..4]
            .iter()
            .map(|d| d.as_ref().unwrap_err().to_string())
            .collect();
        assert!(errors[0].contains("200000 elements deep"), "{}", errors[0]);
        assert!(errors[1].contains("30000 elements deep"), "{}", errors[1]);
        assert!(errors[2].contains("20000 elements deep"), "{}", errors[2]);
        assert!(errors[3].contains("extraction budget"), "{}", errors[3]);
        assert!(
            errors[3].contains("100000 elements nested 500 deep"),
            "{}",
            errors[3]
        );
        assert!(docs[4].as_ref().unwrap().text.contains("great wheel"));
    }

    #[test]
    fn html_shape_sums_the_levels_elements_open_at() {
        let runs = format!("{}{}", "<div>".repeat(1000), "</div>".repeat(1000)).repeat(100);
        let shape = html_shape(&runs);
        assert_eq!((shape.depth, shape.elements), (1000, 100_000));
        assert_eq!(shape.work, 100 * 1000 * 1001 / 2);
        let flat = "<p>text</p>".repeat(200_000);
        assert_eq!(html_shape(&flat).work, 0, "paragraphs do not nest");
        let divs = "<div>text</div>".repeat(200_000);
        assert_eq!(html_shape(&divs).work, 200_000);
    }

    #[test]
    fn html_depth_counts_nesting_not_tags() {
        assert_eq!(
            html_depth("<html><body><div><p>a<p>b</div></body></html>"),
            1
        );
        assert_eq!(html_depth("<div><div><span>x</span></div></div>"), 3);
        assert_eq!(html_depth("<ul><li>a<li>b<li>c</ul><br><img src=x/>"), 1);
        assert_eq!(
            html_depth("<!-- <div><div> --><script>if (a<b) '<div>'</script>"),
            1
        );
        assert_eq!(html_depth(&"<b><i>".repeat(1000)), 2000);
        assert_eq!(html_depth(&"<table><tr><td>".repeat(300)), 300);
        assert_eq!(html_depth("<div>x</div>".repeat(5000).as_str()), 1);
        // A misnested end tag closes the elements it skips, as the parser does.
        assert_eq!(html_depth(&"<div><span>x</div>".repeat(1000)), 2);
        assert_eq!(html_depth(&"<p><b><i>x</b></i>".repeat(1000)), 2);
    }

    #[test]
    fn end_tags_that_close_nothing_do_not_hide_nesting() {
        // corpus_html_depth: each `</x>` took one level off the estimate although the parser
        // ignores it, so 10,001 nested <b> were estimated 1 deep and extracted (7 s; 65,026 of
        // them ran for minutes, quadratic in the parser).
        assert_eq!(html_depth(&"<b></x>".repeat(10_001)), 10_001);
        // The end tag of an ordinary element does not close a special one, ...
        assert_eq!(html_depth(&"<x><div></x>".repeat(600)), 1200);
        // ... nor the end tag of a formatting element across a block (the parser's adoption
        // agency keeps the block open), ...
        assert_eq!(html_depth(&"<b><div></b>".repeat(600)), 1200);
        // ... nor `</div>` across a table; `</form>` closes the form alone.
        assert_eq!(html_depth(&"<div><table></div>".repeat(600)), 1200);
        assert_eq!(html_depth(&"<form><b></form>".repeat(600)), 601);
    }

    #[test]
    fn self_closing_tags_close_only_in_svg_and_mathml() {
        // corpus_html_depth: `<b/>` is `<b>` to the parser (x<>d<b/> repeated nested 14,403
        // elements deep, estimated 0).
        assert_eq!(html_depth(&"x<>d<b/>".repeat(2000)), 2000);
        // An SVG sprite of many paths stays shallow.
        let sprite = format!("<svg>{}</svg>", "<path d='M0 0'/>".repeat(5000));
        assert_eq!(html_depth(&sprite), 1);
        // `<b>` ends SVG content: the `<x/>` after it are HTML and nest, ...
        assert_eq!(
            html_depth(&format!("<svg><b>{}", "<x/>".repeat(2000))),
            2001
        );
        // ... as do `<b/>` in SVG, ...
        assert_eq!(html_depth(&format!("<svg>{}", "<b/>".repeat(2000))), 2000);
        // ... and tags after a `<style>` in SVG, which holds no raw text there.
        assert_eq!(
            html_depth(&format!("<svg><style>{}", "<b>".repeat(2000))),
            2000
        );
        // Inside foreignObject, content is HTML again.
        let html_in_svg = format!("<svg><foreignObject>{}", "<i/>".repeat(2000));
        assert_eq!(html_depth(&html_in_svg), 2002);
    }

    #[test]
    fn a_comment_ends_at_the_first_of_its_closings() {
        assert_eq!(
            html_depth(&format!("<!-- a --!>{}", "<b>".repeat(2000))),
            2000
        );
        assert_eq!(html_depth(&format!("<!-->{}", "<b>".repeat(2000))), 2000);
        assert_eq!(html_depth("<!-- <b><b> --><i>"), 1);
    }

    /// One plain WARC `resource` record of `text/html`.
    fn html_record(id: u32, html: &str) -> Vec<u8> {
        let mut out = format!(
            "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{id:012}>\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: https://example.org/{id}\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
            html.len()
        )
        .into_bytes();
        out.extend_from_slice(html.as_bytes());
        out.extend_from_slice(b"\r\n\r\n");
        out
    }

    #[test]
    fn a_page_nested_too_deep_is_reported_and_the_next_one_read() {
        let hostile = "<b><i>".repeat(100_000) + "text";
        let fine = "<html><body><article><p>The mill on the river grinds grain.</p></article></body></html>";
        let mut bytes = html_record(1, &hostile);
        bytes.extend(html_record(2, fine));
        let docs = read(bytes);
        assert_eq!(docs.len(), 2);
        let err = docs[0].as_ref().unwrap_err().to_string();
        assert!(err.contains("200000 elements deep"), "{err}");
        assert!(docs[1].as_ref().unwrap().text.contains("grinds grain"));
    }

    /// testdata/web/pages.warc.gz: 14 real pages (testdata/web/README.md). Their links are
    /// resolved (protocol-relative, root-relative, `&amp;`), fragments dropped, distinct.
    #[test]
    fn links_of_real_pages() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/web/pages.warc.gz"
        );
        let reader: Box<dyn BufRead + Send> = Box::new(std::io::BufReader::new(
            flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap()),
        ));
        let docs: Vec<Document> = WarcDocs::new(std::path::Path::new(path), reader)
            .map(Result::unwrap)
            .collect();
        assert_eq!(docs.len(), 14);
        let (mut text, mut links, mut count) = (0, 0, 0);
        for d in &docs {
            let l = d.links.as_ref().expect("HTML records have links");
            assert!(l.len() <= MAX_LINKS);
            let distinct: std::collections::HashSet<_> = l.iter().map(|l| &l.target).collect();
            assert_eq!(distinct.len(), l.len(), "{}", d.title);
            assert!(l.iter().all(|l| {
                (l.target.starts_with("http://") || l.target.starts_with("https://"))
                    && !l.target.contains('#')
                    && l.span.is_none()
            }));
            text += d.text.len();
            links += l.iter().map(|l| l.target.len() + 4).sum::<usize>();
            count += l.len();
        }
        let wiki = &docs[0];
        assert_eq!(
            wiki.origin.url.as_deref(),
            Some("http://en.wikipedia.org/wiki/Now_and_Then,_Here_and_There")
        );
        let targets: Vec<&str> = wiki
            .links
            .as_ref()
            .unwrap()
            .iter()
            .map(|l| l.target.as_str())
            .collect();
        // `//en.m.wikipedia.org/...` and `/w/index.php?...&amp;action=edit` resolved.
        assert!(targets.contains(&"http://en.m.wikipedia.org/wiki/Now_and_Then,_Here_and_There"));
        assert!(targets.contains(
            &"http://en.wikipedia.org/w/index.php?title=Now_and_Then,_Here_and_There&action=edit"
        ));
        // Links to other hosts first.
        let first_own = targets
            .iter()
            .position(|t| t.starts_with("http://en.wikipedia.org/"));
        let last_other = targets
            .iter()
            .rposition(|t| !t.starts_with("http://en.wikipedia.org/"));
        assert!(last_other < first_own, "{targets:?}");
        // The blog post links to three articles of the English Wikipedia.
        let blog = docs
            .iter()
            .find(|d| d.title == "http://dcurt.is/voice-interfaces")
            .unwrap();
        let wikipedia: Vec<&str> = blog
            .links
            .as_ref()
            .unwrap()
            .iter()
            .map(|l| l.target.as_str())
            .filter(|t| t.contains("wikipedia.org"))
            .collect();
        assert_eq!(
            wikipedia,
            [
                "http://en.wikipedia.org/wiki/Joseph_Swan",
                "http://en.wikipedia.org/wiki/Thomas_Edison",
                "http://en.wikipedia.org/wiki/Hiram_Maxim"
            ]
        );
        eprintln!("{count} links, {links} bytes stored for {text} bytes of text");
    }

    #[test]
    fn a_page_of_a_million_links_keeps_at_most_max_links() {
        let mut html = String::from("<html><body><article><p>The mill grinds grain.</p>");
        for i in 0..200_000 {
            html.push_str(&format!("<a href=\"/p{i}\">x</a>"));
        }
        html.push_str("<a href=\"https://en.wikipedia.org/wiki/Mill\">w</a>");
        html.push_str("<a href=\"javascript:void(0)\">j</a><a href=\"mailto:a@b.c\">m</a>");
        html.push_str("</article></body></html>");
        let docs = read(html_record(1, &html));
        let links = docs[0].as_ref().unwrap().links.clone().unwrap();
        assert_eq!(links.len(), MAX_LINKS);
        // The one link to another host comes first although it is the last in the page.
        assert_eq!(links[0].target, "https://en.wikipedia.org/wiki/Mill");
        assert_eq!(links[1].target, "https://example.org/p0");
    }

    #[test]
    fn base_href_and_wet_records() {
        let html = "<html><head><base href=\"https://cdn.example.net/docs/\"></head><body>\
                    <p>The mill on the river grinds grain every day of the week.</p>\
                    <a href=\"a.html#top\">a</a><a href=\"#x\">x</a><a href=\"a.html\">again</a>\
                    </body></html>";
        let docs = read(html_record(2, html));
        let links = docs[0].as_ref().unwrap().links.clone().unwrap();
        assert_eq!(links, [Link::new("https://cdn.example.net/docs/a.html")]);
        // The conversion record of pages.warc.gz (WET) has no links: not known, not none.
        let docs = read(pages());
        assert_eq!(docs[1].as_ref().unwrap().links, None);
        assert!(docs[0].as_ref().unwrap().links.is_some());
    }

    #[test]
    fn paragraphs_are_separated_by_one_blank_line() {
        assert_eq!(paragraphs("  a \n b\n\n\n\n c  \n"), "a b\n\nc");
        assert_eq!(paragraphs("\n\n"), "");
    }
}
