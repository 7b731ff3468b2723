//! `textreuse reuse` end to end on the fixture corpus `testdata/check/`: the suspicious text's
//! copied paragraph is found against the corpus, written as JSON lines, TSV aggregates, stats
//! and PAN detections.
use super::common;
use textreuse_reuse::Classifier;

#[test]
fn finds_the_copied_paragraph_against_a_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let (out, pan) = (dir.path().join("out"), dir.path().join("pan"));
    common::ok(&[
        "--quiet",
        "reuse",
        &common::workspace("testdata/check/suspicious.txt"),
        "--against",
        &common::workspace("testdata/check/corpus"),
        "--min-length",
        "100",
        "--out",
        out.to_str().unwrap(),
        "--pan-out",
        pan.to_str().unwrap(),
    ]);
    let cases = common::json_lines(&std::fs::read_to_string(out.join("reuse.jsonl")).unwrap());
    assert!(!cases.is_empty());
    assert!(
        cases.iter().all(|c| c["source"]["title"] == "b-bees"),
        "{cases:?}"
    );
    assert_eq!(cases[0]["suspicious"]["title"], "suspicious");
    assert_eq!(cases[0]["kind"], "content");
    let text = std::fs::read_to_string(common::workspace("testdata/check/suspicious.txt")).unwrap();
    let start = cases[0]["suspicious_offset"].as_u64().unwrap() as usize;
    let len = cases[0]["suspicious_length"].as_u64().unwrap() as usize;
    let passage: String = text.chars().skip(start).take(len).collect();
    assert!(
        passage.contains("tens of thousands of workers"),
        "{passage}"
    );

    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["documents"], 1);
    assert!(stats["against_documents"].as_u64().unwrap() >= 2);
    let pairs = std::fs::read_to_string(out.join("pairs.tsv")).unwrap();
    assert!(pairs.lines().any(|l| l.contains("\tb-bees\t")), "{pairs}");
    assert!(pan.join("suspicious-b-bees.xml").exists());

    // PAN files inside the output directory (or around it) are refused before the run: the
    // output directory is replaced whole when the run ends.
    for (o, p) in [(&out, out.join("pan")), (&out.join("pan"), out.clone())] {
        let (_, err) = common::status(
            &[
                "reuse",
                &common::workspace("testdata/check/suspicious.txt"),
                "--out",
                o.to_str().unwrap(),
                "--pan-out",
                p.to_str().unwrap(),
            ],
            1,
        );
        assert!(err.contains("must not be inside one another"), "{err}");
    }
    assert!(out.join("reuse.jsonl").exists() && !out.join("pan").exists());

    // The candidate stage alone lists the same pair and aligns nothing.
    let only = dir.path().join("only");
    common::ok(&[
        "--quiet",
        "reuse",
        &common::workspace("testdata/check/suspicious.txt"),
        "--against",
        &common::workspace("testdata/check/corpus"),
        "--candidates-only",
        "--out",
        only.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read_to_string(only.join("reuse.jsonl")).unwrap(),
        ""
    );
    let listed = std::fs::read_to_string(only.join("pairs.tsv")).unwrap();
    assert!(listed.lines().any(|l| l.contains("\tb-bees\t")), "{listed}");
}

#[test]
fn web_pages_from_a_warc_file_against_a_corpus() {
    // testdata/warc/pages.warc.gz holds an HTML page whose article reuses a paragraph of
    // b-bees.txt, and a plain-text conversion record about chess.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    common::ok(&[
        "--quiet",
        "reuse",
        &common::workspace("testdata/warc/pages.warc.gz"),
        "--against",
        &common::workspace("testdata/check/corpus"),
        "--min-length",
        "100",
        "--out",
        out.to_str().unwrap(),
    ]);
    let cases = common::json_lines(&std::fs::read_to_string(out.join("reuse.jsonl")).unwrap());
    assert_eq!(cases.len(), 1, "{cases:?}");
    let case = &cases[0];
    assert_eq!(case["suspicious"]["title"], "https://garden.example/bees");
    assert_eq!(case["suspicious"]["record"], 3);
    assert_eq!(case["source"]["title"], "b-bees");
    assert!(case["suspicious_length"].as_u64().unwrap() > 250);
}

/// The PAN slice in `testdata/align` run as a corpus: `pan-eval --candidates` measures the
/// candidate stage, `pan-eval --detections` the whole run.
#[test]
fn pan_slice_without_the_pairs_file() {
    let dir = tempfile::tempdir().unwrap();
    let truth = common::workspace("testdata/align/truth");
    let run = |method: &str| {
        let (out, pan) = (
            dir.path().join(method),
            dir.path().join(format!("{method}-pan")),
        );
        common::ok(&[
            "--quiet",
            "reuse",
            &common::workspace("testdata/align/susp"),
            "--against",
            &common::workspace("testdata/align/src"),
            "--candidates",
            method,
            "--out",
            out.to_str().unwrap(),
            "--pan-out",
            pan.to_str().unwrap(),
        ]);
        let pairs = std::fs::read_to_string(out.join("pairs.tsv")).unwrap();
        let eval = |flag: &str, dir: &std::path::Path| -> serde_json::Value {
            let args = [
                "-q",
                "pan-eval",
                "--truth",
                &truth,
                flag,
                dir.to_str().unwrap(),
                "--json",
            ];
            serde_json::from_str(&common::ok(&args)).unwrap()
        };
        let recall = eval("--candidates", &out);
        let scores = eval("--detections", &pan);
        (pairs, recall, scores)
    };
    let (tfidf_pairs, tfidf, tfidf_scores) = run("tfidf");
    let (minhash_pairs, minhash, _) = run("minhash");
    // The translated passage's pair (category 04) is a tf-idf candidate, not a MinHash one.
    let translated = "suspicious-document00004\tsource-document00420";
    let listed = |pairs: &str| {
        pairs.lines().any(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            format!("{}\t{}", f[1], f[3]) == translated
        })
    };
    assert!(listed(&tfidf_pairs));
    assert!(!listed(&minhash_pairs));
    let found = |v: &serde_json::Value| v["categories"]["."]["found"].as_u64().unwrap();
    assert_eq!(tfidf["categories"]["."]["truth_pairs"], 8);
    assert!(found(&tfidf) > found(&minhash), "{tfidf} {minhash}");
    assert_eq!(tfidf["documents"], 7);
    assert!(
        tfidf_scores["plagdet"].as_f64().unwrap() > 0.9,
        "{tfidf_scores}"
    );
}

/// `--lang`: a Russian corpus with a copied paragraph, aligned with Russian rules or detected;
/// stats.json records the choice.
#[test]
fn lang_reaches_the_aligner_and_the_stats() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(common::workspace("testdata/lang/ru.txt")).unwrap();
    let p: Vec<&str> = text.split("\n\n").collect();
    let corpus = dir.path().join("corpus.jsonl");
    let docs = [
        serde_json::json!({"id": 1, "title": "a", "text": format!("{}\n\n{}", p[0], p[1])}),
        serde_json::json!({"id": 2, "title": "b", "text": format!("{}\n\n{}\n\n{}", p[2], p[0], p[3])}),
    ];
    std::fs::write(
        &corpus,
        docs.iter().map(|d| format!("{d}\n")).collect::<String>(),
    )
    .unwrap();
    for lang in ["ru", "auto"] {
        let out = dir.path().join(format!("out-{lang}"));
        common::ok(&[
            "--quiet",
            "reuse",
            corpus.to_str().unwrap(),
            "--lang",
            lang,
            "--out",
            out.to_str().unwrap(),
        ]);
        let stats: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap())
                .unwrap();
        assert_eq!(stats["lang"], lang);
        let cases = common::json_lines(&std::fs::read_to_string(out.join("reuse.jsonl")).unwrap());
        assert_eq!(cases.len(), 1, "{lang}: {cases:?}");
        let copied = p[0].chars().count() as u64;
        assert_eq!(cases[0]["suspicious_length"], copied, "{lang}");
        assert_eq!(cases[0]["source_length"], copied, "{lang}");
    }
}

#[test]
fn features_classes_and_passage_texts_reach_reuse_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let run = |classes: &str| {
        let out = dir.path().join(classes);
        common::ok(&[
            "--quiet",
            "reuse",
            &common::workspace("testdata/check/suspicious.txt"),
            "--against",
            &common::workspace("testdata/check/corpus"),
            "--min-length",
            "100",
            "--classes",
            classes,
            "--passage-texts",
            "--out",
            out.to_str().unwrap(),
        ]);
        let cases = common::json_lines(&std::fs::read_to_string(out.join("reuse.jsonl")).unwrap());
        let stats: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap())
                .unwrap();
        (cases, stats)
    };
    let (default, stats) = run("default");
    let (thesis, thesis_stats) = run("thesis");
    assert!(!default.is_empty());
    assert_eq!(default.len(), thesis.len(), "the classes change no passage");
    assert_eq!(
        (&stats["classifier"], &thesis_stats["classifier"]),
        (&Classifier::default().as_str().into(), &"thesis".into())
    );
    let text = std::fs::read_to_string(common::workspace("testdata/check/suspicious.txt")).unwrap();
    for (d, t) in default.iter().zip(&thesis) {
        // The passage's text is the document's text at its character offsets.
        let start = d["suspicious_offset"].as_u64().unwrap() as usize;
        let len = d["suspicious_length"].as_u64().unwrap() as usize;
        let passage: String = text.chars().skip(start).take(len).collect();
        assert_eq!(d["suspicious_text"], passage.as_str());
        assert_eq!(
            d["source_text"].as_str().unwrap().chars().count() as u64,
            d["source_length"]
        );
        // A copied paragraph: every n-gram similarity is high, both passages are whole words.
        for f in [
            "jaccard_2",
            "jaccard_5",
            "jaccard_10",
            "jaccard_15",
            "entity_jaccard",
        ] {
            let j = d[f].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&j), "{f} {d}");
            assert_eq!(d[f], t[f], "the features do not depend on the classes");
        }
        assert!(d["jaccard_2"].as_f64().unwrap() > 0.5, "{d}");
        assert!(d["suspicious_words"].as_u64().unwrap() >= 15, "{d}");
        let share = d["suspicious_share"].as_f64().unwrap();
        assert!(share > 0.0 && share <= 1.0, "{d}");
    }
    for (cases, stats) in [(&default, &stats), (&thesis, &thesis_stats)] {
        let of = |k: &str| cases.iter().filter(|c| c["kind"] == k).count() as u64;
        assert_eq!(stats["content_cases"], of("content"));
        assert_eq!(stats["structure_cases"], of("structure"));
        assert_eq!(stats["unclassified_cases"], of("unclassified"));
        assert_eq!(stats["cases"], cases.len() as u64);
    }
    assert!(default.iter().all(|c| c["kind"] != "unclassified"));
}

/// `--max-memory` at its minimum writes the bytes of an unbounded run (`reuse.jsonl`,
/// `pairs.tsv`, `documents.tsv`, `corpus.json`, and `stats.json` but for its seconds, spilled
/// bytes and index blocks), also when every structure spills (the hidden `--spill-everything`:
/// `documents.tsv` then merges a run per row, the corpus view keeps its article graph in a
/// file);
/// below the minimum it is refused before any input is read, naming the minimum; a
/// `--work-mem` beyond the sorts' share is refused naming `--work-mem`.
#[test]
fn max_memory_changes_no_output_and_refuses_too_little() {
    let sample = common::workspace("data/enwiki-sample-206.xml.bz2");
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["reuse", &sample, "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let output = common::textreuse(&args);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        (out, stderr)
    };
    let (plain, _) = run("plain", &[]);
    let (bounded, log) = run("bounded", &["--max-memory", "128MiB"]);
    assert!(log.contains("memory bound 128 MiB"), "{log}");
    let (spilled, log) = run("spilled", &["--max-memory", "128MiB", "--spill-everything"]);
    assert!(log.contains("index blocks"), "{log}");
    // The store's offsets, the documents' first chunks and posting counts, the tokens' places.
    assert!(log.contains(", 4 per-document arrays and "), "{log}");
    // The corpus view's article graph, on disk from the first article.
    assert!(
        log.contains("article graph passed its 0 MiB at 0 articles"),
        "{log}"
    );
    // A run of documents.tsv's rows per pair with a passage (two rows each).
    let runs: usize = log
        .split(" per-document arrays and ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the runs of documents.tsv rows in the log");
    let pairs = std::fs::read_to_string(bounded.join("pairs.tsv")).unwrap();
    let with_cases = pairs
        .lines()
        .skip(1)
        .filter(|l| l.split('\t').nth(5) != Some("0"))
        .count();
    assert_eq!(runs, 2 * with_cases, "{log}");
    let strip = |dir: &std::path::Path| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("stats.json")).unwrap()).unwrap();
        let stats = v.as_object_mut().unwrap();
        for field in ["seconds", "bytes_spilled", "index_blocks"] {
            stats.remove(field);
        }
        v
    };
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(spilled.join("stats.json")).unwrap()).unwrap();
    assert!(stats["bytes_spilled"].as_u64().unwrap() > 0, "{stats}");
    assert!(stats["index_blocks"].as_u64().unwrap() > 1, "{stats}");
    for other in [&bounded, &spilled] {
        for file in ["reuse.jsonl", "pairs.tsv", "documents.tsv", "corpus.json"] {
            let x = std::fs::read(plain.join(file)).unwrap();
            let y = std::fs::read(other.join(file)).unwrap();
            assert!(x == y, "{file} differs under --max-memory");
        }
        assert_eq!(strip(&plain), strip(other));
    }

    let out_dir = dir.path().join("refused");
    let out = common::textreuse(&[
        "reuse",
        "/nonexistent.jsonl",
        "--max-memory",
        "100MB",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid --max-memory"), "{stderr}");
    assert!(stderr.contains("minimum of 134217728 bytes"), "{stderr}");
    assert!(!stderr.contains("nonexistent"), "{stderr}");
    assert!(!out_dir.exists());

    let out = common::textreuse(&[
        "reuse",
        &sample,
        "--max-memory",
        "256MB",
        "--work-mem",
        "1GB",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid --work-mem"), "{stderr}");
}
