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
use crate::synonyms::{NONE, Synonyms};

mod encode;
pub use encode::PreparedBytesError;

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
    /// A source word that took the term of its synonym in the suspicious document
    /// ([`pair_terms`]): the same term, but not the same word.
    pub synonym: bool,
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

/// Maps one document's normalized words to dense term ids, in order of first appearance, and
/// keeps the stem behind each id. It holds the thread's cache of normalized words for the
/// whole document.
pub(crate) struct Vocabulary<'n> {
    norm: &'n mut Normalized,
    /// The stems of the term ids, by id.
    stems: Strings,
    /// The synonym-table numbers of the term ids, by id (English documents).
    synonyms: Vec<u32>,
    buf: String,
}

/// Strings one after another in one buffer, numbered in the order they were pushed.
#[derive(Debug, Default)]
struct Strings {
    text: String,
    ends: Vec<u32>,
}

impl Strings {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len() as u32);
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }
}

/// Stemming is the costly part of normalizing a word, and the documents a thread tokenizes
/// share most of their words, so each thread keeps the words it has normalized: lowercased
/// form -> (stem number, stopword). Cleared when a document starts in another language or the
/// cache has grown past the aligner's number of forms ([`AlignerBuilder::cache_memory`]).
///
/// [`AlignerBuilder::cache_memory`]: crate::AlignerBuilder::cache_memory
struct Normalized {
    language: Language,
    stemmer: Option<Stemmer>,
    /// Forms of up to 16 ASCII characters, packed into a `u128` (see [`pack_ascii`]).
    short: AHashMap<u128, (u32, bool)>,
    /// Other forms (longer, or not ASCII).
    forms: AHashMap<Box<str>, (u32, bool)>,
    stems: AHashMap<Box<str>, u32>,
    /// Stem number -> stem.
    names: Strings,
    /// The synonym table of the language, if it has one.
    table: Option<&'static Synonyms>,
    /// Stem number -> number in the synonym table ([`NONE`] for none).
    synonyms: Vec<u32>,
    /// Stem number -> (document generation, term id in that document): the current document's
    /// term ids, valid where the generation is the current one.
    ids: Vec<(u32, u32)>,
    generation: u32,
    /// The current document's packed forms -> (term id, stopword): most words repeat within
    /// a document, and this small map stays in the cache where `short` does not.
    local: AHashMap<u128, (u32, bool)>,
}

/// Bytes of a thread's cache per form it holds: the form and its stem with their map entries
/// and arrays, at the cache's fullest (its maps have just doubled). Measured with heaptrack on
/// synthetic text of random words: about 19 MB at `1 << 17` forms.
pub(crate) const FORM_BYTES: usize = 150;

/// The default number of forms a thread's cache holds before it starts over: about 19 MB per
/// thread when full; a document pair rarely holds more than 20,000 distinct forms.
pub(crate) const DEFAULT_CACHE_FORMS: usize = 1 << 17;

thread_local! {
    static NORMALIZED: RefCell<Normalized> = RefCell::new(Normalized::new(Language::English));
}

/// `word` lowercased and packed into a `u128`, when it is 1 to 16 ASCII characters. Words
/// are alphanumeric, so no byte is 0 and the packing is unambiguous.
fn pack_ascii(word: &str) -> Option<u128> {
    let b = word.as_bytes();
    if b.is_empty() || b.len() > 16 || !b.is_ascii() {
        return None;
    }
    // Built in registers: bytes stored one by one and read back as a whole stall the load.
    let mut key = 0u128;
    for (i, c) in b.iter().enumerate() {
        key |= u128::from(c.to_ascii_lowercase()) << (8 * i);
    }
    Some(key)
}

impl Normalized {
    fn new(language: Language) -> Normalized {
        Normalized {
            language,
            stemmer: language.stemmer(),
            short: AHashMap::default(),
            forms: AHashMap::default(),
            stems: AHashMap::default(),
            names: Strings::default(),
            table: (language == Language::English).then(Synonyms::english),
            synonyms: Vec::new(),
            ids: Vec::new(),
            generation: 0,
            local: AHashMap::default(),
        }
    }

    /// Readies the cache for a document in `language`, emptied first when it holds more than
    /// `max_forms` forms.
    fn start(&mut self, language: Language, max_forms: usize) {
        if self.language != language || self.short.len() + self.forms.len() > max_forms {
            *self = Normalized::new(language);
        }
        self.local.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped: no stamp may look current.
            self.ids.iter_mut().for_each(|e| e.0 = 0);
            self.generation = 1;
        }
    }

    /// The stem number and stopword flag of a lowercased form.
    fn get(&mut self, form: &str) -> (u32, bool) {
        if let Some(&known) = self.forms.get(form) {
            return known;
        }
        let known = self.normalize(form);
        self.forms.insert(Box::from(form), known);
        known
    }

    fn normalize(&mut self, form: &str) -> (u32, bool) {
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
                self.names.push(&stem);
                self.synonyms
                    .push(self.table.map_or(NONE, |t| t.number(stem.as_ref())));
                next
            }
        };
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

impl Vocabulary<'_> {
    /// The term id and stopword flag of `word` in this document.
    fn term(&mut self, word: &str) -> (u32, bool) {
        let key = pack_ascii(word);
        if let Some(key) = key
            && let Some(&known) = self.norm.local.get(&key)
        {
            return known;
        }
        let n = &mut *self.norm;
        let (number, stop) = match key {
            Some(key) => match n.short.get(&key) {
                Some(&known) => known,
                None => {
                    let lower = key.to_le_bytes();
                    let lower = std::str::from_utf8(&lower[..word.len()]).expect("ASCII");
                    let known = n.normalize(lower);
                    n.short.insert(key, known);
                    known
                }
            },
            None => {
                self.buf.clear();
                if word.is_ascii() {
                    self.buf.push_str(word);
                    self.buf.make_ascii_lowercase();
                } else {
                    for c in word.chars() {
                        self.buf.extend(c.to_lowercase());
                    }
                }
                n.get(&self.buf)
            }
        };
        let number = number as usize;
        if n.ids.len() <= number {
            n.ids.resize(number + 1, (0, 0));
        }
        let (generation, mut id) = n.ids[number];
        if generation != n.generation {
            id = self.stems.len() as u32;
            n.ids[number] = (n.generation, id);
            self.stems.push(n.names.get(number));
            if n.table.is_some() {
                self.synonyms.push(n.synonyms[number]);
            }
        }
        if let Some(key) = key {
            n.local.insert(key, (id, stop));
        }
        (id, stop)
    }
}

/// A document tokenized for alignment ([`Aligner::prepare`]): its words and sentences, each
/// word's term (lowercased and stemmed by the document's language) numbered in the order the
/// terms first appear, and the stems behind the numbers. Preparing a document once and
/// aligning it with many others ([`Aligner::align_prepared`]) saves tokenizing it for every
/// pair; the passages found are the same as [`Aligner::align`]'s.
///
/// [`Aligner::prepare`]: crate::Aligner::prepare
/// [`Aligner::align_prepared`]: crate::Aligner::align_prepared
/// [`Aligner::align`]: crate::Aligner::align
#[derive(Debug)]
pub struct Prepared<'t> {
    pub(crate) text: &'t str,
    pub(crate) language: Language,
    pub(crate) min_sentence_words: usize,
    /// The tokenizing settings of the aligner that prepared it as a suspicious document
    /// (`None`: prepared as a source, in its suspicious document's language).
    pub(crate) settings: Option<(usize, Language, bool)>,
    pub(crate) doc: Doc,
    /// Each sentence's content terms with their counts.
    pub(crate) counts: Vectors,
    stems: Strings,
    /// Its terms' numbers in the synonym table ([`NONE`] for a term in no synset), when in
    /// English.
    synonyms: Option<Box<[u32]>>,
}

impl<'t> Prepared<'t> {
    /// Tokenizes `text` by the rules of `language`, with the default cache of normalized forms.
    #[cfg(test)]
    pub(crate) fn new(text: &'t str, language: Language, min_sentence_words: usize) -> Self {
        Prepared::cached(text, language, min_sentence_words, DEFAULT_CACHE_FORMS)
    }

    /// Tokenizes `text` by the rules of `language`, the thread's cache of normalized forms
    /// holding at most about `max_forms` between documents. Texts of 4 GiB or more get no words
    /// (they are not aligned).
    pub(crate) fn cached(
        text: &'t str,
        language: Language,
        min_sentence_words: usize,
        max_forms: usize,
    ) -> Self {
        let (doc, stems, synonyms) = NORMALIZED.with_borrow_mut(|n| {
            n.start(language, max_forms);
            let mut vocab = Vocabulary {
                norm: n,
                stems: Strings::default(),
                synonyms: Vec::new(),
                buf: String::new(),
            };
            let doc = if text.len() > u32::MAX as usize {
                Doc::default()
            } else {
                Doc::new(text, &mut vocab, min_sentence_words)
            };
            let synonyms = vocab
                .norm
                .table
                .is_some()
                .then(|| vocab.synonyms.into_boxed_slice());
            (doc, vocab.stems, synonyms)
        });
        let mut counts = Vectors::default();
        term_counts(&doc, &mut counts, &mut Vec::new());
        Prepared {
            text,
            language,
            min_sentence_words,
            settings: None,
            counts,
            doc,
            stems,
            synonyms,
        }
    }

    /// The text it was prepared from.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The language its words were normalized in.
    pub fn language(&self) -> Language {
        self.language
    }

    /// The number of distinct terms.
    pub(crate) fn terms(&self) -> usize {
        self.stems.len()
    }

    fn stem(&self, id: usize) -> &str {
        self.stems.get(id)
    }

    /// Its terms' numbers in the English synonym table, looked up by their stems.
    pub(crate) fn synonym_numbers(&self) -> Option<Box<[u32]>> {
        (self.language == Language::English).then(|| {
            let table = Synonyms::english();
            (0..self.terms())
                .map(|id| table.number(self.stem(id)))
                .collect()
        })
    }
}

thread_local! {
    static SYNONYM_SLOTS: RefCell<Slots> = RefCell::new(Slots::default());
}

/// Synonym-table number -> the suspicious document's term id, for one pair at a time: entries
/// stamped with another pair's generation are empty.
#[derive(Default)]
struct Slots {
    generation: u32,
    slots: Vec<(u32, u32)>,
}

impl Slots {
    fn start(&mut self, size: usize) {
        self.slots.resize(size, (0, 0));
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.iter_mut().for_each(|e| e.0 = 0);
            self.generation = 1;
        }
    }

    fn set(&mut self, n: u32, id: u32) {
        self.slots[n as usize] = (self.generation, id);
    }

    fn get(&self, n: u32) -> Option<u32> {
        let (generation, id) = self.slots[n as usize];
        (generation == self.generation).then_some(id)
    }
}

/// The two documents of a pair on one numbering of terms: the suspicious document's own
/// numbers, then the source's other terms in the order they first appear in the source (the
/// numbering tokenizing the suspicious document and then the source with one vocabulary
/// gives). With `synonyms` (English documents only), a source term the suspicious document
/// lacks takes the number of its first synonym (in stem order) that the suspicious document
/// has and the source lacks: a word replaced by a synonym counts as the same term. Returns the
/// source document renumbered, its terms' new numbers and the number of terms of the pair.
pub(crate) fn pair_terms(
    susp: &Prepared<'_>,
    src: &Prepared<'_>,
    synonyms: bool,
) -> (Doc, Vec<u32>, usize) {
    let mut ids: AHashMap<&str, u32> = AHashMap::with_capacity(susp.terms());
    for id in 0..susp.terms() {
        ids.insert(susp.stem(id), id as u32);
    }
    let synonyms = synonyms && susp.language == Language::English;
    // The suspicious terms that a source term has already (matched exactly).
    let mut matched = vec![false; if synonyms { susp.terms() } else { 0 }];
    let mut map: Vec<u32> = (0..src.terms())
        .map(|id| {
            let t = ids.get(src.stem(id)).copied().unwrap_or(NONE);
            if synonyms && t != NONE {
                matched[t as usize] = true;
            }
            t
        })
        .collect();
    let mut by_synonym = Vec::new();
    if let (true, Some(susp_numbers), Some(src_numbers)) = (synonyms, &susp.synonyms, &src.synonyms)
    {
        let table = Synonyms::english();
        by_synonym = vec![false; map.len()];
        SYNONYM_SLOTS.with_borrow_mut(|slots| {
            // The suspicious terms no source term matched exactly, by synonym-table number.
            slots.start(table.len());
            for (id, &n) in susp_numbers.iter().enumerate() {
                if n != NONE && !matched[id] {
                    slots.set(n, id as u32);
                }
            }
            // Each source term the suspicious document lacks takes its first synonym there.
            for (id, t) in map.iter_mut().enumerate() {
                let n = src_numbers[id];
                if *t != NONE || n == NONE {
                    continue;
                }
                if let Some(found) = table.of(n).iter().find_map(|&m| slots.get(m)) {
                    *t = found;
                    by_synonym[id] = true;
                }
            }
        });
    }
    let mut next = susp.terms() as u32;
    for t in &mut map {
        if *t == NONE {
            *t = next;
            next += 1;
        }
    }
    let words = src
        .doc
        .words
        .iter()
        .map(|w| Word {
            term: map[w.term as usize],
            synonym: by_synonym.get(w.term as usize) == Some(&true),
            ..*w
        })
        .collect();
    let doc = Doc {
        words,
        sentences: src.doc.sentences.clone(),
    };
    (doc, map, next as usize)
}

/// Sentences of more words are cut into equal parts of at most this many words (chosen on the
/// odd half of the PAN 2013 training corpus; the even half chose 35). Text without sentence
/// punctuation (lists, tables, web pages' lines) would otherwise make one long sentence, whose
/// vector no reused part of it resembles.
pub(crate) const MAX_SENTENCE_WORDS: usize = 50;

/// Sentence breaks (word indices, from 0 to the number of words) with the sentences of more
/// than [`MAX_SENTENCE_WORDS`] words cut into equal parts.
fn cut_long_sentences(breaks: &[usize]) -> Vec<usize> {
    let mut cut = Vec::with_capacity(breaks.len());
    cut.push(breaks[0]);
    for w in breaks.windows(2) {
        let (start, n) = (w[0], w[1] - w[0]);
        let parts = n.div_ceil(MAX_SENTENCE_WORDS);
        cut.extend((1..parts).map(|k| start + n * k / parts));
        cut.push(w[1]);
    }
    cut
}

impl Doc {
    /// Tokenizes `text`, cutting sentences of more than [`MAX_SENTENCE_WORDS`] words into equal
    /// parts and merging sentences of fewer than `min_sentence_words` non-stopwords into the
    /// next sentence.
    pub fn new(text: &str, vocab: &mut Vocabulary<'_>, min_sentence_words: usize) -> Doc {
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
                    synonym: false,
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
        let breaks = cut_long_sentences(&breaks);
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

/// Sentence vectors in compressed sparse rows: `rows[i]..rows[i+1]` indexes `terms`/`weights`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Vectors {
    pub(crate) rows: Vec<usize>,
    pub(crate) terms: Vec<u32>,
    pub(crate) weights: Vec<f64>,
    pub(crate) norms: Vec<f64>,
}

impl Vectors {
    pub(crate) fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.rows[i]..self.rows[i + 1];
        (&self.terms[r.clone()], &self.weights[r])
    }

    pub(crate) fn len(&self) -> usize {
        self.rows.len().saturating_sub(1)
    }

    /// The vectors with term `t` numbered `map[t]`, each row sorted by the new numbers.
    pub(crate) fn renumbered(&self, map: &[u32]) -> Vectors {
        let mut out = Vectors {
            rows: self.rows.clone(),
            terms: Vec::with_capacity(self.terms.len()),
            weights: Vec::with_capacity(self.weights.len()),
            norms: Vec::new(),
        };
        let mut row: Vec<(u32, f64)> = Vec::new();
        for i in 0..self.len() {
            let (terms, weights) = self.row(i);
            row.clear();
            row.extend(
                terms
                    .iter()
                    .zip(weights)
                    .map(|(&t, &w)| (map[t as usize], w)),
            );
            row.sort_unstable_by_key(|&(t, _)| t);
            out.terms.extend(row.iter().map(|&(t, _)| t));
            out.weights.extend(row.iter().map(|&(_, w)| w));
        }
        out
    }

    /// Keeps the terms for which `keep` is true (before weights are turned into tf-idf: the
    /// norms are not updated).
    pub(crate) fn retain_terms(&mut self, keep: impl Fn(u32) -> bool) {
        let mut w = 0;
        let mut start = 0;
        for i in 0..self.len() {
            let end = self.rows[i + 1];
            for r in start..end {
                if keep(self.terms[r]) {
                    self.terms[w] = self.terms[r];
                    self.weights[w] = self.weights[r];
                    w += 1;
                }
            }
            start = end;
            self.rows[i + 1] = w;
        }
        self.terms.truncate(w);
        self.weights.truncate(w);
    }
}

/// Term frequencies of each sentence's content words (stopwords removed), sorted by term.
pub(crate) fn term_counts(doc: &Doc, out: &mut Vectors, scratch: &mut Vec<u32>) {
    out.rows.clear();
    out.terms.clear();
    out.weights.clear();
    out.rows.push(0);
    for s in &doc.sentences {
        scratch.clear();
        scratch.extend(
            doc.words[s.words.clone()]
                .iter()
                .filter(|w| !w.stop)
                .map(|w| w.term),
        );
        scratch.sort_unstable();
        let mut i = 0;
        while i < scratch.len() {
            let t = scratch[i];
            let mut j = i;
            while j < scratch.len() && scratch[j] == t {
                j += 1;
            }
            out.terms.push(t);
            out.weights.push((j - i) as f64);
            i = j;
        }
        out.rows.push(out.terms.len());
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
        let d = Prepared::new(text, crate::Language::English, 1).doc;
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
        let d = Prepared::new(text, crate::Language::English, 3).doc;
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
    fn long_sentences_are_cut_into_equal_parts() {
        let words: Vec<String> = (0..120).map(|i| format!("w{i}")).collect();
        let text = format!("{} end. Short one here.", words.join(" "));
        let d = Prepared::new(&text, crate::Language::English, 1).doc;
        let lens: Vec<usize> = d.sentences.iter().map(|s| s.words.len()).collect();
        // 121 words: three parts of at most MAX_SENTENCE_WORDS.
        assert_eq!(lens, [40, 40, 41, 3]);
        assert!(lens.iter().all(|&n| n <= MAX_SENTENCE_WORDS));
        assert!(
            d.sentences
                .windows(2)
                .all(|w| w[0].words.end == w[1].words.start)
        );
        assert_eq!(&text[d.sentences[0].span.clone()], words[..40].join(" "));
        assert_eq!(cut_long_sentences(&[0, 0]), [0, 0]);
        assert_eq!(cut_long_sentences(&[0, 50, 101]), [0, 50, 75, 101]);
    }

    #[test]
    fn stems_share_ids() {
        let d = Prepared::new(
            "Connected connections CONNECTING",
            crate::Language::English,
            1,
        )
        .doc;
        assert!(d.words.iter().all(|w| w.term == d.words[0].term));
    }

    #[test]
    fn synonyms_take_the_suspicious_term_where_the_source_lacks_it() {
        let english = Language::English;
        let id = |p: &Prepared<'_>, word: &str| {
            let stem = english.stem(word);
            (0..p.terms()).find(|&i| p.stem(i) == stem).unwrap()
        };
        let susp = Prepared::new("They buy tickets at a low cost.", english, 0);
        let src = Prepared::new("They purchase tickets at a low price.", english, 0);
        let (doc, map, n) = pair_terms(&susp, &src, true);
        assert_eq!(n, susp.terms());
        assert_eq!(map[id(&src, "purchase")], id(&susp, "buy") as u32);
        assert_eq!(map[id(&src, "price")], id(&susp, "cost") as u32);
        // The words know they match through a synonym (copies are fitted on the same words).
        let synonym: Vec<bool> = doc.words.iter().map(|w| w.synonym).collect();
        assert_eq!(synonym, [false, true, false, false, false, false, true]);
        // A source with "cost" itself keeps "price" apart.
        let src = Prepared::new("They purchase tickets at a low price or cost.", english, 0);
        let (_, map, n) = pair_terms(&susp, &src, true);
        assert_eq!(map[id(&src, "cost")], id(&susp, "cost") as u32);
        assert_eq!(map[id(&src, "price")], susp.terms() as u32);
        assert_eq!(n, susp.terms() + 2); // "price" and "or"
        // Off, or not English: no synonyms.
        let (_, map, _) = pair_terms(&susp, &src, false);
        assert!(map[id(&src, "purchase")] as usize >= susp.terms());
        let german = Language::German;
        let susp = Prepared::new("They buy tickets at a low cost.", german, 0);
        let src = Prepared::new("They purchase tickets at a low price.", german, 0);
        let (_, map, _) = pair_terms(&susp, &src, true);
        // "they", "tickets", "at", "a" and "low" only.
        assert_eq!(
            map.iter().filter(|&&t| (t as usize) < susp.terms()).count(),
            5
        );
    }

    #[test]
    fn char_ranges() {
        let t = "héllo wörld";
        let b = t.find('w').unwrap();
        assert_eq!(char_range(t, b..t.len()), 6..11);
    }
}
