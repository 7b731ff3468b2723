//! `textreuse simhash` end to end on the fixture `testdata/simhash/` (Wikipedia text, CC BY-SA):
//! fingerprints equal the library's, pairs equal brute force, the window search finds a subset,
//! the output is the same for any thread count, and the pairs cluster the fixture exactly as
//! `textreuse dedup --method simhash` does.
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use textreuse_dedup::features::sentence_simhash;
use textreuse_shingle::Shingler;
use textreuse_shingle::units::SentenceFilter;
use textreuse_simhash::{SimHasher, brute_force_pairs};

use super::common::{json_lines, ok, textreuse};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/simhash");

fn docs() -> String {
    format!("{DIR}/docs.jsonl")
}

fn note() -> String {
    format!("{DIR}/note.txt")
}

type Id = (u64, u64);

fn id(v: &Value) -> Id {
    (v["doc"].as_u64().unwrap(), v["idx"].as_u64().unwrap())
}

/// `(a, b) -> hamming` of a `--pairs` output.
fn pairs(stdout: &str) -> Vec<(Id, Id, u64)> {
    json_lines(stdout)
        .iter()
        .map(|p| (id(&p["a"]), id(&p["b"]), p["hamming"].as_u64().unwrap()))
        .collect()
}

#[test]
fn fingerprints_are_the_librarys_for_every_kept_sentence() {
    let (docs, note) = (docs(), note());
    let fps = json_lines(&ok(&["simhash", &docs, &note]));
    // `sentences` on the JSON Lines only: how it numbers plain-text files is its own business.
    let sentences = json_lines(&ok(&["sentences", &docs]));
    assert_eq!(fps.len(), 20);
    // The same kept sentences as `textreuse sentences`, in the same order, then the note's.
    assert_eq!(
        fps[..sentences.len()].iter().map(id).collect::<Vec<_>>(),
        sentences.iter().map(id).collect::<Vec<_>>()
    );
    assert_eq!(
        fps[sentences.len()..].iter().map(id).collect::<Vec<_>>(),
        [(2, 1)]
    );
    let (mut shingler, hasher) = (Shingler::new(), SimHasher::new());
    for (f, s) in fps.iter().zip(&sentences) {
        let hex = f["fingerprint"].as_str().unwrap();
        assert_eq!(hex.len(), 16);
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        let text = s["text"].as_str().unwrap();
        let expected = sentence_simhash(text, &mut shingler, &hasher).expect("long sentence");
        assert_eq!(u64::from_str_radix(hex, 16).unwrap(), expected, "{text}");
    }
    // The plain-text note is document 2 (its position in the argument list), and its
    // sentence equals Albedo's after normalization.
    let fp_of = |want: Id| {
        fps.iter()
            .find(|f| id(f) == want)
            .map(|f| f["fingerprint"].clone())
    };
    assert!(fp_of((2, 1)).is_some());
    assert_eq!(fp_of((2, 1)), fp_of((39, 1)));
    // The filter flags are those of `sentences`.
    let all = json_lines(&ok(&[
        "simhash",
        "--min-shingles",
        "0",
        "--max-shingles",
        "0",
        &docs,
    ]));
    assert!(all.len() > fps.len());
    let few = json_lines(&ok(&["simhash", "--max-shingles", "100", &docs]));
    let filter = SentenceFilter {
        max_shingles: 100,
        ..SentenceFilter::default()
    };
    let kept: Vec<Id> = all
        .iter()
        .zip(json_lines(&ok(&[
            "sentences",
            "--min-shingles",
            "0",
            "--max-shingles",
            "0",
            &docs,
        ])))
        .filter(|(_, s)| filter.keeps(s["text"].as_str().unwrap()))
        .map(|(f, _)| id(f))
        .collect();
    assert_eq!(few.iter().map(id).collect::<Vec<_>>(), kept);
}

#[test]
fn table_pairs_equal_brute_force_and_window_pairs_are_a_subset() {
    let (docs, note) = (docs(), note());
    let fps = json_lines(&ok(&["simhash", &docs, &note]));
    let ids: Vec<Id> = fps.iter().map(id).collect();
    let values: Vec<u64> = fps
        .iter()
        .map(|f| u64::from_str_radix(f["fingerprint"].as_str().unwrap(), 16).unwrap())
        .collect();
    for k in [0u32, 3, 10, 20] {
        let ks = k.to_string();
        let stdout = ok(&["simhash", "--pairs", "--max-hamming", &ks, &docs, &note]);
        let got = pairs(&stdout);
        let want: Vec<(Id, Id, u64)> = brute_force_pairs(&values, k)
            .unwrap()
            .iter()
            .map(|p| (ids[p.a as usize], ids[p.b as usize], p.distance.into()))
            .collect();
        assert_eq!(got, want, "k = {k}");
        // Same bytes with one thread and with two.
        let one = ok(&[
            "--threads",
            "1",
            "simhash",
            "--pairs",
            "--max-hamming",
            &ks,
            &docs,
            &note,
        ]);
        assert_eq!(one, stdout);
        let window = pairs(&ok(&[
            "simhash",
            "--pairs",
            "--max-hamming",
            &ks,
            "--method",
            "window",
            "--permutations",
            "2",
            "--window",
            "1",
            &docs,
            &note,
        ]));
        let want: BTreeSet<_> = want.into_iter().collect();
        assert!(window.iter().all(|p| want.contains(p)), "k = {k}");
    }
    // The verbatim sentences and the normalized quote are at distance 0; the reworded
    // sentences are near; the rewritten one and Anarchism are not.
    let got = pairs(&ok(&[
        "simhash",
        "--pairs",
        "--max-hamming",
        "10",
        &docs,
        &note,
    ]));
    let find = |a: Id, b: Id| got.iter().find(|p| p.0 == a && p.1 == b).map(|p| p.2);
    assert_eq!(find((39, 1), (1039, 1)), Some(0));
    assert_eq!(find((39, 1), (2, 1)), Some(0));
    assert_eq!(find((39, 3), (1039, 3)), Some(0));
    assert!(find((39, 0), (1039, 0)).is_some_and(|h| (1..=10).contains(&h)));
    assert_eq!(find((39, 4), (1039, 4)), None);
    assert!(got.iter().all(|p| p.0.0 != 12 && p.1.0 != 12));
}

#[test]
fn pairs_cluster_like_dedup_with_simhash() {
    let docs = docs();
    for k in [3u32, 10] {
        let ks = k.to_string();
        let got = pairs(&ok(&["simhash", "--pairs", "--max-hamming", &ks, &docs]));
        // Connected components of the pairs (smallest id as the root).
        let mut parent: BTreeMap<Id, Id> = BTreeMap::new();
        fn root(parent: &BTreeMap<Id, Id>, mut x: Id) -> Id {
            while let Some(&p) = parent.get(&x) {
                if p == x {
                    break;
                }
                x = p;
            }
            x
        }
        for &(a, b, _) in &got {
            parent.entry(a).or_insert(a);
            parent.entry(b).or_insert(b);
            let (ra, rb) = (root(&parent, a), root(&parent, b));
            parent.insert(ra.max(rb), ra.min(rb));
        }
        let mut components: BTreeMap<Id, BTreeSet<Id>> = BTreeMap::new();
        for &x in parent.keys() {
            components.entry(root(&parent, x)).or_default().insert(x);
        }
        let ours: BTreeSet<BTreeSet<Id>> = components.into_values().collect();

        let out = tempfile::tempdir().unwrap();
        let out_dir = out.path().to_str().unwrap();
        let dedup = textreuse(&[
            "--quiet",
            "dedup",
            "--method",
            "simhash",
            "--max-hamming",
            &ks,
            "--out",
            out_dir,
            &docs,
        ]);
        assert!(
            dedup.status.success(),
            "{}",
            String::from_utf8_lossy(&dedup.stderr)
        );
        let clusters = std::fs::read_to_string(out.path().join("clusters.jsonl")).unwrap();
        let theirs: BTreeSet<BTreeSet<Id>> = json_lines(&clusters)
            .iter()
            .map(|c| c["members"].as_array().unwrap().iter().map(id).collect())
            .collect();
        assert!(!ours.is_empty());
        assert_eq!(ours, theirs, "k = {k}");
    }
}

#[test]
fn bad_parameters_are_errors_before_reading() {
    for args in [
        &[
            "simhash",
            "--pairs",
            "--max-hamming",
            "65",
            "nonexistent.txt",
        ][..],
        &["simhash", "--pairs", "--method", "window", "--window", "0"][..],
        &["simhash", "--shingle", "0"][..],
        &["simhash", "no/such/file.jsonl"][..],
    ] {
        let out = textreuse(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
        assert!(out.stdout.is_empty(), "{args:?} wrote output");
    }
}
