//! The one error type of the crate.
use std::path::PathBuf;

/// What went wrong making a report, and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A run output the report needs is not there.
    #[error(
        "{path}: not found; a report reads the outputs of `textreuse dedup` (stats.json, \
         clusters.jsonl, article-pairs.tsv): give the directory passed to dedup's --out"
    )]
    Missing {
        /// The missing file.
        path: PathBuf,
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
        "{path}, line {line}: {message} (was it written by `textreuse dedup` of this version? \
         run dedup again to rewrite it)"
    )]
    Format {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: u64,
        /// What is wrong.
        message: String,
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

impl ReportError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ReportError {
        let path = path.into();
        move |source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                ReportError::Missing { path }
            } else {
                ReportError::Io { path, source }
            }
        }
    }
}
