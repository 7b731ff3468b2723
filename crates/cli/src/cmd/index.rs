//! `textreuse index`: a persistent LSH index (`textreuse_index`) built once and then added to,
//! queried, pruned and compacted by later runs.
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Map, Value, json};
use textreuse_corpus::{DocId, Document, Origin};
use textreuse_index::{
    DocumentQuery, Index, IndexWriter, Match, MemoryPlan, Params, QueryOptions, UnitMatches,
};

use crate::args::input::InputArgs;
use crate::args::max_memory::{self, MaxMemoryArgs};
use crate::args::signer::{Scheme, signer_error};
use crate::args::unit::UnitArg;
use crate::args::values::{fraction, open_fraction};
use crate::args::work_mem::{IndexBatch, WorkMemArgs};
use crate::exit;
use crate::global::Global;
use crate::progress::Bars;

/// Build, add to, query, prune and compact a persistent MinHash LSH index.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Create an empty index in DIR with its unit and MinHash parameters (fixed for its life).
    Create(CreateArgs),
    /// Add the documents of INPUT... (whatever `dedup` reads) to the index.
    Add(AddArgs),
    /// For each unit of INPUT..., its near-duplicates in the index (JSON lines on stdout); with
    /// --top-k or --containment, for each document the indexed documents nearest to it or
    /// containing it.
    Query(QueryArgs),
    /// Remove documents by id (their space is reclaimed by `compact`).
    Remove(RemoveArgs),
    /// What the index holds and its parameters (JSON).
    Stats(DirArg),
    /// Merge all segments into one, leaving out removed documents (a damaged segment is
    /// refused before anything is written).
    Compact(CompactArgs),
    /// Check every file of the index: the manifest, each segment's bytes against their
    /// checksums and its sections against each other, the deletion files. Prints what the
    /// index holds (JSON) when all is well; otherwise names the damaged file and exits 1.
    Verify(DirArg),
}

#[derive(Debug, clap::Args)]
struct CreateArgs {
    /// The index directory: new or empty (one holding files but no index is refused).
    dir: PathBuf,
    /// What an entry is.
    #[arg(long, default_value_t = UnitArg::Sentence, value_parser = UnitArg::parser(UnitArg::INDEX))]
    unit: UnitArg,
    /// The Jaccard similarity to find: picks the cheapest scheme (or the --scheme given), K and M
    /// that find 99% of pairs at or above it (explicit -k/-m win).
    #[arg(long, value_name = "T", value_parser = open_fraction)]
    threshold: Option<f64>,
    /// Hash functions N of drawn bands [default: 20; disjoint and oph: K*M].
    #[arg(long, value_name = "N")]
    hashes: Option<usize>,
    /// Rows K per band [default: 10; oph 11; chunks: 2].
    #[arg(long, short = 'k')]
    rows: Option<usize>,
    /// Bands M [default: 10; oph 13; chunks: 30].
    #[arg(long, short = 'm')]
    bands: Option<usize>,
    /// Bands drawn from N functions, disjoint (N = K*M) or oph (K*M bins) [default: drawn for
    /// sentences, oph for paragraphs and documents, disjoint for chunks].
    #[arg(long, value_enum)]
    scheme: Option<Scheme>,
    /// Seed of the hash functions and bands [default: 1123456].
    #[arg(long)]
    seed: Option<u64>,
    /// Shingle length: characters, or words for chunks [default: 12; chunks: 2].
    #[arg(long, value_name = "N")]
    shingle: Option<usize>,
    /// Smallest unit in shingles [default: 75 for sentences, 20 for paragraphs and documents].
    #[arg(long, value_name = "N")]
    min_shingles: Option<usize>,
    /// Largest unit in shingles, 0 for no bound [default: 600 for sentences, none otherwise].
    #[arg(long, value_name = "N")]
    max_shingles: Option<usize>,
    /// Bytes kept of each minhash for estimates: 1, 2, 4 or 8 [default: 2; chunks: 8].
    #[arg(long, value_name = "B")]
    signature_bytes: Option<u8>,
    /// Do not store document texts (smaller; no --verify, no match texts, no check --index).
    #[arg(long)]
    no_text: bool,
}

#[derive(Debug, clap::Args)]
struct AddArgs {
    /// The index directory.
    dir: PathBuf,
    /// Inputs: files, directories or - for stdin, as `dedup` reads them.
    #[arg(value_name = "INPUT", required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    work_mem: WorkMemArgs<IndexBatch>,
    #[command(flatten)]
    max_memory: MaxMemoryArgs<max_memory::Index>,
}

#[derive(Debug, clap::Args)]
pub struct MatchArgs {
    /// Leave out matches below this Jaccard similarity (estimated, or exact with --verify).
    #[arg(long, default_value_t = 0.0, value_name = "T", value_parser = fraction)]
    pub min_jaccard: f64,
    /// Compute each match's exact Jaccard similarity from the stored texts.
    #[arg(long)]
    pub verify: bool,
    /// At most N matches per unit, best first.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Include the texts of query units and matches.
    #[arg(long)]
    pub text: bool,
}

impl MatchArgs {
    pub fn options(&self) -> QueryOptions {
        QueryOptions::new()
            .min_jaccard(self.min_jaccard)
            .verify(self.verify)
            .limit(self.limit.unwrap_or(usize::MAX))
            .text(self.text)
    }
}

#[derive(Debug, clap::Args)]
struct QueryArgs {
    /// The index directory.
    dir: PathBuf,
    /// Inputs: files, directories or - for stdin, as `dedup` reads them.
    #[arg(value_name = "INPUT", required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    matches: MatchArgs,
    /// Also print units (documents, with --top-k or --containment) without matches.
    #[arg(long)]
    all: bool,
    #[command(flatten)]
    max_memory: MaxMemoryArgs<max_memory::Index>,
    /// For each input document, the K indexed documents most similar to it (by their best
    /// pair of units; exact with --verify), best first, even below the index's threshold:
    /// one JSON line per document. Only documents sharing a band key with the input can be
    /// found, so there may be fewer than K.
    #[arg(long, value_name = "K", conflicts_with_all = ["containment", "limit"])]
    top_k: Option<usize>,
    /// For each input document, the indexed documents containing at least T of it (the share
    /// of its shingles in theirs: estimated from the units they share, exact with --verify),
    /// most first: one JSON line per document. Needs units smaller than the documents
    /// (sentence, paragraph or chunk indexes).
    #[arg(long, value_name = "T", value_parser = fraction, conflicts_with = "min_jaccard")]
    containment: Option<f64>,
}

impl QueryArgs {
    /// The question about whole documents, if one was asked.
    fn document_query(&self) -> Option<DocumentQuery> {
        match (self.top_k, self.containment) {
            (Some(k), _) => Some(DocumentQuery::TopK(k)),
            (None, Some(t)) => Some(DocumentQuery::Containment(t)),
            (None, None) => None,
        }
    }
}

#[derive(Debug, clap::Args)]
struct RemoveArgs {
    /// The index directory.
    dir: PathBuf,
    /// Document ids: integers when they look like one, else strings (see --string-ids).
    #[arg(value_name = "ID")]
    ids: Vec<String>,
    /// Read more ids from FILE, one per line (- for stdin).
    #[arg(long, value_name = "FILE")]
    ids_from: Option<PathBuf>,
    /// Every id is a string, even `123`.
    #[arg(long)]
    string_ids: bool,
}

#[derive(Debug, clap::Args)]
struct CompactArgs {
    /// The index directory.
    dir: PathBuf,
    #[command(flatten)]
    max_memory: MaxMemoryArgs<max_memory::Index>,
}

#[derive(Debug, clap::Args)]
struct DirArg {
    /// The index directory.
    dir: PathBuf,
}

/// Runs `textreuse index`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    match &args.command {
        Command::Create(a) => create(a, global),
        Command::Add(a) => add(a, global),
        Command::Query(a) => query(a, global),
        Command::Remove(a) => remove(a, global),
        Command::Stats(a) => stats(&a.dir),
        Command::Verify(a) => verify(&a.dir, global),
        Command::Compact(a) => {
            let bound = a.max_memory.bytes()?;
            check_bound(bound, None)?;
            let mut w = IndexWriter::open(&a.dir)?;
            if let Some(bytes) = bound {
                w.max_memory(bytes).map_err(memory_error)?;
            }
            let before = w.stats();
            w.compact().map_err(memory_error)?;
            let after = w.stats();
            global.log(format_args!(
                "{}: {} segments ({} bytes) merged into {} ({} bytes), {} removed documents \
                 dropped",
                a.dir.display(),
                before.segments,
                before.bytes,
                after.segments,
                after.bytes,
                before.removed_documents
            ));
            Ok(())
        }
    }
}

fn create(a: &CreateArgs, global: &Global) -> anyhow::Result<()> {
    let mut p = Params::new(a.unit.index_unit());
    if let Some(s) = a.scheme {
        // The scheme's preset K and M (explicit -k/-m and --threshold below win).
        p = p.preset(s.into());
    }
    if let Some(n) = a.hashes {
        p.hashes = n;
    }
    if let Some(s) = a.seed {
        p.seed = s;
    }
    if let Some(n) = a.shingle {
        p.shingle = n;
    }
    if let Some(n) = a.min_shingles {
        p.min_shingles = n;
        p.min_words = n;
    }
    if let Some(n) = a.max_shingles {
        p.max_shingles = if n == 0 { usize::MAX } else { n };
    }
    if let Some(b) = a.signature_bytes {
        p.signature_bytes = b;
    }
    p.store_text = !a.no_text;
    if let Some(t) = a.threshold
        && a.rows.is_none()
        && a.bands.is_none()
    {
        let mut target = p.target(t);
        if let Some(s) = a.scheme {
            target.schemes = vec![s.into()];
        }
        if let Some(n) = a.hashes {
            // N of drawn bands, the budget K*M of disjoint ones.
            target.hashes = n;
            target.max_hashes = n;
        }
        // Planned once here for an error that names the flags (index create is a one-off).
        textreuse_minhash::plan(&target).map_err(signer_error)?;
        p = p.plan(&target)?;
    }
    if let Some(k) = a.rows {
        p.rows = k;
    }
    if let Some(m) = a.bands {
        p.bands = m;
    }
    if p.scheme != textreuse_minhash::BandScheme::Drawn && a.hashes.is_none() {
        p.hashes = p.rows.saturating_mul(p.bands);
    }
    // The signer the index will build, checked here for an error that names the flags.
    p.signer_config().build().map_err(signer_error)?;
    let w = IndexWriter::create(&a.dir, p)?;
    let p = w.params();
    global.log(format_args!(
        "created an index of {}s in {}: N = {}, K = {}, M = {} ({}), S-curve threshold about \
         {:.2}",
        p.unit.as_str(),
        a.dir.display(),
        p.hashes,
        p.rows,
        p.bands,
        p.scheme,
        w.index().signer().threshold_estimate()
    ));
    Ok(())
}

/// Refuses a bound too small (or a batch budget that does not fit in it) before the index is
/// opened or any input is read.
fn check_bound(bound: Option<u64>, batch: Option<u64>) -> anyhow::Result<()> {
    if let Some(bytes) = bound {
        MemoryPlan::bounded(bytes, batch).map_err(memory_error)?;
    }
    Ok(())
}

/// Names the flag of a memory error.
pub fn memory_error(e: textreuse_index::Error) -> anyhow::Error {
    use textreuse_index::Error;
    let flag = match &e {
        Error::MemoryTooSmall { .. }
        | Error::MergeTooLarge { .. }
        | Error::QueryMemoryTooSmall { .. } => "--max-memory",
        Error::BatchTooLarge { .. } => "--work-mem",
        _ => return anyhow::Error::new(e),
    };
    anyhow::Error::new(e).context(format!("invalid {flag}"))
}

fn add(a: &AddArgs, global: &Global) -> anyhow::Result<()> {
    let start = std::time::Instant::now();
    let bound = a.max_memory.bytes()?;
    let batch = a.work_mem.given(global)?;
    check_bound(bound, batch)?;
    let mut w = IndexWriter::open(&a.dir)?;
    match bound {
        // The batch gets its share of the bound unless --work-mem says otherwise.
        Some(bytes) => {
            if let Some(batch) = batch {
                w.memory_budget(batch);
            }
            w.max_memory(bytes).map_err(memory_error)?;
        }
        None => {
            w.memory_budget(a.work_mem.bytes(global)?);
        }
    }
    let inputs = a.input.inputs(&a.files, rayon::current_num_threads())?;
    let bars = Bars::labelled(global, "indexing");
    let stats = w.add_all(inputs, &bars)?;
    let after = w.stats();
    global.log(format_args!(
        "added {} documents ({} {}s) in {:.2} s; the index holds {} documents in {} segments \
         ({} bytes)",
        stats.documents,
        stats.units,
        w.params().unit.as_str(),
        start.elapsed().as_secs_f64(),
        after.documents,
        after.segments,
        after.bytes
    ));
    exit::skipped(stats.input_problems)
}

fn query(a: &QueryArgs, global: &Global) -> anyhow::Result<()> {
    let start = std::time::Instant::now();
    let bound = a.max_memory.bytes()?;
    check_bound(bound, None)?;
    let mut index = Index::open(&a.dir)?;
    if let Some(bytes) = bound {
        index.max_memory(bytes).map_err(memory_error)?;
    }
    let inputs = a.input.inputs(&a.files, rayon::current_num_threads())?;
    let bars = Bars::labelled(global, "querying");
    let mut out = exit::stdout();
    let unit = index.params().unit.as_str();
    if let Some(question) = a.document_query() {
        let stats = index.query_documents_all(
            inputs,
            question,
            &a.matches.options(),
            &bars,
            |doc, found| -> anyhow::Result<()> {
                write_documents(&mut out, doc, found, a.all, a.matches.text)
            },
        )?;
        out.flush()?;
        global.log(format_args!(
            "queried {} documents ({} {unit}s) in {:.2} s: {} documents have matches",
            stats.documents,
            stats.units,
            start.elapsed().as_secs_f64(),
            stats.documents_matched
        ));
        return exit::skipped(stats.input_problems);
    }
    let stats = index.query_all(
        inputs,
        &a.matches.options(),
        &bars,
        None,
        |doc, units| -> anyhow::Result<()> {
            write_units(&mut out, doc, unit, units, a.all, a.matches.text)
        },
    )?;
    out.flush()?;
    global.log(format_args!(
        "queried {} documents ({} {unit}s) in {:.2} s: {} {unit}s of {} documents have matches",
        stats.documents,
        stats.units,
        start.elapsed().as_secs_f64(),
        stats.units_matched,
        stats.documents_matched
    ));
    exit::skipped(stats.input_problems)
}

/// One JSON line per unit of `doc` (with matches, or all with `all`).
pub fn write_units(
    out: &mut impl Write,
    doc: &Document,
    unit: &str,
    units: &[UnitMatches],
    all: bool,
    text: bool,
) -> anyhow::Result<()> {
    for u in units {
        if u.matches.is_empty() && !all {
            continue;
        }
        let mut line = Map::new();
        line.insert("doc".into(), json!(doc.id));
        line.insert("title".into(), json!(doc.title));
        origin(&mut line, &doc.origin);
        line.insert("unit".into(), json!(unit));
        line.insert("start".into(), json!(u.chars.start));
        line.insert("end".into(), json!(u.chars.end));
        if text {
            line.insert("text".into(), json!(&doc.text[u.span.clone()]));
        }
        let matches: Vec<Value> = u.matches.iter().map(match_json).collect();
        line.insert("matches".into(), Value::Array(matches));
        writeln!(out, "{}", Value::Object(line))?;
    }
    Ok(())
}

/// One JSON line for `doc` and the indexed documents answering a `--top-k` or `--containment`
/// query (lines without any only with `all`): the unit lines' fields, with `"unit":
/// "document"` and the whole document's span; each match is its document's best entry.
fn write_documents(
    out: &mut impl Write,
    doc: &Document,
    found: &[Match],
    all: bool,
    text: bool,
) -> anyhow::Result<()> {
    if found.is_empty() && !all {
        return Ok(());
    }
    let mut line = Map::new();
    line.insert("doc".into(), json!(doc.id));
    line.insert("title".into(), json!(doc.title));
    origin(&mut line, &doc.origin);
    line.insert("unit".into(), json!("document"));
    line.insert("start".into(), json!(0));
    line.insert("end".into(), json!(doc.text.chars().count()));
    if text {
        line.insert("text".into(), json!(doc.text));
    }
    let matches: Vec<Value> = found.iter().map(match_json).collect();
    line.insert("matches".into(), Value::Array(matches));
    writeln!(out, "{}", Value::Object(line))?;
    Ok(())
}

fn origin(line: &mut Map<String, Value>, o: &Origin) {
    if let Some(s) = &o.source {
        line.insert("source".into(), json!(&**s));
    }
    if let Some(r) = o.record {
        line.insert("record".into(), json!(r));
    }
    if let Some(r) = o.revision {
        line.insert("revision".into(), json!(r));
    }
    if let Some(t) = &o.timestamp {
        line.insert("timestamp".into(), json!(&**t));
    }
}

fn match_json(m: &Match) -> Value {
    let mut v = Map::new();
    v.insert("id".into(), json!(m.id));
    v.insert("title".into(), json!(m.title));
    origin(&mut v, &m.origin);
    v.insert("start".into(), json!(m.chars.start));
    v.insert("end".into(), json!(m.chars.end));
    v.insert("shared_bands".into(), json!(m.shared_bands));
    v.insert("estimated_jaccard".into(), json!(m.estimated_jaccard));
    if let Some(j) = m.jaccard {
        v.insert("jaccard".into(), json!(j));
    }
    if let Some(c) = m.estimated_containment {
        v.insert("estimated_containment".into(), json!(c));
    }
    if let Some(c) = m.containment {
        v.insert("containment".into(), json!(c));
    }
    if let Some(t) = &m.text {
        v.insert("text".into(), json!(t));
    }
    Value::Object(v)
}

fn parse_id(s: &str, strings: bool) -> DocId {
    if !strings && let Ok(i) = s.parse::<i128>() {
        return DocId::Int(i);
    }
    DocId::from(s)
}

fn remove(a: &RemoveArgs, global: &Global) -> anyhow::Result<()> {
    let mut ids: Vec<String> = a.ids.clone();
    if let Some(path) = &a.ids_from {
        let text = if path.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin()).context("reading ids from stdin")?
        } else {
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?
        };
        ids.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
    }
    anyhow::ensure!(
        !ids.is_empty(),
        "no ids given (list them, or use --ids-from FILE)"
    );
    let mut w = IndexWriter::open(&a.dir)?;
    let (mut removed, mut missing) = (0, 0);
    for id in &ids {
        let n = w.remove(&parse_id(id, a.string_ids))?;
        if n == 0 {
            missing += 1;
            global.log(format_args!("not in the index: {id}"));
        }
        removed += n;
    }
    w.commit()?;
    global.log(format_args!(
        "removed {removed} documents ({missing} of the {} ids were not in the index); \
         `textreuse index compact` reclaims their space",
        ids.len()
    ));
    Ok(())
}

fn verify(dir: &Path, global: &Global) -> anyhow::Result<()> {
    let stats = Index::verify(dir)?;
    global.log(format_args!(
        "{}: every file checked, no damage ({} documents in {} segment(s), {} bytes)",
        dir.display(),
        stats.documents,
        stats.segments,
        stats.bytes
    ));
    let mut out = exit::stdout();
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(&json!({"index": dir, "ok": true, "stats": stats}))?
    )?;
    out.flush()?;
    Ok(())
}

fn stats(dir: &Path) -> anyhow::Result<()> {
    let index = Index::open(dir)?;
    let value = json!({
        "index": dir,
        "stats": index.stats(),
        "params": index.params(),
        "threshold_estimate": index.signer().threshold_estimate(),
    });
    let mut out = exit::stdout();
    writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    out.flush()?;
    Ok(())
}
