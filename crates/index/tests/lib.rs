//! The index's integration tests: persistence, incremental = batch = `dedup`, removal and
//! compaction, locking, damaged files, and the chunk index against `MemoryIndex`.
use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use proptest::prelude::*;
use textreuse_corpus::{DocId, Document, NoProgress};
use textreuse_dedup::{Cluster, Dedup};
use textreuse_hash::fingerprint;
use textreuse_index::{Error, Index, IndexUnit, IndexWriter, MemoryIndex, Params, QueryOptions};

const WORDS: [&str; 24] = [
    "river", "mill", "grain", "harbour", "valley", "orchard", "timber", "market", "bridge",
    "tower", "castle", "meadow", "forest", "stone", "village", "church", "station", "railway",
    "canal", "quarry", "brewery", "bakery", "school", "garden",
];

/// A sentence of `n` words drawn by `picks`, long enough for the sentence filter.
fn sentence(picks: &[usize]) -> String {
    let words: Vec<&str> = picks.iter().map(|&i| WORDS[i % WORDS.len()]).collect();
    let mut s = words.join(" ");
    s[..1].make_ascii_uppercase();
    s.push('.');
    s
}

/// Documents of one to three sentences; some sentences copy an earlier one, some with a word
/// changed, so that there is something to find.
fn corpus(seed: &[(Vec<usize>, u8, usize)]) -> Vec<Document> {
    let mut sentences: Vec<String> = Vec::new();
    for (picks, kind, from) in seed {
        let s = match (*kind % 4, sentences.is_empty()) {
            (0, false) => sentences[from % sentences.len()].clone(),
            (1, false) => {
                let mut words: Vec<String> = sentences[from % sentences.len()]
                    .split(' ')
                    .map(str::to_string)
                    .collect();
                let i = picks[0] % (words.len() - 1);
                words[i] = WORDS[picks[1] % WORDS.len()].to_string();
                words.join(" ")
            }
            _ => sentence(picks),
        };
        sentences.push(s);
    }
    sentences
        .chunks(3)
        .enumerate()
        .map(|(i, c)| Document::new(format!("d{i}"), format!("T{i}"), c.join(" ")))
        .collect()
}

fn seeds() -> impl Strategy<Value = Vec<(Vec<usize>, u8, usize)>> {
    prop::collection::vec(
        (
            prop::collection::vec(0usize..1000, 18..26),
            any::<u8>(),
            any::<usize>(),
        ),
        4..30,
    )
}

/// A unit: document id and character span.
type UnitKey = (String, u64, u64);

/// The pairs of units that share a band key, as the index answers them: each unit of each
/// document queried; self-matches left out.
fn index_pairs(
    query: &mut dyn FnMut(&str) -> Vec<textreuse_index::UnitMatches>,
    docs: &[Document],
) -> BTreeSet<(UnitKey, UnitKey)> {
    let mut pairs = BTreeSet::new();
    for d in docs {
        for u in query(&d.text) {
            let a = (d.id.to_string(), u.chars.start, u.chars.end);
            for m in u.matches {
                let b = (m.id.to_string(), m.chars.start, m.chars.end);
                if a != b {
                    pairs.insert((a.clone().min(b.clone()), a.clone().max(b)));
                }
            }
        }
    }
    pairs
}

/// Connected components of `pairs` as sorted member lists.
fn components(pairs: &BTreeSet<(UnitKey, UnitKey)>) -> BTreeSet<Vec<UnitKey>> {
    let mut parent: BTreeMap<UnitKey, UnitKey> = BTreeMap::new();
    fn find(p: &mut BTreeMap<UnitKey, UnitKey>, x: &UnitKey) -> UnitKey {
        let up = p.get(x).cloned().unwrap_or_else(|| x.clone());
        if &up == x {
            return up;
        }
        let root = find(p, &up);
        p.insert(x.clone(), root.clone());
        root
    }
    for (a, b) in pairs {
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            let (lo, hi) = (ra.clone().min(rb.clone()), ra.max(rb));
            parent.insert(hi, lo);
        }
    }
    let mut groups: BTreeMap<UnitKey, Vec<UnitKey>> = BTreeMap::new();
    let members: BTreeSet<UnitKey> = pairs
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    for m in members {
        let r = find(&mut parent, &m);
        groups.entry(r).or_default().push(m);
    }
    groups.into_values().collect()
}

fn dedup_components(docs: &[Document]) -> BTreeSet<Vec<UnitKey>> {
    let dedup = Dedup::builder().max_bucket(usize::MAX).build().unwrap();
    let mut clusters: Vec<Cluster> = Vec::new();
    dedup
        .run_documents(docs.to_vec(), &mut clusters, &NoProgress)
        .unwrap();
    clusters
        .iter()
        .map(|c| {
            let mut v: Vec<UnitKey> = c
                .members
                .iter()
                .map(|m| (m.doc.to_string(), m.start, m.end))
                .collect();
            v.sort();
            v
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Adding A, committing, then adding B (two segments) answers the same pairs as adding
    /// A + B at once, and their clusters are `dedup`'s over A + B.
    #[test]
    fn incremental_equals_batch_equals_dedup(seed in seeds(), cut in 0usize..12) {
        let docs = corpus(&seed);
        let cut = cut.min(docs.len());
        let opts = QueryOptions::default();

        let two = tempfile::tempdir().unwrap();
        let mut w = IndexWriter::create(two.path(), Params::new(IndexUnit::Sentence)).unwrap();
        for d in &docs[..cut] { w.add(d).unwrap(); }
        w.commit().unwrap();
        for d in &docs[cut..] { w.add(d).unwrap(); }
        // Queried before the second commit (the batch in memory) and after (two segments).
        let before = index_pairs(&mut |t| w.query_text(t, &opts).unwrap(), &docs);
        w.commit().unwrap();
        drop(w);
        let incremental = Index::open(two.path()).unwrap();
        let after = index_pairs(&mut |t| incremental.query_text(t, &opts).unwrap(), &docs);

        let one = tempfile::tempdir().unwrap();
        let mut w = IndexWriter::create(one.path(), Params::new(IndexUnit::Sentence)).unwrap();
        for d in &docs { w.add(d).unwrap(); }
        w.commit().unwrap();
        drop(w);
        let batch = Index::open(one.path()).unwrap();
        let at_once = index_pairs(&mut |t| batch.query_text(t, &opts).unwrap(), &docs);

        prop_assert_eq!(&before, &after);
        prop_assert_eq!(&after, &at_once);
        prop_assert_eq!(components(&after), dedup_components(&docs));
    }
}

fn docs() -> Vec<Document> {
    let s = [
        "The old mill on the river was built in 1820 and still grinds grain for the bakery in town.",
        "Bees collect nectar and pollen from flowers, and in doing so carry pollen from plant to plant.",
        "The committee met every second week to review the budget and argued about the new library.",
        "Chess engines search millions of positions per second and evaluate each with a tuned function.",
    ];
    vec![
        Document::new(1u64, "Mill", format!("{} {}", s[0], s[1])),
        Document::new(2u64, "Bees", s[1].to_string()),
        Document::new("three", "Committee", format!("{}\n{}", s[2], s[3])),
        Document::new(4u64, "Mill again", s[0].replace("town.", "town!")),
    ]
}

fn ids(units: &[textreuse_index::UnitMatches]) -> Vec<Vec<String>> {
    units
        .iter()
        .map(|u| u.matches.iter().map(|m| m.id.to_string()).collect())
        .collect()
}

#[test]
fn persists_across_opens_with_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    for d in docs() {
        w.add(&d).unwrap();
    }
    w.commit().unwrap();
    drop(w);
    let index = Index::open(dir.path()).unwrap();
    let stats = index.stats();
    assert_eq!((stats.documents, stats.entries, stats.segments), (4, 6, 1));
    let options = QueryOptions::new().verify(true).text(true);
    let found = index.query_text(&docs()[0].text, &options).unwrap();
    assert_eq!(ids(&found), [vec!["1", "4"], vec!["1", "2"]]);
    let m = &found[1].matches[1];
    assert_eq!(m.title, "Bees");
    assert_eq!(m.chars, 0..docs()[1].text.chars().count() as u64);
    assert_eq!(m.jaccard, Some(1.0));
    assert_eq!(m.text.as_deref(), Some(docs()[1].text.as_str()));
    assert_eq!(m.doc, 1);
    let near = &found[0].matches[1];
    assert!(near.jaccard.unwrap() < 1.0 && near.jaccard.unwrap() > 0.8);
    assert!(index.contains(&DocId::from("three")).unwrap());
    assert!(!index.contains(&DocId::from(3u64)).unwrap());
    assert_eq!(index.document(2).unwrap().unwrap().title, "Committee");
    // A second writer while the first holds the lock: a clear error.
    let _w = IndexWriter::open(dir.path()).unwrap();
    match IndexWriter::open(dir.path()) {
        Err(Error::Locked { holder, .. }) => assert!(holder.contains("pid"), "{holder}"),
        other => panic!("expected Locked, got {other:?}"),
    }
    // create over an existing index refuses.
    drop(_w);
    assert!(matches!(
        IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)),
        Err(Error::Exists(_))
    ));
}

#[test]
fn remove_then_compact_keeps_the_rest_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    let d = docs();
    w.add(&d[0]).unwrap();
    w.add(&d[1]).unwrap();
    w.commit().unwrap();
    w.add(&d[2]).unwrap();
    w.add(&d[3]).unwrap();
    w.commit().unwrap();
    assert_eq!(w.remove(&DocId::from(1u64)).unwrap(), 1);
    assert_eq!(w.remove(&DocId::from(1u64)).unwrap(), 0, "already removed");
    let opts = QueryOptions::default();
    let q = d[0].text.clone();
    let removed = ids(&w.query_text(&q, &opts).unwrap());
    assert_eq!(removed, [vec!["4"], vec!["2"]]);
    w.commit().unwrap();
    assert_eq!(w.stats().removed_documents, 1);
    let before: Vec<_> = w.query_text(&q, &opts).unwrap();
    w.compact().unwrap();
    let s = w.stats();
    assert_eq!((s.documents, s.removed_documents, s.segments), (3, 0, 1));
    let after = w.query_text(&q, &opts).unwrap();
    assert_eq!(ids(&before), ids(&after));
    // Document numbers keep their order (2 before 4), renumbered from 0.
    assert_eq!(after[0].matches[0].doc, 2);
    assert_eq!(after[1].matches[0].doc, 0);
    drop(w);
    // Only the manifest, the lock and the one segment remain.
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["LOCK", "MANIFEST", "seg-000003.seg"]);
}

#[test]
fn signatures_in_and_out() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(IndexUnit::Document);
    let signer = params.signer().unwrap();
    let mut w = IndexWriter::create(dir.path(), params).unwrap();
    let a = signer.sign_text(&docs()[0].text).unwrap();
    w.insert_signature(DocId::from("a"), a.as_slice()).unwrap();
    let found = w
        .query_signature(a.as_slice(), &QueryOptions::default())
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].estimated_jaccard, 1.0);
    assert!(matches!(
        w.insert_signature(DocId::from("b"), &[1, 2, 3]),
        Err(Error::SignatureLength { got: 3, .. })
    ));
}

#[test]
fn interrupted_commits_leave_the_last_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    w.add(&docs()[0]).unwrap();
    w.commit().unwrap();
    drop(w);
    // What a crash mid-commit leaves: a half-written segment and manifest.
    fs::write(dir.path().join("seg-000002.seg.tmp"), b"TRIXSEG1 partial").unwrap();
    fs::write(dir.path().join("seg-000002.seg"), b"TRIXSEG1 unreferenced").unwrap();
    fs::write(dir.path().join("MANIFEST.tmp"), b"{\"half").unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.stats().documents, 1);
    let w = IndexWriter::open(dir.path()).unwrap();
    assert_eq!(w.stats().documents, 1);
    assert!(!dir.path().join("seg-000002.seg").exists());
    assert!(!dir.path().join("MANIFEST.tmp").exists());
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// An index whose MANIFEST is lost is not re-created empty over its segments (whose garbage
/// collection would then delete them): create refuses, naming the recovery, and touches
/// nothing.
#[test]
fn create_refuses_an_index_that_lost_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    let d = docs();
    w.add(&d[0]).unwrap();
    w.add(&d[1]).unwrap();
    w.commit().unwrap();
    w.add(&d[2]).unwrap();
    w.commit().unwrap();
    assert_eq!(w.remove(&DocId::from(1u64)).unwrap(), 1);
    w.commit().unwrap();
    drop(w);
    fs::remove_file(dir.path().join("MANIFEST")).unwrap();
    let before = names(dir.path());
    assert!(
        before.iter().filter(|n| n.ends_with(".seg")).count() == 2,
        "{before:?}"
    );
    assert!(before.iter().any(|n| n.contains(".del-")), "{before:?}");
    match IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)) {
        Err(e @ Error::NotEmpty { .. }) => {
            let message = e.to_string();
            assert!(message.contains("seg-000001.seg"), "{message}");
            assert!(message.contains("restore it from a backup"), "{message}");
            assert!(message.contains("empty or new directory"), "{message}");
        }
        other => panic!("expected NotEmpty, got {:?}", other.map(|_| ())),
    }
    assert_eq!(names(dir.path()), before, "nothing created or deleted");
    assert!(matches!(
        IndexWriter::open(dir.path()),
        Err(Error::NotAnIndex(_))
    ));
}

/// create takes a missing or empty directory (or one an interrupted create left: only a lock),
/// never one holding someone's files.
#[test]
fn create_takes_only_an_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user");
    fs::create_dir(&user).unwrap();
    fs::write(user.join("notes.txt"), b"mine").unwrap();
    match IndexWriter::create(&user, Params::new(IndexUnit::Sentence)) {
        Err(e @ Error::NotEmpty { entries: 1, .. }) => {
            assert!(e.to_string().contains("notes.txt"), "{e}");
        }
        other => panic!("expected NotEmpty, got {:?}", other.map(|_| ())),
    }
    assert_eq!(names(&user), ["notes.txt"], "no LOCK left behind");
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    IndexWriter::create(&empty, Params::new(IndexUnit::Sentence)).unwrap();
    let missing = dir.path().join("missing/ix");
    IndexWriter::create(&missing, Params::new(IndexUnit::Sentence)).unwrap();
    let crashed = dir.path().join("crashed");
    fs::create_dir(&crashed).unwrap();
    fs::write(crashed.join("LOCK"), b"pid 1: textreuse index create").unwrap();
    fs::write(crashed.join(".MANIFEST.4242.tmp"), b"{\"half").unwrap();
    IndexWriter::create(&crashed, Params::new(IndexUnit::Sentence)).unwrap();
}

/// Garbage collection deletes the index's own leftovers only, never a user's file whose name
/// merely looks like them.
#[test]
fn garbage_collection_deletes_only_the_index_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    w.add(&docs()[0]).unwrap();
    w.commit().unwrap();
    drop(w);
    let users = [
        "report.tmp",
        "seg-notes.txt",
        "notes.txt",
        "seg-000009.seg.bak",
        "seg-1.seg",
        ".hidden.tmp",
        "MANIFEST.bak",
    ];
    for name in users {
        fs::write(dir.path().join(name), b"mine").unwrap();
    }
    // What crashes leave: a segment being written, an unreferenced segment and deletion file,
    // write_atomic's temporary files.
    let orphans = [
        "seg-000002.seg.tmp",
        "seg-000005.seg",
        "seg-000001.del-000007",
        ".seg-000001.del-000008.4242.tmp",
        ".MANIFEST.4242.tmp",
    ];
    for name in orphans {
        fs::write(dir.path().join(name), b"TRIX partial").unwrap();
    }
    let mut w = IndexWriter::open(dir.path()).unwrap();
    w.add(&docs()[1]).unwrap();
    w.commit().unwrap();
    drop(w);
    let left = names(dir.path());
    for name in users {
        assert!(left.iter().any(|n| n == name), "{name} deleted: {left:?}");
    }
    for name in orphans {
        assert!(!left.iter().any(|n| n == name), "{name} kept: {left:?}");
    }
    assert_eq!(Index::open(dir.path()).unwrap().stats().documents, 2);
}

#[test]
fn damaged_files_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    for d in docs() {
        w.add(&d).unwrap();
    }
    w.commit().unwrap();
    drop(w);
    let seg = dir.path().join("seg-000001.seg");
    let good = fs::read(&seg).unwrap();
    for cut in [0, 7, 100, good.len() / 2, good.len() - 1] {
        fs::write(&seg, &good[..cut]).unwrap();
        assert!(
            matches!(Index::open(dir.path()), Err(Error::Corrupt { .. })),
            "cut {cut}"
        );
    }
    fs::write(&seg, &good).unwrap();
    fs::write(dir.path().join("MANIFEST"), b"not json").unwrap();
    assert!(matches!(
        Index::open(dir.path()),
        Err(Error::Corrupt { .. })
    ));
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(
        Index::open(empty.path()),
        Err(Error::NotAnIndex(_))
    ));
}

/// Counts in file headers that would overflow the sizes they imply (the `index_segment` fuzz
/// target found the deletion file's): corrupt, not a panic or a huge allocation.
#[test]
fn huge_counts_in_headers_are_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    let all = docs();
    for d in &all {
        w.add(d).unwrap();
    }
    w.commit().unwrap();
    w.remove(&all[0].id).unwrap();
    w.commit().unwrap();
    drop(w);
    let del = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(".del-"))
        .expect("a deletion file");
    let good_del = fs::read(&del).unwrap();
    let seg = dir.path().join("seg-000001.seg");
    let good_seg = fs::read(&seg).unwrap();
    // The checksums are recomputed after each change, so that the damage reaches the size
    // checks behind them.
    let resum = |bytes: &mut Vec<u8>, covered: usize| {
        let sum = fingerprint(&bytes[..covered]);
        bytes[covered..covered + 8].copy_from_slice(&sum.to_le_bytes());
    };
    for count in [u64::MAX, u64::MAX / 4 + 1, 1 << 62] {
        // The deletion file's count: after its magic, index id, segment and generation.
        let mut bad = good_del.clone();
        bad[32..40].copy_from_slice(&count.to_le_bytes());
        let covered = bad.len() - 8;
        resum(&mut bad, covered);
        fs::write(&del, &bad).unwrap();
        assert!(
            matches!(Index::open(dir.path()), Err(Error::Corrupt { .. })),
            "deletion count {count}"
        );
        fs::write(&del, &good_del).unwrap();
        // The segment header's counts: documents, entries, pairs, then hashes and width.
        for field in [0, 1, 2, 4] {
            let mut bad = good_seg.clone();
            let at = 8 + 8 * field;
            bad[at..at + 8].copy_from_slice(&count.to_le_bytes());
            // The header's own checksum: its last field (22 fields after the magic).
            resum(&mut bad, 8 + 8 * 21);
            fs::write(&seg, &bad).unwrap();
            assert!(
                matches!(Index::open(dir.path()), Err(Error::Corrupt { .. })),
                "segment header field {field} = {count}"
            );
        }
        fs::write(&seg, &good_seg).unwrap();
    }
    assert_eq!(
        Index::open(dir.path()).unwrap().stats().documents,
        all.len() as u64 - 1
    );
}

/// The index's candidates for `query`, after checking that they are `corpus`'s (documents,
/// shared keys and best Jaccard, in rank order).
fn same_candidates(
    index: &Index,
    corpus: &MemoryIndex,
    query: &str,
    top: usize,
) -> Vec<textreuse_index::Candidate> {
    let got = index.candidate_documents(query, top).unwrap();
    let key = |c: &textreuse_index::Candidate| (c.doc, c.shared_keys, c.best_jaccard.to_bits());
    assert_eq!(
        got.iter().map(key).collect::<Vec<_>>(),
        corpus
            .candidates(query, top)
            .iter()
            .map(key)
            .collect::<Vec<_>>()
    );
    got
}

#[test]
fn chunk_index_ranks_as_the_memory_index() {
    let pan = textreuse_align_texts();
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Chunk)).unwrap();
    let mut corpus = MemoryIndex::new();
    for (i, t) in pan.iter().enumerate() {
        w.add(&Document::new(i as u64, "", t.as_str())).unwrap();
        corpus.add(t);
        if i == 2 {
            w.commit().unwrap();
        }
    }
    w.commit().unwrap();
    let index = Index::open(dir.path()).unwrap();
    for q in &pan {
        let query = format!(
            "Something else entirely, to start with.\n\n{}",
            &q[q.len() / 3..]
        );
        let got = same_candidates(&index, &corpus, &query, 3);
        assert!(!got.is_empty());
    }
}

/// A paragraph repeated in more documents than the bucket cap is skipped by both indexes (its
/// keys are over-frequent); one repeated in fewer is found, the same way, with the repetitions
/// spread over several segments.
#[test]
fn repeated_paragraphs_are_capped_as_in_the_memory_index() {
    use textreuse_index::DEFAULT_MAX_QUERY_BUCKET;
    let texts = textreuse_align_texts();
    let common = &texts[0];
    let rare = &texts[1];
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Chunk)).unwrap();
    let mut corpus = MemoryIndex::new();
    let copies = DEFAULT_MAX_QUERY_BUCKET + 20;
    for i in 0..copies {
        let mut text = common.clone();
        if i % 3 == 0 {
            text.push_str("\n\n");
            text.push_str(rare);
        }
        w.add(&Document::new(i as u64, "", text.as_str())).unwrap();
        corpus.add(&text);
        if i % 50 == 49 {
            w.commit().unwrap();
        }
    }
    w.commit().unwrap();
    let index = Index::open(dir.path()).unwrap();
    for query in [common.clone(), rare.clone(), format!("{common}\n\n{rare}")] {
        let got = same_candidates(&index, &corpus, &query, 1000);
        if query == *common {
            assert!(got.is_empty(), "{} over-frequent copies skipped", copies);
        } else {
            let rare_docs = (0..copies).filter(|i| i % 3 == 0).count();
            assert!(rare_docs <= DEFAULT_MAX_QUERY_BUCKET);
            assert_eq!(got.len(), rare_docs, "the rarer paragraph's documents");
        }
    }
}

/// A few texts of several paragraphs (the bundled PAN slice is read by the CLI tests).
fn textreuse_align_texts() -> Vec<String> {
    let topics = [
        ["river", "valley", "harbour", "grain", "timber", "mills"],
        ["bees", "nectar", "pollen", "colony", "winter", "hive"],
        [
            "committee",
            "budget",
            "library",
            "council",
            "market",
            "hall",
        ],
        [
            "engines",
            "positions",
            "evaluate",
            "openings",
            "endgame",
            "tables",
        ],
        ["volcano", "magma", "plates", "ring", "fire", "ash"],
    ];
    topics
        .iter()
        .enumerate()
        .map(|(t, words)| {
            (0..4)
                .map(|p| {
                    (0..30)
                        .map(|i| {
                            let w = words[(i * 7 + p * 3 + t) % words.len()];
                            format!("{w}{}", (i * 13 + p * 5 + t * 11) % 17)
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .collect()
}

#[test]
fn many_commits_merge_into_few_segments_and_answer_the_same() {
    let many = tempfile::tempdir().unwrap();
    let one = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(many.path(), Params::new(IndexUnit::Sentence)).unwrap();
    let mut all = IndexWriter::create(one.path(), Params::new(IndexUnit::Sentence)).unwrap();
    let base = docs();
    let mut added = Vec::new();
    for i in 0..40 {
        let mut d = base[i % base.len()].clone();
        d.id = DocId::from(format!("doc{i}"));
        w.add(&d).unwrap();
        w.commit().unwrap();
        if i == 20 {
            w.remove(&DocId::from("doc3")).unwrap();
        }
        all.add(&d).unwrap();
        added.push(d);
    }
    all.remove(&DocId::from("doc3")).unwrap();
    all.commit().unwrap();
    let s = w.stats();
    assert!(s.segments <= textreuse_index::MAX_SEGMENTS, "{s:?}");
    assert_eq!(s.entries, all.stats().entries);
    assert_eq!(s.documents, 39);
    let opts = QueryOptions::new();
    for d in &added[..4] {
        let a = w.query_text(&d.text, &opts).unwrap();
        let b = all.query_text(&d.text, &opts).unwrap();
        assert_eq!(ids(&a), ids(&b));
    }
    // Uncommitted documents and their entries count too.
    all.add(&added[0]).unwrap();
    let pending = all.stats();
    assert_eq!((pending.documents, pending.uncommitted_documents), (40, 1));
    assert_eq!(pending.entries, s.entries + 2);
}

// --- top-k and containment -------------------------------------------------------------------

use textreuse_index::{DocumentQuery, Match, unit_containment};

/// A text of `n` words drawn from `WORDS` by a small xorshift generator seeded with `seed`.
fn words(n: usize, seed: u64) -> Vec<String> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("{}{}", WORDS[(x % 24) as usize], (x >> 8) % 10)
        })
        .collect()
}

/// `base` with the words at `positions` replaced.
fn edited(base: &[String], positions: &[usize]) -> String {
    let mut w = base.to_vec();
    for &p in positions {
        w[p] = format!("edit{p}");
    }
    w.join(" ")
}

fn id_list(found: &[Match]) -> Vec<String> {
    found.iter().map(|m| m.id.to_string()).collect()
}

/// Planted near-duplicates of a text among unrelated ones: top-k with verification returns
/// the true k nearest (exact Jaccard over every document, brute force), best first; without
/// it, the same documents by their estimates.
#[test]
fn top_k_returns_the_planted_nearest_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(IndexUnit::Document).threshold(0.5).unwrap();
    let mut w = IndexWriter::create(dir.path(), params).unwrap();
    let base = words(60, 1);
    let query = base.join(" ");
    // Unrelated documents first and last, near-duplicates with 1, 2, 4 and 6 words changed
    // in between, added in scrambled order.
    let mut docs: Vec<(String, String)> = (0..10)
        .map(|i| (format!("other{i}"), words(60, 100 + i).join(" ")))
        .collect();
    for (name, edits) in [
        ("e4", &[5, 20, 35, 50][..]),
        ("e1", &[30][..]),
        ("e6", &[3, 13, 23, 33, 43, 53][..]),
        ("e2", &[10, 40][..]),
    ] {
        docs.push((name.into(), edited(&base, edits)));
    }
    docs.extend((10..20).map(|i| (format!("other{i}"), words(60, 100 + i).join(" "))));
    for (id, text) in &docs {
        w.add(&Document::new(id.as_str(), "", text.as_str()))
            .unwrap();
    }
    w.commit().unwrap();
    drop(w);
    let index = Index::open(dir.path()).unwrap();

    // The truth: exact Jaccard with every document.
    let mut recipe = index.recipe();
    let q = recipe.shingle_set(&query);
    let mut truth: Vec<(f64, usize, &str)> = docs
        .iter()
        .enumerate()
        .map(|(n, (id, text))| {
            let j = textreuse_shingle::sorted_jaccard(&q, &recipe.shingle_set(text));
            (j, n, id.as_str())
        })
        .collect();
    truth.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let want: Vec<&str> = truth[..4].iter().map(|t| t.2).collect();
    assert_eq!(want, ["e1", "e2", "e4", "e6"], "{truth:?}");

    let verified = index
        .query_top_k(&query, 4, &QueryOptions::new().verify(true))
        .unwrap();
    assert_eq!(id_list(&verified), want);
    for (m, t) in verified.iter().zip(&truth) {
        assert_eq!(m.jaccard, Some(t.0));
        assert_eq!(m.doc, t.1 as u64);
    }
    // Estimated: the same four (their estimates are far above the unrelated documents'),
    // ranked by the estimate.
    let estimated = index.query_top_k(&query, 4, &QueryOptions::new()).unwrap();
    let mut got = id_list(&estimated);
    got.sort();
    assert_eq!(got, want);
    assert!(
        estimated
            .windows(2)
            .all(|p| p[0].estimated_jaccard >= p[1].estimated_jaccard)
    );
    assert!(estimated.iter().all(|m| m.jaccard.is_none()));
    // k bounds the answer; a large k returns only what shares a band key, not every document.
    for k in 0..=4 {
        let top = index
            .query_top_k(&query, k, &QueryOptions::new().verify(true))
            .unwrap();
        assert_eq!(id_list(&top), want[..k]);
    }
    let all = index
        .query_top_k(&query, 1000, &QueryOptions::new())
        .unwrap();
    assert!(all.len() >= 4 && all.len() < docs.len(), "{}", all.len());
    // The index's signature of the query finds the same documents as its text.
    let sig = index.signer().sign_text(&query).unwrap();
    let by_sig = index
        .query_top_k(sig.as_slice(), 4, &QueryOptions::new())
        .unwrap();
    assert_eq!(by_sig, estimated);
    // min_jaccard leaves out the less similar, limit cuts like k.
    let close = index
        .query_top_k(
            &query,
            4,
            &QueryOptions::new()
                .verify(true)
                .min_jaccard(t_at(&truth, 1)),
        )
        .unwrap();
    assert_eq!(id_list(&close), ["e1", "e2"]);
    let limited = index
        .query_top_k(&query, 4, &QueryOptions::new().limit(1))
        .unwrap();
    assert_eq!(limited.len(), 1);
}

/// The exact Jaccard of the `i`-th nearest.
fn t_at(truth: &[(f64, usize, &str)], i: usize) -> f64 {
    truth[i].0
}

/// Twelve sentences long enough for the sentence filter.
fn long_sentences() -> Vec<String> {
    (0..12)
        .map(|i| {
            let mut s = words(22, 500 + i).join(" ");
            s[..1].make_ascii_uppercase();
            s.push('.');
            s
        })
        .collect()
}

/// A short text quoted in a long document: containment finds it through the sentences they
/// share, where the Jaccard similarity of the whole texts (a document index) misses it.
#[test]
fn containment_finds_a_short_text_in_a_long_document() {
    let sentences = long_sentences();
    let long = sentences.join(" ");
    let quote = sentences[4..7].join(" ");
    let others: Vec<String> = (0..5)
        .map(|i| {
            let mut s = words(40, 900 + i).join(" ") + ".";
            s[..1].make_ascii_uppercase();
            s
        })
        .collect();
    let build = |unit: IndexUnit| {
        let dir = tempfile::tempdir().unwrap();
        let mut w = IndexWriter::create(dir.path(), Params::new(unit)).unwrap();
        w.add(&Document::new("other0", "", others[0].as_str()))
            .unwrap();
        w.add(&Document::new("long", "Long", long.as_str()))
            .unwrap();
        for (i, o) in others.iter().enumerate().skip(1) {
            w.add(&Document::new(format!("other{i}"), "", o.as_str()))
                .unwrap();
        }
        w.commit().unwrap();
        drop(w);
        (Index::open(dir.path()).unwrap(), dir)
    };
    let (sentences_ix, _a) = build(IndexUnit::Sentence);
    let found = sentences_ix
        .query_containment(&quote, 0.8, &QueryOptions::new())
        .unwrap();
    assert_eq!(id_list(&found), ["long"]);
    assert_eq!(found[0].estimated_containment, Some(1.0));
    assert_eq!(found[0].containment, None);
    assert_eq!(found[0].title, "Long");
    let verified = sentences_ix
        .query_containment(&quote, 0.8, &QueryOptions::new().verify(true))
        .unwrap();
    let exact = verified[0].containment.unwrap();
    assert!(exact > 0.95 && exact <= 1.0, "{exact}");

    // The whole texts' Jaccard similarity is about a quarter: a document index, whose
    // unit is the whole text, does not find the long document for the quote.
    let (documents_ix, _b) = build(IndexUnit::Document);
    let mut recipe = documents_ix.recipe();
    let whole =
        textreuse_shingle::sorted_jaccard(&recipe.shingle_set(&quote), &recipe.shingle_set(&long));
    assert!(whole < 0.3, "{whole}");
    let by_jaccard = documents_ix
        .query_text(&quote, &QueryOptions::new())
        .unwrap();
    assert!(
        by_jaccard.iter().all(|u| u.matches.is_empty()),
        "{by_jaccard:?}"
    );
    assert!(
        documents_ix
            .query_top_k(&quote, 3, &QueryOptions::new())
            .unwrap()
            .is_empty()
    );

    // Half of the query quoted, half new: containment about a half.
    let half = format!("{} {}", sentences[2..4].join(" "), others[1..3].join(" "));
    let c = sentences_ix
        .query_containment(&half, 0.0, &QueryOptions::new().verify(true))
        .unwrap();
    let long_match = c.iter().find(|m| m.id.to_string() == "long").unwrap();
    let (est, exact) = (
        long_match.estimated_containment.unwrap(),
        long_match.containment.unwrap(),
    );
    assert!(
        (0.3..0.7).contains(&est) && (0.3..0.7).contains(&exact),
        "{est} {exact}"
    );
    assert!(
        sentences_ix
            .query_containment(&half, 0.8, &QueryOptions::new())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn document_queries_on_empty_indexes_and_bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
    let text = docs()[0].text.clone();
    let opts = QueryOptions::new();
    assert!(w.query_top_k(&text, 5, &opts).unwrap().is_empty());
    assert!(w.query_containment(&text, 0.5, &opts).unwrap().is_empty());
    w.commit().unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert!(index.query_top_k(&text, 5, &opts).unwrap().is_empty());
    assert!(
        index
            .query_containment(&text, 0.0, &opts)
            .unwrap()
            .is_empty()
    );
    for bad in [-0.01, 1.01, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            index.query_containment(&text, bad, &opts),
            Err(Error::Threshold(_))
        ));
        assert!(matches!(
            w.query_containment(&text, bad, &opts),
            Err(Error::Threshold(_))
        ));
        // The run over inputs refuses before reading any.
        let mut called = false;
        let run = index.query_documents_all(
            Vec::new(),
            DocumentQuery::Containment(bad),
            &opts,
            &NoProgress,
            |_, _| -> Result<(), Error> {
                called = true;
                Ok(())
            },
        );
        assert!(matches!(run, Err(Error::Threshold(_))) && !called);
    }
    // Uncommitted documents are found by the writer, removed ones are not.
    for d in docs() {
        w.add(&d).unwrap();
    }
    let found = w.query_top_k(&text, 10, &opts).unwrap();
    assert_eq!(id_list(&found), ["1", "2", "4"]);
    assert!(w.query_top_k(&text, 0, &opts).unwrap().is_empty(), "k = 0");
    w.remove(&DocId::from(2u64)).unwrap();
    assert_eq!(
        id_list(&w.query_top_k(&text, 10, &opts).unwrap()),
        ["1", "4"]
    );
    let contained = w.query_containment(&text, 1.0, &opts).unwrap();
    assert_eq!(id_list(&contained), ["1"]);
    // A signature of the wrong length, and verification without stored texts.
    assert!(matches!(
        w.query_top_k(&[1u64, 2, 3][..], 3, &opts),
        Err(Error::SignatureLength { got: 3, .. })
    ));
    let bare = tempfile::tempdir().unwrap();
    let mut p = Params::new(IndexUnit::Sentence);
    p.store_text = false;
    let mut w = IndexWriter::create(bare.path(), p).unwrap();
    w.add(&docs()[0]).unwrap();
    let verify = QueryOptions::new().verify(true);
    assert!(matches!(
        w.query_top_k(&text, 3, &verify),
        Err(Error::NoText(_))
    ));
    assert!(matches!(
        w.query_containment(&text, 0.5, &verify),
        Err(Error::NoText(_))
    ));
    assert_eq!(w.query_top_k(&text, 3, &opts).unwrap().len(), 1);
}

/// Per document, what `query_text`'s matches say: the best score and the containment estimate
/// (each query unit counted by its best `unit_containment` in the document, weighted by its
/// length in characters). The oracle for the tally.
fn by_document(units: &[textreuse_index::UnitMatches]) -> BTreeMap<u64, (f64, f64)> {
    let total: f64 = units
        .iter()
        .map(|u| (u.chars.end - u.chars.start).max(1) as f64)
        .sum();
    let mut out: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for u in units {
        let len = u.chars.end - u.chars.start;
        let mut best_in_unit: BTreeMap<u64, f64> = BTreeMap::new();
        for m in &u.matches {
            let score = m.jaccard.unwrap_or(m.estimated_jaccard);
            let e = out.entry(m.doc).or_insert((-1.0, 0.0));
            e.0 = e.0.max(score);
            let c = unit_containment(score, len, m.chars.end - m.chars.start);
            let b = best_in_unit.entry(m.doc).or_insert(0.0);
            *b = b.max(c);
        }
        for (doc, c) in best_in_unit {
            out.get_mut(&doc).unwrap().1 += len.max(1) as f64 * c / total;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Top-k is the k best documents of `query_text`'s matches (each by its best unit pair),
    /// sorted, ties by document number, so top-k is a prefix of top-(k+1); containment is
    /// the length-weighted estimate from the same matches, sorted, at or above its threshold,
    /// and a higher threshold keeps a prefix.
    #[test]
    fn top_k_and_containment_follow_the_unit_matches(seed in seeds(), q in 0usize..30, verify: bool) {
        let docs = corpus(&seed);
        let dir = tempfile::tempdir().unwrap();
        let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence)).unwrap();
        for d in &docs { w.add(d).unwrap(); }
        w.commit().unwrap();
        drop(w);
        let index = Index::open(dir.path()).unwrap();
        let query = &docs[q % docs.len()].text;
        let opts = QueryOptions::new().verify(verify);
        let oracle = by_document(&index.query_text(query, &opts).unwrap());
        // Containment is estimated from the estimates, verified or not.
        let estimates = by_document(&index.query_text(query, &QueryOptions::new()).unwrap());
        let mut want: Vec<(u64, f64)> = oracle.iter().map(|(&d, &(s, _))| (d, s)).collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut previous: Option<Vec<Match>> = None;
        for k in 0..=want.len() + 1 {
            let top = index.query_top_k(query, k, &opts).unwrap();
            let got: Vec<(u64, f64)> = top
                .iter()
                .map(|m| (m.doc, m.jaccard.unwrap_or(m.estimated_jaccard)))
                .collect();
            prop_assert_eq!(&got[..], &want[..k.min(want.len())]);
            if let Some(p) = previous {
                prop_assert_eq!(&top[..p.len()], &p[..]);
            }
            previous = Some(top);
        }
        let mut last: Option<Vec<u64>> = None;
        for t in [0.0, 0.25, 0.5, 0.75, 0.9, 1.0] {
            let found = index.query_containment(query, t, &QueryOptions::new()).unwrap();
            prop_assert!(found.iter().all(|m| m.containment.is_none()));
            let docs_found: Vec<u64> = found.iter().map(|m| m.doc).collect();
            for m in &found {
                let c = m.estimated_containment.unwrap();
                prop_assert!(c >= t && c <= 1.0);
                let expected = estimates[&m.doc].1;
                prop_assert!((c - expected).abs() < 1e-9, "{} vs {}", c, expected);
            }
            let sorted = found.windows(2).all(|p| {
                let (a, b) = (p[0].estimated_containment, p[1].estimated_containment);
                a > b || (a == b && p[0].doc < p[1].doc)
            });
            prop_assert!(sorted);
            if let Some(l) = &last {
                prop_assert_eq!(&l[..docs_found.len()], &docs_found[..]);
            }
            last = Some(docs_found);
        }
    }
}

/// Part of a paragraph, queried in a paragraph index: the query unit is shorter than the
/// indexed one, and its containment is estimated from their Jaccard similarity and lengths
/// (a plain Jaccard similarity of about two thirds would understate it).
#[test]
fn containment_of_a_part_of_a_longer_unit() {
    let paragraphs: Vec<String> = (0..4).map(|i| words(45, 700 + i).join(" ")).collect();
    let dir = tempfile::tempdir().unwrap();
    let params = Params::new(IndexUnit::Paragraph).threshold(0.5).unwrap();
    let mut w = IndexWriter::create(dir.path(), params).unwrap();
    w.add(&Document::new("long", "", paragraphs.join("\n")))
        .unwrap();
    w.add(&Document::new("other", "", words(45, 800).join(" ")))
        .unwrap();
    let part = paragraphs[2]
        .split(' ')
        .take(30)
        .collect::<Vec<_>>()
        .join(" ");
    let verify = QueryOptions::new().verify(true);
    let found = w.query_containment(&part, 0.8, &verify).unwrap();
    assert_eq!(id_list(&found), ["long"]);
    let m = &found[0];
    let (estimated, exact) = (m.estimated_containment.unwrap(), m.containment.unwrap());
    assert_eq!(exact, 1.0);
    assert!(estimated > 0.9, "{estimated}");
    assert!(m.estimated_jaccard < 0.8, "{}", m.estimated_jaccard);
    // The best entry is the paragraph the part comes from.
    let long = paragraphs.join("\n");
    let start = long[..long.find(&paragraphs[2]).unwrap()].chars().count() as u64;
    assert_eq!(m.chars.start, start);
}

/// Documents of three sentences each drawn from a few hundred, so that many share sentences
/// with others (matches to find) and a small batch fills many segments.
fn many_docs(n: usize) -> Vec<Document> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as usize
    };
    (0..n)
        .map(|i| {
            let text = (0..3)
                .map(|_| {
                    let k = next() % 600;
                    let picks: Vec<usize> = (0..16).map(|j| k * 31 + j * j * 7 + j).collect();
                    sentence(&picks)
                })
                .collect::<Vec<_>>()
                .join(" ");
            Document::new(i as u64, format!("T{i}"), text)
        })
        .collect()
}

/// Everything an index answers about `queries` (matches with their estimates, in order).
fn answers(index: &Index, queries: &[Document]) -> Vec<String> {
    let options = QueryOptions::new().verify(true).text(true);
    queries
        .iter()
        .map(|q| format!("{:?}", index.query_text(&q.text, &options).unwrap()))
        .collect()
}

/// Under the smallest `max_memory` (with a 1 MiB batch, so that the writer commits dozens of
/// segments and merges some, and pages are given back as they are read) the index holds the
/// same documents and answers every query as an unbounded one does, before and after
/// `compact`; a bound below the minimum, or a batch budget beyond its share, is refused before
/// anything is added.
#[test]
fn max_memory_changes_no_answer_and_refuses_too_little() {
    use textreuse_index::MemoryPlan;
    let docs = many_docs(15000);
    let queries: Vec<Document> = docs.iter().step_by(97).cloned().collect();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut plain = IndexWriter::create(a.path(), Params::new(IndexUnit::Sentence)).unwrap();
    for d in &docs {
        plain.add(d).unwrap();
    }
    plain.commit().unwrap();
    drop(plain);
    let mut bounded = IndexWriter::create(b.path(), Params::new(IndexUnit::Sentence)).unwrap();
    assert!(matches!(
        bounded.max_memory(MemoryPlan::MINIMUM - 1),
        Err(Error::MemoryTooSmall {
            minimum: MemoryPlan::MINIMUM,
            ..
        })
    ));
    bounded.memory_budget(1 << 30);
    assert!(matches!(
        bounded.max_memory(MemoryPlan::MINIMUM),
        Err(Error::BatchTooLarge { .. })
    ));
    bounded.memory_budget(1 << 20);
    bounded.max_memory(MemoryPlan::MINIMUM).unwrap();
    assert_eq!(bounded.memory().max_memory, Some(MemoryPlan::MINIMUM));
    for d in &docs {
        bounded.add(d).unwrap();
    }
    bounded.commit().unwrap();
    // More commits than MAX_SEGMENTS: some were merged.
    let segments = bounded.stats().segments;
    assert!(
        (4..=textreuse_index::MAX_SEGMENTS).contains(&segments),
        "{segments}"
    );
    let want = Index::open(a.path()).unwrap();
    let mut got = Index::open(b.path()).unwrap();
    assert!(got.max_memory(MemoryPlan::MINIMUM - 1).is_err());
    // A reader's minimum grows with the segments a query reads (and the threads).
    match got.max_memory(MemoryPlan::MINIMUM) {
        Ok(_) | Err(Error::QueryMemoryTooSmall { .. }) => {}
        Err(e) => panic!("{e}"),
    }
    got.max_memory(512 << 20).unwrap();
    let (ws, gs) = (want.stats(), got.stats());
    assert_eq!((ws.documents, ws.entries), (gs.documents, gs.entries));
    let expected = answers(&want, &queries);
    assert!(expected.iter().any(|a| a.contains("jaccard")));
    assert_eq!(expected, answers(&got, &queries));
    // Compaction under the bound reads every segment whole, giving pages back as it goes.
    bounded.compact().unwrap();
    assert_eq!(bounded.stats().segments, 1);
    drop(bounded);
    assert_eq!(expected, answers(&Index::open(b.path()).unwrap(), &queries));
}
