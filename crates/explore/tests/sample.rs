//! Samples of a table large enough to be walked in the seed's order (not scanned whole) are
//! the same rows a scan of every row picks: the earliest matching rows of the order.
use std::io::BufWriter;

use textreuse_explore::{Explorer, Permutation, Query, Table, sample, synthetic};

#[test]
fn walking_the_order_and_scanning_every_row_pick_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let mut out = BufWriter::new(std::fs::File::create(dir.path().join("reuse.jsonl")).unwrap());
    synthetic::write_reuse(&mut out, 150_000, 5).unwrap();
    drop(out);
    let explorer = Explorer::builder().open(dir.path()).unwrap();
    let index = explorer.table(Table::Reuse).unwrap();
    assert_eq!(index.len(), 150_000);
    let queries: [&[(&str, &str)]; 6] = [
        // Most rows: found by walking the order.
        &[("kind", "content"), ("seed", "9")],
        &[("jaccard_2.min", "0.5"), ("n", "100"), ("skip", "40")],
        // Few rows: the walk gives up and every row is scanned.
        &[
            ("jaccard_10.min", "0.9"),
            ("kind", "structure"),
            ("n", "50"),
        ],
        &[
            ("suspicious_words.min", "600"),
            ("source_words.max", "25"),
            ("seed", "3"),
        ],
        // None, and rows by title.
        &[("score.min", "2")],
        &[("title", "Article 123"), ("n", "30"), ("seed", "11")],
    ];
    for params in queries {
        let query = Query::parse(index, params.iter().copied()).unwrap();
        let got = sample(index, &query);
        let order = Permutation::new(index.len(), query.seed);
        let title_rows = query.named_rows(index);
        let mut all: Vec<u64> = (0..index.len())
            .filter(|&r| query.matches(index, r))
            .filter(|r| {
                title_rows
                    .as_ref()
                    .is_none_or(|t| t.binary_search(r).is_ok())
            })
            .collect();
        all.sort_by_key(|&r| order.rank(r));
        let expected: Vec<u64> = all.iter().copied().skip(query.skip).take(query.n).collect();
        assert_eq!(got.rows, expected, "{params:?}");
        if got.exact {
            assert_eq!(got.matched, all.len() as u64, "{params:?}");
        } else {
            // An estimate from the rows walked: within a fifth of the truth for these filters.
            let truth = all.len() as f64;
            assert!(
                (got.matched as f64 - truth).abs() < truth / 5.0,
                "{params:?}: {} vs {truth}",
                got.matched
            );
        }
    }
    // Opening again reads the index instead of building it (its files are not rewritten).
    let meta = dir.path().join(".explore/reuse.meta.json");
    let before = std::fs::metadata(&meta).unwrap().modified().unwrap();
    let again = Explorer::builder().open(dir.path()).unwrap();
    assert_eq!(again.table(Table::Reuse).unwrap().len(), 150_000);
    assert_eq!(
        std::fs::metadata(&meta).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn a_changed_output_is_indexed_again_and_unreadable_lines_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clusters.jsonl");
    let mut lines = Vec::new();
    synthetic::write_clusters(&mut lines, 100, 2).unwrap();
    std::fs::write(&path, &lines).unwrap();
    let first = Explorer::builder().open(dir.path()).unwrap();
    assert_eq!(first.table(Table::Clusters).unwrap().len(), 100);
    drop(first);
    // A damaged line in the middle and a last line cut short: both counted and said where.
    let text = String::from_utf8(lines).unwrap();
    let mut kept: Vec<&str> = text.lines().collect();
    kept[10] = "{\"cluster\": oops";
    let mut damaged = kept.join("\n");
    damaged.push_str("\n{\"cluster\":9,\"size\":2,\"ty");
    std::fs::write(&path, damaged).unwrap();
    let second = Explorer::builder().open(dir.path()).unwrap();
    let index = second.table(Table::Clusters).unwrap();
    assert_eq!(index.len(), 99);
    let meta = index.meta();
    assert_eq!(meta.bad_lines, 2);
    assert_eq!(meta.bad_line_examples[0].0, 11);
    assert_eq!(meta.bad_line_examples[1].0, 101);
    assert!(
        meta.bad_line_examples[1].1.contains("cut short"),
        "{:?}",
        meta.bad_line_examples
    );
    // Row 10 is the line after the damaged one.
    let row: serde_json::Value = serde_json::from_slice(index.line(10)).unwrap();
    let line_12: serde_json::Value = serde_json::from_str(text.lines().nth(11).unwrap()).unwrap();
    assert_eq!(row, line_12);
}

#[test]
fn a_directory_without_outputs_says_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let err = Explorer::builder().open(dir.path()).unwrap_err();
    assert!(err.to_string().contains("--out directory"), "{err}");
}

#[test]
fn rows_by_website_are_those_whose_documents_are_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let line = |a: &str, b: &str| {
        format!(
            r#"{{"suspicious":{{"doc":"1","title":"P","url":"{a}"}},"source":{{"doc":"2","title":"Q","url":"{b}"}},"suspicious_length":200,"source_length":200,"kind":"content"}}"#
        )
    };
    let lines = [
        line(
            "https://www.example.com/a",
            "https://en.wikipedia.org/wiki/Q",
        ),
        line(
            "http://blog.example.com/b",
            "https://en.wikipedia.org/wiki/Q",
        ),
        line(
            "https://news.bbc.co.uk/c",
            "https://de.wikipedia.org/wiki/Q",
        ),
        line("not a url", "https://en.wikipedia.org/wiki/Q"),
    ];
    std::fs::write(dir.path().join("reuse.jsonl"), lines.join("\n")).unwrap();
    let explorer = Explorer::builder().open(dir.path()).unwrap();
    let index = explorer.table(Table::Reuse).unwrap();
    assert_eq!(index.meta().websites, 3);
    let rows = |params: &[(&str, &str)]| {
        let query = Query::parse(index, params.iter().copied()).unwrap();
        let mut rows = sample(index, &query).rows;
        rows.sort_unstable();
        rows
    };
    assert_eq!(rows(&[("website", "example.com")]), [0, 1]);
    assert_eq!(rows(&[("website", "EXAMPLE")]), [0, 1]);
    assert_eq!(
        rows(&[("website", "bbc.co.uk"), ("website_exact", "1")]),
        [2]
    );
    assert_eq!(
        rows(&[("website", "wikipedia.org"), ("title", "p")]),
        [0, 1, 2, 3]
    );
    assert_eq!(
        rows(&[("website", "bbc"), ("title", "nothing")]),
        Vec::<u64>::new()
    );
}
