//! `explore_output`: an output file as `textreuse explore` opens it — lines of the shape
//! `reuse`, `dedup` and its contradictions write, with fuzzed values (any number, title and
//! category, missing fields), mixed with arbitrary bytes — then a query from fuzzed parameters.
//! Properties:
//!
//! * every non-blank line is either a row or counted as unreadable: rows + unreadable lines =
//!   non-blank lines; the written (well-formed) lines are all rows;
//! * rows keep the file's order, and each row's line is the file's line, byte for byte;
//! * a query is an answer or a typed error; a sample's rows are distinct, inside the table,
//!   pass the filter, and are the earliest matching rows of the seed's order (checked against
//!   every row), with the exact count of matching rows;
//! * opening the output again gives the same rows.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use textreuse_explore::{Explorer, Permutation, Query, Table, sample};

#[derive(Arbitrary, Debug)]
enum Line {
    /// A line of the table's shape with these values.
    Shaped {
        titles: (String, String),
        numbers: [f64; 8],
        counts: [u64; 4],
        kind: String,
        id: u64,
        members: u8,
    },
    /// Any bytes (line breaks inside make several lines).
    Raw(Vec<u8>),
    Blank,
}

#[derive(Arbitrary, Debug)]
struct Input {
    table: u8,
    lines: Vec<Line>,
    params: Vec<(String, String)>,
}

fn shaped(table: Table, line: &Line) -> Option<String> {
    let Line::Shaped {
        titles,
        numbers: x,
        counts: n,
        kind,
        id,
        members,
    } = line
    else {
        return None;
    };
    let value = match table {
        Table::Reuse => json!({
            "suspicious": {"doc": "1", "title": titles.0},
            "source": {"doc": "2", "title": titles.1},
            "suspicious_offset": 0, "suspicious_length": n[0], "source_offset": 0, "source_length": n[1],
            "score": x[0], "kind": kind, "jaccard_2": x[1], "jaccard_5": x[2], "jaccard_10": x[3],
            "jaccard_15": x[4], "entity_jaccard": x[5], "suspicious_share": x[6], "source_share": x[7],
            "suspicious_words": n[2], "source_words": n[3],
        }),
        Table::Clusters => {
            let members: Vec<_> = (0..*members % 6)
                .map(|i| json!({"title": if i % 2 == 0 { &titles.0 } else { &titles.1 }, "similarity": x[i as usize]}))
                .collect();
            json!({"cluster": id, "size": n[0], "type": kind, "rule": titles.1, "differences": [], "members": members})
        }
        Table::Contradictions => json!({
            "cluster": id, "confidence": x[0], "rule": kind,
            "facts": [{"kind": titles.1, "a": "1", "b": "2"}],
            "statements": [{"title": titles.0}, {"title": titles.1}],
        }),
    };
    Some(value.to_string())
}

fuzz_target!(|input: Input| {
    let table = Table::ALL[input.table as usize % 3];
    let dir = tempfile::tempdir_in(common::dir()).unwrap();
    let mut file = Vec::new();
    let mut written = 0;
    for line in &input.lines {
        match line {
            Line::Raw(bytes) => file.extend_from_slice(bytes),
            Line::Blank => {}
            shaped_line => {
                file.extend_from_slice(shaped(table, shaped_line).unwrap().as_bytes());
                written += 1;
            }
        }
        file.push(b'\n');
    }
    std::fs::write(dir.path().join(table.file_name()), &file).unwrap();
    let explorer = match Explorer::builder()
        .index_dir(dir.path().join("index"))
        .open(dir.path())
    {
        Ok(e) => e,
        Err(e) => panic!("an output file that exists opens: {e}"),
    };
    let index = explorer.table(table).unwrap();
    let lines: Vec<&[u8]> = file
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    let meta = index.meta();
    assert_eq!(meta.rows + meta.bad_lines, lines.len() as u64);
    assert!(
        meta.rows >= written,
        "{} rows, {written} written",
        meta.rows
    );
    // Rows in order, each its line: a subsequence of the file's lines.
    let mut at = 0;
    for row in 0..index.len() {
        let line = index.line(row);
        while at < lines.len() && lines[at] != line {
            at += 1;
        }
        assert!(
            at < lines.len(),
            "row {row} is not a line of the file, in order"
        );
        at += 1;
    }
    // A query: an answer or an error; an answer is the earliest matching rows of the order.
    let params = input.params.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    if let Ok(query) = Query::parse(index, params) {
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
        assert_eq!(got.rows, expected);
        assert!(got.exact, "a table this small is scanned whole");
        assert_eq!(got.matched, all.len() as u64);
    }
    let again = Explorer::builder()
        .index_dir(dir.path().join("index"))
        .open(dir.path())
        .unwrap();
    assert_eq!(again.table(table).unwrap().len(), index.len());
});
