//! `textreuse sentences` end to end on the tiny fixture `testdata/shingle/docs.jsonl` (Wikipedia
//! text, CC BY-SA) and a plain-text file.
use std::process::Command;

use serde_json::Value;

use super::common;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/shingle/docs.jsonl"
);

fn run(args: &[&str]) -> (Vec<Value>, String) {
    let out = common::textreuse(&[&["sentences"], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    (common::json_lines(&stdout), stderr)
}

#[test]
fn jsonl_and_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("Notes.txt");
    let plain_text = "First sentence here. Second one, which is a little longer than the first.";
    std::fs::write(&plain, plain_text).unwrap();
    let (all, _) = run(&["--min-shingles", "0", FIXTURE, plain.to_str().unwrap()]);
    let docs: Vec<Value> = std::fs::read_to_string(FIXTURE)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut expected_idx = std::collections::HashMap::new();
    for r in &all {
        let doc = r["doc"].as_u64().unwrap();
        let (start, end) = (
            r["start"].as_u64().unwrap() as usize,
            r["end"].as_u64().unwrap() as usize,
        );
        let text = match docs.iter().find(|d| d["id"].as_u64() == Some(doc)) {
            Some(d) => d["text"].as_str().unwrap().to_string(),
            None => {
                assert_eq!(doc, 2, "plain file is the second argument");
                assert_eq!(r["title"], "Notes");
                plain_text.to_string()
            }
        };
        // Character offsets (the fixture is ASCII; see `provenance_string_ids_and_char_offsets`).
        let unit: String = text.chars().skip(start).take(end - start).collect();
        assert_eq!(unit, r["text"].as_str().unwrap());
        let chars = r["text"].as_str().unwrap().chars().count();
        assert_eq!(
            r["shingles"].as_u64().unwrap() as usize,
            chars.saturating_sub(11)
        );
        let idx = expected_idx.entry(doc).or_insert(0u64);
        assert_eq!(r["idx"].as_u64().unwrap(), *idx);
        *idx += 1;
        // The pipeline id: the document's position in the input, then the sentence index.
        let seq = docs
            .iter()
            .position(|d| d["id"].as_u64() == Some(doc))
            .unwrap_or(docs.len()) as u64;
        assert_eq!(r["id"].as_u64().unwrap(), seq << 32 | (*idx - 1));
    }
    assert_eq!(expected_idx.get(&2), Some(&2));
    assert!(all.iter().any(|r| r["text"] == "Short."));

    // The default 75..=600 filter drops short sentences but keeps their indices.
    let (kept, stderr) = run(&[FIXTURE]);
    assert!(kept.len() < all.len() && !kept.is_empty());
    assert!(
        kept.iter()
            .all(|r| (75..=600).contains(&r["shingles"].as_u64().unwrap()))
    );
    assert!(stderr.contains("kept"));
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("stats.json");
    run(&["--stats", stats.to_str().unwrap(), FIXTURE]);
    let counts: Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(counts["documents"], docs.len() as u64);
    assert_eq!(counts["sentences"], all.len() as u64 - 2); // the plain file had 2
    assert_eq!(counts["kept"], kept.len() as u64);
    assert_eq!(counts["input_problems"], 0);
    // Shards number their documents from --first-seq.
    let (shifted, _) = run(&["--first-seq", "1000", FIXTURE]);
    for (a, b) in kept.iter().zip(&shifted) {
        assert_eq!(
            b["id"].as_u64().unwrap(),
            a["id"].as_u64().unwrap() + (1000 << 32)
        );
    }
    let tiny: Vec<&Value> = kept.iter().filter(|r| r["doc"] == 7).collect();
    assert_eq!(tiny.len(), 1);
    assert_eq!(tiny[0]["idx"], 1);
}

/// `doc` as written (with `doc_is_string` for string ids), `source` and `record` of a JSON Lines
/// input, character offsets; and the same values as the members of `dedup`'s clusters.
#[test]
fn provenance_string_ids_and_char_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.jsonl");
    let shared = "Die Brücke über den Fluß wurde im Jahr 1820 gebaut und trägt noch heute die Straße nach Zürich.";
    let lines = [
        serde_json::json!({"id": "a-1", "title": "Brücke", "text": format!("Ça va? Très bien. {shared}")}),
        serde_json::json!({"id": 12, "title": "Zahl", "text": format!("Ein anderer Satz über Gärten. {shared}")}),
        serde_json::json!({"id": "12", "title": "Text", "text": format!("{shared} Noch ein Satz.")}),
    ];
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    // A blank line: records count lines, blank ones included.
    std::fs::write(&path, format!("{}\n\n{}\n{}\n", text[0], text[1], text[2])).unwrap();
    let input = path.to_str().unwrap();
    let (records, _) = run(&["--min-shingles", "0", input]);
    assert_eq!(records.len(), 3 + 2 + 2);
    for r in &records {
        let line = match (&r["doc"], r.get("doc_is_string")) {
            (Value::String(s), Some(&Value::Bool(true))) if s == "a-1" => 0,
            (Value::Number(n), None) if n.as_u64() == Some(12) => 1,
            (Value::String(s), Some(&Value::Bool(true))) if s == "12" => 2,
            other => panic!("unexpected doc {other:?}"),
        };
        assert_eq!(r["source"], input);
        assert_eq!(r["record"], [1, 3, 4][line]);
        assert!(r.get("revision").is_none() && r.get("timestamp").is_none());
        let doc_text = lines[line]["text"].as_str().unwrap();
        let (start, end) = (
            r["start"].as_u64().unwrap() as usize,
            r["end"].as_u64().unwrap() as usize,
        );
        let unit: String = doc_text.chars().skip(start).take(end - start).collect();
        assert_eq!(unit, r["text"].as_str().unwrap());
    }
    let first = |doc: &Value, idx: u64| {
        records
            .iter()
            .find(|r| &r["doc"] == doc && r["idx"] == idx)
            .unwrap()
            .clone()
    };
    // After "Ça va? Très bien. " (18 characters, 21 bytes).
    assert_eq!(first(&Value::from("a-1"), 2)["start"], 18);

    // `dedup` gives the shared sentence's members the same fields.
    let out = dir.path().join("out");
    common::ok(&[
        "dedup",
        "--quiet",
        "--min-shingles",
        "0",
        "--out",
        out.to_str().unwrap(),
        input,
    ]);
    let clusters =
        common::json_lines(&std::fs::read_to_string(out.join("clusters.jsonl")).unwrap());
    assert_eq!(clusters.len(), 1);
    let members = clusters[0]["members"].as_array().unwrap();
    assert_eq!(members.len(), 3);
    for m in members {
        let r = first(&m["doc"], m["idx"].as_u64().unwrap());
        for field in [
            "doc", "title", "idx", "text", "source", "record", "start", "end",
        ] {
            assert_eq!(m[field], r[field], "{field}");
        }
    }
}

#[test]
fn errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\": 1, \"text\": \"fine\"}\nnot json\n").unwrap();
    let out = common::textreuse(&["sentences", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.jsonl:2"), "{stderr}");
}

/// Sentences with repeated and near-repeated text across three documents.
fn near_duplicates(dir: &std::path::Path) -> std::path::PathBuf {
    let base = "The old mill on the river was built in 1820 by the Smith family and grinds grain to this day.";
    let docs = [
        (
            11,
            "Mill",
            format!("{base} It was restored in 1990 after a long period of decay. Short."),
        ),
        (
            12,
            "Village",
            // The same sentence with other case and spacing (identical after normalization).
            format!(
                "{}  The village has a church, a school and two shops near the old stone bridge.",
                base.to_uppercase().replace(' ', "  ")
            ),
        ),
        (
            13,
            "River",
            format!(
                "{} The river floods every spring and the meadows turn into a shallow lake for weeks.",
                // The first word changed (Jaccard 0.94 to the others).
                base.replace("The old", "An old")
            ),
        ),
    ];
    let path = dir.join("docs.jsonl");
    let lines: Vec<String> = docs
        .iter()
        .map(|(id, title, text)| {
            serde_json::json!({"id": id, "title": title, "text": text}).to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n")).unwrap();
    path
}

fn hex_keys(record: &Value) -> Vec<u64> {
    record["band_keys"]
        .as_array()
        .expect("band_keys is a list")
        .iter()
        .map(|k| {
            let k = k.as_str().expect("keys are strings");
            assert_eq!(k.len(), 16, "16 hex digits: {k}");
            u64::from_str_radix(k, 16).unwrap()
        })
        .collect()
}

#[test]
fn band_keys_are_the_keys_dedup_buckets_by() {
    use textreuse_minhash::{BandScheme, Signer, SignerBuilder};
    use textreuse_shingle::Shingler;

    let dir = tempfile::tempdir().unwrap();
    let input = near_duplicates(dir.path());
    let input = input.to_str().unwrap();

    // Without the flag there is no field.
    let (plain, _) = run(&[input]);
    assert!(plain.iter().all(|r| r.get("band_keys").is_none()));

    // Every kept sentence's keys are the signer's band keys of its normalized shingles.
    let (records, _) = run(&["--band-keys", input]);
    let signer = Signer::new();
    let mut shingler = Shingler::new();
    for r in &records {
        let shingles = shingler.fingerprints(r["text"].as_str().unwrap());
        let sig = signer.sign(shingles.iter().copied()).unwrap();
        assert_eq!(hex_keys(r), signer.band_keys(&sig).collect::<Vec<_>>());
    }

    // The clusters `dedup` finds are exactly the groups of sentences linked by a shared key.
    let out = dir.path().join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(["dedup", "--quiet", "--out", out.to_str().unwrap(), input])
        .status()
        .unwrap();
    assert!(status.success());
    let mut by_key: std::collections::HashMap<u64, Vec<usize>> = Default::default();
    for (i, r) in records.iter().enumerate() {
        for k in hex_keys(r) {
            by_key.entry(k).or_default().push(i);
        }
    }
    // Connected components of the shared-key graph (tiny: repeated relabelling).
    let mut label: Vec<usize> = (0..records.len()).collect();
    loop {
        let mut changed = false;
        for members in by_key.values() {
            let min = members.iter().map(|&i| label[i]).min().unwrap();
            for &i in members {
                if label[i] != min {
                    label[i] = min;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut expected: std::collections::BTreeMap<usize, Vec<(u64, u64)>> = Default::default();
    for (i, r) in records.iter().enumerate() {
        let member = (r["doc"].as_u64().unwrap(), r["idx"].as_u64().unwrap());
        expected.entry(label[i]).or_default().push(member);
    }
    let mut expected: Vec<Vec<(u64, u64)>> =
        expected.into_values().filter(|c| c.len() > 1).collect();
    let mut found: Vec<Vec<(u64, u64)>> = std::fs::read_to_string(out.join("clusters.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let c: Value = serde_json::from_str(l).unwrap();
            c["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["doc"].as_u64().unwrap(), m["idx"].as_u64().unwrap()))
                .collect()
        })
        .collect();
    for c in expected.iter_mut().chain(found.iter_mut()) {
        c.sort_unstable();
    }
    expected.sort();
    found.sort();
    assert!(
        expected.iter().any(|c| c.len() == 3),
        "the fixture has a cluster of three near-duplicates: {expected:?}"
    );
    assert_eq!(found, expected);

    // The signer flags are dedup's; a sentence shorter than one shingle after normalization
    // gets no keys (dedup skips it).
    let (small, _) = run(&[
        "--band-keys",
        "--scheme",
        "disjoint",
        "--rows",
        "5",
        "--bands",
        "4",
        "--min-shingles",
        "0",
        input,
    ]);
    let disjoint = SignerBuilder::new()
        .scheme(BandScheme::Disjoint)
        .rows(5)
        .bands(4)
        .build()
        .unwrap();
    for r in &small {
        let keys = hex_keys(r);
        let shingles = shingler.fingerprints(r["text"].as_str().unwrap());
        match disjoint.sign(shingles.iter().copied()) {
            Ok(sig) => assert_eq!(keys, disjoint.band_keys(&sig).collect::<Vec<_>>()),
            Err(_) => assert!(keys.is_empty(), "{r}"),
        }
    }
    assert!(
        small
            .iter()
            .any(|r| r["text"] == "Short." && hex_keys(r).is_empty())
    );
}
