//! Sentence vectors: the mean of the known words' vectors.

use crate::{EmbedError, Embeddings, Vocabulary};

const UNKNOWN: u32 = u32::MAX;

/// Maps the word ids of a [`Vocabulary`] to the rows of [`Embeddings`] once, then averages
/// sentences of ids without any string lookup.
///
/// A sentence's vector is the mean of the vectors of its words that have one (each occurrence
/// counted, as the paper's averaging does), summed in `f64` in word order and divided by their
/// number. Words without a vector are skipped. A sentence none of whose words has a vector has
/// no vector: [`Encoder::mean_into`] then writes zeros and returns 0, and a caller must not sign
/// it (a zero vector has no direction; `textreuse-dedup` leaves such sentences out and counts
/// them).
#[derive(Clone, Debug)]
pub struct Encoder<'a> {
    embeddings: &'a Embeddings,
    rows: Vec<u32>,
    /// Subtracted from every sentence vector ([`Encoder::centered`]).
    center: Option<Vec<f64>>,
}

impl<'a> Encoder<'a> {
    /// An encoder of `vocabulary`'s ids into `embeddings`' vectors (a word is looked up by its
    /// spelling in the vocabulary).
    pub fn new(embeddings: &'a Embeddings, vocabulary: &Vocabulary) -> Encoder<'a> {
        let rows = (0..vocabulary.len() as u32)
            .map(|id| embeddings.index_of(vocabulary.word(id)).unwrap_or(UNKNOWN))
            .collect();
        Encoder {
            embeddings,
            rows,
            center: None,
        }
    }

    /// This encoder with the mean word vector of `corpus`'s known word occurrences (each
    /// word's vector times its count in the corpus's vocabulary, summed in id order, divided
    /// by the count of known occurrences) subtracted from every sentence vector.
    ///
    /// Averaged word vectors share a large common direction (frequent words, and what skip-gram
    /// gives every word alike), so uncentered sentence vectors of unrelated sentences can sit
    /// within a few degrees of each other, and a few random hyperplanes cannot tell them apart.
    /// Removing the corpus's mean is the first step of Arora, Liang and Ma's common-component
    /// removal ("A simple but tough-to-beat baseline for sentence embeddings", 2017); the
    /// paper averages without it. `corpus` must be the one whose vocabulary this encoder maps.
    pub fn centered(self, corpus: &crate::Corpus) -> Encoder<'a> {
        self.centered_on(corpus.vocabulary())
    }

    /// [`Encoder::centered`] with the counts of `vocabulary`, the one this encoder maps (a
    /// corpus's, or one counted in parts: [`Vocabulary::from_counts`]).
    pub fn centered_on(mut self, vocabulary: &Vocabulary) -> Encoder<'a> {
        let dim = self.dim();
        let vectors = self.embeddings.as_slice();
        let mut sum = vec![0.0f64; dim];
        let mut n = 0u64;
        for (id, &row) in self.rows.iter().enumerate() {
            if row == UNKNOWN {
                continue;
            }
            let count = vocabulary.count(id as u32);
            n += count;
            for (s, &x) in sum.iter_mut().zip(&vectors[row as usize * dim..][..dim]) {
                *s += count as f64 * x as f64;
            }
        }
        if n > 0 {
            for s in sum.iter_mut() {
                *s /= n as f64;
            }
            self.center = Some(sum);
        }
        self
    }

    /// The vector subtracted from every sentence vector, if any ([`Encoder::centered`]).
    pub fn center(&self) -> Option<&[f64]> {
        self.center.as_deref()
    }

    /// This encoder with `center` subtracted from every sentence vector (or none): a center
    /// computed once ([`Encoder::center`]) and used by encoders of other vocabularies over the
    /// same vectors gives them the same sentence vectors. Fails if `center` is not `dim` long.
    pub fn with_center(mut self, center: Option<Vec<f64>>) -> Result<Encoder<'a>, EmbedError> {
        if let Some(c) = &center
            && c.len() != self.dim()
        {
            return Err(EmbedError::InvalidParameter {
                name: "center",
                message: format!("has {} values, the dimension is {}", c.len(), self.dim()),
            });
        }
        self.center = center;
        Ok(self)
    }

    /// The dimension of the vectors.
    pub fn dim(&self) -> usize {
        self.embeddings.dim()
    }

    /// How many of the vocabulary's words have a vector.
    pub fn known_words(&self) -> usize {
        self.rows.iter().filter(|&&r| r != UNKNOWN).count()
    }

    /// Writes the mean vector of the sentence `ids` into `out` (`dim` values) and returns the
    /// number of words averaged (0: no word known, `out` all zeros). Ids beyond the vocabulary
    /// count as unknown words. No allocation.
    pub fn mean_into(&self, ids: &[u32], out: &mut [f64]) -> Result<usize, EmbedError> {
        let dim = self.dim();
        if out.len() != dim {
            return Err(EmbedError::InvalidParameter {
                name: "out",
                message: format!("has {} values, the dimension is {dim}", out.len()),
            });
        }
        out.fill(0.0);
        let vectors = self.embeddings.as_slice();
        let mut known = 0usize;
        for &id in ids {
            let row = self.rows.get(id as usize).copied().unwrap_or(UNKNOWN);
            if row == UNKNOWN {
                continue;
            }
            known += 1;
            for (o, &x) in out.iter_mut().zip(&vectors[row as usize * dim..][..dim]) {
                *o += x as f64;
            }
        }
        if known > 1 {
            let n = known as f64;
            for o in out.iter_mut() {
                *o /= n;
            }
        }
        if let (Some(center), true) = (&self.center, known > 0) {
            for (o, c) in out.iter_mut().zip(center) {
                *o -= c;
            }
        }
        Ok(known)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Corpus, Embeddings};

    #[test]
    fn mean_of_known_words() {
        let mut e = Embeddings::new(2).unwrap();
        e.push("a", &[1.0, 2.0]).unwrap();
        e.push("b", &[3.0, -4.0]).unwrap();
        let mut c = Corpus::new();
        c.push(&["a", "x", "b", "a"]);
        c.push(&["x", "y"]);
        let enc = e.encoder(c.vocabulary());
        assert_eq!(enc.known_words(), 2);
        let mut v = [9.0; 2];
        assert_eq!(enc.mean_into(c.sentence(0), &mut v).unwrap(), 3);
        assert_eq!(v, [5.0 / 3.0, 0.0]);
        assert_eq!(enc.mean_into(c.sentence(1), &mut v).unwrap(), 0);
        assert_eq!(v, [0.0, 0.0]);
        assert_eq!(enc.mean_into(&[7], &mut v).unwrap(), 0);
        assert!(enc.mean_into(&[0], &mut [0.0; 3]).is_err());
        // Known occurrences: a twice, b once; the center is (2a + b) / 3 = (5/3, 0).
        let centered = e.encoder(c.vocabulary()).centered(&c);
        assert_eq!(centered.mean_into(c.sentence(0), &mut v).unwrap(), 3);
        assert_eq!(v, [0.0, 0.0]);
        assert_eq!(centered.mean_into(&[2], &mut v).unwrap(), 1); // b
        assert_eq!(v, [3.0 - 5.0 / 3.0, -4.0]);
        assert_eq!(centered.mean_into(c.sentence(1), &mut v).unwrap(), 0);
        assert_eq!(v, [0.0, 0.0]);
        // The center carried to an encoder of another vocabulary (a part's) gives the same
        // vectors.
        let mut part = Corpus::new();
        part.push(&["b", "q"]);
        let carried = e
            .encoder(part.vocabulary())
            .with_center(centered.center().map(<[f64]>::to_vec))
            .unwrap();
        let mut w = [0.0; 2];
        carried.mean_into(part.sentence(0), &mut w).unwrap();
        assert_eq!(w, [3.0 - 5.0 / 3.0, -4.0]);
        assert!(
            e.encoder(part.vocabulary())
                .with_center(Some(vec![0.0]))
                .is_err()
        );
        // Counted in parts, the vocabulary gives the same center.
        let counted =
            crate::Vocabulary::from_counts([("a", 2), ("x", 2), ("b", 1), ("y", 1)]).unwrap();
        assert_eq!(&counted, c.vocabulary());
        let again = e.encoder(&counted).centered_on(&counted);
        assert_eq!(again.center(), centered.center());
        assert!(crate::Vocabulary::from_counts([("a", 1), ("a", 2)]).is_err());
    }
}
