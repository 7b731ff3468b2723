//! Content reuse or structure reuse: the text-reuse thesis's measures of a reuse case and its
//! heuristics for telling a passage that reuses another's *content* (copied or paraphrased facts
//! about the same thing) from one that reuses only its *structure* (a template filled with other
//! entities, like the many "X is a village in the administrative district of Gmina Y" stubs).
//!
//! ```
//! use textreuse_reuse::{Classifier, ReuseKind, profile};
//!
//! let a = "Zalesie is a village in the administrative district of Gmina Bielsk, within Płock \
//!     County, Masovian Voivodeship, in east-central Poland.";
//! let b = "Nowa Wieś is a village in the administrative district of Gmina Drobin, within Płock \
//!     County, Masovian Voivodeship, in east-central Poland.";
//! let p = profile(a, b, a.len(), b.len());
//! assert_eq!(p.kind, ReuseKind::Content); // the county and voivodeship are shared
//! assert_eq!(p.words, (20, 21)); // "east-central" is two words
//! let c = "Lake Ohrid is a lake in the southwestern part of the Republic of North Macedonia, \
//!     within the Ohrid Municipality, in a mountainous region near Albania.";
//! let q = "Loch Ness is a lake in the northern part of the Highlands of Scotland, within the \
//!     Great Glen, in a mountainous region near Inverness.";
//! assert_eq!(profile(c, q, c.len(), q.len()).kind, ReuseKind::Structure);
//! // The thesis's own rules leave this case to neither class: its 2-gram Jaccard is under 0.5.
//! let thesis = Classifier::Thesis.profile(c, q, c.len(), q.len());
//! assert_eq!(thesis.kind, ReuseKind::Unclassified);
//! ```
//!
//! # The measures
//!
//! For the two passages of a reuse case, [`profile`] measures
//! * the Jaccard similarity of their (case-insensitive) word n-gram sets for n = 2, 5, 10, 15;
//! * the Jaccard similarity of their capitalized-entity sets (maximal runs of capitalized words;
//!   a sentence-initial stopword such as "The" or "It" is left out);
//! * the share of each document the passage covers (bytes of the passage over bytes of the
//!   document);
//! * the length of each passage in words.
//!
//! # The classifiers
//!
//! [`Classifier::Thesis`] is the thesis's pair of heuristics, exactly:
//! * **H1, content reuse**: entity Jaccard in (0.5, 1], word 10-gram Jaccard above 0.5, and either
//!   share below 0.5;
//! * **H2, structure reuse**: word 2-gram Jaccard above 0.5, word 5-gram Jaccard below 0.5, and
//!   either share above 0.5;
//! * a case neither rule covers is [`ReuseKind::Unclassified`] (H1 is tried first; the two
//!   cannot both hold, since a 10-gram Jaccard above 0.5 leaves the 5-gram Jaccard above 0.5).
//!
//! [`Classifier::Rules`] weighs the evidence first, then the topics:
//! * **spurious** ([`ReuseKind::Spurious`]): the longer passage has more than
//!   [`SPURIOUS_MAX_LENGTH_RATIO`] times the words of the shorter, or the shorter has fewer of
//!   its word 2-grams and 3-grams in the longer than [`SPURIOUS_MIN_CONTAINMENT`], or the two
//!   share fewer than [`SPURIOUS_MIN_SHARED_4GRAMS`] word 4-grams: they share phrasing, not
//!   text. Except for figures: where at least [`FIGURE_FRAME_MIN_SHARE`] of each passage's
//!   words hold a digit and the two share at least [`FIGURE_FRAME_MIN_SHARED_2GRAMS`] word
//!   2-grams without a figure, few shared n-grams are a statistical frame (census figures,
//!   election results) filled with each topic's own numbers, which is structure reuse (content
//!   reuse when the titles' subjects are the same);
//! * **content reuse**: the documents' titles make the passages one topic ([`Topics::related`]:
//!   the same subject, one inside the other, two aspects of one topic ([`Topics::aspects`]:
//!   "Transport in Bulgaria" / "Economy of Bulgaria"), or, unless the subjects are siblings
//!   differing in one word or two names in one title frame ([`Topics::framed`]: "Demographics
//!   of Ethiopia" / "Demographics of Botswana"), two words in a row in common or a passage
//!   naming the other's subject; a name spelled two ways is one subject), or, unless the
//!   titles are one frame, the word 10-gram Jaccard is at least
//!   [`CONTENT_MIN_J10_RELATED`] where a passage is less than [`STRUCTURE_MIN_SHARE`] of its
//!   document (a part of one article copied into another), or at least
//!   [`CONTENT_MIN_J10_WHOLE`] between titles that are not one frame ([`Topics::one_frame`]:
//!   whole stubs written from one template, "Conus arangoi" / "Conus ceruttii", are structure
//!   reuse however much wording they share);
//! * **structure reuse** otherwise: sibling topics sharing a text structure.
//!
//! These rules were tuned on articles, whose titles name their topics. Without titles
//! ([`Classifier::profile`]), nothing is marked spurious (a paraphrase or a summary of plain
//! text, as PAN's, shares few n-grams and is still reuse) and the entities decide instead:
//! structure reuse when the wording is shared but the entities are not (word 2-gram Jaccard at
//! least [`STRUCTURE_MIN_J2`], 10-gram Jaccard below [`CONTENT_MIN_J10`], entity Jaccard below
//! [`CONTENT_MIN_ENTITIES`] with an entity on each side), content reuse otherwise. The thresholds
//! were tuned on the tuning halves of labelled samples of real Wikipedia cases; the repository's
//! `studies/reuse` has the samples, the labels and the held-out scores.
//!
//! [`Classifier::Learned`], the default, reads the same measures ([`ReuseProfile::features`])
//! with decision trees fitted to those tuning halves ([`learned`]), and leaves cases without
//! titles to the rules above. On the study's held-out cases it is right more often than the
//! rules (0.870 against 0.819 over 1,141 cases).
use ahash::AHashSet;
use textreuse_hash::fingerprint_words;
use textreuse_shingle::{is_stopword, words};

pub mod learned;

/// Word n-gram lengths of [`ReuseProfile::ngram_jaccard`].
pub const NGRAM_LENGTHS: [usize; 4] = [2, 5, 10, 15];
/// Structure reuse needs at least this word 2-gram Jaccard.
pub const STRUCTURE_MIN_J2: f64 = 0.2;
/// A word 10-gram Jaccard at or above this makes a case content reuse (documents without
/// titles).
pub const CONTENT_MIN_J10: f64 = 0.3;
/// A word 10-gram Jaccard at or above this makes a case content reuse whatever the titles say.
pub const CONTENT_MIN_J10_RELATED: f64 = 0.1;
/// A case whose longer passage has more than this many times the words of the shorter is
/// spurious: most of the longer passage has no counterpart.
pub const SPURIOUS_MAX_LENGTH_RATIO: f64 = 5.0;
/// A case whose shorter passage has fewer of its word 2-grams and 3-grams in the longer than
/// these shares is spurious: the two share phrasing, not text.
pub const SPURIOUS_MIN_CONTAINMENT: [f64; 2] = [0.25, 0.08];
/// A case whose passages share fewer word 4-grams than this is spurious.
pub const SPURIOUS_MIN_SHARED_4GRAMS: usize = 4;
/// When at least this share of the words of each passage are figures ("95.69% White, 2.28%
/// Black or African American ..."), a case the shared n-grams would call spurious is structure
/// reuse: a statistical frame (census, election results) filled with each topic's own figures,
/// which break every n-gram they fall in.
pub const FIGURE_FRAME_MIN_SHARE: f64 = 0.2;
/// A statistical frame needs at least this many word 2-grams in common that hold no figure and
/// not only stopwords ("Pacific Islander", "two or more races"): figure-dense passages sharing
/// fewer (two formulas, two specification tables) share no frame.
pub const FIGURE_FRAME_MIN_SHARED_2GRAMS: usize = 5;
/// When both passages cover at least this share of their documents (whole stubs written from
/// one frame: "Conus arangoi is a species of sea snail ..." / "Conus ceruttii is a species
/// ..."), a long shared wording does not make unrelated titles one topic (the thesis's H2 reads
/// a share above 0.5 as structure reuse).
pub const STRUCTURE_MIN_SHARE: f64 = 0.5;
/// Unless the titles are one frame ([`Topics::one_frame`]), a word 10-gram Jaccard at or above this makes a case content
/// reuse even where both passages cover most of their documents ("Khufu ship" / "Ancient
/// Egyptian solar ships").
pub const CONTENT_MIN_J10_WHOLE: f64 = 0.5;
/// An entity-set Jaccard at or above this makes a case content reuse.
pub const CONTENT_MIN_ENTITIES: f64 = 0.3;

/// The kind of a reuse case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReuseKind {
    /// The same content (facts about the same entities), copied or reworded.
    Content,
    /// The same wording or template, about other entities.
    Structure,
    /// Neither: the classifier's rules do not cover the case ([`Classifier::Thesis`] only).
    Unclassified,
    /// Not reuse by the evidence ([`Classifier::Rules`] and [`Classifier::Learned`]): the
    /// passages' lengths are too far apart, or they share too few word n-grams. Reported,
    /// marked, so that a reader can leave such cases out.
    Spurious,
}

impl ReuseKind {
    /// Every kind.
    pub const ALL: [ReuseKind; 4] = [
        ReuseKind::Content,
        ReuseKind::Structure,
        ReuseKind::Unclassified,
        ReuseKind::Spurious,
    ];

    /// `"content"`, `"structure"`, `"unclassified"` or `"spurious"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ReuseKind::Content => "content",
            ReuseKind::Structure => "structure",
            ReuseKind::Unclassified => "unclassified",
            ReuseKind::Spurious => "spurious",
        }
    }
}

impl std::str::FromStr for Classifier {
    type Err = String;

    /// `rules`, `thesis`, `learned`, or `default` for [`Classifier::default`].
    fn from_str(s: &str) -> Result<Classifier, String> {
        if s == "default" {
            return Ok(Classifier::default());
        }
        [Classifier::Rules, Classifier::Thesis, Classifier::Learned]
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| {
                format!("unknown classifier {s:?}: use rules, thesis, learned or default")
            })
    }
}

/// The rules that give a reuse case its [`ReuseKind`] (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Classifier {
    /// Evidence, topics and wording: spurious when the passages' lengths or shared n-grams do
    /// not support reuse, content reuse when the two are about one topic (by their articles'
    /// titles) or share long word sequences, structure reuse otherwise.
    Rules,
    /// The thesis's heuristics H1 (content) and H2 (structure), exactly; other cases are
    /// unclassified.
    Thesis,
    /// Decision trees fitted to the study's labelled cases, over the measures the default
    /// rules read and the rules' own thresholds left to the fit ([`learned`]); cases without
    /// titles as [`Classifier::Rules`]. The default: on the study's held-out cases it is right
    /// more often than the rules.
    #[default]
    Learned,
}

impl Classifier {
    /// `"rules"`, `"thesis"` or `"learned"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Classifier::Rules => "rules",
            Classifier::Thesis => "thesis",
            Classifier::Learned => "learned",
        }
    }

    /// Measures and classifies a reuse case, as [`profile`] does, by these rules.
    pub fn profile(
        self,
        source: &str,
        suspicious: &str,
        source_doc_len: usize,
        suspicious_doc_len: usize,
    ) -> ReuseProfile {
        self.profile_titled(source, suspicious, source_doc_len, suspicious_doc_len, None)
    }

    /// [`Classifier::profile`] with the titles of the two documents, `(source, suspicious)`:
    /// the topics [`Classifier::Rules`] compares (an empty title counts as unknown).
    pub fn profile_titled(
        self,
        source: &str,
        suspicious: &str,
        source_doc_len: usize,
        suspicious_doc_len: usize,
        titles: Option<(&str, &str)>,
    ) -> ReuseProfile {
        let titles = titles.filter(|(a, b)| !a.is_empty() && !b.is_empty());
        let mut p = measure(
            source,
            suspicious,
            source_doc_len,
            suspicious_doc_len,
            titles,
        );
        p.kind = self.classify(&p);
        p
    }

    /// The kind of a measured case by these rules (its own `kind` is not read).
    pub fn classify(self, p: &ReuseProfile) -> ReuseKind {
        match self {
            Classifier::Rules => default_rules(p),
            Classifier::Thesis => thesis(p),
            Classifier::Learned if p.topics.is_some() => learned::classify(p),
            Classifier::Learned => default_rules(p),
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
    /// Words of the source passage and of the suspicious passage.
    pub words: (usize, usize),
    /// Containment of the shorter passage's word 2-gram and 3-gram sets in the longer's:
    /// shared n-grams over the shorter's (the evidence of reuse, which Jaccard similarity
    /// dilutes when one passage is longer).
    pub containment: [f64; 2],
    /// Word 4-grams the two passages share.
    pub shared_4grams: usize,
    /// Share of the words of the source and of the suspicious passage that hold a digit.
    pub figure_share: (f64, f64),
    /// Word 2-grams the passages share that hold no figure and not only stopwords: the words
    /// of a frame around the figures.
    pub frame_2grams: usize,
    /// What the documents' titles say of the two topics, when both titles are known.
    pub topics: Option<Topics>,
    /// The verdict.
    pub kind: ReuseKind,
}

/// The two documents' topics as their titles give them: the subject of a title is its text
/// before a comma or a parenthesis ("Frostburg" of "Frostburg, Maryland"), as case-folded
/// words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Topics {
    /// The two subjects are the same words.
    pub same_subject: bool,
    /// Every word of one subject is in the other ("Nutrition" and "Plant nutrition", "Angola"
    /// and "Politics of Angola").
    pub subject_within: bool,
    /// The subjects share two words in a row ("Hurricane Katrina" in "Timeline of Hurricane
    /// Katrina" and "Effects of Hurricane Katrina in New Orleans").
    pub shared_bigram: bool,
    /// Either passage names the other document's subject (when the subjects differ).
    pub cross_mention: bool,
    /// The subjects are siblings: as many words, one of them different ("Maryland Route 287"
    /// and "Maryland Route 16", "Alaska" and "Alabama"). A shared bigram or a mention between
    /// siblings is a neighbour's name, not one topic.
    pub siblings: bool,
    /// Siblings of two words or more: a name in one frame ("Conus arangoi" and "Conus
    /// ceruttii"), where whole articles written from one template are expected.
    pub one_frame: bool,
    /// Two names in one title frame: the subjects begin alike and differ after, where the
    /// shared beginning is a frame rather than a topic: two words or more, or a figure
    /// ("Demographics of Ethiopia" / "Demographics of Botswana", "2017 New England Patriots
    /// season" / "2017 Denver Broncos season"), or one word before a single different last
    /// word ("Emperor Seinei" / "Emperor Buretsu"). Figures match figures, so one series'
    /// years are one frame ("2016 in aquatic sports" / "2013 in aquatic sports"). Sibling
    /// topics of one series, whatever wording their articles share; one shared word before
    /// different words of their own ("Maryland State House" / "Maryland House of Delegates")
    /// is not a frame.
    pub framed: bool,
    /// Two aspects of one topic: the subjects end alike from a preposition on and differ
    /// before it ("Transport in Bulgaria" / "Economy of Bulgaria", "Canadian response to
    /// Hurricane Katrina" / "International response to Hurricane Katrina"), unless the heads
    /// are a series' figures ("2016 in aquatic sports": [`Topics::framed`]).
    pub aspects: bool,
}

impl Topics {
    /// Whether the titles make the two one topic, or one a part or a kind of the other.
    /// Sibling titles ("Kent County" and "Charles County") are not related: they share a word
    /// of their kind, not their subject.
    pub fn related(&self) -> bool {
        self.same_subject
            || self.subject_within
            || self.aspects
            || ((self.shared_bigram || self.cross_mention) && !self.siblings && !self.framed)
    }
}

impl ReuseProfile {
    /// Whether both passages have at least one entity.
    pub fn has_entities(&self) -> bool {
        self.entities.0 > 0 && self.entities.1 > 0
    }
}

/// Measures and classifies a reuse case by the [`Classifier::Rules`] rules: `source` and
/// `suspicious` are the two passages' texts, the lengths are those of the whole documents (in the
/// same unit as the passages' `len()`; values below the passage length count as the passage
/// length).
pub fn profile(
    source: &str,
    suspicious: &str,
    source_doc_len: usize,
    suspicious_doc_len: usize,
) -> ReuseProfile {
    Classifier::Rules.profile(source, suspicious, source_doc_len, suspicious_doc_len)
}

/// The measures of a case, its kind left [`ReuseKind::Unclassified`].
fn measure(
    source: &str,
    suspicious: &str,
    source_doc_len: usize,
    suspicious_doc_len: usize,
    titles: Option<(&str, &str)>,
) -> ReuseProfile {
    // Each word's key, and whether it can be part of a frame's words: 1 for a figure, 2 for a
    // stopword.
    let read = |text: &str| -> (Vec<u64>, Vec<u8>) {
        words(text)
            .map(|w| {
                let s = w.as_str();
                let class = if has_digit(s) {
                    1
                } else if is_stopword(s) {
                    2
                } else {
                    0
                };
                (w.key(), class)
            })
            .unzip()
    };
    let (a, class_a) = read(source);
    let (b, class_b) = read(suspicious);
    let figures = (
        class_a.iter().filter(|&&c| c == 1).count(),
        class_b.iter().filter(|&&c| c == 1).count(),
    );
    // Each n-gram length once: its sets' sizes and their intersection give both the Jaccard
    // similarity and the containment.
    let overlap = |n: usize| {
        let (x, y) = (ngrams(&a, n), ngrams(&b, n));
        let shared = x.intersection(&y).count();
        (shared, x.len(), y.len())
    };
    let mut ngram_jaccard = [0.0; 4];
    let mut two = (0, 0, 0);
    for (j, &n) in ngram_jaccard.iter_mut().zip(&NGRAM_LENGTHS) {
        let o = overlap(n);
        if n == 2 {
            two = o;
        }
        *j = jaccard_of(o);
    }
    let (shared_4grams, _, _) = overlap(4);
    let (ea, eb) = (entities(source), entities(suspicious));
    let share = |part: usize, whole: usize| {
        if part == 0 {
            0.0
        } else {
            part as f64 / whole.max(part) as f64
        }
    };
    ReuseProfile {
        ngram_jaccard,
        entity_jaccard: jaccard(&ea, &eb),
        entities: (ea.len(), eb.len()),
        source_share: share(source.len(), source_doc_len),
        suspicious_share: share(suspicious.len(), suspicious_doc_len),
        words: (a.len(), b.len()),
        containment: [containment_of(two), containment_of(overlap(3))],
        shared_4grams,
        figure_share: (
            share(figures.0, a.len().max(1)),
            share(figures.1, b.len().max(1)),
        ),
        frame_2grams: frame_2grams(&a, &class_a)
            .intersection(&frame_2grams(&b, &class_b))
            .count(),
        topics: titles.map(|(x, y)| topics(x, y, &a, &b)),
        kind: ReuseKind::Unclassified,
    }
}

/// Jaccard similarity from `(shared, |A|, |B|)` (0 when both are empty).
fn jaccard_of((shared, a, b): (usize, usize, usize)) -> f64 {
    let union = a + b - shared;
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}

/// Shared n-grams over the smaller of the two sets, from `(shared, |A|, |B|)` (0 when either
/// is empty).
fn containment_of((shared, a, b): (usize, usize, usize)) -> f64 {
    let smaller = a.min(b);
    if smaller == 0 {
        0.0
    } else {
        shared as f64 / smaller as f64
    }
}

/// The subject of a title: before a parenthesis or a comma, case-folded words.
fn subject(title: &str) -> Vec<u64> {
    let end = title.find([',', '(']).unwrap_or(title.len());
    words(&title[..end]).map(|w| w.key()).collect()
}

/// The words of a title's subject, as written.
fn subject_words(title: &str) -> Vec<&str> {
    let end = title.find([',', '(']).unwrap_or(title.len());
    words(&title[..end]).map(|w| w.as_str()).collect()
}

/// Whether `text` has the word sequence `phrase` (word keys).
fn names(text: &[u64], phrase: &[u64]) -> bool {
    !phrase.is_empty() && text.windows(phrase.len()).any(|w| w == phrase)
}

/// The topics of two titles, `source` and `suspicious` being the passages' word keys.
fn topics(
    source_title: &str,
    suspicious_title: &str,
    source: &[u64],
    suspicious: &[u64],
) -> Topics {
    let (sa, sb) = (subject(source_title), subject(suspicious_title));
    let same_subject = sa == sb;
    let set = |v: &[u64]| v.iter().copied().collect::<AHashSet<u64>>();
    let (wa, wb) = (set(&sa), set(&sb));
    let subject_within = !same_subject && (wa.is_subset(&wb) || wb.is_subset(&wa));
    let shared_bigram = !same_subject && sa.windows(2).any(|p| sb.windows(2).any(|q| p == q));
    let cross_mention = !same_subject && (names(source, &sb) || names(suspicious, &sa));
    // One word different, unless it is one name spelled two ways ("Walid Hicheri" / "Walid
    // Hichri"): then the titles are one subject.
    let (ta, tb) = (subject_words(source_title), subject_words(suspicious_title));
    let differing: Vec<(&str, &str)> = ta
        .iter()
        .zip(&tb)
        .filter(|(a, b)| !a.eq_ignore_ascii_case(b))
        .map(|(a, b)| (*a, *b))
        .collect();
    // Figures are not spelled two ways: "1995" and "1991" are two years.
    let spelled_two_ways = differing.len() == 1 && {
        let (a, b) = (differing[0].0.to_lowercase(), differing[0].1.to_lowercase());
        let longer = a.chars().count().max(b.chars().count());
        !has_digit(&a)
            && !has_digit(&b)
            && longer >= 4
            && strsim::damerau_levenshtein(&a, &b) * 4 <= longer
    };
    let same_subject = same_subject || (sa.len() == sb.len() && spelled_two_ways);
    let siblings = !same_subject
        && sa.len() == sb.len()
        && sa.iter().zip(&sb).filter(|(a, b)| a != b).count() == 1;
    let framed = !same_subject && !subject_within && framed(&ta, &tb);
    Topics {
        same_subject,
        subject_within,
        shared_bigram,
        cross_mention,
        siblings,
        one_frame: siblings && sa.len() >= 2,
        framed,
        aspects: !same_subject && !framed && aspects(&ta, &tb),
    }
}

/// Whether two titles' subject words (as written) are two names in one frame
/// ([`Topics::framed`]).
fn framed(a: &[&str], b: &[&str]) -> bool {
    let alike = |x: &&str, y: &&str| x.eq_ignore_ascii_case(y) || (has_digit(x) && has_digit(y));
    let prefix = a.iter().zip(b).take_while(|(x, y)| alike(x, y)).count();
    if prefix == 0 {
        return false;
    }
    let frame = prefix >= 2 || a[..prefix].iter().any(|w| has_digit(w));
    let name_after_one_word = a.len() == 2 && b.len() == 2 && !a[1].eq_ignore_ascii_case(b[1]);
    frame || name_after_one_word
}

/// Whether two titles' subject words (as written) are two aspects of one topic
/// ([`Topics::aspects`]).
fn aspects(a: &[&str], b: &[&str]) -> bool {
    const PREPOSITIONS: [&str; 8] = ["of", "in", "to", "on", "for", "at", "from", "during"];
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x.eq_ignore_ascii_case(y))
        .count();
    // The shared end from its first preposition: "to Hurricane Katrina" of "response to
    // Hurricane Katrina".
    let shared = &a[a.len() - suffix..];
    match shared
        .iter()
        .position(|w| PREPOSITIONS.iter().any(|p| w.eq_ignore_ascii_case(p)))
    {
        Some(at) => at + 1 < shared.len() && suffix < a.len() && suffix < b.len(),
        None => {
            // The preposition ends the differing heads ("Economy of" / "Transport in").
            let before = |v: &[&str]| {
                v.len() > suffix
                    && PREPOSITIONS
                        .iter()
                        .any(|p| v[v.len() - suffix - 1].eq_ignore_ascii_case(p))
            };
            suffix >= 1 && before(a) && before(b)
        }
    }
}

/// The [`Classifier::Rules`] rules (see the [module docs](self)).
fn default_rules(p: &ReuseProfile) -> ReuseKind {
    let Some(topics) = &p.topics else {
        return classify(p.ngram_jaccard, p.entity_jaccard, p.has_entities());
    };
    let (shorter, longer) = (p.words.0.min(p.words.1), p.words.0.max(p.words.1));
    let little_shared = p.containment[0] < SPURIOUS_MIN_CONTAINMENT[0]
        || p.containment[1] < SPURIOUS_MIN_CONTAINMENT[1]
        || p.shared_4grams < SPURIOUS_MIN_SHARED_4GRAMS;
    if longer as f64 > SPURIOUS_MAX_LENGTH_RATIO * shorter.max(1) as f64 {
        ReuseKind::Spurious
    } else if little_shared {
        // Figures break the n-grams of a statistical frame: two figure-dense passages are the
        // frame filled twice (one topic's figures updated, when the subjects are the same).
        if p.figure_share.0.min(p.figure_share.1) < FIGURE_FRAME_MIN_SHARE
            || p.frame_2grams < FIGURE_FRAME_MIN_SHARED_2GRAMS
        {
            ReuseKind::Spurious
        } else if topics.same_subject {
            ReuseKind::Content
        } else {
            ReuseKind::Structure
        }
    } else if topics.related()
        || (!topics.framed
            && p.ngram_jaccard[2] >= CONTENT_MIN_J10_RELATED
            && (p.source_share.min(p.suspicious_share) < STRUCTURE_MIN_SHARE
                || (p.ngram_jaccard[2] >= CONTENT_MIN_J10_WHOLE && !topics.one_frame)))
    {
        ReuseKind::Content
    } else {
        ReuseKind::Structure
    }
}

/// The thesis's H1 and H2 (see the [module docs](self)).
fn thesis(p: &ReuseProfile) -> ReuseKind {
    let [j2, j5, j10, _] = p.ngram_jaccard;
    let (a, b) = (p.source_share, p.suspicious_share);
    if p.entity_jaccard > 0.5 && p.entity_jaccard <= 1.0 && j10 > 0.5 && (a < 0.5 || b < 0.5) {
        ReuseKind::Content
    } else if j2 > 0.5 && j5 < 0.5 && (a > 0.5 || b > 0.5) {
        ReuseKind::Structure
    } else {
        ReuseKind::Unclassified
    }
}

/// The [`Classifier::Rules`] rule on measured values for documents without titles (after
/// the evidence checks): `has_entities` says whether both passages have at least one entity.
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

/// The word 2-grams with no figure and not only stopwords (`class`: 1 figure, 2 stopword).
fn frame_2grams(keys: &[u64], class: &[u8]) -> AHashSet<u64> {
    keys.windows(2)
        .zip(class.windows(2))
        .filter(|(_, c)| c[0] != 1 && c[1] != 1 && !(c[0] == 2 && c[1] == 2))
        .map(|(k, _)| fingerprint_words(k))
        .collect()
}

fn has_digit(word: &str) -> bool {
    word.bytes().any(|b| b.is_ascii_digit())
}

fn ngrams(keys: &[u64], n: usize) -> AHashSet<u64> {
    keys.windows(n).map(fingerprint_words).collect()
}

fn jaccard(a: &AHashSet<u64>, b: &AHashSet<u64>) -> f64 {
    jaccard_of((a.intersection(b).count(), a.len(), b.len()))
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

    fn measured(j: [f64; 4], entities: f64, shares: (f64, f64)) -> ReuseProfile {
        ReuseProfile {
            ngram_jaccard: j,
            entity_jaccard: entities,
            entities: (1, 1),
            source_share: shares.0,
            suspicious_share: shares.1,
            words: (100, 100),
            containment: [1.0, 1.0],
            shared_4grams: 100,
            figure_share: (0.0, 0.0),
            frame_2grams: 0,
            topics: None,
            kind: ReuseKind::Unclassified,
        }
    }

    #[test]
    fn thesis_rules_at_their_bounds() {
        use ReuseKind::*;
        let t = |j, e, s| Classifier::Thesis.classify(&measured(j, e, s));
        // H1: entity Jaccard in (0.5, 1], 10-gram Jaccard > 0.5, either share < 0.5.
        assert_eq!(t([0.9, 0.8, 0.6, 0.5], 0.6, (0.2, 0.9)), Content);
        assert_eq!(t([0.9, 0.8, 0.6, 0.5], 1.0, (0.9, 0.2)), Content);
        assert_eq!(t([0.9, 0.8, 0.6, 0.5], 0.5, (0.2, 0.2)), Unclassified);
        assert_eq!(t([0.9, 0.8, 0.5, 0.5], 0.6, (0.2, 0.2)), Unclassified);
        assert_eq!(t([0.9, 0.8, 0.6, 0.5], 0.6, (0.5, 0.5)), Unclassified);
        // H2: 2-gram Jaccard > 0.5, 5-gram < 0.5, either share > 0.5.
        assert_eq!(t([0.6, 0.4, 0.1, 0.0], 0.0, (0.6, 0.1)), Structure);
        assert_eq!(t([0.6, 0.4, 0.1, 0.0], 0.9, (0.1, 0.6)), Structure);
        assert_eq!(t([0.5, 0.4, 0.1, 0.0], 0.0, (0.9, 0.9)), Unclassified);
        assert_eq!(t([0.6, 0.5, 0.1, 0.0], 0.0, (0.9, 0.9)), Unclassified);
        assert_eq!(t([0.6, 0.4, 0.1, 0.0], 0.0, (0.5, 0.5)), Unclassified);
        assert_eq!("thesis".parse(), Ok(Classifier::Thesis));
        assert_eq!("rules".parse(), Ok(Classifier::Rules));
        assert_eq!("learned".parse(), Ok(Classifier::Learned));
        assert_eq!("default".parse(), Ok(Classifier::default()));
        assert!("best".parse::<Classifier>().is_err());
        assert!("h1".parse::<Classifier>().unwrap_err().contains("thesis"));
    }

    #[test]
    fn two_village_stubs_are_beyond_h2() {
        // Two whole stub articles (shares 1) sharing the template's wording: the village,
        // district, county, voivodeship and distances differ, so under a fifth of their word
        // 2-grams are shared, far from H2's 0.5.
        let a = "Kowale is a village in the administrative district of Gmina Lubawa, within \
                 Iława County, Warmian-Masurian Voivodeship, in northern Poland. It lies \
                 approximately 7 kilometres (4 mi) south-east of Lubawa, 25 km (16 mi) \
                 south-east of Iława, and 69 km (43 mi) south-west of the regional capital \
                 Olsztyn.";
        let b = "Dębiny is a village in the administrative district of Gmina Przytyk, within \
                 Radom County, Masovian Voivodeship, in east-central Poland. It lies \
                 approximately 5 kilometres (3 mi) north of Przytyk, 21 km (13 mi) west of \
                 Radom, and 92 km (57 mi) south of Warsaw.";
        let p = Classifier::Thesis.profile(a, b, a.len(), b.len());
        assert!(
            p.ngram_jaccard[0] < 0.2 && p.ngram_jaccard[1] < 0.1,
            "{p:?}"
        );
        assert_eq!((p.source_share, p.suspicious_share), (1.0, 1.0));
        assert_eq!(p.kind, ReuseKind::Unclassified, "{p:?}");
    }

    #[test]
    fn default_rules_mark_spurious_cases_and_read_the_titles() {
        use ReuseKind::*;
        let census_a = "As of the census of 2010, there were 1,234 people, 456 households, and \
                        321 families residing in the town. The racial makeup of the town was \
                        91.2% White and 4.1% African American.";
        let census_b = "As of the census of 2010, there were 9,876 people, 3,210 households, and \
                        2,345 families residing in the town. The racial makeup of the town was \
                        75.0% White and 19.3% African American.";
        let titled = |a: &str, b: &str, titles| {
            Classifier::Rules
                .profile_titled(a, b, 10_000, 10_000, titles)
                .kind
        };
        // Sibling towns: one template, each its own figures.
        let towns = Some(("Kent County, Maryland", "Charles County, Maryland"));
        assert_eq!(titled(census_a, census_b, towns), Structure);
        // The same frame between an article and its part is content reuse.
        let part = Some(("Maryland", "Demographics of Maryland"));
        assert_eq!(titled(census_a, census_b, part), Content);
        // Only phrasing in common: not reuse.
        let other = "The town was founded in 1820 by settlers from Virginia, and the railroad \
                     reached it in 1852, when the first mill opened on the river.";
        assert_eq!(titled(census_a, other, towns), Spurious);
        // A long passage against a short one: not reuse as reported.
        let long = census_b.repeat(8);
        assert_eq!(titled(census_a, &long, towns), Spurious);
        // Without titles the entities decide, as before.
        let p = Classifier::Rules.profile(census_a, census_a, 10_000, 10_000);
        assert_eq!((p.kind, p.topics), (Content, None));
        assert_eq!(p.containment, [1.0, 1.0]);
    }

    #[test]
    fn figure_dense_frames_are_structure_reuse() {
        use ReuseKind::*;
        // Two census breakdowns (English Wikipedia, "Alaska" and "Carroll County, Maryland"):
        // one frame, worded apart and filled with other figures, so few n-grams are shared.
        let state = "In terms of race and ethnicity, the state was 66.7% White (64.1% \
                     Non-Hispanic White), 14.8% American Indian and Alaska Native, 5.4% Asian, \
                     3.3% Black or African American, 1.0% Native Hawaiian and Other Pacific \
                     Islander, 1.6% from Some Other Race, and 7.3% from Two or More Races.";
        let county = "The racial makeup was 91.20% Non-Hispanic whites, 3.19% blacks, 0.20% \
                      Native Americans, 1.45% Asians, 0.03% Pacific Islanders, 0.09% \
                      Non-Hispanics of some other race, 1.33% Non-Hispanics reporting two or \
                      more races and 2.61% Hispanics.";
        let titles = Some(("Alaska", "Carroll County, Maryland"));
        let p = Classifier::Rules.profile_titled(state, county, 10_000, 10_000, titles);
        assert!(p.shared_4grams < SPURIOUS_MIN_SHARED_4GRAMS, "{p:?}");
        assert!(
            p.figure_share.0.min(p.figure_share.1) >= FIGURE_FRAME_MIN_SHARE,
            "{p:?}"
        );
        assert_eq!(p.kind, Structure);
        // The same frame in one topic's two articles: its figures updated.
        let same = Some(("Alaska", "Alaska (state)"));
        assert_eq!(
            Classifier::Rules
                .profile_titled(state, county, 10_000, 10_000, same)
                .kind,
            Content
        );
        // Figure-dense passages with no frame in common (two formulas) share nothing.
        let formula_a = "x = 2 y + 3 z - 4 where 5 < 6 and 7 > 8 so 9 = 10 - 1";
        let formula_b = "E = 1 m c 2 for 3 of 4 at 0 . 5 then 6 + 7 = 13";
        let p = Classifier::Rules.profile_titled(formula_a, formula_b, 10_000, 10_000, titles);
        assert!(p.frame_2grams < FIGURE_FRAME_MIN_SHARED_2GRAMS, "{p:?}");
        assert_eq!(p.kind, Spurious);
        // Without the figures the two share only phrasing.
        let bare = |t: &str| t.replace(|c: char| c.is_ascii_digit(), "");
        let p =
            Classifier::Rules.profile_titled(&bare(state), &bare(county), 10_000, 10_000, titles);
        assert_eq!(p.figure_share, (0.0, 0.0));
        assert_eq!(p.kind, Spurious);
    }

    /// [`topics`] of two titles and the passages' texts.
    fn topics_of(a: &str, b: &str, text_a: &str, text_b: &str) -> Topics {
        let keys = |t: &str| words(t).map(|w| w.key()).collect::<Vec<u64>>();
        topics(a, b, &keys(text_a), &keys(text_b))
    }

    /// Whole stubs written from one frame are structure reuse however long their shared
    /// wording; a part of a long article copied into another stays content reuse.
    #[test]
    fn whole_stubs_in_one_frame_are_structure() {
        let a = "is a species of sea snail, a marine gastropod mollusk in the family Conidae, the \
                 cone snails and their allies. Like all species within the genus Conus, these \
                 snails are predatory and venomous. They are capable of stinging humans.";
        let b = "is a species of sea snail, a marine gastropod mollusk in the family Conidae, the \
                 cone snails and their allies. Like all species within the genus Conus, these \
                 snails are predatory and venomous. They are capable of stinging humans, therefore.";
        let kind = |ta, tb, la, lb| {
            Classifier::Rules
                .profile_titled(a, b, la, lb, Some((ta, tb)))
                .kind
        };
        assert_eq!(
            kind(
                "Conus arangoi",
                "Conus ceruttii",
                a.len() + 15,
                b.len() + 16
            ),
            ReuseKind::Structure
        );
        // The same passages as a small part of two long articles: content reuse, unless the
        // titles name two siblings in one frame.
        assert_eq!(
            kind("Cone snail", "Venomous snails", 20 * a.len(), 20 * b.len()),
            ReuseKind::Content
        );
        assert_eq!(
            kind(
                "Conus arangoi",
                "Conus ceruttii",
                20 * a.len(),
                20 * b.len()
            ),
            ReuseKind::Structure
        );
        // Titles in no frame: long shared wording is one topic, whole articles or not.
        assert_eq!(
            kind(
                "Khufu ship",
                "Ancient Egyptian solar ships",
                a.len(),
                b.len()
            ),
            ReuseKind::Content
        );
        // One name spelled two ways is one subject.
        assert!(topics_of("Walid Hicheri", "Walid Hichri", "", "").same_subject);
        assert!(!topics_of("Conus arangoi", "Conus ceruttii", "", "").same_subject);
    }

    #[test]
    fn titles_relate_topics_not_siblings() {
        let t = |a: &str, b: &str| topics_of(a, b, "", "").related();
        assert!(t("Nutrition", "Plant nutrition"));
        assert!(t("Angola", "Politics of Angola"));
        assert!(t(
            "Timeline of Hurricane Katrina",
            "Effects of Hurricane Katrina in New Orleans"
        ));
        assert!(t("Frostburg, Maryland", "Frostburg (disambiguation)"));
        assert!(!t("Kent County, Maryland", "Charles County, Maryland"));
        assert!(!t("Alaska", "Alabama"));
        assert!(!t("Maryland Route 287", "Maryland Route 16"));
        assert!(!t("7th Maryland Regiment", "1st Maryland Regiment"));
        // Siblings naming each other stay siblings.
        let named = "Alaska is larger than Alabama.";
        let t = topics_of("Alaska", "Alabama", named, "");
        assert!(t.cross_mention && t.siblings && !t.related());
        // Either passage naming the other's subject relates them.
        let named = "Suitland lies on Maryland Route 5.";
        assert!(topics_of("Suitland, Maryland", "Maryland Route 5", named, "").cross_mention);
    }

    /// Sibling topics of one series are named in one title frame; two aspects of one topic
    /// end alike from a preposition on. Titles from the 2019 sample's tuning half.
    #[test]
    fn title_frames_and_aspects() {
        let t = |a: &str, b: &str| topics_of(a, b, "", "");
        for (a, b) in [
            ("Demographics of Ethiopia", "Demographics of Botswana"),
            ("District Council of Morgan", "District Council of Mannum"),
            (
                "2017 New England Patriots season",
                "2017 Denver Broncos season",
            ),
            (
                "2016–17 FC Oleksandriya season",
                "2006–07 Borussia Dortmund season",
            ),
            ("Emperor Seinei", "Emperor Buretsu"),
            (
                "List of minor planets: 480001–481000",
                "List of minor planets: 477001–478000",
            ),
            ("2016 in aquatic sports", "2013 in aquatic sports"),
        ] {
            let topics = t(a, b);
            assert!(topics.framed && !topics.related(), "{a} / {b}: {topics:?}");
        }
        // Years are not one name spelled two ways.
        assert!(
            !t(
                "1995 Mississippi gubernatorial election",
                "1991 Mississippi gubernatorial election"
            )
            .same_subject
        );
        for (a, b) in [
            ("Maryland State House", "Maryland House of Delegates"),
            ("Human nutrition", "Animal nutrition"),
            ("Washington County, Maryland", "Garrett County, Maryland"),
            ("Nutrition", "Plant nutrition"),
        ] {
            assert!(!t(a, b).framed, "{a} / {b}");
        }
        for (a, b) in [
            ("Transport in Bulgaria", "Economy of Bulgaria"),
            (
                "Canadian response to Hurricane Katrina",
                "International response to Hurricane Katrina",
            ),
            (
                "Political effects of Hurricane Katrina",
                "Social effects of Hurricane Katrina",
            ),
        ] {
            let topics = t(a, b);
            assert!(topics.aspects && topics.related(), "{a} / {b}: {topics:?}");
        }
        for (a, b) in [
            ("Politics of Spain", "Politics of Slovakia"),
            ("Human nutrition", "Animal nutrition"),
            ("2016 in aquatic sports", "2013 in aquatic sports"),
        ] {
            assert!(!t(a, b).aspects, "{a} / {b}");
        }
    }

    /// A passage copied between two seasons of one series is structure reuse: the frame of
    /// the titles says the topics differ, however much wording the passages share.
    #[test]
    fn shared_wording_in_one_title_frame_is_structure() {
        let a = "The team played its home games at Gillette Stadium and was led by head coach \
                 Bill Belichick, who also served as general manager, in the regular season.";
        let kind = |ta, tb| {
            Classifier::Rules
                .profile_titled(a, a, 40 * a.len(), 40 * a.len(), Some((ta, tb)))
                .kind
        };
        assert_eq!(
            kind(
                "2017 New England Patriots season",
                "2017 Denver Broncos season"
            ),
            ReuseKind::Structure
        );
        // The same part of two articles on aspects of one topic is content reuse.
        assert_eq!(
            kind("Transport in Bulgaria", "Economy of Bulgaria"),
            ReuseKind::Content
        );
    }

    /// Short passages sharing a few word 4-grams of common phrasing are not reuse.
    #[test]
    fn few_shared_fourgrams_are_spurious() {
        let a = "The city is located on the banks of the river and has a population of \
                 artists, students and retired teachers from the north.";
        let b = "The village is located on the banks of a lake, where fishermen and farmers \
                 have lived since the middle ages with their families.";
        let p = Classifier::Rules.profile_titled(
            a,
            b,
            50 * a.len(),
            50 * b.len(),
            Some(("Astoria, Oregon", "Kansas City, Missouri")),
        );
        assert!(p.shared_4grams < SPURIOUS_MIN_SHARED_4GRAMS, "{p:?}");
        assert_eq!(p.kind, ReuseKind::Spurious, "{p:?}");
    }

    #[test]
    fn empty_passages() {
        let p = profile("", "", 0, 0);
        assert_eq!(p.kind, ReuseKind::Content);
        assert_eq!(p.words, (0, 0));
        assert_eq!(p.ngram_jaccard, [0.0; 4]);
        assert_eq!((p.source_share, p.suspicious_share), (0.0, 0.0));
    }
}
