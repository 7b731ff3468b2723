//! The plagiarism checker of `textreuse check` and Python's `textreuse.check`: a corpus indexed
//! with MinHash band keys of its paragraph chunks ([`MemoryIndex`], or a persistent chunk
//! [`Index`]), candidate sources retrieved for each suspicious document, aligned
//! ([`Aligner`]), and each reused passage classified as content or structure reuse
//! ([`profile`]).
//!
//! ```
//! use textreuse_corpus::Document;
//! use textreuse_reuse::check::Checker;
//!
//! let shared = "Honey bees live in large colonies with a single queen, thousands of workers \
//!               and a few hundred drones, and they store honey in wax combs for the winter.";
//! let checker = Checker::builder().min_passage_len(60).build()?;
//! let corpus = checker.index(vec![
//!     Document::new(1, "Bees", format!("{shared}\n\nBees visit flowers for nectar and pollen.")),
//!     Document::new(2, "Wasps", "Wasps build paper nests from chewed wood fibre every spring."),
//! ]);
//! let essay = format!("My essay on insects.\n\n{shared}");
//! let check = checker.check(&corpus, &essay)?;
//! assert_eq!(check.source(&check.cases[0]).title, "Bees");
//! assert_eq!(check.cases[0].profile.kind, textreuse_reuse::ReuseKind::Content);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The corpus
//!
//! [`read_corpus`] reads a corpus as the command does: a directory is its `*.txt` files (not
//! its subdirectories), in sorted order, each one document; any other path is one input of any
//! format `textreuse dedup` reads (JSON Lines, text, a Wikipedia dump, WARC, Parquet when the
//! dedup crate has the feature, compressed or not). Bad records are reported and skipped.
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::Value;
use textreuse_align::{Aligner, Passage};
use textreuse_corpus::{Document, InputError, Inputs, Source};
use textreuse_index::{
    Candidate, Index, IndexUnit, MemoryIndex, MemoryIndexBuilder, MemoryIndexError,
};

use crate::classify::{ReuseProfile, profile};

/// The default number of candidate sources aligned per suspicious document
/// ([`CheckerBuilder::top`]).
pub const DEFAULT_CHECK_SOURCES: usize = 10;

/// Why a check could not run, and what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The chunk index's parameters are invalid (see the inner error for which one); fix them.
    #[error(transparent)]
    Chunks(#[from] MemoryIndexError),
    /// The number of candidate sources is 0; use 1 or more.
    #[error("the number of candidate sources must be at least 1")]
    ZeroTop,
    /// A persistent index is not of chunks, or stores no texts; create one with
    /// `textreuse index create DIR --unit chunk` (texts are stored by default).
    #[error(
        "an index of {}s{}; check needs one of chunks with texts (textreuse index create DIR \
         --unit chunk)",
        unit.as_str(),
        if *store_text { "" } else { " without texts" }
    )]
    NotAChunkIndex {
        /// The index's unit.
        unit: IndexUnit,
        /// Whether it stores texts.
        store_text: bool,
    },
    /// A candidate's document is missing from the persistent index (it was removed while the
    /// index was open); reopen the index and check again.
    #[error("a candidate document is missing from the index")]
    MissingDocument {
        /// The document number.
        doc: u64,
    },
    /// Reading the persistent index failed (see the inner error for what to do).
    #[error(transparent)]
    Index(#[from] textreuse_index::Error),
    /// A corpus directory holds no `*.txt` file; point at the files or at another directory.
    #[error("{}: no .txt files", path.display())]
    NoTextFiles {
        /// The directory.
        path: PathBuf,
    },
    /// A corpus directory could not be listed; fix the path or its permissions.
    #[error("reading {}: {source}", path.display())]
    Io {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
}

/// Configures a [`Checker`]: the chunk index ([`MemoryIndexBuilder`]), the aligner and the
/// number of candidate sources aligned.
#[derive(Clone, Debug)]
pub struct CheckerBuilder {
    index: MemoryIndexBuilder,
    aligner: Option<Aligner>,
    min_passage_len: Option<usize>,
    top: usize,
}

impl Default for CheckerBuilder {
    fn default() -> Self {
        CheckerBuilder::new()
    }
}

impl CheckerBuilder {
    /// The defaults: [`MemoryIndex`]'s chunks and MinHash parameters, the default [`Aligner`],
    /// [`DEFAULT_CHECK_SOURCES`] candidate sources.
    pub fn new() -> CheckerBuilder {
        CheckerBuilder {
            index: MemoryIndexBuilder::new(),
            aligner: None,
            min_passage_len: None,
            top: DEFAULT_CHECK_SOURCES,
        }
    }

    /// How a corpus given as documents ([`Checker::index`]) is chunked and signed: word n-gram
    /// length, smallest chunk, rows, bands, seed and bucket cap. A persistent index
    /// ([`CheckCorpus::from_index`]) brings its own.
    pub fn index(&mut self, index: MemoryIndexBuilder) -> &mut Self {
        self.index = index;
        self
    }

    /// The aligner of the candidate pairs (language, synonyms, fallback n-grams, smallest
    /// passage ...); default [`Aligner::new`].
    pub fn aligner(&mut self, aligner: Aligner) -> &mut Self {
        self.aligner = Some(aligner);
        self
    }

    /// With the default aligner: passages shorter than this many bytes on either side are
    /// dropped ([`AlignerBuilder::min_passage_len`](textreuse_align::AlignerBuilder::min_passage_len)).
    /// Ignored when an aligner is given.
    pub fn min_passage_len(&mut self, n: usize) -> &mut Self {
        self.min_passage_len = Some(n);
        self
    }

    /// Candidate source documents aligned per suspicious document (default
    /// [`DEFAULT_CHECK_SOURCES`]).
    pub fn top(&mut self, n: usize) -> &mut Self {
        self.top = n;
        self
    }

    /// The checker, or why these settings are invalid.
    pub fn build(&self) -> Result<Checker, CheckError> {
        if self.top == 0 {
            return Err(CheckError::ZeroTop);
        }
        // Checks the chunk parameters now, before any corpus is read.
        self.index.build()?;
        let aligner = match (&self.aligner, self.min_passage_len) {
            (Some(a), _) => a.clone(),
            (None, Some(n)) => Aligner::builder()
                .min_passage_len(n)
                .build()
                .expect("only the passage length differs from the defaults"),
            (None, None) => Aligner::new(),
        };
        Ok(Checker {
            index: self.index.clone(),
            aligner,
            top: self.top,
        })
    }
}

/// The plagiarism checker; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct Checker {
    index: MemoryIndexBuilder,
    aligner: Aligner,
    top: usize,
}

impl Default for Checker {
    fn default() -> Self {
        Checker::new()
    }
}

/// Where candidates and their documents come from: a corpus indexed in memory
/// ([`Checker::index`]) or a persistent chunk index ([`CheckCorpus::from_index`]).
#[derive(Debug)]
pub struct CheckCorpus {
    inner: Corpus,
}

#[derive(Debug)]
enum Corpus {
    Memory(MemoryIndex, Vec<Document>),
    Disk(Index),
}

impl CheckCorpus {
    /// A prebuilt persistent index of the corpus (`textreuse index create DIR --unit chunk`):
    /// nothing is re-read or re-indexed, and candidates are those [`Checker::index`] would
    /// retrieve with the index's parameters. Its parameters replace the checker's chunk
    /// parameters. It must be an index of [`IndexUnit::Chunk`] that stores texts.
    pub fn from_index(index: Index) -> Result<CheckCorpus, CheckError> {
        let p = index.params();
        if p.unit != IndexUnit::Chunk || !p.store_text {
            return Err(CheckError::NotAChunkIndex {
                unit: p.unit,
                store_text: p.store_text,
            });
        }
        Ok(CheckCorpus {
            inner: Corpus::Disk(index),
        })
    }

    /// Number of documents.
    pub fn documents(&self) -> u64 {
        match &self.inner {
            Corpus::Memory(_, docs) => docs.len() as u64,
            Corpus::Disk(index) => index.stats().documents,
        }
    }

    /// Number of indexed chunks.
    pub fn chunks(&self) -> u64 {
        match &self.inner {
            Corpus::Memory(index, _) => index.chunks().len() as u64,
            Corpus::Disk(index) => index.stats().entries,
        }
    }
}

/// A candidate source document of a suspicious document.
#[derive(Clone, Debug)]
pub struct CheckSource {
    /// How it was retrieved (its rank is its place in [`Check::sources`]).
    pub candidate: Candidate,
    /// The document.
    pub document: Document,
}

/// One reused passage of a suspicious document.
#[derive(Clone, Debug)]
pub struct CheckCase {
    /// Its source: an index into [`Check::sources`] ([`Check::source`]).
    pub source: usize,
    /// The passage (byte ranges in the source and the suspicious text).
    pub passage: Passage,
    /// Its measures and kind (content or structure reuse).
    pub profile: ReuseProfile,
}

/// The result of checking one suspicious document ([`Checker::check`]).
#[derive(Clone, Debug)]
pub struct Check {
    /// The candidate sources, best first.
    pub sources: Vec<CheckSource>,
    /// The reused passages, longest first (on the suspicious side); ties by score, then by
    /// source id.
    pub cases: Vec<CheckCase>,
}

impl Check {
    /// The source document of `case`.
    pub fn source(&self, case: &CheckCase) -> &Document {
        &self.sources[case.source].document
    }

    /// The cases as `textreuse check` writes them (one JSON object per line, ranked from 1):
    /// the suspicious document's `name`, the source's id and title, character offsets and
    /// lengths, score, kind, the n-gram and entity Jaccard similarities, the shares, and the
    /// first `excerpt` characters of both passages. `text` is the suspicious text checked.
    pub fn records(&self, name: &str, text: &str, excerpt: usize) -> Vec<Value> {
        self.cases
            .iter()
            .enumerate()
            .map(|(rank, c)| {
                let source = self.source(c);
                let (s, t) = c.passage.char_ranges(&source.text, text);
                let p = &c.profile;
                serde_json::json!({
                    "suspicious": name,
                    "rank": rank + 1,
                    "source_id": source.id,
                    "source_title": source.title,
                    "suspicious_offset": t.start,
                    "suspicious_length": t.len(),
                    "source_offset": s.start,
                    "source_length": s.len(),
                    "score": c.passage.score,
                    "kind": p.kind.as_str(),
                    "ngram_jaccard": {
                        "2": p.ngram_jaccard[0],
                        "5": p.ngram_jaccard[1],
                        "10": p.ngram_jaccard[2],
                        "15": p.ngram_jaccard[3],
                    },
                    "entity_jaccard": p.entity_jaccard,
                    "source_share": p.source_share,
                    "suspicious_share": p.suspicious_share,
                    "suspicious_text": excerpt_chars(&text[c.passage.suspicious.clone()], excerpt),
                    "source_text": excerpt_chars(&source.text[c.passage.source.clone()], excerpt),
                })
            })
            .collect()
    }
}

/// The candidates as `textreuse check --candidates-only` writes them (one JSON object per
/// line, ranked from 1): the suspicious document's `name`, the source's id and title, its shared
/// band keys and best estimated Jaccard similarity.
pub fn candidate_records(name: &str, sources: &[CheckSource]) -> Vec<Value> {
    sources
        .iter()
        .enumerate()
        .map(|(rank, s)| {
            serde_json::json!({
                "suspicious": name,
                "rank": rank + 1,
                "source_id": s.document.id,
                "source_title": s.document.title,
                "shared_keys": s.candidate.shared_keys,
                "estimated_jaccard": s.candidate.best_jaccard,
            })
        })
        .collect()
}

/// The first `n` characters of `s`, with "…" when cut (the excerpts of [`Check::records`]).
pub fn excerpt_chars(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

impl Checker {
    /// A checker with the defaults.
    pub fn new() -> Checker {
        CheckerBuilder::new()
            .build()
            .expect("the default parameters are valid")
    }

    /// A builder starting from the defaults.
    pub fn builder() -> CheckerBuilder {
        CheckerBuilder::new()
    }

    /// The aligner.
    pub fn aligner(&self) -> &Aligner {
        &self.aligner
    }

    /// Indexes a corpus in memory (its documents are numbered in this order).
    pub fn index(&self, documents: Vec<Document>) -> CheckCorpus {
        let mut index = self
            .index
            .build()
            .expect("checked by CheckerBuilder::build");
        for doc in &documents {
            index.add(&doc.text);
        }
        CheckCorpus {
            inner: Corpus::Memory(index, documents),
        }
    }

    /// The candidate sources of `text`, best first, at most [`CheckerBuilder::top`].
    pub fn candidates(
        &self,
        corpus: &CheckCorpus,
        text: &str,
    ) -> Result<Vec<CheckSource>, CheckError> {
        match &corpus.inner {
            Corpus::Memory(index, docs) => Ok(index
                .candidates(text, self.top)
                .into_iter()
                .map(|candidate| CheckSource {
                    document: docs[candidate.doc].clone(),
                    candidate,
                })
                .collect()),
            Corpus::Disk(index) => index
                .candidate_documents(text, self.top)?
                .into_iter()
                .map(|candidate| {
                    let doc = candidate.doc as u64;
                    let document = index
                        .document(doc)?
                        .ok_or(CheckError::MissingDocument { doc })?;
                    Ok(CheckSource {
                        candidate,
                        document,
                    })
                })
                .collect(),
        }
    }

    /// Checks one suspicious text: its candidate sources, aligned with it on all cores, and the
    /// reused passages found, classified.
    pub fn check(&self, corpus: &CheckCorpus, text: &str) -> Result<Check, CheckError> {
        let sources = self.candidates(corpus, text)?;
        Ok(self.align(sources, text))
    }

    /// Aligns `text` with candidate sources (from [`Checker::candidates`]).
    pub fn align(&self, sources: Vec<CheckSource>, text: &str) -> Check {
        // The suspicious document is tokenized once for all its candidates.
        let prepared = self.aligner.prepare(text);
        let mut cases: Vec<CheckCase> = sources
            .par_iter()
            .enumerate()
            .flat_map_iter(|(i, s)| {
                let source = &s.document.text;
                self.aligner
                    .align_prepared(&self.aligner.prepare(source), &prepared)
                    .into_iter()
                    .map(move |passage| {
                        let profile = profile(
                            &source[passage.source.clone()],
                            &text[passage.suspicious.clone()],
                            source.len(),
                            text.len(),
                        );
                        CheckCase {
                            source: i,
                            passage,
                            profile,
                        }
                    })
            })
            .collect();
        // Longest reuse first; ties by similarity, then by source order.
        cases.sort_by(|a, b| {
            b.passage
                .suspicious
                .len()
                .cmp(&a.passage.suspicious.len())
                .then(b.passage.score.total_cmp(&a.passage.score))
                .then(
                    sources[a.source]
                        .document
                        .id
                        .cmp(&sources[b.source].document.id),
                )
        });
        Check { sources, cases }
    }
}

/// Reads a corpus as `textreuse check --corpus PATH` does (see the [module docs](self#the-corpus)):
/// a directory's `*.txt` files in sorted order, or any one input [`Inputs`] reads, decoding
/// compressed input on `threads` threads. Each bad file or record is handed to `problem` and
/// skipped.
pub fn read_corpus(
    path: &Path,
    threads: usize,
    mut problem: impl FnMut(InputError),
) -> Result<Vec<Document>, CheckError> {
    let paths = if path.is_dir() {
        let io = |source| CheckError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut files = Vec::new();
        for entry in fs::read_dir(path).map_err(io)? {
            let p = entry.map_err(io)?.path();
            if p.extension().is_some_and(|e| e == "txt") && p.is_file() {
                files.push(p);
            }
        }
        files.sort();
        if files.is_empty() {
            return Err(CheckError::NoTextFiles {
                path: path.to_path_buf(),
            });
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let cleaner = textreuse_wikidump::Cleaner::new();
    let mut docs = Vec::new();
    for source in Inputs::new(&paths).threads(threads) {
        match source {
            Ok(source) => docs.push(Source::into_document(source, &cleaner)),
            Err(e) => problem(e),
        }
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Vec<Document> {
        vec![
            Document::new(
                "river",
                "River",
                "The river rises in the northern hills and flows south through a wide valley of \
                 farms and orchards before it reaches the sea near the old harbour town.\n\nIn \
                 the nineteenth century mills were built along its banks, and the town grew \
                 around the trade in grain and timber that the river carried.",
            ),
            Document::new(
                "bees",
                "Bees",
                "Bees collect nectar and pollen from flowers, and in doing so they carry pollen \
                 from one plant to the next, which lets many crops set fruit.\n\nA colony can \
                 hold tens of thousands of workers in summer, but only a few thousand of them \
                 survive the cold winter months inside the hive.",
            ),
        ]
    }

    #[test]
    fn copied_paragraph_is_found_and_recorded() {
        let checker = Checker::builder().min_passage_len(60).build().unwrap();
        let corpus = checker.index(corpus());
        assert_eq!((corpus.documents(), corpus.chunks()), (2, 4));
        let essay = "My own words come first and say nothing of the kind at all.\n\nA colony \
             can hold tens of thousands of workers in summer, but only a few thousand of them \
             survive the cold winter months inside the hive.";
        let check = checker.check(&corpus, essay).unwrap();
        assert_eq!(check.sources[0].document.title, "Bees");
        assert_eq!(check.cases.len(), 1);
        let records = check.records("essay", essay, 10);
        assert_eq!(records[0]["source_id"], "bees");
        assert_eq!(records[0]["rank"], 1);
        assert_eq!(records[0]["kind"], "content");
        assert_eq!(records[0]["suspicious_text"], "A colony c…");
        let candidates = candidate_records("essay", &check.sources);
        assert_eq!(candidates[0]["source_title"], "Bees");
    }

    #[test]
    fn bad_settings_are_refused() {
        assert!(matches!(
            Checker::builder().top(0).build(),
            Err(CheckError::ZeroTop)
        ));
        let mut index = MemoryIndex::builder();
        index.chunks(textreuse_shingle::ChunkConfig {
            ngram: 0,
            ..Default::default()
        });
        assert!(matches!(
            Checker::builder().index(index).build(),
            Err(CheckError::Chunks(MemoryIndexError::ZeroNgram))
        ));
    }

    #[test]
    fn excerpts_cut_at_characters() {
        assert_eq!(excerpt_chars("żółw", 2), "żó…");
        assert_eq!(excerpt_chars("żółw", 4), "żółw");
    }
}
