//! `OutputSet`: the Spark backend's outputs change as one, as the command line's do
//! ([`textreuse_corpus::files::OutputSet`]).
use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use textreuse_corpus::OutputError;
use textreuse_corpus::files::{OutputSet, remove_temporaries as remove_all};

fn output_error(e: OutputError) -> PyErr {
    let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<std::io::Error>());
    // The message names the path; the cause (the files in the way, the disk being full) is
    // the source's.
    let message = match source {
        Some(s) => format!("{e}: {s}"),
        None => e.to_string(),
    };
    let errno = source.and_then(std::io::Error::raw_os_error);
    match errno {
        // OSError(errno, message) becomes the errno's subclass (PermissionError, ...).
        Some(errno) => PyOSError::new_err((errno, message)),
        None => PyOSError::new_err(message),
    }
}

/// The files of one run, written into a fresh directory beside ``target`` and swapped in with
/// one rename by :meth:`commit` (after an fsync of every file): a crash leaves the old result
/// or the new one, never a mix.
///
/// ``names`` are the files a run may write (``"*.xml"`` stands for every name ending in
/// ``.xml``); an existing ``target`` holding anything else is refused, so is a file in its
/// place. Creating the set is where a wrong output location fails: do it before any long
/// work. Without a commit (an exception, :meth:`abort`, the object going away) the new
/// directory is removed; one left by a killed process is removed by the next set for the
/// same target.
///
/// ```python
/// out = OutputSet("out", ["clusters.jsonl", "stats.json"])
/// try:
///     with open(os.path.join(out.dir, "stats.json"), "w") as f:
///         f.write("{}")
///     out.commit()
/// finally:
///     out.abort()  # nothing left behind if the commit was not reached
/// ```
#[pyclass(name = "OutputSet", module = "textreuse._native")]
#[derive(Debug)]
pub struct PyOutputSet {
    set: Option<OutputSet>,
    dir: PathBuf,
    target: PathBuf,
}

#[pymethods]
impl PyOutputSet {
    #[new]
    fn new(target: PathBuf, names: Vec<String>) -> PyResult<Self> {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let set = OutputSet::create(&target, &names).map_err(output_error)?;
        Ok(PyOutputSet {
            dir: set.dir().to_path_buf(),
            target: set.target().to_path_buf(),
            set: Some(set),
        })
    }

    /// The directory to write the new files into.
    #[getter]
    fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// The directory the files are in after :meth:`commit`.
    #[getter]
    fn target(&self) -> PathBuf {
        self.target.clone()
    }

    /// Makes the new files durable and swaps them in for the old ones with one rename.
    fn commit(&mut self, py: Python<'_>) -> PyResult<()> {
        let set = self
            .set
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this OutputSet was committed or aborted"))?;
        py.detach(|| set.commit()).map_err(output_error)
    }

    /// Removes the new directory and leaves ``target`` as it was (nothing happens after a
    /// commit).
    fn abort(&mut self) {
        self.set = None;
    }

    fn __repr__(&self) -> String {
        format!(
            "OutputSet({:?}, {})",
            self.target,
            if self.set.is_some() { "open" } else { "closed" }
        )
    }
}

/// Removes the temporary directories of this process's runs (new outputs not yet committed,
/// run directories): for a signal handler that is about to exit.
#[pyfunction]
pub fn remove_temporaries() {
    remove_all();
}
