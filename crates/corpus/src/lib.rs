//! Documents and where they come from, for every textreuse job (dedup, the persistent index,
//! text reuse, the plagiarism check): a [`Document`] with its [`DocId`] as the input wrote it and
//! its [`Origin`]; every input format read as one stream of [`Source`]s ([`Inputs`]); what a run
//! tells its caller as it goes ([`Progress`]); and what it leaves on disk ([`files`]: run
//! directories, output directories that change as one, and the one atomic file write).
//!
//! ```
//! use textreuse_corpus::{DocId, Document, Inputs, Source};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("docs.jsonl");
//! std::fs::write(&path, "{\"id\": 7, \"title\": \"Mill\", \"text\": \"The old mill.\"}\n")?;
//! let mut docs = Vec::new();
//! for source in Inputs::new([&path]) {
//!     // A bad file or record is an error naming it; reading goes on with the next one.
//!     if let Source::Text(doc) = source? {
//!         docs.push(doc);
//!     }
//! }
//! assert_eq!(docs.len(), 1);
//! assert_eq!(docs[0].id, DocId::from(7u64));
//! assert_eq!(docs[0].origin.record, Some(1)); // line 1 of docs.jsonl
//! assert_eq!(docs[0], Document { origin: docs[0].origin.clone(), ..Document::new(7, "Mill", "The old mill.") });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * Documents: [`Document`] (id, title, text, [`Origin`]: input, record, dump revision and
//!   timestamp; the [`Link`]s of a web page) and [`DocId`] (an integer or a string, written
//!   back as the input wrote it).
//! * Inputs: [`Inputs`] reads files, directories (walked in sorted order, filtered by
//!   [`source::Include`]) and standard input in order, as a stream of [`Source`]s: Wikipedia
//!   dumps page by page (through `textreuse-wikidump`; the expensive wikitext cleaning is left
//!   to [`Source::into_document`], so drivers run it in parallel), JSON Lines line by line (field
//!   names from [`JsonFields`]), plain text as one document per file, Parquet row by row and
//!   WARC/WET record by record (behind features). Compression (gzip, zstd, bzip2) and format are
//!   recognized by content ([`input`]). Bad input is an [`InputError`] that names the file and
//!   line and is skipped; reading goes on.
//! * Progress: [`Progress`] receives a run's log lines, input problems and per-[`Stage`]
//!   progress; [`NoProgress`] shows nothing. [`error_chain`] writes an error and its causes on
//!   one line.
//! * Output: [`files::OutputSet`] (a result directory swapped in with one rename),
//!   [`files::RunDir`] (a run's temporary files, removed on every exit path,
//!   [`files::remove_temporaries`] for signal handlers), [`files::write_atomic`] and
//!   [`files::sync_dir`]; their errors are [`OutputError`]s.
//!
//! # Compressed inputs and the dump reader
//!
//! bzip2 inputs of any format (`.jsonl.bz2` as well as dumps) are decoded by
//! [`textreuse_wikidump::Bz2Decoder`], the dump reader's parallel block decoder. This crate
//! depends on `textreuse-wikidump` in any case, because Wikipedia dumps are one of its input
//! formats, so borrowing the decoder costs no extra dependency; the decoder stays with the dump
//! reader, which is what it was built and measured for (`docs/performance.md`).
//!
//! # Crate features
//!
//! * `parquet` (default): Parquet inputs and the [`parquet`] module (`write_without_rows`),
//!   through the `parquet` and `arrow-*` crates (no async runtime). Without it a Parquet input
//!   is reported as an [`InputError::Format`] and skipped, and the build skips compiling those
//!   crates.
//! * `warc` (default): WARC and WET inputs (Common Crawl), the main content of HTML pages
//!   extracted with `dom_smoothie`. Without it a WARC input is an [`InputError::Format`].
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

pub mod files;
pub mod input;
#[cfg(feature = "parquet")]
pub mod parquet;
mod progress;
pub mod source;
#[cfg(feature = "warc")]
mod warc;

/// Where in source paths the decoders this crate catches panics of live: the `parquet` crate
/// (and `arrow`, under it) panics on some damaged pages, which [`Inputs`] reports as that file's
/// damage. A front end's panic hook may keep quiet about panics located there.
pub const CAUGHT_PANICS: &[&str] = &["/parquet-", "/arrow-"];

pub use files::OutputError;
pub use input::{DocId, Document, InputError, JsonFields, Link, MAX_LINK_LEN, MAX_LINKS, Origin};
pub use progress::{NoProgress, Progress, Stage};
pub use source::{Inputs, Source};

/// `error` and its sources, joined by `": "`: one line, as the CLI prints errors (anyhow's
/// `{:#}`), for front ends that report problems themselves.
///
/// ```
/// use textreuse_corpus::{InputError, error_chain};
///
/// let e = InputError::Io {
///     path: "docs.jsonl".into(),
///     source: std::io::Error::other("disk on fire"),
/// };
/// assert_eq!(error_chain(&e), "cannot read docs.jsonl: disk on fire");
/// ```
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        line.push_str(": ");
        line.push_str(&e.to_string());
        source = e.source();
    }
    line
}
