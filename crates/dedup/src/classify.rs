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
use std::borrow::Cow;
use std::cmp::Ordering;

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
    /// A key of the member's document: equal for members of the same document (members with
    /// equal keys or titles are "the same subject"). [`Cluster::new`](crate::Cluster::new)
    /// numbers the distinct document ids of a cluster.
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

/// Writes `text` lowercased with its whitespace collapsed to single spaces into `out`.
fn normalize_into(text: &str, out: &mut String) {
    out.clear();
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().flat_map(char::to_lowercase));
    }
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

/// A word lowercased as `str::to_lowercase` does, borrowed when that changes nothing.
fn lowercase(w: &str) -> Cow<'_, str> {
    if w.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        Cow::Borrowed(w)
    } else {
        Cow::Owned(w.to_lowercase())
    }
}

/// The words of `text`, lowercased, each with its factual flag, sorted by word (so equal words
/// are adjacent).
fn sorted_words<'a>(text: &'a str, out: &mut Vec<(Cow<'a, str>, bool)>) {
    out.clear();
    out.extend(flagged_words(text).map(|(w, factual)| (lowercase(w), factual)));
    out.sort_unstable_by(|x, y| x.0.cmp(&y.0));
}

/// How many times the word at `list[*i]` occurs from there on, and whether any occurrence is
/// factual; moves `*i` past them.
fn take_group(list: &[(Cow<'_, str>, bool)], i: &mut usize) -> (usize, bool) {
    let word = &list[*i].0;
    let (mut count, mut factual) = (0, false);
    while *i < list.len() && list[*i].0 == *word {
        count += 1;
        factual |= list[*i].1;
        *i += 1;
    }
    (count, factual)
}

/// The word-count difference of two texts given as [`sorted_words`] lists: for each word
/// (compared lowercased) counted more often in one text than the other, the surplus
/// occurrences, factual when the word is factual somewhere in the text with the surplus.
/// Returns `(difference words, factual ones among them)`.
fn difference(a: &[(Cow<'_, str>, bool)], b: &[(Cow<'_, str>, bool)]) -> (usize, usize) {
    let (mut i, mut j) = (0, 0);
    let (mut len, mut factual) = (0, 0);
    while i < a.len() || j < b.len() {
        let order = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.0.cmp(&y.0),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        let (in_a, in_b) = match order {
            Ordering::Less => (take_group(a, &mut i), (0, false)),
            Ordering::Greater => ((0, false), take_group(b, &mut j)),
            Ordering::Equal => (take_group(a, &mut i), take_group(b, &mut j)),
        };
        let (surplus, is_factual) = if in_a.0 >= in_b.0 {
            (in_a.0 - in_b.0, in_a.1)
        } else {
            (in_b.0 - in_a.0, in_b.1)
        };
        len += surplus;
        if is_factual {
            factual += surplus;
        }
    }
    (len, factual)
}

/// Classifies a cluster (at least one member).
pub fn classify(members: &[Member<'_>]) -> ClusterType {
    let Some(first) = members.first() else {
        return ClusterType::Other;
    };
    let mut base = String::new();
    normalize_into(first.text, &mut base);
    let mut other = String::new();
    if members[1..].iter().all(|m| {
        m.text == first.text || {
            normalize_into(m.text, &mut other);
            other == base
        }
    }) {
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
    let mut first_words = Vec::new();
    sorted_words(first.text, &mut first_words);
    // What a member adds below depends only on its text, and a copy of the first text adds
    // nothing: look at each other text once (clusters are mostly copies).
    let mut texts: Vec<&str> = members[1..]
        .iter()
        .map(|m| m.text)
        .filter(|&t| t != first.text)
        .collect();
    texts.sort_unstable();
    texts.dedup();
    let mut words_of_m = Vec::new();
    for text in texts {
        sorted_words(text, &mut words_of_m);
        let (diff, factual) = difference(&first_words, &words_of_m);
        if diff == 0 {
            continue;
        }
        any_difference = true;
        any_factual |= factual > 0;
        all_factual &= factual == diff;
        let shorter = first_words.len().min(words_of_m.len()).max(1);
        small &= diff * 3 <= shorter;
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
    use proptest::prelude::*;

    use super::*;

    /// The first implementation (a string per normalized member, a hash map of words per
    /// member pair), kept to check that the faster one classifies every cluster the same way.
    mod reference {
        use std::collections::HashMap;

        use super::super::{ClusterType, Member, flagged_words, looks_like_reference, words};

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
        pub(super) fn classify(members: &[Member<'_>]) -> ClusterType {
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
    }

    /// A word that exercises the rules: case, digits, names, non-ASCII case mappings (final
    /// sigma, dotted capital I, sharp s), now and then a citation marker.
    fn word() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            8 => prop::sample::select(vec![
                "the", "The", "THE", "cat", "Cat", "sat", "on", "mat", "1928", "1929", "Paris",
                "İstanbul", "ΣΟΦΟΣ", "σοφος", "straße", "STRASSE", "don't", "co-op", "a", "is",
                "village", "in", "of", "and",
            ]),
            1 => prop::sample::select(vec!["retrieved", "ISBN", "(2001)", "pp.", "journal", "Press"]),
        ]
    }

    /// Words with punctuation and spacing between them (repeated words included).
    fn text() -> impl Strategy<Value = String> {
        let sep = prop::sample::select(vec![" ", " ", " ", "  ", ", ", ". ", "\n", " - "]);
        prop::collection::vec((word(), sep), 0..16)
            .prop_map(|parts| parts.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
    }

    proptest! {
        // Cheap cases; enough of them that every type comes up many times (templates are the
        // rarest, about 2% of cases).
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn same_types_as_the_reference(
            members in prop::collection::vec((0u64..3, 0u8..5, text(), word(), 0usize..20), 1..8),
        ) {
            // A member is the first text in other case and spacing, the first text with a word
            // added or changed (a template, drift or copyedit), a copy of the first text, or a
            // text of its own.
            let first = &members[0].2;
            let texts: Vec<String> = members
                .iter()
                .map(|(_, how, own, word, at)| match how {
                    0 => first.to_uppercase().replace(' ', "  "),
                    1 | 2 => {
                        let mut split: Vec<&str> = first.split(' ').collect();
                        let at = at % (split.len() + 1);
                        split.insert(at, word);
                        if *how == 2 && split.len() > 1 {
                            split.remove((at + 1) % split.len());
                        }
                        split.join(" ")
                    }
                    3 => first.clone(),
                    _ => own.clone(),
                })
                .collect();
            let titles = ["A", "B", "A"];
            let members: Vec<Member<'_>> = members
                .iter()
                .zip(&texts)
                .map(|(&(doc, ..), text)| Member { doc, title: titles[doc as usize], text })
                .collect();
            prop_assert_eq!(classify(&members), reference::classify(&members));
        }
    }

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
