//! `--work-mem` (formerly `--mem-budget`) with each command's default and help.
use std::marker::PhantomData;

use anyhow::Context;

use crate::args::size::parse_size;
use crate::global::Global;

/// A command's default and help line of `--work-mem`.
pub trait WorkMemDefault {
    /// The default size, as `--work-mem` reads it.
    const DEFAULT: &'static str;
    /// The help line (one paragraph, without the final period, as clap prints doc comments).
    const HELP: &'static str;
}

/// `dedup` and `reuse`: the memory of the sorts (in `reuse` also of the index blocks).
#[derive(Debug, Clone, Copy)]
pub struct Sorts;

impl WorkMemDefault for Sorts {
    const DEFAULT: &'static str = "2GB";
    const HELP: &'static str = "Memory of the sorts (in `reuse` also of the inverted index's \
        blocks) before they spill to disk (e.g. 64MB, 4GB). The rest of the run needs memory \
        beside it (docs/performance.md)";
}

/// `index add`: the memory of the uncommitted batch.
#[derive(Debug, Clone, Copy)]
pub struct IndexBatch;

impl WorkMemDefault for IndexBatch {
    const DEFAULT: &'static str = "1GiB";
    const HELP: &'static str = "Memory budget (e.g. 512MB, 4GB): the uncommitted batch is \
        written as a segment and committed when it reaches half of it";
}

/// `--work-mem`: the memory of the sorts (and, in `reuse`, of the index blocks; in `index add`,
/// of the uncommitted batch) before they spill to disk. It was called `--mem-budget`, which read
/// as a bound on the whole run; the old name still works, with a warning.
#[derive(Debug, clap::Args)]
pub struct WorkMemArgs<D: WorkMemDefault + Send + Sync + 'static> {
    // The help line and default are the command's (`D`).
    #[arg(long, default_value = D::DEFAULT, value_name = "SIZE", help = D::HELP)]
    work_mem: String,
    /// The old name of --work-mem.
    #[arg(long, value_name = "SIZE", hide = true, conflicts_with = "work_mem")]
    mem_budget: Option<String>,
    #[arg(skip)]
    default: PhantomData<D>,
}

impl<D: WorkMemDefault + Send + Sync + 'static> WorkMemArgs<D> {
    /// The size in bytes (from the deprecated `--mem-budget`, with a warning, when given).
    pub fn bytes(&self, global: &Global) -> anyhow::Result<u64> {
        match &self.mem_budget {
            Some(old) => {
                global.log("--mem-budget is deprecated: use --work-mem");
                parse_size(old).context("invalid --mem-budget")
            }
            None => parse_size(&self.work_mem).context("invalid --work-mem"),
        }
    }
}
