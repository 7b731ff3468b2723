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
    /// The bzip2 data is corrupt or cut off. `compressed_offset` is the byte offset in the
    /// compressed file of the bzip2 stream (multistream dumps) or the approximate read position
    /// (single-stream files) where decoding failed.
    ///
    /// Recover: in a multistream dump the reader goes on with the next stream, and pages cut
    /// by the fault are reported as [`Error::Truncated`] or [`Error::Malformed`]. In a
    /// single-stream file nothing after the fault can be decoded and iteration ends after the
    /// pages decoded so far.
    #[error("corrupt or truncated bzip2 data near compressed byte {compressed_offset}: {message}")]
    Bzip2 {
        /// Byte offset in the compressed input.
        compressed_offset: u64,
        /// What the decoder said.
        message: String,
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
        "page {} at byte {offset} is larger than the {limit}-byte cap; skipped",
        page_name(title.as_deref(), "(untitled)")
    )]
    PageTooLarge {
        /// Byte offset of the page's `<page>` tag.
        offset: u64,
        /// The page's title, when it came before the cap was reached.
        title: Option<String>,
        /// The cap in bytes.
        limit: usize,
    },
    /// The `-index.txt.bz2` file could not be used (unreadable, or its offsets do not point at
    /// bzip2 streams).
    ///
    /// Recover: drop the index; the reader finds stream boundaries by itself.
    #[error("bad multistream index: {0}")]
    Index(String),
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
        matches!(self, Error::Io { .. } | Error::Index(_) | Error::Config(_))
    }

    /// The byte offset the error names, if any (decompressed XML offset, except for
    /// [`Error::Bzip2`], where it is the compressed offset).
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Bzip2 {
                compressed_offset, ..
            } => Some(*compressed_offset),
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
