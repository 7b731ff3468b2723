//! What several targets share (each includes it with `#[path = "common.rs"] mod common;`).
use std::path::Path;
use std::sync::OnceLock;

/// A private directory for the files a target writes, in memory (`/dev/shm`) where there is one;
/// the same for every run of the process.
pub fn dir() -> &'static Path {
    static D: OnceLock<tempfile::TempDir> = OnceLock::new();
    D.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            tempfile::tempdir_in(shm).unwrap()
        } else {
            tempfile::tempdir().unwrap()
        }
    })
    .path()
}
