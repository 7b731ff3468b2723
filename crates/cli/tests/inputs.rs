//! Inputs as users have them: standard input, compressed files, their own field names.
use std::io::Write;
use std::process::{Command, Stdio};

use super::common;

/// Runs `textreuse args...` with `stdin` on standard input; returns stdout.
fn with_stdin(args: &[&str], stdin: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn standard_input_json_lines_and_text() {
    let lines = "{\"id\": 7, \"title\": \"Seven\", \"text\": \"First one. Second one.\"}\n";
    let out = with_stdin(
        &["--quiet", "sentences", "-", "--min-shingles", "0"],
        lines.as_bytes(),
    );
    let records = common::json_lines(&out);
    assert_eq!(records.len(), 2);
    assert_eq!(records[0]["doc"], 7);
    assert_eq!(records[1]["text"], "Second one.");

    let out = with_stdin(
        &["--quiet", "sentences", "-", "--min-shingles", "0"],
        b"Just some plain text.",
    );
    let records = common::json_lines(&out);
    assert_eq!(
        (records[0]["doc"].as_u64(), records[0]["title"].as_str()),
        (Some(1), Some("stdin"))
    );
}

/// A Hugging Face style export: other field names, gzip-compressed, found in a directory.
#[test]
fn field_names_compressed_file_in_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let sentence =
        "The old mill on the river was built in 1820 and still grinds grain for the bakery.";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    for id in [1, 2] {
        writeln!(gz, "{{\"doc_id\": {id}, \"content\": \"{sentence}\"}}").unwrap();
    }
    std::fs::create_dir(dir.path().join("shard")).unwrap();
    std::fs::write(
        dir.path().join("shard/part-0.jsonl.gz"),
        gz.finish().unwrap(),
    )
    .unwrap();
    let out = dir.path().join("out");
    common::ok(&[
        "--quiet",
        "dedup",
        dir.path().to_str().unwrap(),
        "--id-field",
        "doc_id",
        "--text-field",
        "content",
        "--min-shingles",
        "40",
        "--out",
        out.to_str().unwrap(),
    ]);
    let clusters = std::fs::read_to_string(out.join("clusters.jsonl")).unwrap();
    let clusters = common::json_lines(&clusters);
    assert_eq!(clusters.len(), 1);
    let docs: Vec<u64> = clusters[0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["doc"].as_u64().unwrap())
        .collect();
    assert_eq!(docs, [1, 2]);
}

/// Parquet: integer ids in other columns, read by `dedup --unit document`; the two planted
/// near-duplicate pairs are found and named by their ids as JSON numbers.
#[test]
fn parquet_integer_ids_dedup_documents() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    common::ok(&[
        "--quiet",
        "dedup",
        "--unit",
        "document",
        "--id-field",
        "doc_id",
        "--text-field",
        "content",
        &common::workspace("testdata/parquet/numbers.parquet"),
        "--out",
        out.to_str().unwrap(),
    ]);
    let duplicates = std::fs::read_to_string(out.join("duplicates.jsonl")).unwrap();
    let pairs: Vec<(u64, u64, u64)> = common::json_lines(&duplicates)
        .iter()
        .map(|d| {
            (
                d["doc"].as_u64().unwrap(),
                d["duplicate_of"]["doc"].as_u64().unwrap(),
                d["record"].as_u64().unwrap(),
            )
        })
        .collect();
    // (duplicate, kept, the duplicate's 1-based row)
    assert_eq!(pairs, [(105, 101, 5), (107, 103, 7)]);
}

/// Parquet string ids are printed verbatim; the row with a null text is reported and skipped
/// (exit status 3), the others are read.
#[test]
fn parquet_string_ids_and_a_null_row() {
    let (stdout, stderr) = common::status(
        &[
            "sentences",
            &common::workspace("testdata/parquet/docs.parquet"),
            "--min-shingles",
            "0",
        ],
        3,
    );
    assert!(
        stderr.contains("docs.parquet:8:") && stderr.contains("\"text\") is null"),
        "{stderr}"
    );
    let mut docs: Vec<String> = common::json_lines(&stdout)
        .iter()
        .map(|s| s["doc"].as_str().expect("a string id").to_string())
        .collect();
    docs.dedup();
    assert_eq!(
        docs,
        [
            "mill-a",
            "lighthouse",
            "railway",
            "orchard",
            "mill-b",
            "choir",
            "market",
            "bridge",
            "lighthouse-2",
            "archive"
        ]
    );
}
