//! `index_segment`: the persistent index's files (segments, deletion files, manifest). Fuzzed
//! documents are added in one or two commits (one segment each), some removed, the index
//! perhaps compacted, and the directory opened again. Properties (write -> read round trip):
//! every live document reads back with its id, title and text, in order, and removed ones are
//! gone; `contains` agrees; each unit of a live document's text, queried, finds that document's
//! entry at the same characters with estimated and exact Jaccard 1. Then bytes of one of the
//! files are changed: opening, querying, reading documents and writing must give results or a
//! typed error, never a panic. (The checksums catch such changes; `index_structure` recomputes
//! them to reach the checks behind.)
#![no_main]

#[path = "common.rs"]
mod common;

use std::path::PathBuf;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use textreuse_corpus::{DocId, Document};
use textreuse_index::{Index, IndexUnit, IndexWriter, Params, QueryOptions};

#[derive(Arbitrary, Debug)]
struct Doc {
    string_id: bool,
    title: String,
    text: String,
    /// Removed after both commits.
    remove: bool,
}

#[derive(Arbitrary, Debug)]
struct Input {
    unit: u8,
    docs: Vec<Doc>,
    /// Documents in the first commit (modulo their number + 1).
    first: u8,
    compact: bool,
    /// The file to damage (modulo the files), and (position, xor) pairs.
    damage_file: u8,
    damage: Vec<(u32, u8)>,
    /// A query text against the damaged index.
    query: String,
}

fn id_of(i: usize, d: &Doc) -> DocId {
    if d.string_id {
        DocId::from(format!("doc-{i}"))
    } else {
        DocId::from(i as u64)
    }
}

/// Everything a reader can be asked, on a possibly damaged index: errors allowed, panics not.
fn exercise(index: &Index, docs: &[Document], query: &str) {
    let _ = index.stats();
    let options = QueryOptions::new().verify(true).text(true);
    let _ = index.query_text(query, &options);
    for d in docs.iter().take(4) {
        let _ = index.contains(&d.id);
        let _ = index.query_text(&d.text, &options);
    }
    let total = index.stats().documents + index.stats().removed_documents;
    for n in 0..total.min(64) + 1 {
        let _ = index.document(n);
    }
    let mins = vec![7u64; index.signer().hashes()];
    let _ = index.query_signature(&mins, &options);
}

fuzz_target!(|input: Input| {
    let unit = [
        IndexUnit::Sentence,
        IndexUnit::Paragraph,
        IndexUnit::Document,
    ][usize::from(input.unit % 3)];
    let path: PathBuf = common::dir().join("index");
    let _ = std::fs::remove_dir_all(&path);
    let docs: Vec<Document> = input
        .docs
        .iter()
        .enumerate()
        .map(|(i, d)| Document::new(id_of(i, d), d.title.clone(), d.text.clone()))
        .collect();
    let first = usize::from(input.first) % (docs.len() + 1);
    {
        let mut writer = IndexWriter::create(&path, Params::new(unit)).unwrap();
        for (i, d) in docs.iter().enumerate() {
            if i == first {
                writer.commit().unwrap();
            }
            writer.add(d).unwrap();
        }
        writer.commit().unwrap();
        for (d, fd) in docs.iter().zip(&input.docs) {
            if fd.remove {
                assert_eq!(writer.remove(&d.id).unwrap(), 1);
            }
        }
        writer.commit().unwrap();
        if input.compact {
            writer.compact().unwrap();
        }
    }

    // Round trip.
    let index = Index::open(&path).unwrap();
    let live: Vec<&Document> = docs
        .iter()
        .zip(&input.docs)
        .filter(|(_, fd)| !fd.remove)
        .map(|(d, _)| d)
        .collect();
    let stats = index.stats();
    assert_eq!(stats.documents, live.len() as u64);
    let mut read = Vec::new();
    for n in 0..stats.documents + stats.removed_documents + 1 {
        if let Some(d) = index.document(n).unwrap() {
            read.push(d);
        }
    }
    assert_eq!(read.len(), live.len());
    for (got, want) in read.iter().zip(&live) {
        assert_eq!(
            (&got.id, &got.title, &got.text),
            (&want.id, &want.title, &want.text)
        );
    }
    for (d, fd) in docs.iter().zip(&input.docs) {
        assert_eq!(index.contains(&d.id).unwrap(), !fd.remove, "{:?}", d.id);
    }
    let options = QueryOptions::new().verify(true);
    for d in &live {
        for u in index.query_text(&d.text, &options).unwrap() {
            assert!(
                u.matches.iter().any(|m| m.id == d.id
                    && m.chars == u.chars
                    && m.estimated_jaccard == 1.0
                    && m.jaccard == Some(1.0)),
                "unit {:?} of {:?} does not find itself: {:?}",
                u.chars,
                d.id,
                u.matches
            );
        }
    }
    drop(index);

    // Damage one file.
    if input.damage.is_empty() {
        return;
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "LOCK")
        .collect();
    files.sort();
    let file = &files[usize::from(input.damage_file) % files.len()];
    let mut bytes = std::fs::read(file).unwrap();
    if bytes.is_empty() {
        return;
    }
    let len = bytes.len();
    for &(at, x) in &input.damage {
        bytes[at as usize % len] ^= x;
    }
    std::fs::write(file, &bytes).unwrap();
    if let Ok(index) = Index::open(&path) {
        exercise(&index, &docs, &input.query);
    }
    if let Ok(mut writer) = IndexWriter::open(&path) {
        exercise(writer.index(), &docs, &input.query);
        if let Some(d) = docs.first() {
            let _ = writer.remove(&d.id);
            let _ = writer.add(d);
        }
        let _ = writer.commit();
        let _ = writer.compact();
    }
});
