//! Reports people would rather look at than read: self-contained HTML pages with SVG plots for
//! the results of `textreuse`.
//!
//! * [`DedupReport`] makes `report.html` from a dedup run's output directory (`stats.json`,
//!   `clusters.jsonl`, `article-pairs.tsv`): counts per stage, the cluster-size histogram on
//!   log-log axes, counts per type with an example of each, the S-curve of the run's
//!   parameters with its threshold, the top article pairs, the largest clusters, and a sample
//!   of clusters per type with the words that differ between members marked and each member
//!   linked to its source. Its size is bounded whatever the run's size.
//! * [`ReuseReport`] makes `report.html` from a reuse run's output directory (`stats.json`,
//!   `corpus.json`, `documents.tsv`): the corpus view of `textreuse_reuse::CorpusView`, with
//!   counts per stage, class shares, the reused-length and word n-gram similarity histograms
//!   (the thesis's 0.1 split marked), the article graph's degree and component-size
//!   distributions on log-log axes, its largest components and articles of highest degree,
//!   the top pairs and the most reused documents. [`Run::of_dir`] tells the two kinds of
//!   output directory apart. Its size is bounded too.
//! * [`CheckReport`] shows a plagiarism check: per suspicious document, the share of its text
//!   reused, each source with score and type, and the aligned passages side by side with their
//!   shared words marked.
//! * [`WebSection`] renders the web study of a reuse run (`websites.tsv`, `websites.json`,
//!   `revenue.json`) as an HTML fragment for a reuse report: the top websites, the
//!   pages-per-website distribution, the attribution shares and the revenue estimates.
//! * [`SCurvePlot`] draws a signer's S-curves (exact, independent-bands approximation, and for
//!   OPH the curve of small sets) as SVG.
//! * [`StudyPlot`] draws the tuning study's false-positive rate and time against the shingle
//!   length, one line per `K` ([`textreuse_dedup::study`]); [`EditBoundPlot`] the seed
//!   research's Figure 1, the Jaccard similarity of shingle sets against edit distance, from
//!   its exact bounds.
//!
//! Pages load nothing: no scripts, fonts or images from anywhere (a Content-Security-Policy
//! says so to the browser), the plots are inline SVG drawn by `plotters`, and the style sheet
//! is inline.
//!
//! ```
//! use textreuse_minhash::SignerBuilder;
//! use textreuse_report::SCurvePlot;
//!
//! let oph = SignerBuilder::oph().build()?;
//! let svg = SCurvePlot::new(&oph).threshold(0.9).min_set(75).svg()?;
//! std::fs::write(std::env::temp_dir().join("s-curve.svg"), svg)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
// The crate README's snippet runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

mod check;
mod dedup;
pub mod diff;
mod error;
mod html;
mod plot;
mod reuse;
mod web;

use std::path::Path;

pub use check::{CheckDocument, CheckPassage, CheckReport};
pub use dedup::{
    DEFAULT_LARGEST, DEFAULT_MAX_MEMBERS, DEFAULT_REVISION_URL, DEFAULT_SAMPLES, DEFAULT_TOP_PAIRS,
    DedupReport, ReportSummary,
};
pub use error::{ReportError, Run};
pub use html::escape;
pub use plot::{
    EditBoundPlot, SCurvePlot, StudyPlot, cluster_sizes_svg, coverage_svg, type_counts_svg,
};
pub use reuse::{
    DEFAULT_COMPONENTS, DEFAULT_REUSE_TOP_PAIRS, DEFAULT_TOP_ARTICLES, DEFAULT_TOP_DOCUMENTS,
    ReuseReport, ReuseReportSummary,
};
pub use web::{DEFAULT_TOP_WEBSITES, WebSection};

/// Writes `bytes` to `path` atomically ([`textreuse_corpus::files::write_atomic`]), so a reader
/// never sees half a report.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    // Writing: a missing directory is an I/O error, not a missing run output.
    textreuse_corpus::files::write_atomic(path, bytes).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
}
