//! The Arrow kernels of the Spark backend's `reuse` job (`textreuse.spark.reuse`): each step of
//! `textreuse reuse`'s tf-idf search and alignment over whole batches, calling the
//! `textreuse-reuse` library's own steps ([`Reuse::chunk_vectors`], [`Reuse::pick_documents`],
//! [`Reuse::align_pair`]) and output formats, so that the job writes what the CLI writes. Its
//! tasks read their input files themselves ([`PyReuseFileReader`]), as the CLI reads them.
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, mpsc};

use pyo3::exceptions::{PyIOError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use textreuse_corpus::{DocId, Document, InputError, Inputs, Origin, Progress, error_chain};
use textreuse_dedup::pipeline::DocumentPipeline;
use textreuse_reuse::check::{CheckCorpus, CheckError, Checker, candidate_records, read_corpus};
use textreuse_reuse::{
    ALIGN_BATCH, CaseView, ChunkMatch, Classifier, CorpusView, DocumentTable, PairResult, Prepared,
    Reuse, ReuseError, ReuseKind, topic_title, write_case_lines, write_pair_row,
};

use crate::arrow::{
    ColumnError, HeldArray, I64Column, NullableInt64, NullableStrings, PushNe, StrColumn,
    StringBuilder,
};

fn bytes<'py>(py: Python<'py>, v: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, v)
}

fn reuse_error(e: ReuseError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A string column as `kernels.py` passes it: its parts and whether it is a `large_string`.
type StrArg<'py> = (Bound<'py, PyAny>, bool);

/// A string column's views, or an error naming it.
fn held_strings(arg: &StrArg<'_>, what: &str) -> PyResult<HeldArray> {
    HeldArray::extract(&arg.0, what)
}

/// The options of a `textreuse reuse` run with tf-idf candidates (the keyword arguments are its
/// flags), for the kernels of `textreuse.kernels` that take a `job`.
#[pyclass(name = "ReuseJob", frozen, module = "textreuse._native")]
pub(crate) struct PyReuseJob {
    inner: Reuse,
    /// Whether `reuse.jsonl` lines carry the passages' texts (`--passage-texts`).
    passage_texts: bool,
}

#[pymethods]
impl PyReuseJob {
    #[new]
    #[pyo3(signature = (
        *, terms = textreuse_reuse::DEFAULT_TERMS, top_docs = textreuse_reuse::DEFAULT_TOP_DOCS,
        max_postings = textreuse_reuse::DEFAULT_MAX_TERM_POSTINGS,
        min_score = textreuse_reuse::DEFAULT_MIN_SCORE,
        min_words = textreuse_shingle::DEFAULT_CHUNK_MIN_WORDS,
        min_length = textreuse_align::DEFAULT_MIN_PASSAGE_LEN, lang = "en",
        fallback_ngram = textreuse_reuse::DEFAULT_REUSE_FALLBACK_NGRAM,
        synonyms = textreuse_align::DEFAULT_SYNONYMS, classes = "default", passage_texts = false,
        max_memory = None,
    ))]
    // One argument per keyword of the Python constructor (the CLI's flags).
    #[allow(clippy::too_many_arguments)]
    fn new(
        terms: usize,
        top_docs: usize,
        max_postings: usize,
        min_score: f32,
        min_words: usize,
        min_length: usize,
        lang: &str,
        fallback_ngram: Option<usize>,
        synonyms: bool,
        classes: &str,
        passage_texts: bool,
        max_memory: Option<u64>,
    ) -> PyResult<Self> {
        let classifier: Classifier = classes.parse().map_err(PyValueError::new_err)?;
        let (language, detect) = crate::text::language_choice(lang)?;
        let mut builder = Reuse::builder();
        if let Some(bytes) = max_memory {
            builder.max_memory(bytes);
        }
        let inner = builder
            .terms(terms)
            .top_docs(top_docs)
            .max_postings(max_postings)
            .min_score(min_score)
            .chunks(textreuse_shingle::ChunkConfig {
                min_words,
                ..Default::default()
            })
            .min_passage_len(min_length)
            .language(language)
            .detect_language(detect)
            .fallback_ngram(fallback_ngram)
            .synonyms(synonyms)
            .classifier(classifier)
            .build()
            .map_err(reuse_error)?;
        Ok(PyReuseJob {
            inner,
            passage_texts,
        })
    }

    /// stats_template(documents, against_documents) -> str: `stats.json` of a run over these
    /// documents before it starts (its options, zero counts), as JSON in the CLI's field order.
    fn stats_template(&self, documents: u64, against_documents: u64) -> String {
        serde_json::to_string(&self.inner.new_stats(documents, against_documents))
            .expect("stats serialize")
    }
}

/// A batch of a [`PyReuseFileReader`] ends at its 4,096th document ...
const BATCH_DOCUMENTS: usize = 4096;
/// ... or at the document that brings its ids, titles and texts to 32 MiB (a longer document
/// makes a batch of its own).
const BATCH_BYTES: usize = 32 << 20;
/// Input problems of a file that a [`PyReuseFileReader`] describes; the others are counted.
const PROBLEM_MESSAGES: usize = 10;

/// The documents of one batch of a [`PyReuseFileReader`], as Arrow buffers.
struct DocumentBatch {
    len: usize,
    bytes: usize,
    k: Vec<u8>,
    ids: StringBuilder,
    titles: StringBuilder,
    texts: StringBuilder,
    sources: NullableStrings,
    records: NullableInt64,
    revisions: NullableInt64,
    timestamps: NullableStrings,
    urls: NullableStrings,
}

impl DocumentBatch {
    fn new() -> DocumentBatch {
        DocumentBatch {
            len: 0,
            bytes: 0,
            k: Vec::new(),
            ids: StringBuilder::new(),
            titles: StringBuilder::new(),
            texts: StringBuilder::new(),
            sources: NullableStrings::new(),
            records: NullableInt64::default(),
            revisions: NullableInt64::default(),
            timestamps: NullableStrings::new(),
            urls: NullableStrings::new(),
        }
    }

    /// Appends the file's document number `k`; the numbers above 2^63 of a record or revision
    /// go in as the int64 of their bits.
    fn push(&mut self, k: u64, doc: &Document) -> Result<(), ColumnError> {
        let id = doc.id.to_string();
        self.k.push_ne_u64(k);
        self.ids.push(&id)?;
        self.titles.push(&doc.title)?;
        self.texts.push(&doc.text)?;
        let o = &doc.origin;
        self.sources.push(o.source.as_deref())?;
        self.records.push(o.record.map(|r| r as i64));
        self.revisions.push(o.revision.map(|r| r as i64));
        self.timestamps.push(o.timestamp.as_deref())?;
        self.urls.push(o.url.as_deref())?;
        self.len += 1;
        self.bytes += id.len() + doc.title.len() + doc.text.len();
        Ok(())
    }

    fn is_full(&self) -> bool {
        self.len >= BATCH_DOCUMENTS || self.bytes >= BATCH_BYTES
    }

    /// The buffers, as `ReuseFileReader.__next__` returns them.
    fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyTuple>> {
        let strings = |b: StringBuilder| {
            let (o, d) = b.into_buffers();
            (bytes(py, &o), bytes(py, &d))
        };
        let nullable_strings = |b: NullableStrings| {
            let (o, d, v) = b.into_buffers();
            (bytes(py, &o), bytes(py, &d), v.map(|v| bytes(py, &v)))
        };
        let nullable_int64 = |b: NullableInt64| {
            let (values, v) = b.into_buffers();
            (bytes(py, &values), v.map(|v| bytes(py, &v)))
        };
        (
            bytes(py, &self.k),
            strings(self.ids),
            strings(self.titles),
            strings(self.texts),
            nullable_strings(self.sources),
            nullable_int64(self.records),
            nullable_int64(self.revisions),
            nullable_strings(self.timestamps),
            nullable_strings(self.urls),
        )
            .into_pyobject(py)
    }
}

/// The input problems of one file: all counted by the pipeline, the first
/// [`PROBLEM_MESSAGES`] kept as `textreuse reuse` logs them.
#[derive(Default)]
struct FileProblems(RefCell<Vec<String>>);

impl Progress for FileProblems {
    fn input_problem(&self, problem: &InputError) {
        let mut messages = self.0.borrow_mut();
        if messages.len() < PROBLEM_MESSAGES {
            messages.push(format!("skipped: {}", error_chain(problem)));
        }
    }
}

/// What a [`PyReuseFileReader`] read: documents, input problems, the first problems' messages.
type FileCounts = (u64, u64, Vec<String>);

/// Reads `path` (an input file, its position among the inputs after `files_before` others) as
/// `textreuse reuse` reads its inputs, sending its documents to `batches` in input order.
fn read_file(
    path: &str,
    files_before: u64,
    batches: &mpsc::SyncSender<DocumentBatch>,
) -> Result<FileCounts, String> {
    let problems = FileProblems::default();
    let mut batch = DocumentBatch::new();
    let counts = DocumentPipeline::new()
        .run(
            Inputs::new([path]).files_before(files_before),
            &problems,
            || (),
            // The pipeline cleans dump pages in parallel (Source::into_document, as the CLI).
            |_, _, doc| doc,
            |k, doc| {
                batch
                    .push(k, &doc)
                    .map_err(|e| textreuse_dedup::Error::Sink(e.0.into()))?;
                if batch.is_full() {
                    batches
                        .send(std::mem::replace(&mut batch, DocumentBatch::new()))
                        .map_err(|_| {
                            textreuse_dedup::Error::Sink("the reader was dropped".into())
                        })?;
                }
                Ok(())
            },
        )
        .map_err(|e| format!("{path}: {}", error_chain(&e)))?;
    if batch.len > 0 {
        // A reader dropped before the end wants no more batches.
        let _ = batches.send(batch);
    }
    Ok((
        counts.documents,
        counts.input_problems,
        problems.0.into_inner(),
    ))
}

/// Where a [`PyReuseFileReader`] is: reading (its batches arrive from a thread of their own),
/// or at the end.
enum FileReading {
    Reading {
        batches: mpsc::Receiver<DocumentBatch>,
        reader: std::thread::JoinHandle<Result<FileCounts, String>>,
    },
    Done(FileCounts),
}

/// ReuseFileReader(path, files_before=0)
///
/// The documents of one input file read as `textreuse reuse` reads its inputs (the dedup
/// library's `Inputs`: Wikipedia dumps, JSON Lines documents, WARC/WET, plain text; gzip,
/// zstd or bzip2 compressed or not; dump pages cleaned with `Source::into_document`, in
/// parallel on the rayon pool), `files_before` being the input files before it (a plain-text
/// document's id is its file's 1-based position). An iterator of batches of at most 4,096
/// documents (fewer when their text reaches 32 MiB), in file order, each a tuple of buffers:
/// `k` (native int64: the document's 0-based number in the file), `id`, `title`, `text`
/// (string `(offsets, data)`), `source` (string `(offsets, data, validity)`), `record`,
/// `revision` (int64 `(values, validity)`, u64 bits) and `timestamp` (as `source`); a
/// validity of `None` means no nulls. Input problems are skipped; once the iterator is
/// exhausted, `documents` and `problems` count what it read and skipped, and `messages`
/// describes the first ten problems as `textreuse reuse` logs them (`skipped: ...`).
#[pyclass(name = "ReuseFileReader", module = "textreuse._native")]
pub(crate) struct PyReuseFileReader {
    // A Mutex only to make the receiver Sync; `__next__` takes `&mut self` and never locks.
    state: Mutex<FileReading>,
}

#[pymethods]
impl PyReuseFileReader {
    #[new]
    #[pyo3(signature = (path, files_before = 0))]
    fn new(path: String, files_before: u64) -> PyResult<Self> {
        let (tx, batches) = mpsc::sync_channel(1);
        let reader = std::thread::Builder::new()
            .name("textreuse-read-file".into())
            .spawn(move || read_file(&path, files_before, &tx))?;
        Ok(PyReuseFileReader {
            state: Mutex::new(FileReading::Reading { batches, reader }),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, pyo3::types::PyTuple>>> {
        let state = self.state.get_mut().expect("not poisoned");
        let FileReading::Reading { batches, .. } = state else {
            return Ok(None);
        };
        // Moved in as `&mut`: the receiver is Send but not Sync.
        let batches = &mut *batches;
        if let Ok(batch) = py.detach(move || batches.recv()) {
            return batch.into_py(py).map(Some);
        }
        // The reader has ended (its sender is gone).
        let FileReading::Reading { reader, .. } =
            std::mem::replace(state, FileReading::Done((0, 0, Vec::new())))
        else {
            unreachable!("matched above")
        };
        match py.detach(|| reader.join()) {
            Ok(Ok(counts)) => {
                *state = FileReading::Done(counts);
                Ok(None)
            }
            Ok(Err(e)) => Err(PyIOError::new_err(e)),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }

    /// The documents read (once the iterator is exhausted).
    #[getter]
    fn documents(&self) -> PyResult<u64> {
        self.with_counts(|c| c.0)
    }

    /// The input problems skipped (once the iterator is exhausted).
    #[getter]
    fn problems(&self) -> PyResult<u64> {
        self.with_counts(|c| c.1)
    }

    /// The first ten problems as `textreuse reuse` logs them (once the iterator is exhausted).
    #[getter]
    fn messages(&self) -> PyResult<Vec<String>> {
        self.with_counts(|c| c.2.clone())
    }
}

impl PyReuseFileReader {
    fn with_counts<T>(&self, f: impl FnOnce(&FileCounts) -> T) -> PyResult<T> {
        match &*self.state.lock().expect("not poisoned") {
            FileReading::Done(counts) => Ok(f(counts)),
            FileReading::Reading { .. } => Err(PyValueError::new_err(
                "the file is still being read: exhaust the iterator first",
            )),
        }
    }
}

/// reuse_document_terms(text, large) -> (rows, keys)
///
/// Each non-null row's distinct terms ([`Reuse::document_terms`]): `(row, key)` records,
/// native uint32 and uint64.
#[pyfunction]
pub(crate) fn reuse_document_terms<'py>(
    py: Python<'py>,
    text: StrArg<'py>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let held = held_strings(&text, "text")?;
    let col = held.strings(text.1, "text")?;
    let (rows, keys) = py.detach(|| -> Result<_, ColumnError> {
        let (mut rows, mut keys) = (Vec::new(), Vec::new());
        for i in 0..col.len() {
            let Some(t) = col.get(i)? else { continue };
            for k in Reuse::document_terms(t) {
                rows.push_ne_u32(i as u32);
                keys.push_ne_u64(k);
            }
        }
        Ok((rows, keys))
    })?;
    Ok((bytes(py, &rows), bytes(py, &keys)))
}

/// The int64 view of a column, or an error naming it.
fn int64<'a>(held: &'a HeldArray, what: &str) -> Result<I64Column<'a>, ColumnError> {
    held.int64(what)
}

/// reuse_chunk_vectors(job, text, large, lengths, keys, dfs, documents)
///     -> (rows, chunks, terms, weights)
///
/// The pruned tf-idf vectors of each row's chunks ([`Reuse::chunk_vectors`]): row `i` has
/// text `text[i]` and the document frequencies of its terms, the next `lengths[i]` entries of
/// `keys` (int64 bits of the uint64 keys) and `dfs`, in any order; `documents` is the number of
/// documents. Records `(row, chunk, term, weight)`: native uint32, uint32, uint64, float32.
#[pyfunction]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn reuse_chunk_vectors<'py>(
    py: Python<'py>,
    job: &Bound<'py, PyReuseJob>,
    text: StrArg<'py>,
    lengths: &Bound<'py, PyAny>,
    keys: &Bound<'py, PyAny>,
    dfs: &Bound<'py, PyAny>,
    documents: u64,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let job = &job.get().inner;
    let held_text = held_strings(&text, "text")?;
    let (held_len, held_keys, held_dfs) = (
        HeldArray::extract(lengths, "lengths")?,
        HeldArray::extract(keys, "keys")?,
        HeldArray::extract(dfs, "dfs")?,
    );
    let col = held_text.strings(text.1, "text")?;
    let (len, key, df) = (
        int64(&held_len, "lengths")?,
        int64(&held_keys, "keys")?,
        int64(&held_dfs, "dfs")?,
    );
    if len.len() != col.len() || key.len() != df.len() {
        return Err(PyValueError::new_err(
            "text and lengths, and keys and dfs, must have the same lengths",
        ));
    }
    let out = py.detach(|| -> Result<_, ColumnError> {
        let (mut rows, mut chunks, mut terms, mut weights) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut at = 0usize;
        let mut table: Vec<(u64, u32)> = Vec::new();
        for i in 0..col.len() {
            let n = usize::try_from(len.required(i, "lengths")?)
                .map_err(|_| ColumnError(format!("lengths: row {i} is negative")))?;
            if at + n > key.len() {
                return Err(ColumnError(
                    "lengths: the lengths add up to more than keys holds".into(),
                ));
            }
            table.clear();
            for j in at..at + n {
                let d = df.required(j, "dfs")?;
                let d = u32::try_from(d)
                    .map_err(|_| ColumnError(format!("dfs: row {j} is out of range ({d})")))?;
                table.push((key.required(j, "keys")? as u64, d));
            }
            at += n;
            table.sort_unstable();
            let Some(t) = col.get(i)? else { continue };
            let lookup = |term: u64| match table.binary_search_by_key(&term, |&(k, _)| k) {
                Ok(x) => table[x].1,
                Err(_) => 1,
            };
            for (c, v) in job
                .chunk_vectors(t, lookup, documents)
                .into_iter()
                .enumerate()
            {
                for (term, w) in v {
                    rows.push_ne_u32(i as u32);
                    chunks.push_ne_u32(c as u32);
                    terms.push_ne_u64(term);
                    weights.extend_from_slice(&w.to_ne_bytes());
                }
            }
        }
        Ok((rows, chunks, terms, weights))
    })?;
    let (rows, chunks, terms, weights) = out;
    Ok((
        bytes(py, &rows),
        bytes(py, &chunks),
        bytes(py, &terms),
        bytes(py, &weights),
    ))
}

/// A float32 given as the int64 of its bits (`kernels.py` widens float32 arrays so).
fn f32_bits(col: &I64Column<'_>, i: usize, what: &str) -> Result<f32, ColumnError> {
    Ok(f32::from_bits(col.required(i, what)? as u32))
}

/// reuse_pick_documents(job, query, chunk, doc, term, query_weight, weight)
///     -> (queries, docs, scored)
///
/// The nominations of query chunks ([`Reuse::pick_documents`]) from their weight products with
/// other chunks: one row per product, the rows of a query chunk contiguous (any order inside).
/// `query` and `chunk` are chunk numbers (int64; a document's chunks together, documents in
/// order), `doc` the other chunk's document number, `term` the shared term's key bits, the
/// weights float32 bits as int64. Returns `(query, doc)` per nomination (native int64 each)
/// and the number of chunk pairs scored.
#[pyfunction]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn reuse_pick_documents<'py>(
    py: Python<'py>,
    job: &Bound<'py, PyReuseJob>,
    query: &Bound<'py, PyAny>,
    chunk: &Bound<'py, PyAny>,
    doc: &Bound<'py, PyAny>,
    term: &Bound<'py, PyAny>,
    query_weight: &Bound<'py, PyAny>,
    weight: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, u64)> {
    let job = &job.get().inner;
    let held: Vec<HeldArray> = [
        (query, "query"),
        (chunk, "chunk"),
        (doc, "doc"),
        (term, "term"),
        (query_weight, "query_weight"),
        (weight, "weight"),
    ]
    .into_iter()
    .map(|(a, what)| HeldArray::extract(a, what))
    .collect::<PyResult<_>>()?;
    let names = ["query", "chunk", "doc", "term", "query_weight", "weight"];
    let cols: Vec<I64Column<'_>> = held
        .iter()
        .zip(names)
        .map(|(h, what)| h.int64(what))
        .collect::<Result<_, _>>()?;
    let n = cols[0].len();
    if cols.iter().any(|c| c.len() != n) {
        return Err(PyValueError::new_err(
            "the columns must have the same length",
        ));
    }
    let (queries, docs, scored) = py.detach(|| -> Result<_, ColumnError> {
        let (mut queries, mut docs) = (Vec::new(), Vec::new());
        let mut scored = 0u64;
        let mut matches: Vec<ChunkMatch> = Vec::new();
        let mut i = 0;
        while i < n {
            let q = cols[0].required(i, "query")?;
            matches.clear();
            while i < n && cols[0].required(i, "query")? == q {
                let d = cols[2].required(i, "doc")?;
                let d = u32::try_from(d)
                    .map_err(|_| ColumnError(format!("doc: row {i} is out of range ({d})")))?;
                matches.push(ChunkMatch {
                    chunk: cols[1].required(i, "chunk")? as u64,
                    doc: d,
                    term: cols[3].required(i, "term")? as u64,
                    product: f32_bits(&cols[4], i, "query_weight")?
                        * f32_bits(&cols[5], i, "weight")?,
                });
                i += 1;
            }
            let (n_scored, picks) = job.pick_documents(&mut matches);
            scored += n_scored;
            for (d, _) in picks {
                queries.push_ne_u64(q as u64);
                docs.push_ne_u64(u64::from(d));
            }
        }
        Ok((queries, docs, scored))
    })?;
    Ok((bytes(py, &queries), bytes(py, &docs), scored))
}

/// One side of the pairs given to `reuse_align`: the document number, id, title, text and
/// provenance.
struct Side<'a> {
    n: I64Column<'a>,
    id: StrColumn<'a>,
    title: StrColumn<'a>,
    text: StrColumn<'a>,
    source: StrColumn<'a>,
    record: I64Column<'a>,
    revision: I64Column<'a>,
    timestamp: StrColumn<'a>,
    url: StrColumn<'a>,
}

/// The held arrays of a [`Side`]: number, id, title, text, source, record, revision,
/// timestamp, url.
struct HeldSide {
    arrays: [HeldArray; 9],
    large: [bool; 6],
    what: &'static str,
}

impl HeldSide {
    fn extract(side: &Bound<'_, PyAny>, what: &'static str) -> PyResult<HeldSide> {
        type Parts<'py> = (
            Bound<'py, PyAny>,
            StrArg<'py>,
            StrArg<'py>,
            StrArg<'py>,
            StrArg<'py>,
            Bound<'py, PyAny>,
            Bound<'py, PyAny>,
            StrArg<'py>,
            StrArg<'py>,
        );
        let (n, id, title, text, source, record, revision, timestamp, url): Parts<'_> =
            side.extract()?;
        Ok(HeldSide {
            arrays: [
                HeldArray::extract(&n, what)?,
                HeldArray::extract(&id.0, what)?,
                HeldArray::extract(&title.0, what)?,
                HeldArray::extract(&text.0, what)?,
                HeldArray::extract(&source.0, what)?,
                HeldArray::extract(&record, what)?,
                HeldArray::extract(&revision, what)?,
                HeldArray::extract(&timestamp.0, what)?,
                HeldArray::extract(&url.0, what)?,
            ],
            large: [id.1, title.1, text.1, source.1, timestamp.1, url.1],
            what,
        })
    }

    fn view(&self) -> Result<Side<'_>, ColumnError> {
        let [n, id, title, text, source, record, revision, timestamp, url] = &self.arrays;
        let w = self.what;
        Ok(Side {
            n: n.int64(w)?,
            id: id.strings(self.large[0], w)?,
            title: title.strings(self.large[1], w)?,
            text: text.strings(self.large[2], w)?,
            source: source.strings(self.large[3], w)?,
            record: record.int64(w)?,
            revision: revision.int64(w)?,
            timestamp: timestamp.strings(self.large[4], w)?,
            url: url.strings(self.large[5], w)?,
        })
    }
}

/// Row `i` of a string column that must not hold nulls.
fn required<'a>(c: &StrColumn<'a>, i: usize, what: &str) -> Result<&'a str, ColumnError> {
    c.get(i)?
        .ok_or_else(|| ColumnError(format!("{what}: row {i} is null")))
}

impl<'a> Side<'a> {
    /// Row `i`'s number, the document (its text left out: the outputs need its name and
    /// provenance) and its text. Records and revisions are int64 holding the u64 bits.
    fn get(&self, i: usize) -> Result<(usize, Document, &'a str), ColumnError> {
        let n = self.n.required(i, "n")?;
        let n = usize::try_from(n).map_err(|_| ColumnError(format!("n: row {i} is negative")))?;
        let doc = Document {
            id: DocId::from(required(&self.id, i, "id")?),
            title: self.title.get(i)?.unwrap_or("").to_string(),
            text: String::new(),
            origin: Origin {
                source: self.source.get(i)?.map(Into::into),
                record: self.record.get(i).map(|r| r as u64),
                revision: self.revision.get(i).map(|r| r as u64),
                timestamp: self.timestamp.get(i)?.map(Into::into),
                url: self.url.get(i)?.map(Into::into),
            },
            links: None,
        };
        Ok((n, doc, required(&self.text, i, "text")?))
    }
}

/// reuse_align(job, suspicious, source, support, align)
///     -> (lines, pair_rows, cases, content, structure, spurious, suspicious_chars, source_chars,
///         ranges, features)
///
/// Aligns each candidate pair ([`Reuse::align_pair`]) and formats it as `textreuse reuse`
/// does. `suspicious` and `source` are `(n, id, title, text, source, record, revision,
/// timestamp)` column tuples (the document numbers and ids, and their provenance as
/// `ReuseFileReader` gives it), `support` the pair's
/// nominations (int64). Returns per pair its `reuse.jsonl` lines and `pairs.tsv` row (string
/// buffers), its passages, content, structure and spurious passages and both documents' lengths
/// in characters (native uint32, uint32, uint32, uint32, uint64, uint64), and per passage its
/// character ranges `(suspicious start, end, source start, end)` (four native uint64 buffers)
/// and what the corpus view needs of it, `(kind, words, jaccard_2, jaccard_10)` (the kind's
/// index in `ReuseKind::ALL` as uint8, the suspicious passage's words as uint64, two native
/// float64 buffers; [`PyReuseCorpusView::add`] takes them back). Without
/// `align`, no pair has passages (`textreuse reuse --candidates-only`).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn reuse_align<'py>(
    py: Python<'py>,
    job: &Bound<'py, PyReuseJob>,
    suspicious: &Bound<'py, PyAny>,
    source: &Bound<'py, PyAny>,
    support: &Bound<'py, PyAny>,
    align: bool,
) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
    let (texts, job) = (job.get().passage_texts, &job.get().inner);
    let (held_susp, held_src) = (
        HeldSide::extract(suspicious, "suspicious")?,
        HeldSide::extract(source, "source")?,
    );
    let held_support = HeldArray::extract(support, "support")?;
    let (susp, src, support) = (
        held_susp.view()?,
        held_src.view()?,
        held_support.int64("support")?,
    );
    let n = support.len();
    if susp.n.len() != n || src.n.len() != n {
        return Err(PyValueError::new_err(
            "the columns must have the same length",
        ));
    }
    let out = py.detach(|| -> Result<_, ColumnError> {
        let (mut lines, mut rows) = (StringBuilder::new(), StringBuilder::new());
        let mut counts = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        let mut chars = [Vec::new(), Vec::new()];
        let mut ranges = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        let mut features = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        let mut buf = Vec::new();
        // Each document is tokenized once per run of ALIGN_BATCH rows (or of
        // PREPARED_TEXT_BYTES of text, or the alignment's share of `max_memory`), for all its
        // pairs there (Spark's join hands the pairs over grouped by one side).
        let cap = job.memory().align_text;
        let mut prepared: HashMap<usize, Prepared<'_>> = HashMap::new();
        let mut prepared_bytes = 0;
        for i in 0..n {
            let (susp_n, susp_doc, susp_text) = susp.get(i)?;
            let (src_n, src_doc, src_text) = src.get(i)?;
            let shared = support.required(i, "support")?;
            let cases = if align {
                let new: usize = [(susp_n, susp_text), (src_n, src_text)]
                    .iter()
                    .filter(|(n, _)| !prepared.contains_key(n))
                    .map(|(_, t)| t.len())
                    .sum();
                if i % ALIGN_BATCH == 0 || prepared_bytes + new > cap {
                    prepared.clear();
                    prepared_bytes = 0;
                }
                for (n, text) in [(susp_n, susp_text), (src_n, src_text)] {
                    prepared.entry(n).or_insert_with(|| {
                        prepared_bytes += text.len();
                        job.prepare(text)
                    });
                }
                let titles = (topic_title(&src_doc), topic_title(&susp_doc));
                job.align_prepared_pair(&prepared[&src_n], &prepared[&susp_n], Some(titles))
            } else {
                Vec::new()
            };
            let pair = PairResult {
                suspicious: (susp_n, &susp_doc),
                source: (src_n, &src_doc),
                texts: (susp_text, src_text),
                support: u32::try_from(shared).unwrap_or(u32::MAX),
                cases: &cases,
            };
            let io = |e: std::io::Error| ColumnError(e.to_string());
            buf.clear();
            write_case_lines(&mut buf, &pair, texts).map_err(io)?;
            lines.push(std::str::from_utf8(&buf).expect("JSON is UTF-8"))?;
            buf.clear();
            write_pair_row(&mut buf, &pair).map_err(io)?;
            rows.push(std::str::from_utf8(&buf).expect("TSV of strings is UTF-8"))?;
            let of_kind = |k| cases.iter().filter(|c| c.kind() == k).count() as u32;
            counts[0].push_ne_u32(cases.len() as u32);
            counts[1].push_ne_u32(of_kind(ReuseKind::Content));
            counts[2].push_ne_u32(of_kind(ReuseKind::Structure));
            counts[3].push_ne_u32(of_kind(ReuseKind::Spurious));
            // The lengths go into documents.tsv, which lists documents with reuse only.
            let length = |t: &str| {
                if cases.is_empty() {
                    0
                } else {
                    t.chars().count() as u64
                }
            };
            chars[0].push_ne_u64(length(susp_text));
            chars[1].push_ne_u64(length(src_text));
            for c in &cases {
                ranges[0].push_ne_u64(c.suspicious.start as u64);
                ranges[1].push_ne_u64(c.suspicious.end as u64);
                ranges[2].push_ne_u64(c.source.start as u64);
                ranges[3].push_ne_u64(c.source.end as u64);
                let v = CaseView::from(c);
                let kind = ReuseKind::ALL.iter().position(|&k| k == v.kind);
                features[0].push(kind.expect("every kind is in ALL") as u8);
                features[1].push_ne_u64(v.words as u64);
                features[2].extend_from_slice(&v.jaccard_2.to_ne_bytes());
                features[3].extend_from_slice(&v.jaccard_10.to_ne_bytes());
            }
        }
        Ok((lines, rows, counts, chars, ranges, features))
    })?;
    let (lines, rows, counts, chars, ranges, features) = out;
    let strings = |b: StringBuilder| {
        let (o, d) = b.into_buffers();
        (bytes(py, &o), bytes(py, &d))
    };
    let [cases, content, structure, spurious] = counts.map(|v| bytes(py, &v));
    let [susp_chars, src_chars] = chars.map(|v| bytes(py, &v));
    let ranges = ranges.map(|v| bytes(py, &v));
    let features = features.map(|v| bytes(py, &v));
    (
        strings(lines),
        strings(rows),
        cases,
        content,
        structure,
        spurious,
        susp_chars,
        src_chars,
        ranges,
        features,
    )
        .into_pyobject(py)
}

/// `documents.tsv` of a reuse run aligned elsewhere: documents added pair by pair, written as
/// `textreuse reuse` writes the file.
#[pyclass(name = "ReuseDocuments", module = "textreuse._native")]
pub(crate) struct PyReuseDocuments {
    table: DocumentTable,
}

#[pymethods]
impl PyReuseDocuments {
    #[new]
    fn new() -> Self {
        PyReuseDocuments {
            table: DocumentTable::default(),
        }
    }

    /// add(n, id, title, input, chars, cases, starts, ends): `cases` passages of document
    /// number `n` covering the character ranges `starts[i]..ends[i]`.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        n: usize,
        id: &str,
        title: &str,
        input: Option<&str>,
        chars: usize,
        cases: u64,
        starts: Vec<usize>,
        ends: Vec<usize>,
    ) -> PyResult<()> {
        if starts.len() != ends.len() {
            return Err(PyValueError::new_err("starts and ends differ in length"));
        }
        let doc = Document {
            id: DocId::from(id),
            title: title.to_string(),
            text: String::new(),
            origin: Origin {
                source: input.map(Into::into),
                ..Origin::default()
            },
            links: None,
        };
        self.table.add(
            n,
            &doc,
            chars,
            cases,
            starts.into_iter().zip(ends).map(|(s, e)| s..e),
        )?;
        Ok(())
    }

    /// write(path): writes `documents.tsv` to `path`.
    fn write(&mut self, path: PathBuf) -> PyResult<()> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
        self.table.write(&mut w)?;
        std::io::Write::flush(&mut w)?;
        Ok(())
    }
}

/// `corpus.json` of a reuse run aligned elsewhere ([`CorpusView`]): candidate pairs added in
/// the CLI's order, written as `textreuse reuse` writes the file.
#[pyclass(name = "ReuseCorpusView", module = "textreuse._native")]
pub(crate) struct PyReuseCorpusView {
    view: CorpusView,
}

#[pymethods]
impl PyReuseCorpusView {
    #[new]
    fn new() -> Self {
        PyReuseCorpusView {
            view: CorpusView::new(),
        }
    }

    /// add(suspicious, source, susp_starts, susp_ends, src_starts, src_ends, kinds, words,
    ///     jaccard_2, jaccard_10): a candidate pair, each document `(n, id, title)`, with its
    ///     cases as `reuse_align` returns them (character ranges on both sides, the kind's index
    ///     in `ReuseKind::ALL`, the suspicious passage's words, the word 2-gram and 10-gram
    ///     Jaccard); no cases for a pair the alignment did not confirm.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        suspicious: (usize, String, Option<String>),
        source: (usize, String, Option<String>),
        susp_starts: Vec<usize>,
        susp_ends: Vec<usize>,
        src_starts: Vec<usize>,
        src_ends: Vec<usize>,
        kinds: Vec<usize>,
        words: Vec<usize>,
        jaccard_2: Vec<f64>,
        jaccard_10: Vec<f64>,
    ) -> PyResult<()> {
        let n = kinds.len();
        let lengths = [
            susp_starts.len(),
            susp_ends.len(),
            src_starts.len(),
            src_ends.len(),
            words.len(),
            jaccard_2.len(),
            jaccard_10.len(),
        ];
        if lengths.iter().any(|&l| l != n) {
            return Err(PyValueError::new_err("the cases' lists differ in length"));
        }
        let doc = |(_, id, title): &(usize, String, Option<String>)| {
            Document::new(
                DocId::from(id.as_str()),
                title.clone().unwrap_or_default(),
                "",
            )
        };
        let (susp, src) = (doc(&suspicious), doc(&source));
        let mut cases = Vec::with_capacity(n);
        for i in 0..n {
            let kind = *ReuseKind::ALL
                .get(kinds[i])
                .ok_or_else(|| PyValueError::new_err(format!("kind {} is unknown", kinds[i])))?;
            cases.push(CaseView {
                suspicious: susp_starts[i]..susp_ends[i],
                source: src_starts[i]..src_ends[i],
                kind,
                words: words[i],
                jaccard_2: jaccard_2[i],
                jaccard_10: jaccard_10[i],
            });
        }
        self.view
            .add((suspicious.0, &susp), (source.0, &src), cases)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// write(path, documents): writes `corpus.json` to `path`; `documents` is the run's number
    /// of documents (both sides).
    fn write(&mut self, path: PathBuf, documents: u64) -> PyResult<()> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
        self.view.set_documents(documents);
        self.view.write_json(&mut w)?;
        std::io::Write::flush(&mut w)?;
        Ok(())
    }
}

/// One suspicious document of [`check`]: a path (read as UTF-8 text, named by the path as
/// given) or a `(name, text)` pair.
#[derive(FromPyObject)]
pub(crate) enum Suspicious {
    Named(String, String),
    Path(PathBuf),
}

fn check_error(e: CheckError) -> PyErr {
    match e {
        CheckError::Io { .. } | CheckError::Index(textreuse_index::Error::Io { .. }) => {
            PyIOError::new_err(e.to_string())
        }
        e => PyValueError::new_err(e.to_string()),
    }
}

/// check(suspicious, corpus=None, *, index=None, top=10, min_length=150, lang="en",
///       synonyms=True, fallback_ngram=4, ngram=2, rows=2, bands=30, excerpt=160,
///       candidates_only=False, threads=1) -> list[dict]
///
/// The plagiarism check of `textreuse check` (`textreuse_reuse::Checker`): the records it
/// writes as JSON lines, as dicts, in the same order. `suspicious` is a list of paths (read as
/// text, named by the path as given, like the command's arguments) or `(name, text)` pairs.
/// The corpus is `corpus` (a path, read as `check --corpus` reads it: a directory's `*.txt`
/// files in sorted order, or one input of any format; bad records are skipped with a warning)
/// or `index` (a persistent chunk index's directory, `check --index`). The other keywords are
/// the command's flags. Runs with the GIL released.
#[pyfunction]
#[pyo3(signature = (
    suspicious, corpus=None, *, index=None, top=textreuse_reuse::check::DEFAULT_CHECK_SOURCES,
    min_length=textreuse_align::DEFAULT_MIN_PASSAGE_LEN, lang="en",
    synonyms=textreuse_align::DEFAULT_SYNONYMS,
    fallback_ngram=textreuse_align::DEFAULT_FALLBACK_NGRAM,
    ngram=textreuse_shingle::DEFAULT_CHUNK_NGRAM, rows=textreuse_minhash::DEFAULT_CHUNK_ROWS,
    bands=textreuse_minhash::DEFAULT_CHUNK_BANDS, excerpt=160, candidates_only=false, threads=1,
))]
// One argument per flag of `textreuse check`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check<'py>(
    py: Python<'py>,
    suspicious: Vec<Suspicious>,
    corpus: Option<PathBuf>,
    index: Option<PathBuf>,
    top: usize,
    min_length: usize,
    lang: &str,
    synonyms: bool,
    fallback_ngram: Option<usize>,
    ngram: usize,
    rows: usize,
    bands: usize,
    excerpt: usize,
    candidates_only: bool,
    threads: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let (language, detect) = crate::text::language_choice(lang)?;
    let aligner = textreuse_align::Aligner::builder()
        .min_passage_len(min_length)
        .fallback_ngram(fallback_ngram)
        .synonyms(synonyms)
        .language(language)
        .detect_language(detect)
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut chunks = textreuse_index::MemoryIndex::builder();
    chunks
        .chunks(textreuse_shingle::ChunkConfig {
            ngram,
            ..Default::default()
        })
        .signer(textreuse_minhash::SignerConfig {
            rows,
            bands,
            ..textreuse_minhash::SignerConfig::chunks()
        });
    let checker = Checker::builder()
        .index(chunks)
        .aligner(aligner)
        .top(top)
        .build()
        .map_err(check_error)?;
    let mut problems = Vec::new();
    let lines = py.detach(|| -> PyResult<Vec<String>> {
        let corpus = match (corpus, index) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err("give corpus or index, not both"));
            }
            (None, None) => return Err(PyValueError::new_err("give corpus or index")),
            (None, Some(dir)) => {
                let index = textreuse_index::Index::open(&dir)
                    .map_err(|e| check_error(CheckError::Index(e)))?;
                CheckCorpus::from_index(index)
                    .map_err(|e| PyValueError::new_err(format!("{}: {e}", dir.display())))?
            }
            (Some(path), None) => {
                let docs = read_corpus(&path, threads, |e| problems.push(error_chain(&e)))
                    .map_err(check_error)?;
                checker.index(docs)
            }
        };
        let mut lines = Vec::new();
        for s in suspicious {
            let (name, text) = match s {
                Suspicious::Named(name, text) => (name, text),
                Suspicious::Path(path) => {
                    let text = std::fs::read_to_string(&path).map_err(|e| {
                        PyIOError::new_err(format!("reading {}: {e}", path.display()))
                    })?;
                    (path.display().to_string(), text)
                }
            };
            let sources = checker.candidates(&corpus, &text).map_err(check_error)?;
            let records = if candidates_only {
                candidate_records(&name, &sources)
            } else {
                checker.align(sources, &text).records(&name, &text, excerpt)
            };
            lines.extend(records.iter().map(|r| r.to_string()));
        }
        Ok(lines)
    })?;
    let warn = py.import("warnings")?.getattr("warn")?;
    for p in problems {
        warn.call1((format!("skipped: {p}"),))?;
    }
    // The records as the command writes them, parsed by Python's json module (the same
    // numbers, in the same key order).
    py.import("json")?
        .getattr("loads")?
        .call1((format!("[{}]", lines.join(",")),))
}
