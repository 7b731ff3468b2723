//! A prepared document as bytes ([`Prepared::encode`], [`Prepared::decode`]): its words,
//! sentences and stems, not its text, so that a run aligning a document with many others can
//! keep it on disk and read it back instead of tokenizing it again.
//!
//! The format is private to this version of the crate (a run writes and reads its own file):
//! a magic number, the settings, the stems' lengths and text, then each word as the gap since
//! the previous word and its length (LEB128 numbers) and its term id and stopword flag (two
//! bytes when the document has fewer than 2^15 terms, else a number), each sentence as four
//! numbers, then each sentence's term counts (term gaps, two bytes each under the same rule,
//! and counts).
use std::str::FromStr;

use super::{Doc, Prepared, Sentence, Strings, Vectors, Word};
use crate::Language;

const MAGIC: &[u8; 4] = b"TRP\x01";

/// Bytes that are not a document [`Prepared::encode`] wrote for the text given to
/// [`Prepared::decode`] (another text, another version, a damaged file). Prepare the text
/// again ([`Aligner::prepare`](crate::Aligner::prepare)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a prepared document of this text ({0}): prepare the text again")]
pub struct PreparedBytesError(&'static str);

fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_language(out: &mut Vec<u8>, language: Language) {
    let code = language.code().as_bytes();
    out.push(code.len() as u8);
    out.extend_from_slice(code);
}

/// Whether a document's words carry their term and stopword flag in two bytes (a document
/// with fewer than 2^15 terms: decoding then takes no branch per byte), else as a number.
fn short_terms(terms: usize) -> bool {
    terms < 1 << 15
}

/// Reads the numbers and strings [`Prepared::encode`] wrote.
struct Reader<'b> {
    bytes: &'b [u8],
}

fn bad(what: &'static str) -> PreparedBytesError {
    PreparedBytesError(what)
}

impl<'b> Reader<'b> {
    #[inline(always)]
    fn number(&mut self) -> Result<u64, PreparedBytesError> {
        // Most numbers (word gaps and lengths) take one byte.
        if let Some((&b, rest)) = self.bytes.split_first()
            && b < 0x80
        {
            self.bytes = rest;
            return Ok(u64::from(b));
        }
        self.long_number()
    }

    fn long_number(&mut self) -> Result<u64, PreparedBytesError> {
        let mut v = 0u64;
        for (i, &b) in self.bytes.iter().enumerate().take(10) {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.bytes = &self.bytes[i + 1..];
                return Ok(v);
            }
        }
        Err(bad("a number is cut off or too long"))
    }

    /// A number below `limit`, as `usize`.
    #[inline(always)]
    fn below(&mut self, limit: usize, what: &'static str) -> Result<usize, PreparedBytesError> {
        match self.number()? {
            v if v < limit as u64 => Ok(v as usize),
            _ => Err(bad(what)),
        }
    }

    /// A number in two bytes.
    #[inline(always)]
    fn two(&mut self) -> Result<usize, PreparedBytesError> {
        match *self.bytes {
            [a, b, ..] => {
                self.bytes = &self.bytes[2..];
                Ok(usize::from(u16::from_le_bytes([a, b])))
            }
            _ => Err(bad("cut off")),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'b [u8], PreparedBytesError> {
        if n > self.bytes.len() {
            return Err(bad("cut off"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn language(&mut self) -> Result<Language, PreparedBytesError> {
        let n = self.take(1)?[0] as usize;
        std::str::from_utf8(self.take(n)?)
            .ok()
            .and_then(|code| Language::from_str(code).ok())
            .ok_or(bad("unknown language"))
    }
}

impl<'t> Prepared<'t> {
    /// Appends this document's words, sentences and terms to `out` as bytes (not its text),
    /// for [`Prepared::decode`] to read back. A run that aligns each document with many others
    /// can keep its documents this way, on disk, and read each back much faster than it is
    /// tokenized. The format belongs to this version of the crate: keep the bytes for one run,
    /// not across versions.
    ///
    /// ```
    /// use textreuse_align::{Aligner, Prepared};
    ///
    /// let aligner = Aligner::new();
    /// let text = "Honey bees build combs of wax. They store honey in the cells.";
    /// let mut bytes = Vec::new();
    /// aligner.prepare(text).encode(&mut bytes);
    /// let again = Prepared::decode(text, &bytes)?;
    /// let source = aligner.prepare("Bees store honey in the cells of their combs of wax.");
    /// assert_eq!(
    ///     aligner.align_prepared(&source, &again),
    ///     aligner.align_prepared(&source, &aligner.prepare(text)),
    /// );
    /// // Bytes written for another text are refused.
    /// assert!(Prepared::decode("Wasps build nests.", &bytes).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(MAGIC);
        put(out, self.text.len() as u64);
        put_language(out, self.language);
        put(out, self.min_sentence_words as u64);
        match self.settings {
            None => out.push(0),
            Some((msw, language, detect)) => {
                out.push(1 + u8::from(detect));
                put(out, msw as u64);
                put_language(out, language);
            }
        }
        put(out, self.stems.len() as u64);
        for i in 0..self.stems.len() {
            put(out, self.stems.get(i).len() as u64);
        }
        out.extend_from_slice(self.stems.text.as_bytes());
        put(out, self.doc.words.len() as u64);
        let short = short_terms(self.stems.len());
        let mut end = 0;
        for w in &self.doc.words {
            put(out, u64::from(w.start - end));
            put(out, u64::from(w.end - w.start));
            let term = w.term << 1 | u32::from(w.stop);
            if short {
                out.extend_from_slice(&(term as u16).to_le_bytes());
            } else {
                put(out, u64::from(term));
            }
            end = w.end;
        }
        put(out, self.doc.sentences.len() as u64);
        for s in &self.doc.sentences {
            put(out, s.words.start as u64);
            put(out, s.words.len() as u64);
            put(out, s.span.start as u64);
            put(out, s.span.len() as u64);
        }
        // Each sentence's term counts, ascending by term: term gaps and counts.
        for i in 0..self.counts.len() {
            let (terms, counts) = self.counts.row(i);
            put(out, terms.len() as u64);
            let mut last = 0;
            for (&t, &c) in terms.iter().zip(counts) {
                if short {
                    out.extend_from_slice(&((t - last) as u16).to_le_bytes());
                } else {
                    put(out, u64::from(t - last));
                }
                put(out, c as u64);
                last = t;
            }
        }
    }

    /// The document [`Prepared::encode`] wrote to `bytes`, prepared from `text`: equal to the
    /// one encoded, so it aligns the same. The bytes are checked against the text (its length,
    /// each word and sentence inside it on character boundaries, terms numbered in order of
    /// first appearance); bytes that fail give an error, never a panic.
    pub fn decode(text: &'t str, bytes: &[u8]) -> Result<Prepared<'t>, PreparedBytesError> {
        let mut r = Reader { bytes };
        if r.take(MAGIC.len())? != MAGIC {
            return Err(bad("no magic number"));
        }
        if r.number()? != text.len() as u64 {
            return Err(bad("another text length"));
        }
        let language = r.language()?;
        let min_sentence_words = r.below(usize::MAX, "sentence length too large")?;
        let settings = match r.take(1)?[0] {
            0 => None,
            flag @ (1 | 2) => {
                let msw = r.below(usize::MAX, "sentence length too large")?;
                Some((msw, r.language()?, flag == 2))
            }
            _ => return Err(bad("unknown settings")),
        };
        let n_stems = r.below(u32::MAX as usize, "too many terms")?;
        let mut ends = Vec::with_capacity(n_stems.min(r.bytes.len()));
        let mut end = 0;
        for _ in 0..n_stems {
            end += r.below(u32::MAX as usize - end + 1, "stems too long")?;
            ends.push(end as u32);
        }
        let text_of_stems =
            std::str::from_utf8(r.take(end)?).map_err(|_| bad("stems not UTF-8"))?;
        if !ends
            .iter()
            .all(|&e| text_of_stems.is_char_boundary(e as usize))
        {
            return Err(bad("stems not on character boundaries"));
        }
        let stems = Strings {
            text: text_of_stems.to_string(),
            ends,
        };
        let n_words = r.below(u32::MAX as usize, "too many words")?;
        let mut words = Vec::with_capacity(n_words.min(r.bytes.len()));
        let short = short_terms(n_stems);
        let (mut end, mut next_term) = (0usize, 0u64);
        for _ in 0..n_words {
            let start = end + r.below(text.len() - end + 1, "word outside the text")?;
            end = start + r.below(text.len() - start + 1, "word outside the text")?;
            if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
                return Err(bad("word not on character boundaries"));
            }
            let term = if short { r.two()? as u64 } else { r.number()? };
            let (term, stop) = (term >> 1, term & 1 == 1);
            // Terms are numbered in the order they first appear.
            if term > next_term || term >= n_stems as u64 {
                return Err(bad("term out of order"));
            }
            next_term = next_term.max(term + 1);
            words.push(Word {
                start: start as u32,
                end: end as u32,
                term: term as u32,
                stop,
                synonym: false,
            });
        }
        if next_term != n_stems as u64 {
            return Err(bad("unused terms"));
        }
        let n_sentences = r.below(n_words + 1, "too many sentences")?;
        let mut sentences = Vec::with_capacity(n_sentences);
        let mut last = 0;
        for _ in 0..n_sentences {
            let first = r.below(n_words, "sentence outside the words")?;
            let len = r.below(n_words - first + 1, "sentence outside the words")?;
            let span = r.below(text.len() + 1, "sentence outside the text")?;
            let span = span..span + r.below(text.len() - span + 1, "sentence outside the text")?;
            let words_in = first..first + len;
            if len == 0
                || first < last
                || span.start != words[first].start as usize
                || span.end < words[words_in.end - 1].end as usize
                || !text.is_char_boundary(span.end)
            {
                return Err(bad("sentence does not hold its words"));
            }
            last = words_in.end;
            sentences.push(Sentence {
                words: words_in,
                span,
            });
        }
        let mut counts = Vectors::default();
        counts.rows.reserve(n_sentences + 1);
        counts.rows.push(0);
        for s in &sentences {
            let n = r.below(s.words.len() + 1, "more terms than words")?;
            let mut term = 0;
            for k in 0..n {
                let gap = if short {
                    r.two()?
                } else {
                    r.below(n_stems + 1, "term out of range")?
                };
                term += gap;
                if (k > 0 && gap == 0) || term >= n_stems {
                    return Err(bad("term counts out of order"));
                }
                counts.terms.push(term as u32);
                counts
                    .weights
                    .push(r.below(s.words.len() + 1, "count too large")? as f64);
            }
            counts.rows.push(counts.terms.len());
        }
        if !r.bytes.is_empty() {
            return Err(bad("bytes after the document"));
        }
        let doc = Doc { words, sentences };
        let prepared = Prepared {
            text,
            language,
            min_sentence_words,
            settings,
            doc,
            counts,
            stems,
            synonyms: None,
        };
        Ok(Prepared {
            synonyms: prepared.synonym_numbers(),
            ..prepared
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Aligner;

    /// A document of more than 2^15 terms has its term ids written as numbers, not two bytes.
    #[test]
    fn documents_with_many_terms_round_trip() {
        let text: String = (0..40_000)
            .map(|i| format!("w{i}x{}", if i % 9 == 8 { ".\n" } else { " " }))
            .collect();
        let aligner = Aligner::builder().min_passage_len(20).build().unwrap();
        let prepared = aligner.prepare(&text);
        assert!(!short_terms(prepared.terms()));
        let mut bytes = Vec::new();
        prepared.encode(&mut bytes);
        let back = Prepared::decode(&text, &bytes).unwrap();
        let mut again = Vec::new();
        back.encode(&mut again);
        assert_eq!(again, bytes);
        let suspicious = aligner.prepare(&text[100_000..120_000]);
        let found = aligner.align_prepared(&back, &suspicious);
        assert!(!found.is_empty());
        assert_eq!(found, aligner.align_prepared(&prepared, &suspicious));
        // Every cut is refused.
        for cut in (0..bytes.len()).step_by(997) {
            assert!(Prepared::decode(&text, &bytes[..cut]).is_err(), "{cut}");
        }
    }

    /// The synonym-table numbers looked up for a decoded document are the ones tokenizing
    /// gave (stopwords included: they are in no synset).
    #[test]
    fn decoded_documents_have_the_same_synonyms() {
        let text = "After all, they purchase tickets at a low price and do buy more at a cost.";
        let prepared = Aligner::builder().build().unwrap().prepare(text);
        let numbers = prepared.synonyms.as_deref().unwrap();
        let found = numbers
            .iter()
            .filter(|&&n| n != crate::synonyms::NONE)
            .count();
        assert_eq!(found, 6, "purchase, tickets, low, price, buy, cost");
        let mut bytes = Vec::new();
        prepared.encode(&mut bytes);
        let back = Prepared::decode(text, &bytes).unwrap();
        assert_eq!(back.synonyms, prepared.synonyms);
    }
}
