//! `textreuse simhash FILE...`: the 64-bit SimHash fingerprint of every kept sentence, one
//! `{"doc","idx","fingerprint"}` object per line, or with `--pairs` every pair of sentences
//! within `--max-hamming` bits, one `{"a":{"doc","idx"},"b":{"doc","idx"},"hamming"}` per line.
//!
//! Inputs and the sentence filter are those of `textreuse sentences` (and `dedup`): dumps,
//! JSON Lines and plain text, sentences kept when their shingle count on the text as written is
//! within `--min-shingles..=--max-shingles`. The fingerprint is the one `textreuse dedup
//! --method simhash` uses ([`textreuse_cli::pipeline::features::sentence_simhash`]): the
//! sentence is normalized (lowercase, whitespace collapsed), its `--shingle`-character shingles
//! fingerprinted as a set, and SimHashed with the default seed. `idx` counts every sentence of
//! the document, kept or not, as in `sentences`.
//!
//! Output order is the input order: documents as read, sentences by `idx`; pairs sorted by the
//! input position of `a`, then of `b` (`a` comes first in the input). Pairs come from the exact
//! permuted-table search (`--method table`, every pair within `K` bits) or the approximate
//! sliding-window search (`--method window`, `--permutations Q --window B`, which misses some).
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use rayon::prelude::*;
use serde::Serialize;
use textreuse_cli::input::is_json_lines;
use textreuse_cli::pipeline::features::{FeatureScratch, sentence_simhash};
use textreuse_cli::sources::{self, Source};
use textreuse_shingle::{Normalize, sentences};
use textreuse_simhash::{SimHasher, TableSearch, WindowSearch};
use textreuse_wikidump::Cleaner;

use crate::util::{self, FilterArgs, Global};

/// Arguments of `textreuse simhash`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Inputs: Wikipedia dumps (.xml, .xml.bz2), .jsonl ({"id","title","text"} per line) or text
    /// files (one document each, id = position in this list). Default: the bundled sample dumps.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Write the pairs of sentences within --max-hamming bits instead of the fingerprints.
    #[arg(long)]
    pub pairs: bool,
    /// With --pairs: the largest Hamming distance (of 64 bits) of a pair.
    #[arg(long, default_value_t = 3, value_name = "K")]
    pub max_hamming: u32,
    /// With --pairs: the exact permuted-table search, or the approximate sliding window.
    #[arg(long, value_enum, default_value_t = SearchMethod::Table)]
    pub method: SearchMethod,
    /// With --method window: the number Q of random bit permutations.
    #[arg(long, default_value_t = 10, value_name = "Q")]
    pub permutations: u32,
    /// With --method window: each fingerprint is compared with the next B in sorted order.
    #[arg(long, default_value_t = 10, value_name = "B")]
    pub window: u32,
    /// With --method window: the seed of the permutations.
    #[arg(long, default_value_t = textreuse_simhash::DEFAULT_SEED)]
    pub seed: u64,
}

/// How `--pairs` searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchMethod {
    /// Exact: every pair within K bits (Manku, Jain and Das Sarma's permuted sorted tables).
    #[value(alias = "exact")]
    Table,
    /// Approximate: Q random bit permutations, sorted, each compared with its next B
    /// (Ture, Elsayed and Lin); misses some pairs.
    Window,
}

/// Documents per parallel batch.
const BATCH: usize = 256;

#[derive(Serialize)]
struct OutFingerprint {
    doc: u64,
    idx: u32,
    fingerprint: String,
}

#[derive(Serialize)]
struct OutId {
    doc: u64,
    idx: u32,
}

#[derive(Serialize)]
struct OutPair {
    a: OutId,
    b: OutId,
    hamming: u8,
}

/// One kept sentence: document id, sentence index, fingerprint.
type Kept = (u64, u32, u64);

/// Runs `textreuse simhash`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let filter = args.filter.filter();
    // Check the search parameters before reading anything.
    enum Search {
        Table(TableSearch),
        Window(WindowSearch),
    }
    let search = match args.method {
        SearchMethod::Table => {
            Search::Table(TableSearch::new(args.max_hamming).context("invalid --max-hamming")?)
        }
        SearchMethod::Window => Search::Window(
            WindowSearch::builder()
                .max_hamming(args.max_hamming)
                .permutations(args.permutations)
                .window(args.window)
                .seed(args.seed)
                .build()
                .context("invalid window search parameters")?,
        ),
    };
    let files = global.inputs_or_samples(&args.files);

    let cleaner = Cleaner::new();
    let hasher = SimHasher::new();
    let norm = Normalize::new();
    let mut out = util::stdout();
    let (mut docs, mut total) = (0u64, 0u64);
    // With --pairs every kept sentence is held (16 bytes + 8 of fingerprint) until the search.
    let mut kept: Vec<Kept> = Vec::new();
    let mut kept_count = 0u64;
    let mut batch: Vec<Source> = Vec::with_capacity(BATCH);
    let mut flush = |batch: &mut Vec<Source>,
                     out: &mut dyn Write,
                     kept: &mut Vec<Kept>|
     -> anyhow::Result<()> {
        let results: Vec<(u64, Vec<Kept>)> = std::mem::take(batch)
            .into_par_iter()
            .map_init(FeatureScratch::new, |scratch, source| {
                let doc = source.into_document(&cleaner);
                let mut sentences_seen = 0u64;
                let mut doc_kept = Vec::new();
                for (idx, s) in sentences(&doc.text).enumerate() {
                    sentences_seen += 1;
                    if !filter.keeps(s.as_str()) {
                        continue;
                    }
                    if let Some(fp) =
                        sentence_simhash(s.as_str(), filter.shingle, &norm, &hasher, scratch)
                    {
                        doc_kept.push((doc.id, idx as u32, fp));
                    }
                }
                (sentences_seen, doc_kept)
            })
            .collect();
        for (seen, doc_kept) in results {
            docs += 1;
            total += seen;
            kept_count += doc_kept.len() as u64;
            if args.pairs {
                kept.extend_from_slice(&doc_kept);
            } else {
                for (doc, idx, fp) in doc_kept {
                    let rec = OutFingerprint {
                        doc,
                        idx,
                        fingerprint: format!("{fp:016x}"),
                    };
                    serde_json::to_writer(&mut *out, &rec)?;
                    out.write_all(b"\n")?;
                }
            }
        }
        Ok(())
    };

    let threads = rayon::current_num_threads();
    let mut problems = 0u64;
    // One file at a time, so that a plain-text document gets its position in the argument list
    // as its id (as in `textreuse sentences`), whichever reader delivers it.
    for (position, path) in files.iter().enumerate() {
        let plain = !sources::is_dump(path) && !is_json_lines(path);
        sources::read_all(
            std::slice::from_ref(path),
            threads,
            |source| {
                let source = match source {
                    Source::Text(mut doc) if plain => {
                        doc.id = position as u64 + 1;
                        Source::Text(doc)
                    }
                    other => other,
                };
                batch.push(source);
                if batch.len() >= BATCH {
                    flush(&mut batch, &mut out, &mut kept)?;
                }
                Ok(())
            },
            |problem| {
                problems += 1;
                global.log(format_args!(
                    "warning: {}: {} (reading goes on)",
                    problem.path.display(),
                    problem.message
                ));
            },
        )?;
    }
    flush(&mut batch, &mut out, &mut kept)?;
    global.log(format_args!(
        "{docs} documents, {total} sentences, {kept_count} fingerprinted ({}){}",
        args.filter.describe(),
        if problems > 0 {
            format!(", {problems} input problems")
        } else {
            String::new()
        }
    ));

    if args.pairs {
        let fps: Vec<u64> = kept.iter().map(|k| k.2).collect();
        let found = match &search {
            Search::Table(s) => s.pairs(&fps),
            Search::Window(s) => s.pairs(&fps),
        }
        .context("SimHash search failed")?;
        for p in &found {
            let (a, b) = (&kept[p.a as usize], &kept[p.b as usize]);
            let rec = OutPair {
                a: OutId { doc: a.0, idx: a.1 },
                b: OutId { doc: b.0, idx: b.1 },
                hamming: p.distance,
            };
            serde_json::to_writer(&mut out, &rec)?;
            out.write_all(b"\n")?;
        }
        global.log(format_args!(
            "{} pairs within {} bits ({} search)",
            found.len(),
            args.max_hamming,
            match args.method {
                SearchMethod::Table => "exact table",
                SearchMethod::Window => "approximate window",
            }
        ));
    }
    out.flush()?;
    Ok(())
}
