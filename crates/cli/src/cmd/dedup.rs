//! `textreuse dedup`: clusters of near-duplicate sentences, paragraphs or documents (the main
//! job). The engine is `textreuse_dedup::Dedup`; this module turns flags into its builder, draws
//! progress bars and writes the files through `textreuse_dedup::OutputDir`.
use std::path::{Path, PathBuf};

use anyhow::Context;
use std::sync::Arc;
use textreuse_corpus::files::{OutputSet, RunDir};
use textreuse_dedup::projection::{EmbeddingProjection, Vectors};
use textreuse_dedup::rewrite::{DropList, copy_path, write_deduplicated};
use textreuse_dedup::{
    DEFAULT_MAX_ARTICLE_PAIRS, DEFAULT_MAX_HAMMING, Dedup, Keep, Method, OutputDir, Tee,
};
use textreuse_embed::{Format, Trainer};
use textreuse_shingle::units::Unit;
use textreuse_shuffle::DEFAULT_MAX_BUCKET;

use std::io::Write;

use textreuse_index::{Index, IndexWriter, QueryOptions};

use crate::args::filter::FilterArgs;
use crate::args::input::InputArgs;
use crate::args::max_memory::{self, MaxMemoryArgs};
use crate::args::signer::{SignerArgs, signer_error};
use crate::args::unit::UnitArg;
use crate::args::values::{fraction, open_fraction};
use crate::args::work_mem::{Sorts, WorkMemArgs};
use crate::exit;
use crate::global::Global;
use crate::progress::Bars;

/// Arguments of `textreuse dedup`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Inputs: files, directories (walked recursively) or - for stdin: Wikipedia dumps, JSON Lines
    /// (one {"id","title","text"} object per line; see --id-field), Parquet (those columns, an
    /// uncompressed file) or plain text (one document each, id = position among the input
    /// files), each plain or compressed with gzip, zstd or bzip2; recognized by content.
    /// Default: the bundled sample dumps.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output directory for clusters.jsonl, duplicates.jsonl, contradictions.jsonl, stats.json and
    /// article-pairs.tsv.
    #[arg(long, default_value = "textreuse-out", value_name = "DIR")]
    out: PathBuf,
    /// What is compared: sentences (the research's default, for dumps), paragraphs (non-blank
    /// lines) or whole documents (corpus cleaning).
    #[arg(long, default_value_t = UnitArg::Sentence, value_parser = UnitArg::parser(UnitArg::DEDUP))]
    unit: UnitArg,
    /// The Jaccard similarity that makes a duplicate: picks K and M with the tuner for the
    /// --scheme and --hashes budget (explicit -k/-m win) and, with --verify, drops pairs below
    /// it. Recorded in stats.json.
    #[arg(long, value_name = "T", value_parser = open_fraction)]
    threshold: Option<f64>,
    /// Which member of a cluster is kept (the others are listed in duplicates.jsonl): the first
    /// seen in input order, the earliest revision timestamp, or the longest text.
    #[arg(long, value_enum, default_value_t = KeepArg::First)]
    keep: KeepArg,
    /// With --unit document: also write a copy of every input under DIR without the duplicate
    /// records, in the input's format and compression (JSON Lines, plain text, Parquet);
    /// DIR/<input path> for each input (root and .. left out).
    #[arg(long, value_name = "DIR")]
    write_deduplicated: Option<PathBuf>,
    /// Compute each member's exact Jaccard similarity to the kept one, and leave members below
    /// the threshold (--threshold, else (1/M)^(1/K)) out of duplicates.jsonl.
    #[arg(long)]
    verify: bool,
    /// Also find the inputs' duplicates among everything indexed in DIR (`textreuse index`, of
    /// the same --unit): OUT/against.jsonl lists each unit with matches there, as `index query`
    /// prints them (with --verify, matches below the threshold are left out); with
    /// --write-deduplicated their documents are left out too. Needs input files.
    #[arg(long, value_name = "DIR")]
    against: Option<PathBuf>,
    /// Also write OUT/report.html (as `textreuse report OUT` does): counts, plots, sampled
    /// clusters with their differences marked, top article pairs.
    #[arg(long)]
    report: bool,
    #[command(flatten, next_help_heading = "Report (with --report)")]
    report_options: crate::cmd::report::Options,
    /// With --against: then add the inputs to that index (not matched against themselves).
    #[arg(long, requires = "against")]
    add: bool,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    filter: FilterArgs,
    #[command(flatten)]
    signer: SignerArgs,
    #[command(flatten)]
    work_mem: WorkMemArgs<Sorts>,
    #[command(flatten)]
    max_memory: MaxMemoryArgs<max_memory::Dedup>,
    /// Test hook: every structure that can spill does so from its first entry, whatever the
    /// bound (slow; the outputs must not change).
    #[arg(long, hide = true)]
    spill_everything: bool,
    /// With --max-edit (which checks every pair that shares a band): a bucket larger than this
    /// checks only the pairs of its first N members (by id); the others are counted in
    /// stats.json and named in a warning. Without --max-edit buckets are never capped.
    #[arg(long, default_value_t = DEFAULT_MAX_BUCKET, value_name = "N")]
    max_bucket: usize,
    /// Keep only pairs whose normalized edit distance is at most this (e.g. 0.25), re-clustering.
    #[arg(long, value_name = "D", value_parser = fraction)]
    max_edit: Option<f64>,
    /// How candidates are found: MinHash band keys, SimHash fingerprints within --max-hamming
    /// bits (exact permuted-table search), or rp-embed: Meng and Zheng's random projection of
    /// mean word vectors (--vectors, or trained on the inputs) onto --projection-bits
    /// hyperplanes, pairs within --max-hamming bits found by the sliding window over
    /// --permutations bit orders (docs/embeddings.md).
    #[arg(long, value_enum, default_value_t = MethodArg::Minhash)]
    method: MethodArg,
    /// With --method simhash: the largest Hamming distance (of 64 bits) of a candidate pair
    /// (default 3); with --method rp-embed: of --projection-bits bits (default 5).
    #[arg(long, value_name = "K")]
    max_hamming: Option<u32>,
    #[command(flatten)]
    projection: ProjectionArgs,
    /// Rows of article-pairs.tsv: the top article pairs by shared clusters.
    #[arg(long, default_value_t = DEFAULT_MAX_ARTICLE_PAIRS, value_name = "N")]
    max_article_pairs: usize,
    /// Directory for spill files (default: the system temporary directory).
    #[arg(long, value_name = "DIR")]
    tmp: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum KeepArg {
    First,
    Earliest,
    Longest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum MethodArg {
    Minhash,
    Simhash,
    #[value(name = "rp-embed")]
    RpEmbed,
}

/// The options of `--method rp-embed` (defaults from textreuse-simhash and textreuse-embed).
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Random projection over word vectors (with --method rp-embed)")]
struct ProjectionArgs {
    /// Word vectors to average (word2vec text or binary, GloVe, fastText .vec). Default: train
    /// skip-gram vectors on the inputs' kept units first (--dim, --epochs).
    #[arg(long, value_name = "FILE")]
    vectors: Option<PathBuf>,
    /// The format of --vectors; auto tells word2vec text (and fastText .vec), word2vec binary
    /// and GloVe apart by the first bytes.
    #[arg(long, value_enum, default_value_t = VectorsFormat::Auto)]
    vectors_format: VectorsFormat,
    /// Do not stem words (for --vectors trained on unstemmed words, as published word2vec,
    /// GloVe and fastText files are).
    #[arg(long)]
    no_stem: bool,
    /// Average word vectors as they are, without subtracting the inputs' mean word vector
    /// first (the paper's plain mean; most units then share one direction).
    #[arg(long)]
    no_center: bool,
    /// Signature width D: random hyperplanes per unit vector (the paper: 60 and 100).
    #[arg(long, default_value_t = textreuse_simhash::DEFAULT_DENSE_BITS, value_name = "D")]
    projection_bits: u32,
    /// Random bit permutations Q of the window search.
    #[arg(long, default_value_t = textreuse_simhash::DEFAULT_PERMUTATIONS, value_name = "Q")]
    permutations: u32,
    /// Each signature is compared with the next B in every permuted order.
    #[arg(long, default_value_t = textreuse_simhash::DEFAULT_WINDOW, value_name = "B")]
    window: u32,
    /// Without --vectors: the dimension of the trained vectors.
    #[arg(long, default_value_t = textreuse_embed::defaults::DIM, value_name = "N")]
    dim: usize,
    /// Without --vectors: training passes over the inputs.
    #[arg(long, default_value_t = textreuse_embed::defaults::EPOCHS, value_name = "N")]
    epochs: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum VectorsFormat {
    Auto,
    Word2vec,
    #[value(name = "word2vec-binary")]
    Word2vecBinary,
    Glove,
    Fasttext,
}

impl ProjectionArgs {
    /// The projection these flags describe, with the vectors of --vectors read; `seed` (the
    /// run's --seed) seeds the training, the hyperplanes and the permutations.
    fn projection(
        &self,
        max_hamming: Option<u32>,
        seed: u64,
    ) -> anyhow::Result<EmbeddingProjection> {
        let vectors = match &self.vectors {
            Some(path) => Vectors::Given(Arc::new(self.read_vectors(path)?)),
            None => Vectors::Train(
                Trainer::builder()
                    .dim(self.dim)
                    .epochs(self.epochs)
                    .seed(seed)
                    .build()
                    .map_err(|e| match e {
                        textreuse_embed::EmbedError::InvalidParameter { name, .. } => {
                            anyhow::Error::new(e).context(format!("invalid --{name}"))
                        }
                        e => e.into(),
                    })?,
            ),
        };
        let mut builder = EmbeddingProjection::builder();
        builder
            .vectors(vectors)
            .stem(!self.no_stem)
            .center(!self.no_center)
            .bits(self.projection_bits)
            .permutations(self.permutations)
            .window(self.window)
            .seed(seed);
        if let Some(t) = max_hamming {
            builder.max_hamming(t);
        }
        builder.build().map_err(|e| {
            let flag = match &e {
                textreuse_dedup::Error::InvalidOption { option: "bits", .. } => "--projection-bits",
                _ => "--max-hamming, --permutations or --window",
            };
            anyhow::Error::new(e).context(format!("invalid {flag}"))
        })
    }

    fn read_vectors(&self, path: &Path) -> anyhow::Result<textreuse_embed::Embeddings> {
        use std::io::BufRead;
        let file = std::fs::File::open(path)
            .with_context(|| format!("cannot open --vectors {}", path.display()))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
        let format = match self.vectors_format {
            VectorsFormat::Auto => Format::detect(reader.fill_buf()?),
            VectorsFormat::Word2vec => Format::Word2VecText,
            VectorsFormat::Word2vecBinary => Format::Word2VecBinary,
            VectorsFormat::Glove => Format::Glove,
            VectorsFormat::Fasttext => Format::FastText,
        };
        textreuse_embed::read(reader, format)
            .with_context(|| format!("cannot read --vectors {} as {format}", path.display()))
    }
}

/// Runs `textreuse dedup`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let unit = args
        .unit
        .dedup_unit()
        .expect("dedup --unit takes no chunks");
    let filter = args.filter.filter_for(unit)?;
    let mut builder = Dedup::builder();
    // The planner picks the scheme (unless --scheme), K and M for a --threshold without -k/-m
    // (here rather than in the builder, so that an error names the flags).
    let signer = args
        .signer
        .options()
        .signer(unit, args.threshold, filter.min_shingles)
        .map_err(signer_error)?;
    builder.signer(signer);
    if let Some(t) = args.threshold {
        builder.threshold(t);
    }
    builder
        .unit(unit)
        .keep(match args.keep {
            KeepArg::First => Keep::First,
            KeepArg::Earliest => Keep::Earliest,
            KeepArg::Longest => Keep::Longest,
        })
        .verify(args.verify)
        .shingle(filter.shingle)
        .min_shingles(filter.min_shingles)
        .max_shingles(filter.max_shingles)
        .max_bucket(args.max_bucket)
        .max_article_pairs(args.max_article_pairs)
        .method(match args.method {
            MethodArg::Minhash => Method::MinHash,
            MethodArg::Simhash => Method::SimHash {
                max_hamming: args.max_hamming.unwrap_or(DEFAULT_MAX_HAMMING),
            },
            MethodArg::RpEmbed => Method::RandomProjection,
        });
    // With a bound, the sorts get their share of it unless --work-mem says otherwise.
    match args.max_memory.bytes()? {
        Some(bytes) => {
            builder.max_memory(bytes);
            if let Some(bytes) = args.work_mem.given(global)? {
                builder.mem_budget(bytes);
            }
        }
        None => {
            builder.mem_budget(args.work_mem.bytes(global)?);
        }
    }
    if args.method == MethodArg::RpEmbed {
        builder.projection(
            args.projection
                .projection(args.max_hamming, args.signer.seed)?,
        );
    }
    if let Some(d) = args.max_edit {
        builder.max_edit(d);
    }
    builder.spill_everything(args.spill_everything);
    // The spill files and the sentence text file go into a directory of this run, removed on
    // every exit path (signals included).
    let tmp = RunDir::new_in(args.tmp.as_deref())?;
    builder.tmp_dir(tmp.path());
    // --max-hamming is checked even when --method minhash leaves it unused (rp-embed checks it
    // against --projection-bits above).
    if args.method != MethodArg::RpEmbed {
        textreuse_simhash::TableSearch::new(args.max_hamming.unwrap_or(DEFAULT_MAX_HAMMING))
            .context("invalid --max-hamming")?;
    }
    // The builder checks every option (and names it) before anything is read.
    let dedup = builder.build().map_err(|e| {
        use textreuse_shuffle::ShuffleError;
        let flag = match &e {
            textreuse_dedup::Error::InvalidOption {
                option: "mem_budget",
                ..
            } => "--work-mem".into(),
            textreuse_dedup::Error::MemoryTooSmall { .. } => "--max-memory".into(),
            textreuse_dedup::Error::InvalidOption { option, .. } => {
                format!("--{}", option.replace('_', "-"))
            }
            textreuse_dedup::Error::Shuffle(ShuffleError::BudgetTooSmall { .. }) => {
                "--work-mem".into()
            }
            textreuse_dedup::Error::Shuffle(ShuffleError::InvalidMaxBucket { .. }) => {
                "--max-bucket".into()
            }
            textreuse_dedup::Error::SimHash(_) => "--max-hamming".into(),
            _ => return anyhow::Error::new(e),
        };
        anyhow::Error::new(e).context(format!("invalid {flag}"))
    })?;
    if args.write_deduplicated.is_some() {
        anyhow::ensure!(
            unit == Unit::Document,
            "--write-deduplicated needs --unit document (sentence and paragraph duplicates are \
             listed in duplicates.jsonl)"
        );
        anyhow::ensure!(
            !args.files.is_empty() && args.files.iter().all(|f| f.as_os_str() != "-"),
            "--write-deduplicated needs input files: standard input cannot be read twice"
        );
    }
    if let Some(copy) = &args.write_deduplicated {
        // --out is replaced as a whole at the end of the run: a copy written inside it would be
        // deleted by that replacement.
        let (copy_at, out_at) = (lexical(copy)?, lexical(&args.out)?);
        anyhow::ensure!(
            !copy_at.starts_with(&out_at),
            "--write-deduplicated {} is inside --out {}: the --out directory is replaced when \
             the run ends, which would delete the deduplicated copy; write it outside --out",
            copy.display(),
            args.out.display()
        );
    }
    // The index is opened (and locked, with --add) before the long run, so that a wrong
    // directory or unit fails at once.
    let against = match &args.against {
        Some(dir) => {
            anyhow::ensure!(
                !args.files.is_empty() && args.files.iter().all(|f| f.as_os_str() != "-"),
                "--against needs input files: standard input cannot be read twice"
            );
            let mut index = Index::open(dir)?;
            anyhow::ensure!(
                index.params().unit.dedup_unit() == Some(unit),
                "{}: an index of {}s, and this run compares {}s (use --unit {})",
                dir.display(),
                index.params().unit.as_str(),
                unit.as_str(),
                index.params().unit.as_str()
            );
            let mut writer = if args.add {
                Some(IndexWriter::open(dir)?)
            } else {
                None
            };
            // The matching runs after the run, within the same bound: the reader takes it
            // whole, or half of it each with a writer beside it (each counts the program's
            // fixed cost: the halves hold together).
            if let Some(bytes) = args.max_memory.bytes()? {
                let share = if writer.is_some() { bytes / 2 } else { bytes };
                let halved = if writer.is_some() {
                    " (halved between the index's reader and writer with --add)"
                } else {
                    ""
                };
                let refused = |e| {
                    crate::cmd::index::memory_error(e).context(format!(
                        "--against {} under --max-memory {bytes}{halved}",
                        dir.display()
                    ))
                };
                if let Some(w) = &mut writer {
                    w.max_memory(share).map_err(refused)?;
                }
                index.max_memory(share).map_err(refused)?;
            }
            Some((index, writer))
        }
        None => None,
    };
    // The output directory is checked (and its replacement started) before the long run; the
    // files are written into `out.dir()` and appear in --out together at the end.
    let out = OutputSet::create(
        &args.out,
        &[OutputDir::FILES, OutputDir::FRONT_END_FILES].concat(),
    )?;
    let files = global.inputs_or_samples(&args.files);
    // The deduplicated copy is a set of its own (the inputs' paths under DIR).
    let copy = match &args.write_deduplicated {
        Some(dir) => {
            let tops: Vec<String> = files
                .iter()
                .filter_map(|f| {
                    let path = copy_path(Path::new(""), f);
                    let top = path.components().next()?;
                    Some(top.as_os_str().to_string_lossy().into_owned())
                })
                .collect();
            let tops: Vec<&str> = tops.iter().map(String::as_str).collect();
            Some(OutputSet::create(dir, &tops)?)
        }
        None => None,
    };
    let inputs = args.input.inputs(&files, rayon::current_num_threads())?;
    let bars = Bars::new(global);
    // The duplicates are collected (a copy of every cluster) only for a deduplicated copy.
    let (stats, mut drop) = match &args.write_deduplicated {
        Some(_) => {
            let mut sink = Tee(
                OutputDir::new(out.dir()).batch_members(dedup.memory().chunk_members),
                DropList::with_budget(dedup.memory().drop_list, dedup.tmp_dir()),
            );
            (dedup.run(inputs, &mut sink, &bars)?, Some(sink.1))
        }
        None => (
            dedup.run(
                inputs,
                &mut OutputDir::new(out.dir()).batch_members(dedup.memory().chunk_members),
                &bars,
            )?,
            None,
        ),
    };
    let mut problems = stats.input_problems;
    if let Some((index, writer)) = against {
        let threshold = args
            .threshold
            .unwrap_or_else(|| index.signer().threshold_estimate());
        let options = QueryOptions::new()
            .verify(args.verify)
            .min_jaccard(if args.verify { threshold } else { 0.0 });
        let path = out.dir().join("against.jsonl");
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?,
        );
        let mut writer = writer;
        let inputs = args.input.inputs(&files, rayon::current_num_threads())?;
        let found = index.query_all(
            inputs,
            &options,
            &Bars::labelled(global, "matching against the index"),
            writer.as_mut(),
            |doc, units| -> anyhow::Result<()> {
                if let Some(drop) = &mut drop
                    && units.iter().any(|u| !u.matches.is_empty())
                {
                    drop.add_record(&doc.origin)?;
                }
                crate::cmd::index::write_units(&mut out, doc, unit.as_str(), units, false, false)
            },
        )?;
        out.flush()?;
        // The second reading reports the same problems as the first: count them once.
        problems = problems.max(found.input_problems);
        global.log(format_args!(
            "against {}: {} {}s of {} documents have near-duplicates there (listed in {}){}",
            index.path().display(),
            found.units_matched,
            unit.as_str(),
            found.documents_matched,
            args.out.join("against.jsonl").display(),
            if args.add {
                "; the inputs were added to it"
            } else {
                ""
            }
        ));
    }
    if let (Some(dir), Some(copy), Some(drop)) = (&args.write_deduplicated, copy, drop) {
        if drop.runs() > 0 {
            global.log(format_args!(
                "the duplicates to leave out went to {} sorted runs on disk (--max-memory)",
                drop.runs()
            ));
        }
        let drop = drop.finish()?;
        let done = write_deduplicated(&files, &args.input.include()?, &drop, copy.dir())?;
        copy.commit()?;
        for p in &done.problems {
            global.log(format_args!(
                "skipped: {:#}",
                anyhow::Error::msg(p.to_string())
            ));
        }
        problems += done.problems.len() as u64;
        global.log(format_args!(
            "{} files written to {} ({} records kept, {} duplicates left out)",
            done.files,
            dir.display(),
            done.records_kept,
            done.records_dropped
        ));
    }
    out.commit()?;
    // The report names the directory it was made from: made in place, after the commit (the
    // old report went with the old results).
    if args.report {
        args.report_options.write(&args.out, global)?;
    }
    global.log(format_args!(
        "{} clusters of {} {}s from {} documents ({} duplicates, {}) written to {}",
        stats.clusters,
        stats.clustered_sentences,
        stats.unit,
        stats.distinct_articles,
        stats.duplicates,
        match &stats.projection {
            Some(p) => format!(
                "{}, D = {}, Q = {}, B = {}, T = {}",
                stats.method, p.bits, p.permutations, p.window, p.max_hamming
            ),
            None if stats.method == "minhash" => format!("K = {}, M = {}", stats.rows, stats.bands),
            None => stats.method.clone(),
        },
        args.out.display()
    ));
    exit::skipped(problems)
}

/// `path` made absolute with `.` and `..` folded away (lexically: symbolic links are not
/// followed), to compare two output locations before either exists.
fn lexical(path: &Path) -> anyhow::Result<PathBuf> {
    use std::path::Component;
    let absolute = std::path::absolute(path)?;
    let mut out = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Ok(out)
}
