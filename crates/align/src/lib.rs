//! Text alignment: find the passages of a suspicious document that were reused (copied,
//! paraphrased, translated back and forth, or summarized) from a source document, and score such
//! detections with the PAN measures.
//!
//! ```
//! use textreuse_align::Aligner;
//!
//! let source = "Volcanoes form where magma reaches the surface. Most volcanoes lie along the \
//!     boundaries of tectonic plates. The Pacific ring of fire holds many active volcanoes. \
//!     Eruptions can be explosive or effusive depending on the viscosity of the magma.";
//! let suspicious = "My essay starts here with unrelated words about gardening and tomatoes. \
//!     Most volcanoes lie along the boundaries of tectonic plates. The Pacific ring of fire \
//!     holds many active volcanoes. Eruptions can be explosive or effusive depending on the \
//!     viscosity of the magma.";
//! let aligner = Aligner::builder().min_passage_len(50).build()?;
//! let passages = aligner.align(source, suspicious);
//! assert_eq!(passages.len(), 1);
//! let p = &passages[0];
//! assert!(suspicious[p.suspicious.clone()].starts_with("Most volcanoes"));
//! assert!(source[p.source.clone()].ends_with("magma."));
//! // PAN counts characters (code points), not bytes:
//! let (src_chars, susp_chars) = p.char_ranges(source, suspicious);
//! assert_eq!(susp_chars.len(), suspicious[p.suspicious.clone()].chars().count());
//! # let _ = src_chars;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! The aligner follows the PAN 2014 winner (Sanchez-Perez, Sidorov and Gelbukh, "A Winning
//! Approach to Text Alignment for Text Reuse Detection at PAN 2014"):
//!
//! 1. **Units.** Both documents are split into words (runs of alphanumeric characters) and
//!    sentences (ending at `.`, `!`, `?` or a blank line; sentences of more than 50 words are
//!    cut into equal parts, so lists and unpunctuated lines still make sentences of a useful
//!    size; sentences with fewer than [`AlignerBuilder::min_sentence_words`] content words
//!    join the next one). Words are
//!    lowercased and stemmed, and stopwords are left out of the sentence vectors, by the rules
//!    of the texts' [`Language`] ([`AlignerBuilder::language`], English by default, or
//!    detected per pair with [`AlignerBuilder::detect_language`]). In English, a source word
//!    that the suspicious document lacks counts as its WordNet synonym there, where the source
//!    lacks that synonym ([`AlignerBuilder::synonyms`], on by default): paraphrases that swap
//!    words still share their terms.
//! 2. **Seeding.** Each sentence is a tf-idf vector (tf: count in the sentence; idf over the
//!    sentences of both documents). A pair of sentences is a seed when their cosine exceeds
//!    [`AlignerBuilder::cosine_threshold`] and the Dice coefficient of their term sets exceeds
//!    [`AlignerBuilder::dice_threshold`]. Optionally, sentence pairs sharing a word n-gram
//!    ([`AlignerBuilder::ngram`]) or a stopword n-gram ([`AlignerBuilder::stopword_ngram`]) are
//!    seeds too. Two caps keep this linear on any input: terms (and n-grams) found in more
//!    source sentences than [`AlignerBuilder::max_postings`] are left out like stopwords, and
//!    each sentence, suspicious or source, keeps only its [`AlignerBuilder::max_seeds`] most
//!    similar seeds.
//! 3. **Extension.** Seeds are clustered by splitting them wherever two consecutive seeds are more
//!    than [`AlignerBuilder::max_gap`] sentences apart, alternately in the suspicious and the
//!    source document, until nothing splits. Each cluster becomes a passage pair (from its first
//!    to its last sentence on each side) that must pass validation: the cosine of the two
//!    passages' summed vectors must exceed [`AlignerBuilder::validation_threshold`], otherwise
//!    the cluster is re-clustered with a gap one smaller. Where this finds no passage, the
//!    seeds together with the sentence pairs that share a word 4-gram
//!    ([`AlignerBuilder::fallback_ngram`]) are extended again, and the passages of this second
//!    extension that overlap none of the first are added: heavily reworded passages rarely
//!    have sentence pairs similar enough to seed, but often keep a few word sequences.
//! 4. **Summary mode.** When the passages found are much longer in the source than in the
//!    suspicious document ([`AlignerBuilder::summary_ratio`]), the suspicious text is likely a
//!    summary and extension is redone with the larger [`AlignerBuilder::summary_max_gap`] and
//!    the lower [`AlignerBuilder::summary_validation_threshold`].
//! 5. **Filtering.** Passages shorter than [`AlignerBuilder::min_passage_len`] on either side
//!    are dropped; of passages overlapping in the suspicious document, the more similar one
//!    is kept.
//! 6. **Fitting to the kind of reuse.** A passage pair whose suspicious words mostly lie in
//!    word 4-grams of its source passage is a copy: its boundaries move to where the copied
//!    text begins and ends ([`AlignerBuilder::copy_cover`]), instead of the sentence
//!    boundaries extension gives, if the two sides of the copy so found are about as long as
//!    each other. When a pair's passages together span several times more
//!    source than suspicious text and cover at least half of the suspicious text from the
//!    first to the last, the suspicious text is a summary: they become one passage
//!    pair, whose source side reaches the source document's start or end when little of it is
//!    left uncovered there ([`AlignerBuilder::summary_snap`]).
//!    Other passages are trimmed at their edges to where their text shares content words with
//!    the other document's passage ([`AlignerBuilder::edge_trim`]), then grow word by word
//!    into the text beside their edges where it shares content words with the text beside the
//!    same edge in the other document ([`AlignerBuilder::edge_window`]): reworded reuse often
//!    begins or ends inside a sentence. Passages that fitting, trimming or growing left shorter
//!    than [`AlignerBuilder::min_passage_len`] are dropped.
//! 7. **The pair's weak passages.** Passages scoring below a share of the pair's best passage
//!    ([`AlignerBuilder::best_passage_ratio`]) are dropped: beside a real case they are mostly
//!    chance matches of common wording.
//!
//! The [`pan`] module reads and writes PAN XML and computes precision, recall, granularity and
//! plagdet. A plagiarism checker built on the aligner (candidate sources retrieved from a corpus
//! with MinHash band keys of paragraph chunks, each found case classified as content or
//! structure reuse) is `textreuse-reuse`'s `Checker`, over `textreuse-index`'s `MemoryIndex`.
//!
//! # Performance
//!
//! Time and memory grow linearly with the two documents' length, whatever their content. Seeding
//! uses an inverted index of the source sentences and visits at most
//! [`AlignerBuilder::max_postings`] source sentences per suspicious word; at most
//! [`AlignerBuilder::max_seeds`] seeds per sentence reach extension, whose clustering stops
//! after 32 rounds of splitting (a part still splitting then is dropped; the PAN corpus needs at
//! most 4). Text made only of terms repeated in more source sentences than the cap (a passage
//! copied hundreds of times, a tiny vocabulary) therefore aligns to nothing. Documents of 4 GiB
//! or more are not supported (no passages are returned).
//! Everything is per pair and single-threaded; run pairs in parallel (the CLI uses rayon). The
//! full PAN 2013 training corpus (5,185 pairs) takes seconds; see `docs/performance.md`.
//!
//! # Accuracy
//!
//! On the PAN 2013 training corpus, see `docs/performance.md` for plagdet overall and per
//! obfuscation category with the default settings.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

use std::ops::Range;

mod align;
mod lang;
pub mod pan;
mod refine;
mod synonyms;
mod text;

pub use lang::{Language, LanguageChoice, UnknownLanguage};
pub use text::{Prepared, PreparedBytesError, char_range};

/// A reused passage: a byte range of the source document, the byte range of the suspicious
/// document that reuses it, and the similarity of the two (cosine of their tf-idf vectors, in
/// `0..=1`).
#[derive(Clone, Debug, PartialEq)]
pub struct Passage {
    /// Byte range in the source document (on `char` boundaries).
    pub source: Range<usize>,
    /// Byte range in the suspicious document (on `char` boundaries).
    pub suspicious: Range<usize>,
    /// Similarity of the two passages.
    pub score: f64,
}

impl Passage {
    /// The passage as character (Unicode code point) ranges, `(source, suspicious)`, as PAN
    /// counts offsets. The texts must be the ones that were aligned.
    ///
    /// # Panics
    /// If a range is out of bounds or not on a char boundary of its text, which cannot happen
    /// for passages returned by [`Aligner::align`] on the same texts.
    pub fn char_ranges(&self, source: &str, suspicious: &str) -> (Range<usize>, Range<usize>) {
        (
            char_range(source, self.source.clone()),
            char_range(suspicious, self.suspicious.clone()),
        )
    }
}

/// Finds reused passages between two documents; see the [crate docs](crate) for the algorithm.
/// Build one with [`Aligner::builder`] (or [`Aligner::new`] for the defaults) and reuse it: it is
/// immutable and `Sync`, so it can align many pairs in parallel.
#[derive(Clone, Debug)]
pub struct Aligner {
    min_sentence_words: usize,
    cosine_threshold: f64,
    dice_threshold: f64,
    validation_threshold: f64,
    max_gap: usize,
    min_gap: usize,
    summary_max_gap: Option<usize>,
    summary_ratio: f64,
    sentence_seeds: bool,
    ngram: Option<usize>,
    stopword_ngram: Option<usize>,
    fallback_ngram: Option<usize>,
    min_passage_len: usize,
    min_seeds: usize,
    best_ratio: f64,
    best_passage_ratio: f64,
    max_postings: usize,
    max_seeds: usize,
    language: Language,
    detect_language: bool,
    synonyms: bool,
    copy_cover: Option<f64>,
    edge_trim: Option<usize>,
    edge_window: Option<usize>,
    edge_density: f64,
    summary_snap: Option<f64>,
    summary_validation_threshold: f64,
    /// Forms a thread's cache of normalized words holds before it starts over.
    cache_forms: usize,
}

impl Default for Aligner {
    fn default() -> Self {
        Aligner::new()
    }
}

impl Aligner {
    /// An aligner with the default settings (the ones measured in `docs/performance.md`).
    pub fn new() -> Aligner {
        AlignerBuilder::new().aligner.clone()
    }

    /// A builder starting from the defaults.
    pub fn builder() -> AlignerBuilder {
        AlignerBuilder::new()
    }
}

/// Configures an [`Aligner`].
#[derive(Clone, Debug)]
pub struct AlignerBuilder {
    aligner: Aligner,
}

impl Default for AlignerBuilder {
    fn default() -> Self {
        AlignerBuilder::new()
    }
}

/// An invalid [`AlignerBuilder`] setting.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A threshold is outside `0..=1` (or not a number). Recover by passing a value in range.
    #[error("{name} must be in 0..=1, got {value}")]
    Threshold {
        /// The setting's name.
        name: &'static str,
        /// The value given.
        value: f64,
    },
    /// No seeding method is enabled. Recover by enabling sentence seeds or an n-gram size.
    #[error("no seeding method enabled")]
    NoSeeds,
    /// An n-gram size of zero. Recover by passing `None` or a size of at least 1.
    #[error("n-gram size must be at least 1")]
    ZeroNgram,
    /// The summary ratio is not a positive number. Recover by passing a value above 0.
    #[error("summary ratio must be positive, got {0}")]
    SummaryRatio(f64),
    /// A cap of zero, which would leave no seeds. Recover by passing at least 1 (`usize::MAX`
    /// for no cap).
    #[error("{0} must be at least 1")]
    ZeroCap(&'static str),
}

/// The default shortest passage kept, in bytes on either side ([`AlignerBuilder::min_passage_len`]).
pub const DEFAULT_MIN_PASSAGE_LEN: usize = 150;

/// The default postings cap ([`AlignerBuilder::max_postings`]): terms in more source sentences
/// than this are left out of the sentence vectors.
pub const DEFAULT_MAX_POSTINGS: usize = 100;

/// The default seeds cap ([`AlignerBuilder::max_seeds`]): seeds kept per sentence, on either side.
pub const DEFAULT_MAX_SEEDS: usize = 8;

/// The default word n-gram size of the second extension ([`AlignerBuilder::fallback_ngram`]),
/// chosen on half of the PAN 2013 training corpus (`docs/performance.md`).
pub const DEFAULT_FALLBACK_NGRAM: Option<usize> = Some(4);

/// The default [`AlignerBuilder::best_passage_ratio`], chosen on each half of the PAN 2013
/// training corpus (both chose it; `docs/performance.md`).
pub const DEFAULT_BEST_PASSAGE_RATIO: f64 = 0.55;

/// Whether English words match their WordNet synonyms by default ([`AlignerBuilder::synonyms`];
/// chosen on the PAN 2013 training corpus, `docs/performance.md`).
pub const DEFAULT_SYNONYMS: bool = true;

/// The default [`AlignerBuilder::edge_trim`], chosen on each half of the PAN 2013 training
/// corpus (both chose it; `docs/performance.md`).
pub const DEFAULT_EDGE_TRIM: Option<usize> = Some(3);

/// The default [`AlignerBuilder::edge_window`], chosen on each half of the PAN 2013 training
/// corpus (both chose it; `docs/performance.md`).
pub const DEFAULT_EDGE_WINDOW: Option<usize> = Some(25);

/// The default [`AlignerBuilder::cache_memory`]: `1 << 17` forms, about 19 MB per thread.
pub const DEFAULT_CACHE_MEMORY: usize = text::DEFAULT_CACHE_FORMS * text::FORM_BYTES;

/// The smallest [`AlignerBuilder::cache_memory`] used: 1,024 forms (150 KiB); a smaller cache
/// would start over at nearly every document.
pub const MIN_CACHE_MEMORY: usize = 1024 * text::FORM_BYTES;

/// The default [`AlignerBuilder::edge_density`], chosen with [`DEFAULT_EDGE_WINDOW`].
pub const DEFAULT_EDGE_DENSITY: f64 = 0.4;

impl AlignerBuilder {
    /// The defaults.
    pub fn new() -> AlignerBuilder {
        AlignerBuilder {
            aligner: Aligner {
                min_sentence_words: 3,
                cosine_threshold: 0.30,
                dice_threshold: 0.30,
                validation_threshold: 0.38,
                max_gap: 4,
                min_gap: 0,
                summary_max_gap: Some(24),
                summary_ratio: 3.0,
                sentence_seeds: true,
                ngram: None,
                stopword_ngram: None,
                fallback_ngram: DEFAULT_FALLBACK_NGRAM,
                min_passage_len: DEFAULT_MIN_PASSAGE_LEN,
                min_seeds: 1,
                best_ratio: 0.9,
                best_passage_ratio: DEFAULT_BEST_PASSAGE_RATIO,
                max_postings: DEFAULT_MAX_POSTINGS,
                max_seeds: DEFAULT_MAX_SEEDS,
                language: Language::English,
                detect_language: false,
                synonyms: DEFAULT_SYNONYMS,
                copy_cover: Some(0.6),
                edge_trim: DEFAULT_EDGE_TRIM,
                edge_window: DEFAULT_EDGE_WINDOW,
                edge_density: DEFAULT_EDGE_DENSITY,
                summary_snap: Some(0.7),
                summary_validation_threshold: 0.30,
                cache_forms: text::DEFAULT_CACHE_FORMS,
            },
        }
    }

    /// Sentences with fewer content words (non-stopwords) join the next sentence (default 3).
    pub fn min_sentence_words(&mut self, n: usize) -> &mut Self {
        self.aligner.min_sentence_words = n;
        self
    }

    /// Minimum tf-idf cosine of two sentences for a seed (default 0.30; Sanchez-Perez et al. used
    /// 0.33).
    pub fn cosine_threshold(&mut self, t: f64) -> &mut Self {
        self.aligner.cosine_threshold = t;
        self
    }

    /// Minimum Dice coefficient of two sentences' term sets for a seed (default 0.30;
    /// Sanchez-Perez et al. used 0.33).
    pub fn dice_threshold(&mut self, t: f64) -> &mut Self {
        self.aligner.dice_threshold = t;
        self
    }

    /// Minimum cosine of a passage pair's summed vectors (default 0.38; Sanchez-Perez et al. used
    /// 0.34).
    pub fn validation_threshold(&mut self, t: f64) -> &mut Self {
        self.aligner.validation_threshold = t;
        self
    }

    /// The largest number of seedless sentences allowed inside a passage (default 4).
    pub fn max_gap(&mut self, gap: usize) -> &mut Self {
        self.aligner.max_gap = gap;
        self
    }

    /// Validation lowers the gap down to this value before giving a cluster up (default 0).
    pub fn min_gap(&mut self, gap: usize) -> &mut Self {
        self.aligner.min_gap = gap;
        self
    }

    /// The gap used when the suspicious passages look like summaries; `None` disables summary
    /// mode (default `Some(24)`).
    pub fn summary_max_gap(&mut self, gap: Option<usize>) -> &mut Self {
        self.aligner.summary_max_gap = gap;
        self
    }

    /// Minimum cosine of a passage pair's summed vectors in summary mode's extension (default
    /// 0.30, below [`AlignerBuilder::validation_threshold`]'s 0.38, chosen on half of the PAN
    /// 2013 training corpus): a summary shares fewer words with its long source passage than a
    /// copy or a paraphrase does.
    pub fn summary_validation_threshold(&mut self, t: f64) -> &mut Self {
        self.aligner.summary_validation_threshold = t;
        self
    }

    /// Summary mode is used when the passages found are at least this many times longer in the
    /// source than in the suspicious document (default 3).
    pub fn summary_ratio(&mut self, ratio: f64) -> &mut Self {
        self.aligner.summary_ratio = ratio;
        self
    }

    /// Whether similar sentences are seeds (default true).
    pub fn sentence_seeds(&mut self, yes: bool) -> &mut Self {
        self.aligner.sentence_seeds = yes;
        self
    }

    /// Sentence pairs sharing a word n-gram of this size are seeds (default `None`).
    pub fn ngram(&mut self, n: Option<usize>) -> &mut Self {
        self.aligner.ngram = n;
        self
    }

    /// Sentence pairs sharing an n-gram of stopwords (the other words skipped) are seeds
    /// (default `None`).
    pub fn stopword_ngram(&mut self, n: Option<usize>) -> &mut Self {
        self.aligner.stopword_ngram = n;
        self
    }

    /// Where the seeds above give no passage, sentence pairs sharing a word n-gram of this size
    /// seed a second extension, whose passages are kept where they overlap no passage of the
    /// first (default [`DEFAULT_FALLBACK_NGRAM`], 4; `None` turns it off). It finds heavily
    /// reworded passages (words replaced, inserted and shuffled), whose sentences are too
    /// different to seed, without stretching the passages the first extension found.
    pub fn fallback_ngram(&mut self, n: Option<usize>) -> &mut Self {
        self.aligner.fallback_ngram = n;
        self
    }

    /// Passages shorter than this many bytes on either side are dropped (default 150; PAN's
    /// cases are at least about 150 characters in the source).
    pub fn min_passage_len(&mut self, n: usize) -> &mut Self {
        self.aligner.min_passage_len = n;
        self
    }

    /// Passages made of fewer seeds are dropped (default 1).
    pub fn min_seeds(&mut self, n: usize) -> &mut Self {
        self.aligner.min_seeds = n;
        self
    }

    /// A seed whose cosine is below this share of the best seed of its suspicious sentence is
    /// dropped before extension (default 0.9; 0 keeps all).
    pub fn best_ratio(&mut self, r: f64) -> &mut Self {
        self.aligner.best_ratio = r;
        self
    }

    /// A passage whose score (its validation cosine) is below this share of the best passage's
    /// in the same document pair is dropped (default [`DEFAULT_BEST_PASSAGE_RATIO`]; 0 keeps
    /// all). A pair's weak passages beside a strong one are mostly chance matches of common
    /// wording; a pair whose reused passages differ this much in similarity loses its weaker
    /// ones.
    pub fn best_passage_ratio(&mut self, r: f64) -> &mut Self {
        self.aligner.best_passage_ratio = r;
        self
    }

    /// Terms occurring in more than this many sentences of the source document are left out of
    /// both documents' sentence vectors, like stopwords; n-grams in more than this many source
    /// sentences make no n-gram seeds (default [`DEFAULT_MAX_POSTINGS`]). Seeding visits every
    /// source sentence of each term of a suspicious sentence, so this bounds its work to this
    /// many visits per suspicious word. `usize::MAX` for no cap.
    pub fn max_postings(&mut self, n: usize) -> &mut Self {
        self.aligner.max_postings = n;
        self
    }

    /// Each sentence keeps at most this many seeds, its most similar ones; the cap applies to
    /// the suspicious sentences, then to the source sentences (default [`DEFAULT_MAX_SEEDS`]).
    /// This bounds the seeds to this many per sentence, and so the work of extension.
    /// `usize::MAX` for no cap.
    pub fn max_seeds(&mut self, n: usize) -> &mut Self {
        self.aligner.max_seeds = n;
        self
    }

    /// Copies get exact boundaries: a passage pair with at least this share of its suspicious
    /// words in word 4-grams found in its source passage is trimmed to the first and last
    /// shared 4-gram, then extended while both texts agree, word by word (over up to 4 words
    /// that differ when a content word agrees behind them, so an obfuscated copy keeps its
    /// edges; never across a blank line) and then character by character (default
    /// `Some(0.6)`, chosen on half of the PAN 2013 training corpus, see `docs/performance.md`;
    /// `None` keeps sentence boundaries). A fit whose one side is more than 5 % longer than
    /// the other is no copy (shuffled or reworded sentences can share most of their 4-grams
    /// out of order) and is left to trimming and growing.
    pub fn copy_cover(&mut self, share: Option<f64>) -> &mut Self {
        self.aligner.copy_cover = share;
        self
    }

    /// Passages that are neither copies nor summaries are trimmed at each edge to where their
    /// text shares content words with the other document's passage: the words up to the point
    /// where, counting from the edge, the content words not found in the other passage most
    /// outnumber those found, when they do by at least this many. Each found word weighs so
    /// much that text with 60 % of the passage's own rate of found words breaks even (heavily
    /// reworded reuse keeps few of its source's words all along, its edges included). Default
    /// [`DEFAULT_EDGE_TRIM`]; `None` keeps sentence boundaries. Sentence-level
    /// extension takes whole sentences, and reworded reuse often begins or ends inside one.
    /// Trimming runs before [`AlignerBuilder::edge_window`]'s growth, and passages shorter
    /// than [`AlignerBuilder::min_passage_len`] after both are dropped.
    pub fn edge_trim(&mut self, lead: Option<usize>) -> &mut Self {
        self.aligner.edge_trim = lead;
        self
    }

    /// Passages that are neither copies nor summaries grow word by word into the text beside
    /// their edges, up to this many words, where that text in the suspicious document shares
    /// its content words with the text beside the same edge in the source (default
    /// [`DEFAULT_EDGE_WINDOW`]; `None` keeps sentence boundaries). An edge grows to the
    /// furthest content word found on the other side such that at least
    /// [`AlignerBuilder::edge_density`] of the content words between it and the edge are, and
    /// at least two; blank lines (paragraph breaks) stop it. Reworded reuse often begins or
    /// ends inside a sentence whose part was too short or too changed to seed.
    pub fn edge_window(&mut self, words: Option<usize>) -> &mut Self {
        self.aligner.edge_window = words;
        self
    }

    /// The share of content words beside a passage's edge that must be found beside the same
    /// edge in the other document for [`AlignerBuilder::edge_window`] to grow it (default
    /// [`DEFAULT_EDGE_DENSITY`]).
    pub fn edge_density(&mut self, share: f64) -> &mut Self {
        self.aligner.edge_density = share;
        self
    }

    /// Summaries cover their source: when a pair's passages together span at least
    /// [`AlignerBuilder::summary_ratio`] times more source than suspicious text, cover at
    /// least half of the suspicious text from the first to the last (a summary is one stretch
    /// of text), and summary mode is on, they are merged into one passage pair whose source side is extended to the
    /// start or end of the source document when less than this share of the source lies
    /// beyond it (default `Some(0.7)`, chosen on half of the PAN 2013 training corpus; `None`
    /// leaves summary passages as extension found them). Values near 1 assume a summary covers
    /// all of its source document, as PAN's summaries do.
    pub fn summary_snap(&mut self, share: Option<f64>) -> &mut Self {
        self.aligner.summary_snap = share;
        self
    }

    /// Whether a source word that the suspicious document lacks matches its synonym there
    /// (default [`DEFAULT_SYNONYMS`], on). Paraphrases replace words by synonyms ("provided" by
    /// "supplied"); with this, such sentences still share their terms. A source word takes the
    /// place of its synonym only where the source lacks that synonym itself. Synonyms are the
    /// one-word lemmas of a WordNet 3.0 synset, for each word its three most frequent senses;
    /// English only (other languages are aligned as without it).
    pub fn synonyms(&mut self, on: bool) -> &mut Self {
        self.aligner.synonyms = on;
        self
    }

    /// The language of the texts: its stemmer and stopword list normalize the words (default
    /// [`Language::English`]). See [`Language`] for what each language gets.
    pub fn language(&mut self, language: Language) -> &mut Self {
        self.aligner.language = language;
        self
    }

    /// Detect the language of each pair from the suspicious document's text
    /// ([`Language::detect`]), falling back to [`AlignerBuilder::language`] when detection is
    /// unsure or finds a language not supported (default false).
    pub fn detect_language(&mut self, yes: bool) -> &mut Self {
        self.aligner.detect_language = yes;
        self
    }

    /// Bytes of the cache of normalized words that each thread tokenizing texts keeps
    /// (default [`DEFAULT_CACHE_MEMORY`], about 19 MB; at least [`MIN_CACHE_MEMORY`] is
    /// used). Stemming is the costly part of tokenizing, so a thread keeps the forms it has
    /// stemmed, about 150 bytes each, and starts over when a document begins with the cache
    /// past this size. It changes no passage: a smaller cache saves memory and stems more
    /// often. The cache belongs to the thread, so a program with `n` threads tokenizing holds
    /// up to `n` of them (with their last document's new forms on top).
    ///
    /// ```
    /// use textreuse_align::Aligner;
    ///
    /// let small = Aligner::builder().min_passage_len(20).cache_memory(1 << 20).build()?;
    /// let default = Aligner::builder().min_passage_len(20).build()?;
    /// let (source, suspicious) = ("The cat sat on the mat all day long. It slept.",
    ///     "We saw that the cat sat on the mat all day long.");
    /// assert_eq!(small.align(source, suspicious), default.align(source, suspicious));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cache_memory(&mut self, bytes: usize) -> &mut Self {
        self.aligner.cache_forms = bytes.max(MIN_CACHE_MEMORY) / text::FORM_BYTES;
        self
    }

    /// Both of the above from a user's [`LanguageChoice`] (a code, or `auto`).
    pub fn language_choice(&mut self, choice: LanguageChoice) -> &mut Self {
        let (language, detect) = choice.language_and_detection();
        self.language(language).detect_language(detect)
    }

    /// Checks the settings and builds the aligner.
    ///
    /// # Errors
    /// [`BuildError`] for a threshold outside `0..=1`, no seeding method, a zero n-gram size,
    /// a non-positive summary ratio or a zero cap.
    pub fn build(&self) -> Result<Aligner, BuildError> {
        let a = &self.aligner;
        for (name, value) in [
            ("cosine_threshold", a.cosine_threshold),
            ("dice_threshold", a.dice_threshold),
            ("validation_threshold", a.validation_threshold),
            (
                "summary_validation_threshold",
                a.summary_validation_threshold,
            ),
            ("copy_cover", a.copy_cover.unwrap_or(0.0)),
            ("summary_snap", a.summary_snap.unwrap_or(0.0)),
            ("best_passage_ratio", a.best_passage_ratio),
            ("edge_density", a.edge_density),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(BuildError::Threshold { name, value });
            }
        }
        if !a.sentence_seeds && a.ngram.is_none() && a.stopword_ngram.is_none() {
            return Err(BuildError::NoSeeds);
        }
        if a.ngram == Some(0) || a.stopword_ngram == Some(0) || a.fallback_ngram == Some(0) {
            return Err(BuildError::ZeroNgram);
        }
        if a.summary_ratio.is_nan() || a.summary_ratio <= 0.0 {
            return Err(BuildError::SummaryRatio(a.summary_ratio));
        }
        for (name, value) in [("max_postings", a.max_postings), ("max_seeds", a.max_seeds)] {
            if value == 0 {
                return Err(BuildError::ZeroCap(name));
            }
        }
        Ok(a.clone())
    }
}

#[cfg(test)]
mod tests;
