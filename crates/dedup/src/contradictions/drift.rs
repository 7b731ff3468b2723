//! The confidence of a contradiction: the probability that its cluster is factual drift by the
//! paper's definition, from gradient-boosted trees over the cluster's evidence ([`features`]),
//! fitted to the labelled tuning halves of the cluster-type study (`studies/types/fit.py` writes
//! `model.rs`; the held-out halves were never read by it).
//!
//! The rules type a cluster; this model only says how far to trust a `factual_drift` verdict,
//! so that `contradictions.jsonl` ranks the clusters that are likely contradictions first.
use crate::Cluster;
use crate::classify::{DifferenceKind, Evidence, Rule};

#[rustfmt::skip]
mod model;

/// The number of measures in [`features`].
pub const FEATURES: usize = 32;

/// Every rule, in the order of the features' first twelve entries.
const RULES: [Rule; 12] = [
    Rule::SameText,
    Rule::Citation,
    Rule::OwnSubjects,
    Rule::SiblingArticles,
    Rule::PerArticleFacts,
    Rule::ParallelEntries,
    Rule::SameArticle,
    Rule::RelatedArticles,
    Rule::SharedSubject,
    Rule::NonSubstantive,
    Rule::Unrelated,
    Rule::Fragment,
];

/// Every difference kind, in the order of the next eleven entries.
const KINDS: [DifferenceKind; 11] = [
    DifferenceKind::Number,
    DifferenceKind::Name,
    DifferenceKind::Negation,
    DifferenceKind::Subject,
    DifferenceKind::Pronoun,
    DifferenceKind::Spelling,
    DifferenceKind::Reordered,
    DifferenceKind::Order,
    DifferenceKind::Added,
    DifferenceKind::Fragment,
    DifferenceKind::Wording,
];

/// The name of each of [`features`]' numbers, in order.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "rule_same_text",
    "rule_citation",
    "rule_own_subjects",
    "rule_sibling_articles",
    "rule_per_article_facts",
    "rule_parallel_entries",
    "rule_same_article",
    "rule_related_articles",
    "rule_shared_subject",
    "rule_non_substantive",
    "rule_unrelated",
    "rule_fragment",
    "number",
    "name",
    "negation",
    "subject",
    "pronoun",
    "spelling",
    "reordered",
    "order",
    "added",
    "fragment",
    "wording",
    "members",
    "groups",
    "titles",
    "one_title",
    "shortest_text",
    "longest_text",
    "title_jaccard",
    "own_title_words",
    "digit_share",
];

/// A cluster's measures as the model reads them, named by [`FEATURE_NAMES`]: the rule that
/// typed it (one of twelve set to 1), its differences counted by kind, its members, groups and
/// distinct titles, whether it has one title, its shortest and longest text in bytes, the word
/// Jaccard of its first two titles (in sorted order; 0 with one title), how many changed words
/// are words of their own member's title, and the share of digits in its first two texts.
/// `members` are the members' `(title, text)`, in the evidence's order.
pub fn features(evidence: &Evidence, members: &[(&str, &str)]) -> [f64; FEATURES] {
    let mut f = [0.0; FEATURES];
    if let Some(r) = RULES.iter().position(|&r| r == evidence.rule) {
        f[r] = 1.0;
    }
    for d in &evidence.differences {
        if let Some(k) = KINDS.iter().position(|&k| k == d.kind) {
            f[12 + k] += 1.0;
        }
    }
    let mut titles: Vec<&str> = members.iter().map(|m| m.0).collect();
    titles.sort_unstable();
    titles.dedup();
    let lengths = members.iter().map(|m| m.1.len());
    f[23] = members.len() as f64;
    f[24] = evidence.groups.len() as f64;
    f[25] = titles.len() as f64;
    f[26] = (titles.len() == 1) as u8 as f64;
    f[27] = lengths.clone().min().unwrap_or(0) as f64;
    f[28] = lengths.max().unwrap_or(0) as f64;
    if let [a, b, ..] = titles[..] {
        let (a, b) = (lower_words(a), lower_words(b));
        let shared = a.iter().filter(|w| b.contains(w)).count();
        let union = a.len() + b.len() - shared;
        f[29] = if union == 0 {
            0.0
        } else {
            shared as f64 / union as f64
        };
    }
    let mut own = 0;
    for d in &evidence.differences {
        for (words, member) in [(&d.a, d.members[0]), (&d.b, d.members[1])] {
            let Some(&(title, _)) = members.get(member) else {
                continue;
            };
            let title = lower_words(title);
            if lower_words(words).iter().any(|w| title.contains(w)) {
                own += 1;
            }
        }
    }
    f[30] = own as f64;
    let (mut digits, mut chars) = (0usize, 0usize);
    for (_, text) in members.iter().take(2) {
        digits += text.chars().filter(char::is_ascii_digit).count();
        chars += text.chars().count();
    }
    f[31] = if chars == 0 {
        0.0
    } else {
        digits as f64 / chars as f64
    };
    f
}

/// The words of a text (runs of letters and digits), lowercased, distinct, in order.
fn lower_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = w.to_lowercase();
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The probability that a cluster with these [`features`] is factual drift.
pub fn probability(features: &[f64; FEATURES]) -> f64 {
    let mut score = model::INIT;
    for &root in model::ROOTS.iter() {
        let mut i = root as usize;
        loop {
            let n = &model::NODES[i];
            if n.left == 0 {
                score += model::LEARNING_RATE * n.value;
                break;
            }
            // The fit compared single-precision values (scikit-learn's trees store their
            // inputs as `f32`): the same leaf for every input.
            let x = features[n.feature as usize] as f32 as f64;
            i = if x <= n.threshold {
                n.left as usize
            } else {
                n.right as usize
            };
        }
    }
    1.0 / (1.0 + (-score).exp())
}

/// The probability that `cluster` is factual drift ([`probability`] of its [`features`]).
pub fn of(cluster: &Cluster) -> f64 {
    let members: Vec<(&str, &str)> = cluster
        .members
        .iter()
        .map(|m| (m.title.as_str(), m.text.as_str()))
        .collect();
    probability(&features(&cluster.evidence, &members))
}

/// One node of a tree: a split (`left` > 0) or a leaf (`left` = 0, `value`).
struct Node {
    feature: u8,
    threshold: f64,
    left: u32,
    right: u32,
    value: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Member;

    /// The written trees give the fit's probabilities (the fixture: 64 tuning clusters' features
    /// and scikit-learn's `predict_proba`, written by studies/types/fit.py with the model).
    #[test]
    fn the_trees_give_the_fits_probabilities() {
        let mut checked = 0;
        for line in include_str!("drift/fixture.tsv").lines() {
            if line.starts_with('#') {
                continue;
            }
            let v: Vec<f64> = line.split('\t').map(|x| x.parse().unwrap()).collect();
            assert_eq!(v.len(), FEATURES + 1, "{line}");
            let features: [f64; FEATURES] = v[..FEATURES].try_into().unwrap();
            let p = probability(&features);
            assert!(
                (p - v[FEATURES]).abs() < 1e-12,
                "{p} against {}",
                v[FEATURES]
            );
            checked += 1;
        }
        assert_eq!(checked, 64);
    }

    #[test]
    fn features_read_the_evidence_and_the_members() {
        let cluster = Cluster::new(
            1,
            vec![
                Member::new(
                    0,
                    1,
                    "History of Bulgaria",
                    "Bulgaria had 7 million people.",
                ),
                Member::new(1 << 32, 2, "Bulgaria", "Bulgaria had 4.5 million people."),
            ],
        );
        let members: Vec<(&str, &str)> = cluster
            .members
            .iter()
            .map(|m| (m.title.as_str(), m.text.as_str()))
            .collect();
        let f = features(&cluster.evidence, &members);
        let rule = RULES
            .iter()
            .position(|&r| r == cluster.evidence.rule)
            .unwrap();
        assert_eq!(f[rule], 1.0);
        assert_eq!(f[..12].iter().sum::<f64>(), 1.0);
        assert_eq!(f[12], 1.0, "one number changed");
        assert_eq!((f[23], f[24], f[25], f[26]), (2.0, 2.0, 2.0, 0.0));
        assert_eq!(
            f[29],
            1.0 / 3.0,
            "\"bulgaria\" of three distinct title words"
        );
        assert!(f[31] > 0.0);
        let p = of(&cluster);
        assert!((0.0..=1.0).contains(&p));
    }
}
