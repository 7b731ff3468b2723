//! `textreuse index` end to end: the life of an index (create, add, query, remove, compact,
//! stats), `check --index` against `check --corpus`, `dedup --against`, and `kill -9` during
//! `index add`.
use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use textreuse_corpus::DocId;
use textreuse_index::Index;

use super::common::{json_lines, ok, status, workspace};

/// `n` JSON Lines documents of three sentences each, ids `d<i>`; every tenth repeats a
/// sentence of the document before it.
fn jsonl(n: usize, seed: usize) -> String {
    const WORDS: [&str; 16] = [
        "river", "mill", "grain", "harbour", "valley", "orchard", "timber", "market", "bridge",
        "tower", "castle", "meadow", "forest", "stone", "village", "station",
    ];
    let mut x = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut word = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        WORDS[(x % 16) as usize]
    };
    let mut out = String::new();
    let mut prev = String::new();
    for i in 0..n {
        let mut sentences: Vec<String> = (0..3)
            .map(|_| {
                let mut s: Vec<&str> = (0..18).map(|_| word()).collect();
                s[0] = "The";
                format!("{}.", s.join(" "))
            })
            .collect();
        if i % 10 == 9 {
            sentences[1] = prev.clone();
        }
        prev = sentences[0].clone();
        let text = sentences.join(" ");
        writeln!(out, r#"{{"id":"d{i}","title":"T{i}","text":"{text}"}}"#).unwrap();
    }
    out
}

fn index_dir(dir: &Path) -> String {
    dir.join("ix").to_str().unwrap().to_string()
}

/// `index add --work-mem` was called `--mem-budget`, as dedup's flag was: the old name builds
/// the same index, with a warning on stderr, and is refused beside the new one.
#[test]
fn the_old_name_of_work_mem_still_works() {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs.jsonl");
    std::fs::write(&docs, jsonl(30, 7)).unwrap();
    let docs = docs.to_str().unwrap();
    let add = |flag: &str| {
        let ix = tmp.path().join(flag).to_str().unwrap().to_string();
        ok(&["-q", "index", "create", &ix]);
        let (_, stderr) = status(&["index", "add", &ix, docs, flag, "1MB"], 0);
        let query = ok(&["index", "query", &ix, docs]);
        let stats: Value = serde_json::from_str(&ok(&["index", "stats", &ix])).unwrap();
        (query, stats["stats"].clone(), stderr)
    };
    let (new_query, new_stats, new_err) = add("--work-mem");
    let (old_query, old_stats, old_err) = add("--mem-budget");
    assert_eq!((new_query, new_stats), (old_query, old_stats));
    assert!(!new_err.contains("deprecated"), "{new_err}");
    assert!(
        old_err.contains("--mem-budget is deprecated: use --work-mem"),
        "{old_err}"
    );
    let ix = index_dir(tmp.path());
    ok(&["-q", "index", "create", &ix]);
    let both = [
        "index",
        "add",
        &ix,
        docs,
        "--work-mem",
        "1MB",
        "--mem-budget",
        "1MB",
    ];
    status(&both, 2);
    let (_, err) = status(&["index", "add", &ix, docs, "--mem-budget", "4 parsecs"], 1);
    assert!(err.contains("invalid --mem-budget"), "{err}");
}

#[test]
fn create_add_query_remove_compact() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = index_dir(tmp.path());
    let a = tmp.path().join("a.jsonl");
    let b = tmp.path().join("b.jsonl");
    let docs = jsonl(40, 1);
    let lines: Vec<&str> = docs.lines().collect();
    std::fs::write(&a, lines[..20].join("\n")).unwrap();
    std::fs::write(&b, lines[20..].join("\n")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    ok(&["-q", "index", "create", &ix, "--threshold", "0.8"]);
    // A second create refuses.
    let (_, err) = status(&["index", "create", &ix], 1);
    assert!(err.contains("already exists"), "{err}");
    ok(&["-q", "index", "add", &ix, a]);
    ok(&["-q", "index", "add", &ix, b]);
    let stats: Value = serde_json::from_str(&ok(&["index", "stats", &ix])).unwrap();
    assert_eq!(stats["stats"]["documents"], 40);
    assert_eq!(stats["stats"]["entries"], 120);
    assert_eq!(stats["stats"]["segments"], 2);

    // Querying b finds each of its documents (itself), with provenance, and the repeated
    // sentences of the earlier documents.
    let found = json_lines(&ok(&["-q", "index", "query", &ix, b, "--verify"]));
    let d25: Vec<&Value> = found.iter().filter(|l| l["doc"] == "d25").collect();
    assert_eq!(d25.len(), 3, "every unit of d25 matches itself");
    let m = &d25[0]["matches"][0];
    assert_eq!(
        (&m["id"], &m["title"], &m["record"]),
        (&"d25".into(), &"T25".into(), &6.into())
    );
    assert!(m["source"].as_str().unwrap().ends_with("b.jsonl"));
    assert_eq!(m["jaccard"], 1.0);
    let d29: Vec<&Value> = found.iter().filter(|l| l["doc"] == "d29").collect();
    let ids: Vec<&Value> = d29[1]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["id"])
        .collect();
    assert_eq!(
        ids,
        ["d28", "d29"],
        "the repeated sentence: equal scores, in index order"
    );

    // Remove, and the removed document is no longer found; compact reclaims the space.
    let (_, err) = status(&["index", "remove", &ix, "d28", "nope"], 0);
    assert!(err.contains("not in the index: nope"), "{err}");
    let after = json_lines(&ok(&["-q", "index", "query", &ix, b]));
    assert!(after.iter().all(|l| {
        l["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["id"] != "d28")
    }));
    let before: Value = serde_json::from_str(&ok(&["index", "stats", &ix])).unwrap();
    assert_eq!(before["stats"]["removed_documents"], 1);
    ok(&["-q", "index", "compact", &ix]);
    let compacted: Value = serde_json::from_str(&ok(&["index", "stats", &ix])).unwrap();
    assert_eq!(compacted["stats"]["documents"], 39);
    assert_eq!(compacted["stats"]["segments"], 1);
    assert!(compacted["stats"]["bytes"].as_u64() < before["stats"]["bytes"].as_u64());
    assert_eq!(json_lines(&ok(&["-q", "index", "query", &ix, b])), after);

    // Errors say what to do.
    let (_, err) = status(
        &[
            "index",
            "query",
            &tmp.path().join("none").to_string_lossy(),
            a,
        ],
        1,
    );
    assert!(err.contains("not an index"), "{err}");
}

/// `index query --top-k K` and `--containment T`: one line per query document with the
/// indexed documents nearest to it or containing it, as the library answers.
#[test]
fn query_top_k_and_containment() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = index_dir(tmp.path());
    let mut corpus = jsonl(20, 3);
    let docs = json_lines(&corpus);
    let text = |i: usize| docs[i]["text"].as_str().unwrap().to_string();
    // A long document holding the first four documents' sentences.
    let long = (0..4).map(text).collect::<Vec<_>>().join(" ");
    let line = serde_json::json!({"id": "long", "title": "Long", "text": long});
    writeln!(corpus, "{line}").unwrap();
    let corpus_file = tmp.path().join("corpus.jsonl");
    std::fs::write(&corpus_file, &corpus).unwrap();
    ok(&["-q", "index", "create", &ix]);
    ok(&["-q", "index", "add", &ix, corpus_file.to_str().unwrap()]);

    // Queries: a copy of d2 (also inside "long"), two sentences of d5 and a new one, and a
    // new sentence alone.
    let fresh = {
        let other = json_lines(&jsonl(1, 99));
        let t = other[0]["text"].as_str().unwrap().to_string();
        t[..t.find(". ").unwrap() + 1].to_string()
    };
    let t5 = text(5);
    let part = format!("{} {fresh}", &t5[..t5.rfind(" The ").unwrap()]);
    let queries = [("q-copy", text(2)), ("q-part", part), ("q-none", fresh)];
    let mut q = String::new();
    for (id, t) in &queries {
        writeln!(
            q,
            "{}",
            serde_json::json!({"id": id, "title": "", "text": t})
        )
        .unwrap();
    }
    let q_file = tmp.path().join("q.jsonl");
    std::fs::write(&q_file, q).unwrap();
    let q_file = q_file.to_str().unwrap();
    let index = Index::open(&ix).unwrap();
    let ids = |line: &Value| -> Vec<String> {
        line["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    };

    // Top-k: one line per query document with matches, in the unit lines' format.
    let top = json_lines(&ok(&[
        "-q", "index", "query", &ix, q_file, "--top-k", "2", "--verify",
    ]));
    assert_eq!(top.len(), 2, "q-none has no line without --all");
    assert_eq!(
        (&top[0]["doc"], &top[0]["unit"]),
        (&"q-copy".into(), &"document".into())
    );
    assert_eq!(top[0]["start"], 0);
    assert_eq!(top[0]["end"], text(2).chars().count());
    assert_eq!(
        ids(&top[0]),
        ["d2", "long"],
        "equal scores: the document added first"
    );
    let m = &top[0]["matches"][1];
    assert_eq!((&m["title"], &m["jaccard"]), (&"Long".into(), &1.0.into()));
    assert!(m["estimated_jaccard"].is_number() && m["shared_bands"].is_number());
    assert!(m["source"].as_str().unwrap().ends_with("corpus.jsonl"));
    assert_eq!(top[1]["doc"], "q-part");
    assert_eq!(ids(&top[1])[0], "d5");
    // As the library answers.
    let options = textreuse_index::QueryOptions::new().verify(true);
    for (line, (_, t)) in top.iter().zip(&queries) {
        let want: Vec<String> = index
            .query_top_k(t, 2, &options)
            .unwrap()
            .iter()
            .map(|m| m.id.to_string())
            .collect();
        assert_eq!(ids(line), want);
    }
    let all = json_lines(&ok(&[
        "-q", "index", "query", &ix, q_file, "--top-k", "2", "--all",
    ]));
    assert_eq!(all.len(), 3);
    assert_eq!(
        (&all[2]["doc"], &all[2]["matches"]),
        (&"q-none".into(), &Value::Array(vec![]))
    );
    assert_eq!(
        ok(&["-q", "index", "query", &ix, q_file, "--top-k", "0"]),
        ""
    );

    // Containment: d2 and "long" hold all of q-copy; two thirds of q-part are in d5.
    let full = json_lines(&ok(&[
        "-q",
        "index",
        "query",
        &ix,
        q_file,
        "--containment",
        "0.9",
    ]));
    assert_eq!(full.len(), 1);
    assert_eq!(ids(&full[0]), ["d2", "long"]);
    assert!(
        full[0]["matches"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| { m["estimated_containment"] == 1.0 && m.get("containment").is_none() })
    );
    let half = json_lines(&ok(&[
        "-q",
        "index",
        "query",
        &ix,
        q_file,
        "--containment",
        "0.5",
        "--verify",
    ]));
    let part = half.iter().find(|l| l["doc"] == "q-part").unwrap();
    assert_eq!(ids(part), ["d5"]);
    let exact = part["matches"][0]["containment"].as_f64().unwrap();
    let estimated = part["matches"][0]["estimated_containment"]
        .as_f64()
        .unwrap();
    assert!(
        (0.5..0.8).contains(&exact) && (0.5..0.8).contains(&estimated),
        "{part}"
    );
    let lib = index
        .query_containment(&queries[1].1, 0.5, &options)
        .unwrap();
    assert_eq!(lib[0].containment, Some(exact));

    // Flags that do not go together, and a threshold that is not a fraction.
    for bad in [
        &["--top-k", "2", "--containment", "0.5"][..],
        &["--top-k", "2", "--limit", "1"][..],
        &["--containment", "0.5", "--min-jaccard", "0.2"][..],
        &["--containment", "1.5"][..],
    ] {
        status(&[&["index", "query", &ix, q_file][..], bad].concat(), 2);
    }
}

#[test]
fn check_index_gives_the_corpus_report() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = index_dir(tmp.path());
    let src = workspace("testdata/align/src");
    ok(&["-q", "index", "create", &ix, "--unit", "chunk"]);
    ok(&["-q", "index", "add", &ix, &src]);
    let mut susp: Vec<String> = std::fs::read_dir(workspace("testdata/align/susp"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    susp.sort();
    let susp: Vec<&str> = susp.iter().map(String::as_str).collect();
    for extra in [
        &[][..],
        &["--candidates-only"][..],
        &["--text", "--top", "2"][..],
    ] {
        let corpus = ok(&[&["-q", "check", "--corpus", &src][..], extra, &susp].concat());
        let index = ok(&[&["-q", "check", "--index", &ix][..], extra, &susp].concat());
        assert!(corpus.lines().count() >= 3, "{corpus}");
        assert_eq!(corpus, index, "{extra:?}");
    }
    // A sentence index cannot serve check.
    let sentences = tmp.path().join("s").to_string_lossy().into_owned();
    ok(&["-q", "index", "create", &sentences]);
    let (_, err) = status(&["check", "--index", &sentences, susp[0]], 1);
    assert!(err.contains("--unit chunk"), "{err}");
}

#[test]
fn dedup_against_an_index() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = index_dir(tmp.path());
    let old = tmp.path().join("old.jsonl");
    let new = tmp.path().join("new.jsonl");
    let docs = jsonl(30, 2);
    let mut lines: Vec<String> = docs.lines().map(String::from).collect();
    std::fs::write(&old, lines[..20].join("\n")).unwrap();
    // The new batch: ten new documents and a copy of old d3 under a new id.
    lines.push(lines[3].replace("\"d3\"", "\"copy-of-d3\""));
    std::fs::write(&new, lines[20..].join("\n")).unwrap();
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let out = tmp.path().join("out");
    let out_s = out.to_str().unwrap();
    ok(&["-q", "index", "create", &ix, "--unit", "document"]);
    ok(&["-q", "index", "add", &ix, old]);
    let args = |extra: &[&str]| -> Vec<String> {
        let base = [
            "-q",
            "dedup",
            new,
            "--unit",
            "document",
            "--out",
            out_s,
            "--against",
            &ix,
        ];
        base.iter().chain(extra).map(|a| a.to_string()).collect()
    };
    let dedup = |extra: &[&str]| {
        let args = args(extra);
        ok(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // Under --max-memory the index's reader gets the bound (the run is over when it
    // matches): the same matches. With --add it is halved between the reader and the
    // writer, and 112MiB (56 MiB each, below an index's 80 MiB) is refused before anything
    // is read or added.
    dedup(&[]);
    let unbounded = std::fs::read_to_string(out.join("against.jsonl")).unwrap();
    dedup(&["--max-memory", "112MiB"]);
    assert_eq!(
        std::fs::read_to_string(out.join("against.jsonl")).unwrap(),
        unbounded
    );
    let refused = args(&["--add", "--max-memory", "112MiB"]);
    let (_, err) = status(&refused.iter().map(String::as_str).collect::<Vec<_>>(), 1);
    assert!(
        err.contains("halved") && err.contains("invalid --max-memory"),
        "{err}"
    );
    assert_eq!(Index::open(&ix).unwrap().stats().documents, 20);
    dedup(&["--add"]);
    let against = json_lines(&std::fs::read_to_string(out.join("against.jsonl")).unwrap());
    assert_eq!(against.len(), 1, "{against:?}");
    assert_eq!(against[0]["doc"], "copy-of-d3");
    assert_eq!(against[0]["matches"][0]["id"], "d3");
    // Added: the index now holds the batch, and a second run finds all of it there.
    let index = Index::open(&ix).unwrap();
    assert_eq!(index.stats().documents, 31);
    assert!(index.contains(&DocId::from("d25")).unwrap());
    drop(index);
    let dedup_dir = tmp.path().join("dd");
    dedup(&["--write-deduplicated", dedup_dir.to_str().unwrap()]);
    let against = json_lines(&std::fs::read_to_string(out.join("against.jsonl")).unwrap());
    assert_eq!(against.len(), 11);
    // Every document of the batch is in the index now: the deduplicated copy is empty.
    let mut files = vec![dedup_dir.clone()];
    let mut records = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else {
            records += std::fs::read_to_string(&p).unwrap().lines().count();
        }
    }
    assert_eq!(records, 0);
    // Units must agree.
    let (_, err) = status(&["dedup", new, "--out", out_s, "--against", &ix], 1);
    assert!(err.contains("--unit document"), "{err}");
}

/// `kill -9` at several points of an `index add` that commits many times: afterwards the index
/// opens, answers, and holds exactly a prefix of the input that was committed: nothing
/// committed is lost, nothing uncommitted shows.
#[test]
fn kill_during_add_leaves_the_last_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("docs.jsonl");
    let n = 6000;
    std::fs::write(&input, jsonl(n, 3)).unwrap();
    let input = input.to_str().unwrap();
    // Kill points: at once (before any commit, on most machines), then as soon as a reader sees
    // at least a first commit, a third and two thirds of the input committed. Waiting on what a
    // reader sees, not on a share of a timed run, keeps the kills between commits however slow
    // or busy the machine is.
    let mut committed = Vec::new();
    for (i, target) in [0, 1, n as u64 / 3, 2 * n as u64 / 3]
        .into_iter()
        .enumerate()
    {
        let ix = tmp
            .path()
            .join(format!("k{i}"))
            .to_string_lossy()
            .into_owned();
        ok(&["-q", "index", "create", &ix]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_textreuse"))
            .args([
                "-q",
                "--threads",
                "1",
                "index",
                "add",
                &ix,
                input,
                "--work-mem",
                "1MB",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        while target > 0 && Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if Index::open(&ix).unwrap().stats().documents >= target {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        child.kill().unwrap(); // SIGKILL (or nothing, if it has ended)
        child.wait().unwrap();
        let index = Index::open(&ix).unwrap();
        let docs = index.stats().documents;
        // Exactly the first `docs` documents, in order.
        for d in [0, docs.saturating_sub(1), docs, n as u64 - 1] {
            let id = DocId::from(format!("d{d}"));
            assert_eq!(index.contains(&id).unwrap(), d < docs, "d{d} of {docs}");
        }
        if docs > 0 {
            let last = index.document(docs - 1).unwrap().unwrap();
            assert_eq!(last.id, DocId::from(format!("d{}", docs - 1)));
        }
        drop(index);
        // The CLI works on it, and a new writer clears what the killed one left behind.
        let stats: Value = serde_json::from_str(&ok(&["index", "stats", &ix])).unwrap();
        assert_eq!(stats["stats"]["documents"], docs);
        ok(&["-q", "index", "compact", &ix]);
        let leftovers: Vec<String> = std::fs::read_dir(&ix)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        committed.push(docs);
    }
    eprintln!("committed at the kills: {committed:?} of {n}");
    // The kills landed at different points, some after commits.
    assert!(
        committed.iter().any(|&d| d > 0 && d < n as u64),
        "no kill landed between two commits: {committed:?}"
    );
}

/// Two writers: the second fails at once with a message naming the first, and readers go on.
#[test]
fn a_second_writer_is_refused_while_the_first_works() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = index_dir(tmp.path());
    ok(&["-q", "index", "create", &ix]);
    // A writer that waits for its input on stdin holds the lock until it is killed.
    let mut first = Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(["-q", "index", "add", &ix, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = Path::new(&ix).join("LOCK");
    let start = Instant::now();
    while !std::fs::read_to_string(&lock).is_ok_and(|s| s.contains("index add")) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the first writer never locked"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let input = tmp.path().join("a.jsonl");
    std::fs::write(&input, jsonl(3, 4)).unwrap();
    let (_, err) = status(&["index", "add", &ix, input.to_str().unwrap()], 1);
    assert!(err.contains("locked by another writer (pid"), "{err}");
    assert!(err.contains("index add"), "{err}");
    // Readers are not blocked.
    let stats: Value = serde_json::from_str(&ok(&["index", "stats", &ix])).unwrap();
    assert_eq!(stats["stats"]["documents"], 0);
    first.kill().unwrap();
    first.wait().unwrap();
    // Its death released the lock.
    ok(&["-q", "index", "add", &ix, input.to_str().unwrap()]);
}

/// `index create` on an index that lost its MANIFEST refuses, naming the recovery, and leaves
/// the segments alone (it used to create an empty index whose writer deleted them).
#[test]
fn create_refuses_a_directory_without_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let ix = index_dir(tmp.path());
    let docs = tmp.path().join("docs.jsonl");
    std::fs::write(&docs, jsonl(20, 3)).unwrap();
    ok(&["-q", "index", "create", &ix]);
    ok(&["-q", "index", "add", &ix, docs.to_str().unwrap()]);
    let dir = Path::new(&ix);
    std::fs::remove_file(dir.join("MANIFEST")).unwrap();
    let (_, err) = status(&["index", "create", &ix], 1);
    assert!(err.contains("has no MANIFEST"), "{err}");
    assert!(err.contains("restore it from a backup"), "{err}");
    assert!(err.contains("use an empty or new directory"), "{err}");
    assert!(dir.join("seg-000001.seg").exists());
    // Nor may a directory of someone's files become an index.
    let user = tmp.path().join("user");
    std::fs::create_dir(&user).unwrap();
    std::fs::write(user.join("notes.txt"), "mine").unwrap();
    let (_, err) = status(&["index", "create", user.to_str().unwrap()], 1);
    assert!(err.contains("notes.txt"), "{err}");
}

/// `--max-memory` on `index add` (at the minimum, with a 1 MiB batch so that the writer commits
/// many segments and merges some), `query` and `compact` gives the answers of unbounded runs,
/// before and after compaction; below the minimum it is refused naming the minimum, before
/// the index is opened or any input read; `--work-mem` beyond the batch's share names
/// `--work-mem`.
#[test]
fn max_memory_changes_no_answer_and_refuses_too_little() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("docs.jsonl");
    std::fs::write(&data, jsonl(3000, 7)).unwrap();
    let data = data.to_str().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    ok(&["-q", "index", "create", a]);
    ok(&["-q", "index", "create", b]);
    ok(&["-q", "index", "add", a, data]);
    let small = ["--max-memory", "80MiB"];
    ok(&[
        &["-q", "index", "add", b, data, "--work-mem", "1MiB"][..],
        &small,
    ]
    .concat());
    // Queries of an index of many segments need more (each reads every segment).
    let bound = ["--max-memory", "256MiB"];
    let query = |dir: &str, extra: &[&str]| {
        ok(&[
            &["-q", "index", "query", dir, data, "--verify", "--text"][..],
            extra,
        ]
        .concat())
    };
    let want = query(a, &[]);
    assert!(want.lines().count() > 100, "{want}");
    assert_eq!(want, query(b, &bound));
    assert_eq!(want, query(b, &[]));
    let top = ["--top-k", "3"];
    assert_eq!(query(a, &top), query(b, &[&top[..], &bound].concat()));
    ok(&[&["-q", "index", "compact", b][..], &bound].concat());
    assert_eq!(want, query(b, &bound));

    for cmd in [
        &["index", "add", b, "/nonexistent.jsonl"][..],
        &["index", "query", b, "/nonexistent.jsonl"][..],
        &["index", "compact", "/nonexistent-index"][..],
    ] {
        let (_, err) = status(&[cmd, &["--max-memory", "79MiB"][..]].concat(), 1);
        assert!(err.contains("invalid --max-memory"), "{err}");
        assert!(err.contains("minimum of 83886080 bytes"), "{err}");
        assert!(!err.contains("nonexistent"), "{err}");
    }
    let (_, err) = status(
        &[&["index", "add", b, data, "--work-mem", "1GB"][..], &bound].concat(),
        1,
    );
    assert!(err.contains("invalid --work-mem"), "{err}");
}
