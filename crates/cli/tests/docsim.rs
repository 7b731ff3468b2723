//! `textreuse docsim` end to end on documents made of the paragraphs of `testdata/simhash/`
//! (Wikipedia text, CC BY-SA): the pairs are those of comparing every pair of the library's
//! fingerprint sets, `--query` compares queries with the corpus, `--fingerprints` writes the
//! library's sets, and the output is the same for any thread count.
use serde_json::Value;
use textreuse_simhash::{FingerprintSet, ParagraphFingerprinter, set_similarity};

use super::common::{json_lines, ok, status, workspace};

/// The paragraphs of the fixture's three documents: Albedo (`a`), its revision (`r`) and
/// Anarchism (`n`).
fn paragraphs() -> (Vec<String>, Vec<String>, Vec<String>) {
    let docs = std::fs::read_to_string(workspace("testdata/simhash/docs.jsonl")).unwrap();
    let texts: Vec<Vec<String>> = json_lines(&docs)
        .iter()
        .map(|d| {
            d["text"]
                .as_str()
                .unwrap()
                .split("\n\n")
                .map(str::to_owned)
                .collect()
        })
        .collect();
    (texts[0].clone(), texts[1].clone(), texts[2].clone())
}

/// Six documents: Albedo, its revision, Anarchism, Albedo reordered, two Albedo paragraphs with
/// one of Anarchism, Anarchism with a paragraph that has no long sentence.
fn corpus() -> Vec<String> {
    let (a, r, n) = paragraphs();
    vec![
        a.join("\n\n"),
        r.join("\n\n"),
        n.join("\n\n"),
        [&a[2], &a[0], &a[1]].map(String::as_str).join("\n\n"),
        [&a[0], &a[1], &n[0]].map(String::as_str).join("\n\n"),
        format!("{}\n\nShort. Tiny.", n.join("\n\n")),
    ]
}

fn write_jsonl(dir: &std::path::Path, name: &str, texts: &[String]) -> String {
    let path = dir.join(name);
    let lines: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            serde_json::json!({"id": i, "title": format!("doc {i}"), "text": t}).to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.to_str().unwrap().to_owned()
}

fn pair(v: &Value) -> (u64, u64, f64) {
    (
        v["a"]["doc"].as_u64().unwrap(),
        v["b"]["doc"].as_u64().unwrap(),
        v["similarity"].as_f64().unwrap(),
    )
}

#[test]
fn pairs_are_every_pair_of_the_librarys_sets_at_or_above_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let texts = corpus();
    let file = write_jsonl(dir.path(), "corpus.jsonl", &texts);
    let fp = ParagraphFingerprinter::wang();
    let sets: Vec<FingerprintSet> = texts.iter().map(|t| fp.fingerprint_set(t)).collect();
    for r in ["0.8", "0.5", "0.1", "1"] {
        let stdout = ok(&["docsim", "--threshold", r, &file]);
        let got: Vec<(u64, u64, f64)> = json_lines(&stdout).iter().map(pair).collect();
        let mut want = Vec::new();
        for a in 0..sets.len() {
            for b in a + 1..sets.len() {
                let s = set_similarity(&sets[a], &sets[b]);
                if s >= r.parse::<f64>().unwrap() {
                    want.push((a as u64, b as u64, s));
                }
            }
        }
        assert_eq!(got, want, "r = {r}");
        // Same bytes on one thread.
        assert_eq!(
            ok(&["--threads", "1", "docsim", "--threshold", r, &file]),
            stdout
        );
    }
    // What the documents were made for: the reordered copy is equal as a set, Anarchism with
    // an extra short paragraph keeps S = 2 / sqrt(2 * 3) = 0.816 (the extra paragraph gets the
    // document fallback), two of three Albedo paragraphs are S = 2/3 < 0.8.
    let lines = json_lines(&ok(&["docsim", &file]));
    let got: Vec<(u64, u64, f64)> = lines.iter().map(pair).collect();
    assert!(got.contains(&(0, 3, 1.0)), "{got:?}");
    assert!(got.contains(&(2, 5, 2.0 / 6f64.sqrt())), "{got:?}");
    assert!(!got.iter().any(|p| (p.0, p.1) == (0, 4)));
    let first = &lines[0];
    assert_eq!(first["a"]["title"], "doc 0");
    assert!(
        first["a"]["source"]
            .as_str()
            .unwrap()
            .ends_with("corpus.jsonl")
    );
    assert_eq!(first["shared"], 3);
    assert_eq!(first["a_fingerprints"], 3);
}

#[test]
fn queries_against_a_corpus_and_fingerprint_sets() {
    let dir = tempfile::tempdir().unwrap();
    let texts = corpus();
    let file = write_jsonl(dir.path(), "corpus.jsonl", &texts);
    let query = write_jsonl(
        dir.path(),
        "query.jsonl",
        &[texts[3].clone(), texts[5].clone()],
    );
    let fp = ParagraphFingerprinter::wang();
    let sets: Vec<FingerprintSet> = texts.iter().map(|t| fp.fingerprint_set(t)).collect();
    let got: Vec<(u64, u64, f64)> = json_lines(&ok(&["docsim", &file, "--query", &query]))
        .iter()
        .map(pair)
        .collect();
    let mut want = Vec::new();
    for (q, text) in [&texts[3], &texts[5]].iter().enumerate() {
        let m = fp.fingerprint_set(text);
        for (b, n) in sets.iter().enumerate() {
            let s = set_similarity(&m, n);
            if s >= 0.8 {
                want.push((q as u64, b as u64, s));
            }
        }
    }
    assert_eq!(got, want);
    assert!(got.contains(&(0, 0, 1.0)) && got.contains(&(0, 3, 1.0)));

    // --fingerprints: the library's sets as 8-digit hex (b = 32), in input order.
    let lines = json_lines(&ok(&["docsim", "--fingerprints", &file]));
    assert_eq!(lines.len(), texts.len());
    for (line, set) in lines.iter().zip(&sets) {
        let hex: Vec<String> = set.as_slice().iter().map(|f| format!("{f:08x}")).collect();
        assert_eq!(line["fingerprints"], serde_json::json!(hex));
    }
    // --bits 16 gives 4-digit fingerprints.
    let narrow = json_lines(&ok(&["docsim", "--fingerprints", "--bits", "16", &file]));
    assert!(
        narrow[0]["fingerprints"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f.as_str().unwrap().len() == 4)
    );
}

#[test]
fn bad_parameters_are_refused_before_reading() {
    for (flag, value) in [
        ("--threshold", "0"),
        ("--threshold", "1.5"),
        ("--bits", "65"),
        ("--words", "0"),
        ("--sentences", "0"),
        ("--max-hamming", "65"),
    ] {
        let (_, stderr) = status(&["docsim", flag, value, "/nonexistent"], 1);
        assert!(
            stderr.contains(&format!("invalid {flag}")),
            "{flag}: {stderr}"
        );
    }
}
