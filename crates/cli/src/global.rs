//! The flags every subcommand accepts (`--threads`, `--quiet`) and the log line.
use crate::args::input::bundled_samples;
use crate::args::values::thread_count;
use crate::signals::remove_temporaries_on_signals;

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
