//! The streaming page reader.
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::iter::FusedIterator;
use std::path::Path;

use memchr::memmem;

use crate::site::{MAX_SITEINFO_BYTES, SiteInfo};
use crate::source::{self, Bz2Parallel, Bz2Seq, Plain, Source};
use crate::{Error, xml};

/// One page of a dump, as the XML holds it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    /// Page id (`<page><id>`).
    pub id: u64,
    /// Namespace (0 for articles).
    pub ns: i32,
    /// Title, XML entities decoded.
    pub title: String,
    /// Redirect target when the page is a redirect (`<redirect title=".."/>`).
    pub redirect: Option<String>,
    /// Revision id of the revision whose text this is (the last one in the page).
    pub revision_id: Option<u64>,
    /// Revision timestamp as written in the dump (ISO 8601, `2016-08-01T12:00:00Z`).
    pub timestamp: Option<String>,
    /// Wikitext of the revision, XML entities decoded (HTML entities of the wikitext are kept).
    pub text: String,
}

/// Default cap on the size of one `<page>` element: 64 MiB. English Wikipedia limits a revision's
/// wikitext to 2 MiB, so only damage or a history dump reaches it.
pub const DEFAULT_MAX_PAGE_BYTES: usize = 64 << 20;

/// Options for [`DumpReader`]. Defaults: namespace 0 only, no redirects, a 64 MiB page cap, one
/// decompression thread per core.
#[derive(Debug, Clone)]
pub struct ReaderBuilder {
    namespaces: Option<Vec<i32>>,
    redirects: bool,
    max_page_bytes: usize,
    threads: Option<usize>,
    max_memory: Option<u64>,
}

/// The fixed cost of reading a dump under a memory bound
/// ([`ReaderBuilder::max_memory`]): the program (about 8 MiB resident), the sequential bzip2
/// decoder's state (about 4 MiB), the read buffers, the cleaner's tables and the output's
/// buffer.
pub const READER_FIXED_MEMORY: u64 = 16 << 20;

/// Memory a page can take under a memory bound, for every byte of
/// [`ReaderBuilder::max_page_bytes`]: the reader's buffer holds the page's XML, the page its
/// unescaped text, and a cleaner's [`Article`](crate::Article) the cleaned paragraphs.
pub const PAGE_COPIES: u64 = 3;

/// Memory of each decompression thread beyond the first, at most: its bzip2 decoder (about 4
/// MiB) and up to three blocks in flight (the one it decodes, one queued, one waiting for the
/// reader), each with up to 9 MiB of output.
pub const THREAD_MEMORY: u64 = 32 << 20;

impl Default for ReaderBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ReaderBuilder {
    /// The default options.
    #[must_use]
    pub fn new() -> Self {
        ReaderBuilder {
            namespaces: Some(vec![0]),
            redirects: false,
            max_page_bytes: DEFAULT_MAX_PAGE_BYTES,
            threads: None,
            max_memory: None,
        }
    }

    /// Keep only pages in these namespaces; `None` keeps all. Default `Some(&[0])` (articles).
    pub fn namespaces(&mut self, namespaces: Option<&[i32]>) -> &mut Self {
        self.namespaces = namespaces.map(<[i32]>::to_vec);
        self
    }

    /// Whether redirect pages are yielded. Default false.
    pub fn redirects(&mut self, yes: bool) -> &mut Self {
        self.redirects = yes;
        self
    }

    /// Largest `<page>` element read, in decompressed bytes; larger pages are reported as
    /// [`Error::PageTooLarge`] and skipped without being held in memory (they are still
    /// decompressed, a piece at a time). Default [`DEFAULT_MAX_PAGE_BYTES`].
    pub fn max_page_bytes(&mut self, bytes: usize) -> &mut Self {
        self.max_page_bytes = bytes;
        self
    }

    /// Decompression threads for bzip2 input. 1 decodes on the calling thread; more decode
    /// multistream dumps stream by stream and single-stream files block by block, in parallel.
    /// The pages and errors are the same at any setting. Default:
    /// [`std::thread::available_parallelism`].
    pub fn threads(&mut self, threads: usize) -> &mut Self {
        self.threads = Some(threads);
        self
    }

    /// Bounds the reader's peak resident memory (with the caller's cleaning of one page at a
    /// time) to about `bytes`: the fixed cost ([`READER_FIXED_MEMORY`]), [`PAGE_COPIES`] times
    /// the page cap ([`ReaderBuilder::max_page_bytes`]) and the read buffers; what is left
    /// pays for decompression threads beyond the first ([`THREAD_MEMORY`] each), so fewer
    /// than [`ReaderBuilder::threads`] may be used. The pages and errors are the same at any
    /// bound. A bound below the minimum is [`Error::MemoryTooSmall`] when the reader is
    /// opened (or from [`ReaderBuilder::threads_used`]), before anything is read. Default: no
    /// bound.
    pub fn max_memory(&mut self, bytes: u64) -> &mut Self {
        self.max_memory = Some(bytes);
        self
    }

    /// The smallest [`ReaderBuilder::max_memory`] accepted with these settings: the fixed
    /// cost, [`PAGE_COPIES`] times the page cap, and two read units of the reader's buffer.
    #[must_use]
    pub fn min_memory(&self) -> u64 {
        READER_FIXED_MEMORY
            .saturating_add((self.max_page_bytes as u64).saturating_mul(PAGE_COPIES))
            .saturating_add(2 * source::CHUNK as u64)
    }

    /// The decompression threads a reader opened with these settings uses: the setting (by
    /// default one per core), or fewer under a memory bound. Checks every setting first:
    /// [`Error::Config`] for an invalid one, [`Error::MemoryTooSmall`] for a bound below
    /// [`ReaderBuilder::min_memory`].
    pub fn threads_used(&self) -> Result<usize, Error> {
        self.check()
    }

    /// Formerly the multistream index (`...-multistream-index.txt.bz2`) to cut the dump at.
    /// Ignored: stream starts are found by scanning the compressed bytes, which costs less than
    /// decompressing the index and cannot disagree with the dump (a stale, cut-off or garbled
    /// index used to change the pages read).
    #[deprecated(
        since = "0.1.0",
        note = "ignored: stream starts are found by scanning the dump, which cannot disagree with it"
    )]
    pub fn index<P: AsRef<Path>>(&mut self, path: Option<P>) -> &mut Self {
        let _ = path;
        self
    }

    /// Formerly whether to look for the multistream index next to the dump. Ignored, like
    /// [`ReaderBuilder::index`].
    #[deprecated(
        since = "0.1.0",
        note = "ignored: stream starts are found by scanning the dump, which cannot disagree with it"
    )]
    pub fn auto_index(&mut self, yes: bool) -> &mut Self {
        let _ = yes;
        self
    }

    fn check(&self) -> Result<usize, Error> {
        if self.threads == Some(0) {
            return Err(Error::Config("threads must be at least 1".into()));
        }
        if self.max_page_bytes < 64 {
            return Err(Error::Config("max_page_bytes must be at least 64".into()));
        }
        let threads = self
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let Some(max_memory) = self.max_memory else {
            return Ok(threads);
        };
        let minimum = self.min_memory();
        if max_memory < minimum {
            return Err(Error::MemoryTooSmall {
                max_memory,
                minimum,
            });
        }
        // The first thread is the reader's own (sequential decoding, in the fixed cost); two
        // threads or more decode in parallel, each paying for its blocks in flight.
        let affordable = ((max_memory - minimum) / THREAD_MEMORY) as usize;
        Ok(match affordable {
            0 | 1 => 1,
            n => threads.min(n),
        })
    }

    /// Opens a dump file (`.xml` or `.xml.bz2`, detected from its first bytes, not its name).
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be opened, [`Error::Config`] for invalid settings.
    pub fn open<P: AsRef<Path>>(&self, path: P) -> Result<DumpReader, Error> {
        let path = path.as_ref();
        let threads = self.check()?;
        let file = File::open(path).map_err(|source| Error::Io {
            what: path.display().to_string(),
            source,
        })?;
        self.start(file, threads)
    }

    /// Reads a dump from any reader (stdin, a socket, a decompressor of your own).
    ///
    /// # Errors
    /// [`Error::Io`] if the first bytes cannot be read, [`Error::Config`] for invalid settings.
    pub fn from_reader<R: Read + Send + 'static>(&self, reader: R) -> Result<DumpReader, Error> {
        let threads = self.check()?;
        self.start(reader, threads)
    }

    fn start<R: Read + Send + 'static>(
        &self,
        mut reader: R,
        threads: usize,
    ) -> Result<DumpReader, Error> {
        // Sniff the format from the first bytes.
        let mut prefix = Vec::with_capacity(16);
        while prefix.len() < 4 {
            let mut byte = [0u8; 16];
            let want = 16 - prefix.len();
            match reader.read(&mut byte[..want]) {
                Ok(0) => break,
                Ok(n) => prefix.extend_from_slice(&byte[..n]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(Error::Io {
                        what: "input".into(),
                        source,
                    });
                }
            }
        }
        let source: Box<dyn Source> = if source::is_bzip2(&prefix) {
            if threads > 1 {
                Box::new(Bz2Parallel::new(prefix, reader, threads))
            } else {
                Box::new(Bz2Seq::new(io::Cursor::new(prefix).chain(reader), 0))
            }
        } else {
            Box::new(Plain::new(io::Cursor::new(prefix).chain(reader)))
        };
        Ok(DumpReader {
            source,
            buf: Vec::with_capacity(2 * source::CHUNK),
            base: 0,
            start: 0,
            state: State::Outside { scan: 0 },
            eof: false,
            checked_start: false,
            finished: false,
            errors: VecDeque::new(),
            seen_page: false,
            seen_root: false,
            reported_truncation: false,
            last_title: None,
            pages_seen: 0,
            site: None,
            head_scan: 0,
            namespaces: self.namespaces.clone(),
            redirects: self.redirects,
            max_page_bytes: self.max_page_bytes,
        })
    }
}

/// Where the scanner is. Positions are absolute offsets in the decompressed XML.
#[derive(Debug, Clone, Copy)]
enum State {
    /// Between pages; `scan` is where to look for the next `<page>`.
    Outside { scan: u64 },
    /// Inside a page that starts at `at`; `scan` is where to look for `</page>`.
    InPage { at: u64, scan: u64 },
    /// Skipping an oversized page until its `</page>`.
    Skipping { scan: u64 },
}

const OPEN: &[u8] = b"<page>";
const CLOSE: &[u8] = b"</page>";

/// Streams the pages of a dump in dump order: an iterator of `Result<Page, Error>`.
///
/// After a recoverable error (see [`Error::is_fatal`]) iteration goes on with the next page, so
/// a damaged dump yields every complete page plus one error per damaged spot. Memory is bounded
/// by the page cap plus a few decompression buffers per thread.
pub struct DumpReader {
    source: Box<dyn Source>,
    buf: Vec<u8>,
    /// Absolute offset of `buf[0]`.
    base: u64,
    /// Absolute offset up to which the input has been consumed.
    start: u64,
    state: State,
    eof: bool,
    /// Whether the first bytes were checked for a byte-order mark.
    checked_start: bool,
    finished: bool,
    errors: VecDeque<Error>,
    seen_page: bool,
    seen_root: bool,
    reported_truncation: bool,
    last_title: Option<String>,
    pages_seen: u64,
    /// The dump's siteinfo, once read (before the first page is, or on request); boxed, as
    /// it is read once and the reader is moved around.
    site: Option<Box<SiteInfo>>,
    /// How far [`DumpReader::site_info`] has looked for the end of the siteinfo.
    head_scan: usize,
    namespaces: Option<Vec<i32>>,
    redirects: bool,
    max_page_bytes: usize,
}

impl std::fmt::Debug for DumpReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DumpReader")
            .field("position", &self.start)
            .field("pages_seen", &self.pages_seen)
            .finish_non_exhaustive()
    }
}

impl DumpReader {
    /// Opens a dump file with the default options ([`ReaderBuilder::new`]).
    ///
    /// # Errors
    /// See [`ReaderBuilder::open`].
    pub fn open<P: AsRef<Path>>(path: P) -> Result<DumpReader, Error> {
        ReaderBuilder::new().open(path)
    }

    /// Reads a dump from any reader with the default options.
    ///
    /// # Errors
    /// See [`ReaderBuilder::from_reader`].
    pub fn new<R: Read + Send + 'static>(reader: R) -> Result<DumpReader, Error> {
        ReaderBuilder::new().from_reader(reader)
    }

    /// Bytes of decompressed XML consumed so far (for progress reports).
    #[must_use]
    pub fn position(&self) -> u64 {
        self.start
    }

    /// Pages seen so far, including those the filter dropped.
    #[must_use]
    pub fn pages_seen(&self) -> u64 {
        self.pages_seen
    }

    /// The dump's `<siteinfo>`: its wiki's language and namespace names, for
    /// [`SiteNames::for_site`](crate::SiteNames::for_site).
    ///
    /// Called before the first page, it reads ahead (at most [`MAX_SITEINFO_BYTES`]) until the
    /// siteinfo ends; the pages and errors that iteration yields stay the same. A dump without
    /// a siteinfo, or with one too damaged to read, gives what could be read (perhaps the empty
    /// `SiteInfo`); damage there is reported by iteration, as stray bytes between pages.
    pub fn site_info(&mut self) -> &SiteInfo {
        while self.site.is_none() {
            let head = &self.buf[self.rel(self.start)..];
            let from = self.head_scan.saturating_sub(b"</siteinfo>".len());
            let done = self.seen_page
                || self.eof
                || self.finished
                || head.len() >= MAX_SITEINFO_BYTES
                || memmem::find(&head[from..], b"</siteinfo>").is_some()
                || memmem::find(&head[from..], OPEN).is_some();
            if done {
                self.note_head(self.end());
            } else {
                self.head_scan = head.len();
                self.fill();
            }
        }
        self.site.get_or_insert_with(Box::default)
    }

    /// Reads the siteinfo out of the unread head `[start, to)` if it has not been read, before
    /// those bytes are consumed. Only the head before the first page holds it.
    fn note_head(&mut self, to: u64) {
        if self.site.is_none() {
            self.site = Some(Box::new(if self.seen_page {
                SiteInfo::default()
            } else {
                SiteInfo::parse(&self.buf[self.rel(self.start)..self.rel(to)])
            }));
        }
    }

    fn rel(&self, abs: u64) -> usize {
        (abs - self.base) as usize
    }

    fn end(&self) -> u64 {
        self.base + self.buf.len() as u64
    }

    /// Finds `needle` at or after absolute `from`; returns its absolute offset.
    fn find_at(&self, needle: &[u8], from: u64, to: u64) -> Option<u64> {
        let (a, b) = (self.rel(from), self.rel(to));
        memmem::find(&self.buf[a..b], needle).map(|p| from + p as u64)
    }

    /// Reads more input. Returns false at the end of input.
    fn fill(&mut self) -> bool {
        // Drop consumed bytes once they dominate the buffer.
        let consumed = self.rel(self.start);
        if consumed > (1 << 20) && consumed * 2 > self.buf.len() {
            self.buf.drain(..consumed);
            self.base = self.start;
        }
        loop {
            match self.source.fill(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return false;
                }
                Ok(_) => return true,
                Err(e) => {
                    let fatal = e.is_fatal();
                    self.errors.push_back(e);
                    if fatal {
                        self.eof = true;
                        return false;
                    }
                }
            }
        }
    }

    /// Drops buffered bytes before absolute `keep_from` (used while skipping).
    fn discard_before(&mut self, keep_from: u64) {
        let n = self.rel(keep_from);
        self.buf.drain(..n);
        self.base = keep_from;
        self.start = self.start.max(keep_from);
    }

    /// Reports non-blank bytes in `[from, to)` outside the dump's own framing.
    fn check_gap(&mut self, from: u64, to: u64, at_end: bool) {
        let gap = &self.buf[self.rel(from)..self.rel(to)];
        let mut junk_from = 0;
        if !self.seen_page {
            if memmem::find(gap, b"<mediawiki").is_some() {
                self.seen_root = true;
            }
            if let Some(p) = memmem::rfind(gap, b"</siteinfo>") {
                junk_from = p + b"</siteinfo>".len();
            } else if let Some(p) = memmem::find(gap, b"<mediawiki") {
                junk_from = memchr::memchr(b'>', &gap[p..]).map_or(gap.len(), |q| p + q + 1);
            }
        }
        let mut junk = &gap[junk_from..];
        let mut closed = false;
        if at_end && let Some(p) = memmem::rfind(junk, b"</mediawiki>") {
            closed = true;
            let after = &junk[p + b"</mediawiki>".len()..];
            if after.iter().all(u8::is_ascii_whitespace) {
                junk = &junk[..p];
            }
        }
        if let Some(first) = junk.iter().position(|b| !b.is_ascii_whitespace()) {
            let last = junk
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .unwrap_or(first);
            let stray = &junk[first..=last];
            let preview = String::from_utf8_lossy(&stray[..stray.len().min(40)]).into_owned();
            let offset = from + (junk_from + first) as u64;
            let what = format!("{} stray bytes between pages: {preview:?}", stray.len());
            self.errors.push_back(Error::Malformed {
                offset,
                title: self.last_title.clone(),
                what,
            });
        }
        if at_end && self.seen_root && !closed && !self.reported_truncation {
            self.reported_truncation = true;
            self.errors.push_back(Error::Truncated {
                offset: to,
                title: None,
            });
        }
    }

    /// Title of a (possibly partial) page starting at absolute `at`, for error messages.
    fn partial_title(&self, at: u64, to: u64) -> Option<String> {
        let page = &self.buf[self.rel(at)..self.rel(to)];
        let s = memmem::find(page, b"<title>")? + 7;
        let len = memmem::find(&page[s..], b"</title>")?;
        let mut out = String::new();
        xml::unescape_into(&String::from_utf8_lossy(&page[s..s + len]), &mut out);
        Some(out)
    }

    /// Parses a complete page `[at, close)` and applies the filter.
    fn take_page(&mut self, at: u64, close: u64) -> Option<Result<Page, Error>> {
        self.pages_seen += 1;
        let body = &self.buf[self.rel(at) + OPEN.len()..self.rel(close)];
        let offset = at;
        let raw = match xml::parse_head(body, offset + OPEN.len() as u64) {
            Ok(raw) => raw,
            Err(e) => return Some(Err(e)),
        };
        self.last_title.clone_from(&raw.title);
        if let Some(ns) = &self.namespaces
            && !ns.contains(&raw.ns)
        {
            return None;
        }
        if raw.redirect.is_some() && !self.redirects {
            return None;
        }
        Some(xml::finish(raw, offset))
    }

    /// Looks at the first bytes of the XML: skips a UTF-8 byte-order mark; a UTF-16 or UTF-32
    /// one (or `<` in those encodings) ends the iteration with [`Error::Encoding`].
    fn check_start(&mut self) -> Option<Error> {
        const FORMS: &[(&[u8], &str, &str)] = &[
            (b"\xFF\xFE\0\0", "UTF-32LE", "UTF-32"),
            (b"\0\0\xFE\xFF", "UTF-32BE", "UTF-32"),
            (b"<\0\0\0", "UTF-32LE", "UTF-32LE"),
            (b"\0\0\0<", "UTF-32BE", "UTF-32BE"),
            (b"\xFF\xFE", "UTF-16LE", "UTF-16"),
            (b"\xFE\xFF", "UTF-16BE", "UTF-16"),
            (b"<\0", "UTF-16LE", "UTF-16LE"),
            (b"\0<", "UTF-16BE", "UTF-16BE"),
        ];
        let head = &self.buf[..self.buf.len().min(4)];
        if head.starts_with(b"\xEF\xBB\xBF") {
            self.start = 3;
            self.state = State::Outside { scan: 3 };
            return None;
        }
        let &(mark, encoding, iconv) = FORMS.iter().find(|(mark, ..)| head.starts_with(mark))?;
        let start = mark
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect::<Vec<_>>()
            .join(" ");
        self.finished = true;
        Some(Error::Encoding {
            encoding,
            iconv,
            start,
        })
    }

    fn step(&mut self) -> Option<Result<Page, Error>> {
        loop {
            if let Some(e) = self.errors.pop_front() {
                return Some(Err(e));
            }
            if self.finished {
                return None;
            }
            if !self.checked_start {
                if self.buf.len() < 4 && !self.eof {
                    self.fill();
                    continue;
                }
                self.checked_start = true;
                if let Some(err) = self.check_start() {
                    return Some(Err(err));
                }
            }
            let end = self.end();
            match self.state {
                State::Outside { scan } => {
                    if let Some(p) = self.find_at(OPEN, scan, end) {
                        let from = self.start;
                        self.note_head(p);
                        self.check_gap(from, p, false);
                        self.seen_page = true;
                        self.start = p;
                        self.state = State::InPage {
                            at: p,
                            scan: p + OPEN.len() as u64,
                        };
                    } else if self.eof {
                        let from = self.start;
                        self.note_head(end);
                        self.check_gap(from, end, true);
                        self.start = end;
                        self.finished = true;
                    } else {
                        let gap = end - self.start;
                        if gap > self.max_page_bytes as u64 {
                            let keep = end - (OPEN.len() as u64 - 1);
                            let from = self.start;
                            self.note_head(keep);
                            self.check_gap(from, keep, false);
                            self.discard_before(keep);
                        }
                        self.state = State::Outside {
                            scan: self
                                .end()
                                .saturating_sub(OPEN.len() as u64 - 1)
                                .max(self.start),
                        };
                        self.fill();
                    }
                }
                State::InPage { at, scan } => {
                    let close = self.find_at(CLOSE, scan, end);
                    let reopen = self.find_at(OPEN, scan, close.unwrap_or(end));
                    if let Some(q) = reopen {
                        let title = self.partial_title(at, q);
                        self.pages_seen += 1;
                        self.start = q;
                        self.state = State::InPage {
                            at: q,
                            scan: q + OPEN.len() as u64,
                        };
                        return Some(Err(Error::Malformed {
                            offset: at,
                            title,
                            what: "page cut off (a new <page> starts before </page>)".into(),
                        }));
                    }
                    if let Some(c) = close {
                        let after = c + CLOSE.len() as u64;
                        if c - at > self.max_page_bytes as u64 {
                            let title = self.partial_title(at, c);
                            self.pages_seen += 1;
                            self.start = after;
                            self.state = State::Outside { scan: after };
                            return Some(Err(Error::PageTooLarge {
                                offset: at,
                                title,
                                limit: self.max_page_bytes,
                            }));
                        }
                        let item = self.take_page(at, c);
                        self.start = after;
                        self.state = State::Outside { scan: after };
                        if let Some(item) = item {
                            return Some(item);
                        }
                        continue;
                    }
                    if self.eof {
                        let title = self.partial_title(at, end);
                        self.reported_truncation = true;
                        self.pages_seen += 1;
                        self.start = end;
                        self.finished = true;
                        return Some(Err(Error::Truncated { offset: at, title }));
                    }
                    if end - at > self.max_page_bytes as u64 {
                        let title = self.partial_title(at, end);
                        self.pages_seen += 1;
                        let keep = end - (CLOSE.len() as u64 - 1);
                        self.discard_before(keep);
                        self.state = State::Skipping { scan: keep };
                        return Some(Err(Error::PageTooLarge {
                            offset: at,
                            title,
                            limit: self.max_page_bytes,
                        }));
                    }
                    let scan = end.saturating_sub(CLOSE.len() as u64 - 1).max(scan);
                    self.state = State::InPage { at, scan };
                    self.fill();
                }
                State::Skipping { scan } => {
                    let close = self.find_at(CLOSE, scan, end);
                    let reopen = self.find_at(OPEN, scan, close.unwrap_or(end));
                    if let Some(q) = reopen {
                        self.start = q;
                        self.state = State::InPage {
                            at: q,
                            scan: q + OPEN.len() as u64,
                        };
                    } else if let Some(c) = close {
                        let after = c + CLOSE.len() as u64;
                        self.start = after;
                        self.state = State::Outside { scan: after };
                    } else if self.eof {
                        self.start = end;
                        self.finished = true;
                    } else {
                        let keep = end.saturating_sub(CLOSE.len() as u64 - 1).max(scan);
                        self.discard_before(keep);
                        self.state = State::Skipping { scan: keep };
                        self.fill();
                    }
                }
            }
        }
    }
}

impl Iterator for DumpReader {
    type Item = Result<Page, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.step()
    }
}

impl FusedIterator for DumpReader {}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A page of `size` bytes of one letter between two small pages, as one bzip2 stream.
    fn bomb_dump(size: usize) -> Vec<u8> {
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(9));
        enc.write_all(b"<mediawiki><siteinfo></siteinfo>\n<page><title>Before</title><ns>0</ns><id>1</id><revision><text>x</text></revision></page>\n<page><title>Bomb</title><ns>0</ns><id>2</id><revision><text>").unwrap();
        let block = vec![b'a'; 1 << 20];
        for _ in 0..size >> 20 {
            enc.write_all(&block).unwrap();
        }
        enc.write_all(b"</text></revision></page>\n<page><title>After</title><ns>0</ns><id>3</id><revision><text>y</text></revision></page>\n</mediawiki>\n").unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn a_bomb_page_is_skipped_in_bounded_memory() {
        let dump = bomb_dump(40 << 20);
        assert!(dump.len() < 4096, "{}", dump.len());
        let cap = 1 << 20;
        let mut results = Vec::new();
        for threads in [1, 2] {
            let mut reader = ReaderBuilder::new()
                .threads(threads)
                .max_page_bytes(cap)
                .from_reader(io::Cursor::new(dump.clone()))
                .unwrap();
            let mut peak = 0;
            let mut items = Vec::new();
            while let Some(item) = reader.next() {
                peak = peak.max(reader.buf.capacity());
                items.push(match item {
                    Ok(page) => page.title,
                    Err(e) => e.to_string(),
                });
            }
            assert_eq!(
                items,
                [
                    "Before",
                    "page \"Bomb\" at byte 123 is larger than the 1048576-byte cap; skipped",
                    "After"
                ]
            );
            // The page cap and two fill units, with room for the vector's doubling: a few MiB
            // for a 40 MiB page.
            assert!(
                peak <= 2 * (cap + 2 * source::CHUNK),
                "threads {threads}: {peak}"
            );
            results.push(items);
        }
    }
}
