//! Weighted paragraph fingerprints (after Wang, Liu and Jia's paragraph-fingerprint method).

use crate::sparse::SimHasher;
use crate::{DEFAULT_SEED, SimHashError};
use ahash::AHashMap;
use textreuse_hash::fingerprint;

/// The fingerprint of one paragraph of a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParagraphFingerprint {
    /// The paragraph's index in the input.
    pub paragraph: u32,
    /// Its `n`-bit fingerprint (bits at and above `n` are 0).
    pub fingerprint: u64,
}

/// Fingerprints documents paragraph by paragraph from their most informative sentences.
///
/// For a document (a slice of paragraphs):
/// 1. Words are maximal runs of alphanumeric characters, lowercased; a *keyword* is a word of at
///    least `min_keyword_chars` characters (a cheap stand-in for a stop-word list), and its
///    frequency `tf(t)` is counted within the paragraph (so a paragraph's fingerprint depends
///    on the paragraph alone, and a paragraph copied into another document keeps it).
/// 2. Sentences end at `.`, `!` or `?` followed by whitespace or the end of the paragraph. In each
///    paragraph the `sentences_per_paragraph` longest sentences (in words; ties to the earlier
///    one) with at least `min_sentence_words` words are selected.
/// 3. A selected sentence `s` at position `i` of its paragraph gets the weight
///    `w(s) = (1 + sum of tf(t) over the keyword occurrences in s / |s|) · lg|s| · pos(i)`,
///    where `|s|` is its word count, `lg` is `log2`, and `pos` is `first_weight` (default 2) for
///    the paragraph's first sentence, `last_weight` (default 1.5) for its last, and 1 otherwise.
/// 4. Each selected sentence gets the SimHash fingerprint of its words ([`SimHasher`] with the
///    same width and seed, every word weight 1), and the paragraph fingerprint is the weighted
///    combination: bit `j` is 1 when `sum of w(s) · (+1 if bit j of s is 1 else -1) > 0`.
///
/// Paragraphs without a selected sentence get no fingerprint. Two documents are compared by
/// [`set_cosine`] over their fingerprint sets.
///
/// The method is our reading of the paper's description (select long sentences, weight them by
/// keyword frequency, length and position, combine into an `n`-bit fingerprint); the exact
/// constants above are this crate's choice and are pinned by known-answer tests.
///
/// ```
/// use textreuse_simhash::{ParagraphFingerprinter, set_cosine};
///
/// let fp = ParagraphFingerprinter::new();
/// let a = fp.fingerprint_document(&[
///     "The river rises in the northern hills. It flows south through three market towns.",
///     "Fishing on the river was the main trade of the valley for centuries. Mills came later.",
/// ]);
/// let b = fp.fingerprint_document(&[
///     "The river rises in the northern hills. It flows south through three market towns.",
///     "Tourism replaced almost every other source of income after the railway arrived here.",
/// ]);
/// let fa: Vec<u64> = a.iter().map(|p| p.fingerprint).collect();
/// let fb: Vec<u64> = b.iter().map(|p| p.fingerprint).collect();
/// assert_eq!(set_cosine(&fa, &fb, 0), 0.5);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ParagraphFingerprinter {
    hasher: SimHasher,
    sentences_per_paragraph: usize,
    min_sentence_words: usize,
    min_keyword_chars: usize,
    first_weight: f64,
    last_weight: f64,
}

impl Default for ParagraphFingerprinter {
    fn default() -> Self {
        ParagraphFingerprinter::new()
    }
}

/// Builds a [`ParagraphFingerprinter`].
#[derive(Clone, Debug)]
pub struct ParagraphFingerprinterBuilder {
    bits: u32,
    seed: u64,
    sentences_per_paragraph: usize,
    min_sentence_words: usize,
    min_keyword_chars: usize,
    first_weight: f64,
    last_weight: f64,
}

impl Default for ParagraphFingerprinterBuilder {
    fn default() -> Self {
        ParagraphFingerprinterBuilder {
            bits: 64,
            seed: DEFAULT_SEED,
            sentences_per_paragraph: 3,
            min_sentence_words: 5,
            min_keyword_chars: 4,
            first_weight: 2.0,
            last_weight: 1.5,
        }
    }
}

impl ParagraphFingerprinterBuilder {
    /// The fingerprint width `n` (1 to 64; default 64).
    pub fn bits(&mut self, bits: u32) -> &mut Self {
        self.bits = bits;
        self
    }

    /// The seed of the sentence SimHash (default 1123456).
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// How many of the longest sentences of a paragraph are used (default 3; at least 1).
    pub fn sentences_per_paragraph(&mut self, n: usize) -> &mut Self {
        self.sentences_per_paragraph = n;
        self
    }

    /// The fewest words a selected sentence has (default 5; at least 2, since `lg 1 = 0`).
    pub fn min_sentence_words(&mut self, n: usize) -> &mut Self {
        self.min_sentence_words = n;
        self
    }

    /// The fewest characters of a keyword (default 4; 0 or 1 makes every word a keyword).
    pub fn min_keyword_chars(&mut self, n: usize) -> &mut Self {
        self.min_keyword_chars = n;
        self
    }

    /// The position weight of a paragraph's first sentence (default 2; finite, positive).
    pub fn first_weight(&mut self, w: f64) -> &mut Self {
        self.first_weight = w;
        self
    }

    /// The position weight of a paragraph's last sentence (default 1.5; finite, positive).
    pub fn last_weight(&mut self, w: f64) -> &mut Self {
        self.last_weight = w;
        self
    }

    /// Checks the parameters and builds the fingerprinter.
    pub fn build(&self) -> Result<ParagraphFingerprinter, SimHashError> {
        if self.bits == 0 || self.bits > 64 {
            return Err(SimHashError::InvalidBits { bits: self.bits });
        }
        if self.sentences_per_paragraph == 0 {
            return Err(SimHashError::InvalidParameter {
                name: "sentences_per_paragraph",
                value: 0,
            });
        }
        if self.min_sentence_words < 2 {
            return Err(SimHashError::InvalidParameter {
                name: "min_sentence_words",
                value: self.min_sentence_words as u64,
            });
        }
        for (name, w) in [
            ("first_weight", self.first_weight),
            ("last_weight", self.last_weight),
        ] {
            if !(w.is_finite() && w > 0.0) {
                return Err(SimHashError::InvalidWeight { name, value: w });
            }
        }
        Ok(ParagraphFingerprinter {
            hasher: SimHasher::builder()
                .bits(self.bits)
                .seed(self.seed)
                .build()?,
            sentences_per_paragraph: self.sentences_per_paragraph,
            min_sentence_words: self.min_sentence_words,
            min_keyword_chars: self.min_keyword_chars,
            first_weight: self.first_weight,
            last_weight: self.last_weight,
        })
    }
}

/// One candidate sentence of a paragraph.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    position: usize,
    words: usize,
    keyword_tf: u64,
    fingerprint: u64,
}

impl ParagraphFingerprinter {
    /// The defaults: 64 bits, seed 1123456, 3 sentences of at least 5 words per paragraph,
    /// keywords of at least 4 characters, position weights 2 (first) and 1.5 (last).
    pub fn new() -> ParagraphFingerprinter {
        ParagraphFingerprinterBuilder::default()
            .build()
            .expect("the default parameters are valid")
    }

    /// A builder starting from the defaults.
    pub fn builder() -> ParagraphFingerprinterBuilder {
        ParagraphFingerprinterBuilder::default()
    }

    /// The fingerprint width `n`.
    pub fn bits(&self) -> u32 {
        self.hasher.bits()
    }

    /// The fingerprints of a document's paragraphs, in paragraph order (paragraphs without a
    /// selected sentence are left out).
    pub fn fingerprint_document<P: AsRef<str>>(
        &self,
        paragraphs: &[P],
    ) -> Vec<ParagraphFingerprint> {
        let mut scratch = Scratch::default();
        paragraphs
            .iter()
            .enumerate()
            .filter_map(|(index, p)| {
                self.paragraph_with(p.as_ref(), &mut scratch)
                    .map(|fingerprint| ParagraphFingerprint {
                        paragraph: index as u32,
                        fingerprint,
                    })
            })
            .collect()
    }

    /// The fingerprint of one paragraph, or `None` if no sentence has `min_sentence_words`
    /// words.
    pub fn fingerprint_paragraph(&self, paragraph: &str) -> Option<u64> {
        self.paragraph_with(paragraph, &mut Scratch::default())
    }

    fn paragraph_with(&self, paragraph: &str, s: &mut Scratch) -> Option<u64> {
        s.tf.clear();
        for_each_word(paragraph, &mut s.word, |w, chars| {
            if chars >= self.min_keyword_chars {
                *s.tf.entry(fingerprint(w.as_bytes())).or_insert(0) += 1;
            }
        });
        s.candidates.clear();
        let mut count = 0;
        for (position, sentence) in sentences(paragraph).enumerate() {
            count = position + 1;
            s.hashes.clear();
            let mut keyword_tf = 0u64;
            let (hashes, tf) = (&mut s.hashes, &s.tf);
            for_each_word(sentence, &mut s.word, |w, chars| {
                let h = fingerprint(w.as_bytes());
                hashes.push(h);
                if chars >= self.min_keyword_chars {
                    keyword_tf += tf.get(&h).copied().unwrap_or(0);
                }
            });
            if s.hashes.len() >= self.min_sentence_words {
                s.candidates.push(Candidate {
                    position,
                    words: s.hashes.len(),
                    keyword_tf,
                    fingerprint: self.hasher.fingerprint_unweighted(s.hashes.iter().copied()),
                });
            }
        }
        if s.candidates.is_empty() {
            return None;
        }
        s.candidates
            .sort_by(|a, b| b.words.cmp(&a.words).then(a.position.cmp(&b.position)));
        s.candidates.truncate(self.sentences_per_paragraph);
        let mut acc = [0.0f64; 64];
        for c in &s.candidates {
            let len = c.words as f64;
            let pos = if c.position == 0 {
                self.first_weight
            } else if c.position + 1 == count {
                self.last_weight
            } else {
                1.0
            };
            let weight = (1.0 + c.keyword_tf as f64 / len) * len.log2() * pos;
            for (j, a) in acc.iter_mut().enumerate() {
                *a += if (c.fingerprint >> j) & 1 == 1 {
                    weight
                } else {
                    -weight
                };
            }
        }
        Some(crate::sparse::pack_positive(&acc[..self.bits() as usize]))
    }
}

/// Buffers reused across the paragraphs of a document.
#[derive(Default)]
struct Scratch {
    word: String,
    tf: AHashMap<u64, u64>,
    candidates: Vec<Candidate>,
    hashes: Vec<u64>,
}

/// The cosine similarity of two fingerprint sets seen as binary vectors, with fuzzy equality:
/// `matches / sqrt(|a| · |b|)`, where `matches` pairs fingerprints one to one (greedily, in
/// order) when they are within `max_hamming` bits. With `max_hamming = 0` this is the exact
/// multiset cosine. 0 when either set is empty.
pub fn set_cosine(a: &[u64], b: &[u64], max_hamming: u32) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let mut used = vec![false; b.len()];
    let mut matches = 0usize;
    for &x in a {
        if let Some(j) = (0..b.len()).find(|&j| !used[j] && (x ^ b[j]).count_ones() <= max_hamming)
        {
            used[j] = true;
            matches += 1;
        }
    }
    matches as f64 / ((a.len() as f64) * (b.len() as f64)).sqrt()
}

/// Sentences of `text`: split after `.`, `!` or `?` when followed by whitespace or the end, and
/// trimmed; empty pieces are skipped.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    core::iter::from_fn(move || {
        loop {
            if rest.is_empty() {
                return None;
            }
            let mut end = rest.len();
            let mut chars = rest.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                if matches!(c, '.' | '!' | '?')
                    && chars.peek().is_none_or(|&(_, n)| n.is_whitespace())
                {
                    end = i + c.len_utf8();
                    break;
                }
            }
            let piece = rest[..end].trim();
            rest = &rest[end..];
            if !piece.is_empty() {
                return Some(piece);
            }
        }
    })
}

/// Calls `f(word, chars)` for every maximal run of alphanumeric characters, lowercased into
/// `buf` (reused, so no allocation per word once it has grown).
fn for_each_word(text: &str, buf: &mut String, mut f: impl FnMut(&str, usize)) {
    buf.clear();
    let mut chars = 0;
    for c in text.chars() {
        if c.is_alphanumeric() {
            buf.extend(c.to_lowercase());
            chars += 1;
        } else if chars > 0 {
            f(buf, chars);
            buf.clear();
            chars = 0;
        }
    }
    if chars > 0 {
        f(buf, chars);
        buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::{ParagraphFingerprinter, for_each_word, sentences, set_cosine};

    #[test]
    fn sentence_and_word_splitting() {
        let s: Vec<&str> = sentences("One two. Three 3.5 four!  Five? ... x.y end").collect();
        assert_eq!(
            s,
            ["One two.", "Three 3.5 four!", "Five?", "...", "x.y end"]
        );
        let mut buf = String::new();
        let mut words = Vec::new();
        for_each_word("Ünïcode, WORDS x2-y", &mut buf, |w, n| {
            words.push((w.to_string(), n))
        });
        assert_eq!(
            words,
            [
                ("ünïcode".into(), 7),
                ("words".into(), 5),
                ("x2".into(), 2),
                ("y".into(), 1)
            ]
        );
    }

    #[test]
    fn set_cosine_cases() {
        assert_eq!(set_cosine(&[], &[1], 0), 0.0);
        assert_eq!(set_cosine(&[1, 2], &[2, 1], 0), 1.0);
        assert_eq!(set_cosine(&[1, 1], &[1], 0), 1.0 / 2f64.sqrt());
        assert_eq!(set_cosine(&[0b1000], &[0b1001], 0), 0.0);
        assert_eq!(set_cosine(&[0b1000], &[0b1001], 1), 1.0);
    }

    #[test]
    fn edits_move_few_bits_and_short_paragraphs_are_skipped() {
        let fp = ParagraphFingerprinter::new();
        let doc = [
            "Too short.",
            "The committee met on Tuesday to discuss the new budget for the library. \
             Members agreed that the reading room needs new lighting and better chairs. \
             A final vote is expected next month after the public consultation closes.",
        ];
        let edited = [
            "Too short.",
            "The committee met on Wednesday to discuss the new budget for the library. \
             Members agreed that the reading room needs new lighting and better chairs. \
             A final vote is expected next month after the public consultation closes.",
        ];
        let a = fp.fingerprint_document(&doc);
        let b = fp.fingerprint_document(&edited);
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].paragraph, 1);
        let d = (a[0].fingerprint ^ b[0].fingerprint).count_ones();
        assert!(d <= 12, "one changed word moved {d} bits");
        assert!(ParagraphFingerprinter::builder().bits(65).build().is_err());
        assert!(
            ParagraphFingerprinter::builder()
                .min_sentence_words(1)
                .build()
                .is_err()
        );
        assert!(
            ParagraphFingerprinter::builder()
                .first_weight(f64::NAN)
                .build()
                .is_err()
        );
        assert!(
            ParagraphFingerprinter::builder()
                .sentences_per_paragraph(0)
                .build()
                .is_err()
        );
        let narrow = ParagraphFingerprinter::builder().bits(16).build().unwrap();
        assert!(narrow.fingerprint_document(&doc)[0].fingerprint < 1 << 16);
    }
}
