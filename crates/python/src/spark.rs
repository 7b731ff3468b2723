//! The kernels of the Spark dedup job (`textreuse.spark.dedup`): Spark moves compact records
//! between them and never parses the text.
//!
//! - `sentence_tasks`, `sentence_keys`: stages 1-2 inside the tasks. Each task reads a byte
//!   range of a sentence-record file (a whole file when compressed) with the dedup library's
//!   reader ([`textreuse_dedup::records`]), filters, signs, and returns its `(band key, id)`
//!   records as packed little-endian blobs, one per shuffle partition.
//! - `BucketPairs`: stages 3-4 in a shuffle partition: the library's [`Shuffle`] (sort, buckets,
//!   star pairs or capped all pairs, de-duplication) over the partition's records.
//! - `distinct_pairs`, `pair_clusters`: stage 5 on the driver (sort, de-duplicate, union-find).
//! - `member_lines`: stage 6 inside the tasks: the records of clustered sentences, tagged with
//!   their cluster and output range.
//! - `cluster_chunk`: stage 8 per output range: the lines `textreuse dedup` writes, their
//!   counts, and each cluster's articles; `article_pairs_tsv` ranks the article pairs on the
//!   driver with the library's [`article_pair_rows`].
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::Path;

use pyo3::exceptions::{PyIOError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use textreuse_corpus::source::{Include, Inputs, walk};
use textreuse_corpus::{DocId, Progress};
use textreuse_dedup::article_pairs::{MAX_CLUSTER_ARTICLES, article_indices, article_pair_rows};
use textreuse_dedup::contradictions::Contradiction;
use textreuse_dedup::pipeline::DocumentPipeline;
use textreuse_dedup::records::{SentenceRecord, file_ranges, read_lines};
use textreuse_dedup::summaries::{ClusterCounts, article_chains};
use textreuse_dedup::{ArticlePairRow, Cluster, Error, Member};
use textreuse_minhash::TextSigner;
use textreuse_shingle::units::Unit;
use textreuse_shingle::units::{KeptSentences, SentenceFilter, UnknownUnit};
use textreuse_shuffle::{PairMode, Shuffle, ShuffleBuilder};
use textreuse_unionfind::Clustering;

use crate::arrow::{ColumnError, HeldArray, HeldBuffer, StrColumn};
use crate::batch_kernels::{min_jaccard, parse_keep};
use crate::signer::{PySigner, shingle_len};

/// Records per blob (16 bytes each): 4 MiB.
const BLOB_RECORDS: usize = 1 << 18;

/// Members of the clusters formatted per output row.
const CHUNK_MEMBERS: usize = 1 << 15;

fn io_err(e: io::Error) -> PyErr {
    PyIOError::new_err(e.to_string())
}

/// Little-endian `(u64, u64)` records of a blob.
fn records(blob: &[u8]) -> PyResult<impl Iterator<Item = (u64, u64)> + '_> {
    if !blob.len().is_multiple_of(16) {
        return Err(PyValueError::new_err(format!(
            "a record blob holds 16-byte records, got {} bytes",
            blob.len()
        )));
    }
    Ok(blob.chunks_exact(16).map(|r| {
        let (a, b) = r.split_at(8);
        (
            u64::from_le_bytes(a.try_into().expect("8 bytes")),
            u64::from_le_bytes(b.try_into().expect("8 bytes")),
        )
    }))
}

/// The little-endian u64 values of `blob` (the column or blob named `what`).
pub(crate) fn u64s(blob: &[u8], what: &str) -> PyResult<Vec<u64>> {
    if !blob.len().is_multiple_of(8) {
        return Err(PyValueError::new_err(format!(
            "{what}: expected little-endian u64 values, got {} bytes",
            blob.len()
        )));
    }
    Ok(blob
        .chunks_exact(8)
        .map(|v| u64::from_le_bytes(v.try_into().expect("8 bytes")))
        .collect())
}

fn push_record(out: &mut Vec<u8>, a: u64, b: u64) {
    out.extend_from_slice(&a.to_le_bytes());
    out.extend_from_slice(&b.to_le_bytes());
}

/// sentence_tasks(paths, split) -> list[(path, start, end)]
///
/// The read tasks of sentence-record files: byte ranges of about `split` bytes of each
/// uncompressed file, one task per compressed file (see `textreuse_dedup::records`).
#[pyfunction]
pub(crate) fn sentence_tasks(paths: Vec<String>, split: u64) -> PyResult<Vec<(String, u64, u64)>> {
    let mut tasks = Vec::new();
    for path in paths {
        let ranges = file_ranges(Path::new(&path), split)
            .map_err(|e| PyIOError::new_err(format!("{path}: {e}")))?;
        tasks.extend(ranges.into_iter().map(|(s, e)| (path.clone(), s, e)));
    }
    Ok(tasks)
}

/// The read counts of one task: what `stats.json` needs of stages 1-2.
#[derive(Default)]
struct ReadCounts {
    sentences: u64,
    /// The distinct document positions (`id >> 32`) seen, sorted.
    seqs: Vec<u32>,
}

/// The sentence records of one task: a byte range of a file, which the task reads itself, or
/// the lines of a string column (files Spark read as text: remote storage).
pub(crate) enum Lines<'a> {
    Range { path: String, start: u64, end: u64 },
    Column(StrColumn<'a>),
}

impl<'a> Lines<'a> {
    /// The task's lines from the arguments of a kernel: `path` (with `start` and `end`) or
    /// `lines` (an Arrow string column, `large` for 64-bit offsets).
    pub(crate) fn of(
        path: Option<String>,
        start: u64,
        end: u64,
        lines: Option<&'a HeldArray>,
        large: bool,
    ) -> PyResult<Lines<'a>> {
        match (path, lines) {
            (Some(path), None) => Ok(Lines::Range { path, start, end }),
            (None, Some(held)) => Ok(Lines::Column(held.strings(large, "lines")?)),
            _ => Err(PyValueError::new_err("give either path or lines")),
        }
    }

    /// Calls `f(line, where)` for each non-empty line; `where` names it for messages.
    fn each(
        &self,
        mut f: impl FnMut(&[u8], &dyn Fn() -> String) -> io::Result<()>,
    ) -> PyResult<()> {
        match self {
            Lines::Range { path, start, end } => {
                read_lines(Path::new(path), *start, *end, |line, at| {
                    f(line, &|| format!("{path}: the line at byte {at}"))
                })
                .map_err(io_err)
            }
            Lines::Column(col) => {
                for i in 0..col.len() {
                    // Lines split at `\n` only: a `\r\n` line keeps its `\r`.
                    let line = col.get(i)?.map(|l| l.strip_suffix('\r').unwrap_or(l));
                    match line {
                        Some(line) if !line.is_empty() => {
                            f(line.as_bytes(), &|| format!("line {i} of the batch"))
                                .map_err(io_err)?
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
        }
    }

    /// Calls `f` with each parsed record.
    pub(crate) fn each_record(
        &self,
        mut f: impl FnMut(SentenceRecord<'_>) -> io::Result<()>,
    ) -> PyResult<()> {
        self.each(|line, place| {
            let bad = |why: String| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{} is not a sentence record of `textreuse sentences` ({why}); write the \
                         records with `textreuse sentences --min-shingles 0 --max-shingles 0`",
                        place()
                    ),
                )
            };
            let text = std::str::from_utf8(line).map_err(|e| bad(e.to_string()))?;
            let record = SentenceRecord::parse(text).map_err(|e| bad(e.to_string()))?;
            f(record)
        })
    }
}

/// The shuffle partition of a band key: its top 32 bits scaled to `parts` (keys are uniform).
#[inline]
fn part_of(key: u64, parts: usize) -> usize {
    (((key >> 32) * parts as u64) >> 32) as usize
}

/// sentence_keys(signer, shingle, min_shingles, max_shingles, parts, path=None, start=0,
///     end=2**64-1, lines=None, large=False) -> (blobs: list[(part, records, bytes)], sentences,
///     seqs: bytes)
///
/// Stages 1-2 of one read task, whose records are the lines of `path` that start in `[start,
/// end)` or the strings of `lines` (a string column's parts): every record counts as a sentence; those with
/// `min_shingles <= shingles <= max_shingles` are normalized, shingled and signed with the
/// pipeline's signer, and their `(band key, id)` records go to the blob of partition
/// `part_of(key)` (`parts` partitions; blobs of at most 4 MiB). `seqs` are the distinct
/// document positions of the range (little-endian u32, sorted).
#[pyfunction]
#[pyo3(signature = (
    signer, shingle, min_shingles, max_shingles, parts, path=None, start=0, end=u64::MAX,
    lines=None, large=false
))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn sentence_keys<'py>(
    py: Python<'py>,
    signer: &Bound<'py, PySigner>,
    shingle: i64,
    min_shingles: u64,
    max_shingles: u64,
    parts: usize,
    path: Option<String>,
    start: u64,
    end: u64,
    lines: Option<&Bound<'py, PyAny>>,
    large: bool,
) -> PyResult<(
    Vec<(usize, u64, Bound<'py, PyBytes>)>,
    u64,
    Bound<'py, PyBytes>,
)> {
    let shingle = shingle_len(shingle)?;
    let held = lines.map(|l| HeldArray::extract(l, "lines")).transpose()?;
    let input = Lines::of(path, start, end, held.as_ref(), large)?;
    if parts == 0 {
        return Err(PyValueError::new_err("parts must be at least 1"));
    }
    let signer = &signer.get().inner;
    let (blobs, counts) = py.detach(|| -> PyResult<_> {
        let mut ts = TextSigner::new(signer).shingle_chars(shingle);
        let mut keys = vec![0u64; signer.bands()];
        let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); parts];
        let mut blobs: Vec<(usize, u64, Vec<u8>)> = Vec::new();
        let mut counts = ReadCounts::default();
        input.each_record(|r| {
            counts.sentences += 1;
            let seq = (r.id >> 32) as u32;
            if counts.seqs.last() != Some(&seq) {
                counts.seqs.push(seq);
            }
            if r.shingles < min_shingles || r.shingles > max_shingles {
                return Ok(());
            }
            let Some(mins) = ts.minhashes(&r.text) else {
                return Ok(());
            };
            signer.band_keys_into(mins, &mut keys);
            for &key in &keys {
                let p = part_of(key, parts);
                let buf = &mut buffers[p];
                push_record(buf, key, r.id);
                if buf.len() >= BLOB_RECORDS * 16 {
                    blobs.push((p, (buf.len() / 16) as u64, std::mem::take(buf)));
                }
            }
            Ok(())
        })?;
        for (p, buf) in buffers.into_iter().enumerate() {
            if !buf.is_empty() {
                blobs.push((p, (buf.len() / 16) as u64, buf));
            }
        }
        counts.seqs.sort_unstable();
        counts.seqs.dedup();
        Ok((blobs, counts))
    })?;
    let mut seqs = Vec::with_capacity(counts.seqs.len() * 4);
    counts
        .seqs
        .iter()
        .for_each(|s| seqs.extend_from_slice(&s.to_le_bytes()));
    Ok((
        blobs
            .into_iter()
            .map(|(p, n, b)| (p, n, PyBytes::new(py, &b)))
            .collect(),
        counts.sentences,
        PyBytes::new(py, &seqs),
    ))
}

/// Provisional sentence ids of documents read one file per task: file `f`'s `d`-th document's
/// `i`-th sentence is `f << 44 | d << 20 | i`, in input order without knowing how many
/// documents the files before hold; [`real_id`] maps them to `textreuse dedup`'s `seq << 32 |
/// i` once the counts are known. Limits: 2^20 files, 2^24 documents per file, 2^20 sentences
/// per document.
const DOC_SHIFT: u32 = 20;
const FILE_SHIFT: u32 = 44;

/// `textreuse dedup`'s id of a provisional id, `bases[f]` being the documents of the files
/// before file `f`.
#[inline]
fn real_id(id: u64, bases: &[u64]) -> Option<u64> {
    let file = (id >> FILE_SHIFT) as usize;
    let doc = (id >> DOC_SHIFT) & ((1 << (FILE_SHIFT - DOC_SHIFT)) - 1);
    let idx = id & ((1 << DOC_SHIFT) - 1);
    Some((bases.get(file)? + doc) << 32 | idx)
}

/// input_files(paths) -> list[str]
///
/// The files `textreuse dedup` reads for `paths`, in its order: files as given, directories
/// walked (sorted, hidden names skipped).
#[pyfunction]
pub(crate) fn input_files(paths: Vec<String>) -> PyResult<Vec<String>> {
    let mut files = Vec::new();
    for path in paths {
        if path == "-" {
            return Err(PyValueError::new_err(
                "standard input cannot be split over tasks; give files",
            ));
        }
        let p = Path::new(&path);
        if p.is_dir() {
            let found =
                walk(p, &Include::default()).map_err(|e| PyIOError::new_err(e.to_string()))?;
            files.extend(found.into_iter().map(|f| f.to_string_lossy().into_owned()));
        } else {
            files.push(path);
        }
    }
    Ok(files)
}

/// Collects the input problems a task skipped, for the driver to report.
#[derive(Default)]
struct Problems(std::sync::Mutex<Vec<String>>);

impl Progress for Problems {
    fn log(&self, line: &str) {
        self.0.lock().expect("not poisoned").push(line.to_string());
    }
}

/// document_keys(signer, shingle, min_shingles, max_shingles, parts, path, files_before,
///     records, unit="sentence") -> (blobs: list[(part, records, bytes)], documents,
///     sentences, problems, messages: list[str])
///
/// Stages 1-2 for one input file of documents (a dump, JSON Lines, plain text; compressed or
/// not), read as `textreuse dedup` reads it (`Inputs`, the same cleaning, unit splitting
/// (sentences, paragraphs or the whole document) and filter, in parallel on the rayon pool):
/// the kept units' `(band key, id)` records by partition as in `sentence_keys`, under
/// provisional ids (file `files_before`), and the kept units written as sentence records to
/// the file `records` for stage 6. `sentences` counts the units seen. Input problems are
/// skipped, counted and described in `messages`.
#[pyfunction]
#[pyo3(signature = (signer, shingle, min_shingles, max_shingles, parts, path, files_before, records, unit="sentence"))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn document_keys<'py>(
    py: Python<'py>,
    signer: &Bound<'py, PySigner>,
    shingle: i64,
    min_shingles: usize,
    max_shingles: usize,
    parts: usize,
    path: String,
    files_before: u64,
    records: String,
    unit: &str,
) -> PyResult<(
    Vec<(usize, u64, Bound<'py, PyBytes>)>,
    u64,
    u64,
    u64,
    Vec<String>,
)> {
    let shingle = shingle_len(shingle)?;
    if parts == 0 {
        return Err(PyValueError::new_err("parts must be at least 1"));
    }
    let signer = &signer.get().inner;
    let filter = SentenceFilter {
        shingle,
        min_shingles,
        max_shingles,
    };
    let mut buffers: Vec<Vec<u8>> = vec![Vec::new(); parts];
    let mut blobs: Vec<(usize, u64, Vec<u8>)> = Vec::new();
    let read = py.detach(|| {
        read_documents(
            &path,
            files_before,
            &records,
            unit,
            &filter,
            || {
                (
                    TextSigner::new(signer).shingle_chars(shingle),
                    vec![0u64; signer.bands()],
                )
            },
            |(ts, keys), text| {
                let mins = ts.minhashes(text)?;
                signer.band_keys_into(mins, keys);
                Some(keys.clone())
            },
            |id, keys| {
                for key in keys {
                    let p = part_of(key, parts);
                    let buf = &mut buffers[p];
                    push_record(buf, key, id);
                    if buf.len() >= BLOB_RECORDS * 16 {
                        blobs.push((p, (buf.len() / 16) as u64, std::mem::take(buf)));
                    }
                }
            },
        )
    })?;
    for (p, buf) in buffers.into_iter().enumerate() {
        if !buf.is_empty() {
            blobs.push((p, (buf.len() / 16) as u64, buf));
        }
    }
    Ok((
        blobs
            .into_iter()
            .map(|(p, n, b)| (p, n, PyBytes::new(py, &b)))
            .collect(),
        read.documents,
        read.sentences,
        read.problems,
        read.messages,
    ))
}

/// What [`read_documents`] read of a file.
pub(crate) struct DocumentsRead {
    /// Documents read.
    pub(crate) documents: u64,
    /// Units seen (kept or not).
    pub(crate) sentences: u64,
    /// Input problems skipped.
    pub(crate) problems: u64,
    /// Their descriptions.
    pub(crate) messages: Vec<String>,
}

/// Stage 1 for one input file of documents, read as `textreuse dedup` reads it (`Inputs`, the
/// same cleaning, unit splitting and `filter`, in parallel on the rayon pool, documents in
/// input order): for each kept unit, `per_unit(state, text)` (on a worker, with its `state`
/// from `init`) says whether it is kept and what of it goes on; `consume(id, value)` then
/// receives it on the calling thread in input order, under its provisional id (file
/// `files_before`), and the unit is written as a sentence record to the file `records` for
/// stage 6. Input problems are skipped, counted and described.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_documents<S, T: Send>(
    path: &str,
    files_before: u64,
    records: &str,
    unit: &str,
    filter: &SentenceFilter,
    init: impl Fn() -> S + Sync + Send,
    per_unit: impl Fn(&mut S, &str) -> Option<T> + Sync + Send,
    mut consume: impl FnMut(u64, T) + Send,
) -> PyResult<DocumentsRead> {
    if files_before >= 1 << (64 - FILE_SHIFT) {
        return Err(PyValueError::new_err(format!(
            "at most {} input files",
            1u64 << (64 - FILE_SHIFT)
        )));
    }
    let unit: Unit = unit
        .parse()
        .map_err(|e: UnknownUnit| PyValueError::new_err(e.to_string()))?;
    let mut out = io::BufWriter::with_capacity(
        1 << 20,
        std::fs::File::create(records)
            .map_err(|e| PyIOError::new_err(format!("{records}: {e}")))?,
    );
    let mut sentences = 0u64;
    let problems = Problems::default();
    let file = files_before << FILE_SHIFT;
    let counts = DocumentPipeline::new()
        .run(
            Inputs::new([path]).files_before(files_before),
            &problems,
            &init,
            |state, seq, doc| -> Result<_, String> {
                if seq >= 1 << (FILE_SHIFT - DOC_SHIFT) {
                    return Err(format!(
                        "{path}: more than {} documents; split the file",
                        1u64 << (FILE_SHIFT - DOC_SHIFT)
                    ));
                }
                let mut lines = Vec::new();
                let mut values = Vec::new();
                let mut kept = KeptSentences::with_unit(&doc.text, seq, filter, unit);
                for s in kept.by_ref() {
                    if s.idx >= 1 << DOC_SHIFT {
                        return Err(format!(
                            "{path}: a document of more than {} sentences",
                            1u64 << DOC_SHIFT
                        ));
                    }
                    let id = file | seq << DOC_SHIFT | s.idx as u64;
                    if let Some(value) = per_unit(state, s.text) {
                        let record = SentenceRecord::of_sentence(&doc, &s, id);
                        serde_json::to_writer(&mut lines, &record).expect("records serialize");
                        lines.push(b'\n');
                        values.push((id, value));
                    }
                }
                Ok((kept.sentences_seen(), lines, values))
            },
            |_, result| {
                let (seen, lines, values) = result.map_err(|e| Error::Sink(e.into()))?;
                sentences += seen;
                io::Write::write_all(&mut out, &lines).map_err(|e| Error::Sink(e.into()))?;
                for (id, value) in values {
                    consume(id, value);
                }
                Ok(())
            },
        )
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    io::Write::flush(&mut out).map_err(io_err)?;
    Ok(DocumentsRead {
        documents: counts.documents,
        sentences,
        problems: counts.input_problems,
        messages: problems.0.into_inner().expect("not poisoned"),
    })
}

/// real_ids(blob, bases) -> bytes
///
/// A blob of provisional `(a, b)` id pairs (`document_keys`) with `textreuse dedup`'s ids
/// instead: `bases` (little-endian u64) are the documents of the files before each file.
#[pyfunction]
pub(crate) fn real_ids<'py>(
    py: Python<'py>,
    blob: &Bound<'py, PyAny>,
    bases: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let bases = u64s(bases, "bases")?;
    let held = HeldBuffer::get(Some(blob), "blob")?;
    let mut out = Vec::with_capacity(held.bytes().len());
    for (a, b) in records(held.bytes())? {
        let (Some(a), Some(b)) = (real_id(a, &bases), real_id(b, &bases)) else {
            return Err(PyValueError::new_err("an id of a file without a base"));
        };
        push_record(&mut out, a, b);
    }
    Ok(PyBytes::new(py, &out))
}

/// BucketPairs(max_bucket, all_pairs, mem_budget, tmp_dir=None)
///
/// Stages 3-4 over one shuffle partition's records: `push` the partition's blobs, then
/// `finish` for the distinct pairs of its buckets (star pairs, or with `all_pairs` all pairs of
/// each bucket's first `max_bucket` ids) as one blob, and the counts `(records, buckets,
/// buckets_capped, bucket_ids_left_out)`. The library's shuffle does the work under
/// `mem_budget` bytes, spilling to `tmp_dir` beyond it.
#[pyclass(name = "BucketPairs", module = "textreuse")]
pub(crate) struct PyBucketPairs {
    shuffle: Option<Shuffle>,
}

#[pymethods]
impl PyBucketPairs {
    #[new]
    #[pyo3(signature = (max_bucket, all_pairs, mem_budget, tmp_dir=None))]
    fn new(
        max_bucket: usize,
        all_pairs: bool,
        mem_budget: u64,
        tmp_dir: Option<String>,
    ) -> PyResult<PyBucketPairs> {
        let mut builder = ShuffleBuilder::new();
        builder
            .max_bucket(max_bucket)
            .mem_budget(mem_budget)
            .pair_mode(if all_pairs {
                PairMode::All
            } else {
                PairMode::Star
            });
        if let Some(dir) = tmp_dir {
            builder.tmp_dir(dir);
        }
        let shuffle = builder
            .build()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyBucketPairs {
            shuffle: Some(shuffle),
        })
    }

    /// Adds the records of a blob (any buffer: `bytes`, `pyarrow.Buffer`).
    fn push(&mut self, py: Python<'_>, blob: &Bound<'_, PyAny>) -> PyResult<()> {
        let shuffle = self
            .shuffle
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("finish() was called"))?;
        let held = HeldBuffer::get(Some(blob), "blob")?;
        let batch: Vec<(u64, u64)> = records(held.bytes())?.collect();
        py.detach(|| shuffle.push_slice(&batch))
            .map_err(|e| PyIOError::new_err(e.to_string()))
    }

    /// The pairs blob and the counts.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<(Bound<'py, PyBytes>, BucketCounts)> {
        let shuffle = self
            .shuffle
            .take()
            .ok_or_else(|| PyValueError::new_err("finish() was called"))?;
        let (pairs, stats) = py
            .detach(|| -> Result<_, textreuse_shuffle::ShuffleError> {
                let mut stream = shuffle.finish()?;
                let mut out = Vec::new();
                while let Some((a, b)) = stream.next_pair()? {
                    push_record(&mut out, a, b);
                }
                Ok((out, stream.stats()))
            })
            .map_err(|e| PyIOError::new_err(e.to_string()))?;
        Ok((
            PyBytes::new(py, &pairs),
            (
                stats.records,
                stats.buckets,
                stats.buckets_capped,
                stats.bucket_ids_left_out,
            ),
        ))
    }
}

/// `(records, buckets, buckets_capped, bucket_ids_left_out)` of a partition's shuffle.
type BucketCounts = (u64, u64, u64, u64);

/// distinct_pairs(blobs) -> bytes
///
/// The pairs of all blobs, sorted and without repeats (a pair found in several shuffle
/// partitions counts once, as in `textreuse dedup`).
#[pyfunction]
pub(crate) fn distinct_pairs<'py>(
    py: Python<'py>,
    blobs: Vec<Vec<u8>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut pairs = Vec::with_capacity(blobs.iter().map(|b| b.len() / 16).sum());
    for blob in &blobs {
        pairs.extend(records(blob)?);
    }
    let out = py.detach(|| {
        pairs.sort_unstable();
        pairs.dedup();
        let mut out = Vec::with_capacity(pairs.len() * 16);
        pairs.iter().for_each(|&(a, b)| push_record(&mut out, a, b));
        out
    });
    Ok(PyBytes::new(py, &out))
}

/// pair_clusters(pairs) -> (ids: bytes, clusters: bytes)
///
/// Stage 5: the union-find of the pairs blob. Every id of a pair with its cluster (the
/// smallest id of its component), sorted by id; little-endian u64 each.
#[pyfunction]
pub(crate) fn pair_clusters<'py>(
    py: Python<'py>,
    pairs: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let pairs: Vec<(u64, u64)> = records(pairs)?.collect();
    let (ids, clusters) = py
        .detach(|| -> Result<_, textreuse_unionfind::UnionFindError> {
            let mut clustering = Clustering::with_capacity(pairs.len());
            for &(a, b) in &pairs {
                clustering.union(a, b)?;
            }
            let listing = clustering.clusters(1);
            let mut rows: Vec<(u64, u64)> = Vec::with_capacity(listing.num_members());
            for cluster in &listing {
                rows.extend(cluster.members().iter().map(|&m| (m, cluster.id())));
            }
            rows.sort_unstable();
            let (mut ids, mut clusters) = (Vec::new(), Vec::new());
            for (id, c) in rows {
                ids.extend_from_slice(&id.to_le_bytes());
                clusters.extend_from_slice(&c.to_le_bytes());
            }
            Ok((ids, clusters))
        })
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((PyBytes::new(py, &ids), PyBytes::new(py, &clusters)))
}

/// member_lines(ids, clusters, bounds, path=None, start=0, end=2**64-1, lines=None,
///     large=False) -> (range: bytes, cluster: bytes, id: bytes, offsets: bytes, data: bytes)
///
/// Stage 6 of one read task (its lines as for `sentence_keys`): the records whose id is in `ids` (sorted
/// little-endian u64, `clusters` their clusters), as they were written, with their cluster and
/// output range (`bounds`: the sorted first cluster ids of the ranges; a cluster belongs to the
/// last range starting at or below it). `range` is little-endian u32, `cluster` and `id` u64,
/// `offsets` the i64 offsets of a large_string array of the lines in `data`.
#[pyfunction]
#[pyo3(signature = (
    ids, clusters, bounds, path=None, start=0, end=u64::MAX, lines=None, large=false, bases=None
))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn member_lines<'py>(
    py: Python<'py>,
    ids: &[u8],
    clusters: &[u8],
    bounds: &[u8],
    path: Option<String>,
    start: u64,
    end: u64,
    lines: Option<&Bound<'py, PyAny>>,
    large: bool,
    bases: Option<&[u8]>,
) -> PyResult<(
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
)> {
    let (ids, clusters, bounds) = (
        u64s(ids, "ids")?,
        u64s(clusters, "clusters")?,
        u64s(bounds, "bounds")?,
    );
    if ids.len() != clusters.len() {
        return Err(PyValueError::new_err("ids and clusters differ in length"));
    }
    let held = lines.map(|l| HeldArray::extract(l, "lines")).transpose()?;
    let input = Lines::of(path, start, end, held.as_ref(), large)?;
    let bases = bases.map(|b| u64s(b, "bases")).transpose()?;
    let out = py.detach(|| -> PyResult<_> {
        let (mut range, mut cluster, mut id) = (Vec::new(), Vec::new(), Vec::new());
        let (mut offsets, mut data) = (vec![0u8; 8], Vec::new());
        input.each(|line, place| {
            let bad = |what: &str| {
                io::Error::new(io::ErrorKind::InvalidData, format!("{} {what}", place()))
            };
            let written = sentence_id(line).ok_or_else(|| bad("has no sentence id"))?;
            let wanted = match &bases {
                None => written,
                Some(bases) => real_id(written, bases).ok_or_else(|| bad("has a stray id"))?,
            };
            if let Ok(i) = ids.binary_search(&wanted) {
                let c = clusters[i];
                let r = bounds.partition_point(|&b| b <= c).saturating_sub(1) as u32;
                range.extend_from_slice(&r.to_le_bytes());
                cluster.extend_from_slice(&c.to_le_bytes());
                id.extend_from_slice(&wanted.to_le_bytes());
                if wanted == written {
                    data.extend_from_slice(line);
                } else {
                    // The record with its real id (the id is its first field, as written).
                    let rest = line
                        .strip_prefix(ID_PREFIX)
                        .map(|r| &r[r.iter().take_while(|b| b.is_ascii_digit()).count()..])
                        .ok_or_else(|| bad("does not start with its id"))?;
                    data.extend_from_slice(ID_PREFIX);
                    data.extend_from_slice(wanted.to_string().as_bytes());
                    data.extend_from_slice(rest);
                }
                offsets.extend_from_slice(&(data.len() as i64).to_le_bytes());
            }
            Ok(())
        })?;
        Ok((range, cluster, id, offsets, data))
    })?;
    let (range, cluster, id, offsets, data) = out;
    Ok((
        PyBytes::new(py, &range),
        PyBytes::new(py, &cluster),
        PyBytes::new(py, &id),
        PyBytes::new(py, &offsets),
        PyBytes::new(py, &data),
    ))
}

/// How a sentence record starts.
const ID_PREFIX: &[u8] = b"{\"id\":";

/// The `id` of a sentence record, read without parsing the rest (`textreuse sentences` writes
/// it first); a full parse when the line starts otherwise.
fn sentence_id(line: &[u8]) -> Option<u64> {
    if let Some(rest) = line.strip_prefix(ID_PREFIX) {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 && rest.get(digits).is_some_and(|&b| b == b',' || b == b'}') {
            return std::str::from_utf8(&rest[..digits]).ok()?.parse().ok();
        }
    }
    SentenceRecord::parse(std::str::from_utf8(line).ok()?)
        .ok()
        .map(|r| r.id)
}

/// The counts of formatted clusters that `stats.json` sums.
#[derive(Default)]
struct ChunkSummary {
    clusters: u64,
    clustered: u64,
    duplicates: u64,
    sizes: BTreeMap<usize, u64>,
    types: BTreeMap<&'static str, u64>,
    /// `distinct_clustered_texts`, `article_pair_links` and `article_pair_links_above` of
    /// `stats.json`, added up as `textreuse dedup` adds them.
    stats: textreuse_dedup::Stats,
}

/// cluster_chunk(signer, shingle, keep, verify, threshold, cluster, lines, large)
///     -> list[(clusters, duplicates, summary, articles, contradictions)]
///
/// Stage 8 over complete clusters: `lines` are sentence records (a string column), `cluster`
/// their clusters (int64 holding the u64 bits), rows grouped by cluster in ascending order.
/// Each cluster is built as `textreuse dedup` builds it (`Cluster::new`, `Cluster::score` with
/// the run's signer, `keep` rule and verification) and written with `to_json` and
/// `duplicates_json`. Returned in chunks of about 32,768 members: the `clusters.jsonl` and
/// `duplicates.jsonl` text (UTF-8 bytes), a JSON summary (`clusters`, `clustered`, `duplicates`, `sizes`,
/// `types`, `distinct_texts`, `article_pair_links`, `article_pair_links_above`: counts that add
/// up over chunks), and per cluster one JSON line `[[doc, title], ...]` of its distinct documents in
/// output order, for `article_pairs_tsv`; and the `contradictions.jsonl` lines of its
/// factual-drift clusters (unranked: `rank_contradictions` orders them all).
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn cluster_chunk<'py>(
    py: Python<'py>,
    signer: &Bound<'py, PySigner>,
    shingle: i64,
    keep: &str,
    verify: bool,
    threshold: Option<f64>,
    cluster: &Bound<'py, PyAny>,
    lines: &Bound<'py, PyAny>,
    large: bool,
) -> PyResult<Vec<ChunkOut<'py>>> {
    let shingle = shingle_len(shingle)?;
    let keep = parse_keep(keep)?;
    let signer = &signer.get().inner;
    let min_jaccard = min_jaccard(signer, verify, threshold)?;
    let cluster_held = HeldArray::extract(cluster, "cluster")?;
    let lines_held = HeldArray::extract(lines, "lines")?;
    let clusters = cluster_held.int64("cluster")?;
    let lines = lines_held.strings(large, "lines")?;
    if clusters.len() != lines.len() {
        return Err(PyValueError::new_err("cluster and lines differ in length"));
    }
    let chunks = py.detach(|| -> Result<_, ColumnError> {
        let mut ts = TextSigner::new(signer).shingle_chars(shingle);
        let mut chunks = Vec::new();
        let mut out = (
            String::new(),
            String::new(),
            ChunkSummary::default(),
            String::new(),
            String::new(),
        );
        let mut members_in_chunk = 0;
        let mut i = 0;
        while i < lines.len() {
            let id = clusters.required(i, "cluster")? as u64;
            let mut members: Vec<Member> = Vec::new();
            while i < lines.len() && clusters.required(i, "cluster")? as u64 == id {
                let line = lines
                    .get(i)?
                    .ok_or_else(|| ColumnError(format!("lines: row {i} is null")))?;
                let record = SentenceRecord::parse(line).map_err(|e| {
                    ColumnError(format!("lines: row {i} is not a sentence record: {e}"))
                })?;
                members.push(record.into_member());
                i += 1;
            }
            let mut c = Cluster::new(id, members);
            c.score(keep, &mut ts, min_jaccard);
            let (text, dups, summary, articles, contradictions) = &mut out;
            if let Some(found) = Contradiction::of(&c) {
                contradictions.push_str(&found.to_json());
                contradictions.push('\n');
            }
            text.push_str(&c.to_json());
            text.push('\n');
            dups.push_str(&c.duplicates_json());
            summary.clusters += 1;
            summary.clustered += c.len() as u64;
            summary.duplicates += c.duplicates().count() as u64;
            *summary.sizes.entry(c.len()).or_insert(0) += 1;
            *summary.types.entry(c.kind.as_str()).or_insert(0) += 1;
            summary.stats.add_cluster_counts(ClusterCounts::of(&c));
            let mut docs: Vec<(&DocId, &str)> = Vec::new();
            for m in &c.members {
                if docs.last().is_none_or(|(d, _)| **d != m.doc) {
                    docs.push((&m.doc, &m.title));
                }
            }
            articles.push_str(&serde_json::to_string(&docs).expect("ids and titles serialize"));
            articles.push('\n');
            members_in_chunk += c.len();
            if members_in_chunk >= CHUNK_MEMBERS {
                chunks.push(std::mem::take(&mut out));
                members_in_chunk = 0;
            }
        }
        if !out.0.is_empty() {
            chunks.push(out);
        }
        Ok(chunks
            .into_iter()
            .map(|(t, d, s, a, x)| {
                let summary = serde_json::json!({
                    "clusters": s.clusters,
                    "clustered": s.clustered,
                    "duplicates": s.duplicates,
                    "sizes": s.sizes,
                    "types": s.types,
                    "distinct_texts": s.stats.distinct_clustered_texts,
                    "article_pair_links": s.stats.article_pair_links,
                    "article_pair_links_above": s.stats.article_pair_links_above,
                });
                (t, d, summary.to_string(), a, x)
            })
            .collect::<Vec<_>>())
    })?;
    Ok(chunks
        .into_iter()
        .map(|(t, d, s, a, x)| {
            (
                PyBytes::new(py, t.as_bytes()),
                PyBytes::new(py, d.as_bytes()),
                s,
                a,
                x,
            )
        })
        .collect())
}

/// A chunk of `cluster_chunk`: `clusters.jsonl` and `duplicates.jsonl` text (UTF-8 bytes), the
/// summary, the articles and the contradictions.
type ChunkOut<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    String,
    String,
    String,
);

/// rank_contradictions(chunks) -> str
///
/// `contradictions.jsonl` from the `contradictions` texts of `cluster_chunk`: every line,
/// ranked as `textreuse dedup` ranks them (the most confident first, then by cluster id), each
/// ending in a newline.
#[pyfunction]
pub(crate) fn rank_contradictions(py: Python<'_>, chunks: Vec<String>) -> String {
    py.detach(|| {
        let mut lines: Vec<String> = chunks
            .iter()
            .flat_map(|c| c.lines())
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        textreuse_dedup::contradictions::rank_lines(&mut lines);
        let mut out = String::new();
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
        out
    })
}

/// article_pairs_tsv(articles, k) -> (tsv, distinct_articles, chains)
///
/// `article-pairs.tsv` from the `articles` lines of `cluster_chunk`, all clusters in ascending
/// order: the `k` article pairs that share the most clusters (clusters of at most 200 articles
/// count), each article's title that of its first member in output order, as `textreuse dedup`
/// writes it; the number of distinct clustered articles; and `article_chains` of `stats.json`
/// over the same lists (JSON).
#[pyfunction]
pub(crate) fn article_pairs_tsv(
    py: Python<'_>,
    articles: Vec<String>,
    k: usize,
) -> PyResult<(String, u64, String)> {
    py.detach(|| -> PyResult<_> {
        let mut titles: HashMap<DocId, String> = HashMap::new();
        let mut pair_docs: Vec<DocId> = Vec::new();
        let mut bounds = vec![0usize];
        let mut left_out = 0u64;
        for chunk in &articles {
            for line in chunk.lines() {
                let docs: Vec<(serde_json::Value, String)> = serde_json::from_str(line)
                    .map_err(|e| PyValueError::new_err(format!("articles: {e}")))?;
                let before = pair_docs.len();
                for (doc, title) in docs {
                    let doc = DocId::from_json(&doc).ok_or_else(|| {
                        PyValueError::new_err(format!("articles: bad document id {doc}"))
                    })?;
                    titles.entry(doc.clone()).or_insert(title);
                    pair_docs.push(doc);
                }
                if pair_docs.len() - before <= MAX_CLUSTER_ARTICLES {
                    bounds.push(pair_docs.len());
                } else {
                    pair_docs.truncate(before);
                    left_out += 1;
                }
            }
        }
        let mut sorted: Vec<&DocId> = titles.keys().collect();
        sorted.sort_unstable();
        let lists = article_indices(&sorted, &pair_docs);
        let chains = article_chains(&sorted, &lists, &bounds, left_out, |d| titles[d].clone());
        let rows = article_pair_rows(&sorted, &lists, &bounds, k, |d| titles[d].clone());
        let mut tsv = format!("{}\n", ArticlePairRow::TSV_HEADER);
        for r in rows {
            tsv.push_str(&r.to_tsv());
            tsv.push('\n');
        }
        let chains = serde_json::to_string(&chains).expect("chains serialize");
        Ok((tsv, sorted.len() as u64, chains))
    })
}

/// dedup_stats_json(fields) -> str
///
/// `stats.json` of the Spark dedup job as `textreuse dedup` writes it: `fields` (a dict of the
/// run's numbers, `seconds` a dict of the stage times) fill the dedup library's `Stats`, which
/// is serialized by the same function as the CLI's sink (its field order, number formats and
/// final newline). Every field of `Stats` must be given but the derived ones (`Stats::DERIVED`,
/// which `Stats::summarize` fills in as the CLI's run does), and no other: a `ValueError` names
/// the missing and unknown ones.
#[pyfunction]
pub(crate) fn dedup_stats_json(fields: &Bound<'_, pyo3::types::PyDict>) -> PyResult<String> {
    let text: String = fields
        .py()
        .import("json")?
        .call_method1("dumps", (fields,))?
        .extract()?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut schema =
        serde_json::to_value(textreuse_dedup::Stats::default()).expect("stats serialize");
    for derived in textreuse_dedup::Stats::DERIVED {
        schema.as_object_mut().expect("an object").remove(*derived);
    }
    // `projection` is there for the random projection only.
    if value.get("projection").is_some() {
        let projection = textreuse_dedup::ProjectionStats::default();
        schema["projection"] = serde_json::to_value(projection).expect("stats serialize");
        same_fields(&schema["projection"], &value["projection"], "projection.")?;
    }
    same_fields(&schema, &value, "")?;
    same_fields(&schema["seconds"], &value["seconds"], "seconds.")?;
    let mut stats: textreuse_dedup::Stats = serde_json::from_value(value)
        .map_err(|e| PyValueError::new_err(format!("stats.json: {e}")))?;
    stats.summarize();
    Ok(stats.to_json())
}

/// An error naming the fields of the object `schema` that `value` lacks and those it has beyond
/// them.
fn same_fields(
    schema: &serde_json::Value,
    value: &serde_json::Value,
    prefix: &str,
) -> PyResult<()> {
    let names = |v: &serde_json::Value| -> std::collections::BTreeSet<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let (want, got) = (names(schema), names(value));
    let missing: Vec<String> = want
        .difference(&got)
        .map(|k| format!("{prefix}{k}"))
        .collect();
    let unknown: Vec<String> = got
        .difference(&want)
        .map(|k| format!("{prefix}{k}"))
        .collect();
    if missing.is_empty() && unknown.is_empty() {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "stats.json: missing fields {missing:?}, unknown fields {unknown:?}"
    )))
}
