//! A cluster as a value: its members (with their text) and its type, and its `clusters.jsonl`
//! line.
use serde::Serialize;

use crate::classify::{self, ClusterType};

/// One sentence of a [`Cluster`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The sentence id, `seq << 32 | idx` ([`sentence_id`](crate::features::sentence_id)):
    /// `seq` is the document's position in the input, `idx` the sentence's index in it.
    pub id: u64,
    /// The document id (page id, or the id of a JSON Lines record).
    pub doc: u64,
    /// The document title.
    pub title: String,
    /// The sentence text, as written.
    pub text: String,
}

impl Member {
    /// The sentence's index among all sentences of its document (the low 32 bits of the id).
    pub fn idx(&self) -> u32 {
        self.id as u32
    }

    /// The document's position in the input (the high 32 bits of the id).
    pub fn seq(&self) -> u32 {
        (self.id >> 32) as u32
    }
}

/// A cluster of near-duplicate sentences: what a [`Sink`](crate::Sink) receives.
///
/// ```
/// use textreuse_dedup::{Cluster, ClusterType, Member};
///
/// let member = |id: u64, doc: u64| Member {
///     id,
///     doc,
///     title: format!("Page {doc}"),
///     text: "The same sentence.".to_string(),
/// };
/// let cluster = Cluster::new(0, vec![member(1 << 32, 9), member(0, 7)]);
/// assert_eq!(cluster.kind, ClusterType::Identical);
/// assert_eq!(cluster.members[0].doc, 7); // sorted by document
/// assert!(cluster.to_json().starts_with(r#"{"cluster":0,"size":2,"type":"identical","members":[{"doc":7,"#));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// The cluster id: its smallest member's sentence id.
    pub id: u64,
    /// What kind of reuse it is ([`classify::classify`]).
    pub kind: ClusterType,
    /// Its members, sorted by `(doc, idx, id)`.
    pub members: Vec<Member>,
}

impl Cluster {
    /// The cluster `id` of `members`: sorts them by `(doc, idx, id)` (the order of the output)
    /// and classifies it. `textreuse dedup` and the Spark backend of the Python package both
    /// build clusters through this function, so their outputs are byte-identical.
    pub fn new(id: u64, mut members: Vec<Member>) -> Cluster {
        members.sort_by_key(|m| (m.doc, m.idx(), m.id));
        let kind = classify::classify(
            &members
                .iter()
                .map(|m| classify::Member {
                    doc: m.doc,
                    title: &m.title,
                    text: &m.text,
                })
                .collect::<Vec<_>>(),
        );
        Cluster { id, kind, members }
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the cluster has no member (never for clusters of a run).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Its line of `clusters.jsonl`, without the newline: `{"cluster", "size", "type",
    /// "members": [{"doc", "title", "idx", "text"}, ...]}`.
    pub fn to_json(&self) -> String {
        let out = OutCluster {
            cluster: self.id,
            size: self.members.len(),
            kind: self.kind.as_str(),
            members: self
                .members
                .iter()
                .map(|m| OutMember {
                    doc: m.doc,
                    title: &m.title,
                    idx: m.idx(),
                    text: &m.text,
                })
                .collect(),
        };
        serde_json::to_string(&out).expect("clusters serialize (strings and integers)")
    }
}

/// Stage 7's test: whether the normalized Levenshtein distance of two sentences (as written, in
/// chars; [`strsim::normalized_levenshtein`]) is at most `max_edit`. The Spark backend of the
/// Python package calls this too, so both paths keep exactly the same pairs.
///
/// ```
/// use textreuse_dedup::within_edit_distance;
///
/// // One substitution in 10 chars: distance 0.1.
/// assert!(within_edit_distance("abcdefghij", "abcdefghiX", 0.1));
/// assert!(!within_edit_distance("abcdefghij", "abcdefghiX", 0.05));
/// ```
pub fn within_edit_distance(a: &str, b: &str, max_edit: f64) -> bool {
    1.0 - strsim::normalized_levenshtein(a, b) <= max_edit
}

/// One clustered sentence in `clusters.jsonl`.
#[derive(Serialize)]
struct OutMember<'a> {
    doc: u64,
    title: &'a str,
    idx: u32,
    text: &'a str,
}

#[derive(Serialize)]
struct OutCluster<'a> {
    cluster: u64,
    size: usize,
    #[serde(rename = "type")]
    kind: &'static str,
    members: Vec<OutMember<'a>>,
}
