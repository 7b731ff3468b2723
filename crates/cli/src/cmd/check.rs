//! `textreuse check`: a plagiarism checker. Indexes a corpus's paragraphs with MinHash band keys
//! (`textreuse_align::index`), retrieves candidate sources for each suspicious document, aligns
//! them (`textreuse_align::Aligner`) and reports the reused passages, ranked, each classified as
//! content or structure reuse (`textreuse_align::reuse`).
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use rayon::prelude::*;
use textreuse_align::index::{Candidate, CorpusIndex, IndexError};
use textreuse_align::reuse::{ReuseProfile, profile};
use textreuse_align::{Aligner, Passage};
use textreuse_corpus::{Document, Inputs, Source};
use textreuse_index::{Index, IndexUnit};
use textreuse_report::{CheckDocument, CheckPassage, CheckReport};

use crate::args::align::{AlignerArgs, LangArgs};
use crate::args::signer::signer_error;
use crate::args::values::at_least_one;
use crate::exit;
use crate::global::Global;

/// Find passages of suspicious documents reused from a corpus (candidate retrieval + alignment).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The suspicious document(s), plain text. Several are checked against one index.
    #[arg(value_name = "SUSPICIOUS", required = true, num_args = 1..)]
    pub suspicious: Vec<PathBuf>,
    /// The corpus: a directory (its `*.txt` files, in sorted order), a `.jsonl` file, a text
    /// file or a Wikipedia dump (`.xml`, `.xml.bz2`).
    #[arg(
        long,
        value_name = "PATH",
        required_unless_present = "index",
        conflicts_with = "index"
    )]
    pub corpus: Option<PathBuf>,
    /// A prebuilt index of the corpus (`textreuse index create DIR --unit chunk`, then
    /// `index add`) instead of --corpus: nothing is re-read or re-indexed, and the report is the
    /// same unless a band key holds more than 100 chunks (--corpus skips those). Its parameters
    /// replace --ngram, --rows and --bands.
    #[arg(long, value_name = "DIR")]
    pub index: Option<PathBuf>,
    /// Candidate source documents aligned per suspicious document.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = at_least_one)]
    pub top: usize,
    /// Passages shorter than this many bytes on either side are dropped.
    #[arg(long, value_name = "N", default_value_t = textreuse_align::DEFAULT_MIN_PASSAGE_LEN)]
    pub min_length: usize,
    #[command(flatten)]
    pub aligner: AlignerArgs,
    #[command(flatten)]
    pub lang: LangArgs,
    /// Word n-gram length of the index's shingles.
    #[arg(long, value_name = "N", default_value_t = textreuse_align::index::DEFAULT_NGRAM)]
    pub ngram: usize,
    /// Rows (minhashes) per band key of the index.
    #[arg(long, value_name = "K", default_value_t = textreuse_align::index::DEFAULT_ROWS)]
    pub rows: usize,
    /// Band keys per paragraph chunk of the index.
    #[arg(long, value_name = "M", default_value_t = textreuse_align::index::DEFAULT_BANDS)]
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
}

/// One reuse case found for a suspicious document.
struct Case<'a> {
    source: &'a Document,
    passage: Passage,
    profile: ReuseProfile,
}

/// Where candidates and their documents come from: the corpus indexed in memory, or a
/// prebuilt index on disk.
enum Corpus {
    Memory(CorpusIndex, Vec<Document>),
    Disk(Index),
}

impl Corpus {
    /// The ranked candidates of `text` with their documents.
    fn candidates(&self, text: &str, top: usize) -> anyhow::Result<Vec<(Candidate, Document)>> {
        match self {
            Corpus::Memory(index, docs) => Ok(index
                .candidates(text, top)
                .into_iter()
                .map(|c| {
                    let doc = docs[c.doc].clone();
                    (c, doc)
                })
                .collect()),
            Corpus::Disk(index) => {
                let mut out = Vec::new();
                for c in index.candidate_documents(text, top)? {
                    let doc = index
                        .document(c.doc as u64)?
                        .context("a candidate document is missing from the index")?;
                    out.push((c, doc));
                }
                Ok(out)
            }
        }
    }
}

/// Runs the subcommand.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let start = Instant::now();
    let (corpus, problems) = match (&args.corpus, &args.index) {
        (_, Some(dir)) => {
            let index = Index::open(dir)?;
            let p = index.params();
            anyhow::ensure!(
                p.unit == IndexUnit::Chunk && p.store_text,
                "{}: an index of {}s{}; check needs one of chunks with texts (textreuse index \
                 create DIR --unit chunk)",
                dir.display(),
                p.unit.as_str(),
                if p.store_text { "" } else { " without texts" }
            );
            let s = index.stats();
            global.log(format_args!(
                "opened the index {}: {} documents, {} chunks",
                dir.display(),
                s.documents,
                s.entries
            ));
            (Corpus::Disk(index), 0)
        }
        (Some(path), None) => {
            let (docs, problems) = read_corpus(path, global)?;
            let mut index = CorpusIndex::builder()
                .ngram(args.ngram)
                .rows(args.rows)
                .bands(args.bands)
                .build()
                .map_err(|e| match e {
                    IndexError::Signer(e) => signer_error(e),
                    e @ IndexError::ZeroNgram => anyhow::Error::new(e).context("invalid --ngram"),
                    e => anyhow::Error::new(e),
                })?;
            for doc in &docs {
                index.add(&doc.text);
            }
            global.log(format_args!(
                "indexed {} documents, {} chunks, in {:.2} s",
                docs.len(),
                index.chunks().len(),
                start.elapsed().as_secs_f64()
            ));
            (Corpus::Memory(index, docs), problems)
        }
        (None, None) => unreachable!("clap requires --corpus or --index"),
    };
    let aligner = args
        .lang
        .apply(
            args.aligner
                .apply(Aligner::builder().min_passage_len(args.min_length)),
        )
        .build()?;
    let mut out = exit::stdout();
    let start = Instant::now();
    let corpus_name = match (&args.corpus, &args.index) {
        (Some(path), _) | (None, Some(path)) => path.display().to_string(),
        (None, None) => String::new(),
    };
    let mut html = args.html.as_ref().map(|_| CheckReport::new(&corpus_name));
    for path in &args.suspicious {
        let text =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path.display().to_string();
        let candidates = corpus.candidates(&text, args.top)?;
        if args.candidates_only {
            for (rank, (c, doc)) in candidates.iter().enumerate() {
                let value = serde_json::json!({
                    "suspicious": name,
                    "rank": rank + 1,
                    "source_id": doc.id,
                    "source_title": doc.title,
                    "shared_keys": c.shared_keys,
                    "estimated_jaccard": c.best_jaccard,
                });
                writeln!(out, "{value}")?;
            }
            continue;
        }
        let query: &str = &text;
        // The suspicious document is tokenized once for all its candidates.
        let prepared = aligner.prepare(query);
        let mut cases: Vec<Case<'_>> = candidates
            .par_iter()
            .flat_map_iter(|(_, source)| {
                aligner
                    .align_prepared(&aligner.prepare(&source.text), &prepared)
                    .into_iter()
                    .map(move |passage| {
                        let profile = profile(
                            &source.text[passage.source.clone()],
                            &query[passage.suspicious.clone()],
                            source.text.len(),
                            query.len(),
                        );
                        Case {
                            source,
                            passage,
                            profile,
                        }
                    })
            })
            .collect();
        // Longest reuse first; ties by similarity, then by source order.
        cases.sort_by(|a, b| {
            b.passage
                .suspicious
                .len()
                .cmp(&a.passage.suspicious.len())
                .then(b.passage.score.total_cmp(&a.passage.score))
                .then(a.source.id.cmp(&b.source.id))
        });
        if args.text {
            write_text(&mut out, &name, &text, &cases, args.excerpt)?;
        } else {
            write_json(&mut out, &name, &text, &cases, args.excerpt)?;
        }
        if let Some(report) = &mut html {
            report.push(report_document(&name, &text, &cases));
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
    let n = args.suspicious.len();
    let secs = start.elapsed().as_secs_f64();
    global.log(format_args!(
        "checked {n} documents in {secs:.2} s ({:.1} ms per document)",
        1000.0 * secs / n.max(1) as f64
    ));
    exit::skipped(problems)
}

/// The corpus's documents: a directory's `*.txt` files in sorted order, or any input that
/// [`Inputs`] reads; and the number of bad files and records skipped.
fn read_corpus(path: &Path, global: &Global) -> anyhow::Result<(Vec<Document>, u64)> {
    let paths = if path.is_dir() {
        let mut files = Vec::new();
        for entry in fs::read_dir(path).with_context(|| format!("reading {}", path.display()))? {
            let p = entry?.path();
            if p.extension().is_some_and(|e| e == "txt") && p.is_file() {
                files.push(p);
            }
        }
        files.sort();
        if files.is_empty() {
            bail!("{}: no .txt files", path.display());
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    let cleaner = textreuse_wikidump::Cleaner::new();
    let (mut docs, mut problems) = (Vec::new(), 0);
    for source in Inputs::new(&paths).threads(global.threads.unwrap_or(1)) {
        match source {
            Ok(source) => docs.push(Source::into_document(source, &cleaner)),
            // Reported and skipped, like every subcommand's inputs.
            Err(e) => {
                problems += 1;
                global.log(format_args!("skipped: {:#}", anyhow::Error::new(e)));
            }
        }
    }
    Ok((docs, problems))
}

/// A checked document as the HTML report shows it (character offsets, whole passages).
fn report_document(name: &str, text: &str, cases: &[Case<'_>]) -> CheckDocument {
    let passages = cases
        .iter()
        .map(|c| {
            let (s, t) = c.passage.char_ranges(&c.source.text, text);
            CheckPassage {
                source_id: c.source.id.to_string(),
                source_title: c.source.title.clone(),
                kind: c.profile.kind.as_str().to_string(),
                score: c.passage.score,
                suspicious: t,
                source: s,
                suspicious_text: text[c.passage.suspicious.clone()].to_string(),
                source_text: c.source.text[c.passage.source.clone()].to_string(),
            }
        })
        .collect();
    CheckDocument {
        name: name.to_string(),
        chars: text.chars().count(),
        passages,
    }
}

/// The first `n` characters of `s`, with "…" when cut.
fn excerpt(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn write_json(
    out: &mut impl Write,
    name: &str,
    text: &str,
    cases: &[Case<'_>],
    n: usize,
) -> anyhow::Result<()> {
    for (rank, c) in cases.iter().enumerate() {
        let (s, t) = c.passage.char_ranges(&c.source.text, text);
        let p = &c.profile;
        let value = serde_json::json!({
            "suspicious": name,
            "rank": rank + 1,
            "source_id": c.source.id,
            "source_title": c.source.title,
            "suspicious_offset": t.start,
            "suspicious_length": t.len(),
            "source_offset": s.start,
            "source_length": s.len(),
            "score": c.passage.score,
            "kind": p.kind.as_str(),
            "ngram_jaccard": {
                "2": p.ngram_jaccard[0],
                "5": p.ngram_jaccard[1],
                "10": p.ngram_jaccard[2],
                "15": p.ngram_jaccard[3],
            },
            "entity_jaccard": p.entity_jaccard,
            "source_share": p.source_share,
            "suspicious_share": p.suspicious_share,
            "suspicious_text": excerpt(&text[c.passage.suspicious.clone()], n),
            "source_text": excerpt(&c.source.text[c.passage.source.clone()], n),
        });
        writeln!(out, "{value}")?;
    }
    Ok(())
}

fn write_text(
    out: &mut impl Write,
    name: &str,
    text: &str,
    cases: &[Case<'_>],
    n: usize,
) -> anyhow::Result<()> {
    writeln!(out, "{name}: {} reused passage(s)", cases.len())?;
    for (rank, c) in cases.iter().enumerate() {
        let (s, t) = c.passage.char_ranges(&c.source.text, text);
        let p = &c.profile;
        writeln!(
            out,
            "{:>3}. {} reuse from \"{}\" (id {}): chars {}..{} of the suspicious text, {}..{} of \
             the source; score {:.2}; n-gram Jaccard 2/5/10/15 = {:.2}/{:.2}/{:.2}/{:.2}; \
             entities {:.2}; shares {:.0}% / {:.0}%",
            rank + 1,
            p.kind.as_str(),
            c.source.title,
            c.source.id,
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
            excerpt(&text[c.passage.suspicious.clone()], n).replace('\n', " ")
        )?;
        writeln!(
            out,
            "     source:     {}",
            excerpt(&c.source.text[c.passage.source.clone()], n).replace('\n', " ")
        )?;
    }
    Ok(())
}
