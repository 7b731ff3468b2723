//! Stage 8: what kind of reuse a cluster of near-duplicate sentences is.
//!
//! The rules, applied in order to the members' texts (compared word by word after lowercasing,
//! with punctuation split off):
//!
//! 1. **identical**: every member has the same text once case and whitespace are normalized.
//! 2. **reference**: the text looks like a citation (at least two of: a year in parentheses or
//!    after a comma, "retrieved", "isbn", "doi", "pp.", "et al", "vol.", "press", "journal",
//!    a URL) — the research's 0.3 % of citation fragments.
//! 3. The *difference* is the multiset of words that are not shared between the first member and
//!    each other member (by position-free word counts). A difference word is *factual* when it
//!    contains a digit or is capitalized in the original text other than as the first word of the
//!    sentence (a number, a name, a date).
//! 4. **template**: the members come from more than one article and the difference is not empty
//!    and contains factual words only ("X is a village in Y", "List of birds of Zambia" /
//!    "of Tanzania").
//! 5. **factual drift**: all members come from one article (same document id or same title, e.g.
//!    two revisions of a page that may have been renamed) and the difference contains a factual
//!    word.
//! 6. **copyedit**: the difference has no factual word (a wording or spelling change), and is
//!    small: at most a third of the words of the shorter member.
//! 7. **other**: everything else (a template with wording changes, larger rewrites).
//!
//! The hand-labelled research sample was 45.3 % identical, 30.2 % templates, 13.5 % copyediting,
//! 5.8 % factual drift, 0.3 % references, 2.9 % other.
use std::collections::HashMap;

/// The kind of a cluster, written as `type` in `clusters.jsonl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClusterType {
    /// Same text after case and whitespace normalization.
    Identical,
    /// Same frame, different names or numbers, across articles.
    Template,
    /// A small wording change without new names or numbers.
    Copyedit,
    /// The same sentence about the same subject with different numbers or names.
    FactualDrift,
    /// Citation-like text.
    Reference,
    /// None of the above.
    Other,
}

impl ClusterType {
    /// Every type, in the order used for counts.
    pub const ALL: [ClusterType; 6] = [
        ClusterType::Identical,
        ClusterType::Template,
        ClusterType::Copyedit,
        ClusterType::FactualDrift,
        ClusterType::Reference,
        ClusterType::Other,
    ];

    /// The name used in the outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            ClusterType::Identical => "identical",
            ClusterType::Template => "template",
            ClusterType::Copyedit => "copyedit",
            ClusterType::FactualDrift => "factual_drift",
            ClusterType::Reference => "reference",
            ClusterType::Other => "other",
        }
    }
}

/// One member as the classifier sees it.
#[derive(Clone, Copy, Debug)]
pub struct Member<'a> {
    /// The document id (members with equal ids or titles are "the same subject").
    pub doc: u64,
    /// The article title.
    pub title: &'a str,
    /// The sentence text.
    pub text: &'a str,
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
        .filter(|w| !w.is_empty())
}

fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Words with a flag: a digit, or a capital letter anywhere but on the sentence's first word.
fn flagged_words(text: &str) -> impl Iterator<Item = (&str, bool)> {
    words(text).enumerate().map(|(i, w)| {
        let factual = w.chars().any(|c| c.is_numeric())
            || (i > 0 && w.chars().next().is_some_and(char::is_uppercase));
        (w, factual)
    })
}

fn looks_like_reference(text: &str) -> bool {
    let lower = text.to_lowercase();
    let markers = [
        "retrieved",
        "isbn",
        "doi",
        "pp.",
        "et al",
        "vol.",
        "press",
        "journal",
        "http",
    ];
    let mut score = markers.iter().filter(|m| lower.contains(*m)).count();
    let bytes = text.as_bytes();
    let year_in_parens = bytes
        .windows(6)
        .any(|w| w[0] == b'(' && w[5] == b')' && w[1..5].iter().all(u8::is_ascii_digit));
    score += year_in_parens as usize;
    score >= 2
}

/// Word-count difference between two texts: for each word (compared lowercased) counted more
/// often in one text than the other, whether it is factual where it occurs.
fn difference(a: &str, b: &str) -> Vec<bool> {
    // lowercased word -> (count in a minus count in b, factual in a, factual in b)
    let mut counts: HashMap<String, (i32, bool, bool)> = HashMap::new();
    for (w, factual) in flagged_words(a) {
        let e = counts.entry(w.to_lowercase()).or_default();
        e.0 += 1;
        e.1 |= factual;
    }
    for (w, factual) in flagged_words(b) {
        let e = counts.entry(w.to_lowercase()).or_default();
        e.0 -= 1;
        e.2 |= factual;
    }
    let mut diff = Vec::new();
    for (count, in_a, in_b) in counts.into_values() {
        for _ in 0..count.unsigned_abs() {
            diff.push(if count > 0 { in_a } else { in_b });
        }
    }
    diff
}

/// Classifies a cluster (at least one member).
pub fn classify(members: &[Member<'_>]) -> ClusterType {
    let Some(first) = members.first() else {
        return ClusterType::Other;
    };
    let base = normalized(first.text);
    if members.iter().all(|m| normalized(m.text) == base) {
        return ClusterType::Identical;
    }
    if members.iter().all(|m| looks_like_reference(m.text)) {
        return ClusterType::Reference;
    }
    let one_article = members
        .iter()
        .all(|m| m.doc == first.doc || m.title == first.title);
    let mut any_difference = false;
    let mut any_factual = false;
    let mut all_factual = true;
    let mut small = true;
    for m in &members[1..] {
        let diff = difference(first.text, m.text);
        if diff.is_empty() {
            continue;
        }
        any_difference = true;
        let factual = diff.iter().filter(|&&f| f).count();
        any_factual |= factual > 0;
        all_factual &= factual == diff.len();
        let shorter = words(first.text).count().min(words(m.text).count()).max(1);
        small &= diff.len() * 3 <= shorter;
    }
    if !one_article && any_difference && all_factual {
        ClusterType::Template
    } else if one_article && any_factual {
        ClusterType::FactualDrift
    } else if !any_factual && small {
        ClusterType::Copyedit
    } else {
        ClusterType::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m<'a>(title: &'a str, text: &'a str) -> Member<'a> {
        let doc = title.len() as u64;
        Member { doc, title, text }
    }

    #[test]
    fn the_rules() {
        assert_eq!(
            classify(&[m("A", "The cat sat."), m("B", "the  cat sat.")]),
            ClusterType::Identical
        );
        assert_eq!(
            classify(&[
                m(
                    "Zambia birds",
                    "This is a list of the bird species recorded in Zambia."
                ),
                m(
                    "Tanzania birds",
                    "This is a list of the bird species recorded in Tanzania."
                ),
            ]),
            ClusterType::Template
        );
        assert_eq!(
            classify(&[
                m(
                    "Albedo",
                    "The albedo of the Earth was 0.30 in the survey of the year."
                ),
                m(
                    "Albedo",
                    "The albedo of the Earth was 0.29 in the survey of the year."
                ),
            ]),
            ClusterType::FactualDrift
        );
        assert_eq!(
            classify(&[
                m(
                    "Autism",
                    "It is a disorder that is characterized by impaired social skills."
                ),
                m(
                    "Autism",
                    "It is a disorder that is characterised by impaired social skills."
                ),
            ]),
            ClusterType::Copyedit
        );
        assert_eq!(
            classify(&[
                m(
                    "A",
                    "Smith, J. (2001). A history of it. Oxford University Press. ISBN 1."
                ),
                m(
                    "B",
                    "Smith, J. (2002). A history of it. Oxford University Press. ISBN 2."
                ),
            ]),
            ClusterType::Reference
        );
        // A capital on the first word is not a name.
        assert_eq!(
            classify(&[
                m(
                    "Anarchism",
                    "Such a distinction reverberates in subversive religious ideas."
                ),
                m(
                    "Anarchism",
                    "But such a distinction reverberates in subversive religious ideas."
                ),
            ]),
            ClusterType::Copyedit
        );
        // A renamed page is still one article.
        let a = Member {
            doc: 324,
            title: "Academy Awards",
            text: "The mold was cast in 1928.",
        };
        let b = Member {
            doc: 324,
            title: "Academy Award",
            text: "The mold was cast in 1929.",
        };
        assert_eq!(classify(&[a, b]), ClusterType::FactualDrift);
        assert_eq!(
            classify(&[
                m("A", "one two three four five six"),
                m("B", "one two seven eight nine ten"),
            ]),
            ClusterType::Other
        );
    }
}
