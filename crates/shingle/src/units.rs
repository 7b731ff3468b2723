//! The units a text is compared in (sentences, paragraphs, whole documents), which of them are
//! kept (a [`SentenceFilter`] on their shingle count), and their ids: [`KeptSentences`] yields
//! the kept units of one document with their index, id, byte and character spans. Every job
//! that splits documents (dedup, the persistent index, the Python package's Spark backend,
//! `textreuse sentences`) goes through it, so a unit's id is defined once.
//!
//! ```
//! use textreuse_shingle::units::{KeptSentences, SentenceFilter, Unit};
//!
//! let text = "Short one. The old mill on the river was built in 1820 and still grinds grain today.";
//! let filter = SentenceFilter { min_shingles: 40, ..SentenceFilter::default() };
//! let mut kept = KeptSentences::new(text, 7, &filter);
//! let s = kept.next().ok_or("no sentence kept")?;
//! assert_eq!((s.idx, s.id), (1, 7 << 32 | 1)); // sentence 0 is too short
//! assert!(kept.next().is_none());
//! assert_eq!(kept.sentences_seen(), 2);
//! let whole = KeptSentences::with_unit(text, 7, &Unit::Document.default_filter(), Unit::Document);
//! assert_eq!(whole.count(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::ops::Range;

use crate::{DEFAULT_SHINGLE_CHARS, Sentences, char_shingle_count};

/// The default smallest shingle count of a kept sentence (the research's 75).
pub const DEFAULT_MIN_SHINGLES: usize = 75;
/// The default largest shingle count of a kept sentence (the research's 600).
pub const DEFAULT_MAX_SHINGLES: usize = 600;

/// Which sentences are kept: those whose shingle count, on the sentence as written (before
/// normalization), is within `min_shingles..=max_shingles`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentenceFilter {
    /// Shingle length in characters (default 12).
    pub shingle: usize,
    /// Smallest shingle count kept (default 75).
    pub min_shingles: usize,
    /// Largest shingle count kept (default 600; `usize::MAX` for no bound).
    pub max_shingles: usize,
}

impl Default for SentenceFilter {
    fn default() -> Self {
        SentenceFilter {
            shingle: DEFAULT_SHINGLE_CHARS,
            min_shingles: DEFAULT_MIN_SHINGLES,
            max_shingles: DEFAULT_MAX_SHINGLES,
        }
    }
}

impl SentenceFilter {
    /// Whether `sentence` passes the filter.
    pub fn keeps(&self, sentence: &str) -> bool {
        self.keeps_count(char_shingle_count(sentence, self.shingle))
    }

    /// Whether a sentence of `count` shingles passes the filter.
    pub fn keeps_count(&self, count: usize) -> bool {
        count >= self.min_shingles && count <= self.max_shingles
    }
}

/// The unit dedup compares: sentences (the research's default, for dumps), paragraphs or whole
/// documents (the common case when cleaning a corpus).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unit {
    /// Sentences ([`sentences`](crate::sentences)).
    #[default]
    Sentence,
    /// Paragraphs: the non-blank lines of the text, trimmed (text from dumps and from
    /// `textreuse extract` has one paragraph per line; so does most web text).
    Paragraph,
    /// The whole document text, trimmed.
    Document,
}

impl Unit {
    /// Its name (`sentence`, `paragraph`, `document`), as in `stats.json` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Sentence => "sentence",
            Unit::Paragraph => "paragraph",
            Unit::Document => "document",
        }
    }

    /// The default filter of this unit: 12-character shingles; sentences of 75..=600 shingles
    /// (the research's, which leaves out fragments and run-on lists), paragraphs and documents of
    /// at least [`DEFAULT_MIN_SHINGLES_LONG_UNITS`] shingles and no upper bound (a long document
    /// is as much a duplicate as a short one).
    pub fn default_filter(self) -> SentenceFilter {
        match self {
            Unit::Sentence => SentenceFilter::default(),
            Unit::Paragraph | Unit::Document => SentenceFilter {
                min_shingles: DEFAULT_MIN_SHINGLES_LONG_UNITS,
                max_shingles: usize::MAX,
                ..SentenceFilter::default()
            },
        }
    }
}

/// A unit name that is not `sentence`, `paragraph` or `document` ([`Unit`]'s `FromStr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownUnit(pub String);

impl std::fmt::Display for UnknownUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown unit {:?}: use sentence, paragraph or document",
            self.0
        )
    }
}

impl std::error::Error for UnknownUnit {}

impl std::str::FromStr for Unit {
    type Err = UnknownUnit;

    /// The unit of a name as [`Unit::as_str`] writes it.
    fn from_str(name: &str) -> Result<Unit, UnknownUnit> {
        match name {
            "sentence" => Ok(Unit::Sentence),
            "paragraph" => Ok(Unit::Paragraph),
            "document" => Ok(Unit::Document),
            _ => Err(UnknownUnit(name.to_string())),
        }
    }
}

/// The default smallest shingle count of a kept paragraph or document: 20 shingles of 12
/// characters is a text of 31 characters, enough for a MinHash estimate to mean something.
pub const DEFAULT_MIN_SHINGLES_LONG_UNITS: usize = 20;

/// The sentence id of sentence `idx` of the document at input position `seq`: `seq << 32 | idx`.
/// Two versions of one page (same document id, two positions) get different ids.
#[inline]
pub fn sentence_id(seq: u64, idx: u32) -> u64 {
    seq << 32 | idx as u64
}

/// One sentence of a document that passed the filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptSentence<'a> {
    /// Its index among all sentences of the document (kept or not), so `(document, idx)` is
    /// stable whatever the filter.
    pub idx: u32,
    /// Its sentence id, [`sentence_id`]`(seq, idx)`.
    pub id: u64,
    /// Its byte span in the document text.
    pub span: Range<usize>,
    /// Its text.
    pub text: &'a str,
    /// Its shingle count on the text as written.
    pub shingles: usize,
    /// Its span in the document text in characters (Unicode scalar values), as the outputs
    /// give it.
    pub chars: Range<u64>,
}

/// The sentences of one document that pass a [`SentenceFilter`], with their ids: stage 1 of the
/// pipeline for one document. [`KeptSentences::sentences_seen`] counts every sentence, kept or
/// not.
///
/// With [`KeptSentences::with_unit`] it yields paragraphs or the whole document instead, with
/// the same ids, spans and filter ("sentence" then reads "unit").
#[derive(Debug)]
pub struct KeptSentences<'a> {
    units: Units<'a>,
    text: &'a str,
    seq: u64,
    filter: SentenceFilter,
    seen: u64,
    /// Where character counting stands: a byte position and its character offset (counted
    /// once over the text, up to the last kept unit).
    counted: (usize, u64),
}

/// The units of a text, before the filter.
#[derive(Debug)]
enum Units<'a> {
    Sentences(Sentences<'a>),
    /// The text and the byte position of the next line.
    Lines(&'a str, usize),
    /// The text, until it was yielded.
    Whole(Option<&'a str>),
}

impl<'a> Iterator for Units<'a> {
    type Item = (Range<usize>, &'a str);

    fn next(&mut self) -> Option<(Range<usize>, &'a str)> {
        match self {
            Units::Sentences(s) => s.next().map(|s| (s.span.clone(), s.as_str())),
            Units::Lines(text, pos) => loop {
                if *pos >= text.len() {
                    return None;
                }
                let start = *pos;
                let end = memchr::memchr(b'\n', &text.as_bytes()[start..])
                    .map_or(text.len(), |i| start + i);
                *pos = end + 1;
                if let Some(unit) = trimmed(text, start..end) {
                    return Some(unit);
                }
            },
            Units::Whole(text) => {
                let text = text.take()?;
                trimmed(text, 0..text.len())
            }
        }
    }
}

/// `text[span]` without its leading and trailing whitespace, with its span; `None` when blank.
fn trimmed(text: &str, span: Range<usize>) -> Option<(Range<usize>, &str)> {
    let s = &text[span.clone()];
    let start = span.start + (s.len() - s.trim_start().len());
    let end = span.end - (s.len() - s.trim_end().len());
    (start < end).then(|| (start..end, &text[start..end]))
}

impl<'a> KeptSentences<'a> {
    /// The kept sentences of `text`, the document at input position `seq`.
    pub fn new(text: &'a str, seq: u64, filter: &SentenceFilter) -> KeptSentences<'a> {
        KeptSentences::with_unit(text, seq, filter, Unit::Sentence)
    }

    /// The kept units of `text`: sentences, paragraphs (non-blank lines) or the document.
    pub fn with_unit(
        text: &'a str,
        seq: u64,
        filter: &SentenceFilter,
        unit: Unit,
    ) -> KeptSentences<'a> {
        let units = match unit {
            Unit::Sentence => Units::Sentences(crate::sentences(text)),
            Unit::Paragraph => Units::Lines(text, 0),
            Unit::Document => Units::Whole(Some(text)),
        };
        KeptSentences {
            units,
            text,
            seq,
            filter: *filter,
            seen: 0,
            counted: (0, 0),
        }
    }

    /// The sentences seen so far, kept or not (all of them once the iterator is exhausted).
    pub fn sentences_seen(&self) -> u64 {
        self.seen
    }
}

impl<'a> Iterator for KeptSentences<'a> {
    type Item = KeptSentence<'a>;

    fn next(&mut self) -> Option<KeptSentence<'a>> {
        for (span, text) in self.units.by_ref() {
            let idx = self.seen as u32;
            self.seen += 1;
            let shingles = char_shingle_count(text, self.filter.shingle);
            if self.filter.keeps_count(shingles) {
                let (byte, char) = self.counted;
                let start = char + self.text[byte..span.start].chars().count() as u64;
                let end = start + text.chars().count() as u64;
                self.counted = (span.end, end);
                return Some(KeptSentence {
                    idx,
                    id: sentence_id(self.seq, idx),
                    span,
                    text,
                    shingles,
                    chars: start..end,
                });
            }
        }
        None
    }
}

impl std::iter::FusedIterator for KeptSentences<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_counts_shingles_of_the_text_as_written() {
        let f = SentenceFilter {
            shingle: 4,
            min_shingles: 2,
            max_shingles: 3,
        };
        assert!(!f.keeps("abcd")); // 1 shingle
        assert!(f.keeps("abcde")); // 2
        assert!(f.keeps("ABCDEF")); // 3
        assert!(!f.keeps("abcdefg")); // 4
    }

    #[test]
    fn kept_sentences_count_every_sentence() {
        let f = SentenceFilter {
            shingle: 4,
            min_shingles: 3,
            max_shingles: 100,
        };
        let text = "Hi. This one is kept. No. And this one too.";
        let mut kept = KeptSentences::new(text, 2, &f);
        let all: Vec<KeptSentence<'_>> = kept.by_ref().collect();
        assert_eq!(kept.sentences_seen(), 4);
        let idx: Vec<u32> = all.iter().map(|s| s.idx).collect();
        assert_eq!(idx, [1, 3]);
        assert_eq!(all[0].id, 2 << 32 | 1);
        assert_eq!(&text[all[1].span.clone()], all[1].text);
    }

    #[test]
    fn character_spans_cut_the_unit_out_of_the_text() {
        let f = SentenceFilter {
            shingle: 4,
            min_shingles: 3,
            max_shingles: 100,
        };
        let text = "Çà. Über naïve café, déjà vu. Oui. Ça va très bien, merci.";
        let chars: Vec<char> = text.chars().collect();
        let kept: Vec<KeptSentence<'_>> = KeptSentences::new(text, 0, &f).collect();
        assert_eq!(kept.len(), 2);
        for s in &kept {
            let cut: String = chars[s.chars.start as usize..s.chars.end as usize]
                .iter()
                .collect();
            assert_eq!(cut, s.text);
        }
    }

    #[test]
    fn paragraphs_are_trimmed_non_blank_lines_and_documents_are_whole() {
        let f = SentenceFilter {
            shingle: 4,
            min_shingles: 1,
            max_shingles: usize::MAX,
        };
        let text = "  First para. Two sentences.\n\n\t\nSecond one\r\nokay then\n";
        let paras: Vec<(u32, &str)> = KeptSentences::with_unit(text, 0, &f, Unit::Paragraph)
            .map(|p| (p.idx, p.text))
            .collect();
        assert_eq!(
            paras,
            [
                (0, "First para. Two sentences."),
                (1, "Second one"),
                (2, "okay then")
            ]
        );
        let kept: Vec<KeptSentence<'_>> =
            KeptSentences::with_unit(text, 3, &f, Unit::Document).collect();
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].idx, kept[0].id), (0, 3 << 32));
        assert_eq!(kept[0].text, text.trim());
        assert_eq!(&text[kept[0].span.clone()], text.trim());
        assert_eq!(
            KeptSentences::with_unit(" \n ", 0, &f, Unit::Document).count(),
            0
        );
    }
}
