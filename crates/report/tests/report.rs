//! Reports of real dedup outputs: what they show, that they are deterministic and bounded, and
//! what happens with missing or damaged outputs.
use std::path::Path;

use textreuse_corpus::{Document, NoProgress};
use textreuse_dedup::{Dedup, Method, OutputDir};
use textreuse_report::{DedupReport, ReportError};

/// A sentence of made-up words, different for each `i`.
fn sentence(i: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "gu", "zo", "fe", "bi", "ho",
        "ja",
    ];
    let mut state = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut words = Vec::new();
    for _ in 0..16 {
        let mut word = String::new();
        for _ in 0..3 {
            state ^= state >> 29;
            state = state.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            word.push_str(SYLLABLES[(state >> 60) as usize]);
        }
        words.push(word);
    }
    format!(
        "The {} mill was built of grey stone in 1820.",
        words.join(" ")
    )
}

/// Run outputs with `n` clusters of three: a sentence, a copy with one word changed in another
/// article, and a copy with its year changed in the same article.
fn run_outputs(dir: &Path, n: usize) {
    run_outputs_with(dir, n, Dedup::builder().build().unwrap());
}

fn run_outputs_with(dir: &Path, n: usize, dedup: Dedup) {
    let mut docs = Vec::new();
    for i in 0..n {
        let base = sentence(i);
        let id = 3 * i as u64;
        docs.push(Document::new(id, format!("Mill {i}"), base.clone()));
        docs.push(Document::new(
            id + 1,
            format!("Copy {i}"),
            base.replace("grey", "gray"),
        ));
        docs.push(Document::new(
            id + 2,
            format!("Mill {i}"),
            base.replace("1820", "1821"),
        ));
    }
    dedup
        .run_documents(docs, &mut OutputDir::new(dir), &NoProgress)
        .unwrap();
}

#[test]
fn shows_every_section_deterministically() {
    let dir = tempfile::tempdir().unwrap();
    run_outputs(dir.path(), 40);
    let report = DedupReport::new();
    let html = report.render(dir.path()).unwrap();
    for id in [
        "summary", "sizes", "types", "s-curve", "pairs", "largest", "samples",
    ] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "{id}");
    }
    assert_eq!(html.matches("<svg").count(), 3);
    // Word differences: "gray" added, "grey" removed.
    assert!(html.contains("<ins>gray</ins>"), "no marked insertion");
    assert!(html.contains("<del>grey</del>"), "no marked deletion");
    // The same outputs give the same page.
    assert_eq!(report.render(dir.path()).unwrap(), html);

    let summary = report.write(dir.path()).unwrap();
    assert_eq!(summary.path, dir.path().join("report.html"));
    assert_eq!(
        std::fs::metadata(&summary.path).unwrap().len(),
        summary.bytes
    );
    assert_eq!(summary.clusters, 40);
}

#[test]
fn size_is_bounded_by_the_sample_not_the_run() {
    let (small, large) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    run_outputs(small.path(), 30);
    run_outputs(large.path(), 600);
    let mut report = DedupReport::new();
    report.samples(3).top_pairs(10);
    let a = report.render(small.path()).unwrap();
    let b = report.render(large.path()).unwrap();
    let clusters = |html: &str| html.matches("<details class=\"cluster\"").count();
    // At most 3 per type plus the 3 largest, however many clusters the run has.
    assert!(clusters(&b) <= 3 * 6 + 3, "{}", clusters(&b));
    assert_eq!(clusters(&a), clusters(&b));
    assert!(b.len() < a.len() * 3 / 2, "{} vs {}", b.len(), a.len());
}

#[test]
fn missing_outputs_say_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let err = DedupReport::new().render(dir.path()).unwrap_err();
    assert!(matches!(err, ReportError::Missing { .. }), "{err:?}");
    assert!(err.to_string().contains("--out"), "{err}");
}

#[test]
fn damaged_cluster_lines_are_reported_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    run_outputs(dir.path(), 5);
    let path = dir.path().join("clusters.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"cluster\": oops\n");
    std::fs::write(&path, text).unwrap();
    let err = DedupReport::new().render(dir.path()).unwrap_err();
    match err {
        ReportError::Format { line, .. } => assert_eq!(line, 6),
        other => panic!("{other:?}"),
    }
}

#[test]
fn outputs_of_older_versions_still_make_a_report() {
    let dir = tempfile::tempdir().unwrap();
    run_outputs(dir.path(), 5);
    // stats.json before `seed`, `method` and `min_shingles` were recorded; no article pairs.
    let path = dir.path().join("stats.json");
    let mut stats: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for key in ["seed", "method", "min_shingles"] {
        stats.remove(key);
    }
    std::fs::write(&path, serde_json::to_string(&stats).unwrap()).unwrap();
    std::fs::remove_file(dir.path().join("article-pairs.tsv")).unwrap();
    let html = DedupReport::new().render(dir.path()).unwrap();
    assert!(html.contains("records no seed"));
    assert_eq!(html.matches("<svg").count(), 3);
}

#[test]
fn a_simhash_run_has_no_band_curve() {
    let dir = tempfile::tempdir().unwrap();
    let dedup = Dedup::builder()
        .method(Method::SimHash { max_hamming: 6 })
        .build()
        .unwrap();
    run_outputs_with(dir.path(), 10, dedup);
    let html = DedupReport::new().render(dir.path()).unwrap();
    assert!(html.contains("SimHash fingerprints"));
    assert!(html.contains("no band S-curve"));
    assert_eq!(html.matches("<svg").count(), 2);
}

#[test]
fn a_malformed_sampled_line_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    run_outputs(dir.path(), 3);
    // The head reads fine, the rest does not: found when the sampled line is parsed.
    let path = dir.path().join("clusters.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let cut = lines[1].len() / 2;
    lines[1].truncate(cut);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    match DedupReport::new()
        .samples(10)
        .render(dir.path())
        .unwrap_err()
    {
        ReportError::Format { line, .. } => assert_eq!(line, 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cut_last_line_is_an_error_not_a_shorter_report() {
    let dir = tempfile::tempdir().unwrap();
    run_outputs(dir.path(), 6);
    let path = dir.path().join("clusters.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.len();
    // Cut inside the members, past the head the fast parse reads (an interrupted write).
    let whole = lines[..last - 1].join("\n") + "\n";
    let cut = &lines[last - 1][..lines[last - 1].len() * 3 / 4];
    std::fs::write(&path, whole.clone() + cut).unwrap();
    match DedupReport::new()
        .samples(1)
        .render(dir.path())
        .unwrap_err()
    {
        ReportError::Format { line, message, .. } => {
            assert_eq!(line, last as u64);
            assert!(message.contains("cut"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A complete last line without its newline is fine.
    std::fs::write(&path, whole + lines[last - 1]).unwrap();
    DedupReport::new().samples(1).render(dir.path()).unwrap();
}
