//! The report of a `textreuse dedup` run, made from its output directory.
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Deserialize;
use textreuse_dedup::Stats;
use textreuse_minhash::{BandScheme, SignerBuilder};

use crate::html::{Page, clip, escape, escape_into};
use crate::{ReportError, plot};

/// Clusters sampled per type by default.
pub const DEFAULT_SAMPLES: usize = 5;
/// Article pairs listed by default.
pub const DEFAULT_TOP_PAIRS: usize = 25;
/// Largest clusters shown by default.
pub const DEFAULT_LARGEST: usize = 3;
/// Members shown per cluster by default.
pub const DEFAULT_MAX_MEMBERS: usize = 8;
/// The link of a member from a Wikipedia dump: `{revision}` is replaced by its revision id and
/// `{title}` by its title (percent-encoded).
pub const DEFAULT_REVISION_URL: &str = "https://en.wikipedia.org/w/index.php?oldid={revision}";
/// Characters of a member's text shown (and compared word by word).
const MAX_TEXT_CHARS: usize = 2000;
/// Members read per sampled cluster (a cluster line can list millions; the rest are counted).
const KEEP_MEMBERS: usize = 256;

/// Makes `report.html` from the outputs of `textreuse dedup` (`stats.json`, `clusters.jsonl`,
/// `article-pairs.tsv`): summary counts per stage, the cluster-size histogram, the research's
/// summaries (distinct texts, size percentiles and shares, article chains), counts per type
/// with an example of each, the S-curve of the run's parameters, the top article pairs, the
/// largest clusters and a sample of clusters per type with the words that differ from the
/// representative marked.
///
/// The size is bounded whatever the run's size: the sample is a fixed number of clusters per
/// type (the same on every machine: those whose ids hash lowest), lists are top-N, and member
/// texts are clipped. `clusters.jsonl` is read once, sequentially, and only the sampled lines
/// are parsed.
///
/// ```no_run
/// use textreuse_report::DedupReport;
///
/// let summary = DedupReport::new().samples(3).write("textreuse-out".as_ref())?;
/// println!("{} ({} bytes)", summary.path.display(), summary.bytes);
/// # Ok::<(), textreuse_report::ReportError>(())
/// ```
#[derive(Clone, Debug)]
pub struct DedupReport {
    samples: usize,
    top_pairs: usize,
    largest: usize,
    max_members: usize,
    revision_url: Option<String>,
}

impl Default for DedupReport {
    fn default() -> Self {
        DedupReport::new()
    }
}

/// What [`DedupReport::write`] wrote.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ReportSummary {
    /// The report file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Cluster lines read.
    pub clusters: u64,
    /// Clusters shown (sampled and largest).
    pub shown: usize,
    /// Seconds it took.
    pub seconds: f64,
}

impl DedupReport {
    /// A report with the defaults: [`DEFAULT_SAMPLES`] clusters per type, [`DEFAULT_TOP_PAIRS`]
    /// article pairs, [`DEFAULT_LARGEST`] largest clusters, [`DEFAULT_MAX_MEMBERS`] members
    /// per cluster, members linked with [`DEFAULT_REVISION_URL`].
    pub fn new() -> DedupReport {
        DedupReport {
            samples: DEFAULT_SAMPLES,
            top_pairs: DEFAULT_TOP_PAIRS,
            largest: DEFAULT_LARGEST,
            max_members: DEFAULT_MAX_MEMBERS,
            revision_url: Some(DEFAULT_REVISION_URL.to_string()),
        }
    }

    /// Clusters sampled per type.
    pub fn samples(&mut self, n: usize) -> &mut Self {
        self.samples = n;
        self
    }

    /// Article pairs listed.
    pub fn top_pairs(&mut self, n: usize) -> &mut Self {
        self.top_pairs = n;
        self
    }

    /// Largest clusters shown.
    pub fn largest(&mut self, n: usize) -> &mut Self {
        self.largest = n;
        self
    }

    /// Members shown per cluster (at least 2).
    pub fn max_members(&mut self, n: usize) -> &mut Self {
        self.max_members = n.clamp(2, KEEP_MEMBERS);
        self
    }

    /// The link template of members with a revision id (`{revision}`, `{title}`), or `None` for
    /// no links (dumps of other wikis: `https://de.wikipedia.org/w/index.php?oldid={revision}`).
    pub fn revision_url(&mut self, template: Option<&str>) -> &mut Self {
        self.revision_url = template.map(str::to_string);
        self
    }

    /// Writes `dir/report.html` (atomically: a temporary file renamed into place).
    pub fn write(&self, dir: &Path) -> Result<ReportSummary, ReportError> {
        let started = Instant::now();
        let (html, clusters, shown) = self.render_counted(dir)?;
        let path = dir.join("report.html");
        crate::write_atomically(&path, html.as_bytes())?;
        Ok(ReportSummary {
            path,
            bytes: html.len() as u64,
            clusters,
            shown,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// The report of the outputs in `dir`, as an HTML document.
    pub fn render(&self, dir: &Path) -> Result<String, ReportError> {
        Ok(self.render_counted(dir)?.0)
    }

    fn render_counted(&self, dir: &Path) -> Result<(String, u64, usize), ReportError> {
        let stats_path = dir.join("stats.json");
        let text = std::fs::read_to_string(&stats_path).map_err(ReportError::io(&stats_path))?;
        let stats = RunStats::parse(&text).map_err(|e| ReportError::Format {
            run: crate::Run::Dedup,
            path: stats_path.clone(),
            line: e.line() as u64,
            message: e.to_string(),
        })?;
        let clusters_path = dir.join("clusters.jsonl");
        let scan = scan(&clusters_path, self.samples, self.largest)?;
        let picked = read_picks(&clusters_path, &scan)?;
        let pairs = read_pairs(&dir.join("article-pairs.tsv"), self.top_pairs)?;

        let mut page = Page::new(
            &format!("textreuse dedup report: {}", dir.display()),
            &format!(
                "{} {}s of {} documents; {} clusters, {} duplicates.",
                thousands(stats.sentences),
                stats.unit,
                thousands(stats.documents),
                thousands(stats.clusters),
                thousands(stats.duplicates)
            ),
        );
        self.summary(&mut page, &stats, &scan);
        sizes(&mut page, &stats)?;
        summaries(&mut page, &stats);
        self.types(&mut page, &stats, &scan, &picked)?;
        s_curve(&mut page, &stats)?;
        pairs_section(&mut page, &pairs, self.top_pairs);
        self.contradictions_section(&mut page, &dir.join("contradictions.jsonl"))?;
        let shown = self.clusters_section(&mut page, &scan, &picked);
        Ok((page.finish(), scan.lines, shown))
    }

    fn summary(&self, page: &mut Page, s: &RunStats, scan: &Scan) {
        page.section("summary", "Summary");
        let out = page.push();
        let _ = write!(out, "<p>Parameters: unit <b>{}</b>", escape(&s.unit));
        if s.method == "simhash" {
            out.push_str(", SimHash fingerprints");
        } else {
            let _ = write!(
                out,
                ", MinHash <b>{}</b> scheme, N = {}, K = {}, M = {}",
                escape(s.scheme()),
                s.hashes,
                s.rows,
                s.bands
            );
            if let Some(seed) = s.seed {
                let _ = write!(out, ", seed {seed}");
            }
        }
        if let Some(t) = s.threshold {
            let _ = write!(out, ", threshold {t}");
        }
        let _ = writeln!(
            out,
            "; representatives: {}{}.</p>",
            escape(&s.keep),
            if s.verified {
                "; similarities verified exactly"
            } else {
                ""
            }
        );
        let unit = &s.unit;
        let rows: Vec<(String, u64, &str)> = vec![
            ("documents read".into(), s.documents, "1-2"),
            (format!("{unit}s"), s.sentences, "2"),
            (
                format!("{unit}s within the shingle filter"),
                s.sentences_kept,
                "2",
            ),
            ("band-key records".into(), s.band_key_records, "3"),
            ("distinct band keys (buckets)".into(), s.buckets, "3-4"),
            ("candidate pairs".into(), s.candidate_pairs, "4"),
            (
                "pairs after the edit filter".into(),
                s.pairs_after_edit_filter,
                "7",
            ),
            ("clusters".into(), s.clusters, "5"),
            (format!("{unit}s in clusters"), s.clustered_sentences, "5"),
            ("duplicates".into(), s.duplicates, "6"),
            (
                "articles with a clustered unit".into(),
                s.distinct_articles,
                "8",
            ),
            ("input problems skipped".into(), s.input_problems, "1"),
        ];
        let rows: Vec<Vec<String>> = rows
            .into_iter()
            .map(|(name, n, stage)| vec![escape(&name), thousands(n), stage.to_string()])
            .collect();
        page.push().push_str("<h3>Counts per stage</h3>\n");
        page.table(&["what", "#count", "stage"], &rows);
        // The stages in pipeline order.
        let t = &s.seconds;
        let seconds: Vec<Vec<String>> = [
            ("sentences_and_signatures", t.sentences_and_signatures),
            ("shuffle_and_clusters", t.shuffle_and_clusters),
            ("edit_filter", t.edit_filter),
            ("text_classify_write", t.text_classify_write),
        ]
        .into_iter()
        .map(|(k, v)| vec![escape(&k.replace('_', " ")), format!("{v:.3}")])
        .collect();
        page.push().push_str("<h3>Seconds per stage</h3>\n");
        page.table(&["stage", "#seconds"], &seconds);
        let _ = writeln!(
            page.push(),
            "<p class=\"note\">clusters.jsonl holds {} cluster lines ({} clusters in \
             stats.json).</p>",
            thousands(scan.lines),
            thousands(s.clusters)
        );
        page.end_section();
    }

    fn types(
        &self,
        page: &mut Page,
        s: &RunStats,
        scan: &Scan,
        picked: &BTreeMap<u64, ClusterLine>,
    ) -> Result<(), ReportError> {
        page.section("types", "Cluster types");
        let mut counts: Vec<(&str, u64)> = s.types.iter().map(|(k, &v)| (k.as_str(), v)).collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        page.figure(
            &plot::type_counts_svg(&counts)?,
            "Clusters per type: the types of Weissman et al., decided by a model fitted to \
             labelled clusters over the rules' evidence (docs/dedup.md, \"Cluster types\").",
        );
        let total: u64 = counts.iter().map(|c| c.1).sum::<u64>().max(1);
        let rows: Vec<Vec<String>> = counts
            .iter()
            .map(|&(name, n)| {
                let example = scan
                    .per_type
                    .get(name)
                    .and_then(|picks| picks.first())
                    .and_then(|p| picked.get(&p.cluster))
                    .map_or_else(
                        || "<span class=\"note\">none in the sample</span>".to_string(),
                        |c| {
                            let (text, cut) = clip(c.representative_text(), 160);
                            format!(
                                "<a href=\"#c{}\">{}{}</a>",
                                c.cluster,
                                escape(text),
                                if cut { "…" } else { "" }
                            )
                        },
                    );
                vec![
                    escape(name),
                    thousands(n),
                    format!("{:.1}\u{a0}%", 100.0 * n as f64 / total as f64),
                    escape(describe(name)),
                    example,
                ]
            })
            .collect();
        page.table(
            &["type", "#clusters", "#share", "meaning", "example"],
            &rows,
        );
        page.end_section();
        Ok(())
    }

    fn clusters_section(
        &self,
        page: &mut Page,
        scan: &Scan,
        picked: &BTreeMap<u64, ClusterLine>,
    ) -> usize {
        let mut shown = 0;
        page.section("largest", "Largest clusters");
        for pick in &scan.largest {
            if let Some(c) = picked.get(&pick.cluster) {
                self.cluster_html(page.push(), c, "largest", false);
                shown += 1;
            }
        }
        page.end_section();
        page.section("samples", "Sampled clusters");
        let _ = writeln!(
            page.push(),
            "<p class=\"note\">Up to {} clusters per type, the same on every run of the same \
             outputs (those whose ids hash lowest). In each, the representative comes first; \
             in the other members, <ins>words the representative does not have</ins> and \
             <del>its words they lack</del> are marked.</p>",
            self.samples
        );
        for (kind, picks) in &scan.per_type {
            let _ = writeln!(page.push(), "<h3>{}</h3>", escape(kind));
            for (i, pick) in picks.iter().enumerate() {
                if let Some(c) = picked.get(&pick.cluster) {
                    self.cluster_html(page.push(), c, "sample", i == 0);
                    shown += 1;
                }
            }
        }
        page.end_section();
        shown
    }

    fn cluster_html(&self, out: &mut String, c: &ClusterLine, role: &str, open: bool) {
        // The sampled section carries the anchor; a largest cluster that is also sampled
        // links there.
        let id = if role == "sample" {
            format!(" id=\"c{}\"", c.cluster)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "<details class=\"cluster\"{id}{}><summary>cluster {} · <span \
             class=\"tag\">{}</span> · {} members</summary>",
            if open { " open" } else { "" },
            c.cluster,
            escape(&c.kind),
            thousands(c.size)
        );
        let members = &c.members.kept;
        let rep = if c.representative < members.len() {
            c.representative
        } else {
            0
        };
        let Some(rep_member) = members.get(rep) else {
            out.push_str("</details>\n");
            return;
        };
        let (rep_text, _) = clip(&rep_member.text, MAX_TEXT_CHARS);
        let order = std::iter::once(rep).chain((0..members.len()).filter(|&i| i != rep));
        for i in order.take(self.max_members) {
            let m = &members[i];
            let _ = write!(
                out,
                "<div class=\"member{}\"><div class=\"meta\">",
                if i == rep { " rep" } else { "" }
            );
            self.provenance(out, m, i == rep);
            out.push_str("</div><div>");
            let (text, cut) = clip(&m.text, MAX_TEXT_CHARS);
            if i == rep {
                escape_into(text, out);
            } else {
                crate::diff::member_html(rep_text, text, out);
            }
            if cut {
                out.push('…');
            }
            out.push_str("</div></div>\n");
        }
        let hidden = c
            .size
            .saturating_sub(self.max_members.min(members.len()) as u64);
        if hidden > 0 {
            let _ = writeln!(
                out,
                "<p class=\"note\">and {} more members (all in clusters.jsonl, cluster {}).</p>",
                thousands(hidden),
                c.cluster
            );
        }
        out.push_str("</details>\n");
    }

    /// The contradictions of `contradictions.jsonl` (left out when the file is absent, as in
    /// the outputs of older runs): the first [`DedupReport::samples`] × 4 by confidence, each
    /// fact beside the other, each statement with its article (linked to its revision), time
    /// and the facts marked in its text.
    fn contradictions_section(&self, page: &mut Page, path: &Path) -> Result<(), ReportError> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(ReportError::io(path)(e)),
        };
        let show = self.samples.saturating_mul(4).max(1);
        let mut shown: Vec<ContradictionLine> = Vec::new();
        let mut total = 0u64;
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(ReportError::io(path))?;
            if line.trim().is_empty() {
                continue;
            }
            total += 1;
            if shown.len() < show {
                let c: ContradictionLine =
                    serde_json::from_str(&line).map_err(|e| ReportError::Format {
                        run: crate::Run::Dedup,
                        path: path.to_path_buf(),
                        line: n as u64 + 1,
                        message: e.to_string(),
                    })?;
                shown.push(c);
            }
        }
        page.section("contradictions", "Contradictions");
        let _ = writeln!(
            page.push(),
            "<p>{} factual-drift clusters state a fact two ways (contradictions.jsonl, the most \
             confident first{}). The differing facts are marked; <b>newest</b> is the statement \
             with the latest revision where the timestamps tell.</p>",
            thousands(total),
            if total as usize > shown.len() {
                format!("; the first {} here", shown.len())
            } else {
                String::new()
            }
        );
        for c in &shown {
            let out = page.push();
            let _ = write!(
                out,
                "<div class=\"contradiction\" id=\"x{}\"><p><b>{:.2}</b> · {} · ",
                c.cluster,
                c.confidence,
                escape(&c.rule.replace('_', " "))
            );
            for (i, f) in c.facts.iter().enumerate() {
                if i > 0 {
                    out.push_str("; ");
                }
                let _ = write!(
                    out,
                    "<mark>{}</mark> vs <mark>{}</mark> ({})",
                    escape(&f.a),
                    escape(&f.b),
                    escape(&f.kind)
                );
            }
            let _ = writeln!(
                out,
                " · <a href=\"#c{}\">cluster {}</a></p>",
                c.cluster, c.cluster
            );
            for (i, st) in c.statements.iter().enumerate() {
                let needles: Vec<&str> = c
                    .facts
                    .iter()
                    .filter_map(|f| {
                        if f.statements[0] == i {
                            Some(f.a.as_str())
                        } else if f.statements[1] == i {
                            Some(f.b.as_str())
                        } else {
                            None
                        }
                    })
                    .collect();
                out.push_str("<div class=\"member\"><div class=\"meta\">");
                // The statement's own link (its dump's wiki), else the report's template; none
                // when the report is asked for no links.
                let link = self.revision_url.as_ref().and_then(|template| {
                    st.url.clone().or_else(|| {
                        st.revision.map(|rev| {
                            template
                                .replace("{revision}", &rev.to_string())
                                .replace("{title}", &percent_encode(&st.title))
                        })
                    })
                });
                match &link {
                    Some(url) => {
                        let _ =
                            write!(out, "<a href=\"{}\">{}</a>", escape(url), escape(&st.title));
                    }
                    None => escape_into(&st.title, out),
                }
                if let Some(ts) = &st.timestamp {
                    let _ = write!(out, " · {}", escape(ts));
                }
                if st.newest == Some(true) {
                    out.push_str(" · <b>newest</b>");
                }
                out.push_str("</div><div>");
                mark_into(&st.text, &needles, out);
                out.push_str("</div></div>\n");
            }
            out.push_str("</div>\n");
        }
        page.end_section();
        Ok(())
    }

    /// The member's title (linked to its revision), document, place in its input and offsets.
    fn provenance(&self, out: &mut String, m: &MemberLine, rep: bool) {
        if rep {
            out.push_str("<b>representative</b> · ");
        }
        let title = if m.title.is_empty() {
            "(untitled)"
        } else {
            &m.title
        };
        match (&self.revision_url, m.revision) {
            (Some(template), Some(rev)) => {
                let url = template
                    .replace("{revision}", &rev.to_string())
                    .replace("{title}", &percent_encode(title));
                let _ = write!(
                    out,
                    "<a href=\"{}\" title=\"revision {rev}\">{}</a>",
                    escape(&url),
                    escape(title)
                );
            }
            _ => escape_into(title, out),
        }
        let _ = write!(out, " · doc {}", escape(&doc_string(&m.doc)));
        if let Some(idx) = m.idx {
            let _ = write!(out, " · unit {idx}");
        }
        if let Some(source) = &m.source {
            let name = Path::new(source)
                .file_name()
                .map_or(source.as_str(), |n| n.to_str().unwrap_or(source));
            out.push_str(" · ");
            if source.starts_with('/') {
                let _ = write!(
                    out,
                    "<a href=\"file://{}\" title=\"{}\">{}</a>",
                    escape(&percent_encode_path(source)),
                    escape(source),
                    escape(name)
                );
            } else {
                let _ = write!(
                    out,
                    "<span title=\"{}\">{}</span>",
                    escape(source),
                    escape(name)
                );
            }
            if let Some(record) = m.record {
                let _ = write!(out, ":{record}");
            }
        }
        if let Some(rev) = m.revision {
            let _ = write!(out, " · revision {rev}");
        }
        if let Some(ts) = &m.timestamp {
            let _ = write!(out, " · {}", escape(ts));
        }
        if let (Some(a), Some(b)) = (m.start, m.end) {
            let _ = write!(out, " · chars {a}–{b}");
        }
        if let Some(sim) = m.similarity {
            let _ = write!(out, " · similarity {sim:.3}");
        }
    }
}

/// The cluster-size histogram section.
fn sizes(page: &mut Page, s: &RunStats) -> Result<(), ReportError> {
    page.section("sizes", "Cluster sizes");
    let histogram: BTreeMap<u64, u64> = s
        .cluster_size_histogram
        .iter()
        .map(|(&k, &v)| (k as u64, v))
        .collect();
    page.figure(
        &plot::cluster_sizes_svg(&histogram)?,
        "Number of clusters of each size, both axes logarithmic.",
    );
    let mut rows: Vec<Vec<String>> = histogram
        .iter()
        .take(8)
        .map(|(size, n)| vec![size.to_string(), thousands(*n)])
        .collect();
    if histogram.len() > 8 {
        let rest: u64 = histogram.values().skip(8).sum();
        let largest = histogram.keys().last().copied().unwrap_or(0);
        rows.push(vec![
            format!("larger (up to {})", thousands(largest)),
            thousands(rest),
        ]);
    }
    page.table(&["size", "#clusters"], &rows);
    page.end_section();
    Ok(())
}

/// The summaries section (the seed research's): distinct texts, size percentiles and shares,
/// article chains. Left out for a stats.json written before they were counted.
fn summaries(page: &mut Page, s: &RunStats) {
    if !s.summaries {
        return;
    }
    let unit = &s.unit;
    let percent = |share: f64| format!("{:.1}%", share * 100.0);
    page.section("summaries", "Summaries");
    let _ = writeln!(
        page.push(),
        "<p>{} distinct texts among the {} {unit}s in clusters (texts as written; each \
         cluster's distinct texts, summed).</p>",
        thousands(s.distinct_clustered_texts),
        thousands(s.clustered_sentences)
    );
    let z = &s.cluster_sizes;
    let mut rows: Vec<Vec<String>> = vec![
        vec!["median cluster size (p50)".into(), thousands(z.p50 as u64)],
        vec!["p90".into(), thousands(z.p90 as u64)],
        vec!["p99".into(), thousands(z.p99 as u64)],
        vec!["largest".into(), thousands(z.max as u64)],
    ];
    for (size, share) in &z.share_of_clusters_at_most {
        rows.push(vec![
            format!("clusters of at most {size} {unit}s"),
            percent(*share),
        ]);
    }
    for (size, share) in &z.share_of_units_in_clusters_above {
        rows.push(vec![
            format!("{unit}s in clusters of more than {size}"),
            percent(*share),
        ]);
    }
    for (size, share) in &z.share_of_article_pair_links_in_clusters_above {
        rows.push(vec![
            format!("article-pair links from clusters of more than {size} {unit}s"),
            percent(*share),
        ]);
    }
    page.push().push_str("<h3>Cluster sizes and shares</h3>\n");
    page.table(&["what", "#value"], &rows);
    let _ = writeln!(
        page.push(),
        "<p class=\"note\">Percentiles by nearest rank over clusters. An article-pair link is \
         a pair of distinct articles in one cluster, counted once per cluster ({} links in \
         all).</p>",
        thousands(s.article_pair_links)
    );
    let c = &s.article_chains;
    page.push().push_str("<h3>Article chains</h3>\n");
    let _ = writeln!(
        page.push(),
        "<p>{} chains of articles linked by shared clusters (connected components of two or \
         more articles), holding {} of the {} articles with a clustered {unit}. Clusters of \
         more than {} articles are left out ({} of them), as in the article pairs.</p>",
        thousands(c.chains),
        thousands(c.articles),
        thousands(s.distinct_articles),
        textreuse_dedup::article_pairs::MAX_CLUSTER_ARTICLES,
        thousands(c.clusters_left_out)
    );
    let mut rows: Vec<Vec<String>> = c
        .size_histogram
        .iter()
        .take(8)
        .map(|(size, n)| vec![size.to_string(), thousands(*n)])
        .collect();
    if c.size_histogram.len() > 8 {
        let rest: u64 = c.size_histogram.values().skip(8).sum();
        let largest = c.size_histogram.keys().last().copied().unwrap_or(0);
        rows.push(vec![
            format!("larger (up to {})", thousands(largest as u64)),
            thousands(rest),
        ]);
    }
    if !rows.is_empty() {
        page.table(&["#articles", "#chains"], &rows);
    }
    let rows: Vec<Vec<String>> = c
        .largest
        .iter()
        .enumerate()
        .map(|(i, chain)| {
            let mut titles = String::new();
            for (j, m) in chain.members.iter().enumerate() {
                if j > 0 {
                    titles.push_str(", ");
                }
                escape_into(&m.title, &mut titles);
                let _ = write!(
                    titles,
                    " <span class=\"note\">({}, {})</span>",
                    escape(&m.doc.to_string()),
                    m.clusters
                );
            }
            if chain.articles > chain.members.len() as u64 {
                let _ = write!(
                    titles,
                    " <span class=\"note\">and {} more</span>",
                    thousands(chain.articles - chain.members.len() as u64)
                );
            }
            vec![
                (i + 1).to_string(),
                thousands(chain.articles),
                thousands(chain.clusters),
                titles,
            ]
        })
        .collect();
    if !rows.is_empty() {
        page.push().push_str(
            "<p class=\"note\">The largest chains; in each, the articles in the most clusters \
             (document id, clusters).</p>\n",
        );
        page.table(&["#rank", "#articles", "#clusters", "articles"], &rows);
    }
    page.end_section();
}

/// A line of contradictions.jsonl, as the report reads it.
#[derive(Deserialize)]
struct ContradictionLine {
    cluster: u64,
    confidence: f64,
    rule: String,
    facts: Vec<FactLine>,
    statements: Vec<StatementLine>,
}

#[derive(Deserialize)]
struct FactLine {
    kind: String,
    a: String,
    b: String,
    statements: [usize; 2],
}

#[derive(Deserialize)]
struct StatementLine {
    title: String,
    text: String,
    #[serde(default)]
    revision: Option<u64>,
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    newest: Option<bool>,
}

/// `text` as HTML with the first occurrence of each needle in `<mark>` (overlaps: the earlier
/// one wins).
fn mark_into(text: &str, needles: &[&str], out: &mut String) {
    let mut spans: Vec<(usize, usize)> = needles
        .iter()
        .filter(|n| !n.is_empty())
        .filter_map(|n| text.find(n).map(|at| (at, at + n.len())))
        .collect();
    spans.sort_unstable();
    let mut at = 0;
    for (start, end) in spans {
        if start < at {
            continue;
        }
        escape_into(&text[at..start], out);
        out.push_str("<mark>");
        escape_into(&text[start..end], out);
        out.push_str("</mark>");
        at = end;
    }
    escape_into(&text[at..], out);
}

/// The S-curve section: the run's signer rebuilt from stats.json.
fn s_curve(page: &mut Page, s: &RunStats) -> Result<(), ReportError> {
    page.section("s-curve", "S-curve");
    if s.method == "simhash" {
        page.push().push_str(
            "<p class=\"note\">This run found candidates with SimHash fingerprints (pairs within \
             a Hamming distance); it has no band S-curve.</p>\n",
        );
        page.end_section();
        return Ok(());
    }
    let scheme: BandScheme = s.scheme().parse().unwrap_or(BandScheme::Drawn);
    let mut builder = SignerBuilder::new();
    builder
        .scheme(scheme)
        .hashes(s.hashes)
        .rows(s.rows)
        .bands(s.bands);
    if let Some(seed) = s.seed {
        builder.seed(seed);
    }
    match builder.build() {
        Ok(signer) => {
            let mut plot = plot::SCurvePlot::new(&signer);
            let threshold = s.threshold.unwrap_or_else(|| signer.threshold_estimate());
            plot = plot.threshold(threshold);
            if let Some(n) = s.min_shingles {
                plot = plot.min_set(n);
            }
            let caption = if s.threshold.is_some() {
                "The probability that a pair of each Jaccard similarity becomes a candidate \
                 under the run's parameters; the red line is the run's threshold."
                    .to_string()
            } else {
                format!(
                    "The probability that a pair of each Jaccard similarity becomes a candidate \
                     under the run's parameters; no threshold was given, the red line is where \
                     the curve rises, (1/M)^(1/K) = {threshold:.3}."
                )
            };
            page.figure(&plot.svg()?, &caption);
            if s.seed.is_none() {
                page.push().push_str(
                    "<p class=\"note\">stats.json records no seed: the curve is drawn with the \
                     default seed.</p>\n",
                );
            }
        }
        Err(e) => {
            let _ = writeln!(
                page.push(),
                "<p class=\"note\">No curve: the parameters in stats.json do not make a signer \
                 ({}).</p>",
                escape(&e.to_string())
            );
        }
    }
    page.end_section();
    Ok(())
}

fn pairs_section(page: &mut Page, pairs: &[[String; 5]], top: usize) {
    page.section("pairs", "Article pairs");
    let _ = writeln!(
        page.push(),
        "<p class=\"note\">The {} document pairs that share the most clusters (all of them in \
         article-pairs.tsv).</p>",
        top
    );
    let rows: Vec<Vec<String>> = pairs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vec![
                (i + 1).to_string(),
                escape(&p[0]),
                format!(
                    "{} <span class=\"note\">({})</span>",
                    escape(&p[2]),
                    escape(&p[1])
                ),
                format!(
                    "{} <span class=\"note\">({})</span>",
                    escape(&p[4]),
                    escape(&p[3])
                ),
            ]
        })
        .collect();
    page.table(&["#rank", "#shared clusters", "article", "article"], &rows);
    page.end_section();
}

/// What each cluster type means: the paper's definitions (docs/dedup.md).
fn describe(kind: &str) -> &'static str {
    match kind {
        "identical" => {
            "the same sentence up to case, punctuation and typographic variants: copy and paste"
        }
        "template" => {
            "the same frame whose differing parts are each article's own subject or figures"
        }
        "copyedit" => {
            "the same statement with non-substantive edits (a pronoun for a name, spelling, reordering)"
        }
        "factual_drift" => {
            "the same subject with a changed fact (number, date, name, negation), within or across articles"
        }
        "reference" => "citations",
        "other" => {
            "similar text that is not related (sentence-splitting errors, boilerplate fragments)"
        }
        _ => "",
    }
}

/// A run's `stats.json`: the dedup crate's [`Stats`] (any missing field takes its default, so
/// outputs of older versions still make a report), and the two fields older versions did not
/// write, `None` when the file does not record them.
struct RunStats {
    stats: Stats,
    /// [`Stats::seed`], if recorded (the S-curve is drawn with the default seed otherwise).
    seed: Option<u64>,
    /// [`Stats::min_shingles`], if recorded.
    min_shingles: Option<usize>,
    /// Whether the summaries ([`Stats::article_chains`] and the fields beside it) are recorded.
    summaries: bool,
}

impl RunStats {
    fn parse(text: &str) -> Result<RunStats, serde_json::Error> {
        let stats: Stats = serde_json::from_str(text)?;
        let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text)?;
        Ok(RunStats {
            seed: fields.contains_key("seed").then_some(stats.seed),
            min_shingles: fields
                .contains_key("min_shingles")
                .then_some(stats.min_shingles),
            summaries: fields.contains_key("article_chains"),
            stats,
        })
    }

    /// The band scheme (`drawn` when not recorded).
    fn scheme(&self) -> &str {
        match self.stats.scheme.as_str() {
            "" => "drawn",
            scheme => scheme,
        }
    }
}

impl std::ops::Deref for RunStats {
    type Target = Stats;

    fn deref(&self) -> &Stats {
        &self.stats
    }
}

/// A cluster line chosen in the scan: where it is and why.
#[derive(Clone, Debug)]
struct Pick {
    /// The order it is kept by (lowest first).
    key: (u64, u64),
    offset: u64,
    len: usize,
    /// The 1-based line number, for errors.
    line: u64,
    cluster: u64,
}

/// What one pass over clusters.jsonl chose.
#[derive(Debug, Default)]
struct Scan {
    lines: u64,
    /// Type -> the sampled clusters, lowest hash first.
    per_type: BTreeMap<String, Vec<Pick>>,
    /// The largest clusters, largest first.
    largest: Vec<Pick>,
}

/// Keeps the `k` lowest picks (amortized: sorts when twice as many have piled up).
fn keep_lowest(picks: &mut Vec<Pick>, k: usize, pick: Pick) {
    if k == 0 {
        return;
    }
    picks.push(pick);
    if picks.len() >= 2 * k.max(8) {
        picks.sort_unstable_by_key(|p| p.key);
        picks.truncate(k);
    }
}

fn finish_lowest(picks: &mut Vec<Pick>, k: usize) {
    picks.sort_unstable_by_key(|p| p.key);
    picks.truncate(k);
}

/// `{"cluster":N,"size":S,"type":"T"` at the start of a line, as dedup writes it.
fn head(line: &[u8]) -> Option<(u64, u64, &str)> {
    fn number(s: &[u8]) -> Option<(u64, &[u8])> {
        let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
        let n = std::str::from_utf8(&s[..digits]).ok()?.parse().ok()?;
        Some((n, &s[digits..]))
    }
    let rest = line.strip_prefix(b"{\"cluster\":")?;
    let (cluster, rest) = number(rest)?;
    let rest = rest.strip_prefix(b",\"size\":")?;
    let (size, rest) = number(rest)?;
    let rest = rest.strip_prefix(b",\"type\":\"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    let kind = std::str::from_utf8(&rest[..end]).ok()?;
    Some((cluster, size, kind))
}

#[derive(Deserialize)]
struct Head {
    cluster: u64,
    size: u64,
    #[serde(rename = "type")]
    kind: String,
}

/// One pass over clusters.jsonl: per type the `samples` clusters whose ids hash lowest, and the
/// `largest` clusters by size (ties: lower id).
fn scan(path: &Path, samples: usize, largest: usize) -> Result<Scan, ReportError> {
    let file = File::open(path).map_err(ReportError::io(path))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut scan = Scan::default();
    let mut line = Vec::new();
    let (mut offset, mut line_no) = (0u64, 0u64);
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(ReportError::io(path))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let terminated = line.ends_with(b"\n");
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.iter().all(u8::is_ascii_whitespace) {
            offset += n as u64;
            continue;
        }
        scan.lines += 1;
        // dedup ends every line with a newline: a last line without one may have been cut (an
        // interrupted run, a full disk, a partial copy). The fast head parse below would accept
        // its start, so it is parsed whole.
        if !terminated && let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(body) {
            return Err(ReportError::Format {
                run: crate::Run::Dedup,
                path: path.to_path_buf(),
                line: line_no,
                message: format!(
                    "the last line is cut ({e}): the file ends inside a cluster line; run \
                     dedup again, or remove the broken line to report on the rest"
                ),
            });
        }
        let (cluster, size, kind) = match head(body) {
            Some((c, s, k)) => (c, s, k.to_string()),
            None => {
                let h: Head = serde_json::from_slice(body).map_err(|e| ReportError::Format {
                    run: crate::Run::Dedup,
                    path: path.to_path_buf(),
                    line: scan.lines,
                    message: e.to_string(),
                })?;
                (h.cluster, h.size, h.kind)
            }
        };
        let pick = |key| Pick {
            key,
            offset,
            len: body.len(),
            line: line_no,
            cluster,
        };
        let hash = textreuse_hash::mix64(cluster ^ SAMPLE_SALT);
        keep_lowest(
            scan.per_type.entry(kind).or_default(),
            samples,
            pick((hash, cluster)),
        );
        keep_lowest(&mut scan.largest, largest, pick((u64::MAX - size, cluster)));
        offset += n as u64;
    }
    for picks in scan.per_type.values_mut() {
        finish_lowest(picks, samples);
    }
    finish_lowest(&mut scan.largest, largest);
    Ok(scan)
}

/// Mixed into cluster ids before hashing, so the sample is not simply the lowest ids.
const SAMPLE_SALT: u64 = 0x7265_706f_7274_0001;

/// Reads and parses the chosen lines, by cluster id.
fn read_picks(path: &Path, scan: &Scan) -> Result<BTreeMap<u64, ClusterLine>, ReportError> {
    let mut picks: Vec<&Pick> = scan
        .per_type
        .values()
        .flatten()
        .chain(&scan.largest)
        .collect();
    picks.sort_unstable_by_key(|p| p.offset);
    picks.dedup_by_key(|p| p.offset);
    let mut file = File::open(path).map_err(ReportError::io(path))?;
    let mut out = BTreeMap::new();
    let mut buf = Vec::new();
    for p in picks {
        buf.resize(p.len, 0);
        file.seek(SeekFrom::Start(p.offset))
            .and_then(|_| file.read_exact(&mut buf))
            .map_err(ReportError::io(path))?;
        let line: ClusterLine = serde_json::from_slice(&buf).map_err(|e| ReportError::Format {
            run: crate::Run::Dedup,
            path: path.to_path_buf(),
            line: p.line,
            message: format!("cluster {}: {e}", p.cluster),
        })?;
        out.insert(p.cluster, line);
    }
    Ok(out)
}

/// The first `top` rows of article-pairs.tsv (after its header); none when there is no file.
fn read_pairs(path: &Path, top: usize) -> Result<Vec<[String; 5]>, ReportError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ReportError::io(path)(e)),
    };
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(ReportError::io(path))?;
        if i == 0 || line.is_empty() {
            continue;
        }
        if out.len() == top {
            break;
        }
        let fields: Vec<&str> = line.splitn(5, '\t').collect();
        let [a, b, c, d, e] = fields[..] else {
            return Err(ReportError::Format {
                run: crate::Run::Dedup,
                path: path.to_path_buf(),
                line: i as u64 + 1,
                message: "expected 5 tab-separated fields".into(),
            });
        };
        out.push([a, b, c, d, e].map(str::to_string));
    }
    Ok(out)
}

/// A cluster line of clusters.jsonl, with at most [`KEEP_MEMBERS`] members read.
#[derive(Debug, Deserialize)]
struct ClusterLine {
    cluster: u64,
    size: u64,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    representative: usize,
    members: Members,
}

impl ClusterLine {
    fn representative_text(&self) -> &str {
        let m = &self.members.kept;
        m.get(self.representative)
            .or_else(|| m.first())
            .map_or("", |m| m.text.as_str())
    }
}

#[derive(Debug, Deserialize)]
struct MemberLine {
    #[serde(default)]
    doc: serde_json::Value,
    #[serde(default)]
    title: String,
    idx: Option<u64>,
    #[serde(default)]
    text: String,
    source: Option<String>,
    record: Option<u64>,
    revision: Option<u64>,
    timestamp: Option<String>,
    start: Option<u64>,
    end: Option<u64>,
    similarity: Option<f64>,
}

/// The first [`KEEP_MEMBERS`] members of a cluster line; the others are skipped unparsed.
#[derive(Debug, Default)]
struct Members {
    kept: Vec<MemberLine>,
}

impl<'de> Deserialize<'de> for Members {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Members, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Members;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of members")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Members, A::Error> {
                let mut kept = Vec::new();
                while kept.len() < KEEP_MEMBERS {
                    match seq.next_element()? {
                        Some(m) => kept.push(m),
                        None => return Ok(Members { kept }),
                    }
                }
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Members { kept })
            }
        }
        d.deserialize_seq(Visitor)
    }
}

fn doc_string(doc: &serde_json::Value) -> String {
    match doc {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `n` with thin separators every three digits (12,345,678).
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Percent-encodes a title for a URL (unreserved characters kept, spaces as `_` as Wikipedia
/// writes them).
fn percent_encode(s: &str) -> String {
    encode(s, |b| b == b' ').replace(' ', "_")
}

/// Percent-encodes a file path for a `file://` URL (`/` kept).
fn percent_encode_path(s: &str) -> String {
    encode(s, |b| b == b'/')
}

/// `s` with every byte but the unreserved ones and those `keep` accepts written as `%XX`.
fn encode(s: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') || keep(b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn contradictions_are_shown_with_their_facts_marked() {
        use textreuse_dedup::contradictions::Contradiction;
        use textreuse_dedup::{Cluster, Member};

        let mut a = Member::new(
            0,
            1,
            "History of the Balkans",
            "Bulgaria, a poor rural nation of 7 million people, sent soldiers to the front.",
        );
        a.origin.url = Some("https://en.wikipedia.org/w/index.php?oldid=5".into());
        let b = Member::new(
            1 << 32,
            2,
            "Home front during World War I",
            "Bulgaria, a poor rural nation of 4.5 million people, sent soldiers to the front.",
        );
        let cluster = Cluster::new(9, vec![a, b]);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("stats.json"),
            textreuse_dedup::Stats::default().to_json(),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("clusters.jsonl"),
            format!("{}\n", cluster.to_json()),
        )
        .unwrap();
        let html = DedupReport::new().render(dir.path()).unwrap();
        assert!(
            !html.contains("id=\"contradictions\""),
            "no file, no section"
        );
        let line = Contradiction::of(&cluster).unwrap().to_json();
        std::fs::write(dir.path().join("contradictions.jsonl"), format!("{line}\n")).unwrap();
        let html = DedupReport::new().render(dir.path()).unwrap();
        assert!(html.contains("id=\"contradictions\""));
        assert!(html.contains("<mark>4.5</mark> vs <mark>7</mark> (number)"));
        assert!(html.contains("nation of <mark>7</mark> million"));
        assert!(html.contains(
            "<a href=\"https://en.wikipedia.org/w/index.php?oldid=5\">History of the Balkans</a>"
        ));
        std::fs::write(dir.path().join("contradictions.jsonl"), "{not json\n").unwrap();
        assert!(DedupReport::new().render(dir.path()).is_err());
    }

    use super::*;

    #[test]
    fn summaries_are_shown_when_recorded() {
        use textreuse_dedup::{Collect, Dedup};
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("clusters.jsonl"), "").unwrap();
        // An older stats.json: no section.
        std::fs::write(dir.path().join("stats.json"), "{\"clusters\": 0}").unwrap();
        let html = DedupReport::new().render(dir.path()).unwrap();
        assert!(!html.contains("id=\"summaries\""));
        // A run's: the numbers and the largest chain's titles.
        let text = "The old mill on the river was built in 1820 and still grinds grain for bread.";
        let docs = (0..3u64)
            .map(|i| textreuse_corpus::Document::new(i, format!("Mill <{i}>"), text.to_string()));
        let stats = Dedup::builder()
            .min_shingles(10)
            .build()
            .unwrap()
            .run_documents(docs, &mut Collect::default(), &textreuse_corpus::NoProgress)
            .unwrap();
        std::fs::write(dir.path().join("stats.json"), stats.to_json()).unwrap();
        let html = DedupReport::new().render(dir.path()).unwrap();
        assert!(html.contains("id=\"summaries\""));
        assert!(html.contains("<p>1 distinct texts among the 3 sentences in clusters"));
        assert!(
            html.contains("<td>clusters of at most 10 sentences</td><td class=\"n\">100.0%</td>")
        );
        assert!(html.contains("<p>1 chains of articles"));
        assert!(html.contains("Mill &lt;0&gt; <span class=\"note\">(0, 1)</span>"));
    }

    #[test]
    fn reads_the_line_head_fast_and_falls_back() {
        let line = br#"{"cluster":17,"size":3,"type":"copyedit","representative":0,"members":[]}"#;
        assert_eq!(head(line), Some((17, 3, "copyedit")));
        assert_eq!(head(br#"{"size":3,"cluster":17}"#), None);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }

    #[test]
    fn keeps_the_lowest_keys() {
        let mut picks = Vec::new();
        for i in (0..100u64).rev() {
            keep_lowest(
                &mut picks,
                3,
                Pick {
                    key: (i, i),
                    offset: i,
                    len: 1,
                    line: i + 1,
                    cluster: i,
                },
            );
        }
        finish_lowest(&mut picks, 3);
        let ids: Vec<u64> = picks.iter().map(|p| p.cluster).collect();
        assert_eq!(ids, [0, 1, 2]);
    }

    #[test]
    fn members_beyond_the_cap_are_skipped() {
        let member = r#"{"doc":1,"title":"T","text":"x"}"#;
        let list = vec![member; KEEP_MEMBERS + 5].join(",");
        let line = format!(
            r#"{{"cluster":1,"size":{},"type":"identical","members":[{list}]}}"#,
            KEEP_MEMBERS + 5
        );
        let c: ClusterLine = serde_json::from_str(&line).unwrap();
        assert_eq!(c.members.kept.len(), KEEP_MEMBERS);
        assert_eq!(c.size as usize, KEEP_MEMBERS + 5);
    }

    #[test]
    fn encodes_titles_and_paths() {
        assert_eq!(percent_encode("Economy of Angola"), "Economy_of_Angola");
        assert_eq!(percent_encode("a/b?c"), "a%2Fb%3Fc");
        assert_eq!(
            percent_encode_path("/data/my file.xml"),
            "/data/my%20file.xml"
        );
    }
}
