//! Conventions every subcommand shares: global flags, stdout writing, exit codes.
use std::io::{self, Write};
use std::process::ExitCode;

/// Flags every subcommand accepts.
#[derive(Debug, clap::Args)]
pub struct Global {
    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_name = "N")]
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
                .num_threads(n.max(1))
                .build_global();
        }
    }

    /// The input files, or the bundled sample dumps (with a log line saying so) when none was
    /// given.
    pub fn inputs_or_samples(&self, files: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
        if !files.is_empty() {
            return files.to_vec();
        }
        let samples = textreuse_cli::sources::bundled_samples();
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

/// A buffered, locked stdout for data output.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// Turns a subcommand's result into the process exit code, printing a one-line cause on error.
/// A closed stdout (`textreuse ... | head`) is not an error.
pub fn exit(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if let Some(io) = err.downcast_ref::<io::Error>()
                && io.kind() == io::ErrorKind::BrokenPipe
            {
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
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub hashes: usize,
    /// Output bits of each hash function.
    #[arg(long, default_value_t = 60)]
    pub bits: u32,
    /// Rows K per band.
    #[arg(long, short = 'k', default_value_t = 10)]
    pub rows: usize,
    /// Bands M.
    #[arg(long, short = 'm', default_value_t = 10)]
    pub bands: usize,
    /// Seed of the hash functions and band subsets.
    #[arg(long, default_value_t = 1123456)]
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
