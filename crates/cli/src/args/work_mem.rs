//! `--work-mem` (formerly `--mem-budget`) with each command's default and help.
use std::marker::PhantomData;

use anyhow::Context;

use crate::args::size::parse_size;
use crate::global::Global;

/// A command's default and help line of `--work-mem`.
pub trait WorkMemDefault {
    /// The default size, as `--work-mem` reads it.
    const DEFAULT: &'static str;
    /// The help line (one paragraph, without the final period, as clap prints doc comments),
    /// ending with the default as clap writes one (the flag has no clap default, so that
    /// [`WorkMemArgs::given`] can tell whether it was given).
    const HELP: &'static str;
}

/// `dedup` and `reuse`: the memory of the sorts (in `reuse` also of the index blocks).
#[derive(Debug, Clone, Copy)]
pub struct Sorts;

impl WorkMemDefault for Sorts {
    const DEFAULT: &'static str = "2GB";
    const HELP: &'static str = "Memory of the sorts (in `reuse` also of the inverted index's \
        blocks) before they spill to disk (e.g. 64MB, 4GB). The rest of the run needs memory \
        beside it; with dedup's --max-memory, the sorts' budget inside that bound, which \
        defaults to their share of it (docs/performance.md) [default: 2GB]";
}

/// `index add`: the memory of the uncommitted batch.
#[derive(Debug, Clone, Copy)]
pub struct IndexBatch;

impl WorkMemDefault for IndexBatch {
    const DEFAULT: &'static str = "1GiB";
    const HELP: &'static str = "Memory budget (e.g. 512MB, 4GB): the uncommitted batch is \
        written as a segment and committed when it reaches half of it [default: 1GiB]";
}

/// `--work-mem`: the memory of the sorts (and, in `reuse`, of the index blocks; in `index add`,
/// of the uncommitted batch) before they spill to disk. It was called `--mem-budget`, which read
/// as a bound on the whole run; the old name still works, with a warning.
#[derive(Debug, clap::Args)]
pub struct WorkMemArgs<D: WorkMemDefault + Send + Sync + 'static> {
    // The help line and default are the command's (`D`).
    #[arg(long, value_name = "SIZE", help = D::HELP)]
    work_mem: Option<String>,
    /// The old name of --work-mem.
    #[arg(long, value_name = "SIZE", hide = true, conflicts_with = "work_mem")]
    mem_budget: Option<String>,
    #[arg(skip)]
    default: PhantomData<D>,
}

impl<D: WorkMemDefault + Send + Sync + 'static> WorkMemArgs<D> {
    /// The size in bytes (from the deprecated `--mem-budget`, with a warning, when given).
    pub fn bytes(&self, global: &Global) -> anyhow::Result<u64> {
        match self.given(global)? {
            Some(bytes) => Ok(bytes),
            None => Ok(parse_size(D::DEFAULT).expect("the defaults parse")),
        }
    }

    /// The size in bytes when the flag (or the deprecated `--mem-budget`) was given.
    pub fn given(&self, global: &Global) -> anyhow::Result<Option<u64>> {
        match (&self.mem_budget, &self.work_mem) {
            (Some(old), _) => {
                global.log("--mem-budget is deprecated: use --work-mem");
                parse_size(old).context("invalid --mem-budget").map(Some)
            }
            (None, Some(size)) => parse_size(size).context("invalid --work-mem").map(Some),
            (None, None) => Ok(None),
        }
    }
}
