//! Contradictions: what a factual-drift cluster states two ways, side by side, for an editor or
//! a monitoring bot (`contradictions.jsonl`).
//!
//! ```
//! use textreuse_dedup::contradictions::Contradiction;
//! use textreuse_dedup::{Cluster, Member};
//!
//! let cluster = Cluster::new(7, vec![
//!     Member::new(0, 1, "History of the Balkans",
//!         "Bulgaria, a poor rural nation of 7 million people, sent soldiers to the front."),
//!     Member::new(1 << 32, 2, "Home front during World War I",
//!         "Bulgaria, a poor rural nation of 4.5 million people, sent soldiers to the front."),
//! ]);
//! let c = Contradiction::of(&cluster).expect("factual drift");
//! assert_eq!((c.facts[0].a.as_str(), c.facts[0].b.as_str()), ("4.5", "7"));
//! assert_eq!(c.statements[0].title, "Home front during World War I");
//! // The paper's own contradiction, between two articles: likely drift.
//! assert!(c.confidence >= 0.5, "{}", c.confidence);
//! let json = c.to_json();
//! assert!(json.starts_with(r#"{"cluster":7,"confidence":"#));
//! assert!(json.contains(r#""rule":"shared_subject","facts":[{"kind":"number","a":"4.5","b":"7","statements":[0,1]}]"#));
//! ```
use serde::Serialize;

use crate::Cluster;
use crate::classify::{ClusterType, DifferenceKind, Rule};
use textreuse_corpus::DocId;

/// One contradiction: the facts that differ and the statements that hold them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Contradiction {
    /// The cluster id (as in `clusters.jsonl`).
    pub cluster: u64,
    /// The probability, in `0..=1`, that the cluster is factual drift by the paper's definition
    /// (the cluster's [`confidence`](Cluster::confidence): the model that types clusters,
    /// [`classify::learned`](crate::classify::learned), fitted to labelled clusters).
    pub confidence: f64,
    /// The rule that fired on the cluster's evidence.
    pub rule: Rule,
    /// The differing facts, aligned: `a` in statement `statements[0]`, `b` in `statements[1]`.
    pub facts: Vec<Fact>,
    /// The members that state the facts, in the order the facts name them.
    pub statements: Vec<Statement>,
}

/// One differing fact.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fact {
    /// A number, a name or a negation.
    pub kind: DifferenceKind,
    /// The words in the first statement, as written (empty when it has none).
    pub a: String,
    /// The words in the second statement.
    pub b: String,
    /// The indices in [`Contradiction::statements`] of the two statements.
    pub statements: [usize; 2],
}

/// One statement: a cluster member and where to find it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Statement {
    /// The member's index in the cluster.
    pub member: usize,
    /// The document id.
    pub doc: DocId,
    /// The article title.
    pub title: String,
    /// The sentence.
    pub text: String,
    /// The input it was read from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Dumps: the revision id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// Dumps: the revision's timestamp.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// A link to the revision (dumps whose siteinfo gives the wiki's address).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Whether this is the newest statement: set when every statement has a timestamp and one
    /// is later than all others (`true` for it, `false` for the rest).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newest: Option<bool>,
}

impl Contradiction {
    /// The contradiction of a factual-drift cluster; `None` for any other type or a cluster
    /// whose evidence holds no factual difference.
    pub fn of(cluster: &Cluster) -> Option<Contradiction> {
        if cluster.kind != ClusterType::FactualDrift {
            return None;
        }
        let mut statements: Vec<Statement> = Vec::new();
        let index_of = |member: usize, statements: &mut Vec<Statement>| -> usize {
            if let Some(i) = statements.iter().position(|s| s.member == member) {
                return i;
            }
            let m = &cluster.members[member];
            statements.push(Statement {
                member,
                doc: m.doc.clone(),
                title: m.title.clone(),
                text: m.text.clone(),
                source: m.origin.source.as_deref().map(str::to_string),
                revision: m.origin.revision,
                timestamp: m.origin.timestamp.as_deref().map(str::to_string),
                url: m.origin.url.as_deref().map(str::to_string),
                newest: None,
            });
            statements.len() - 1
        };
        let mut facts = Vec::new();
        for d in &cluster.evidence.differences {
            if !d.kind.is_factual() {
                continue;
            }
            let a = index_of(d.members[0], &mut statements);
            let b = index_of(d.members[1], &mut statements);
            facts.push(Fact {
                kind: d.kind,
                a: d.a.clone(),
                b: d.b.clone(),
                statements: [a, b],
            });
        }
        if facts.is_empty() {
            return None;
        }
        mark_newest(&mut statements);
        Some(Contradiction {
            cluster: cluster.id,
            confidence: round3(cluster.confidence),
            rule: cluster.evidence.rule,
            facts,
            statements,
        })
    }

    /// Its line of `contradictions.jsonl`, without the newline: `{"cluster", "confidence",
    /// "rule", "facts": [{"kind", "a", "b", "statements"}], "statements": [{"member", "doc",
    /// "title", "text", "source", "revision", "timestamp", "url", "newest"}]}` (fields without
    /// a value left out).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("contradictions serialize (strings and numbers)")
    }
}

/// Ranks contradictions for `contradictions.jsonl`: the most confident first, then by cluster
/// id. The dedup output directory and the Spark backend both order them with this.
pub fn rank(list: &mut [Contradiction]) {
    list.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.cluster.cmp(&b.cluster))
    });
}

/// Ranks `contradictions.jsonl` lines as [`rank`] does (by the `confidence` and `cluster`
/// fields they hold); for writers that keep the lines, not the values.
pub fn rank_lines(lines: &mut [String]) {
    let key = |line: &str| -> (f64, u64) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
        (
            v["confidence"].as_f64().unwrap_or(0.0),
            v["cluster"].as_u64().unwrap_or(u64::MAX),
        )
    };
    let mut keyed: Vec<((f64, u64), String)> = lines
        .iter_mut()
        .map(|l| (key(l), std::mem::take(l)))
        .collect();
    keyed.sort_by(|(a, _), (b, _)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (slot, (_, line)) in lines.iter_mut().zip(keyed) {
        *slot = line;
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn mark_newest(statements: &mut [Statement]) {
    if statements.iter().any(|s| s.timestamp.is_none()) {
        return;
    }
    let latest = statements.iter().filter_map(|s| s.timestamp.clone()).max();
    let Some(latest) = latest else { return };
    let count = statements
        .iter()
        .filter(|s| s.timestamp.as_deref() == Some(latest.as_str()))
        .count();
    if count != 1 {
        return;
    }
    for s in statements {
        s.newest = Some(s.timestamp.as_deref() == Some(latest.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Member;

    fn member(id: u64, doc: u64, title: &str, text: &str, rev: u64, ts: &str) -> Member {
        let mut m = Member::new(id, doc, title, text);
        m.origin.revision = Some(rev);
        m.origin.timestamp = Some(Arc::from(ts));
        m.origin.url = Some(Arc::from(format!(
            "https://en.wikipedia.org/w/index.php?oldid={rev}"
        )));
        m
    }

    #[test]
    fn the_newer_statement_is_marked() {
        let cluster = Cluster::new(
            3,
            vec![
                member(
                    0,
                    9,
                    "Bulgaria",
                    "In 1910 Bulgaria had a population of 7 million people.",
                    10,
                    "2013-05-01T00:00:00Z",
                ),
                member(
                    1 << 32,
                    10,
                    "History of Bulgaria",
                    "In 1910 Bulgaria had a population of 4.5 million people.",
                    20,
                    "2016-08-01T00:00:00Z",
                ),
            ],
        );
        let c = Contradiction::of(&cluster).unwrap();
        assert_eq!(c.confidence, round3(cluster.confidence));
        assert!((0.0..=1.0).contains(&c.confidence));
        assert_eq!(c.rule, Rule::RelatedArticles);
        let newest: Vec<_> = c
            .statements
            .iter()
            .map(|s| (s.revision, s.newest))
            .collect();
        assert!(
            newest.contains(&(Some(20), Some(true))) && newest.contains(&(Some(10), Some(false)))
        );
        assert!(
            c.to_json()
                .contains(r#""url":"https://en.wikipedia.org/w/index.php?oldid=20""#)
        );
    }

    #[test]
    fn only_factual_drift_and_ranked() {
        let same = Cluster::new(
            1,
            vec![
                Member::new(0, 1, "A", "Same text here."),
                Member::new(1, 2, "B", "Same text here."),
            ],
        );
        assert!(Contradiction::of(&same).is_none());
        let mut list = vec![Contradiction {
            confidence: 0.45,
            cluster: 2,
            ..Contradiction::of(&Cluster::new(
                2,
                vec![
                    member(
                        0,
                        9,
                        "Bulgaria",
                        "Bulgaria was a poor rural nation of 7 million people in that year.",
                        1,
                        "2013",
                    ),
                    member(
                        1,
                        10,
                        "History of Bulgaria",
                        "Bulgaria was a poor rural nation of 4.5 million people in that year.",
                        2,
                        "2016",
                    ),
                ],
            ))
            .unwrap()
        }];
        let mut top = list[0].clone();
        top.confidence = 0.9;
        top.cluster = 5;
        list.push(top);
        rank(&mut list);
        assert_eq!(list.iter().map(|c| c.cluster).collect::<Vec<_>>(), [5, 2]);
        let mut lines: Vec<String> = list.iter().rev().map(Contradiction::to_json).collect();
        rank_lines(&mut lines);
        assert_eq!(
            lines,
            list.iter().map(Contradiction::to_json).collect::<Vec<_>>()
        );
    }
}
