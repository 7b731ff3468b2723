//! `textreuse.report`: the HTML report of a dedup or reuse output directory
//! (`textreuse_report`), for the outputs of the Spark backend or of the command line.
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use textreuse_report::{
    DEFAULT_LARGEST, DEFAULT_MAX_MEMBERS, DEFAULT_REVISION_URL, DEFAULT_SAMPLES, DEFAULT_TOP_PAIRS,
    DedupReport, ReportError, ReuseReport, Run,
};

/// report(out_dir, samples=5, top_pairs=25, largest=3, max_members=8,
///        revision_url="https://en.wikipedia.org/w/index.php?oldid={revision}") -> dict
///
/// Writes `out_dir/report.html` exactly as `textreuse report OUT_DIR` does. For a dedup run's
/// outputs (stats.json, clusters.jsonl, article-pairs.tsv): counts per stage, the cluster-size
/// histogram, clusters per type with examples, the run's S-curve, the top article pairs, and
/// `samples` clusters per type with the words that differ between members marked
/// (`revision_url=None` leaves members unlinked); returns {"path", "bytes", "clusters", "shown",
/// "seconds"}. For a reuse run's outputs (corpus.json or reuse.jsonl there): the corpus view,
/// `top_pairs` of its pairs and the web study when there is one (the other arguments are not
/// used); returns {"path", "bytes", "articles", "pairs", "cases", "seconds"}. Raises
/// FileNotFoundError when an output is missing, ValueError when one is not in the run's format,
/// OSError when reading or writing fails.
#[pyfunction]
#[pyo3(signature = (out_dir, samples=DEFAULT_SAMPLES, top_pairs=DEFAULT_TOP_PAIRS,
    largest=DEFAULT_LARGEST, max_members=DEFAULT_MAX_MEMBERS,
    revision_url=Some(DEFAULT_REVISION_URL.to_string())))]
pub(crate) fn report<'py>(
    py: Python<'py>,
    out_dir: std::path::PathBuf,
    samples: usize,
    top_pairs: usize,
    largest: usize,
    max_members: usize,
    revision_url: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let error = |e: ReportError| match e {
        ReportError::Missing { .. } => PyFileNotFoundError::new_err(e.to_string()),
        ReportError::Format { .. } | ReportError::Plot { .. } => {
            PyValueError::new_err(e.to_string())
        }
        _ => PyOSError::new_err(e.to_string()),
    };
    let d = PyDict::new(py);
    if Run::of_dir(&out_dir) == Run::Reuse {
        let mut report = ReuseReport::new();
        report.top_pairs(top_pairs);
        let done = py.detach(|| report.write(&out_dir)).map_err(error)?;
        d.set_item("path", done.path.display().to_string())?;
        d.set_item("bytes", done.bytes)?;
        d.set_item("articles", done.articles)?;
        d.set_item("pairs", done.pairs)?;
        d.set_item("cases", done.cases)?;
        d.set_item("seconds", done.seconds)?;
        return Ok(d);
    }
    let mut report = DedupReport::new();
    report
        .samples(samples)
        .top_pairs(top_pairs)
        .largest(largest)
        .max_members(max_members)
        .revision_url(revision_url.as_deref());
    let done = py.detach(|| report.write(&out_dir)).map_err(error)?;
    d.set_item("path", done.path.display().to_string())?;
    d.set_item("bytes", done.bytes)?;
    d.set_item("clusters", done.clusters)?;
    d.set_item("shown", done.shown)?;
    d.set_item("seconds", done.seconds)?;
    Ok(d)
}
