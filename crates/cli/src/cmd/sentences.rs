//! `textreuse sentences FILE...`: split documents into sentences and write one JSON object per
//! sentence, `{"id","doc","doc_is_string","source","record","revision","timestamp","title","idx",
//! "start","end","shingles","text"}` (`doc_is_string`, `source`, `record`, `revision` and
//! `timestamp` only when they have a value).
//!
//! Wikipedia dumps (`.xml`, `.xml.bz2`) are read like `textreuse dedup` reads them: each article's
//! prose paragraphs (list items left out) joined by blank lines, `doc` = page id. With no FILE, the
//! bundled sample dumps are read.
//!
//! `idx` counts every sentence of the document (kept or not), so `(doc, idx)` is a stable
//! sentence id whatever the filter. `id` is the id `textreuse dedup` gives the same sentence when
//! it reads the same inputs in the same order: `seq << 32 | idx`, where `seq` is the document's
//! position in the input (from 0), so two versions of one page (same `doc`) get different ids.
//!
//! The other fields are those of a member in `textreuse dedup`'s `clusters.jsonl`, with the same
//! values, so the Spark backend of the Python package, which reads this output, writes the same
//! clusters: `doc` is the document id as the input wrote it (a JSON number or string), and
//! `"doc_is_string": true` marks a string id (Spark's JSON reader, reading `doc` as a string
//! column, cannot tell `"12"` from `12`); `source` is the input as given, `record` the 1-based
//! line of a JSON Lines file, `revision` and `timestamp` those of a dump page; `start`/`end` are
//! character offsets (Unicode scalar values, so Python's `text[start:end]` is the sentence) into
//! the document text. `shingles` is the number of `--shingle`-character shingles of the sentence
//! as it stands in the text (no normalization). Sentences are kept when `--min-shingles <=
//! shingles <= --max-shingles`; `--max-shingles 0` removes the upper bound.
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
use textreuse_corpus::Progress;
use textreuse_dedup::pipeline::DocumentPipeline;
use textreuse_dedup::records::SentenceRecord;
use textreuse_minhash::TextSigner;
use textreuse_shingle::units::KeptSentences;

use crate::args::filter::FilterArgs;
use crate::args::input::{InputArgs, bundled_samples};
use crate::args::signer::SignerArgs;
use crate::exit;
use crate::global::Global;

/// Arguments of `textreuse sentences`.
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

/// Logs input problems (reading goes on) through `--quiet`-aware logging.
struct Log<'a>(&'a Global);

impl Progress for Log<'_> {
    fn log(&self, line: &str) {
        self.0.log(line);
    }
}

/// Runs `textreuse sentences`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let filter = args.filter.filter()?;
    let mut out = exit::stdout();
    let (mut total, mut kept) = (0u64, 0u64);
    let files = if args.files.is_empty() {
        bundled_samples()
    } else {
        args.files.clone()
    };
    // Stages 1-2 of dedup, document by document on the shared pipeline: each document's lines
    // are formatted in parallel and written in input order.
    let signer = args
        .band_keys
        .then(|| args.signer.build(textreuse_shingle::units::Unit::Sentence))
        .transpose()?;
    let counts = DocumentPipeline::new().run(
        args.input.inputs(&files, rayon::current_num_threads())?,
        &Log(global),
        || signer.as_ref().map(|s| TextSigner::new(s).shingle_chars(filter.shingle)),
        |text_signer, seq, doc| -> anyhow::Result<(u64, u64, Vec<u8>)> {
            let seq = args.first_seq + seq;
            let (mut lines, mut kept_here) = (Vec::new(), 0u64);
            let mut sentences = KeptSentences::new(&doc.text, seq, &filter);
            for s in sentences.by_ref() {
                let band_keys = text_signer.as_mut().map(|ts| {
                    ts.band_keys(s.text).map_or_else(Vec::new, |keys| {
                        keys.iter().map(|k| format!("{k:016x}")).collect()
                    })
                });
                let rec = SentenceRecord {
                    band_keys,
                    ..SentenceRecord::of_sentence(&doc, &s, s.id)
                };
                serde_json::to_writer(&mut lines, &rec)?;
                lines.push(b'\n');
                kept_here += 1;
            }
            Ok((sentences.sentences_seen(), kept_here, lines))
        },
        |seq, result| {
            let (seen, kept_here, lines) =
                result.map_err(|e| textreuse_dedup::Error::Sink(e.into()))?;
            if args.first_seq + seq >= 1 << 31 {
                return Err(textreuse_dedup::Error::Sink(
                    "more than 2^31 documents from --first-seq: ids would not fit a signed 64-bit integer".into(),
                ));
            }
            total += seen;
            kept += kept_here;
            out.write_all(&lines)
                .map_err(|e| textreuse_dedup::Error::Sink(e.into()))
        },
    )?;
    out.flush()?;
    let (docs, problems) = (counts.documents, counts.input_problems);
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
    exit::skipped(problems)
}
