//! `dedup_parquet`: Parquet input. Fuzzed rows (integer or string ids, texts and titles, nulls
//! among them, with or without a title column, several row groups) are written with the Arrow
//! writer and read back by `ParquetDocs`: every row in order, as a document with its row
//! number, or a `Line` error naming the row whose id or text is null. The same file with bytes
//! changed, or arbitrary bytes: a typed error or documents, never a panic.
#![no_main]

#[path = "common.rs"]
mod common;

use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use textreuse_corpus::parquet::ParquetDocs;
use textreuse_corpus::{DocId, InputError, JsonFields};

#[derive(Arbitrary, Debug)]
struct Row {
    id: Option<Result<i64, String>>,
    title: Option<String>,
    text: Option<String>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    rows: Vec<Row>,
    string_ids: bool,
    title_column: bool,
    /// Rows per row group: 1 + this.
    group_rows: u8,
    /// Bytes to change (position modulo the length, xor) after writing.
    damage: Vec<(u32, u8)>,
    /// Used as the whole file instead, when not empty.
    raw: Vec<u8>,
}

fn read_all(path: &Path) {
    let Ok(docs) = ParquetDocs::open(path, &JsonFields::default()) else {
        return;
    };
    for (i, d) in docs.enumerate() {
        assert!(i < 1 << 20, "too many rows");
        if let Err(e) = d {
            assert_eq!(e.path(), path);
        }
    }
}

fuzz_target!(|input: Input| {
    common::tolerate_caught_panics();
    let path = common::dir().join("in.parquet");
    if !input.raw.is_empty() {
        std::fs::write(&path, &input.raw).unwrap();
        read_all(&path);
        return;
    }
    let rows = &input.rows;
    let ids: ArrayRef = if input.string_ids {
        Arc::new(StringArray::from_iter(rows.iter().map(|r| match &r.id {
            Some(Ok(i)) => Some(i.to_string()),
            Some(Err(s)) => Some(s.clone()),
            None => None,
        })))
    } else {
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| match &r.id {
            Some(Ok(i)) => Some(*i),
            Some(Err(s)) => Some(s.len() as i64),
            None => None,
        })))
    };
    let texts: ArrayRef = Arc::new(StringArray::from_iter(rows.iter().map(|r| r.text.clone())));
    let mut columns = vec![("id", ids), ("text", texts)];
    if input.title_column {
        let titles: ArrayRef =
            Arc::new(StringArray::from_iter(rows.iter().map(|r| r.title.clone())));
        columns.push(("title", titles));
    }
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(1 + usize::from(input.group_rows)))
        .build();
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();

    if input.damage.is_empty() {
        std::fs::write(&path, &bytes).unwrap();
        let docs: Vec<_> = ParquetDocs::open(&path, &JsonFields::default())
            .unwrap()
            .collect();
        assert_eq!(docs.len(), rows.len());
        for (i, (doc, row)) in docs.into_iter().zip(rows).enumerate() {
            let n = i as u64 + 1;
            match (doc, &row.id, &row.text) {
                (Ok(doc), Some(id), Some(text)) => {
                    let want = match (id, input.string_ids) {
                        (Ok(i), true) => DocId::from(i.to_string()),
                        (Err(s), true) => DocId::from(s.as_str()),
                        (Ok(i), false) => DocId::from(*i),
                        (Err(s), false) => DocId::from(s.len() as i64),
                    };
                    assert_eq!(doc.id, want);
                    assert_eq!(&doc.text, text);
                    let title = if input.title_column {
                        row.title.clone().unwrap_or_default()
                    } else {
                        String::new()
                    };
                    assert_eq!(doc.title, title);
                    assert_eq!(doc.origin.record, Some(n));
                }
                (Err(InputError::Line { line, .. }), id, text) => {
                    assert!(id.is_none() || text.is_none(), "row {n}: unexpected error");
                    assert_eq!(line, n);
                }
                (doc, id, text) => panic!("row {n}: {doc:?} for {id:?} {text:?}"),
            }
        }
    } else {
        let len = bytes.len();
        for &(at, x) in &input.damage {
            bytes[at as usize % len] ^= x;
        }
        std::fs::write(&path, &bytes).unwrap();
        read_all(&path);
    }
});
