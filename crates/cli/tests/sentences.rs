//! `textreuse sentences` end to end on the tiny fixture `testdata/shingle/docs.jsonl` (Wikipedia
//! text, CC BY-SA) and a plain-text file.
use std::process::Command;

use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/shingle/docs.jsonl"
);

fn run(args: &[&str]) -> (Vec<Value>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .arg("sentences")
        .args(args)
        .output()
        .expect("run textreuse");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "failed: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let records = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    (records, stderr)
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
        assert_eq!(&text[start..end], r["text"].as_str().unwrap());
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

#[test]
fn errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\": 1, \"text\": \"fine\"}\nnot json\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(["sentences", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.jsonl:2"), "{stderr}");
}
