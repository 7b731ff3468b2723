//! Candidate retrieval for a plagiarism checker: a MinHash band-key index of a corpus's
//! paragraphs, queried with the paragraphs of a suspicious document.
//!
//! Aligning a suspicious document against every corpus document costs a pass over the whole
//! corpus per query; the index narrows the search to the few documents that share a band key
//! ([`textreuse_minhash::Signer::band_keys`]) with one of the suspicious document's paragraphs.
//! Each candidate is then aligned with an [`Aligner`](crate::Aligner).
//!
//! ```
//! use textreuse_align::index::CorpusIndex;
//!
//! let mut index = CorpusIndex::new();
//! index.add("Volcanoes form where magma reaches the surface of the earth. Most volcanoes lie \
//!     along the boundaries of tectonic plates, and the ring of fire holds many of them.");
//! index.add("Tomatoes grow best in warm weather with plenty of sun and regular watering. \
//!     Gardeners stake the plants so that the fruit stays off the ground.");
//! let suspicious = "In my essay I note that most volcanoes lie along the boundaries of \
//!     tectonic plates, and the ring of fire holds many of them.";
//! let found = index.candidates(suspicious, 5);
//! assert_eq!(found[0].doc, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Units and parameters
//!
//! Units are paragraph chunks ([`textreuse_shingle::chunks`]: paragraphs split on blank lines,
//! short ones merged into a neighbour until they hold [`IndexBuilder::min_words`] words; chunks
//! over 100 words are cut into pieces of 100 words). A
//! chunk's shingles are its word n-grams ([`IndexBuilder::ngram`], default 2, case-insensitive
//! word keys), and its MinHash signature gives [`IndexBuilder::bands`] band keys of
//! [`IndexBuilder::rows`] minhashes each.
//!
//! The defaults (word 2-grams, 30 disjoint bands of 2 rows, so 60 hashes) aim at obfuscated reuse,
//! whose paragraph-level word 2-gram Jaccard is often only 0.1 to 0.3: the exact collision
//! probability ([`Signer::exact_match_probability`]) is about 0.25 at Jaccard 0.1, 0.7 at 0.2
//! and 0.93 at 0.3, and a reused passage usually spans several paragraphs, each of which gets
//! its chance. Unrelated English paragraphs (Jaccard of word 2-grams around 0.01 to 0.03, mostly
//! stopword pairs) still collide now and then, so candidates are ranked by the number of shared
//! band keys and then by the best estimated Jaccard, and only the top few are aligned.
//!
//! # Performance
//!
//! Adding a document costs one signature per chunk (`O(words · hashes)`) and one map insert per
//! band key; the index holds, per chunk, its document, its span and its signature. A query costs
//! one signature per suspicious chunk plus the bucket sizes of its keys; buckets of more than
//! [`IndexBuilder::max_bucket`] chunks (keys shared by many chunks of a repetitive corpus, like
//! stopwords) are skipped, so a query chunk costs at most bands × that cap, and a query of
//! repeated text against a corpus of repeated text stays linear in their sizes. The persistent
//! index of `textreuse-index` does not cap its buckets: on a corpus with a larger bucket it can
//! rank candidates differently from this one.
use std::ops::Range;

use ahash::AHashMap;
use textreuse_hash::fingerprint_words;
use textreuse_minhash::{BandScheme, Signer};
use textreuse_shingle::{chunks, words};

/// Chunks longer than this many words are cut into pieces of this many words.
const MAX_WORDS: usize = 100;

/// Why an [`IndexBuilder`] could not build an index.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The n-gram length is 0; use 1 or more.
    #[error("the word n-gram length must be at least 1")]
    ZeroNgram,
    /// The bucket cap is 0; use 1 or more.
    #[error("the bucket cap must be at least 1")]
    ZeroMaxBucket,
    /// The MinHash parameters are invalid (see the inner error for which one); fix them.
    #[error("invalid MinHash parameters: {0}")]
    Signer(#[from] textreuse_minhash::BuildError),
}

/// Configures a [`CorpusIndex`].
#[derive(Clone, Debug)]
pub struct IndexBuilder {
    ngram: usize,
    min_words: usize,
    rows: usize,
    bands: usize,
    seed: u64,
    max_bucket: usize,
}

impl Default for IndexBuilder {
    fn default() -> Self {
        IndexBuilder::new()
    }
}

/// The default word n-gram length of the index's shingles.
pub const DEFAULT_NGRAM: usize = 2;
/// The default rows (minhashes) per band key of the index.
pub const DEFAULT_ROWS: usize = 2;
/// The default number of band keys per chunk of the index.
pub const DEFAULT_BANDS: usize = 30;
/// The default smallest chunk in words: shorter paragraphs are merged into a neighbour.
pub const DEFAULT_MIN_WORDS: usize = 20;
/// Chunks longer than this many words are cut into pieces of this many words.
pub const MAX_CHUNK_WORDS: usize = MAX_WORDS;
/// The default bucket cap ([`IndexBuilder::max_bucket`]): band keys of more chunks are skipped
/// by queries (as `textreuse-reuse`'s MinHash candidates skip theirs). Of the PAN 2013 training
/// sources' 736,179 buckets (25,645 chunks), 6 hold more, the largest 162.
pub const DEFAULT_MAX_BUCKET: usize = 100;

impl IndexBuilder {
    /// The defaults: word 2-grams, chunks of at least 20 words, 30 disjoint bands of 2 rows.
    pub fn new() -> IndexBuilder {
        IndexBuilder {
            ngram: DEFAULT_NGRAM,
            min_words: DEFAULT_MIN_WORDS,
            rows: DEFAULT_ROWS,
            bands: DEFAULT_BANDS,
            seed: textreuse_minhash::DEFAULT_SEED,
            max_bucket: DEFAULT_MAX_BUCKET,
        }
    }

    /// Word n-gram length of the shingles (default 2).
    pub fn ngram(&mut self, n: usize) -> &mut Self {
        self.ngram = n;
        self
    }

    /// Paragraphs are merged until a chunk holds this many words (default 20).
    pub fn min_words(&mut self, n: usize) -> &mut Self {
        self.min_words = n;
        self
    }

    /// Rows (minhashes) per band key (default 2).
    pub fn rows(&mut self, k: usize) -> &mut Self {
        self.rows = k;
        self
    }

    /// Band keys per chunk (default 30). Bands are disjoint ([`BandScheme::Disjoint`]), so a
    /// signature has rows × bands minhashes.
    pub fn bands(&mut self, m: usize) -> &mut Self {
        self.bands = m;
        self
    }

    /// Seed of the MinHash functions and bands (default 1123456).
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// Band keys shared by more than this many chunks are skipped by queries, like stopwords
    /// (default [`DEFAULT_MAX_BUCKET`]): a query chunk's work is then at most bands × this many
    /// chunk lookups, however repetitive the corpus and the query. `usize::MAX` for no cap.
    pub fn max_bucket(&mut self, n: usize) -> &mut Self {
        self.max_bucket = n;
        self
    }

    /// Builds an empty index.
    pub fn build(&self) -> Result<CorpusIndex, IndexError> {
        if self.ngram == 0 {
            return Err(IndexError::ZeroNgram);
        }
        if self.max_bucket == 0 {
            return Err(IndexError::ZeroMaxBucket);
        }
        let signer = Signer::builder()
            .rows(self.rows)
            .bands(self.bands)
            .seed(self.seed)
            .scheme(BandScheme::Disjoint)
            .build()?;
        Ok(CorpusIndex {
            ngram: self.ngram,
            min_words: self.min_words,
            signer,
            chunks: Vec::new(),
            mins: Vec::new(),
            buckets: AHashMap::new(),
            docs: 0,
            scratch: Scratch::default(),
            max_bucket: self.max_bucket,
        })
    }
}

/// One indexed paragraph chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkRef {
    /// The document (in the order of [`CorpusIndex::add`], from 0).
    pub doc: usize,
    /// Byte span of the chunk in its document.
    pub span: Range<usize>,
}

/// A candidate source document for a query, from [`CorpusIndex::candidates`].
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The document (in the order of [`CorpusIndex::add`], from 0).
    pub doc: usize,
    /// Band keys shared by a query chunk and a chunk of this document, summed over chunk pairs.
    pub shared_keys: usize,
    /// The largest estimated Jaccard similarity (of word n-gram sets) between a query chunk and
    /// a chunk of this document that share a band key.
    pub best_jaccard: f64,
    /// The corpus chunk of that best pair.
    pub best_chunk: usize,
    /// Byte span in the query of that best pair's query chunk.
    pub best_query_span: Range<usize>,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    keys: Vec<u64>,
    shingles: Vec<u64>,
    mins: Vec<u64>,
    bands: Vec<u64>,
}

/// A MinHash band-key index of paragraph chunks; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct CorpusIndex {
    ngram: usize,
    min_words: usize,
    signer: Signer,
    chunks: Vec<ChunkRef>,
    /// Signatures of the chunks, `hashes` values each.
    mins: Vec<u64>,
    buckets: AHashMap<u64, Vec<u32>>,
    docs: usize,
    scratch: Scratch,
    max_bucket: usize,
}

impl Default for CorpusIndex {
    fn default() -> Self {
        CorpusIndex::new()
    }
}

impl CorpusIndex {
    /// An empty index with the default settings.
    pub fn new() -> CorpusIndex {
        IndexBuilder::new()
            .build()
            .expect("the default parameters are valid")
    }

    /// A builder starting from the defaults.
    pub fn builder() -> IndexBuilder {
        IndexBuilder::new()
    }

    /// The MinHash signer (for its collision curve).
    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    /// Number of documents added.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// The indexed chunks, in order; [`Candidate::best_chunk`] indexes this.
    pub fn chunks(&self) -> &[ChunkRef] {
        &self.chunks
    }

    /// Adds a document and returns its number. Chunks with fewer words than the n-gram length
    /// are not indexed (a document can be findable by nothing).
    pub fn add(&mut self, text: &str) -> usize {
        let doc = self.docs;
        self.docs += 1;
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut spans = Vec::new();
        units(text, self.min_words, MAX_WORDS, &mut spans);
        for span in spans {
            if !self.sign(&text[span.clone()], &mut scratch) {
                continue;
            }
            let Ok(id) = u32::try_from(self.chunks.len()) else {
                // More than 4 billion chunks: stop indexing rather than alias ids.
                break;
            };
            self.chunks.push(ChunkRef { doc, span });
            self.mins.extend_from_slice(&scratch.mins);
            for &key in &scratch.bands {
                let bucket = self.buckets.entry(key).or_default();
                if bucket.last() != Some(&id) {
                    bucket.push(id);
                }
            }
        }
        self.scratch = scratch;
        doc
    }

    /// Signs `text` into `scratch.mins` and its band keys into `scratch.bands`; false when it
    /// has no n-gram.
    fn sign(&self, text: &str, scratch: &mut Scratch) -> bool {
        if !word_shingles(text, self.ngram, &mut scratch.keys, &mut scratch.shingles) {
            return false;
        }
        scratch.mins.resize(self.signer.hashes(), 0);
        if self
            .signer
            .sign_into(&scratch.shingles, &mut scratch.mins)
            .is_err()
        {
            return false;
        }
        scratch.bands.resize(self.signer.bands(), 0);
        self.signer
            .band_keys_into(&scratch.mins, &mut scratch.bands);
        true
    }

    /// The documents sharing band keys with the chunks of `query`, best first (more shared keys,
    /// then higher best estimated Jaccard, then lower document number), at most `top` of them.
    /// Keys of more than [`IndexBuilder::max_bucket`] chunks are not counted.
    pub fn candidates(&self, query: &str, top: usize) -> Vec<Candidate> {
        let mut scratch = Scratch::default();
        let mut by_doc: AHashMap<usize, Candidate> = AHashMap::new();
        let hashes = self.signer.hashes();
        let mut seen: Vec<u32> = Vec::new();
        let mut spans = Vec::new();
        units(query, self.min_words, MAX_WORDS, &mut spans);
        for span in spans {
            if !self.sign(&query[span.clone()], &mut scratch) {
                continue;
            }
            seen.clear();
            for key in &scratch.bands {
                match self.buckets.get(key) {
                    Some(bucket) if bucket.len() <= self.max_bucket => {
                        seen.extend_from_slice(bucket)
                    }
                    _ => {}
                }
            }
            seen.sort_unstable();
            let mut i = 0;
            while i < seen.len() {
                let id = seen[i];
                let mut j = i;
                while j < seen.len() && seen[j] == id {
                    j += 1;
                }
                let shared = j - i;
                i = j;
                let id = id as usize;
                let theirs = &self.mins[id * hashes..(id + 1) * hashes];
                let equal = theirs
                    .iter()
                    .zip(&scratch.mins)
                    .filter(|(a, b)| a == b)
                    .count();
                let jaccard = equal as f64 / hashes as f64;
                let doc = self.chunks[id].doc;
                let c = by_doc.entry(doc).or_insert_with(|| Candidate {
                    doc,
                    shared_keys: 0,
                    best_jaccard: -1.0,
                    best_chunk: id,
                    best_query_span: span.clone(),
                });
                c.shared_keys += shared;
                if jaccard > c.best_jaccard {
                    c.best_jaccard = jaccard;
                    c.best_chunk = id;
                    c.best_query_span = span.clone();
                }
            }
        }
        rank_candidates(by_doc.into_values().collect(), top)
    }
}

/// Ranks candidate documents as [`CorpusIndex::candidates`] does: more shared keys first, then
/// higher best estimated Jaccard, then lower document number; keeps the first `top`. Other
/// indexes of the same chunks (the persistent `textreuse-index`) rank with it too, so they
/// retrieve the same candidates.
pub fn rank_candidates(mut candidates: Vec<Candidate>, top: usize) -> Vec<Candidate> {
    candidates.sort_by(|a, b| {
        b.shared_keys
            .cmp(&a.shared_keys)
            .then(b.best_jaccard.total_cmp(&a.best_jaccard))
            .then(a.doc.cmp(&b.doc))
    });
    candidates.truncate(top);
    candidates
}

/// The word n-gram shingles of a chunk, as the index signs them: the case-insensitive word
/// keys of `text` ([`words()`](textreuse_shingle::words())), hashed `ngram` at a time
/// ([`fingerprint_words`]) into `out`.
/// `keys` is scratch space. Returns false (and leaves `out` unspecified) when `text` has fewer
/// than `ngram` words: such a chunk is not indexed.
pub fn word_shingles(text: &str, ngram: usize, keys: &mut Vec<u64>, out: &mut Vec<u64>) -> bool {
    keys.clear();
    keys.extend(words(text).map(|w| w.key()));
    if ngram == 0 || keys.len() < ngram {
        return false;
    }
    out.clear();
    out.extend(keys.windows(ngram).map(fingerprint_words));
    true
}

/// The chunks of `text` the index signs, as byte spans: its paragraph [`chunks`] of at least
/// `min_words` words, each cut into pieces of at most [`MAX_CHUNK_WORDS`] words (PAN documents
/// and other texts without blank lines would otherwise be one huge chunk). `out` is cleared
/// first.
pub fn chunk_spans(text: &str, min_words: usize, out: &mut Vec<Range<usize>>) {
    units(text, min_words, MAX_WORDS, out)
}

/// [`chunk_spans`] with the largest piece as a parameter.
fn units(text: &str, min_words: usize, max_words: usize, out: &mut Vec<Range<usize>>) {
    out.clear();
    for chunk in chunks(text, min_words) {
        let mut start = chunk.span.start;
        let mut end = start;
        let mut n = 0;
        for w in words(&text[chunk.span.clone()]) {
            if n == max_words {
                out.push(start..end);
                start = chunk.span.start + w.span.start;
                n = 0;
            }
            end = chunk.span.start + w.span.end;
            n += 1;
        }
        if n > 0 {
            out.push(start..end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCS: [&str; 4] = [
        "The river rises in the northern hills and flows south through a wide valley of farms \
         and orchards before it reaches the sea near the old harbour town.\n\nIn the nineteenth \
         century mills were built along its banks, and the town grew around the trade in grain \
         and timber that the river carried.",
        "Bees collect nectar and pollen from flowers, and in doing so they carry pollen from one \
         plant to the next, which lets many crops set fruit.\n\nA colony can hold tens of \
         thousands of workers in summer, but only a few thousand of them survive the cold winter \
         months inside the hive.",
        "The committee met every second week to review the budget, and its members argued about \
         the cost of the new library for most of the year.\n\nIn the end the council approved a \
         smaller building on the site of the old market hall.",
        "Chess engines search millions of positions per second and evaluate each one with a \
         function tuned on games between strong players.\n\nOpening books and endgame tables \
         complete the search where it is weakest.",
    ];

    fn index() -> CorpusIndex {
        let mut index = CorpusIndex::new();
        for (i, d) in DOCS.iter().enumerate() {
            assert_eq!(index.add(d), i);
        }
        index
    }

    #[test]
    fn copied_paragraph_is_retrieved_first() {
        let index = index();
        let query = "My own introduction says nothing about any of this and goes on for a \
             while with words of its own that are not in the corpus at all.\n\nA colony can hold \
             tens of thousands of workers in summer, but only a few thousand of them survive the cold \
             winter months inside the hive.";
        let found = index.candidates(query, 3);
        assert_eq!(found[0].doc, 1);
        assert!(found[0].best_jaccard > 0.8, "{found:?}");
        let chunk = &index.chunks()[found[0].best_chunk];
        assert!(DOCS[1][chunk.span.clone()].contains("A colony"));
        assert!(query[found[0].best_query_span.clone()].contains("A colony"));
    }

    #[test]
    fn edited_paragraph_is_retrieved_first() {
        let index = index();
        // Words replaced and reordered (light obfuscation).
        let query = "During the nineteenth century, mills were erected along its banks, and the \
             town grew around the commerce in grain and wood that the river transported.";
        let found = index.candidates(query, 3);
        assert_eq!(found[0].doc, 0, "{found:?}");
    }

    #[test]
    fn unrelated_query_finds_little() {
        let index = index();
        let query = "Quantum computers use qubits, which hold superpositions of states, and \
             algorithms such as Shor's factor integers faster than any known classical method.";
        let found = index.candidates(query, 3);
        assert!(found.iter().all(|c| c.best_jaccard < 0.3), "{found:?}");
    }

    #[test]
    fn top_limits_and_empty_inputs() {
        let mut index = index();
        assert_eq!(index.add(""), 4);
        assert_eq!(index.len(), 5);
        assert!(index.candidates("", 3).is_empty());
        assert!(index.candidates(DOCS[2], 0).is_empty());
        assert_eq!(index.candidates(DOCS[2], 1)[0].doc, 2);
        assert!(matches!(
            CorpusIndex::builder().ngram(0).build(),
            Err(IndexError::ZeroNgram)
        ));
        assert!(CorpusIndex::builder().rows(0).build().is_err());
    }

    #[test]
    fn repeated_text_skips_big_buckets() {
        // One paragraph repeated: every chunk of the corpus has the same band keys as the query's.
        let text = format!("{}\n\n", DOCS[0]).repeat(50);
        let mut capped = CorpusIndex::builder().max_bucket(10).build().unwrap();
        let mut all = CorpusIndex::builder()
            .max_bucket(usize::MAX)
            .build()
            .unwrap();
        capped.add(&text);
        all.add(&text);
        assert!(all.buckets.values().any(|b| b.len() > 10));
        // Without the cap the one document shares keys with every chunk pair; with it, only
        // keys of at most 10 chunks count.
        let c = capped.candidates(&text, 5);
        let a = all.candidates(&text, 5);
        assert_eq!(a[0].doc, 0);
        assert!(
            c.iter().all(|c| c.shared_keys < a[0].shared_keys),
            "{c:?} {a:?}"
        );
        assert!(matches!(
            CorpusIndex::builder().max_bucket(0).build(),
            Err(IndexError::ZeroMaxBucket)
        ));
    }

    #[test]
    fn default_curve_is_lenient() {
        let index = CorpusIndex::new();
        let s = index.signer();
        assert!(s.exact_match_probability(0.1) > 0.15);
        assert!(s.exact_match_probability(0.3) > 0.85);
    }
}
