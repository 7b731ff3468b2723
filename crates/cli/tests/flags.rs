//! Flags mean the same in every subcommand, meaningless values are refused with a message, and
//! a closed output pipe ends the run quietly.
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use super::common;

fn refused(args: &[&str], says: &str) {
    let out = common::textreuse(args);
    assert!(!out.status.success(), "{args:?} was accepted");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(says), "{args:?}: {stderr}");
}

#[test]
fn meaningless_values_are_refused() {
    refused(&["--threads", "0", "tune"], "--threads");
    refused(&["check", "a.txt", "--corpus", "c", "--top", "0"], "--top");
    for cmd in ["dedup", "sentences", "simhash"] {
        refused(
            &[cmd, "--min-shingles", "700"],
            "--min-shingles 700 is above",
        );
    }
    refused(&["dedup", "--max-bucket", "0"], "got 0");
    refused(
        &["align", "a.txt", "b.txt", "--lang", "xx"],
        "supported: ar, bg",
    );
    refused(
        &["check", "a.txt", "--corpus", "c", "--lang", "klingon"],
        "or auto (detected per document)",
    );
    for cmd in [&["align", "a.txt", "b.txt"][..], &["reuse", "c"]] {
        refused(&[cmd, &["--fallback-ngram", "0"]].concat(), "or `off`");
        refused(
            &[cmd, &["--synonyms", "yes"]].concat(),
            "expected `on` or `off`, got `yes`",
        );
    }
}

/// `--max-shingles 0` is "no upper bound" in `dedup` as in `sentences`: both keep the same
/// sentences.
#[test]
fn max_shingles_zero_is_unbounded_everywhere() {
    let docs = common::workspace("testdata/shingle/docs.jsonl");
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    let sentences = common::ok(&["--quiet", "sentences", &docs, "--max-shingles", "0"]);
    let bounded = common::ok(&["--quiet", "sentences", &docs, "--max-shingles", "100"]);
    assert!(sentences.lines().count() > bounded.lines().count());
    common::ok(&["--quiet", "dedup", &docs, "--max-shingles", "0", "--out", o]);
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("stats.json")).unwrap()).unwrap();
    assert_eq!(
        stats["sentences_kept"].as_u64().unwrap(),
        sentences.lines().count() as u64
    );
}

/// `textreuse sentences | head -1`: the reader goes away, the command ends with status 0 and
/// no message.
#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(["sentences"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with('{'));
    // The pipe closes here (the reader is dropped).
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
}

/// Sizes that would allocate without bound or run for hours are refused at once, with the
/// limit: the hostile values of issue #22.
#[test]
fn sizes_beyond_the_limits_are_refused_with_the_limit() {
    let docs = common::workspace("testdata/shingle/docs.jsonl");
    refused(&["--threads", "1025", "tune"], "must be at most 1024");
    common::ok(&["--threads", "1024", "tune"]);
    for cmd in [
        &["tune"][..],
        &["sentences", &docs, "--band-keys"],
        &["dedup", &docs, "--out", "/nonexistent/never-written"],
    ] {
        let big = [
            "--scheme", "disjoint", "--rows", "100000", "--bands", "100000",
        ];
        refused(&[cmd, &big].concat(), "at most 4096 hash functions");
        let huge = ["--scheme", "disjoint", "--rows", "4294967295"];
        refused(&[cmd, &huge].concat(), "--rows/--bands");
    }
    refused(
        &[
            "check", &docs, "--corpus", &docs, "--rows", "1000000", "--bands", "1000000",
        ],
        "at most 4096",
    );
    refused(
        &[
            "simhash",
            &docs,
            "--pairs",
            "--method",
            "window",
            "--permutations",
            "1000000",
        ],
        "above the supported 1024",
    );
    refused(
        &[
            "dedup",
            &docs,
            "--max-hamming",
            "65",
            "--out",
            "/nonexistent/x",
        ],
        "--max-hamming",
    );
    refused(
        &["tune", "--threshold", "0.8", "--recall", "NaN"],
        "--recall",
    );
    refused(&["tune", "--min-set", "1048577"], "at most 1048576");
    common::ok(&[
        "tune", "--scheme", "disjoint", "--rows", "4096", "--bands", "1",
    ]);
}
