//! The `textreuse` command line.
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod args;
mod cmd;
mod exit;
mod global;
mod progress;
mod signals;

/// Locality-sensitive hashing and text-reuse detection.
#[derive(Debug, Parser)]
#[command(name = "textreuse", version, about, long_about = None)]
struct Cli {
    #[command(flatten)]
    global: global::Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Find clusters of near-duplicate sentences (the main job; default input: the bundled samples).
    Dedup(cmd::dedup::Args),
    /// Write the articles of Wikipedia dumps as JSON lines (id, title, paragraphs with sections).
    Extract(cmd::extract::Args),
    /// Split documents (plain text, JSON Lines, Parquet) into sentences, one JSON object per sentence.
    ///
    /// Each object: the sentence id dedup gives it (`id`), the document id as written (`doc`),
    /// where the document came from (`source`, `record`, `revision`, `timestamp`), `title`,
    /// `idx`, character offsets `start`/`end` into the document text, `shingles` and `text`:
    /// what the Spark backend needs to write the same clusters as `textreuse dedup`.
    Sentences(cmd::sentences::Args),
    /// 64-bit SimHash fingerprints of sentences, or the pairs within --max-hamming bits.
    Simhash(cmd::simhash::Args),
    /// Similar documents by Wang, Liu and Jia's paragraph fingerprints: every pair of documents
    /// (or every query against the corpus) whose fingerprint sets have cosine S >= --threshold.
    Docsim(cmd::docsim::Args),
    /// Print the S-curve (match probability against Jaccard similarity) or recommend (K, M).
    Tune(cmd::tune::Args),
    /// Score PAN text-alignment detections against truth files (plagdet, recall, precision,
    /// granularity), or the candidate pairs of a `reuse` run (candidate recall).
    PanEval(cmd::pan_eval::Args),
    /// Write report.html for a dedup output directory (counts, plots, sampled clusters with
    /// their differences marked, top article pairs) or a reuse one (the corpus view: class
    /// shares, length and similarity histograms, the article graph, top pairs); self-contained,
    /// opens offline.
    Report(cmd::report::Args),
    /// Find reused passages between two documents, or run a PAN-format batch over a pairs file.
    Align(cmd::align::Args),
    /// Every reused passage within a corpus (all document pairs), or between it and --against:
    /// chunks, MinHash candidates through the shuffle, alignment, classification.
    Reuse(cmd::reuse::Args),
    /// Plagiarism check: passages of suspicious documents reused from a corpus, ranked.
    Check(cmd::check::Args),
    /// A persistent LSH index: create it, add inputs, query new ones against it, remove, compact.
    Index(cmd::index::Args),
    /// A local web app over a dedup or reuse output directory: filters over every field and
    /// feature, seeded random samples, case, cluster and contradiction views, the corpus view.
    Explore(cmd::explore::Args),
}

/// Panics inside the decoders the libraries call on damaged input (the `mibz2` block decoder,
/// the `parquet` crate) are caught there and reported as that input's damage; their default
/// message and backtrace on stderr would only alarm. Any other panic is printed as before.
fn quiet_caught_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let file = info.location().map_or("", |l| l.file());
        let caught = textreuse_wikidump::CAUGHT_PANICS
            .iter()
            .chain(textreuse_corpus::CAUGHT_PANICS)
            .any(|c| file.contains(c));
        if !caught {
            default(info);
        }
    }));
}

fn main() -> ExitCode {
    quiet_caught_panics();
    let cli = Cli::parse();
    cli.global.init();
    let result = match cli.command {
        Command::Dedup(args) => cmd::dedup::run(&args, &cli.global),
        Command::Extract(args) => cmd::extract::run(&args, &cli.global),
        Command::Sentences(args) => cmd::sentences::run(&args, &cli.global),
        Command::Simhash(args) => cmd::simhash::run(&args, &cli.global),
        Command::Docsim(args) => cmd::docsim::run(&args, &cli.global),
        Command::Tune(args) => cmd::tune::run(&args, &cli.global),
        Command::PanEval(args) => cmd::pan_eval::run(&args, &cli.global),
        Command::Report(args) => cmd::report::run(&args, &cli.global),
        Command::Align(args) => cmd::align::run(&args, &cli.global),
        Command::Check(args) => cmd::check::run(&args, &cli.global),
        Command::Reuse(args) => cmd::reuse::run(&args, &cli.global),
        Command::Index(args) => cmd::index::run(&args, &cli.global),
        Command::Explore(args) => cmd::explore::run(&args, &cli.global),
    };
    exit::exit(result)
}
