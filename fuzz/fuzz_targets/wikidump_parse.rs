//! The dump reader and the wikitext cleaner on arbitrary bytes: no panic, no hang, and no
//! markup the cleaner removes (`{{ }} [[ ]] {| |} ''' <ref`) left in its output.
#![no_main]
use libfuzzer_sys::fuzz_target;
use textreuse_wikidump::{Cleaner, ReaderBuilder};

const RESIDUE: &[&str] = &["{{", "}}", "[[", "]]", "{|", "|}", "'''", "<ref"];

fn check(cleaner: &Cleaner, wikitext: &str) {
    let article = cleaner.clean(wikitext);
    // Entities and <nowiki> legitimately produce literal brackets; skip the check for them.
    if wikitext.contains('&') || wikitext.to_ascii_lowercase().contains("nowiki") {
        return;
    }
    for p in &article.paragraphs {
        assert!(
            !p.text.is_empty() && p.text.trim() == p.text,
            "untidy {:?}",
            p.text
        );
        for r in RESIDUE {
            assert!(!p.text.contains(r), "{r:?} left in {:?}", p.text);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let cleaner = Cleaner::new();
    // The bytes as wikitext.
    check(&cleaner, &String::from_utf8_lossy(data));
    // The bytes as a dump (all pages), each page's text cleaned.
    let mut builder = ReaderBuilder::new();
    builder
        .namespaces(None)
        .redirects(true)
        .threads(1)
        .max_page_bytes(4096);
    let Ok(reader) = builder.from_reader(std::io::Cursor::new(data.to_vec())) else {
        return;
    };
    let mut items = 0usize;
    for item in reader {
        items += 1;
        // Every page or error consumes input: never more items than bytes.
        assert!(items <= data.len() + 2);
        match item {
            Ok(page) => check(&cleaner, &page.text),
            Err(e) => {
                if let Some(off) = e.offset() {
                    // Offsets of XML errors point inside the input (bz2 input aside).
                    if !data.starts_with(b"BZh") {
                        assert!(off <= data.len() as u64, "{e}");
                    }
                }
            }
        }
    }
});
