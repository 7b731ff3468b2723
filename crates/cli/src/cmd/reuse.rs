//! `textreuse reuse`: every reused passage within a corpus, or between a corpus and another
//! (`textreuse_reuse`).
use std::path::{Path, PathBuf};

use anyhow::Context;
use textreuse_corpus::files::{OutputSet, RunDir};
use textreuse_corpus::{Progress, Source, Stage};
use textreuse_minhash::SignerConfig;
use textreuse_reuse::web::WebStudy;
use textreuse_reuse::{DocumentStore, DocumentStoreBuilder, PanOutput, Reuse, ReuseOutputDir};
use textreuse_shingle::ChunkConfig;

use crate::args::align::{LangArgs, SynonymArgs};
use crate::args::input::InputArgs;
use crate::args::size::parse_size;
use crate::args::values::NgramOrOff;
use crate::args::web::WebArgs;
use crate::args::work_mem::{Sorts, WorkMemArgs};
use crate::exit;
use crate::global::Global;
use crate::progress::Bars;

/// Find every reused passage within a corpus (all document pairs) or between it and another.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus: files or directories (walked recursively), read as `dedup` reads them.
    /// Default: the bundled sample dumps.
    #[arg(value_name = "CORPUS")]
    corpus: Vec<PathBuf>,
    /// Compare the corpus only against these inputs (the corpus's documents are the suspicious
    /// side, these the sources), not within itself.
    #[arg(long, value_name = "OTHER", num_args = 1..)]
    against: Vec<PathBuf>,
    /// Output directory: reuse.jsonl, pairs.tsv, documents.tsv, stats.json, corpus.json (the
    /// corpus view, which `textreuse report DIR` draws); with --against and corpus documents
    /// that have URLs (web pages) also websites.tsv and websites.json, and revenue.json with
    /// the revenue inputs below.
    #[arg(long, default_value = "reuse-out", value_name = "DIR")]
    out: PathBuf,
    /// Also write PAN detection files (SUSP-SRC.xml) into DIR, for `textreuse pan-eval` (a
    /// directory beside --out, not inside it).
    #[arg(long, value_name = "DIR")]
    pan_out: Option<PathBuf>,
    /// How candidate pairs are found: `tfidf` (each chunk's heaviest terms, its best-matching
    /// documents; finds paraphrase and summaries) or `minhash` (band keys of word n-grams;
    /// near-verbatim reuse only).
    #[arg(long, value_name = "METHOD", default_value = "tfidf")]
    candidates: textreuse_reuse::Candidates,
    /// How passages are classed as content or structure reuse, or marked spurious: `rules`
    /// (the evidence, then the articles' titles: one topic is content reuse, sibling topics
    /// structure reuse), `learned` (decision trees fitted to labelled Wikipedia cases over
    /// the same measures), `thesis` (the thesis's heuristics H1 and H2 exactly; cases neither
    /// covers are `unclassified`), or `default`.
    #[arg(long, value_name = "CLASSIFIER", default_value = "default")]
    classes: textreuse_reuse::Classifier,
    /// Also write each passage's text on both sides into reuse.jsonl (`suspicious_text`,
    /// `source_text`).
    #[arg(long)]
    passage_texts: bool,
    /// tf-idf: terms kept per chunk.
    #[arg(long, value_name = "N", default_value_t = textreuse_reuse::DEFAULT_TERMS)]
    terms: usize,
    /// tf-idf: documents each chunk nominates (its best-scoring chunks' documents).
    #[arg(long, value_name = "K", default_value_t = textreuse_reuse::DEFAULT_TOP_DOCS)]
    top_docs: usize,
    /// tf-idf: terms in more chunks than this are skipped (counted in stats.json).
    #[arg(long, value_name = "N", default_value_t = textreuse_reuse::DEFAULT_MAX_TERM_POSTINGS)]
    max_postings: usize,
    /// tf-idf: the lowest chunk score (0 to 1) that nominates a document. 0 keeps summaries;
    /// higher values cut the candidates (and the alignment time) at the cost of reuse that
    /// is edited or fills only part of a chunk (docs/reuse.md has measurements).
    #[arg(long, value_name = "S", default_value_t = textreuse_reuse::DEFAULT_MIN_SCORE)]
    min_score: f32,
    /// MinHash: word n-gram length of the chunks' shingles.
    #[arg(long, value_name = "N", default_value_t = textreuse_shingle::DEFAULT_CHUNK_NGRAM)]
    ngram: usize,
    /// Fewest words per chunk (shorter paragraphs are merged).
    #[arg(long, value_name = "N", default_value_t = textreuse_shingle::DEFAULT_CHUNK_MIN_WORDS)]
    min_words: usize,
    /// MinHash: rows (minhashes) per band key.
    #[arg(long, value_name = "K", default_value_t = textreuse_minhash::DEFAULT_CHUNK_ROWS)]
    rows: usize,
    /// MinHash: band keys per chunk.
    #[arg(long, value_name = "M", default_value_t = textreuse_minhash::DEFAULT_CHUNK_BANDS)]
    bands: usize,
    /// Seed of the hash functions.
    #[arg(long, value_name = "S", default_value_t = textreuse_minhash::DEFAULT_SEED)]
    seed: u64,
    /// MinHash: chunk pairs two documents must share to be aligned.
    #[arg(long, value_name = "N", default_value_t = textreuse_reuse::DEFAULT_MIN_SHARED)]
    min_shared: u32,
    /// Passages shorter than this many bytes on either side are dropped.
    #[arg(long, value_name = "N", default_value_t = textreuse_align::DEFAULT_MIN_PASSAGE_LEN)]
    min_length: usize,
    /// Where alignment finds no passage in a pair, look again from the sentence pairs sharing
    /// a word N-gram (4 finds more heavily reworded passages; alignment then takes about a
    /// third more CPU), or `off`.
    #[arg(
        long,
        value_name = "N|off",
        default_value_t = NgramOrOff(textreuse_reuse::DEFAULT_REUSE_FALLBACK_NGRAM)
    )]
    fallback_ngram: NgramOrOff,
    #[command(flatten)]
    synonyms: SynonymArgs,
    #[command(flatten)]
    lang: LangArgs,
    /// MinHash: buckets with more chunks contribute only the pairs of their first N (counted in
    /// stats.json).
    #[arg(long, value_name = "N", default_value_t = textreuse_shuffle::DEFAULT_MAX_BUCKET)]
    max_bucket: usize,
    /// Stop after the candidate stage: pairs.tsv lists every candidate pair, nothing is
    /// aligned.
    #[arg(long)]
    candidates_only: bool,
    #[command(flatten)]
    work_mem: WorkMemArgs<Sorts>,
    /// Bound on the peak resident memory of the whole run (e.g. 256MB, 4GB; at least 128MiB,
    /// checked before anything is read): the sorts and index blocks, the alignment's parts,
    /// the mapped pages of the document texts, the per-document arrays, the rows of
    /// documents.tsv and the corpus view's names and article graph get shares of it and
    /// spill, cut, are handed back or move to files beyond them; the per-term counts and the
    /// web study are not bounded yet (docs/performance.md). The outputs are the same at any
    /// bound.
    /// Default: no bound
    #[arg(long, value_name = "SIZE")]
    max_memory: Option<String>,
    /// Test hook: every structure that can spill does so from its first entry, whatever the
    /// bound (slow; the outputs must not change).
    #[arg(long, hide = true)]
    spill_everything: bool,
    /// Directory of the temporary files: the document texts (the whole input's text, kept on
    /// disk and mapped into memory), their tokens for alignment (1.1 to 1.3 times the text)
    /// and the sorts' spilled runs. Default: the system's.
    #[arg(long, value_name = "DIR")]
    tmp: Option<PathBuf>,
    #[command(flatten)]
    web: WebArgs,
    #[command(flatten)]
    input: InputArgs,
}

/// Runs `textreuse reuse`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    // The document texts and the sorts' runs go into a directory of this run, removed on every
    // exit path (signals included).
    let tmp = RunDir::new_in(args.tmp.as_deref())?;
    let (language, detect_language) = args.lang.choice();
    let mut builder = Reuse::builder();
    // With a bound, the sorts get their share of it unless --work-mem says otherwise.
    match &args.max_memory {
        Some(size) => {
            builder.max_memory(parse_size(size).context("invalid --max-memory")?);
            if let Some(bytes) = args.work_mem.given(global)? {
                builder.mem_budget(bytes);
            }
        }
        None => {
            builder.mem_budget(args.work_mem.bytes(global)?);
        }
    }
    let job = builder
        .candidates(args.candidates)
        .terms(args.terms)
        .top_docs(args.top_docs)
        .max_postings(args.max_postings)
        .min_score(args.min_score)
        .chunks(ChunkConfig {
            ngram: args.ngram,
            min_words: args.min_words,
        })
        .signer(SignerConfig {
            rows: args.rows,
            bands: args.bands,
            seed: args.seed,
            ..SignerConfig::chunks()
        })
        .min_shared(args.min_shared)
        .min_passage_len(args.min_length)
        .fallback_ngram(args.fallback_ngram.0)
        .synonyms(args.synonyms.synonyms.0)
        .classifier(args.classes)
        .language(language)
        .detect_language(detect_language)
        .max_bucket(args.max_bucket)
        .align(!args.candidates_only)
        .spill_everything(args.spill_everything)
        .tmp_dir(tmp.path())
        .build()
        .map_err(|e| {
            use textreuse_shuffle::ShuffleError;
            let flag = match &e {
                textreuse_reuse::ReuseError::Shuffle(ShuffleError::InvalidMaxBucket { .. }) => {
                    "--max-bucket"
                }
                textreuse_reuse::ReuseError::Shuffle(ShuffleError::BudgetTooSmall { .. }) => {
                    "--work-mem"
                }
                textreuse_reuse::ReuseError::MemoryTooSmall { .. } => "--max-memory",
                textreuse_reuse::ReuseError::Parameter(m) if m.starts_with("mem_budget") => {
                    "--work-mem"
                }
                // The other parameter errors name their option.
                _ => return anyhow::Error::new(e),
            };
            anyhow::Error::new(e).context(format!("invalid {flag}"))
        })?;
    // The output directories are checked before the long run; their files appear at the end,
    // each directory as one.
    anyhow::ensure!(
        !args.web.any() || !args.against.is_empty(),
        "--site-values, --pageviews and --cpm belong to the web study, which compares web pages \
         against Wikipedia: give the articles with --against"
    );
    let revenue = args.web.inputs()?;
    let out = OutputSet::create(
        &args.out,
        &[
            ReuseOutputDir::FILES,
            ReuseOutputDir::FRONT_END_FILES,
            WebStudy::FILES,
        ]
        .concat(),
    )?;
    let pan_out = match &args.pan_out {
        Some(dir) => {
            // Each directory is replaced whole at the end, so one inside the other would be
            // lost: refused now rather than after the run.
            let pan = std::path::absolute(dir)?;
            if pan.starts_with(out.target()) || out.target().starts_with(&pan) {
                anyhow::bail!(
                    "--pan-out {} and --out {} must not be inside one another (each is replaced \
                     whole when the run ends): put them side by side, e.g. --pan-out {}-pan",
                    dir.display(),
                    args.out.display(),
                    args.out.display()
                );
            }
            Some(OutputSet::create(dir, &["*.xml"])?)
        }
        None => None,
    };
    let bars = Bars::new(global);
    // Each store keeps its offsets in memory within its part of the bound's share.
    let offsets = match args.against.is_empty() {
        true => job.memory().store_offsets(),
        false => job.memory().store_offsets() / 2,
    };
    let (corpus, mut problems) = read(
        &global.inputs_or_samples(&args.corpus),
        args,
        tmp.path(),
        offsets,
        &bars,
    )?;
    let against = if args.against.is_empty() {
        None
    } else {
        let (docs, p) = read(&args.against, args, tmp.path(), offsets, &bars)?;
        problems += p;
        Some(docs)
    };
    global.log(format_args!(
        "{} documents{}; chunking, shuffling and aligning",
        corpus.len(),
        against
            .as_ref()
            .map_or(String::new(), |a| format!(" against {}", a.len()))
    ));
    // The web study: against another corpus, when the corpus has pages with URLs.
    let web = against.as_ref().and_then(|_| {
        let mut study = WebStudy::builder()
            .out_dir(out.dir())
            .revenue(revenue.clone())
            .build();
        study.examine_store(&corpus);
        (study.pages_with_url() > 0).then_some(study)
    });
    if web.is_none() && args.web.any() {
        global.log(format_args!(
            "no corpus document has a URL (web pages of WARC or WET files do): no web study, \
             websites.tsv and revenue.json are not written"
        ));
    }
    let mut sink = ReuseOutputDir::new(out.dir());
    sink.passage_texts(args.passage_texts)
        .memory(job.memory(), Some(tmp.path().to_path_buf()));
    let pan = pan_out.as_ref().map(|p| PanOutput::new(p.dir()));
    let mut sinks = (sink, (pan, web));
    let stats = job.run_stored(&corpus, against.as_ref(), &mut sinks, &bars)?;
    let web = sinks.1.1;
    let document_runs = sinks.0.document_runs_on_disk();
    let articles_moved = sinks.0.articles_moved_at();
    out.commit()?;
    if let Some(pan) = pan_out {
        pan.commit()?;
    }
    global.log(format_args!(
        "{} chunks, {} candidate pairs, {} with reuse, {} passages ({} content, {} structure{}) \
         in {:.2} s; written to {}",
        stats.chunks,
        stats.candidate_pairs,
        stats.pairs_with_reuse,
        stats.cases,
        stats.content_cases,
        stats.structure_cases,
        if stats.unclassified_cases > 0 {
            format!(", {} unclassified", stats.unclassified_cases)
        } else {
            String::new()
        },
        stats.seconds.chunk_and_sign + stats.seconds.candidates + stats.seconds.align_and_write,
        args.out.display()
    ));
    if let Some(bound) = job.memory().max_memory {
        global.log(format_args!(
            "memory bound {} MiB: {:.1} MB spilled by the sorts, {} index blocks, the texts' \
             mapped pages handed back {} times, alignment batches cut into {} parts, {} \
             per-document arrays and {} runs of documents.tsv rows in temporary files",
            bound >> 20,
            stats.bytes_spilled as f64 / 1e6,
            stats.index_blocks,
            stats.text_releases,
            stats.align_parts,
            stats.doc_arrays_on_disk,
            document_runs
        ));
        if let Some(articles) = articles_moved {
            global.log(format_args!(
                "the corpus view's article graph passed its {} MiB at {articles} articles and \
                 was moved to a temporary file",
                job.memory().articles >> 20
            ));
        }
    }
    if let Some(web) = &web {
        log_web(web, global);
    }
    if stats.buckets_capped > 0 {
        global.log(format_args!(
            "{} band buckets had more than {} chunks and were capped ({} chunks left out of \
             their pairs; --max-bucket raises the cap)",
            stats.buckets_capped, args.max_bucket, stats.bucket_ids_left_out
        ));
    }
    if stats.terms_over_cap > 0 {
        global.log(format_args!(
            "{} terms were in more than {} chunks and were skipped (--max-postings raises the \
             cap)",
            stats.terms_over_cap, args.max_postings
        ));
    }
    exit::skipped(problems)
}

/// What the web study found, in a few lines.
fn log_web(web: &WebStudy, global: &Global) {
    let s = web.summary();
    global.log(format_args!(
        "web study: {} pages of {} websites examined ({} without a URL), {} pages of {} \
         websites reuse the other side ({} websites with at least half of their pages); of the \
         reusing pages {} link to wikipedia.org, {} to an article they reuse, {} unknown (no \
         links in the input); websites.tsv, websites.json",
        s.pages,
        s.websites,
        s.pages_without_url,
        s.reusing_pages,
        s.reusing_websites,
        s.websites_half_reusing,
        s.linking_wikipedia,
        s.linking_article,
        s.attribution_unknown
    ));
    if let Some(r) = web.revenue() {
        if let (Some(a), Some(b)) = (&r.site_value, &r.lower_bound) {
            global.log(format_args!(
                "revenue: website values x share of reusing pages: {:.2} USD over {} websites; \
                 over websites with at least half reusing: {:.2} USD ({} websites without a \
                 value left out)",
                a.usd, a.websites, b.usd, a.websites_without_value
            ));
        }
        if let Some(c) = &r.page_views {
            match c.usd {
                Some(usd) => global.log(format_args!(
                    "revenue: {} monthly views of {} reused articles / 1000 x {} USD CPM = \
                     {usd:.2} USD a month",
                    c.monthly_views,
                    c.reused_articles,
                    c.cpm_usd.unwrap_or_default()
                )),
                None => global.log(format_args!(
                    "{} monthly views of {} reused articles (no --cpm: no estimate)",
                    c.monthly_views, c.reused_articles
                )),
            }
        }
    }
}

/// The documents of `paths` in input order, their texts in a temporary file (so the corpus
/// need not fit in memory), their offsets in memory up to `offsets` bytes, and the number of
/// bad files and records skipped.
fn read(
    paths: &[PathBuf],
    args: &Args,
    tmp: &Path,
    offsets: u64,
    bars: &Bars<'_>,
) -> anyhow::Result<(DocumentStore, u64)> {
    let cleaner = textreuse_wikidump::Cleaner::new();
    let mut docs = DocumentStoreBuilder::new(Some(tmp))?;
    docs.max_offsets_memory(offsets);
    let mut problems = 0;
    bars.start(Stage::ReadDocuments, None);
    for source in args
        .input
        .inputs(paths, bars.global().threads.unwrap_or(1))?
    {
        match source {
            Ok(source) => {
                docs.push(Source::into_document(source, &cleaner))?;
                bars.advance(1);
            }
            Err(e) => {
                problems += 1;
                bars.log(&format!("skipped: {:#}", anyhow::Error::new(e)));
            }
        }
    }
    bars.finish();
    Ok((docs.finish()?, problems))
}
