//! `dedup_warc`: WARC and WET input. Fuzzed records (types `conversion`, `resource` of
//! `text/plain` or `text/html`, `response` holding an HTTP message, `warcinfo`, `request`;
//! any URI, body and HTML) are written as a WARC file, plain or gzipped record by record as
//! Common Crawl ships them, and read through `Inputs`. Properties: one document per record
//! that carries text, in order, with the record's id, its URI (else id) as title and its record
//! number; WET text and `text/plain` bodies kept as they are; extracted HTML text as
//! paragraphs separated by one blank line, each trimmed with single spaces. Arbitrary bytes as
//! a WARC file: documents and at most one error (the reader stops there), never a panic.
#![no_main]

#[path = "common.rs"]
mod common;

use std::io::Write;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use textreuse_corpus::{DocId, Inputs, Source};

#[derive(Arbitrary, Debug)]
enum Kind {
    Conversion,
    PlainResource,
    HtmlResource,
    /// An HTTP response; true: with `Content-Type: text/html`.
    Response(bool),
    Warcinfo,
    Request,
}

#[derive(Arbitrary, Debug)]
struct Record {
    kind: Kind,
    uri: Option<String>,
    body: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
struct Input {
    records: Vec<Record>,
    gzip: bool,
    /// Used as the whole file instead, when not empty.
    raw: Vec<u8>,
}

fuzz_target!(|input: Input| {
    if !input.raw.is_empty() {
        let path = common::dir().join("raw.warc");
        std::fs::write(&path, &input.raw).unwrap();
        let errors = Inputs::new([&path]).filter(|i| i.is_err()).count();
        assert!(errors <= 1, "{errors} errors");
        return;
    }
    let mut file = Vec::new();
    // (number, id, title, Some(text) when kept as it is)
    let mut want: Vec<(u64, String, String, Option<String>)> = Vec::new();
    for (i, r) in input.records.iter().enumerate() {
        let id = format!("<urn:uuid:00000000-0000-0000-0000-{i:012}>");
        // Header values are one line of visible characters.
        let uri: Option<String> = r.uri.as_ref().map(|u| {
            let u: String = u.chars().filter(char::is_ascii_graphic).collect();
            format!("http://example.org/{u}")
        });
        let (warc_type, content_type, body) = match &r.kind {
            Kind::Conversion => ("conversion", "text/plain", r.body.clone()),
            Kind::PlainResource => ("resource", "text/plain", r.body.clone()),
            Kind::HtmlResource => ("resource", "text/html", r.body.clone()),
            Kind::Response(html) => {
                let ct = if *html {
                    "text/html; charset=utf-8"
                } else {
                    "image/png"
                };
                let mut m = format!("HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\n\r\n").into_bytes();
                m.extend_from_slice(&r.body);
                ("response", "application/http; msgtype=response", m)
            }
            Kind::Warcinfo => ("warcinfo", "application/warc-fields", r.body.clone()),
            Kind::Request => (
                "request",
                "application/http; msgtype=request",
                r.body.clone(),
            ),
        };
        let mut record = format!(
            "WARC/1.0\r\nWARC-Type: {warc_type}\r\nWARC-Record-ID: {id}\r\n\
             WARC-Date: 2024-01-0{}T00:00:00Z\r\nContent-Type: {content_type}\r\n",
            1 + i % 9
        );
        if let Some(u) = &uri {
            record.push_str(&format!("WARC-Target-URI: {u}\r\n"));
        }
        record.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut record = record.into_bytes();
        record.extend_from_slice(&body);
        record.extend_from_slice(b"\r\n\r\n");
        if input.gzip {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&record).unwrap();
            file.extend_from_slice(&e.finish().unwrap());
        } else {
            file.extend_from_slice(&record);
        }
        let title = uri.clone().unwrap_or_else(|| id.clone());
        let as_is = Some(String::from_utf8_lossy(&r.body).into_owned());
        match &r.kind {
            Kind::Conversion | Kind::PlainResource => want.push((i as u64 + 1, id, title, as_is)),
            Kind::HtmlResource | Kind::Response(true) => want.push((i as u64 + 1, id, title, None)),
            _ => {}
        }
    }
    let path = common::dir().join(if input.gzip { "in.warc.gz" } else { "in.warc" });
    std::fs::write(&path, &file).unwrap();
    let docs: Vec<_> = Inputs::new([&path])
        .map(|item| match item {
            Ok(Source::Text(doc)) => doc,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(docs.len(), want.len());
    for (doc, (n, id, title, text)) in docs.iter().zip(&want) {
        assert_eq!(doc.id, DocId::from(id.as_str()));
        assert_eq!(&doc.title, title);
        assert_eq!(doc.origin.record, Some(*n));
        match text {
            Some(t) => assert_eq!(&doc.text, t),
            None if doc.text.is_empty() => {}
            None => {
                for p in doc.text.split("\n\n") {
                    assert!(
                        !p.is_empty() && !p.contains(['\n', '\t']) && !p.contains("  "),
                        "paragraph {p:?} in {:?}",
                        doc.text
                    );
                    assert_eq!(p.trim(), p);
                }
            }
        }
    }
});
