//! The error type of the dump reader.
use std::io;

/// Something went wrong while reading a dump.
///
/// Most errors are *recoverable*: the reader reports them as an `Err` item and iteration goes on
/// with the next page (check [`Error::is_fatal`]). Offsets are byte offsets in the decompressed
/// XML unless the variant says otherwise, so `bzip2 -dc dump.xml.bz2 | tail -c +OFFSET` shows the
/// spot (tail counts from 1: add one).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Opening or reading the input failed (file missing, permission, disk error).
    ///
    /// Recover: fix the path or the device; this error ends the iteration.
    #[error("cannot read {what}: {source}")]
    Io {
        /// What was being read (a path, or "input").
        what: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A bzip2 stream of the dump is damaged: its data is corrupt, or it ends (at the end of the
    /// input or where the next stream starts) before its end-of-stream marker.
    /// `compressed_offset..compressed_end` is the damaged stream in the compressed file: from its
    /// `BZh` header to the next stream start (see the crate docs, "Damaged bzip2 input").
    ///
    /// Recover: nothing to do; the stream's output up to the fault has been delivered (pages cut
    /// by the fault come as [`Error::Truncated`] or [`Error::Malformed`]) and reading goes on at
    /// the next stream. In a single-stream file the damaged stream is the rest of the file, so
    /// no page after the fault can be read: recompress what `bzip2recover` salvages to get more.
    #[error(
        "damaged bzip2 stream at compressed bytes {compressed_offset}..{compressed_end}: \
         {message}; the rest of that stream is skipped"
    )]
    Bzip2 {
        /// Byte offset in the compressed input of the damaged stream's `BZh` header.
        compressed_offset: u64,
        /// Byte offset in the compressed input where the next stream starts (or the input ends).
        compressed_end: u64,
        /// What went wrong, in the decoder's words.
        message: String,
    },
    /// Bytes between two bzip2 streams (after one stream's end-of-stream marker, before the
    /// next stream's `BZh` header) that are not bzip2 data.
    ///
    /// Recover: nothing to do; the bytes were skipped and reading went on with the next stream.
    #[error(
        "{} bytes of non-bzip2 data after a bzip2 stream at compressed bytes \
         {compressed_offset}..{compressed_end}; skipped",
        compressed_end - compressed_offset
    )]
    Bzip2Junk {
        /// Byte offset in the compressed input of the first byte that is not bzip2 data.
        compressed_offset: u64,
        /// Byte offset in the compressed input where the next stream starts (or the input ends).
        compressed_end: u64,
    },
    /// The input is not UTF-8: it starts with a UTF-16 or UTF-32 byte-order mark (or with `<`
    /// encoded in UTF-16 or UTF-32). Wikipedia's dumps are UTF-8; this one was converted.
    ///
    /// Recover: convert it back, for example `iconv -f UTF-16 -t UTF-8 dump.xml > dump-utf8.xml`
    /// (`-f UTF-32` for UTF-32), and read the result; this error ends the iteration.
    #[error(
        "the dump is {encoding}, not UTF-8 (it starts with bytes {start}); convert it first: \
         iconv -f {iconv} -t UTF-8 DUMP > DUMP-utf8.xml"
    )]
    Encoding {
        /// The encoding found (`UTF-16LE`, `UTF-16BE`, `UTF-32LE`, `UTF-32BE`).
        encoding: &'static str,
        /// The name `iconv -f` takes for it (`UTF-16` or `UTF-32`, which read the byte-order mark).
        iconv: &'static str,
        /// The first bytes, in hex (`FF FE`).
        start: String,
    },
    /// The XML ended inside a page (a cut-off dump) or without the closing `</mediawiki>`.
    ///
    /// Recover: nothing to do; every complete page before it has been delivered.
    #[error("{}", truncated(*offset, title.as_deref()))]
    Truncated {
        /// Byte offset of the incomplete page's `<page>` tag (or of the end of the input).
        offset: u64,
        /// The incomplete page's title, when it was read before the end.
        title: Option<String>,
    },
    /// Malformed XML: stray bytes between pages, a page without `</page>` before the next
    /// `<page>`, or a page missing its title or id.
    ///
    /// Recover: the damaged region is skipped and reading resumes at the next `<page>`.
    #[error("malformed XML at byte {offset} in {}: {what}", page_name(title.as_deref(), "the dump"))]
    Malformed {
        /// Byte offset of the damage.
        offset: u64,
        /// Title of the page around it, when known.
        title: Option<String>,
        /// What is wrong.
        what: String,
    },
    /// A page's text is not valid UTF-8.
    ///
    /// Recover: the page is skipped; the next one is read normally.
    #[error("invalid UTF-8 at byte {offset} in {}", page_name(title.as_deref(), "a page"))]
    InvalidUtf8 {
        /// Byte offset of the first invalid byte.
        offset: u64,
        /// The page's title, when it could be decoded.
        title: Option<String>,
    },
    /// A page is larger than the configured cap ([`crate::ReaderBuilder::max_page_bytes`]).
    ///
    /// Recover: the page was skipped without being held in memory; raise the cap to read it.
    #[error(
        "{} at byte {offset} is larger than the {limit}-byte cap; skipped",
        page_name(title.as_deref(), "an untitled page")
    )]
    PageTooLarge {
        /// Byte offset of the page's `<page>` tag.
        offset: u64,
        /// The page's title, when it came before the cap was reached.
        title: Option<String>,
        /// The cap in bytes.
        limit: usize,
    },
    /// [`ReaderBuilder::max_memory`](crate::ReaderBuilder::max_memory) is below what reading
    /// pages of the page cap needs ([`ReaderBuilder::min_memory`](crate::ReaderBuilder::min_memory));
    /// nothing was read.
    ///
    /// Recover: raise the bound to at least `minimum` bytes, or lower the page cap
    /// ([`ReaderBuilder::max_page_bytes`](crate::ReaderBuilder::max_page_bytes): larger pages
    /// are then reported and skipped).
    #[error(
        "a memory bound of {max_memory} bytes is below the minimum of {minimum} bytes ({} MiB) \
         that reading needs (the program, the decoder, three copies of the largest page \
         allowed): raise it to at least {minimum} bytes, or lower the page cap",
        minimum.div_ceil(1 << 20)
    )]
    MemoryTooSmall {
        /// The bound given.
        max_memory: u64,
        /// The smallest bound accepted with these settings.
        minimum: u64,
    },
    /// A builder setting is invalid (for example zero threads).
    ///
    /// Recover: fix the setting.
    #[error("invalid reader setting: {0}")]
    Config(String),
}

impl Error {
    /// Whether the reader stops after this error. Recoverable errors (damaged pages, stray
    /// bytes, pages over the cap) are followed by more pages.
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            Error::Io { .. }
                | Error::Encoding { .. }
                | Error::Config(_)
                | Error::MemoryTooSmall { .. }
        )
    }

    /// The byte offset the error names, if any (decompressed XML offset, except for
    /// [`Error::Bzip2`] and [`Error::Bzip2Junk`], where it is the compressed offset).
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Bzip2 {
                compressed_offset, ..
            }
            | Error::Bzip2Junk {
                compressed_offset, ..
            } => Some(*compressed_offset),
            Error::Encoding { .. } => Some(0),
            Error::Truncated { offset, .. }
            | Error::Malformed { offset, .. }
            | Error::InvalidUtf8 { offset, .. }
            | Error::PageTooLarge { offset, .. } => Some(*offset),
            _ => None,
        }
    }

    /// The title of the page the error concerns, if known.
    #[must_use]
    pub fn title(&self) -> Option<&str> {
        match self {
            Error::Truncated { title, .. }
            | Error::Malformed { title, .. }
            | Error::InvalidUtf8 { title, .. }
            | Error::PageTooLarge { title, .. } => title.as_deref(),
            _ => None,
        }
    }
}

fn truncated(offset: u64, title: Option<&str>) -> String {
    match title {
        Some(t) => format!("input ends inside page {t:?} (its <page> is at byte {offset})"),
        None => format!("input ends at byte {offset} without the closing </mediawiki>"),
    }
}

fn page_name(title: Option<&str>, fallback: &str) -> String {
    match title {
        Some(t) => format!("page {t:?}"),
        None => fallback.to_string(),
    }
}
