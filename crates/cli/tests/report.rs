//! `textreuse report`, `dedup --report`, `check --html` and `tune --svg` end to end: each writes
//! a self-contained page or plot with what it must show. (The pages are opened in a real
//! browser by tests/browser/test_reports.py.)
use super::common;

/// The bundled samples through `dedup --report`, then `report` on the same directory.
#[test]
fn dedup_report_of_the_bundled_samples() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    // Exit 3: the 2013 sample is damaged on purpose; the results and the report are complete.
    let (_, stderr) = common::status(&["dedup", "--out", out_s, "--report"], 3);
    assert!(stderr.contains("report of"), "{stderr}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for id in [
        "summary", "sizes", "types", "s-curve", "pairs", "largest", "samples",
    ] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "{id}");
    }
    // Three plots (sizes, types, S-curve), no script, nothing loaded.
    assert_eq!(html.matches("<svg").count(), 3);
    assert!(!html.contains("<script"));
    assert!(!html.contains(" src="));
    // Members link to their revision on Wikipedia and to their dump file.
    assert!(html.contains("https://en.wikipedia.org/w/index.php?oldid="));
    assert!(html.contains("enwiki-part-201.xml.bz2"));
    // The article pair the samples share most is listed.
    assert!(html.contains("Transport in Angola"));
    // Differences between members are marked.
    assert!(html.contains("<ins>") && html.contains("<del>"));

    // `report` on the same outputs writes the same page; fewer samples make a smaller one.
    common::ok(&["--quiet", "report", out_s]);
    assert_eq!(
        std::fs::read_to_string(out.join("report.html")).unwrap(),
        html
    );
    common::ok(&[
        "--quiet",
        "report",
        out_s,
        "--samples",
        "1",
        "--revision-url",
        "",
    ]);
    let small = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(small.len() < html.len());
    assert!(!small.contains("oldid="));
}

/// `reuse` on the fixture corpus, then `report` on its output: the reuse report, from the
/// corpus view in corpus.json.
#[test]
fn reuse_report_of_the_fixture_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    common::ok(&[
        "--quiet",
        "reuse",
        &common::workspace("testdata/check/suspicious.txt"),
        &common::workspace("testdata/check/corpus"),
        "--min-length",
        "100",
        "--out",
        out_s,
    ]);
    let view: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("corpus.json")).unwrap()).unwrap();
    assert_eq!(view["documents"], 4);
    assert_eq!(view["graph"]["articles"], 2);
    assert_eq!(view["graph"]["components"], 1);
    // Within one corpus the later document (in input order) is the suspicious one.
    assert_eq!(view["top_pairs"][0]["suspicious"]["title"], "b-bees");
    assert_eq!(view["top_pairs"][0]["source"]["title"], "suspicious");
    assert_eq!(
        (view["candidate_pairs"].as_u64(), view["cases"].as_u64()),
        (Some(3), Some(1))
    );
    let stderr = common::textreuse(&["report", out_s]).stderr;
    let stderr = String::from_utf8_lossy(&stderr);
    assert!(
        stderr.contains("report of") && stderr.contains("articles"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for id in [
        "summary",
        "classes",
        "lengths",
        "similarity",
        "graph",
        "pairs",
        "documents",
    ] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "{id}");
    }
    assert_eq!(html.matches("<svg").count(), 6);
    assert!(html.contains("split 0.1:"));
    assert!(html.contains("b-bees") && html.contains("suspicious"));
    assert!(!html.contains("<script"));

    // A new run may replace the directory, report and all.
    common::ok(&[
        "--quiet",
        "reuse",
        &common::workspace("testdata/check/suspicious.txt"),
        "--min-length",
        "100",
        "--out",
        out_s,
    ]);
    assert!(!out.join("report.html").exists());

    // A reuse directory without corpus.json (an older run) says so.
    std::fs::remove_file(out.join("corpus.json")).unwrap();
    let (_, stderr) = common::status(&["report", out_s], 1);
    assert!(stderr.contains("corpus.json: not found"), "{stderr}");
    assert!(stderr.contains("run reuse again"), "{stderr}");
}

#[test]
fn report_of_a_directory_without_outputs_says_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let (_, stderr) = common::status(&["report", dir.path().to_str().unwrap()], 1);
    assert!(stderr.contains("stats.json: not found"), "{stderr}");
    assert!(stderr.contains("--out"), "{stderr}");
}

#[test]
fn check_html_puts_passages_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("check.html");
    let susp = common::workspace("testdata/check/suspicious.txt");
    let corpus = common::workspace("testdata/check/corpus");
    let stdout = common::ok(&[
        "--quiet",
        "check",
        &susp,
        "--corpus",
        &corpus,
        "--min-length",
        "100",
        "--html",
        page.to_str().unwrap(),
    ]);
    // The JSON lines are still printed.
    assert!(!common::json_lines(&stdout).is_empty());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("b-bees"));
    assert!(html.contains("<div class=\"pair\">"));
    assert!(html.contains("<mark>"));
    assert!(html.contains("%</b> of its 575 characters"));
    assert_eq!(
        html.matches("<svg").count(),
        1,
        "one coverage strip per document"
    );
}

#[test]
fn tune_svg_draws_the_curves() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("curve.svg");
    let table = common::ok(&[
        "--quiet",
        "tune",
        "--threshold",
        "0.8",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(table.contains("cheapest configuration"));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.contains("exact") && text.contains("independent bands"));
    assert!(text.contains("threshold 0.8"));
}
