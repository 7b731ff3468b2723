//! The cluster's type, fitted: gradient-boosted trees (`textreuse-trees`) read the rules'
//! evidence ([`features`]: the rule that fired, the differences by kind, members, groups,
//! titles) and give each of the six types a probability; the likeliest is the type. The trees
//! were fitted by `studies/types/fit.py` (which writes `learned/model.rs`) to the labelled
//! clusters of the cluster-type study, never to its newest sample, which scores them
//! (docs/dedup.md, "Cluster types").
//!
//! The rules see what differs; what the difference means (a contradiction, each article's own
//! figures, a rename) they decide less well than a model of how often each pattern of evidence
//! was each type in the labelled data. A cluster whose members all have one folded text is
//! identical without the model (the rules are right there: precision 1.00 on every sample).
//!
//! ```
//! use textreuse_dedup::classify::{self, ClusterType, Member};
//!
//! let m = |doc, title, text| Member { doc, position: 0, title, text, categories: &[] };
//! let bulgaria = [
//!     m(0, "History of the Balkans",
//!         "Bulgaria, a poor rural nation of 7 million people, sent soldiers to the front."),
//!     m(1, "Home front during World War I",
//!         "Bulgaria, a poor rural nation of 4.5 million people, sent soldiers to the front."),
//! ];
//! let t = classify::type_cluster(&bulgaria);
//! assert_eq!(t.kind, ClusterType::FactualDrift);
//! assert!(t.confidence > 0.5);
//! let p = classify::learned::probabilities(&classify::learned::features(&t.evidence, &bulgaria));
//! assert_eq!(p[3], t.confidence, "factual drift is the fourth of ClusterType::ALL");
//! ```
use super::{ClusterType, DifferenceKind, Evidence, Member, Rule, Typing};

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
/// are words of their own member's title, and the share of digits in all its members' texts.
/// None depends on the members' order. `members` are in the evidence's order (only their
/// titles and texts are read).
pub fn features(evidence: &Evidence, members: &[Member<'_>]) -> [f64; FEATURES] {
    let mut f = [0.0; FEATURES];
    if let Some(r) = RULES.iter().position(|&r| r == evidence.rule) {
        f[r] = 1.0;
    }
    for d in &evidence.differences {
        if let Some(k) = KINDS.iter().position(|&k| k == d.kind) {
            f[12 + k] += 1.0;
        }
    }
    let mut titles: Vec<&str> = members.iter().map(|m| m.title).collect();
    titles.sort_unstable();
    titles.dedup();
    let lengths = members.iter().map(|m| m.text.len());
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
            let Some(m) = members.get(member) else {
                continue;
            };
            let title = lower_words(m.title);
            if lower_words(words).iter().any(|w| title.contains(w)) {
                own += 1;
            }
        }
    }
    f[30] = own as f64;
    let (mut digits, mut chars) = (0usize, 0usize);
    for text in members.iter().map(|m| m.text) {
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

/// The probability of each type ([`ClusterType::ALL`]'s order) for a cluster with these
/// [`features`].
pub fn probabilities(features: &[f64; FEATURES]) -> [f64; 6] {
    let p = model::MODEL.probabilities(features);
    std::array::from_fn(|i| p[i])
}

/// The type of the rules' `typing` of `members` by the model, with its probability as the
/// confidence. Three rules keep their type: one folded text (identical, confidence 1), every
/// text a citation (reference) and a fragment run on at an end (other): on the labelled
/// clusters the rules are right there at least as often as the model (leave-one-sample-out:
/// 7 and 7 of 8 citations, 8 against 6 of 16 fragments), whose few examples of those types
/// teach it little.
pub(super) fn retype(typing: Typing, members: &[Member<'_>]) -> Typing {
    if typing.evidence.rule == Rule::SameText {
        return typing;
    }
    let p = probabilities(&features(&typing.evidence, members));
    let mut best = 0;
    for (i, &x) in p.iter().enumerate() {
        if x > p[best] {
            best = i;
        }
    }
    if matches!(typing.evidence.rule, Rule::Citation | Rule::Fragment) {
        best = ClusterType::ALL
            .iter()
            .position(|&t| t == typing.kind)
            .expect("a type");
    }
    Typing {
        kind: ClusterType::ALL[best],
        confidence: p[best],
        evidence: typing.evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written trees give the fit's probabilities (the fixture: 64 labelled clusters'
    /// features and scikit-learn's `predict_proba`, written by studies/types/fit.py with the
    /// model).
    #[test]
    fn the_trees_give_the_fits_probabilities() {
        let fixture = include_str!("learned/fixture.tsv");
        assert_eq!(model::MODEL.check_fixture(fixture, FEATURES, 1e-12), Ok(64));
        assert_eq!(model::MODEL.classes(), 6);
        model::MODEL.check(FEATURES).unwrap();
    }

    #[test]
    fn features_read_the_evidence_and_the_members() {
        let m = |doc, position, title, text| Member {
            doc,
            position,
            title,
            text,
            categories: &[],
        };
        let members = [
            m(
                0,
                0,
                "History of Bulgaria",
                "Bulgaria had 7 million people.",
            ),
            m(1, 1, "Bulgaria", "Bulgaria had 4.5 million people."),
        ];
        let typing = super::super::type_cluster(&members);
        let f = features(&typing.evidence, &members);
        let rule = RULES
            .iter()
            .position(|&r| r == typing.evidence.rule)
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
        let p = probabilities(&f);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let kind = ClusterType::ALL
            .iter()
            .position(|&t| t == typing.kind)
            .unwrap();
        assert_eq!(typing.confidence, p[kind]);
        assert!(p.iter().all(|&x| x <= p[kind]), "the likeliest type");
    }

    proptest::proptest! {
        /// Whatever the evidence, six probabilities that add up to one.
        #[test]
        fn any_features_give_a_distribution(
            f in proptest::collection::vec(-1.0f64..1e4, FEATURES),
        ) {
            let f: [f64; FEATURES] = f.try_into().unwrap();
            let p = probabilities(&f);
            proptest::prop_assert!(p.iter().all(|x| (0.0..=1.0).contains(x)), "{p:?}");
            proptest::prop_assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{p:?}");
        }
    }

    #[test]
    fn one_folded_text_stays_identical_without_the_model() {
        let m = |doc, text| Member {
            doc,
            position: doc,
            title: "A",
            text,
            categories: &[],
        };
        let t = super::super::type_cluster(&[
            m(0, "The U.S. Army, in 1990."),
            m(1, "The US army in 1990"),
        ]);
        assert_eq!(
            (t.kind, t.confidence, t.evidence.rule),
            (ClusterType::Identical, 1.0, Rule::SameText)
        );
    }
}
