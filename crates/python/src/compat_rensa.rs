//! The native side of `textreuse.compat.rensa` (rensa 0.5's API on our core): sketches over
//! [`textreuse_minhash::rensa`] (R-MinHash and C-MinHash, bit-identical to rensa's), digest
//! matrices, and banded tables over [`textreuse_index::KeyedBandTables`]. The classes users see
//! are Python (`compat/rensa.py`); these hold state, read rensa's token inputs and raise its
//! errors (types and messages).
//!
//! Token inputs are read as rensa reads them: a document is an iterable of tokens (`str` as
//! UTF-8, `bytes`, `bytearray` or any C-contiguous `u8` buffer), a `str` document is its
//! characters, and a bytes-like document is one token. Pre-hashed inputs are `int`s in
//! `0..2**64` (never converted through `__index__`) or a native-order `uint64` buffer.
use std::sync::Arc;

use pyo3::buffer::{PyBuffer, PyUntypedBuffer};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyList, PyString, PyTuple};
use rayon::prelude::*;
use textreuse_index::{BandError, KeyedBandTables};
use textreuse_minhash::rensa::{
    CMinHashState, CMinHasher, RMinHashState, RMinHasher, RensaError, c_digest32, jaccard,
    token_hash,
};

const TOKEN_TYPE_ERROR: &str =
    "each item must be str, bytes, bytearray, or a C-contiguous u8 buffer";
const BYTE_TOKEN_TYPE_ERROR: &str =
    "each item must be bytes, bytearray, or a C-contiguous u8 buffer";
const PREHASHED_TYPE_ERROR: &str = "each item must be an unsigned 64-bit integer";
const BUFFER_TYPE_ERROR: &str = "buffer inputs must be C-contiguous and byte-sized (u8)";
const ROW_OFFSETS_ERROR: &str =
    "row_offsets must start at 0, be non-decreasing, and end at token_hashes length";
const ROW_OFFSET_TYPE_ERROR: &str =
    "row_offsets must be an unsigned integer iterable or C-contiguous unsigned integer buffer";
const KEY_OVERFLOW_ERROR: &str = "start_key + offset exceeds the maximum key";

fn rensa_error(e: RensaError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// What the tokens of a document are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tokens {
    /// `str` or bytes-like (rensa's `update`, `*_from_token_sets`).
    Any,
    /// Bytes-like only (`digest_matrix_from_token_byte_sets`).
    Bytes,
    /// Pre-hashed `u64`s (`*_from_token_hash_sets`).
    Hashes,
}

impl Tokens {
    fn parse(kind: &str) -> PyResult<Tokens> {
        match kind {
            "tokens" => Ok(Tokens::Any),
            "bytes" => Ok(Tokens::Bytes),
            "hashes" => Ok(Tokens::Hashes),
            _ => Err(PyValueError::new_err(format!(
                "token kind must be tokens, bytes or hashes, got {kind:?}"
            ))),
        }
    }

    fn type_error(self) -> PyErr {
        PyTypeError::new_err(match self {
            Tokens::Any => TOKEN_TYPE_ERROR,
            Tokens::Bytes => BYTE_TOKEN_TYPE_ERROR,
            Tokens::Hashes => PREHASHED_TYPE_ERROR,
        })
    }
}

/// The hash of a bytes-like object (bytes, bytearray, a buffer), `None` if `obj` is not one.
fn hash_bytes_like(obj: &Bound<'_, PyAny>) -> PyResult<Option<u64>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(token_hash(b.as_bytes())));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        // SAFETY: no Python code runs while the slice is borrowed (only the hash reads it),
        // so the bytearray cannot be resized under it.
        return Ok(Some(token_hash(unsafe { b.as_bytes() })));
    }
    let Ok(buf) = PyUntypedBuffer::get(obj) else {
        return Ok(None);
    };
    if buf.as_typed::<u8>().is_err() || !buf.is_c_contiguous() {
        return Err(PyTypeError::new_err(BUFFER_TYPE_ERROR));
    }
    let len = buf.len_bytes();
    let bytes: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: a C-contiguous buffer of `len` bytes, held (and so kept alive) by `buf`
        // while only the hash reads it.
        unsafe { std::slice::from_raw_parts(buf.buf_ptr().cast::<u8>(), len) }
    };
    Ok(Some(token_hash(bytes)))
}

/// The hash of one token of `kind`.
fn hash_token(item: &Bound<'_, PyAny>, kind: Tokens) -> PyResult<u64> {
    match kind {
        Tokens::Hashes => prehashed(item),
        Tokens::Any | Tokens::Bytes => {
            if let Ok(s) = item.cast::<PyString>() {
                if kind == Tokens::Bytes {
                    return Err(kind.type_error());
                }
                return Ok(token_hash(s.to_str()?.as_bytes()));
            }
            hash_bytes_like(item)?.ok_or_else(|| kind.type_error())
        }
    }
}

/// A pre-hashed token: an `int` (subclasses read by value, never through `__index__`).
fn prehashed(item: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !item.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(PREHASHED_TYPE_ERROR));
    }
    item.extract::<u64>()
        .map_err(|_| PyTypeError::new_err(PREHASHED_TYPE_ERROR))
}

/// True if a buffer's values are in this machine's byte order (pyo3 takes `>` for native on
/// little-endian machines too, so the format's order character is checked here).
fn native_order(format: &std::ffi::CStr) -> bool {
    match format.to_bytes().first() {
        Some(b'>' | b'!') => cfg!(target_endian = "big"),
        Some(b'<') => cfg!(target_endian = "little"),
        _ => true,
    }
}

/// A native-order `uint64` buffer's values; `None` if `obj` exports no `u64` buffer.
fn u64_buffer_values(obj: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u64>>> {
    let Ok(buf) = PyBuffer::<u64>::get(obj) else {
        return Ok(None);
    };
    if !buf.is_c_contiguous() || !native_order(buf.format()) {
        return Err(PyTypeError::new_err(PREHASHED_TYPE_ERROR));
    }
    Ok(Some(buf.to_vec(obj.py())?))
}

/// Calls `f` on each item of `seq` (a list read by index, so that a list changed by a token's
/// buffer callback is noticed; tuples and other iterables in order). `changed` is the error
/// for a list whose size changed.
fn for_each_item<'py>(
    seq: &Bound<'py, PyAny>,
    changed: fn() -> PyErr,
    mut f: impl FnMut(Bound<'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    if let Ok(list) = seq.cast::<PyList>() {
        let n = list.len();
        for i in 0..n {
            let item = list.get_item(i).map_err(|_| changed())?;
            f(item)?;
            if list.len() != n {
                return Err(changed());
            }
        }
        return Ok(());
    }
    if let Ok(tuple) = seq.cast::<PyTuple>() {
        for item in tuple.iter() {
            f(item)?;
        }
        return Ok(());
    }
    for item in seq.try_iter()? {
        f(item?)?;
    }
    Ok(())
}

fn token_list_changed() -> PyErr {
    PyRuntimeError::new_err("token list changed size during iteration")
}

fn document_list_changed() -> PyErr {
    PyValueError::new_err("document list changed size during iteration")
}

/// Appends the token hashes of one document to `out`.
fn document_hashes(doc: &Bound<'_, PyAny>, kind: Tokens, out: &mut Vec<u64>) -> PyResult<()> {
    if kind == Tokens::Hashes {
        if let Some(values) = u64_buffer_values(doc)? {
            out.extend_from_slice(&values);
            return Ok(());
        }
        return for_each_item(doc, token_list_changed, |item| {
            out.push(prehashed(&item)?);
            Ok(())
        });
    }
    if let Ok(s) = doc.cast::<PyString>() {
        // A str is the sequence of its characters, each one token.
        let s = s.to_str()?;
        if kind == Tokens::Bytes && !s.is_empty() {
            return Err(kind.type_error());
        }
        let mut buf = [0u8; 4];
        out.extend(
            s.chars()
                .map(|c| token_hash(c.encode_utf8(&mut buf).as_bytes())),
        );
        return Ok(());
    }
    // A bytes-like document is one token (lists and tuples never are: skip the buffer probe).
    let sequence = doc.is_instance_of::<PyList>() || doc.is_instance_of::<PyTuple>();
    if !sequence && let Some(h) = hash_bytes_like(doc)? {
        out.push(h);
        return Ok(());
    }
    for_each_item(doc, token_list_changed, |item| {
        out.push(hash_token(&item, kind)?);
        Ok(())
    })
}

/// Token hashes of many documents, flat, and each document's range in them.
type FlatHashes = (Vec<u64>, Vec<(usize, usize)>);

/// The token hashes of every document of `token_sets`.
fn corpus_hashes(token_sets: &Bound<'_, PyAny>, kind: Tokens) -> PyResult<FlatHashes> {
    let mut flat = Vec::new();
    let mut ranges = Vec::new();
    for_each_item(token_sets, document_list_changed, |doc| {
        let start = flat.len();
        document_hashes(&doc, kind, &mut flat)?;
        ranges.push((start, flat.len()));
        Ok(())
    })?;
    Ok((flat, ranges))
}

/// One digest row per range, on all cores (the GIL released).
fn digest_rows<T: Copy + Send + Sync>(
    py: Python<'_>,
    num_perm: usize,
    flat: &[u64],
    ranges: &[(usize, usize)],
    empty: T,
    sketch: impl Fn(&[u64], &mut [T]) + Sync,
) -> Vec<T> {
    py.detach(|| {
        let mut data = vec![empty; ranges.len() * num_perm];
        data.par_chunks_mut(num_perm)
            .zip(ranges)
            .for_each(|(row, &(s, e))| sketch(&flat[s..e], row));
        data
    })
}

// ---------------------------------------------------------------- R-MinHash

/// An R-MinHash sketch: rensa's `RMinHash` state (its hasher and digest).
#[derive(Debug, Clone)]
#[pyclass(name = "RensaRMinHash", module = "textreuse._native")]
pub struct PyRensaRMinHash {
    hasher: Arc<RMinHasher>,
    values: Vec<u32>,
}

impl PyRensaRMinHash {
    fn check_compatible(&self, other: &PyRensaRMinHash) -> PyResult<()> {
        compatible(
            (self.hasher.num_perm(), self.hasher.seed()),
            (other.hasher.num_perm(), other.hasher.seed()),
        )
    }
}

/// rensa's errors for comparing sketches of other parameters.
fn compatible(left: (usize, u64), right: (usize, u64)) -> PyResult<()> {
    if left.0 != right.0 {
        return Err(PyValueError::new_err(format!(
            "num_perm mismatch: left is {}, right is {}",
            left.0, right.0
        )));
    }
    if left.1 != right.1 {
        return Err(PyValueError::new_err(format!(
            "seed mismatch: left is {}, right is {}",
            left.1, right.1
        )));
    }
    Ok(())
}

#[pymethods]
impl PyRensaRMinHash {
    /// An empty sketch of `num_perm` slots from `seed`.
    #[new]
    fn new(num_perm: usize, seed: u64) -> PyResult<Self> {
        let hasher = RMinHasher::new(num_perm, seed).map_err(rensa_error)?;
        let values = hasher.empty();
        Ok(PyRensaRMinHash {
            hasher: Arc::new(hasher),
            values,
        })
    }

    /// Adds the tokens of `items` (a str, a bytes-like token, or an iterable of tokens).
    fn update(slf: &Bound<'_, Self>, items: &Bound<'_, PyAny>) -> PyResult<()> {
        // Tokens first: reading them may run Python code (buffer exporters).
        let mut hashes = Vec::new();
        document_hashes(items, Tokens::Any, &mut hashes)?;
        let mut this = slf.borrow_mut();
        let this = &mut *this;
        this.hasher
            .update(&mut this.values, &hashes)
            .map_err(rensa_error)
    }

    /// The digest, `num_perm` ints below 2**32.
    fn digest(&self) -> Vec<u32> {
        self.values.clone()
    }

    /// The fraction of equal slots; ValueError for other parameters.
    fn jaccard(&self, other: PyRef<'_, Self>) -> PyResult<f64> {
        self.check_compatible(&other)?;
        Ok(jaccard(&self.values, &other.values))
    }

    #[getter]
    fn num_perm(&self) -> usize {
        self.hasher.num_perm()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.hasher.seed()
    }

    /// rensa's `__getstate__` bytes.
    fn state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let state = RMinHashState {
            seed: self.hasher.seed(),
            values: self.values.clone(),
        };
        PyBytes::new(py, &state.encode())
    }

    /// The sketch saved in `state` (ours or rensa 0.5's); ValueError naming the recovery.
    #[staticmethod]
    fn from_state(state: &[u8]) -> PyResult<Self> {
        let state =
            RMinHashState::decode(state).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let hasher = RMinHasher::new(state.values.len(), state.seed).map_err(rensa_error)?;
        Ok(PyRensaRMinHash {
            hasher: Arc::new(hasher),
            values: state.values,
        })
    }
}

/// Digests in one row-major block: rensa's `RMinHashDigestMatrix`.
#[derive(Debug)]
#[pyclass(name = "RensaDigestMatrix", module = "textreuse._native", frozen)]
pub struct PyRensaDigestMatrix {
    num_perm: usize,
    data: Vec<u32>,
}

impl PyRensaDigestMatrix {
    fn rows(&self) -> impl ExactSizeIterator<Item = &[u32]> {
        self.data.chunks_exact(self.num_perm)
    }
}

#[pymethods]
impl PyRensaDigestMatrix {
    fn __len__(&self) -> usize {
        self.data.len() / self.num_perm
    }

    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// The rows as lists of ints.
    fn to_rows(&self) -> Vec<Vec<u32>> {
        self.rows().map(<[u32]>::to_vec).collect()
    }
}

/// R-MinHash digests of the documents of `token_sets` (tokens of `kind`: "tokens", "bytes",
/// "hashes").
#[pyfunction]
pub fn rensa_r_matrix(
    py: Python<'_>,
    token_sets: &Bound<'_, PyAny>,
    num_perm: usize,
    seed: u64,
    kind: &str,
) -> PyResult<PyRensaDigestMatrix> {
    let hasher = RMinHasher::new(num_perm, seed).map_err(rensa_error)?;
    let (flat, ranges) = corpus_hashes(token_sets, Tokens::parse(kind)?)?;
    let data = digest_rows(py, num_perm, &flat, &ranges, u32::MAX, |hashes, row| {
        hasher
            .sketch_into(hashes, row)
            .expect("a row of num_perm values");
    });
    Ok(PyRensaDigestMatrix { num_perm, data })
}

/// The row offsets of a flat batch: a native-order unsigned integer buffer or an iterable of
/// ints.
fn row_offsets(obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    fn from_buffer<T: pyo3::buffer::Element + Copy + TryInto<u64>>(
        obj: &Bound<'_, PyAny>,
    ) -> PyResult<Option<Vec<usize>>> {
        let Ok(buf) = PyBuffer::<T>::get(obj) else {
            return Ok(None);
        };
        if !buf.is_c_contiguous() || !native_order(buf.format()) {
            return Err(PyValueError::new_err(ROW_OFFSET_TYPE_ERROR));
        }
        buf.to_vec(obj.py())?
            .into_iter()
            .map(|v| {
                v.try_into()
                    .ok()
                    .and_then(|v: u64| usize::try_from(v).ok())
                    .ok_or_else(|| PyValueError::new_err(ROW_OFFSET_TYPE_ERROR))
            })
            .collect::<PyResult<Vec<usize>>>()
            .map(Some)
    }
    if let Some(v) = from_buffer::<u64>(obj)? {
        return Ok(v);
    }
    if let Some(v) = from_buffer::<u32>(obj)? {
        return Ok(v);
    }
    if let Some(v) = from_buffer::<u16>(obj)? {
        return Ok(v);
    }
    if let Some(v) = from_buffer::<u8>(obj)? {
        return Ok(v);
    }
    let mut out = Vec::new();
    for_each_item(obj, document_list_changed, |item| {
        let v = item
            .extract::<u64>()
            .ok()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| PyValueError::new_err(ROW_OFFSET_TYPE_ERROR))?;
        out.push(v);
        Ok(())
    })?;
    Ok(out)
}

/// R-MinHash digests of a flat batch: `token_hashes` cut at `row_offsets` (read first).
#[pyfunction]
pub fn rensa_r_flat(
    py: Python<'_>,
    token_hashes: &Bound<'_, PyAny>,
    row_offsets: &Bound<'_, PyAny>,
    num_perm: usize,
    seed: u64,
) -> PyResult<PyRensaDigestMatrix> {
    let hasher = RMinHasher::new(num_perm, seed).map_err(rensa_error)?;
    let offsets = self::row_offsets(row_offsets)?;
    let flat = match u64_buffer_values(token_hashes)? {
        Some(values) => values,
        None => {
            let mut values = Vec::new();
            for_each_item(token_hashes, token_list_changed, |item| {
                values.push(prehashed(&item)?);
                Ok(())
            })?;
            values
        }
    };
    let valid = offsets.first() == Some(&0)
        && offsets.last() == Some(&flat.len())
        && offsets.windows(2).all(|w| w[0] <= w[1]);
    if !valid {
        return Err(PyValueError::new_err(ROW_OFFSETS_ERROR));
    }
    let ranges: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
    let data = digest_rows(py, num_perm, &flat, &ranges, u32::MAX, |hashes, row| {
        hasher
            .sketch_into(hashes, row)
            .expect("a row of num_perm values");
    });
    Ok(PyRensaDigestMatrix { num_perm, data })
}

/// One sketch per document of `token_sets`, sharing one hasher.
#[pyfunction]
pub fn rensa_r_sketches(
    py: Python<'_>,
    token_sets: &Bound<'_, PyAny>,
    num_perm: usize,
    seed: u64,
) -> PyResult<Vec<PyRensaRMinHash>> {
    let matrix = rensa_r_matrix(py, token_sets, num_perm, seed, "tokens")?;
    let hasher = Arc::new(RMinHasher::new(num_perm, seed).map_err(rensa_error)?);
    Ok(matrix
        .rows()
        .map(|row| PyRensaRMinHash {
            hasher: Arc::clone(&hasher),
            values: row.to_vec(),
        })
        .collect())
}

/// The token hashes of each document (rensa's `RMinHash.hash_token_sets`).
#[pyfunction]
pub fn rensa_hash_token_sets(token_sets: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u64>>> {
    let (flat, ranges) = corpus_hashes(token_sets, Tokens::Any)?;
    Ok(ranges.iter().map(|&(s, e)| flat[s..e].to_vec()).collect())
}

// ---------------------------------------------------------------- C-MinHash

/// A C-MinHash sketch: rensa's `CMinHash` state.
#[derive(Debug, Clone)]
#[pyclass(name = "RensaCMinHash", module = "textreuse._native")]
pub struct PyRensaCMinHash {
    hasher: Arc<CMinHasher>,
    values: Vec<u64>,
}

#[pymethods]
impl PyRensaCMinHash {
    /// An empty sketch of `num_perm` slots from `seed`.
    #[new]
    fn new(num_perm: usize, seed: u64) -> PyResult<Self> {
        let hasher = CMinHasher::new(num_perm, seed).map_err(rensa_error)?;
        let values = hasher.empty();
        Ok(PyRensaCMinHash {
            hasher: Arc::new(hasher),
            values,
        })
    }

    /// Adds the tokens of `items` (a str, a bytes-like token, or an iterable of tokens).
    fn update(slf: &Bound<'_, Self>, items: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut hashes = Vec::new();
        document_hashes(items, Tokens::Any, &mut hashes)?;
        let mut this = slf.borrow_mut();
        let this = &mut *this;
        this.hasher
            .update(&mut this.values, &hashes)
            .map_err(rensa_error)
    }

    /// The top 32 bits of each value.
    fn digest(&self) -> Vec<u32> {
        c_digest32(&self.values)
    }

    /// The 64-bit values.
    fn digest_u64(&self) -> Vec<u64> {
        self.values.clone()
    }

    /// The fraction of equal slots; ValueError for other parameters.
    fn jaccard(&self, other: PyRef<'_, Self>) -> PyResult<f64> {
        compatible(
            (self.hasher.num_perm(), self.hasher.seed()),
            (other.hasher.num_perm(), other.hasher.seed()),
        )?;
        Ok(jaccard(&self.values, &other.values))
    }

    #[getter]
    fn num_perm(&self) -> usize {
        self.hasher.num_perm()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.hasher.seed()
    }

    /// rensa's `__getstate__` bytes.
    fn state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let state = CMinHashState {
            seed: self.hasher.seed(),
            values: self.values.clone(),
        };
        PyBytes::new(py, &state.encode())
    }

    /// The sketch saved in `state` (ours or rensa 0.5's); ValueError naming the recovery.
    #[staticmethod]
    fn from_state(state: &[u8]) -> PyResult<Self> {
        let state =
            CMinHashState::decode(state).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let hasher = CMinHasher::new(state.values.len(), state.seed).map_err(rensa_error)?;
        Ok(PyRensaCMinHash {
            hasher: Arc::new(hasher),
            values: state.values,
        })
    }
}

/// C-MinHash digests of the documents of `token_sets`: 64-bit rows, or their top halves when
/// `wide` is false.
#[pyfunction]
pub fn rensa_c_digests<'py>(
    py: Python<'py>,
    token_sets: &Bound<'py, PyAny>,
    num_perm: usize,
    seed: u64,
    kind: &str,
    wide: bool,
) -> PyResult<Bound<'py, PyList>> {
    let rows = c_rows(py, token_sets, num_perm, seed, Tokens::parse(kind)?)?;
    let rows = rows.chunks_exact(num_perm);
    if wide {
        PyList::new(py, rows)
    } else {
        PyList::new(py, rows.map(c_digest32))
    }
}

fn c_rows(
    py: Python<'_>,
    token_sets: &Bound<'_, PyAny>,
    num_perm: usize,
    seed: u64,
    kind: Tokens,
) -> PyResult<Vec<u64>> {
    let hasher = CMinHasher::new(num_perm, seed).map_err(rensa_error)?;
    let (flat, ranges) = corpus_hashes(token_sets, kind)?;
    Ok(digest_rows(
        py,
        num_perm,
        &flat,
        &ranges,
        u64::MAX,
        |hashes, row| {
            hasher
                .sketch_into(hashes, row)
                .expect("a row of num_perm values");
        },
    ))
}

/// One C-MinHash sketch per document of `token_sets`, sharing one hasher.
#[pyfunction]
pub fn rensa_c_sketches(
    py: Python<'_>,
    token_sets: &Bound<'_, PyAny>,
    num_perm: usize,
    seed: u64,
) -> PyResult<Vec<PyRensaCMinHash>> {
    let rows = c_rows(py, token_sets, num_perm, seed, Tokens::Any)?;
    let hasher = Arc::new(CMinHasher::new(num_perm, seed).map_err(rensa_error)?);
    Ok(rows
        .chunks_exact(num_perm)
        .map(|row| PyRensaCMinHash {
            hasher: Arc::clone(&hasher),
            values: row.to_vec(),
        })
        .collect())
}

// ---------------------------------------------------------------- LSH

const LSH_PREFIX: &[u8] = b"textreuse.compat.rensa:RMinHashLSH:1\0";
const LSH_UNSUPPORTED: &str =
    "unsupported RMinHashLSH state version; rebuild the index from its tokens";

/// rensa's `RMinHashLSH` tables: `num_bands` bands of `num_perm / num_bands` values, over
/// [`KeyedBandTables`] (keys are ints in `0..2**64`).
#[derive(Debug)]
#[pyclass(name = "RensaBandTables", module = "textreuse._native")]
pub struct PyRensaBandTables {
    threshold: f64,
    num_perm: usize,
    tables: KeyedBandTables,
}

/// A digest's bands as the byte strings the tables key on (each value little-endian).
fn band_bytes(digest: &[u32], bands: usize) -> (Vec<u8>, usize) {
    let bytes: Vec<u8> = digest.iter().flat_map(|v| v.to_le_bytes()).collect();
    let width = bytes.len() / bands;
    (bytes, width)
}

fn bands_of(bytes: &[u8], width: usize) -> Vec<&[u8]> {
    bytes.chunks_exact(width).collect()
}

fn band_error(e: BandError) -> PyErr {
    match e {
        BandError::KeyRange { .. } => PyValueError::new_err(KEY_OVERFLOW_ERROR),
        e => PyValueError::new_err(e.to_string()),
    }
}

impl PyRensaBandTables {
    fn check_len(&self, len: usize) -> PyResult<()> {
        if len != self.num_perm {
            return Err(PyValueError::new_err(format!(
                "MinHash has {len} permutations but LSH expects {}",
                self.num_perm
            )));
        }
        Ok(())
    }

    fn insert_digest(&mut self, key: u64, digest: &[u32]) -> PyResult<()> {
        self.check_len(digest.len())?;
        let (bytes, width) = band_bytes(digest, self.tables.tables());
        self.tables
            .insert(key, &bands_of(&bytes, width))
            .map_err(band_error)
    }

    fn query_digest(&self, digest: &[u32]) -> PyResult<Vec<u64>> {
        self.check_len(digest.len())?;
        let (bytes, width) = band_bytes(digest, self.tables.tables());
        Ok(self.tables.query(&bands_of(&bytes, width)))
    }

    /// The matrix's rows as band bytes, after checking its width.
    fn matrix_bands(&self, matrix: &PyRensaDigestMatrix) -> PyResult<(Vec<u8>, usize)> {
        self.check_len(matrix.num_perm)?;
        let bytes: Vec<u8> = matrix.data.iter().flat_map(|v| v.to_le_bytes()).collect();
        Ok((bytes, self.num_perm * 4 / self.tables.tables()))
    }
}

fn check_key_range(start_key: u64, rows: usize) -> PyResult<()> {
    if rows > 0 && start_key.checked_add(rows as u64 - 1).is_none() {
        return Err(PyValueError::new_err(KEY_OVERFLOW_ERROR));
    }
    Ok(())
}

#[pymethods]
impl PyRensaBandTables {
    /// Empty tables; ValueError (rensa's messages) for bad parameters.
    #[new]
    fn new(threshold: f64, num_perm: usize, num_bands: usize) -> PyResult<Self> {
        if !threshold.is_finite() || !(0.0..=1.0).contains(&threshold) {
            return Err(PyValueError::new_err(
                "threshold must be a finite value between 0.0 and 1.0",
            ));
        }
        if num_perm == 0 {
            return Err(PyValueError::new_err("num_perm must be greater than 0"));
        }
        if num_bands == 0 {
            return Err(PyValueError::new_err("num_bands must be greater than 0"));
        }
        if num_bands > num_perm {
            return Err(PyValueError::new_err(format!(
                "num_bands ({num_bands}) must be less than or equal to num_perm ({num_perm})"
            )));
        }
        if !num_perm.is_multiple_of(num_bands) {
            return Err(PyValueError::new_err(format!(
                "num_perm ({num_perm}) must be divisible by num_bands ({num_bands})"
            )));
        }
        Ok(PyRensaBandTables {
            threshold,
            num_perm,
            tables: KeyedBandTables::new(num_bands),
        })
    }

    #[getter]
    fn threshold(&self) -> f64 {
        self.threshold
    }

    #[getter]
    fn num_perm(&self) -> usize {
        self.num_perm
    }

    #[getter]
    fn num_bands(&self) -> usize {
        self.tables.tables()
    }

    fn __len__(&self) -> usize {
        self.tables.len()
    }

    /// Indexes `sketch` under `key`, replacing what `key` had.
    fn insert(&mut self, key: u64, sketch: PyRef<'_, PyRensaRMinHash>) -> PyResult<()> {
        self.insert_digest(key, &sketch.values)
    }

    /// Indexes `sketches` (an iterable) under `start_key`, `start_key + 1`, ...; stops at the
    /// first error, keeping what was inserted before it.
    #[pyo3(signature = (sketches, start_key=0))]
    fn insert_many(&mut self, sketches: &Bound<'_, PyAny>, start_key: u64) -> PyResult<()> {
        for (offset, item) in sketches.try_iter()?.enumerate() {
            let item = item?;
            let sketch = item.extract::<PyRef<'_, PyRensaRMinHash>>()?;
            let key = start_key
                .checked_add(offset as u64)
                .ok_or_else(|| PyValueError::new_err(KEY_OVERFLOW_ERROR))?;
            self.insert_digest(key, &sketch.values)?;
        }
        Ok(())
    }

    /// Indexes the rows of `matrix` under `start_key`, `start_key + 1`, ... (checked first).
    #[pyo3(signature = (matrix, start_key=0))]
    fn insert_matrix(
        &mut self,
        matrix: PyRef<'_, PyRensaDigestMatrix>,
        start_key: u64,
    ) -> PyResult<()> {
        let (bytes, width) = self.matrix_bands(&matrix)?;
        let rows = matrix.__len__();
        check_key_range(start_key, rows)?;
        for (offset, row) in bytes.chunks_exact(self.num_perm * 4).enumerate() {
            self.tables
                .insert(start_key + offset as u64, &bands_of(row, width))
                .map_err(band_error)?;
        }
        Ok(())
    }

    /// [`insert_matrix`](Self::insert_matrix), flagging rows that share a bucket with another
    /// key (rensa's `insert_matrix_and_query_duplicate_flags`).
    #[pyo3(signature = (matrix, start_key=0))]
    fn insert_matrix_flagged(
        &mut self,
        matrix: PyRef<'_, PyRensaDigestMatrix>,
        start_key: u64,
    ) -> PyResult<Vec<bool>> {
        let (bytes, width) = self.matrix_bands(&matrix)?;
        check_key_range(start_key, matrix.__len__())?;
        let rows: Vec<Vec<&[u8]>> = bytes
            .chunks_exact(self.num_perm * 4)
            .map(|row| bands_of(row, width))
            .collect();
        self.tables
            .insert_flagged(start_key, &rows)
            .map_err(band_error)
    }

    /// Removes `key`; False if it was not there.
    fn remove(&mut self, key: u64) -> bool {
        self.tables.remove(key)
    }

    /// The keys sharing a band with `sketch`, in the order first met.
    fn query(&self, sketch: PyRef<'_, PyRensaRMinHash>) -> PyResult<Vec<u64>> {
        self.query_digest(&sketch.values)
    }

    /// For each row of `matrix`: more than one key shares a band with it.
    fn matrix_flags(&self, matrix: PyRef<'_, PyRensaDigestMatrix>) -> PyResult<Vec<bool>> {
        self.check_len(matrix.num_perm)?;
        matrix
            .rows()
            .map(|row| Ok(self.query_digest(row)?.len() > 1))
            .collect()
    }

    /// For each row of `matrix`: a band of it is in the tables or in another row (the tables
    /// are not changed).
    fn one_shot_flags(&self, matrix: PyRef<'_, PyRensaDigestMatrix>) -> PyResult<Vec<bool>> {
        let (bytes, width) = self.matrix_bands(&matrix)?;
        let rows: Vec<Vec<&[u8]>> = bytes
            .chunks_exact(self.num_perm * 4)
            .map(|row| bands_of(row, width))
            .collect();
        Ok(self.tables.duplicate_flags(&rows))
    }

    /// The tables as bytes: a prefix, the parameters, then each key with its digest in
    /// insertion order (what `from_state` rebuilds, bucket order included).
    fn state<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let entries = self.tables.entries();
        let mut out =
            Vec::with_capacity(LSH_PREFIX.len() + 32 + entries.len() * (8 + 4 * self.num_perm));
        out.extend_from_slice(LSH_PREFIX);
        out.extend_from_slice(&self.threshold.to_le_bytes());
        out.extend_from_slice(&(self.num_perm as u64).to_le_bytes());
        out.extend_from_slice(&(self.tables.tables() as u64).to_le_bytes());
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (key, bands) in entries {
            out.extend_from_slice(&key.to_le_bytes());
            for band in bands {
                out.extend_from_slice(band);
            }
        }
        PyBytes::new(py, &out)
    }

    /// The tables saved by `state`; ValueError (naming the recovery) for anything else.
    #[staticmethod]
    fn from_state(state: &[u8]) -> PyResult<Self> {
        let Some(body) = state.strip_prefix(LSH_PREFIX) else {
            return Err(PyValueError::new_err(LSH_UNSUPPORTED));
        };
        let damaged = |what: &str| {
            PyValueError::new_err(format!(
                "damaged RMinHashLSH state ({what}); rebuild the index from its tokens"
            ))
        };
        let word = |i: usize| -> PyResult<[u8; 8]> {
            body.get(8 * i..8 * i + 8)
                .map(|b| b.try_into().expect("8 bytes"))
                .ok_or_else(|| damaged("cut short"))
        };
        let threshold = f64::from_le_bytes(word(0)?);
        let num_perm =
            usize::try_from(u64::from_le_bytes(word(1)?)).map_err(|_| damaged("num_perm"))?;
        let num_bands =
            usize::try_from(u64::from_le_bytes(word(2)?)).map_err(|_| damaged("num_bands"))?;
        let count = u64::from_le_bytes(word(3)?);
        let mut tables = PyRensaBandTables::new(threshold, num_perm, num_bands)?;
        let entry = 8 + 4 * num_perm;
        let entries = &body[32..];
        if entries.len() as u64 != count.saturating_mul(entry as u64) {
            return Err(damaged("length"));
        }
        let width = 4 * num_perm / num_bands;
        for e in entries.chunks_exact(entry) {
            let key = u64::from_le_bytes(e[..8].try_into().expect("8 bytes"));
            tables
                .tables
                .insert(key, &bands_of(&e[8..], width))
                .map_err(band_error)?;
        }
        Ok(tables)
    }
}
