//! Per-sentence features, computed one way for every front end: the sentence filter, the kept
//! sentences of a document with their ids, and the 64-bit SimHash of a sentence. MinHash band
//! keys come from [`textreuse_minhash::TextSigner`], the one text -> band keys recipe.
//!
//! Stage 1-2 of the pipeline, `textreuse sentences`, `textreuse simhash`, the benches and the
//! Python package all go through [`KeptSentences`] and these functions, so a sentence's id and
//! features are defined once.
//!
//! ```
//! use textreuse_dedup::features::{KeptSentences, SentenceFilter};
//! use textreuse_minhash::{Signer, TextSigner};
//!
//! let text = "Short one. The old mill on the river was built in 1820 and still grinds grain today.";
//! let filter = SentenceFilter { min_shingles: 40, ..SentenceFilter::default() };
//! let signer = Signer::new();
//! let mut text_signer = TextSigner::new(&signer);
//! let mut kept = KeptSentences::new(text, 7, &filter);
//! let s = kept.next().ok_or("no sentence kept")?;
//! assert_eq!((s.idx, s.id), (1, 7 << 32 | 1)); // sentence 0 is too short
//! let keys = text_signer.band_keys(s.text).ok_or("too short")?;
//! assert_eq!(keys.len(), 10);
//! assert!(kept.next().is_none());
//! assert_eq!(kept.sentences_seen(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::ops::Range;

use textreuse_minhash::{BandScheme, BuildError, Signer, SignerBuilder, Target, plan};
use textreuse_shingle::{DEFAULT_SHINGLE_CHARS, Sentences, Shingler, char_shingle_count};
use textreuse_simhash::{ParagraphFingerprinter, SimHasher};

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
    /// Sentences ([`textreuse_shingle::sentences`]).
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
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown unit {0:?}: use sentence, paragraph or document")]
pub struct UnknownUnit(pub String);

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

impl Unit {
    /// The default signer of this unit: for sentences the Weissman preset (the research's
    /// `N = 20`, `K = 10`, `M = 10` drawn bands, [`SignerBuilder::weissman`]), for paragraphs and
    /// documents the OPH preset ([`SignerBuilder::oph`]: one hash per shingle into 143 bins,
    /// 99% recall at Jaccard 0.9 where the Weissman preset has 83%).
    pub fn default_signer(self) -> SignerBuilder {
        match self {
            Unit::Sentence => SignerBuilder::weissman(),
            Unit::Paragraph | Unit::Document => SignerBuilder::oph(),
        }
    }
}

/// The MinHash options of a dedup run as its front ends take them (`textreuse dedup`'s
/// `--scheme --hashes --rows --bands --bits --seed` and, with `--threshold`, `--recall --below
/// --candidate-rate`), and the one rule that turns them into a signer, shared by the command
/// line and the Spark job so that the same options give the same band keys.
///
/// Without a threshold the signer is the scheme's preset (the unit's
/// [`Unit::default_signer`] when no scheme is given) with the options that were given. With a
/// threshold and neither rows nor bands given, [`textreuse_minhash::plan`] picks the cheapest
/// scheme (or the given one), `K` and `M` that meet [`SignerOptions::target`].
///
/// ```
/// use textreuse_dedup::Unit;
/// use textreuse_dedup::features::SignerOptions;
/// use textreuse_minhash::BandScheme;
///
/// let options = SignerOptions::default();
/// let paragraphs = options.signer(Unit::Paragraph, None, 20)?;
/// assert_eq!((paragraphs.scheme(), paragraphs.rows(), paragraphs.bands()), (BandScheme::Oph, 11, 13));
/// let planned = options.signer(Unit::Sentence, Some(0.8), 75)?;
/// assert!(planned.rows() * planned.bands() > 0);
/// let bad = SignerOptions { rows: Some(0), ..SignerOptions::default() };
/// assert!(bad.signer(Unit::Sentence, None, 75).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SignerOptions {
    /// The band scheme (default: the unit's; with a threshold, the cheapest of all).
    pub scheme: Option<BandScheme>,
    /// `N` of drawn bands (default 20; `K·M` for disjoint and OPH). With a threshold: `N`, or
    /// the budget `K·M` of disjoint bands.
    pub hashes: Option<usize>,
    /// `K`, minhashes per band (default: the scheme's, or planned for a threshold).
    pub rows: Option<usize>,
    /// `M`, bands (default: the scheme's, or planned for a threshold).
    pub bands: Option<usize>,
    /// Output bits of each hash function.
    pub bits: u32,
    /// Seed of the hash functions and band subsets.
    pub seed: u64,
    /// With a threshold: the probability of finding a pair at or above it.
    pub recall: f64,
    /// With a threshold: pairs at or below this similarity (default `max(T - 0.4, T / 6)`)...
    pub below: Option<f64>,
    /// ... become candidates with at most this probability.
    pub candidate_rate: f64,
}

impl Default for SignerOptions {
    fn default() -> Self {
        let target = Target::new(0.5);
        SignerOptions {
            scheme: None,
            hashes: None,
            rows: None,
            bands: None,
            bits: target.bits,
            seed: target.seed,
            recall: target.recall,
            below: None,
            candidate_rate: target.candidate_rate,
        }
    }
}

impl SignerOptions {
    /// Whether rows or bands were given (they win over a threshold's plan).
    pub fn explicit_bands(&self) -> bool {
        self.rows.is_some() || self.bands.is_some()
    }

    /// What the planner must meet for `threshold`, for units of at least `min_set` shingles:
    /// these options' recall, below, candidate rate, scheme (all schemes when none is given),
    /// `N`, bits and seed.
    pub fn target(&self, threshold: f64, min_set: usize) -> Target {
        let mut t = Target::new(threshold);
        t.recall = self.recall;
        t.candidate_rate = self.candidate_rate;
        if let Some(b) = self.below {
            t.below = b;
        }
        t.min_set = min_set.max(1);
        if let Some(s) = self.scheme {
            t.schemes = vec![s];
        }
        if let Some(n) = self.hashes {
            // N of drawn bands, the budget K*M of disjoint ones.
            t.hashes = n;
            t.max_hashes = n;
        }
        t.bits = self.bits;
        t.seed = self.seed;
        t
    }

    /// The builder these options describe for `unit`, without a threshold: the scheme's preset
    /// (the unit's default scheme when none is given) with the options that were given.
    pub fn builder(&self, unit: Unit) -> SignerBuilder {
        let mut builder = match self.scheme {
            None => unit.default_signer(),
            Some(s) => SignerBuilder::preset(s),
        };
        builder.bits(self.bits).seed(self.seed);
        if let Some(k) = self.rows {
            builder.rows(k);
        }
        if let Some(m) = self.bands {
            builder.bands(m);
        }
        if let Some(n) = self.hashes {
            builder.hashes(n);
        }
        builder
    }

    /// The signer of a run over `unit` with an optional similarity `threshold`, for units of
    /// at least `min_set` shingles (the filter's minimum): planned when there is a threshold
    /// and neither rows nor bands were given, else [`SignerOptions::builder`]'s. The error
    /// names the parameter to change ([`BuildError`]).
    pub fn signer(
        &self,
        unit: Unit,
        threshold: Option<f64>,
        min_set: usize,
    ) -> Result<Signer, BuildError> {
        match threshold {
            Some(t) if !self.explicit_bands() => plan(&self.target(t, min_set))?.builder().build(),
            _ => self.builder(unit).build(),
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
            Unit::Sentence => Units::Sentences(textreuse_shingle::sentences(text)),
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

/// The 64-bit SimHash of `sentence` as `textreuse dedup --method simhash` computes it: the
/// sentence's normalized shingle fingerprints ([`Shingler`]) taken as a set (sorted, duplicates
/// removed, as MinHash sees them) and fingerprinted unweighted by `hasher` (the pipeline uses
/// [`SimHasher::new`]). `None` when the normalized sentence is shorter than one shingle.
pub fn sentence_simhash(
    sentence: &str,
    shingler: &mut Shingler,
    hasher: &SimHasher,
) -> Option<u64> {
    let shingles = shingler.fingerprints(sentence);
    if shingles.is_empty() {
        return None;
    }
    shingles.sort_unstable();
    shingles.dedup();
    Some(hasher.fingerprint_unweighted(shingles.iter().copied()))
}

/// The 64-bit SimHash fingerprint of a unit as `textreuse dedup --method simhash` and
/// `textreuse simhash` compute it: a sentence by [`sentence_simhash`] (its shingle set), a
/// paragraph or a document by the weighted paragraph fingerprint of `paragraphs` (the pipeline
/// uses [`ParagraphFingerprinter::new`]: the unit's longest sentences, weighted by keyword
/// frequency, length and position, after Wang, Liu and Jia). `None` when the unit is too short
/// (shorter than one shingle; no sentence of at least the fingerprinter's minimum words).
///
/// ```
/// use textreuse_dedup::features::{Unit, unit_simhash};
/// use textreuse_shingle::Shingler;
/// use textreuse_simhash::{ParagraphFingerprinter, SimHasher};
///
/// let (mut shingler, hasher, paragraphs) = (Shingler::new(), SimHasher::new(), ParagraphFingerprinter::new());
/// let text = "The river rises in the northern hills. It flows south through three market towns.";
/// let mut fp = |unit, text| unit_simhash(unit, text, &mut shingler, &hasher, &paragraphs);
/// assert_eq!(fp(Unit::Paragraph, text), paragraphs.fingerprint_paragraph(text));
/// assert_ne!(fp(Unit::Sentence, text), fp(Unit::Paragraph, text));
/// ```
pub fn unit_simhash(
    unit: Unit,
    text: &str,
    shingler: &mut Shingler,
    hasher: &SimHasher,
    paragraphs: &ParagraphFingerprinter,
) -> Option<u64> {
    match unit {
        Unit::Sentence => sentence_simhash(text, shingler, hasher),
        Unit::Paragraph | Unit::Document => paragraphs.fingerprint_paragraph(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_hash::fingerprint;
    use textreuse_shingle::{Normalize, normalize};

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

    #[test]
    fn simhash_is_of_the_normalized_shingle_set() {
        let (mut shingler, hasher) = (Shingler::new(), SimHasher::new());
        let text = "The  Old Mill stands beside the river; the old mill stands beside the river.";
        let fp = sentence_simhash(text, &mut shingler, &hasher).unwrap();
        // By hand: normalize, shingle, set, fingerprint.
        let mut normalized = String::new();
        normalize(text, &Normalize::new(), &mut normalized);
        let chars: Vec<(usize, char)> = normalized.char_indices().collect();
        let mut set: Vec<u64> = (0..=chars.len() - 12)
            .map(|i| {
                let end = chars.get(i + 12).map_or(normalized.len(), |c| c.0);
                fingerprint(&normalized.as_bytes()[chars[i].0..end])
            })
            .collect();
        set.sort_unstable();
        set.dedup();
        assert_eq!(fp, hasher.fingerprint_unweighted(set.iter().copied()));
        // Case and spacing are normalized away; a set ignores repetition order.
        let same = "the old mill stands beside the river; the old mill stands beside the river.";
        assert_eq!(sentence_simhash(same, &mut shingler, &hasher), Some(fp));
        assert_eq!(sentence_simhash("short", &mut shingler, &hasher), None);
    }
}
