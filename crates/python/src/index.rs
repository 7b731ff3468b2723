//! `textreuse.LSHIndex`: the persistent MinHash LSH index of `textreuse-index`, in the words
//! datasketch's `MinHashLSH` users know (`insert`, `query`, `remove`, `in`, `len`).
//!
//! One [`IndexWriter`] per object, behind a mutex that is only ever taken with the GIL released
//! (so a thread waiting for it never blocks another that holds it). Batch calls sign texts on
//! all cores (rayon, one [`textreuse_index::Recipe`] per thread) and then add or query them in
//! order on the calling thread: the writer itself is single-threaded.
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyKeyError, PyOSError, PyRuntimeError, PyTypeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString, PyTuple, PyType};
use rayon::prelude::*;
use textreuse_corpus::{DocId, Document};
use textreuse_index::{
    DocumentQuery, Error, IndexUnit, IndexWriter, Match, MemoryPlan, Params, Query, QueryOptions,
    SignedUnit,
};
use textreuse_minhash::BandScheme;

use crate::numpy::{signature, type_name, u64_buffer};
use crate::signer::{PySigner, Texts, is_pyarrow, seed_u64};

create_exception!(
    textreuse,
    IndexLockedError,
    PyRuntimeError,
    "Another writer (an LSHIndex, in this process or another, or `textreuse index`) has the \
     index open: one writer at a time. Its lock is released when that LSHIndex is garbage \
     collected or its process exits, however it exits."
);

/// Items signed or queried together by the batch methods: enough to keep every core busy, few
/// enough that their signatures take little memory.
const CHUNK: usize = 4096;

/// The format of `__getstate__`'s tuple.
const STATE_VERSION: u32 = 1;

/// The file of a writer's lock, which a pickled state leaves out.
const LOCK_FILE: &str = "LOCK";

/// `textreuse.MissingKeyError(KeyError, ValueError)`: a key that is not in the index (a
/// subclass of both, since Python callers catch KeyError and datasketch's callers ValueError).
static MISSING_KEY: pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>> = pyo3::sync::PyOnceLock::new();

pub(crate) fn missing_key_error(py: Python<'_>) -> PyResult<&Bound<'_, pyo3::types::PyType>> {
    Ok(MISSING_KEY
        .get_or_try_init(py, || -> PyResult<_> {
            let namespace = pyo3::types::PyDict::new(py);
            namespace.set_item("__module__", "textreuse")?;
            namespace.set_item(
                "__doc__",
                "A key that is not in the index: both a KeyError and a ValueError \
                 (datasketch's MinHashLSH.remove raises ValueError).",
            )?;
            let bases = (
                py.get_type::<PyKeyError>(),
                py.get_type::<pyo3::exceptions::PyValueError>(),
            );
            let made = py.get_type::<pyo3::types::PyType>().call1((
                "MissingKeyError",
                bases,
                namespace,
            ))?;
            Ok(made.cast_into::<pyo3::types::PyType>()?.unbind())
        })?
        .bind(py))
}

/// The index's error as the Python exception a caller expects, with the Rust message.
fn index_error(e: Error) -> PyErr {
    let message = e.to_string();
    match e {
        Error::Locked { .. } => IndexLockedError::new_err(message),
        Error::NotAnIndex(_) => PyFileNotFoundError::new_err(message),
        // Something is there that a new index must not replace: an index, or files without a
        // MANIFEST (perhaps the segments of an index that lost it).
        Error::Exists(_) | Error::NotEmpty { .. } => PyFileExistsError::new_err(message),
        // OSError(errno, message) becomes the errno's subclass (PermissionError, ...).
        // OSError(errno, strerror, filename), as Python's own: "[Errno 2] No such file or
        // directory: 'path'".
        Error::Io { source, path } => match source.raw_os_error() {
            Some(errno) => {
                let text = source.to_string();
                let strerror = text
                    .strip_suffix(&format!(" (os error {errno})"))
                    .unwrap_or(&text)
                    .to_string();
                PyOSError::new_err((errno, strerror, path.display().to_string()))
            }
            None => PyOSError::new_err(message),
        },
        Error::LockLost { .. } | Error::Conflict { .. } => IndexLockedError::new_err(message),
        Error::Corrupt { .. }
        | Error::Missing { .. }
        | Error::OldFormat { .. }
        | Error::Params(_)
        | Error::SignatureLength { .. }
        | Error::NoText(_)
        | Error::Threshold(_)
        | Error::TooLarge(_)
        | Error::MemoryTooSmall { .. }
        | Error::BatchTooLarge { .. }
        | Error::MergeTooLarge { .. }
        | Error::QueryMemoryTooSmall { .. } => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// [`IndexStats`](textreuse_index::IndexStats) as the dict `LSHIndex.stats()` returns.
fn stats_dict<'py>(
    py: Python<'py>,
    s: &textreuse_index::IndexStats,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("documents", s.documents)?;
    d.set_item("entries", s.entries)?;
    d.set_item("removed_documents", s.removed_documents)?;
    d.set_item("segments", s.segments)?;
    d.set_item("bytes", s.bytes)?;
    d.set_item("band_key_records", s.band_key_records)?;
    d.set_item("generation", s.generation)?;
    d.set_item("uncommitted_documents", s.uncommitted_documents)?;
    Ok(d)
}

fn io_error(path: &Path, e: std::io::Error) -> PyErr {
    index_error(Error::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// Why a Python object is not a key.
enum BadKey {
    Type(String),
    Range(i128),
}

impl BadKey {
    fn into_err(self, what: &str) -> PyErr {
        match self {
            BadKey::Type(t) => {
                PyTypeError::new_err(format!("{what}: keys are int or str, not {t}"))
            }
            BadKey::Range(i) => PyValueError::new_err(format!(
                "{what}: {i} is out of range (integer keys are in -2**63..2**64)"
            )),
        }
    }
}

/// The document id of a key: an int in `-2**63..2**64` (the range of `DocId`s the other front
/// ends read) or a str. `bool` is refused: `True` would come back as `1`.
fn doc_id(key: &Bound<'_, PyAny>) -> Result<DocId, BadKey> {
    if let Ok(s) = key.cast::<PyString>() {
        return s
            .to_str()
            .map(DocId::from)
            .map_err(|_| BadKey::Type("str with lone surrogates".into()));
    }
    if !key.is_instance_of::<PyBool>()
        && let Ok(i) = key.extract::<i128>()
    {
        return if (-(1i128 << 63)..1i128 << 64).contains(&i) {
            Ok(DocId::Int(i))
        } else {
            Err(BadKey::Range(i))
        };
    }
    Err(BadKey::Type(type_name(key)))
}

/// The keys of a batch: a list, tuple or other iterable of int / str, or a pyarrow array.
fn doc_ids(keys: &Bound<'_, PyAny>) -> PyResult<Vec<DocId>> {
    if keys.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "keys: expected a list of keys, not one str",
        ));
    }
    let keys = if is_pyarrow(keys)? {
        keys.call_method0("to_pylist")?
    } else {
        keys.clone()
    };
    keys.try_iter()?
        .enumerate()
        .map(|(i, k)| doc_id(&k?).map_err(|e| e.into_err(&format!("keys[{i}]"))))
        .collect()
}

/// A key as Python gets it back: an int or a str.
fn key_object<'py>(py: Python<'py>, id: &DocId) -> PyResult<Bound<'py, PyAny>> {
    Ok(match id {
        DocId::Int(i) => i.into_pyobject(py)?.into_any(),
        DocId::Str(s) => PyString::new(py, s).into_any(),
    })
}

/// A key in an error message, as Python would show it.
fn shown(id: &DocId) -> String {
    match id {
        DocId::Int(i) => i.to_string(),
        DocId::Str(s) => format!("{s:?}"),
    }
}

/// A ValueError unless no document has one of `ids`.
fn absent(writer: &mut IndexWriter, ids: &[DocId]) -> PyResult<()> {
    for id in ids {
        if writer.contains(id).map_err(index_error)? {
            return Err(PyValueError::new_err(format!(
                "key {} is already in the index (remove it first)",
                shown(id)
            )));
        }
    }
    Ok(())
}

/// What a query or insert is given: a text, or a signature.
enum Value<'a> {
    Text(&'a str),
    Signature(Vec<u64>),
}

fn value<'a>(v: &'a Bound<'_, PyAny>) -> PyResult<Value<'a>> {
    match v.cast::<PyString>() {
        Ok(s) => Ok(Value::Text(s.to_str()?)),
        Err(_) => Ok(Value::Signature(signature(v, "value")?)),
    }
}

/// The values of a batch call: texts, or signatures (`cols` minhashes each, flat).
enum Values<'py> {
    Texts(Texts<'py>),
    Signatures { flat: Vec<u64>, cols: usize },
}

/// A list (tuple, iterable) of str, a pyarrow string array, a 2-D uint64 array of signatures
/// (one row per item) or a list of signatures.
fn values<'py>(values: &Bound<'py, PyAny>) -> PyResult<Values<'py>> {
    if values.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "values: expected a list of values, not one str",
        ));
    }
    if let Some(buf) = u64_buffer(values) {
        if buf.dimensions() != 2 {
            return Err(PyValueError::new_err(format!(
                "values: signatures are a 2-D uint64 array with one row per item, got shape {:?}",
                buf.shape()
            )));
        }
        let cols = buf.shape()[1];
        return Ok(Values::Signatures {
            flat: buf.to_vec(values.py())?,
            cols,
        });
    }
    if is_pyarrow(values)? {
        return Ok(Values::Texts(Texts::arrow(values, "values")?));
    }
    let items = values.try_iter()?.collect::<PyResult<Vec<_>>>()?;
    if items.is_empty() || items.iter().any(|v| v.is_instance_of::<PyString>()) {
        return Ok(Values::Texts(Texts::from_items(items, "values")?));
    }
    let mut flat = Vec::new();
    let mut cols = None;
    for (i, item) in items.iter().enumerate() {
        let what = format!("values[{i}]");
        let sig = signature(item, &what)?;
        if *cols.get_or_insert(sig.len()) != sig.len() {
            return Err(PyValueError::new_err(format!(
                "{what} has {} minhashes, values[0] {}",
                sig.len(),
                cols.unwrap_or_default()
            )));
        }
        flat.extend_from_slice(&sig);
    }
    Ok(Values::Signatures {
        flat,
        cols: cols.unwrap_or_default(),
    })
}

/// Every unit's matches as `(key, score)`, best first (ties: the document added first), each
/// key once with its best score.
fn rank(matches: Vec<Match>) -> Vec<(DocId, f64)> {
    let mut all: Vec<(f64, u64, u64, DocId)> = matches
        .into_iter()
        .map(|m| {
            let score = m.jaccard.unwrap_or(m.estimated_jaccard);
            (score, m.doc, m.entry, m.id)
        })
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut seen = HashSet::with_capacity(all.len());
    all.into_iter()
        .filter(|m| seen.insert(m.3.clone()))
        .map(|(score, _, _, id)| (id, score))
        .collect()
}

/// `(key, score)` tuples as a Python list.
fn scored<'py>(py: Python<'py>, found: &[(DocId, f64)]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(
        py,
        found
            .iter()
            .map(|(id, score)| (key_object(py, id)?, *score).into_pyobject(py))
            .collect::<PyResult<Vec<_>>>()?,
    )
}

/// The matches of a text's units, or of a signature.
fn matches(
    writer: &mut IndexWriter,
    value: &Value<'_>,
    options: &QueryOptions,
) -> Result<Vec<Match>, Error> {
    match value {
        Value::Text(t) => Ok(writer
            .query_text(t, options)?
            .into_iter()
            .flat_map(|u| u.matches)
            .collect()),
        Value::Signature(mins) => writer.query_signature(mins, options),
    }
}

/// The units of `texts`, signed on all threads with the index's recipe (none for a null).
fn sign_all(writer: &IndexWriter, texts: &[Option<&str>]) -> Vec<Vec<SignedUnit>> {
    let index = writer.index();
    texts
        .par_iter()
        .map_init(
            || index.recipe(),
            |recipe, t| t.map_or_else(Vec::new, |t| recipe.units(t)),
        )
        .collect()
}

/// The constructor's parameters; `None` where not given.
#[derive(Clone, Debug, Default)]
struct Requested {
    threshold: Option<f64>,
    unit: Option<IndexUnit>,
    num_perm: Option<usize>,
    rows: Option<usize>,
    bands: Option<usize>,
    scheme: Option<String>,
    seed: Option<u64>,
    shingle: Option<usize>,
    min_shingles: Option<usize>,
    signature_bytes: Option<u8>,
    store_text: Option<bool>,
}

impl Requested {
    /// `base` with the given parameters applied as `textreuse index create` applies its flags:
    /// a scheme brings its preset rows and bands; the threshold picks the cheapest scheme (or
    /// the one given), rows and bands that find 99% of the pairs at or above it (`num_perm` is
    /// N of drawn bands and the budget of disjoint ones; explicit rows or bands win); disjoint
    /// and OPH bands use `rows * bands` hashes unless `num_perm` says otherwise.
    fn apply(&self, mut p: Params) -> Result<Params, Error> {
        if let Some(s) = &self.scheme {
            let scheme: BandScheme = s.parse().map_err(Error::Params)?;
            p = p.preset(scheme);
        }
        if let Some(n) = self.num_perm {
            p.hashes = n;
        }
        if let Some(s) = self.seed {
            p.seed = s;
        }
        if let Some(n) = self.shingle {
            p.shingle = n;
        }
        if let Some(n) = self.min_shingles {
            p.min_shingles = n;
            p.min_words = n;
        }
        if let Some(b) = self.signature_bytes {
            p.signature_bytes = b;
        }
        if let Some(t) = self.store_text {
            p.store_text = t;
        }
        if let Some(t) = self.threshold
            && self.rows.is_none()
            && self.bands.is_none()
        {
            let mut target = p.target(t);
            if self.scheme.is_some() {
                target.schemes = vec![p.scheme];
            }
            if let Some(n) = self.num_perm {
                target.hashes = n;
                target.max_hashes = n;
            }
            p = p.plan(&target).map_err(|e| match (e, self.num_perm) {
                // A datasketch user's fixed signature length: say where datasketch's semantics
                // (weighted error areas, no recall guarantee) are.
                (Error::Params(message), Some(n)) => Error::Params(format!(
                    "{message}; with num_perm={n}, pass rows and bands, or use \
                     textreuse.compat.datasketch.MinHashLSH for datasketch's choice of bands \
                     (least weighted false-positive and false-negative areas)"
                )),
                (e, _) => e,
            })?;
        }
        if let Some(k) = self.rows {
            p.rows = k;
        }
        if let Some(m) = self.bands {
            p.bands = m;
        }
        if p.scheme != textreuse_minhash::BandScheme::Drawn && self.num_perm.is_none() {
            p.hashes = p.rows * p.bands;
        }
        // An OPH index's signatures have rows * bands values: never switch a user who said how
        // long theirs are to another length without a word.
        if let Some(n) = self.num_perm
            && p.scheme == textreuse_minhash::BandScheme::Oph
            && p.rows * p.bands != n
        {
            return Err(Error::Params(format!(
                "num_perm={n} asks for signatures of {n} values, but {} an OPH index of {} \
                 bins ({} bands of {} rows); pass scheme='disjoint' (or 'drawn') with the \
                 threshold, or rows and bands whose product is {n}; for datasketch's own \
                 MinHash objects and its choice of bands, use \
                 textreuse.compat.datasketch.MinHashLSH",
                if self.threshold.is_some() {
                    "the threshold's cheapest plan is"
                } else {
                    "the default is"
                },
                p.rows * p.bands,
                p.bands,
                p.rows
            )));
        }
        Ok(p)
    }

    /// Checks the parameters given for an existing index against its own.
    fn check(&self, path: &Path, stored: &Params) -> PyResult<()> {
        let wanted = self.apply(stored.clone()).map_err(index_error)?;
        let mut diffs = Vec::new();
        if let Some(u) = self.unit
            && u != stored.unit
        {
            diffs.push(format!(
                "unit={:?} (given {:?})",
                stored.unit.as_str(),
                u.as_str()
            ));
        }
        macro_rules! compare {
            ($($field:ident = $name:literal),*) => {$(
                if wanted.$field != stored.$field {
                    diffs.push(format!(
                        "{}={:?} (given {:?})", $name, stored.$field, wanted.$field
                    ));
                }
            )*};
        }
        compare!(
            hashes = "num_perm",
            rows = "rows",
            bands = "bands",
            scheme = "scheme",
            seed = "seed",
            shingle = "shingle",
            signature_bytes = "signature_bytes",
            store_text = "store_text"
        );
        // `min_shingles` sets the smallest chunk in words for chunk indexes.
        if stored.unit == IndexUnit::Chunk {
            compare!(min_words = "min_shingles");
        } else {
            compare!(min_shingles = "min_shingles");
        }
        if diffs.is_empty() && wanted != *stored {
            diffs.push("other parameters".into());
        }
        if diffs.is_empty() {
            return Ok(());
        }
        Err(PyValueError::new_err(format!(
            "{}: the index there has {}; open it without parameters to use its own",
            path.display(),
            diffs.join(", ")
        )))
    }
}

/// An open index: its writer, its directory, and the temporary directory it lives in when the
/// object owns one. Fields drop in order: the writer (and its lock) before the directory.
struct State {
    writer: IndexWriter,
    path: PathBuf,
    temp: Option<tempfile::TempDir>,
}

fn temp_dir() -> PyResult<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("textreuse-lsh-")
        .tempdir()
        .map_err(|e| io_error(&std::env::temp_dir(), e))
}

impl State {
    /// A new index in a new temporary directory.
    fn temporary(params: Params) -> PyResult<State> {
        let temp = temp_dir()?;
        let writer = IndexWriter::create(temp.path(), params).map_err(index_error)?;
        Ok(State {
            writer,
            path: temp.path().to_path_buf(),
            temp: Some(temp),
        })
    }

    /// The committed files (all but the lock), by name.
    fn files(&self) -> PyResult<Vec<(String, Vec<u8>)>> {
        let dir = &self.path;
        let mut files = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| io_error(dir, e))? {
            let entry = entry.map_err(|e| io_error(dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if name == LOCK_FILE || !path.is_file() {
                continue;
            }
            files.push((name, fs::read(&path).map_err(|e| io_error(&path, e))?));
        }
        files.sort();
        Ok(files)
    }
}

/// The `(version, temporary, [(name, bytes)])` tuple of `__getstate__`, as a new index in a
/// temporary directory.
fn restore(py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<State> {
    type Files<'py> = Vec<(String, Bound<'py, PyBytes>)>;
    let (version, _temporary, files): (u32, bool, Files<'_>) = state.extract().map_err(|_| {
        PyValueError::new_err("not the state of an LSHIndex: expected (1, bool, [(name, bytes)])")
    })?;
    if version != STATE_VERSION {
        return Err(PyValueError::new_err(format!(
            "the state of an LSHIndex of format {version}; this version reads {STATE_VERSION}"
        )));
    }
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| {
            let plain = Path::new(name)
                .file_name()
                .is_some_and(|f| f == name.as_str());
            if !plain || name == LOCK_FILE {
                return Err(PyValueError::new_err(format!(
                    "the state of an LSHIndex names a file {name:?}"
                )));
            }
            Ok((name.as_str(), bytes.as_bytes()))
        })
        .collect::<PyResult<_>>()?;
    py.detach(|| {
        let temp = temp_dir()?;
        for (name, bytes) in &files {
            let path = temp.path().join(name);
            fs::write(&path, bytes).map_err(|e| io_error(&path, e))?;
        }
        let writer = IndexWriter::open(temp.path()).map_err(index_error)?;
        Ok(State {
            writer,
            path: temp.path().to_path_buf(),
            temp: Some(temp),
        })
    })
}

fn count(name: &str, value: Option<i64>) -> PyResult<Option<usize>> {
    value
        .map(|v| {
            usize::try_from(v)
                .map_err(|_| PyValueError::new_err(format!("{name} must not be negative, got {v}")))
        })
        .transpose()
}

/// A persistent, incremental MinHash LSH index: insert texts or signatures under keys, query
/// for the keys of near-duplicates, remove, and keep it on disk.
///
/// LSHIndex(path=None, *, threshold=None, unit=None, num_perm=None, rows=None, bands=None,
///          scheme=None, seed=None, shingle=None, min_shingles=None, signature_bytes=None,
///          store_text=None, max_memory=None)
///
/// With path=None the index lives in a temporary directory owned by the object and removed
/// when it is garbage collected. With a path holding an index, that index is opened for
/// writing (parameters must then be left out or equal its own, else ValueError); a missing or
/// empty directory gets a new index. A directory that holds files but no index (no MANIFEST,
/// as an index whose MANIFEST was lost) is refused with FileExistsError, its files untouched:
/// restore the MANIFEST, or use an empty or new directory. LSHIndex.open(path) opens an existing
/// index only.
///
/// Parameters (fixed when the index is created; None: the defaults of `textreuse index
/// create`): `threshold` picks the cheapest scheme (or the `scheme` given), rows and bands that
/// find 99% of pairs at or above it, like `textreuse dedup --threshold` (textreuse.plan;
/// explicit rows/bands win); `unit` is "document" (one item per key, as in datasketch; the
/// default), "sentence", "paragraph" or "chunk"; `num_perm` is N, the number of hash functions
/// (for disjoint bands the budget rows * bands <= N of a threshold's plan); `scheme` "drawn"
/// (bands drawn from the N functions: the Weissman preset, the default for sentences),
/// "disjoint" (N = rows * bands unless num_perm is given) or "oph" (one hash per shingle into
/// rows * bands bins: the default for documents and paragraphs); `shingle` the shingle length,
/// `min_shingles` the smallest unit indexed; `signature_bytes` (1, 2, 4 or 8) what is kept of
/// each minhash for the similarity estimates; `store_text` (default True) keeps the texts for
/// verify=True.
///
/// `max_memory` (bytes; default None: no bound) bounds the writer's peak resident memory as
/// `textreuse index add --max-memory` does: the uncommitted batch (committed when it fills
/// its share), merges (put off when their tables do not fit; compact() then raises
/// ValueError naming the bound it needs) and the pages of segments read whole get shares of
/// it. Below the minimum (80 MiB) it is a ValueError naming the minimum, raised before
/// anything is added. Answers are the same at any bound.
///
/// Keys are int (-2**63..2**64) or str. A value is a text (signed by the index itself: its
/// units, normalized, shingled and signed exactly as `textreuse dedup` does) or a signature of
/// N minhashes (a numpy uint64 array from `index.signer.sign(...)`, a sequence of ints, or an
/// object with `hashvalues`). Changes are durable after commit(); an index collected without
/// commit() is at its last commit. Pickling commits and carries the whole index.
///
/// Beyond datasketch's MinHashLSH: query_top_k(value, k) ranks the k nearest keys even below
/// the threshold (MinHashLSHForest), and query_containment(value, threshold) finds the
/// documents that contain most of a text (MinHashLSHEnsemble).
///
/// >>> index = LSHIndex(threshold=0.8)
/// >>> index.insert("mill", "The old mill on the river was built in 1820 and still grinds grain.")
/// 1
/// >>> index.insert(7, "Bees collect nectar and pollen from flowers and carry it from plant to plant.")
/// 1
/// >>> index.query("The old mill on the river was built in 1820 and still grinds grain!")
/// ['mill']
/// >>> "mill" in index, len(index)
/// (True, 2)
/// >>> index.remove("mill")
/// >>> index.query_batch(["The old mill on the river was built in 1820 and still grinds grain."])
/// [[]]
#[pyclass(name = "LSHIndex", module = "textreuse", frozen)]
pub(crate) struct PyLSHIndex {
    state: Mutex<State>,
}

impl PyLSHIndex {
    /// Runs `f` on the state with the GIL released (the lock is taken only then).
    fn with<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut State) -> PyResult<R> + Send,
    ) -> PyResult<R> {
        py.detach(|| {
            let mut state = self.state.lock().map_err(|_| {
                PyRuntimeError::new_err("the index is unusable: an earlier call panicked")
            })?;
            f(&mut state)
        })
    }

    /// The answer of a top-k or containment query as `(key, score)`: the exact value when
    /// verified, else the estimate.
    fn documents(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        question: DocumentQuery,
        verify: bool,
    ) -> PyResult<Vec<(DocId, f64)>> {
        let value = self::value(value)?;
        if verify && matches!(value, Value::Signature(_)) {
            return Err(PyValueError::new_err(
                "verify=True needs a text: a signature has no shingles to compare",
            ));
        }
        question.check().map_err(index_error)?;
        let options = QueryOptions::new().verify(verify);
        self.with(py, |st| {
            let query = match &value {
                Value::Text(t) => Query::Text(t),
                Value::Signature(mins) => Query::Signature(mins),
            };
            let found = st
                .writer
                .query_documents(query, question, &options)
                .map_err(index_error)?;
            Ok(found
                .into_iter()
                .map(|m| {
                    let score = match question {
                        DocumentQuery::Containment(_) => m
                            .containment
                            .or(m.estimated_containment)
                            .unwrap_or_default(),
                        _ => m.jaccard.unwrap_or(m.estimated_jaccard),
                    };
                    (m.id, score)
                })
                .collect())
        })
    }

    fn ranked(
        &self,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        options: &QueryOptions,
    ) -> PyResult<Vec<(DocId, f64)>> {
        let value = self::value(value)?;
        if options.verify && matches!(value, Value::Signature(_)) {
            return Err(PyValueError::new_err(
                "verify=True needs a text: a signature has no shingles to compare",
            ));
        }
        self.with(py, |st| {
            let found = matches(&mut st.writer, &value, options).map_err(index_error)?;
            Ok(rank(found))
        })
    }
}

#[pymethods]
impl PyLSHIndex {
    #[new]
    #[pyo3(signature = (path=None, *, threshold=None, unit=None, num_perm=None, rows=None,
        bands=None, scheme=None, seed=None, shingle=None, min_shingles=None,
        signature_bytes=None, store_text=None, max_memory=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        threshold: Option<f64>,
        unit: Option<&str>,
        num_perm: Option<i64>,
        rows: Option<i64>,
        bands: Option<i64>,
        scheme: Option<String>,
        seed: Option<i128>,
        shingle: Option<i64>,
        min_shingles: Option<i64>,
        signature_bytes: Option<i64>,
        store_text: Option<bool>,
        max_memory: Option<u64>,
    ) -> PyResult<PyLSHIndex> {
        let unit = unit
            .map(|u| {
                IndexUnit::parse(u).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unit must be \"document\", \"sentence\", \"paragraph\" or \"chunk\", \
                         got {u:?}"
                    ))
                })
            })
            .transpose()?;
        let req = Requested {
            threshold,
            unit,
            num_perm: count("num_perm", num_perm)?,
            rows: count("rows", rows)?,
            bands: count("bands", bands)?,
            scheme,
            seed: seed.map(seed_u64).transpose()?,
            shingle: count("shingle", shingle)?,
            min_shingles: count("min_shingles", min_shingles)?,
            signature_bytes: signature_bytes
                .map(|b| {
                    u8::try_from(b).map_err(|_| {
                        PyValueError::new_err(format!(
                            "signature_bytes must be 1, 2, 4 or 8, got {b}"
                        ))
                    })
                })
                .transpose()?,
            store_text,
        };
        let new_params = || {
            req.apply(Params::new(unit.unwrap_or(IndexUnit::Document)))
                .map_err(index_error)
        };
        // A bound too small is refused before the index is created or opened.
        if let Some(bytes) = max_memory {
            MemoryPlan::bounded(bytes, None).map_err(index_error)?;
        }
        let mut state = py.detach(|| match path {
            None => State::temporary(new_params()?),
            Some(path) => {
                let writer = match IndexWriter::open(&path) {
                    Ok(w) => {
                        req.check(&path, w.params())?;
                        w
                    }
                    Err(Error::NotAnIndex(_)) => {
                        IndexWriter::create(&path, new_params()?).map_err(index_error)?
                    }
                    Err(e) => return Err(index_error(e)),
                };
                Ok(State {
                    writer,
                    path,
                    temp: None,
                })
            }
        })?;
        if let Some(bytes) = max_memory {
            state.writer.max_memory(bytes).map_err(index_error)?;
        }
        Ok(PyLSHIndex {
            state: Mutex::new(state),
        })
    }

    /// open(path, *, max_memory=None) -> LSHIndex
    ///
    /// Opens the index in `path` for writing (FileNotFoundError if there is none;
    /// IndexLockedError while another writer has it), under `max_memory` bytes as LSHIndex()
    /// takes it.
    #[classmethod]
    #[pyo3(signature = (path, *, max_memory=None))]
    fn open(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: PathBuf,
        max_memory: Option<u64>,
    ) -> PyResult<PyLSHIndex> {
        if let Some(bytes) = max_memory {
            MemoryPlan::bounded(bytes, None).map_err(index_error)?;
        }
        let mut writer = py
            .detach(|| IndexWriter::open(&path))
            .map_err(index_error)?;
        if let Some(bytes) = max_memory {
            writer.max_memory(bytes).map_err(index_error)?;
        }
        Ok(PyLSHIndex {
            state: Mutex::new(State {
                writer,
                path,
                temp: None,
            }),
        })
    }

    /// insert(key, value) -> int
    ///
    /// Adds `value` (a text, or a signature of N minhashes) under `key` (an int or a str) and
    /// returns the number of units indexed: for a text, its units the index keeps (0 when it
    /// is too short to sign: the key is still recorded, so `key in index`, but no query finds
    /// it); 1 for a signature. Raises ValueError if the key is already present, as datasketch
    /// does.
    fn insert(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let id = doc_id(key).map_err(|e| e.into_err("key"))?;
        let value = self::value(value)?;
        self.with(py, |st| {
            let w = &mut st.writer;
            absent(w, std::slice::from_ref(&id))?;
            match value {
                Value::Text(text) => w.add(&Document::new(id, "", text)),
                Value::Signature(mins) => w.insert_signature(id, &mins).map(|()| 1),
            }
            .map_err(index_error)
        })
    }

    /// insert_batch(keys, values) -> int
    ///
    /// insert() for many items, with the texts signed on all cores (GIL released). `keys` is a
    /// list (or iterable, or pyarrow array) of int / str; `values` a list of str, a pyarrow
    /// string / large_string Array or ChunkedArray (read in place), a 2-D numpy uint64 array of
    /// signatures (one row per item) or a list of signatures. Nothing is added if a key is
    /// already present or repeated, a text is None, or the lengths differ (ValueError).
    /// Returns the number of units indexed.
    fn insert_batch(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let ids = doc_ids(keys)?;
        let values = self::values(values)?;
        let mut seen = HashSet::with_capacity(ids.len());
        for id in &ids {
            if !seen.insert(id) {
                return Err(PyValueError::new_err(format!(
                    "keys: {} appears more than once",
                    shown(id)
                )));
            }
        }
        drop(seen);
        match values {
            Values::Texts(texts) => {
                let rows = texts.rows("values")?;
                if rows.len() != ids.len() {
                    return Err(PyValueError::new_err(format!(
                        "{} keys and {} values",
                        ids.len(),
                        rows.len()
                    )));
                }
                let texts = (0..rows.len())
                    .map(|i| match rows.get(i)? {
                        Some(t) => Ok(Some(t)),
                        None => Err(PyValueError::new_err(format!(
                            "values[{i}] is None: there is nothing to insert"
                        ))),
                    })
                    .collect::<PyResult<Vec<_>>>()?;
                self.with(py, |st| {
                    let w = &mut st.writer;
                    absent(w, &ids)?;
                    let mut units = 0;
                    for (texts, ids) in texts.chunks(CHUNK).zip(ids.chunks(CHUNK)) {
                        let signed = sign_all(w, texts);
                        for ((text, id), signed) in texts.iter().zip(ids).zip(&signed) {
                            let doc = Document::new(id.clone(), "", text.unwrap_or_default());
                            w.add_signed(&doc, signed).map_err(index_error)?;
                            units += signed.len();
                        }
                    }
                    Ok(units)
                })
            }
            Values::Signatures { flat, cols } => {
                let n = flat.len().checked_div(cols).unwrap_or(ids.len());
                if n != ids.len() {
                    return Err(PyValueError::new_err(format!(
                        "{} keys and {n} values",
                        ids.len()
                    )));
                }
                self.with(py, |st| {
                    let w = &mut st.writer;
                    let hashes = w.index().signer().hashes();
                    if cols != hashes && n > 0 {
                        return Err(index_error(Error::SignatureLength {
                            expected: hashes,
                            got: cols,
                        }));
                    }
                    absent(w, &ids)?;
                    for (id, mins) in ids.into_iter().zip(flat.chunks_exact(hashes)) {
                        w.insert_signature(id, mins).map_err(index_error)?;
                    }
                    Ok(n)
                })
            }
        }
    }

    /// query(value) -> list
    ///
    /// The keys of the documents with an entry sharing a band key with `value` (a text: any of
    /// its units; or a signature), best first (highest estimated Jaccard similarity), each key
    /// once. A text too short to sign finds nothing.
    fn query<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let found = self.ranked(py, value, &QueryOptions::new())?;
        PyList::new(
            py,
            found
                .iter()
                .map(|(id, _)| key_object(py, id))
                .collect::<PyResult<Vec<_>>>()?,
        )
    }

    /// query_scores(value, *, min_jaccard=0.0, verify=False, limit=None) -> list[tuple]
    ///
    /// query() with each key's score: `(key, jaccard)`, best first, where jaccard is the
    /// estimate from the signatures (the share of equal minhashes) or, with verify=True (texts
    /// only; the index must store texts), the exact Jaccard similarity of the shingle sets.
    /// Matches below min_jaccard are left out; at most `limit` keys are returned.
    #[pyo3(signature = (value, *, min_jaccard=0.0, verify=false, limit=None))]
    fn query_scores<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        min_jaccard: f64,
        verify: bool,
        limit: Option<usize>,
    ) -> PyResult<Bound<'py, PyList>> {
        let options = QueryOptions::new().min_jaccard(min_jaccard).verify(verify);
        let mut found = self.ranked(py, value, &options)?;
        found.truncate(limit.unwrap_or(usize::MAX));
        scored(py, &found)
    }

    /// query_top_k(value, k, verify=False) -> list[tuple]
    ///
    /// The `k` keys most similar to `value` (a text or a signature) as `(key, jaccard)`, best
    /// first, ties by the key inserted first, even when none reaches the index's threshold:
    /// what datasketch's MinHashLSHForest.query(m, k) answers. A key's score is its estimated
    /// Jaccard similarity (the share of equal minhashes) or, with verify=True (texts only; the
    /// index must store texts), the exact one, which then also orders the keys; with units
    /// (sentences, paragraphs) it is that of the key's most similar unit.
    ///
    /// Only keys sharing a band key with `value` can be found (banded LSH sees nothing else:
    /// at a Jaccard similarity s a key shares one with the probability of the index's S-curve,
    /// index.signer.exact_match_probability(s)), so fewer than `k` may come back; an index
    /// with a lower threshold sees further. k=0 returns [].
    #[pyo3(signature = (value, k, verify=false))]
    fn query_top_k<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        k: i64,
        verify: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let k = count("k", Some(k))?.unwrap_or_default();
        let found = self.documents(py, value, DocumentQuery::TopK(k), verify)?;
        scored(py, &found)
    }

    /// query_containment(value, threshold=0.9, verify=False) -> list[tuple]
    ///
    /// The keys whose documents contain at least `threshold` (0 to 1) of `value`, as `(key,
    /// containment)`, most first, ties by the key inserted first: what datasketch's
    /// MinHashLSHEnsemble answers. Containment is |Q & X| / |Q|, the share of the query's
    /// shingles that are in the document's. It is found through the index's units: the
    /// query's units (weighted by their lengths) covered by units of the document that share
    /// a band key with them, each by its containment estimated from their Jaccard similarity;
    /// with verify=True (texts only; the index must store texts) it is computed exactly over
    /// the two whole texts, and the threshold applies to that.
    ///
    /// It needs units smaller than the documents: an index of unit="sentence", "paragraph"
    /// or "chunk" finds a short text inside a long document; with unit="document" a long
    /// document is one unit, too different from a short query to share a band key. A
    /// signature is one unit of unknown size (its estimate is 2J / (1 + J)). ValueError for a
    /// threshold outside 0..1.
    #[pyo3(signature = (value, threshold=0.9, verify=false))]
    fn query_containment<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        threshold: f64,
        verify: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let question = DocumentQuery::Containment(threshold);
        let found = self.documents(py, value, question, verify)?;
        scored(py, &found)
    }

    /// query_batch(values) -> list[list]
    ///
    /// query() of many values (as insert_batch takes them), texts signed on all cores with the
    /// GIL released; [] for a None text.
    fn query_batch<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let options = QueryOptions::new();
        let found: Vec<Vec<(DocId, f64)>> = match self::values(values)? {
            Values::Texts(texts) => {
                let rows = texts.rows("values")?;
                let texts = (0..rows.len())
                    .map(|i| rows.get(i))
                    .collect::<Result<Vec<_>, _>>()?;
                self.with(py, |st| {
                    let w = &mut st.writer;
                    let mut out = Vec::with_capacity(texts.len());
                    for texts in texts.chunks(CHUNK) {
                        for units in sign_all(w, texts) {
                            let mut found = Vec::new();
                            for u in &units {
                                found.extend(
                                    w.query_signature(&u.mins, &options).map_err(index_error)?,
                                );
                            }
                            out.push(rank(found));
                        }
                    }
                    Ok(out)
                })?
            }
            Values::Signatures { flat, cols } => self.with(py, |st| {
                let w = &mut st.writer;
                let hashes = w.index().signer().hashes();
                if cols != hashes && !flat.is_empty() {
                    return Err(index_error(Error::SignatureLength {
                        expected: hashes,
                        got: cols,
                    }));
                }
                flat.chunks_exact(hashes)
                    .map(|mins| Ok(rank(w.query_signature(mins, &options)?)))
                    .collect::<Result<_, Error>>()
                    .map_err(index_error)
            })?,
        };
        let out = PyList::empty(py);
        for keys in &found {
            let keys = keys
                .iter()
                .map(|(id, _)| key_object(py, id))
                .collect::<PyResult<Vec<_>>>()?;
            out.append(PyList::new(py, keys)?)?;
        }
        Ok(out)
    }

    /// remove(key) -> None
    ///
    /// Removes the document with this key. Raises textreuse.MissingKeyError if there is none:
    /// a KeyError and a ValueError at once, so both `except KeyError` and datasketch's
    /// `except ValueError` catch it. Its space is reclaimed by compact().
    fn remove(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = doc_id(key).map_err(|e| e.into_err("key"))?;
        let removed = self.with(py, |st| st.writer.remove(&id).map_err(index_error))?;
        if removed == 0 {
            return Err(PyErr::from_type(
                missing_key_error(py)?.clone(),
                (key.clone().unbind(),),
            ));
        }
        Ok(())
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(id) = doc_id(key) else {
            return Ok(false);
        };
        self.with(py, |st| st.writer.contains(&id).map_err(index_error))
    }

    /// The number of documents (keys) held, committed or not.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |st| Ok(st.writer.len() as usize))
    }

    /// is_empty() -> bool
    ///
    /// Whether the index holds no document.
    fn is_empty(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |st| Ok(st.writer.is_empty()))
    }

    /// commit() -> None
    ///
    /// Makes every insert and remove so far durable: after it returns, reopening the path (or
    /// a crash) finds them. Until then they are visible to this object's queries only.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |st| st.writer.commit().map_err(index_error))
    }

    /// compact() -> None
    ///
    /// Commits, then merges the index's segments into one without the removed documents.
    fn compact(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |st| st.writer.compact().map_err(index_error))
    }

    /// stats() -> dict
    ///
    /// What the index holds: documents and entries (units), committed or not;
    /// removed_documents (until compact()); uncommitted_documents; and of the committed
    /// segments: segments, bytes (of the segment files), band_key_records and generation
    /// (commits so far).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.with(py, |st| Ok(st.writer.stats()))?;
        stats_dict(py, &s)
    }

    /// verify(path) -> dict
    ///
    /// Checks every file of the committed index at ``path`` (as ``textreuse index verify``):
    /// the manifest, each segment's bytes against their checksums and its sections against
    /// each other, the deletion files. Returns what the index holds (as :meth:`stats`), or
    /// raises ``ValueError`` naming the damaged file (``FileNotFoundError`` if there is no
    /// index there). Reads every byte; takes no lock, so it can run beside a writer.
    ///
    /// >>> import tempfile, textreuse
    /// >>> path = tempfile.mkdtemp() + "/idx"
    /// >>> index = textreuse.LSHIndex(path)
    /// >>> index.insert("a", "The old mill on the river still grinds grain for the bakery in the town.")
    /// >>> index.commit()
    /// >>> textreuse.LSHIndex.verify(path)["documents"]
    /// 1
    #[staticmethod]
    fn verify<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
        let s = py
            .detach(|| textreuse_index::Index::verify(&path))
            .map_err(index_error)?;
        stats_dict(py, &s)
    }

    /// The parameters the index was created with (as its MANIFEST and `textreuse index stats`
    /// name them; `hashes` is num_perm; max_shingles None for no bound).
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = self.with(py, |st| Ok(st.writer.params().clone()))?;
        let d = PyDict::new(py);
        d.set_item("unit", p.unit.as_str())?;
        d.set_item("shingle", p.shingle)?;
        d.set_item("min_shingles", p.min_shingles)?;
        d.set_item(
            "max_shingles",
            (p.max_shingles != usize::MAX).then_some(p.max_shingles),
        )?;
        d.set_item("min_words", p.min_words)?;
        d.set_item("scheme", p.scheme.as_str())?;
        d.set_item("hashes", p.hashes)?;
        d.set_item("rows", p.rows)?;
        d.set_item("bands", p.bands)?;
        d.set_item("bits", p.bits)?;
        d.set_item("seed", p.seed)?;
        d.set_item("signature_bytes", p.signature_bytes)?;
        d.set_item("store_text", p.store_text)?;
        Ok(d)
    }

    /// The textreuse.Signer of the index's parameters: `index.signer.sign(text,
    /// shingle=index.params["shingle"])` is the signature the index gives a text of one unit.
    #[getter]
    fn signer(&self, py: Python<'_>) -> PyResult<PySigner> {
        let inner = self.with(py, |st| Ok(st.writer.index().signer().clone()))?;
        Ok(PySigner { inner })
    }

    /// The index's directory (a temporary one for LSHIndex() and unpickled indexes).
    #[getter]
    fn path(&self, py: Python<'_>) -> PyResult<PathBuf> {
        self.with(py, |st| Ok(st.path.clone()))
    }

    /// Whether the index lives in a temporary directory removed with the object.
    #[getter]
    fn temporary(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |st| Ok(st.temp.is_some()))
    }

    /// `(1, temporary, [(file name, bytes), ...])`: commits, then the bytes of every file of
    /// the index directory but its lock, and whether the index lived in a temporary directory.
    fn __getstate__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let (temporary, files) = self.with(py, |st| {
            st.writer.commit().map_err(index_error)?;
            Ok((st.temp.is_some(), st.files()?))
        })?;
        let files = PyList::new(
            py,
            files
                .iter()
                .map(|(name, bytes)| (name.as_str(), PyBytes::new(py, bytes))),
        )?;
        (STATE_VERSION, temporary, files).into_pyobject(py)
    }

    /// Replaces this index by the one of a `__getstate__` tuple, written to a new temporary
    /// directory the object owns.
    fn __setstate__(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let new = restore(py, state)?;
        self.with(py, |st| {
            *st = new;
            Ok(())
        })
    }

    /// The index of a `__getstate__` tuple, in a new temporary directory.
    #[classmethod]
    fn _from_state(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        state: &Bound<'_, PyAny>,
    ) -> PyResult<PyLSHIndex> {
        Ok(PyLSHIndex {
            state: Mutex::new(restore(py, state)?),
        })
    }

    /// Pickles as `LSHIndex._from_state(self.__getstate__())`, so unpickling does not create
    /// an empty index first.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyTuple>,))> {
        let state = slf.get().__getstate__(slf.py())?;
        Ok((slf.get_type().getattr("_from_state")?, (state,)))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, |st| {
            let p = st.writer.params();
            Ok(format!(
                "<LSHIndex '{}' unit='{}' num_perm={} rows={} bands={} scheme='{}' documents={}>",
                st.path.display(),
                p.unit.as_str(),
                p.hashes,
                p.rows,
                p.bands,
                p.scheme,
                st.writer.len()
            ))
        })
    }
}
