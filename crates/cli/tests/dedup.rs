//! `textreuse dedup` end to end: outputs that do not depend on thread count or memory budget,
//! and the same clusters as the library run through the facade (`textreuse::dedup`).
use std::path::Path;

use textreuse::corpus::{Inputs, NoProgress};
use textreuse::dedup::{Collect, Dedup};

use super::common;

fn dedup_cli(args: &[&str], out: &Path) {
    let out = out.to_str().unwrap();
    common::ok(&[&["--quiet"], args, &["--out", out]].concat());
}

/// Byte-identical clusters and article pairs for 1 or 2 threads and a budget that forces the
/// shuffle to spill many runs or none.
#[test]
fn outputs_do_not_depend_on_threads_or_memory_budget() {
    let sample = common::workspace("data/enwiki-sample-206.xml.bz2");
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    dedup_cli(
        &["--threads", "1", "dedup", &sample, "--work-mem", "4KB"],
        a.path(),
    );
    dedup_cli(
        &["--threads", "2", "dedup", &sample, "--work-mem", "1GB"],
        b.path(),
    );
    for file in ["clusters.jsonl", "article-pairs.tsv"] {
        let x = std::fs::read(a.path().join(file)).unwrap();
        let y = std::fs::read(b.path().join(file)).unwrap();
        assert!(!x.is_empty());
        assert!(x == y, "{file} differs between runs");
    }
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(a.path().join("stats.json")).unwrap()).unwrap();
    assert!(
        stats["bytes_spilled"].as_u64().unwrap() > 0,
        "the tiny budget must spill"
    );
    assert!(stats["clusters"].as_u64().unwrap() > 0);
}

/// A Rust program that runs the engine through the facade with an in-memory sink gets exactly
/// the clusters, article pairs and counts the command line writes for the bundled samples.
#[test]
fn the_library_in_memory_equals_the_command_line() {
    let samples = [
        common::workspace("data/enwiki-part-201.xml.bz2"),
        common::workspace("data/enwiki-sample-206.xml.bz2"),
    ];
    let dir = tempfile::tempdir().unwrap();
    // The 2013 sample is damaged (data/README.md): the run reports and skips six spots,
    // writes everything else and exits with status 3.
    let out = dir.path().to_str().unwrap();
    let (_, stderr) = common::status(&["dedup", &samples[0], &samples[1], "--out", out], 3);
    assert!(stderr.contains("6 input problem(s)"), "{stderr}");
    assert_eq!(stderr.matches("skipped: ").count(), 6, "{stderr}");

    let mut results = Collect::default();
    let stats = Dedup::new()
        .run(Inputs::new(&samples), &mut results, &NoProgress)
        .unwrap();
    assert!(stats.clusters > 1000, "{stats:?}");
    let lines: String = results
        .clusters
        .iter()
        .map(|c| c.to_json() + "\n")
        .collect();
    let file = std::fs::read_to_string(dir.path().join("clusters.jsonl")).unwrap();
    assert!(
        lines == file,
        "clusters.jsonl differs from the library's clusters"
    );
    let rows: Vec<String> = results.article_pairs.iter().map(|r| r.to_tsv()).collect();
    let tsv = std::fs::read_to_string(dir.path().join("article-pairs.tsv")).unwrap();
    assert_eq!(rows, tsv.lines().skip(1).collect::<Vec<_>>());
    let written: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("stats.json")).unwrap()).unwrap();
    let mut mine = serde_json::to_value(&stats).unwrap();
    mine["seconds"] = written["seconds"].clone();
    assert_eq!(mine, written);
    summaries_match_the_clusters(&results.clusters, &stats, &written);
}

/// The summaries of stats.json, recounted the obvious way from the clusters.
fn summaries_match_the_clusters(
    clusters: &[textreuse::dedup::Cluster],
    stats: &textreuse::dedup::Stats,
    written: &serde_json::Value,
) {
    use std::collections::{BTreeSet, HashMap, HashSet};
    for key in [
        "distinct_clustered_texts",
        "article_pair_links",
        "article_pair_links_above",
        "cluster_sizes",
        "article_chains",
    ] {
        assert!(written.get(key).is_some(), "stats.json lacks {key}");
    }
    // Distinct texts over all clusters at once equal the per-cluster sum: equal texts share a
    // cluster.
    let texts: HashSet<&str> = clusters
        .iter()
        .flat_map(|c| c.members.iter().map(|m| m.text.as_str()))
        .collect();
    assert_eq!(stats.distinct_clustered_texts, texts.len() as u64);
    assert!(stats.distinct_clustered_texts < stats.clustered_sentences);
    let articles = |c: &textreuse::dedup::Cluster| -> BTreeSet<String> {
        c.members.iter().map(|m| m.doc.to_string()).collect()
    };
    let links: u64 = clusters
        .iter()
        .map(|c| articles(c).len() as u64)
        .map(|n| n * n.saturating_sub(1) / 2)
        .sum();
    assert_eq!(stats.article_pair_links, links);
    let sizes = &stats.cluster_sizes;
    assert_eq!(sizes.max, clusters.iter().map(|c| c.len()).max().unwrap());
    let mut lens: Vec<usize> = clusters.iter().map(|c| c.len()).collect();
    lens.sort_unstable();
    assert_eq!(sizes.p50, lens[lens.len().div_ceil(2) - 1]);
    let at_most_10 = lens.iter().filter(|&&n| n <= 10).count() as f64 / lens.len() as f64;
    assert_eq!(sizes.share_of_clusters_at_most[&10], at_most_10);
    // Chains by a plain graph search over the clusters of at most 200 articles.
    let mut edges: HashMap<String, BTreeSet<String>> = HashMap::new();
    for c in clusters {
        let a: Vec<String> = articles(c).into_iter().collect();
        if a.len() < 2 || a.len() > textreuse::dedup::article_pairs::MAX_CLUSTER_ARTICLES {
            continue;
        }
        for x in &a {
            edges
                .entry(x.clone())
                .or_default()
                .extend(a.iter().cloned());
        }
    }
    let mut seen: HashSet<&String> = HashSet::new();
    let mut components: Vec<usize> = Vec::new();
    for start in edges.keys() {
        if !seen.insert(start) {
            continue;
        }
        let (mut stack, mut size) = (vec![start], 0);
        while let Some(x) = stack.pop() {
            size += 1;
            for y in &edges[x] {
                if seen.insert(y) {
                    stack.push(y);
                }
            }
        }
        components.push(size);
    }
    components.sort_unstable_by(|a, b| b.cmp(a));
    let chains = &stats.article_chains;
    assert_eq!(chains.chains, components.len() as u64);
    assert_eq!(chains.articles, components.iter().sum::<usize>() as u64);
    assert_eq!(chains.largest[0].articles, components[0] as u64);
    assert!(!chains.largest[0].members[0].title.is_empty());
}

/// Bad options are refused before anything is read, naming the option.
#[test]
fn bad_options_are_named() {
    let out = common::textreuse(&["dedup", "--max-edit", "1.5", "/nonexistent.jsonl"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--max-edit"), "{stderr}");
    let out = common::textreuse(&["dedup", "--work-mem", "4 parsecs"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--work-mem"));
}

/// `--work-mem` was called `--mem-budget`: the old name gives the same result, with a warning,
/// and is refused beside the new one.
#[test]
fn the_old_name_of_work_mem_still_works() {
    let sample = common::workspace("data/enwiki-sample-206.xml.bz2");
    let run = |flag: &str| {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().join("out");
        let out = common::textreuse(&[
            "dedup",
            &sample,
            flag,
            "64KB",
            "--out",
            out_dir.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let clusters = std::fs::read(out_dir.join("clusters.jsonl")).unwrap();
        (clusters, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (new, new_err) = run("--work-mem");
    let (old, old_err) = run("--mem-budget");
    assert_eq!(new, old);
    assert!(!new_err.contains("deprecated"), "{new_err}");
    assert!(
        old_err.contains("--mem-budget is deprecated: use --work-mem"),
        "{old_err}"
    );
    let both = common::textreuse(&["dedup", &sample, "--work-mem", "1GB", "--mem-budget", "1GB"]);
    assert!(!both.status.success());
}

/// `--max-memory` at its minimum writes the bytes of an unbounded run (all five files,
/// `stats.json` but for its seconds and spilled bytes), also when every structure spills (the
/// hidden `--spill-everything`: the sorts at 4 KiB, stage 5's connected components and stage
/// 8's article ranking on disk);
/// below the minimum it is refused before any input is read, naming the minimum; a `--work-mem`
/// beyond the sorts' share is refused naming `--work-mem`.
#[test]
fn max_memory_changes_no_output_and_refuses_too_little() {
    let sample = common::workspace("data/enwiki-sample-206.xml.bz2");
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let c = tempfile::tempdir().unwrap();
    dedup_cli(&["dedup", &sample], a.path());
    dedup_cli(&["dedup", &sample, "--max-memory", "112MiB"], b.path());
    let spilled = common::textreuse(&[
        "dedup",
        &sample,
        "--max-memory",
        "112MiB",
        "--spill-everything",
        "--out",
        c.path().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&spilled.stderr);
    assert!(spilled.status.success(), "{stderr}");
    assert!(
        stderr.contains("connected components were computed on disk"),
        "{stderr}"
    );
    assert!(stderr.contains("ranked on disk"), "{stderr}");
    let strip = |dir: &Path| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("stats.json")).unwrap()).unwrap();
        let stats = v.as_object_mut().unwrap();
        stats.remove("seconds");
        stats.remove("bytes_spilled");
        v
    };
    for other in [b.path(), c.path()] {
        for file in [
            "clusters.jsonl",
            "duplicates.jsonl",
            "contradictions.jsonl",
            "article-pairs.tsv",
        ] {
            let x = std::fs::read(a.path().join(file)).unwrap();
            let y = std::fs::read(other.join(file)).unwrap();
            assert!(x == y, "{file} differs under --max-memory");
        }
        assert_eq!(strip(a.path()), strip(other));
    }

    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let out = common::textreuse(&[
        "dedup",
        "/nonexistent.jsonl",
        "--max-memory",
        "100MB",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid --max-memory"), "{stderr}");
    assert!(stderr.contains("minimum of 117440512 bytes"), "{stderr}");
    assert!(!stderr.contains("nonexistent"), "{stderr}");
    assert!(!out_dir.exists());

    let out = common::textreuse(&[
        "dedup",
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
