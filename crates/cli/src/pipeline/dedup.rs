//! The dedup pipeline: documents -> sentences -> band-key records -> shuffle -> candidate pairs
//! -> clusters -> sentence text -> optional edit-distance filter -> classification -> outputs.
//!
//! Stage by stage (see `docs/ARCHITECTURE.md`):
//!
//! 1. documents -> sentences: [`textreuse_shingle::sentences`], kept when their character
//!    shingle count (on the sentence as written) is within `min_shingles..=max_shingles`;
//! 2. sentences -> `(band key, sentence id)` records: the sentence is normalized (lowercase,
//!    whitespace collapsed), its `L`-character shingle fingerprints are signed by
//!    [`textreuse_minhash::Signer`], and each band key becomes a record. Documents are processed
//!    in parallel batches (rayon) and their records pushed in input order; reading, the batch
//!    work and the pushes overlap on three threads (a reader, a processor, a consumer);
//! 3. the shuffle groups records by key under the memory budget, spilling sorted runs;
//! 4. buckets -> distinct candidate pairs, large buckets capped to their first `max_bucket` ids;
//! 5. pairs -> clusters (union-find, cluster id = smallest member id);
//! 6. clusters -> sentence text: kept sentences are written to a side file during stage 1 and read
//!    back by offset (a positioned read per member), so memory holds 12 bytes per kept sentence
//!    and 8 per document, not the text;
//! 7. optional: keep only candidate pairs whose normalized Levenshtein distance is at most
//!    `max_edit` (with the filter on, buckets emit all their pairs instead of a star, so every
//!    pair that shares a band is checked), and re-cluster;
//! 8. classify each cluster ([`super::classify`]).
//!
//! Stages 6 and 8 run in parallel over chunks of clusters (about 32,768 members each), and the
//! chunks are written in cluster-id order, so `clusters.jsonl` is the same for any thread count.
//!
//! `article-pairs.tsv` ranks article pairs by the number of clusters they share; clusters that
//! span more than [`MAX_CLUSTER_ARTICLES`] articles (giant templates) are not counted, and only
//! the top [`DedupOptions::max_article_pairs`] rows are written
//! ([`super::article_pairs::top_article_pairs`]).
//!
//! [`run`] tells a [`Report`] what it does: a log line per stage, and progress for the merge
//! (stage 3), the pairs (stages 4-5) and the clusters written (stages 6-8).
//!
//! Sentence ids are `seq << 32 | idx`, where `seq` is the document's position in the input
//! (so the same page in two dumps gets two ids) and `idx` the sentence's index in its document.
//! Everything is ordered by these ids, so outputs are byte-identical for any thread count and
//! memory budget.
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;
use serde::Serialize;
use textreuse_minhash::Signer;
use textreuse_shingle::Normalize;
use textreuse_simhash::{SimHasher, TableSearch};
use textreuse_unionfind::{Cluster, Clustering};
use textreuse_wikidump::Cleaner;

use super::article_pairs::{MAX_CLUSTER_ARTICLES, top_article_pairs};
use super::classify::{ClusterType, Member, classify};
use super::features::{FeatureScratch, SentenceFilter, sentence_band_keys, sentence_simhash};
use super::shuffle::{PairMode, ShuffleBuilder, ShuffleStats};
use crate::input::Document;
use crate::sources::Source;

/// How candidate pairs are found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// MinHash band keys through the shuffle (the default).
    #[default]
    MinHash,
    /// 64-bit SimHash fingerprints of the same shingles, all pairs within `max_hamming` bits by
    /// the exact permuted-table search.
    SimHash {
        /// Largest Hamming distance of a candidate pair.
        max_hamming: u32,
    },
}

/// The pipeline's parameters. [`DedupOptions::default`] gives the research defaults.
#[derive(Clone, Debug)]
pub struct DedupOptions {
    /// Shingle length in characters (default 12).
    pub shingle: usize,
    /// Smallest shingle count of a kept sentence (default 75).
    pub min_shingles: usize,
    /// Largest shingle count of a kept sentence (default 600).
    pub max_shingles: usize,
    /// Memory budget of the shuffle in bytes.
    pub mem_budget: u64,
    /// Bucket cap (default 100).
    pub max_bucket: usize,
    /// Keep only pairs within this normalized edit distance (stage 7), if set.
    pub max_edit: Option<f64>,
    /// Where spill files go (default: the system temporary directory).
    pub tmp_dir: Option<PathBuf>,
    /// Documents per parallel batch.
    pub batch: usize,
    /// MinHash (default) or SimHash candidates.
    pub method: Method,
    /// Rows of `article-pairs.tsv` (the top pairs by shared clusters; default 100,000).
    pub max_article_pairs: usize,
}

impl Default for DedupOptions {
    fn default() -> Self {
        DedupOptions {
            shingle: 12,
            min_shingles: 75,
            max_shingles: 600,
            mem_budget: super::shuffle::DEFAULT_MEM_BUDGET,
            max_bucket: super::shuffle::DEFAULT_MAX_BUCKET,
            max_edit: None,
            tmp_dir: None,
            batch: 512,
            method: Method::MinHash,
            max_article_pairs: 100_000,
        }
    }
}

/// Wall time of each stage in seconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct StageTimes {
    /// Stages 1-2 (reading, cleaning, splitting, signing) and pushing records.
    pub sentences_and_signatures: f64,
    /// Stages 3-5 (merge, buckets, pairs, union-find).
    pub shuffle_and_clusters: f64,
    /// Stage 7.
    pub edit_filter: f64,
    /// Stages 6 and 8 and writing the outputs.
    pub text_classify_write: f64,
}

/// The numbers written to `stats.json`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DedupStats {
    /// Input documents.
    pub documents: u64,
    /// Sentences in them.
    pub sentences: u64,
    /// Sentences within the shingle-count filter.
    pub sentences_kept: u64,
    /// Problems reported by the inputs (damaged dumps); reading went on.
    pub input_problems: u64,
    /// Band-key records.
    pub band_key_records: u64,
    /// Distinct band keys.
    pub buckets: u64,
    /// Buckets larger than the cap.
    pub buckets_capped: u64,
    /// Distinct candidate pairs.
    pub candidate_pairs: u64,
    /// Candidate pairs kept by the edit-distance filter (equal to `candidate_pairs` without it).
    pub pairs_after_edit_filter: u64,
    /// Bytes the shuffle spilled to disk.
    pub bytes_spilled: u64,
    /// Clusters (two or more members).
    pub clusters: u64,
    /// Sentences in clusters.
    pub clustered_sentences: u64,
    /// Distinct articles (document ids) with a clustered sentence.
    pub distinct_articles: u64,
    /// Cluster size -> number of clusters.
    pub cluster_size_histogram: BTreeMap<usize, u64>,
    /// Cluster type -> number of clusters.
    pub types: BTreeMap<&'static str, u64>,
    /// Wall time per stage.
    pub seconds: StageTimes,
}

/// Kept sentence texts on disk, addressed by sentence id.
///
/// The index is two-level so that a lookup touches a few cache lines, not a binary search over
/// every kept sentence: `doc_first[seq]` is the position of the document's first kept sentence,
/// and the document's positions hold its sentence indices (`idx`, ascending) and file offsets.
/// Memory: 12 bytes per kept sentence and 8 per document.
struct TextStore {
    file: BufWriter<File>,
    path: tempfile::TempPath,
    /// Per kept sentence, in push order (ascending id): the low 32 bits of its id.
    idx: Vec<u32>,
    /// Per kept sentence: its offset in the file; one more entry, the file length, is added by
    /// [`TextStore::into_reader`].
    offsets: Vec<u64>,
    /// Per document `seq` up to the last one pushed: the position of its first kept sentence.
    doc_first: Vec<usize>,
    last_id: Option<u64>,
    len: u64,
}

impl TextStore {
    fn new(dir: Option<&Path>) -> anyhow::Result<TextStore> {
        let tmp = match dir {
            Some(d) => tempfile::NamedTempFile::new_in(d),
            None => tempfile::NamedTempFile::new(),
        }
        .context("cannot create the sentence text file")?;
        let (file, path) = tmp.into_parts();
        Ok(TextStore {
            file: BufWriter::with_capacity(1 << 20, file),
            path,
            idx: Vec::new(),
            offsets: Vec::new(),
            doc_first: Vec::new(),
            last_id: None,
            len: 0,
        })
    }

    /// Appends the text of sentence `id`; ids must be pushed in ascending order.
    fn push(&mut self, id: u64, text: &str) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.last_id.is_none_or(|last| last < id),
            "sentence {id:#x} was stored out of order"
        );
        self.last_id = Some(id);
        let seq = (id >> 32) as usize;
        while self.doc_first.len() <= seq {
            self.doc_first.push(self.idx.len());
        }
        self.idx.push(id as u32);
        self.offsets.push(self.len);
        self.file.write_all(text.as_bytes())?;
        self.len += text.len() as u64;
        Ok(())
    }

    fn into_reader(mut self) -> anyhow::Result<TextReader> {
        let file = self
            .file
            .into_inner()
            .map_err(|e| e.into_error())
            .context("cannot write the sentence text file")?;
        self.offsets.push(self.len);
        // The sentinel: the documents after the last one with a kept sentence start at the end.
        self.doc_first.push(self.idx.len());
        self.idx.shrink_to_fit();
        self.offsets.shrink_to_fit();
        self.doc_first.shrink_to_fit();
        Ok(TextReader {
            file,
            _path: self.path,
            idx: self.idx,
            offsets: self.offsets,
            doc_first: self.doc_first,
        })
    }
}

/// The read side of [`TextStore`]; `get` takes `&self` (positioned reads), so workers share it.
struct TextReader {
    file: File,
    _path: tempfile::TempPath,
    idx: Vec<u32>,
    offsets: Vec<u64>,
    doc_first: Vec<usize>,
}

impl TextReader {
    /// The position of sentence `id` in the index.
    fn position(&self, id: u64) -> anyhow::Result<usize> {
        let seq = (id >> 32) as usize;
        let missing = || anyhow::anyhow!("sentence {id:#x} has no stored text");
        // `doc_first` ends with a sentinel, so `seq + 1` is in bounds for every stored document.
        let (&first, &end) = self
            .doc_first
            .get(seq)
            .zip(self.doc_first.get(seq + 1))
            .ok_or_else(missing)?;
        let within = self.idx[first..end]
            .binary_search(&(id as u32))
            .map_err(|_| missing())?;
        Ok(first + within)
    }

    fn get(&self, id: u64) -> anyhow::Result<String> {
        let i = self.position(id)?;
        let (start, end) = (self.offsets[i], self.offsets[i + 1]);
        let mut buf = vec![0u8; (end - start) as usize];
        self.file
            .read_exact_at(&mut buf, start)
            .context("cannot read the sentence text file")?;
        String::from_utf8(buf).context("the sentence text file is damaged")
    }
}

/// The per-document output of stages 1-2.
struct DocOut {
    sentences: u64,
    kept: Vec<(u32, String)>,
    /// MinHash: `(band key, id)`; SimHash: `(fingerprint, id)`.
    records: Vec<(u64, u64)>,
}

/// A document after stages 1-2: its id, title and output.
type ProcessedDoc = (u64, String, DocOut);

/// Batches in flight between the reader, the processing and the consumer threads of stages 1-2.
const PIPELINE_DEPTH: usize = 2;

fn process(
    doc: &Document,
    seq: u64,
    options: &DedupOptions,
    signer: &Signer,
    simhasher: &SimHasher,
    norm: &Normalize,
    s: &mut FeatureScratch,
) -> DocOut {
    let mut out = DocOut {
        sentences: 0,
        kept: Vec::new(),
        records: Vec::new(),
    };
    let filter = SentenceFilter {
        shingle: options.shingle,
        min_shingles: options.min_shingles,
        max_shingles: options.max_shingles,
    };
    for (idx, sentence) in textreuse_shingle::sentences(&doc.text).enumerate() {
        out.sentences += 1;
        let text = sentence.as_str();
        if !filter.keeps(text) {
            continue;
        }
        let id = seq << 32 | idx as u64;
        match options.method {
            Method::MinHash => {
                let Some(keys) = sentence_band_keys(text, options.shingle, norm, signer, s) else {
                    continue; // shorter than one shingle after normalization
                };
                out.records.extend(keys.iter().map(|&k| (k, id)));
            }
            Method::SimHash { .. } => {
                let Some(fp) = sentence_simhash(text, options.shingle, norm, simhasher, s) else {
                    continue;
                };
                out.records.push((fp, id));
            }
        }
        out.kept.push((idx as u32, text.to_owned()));
    }
    out
}

/// Stage 7's test: whether the normalized Levenshtein distance of two sentences (as written, in
/// chars; [`strsim::normalized_levenshtein`]) is at most `max_edit`. The Spark backend of the
/// Python package calls this too, so both paths keep exactly the same pairs.
///
/// ```
/// use textreuse_cli::pipeline::dedup::within_edit_distance;
///
/// // One substitution in 10 chars: distance 0.1.
/// assert!(within_edit_distance("abcdefghij", "abcdefghiX", 0.1));
/// assert!(!within_edit_distance("abcdefghij", "abcdefghiX", 0.05));
/// ```
pub fn within_edit_distance(a: &str, b: &str, max_edit: f64) -> bool {
    1.0 - strsim::normalized_levenshtein(a, b) <= max_edit
}

/// One sentence of a cluster, as [`cluster_line`] takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterMember {
    /// The sentence id, `seq << 32 | idx` (see the module docs).
    pub id: u64,
    /// The document (page) id.
    pub doc: u64,
    /// The document title.
    pub title: String,
    /// The sentence text.
    pub text: String,
}

/// One line of `clusters.jsonl` (without the newline) and the cluster's type.
///
/// Sorts `members` by `(doc, idx, id)` (the order of the output), classifies the cluster
/// ([`classify`]) and serializes it. `textreuse dedup` and the Spark backend of the Python
/// package both format clusters through this function, so their outputs are byte-identical.
///
/// ```
/// use textreuse_cli::pipeline::dedup::{ClusterMember, cluster_line};
///
/// let member = |id: u64, doc: u64| ClusterMember {
///     id,
///     doc,
///     title: format!("Page {doc}"),
///     text: "The same sentence.".to_string(),
/// };
/// let mut members = vec![member(1 << 32, 9), member(0, 7)];
/// let (kind, line) = cluster_line(0, &mut members);
/// assert_eq!(kind.as_str(), "identical");
/// assert!(line.starts_with(r#"{"cluster":0,"size":2,"type":"identical","members":[{"doc":7,"#));
/// ```
pub fn cluster_line(cluster: u64, members: &mut [ClusterMember]) -> (ClusterType, String) {
    members.sort_by_key(|m| (m.doc, m.id as u32, m.id));
    let kind = classify(
        &members
            .iter()
            .map(|m| Member {
                doc: m.doc,
                title: &m.title,
                text: &m.text,
            })
            .collect::<Vec<_>>(),
    );
    let out = OutCluster {
        cluster,
        size: members.len(),
        kind: kind.as_str(),
        members: members
            .iter()
            .map(|m| OutMember {
                doc: m.doc,
                title: &m.title,
                idx: m.id as u32,
                text: &m.text,
            })
            .collect(),
    };
    let line = serde_json::to_string(&out).expect("clusters serialize (strings and integers)");
    (kind, line)
}

/// One clustered sentence in `clusters.jsonl`.
#[derive(Serialize)]
struct OutMember<'a> {
    doc: u64,
    title: &'a str,
    idx: u32,
    text: &'a str,
}

#[derive(Serialize)]
struct OutCluster<'a> {
    cluster: u64,
    size: usize,
    #[serde(rename = "type")]
    kind: &'static str,
    members: Vec<OutMember<'a>>,
}

/// A stage of [`run`] that reports its progress (see [`Report`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// Stage 3: band-key records merged into buckets (the total is the records pushed; records
    /// pushed twice are merged once, so the count may stop short of it).
    MergeRecords,
    /// Stages 4-5: distinct candidate pairs joined into clusters (no total).
    ClusterPairs,
    /// Stages 6-8: clusters fetched, classified and written (the total is the clusters).
    WriteClusters,
}

impl Stage {
    /// What the stage counts, for a progress line ("records", "pairs", "clusters").
    pub fn unit(self) -> &'static str {
        match self {
            Stage::MergeRecords => "records",
            Stage::ClusterPairs => "pairs",
            Stage::WriteClusters => "clusters",
        }
    }
}

/// What [`run`] tells its caller as it goes: a log line per stage and, for the long stages, the
/// progress (the CLI draws bars from it). Any `Fn(&str)` closure is a `Report` that logs and
/// ignores progress.
///
/// The progress calls of a stage come as [`Report::start`], any number of
/// [`Report::advance`], then [`Report::finish`], all from the thread that called [`run`].
pub trait Report {
    /// A log line (the summary of a stage, a warning).
    fn log(&self, line: &str);

    /// `stage` starts; `total` is its amount of work in [`Stage::unit`]s, when known.
    fn start(&self, stage: Stage, total: Option<u64>) {
        let _ = (stage, total);
    }

    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64) {
        let _ = n;
    }

    /// The current stage is done.
    fn finish(&self) {}
}

impl<F: Fn(&str)> Report for F {
    fn log(&self, line: &str) {
        self(line)
    }
}

/// Pairs per progress report in stages 4-5 (a report per pair would cost more than the union).
const PROGRESS_STEP: u64 = 1 << 16;

/// Runs the whole pipeline over `read` (which feeds sources in input order to the callback it
/// is given, see [`crate::sources::read_all`]) and writes `clusters.jsonl`, `stats.json` and
/// `article-pairs.tsv` into `out_dir`, telling `report` how it goes.
pub fn run(
    read: impl FnOnce(&mut dyn FnMut(Source) -> anyhow::Result<()>) -> anyhow::Result<u64>,
    signer: &Signer,
    options: &DedupOptions,
    out_dir: &Path,
    report: &dyn Report,
) -> anyhow::Result<DedupStats> {
    let mut stats = DedupStats::default();
    let cleaner = Cleaner::new();
    let simhasher = SimHasher::new();
    // SimHash keeps `(fingerprint, id)` in memory instead of shuffling band keys.
    let mut fingerprints: Vec<(u64, u64)> = Vec::new();
    let simhash = matches!(options.method, Method::SimHash { .. });
    let norm = Normalize::new();
    let mut shuffle = {
        let mut b = ShuffleBuilder::new();
        b.mem_budget(options.mem_budget)
            .max_bucket(options.max_bucket);
        if options.max_edit.is_some() {
            b.pair_mode(PairMode::All);
        }
        if let Some(dir) = &options.tmp_dir {
            b.tmp_dir(dir);
        }
        b.build()?
    };
    let mut texts = TextStore::new(options.tmp_dir.as_deref())?;
    // seq -> (document id, title)
    let mut docs: Vec<(u64, String)> = Vec::new();

    // Stages 1-2, a three-step pipeline so that reading, the parallel work and the in-order
    // bookkeeping overlap: this thread reads and batches documents; a processing thread
    // cleans, splits, signs and keys each batch on the rayon pool; a consumer thread stores the
    // kept texts and pushes the records, batch by batch in input order.
    let started = Instant::now();
    let (batch_tx, batch_rx) = mpsc::sync_channel::<(u64, Vec<Source>)>(PIPELINE_DEPTH);
    let (out_tx, out_rx) = mpsc::sync_channel::<(u64, Vec<ProcessedDoc>)>(PIPELINE_DEPTH);
    let (read_result, consumed) = std::thread::scope(|scope| {
        let (cleaner, simhasher, norm) = (&cleaner, &simhasher, &norm);
        let processor = scope.spawn(move || {
            for (first_seq, batch) in batch_rx {
                let outs: Vec<ProcessedDoc> = batch
                    .into_par_iter()
                    .enumerate()
                    .map_init(FeatureScratch::new, |scratch, (i, source)| {
                        let doc = source.into_document(cleaner);
                        let seq = first_seq + i as u64;
                        let out = process(&doc, seq, options, signer, simhasher, norm, scratch);
                        (doc.id, doc.title, out)
                    })
                    .collect();
                if out_tx.send((first_seq, outs)).is_err() {
                    break; // the consumer failed; it reports why
                }
            }
        });
        let consumer = scope.spawn(move || -> anyhow::Result<_> {
            let mut counts = DedupStats::default();
            for (first_seq, outs) in out_rx {
                for (i, (id, title, out)) in outs.into_iter().enumerate() {
                    let seq = first_seq + i as u64;
                    counts.documents += 1;
                    counts.sentences += out.sentences;
                    counts.sentences_kept += out.kept.len() as u64;
                    for (idx, text) in &out.kept {
                        texts.push(seq << 32 | *idx as u64, text)?;
                    }
                    if simhash {
                        fingerprints.extend_from_slice(&out.records);
                    } else {
                        shuffle.push_slice(&out.records)?;
                    }
                    docs.push((id, title));
                }
                anyhow::ensure!(
                    docs.len() as u64 <= u32::MAX as u64,
                    "more than 2^32 documents: sentence ids would overflow"
                );
            }
            Ok((counts, texts, shuffle, fingerprints, docs))
        });
        let mut batch: Vec<Source> = Vec::with_capacity(options.batch);
        let mut next_seq = 0u64;
        let mut send = |batch: Vec<Source>| -> anyhow::Result<()> {
            let n = batch.len() as u64;
            batch_tx
                .send((next_seq, batch))
                .map_err(|_| anyhow::anyhow!("stages 1-2 stopped"))?;
            next_seq += n;
            Ok(())
        };
        let mut read_result = read(&mut |source| {
            batch.push(source);
            if batch.len() >= options.batch {
                send(std::mem::replace(
                    &mut batch,
                    Vec::with_capacity(options.batch),
                ))?;
            }
            Ok(())
        });
        if read_result.is_ok()
            && !batch.is_empty()
            && let Err(e) = send(batch)
        {
            read_result = Err(e);
        }
        drop(batch_tx);
        let joined = processor.join().and_then(|()| consumer.join());
        let consumed = joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (read_result, consumed)
    });
    // A failed consumer stops the reader too: its error is the cause.
    let (counts, texts, shuffle, fingerprints, docs) = consumed?;
    stats.input_problems = read_result?;
    stats.documents = counts.documents;
    stats.sentences = counts.sentences;
    stats.sentences_kept = counts.sentences_kept;
    stats.band_key_records = if simhash {
        fingerprints.len() as u64
    } else {
        shuffle.len()
    };
    stats.seconds.sentences_and_signatures = started.elapsed().as_secs_f64();
    report.log(&format!(
        "stages 1-2: {} documents, {} sentences, {} kept, {} band-key records in {:.1}s",
        stats.documents,
        stats.sentences,
        stats.sentences_kept,
        stats.band_key_records,
        stats.seconds.sentences_and_signatures
    ));

    // Stages 3-5.
    let started = Instant::now();
    let texts = texts.into_reader()?;
    let mut pairs: Vec<(u64, u64)> = Vec::new();
    let mut clustering = Clustering::new();
    let shuffle_stats: ShuffleStats = if let Method::SimHash { max_hamming } = options.method {
        drop(shuffle);
        let fps: Vec<u64> = fingerprints.iter().map(|&(fp, _)| fp).collect();
        let found = TableSearch::new(max_hamming)
            .context("invalid --max-hamming")?
            .pairs(&fps)
            .context("SimHash search failed")?;
        let simhash_stats = ShuffleStats {
            records: fps.len() as u64,
            candidate_pairs: found.len() as u64,
            ..ShuffleStats::default()
        };
        for p in &found {
            let (a, b) = (fingerprints[p.a as usize].1, fingerprints[p.b as usize].1);
            pairs.push((a.min(b), a.max(b)));
        }
        pairs.sort_unstable();
        if options.max_edit.is_none() {
            for &(a, b) in &pairs {
                clustering.union(a, b)?;
            }
        }
        simhash_stats
    } else {
        report.start(Stage::MergeRecords, Some(shuffle.len()));
        let mut stream = shuffle.finish_with_progress(&mut |n| report.advance(n))?;
        report.finish();
        if options.max_edit.is_none() {
            // About one new id per distinct pair (pairs share members).
            let hint = stream.len_hint().unwrap_or(0).min(1 << 26) as usize;
            clustering = Clustering::with_capacity(hint);
        }
        report.start(Stage::ClusterPairs, None);
        let mut unreported = 0u64;
        while let Some((a, b)) = stream.next_pair()? {
            if options.max_edit.is_some() {
                pairs.push((a, b));
            } else {
                clustering.union(a, b)?;
            }
            unreported += 1;
            if unreported == PROGRESS_STEP {
                report.advance(unreported);
                unreported = 0;
            }
        }
        report.advance(unreported);
        report.finish();
        stream.stats()
    };
    stats.buckets = shuffle_stats.buckets;
    stats.buckets_capped = shuffle_stats.buckets_capped;
    stats.candidate_pairs = shuffle_stats.candidate_pairs;
    stats.pairs_after_edit_filter = shuffle_stats.candidate_pairs;
    stats.bytes_spilled = shuffle_stats.bytes_spilled;
    stats.seconds.shuffle_and_clusters = started.elapsed().as_secs_f64();
    report.log(&format!(
        "stages 3-5: {} buckets ({} capped), {} candidate pairs, {} bytes spilled in {:.1}s",
        stats.buckets,
        stats.buckets_capped,
        stats.candidate_pairs,
        stats.bytes_spilled,
        stats.seconds.shuffle_and_clusters
    ));

    // Stage 7.
    if let Some(max_edit) = options.max_edit {
        let started = Instant::now();
        let mut ids: Vec<u64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
        ids.sort_unstable();
        ids.dedup();
        let loaded: HashMap<u64, String> = ids
            .iter()
            .map(|&id| Ok((id, texts.get(id)?)))
            .collect::<anyhow::Result<_>>()?;
        let keep: Vec<bool> = pairs
            .par_iter()
            .map(|(a, b)| within_edit_distance(&loaded[a], &loaded[b], max_edit))
            .collect();
        let mut kept = 0u64;
        for (&(a, b), keep) in pairs.iter().zip(keep) {
            if keep {
                clustering.union(a, b)?;
                kept += 1;
            }
        }
        stats.pairs_after_edit_filter = kept;
        stats.seconds.edit_filter = started.elapsed().as_secs_f64();
        report.log(&format!(
            "stage 7: {} of {} pairs within edit distance {max_edit} in {:.1}s",
            stats.pairs_after_edit_filter, stats.candidate_pairs, stats.seconds.edit_filter
        ));
    }

    // Stages 6 and 8, outputs: clusters are fetched, classified and formatted in parallel, a
    // chunk at a time, and written in cluster order.
    let started = Instant::now();
    drop(pairs);
    let clusters = clustering.clusters(2);
    drop(clustering);
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("cannot create the output directory {}", out_dir.display()))?;
    let mut types: BTreeMap<&'static str, u64> =
        ClusterType::ALL.iter().map(|t| (t.as_str(), 0)).collect();
    // Document id -> `seq` of its first member in output order (whose title is written).
    let mut first_seq: HashMap<u64, u32> = HashMap::new();
    // The distinct documents of each cluster that counts for article-pairs.tsv, flat.
    let mut pair_docs: Vec<u64> = Vec::new();
    let mut pair_bounds: Vec<usize> = vec![0];
    report.start(Stage::WriteClusters, Some(clusters.len() as u64));
    write_atomically(&out_dir.join("clusters.jsonl"), |w| {
        let mut start = 0;
        while start < clusters.len() {
            let mut end = start;
            let mut members = 0;
            while end < clusters.len() && (end == start || members < CHUNK_MEMBERS) {
                members += clusters.get(end).map_or(0, |c| c.len());
                end += 1;
            }
            let chunk: Vec<Formatted> = (start..end)
                .into_par_iter()
                .map(|i| {
                    let cluster = clusters.get(i).expect("index below len");
                    format_cluster(cluster, &docs, &texts)
                })
                .collect::<anyhow::Result<_>>()?;
            for f in &chunk {
                w.write_all(f.line.as_bytes())?;
                w.write_all(b"\n")?;
                *types.get_mut(f.kind.as_str()).expect("all types counted") += 1;
                stats.clusters += 1;
                stats.clustered_sentences += f.size as u64;
                *stats.cluster_size_histogram.entry(f.size).or_insert(0) += 1;
                for &(doc, seq) in &f.docs {
                    first_seq.entry(doc).or_insert(seq);
                }
                if f.docs.len() <= MAX_CLUSTER_ARTICLES {
                    pair_docs.extend(f.docs.iter().map(|&(doc, _)| doc));
                    pair_bounds.push(pair_docs.len());
                }
            }
            report.advance((end - start) as u64);
            start = end;
        }
        Ok(())
    })?;
    report.finish();
    drop(clusters);
    drop(texts);
    let mut articles: Vec<u64> = first_seq.keys().copied().collect();
    articles.sort_unstable();
    stats.distinct_articles = articles.len() as u64;
    stats.types = types;
    // Article indices in document-id order, so ties sort by document ids as before.
    let lists: Vec<u32> = pair_docs
        .par_iter()
        .map(|doc| {
            let i = articles
                .binary_search(doc)
                .expect("every clustered document was recorded");
            u32::try_from(i).expect("at most 2^32 documents (checked in stage 1)")
        })
        .collect();
    drop(pair_docs);
    let top = top_article_pairs(
        &lists,
        &pair_bounds,
        articles.len(),
        options.max_article_pairs,
    );
    let title = |doc: u64| tsv(&docs[first_seq[&doc] as usize].1);
    write_atomically(&out_dir.join("article-pairs.tsv"), |w| {
        writeln!(w, "shared_clusters\tdoc_a\ttitle_a\tdoc_b\ttitle_b")?;
        for row in &top {
            let (a, b) = (articles[row.a as usize], articles[row.b as usize]);
            writeln!(w, "{}\t{a}\t{}\t{b}\t{}", row.shared, title(a), title(b))?;
        }
        Ok(())
    })?;
    stats.seconds.text_classify_write = started.elapsed().as_secs_f64();
    write_atomically(&out_dir.join("stats.json"), |w| {
        serde_json::to_writer_pretty(&mut *w, &stats)?;
        w.write_all(b"\n")?;
        Ok(())
    })?;
    Ok(stats)
}

/// Members of the clusters formatted per parallel chunk of stages 6-8 (a few MiB of text, so
/// a chunk is far more work than writing it).
const CHUNK_MEMBERS: usize = 1 << 15;

/// One cluster after stages 6 and 8, ready to be written.
struct Formatted {
    kind: ClusterType,
    /// Its `clusters.jsonl` line, without the newline.
    line: String,
    size: usize,
    /// Its distinct documents, ascending, each with the `seq` of its first member.
    docs: Vec<(u64, u32)>,
}

/// Fetches the members' texts (stage 6) and classifies and formats the cluster (stage 8).
fn format_cluster(
    cluster: Cluster<'_>,
    docs: &[(u64, String)],
    texts: &TextReader,
) -> anyhow::Result<Formatted> {
    let mut members: Vec<ClusterMember> = cluster
        .members()
        .iter()
        .map(|&id| {
            let (doc, title) = &docs[(id >> 32) as usize];
            Ok(ClusterMember {
                id,
                doc: *doc,
                title: title.clone(),
                text: texts.get(id)?,
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let (kind, line) = cluster_line(cluster.id(), &mut members);
    // `cluster_line` sorted the members by document.
    let mut in_cluster: Vec<(u64, u32)> = Vec::new();
    for m in &members {
        if in_cluster.last().is_none_or(|&(doc, _)| doc != m.doc) {
            in_cluster.push((m.doc, (m.id >> 32) as u32));
        }
    }
    Ok(Formatted {
        kind,
        line,
        size: members.len(),
        docs: in_cluster,
    })
}

/// Titles may hold tabs or newlines only by accident; keep the TSV well-formed.
fn tsv(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

/// Writes `path` through a temporary file in the same directory and renames it into place, so
/// a reader never sees a half-written output.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    let (file, tmp_path) = tmp.into_parts();
    let mut w = BufWriter::with_capacity(1 << 20, file);
    write(&mut w)?;
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    // Temporary files are created private (0600); outputs are ordinary files.
    std::fs::set_permissions(&tmp_path, std::fs::Permissions::from_mode(0o644))?;
    tmp_path
        .persist(path)
        .with_context(|| format!("cannot move the output into {}", path.display()))?;
    Ok(())
}
