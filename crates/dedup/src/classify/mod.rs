//! Stage 8: what kind of reuse a cluster of near-duplicate sentences is, by the definitions of
//! the research it reproduces (Weissman et al., "Identifying Duplicate and Contradictory
//! Information in Wikipedia"), with the evidence for it.
//!
//! Texts are compared word by word after folding case, punctuation and typographic variants
//! (dashes, quotes, apostrophes, abbreviation dots, thousands separators, number words such as
//! "sixteen" for "16"). Members with the same folded text form a **group**; a cluster of one
//! group is **identical**. Otherwise the largest group is compared with each other group (its
//! first member stands for it): the words they share in order, and the **differences** between
//! them, each of a kind ([`DifferenceKind`]):
//!
//! - *factual*: a number, date or quantity replaced by another (`number`), a name replaced
//!   (`name`: capitalized words not first in their sentence, on both sides or several on one),
//!   a negation added or dropped (`negation`), words moved across others so that the statement
//!   changes (`order`: "from green to blue" / "from blue to green");
//! - *subject*: the changed words are each member's own article title words (`subject`:
//!   "Rockville is a city ..." / "Bethesda is a ...");
//! - *non-substantive*: a pronoun for a name (`pronoun`), a spelling variant (`spelling`: at
//!   most a quarter of the letters changed counting transpositions, an abbreviation for its
//!   words, AD/CE), the items of a list reordered (`reordered`), words added or dropped or a
//!   piece spliced into a word by a broken edit (`added`), other word changes (`wording`);
//! - a long piece added or replaced at either end, or a citation run into the sentence
//!   (`fragment`, a sentence-splitting error).
//!
//! and the relation of the two groups' articles ([`Relation`]): the same article (same
//! document or title), related articles (one title holds the other's words: *Hurricane
//! Katrina* / *Hurricane Katrina disaster relief*), siblings (titles in one frame, *Garrett
//! Park, Maryland* / *Kensington, Maryland*, or a shared category), or unrelated. A pair is
//!
//! 1. **other** when it shares fewer than half the words of the longer text, or one adds a
//!    fragment;
//! 2. **template** when the changed words are the articles' own subjects, or when facts differ
//!    between sibling articles, or between unrelated articles that do not name a subject in
//!    common and differ in figures or names only (each article states its own figures in one frame: "Of the agricultural land,
//!    40.4% is used for growing crops" across municipalities);
//! 3. **factual drift** when a fact differs within one article, between related articles, or
//!    between unrelated articles that name a subject in common or differ in an order or a
//!    negation (the same subject stated with
//!    contradictory facts: "Bulgaria, a poor rural nation of 7 million people" in *History of
//!    the Balkans* and "... of 4.5 million people" in *Home front during World War I*);
//! 4. **copyedit** otherwise (non-substantive changes only).
//!
//! A cluster whose every text looks like a citation is a **reference** cluster. Otherwise the
//! cluster is a template if any pair is and no more pairs are factual drift, factual drift if
//! any pair is, copyedit if at least as many pairs are copyedits as other, and other
//! otherwise. [`Typing`] keeps the groups, the rule that decided and the differences.
//!
//! That is [`by_rules`]. [`type_cluster`], which the pipeline calls, then lets a model fitted to
//! blind-labelled clusters decide the type from that evidence ([`learned`]); the rules' own type
//! stays in [`Evidence::rule_type`].
//!
//! The hand-labelled research sample was 45.3 % identical, 30.2 % templates, 13.5 % copyediting,
//! 5.8 % factual drift, 0.3 % references, 2.9 % other.
use ahash::AHashMap;

use serde::{Deserialize, Serialize};

mod diff;
pub mod learned;
mod tokens;

use diff::{Hunk, diff};
use tokens::{Token, key, recycle, tokenize};

/// The kind of a cluster, written as `type` in `clusters.jsonl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClusterType {
    /// Same text up to case, spacing, punctuation and typographic variants.
    Identical,
    /// Same frame, the differing parts the subject (or the own figures) of each article.
    Template,
    /// Non-substantive edits: pronouns for names, spelling, reordering, words added or dropped.
    Copyedit,
    /// The same subject stated with a different fact (number, date, name, negation).
    FactualDrift,
    /// Citation-like text.
    Reference,
    /// Similar text that is not related (splitting errors, fragments).
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

    /// The type named `name` (as [`ClusterType::as_str`] writes it).
    pub fn from_name(name: &str) -> Option<ClusterType> {
        ClusterType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// One member as the classifier sees it.
#[derive(Clone, Copy, Debug)]
pub struct Member<'a> {
    /// A key of the member's document: equal for members of the same document (members with
    /// equal keys or titles are the same article). [`Cluster::new`](crate::Cluster::new)
    /// numbers the distinct document ids of a cluster.
    pub doc: u64,
    /// The document's position in the input ([`crate::Member::seq`]): members with equal
    /// `doc` and `position` come from one page, where members with equal `doc` only may be two
    /// revisions of it read from two inputs.
    pub position: u64,
    /// The article title.
    pub title: &'a str,
    /// The sentence text.
    pub text: &'a str,
    /// The page's categories (dumps), without the namespace: `Municipalities of the canton of
    /// Bern`. Empty when unknown.
    pub categories: &'a [String],
}

/// Which rule decided a cluster's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Rule {
    /// One group: the same folded text.
    SameText,
    /// Every text looks like a citation.
    Citation,
    /// Template: the changed words are each article's own title words.
    OwnSubjects,
    /// Template: facts differ between sibling articles (title frame or shared category).
    SiblingArticles,
    /// Template: facts differ between unrelated articles that name no subject in common, or
    /// two articles' entries whose keys differ ("1917 – James Rainwater, ..." / "1898 –
    /// Isidor Isaac Rabi, ...").
    PerArticleFacts,
    /// Template: one page states one frame for several things (list entries, parallel
    /// sections: "Thomas Jefferson Foundation Medal in Law ..." / "... Medal in Citizen
    /// Leadership ..."), the changed words being names or figures that label the entries
    /// ("78th Tactical Fighter Squadron" / "91st ...").
    ParallelEntries,
    /// Factual drift within one article.
    SameArticle,
    /// Factual drift between related articles (one title holds the other's words).
    RelatedArticles,
    /// Factual drift between articles that name a subject in common.
    SharedSubject,
    /// Copyedit: non-substantive changes only.
    NonSubstantive,
    /// Other: the texts share fewer than half their words.
    Unrelated,
    /// Other: one text adds a long piece at an end (a sentence-splitting error).
    Fragment,
}

impl Rule {
    /// Its name in the outputs.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::SameText => "same_text",
            Rule::Citation => "citation",
            Rule::OwnSubjects => "own_subjects",
            Rule::SiblingArticles => "sibling_articles",
            Rule::PerArticleFacts => "per_article_facts",
            Rule::ParallelEntries => "parallel_entries",
            Rule::SameArticle => "same_article",
            Rule::RelatedArticles => "related_articles",
            Rule::SharedSubject => "shared_subject",
            Rule::NonSubstantive => "non_substantive",
            Rule::Unrelated => "unrelated",
            Rule::Fragment => "fragment",
        }
    }
}

/// What kind of change a [`Difference`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DifferenceKind {
    /// A number, date or quantity changed.
    Number,
    /// A name changed (a capitalized word not first in its sentence).
    Name,
    /// A negation added or dropped.
    Negation,
    /// The changed words are the articles' own title words.
    Subject,
    /// A pronoun for a name or noun.
    Pronoun,
    /// A spelling variant (at most a quarter of the letters changed).
    Spelling,
    /// The same words in another order, as items of a list.
    Reordered,
    /// Words moved across others, changing what is said ("from green to blue" / "from blue to
    /// green").
    Order,
    /// Words added or dropped.
    Added,
    /// A long piece added at an end of the text.
    Fragment,
    /// Other changed words.
    Wording,
}

impl DifferenceKind {
    /// Whether it changes a fact (number, name, negation, order).
    pub fn is_factual(self) -> bool {
        matches!(
            self,
            DifferenceKind::Number
                | DifferenceKind::Name
                | DifferenceKind::Negation
                | DifferenceKind::Order
        )
    }
}

/// One place where two groups' texts differ: `a` in member `members[0]`'s text, `b` in
/// `members[1]`'s (either may be empty), as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// What kind of change it is.
    pub kind: DifferenceKind,
    /// The indices of the two members compared (their groups' first members).
    pub members: [usize; 2],
    /// The words of the first member's text, as written (empty for an insertion).
    pub a: String,
    /// The words of the second member's text, as written (empty for a deletion).
    pub b: String,
}

/// How the articles of two groups relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// A document or title in common.
    Same,
    /// One title holds every word of the other.
    Related,
    /// Titles in one frame (sharing words, each with its own) or a category in common.
    Siblings,
    /// None of the above.
    Unrelated,
}

/// A cluster's type with its evidence: [`type_cluster`]'s answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Typing {
    /// The type.
    pub kind: ClusterType,
    /// The model's probability of `kind`, in `0..=1` (1 for a cluster of one group, which the
    /// rules type identical without the model, and for [`by_rules`]).
    pub confidence: f64,
    /// Why.
    pub evidence: Evidence,
}

/// Why a cluster has its type: the rule that fired and the type it gave, the groups of
/// identical members and the differences between the groups.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evidence {
    /// The rule that decided the rules' type.
    pub rule: Rule,
    /// The type the rules give (the model, which decides the cluster's type, reads it through
    /// `rule`; they differ where the model overrules the rules).
    pub rule_type: ClusterType,
    /// The groups of members with the same folded text, as indices into the members, largest
    /// first (ties: by folded text); each group in member order.
    pub groups: Vec<Vec<usize>>,
    /// The differences of the compared pairs (the largest group against each other one, at
    /// most [`MAX_COMPARED`] of them), in that order.
    pub differences: Vec<Difference>,
}

/// At most this many groups are compared with the largest one (a template cluster can have
/// thousands of variants; its type shows in the first ones).
pub const MAX_COMPARED: usize = 64;

/// A pair shares fewer than this fraction of the longer text's words: other.
const MIN_SHARED: f64 = 0.5;

/// A piece added at an end of at least this fraction of the longer text: a fragment.
const FRAGMENT: f64 = 0.4;

/// Words that stand for a name.
const PRONOUNS: [&str; 20] = [
    "he", "she", "it", "they", "him", "her", "his", "hers", "its", "their", "them", "this",
    "these", "those", "we", "our", "who", "which", "that", "there",
];

const NEGATIONS: [&str; 7] = ["not", "no", "never", "nor", "neither", "without", "nt"];

/// Negated auxiliaries, as folded (apostrophes dropped: "didn't" is `didnt`).
const CONTRACTED_NEGATIONS: [&str; 16] = [
    "dont", "doesnt", "didnt", "isnt", "wasnt", "werent", "arent", "cant", "couldnt", "wont",
    "wouldnt", "hasnt", "havent", "hadnt", "shouldnt", "aint",
];

/// Whether words hold a negation ("not", "never", "didn't", ...).
fn negated(words: &[Token]) -> bool {
    words.iter().any(|t| {
        NEGATIONS.contains(&t.norm.as_str()) || CONTRACTED_NEGATIONS.contains(&t.norm.as_str())
    })
}

/// Nouns that, after "the" at the start of a sentence, name the article's own subject by its
/// class ("The species is ...", "The film was selected as ...").
const CLASS_NOUNS: [&str; 72] = [
    "species",
    "genus",
    "family",
    "film",
    "movie",
    "album",
    "song",
    "single",
    "book",
    "novel",
    "series",
    "show",
    "episode",
    "game",
    "village",
    "town",
    "city",
    "municipality",
    "commune",
    "district",
    "county",
    "parish",
    "settlement",
    "school",
    "university",
    "college",
    "company",
    "firm",
    "bank",
    "band",
    "group",
    "team",
    "club",
    "party",
    "ship",
    "vessel",
    "station",
    "church",
    "building",
    "house",
    "bridge",
    "road",
    "highway",
    "route",
    "river",
    "lake",
    "mountain",
    "island",
    "museum",
    "airport",
    "magazine",
    "newspaper",
    "journal",
    "manga",
    "plant",
    "moth",
    "snail",
    "beetle",
    "bird",
    "fish",
    "constellation",
    "star",
    "planet",
    "galaxy",
    "asteroid",
    "regiment",
    "battalion",
    "squadron",
    "division",
    "election",
    "season",
    "tournament",
];

/// Words that state a quantity without a figure.
const QUANTIFIERS: [&str; 14] = [
    "few", "many", "some", "several", "most", "all", "none", "excess", "numerous", "majority",
    "minority", "half", "fewer", "more",
];

/// Personal pronouns that, early in a sentence, stand for the article's own subject.
const SUBJECT_PRONOUNS: [&str; 8] = ["it", "he", "she", "they", "its", "his", "her", "their"];

/// Whether a sentence is about its own article's subject without naming it: a personal pronoun
/// among its first words, before any name or figure ("It lies approximately 9 kilometres east
/// of ...", "Previously she was a member of ..."), or "the" and a class noun ("The species is
/// ..."). Such sentences in two unrelated articles state each article's own facts in one
/// frame: a template, whatever names the frame holds.
fn refers_to_own_subject(text: &Text<'_>) -> bool {
    let t = &text.tokens;
    // "The species is ...", "Within the constellation's borders ..." (the tokens drop the
    // apostrophe: "constellations").
    let class_noun = |w: &str| {
        CLASS_NOUNS.contains(&w)
            || w.strip_suffix('s')
                .is_some_and(|w| CLASS_NOUNS.contains(&w))
    };
    if t.windows(2)
        .take(3)
        .any(|p| p[0].norm == "the" && class_noun(&p[1].norm))
    {
        return true;
    }
    for (i, w) in t.iter().take(4).enumerate() {
        if SUBJECT_PRONOUNS.contains(&w.norm.as_str()) {
            return true;
        }
        // "In 1997 he also received ...": a date before the pronoun.
        let dated = w.number && i > 0 && FACT_PREPOSITIONS.contains(&t[i - 1].norm.as_str());
        if w.capital || (w.number && !dated) {
            break;
        }
    }
    // "... built in 1910 it was listed on the National Register ...": a pronoun as the
    // subject of a verb, anywhere; "... awarded him the Bhatnagar Prize": as its object.
    t.windows(2).any(|p| {
        (["it", "he", "she"].contains(&p[0].norm.as_str())
            && ["is", "was", "has", "had", "lies", "became", "served"]
                .contains(&p[1].norm.as_str()))
            || (p[1].norm == "him" && p[0].norm.ends_with("ed"))
    })
}

/// Words sentences commonly start with that are no name.
const STARTERS: [&str; 48] = [
    "the",
    "a",
    "an",
    "in",
    "on",
    "at",
    "of",
    "for",
    "from",
    "by",
    "with",
    "as",
    "after",
    "before",
    "during",
    "since",
    "until",
    "when",
    "while",
    "although",
    "however",
    "it",
    "he",
    "she",
    "they",
    "this",
    "these",
    "there",
    "his",
    "her",
    "its",
    "their",
    "we",
    "i",
    "some",
    "many",
    "most",
    "all",
    "both",
    "each",
    "one",
    "two",
    "other",
    "several",
    "following",
    "according",
    "despite",
    "between",
];

/// Words that say nothing about which subject a title is about.
const STOPWORDS: [&str; 24] = [
    "the", "a", "an", "of", "in", "on", "at", "to", "for", "and", "or", "by", "with", "from",
    "list", "de", "la", "le", "du", "der", "die", "das", "van", "von",
];

/// Categories every kind of article has (maintenance and tracking categories).
fn is_maintenance_category(name: &str) -> bool {
    let lower = name.to_lowercase();
    [
        "articles",
        "pages",
        "wikipedia",
        "cs1",
        "webarchive",
        "use dmy",
        "use mdy",
        "stub",
        "dates",
        "coordinates",
        "wikidata",
        "infobox",
        "births",
        "deaths",
        "living people",
        "disambiguation",
        "commons",
        "template",
    ]
    .iter()
    .any(|m| lower.contains(m))
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
        // Bibliographies and notes: "_op.cit._, p. 159", "edited by ...", "(Volume 1)",
        // "_Proceedings of the ... Conference_".
        "op.cit",
        "op. cit",
        "ibid",
        "edited by",
        "proceedings of",
        "édition",
        "(volume",
    ];
    let mut score = markers.iter().filter(|m| lower.contains(*m)).count();
    // "In: _Abhandlungen ..._": the work a part was published in.
    score += lower.starts_with("in: ") as usize;
    // "p. 354": a page.
    score += lower.match_indices("p. ").any(|(at, _)| {
        (at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphabetic())
            && lower.as_bytes().get(at + 3).is_some_and(u8::is_ascii_digit)
    }) as usize;
    let bytes = text.as_bytes();
    let year_in_parens = bytes
        .windows(6)
        .any(|w| w[0] == b'(' && w[5] == b')' && w[1..5].iter().all(u8::is_ascii_digit));
    score += year_in_parens as usize;
    // "11 (1): 73-80": volume, issue and pages, a citation on its own.
    score += 2 * volume_issue_pages(text) as usize;
    score >= 2
}

/// Whether `text` holds "N (N): N-N" (volume, issue, pages; any dash).
fn volume_issue_pages(text: &str) -> bool {
    text.match_indices("): ").any(|(at, _)| {
        let before = &text[..at];
        let Some(open) = before.rfind('(') else {
            return false;
        };
        let issue = &before[open + 1..];
        let volume = before[..open].trim_end();
        let pages: String = text[at + 3..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || matches!(c, '-' | '–' | '—'))
            .collect();
        !issue.is_empty()
            && issue.chars().all(|c| c.is_ascii_digit())
            && volume.chars().last().is_some_and(|c| c.is_ascii_digit())
            && pages.chars().next().is_some_and(|c| c.is_ascii_digit())
            && pages.contains(['-', '–', '—'])
    })
}

/// The title's words that name its subject (stopwords left out), folded.
fn title_words(title: &str, buf: &mut Vec<Token>) -> Vec<String> {
    tokenize(title, buf);
    let mut words: Vec<String> = buf
        .iter()
        .map(|t| t.norm.clone())
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// What the classifier knows of one distinct text.
struct Text<'a> {
    text: &'a str,
    tokens: Vec<Token>,
}

impl Drop for Text<'_> {
    /// Its words' strings go back to the thread's pool for the next texts.
    fn drop(&mut self) {
        recycle(self.tokens.drain(..));
    }
}

/// How the articles of members `a` and `b` relate (`titles[i]` are member `i`'s title words).
fn relation(members: &[Member<'_>], titles: &[Vec<String>], a: usize, b: usize) -> Relation {
    let (ma, mb) = (&members[a], &members[b]);
    if ma.doc == mb.doc || ma.title == mb.title || titles[a] == titles[b] {
        return Relation::Same;
    }
    let (ta, tb) = (&titles[a], &titles[b]);
    let shared = ta.iter().filter(|w| tb.binary_search(w).is_ok()).count();
    if !ta.is_empty() && !tb.is_empty() && (shared == ta.len() || shared == tb.len()) {
        return Relation::Related;
    }
    let category = ma
        .categories
        .iter()
        .any(|c| !is_maintenance_category(c) && mb.categories.iter().any(|d| d == c));
    if shared > 0 || category {
        Relation::Siblings
    } else {
        Relation::Unrelated
    }
}

/// The verdict on one pair of groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Verdict {
    kind: ClusterType,
    rule: Rule,
}

/// Compares the texts of members `a` and `b`, appending their differences; the pair's verdict.
fn compare(
    members: &[Member<'_>],
    titles: &[Vec<String>],
    (a, ta): (usize, &Text<'_>),
    (b, tb): (usize, &Text<'_>),
    out: &mut Vec<Difference>,
) -> Verdict {
    let (hunks, shared) = diff(&ta.tokens, &tb.tokens);
    let longer = ta.tokens.len().max(tb.tokens.len()).max(1);
    let relation = relation(members, titles, a, b);
    let first = out.len();
    let moved = moved_words(&ta.tokens, &tb.tokens, &hunks);
    let order = if moved.is_empty() {
        DifferenceKind::Reordered
    } else {
        order_kind(&ta.tokens, &tb.tokens, &moved)
    };
    for h in &hunks {
        let holds_moved = ta.tokens[h.a.0..h.a.1]
            .iter()
            .chain(&tb.tokens[h.b.0..h.b.1])
            .any(|t| moved.contains(&t.norm.as_str()));
        // Words moved across others; but a hunk that names each article's own subject says
        // so first ("Greg Porter is a ..." / "Carolyn M. Squires is a ...").
        let kind = match hunk_kind(members, titles, (a, ta), (b, tb), h, longer) {
            DifferenceKind::Subject => DifferenceKind::Subject,
            _ if holds_moved => order,
            kind => kind,
        };
        let written = |t: &Text<'_>, r: (usize, usize)| {
            if r.0 == r.1 {
                String::new()
            } else {
                t.text[t.tokens[r.0].start..t.tokens[r.1 - 1].end].to_string()
            }
        };
        out.push(Difference {
            kind,
            members: [a, b],
            a: written(ta, h.a),
            b: written(tb, h.b),
        });
    }
    let kinds = &out[first..];
    let verdict = |kind, rule| Verdict { kind, rule };
    // Each article's own subject named in one frame: a template, even where one text runs on
    // into the next sentence or the frames part at an end ("Muskingum University is a private
    // university located in New Concord Ohio" / "The Valley View University is a private
    // university located in Oyibi Accra ...").
    if relation != Relation::Same && kinds.iter().any(|d| d.kind == DifferenceKind::Subject) {
        return verdict(ClusterType::Template, Rule::OwnSubjects);
    }
    let own_subjects =
        relation != Relation::Same && refers_to_own_subject(ta) && refers_to_own_subject(tb);
    if kinds.iter().any(|d| d.kind == DifferenceKind::Fragment) {
        return verdict(ClusterType::Other, Rule::Fragment);
    }
    if (shared as f64) < MIN_SHARED * longer as f64 {
        // Two articles' sentences about their own subjects, sharing a frame but few words
        // (lists of distances to different towns): each article's own facts.
        return if own_subjects && kinds.iter().any(|d| d.kind.is_factual()) {
            verdict(ClusterType::Template, Rule::PerArticleFacts)
        } else {
            verdict(ClusterType::Other, Rule::Unrelated)
        };
    }
    // Within one article, words moved to another place are a revision's rewording ("can be
    // kept by only zoos" / "can only be kept by zoos"), not a changed statement.
    let factual = |d: &&Difference| {
        d.kind.is_factual() && !(relation == Relation::Same && d.kind == DifferenceKind::Order)
    };
    // One page stating one frame for different names (list entries, parallel sections: "In
    // the 1998 election ..." / "In the 2004 election ..." is drift as often as not, a name
    // with or without a figure is an entry): the names are the entries, not a fact changed
    // between revisions.
    let one_page = members[a].doc == members[b].doc && members[a].position == members[b].position;
    if one_page
        && kinds.iter().any(|d| d.kind == DifferenceKind::Name)
        && kinds
            .iter()
            .filter(|d| factual(d))
            .all(|d| matches!(d.kind, DifferenceKind::Name | DifferenceKind::Number))
    {
        return verdict(ClusterType::Template, Rule::ParallelEntries);
    }
    // One page's entries told apart by figures that label them rather than state a fact: an
    // entry's key first in the sentence ("78th Tactical Fighter Squadron, ..." / "91st ...",
    // "2017: Art Central ..."), a number in a name ("_Episode 3_", "the 1998 Lok Sabha
    // election", "GLORY 43"), an ordinal ("the first declension" / "the third"), a code ("L₁",
    // "M-70AB3"). A figure after a preposition or before a common noun ("in 1857", "the 34
    // countries", "37mm wide") is a fact, and two of those on one page can disagree.
    if one_page
        && kinds.iter().any(|d| d.kind == DifferenceKind::Number)
        && hunks.iter().zip(kinds).all(|(h, d)| {
            !factual(&d)
                || (d.kind == DifferenceKind::Number
                    && labels_an_entry(ta, h.a)
                    && labels_an_entry(tb, h.b))
        })
    {
        return verdict(ClusterType::Template, Rule::ParallelEntries);
    }
    // The same figures in other places, between articles ("1944 – Bob O'Connor, ... (d. 2006)"
    // on *December 9* and "2006 – Bob O'Connor, ... (b. 1944)" on *September 1*): each
    // article's own arrangement of one set of facts.
    if relation != Relation::Same
        && !moved.is_empty()
        && moved.iter().all(|w| w.bytes().all(|c| c.is_ascii_digit()))
        && kinds
            .iter()
            .filter(|d| factual(d))
            .all(|d| d.kind == DifferenceKind::Order)
        && kinds.iter().any(|d| factual(&d))
    {
        return verdict(ClusterType::Template, Rule::PerArticleFacts);
    }
    // Two articles' entries of one kind, keyed by figures that label them ("1917 – James
    // Rainwater, American physicist ..." on *December 9*, "1898 – Isidor Isaac Rabi, ..." on
    // *July 29*; "The 269th episode of the series" / "The 271st episode"): each article's own
    // entry, not one fact stated two ways.
    // The entry's key first, a figure and a name, both changed: another entry ("1898 – Isidor
    // Isaac Rabi" / "1917 – James Rainwater"; the same name with another year is a changed
    // fact).
    let key = |t: &Text<'_>, r: (usize, usize)| {
        let w = &t.tokens[r.0..r.1];
        w.iter().any(|x| x.number) && w.iter().any(|x| x.upper && !x.number)
    };
    let keyed_first = hunks.first().zip(kinds.first()).is_some_and(|(h, d)| {
        h.a.0 == 0 && h.b.0 == 0 && d.kind == DifferenceKind::Number && key(ta, h.a) && key(tb, h.b)
    });
    if relation != Relation::Same
        && hunks
            .iter()
            .zip(kinds)
            .any(|(_, d)| d.kind == DifferenceKind::Number)
        && (keyed_first
            || hunks.iter().zip(kinds).all(|(h, d)| {
                !factual(&d)
                    || d.kind == DifferenceKind::Name
                    || (d.kind == DifferenceKind::Number
                        && labels_an_entry(ta, h.a)
                        && labels_an_entry(tb, h.b))
            }))
    {
        return verdict(ClusterType::Template, Rule::PerArticleFacts);
    }
    if kinds.iter().any(|d| factual(&d)) {
        return match relation {
            Relation::Same => verdict(ClusterType::FactualDrift, Rule::SameArticle),
            Relation::Related => verdict(ClusterType::FactualDrift, Rule::RelatedArticles),
            Relation::Siblings => verdict(ClusterType::Template, Rule::SiblingArticles),
            // Each sentence about its own article's subject: each article's own facts.
            Relation::Unrelated if own_subjects => {
                verdict(ClusterType::Template, Rule::PerArticleFacts)
            }
            // A name in common, or a changed order or negation (not a figure of each
            // article's own): one subject stated two ways.
            Relation::Unrelated
                if names_in_common(ta, tb, &hunks)
                    || kinds.iter().any(|d| {
                        matches!(d.kind, DifferenceKind::Order | DifferenceKind::Negation)
                    }) =>
            {
                verdict(ClusterType::FactualDrift, Rule::SharedSubject)
            }
            Relation::Unrelated => verdict(ClusterType::Template, Rule::PerArticleFacts),
        };
    }
    verdict(ClusterType::Copyedit, Rule::NonSubstantive)
}

/// Words before a figure that make it a stated fact rather than a label ("in 1857", "by 2012").
const FACT_PREPOSITIONS: [&str; 14] = [
    "in", "on", "at", "by", "from", "to", "since", "until", "till", "during", "before", "after",
    "about", "over",
];

/// Whether the figures of the words `r` of `t` label an entry (see [`compare`]): first in the
/// text, an ordinal or a code, or part of a name (a capitalized word before them, or one right
/// after them with nothing but a space between), and not after a preposition.
fn labels_an_entry(t: &Text<'_>, r: (usize, usize)) -> bool {
    let words = &t.tokens[r.0..r.1];
    let mut figures = words.iter().filter(|w| w.number).peekable();
    if figures.peek().is_none() {
        return false;
    }
    let ordinal = |w: &Token| {
        let n = w.norm.as_str();
        n.starts_with(|c: char| c.is_ascii_digit())
            && ["st", "nd", "rd", "th"].iter().any(|s| n.ends_with(s))
            && n[..n.len() - 2].bytes().all(|c| c.is_ascii_digit())
    };
    // A letter before a digit, or digits between letters: "L₁", "A1037926", "M-70AB3"; not a
    // figure with its unit ("37mm") or a currency ("Rs.631,229").
    let code = |w: &Token| {
        let (mut letters, mut digit, mut letter_after) = (0, false, false);
        for c in w.norm.chars().filter(|c| c.is_alphanumeric()) {
            if digit {
                letter_after |= c.is_alphabetic();
            } else if c.is_numeric() {
                digit = true;
            } else {
                letters += 1;
            }
        }
        digit && letters > 0 && (letters == 1 || letter_after)
    };
    if figures.all(|w| ordinal(w) || code(w)) {
        return true;
    }
    if r.0 == 0 {
        return true;
    }
    let before = &t.tokens[r.0 - 1];
    if FACT_PREPOSITIONS.contains(&before.norm.as_str()) {
        return false;
    }
    let after_adjacent = t.tokens.get(r.1).is_some_and(|next| {
        next.upper
            && t.text[words[words.len() - 1].end..next.start]
                .trim()
                .is_empty()
    });
    // A capitalized word before the figure names it ("_Episode 3_", "Election, 2004"), unless
    // it only starts the sentence ("A 2011 survey").
    let names_it = before.capital || (before.upper && !STARTERS.contains(&before.norm.as_str()));
    names_it || after_adjacent
}

/// The content words (not stopwords) that one text drops in a hunk and the other adds in
/// one: words moved to another place.
fn moved_words<'t>(a: &'t [Token], b: &'t [Token], hunks: &[Hunk]) -> Vec<&'t str> {
    let content = |t: &&'t Token| !STOPWORDS.contains(&t.norm.as_str());
    let mut dropped: Vec<&str> = Vec::new();
    let mut added: Vec<&str> = Vec::new();
    for h in hunks {
        dropped.extend(
            a[h.a.0..h.a.1]
                .iter()
                .filter(content)
                .map(|t| t.norm.as_str()),
        );
        added.extend(
            b[h.b.0..h.b.1]
                .iter()
                .filter(content)
                .map(|t| t.norm.as_str()),
        );
    }
    dropped.sort_unstable();
    dropped.dedup();
    added.sort_unstable();
    dropped.retain(|w| added.binary_search(w).is_ok());
    dropped
}

/// Words that join the items of a list, whose order says nothing.
const LIST_WORDS: [&str; 5] = ["and", "or", "nor", "as", "well"];

/// Whether moving `moved` words changes what the text says: a moved word crosses another word
/// (their order differs between the texts) across anything but a list's joining words ("green
/// to blue" / "blue to green": `Order`; "grain and timber" / "timber and grain": `Reordered`).
fn order_kind(a: &[Token], b: &[Token], moved: &[&str]) -> DifferenceKind {
    let once = |t: &[Token], w: &str| {
        let mut at = t
            .iter()
            .enumerate()
            .filter(|(_, x)| x.norm == w)
            .map(|(i, _)| i);
        match (at.next(), at.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    };
    for &w in moved {
        let (Some(wa), Some(wb)) = (once(a, w), once(b, w)) else {
            continue;
        };
        for (ua, u) in a.iter().enumerate() {
            if u.norm == w || STOPWORDS.contains(&u.norm.as_str()) {
                continue;
            }
            let Some(ub) = once(b, &u.norm) else { continue };
            if once(a, &u.norm) != Some(ua) || (wa < ua) == (wb < ub) {
                continue;
            }
            let between = &a[wa.min(ua) + 1..wa.max(ua)];
            if between.iter().any(|t| {
                !LIST_WORDS.contains(&t.norm.as_str()) && !moved.contains(&t.norm.as_str())
            }) {
                return DifferenceKind::Order;
            }
        }
    }
    DifferenceKind::Reordered
}

/// Whether the words the two texts share in order include a name (a subject both state).
fn names_in_common(ta: &Text<'_>, tb: &Text<'_>, hunks: &[Hunk]) -> bool {
    // The shared words of `a` are those outside its hunks.
    let mut in_hunk = vec![false; ta.tokens.len()];
    for h in hunks {
        for f in &mut in_hunk[h.a.0..h.a.1] {
            *f = true;
        }
    }
    // A name: capitalized where it is not the first word, or first and not a word sentences
    // commonly start with ("Bulgaria, a poor rural nation ...").
    let name =
        |t: &Token| !t.number && (t.capital || (t.upper && !STARTERS.contains(&t.norm.as_str())));
    ta.tokens.iter().zip(&in_hunk).any(|(t, &changed)| {
        !changed && name(t) && tb.tokens.iter().any(|u| name(u) && u.norm == t.norm)
    })
}

/// Era names that stand for each other.
const ERAS: [[&str; 2]; 2] = [["ad", "ce"], ["bc", "bce"]];

/// Whether the longer of two words is the shorter with a piece of at least six letters
/// spliced in ("Connecticu" + "was", "tr" + "le= The Creation of " + "ansform"): text pasted
/// into a sentence by a broken edit, not a changed fact.
fn is_splice(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() < short.len() + 6 || long.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
        return false;
    }
    let prefix = short
        .bytes()
        .zip(long.bytes())
        .take_while(|(x, y)| x == y)
        .count();
    let suffix = short
        .bytes()
        .rev()
        .zip(long.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    prefix + suffix >= short.len()
}

/// Whether `short` is one word in capitals that abbreviates `long`'s words ("IFPRI" for "the
/// International Food Policy Research Institute").
fn is_abbreviation(short: &[Token], long: &[Token]) -> bool {
    let [word] = short else { return false };
    if word.norm.len() < 2 || !word.upper {
        return false;
    }
    let initials: String = long
        .iter()
        .filter(|t| !STOPWORDS.contains(&t.norm.as_str()))
        .filter_map(|t| t.norm.chars().next())
        .collect();
    initials == word.norm
}

/// Whether either side of a hunk between differently titled articles holds a word of its own
/// article's title that the other title lacks (capitalized words only with `capitalized`: an
/// inserted "green to" in *Green flash* is no name).
fn names_own_subject(
    members: &[Member<'_>],
    titles: &[Vec<String>],
    (a, wa): (usize, &[Token]),
    (b, wb): (usize, &[Token]),
    capitalized: bool,
) -> bool {
    // A title word, or the start of one for a short form of the name ("Cris" of "Ana Cristina
    // da Silva", the abbreviation "Cae" of "Caelum"): capitalized, three letters or more.
    let names = |x: &Token, t: &[String]| {
        t.binary_search(&x.norm).is_ok()
            || (x.upper
                && x.norm.chars().count() >= 3
                && x.norm.chars().all(char::is_alphabetic)
                && t.iter()
                    .any(|w| w.len() > x.norm.len() && w.starts_with(&x.norm)))
    };
    let own = |w: &[Token], t: &[String], other: &[String]| {
        w.iter()
            .any(|x| (x.upper || !capitalized) && names(x, t) && !names(x, other))
    };
    members[a].title != members[b].title
        && (own(wa, &titles[a], &titles[b]) || own(wb, &titles[b], &titles[a]))
}

/// The kind of one hunk.
fn hunk_kind(
    members: &[Member<'_>],
    titles: &[Vec<String>],
    (a, ta): (usize, &Text<'_>),
    (b, tb): (usize, &Text<'_>),
    h: &Hunk,
    longer: usize,
) -> DifferenceKind {
    let wa = &ta.tokens[h.a.0..h.a.1];
    let wb = &tb.tokens[h.b.0..h.b.1];
    let has = |w: &[Token], list: &[&str]| w.iter().any(|t| list.contains(&t.norm.as_str()));
    if negated(wa) != negated(wb) {
        return DifferenceKind::Negation;
    }
    if wa.is_empty() || wb.is_empty() {
        let (side, t, r) = if wa.is_empty() {
            (wb, tb, h.b)
        } else {
            (wa, ta, h.a)
        };
        // An article's own name inserted where the other has none ("Greg Porter is a ..."
        // against "Carolyn M. Squires is a ..." cut apart by the word diff).
        if names_own_subject(members, titles, (a, wa), (b, wb), true) {
            return DifferenceKind::Subject;
        }
        let at_end = r.0 == 0 || r.1 == t.tokens.len();
        // A citation run into the sentence is a splitting error too.
        let added = &t.text[side[0].start..side[side.len() - 1].end];
        return if (at_end && side.len() as f64 >= FRAGMENT * longer as f64)
            || looks_like_reference(added)
            || added.contains("pp.")
        {
            DifferenceKind::Fragment
        } else {
            DifferenceKind::Added
        };
    }
    let joined = |w: &[Token]| w.iter().map(|t| t.norm.as_str()).collect::<String>();
    let (ja, jb) = (joined(wa), joined(wb));
    // Words in another script beside their transliteration ("Lykeios" / "Λύκειος, Lukeios"):
    // without them, the same words or a spelling variant.
    // (Only where the hunk mixes scripts: in a wiki written in another script, its words are
    // compared as any others.)
    let mixed = wa.iter().chain(wb).any(|t| !latin(&t.norm))
        && wa
            .iter()
            .chain(wb)
            .any(|t| latin(&t.norm) && t.norm.chars().any(char::is_alphabetic));
    if mixed {
        let in_latin = |w: &[Token]| {
            w.iter()
                .filter(|t| latin(&t.norm))
                .map(|t| t.norm.as_str())
                .collect::<String>()
        };
        let (la, lb) = (in_latin(wa), in_latin(wb));
        if la.is_empty() || lb.is_empty() {
            return DifferenceKind::Added;
        }
        if strsim::damerau_levenshtein(&la, &lb) * 4 <= la.chars().count().max(lb.chars().count()) {
            return DifferenceKind::Spelling;
        }
    }
    if is_splice(&ja, &jb) {
        return DifferenceKind::Added;
    }
    // The texts go separate ways at an end, for a good part of the longer one: two sentences
    // that share a phrase, often cut at an abbreviation ("... (USAMRIID) microbiologist Bruce
    // E." / "... (USAMRIID) which transitioned from the previous U.S.").
    let at_start = h.a.0 == 0 && h.b.0 == 0;
    let at_end = h.a.1 == ta.tokens.len() && h.b.1 == tb.tokens.len();
    if (at_start || at_end) && wa.len().max(wb.len()) as f64 >= FRAGMENT * longer as f64 {
        return DifferenceKind::Fragment;
    }
    if names_own_subject(members, titles, (a, wa), (b, wb), false) {
        return DifferenceKind::Subject;
    }
    let mut na: Vec<&str> = wa
        .iter()
        .filter(|t| t.number)
        .map(|t| t.norm.as_str())
        .collect();
    let mut nb: Vec<&str> = wb
        .iter()
        .filter(|t| t.number)
        .map(|t| t.norm.as_str())
        .collect();
    na.sort_unstable();
    nb.sort_unstable();
    // A number replaced by another; a number on one side only is added or dropped detail. A
    // figure rounded ("182.2" / "182") or a year shortened ("1993–1995" / "1993–95") is the
    // same figure written two ways.
    if na != nb && !na.is_empty() && !nb.is_empty() {
        return if same_figures(&na, &nb) {
            DifferenceKind::Spelling
        } else {
            DifferenceKind::Number
        };
    }
    // A quantity for another: "two compliments" / "some compliments", "A few amino acids" /
    // "Excess amino acids".
    fn quantities(w: &[Token]) -> Vec<&str> {
        let mut q: Vec<&str> = w
            .iter()
            .filter(|t| t.number || QUANTIFIERS.contains(&t.norm.as_str()))
            .map(|t| t.norm.as_str())
            .collect();
        q.sort_unstable();
        q
    }
    let (qa, qb) = (quantities(wa), quantities(wb));
    if !qa.is_empty() && !qb.is_empty() && qa != qb {
        return DifferenceKind::Number;
    }
    let all_pronouns = |w: &[Token]| has(w, &PRONOUNS) && w.len() <= 2;
    if all_pronouns(wa) != all_pronouns(wb) {
        return DifferenceKind::Pronoun;
    }
    let letters = ja.chars().count().max(jb.chars().count());
    if strsim::damerau_levenshtein(&ja, &jb) * 4 <= letters
        || is_abbreviation(wa, wb)
        || is_abbreviation(wb, wa)
        || ERAS
            .iter()
            .any(|pair| pair.contains(&ja.as_str()) && pair.contains(&jb.as_str()))
    {
        return DifferenceKind::Spelling;
    }
    if na != nb {
        return DifferenceKind::Added;
    }
    // A name for a name, or a name of several words replaced ("Spanish Communist Party" /
    // "Stalinist"); a single capitalized word going or coming is wording.
    // A name for a name ("Spanish Communist Party" / "Stalinist"). A name for common words
    // ("the French police" / "the French National Gendarmerie"), or dropped for "the"
    // ("Baron-Cohen's earlier theory" / "the earlier theory"), is wording; so are two forms of
    // one word ("Best Director" / "Best Directing") and a name in another script beside its
    // transliteration ("Lyceus (Λύκειος, Lukeios)").
    // Names are capitalized words not first in their sentence; a first word counts only
    // against a name of several words ("Stalinist-led troops" / "Spanish Communist Party-led
    // troops", not "Because of" / "Due to").
    let names = |w: &[Token], first_too: bool| {
        w.iter()
            .filter(|t| {
                !t.number
                    && (!mixed || latin(&t.norm))
                    && (t.capital || (first_too && t.upper && !STARTERS.contains(&t.norm.as_str())))
            })
            .count()
    };
    let (xa, xb) = (names(wa, false), names(wb, false));
    let several = |x: usize, other: &[Token]| x >= 2 && names(other, true) > 0;
    if ((xa > 0 && xb > 0) || several(xa, wb) || several(xb, wa)) && !same_stem(wa, wb) {
        return DifferenceKind::Name;
    }
    DifferenceKind::Wording
}

/// Whether two lists of numbers (sorted, as folded) are the same figures written two ways: one
/// number each, the one cut from the other at a decimal place ("182.2" / "182"), a year and its
/// last two digits ("1995" / "95"), or a base written as a subscript the text lost and as a word
/// ("7F16" / "7Fhex").
fn same_figures(a: &[&str], b: &[&str]) -> bool {
    let ([x], [y]) = (a, b) else { return false };
    fn base<'w>(w: &'w str, suffix: &str) -> Option<&'w str> {
        w.strip_suffix(suffix).filter(|p| !p.is_empty())
    }
    if base(x, "16").is_some_and(|p| base(y, "hex") == Some(p))
        || base(y, "16").is_some_and(|p| base(x, "hex") == Some(p))
    {
        return true;
    }
    let (short, long) = if x.len() <= y.len() {
        (*x, *y)
    } else {
        (*y, *x)
    };
    let digits = |w: &str| !w.is_empty() && w.bytes().all(|c| c.is_ascii_digit());
    if short.len() == 2 && long.len() == 4 && long.ends_with(short) {
        return digits(short) && digits(long);
    }
    let Some(rest) = long.strip_prefix(short) else {
        return false;
    };
    let decimals = if short.contains('.') {
        rest
    } else if let Some(d) = rest.strip_prefix('.') {
        d
    } else {
        return false;
    };
    digits(short.split('.').next().unwrap_or("")) && digits(decimals)
}

/// Whether a folded word is written in the Latin script (names in another script beside their
/// transliteration are not a second name).
fn latin(word: &str) -> bool {
    word.chars()
        .all(|c| !c.is_alphabetic() || (c as u32) < 0x0250)
}

/// Whether two hunks are one word each, two forms of it: a common beginning of at least five
/// letters and of most of the shorter word ("Director" / "Directing", "Nation" / "National").
fn same_stem(a: &[Token], b: &[Token]) -> bool {
    let ([x], [y]) = (a, b) else { return false };
    let common = x
        .norm
        .chars()
        .zip(y.norm.chars())
        .take_while(|(p, q)| p == q)
        .count();
    let shorter = x.norm.chars().count().min(y.norm.chars().count());
    common >= 5 && common * 3 >= shorter * 2
}

/// Types a cluster (at least one member), with the evidence: the rules gather it
/// ([`by_rules`]), then the fitted model ([`learned`]) decides the type from it, unless every
/// member has the same folded text (identical, by the rules alone).
pub fn type_cluster(members: &[Member<'_>]) -> Typing {
    learned::retype(by_rules(members), members)
}

/// The rules alone: the evidence and the type the rules give it (`kind` and
/// [`Evidence::rule_type`] agree; `confidence` is 1). [`type_cluster`] uses this evidence.
pub fn by_rules(members: &[Member<'_>]) -> Typing {
    let typing = |kind, rule, groups, differences| Typing {
        kind,
        confidence: 1.0,
        evidence: Evidence {
            rule,
            rule_type: kind,
            groups,
            differences,
        },
    };
    let Some(first) = members.first() else {
        return typing(ClusterType::Other, Rule::Unrelated, Vec::new(), Vec::new());
    };
    // Clusters are mostly copies: byte-equal texts need no words.
    if members.iter().all(|m| m.text == first.text) {
        let all = vec![(0..members.len()).collect()];
        return typing(ClusterType::Identical, Rule::SameText, all, Vec::new());
    }
    // The distinct texts, their words and their folded keys; groups by key.
    let mut text_index: AHashMap<&str, usize> = AHashMap::new();
    let mut texts: Vec<Text<'_>> = Vec::new();
    let mut of_member = Vec::with_capacity(members.len());
    for m in members {
        let i = *text_index.entry(m.text).or_insert_with(|| {
            let mut tokens = Vec::new();
            tokenize(m.text, &mut tokens);
            texts.push(Text {
                text: m.text,
                tokens,
            });
            texts.len() - 1
        });
        of_member.push(i);
    }
    let mut group_of_key: AHashMap<String, usize> = AHashMap::new();
    let mut keyed: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, &t) in of_member.iter().enumerate() {
        let k = key(&texts[t].tokens);
        let g = match group_of_key.get(&k) {
            Some(&g) => g,
            None => {
                group_of_key.insert(k.clone(), keyed.len());
                keyed.push((k, Vec::new()));
                keyed.len() - 1
            }
        };
        keyed[g].1.push(i);
    }
    // Largest first, then by folded text: the same groups in the same order whatever the
    // members' order.
    keyed.sort_by(|x, y| y.1.len().cmp(&x.1.len()).then_with(|| x.0.cmp(&y.0)));
    let groups: Vec<Vec<usize>> = keyed.into_iter().map(|(_, g)| g).collect();
    if groups.len() == 1 {
        return typing(ClusterType::Identical, Rule::SameText, groups, Vec::new());
    }
    if texts.iter().all(|t| looks_like_reference(t.text)) {
        return typing(ClusterType::Reference, Rule::Citation, groups, Vec::new());
    }
    let mut buf = Vec::new();
    let titles: Vec<Vec<String>> = members
        .iter()
        .map(|m| title_words(m.title, &mut buf))
        .collect();
    recycle(buf);
    // The largest group's member with the first title stands for it (any order of the
    // members gives the same one).
    let by_title = |i: usize| (members[i].title, members[i].doc, members[i].text);
    let base = *groups[0]
        .iter()
        .min_by_key(|&&i| by_title(i))
        .expect("groups are not empty");
    let mut differences = Vec::new();
    let mut verdicts: Vec<Verdict> = Vec::new();
    for g in groups.iter().skip(1).take(MAX_COMPARED) {
        // Of the group's members, the one whose article relates most closely to the base's
        // stands for it (a group copied into several articles is compared where it is closest).
        let other = *g
            .iter()
            .min_by_key(|&&i| (relation(members, &titles, base, i), by_title(i)))
            .expect("groups are not empty");
        let v = compare(
            members,
            &titles,
            (base, &texts[of_member[base]]),
            (other, &texts[of_member[other]]),
            &mut differences,
        );
        verdicts.push(v);
    }
    let count = |k| verdicts.iter().filter(|v| v.kind == k).count();
    let (template, drift) = (
        count(ClusterType::Template),
        count(ClusterType::FactualDrift),
    );
    let (copyedit, other) = (count(ClusterType::Copyedit), count(ClusterType::Other));
    let kind = if template > 0 && template >= drift {
        ClusterType::Template
    } else if drift > 0 {
        ClusterType::FactualDrift
    } else if copyedit > 0 && copyedit >= other {
        ClusterType::Copyedit
    } else {
        ClusterType::Other
    };
    let rule = verdicts
        .iter()
        .find(|v| v.kind == kind)
        .map_or(Rule::Unrelated, |v| v.rule);
    typing(kind, rule, groups, differences)
}

/// Classifies a cluster (at least one member): [`type_cluster`]'s type.
pub fn classify(members: &[Member<'_>]) -> ClusterType {
    type_cluster(members).kind
}

#[cfg(test)]
mod tests;
