//! Helpers: the bundled samples, and a multistream dump made from them.
use std::io::{Read, Write};
use std::path::PathBuf;

use textreuse_wikidump::{Error, Page};

pub fn data(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data")).join(name)
}

pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/wikidump"
    ))
    .join(name)
}

/// The decompressed XML of a bundled sample.
pub fn xml(name: &str) -> Vec<u8> {
    let file = std::fs::File::open(data(name)).unwrap();
    let mut out = Vec::new();
    bzip2::read::MultiBzDecoder::new(file)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// The XML of a bundled sample cut after `pages` pages (a complete, smaller dump).
pub fn xml_head(name: &str, pages: usize) -> Vec<u8> {
    let xml = xml(name);
    let text = std::str::from_utf8(&xml).unwrap();
    let end = text.match_indices("</page>\n").nth(pages - 1).unwrap().0 + 8;
    let mut out = text.as_bytes()[..end].to_vec();
    out.extend_from_slice(b"</mediawiki>\n");
    out
}

pub fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// Splits the XML the way Wikipedia's multistream dumps are made: the header in one bzip2
/// stream, then `per_stream` pages per stream, then the footer; returns the compressed dump
/// and its index (`offset:page_id:title` lines, bzip2-compressed).
pub fn multistream(xml: &[u8], per_stream: usize) -> (Vec<u8>, Vec<u8>) {
    let text = std::str::from_utf8(xml).unwrap();
    let first = text.find("  <page>").unwrap();
    let end = text.rfind("</mediawiki>").unwrap();
    let mut out = bz2(&text.as_bytes()[..first]);
    let mut index = String::new();
    let pages: Vec<&str> = text[first..end].split_inclusive("</page>\n").collect();
    for group in pages.chunks(per_stream) {
        let offset = out.len();
        for page in group {
            let id = between(page, "<id>", "</id>");
            let title = between(page, "<title>", "</title>");
            if !id.is_empty() {
                index.push_str(&format!("{offset}:{id}:{title}\n"));
            }
        }
        out.extend(bz2(group.concat().as_bytes()));
    }
    out.extend(bz2(&text.as_bytes()[end..]));
    (out, bz2(index.as_bytes()))
}

fn between<'a>(s: &'a str, a: &str, b: &str) -> &'a str {
    s.find(a)
        .and_then(|i| {
            s[i + a.len()..]
                .find(b)
                .map(|j| &s[i + a.len()..i + a.len() + j])
        })
        .unwrap_or("")
}

/// Reads `dump` at `threads` threads (all namespaces, redirects too) and returns the pages
/// and the errors as text, for comparisons across thread counts.
pub fn read_at(dump: &[u8], threads: usize) -> (Vec<Page>, Vec<String>) {
    let mut b = textreuse_wikidump::ReaderBuilder::new();
    b.threads(threads).namespaces(None).redirects(true);
    let (pages, errors) = collect(b.from_reader(std::io::Cursor::new(dump.to_vec())).unwrap());
    (pages, errors.iter().map(ToString::to_string).collect())
}

/// The compressed offsets of a multistream dump's streams (header, page streams, footer), as
/// [`multistream`] builds them.
pub fn stream_offsets(xml: &[u8], per_stream: usize) -> Vec<usize> {
    let text = std::str::from_utf8(xml).unwrap();
    let first = text.find("  <page>").unwrap();
    let end = text.rfind("</mediawiki>").unwrap();
    let mut offsets = vec![0];
    let mut len = bz2(&text.as_bytes()[..first]).len();
    let pages: Vec<&str> = text[first..end].split_inclusive("</page>\n").collect();
    for group in pages.chunks(per_stream) {
        offsets.push(len);
        len += bz2(group.concat().as_bytes()).len();
    }
    offsets.push(len);
    offsets
}

/// Splits reader output into pages and errors.
pub fn collect(items: impl Iterator<Item = Result<Page, Error>>) -> (Vec<Page>, Vec<Error>) {
    let mut pages = Vec::new();
    let mut errors = Vec::new();
    for item in items {
        match item {
            Ok(p) => pages.push(p),
            Err(e) => errors.push(e),
        }
    }
    (pages, errors)
}

/// A file of `testdata/lang` (the non-English dump slices).
pub fn lang(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/lang")).join(name)
}
