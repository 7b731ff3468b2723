//! The one error type of the crate.
use std::path::PathBuf;

/// What went wrong making a report, and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A run output the report needs is not there.
    #[error("{path}: not found; {}", run.needs())]
    Missing {
        /// The missing file.
        path: PathBuf,
        /// The job whose outputs were read.
        run: Run,
    },
    /// Reading an output or writing the report failed.
    #[error("{path}: {source}")]
    Io {
        /// The file read or written.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// An output is not in the format `textreuse dedup` writes.
    #[error(
        "{path}, line {line}: {message} (was it written by `textreuse {}` of this version? \
         run it again to rewrite it)", run.command()
    )]
    Format {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
        /// The job whose outputs were read.
        run: Run,
    },
    /// The plotting library could not draw a figure.
    #[error("drawing {figure}: {message}")]
    Plot {
        /// The figure.
        figure: &'static str,
        /// The plotting library's message.
        message: String,
    },
}

/// The job whose output directory a report reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Run {
    /// `textreuse dedup` ([`DedupReport`](crate::DedupReport)).
    Dedup,
    /// `textreuse reuse` ([`ReuseReport`](crate::ReuseReport)).
    Reuse,
}

impl Run {
    /// The job of the outputs in `dir`: [`Run::Reuse`] when it holds `corpus.json` or
    /// `reuse.jsonl`, else [`Run::Dedup`] (whose report then says what is missing).
    pub fn of_dir(dir: &std::path::Path) -> Run {
        if ["corpus.json", "reuse.jsonl"]
            .iter()
            .any(|f| dir.join(f).exists())
        {
            Run::Reuse
        } else {
            Run::Dedup
        }
    }

    /// The command: `dedup` or `reuse`.
    pub fn command(self) -> &'static str {
        match self {
            Run::Dedup => "dedup",
            Run::Reuse => "reuse",
        }
    }

    /// What the report needs, and where to find it.
    fn needs(self) -> &'static str {
        match self {
            Run::Dedup => {
                "a report reads the outputs of `textreuse dedup` (stats.json, clusters.jsonl, \
                 article-pairs.tsv): give the directory passed to dedup's --out"
            }
            Run::Reuse => {
                "the reuse report reads the outputs of `textreuse reuse` (stats.json and \
                 corpus.json, the corpus view; a run of an older version has no corpus.json: \
                 run reuse again): give the directory passed to reuse's --out"
            }
        }
    }
}

impl ReportError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ReportError {
        Self::io_of(path, Run::Dedup)
    }

    /// An I/O error reading `path`, an output of `run`: [`ReportError::Missing`] when it is
    /// not there.
    pub(crate) fn io_of(
        path: impl Into<PathBuf>,
        run: Run,
    ) -> impl FnOnce(std::io::Error) -> ReportError {
        let path = path.into();
        move |source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                ReportError::Missing { path, run }
            } else {
                ReportError::Io { path, source }
            }
        }
    }
}
