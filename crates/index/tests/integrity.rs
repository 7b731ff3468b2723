//! The index knows its own files: damage, foreign and swapped files, a lost lock, a file
//! truncated while mapped and a failed commit are reported as such (issue #51, defects 3, 5,
//! 10 and 13). The inputs are the reference indexes under `testdata/index/` (see its README),
//! copied and then damaged as each test says.
use std::fs;
use std::path::{Path, PathBuf};

use textreuse_corpus::{DocId, Document};
use textreuse_index::{Error, Index, IndexUnit, IndexWriter, Match, Params, QueryOptions};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/index")
        .join(name)
}

/// The documents the reference indexes were built from (`docs.jsonl`).
fn docs() -> Vec<Document> {
    fs::read_to_string(testdata("docs.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            Document::new(
                v["id"].as_str().unwrap(),
                v["title"].as_str().unwrap(),
                v["text"].as_str().unwrap(),
            )
        })
        .collect()
}

/// A copy of the reference index `name` in a new temporary directory.
fn copy(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in fs::read_dir(testdata(name)).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    dir
}

fn is_corrupt<T: std::fmt::Debug>(r: &Result<T, Error>) -> bool {
    matches!(r, Err(Error::Corrupt { .. }))
}

/// Every answer a reader gives on the index: the matches of every document's text, each
/// document, and `contains` for every id.
type Answers = (Vec<Vec<(u64, String)>>, Vec<Option<String>>, Vec<bool>);

fn answers(index: &Index) -> Result<Answers, Error> {
    let options = QueryOptions::new().verify(true);
    let docs = docs();
    let mut found = Vec::new();
    for d in &docs {
        let units = index.query_text(&d.text, &options)?;
        let mut ids: Vec<(u64, String)> = units
            .iter()
            .flat_map(|u| {
                u.matches
                    .iter()
                    .map(|m: &Match| (m.entry, m.id.to_string()))
            })
            .collect();
        ids.sort();
        found.push(ids);
    }
    let mut stored = Vec::new();
    for n in 0..docs.len() as u64 + 1 {
        stored.push(index.document(n)?.map(|d| d.text));
    }
    let mut contains = Vec::new();
    for d in &docs {
        contains.push(index.contains(&d.id)?);
    }
    Ok((found, stored, contains))
}

#[test]
fn the_reference_index_verifies_and_answers() {
    let dir = copy("v2");
    let stats = Index::verify(dir.path()).unwrap();
    assert_eq!((stats.documents, stats.removed_documents), (15, 1));
    let index = Index::open(dir.path()).unwrap();
    let (found, _, contains) = answers(&index).unwrap();
    // The copy of paragraph 1 is found by paragraph 1's sentences, and p3 was removed.
    assert!(found[0].iter().any(|(_, id)| id == "p1-copy"));
    assert!(!contains[2]);
    assert!(contains.iter().filter(|c| **c).count() == 15);
}

#[test]
fn an_index_of_the_first_format_is_named_as_such() {
    let dir = copy("v1");
    for r in [
        Index::open(dir.path()).map(|_| ()),
        IndexWriter::open(dir.path()).map(|_| ()),
    ] {
        match r {
            Err(Error::OldFormat { version: 1, .. }) => {}
            other => panic!("{other:?}"),
        }
    }
    let e = Index::open(dir.path()).unwrap_err().to_string();
    assert!(e.contains("earlier build") && e.contains("rebuild"), "{e}");
}

/// Defects 5 and 10: one changed byte anywhere in a segment is either never read (the
/// answers are the good index's) or reported as damage, never used and never a panic;
/// `verify` finds every one; `compact` refuses to rewrite the segment and leaves the index as
/// it was.
#[test]
fn a_changed_byte_anywhere_in_a_segment_is_reported_never_used() {
    let good_dir = copy("v2");
    let good = answers(&Index::open(good_dir.path()).unwrap()).unwrap();
    let seg_name = "seg-000001.seg";
    let bytes = fs::read(good_dir.path().join(seg_name)).unwrap();
    // Every header byte, and bytes spread over the rest (the directory, the pairs, the
    // signatures, entries, documents, ids, the checksum table, its last byte).
    let mut positions: Vec<usize> = (0..200).collect();
    positions.extend((200..bytes.len()).step_by(1009));
    positions.push(bytes.len() - 1);
    let (mut at_open, mut at_query) = (0, 0);
    for &at in &positions {
        let dir = copy("v2");
        let path = dir.path().join(seg_name);
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        fs::write(&path, &bad).unwrap();
        match Index::open(dir.path()) {
            Err(Error::Corrupt { .. }) => at_open += 1,
            Err(e) => panic!("byte {at}: {e}"),
            Ok(index) => {
                let got = answers(&index);
                assert!(
                    is_corrupt(&got) || got.as_ref().ok() == Some(&good),
                    "byte {at}: a wrong answer from a damaged segment"
                );
                at_query += usize::from(got.is_err());
            }
        }
        assert!(
            is_corrupt(&Index::verify(dir.path())),
            "byte {at}: verify passed"
        );
        let manifest = fs::read(dir.path().join("MANIFEST")).unwrap();
        if let Ok(mut w) = IndexWriter::open(dir.path()) {
            assert!(is_corrupt(&w.compact()), "byte {at}: compacted");
            drop(w);
            assert_eq!(
                fs::read(&path).unwrap(),
                bad,
                "byte {at}: segment rewritten"
            );
            assert_eq!(fs::read(dir.path().join("MANIFEST")).unwrap(), manifest);
        }
    }
    assert!(
        at_open > 100 && at_query > 10,
        "{at_open} at open, {at_query} at a query"
    );
}

/// Found by `index_structure` (testdata/fuzz/index_structure/crash-9fd077c8...): `compact` of
/// an index with nothing to merge (one segment, no removals) succeeded on a damaged segment
/// without reading it. Now it checks the whole index first and refuses, changing nothing.
#[test]
fn compact_with_nothing_to_merge_still_refuses_damage() {
    let dir = copy("v2");
    let mut w = IndexWriter::open(dir.path()).unwrap();
    w.compact().unwrap();
    drop(w);
    let seg = files(dir.path(), ".seg");
    assert_eq!(seg.len(), 1, "{seg:?}");
    assert!(files(dir.path(), ".del-").is_empty());
    let path = dir.path().join(&seg[0]);
    let mut bad = fs::read(&path).unwrap();
    let at = bad.len() / 2;
    bad[at] ^= 0x20;
    fs::write(&path, &bad).unwrap();
    assert!(is_corrupt(&Index::verify(dir.path())));
    let manifest = fs::read(dir.path().join("MANIFEST")).unwrap();
    let mut w = IndexWriter::open(dir.path()).unwrap();
    assert!(is_corrupt(&w.compact()), "compacted a damaged index");
    drop(w);
    assert_eq!(fs::read(&path).unwrap(), bad);
    assert_eq!(fs::read(dir.path().join("MANIFEST")).unwrap(), manifest);
}

/// Defect 5: a changed byte of a deletion file (which used to remove another document).
#[test]
fn a_changed_byte_in_a_deletion_file_is_reported() {
    let del = "seg-000001.del-000002";
    let bytes = fs::read(testdata("v2").join(del)).unwrap();
    for at in 0..bytes.len() {
        let dir = copy("v2");
        let mut bad = bytes.clone();
        bad[at] ^= 1;
        fs::write(dir.path().join(del), &bad).unwrap();
        assert!(is_corrupt(&Index::open(dir.path())), "byte {at}");
    }
}

/// Builds an index of two segments (documents 0..8 and 8..), with one removal in each, in a
/// new directory.
fn two_segments(seed_docs: &[Document]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    for d in &seed_docs[..8] {
        w.add(d).unwrap();
    }
    w.commit().unwrap();
    for d in &seed_docs[8..] {
        w.add(d).unwrap();
    }
    w.commit().unwrap();
    w.remove(&seed_docs[1].id).unwrap();
    w.remove(&seed_docs[9].id).unwrap();
    w.commit().unwrap();
    dir
}

fn files(dir: &Path, part: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(part))
        .collect();
    names.sort();
    names
}

fn swap(dir: &Path, a: &str, b: &str) {
    let (pa, pb, t) = (dir.join(a), dir.join(b), dir.join("swap"));
    fs::rename(&pa, &t).unwrap();
    fs::rename(&pb, &pa).unwrap();
    fs::rename(&t, &pb).unwrap();
}

/// Defect 5: swapped segments, swapped deletion files, an older deletion file under a newer
/// name, and a segment or deletion file copied from another index (same parameters, and
/// another seed) are refused when opened, naming what is wrong.
#[test]
fn swapped_and_foreign_files_are_refused() {
    let all = docs();
    let message = |dir: &Path| Index::open(dir).unwrap_err().to_string();

    let dir = two_segments(&all);
    swap(dir.path(), "seg-000001.seg", "seg-000002.seg");
    assert!(
        message(dir.path()).contains("swapped"),
        "{}",
        message(dir.path())
    );

    let dir = two_segments(&all);
    let dels = files(dir.path(), ".del-");
    assert_eq!(dels.len(), 2, "{dels:?}");
    swap(dir.path(), &dels[0], &dels[1]);
    assert!(
        message(dir.path()).contains("swapped"),
        "{}",
        message(dir.path())
    );

    // Remove one more document of segment 1: its deletion file is replaced by a newer one;
    // the older one copied over the newer is refused (it would bring the document back).
    let dir = two_segments(&all);
    let old = fs::read(dir.path().join(&files(dir.path(), "seg-000001.del-")[0])).unwrap();
    let mut w = IndexWriter::open(dir.path()).unwrap();
    w.remove(&all[2].id).unwrap();
    w.commit().unwrap();
    drop(w);
    let newer = files(dir.path(), "seg-000001.del-");
    assert_eq!(newer.len(), 1);
    fs::write(dir.path().join(&newer[0]), &old).unwrap();
    assert!(
        message(dir.path()).contains("commit"),
        "{}",
        message(dir.path())
    );

    let mut reseeded = Params::new(IndexUnit::Sentence);
    reseeded.seed = 7;
    for other in [Params::new(IndexUnit::Sentence), reseeded] {
        let ours = two_segments(&all);
        let theirs = tempfile::tempdir().unwrap();
        let mut w = IndexWriter::create(theirs.path(), other).unwrap();
        for d in &all[..8] {
            w.add(d).unwrap();
        }
        w.commit().unwrap();
        w.remove(&all[1].id).unwrap();
        w.commit().unwrap();
        drop(w);
        fs::copy(
            theirs.path().join("seg-000001.seg"),
            ours.path().join("seg-000001.seg"),
        )
        .unwrap();
        assert!(
            message(ours.path()).contains("another index"),
            "{}",
            message(ours.path())
        );
        let ours = two_segments(&all);
        let del = files(theirs.path(), ".del-")[0].clone();
        let target = files(ours.path(), "seg-000001.del-")[0].clone();
        fs::copy(theirs.path().join(del), ours.path().join(target)).unwrap();
        assert!(
            message(ours.path()).contains("another index"),
            "{}",
            message(ours.path())
        );
    }
}

/// A file the manifest lists and that is gone is called missing, not an I/O error.
#[test]
fn a_missing_segment_is_called_missing() {
    let dir = copy("v2");
    fs::remove_file(dir.path().join("seg-000001.del-000002")).unwrap();
    match Index::open(dir.path()) {
        Err(Error::Missing { file, .. }) => assert_eq!(file, "seg-000001.del-000002"),
        other => panic!("{other:?}"),
    }
    fs::remove_file(dir.path().join("seg-000001.seg")).unwrap();
    let e = Index::open(dir.path()).unwrap_err();
    assert!(matches!(e, Error::Missing { .. }), "{e:?}");
    assert!(e.to_string().contains("seg-000001.seg"), "{e}");
}

/// Defect 3: `LOCK` deleted while a writer runs let a second writer in, and both committed
/// generation 1 under the same segment name (the second's documents lost). Now the first
/// writer's commit is refused and the second's documents stay.
#[test]
fn a_writer_that_lost_its_lock_commits_nothing() {
    let all = docs();
    let dir = tempfile::tempdir().unwrap();
    drop(IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap());
    let mut first = IndexWriter::open(dir.path()).unwrap();
    for d in &all[..5] {
        first.add(d).unwrap();
    }
    fs::remove_file(dir.path().join("LOCK")).unwrap();
    let mut second = IndexWriter::open(dir.path()).unwrap();
    for d in &all[5..10] {
        second.add(d).unwrap();
    }
    second.commit().unwrap();
    let e = first.commit().unwrap_err();
    assert!(matches!(e, Error::LockLost { .. }), "{e:?}");
    drop((first, second));
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.stats().documents, 5);
    for d in &all[5..10] {
        assert!(index.contains(&d.id).unwrap());
    }
    Index::verify(dir.path()).unwrap();

    // A lost lock with nobody else there: still refused (someone could have been).
    let mut alone = IndexWriter::open(dir.path()).unwrap();
    alone.add(&all[10]).unwrap();
    fs::remove_file(dir.path().join("LOCK")).unwrap();
    assert!(matches!(alone.commit(), Err(Error::LockLost { .. })));
}

/// The manifest replaced under a writer (an older copy restored while it ran): its commit is
/// refused instead of overwriting the restored state.
#[test]
fn a_manifest_changed_under_a_writer_is_a_conflict() {
    let all = docs();
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    let empty = fs::read(dir.path().join("MANIFEST")).unwrap();
    w.add(&all[0]).unwrap();
    w.commit().unwrap();
    fs::write(dir.path().join("MANIFEST"), &empty).unwrap();
    w.add(&all[1]).unwrap();
    match w.commit() {
        Err(Error::Conflict {
            expected: 1,
            found: 0,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

/// A commit that fails part way removes what it wrote (a deletion file here; the segment it
/// could not write), and the index stays at the previous commit.
#[test]
fn a_failed_commit_leaves_no_files_behind() {
    let all = docs();
    let dir = two_segments(&all);
    let before = files(dir.path(), "");
    let mut w = IndexWriter::open(dir.path()).unwrap();
    w.remove(&all[3].id).unwrap();
    w.add(&all[0]).unwrap();
    // Where the new segment would be written, a directory: writing it fails.
    let blocker = dir
        .path()
        .join(format!(".seg-000003.seg.{}.tmp", std::process::id()));
    fs::create_dir(&blocker).unwrap();
    assert!(matches!(w.commit(), Err(Error::Io { .. })));
    fs::remove_dir(&blocker).unwrap();
    let mut after = files(dir.path(), "");
    after.retain(|n| n != "LOCK");
    let mut before = before;
    before.retain(|n| n != "LOCK");
    assert_eq!(after, before);
    drop(w);
    let index = Index::open(dir.path()).unwrap();
    assert!(index.contains(&all[3].id).unwrap());
    Index::verify(dir.path()).unwrap();
}

/// Defect 13: a segment truncated while an index has it mapped used to kill the process with
/// SIGBUS at the next read; now the read sees zeros, the query reports the damage, and the
/// process goes on.
#[cfg(target_os = "linux")]
#[test]
fn a_segment_truncated_while_mapped_is_reported_not_a_crash() {
    let dir = copy("v2");
    let index = Index::open(dir.path()).unwrap();
    let path = dir.path().join("seg-000001.seg");
    let len = fs::metadata(&path).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len / 3)
        .unwrap();
    let got = answers(&index);
    match got {
        Err(Error::Corrupt { what, .. }) => assert!(what.contains("truncated"), "{what}"),
        other => panic!("{other:?}"),
    }
    // Sticky: the index is damaged for every later query too.
    assert!(is_corrupt(&index.contains(&DocId::from("p1"))));
    drop(index);
    assert!(is_corrupt(&Index::open(dir.path())));
}

/// Defect 1: a directory holding an index's files but not its `MANIFEST` used to be
/// re-created empty by `index create` and `LSHIndex(path)`, whose writer then deleted every
/// segment. Now creating there is refused, with how to recover, and nothing is touched.
#[test]
fn an_index_that_lost_its_manifest_is_refused_never_emptied() {
    let dir = copy("v2");
    fs::remove_file(dir.path().join("MANIFEST")).unwrap();
    let before = files(dir.path(), "");
    let bytes: Vec<Vec<u8>> = before
        .iter()
        .map(|n| fs::read(dir.path().join(n)).unwrap())
        .collect();
    match IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)) {
        Err(e @ Error::NotEmpty { .. }) => {
            assert!(e.to_string().contains("restore it from a backup"), "{e}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(matches!(
        IndexWriter::open(dir.path()),
        Err(Error::NotAnIndex(_))
    ));
    assert_eq!(files(dir.path(), ""), before);
    for (n, b) in before.iter().zip(bytes) {
        assert_eq!(fs::read(dir.path().join(n)).unwrap(), b, "{n} changed");
    }
}
