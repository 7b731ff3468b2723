//! Stages 1-2 as a three-step pipeline, written once for every front end that reads documents:
//! the calling thread reads and batches [`Source`]s; a processing thread cleans each batch's
//! documents and runs the caller's per-document work on the rayon pool; a consumer thread hands
//! the results to the caller's consumer, batch by batch in input order. Reading, the parallel
//! work and the in-order bookkeeping overlap. The threads hand each other whole batches, cut
//! into pieces of consecutive documents (one rayon task each), and consumed batches go back to
//! the reader to be filled again; with [`DocumentPipeline::run_pieces`] a piece's results go
//! into a buffer that is reused too, so nothing is allocated per document but the document
//! itself.
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
    ///
    /// [`DocumentPipeline::run_pieces`] is the same pipeline without a value per document.
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
        let mut consume = consume;
        self.run_pieces(
            sources,
            progress,
            init,
            |scratch, seq, doc, outs: &mut Vec<T>| outs.push(work(scratch, seq, doc)),
            |first_seq, outs| {
                for (i, out) in outs.drain(..).enumerate() {
                    consume(first_seq + i as u64, out)?;
                }
                Ok(())
            },
        )
    }

    /// [`DocumentPipeline::run`] for results that go into buffers rather than values: the
    /// reader cuts each batch into pieces of consecutive documents, and a piece's documents run
    /// on one rayon task, `work(scratch, seq, document, piece)` appending each one's results to
    /// the piece's `P`; `consume(first_seq, piece)` then receives the pieces in input order
    /// (`first_seq` is the `seq` of the piece's first document) and must leave `piece` empty
    /// for the next one. Pieces and batches go back to the reader to be filled again, so in the
    /// steady state the pipeline allocates nothing, and a `P` that keeps its buffers' capacity
    /// when emptied makes the work allocation-free too. Threads hand each other batches, never
    /// single documents. How the input is cut changes no result a caller sees when `work`
    /// appends and `consume` reads in order.
    pub fn run_pieces<I, S, P, N, W, C>(
        &self,
        sources: I,
        progress: &dyn Progress,
        init: N,
        work: W,
        consume: C,
    ) -> Result<ReadCounts, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
        P: Default + Send,
        N: Fn() -> S + Sync + Send,
        W: Fn(&mut S, u64, Document, &mut P) + Sync + Send,
        C: FnMut(u64, &mut P) -> Result<(), Error> + Send,
    {
        let cleaner = Cleaner::new();
        let (batch_tx, batch_rx) = mpsc::sync_channel::<Batch<P>>(PIPELINE_DEPTH);
        let (out_tx, out_rx) = mpsc::sync_channel::<Batch<P>>(PIPELINE_DEPTH);
        // Consumed batches back to the reader; at most the batches in flight are ever made.
        let (free_tx, free_rx) = mpsc::channel::<Batch<P>>();
        let mut consume = consume;
        progress.start(Stage::ReadDocuments, None);
        let (read, consumed) = std::thread::scope(|scope| {
            let (cleaner, init, work) = (&cleaner, &init, &work);
            let processor = scope.spawn(move || {
                for mut batch in batch_rx {
                    let filled = batch.filled;
                    batch.pieces[..filled]
                        .par_iter_mut()
                        .for_each_init(init, |scratch, piece| {
                            for (i, source) in piece.sources.drain(..).enumerate() {
                                let doc = source.into_document(cleaner);
                                work(scratch, piece.first_seq + i as u64, doc, &mut piece.out);
                            }
                        });
                    if out_tx.send(batch).is_err() {
                        break; // the consumer failed; it reports why
                    }
                }
            });
            let consumer = scope.spawn(move || -> Result<(), Error> {
                for mut batch in out_rx {
                    for piece in &mut batch.pieces[..batch.filled] {
                        consume(piece.first_seq, &mut piece.out)?;
                    }
                    (batch.filled, batch.len) = (0, 0);
                    // The reader may have finished; then the batch is simply dropped.
                    let _ = free_tx.send(batch);
                }
                Ok(())
            });
            let read = self.read(sources, progress, &batch_tx, &free_rx);
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

    /// The reader: fills batches of pieces with sources and sends them on, counting documents
    /// and problems.
    fn read<I, P: Default>(
        &self,
        sources: I,
        progress: &dyn Progress,
        batch_tx: &mpsc::SyncSender<Batch<P>>,
        free_rx: &mpsc::Receiver<Batch<P>>,
    ) -> Result<ReadCounts, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
    {
        // About four pieces a worker thread: enough for rayon to even out uneven documents.
        let piece_len = self.batch.div_ceil(4 * rayon::current_num_threads()).max(1);
        let mut counts = ReadCounts::default();
        let mut next_seq = 0u64;
        let mut bytes = 0usize;
        let mut batch = Batch::<P>::default();
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
                    batch.push(source, next_seq, piece_len);
                    next_seq += 1;
                    if batch.len >= self.batch || bytes >= self.batch_bytes {
                        bytes = 0;
                        let next = free_rx.try_recv().unwrap_or_default();
                        // False when the consumer stopped: reading stops too, and `run` returns
                        // the consumer's error.
                        if batch_tx.send(std::mem::replace(&mut batch, next)).is_err() {
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
        if batch.len > 0 {
            let _ = batch_tx.send(batch);
        }
        Ok(counts)
    }
}

/// A batch of documents in pieces: the unit the reader, the processing and the consumer
/// threads hand each other. `pieces[..filled]` are in use; the rest wait, emptied, with their
/// capacity, for the next time the batch is filled.
struct Batch<P> {
    pieces: Vec<Piece<P>>,
    filled: usize,
    /// Documents in the filled pieces.
    len: usize,
}

impl<P> Default for Batch<P> {
    fn default() -> Self {
        Batch {
            pieces: Vec::new(),
            filled: 0,
            len: 0,
        }
    }
}

impl<P: Default> Batch<P> {
    /// Adds document `seq` to the last piece, or to a new one once that has `piece_len`.
    fn push(&mut self, source: Source, seq: u64, piece_len: usize) {
        let last_full = self.filled == 0 || self.pieces[self.filled - 1].sources.len() >= piece_len;
        if last_full {
            if self.filled == self.pieces.len() {
                self.pieces.push(Piece::default());
            }
            self.filled += 1;
            self.pieces[self.filled - 1].first_seq = seq;
        }
        self.pieces[self.filled - 1].sources.push(source);
        self.len += 1;
    }
}

/// Consecutive documents of a batch, processed on one rayon task, and their results.
#[derive(Default)]
struct Piece<P> {
    first_seq: u64,
    sources: Vec<Source>,
    out: P,
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_corpus::NoProgress;

    fn docs(n: u64) -> impl Iterator<Item = Result<Source, InputError>> {
        (0..n).map(|i| {
            Ok(Source::from(Document::new(
                i,
                "",
                "x".repeat(i as usize % 7),
            )))
        })
    }

    /// Pieces reach the consumer in input order, whatever the batch size and byte cap, and
    /// emptied pieces come back to be filled again.
    #[test]
    fn pieces_come_in_order_at_any_batch_size() {
        for (batch, bytes) in [(1, usize::MAX), (3, usize::MAX), (512, usize::MAX), (64, 5)] {
            let mut seen = Vec::new();
            let mut reused = false;
            let counts = DocumentPipeline::new()
                .batch(batch)
                .batch_bytes(bytes)
                .run_pieces(
                    docs(1000),
                    &NoProgress,
                    || (),
                    // The piece's results and how many times it was consumed.
                    |_, seq, doc, piece: &mut (Vec<(u64, usize)>, u32)| {
                        piece.0.push((seq, doc.text.len()))
                    },
                    |first_seq, (results, uses)| {
                        assert_eq!(results[0].0, first_seq);
                        *uses += 1;
                        reused |= *uses > 1;
                        seen.append(results);
                        Ok(())
                    },
                )
                .unwrap();
            assert_eq!(counts.documents, 1000);
            let expected: Vec<_> = (0..1000u64).map(|i| (i, i as usize % 7)).collect();
            assert_eq!(seen, expected, "batch {batch}, bytes {bytes}");
            // At most about eight batches are ever made (the channels hold the rest back), so
            // hundreds of batches must reuse them.
            if batch <= 3 {
                assert!(reused, "no piece was reused at batch {batch}");
            }
        }
    }

    /// An error of the consumer stops the pipeline and is what `run_pieces` returns.
    #[test]
    fn a_consumer_error_stops_reading() {
        let result = DocumentPipeline::new().batch(2).run_pieces(
            docs(100_000),
            &NoProgress,
            || (),
            |_, seq, _, piece: &mut Vec<u64>| piece.push(seq),
            |first_seq, piece| {
                piece.clear();
                match first_seq {
                    10.. => Err(Error::TooManyDocuments),
                    _ => Ok(()),
                }
            },
        );
        assert!(matches!(result, Err(Error::TooManyDocuments)));
    }
}
