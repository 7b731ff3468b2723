//! `index_files`: deletion files and manifests. The input's bytes replace a file of the
//! reference index `testdata/index/v2` (16 documents in one segment, document 2 removed): its
//! deletion file when they start with the deletion files' magic `TRIXDEL`, else its
//! `MANIFEST`; the corpus starts from those two files. Each input is tried twice: as it is,
//! and resealed (`textreuse_index::fuzzing::reseal` recomputes every checksum, and for a
//! deletion file the manifest's count of removed documents is set to the file's), so that the
//! checks behind the checksums are reached. Properties:
//!
//! - opening, verifying, reading and writing give results or typed errors, never a panic;
//! - a deletion file is accepted only when its list is sorted, without repeats and inside
//!   the segment, and then exactly the listed documents are gone;
//! - when `Index::verify` passes, a writer adds a document, commits and compacts without error
//!   into an index that verifies, holding the documents it held and the new one;
//! - when it fails, `compact` fails too (or the writer does not open) and every file is left
//!   as it was.
#![no_main]

#[path = "common.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use textreuse_corpus::{DocId, Document};
use textreuse_index::{Index, IndexWriter, QueryOptions};

const DEL: &str = "seg-000001.del-000002";
/// Documents in the reference index's segment.
const DOCS: u64 = 16;

fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/index")
}

/// The texts of `testdata/index/docs.jsonl`, as queries.
fn texts() -> &'static [String] {
    static TEXTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| {
        std::fs::read_to_string(reference().join("docs.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["text"].as_str().unwrap().to_string()
            })
            .collect()
    })
}

/// Every file but the lock, by name.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() != "LOCK")
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The list of a deletion file as its format says (magic, index id, segment, generation,
/// count, the documents as `u32`, padding, checksum), if its count fits its size.
fn listed(bytes: &[u8]) -> Option<Vec<u32>> {
    if bytes.len() < 48 || bytes.len() % 8 != 0 {
        return None;
    }
    let n = u64::from_le_bytes(bytes[32..40].try_into().unwrap());
    let want = n.checked_mul(4)?.checked_add(48)?.div_ceil(8) * 8;
    if want != bytes.len() as u64 {
        return None;
    }
    Some(
        bytes[40..40 + 4 * n as usize]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

/// The documents read back (number and document), or the first error.
fn read_all(index: &Index) -> Result<Vec<(u64, Document)>, textreuse_index::Error> {
    let _ = index.stats();
    let mut live = Vec::new();
    for n in 0..DOCS + 2 {
        if let Some(d) = index.document(n)? {
            live.push((n, d));
        }
    }
    for (_, d) in &live {
        index.contains(&d.id)?;
    }
    let options = QueryOptions::new().verify(true);
    for t in texts().iter().take(3) {
        index.query_text(t, &options)?;
        index.query_top_k(t.as_str(), 3, &options)?;
    }
    Ok(live)
}

fn ids(docs: &[(u64, Document)]) -> Vec<String> {
    docs.iter().map(|(_, d)| d.id.to_string()).collect()
}

fn run(dir: &Path, data: &[u8], deletion: bool, reseal: bool) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    for name in ["MANIFEST", "seg-000001.seg", DEL] {
        std::fs::copy(reference().join("v2").join(name), dir.join(name)).unwrap();
    }
    let file = dir.join(if deletion { DEL } else { "MANIFEST" });
    std::fs::write(&file, data).unwrap();
    if reseal {
        if deletion && let Some(list) = listed(data) {
            // The manifest counts the removed documents: make it agree, so that the list
            // itself is what is checked.
            let path = dir.join("MANIFEST");
            let mut m: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            m["segments"][0]["deleted_docs"] = list.len().into();
            std::fs::write(&path, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
        }
        textreuse_index::fuzzing::reseal(dir).unwrap();
    }
    let before = snapshot(dir);
    let verified = Index::verify(dir);
    let read = Index::open(dir).map(|index| read_all(&index));
    if verified.is_ok() {
        assert!(
            matches!(read, Ok(Ok(_))),
            "verify passed, yet reading failed: {read:?}"
        );
    }
    if deletion && let Ok(Ok(live)) = &read {
        // Accepted: the file's list was sorted, without repeats, inside the segment, and it
        // is what was removed.
        let bytes = std::fs::read(&file).unwrap();
        let list = listed(&bytes).expect("an accepted deletion file reads as one");
        assert!(
            list.windows(2).all(|w| w[0] < w[1]) && list.iter().all(|&d| u64::from(d) < DOCS),
            "a deletion file listing {list:?} was accepted"
        );
        let gone: Vec<u64> = (0..DOCS)
            .filter(|n| !live.iter().any(|(m, _)| m == n))
            .collect();
        let list: Vec<u64> = list.into_iter().map(u64::from).collect();
        assert_eq!(
            gone, list,
            "removed documents differ from the deletion file"
        );
    }

    match IndexWriter::open(dir) {
        Ok(mut writer) => {
            if let Err(e) = &verified {
                assert!(
                    writer.compact().is_err(),
                    "verify failed ({e}), yet compact succeeded"
                );
                drop(writer);
                assert!(snapshot(dir) == before, "a failed compact changed files");
                return;
            }
            let new = Document::new(DocId::from("fuzz-new"), "New", texts()[0].clone());
            let steps = writer
                .add(&new)
                .map(drop)
                .and_then(|()| writer.commit())
                .and_then(|()| writer.compact());
            drop(writer);
            if let Err(e) = steps {
                panic!("verify passed, yet add, commit or compact failed: {e}");
            }
            if let Err(e) = Index::verify(dir) {
                panic!("verify passed, and fails after add, commit and compact: {e}");
            }
            let index = Index::open(dir).unwrap();
            let after = read_all(&index).unwrap();
            let mut want = ids(&read.unwrap().unwrap());
            want.push("fuzz-new".into());
            assert_eq!(ids(&after), want, "the writer lost or changed documents");
        }
        Err(e) => {
            assert!(
                verified.is_err(),
                "verify passed, yet the writer failed: {e}"
            );
            assert!(snapshot(dir) == before, "a failed writer changed files");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let dir = common::dir().join("index");
    let deletion = data.starts_with(b"TRIXDEL");
    run(&dir, data, deletion, false);
    run(&dir, data, deletion, true);
});
