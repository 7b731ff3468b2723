//! Cleaned sentences as word ids.

use ahash::AHashMap;

/// Words numbered in the order they are first seen, with their counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vocabulary {
    words: Vec<String>,
    counts: Vec<u64>,
    /// In-memory lookup only; ids come from the insertion order, never from the hasher.
    index: AHashMap<String, u32>,
}

impl Vocabulary {
    /// An empty vocabulary.
    pub fn new() -> Vocabulary {
        Vocabulary::default()
    }

    /// A vocabulary of `words` with their counts, numbered in the order given (the order in
    /// which a [`Corpus`] would first have seen them): what a distributed run builds from
    /// words counted in parts, each word's first sighting deciding its place. Fails if a word
    /// is given twice.
    ///
    /// ```
    /// use textreuse_embed::{Corpus, Vocabulary};
    ///
    /// let mut corpus = Corpus::new();
    /// corpus.push(&["mill", "river", "mill"]);
    /// let counted = Vocabulary::from_counts([("mill", 2), ("river", 1)])?;
    /// assert_eq!(&counted, corpus.vocabulary());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_counts<S: AsRef<str>>(
        words: impl IntoIterator<Item = (S, u64)>,
    ) -> Result<Vocabulary, crate::EmbedError> {
        let mut v = Vocabulary::new();
        for (word, count) in words {
            let word = word.as_ref();
            if v.index.contains_key(word) {
                return Err(crate::EmbedError::InvalidParameter {
                    name: "words",
                    message: format!("{word:?} is given twice"),
                });
            }
            let id = v.id_or_insert(word);
            v.counts[id as usize] = count;
        }
        Ok(v)
    }

    /// The id of `word`, added (with count 0) if new. Panics past `u32::MAX` words.
    pub fn id_or_insert(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.index.get(word) {
            return id;
        }
        let id = u32::try_from(self.words.len()).expect("at most 2^32 distinct words");
        self.words.push(word.to_string());
        self.counts.push(0);
        self.index.insert(word.to_string(), id);
        id
    }

    /// The id of `word`.
    pub fn id(&self, word: &str) -> Option<u32> {
        self.index.get(word).copied()
    }

    /// The word of `id` (panics if `id >= len()`).
    pub fn word(&self, id: u32) -> &str {
        &self.words[id as usize]
    }

    /// How often `id` occurred in the sentences pushed (panics if `id >= len()`).
    pub fn count(&self, id: u32) -> u64 {
        self.counts[id as usize]
    }

    /// The number of distinct words.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether there is no word.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Cleaned sentences, each a list of word ids over one [`Vocabulary`], stored flat.
///
/// Ids are given in first-seen order, so the same sentences pushed in the same order give the
/// same ids; this is the input of [`Trainer::train`](crate::Trainer::train) and of an
/// [`Encoder`](crate::Encoder). Memory: 4 bytes per word and 8 per sentence, plus the
/// vocabulary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    vocabulary: Vocabulary,
    ids: Vec<u32>,
    bounds: Vec<usize>,
}

impl Default for Corpus {
    fn default() -> Self {
        Corpus::new()
    }
}

impl Corpus {
    /// An empty corpus.
    pub fn new() -> Corpus {
        Corpus {
            vocabulary: Vocabulary::new(),
            ids: Vec::new(),
            bounds: vec![0],
        }
    }

    /// Appends a sentence of (cleaned) words and returns its index.
    pub fn push<S: AsRef<str>>(&mut self, words: &[S]) -> usize {
        for w in words {
            let id = self.vocabulary.id_or_insert(w.as_ref());
            self.vocabulary.counts[id as usize] += 1;
            self.ids.push(id);
        }
        self.bounds.push(self.ids.len());
        self.bounds.len() - 2
    }

    /// The number of sentences.
    pub fn len(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Whether there is no sentence.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of words over all sentences.
    pub fn tokens(&self) -> usize {
        self.ids.len()
    }

    /// The word ids of sentence `i` (panics if `i >= len()`).
    pub fn sentence(&self, i: usize) -> &[u32] {
        &self.ids[self.bounds[i]..self.bounds[i + 1]]
    }

    /// The words of sentence `i` (panics if `i >= len()`).
    pub fn words(&self, i: usize) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.sentence(i).iter().map(|&id| self.vocabulary.word(id))
    }

    /// The vocabulary.
    pub fn vocabulary(&self) -> &Vocabulary {
        &self.vocabulary
    }
}

#[cfg(test)]
mod tests {
    use super::Corpus;

    #[test]
    fn ids_in_first_seen_order() {
        let mut c = Corpus::new();
        assert_eq!(c.push(&["b", "a", "b"]), 0);
        assert_eq!(c.push::<&str>(&[]), 1);
        assert_eq!(c.push(&["a", "c"]), 2);
        assert_eq!((c.len(), c.tokens()), (3, 5));
        assert_eq!(c.sentence(0), [0, 1, 0]);
        assert_eq!(c.sentence(1), [] as [u32; 0]);
        assert_eq!(c.sentence(2), [1, 2]);
        let v = c.vocabulary();
        assert_eq!((v.count(0), v.count(1), v.count(2)), (2, 2, 1));
        assert_eq!(v.id("c"), Some(2));
        assert_eq!(c.words(2).collect::<Vec<_>>(), ["a", "c"]);
    }
}
