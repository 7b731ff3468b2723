//! [`MemoryIndex`]: the plagiarism checker's chunk index in memory.
use std::ops::Range;

use ahash::AHashMap;
use textreuse_minhash::{Signer, SignerConfig};
use textreuse_shingle::{ChunkConfig, chunk_spans, word_shingles};

use crate::candidates::{Candidate, DEFAULT_MAX_QUERY_BUCKET, Hit, Order, Tally};

/// Why a [`MemoryIndexBuilder`] could not build an index, or a [`MemoryIndex`] could not answer
/// a query.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryIndexError {
    /// A containment threshold outside `0..=1` (or NaN) was given to
    /// [`MemoryIndex::query_containment`]; pass a fraction.
    #[error("the containment threshold must be within 0..=1, not {0}")]
    Threshold(f64),
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

/// Configures a [`MemoryIndex`]: the chunk recipe ([`ChunkConfig`]), the MinHash parameters
/// ([`SignerConfig`], default [`SignerConfig::chunks`]) and the query bucket cap.
///
/// ```
/// use textreuse_index::MemoryIndex;
/// use textreuse_minhash::SignerConfig;
/// use textreuse_shingle::ChunkConfig;
///
/// let index = MemoryIndex::builder()
///     .chunks(ChunkConfig { ngram: 3, ..ChunkConfig::default() })
///     .signer(SignerConfig { bands: 40, ..SignerConfig::chunks() })
///     .build()?;
/// assert_eq!(index.signer().hashes(), 80);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct MemoryIndexBuilder {
    chunks: ChunkConfig,
    signer: SignerConfig,
    max_bucket: usize,
}

impl Default for MemoryIndexBuilder {
    fn default() -> Self {
        MemoryIndexBuilder::new()
    }
}

impl MemoryIndexBuilder {
    /// The defaults: the chunk recipe's ([`ChunkConfig::default`]: word 2-grams, chunks of at
    /// least 20 words), the chunk preset ([`SignerConfig::chunks`]: 30 disjoint bands of 2
    /// rows), buckets of more than [`DEFAULT_MAX_QUERY_BUCKET`] chunks skipped.
    pub fn new() -> MemoryIndexBuilder {
        MemoryIndexBuilder {
            chunks: ChunkConfig::default(),
            signer: SignerConfig::chunks(),
            max_bucket: DEFAULT_MAX_QUERY_BUCKET,
        }
    }

    /// How texts are cut into chunks and shingled (default [`ChunkConfig::default`]).
    pub fn chunks(&mut self, chunks: ChunkConfig) -> &mut Self {
        self.chunks = chunks;
        self
    }

    /// The MinHash parameters of the chunks' signatures (default [`SignerConfig::chunks`]).
    pub fn signer(&mut self, signer: SignerConfig) -> &mut Self {
        self.signer = signer;
        self
    }

    /// The chunk recipe set.
    pub fn chunk_config(&self) -> ChunkConfig {
        self.chunks
    }

    /// The MinHash parameters set.
    pub fn signer_config(&self) -> SignerConfig {
        self.signer
    }

    /// Band keys shared by more than this many chunks are skipped by queries, like stopwords
    /// (default [`DEFAULT_MAX_QUERY_BUCKET`]): a query chunk's work is then at most bands × this many
    /// chunk lookups, however repetitive the corpus and the query. `usize::MAX` for no cap.
    pub fn max_bucket(&mut self, n: usize) -> &mut Self {
        self.max_bucket = n;
        self
    }

    /// Builds an empty index.
    pub fn build(&self) -> Result<MemoryIndex, MemoryIndexError> {
        if self.chunks.ngram == 0 {
            return Err(MemoryIndexError::ZeroNgram);
        }
        if self.max_bucket == 0 {
            return Err(MemoryIndexError::ZeroMaxBucket);
        }
        let signer = self.signer.build()?;
        Ok(MemoryIndex {
            ngram: self.chunks.ngram,
            min_words: self.chunks.min_words,
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
    /// The document (in the order of [`MemoryIndex::add`], from 0).
    pub doc: usize,
    /// Byte span of the chunk in its document.
    pub span: Range<usize>,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    keys: Vec<u64>,
    shingles: Vec<u64>,
    mins: Vec<u64>,
    bands: Vec<u64>,
}

/// The in-memory chunk index of a plagiarism checker: a MinHash band-key index of a corpus's
/// paragraph chunks, queried with the chunks of a suspicious document.
///
/// Aligning a suspicious document against every corpus document costs a pass over the whole
/// corpus per query; the index narrows the search to the few documents that share a band key
/// ([`textreuse_minhash::Signer::band_keys`]) with one of the suspicious document's chunks.
/// Each candidate is then aligned (`textreuse-reuse`'s `Checker` does all of it).
///
/// ```
/// use textreuse_index::MemoryIndex;
///
/// let mut index = MemoryIndex::new();
/// index.add("Volcanoes form where magma reaches the surface of the earth. Most volcanoes lie \
///     along the boundaries of tectonic plates, and the ring of fire holds many of them.");
/// index.add("Tomatoes grow best in warm weather with plenty of sun and regular watering. \
///     Gardeners stake the plants so that the fruit stays off the ground.");
/// let suspicious = "In my essay I note that most volcanoes lie along the boundaries of \
///     tectonic plates, and the ring of fire holds many of them.";
/// let found = index.candidates(suspicious, 5);
/// assert_eq!(found[0].doc, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Units and parameters
///
/// Units are the chunk recipe's chunks ([`textreuse_shingle::chunk_spans`]: paragraphs split on
/// blank lines, short ones merged into a neighbour until they hold
/// [`ChunkConfig::min_words`] words; chunks over
/// [`MAX_CHUNK_WORDS`](textreuse_shingle::MAX_CHUNK_WORDS) words are cut into pieces of that
/// many words). A chunk's shingles are its word n-grams ([`textreuse_shingle::word_shingles`],
/// [`ChunkConfig::ngram`], default 2, case-insensitive word keys), and its MinHash
/// signature ([`MemoryIndexBuilder::signer`]) gives [`SignerConfig::bands`] band keys of
/// [`SignerConfig::rows`] minhashes each. A persistent index of [`IndexUnit::Chunk`](crate::IndexUnit::Chunk) cuts
/// and signs the same chunks.
///
/// The defaults (word 2-grams, [`SignerConfig::chunks`]: 30 disjoint bands of 2 rows, so 60
/// hashes) aim at obfuscated reuse,
/// whose paragraph-level word 2-gram Jaccard is often only 0.1 to 0.3: the exact collision
/// probability ([`Signer::exact_match_probability`]) is about 0.25 at Jaccard 0.1, 0.7 at 0.2
/// and 0.93 at 0.3, and a reused passage usually spans several paragraphs, each of which gets
/// its chance. Unrelated English paragraphs (Jaccard of word 2-grams around 0.01 to 0.03, mostly
/// stopword pairs) still collide now and then, so candidates are ranked by the number of shared
/// band keys and then by the best estimated Jaccard, and only the top few are aligned.
///
/// # Performance
///
/// Adding a document costs one signature per chunk (`O(words · hashes)`) and one map insert per
/// band key; the index holds, per chunk, its document, its span and its signature. A query costs
/// one signature per suspicious chunk plus the bucket sizes of its keys; buckets of more than
/// [`MemoryIndexBuilder::max_bucket`] chunks (keys shared by many chunks of a repetitive corpus,
/// like stopwords) are skipped, so a query chunk costs at most bands × that cap, and a query of
/// repeated text against a corpus of repeated text stays linear in their sizes. The persistent
/// [`Index::candidate_documents`](crate::Index::candidate_documents) skips buckets of more than
/// [`DEFAULT_MAX_QUERY_BUCKET`] entries too and ranks with the same code, so with the default cap both
/// retrieve the same candidates (its buckets count removed documents' entries until a
/// compaction).
#[derive(Clone, Debug)]
pub struct MemoryIndex {
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

impl Default for MemoryIndex {
    fn default() -> Self {
        MemoryIndex::new()
    }
}

impl MemoryIndex {
    /// An empty index with the default settings.
    pub fn new() -> MemoryIndex {
        MemoryIndexBuilder::new()
            .build()
            .expect("the default parameters are valid")
    }

    /// A builder starting from the defaults.
    pub fn builder() -> MemoryIndexBuilder {
        MemoryIndexBuilder::new()
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
        chunk_spans(text, self.min_words, &mut spans);
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
    /// Keys of more than [`MemoryIndexBuilder::max_bucket`] chunks are not counted.
    pub fn candidates(&self, query: &str, top: usize) -> Vec<Candidate> {
        self.tally(query).candidates(Order::SharedKeys(top))
    }

    /// The `k` documents most similar to `query`: the documents sharing band keys with its
    /// chunks (as [`MemoryIndex::candidates`] finds them), ranked by their best estimated
    /// Jaccard similarity ([`Candidate::best_jaccard`]: that of their chunk most similar to a
    /// query chunk), ties by lower document number; at most `k` (none for `k = 0`), however
    /// dissimilar. What datasketch's `MinHashLSHForest.query(m, k)` answers, with one
    /// difference: a document none of whose chunks shares a band key with a query chunk is
    /// invisible here (its chance of sharing one at Jaccard `s` is the signer's
    /// [`Signer::exact_match_probability`]), so fewer than `k` may come back.
    ///
    /// ```
    /// use textreuse_index::MemoryIndex;
    ///
    /// let mut index = MemoryIndex::new();
    /// let base = "Volcanoes form where magma reaches the surface of the earth, and most of them \
    ///     lie along the boundaries of tectonic plates where the crust is thin";
    /// index.add(&base.replace("thin", "weak"));                      // 0: one word changed
    /// index.add("Tomatoes grow best in warm weather with plenty of sun and regular watering.");
    /// index.add(base);                                                // 2: a copy
    /// let nearest = index.query_top_k(base, 2);
    /// assert_eq!(nearest.iter().map(|c| c.doc).collect::<Vec<_>>(), [2, 0]);
    /// assert_eq!(nearest[0].best_jaccard, 1.0);
    /// assert!(index.query_top_k(base, 0).is_empty());
    /// ```
    pub fn query_top_k(&self, query: &str, k: usize) -> Vec<Candidate> {
        if k == 0 {
            return Vec::new();
        }
        self.tally(query).candidates(Order::Nearest(k))
    }

    /// The documents that contain at least `threshold` of `query` (from 0 to 1), most first
    /// (ties by lower document number), with [`Candidate::containment`]: the share of the
    /// query's chunks (weighted by their lengths) covered by chunks of the document that share
    /// a band key with them, each counted by its estimated containment
    /// ([`unit_containment`](crate::unit_containment)). What datasketch's `MinHashLSHEnsemble`
    /// answers ("which documents contain most of this text"): a short query is found inside a
    /// long document through the chunks they share, where the Jaccard similarity of the whole
    /// texts would be small. The index holds no texts, so this is an estimate; the persistent
    /// [`Index::query_containment`](crate::Index::query_containment) can verify it exactly.
    ///
    /// Only documents sharing a band key with a query chunk are seen, as in
    /// [`MemoryIndex::query_top_k`]. A threshold outside `0..=1` is
    /// [`MemoryIndexError::Threshold`].
    ///
    /// ```
    /// use textreuse_index::MemoryIndex;
    ///
    /// let long: String = (0..12)
    ///     .map(|i| format!("Paragraph {i} of the long report discusses topic number {i} in detail, \
    ///         with figures and the opinions of several experts on item {i}.\n\n"))
    ///     .collect();
    /// let mut index = MemoryIndex::new();
    /// index.add("Tomatoes grow best in warm weather with plenty of sun and regular watering.");
    /// index.add(&long);
    /// // Two of the twelve paragraphs, quoted elsewhere.
    /// let quote: String = long.split("\n\n").skip(4).take(2).collect::<Vec<_>>().join("\n\n");
    /// let found = index.query_containment(&quote, 0.8)?;
    /// assert_eq!(found[0].doc, 1);
    /// assert!(found[0].containment > 0.9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query_containment(
        &self,
        query: &str,
        threshold: f64,
    ) -> Result<Vec<Candidate>, MemoryIndexError> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(MemoryIndexError::Threshold(threshold));
        }
        Ok(self.tally(query).candidates(Order::Contained(threshold)))
    }

    /// The tally of `query`'s chunks: each chunk's bucket members (buckets of at most
    /// `max_bucket` chunks), with their estimated Jaccard similarity and length in bytes.
    fn tally(&self, query: &str) -> Tally {
        let mut scratch = Scratch::default();
        let mut tally = Tally::default();
        let hashes = self.signer.hashes();
        let mut seen: Vec<u32> = Vec::new();
        let mut spans = Vec::new();
        chunk_spans(query, self.min_words, &mut spans);
        for span in spans {
            if !self.sign(&query[span.clone()], &mut scratch) {
                continue;
            }
            tally.unit(span.clone(), span.len() as u64);
            seen.clear();
            for key in &scratch.bands {
                match self.buckets.get(key) {
                    Some(bucket) if bucket.len() <= self.max_bucket => {
                        seen.extend_from_slice(bucket)
                    }
                    _ => {}
                }
            }
            tally.add(&mut seen, |id| {
                let id = id as usize;
                let theirs = &self.mins[id * hashes..(id + 1) * hashes];
                let equal = theirs
                    .iter()
                    .zip(&scratch.mins)
                    .filter(|(a, b)| a == b)
                    .count();
                let estimate = equal as f64 / hashes as f64;
                let chunk = &self.chunks[id];
                Some(Hit {
                    doc: chunk.doc,
                    chunk: id,
                    estimate,
                    score: estimate,
                    len: chunk.span.len() as u64,
                })
            });
        }
        tally
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

    fn index() -> MemoryIndex {
        let mut index = MemoryIndex::new();
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
            MemoryIndex::builder()
                .chunks(ChunkConfig {
                    ngram: 0,
                    ..ChunkConfig::default()
                })
                .build(),
            Err(MemoryIndexError::ZeroNgram)
        ));
        let no_rows = SignerConfig {
            rows: 0,
            ..SignerConfig::chunks()
        };
        assert!(MemoryIndex::builder().signer(no_rows).build().is_err());
    }

    #[test]
    fn repeated_text_skips_big_buckets() {
        // One paragraph repeated: every chunk of the corpus has the same band keys as the query's.
        let text = format!("{}\n\n", DOCS[0]).repeat(50);
        let mut capped = MemoryIndex::builder().max_bucket(10).build().unwrap();
        let mut all = MemoryIndex::builder()
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
            MemoryIndex::builder().max_bucket(0).build(),
            Err(MemoryIndexError::ZeroMaxBucket)
        ));
    }

    #[test]
    fn top_k_ranks_by_similarity_not_shared_keys() {
        let paragraph = DOCS[1].split("\n\n").nth(1).unwrap();
        let edited = paragraph
            .replace("summer", "spring")
            .replace("cold", "long");
        let mut index = index();
        // Document 4 repeats an edited copy three times (many shared keys in all), document 5
        // is an exact copy (fewer keys, but the most similar); document 1 holds it too.
        assert_eq!(index.add(&[edited.as_str(); 3].join("\n\n")), 4);
        assert_eq!(index.add(paragraph), 5);
        let by_keys = index.candidates(paragraph, 3);
        assert_eq!(by_keys[0].doc, 4, "{by_keys:?}");
        let top = index.query_top_k(paragraph, 3);
        assert_eq!(top.iter().map(|c| c.doc).collect::<Vec<_>>(), [1, 5, 4]);
        assert_eq!((top[0].best_jaccard, top[1].best_jaccard), (1.0, 1.0));
        assert!(top[2].best_jaccard < 1.0);
        // Sorted, at most k, and a prefix of a longer list.
        let more = index.query_top_k(paragraph, 10);
        assert_eq!(&more[..3], &top[..]);
        assert!(
            more.windows(2)
                .all(|w| w[0].best_jaccard >= w[1].best_jaccard)
        );
        assert_eq!(index.query_top_k(paragraph, 1), top[..1]);
        assert!(index.query_top_k(paragraph, 0).is_empty());
        assert!(MemoryIndex::new().query_top_k(paragraph, 5).is_empty());
    }

    #[test]
    fn containment_finds_a_paragraph_in_a_longer_document() {
        let mut index = index();
        let long = DOCS.join("\n\n");
        assert_eq!(index.add(&long), 4);
        // One paragraph of DOCS[1] (two paragraphs) and of the long document (eight).
        let query = DOCS[1].split("\n\n").nth(1).unwrap();
        let found = index.query_containment(query, 0.9).unwrap();
        let docs: Vec<usize> = found.iter().map(|c| c.doc).collect();
        assert_eq!(docs, [1, 4], "{found:?}");
        assert!(found.iter().all(|c| c.containment >= 0.9));
        // Their containment is full, though the Jaccard similarity of the query and the long
        // document as whole texts is small.
        assert!(found.iter().all(|c| c.containment == 1.0));
        let set = |t: &str| {
            let (mut words, mut set) = (Vec::new(), Vec::new());
            word_shingles(t, 2, &mut words, &mut set);
            set.sort_unstable();
            set.dedup();
            set
        };
        let whole = textreuse_shingle::sorted_jaccard(&set(query), &set(&long));
        assert!(whole < 0.2, "{whole}");
        // The threshold is a fraction.
        for bad in [-0.1, 1.5, f64::NAN] {
            assert!(matches!(
                index.query_containment(query, bad),
                Err(MemoryIndexError::Threshold(_))
            ));
        }
        assert_eq!(index.query_containment(query, 1.0).unwrap().len(), 2);
        assert!(index.query_containment("", 0.0).unwrap().is_empty());
    }

    #[test]
    fn default_curve_is_lenient() {
        let index = MemoryIndex::new();
        let s = index.signer();
        assert!(s.exact_match_probability(0.1) > 0.15);
        assert!(s.exact_match_probability(0.3) > 0.85);
    }
}
