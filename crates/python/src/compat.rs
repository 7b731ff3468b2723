//! The native kernels of `textreuse.compat` (datasketch's and rensa's APIs on our core): the
//! datasketch permutation families ([`textreuse_minhash::affine`]), the banded tables
//! ([`textreuse_index::BandTables`]) and the per-band Bloom filters
//! ([`textreuse_index::BandBloom`]). The classes users see are Python (`compat/datasketch.py`,
//! `compat/rensa.py`); these only hold state and run loops.
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use rayon::prelude::*;
use textreuse_index::{BandBloom, BandTables, BloomError};
use textreuse_minhash::affine::{self, ErrorWeights, Permutations, Scheme};
use textreuse_minhash::weighted::{Form, WeightedSampler};

use crate::numpy::{signature, type_name, u64_array, u64_matrix};

fn scheme(name: &str) -> PyResult<Scheme> {
    Scheme::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "scheme must be one of affine32, affine64, legacy, got {name:?}"
        ))
    })
}

/// The items of an iterable of bytes-like objects (what `hashlib.sha1` takes), copied into one
/// buffer: item `i` is `data[ends[i - 1]..ends[i]]`. A `str` is refused as hashlib refuses it.
#[derive(Default)]
struct Items {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Items {
    fn push(&mut self, item: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(b) = item.cast::<PyBytes>() {
            self.data.extend_from_slice(b.as_bytes());
        } else if item.is_instance_of::<pyo3::types::PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing (the default hash function is SHA-1 \
                 over bytes: pass s.encode(\"utf8\"))",
            ));
        } else {
            let buf = pyo3::buffer::PyBuffer::<u8>::get(item).map_err(|_| {
                PyTypeError::new_err(format!(
                    "object supporting the buffer API required, not {}",
                    type_name(item)
                ))
            })?;
            self.data.extend(buf.to_vec(item.py())?);
        }
        self.ends.push(self.data.len());
        Ok(())
    }

    fn extend(&mut self, items: &Bound<'_, PyAny>) -> PyResult<()> {
        for item in items.try_iter()? {
            self.push(&item?)?;
        }
        Ok(())
    }

    /// Items `range` (indices into `ends`).
    fn slice(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = &[u8]> {
        let ends = &self.ends;
        range.map(move |i| {
            let start = if i == 0 { 0 } else { ends[i - 1] };
            &self.data[start..ends[i]]
        })
    }
}

/// Every item's bytes, as a list (for tables that take one band per item).
fn item_bytes(items: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    let mut all = Items::default();
    all.extend(items)?;
    Ok(all.slice(0..all.ends.len()).map(<[u8]>::to_vec).collect())
}

/// datasketch's permutations of one `(scheme, a, b)`: folds items or input hashes into minima.
#[derive(Debug)]
#[pyclass(name = "AffinePermutations", module = "textreuse._native", frozen)]
pub struct PyAffinePermutations {
    perms: Permutations,
}

impl PyAffinePermutations {
    fn hash(&self, bytes: &[u8]) -> u64 {
        match self.perms.scheme() {
            Scheme::Affine64 => affine::sha1_hash64(bytes),
            _ => affine::sha1_hash32(bytes) as u64,
        }
    }
}

#[pymethods]
impl PyAffinePermutations {
    /// Permutations of `scheme` ("affine32", "affine64", "legacy") with parameters `a`, `b`.
    #[new]
    fn new(scheme_name: &str, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Self> {
        let perms = Permutations::new(scheme(scheme_name)?, signature(a, "a")?, signature(b, "b")?)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyAffinePermutations { perms })
    }

    /// The minima of `items` (bytes, hashed with datasketch's SHA-1 hash of the scheme's width)
    /// under each permutation: a uint64 array (the scheme's maximum where `items` is empty).
    fn minima<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut all = Items::default();
        all.extend(items)?;
        let values = py.detach(|| {
            let mut values = self.perms.empty();
            self.perms.update(
                &mut values,
                all.slice(0..all.ends.len()).map(|b| self.hash(b)),
            );
            values
        });
        u64_array(py, &values)
    }

    /// The minima of input hashes already computed (a custom `hashfunc`'s ints).
    fn minima_of_hashes<'py>(
        &self,
        py: Python<'py>,
        hashes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let hashes = signature(hashes, "hash values").map_err(|e| {
            PyValueError::new_err(format!(
                "hashfunc returned a value out of range for scheme {:?}: {e}",
                self.perms.scheme().as_str()
            ))
        })?;
        self.perms
            .check_inputs(&hashes)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut values = self.perms.empty();
        self.perms.update(&mut values, hashes.iter().copied());
        u64_array(py, &values)
    }

    /// One row of minima per item set of `sets` (each an iterable of bytes), on all cores: a
    /// 2-D uint64 array.
    fn minima_batch<'py>(
        &self,
        py: Python<'py>,
        sets: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // All items of all sets in one buffer; set `j` is items `bounds[j]..bounds[j + 1]`.
        let mut all = Items::default();
        let mut bounds = vec![0usize];
        for set in sets.try_iter()? {
            all.extend(&set?)?;
            bounds.push(all.ends.len());
        }
        let n = self.perms.len();
        let rows = py.detach(|| {
            let mut out = vec![0u64; (bounds.len() - 1) * n];
            out.par_chunks_mut(n.max(1))
                .zip(bounds.par_windows(2))
                .for_each(|(row, w)| {
                    row.copy_from_slice(&self.perms.empty());
                    self.perms
                        .update(row, all.slice(w[0]..w[1]).map(|b| self.hash(b)));
                });
            out
        });
        u64_matrix(py, &rows, n)
    }

    fn __len__(&self) -> usize {
        self.perms.len()
    }
}

/// datasketch's `_optimal_param` of MinHashLSH: `(b, r)` minimizing the weighted false-positive
/// and false-negative areas, `b·r <= num_perm`.
#[pyfunction]
pub fn lsh_params(
    threshold: f64,
    num_perm: usize,
    false_positive_weight: f64,
    false_negative_weight: f64,
) -> (usize, usize) {
    affine::jaccard_params(
        threshold,
        num_perm,
        ErrorWeights {
            false_positive: false_positive_weight,
            false_negative: false_negative_weight,
        },
    )
}

/// datasketch's `_optimal_param` of MinHashLSHEnsemble for one size ratio `xq`.
#[pyfunction]
pub fn containment_params(
    threshold: f64,
    num_perm: usize,
    max_r: usize,
    xq: f64,
    false_positive_weight: f64,
    false_negative_weight: f64,
) -> (usize, usize) {
    affine::containment_params(
        threshold,
        num_perm,
        max_r,
        xq,
        ErrorWeights {
            false_positive: false_positive_weight,
            false_negative: false_negative_weight,
        },
    )
}

/// Banded tables over band bytes ([`BandTables`]); entries are numbered by the caller.
#[derive(Debug)]
#[pyclass(name = "BandTables", module = "textreuse._native")]
pub struct PyBandTables {
    inner: BandTables,
}

impl PyBandTables {
    fn rows_of<'a>(
        &self,
        data: &'a [u8],
        rows: usize,
        row_bytes: usize,
    ) -> PyResult<Vec<&'a [u8]>> {
        let width = rows * row_bytes;
        let need = width * self.inner.tables();
        if width == 0 || data.len() < need {
            return Err(PyValueError::new_err(format!(
                "a signature of {} bytes is shorter than {} bands of {rows} rows of {row_bytes} bytes",
                data.len(),
                self.inner.tables()
            )));
        }
        Ok(data[..need].chunks_exact(width).collect())
    }
}

/// The band bytes of `data` cut at `ranges` (byte offsets), or an error naming the shortfall.
fn cut<'a>(data: &'a [u8], ranges: &[(usize, usize)]) -> PyResult<Vec<&'a [u8]>> {
    ranges
        .iter()
        .map(|&(s, e)| {
            data.get(s..e).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "a signature of {} bytes has no bytes {s}..{e}",
                    data.len()
                ))
            })
        })
        .collect()
}

fn bands_of(bands: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    item_bytes(bands)
}

fn band_error(e: textreuse_index::BandError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

#[pymethods]
impl PyBandTables {
    /// Empty tables, one per band.
    #[new]
    fn new(tables: usize) -> Self {
        PyBandTables {
            inner: BandTables::new(tables),
        }
    }

    /// Adds entry `id` with its bands (a list of bytes, one per table).
    fn insert(&mut self, id: u32, bands: &Bound<'_, PyAny>) -> PyResult<()> {
        let bands = bands_of(bands)?;
        self.inner.insert(id, &bands).map_err(band_error)
    }

    /// Adds entry `id` whose bands are `data[s:e]` for each `(s, e)` of `ranges`.
    fn insert_cut(&mut self, id: u32, data: &[u8], ranges: Vec<(usize, usize)>) -> PyResult<()> {
        let bands = cut(data, &ranges)?;
        self.inner.insert(id, &bands).map_err(band_error)
    }

    /// Adds entry `id` whose band `i` is `data[i·rows·row_bytes..(i+1)·rows·row_bytes]`
    /// (consecutive bands of `rows` rows of `row_bytes` bytes: datasketch's hash ranges).
    fn insert_rows(&mut self, id: u32, data: &[u8], rows: usize, row_bytes: usize) -> PyResult<()> {
        let bands = self.rows_of(data, rows, row_bytes)?;
        self.inner.insert(id, &bands).map_err(band_error)
    }

    /// [`query`](Self::query) with consecutive bands of `rows` rows cut from `data`.
    #[pyo3(signature = (data, rows, row_bytes, tables=None))]
    fn query_rows(
        &self,
        data: &[u8],
        rows: usize,
        row_bytes: usize,
        tables: Option<usize>,
    ) -> PyResult<Vec<u32>> {
        let bands = self.rows_of(data, rows, row_bytes)?;
        Ok(self
            .inner
            .query_tables(&bands, tables.unwrap_or(self.inner.tables())))
    }

    /// Removes entry `id`; False if it was not there.
    fn remove(&mut self, id: u32) -> bool {
        self.inner.remove(id)
    }

    /// The ids sharing a band with `bands` in the first `tables` tables (all by default).
    #[pyo3(signature = (bands, tables=None))]
    fn query(&self, bands: &Bound<'_, PyAny>, tables: Option<usize>) -> PyResult<Vec<u32>> {
        let bands = bands_of(bands)?;
        Ok(self
            .inner
            .query_tables(&bands, tables.unwrap_or(self.inner.tables())))
    }

    /// [`query`](Self::query) with the bands cut from `data` at `ranges`.
    #[pyo3(signature = (data, ranges, tables=None))]
    fn query_cut(
        &self,
        data: &[u8],
        ranges: Vec<(usize, usize)>,
        tables: Option<usize>,
    ) -> PyResult<Vec<u32>> {
        let bands = cut(data, &ranges)?;
        Ok(self
            .inner
            .query_tables(&bands, tables.unwrap_or(self.inner.tables())))
    }

    /// The ids of bucket `band` of table `table`, or None.
    fn bucket(&self, table: usize, band: &[u8]) -> Option<Vec<u32>> {
        self.inner.bucket(table, band).map(<[u32]>::to_vec)
    }

    /// The band bytes of table `table`'s buckets.
    fn bucket_keys<'py>(&self, py: Python<'py>, table: usize) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.inner.buckets(table).map(|(k, _)| PyBytes::new(py, k)),
        )
    }

    /// `{band bytes: number of ids}` of table `table`, as (bytes, count) pairs.
    fn bucket_sizes<'py>(&self, py: Python<'py>, table: usize) -> PyResult<Bound<'py, PyList>> {
        PyList::new(
            py,
            self.inner
                .buckets(table)
                .map(|(k, ids)| (PyBytes::new(py, k), ids.len())),
        )
    }

    /// The number of buckets of table `table`.
    fn bucket_count(&self, table: usize) -> usize {
        self.inner.bucket_count(table)
    }

    /// The band bytes of entry `id`, or None.
    fn entry<'py>(&self, py: Python<'py>, id: u32) -> PyResult<Option<Bound<'py, PyList>>> {
        match self.inner.entry(id) {
            Some(bands) => Ok(Some(PyList::new(py, bands.map(|b| PyBytes::new(py, b)))?)),
            None => Ok(None),
        }
    }

    /// True if entry `id` is in the tables.
    fn contains(&self, id: u32) -> bool {
        self.inner.contains(id)
    }

    /// Sorts the tables for prefix queries.
    fn sort(&mut self) {
        self.inner.sort();
    }

    /// The ids of table `table` whose band starts with `prefix` (as of the last sort).
    fn prefix_query(&self, table: usize, prefix: &[u8]) -> Vec<u32> {
        self.inner.prefix_query(table, prefix).collect()
    }

    /// Adds every entry of `other`, its id `i` becoming `ids[i]`.
    fn merge(&mut self, other: &PyBandTables, ids: Vec<u32>) -> PyResult<()> {
        let map = |id: u32| ids.get(id as usize).copied().unwrap_or(u32::MAX);
        if other.inner.ids().any(|id| map(id) == u32::MAX) {
            return Err(PyValueError::new_err("merge: an id has no new number"));
        }
        self.inner.merge(&other.inner, map).map_err(band_error)
    }

    /// The number of tables.
    #[getter]
    fn tables(&self) -> usize {
        self.inner.tables()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}

fn bloom_error(e: BloomError) -> PyErr {
    let message = e.to_string();
    match e {
        BloomError::Io { source, .. } => match source.raw_os_error() {
            Some(errno) => PyOSError::new_err((errno, message)),
            None => PyOSError::new_err(message),
        },
        _ => PyValueError::new_err(message),
    }
}

/// Bloom filters per band ([`BandBloom`]).
#[derive(Debug)]
#[pyclass(name = "BandBloom", module = "textreuse._native")]
pub struct PyBandBloom {
    inner: BandBloom,
}

#[pymethods]
impl PyBandBloom {
    /// Filters for `bands` bands of `rows` values, sized for `capacity` items at rate `fp`.
    #[new]
    fn new(bands: usize, rows: usize, capacity: u64, fp: f64) -> PyResult<Self> {
        Ok(PyBandBloom {
            inner: BandBloom::new(bands, rows, capacity, fp).map_err(bloom_error)?,
        })
    }

    /// Filters saved by `save`.
    #[staticmethod]
    fn load(path: std::path::PathBuf) -> PyResult<Self> {
        Ok(PyBandBloom {
            inner: BandBloom::load(&path).map_err(bloom_error)?,
        })
    }

    /// Writes the filters to `path` atomically.
    fn save(&self, path: std::path::PathBuf) -> PyResult<()> {
        self.inner.save(&path).map_err(bloom_error)
    }

    /// Sets the bits of the signature `values`' bands.
    fn insert(&mut self, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let values = signature(values, "values")?;
        self.inner.insert(&values).map_err(bloom_error)
    }

    /// True if a band of `values` has all its bits set.
    fn query(&self, values: &Bound<'_, PyAny>) -> PyResult<bool> {
        let values = signature(values, "values")?;
        self.inner.query(&values).map_err(bloom_error)
    }

    /// Sets the bits of one band's `values` in filter `band`.
    fn insert_band(&mut self, band: usize, values: &Bound<'_, PyAny>) -> PyResult<()> {
        let values = signature(values, "values")?;
        self.inner.insert_band(band, &values).map_err(bloom_error)
    }

    /// True if filter `band` has all the bits of one band's `values`.
    fn query_band(&self, band: usize, values: &Bound<'_, PyAny>) -> PyResult<bool> {
        let values = signature(values, "values")?;
        self.inner.query_band(band, &values).map_err(bloom_error)
    }

    /// (bands, rows, bits per band, probes).
    #[getter]
    fn shape(&self) -> (usize, usize, usize, u32) {
        (
            self.inner.bands(),
            self.inner.rows(),
            self.inner.bits(),
            self.inner.probes(),
        )
    }
}

/// The partitions of LSH Ensemble ([`textreuse_index::optimal_partitions`]).
#[pyfunction]
pub fn optimal_partitions(sizes: Vec<u64>, counts: Vec<u64>, parts: usize) -> Vec<(u64, u64)> {
    textreuse_index::optimal_partitions(&sizes, &counts, parts)
}

/// `f32` values from native-endian bytes (what numpy's `tobytes()` gives).
fn f32s(bytes: &[u8], what: &str) -> PyResult<Vec<f32>> {
    if !bytes.len().is_multiple_of(4) {
        return Err(PyValueError::new_err(format!(
            "{what}: {} bytes are not float32 values",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Consistent weighted sampling ([`WeightedSampler`]).
#[derive(Debug)]
#[pyclass(name = "WeightedSampler", module = "textreuse._native", frozen)]
pub struct PyWeightedSampler {
    inner: WeightedSampler,
}

#[pymethods]
impl PyWeightedSampler {
    /// A sampler from its `samples x dim` float32 parameter matrices (as bytes).
    #[new]
    fn new(dim: usize, samples: usize, rs: &[u8], ln_cs: &[u8], betas: &[u8]) -> PyResult<Self> {
        let inner = WeightedSampler::new(
            dim,
            samples,
            f32s(rs, "rs")?,
            f32s(ln_cs, "ln_cs")?,
            f32s(betas, "betas")?,
        )
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyWeightedSampler { inner })
    }

    /// The `(k, t)` samples of the weights whose float32 logarithms are `logs` (bytes) at
    /// dimensions `indices`; `dense` picks the form of `WeightedMinHashGenerator.minhash`.
    fn sample(&self, indices: Vec<usize>, logs: &[u8], dense: bool) -> PyResult<Vec<(u64, i64)>> {
        let form = if dense { Form::Dense } else { Form::Sparse };
        self.inner
            .sample_logs(&indices, &f32s(logs, "logs")?, form)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }
}
