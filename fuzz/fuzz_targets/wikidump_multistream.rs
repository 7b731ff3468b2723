//! `wikidump_multistream`: structure-aware multistream dumps. Fuzzed pages (any title, text,
//! namespace, ids, redirect) are written as dump XML, cut into bzip2 streams of a few pages as
//! Wikipedia publishes them, with the multistream index (`offset:id:title` lines) beside them.
//! Optionally a filler stream of over 1 MiB compressed (precomputed once) sits among them so that
//! the parallel reader cuts the input into several jobs, as on a real dump.
//!
//! Properties: read on 1 thread (sequential decoder), on 2 threads, and on 2 threads given the
//! index (which the reader ignores: it scans for stream starts), the dump yields the same items
//! every time; undamaged, exactly the pages written, in order, and no error, whatever the index
//! holds (extra wrong offsets, arbitrary bytes). With one byte of the compressed data changed,
//! reading ends without a panic and yields at most one item per page and damaged byte.
#![no_main]

#[path = "common.rs"]
mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use textreuse_wikidump::{Page, ReaderBuilder};

#[derive(Arbitrary, Debug)]
struct FuzzPage {
    id: u64,
    ns: i32,
    title: String,
    redirect: Option<String>,
    revision: Option<u64>,
    timestamp: Option<u32>,
    text: String,
}

#[derive(Arbitrary, Debug)]
enum Damage {
    None,
    /// Changes the compressed byte at this position (modulo the length) by xor.
    Byte(u32, u8),
    /// Adds these offsets (modulo the length) to the index.
    IndexOffsets(Vec<u32>),
    /// Replaces the index by these bytes.
    IndexBytes(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    pages: Vec<FuzzPage>,
    /// Pages per bzip2 stream: 1 + this % 4.
    per_stream: u8,
    /// With 0xA5 the large filler stream goes after stream `filler_at % streams`.
    filler_key: u8,
    filler_at: u8,
    damage: Damage,
}

fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

fn page_xml(p: &Page, out: &mut String) {
    out.push_str("  <page>\n    <title>");
    escape(&p.title, out);
    out.push_str(&format!(
        "</title>\n    <ns>{}</ns>\n    <id>{}</id>\n",
        p.ns, p.id
    ));
    if let Some(r) = &p.redirect {
        out.push_str("    <redirect title=\"");
        escape(r, out);
        out.push_str("\" />\n");
    }
    out.push_str("    <revision>\n");
    if let Some(id) = p.revision_id {
        out.push_str(&format!("      <id>{id}</id>\n"));
    }
    if let Some(t) = &p.timestamp {
        out.push_str(&format!("      <timestamp>{t}</timestamp>\n"));
    }
    out.push_str("      <text bytes=\"1\" xml:space=\"preserve\">");
    escape(&p.text, out);
    out.push_str("</text>\n    </revision>\n  </page>\n");
}

fn bz2(xml: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(xml).unwrap();
    enc.finish().unwrap()
}

/// Pages of pseudo-random letters whose bzip2 stream is over 1 MiB (the parallel reader's job
/// size), compressed once per process.
fn filler() -> &'static (Vec<Page>, Vec<u8>) {
    static F: OnceLock<(Vec<Page>, Vec<u8>)> = OnceLock::new();
    F.get_or_init(|| {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut pages = Vec::new();
        for i in 0..4u64 {
            let text: String = (0..400_000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    char::from(
                        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ."
                            [(x >> 58) as usize],
                    )
                })
                .collect();
            pages.push(Page {
                id: 1_000_000 + i,
                title: format!("Filler {i}"),
                text,
                ..Page::default()
            });
        }
        let mut xml = String::new();
        for p in &pages {
            page_xml(p, &mut xml);
        }
        let stream = bz2(xml.as_bytes());
        assert!(
            stream.len() > 1 << 20,
            "filler stream {} bytes",
            stream.len()
        );
        (pages, stream)
    })
}

/// Every item of the dump at `path` read with `threads` threads and the index `index`;
/// `Err(())` when opening fails.
#[allow(deprecated)] // The index is ignored now; passing one must change nothing.
fn read(
    path: &Path,
    threads: usize,
    index: Option<&Path>,
) -> Result<Vec<Result<Page, String>>, String> {
    let mut builder = ReaderBuilder::new();
    builder
        .namespaces(None)
        .redirects(true)
        .threads(threads)
        .auto_index(false)
        .index(index);
    let reader = builder.open(path).map_err(|e| e.to_string())?;
    Ok(reader.map(|item| item.map_err(|e| e.to_string())).collect())
}

fuzz_target!(|input: Input| {
    common::tolerate_caught_panics();
    let pages: Vec<Page> = input
        .pages
        .into_iter()
        .map(|p| Page {
            id: p.id,
            ns: p.ns,
            title: p.title,
            redirect: p.redirect,
            revision_id: p.revision,
            timestamp: p.timestamp.map(|t| t.to_string()),
            text: p.text,
        })
        .collect();
    // Streams: the site header, groups of pages, the closing tag; each page's stream offset.
    let per = 1 + usize::from(input.per_stream % 4);
    let mut streams: Vec<(Vec<u8>, Vec<usize>)> = vec![(
        bz2(b"<mediawiki xml:lang=\"en\">\n  <siteinfo><sitename>Fuzz</sitename></siteinfo>\n"),
        vec![],
    )];
    for (g, group) in pages.chunks(per).enumerate() {
        let mut xml = String::new();
        for p in group {
            page_xml(p, &mut xml);
        }
        streams.push((
            bz2(xml.as_bytes()),
            (g * per..g * per + group.len()).collect(),
        ));
    }
    let mut expected = pages.clone();
    let with_filler = input.filler_key == 0xA5;
    let mut filler_stream = None;
    if with_filler {
        let at = usize::from(input.filler_at) % streams.len() + 1;
        let (fpages, fstream) = filler();
        let first = streams[..at].iter().map(|s| s.1.len()).sum::<usize>();
        expected.splice(first..first, fpages.iter().cloned());
        streams.insert(at, (Vec::new(), Vec::new()));
        filler_stream = Some((at, fstream));
    }
    streams.push((bz2(b"</mediawiki>\n"), vec![]));
    let mut dump = Vec::new();
    let mut index = String::new();
    for (i, (bytes, members)) in streams.iter().enumerate() {
        let offset = dump.len();
        match filler_stream {
            Some((at, f)) if at == i => {
                dump.extend_from_slice(f);
                index.push_str(&format!("{offset}:1:Filler\n"));
            }
            _ => dump.extend_from_slice(bytes),
        }
        for &m in members {
            index.push_str(&format!(
                "{offset}:{}:{}\n",
                pages[m].id,
                pages[m].title.replace('\n', " ")
            ));
        }
    }
    let dump_path: PathBuf = common::dir().join("dump.xml.bz2");
    let index_path: PathBuf = common::dir().join("dump-index.txt");
    let len = dump.len();
    // Whether the dump itself is damaged (a damaged index must change nothing).
    let damaged_dump = match &input.damage {
        Damage::None | Damage::IndexBytes(_) => false,
        Damage::Byte(at, x) => {
            dump[*at as usize % len] ^= x;
            *x != 0
        }
        Damage::IndexOffsets(extra) => {
            for o in extra {
                index.push_str(&format!("{}:0:x\n", *o as usize % len));
            }
            false
        }
    };
    std::fs::write(&dump_path, &dump).unwrap();
    match &input.damage {
        Damage::IndexBytes(b) => std::fs::write(&index_path, b).unwrap(),
        _ => std::fs::write(&index_path, index.as_bytes()).unwrap(),
    }
    let modes: &[(usize, bool)] = if with_filler {
        // The sequential decoder is the reference elsewhere; here the parallel paths matter.
        &[(2, false), (2, true)]
    } else {
        &[(1, false), (2, false), (2, true)]
    };
    let mut reference: Option<Vec<Result<Page, String>>> = None;
    for &(threads, use_index) in modes {
        let index = use_index.then_some(index_path.as_path());
        let items = read(&dump_path, threads, index)
            .unwrap_or_else(|e| panic!("open failed ({threads} threads, index {use_index}): {e}"));
        // Any thread count, with or without an index (ignored), gives the same items, damaged
        // dump or not.
        match &reference {
            Some(r) => assert_eq!(&items, r, "{threads} threads, index {use_index}"),
            None => reference = Some(items.clone()),
        }
        if !damaged_dump {
            let got: Vec<Page> = items
                .into_iter()
                .map(|i| i.unwrap_or_else(|e| panic!("{threads} threads, index {use_index}: {e}")))
                .collect();
            assert_eq!(
                got.len(),
                expected.len(),
                "{threads} threads, index {use_index}"
            );
            for (g, w) in got.iter().zip(&expected) {
                assert_eq!(g, w, "{threads} threads, index {use_index}");
            }
        } else {
            assert!(items.len() <= expected.len() + len + 2);
        }
    }
});
