//! The Arrow batch kernels behind `textreuse.kernels` (the Spark backend's `mapInArrow` steps).
//!
//! Each takes its input arrays as buffer tuples (see [`crate::arrow::HeldArray`]), releases the
//! GIL, runs one loop over the rows calling the same functions `textreuse dedup` calls, and
//! returns the output buffers as `bytes`; `kernels.py` wraps them into pyarrow arrays without a
//! copy. Results depend only on the rows given, never on how a dataset was partitioned.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use textreuse_dedup::{Cluster, Member, within_edit_distance};
use textreuse_minhash::TextSigner;
use textreuse_shingle::char_shingle_count;
use textreuse_unionfind::Clustering;

use crate::arrow::{Bitmap, ColumnError, HeldArray, PushNe, StringBuilder};
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

/// The output buffers of `cluster_lines`.
type ClusterLineBuffers = (Vec<u8>, (Vec<u8>, Vec<u8>), Vec<u8>, (Vec<u8>, Vec<u8>));

/// cluster_lines(cluster, id, doc, title, title_large, text, text_large)
///     -> (cluster, type_offsets, type_data, size, line_offsets, line_data)
///
/// One `clusters.jsonl` line per cluster, formatted by `textreuse dedup`'s own `cluster_line`.
/// Rows are grouped by cluster (each cluster's rows contiguous and complete, any order inside);
/// clusters come out in input order. ids and docs are int64 holding the u64 bits.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
pub(crate) fn cluster_lines<'py>(
    py: Python<'py>,
    cluster: &Bound<'py, PyAny>,
    id: &Bound<'py, PyAny>,
    doc: &Bound<'py, PyAny>,
    title: &Bound<'py, PyAny>,
    title_large: bool,
    text: &Bound<'py, PyAny>,
    text_large: bool,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let held = [
        HeldArray::extract(cluster, "cluster")?,
        HeldArray::extract(id, "id")?,
        HeldArray::extract(doc, "doc")?,
        HeldArray::extract(title, "title")?,
        HeldArray::extract(text, "text")?,
    ];
    let len = held[0].len();
    if let Some(h) = held.iter().find(|h| h.len() != len) {
        return Err(PyValueError::new_err(format!(
            "the columns have different lengths ({len} and {})",
            h.len()
        )));
    }
    let cluster_col = held[0].int64("cluster")?;
    let id_col = held[1].int64("id")?;
    let doc_col = held[2].int64("doc")?;
    let title_col = held[3].strings(title_large, "title")?;
    let text_col = held[4].strings(text_large, "text")?;
    let out = py.detach(|| -> Result<ClusterLineBuffers, ColumnError> {
        let mut clusters = Vec::new();
        let mut sizes = Vec::new();
        let mut types = StringBuilder::new();
        let mut lines = StringBuilder::new();
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
                members.push(Member::new(
                    id_col.required(i, "id")? as u64,
                    doc_col.required(i, "doc")? as u64,
                    title_col.get(i)?.unwrap_or_default(),
                    text_col.get(i)?.ok_or_else(|| {
                        ColumnError(format!(
                            "text: row {i} is null (this column must not have nulls)"
                        ))
                    })?,
                ));
                i += 1;
            }
            let cluster = Cluster::new(c as u64, std::mem::take(&mut members));
            clusters.push_ne_u64(c as u64);
            sizes.push_ne_u64(cluster.len() as u64);
            types.push(cluster.kind.as_str())?;
            lines.push(&cluster.to_json())?;
        }
        Ok((clusters, types.into_buffers(), sizes, lines.into_buffers()))
    })?;
    let (clusters, (type_offsets, type_data), sizes, (line_offsets, line_data)) = out;
    Ok((
        bytes(py, &clusters),
        bytes(py, &type_offsets),
        bytes(py, &type_data),
        bytes(py, &sizes),
        bytes(py, &line_offsets),
        bytes(py, &line_data),
    ))
}
