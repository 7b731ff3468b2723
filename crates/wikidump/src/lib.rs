//! Streams pages out of Wikipedia XML dumps and turns their wikitext into clean paragraphs.
//!
//! This is the only crate of the workspace that knows Wikipedia. [`DumpReader`] reads `.xml`,
//! `.xml.bz2` (single-stream and multistream) or any [`std::io::Read`], decompressing
//! multistream dumps on several threads while keeping dump order, and yields
//! `Result<Page, Error>` items: damage (stray bytes, a cut-off page, corrupt bzip2 data, invalid
//! UTF-8) is reported with its byte offset and page title and reading goes on. [`Cleaner`] turns
//! a page's wikitext into [`Paragraph`]s of plain text with their section titles.
//!
//! ```
//! use textreuse_wikidump::{Cleaner, DumpReader};
//!
//! let xml = r#"<mediawiki><siteinfo></siteinfo>
//!   <page><title>Albedo</title><ns>0</ns><id>39</id>
//!     <revision><id>7</id><timestamp>2016-01-01T00:00:00Z</timestamp>
//!       <text xml:space="preserve">'''Albedo''' is the [[reflection (physics)|reflectance]]
//! of a surface.{{citation needed}}&lt;ref&gt;A source&lt;/ref&gt;
//!
//! == See also ==
//! * [[Emissivity]]</text></revision></page>
//! </mediawiki>"#;
//! let cleaner = Cleaner::new();
//! for page in DumpReader::new(xml.as_bytes())? {
//!     let page = page?;
//!     let article = cleaner.clean(&page.text);
//!     assert_eq!(page.title, "Albedo");
//!     assert_eq!(article.paragraphs.len(), 1); // "See also" is dropped
//!     assert_eq!(article.paragraphs[0].text, "Albedo is the reflectance of a surface.");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! - [`ReaderBuilder`] sets the namespace filter (default: articles, namespace 0), whether
//!   redirects are kept (default: no), the page size cap (default 64 MiB; larger pages are
//!   reported as [`Error::PageTooLarge`] and skipped without being buffered) and the number of
//!   decompression threads. [`DumpReader::open`] and [`DumpReader::new`] use the defaults.
//! - Items come in dump order. After an `Err` item iteration goes on (see [`Error::is_fatal`]);
//!   a damaged dump yields every complete page plus one error per damaged spot.
//! - [`Cleaner`] (options in [`CleanerBuilder`]: dropped sections, list items) removes
//!   comments, `<ref>`s, templates, tables, files, categories, interlanguage links, magic
//!   words, `<math>`, `<gallery>` and other non-prose elements; keeps link labels, external link
//!   labels, `<nowiki>` text and the inner text of HTML tags; decodes HTML entities; and
//!   returns paragraphs in order with their section title and a `list` marker for list items.
//!   Sections titled "See also", "References", "External links", "Further reading", "Notes" and
//!   "Bibliography" are dropped by default ([`DEFAULT_DROP_SECTIONS`]).
//!
//! # Performance
//!
//! Cleaning is three linear passes over the page with no recursion: nested templates and
//! links are matched with an explicit stack, and every search for a closing delimiter is bounded
//! by the next opening delimiter or memoised, so unbalanced braces, deep nesting and huge
//! tables cost time linear in the page size. `docs/performance.md` has the measured speeds
//! (`wikidump/clean`, `wikidump/xml`, end to end).
//!
//! Decompression dominates reading a `.bz2` dump. With `threads > 1`:
//! - a *multistream* dump (many concatenated bzip2 streams, as Wikipedia publishes them) is cut
//!   at stream starts, taken from the `-index.txt.bz2` file when given or found next to the dump,
//!   else found by scanning for the stream magic `BZh[1-9]` followed by the block magic
//!   `0x314159265359`. Groups of about 1 MiB of whole streams are decoded on `threads` workers
//!   and reassembled in order; memory stays at a few jobs per thread.
//! - a *single-stream* file is decoded on one background thread while the caller parses and
//!   cleans. Its bzip2 blocks are not decoded in parallel: block boundaries are bit-aligned
//!   48-bit magics that can also occur by chance inside compressed data, and no bzip2 library
//!   we depend on can start decoding at a bit offset, so one core's decompression speed limits a
//!   single-stream file. If 32 MiB of a file go by without a stream boundary, the rest of the
//!   file is decoded this way too.
//!
//! With `threads == 1` everything runs on the calling thread.
//!
//! # Crate features
//!
//! None. bzip2 decoding uses the `bzip2` crate's default pure-Rust backend.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

mod clean;
mod error;
mod reader;
mod scan;
mod source;
mod xml;

pub use clean::{
    Article, Cleaner, CleanerBuildError, CleanerBuilder, DEFAULT_DROP_SECTIONS, Paragraph,
};
pub use error::Error;
pub use reader::{DEFAULT_MAX_PAGE_BYTES, DumpReader, Page, ReaderBuilder};
