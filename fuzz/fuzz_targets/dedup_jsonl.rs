//! `dedup_jsonl`: JSON Lines input on arbitrary bytes, with the default field names and with
//! renamed ones. No panic; one item per non-blank line at most, in order, each error naming a
//! line that exists; a document's origin is the line it came from. Each document read, written
//! back as a JSON object (with `serde_json`), reads back as the same document, and documents
//! written as JSON Lines (any ids, titles, texts, paragraph lists) read back exactly (paragraph
//! lists: the same blocks between blank lines).
#![no_main]

use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::arbitrary::{self, Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use textreuse_corpus::input::{JsonLines, parse_json_document, parse_json_document_with};
use textreuse_corpus::{DocId, Document, InputError, JsonFields};

#[derive(Arbitrary, Debug)]
enum FuzzId {
    Int(i64),
    Uint(u64),
    Str(String),
}

#[derive(Arbitrary, Debug)]
struct FuzzDoc {
    id: FuzzId,
    title: Option<String>,
    text: Result<String, Vec<String>>,
    blank_lines: u8,
}

fn read_all(bytes: &[u8], fields: JsonFields) -> Vec<Result<Document, InputError>> {
    JsonLines::new(
        Path::new("in.jsonl"),
        Box::new(Cursor::new(bytes.to_vec())),
        fields,
    )
    .collect()
}

fn json_of(doc: &Document, fields: &JsonFields) -> String {
    let mut object = serde_json::Map::new();
    object.insert(fields.id.clone(), serde_json::to_value(&doc.id).unwrap());
    object.insert(fields.title.clone(), doc.title.clone().into());
    object.insert(fields.text.clone(), doc.text.clone().into());
    serde_json::Value::Object(object).to_string()
}

/// The non-empty blocks between blank lines: what a paragraph list must keep apart (empty
/// paragraphs leave no block; how many blank lines they add differs, see docs/fuzzing.md).
fn paragraphs(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

fuzz_target!(|data: &[u8]| {
    // Arbitrary bytes, default and renamed fields.
    let lines = data.split(|&b| b == b'\n').count() as u64;
    let renamed = JsonFields {
        id: "doc_id".into(),
        text: "content".into(),
        title: "name".into(),
    };
    for fields in [JsonFields::default(), renamed] {
        let mut last = 0;
        for item in read_all(data, fields.clone()) {
            let line = match &item {
                Ok(doc) => doc.origin.record.unwrap(),
                Err(InputError::Line { line, .. }) => *line,
                Err(e) => panic!("unexpected error {e}"),
            };
            assert!(
                last < line && line <= lines,
                "line {line} after {last} of {lines}"
            );
            last = line;
            if let Ok(doc) = item {
                // The line itself parses to the same document.
                let text = data.split(|&b| b == b'\n').nth(line as usize - 1).unwrap();
                let text = std::str::from_utf8(text).unwrap().trim();
                let again = parse_json_document_with(text, &fields).unwrap();
                assert_eq!(
                    (&again.id, &again.title, &again.text),
                    (&doc.id, &doc.title, &doc.text)
                );
                // Written back as JSON, it reads back the same.
                let json = json_of(&doc, &fields);
                let back = parse_json_document_with(&json, &fields)
                    .unwrap_or_else(|e| panic!("{e}: {json}"));
                assert_eq!(
                    (&back.id, &back.title, &back.text),
                    (&doc.id, &doc.title, &doc.text)
                );
            }
        }
    }

    // Documents written as JSON Lines read back exactly.
    let mut u = Unstructured::new(data);
    let Ok(docs) = Vec::<FuzzDoc>::arbitrary(&mut u) else {
        return;
    };
    let mut file = String::new();
    let mut want = Vec::new();
    for d in &docs {
        let id = match &d.id {
            FuzzId::Int(i) => DocId::from(*i),
            FuzzId::Uint(i) => DocId::from(*i),
            FuzzId::Str(s) => DocId::from(s.as_str()),
        };
        let mut object = serde_json::Map::new();
        object.insert("id".into(), serde_json::to_value(&id).unwrap());
        if let Some(t) = &d.title {
            object.insert("title".into(), t.clone().into());
        }
        let text = match &d.text {
            Ok(t) => {
                object.insert("text".into(), t.clone().into());
                t.clone()
            }
            Err(paragraphs) => {
                object.insert("paragraphs".into(), paragraphs.clone().into());
                paragraphs.join("\n\n")
            }
        };
        for _ in 0..d.blank_lines % 3 {
            file.push_str(" \n");
        }
        let line = serde_json::Value::Object(object).to_string();
        assert_eq!(parse_json_document(&line).unwrap().id, id);
        file.push_str(&line);
        file.push('\n');
        want.push((id, d.title.clone().unwrap_or_default(), text));
    }
    let got: Vec<_> = read_all(file.as_bytes(), JsonFields::default())
        .into_iter()
        .map(|d| {
            let d = d.unwrap();
            (d.id, d.title, paragraphs(&d.text))
        })
        .collect();
    let want: Vec<_> = want
        .into_iter()
        .map(|(id, title, text)| (id, title, paragraphs(&text)))
        .collect();
    assert_eq!(got, want);
});
