//! Tokenization for alignment: words with byte spans, sentences, and normalized term ids.
//!
//! A private tokenizer (words = maximal runs of alphanumeric characters; sentences end at `.`,
//! `!`, `?` or a blank line). It can be replaced by `textreuse-shingle`'s `words` once that crate
//! exists; alignment only needs byte spans and a term id per word.
use std::ops::Range;

use ahash::AHashMap;

use crate::stem;

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
#[derive(Debug, Default)]
pub(crate) struct Vocabulary {
    ids: AHashMap<Vec<u8>, u32>,
    buf: Vec<u8>,
}

impl Vocabulary {
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    fn term(&mut self, word: &str) -> (u32, bool) {
        self.buf.clear();
        for c in word.chars() {
            for l in c.to_lowercase() {
                let mut tmp = [0u8; 4];
                self.buf
                    .extend_from_slice(l.encode_utf8(&mut tmp).as_bytes());
            }
        }
        let stop = stem::is_stopword(&self.buf);
        if !stop {
            stem::porter(&mut self.buf);
        }
        if let Some(&id) = self.ids.get(self.buf.as_slice()) {
            return (id, stop);
        }
        let id = self.ids.len() as u32;
        self.ids.insert(self.buf.clone(), id);
        (id, stop)
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
        let mut v = Vocabulary::default();
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
        let mut v = Vocabulary::default();
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
