//! Exit codes (a finished run that skipped bad inputs exits with 3) and the buffered stdout.
use std::io::{self, Write};
use std::process::ExitCode;

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
            eprintln!("textreuse: error: {}", message(&err));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes joined by ": ", each cause once: the libraries' errors often
/// name their cause in their own message already (`path: No such file or directory`), and
/// anyhow's `{:#}` would repeat it.
fn message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if out.is_empty() {
            out = text;
        } else if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let inner = textreuse_index::Error::Io {
            path: "/x/y".into(),
            source: io,
        };
        let err = anyhow::Error::new(inner);
        let text = super::message(&err);
        assert_eq!(text.matches("not found").count(), 1, "{text}");
        let wrapped = anyhow::anyhow!("outer").context("context");
        assert_eq!(super::message(&wrapped), "context: outer");
    }
}
