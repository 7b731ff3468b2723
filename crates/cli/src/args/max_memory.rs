//! `--max-memory`: a bound on a command's peak resident memory, with each command's help line.
use std::marker::PhantomData;

use anyhow::Context;

use crate::args::size::parse_size;

/// A command's help line of `--max-memory`: what the bound covers in that command.
pub trait MaxMemoryHelp {
    /// The help line (one paragraph, without the final period, as clap prints doc comments).
    const HELP: &'static str;
}

/// `dedup`.
#[derive(Debug, Clone, Copy)]
pub struct Dedup;

impl MaxMemoryHelp for Dedup {
    const HELP: &'static str = "Bound on the peak resident memory of the whole run (e.g. \
        256MB, 4GB; at least 112MiB, checked before anything is read): the sorts, the index of \
        the sentence text file, union-find, the article-pair tally and ranking, simhash's \
        fingerprints, the --max-edit pairs and the output batches get shares of it and spill to \
        disk beyond them; --against then matches within it (halved between the index's reader \
        and writer with --add); the rp-embed path is not bounded yet (docs/performance.md). The \
        outputs are the same at any bound. Default: no bound";
}

/// `index add`, `index query` and `index compact`.
#[derive(Debug, Clone, Copy)]
pub struct Index;

impl MaxMemoryHelp for Index {
    const HELP: &'static str = "Bound on the peak resident memory of the whole run (e.g. \
        256MB, 4GB; at least 80MiB, checked before anything is read; queries need more on an \
        index of many segments, and say how much): the uncommitted batch (half of what is left \
        after the fixed cost, or --work-mem), the merges' tables and the mapped segment pages \
        get shares of it; merges that do not fit are put off (compact refuses, naming the bound \
        it needs) and pages read are given back to the OS (docs/performance.md). The index's \
        documents and the answers are the same at any bound. Default: no bound";
}

/// `extract`.
#[derive(Debug, Clone, Copy)]
pub struct Extract;

impl MaxMemoryHelp for Extract {
    const HELP: &'static str = "Bound on the peak resident memory of the run (e.g. 256MB; \
        at least the fixed cost and three times --max-page-mib, checked before anything is \
        read): fewer decompression threads are used when their buffers do not fit \
        (docs/performance.md). The output is the same at any bound. Default: no bound";
}

/// `check`.
#[derive(Debug, Clone, Copy)]
pub struct Check;

impl MaxMemoryHelp for Check {
    const HELP: &'static str = "Bound on the peak resident memory of the run (e.g. 512MB; at \
        least 80MiB, and what queries of the index's segments need on each thread: about 84MiB \
        for one segment on two threads, checked before anything is read). With --index, queries \
        give the mapped index pages back past their share. With --corpus the corpus is first added to a \
        temporary chunk index on disk under the bound (the same candidates and reports as the \
        in-memory index) (docs/performance.md). Default: no bound (--corpus is held in memory)";
}

/// `--max-memory SIZE`, parsed by [`parse_size`]; the help line is the command's (`H`).
#[derive(Debug, clap::Args)]
pub struct MaxMemoryArgs<H: MaxMemoryHelp + Send + Sync + 'static> {
    #[arg(long, value_name = "SIZE", help = H::HELP)]
    max_memory: Option<String>,
    #[arg(skip)]
    help: PhantomData<H>,
}

impl<H: MaxMemoryHelp + Send + Sync + 'static> MaxMemoryArgs<H> {
    /// The bound in bytes, when one was given.
    pub fn bytes(&self) -> anyhow::Result<Option<u64>> {
        self.max_memory
            .as_deref()
            .map(|size| parse_size(size).context("invalid --max-memory"))
            .transpose()
    }
}
