//! The report of a plagiarism check: per suspicious document, how much of it is reused, from
//! which sources, and the aligned passages side by side with their shared words marked.
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;
use std::path::Path;

use crate::html::{Page, clip, escape};
use crate::{ReportError, plot};

/// Characters of each side of a passage shown (and compared word by word).
const MAX_PASSAGE_CHARS: usize = 6000;

/// One reused passage: where it is in the suspicious document and in its source.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckPassage {
    /// The source document's id.
    pub source_id: String,
    /// The source document's title.
    pub source_title: String,
    /// The kind of reuse (`content` or `structure`, as `textreuse check` writes it).
    pub kind: String,
    /// The alignment score.
    pub score: f64,
    /// Character range in the suspicious document.
    pub suspicious: Range<usize>,
    /// Character range in the source document.
    pub source: Range<usize>,
    /// The suspicious side's text.
    pub suspicious_text: String,
    /// The source side's text.
    pub source_text: String,
}

/// One suspicious document and the passages found in it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckDocument {
    /// Its name (the path checked).
    pub name: String,
    /// Its length in characters.
    pub chars: usize,
    /// The reused passages, in the order to show them.
    pub passages: Vec<CheckPassage>,
}

impl CheckDocument {
    /// The share of the document's characters inside at least one passage.
    pub fn reused_share(&self) -> f64 {
        let mut ranges: Vec<Range<usize>> = self
            .passages
            .iter()
            .map(|p| p.suspicious.start.min(self.chars)..p.suspicious.end.min(self.chars))
            .collect();
        ranges.sort_by_key(|r| r.start);
        let (mut covered, mut end) = (0, 0);
        for r in ranges {
            let start = r.start.max(end);
            if r.end > start {
                covered += r.end - start;
                end = r.end;
            }
        }
        covered as f64 / self.chars.max(1) as f64
    }
}

/// The HTML report of `textreuse check --html`.
///
/// ```
/// use textreuse_report::{CheckDocument, CheckPassage, CheckReport};
///
/// let mut report = CheckReport::new("corpus/");
/// report.push(CheckDocument {
///     name: "essay.txt".into(),
///     chars: 100,
///     passages: vec![CheckPassage {
///         source_id: "7".into(),
///         source_title: "Bees".into(),
///         kind: "content".into(),
///         score: 0.9,
///         suspicious: 10..40,
///         source: 0..31,
///         suspicious_text: "Honey is made by bees in hives".into(),
///         source_text: "Bees make honey in their hives".into(),
///     }],
/// });
/// let html = report.render()?;
/// assert!(html.contains("<mark>in</mark>") && html.contains("30.0 %"));
/// # Ok::<(), textreuse_report::ReportError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    corpus: String,
    documents: Vec<CheckDocument>,
}

impl CheckReport {
    /// An empty report of a check against `corpus` (its name, shown in the title).
    pub fn new(corpus: &str) -> CheckReport {
        CheckReport {
            corpus: corpus.to_string(),
            documents: Vec::new(),
        }
    }

    /// Adds a checked document.
    pub fn push(&mut self, document: CheckDocument) {
        self.documents.push(document);
    }

    /// The report as an HTML document.
    pub fn render(&self) -> Result<String, ReportError> {
        let reused = self
            .documents
            .iter()
            .filter(|d| !d.passages.is_empty())
            .count();
        let mut page = Page::new(
            &format!("textreuse check report: {}", self.corpus),
            &format!(
                "{} suspicious document(s) checked against {}; {} with reused passages.",
                self.documents.len(),
                self.corpus,
                reused
            ),
        );
        page.section("overview", "Overview");
        let rows: Vec<Vec<String>> = self
            .documents
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let sources: std::collections::BTreeSet<&str> =
                    d.passages.iter().map(|p| p.source_id.as_str()).collect();
                vec![
                    format!("<a href=\"#d{i}\">{}</a>", escape(&d.name)),
                    format!("{:.1} %", 100.0 * d.reused_share()),
                    d.passages.len().to_string(),
                    sources.len().to_string(),
                ]
            })
            .collect();
        page.table(
            &["suspicious document", "#reused", "#passages", "#sources"],
            &rows,
        );
        page.end_section();
        for (i, d) in self.documents.iter().enumerate() {
            self.document(&mut page, i, d)?;
        }
        Ok(page.finish())
    }

    /// Writes the report to `path` (atomically).
    pub fn write(&self, path: &Path) -> Result<u64, ReportError> {
        let html = self.render()?;
        crate::write_atomically(path, html.as_bytes())?;
        Ok(html.len() as u64)
    }

    fn document(&self, page: &mut Page, i: usize, d: &CheckDocument) -> Result<(), ReportError> {
        page.section(&format!("d{i}"), &d.name);
        let _ = writeln!(
            page.push(),
            "<p><b>{:.1} %</b> of its {} characters are in reused passages: {} passage(s).</p>",
            100.0 * d.reused_share(),
            d.chars,
            d.passages.len()
        );
        if d.passages.is_empty() {
            page.end_section();
            return Ok(());
        }
        // Sources in order of first appearance, with their passages' totals.
        let mut order: Vec<&str> = Vec::new();
        let mut per_source: BTreeMap<&str, (usize, f64, usize, Vec<&str>)> = BTreeMap::new();
        for p in &d.passages {
            let entry = per_source.entry(&p.source_id).or_insert_with(|| {
                order.push(&p.source_id);
                (0, 0.0, 0, Vec::new())
            });
            entry.0 += 1;
            entry.1 = entry.1.max(p.score);
            entry.2 += p.suspicious.len();
            if !entry.3.contains(&p.kind.as_str()) {
                entry.3.push(&p.kind);
            }
        }
        let index_of = |id: &str| order.iter().position(|&o| o == id).unwrap_or(0);
        let strip: Vec<(Range<usize>, usize)> = d
            .passages
            .iter()
            .map(|p| (p.suspicious.clone(), index_of(&p.source_id)))
            .collect();
        page.figure(
            &plot::coverage_svg(d.chars, &strip)?,
            "Where the reused passages lie in the document, colored by source (in the order \
             of the sources table).",
        );
        let rows: Vec<Vec<String>> = order
            .iter()
            .map(|id| {
                let (n, best, chars, kinds) = &per_source[id];
                let title = d
                    .passages
                    .iter()
                    .find(|p| p.source_id == *id)
                    .map_or("", |p| p.source_title.as_str());
                vec![
                    format!(
                        "{} <span class=\"note\">(id {})</span>",
                        escape(title),
                        escape(id)
                    ),
                    n.to_string(),
                    format!("{best:.2}"),
                    chars.to_string(),
                    escape(&kinds.join(", ")),
                ]
            })
            .collect();
        page.table(
            &[
                "source",
                "#passages",
                "#best score",
                "#chars reused",
                "type",
            ],
            &rows,
        );
        for (k, p) in d.passages.iter().enumerate() {
            let (s_text, s_cut) = clip(&p.suspicious_text, MAX_PASSAGE_CHARS);
            let (o_text, o_cut) = clip(&p.source_text, MAX_PASSAGE_CHARS);
            let (s_html, o_html) = crate::diff::shared_html(s_text, o_text);
            let _ = write!(
                page.push(),
                "<h3>Passage {}: <span class=\"tag\">{}</span> reuse from {}, score {:.2}</h3>\n\
                 <div class=\"pair\"><div><h4>suspicious, characters {}–{}</h4>{}{}</div>\
                 <div><h4>source {} (id {}), characters {}–{}</h4>{}{}</div></div>\n",
                k + 1,
                escape(&p.kind),
                escape(&p.source_title),
                p.score,
                p.suspicious.start,
                p.suspicious.end,
                s_html,
                if s_cut { "…" } else { "" },
                escape(&p.source_title),
                escape(&p.source_id),
                p.source.start,
                p.source.end,
                o_html,
                if o_cut { "…" } else { "" },
            );
        }
        page.end_section();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(range: Range<usize>, source: &str) -> CheckPassage {
        CheckPassage {
            source_id: source.into(),
            source_title: format!("Title {source}"),
            kind: "content".into(),
            score: 0.5,
            suspicious: range,
            source: 0..5,
            suspicious_text: "a b c".into(),
            source_text: "a x c".into(),
        }
    }

    #[test]
    fn reused_share_counts_overlaps_once() {
        let d = CheckDocument {
            name: "x".into(),
            chars: 100,
            passages: vec![
                passage(0..30, "1"),
                passage(20..50, "2"),
                passage(90..120, "1"),
            ],
        };
        assert!((d.reused_share() - 0.6).abs() < 1e-12);
    }

    #[test]
    fn documents_without_passages_render() {
        let mut r = CheckReport::new("c");
        r.push(CheckDocument {
            name: "<empty>".into(),
            chars: 0,
            passages: vec![],
        });
        let html = r.render().unwrap();
        assert!(html.contains("&lt;empty&gt;") && html.contains("0.0 %"));
    }

    #[test]
    fn sources_are_listed_once_with_their_passages() {
        let mut r = CheckReport::new("c");
        r.push(CheckDocument {
            name: "s".into(),
            chars: 200,
            passages: vec![
                passage(0..10, "1"),
                passage(20..30, "2"),
                passage(40..50, "1"),
            ],
        });
        let html = r.render().unwrap();
        assert_eq!(html.matches("(id 1)</span></td>").count(), 1);
        assert_eq!(html.matches("<div class=\"pair\">").count(), 3);
        assert!(html.contains("<mark>a</mark> <del>") || html.contains("<mark>a</mark>"));
    }
}
