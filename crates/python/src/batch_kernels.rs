//! The Arrow batch kernels behind `textreuse.kernels` (the Spark backend's `mapInArrow` steps).
//!
//! Each takes its input arrays as buffer tuples (see [`crate::arrow::HeldArray`]), releases the
//! GIL, runs one loop over the rows calling the same functions `textreuse dedup` calls, and
//! returns the output buffers as `bytes`; `kernels.py` wraps them into pyarrow arrays without a
//! copy. Results depend only on the rows given, never on how a dataset was partitioned.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::sync::Arc;

use textreuse_corpus::{DocId, Origin};
use textreuse_dedup::{Cluster, Keep, Member, within_edit_distance};
use textreuse_minhash::TextSigner;
use textreuse_shingle::char_shingle_count;
use textreuse_unionfind::Clustering;

use crate::arrow::{Bitmap, ColumnError, HeldArray, I64Column, PushNe, StrColumn, StringBuilder};
use crate::signer::{PySigner, shingle_len};

/// Row numbers are `uint32`.
fn check_rows(len: usize, what: &str) -> Result<(), ColumnError> {
    if len > u32::MAX as usize {
        return Err(ColumnError(format!(
            "{what}: {len} rows; a batch holds at most 2**32 - 1 rows"
        )));
    }
    Ok(())
}

/// The two columns `a` and `b` of a pairwise kernel must have the same number of rows.
fn same_lengths(a: usize, b: usize) -> PyResult<()> {
    if a != b {
        return Err(PyValueError::new_err(format!(
            "a and b have different lengths ({a} and {b})"
        )));
    }
    Ok(())
}

fn bytes<'py>(py: Python<'py>, v: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, v)
}

/// band_key_records(signer, text, large, shingle) -> (rows: bytes, keys: bytes)
///
/// For every non-null row i of a string column: normalize, shingle, sign, and emit (i, key) for
/// each of the M band keys in band order. Rows shorter than one shingle after normalization
/// emit nothing. `rows` are native uint32, `keys` native 64-bit (the u64 keys).
#[pyfunction]
pub(crate) fn band_key_records<'py>(
    py: Python<'py>,
    signer: &Bound<'py, PySigner>,
    text: &Bound<'py, PyAny>,
    large: bool,
    shingle: i64,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let shingle = shingle_len(shingle)?;
    let signer = &signer.get().inner;
    let held = HeldArray::extract(text, "text")?;
    let col = held.strings(large, "text")?;
    let (rows, keys) = py.detach(|| -> Result<_, ColumnError> {
        check_rows(col.len(), "text")?;
        let m = signer.bands();
        let mut rows = Vec::with_capacity(col.len() * m * 4);
        let mut keys = Vec::with_capacity(col.len() * m * 8);
        let mut band_keys = vec![0u64; m];
        let mut ts = TextSigner::new(signer).shingle_chars(shingle);
        for i in 0..col.len() {
            let Some(text) = col.get(i)? else { continue };
            let Some(mins) = ts.minhashes(text) else {
                continue;
            };
            signer.band_keys_into(mins, &mut band_keys);
            for &key in &band_keys {
                rows.push_ne_u32(i as u32);
                keys.push_ne_u64(key);
            }
        }
        Ok((rows, keys))
    })?;
    Ok((bytes(py, &rows), bytes(py, &keys)))
}

/// signatures(signer, text, large, shingle) -> (values: bytes, validity: bytes | None)
///
/// The N minhashes of every row, flat (native u64, zeros for rows that are null or too short),
/// and the validity bitmap of the rows (None when every row was signed).
#[pyfunction]
pub(crate) fn signatures<'py>(
    py: Python<'py>,
    signer: &Bound<'py, PySigner>,
    text: &Bound<'py, PyAny>,
    large: bool,
    shingle: i64,
) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>)> {
    let shingle = shingle_len(shingle)?;
    let signer = &signer.get().inner;
    let held = HeldArray::extract(text, "text")?;
    let col = held.strings(large, "text")?;
    let (values, valid) = py.detach(|| -> Result<_, ColumnError> {
        let n = signer.hashes();
        let mut values = Vec::with_capacity(col.len() * n * 8);
        let mut valid = Bitmap::with_capacity(col.len());
        let mut ts = TextSigner::new(signer).shingle_chars(shingle);
        for i in 0..col.len() {
            let mins = match col.get(i)? {
                Some(text) => ts.minhashes(text),
                None => None,
            };
            valid.push(mins.is_some());
            match mins {
                Some(mins) => mins.iter().for_each(|&v| values.push_ne_u64(v)),
                None => (0..n).for_each(|_| values.push_ne_u64(0)),
            }
        }
        Ok((values, valid))
    })?;
    let validity = (valid.ones() < valid.len()).then(|| bytes(py, &valid.into_bytes()));
    Ok((bytes(py, &values), validity))
}

/// shingle_counts(text, large, shingle) -> bytes
///
/// Native uint32 per row: the number of `shingle`-character shingles of the text as written
/// (no normalization; the pipeline's sentence filter), 0 for a null.
#[pyfunction]
pub(crate) fn shingle_counts<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    large: bool,
    shingle: i64,
) -> PyResult<Bound<'py, PyBytes>> {
    let shingle = shingle_len(shingle)?;
    let held = HeldArray::extract(text, "text")?;
    let col = held.strings(large, "text")?;
    let out = py.detach(|| -> Result<_, ColumnError> {
        let mut out = Vec::with_capacity(col.len() * 4);
        for i in 0..col.len() {
            let n = col.get(i)?.map_or(0, |t| char_shingle_count(t, shingle));
            let n = u32::try_from(n).map_err(|_| {
                ColumnError(format!(
                    "text: row {i} has {n} shingles, more than a uint32"
                ))
            })?;
            out.push_ne_u32(n);
        }
        Ok(out)
    })?;
    Ok(bytes(py, &out))
}

/// edit_keep(a, a_large, b, b_large, max_edit) -> (values: bytes, validity: bytes | None)
///
/// The bit-packed booleans `1 - normalized_levenshtein(a[i], b[i]) <= max_edit` (stage 7 of
/// `textreuse dedup`), null where a[i] or b[i] is null.
#[pyfunction]
pub(crate) fn edit_keep<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    a_large: bool,
    b: &Bound<'py, PyAny>,
    b_large: bool,
    max_edit: f64,
) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>)> {
    if max_edit.is_nan() {
        return Err(PyValueError::new_err("max_edit is NaN"));
    }
    let (held_a, held_b) = (HeldArray::extract(a, "a")?, HeldArray::extract(b, "b")?);
    let (col_a, col_b) = (held_a.strings(a_large, "a")?, held_b.strings(b_large, "b")?);
    same_lengths(col_a.len(), col_b.len())?;
    let (keep, valid) = py.detach(|| -> Result<_, ColumnError> {
        let mut keep = Bitmap::with_capacity(col_a.len());
        let mut valid = Bitmap::with_capacity(col_a.len());
        for i in 0..col_a.len() {
            match (col_a.get(i)?, col_b.get(i)?) {
                (Some(x), Some(y)) => {
                    keep.push(within_edit_distance(x, y, max_edit));
                    valid.push(true);
                }
                _ => {
                    keep.push(false);
                    valid.push(false);
                }
            }
        }
        Ok((keep, valid))
    })?;
    let validity = (valid.ones() < valid.len()).then(|| bytes(py, &valid.into_bytes()));
    Ok((bytes(py, &keep.into_bytes()), validity))
}

/// int64 order as unsigned order (and back): flips the sign bit.
#[inline]
fn ordered(x: i64) -> u64 {
    (x as u64) ^ (1 << 63)
}

#[inline]
fn unordered(x: u64) -> i64 {
    (x ^ (1 << 63)) as i64
}

/// connected_components(a, b) -> (node: bytes, cluster: bytes)
///
/// The connected components of the graph whose edges are the pairs (a[i], b[i]) (int64, no
/// nulls): one (node, cluster) row per distinct node, cluster = the smallest node of its
/// component (int64 order), rows sorted by (cluster, node). Native int64 each.
#[pyfunction]
pub(crate) fn connected_components<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (held_a, held_b) = (HeldArray::extract(a, "a")?, HeldArray::extract(b, "b")?);
    let (col_a, col_b) = (held_a.int64("a")?, held_b.int64("b")?);
    same_lengths(col_a.len(), col_b.len())?;
    let (nodes, clusters) = py.detach(|| -> Result<_, ColumnError> {
        let mut clustering = Clustering::with_capacity(col_a.len());
        for i in 0..col_a.len() {
            let (x, y) = (col_a.required(i, "a")?, col_b.required(i, "b")?);
            clustering
                .union(ordered(x), ordered(y))
                .map_err(|e| ColumnError(e.to_string()))?;
        }
        let listing = clustering.clusters(1);
        let mut nodes = Vec::with_capacity(listing.num_members() * 8);
        let mut clusters = Vec::with_capacity(listing.num_members() * 8);
        for cluster in &listing {
            let id = unordered(cluster.id()) as u64;
            for &member in cluster.members() {
                nodes.push_ne_u64(unordered(member) as u64);
                clusters.push_ne_u64(id);
            }
        }
        Ok((nodes, clusters))
    })?;
    Ok((bytes(py, &nodes), bytes(py, &clusters)))
}

/// A string column as `kernels.py` passes it: its parts and whether it is a `large_string`.
type StrArg<'py> = (Bound<'py, PyAny>, bool);

/// The representative rule named `keep` (as `textreuse dedup --keep`).
pub(crate) fn parse_keep(keep: &str) -> PyResult<Keep> {
    match keep {
        "first" => Ok(Keep::First),
        "earliest" => Ok(Keep::Earliest),
        "longest" => Ok(Keep::Longest),
        other => Err(PyValueError::new_err(format!(
            "keep must be \"first\", \"earliest\" or \"longest\", got {other:?}"
        ))),
    }
}

/// The smallest exact Jaccard of a duplicate with verification: `threshold`, else the signer's
/// [`threshold_estimate`](textreuse_minhash::Signer::threshold_estimate), as in
/// `DedupBuilder::build`.
pub(crate) fn min_jaccard(
    signer: &textreuse_minhash::Signer,
    verify: bool,
    threshold: Option<f64>,
) -> PyResult<Option<f64>> {
    if let Some(t) = threshold
        && !(t > 0.0 && t < 1.0)
    {
        return Err(PyValueError::new_err(format!(
            "threshold must be between 0 and 1 (exclusive), got {t}"
        )));
    }
    Ok(verify.then(|| threshold.unwrap_or_else(|| signer.threshold_estimate())))
}

/// An optional int64 column of non-negative values (`record`, `revision`, `start`, `end`).
fn non_negative(
    col: Option<&I64Column<'_>>,
    i: usize,
    what: &str,
) -> Result<Option<u64>, ColumnError> {
    match col.and_then(|c| c.get(i)) {
        None => Ok(None),
        Some(v) => u64::try_from(v)
            .map(Some)
            .map_err(|_| ColumnError(format!("{what}: row {i} is negative ({v})"))),
    }
}

/// A view of an optional int64 column.
fn int_view<'a>(
    held: &'a Option<HeldArray>,
    what: &str,
) -> Result<Option<I64Column<'a>>, ColumnError> {
    held.as_ref().map(|h| h.int64(what)).transpose()
}

/// A view of an optional string column.
fn str_view<'a>(
    held: &'a Option<(HeldArray, bool)>,
    what: &str,
) -> Result<Option<StrColumn<'a>>, ColumnError> {
    held.as_ref()
        .map(|(h, large)| h.strings(*large, what))
        .transpose()
}

/// Row `i` of an optional string column (`None` for a null or no column).
fn opt_str<'a>(col: &Option<StrColumn<'a>>, i: usize) -> Result<Option<&'a str>, ColumnError> {
    Ok(col.as_ref().map(|c| c.get(i)).transpose()?.flatten())
}

/// The member columns of `cluster_lines` (`None`: the column was not given).
struct MemberColumns<'a> {
    id: I64Column<'a>,
    doc_int: Option<I64Column<'a>>,
    doc_str: Option<StrColumn<'a>>,
    title: StrColumn<'a>,
    text: StrColumn<'a>,
    source: Option<StrColumn<'a>>,
    record: Option<I64Column<'a>>,
    revision: Option<I64Column<'a>>,
    timestamp: Option<StrColumn<'a>>,
    url: Option<StrColumn<'a>>,
    start: Option<I64Column<'a>>,
    end: Option<I64Column<'a>>,
}

impl MemberColumns<'_> {
    /// Row `i` as a cluster member, as the engine's stage 6 builds it (not yet scored).
    fn member(&self, i: usize) -> Result<Member, ColumnError> {
        let doc = match (
            opt_str(&self.doc_str, i)?,
            self.doc_int.as_ref().and_then(|c| c.get(i)),
        ) {
            (Some(s), _) => DocId::from(s),
            (None, Some(n)) => DocId::from(n),
            (None, None) => {
                return Err(ColumnError(format!(
                    "doc: row {i} has no document id (doc_int and doc_str are null)"
                )));
            }
        };
        let text = self.text.get(i)?.ok_or_else(|| {
            ColumnError(format!(
                "text: row {i} is null (this column must not have nulls)"
            ))
        })?;
        let offset = |col: &I64Column<'_>, what: &str| {
            non_negative(Some(col), i, what)?.ok_or_else(|| {
                ColumnError(format!(
                    "{what}: row {i} is null (this column must not have nulls)"
                ))
            })
        };
        let (start, end) = match (&self.start, &self.end) {
            (Some(s), Some(e)) => (offset(s, "start")?, offset(e, "end")?),
            _ => (0, text.chars().count() as u64),
        };
        Ok(Member {
            id: self.id.required(i, "id")? as u64,
            doc,
            title: self.title.get(i)?.unwrap_or_default().to_string(),
            text: text.to_string(),
            origin: Origin {
                source: opt_str(&self.source, i)?.map(Arc::from),
                record: non_negative(self.record.as_ref(), i, "record")?,
                revision: non_negative(self.revision.as_ref(), i, "revision")?,
                timestamp: opt_str(&self.timestamp, i)?.map(Arc::from),
                url: opt_str(&self.url, i)?.map(Arc::from),
            },
            start,
            end,
            similarity: None,
            jaccard: None,
        })
    }
}

/// The output buffers of `cluster_lines`: cluster ids, types, sizes, lines, duplicates.
struct ClusterLineBuffers {
    clusters: Vec<u8>,
    types: StringBuilder,
    sizes: Vec<u8>,
    lines: StringBuilder,
    duplicates: StringBuilder,
}

/// cluster_lines(signer, shingle, keep, verify, threshold, cluster, id, doc_int, doc_str, title,
///     text, source=None, record=None, revision=None, timestamp=None, start=None, end=None,
///     url=None)
///     -> (cluster, type_offsets, type_data, size, line_offsets, line_data,
///         duplicate_offsets, duplicate_data)
///
/// One `clusters.jsonl` line and the `duplicates.jsonl` lines of each cluster, built as
/// `textreuse dedup` builds them: `Cluster::new` (sort, classify), `Cluster::score` with the
/// run's signer, shingle length, `keep` rule and verification, then `to_json` and
/// `duplicates_json`. Rows are grouped by cluster (each cluster's rows contiguous and complete,
/// any order inside); clusters come out in input order. `cluster` and `id` are int64 holding the
/// u64 bits. A row's document id is `doc_str` where that is not null, else `doc_int`. String
/// columns are `(parts, large)`; `doc_int`, `doc_str` and the provenance columns may be `None`
/// (no value); without `start`/`end` a member spans its whole text.
#[pyfunction]
#[pyo3(signature = (
    signer, shingle, keep, verify, threshold, cluster, id, doc_int, doc_str, title, text,
    source=None, record=None, revision=None, timestamp=None, start=None, end=None, url=None
))]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
pub(crate) fn cluster_lines<'py>(
    py: Python<'py>,
    signer: &Bound<'py, PySigner>,
    shingle: i64,
    keep: &str,
    verify: bool,
    threshold: Option<f64>,
    cluster: &Bound<'py, PyAny>,
    id: &Bound<'py, PyAny>,
    doc_int: Option<&Bound<'py, PyAny>>,
    doc_str: Option<StrArg<'py>>,
    title: StrArg<'py>,
    text: StrArg<'py>,
    source: Option<StrArg<'py>>,
    record: Option<&Bound<'py, PyAny>>,
    revision: Option<&Bound<'py, PyAny>>,
    timestamp: Option<StrArg<'py>>,
    start: Option<&Bound<'py, PyAny>>,
    end: Option<&Bound<'py, PyAny>>,
    url: Option<StrArg<'py>>,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let shingle = shingle_len(shingle)?;
    let keep = parse_keep(keep)?;
    let signer = &signer.get().inner;
    let min_jaccard = min_jaccard(signer, verify, threshold)?;
    if doc_int.is_none() && doc_str.is_none() {
        return Err(PyValueError::new_err(
            "no document ids: give doc_int, doc_str or both",
        ));
    }
    if start.is_some() != end.is_some() {
        return Err(PyValueError::new_err("give start and end together"));
    }
    let held = |obj: Option<&Bound<'py, PyAny>>, what| {
        obj.map(|o| HeldArray::extract(o, what)).transpose()
    };
    let held_str = |arg: &Option<StrArg<'py>>, what| {
        arg.as_ref()
            .map(|(o, large)| Ok::<_, PyErr>((HeldArray::extract(o, what)?, *large)))
            .transpose()
    };
    let cluster_held = HeldArray::extract(cluster, "cluster")?;
    let id_held = HeldArray::extract(id, "id")?;
    let title_held = (HeldArray::extract(&title.0, "title")?, title.1);
    let text_held = (HeldArray::extract(&text.0, "text")?, text.1);
    let doc_int_held = held(doc_int, "doc_int")?;
    let doc_str_held = held_str(&doc_str, "doc_str")?;
    let source_held = held_str(&source, "source")?;
    let timestamp_held = held_str(&timestamp, "timestamp")?;
    let url_held = held_str(&url, "url")?;
    let record_held = held(record, "record")?;
    let revision_held = held(revision, "revision")?;
    let start_held = held(start, "start")?;
    let end_held = held(end, "end")?;
    let len = cluster_held.len();
    let lens = [&id_held, &title_held.0, &text_held.0]
        .into_iter()
        .chain(
            [
                &doc_int_held,
                &record_held,
                &revision_held,
                &start_held,
                &end_held,
            ]
            .into_iter()
            .flatten(),
        )
        .chain(
            [&doc_str_held, &source_held, &timestamp_held, &url_held]
                .into_iter()
                .flatten()
                .map(|(h, _)| h),
        )
        .map(HeldArray::len);
    for other in lens {
        if other != len {
            return Err(PyValueError::new_err(format!(
                "the columns have different lengths ({len} and {other})"
            )));
        }
    }
    let cluster_col = cluster_held.int64("cluster")?;
    let cols = MemberColumns {
        id: id_held.int64("id")?,
        doc_int: int_view(&doc_int_held, "doc_int")?,
        doc_str: str_view(&doc_str_held, "doc_str")?,
        title: title_held.0.strings(title_held.1, "title")?,
        text: text_held.0.strings(text_held.1, "text")?,
        source: str_view(&source_held, "source")?,
        record: int_view(&record_held, "record")?,
        revision: int_view(&revision_held, "revision")?,
        timestamp: str_view(&timestamp_held, "timestamp")?,
        url: str_view(&url_held, "url")?,
        start: int_view(&start_held, "start")?,
        end: int_view(&end_held, "end")?,
    };
    let out = py.detach(|| -> Result<ClusterLineBuffers, ColumnError> {
        let mut out = ClusterLineBuffers {
            clusters: Vec::new(),
            types: StringBuilder::new(),
            sizes: Vec::new(),
            lines: StringBuilder::new(),
            duplicates: StringBuilder::new(),
        };
        let mut ts = TextSigner::new(signer).shingle_chars(shingle);
        let mut seen = std::collections::HashSet::new();
        let mut members: Vec<Member> = Vec::new();
        let mut i = 0;
        while i < len {
            let c = cluster_col.required(i, "cluster")?;
            if !seen.insert(c) {
                return Err(ColumnError(format!(
                    "cluster: row {i} continues cluster {c} after other clusters; each \
                     cluster's rows must be contiguous"
                )));
            }
            members.clear();
            while i < len && cluster_col.required(i, "cluster")? == c {
                members.push(cols.member(i)?);
                i += 1;
            }
            let mut cluster = Cluster::new(c as u64, std::mem::take(&mut members));
            cluster.score(keep, &mut ts, min_jaccard);
            out.clusters.push_ne_u64(c as u64);
            out.sizes.push_ne_u64(cluster.len() as u64);
            out.types.push(cluster.kind.as_str())?;
            out.lines.push(&cluster.to_json())?;
            out.duplicates.push(&cluster.duplicates_json())?;
        }
        Ok(out)
    })?;
    let (type_offsets, type_data) = out.types.into_buffers();
    let (line_offsets, line_data) = out.lines.into_buffers();
    let (dup_offsets, dup_data) = out.duplicates.into_buffers();
    Ok((
        bytes(py, &out.clusters),
        bytes(py, &type_offsets),
        bytes(py, &type_data),
        bytes(py, &out.sizes),
        bytes(py, &line_offsets),
        bytes(py, &line_data),
        bytes(py, &dup_offsets),
        bytes(py, &dup_data),
    ))
}
