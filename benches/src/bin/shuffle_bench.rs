//! Feeds synthetic band-key records through stages 3-5 of dedup (shuffle, pairs, clusters) and
//! prints wall time per stage (docs/performance.md, "shuffle and unionfind").
//!
//! ```text
//! cargo run --profile dist -p textreuse-benches --bin shuffle_bench -- --records 1.4e9 --work-mem 4GB --tmp /tmp/uf-spill
//! ```
//!
//! The records model the dedup pipeline's: 10 band keys per sentence, sentence ids packed as
//! `doc << 32 | idx` (40 sentences a document). A few percent of sentences are near-duplicates of
//! an earlier sentence (each band key copied with probability 1/2, the rate of a pair at Jaccard
//! 0.93 with 10-minhash bands), and a few per mille share a band with one of 1000 "templates"
//! chosen Zipf-like, which makes a few huge buckets that the cap cuts. Every record is a pure
//! function of its index and the seed, so runs are reproducible and generation is parallel.
//! Peak memory is measured outside (`/usr/bin/time -v`).
use std::io::Write;
use std::time::Instant;

use anyhow::Context;
use clap::Parser;
use rayon::prelude::*;
use textreuse_hash::mix64;
use textreuse_shuffle::{PairMode, ShuffleBuilder};

// The CLI's size parser (a binary crate's module, so included by path, as the `cli_size` fuzz
// target does): `--work-mem` reads sizes exactly as `textreuse dedup --work-mem` does.
#[allow(dead_code)]
#[path = "../../../crates/cli/src/args/size.rs"]
mod size;

/// Bands (records) per synthetic sentence.
const BANDS: u64 = 10;
/// Sentences per synthetic document.
const SENTENCES_PER_DOC: u64 = 40;
/// Records generated per batch.
const BATCH: usize = 1 << 20;

/// Benchmark the shuffle (stages 3-5) on synthetic band-key records.
#[derive(Debug, Parser)]
#[command(name = "shuffle_bench")]
struct Args {
    /// Number of band-key records to generate (accepts `1e8`, `200_000_000`).
    #[arg(long, value_name = "N", default_value = "10000000", value_parser = parse_count)]
    pub records: u64,
    /// Memory budget for buffered records, such as `64MB`, `4GB` or `512KiB` (also read under
    /// its old name, `--mem-budget`).
    #[arg(long, alias = "mem-budget", value_name = "SIZE", default_value = "4GB", value_parser = parse_size_arg)]
    pub work_mem: u64,
    /// A bucket with more ids contributes only its first N (by id).
    #[arg(long, value_name = "N", default_value_t = textreuse_shuffle::DEFAULT_MAX_BUCKET)]
    pub max_bucket: usize,
    /// Emit all pairs of each bucket instead of star pairs.
    #[arg(long)]
    pub all_pairs: bool,
    /// Directory for spill files (default: the system temporary directory).
    #[arg(long, value_name = "DIR")]
    pub tmp: Option<std::path::PathBuf>,
    /// Fraction of sentences that are near-duplicates of an earlier one.
    #[arg(long, value_name = "P", default_value_t = 0.03)]
    pub dup_rate: f64,
    /// Fraction of sentences that share a band with a template.
    #[arg(long, value_name = "P", default_value_t = 0.002)]
    pub template_rate: f64,
    /// Seed of the synthetic data.
    #[arg(long, default_value_t = textreuse_minhash::DEFAULT_SEED)]
    pub seed: u64,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No log line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_size_arg(s: &str) -> Result<u64, String> {
    size::parse_size(s).map_err(|e| e.to_string())
}

/// A record count: digits with optional `_`, or a decimal with an exponent (`1.4e9`).
fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    if let Ok(n) = t.parse::<u64>() {
        return Ok(n);
    }
    match t.parse::<f64>() {
        Ok(x) if (0.0..=1e19).contains(&x) && x.fract() == 0.0 => Ok(x as u64),
        _ => Err(format!(
            "invalid count {s:?} (expected a whole number such as 100000000 or 1e8)"
        )),
    }
}

/// The synthetic record generator.
struct Synth {
    seed: u64,
    dup_threshold: u64,
    template_threshold: u64,
}

impl Synth {
    fn new(args: &Args) -> Synth {
        let scale = |p: f64| (p.clamp(0.0, 1.0) * (1u64 << 32) as f64) as u64;
        Synth {
            seed: mix64(args.seed),
            dup_threshold: scale(args.dup_rate),
            template_threshold: scale(args.template_rate),
        }
    }

    /// If sentence `s` is a near-duplicate: the earlier sentence it copies and the bands it
    /// copies (a bit mask).
    #[inline]
    fn source(&self, s: u64) -> Option<(u64, u64)> {
        let h = mix64(self.seed ^ s);
        if s == 0 || (h & 0xffff_ffff) >= self.dup_threshold {
            return None;
        }
        let h2 = mix64(h);
        // Mostly recent sentences (same or nearby article), sometimes anywhere before.
        let back = if h2 & 1 == 0 {
            1 + (h2 >> 1) % 1000
        } else {
            1 + (h2 >> 1) % s
        };
        let mask = mix64(h2) & ((1 << BANDS) - 1);
        Some((s.saturating_sub(back), mask | 1))
    }

    /// The band key of record `i` (sentence `i / 10`, band `i % 10`) and its sentence id.
    #[inline]
    fn record(&self, i: u64) -> (u64, u64) {
        let (mut s, band) = (i / BANDS, i % BANDS);
        let id = ((s / SENTENCES_PER_DOC) << 32) | (s % SENTENCES_PER_DOC);
        if band == 0 {
            let h = mix64(self.seed ^ s ^ 0x7e3a_11c5);
            if (h & 0xffff_ffff) < self.template_threshold {
                // Zipf-like: template z has probability ~ z^(-3/4) of 1000.
                let u = (h >> 32) as f64 / (1u64 << 32) as f64;
                let z = (1000.0 * u.powi(4)) as u64;
                return (mix64(self.seed ^ ((1 << 63) | z)), id);
            }
        }
        // Follow the copy chain while this band was copied.
        while let Some((t, mask)) = self.source(s) {
            if (mask >> band) & 1 == 0 {
                break;
            }
            s = t;
        }
        (mix64(self.seed ^ mix64(s * 16 + band)), id)
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if let Some(n) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("invalid --threads")?;
    }
    run(&args)
}

/// Runs the benchmark.
fn run(args: &Args) -> anyhow::Result<()> {
    let synth = Synth::new(args);
    let mut builder = ShuffleBuilder::new();
    builder
        .mem_budget(args.work_mem)
        .max_bucket(args.max_bucket)
        .pair_mode(if args.all_pairs {
            PairMode::All
        } else {
            PairMode::Star
        });
    if let Some(dir) = &args.tmp {
        builder.tmp_dir(dir);
    }
    let mut shuffle = builder.build().context("invalid shuffle options")?;
    if !args.quiet {
        eprintln!(
            "shuffle_bench: {} records, budget {} bytes, {} threads",
            args.records,
            args.work_mem,
            rayon::current_num_threads()
        );
    }

    let total = Instant::now();
    let mut batch = vec![(0u64, 0u64); BATCH];
    let (mut gen_secs, mut push_secs) = (0.0, 0.0);
    let mut next = 0u64;
    while next < args.records {
        let n = (args.records - next).min(BATCH as u64) as usize;
        let t = Instant::now();
        batch[..n]
            .par_iter_mut()
            .enumerate()
            .for_each(|(j, r)| *r = synth.record(next + j as u64));
        gen_secs += t.elapsed().as_secs_f64();
        let t = Instant::now();
        shuffle.push_slice(&batch[..n])?;
        push_secs += t.elapsed().as_secs_f64();
        next += n as u64;
    }
    drop(batch);

    let t = Instant::now();
    let pairs = shuffle.finish()?;
    let merge_secs = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (clusters, stats) = pairs.into_clusters(2)?;
    let cluster_secs = t.elapsed().as_secs_f64();
    let total_secs = total.elapsed().as_secs_f64();

    let n = args.records as f64;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let rate = |secs: f64| if secs > 0.0 { n / secs } else { f64::INFINITY };
    writeln!(out, "records              {}", stats.records)?;
    writeln!(out, "mem budget (bytes)   {}", args.work_mem)?;
    writeln!(out, "threads              {}", rayon::current_num_threads())?;
    writeln!(
        out,
        "stage 2 generate     {gen_secs:9.2} s  {:>12.0} records/s (synthetic stand-in)",
        rate(gen_secs)
    )?;
    writeln!(
        out,
        "stage 3a buffer+spill{push_secs:9.2} s  {:>12.0} records/s",
        rate(push_secs)
    )?;
    writeln!(
        out,
        "stage 3b+4 merge+pairs{merge_secs:8.2} s  {:>12.0} records/s",
        rate(merge_secs)
    )?;
    writeln!(
        out,
        "stage 5 clusters     {cluster_secs:9.2} s  {:>12.0} pairs/s",
        if cluster_secs > 0.0 {
            stats.candidate_pairs as f64 / cluster_secs
        } else {
            f64::INFINITY
        }
    )?;
    writeln!(
        out,
        "total                {total_secs:9.2} s  {:>12.0} records/s",
        rate(total_secs)
    )?;
    writeln!(
        out,
        "stages 3-5           {:9.2} s  {:>12.0} records/s",
        total_secs - gen_secs,
        rate(total_secs - gen_secs)
    )?;
    writeln!(out, "buckets              {}", stats.buckets)?;
    writeln!(out, "buckets capped       {}", stats.buckets_capped)?;
    writeln!(out, "pairs emitted        {}", stats.pairs_emitted)?;
    writeln!(out, "candidate pairs      {}", stats.candidate_pairs)?;
    writeln!(out, "bytes spilled        {}", stats.bytes_spilled)?;
    writeln!(out, "runs                 {}", stats.runs)?;
    writeln!(out, "clusters (size >= 2) {}", clusters.len())?;
    writeln!(out, "clustered sentences  {}", clusters.num_members())?;
    let largest = clusters.iter().map(|c| c.len()).max().unwrap_or(0);
    writeln!(out, "largest cluster      {largest}")?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse() {
        assert_eq!(parse_count("1e8"), Ok(100_000_000));
        assert_eq!(parse_count("1.4e9"), Ok(1_400_000_000));
        assert_eq!(parse_count("200_000"), Ok(200_000));
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("ten").is_err());
    }
}
