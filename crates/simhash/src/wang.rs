//! Wang, Liu and Jia's paragraph fingerprints ("A fingerprint of paragraph generation approach
//! for detecting similar document", Information Technology Journal 13(14), 2014), the
//! [`ParagraphMethod::Wang`](crate::ParagraphMethod::Wang) mode of
//! [`ParagraphFingerprinter`](crate::ParagraphFingerprinter).
//!
//! One pass over a paragraph's bytes finds its sentences and, per sentence, its word count, its
//! length in characters, the characters of its keywords and the hash of its normalized text; the
//! long sentences are then picked, weighted and folded. Nothing is allocated per sentence once
//! the scratch buffers have grown. See the fingerprinter's docs for the readings chosen where the
//! paper is ambiguous.

use textreuse_hash::{fingerprint, mix64};

use crate::gaussian::ln;
use crate::paragraph::Fallback;

/// The stopwords: every other word is a keyword. These are the thesis's 50 most frequent words
/// of English Wikipedia (the list `textreuse_shingle::STOPWORDS` uses for stopword n-grams; a
/// test checks that the two lists are the same), sorted here for binary search.
pub(crate) const STOPWORDS_SORTED: [&str; 50] = [
    "a", "after", "all", "also", "an", "and", "are", "as", "at", "be", "been", "but", "by",
    "during", "first", "for", "from", "had", "has", "have", "he", "her", "his", "in", "into", "is",
    "it", "its", "new", "not", "of", "on", "one", "or", "other", "s", "she", "that", "the",
    "their", "they", "this", "to", "two", "was", "were", "when", "which", "who", "with",
];

/// Whether a lowercased word is one of the stopwords.
#[inline]
pub(crate) fn is_stopword(word: &[u8]) -> bool {
    // The longest stopword, "during", has 6 bytes.
    word.len() <= 6
        && STOPWORDS_SORTED
            .binary_search_by(|s| s.as_bytes().cmp(word))
            .is_ok()
}

/// What the scan learns about one sentence (a sentence with at least one word).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SentenceStats {
    /// Its 0-based position among the sentences of its paragraph.
    pub position: u32,
    /// The number of sentences of its paragraph (set when the paragraph ends).
    pub count: u32,
    /// Its words (maximal runs of alphanumeric characters).
    pub words: u32,
    /// `|s|`: the characters of its words (letters and digits; spaces and punctuation not
    /// counted).
    pub chars: u32,
    /// The characters of its keywords (the words that are not stopwords), each occurrence
    /// counted: `sum over keywords j of F_ij · |kw_j|`.
    pub keyword_chars: u32,
    /// The 64-bit hash of its normalized text (lowercased words joined by single spaces).
    pub hash: u64,
}

/// The sentence hash: `mix64(fingerprint(normalized words) ^ mix64(seed))`. The fingerprint
/// sees the sentence's words lowercased and joined by single spaces, so spacing, punctuation and
/// case do not change it.
#[inline]
pub(crate) fn sentence_hash(normalized: &[u8], seed_key: u64) -> u64 {
    mix64(fingerprint(normalized) ^ seed_key)
}

/// The position weight `W_po` of eq. 2 (our reading): `first` for a paragraph's first sentence
/// (also when it is the only one), `last` for its last, `middle` otherwise.
#[inline]
pub(crate) fn position_weight(position: u32, count: u32, w: &PositionWeights) -> f64 {
    if position == 0 {
        w.first
    } else if position + 1 == count {
        w.last
    } else {
        w.middle
    }
}

/// The position weights of eq. 2.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PositionWeights {
    pub first: f64,
    pub middle: f64,
    pub last: f64,
}

/// `lg x = log10 x`, from the crate's own `ln` (only IEEE-exact operations), so a weight is the
/// same on every machine.
#[inline]
pub(crate) fn lg(x: f64) -> f64 {
    ln(x) / std::f64::consts::LN_10
}

/// `W = W_kw + W_len + W_po`: the keyword weight of eq. 1 (`keyword characters / |s|`), the
/// length weight `lg |s|` and the position weight of eq. 2, summed in that order.
#[inline]
pub(crate) fn sentence_weight(s: &SentenceStats, w: &PositionWeights) -> f64 {
    let chars = f64::from(s.chars);
    let keyword = f64::from(s.keyword_chars) / chars;
    keyword + lg(chars) + position_weight(s.position, s.count, w)
}

/// Algorithm 1: for each of the `bits` low bits, `+W` of every sentence whose hash has it set and
/// `-W` of every other one; the fingerprint bit is 1 where the sum is positive (a tie is 0).
/// Sentences are added in the order given.
pub(crate) fn fold<'a>(
    sentences: impl Iterator<Item = &'a SentenceStats>,
    bits: u32,
    w: &PositionWeights,
) -> u64 {
    let mut acc = [0.0f64; 64];
    let acc = &mut acc[..bits as usize];
    for s in sentences {
        let weight = sentence_weight(s, w);
        for (j, a) in acc.iter_mut().enumerate() {
            // Branch-free: +weight when bit j is 1, -weight when it is 0.
            let sign = ((s.hash >> j) & 1) as f64 * 2.0 - 1.0;
            *a += sign * weight;
        }
    }
    crate::sparse::pack_positive(acc)
}

/// The scan state of one sentence.
#[derive(Default)]
struct Sentence {
    words: u32,
    chars: u32,
    keyword_chars: u32,
    in_word: bool,
    word_start: usize,
    word_chars: u32,
}

/// Appends the sentences of `paragraph` to `out` (their `count` set), using `buf` for the
/// normalized text of the sentence being read. Sentences end after `.`, `!`, `?` or `;`
/// followed by white space or the end of the paragraph, after the full-width `。`, `！`, `？`
/// and `；`, and at the end of the paragraph; a piece without a word is no sentence.
pub(crate) fn scan_paragraph(
    paragraph: &str,
    seed_key: u64,
    buf: &mut Vec<u8>,
    out: &mut Vec<SentenceStats>,
) {
    let first = out.len();
    let bytes = paragraph.as_bytes();
    let mut s = Sentence::default();
    buf.clear();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            if b.is_ascii_alphanumeric() {
                start_word(&mut s, buf);
                buf.push(b.to_ascii_lowercase());
                s.word_chars = s.word_chars.saturating_add(1);
                continue;
            }
            end_word(&mut s, buf);
            if matches!(b, b'.' | b'!' | b'?' | b';') && followed_by_space(paragraph, i) {
                end_sentence(&mut s, buf, seed_key, first, out);
            }
        } else {
            let c = paragraph[i..].chars().next().expect("a char boundary");
            i += c.len_utf8();
            if c.is_alphanumeric() {
                start_word(&mut s, buf);
                let mut tmp = [0u8; 4];
                for l in c.to_lowercase() {
                    buf.extend_from_slice(l.encode_utf8(&mut tmp).as_bytes());
                }
                s.word_chars = s.word_chars.saturating_add(1);
            } else {
                end_word(&mut s, buf);
                if matches!(c, '。' | '！' | '？' | '；') {
                    end_sentence(&mut s, buf, seed_key, first, out);
                }
            }
        }
    }
    end_word(&mut s, buf);
    end_sentence(&mut s, buf, seed_key, first, out);
    let count = (out.len() - first) as u32;
    for st in &mut out[first..] {
        st.count = count;
    }
}

/// Whether the text at byte `i` is its end or starts with white space.
#[inline]
fn followed_by_space(text: &str, i: usize) -> bool {
    match text.as_bytes().get(i) {
        None => true,
        Some(&b) if b < 0x80 => b.is_ascii_whitespace(),
        Some(_) => text[i..].chars().next().is_some_and(char::is_whitespace),
    }
}

#[inline]
fn start_word(s: &mut Sentence, buf: &mut Vec<u8>) {
    if !s.in_word {
        if !buf.is_empty() {
            buf.push(b' ');
        }
        s.word_start = buf.len();
        s.in_word = true;
    }
}

#[inline]
fn end_word(s: &mut Sentence, buf: &[u8]) {
    if s.in_word {
        // Saturating: a "sentence" of 4 G characters (a text of gigabytes without a full stop)
        // gets capped counts instead of a panic or a wrap-around.
        s.words = s.words.saturating_add(1);
        s.chars = s.chars.saturating_add(s.word_chars);
        if !is_stopword(&buf[s.word_start..]) {
            s.keyword_chars = s.keyword_chars.saturating_add(s.word_chars);
        }
        s.in_word = false;
        s.word_chars = 0;
    }
}

#[inline]
fn end_sentence(
    s: &mut Sentence,
    buf: &mut Vec<u8>,
    seed_key: u64,
    first: usize,
    out: &mut Vec<SentenceStats>,
) {
    if s.words > 0 {
        out.push(SentenceStats {
            position: (out.len() - first) as u32,
            count: 0,
            words: s.words,
            chars: s.chars,
            keyword_chars: s.keyword_chars,
            hash: sentence_hash(buf, seed_key),
        });
    }
    *s = Sentence::default();
    buf.clear();
}

/// Picks the `m` longest (by words; ties to the earlier) of `candidates` (indices into
/// `sentences`, in text order) and leaves them in `candidates` in text order.
pub(crate) fn keep_longest(sentences: &[SentenceStats], candidates: &mut Vec<u32>, m: usize) {
    if candidates.len() > m {
        candidates.sort_by(|&a, &b| {
            sentences[b as usize]
                .words
                .cmp(&sentences[a as usize].words)
                .then(a.cmp(&b))
        });
        candidates.truncate(m);
        candidates.sort_unstable();
    }
}

/// The parameters of the method, resolved by the builder.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct WangParams {
    pub bits: u32,
    pub seed_key: u64,
    pub min_words: u32,
    pub per_paragraph: usize,
    pub weights: PositionWeights,
    pub fallback: Fallback,
}

/// Buffers reused across paragraphs and documents.
#[derive(Clone, Debug, Default)]
pub(crate) struct WangScratch {
    buf: Vec<u8>,
    /// The sentences of the document read so far.
    sentences: Vec<SentenceStats>,
    candidates: Vec<u32>,
    /// Per paragraph with words: its index and its first sentence in `sentences`, and whether
    /// it needs the fallback.
    paragraphs: Vec<(u32, u32, bool)>,
}

impl WangParams {
    /// The fingerprints of a document's paragraphs, appended to `out` as `(paragraph index,
    /// fingerprint)` in paragraph order. Paragraphs without a word are skipped.
    pub(crate) fn document<'a>(
        &self,
        paragraphs: impl Iterator<Item = &'a str>,
        s: &mut WangScratch,
        out: &mut Vec<(u32, u64)>,
    ) {
        let doc_start = out.len();
        s.sentences.clear();
        s.paragraphs.clear();
        for (index, p) in paragraphs.enumerate() {
            let start = s.sentences.len();
            scan_paragraph(p, self.seed_key, &mut s.buf, &mut s.sentences);
            if s.sentences.len() > start {
                s.paragraphs.push((index as u32, start as u32, false));
            }
        }
        let mut needs_fallback = false;
        for k in 0..s.paragraphs.len() {
            let (index, start, _) = s.paragraphs[k];
            let end = s
                .paragraphs
                .get(k + 1)
                .map_or(s.sentences.len(), |p| p.1 as usize);
            let para = &s.sentences[start as usize..end];
            s.candidates.clear();
            s.candidates.extend(
                (0..para.len() as u32).filter(|&i| para[i as usize].words >= self.min_words),
            );
            if s.candidates.is_empty() {
                match self.fallback {
                    Fallback::Skip => continue,
                    Fallback::Document => {
                        needs_fallback = true;
                        s.paragraphs[k].2 = true;
                        continue;
                    }
                    Fallback::Paragraph => s.candidates.extend(0..para.len() as u32),
                }
            }
            keep_longest(para, &mut s.candidates, self.per_paragraph);
            let fp = fold(
                s.candidates.iter().map(|&i| &para[i as usize]),
                self.bits,
                &self.weights,
            );
            out.push((index, fp));
        }
        if needs_fallback {
            // The `min_words` (the paper's k) longest sentences of the whole document, whatever
            // their length, folded in document order with their own weights.
            s.candidates.clear();
            s.candidates.extend(0..s.sentences.len() as u32);
            keep_longest(&s.sentences, &mut s.candidates, self.min_words as usize);
            let fp = fold(
                s.candidates.iter().map(|&i| &s.sentences[i as usize]),
                self.bits,
                &self.weights,
            );
            for &(index, _, fallback) in &s.paragraphs {
                if fallback {
                    out.push((index, fp));
                }
            }
            // Back into paragraph order: the fallback paragraphs were appended after the rest.
            out[doc_start..].sort_by_key(|&(index, _)| index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fallback, ParagraphFingerprinter, ParagraphMethod};

    const SEED: u64 = crate::DEFAULT_SEED;

    /// The hash of a normalized sentence, by the formula the docs give.
    fn h(normalized: &str) -> u64 {
        mix64(fingerprint(normalized.as_bytes()) ^ mix64(SEED))
    }

    const PARAGRAPH: &str = "The old mill stands by the river. It grinds corn; the miller sells \
        flour in town. Rain fell! Children from the village fish near the weir in summer. Old \
        boats still pass under the stone bridge.";

    /// The paper's equations on one paragraph, by hand, with k = 3 words, m = 4 sentences,
    /// b = 8 bits and the position weights [first 1, middle 0.5, last 1].
    ///
    /// Sentences (split at `.`, `;`, `!`), words, |s| in characters, keyword characters (the
    /// stopwords here are "the", "by", "it", "in", "from"):
    ///
    /// | i | sentence                                   | words | |s| | keyword chars          |
    /// |---|--------------------------------------------|-------|-----|------------------------|
    /// | 0 | the old mill stands by the river           | 7     | 26  | 3+4+6+5 = 18           |
    /// | 1 | it grinds corn                             | 3     | 12  | 6+4 = 10               |
    /// | 2 | the miller sells flour in town             | 6     | 25  | 6+5+5+4 = 20           |
    /// | 3 | rain fell                                  | 2     | 8   | 8                      |
    /// | 4 | children from the village fish near the weir in summer | 10 | 45 | 8+7+4+4+4+6 = 33 |
    /// | 5 | old boats still pass under the stone bridge | 8    | 36  | 3+5+5+4+5+5+6 = 33     |
    ///
    /// Long sentences (>= 3 words): 0, 1, 2, 4, 5; the m = 4 longest drop sentence 1 (3 words).
    /// Weights W = W_kw + W_len + W_po (eq. 1, lg = log10, eq. 2 with n = 6 sentences):
    ///
    /// * W0 = 18/26 + lg 26 + 1   = 0.692307692 + 1.414973348 + 1   = 3.107281040
    /// * W2 = 20/25 + lg 25 + 0.5 = 0.8         + 1.397940009 + 0.5 = 2.697940009
    /// * W4 = 33/45 + lg 45 + 0.5 = 0.733333333 + 1.653212514 + 0.5 = 2.886545847
    /// * W5 = 33/36 + lg 36 + 1   = 0.916666667 + 1.556302501 + 1   = 3.472969167
    ///
    /// Algorithm 1 per bit: +W where the sentence's bit is 1, -W where it is 0. Three or four
    /// equal bits win (any three weights outweigh the fourth: the smallest three sum to 8.69 >
    /// 3.47). Two against two: {5, 0} 6.580 > {4, 2} 5.584, {5, 4} 6.360 > {0, 2} 5.805,
    /// {5, 2} 6.171 > {0, 4} 5.994, so the pair holding sentence 5 wins: the fingerprint is the
    /// bitwise majority of h0, h2, h4, h5 with ties going to h5.
    #[test]
    fn worked_example_by_hand() {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        scan_paragraph(PARAGRAPH, mix64(SEED), &mut buf, &mut out);
        let got: Vec<(u32, u32, u32, u32, u32)> = out
            .iter()
            .map(|s| (s.position, s.count, s.words, s.chars, s.keyword_chars))
            .collect();
        assert_eq!(
            got,
            [
                (0, 6, 7, 26, 18),
                (1, 6, 3, 12, 10),
                (2, 6, 6, 25, 20),
                (3, 6, 2, 8, 8),
                (4, 6, 10, 45, 33),
                (5, 6, 8, 36, 33),
            ]
        );
        let normalized = [
            "the old mill stands by the river",
            "it grinds corn",
            "the miller sells flour in town",
            "rain fell",
            "children from the village fish near the weir in summer",
            "old boats still pass under the stone bridge",
        ];
        for (s, n) in out.iter().zip(normalized) {
            assert_eq!(s.hash, h(n), "{n}");
        }
        let w = PositionWeights {
            first: 1.0,
            middle: 0.5,
            last: 1.0,
        };
        let by_hand = [
            (0, 3.107281040),
            (2, 2.697940009),
            (4, 2.886545847),
            (5, 3.472969167),
        ];
        for (i, weight) in by_hand {
            let got = sentence_weight(&out[i], &w);
            assert!(
                (got - weight).abs() < 1e-9,
                "W{i} = {got}, by hand {weight}"
            );
        }
        // The fold by the rule derived above, bit by bit.
        let (h0, h2, h4, h5) = (out[0].hash, out[2].hash, out[4].hash, out[5].hash);
        let mut expected = 0u64;
        for j in 0..8 {
            let ones = [h0, h2, h4, h5]
                .iter()
                .filter(|&&x| (x >> j) & 1 == 1)
                .count();
            let bit = match ones {
                0 | 1 => 0,
                3 | 4 => 1,
                _ => (h5 >> j) & 1,
            };
            expected |= bit << j;
        }
        let fp = ParagraphFingerprinter::builder()
            .method(ParagraphMethod::Wang)
            .min_sentence_words(3)
            .sentences_per_paragraph(4)
            .bits(8)
            .build()
            .unwrap();
        assert_eq!(fp.fingerprint_paragraph(PARAGRAPH), Some(expected));
        println!("worked example: {expected:#04x}");

        // The document fallback: a second paragraph without a sentence of 3 words gets the
        // k = 3 longest sentences of the whole document, sentences 4 (10 words), 5 (8) and 0
        // (7), folded with their own weights W0, W4, W5; any two of those outweigh the third,
        // so the fold is their bitwise majority.
        let doc = fp.fingerprint_text(&format!("{PARAGRAPH}\n\nShort one. Tiny too."));
        let majority = (h0 & h4) | (h0 & h5) | (h4 & h5);
        assert_eq!(doc.len(), 2);
        assert_eq!((doc[0].paragraph, doc[0].fingerprint), (0, expected));
        assert_eq!((doc[1].paragraph, doc[1].fingerprint), (1, majority & 0xff));
        // Without the fallback the second paragraph gets nothing; with the paragraph fallback
        // it gets its own two sentences, W = 5/8 + lg 8 + 1 = 2.528 for "short one" ("one" is a
        // stopword) and 7/7 + lg 7 + 1 = 2.845 for "tiny too" (the last sentence): the second
        // is heavier, so its bits win where they differ and the fold is its hash.
        let skip = ParagraphFingerprinter::builder()
            .method(ParagraphMethod::Wang)
            .min_sentence_words(3)
            .sentences_per_paragraph(4)
            .bits(8)
            .fallback(Fallback::Skip)
            .build()
            .unwrap();
        assert_eq!(
            skip.fingerprint_text(&format!("{PARAGRAPH}\n\nShort one. Tiny too."))
                .len(),
            1
        );
        let own = ParagraphFingerprinter::builder()
            .method(ParagraphMethod::Wang)
            .min_sentence_words(3)
            .bits(8)
            .fallback(Fallback::Paragraph)
            .build()
            .unwrap();
        assert_eq!(
            own.fingerprint_paragraph("Short one. Tiny too."),
            Some(h("tiny too") & 0xff)
        );
    }

    #[test]
    fn sentence_splitting() {
        let mut buf = Vec::new();
        let mut out = Vec::new();
        // Semicolons split; a full stop inside a number or a word does not; "..." alone is no
        // sentence; full-width terminators split without a space.
        scan_paragraph(
            "One two; three 3.5 four! ... x.y end。Fünf Ünïcode？",
            mix64(SEED),
            &mut buf,
            &mut out,
        );
        let words: Vec<u32> = out.iter().map(|s| s.words).collect();
        assert_eq!(words, [2, 4, 3, 2]);
        assert_eq!(out[1].hash, h("three 3 5 four"));
        assert_eq!(out[3].hash, h("fünf ünïcode"));
        // Characters, not bytes.
        assert_eq!(out[3].chars, 11);
        assert!(out.iter().all(|s| s.count == 4));
    }

    #[test]
    fn stopwords_are_the_workspace_list() {
        let mut ours = STOPWORDS_SORTED.to_vec();
        let mut theirs = textreuse_shingle::STOPWORDS.to_vec();
        ours.sort_unstable();
        theirs.sort_unstable();
        assert_eq!(ours, theirs);
        assert!(STOPWORDS_SORTED.is_sorted());
        assert!(STOPWORDS_SORTED.iter().all(|w| is_stopword(w.as_bytes())));
        assert!(!is_stopword(b"mill"));
        assert!(STOPWORDS_SORTED.iter().all(|w| w.len() <= 6));
    }
}
