//! The siteinfo of real dumps: read before or during iteration, at any thread count, without
//! changing the pages and errors.
use textreuse_wikidump::{DumpReader, NS_CATEGORY, NS_FILE, NS_MEDIA, ReaderBuilder, SiteInfo};

use crate::support::{bz2, collect, data, fixture, lang, xml};

fn titles_and_errors(reader: DumpReader) -> (Vec<String>, Vec<String>) {
    let (pages, errors) = collect(reader);
    (
        pages.into_iter().map(|p| p.title).collect(),
        errors.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn slices_name_their_namespaces_and_language() {
    let cases = [
        ("ukwiki-slice.xml.bz2", "uk", "Медіа", "Файл", "Категорія"),
        ("bgwiki-sample.xml.bz2", "bg", "Медия", "Файл", "Категория"),
        ("ruwiki-sample.xml.bz2", "ru", "Медиа", "Файл", "Категория"),
        ("elwiki-slice.xml.bz2", "el", "Μέσο", "Αρχείο", "Κατηγορία"),
        (
            "jawiki-slice.xml.bz2",
            "ja",
            "メディア",
            "ファイル",
            "Category",
        ),
        (
            "viwiki-slice.xml.bz2",
            "vi",
            "Phương tiện",
            "Tập tin",
            "Thể loại",
        ),
    ];
    for (file, code, media, file_ns, category) in cases {
        for threads in [1, 2] {
            let mut reader = ReaderBuilder::new()
                .threads(threads)
                .open(lang(file))
                .unwrap();
            let site = reader.site_info().clone();
            assert_eq!(site.language(), Some(code), "{file}");
            assert_eq!(site.namespace(NS_MEDIA), Some(media), "{file}");
            assert_eq!(site.namespace(NS_FILE), Some(file_ns), "{file}");
            if code != "ja" {
                assert_eq!(site.namespace(NS_CATEGORY), Some(category), "{file}");
            }
            assert!(
                site.namespaces.len() >= 20,
                "{file}: {}",
                site.namespaces.len()
            );
        }
    }
    let mut reader = DumpReader::open(lang("jawiki-slice.xml.bz2")).unwrap();
    assert_eq!(reader.site_info().namespace(NS_CATEGORY), Some("Category"));
}

#[test]
fn reading_the_siteinfo_first_changes_no_page_or_error() {
    let files = [
        lang("ukwiki-slice.xml.bz2"),
        lang("ruwiki-sample.xml.bz2"),   // cut off: no </mediawiki>
        data("enwiki-part-201.xml.bz2"), // stray bytes after </siteinfo>, spliced pages
        fixture("mini.xml"),
    ];
    for path in files {
        for threads in [1, 2] {
            let plain = ReaderBuilder::new().threads(threads).open(&path).unwrap();
            let mut first = ReaderBuilder::new().threads(threads).open(&path).unwrap();
            let site = first.site_info().clone();
            let expected = titles_and_errors(plain);
            assert_eq!(titles_and_errors(first), expected, "{}", path.display());

            // Asked for after the first page, it is the same siteinfo.
            let mut late = ReaderBuilder::new().threads(threads).open(&path).unwrap();
            let _ = late.next();
            assert_eq!(late.site_info(), &site, "{}", path.display());
        }
    }
}

#[test]
fn damaged_english_head_still_gives_the_siteinfo() {
    // enwiki-part-201 has `   <namespace key="829" cas` between </siteinfo> and the first page.
    let mut reader = DumpReader::open(data("enwiki-part-201.xml.bz2")).unwrap();
    let site = reader.site_info();
    assert_eq!(site.generator.as_deref(), Some("MediaWiki 1.21wmf12"));
    assert_eq!(site.language(), Some("en"));
    assert_eq!(site.namespace(NS_FILE), Some("File"));
    assert_eq!(site.namespace(NS_CATEGORY), Some("Category"));
    assert!(
        !site
            .namespaces
            .iter()
            .any(|n| n.key == 829 && n.name.is_empty())
    );
}

#[test]
fn dumps_without_a_readable_siteinfo() {
    // None at all.
    let xml_none = b"<mediawiki><page><title>A</title><ns>0</ns><id>1</id>\
        <revision><text>x</text></revision></page></mediawiki>"
        .to_vec();
    // Cut inside the siteinfo, before any page: the complete entries are read.
    let full = xml("enwiki-sample-206.xml.bz2");
    let cut_at = full.windows(8).position(|w| w == b"key=\"14\"").unwrap() + 40;
    let cut = full[..cut_at].to_vec();
    // UTF-16: refused by the reader; no siteinfo read, no panic.
    let utf16: Vec<u8> = "\u{feff}<mediawiki><siteinfo><dbname>x</dbname></siteinfo>"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let mut reader = DumpReader::new(std::io::Cursor::new(xml_none)).unwrap();
    assert!(reader.site_info().is_empty());
    assert_eq!(titles_and_errors(reader).0, ["A"]);

    for threads in [1, 2] {
        let mut reader = ReaderBuilder::new()
            .threads(threads)
            .from_reader(std::io::Cursor::new(bz2(&cut)))
            .unwrap();
        let site = reader.site_info().clone();
        assert_eq!(site.namespace(NS_FILE), Some("File"));
        assert_eq!(site.namespace(NS_CATEGORY), None, "cut inside key 14");
        let (pages, errors) = titles_and_errors(reader);
        assert!(pages.is_empty());
        assert!(!errors.is_empty(), "the cut is reported by iteration");
    }

    let mut reader = DumpReader::new(std::io::Cursor::new(utf16)).unwrap();
    assert_eq!(reader.site_info(), &SiteInfo::default());
    let (_, errors) = titles_and_errors(reader);
    assert!(errors[0].contains("UTF-16LE"), "{errors:?}");
}

#[test]
fn a_huge_head_is_read_only_up_to_the_cap() {
    // 3 MiB of blanks inside the siteinfo before the namespaces: the reader stops looking at
    // MAX_SITEINFO_BYTES, and iteration still delivers the page.
    let mut dump = b"<mediawiki><siteinfo><dbname>xwiki</dbname>".to_vec();
    dump.resize(dump.len() + (3 << 20), b' ');
    dump.extend_from_slice(
        b"<namespaces><namespace key=\"6\">Late</namespace></namespaces></siteinfo>\
          <page><title>A</title><ns>0</ns><id>1</id><revision><text>x</text></revision></page>\
          </mediawiki>",
    );
    let mut reader = DumpReader::new(std::io::Cursor::new(dump)).unwrap();
    let site = reader.site_info().clone();
    assert_eq!(site.dbname.as_deref(), Some("xwiki"));
    assert_eq!(site.namespace(NS_FILE), None);
    assert_eq!(titles_and_errors(reader).0, ["A"]);
}
