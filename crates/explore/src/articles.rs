//! The texts of the inputs an output came from, for the whole articles around passages.
use std::collections::HashMap;
use std::path::PathBuf;

use serde::Serialize;
use textreuse_corpus::Inputs;
use textreuse_reuse::{DocumentStore, DocumentStoreBuilder};

use crate::ExploreError;

/// Characters of context returned on each side of a passage at most.
pub const MAX_CONTEXT: usize = 20_000;

/// The inputs' documents, their texts on disk ([`DocumentStore`]), found by the id, input and
/// revision that outputs record.
#[derive(Debug)]
pub struct Articles {
    store: DocumentStore,
    by_id: HashMap<String, Vec<usize>>,
    /// Inputs or records that could not be read: (what, why), the first 20.
    problems: Vec<String>,
}

/// A passage in its article: the text before it (at most [`MAX_CONTEXT`] characters), the
/// passage, the text after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Passage {
    /// The article's title.
    pub title: String,
    /// The article's length in characters.
    pub chars: usize,
    /// Text before the passage.
    pub before: String,
    /// The passage.
    pub passage: String,
    /// Text after the passage.
    pub after: String,
    /// Whether text before `before` was left out.
    pub cut_before: bool,
    /// Whether text after `after` was left out.
    pub cut_after: bool,
}

impl Articles {
    /// Reads every document of `inputs` (as `textreuse dedup` and `reuse` read them) into a
    /// document store in a temporary file.
    pub fn read(inputs: &[PathBuf], threads: usize) -> Result<Articles, ExploreError> {
        let tmp = std::env::temp_dir();
        let mut store = DocumentStoreBuilder::new(Some(&tmp))
            .map_err(|e| ExploreError::io("create a document store in", &tmp, e))?;
        let cleaner = textreuse_wikidump::Cleaner::new();
        let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
        let mut problems = Vec::new();
        let mut inputs = Inputs::new(inputs);
        if threads > 0 {
            inputs = inputs.threads(threads);
        }
        for source in inputs {
            match source {
                Ok(source) => {
                    let doc = source.into_document(&cleaner);
                    by_id
                        .entry(doc.id.to_string())
                        .or_default()
                        .push(store.len());
                    store
                        .push(doc)
                        .map_err(|e| ExploreError::io("write the document store in", &tmp, e))?;
                }
                Err(e) => {
                    if problems.len() < 20 {
                        let mut message = e.to_string();
                        let mut cause = std::error::Error::source(&e);
                        while let Some(c) = cause {
                            message.push_str(&format!(": {c}"));
                            cause = c.source();
                        }
                        problems.push(message);
                    }
                }
            }
        }
        let store = store
            .finish()
            .map_err(|e| ExploreError::io("write the document store in", &tmp, e))?;
        Ok(Articles {
            store,
            by_id,
            problems,
        })
    }

    /// Documents read.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether no document was read.
    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// What could not be read (the first 20 problems).
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The document with id `doc`, preferring the one read from `source` at `revision` when
    /// several have the id (two dumps of the same pages).
    pub fn find(&self, doc: &str, source: Option<&str>, revision: Option<u64>) -> Option<usize> {
        let candidates = self.by_id.get(doc)?;
        let score = |&i: &usize| {
            let info = self.store.info(i);
            let same_revision = revision.is_some() && info.origin.revision == revision;
            let same_source = source.is_some() && info.origin.source.as_deref() == source;
            (same_revision as u8) * 2 + same_source as u8
        };
        candidates
            .iter()
            .copied()
            .max_by_key(|i| (score(i), std::cmp::Reverse(*i)))
    }

    /// The passage of document `i` at character `offset`, `length` characters long, with
    /// [`MAX_CONTEXT`] characters of context on each side; None if the range is not inside
    /// the text.
    pub fn passage(&self, i: usize, offset: usize, length: usize) -> Option<Passage> {
        self.passage_with(i, offset, length, MAX_CONTEXT)
    }

    /// [`Articles::passage`] with at most `context` characters on each side.
    pub fn passage_with(
        &self,
        i: usize,
        offset: usize,
        length: usize,
        context: usize,
    ) -> Option<Passage> {
        let text = self.store.text(i);
        let start = byte_at_from(text, offset)?;
        let end = start + byte_at_from(&text[start..], length)?;
        let before_start = floor_chars_back(text, start, context);
        let after_end = ceil_chars_forward(text, end, context);
        Some(Passage {
            title: self.store.info(i).title,
            chars: text.chars().count(),
            before: text[before_start..start].to_string(),
            passage: text[start..end].to_string(),
            after: text[end..after_end].to_string(),
            cut_before: before_start > 0,
            cut_after: after_end < text.len(),
        })
    }
}

/// The byte length of the first `chars` characters of `text`, None if it is shorter.
fn byte_at_from(text: &str, chars: usize) -> Option<usize> {
    if chars == 0 {
        return Some(0);
    }
    text.char_indices()
        .map(|(b, _)| b)
        .chain([text.len()])
        .nth(chars)
}

fn floor_chars_back(text: &str, at: usize, chars: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(0, |(b, _)| b)
}

fn ceil_chars_forward(text: &str, at: usize, chars: usize) -> usize {
    text[at..]
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(b, _)| at + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_is_cut_at_character_boundaries() {
        let text = "éééabcééé";
        assert_eq!(floor_chars_back(text, 6, 2), 2);
        assert_eq!(floor_chars_back(text, 6, 10), 0);
        assert_eq!(ceil_chars_forward(text, 9, 2), 13);
        assert_eq!(ceil_chars_forward(text, 9, 10), text.len());
        assert_eq!(byte_at_from("éa", 1), Some(2));
        assert_eq!(byte_at_from("éa", 3), None);
    }
}
