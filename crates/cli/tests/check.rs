//! `textreuse check` end to end on the tiny fixture corpus `testdata/check/` (texts written for
//! this project): the lightly edited copy of a paragraph of `b-bees.txt` is found, attributed to
//! that document, and reported with character offsets.
use serde_json::Value;

use super::common;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/check");

fn run(args: &[&str]) -> String {
    common::ok(&[&["--quiet", "check"], args].concat())
}

#[test]
fn finds_the_copied_paragraph() {
    let susp = format!("{DIR}/suspicious.txt");
    let corpus = format!("{DIR}/corpus");
    let stdout = run(&[&susp, "--corpus", &corpus, "--min-length", "100"]);
    let cases: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert!(!cases.is_empty(), "nothing found");
    let first = &cases[0];
    assert_eq!(first["rank"], 1);
    assert_eq!(first["source_title"], "b-bees");
    assert_eq!(first["kind"], "content");
    let text = std::fs::read_to_string(&susp).unwrap();
    let start = first["suspicious_offset"].as_u64().unwrap() as usize;
    let len = first["suspicious_length"].as_u64().unwrap() as usize;
    let passage: String = text.chars().skip(start).take(len).collect();
    assert!(
        passage.contains("tens of thousands of workers"),
        "{passage}"
    );
    assert!(
        cases.iter().all(|c| c["source_title"] == "b-bees"),
        "{stdout}"
    );

    let text_mode = run(&[&susp, "--corpus", &corpus, "--min-length", "100", "--text"]);
    assert!(
        text_mode.contains("content reuse from \"b-bees\""),
        "{text_mode}"
    );

    let candidates = run(&[
        &susp,
        "--corpus",
        &corpus,
        "--candidates-only",
        "--top",
        "1",
    ]);
    let c: Value = serde_json::from_str(candidates.lines().next().unwrap()).unwrap();
    assert_eq!(c["source_title"], "b-bees");
    assert_eq!(candidates.lines().count(), 1);
}

#[test]
fn empty_corpus_directory_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let susp = format!("{DIR}/suspicious.txt");
    let out = common::textreuse(&["check", &susp, "--corpus", dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
}

#[test]
fn unreadable_suspicious_files_are_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let binary = std::path::PathBuf::from(format!("{DIR}/binary.txt"));
    let missing = dir.path().join("missing.txt");
    let html = dir.path().join("report.html");
    let susp = format!("{DIR}/suspicious.txt");
    let corpus = format!("{DIR}/corpus");
    let (stdout, stderr) = common::status(
        &[
            "check",
            binary.to_str().unwrap(),
            &susp,
            missing.to_str().unwrap(),
            "--corpus",
            &corpus,
            "--min-length",
            "100",
            "--html",
            html.to_str().unwrap(),
        ],
        3,
    );
    // The readable document is checked as on its own, and the report is written.
    let cases = common::json_lines(&stdout);
    assert!(!cases.is_empty() && cases.iter().all(|c| c["source_title"] == "b-bees"));
    assert!(std::fs::read_to_string(&html).unwrap().contains("b-bees"));
    assert!(stderr.contains("binary.txt: not UTF-8 text"), "{stderr}");
    assert!(stderr.contains("missing.txt"), "{stderr}");
    assert!(stderr.contains("checked 1 documents"), "{stderr}");
}

/// An `--html` path that cannot be written is an I/O error naming it, not the `report`
/// command's hint about dedup's outputs (issue #51).
#[test]
fn an_unwritable_html_path_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("no-such-dir").join("report.html");
    let susp = format!("{DIR}/suspicious.txt");
    let corpus = format!("{DIR}/corpus");
    let (_, stderr) = common::status(
        &[
            "check",
            &susp,
            "--corpus",
            &corpus,
            "--html",
            html.to_str().unwrap(),
        ],
        1,
    );
    assert!(stderr.contains("no-such-dir"), "{stderr}");
    assert!(!stderr.contains("dedup"), "{stderr}");
}

/// `check --max-memory`: with `--corpus` the corpus goes through a temporary chunk index on
/// disk and the records are those of the in-memory run (with every output form); with
/// `--index` too; below the minimum the run is refused naming it, before anything is read.
#[test]
fn max_memory_changes_no_output_and_refuses_too_little() {
    let src = common::workspace("testdata/align/src");
    let mut susp: Vec<String> = std::fs::read_dir(common::workspace("testdata/align/susp"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    susp.sort();
    let susp: Vec<&str> = susp.iter().map(String::as_str).collect();
    // Queries of a chunk index (30 bands) on each thread need more than the smallest bound.
    let bound = ["--max-memory", "128MiB"];
    let tmp = tempfile::tempdir().unwrap();
    let ix = tmp.path().join("ix").to_string_lossy().into_owned();
    common::ok(&["-q", "index", "create", &ix, "--unit", "chunk"]);
    common::ok(&[&["-q", "index", "add", &ix, &src][..], &bound].concat());
    for extra in [
        &[][..],
        &["--candidates-only"][..],
        &["--text", "--top", "2"][..],
    ] {
        let want = run(&[&["--corpus", &src][..], extra, &susp].concat());
        assert!(want.lines().count() >= 3, "{want}");
        let got = run(&[&["--corpus", &src][..], extra, &bound, &susp].concat());
        assert_eq!(want, got, "{extra:?}");
        let got = run(&[&["--index", &ix][..], extra, &bound, &susp].concat());
        assert_eq!(want, got, "{extra:?}");
    }
    let (_, err) = common::status(
        &[
            &["check", "--corpus", "/nonexistent"][..],
            &["--max-memory", "10MB"],
            &susp,
        ]
        .concat(),
        1,
    );
    assert!(err.contains("invalid --max-memory"), "{err}");
    assert!(err.contains("minimum of 83886080 bytes"), "{err}");
    assert!(!err.contains("nonexistent"), "{err}");
}
