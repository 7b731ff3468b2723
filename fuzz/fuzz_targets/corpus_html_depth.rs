//! `corpus_html_depth`: the depth budget of HTML pages in WARC input. The input is one byte `r`
//! and an HTML snippet; the page is the snippet repeated `1 + r * r` times (up to 256 KiB), so that
//! short inputs reach nesting far past the budget. The page is a `text/html` `resource` record
//! between two WET `conversion` records, read through `Inputs`. Properties:
//!
//! * no panic, stack overflow or hang (libFuzzer's `-timeout`), however the page nests;
//! * exactly three items: the first and last records' documents, unchanged, around either the
//!   page's document or an error for record 2 saying how deep the page nests, more than
//!   `MAX_HTML_DEPTH` (1,024), or that it is over the extraction budget (the sum of its
//!   elements' depths); so a page deeper than the budget is reported and skipped and the next
//!   record is read;
//! * a page that is extracted nests at most 8 * 1,024 elements deep once parsed (html5ever
//!   through `dom_query`, the parser the extractor uses): the tag-based estimate bounds the real
//!   depth within a small factor (an implied `tbody` or `p` in quirks mode nests where the
//!   estimate counts nothing);
//! * a page reported at depth D is reported again when more markup follows it, at D or more
//!   (the estimate is the deepest point of one pass over the tags).
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use textreuse_corpus::{InputError, Inputs, Source};

/// `MAX_HTML_DEPTH` in `crates/corpus/src/warc.rs` (private there).
const MAX_HTML_DEPTH: usize = 1024;
/// Pages are at most this long: room for 37,000 levels of `<b></x>`, which took the extractor
/// 28 s at 20,000 before the estimate counted them (so a hang shows within libFuzzer's timeout),
/// and short enough for some executions per second.
const MAX_PAGE: usize = 1 << 18;

/// A plain WARC record.
fn record(out: &mut Vec<u8>, n: usize, warc_type: &str, content_type: &str, body: &[u8]) {
    out.extend_from_slice(
        format!(
            "WARC/1.0\r\nWARC-Type: {warc_type}\r\nWARC-Record-ID: <urn:uuid:{n:036}>\r\n\
             WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.org/{n}\r\n\
             Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(body);
    out.extend_from_slice(b"\r\n\r\n");
}

/// The WARC items of `pages` (HTML resources), each between two conversion records.
fn read(pages: &[&[u8]]) -> Vec<Result<Source, InputError>> {
    let mut file = Vec::new();
    let mut n = 1;
    for page in pages {
        record(&mut file, n, "conversion", "text/plain", b"before");
        record(&mut file, n + 1, "resource", "text/html", page);
        record(&mut file, n + 2, "conversion", "text/plain", b"after");
        n += 3;
    }
    let path = common::dir().join("page.warc");
    std::fs::write(&path, &file).unwrap();
    Inputs::new([&path]).collect()
}

/// The depth the error for record `n` reports, `None` when the page was extracted; checks
/// the documents around it.
fn depth_reported(items: &[Result<Source, InputError>], n: u64) -> Option<usize> {
    for (item, (record, text)) in [&items[0], &items[2]]
        .into_iter()
        .zip([(n - 1, "before"), (n + 1, "after")])
    {
        match item {
            Ok(Source::Text(doc)) => {
                assert_eq!(doc.origin.record, Some(record));
                assert_eq!(doc.text, text);
            }
            other => panic!("record {record}: {other:?}"),
        }
    }
    match &items[1] {
        Ok(Source::Text(doc)) => {
            assert_eq!(doc.origin.record, Some(n));
            None
        }
        Err(InputError::Line { line, message, .. }) => {
            assert_eq!(*line, n, "{message}");
            // Over the extraction budget (the sum of the elements' depths) rather than too
            // deep: reported as depth 0, which only the budget can have skipped.
            if message.contains("more than the extraction budget") {
                return Some(0);
            }
            let depth = message
                .split_once("HTML nested ")
                .and_then(|(_, rest)| rest.split_once(" elements deep"))
                .and_then(|(d, _)| d.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("no depth in {message:?}"));
            assert!(depth > MAX_HTML_DEPTH, "{message}");
            Some(depth)
        }
        other => panic!("record {n}: {other:?}"),
    }
}

/// The deepest element nesting of the parsed page (html5ever's tree, walked without recursion).
fn parsed_depth(html: &str) -> usize {
    let doc = dom_query::Document::from(html);
    let mut max = 0;
    let mut stack = vec![(doc.root(), 0usize)];
    while let Some((node, depth)) = stack.pop() {
        let depth = depth + usize::from(node.is_element());
        max = max.max(depth);
        let mut child = node.first_child();
        while let Some(c) = child {
            child = c.next_sibling();
            stack.push((c, depth));
        }
    }
    max
}

fuzz_target!(|data: &[u8]| {
    let Some((&r, snippet)) = data.split_first() else {
        return;
    };
    let times = (1 + usize::from(r) * usize::from(r)).min(MAX_PAGE / snippet.len().max(1));
    let page = snippet.repeat(times.max(1));

    let items = read(&[&page]);
    assert_eq!(items.len(), 3, "{items:?}");
    let Some(depth) = depth_reported(&items, 2) else {
        let parsed = parsed_depth(&String::from_utf8_lossy(&page));
        assert!(
            parsed <= 8 * MAX_HTML_DEPTH,
            "extracted a page that nests {parsed} elements deep"
        );
        return;
    };
    // Reported: followed by more markup (`>`, which ends a tag the page may end in, then the
    // snippet again), it is reported too.
    let mut longer = page.clone();
    longer.push(b'>');
    longer.extend_from_slice(snippet);
    let items = read(&[&longer]);
    assert_eq!(items.len(), 3, "{items:?}");
    let more = depth_reported(&items, 2).expect("longer page reported");
    assert!(
        more >= depth,
        "page {depth} deep, {more} with more markup after it"
    );
});
