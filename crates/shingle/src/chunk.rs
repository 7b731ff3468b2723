//! Paragraphs, paragraph chunks with the merge of short paragraphs, the plagiarism checker's
//! chunk recipe (chunks cut to at most [`MAX_CHUNK_WORDS`] words, shingled as word n-grams), and
//! long-sentence selection.
//!
//! A paragraph is a maximal piece of text without a blank line (a line break, optional
//! whitespace, another line break), trimmed of surrounding whitespace.
use core::iter::FusedIterator;
use core::ops::Range;

use textreuse_hash::fingerprint_words;

use crate::sentence::{Sentence, sentences};
use crate::words::words;

/// The default smallest chunk of the chunk recipe ([`chunk_spans`]), in words: shorter
/// paragraphs are merged into a neighbour.
pub const DEFAULT_CHUNK_MIN_WORDS: usize = 20;
/// The default word n-gram length of a chunk's shingles ([`word_shingles`]).
pub const DEFAULT_CHUNK_NGRAM: usize = 2;
/// Chunks of the chunk recipe ([`chunk_spans`]) longer than this many words are cut into pieces
/// of this many words.
pub const MAX_CHUNK_WORDS: usize = 100;

/// The chunk recipe's parameters: how a text is cut into chunks ([`chunk_spans`]) and how a
/// chunk is shingled ([`word_shingles`]). A plain value that the chunk indexes and the reuse
/// job take whole (`MemoryIndexBuilder::chunks`, `ReuseBuilder::chunks` and a persistent chunk
/// index's parameters), so the recipe's defaults are [`DEFAULT_CHUNK_NGRAM`] and
/// [`DEFAULT_CHUNK_MIN_WORDS`] everywhere.
///
/// ```
/// use textreuse_shingle::ChunkConfig;
///
/// let wider = ChunkConfig { ngram: 3, ..ChunkConfig::default() };
/// assert_eq!((wider.ngram, wider.min_words), (3, 20));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkConfig {
    /// Word n-gram length of a chunk's shingles (default [`DEFAULT_CHUNK_NGRAM`]).
    pub ngram: usize,
    /// Paragraphs are merged until a chunk holds this many words (default
    /// [`DEFAULT_CHUNK_MIN_WORDS`]).
    pub min_words: usize,
}

impl ChunkConfig {
    /// The defaults: [`DEFAULT_CHUNK_NGRAM`]-word n-grams of chunks of at least
    /// [`DEFAULT_CHUNK_MIN_WORDS`] words.
    pub const fn new() -> ChunkConfig {
        ChunkConfig {
            ngram: DEFAULT_CHUNK_NGRAM,
            min_words: DEFAULT_CHUNK_MIN_WORDS,
        }
    }
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig::new()
    }
}

/// The paragraphs of `text` as trimmed byte spans, in order.
///
/// ```
/// use textreuse_shingle::paragraphs;
/// let text = "First line\nsame paragraph.\n \nSecond.\n\n\n";
/// let got: Vec<&str> = paragraphs(text).map(|p| &text[p]).collect();
/// assert_eq!(got, ["First line\nsame paragraph.", "Second."]);
/// ```
pub fn paragraphs(text: &str) -> Paragraphs<'_> {
    Paragraphs { text, pos: 0 }
}

/// Iterator over the paragraph spans of a text, made by [`paragraphs`].
#[derive(Clone, Debug)]
pub struct Paragraphs<'a> {
    text: &'a str,
    pos: usize,
}

impl Iterator for Paragraphs<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let text = self.text;
        let bytes = text.as_bytes();
        // Skip leading whitespace.
        let rest = &text[self.pos..];
        let start = self.pos + (rest.len() - rest.trim_start().len());
        if start >= bytes.len() {
            self.pos = bytes.len();
            return None;
        }
        let mut i = start;
        let mut end = bytes.len();
        let mut next = bytes.len();
        while let Some(off) = bytes[i..].iter().position(|&b| b == b'\n') {
            let nl = i + off;
            // Look for a second line break after only whitespace.
            let mut j = nl + 1;
            let mut blank = false;
            while j < bytes.len() {
                let b = bytes[j];
                if b == b'\n' {
                    blank = true;
                    break;
                }
                if b == b' ' || b == b'\t' || b == b'\r' || b == 0x0b || b == 0x0c {
                    j += 1;
                } else {
                    break;
                }
            }
            if blank {
                end = nl;
                next = j;
                break;
            }
            i = j.max(nl + 1);
        }
        self.pos = next;
        let para = text[start..end].trim_end();
        Some(start..start + para.len())
    }
}

impl FusedIterator for Paragraphs<'_> {}

/// One chunk: consecutive paragraphs merged until they hold enough words.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// Byte span from the first paragraph's start to the last paragraph's end.
    pub span: Range<usize>,
    /// Indices of the paragraphs it holds (in the order of [`paragraphs`]).
    pub paragraphs: Range<usize>,
    /// Its number of [words](crate::words()).
    pub words: usize,
}

/// The paragraph chunks of `text`: paragraphs are merged forward into a chunk until it holds at
/// least `min_words` words; a final chunk that stays short is merged into the chunk before it
/// (the thesis's merge of short paragraphs into their neighbours). With `min_words` 0 or 1 every
/// paragraph is its own chunk. Only a text whose words all fit in one short chunk yields a chunk
/// below `min_words`.
///
/// ```
/// use textreuse_shingle::chunks;
/// let text = "Title\n\nA real paragraph with six words.\n\nShort one.\n\nAnother paragraph of six words here.\n\nEnd.";
/// let got: Vec<&str> = chunks(text, 5).map(|c| &text[c.span]).collect();
/// assert_eq!(got, [
///     "Title\n\nA real paragraph with six words.",
///     "Short one.\n\nAnother paragraph of six words here.\n\nEnd.",
/// ]);
/// ```
pub fn chunks(text: &str, min_words: usize) -> Chunks<'_> {
    Chunks {
        text,
        paragraphs: paragraphs(text),
        index: 0,
        min_words,
        held: None,
    }
}

/// Iterator over the [`Chunk`]s of a text, made by [`chunks`].
#[derive(Clone, Debug)]
pub struct Chunks<'a> {
    text: &'a str,
    paragraphs: Paragraphs<'a>,
    index: usize,
    min_words: usize,
    /// A complete chunk held back until we know the next one is not a short tail.
    held: Option<Chunk>,
}

impl Chunks<'_> {
    /// Accumulates paragraphs into the next chunk; `None` at the end of the text.
    fn accumulate(&mut self) -> Option<Chunk> {
        let mut chunk: Option<Chunk> = None;
        for para in self.paragraphs.by_ref() {
            let n = words(&self.text[para.clone()]).count();
            let i = self.index;
            self.index += 1;
            let c = chunk.get_or_insert(Chunk {
                span: para.clone(),
                paragraphs: i..i,
                words: 0,
            });
            c.span.end = para.end;
            c.paragraphs.end = i + 1;
            c.words += n;
            if c.words >= self.min_words {
                break;
            }
        }
        chunk
    }
}

impl Iterator for Chunks<'_> {
    type Item = Chunk;

    fn next(&mut self) -> Option<Chunk> {
        loop {
            let Some(next) = self.accumulate() else {
                return self.held.take();
            };
            match self.held.take() {
                None => self.held = Some(next),
                Some(mut held) => {
                    if next.words >= self.min_words {
                        self.held = Some(next);
                        return Some(held);
                    }
                    // `next` is a short tail (accumulate only stops short at the end): merge it.
                    held.span.end = next.span.end;
                    held.paragraphs.end = next.paragraphs.end;
                    held.words += next.words;
                    return Some(held);
                }
            }
        }
    }
}

impl FusedIterator for Chunks<'_> {}

/// The chunks of `text` as the plagiarism checker and the reuse search sign them, as byte spans:
/// its paragraph [`chunks`] of at least `min_words` words, each cut into pieces of at most
/// [`MAX_CHUNK_WORDS`] words (PAN documents and other texts without blank lines would otherwise
/// be one huge chunk). Each span runs from its first word's start to its last word's end. `out`
/// is cleared first.
///
/// ```
/// use textreuse_shingle::{MAX_CHUNK_WORDS, chunk_spans};
/// let text = "word ".repeat(250);
/// let mut spans = Vec::new();
/// chunk_spans(&text, 20, &mut spans);
/// let words: Vec<usize> = spans.iter().map(|s| text[s.clone()].split(' ').count()).collect();
/// assert_eq!(words, [MAX_CHUNK_WORDS, MAX_CHUNK_WORDS, 50]);
/// ```
pub fn chunk_spans(text: &str, min_words: usize, out: &mut Vec<Range<usize>>) {
    out.clear();
    for chunk in chunks(text, min_words) {
        let mut start = chunk.span.start;
        let mut end = start;
        let mut n = 0;
        for w in words(&text[chunk.span.clone()]) {
            if n == MAX_CHUNK_WORDS {
                out.push(start..end);
                start = chunk.span.start + w.span.start;
                n = 0;
            }
            end = chunk.span.start + w.span.end;
            n += 1;
        }
        if n > 0 {
            out.push(start..end);
        }
    }
}

/// The word n-gram shingles of a chunk, as the chunk recipe signs them: the case-insensitive
/// word keys of `text` ([`Word::key`](crate::Word::key)), hashed `ngram` at a time
/// ([`fingerprint_words`]) into `out`. `keys` is scratch space. Returns false (and leaves `out`
/// unspecified) when `text` has fewer than `ngram` words or `ngram` is 0: such a chunk is not
/// signed.
///
/// ```
/// use textreuse_shingle::word_shingles;
/// let (mut keys, mut out) = (Vec::new(), Vec::new());
/// assert!(word_shingles("The cat sat", 2, &mut keys, &mut out));
/// assert_eq!(out.len(), 2);
/// let first = out[0];
/// assert!(word_shingles("THE CAT", 2, &mut keys, &mut out));
/// assert_eq!(out, [first]); // case-insensitive
/// assert!(!word_shingles("cat", 2, &mut keys, &mut out));
/// ```
pub fn word_shingles(text: &str, ngram: usize, keys: &mut Vec<u64>, out: &mut Vec<u64>) -> bool {
    keys.clear();
    keys.extend(words(text).map(|w| w.key()));
    if ngram == 0 || keys.len() < ngram {
        return false;
    }
    out.clear();
    out.extend(keys.windows(ngram).map(fingerprint_words));
    true
}

/// A sentence chosen by [`long_sentences`], with its word count.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LongSentence<'a> {
    /// The sentence (span in the text given to [`long_sentences`]).
    pub sentence: Sentence<'a>,
    /// Its number of [words](crate::words()).
    pub words: usize,
}

/// The "long sentence" selection of the paragraph-fingerprint paper: in each paragraph of
/// `text`, the sentences of at least `min_words` words, and of those the `max_per_paragraph`
/// longest (by words; ties go to the earlier sentence). Appends them to `out` in text order and
/// returns how many were appended. `out` is caller-owned so it can be reused without allocation.
///
/// ```
/// use textreuse_shingle::long_sentences;
/// let text = "Tiny. A sentence of exactly seven words here. Four words are here.\n\nOne two three four five.";
/// let mut out = Vec::new();
/// long_sentences(text, 4, 1, &mut out);
/// let got: Vec<&str> = out.iter().map(|s| s.sentence.as_str()).collect();
/// assert_eq!(got, ["A sentence of exactly seven words here.", "One two three four five."]);
/// ```
pub fn long_sentences<'a>(
    text: &'a str,
    min_words: usize,
    max_per_paragraph: usize,
    out: &mut Vec<LongSentence<'a>>,
) -> usize {
    let before = out.len();
    for para in paragraphs(text) {
        let base = out.len();
        let offset = para.start;
        for s in sentences(&text[para]) {
            let n = words(s.as_str()).count();
            if n >= min_words {
                let span = offset + s.span.start..offset + s.span.end;
                out.push(LongSentence {
                    sentence: Sentence::new(text, span),
                    words: n,
                });
            }
        }
        let tail = &mut out[base..];
        if tail.len() > max_per_paragraph {
            tail.sort_by(|a, b| {
                b.words
                    .cmp(&a.words)
                    .then(a.sentence.span.start.cmp(&b.sentence.span.start))
            });
            out.truncate(base + max_per_paragraph);
            out[base..].sort_by_key(|s| s.sentence.span.start);
        }
    }
    out.len() - before
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_merging() {
        let text = "a b\n\nc d e\n\nf";
        let got: Vec<_> = chunks(text, 3).collect();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].span, 0..text.len());
        assert_eq!(got[0].paragraphs, 0..3);
        assert_eq!(got[0].words, 6);
        let each: Vec<_> = chunks(text, 1).map(|c| c.words).collect();
        assert_eq!(each, [2, 3, 1]);
        assert_eq!(chunks("", 5).count(), 0);
        assert_eq!(
            chunks("only two", 5).map(|c| c.words).collect::<Vec<_>>(),
            [2]
        );
    }

    #[test]
    fn long_sentence_ties_and_order() {
        let text = "One two three. Four five six. Seven eight nine ten.";
        let mut out = Vec::new();
        assert_eq!(long_sentences(text, 3, 2, &mut out), 2);
        let got: Vec<&str> = out.iter().map(|s| s.sentence.as_str()).collect();
        assert_eq!(got, ["One two three.", "Seven eight nine ten."]);
        out.clear();
        assert_eq!(long_sentences(text, 5, 2, &mut out), 0);
    }
}
