//! `textreuse check`: a plagiarism checker, [`textreuse_reuse::Checker`] (a corpus's paragraph
//! chunks indexed with MinHash band keys, candidate sources retrieved for each suspicious
//! document, aligned, and the reused passages classified as content or structure reuse). This
//! file holds its arguments, progress and output formats.
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use textreuse_align::Aligner;
use textreuse_corpus::Document;
use textreuse_corpus::Inputs;
use textreuse_corpus::files::RunDir;
use textreuse_index::{
    Index, IndexUnit, IndexWriter, MemoryIndex, MemoryIndexError, MemoryPlan, Params,
};
use textreuse_report::{CheckDocument, CheckPassage, CheckReport};
use textreuse_reuse::check::{
    Check, CheckCorpus, CheckError, Checker, candidate_records, excerpt_chars, read_corpus,
};

use crate::args::align::{AlignerArgs, LangArgs};
use crate::args::max_memory::{self, MaxMemoryArgs};
use crate::args::signer::signer_error;
use crate::args::values::at_least_one;
use crate::exit::{self, skipped};
use crate::global::Global;

/// Find passages of suspicious documents reused from a corpus (candidate retrieval + alignment).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The suspicious document(s), plain text. Several are checked against one index.
    #[arg(value_name = "SUSPICIOUS", required = true, num_args = 1..)]
    pub suspicious: Vec<PathBuf>,
    /// The corpus: a directory (its `*.txt` files, not its subdirectories, in sorted order) or
    /// one input of any format `dedup` reads (JSON Lines, text, a Wikipedia dump, WARC,
    /// Parquet; compressed or not).
    #[arg(
        long,
        value_name = "PATH",
        required_unless_present = "index",
        conflicts_with = "index"
    )]
    pub corpus: Option<PathBuf>,
    /// A prebuilt index of the corpus (`textreuse index create DIR --unit chunk`, then
    /// `index add`) instead of --corpus: nothing is re-read or re-indexed, and the report is the
    /// same (both skip band keys of more than 100 chunks). Its parameters replace --ngram,
    /// --rows and --bands.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Candidate source documents aligned per suspicious document.
    #[arg(long, value_name = "N", default_value_t = textreuse_reuse::check::DEFAULT_CHECK_SOURCES, value_parser = at_least_one)]
    pub top: usize,
    /// Passages shorter than this many bytes on either side are dropped.
    #[arg(long, value_name = "N", default_value_t = textreuse_align::DEFAULT_MIN_PASSAGE_LEN)]
    pub min_length: usize,
    #[command(flatten)]
    pub aligner: AlignerArgs,
    #[command(flatten)]
    pub lang: LangArgs,
    /// Word n-gram length of the index's shingles.
    #[arg(long, value_name = "N", default_value_t = textreuse_shingle::DEFAULT_CHUNK_NGRAM)]
    pub ngram: usize,
    /// Rows (minhashes) per band key of the index.
    #[arg(long, value_name = "K", default_value_t = textreuse_minhash::DEFAULT_CHUNK_ROWS)]
    pub rows: usize,
    /// Band keys per paragraph chunk of the index.
    #[arg(long, value_name = "M", default_value_t = textreuse_minhash::DEFAULT_CHUNK_BANDS)]
    pub bands: usize,
    /// Print the retrieved candidates (JSON lines) instead of aligning them.
    #[arg(long)]
    pub candidates_only: bool,
    /// Readable text instead of JSON lines.
    #[arg(long, conflicts_with = "candidates_only")]
    pub text: bool,
    /// Characters of each passage shown in the output.
    #[arg(long, value_name = "N", default_value_t = 160)]
    pub excerpt: usize,
    /// Also write an HTML report to FILE: per suspicious document the share of its text
    /// reused, each source with score and type, and the aligned passages side by side with
    /// their shared words marked.
    #[arg(long, value_name = "FILE", conflicts_with = "candidates_only")]
    pub html: Option<PathBuf>,
    #[command(flatten)]
    pub max_memory: MaxMemoryArgs<max_memory::Check>,
}

/// Runs the subcommand.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let start = Instant::now();
    // A bound too small is refused before anything is read.
    let bound = args.max_memory.bytes()?;
    if let Some(bytes) = bound {
        MemoryPlan::bounded(bytes, None).map_err(crate::cmd::index::memory_error)?;
        // --corpus: the temporary index is compacted to one segment (when its merge fits).
        let minimum = MemoryPlan::query_minimum(args.bands, 1, rayon::current_num_threads());
        if args.corpus.is_some() && bytes < minimum {
            anyhow::bail!(
                "invalid --max-memory: a memory bound of {bytes} bytes is below the {minimum} \
                 bytes ({} MiB) that queries of the corpus's chunk index ({} bands) need on {} \
                 threads: raise it to at least {minimum} bytes",
                minimum.div_ceil(1 << 20),
                args.bands,
                rayon::current_num_threads()
            );
        }
    }
    // Under a bound, --corpus goes through a temporary chunk index on disk; it lives as long
    // as the run.
    let mut run_dir = None;
    let aligner = args
        .lang
        .apply(
            args.aligner
                .apply(Aligner::builder().min_passage_len(args.min_length)),
        )
        .build()?;
    let mut chunks = MemoryIndex::builder();
    chunks
        .chunks(textreuse_shingle::ChunkConfig {
            ngram: args.ngram,
            ..Default::default()
        })
        .signer(textreuse_minhash::SignerConfig {
            rows: args.rows,
            bands: args.bands,
            ..textreuse_minhash::SignerConfig::chunks()
        });
    let checker = Checker::builder()
        .index(chunks)
        .aligner(aligner)
        .top(args.top)
        .build()
        .map_err(|e| match e {
            CheckError::Chunks(MemoryIndexError::Signer(e)) => signer_error(e),
            CheckError::Chunks(e @ MemoryIndexError::ZeroNgram) => {
                anyhow::Error::new(e).context("invalid --ngram")
            }
            e => anyhow::Error::new(e),
        })?;
    let (corpus, mut problems) = match (&args.corpus, &args.index) {
        (_, Some(dir)) => {
            let mut index = Index::open(dir)?;
            if let Some(bytes) = bound {
                index
                    .max_memory(bytes)
                    .map_err(crate::cmd::index::memory_error)?;
            }
            let corpus = CheckCorpus::from_index(index)
                .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
            global.log(format_args!(
                "opened the index {}: {} documents, {} chunks",
                dir.display(),
                corpus.documents(),
                corpus.chunks()
            ));
            (corpus, 0)
        }
        (Some(path), None) if bound.is_some() => {
            let bytes = bound.expect("a bound");
            let run = run_dir.insert(RunDir::new_in(None)?);
            let (index, problems) = corpus_index(args, path, run.path(), bytes, global)?;
            let corpus = CheckCorpus::from_index(index)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            global.log(format_args!(
                "indexed {} documents, {} chunks, on disk under --max-memory, in {:.2} s",
                corpus.documents(),
                corpus.chunks(),
                start.elapsed().as_secs_f64()
            ));
            (corpus, problems)
        }
        (Some(path), None) => {
            let mut problems = 0;
            let docs: Vec<Document> = read_corpus(path, global.threads.unwrap_or(1), |e| {
                // Reported and skipped, like every subcommand's inputs.
                problems += 1;
                global.log(format_args!("skipped: {:#}", anyhow::Error::new(e)));
            })?;
            let corpus = checker.index(docs);
            global.log(format_args!(
                "indexed {} documents, {} chunks, in {:.2} s",
                corpus.documents(),
                corpus.chunks(),
                start.elapsed().as_secs_f64()
            ));
            (corpus, problems)
        }
        (None, None) => unreachable!("clap requires --corpus or --index"),
    };
    let mut out = exit::stdout();
    let start = Instant::now();
    let corpus_name = match (&args.corpus, &args.index) {
        (Some(path), _) | (None, Some(path)) => path.display().to_string(),
        (None, None) => String::new(),
    };
    let mut html = args.html.as_ref().map(|_| CheckReport::new(&corpus_name));
    let mut checked = 0usize;
    for path in &args.suspicious {
        // A suspicious file that cannot be read (missing, a directory, not UTF-8 text) is
        // reported and skipped like every subcommand's bad inputs; the others are checked and
        // the run ends with status 3.
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => {
                problems += 1;
                let why = if e.kind() == std::io::ErrorKind::InvalidData {
                    "not UTF-8 text (check reads plain text files)".to_string()
                } else {
                    e.to_string()
                };
                global.log(format_args!("skipped: {}: {why}", path.display()));
                continue;
            }
        };
        checked += 1;
        let name = path.display().to_string();
        let sources = checker.candidates(&corpus, &text)?;
        if args.candidates_only {
            for value in candidate_records(&name, &sources) {
                writeln!(out, "{value}")?;
            }
            continue;
        }
        let check = checker.align(sources, &text);
        if args.text {
            write_text(&mut out, &name, &text, &check, args.excerpt)?;
        } else {
            for value in check.records(&name, &text, args.excerpt) {
                writeln!(out, "{value}")?;
            }
        }
        if let Some(report) = &mut html {
            report.push(report_document(&name, &text, &check));
        }
    }
    out.flush()?;
    if let (Some(report), Some(path)) = (&html, &args.html) {
        let bytes = report.write(path)?;
        global.log(format_args!(
            "report written to {} ({} KiB)",
            path.display(),
            bytes.div_ceil(1024)
        ));
    }
    let n = checked;
    let secs = start.elapsed().as_secs_f64();
    global.log(format_args!(
        "checked {n} documents in {secs:.2} s ({:.1} ms per document)",
        1000.0 * secs / n.max(1) as f64
    ));
    skipped(problems)
}

/// A checked document as the HTML report shows it (character offsets, whole passages).
/// The corpus at `path` added to a chunk index in `tmp` with the checker's chunk parameters,
/// under a memory bound of `bytes` (the index answers as the in-memory one built by
/// [`Checker::index`] does), opened for querying under the same bound; and the number of input
/// problems reported and skipped.
fn corpus_index(
    args: &Args,
    path: &std::path::Path,
    tmp: &std::path::Path,
    bytes: u64,
    global: &Global,
) -> anyhow::Result<(Index, u64)> {
    use crate::cmd::index::memory_error;
    let mut p = Params::new(IndexUnit::Chunk);
    p.shingle = args.ngram;
    p.rows = args.rows;
    p.bands = args.bands;
    p.hashes = args.rows.saturating_mul(args.bands);
    let dir = tmp.join("corpus-index");
    let mut w = IndexWriter::create(&dir, p)?;
    w.max_memory(bytes).map_err(memory_error)?;
    // The files `read_corpus` reads: a directory's `.txt` files in name order, or the file.
    let paths = if path.is_dir() {
        let mut files = Vec::new();
        for entry in fs::read_dir(path).with_context(|| path.display().to_string())? {
            let p = entry.with_context(|| path.display().to_string())?.path();
            if p.extension().is_some_and(|e| e == "txt") && p.is_file() {
                files.push(p);
            }
        }
        files.sort();
        anyhow::ensure!(!files.is_empty(), "{}: no .txt files", path.display());
        files
    } else {
        vec![path.to_path_buf()]
    };
    let bars = crate::progress::Bars::labelled(global, "indexing the corpus");
    let inputs = Inputs::new(&paths).threads(global.threads.unwrap_or(1));
    let stats = w.add_all(inputs, &bars)?;
    // One segment if its merge fits in the bound: queries then read one, not many.
    match w.compact() {
        Ok(()) | Err(textreuse_index::Error::MergeTooLarge { .. }) => {}
        Err(e) => return Err(e.into()),
    }
    drop(w);
    let mut index = Index::open(&dir)?;
    index.max_memory(bytes).map_err(memory_error)?;
    Ok((index, stats.input_problems))
}

fn report_document(name: &str, text: &str, check: &Check) -> CheckDocument {
    let passages = check
        .cases
        .iter()
        .map(|c| {
            let source = check.source(c);
            let (s, t) = c.passage.char_ranges(&source.text, text);
            CheckPassage {
                source_id: source.id.to_string(),
                source_title: source.title.clone(),
                kind: c.profile.kind.as_str().to_string(),
                score: c.passage.score,
                suspicious: t,
                source: s,
                suspicious_text: text[c.passage.suspicious.clone()].to_string(),
                source_text: source.text[c.passage.source.clone()].to_string(),
            }
        })
        .collect();
    CheckDocument {
        name: name.to_string(),
        chars: text.chars().count(),
        passages,
    }
}

fn write_text(
    out: &mut impl Write,
    name: &str,
    text: &str,
    check: &Check,
    n: usize,
) -> anyhow::Result<()> {
    writeln!(out, "{name}: {} reused passage(s)", check.cases.len())?;
    for (rank, c) in check.cases.iter().enumerate() {
        let source = check.source(c);
        let (s, t) = c.passage.char_ranges(&source.text, text);
        let p = &c.profile;
        writeln!(
            out,
            "{:>3}. {} reuse from \"{}\" (id {}): chars {}..{} of the suspicious text, {}..{} of \
             the source; score {:.2}; n-gram Jaccard 2/5/10/15 = {:.2}/{:.2}/{:.2}/{:.2}; \
             entities {:.2}; shares {:.0}% / {:.0}%",
            rank + 1,
            p.kind.as_str(),
            source.title,
            source.id,
            t.start,
            t.end,
            s.start,
            s.end,
            c.passage.score,
            p.ngram_jaccard[0],
            p.ngram_jaccard[1],
            p.ngram_jaccard[2],
            p.ngram_jaccard[3],
            p.entity_jaccard,
            100.0 * p.suspicious_share,
            100.0 * p.source_share,
        )?;
        writeln!(
            out,
            "     suspicious: {}",
            excerpt_chars(&text[c.passage.suspicious.clone()], n).replace('\n', " ")
        )?;
        writeln!(
            out,
            "     source:     {}",
            excerpt_chars(&source.text[c.passage.source.clone()], n).replace('\n', " ")
        )?;
    }
    Ok(())
}
