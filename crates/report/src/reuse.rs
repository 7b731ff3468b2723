//! The report of a `textreuse reuse` run, made from its output directory: the corpus view.
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Deserialize;

use crate::dedup::thousands;
use crate::html::{Page, clip, escape};
use crate::{ReportError, Run, plot};

/// Top pairs listed by default.
pub const DEFAULT_REUSE_TOP_PAIRS: usize = 25;
/// Largest components listed by default.
pub const DEFAULT_COMPONENTS: usize = 10;
/// Articles of highest degree listed by default.
pub const DEFAULT_TOP_ARTICLES: usize = 20;
/// Documents of `documents.tsv` listed by default (those with the most reused characters).
pub const DEFAULT_TOP_DOCUMENTS: usize = 20;
/// The longest list a report shows (the options are capped here).
const MAX_ROWS: usize = 1000;
/// Characters of a title shown.
const TITLE_CHARS: usize = 120;

/// Makes `report.html` from the outputs of `textreuse reuse`: `stats.json` (the counts per
/// stage), `corpus.json` (the corpus view: the article graph, the distributions, the class
/// shares and the top pairs, as `textreuse_reuse::CorpusView` writes it) and, when there,
/// `documents.tsv` (the documents with the most reused characters).
///
/// The page shows the counts per stage, the class shares (bars), the reused-length histogram
/// (log axis) and the word 10-gram and 2-gram Jaccard histograms with the thesis's 0.1 split
/// marked, the degree and component-size distributions on log-log axes, the largest components,
/// the articles of highest degree, the top pairs and the most reused documents. Its size is
/// bounded whatever the run's size: `corpus.json` is, the lists are top-N, titles are clipped,
/// and `documents.tsv` is read once, keeping its top N rows.
///
/// ```
/// use textreuse_corpus::Document;
/// use textreuse_report::ReuseReport;
/// use textreuse_reuse::{Reuse, ReuseOutputDir};
///
/// let dir = tempfile::tempdir()?;
/// let shared = "Honey bees live in large colonies with a single queen, thousands of workers \
///               and a few hundred drones, and they store honey in wax combs for the winter.";
/// let corpus = vec![
///     Document::new(1, "Bees", format!("{shared}\n\nBees visit flowers for nectar.")),
///     Document::new(2, "Hives <3", format!("Keeping bees is an old craft.\n\n{shared}")),
/// ];
/// let job = Reuse::builder().min_passage_len(60).build()?;
/// job.run(&corpus, None, &mut ReuseOutputDir::new(dir.path()))?;
/// let summary = ReuseReport::new().top_pairs(10).write(dir.path())?;
/// let html = std::fs::read_to_string(&summary.path)?;
/// assert!(html.contains("Hives &lt;3") && html.contains("<svg"));
/// assert_eq!((summary.articles, summary.cases), (2, 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ReuseReport {
    top_pairs: usize,
    components: usize,
    top_articles: usize,
    top_documents: usize,
}

impl Default for ReuseReport {
    fn default() -> Self {
        ReuseReport::new()
    }
}

/// What [`ReuseReport::write`] wrote.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ReuseReportSummary {
    /// The report file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Articles (documents with a case) of the run.
    pub articles: u64,
    /// Pairs with a case.
    pub pairs: u64,
    /// Cases.
    pub cases: u64,
    /// Seconds it took.
    pub seconds: f64,
}

impl ReuseReport {
    /// A report with the defaults: [`DEFAULT_REUSE_TOP_PAIRS`] pairs, [`DEFAULT_COMPONENTS`]
    /// components, [`DEFAULT_TOP_ARTICLES`] articles, [`DEFAULT_TOP_DOCUMENTS`] documents
    /// (each list at most what `corpus.json` holds).
    pub fn new() -> ReuseReport {
        ReuseReport {
            top_pairs: DEFAULT_REUSE_TOP_PAIRS,
            components: DEFAULT_COMPONENTS,
            top_articles: DEFAULT_TOP_ARTICLES,
            top_documents: DEFAULT_TOP_DOCUMENTS,
        }
    }

    /// Top pairs listed (at most 1000).
    pub fn top_pairs(&mut self, n: usize) -> &mut Self {
        self.top_pairs = n.min(MAX_ROWS);
        self
    }

    /// Largest components listed (at most 1000).
    pub fn components(&mut self, n: usize) -> &mut Self {
        self.components = n.min(MAX_ROWS);
        self
    }

    /// Articles of highest degree listed (at most 1000).
    pub fn top_articles(&mut self, n: usize) -> &mut Self {
        self.top_articles = n.min(MAX_ROWS);
        self
    }

    /// Most reused documents listed from `documents.tsv` (at most 1000; 0 skips the file).
    pub fn top_documents(&mut self, n: usize) -> &mut Self {
        self.top_documents = n.min(MAX_ROWS);
        self
    }

    /// Writes `dir/report.html` (atomically: a temporary file renamed into place).
    pub fn write(&self, dir: &Path) -> Result<ReuseReportSummary, ReportError> {
        let started = Instant::now();
        let (html, view) = self.render_view(dir)?;
        let path = dir.join("report.html");
        crate::write_atomically(&path, html.as_bytes())?;
        Ok(ReuseReportSummary {
            path,
            bytes: html.len() as u64,
            articles: view.graph.articles,
            pairs: view.pairs,
            cases: view.cases,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The report of the outputs in `dir`, as an HTML document.
    pub fn render(&self, dir: &Path) -> Result<String, ReportError> {
        Ok(self.render_view(dir)?.0)
    }

    fn render_view(&self, dir: &Path) -> Result<(String, CorpusSummary), ReportError> {
        let stats = read_stats(&dir.join("stats.json"))?;
        let view = read_view(&dir.join("corpus.json"))?;
        let documents = if self.top_documents > 0 {
            read_documents(&dir.join("documents.tsv"), self.top_documents)?
        } else {
            None
        };
        let mut page = Page::new(
            &format!("textreuse reuse report: {}", dir.display()),
            &format!(
                "{} documents; {} candidate pairs, {} with reuse; {} cases between {} articles{}.",
                thousands(view.documents),
                thousands(view.candidate_pairs),
                thousands(view.pairs),
                thousands(view.cases),
                thousands(view.graph.articles),
                if view.kinds.spurious > 0 {
                    format!(
                        " ({} more cases marked spurious are left out)",
                        thousands(view.kinds.spurious)
                    )
                } else {
                    String::new()
                }
            ),
        );
        summary(&mut page, &stats, &view);
        classes(&mut page, &view)?;
        lengths(&mut page, &view)?;
        similarity(&mut page, &view)?;
        self.graph(&mut page, &view)?;
        self.pairs(&mut page, &view);
        if let Some(docs) = documents {
            documents_section(&mut page, &docs, self.top_documents);
        }
        // The web study, when the run made one (websites.tsv).
        if let Some(web) = crate::WebSection::new().render(dir)? {
            page.append_section("web", "Web pages reusing Wikipedia", &web);
        }
        Ok((page.finish(), view))
    }

    fn graph(&self, page: &mut Page, view: &CorpusSummary) -> Result<(), ReportError> {
        let g = &view.graph;
        page.section("graph", "Article graph");
        let largest = g.largest_components.first().map_or(0, |c| c.size);
        let _ = writeln!(
            page.push(),
            "<p>Articles (documents with a case) are the nodes, pairs with a case the edges: \
             <b>{}</b> articles ({} of the run's documents), <b>{}</b> edges, highest degree \
             {}; <b>{}</b> connected components, the largest of {} articles ({} of the \
             articles).</p>",
            thousands(g.articles),
            percent(g.articles, view.documents),
            thousands(g.edges),
            thousands(g.max_degree),
            thousands(g.components),
            thousands(largest),
            percent(largest, g.articles)
        );
        page.push().push_str("<div class=\"figures half\">");
        page.figure(
            &plot::log_log_svg(
                "the degree distribution",
                "Articles by degree (log-log)",
                ("degree (pairs with a case)", "articles per degree"),
                &density(&g.degrees),
            )?,
            "Articles of each degree (above 64: the mean per degree of a bin up to a power \
             of two).",
        );
        page.figure(
            &plot::log_log_svg(
                "the component sizes",
                "Components by size (log-log)",
                ("component size (articles)", "components per size"),
                &density(&g.component_sizes),
            )?,
            "Connected components of each size (binned above 64 as the degrees).",
        );
        page.push().push_str("</div>\n");
        page.push().push_str("<h3>Largest components</h3>\n");
        let rows: Vec<Vec<String>> = g
            .largest_components
            .iter()
            .take(self.components)
            .enumerate()
            .map(|(i, c)| {
                let members: Vec<String> = c
                    .members
                    .iter()
                    .map(|a| {
                        format!(
                            "{} <span class=\"note\">({})</span>",
                            title(&a.title, &a.doc),
                            a.degree
                        )
                    })
                    .collect();
                vec![
                    (i + 1).to_string(),
                    thousands(c.size),
                    thousands(c.edges),
                    thousands(c.cases),
                    members.join(", "),
                ]
            })
            .collect();
        if rows.is_empty() {
            page.push()
                .push_str("<p class=\"note\">No components: no pair has a case.</p>\n");
        } else {
            page.table(
                &[
                    "#rank",
                    "#articles",
                    "#edges",
                    "#cases",
                    "articles of highest degree (degree)",
                ],
                &rows,
            );
        }
        page.push()
            .push_str("<h3>Articles of highest degree</h3>\n");
        let rows: Vec<Vec<String>> = g
            .top_articles
            .iter()
            .take(self.top_articles)
            .enumerate()
            .map(|(i, a)| {
                vec![
                    (i + 1).to_string(),
                    title(&a.title, &a.doc),
                    escape(&a.doc),
                    thousands(a.degree),
                    thousands(a.cases),
                ]
            })
            .collect();
        if !rows.is_empty() {
            page.table(&["#rank", "article", "doc", "#degree", "#cases"], &rows);
        }
        page.end_section();
        Ok(())
    }

    fn pairs(&self, page: &mut Page, view: &CorpusSummary) {
        page.section("pairs", "Top pairs");
        let _ = writeln!(
            page.push(),
            "<p class=\"note\">The pairs with the most characters of the suspicious (reusing) \
             document inside their passages (all pairs are in pairs.tsv, all cases in \
             reuse.jsonl).</p>"
        );
        let rows: Vec<Vec<String>> = view
            .top_pairs
            .iter()
            .take(self.top_pairs)
            .enumerate()
            .map(|(i, p)| {
                let mut kinds = Vec::new();
                for (name, n) in [
                    ("content", p.content),
                    ("structure", p.structure),
                    ("unclassified", p.unclassified),
                ] {
                    if n > 0 {
                        kinds.push(format!("<span class=\"tag\">{name} {n}</span>"));
                    }
                }
                vec![
                    (i + 1).to_string(),
                    title(&p.suspicious.title, &p.suspicious.doc),
                    title(&p.source.title, &p.source.doc),
                    thousands(p.cases),
                    kinds.join(" "),
                    thousands(p.suspicious_chars),
                    thousands(p.source_chars),
                    format!("{:.3}", p.mean_jaccard_10),
                ]
            })
            .collect();
        if rows.is_empty() {
            page.push()
                .push_str("<p class=\"note\">No pair has a case.</p>\n");
        } else {
            page.table(
                &[
                    "#rank",
                    "suspicious",
                    "source",
                    "#cases",
                    "kinds",
                    "#reused chars (suspicious)",
                    "#reused chars (source)",
                    "#mean 10-gram Jaccard",
                ],
                &rows,
            );
        }
        page.end_section();
    }
}

/// A title, clipped and escaped; the id when there is no title.
fn title(title: &str, doc: &str) -> String {
    let shown = if title.is_empty() { doc } else { title };
    let (text, cut) = clip(shown, TITLE_CHARS);
    format!("{}{}", escape(text), if cut { "…" } else { "" })
}

/// `part` as a percentage of `whole`.
fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "–".into();
    }
    format!("{:.1}\u{a0}%", 100.0 * part as f64 / whole as f64)
}

/// The points of a binned distribution: at a bin's (geometric) middle, its count per value.
fn density(bins: &[DegreeBin]) -> Vec<(f64, f64)> {
    bins.iter()
        .map(|b| {
            let x = ((b.min as f64) * (b.max as f64)).sqrt();
            (x, b.count as f64 / (b.max - b.min + 1) as f64)
        })
        .collect()
}

/// `stats.json` as a JSON object.
fn read_stats(path: &Path) -> Result<serde_json::Map<String, serde_json::Value>, ReportError> {
    let text = std::fs::read_to_string(path).map_err(ReportError::io_of(path, Run::Reuse))?;
    let format = |line: usize, message: String| ReportError::Format {
        path: path.to_path_buf(),
        line: line as u64,
        message,
        run: Run::Reuse,
    };
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err(format(1, "not a JSON object".into())),
        Err(e) => Err(format(e.line(), e.to_string())),
    }
}

/// `corpus.json`.
fn read_view(path: &Path) -> Result<CorpusSummary, ReportError> {
    let text = std::fs::read_to_string(path).map_err(ReportError::io_of(path, Run::Reuse))?;
    let format = |line: usize, message: String| ReportError::Format {
        path: path.to_path_buf(),
        line: line as u64,
        message,
        run: Run::Reuse,
    };
    let view: CorpusSummary =
        serde_json::from_str(&text).map_err(|e| format(e.line(), e.to_string()))?;
    if view.version > CORPUS_JSON_VERSION {
        return Err(format(
            1,
            format!(
                "corpus.json version {} is newer than this report reads ({CORPUS_JSON_VERSION})",
                view.version
            ),
        ));
    }
    Ok(view)
}

/// The version of the `corpus.json` schema this report reads (the reuse library's
/// `textreuse_reuse::view::CORPUS_JSON_VERSION`).
const CORPUS_JSON_VERSION: u32 = 1;

// What the report reads of `corpus.json`, whose schema the reuse library owns
// (`textreuse_reuse::CorpusSummary`): the report reads the run's files, not the library's
// types, as it reads dedup's. Fields it does not show are skipped; the tests make the file
// with the library, so the two cannot drift apart unseen.

/// `corpus.json`.
#[derive(Debug, Deserialize)]
struct CorpusSummary {
    version: u32,
    documents: u64,
    candidate_pairs: u64,
    pairs: u64,
    cases: u64,
    kinds: KindCounts,
    graph: GraphSummary,
    lengths: LengthHistogram,
    jaccard_10: JaccardHistogram,
    jaccard_2: JaccardHistogram,
    top_pairs: Vec<TopPair>,
}

#[derive(Debug, Deserialize)]
struct KindCounts {
    content: u64,
    structure: u64,
    unclassified: u64,
    #[serde(default)]
    spurious: u64,
}

#[derive(Debug, Deserialize)]
struct GraphSummary {
    articles: u64,
    edges: u64,
    max_degree: u64,
    degrees: Vec<DegreeBin>,
    components: u64,
    component_sizes: Vec<DegreeBin>,
    largest_components: Vec<Component>,
    top_articles: Vec<Article>,
}

#[derive(Debug, Deserialize)]
struct DegreeBin {
    min: u64,
    max: u64,
    count: u64,
}

#[derive(Debug, Deserialize)]
struct Component {
    size: u64,
    edges: u64,
    cases: u64,
    members: Vec<Article>,
}

#[derive(Debug, Deserialize)]
struct Article {
    doc: String,
    title: String,
    degree: u64,
    cases: u64,
}

#[derive(Debug, Deserialize)]
struct ArticleRef {
    doc: String,
    title: String,
}

#[derive(Debug, Deserialize)]
struct TopPair {
    suspicious: ArticleRef,
    source: ArticleRef,
    cases: u64,
    content: u64,
    structure: u64,
    unclassified: u64,
    suspicious_chars: u64,
    source_chars: u64,
    mean_jaccard_10: f64,
}

#[derive(Debug, Deserialize)]
struct LengthHistogram {
    unit: String,
    side: String,
    bins: Vec<LengthBin>,
}

#[derive(Debug, Deserialize)]
struct LengthBin {
    min: u64,
    max: u64,
    cases: u64,
}

#[derive(Debug, Deserialize)]
struct JaccardHistogram {
    n: u32,
    bins: Vec<JaccardBin>,
    split: f64,
    at_most: u64,
    above: u64,
}

#[derive(Debug, Deserialize)]
struct JaccardBin {
    from: f64,
    to: f64,
    cases: u64,
}

/// A row of `documents.tsv`.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct DocumentRow {
    reused_chars: u64,
    /// Earlier rows first among equals.
    line: Reverse<u64>,
    doc: String,
    title: String,
    input: String,
    chars: u64,
    cases: u64,
}

/// The `top` rows of `documents.tsv` with the most reused characters (ties: the earlier row),
/// most first; `None` when the file is not there.
fn read_documents(path: &Path, top: usize) -> Result<Option<Vec<DocumentRow>>, ReportError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReportError::io_of(path, Run::Reuse)(e)),
    };
    let format = |line: u64, message: String| ReportError::Format {
        path: path.to_path_buf(),
        line,
        message,
        run: Run::Reuse,
    };
    let mut heap: BinaryHeap<Reverse<DocumentRow>> = BinaryHeap::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(ReportError::io_of(path, Run::Reuse))?;
        let n = i as u64 + 1;
        if n == 1 {
            if !line.starts_with("doc\ttitle\tinput\tchars\tcases\treused_chars") {
                return Err(format(n, "not the header of documents.tsv".into()));
            }
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 6 {
            return Err(format(n, format!("{} columns, not 7", f.len())));
        }
        let number = |s: &str, what: &str| {
            s.parse::<u64>()
                .map_err(|_| format(n, format!("{what} {s:?} is not a number")))
        };
        let row = DocumentRow {
            reused_chars: number(f[5], "reused_chars")?,
            line: Reverse(n),
            doc: f[0].to_string(),
            title: f[1].to_string(),
            input: f[2].to_string(),
            chars: number(f[3], "chars")?,
            cases: number(f[4], "cases")?,
        };
        if heap.len() < top {
            heap.push(Reverse(row));
        } else if heap.peek().is_some_and(|w| row > w.0) {
            heap.pop();
            heap.push(Reverse(row));
        }
    }
    let mut rows: Vec<DocumentRow> = heap.into_iter().map(|r| r.0).collect();
    rows.sort_by(|a, b| b.cmp(a));
    Ok(Some(rows))
}

fn documents_section(page: &mut Page, docs: &[DocumentRow], top: usize) {
    page.section("documents", "Most reused documents");
    let _ = writeln!(
        page.push(),
        "<p class=\"note\">The {top} documents with the most characters inside passages, on \
         either side (all of them in documents.tsv).</p>"
    );
    let rows: Vec<Vec<String>> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let input = Path::new(&d.input)
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            vec![
                (i + 1).to_string(),
                title(&d.title, &d.doc),
                escape(&d.doc),
                escape(&input),
                thousands(d.chars),
                thousands(d.cases),
                thousands(d.reused_chars),
                percent(d.reused_chars, d.chars),
            ]
        })
        .collect();
    if rows.is_empty() {
        page.push()
            .push_str("<p class=\"note\">No document has a case.</p>\n");
    } else {
        page.table(
            &[
                "#rank",
                "document",
                "doc",
                "input",
                "#chars",
                "#cases",
                "#reused chars",
                "#reused share",
            ],
            &rows,
        );
    }
    page.end_section();
}

/// The value of `key` in `stats.json` as a number (0 when absent).
fn count(stats: &serde_json::Map<String, serde_json::Value>, key: &str) -> u64 {
    stats.get(key).and_then(|v| v.as_u64()).unwrap_or(0)
}

fn summary(
    page: &mut Page,
    stats: &serde_json::Map<String, serde_json::Value>,
    view: &CorpusSummary,
) {
    page.section("summary", "Summary");
    let text = |key: &str| match stats.get(key) {
        Some(serde_json::Value::String(s)) => escape(s),
        Some(serde_json::Value::Null) | None => "–".into(),
        Some(v) => escape(&v.to_string()),
    };
    let method = text("candidates");
    let out = page.push();
    let _ = write!(out, "<p>Parameters: candidates by <b>{method}</b>");
    if method == "tfidf" {
        let _ = write!(
            out,
            " ({} terms per chunk, {} documents per chunk, postings cap {}, min score {})",
            text("terms"),
            text("top_docs"),
            text("max_postings"),
            text("min_score")
        );
    } else {
        let _ = write!(
            out,
            " (word {}-grams, K = {}, M = {}, at least {} shared chunk pairs)",
            text("ngram"),
            text("rows"),
            text("bands"),
            text("min_shared")
        );
    }
    let _ = writeln!(
        out,
        "; chunks of at least {} words; passages of at least {} bytes; language {}; \
         classes by the <b>{}</b> rules.</p>",
        text("min_words"),
        text("min_passage_len"),
        text("lang"),
        text("classifier")
    );
    let against = count(stats, "against_documents");
    let mut rows: Vec<(&str, u64)> = vec![("documents", count(stats, "documents"))];
    if against > 0 {
        rows.push(("documents of the other side (--against)", against));
    }
    rows.extend([
        ("chunks", count(stats, "chunks")),
        ("chunk pairs scored", count(stats, "chunk_pairs")),
        ("candidate pairs", count(stats, "candidate_pairs")),
        ("pairs with reuse", count(stats, "pairs_with_reuse")),
        ("cases (passages)", count(stats, "cases")),
        ("articles (documents with a case)", view.graph.articles),
        ("connected components of articles", view.graph.components),
    ]);
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(name, n)| vec![escape(name), thousands(n)])
        .collect();
    page.push().push_str("<h3>Counts per stage</h3>\n");
    page.table(&["what", "#count"], &rows);
    if let Some(serde_json::Value::Object(seconds)) = stats.get("seconds") {
        let rows: Vec<Vec<String>> = seconds
            .iter()
            .filter_map(|(k, v)| {
                Some(vec![
                    escape(&k.replace('_', " ")),
                    format!("{:.3}", v.as_f64()?),
                ])
            })
            .collect();
        page.push().push_str("<h3>Seconds per stage</h3>\n");
        page.table(&["stage", "#seconds"], &rows);
    }
    page.end_section();
}

fn classes(page: &mut Page, view: &CorpusSummary) -> Result<(), ReportError> {
    page.section("classes", "Classes");
    let k = &view.kinds;
    let counts = [
        (
            "content",
            k.content,
            "the same content (facts about the same entities), copied or reworded",
        ),
        (
            "structure",
            k.structure,
            "the same wording or template, about other entities",
        ),
        (
            "unclassified",
            k.unclassified,
            "neither rule holds (the thesis's rules, --classes thesis, only)",
        ),
        (
            "spurious",
            k.spurious,
            "not reuse by the evidence: lengths too far apart or too few shared n-grams \
             (left out of the graph and the plots below)",
        ),
    ];
    let all = k.content + k.structure + k.unclassified + k.spurious;
    let bars: Vec<(&str, u64)> = counts.iter().map(|c| (c.0, c.1)).collect();
    page.push().push_str("<div class=\"figures\">");
    page.figure(
        &plot::bars_svg("the counts per kind", "Cases by kind", &bars)?,
        "Cases of each kind (the rules are in docs/reuse.md, Classes).",
    );
    page.push().push_str("</div>\n");
    let rows: Vec<Vec<String>> = counts
        .iter()
        .map(|&(name, n, meaning)| {
            vec![escape(name), thousands(n), percent(n, all), escape(meaning)]
        })
        .collect();
    page.table(&["kind", "#cases", "#share", "meaning"], &rows);
    page.end_section();
    Ok(())
}

fn lengths(page: &mut Page, view: &CorpusSummary) -> Result<(), ReportError> {
    page.section("lengths", "Reused length");
    let l = &view.lengths;
    let bins: Vec<(u64, u64, u64)> = l.bins.iter().map(|b| (b.min, b.max, b.cases)).collect();
    let unit = escape(&l.unit);
    page.push().push_str("<div class=\"figures half\">");
    page.figure(
        &plot::length_histogram_svg(
            "Cases by length (log axis)",
            &format!("length of the {} passage ({})", l.side, l.unit),
            &bins,
        )?,
        &format!(
            "Cases by the length of their {} passage in {}, in bins of half an octave.",
            l.side, l.unit
        ),
    );
    page.push().push_str("</div>\n");
    // The median bin, for the text.
    let total: u64 = bins.iter().map(|b| b.2).sum();
    let mut seen = 0;
    if let Some(median) = bins.iter().find(|b| {
        seen += b.2;
        total > 0 && 2 * seen >= total
    }) {
        let _ = writeln!(
            page.push(),
            "<p class=\"note\">Half of the cases have at most {} {unit} (the median is in the \
             bin {}–{}).</p>",
            median.1,
            median.0,
            median.1
        );
    }
    page.end_section();
    Ok(())
}

fn jaccard_figure(h: &JaccardHistogram, split: bool) -> Result<String, ReportError> {
    let bins: Vec<(f64, f64, u64)> = h.bins.iter().map(|b| (b.from, b.to, b.cases)).collect();
    plot::jaccard_histogram_svg(
        &format!("Cases by word {}-gram Jaccard", h.n),
        &format!("Jaccard of the passages' word {}-grams", h.n),
        &bins,
        split.then_some((h.split, h.at_most, h.above)),
    )
}

fn similarity(page: &mut Page, view: &CorpusSummary) -> Result<(), ReportError> {
    page.section("similarity", "Similarity");
    let j = &view.jaccard_10;
    let _ = writeln!(
        page.push(),
        "<p>The thesis splits cases at a word 10-gram Jaccard of {}: <b>{}</b> cases ({}) are \
         at most {} (reworded: paraphrase, translation, summary, or a template filled \
         otherwise), <b>{}</b> ({}) above (copied, with edits at most).</p>",
        j.split,
        thousands(j.at_most),
        percent(j.at_most, view.cases),
        j.split,
        thousands(j.above),
        percent(j.above, view.cases)
    );
    page.push().push_str("<div class=\"figures half\">");
    page.figure(
        &jaccard_figure(j, true)?,
        "Word 10-gram Jaccard of each case's passages, bins of 0.05; in red the thesis's \
         split.",
    );
    page.figure(
        &jaccard_figure(&view.jaccard_2, false)?,
        "Word 2-gram Jaccard, bins of 0.05: shared wording even where long n-grams differ.",
    );
    page.push().push_str("</div>\n");
    page.end_section();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_corpus::Document;
    use textreuse_reuse::{Classifier, Reuse, ReuseOutputDir};

    const SHARED: &str = "Honey bees live in large colonies with a single queen, thousands of \
        workers and a few hundred drones, and they store honey in wax combs for the winter.";

    /// A reuse run's outputs: three documents copying one paragraph, one with a hostile title.
    fn run(dir: &Path) {
        let corpus = vec![
            Document::new(
                1,
                "Bees",
                format!("{SHARED}\n\nBees visit flowers for nectar."),
            ),
            Document::new(
                2,
                "<script>alert('x')</script> & \"Hives\"",
                format!("Keeping bees is an old craft.\n\n{SHARED}"),
            ),
            Document::new(
                3,
                "Wax",
                format!("{SHARED}\n\nWax is made by young workers."),
            ),
            Document::new(
                4,
                "Wasps",
                "Wasps build paper nests from chewed wood every spring.",
            ),
        ];
        // The rules' classes: one verbatim copy between related-looking titles is content
        // reuse by them (the learned default calls these one-word titles siblings).
        let job = Reuse::builder()
            .min_passage_len(60)
            .classifier(Classifier::Rules)
            .build()
            .unwrap();
        job.run(&corpus, None, &mut ReuseOutputDir::new(dir))
            .unwrap();
    }

    #[test]
    fn shows_the_tables_and_plots() {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path());
        let summary = ReuseReport::new().write(dir.path()).unwrap();
        assert_eq!((summary.articles, summary.pairs, summary.cases), (3, 3, 3));
        let html = std::fs::read_to_string(&summary.path).unwrap();
        for id in [
            "summary",
            "classes",
            "lengths",
            "similarity",
            "graph",
            "pairs",
            "documents",
        ] {
            assert!(html.contains(&format!("<section id=\"{id}\">")), "{id}");
        }
        // Classes, lengths, two similarity histograms, degrees and component sizes.
        assert_eq!(html.matches("<svg").count(), 6);
        assert!(html.contains("split 0.1: 0 at most, 3 above"));
        assert!(html.contains("Largest components"));
        assert!(html.contains("Articles of highest degree"));
        assert!(html.contains("<span class=\"tag\">content 1</span>"));
        assert!(!html.contains("<script"));
        assert!(
            html.contains(
                "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Hives&quot;"
            )
        );
        assert!(html.len() < 200_000, "{}", html.len());
    }

    #[test]
    fn lists_are_bounded_and_documents_optional() {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path());
        std::fs::remove_file(dir.path().join("documents.tsv")).unwrap();
        let html = ReuseReport::new()
            .top_pairs(1)
            .components(0)
            .top_articles(1)
            .render(dir.path())
            .unwrap();
        assert!(!html.contains("<section id=\"documents\">"));
        let pairs = html.split("<section id=\"pairs\">").nth(1).unwrap();
        assert_eq!(pairs.matches("<tr>").count(), 2); // header and one pair
        assert!(
            ReuseReport::new()
                .top_documents(0)
                .render(dir.path())
                .is_ok()
        );
    }

    #[test]
    fn says_what_is_missing_or_wrong() {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path());
        std::fs::remove_file(dir.path().join("corpus.json")).unwrap();
        let e = ReuseReport::new().render(dir.path()).unwrap_err();
        assert!(
            matches!(
                e,
                ReportError::Missing {
                    run: Run::Reuse,
                    ..
                }
            ),
            "{e}"
        );
        let message = e.to_string();
        assert!(message.contains("corpus.json: not found"), "{message}");
        assert!(message.contains("run reuse again"), "{message}");
        std::fs::write(dir.path().join("corpus.json"), "{\"version\": 1}").unwrap();
        let e = ReuseReport::new().render(dir.path()).unwrap_err();
        assert!(e.to_string().contains("textreuse reuse"), "{e}");
        std::fs::write(dir.path().join("documents.tsv"), "no header\n").unwrap();
        let dir2 = tempfile::tempdir().unwrap();
        run(dir2.path());
        std::fs::write(
            dir2.path().join("documents.tsv"),
            "doc\ttitle\tinput\tchars\tcases\treused_chars\treused_share\n1\tx\t\tmany\t1\t2\t0.1\n",
        )
        .unwrap();
        let e = ReuseReport::new().render(dir2.path()).unwrap_err();
        assert!(e.to_string().contains("line 2: chars \"many\""), "{e}");
        assert_eq!(Run::of_dir(dir2.path()), Run::Reuse);
        assert_eq!(Run::of_dir(&dir2.path().join("none")), Run::Dedup);
    }
}
