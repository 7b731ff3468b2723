//! Tokenization for alignment: words with byte spans, sentences, and normalized term ids.
//!
//! A private tokenizer (words = maximal runs of alphanumeric characters; sentences end at `.`,
//! `!`, `?` or a blank line). It can be replaced by `textreuse-shingle`'s `words` once that crate
//! exists; alignment only needs byte spans and a term id per word.
use std::ops::Range;

use ahash::AHashMap;

use std::borrow::Cow;
use std::cell::RefCell;

use rust_stemmers::Stemmer;

use crate::Language;

/// One word of a document.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Word {
    /// Byte span in the document.
    pub start: u32,
    pub end: u32,
    /// Term id of the normalized (lowercased, stemmed) word.
    pub term: u32,
    /// True for a stopword.
    pub stop: bool,
}

/// A sentence: a range of words and its byte span (first word start to the end of its final
/// punctuation).
#[derive(Clone, Debug)]
pub(crate) struct Sentence {
    pub words: Range<usize>,
    pub span: Range<usize>,
}

/// A tokenized document.
#[derive(Debug, Default)]
pub(crate) struct Doc {
    pub words: Vec<Word>,
    pub sentences: Vec<Sentence>,
}

/// Maps normalized words to dense term ids; shared by the two documents of a pair.
#[derive(Debug)]
pub(crate) struct Vocabulary {
    language: Language,
    /// The thread's stem number -> this pair's term id.
    ids: AHashMap<u32, u32>,
    buf: String,
}

/// Stemming is the costly part of normalizing a word, and the pairs a thread aligns share most
/// of their words, so each thread keeps the words it has normalized: lowercased form ->
/// (stem number, stopword). Cleared when a pair starts in another language or the cache has
/// grown past `MAX_FORMS`.
struct Normalized {
    language: Language,
    stemmer: Option<Stemmer>,
    forms: AHashMap<Box<str>, (u32, bool)>,
    stems: AHashMap<Box<str>, u32>,
}

/// About 15 MB per thread when full (a form and a stem with their map entries take about 120
/// bytes); a document pair rarely holds more than 20,000 distinct forms.
const MAX_FORMS: usize = 1 << 17;

thread_local! {
    static NORMALIZED: RefCell<Normalized> = RefCell::new(Normalized {
        language: Language::English,
        stemmer: Language::English.stemmer(),
        forms: AHashMap::default(),
        stems: AHashMap::default(),
    });
}

impl Normalized {
    fn get(&mut self, form: &str) -> (u32, bool) {
        if let Some(&known) = self.forms.get(form) {
            return known;
        }
        let stop = self.language.is_stopword(form);
        let stem = match &self.stemmer {
            Some(s) if !stop => s.stem(form),
            _ => Cow::Borrowed(form),
        };
        let next = self.stems.len() as u32;
        let number = match self.stems.get(stem.as_ref()) {
            Some(&n) => n,
            None => {
                self.stems.insert(Box::from(stem.as_ref()), next);
                next
            }
        };
        self.forms.insert(Box::from(form), (number, stop));
        (number, stop)
    }
}

/// The key of a word n-gram: FNV-1a over its term ids (in-memory only, per pair).
pub(crate) fn ngram_key(terms: impl IntoIterator<Item = u32>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for t in terms {
        h = (h ^ u64::from(t)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Vocabulary {
    /// Starts a pair's vocabulary (the thread's cache of normalized words is reset here when
    /// needed, never in the middle of a pair).
    pub fn new(language: Language) -> Vocabulary {
        NORMALIZED.with_borrow_mut(|n| {
            if n.language != language || n.forms.len() > MAX_FORMS {
                *n = Normalized {
                    language,
                    stemmer: language.stemmer(),
                    forms: AHashMap::default(),
                    stems: AHashMap::default(),
                };
            }
        });
        Vocabulary {
            language,
            ids: AHashMap::default(),
            buf: String::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    fn term(&mut self, word: &str) -> (u32, bool) {
        self.buf.clear();
        for c in word.chars() {
            self.buf.extend(c.to_lowercase());
        }
        let (number, stop) = NORMALIZED.with_borrow_mut(|n| {
            debug_assert_eq!(n.language, self.language);
            n.get(&self.buf)
        });
        let next = self.ids.len() as u32;
        (*self.ids.entry(number).or_insert(next), stop)
    }
}

impl Doc {
    /// Tokenizes `text`, merging sentences of fewer than `min_sentence_words` non-stopwords
    /// into the next sentence.
    pub fn new(text: &str, vocab: &mut Vocabulary, min_sentence_words: usize) -> Doc {
        let mut words = Vec::new();
        // Sentence boundaries as word indices where a new sentence starts.
        let mut breaks = vec![0usize];
        let mut word_start: Option<usize> = None;
        // State of the gap since the last word: saw a terminator, then whitespace / newlines.
        let mut terminator = false;
        let mut boundary = false;
        let mut newlines = 0;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if i < text.len() && c.is_alphanumeric() {
                if word_start.is_none() {
                    if boundary && !words.is_empty() && breaks.last() != Some(&words.len()) {
                        breaks.push(words.len());
                    }
                    terminator = false;
                    boundary = false;
                    newlines = 0;
                    word_start = Some(i);
                }
                continue;
            }
            if let Some(s) = word_start.take() {
                let (term, stop) = vocab.term(&text[s..i]);
                words.push(Word {
                    start: s as u32,
                    end: i as u32,
                    term,
                    stop,
                });
            }
            match c {
                '.' | '!' | '?' => terminator = true,
                '\n' => {
                    newlines += 1;
                    boundary |= newlines >= 2 || terminator;
                }
                c if c.is_whitespace() => boundary |= terminator,
                _ => {}
            }
        }
        breaks.push(words.len());
        let mut sentences: Vec<Sentence> = Vec::new();
        let mut start = 0;
        for w in breaks.windows(2) {
            let end = w[1];
            if end <= start {
                continue;
            }
            let content = words[start..end].iter().filter(|w| !w.stop).count();
            if content < min_sentence_words && end != words.len() {
                continue; // merge into the next sentence
            }
            sentences.push(Sentence {
                words: start..end,
                span: 0..0,
            });
            start = end;
        }
        if start < words.len() {
            // A trailing short sentence joins the previous one.
            match sentences.last_mut() {
                Some(last) => last.words.end = words.len(),
                None => sentences.push(Sentence {
                    words: start..words.len(),
                    span: 0..0,
                }),
            }
        }
        for s in &mut sentences {
            let first = words[s.words.start].start as usize;
            let last = words[s.words.end - 1].end as usize;
            // Extend over the closing punctuation up to the next whitespace.
            let tail = text[last..]
                .char_indices()
                .find(|&(_, c)| c.is_whitespace() || c.is_alphanumeric())
                .map_or(text.len() - last, |(i, _)| i);
            s.span = first..last + tail;
        }
        Doc { words, sentences }
    }
}

/// Converts a byte range of `text` (on char boundaries) to a range of Unicode code points.
pub fn char_range(text: &str, bytes: Range<usize>) -> Range<usize> {
    let start = text[..bytes.start].chars().count();
    start..start + text[bytes].chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_spans() {
        let text = "The cat sat on the mat. Dogs were barking loudly!  New\n\nparagraph here now";
        let mut v = Vocabulary::new(crate::Language::English);
        let d = Doc::new(text, &mut v, 1);
        let spans: Vec<&str> = d.sentences.iter().map(|s| &text[s.span.clone()]).collect();
        assert_eq!(
            spans,
            [
                "The cat sat on the mat.",
                "Dogs were barking loudly!",
                "New",
                "paragraph here now"
            ]
        );
        let d = Doc::new(text, &mut v, 3);
        let spans: Vec<&str> = d.sentences.iter().map(|s| &text[s.span.clone()]).collect();
        assert_eq!(
            spans,
            [
                "The cat sat on the mat.",
                "Dogs were barking loudly!",
                "New\n\nparagraph here now"
            ]
        );
    }

    #[test]
    fn stems_share_ids() {
        let mut v = Vocabulary::new(crate::Language::English);
        let d = Doc::new("Connected connections CONNECTING", &mut v, 1);
        assert!(d.words.iter().all(|w| w.term == d.words[0].term));
    }

    #[test]
    fn char_ranges() {
        let t = "héllo wörld";
        let b = t.find('w').unwrap();
        assert_eq!(char_range(t, b..t.len()), 6..11);
    }
}
