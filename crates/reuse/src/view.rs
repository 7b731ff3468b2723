//! The corpus view of a reuse run (`corpus.json`): the article graph, the distributions of
//! reused length and of word n-gram similarity, the class shares and the top pairs, in a size
//! bounded whatever the run's size.
//!
//! [`CorpusView`] is a [`ReuseSink`]: it reads each [`PairResult`] as it passes and keeps, per
//! article (document with a case), its number, a degree, a case count, a union-find entry and
//! the document's id and title, plus fixed-size histograms and the `K` top pairs; nothing per
//! case, and nothing for the documents without a case. Under a memory bound the articles and
//! their names move to temporary files past their shares
//! ([`CorpusViewBuilder::articles_memory`], [`CorpusViewBuilder::names_memory`]), with the
//! same summary. At the end,
//! [`CorpusView::summary`] makes a [`CorpusSummary`], which serialises as `corpus.json`
//! ([`ReuseOutputDir`](crate::ReuseOutputDir) writes it beside the other outputs, and the
//! report of `textreuse report` reads it back).
//!
//! The summary depends only on the set of pairs, not on their order: top lists rank by a
//! total order (ties broken by document numbers), a component is named by its members, and
//! sums are per pair. So it is the same for every thread count, and for the Spark job, which
//! feeds the pairs in the CLI's order anyway.
//!
//! ```
//! use textreuse_corpus::Document;
//! use textreuse_reuse::{CorpusView, Reuse};
//!
//! let shared = "Honey bees live in large colonies with a single queen, thousands of workers \
//!               and a few hundred drones, and they store honey in wax combs for the winter.";
//! let corpus = vec![
//!     Document::new(1, "Honey bee", format!("{shared}\n\nBees visit flowers for nectar.")),
//!     Document::new(2, "Wasp", "Wasps build paper nests from chewed wood fibre every spring."),
//!     Document::new(3, "Honey bee colony", format!("A colony is one household.\n\n{shared}")),
//! ];
//! let mut view = CorpusView::new();
//! Reuse::builder().min_passage_len(60).build()?.run(&corpus, None, &mut view)?;
//! let summary = view.summary()?;
//! assert_eq!((summary.graph.articles, summary.graph.edges), (2, 1));
//! assert_eq!(summary.graph.largest_components[0].members[0].title, "Honey bee");
//! assert_eq!(summary.kinds.content, 1);
//! assert_eq!(summary.jaccard_10.above, 1); // a verbatim copy: 10-gram Jaccard 1
//! assert_eq!(summary.top_pairs[0].source.title, "Honey bee");
//! let json = serde_json::to_string(&summary)?;
//! assert!(json.starts_with(r#"{"version":1,"documents":3,"#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `corpus.json`
//!
//! One JSON object, fields in this order (see each type for its fields' meaning):
//!
//! * `version` (1), `documents` (of the run, both sides), `candidate_pairs` (pairs aligned),
//!   `pairs` (pairs with at least one case), `cases`;
//! * `kinds`: cases per [`ReuseKind`], `{"content", "structure", "unclassified", "spurious"}`
//!   (spurious cases are counted here only: they are no edge of the graph and in no histogram);
//! * `graph` ([`GraphSummary`]): articles (documents with a case) as nodes, pairs with a case
//!   as edges: `articles`, `edges`, `max_degree`, `degrees` (articles per degree, degrees
//!   above 64 in bins of powers of two), `components`, `component_sizes`,
//!   `largest_components` (size, edges, cases and the members of highest degree), and
//!   `top_articles` (by degree);
//! * `lengths` ([`LengthHistogram`]): cases by the length of the suspicious passage in words,
//!   in bins of half an octave (1, 2, 3, 4-5, 6-7, 8-11, 12-15, ...);
//! * `jaccard_10` and `jaccard_2` ([`JaccardHistogram`]): cases by their word 10-gram (2-gram)
//!   Jaccard in bins of 0.05, and how many are at most the thesis's split, 0.1, or above it;
//! * `top_pairs` ([`TopPair`]): the pairs with the most reused characters.
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use textreuse_corpus::Document;

use crate::graph::ArticleGraph;
use crate::output::covered;
use crate::{PairResult, ReuseCase, ReuseKind, ReuseSink, ReuseStats};

/// Top pairs kept by default.
pub const DEFAULT_TOP_PAIRS: usize = 50;
/// Top articles (by degree) kept by default.
pub const DEFAULT_TOP_ARTICLES: usize = 50;
/// Largest components listed by default.
pub const DEFAULT_LARGEST_COMPONENTS: usize = 20;
/// Members listed per component by default (those of highest degree).
pub const DEFAULT_COMPONENT_MEMBERS: usize = 5;
/// The most entries any list of the view can have: the options are capped here, so that
/// `corpus.json` stays small.
pub const MAX_LIST: usize = 1000;
/// The thesis's split of the word 10-gram Jaccard: at most this is paraphrase-like reuse,
/// above it copy-like.
pub const JACCARD_SPLIT: f64 = 0.1;
/// Bins of the Jaccard histograms (each 1/20 = 0.05 wide).
pub const JACCARD_BINS: usize = 20;
/// Degrees (and component sizes) up to this have a bin each; larger ones share a bin per power
/// of two.
pub const EXACT_DEGREES: u64 = 64;
/// The version of the `corpus.json` schema.
pub const CORPUS_JSON_VERSION: u32 = 1;

/// A document number the view cannot hold: the view numbers documents with `u32`, as a run
/// does ([`ReuseError::TooManyDocuments`](crate::ReuseError::TooManyDocuments)).
///
/// Recover by splitting the corpus into runs of fewer than 2^32 - 1 documents.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("document number {number} is too large for the corpus view (at most 2^32 - 2)")]
pub struct DocumentNumberError {
    /// The number given.
    pub number: usize,
}

impl From<DocumentNumberError> for std::io::Error {
    fn from(e: DocumentNumberError) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    }
}

/// What the view needs of one case: where it is (characters, for the reused characters of its
/// pair), its kind, the suspicious passage's length in words and two of its similarities.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseView {
    /// Character range in the suspicious document.
    pub suspicious: Range<usize>,
    /// Character range in the source document.
    pub source: Range<usize>,
    /// Content, structure, unclassified or spurious.
    pub kind: ReuseKind,
    /// Words of the suspicious passage.
    pub words: usize,
    /// Word 2-gram Jaccard of the two passages.
    pub jaccard_2: f64,
    /// Word 10-gram Jaccard of the two passages.
    pub jaccard_10: f64,
}

impl From<&ReuseCase> for CaseView {
    fn from(c: &ReuseCase) -> CaseView {
        CaseView {
            suspicious: c.suspicious.clone(),
            source: c.source.clone(),
            kind: c.profile.kind,
            words: c.profile.words.1,
            jaccard_2: c.profile.ngram_jaccard[0],
            jaccard_10: c.profile.ngram_jaccard[2],
        }
    }
}

/// The options of a [`CorpusView`]: how long its lists are (each at most [`MAX_LIST`]).
#[derive(Clone, Debug)]
pub struct CorpusViewBuilder {
    top_pairs: usize,
    top_articles: usize,
    largest_components: usize,
    component_members: usize,
    names_memory: u64,
    articles_memory: u64,
    tmp_dir: Option<PathBuf>,
}

impl Default for CorpusViewBuilder {
    fn default() -> Self {
        CorpusViewBuilder::new()
    }
}

impl CorpusViewBuilder {
    /// The defaults: [`DEFAULT_TOP_PAIRS`], [`DEFAULT_TOP_ARTICLES`],
    /// [`DEFAULT_LARGEST_COMPONENTS`], [`DEFAULT_COMPONENT_MEMBERS`].
    pub fn new() -> CorpusViewBuilder {
        CorpusViewBuilder {
            top_pairs: DEFAULT_TOP_PAIRS,
            top_articles: DEFAULT_TOP_ARTICLES,
            largest_components: DEFAULT_LARGEST_COMPONENTS,
            component_members: DEFAULT_COMPONENT_MEMBERS,
            names_memory: u64::MAX,
            articles_memory: u64::MAX,
            tmp_dir: None,
        }
    }

    /// Pairs listed in [`CorpusSummary::top_pairs`] (at most [`MAX_LIST`]).
    pub fn top_pairs(&mut self, n: usize) -> &mut Self {
        self.top_pairs = n.min(MAX_LIST);
        self
    }

    /// Articles listed in [`GraphSummary::top_articles`] (at most [`MAX_LIST`]).
    pub fn top_articles(&mut self, n: usize) -> &mut Self {
        self.top_articles = n.min(MAX_LIST);
        self
    }

    /// Components listed in [`GraphSummary::largest_components`] (at most [`MAX_LIST`]).
    pub fn largest_components(&mut self, n: usize) -> &mut Self {
        self.largest_components = n.min(MAX_LIST);
        self
    }

    /// Members listed per component (at most [`MAX_LIST`]).
    pub fn component_members(&mut self, n: usize) -> &mut Self {
        self.component_members = n.min(MAX_LIST);
        self
    }

    /// Holds about `bytes` of the articles' ids and titles in memory; past it they go to a
    /// temporary file in [`tmp_dir`](CorpusViewBuilder::tmp_dir), read back for the names
    /// the summary lists. No limit by default. The summary is the same either way.
    pub fn names_memory(&mut self, bytes: u64) -> &mut Self {
        self.names_memory = bytes;
        self
    }

    /// Holds the articles' degrees, case counts and components in memory while they take
    /// at most `bytes` (35 to 70 bytes an article, as its arrays and hash map grow); past it
    /// they move to a temporary file in [`tmp_dir`](CorpusViewBuilder::tmp_dir), 24 bytes per
    /// document number up to the largest article's (written only for the articles), read and
    /// written with positioned reads. No limit by default. The summary is the same either way.
    pub fn articles_memory(&mut self, bytes: u64) -> &mut Self {
        self.articles_memory = bytes;
        self
    }

    /// Where the temporary files of [`names_memory`](CorpusViewBuilder::names_memory) and
    /// [`articles_memory`](CorpusViewBuilder::articles_memory) go (`None`, the default: the
    /// system's temporary directory).
    pub fn tmp_dir(&mut self, dir: Option<PathBuf>) -> &mut Self {
        self.tmp_dir = dir;
        self
    }

    /// The view, empty.
    pub fn build(&self) -> CorpusView {
        CorpusView {
            options: self.clone(),
            graph: ArticleGraph::default(),
            names: Names {
                budget: self.names_memory,
                tmp_dir: self.tmp_dir.clone(),
                ..Names::default()
            },
            documents: 0,
            candidate_pairs: 0,
            pairs: 0,
            cases: 0,
            kinds: [0; 4],
            lengths: Vec::new(),
            jaccard_10: [0; JACCARD_BINS],
            jaccard_2: [0; JACCARD_BINS],
            split_10: [0; 2],
            split_2: [0; 2],
            top_pairs: BinaryHeap::new(),
        }
    }
}

/// The corpus view of a reuse run, filled pair by pair (see the [module docs](self)).
#[derive(Debug)]
pub struct CorpusView {
    options: CorpusViewBuilder,
    /// The articles (documents with a case): degree, cases, component, where their names are.
    graph: ArticleGraph,
    /// The articles' ids and titles.
    names: Names,
    documents: u64,
    candidate_pairs: u64,
    pairs: u64,
    cases: u64,
    kinds: [u64; 4],
    lengths: Vec<u64>,
    jaccard_10: [u64; JACCARD_BINS],
    jaccard_2: [u64; JACCARD_BINS],
    split_10: [u64; 2],
    split_2: [u64; 2],
    /// The best pairs so far, the worst on top (to be dropped first).
    top_pairs: BinaryHeap<Reverse<Ranked>>,
}

impl Default for CorpusView {
    fn default() -> Self {
        CorpusView::new()
    }
}

/// The ids and titles of the articles, one string arena (no allocation per article), held in
/// memory up to a budget: past it, the arena so far is appended to a temporary file and read
/// back from there (a positioned read per name asked for: the top pairs, articles and
/// components' members). The article graph keeps where each article's entry starts.
#[derive(Debug)]
struct Names {
    /// Entries from `on_disk` on: the id's length (u32, little-endian), the id, the title's
    /// length, the title.
    bytes: Vec<u8>,
    /// Bytes of the arena in `file` (its beginning).
    on_disk: u64,
    file: Option<File>,
    /// Past this many bytes in memory the arena goes to the file (`u64::MAX`: never).
    budget: u64,
    tmp_dir: Option<PathBuf>,
}

impl Default for Names {
    fn default() -> Names {
        Names {
            bytes: Vec::new(),
            on_disk: 0,
            file: None,
            budget: u64::MAX,
            tmp_dir: None,
        }
    }
}

impl Names {
    /// Appends a document's id and title; returns where they start.
    fn append(&mut self, doc: &Document) -> io::Result<u64> {
        let start = self.on_disk + self.bytes.len() as u64;
        let id = doc.id.to_string();
        for s in [id.as_str(), doc.title.as_str()] {
            // Titles and ids of more than 4 GiB are cut (on a character boundary).
            let mut end = s.len().min(u32::MAX as usize);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            self.bytes.extend_from_slice(&(end as u32).to_le_bytes());
            self.bytes.extend_from_slice(&s.as_bytes()[..end]);
        }
        if self.bytes.len() as u64 > self.budget {
            let file = match &mut self.file {
                Some(file) => file,
                None => self
                    .file
                    .insert(crate::doc_array::temp_file(self.tmp_dir.as_deref())?),
            };
            crate::doc_array::write_at(file, &self.bytes, self.on_disk)?;
            self.on_disk += self.bytes.len() as u64;
            // Kept at its size, not shrunk: it fills up again, and a large block handed back
            // to glibc raises its threshold for serving blocks from the heap (measured: 100 MiB
            // more peak on a 1M-document run).
            self.bytes.clear();
        }
        Ok(start)
    }

    /// `len` bytes of the arena from `at`, from memory or the file.
    fn read(&self, at: u64, len: usize) -> io::Result<Vec<u8>> {
        let mut out = vec![0u8; len];
        let mut done = 0;
        if at < self.on_disk {
            let from_file = len.min((self.on_disk - at) as usize);
            let file = self
                .file
                .as_ref()
                .expect("a file holds the arena's beginning");
            crate::doc_array::read_at(file, &mut out[..from_file], at)?;
            done = from_file;
        }
        if done < len {
            let mem = (at + done as u64 - self.on_disk) as usize;
            out[done..].copy_from_slice(&self.bytes[mem..mem + len - done]);
        }
        Ok(out)
    }

    /// The id and title that start at `start`.
    fn get(&self, start: u64) -> io::Result<(String, String)> {
        let mut at = start;
        let mut next = || -> io::Result<String> {
            let len = u32::from_le_bytes(self.read(at, 4)?.try_into().expect("4 bytes"));
            let s = self.read(at + 4, len as usize)?;
            at += 4 + u64::from(len);
            String::from_utf8(s)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "damaged names file"))
        };
        let id = next()?;
        Ok((id, next()?))
    }

    fn article(&self, start: u64) -> io::Result<ArticleRef> {
        let (doc, title) = self.get(start)?;
        Ok(ArticleRef { doc, title })
    }
}

/// A component while the summary picks the largest: its rank (size, then edges, largest first,
/// then the smallest member), its root and its sums (see `graph::RootSums`).
type LargestComponent = ((Reverse<u64>, Reverse<u64>, u64), u32, [u64; 4]);

/// A member of a listed component while the summary picks those of highest degree: degree
/// (highest first), number, cases, where its names are.
type ListedMember = (Reverse<u32>, u32, u32, u64);

/// A top pair while the run goes: ranked by the suspicious side's reused characters, then the
/// source side's, then by document numbers (lower first).
#[derive(Debug)]
struct Ranked {
    suspicious_chars: u64,
    source_chars: u64,
    numbers: (usize, usize),
    pair: TopPair,
}

impl Ranked {
    fn key(&self) -> (u64, u64, Reverse<(usize, usize)>) {
        (
            self.suspicious_chars,
            self.source_chars,
            Reverse(self.numbers),
        )
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

/// The bin of a Jaccard value: `k` for `k/20 <= j < (k+1)/20`, the last bin closed (compared
/// with the bins' edges, so a value of exactly `k/20` falls in bin `k`).
fn jaccard_bin(j: f64) -> usize {
    (1..JACCARD_BINS)
        .take_while(|&k| j >= k as f64 / JACCARD_BINS as f64)
        .count()
}

/// The half-octave bin of a length: 0, 1, 2, 3, then `[4, 6)`, `[6, 8)`, `[8, 12)`,
/// `[12, 16)`, ...
fn length_bin(v: u64) -> usize {
    if v < 4 {
        return v as usize;
    }
    let k = 63 - v.leading_zeros() as u64; // 2^k <= v < 2^(k+1), k >= 2
    let upper_half = v >= 3 << (k - 1);
    4 + 2 * (k as usize - 2) + upper_half as usize
}

/// The lowest length of a [`length_bin`] (`2^64` for the bin after the last).
fn length_bin_start(b: usize) -> u128 {
    if b < 4 {
        return b as u128;
    }
    let k = 2 + (b - 4) / 2;
    let half = (b - 4) % 2;
    (1u128 << k) + half as u128 * (1u128 << (k - 1))
}

/// The bin of a degree or component size (at least 1): `v - 1` up to [`EXACT_DEGREES`], then
/// one per power of two: `(64, 128]`, `(128, 256]`, ...
fn degree_bin(v: u64) -> usize {
    if v <= EXACT_DEGREES {
        return v.saturating_sub(1) as usize;
    }
    // The k with 2^(k-1) < v <= 2^k.
    let k = 64 - (v - 1).leading_zeros() as usize;
    EXACT_DEGREES as usize + k - 7
}

/// The smallest and largest value of a [`degree_bin`].
fn degree_bin_bounds(b: usize) -> (u64, u64) {
    if b < EXACT_DEGREES as usize {
        return (b as u64 + 1, b as u64 + 1);
    }
    let k = b - EXACT_DEGREES as usize + 7;
    ((1u64 << (k - 1)) + 1, 1u64 << k)
}

impl CorpusView {
    /// An empty view with the default list lengths.
    pub fn new() -> CorpusView {
        CorpusViewBuilder::new().build()
    }

    /// The options, to change.
    pub fn builder() -> CorpusViewBuilder {
        CorpusViewBuilder::new()
    }

    /// Counts a pair as [`ReuseSink::pair`] does.
    pub fn add_pair(&mut self, pair: &PairResult<'_>) -> io::Result<()> {
        self.add(
            pair.suspicious,
            pair.source,
            pair.cases.iter().map(CaseView::from),
        )
    }

    /// Counts a candidate pair of document numbers and documents (their id and title are
    /// kept), with its cases (none: a candidate the alignment did not confirm). Each pair
    /// must be given once, as a run gives it.
    pub fn add(
        &mut self,
        suspicious: (usize, &Document),
        source: (usize, &Document),
        cases: impl IntoIterator<Item = CaseView>,
    ) -> io::Result<()> {
        let (a, b) = (suspicious.0, source.0);
        let most = a.max(b);
        if most >= u32::MAX as usize {
            return Err(DocumentNumberError { number: most }.into());
        }
        self.candidate_pairs += 1;
        let (mut susp_ranges, mut src_ranges) = (Vec::new(), Vec::new());
        let (mut n, mut kinds, mut sum_j10) = (0u64, [0u64; 4], 0.0);
        for c in cases {
            let kind = ReuseKind::ALL
                .iter()
                .position(|&k| k == c.kind)
                .expect("every kind is in ALL");
            kinds[kind] += 1;
            // A case marked spurious is counted as such and is no edge, length or similarity.
            if c.kind == ReuseKind::Spurious {
                continue;
            }
            n += 1;
            let bin = length_bin(c.words as u64);
            if self.lengths.len() <= bin {
                self.lengths.resize(bin + 1, 0);
            }
            self.lengths[bin] += 1;
            self.jaccard_10[jaccard_bin(c.jaccard_10)] += 1;
            self.jaccard_2[jaccard_bin(c.jaccard_2)] += 1;
            self.split_10[usize::from(c.jaccard_10 > JACCARD_SPLIT)] += 1;
            self.split_2[usize::from(c.jaccard_2 > JACCARD_SPLIT)] += 1;
            sum_j10 += c.jaccard_10;
            susp_ranges.push(c.suspicious);
            src_ranges.push(c.source);
        }
        for (total, k) in self.kinds.iter_mut().zip(kinds) {
            *total += k;
        }
        if n == 0 {
            return Ok(());
        }
        self.pairs += 1;
        self.cases += n;
        let cases_u32 = u32::try_from(n).unwrap_or(u32::MAX);
        self.graph.make_room(
            [a as u32, b as u32],
            self.options.articles_memory,
            self.options.tmp_dir.as_deref(),
        )?;
        let mut keys = [0; 2];
        for ((d, doc), key) in [suspicious, source].into_iter().zip(&mut keys) {
            let names = &mut self.names;
            *key = self
                .graph
                .count(d as u32, cases_u32, || names.append(doc))?;
        }
        self.graph.union(keys[0], keys[1])?;
        let (susp_chars, src_chars) = (
            covered(&mut susp_ranges) as u64,
            covered(&mut src_ranges) as u64,
        );
        let k = self.options.top_pairs;
        let worst = self.top_pairs.peek().map(|w| w.0.key());
        let key = (susp_chars, src_chars, Reverse((a, b)));
        if k > 0 && (self.top_pairs.len() < k || worst.is_some_and(|w| key > w)) {
            let [content, structure, unclassified, _spurious] = kinds;
            self.top_pairs.push(Reverse(Ranked {
                suspicious_chars: susp_chars,
                source_chars: src_chars,
                numbers: (a, b),
                pair: TopPair {
                    suspicious: self.names.article(self.graph.name(keys[0])?)?,
                    source: self.names.article(self.graph.name(keys[1])?)?,
                    cases: n,
                    content,
                    structure,
                    unclassified,
                    suspicious_chars: susp_chars,
                    source_chars: src_chars,
                    mean_jaccard_10: sum_j10 / n as f64,
                },
            }));
            if self.top_pairs.len() > k {
                self.top_pairs.pop();
            }
        }
        Ok(())
    }

    /// The number of articles when they moved to a temporary file
    /// ([`CorpusViewBuilder::articles_memory`]), if they did.
    pub fn articles_moved_at(&self) -> Option<u64> {
        self.graph.moved_at()
    }

    /// Sets the number of documents of the run (both sides), which [`ReuseSink::finish`] takes
    /// from the run's [`ReuseStats`].
    pub fn set_documents(&mut self, documents: u64) -> &mut Self {
        self.documents = documents;
        self
    }

    /// The view of the pairs given so far.
    pub fn summary(&self) -> io::Result<CorpusSummary> {
        let [content, structure, unclassified, spurious] = self.kinds;
        let first = self.lengths.iter().position(|&c| c > 0).unwrap_or(0);
        let lengths = self
            .lengths
            .iter()
            .enumerate()
            .skip(first)
            .map(|(b, &cases)| LengthBin {
                min: length_bin_start(b) as u64,
                max: (length_bin_start(b + 1) - 1) as u64,
                cases,
            })
            .collect();
        let mut top_pairs: Vec<&Ranked> = self.top_pairs.iter().map(|r| &r.0).collect();
        top_pairs.sort_by(|a, b| b.cmp(a));
        Ok(CorpusSummary {
            version: CORPUS_JSON_VERSION,
            documents: self.documents,
            candidate_pairs: self.candidate_pairs,
            pairs: self.pairs,
            cases: self.cases,
            kinds: KindCounts {
                content,
                structure,
                unclassified,
                spurious,
            },
            graph: self.graph()?,
            lengths: LengthHistogram {
                unit: "words".into(),
                side: "suspicious".into(),
                bins: lengths,
            },
            jaccard_10: JaccardHistogram::new(10, &self.jaccard_10, self.split_10),
            jaccard_2: JaccardHistogram::new(2, &self.jaccard_2, self.split_2),
            top_pairs: top_pairs.into_iter().map(|r| r.pair.clone()).collect(),
        })
    }

    fn graph(&self) -> io::Result<GraphSummary> {
        let o = &self.options;
        // Articles in document order: the degrees, the top articles (degree, then cases, then
        // number) and the sums per component.
        let mut sums = self.graph.roots()?;
        let mut degrees: Vec<u64> = Vec::new();
        let (mut articles, mut max_degree) = (0u64, 0u32);
        let mut top: Vec<(Reverse<u32>, Reverse<u32>, u32, u64)> = Vec::new();
        let k = o.top_articles;
        self.graph.for_each(|d, a, root| {
            articles += 1;
            max_degree = max_degree.max(a.degree);
            let bin = degree_bin(u64::from(a.degree));
            if degrees.len() <= bin {
                degrees.resize(bin + 1, 0);
            }
            degrees[bin] += 1;
            if k > 0 {
                top.push((Reverse(a.degree), Reverse(a.cases), d, a.name));
                if top.len() > 4 * k {
                    top.sort_unstable();
                    top.truncate(k);
                }
            }
            sums.add(root, d, a)
        })?;
        top.sort_unstable();
        top.truncate(k);
        // Components: sizes, and the largest (size, then edges, then the smallest member,
        // lower first).
        let mut sizes: Vec<u64> = Vec::new();
        let mut components = 0u64;
        let mut largest: Vec<LargestComponent> = Vec::new();
        let keep = o.largest_components;
        sums.for_each(|root, c| {
            components += 1;
            let bin = degree_bin(c[0]);
            if sizes.len() <= bin {
                sizes.resize(bin + 1, 0);
            }
            sizes[bin] += 1;
            if keep > 0 {
                largest.push(((Reverse(c[0]), Reverse(c[1]), c[3]), root, c));
                if largest.len() > 4 * keep {
                    largest.sort_unstable();
                    largest.truncate(keep);
                }
            }
        })?;
        largest.sort_unstable();
        largest.truncate(keep);
        // The members of highest degree of the listed components (ties: lower number first).
        let listed: HashMap<u32, usize> = largest
            .iter()
            .enumerate()
            .map(|(i, &(_, root, _))| (root, i))
            .collect();
        let m = o.component_members;
        let mut members: Vec<Vec<ListedMember>> = vec![Vec::new(); largest.len()];
        if m > 0 && !listed.is_empty() {
            self.graph.for_each(|d, a, root| {
                if let Some(&i) = listed.get(&root) {
                    let list = &mut members[i];
                    list.push((Reverse(a.degree), d, a.cases, a.name));
                    if list.len() > 4 * m {
                        list.sort_unstable();
                        list.truncate(m);
                    }
                }
                Ok(())
            })?;
        }
        let article = |degree: u32, cases: u32, name: u64| -> io::Result<Article> {
            let (doc, title) = self.names.get(name)?;
            Ok(Article {
                doc,
                title,
                degree: u64::from(degree),
                cases: u64::from(cases),
            })
        };
        let largest_components = largest
            .iter()
            .zip(members)
            .map(|((_, _, c), mut list)| {
                list.sort_unstable();
                list.truncate(m);
                Ok(Component {
                    size: c[0],
                    edges: c[1] / 2,
                    cases: c[2] / 2,
                    members: list
                        .into_iter()
                        .map(|(Reverse(degree), _, cases, name)| article(degree, cases, name))
                        .collect::<io::Result<_>>()?,
                })
            })
            .collect::<io::Result<Vec<_>>>()?;
        let bins = |counts: &[u64]| -> Vec<DegreeBin> {
            counts
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c > 0)
                .map(|(b, &count)| {
                    let (min, max) = degree_bin_bounds(b);
                    DegreeBin { min, max, count }
                })
                .collect()
        };
        Ok(GraphSummary {
            articles,
            edges: self.pairs,
            max_degree: u64::from(max_degree),
            degrees: bins(&degrees),
            components,
            component_sizes: bins(&sizes),
            largest_components,
            top_articles: top
                .into_iter()
                .map(|(Reverse(degree), Reverse(cases), _, name)| article(degree, cases, name))
                .collect::<io::Result<_>>()?,
        })
    }

    /// Writes the summary as `corpus.json` is written: pretty-printed JSON and a line break.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *w, &self.summary()?)?;
        w.write_all(b"\n")
    }
}

impl ReuseSink for CorpusView {
    fn pair(&mut self, pair: &PairResult<'_>) -> std::io::Result<()> {
        self.add_pair(pair)
    }

    fn finish(&mut self, stats: &ReuseStats) -> std::io::Result<()> {
        self.set_documents(stats.documents + stats.against_documents);
        Ok(())
    }
}

/// The corpus view of a run: the schema of `corpus.json` (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CorpusSummary {
    /// The schema's version, [`CORPUS_JSON_VERSION`].
    pub version: u32,
    /// Documents of the run (the corpus's and the other side's).
    pub documents: u64,
    /// Candidate pairs (aligned, with or without a case).
    pub candidate_pairs: u64,
    /// Pairs with at least one case: the article graph's edges.
    pub pairs: u64,
    /// Cases (passages).
    pub cases: u64,
    /// Cases per kind.
    pub kinds: KindCounts,
    /// The article graph.
    pub graph: GraphSummary,
    /// Cases by length.
    pub lengths: LengthHistogram,
    /// Cases by word 10-gram Jaccard.
    pub jaccard_10: JaccardHistogram,
    /// Cases by word 2-gram Jaccard.
    pub jaccard_2: JaccardHistogram,
    /// The pairs with the most reused characters on the suspicious side (ties: on the source
    /// side, then the earlier pair in input order), most first.
    pub top_pairs: Vec<TopPair>,
}

/// Cases per [`ReuseKind`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCounts {
    /// Content reuse.
    pub content: u64,
    /// Structure reuse.
    pub structure: u64,
    /// Neither (the thesis's rules only).
    pub unclassified: u64,
    /// Not reuse by the evidence (the default rules only); not in the graph, the histograms,
    /// the top pairs or `cases`.
    #[serde(default)]
    pub spurious: u64,
}

/// The article graph: documents with at least one case are its nodes (articles), pairs with at
/// least one case its edges (once per pair, whatever its number of cases).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GraphSummary {
    /// Nodes: documents with a case.
    pub articles: u64,
    /// Edges: pairs with a case.
    pub edges: u64,
    /// The highest degree.
    pub max_degree: u64,
    /// Articles per degree (`count` articles with a degree in `min..=max`; one degree per bin
    /// up to [`EXACT_DEGREES`], then one bin per power of two), empty bins left out.
    pub degrees: Vec<DegreeBin>,
    /// Connected components.
    pub components: u64,
    /// Components per size in articles (binned as `degrees`).
    pub component_sizes: Vec<DegreeBin>,
    /// The largest components (by articles, then edges), largest first.
    pub largest_components: Vec<Component>,
    /// The articles of highest degree (ties: more cases, then earlier in input order).
    pub top_articles: Vec<Article>,
}

/// `count` items whose value is in `min..=max`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DegreeBin {
    /// The smallest value of the bin.
    pub min: u64,
    /// The largest value of the bin.
    pub max: u64,
    /// Items (articles, or components) in the bin.
    pub count: u64,
}

/// A connected component of the article graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Component {
    /// Articles.
    pub size: u64,
    /// Pairs with a case within it.
    pub edges: u64,
    /// Cases within it.
    pub cases: u64,
    /// Its articles of highest degree (ties: earlier in input order), highest first.
    pub members: Vec<Article>,
}

/// An article of the graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Article {
    /// Its id in the input.
    pub doc: String,
    /// Its title.
    pub title: String,
    /// Pairs with a case it is in.
    pub degree: u64,
    /// Cases it is in.
    pub cases: u64,
}

/// A document of a [`TopPair`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArticleRef {
    /// Its id in the input.
    pub doc: String,
    /// Its title.
    pub title: String,
}

/// A pair of documents with reuse.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TopPair {
    /// The suspicious (reusing) document.
    pub suspicious: ArticleRef,
    /// The source document.
    pub source: ArticleRef,
    /// Its cases.
    pub cases: u64,
    /// Its content-reuse cases.
    pub content: u64,
    /// Its structure-reuse cases.
    pub structure: u64,
    /// Its unclassified cases.
    pub unclassified: u64,
    /// Characters of the suspicious document within the pair's passages.
    pub suspicious_chars: u64,
    /// Characters of the source document within the pair's passages.
    pub source_chars: u64,
    /// The mean word 10-gram Jaccard of its cases.
    pub mean_jaccard_10: f64,
}

/// Cases by the length of a passage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LengthHistogram {
    /// What is counted: `"words"`.
    pub unit: String,
    /// Whose passage: `"suspicious"`.
    pub side: String,
    /// Half-octave bins (0, 1, 2, 3, 4-5, 6-7, 8-11, 12-15, 16-23, ...), from the first
    /// non-empty one to the last, empty ones between included.
    pub bins: Vec<LengthBin>,
}

/// `cases` cases of `min..=max` words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LengthBin {
    /// The shortest length of the bin.
    pub min: u64,
    /// The longest length of the bin.
    pub max: u64,
    /// Cases in the bin.
    pub cases: u64,
}

/// Cases by their word n-gram Jaccard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JaccardHistogram {
    /// The n-gram length, 10 or 2.
    pub n: u32,
    /// [`JACCARD_BINS`] bins of 0.05: `cases` with `from <= J < to` (the last bin `to`
    /// included).
    pub bins: Vec<JaccardBin>,
    /// The split, [`JACCARD_SPLIT`].
    pub split: f64,
    /// Cases with `J <= split`.
    pub at_most: u64,
    /// Cases with `J > split`.
    pub above: u64,
}

impl JaccardHistogram {
    fn new(n: u32, counts: &[u64; JACCARD_BINS], split: [u64; 2]) -> JaccardHistogram {
        let edge = |k: usize| k as f64 / JACCARD_BINS as f64;
        JaccardHistogram {
            n,
            bins: counts
                .iter()
                .enumerate()
                .map(|(k, &cases)| JaccardBin {
                    from: edge(k),
                    to: edge(k + 1),
                    cases,
                })
                .collect(),
            split: JACCARD_SPLIT,
            at_most: split[0],
            above: split[1],
        }
    }
}

/// `cases` cases with a Jaccard in `from..to`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JaccardBin {
    /// The bin's lower edge.
    pub from: f64,
    /// The bin's upper edge.
    pub to: f64,
    /// Cases in the bin.
    pub cases: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(n: usize) -> Document {
        Document::new(100 + n as u64, format!("T{n}"), "")
    }

    fn case(chars: Range<usize>, kind: ReuseKind, words: usize, j2: f64, j10: f64) -> CaseView {
        CaseView {
            suspicious: chars.clone(),
            source: chars,
            kind,
            words,
            jaccard_2: j2,
            jaccard_10: j10,
        }
    }

    /// A graph of two components, {0, 1, 2, 3} (a star around 0 plus 2-3) and {5, 6}, a pair
    /// without cases (7, 8), and the cases' values chosen to land on bin edges.
    fn pairs() -> Vec<(usize, usize, Vec<CaseView>)> {
        use ReuseKind::*;
        vec![
            (1, 0, vec![case(0..100, Content, 3, 1.0, 1.0)]),
            (
                2,
                0,
                vec![
                    case(0..50, Structure, 4, 0.5, 0.1),
                    case(40..80, Content, 5, 0.3, 0.15),
                ],
            ),
            (3, 0, vec![case(0..10, Unclassified, 6, 0.05, 0.0)]),
            (3, 2, vec![case(0..500, Content, 12, 0.95, 0.100001)]),
            (6, 5, vec![case(0..20, Content, 100, 0.2, 0.7)]),
            (8, 7, vec![]),
        ]
    }

    fn view_of(order: &[usize], top: usize) -> CorpusView {
        let docs: Vec<Document> = (0..10).map(doc).collect();
        let mut view = CorpusView::builder()
            .top_pairs(top)
            .top_articles(top)
            .largest_components(top)
            .component_members(top)
            .build();
        let pairs = pairs();
        for &i in order {
            let (a, b, cases) = &pairs[i];
            view.add((*a, &docs[*a]), (*b, &docs[*b]), cases.iter().cloned())
                .unwrap();
        }
        view.set_documents(10);
        view
    }

    #[test]
    fn spurious_cases_are_counted_and_nothing_else() {
        let docs: Vec<Document> = (0..10).map(doc).collect();
        let mut view = CorpusView::builder().build();
        let spurious = case(0..100, ReuseKind::Spurious, 40, 0.0, 0.0);
        view.add((1, &docs[1]), (0, &docs[0]), [spurious.clone()])
            .unwrap();
        view.add(
            (3, &docs[3]),
            (2, &docs[2]),
            [spurious, case(0..50, ReuseKind::Content, 9, 0.9, 0.8)],
        )
        .unwrap();
        let s = view.summary().unwrap();
        assert_eq!((s.kinds.spurious, s.kinds.content), (2, 1));
        // One pair, one case, two articles: the pair of only a spurious case is no edge.
        assert_eq!((s.candidate_pairs, s.pairs, s.cases), (2, 1, 1));
        assert_eq!(s.graph.articles, 2);
        assert_eq!(s.jaccard_10.above, 1);
    }

    #[test]
    fn counts_the_graph() {
        let s = view_of(&[0, 1, 2, 3, 4, 5], 10).summary().unwrap();
        assert_eq!((s.candidate_pairs, s.pairs, s.cases), (6, 5, 6));
        let g = &s.graph;
        assert_eq!(
            (g.articles, g.edges, g.max_degree, g.components),
            (6, 5, 3, 2)
        );
        // Degrees: 0 has 3; 2 and 3 have 2; 1, 5, 6 have 1.
        let degrees: Vec<_> = g.degrees.iter().map(|b| (b.min, b.max, b.count)).collect();
        assert_eq!(degrees, [(1, 1, 3), (2, 2, 2), (3, 3, 1)]);
        let sizes: Vec<_> = g.component_sizes.iter().map(|b| (b.min, b.count)).collect();
        assert_eq!(sizes, [(2, 1), (4, 1)]);
        let big = &g.largest_components[0];
        assert_eq!((big.size, big.edges, big.cases), (4, 4, 5));
        let titles: Vec<_> = big.members.iter().map(|a| a.title.as_str()).collect();
        assert_eq!(titles, ["T0", "T2", "T3", "T1"]); // by degree, then number
        assert_eq!(big.members[0].doc, "100");
        assert_eq!(g.largest_components[1].size, 2);
        assert_eq!(g.top_articles[0].title, "T0");
        assert_eq!((g.top_articles[0].degree, g.top_articles[0].cases), (3, 4));
        // T2 and T3 both have degree 2; T2 has 3 cases, T3 has 2.
        assert_eq!(g.top_articles[1].title, "T2");
    }

    #[test]
    fn counts_the_distributions() {
        let s = view_of(&[0, 1, 2, 3, 4, 5], 10).summary().unwrap();
        assert_eq!(
            s.kinds,
            KindCounts {
                content: 4,
                structure: 1,
                unclassified: 1,
                spurious: 0
            }
        );
        // 0.1 is at most the split; 0.100001 and 0.15 are above.
        let j10 = &s.jaccard_10;
        assert_eq!((j10.at_most, j10.above), (2, 4));
        let bins: Vec<u64> = j10.bins.iter().map(|b| b.cases).collect();
        // 0.0 -> 0; 0.1 and 0.100001 -> 2; 0.15 -> 3; 0.7 -> 14; 1.0 -> 19.
        let mut want = [0u64; 20];
        for b in [0, 2, 2, 3, 14, 19] {
            want[b] += 1;
        }
        assert_eq!(bins, want);
        assert_eq!((j10.bins[3].from, j10.bins[3].to), (0.15, 0.2));
        assert_eq!(s.jaccard_2.bins[1].cases, 1); // 0.05
        assert_eq!(s.jaccard_2.bins[19].cases, 2); // 0.95, 1.0
        // Words 3, 4, 5, 6, 12, 100: bins 3 | 4-5 | 6-7 | 12-15 | ... | 96-127.
        let lengths: Vec<_> = s
            .lengths
            .bins
            .iter()
            .map(|b| (b.min, b.max, b.cases))
            .collect();
        assert_eq!(
            lengths[..5],
            [(3, 3, 1), (4, 5, 2), (6, 7, 1), (8, 11, 0), (12, 15, 1)]
        );
        assert_eq!(*lengths.last().unwrap(), (96, 127, 1));
        // The top pair: 500 characters; then 2-0 with 80 (0..50 and 40..80 merged).
        assert_eq!(s.top_pairs[0].suspicious.title, "T3");
        assert_eq!(s.top_pairs[0].source.title, "T2");
        assert_eq!(s.top_pairs[1].suspicious_chars, 100);
        assert_eq!(s.top_pairs[2].suspicious_chars, 80);
        assert_eq!(s.top_pairs[2].cases, 2);
        assert!((s.top_pairs[2].mean_jaccard_10 - 0.125).abs() < 1e-12);
        assert_eq!(s.top_pairs.len(), 5);
    }

    #[test]
    fn the_same_whatever_the_order() {
        let a = view_of(&[0, 1, 2, 3, 4, 5], 10).summary().unwrap();
        let b = view_of(&[5, 4, 3, 2, 1, 0], 10).summary().unwrap();
        let c = view_of(&[3, 0, 5, 2, 4, 1], 10).summary().unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        let json = |s: &CorpusSummary| serde_json::to_string(s).unwrap();
        assert_eq!(json(&a), json(&c));
        let back: CorpusSummary = serde_json::from_str(&json(&a)).unwrap();
        assert_eq!(back, a);
    }

    /// Names moved to a file (a one-byte budget: after every article) give the summary the
    /// names in memory give, with long and multi-byte titles.
    #[test]
    fn names_on_disk_give_the_same_summary() {
        let docs: Vec<Document> = (0..400)
            .map(|n| Document::new(n as u64, format!("Tïtle {n} {}", "x".repeat(n % 97)), ""))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let mut small = CorpusView::builder();
        small
            .names_memory(1)
            .tmp_dir(Some(dir.path().to_path_buf()));
        let (mut small, mut all) = (small.build(), CorpusView::new());
        for v in [&mut small, &mut all] {
            for n in 1..400 {
                let c = case(0..n, ReuseKind::Content, n, 0.5, 0.5);
                v.add(
                    (n, &docs[n]),
                    ((n * 7) % n.max(2) / 2, &docs[(n * 7) % n.max(2) / 2]),
                    [c],
                )
                .unwrap();
            }
        }
        assert!(small.names.on_disk > 0 && small.names.bytes.is_empty());
        assert_eq!(all.names.on_disk, 0);
        let (a, b) = (small.summary().unwrap(), all.summary().unwrap());
        assert_eq!(a, b);
        assert!(a.graph.top_articles[0].title.starts_with("Tïtle"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The article graph in memory, moved to a file part way (a budget of a few dozen
        /// articles) or on disk from the first article (and the names too) gives the same
        /// summary, for random graphs with long lists and short ones.
        #[test]
        fn articles_on_disk_give_the_same_summary(
            edges in proptest::collection::vec((0usize..300, 0usize..300, 0usize..4), 1..400),
            lists in proptest::sample::select(vec![1usize, 3, 50]),
        ) {
            let docs: Vec<Document> = (0..300)
                .map(|n| Document::new(n as u64, format!("T{n} {}", "é".repeat(n % 7)), ""))
                .collect();
            let dir = tempfile::tempdir().unwrap();
            let view = |articles: u64, names: u64| {
                CorpusView::builder()
                    .top_pairs(lists)
                    .top_articles(lists)
                    .largest_components(lists)
                    .component_members(lists)
                    .articles_memory(articles)
                    .names_memory(names)
                    .tmp_dir(Some(dir.path().to_path_buf()))
                    .build()
            };
            let mut views = [
                view(u64::MAX, u64::MAX),
                view(2_000, u64::MAX),
                view(0, 1),
            ];
            let mut seen = std::collections::BTreeSet::new();
            for v in &mut views {
                seen.clear();
                for &(a, b, n) in &edges {
                    // Each pair once, as a run gives them.
                    if a == b || !seen.insert((a.min(b), a.max(b))) {
                        continue;
                    }
                    let cases = (0..n).map(|i| {
                        case(i * 10..i * 10 + a + 1, ReuseKind::Content, a + i, 0.3, 0.6)
                    });
                    v.add((a, &docs[a]), (b, &docs[b]), cases).unwrap();
                }
            }
            let articles = views[0].summary().unwrap().graph.articles;
            proptest::prop_assert_eq!(views[0].articles_moved_at(), None);
            proptest::prop_assert_eq!(views[2].articles_moved_at(), (articles > 0).then_some(0));
            if articles > 100 {
                // 2,000 bytes hold a few dozen articles.
                proptest::prop_assert!(views[1].articles_moved_at().is_some_and(|n| n > 0));
            }
            let want = views[0].summary().unwrap();
            for v in &views[1..] {
                proptest::prop_assert_eq!(&v.summary().unwrap(), &want);
            }
        }
    }

    #[test]
    fn lists_are_bounded() {
        let s = view_of(&[0, 1, 2, 3, 4, 5], 2).summary().unwrap();
        assert_eq!(s.top_pairs.len(), 2);
        assert_eq!(s.top_pairs[0].suspicious_chars, 500);
        assert_eq!(s.top_pairs[1].suspicious_chars, 100);
        assert_eq!(s.graph.top_articles.len(), 2);
        assert_eq!(s.graph.largest_components.len(), 2);
        assert_eq!(s.graph.largest_components[0].members.len(), 2);
        let none = view_of(&[0, 1, 2, 3, 4, 5], 0).summary().unwrap();
        assert!(none.top_pairs.is_empty() && none.graph.largest_components.is_empty());
        assert_eq!(none.graph.components, 2);
        assert_eq!(
            CorpusView::builder().top_pairs(usize::MAX).top_pairs,
            MAX_LIST
        );
        // Many articles, bounded lists: a star of 3000 leaves.
        let docs: Vec<Document> = (0..3001).map(doc).collect();
        let mut view = CorpusView::new();
        for leaf in 1..3001 {
            let c = case(0..leaf, ReuseKind::Content, leaf, 0.5, 0.5);
            view.add((leaf, &docs[leaf]), (0, &docs[0]), [c]).unwrap();
        }
        let s = view.summary().unwrap();
        assert_eq!(s.top_pairs.len(), DEFAULT_TOP_PAIRS);
        assert_eq!(s.top_pairs[0].suspicious_chars, 3000);
        assert_eq!(s.graph.top_articles.len(), DEFAULT_TOP_ARTICLES);
        assert_eq!(s.graph.largest_components[0].size, 3001);
        assert_eq!(
            s.graph.largest_components[0].members.len(),
            DEFAULT_COMPONENT_MEMBERS
        );
        assert_eq!(s.graph.max_degree, 3000);
        let last = s.graph.degrees.last().unwrap();
        assert_eq!((last.min, last.max, last.count), (2049, 4096, 1));
        assert!(serde_json::to_string(&s).unwrap().len() < 40_000);
    }

    #[test]
    fn bins_cover_every_value_once() {
        for v in 0..5000u64 {
            let b = length_bin(v);
            let v128 = u128::from(v);
            assert!(
                length_bin_start(b) <= v128 && v128 < length_bin_start(b + 1),
                "{v}"
            );
        }
        assert_eq!(length_bin(u64::MAX), length_bin((1 << 63) + (1 << 62)));
        assert_eq!(
            length_bin_start(length_bin(u64::MAX) + 1) - 1,
            u128::from(u64::MAX)
        );
        for v in 1..5000u64 {
            let (lo, hi) = degree_bin_bounds(degree_bin(v));
            assert!(lo <= v && v <= hi, "{v}");
        }
        assert_eq!(
            degree_bin_bounds(degree_bin(u64::from(u32::MAX))).1,
            1 << 32
        );
        assert_eq!(jaccard_bin(0.0), 0);
        assert_eq!(jaccard_bin(0.05), 1);
        assert_eq!(jaccard_bin(0.7), 14);
        assert_eq!(jaccard_bin(0.9999), 19);
        assert_eq!(jaccard_bin(1.0), 19);
        assert_eq!(jaccard_bin(2.0 / 20.0), 2);
        assert_eq!(jaccard_bin(-1.0), 0);
    }

    #[test]
    fn numbers_beyond_u32_are_an_error() {
        let d = doc(0);
        let mut view = CorpusView::new();
        let c = case(0..1, ReuseKind::Content, 1, 0.0, 0.0);
        let e = view.add((u32::MAX as usize, &d), (0, &d), [c]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        let inner = e
            .get_ref()
            .and_then(|e| e.downcast_ref::<DocumentNumberError>());
        assert_eq!(inner.map(|e| e.number), Some(u32::MAX as usize));
        assert!(e.to_string().contains("too large"));
    }
}
