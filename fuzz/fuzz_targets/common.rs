//! What several targets share (each includes it with `#[path = "common.rs"] mod common;`).
#![allow(dead_code)] // each target uses what it needs
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

/// libFuzzer's panic hook aborts on every panic. The libraries catch the panics of some
/// decoders on damaged input (`textreuse_wikidump::CAUGHT_PANICS`: `mibz2`;
/// `textreuse_corpus::CAUGHT_PANICS`: `parquet`, `arrow`) and report the damage, so panics
/// located there unwind to them. Any other panic is still a finding.
pub fn tolerate_caught_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let file = info.location().map(|l| l.file()).unwrap_or("");
            let caught = textreuse_wikidump::CAUGHT_PANICS
                .iter()
                .chain(textreuse_corpus::CAUGHT_PANICS)
                .any(|c| file.contains(c));
            if !caught {
                abort_hook(info);
            }
        }));
    });
}
