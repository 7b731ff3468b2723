//! The sentence cleaning of Meng and Zheng: lowercase, stop words, numbers and non-words out,
//! stems.

use std::sync::OnceLock;

use ahash::AHashSet;
use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// Cleans a sentence into the words that are looked up in the embeddings.
///
/// 1. Words are split at Unicode word boundaries (UAX #29, `unicode_words`) and lowercased.
/// 2. A word is kept only if it is made of letters (alphabetic, not numeric), with apostrophes
///    (`'`, `’`) allowed inside: numbers (`1820`), words with digits (`3rd`, `x86`) and
///    symbols are "non-words" and go.
/// 3. Stop words (NLTK's English list, 179 words, compared after lowercasing) go.
/// 4. The rest are stemmed with the Snowball English (Porter 2) stemmer (`rust-stemmers`), unless
///    [`CleanerBuilder::stem`] turns it off.
///
/// ```
/// use textreuse_embed::Cleaner;
///
/// let mut words = Vec::new();
/// Cleaner::new().words("In 1820 the 3 Mills weren't grinding; they’re running!", &mut words);
/// assert_eq!(words, ["mill", "grind", "run"]);
/// Cleaner::builder().stem(false).build().words("The Mills were grinding", &mut words);
/// assert_eq!(words, ["mills", "grinding"]);
/// ```
#[derive(Clone)]
pub struct Cleaner {
    stem: bool,
    stopwords: bool,
}

impl std::fmt::Debug for Cleaner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cleaner")
            .field("stem", &self.stem)
            .field("stopwords", &self.stopwords)
            .finish()
    }
}

impl Default for Cleaner {
    fn default() -> Self {
        Cleaner::new()
    }
}

/// Builds a [`Cleaner`].
#[derive(Clone, Debug)]
pub struct CleanerBuilder {
    stem: bool,
    stopwords: bool,
}

impl CleanerBuilder {
    /// Whether words are stemmed (default true, as in the paper). Vectors trained elsewhere on
    /// unstemmed words (published word2vec, GloVe, fastText files) match stems only where the
    /// stem is the word itself: turn stemming off for them.
    pub fn stem(&mut self, yes: bool) -> &mut Self {
        self.stem = yes;
        self
    }

    /// Whether stop words are removed (default true).
    pub fn stopwords(&mut self, yes: bool) -> &mut Self {
        self.stopwords = yes;
        self
    }

    /// The cleaner.
    pub fn build(&self) -> Cleaner {
        Cleaner {
            stem: self.stem,
            stopwords: self.stopwords,
        }
    }
}

fn stopwords() -> &'static AHashSet<&'static str> {
    static SET: OnceLock<AHashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        stop_words::lookup("en")
            .unwrap_or_default()
            .iter()
            .copied()
            .collect()
    })
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

impl Cleaner {
    /// The paper's cleaning: stop words out, stems.
    pub fn new() -> Cleaner {
        CleanerBuilder::default_builder().build()
    }

    /// A builder starting from the paper's cleaning.
    pub fn builder() -> CleanerBuilder {
        CleanerBuilder::default_builder()
    }

    /// Whether words are stemmed.
    pub fn stems(&self) -> bool {
        self.stem
    }

    /// Replaces the contents of `out` with the cleaned words of `text`, in order.
    pub fn words(&self, text: &str, out: &mut Vec<String>) {
        out.clear();
        self.for_each_word(text, |w| out.push(w.to_string()));
    }

    /// Calls `f` with each cleaned word of `text`, in order.
    pub fn for_each_word(&self, text: &str, mut f: impl FnMut(&str)) {
        let stop = stopwords();
        let mut lower = String::new();
        for word in text.unicode_words() {
            if !is_word(word) {
                continue;
            }
            lower.clear();
            for c in word.chars() {
                // The typographic apostrophe as the ASCII one, as the stop-word list spells it.
                let c = if c == '’' { '\'' } else { c };
                lower.extend(c.to_lowercase());
            }
            if self.stopwords && stop.contains(lower.as_str()) {
                continue;
            }
            if self.stem {
                f(&stemmer().stem(&lower));
            } else {
                f(&lower);
            }
        }
    }
}

impl CleanerBuilder {
    fn default_builder() -> CleanerBuilder {
        CleanerBuilder {
            stem: true,
            stopwords: true,
        }
    }
}

/// Letters, with apostrophes only inside.
fn is_word(word: &str) -> bool {
    let apostrophe = |c: char| c == '\'' || c == '’';
    let mut chars = word.chars();
    let (Some(first), Some(last)) = (chars.next(), word.chars().next_back()) else {
        return false;
    };
    let letter = |c: char| c.is_alphabetic() && !c.is_numeric(); // not Roman numerals
    letter(first) && letter(last) && word.chars().all(|c| letter(c) || apostrophe(c))
}

#[cfg(test)]
mod tests {
    use super::{Cleaner, is_word};
    use proptest::prelude::*;

    #[test]
    fn the_papers_cleaning() {
        let mut w = Vec::new();
        Cleaner::new().words(
            "Running runners ran; THE 2nd of 12 x86 chips - ok? Ça va, élan.",
            &mut w,
        );
        assert_eq!(
            w,
            ["run", "runner", "ran", "chip", "ok", "ça", "va", "élan"]
        );
        Cleaner::builder()
            .stopwords(false)
            .stem(false)
            .build()
            .words("The 2 mills", &mut w);
        assert_eq!(w, ["the", "mills"]);
        assert!(is_word("don't") && !is_word("'tis") && !is_word("a1") && !is_word(""));
    }

    proptest! {
        /// Cleaned words are non-empty, lowercase, and contain no digit; cleaning never panics.
        #[test]
        fn cleaned_words_are_words(text in "\\PC{0,80}") {
            let mut w = Vec::new();
            Cleaner::new().words(&text, &mut w);
            for word in &w {
                prop_assert!(!word.is_empty());
                prop_assert!(!word.chars().any(|c| c.is_numeric()));
                prop_assert_eq!(word.to_lowercase(), word.clone());
            }
        }
    }
}
