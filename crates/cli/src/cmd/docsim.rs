//! `textreuse docsim [CORPUS...] [--query FILE...]`: similar documents by Wang, Liu and Jia's
//! paragraph fingerprints. Every document becomes the set of its paragraphs' fingerprints
//! ([`textreuse_simhash::ParagraphFingerprinter::wang`]), and every pair of corpus documents
//! (or, with `--query`, every query document and corpus document) whose sets have
//! `S(M, N) = |M ∩ N| / sqrt(|M| |N|) >= --threshold` is written, one
//! `{"a":{"doc","source","title"},"b":{...},"similarity","shared","a_fingerprints","b_fingerprints"}`
//! per line, sorted by the input position of `a`, then of `b` (`a` before `b` within one corpus;
//! `a` the query with `--query`). With `--fingerprints` each document's set is written instead,
//! one `{"doc","source","title","fingerprints":["hex",...]}` per line in input order.
//!
//! Inputs are those of every command that reads documents (dumps, JSON Lines, text, Parquet,
//! WARC, compressed or not); input problems are reported and skipped (exit status 3). The search
//! is [`textreuse_simhash::SetSearch`]: documents are indexed by fingerprint and only those that
//! share one are compared. Every document's set is held in memory (8 bytes a fingerprint plus
//! its id, source and title).
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use textreuse_corpus::{DocId, Progress};
use textreuse_dedup::Error;
use textreuse_dedup::pipeline::DocumentPipeline;
use textreuse_simhash::{
    DEFAULT_SET_THRESHOLD, Fallback, FingerprintSet, ParagraphFingerprinter, ParagraphMethod,
    ParagraphScratch, ParagraphSplit, SetPair, SetSearch, SimHashError,
};

use crate::args::input::InputArgs;
use crate::exit;
use crate::global::Global;
use crate::progress::Bars;

const WANG: ParagraphMethod = ParagraphMethod::Wang;

/// Arguments of `textreuse docsim`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus: files, directories (walked recursively) or - for stdin, in any input format
    /// (Wikipedia dumps, JSON Lines, Parquet, WARC, plain text; plain or compressed). Default:
    /// the bundled sample dumps.
    #[arg(value_name = "CORPUS")]
    pub files: Vec<PathBuf>,
    /// Query documents (same formats): each is compared with the corpus documents, instead of
    /// every pair within the corpus.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub query: Vec<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    /// The threshold r: pairs with S(M, N) >= r are written (in (0, 1]; the paper's 0.8).
    #[arg(long, default_value_t = DEFAULT_SET_THRESHOLD, value_name = "R")]
    pub threshold: f64,
    /// Paragraph fingerprints within this many bits count as equal (0: exact, as the paper).
    #[arg(long, default_value_t = 0, value_name = "H")]
    pub max_hamming: u32,
    /// k: the fewest words of a long sentence (the paper: 9, 11, 13 or 15).
    #[arg(long, default_value_t = WANG.default_min_sentence_words(), value_name = "K")]
    pub words: usize,
    /// m: the long sentences kept per paragraph (the paper: 6 or 9).
    #[arg(long, default_value_t = WANG.default_sentences_per_paragraph(), value_name = "M")]
    pub sentences: usize,
    /// b: the fingerprint width in bits (1 to 64; the paper: 32).
    #[arg(long, default_value_t = WANG.default_bits(), value_name = "B")]
    pub bits: u32,
    /// A paragraph without a long sentence: the k longest sentences of its document (the
    /// paper), its own m longest, or no fingerprint.
    #[arg(long, value_enum, default_value_t = FallbackArg::Document)]
    pub fallback: FallbackArg,
    /// Paragraphs end at blank lines, or at every line break.
    #[arg(long, value_enum, default_value_t = SplitArg::BlankLines)]
    pub paragraphs: SplitArg,
    /// Write each document's fingerprint set instead of the pairs.
    #[arg(long)]
    pub fingerprints: bool,
}

/// `--fallback`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FallbackArg {
    /// The k longest sentences of the whole document (the paper).
    Document,
    /// The paragraph's own m longest sentences.
    Paragraph,
    /// No fingerprint.
    None,
}

/// `--paragraphs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SplitArg {
    /// A paragraph is a run of non-blank lines.
    BlankLines,
    /// Every non-blank line is a paragraph.
    Lines,
}

#[derive(Serialize)]
struct OutId<'a> {
    doc: &'a DocId,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "str::is_empty")]
    title: &'a str,
}

#[derive(Serialize)]
struct OutPair<'a> {
    a: OutId<'a>,
    b: OutId<'a>,
    similarity: f64,
    shared: u32,
    a_fingerprints: usize,
    b_fingerprints: usize,
}

#[derive(Serialize)]
struct OutSet<'a> {
    #[serde(flatten)]
    id: OutId<'a>,
    fingerprints: Vec<String>,
}

/// One document read: its id, source and title, and its fingerprint set.
struct Doc {
    id: DocId,
    source: Option<Arc<str>>,
    title: String,
    set: FingerprintSet,
}

impl Doc {
    fn out_id(&self) -> OutId<'_> {
        OutId {
            doc: &self.id,
            source: self.source.as_deref(),
            title: &self.title,
        }
    }
}

/// Runs `textreuse docsim`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    // Check every parameter before reading anything.
    let fingerprinter = ParagraphFingerprinter::builder()
        .method(WANG)
        .min_sentence_words(args.words)
        .sentences_per_paragraph(args.sentences)
        .bits(args.bits)
        .fallback(match args.fallback {
            FallbackArg::Document => Fallback::Document,
            FallbackArg::Paragraph => Fallback::Paragraph,
            FallbackArg::None => Fallback::Skip,
        })
        .paragraph_split(match args.paragraphs {
            SplitArg::BlankLines => ParagraphSplit::BlankLines,
            SplitArg::Lines => ParagraphSplit::Lines,
        })
        .build()
        .map_err(|e| {
            let flag = match &e {
                SimHashError::InvalidBits { .. } => "--bits",
                SimHashError::InvalidParameter { name, .. } if *name == "min_sentence_words" => {
                    "--words"
                }
                SimHashError::InvalidParameter { .. } => "--sentences",
                _ => "paragraph fingerprint parameters",
            };
            anyhow::Error::new(e).context(format!("invalid {flag}"))
        })?;
    let search = SetSearch::builder()
        .threshold(args.threshold)
        .max_hamming(args.max_hamming)
        .build()
        .map_err(|e| {
            let flag = match &e {
                SimHashError::InvalidSimilarityThreshold { .. } => "--threshold",
                _ => "--max-hamming",
            };
            anyhow::Error::new(e).context(format!("invalid {flag}"))
        })?;
    let bars = Bars::labelled(global, "fingerprinting");
    let files = global.inputs_or_samples(&args.files);
    let (corpus, mut problems) = read(args, &files, &fingerprinter, &bars)?;
    let queries = if args.query.is_empty() {
        None
    } else {
        let (queries, query_problems) = read(args, &args.query, &fingerprinter, &bars)?;
        problems += query_problems;
        Some(queries)
    };
    let mut out = exit::stdout();
    let hex_digits = args.bits.div_ceil(4) as usize;
    if args.fingerprints {
        for doc in corpus.iter().chain(queries.iter().flatten()) {
            let rec = OutSet {
                id: doc.out_id(),
                fingerprints: doc
                    .set
                    .as_slice()
                    .iter()
                    .map(|fp| format!("{fp:0hex_digits$x}"))
                    .collect(),
            };
            serde_json::to_writer(&mut out, &rec)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        return exit::skipped(problems);
    }
    let corpus_sets: Vec<FingerprintSet> = corpus.iter().map(|d| d.set.clone()).collect();
    let (pairs, left): (Vec<SetPair>, &[Doc]) = match &queries {
        None => (search.pairs(&corpus_sets)?, &corpus),
        Some(queries) => {
            let query_sets: Vec<FingerprintSet> = queries.iter().map(|d| d.set.clone()).collect();
            (search.pairs_between(&query_sets, &corpus_sets)?, queries)
        }
    };
    for p in &pairs {
        let (a, b) = (&left[p.a as usize], &corpus[p.b as usize]);
        let rec = OutPair {
            a: a.out_id(),
            b: b.out_id(),
            similarity: p.similarity,
            shared: p.shared,
            a_fingerprints: a.set.len(),
            b_fingerprints: b.set.len(),
        };
        serde_json::to_writer(&mut out, &rec)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    global.log(format_args!(
        "{} pairs with S >= {}{}",
        pairs.len(),
        args.threshold,
        match &queries {
            Some(q) => format!(" between {} queries and the corpus", q.len()),
            None => " within the corpus".to_string(),
        }
    ));
    exit::skipped(problems)
}

/// Reads and fingerprints the documents of `files` in input order; returns them and the number
/// of input problems skipped.
fn read(
    args: &Args,
    files: &[PathBuf],
    fingerprinter: &ParagraphFingerprinter,
    progress: &dyn Progress,
) -> anyhow::Result<(Vec<Doc>, u64)> {
    let mut docs = Vec::new();
    let counts = DocumentPipeline::new().run(
        args.input.inputs(files, rayon::current_num_threads())?,
        progress,
        ParagraphScratch::default,
        |scratch, _seq, doc| Doc {
            set: fingerprinter.fingerprint_set_with(&doc.text, scratch),
            id: doc.id,
            source: doc.origin.source,
            title: doc.title,
        },
        |_, doc: Doc| -> Result<(), Error> {
            docs.push(doc);
            Ok(())
        },
    )?;
    let fingerprints: usize = docs.iter().map(|d| d.set.len()).sum();
    let empty = docs.iter().filter(|d| d.set.is_empty()).count();
    progress.log(&format!(
        "{} documents, {fingerprints} paragraph fingerprints ({empty} documents without one){}",
        counts.documents,
        if counts.input_problems > 0 {
            format!(", {} input problems", counts.input_problems)
        } else {
            String::new()
        }
    ));
    Ok((docs, counts.input_problems))
}
