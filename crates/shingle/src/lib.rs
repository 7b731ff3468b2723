//! Text into the units every other textreuse crate works on — sentences, character shingles,
//! words, word and stopword n-grams, paragraphs and chunks — each with its byte span in the
//! original text, in linear time and without per-item allocation on the hot paths.
//!
//! ```
//! use textreuse_hash::fingerprint;
//! use textreuse_shingle::{char_shingle_count, char_shingle_fingerprints, sentences};
//!
//! let text = "The U.S. Army hired Dr. Bruce E. Ivins in 1980. He worked there for 28 years.";
//! let mut fps = Vec::new();
//! for s in sentences(text) {
//!     let n = char_shingle_fingerprints(s.as_str(), 12, &mut fps);
//!     assert_eq!(n, char_shingle_count(s.as_str(), 12));
//!     assert_eq!(&text[s.span.clone()], s.as_str());
//! }
//! let first = sentences(text).next().ok_or("no sentence")?;
//! assert_eq!(first.as_str(), "The U.S. Army hired Dr. Bruce E. Ivins in 1980.");
//! // Shingle fingerprints are textreuse_hash fingerprints of the shingle bytes.
//! assert_eq!(fps[0], fingerprint(b"He worked th"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`normalize()`] with [`Normalize`] options: lowercasing, whitespace collapsing, digit and
//!   punctuation handling, with documented, idempotent rules ([module docs](mod@normalize)).
//! * [`sentences`] / [`SentenceSplitter`] → [`Sentences`] of [`Sentence`]: a linear-time
//!   splitter for encyclopedic prose (abbreviations, initials, decimals, quotes and brackets after
//!   the stop, ellipses, other scripts' terminators; rules in [`sentence`]).
//! * [`Shingler`]: normalized text -> 12-character shingle fingerprints, the recipe every
//!   signature (MinHash, SimHash) of a sentence is made of.
//! * [`char_shingle_fingerprints`] (fast, into a caller-owned `Vec<u64>`), [`CharShingles`]
//!   (spans and fingerprints), [`char_shingle_count`], [`dedup_fingerprints`].
//! * [`words()`] → [`Words`] of [`Word`]; [`WordNgrams`] with a stride; [`stopwords`] and the
//!   thesis's [`STOPWORDS`] for stopword n-grams.
//! * [`paragraphs`], [`chunks`] (merge of short paragraphs to a minimum word count) and
//!   [`long_sentences`] (the `m` longest sentences of at least `k` words per paragraph).
//! * The chunk recipe of the plagiarism checker and the reuse search: [`chunk_spans`] (chunks cut
//!   to at most [`MAX_CHUNK_WORDS`] words) and [`word_shingles`] (their word n-gram
//!   fingerprints).
//! * [`CharOffsets`]: byte offsets to char offsets for many lookups.
//! * [`edit`]: a fast, bounded Levenshtein distance ([`edit::Levenshtein`]) and the bounds that
//!   tie the Jaccard similarity of character shingle sets to edit distance
//!   ([`edit::jaccard_lower_bound`], [`edit::localized_substitution_bounds`]).
//! * [`units`]: the unit a job compares ([`units::Unit`]: sentence, paragraph, document), which
//!   units are kept ([`units::SentenceFilter`], a shingle-count window) and the kept units of a
//!   document with their ids and spans ([`units::KeptSentences`]).
//!
//! Sentence splitting is a hand-written scanner rather than `unicode-segmentation`'s UAX #29
//! sentence boundaries: UAX #29 splits after "Dr." and "U.S." before a capital, the rules needed
//! here are word-level heuristics it cannot express, and a dedicated byte scan is much faster.
//!
//! # Performance
//!
//! Everything is a single forward pass with bounded look-around; nothing recurses or backtracks
//! (the seed research's sentence regex overflowed the stack on long inputs). The splitter finds
//! candidate bytes 32 at a time (SSE2 on x86-64). Shingle fingerprints are
//! `textreuse_hash::fingerprint` values computed inline: runs of shingles without a multi-byte
//! char are hashed as fixed-width byte windows, eight at a time with AVX-512 IFMA on CPUs that
//! have it (detected at run time; the results are bit-identical on every path). Measured numbers
//! are in `docs/performance.md` (`cargo bench -p textreuse-benches --bench shingle`).
//!
//! # Crate features
//!
//! None.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

/// The default shingle length in characters (the seed research's 12-character shingles, which
/// cross word boundaries).
pub const DEFAULT_SHINGLE_CHARS: usize = 12;

pub mod chars;
pub mod chunk;
pub mod edit;
#[cfg(target_arch = "x86_64")]
mod ifma;
pub mod normalize;
pub mod sentence;
mod shingler;
pub mod units;
pub mod words;

use core::fmt;

pub use chars::{
    CharOffsets, CharShingles, Shingle, char_shingle_count, char_shingle_fingerprints,
    dedup_fingerprints, sorted_containment, sorted_jaccard,
};
pub use chunk::{
    Chunk, ChunkConfig, Chunks, DEFAULT_CHUNK_MIN_WORDS, DEFAULT_CHUNK_NGRAM, LongSentence,
    MAX_CHUNK_WORDS, Paragraphs, chunk_spans, chunks, long_sentences, paragraphs, word_shingles,
};
pub use normalize::{Digits, Normalize, Punctuation, normalize};
pub use sentence::{Sentence, SentenceSplitter, SentenceSplitterBuilder, Sentences, sentences};
pub use shingler::Shingler;
pub use words::{
    STOPWORDS, Stopwords, Word, WordNgram, WordNgrams, Words, is_stopword, stopwords, word_key,
    words,
};

/// The error type for invalid parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A length or stride that must be at least 1 was 0. Recover by passing 1 or more.
    ZeroLength {
        /// Which parameter was 0.
        what: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ZeroLength { what } => write!(f, "{what} must be at least 1, got 0"),
        }
    }
}

impl std::error::Error for Error {}
