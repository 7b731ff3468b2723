//! Word embeddings for text-reuse detection: reading and writing the usual file formats, the
//! sentence cleaning of Meng and Zheng, mean sentence vectors, and skip-gram training on the
//! corpus itself.
//!
//! This crate is the first half of Meng and Zheng's random projection over word embeddings
//! ("Similar sentence detection using MinHash and random projection on Wikipedia"): each sentence
//! is cleaned (stop words, numbers and non-words out, lowercased, stemmed), its words are mapped
//! to word vectors and averaged into one dense sentence vector. The second half, random
//! hyperplanes and the sliding-window search over the bit signatures, is `textreuse-simhash`'s
//! (`Hyperplanes`, `WindowSearch`); `textreuse-dedup` composes both (`Method::RandomProjection`).
//!
//! ```
//! use textreuse_embed::{Cleaner, Corpus, Trainer};
//!
//! let cleaner = Cleaner::new();
//! let mut corpus = Corpus::new();
//! let mut words = Vec::new();
//! for text in [
//!     "The old mills were grinding grain beside the river in 1820.",
//!     "An old mill grinds grain by the river.",
//! ] {
//!     cleaner.words(text, &mut words);
//!     corpus.push(&words);
//! }
//! assert_eq!(corpus.words(0).collect::<Vec<_>>(), ["old", "mill", "grind", "grain", "besid", "river"]);
//!
//! let vectors = Trainer::builder().dim(16).epochs(2).build()?.train(&corpus)?;
//! let encoder = vectors.encoder(corpus.vocabulary());
//! let mut v = vec![0.0; 16];
//! assert_eq!(encoder.mean_into(corpus.sentence(1), &mut v)?, 5); // old mill grind grain river
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`Embeddings`]: words and their `dim`-long `f32` vectors, looked up by word.
//! * [`read()`] / [`write()`] in a [`Format`]: word2vec text and binary, GloVe text (no header
//!   line), fastText `.vec` (word2vec text). Malformed files give [`EmbedError::Malformed`] with
//!   the line (or record) and byte offset, never a panic. [`Format::detect`] guesses the format
//!   from the first bytes.
//! * [`Cleaner`]: the paper's cleaning (lowercase, NLTK English stop words out, tokens that are
//!   not made of letters out, Snowball English stems).
//! * [`Corpus`]: cleaned sentences as word ids over a [`Vocabulary`] (first-seen order).
//! * [`Trainer`]: skip-gram with negative sampling on a [`Corpus`], seeded and deterministic:
//!   the same vectors for any thread count. Defaults in [`defaults`].
//! * [`Encoder`]: a sentence's vector, the mean of its known words' vectors ([`Encoder::mean_into`];
//!   a sentence with no known word has no vector and the call says so by returning 0).
//!
//! # Performance
//!
//! Averaging costs `dim` additions per known word; with 100-dimensional vectors and sentences of
//! 12 words the `embed/sentence_vectors` bench measured 1.5 µs a sentence (686,000 a second on
//! one core of a loaded machine). Training does about `2 · window · (1 +
//! negative) · dim` multiply-adds per word and epoch, on all cores. Measured numbers are in
//! `records/2026-11-28-embeddings.md` of the repository.
//!
//! # Crate features
//!
//! None; the crate needs `std`.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

mod clean;
mod corpus;
mod encode;
mod format;
mod math;
mod train;

use ahash::AHashMap;

pub use clean::{Cleaner, CleanerBuilder};
pub use corpus::{Corpus, Vocabulary};
pub use encode::Encoder;
pub use format::{Format, read, write};
pub use train::{Trainer, TrainerBuilder, defaults};

/// The error type of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// Reading or writing failed. Recover as for any I/O error (check the path, the disk).
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A vector file is not of its format: `what` says what is wrong, `line` (1-based; for
    /// word2vec binary the record number, the header being record 0) and `offset` (bytes from
    /// the start of the file) where. Recover by fixing the file or naming the right [`Format`].
    #[error("malformed vector file at line {line} (byte {offset}): {what}")]
    Malformed {
        /// The 1-based line (text formats) or record (binary format; the header is 0).
        line: u64,
        /// Byte offset of the start of that line or record.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// A vector of the wrong length was given, or one with a value that is not finite. Recover
    /// by passing `dim` finite values.
    #[error(
        "vector for {word:?} has {got} values, expected {expected} (or has a value that is not finite)"
    )]
    Dimension {
        /// The word.
        word: String,
        /// The dimension of the embeddings.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Training went numerically wrong (vectors with infinite or NaN values after `epoch`):
    /// the batch or the learning rate is too large for the corpus. Recover by lowering
    /// [`TrainerBuilder::batch`] or [`TrainerBuilder::learning_rate`].
    #[error("training diverged in epoch {epoch}: lower the batch or the learning rate")]
    Diverged {
        /// The 1-based epoch after which the vectors were not finite.
        epoch: usize,
    },
    /// A parameter is out of range: the message says which and why. Recover by changing it.
    #[error("invalid parameter {name}: {message}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// Words and their vectors, all of one dimension, in insertion order.
///
/// A word added twice keeps its first vector ([`Embeddings::push`] says whether it was new), as
/// word2vec's and gensim's readers do with the rare duplicate lines of published files.
#[derive(Clone, Debug, PartialEq)]
pub struct Embeddings {
    dim: usize,
    words: Vec<String>,
    /// In-memory lookup only.
    index: AHashMap<String, u32>,
    vectors: Vec<f32>,
}

impl Embeddings {
    /// Empty embeddings of dimension `dim` (at least 1).
    pub fn new(dim: usize) -> Result<Embeddings, EmbedError> {
        if dim == 0 {
            return Err(EmbedError::InvalidParameter {
                name: "dim",
                message: "must be at least 1".into(),
            });
        }
        Ok(Embeddings {
            dim,
            words: Vec::new(),
            index: AHashMap::new(),
            vectors: Vec::new(),
        })
    }

    /// Adds `word` with `vector` (`dim` finite values). Returns false, keeping the first vector,
    /// if the word is already there; fails if the vector has the wrong length or a value that
    /// is not finite.
    pub fn push(&mut self, word: &str, vector: &[f32]) -> Result<bool, EmbedError> {
        if vector.len() != self.dim || !vector.iter().all(|x| x.is_finite()) {
            return Err(EmbedError::Dimension {
                word: word.to_string(),
                expected: self.dim,
                got: vector.len(),
            });
        }
        if self.index.contains_key(word) {
            return Ok(false);
        }
        if self.words.len() >= u32::MAX as usize {
            return Err(EmbedError::InvalidParameter {
                name: "words",
                message: "at most 2^32 - 1 words".into(),
            });
        }
        self.index.insert(word.to_string(), self.words.len() as u32);
        self.words.push(word.to_string());
        self.vectors.extend_from_slice(vector);
        Ok(true)
    }

    /// The dimension of the vectors.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The number of words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether there is no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The index of `word`.
    pub fn index_of(&self, word: &str) -> Option<u32> {
        self.index.get(word).copied()
    }

    /// The vector of `word`.
    pub fn get(&self, word: &str) -> Option<&[f32]> {
        self.index_of(word).map(|i| self.vector(i as usize))
    }

    /// The word at `index` (panics if `index >= len()`).
    pub fn word(&self, index: usize) -> &str {
        &self.words[index]
    }

    /// The vector at `index` (panics if `index >= len()`).
    pub fn vector(&self, index: usize) -> &[f32] {
        &self.vectors[index * self.dim..][..self.dim]
    }

    /// The words with their vectors, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &[f32])> + '_ {
        self.words
            .iter()
            .zip(self.vectors.chunks_exact(self.dim))
            .map(|(w, v)| (w.as_str(), v))
    }

    /// An encoder of sentences whose words are ids of `vocabulary` (see [`Corpus`]).
    pub fn encoder(&self, vocabulary: &Vocabulary) -> Encoder<'_> {
        Encoder::new(self, vocabulary)
    }

    /// All vectors, row-major (`len() · dim()` values).
    pub fn as_slice(&self) -> &[f32] {
        &self.vectors
    }
}

#[cfg(test)]
mod tests {
    use super::{EmbedError, Embeddings};

    #[test]
    fn push_and_lookup() {
        let mut e = Embeddings::new(2).unwrap();
        assert!(e.push("a", &[1.0, 2.0]).unwrap());
        assert!(!e.push("a", &[3.0, 4.0]).unwrap());
        assert!(e.push("b", &[5.0, 6.0]).unwrap());
        assert_eq!(e.get("a"), Some(&[1.0, 2.0][..]));
        assert_eq!(e.get("c"), None);
        assert_eq!((e.len(), e.word(1), e.vector(1)), (2, "b", &[5.0, 6.0][..]));
        assert!(matches!(
            e.push("c", &[1.0]),
            Err(EmbedError::Dimension { got: 1, .. })
        ));
        assert!(e.push("c", &[1.0, f32::NAN]).is_err());
        assert!(Embeddings::new(0).is_err());
    }
}
