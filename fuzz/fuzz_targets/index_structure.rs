//! `index_structure`: the checks behind the index's checksums. An index is built from fuzzed
//! documents (one or two commits, some documents removed, perhaps compacted); then values in
//! its files change (bytes or numbers in a chosen section of a segment, in a deletion file,
//! fields of the manifest) and every checksum is recomputed
//! (`textreuse_index::fuzzing::reseal`), so that only the structural checks stand between the
//! change and a reader. (`index_segment` changes bytes without resealing: the checksums catch
//! those.) Properties:
//!
//! - nothing panics;
//! - `Index::verify` is complete: when it passes, opening, every kind of query, reading every
//!   document and `contains` answer without error, every document read back is found by its
//!   id, the documents read back are as many as `stats` says, and `IndexWriter::compact`
//!   succeeds, keeping the live documents in order, into an index that verifies;
//! - when `Index::verify` fails, `compact` fails too (or the writer does not open) and every
//!   file is left as it was; removing, adding and committing then give errors or results.
#![no_main]

#[path = "common.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use textreuse_corpus::{DocId, Document};
use textreuse_index::{Error, Index, IndexUnit, IndexWriter, Params, QueryOptions};

#[derive(Arbitrary, Debug)]
struct Doc {
    string_id: bool,
    title: String,
    text: Text,
    /// Removed after both commits.
    remove: bool,
}

#[derive(Arbitrary, Debug)]
enum Text {
    Fuzzed(String),
    /// A paragraph of `testdata/index/docs.jsonl` (modulo their number): real sentences, many
    /// entries.
    Fixture(u8),
}

/// The texts of `testdata/index/docs.jsonl`.
fn fixtures() -> &'static [String] {
    static TEXTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/index/docs.jsonl");
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["text"].as_str().unwrap().to_string()
            })
            .collect()
    })
}

fn text_of(t: &Text) -> String {
    match t {
        Text::Fuzzed(s) => s.clone(),
        Text::Fixture(i) => fixtures()[usize::from(*i) % fixtures().len()].clone(),
    }
}

/// A new value at a position: the byte XORed, or a little-endian `u32` or `u64` written over
/// the aligned 4 or 8 bytes there (so that counts, offsets and numbers take any value).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Value {
    Xor(u8),
    U32(u32),
    U64(u64),
}

#[derive(Arbitrary, Debug)]
enum Change {
    /// In a segment file (modulo the segments): a section (modulo 10: the header, the 8
    /// sections in the header's offsets, the checksum table) and a position in it (modulo its
    /// length).
    Segment {
        file: u8,
        section: u8,
        at: u32,
        value: Value,
    },
    /// In a deletion file (modulo them), anywhere.
    Deletion { file: u8, at: u16, value: Value },
    /// A field of the manifest (modulo them; of segment entry `segment` modulo their number).
    Manifest { segment: u8, field: u8, value: u64 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    unit: u8,
    signature_bytes: u8,
    store_text: bool,
    docs: Vec<Doc>,
    /// Documents in the first commit (modulo their number + 1).
    first: u8,
    compact: bool,
    /// At most 8 are applied.
    changes: Vec<Change>,
    query: String,
}

fn id_of(i: usize, d: &Doc) -> DocId {
    if d.string_id {
        DocId::from(format!("doc-{i}"))
    } else {
        DocId::from(i as u64)
    }
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

fn files_ending(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().contains(pattern))
        .collect();
    files.sort();
    files
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Applies `value` at byte `at` of `range` of `bytes` (aligned down for numbers).
fn apply(bytes: &mut [u8], range: std::ops::Range<usize>, at: u32, value: Value) {
    let range = range.start.min(bytes.len())..range.end.min(bytes.len());
    if range.is_empty() {
        return;
    }
    let p = range.start + at as usize % range.len();
    let mut put = |width: usize, le: &[u8]| {
        let p = p / width * width;
        if p + width <= bytes.len() {
            bytes[p..p + width].copy_from_slice(le);
        }
    };
    match value {
        Value::Xor(x) => bytes[p] ^= x,
        Value::U32(v) => put(4, &v.to_le_bytes()),
        Value::U64(v) => put(8, &v.to_le_bytes()),
    }
}

/// The sections of a segment file, from its header (the format of `crates/index/src/segment.rs`:
/// magic, then 22 `u64` of which 7..15 are the section offsets, 15 the checksum table's and 16
/// the length): header, 8 sections, table.
fn sections(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    const HEADER_LEN: usize = 8 + 8 * 22;
    if bytes.len() < HEADER_LEN {
        return vec![0..bytes.len()];
    }
    let field = |i: usize| le_u64(bytes, 8 + 8 * i) as usize;
    let mut bounds: Vec<usize> = (7..16).map(field).collect();
    bounds.push(bytes.len());
    let mut out = vec![0..HEADER_LEN];
    out.extend(bounds.windows(2).map(|w| w[0]..w[1].max(w[0])));
    out
}

fn change_manifest(dir: &Path, segment: u8, field: u8, value: u64) {
    let path = dir.join("MANIFEST");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    const TOP: [&str; 2] = ["generation", "next_segment"];
    const SEGMENT: [&str; 8] = [
        "docs",
        "entries",
        "pairs",
        "bytes",
        "deleted_docs",
        "deleted_entries",
        "name",
        "deleted",
    ];
    let field = usize::from(field) % (TOP.len() + SEGMENT.len());
    if field < TOP.len() {
        m[TOP[field]] = value.into();
    } else {
        let segs = m["segments"].as_array_mut().unwrap();
        if segs.is_empty() {
            return;
        }
        let n = segs.len();
        let s = &mut segs[usize::from(segment) % n];
        let name = SEGMENT[field - TOP.len()];
        s[name] = match name {
            // Another segment's name, or one of no file.
            "name" => format!("seg-{:06}", value % 5).into(),
            // None, or another generation's name.
            "deleted" if value % 4 == 0 => serde_json::Value::Null,
            "deleted" => format!("{}.del-{:06}", s["name"].as_str().unwrap(), value % 6).into(),
            _ => value.into(),
        };
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
}

/// Reads everything a reader can be asked; the first error or disagreement, and the
/// documents read back (with their numbers).
fn exercise(
    index: &Index,
    docs: &[Document],
    query: &str,
    store_text: bool,
) -> (Option<String>, Vec<(u64, Document)>) {
    let mut first = None;
    let mut note = |r: Result<(), String>| {
        if let Err(e) = r
            && first.is_none()
        {
            first = Some(e);
        }
    };
    let mut note_err = |r: Result<(), Error>| note(r.map_err(|e| e.to_string()));
    let mut problems = Vec::new();
    let stats = index.stats();
    let options = QueryOptions::new().verify(store_text).text(true);
    let mut live = Vec::new();
    let total = stats.documents + stats.removed_documents;
    for n in 0..total.min(256) + 2 {
        note_err(index.document(n).map(|d| {
            if let Some(d) = d {
                live.push((n, d));
            }
        }));
    }
    for (_, d) in &live {
        note_err(index.contains(&d.id).map(|found| {
            if !found {
                problems.push(format!(
                    "document {:?} reads back, its id is not found",
                    d.id
                ));
            }
        }));
    }
    for d in docs.iter().take(8) {
        note_err(index.contains(&d.id).map(drop));
        note_err(index.query_text(&d.text, &options).map(drop));
    }
    note_err(index.query_text(query, &options).map(drop));
    note_err(index.query_top_k(query, 3, &options).map(drop));
    note_err(index.query_containment(query, 0.5, &options).map(drop));
    note_err(index.candidate_documents(query, 5).map(drop));
    let mut units = index.recipe().units(query);
    let mins = units
        .pop()
        .map_or_else(|| vec![7u64; index.signer().hashes()], |u| u.mins);
    note_err(index.query_signature(&mins, &options).map(drop));
    note_err(index.query_top_k(&mins, 3, &options).map(drop));
    if live.len() as u64 != stats.documents {
        problems.push(format!(
            "{} documents read back, stats say {}",
            live.len(),
            stats.documents
        ));
    }
    (first.or(problems.into_iter().next()), live)
}

fn same(a: &[(u64, Document)], b: &[(u64, Document)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((_, x), (_, y))| (&x.id, &x.title, &x.text) == (&y.id, &y.title, &y.text))
}

fuzz_target!(|input: Input| {
    let unit = [
        IndexUnit::Sentence,
        IndexUnit::Paragraph,
        IndexUnit::Document,
        IndexUnit::Chunk,
    ][usize::from(input.unit % 4)];
    let mut params = Params::new(unit);
    // Short fuzzed texts still make entries.
    params.min_shingles = 1;
    params.min_words = 3;
    params.signature_bytes = [1, 2, 4, 8][usize::from(input.signature_bytes % 4)];
    params.store_text = input.store_text;
    let path: PathBuf = common::dir().join("index");
    let _ = std::fs::remove_dir_all(&path);
    let docs: Vec<Document> = input
        .docs
        .iter()
        .take(64)
        .enumerate()
        .map(|(i, d)| Document::new(id_of(i, d), d.title.clone(), text_of(&d.text)))
        .collect();
    let first = usize::from(input.first) % (docs.len() + 1);
    {
        let mut writer = IndexWriter::create(&path, params).unwrap();
        for (i, d) in docs.iter().enumerate() {
            if i == first {
                writer.commit().unwrap();
            }
            writer.add(d).unwrap();
        }
        writer.commit().unwrap();
        for (d, fd) in docs.iter().zip(&input.docs) {
            if fd.remove {
                writer.remove(&d.id).unwrap();
            }
        }
        writer.commit().unwrap();
        if input.compact {
            writer.compact().unwrap();
        }
    }
    Index::verify(&path).expect("a new index verifies");

    // Change values, then make every checksum right again.
    if input.changes.is_empty() {
        return;
    }
    for change in input.changes.iter().take(8) {
        match *change {
            Change::Segment {
                file,
                section,
                at,
                value,
            } => {
                let segs = files_ending(&path, ".seg");
                if segs.is_empty() {
                    continue;
                }
                let file = &segs[usize::from(file) % segs.len()];
                let mut bytes = std::fs::read(file).unwrap();
                let sections = sections(&bytes);
                let range = sections[usize::from(section) % sections.len()].clone();
                apply(&mut bytes, range, at, value);
                std::fs::write(file, &bytes).unwrap();
            }
            Change::Deletion { file, at, value } => {
                let dels = files_ending(&path, ".del-");
                if dels.is_empty() {
                    continue;
                }
                let file = &dels[usize::from(file) % dels.len()];
                let mut bytes = std::fs::read(file).unwrap();
                let len = bytes.len();
                apply(&mut bytes, 0..len, u32::from(at), value);
                std::fs::write(file, &bytes).unwrap();
            }
            Change::Manifest {
                segment,
                field,
                value,
            } => change_manifest(&path, segment, field, value),
        }
    }
    textreuse_index::fuzzing::reseal(&path).unwrap();

    let before = snapshot(&path);
    let verified = Index::verify(&path);
    let mut live_before = None;
    match Index::open(&path) {
        Ok(index) => {
            let (error, live) = exercise(&index, &docs, &input.query, input.store_text);
            if let (Ok(_), Some(e)) = (&verified, error) {
                panic!("verify passed, yet a read failed: {e}");
            }
            live_before = Some(live);
        }
        Err(e) => assert!(verified.is_err(), "verify passed, yet open failed: {e}"),
    }
    match IndexWriter::open(&path) {
        Ok(mut writer) => {
            let compacted = writer.compact();
            drop(writer);
            match &verified {
                Ok(_) => {
                    if let Err(e) = compacted {
                        panic!("verify passed, yet compact failed: {e}");
                    }
                    if let Err(e) = Index::verify(&path) {
                        panic!("the compacted index does not verify: {e}");
                    }
                    let index = Index::open(&path).unwrap();
                    let (error, live) = exercise(&index, &docs, &input.query, input.store_text);
                    assert!(error.is_none(), "after compact: {error:?}");
                    let want = live_before.expect("opened");
                    assert!(same(&live, &want), "compact changed the documents");
                }
                Err(e) => {
                    assert!(
                        compacted.is_err(),
                        "verify failed ({e}), yet compact succeeded"
                    );
                    assert!(snapshot(&path) == before, "a failed compact changed files");
                }
            }
        }
        Err(e) => {
            assert!(
                verified.is_err(),
                "verify passed, yet the writer failed: {e}"
            );
            assert!(snapshot(&path) == before, "a failed writer changed files");
        }
    }
    // A removal, an addition and a commit on the damaged index: results or errors, never a
    // panic.
    if verified.is_err()
        && let Ok(mut writer) = IndexWriter::open(&path)
    {
        if let Some(d) = docs.first() {
            let _ = writer.remove(&d.id);
            let _ = writer.add(d);
        }
        let _ = writer.commit();
    }
});
