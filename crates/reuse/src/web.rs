//! The web study: how much of a web crawl reuses Wikipedia, website by website, whether the
//! reusing pages credit it, and what the reuse may be worth (the Common Crawl study of the
//! text-reuse thesis this toolkit rebuilds, its section 4 and eq. 4.2).
//!
//! A [`WebStudy`] is a [`ReuseSink`] for a run of web pages (the corpus side, from WARC or WET
//! records, each with its URL) against Wikipedia articles (the `against` side). It is told
//! every web page first ([`WebStudy::examine`]: the pages examined, reusing or not), then
//! receives the aligned pairs, and at the end holds:
//!
//! * one [`Website`] per registered domain ([`website`]: `www.bbc.co.uk` and `news.bbc.co.uk`
//!   are `bbc.co.uk`, after the Public Suffix List compiled into the `psl` crate): pages
//!   examined, pages reusing Wikipedia (at least one passage), the characters and words of
//!   those pages inside passages, and the attribution check of each reusing page
//!   ([`Attribution`]: does it link to wikipedia.org, or to the very article it reuses);
//! * the [`WebSummary`]: totals and the distribution of pages per website;
//! * the [`Revenue`] estimates when their inputs are given ([`SiteValues`], [`PageViews`], a
//!   CPM), each with the assumptions it rests on.
//!
//! With an output directory ([`WebStudyBuilder::out_dir`]) it writes `websites.tsv`,
//! `websites.json` and, with revenue inputs, `revenue.json` when the run ends, provided at
//! least one examined page had a URL ([`WebStudy::FILES`]).
//!
//! ```
//! use textreuse_corpus::{Document, Link};
//! use textreuse_reuse::web::{Attribution, WebStudy};
//! use textreuse_reuse::Reuse;
//!
//! let article = "Honey bees live in large colonies with a single queen, thousands of workers \
//!                and a few hundred drones, and they store honey in wax combs for the winter.";
//! let mut page = Document::new("p1", "bees", format!("Keeping bees is an old craft.\n\n{article}"));
//! page.origin.url = Some("https://www.example.co.uk/bees".into());
//! page.links = Some(vec![Link::new("https://en.m.wikipedia.org/wiki/Honey_bee")]);
//! let mut other = Document::new("p2", "wasps", "Wasps build paper nests every spring.");
//! other.origin.url = Some("http://shop.example.co.uk/wasps".into());
//! let web = vec![page, other];
//! let wiki = vec![Document::new(1, "Honey bee", format!("{article}\n\nBees visit flowers for nectar."))];
//!
//! let mut study = WebStudy::builder().build();
//! web.iter().for_each(|page| study.examine(page));
//! Reuse::builder().min_passage_len(60).build()?.run(&web, Some(&wiki), &mut study)?;
//! let site = &study.websites()[0];
//! assert_eq!(site.domain, "example.co.uk");
//! assert_eq!((site.pages, site.reusing_pages, site.share()), (2, 1, 0.5));
//! assert_eq!((site.linking_wikipedia, site.linking_article), (1, 1));
//! assert_eq!(study.attribution(0), Some(Attribution::Article));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, BufRead};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Serialize;
use textreuse_corpus::Document;

use crate::{DocumentStore, PairResult, ReuseSink, ReuseStats};

/// The website of a page address: its host's registered domain (the public suffix and one
/// label more: `news.bbc.co.uk` is `bbc.co.uk`, `en.m.wikipedia.org` is `wikipedia.org`),
/// lowercase; an IP address or a host that is itself a public suffix (or has no dot) stands
/// for itself. `None` when `url` is not an absolute address with a host.
///
/// ```
/// use textreuse_reuse::web::website;
///
/// assert_eq!(website("https://News.BBC.co.uk/a?b").as_deref(), Some("bbc.co.uk"));
/// assert_eq!(website("http://192.0.2.7:8080/x").as_deref(), Some("192.0.2.7"));
/// assert_eq!(website("page.html"), None);
/// ```
pub fn website(url: &str) -> Option<String> {
    let url = url::Url::parse(url.trim()).ok()?;
    match url.host()? {
        url::Host::Ipv4(ip) => Some(ip.to_string()),
        url::Host::Ipv6(ip) => Some(format!("[{ip}]")),
        url::Host::Domain(host) => registered_domain(host),
    }
}

/// The registered domain of a host name (see [`website`]).
fn registered_domain(host: &str) -> Option<String> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    Some(match psl::domain_str(&host) {
        Some(domain) => domain.to_string(),
        None => host,
    })
}

/// Whether `host` is Wikipedia's: `wikipedia.org` or any of its subdomains (languages, their
/// mobile sites `xx.m.wikipedia.org`).
fn is_wikipedia_host(host: &str) -> bool {
    let host = host.trim_end_matches('.');
    host.eq_ignore_ascii_case("wikipedia.org")
        || host.len() > 14 && host[host.len() - 14..].eq_ignore_ascii_case(".wikipedia.org")
}

/// Whether `link` points to Wikipedia (any page of `wikipedia.org` or a subdomain).
pub fn links_to_wikipedia(link: &str) -> bool {
    url::Url::parse(link)
        .ok()
        .and_then(|u| u.host_str().map(is_wikipedia_host))
        .unwrap_or(false)
}

/// The article a Wikipedia link points to: its language (the first label of the host, `None`
/// for `wikipedia.org` or `www.`/`m.` alone) and its title as [`article_key`] writes it. Both
/// `/wiki/Title` and `/w/index.php?title=Title` are articles; the title is percent-decoded.
///
/// ```
/// use textreuse_reuse::web::wikipedia_article;
///
/// let (lang, title) = wikipedia_article("https://en.m.wikipedia.org/wiki/Caf%C3%A9_au_lait#History").unwrap();
/// assert_eq!((lang.as_deref(), title.as_str()), (Some("en"), "Café au lait"));
/// assert_eq!(wikipedia_article("https://example.org/wiki/Café"), None);
/// ```
pub fn wikipedia_article(link: &str) -> Option<(Option<String>, String)> {
    let url = url::Url::parse(link).ok()?;
    let host = url.host_str()?;
    if !is_wikipedia_host(host) {
        return None;
    }
    let raw = match url.path().strip_prefix("/wiki/") {
        Some(t) => t.to_string(),
        None if url.path() == "/w/index.php" => url
            .query_pairs()
            .find(|(k, _)| k == "title")
            .map(|(_, v)| v.replace('%', "%25"))?,
        None => return None,
    };
    let title = percent_encoding::percent_decode_str(&raw).decode_utf8_lossy();
    let key = article_key(&title);
    if key.is_empty() {
        return None;
    }
    Some((wiki_language(host), key))
}

/// The language label of a Wikipedia host (`de.m.wikipedia.org` -> `de`).
fn wiki_language(host: &str) -> Option<String> {
    let first = host.split('.').next()?.to_ascii_lowercase();
    (host.matches('.').count() >= 2 && first != "www" && first != "m").then_some(first)
}

/// An article title as the study compares titles: underscores as spaces, surrounding
/// whitespace removed, the first letter upper-cased (MediaWiki's titles are case-insensitive
/// in their first letter only).
///
/// ```
/// use textreuse_reuse::web::article_key;
///
/// assert_eq!(article_key(" hurricane_Katrina "), "Hurricane Katrina");
/// ```
pub fn article_key(title: &str) -> String {
    let spaced = title.replace('_', " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        None => String::new(),
        Some(first) => first.to_uppercase().chain(chars).collect(),
    }
}

/// Whether a reusing page credits Wikipedia, from its links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Attribution {
    /// The page's links are not known (a WET record, plain text): neither yes nor no.
    Unknown,
    /// The page links nowhere on wikipedia.org.
    None,
    /// The page links to wikipedia.org, but to none of the articles it reuses.
    Wikipedia,
    /// The page links to an article it reuses (which is a link to wikipedia.org as well).
    Article,
}

/// One website's row of `websites.tsv`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Website {
    /// The registered domain ([`website`]).
    pub domain: String,
    /// Pages of it examined (every page of the corpus side with this website).
    pub pages: u64,
    /// Pages with at least one passage reused from the other side.
    pub reusing_pages: u64,
    /// Characters of the reusing pages inside passages (overlaps counted once).
    pub reused_chars: u64,
    /// Words of the reusing pages that start inside passages.
    pub reused_words: u64,
    /// Reusing pages that link to wikipedia.org (the article itself included).
    pub linking_wikipedia: u64,
    /// Reusing pages that link to an article they reuse.
    pub linking_article: u64,
    /// Reusing pages whose links are not known ([`Attribution::Unknown`]).
    pub attribution_unknown: u64,
}

impl Website {
    /// The share of its examined pages that reuse (0 for none examined).
    pub fn share(&self) -> f64 {
        if self.pages == 0 {
            0.0
        } else {
            self.reusing_pages as f64 / self.pages as f64
        }
    }
}

/// The header of `websites.tsv` ([`write_websites`]).
pub const WEBSITES_HEADER: &str = "website\tpages\treusing_pages\treusing_share\treused_chars\t\
                                   reused_words\tlinking_wikipedia\tlinking_article\t\
                                   attribution_unknown";

/// Writes `websites.tsv`: [`WEBSITES_HEADER`], then one row per website in the order given
/// (the share with four decimals).
pub fn write_websites(w: &mut dyn io::Write, websites: &[Website]) -> io::Result<()> {
    writeln!(w, "{WEBSITES_HEADER}")?;
    for s in websites {
        writeln!(
            w,
            "{}\t{}\t{}\t{:.4}\t{}\t{}\t{}\t{}\t{}",
            s.domain.replace(['\t', '\n', '\r'], " "),
            s.pages,
            s.reusing_pages,
            s.share(),
            s.reused_chars,
            s.reused_words,
            s.linking_wikipedia,
            s.linking_article,
            s.attribution_unknown
        )?;
    }
    Ok(())
}

/// How many websites have a number of pages in `min..=max` (one bar of a distribution).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// The fewest pages of the bucket.
    pub min: u64,
    /// The most pages of the bucket.
    pub max: u64,
    /// Websites with that many pages.
    pub websites: u64,
}

/// The buckets of a distribution of counts (each at least 1): `1`, `2`, `3-5`, `6-10`,
/// `11-20`, `21-50`, ... (a 1-2-5 series), from the first up to the last non-empty one, so a
/// distribution has at most about 60 buckets whatever the counts.
pub fn buckets(counts: impl IntoIterator<Item = u64>) -> Vec<Bucket> {
    let mut edges = vec![1u64];
    let mut out: Vec<Bucket> = Vec::new();
    let bucket_of = |edges: &mut Vec<u64>, n: u64| {
        while *edges.last().expect("never empty") < n {
            let last = *edges.last().expect("never empty");
            let next = match last.to_string().as_bytes()[0] {
                b'1' => last.saturating_mul(2),
                b'2' => last / 2 * 5,
                _ => last.saturating_mul(2),
            };
            if next == last {
                break;
            }
            edges.push(next);
        }
        edges.partition_point(|&e| e < n)
    };
    let mut counts_by_bucket: BTreeMap<usize, u64> = BTreeMap::new();
    for n in counts {
        if n == 0 {
            continue;
        }
        *counts_by_bucket
            .entry(bucket_of(&mut edges, n))
            .or_default() += 1;
    }
    let last = counts_by_bucket.keys().next_back().copied();
    if let Some(last) = last {
        for i in 0..=last {
            out.push(Bucket {
                min: if i == 0 { 1 } else { edges[i - 1] + 1 },
                max: edges[i],
                websites: counts_by_bucket.get(&i).copied().unwrap_or(0),
            });
        }
    }
    out
}

/// The totals of a web study (`websites.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct WebSummary {
    /// Pages examined with a website (a URL with a host).
    pub pages: u64,
    /// Pages examined without one (no URL, or one without a host): in no website.
    pub pages_without_url: u64,
    /// Websites examined.
    pub websites: u64,
    /// Pages reusing the other side.
    pub reusing_pages: u64,
    /// Websites with at least one reusing page.
    pub reusing_websites: u64,
    /// Websites with at least half of their pages reusing (the thesis's "above 50%").
    pub websites_half_reusing: u64,
    /// Characters of reusing pages inside passages.
    pub reused_chars: u64,
    /// Words of reusing pages starting inside passages.
    pub reused_words: u64,
    /// Reusing pages linking to wikipedia.org.
    pub linking_wikipedia: u64,
    /// Reusing pages linking to an article they reuse.
    pub linking_article: u64,
    /// Reusing pages whose links are not known (WET records, plain text).
    pub attribution_unknown: u64,
    /// Distinct articles reused by at least one page.
    pub reused_articles: u64,
    /// Websites by their number of pages examined.
    pub pages_per_website: Vec<Bucket>,
    /// Websites with reuse by their number of reusing pages.
    pub reusing_pages_per_website: Vec<Bucket>,
}

/// What went wrong reading an input of the revenue model (a website values or a page views
/// file): the file, and the line with what is wrong in it. Recover by fixing that line (or
/// the path); nothing is skipped silently.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebInputError {
    /// The file cannot be opened or read.
    #[error("cannot read {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: io::Error,
    },
    /// A line is not what the format says.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The 1-based line number.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
}

/// The lines of a possibly compressed file (gzip, zstd, bzip2, by content), numbered from 1.
fn lines_of(
    path: &Path,
) -> Result<impl Iterator<Item = Result<(u64, String), WebInputError>>, WebInputError> {
    let opened = textreuse_corpus::input::open_file(path).map_err(|e| WebInputError::Io {
        path: path.to_path_buf(),
        source: io::Error::other(textreuse_corpus::error_chain(&e)),
    })?;
    let path = path.to_path_buf();
    Ok(opened
        .reader
        .split(b'\n')
        .enumerate()
        .map(move |(i, line)| {
            let line_no = i as u64 + 1;
            let bytes = line.map_err(|source| WebInputError::Io {
                path: path.clone(),
                source,
            })?;
            let mut text = String::from_utf8(bytes).map_err(|_| WebInputError::Line {
                path: path.clone(),
                line: line_no,
                message: "not UTF-8".into(),
            })?;
            if text.ends_with('\r') {
                text.pop();
            }
            if line_no == 1 && text.starts_with('\u{feff}') {
                text.remove(0);
            }
            Ok((line_no, text))
        }))
}

/// One CSV line's fields (RFC 4180: fields in double quotes may hold commas and doubled
/// quotes), or what is wrong with it.
fn csv_fields(line: &str) -> Result<Vec<String>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line.as_bytes());
    let mut record = csv::StringRecord::new();
    match reader.read_record(&mut record) {
        Ok(true) => Ok(record.iter().map(|f| f.trim().to_string()).collect()),
        Ok(false) => Ok(Vec::new()),
        Err(e) => Err(format!("not a CSV line: {e}")),
    }
}

/// The value in US dollars of each website (`--site-values`): a CSV file of `domain,value`
/// lines, e.g. from a website valuation service. A first line whose value is not a number is
/// a header; blank lines are skipped. A domain may be given as a host or a URL and is
/// reduced to its registered domain ([`website`]); a website listed twice, a value that is
/// not a finite number of at least 0, or a line without exactly two fields is an error
/// naming the file and line.
///
/// ```
/// use textreuse_reuse::web::SiteValues;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("values.csv");
/// std::fs::write(&path, "domain,value\nwww.example.co.uk,1200.5\n\"mirror.example.org\",300\n")?;
/// let values = SiteValues::read(&path)?;
/// assert_eq!(values.get("example.co.uk"), Some(1200.5));
/// std::fs::write(&path, "example.org,300\nexample.com,lots\n")?;
/// let e = SiteValues::read(&path).unwrap_err().to_string();
/// assert!(e.ends_with("values.csv:2: the value \"lots\" is not a number"), "{e}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SiteValues {
    values: BTreeMap<String, (f64, u64)>,
    path: PathBuf,
}

impl SiteValues {
    /// Reads a website values file.
    pub fn read(path: &Path) -> Result<SiteValues, WebInputError> {
        let mut values = BTreeMap::new();
        let error = |line, message: String| WebInputError::Line {
            path: path.to_path_buf(),
            line,
            message,
        };
        for line in lines_of(path)? {
            let (n, line) = line?;
            if line.trim().is_empty() {
                continue;
            }
            let fields = csv_fields(&line).map_err(|m| error(n, m))?;
            if fields.len() != 2 {
                return Err(error(
                    n,
                    format!(
                        "{} fields, not 2 (domain,value in US dollars)",
                        fields.len()
                    ),
                ));
            }
            let value = match fields[1].parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => v,
                Ok(_) => {
                    return Err(error(
                        n,
                        format!(
                            "the value {:?} is not a finite amount of at least 0",
                            fields[1]
                        ),
                    ));
                }
                Err(_) if n == 1 => continue, // a header
                Err(_) => {
                    return Err(error(
                        n,
                        format!("the value {:?} is not a number", fields[1]),
                    ));
                }
            };
            let given = &fields[0];
            let domain = if given.contains("://") {
                website(given)
            } else {
                registered_domain(given)
            }
            .ok_or_else(|| error(n, format!("{given:?} is not a domain")))?;
            if let Some((_, first)) = values.get(&domain) {
                return Err(error(
                    n,
                    format!("the website {domain} is listed twice (lines {first} and {n})"),
                ));
            }
            values.insert(domain, (value, n));
        }
        Ok(SiteValues {
            values,
            path: path.to_path_buf(),
        })
    }

    /// A website's value, by its registered domain.
    pub fn get(&self, domain: &str) -> Option<f64> {
        self.values.get(domain).map(|&(v, _)| v)
    }

    /// The number of websites listed.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether none is listed.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Monthly page views of Wikipedia articles (`--pageviews`), from one or more files, each in
/// either format (recognized by its first non-blank line):
///
/// * CSV `title,views` (a header line allowed first; titles with commas in double quotes);
/// * the lines of Wikimedia's pageview dumps (`pageviews-*`, `pagecounts-*`, gzip-compressed
///   or not): four fields separated by spaces, `domain_code page_title count_views
///   total_response_size`, e.g. `en Hurricane_Katrina 1234 0`. Only the lines of the chosen
///   Wikipedia ([`PageViews::new`]'s language) count: its desktop code (`en`), mobile (`en.m`),
///   zero (`en.zero`) and the long forms `en.wikipedia` and `en.m.wikipedia`; lines of other
///   wikis and projects (`de`, `en.b`, `en.d`, ...) are skipped and counted.
///
/// Views of the same title are added up (over lines, codes and files): give a month's worth.
/// Titles are compared as [`article_key`] writes them (dump titles percent-decoded first).
/// The files are read twice, streaming: [`PageViews::check`] before a run (so a bad line
/// stops it early), and [`PageViews::views_of`] at its end, keeping only the reused articles,
/// so a month of dumps (tens of millions of titles) needs no memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageViews {
    paths: Vec<PathBuf>,
    language: String,
}

/// What [`PageViews::check`] and [`PageViews::views_of`] counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PageViewLines {
    /// Lines counted (of the chosen Wikipedia).
    pub lines: u64,
    /// Dump lines of other wikis or projects, skipped.
    pub other_wikis: u64,
}

impl PageViews {
    /// Page views from `paths`, counting dump lines of the Wikipedia in `language` (its code:
    /// `en`, `de`, ...).
    pub fn new(paths: Vec<PathBuf>, language: impl Into<String>) -> PageViews {
        PageViews {
            paths,
            language: language.into(),
        }
    }

    /// Reads every file through, checking each line: the first bad line is an error naming its
    /// file and line.
    pub fn check(&self) -> Result<PageViewLines, WebInputError> {
        let mut counts = PageViewLines::default();
        self.each(&mut counts, |_, _| {})?;
        Ok(counts)
    }

    /// The views of the titles in `wanted` ([`article_key`]s), by title (titles without views
    /// left out).
    pub fn views_of(
        &self,
        wanted: &BTreeSet<String>,
    ) -> Result<(BTreeMap<String, u64>, PageViewLines), WebInputError> {
        let mut views = BTreeMap::new();
        let mut counts = PageViewLines::default();
        self.each(&mut counts, |title, n| {
            if wanted.contains(&title) {
                let v: &mut u64 = views.entry(title).or_default();
                *v = v.saturating_add(n);
            }
        })?;
        Ok((views, counts))
    }

    fn each(
        &self,
        counts: &mut PageViewLines,
        mut f: impl FnMut(String, u64),
    ) -> Result<(), WebInputError> {
        for path in &self.paths {
            let error = |line, message: String| WebInputError::Line {
                path: path.clone(),
                line,
                message,
            };
            let mut dump = None;
            let mut first = true;
            for line in lines_of(path)? {
                let (n, line) = line?;
                if line.trim().is_empty() {
                    continue;
                }
                let is_dump = *dump.get_or_insert_with(|| is_dump_line(&line));
                let header = std::mem::take(&mut first);
                if is_dump {
                    let fields: Vec<&str> = line.split(' ').collect();
                    if fields.len() != 4 {
                        return Err(error(
                            n,
                            format!(
                                "{} space-separated fields, not 4 (a pageview dump line is \
                                 `domain_code page_title count_views total_response_size`)",
                                fields.len()
                            ),
                        ));
                    }
                    let views: u64 = fields[2].parse().map_err(|_| {
                        error(
                            n,
                            format!("the view count {:?} is not a whole number", fields[2]),
                        )
                    })?;
                    if !self.is_this_wiki(fields[0]) {
                        counts.other_wikis += 1;
                        continue;
                    }
                    let title = percent_encoding::percent_decode_str(fields[1]).decode_utf8_lossy();
                    counts.lines += 1;
                    f(article_key(&title), views);
                } else {
                    let fields = csv_fields(&line).map_err(|m| error(n, m))?;
                    if fields.len() != 2 {
                        return Err(error(
                            n,
                            format!(
                                "{} fields, not 2 (title,views; a title with a comma goes in \
                                 double quotes)",
                                fields.len()
                            ),
                        ));
                    }
                    let views: u64 = match fields[1].parse() {
                        Ok(v) => v,
                        Err(_) if header => continue,
                        Err(_) => {
                            return Err(error(
                                n,
                                format!("the view count {:?} is not a whole number", fields[1]),
                            ));
                        }
                    };
                    let title = article_key(&fields[0]);
                    if title.is_empty() {
                        return Err(error(n, "the title is empty".into()));
                    }
                    counts.lines += 1;
                    f(title, views);
                }
            }
        }
        Ok(())
    }

    /// Whether a dump's domain code is the chosen Wikipedia's.
    fn is_this_wiki(&self, code: &str) -> bool {
        let Some(rest) = code.strip_prefix(self.language.as_str()) else {
            return false;
        };
        matches!(rest, "" | ".m" | ".zero" | ".wikipedia" | ".m.wikipedia")
    }
}

/// Whether a line is a pageview dump line: four space-separated fields, the last two whole
/// numbers (a CSV line has a comma-separated number last).
fn is_dump_line(line: &str) -> bool {
    let fields: Vec<&str> = line.split(' ').collect();
    fields.len() == 4
        && fields[2].parse::<u64>().is_ok()
        && fields[3].parse::<u64>().is_ok()
        && !fields[0].contains(',')
}

/// The inputs of the revenue model: any of website values and page views, and a CPM.
#[derive(Clone, Debug, Default)]
pub struct RevenueInputs {
    /// Website values: estimates (a) and (b).
    pub site_values: Option<SiteValues>,
    /// Page views of the reused articles: estimate (c).
    pub page_views: Option<PageViews>,
    /// US dollars per thousand ad impressions: estimate (c) needs it.
    pub cpm: Option<f64>,
}

impl RevenueInputs {
    /// Whether any input is given (then `revenue.json` is written).
    pub fn any(&self) -> bool {
        self.site_values.is_some() || self.page_views.is_some()
    }
}

/// The revenue estimates of the thesis's model (eq. 4.2), those whose inputs were given
/// (`revenue.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Revenue {
    /// (a) Website values weighted by their share of reusing pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_value: Option<SiteValueEstimate>,
    /// (b) The same over the websites with at least half of their pages reusing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower_bound: Option<SiteValueEstimate>,
    /// (c) Page views of the reused articles priced at a CPM.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_views: Option<PageViewEstimate>,
}

/// Estimate (a) or (b).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SiteValueEstimate {
    /// The estimate in US dollars.
    pub usd: f64,
    /// Websites summed (with a value, at least one reusing page, and for (b) at least half).
    pub websites: u64,
    /// Websites that qualified but have no value in the file (left out of the sum).
    pub websites_without_value: u64,
    /// The values file.
    pub values_file: String,
    /// What the figure assumes.
    pub assumptions: String,
}

/// Estimate (c).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PageViewEstimate {
    /// The estimate in US dollars a month; `None` without a CPM.
    pub usd: Option<f64>,
    /// The CPM used (US dollars per thousand views).
    pub cpm_usd: Option<f64>,
    /// Monthly views of the reused articles, added up.
    pub monthly_views: u64,
    /// Distinct articles reused.
    pub reused_articles: u64,
    /// Reused articles with views in the files.
    pub articles_with_views: u64,
    /// Lines counted in the page view files.
    pub lines: PageViewLines,
    /// What the figure assumes.
    pub assumptions: String,
}

/// What estimates (a) and (b) assume, as `revenue.json` states it.
pub const SITE_VALUE_ASSUMPTIONS: &str = "A website's value (as given in the values file, in US \
    dollars) comes from its pages evenly, so the part due to Wikipedia's content is its value \
    times the share of its examined pages that reuse Wikipedia; websites without a value in the \
    file count 0; the crawl's pages of a website stand for all of them.";

/// What estimate (b) adds.
pub const LOWER_BOUND_ASSUMPTIONS: &str = "As the estimate over all websites, summed only over \
    websites with at least half of their examined pages reusing Wikipedia: the websites whose \
    value rests on Wikipedia's content beyond doubt.";

/// What estimate (c) assumes.
pub const PAGE_VIEW_ASSUMPTIONS: &str = "The reusing pages together draw as many views a month \
    as the articles they reuse do on Wikipedia (the monthly views given, added up over the \
    distinct reused articles), and every view shows ads paid at the CPM (US dollars per \
    thousand views): monthly views / 1000 x CPM. Articles without views in the files count 0.";

/// The state of one reusing page.
#[derive(Debug)]
struct Page {
    site: String,
    /// Byte ranges of its text inside passages, disjoint and sorted.
    ranges: Vec<Range<usize>>,
    chars: u64,
    words: u64,
    attribution: Attribution,
}

/// Builds a [`WebStudy`].
#[derive(Clone, Debug, Default)]
pub struct WebStudyBuilder {
    out_dir: Option<PathBuf>,
    revenue: RevenueInputs,
}

impl WebStudyBuilder {
    /// Write `websites.tsv`, `websites.json` (and `revenue.json`) into `dir` when the run ends
    /// (default: nothing is written; read the results from the study).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The revenue model's inputs (default none: no estimate).
    pub fn revenue(&mut self, inputs: RevenueInputs) -> &mut Self {
        self.revenue = inputs;
        self
    }

    /// The study, with nothing examined yet.
    pub fn build(&self) -> WebStudy {
        WebStudy {
            out_dir: self.out_dir.clone(),
            revenue_inputs: self.revenue.clone(),
            sites: BTreeMap::new(),
            pages_without_url: 0,
            pages: BTreeMap::new(),
            articles: BTreeSet::new(),
            revenue: None,
        }
    }
}

/// The web study, a [`ReuseSink`] (see the [module docs](self)).
///
/// Memory: one entry per website examined (its domain and counts, about 100 bytes) and one
/// per reusing page (its passages' ranges, merged); the links of a page are looked at as its
/// pairs arrive, never kept.
#[derive(Debug)]
pub struct WebStudy {
    out_dir: Option<PathBuf>,
    revenue_inputs: RevenueInputs,
    sites: BTreeMap<String, Website>,
    pages_without_url: u64,
    pages: BTreeMap<usize, Page>,
    /// Reused articles' titles ([`article_key`]).
    articles: BTreeSet<String>,
    revenue: Option<Revenue>,
}

impl WebStudy {
    /// The files it writes into its output directory.
    pub const FILES: &'static [&'static str] = &["websites.tsv", "websites.json", "revenue.json"];

    /// The options.
    pub fn builder() -> WebStudyBuilder {
        WebStudyBuilder::default()
    }

    /// Counts a page of the corpus side as examined: call it for every one, before the run.
    pub fn examine(&mut self, page: &Document) {
        match page.origin.url.as_deref().and_then(website) {
            Some(domain) => {
                let site = self.sites.entry(domain.clone()).or_insert_with(|| Website {
                    domain,
                    ..Website::default()
                });
                site.pages += 1;
            }
            None => self.pages_without_url += 1,
        }
    }

    /// [`WebStudy::examine`] for every document of a store (the corpus side of
    /// [`Reuse::run_stored`](crate::Reuse::run_stored)).
    pub fn examine_store(&mut self, pages: &DocumentStore) {
        for i in 0..pages.len() {
            self.examine(&pages.info(i));
        }
    }

    /// Pages examined with a website.
    pub fn pages_with_url(&self) -> u64 {
        self.sites.values().map(|s| s.pages).sum()
    }

    /// The websites, most reusing pages first, then by domain.
    pub fn websites(&self) -> Vec<Website> {
        let mut sites: Vec<Website> = self.sites.values().cloned().collect();
        for page in self.pages.values() {
            let Some(site) = sites
                .binary_search_by(|s| s.domain.as_str().cmp(&page.site))
                .ok()
                .map(|i| &mut sites[i])
            else {
                continue;
            };
            site.reusing_pages += 1;
            site.reused_chars += page.chars;
            site.reused_words += page.words;
            match page.attribution {
                Attribution::Unknown => site.attribution_unknown += 1,
                Attribution::None => {}
                Attribution::Wikipedia => site.linking_wikipedia += 1,
                Attribution::Article => {
                    site.linking_wikipedia += 1;
                    site.linking_article += 1;
                }
            }
        }
        sites.sort_by(|a, b| {
            b.reusing_pages
                .cmp(&a.reusing_pages)
                .then_with(|| a.domain.cmp(&b.domain))
        });
        sites
    }

    /// The attribution of reusing page number `n` (`None` for a page without reuse).
    pub fn attribution(&self, n: usize) -> Option<Attribution> {
        self.pages.get(&n).map(|p| p.attribution)
    }

    /// The totals (`websites.json`).
    pub fn summary(&self) -> WebSummary {
        let sites = self.websites();
        let mut s = WebSummary {
            pages: sites.iter().map(|w| w.pages).sum(),
            pages_without_url: self.pages_without_url,
            websites: sites.len() as u64,
            reused_articles: self.articles.len() as u64,
            pages_per_website: buckets(sites.iter().map(|w| w.pages)),
            reusing_pages_per_website: buckets(sites.iter().map(|w| w.reusing_pages)),
            ..WebSummary::default()
        };
        for w in &sites {
            s.reusing_pages += w.reusing_pages;
            s.reusing_websites += (w.reusing_pages > 0) as u64;
            s.websites_half_reusing += (w.reusing_pages > 0 && w.share() >= 0.5) as u64;
            s.reused_chars += w.reused_chars;
            s.reused_words += w.reused_words;
            s.linking_wikipedia += w.linking_wikipedia;
            s.linking_article += w.linking_article;
            s.attribution_unknown += w.attribution_unknown;
        }
        s
    }

    /// The revenue estimates whose inputs were given (reads the page view files again).
    pub fn estimate_revenue(&self) -> Result<Revenue, WebInputError> {
        revenue(&self.websites(), &self.articles, &self.revenue_inputs)
    }

    /// The estimates computed when the run finished ([`ReuseSink::finish`]).
    pub fn revenue(&self) -> Option<&Revenue> {
        self.revenue.as_ref()
    }

    fn add_pair(&mut self, pair: &PairResult<'_>) {
        // Cases marked spurious are no evidence of reuse: a page with only those reuses nothing.
        let reused: Vec<&crate::ReuseCase> = pair
            .cases
            .iter()
            .filter(|c| c.kind() != crate::ReuseKind::Spurious)
            .collect();
        if reused.is_empty() {
            return;
        }
        let (n, doc) = pair.suspicious;
        let Some(site) = doc.origin.url.as_deref().and_then(website) else {
            return;
        };
        let source = pair.source.1;
        let title = article_key(&source.title);
        let page = self.pages.entry(n).or_insert_with(|| Page {
            site,
            ranges: Vec::new(),
            chars: 0,
            words: 0,
            attribution: match &doc.links {
                None => Attribution::Unknown,
                Some(links) if links.iter().any(|l| links_to_wikipedia(&l.target)) => {
                    Attribution::Wikipedia
                }
                Some(_) => Attribution::None,
            },
        });
        if page.attribution == Attribution::Wikipedia
            && let Some(links) = &doc.links
        {
            let language = source
                .origin
                .url
                .as_deref()
                .and_then(|u| url::Url::parse(u).ok())
                .and_then(|u| {
                    u.host_str()
                        .filter(|h| is_wikipedia_host(h))
                        .and_then(wiki_language)
                });
            let links_article = links.iter().any(|l| {
                wikipedia_article(&l.target).is_some_and(|(lang, t)| {
                    t == title
                        && match (&language, lang) {
                            (Some(a), Some(b)) => *a == b,
                            _ => true,
                        }
                })
            });
            if links_article {
                page.attribution = Attribution::Article;
            }
        }
        let text = pair.texts.0;
        for case in reused {
            let (chars, words) = add_range(&mut page.ranges, case.suspicious_bytes.clone(), text);
            page.chars += chars;
            page.words += words;
        }
        self.articles.insert(title);
    }

    fn write(&self, dir: &Path) -> io::Result<()> {
        let websites = self.websites();
        let mut tsv = Vec::new();
        write_websites(&mut tsv, &websites)?;
        textreuse_corpus::files::write_atomic(&dir.join("websites.tsv"), &tsv)?;
        let mut json = serde_json::to_vec_pretty(&self.summary())?;
        json.push(b'\n');
        textreuse_corpus::files::write_atomic(&dir.join("websites.json"), &json)?;
        if let Some(revenue) = &self.revenue {
            let mut json = serde_json::to_vec_pretty(revenue)?;
            json.push(b'\n');
            textreuse_corpus::files::write_atomic(&dir.join("revenue.json"), &json)?;
        }
        Ok(())
    }
}

/// Adds byte range `r` of `text` to the disjoint sorted `ranges`: returns the characters and
/// the word starts (a non-whitespace character after whitespace or at the start) in the part
/// of `r` not covered before.
fn add_range(ranges: &mut Vec<Range<usize>>, r: Range<usize>, text: &str) -> (u64, u64) {
    let r = r.start.min(text.len())..r.end.min(text.len());
    if r.is_empty() {
        return (0, 0);
    }
    let (mut chars, mut words) = (0, 0);
    let mut at = r.start;
    let mut count = |gap: Range<usize>| {
        let Some(part) = text.get(gap.clone()) else {
            return;
        };
        let mut prev_space = text[..gap.start]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        for c in part.chars() {
            chars += 1;
            let space = c.is_whitespace();
            if !space && prev_space {
                words += 1;
            }
            prev_space = space;
        }
    };
    for old in ranges.iter().filter(|o| o.end > r.start && o.start < r.end) {
        if old.start > at {
            count(at..old.start);
        }
        at = at.max(old.end);
    }
    if at < r.end {
        count(at..r.end);
    }
    ranges.push(r);
    ranges.sort_by_key(|x| x.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for x in ranges.drain(..) {
        match merged.last_mut() {
            Some(last) if x.start <= last.end => last.end = last.end.max(x.end),
            _ => merged.push(x),
        }
    }
    *ranges = merged;
    (chars, words)
}

/// The estimates of `inputs` over `websites` and the reused `articles`.
fn revenue(
    websites: &[Website],
    articles: &BTreeSet<String>,
    inputs: &RevenueInputs,
) -> Result<Revenue, WebInputError> {
    let mut out = Revenue::default();
    if let Some(values) = &inputs.site_values {
        let estimate = |min_share: f64, assumptions: String| {
            let mut e = SiteValueEstimate {
                values_file: values.path.display().to_string(),
                assumptions,
                ..SiteValueEstimate::default()
            };
            // Summed in the websites' order (fixed), so the figure is the same on every run.
            for w in websites
                .iter()
                .filter(|w| w.reusing_pages > 0 && w.share() >= min_share)
            {
                match values.get(&w.domain) {
                    Some(v) => {
                        e.usd += v * w.share();
                        e.websites += 1;
                    }
                    None => e.websites_without_value += 1,
                }
            }
            e
        };
        out.site_value = Some(estimate(0.0, SITE_VALUE_ASSUMPTIONS.to_string()));
        out.lower_bound = Some(estimate(
            0.5,
            format!("{SITE_VALUE_ASSUMPTIONS} {LOWER_BOUND_ASSUMPTIONS}"),
        ));
    }
    if let Some(views) = &inputs.page_views {
        let (found, lines) = views.views_of(articles)?;
        let monthly: u64 = found.values().fold(0u64, |a, &v| a.saturating_add(v));
        out.page_views = Some(PageViewEstimate {
            usd: inputs.cpm.map(|cpm| monthly as f64 / 1000.0 * cpm),
            cpm_usd: inputs.cpm,
            monthly_views: monthly,
            reused_articles: articles.len() as u64,
            articles_with_views: found.len() as u64,
            lines,
            assumptions: if inputs.cpm.is_some() {
                PAGE_VIEW_ASSUMPTIONS.to_string()
            } else {
                format!("{PAGE_VIEW_ASSUMPTIONS} No CPM was given: no estimate, only the views.")
            },
        });
    }
    Ok(out)
}

impl ReuseSink for WebStudy {
    fn pair(&mut self, pair: &PairResult<'_>) -> io::Result<()> {
        self.add_pair(pair);
        Ok(())
    }

    fn finish(&mut self, _stats: &ReuseStats) -> io::Result<()> {
        if self.revenue_inputs.any() {
            self.revenue = Some(self.estimate_revenue().map_err(io::Error::other)?);
        }
        match &self.out_dir {
            Some(dir) if self.pages_with_url() > 0 => self.write(dir),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
