//! Word tokens, word n-grams with a stride, and stopword n-grams.
//!
//! A word is a maximal run of alphanumeric chars (`char::is_alphanumeric`); everything else
//! separates words, so `Lincoln's` is the two words `Lincoln` and `s` (which is why `s` is among
//! the thesis's stopwords) and `3.5` is `3` and `5`.
//!
//! A word's [key](Word::key) is the stable fingerprint of its bytes with ASCII letters lowercased:
//! n-grams compare case-insensitively for English without normalizing the text, so spans stay in
//! the caller's coordinates. Non-ASCII letters are compared as they are; run
//! [`normalize`](crate::normalize()) first when that matters.
use core::iter::FusedIterator;
use core::ops::Range;

use textreuse_hash::{fingerprint, fingerprint_words};

/// One word of a text: its byte span and text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Word<'a> {
    /// Byte range of the word in the text (on char boundaries, never empty).
    pub span: Range<usize>,
    text: &'a str,
}

impl<'a> Word<'a> {
    /// The word's text (`&text[span]`).
    #[inline]
    pub fn as_str(&self) -> &'a str {
        self.text
    }

    /// The stable 64-bit key of the word: `textreuse_hash::fingerprint` of its bytes with ASCII
    /// letters lowercased.
    ///
    /// ```
    /// use textreuse_shingle::words;
    /// let w: Vec<_> = words("The the THE").map(|w| w.key()).collect();
    /// assert!(w[0] == w[1] && w[1] == w[2]);
    /// ```
    #[inline]
    pub fn key(&self) -> u64 {
        word_key(self.text)
    }
}

/// [`Word::key`] of a word given as a string.
pub fn word_key(word: &str) -> u64 {
    let bytes = word.as_bytes();
    if !bytes.iter().any(u8::is_ascii_uppercase) {
        return fingerprint(bytes);
    }
    let mut buf = [0u8; 64];
    if bytes.len() <= buf.len() {
        for (d, s) in buf.iter_mut().zip(bytes) {
            *d = s.to_ascii_lowercase();
        }
        fingerprint(&buf[..bytes.len()])
    } else {
        // Rare: words over 64 bytes.
        fingerprint(&bytes.to_ascii_lowercase())
    }
}

/// The words of `text`, in order.
///
/// ```
/// use textreuse_shingle::words;
/// let text = "Lincoln's 2nd term—1865.";
/// let got: Vec<&str> = words(text).map(|w| w.as_str()).collect();
/// assert_eq!(got, ["Lincoln", "s", "2nd", "term", "1865"]);
/// ```
pub fn words(text: &str) -> Words<'_> {
    Words { text, pos: 0 }
}

/// Iterator over the [`Word`]s of a text, made by [`words`].
#[derive(Clone, Debug)]
pub struct Words<'a> {
    text: &'a str,
    pos: usize,
}

#[inline]
fn is_word_char_at(bytes: &[u8], text: &str, i: usize) -> (bool, usize) {
    let b = bytes[i];
    if b < 0x80 {
        (b.is_ascii_alphanumeric(), 1)
    } else {
        let c = text[i..].chars().next().unwrap_or(' ');
        (c.is_alphanumeric(), c.len_utf8())
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = Word<'a>;

    #[inline]
    fn next(&mut self) -> Option<Word<'a>> {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut i = self.pos;
        // Skip separators.
        while i < bytes.len() {
            let (word, w) = is_word_char_at(bytes, text, i);
            if word {
                break;
            }
            i += w;
        }
        if i >= bytes.len() {
            self.pos = bytes.len();
            return None;
        }
        let start = i;
        while i < bytes.len() {
            let (word, w) = is_word_char_at(bytes, text, i);
            if !word {
                break;
            }
            i += w;
        }
        self.pos = i;
        Some(Word {
            span: start..i,
            text: &text[start..i],
        })
    }
}

impl FusedIterator for Words<'_> {}

/// The thesis's 50 most frequent words of English Wikipedia, used for stopword n-grams
/// (Stamatatos 2011), in frequency order.
pub const STOPWORDS: [&str; 50] = [
    "the", "of", "and", "in", "a", "to", "was", "is", "for", "as", "on", "with", "by", "s", "he",
    "that", "at", "from", "his", "it", "an", "were", "are", "which", "this", "be", "also", "had",
    "or", "has", "first", "their", "its", "one", "after", "but", "new", "who", "not", "they",
    "she", "have", "her", "two", "been", "when", "other", "during", "all", "into",
];

/// Whether `word` is one of the [`STOPWORDS`], ignoring ASCII case.
///
/// ```
/// use textreuse_shingle::is_stopword;
/// assert!(is_stopword("The") && is_stopword("during") && !is_stopword("thesis"));
/// ```
pub fn is_stopword(word: &str) -> bool {
    word.len() <= 6 && STOPWORDS.iter().any(|s| s.eq_ignore_ascii_case(word))
}

/// The words of `text` that are [`STOPWORDS`], in order (a [`Words`] filtered by
/// [`is_stopword`]). Collect them and pass them to [`WordNgrams::new`] for stopword n-grams.
///
/// ```
/// use textreuse_shingle::{WordNgrams, stopwords};
/// let sw: Vec<_> = stopwords("The cat sat on the mat with his hat").collect();
/// let got: Vec<&str> = sw.iter().map(|w| w.as_str()).collect();
/// assert_eq!(got, ["The", "on", "the", "with", "his"]);
/// assert_eq!(WordNgrams::new(&sw, 3, 1)?.count(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stopwords(text: &str) -> Stopwords<'_> {
    Stopwords { words: words(text) }
}

/// Iterator over the stopwords of a text, made by [`stopwords`].
#[derive(Clone, Debug)]
pub struct Stopwords<'a> {
    words: Words<'a>,
}

impl<'a> Iterator for Stopwords<'a> {
    type Item = Word<'a>;

    #[inline]
    fn next(&mut self) -> Option<Word<'a>> {
        self.words.by_ref().find(|w| is_stopword(w.as_str()))
    }
}

impl FusedIterator for Stopwords<'_> {}

/// One word n-gram: which words it covers, its byte span and its stable key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WordNgram {
    /// Indices of its words in the slice given to [`WordNgrams::new`].
    pub words: Range<usize>,
    /// Byte range in the text, from the first word's start to the last word's end (for stopword
    /// n-grams this includes the non-stopwords in between).
    pub span: Range<usize>,
    /// `textreuse_hash::fingerprint_words` of the words' [keys](Word::key): equal n-grams of
    /// words (ignoring ASCII case) have equal keys, in any text.
    pub key: u64,
}

/// Iterator over the n-grams of a word sequence with a stride, made by [`WordNgrams::new`].
///
/// N-grams start at word `0, stride, 2·stride, ...` while `n` words remain; with fewer than `n`
/// words there are none. The thesis's "word 3-grams with overlap 1" are `n = 3, stride = 2`
/// (consecutive n-grams share one word); `stride = 1` gives all n-grams. Exact-size.
///
/// ```
/// use textreuse_shingle::{WordNgrams, words};
/// let text = "one two three four five";
/// let w: Vec<_> = words(text).collect();
/// let got: Vec<&str> = WordNgrams::new(&w, 3, 2)?.map(|g| &text[g.span]).collect();
/// assert_eq!(got, ["one two three", "three four five"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct WordNgrams<'w, 'a> {
    words: &'w [Word<'a>],
    keys: Vec<u64>,
    n: usize,
    stride: usize,
    next: usize,
}

impl<'w, 'a> WordNgrams<'w, 'a> {
    /// The `n`-grams of `words` starting every `stride` words. Computes the word keys once (one
    /// allocation per call, none per n-gram).
    ///
    /// # Errors
    ///
    /// [`Error::ZeroLength`](crate::Error::ZeroLength) when `n` or `stride` is 0.
    pub fn new(words: &'w [Word<'a>], n: usize, stride: usize) -> Result<Self, crate::Error> {
        if n == 0 {
            return Err(crate::Error::ZeroLength {
                what: "n-gram length",
            });
        }
        if stride == 0 {
            return Err(crate::Error::ZeroLength {
                what: "n-gram stride",
            });
        }
        Ok(WordNgrams {
            words,
            keys: words.iter().map(Word::key).collect(),
            n,
            stride,
            next: 0,
        })
    }

    fn remaining(&self) -> usize {
        if self.next + self.n > self.words.len() {
            0
        } else {
            (self.words.len() - self.n - self.next) / self.stride + 1
        }
    }
}

impl Iterator for WordNgrams<'_, '_> {
    type Item = WordNgram;

    #[inline]
    fn next(&mut self) -> Option<WordNgram> {
        let i = self.next;
        if i + self.n > self.words.len() {
            return None;
        }
        self.next = i.saturating_add(self.stride);
        let range = i..i + self.n;
        Some(WordNgram {
            span: self.words[i].span.start..self.words[i + self.n - 1].span.end,
            key: fingerprint_words(&self.keys[range.clone()]),
            words: range,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let r = self.remaining();
        (r, Some(r))
    }
}

impl ExactSizeIterator for WordNgrams<'_, '_> {}
impl FusedIterator for WordNgrams<'_, '_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_spans_and_unicode() {
        let text = "  Ἀριστοτέλης (384–322 BC) wasn't   ";
        let got: Vec<(&str, usize)> = words(text).map(|w| (w.as_str(), w.span.start)).collect();
        assert_eq!(got[0], ("Ἀριστοτέλης", 2));
        let strs: Vec<&str> = got.iter().map(|g| g.0).collect();
        assert_eq!(strs, ["Ἀριστοτέλης", "384", "322", "BC", "wasn", "t"]);
        assert_eq!(words("").count(), 0);
        assert_eq!(words(" ,.; ").count(), 0);
    }

    #[test]
    fn ngram_counts_and_keys() {
        let w: Vec<_> = words("a b c d e f g").collect();
        for n in 1..=8 {
            for stride in 1..=4 {
                let it = WordNgrams::new(&w, n, stride).unwrap();
                let expect = it.len();
                assert_eq!(it.count(), expect);
                let expect_formula = if n > 7 { 0 } else { (7 - n) / stride + 1 };
                assert_eq!(expect, expect_formula, "n {n} stride {stride}");
            }
        }
        assert!(WordNgrams::new(&w, 0, 1).is_err());
        assert!(WordNgrams::new(&w, 1, 0).is_err());
        let a: Vec<_> = words("The Cat sat").collect();
        let b: Vec<_> = words("the cat  SAT!").collect();
        let ka: Vec<u64> = WordNgrams::new(&a, 2, 1).unwrap().map(|g| g.key).collect();
        let kb: Vec<u64> = WordNgrams::new(&b, 2, 1).unwrap().map(|g| g.key).collect();
        assert_eq!(ka, kb);
    }

    #[test]
    fn stopword_list_is_the_thesis_list() {
        assert_eq!(STOPWORDS.len(), 50);
        let mut sorted = STOPWORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 50);
        assert!(STOPWORDS.iter().all(|s| is_stopword(s)));
        assert!(!is_stopword(""));
    }
}
