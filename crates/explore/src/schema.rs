//! What the explorer reads from each output file: its tables, their columns, and how one JSON
//! line becomes a row of them.
use std::borrow::Cow;

use serde::Deserialize;

/// A JSON Lines output the explorer can open, one row per line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    /// `reuse.jsonl` of `textreuse reuse`: one reuse case (two aligned passages) per line.
    Reuse,
    /// `clusters.jsonl` of `textreuse dedup`: one cluster of near-duplicate units per line.
    Clusters,
    /// `contradictions.jsonl` of `textreuse dedup`: one factual-drift cluster's conflicting
    /// facts per line.
    Contradictions,
}

impl Table {
    /// Every table, in the order the app lists them.
    pub const ALL: [Table; 3] = [Table::Reuse, Table::Clusters, Table::Contradictions];

    /// The table's name in URLs and the API (`reuse`, `clusters`, `contradictions`).
    pub fn name(self) -> &'static str {
        match self {
            Table::Reuse => "reuse",
            Table::Clusters => "clusters",
            Table::Contradictions => "contradictions",
        }
    }

    /// The file of an output directory the table is read from.
    pub fn file_name(self) -> &'static str {
        match self {
            Table::Reuse => "reuse.jsonl",
            Table::Clusters => "clusters.jsonl",
            Table::Contradictions => "contradictions.jsonl",
        }
    }

    /// The table named `name`, if any.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The table's columns, in the order of their bytes in a row.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Reuse => REUSE_COLUMNS,
            Table::Clusters => CLUSTERS_COLUMNS,
            Table::Contradictions => CONTRADICTIONS_COLUMNS,
        }
    }

    /// Parses one line of the table's file into `row`'s values (in [`Table::columns`] order;
    /// categories as their text) and the titles the row involves.
    pub(crate) fn parse<'a>(self, line: &'a [u8], row: &mut Parsed<'a>) -> Result<(), String> {
        row.clear();
        match self {
            Table::Reuse => {
                let case: ReuseLine<'a> =
                    serde_json::from_slice(line).map_err(|e| e.to_string())?;
                row.category(0, case.kind.unwrap_or(Cow::Borrowed("")));
                for x in [
                    case.score,
                    case.jaccard_2,
                    case.jaccard_5,
                    case.jaccard_10,
                    case.jaccard_15,
                    case.entity_jaccard,
                    case.suspicious_share,
                    case.source_share,
                ] {
                    row.values.push(Value::Real(x.unwrap_or(f64::NAN)));
                }
                for n in [
                    case.suspicious_words,
                    case.source_words,
                    Some(case.suspicious_length),
                    Some(case.source_length),
                ] {
                    row.values.push(Value::Count(count(n)));
                }
                for doc in [&case.suspicious, &case.source] {
                    row.website(doc.url.as_deref());
                }
                row.titles.push(case.suspicious.title);
                row.titles.push(case.source.title);
                row.dedup_websites();
            }
            Table::Clusters => {
                let cluster: ClusterLine<'a> =
                    serde_json::from_slice(line).map_err(|e| e.to_string())?;
                row.values.push(Value::Id(cluster.cluster));
                // Files written before the model typed clusters: the rules' type is `type`.
                let rule_type = cluster.rule_type.unwrap_or_else(|| cluster.kind.clone());
                row.category(1, cluster.kind);
                row.category(2, cluster.rule.unwrap_or(Cow::Borrowed("")));
                row.category(3, rule_type);
                row.values
                    .push(Value::Real(cluster.confidence.unwrap_or(f64::NAN)));
                for m in &cluster.members {
                    row.titles.push(m.title.clone());
                    row.website(m.url.as_deref());
                }
                row.dedup_titles();
                row.dedup_websites();
                row.values.push(Value::Count(count(Some(cluster.size))));
                row.values.push(Value::Count(row.titles.len() as u32));
                row.values
                    .push(Value::Count(count(Some(cluster.differences.len() as u64))));
                let min = cluster
                    .members
                    .iter()
                    .filter_map(|m| m.similarity)
                    .fold(f64::NAN, f64::min);
                row.values.push(Value::Real(min));
            }
            Table::Contradictions => {
                let c: ContradictionLine<'a> =
                    serde_json::from_slice(line).map_err(|e| e.to_string())?;
                row.values.push(Value::Id(c.cluster));
                row.category(1, c.rule.unwrap_or(Cow::Borrowed("")));
                row.values.push(Value::Category(Vec::new()));
                for fact in &c.facts {
                    row.category(2, fact.kind.clone());
                }
                for s in &c.statements {
                    row.titles.push(s.title.clone());
                    row.website(s.url.as_deref());
                }
                row.dedup_titles();
                row.dedup_websites();
                row.values
                    .push(Value::Real(c.confidence.unwrap_or(f64::NAN)));
                row.values
                    .push(Value::Count(count(Some(c.facts.len() as u64))));
                row.values
                    .push(Value::Count(count(Some(c.statements.len() as u64))));
                row.values.push(Value::Count(row.titles.len() as u32));
            }
        }
        Ok(())
    }
}

use Kind::{Category, Count, Id, Real};

const REUSE_COLUMNS: &[Column] = &[
    Column::new("kind", Category, "class of the case"),
    Column::new("score", Real, "alignment score"),
    Column::new("jaccard_2", Real, "word 2-gram Jaccard of the passages"),
    Column::new("jaccard_5", Real, "word 5-gram Jaccard"),
    Column::new("jaccard_10", Real, "word 10-gram Jaccard"),
    Column::new("jaccard_15", Real, "word 15-gram Jaccard"),
    Column::new("entity_jaccard", Real, "named-entity Jaccard"),
    Column::new(
        "suspicious_share",
        Real,
        "share of the suspicious document reused",
    ),
    Column::new("source_share", Real, "share of the source document reused"),
    Column::new("suspicious_words", Count, "words of the suspicious passage"),
    Column::new("source_words", Count, "words of the source passage"),
    Column::new(
        "suspicious_length",
        Count,
        "characters of the suspicious passage",
    ),
    Column::new("source_length", Count, "characters of the source passage"),
];

const CLUSTERS_COLUMNS: &[Column] = &[
    Column::new("cluster", Id, "the cluster's id"),
    Column::new("type", Category, "type of the cluster"),
    Column::new("rule", Category, "the rule that fired on its evidence"),
    Column::new("rule_type", Category, "the type the rules alone give"),
    Column::new(
        "confidence",
        Real,
        "probability of its type by the fitted model",
    ),
    Column::new("size", Count, "members"),
    Column::new(
        "articles",
        Count,
        "distinct article titles among the members",
    ),
    Column::new("differences", Count, "differing facts or words recorded"),
    Column::new(
        "min_similarity",
        Real,
        "lowest member similarity to the representative",
    ),
];

const CONTRADICTIONS_COLUMNS: &[Column] = &[
    Column::new("cluster", Id, "the factual-drift cluster's id"),
    Column::new("rule", Category, "same article or across articles"),
    Column::new("fact", Category, "kinds of the conflicting facts"),
    Column::new("confidence", Real, "confidence of the contradiction"),
    Column::new("facts", Count, "conflicting facts"),
    Column::new("statements", Count, "statements"),
    Column::new("articles", Count, "distinct article titles"),
];

fn count(n: Option<u64>) -> u32 {
    n.map_or(u32::MAX, |n| n.min(u32::MAX as u64 - 1) as u32)
}

/// A column of a table: its name in filters and the API, its kind, and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The name in filters (`jaccard_10.max=0.1`) and in the API's schema.
    pub name: &'static str,
    /// How the column is stored and filtered.
    pub kind: Kind,
    /// One line for people.
    pub about: &'static str,
}

impl Column {
    const fn new(name: &'static str, kind: Kind, about: &'static str) -> Column {
        Column { name, kind, about }
    }

    /// Bytes of the column in a row.
    pub(crate) fn width(self) -> usize {
        match self.kind {
            Kind::Real | Kind::Id => 8,
            Kind::Count | Kind::Category => 4,
        }
    }
}

/// How a column is stored and filtered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A real number, kept as the output wrote it (f64); missing is NaN, which no range
    /// matches. Filtered by `name.min` and `name.max` (both inclusive).
    Real,
    /// A whole number below 2^32 - 1; missing is u32::MAX. Filtered like [`Kind::Real`].
    Count,
    /// A 64-bit id (a cluster's); filtered by `name=ID`, the row with that id.
    Id,
    /// Up to [`MAX_CATEGORIES`] distinct texts (the rest counted as `other`), as a set per row
    /// (a contradiction has several fact kinds). Filtered by `name=a,b`: rows with any of them.
    Category,
}

/// Distinct values a category column tells apart; the rest share the last one, shown as
/// [`OTHER_CATEGORY`].
pub const MAX_CATEGORIES: usize = 31;

/// The name of the category that holds every value past the first [`MAX_CATEGORIES`].
pub const OTHER_CATEGORY: &str = "(other)";

/// One parsed value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value<'a> {
    Real(f64),
    Count(u32),
    Id(u64),
    Category(Vec<Cow<'a, str>>),
}

/// One parsed line: its values in column order and its titles.
#[derive(Debug, Default)]
pub(crate) struct Parsed<'a> {
    pub(crate) values: Vec<Value<'a>>,
    pub(crate) titles: Vec<Cow<'a, str>>,
    pub(crate) websites: Vec<String>,
}

impl<'a> Parsed<'a> {
    fn clear(&mut self) {
        self.values.clear();
        self.titles.clear();
        self.websites.clear();
    }

    /// Adds the website of `url` (the web study's: its registered domain), if it has one.
    fn website(&mut self, url: Option<&str>) {
        if let Some(site) = url.and_then(textreuse_reuse::web::website) {
            self.websites.push(site);
        }
    }

    fn dedup_websites(&mut self) {
        self.websites.sort_unstable();
        self.websites.dedup();
    }

    /// Adds `value` to the category column at `index` (the columns before it are filled).
    fn category(&mut self, index: usize, value: Cow<'a, str>) {
        if self.values.len() == index {
            self.values.push(Value::Category(Vec::new()));
        }
        if let Some(Value::Category(values)) = self.values.get_mut(index)
            && !values.contains(&value)
        {
            values.push(value);
        }
    }

    fn dedup_titles(&mut self) {
        self.titles.sort_unstable();
        self.titles.dedup();
    }
}

#[derive(Deserialize)]
struct DocRef<'a> {
    #[serde(borrow, default)]
    title: Cow<'a, str>,
    #[serde(borrow, default)]
    url: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ReuseLine<'a> {
    #[serde(borrow)]
    suspicious: DocRef<'a>,
    #[serde(borrow)]
    source: DocRef<'a>,
    suspicious_length: u64,
    source_length: u64,
    score: Option<f64>,
    #[serde(borrow, default)]
    kind: Option<Cow<'a, str>>,
    jaccard_2: Option<f64>,
    jaccard_5: Option<f64>,
    jaccard_10: Option<f64>,
    jaccard_15: Option<f64>,
    entity_jaccard: Option<f64>,
    suspicious_share: Option<f64>,
    source_share: Option<f64>,
    suspicious_words: Option<u64>,
    source_words: Option<u64>,
}

#[derive(Deserialize)]
struct Member<'a> {
    #[serde(borrow, default)]
    title: Cow<'a, str>,
    #[serde(borrow, default)]
    url: Option<Cow<'a, str>>,
    similarity: Option<f64>,
}

#[derive(Deserialize)]
struct ClusterLine<'a> {
    cluster: u64,
    size: u64,
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    rule: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    rule_type: Option<Cow<'a, str>>,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    differences: Vec<serde::de::IgnoredAny>,
    #[serde(borrow)]
    members: Vec<Member<'a>>,
}

#[derive(Deserialize)]
struct Fact<'a> {
    #[serde(borrow)]
    kind: Cow<'a, str>,
}

#[derive(Deserialize)]
struct Statement<'a> {
    #[serde(borrow, default)]
    title: Cow<'a, str>,
    #[serde(borrow, default)]
    url: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ContradictionLine<'a> {
    cluster: u64,
    confidence: Option<f64>,
    #[serde(borrow, default)]
    rule: Option<Cow<'a, str>>,
    #[serde(borrow)]
    facts: Vec<Fact<'a>>,
    #[serde(borrow)]
    statements: Vec<Statement<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reuse_line_becomes_its_columns_and_both_titles() {
        let line = br#"{"suspicious":{"doc":"1","title":"Bee"},"source":{"doc":"2","title":"Wasp \"x\""},"suspicious_offset":0,"suspicious_length":300,"source_offset":5,"source_length":310,"score":0.8,"kind":"content","jaccard_2":0.5,"jaccard_5":0.4,"jaccard_10":0.3,"jaccard_15":0.2,"entity_jaccard":0.7,"suspicious_share":0.1,"source_share":0.2,"suspicious_words":50,"source_words":52}"#;
        let mut row = Parsed::default();
        Table::Reuse.parse(line, &mut row).unwrap();
        assert_eq!(row.values.len(), Table::Reuse.columns().len());
        assert_eq!(row.values[0], Value::Category(vec!["content".into()]));
        assert_eq!(row.values[4], Value::Real(0.3));
        assert_eq!(row.values[12], Value::Count(310));
        assert_eq!(row.titles, ["Bee", "Wasp \"x\""]);
    }

    #[test]
    fn a_cluster_counts_its_distinct_articles_and_lowest_similarity() {
        let line = br#"{"cluster":5,"size":3,"type":"template","rule":"frame","differences":[{"kind":"name"}],"members":[{"title":"A","similarity":1.0},{"title":"B","similarity":0.7},{"title":"A","similarity":0.9}]}"#;
        let mut row = Parsed::default();
        Table::Clusters.parse(line, &mut row).unwrap();
        assert_eq!(row.titles, ["A", "B"]);
        assert_eq!(row.values.len(), Table::Clusters.columns().len());
        assert_eq!(row.values[0], Value::Id(5));
        // Written before the model: the rules' type is the type, no confidence.
        assert_eq!(row.values[3], Value::Category(vec!["template".into()]));
        assert!(matches!(row.values[4], Value::Real(x) if x.is_nan()));
        assert_eq!(row.values[5], Value::Count(3));
        assert_eq!(row.values[6], Value::Count(2));
        assert_eq!(row.values[7], Value::Count(1));
        assert_eq!(row.values[8], Value::Real(0.7));
        let line = br#"{"cluster":5,"size":2,"type":"template","confidence":0.7,"rule":"same_article","rule_type":"factual_drift","members":[{"title":"A"},{"title":"A"}]}"#;
        let mut row = Parsed::default();
        Table::Clusters.parse(line, &mut row).unwrap();
        assert_eq!(row.values[1], Value::Category(vec!["template".into()]));
        assert_eq!(row.values[3], Value::Category(vec!["factual_drift".into()]));
        assert_eq!(row.values[4], Value::Real(0.7));
    }

    #[test]
    fn a_contradiction_keeps_every_fact_kind_once() {
        let line = br#"{"cluster":1,"confidence":0.45,"rule":"across_articles","facts":[{"kind":"number"},{"kind":"number"},{"kind":"name"}],"statements":[{"title":"X"},{"title":"Y"}]}"#;
        let mut row = Parsed::default();
        Table::Contradictions.parse(line, &mut row).unwrap();
        assert_eq!(
            row.values[2],
            Value::Category(vec!["number".into(), "name".into()])
        );
        assert_eq!(row.values[4], Value::Count(3));
        assert_eq!(row.values[6], Value::Count(2));
    }

    #[test]
    fn a_case_involves_the_websites_of_both_documents() {
        let line = br#"{"suspicious":{"title":"A","url":"https://www.example.com/x"},"source":{"title":"B","url":"https://en.wikipedia.org/wiki/B"},"suspicious_length":1,"source_length":1}"#;
        let mut row = Parsed::default();
        Table::Reuse.parse(line, &mut row).unwrap();
        assert_eq!(row.websites, ["example.com", "wikipedia.org"]);
    }

    #[test]
    fn a_line_that_is_not_the_table_is_an_error() {
        let mut row = Parsed::default();
        assert!(Table::Reuse.parse(b"{\"cluster\":1}", &mut row).is_err());
        assert!(Table::Clusters.parse(b"not json", &mut row).is_err());
    }
}
