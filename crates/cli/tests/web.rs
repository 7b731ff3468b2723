//! `reuse WEB --against WIKI`: the web study (websites.tsv, websites.json, revenue.json) on
//! the real pages of testdata/web.
use std::path::Path;

use crate::common;

/// The real pages of testdata/web (14 pages of 10 websites, one of them the Wikipedia page of
/// the article in wiki.jsonl) against that article and the bundled 2016 dump sample.
fn web_run(out: &Path, extra: &[&str]) -> (String, String) {
    let mut args = vec![
        "reuse".to_string(),
        common::workspace("testdata/web/pages.warc.gz"),
        "--against".into(),
        common::workspace("testdata/web/wiki.jsonl"),
        common::workspace("data/enwiki-sample-206.xml.bz2"),
        "--out".into(),
        out.to_str().unwrap().into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    common::status(&args, 0)
}

#[test]
fn websites_of_the_real_pages() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (_, log) = web_run(&out, &["--threads", "1"]);
    assert!(
        log.contains("web study: 14 pages of 10 websites examined"),
        "{log}"
    );
    let tsv = std::fs::read_to_string(out.join("websites.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows[0], textreuse_reuse_header());
    assert_eq!(rows.len(), 11, "{tsv}");
    // The one page reusing Wikipedia is Wikipedia's own page of the article: its whole text
    // is reused, and it links to the article (through its mobile version's link).
    assert_eq!(rows[1][..4], ["wikipedia.org", "1", "1", "1.0000"], "{tsv}");
    let reused_chars: u64 = rows[1][4].parse().unwrap();
    let reused_words: u64 = rows[1][5].parse().unwrap();
    assert!(reused_chars > 13_000 && reused_words > 2_000, "{tsv}");
    assert_eq!(rows[1][6..], ["1", "1", "0"]);
    // The other websites, by domain: registered domains (news.cnet.com and www.cnet.com are
    // cnet.com, www.telegraph.co.uk is telegraph.co.uk), none of their pages reusing.
    let others: Vec<(&str, &str, &str)> = rows[2..].iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(
        others,
        [
            ("abc.net.au", "1", "0"),
            ("businessinsider.com", "3", "0"),
            ("cnet.com", "2", "0"),
            ("dcurt.is", "1", "0"),
            ("github.com", "1", "0"),
            ("mcsweeneys.net", "1", "0"),
            ("slate.fr", "1", "0"),
            ("telegraph.co.uk", "1", "0"),
            ("time.com", "2", "0"),
        ]
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("websites.json")).unwrap()).unwrap();
    assert_eq!(summary["pages"], 14);
    assert_eq!(summary["websites"], 10);
    assert_eq!(summary["reusing_pages"], 1);
    assert_eq!(summary["reused_articles"], 1);
    assert_eq!(summary["linking_article"], 1);
    // 7 websites of one page, 2 of two (cnet.com, time.com), 1 of three (businessinsider.com).
    let buckets: Vec<(u64, u64, u64)> = summary["pages_per_website"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["min"].as_u64().unwrap(),
                b["max"].as_u64().unwrap(),
                b["websites"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(buckets, [(1, 1, 7), (2, 2, 2), (3, 5, 1)]);
    // No revenue inputs, no revenue.json.
    assert!(!out.join("revenue.json").exists());
}

fn textreuse_reuse_header() -> Vec<&'static str> {
    vec![
        "website",
        "pages",
        "reusing_pages",
        "reusing_share",
        "reused_chars",
        "reused_words",
        "linking_wikipedia",
        "linking_article",
        "attribution_unknown",
    ]
}

#[test]
fn revenue_of_the_real_pages() {
    let dir = tempfile::tempdir().unwrap();
    let values = dir.path().join("values.csv");
    std::fs::write(
        &values,
        "domain,value\nen.wikipedia.org,1000000\nwww.businessinsider.com,250000\n",
    )
    .unwrap();
    let csv = dir.path().join("views.csv");
    std::fs::write(&csv, "title,views\n\"Now and Then, Here and There\",1234\n").unwrap();
    // Wikimedia's pageview dump lines: desktop and mobile views of the English Wikipedia
    // count; the German Wikipedia's line does not, nor does an article nobody reused.
    let dump = dir.path().join("pageviews-20240101-000000");
    std::fs::write(
        &dump,
        "en Now_and_Then,_Here_and_There 100 0\nen.m Now_and_Then,_Here_and_There 20 0\n\
         de Now_and_Then,_Here_and_There 7 0\nen Anarchism 5000 0\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (_, log) = web_run(
        &out,
        &[
            "--site-values",
            values.to_str().unwrap(),
            "--pageviews",
            csv.to_str().unwrap(),
            dump.to_str().unwrap(),
            "--cpm",
            "2.5",
        ],
    );
    assert!(
        log.contains("1354 monthly views of 1 reused articles / 1000 x 2.5 USD CPM = 3.39 USD"),
        "{log}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("revenue.json")).unwrap()).unwrap();
    // (a) and (b): wikipedia.org's value times its share (1.0); businessinsider.com reuses
    // nothing and adds nothing.
    assert_eq!(r["site_value"]["usd"], 1_000_000.0);
    assert_eq!(r["site_value"]["websites"], 1);
    assert_eq!(r["lower_bound"]["usd"], 1_000_000.0);
    assert!(
        r["lower_bound"]["assumptions"]
            .as_str()
            .unwrap()
            .contains("at least half")
    );
    // (c): (1234 + 100 + 20) views / 1000 x 2.5 USD.
    let c = &r["page_views"];
    assert_eq!(c["monthly_views"], 1354);
    assert!((c["usd"].as_f64().unwrap() - 3.385).abs() < 1e-9);
    assert_eq!(c["lines"]["other_wikis"], 1);
    assert!(c["assumptions"].as_str().unwrap().contains("CPM"));

    // The reuse report of the run has the web study's section, with the revenue estimates.
    common::ok(&["--quiet", "report", out.to_str().unwrap()]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<section id=\"web\">"), "no web section");
    assert!(html.contains("href=\"#web\""), "no navigation entry");
    assert!(
        html.contains("1354 views a month of 1 reused articles"),
        "no revenue table"
    );
}

#[test]
fn the_web_study_is_the_same_for_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let views = dir.path().join("views.csv");
    std::fs::write(&views, "\"Now and Then, Here and There\",10\n").unwrap();
    let files = ["websites.tsv", "websites.json", "revenue.json"];
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("out-{threads}"));
        web_run(
            &out,
            &["--threads", threads, "--pageviews", views.to_str().unwrap()],
        );
        outputs.push(files.map(|f| std::fs::read(out.join(f)).unwrap()));
    }
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn bad_revenue_inputs_stop_the_run_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let values = dir.path().join("values.csv");
    std::fs::write(&values, "example.com,100\nexample.org\n").unwrap();
    let pages = common::workspace("testdata/web/pages.warc.gz");
    let wiki = common::workspace("testdata/web/wiki.jsonl");
    let out_s = out.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["reuse", &pages, "--against", &wiki, "--out", out_s];
        args.extend_from_slice(extra);
        let out = common::textreuse(&args);
        assert!(!out.status.success(), "{extra:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = run(&["--site-values", values.to_str().unwrap()]);
    assert!(
        e.contains("invalid --site-values") && e.contains("values.csv:2: 1 fields, not 2"),
        "{e}"
    );
    let views = dir.path().join("pageviews-x");
    std::fs::write(&views, "en A 1 0\nen B lots 0\n").unwrap();
    let e = run(&["--pageviews", views.to_str().unwrap()]);
    assert!(
        e.contains("pageviews-x:2: the view count \"lots\" is not a whole number"),
        "{e}"
    );
    let e = run(&["--cpm", "3"]);
    assert!(e.contains("--cpm prices page views"), "{e}");
    let e = run(&["--cpm=-1", "--pageviews", views.to_str().unwrap()]);
    assert!(e.contains("invalid --cpm -1"), "{e}");
    // The run stopped before writing anything.
    assert!(!out.exists());
    // The web study needs --against.
    let out = common::textreuse(&["reuse", &pages, "--cpm", "3", "--out", out_s]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("give the articles with --against"));
}

/// A WET record (a `conversion` record: the text only) carries no links, so a reusing page
/// read from one has an unknown attribution, not a missing one.
#[test]
fn pages_of_wet_records_have_unknown_attribution() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(common::workspace("testdata/check/corpus/b-bees.txt")).unwrap();
    let body = format!("Bees in our garden\n\n{text}");
    let wet = format!(
        "WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: https://www.garden.example.co.uk/bees\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n\
         Content-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
        body.len()
    );
    let path = dir.path().join("bees.warc.wet");
    std::fs::write(&path, wet).unwrap();
    let out = dir.path().join("out");
    common::ok(&[
        "--quiet",
        "reuse",
        path.to_str().unwrap(),
        "--against",
        &common::workspace("testdata/check/corpus"),
        "--out",
        out.to_str().unwrap(),
    ]);
    let tsv = std::fs::read_to_string(out.join("websites.tsv")).unwrap();
    let row: Vec<&str> = tsv.lines().nth(1).unwrap().split('\t').collect();
    // www.garden.example.co.uk is a site of the registered domain example.co.uk.
    assert_eq!(row[..3], ["example.co.uk", "1", "1"], "{tsv}");
    assert_eq!(row[6..], ["0", "0", "1"], "{tsv}");
}

/// Within one corpus, or without URLs, there is no web study.
#[test]
fn no_web_study_without_web_pages_against_another_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    common::ok(&[
        "--quiet",
        "reuse",
        &common::workspace("testdata/check/corpus"),
        "--against",
        &common::workspace("testdata/check/corpus/b-bees.txt"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(out.join("stats.json").exists());
    assert!(!out.join("websites.tsv").exists());
    let out2 = dir.path().join("out2");
    common::ok(&[
        "--quiet",
        "reuse",
        &common::workspace("testdata/warc/pages.warc.gz"),
        "--out",
        out2.to_str().unwrap(),
    ]);
    assert!(!out2.join("websites.tsv").exists());
}
