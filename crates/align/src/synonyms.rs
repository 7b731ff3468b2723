//! English synonyms from WordNet, for matching a word with the synonym that replaced it.
//!
//! Paraphrasing often replaces words by synonyms ("provided" by "supplied", "property" by
//! "belongings"): the sentences then share too few words to seed. With
//! [`AlignerBuilder::synonyms`](crate::AlignerBuilder::synonyms) on, a source word that the
//! suspicious document lacks counts as the same term as its synonym in the suspicious
//! document, when the source lacks that synonym (see [`crate::text::pair_terms`]).
//!
//! The table, `data/synonyms-en.txt`, is derived from WordNet 3.0 (license in
//! `data/WORDNET-LICENSE`) by `examples/wordnet_synonyms.rs`: a line per synset, its one-word
//! lemmas stemmed like the aligner stems English, for each lemma only its three most frequent
//! senses.
use std::sync::OnceLock;

use ahash::AHashMap;

/// The number of a stem that is in no synset of the table.
pub(crate) const NONE: u32 = u32::MAX;

const ENGLISH: &str = include_str!("../data/synonyms-en.txt");

/// Stems numbered in sorted order, and each one's synonyms.
pub(crate) struct Synonyms {
    /// The stems, sorted: a stem's number is its index.
    stems: Vec<&'static str>,
    numbers: AHashMap<&'static str, u32>,
    /// The synonyms of stem `n` are `targets[starts[n]..starts[n + 1]]`, in stem order.
    starts: Vec<u32>,
    targets: Vec<u32>,
}

impl Synonyms {
    /// The English table, parsed on first use (a few milliseconds).
    pub(crate) fn english() -> &'static Synonyms {
        static TABLE: OnceLock<Synonyms> = OnceLock::new();
        TABLE.get_or_init(|| Synonyms::parse(ENGLISH))
    }

    /// Parses lines of space-separated synonyms.
    fn parse(text: &'static str) -> Synonyms {
        let mut stems: Vec<&str> = Vec::new();
        let mut numbers: AHashMap<&str, u32> = AHashMap::with_capacity(1 << 15);
        // Each line as the numbers of its stems, one after another; `ends` closes each line.
        let mut words: Vec<u32> = Vec::with_capacity(text.len() / 8);
        let mut ends: Vec<usize> = Vec::new();
        for line in text.lines() {
            for w in line.split_ascii_whitespace() {
                let n = *numbers.entry(w).or_insert_with(|| {
                    stems.push(w);
                    stems.len() as u32 - 1
                });
                words.push(n);
            }
            ends.push(words.len());
        }
        // Renumbered in sorted order: a stem's synonyms then come in stem order.
        let mut order: Vec<u32> = (0..stems.len() as u32).collect();
        order.sort_unstable_by_key(|&i| stems[i as usize]);
        let mut rank = vec![0u32; stems.len()];
        for (new, &old) in order.iter().enumerate() {
            rank[old as usize] = new as u32;
        }
        words.iter_mut().for_each(|w| *w = rank[*w as usize]);
        numbers.values_mut().for_each(|n| *n = rank[*n as usize]);
        let stems: Vec<&str> = order.iter().map(|&i| stems[i as usize]).collect();
        // Rows of synonyms: counted, filled, then sorted and made unique (a stem pair may share
        // several synsets).
        let mut starts = vec![0u32; stems.len() + 1];
        let mut start = 0;
        for &end in &ends {
            for &a in &words[start..end] {
                starts[a as usize + 1] += (end - start - 1) as u32;
            }
            start = end;
        }
        for i in 0..stems.len() {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut targets = vec![0u32; starts[stems.len()] as usize];
        start = 0;
        for &end in &ends {
            let line = &words[start..end];
            for &a in line {
                for &b in line.iter().filter(|&&b| b != a) {
                    targets[fill[a as usize] as usize] = b;
                    fill[a as usize] += 1;
                }
            }
            start = end;
        }
        // Compact each row in place.
        let mut kept = 0usize;
        for i in 0..stems.len() {
            let row = &mut targets[starts[i] as usize..starts[i + 1] as usize];
            row.sort_unstable();
            let mut last = None;
            let from = starts[i] as usize;
            starts[i] = kept as u32;
            for k in from..from + row.len() {
                let t = targets[k];
                if last != Some(t) {
                    targets[kept] = t;
                    kept += 1;
                    last = Some(t);
                }
            }
        }
        starts[stems.len()] = kept as u32;
        targets.truncate(kept);
        Synonyms {
            stems,
            numbers,
            starts,
            targets,
        }
    }

    /// The number of `stem`, or [`NONE`].
    pub(crate) fn number(&self, stem: &str) -> u32 {
        self.numbers.get(stem).copied().unwrap_or(NONE)
    }

    /// The number of stems.
    pub(crate) fn len(&self) -> usize {
        self.stems.len()
    }

    /// The stem numbered `n`.
    #[cfg(test)]
    pub(crate) fn stem(&self, n: u32) -> &'static str {
        self.stems[n as usize]
    }

    /// The synonyms of the stem numbered `n` (not [`NONE`]), in stem order.
    pub(crate) fn of(&self, n: u32) -> &[u32] {
        &self.targets[self.starts[n as usize] as usize..self.starts[n as usize + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;

    fn synonyms_of(table: &Synonyms, word: &str) -> Vec<&'static str> {
        let n = table.number(&Language::English.stem(word));
        assert_ne!(n, NONE, "{word} is in the table");
        table.of(n).iter().map(|&m| table.stem(m)).collect()
    }

    #[test]
    fn synonyms_are_symmetric_and_sorted() {
        let table = Synonyms::parse("a b\nb c\n");
        let (a, b, c) = (table.number("a"), table.number("b"), table.number("c"));
        assert_eq!(table.of(a), [b]);
        assert_eq!(table.of(b), [a, c]);
        assert_eq!(table.of(c), [b]);
        assert_eq!(table.number("d"), NONE);
    }

    #[test]
    fn the_english_table_knows_common_synonyms() {
        let table = Synonyms::english();
        assert!(synonyms_of(table, "provided").contains(&"suppli"));
        assert!(synonyms_of(table, "property").contains(&"belong"));
        assert!(synonyms_of(table, "artificial").contains(&"unreal"));
        // Stopwords are in no synset.
        assert_eq!(table.number("the"), NONE);
        assert_eq!(table.number("which"), NONE);
    }
}
