//! Stages 1-2 as a three-step pipeline, written once for every front end that reads documents:
//! the calling thread reads and batches [`Source`]s; a processing thread cleans each batch's
//! documents and runs the caller's per-document work on the rayon pool; a consumer thread hands
//! the results to the caller's consumer, batch by batch in input order. Reading, the parallel
//! work and the in-order bookkeeping overlap.
//!
//! ```
//! use textreuse_shingle::units::{KeptSentences, SentenceFilter};
//! use textreuse_dedup::pipeline::DocumentPipeline;
//! use textreuse_corpus::{Document, NoProgress, Source};
//!
//! let docs = (0..100).map(|i| Ok(Source::from(Document::new(i, "", format!("Sentence {i}. Another one.")))));
//! let filter = SentenceFilter { min_shingles: 0, ..SentenceFilter::default() };
//! let mut sentences = 0;
//! let counts = DocumentPipeline::new().batch(16).run(
//!     docs,
//!     &NoProgress,
//!     || (),
//!     |_, seq, doc| KeptSentences::new(&doc.text, seq, &filter).count(),
//!     |_seq, n| {
//!         sentences += n;
//!         Ok(())
//!     },
//! )?;
//! assert_eq!((counts.documents, sentences), (100, 200));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::sync::mpsc;

use rayon::prelude::*;
use textreuse_wikidump::Cleaner;

use crate::Error;
use textreuse_corpus::{Document, InputError, Progress, Source, Stage};

/// The default documents per parallel batch.
pub const DEFAULT_BATCH: usize = 512;

/// Batches in flight between the reader, the processing and the consumer threads.
const PIPELINE_DEPTH: usize = 2;

/// What [`DocumentPipeline::run`] read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadCounts {
    /// Documents read (and consumed).
    pub documents: u64,
    /// Input problems (bad files and records) reported to [`Progress::input_problem`] and
    /// skipped.
    pub input_problems: u64,
}

/// The stage 1-2 driver (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct DocumentPipeline {
    batch: usize,
    batch_bytes: usize,
}

impl Default for DocumentPipeline {
    fn default() -> Self {
        DocumentPipeline::new()
    }
}

impl DocumentPipeline {
    /// A pipeline with batches of [`DEFAULT_BATCH`] documents.
    pub fn new() -> DocumentPipeline {
        DocumentPipeline {
            batch: DEFAULT_BATCH,
            batch_bytes: usize::MAX,
        }
    }

    /// Documents per parallel batch (at least 1).
    pub fn batch(&mut self, documents: usize) -> &mut Self {
        self.batch = documents.max(1);
        self
    }

    /// Also ends a batch once its documents' texts (and titles) reach `bytes` (default: no
    /// limit), so that the batches in flight (two queued, one processed, two waiting for the
    /// consumer) stay small with large documents; a document larger than `bytes` is a batch of
    /// its own. Results do not depend on how the input is cut into batches.
    pub fn batch_bytes(&mut self, bytes: usize) -> &mut Self {
        self.batch_bytes = bytes.max(1);
        self
    }

    /// Reads `sources` in order; for each document, `work(scratch, seq, document)` runs on the
    /// rayon pool (`seq` is the document's 0-based position in the input; `scratch` comes from
    /// `init`, one per rayon task) and `consume(seq, result)` receives the results in input
    /// order. `progress` gets [`Stage::ReadDocuments`] and one advance per document, and every
    /// input problem, which is skipped ([`InputError`]); an error of `consume` stops the
    /// pipeline and is returned.
    pub fn run<I, S, T, N, W, C>(
        &self,
        sources: I,
        progress: &dyn Progress,
        init: N,
        work: W,
        consume: C,
    ) -> Result<ReadCounts, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
        T: Send,
        N: Fn() -> S + Sync + Send,
        W: Fn(&mut S, u64, Document) -> T + Sync + Send,
        C: FnMut(u64, T) -> Result<(), Error> + Send,
    {
        let cleaner = Cleaner::new();
        let (batch_tx, batch_rx) = mpsc::sync_channel::<(u64, Vec<Source>)>(PIPELINE_DEPTH);
        let (out_tx, out_rx) = mpsc::sync_channel::<(u64, Vec<T>)>(PIPELINE_DEPTH);
        let mut consume = consume;
        progress.start(Stage::ReadDocuments, None);
        let (read, consumed) = std::thread::scope(|scope| {
            let (cleaner, init, work) = (&cleaner, &init, &work);
            let processor = scope.spawn(move || {
                for (first_seq, batch) in batch_rx {
                    let outs: Vec<T> = batch
                        .into_par_iter()
                        .enumerate()
                        .map_init(init, |scratch, (i, source)| {
                            let doc = source.into_document(cleaner);
                            work(scratch, first_seq + i as u64, doc)
                        })
                        .collect();
                    if out_tx.send((first_seq, outs)).is_err() {
                        break; // the consumer failed; it reports why
                    }
                }
            });
            let consumer = scope.spawn(move || -> Result<(), Error> {
                for (first_seq, outs) in out_rx {
                    for (i, out) in outs.into_iter().enumerate() {
                        consume(first_seq + i as u64, out)?;
                    }
                }
                Ok(())
            });
            let read = self.read(sources, progress, &batch_tx);
            drop(batch_tx);
            let joined = processor.join().and_then(|()| consumer.join());
            let consumed = joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (read, consumed)
        });
        progress.finish();
        // A failed consumer stops the reader too: its error is the cause.
        consumed?;
        read
    }

    /// The reader: batches sources and sends them on, counting documents and problems.
    fn read<I>(
        &self,
        sources: I,
        progress: &dyn Progress,
        batch_tx: &mpsc::SyncSender<(u64, Vec<Source>)>,
    ) -> Result<ReadCounts, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
    {
        let mut counts = ReadCounts::default();
        let mut batch: Vec<Source> = Vec::with_capacity(self.batch);
        let mut next_seq = 0u64;
        let mut bytes = 0usize;
        // False when the consumer stopped: reading stops too, and `run` returns the consumer's
        // error.
        let mut send = |batch: Vec<Source>| -> bool {
            let n = batch.len() as u64;
            let sent = batch_tx.send((next_seq, batch)).is_ok();
            next_seq += n;
            sent
        };
        for source in sources {
            match source {
                Ok(source) => {
                    if counts.documents >= 1 << 32 {
                        return Err(Error::TooManyDocuments);
                    }
                    counts.documents += 1;
                    progress.advance(1);
                    bytes += match &source {
                        Source::Text(doc) => doc.text.len() + doc.title.len(),
                        Source::Wiki {
                            title, wikitext, ..
                        } => wikitext.len() + title.len(),
                    };
                    batch.push(source);
                    if batch.len() >= self.batch || bytes >= self.batch_bytes {
                        bytes = 0;
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(self.batch));
                        if !send(full) {
                            return Ok(counts);
                        }
                    }
                }
                Err(e) => {
                    // Reported and skipped; reading goes on (`InputError`'s policy).
                    counts.input_problems += 1;
                    progress.input_problem(&e);
                }
            }
        }
        if !batch.is_empty() {
            send(batch);
        }
        Ok(counts)
    }
}
