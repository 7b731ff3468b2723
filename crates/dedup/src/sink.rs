//! Where results go: the [`Sink`] trait, an in-memory [`Collect`], and [`OutputDir`], which
//! writes `clusters.jsonl`, `article-pairs.tsv` and `stats.json`.
use std::convert::Infallible;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use textreuse_corpus::{DocId, OutputError};

use crate::Stats;
use crate::cluster::Cluster;
use crate::contradictions::{self, Contradiction};

/// A pair of articles and the number of clusters they share (a row of `article-pairs.tsv`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArticlePairRow {
    /// Clusters with a member in both articles.
    pub shared_clusters: u64,
    /// The first article's document id (the smaller).
    pub doc_a: DocId,
    /// Its title (of its first member in output order).
    pub title_a: String,
    /// The second article's document id.
    pub doc_b: DocId,
    /// Its title.
    pub title_b: String,
}

impl ArticlePairRow {
    /// The header line of `article-pairs.tsv` (without the newline).
    pub const TSV_HEADER: &str = "shared_clusters\tdoc_a\ttitle_a\tdoc_b\ttitle_b";

    /// Its line of `article-pairs.tsv` (without the newline): `shared_clusters, doc_a, title_a,
    /// doc_b, title_b`, tab-separated, with tabs and line breaks in titles turned into spaces.
    pub fn to_tsv(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}",
            self.shared_clusters,
            self.doc_a,
            tsv(&self.title_a),
            self.doc_b,
            tsv(&self.title_b)
        )
    }
}

/// Receives the results of a run, in this order: every cluster by ascending cluster id
/// ([`Sink::cluster`]), then the top article pairs ([`Sink::article_pairs`]), then the counts
/// ([`Sink::finish`]). All calls come from the thread that called the run.
///
/// An error stops the run, which returns it as [`Error::Sink`](crate::Error::Sink).
///
/// ```
/// use std::convert::Infallible;
/// use textreuse_dedup::{Cluster, ClusterType, Sink};
///
/// /// Counts identical clusters and keeps nothing else.
/// #[derive(Default)]
/// struct CountIdentical(usize);
///
/// impl Sink for CountIdentical {
///     type Error = Infallible;
///     fn cluster(&mut self, cluster: Cluster) -> Result<(), Infallible> {
///         self.0 += (cluster.kind == ClusterType::Identical) as usize;
///         Ok(())
///     }
/// }
/// ```
pub trait Sink {
    /// What can go wrong in the sink.
    type Error: std::error::Error + Send + Sync + 'static;

    /// One cluster (two or more members).
    fn cluster(&mut self, cluster: Cluster) -> Result<(), Self::Error>;

    /// The article pairs that share the most clusters, most shared first (ties by document
    /// ids), at most [`DedupBuilder::max_article_pairs`](crate::DedupBuilder::max_article_pairs).
    fn article_pairs(&mut self, rows: Vec<ArticlePairRow>) -> Result<(), Self::Error> {
        let _ = rows;
        Ok(())
    }

    /// The run's counts; the last call.
    fn finish(&mut self, stats: &Stats) -> Result<(), Self::Error> {
        let _ = stats;
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    type Error = S::Error;
    fn cluster(&mut self, cluster: Cluster) -> Result<(), Self::Error> {
        (**self).cluster(cluster)
    }
    fn article_pairs(&mut self, rows: Vec<ArticlePairRow>) -> Result<(), Self::Error> {
        (**self).article_pairs(rows)
    }
    fn finish(&mut self, stats: &Stats) -> Result<(), Self::Error> {
        (**self).finish(stats)
    }
}

/// Two sinks that receive the same results, in order: `Tee(OutputDir::new(dir), DropList::default())`
/// writes the outputs and collects the duplicates. Either sink's error stops the run.
#[derive(Debug, Default)]
pub struct Tee<A, B>(pub A, pub B);

/// The error of a [`Tee`]: which sink failed, and why.
#[derive(Debug, thiserror::Error)]
pub enum TeeError<A, B> {
    /// The first sink failed.
    #[error(transparent)]
    First(A),
    /// The second sink failed.
    #[error(transparent)]
    Second(B),
}

impl<A: Sink, B: Sink> Sink for Tee<A, B> {
    type Error = TeeError<A::Error, B::Error>;
    fn cluster(&mut self, cluster: Cluster) -> Result<(), Self::Error> {
        self.1.cluster(cluster.clone()).map_err(TeeError::Second)?;
        self.0.cluster(cluster).map_err(TeeError::First)
    }
    fn article_pairs(&mut self, rows: Vec<ArticlePairRow>) -> Result<(), Self::Error> {
        self.1
            .article_pairs(rows.clone())
            .map_err(TeeError::Second)?;
        self.0.article_pairs(rows).map_err(TeeError::First)
    }
    fn finish(&mut self, stats: &Stats) -> Result<(), Self::Error> {
        self.0.finish(stats).map_err(TeeError::First)?;
        self.1.finish(stats).map_err(TeeError::Second)
    }
}

/// Clusters into a `Vec` (the article pairs and counts are dropped; see [`Collect`]).
impl Sink for Vec<Cluster> {
    type Error = Infallible;
    fn cluster(&mut self, cluster: Cluster) -> Result<(), Infallible> {
        self.push(cluster);
        Ok(())
    }
}

/// Everything a run delivers, in memory.
#[derive(Clone, Debug, Default)]
pub struct Collect {
    /// The clusters, by ascending id.
    pub clusters: Vec<Cluster>,
    /// The top article pairs.
    pub article_pairs: Vec<ArticlePairRow>,
    /// The counts, once the run finished.
    pub stats: Option<Stats>,
}

impl Sink for Collect {
    type Error = Infallible;
    fn cluster(&mut self, cluster: Cluster) -> Result<(), Infallible> {
        self.clusters.push(cluster);
        Ok(())
    }
    fn article_pairs(&mut self, rows: Vec<ArticlePairRow>) -> Result<(), Infallible> {
        self.article_pairs = rows;
        Ok(())
    }
    fn finish(&mut self, stats: &Stats) -> Result<(), Infallible> {
        self.stats = Some(stats.clone());
        Ok(())
    }
}

/// Writes the five files of `textreuse dedup` into a directory (created if needed):
///
/// * `clusters.jsonl`: one [`Cluster::to_json`] line per cluster, by cluster id;
/// * `duplicates.jsonl`: the [`Cluster::duplicates_json`] lines of every cluster, in the same
///   order: each unit to drop, with the one it duplicates;
/// * `contradictions.jsonl`: one [`Contradiction::to_json`] line per factual-drift cluster,
///   ranked ([`contradictions::rank`]);
/// * `article-pairs.tsv`: `shared_clusters, doc_a, title_a, doc_b, title_b`, with a header;
/// * `stats.json`: the [`Stats`], pretty-printed.
///
/// Each file is written to a temporary name in the directory and renamed into place when
/// complete, so a reader never sees a half-written file; for the five files to change together
/// write them into an [`OutputSet`](textreuse_corpus::files::OutputSet)'s directory, as
/// [`Dedup::run_to_dir`](crate::Dedup::run_to_dir) does.
#[derive(Debug)]
pub struct OutputDir {
    dir: PathBuf,
    /// Started with the first batch of clusters.
    writer: Option<Writer>,
    clusters_done: bool,
    /// Clusters received but not yet formatted: they are formatted in parallel, a batch of
    /// about `batch_limit` members at a time, and written in order.
    batch: Vec<Cluster>,
    batch_members: usize,
    batch_limit: usize,
    /// The factual-drift clusters' contradictions, written ranked at the end.
    contradictions: Vec<Contradiction>,
}

/// Members per parallel formatting batch of [`OutputDir`] by default (a few MiB of JSON).
const FORMAT_BATCH_MEMBERS: usize = 1 << 15;

/// An output file being written under a temporary name.
#[derive(Debug)]
struct Pending {
    writer: BufWriter<File>,
    tmp: tempfile::TempPath,
}

impl OutputDir {
    /// The names of the files it writes.
    pub const FILES: &'static [&'static str] = &[
        "clusters.jsonl",
        "duplicates.jsonl",
        "contradictions.jsonl",
        "article-pairs.tsv",
        "stats.json",
    ];

    /// The files the front ends add beside [`OutputDir::FILES`] (`textreuse dedup --against`
    /// and `--report`): a new result may replace a directory holding them too.
    pub const FRONT_END_FILES: &'static [&'static str] = &["against.jsonl", "report.html"];

    /// Outputs into `dir`; nothing is created before the first result arrives.
    pub fn new(dir: impl Into<PathBuf>) -> OutputDir {
        OutputDir {
            dir: dir.into(),
            writer: None,
            clusters_done: false,
            batch: Vec::new(),
            batch_members: 0,
            batch_limit: FORMAT_BATCH_MEMBERS,
            contradictions: Vec::new(),
        }
    }

    /// Formats clusters about `members` members at a time (default 32,768; at least 1): the
    /// memory of the formatting is about two such batches of JSON lines queued for the writer
    /// and one being made. [`Dedup::run_to_dir`](crate::Dedup::run_to_dir) sets
    /// [`MemoryPlan::chunk_members`](crate::MemoryPlan::chunk_members).
    pub fn batch_members(mut self, members: usize) -> OutputDir {
        self.batch_limit = members.max(1);
        self
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn start(&self) -> Result<Pending, OutputError> {
        std::fs::create_dir_all(&self.dir).map_err(|source| {
            OutputError::new("cannot create the output directory", &self.dir, source)
        })?;
        let tmp = tempfile::NamedTempFile::new_in(&self.dir).map_err(|source| {
            OutputError::new("cannot create a temporary file in", &self.dir, source)
        })?;
        let (file, tmp) = tmp.into_parts();
        Ok(Pending {
            writer: BufWriter::with_capacity(1 << 20, file),
            tmp,
        })
    }

    fn commit(&self, pending: Pending, name: &str) -> Result<(), OutputError> {
        let path = self.dir.join(name);
        let error = |what, source| OutputError::new(what, &path, source);
        let Pending { writer, tmp } = pending;
        writer
            .into_inner()
            .map_err(|e| error("cannot write", e.into_error()))?;
        // Temporary files are created private (0600); outputs are ordinary files.
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o644))
            .map_err(|e| error("cannot set the permissions of", e))?;
        tmp.persist(&path)
            .map_err(|e| error("cannot move the output into", e.error))
    }

    fn write_file(
        &self,
        name: &str,
        write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
    ) -> Result<(), OutputError> {
        let mut pending = self.start()?;
        write(&mut pending.writer)
            .map_err(|source| OutputError::new("cannot write", &self.dir.join(name), source))?;
        self.commit(pending, name)
    }

    /// Formats the batch of clusters in parallel and hands it to the writer thread (started
    /// with the first batch), which writes the batches in order while the next ones are made.
    fn write_batch(&mut self) -> Result<(), OutputError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        if self.writer.is_none() {
            let (clusters, duplicates) = (self.start()?, self.start()?);
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(Vec<u8>, Vec<u8>)>>(WRITE_DEPTH);
            let handle = std::thread::spawn(move || {
                let (mut clusters, mut duplicates) = (clusters, duplicates);
                for lines in rx {
                    for (cluster, dups) in &lines {
                        clusters.writer.write_all(cluster)?;
                        duplicates.writer.write_all(dups)?;
                    }
                }
                Ok((clusters, duplicates))
            });
            self.writer = Some(Writer { tx, handle });
        }
        // The clusters are formatted a few at a time into one buffer per file (their lines,
        // each with its newline) and consumed (their strings freed) on the workers too.
        let lines: Vec<(Vec<u8>, Vec<u8>)> = chunks(std::mem::take(&mut self.batch))
            .into_par_iter()
            .map(|clusters| {
                let (mut lines, mut dups) = (Vec::new(), Vec::new());
                for c in clusters {
                    c.write_json(&mut lines);
                    lines.push(b'\n');
                    c.write_duplicates_json(&mut dups);
                }
                (lines, dups)
            })
            .collect();
        self.batch_members = 0;
        let writer = self.writer.as_ref().expect("started above");
        if writer.tx.send(lines).is_err() {
            // The writer stopped on an error: joining it tells which.
            self.join_writer()?;
        }
        Ok(())
    }

    /// Waits for the writer thread and returns its two files, or the error that stopped it.
    fn join_writer(&mut self) -> Result<Option<(Pending, Pending)>, OutputError> {
        let Some(Writer { tx, handle }) = self.writer.take() else {
            return Ok(None);
        };
        drop(tx);
        let written = handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        written.map(Some).map_err(|source| {
            OutputError::new(
                "cannot write clusters.jsonl and duplicates.jsonl in",
                &self.dir,
                source,
            )
        })
    }

    /// Renames `clusters.jsonl` and `duplicates.jsonl` into place (empty if no cluster came).
    fn finish_clusters(&mut self) -> Result<(), OutputError> {
        if self.clusters_done {
            return Ok(());
        }
        self.write_batch()?;
        let (clusters, duplicates) = match self.join_writer()? {
            Some(files) => files,
            None => (self.start()?, self.start()?),
        };
        self.commit(clusters, "clusters.jsonl")?;
        self.commit(duplicates, "duplicates.jsonl")?;
        let mut contradictions = std::mem::take(&mut self.contradictions);
        contradictions::rank(&mut contradictions);
        self.write_file("contradictions.jsonl", |w| {
            for c in &contradictions {
                writeln!(w, "{}", c.to_json())?;
            }
            Ok(())
        })?;
        self.clusters_done = true;
        Ok(())
    }
}

/// Clusters formatted into one buffer by a worker of [`OutputDir`].
const FORMAT_CLUSTERS: usize = 64;

/// `clusters` cut into runs of [`FORMAT_CLUSTERS`], in order.
fn chunks(clusters: Vec<Cluster>) -> Vec<Vec<Cluster>> {
    let mut out = Vec::with_capacity(clusters.len().div_ceil(FORMAT_CLUSTERS));
    let mut clusters = clusters.into_iter().peekable();
    while clusters.peek().is_some() {
        out.push(clusters.by_ref().take(FORMAT_CLUSTERS).collect());
    }
    out
}

/// Batches of formatted clusters queued for the writer thread.
const WRITE_DEPTH: usize = 2;

/// The thread of [`OutputDir`] that writes `clusters.jsonl` and `duplicates.jsonl`.
#[derive(Debug)]
struct Writer {
    tx: std::sync::mpsc::SyncSender<Vec<(Vec<u8>, Vec<u8>)>>,
    handle: std::thread::JoinHandle<std::io::Result<(Pending, Pending)>>,
}

impl Sink for OutputDir {
    type Error = OutputError;

    fn cluster(&mut self, cluster: Cluster) -> Result<(), OutputError> {
        self.contradictions.extend(Contradiction::of(&cluster));
        self.batch_members += cluster.len();
        self.batch.push(cluster);
        if self.batch_members >= self.batch_limit {
            self.write_batch()?;
        }
        Ok(())
    }

    fn article_pairs(&mut self, rows: Vec<ArticlePairRow>) -> Result<(), OutputError> {
        self.finish_clusters()?;
        self.write_file("article-pairs.tsv", |w| {
            writeln!(w, "{}", ArticlePairRow::TSV_HEADER)?;
            for r in &rows {
                writeln!(w, "{}", r.to_tsv())?;
            }
            Ok(())
        })
    }

    fn finish(&mut self, stats: &Stats) -> Result<(), OutputError> {
        self.finish_clusters()?;
        self.write_file("stats.json", |w| w.write_all(stats.to_json().as_bytes()))
    }
}

/// Titles may hold tabs or newlines only by accident; keep the TSV well-formed.
fn tsv(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}
