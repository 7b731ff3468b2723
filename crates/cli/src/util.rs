//! Conventions every subcommand shares: global flags, stdout writing, exit codes.
use std::io::{self, Write};
use std::process::ExitCode;

use textreuse_dedup::features::{DEFAULT_MAX_SHINGLES, DEFAULT_MIN_SHINGLES, SentenceFilter};
use textreuse_minhash::{DEFAULT_BANDS, DEFAULT_BITS, DEFAULT_HASHES, DEFAULT_ROWS, DEFAULT_SEED};
use textreuse_shingle::DEFAULT_SHINGLE_CHARS;

/// Flags every subcommand accepts.
#[derive(Debug, clap::Args)]
pub struct Global {
    /// Worker threads (default: all cores; at least 1).
    #[arg(long, global = true, value_name = "N", value_parser = at_least_one)]
    pub threads: Option<usize>,
    /// No progress or log output on stderr.
    #[arg(long, short, global = true)]
    pub quiet: bool,
}

impl Global {
    /// Applies the flags that affect the whole process (the rayon pool size).
    pub fn init(&self) {
        if let Some(n) = self.threads {
            // Ignore the error: it only says the global pool was already built.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global();
        }
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

/// The bundled sample dumps (see `data/README.md`), used when no input is given.
pub fn bundled_samples() -> Vec<std::path::PathBuf> {
    let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data"));
    ["enwiki-part-201.xml.bz2", "enwiki-sample-206.xml.bz2"]
        .iter()
        .map(|f| data.join(f))
        .collect()
}

/// A count flag that must be at least 1 (`--threads`, `check --top`).
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A buffered stdout for data output (it takes the lock per 64 KiB flush, and can move to the
/// consumer thread of the document pipeline).
pub fn stdout() -> io::BufWriter<io::Stdout> {
    io::BufWriter::with_capacity(1 << 16, io::stdout())
}

/// Turns a subcommand's result into the process exit code, printing a one-line cause on error.
/// A closed stdout (`textreuse ... | head`) is not an error.
pub fn exit(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
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
    /// Number of hash functions N.
    #[arg(long, default_value_t = DEFAULT_HASHES, value_name = "N")]
    pub hashes: usize,
    /// Output bits of each hash function.
    #[arg(long, default_value_t = DEFAULT_BITS)]
    pub bits: u32,
    /// Rows K per band.
    #[arg(long, short = 'k', default_value_t = DEFAULT_ROWS)]
    pub rows: usize,
    /// Bands M.
    #[arg(long, short = 'm', default_value_t = DEFAULT_BANDS)]
    pub bands: usize,
    /// Seed of the hash functions and band subsets.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// Form bands as drawn K-subsets of N (the research) or disjoint (N = K*M, --hashes ignored).
    #[arg(long, value_enum, default_value_t = Scheme::Drawn)]
    pub scheme: Scheme,
}

/// How bands are formed (`--scheme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scheme {
    /// K-subsets of the N functions drawn from the seed.
    Drawn,
    /// Classic banding, N = K*M.
    Disjoint,
}

impl SignerArgs {
    /// The signer these flags describe.
    pub fn build(&self) -> anyhow::Result<textreuse_minhash::Signer> {
        use anyhow::Context;
        use textreuse_minhash::{BandScheme, SignerBuilder};
        let mut builder = SignerBuilder::new();
        builder
            .bits(self.bits)
            .rows(self.rows)
            .bands(self.bands)
            .seed(self.seed);
        match self.scheme {
            Scheme::Drawn => builder.scheme(BandScheme::Drawn).hashes(self.hashes),
            Scheme::Disjoint => builder.scheme(BandScheme::Disjoint),
        };
        builder.build().context("invalid MinHash parameters")
    }
}

/// The input flags of every command that reads documents: the field names of JSON Lines records.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// JSON Lines: the field holding the document id (a non-negative integer).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
    /// JSON Lines: the field holding the text (a string, or an array of paragraphs).
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_field: String,
    /// JSON Lines: the field holding the title (optional in the records).
    #[arg(long, default_value = "title", value_name = "NAME")]
    pub title_field: String,
}

impl InputArgs {
    /// The inputs `files`, read with these field names and `threads` decompression threads.
    pub fn inputs(&self, files: &[std::path::PathBuf], threads: usize) -> textreuse_dedup::Inputs {
        textreuse_dedup::Inputs::new(files)
            .threads(threads)
            .fields(textreuse_dedup::JsonFields {
                id: self.id_field.clone(),
                text: self.text_field.clone(),
                title: self.title_field.clone(),
            })
    }
}

/// The sentence-filter flags of every command that reads sentences (`dedup`, `sentences`,
/// `simhash`), with the library's defaults; `--max-shingles 0` means no upper bound everywhere.
#[derive(Debug, clap::Args)]
pub struct FilterArgs {
    /// Keep sentences with at least this many shingles (0 keeps the short ones too).
    #[arg(long, default_value_t = DEFAULT_MIN_SHINGLES, value_name = "N")]
    pub min_shingles: usize,
    /// Keep sentences with at most this many shingles (0: no upper bound).
    #[arg(long, default_value_t = DEFAULT_MAX_SHINGLES, value_name = "N")]
    pub max_shingles: usize,
    /// Shingle length in characters.
    #[arg(long, default_value_t = DEFAULT_SHINGLE_CHARS as u16, value_name = "CHARS", value_parser = clap::value_parser!(u16).range(1..))]
    pub shingle: u16,
}

impl FilterArgs {
    /// The filter these flags describe (`--max-shingles 0` becomes `usize::MAX`); an error when
    /// `--min-shingles` is above `--max-shingles`, which would keep nothing.
    pub fn filter(&self) -> anyhow::Result<SentenceFilter> {
        let filter = SentenceFilter {
            shingle: self.shingle as usize,
            min_shingles: self.min_shingles,
            max_shingles: if self.max_shingles == 0 {
                usize::MAX
            } else {
                self.max_shingles
            },
        };
        anyhow::ensure!(
            filter.min_shingles <= filter.max_shingles,
            "--min-shingles {} is above --max-shingles {}: no sentence would be kept",
            self.min_shingles,
            self.max_shingles
        );
        Ok(filter)
    }

    /// The filter for log lines: `75..=600 shingles of 12 chars` (`inf` for no upper bound).
    pub fn describe(&self) -> String {
        let max = if self.max_shingles == 0 {
            "inf".to_string()
        } else {
            self.max_shingles.to_string()
        };
        format!(
            "{}..={max} shingles of {} chars",
            self.min_shingles, self.shingle
        )
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
}
