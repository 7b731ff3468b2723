//! What a run leaves on disk: an output directory that changes as one ([`OutputSet`]) and a
//! private directory for temporary files ([`RunDir`]), both removed on every exit path.
//!
//! * An [`OutputSet`] is written into a fresh hidden directory beside its target
//!   (`.NAME.textreuse-new-PID-XXXXXX`) and [`committed`](OutputSet::commit) by fsyncing every
//!   file and swapping the directory in with one rename (`renameat2(RENAME_EXCHANGE)` on Linux),
//!   so a crash at any moment leaves the old results or the new ones, never a mix. Where the
//!   exchange is not available (other systems, file systems without it) the old directory is
//!   first renamed aside (`.NAME.textreuse-old-PID-XXXXXX`) and the new one renamed in; a crash
//!   between those two renames leaves no `NAME`, and the next [`OutputSet::create`] for it puts
//!   the old one back.
//! * A [`RunDir`] holds a run's spill files and text stores (`textreuse-run-PID-XXXXXX` in the
//!   temporary directory); it is removed when dropped.
//! * Both register their paths for [`remove_temporaries`], which a signal handler calls before
//!   the process exits (the CLI does on SIGINT, SIGTERM and SIGHUP), and both remove what a
//!   killed process (`kill -9`, a power cut) left behind: before creating its own directory,
//!   each looks for directories of its kind whose process is gone and removes them. (Whether a
//!   process is gone is read from `/proc`; where there is none, nothing is removed.)
//! * [`write_atomic`] replaces one file as one (a temporary file beside it, fsynced, renamed
//!   over it, and the directory fsynced), and [`sync_dir`] makes a directory's new names
//!   durable: the one way the workspace's crates write a file that must never be seen half
//!   written (the persistent index's manifest, a report).
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Why an output could not be written: what was being done and the file or directory. Recover
/// by pointing the output at a writable directory on a file system with space.
#[derive(Debug, thiserror::Error)]
#[error("{what} {}", path.display())]
pub struct OutputError {
    what: &'static str,
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

impl OutputError {
    /// The error of `what` (`"cannot write"`, say) failing on `path` with `source`.
    pub fn new(what: &'static str, path: &Path, source: std::io::Error) -> OutputError {
        OutputError {
            what,
            path: path.to_path_buf(),
            source,
        }
    }

    /// The file or directory that could not be written.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Writes `bytes` to `path` atomically and durably: into a temporary file beside it
/// (`.NAME.PID.tmp`, so a directory listing can recognize leftovers by the `.tmp` suffix),
/// fsynced, renamed over `path`, and the directory fsynced ([`sync_dir`]). A reader sees the old
/// file or the new one, never a part, and after a crash at any moment the same holds. On an
/// error the temporary file is removed and `path` is left as it was; the error is the I/O error
/// (callers name `path` in theirs).
///
/// ```
/// use textreuse_corpus::files::write_atomic;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("manifest.json");
/// write_atomic(&path, b"{}")?;
/// write_atomic(&path, b"{\"segments\": []}")?;
/// assert_eq!(std::fs::read(&path)?, b"{\"segments\": []}");
/// assert_eq!(std::fs::read_dir(dir.path())?.count(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    sync_dir(dir)
}

/// fsyncs a directory, so that its new entries (created files, renames) survive a crash. Does
/// nothing where directories cannot be opened as files (not Unix).
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Directories of this process to remove if it is interrupted: the [`RunDir`]s and the
/// uncommitted [`OutputSet`]s. Commits hold the lock while they rename, so that
/// [`remove_temporaries`] never runs in the middle of one.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn temporaries() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARIES.lock().unwrap_or_else(|e| e.into_inner())
}

fn unregister(path: &Path) {
    temporaries().retain(|p| p != path);
}

/// Removes every [`RunDir`] and uncommitted [`OutputSet`] of this process, now; for a signal
/// handler that then ends the process. A commit in progress finishes first (it holds the same
/// lock), so outputs are left old or new, never a mix. Errors are ignored: this is the last
/// thing a process does.
pub fn remove_temporaries() {
    let mut dirs = temporaries();
    for dir in dirs.drain(..) {
        // Other threads may still be creating files in it; a few passes catch those.
        for _ in 0..3 {
            if std::fs::remove_dir_all(&dir).is_ok() || !dir.exists() {
                break;
            }
        }
    }
}

/// A directory of results that changes as one: files are written into [`dir`](Self::dir), a
/// fresh directory beside the target, and [`commit`](Self::commit) swaps it in. Dropped
/// without a commit, it is removed and the target is left as it was.
///
/// ```
/// use textreuse_corpus::files::OutputSet;
///
/// let parent = tempfile::tempdir()?;
/// let out = parent.path().join("out");
/// let set = OutputSet::create(&out, &["a.txt", "b.txt"])?;
/// std::fs::write(set.dir().join("a.txt"), "new a")?;
/// std::fs::write(set.dir().join("b.txt"), "new b")?;
/// assert!(!out.exists()); // nothing changes before the commit
/// set.commit()?;
/// assert_eq!(std::fs::read_to_string(out.join("b.txt"))?, "new b");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct OutputSet {
    target: PathBuf,
    staging: PathBuf,
    /// Where the old result goes while the new one moves in, where the two cannot be swapped
    /// in one step: `.NAME.textreuse-old-` with the staging directory's unique suffix.
    aside: PathBuf,
}

impl OutputSet {
    /// Checks that `target` can be replaced and creates the directory the new files go into.
    /// `names` are the files a run may write there (`*.xml` stands for every name ending in
    /// `.xml`): an existing `target` holding anything else is refused (its files would be lost),
    /// so is a `target` that is a file. The parent of
    /// `target` is created if needed. Stale directories of killed runs for the same target are
    /// removed first (and an old result left aside by an interrupted replacement is put back).
    ///
    /// This is where a wrong `--out` fails: call it before any long work.
    pub fn create(target: impl AsRef<Path>, names: &[&str]) -> Result<OutputSet, OutputError> {
        let target = resolve(target.as_ref())?;
        let (parent, name) = split(&target)?;
        std::fs::create_dir_all(&parent).map_err(|e| {
            OutputError::new("cannot create the directory of the output", &parent, e)
        })?;
        restore_and_clean(&parent, &name, &target)?;
        match std::fs::symlink_metadata(&target) {
            Ok(meta) if !meta.is_dir() => {
                return Err(OutputError::new(
                    "the output must be a directory; a file is in the way:",
                    &target,
                    std::io::Error::from(std::io::ErrorKind::AlreadyExists),
                ));
            }
            Ok(_) => check_only_outputs(&target, names)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(OutputError::new("cannot read", &target, e)),
        }
        let suffix = format!("{}-", std::process::id());
        let prefix = format!(".{name}.textreuse-new-{suffix}");
        let staging = tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir_in(&parent)
            .map_err(|e| OutputError::new("cannot write the output", &target, e))?
            .keep();
        let unique = &staging.file_name().unwrap_or_default().to_string_lossy()[prefix.len()..];
        let aside = parent.join(format!(".{name}.textreuse-old-{suffix}{unique}"));
        temporaries().push(staging.clone());
        Ok(OutputSet {
            target,
            staging,
            aside,
        })
    }

    /// The directory to write the new files into.
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// The directory the files will be in after the commit.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Makes the new files durable (fsync of each file and of the directory) and swaps the new
    /// directory in for the old one with one rename, then removes the old one.
    pub fn commit(self) -> Result<(), OutputError> {
        sync_dir_tree(&self.staging)?;
        let (parent, _) = split(&self.target)?;
        let old = {
            let mut registered = temporaries();
            let old = if self.target.exists() {
                replace(&self.staging, &self.target, &self.aside)?
            } else {
                std::fs::rename(&self.staging, &self.target).map_err(|e| {
                    OutputError::new("cannot move the results into", &self.target, e)
                })?;
                None
            };
            registered.retain(|p| p != &self.staging);
            if let Some(old) = &old {
                // Until it is gone, the old result is a temporary like any other.
                registered.push(old.clone());
            }
            old
        };
        sync_output_dir(&parent)?;
        if let Some(old) = old {
            // The new results are in place; a failure here only leaves the old ones beside
            // them, which the next run for this target removes.
            let _ = std::fs::remove_dir_all(&old);
            unregister(&old);
        }
        // Commit consumed `self`; its Drop must not remove the (now committed) directory.
        std::mem::forget(self);
        Ok(())
    }
}

impl Drop for OutputSet {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.staging);
        unregister(&self.staging);
    }
}

/// A private directory for a run's temporary files (spill runs, text stores), removed when
/// dropped or by [`remove_temporaries`]; `textreuse-run-PID-XXXXXX` under the directory given
/// (or the system's temporary directory).
#[derive(Debug)]
pub struct RunDir {
    dir: tempfile::TempDir,
}

/// The prefix of [`RunDir`] names, before the process id.
const RUN_PREFIX: &str = "textreuse-run-";

impl RunDir {
    /// Creates the directory under `parent` (default: the system's temporary directory), after
    /// removing the run directories there whose process is gone.
    pub fn new_in(parent: Option<&Path>) -> Result<RunDir, OutputError> {
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        std::fs::create_dir_all(&parent)
            .map_err(|e| OutputError::new("cannot create the temporary directory", &parent, e))?;
        remove_stale(&parent, RUN_PREFIX);
        let dir = tempfile::Builder::new()
            .prefix(&format!("{RUN_PREFIX}{}-", std::process::id()))
            .tempdir_in(&parent)
            .map_err(|e| OutputError::new("cannot create a temporary directory in", &parent, e))?;
        temporaries().push(dir.path().to_path_buf());
        Ok(RunDir { dir })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        unregister(self.dir.path());
        // TempDir's own drop removes it.
    }
}

/// `target` with symbolic links and `.`/`..` resolved where it exists (so that the directory
/// swapped is the one the user meant, not a link to it).
fn resolve(target: &Path) -> Result<PathBuf, OutputError> {
    match std::fs::canonicalize(target) {
        Ok(path) => Ok(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(std::path::absolute(target)
            .map_err(|e| OutputError::new("cannot resolve", target, e))?),
        Err(e) => Err(OutputError::new("cannot resolve", target, e)),
    }
}

/// The parent directory and the file name of an absolute `target`.
fn split(target: &Path) -> Result<(PathBuf, String), OutputError> {
    match (target.parent(), target.file_name()) {
        (Some(parent), Some(name)) => Ok((parent.to_path_buf(), name.to_string_lossy().into())),
        _ => Err(OutputError::new(
            "cannot replace",
            target,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "an output needs a directory of its own, not a file system root",
            ),
        )),
    }
}

/// Refuses an existing output directory holding files a run would not write.
fn check_only_outputs(target: &Path, names: &[&str]) -> Result<(), OutputError> {
    let entries =
        std::fs::read_dir(target).map_err(|e| OutputError::new("cannot read", target, e))?;
    let mut foreign = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| OutputError::new("cannot read", target, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = names.iter().any(|n| match n.strip_prefix('*') {
            Some(suffix) => name.ends_with(suffix),
            None => *n == name,
        });
        if !ours {
            foreign.push(name);
        }
    }
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    let listed = if foreign.len() > 3 {
        format!("{} and {} more", foreign[..3].join(", "), foreign.len() - 3)
    } else {
        foreign.join(", ")
    };
    Err(OutputError::new(
        "the output directory holds files a run does not write, which replacing it would lose; \
         choose a new or empty directory:",
        target,
        std::io::Error::new(std::io::ErrorKind::AlreadyExists, listed),
    ))
}

/// Replaces the directory `target` with `new`; returns where the old one now is (`new`'s
/// place, or `aside`).
fn replace(new: &Path, target: &Path, aside: &Path) -> Result<Option<PathBuf>, OutputError> {
    #[cfg(target_os = "linux")]
    {
        if exchange(new, target).is_ok() {
            // `new` now names the old directory.
            return Ok(Some(new.to_path_buf()));
        }
    }
    move_aside_and_in(new, target, aside)
}

/// Renames `target` to `aside`, then `new` to `target`: a crash between the two leaves the old
/// result under `aside`, which the next [`OutputSet::create`] puts back.
fn move_aside_and_in(
    new: &Path,
    target: &Path,
    aside: &Path,
) -> Result<Option<PathBuf>, OutputError> {
    std::fs::rename(target, aside)
        .map_err(|e| OutputError::new("cannot move the old results out of", target, e))?;
    std::fs::rename(new, target)
        .map_err(|e| OutputError::new("cannot move the results into", target, e))?;
    Ok(Some(aside.to_path_buf()))
}

/// `renameat2(a, b, RENAME_EXCHANGE)`: swaps two directories atomically.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths that outlive the call; renameat2 reads them
    // only during the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Before a new output set for `name`: puts back an old result left aside by an interrupted
/// replacement (when the target is missing) and removes stale new and old directories of
/// processes that are gone.
fn restore_and_clean(parent: &Path, name: &str, target: &Path) -> Result<(), OutputError> {
    let old_prefix = format!(".{name}.textreuse-old-");
    if !target.exists()
        && let Some(old) = stale(parent, &old_prefix).into_iter().next()
    {
        std::fs::rename(&old, target)
            .map_err(|e| OutputError::new("cannot restore the previous results into", target, e))?;
    }
    remove_stale(parent, &old_prefix);
    remove_stale(parent, &format!(".{name}.textreuse-new-"));
    Ok(())
}

/// Removes the entries of `dir` named `PREFIX<pid>-...` whose process is gone.
fn remove_stale(dir: &Path, prefix: &str) {
    for path in stale(dir, prefix) {
        let _ = std::fs::remove_dir_all(&path);
    }
}

/// The entries of `dir` named `PREFIX<pid>-...` whose process is gone, in name order.
fn stale(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    // Without /proc every process counts as running, so nothing is removed.
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    if !Path::new("/proc/self").exists() {
        return Vec::new();
    }
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
                return false;
            };
            match rest.split('-').next().map(str::parse::<u32>) {
                Some(Ok(pid)) => {
                    pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists()
                }
                _ => false,
            }
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// fsyncs every file under `dir` (recursively) and the directories themselves.
fn sync_dir_tree(dir: &Path) -> Result<(), OutputError> {
    let entries = std::fs::read_dir(dir).map_err(|e| OutputError::new("cannot read", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| OutputError::new("cannot read", dir, e))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| OutputError::new("cannot read", &path, e))?;
        if kind.is_dir() {
            sync_dir_tree(&path)?;
        } else if kind.is_file() {
            File::open(&path)
                .and_then(|f| f.sync_all())
                .map_err(|e| OutputError::new("cannot write to disk", &path, e))?;
        }
    }
    sync_output_dir(dir)
}

/// [`sync_dir`], its error naming the directory.
fn sync_output_dir(dir: &Path) -> Result<(), OutputError> {
    sync_dir(dir).map_err(|e| OutputError::new("cannot write to disk", dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(dir: &Path) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read_to_string(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn commit_replaces_the_whole_directory() {
        let parent = tempfile::tempdir().unwrap();
        let out = parent.path().join("out");
        let set = OutputSet::create(&out, &["a", "b"]).unwrap();
        std::fs::write(set.dir().join("a"), "1").unwrap();
        std::fs::write(set.dir().join("b"), "1").unwrap();
        set.commit().unwrap();
        // The second run writes only `a`: `b` of the first run must not survive beside it.
        let set = OutputSet::create(&out, &["a", "b"]).unwrap();
        std::fs::write(set.dir().join("a"), "2").unwrap();
        assert_eq!(
            read_all(&out),
            [("a".into(), "1".into()), ("b".into(), "1".into())]
        );
        set.commit().unwrap();
        assert_eq!(read_all(&out), [("a".to_string(), "2".to_string())]);
        assert_eq!(
            names(parent.path()),
            ["out"],
            "no staging or old directory is left"
        );
    }

    #[test]
    fn a_set_dropped_without_commit_leaves_the_old_results() {
        let parent = tempfile::tempdir().unwrap();
        let out = parent.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("a"), "old").unwrap();
        let set = OutputSet::create(&out, &["a"]).unwrap();
        std::fs::write(set.dir().join("a"), "new").unwrap();
        drop(set);
        assert_eq!(read_all(&out), [("a".to_string(), "old".to_string())]);
        assert_eq!(names(parent.path()), ["out"]);
    }

    #[test]
    fn foreign_files_and_files_in_the_way_are_refused_before_anything_is_written() {
        let parent = tempfile::tempdir().unwrap();
        let out = parent.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("thesis.tex"), "mine").unwrap();
        let e = OutputSet::create(&out, &["a"]).unwrap_err();
        assert!(
            e.to_string().contains("choose a new or empty directory"),
            "{e}"
        );
        let why = std::error::Error::source(&e).unwrap().to_string();
        assert!(why.contains("thesis.tex"), "{why}");
        let file = parent.path().join("file");
        std::fs::write(&file, "").unwrap();
        let e = OutputSet::create(&file, &["a"]).unwrap_err();
        assert_eq!(e.path(), std::fs::canonicalize(&file).unwrap());
        assert_eq!(names(parent.path()), ["file", "out"]);
    }

    /// The replacement where directories cannot be swapped in one step, interrupted between
    /// its two renames: the next set puts the old result back.
    #[test]
    fn an_interrupted_replacement_is_repaired() {
        let parent = tempfile::tempdir().unwrap();
        let out = parent.path().join("out");
        let first = OutputSet::create(&out, &["a"]).unwrap();
        std::fs::write(first.dir().join("a"), "old").unwrap();
        first.commit().unwrap();
        let second = OutputSet::create(&out, &["a"]).unwrap();
        std::fs::write(second.dir().join("a"), "new").unwrap();
        let aside = second.aside.clone();
        let name = aside.file_name().unwrap().to_string_lossy().into_owned();
        let staging = second
            .dir()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert_eq!(
            name.strip_prefix(".out.textreuse-old-"),
            staging.strip_prefix(".out.textreuse-new-")
        );
        // Only the first rename happens, as if the process died before the second; its
        // directories belong to a dead process.
        std::fs::rename(&out, &aside).unwrap();
        let dead = 1 << 23;
        let pid = std::process::id();
        let renamed = |p: &Path| {
            let to = p.with_file_name(
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .replace(&format!("-{pid}-"), &format!("-{dead}-")),
            );
            std::fs::rename(p, &to).unwrap();
        };
        renamed(&aside);
        renamed(second.dir());
        std::mem::forget(second);
        OutputSet::create(&out, &["a"]).unwrap();
        assert_eq!(read_all(&out), [("a".to_string(), "old".to_string())]);
        assert_eq!(names(parent.path()), ["out"]);
        // Uninterrupted, the fallback leaves the new result and returns where the old one is.
        let third = OutputSet::create(&out, &["a"]).unwrap();
        std::fs::write(third.dir().join("a"), "third").unwrap();
        let old = move_aside_and_in(third.dir(), &out, &third.aside)
            .unwrap()
            .unwrap();
        assert_eq!(read_all(&out), [("a".to_string(), "third".to_string())]);
        assert_eq!(read_all(&old), [("a".to_string(), "old".to_string())]);
        std::mem::forget(third);
    }

    #[test]
    fn leftovers_of_killed_processes_are_removed_and_an_old_result_put_back() {
        let parent = tempfile::tempdir().unwrap();
        let out = parent.path().join("out");
        // A pid that cannot be running: above the kernel's limit (2^22).
        let dead = 1 << 23;
        let new = parent.path().join(format!(".out.textreuse-new-{dead}-abc"));
        let old = parent.path().join(format!(".out.textreuse-old-{dead}-abc"));
        let run = parent.path().join(format!("{RUN_PREFIX}{dead}-abc"));
        // A directory of a live process (this one's parent, pid 1 in a container) stays.
        let live = parent.path().join(format!("{RUN_PREFIX}1-abc"));
        for d in [&new, &old, &run, &live] {
            std::fs::create_dir(d).unwrap();
        }
        std::fs::write(old.join("a"), "old").unwrap();
        let set = OutputSet::create(&out, &["a"]).unwrap();
        assert_eq!(read_all(&out), [("a".to_string(), "old".to_string())]);
        assert!(!new.exists() && !old.exists());
        let tmp = RunDir::new_in(Some(parent.path())).unwrap();
        assert!(!run.exists());
        assert!(live.exists());
        let tmp_path = tmp.path().to_path_buf();
        drop(tmp);
        assert!(!tmp_path.exists());
        drop(set);
    }
}
