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
//!     assert_eq!(article.len(), 1); // "See also" is dropped
//!     let lead = article.paragraph(0).unwrap();
//!     assert_eq!((lead.section, lead.text), ("", "Albedo is the reflectance of a surface."));
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
//! - Items come in dump order, the same pages and the same errors at any thread count. After an
//!   `Err` item iteration goes on (see [`Error::is_fatal`]); a damaged dump yields every
//!   complete page plus one error per damaged spot.
//! - The XML must be UTF-8. A UTF-8 byte-order mark is skipped (byte offsets still count it); a
//!   UTF-16 or UTF-32 one ends the iteration with [`Error::Encoding`], which says how to convert.
//! - [`Bz2Decoder`] is the reader's bzip2 decoding as a plain [`std::io::Read`], parallel at
//!   `threads > 1`, for bzip2 files of any format (it ends at the first damage instead).
//! - [`Cleaner`] (options in [`CleanerBuilder`]: dropped sections, list items) removes
//!   comments, `<ref>`s, templates, tables, files, categories, interlanguage links, magic
//!   words, `<math>`, `<gallery>` and other non-prose elements; keeps link labels, external link
//!   labels, `<nowiki>` text and the inner text of HTML tags; decodes HTML entities; and
//!   returns paragraphs in order with their section title and a `list` marker for list items.
//!   Sections titled "See also", "References", "External links", "Further reading", "Notes" and
//!   "Bibliography" are dropped by default ([`DEFAULT_DROP_SECTIONS`]).
//! - Files, media and categories go under the names of the wiki the page comes from:
//!   [`DumpReader::site_info`] reads the dump's `<siteinfo>` ([`SiteInfo`]),
//!   [`SiteNames::for_site`] adds the English names and, for 27 languages, the aliases and image
//!   options MediaWiki knows (`Зображення`, `Bild`, `міні`, `miniatur`), and
//!   [`CleanerBuilder::site_names`] hands them to the cleaner. The default is English.
//!
//! # Damaged bzip2 input
//!
//! A `.bz2` dump is read as a sequence of bzip2 streams (a multistream dump has one per 100
//! pages, a single-stream file one in all). The compressed bytes are cut at *stream starts*:
//! the stream magic `BZh[1-9]` followed by the block magic `0x314159265359`, byte-aligned, as
//! every non-empty bzip2 stream begins. Each piece from one start to the next (or to the end of
//! the file) is decoded on its own, at any thread count, with these rules:
//!
//! - a stream whose data is corrupt, or that ends (at the end of the file or at the next stream
//!   start) before its end-of-stream marker, gives its output up to the fault and one
//!   [`Error::Bzip2`] with the stream's compressed range, from its `BZh` to the next start;
//!   decoding resumes at the next start, so one bad stream costs only its own pages (a page it
//!   cuts is reported as [`Error::Malformed`] or [`Error::Truncated`]);
//! - bytes after a stream's end that do not start another stream (junk between streams) give
//!   one [`Error::Bzip2Junk`] with their compressed range and are skipped;
//! - nothing else decides where streams start: the multistream index
//!   (`...-multistream-index.txt.bz2`) is not read, so a missing, stale, cut-off or garbled
//!   index changes nothing. (Finding the starts by scanning costs less than decompressing the
//!   index, and cannot disagree with the dump.)
//!
//! A bomb (a small stream that decompresses to gigabytes) costs decompression time but not
//! unbounded memory: a page over the cap is dropped while it streams by; with threads a worker
//! holds one block's output (at most about 46 MB, for a block of long runs) and hands on at most
//! 8 MiB of it, a larger block being decoded again by the resolver in pieces of 1 MiB.
//!
//! # Performance
//!
//! Cleaning is three linear passes over the page with no recursion: nested templates and
//! links are matched with an explicit stack, and every search for a closing delimiter is bounded
//! by the next opening delimiter or memoised, so unbalanced braces, deep nesting and huge
//! tables cost time linear in the page size. `docs/performance.md` has the measured speeds
//! (`wikidump/clean`, `wikidump/xml`, end to end).
//!
//! Decompression dominates reading a `.bz2` dump. With `threads > 1` every stream (one per 100
//! pages in a *multistream* dump, one in all in a *single-stream* file) is decoded block by
//! block: a splitter finds the bit-aligned block magics (`0x314159265359`), each candidate block
//! is decoded on a worker and kept only if its CRC matches and it ends exactly at the next magic,
//! and the combined CRC is checked at the stream's end. A magic that occurs by chance inside
//! compressed data is repaired by decoding the block together with the next candidates; damage
//! is decoded sequentially from the damaged block, so the pages and errors are those of
//! `threads == 1`. A worker hands on at most 8 MiB of one block's output (larger blocks, from
//! bombs of long runs, are decoded again, streaming).
//!
//! With `threads == 1` everything runs on the calling thread, block by block with the same
//! block decoder, and the same rules for damage.
//!
//! # Crate features
//!
//! None. Blocks are decoded with the `mibz2` crate (pure Rust; on Wikipedia XML 0.44x the CPU per
//! byte of the `lbzip2` crate's decoder, used before, and 0.38x that of C `lbzip2 -n1` in our
//! measurements, docs/performance.md); whatever that decoder does not accept is
//! settled with the `bzip2` crate's default pure-Rust backend (libbz2-rs), whose output and
//! errors define the result.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

mod clean;
mod decoder;
mod error;
mod names;
mod reader;
mod scan;
mod site;
mod source;
mod xml;

pub use clean::{
    Article, Cleaner, CleanerBuildError, CleanerBuilder, DEFAULT_DROP_SECTIONS, Paragraph,
    Paragraphs,
};
pub use decoder::Bz2Decoder;
pub use error::Error;
pub use names::SiteNames;
pub use reader::{
    DEFAULT_MAX_PAGE_BYTES, DumpReader, PAGE_COPIES, Page, READER_FIXED_MEMORY, ReaderBuilder,
    THREAD_MEMORY,
};
pub use site::{MAX_SITEINFO_BYTES, NS_CATEGORY, NS_FILE, NS_MEDIA, Namespace, SiteInfo};

/// Where in source paths the decoders this crate catches panics of live: a panic of the `mibz2`
/// block decoder (none is known; the `lbzip2` crate's, used before, panicked on some damaged
/// blocks) counts as a block that does not decode, which the reader then decodes with libbz2-rs
/// and reports as damage if it is. A front end's panic hook may keep quiet about panics located
/// there (the `textreuse` command does; its message would only alarm).
pub const CAUGHT_PANICS: &[&str] = &["/mibz2-"];
