use std::io::Write;

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
    // Without an index: boundaries found by scanning.
    assert!(want.len() > 20);
    for threads in [1, 3] {
        let mut b = ReaderBuilder::new();
        b.threads(threads);
        let (got, errors) = collect(b.open(&path).unwrap());
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(got, want, "threads {threads}");
    }
    // With the index next to the dump (found by name) and given explicitly.
    let index_path = dir
        .path()
        .join("test-pages-articles-multistream-index.txt.bz2");
    std::fs::write(&index_path, &index).unwrap();
    let (got, errors) = collect(ReaderBuilder::new().threads(2).open(&path).unwrap());
    assert!(errors.is_empty());
    assert_eq!(got, want);
    let (got, _) = collect(
        ReaderBuilder::new()
            .threads(2)
            .index(Some(&index_path))
            .from_reader(std::io::Cursor::new(dump))
            .unwrap(),
    );
    assert_eq!(got, want);
}

#[test]
fn corrupt_stream_in_multistream_is_skipped() {
    let xml = xml_head(SAMPLE, 120);
    let (want, _) = collect(DumpReader::new(std::io::Cursor::new(xml.clone())).unwrap());
    let (mut dump, _) = multistream(&xml, 5);
    // Damage the middle of the file (inside some stream's compressed data).
    let mid = dump.len() / 2;
    for b in &mut dump[mid..mid + 64] {
        *b ^= 0x5a;
    }
    for threads in [1, 2] {
        let mut b = ReaderBuilder::new();
        b.threads(threads);
        let (got, errors) = collect(b.from_reader(std::io::Cursor::new(dump.clone())).unwrap());
        assert!(
            errors.iter().any(|e| matches!(e, Error::Bzip2 { .. })),
            "threads {threads}: {errors:?}"
        );
        if threads > 1 {
            // Streams after the damaged one are still decoded: most articles come out.
            assert!(
                got.len() > want.len() * 3 / 4,
                "{} of {}",
                got.len(),
                want.len()
            );
        }
        // Whatever comes out is a correct page.
        for page in &got {
            assert!(want.contains(page), "{}", page.title);
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
    for p in textreuse_wikidump::Cleaner::new().clean(wikitext).paragraphs {
        assert!(!p.text.is_empty() && p.text.trim() == p.text, "{:?}", p.text);
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
        for page in b.from_reader(std::io::Cursor::new(bytes)).unwrap().flatten() {
            check_clean(&page.text);
        }
    }
    let text = std::fs::read_to_string(fixture("crash-reformed-ref-tag")).unwrap();
    assert_eq!(
        textreuse_wikidump::Cleaner::new().clean(&text).paragraphs[0].text,
        // The `<` whose tag name the removed `<span>` cut in two goes; the letters stay.
        "Proseref name=x>...ref> more prose."
    );
}
