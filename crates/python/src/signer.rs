//! `textreuse.Signer`: [`textreuse_minhash::Signer`] for Python.
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};
use rayon::prelude::*;
use textreuse_dedup::Dedup;
use textreuse_dedup::features::SignerOptions;
use textreuse_minhash::{
    BandScheme, DEFAULT_BANDS, DEFAULT_BITS, DEFAULT_ROWS, DEFAULT_SEED, Signature, Signer,
    SignerBuilder, TextSigner,
};
use textreuse_shingle::DEFAULT_SHINGLE_CHARS;
use textreuse_shingle::units::Unit;

use crate::arrow::{ColumnError, HeldArray};
use crate::numpy::{type_name, u64_array};

/// Checks a shingle length given from Python.
pub(crate) fn shingle_len(length: i64) -> PyResult<usize> {
    match usize::try_from(length) {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(PyValueError::new_err(format!(
            "the shingle length must be at least 1 character, got {length}"
        ))),
    }
}

fn count(name: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value)
        .map_err(|_| PyValueError::new_err(format!("{name} must not be negative, got {value}")))
}

pub(crate) fn parse_scheme(scheme: &str) -> PyResult<BandScheme> {
    scheme.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "scheme must be \"drawn\", \"disjoint\" or \"oph\", got {scheme:?}"
        ))
    })
}

pub(crate) fn seed_u64(seed: i128) -> PyResult<u64> {
    u64::try_from(seed)
        .map_err(|_| PyValueError::new_err(format!("seed must be in 0..2**64, got {seed}")))
}

/// Rows of a batch: a Python sequence of `str` (or `None`) or an Arrow string column.
pub(crate) enum Rows<'a> {
    Strs(Vec<Option<&'a str>>),
    Arrow(crate::arrow::StrColumn<'a>),
}

impl Rows<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Rows::Strs(v) => v.len(),
            Rows::Arrow(c) => c.len(),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Result<Option<&str>, ColumnError> {
        match self {
            Rows::Strs(v) => Ok(v[i]),
            Rows::Arrow(c) => c.get(i),
        }
    }
}

/// The texts of a batch as Python handed them over: `str` objects (or `None`), or a pyarrow
/// string array held in place. [`Texts::rows`] reads them without the GIL.
pub(crate) enum Texts<'py> {
    Items(Vec<Option<Bound<'py, PyString>>>),
    Arrow { held: HeldArray, large: bool },
}

impl<'py> Texts<'py> {
    /// A list or tuple of str (None allowed), any other iterable of str, or a pyarrow string /
    /// large_string Array or ChunkedArray. `what` names the argument in errors.
    pub(crate) fn extract(texts: &Bound<'py, PyAny>, what: &str) -> PyResult<Texts<'py>> {
        if is_pyarrow(texts)? {
            return Texts::arrow(texts, what);
        }
        if texts.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(format!(
                "{what}: expected a list of str, not one str"
            )));
        }
        let items: Vec<Bound<'py, PyAny>> = if let Ok(list) = texts.cast::<PyList>() {
            list.iter().collect()
        } else if let Ok(tuple) = texts.cast::<PyTuple>() {
            tuple.iter().collect()
        } else {
            texts.try_iter()?.collect::<PyResult<_>>()?
        };
        Texts::from_items(items, what)
    }

    /// A pyarrow string / large_string Array or ChunkedArray, held in place.
    pub(crate) fn arrow(texts: &Bound<'py, PyAny>, what: &str) -> PyResult<Texts<'py>> {
        let parts = texts
            .py()
            .import("textreuse.kernels")?
            .call_method1("_string_parts", (texts, what))?;
        let (parts, large): (Bound<'py, PyAny>, bool) = parts.extract()?;
        let held = HeldArray::extract(&parts, what)?;
        Ok(Texts::Arrow { held, large })
    }

    /// Python objects that must each be a str or None.
    pub(crate) fn from_items(items: Vec<Bound<'py, PyAny>>, what: &str) -> PyResult<Texts<'py>> {
        let strs = items
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                if item.is_none() {
                    return Ok(None);
                }
                item.cast_into::<PyString>().map(Some).map_err(|e| {
                    PyTypeError::new_err(format!(
                        "{what}[{i}] is a {}, not a str",
                        type_name(&e.into_inner())
                    ))
                })
            })
            .collect::<PyResult<_>>()?;
        Ok(Texts::Items(strs))
    }

    /// The rows, readable without the GIL.
    pub(crate) fn rows(&self, what: &str) -> PyResult<Rows<'_>> {
        Ok(match self {
            Texts::Items(items) => Rows::Strs(
                items
                    .iter()
                    .map(|s| s.as_ref().map(|s| s.to_str()).transpose())
                    .collect::<PyResult<_>>()?,
            ),
            Texts::Arrow { held, large } => Rows::Arrow(held.strings(*large, what)?),
        })
    }
}

/// Signs every row into `out` (`hashes` uint64 per row, zeros for rows that are null or too
/// short), on all cores; `signed[i]` says whether row `i` was signed. `out` is the numpy array
/// handed back, so the minhashes are written once, in place.
fn sign_rows_into(
    signer: &Signer,
    shingle: usize,
    rows: &Rows<'_>,
    out: &mut [u64],
    signed: &mut [bool],
) -> Result<(), ColumnError> {
    // Rows are signed in chunks of this many (each chunk with its own buffers).
    const CHUNK: usize = 256;
    let n = signer.hashes().max(1);
    out.par_chunks_mut(n * CHUNK)
        .zip(signed.par_chunks_mut(CHUNK))
        .enumerate()
        .try_for_each(|(c, (out, ok))| -> Result<(), ColumnError> {
            let mut ts = TextSigner::new(signer).shingle_chars(shingle);
            for (j, (out, ok)) in out.chunks_exact_mut(n).zip(ok).enumerate() {
                if let Some(text) = rows.get(c * CHUNK + j)?
                    && let Some(mins) = ts.minhashes(text)
                {
                    out.copy_from_slice(mins);
                    *ok = true;
                } else {
                    out.fill(0);
                }
            }
            Ok(())
        })
}

/// A signer's constructor arguments: `(hashes, bits, rows, bands, seed, scheme)`.
type Params = (usize, u32, usize, usize, u64, &'static str);

/// Whether `obj` is a pyarrow object (an Array or ChunkedArray).
pub(crate) fn is_pyarrow(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let module: String = obj.get_type().getattr("__module__")?.extract()?;
    Ok(module == "pyarrow" || module.starts_with("pyarrow."))
}

/// MinHash signer: `N` hash functions, `M` band keys of `K` minhashes each.
///
/// Signer(hashes=None, bits=60, rows=10, bands=10, seed=1123456, scheme="drawn")
///
/// The defaults are those of `textreuse dedup`: N = 20 functions of 60 bits, K = 10 rows,
/// M = 10 bands drawn as K-subsets of the N functions from the seed 1123456 (the Weissman
/// preset). `hashes=None` means 20 for scheme="drawn" and rows * bands for scheme="disjoint"
/// (classic banding) and scheme="oph" (one-permutation hashing: each shingle hashed once into
/// rows * bands bins, about the cost of one hash per shingle; rows=11, bands=13 finds 99% of
/// pairs at Jaccard 0.9), where any other value is an error. Inconsistent parameters raise
/// ValueError naming the one to change.
///
/// Signatures and band keys are stable: the same parameters give the same values on every
/// machine and version, equal to what the Rust crates and the `textreuse` command compute.
/// Signers are immutable, thread-safe, picklable (by their parameters) and compare equal when
/// their parameters are equal.
///
/// >>> signer = Signer()
/// >>> sig = signer.sign("A sentence that is long enough to have a few shingles.")
/// >>> len(sig), len(signer.band_keys(sig))
/// (20, 10)
#[pyclass(name = "Signer", module = "textreuse", frozen)]
pub(crate) struct PySigner {
    pub(crate) inner: Signer,
}

impl PySigner {
    fn scheme_str(&self) -> &'static str {
        match self.inner.scheme() {
            BandScheme::Disjoint => "disjoint",
            BandScheme::Oph => "oph",
            _ => "drawn",
        }
    }

    fn params(&self) -> Params {
        let s = &self.inner;
        (
            s.hashes(),
            s.bits(),
            s.rows(),
            s.bands(),
            s.seed(),
            self.scheme_str(),
        )
    }

    fn check_signature(&self, sig: &[u64], what: &str) -> PyResult<()> {
        if sig.len() != self.inner.hashes() {
            return Err(PyValueError::new_err(format!(
                "{what} has {} minhashes, this signer makes {} (was it made by another signer?)",
                sig.len(),
                self.inner.hashes()
            )));
        }
        Ok(())
    }
}

fn check_similarity(s: f64) -> PyResult<()> {
    if (0.0..=1.0).contains(&s) {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "the similarity s must be in [0, 1], got {s}"
        )))
    }
}

/// A fingerprint as Python gives it: an int in `0..2**64`, or a negative int64 taken as the same
/// 64 bits (Arrow and Spark store u64 fingerprints as int64).
fn fingerprint(item: &Bound<'_, PyAny>, i: usize) -> PyResult<u64> {
    if let Ok(v) = item.extract::<u64>() {
        return Ok(v);
    }
    item.extract::<i64>().map(|v| v as u64).map_err(|_| {
        PyTypeError::new_err(format!(
            "shingle {i} is not an int in -2**63..2**64: {}",
            item.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    })
}

/// dedup_settings(unit="sentence", threshold=None, shingle=12, min_shingles=None,
///     max_shingles=None, scheme=None, hashes=None, rows=None, bands=None, bits=60,
///     seed=1123456, recall=0.99, below=None, candidate_rate=0.01)
///     -> (Signer, min_shingles, max_shingles)
///
/// The signer and unit filter that `textreuse dedup` runs with these options: `None` is the
/// unit's default (sentences: 75..=600 shingles and the Weissman preset; paragraphs and
/// documents: at least 20 shingles and the OPH preset), `threshold` plans the cheapest scheme,
/// K and M that meet the target unless rows or bands are given (the library's rule,
/// `textreuse_dedup::features::SignerOptions`). `max_shingles` 0, given or returned, means no
/// upper bound. ValueError names the option to change.
///
/// >>> signer, lo, hi = dedup_settings("paragraph")
/// >>> (signer.scheme, signer.rows, signer.bands, lo, hi)
/// ('oph', 11, 13, 20, 0)
#[pyfunction]
#[pyo3(signature = (unit="sentence", threshold=None, shingle=DEFAULT_SHINGLE_CHARS as i64, min_shingles=None, max_shingles=None, scheme=None, hashes=None, rows=None, bands=None, bits=DEFAULT_BITS as i64, seed=DEFAULT_SEED as i128, recall=textreuse_minhash::DEFAULT_RECALL, below=None, candidate_rate=textreuse_minhash::DEFAULT_CANDIDATE_RATE))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup_settings(
    unit: &str,
    threshold: Option<f64>,
    shingle: i64,
    min_shingles: Option<i64>,
    max_shingles: Option<i64>,
    scheme: Option<&str>,
    hashes: Option<i64>,
    rows: Option<i64>,
    bands: Option<i64>,
    bits: i64,
    seed: i128,
    recall: f64,
    below: Option<f64>,
    candidate_rate: f64,
) -> PyResult<(PySigner, usize, usize)> {
    let unit: Unit = unit
        .parse()
        .map_err(|e: textreuse_shingle::units::UnknownUnit| PyValueError::new_err(e.to_string()))?;
    let optional = |name, v: Option<i64>| v.map(|v| count(name, v)).transpose();
    let options = SignerOptions {
        scheme: scheme.map(parse_scheme).transpose()?,
        hashes: optional("hashes", hashes)?,
        rows: optional("rows", rows)?,
        bands: optional("bands", bands)?,
        bits: u32::try_from(bits).map_err(|_| {
            PyValueError::new_err(format!("bits must be between 1 and 64, got {bits}"))
        })?,
        seed: seed_u64(seed)?,
        recall,
        below,
        candidate_rate,
    };
    let defaults = unit.default_filter();
    let min = optional("min_shingles", min_shingles)?.unwrap_or(defaults.min_shingles);
    let max = match optional("max_shingles", max_shingles)? {
        Some(0) => usize::MAX,
        Some(n) => n,
        None => defaults.max_shingles,
    };
    let signer = options
        .signer(unit, threshold, min)
        .map_err(|e| PyValueError::new_err(format!("invalid MinHash parameters: {e}")))?;
    let mut builder = Dedup::builder();
    builder
        .unit(unit)
        .shingle(shingle_len(shingle)?)
        .min_shingles(min)
        .max_shingles(max)
        .signer(signer);
    if let Some(t) = threshold {
        builder.threshold(t);
    }
    let dedup = builder
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let filter = dedup.filter();
    let max = if filter.max_shingles == usize::MAX {
        0
    } else {
        filter.max_shingles
    };
    Ok((
        PySigner {
            inner: dedup.signer().clone(),
        },
        filter.min_shingles,
        max,
    ))
}

#[pymethods]
impl PySigner {
    #[new]
    #[pyo3(signature = (hashes=None, bits=DEFAULT_BITS as i64, rows=DEFAULT_ROWS as i64, bands=DEFAULT_BANDS as i64, seed=DEFAULT_SEED as i128, scheme="drawn"))]
    fn new(
        hashes: Option<i64>,
        bits: i64,
        rows: i64,
        bands: i64,
        seed: i128,
        scheme: &str,
    ) -> PyResult<PySigner> {
        let mut builder = SignerBuilder::new();
        builder
            .bits(u32::try_from(bits).map_err(|_| {
                PyValueError::new_err(format!("bits must be between 1 and 64, got {bits}"))
            })?)
            .rows(count("rows", rows)?)
            .bands(count("bands", bands)?)
            .seed(seed_u64(seed)?)
            .scheme(parse_scheme(scheme)?);
        if let Some(n) = hashes {
            builder.hashes(count("hashes", n)?);
        }
        let inner = builder
            .build()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PySigner { inner })
    }

    /// N, the number of hash functions (minhashes per signature).
    #[getter]
    fn hashes(&self) -> usize {
        self.inner.hashes()
    }

    /// Output bits of each hash function.
    #[getter]
    fn bits(&self) -> u32 {
        self.inner.bits()
    }

    /// K, the minhashes per band.
    #[getter]
    fn rows(&self) -> usize {
        self.inner.rows()
    }

    /// M, the band keys per signature.
    #[getter]
    fn bands(&self) -> usize {
        self.inner.bands()
    }

    /// The seed of the hash functions and band subsets.
    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed()
    }

    /// "drawn" or "disjoint".
    #[getter]
    fn scheme(&self) -> &'static str {
        self.scheme_str()
    }

    /// band(m) -> list[int]
    ///
    /// The indices of the K hash functions of band m (0 <= m < bands).
    fn band(&self, m: usize) -> PyResult<Vec<u32>> {
        if m >= self.inner.bands() {
            return Err(PyIndexError::new_err(format!(
                "band {m} does not exist; the signer has {} bands",
                self.inner.bands()
            )));
        }
        Ok(self.inner.band(m).to_vec())
    }

    /// sign(text_or_shingles, shingle=12) -> numpy.ndarray
    ///
    /// The N minhashes of a text or of a set of shingle fingerprints, as a numpy uint64 array.
    ///
    /// A str is normalized (lowercased, whitespace collapsed) and cut into `shingle`-character
    /// shingles exactly as `textreuse dedup` does before signing a sentence. Any other iterable
    /// is taken as the 64-bit shingle fingerprints themselves (ints in 0..2**64; negative int64
    /// values stand for the same 64 bits); duplicates and order do not matter.
    ///
    /// Raises ValueError when there is nothing to sign (an empty set, or a text whose
    /// normalized form is shorter than one shingle): an empty set has no minhash.
    #[pyo3(signature = (text_or_shingles, shingle=DEFAULT_SHINGLE_CHARS as i64))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        text_or_shingles: &Bound<'py, PyAny>,
        shingle: i64,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shingle = shingle_len(shingle)?;
        if let Ok(text) = text_or_shingles.cast::<PyString>() {
            let text = text.to_str()?;
            let mins = py
                .detach(|| {
                    TextSigner::new(&self.inner)
                        .shingle_chars(shingle)
                        .minhashes(text)
                        .map(<[u64]>::to_vec)
                })
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "nothing to sign: the normalized text is shorter than one shingle \
                         ({shingle} characters)"
                    ))
                })?;
            return u64_array(py, &mins);
        }
        let shingles = text_or_shingles
            .try_iter()
            .map_err(|_| {
                PyTypeError::new_err("sign() takes a str or an iterable of int fingerprints")
            })?
            .enumerate()
            .map(|(i, item)| fingerprint(&item?, i))
            .collect::<PyResult<Vec<u64>>>()?;
        let mut mins = vec![0u64; self.inner.hashes()];
        self.inner
            .sign_into(&shingles, &mut mins)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        u64_array(py, &mins)
    }

    /// sign_batch(texts, shingle=12) -> list[numpy.ndarray | None]
    ///
    /// Signs many texts with the GIL released, on all cores (rayon's pool; RAYON_NUM_THREADS
    /// bounds it): one numpy uint64 array of N minhashes per text, in order (rows of one 2-D
    /// array), or None for a text that is None (null) or whose normalized form is shorter than
    /// one shingle. Each text is treated as by sign(str).
    ///
    /// `texts` is a list or tuple of str (None allowed), any other iterable of str, or a pyarrow
    /// string / large_string Array or ChunkedArray, which is read in place through its Arrow
    /// buffers (no per-row Python objects). For a columnar result, see
    /// textreuse.kernels.signatures().
    #[pyo3(signature = (texts, shingle=DEFAULT_SHINGLE_CHARS as i64))]
    fn sign_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        shingle: i64,
    ) -> PyResult<Bound<'py, PyList>> {
        let shingle = shingle_len(shingle)?;
        if texts.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "sign_batch() takes a list of str, not one str (use sign())",
            ));
        }
        let texts = Texts::extract(texts, "texts")?;
        let rows = texts.rows("texts")?;
        let n = self.inner.hashes();
        let mut signed = vec![false; rows.len()];
        // The minhashes are written once, by the workers, straight into the array returned
        // (numpy.empty: no zeroing pass; rows that are not signed are zeroed by the workers).
        let matrix = crate::numpy::empty_u64_matrix(py, rows.len(), n)?;
        crate::numpy::with_u64_matrix_mut(py, &matrix, |out| {
            sign_rows_into(&self.inner, shingle, &rows, out, &mut signed)
        })?
        .map_err(PyErr::from)?;
        // list(matrix): the row views, made by numpy's own iteration; None for unsigned rows.
        let out = py
            .get_type::<PyList>()
            .call1((&matrix,))?
            .cast_into::<PyList>()?;
        for (i, ok) in signed.iter().enumerate() {
            if !ok {
                out.set_item(i, py.None())?;
            }
        }
        Ok(out)
    }

    /// band_keys(signature) -> list[int]
    ///
    /// The M band keys of a signature, in band order: unsigned 64-bit ints, equal to the keys
    /// `textreuse dedup` groups sentences by and to those of kernels.band_key_records (uint64).
    /// Two signatures share band m's key exactly when they agree on all K minhashes of band m
    /// (up to 64-bit collisions). The signature is a numpy uint64 array (as sign() returns) or
    /// a sequence of ints.
    fn band_keys(&self, signature: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let signature = crate::numpy::signature(signature, "the signature")?;
        self.check_signature(&signature, "the signature")?;
        Ok(self.inner.band_keys_of(&signature).collect())
    }

    /// jaccard(sig_a, sig_b) -> float
    ///
    /// Estimates the Jaccard similarity of two signed sets: the fraction of the N minhashes that
    /// agree (standard deviation about sqrt(s (1 - s) / N)).
    fn jaccard(&self, sig_a: &Bound<'_, PyAny>, sig_b: &Bound<'_, PyAny>) -> PyResult<f64> {
        let sig_a = crate::numpy::signature(sig_a, "sig_a")?;
        let sig_b = crate::numpy::signature(sig_b, "sig_b")?;
        self.check_signature(&sig_a, "sig_a")?;
        self.check_signature(&sig_b, "sig_b")?;
        Ok(Signature::from_mins(sig_a).jaccard(&Signature::from_mins(sig_b)))
    }

    /// collision_probability(s) -> float
    ///
    /// The exact probability that two sets of Jaccard similarity s share at least one band key
    /// (the S-curve), by inclusion-exclusion over the drawn band subsets, which share hash
    /// functions; 1 - (1 - s**K)**M for disjoint bands.
    fn collision_probability(&self, s: f64) -> PyResult<f64> {
        check_similarity(s)?;
        Ok(self.inner.exact_match_probability(s))
    }

    /// independent_approximation(s) -> float
    ///
    /// 1 - (1 - s**K)**M: the S-curve if the M bands were independent. Exact for disjoint bands,
    /// an overestimate for drawn bands (0.986 against about 0.8 at s = 0.9 with the defaults).
    fn independent_approximation(&self, s: f64) -> PyResult<f64> {
        check_similarity(s)?;
        Ok(self.inner.independent_approximation(s))
    }

    fn __repr__(&self) -> String {
        let (n, bits, k, m, seed, scheme) = self.params();
        format!(
            "Signer(hashes={n}, bits={bits}, rows={k}, bands={m}, seed={seed}, scheme='{scheme}')"
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PySigner>()
            .is_ok_and(|o| o.get().params() == self.params())
    }

    fn __hash__(&self) -> u64 {
        let (n, bits, k, m, seed, scheme) = self.params();
        textreuse_hash::fingerprint_words(&[
            n as u64,
            bits as u64,
            k as u64,
            m as u64,
            seed,
            match scheme {
                "drawn" => 0,
                "disjoint" => 1,
                _ => 2,
            },
        ])
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> (Bound<'py, PyType>, Params) {
        (slf.get_type(), slf.get().params())
    }
}
