//! Writes the English synonym table the aligner ships (`crates/align/data/synonyms-en.txt`)
//! from a WordNet 3.0 database directory (Debian's `wordnet-base` puts it in
//! `/usr/share/wordnet`).
//!
//! ```sh
//! cargo run --release -p textreuse-align --example wordnet_synonyms -- /usr/share/wordnet \
//!     > crates/align/data/synonyms-en.txt
//! ```
//!
//! A line per WordNet synset (set of synonyms) of two or more words: its one-word lemmas that
//! have it among their first `SENSES` senses (WordNet orders a word's senses by frequency),
//! stemmed like the aligner stems English, stopwords left out, sorted and unique. Lines are
//! sorted. Rare senses are left out because they make common words synonyms of unrelated ones
//! ("give" has 44 senses as a verb).
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use textreuse_align::Language;

/// Senses of a word that count.
const SENSES: usize = 3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: wordnet_synonyms WORDNET_DIR (e.g. /usr/share/wordnet)")?;
    let english = Language::English;
    let mut synsets: BTreeMap<(&str, String), BTreeSet<String>> = BTreeMap::new();
    for pos in ["noun", "verb", "adj", "adv"] {
        let path = format!("{dir}/index.{pos}");
        let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
        // The license header lines start with a space; lemmas are ASCII.
        for line in String::from_utf8_lossy(&bytes).lines() {
            if line.starts_with(' ') {
                continue;
            }
            // lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
            let f: Vec<&str> = line.split_whitespace().collect();
            let lemma = f[0];
            if !lemma.bytes().all(|b| b.is_ascii_alphabetic()) {
                continue; // phrases ("ice_cream"), hyphenated and numbered lemmas
            }
            let lemma = lemma.to_ascii_lowercase();
            if english.is_stopword(&lemma) {
                continue;
            }
            let senses: usize = f[2].parse()?;
            let pointers: usize = f[3].parse()?;
            let offsets = f
                .get(6 + pointers..6 + pointers + senses)
                .ok_or("short line")?;
            let stem = english.stem(&lemma).into_owned();
            if english.is_stopword(&stem) {
                continue; // a stopword's form is its term: it would never match
            }
            for offset in offsets.iter().take(SENSES) {
                synsets
                    .entry((pos, offset.to_string()))
                    .or_default()
                    .insert(stem.clone());
            }
        }
    }
    let lines: BTreeSet<String> = synsets
        .into_values()
        .filter(|s| s.len() > 1)
        .map(|s| s.into_iter().collect::<Vec<_>>().join(" "))
        .collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in lines {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}
