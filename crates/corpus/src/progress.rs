//! What a run tells its caller as it goes: [`Progress`].
use crate::input::InputError;

/// A stage of a run that reports its progress (see [`Progress`]): the long stages of the
/// workspace's jobs (dedup's numbered stages 1-8, the index's reading, text reuse's scoring and
/// aligning), one list, so that one progress display serves every job. Reading documents is
/// shared by all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// Dedup stages 1-2, and the reading of every other job: documents read, split, filtered
    /// and signed (no total).
    ReadDocuments,
    /// Dedup stage 3: band-key records merged into buckets (the total is the records pushed;
    /// records pushed twice are merged once, so the count may stop short of it).
    MergeRecords,
    /// Dedup stages 4-5: distinct candidate pairs joined into clusters (no total).
    ClusterPairs,
    /// Dedup stages 6-8: clusters fetched, classified and delivered (the total is the clusters).
    WriteClusters,
    /// Text reuse: query chunks scored against the candidate index (the total is the query
    /// chunks times the index blocks).
    ScoreChunks,
    /// Text reuse: candidate document pairs aligned (the total is the pairs).
    AlignPairs,
}

impl Stage {
    /// What the stage counts, for a progress line ("documents", "records", "pairs", "clusters").
    pub fn unit(self) -> &'static str {
        match self {
            Stage::ReadDocuments => "documents",
            Stage::MergeRecords => "records",
            Stage::ClusterPairs => "pairs",
            Stage::WriteClusters => "clusters",
            Stage::ScoreChunks => "chunks",
            Stage::AlignPairs => "pairs",
        }
    }
}

/// What a run tells its caller as it goes: a log line per stage, input problems it read past,
/// and, for the long stages, progress (the CLI draws bars from it). Every method has a default
/// that does nothing (or logs), so implement only what you show. [`NoProgress`] shows nothing;
/// any `Fn(&str)` closure is a `Progress` that receives the log lines.
///
/// The calls of a stage come as [`Progress::start`], any number of [`Progress::advance`], then
/// [`Progress::finish`], all from the thread that called the run (so an implementation needs no
/// locking).
pub trait Progress {
    /// A log line (the summary of a stage).
    fn log(&self, line: &str) {
        let _ = line;
    }

    /// A bad file or record that was skipped, or damage in a dump that reading went past
    /// ([`InputError`]). The default logs `skipped: <problem> (reading goes on)`.
    fn input_problem(&self, problem: &InputError) {
        self.log(&format!(
            "skipped: {} (reading goes on)",
            crate::error_chain(problem)
        ));
    }

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

/// A [`Progress`] that shows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

impl<F: Fn(&str)> Progress for F {
    fn log(&self, line: &str) {
        self(line)
    }
}
