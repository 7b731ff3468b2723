//! `align --pairs` batches and `pan-eval`: outputs never collide, and nothing is scored against
//! an empty truth set.
use super::common;

/// `a-b` with `c` and `a` with `b-c` would both be written to `a-b-c.xml`: the pairs file is
/// refused before anything is aligned. A pair listed twice is aligned once.
#[test]
fn batch_outputs_never_collide() {
    let dir = tempfile::tempdir().unwrap();
    let (src, susp, out) = (
        dir.path().join("src"),
        dir.path().join("susp"),
        dir.path().join("out"),
    );
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(&susp).unwrap();
    let text = std::fs::read_to_string(common::workspace("testdata/check/suspicious.txt")).unwrap();
    for name in ["a-b.txt", "a.txt"] {
        std::fs::write(susp.join(name), &text).unwrap();
    }
    for name in ["c.txt", "b-c.txt"] {
        std::fs::write(src.join(name), &text).unwrap();
    }
    let pairs = dir.path().join("pairs");
    let batch = |list: &str| {
        std::fs::write(&pairs, list).unwrap();
        common::textreuse(&[
            "--quiet",
            "align",
            "--pairs",
            pairs.to_str().unwrap(),
            "--src",
            src.to_str().unwrap(),
            "--susp",
            susp.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let run = batch("a-b.txt c.txt\na.txt b-c.txt\n");
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(":2:") && stderr.contains("line 1") && stderr.contains("a-b-c.xml"),
        "{stderr}"
    );
    assert!(!out.exists(), "nothing is written before the check");

    let run = batch("a-b.txt c.txt\na-b.txt c.txt\na.txt c.txt\n");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["a-b-c.xml", "a-c.xml"]);

    let run = batch("../a.txt c.txt\n");
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("directly in --out"));
}

/// An empty truth directory used to score plagdet 1.00000 and exit 0.
#[test]
fn pan_eval_refuses_an_empty_truth_set() {
    let empty = tempfile::tempdir().unwrap();
    let e = empty.path().to_str().unwrap();
    let detections = common::workspace("testdata/align/reference");
    for args in [
        &["pan-eval", "--truth", e, "--detections", &detections][..],
        &["pan-eval", "--truth", e, "--candidates", e],
    ] {
        let (out, stderr) = common::status(args, 1);
        assert!(out.is_empty());
        assert!(
            stderr.contains("--truth") && stderr.contains("no truth files"),
            "{stderr}"
        );
    }
}

/// `--lang`: Russian text aligned with Russian rules, with detection, and an unknown code
/// refused with the list of supported ones.
#[test]
fn lang_chooses_the_stemmer_and_stopwords() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(common::workspace("testdata/lang/ru.txt")).unwrap();
    let p: Vec<&str> = text.split("\n\n").collect();
    let (src, susp) = (dir.path().join("src.txt"), dir.path().join("susp.txt"));
    std::fs::write(&src, format!("{}\n\n{}", p[0], p[1])).unwrap();
    std::fs::write(&susp, format!("{}\n\n{}\n\n{}", p[2], p[0], p[3])).unwrap();
    let (src, susp) = (src.to_str().unwrap(), susp.to_str().unwrap());
    for lang in ["ru", "auto", "Russian"] {
        let run = common::textreuse(&["align", src, susp, "--lang", lang]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let lines: Vec<serde_json::Value> = String::from_utf8(run.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1, "{lang}");
        assert_eq!(lines[0]["suspicious_text"], p[0], "{lang}");
    }
    let run = common::textreuse(&["align", src, susp, "--lang", "xx"]);
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("--lang") && stderr.contains("bg, cs") && stderr.contains("auto"),
        "{stderr}"
    );
}

/// `--fallback-ngram`: a passage reworded too heavily for any sentence pair to seed (six
/// sentences rewritten as one, one word in eight replaced) is found from its shared word
/// 4-grams by default, and not with `off`.
#[test]
fn fallback_ngram_finds_reworded_passages_unless_off() {
    // Distinct made-up words ("kq1z", "kq2z", ...): no word repeats, none is a stopword.
    let mut next = 0;
    let mut word = || {
        next += 1;
        format!("kq{next}z")
    };
    let mut sentence = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>().join(" ");
    let reused: Vec<String> = (0..6).map(|_| sentence(8)).collect();
    let (intro, outro, intro2, outro2) = (sentence(12), sentence(12), sentence(12), sentence(12));
    let source = format!("{intro}. {}. {outro}.", reused.join(". "));
    let reworded: Vec<String> = reused
        .join(" ")
        .split(' ')
        .enumerate()
        .map(|(i, w)| {
            if i % 8 == 5 {
                sentence(1)
            } else {
                w.to_string()
            }
        })
        .collect();
    let suspicious = format!("{intro2}. {}. {outro2}.", reworded.join(" "));
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = (dir.path().join("src.txt"), dir.path().join("susp.txt"));
    std::fs::write(&src, &source).unwrap();
    std::fs::write(&susp, &suspicious).unwrap();
    let (src, susp) = (src.to_str().unwrap(), susp.to_str().unwrap());
    let found = common::ok(&["align", src, susp]);
    assert_eq!(found.lines().count(), 1, "{found}");
    assert_eq!(
        common::ok(&["align", src, susp, "--fallback-ngram", "4"]),
        found
    );
    assert_eq!(
        common::ok(&["align", src, susp, "--fallback-ngram", "off"]),
        ""
    );
}

/// `--synonyms`: a paraphrase that swaps most content words for WordNet synonyms ("purchase" for
/// "buy", "tales" for "stories") is found by default, and not with `off`.
#[test]
fn synonyms_find_paraphrases_unless_off() {
    let source = "Visitors could purchase tickets at a cheaper price before the journey would \
        begin. Every customer who wanted help found a large car outside the hotel. The guides \
        would build a fire and tell stories about wealthy families.\n";
    let suspicious = "Some opening words about gardens and tomatoes come first here. Visitors \
        could buy passes at a cheaper cost before the travel would start. Every client who \
        desired aid found a big automobile outside the inn. The guides would construct a blaze \
        and recount tales about affluent households. Then the essay returns to gardening.\n";
    let dir = tempfile::tempdir().unwrap();
    let (src, susp) = (dir.path().join("src.txt"), dir.path().join("susp.txt"));
    std::fs::write(&src, source).unwrap();
    std::fs::write(&susp, suspicious).unwrap();
    let (src, susp) = (src.to_str().unwrap(), susp.to_str().unwrap());
    let found = common::ok(&["align", src, susp]);
    assert_eq!(found.lines().count(), 1, "{found}");
    assert!(
        found.contains(r#""suspicious_text":"Visitors could buy passes"#),
        "{found}"
    );
    assert_eq!(common::ok(&["align", src, susp, "--synonyms", "on"]), found);
    assert_eq!(common::ok(&["align", src, susp, "--synonyms", "off"]), "");
}
