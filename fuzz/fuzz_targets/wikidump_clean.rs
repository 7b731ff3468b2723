//! `wikidump_clean`: the wikitext cleaner on arbitrary text: no panic, no hang; paragraphs
//! non-empty, trimmed, with single spaces (no newline, tab or double space); no markup the
//! cleaner removes (`{{ }} [[ ]] {| |} ''' <ref`) left in them; a reused `Article`
//! (`clean_into`) gives what a fresh one gives; without list items, the paragraphs are the prose
//! ones of the default cleaner, in order.
//!
//! Known failure (issue #22): the cleaner can re-form markup out of pieces it removes (`<re<span>f`
//! becomes `<ref`); the property stays until the cleaner is fixed.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use textreuse_wikidump::{Article, Cleaner, CleanerBuilder};

const RESIDUE: &[&str] = &["{{", "}}", "[[", "]]", "{|", "|}", "'''", "<ref"];

fn cleaners() -> &'static (Cleaner, Cleaner) {
    static C: OnceLock<(Cleaner, Cleaner)> = OnceLock::new();
    C.get_or_init(|| {
        let prose = CleanerBuilder::new().keep_lists(false).build().unwrap();
        (Cleaner::new(), prose)
    })
}

fuzz_target!(|data: &[u8]| {
    let (cleaner, prose) = cleaners();
    let text = String::from_utf8_lossy(data);
    let article = cleaner.clean(&text);
    for p in &article {
        assert!(
            !p.text.is_empty() && p.text.trim() == p.text,
            "untidy {:?}",
            p.text
        );
        assert!(
            !p.text.contains("  ") && !p.text.contains(['\n', '\t']),
            "white space left in {:?}",
            p.text
        );
    }
    // Entities and <nowiki> legitimately produce literal brackets; no residue check for them.
    if !text.contains('&') && !text.to_ascii_lowercase().contains("nowiki") {
        for p in &article {
            for r in RESIDUE {
                assert!(!p.text.contains(r), "{r:?} left in {:?}", p.text);
            }
        }
    }
    // A reused article (scratch buffers full of another page) gives the same paragraphs.
    let mut reused = Article::new();
    cleaner.clean_into(
        "{{a|[[b]]}} ''c'' <ref>d</ref>\n== e ==\n* f\n\ng",
        &mut reused,
    );
    cleaner.clean_into(&text, &mut reused);
    assert!(reused.paragraphs().eq(article.paragraphs()));
    // Without list items: the same prose paragraphs.
    let without = prose.clean(&text);
    let want: Vec<_> = article.paragraphs().filter(|p| !p.list).collect();
    assert_eq!(without.paragraphs().collect::<Vec<_>>(), want);
});
