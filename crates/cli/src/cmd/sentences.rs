//! `textreuse sentences FILE...`: split documents into sentences and write one JSON object per
//! sentence, `{"id","doc","title","idx","start","end","shingles","text"}`.
//!
//! Wikipedia dumps (`.xml`, `.xml.bz2`) are read like `textreuse dedup` reads them: each article's
//! prose paragraphs (list items left out) joined by blank lines, `doc` = page id. With no FILE, the
//! bundled sample dumps are read.
//!
//! `idx` counts every sentence of the document (kept or not), so `(doc, idx)` is a stable
//! sentence id whatever the filter. `id` is the id `textreuse dedup` gives the same sentence when
//! it reads the same inputs in the same order: `seq << 32 | idx`, where `seq` is the document's
//! position in the input (from 0), so two versions of one page (same `doc`) get different ids.
//! The Spark backend of the Python package reads this output and keeps these ids. `start`/`end` are byte offsets into the document text;
//! `shingles` is the number of `--shingle`-character shingles of the sentence as it stands in the
//! text (no normalization). Sentences are kept when `--min-shingles <= shingles <=
//! --max-shingles`; `--max-shingles 0` removes the upper bound.
//!
//! `--band-keys` adds `"band_keys": ["<16 hex digits>", ...]`: the sentence's MinHash band keys
//! exactly as stage 2 of `textreuse dedup` computes them with the same `--shingle` and signer
//! flags (normalized, shingled, signed, one key per band in band order; an empty list when the
//! normalized sentence is shorter than one shingle, which dedup skips). Hex strings, because
//! JSON readers that parse numbers as doubles lose the low bits of 64-bit keys. The Python
//! package's tests compare its Arrow kernels with this output.
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;
use textreuse_cli::pipeline::features::{FeatureScratch, sentence_band_keys};
use textreuse_shingle::{Normalize, char_shingle_count, sentences};

use crate::util::{self, FilterArgs, Global, SignerArgs};
use textreuse_cli::sources;
use textreuse_wikidump::Cleaner;

/// Arguments of `textreuse sentences`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Input files: Wikipedia dumps (`.xml`, `.xml.bz2`), `.jsonl` (one `{"id","title","text"}`
    /// object per line, or the `paragraphs` form written by `textreuse extract`), anything else
    /// is one plain-text document whose id is its position in this list (from 1) and whose title
    /// is its file name without extension. Default: the bundled sample dumps.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Also write the counts of the run (`{"documents","sentences","kept","input_problems"}`,
    /// before the filter; documents without sentences included) to this JSON file: the Spark
    /// backend's `--input-stats` reads it so its stats.json matches `textreuse dedup`'s.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// The `seq` of the first document (ids are `seq << 32 | idx`). When extraction is split
    /// over shards, give each shard its own range (e.g. shard k: `k * 16777216`) so ids are
    /// unique without coordination; `textreuse dedup` numbers documents from 0.
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = clap::value_parser!(u64).range(..1 << 31))]
    pub first_seq: u64,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Add each sentence's MinHash band keys (as `textreuse dedup` computes them) as 16-digit
    /// hex strings, using the signer flags below.
    #[arg(long)]
    pub band_keys: bool,
    #[command(flatten)]
    pub signer: SignerArgs,
}

#[derive(Serialize)]
struct OutSentence<'a> {
    id: u64,
    doc: u64,
    title: &'a str,
    idx: usize,
    start: usize,
    end: usize,
    shingles: usize,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    band_keys: Option<Vec<String>>,
}

/// Runs `textreuse sentences`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let filter = args.filter.filter();
    let len = filter.shingle;
    let mut out = util::stdout();
    let (mut docs, mut total, mut kept) = (0u64, 0u64, 0u64);
    let files = if args.files.is_empty() {
        sources::bundled_samples()
    } else {
        args.files.clone()
    };
    let cleaner = Cleaner::new();
    let mut problems = 0u64;
    // Stage 2 of dedup, sentence by sentence (pipeline::dedup's `process` does the same).
    let signer = args.band_keys.then(|| args.signer.build()).transpose()?;
    let norm = Normalize::new();
    let mut scratch = FeatureScratch::new();
    sources::read_all(
        &files,
        rayon::current_num_threads(),
        |source| {
            let doc = source.into_document(&cleaner);
            let seq = args.first_seq + docs;
            anyhow::ensure!(
                seq < 1 << 31,
                "more than 2^31 documents from --first-seq: ids would not fit a signed 64-bit integer"
            );
            docs += 1;
            for (idx, s) in sentences(&doc.text).enumerate() {
                total += 1;
                let shingles = char_shingle_count(s.as_str(), len);
                // `filter.keeps` without counting twice: the count is also written out.
                if shingles < filter.min_shingles || shingles > filter.max_shingles {
                    continue;
                }
                kept += 1;
                let band_keys = signer.as_ref().map(|signer| {
                    sentence_band_keys(s.as_str(), len, &norm, signer, &mut scratch)
                        .map_or_else(Vec::new, |keys| {
                            keys.iter().map(|k| format!("{k:016x}")).collect()
                        })
                });
                let rec = OutSentence {
                    id: seq << 32 | idx as u64,
                    doc: doc.id,
                    title: &doc.title,
                    idx,
                    start: s.span.start,
                    end: s.span.end,
                    shingles,
                    text: s.as_str(),
                    band_keys,
                };
                serde_json::to_writer(&mut out, &rec)?;
                out.write_all(b"\n")?;
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
    out.flush()?;
    if let Some(path) = &args.stats {
        let counts = serde_json::json!({
            "documents": docs,
            "sentences": total,
            "kept": kept,
            "input_problems": problems,
        });
        std::fs::write(path, format!("{counts:#}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    global.log(format_args!(
        "{docs} documents, {total} sentences, {kept} kept ({}), {problems} input problems",
        args.filter.describe()
    ));
    Ok(())
}
