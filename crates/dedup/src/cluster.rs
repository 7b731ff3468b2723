//! A cluster as a value: its members (with their text) and its type, and its `clusters.jsonl`
//! line.
use serde::Serialize;

use crate::classify::{self, ClusterType, Evidence, Typing};
use textreuse_corpus::{DocId, Origin};
use textreuse_minhash::TextSigner;
use textreuse_shingle::{dedup_fingerprints, sorted_jaccard};

/// Which member of a cluster is kept when the others are dropped as duplicates
/// (`duplicates.jsonl`, `--write-deduplicated`); ties go to the first seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Keep {
    /// The first seen: the earliest in input order (input position, then unit index).
    #[default]
    First,
    /// The earliest timestamp (dump revisions); members without one come after those with one.
    Earliest,
    /// The longest text (in characters).
    Longest,
}

impl Keep {
    /// Its name (`first`, `earliest`, `longest`), as in `stats.json` and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Keep::First => "first",
            Keep::Earliest => "earliest",
            Keep::Longest => "longest",
        }
    }

    /// The index in `members` of the member this rule keeps.
    pub fn pick(self, members: &[Member]) -> usize {
        let first = |m: &Member| (m.seq(), m.idx());
        let best = match self {
            Keep::First => members.iter().enumerate().min_by_key(|(_, m)| first(m)),
            Keep::Earliest => members.iter().enumerate().min_by_key(|(_, m)| {
                (
                    m.origin.timestamp.is_none(),
                    m.origin.timestamp.as_deref(),
                    first(m),
                )
            }),
            Keep::Longest => members
                .iter()
                .enumerate()
                .min_by_key(|(_, m)| (std::cmp::Reverse(m.end - m.start), first(m))),
        };
        best.map_or(0, |(i, _)| i)
    }
}

/// One unit (sentence, paragraph or document) of a [`Cluster`], with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The unit id, `seq << 32 | idx` ([`sentence_id`](textreuse_shingle::units::sentence_id)): `seq`
    /// is the document's position in the input, `idx` the unit's index in it.
    pub id: u64,
    /// The document id, as the input wrote it.
    pub doc: DocId,
    /// The document title.
    pub title: String,
    /// The unit's text, as written.
    pub text: String,
    /// The input, record, revision and timestamp of the document.
    pub origin: Origin,
    /// The unit's start in the document text, in characters (Unicode scalar values, so
    /// Python's `text[start:end]` is the unit).
    pub start: u64,
    /// The unit's end (exclusive), in characters.
    pub end: u64,
    /// The estimated Jaccard similarity to the cluster's representative: the fraction of equal
    /// minhashes of the two signatures (1 for the representative). `None` until the engine
    /// fills it in.
    pub similarity: Option<f64>,
    /// The exact Jaccard similarity of the shingle sets to the representative's, when the run
    /// verifies ([`DedupBuilder::verify`](crate::DedupBuilder::verify)).
    pub jaccard: Option<f64>,
}

impl Member {
    /// A member with no origin, offsets or similarities (for tests and programs that build
    /// clusters by hand).
    pub fn new(
        id: u64,
        doc: impl Into<DocId>,
        title: impl Into<String>,
        text: impl Into<String>,
    ) -> Member {
        let text = text.into();
        Member {
            id,
            doc: doc.into(),
            title: title.into(),
            end: text.chars().count() as u64,
            text,
            origin: Origin::default(),
            start: 0,
            similarity: None,
            jaccard: None,
        }
    }

    /// The unit's index among all units of its document (the low 32 bits of the id).
    pub fn idx(&self) -> u32 {
        self.id as u32
    }

    /// The document's position in the input (the high 32 bits of the id).
    pub fn seq(&self) -> u32 {
        (self.id >> 32) as u32
    }
}

/// A cluster of near-duplicate units: what a [`Sink`](crate::Sink) receives.
///
/// ```
/// use textreuse_dedup::{Cluster, ClusterType, Member};
///
/// let member = |id: u64, doc: u64| Member::new(id, doc, format!("Page {doc}"), "The same sentence.");
/// let cluster = Cluster::new(0, vec![member(1 << 32, 9), member(0, 7)]);
/// assert_eq!(cluster.kind, ClusterType::Identical);
/// assert_eq!(cluster.members[0].doc, 7); // sorted by document
/// assert!(cluster.to_json().starts_with(
///     r#"{"cluster":0,"size":2,"type":"identical","confidence":1.0,"representative":0,"rule":"same_text","rule_type":"identical","members":[{"doc":7,"#
/// ));
///
/// // A near-duplicate: its groups and what differs between them. The rules call a figure
/// // changed within one page factual drift; the model, fitted to labelled clusters where such
/// // sentences were mostly a list's entries, a template.
/// let entries = Cluster::new(1, vec![
///     Member::new(0, 3, "Albedo", "The albedo of the Earth was 0.30 in the survey."),
///     Member::new(1, 3, "Albedo", "The albedo of the Earth was 0.29 in the survey."),
/// ]);
/// assert_eq!((entries.kind, entries.evidence.rule_type), (ClusterType::Template, ClusterType::FactualDrift));
/// assert!(entries.to_json().contains(
///     r#""rule":"same_article","rule_type":"factual_drift","groups":[[1],[0]],"differences":[{"kind":"number","members":[1,0],"a":"0.29","b":"0.30"}]"#
/// ));
///
/// // The same change between two articles on one subject: factual drift.
/// let drift = Cluster::new(2, vec![
///     Member::new(0, 3, "Bulgaria", "In 1910 Bulgaria had a population of 7 million people."),
///     Member::new(1 << 32, 4, "History of Bulgaria", "In 1910 Bulgaria had a population of 4.5 million people."),
/// ]);
/// assert_eq!(drift.kind, ClusterType::FactualDrift);
/// assert!(drift.confidence > 0.5);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// The cluster id: its smallest member's unit id.
    pub id: u64,
    /// What kind of reuse it is ([`classify::type_cluster`]).
    pub kind: ClusterType,
    /// The probability of `kind` by the fitted model, in `0..=1` (1 for a cluster of one
    /// folded text, identical by the rules alone).
    pub confidence: f64,
    /// Why: the rule, the groups of identical members, the differences between groups.
    pub evidence: Evidence,
    /// Its members, sorted by `(doc, idx, id)`.
    pub members: Vec<Member>,
    /// The index in `members` of the one kept when the others are dropped as duplicates
    /// ([`Keep`](crate::Keep); 0 until the engine picks it).
    pub representative: usize,
    /// With verification ([`DedupBuilder::verify`](crate::DedupBuilder::verify)): members whose
    /// exact [`Member::jaccard`] is below this are not duplicates of the representative.
    pub min_jaccard: Option<f64>,
}

impl Cluster {
    /// The cluster `id` of `members`: sorts them by `(doc, idx, id)` (the order of the output)
    /// and classifies it. `textreuse dedup` and the Spark backend of the Python package both
    /// build clusters through this function, so their outputs are byte-identical.
    pub fn new(id: u64, mut members: Vec<Member>) -> Cluster {
        members.sort_by(|a, b| (&a.doc, a.idx(), a.id).cmp(&(&b.doc, b.idx(), b.id)));
        // Sorted by document: a new document key wherever the id changes.
        let mut keys: Vec<u64> = Vec::with_capacity(members.len());
        for (i, m) in members.iter().enumerate() {
            keys.push(match keys.last() {
                Some(&k) if members[i - 1].doc == m.doc => k,
                Some(&k) => k + 1,
                None => 0,
            });
        }
        Cluster::typed(id, members, &keys)
    }

    /// The cluster `id` of `members` in the order given (for programs that type their own
    /// groups of sentences: the evidence's member indices are theirs). Members with equal
    /// document ids are one article to the classifier, as are members with equal titles.
    ///
    /// ```
    /// use textreuse_dedup::{Cluster, ClusterType, Member};
    ///
    /// let c = Cluster::in_order(0, vec![
    ///     Member::new(0, "b", "History of Bulgaria", "In 1910 Bulgaria had 4.5 million people."),
    ///     Member::new(1, "a", "Bulgaria", "In 1910 Bulgaria had 7 million people."),
    /// ]);
    /// assert_eq!((c.kind, c.members[0].text.contains("4.5")), (ClusterType::FactualDrift, true));
    /// ```
    pub fn in_order(id: u64, members: Vec<Member>) -> Cluster {
        // The classifier's document keys: the distinct document ids, numbered.
        let mut keys = Vec::with_capacity(members.len());
        let mut seen: ahash::AHashMap<&DocId, u64> = ahash::AHashMap::new();
        for (i, m) in members.iter().enumerate() {
            let key = if i > 0 && members[i - 1].doc == m.doc {
                keys[i - 1]
            } else {
                let next = seen.len() as u64;
                *seen.entry(&m.doc).or_insert(next)
            };
            keys.push(key);
        }
        Cluster::typed(id, members, &keys)
    }

    /// Classifies `members` whose document keys are `keys` (equal for members of one
    /// document).
    fn typed(id: u64, members: Vec<Member>, keys: &[u64]) -> Cluster {
        let Typing {
            kind,
            confidence,
            evidence,
        } = classify::type_cluster(
            &members
                .iter()
                .zip(keys)
                .map(|(m, &doc)| classify::Member {
                    doc,
                    position: u64::from(m.seq()),
                    title: &m.title,
                    text: &m.text,
                    // Not carried through the pipeline yet (the Spark records would need them
                    // too): siblings are told by their titles.
                    categories: &[],
                })
                .collect::<Vec<_>>(),
        );
        Cluster {
            id,
            kind,
            confidence,
            evidence,
            members,
            representative: 0,
            min_jaccard: None,
        }
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the cluster has no member (never for clusters of a run).
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The member kept when the others are dropped as duplicates.
    pub fn representative(&self) -> &Member {
        &self.members[self.representative]
    }

    /// Picks the representative by `keep` and sets each member's estimated Jaccard similarity
    /// to it (the fraction of equal minhashes of `signer`); with `verify = Some(t)` also the
    /// exact Jaccard similarity of the normalized shingle sets, members below `t` then not
    /// counting as [duplicates](Cluster::duplicates). The engine and the Spark backend both
    /// call this, with the run's signer.
    pub fn score(&mut self, keep: Keep, signer: &mut TextSigner<'_>, verify: Option<f64>) {
        self.representative = keep.pick(&self.members);
        let rep = &self.members[self.representative];
        let rep_mins = signer.minhashes(&rep.text).map(<[u64]>::to_vec);
        let rep_set = verify.map(|_| shingle_set(signer, &rep.text));
        for i in 0..self.members.len() {
            // A copy of the representative's text (most members of most clusters) is similar
            // 1 without signing it again.
            let copy = self.members[i].text == self.members[self.representative].text;
            let m = &mut self.members[i];
            if copy && rep_mins.is_some() {
                m.similarity = Some(1.0);
                m.jaccard = rep_set.as_ref().map(|_| 1.0);
                continue;
            }
            m.similarity = Some(match (&rep_mins, signer.minhashes(&m.text)) {
                (Some(a), Some(b)) => {
                    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
                }
                _ => 0.0,
            });
            m.jaccard = rep_set
                .as_ref()
                .map(|a| sorted_jaccard(a, &shingle_set(signer, &m.text)));
        }
        self.min_jaccard = verify;
    }

    /// The members that are duplicates of the representative: every other member, except,
    /// with verification, those whose exact Jaccard is below [`Cluster::min_jaccard`].
    pub fn duplicates(&self) -> impl Iterator<Item = &Member> {
        self.members.iter().enumerate().filter_map(move |(i, m)| {
            let below = match (self.min_jaccard, m.jaccard) {
                (Some(min), Some(j)) => j < min,
                _ => false,
            };
            (i != self.representative && !below).then_some(m)
        })
    }

    /// Its lines of `duplicates.jsonl`, each ending in a newline, one per
    /// [duplicate](Cluster::duplicates): `{"doc", "source", "record", "idx", "duplicate_of":
    /// {"doc", "source", "record", "idx"}, "similarity", "jaccard", "cluster"}` (fields without
    /// a value left out). Empty when the cluster has no duplicate.
    pub fn duplicates_json(&self) -> String {
        let mut out = Vec::new();
        self.write_duplicates_json(&mut out);
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// Appends [`Cluster::duplicates_json`] to `out` (a buffer reused across clusters).
    pub fn write_duplicates_json(&self, out: &mut Vec<u8>) {
        let rep = self.representative();
        for m in self.duplicates() {
            let line = OutDuplicate {
                doc: &m.doc,
                source: m.origin.source.as_deref(),
                record: m.origin.record,
                idx: m.idx(),
                duplicate_of: OutPlace::of(rep),
                similarity: m.similarity,
                jaccard: m.jaccard,
                cluster: self.id,
            };
            serde_json::to_writer(&mut *out, &line).expect("duplicates serialize");
            out.push(b'\n');
        }
    }

    /// Its line of `clusters.jsonl`, without the newline: `{"cluster", "size", "type",
    /// "confidence", "representative", "rule", "rule_type", "groups", "differences", "members": [{"doc", "title", "idx", "text", "source", "record",
    /// "revision", "timestamp", "url", "start", "end", "similarity", "jaccard"}, ...]}`; fields without a
    /// value (no source, no revision, no similarity) are left out.
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        self.write_json(&mut out);
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// Appends [`Cluster::to_json`] to `out` (a buffer reused across clusters), without the
    /// newline.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        let line = OutCluster {
            cluster: self.id,
            size: self.members.len(),
            kind: self.kind.as_str(),
            confidence: (self.confidence * 1000.0).round() / 1000.0,
            representative: self.representative,
            rule: self.evidence.rule.as_str(),
            rule_type: self.evidence.rule_type.as_str(),
            groups: &self.evidence.groups,
            differences: &self.evidence.differences,
            members: OutMembers(&self.members),
        };
        serde_json::to_writer(out, &line).expect("clusters serialize (strings and numbers)");
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

/// One member in `clusters.jsonl`.
#[derive(Serialize)]
struct OutMember<'a> {
    doc: &'a DocId,
    title: &'a str,
    idx: u32,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    revision: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    start: u64,
    end: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    jaccard: Option<f64>,
}

#[derive(Serialize)]
struct OutCluster<'a> {
    cluster: u64,
    size: usize,
    #[serde(rename = "type")]
    kind: &'static str,
    confidence: f64,
    representative: usize,
    rule: &'static str,
    rule_type: &'static str,
    /// Left out for one group (every member the same text): it would list every member.
    #[serde(skip_serializing_if = "one_group")]
    groups: &'a [Vec<usize>],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    differences: &'a [classify::Difference],
    members: OutMembers<'a>,
}

/// The members of a cluster, serialized one after the other (without collecting them).
struct OutMembers<'a>(&'a [Member]);

impl Serialize for OutMembers<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|m| OutMember {
            doc: &m.doc,
            title: &m.title,
            idx: m.idx(),
            text: &m.text,
            source: m.origin.source.as_deref(),
            record: m.origin.record,
            revision: m.origin.revision,
            timestamp: m.origin.timestamp.as_deref(),
            url: m.origin.url.as_deref(),
            start: m.start,
            end: m.end,
            similarity: m.similarity,
            jaccard: m.jaccard,
        }))
    }
}

fn one_group(groups: &&[Vec<usize>]) -> bool {
    groups.len() <= 1
}

/// The distinct normalized shingle fingerprints of `text`, sorted.
fn shingle_set(signer: &mut TextSigner<'_>, text: &str) -> Vec<u64> {
    let mut set = signer.shingles(text).clone();
    dedup_fingerprints(&mut set);
    set
}

/// Where a unit is, in `duplicates.jsonl`.
#[derive(Serialize)]
struct OutPlace<'a> {
    doc: &'a DocId,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<u64>,
    idx: u32,
}

impl<'a> OutPlace<'a> {
    fn of(m: &'a Member) -> OutPlace<'a> {
        OutPlace {
            doc: &m.doc,
            source: m.origin.source.as_deref(),
            record: m.origin.record,
            idx: m.idx(),
        }
    }
}

#[derive(Serialize)]
struct OutDuplicate<'a> {
    doc: &'a DocId,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<u64>,
    idx: u32,
    duplicate_of: OutPlace<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    jaccard: Option<f64>,
    cluster: u64,
}
