//! Conventions every subcommand shares: global flags, stdout writing, exit codes.
use std::cell::RefCell;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

use textreuse_corpus::{Progress, Stage};
use textreuse_dedup::features::SignerOptions;
use textreuse_minhash::{DEFAULT_BITS, DEFAULT_SEED};
use textreuse_shingle::DEFAULT_SHINGLE_CHARS;
use textreuse_shingle::units::{SentenceFilter, Unit};

/// Flags every subcommand accepts.
#[derive(Debug, clap::Args)]
pub struct Global {
    /// Worker threads (default: all cores; 1 to 1024).
    #[arg(long, global = true, value_name = "N", value_parser = thread_count)]
    pub threads: Option<usize>,
    /// No progress or log output on stderr.
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

impl Global {
    /// Applies the flags that affect the whole process (the rayon pool size) and makes
    /// SIGINT, SIGTERM and SIGHUP remove the run's temporary files and unfinished outputs
    /// before the process exits (status 128 + the signal's number, as a shell reports it).
    pub fn init(&self) {
        if let Some(n) = self.threads {
            // Ignore the error: it only says the global pool was already built.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global();
        }
        remove_temporaries_on_signals(self.quiet);
    }

    /// The input files, or the bundled sample dumps (with a log line saying so) when none was
    /// given.
    pub fn inputs_or_samples(&self, files: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
        if !files.is_empty() {
            return files.to_vec();
        }
        let samples = bundled_samples();
        self.log(format_args!(
            "no input given: using the bundled samples {}",
            samples
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        samples
    }

    /// Prints a log line to stderr unless `--quiet`.
    pub fn log(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("textreuse: {msg}");
        }
    }
}

/// Handles SIGINT, SIGTERM and SIGHUP on a thread of their own: remove the run's
/// [`RunDir`](textreuse_corpus::files::RunDir)s and uncommitted
/// [`OutputSet`](textreuse_corpus::files::OutputSet)s, then exit. Without the handler (if it
/// cannot be installed) the signals kill the process as usual, and the next run removes what
/// was left.
fn remove_temporaries_on_signals(quiet: bool) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            textreuse_corpus::files::remove_temporaries();
            if !quiet {
                eprintln!("\ntextreuse: interrupted (signal {signal}); temporary files removed");
            }
            std::process::exit(128 + signal);
        }
    });
}

/// The bundled sample dumps (see `data/README.md`), used when no input is given.
pub fn bundled_samples() -> Vec<std::path::PathBuf> {
    let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data"));
    // Canonical, so that the `source` of every cluster member is a plain path.
    let data = data.canonicalize().unwrap_or_else(|_| data.to_path_buf());
    ["enwiki-part-201.xml.bz2", "enwiki-sample-206.xml.bz2"]
        .iter()
        .map(|f| data.join(f))
        .collect()
}

/// The most threads `--threads` takes: every thread has its own stack and buffers, and more
/// threads than cores only add switching (machines with more than 1024 cores can leave the flag
/// out: the default is one thread per core).
pub const MAX_THREADS: usize = 1024;

/// `--threads`: 1 to [`MAX_THREADS`].
pub fn thread_count(text: &str) -> Result<usize, String> {
    match at_least_one(text)? {
        n if n > MAX_THREADS => Err(format!(
            "must be at most {MAX_THREADS} (more threads than cores only add overhead; leave \
             --threads out for one per core)"
        )),
        n => Ok(n),
    }
}

/// A count flag that must be at least 1 (`check --top`).
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// `--fallback-ngram`: a word n-gram size of at least 1, or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NgramOrOff(pub Option<usize>);

impl std::str::FromStr for NgramOrOff {
    type Err = String;

    fn from_str(text: &str) -> Result<NgramOrOff, String> {
        match text {
            "off" => Ok(NgramOrOff(None)),
            _ => at_least_one(text)
                .map(|n| NgramOrOff(Some(n)))
                .map_err(|e| format!("{e} (or `off`)")),
        }
    }
}

impl std::fmt::Display for NgramOrOff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => f.write_str("off"),
        }
    }
}

/// A probability or similarity flag: a number from 0 to 1 (`--recall`, `--max-edit`).
pub fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Ok(x) => Err(format!("must be a number from 0 to 1, got {x}")),
        Err(e) => Err(e.to_string()),
    }
}

/// A similarity threshold flag: a number strictly between 0 and 1 (`--threshold`, `--below`).
pub fn open_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        Ok(x) => Err(format!(
            "must be a number strictly between 0 and 1, got {x}"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// The flags of [`SignerArgs`] (and `index create`'s, which have the same names) that a
/// MinHash parameter error is about.
pub fn signer_flags(e: &textreuse_minhash::BuildError) -> &'static str {
    use textreuse_minhash::BuildError as E;
    match e {
        E::ZeroRows => "--rows",
        E::ZeroBands | E::TooManyBands { .. } => "--bands",
        E::RowsExceedHashes { .. } => "--rows/--hashes",
        E::DisjointMismatch { .. } | E::TooManyHashes { .. } => "--hashes",
        E::TooManyBins { .. } | E::TooManyDisjointHashes { .. } => "--rows/--bands",
        E::Hash(_) => "--bits",
        E::Threshold { .. } => "--threshold/--below",
        E::OutOfRange { name, .. } if *name == "recall" => "--recall",
        E::OutOfRange { name, .. } if *name == "candidate_rate" => "--candidate-rate",
        E::Unreachable { .. } => "--threshold/--recall/--below/--candidate-rate",
        E::SetTooLarge { .. } => "--min-shingles",
        _ => "MinHash parameters",
    }
}

/// A MinHash parameter error as the CLI prints it: `invalid --rows/--bands: <the error>`.
pub fn signer_error(e: textreuse_minhash::BuildError) -> anyhow::Error {
    anyhow::anyhow!("invalid {}: {e}", signer_flags(&e))
}

/// A buffered stdout for data output (it takes the lock per 64 KiB flush, and can move to the
/// consumer thread of the document pipeline).
pub fn stdout() -> io::BufWriter<io::Stdout> {
    io::BufWriter::with_capacity(1 << 16, io::stdout())
}

/// The end of a run that finished but skipped bad inputs: every subcommand that reads inputs
/// returns it (after writing all its results) when anything was skipped, and the process exits
/// with status [`EXIT_SKIPPED`].
#[derive(Debug, thiserror::Error)]
#[error(
    "{problems} input problem(s) reported above were skipped; the results cover everything else"
)]
pub struct SkippedInputs {
    /// Bad files, bad records and damaged parts of dumps.
    pub problems: u64,
}

/// The exit status of a run that finished but skipped bad inputs (1 is a run stopped by an
/// error, 2 a usage error).
pub const EXIT_SKIPPED: u8 = 3;

/// `Ok` when nothing was skipped, else the [`SkippedInputs`] error.
pub fn skipped(problems: u64) -> anyhow::Result<()> {
    if problems == 0 {
        Ok(())
    } else {
        Err(SkippedInputs { problems }.into())
    }
}

/// Turns a subcommand's result into the process exit code, printing a one-line cause on error:
/// 0 on success, 1 when an error stopped the run, [`EXIT_SKIPPED`] when it finished but skipped
/// bad inputs. A closed stdout (`textreuse ... | head`) is not an error.
pub fn exit(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.downcast_ref::<SkippedInputs>().is_some() => {
            let _ = io::stdout().flush();
            eprintln!("textreuse: {err}");
            ExitCode::from(EXIT_SKIPPED)
        }
        Err(err) => {
            let broken_pipe = err.chain().any(|e| {
                e.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            let _ = io::stdout().flush();
            eprintln!("textreuse: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The MinHash flags of the commands that sign sentences (`dedup`, `sentences --band-keys`),
/// with `dedup`'s defaults, so both build the same signer from the same flags.
#[derive(Debug, clap::Args)]
pub struct SignerArgs {
    /// Number of hash functions N of drawn bands (at most 128) [default: 20; K*M for disjoint
    /// and oph]. With --threshold: the budget K*M of disjoint bands.
    #[arg(long, value_name = "N")]
    pub hashes: Option<usize>,
    /// Output bits of each hash function.
    #[arg(long, default_value_t = DEFAULT_BITS)]
    pub bits: u32,
    /// Rows K per band [default: the scheme's (10; oph 11), or planned for dedup's --threshold].
    #[arg(long, short = 'k')]
    pub rows: Option<usize>,
    /// Bands M [default: the scheme's (10; oph 13), or planned for dedup's --threshold]. Drawn
    /// bands: M at most 20 and K at most N; disjoint and oph: K*M at most 4096.
    #[arg(long, short = 'm')]
    pub bands: Option<usize>,
    /// Seed of the hash functions and band subsets.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// How minhashes and bands are formed: drawn K-subsets of N functions (the Weissman
    /// preset), disjoint (N = K*M functions), or oph (one hash per shingle into K*M bins)
    /// [default: drawn for sentences, oph for paragraphs and documents; with --threshold the
    /// cheapest that meets the target].
    #[arg(long, value_enum)]
    pub scheme: Option<Scheme>,
    /// With --threshold: the probability of finding a pair at or above the threshold that the
    /// planned configuration must reach.
    #[arg(long, default_value_t = 0.99, value_name = "P", value_parser = fraction)]
    pub recall: f64,
    /// With --threshold: pairs at or below this similarity [default: max(T - 0.4, T / 6)] ...
    #[arg(long, value_name = "S", value_parser = open_fraction)]
    pub below: Option<f64>,
    /// ... may become candidates with at most this probability.
    #[arg(long, default_value_t = 0.01, value_name = "P", value_parser = fraction)]
    pub candidate_rate: f64,
}

/// How bands are formed (`--scheme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scheme {
    /// K-subsets of the N functions drawn from the seed.
    Drawn,
    /// Classic banding, N = K*M.
    Disjoint,
    /// One-permutation hashing with optimal densification, K*M bins.
    Oph,
}

impl From<Scheme> for textreuse_minhash::BandScheme {
    fn from(s: Scheme) -> Self {
        match s {
            Scheme::Drawn => textreuse_minhash::BandScheme::Drawn,
            Scheme::Disjoint => textreuse_minhash::BandScheme::Disjoint,
            Scheme::Oph => textreuse_minhash::BandScheme::Oph,
        }
    }
}

impl SignerArgs {
    /// These flags as the library's options (the rule that turns them into a signer is
    /// [`SignerOptions`]'s, shared with the Spark job).
    pub fn options(&self) -> SignerOptions {
        SignerOptions {
            scheme: self.scheme.map(Into::into),
            hashes: self.hashes,
            rows: self.rows,
            bands: self.bands,
            bits: self.bits,
            seed: self.seed,
            recall: self.recall,
            below: self.below,
            candidate_rate: self.candidate_rate,
        }
    }

    /// Whether -k or -m was given (they win over a threshold's plan).
    pub fn explicit_bands(&self) -> bool {
        self.options().explicit_bands()
    }

    /// What the planner must meet for `threshold`, for units of at least `min_set` shingles
    /// ([`SignerOptions::target`]).
    pub fn target(&self, threshold: f64, min_set: usize) -> textreuse_minhash::Target {
        self.options().target(threshold, min_set)
    }

    /// The signer these flags describe for `unit`: the scheme's preset (the unit's default
    /// scheme when none is given) with the flags that were given.
    pub fn build(
        &self,
        unit: textreuse_shingle::units::Unit,
    ) -> anyhow::Result<textreuse_minhash::Signer> {
        self.options().builder(unit).build().map_err(signer_error)
    }
}

/// `--work-mem`: the memory of the sorts (and, in `reuse`, of the index blocks) before they
/// spill to disk. It was called `--mem-budget`, which read as a bound on the whole run; the old
/// name still works, with a warning.
#[derive(Debug, clap::Args)]
pub struct WorkMemArgs {
    /// Memory of the sorts (in `reuse` also of the inverted index's blocks) before they spill
    /// to disk (e.g. 64MB, 4GB). The rest of the run needs memory beside it
    /// (docs/performance.md).
    #[arg(long, default_value = "2GB", value_name = "SIZE")]
    work_mem: String,
    /// The old name of --work-mem.
    #[arg(long, value_name = "SIZE", hide = true, conflicts_with = "work_mem")]
    mem_budget: Option<String>,
}

impl WorkMemArgs {
    /// The size in bytes.
    pub fn bytes(&self, global: &Global) -> anyhow::Result<u64> {
        use anyhow::Context;
        match &self.mem_budget {
            Some(old) => {
                global.log(
                    "--mem-budget is now called --work-mem (it bounds the sorts, not the whole run)",
                );
                crate::size::parse_size(old).context("invalid --mem-budget")
            }
            None => crate::size::parse_size(&self.work_mem).context("invalid --work-mem"),
        }
    }
}

/// The input flags of every command that reads documents: the field names of JSON Lines records.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// JSON Lines and Parquet: the field holding the document id (an integer or a string, kept
    /// as written).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
    /// JSON Lines and Parquet: the field holding the text (JSON Lines: a string, or an array of
    /// paragraphs).
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_field: String,
    /// JSON Lines and Parquet: the field holding the title (optional).
    #[arg(long, default_value = "title", value_name = "NAME")]
    pub title_field: String,
    /// Read only the files of input directories whose path (relative to the directory) matches
    /// this glob (`*.jsonl.gz`, `**/part-*`); repeat for several. Files named directly are
    /// always read.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
}

impl InputArgs {
    /// The `--include` patterns; an error names a bad one.
    pub fn include(&self) -> anyhow::Result<textreuse_corpus::source::Include> {
        use anyhow::Context;
        textreuse_corpus::source::Include::new(&self.include).context("invalid --include")
    }

    /// The inputs `files`, read with these field names, include patterns and `threads`
    /// decompression threads.
    pub fn inputs(
        &self,
        files: &[std::path::PathBuf],
        threads: usize,
    ) -> anyhow::Result<textreuse_corpus::Inputs> {
        Ok(textreuse_corpus::Inputs::new(files)
            .threads(threads)
            .include(self.include()?)
            .fields(textreuse_corpus::JsonFields {
                id: self.id_field.clone(),
                text: self.text_field.clone(),
                title: self.title_field.clone(),
            }))
    }
}

/// The unit-filter flags of every command that reads sentences (`dedup`, `sentences`,
/// `simhash`), with the library's defaults per unit; `--max-shingles 0` means no upper bound
/// everywhere.
#[derive(Debug, clap::Args)]
pub struct FilterArgs {
    /// Keep units with at least this many shingles (0 keeps the short ones too) [default: 75 for
    /// sentences, 20 for paragraphs and documents].
    #[arg(long, value_name = "N")]
    pub min_shingles: Option<usize>,
    /// Keep units with at most this many shingles (0: no upper bound) [default: 600 for
    /// sentences, no bound for paragraphs and documents].
    #[arg(long, value_name = "N")]
    pub max_shingles: Option<usize>,
    /// Shingle length in characters.
    #[arg(long, default_value_t = DEFAULT_SHINGLE_CHARS as u16, value_name = "CHARS", value_parser = clap::value_parser!(u16).range(1..))]
    pub shingle: u16,
}

impl FilterArgs {
    /// The sentence filter these flags describe.
    pub fn filter(&self) -> anyhow::Result<SentenceFilter> {
        self.filter_for(Unit::Sentence)
    }

    /// The filter of `unit` these flags describe: the unit's defaults
    /// ([`Unit::default_filter`]) where a flag is not given, `--max-shingles 0` as
    /// `usize::MAX`; an error when `--min-shingles` is above `--max-shingles`, which would keep
    /// nothing.
    pub fn filter_for(&self, unit: Unit) -> anyhow::Result<SentenceFilter> {
        let defaults = unit.default_filter();
        let filter = SentenceFilter {
            shingle: self.shingle as usize,
            min_shingles: self.min_shingles.unwrap_or(defaults.min_shingles),
            max_shingles: match self.max_shingles {
                Some(0) => usize::MAX,
                Some(n) => n,
                None => defaults.max_shingles,
            },
        };
        anyhow::ensure!(
            filter.min_shingles <= filter.max_shingles,
            "--min-shingles {} is above --max-shingles {}: nothing would be kept",
            filter.min_shingles,
            filter.max_shingles
        );
        Ok(filter)
    }

    /// The sentence filter for log lines: `75..=600 shingles of 12 chars` (`inf` for no upper
    /// bound).
    pub fn describe(&self) -> String {
        self.filter()
            .map_or_else(|e| e.to_string(), |f| describe(&f))
    }
}

/// A filter for log lines: `75..=600 shingles of 12 chars` (`inf` for no upper bound).
pub fn describe(filter: &SentenceFilter) -> String {
    let max = if filter.max_shingles == usize::MAX {
        "inf".to_string()
    } else {
        filter.max_shingles.to_string()
    };
    format!(
        "{}..={max} shingles of {} chars",
        filter.min_shingles, filter.shingle
    )
}

/// Progress bars on stderr, one stage at a time, when it is a terminal and `--quiet` is off;
/// log lines print above the bar.
pub struct Bars<'a> {
    global: &'a Global,
    /// What the bar says instead of the dedup stage names (`index add`: "indexing").
    label: Option<&'static str>,
    draw: bool,
    bar: RefCell<Option<indicatif::ProgressBar>>,
}

impl<'a> Bars<'a> {
    /// Bars that name what is done with `label` instead of dedup's stages.
    pub fn labelled(global: &'a Global, label: &'static str) -> Bars<'a> {
        Bars {
            label: Some(label),
            ..Bars::new(global)
        }
    }

    /// Bars for `global`: drawn when stderr is a terminal and `--quiet` is off.
    pub fn new(global: &'a Global) -> Bars<'a> {
        Bars {
            global,
            label: None,
            draw: !global.quiet && std::io::stderr().is_terminal(),
            bar: RefCell::new(None),
        }
    }

    /// The run's global options.
    pub fn global(&self) -> &Global {
        self.global
    }

    /// Replaces the current bar by a new one (a spinner without a total), if bars are drawn.
    fn begin(&self, total: Option<u64>, template: &str) {
        self.finish();
        if !self.draw {
            return;
        }
        let bar = match total {
            Some(n) => indicatif::ProgressBar::new(n),
            None => indicatif::ProgressBar::new_spinner(),
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> "),
        );
        // Redraw even while a stage reports nothing for a while (the sort before the merge).
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        *self.bar.borrow_mut() = Some(bar);
    }
}

impl Progress for Bars<'_> {
    fn log(&self, line: &str) {
        match &*self.bar.borrow() {
            Some(bar) => bar.suspend(|| self.global.log(line)),
            None => self.global.log(line),
        }
    }

    fn start(&self, stage: Stage, total: Option<u64>) {
        let name = match stage {
            _ if self.label.is_some() => self.label.unwrap_or_default(),
            Stage::ReadDocuments => "stages 1-2:",
            Stage::MergeRecords => "stage 3: merging",
            Stage::ClusterPairs => "stages 4-5: clustering",
            Stage::WriteClusters => "stages 6-8: writing",
            Stage::ScoreChunks => "candidates:",
            Stage::AlignPairs => "aligning",
            _ => "working on",
        };
        let unit = stage.unit();
        let template = match total {
            Some(_) => format!(
                "{{bar:30}} {name} {{human_pos}}/{{human_len}} {unit} ({{per_sec:0}}, {{eta}} left)"
            ),
            None => format!("{{spinner}} {name} {{human_pos}} {unit} ({{per_sec:0}}) {{elapsed}}"),
        };
        self.begin(total, &template);
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = &*self.bar.borrow() {
            bar.inc(n);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.borrow_mut().take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        filter: FilterArgs,
    }

    fn parse(args: &[&str]) -> Result<FilterArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("textreuse").chain(args.iter().copied()))
            .map(|cli| cli.filter)
    }

    #[test]
    fn filter_args_default_to_dedups_filter() {
        let f = parse(&[]).unwrap();
        assert_eq!(f.filter().unwrap(), SentenceFilter::default());
        assert_eq!(f.describe(), "75..=600 shingles of 12 chars");
    }

    #[test]
    fn filter_args_max_zero_is_unbounded_and_shingle_zero_is_refused() {
        let f = parse(&[
            "--max-shingles",
            "0",
            "--min-shingles",
            "3",
            "--shingle",
            "8",
        ])
        .unwrap();
        let want = SentenceFilter {
            shingle: 8,
            min_shingles: 3,
            max_shingles: usize::MAX,
        };
        assert_eq!(f.filter().unwrap(), want);
        assert!(parse(&["--min-shingles", "700"]).unwrap().filter().is_err());
        assert!(at_least_one("0").is_err() && at_least_one("x").is_err());
        assert_eq!(at_least_one("3"), Ok(3));
        assert_eq!(f.describe(), "3..=inf shingles of 8 chars");
        assert!(parse(&["--shingle", "0"]).is_err());
    }

    #[test]
    fn ngram_or_off_round_trips_and_refuses_zero() {
        for text in ["4", "off"] {
            assert_eq!(text.parse::<NgramOrOff>().unwrap().to_string(), text);
        }
        assert_eq!("3".parse(), Ok(NgramOrOff(Some(3))));
        assert!("0".parse::<NgramOrOff>().unwrap_err().contains("or `off`"));
        assert!("none".parse::<NgramOrOff>().is_err());
    }
}

/// The aligner's options of `align` and `check` (`--fallback-ngram`, `--synonyms`), with its
/// defaults.
#[derive(Debug, clap::Args)]
pub struct AlignerArgs {
    /// Where alignment finds no passage, look again from the sentence pairs sharing a word
    /// N-gram (finds heavily reworded passages), or `off`.
    #[arg(
        long,
        value_name = "N|off",
        default_value_t = NgramOrOff(textreuse_align::DEFAULT_FALLBACK_NGRAM)
    )]
    pub fallback_ngram: NgramOrOff,
    #[command(flatten)]
    pub synonyms: SynonymArgs,
}

impl AlignerArgs {
    /// Sets the aligner's fallback n-gram size and synonym matching.
    pub fn apply<'b>(
        &self,
        builder: &'b mut textreuse_align::AlignerBuilder,
    ) -> &'b mut textreuse_align::AlignerBuilder {
        builder
            .fallback_ngram(self.fallback_ngram.0)
            .synonyms(self.synonyms.synonyms.0)
    }
}

/// `on` or `off` (`--synonyms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnOff(pub bool);

impl std::str::FromStr for OnOff {
    type Err = String;

    fn from_str(text: &str) -> Result<OnOff, String> {
        match text {
            "on" => Ok(OnOff(true)),
            "off" => Ok(OnOff(false)),
            _ => Err(format!("expected `on` or `off`, got `{text}`")),
        }
    }
}

impl std::fmt::Display for OnOff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0 { "on" } else { "off" })
    }
}

/// `--synonyms` of `align`, `check` and `reuse`, with the aligner's default.
#[derive(Debug, clap::Args)]
pub struct SynonymArgs {
    /// Match English words with their WordNet synonyms where the source's word is missing from
    /// the suspicious text (finds paraphrases that swap words), or `off`.
    #[arg(
        long,
        value_name = "on|off",
        default_value_t = OnOff(textreuse_align::DEFAULT_SYNONYMS)
    )]
    pub synonyms: OnOff,
}

/// `--lang`: the language alignment stems and drops stopwords in.
#[derive(Debug, clap::Args)]
pub struct LangArgs {
    /// Language of the texts, for stemming and stopwords: an ISO 639-1 code (en, de, fr, es,
    /// ru, bg, ...; see `textreuse_align::Language`) or `auto` to detect each suspicious
    /// document's language (English when detection is unsure).
    #[arg(long, value_name = "CODE", default_value = "en")]
    pub lang: textreuse_align::LanguageChoice,
}

impl LangArgs {
    /// The fixed language (English under `auto`, the fallback) and whether to detect it.
    pub fn choice(&self) -> (textreuse_align::Language, bool) {
        self.lang.language_and_detection()
    }

    /// Sets the aligner's language (or detection).
    pub fn apply<'b>(
        &self,
        builder: &'b mut textreuse_align::AlignerBuilder,
    ) -> &'b mut textreuse_align::AlignerBuilder {
        builder.language_choice(self.lang)
    }
}
