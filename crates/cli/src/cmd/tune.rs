//! `textreuse tune`: the S-curve of a MinHash configuration, or a recommended (K, M).
use crate::util::Global;

/// Arguments of `textreuse tune`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `textreuse tune`.
pub fn run(_args: &Args, _global: &Global) -> anyhow::Result<()> {
    anyhow::bail!("not implemented yet")
}
