//! Documents from JSON Lines and plain-text files, compressed or not, and how an input is
//! recognized.
//!
//! An input's compression is recognized by its first bytes (gzip, zstd, bzip2, or none), then
//! its format by its name without the compression suffix: `.jsonl`, `.ndjson` and `.json` are
//! JSON Lines, `.xml` a Wikipedia dump, `.txt` plain text, `.parquet` and `.pq` Parquet, `.warc`
//! and `.wet` WARC; any other name (stdin included) is recognized by its content: a start `PAR1`
//! means Parquet, `WARC/` WARC, a first non-blank byte `{` JSON Lines, `<mediawiki` or `<?xml`
//! a dump, anything else plain text
//! ([`Format::detect`]).
//!
//! * JSON Lines: one JSON object per line, `{"id": <u64>, "title": <string, optional>, "text":
//!   <string>}` (the field names can be changed, [`JsonFields`]), or instead of the text the
//!   `paragraphs` array written by `textreuse extract` (objects with a `text` field, or plain
//!   strings), whose texts are joined with blank lines so that no sentence crosses a paragraph.
//!   Blank lines are skipped, and so is a UTF-8 byte-order mark at the start.
//! * Plain text: the whole input is one document: its id is given by the caller (the CLI uses
//!   the file's 1-based position among the input files), its title the file name without its
//!   extensions, its text the whole file (UTF-8; a leading byte-order mark is dropped).
//! * Parquet: one document per row, from the columns [`JsonFields`] names; read by
//!   `crate::parquet::ParquetDocs` (the `parquet` feature), from an uncompressed file only,
//!   because its footer is read first.
//! * WARC and WET: one document per record with text (the `warc` feature; see
//!   `crate::warc`).
//!
//! Text is UTF-8: an input that starts with a UTF-16 or UTF-32 byte-order mark is refused with
//! [`InputError::Encoding`], which says how to convert it ([`Encoding::detect`]).
//!
//! Errors ([`InputError`]) name the file, and the line (the row for Parquet).
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

/// A document id as the input wrote it: an integer (a page id, a JSON number) or a string (a
/// JSON string, a Parquet string column). Written back the same way, so `"abc"` stays a string
/// and `12` a number.
///
/// Ids order integers first (by value), then strings (by bytes); clusters list their members in
/// that order.
///
/// ```
/// use textreuse_corpus::input::DocId;
///
/// assert_eq!(DocId::from(7u64).to_string(), "7");
/// assert_eq!(serde_json::to_string(&DocId::from("abc")).unwrap(), r#""abc""#);
/// assert!(DocId::from(u64::MAX) < DocId::from("0"));
/// assert_eq!(DocId::from(12u64), 12);
/// assert_eq!(serde_json::from_str::<DocId>(r#""abc""#).unwrap(), DocId::from("abc"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocId {
    /// An integer id (from -2^63 to 2^64 - 1).
    Int(i128),
    /// A string id.
    Str(Box<str>),
}

macro_rules! doc_id_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for DocId {
            fn from(id: $t) -> DocId {
                DocId::Int(id as i128)
            }
        }
    )*};
}

doc_id_from_int!(u64, i64, i32, u32, usize);

impl From<&str> for DocId {
    fn from(id: &str) -> DocId {
        DocId::Str(id.into())
    }
}

impl From<String> for DocId {
    fn from(id: String) -> DocId {
        DocId::Str(id.into_boxed_str())
    }
}

impl PartialEq<u64> for DocId {
    fn eq(&self, other: &u64) -> bool {
        *self == DocId::Int(*other as i128)
    }
}

impl std::fmt::Display for DocId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocId::Int(i) => write!(f, "{i}"),
            DocId::Str(s) => f.write_str(s),
        }
    }
}

impl serde::Serialize for DocId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            DocId::Int(i) => match u64::try_from(*i) {
                Ok(u) => serializer.serialize_u64(u),
                Err(_) => serializer.serialize_i64(*i as i64),
            },
            DocId::Str(s) => serializer.serialize_str(s),
        }
    }
}

/// Reads what [`Serialize`](serde::Serialize) writes: an integer or a string.
impl<'de> serde::Deserialize<'de> for DocId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<DocId, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        DocId::from_json(&value).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "a document id is an integer or a string, not {value}"
            ))
        })
    }
}

impl DocId {
    /// The id of a JSON value: an integer or a string; `None` for anything else (floats,
    /// objects, null).
    pub fn from_json(value: &serde_json::Value) -> Option<DocId> {
        match value {
            serde_json::Value::Number(n) => n
                .as_u64()
                .map(DocId::from)
                .or_else(|| n.as_i64().map(DocId::from)),
            serde_json::Value::String(s) => Some(DocId::from(s.as_str())),
            _ => None,
        }
    }
}

/// Where a document came from: what a cluster member carries so that it can be traced back to
/// its input. Documents a program builds have no origin (every field `None`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The input it was read from, as given (a path as written on the command line or found in
    /// a directory, or `<stdin>` for standard input).
    pub source: Option<Arc<str>>,
    /// Its record in that input: the 1-based line number in a JSON Lines file, the 1-based row
    /// in a Parquet file; `None` for dumps and plain text.
    pub record: Option<u64>,
    /// Dumps: the revision id of the page's text.
    pub revision: Option<u64>,
    /// Dumps: the revision's timestamp as written in the dump (`2016-08-01T12:00:00Z`).
    pub timestamp: Option<Arc<str>>,
    /// A link to the document: for dumps of a wiki whose siteinfo gives its address, the
    /// revision's permanent link (`https://en.wikipedia.org/w/index.php?oldid=123`); for WARC
    /// records, the target URI.
    pub url: Option<Arc<str>>,
}

/// One input document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// The document id, as the input wrote it (for plain-text files, the file's 1-based position
    /// among the input files).
    pub id: DocId,
    /// The title (from JSON, or the file stem).
    pub title: String,
    /// The text.
    pub text: String,
    /// Where it came from.
    pub origin: Origin,
    /// The addresses it links to, when its input records them: for HTML pages of WARC files,
    /// their `<a href>` targets resolved against the page's address (at most [`MAX_LINKS`]
    /// of them, see there); `None` when the input carries no links (WET records, plain
    /// text, JSON Lines, dumps), so that "no link" and "not known" stay apart.
    pub links: Option<Vec<Link>>,
}

/// The most links kept of one document ([`Document::links`]): a page with more (a hostile
/// page can have millions) keeps its links to other hosts first, in document order, then its
/// links within its own host, up to this many. Real pages have tens to a few hundred
/// distinct links; an article page of Wikipedia about a thousand.
pub const MAX_LINKS: usize = 1000;

/// The longest link target kept, in bytes ([`Link::target`]); longer ones are left out.
/// Together with [`MAX_LINKS`] this bounds a document's links at about 2 MB.
pub const MAX_LINK_LEN: usize = 2048;

/// A link from a document: where it points, and where in the document's text its anchor is.
///
/// ```
/// use textreuse_corpus::Link;
///
/// let link = Link::new("https://en.wikipedia.org/wiki/Honey_bee");
/// assert_eq!((link.target.as_str(), link.span), ("https://en.wikipedia.org/wiki/Honey_bee", None));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    /// The absolute address (for web pages, with its `#fragment` removed).
    pub target: String,
    /// The anchor's byte range in [`Document::text`], when the reader knows it (a wiki
    /// cleaner keeping wikilinks can); `None` for links of HTML pages, whose anchors the main
    /// content extraction does not map back.
    pub span: Option<std::ops::Range<usize>>,
}

impl Link {
    /// A link to `target` with no known anchor.
    pub fn new(target: impl Into<String>) -> Link {
        Link {
            target: target.into(),
            span: None,
        }
    }
}

impl Document {
    /// A document from its parts, with no origin.
    pub fn new(
        id: impl Into<DocId>,
        title: impl Into<String>,
        text: impl Into<String>,
    ) -> Document {
        Document {
            id: id.into(),
            title: title.into(),
            text: text.into(),
            origin: Origin::default(),
            links: None,
        }
    }
}

/// Why an input, or a record in it, could not be read, naming the file (and line).
///
/// One policy for every reader: the bad part is reported (a run hands it to
/// [`Progress::input_problem`](crate::Progress::input_problem) and counts it, as dedup's
/// `Stats::input_problems` does) and skipped, and reading goes on
/// with the next record or file. What is skipped is what the variant names: a whole file for
/// [`Io`](InputError::Io), [`NotUtf8`](InputError::NotUtf8), [`Dump`](InputError::Dump) and
/// [`Format`](InputError::Format); one line for [`Line`](InputError::Line); the damaged part
/// of a dump for [`Damaged`](InputError::Damaged). `textreuse` exits with status 3 at the end
/// of a run that skipped anything.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The file cannot be opened or read (the rest of it is skipped). Recover by fixing the
    /// path, permissions or device, or by fetching a truncated download again.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line of a JSON Lines file is not a document object, or not UTF-8, or a row of a
    /// Parquet file has a null id or text (the line or row is skipped). Recover by fixing or
    /// removing that line or row, or by naming the fields ([`JsonFields`]).
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line number (the 1-based row of a Parquet file).
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// A plain-text file is not UTF-8 (binary, or another encoding; the file is skipped).
    /// Recover by converting it (`iconv -t UTF-8`) or leaving it out.
    #[error("{}: not UTF-8 text (invalid byte at offset {offset}); skipped", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The offset of the first invalid byte.
        offset: u64,
    },
    /// The input starts with the byte-order mark of UTF-16 or UTF-32: every reader here takes
    /// UTF-8 only (the file is skipped). Recover by converting it, e.g.
    /// `iconv -f UTF-16 -t UTF-8 in.txt > out.txt`.
    #[error(
        "{}: {encoding} encoded (it starts with that byte-order mark): convert it to UTF-8, \
         e.g. iconv -f {iconv} -t UTF-8; skipped",
        path.display(),
        iconv = encoding.iconv_name()
    )]
    Encoding {
        /// The file.
        path: PathBuf,
        /// The encoding its byte-order mark declares.
        encoding: Encoding,
    },
    /// A file in a structured format (Parquet) cannot be read as documents: a missing column,
    /// a column of the wrong type, a damaged file, a compressed file or standard input, or a
    /// build without the `parquet` feature (the rest of the file is skipped). Recover as the
    /// message says: by naming the columns ([`JsonFields`]), decompressing or repairing the
    /// file, or building with the feature.
    #[error("{}: {message}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A dump cannot be opened at all (not bz2 or XML, unreadable; the file is skipped).
    /// Recover by checking the file; a truncated download can be fetched again.
    #[error("{}", path.display())]
    Dump {
        /// The file.
        path: PathBuf,
        /// The reader's error.
        #[source]
        source: textreuse_wikidump::Error,
    },
    /// Damage inside a dump; reading went on with the next intact part. Nothing to do, but the
    /// pages in the damaged part are missing from the results.
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
    /// The input file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            InputError::Io { path, .. }
            | InputError::Line { path, .. }
            | InputError::NotUtf8 { path, .. }
            | InputError::Encoding { path, .. }
            | InputError::Format { path, .. }
            | InputError::Dump { path, .. }
            | InputError::Damaged { path, .. } => path,
        }
    }
}

/// A text encoding other than UTF-8 that an input declares with a byte-order mark
/// ([`Encoding::detect`]); such inputs are refused with [`InputError::Encoding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Encoding {
    /// UTF-16, little-endian (starts `FF FE`).
    Utf16Le,
    /// UTF-16, big-endian (starts `FE FF`).
    Utf16Be,
    /// UTF-32, little-endian (starts `FF FE 00 00`).
    Utf32Le,
    /// UTF-32, big-endian (starts `00 00 FE FF`).
    Utf32Be,
}

impl Encoding {
    /// The encoding whose byte-order mark starts `head` (the first 4 bytes of the decompressed
    /// input, fewer for a shorter input); `None` for anything else, UTF-8 (with or without its
    /// mark) included.
    ///
    /// ```
    /// use textreuse_corpus::input::Encoding;
    ///
    /// assert_eq!(Encoding::detect(b"\xff\xfe{\0"), Some(Encoding::Utf16Le));
    /// assert_eq!(Encoding::detect(b"\xff\xfe\0\0"), Some(Encoding::Utf32Le));
    /// assert_eq!(Encoding::detect(b"\xef\xbb\xbf{"), None);
    /// ```
    pub fn detect(head: &[u8]) -> Option<Encoding> {
        match head {
            [0xff, 0xfe, 0, 0, ..] => Some(Encoding::Utf32Le),
            [0, 0, 0xfe, 0xff, ..] => Some(Encoding::Utf32Be),
            [0xff, 0xfe, ..] => Some(Encoding::Utf16Le),
            [0xfe, 0xff, ..] => Some(Encoding::Utf16Be),
            _ => None,
        }
    }

    /// The name `iconv -f` takes for it (`UTF-16`, which reads the byte-order mark).
    pub fn iconv_name(self) -> &'static str {
        match self {
            Encoding::Utf16Le | Encoding::Utf16Be => "UTF-16",
            Encoding::Utf32Le | Encoding::Utf32Be => "UTF-32",
        }
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Encoding::Utf16Le => "UTF-16 (little-endian)",
            Encoding::Utf16Be => "UTF-16 (big-endian)",
            Encoding::Utf32Le => "UTF-32 (little-endian)",
            Encoding::Utf32Be => "UTF-32 (big-endian)",
        })
    }
}

/// How an input is compressed, recognized by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (`1f 8b`), also several concatenated members.
    Gzip,
    /// Zstandard (`28 b5 2f fd`), also several frames.
    Zstd,
    /// bzip2 (`BZh`), also several streams (multistream dumps).
    Bzip2,
}

/// Compression suffixes of file names, removed before the format suffix is read.
const COMPRESSION_SUFFIXES: [&str; 5] = [".gz", ".gzip", ".zst", ".zstd", ".bz2"];

impl Compression {
    /// Whether a file name ends in a compression suffix (`.gz`, `.gzip`, `.zst`, `.zstd`,
    /// `.bz2`).
    fn from_suffix(name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        COMPRESSION_SUFFIXES.iter().any(|s| name.ends_with(s))
    }

    /// The compression of data starting with `head` (at least 4 bytes when the input has them).
    pub fn detect(head: &[u8]) -> Compression {
        match head {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            [b'B', b'Z', b'h', ..] => Compression::Bzip2,
            _ => Compression::None,
        }
    }
}

/// What an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// A Wikipedia XML dump.
    Dump,
    /// JSON Lines, one document per line.
    JsonLines,
    /// Plain text, one document.
    Text,
    /// Parquet, one document per row (read from an uncompressed file only).
    Parquet,
    /// WARC or WET (web archives, as Common Crawl ships them), one document per record with
    /// text (the `warc` feature).
    Warc,
}

impl Format {
    /// The format a file name declares, ignoring compression suffixes (`.gz`, `.zst`, `.bz2`):
    /// `.jsonl`, `.ndjson`, `.json` -> JSON Lines, `.xml` -> dump, `.txt` -> text, `.parquet`,
    /// `.pq` -> Parquet, `.warc`, `.wet` -> WARC; `None` for any other name.
    pub fn from_name(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let mut name = name.as_str();
        for suffix in COMPRESSION_SUFFIXES {
            if let Some(stem) = name.strip_suffix(suffix) {
                name = stem;
                break;
            }
        }
        let ext = name.rsplit_once('.')?.1;
        match ext {
            "jsonl" | "ndjson" | "json" => Some(Format::JsonLines),
            "xml" => Some(Format::Dump),
            "txt" => Some(Format::Text),
            "parquet" | "pq" => Some(Format::Parquet),
            "warc" | "wet" => Some(Format::Warc),
            _ => None,
        }
    }

    /// The format of (decompressed) content starting with `head`: Parquet's magic `PAR1` starts
    /// Parquet, `WARC/` a WARC file; else the first non-blank byte after an optional byte-order mark is `{` for JSON
    /// Lines; `<mediawiki` or `<?xml` start a dump; anything else (an empty input included) is
    /// text.
    pub fn detect(head: &[u8]) -> Format {
        if head.starts_with(b"PAR1") {
            return Format::Parquet;
        }
        if head.starts_with(b"WARC/") {
            return Format::Warc;
        }
        let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        let start = head
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(head.len());
        let head = &head[start..];
        if head.starts_with(b"{") {
            Format::JsonLines
        } else if head.starts_with(b"<mediawiki") || head.starts_with(b"<?xml") {
            Format::Dump
        } else {
            Format::Text
        }
    }
}

/// Bytes looked at to recognize a format.
const SNIFF: usize = 64;

/// Reads the first `n` bytes of `reader` (fewer only at the end of the input: a pipe may deliver
/// them in several reads) and returns them with a reader that yields the whole input again.
fn head<R: Read + Send + 'static>(
    mut reader: R,
    n: usize,
) -> io::Result<(Vec<u8>, impl Read + Send + 'static)> {
    let mut head = Vec::with_capacity(n);
    (&mut reader).take(n as u64).read_to_end(&mut head)?;
    let whole = io::Cursor::new(head.clone()).chain(reader);
    Ok((head, whole))
}

/// An input opened for reading: decompressed, with its format recognized.
pub struct Opened {
    /// The decompressed bytes.
    pub reader: Box<dyn BufRead + Send>,
    /// How the input was compressed.
    pub compression: Compression,
    /// What it holds (by name, else by content).
    pub format: Format,
    /// The encoding a UTF-16 or UTF-32 byte-order mark at its start declares ([`open_file`]
    /// refuses such a file; [`Opened::utf8`] turns it into the error for any input).
    pub encoding: Option<Encoding>,
}

impl Opened {
    /// This input, or [`InputError::Encoding`] (naming it `path`) when it starts with a UTF-16
    /// or UTF-32 byte-order mark.
    pub fn utf8(self, path: &Path) -> Result<Opened, InputError> {
        match self.encoding {
            None => Ok(self),
            Some(encoding) => Err(InputError::Encoding {
                path: path.to_path_buf(),
                encoding,
            }),
        }
    }
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("compression", &self.compression)
            .field("format", &self.format)
            .field("encoding", &self.encoding)
            .finish_non_exhaustive()
    }
}

/// Decompresses `raw` (a file or stdin) after recognizing its compression by its first bytes,
/// and recognizes its format by `name` or, failing that, by its first decompressed bytes, and
/// a UTF-16 or UTF-32 byte-order mark at its start ([`Opened::encoding`]). The decoder runs on
/// a thread of its own; [`open_reader_with`] decodes bzip2 on more.
pub fn open_reader(raw: Box<dyn Read + Send>, name: Option<&Path>) -> io::Result<Opened> {
    open_reader_with(raw, name, 1)
}

/// [`open_reader`], with bzip2 input decoded on `threads` threads: block by block in parallel
/// with `threads > 1` ([`textreuse_wikidump::Bz2Decoder`], the dump reader's decoder; any bzip2
/// file, one stream or many), on one thread of its own with 1. Gzip and zstd are decoded on one
/// thread of their own either way (a core decodes them faster than records are parsed).
pub fn open_reader_with(
    raw: Box<dyn Read + Send>,
    name: Option<&Path>,
    threads: usize,
) -> io::Result<Opened> {
    let (magic, raw) = head(raw, 4)?;
    let compression = Compression::detect(&magic);
    let raw = BufReader::with_capacity(1 << 16, raw);
    let declared = name.and_then(Format::from_name);
    if let (Compression::None, Some(format)) = (compression, declared) {
        // The common case (a `.jsonl` or `.txt` file): one buffer, no decoder.
        return Ok(Opened {
            reader: Box::new(raw),
            compression,
            format,
            encoding: Encoding::detect(&magic),
        });
    }
    // A decoder runs on a thread of its own (ReadAhead), so decompression overlaps parsing.
    let decoded: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(raw),
        Compression::Gzip => ReadAhead::start(flate2::bufread::MultiGzDecoder::new(raw)),
        Compression::Zstd => ReadAhead::start(zstd::stream::read::Decoder::with_buffer(raw)?),
        Compression::Bzip2 if threads > 1 => {
            Box::new(textreuse_wikidump::Bz2Decoder::new(raw, threads))
        }
        Compression::Bzip2 => ReadAhead::start(textreuse_wikidump::Bz2Decoder::new(raw, 1)),
    };
    let (start, decoded) = head(decoded, SNIFF)?;
    Ok(Opened {
        reader: Box::new(BufReader::with_capacity(1 << 16, decoded)),
        compression,
        format: declared.unwrap_or_else(|| Format::detect(&start)),
        encoding: Encoding::detect(&start),
    })
}

/// A reader whose source is read on a thread of its own, [`READ_AHEAD_PIECES`] pieces of up to
/// 1 MiB ahead: decompression on one core while the caller parses on another. An error is
/// handed on in its place, after the bytes read before it.
struct ReadAhead {
    rx: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    piece: Vec<u8>,
    at: usize,
    done: bool,
}

/// Pieces a [`ReadAhead`] thread may hold before the reader takes them.
const READ_AHEAD_PIECES: usize = 4;

impl ReadAhead {
    fn start<R: Read + Send + 'static>(mut inner: R) -> Box<dyn Read + Send> {
        let (tx, rx) = std::sync::mpsc::sync_channel(READ_AHEAD_PIECES);
        std::thread::spawn(move || {
            loop {
                let mut piece = Vec::with_capacity(1 << 20);
                match (&mut inner).take(1 << 20).read_to_end(&mut piece) {
                    Ok(0) => return,
                    Ok(_) => {
                        if tx.send(Ok(piece)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        if !piece.is_empty() && tx.send(Ok(piece)).is_err() {
                            return;
                        }
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        Box::new(ReadAhead {
            rx,
            piece: Vec::new(),
            at: 0,
            done: false,
        })
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.piece.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Ok(piece)) => {
                    self.piece = piece;
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Opens the file `path`: [`open_reader`] over it, its name giving the format if it can; a
/// file in UTF-16 or UTF-32 (by its byte-order mark) is an [`InputError::Encoding`].
pub fn open_file(path: &Path) -> Result<Opened, InputError> {
    open_file_with(path, 1)
}

/// [`open_file`], with bzip2 decoded on `threads` threads ([`open_reader_with`]).
pub fn open_file_with(path: &Path, threads: usize) -> Result<Opened, InputError> {
    let io_error = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io_error)?;
    open_reader_with(Box::new(file), Some(path), threads)
        .map_err(io_error)?
        .utf8(path)
}

/// Field names of JSON Lines records and Parquet columns (default `id`, `text`, `title`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonFields {
    /// The document id: an integer or a string, kept as written ([`DocId`]).
    pub id: String,
    /// The text: a string, or an array of paragraphs (strings or objects with `text`).
    pub text: String,
    /// The title: a string; optional.
    pub title: String,
}

impl Default for JsonFields {
    fn default() -> Self {
        JsonFields {
            id: "id".into(),
            text: "text".into(),
            title: "title".into(),
        }
    }
}

impl JsonFields {
    /// True for the default names (without building them: this runs once a line).
    fn is_default(&self) -> bool {
        self.id == "id" && self.text == "text" && self.title == "title"
    }
}

/// A JSON id: an integer or a string, read by a visitor of its own rather than an untagged
/// enum, which buffers the value and builds (and formats) an error for every variant that does
/// not match: for string ids that was five allocations a line.
struct JsonId(DocId);

/// What [`JsonId`]'s errors say it expected; [`parse_json_document`] finds it to give its own
/// message.
const JSON_ID_EXPECTED: &str = "a document id (an integer or a string)";

impl<'de> Deserialize<'de> for JsonId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<JsonId, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = JsonId;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(JSON_ID_EXPECTED)
            }
            fn visit_u64<E>(self, v: u64) -> Result<JsonId, E> {
                Ok(JsonId(DocId::from(v)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<JsonId, E> {
                Ok(JsonId(DocId::from(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<JsonId, E> {
                Ok(JsonId(DocId::from(v)))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[derive(Deserialize)]
struct JsonDocument {
    id: JsonId,
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

fn join_paragraphs(paragraphs: Vec<JsonParagraph>) -> String {
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

/// Parses one JSON Lines record into a document with the default field names; the error is the
/// one-line cause.
pub fn parse_json_document(line: &str) -> Result<Document, String> {
    let doc: JsonDocument = serde_json::from_str(line).map_err(|e| {
        if e.to_string().contains(JSON_ID_EXPECTED) {
            "\"id\" is not an integer or a string".to_string()
        } else {
            e.to_string()
        }
    })?;
    let text = match (doc.text, doc.paragraphs) {
        (Some(text), _) => text,
        (None, Some(paragraphs)) => join_paragraphs(paragraphs),
        (None, None) => return Err("the object has neither \"text\" nor \"paragraphs\"".into()),
    };
    Ok(Document {
        id: doc.id.0,
        title: doc.title,
        text,
        origin: Origin::default(),
        links: None,
    })
}

/// Parses one JSON Lines record with the given field names.
pub fn parse_json_document_with(line: &str, fields: &JsonFields) -> Result<Document, String> {
    if fields.is_default() {
        return parse_json_document(line);
    }
    let mut object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(line).map_err(|e| e.to_string())?;
    let id = object
        .get(&fields.id)
        .and_then(DocId::from_json)
        .ok_or_else(|| format!("\"{}\" is missing or not an integer or a string", fields.id))?;
    let title = match object.remove(&fields.title) {
        Some(serde_json::Value::String(t)) => t,
        _ => String::new(),
    };
    let text = match object.remove(&fields.text) {
        Some(serde_json::Value::String(t)) => t,
        Some(array @ serde_json::Value::Array(_)) => join_paragraphs(
            serde_json::from_value(array).map_err(|e| format!("\"{}\": {e}", fields.text))?,
        ),
        _ => return Err(format!("\"{}\" is missing or not a string", fields.text)),
    };
    Ok(Document {
        id,
        title,
        text,
        origin: Origin::default(),
        links: None,
    })
}

/// The documents of a JSON Lines input, in order (made by [`JsonLines::open`] or
/// [`JsonLines::new`]), each with its [`Origin`] (the input's name and the line number).
///
/// A malformed line (not JSON, not a document object, not UTF-8) yields an `Err` naming the
/// input and line, and reading goes on with the next line; a read error (a damaged compressed
/// stream) yields an `Err` and ends the iterator.
pub struct JsonLines {
    path: PathBuf,
    source: Arc<str>,
    reader: Box<dyn BufRead + Send>,
    fields: JsonFields,
    line_no: u64,
    buf: Vec<u8>,
    failed: bool,
}

impl std::fmt::Debug for JsonLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonLines")
            .field("path", &self.path)
            .field("line_no", &self.line_no)
            .finish_non_exhaustive()
    }
}

impl JsonLines {
    /// Opens the file `path` (compressed or not) with the default field names.
    pub fn open(path: &Path) -> Result<JsonLines, InputError> {
        let opened = open_file(path)?;
        Ok(JsonLines::new(path, opened.reader, JsonFields::default()))
    }

    /// The records of `reader` (decompressed), named `path` in errors and origins.
    pub fn new(path: &Path, reader: Box<dyn BufRead + Send>, fields: JsonFields) -> JsonLines {
        JsonLines {
            path: path.to_path_buf(),
            source: path.to_string_lossy().into(),
            reader,
            fields,
            line_no: 0,
            buf: Vec::new(),
            failed: false,
        }
    }

    fn line_error(&self, message: String) -> InputError {
        InputError::Line {
            path: self.path.clone(),
            line: self.line_no,
            message,
        }
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
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(source) => {
                    self.failed = true;
                    return Some(Err(self.line_error(format!(
                        "cannot read on from here (the rest of the file is skipped): {source}"
                    ))));
                }
            }
            // A UTF-8 byte-order mark may start the file (Windows tools write one).
            let bytes = match self.line_no {
                1 => self.buf.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&self.buf),
                _ => &self.buf[..],
            };
            let line = match std::str::from_utf8(bytes) {
                Ok(line) => line.trim(),
                Err(e) => {
                    return Some(Err(self.line_error(format!(
                        "not UTF-8 (invalid byte at column {}); line skipped",
                        e.valid_up_to() + 1
                    ))));
                }
            };
            if line.is_empty() {
                continue;
            }
            return Some(match parse_json_document_with(line, &self.fields) {
                Ok(mut doc) => {
                    doc.origin.source = Some(self.source.clone());
                    doc.origin.record = Some(self.line_no);
                    Ok(doc)
                }
                Err(cause) => Err(self.line_error(format!(
                    "not a document object {{\"{}\",\"{}\",\"{}\"}}: {cause}; line skipped",
                    self.fields.id, self.fields.title, self.fields.text
                ))),
            });
        }
    }
}

impl std::iter::FusedIterator for JsonLines {}

/// Reads a whole input as one plain-text document with the given id, titled with `path`'s file
/// name without its extensions (`notes.txt.gz` -> `notes`).
pub fn read_plain_from(
    path: &Path,
    mut reader: impl Read,
    id: u64,
) -> Result<Document, InputError> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Io {
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
    let mut title = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if Compression::from_suffix(&title) {
        title.truncate(title.rfind('.').unwrap_or(title.len()));
    }
    if let Some(dot) = title.rfind('.').filter(|&d| d > 0) {
        title.truncate(dot);
    }
    Ok(Document {
        id: DocId::from(id),
        title,
        text,
        origin: Origin {
            source: Some(path.to_string_lossy().into()),
            ..Origin::default()
        },
        links: None,
    })
}

/// Reads a plain-text file (compressed or not) as one document with the given id.
pub fn read_plain(path: &Path, id: u64) -> Result<Document, InputError> {
    read_plain_from(path, open_file(path)?.reader, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decoder on its own thread hands on the same bytes over many pieces, then the error of
    /// damaged data after the bytes decoded before it.
    #[test]
    fn compressed_input_is_read_ahead_whole_and_errors_come_in_place() {
        use std::io::Write;
        let text: Vec<u8> = (0..3_000_000u32)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .take(3 << 20)
            .collect();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        let mut opened = open_reader(Box::new(io::Cursor::new(gz.clone())), None).unwrap();
        let mut got = Vec::new();
        opened.reader.read_to_end(&mut got).unwrap();
        assert_eq!(got, text);

        let mut damaged = gz;
        let at = damaged.len() * 2 / 3;
        damaged.truncate(at);
        let mut opened = open_reader(Box::new(io::Cursor::new(damaged)), None).unwrap();
        let mut got = Vec::new();
        let err = opened.reader.read_to_end(&mut got).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
        assert!(
            got.len() > 1 << 20 && text.starts_with(&got),
            "{}",
            got.len()
        );
    }

    #[test]
    fn json_forms() {
        let d = parse_json_document(r#"{"id": 3, "title": "T", "text": "Hi."}"#).unwrap();
        assert_eq!((d.title.as_str(), d.text.as_str()), ("T", "Hi."));
        assert_eq!(d.id, 3);
        let d = parse_json_document(r#"{"id": "doc-7", "text": ""}"#).unwrap();
        assert_eq!(d.id, DocId::from("doc-7"));
        let d = parse_json_document(r#"{"id": -2, "text": ""}"#).unwrap();
        assert_eq!(d.id, DocId::Int(-2));
        for bad in [
            "1.5",
            "null",
            "true",
            "[1]",
            "{}",
            "1e3",
            "18446744073709551616",
        ] {
            let line = format!(r#"{{"id": {bad}, "text": ""}}"#);
            let err = parse_json_document(&line).unwrap_err();
            assert_eq!(err, "\"id\" is not an integer or a string", "{line}");
        }
        let d = parse_json_document(r#"{"text": "", "id": 18446744073709551615}"#).unwrap();
        assert_eq!(d.id, u64::MAX);
        let d = parse_json_document(r#"{"id": -9223372036854775808, "text": ""}"#).unwrap();
        assert_eq!(d.id, DocId::Int(i64::MIN.into()));
        let d = parse_json_document(r#"{"id": "a\u00e9\"", "text": ""}"#).unwrap();
        assert_eq!(d.id, DocId::from("a\u{e9}\""));
        let fields = JsonFields {
            id: "key".into(),
            ..JsonFields::default()
        };
        let d = parse_json_document_with(r#"{"key": "k1", "text": "x"}"#, &fields).unwrap();
        assert_eq!(d.id, DocId::from("k1"));
        let d = parse_json_document(
            r#"{"id": 4, "title": "P", "paragraphs": [{"section": "", "text": "A."}, "B."]}"#,
        )
        .unwrap();
        assert_eq!(d.text, "A.\n\nB.");
        assert!(parse_json_document(r#"{"id": 5}"#).is_err());
        assert!(parse_json_document(r#"{"title": "no id", "text": ""}"#).is_err());
    }

    #[test]
    fn formats_by_name_and_content() {
        let by_name = |name: &str| Format::from_name(Path::new(name));
        assert_eq!(by_name("part-0.parquet"), Some(Format::Parquet));
        assert_eq!(by_name("part-0.PQ.zst"), Some(Format::Parquet));
        assert_eq!(by_name("docs.ndjson.gz"), Some(Format::JsonLines));
        assert_eq!(by_name("README"), None);
        assert_eq!(Format::detect(b"PAR1\x15\x04"), Format::Parquet);
        assert_eq!(Format::detect(b"WARC/1.0\r\n"), Format::Warc);
        assert_eq!(by_name("CC-MAIN-0001.warc.wet.gz"), Some(Format::Warc));
        assert_eq!(by_name("crawl.warc.gz"), Some(Format::Warc));
        // The magic counts only at the very start.
        assert_eq!(Format::detect(b" PAR1"), Format::Text);
        assert_eq!(
            Format::detect(b"\xef\xbb\xbf {\"id\": 1}"),
            Format::JsonLines
        );
        assert_eq!(Format::detect(b"<?xml version"), Format::Dump);
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
        let ids: Vec<DocId> = docs.iter().map(|d| d.id.clone()).collect();
        assert_eq!(ids, [DocId::from(9u64), DocId::from(10u64)]);
        let lines: Vec<Option<u64>> = docs.iter().map(|d| d.origin.record).collect();
        assert_eq!(lines, [Some(1), Some(3)]);
        let plain = read_plain(&txt, 2).unwrap();
        assert_eq!(plain.title, "My Doc");
        assert_eq!(plain.text, "Plain text.");

        let bad = dir.path().join("bad.jsonl");
        std::fs::write(
            &bad,
            b"{\"id\": 1, \"text\": \"ok\"}\n{oops\n{\"id\": 2, \"text\": \"caf\xe9\"}\n{\"id\": 3, \"text\": \"ok\"}\n",
        )
        .unwrap();
        let mut it = JsonLines::open(&bad).unwrap();
        assert!(it.next().unwrap().is_ok());
        let err = it.next().unwrap().unwrap_err().to_string();
        assert!(err.contains("bad.jsonl:2"), "{err}");
        let err = it.next().unwrap().unwrap_err().to_string();
        assert!(
            err.contains("bad.jsonl:3") && err.contains("not UTF-8"),
            "{err}"
        );
        // Reading goes on after a bad line.
        assert_eq!(it.next().unwrap().unwrap().id, 3);
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

    /// A UTF-8 byte-order mark starts JSON Lines and text files written by Windows tools: it is
    /// skipped. UTF-16 and UTF-32 files are named as such, whatever their name or compression.
    #[test]
    fn byte_order_marks() {
        let dir = tempfile::tempdir().unwrap();
        let record = "{\"id\": 9, \"text\": \"x\"}\n{\"id\": 10, \"text\": \"y\"}\n";
        for name in ["bom.jsonl", "bom-sniffed"] {
            let path = dir.path().join(name);
            std::fs::write(&path, format!("\u{feff}{record}")).unwrap();
            let opened = open_file(&path).unwrap();
            assert_eq!(opened.format, Format::JsonLines);
            let docs: Vec<Document> = JsonLines::new(&path, opened.reader, JsonFields::default())
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(docs.len(), 2);
            assert_eq!(docs[0].id, 9);
        }
        // Only the file's first line may start with one.
        let path = dir.path().join("inner.jsonl");
        std::fs::write(&path, format!("{record}\u{feff}{record}")).unwrap();
        let results: Vec<_> = JsonLines::open(&path).unwrap().collect();
        assert!(results[2].is_err());

        let utf16 = |big_endian: bool| -> Vec<u8> {
            let mut bytes = Vec::new();
            for unit in std::iter::once(0xfeff).chain(record.encode_utf16()) {
                let b = if big_endian {
                    unit.to_be_bytes()
                } else {
                    unit.to_le_bytes()
                };
                bytes.extend_from_slice(&b);
            }
            bytes
        };
        let cases = [
            (
                "le.jsonl",
                utf16(false),
                "UTF-16 (little-endian)",
                "iconv -f UTF-16",
            ),
            (
                "be.txt",
                utf16(true),
                "UTF-16 (big-endian)",
                "iconv -f UTF-16",
            ),
            (
                "le32",
                vec![0xff, 0xfe, 0, 0, b'{', 0, 0, 0],
                "UTF-32 (little-endian)",
                "UTF-32",
            ),
            (
                "be32.txt",
                vec![0, 0, 0xfe, 0xff],
                "UTF-32 (big-endian)",
                "UTF-32",
            ),
        ];
        for (name, bytes, encoding, advice) in cases {
            let path = dir.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            let err = open_file(&path).unwrap_err();
            let message = err.to_string();
            assert!(matches!(err, InputError::Encoding { .. }), "{message}");
            assert!(
                message.contains(name) && message.contains(encoding) && message.contains(advice),
                "{message}"
            );
            // Compressed, too.
            let gz = dir.path().join(format!("{name}.gz"));
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            std::io::Write::write_all(&mut encoder, &bytes).unwrap();
            std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
            assert!(matches!(open_file(&gz), Err(InputError::Encoding { .. })));
        }
        assert_eq!(Encoding::detect(b"\xfe"), None);
        assert_eq!(Encoding::detect(b""), None);
    }
}
