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
}

impl<'a> Encoder<'a> {
    /// An encoder of `vocabulary`'s ids into `embeddings`' vectors (a word is looked up by its
    /// spelling in the vocabulary).
    pub fn new(embeddings: &'a Embeddings, vocabulary: &Vocabulary) -> Encoder<'a> {
        let rows = (0..vocabulary.len() as u32)
            .map(|id| embeddings.index_of(vocabulary.word(id)).unwrap_or(UNKNOWN))
            .collect();
        Encoder { embeddings, rows }
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
    }
}
