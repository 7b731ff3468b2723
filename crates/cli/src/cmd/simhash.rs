//! `textreuse simhash FILE...`: the 64-bit SimHash fingerprint of every kept sentence (or
//! paragraph, or document: `--unit`), one `{"doc","source","idx","fingerprint"}` object per line,
//! or with `--pairs` every pair within `--max-hamming` bits, one
//! `{"a":{"doc","source","idx"},"b":{...},"hamming"}` per line.
//!
//! Inputs and the sentence filter are those of `textreuse sentences` (and `dedup`): dumps,
//! JSON Lines and plain text, sentences kept when their shingle count on the text as written is
//! within `--min-shingles..=--max-shingles`. The fingerprint is the one `textreuse dedup
//! --method simhash` uses ([`textreuse_dedup::features::sentence_simhash`]): the
//! sentence is normalized (lowercase, whitespace collapsed), its `--shingle`-character shingles
//! fingerprinted as a set, and SimHashed with the default seed; paragraphs and documents get the
//! weighted paragraph fingerprint ([`textreuse_dedup::features::unit_simhash`]). `idx` counts
//! every unit of the document, kept or not, as in `sentences`.
//!
//! Output order is the input order: documents as read, sentences by `idx`; pairs sorted by the
//! input position of `a`, then of `b` (`a` comes first in the input). Pairs come from the exact
//! permuted-table search (`--method table`, every pair within `K` bits) or the approximate
//! sliding-window search (`--method window`, `--permutations Q --window B`, which misses some).
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;
use std::sync::Arc;
use textreuse_dedup::features::unit_simhash;
use textreuse_dedup::pipeline::DocumentPipeline;
use textreuse_shingle::units::KeptSentences;

use textreuse_corpus::{DocId, Progress};
use textreuse_dedup::Error;
use textreuse_shingle::Shingler;
use textreuse_simhash::{
    ParagraphFingerprinter, SimHashError, SimHasher, TableSearch, WindowSearch,
};

use crate::args::filter::{FilterArgs, describe};
use crate::args::input::InputArgs;
use crate::args::unit::UnitArg;
use crate::exit;
use crate::global::Global;

/// Arguments of `textreuse simhash`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Inputs: files, directories (walked recursively) or - for stdin: Wikipedia dumps, JSON Lines
    /// (one {"id","title","text"} object per line, or the `paragraphs` form written by
    /// `textreuse extract`; see --id-field), Parquet (those columns, an uncompressed file) or
    /// plain text (one document each, id = position among the input files, title = file name),
    /// each plain or compressed with gzip, zstd or bzip2; recognized by content. Default: the
    /// bundled sample dumps.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// What is fingerprinted: sentences (their shingle set), or paragraphs (non-blank lines) or
    /// whole documents (the weighted paragraph fingerprint), as `dedup --unit U --method simhash`.
    #[arg(long, default_value_t = UnitArg::Sentence, value_parser = UnitArg::parser(UnitArg::SIMHASH))]
    pub unit: UnitArg,
    /// Write the pairs of sentences within --max-hamming bits instead of the fingerprints.
    #[arg(long)]
    pub pairs: bool,
    /// With --pairs: the largest Hamming distance (of 64 bits) of a pair.
    #[arg(long, default_value_t = textreuse_dedup::DEFAULT_MAX_HAMMING, value_name = "K")]
    pub max_hamming: u32,
    /// With --pairs: the exact permuted-table search, or the approximate sliding window.
    #[arg(long, value_enum, default_value_t = SearchMethod::Table)]
    pub method: SearchMethod,
    /// With --method window: the number Q of random bit permutations.
    #[arg(long, default_value_t = textreuse_simhash::DEFAULT_PERMUTATIONS, value_name = "Q")]
    pub permutations: u32,
    /// With --method window: each fingerprint is compared with the next B in sorted order.
    #[arg(long, default_value_t = textreuse_simhash::DEFAULT_WINDOW, value_name = "B")]
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

#[derive(Serialize)]
struct OutFingerprint<'a> {
    doc: &'a DocId,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    idx: u32,
    fingerprint: String,
}

#[derive(Serialize)]
struct OutId<'a> {
    doc: &'a DocId,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    idx: u32,
}

#[derive(Serialize)]
struct OutPair<'a> {
    a: OutId<'a>,
    b: OutId<'a>,
    hamming: u8,
}

/// One kept sentence: document input position, sentence index, fingerprint.
type Kept = (u64, u32, u64);

/// Logs input problems (reading goes on) through `--quiet`-aware logging.
struct Log<'a>(&'a Global);

impl Progress for Log<'_> {
    fn log(&self, line: &str) {
        self.0.log(line);
    }
}

/// Runs `textreuse simhash`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let unit = args
        .unit
        .dedup_unit()
        .expect("simhash --unit takes no chunks");
    let filter = args.filter.filter_for(unit)?;
    let paragraphs = ParagraphFingerprinter::new();
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
                .map_err(|e| {
                    let flag = match &e {
                        SimHashError::InvalidThreshold { .. } => "--max-hamming",
                        SimHashError::InvalidParameter { name, .. }
                        | SimHashError::AboveLimit { name, .. }
                            if *name == "permutations" =>
                        {
                            "--permutations"
                        }
                        SimHashError::InvalidParameter { name, .. }
                        | SimHashError::AboveLimit { name, .. }
                            if *name == "window" =>
                        {
                            "--window"
                        }
                        _ => "window search parameters",
                    };
                    anyhow::Error::new(e).context(format!("invalid {flag}"))
                })?,
        ),
    };
    let files = global.inputs_or_samples(&args.files);

    let hasher = SimHasher::new();
    let mut out = exit::stdout();
    let (mut total, mut kept_count) = (0u64, 0u64);
    // With --pairs every kept sentence is held (16 bytes + 8 of fingerprint) until the search.
    let mut kept: Vec<Kept> = Vec::new();
    // With --pairs: each document's id and source, by input position.
    let mut doc_names: Vec<(DocId, Option<Arc<str>>)> = Vec::new();
    let counts = DocumentPipeline::new().run(
        args.input.inputs(&files, rayon::current_num_threads())?,
        &Log(global),
        || Shingler::with_len(filter.shingle),
        |shingler, seq, doc| {
            let mut doc_kept = Vec::new();
            let mut sentences = KeptSentences::with_unit(&doc.text, seq, &filter, unit);
            for s in sentences.by_ref() {
                if let Some(fp) = unit_simhash(unit, s.text, shingler, &hasher, &paragraphs) {
                    doc_kept.push((seq, s.idx, fp));
                }
            }
            (
                sentences.sentences_seen(),
                doc_kept,
                doc.id,
                doc.origin.source,
            )
        },
        |_, (seen, doc_kept, id, source): (u64, Vec<Kept>, DocId, Option<Arc<str>>)| {
            total += seen;
            kept_count += doc_kept.len() as u64;
            if args.pairs {
                kept.extend_from_slice(&doc_kept);
                // Pairs name their documents by id and source.
                doc_names.push((id, source));
                return Ok(());
            }
            let write = |out: &mut dyn Write| -> std::io::Result<()> {
                for &(_, idx, fp) in &doc_kept {
                    let rec = OutFingerprint {
                        doc: &id,
                        source: source.as_deref(),
                        idx,
                        fingerprint: format!("{fp:016x}"),
                    };
                    serde_json::to_writer(&mut *out, &rec)?;
                    out.write_all(b"\n")?;
                }
                Ok(())
            };
            write(&mut out).map_err(|e| Error::Sink(e.into()))
        },
    )?;
    let (docs, problems) = (counts.documents, counts.input_problems);
    global.log(format_args!(
        "{docs} documents, {total} sentences, {kept_count} fingerprinted ({}){}",
        describe(&filter),
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
            let id = |k: &Kept| {
                let (doc, source) = &doc_names[k.0 as usize];
                OutId {
                    doc,
                    source: source.as_deref(),
                    idx: k.1,
                }
            };
            let rec = OutPair {
                a: id(a),
                b: id(b),
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
    exit::skipped(problems)
}
