//! The web study's section of a reuse report: the websites whose pages reuse Wikipedia, the
//! pages-per-website distribution, the attribution check and the revenue estimates, from the
//! files `textreuse reuse WEB... --against WIKI...` writes (`websites.tsv`, `websites.json`,
//! `revenue.json`; see `textreuse_reuse::web`).
//!
//! [`WebSection::render`] returns an HTML fragment (one `<section id="web">`), styled by the
//! report page's style sheet, to be placed in a reuse report; `None` when the run made no web
//! study.
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::Path;

use plotters::prelude::*;
use serde_json::Value;

use crate::ReportError;
use crate::html::{Page, escape};
use crate::plot::{BLUE, FONT, GRID, svg};

/// Websites listed in the section's table, at most (the first rows of `websites.tsv`: most
/// reusing pages first).
pub const DEFAULT_TOP_WEBSITES: usize = 30;

/// The columns `websites.tsv` must start with.
const HEADER: [&str; 9] = [
    "website",
    "pages",
    "reusing_pages",
    "reusing_share",
    "reused_chars",
    "reused_words",
    "linking_wikipedia",
    "linking_article",
    "attribution_unknown",
];

/// Renders the web study's section: one `<section id="web">` fragment for a reuse report, or
/// `None` when the run made no web study.
///
/// ```
/// use textreuse_report::WebSection;
///
/// let dir = tempfile::tempdir()?;
/// std::fs::write(
///     dir.path().join("websites.tsv"),
///     "website\tpages\treusing_pages\treusing_share\treused_chars\treused_words\t\
///      linking_wikipedia\tlinking_article\tattribution_unknown\n\
///      example.co.uk\t4\t3\t0.7500\t1200\t200\t1\t0\t0\n",
/// )?;
/// std::fs::write(
///     dir.path().join("websites.json"),
///     r#"{"pages": 4, "websites": 1, "reusing_pages": 3, "reusing_websites": 1,
///         "pages_per_website": [{"min": 1, "max": 1, "websites": 0},
///                               {"min": 2, "max": 2, "websites": 0},
///                               {"min": 3, "max": 5, "websites": 1}]}"#,
/// )?;
/// let html = WebSection::new().render(dir.path())?.expect("a web study");
/// assert!(html.contains("<td>example.co.uk</td>"));
/// assert!(html.contains("<svg"));
/// // No web study in a directory without websites.tsv.
/// assert!(WebSection::new().render(tempfile::tempdir()?.path())?.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct WebSection {
    top: usize,
}

impl Default for WebSection {
    fn default() -> Self {
        WebSection::new()
    }
}

/// A `websites.tsv` row as the section shows it (numbers as written).
struct Row {
    cells: Vec<String>,
}

impl WebSection {
    /// The section with [`DEFAULT_TOP_WEBSITES`] websites listed.
    pub fn new() -> WebSection {
        WebSection {
            top: DEFAULT_TOP_WEBSITES,
        }
    }

    /// How many websites the table lists.
    pub fn top(mut self, n: usize) -> Self {
        self.top = n;
        self
    }

    /// The section for the run in `dir`, or `None` when it has no `websites.tsv` (no web
    /// study). A `websites.tsv` without `websites.json` (or either not as `reuse` writes it)
    /// is an error naming the file.
    pub fn render(&self, dir: &Path) -> Result<Option<String>, ReportError> {
        let tsv_path = dir.join("websites.tsv");
        let file = match std::fs::File::open(&tsv_path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ReportError::io(&tsv_path)(e)),
        };
        let (rows, total) = self.read_rows(std::io::BufReader::new(file), &tsv_path)?;
        let summary =
            read_json(&dir.join("websites.json"))?.ok_or_else(|| ReportError::Missing {
                run: crate::error::Run::Reuse,
                path: dir.join("websites.json"),
            })?;
        let revenue = read_json(&dir.join("revenue.json"))?;

        let mut page = Page::new("", "");
        page.section("web", "Web pages reusing Wikipedia");
        self.summary(&mut page, &summary, total);
        attribution(&mut page, &summary);
        let buckets = buckets(&summary);
        if !buckets.is_empty() {
            page.push().push_str("<h3>Pages per website</h3>\n");
            page.figure(
                &distribution_svg(&buckets)?,
                "How many websites have 1, 2, 3-5, ... pages in the crawl (pages examined, \
                 reusing or not).",
            );
        }
        let _ = writeln!(
            page.push(),
            "<h3>Websites with the most reusing pages</h3>\n<p class=\"note\">The first {} of \
             {} websites in websites.tsv (most reusing pages first, then by domain).</p>",
            rows.len(),
            total
        );
        let cells: Vec<Vec<String>> = rows.into_iter().map(|r| r.cells).collect();
        page.table(
            &[
                "website",
                "#pages",
                "#reusing pages",
                "#share",
                "#reused characters",
                "#reused words",
                "#linking wikipedia.org",
                "#linking the article",
                "#links unknown",
            ],
            &cells,
        );
        if let Some(revenue) = &revenue {
            revenue_table(&mut page, revenue);
        }
        page.end_section();
        Ok(Some(std::mem::take(page.push())))
    }

    /// The first [`WebSection::top`] rows of `websites.tsv`, escaped, and the number of rows.
    fn read_rows(&self, reader: impl BufRead, path: &Path) -> Result<(Vec<Row>, u64), ReportError> {
        let mut rows = Vec::new();
        let mut total = 0;
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(ReportError::io(path))?;
            let format = |message: String| ReportError::Format {
                run: crate::error::Run::Reuse,
                path: path.to_path_buf(),
                line: i as u64 + 1,
                message,
            };
            let fields: Vec<&str> = line.split('\t').collect();
            if i == 0 {
                if fields.get(..HEADER.len()) != Some(&HEADER[..]) {
                    return Err(format(format!(
                        "the header is not websites.tsv's ({})",
                        HEADER.join(", ")
                    )));
                }
                continue;
            }
            if fields.len() < HEADER.len() {
                return Err(format(format!(
                    "{} fields, websites.tsv has {}",
                    fields.len(),
                    HEADER.len()
                )));
            }
            total += 1;
            if rows.len() < self.top {
                let mut cells = vec![escape(fields[0])];
                for f in &fields[1..HEADER.len()] {
                    if f.parse::<f64>().is_err() {
                        return Err(format(format!("{f:?} is not a number")));
                    }
                    cells.push(escape(f));
                }
                rows.push(Row { cells });
            }
        }
        Ok((rows, total))
    }

    fn summary(&self, page: &mut Page, s: &Value, websites: u64) {
        let n = |k: &str| s.get(k).and_then(Value::as_u64).unwrap_or(0);
        let pages = n("pages");
        let reusing = n("reusing_pages");
        let share = if pages == 0 {
            0.0
        } else {
            100.0 * reusing as f64 / pages as f64
        };
        // "Label: count" rather than sentences, which would need plurals.
        let _ = writeln!(
            page.push(),
            "<p>Pages examined: {pages}. Websites: {websites}. Pages without a URL, left out: \
             {}. Pages reusing Wikipedia: {reusing} ({share:.1}%). Websites with a page \
             reusing it: {}. Words reused: {}. Characters reused: {}. Websites with at least \
             half of their pages reusing: {}. Articles reused: {}.</p>",
            n("pages_without_url"),
            n("reusing_websites"),
            n("reused_words"),
            n("reused_chars"),
            n("websites_half_reusing"),
            n("reused_articles"),
        );
    }
}

/// The attribution check's table: reusing pages by what they link to.
fn attribution(page: &mut Page, s: &Value) {
    let n = |k: &str| s.get(k).and_then(Value::as_u64).unwrap_or(0);
    let reusing = n("reusing_pages");
    if reusing == 0 {
        return;
    }
    let (article, wikipedia, unknown) = (
        n("linking_article"),
        n("linking_wikipedia"),
        n("attribution_unknown"),
    );
    let none = reusing.saturating_sub(wikipedia + unknown);
    let pct = |x: u64| format!("{:.1}%", 100.0 * x as f64 / reusing as f64);
    page.push().push_str(
        "<h3>Attribution</h3>\n<p class=\"note\">Whether a reusing page links to wikipedia.org \
         (any language, mobile too) or to the very article it reuses; pages read from WET \
         records carry no links, so for them it is unknown, not no.</p>\n",
    );
    let rows = [
        ("links to the reused article", article),
        (
            "links to wikipedia.org, not to the article",
            wikipedia.saturating_sub(article),
        ),
        ("no link to wikipedia.org", none),
        ("unknown (no links in the input)", unknown),
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|&(what, count)| vec![what.to_string(), count.to_string(), pct(count)])
        .collect();
    page.table(&["reusing pages", "#pages", "#share"], &cells);
}

/// The pages-per-website buckets of `websites.json`: `(label, websites)`.
fn buckets(s: &Value) -> Vec<(String, u64)> {
    let Some(list) = s.get("pages_per_website").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|b| {
            let (min, max) = (b.get("min")?.as_u64()?, b.get("max")?.as_u64()?);
            let label = if min == max {
                min.to_string()
            } else {
                format!("{min}-{max}")
            };
            Some((label, b.get("websites")?.as_u64()?))
        })
        .collect()
}

/// Vertical bars: websites per number of pages.
fn distribution_svg(buckets: &[(String, u64)]) -> Result<String, ReportError> {
    let max = buckets.iter().map(|b| b.1).max().unwrap_or(0).max(1);
    let n = buckets.len();
    let labels: Vec<String> = buckets.iter().map(|b| b.0.clone()).collect();
    let width = (120 + 56 * n as u32).clamp(360, 1100);
    svg("the pages per website", (width, 320), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Websites by pages in the crawl", (FONT, 17))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d((0usize..n).into_segmented(), 0u64..max + max / 8 + 1)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .label_style((FONT, 13))
            .light_line_style(GRID)
            .bold_line_style(GRID)
            .x_desc("pages of a website")
            .y_desc("websites")
            .x_labels(n)
            .x_label_formatter(&|v| match v {
                SegmentValue::Exact(i) | SegmentValue::CenterOf(i) => {
                    labels.get(*i).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            })
            .draw()?;
        chart.draw_series(buckets.iter().enumerate().map(|(i, &(_, count))| {
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i), 0),
                    (SegmentValue::Exact(i + 1), count),
                ],
                BLUE.mix(0.8).filled(),
            );
            bar.set_margin(0, 0, 6, 6);
            bar
        }))?;
        Ok(())
    })
}

/// The revenue estimates with their assumptions.
fn revenue_table(page: &mut Page, r: &Value) {
    let usd =
        |v: Option<f64>| v.map_or_else(|| "(no CPM given)".to_string(), |v| format!("{v:.2}"));
    let text = |v: &Value, k: &str| escape(v.get(k).and_then(Value::as_str).unwrap_or(""));
    let mut rows = Vec::new();
    for (key, what) in [
        ("site_value", "(a) website value x share of reusing pages"),
        (
            "lower_bound",
            "(b) lower bound: websites with at least half reusing",
        ),
    ] {
        if let Some(e) = r.get(key) {
            rows.push(vec![
                what.to_string(),
                usd(e.get("usd").and_then(Value::as_f64)),
                format!(
                    "{} websites summed, {} left out without a value (values from {})",
                    e.get("websites").and_then(Value::as_u64).unwrap_or(0),
                    e.get("websites_without_value")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                    text(e, "values_file")
                ),
                text(e, "assumptions"),
            ]);
        }
    }
    if let Some(e) = r.get("page_views") {
        rows.push(vec![
            "(c) monthly page views of the reused articles / 1000 x CPM".to_string(),
            usd(e.get("usd").and_then(Value::as_f64)),
            format!(
                "{} views a month of {} reused articles ({} with views), CPM {}",
                e.get("monthly_views").and_then(Value::as_u64).unwrap_or(0),
                e.get("reused_articles")
                    .and_then(Value::as_u64)
                    .unwrap_or(0),
                e.get("articles_with_views")
                    .and_then(Value::as_u64)
                    .unwrap_or(0),
                e.get("cpm_usd")
                    .and_then(Value::as_f64)
                    .map_or_else(|| "not given".to_string(), |c| format!("{c} USD")),
            ),
            text(e, "assumptions"),
        ]);
    }
    if rows.is_empty() {
        return;
    }
    page.push().push_str(
        "<h3>Revenue estimates</h3>\n<p class=\"note\">The thesis's model (eq. 4.2) on the \
         inputs given to reuse (website values, page views, a CPM); each figure is only as good \
         as its assumptions.</p>\n",
    );
    page.table(&["estimate", "#USD", "from", "assumptions"], &rows);
}

/// A JSON file, `None` when it does not exist.
fn read_json(path: &Path) -> Result<Option<Value>, ReportError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReportError::io(path)(e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| ReportError::Format {
            run: crate::error::Run::Reuse,
            path: path.to_path_buf(),
            line: e.line() as u64,
            message: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_dir(tsv: &str, json: &str, revenue: Option<&str>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("websites.tsv"), tsv).unwrap();
        std::fs::write(dir.path().join("websites.json"), json).unwrap();
        if let Some(r) = revenue {
            std::fs::write(dir.path().join("revenue.json"), r).unwrap();
        }
        dir
    }

    const TSV_HEADER: &str = "website\tpages\treusing_pages\treusing_share\treused_chars\t\
                              reused_words\tlinking_wikipedia\tlinking_article\t\
                              attribution_unknown\n";

    const SUMMARY: &str = r#"{"pages": 7, "pages_without_url": 1, "websites": 3,
        "reusing_pages": 4, "reusing_websites": 2, "websites_half_reusing": 1,
        "reused_chars": 5000, "reused_words": 800, "linking_wikipedia": 2,
        "linking_article": 1, "attribution_unknown": 1, "reused_articles": 2,
        "pages_per_website": [{"min": 1, "max": 1, "websites": 2},
                              {"min": 2, "max": 2, "websites": 0},
                              {"min": 3, "max": 5, "websites": 1}]}"#;

    #[test]
    fn the_section_lists_websites_attribution_and_revenue() {
        let tsv = format!(
            "{TSV_HEADER}mirror.example\t5\t3\t0.6000\t4000\t700\t1\t1\t0\n\
             <script>alert(1)</script>.example\t1\t1\t1.0000\t1000\t100\t1\t0\t1\n\
             quiet.org\t1\t0\t0.0000\t0\t0\t0\t0\t0\n"
        );
        let revenue = r#"{"site_value": {"usd": 812.5, "websites": 2, "websites_without_value": 0,
              "values_file": "v<1>.csv", "assumptions": "Values & <shares>."},
            "lower_bound": {"usd": 600.0, "websites": 1, "websites_without_value": 0,
              "values_file": "v<1>.csv", "assumptions": "Half or more."},
            "page_views": {"usd": null, "cpm_usd": null, "monthly_views": 4000,
              "reused_articles": 2, "articles_with_views": 2, "assumptions": "Views."}}"#;
        let dir = run_dir(&tsv, SUMMARY, Some(revenue));
        let html = WebSection::new().render(dir.path()).unwrap().unwrap();
        assert!(html.starts_with("<section id=\"web\">"));
        assert!(html.trim_end().ends_with("</section>"));
        // Rows in the file's order, numbers right-aligned.
        let first = html.find("<td>mirror.example</td>").unwrap();
        let second = html
            .find("&lt;script&gt;alert(1)&lt;/script&gt;.example")
            .unwrap();
        assert!(first < second);
        assert!(html.contains("<td class=\"n\">0.6000</td>"));
        assert!(!html.contains("<script>"));
        // Attribution: 1 article, 1 wikipedia only, 1 none, 1 unknown of 4 reusing pages.
        assert!(html.contains(
            "<tr><td>links to the reused article</td><td class=\"n\">1</td><td class=\"n\">25.0%</td></tr>"
        ));
        assert!(html.contains(
            "<tr><td>no link to wikipedia.org</td><td class=\"n\">1</td><td class=\"n\">25.0%</td></tr>"
        ));
        // The distribution plot, the revenue estimates with their assumptions, escaped.
        assert!(html.contains("<svg") && html.contains("3-5"));
        assert!(html.contains("<td class=\"n\">812.50</td>"));
        assert!(html.contains("Values &amp; &lt;shares&gt;."));
        assert!(html.contains("values from v&lt;1&gt;.csv"));
        assert!(html.contains("(no CPM given)"));
        assert!(html.contains("3 websites in websites.tsv"));
    }

    #[test]
    fn the_table_is_bounded_and_revenue_optional() {
        let mut tsv = TSV_HEADER.to_string();
        for i in 0..100 {
            tsv.push_str(&format!("site{i:03}.example\t1\t1\t1.0\t1\t1\t0\t0\t0\n"));
        }
        let dir = run_dir(&tsv, SUMMARY, None);
        let html = WebSection::new()
            .top(5)
            .render(dir.path())
            .unwrap()
            .unwrap();
        assert!(html.contains("site004.example") && !html.contains("site005.example"));
        assert!(html.contains("The first 5 of 100 websites"));
        assert!(!html.contains("Revenue estimates"));
    }

    #[test]
    fn malformed_files_are_errors_naming_them() {
        let dir = run_dir("site\tpages\n", SUMMARY, None);
        let e = WebSection::new()
            .render(dir.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("websites.tsv, line 1"), "{e}");
        let dir = run_dir(
            &format!("{TSV_HEADER}a.com\t1\tx\t0\t0\t0\t0\t0\t0\n"),
            SUMMARY,
            None,
        );
        let e = WebSection::new()
            .render(dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("websites.tsv, line 2: \"x\" is not a number"),
            "{e}"
        );
        let dir = run_dir(TSV_HEADER, "{", None);
        let e = WebSection::new()
            .render(dir.path())
            .unwrap_err()
            .to_string();
        assert!(e.contains("websites.json"), "{e}");
    }
}
