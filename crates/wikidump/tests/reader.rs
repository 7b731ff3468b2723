use std::io::{Read, Write};

use textreuse_wikidump::{DumpReader, Error, ReaderBuilder};

use crate::support::*;

const SAMPLE: &str = "enwiki-sample-206.xml.bz2";
const PART: &str = "enwiki-part-201.xml.bz2";

#[test]
fn sample_articles_single_and_threaded() {
    let (one, errors) = collect(ReaderBuilder::new().threads(1).open(data(SAMPLE)).unwrap());
    assert!(errors.is_empty(), "{errors:?}");
    // 206 pages, of which 106 are articles (namespace 0, not redirects).
    assert_eq!(one.len(), 106);
    assert!(one.iter().all(|p| p.ns == 0 && p.redirect.is_none()));
    assert_eq!(one[0].title, "Anarchism");
    assert_eq!(one[0].id, 12);
    assert!(one[0].revision_id.is_some() && one[0].timestamp.is_some());
    let (two, errors) = collect(ReaderBuilder::new().threads(2).open(data(SAMPLE)).unwrap());
    assert!(errors.is_empty());
    assert_eq!(one, two);
}

#[test]
fn all_namespaces_and_redirects() {
    let mut b = ReaderBuilder::new();
    b.namespaces(None).redirects(true).threads(1);
    let (pages, errors) = collect(b.open(data(SAMPLE)).unwrap());
    assert!(errors.is_empty());
    assert_eq!(pages.len(), 206);
    assert!(pages.iter().any(|p| p.redirect.is_some()));
}

#[test]
fn damaged_part_yields_every_complete_page() {
    for threads in [1, 2] {
        let reader = ReaderBuilder::new()
            .threads(threads)
            .open(data(PART))
            .unwrap();
        let (pages, errors) = collect(reader);
        // 199 complete pages in the XML hold 101 articles.
        assert_eq!(pages.len(), 101);
        // The stray fragment after </siteinfo>, with its offset.
        assert!(matches!(
            &errors[0],
            Error::Malformed { offset: 2376, what, .. } if what.contains("namespace key")
        ));
        // A page spliced into another, junk after it, junk and no </mediawiki> at the end.
        assert!(errors.iter().any(|e| matches!(e, Error::Malformed { title: Some(t), .. } if t == "Ashmore And Cartier Islands")));
        assert!(matches!(errors.last(), Some(Error::Truncated { .. })));
        assert!(errors.iter().all(|e| !e.is_fatal()));
    }
}

#[test]
fn multistream_matches_single_stream() {
    let xml = xml_head(SAMPLE, 120);
    let (want, _) = collect(DumpReader::new(std::io::Cursor::new(xml.clone())).unwrap());
    let (dump, index) = multistream(&xml, 10);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("test-pages-articles-multistream.xml.bz2");
    std::fs::write(&path, &dump).unwrap();
    assert!(want.len() > 20);
    for threads in [1, 3] {
        let mut b = ReaderBuilder::new();
        b.threads(threads);
        let (got, errors) = collect(b.open(&path).unwrap());
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(got, want, "threads {threads}");
    }
    // The index next to the dump changes nothing (it is not read).
    let index_path = dir
        .path()
        .join("test-pages-articles-multistream-index.txt.bz2");
    std::fs::write(&index_path, &index).unwrap();
    let (got, errors) = collect(ReaderBuilder::new().threads(2).open(&path).unwrap());
    assert!(errors.is_empty());
    assert_eq!(got, want);
}

/// The index next to a multistream dump, in every broken form: garbage, cut off, offsets off
/// by one, stale (another dump's), empty. None changes the pages or the errors, at 1 or 2
/// threads, on an intact dump and on a damaged one.
#[test]
fn bad_indexes_change_nothing() {
    let xml = xml_head(SAMPLE, 50);
    let (dump, index) = multistream(&xml, 5);
    let mut damaged = dump.clone();
    let mid = damaged.len() / 2;
    for b in &mut damaged[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let plain_index = {
        let mut text = String::new();
        bzip2::read::MultiBzDecoder::new(&index[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    };
    let off_by_one: String = plain_index
        .lines()
        .map(|l| {
            let (off, rest) = l.split_once(':').unwrap();
            format!("{}:{rest}\n", off.parse::<u64>().unwrap() + 1)
        })
        .collect();
    let (other, other_index) = multistream(&xml_head(SAMPLE, 30), 3);
    assert_ne!(other, dump);
    let indexes: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"\x00\xffnot an index at all\n".repeat(100)),
        ("truncated", index[..index.len() / 2].to_vec()),
        ("off by one", bz2(off_by_one.as_bytes())),
        ("stale", other_index),
        ("empty", Vec::new()),
    ];
    for (what, dump) in [("intact", &dump), ("damaged", &damaged)] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x-pages-articles-multistream.xml.bz2");
        std::fs::write(&path, dump).unwrap();
        let read = |threads: usize| {
            let mut b = ReaderBuilder::new();
            b.threads(threads).namespaces(None).redirects(true);
            let (pages, errors) = collect(b.open(&path).unwrap());
            (
                pages,
                errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            )
        };
        let want = read(1);
        assert_eq!(want.1.is_empty(), what == "intact", "{:?}", want.1);
        assert!(want.0.len() > 30, "{what}: {}", want.0.len());
        for (name, bytes) in &indexes {
            let index_path = dir
                .path()
                .join("x-pages-articles-multistream-index.txt.bz2");
            std::fs::write(&index_path, bytes).unwrap();
            for threads in [1, 2] {
                assert_eq!(
                    read(threads),
                    want,
                    "{what} dump, {name} index, {threads} threads"
                );
            }
        }
    }
    // Given explicitly through the deprecated setter: ignored as well.
    #[allow(deprecated)]
    let (got, errors) = collect(
        ReaderBuilder::new()
            .threads(2)
            .namespaces(None)
            .redirects(true)
            .index(Some("/nonexistent/index.txt.bz2"))
            .from_reader(std::io::Cursor::new(dump.clone()))
            .unwrap(),
    );
    assert!(errors.is_empty());
    assert_eq!(got, read_at(&dump, 1).0);
}

#[test]
fn corrupt_stream_in_multistream_is_skipped() {
    let xml = xml_head(SAMPLE, 120);
    let (want, _) = read_at(&xml, 1);
    let (mut dump, _) = multistream(&xml, 5);
    let offsets = stream_offsets(&xml, 5);
    // Damage the middle of the file (inside some stream's compressed data).
    let mid = dump.len() / 2;
    for b in &mut dump[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let stream = offsets.iter().rposition(|&o| o <= mid).unwrap();
    let (start, end) = (offsets[stream], offsets[stream + 1]);
    assert!(mid + 64 < end, "the damage spans two streams");
    let (got, errors) = read_at(&dump, 1);
    // One damaged stream, named by its compressed range; the pages it held are lost (and the
    // page cut by it reported), the other streams' pages all come out.
    assert!(
        errors[0].starts_with(&format!(
            "damaged bzip2 stream at compressed bytes {start}..{end}: "
        )),
        "{errors:?}"
    );
    assert!(errors.len() <= 3, "{errors:?}");
    assert!(
        got.len() >= want.len() - 6,
        "{} of {}",
        got.len(),
        want.len()
    );
    for page in &got {
        assert!(want.contains(page), "{}", page.title);
    }
    for threads in [2, 3] {
        assert_eq!(read_at(&dump, threads), (got.clone(), errors.clone()));
    }
}

#[test]
fn junk_between_streams_is_skipped() {
    let xml = xml_head(SAMPLE, 120);
    let (want, _) = read_at(&xml, 1);
    let (mut dump, _) = multistream(&xml, 5);
    let offsets = stream_offsets(&xml, 5);
    // Junk before the 4th and the 10th stream (the later offsets shift by the first junk).
    let junk = b"\n<html>404 Not Found</html>\n".repeat(40);
    let (a, b) = (offsets[4], offsets[10]);
    dump.splice(b..b, junk.iter().copied());
    dump.splice(a..a, junk.iter().copied());
    let (got, errors) = read_at(&dump, 1);
    assert_eq!(got, want);
    let b = b + junk.len();
    let n = junk.len();
    assert_eq!(
        errors,
        [a, b].map(|at| format!(
            "{n} bytes of non-bzip2 data after a bzip2 stream at compressed bytes {at}..{}; skipped",
            at + n
        ))
    );
    for threads in [2, 3] {
        assert_eq!(read_at(&dump, threads), (got.clone(), errors.clone()));
    }
}

#[test]
fn damaged_multistream_reads_alike_at_any_thread_count() {
    // Damage of every kind at several places: the same pages and errors at 1, 2 and 3 threads.
    let xml = xml_head(SAMPLE, 40);
    let (dump, _) = multistream(&xml, 3);
    let n = dump.len();
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for at in [10, n / 3, n / 2 + 11, n - 300] {
        let mut d = dump.clone();
        for b in &mut d[at..at + 16] {
            *b = !*b;
        }
        cases.push((format!("flipped at {at}"), d));
        let mut d = dump.clone();
        d.splice(at..at, b"BZh9 junk".iter().copied());
        cases.push((format!("inserted at {at}"), d));
        let mut d = dump.clone();
        d.drain(at..(at + 500).min(n));
        cases.push((format!("cut out at {at}"), d));
        cases.push((format!("truncated at {at}"), dump[..at].to_vec()));
    }
    for (what, d) in &cases {
        let want = read_at(d, 1);
        assert!(!want.1.is_empty(), "{what}: no error");
        for threads in [2, 3] {
            assert_eq!(read_at(d, threads), want, "{what}, {threads} threads");
        }
    }
}

#[test]
fn truncated_bz2_delivers_pages_before_the_cut() {
    let bytes = std::fs::read(data(SAMPLE)).unwrap();
    let cut = bytes[..bytes.len() / 2].to_vec();
    for threads in [1, 2] {
        let mut b = ReaderBuilder::new();
        b.threads(threads);
        let (pages, errors) = collect(b.from_reader(std::io::Cursor::new(cut.clone())).unwrap());
        assert!(pages.len() > 20, "{}", pages.len());
        assert!(
            errors.iter().any(|e| matches!(e, Error::Bzip2 { .. })),
            "{errors:?}"
        );
    }
}

#[test]
fn page_cap_skips_big_pages() {
    let xml = xml(SAMPLE);
    let mut b = ReaderBuilder::new();
    b.max_page_bytes(20_000);
    let (pages, errors) = collect(b.from_reader(std::io::Cursor::new(xml)).unwrap());
    assert!(!pages.is_empty());
    assert!(pages.iter().all(|p| p.text.len() < 20_000));
    assert!(errors.iter().any(|e| matches!(e, Error::PageTooLarge { title: Some(t), limit: 20_000, .. } if t == "Anarchism")));
    assert!(
        errors
            .iter()
            .all(|e| matches!(e, Error::PageTooLarge { .. }))
    );
}

#[test]
fn invalid_utf8_names_offset_and_title() {
    let mut xml = std::fs::read(fixture("mini.xml")).unwrap();
    let at = xml.windows(6).position(|w| w == b"second").unwrap();
    xml[at] = 0xff;
    let (pages, errors) = collect(DumpReader::new(std::io::Cursor::new(xml)).unwrap());
    assert_eq!(pages.len(), 2);
    match &errors[..] {
        [Error::InvalidUtf8 { offset, title }] => {
            assert_eq!(*offset, at as u64);
            assert_eq!(title.as_deref(), Some("Second"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn mini_fixture_fields() {
    let mut b = ReaderBuilder::new();
    b.redirects(true).namespaces(Some(&[0, 4]));
    let (pages, errors) = collect(b.open(fixture("mini.xml")).unwrap());
    assert!(errors.is_empty(), "{errors:?}");
    let titles: Vec<_> = pages.iter().map(|p| p.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "First & one",
            "Second",
            "Wikipedia:About",
            "Third",
            "Redirected"
        ]
    );
    assert_eq!(pages[0].text, "Text with <ref>a</ref> & more");
    assert_eq!(pages[4].redirect.as_deref(), Some("First & one"));
    assert_eq!(pages[0].revision_id, Some(11));
    assert_eq!(pages[0].timestamp.as_deref(), Some("2020-01-01T00:00:00Z"));
}

#[test]
fn stdin_like_reader_in_small_pieces() {
    // A reader that returns one byte at a time still works (format sniffing, tag splits).
    struct Trickle(std::io::Cursor<Vec<u8>>);
    impl std::io::Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }
    let xml = std::fs::read(fixture("mini.xml")).unwrap();
    let (pages, errors) =
        collect(DumpReader::new(Trickle(std::io::Cursor::new(bz2(&xml)))).unwrap());
    assert!(errors.is_empty());
    assert_eq!(pages.len(), 3);
}

#[test]
fn config_errors() {
    assert!(matches!(
        ReaderBuilder::new()
            .threads(0)
            .from_reader(std::io::empty()),
        Err(Error::Config(_))
    ));
    assert!(matches!(
        DumpReader::open("/nonexistent/dump.xml"),
        Err(Error::Io { .. })
    ));
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(b"").unwrap();
    let (pages, errors) = collect(DumpReader::open(f.path()).unwrap());
    assert!(pages.is_empty() && errors.is_empty());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
    /// Damaged XML (bytes overwritten, cut anywhere): no panic, every intact page that does not
    /// touch the damage still comes out, and error offsets point inside the input.
    #[test]
    fn damaged_xml_never_panics(
        cut in 0usize..2000,
        at in 0usize..2000,
        junk in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
    ) {
        let mut xml = std::fs::read(fixture("mini.xml")).unwrap();
        let at = at.min(xml.len());
        // Pages that end before the damage and the cut must all come out.
        let intact = xml
            .windows(7)
            .enumerate()
            .filter(|&(i, w)| w == b"</page>" && i + 7 <= at.min(cut))
            .count();
        let end = (at + junk.len()).min(xml.len());
        xml.splice(at..end, junk.iter().copied());
        xml.truncate(cut.max(at).min(xml.len()));
        let len = xml.len() as u64;
        let mut b = ReaderBuilder::new();
        b.namespaces(None).redirects(true).max_page_bytes(4096);
        let (pages, errors) = collect(b.from_reader(std::io::Cursor::new(xml)).unwrap());
        proptest::prop_assert!(pages.len() <= 5);
        proptest::prop_assert!(pages.len() >= intact, "{} < {}", pages.len(), intact);
        for e in &errors {
            if let Some(off) = e.offset() {
                proptest::prop_assert!(off <= len, "{} > {}", off, len);
            }
        }
    }
}

/// What `fuzz/fuzz_targets/wikidump_parse.rs` asserts of cleaned text: never empty or untrimmed,
/// and none of the markup the cleaner removes left in it.
fn check_clean(wikitext: &str) {
    const RESIDUE: &[&str] = &["{{", "}}", "[[", "]]", "{|", "|}", "'''", "<ref"];
    for p in &textreuse_wikidump::Cleaner::new().clean(wikitext) {
        assert!(
            !p.text.is_empty() && p.text.trim() == p.text,
            "{:?}",
            p.text
        );
        for r in RESIDUE {
            assert!(!p.text.contains(r), "{r:?} left in {:?}", p.text);
        }
    }
}

#[test]
fn fuzz_crash_regressions() {
    // Inputs on which `cargo fuzz run wikidump_parse` failed, kept: cleaning them as wikitext
    // and reading them as a dump must not panic, and must give tidy paragraphs without markup.
    for name in [
        "crash-d6c15d778d1ba74ba462898720acb41d4245f204",
        "crash-reformed-ref-tag",
    ] {
        let bytes = std::fs::read(fixture(name)).unwrap();
        check_clean(&String::from_utf8_lossy(&bytes));
        let mut b = ReaderBuilder::new();
        b.namespaces(None).redirects(true).threads(1);
        for page in b
            .from_reader(std::io::Cursor::new(bytes))
            .unwrap()
            .flatten()
        {
            check_clean(&page.text);
        }
    }
    let text = std::fs::read_to_string(fixture("crash-reformed-ref-tag")).unwrap();
    assert_eq!(
        textreuse_wikidump::Cleaner::new()
            .clean(&text)
            .paragraph(0)
            .unwrap()
            .text,
        // The `<` whose tag name the removed `<span>` cut in two goes; the letters stay.
        "Proseref name=x>...ref> more prose."
    );
}

#[test]
fn byte_order_marks() {
    let xml = std::fs::read(fixture("mini.xml")).unwrap();
    let (want, _) = read_at(&xml, 1);
    // A UTF-8 byte-order mark is skipped, in plain and compressed input, and byte offsets in
    // errors still count it.
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(&xml);
    for threads in [1, 2] {
        assert_eq!(read_at(&bom, threads), (want.clone(), vec![]));
        assert_eq!(read_at(&bz2(&bom), threads), (want.clone(), vec![]));
    }
    let at = bom.windows(6).position(|w| w == b"second").unwrap();
    bom[at] = 0xff;
    let (_, errors) = collect(DumpReader::new(std::io::Cursor::new(bom)).unwrap());
    assert!(
        matches!(&errors[..], [Error::InvalidUtf8 { offset, .. }] if *offset == at as u64),
        "{errors:?}"
    );
    // UTF-16 and UTF-32, with and without a byte-order mark: one fatal error naming the
    // encoding and the conversion, no pages and no "stray bytes".
    let text = String::from_utf8(xml).unwrap();
    let utf16 = |bom: &[u8], be: bool| -> Vec<u8> {
        let mut out = bom.to_vec();
        for u in text.encode_utf16() {
            out.extend(if be { u.to_be_bytes() } else { u.to_le_bytes() });
        }
        out
    };
    let utf32le: Vec<u8> = text
        .chars()
        .flat_map(|c| (c as u32).to_le_bytes())
        .collect();
    let cases = [
        (
            utf16(b"\xFF\xFE", false),
            "UTF-16LE",
            "iconv -f UTF-16 -t UTF-8",
        ),
        (
            utf16(b"\xFE\xFF", true),
            "UTF-16BE",
            "iconv -f UTF-16 -t UTF-8",
        ),
        (utf16(b"", false), "UTF-16LE", "iconv -f UTF-16LE -t UTF-8"),
        (utf32le, "UTF-32LE", "iconv -f UTF-32LE -t UTF-8"),
    ];
    for (bytes, encoding, hint) in cases {
        for input in [bytes.clone(), bz2(&bytes)] {
            let (pages, errors) = collect(DumpReader::new(std::io::Cursor::new(input)).unwrap());
            assert!(pages.is_empty());
            match &errors[..] {
                [
                    e @ Error::Encoding {
                        encoding: found, ..
                    },
                ] => {
                    assert_eq!(*found, encoding);
                    assert!(e.is_fatal());
                    assert!(e.to_string().contains(hint), "{e}");
                }
                other => panic!("{encoding}: {other:?}"),
            }
        }
    }
}
