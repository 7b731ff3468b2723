//! Content reuse or structure reuse: the text-reuse thesis's heuristics for telling a passage
//! that reuses another's *content* (copied or paraphrased facts about the same thing) from one
//! that reuses only its *structure* (a template filled with other entities, like the many
//! "X is a village in the administrative district of Gmina Y" stubs).
//!
//! ```
//! use textreuse_reuse::{ReuseKind, profile};
//!
//! let a = "Zalesie is a village in the administrative district of Gmina Bielsk, within Płock \
//!     County, Masovian Voivodeship, in east-central Poland.";
//! let b = "Nowa Wieś is a village in the administrative district of Gmina Drobin, within Płock \
//!     County, Masovian Voivodeship, in east-central Poland.";
//! let p = profile(a, b, a.len(), b.len());
//! assert_eq!(p.kind, ReuseKind::Content); // the county and voivodeship are shared
//! let c = "Lake Ohrid is a lake in the southwestern part of the Republic of North Macedonia, \
//!     within the Ohrid Municipality, in a mountainous region near Albania.";
//! let q = "Loch Ness is a lake in the northern part of the Highlands of Scotland, within the \
//!     Great Glen, in a mountainous region near Inverness.";
//! assert_eq!(profile(c, q, c.len(), q.len()).kind, ReuseKind::Structure);
//! ```
//!
//! # The rule
//!
//! For the two passages of a reuse case, [`profile`] measures
//! * the Jaccard similarity of their (case-insensitive) word n-gram sets for n = 2, 5, 10, 15;
//! * the Jaccard similarity of their capitalized-entity sets (maximal runs of capitalized words;
//!   a sentence-initial stopword such as "The" or "It" is left out);
//! * the share of each document the passage covers.
//!
//! The case is **structure reuse** when the wording is shared but the things talked about are
//! not: word 2-gram Jaccard at least [`STRUCTURE_MIN_J2`], 10-gram Jaccard below
//! [`CONTENT_MIN_J10`], and entity Jaccard below [`CONTENT_MIN_ENTITIES`] with at least one
//! entity on each side. Everything else is **content reuse**: long shared n-grams (verbatim
//! copies), shared entities (the same facts, even reworded), or low n-gram overlap altogether
//! (a paraphrase, which the aligner found by meaning, not by template). The shares do not enter
//! the rule; they are reported because the thesis used them to separate whole-article reuse from
//! reuse of a single paragraph.
use ahash::AHashSet;
use textreuse_hash::fingerprint_words;
use textreuse_shingle::{is_stopword, words};

/// Word n-gram lengths of [`ReuseProfile::ngram_jaccard`].
pub const NGRAM_LENGTHS: [usize; 4] = [2, 5, 10, 15];
/// Structure reuse needs at least this word 2-gram Jaccard.
pub const STRUCTURE_MIN_J2: f64 = 0.2;
/// A word 10-gram Jaccard at or above this makes a case content reuse.
pub const CONTENT_MIN_J10: f64 = 0.3;
/// An entity-set Jaccard at or above this makes a case content reuse.
pub const CONTENT_MIN_ENTITIES: f64 = 0.3;

/// The kind of a reuse case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReuseKind {
    /// The same content (facts about the same entities), copied or reworded.
    Content,
    /// The same wording or template, about other entities.
    Structure,
}

impl ReuseKind {
    /// `"content"` or `"structure"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReuseKind::Content => "content",
            ReuseKind::Structure => "structure",
        }
    }
}

/// The measures of a reuse case and its kind; see the [module docs](self) for the rule.
#[derive(Clone, Debug, PartialEq)]
pub struct ReuseProfile {
    /// Jaccard of the word n-gram sets for n in [`NGRAM_LENGTHS`] (0 when neither passage has
    /// an n-gram of that length).
    pub ngram_jaccard: [f64; 4],
    /// Jaccard of the capitalized-entity sets (0 when neither has an entity).
    pub entity_jaccard: f64,
    /// Entities of the source passage and of the suspicious passage.
    pub entities: (usize, usize),
    /// Share of the source document the source passage covers (bytes, `0..=1`).
    pub source_share: f64,
    /// Share of the suspicious document the suspicious passage covers (bytes, `0..=1`).
    pub suspicious_share: f64,
    /// The verdict.
    pub kind: ReuseKind,
}

/// Measures and classifies a reuse case: `source` and `suspicious` are the two passages' texts,
/// the lengths are those of the whole documents (in the same unit as the passages' `len()`;
/// values below the passage length count as the passage length).
pub fn profile(
    source: &str,
    suspicious: &str,
    source_doc_len: usize,
    suspicious_doc_len: usize,
) -> ReuseProfile {
    let a: Vec<u64> = words(source).map(|w| w.key()).collect();
    let b: Vec<u64> = words(suspicious).map(|w| w.key()).collect();
    let mut ngram_jaccard = [0.0; 4];
    for (j, &n) in ngram_jaccard.iter_mut().zip(&NGRAM_LENGTHS) {
        *j = jaccard(&ngrams(&a, n), &ngrams(&b, n));
    }
    let (ea, eb) = (entities(source), entities(suspicious));
    let entity_jaccard = jaccard(&ea, &eb);
    let share = |part: usize, whole: usize| {
        if part == 0 {
            0.0
        } else {
            part as f64 / whole.max(part) as f64
        }
    };
    let kind = classify(
        ngram_jaccard,
        entity_jaccard,
        !ea.is_empty() && !eb.is_empty(),
    );
    ReuseProfile {
        ngram_jaccard,
        entity_jaccard,
        entities: (ea.len(), eb.len()),
        source_share: share(source.len(), source_doc_len),
        suspicious_share: share(suspicious.len(), suspicious_doc_len),
        kind,
    }
}

/// The rule of the [module docs](self), on measured values: `has_entities` says whether both
/// passages have at least one entity.
pub fn classify(ngram_jaccard: [f64; 4], entity_jaccard: f64, has_entities: bool) -> ReuseKind {
    let [j2, _, j10, _] = ngram_jaccard;
    if has_entities
        && j2 >= STRUCTURE_MIN_J2
        && j10 < CONTENT_MIN_J10
        && entity_jaccard < CONTENT_MIN_ENTITIES
    {
        ReuseKind::Structure
    } else {
        ReuseKind::Content
    }
}

fn ngrams(keys: &[u64], n: usize) -> AHashSet<u64> {
    keys.windows(n).map(fingerprint_words).collect()
}

fn jaccard(a: &AHashSet<u64>, b: &AHashSet<u64>) -> f64 {
    let union = a.len() + b.len() - a.intersection(b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(b).count() as f64 / union as f64
    }
}

/// Keys of the capitalized entities: maximal runs of words starting with an uppercase letter
/// (separated by spaces only), without a sentence-initial stopword ("The", "It").
fn entities(text: &str) -> AHashSet<u64> {
    let mut out = AHashSet::new();
    let mut run: Vec<u64> = Vec::new();
    let mut last_end = 0;
    for (i, w) in words(text).enumerate() {
        let s = w.as_str();
        let gap = &text[last_end..w.span.start];
        let capital = s.chars().next().is_some_and(char::is_uppercase);
        let joined = gap.chars().all(|c| c == ' ');
        let sentence_start = i == 0 || gap.contains(['.', '!', '?', '\n']);
        let continues = capital && joined;
        if !continues && !run.is_empty() {
            out.insert(fingerprint_words(&run));
            run.clear();
        }
        if capital && !(run.is_empty() && sentence_start && is_stopword(s)) {
            run.push(w.key());
        }
        last_end = w.span.end;
    }
    if !run.is_empty() {
        out.insert(fingerprint_words(&run));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_capitalized_runs() {
        let e = entities("The Pacific Ring of Fire lies near New Zealand. It is big.");
        // "Pacific Ring", "Fire", "New Zealand"; sentence-initial "The" and "It" are stopwords.
        assert_eq!(e.len(), 3);
        assert!(e.contains(&fingerprint_words(&[
            textreuse_shingle::word_key("new"),
            textreuse_shingle::word_key("zealand")
        ])));
    }

    #[test]
    fn verbatim_copy_is_content() {
        let a = "Marie Curie was a Polish and naturalised-French physicist and chemist who \
                 conducted pioneering research on radioactivity in Paris.";
        let p = profile(a, a, 1000, a.len());
        assert_eq!(p.kind, ReuseKind::Content);
        assert!(p.ngram_jaccard.iter().all(|&j| (j - 1.0).abs() < 1e-12));
        assert!((p.entity_jaccard - 1.0).abs() < 1e-12);
        assert!((p.suspicious_share - 1.0).abs() < 1e-12);
        assert!((p.source_share - a.len() as f64 / 1000.0).abs() < 1e-12);
    }

    #[test]
    fn template_with_other_entities_is_structure() {
        let a = "Kowale is a village in the administrative district of Gmina Lubawa, within \
                 Iława County, Warmian-Masurian Voivodeship, in northern Poland.";
        let b = "Dębiny is a village in the administrative district of Gmina Przytyk, within \
                 Radom County, Masovian Voivodeship, in east-central Poland.";
        let p = profile(a, b, a.len(), b.len());
        assert!(p.ngram_jaccard[0] >= STRUCTURE_MIN_J2, "{p:?}");
        assert!(p.entity_jaccard < CONTENT_MIN_ENTITIES, "{p:?}");
        assert_eq!(p.kind, ReuseKind::Structure, "{p:?}");
    }

    #[test]
    fn paraphrase_with_shared_entities_is_content() {
        let a = "Marie Curie discovered polonium and radium in Paris together with Pierre Curie.";
        let b = "Together with Pierre Curie, Marie Curie found radium and polonium in Paris.";
        assert_eq!(profile(a, b, 500, 500).kind, ReuseKind::Content);
    }

    #[test]
    fn rule_thresholds() {
        use ReuseKind::*;
        assert_eq!(classify([0.5, 0.2, 0.1, 0.0], 0.0, true), Structure);
        assert_eq!(classify([0.5, 0.2, 0.1, 0.0], 0.0, false), Content);
        assert_eq!(classify([0.5, 0.4, 0.3, 0.2], 0.0, true), Content);
        assert_eq!(classify([0.5, 0.2, 0.1, 0.0], 0.3, true), Content);
        assert_eq!(classify([0.1, 0.0, 0.0, 0.0], 0.0, true), Content);
        assert_eq!(ReuseKind::Structure.as_str(), "structure");
    }

    #[test]
    fn empty_passages() {
        let p = profile("", "", 0, 0);
        assert_eq!(p.kind, ReuseKind::Content);
        assert_eq!(p.ngram_jaccard, [0.0; 4]);
        assert_eq!((p.source_share, p.suspicious_share), (0.0, 0.0));
    }
}
