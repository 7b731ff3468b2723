//! The kernels of the Spark dedup job's random projection over word embeddings (`method =
//! "rp-embed"` of `textreuse.spark.dedup`), each a thin call into `textreuse-dedup`'s
//! [`EmbeddingProjection`] and [`UnitSigner`], `textreuse-embed` and `textreuse-simhash`'s
//! [`WindowSearch`]:
//!
//! - `projection_settings`: the options checked and completed as `textreuse dedup --method
//!   rp-embed` completes them.
//! - `record_words`, `unit_words`, `document_words`: stage 1 inside the read tasks: the kept
//!   units' cleaned words (space-separated; cleaned words hold letters and apostrophes only).
//! - `Projection`: on the driver, the word vectors (read from a file once, or trained on the
//!   kept units given in id order: the corpus the CLI trains on) and the [`UnitSigner`] made
//!   from the whole run's vocabulary, as bytes for the tasks.
//! - `UnitSigner`: stage 2 inside the tasks: unit vectors to `D`-bit signatures.
//! - `WindowKeys`: the window search inside the tasks: each distinct signature's `Q` permuted
//!   sort keys, and the window pairs of a sorted part of the permuted signatures with the rows
//!   that follow it ([`WindowSearch::window_pairs`]).
use std::io::BufRead;
use std::sync::Arc;
use std::time::Instant;

use pyo3::exceptions::{PyIOError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use textreuse_dedup::projection::{EmbeddingProjection, UnitSigner, Vectors};
use textreuse_embed::{Cleaner, Corpus, EmbedError, Format, Trainer, Vocabulary};
use textreuse_simhash::{BitPermutation, SimHashError, WindowSearch};

use crate::arrow::{HeldArray, HeldBuffer, StrColumn};
use crate::spark::u64s;
use crate::spark::{Lines, read_documents};
use textreuse_shingle::units::SentenceFilter;

/// The options of the method, as `textreuse dedup`'s flags give them; a `ValueError` names the
/// parameter (by its `DedupParams` name) that is out of range.
#[derive(Clone, Debug)]
struct Options {
    stem: bool,
    center: bool,
    bits: u32,
    permutations: u32,
    window: u32,
    max_hamming: Option<u32>,
    seed: u64,
    dim: usize,
    epochs: usize,
}

fn named(param: &str, e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{param}: {e}"))
}

impl Options {
    /// The trainer of the options (the CLI's: `--dim`, `--epochs`, `--seed`).
    fn trainer(&self) -> PyResult<Trainer> {
        Trainer::builder()
            .dim(self.dim)
            .epochs(self.epochs)
            .seed(self.seed)
            .build()
            .map_err(|e| match &e {
                EmbedError::InvalidParameter { name, .. } => named(name, &e),
                _ => named("dim", &e),
            })
    }

    /// The projection of the options with `vectors`.
    fn projection(&self, vectors: Vectors) -> PyResult<EmbeddingProjection> {
        let mut builder = EmbeddingProjection::builder();
        builder
            .vectors(vectors)
            .stem(self.stem)
            .center(self.center)
            .bits(self.bits)
            .permutations(self.permutations)
            .window(self.window)
            .seed(self.seed);
        if let Some(t) = self.max_hamming {
            builder.max_hamming(t);
        }
        builder.build().map_err(|e| {
            let param = match &e {
                textreuse_dedup::Error::InvalidOption { option: "bits", .. } => "projection_bits",
                textreuse_dedup::Error::SimHash(
                    SimHashError::InvalidParameter { name, .. }
                    | SimHashError::AboveLimit { name, .. },
                ) => name,
                textreuse_dedup::Error::SimHash(SimHashError::InvalidThreshold { .. }) => {
                    "max_hamming"
                }
                _ => "projection",
            };
            named(param, &e)
        })
    }
}

/// projection_settings(stem, center, bits, permutations, window, max_hamming, seed, dim,
///     epochs, vectors_format="auto") -> dict
///
/// Checks the options of `textreuse dedup --method rp-embed` (the training's too) and returns
/// them completed as the CLI completes them: `max_hamming` (None: the method's default),
/// `bits`, `permutations`, `window`, `seed`, `stem`, `center`, `dim`, `epochs`. A `ValueError`
/// starts with the parameter to change.
#[pyfunction]
#[pyo3(signature = (
    stem, center, bits, permutations, window, max_hamming, seed, dim, epochs, vectors_format="auto"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn projection_settings<'py>(
    py: Python<'py>,
    stem: bool,
    center: bool,
    bits: u32,
    permutations: u32,
    window: u32,
    max_hamming: Option<u32>,
    seed: u64,
    dim: usize,
    epochs: usize,
    vectors_format: &str,
) -> PyResult<Bound<'py, PyDict>> {
    vector_format(vectors_format)?;
    let options = Options {
        stem,
        center,
        bits,
        permutations,
        window,
        max_hamming,
        seed,
        dim,
        epochs,
    };
    let projection = options.projection(Vectors::Train(options.trainer()?))?;
    let out = PyDict::new(py);
    let search = projection.search();
    out.set_item("stem", projection.stems())?;
    out.set_item("center", projection.centers())?;
    out.set_item("bits", projection.bits())?;
    out.set_item("permutations", search.permutations())?;
    out.set_item("window", search.window())?;
    out.set_item("max_hamming", search.max_hamming())?;
    out.set_item("seed", projection.seed())?;
    out.set_item("dim", dim)?;
    out.set_item("epochs", epochs)?;
    Ok(out)
}

/// Appends `words` to `data` separated by spaces and the end offset to `offsets`.
fn push_words(words: &[String], data: &mut Vec<u8>, offsets: &mut Vec<u8>) -> PyResult<()> {
    for (k, w) in words.iter().enumerate() {
        if k > 0 {
            data.push(b' ');
        }
        data.extend_from_slice(w.as_bytes());
    }
    let end = i32::try_from(data.len())
        .map_err(|_| PyValueError::new_err("a batch of more than 2 GiB of words"))?;
    offsets.extend_from_slice(&end.to_le_bytes());
    Ok(())
}

/// record_words(stem, min_shingles, max_shingles, path=None, start=0, end=2**64-1,
///     lines=None, large=False) -> (ids: bytes, offsets: bytes, data: bytes, sentences, seqs)
///
/// Stage 1 of one read task of the random projection (its lines as for `sentence_keys`):
/// every record counts as a sentence; those with `min_shingles <= shingles <= max_shingles`
/// are kept, and their ids (little-endian u64) and cleaned words (a string column: i32
/// `offsets` into `data`, the words separated by single spaces) returned in the task's order.
/// `seqs` are the distinct document positions (little-endian u32, sorted).
#[pyfunction]
#[pyo3(signature = (
    stem, min_shingles, max_shingles, path=None, start=0, end=u64::MAX, lines=None, large=false
))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn record_words<'py>(
    py: Python<'py>,
    stem: bool,
    min_shingles: u64,
    max_shingles: u64,
    path: Option<String>,
    start: u64,
    end: u64,
    lines: Option<&Bound<'py, PyAny>>,
    large: bool,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    u64,
    Bound<'py, PyBytes>,
)> {
    let held = lines.map(|l| HeldArray::extract(l, "lines")).transpose()?;
    let input = Lines::of(path, start, end, held.as_ref(), large)?;
    let cleaner = Cleaner::builder().stem(stem).build();
    let (ids, offsets, data, sentences, seqs) = py.detach(|| -> PyResult<_> {
        let (mut ids, mut offsets, mut data) =
            (Vec::new(), 0i32.to_le_bytes().to_vec(), Vec::new());
        let (mut sentences, mut seqs) = (0u64, Vec::<u32>::new());
        let mut words = Vec::new();
        let mut failed = None;
        input.each_record(|r| {
            sentences += 1;
            let seq = (r.id >> 32) as u32;
            if seqs.last() != Some(&seq) {
                seqs.push(seq);
            }
            if r.shingles < min_shingles || r.shingles > max_shingles {
                return Ok(());
            }
            cleaner.words(&r.text, &mut words);
            ids.extend_from_slice(&r.id.to_le_bytes());
            if let Err(e) = push_words(&words, &mut data, &mut offsets) {
                failed.get_or_insert(e);
            }
            Ok(())
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        seqs.sort_unstable();
        seqs.dedup();
        let seqs: Vec<u8> = seqs.iter().flat_map(|s| s.to_le_bytes()).collect();
        Ok((ids, offsets, data, sentences, seqs))
    })?;
    Ok((
        PyBytes::new(py, &ids),
        PyBytes::new(py, &offsets),
        PyBytes::new(py, &data),
        sentences,
        PyBytes::new(py, &seqs),
    ))
}

/// document_words(stem, shingle, min_shingles, max_shingles, path, files_before, records,
///     unit="sentence") -> (ids: bytes, offsets: bytes, data: bytes, documents, sentences,
///     problems, messages: list[str])
///
/// Stage 1 of the random projection for one input file of documents, read as `textreuse
/// dedup` reads it (as `document_keys` reads it): every kept unit's provisional id
/// (little-endian u64, in input order) and cleaned words (a string column as in
/// `record_words`), each unit written as a sentence record to the file `records` for stage 6;
/// the documents, units seen and input problems (skipped, described in `messages`).
#[pyfunction]
#[pyo3(signature = (
    stem, shingle, min_shingles, max_shingles, path, files_before, records, unit="sentence"
))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn document_words<'py>(
    py: Python<'py>,
    stem: bool,
    shingle: i64,
    min_shingles: usize,
    max_shingles: usize,
    path: String,
    files_before: u64,
    records: String,
    unit: &str,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    u64,
    u64,
    u64,
    Vec<String>,
)> {
    let filter = SentenceFilter {
        shingle: crate::signer::shingle_len(shingle)?,
        min_shingles,
        max_shingles,
    };
    let cleaner = Cleaner::builder().stem(stem).build();
    let (mut ids, mut offsets, mut data) = (Vec::new(), 0i32.to_le_bytes().to_vec(), Vec::new());
    let mut failed = None;
    let read = py.detach(|| {
        read_documents(
            &path,
            files_before,
            &records,
            unit,
            &filter,
            Vec::new,
            |words: &mut Vec<String>, text| {
                cleaner.words(text, words);
                Some(words.clone())
            },
            |id, words| {
                ids.extend_from_slice(&id.to_le_bytes());
                if let Err(e) = push_words(&words, &mut data, &mut offsets) {
                    failed.get_or_insert(e);
                }
            },
        )
    })?;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok((
        PyBytes::new(py, &ids),
        PyBytes::new(py, &offsets),
        PyBytes::new(py, &data),
        read.documents,
        read.sentences,
        read.problems,
        read.messages,
    ))
}

/// unit_words(stem, texts, large) -> (offsets: bytes, data: bytes)
///
/// The cleaned words of each text of a string column (its parts, `large` for 64-bit offsets),
/// as a string column (i32 `offsets` into `data`, words separated by single spaces). A null
/// text has no words.
#[pyfunction]
pub(crate) fn unit_words<'py>(
    py: Python<'py>,
    stem: bool,
    texts: &Bound<'py, PyAny>,
    large: bool,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let held = HeldArray::extract(texts, "texts")?;
    let column = held.strings(large, "texts")?;
    let cleaner = Cleaner::builder().stem(stem).build();
    let (offsets, data) = py.detach(|| -> PyResult<_> {
        let (mut offsets, mut data) = (0i32.to_le_bytes().to_vec(), Vec::new());
        let mut words = Vec::new();
        for i in 0..column.len() {
            match column.get(i)? {
                Some(text) => cleaner.words(text, &mut words),
                None => words.clear(),
            }
            push_words(&words, &mut data, &mut offsets)?;
        }
        Ok((offsets, data))
    })?;
    Ok((PyBytes::new(py, &offsets), PyBytes::new(py, &data)))
}

/// The space-separated words of row `i` of `column` (none for null).
fn words_of<'a>(column: &StrColumn<'a>, i: usize) -> PyResult<impl Iterator<Item = &'a str>> {
    let text = column.get(i)?.unwrap_or("");
    Ok(text.split(' ').filter(|w| !w.is_empty()))
}

/// Projection(stem, center, bits, permutations, window, max_hamming, seed, dim, epochs,
///     vectors=None, vectors_format="auto")
///
/// The method on the driver: the options (checked as by `projection_settings`) and the word
/// vectors, read here from `vectors` (word2vec text or binary, GloVe, fastText `.vec`;
/// `vectors_format` `auto` tells them apart by the first bytes, as the CLI does), or trained by
/// `unit_signer_trained`.
#[pyclass(name = "Projection", module = "textreuse")]
pub(crate) struct PyProjection {
    options: Options,
    /// The vectors read from `vectors`, if given.
    given: Option<Arc<textreuse_embed::Embeddings>>,
}

/// `unit_signer_*`'s result: the signer's bytes and the counts of `stats.json`'s `projection`.
type SignerOut<'py> = (Bound<'py, PyBytes>, u64, u64, usize, f64);

#[pymethods]
impl PyProjection {
    #[new]
    #[pyo3(signature = (
        stem, center, bits, permutations, window, max_hamming, seed, dim, epochs, vectors=None,
        vectors_format="auto"
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        stem: bool,
        center: bool,
        bits: u32,
        permutations: u32,
        window: u32,
        max_hamming: Option<u32>,
        seed: u64,
        dim: usize,
        epochs: usize,
        vectors: Option<String>,
        vectors_format: &str,
    ) -> PyResult<PyProjection> {
        let options = Options {
            stem,
            center,
            bits,
            permutations,
            window,
            max_hamming,
            seed,
            dim,
            epochs,
        };
        let format = vector_format(vectors_format)?;
        let given = match vectors {
            None => {
                options.projection(Vectors::Train(options.trainer()?))?;
                None
            }
            Some(path) => {
                let e = py.detach(|| read_vectors(&path, format))?;
                let e = Arc::new(e);
                options.projection(Vectors::Given(e.clone()))?;
                Some(e)
            }
        };
        Ok(PyProjection { options, given })
    }

    /// `trained` or `file`, as `stats.json` records it.
    #[getter]
    fn vectors(&self) -> &'static str {
        if self.given.is_some() {
            "file"
        } else {
            "trained"
        }
    }

    /// unit_signer_trained(words, large) -> (signer: bytes, vocabulary, words_with_vector, dim,
    ///     training_seconds)
    ///
    /// Trains the word vectors on the kept units whose words `words` holds (a string column's
    /// parts, space-separated words, in the order of the units' ids: the corpus `textreuse
    /// dedup` trains on), on all cores, and returns the `UnitSigner` of the corpus as bytes.
    fn unit_signer_trained<'py>(
        &self,
        py: Python<'py>,
        words: &Bound<'py, PyAny>,
        large: bool,
    ) -> PyResult<SignerOut<'py>> {
        let held = HeldArray::extract(words, "words")?;
        let column = held.strings(large, "words")?;
        let trainer = self.options.trainer()?;
        let projection = self.options.projection(Vectors::Train(trainer))?;
        let (bytes, vocabulary, known, dim, seconds) = py.detach(|| -> PyResult<_> {
            let mut corpus = Corpus::new();
            let mut unit: Vec<&str> = Vec::new();
            for i in 0..column.len() {
                unit.clear();
                unit.extend(words_of(&column, i)?);
                corpus.push(&unit);
            }
            let started = Instant::now();
            let vectors = projection
                .embeddings(&corpus)
                .map_err(|e| named("training", e))?;
            let seconds = started.elapsed().as_secs_f64();
            let signer = projection
                .unit_signer(corpus.vocabulary(), &vectors)
                .map_err(|e| named("projection", e))?;
            Ok((
                signer.to_bytes(),
                corpus.vocabulary().len() as u64,
                signer.known_words() as u64,
                signer.dim(),
                seconds,
            ))
        })?;
        Ok((PyBytes::new(py, &bytes), vocabulary, known, dim, seconds))
    }

    /// unit_signer_counted(words, large, counts) -> (signer: bytes, vocabulary,
    ///     words_with_vector, dim, training_seconds)
    ///
    /// With the vectors of the file: the `UnitSigner` of the run's vocabulary, given as its
    /// distinct words (`words`, a string column's parts) in first-seen order (by the id of the
    /// first unit holding each, then its position there) with their counts over all kept units
    /// (`counts`, an int64 column's parts): the vocabulary a corpus of all kept units in id
    /// order has, so the center is the CLI's. No training: `training_seconds` is 0.
    fn unit_signer_counted<'py>(
        &self,
        py: Python<'py>,
        words: &Bound<'py, PyAny>,
        large: bool,
        counts: &Bound<'py, PyAny>,
    ) -> PyResult<SignerOut<'py>> {
        let given = self.given.clone().ok_or_else(|| {
            PyValueError::new_err("unit_signer_counted needs vectors; use unit_signer_trained")
        })?;
        let (words_held, counts_held) = (
            HeldArray::extract(words, "words")?,
            HeldArray::extract(counts, "counts")?,
        );
        let (words, counts) = (
            words_held.strings(large, "words")?,
            counts_held.int64("counts")?,
        );
        if words.len() != counts.len() {
            return Err(PyValueError::new_err("words and counts differ in length"));
        }
        let projection = self.options.projection(Vectors::Given(given.clone()))?;
        let (bytes, vocabulary, known, dim) = py.detach(|| -> PyResult<_> {
            let mut pairs = Vec::with_capacity(words.len());
            for i in 0..words.len() {
                let word = words
                    .get(i)?
                    .ok_or_else(|| PyValueError::new_err(format!("words: row {i} is null")))?;
                pairs.push((word, counts.required(i, "counts")? as u64));
            }
            let vocabulary = Vocabulary::from_counts(pairs).map_err(|e| named("words", e))?;
            let signer = projection
                .unit_signer(&vocabulary, &given)
                .map_err(|e| named("projection", e))?;
            Ok((
                signer.to_bytes(),
                vocabulary.len() as u64,
                signer.known_words() as u64,
                signer.dim(),
            ))
        })?;
        Ok((PyBytes::new(py, &bytes), vocabulary, known, dim, 0.0))
    }
}

/// The format named as `textreuse dedup --vectors-format` names it (None: auto).
fn vector_format(name: &str) -> PyResult<Option<Format>> {
    Ok(match name {
        "auto" => None,
        "word2vec" => Some(Format::Word2VecText),
        "word2vec-binary" => Some(Format::Word2VecBinary),
        "glove" => Some(Format::Glove),
        "fasttext" => Some(Format::FastText),
        other => {
            return Err(named(
                "vectors_format",
                format!(
                    "must be auto, word2vec, word2vec-binary, glove or fasttext, got {other:?}"
                ),
            ));
        }
    })
}

/// The vectors of the file at `path` in `format` (None: detected from the first bytes).
fn read_vectors(path: &str, format: Option<Format>) -> PyResult<textreuse_embed::Embeddings> {
    let file = std::fs::File::open(path)
        .map_err(|e| PyIOError::new_err(format!("cannot open vectors {path}: {e}")))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let format = match format {
        Some(f) => f,
        None => Format::detect(
            reader
                .fill_buf()
                .map_err(|e| PyIOError::new_err(format!("cannot read vectors {path}: {e}")))?,
        ),
    };
    textreuse_embed::read(reader, format)
        .map_err(|e| named("vectors", format!("cannot read {path} as {format}: {e}")))
}

/// UnitSigner(signer)
///
/// The signing step inside the tasks, from the bytes of `Projection.unit_signer_*`.
#[pyclass(name = "UnitSigner", module = "textreuse")]
pub(crate) struct PyUnitSigner {
    inner: UnitSigner,
}

#[pymethods]
impl PyUnitSigner {
    #[new]
    fn new(signer: &Bound<'_, PyAny>) -> PyResult<PyUnitSigner> {
        let held = HeldBuffer::get(Some(signer), "signer")?;
        let inner = UnitSigner::from_bytes(held.bytes())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyUnitSigner { inner })
    }

    /// Bytes per signature (`8 · ceil(D / 64)`).
    #[getter]
    fn signature_bytes(&self) -> usize {
        self.inner.words_per() * 8
    }

    /// sign(ids, words, large) -> (ids: bytes, signatures: bytes)
    ///
    /// The signatures of the units with a vector (at least one word with one): `ids` (an int64
    /// column's parts) and `words` (a string column's parts, space-separated words) row by row;
    /// returns their ids (little-endian u64) and signatures (`ceil(D / 64)` little-endian u64
    /// words each, back to back), in row order.
    fn sign<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        words: &Bound<'py, PyAny>,
        large: bool,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let (ids_held, words_held) = (
            HeldArray::extract(ids, "ids")?,
            HeldArray::extract(words, "words")?,
        );
        let (ids, words) = (ids_held.int64("ids")?, words_held.strings(large, "words")?);
        if ids.len() != words.len() {
            return Err(PyValueError::new_err("ids and words differ in length"));
        }
        let (out_ids, sigs) = py.detach(|| -> PyResult<_> {
            let mut corpus = Corpus::new();
            let mut unit: Vec<&str> = Vec::new();
            for i in 0..words.len() {
                unit.clear();
                unit.extend(words_of(&words, i)?);
                corpus.push(&unit);
            }
            let signed = self
                .inner
                .signatures(&corpus)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let mut out_ids = Vec::with_capacity(signed.len() * 8);
            for &i in &signed.sentences {
                out_ids.extend_from_slice(&(ids.required(i as usize, "ids")? as u64).to_le_bytes());
            }
            let sigs: Vec<u8> = signed.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            Ok((out_ids, sigs))
        })?;
        Ok((PyBytes::new(py, &out_ids), PyBytes::new(py, &sigs)))
    }
}

/// WindowKeys(bits, permutations, window, max_hamming, seed)
///
/// The window search of the method over a distributed sort: `keys` gives each distinct
/// signature's `Q` permuted signatures as sort keys, which Spark sorts globally per permutation
/// (by `(q, key)`, keys compared as unsigned bytes) and cuts into parts; `pairs` scans one part
/// with the rows that follow it. The union of the parts' pairs is the pair set of
/// `WindowSearch::pairs` over the same signatures.
#[pyclass(name = "WindowKeys", module = "textreuse")]
pub(crate) struct PyWindowKeys {
    search: WindowSearch,
}

#[pymethods]
impl PyWindowKeys {
    #[new]
    fn new(
        bits: u32,
        permutations: u32,
        window: u32,
        max_hamming: u32,
        seed: u64,
    ) -> PyResult<PyWindowKeys> {
        let search = WindowSearch::builder()
            .bits(bits)
            .permutations(permutations)
            .window(window)
            .max_hamming(max_hamming)
            .seed(seed)
            .build()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyWindowKeys { search })
    }

    /// Bytes per key (`8 · ceil(D / 64)`).
    #[getter]
    fn key_bytes(&self) -> usize {
        (self.search.bits() as usize).div_ceil(64) * 8
    }

    /// keys(signatures) -> (q: bytes, keys: bytes)
    ///
    /// For each permutation `q` and each signature (`ceil(D / 64)` little-endian u64 words
    /// each, back to back), in that order (all signatures of permutation 0 first): `q`
    /// (little-endian i32) and the permuted signature's words written big-endian one after the
    /// other, whose unsigned byte order is the order the window search sorts by.
    fn keys<'py>(
        &self,
        py: Python<'py>,
        signatures: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let held = HeldBuffer::get(Some(signatures), "signatures")?;
        let sigs = u64s(held.bytes(), "signatures")?;
        let w = self.key_bytes() / 8;
        if !sigs.len().is_multiple_of(w) {
            return Err(PyValueError::new_err(format!(
                "signatures: {} words is not a whole number of {w}-word signatures",
                sigs.len()
            )));
        }
        let (qs, keys) = py.detach(|| {
            let n = sigs.len() / w;
            let q_total = self.search.permutations() as usize;
            let mut qs = Vec::with_capacity(n * q_total * 4);
            let mut keys = Vec::with_capacity(n * q_total * w * 8);
            let mut permuted = vec![0u64; w];
            for (q, perm) in self.search.permutation_table().iter().enumerate() {
                let perm = BitPermutation::new(perm);
                for sig in sigs.chunks_exact(w) {
                    perm.permute_into(sig, &mut permuted);
                    qs.extend_from_slice(&(q as i32).to_le_bytes());
                    permuted
                        .iter()
                        .for_each(|x| keys.extend_from_slice(&x.to_be_bytes()));
                }
            }
            (qs, keys)
        });
        Ok((PyBytes::new(py, &qs), PyBytes::new(py, &keys)))
    }

    /// pairs(q, keys, ids, own) -> bytes
    ///
    /// The window pairs of a part of the sorted rows: `q` (little-endian i32), `keys` (as
    /// `keys` makes them, back to back) and `ids` (little-endian u64, each row's unit) of the
    /// part's `own` rows in ascending `(q, key)` order, followed by the rows after them in that
    /// order (at least `window` of them where there are that many). Each own row is compared
    /// with the next `window` rows of its permutation; the pairs within `max_hamming` bits are
    /// returned as `(a, b)` ids with `a < b` (little-endian u64 pairs). Rows out of order are
    /// an error.
    fn pairs<'py>(
        &self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        keys: &Bound<'py, PyAny>,
        ids: &Bound<'py, PyAny>,
        own: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (q_held, keys_held, ids_held) = (
            HeldBuffer::get(Some(q), "q")?,
            HeldBuffer::get(Some(keys), "keys")?,
            HeldBuffer::get(Some(ids), "ids")?,
        );
        let (q, keys) = (q_held.bytes(), keys_held.bytes());
        let ids = u64s(ids_held.bytes(), "ids")?;
        let kb = self.key_bytes();
        let n = ids.len();
        if q.len() != n * 4 || keys.len() != n * kb || own > n {
            return Err(PyValueError::new_err(format!(
                "pairs: {n} ids need {} bytes of q and {} of keys, got {} and {}, and own {own} \
                 at most {n}",
                n * 4,
                n * kb,
                q.len(),
                keys.len()
            )));
        }
        let out = py.detach(|| -> PyResult<Vec<u8>> {
            let q_of = |i: usize| i32::from_le_bytes(q[i * 4..][..4].try_into().expect("4 bytes"));
            let key_of = |i: usize| &keys[i * kb..][..kb];
            for i in 1..n {
                if (q_of(i - 1), key_of(i - 1)) >= (q_of(i), key_of(i)) {
                    return Err(PyValueError::new_err(format!(
                        "pairs: row {i} is not after row {} in (q, key) order: the rows must be \
                         sorted by q, then by key as unsigned bytes, without repeats",
                        i - 1
                    )));
                }
            }
            let words: Vec<u64> = keys
                .chunks_exact(8)
                .map(|x| u64::from_be_bytes(x.try_into().expect("8 bytes")))
                .collect();
            let w = kb / 8;
            let mut out = Vec::new();
            let mut start = 0;
            while start < own {
                let mut end = start + 1;
                while end < n && q_of(end) == q_of(start) {
                    end += 1;
                }
                let mine = end.min(own) - start;
                self.search
                    .window_pairs(&words[start * w..end * w], mine, |a, b, _| {
                        let (a, b) = (ids[start + a], ids[start + b]);
                        out.extend_from_slice(&a.min(b).to_le_bytes());
                        out.extend_from_slice(&a.max(b).to_le_bytes());
                    })
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                start = end;
            }
            Ok(out)
        })?;
        Ok(PyBytes::new(py, &out))
    }
}
