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

/// One policy everywhere: a binary file, an unreadable line and a line with a bad id are
/// reported with their place and skipped, the rest is read, and the run ends with status 3.
#[test]
fn bad_files_and_records_are_skipped_and_the_run_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let sentence =
        "The old mill on the river was built in 1820 and still grinds grain for the bakery.";
    std::fs::write(
        dir.path().join("a.jsonl"),
        format!(
            "{{\"id\": \"doc-a\", \"text\": \"{sentence}\"}}\n{{oops\n{{\"id\": 1.5, \"text\": \"x\"}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.bin"),
        b"\x89PNG\r\n\x1a\n\x00\xff\xfe\xfd",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("c.jsonl"),
        format!("{{\"id\": \"doc-c\", \"text\": \"{sentence}\"}}\n"),
    )
    .unwrap();
    let input = dir.path().to_str().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().to_str().unwrap();

    let (_, stderr) = common::status(&["dedup", input, "--min-shingles", "40", "--out", out], 3);
    for place in ["a.jsonl:2", "a.jsonl:3", "b.bin", "3 input problem(s)"] {
        assert!(stderr.contains(place), "{place}: {stderr}");
    }
    let clusters = common::json_lines(
        &std::fs::read_to_string(out_dir.path().join("clusters.jsonl")).unwrap(),
    );
    assert_eq!(clusters.len(), 1);
    // String ids are kept verbatim; each member names its file and line.
    let members = clusters[0]["members"].as_array().unwrap();
    assert_eq!(
        (members[0]["doc"].as_str(), members[1]["doc"].as_str()),
        (Some("doc-a"), Some("doc-c"))
    );
    assert!(members[0]["source"].as_str().unwrap().ends_with("a.jsonl"));
    assert_eq!(members[1]["record"], 1);
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.path().join("stats.json")).unwrap())
            .unwrap();
    assert_eq!(stats["input_problems"], 3);

    // The same policy in the other subcommands, and with --quiet only the last line is printed.
    let (stdout, stderr) =
        common::status(&["--quiet", "sentences", input, "--min-shingles", "40"], 3);
    assert_eq!(common::json_lines(&stdout).len(), 2);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("3 input problem(s)"), "{stderr}");
    let (stdout, _) = common::status(&["--quiet", "simhash", input, "--min-shingles", "40"], 3);
    let ids: Vec<String> = common::json_lines(&stdout)
        .iter()
        .map(|r| r["doc"].to_string())
        .collect();
    assert_eq!(ids, ["\"doc-a\"", "\"doc-c\""]);
}

/// The damaged bundled dump: `--quiet` no longer hides the damage from the exit status.
#[test]
fn damage_in_a_dump_sets_the_exit_status_even_when_quiet() {
    let damaged = common::workspace("data/enwiki-part-201.xml.bz2");
    let (stdout, stderr) = common::status(&["--quiet", "sentences", &damaged], 3);
    assert!(common::json_lines(&stdout).len() > 1000);
    assert!(stderr.contains("6 input problem(s)"), "{stderr}");
}

/// `--include` selects the files of a directory walk; files named directly are always read.
#[test]
fn include_patterns_select_files_of_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("shard")).unwrap();
    std::fs::write(
        dir.path().join("shard/a.jsonl"),
        "{\"id\": 1, \"text\": \"From the shard.\"}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("README.md"), "Notes that are not data.").unwrap();
    let input = dir.path().to_str().unwrap();
    let args = [
        "--quiet",
        "sentences",
        input,
        "--min-shingles",
        "0",
        "--include",
        "**/*.jsonl",
    ];
    let texts: Vec<String> = common::json_lines(&common::ok(&args))
        .iter()
        .map(|r| r["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts, ["From the shard."]);
    let readme = dir.path().join("README.md");
    let named = common::ok(&[&args[..], &[readme.to_str().unwrap()]].concat());
    assert_eq!(common::json_lines(&named).len(), 2);
    let (_, stderr) = common::status(&["sentences", input, "--include", "a[b"], 1);
    assert!(stderr.contains("--include"), "{stderr}");
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
        "--write-deduplicated",
        dir.path().join("copy").to_str().unwrap(),
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
    // The deduplicated copy is Parquet again, without exactly those rows.
    let copy = textreuse::dedup::rewrite::copy_path(
        &dir.path().join("copy"),
        std::path::Path::new(&common::workspace("testdata/parquet/numbers.parquet")),
    );
    let fields = textreuse::corpus::JsonFields {
        id: "doc_id".into(),
        text: "content".into(),
        title: "title".into(),
    };
    let read = |path: &std::path::Path| -> Vec<String> {
        textreuse::corpus::parquet::ParquetDocs::open(path, &fields)
            .unwrap()
            .map(|d| d.unwrap().id.to_string())
            .collect()
    };
    let mut expected = read(std::path::Path::new(&common::workspace(
        "testdata/parquet/numbers.parquet",
    )));
    expected.retain(|id| id != "105" && id != "107");
    assert_eq!(read(&copy), expected);
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

/// A UTF-8 byte-order mark (as Windows tools write) is skipped in JSON Lines and text, from a
/// file or standard input; a UTF-16 file is skipped with an error that says how to convert it.
#[test]
fn byte_order_marks() {
    let lines = "\u{feff}{\"id\": 7, \"text\": \"First one. Second one.\"}\n";
    let out = with_stdin(
        &["--quiet", "sentences", "-", "--min-shingles", "0"],
        lines.as_bytes(),
    );
    assert_eq!(common::json_lines(&out)[0]["doc"], 7);
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("bom.jsonl");
    std::fs::write(&jsonl, lines).unwrap();
    let out = common::ok(&[
        "--quiet",
        "sentences",
        jsonl.to_str().unwrap(),
        "--min-shingles",
        "0",
    ]);
    assert_eq!(common::json_lines(&out).len(), 2);

    let utf16: Vec<u8> = std::iter::once(0xfeff_u16)
        .chain(lines.trim_start_matches('\u{feff}').encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect();
    let wide = dir.path().join("wide.jsonl");
    std::fs::write(&wide, utf16).unwrap();
    let (out, stderr) = common::status(&["sentences", wide.to_str().unwrap()], 3);
    assert!(out.is_empty());
    assert!(
        stderr.contains("wide.jsonl: UTF-16 (little-endian) encoded")
            && stderr.contains("iconv -f UTF-16 -t UTF-8"),
        "{stderr}"
    );
}

#[test]
fn a_cut_or_padded_warc_file_is_reported_not_read_as_a_clean_end() {
    let whole = std::fs::read(common::workspace("testdata/warc/pages.warc.gz")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Plain WARC, cut inside the last record's header; and junk after the last record.
    let mut plain = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::MultiGzDecoder::new(&whole[..]),
        &mut plain,
    )
    .unwrap();
    let last = plain.windows(9).rposition(|w| w == b"WARC/1.0\r").unwrap();
    let cut = dir.path().join("cut.warc");
    std::fs::write(&cut, &plain[..last + 40]).unwrap();
    let mut junk_bytes = plain.clone();
    junk_bytes.extend_from_slice(b"trailing junk\n");
    let junk = dir.path().join("junk.warc");
    std::fs::write(&junk, junk_bytes).unwrap();
    // gzip, cut in the middle of the file (inside a member).
    let gz = dir.path().join("cut.warc.gz");
    std::fs::write(&gz, &whole[..whole.len() * 2 / 3]).unwrap();
    for (path, expect) in [
        (&cut, "ends inside a record header"),
        (&junk, "are not a WARC record"),
        (&gz, "cut.warc.gz"),
    ] {
        let out = dir.path().join("out");
        let (_, stderr) = common::status(
            &[
                "dedup",
                "--unit",
                "document",
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            3,
        );
        assert!(stderr.contains(expect), "{}: {stderr}", path.display());
    }
}

/// A Ukrainian dump gets its wiki's namespace names with no option given: `extract` (from a
/// file and from standard input) and `sentences` leave no `Категорія:` link and no
/// `міні|праворуч|` image options (the English-only cleaner left both).
#[test]
fn dumps_in_other_languages_are_cleaned_with_their_own_names() {
    let dump = common::workspace("testdata/lang/ukwiki-slice.xml.bz2");
    let residue = ["Категорія:", "Файл:", "міні|", "праворуч|", "thumb|"];
    let extracted = common::ok(&["--quiet", "extract", &dump]);
    let stdin = with_stdin(&["--quiet", "extract", "-"], &std::fs::read(&dump).unwrap());
    assert_eq!(extracted, stdin);
    let articles = common::json_lines(&extracted);
    assert_eq!(articles.len(), 15);
    let sentences = common::ok(&["--quiet", "sentences", &dump, "--min-shingles", "0"]);
    assert!(common::json_lines(&sentences).len() > 500);
    for out in [&extracted, &sentences] {
        for r in residue {
            assert!(!out.contains(r), "{r}");
        }
    }
    // The text is still there: a sentence of the article "Атом" next to a file link.
    assert!(sentences.contains("Атом"), "{}", &sentences[..200]);
}

/// `extract --max-memory` writes the bytes of an unbounded run (at bounds that leave one
/// decompression thread or two); a bound below three page caps and the fixed cost is refused
/// naming the minimum, before the dump is opened; a smaller page cap lowers the minimum.
#[test]
fn extract_max_memory_changes_no_output_and_refuses_too_little() {
    let dump = common::workspace("data/enwiki-sample-206.xml.bz2");
    let want = common::ok(&["--quiet", "extract", &dump]);
    for bound in [
        &["--max-memory", "210MiB"][..],
        &["--max-memory", "1GiB"][..],
    ] {
        let got = common::ok(&[&["--quiet", "extract", &dump][..], bound].concat());
        assert!(got == want, "{bound:?}");
    }
    let capped = common::ok(&["--quiet", "extract", &dump, "--max-page-mib", "8"]);
    let got = common::ok(&[
        "--quiet",
        "extract",
        &dump,
        "--max-page-mib",
        "8",
        "--max-memory",
        "42MiB",
    ]);
    assert!(got == capped);
    let (_, err) = common::status(
        &["extract", "/nonexistent.xml.bz2", "--max-memory", "200MiB"],
        1,
    );
    assert!(err.contains("invalid --max-memory"), "{err}");
    assert!(err.contains("minimum of 220200960 bytes"), "{err}");
    assert!(!err.contains("nonexistent"), "{err}");
}
