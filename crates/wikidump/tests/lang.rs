//! Real dumps in other languages and scripts: with its siteinfo's names, the cleaner leaves no
//! namespace link, image option or link markup of the wiki's language in its output.
//!
//! Regression test of #51: on a Ukrainian dump the cleaner knew the English names only, and
//! kept `Категорія:...` lines and the options of `[[Файл:...|міні|праворуч|...]]` as text.
use std::path::Path;

use textreuse_wikidump::{Cleaner, CleanerBuilder, DumpReader, SiteNames};

use crate::support::{data, lang};

/// The cleaner for a dump: its siteinfo's names.
fn cleaner_for(reader: &mut DumpReader) -> Cleaner {
    let names = SiteNames::for_site(reader.site_info());
    CleanerBuilder::new().site_names(names).build().unwrap()
}

#[derive(Debug, Default)]
struct Residue {
    articles: usize,
    paragraphs: usize,
    /// Hidden namespace links in the wikitext (`[[Категорія:`, `[[Файл:`, ...), and those
    /// with a leading colon (`[[:Категорія:`, visible links to the page).
    links_in: usize,
    visible_links_in: usize,
    /// In the clean text: a hidden namespace name then `:`, pieces between `|` that are image
    /// options, and the characters `|`, `[[`, `]]`.
    namespaces_out: Vec<String>,
    options_out: Vec<String>,
    markup_out: Vec<String>,
}

fn residue(path: &Path) -> Residue {
    let mut reader = DumpReader::open(path).unwrap();
    // The names the residue is measured with: always the dump's, whatever the cleaner knows.
    let names = SiteNames::for_site(reader.site_info());
    let cleaner = cleaner_for(&mut reader);
    let hidden: Vec<String> = names.hidden_namespaces().map(str::to_owned).collect();
    let mut r = Residue::default();
    for page in reader {
        let Ok(page) = page else { continue };
        r.articles += 1;
        let lower = page.text.to_lowercase();
        for name in &hidden {
            r.links_in += lower.matches(&format!("[[{name}:")).count();
            r.visible_links_in += lower.matches(&format!("[[:{name}:")).count();
        }
        for p in &cleaner.clean(&page.text) {
            r.paragraphs += 1;
            let lower = p.text.to_lowercase();
            if hidden.iter().any(|name| {
                lower.match_indices(&format!("{name}:")).any(|(at, _)| {
                    !lower[..at]
                        .chars()
                        .next_back()
                        .is_some_and(char::is_alphanumeric)
                })
            }) {
                r.namespaces_out.push(format!("{}: {}", page.title, p.text));
            }
            if p.text.contains('|') && p.text.split('|').any(|piece| names.is_image_option(piece)) {
                r.options_out.push(format!("{}: {}", page.title, p.text));
            }
            if p.text.contains('|') || p.text.contains("[[") || p.text.contains("]]") {
                r.markup_out.push(format!("{}: {}", page.title, p.text));
            }
        }
    }
    r
}

/// The Ukrainian slice: 15 articles whose wikitext has 40 category and file links
/// (`[[Категорія:...]]`, `[[Файл:...|міні|...]]`); none survives cleaning.
#[test]
fn ukwiki_slice_keeps_no_localized_namespace_links_or_image_options() {
    let r = residue(&lang("ukwiki-slice.xml.bz2"));
    assert_eq!(r.articles, 15);
    assert!(r.paragraphs > 500, "{}", r.paragraphs);
    assert!(r.links_in >= 40, "the input has the links: {}", r.links_in);
    assert_eq!(r.visible_links_in, 0);
    assert!(r.namespaces_out.is_empty(), "{:#?}", r.namespaces_out);
    assert!(r.options_out.is_empty(), "{:#?}", r.options_out);
    assert!(r.markup_out.is_empty(), "{:#?}", r.markup_out);
}

/// Every slice, Cyrillic, Greek, Latin, Japanese, Armenian and Bengali: no image option or link
/// markup; a namespace name is left only where the wikitext links to the page itself with a
/// leading colon (`[[:Категория:Газеты Литвы]]`, shown as text in MediaWiki too).
#[test]
fn slices_in_other_scripts_keep_no_namespace_links_or_image_options() {
    let files = [
        lang("ukwiki-slice.xml.bz2"),
        lang("ruwiki-sample.xml.bz2"),
        lang("bgwiki-sample.xml.bz2"),
        lang("elwiki-slice.xml.bz2"),
        lang("jawiki-slice.xml.bz2"),
        lang("viwiki-slice.xml.bz2"),
        lang("hywiki-slice.xml.bz2"),
        lang("bnwiki-slice.xml.bz2"),
        data("enwiki-sample-206.xml.bz2"),
    ];
    for path in files {
        let r = residue(&path);
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(r.articles >= 1 && r.paragraphs >= 50, "{name}: {r:?}");
        assert!(r.links_in > 0, "{name}: the input has hidden links");
        assert!(
            r.namespaces_out.len() <= r.visible_links_in,
            "{name}: {:#?}",
            r.namespaces_out
        );
        assert!(r.options_out.is_empty(), "{name}: {:#?}", r.options_out);
        if !name.starts_with("enwiki") {
            // enwiki-sample has six literal `|` in prose (ASCII tables in "ASCII").
            assert!(r.markup_out.is_empty(), "{name}: {:#?}", r.markup_out);
        }
    }
}

/// The pages' categories, under the wiki's own name for the namespace (`Категорія:` in the
/// Ukrainian slice, `Category:` in the English sample), in page order, each once.
#[test]
fn categories_under_the_wikis_names() {
    for (path, prefix) in [
        (lang("ukwiki-slice.xml.bz2"), "[[Категорія:"),
        (data("enwiki-sample-206.xml.bz2"), "[[Category:"),
    ] {
        let mut reader = DumpReader::open(&path).unwrap();
        let cleaner = cleaner_for(&mut reader);
        let (mut pages, mut with) = (0, 0);
        for page in reader {
            let page = page.unwrap();
            let article = cleaner.clean(&page.text);
            let found: Vec<&str> = article.categories().collect();
            // Each category the wikitext links directly (no template) is found, once.
            let written = page.text.matches(prefix).count();
            assert!(found.len() <= written, "{}: {found:?}", page.title);
            let mut unique = found.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), found.len(), "{}", page.title);
            for c in &found {
                assert!(
                    !c.is_empty() && !c.contains(['|', ']', '_']),
                    "{}: {c:?}",
                    page.title
                );
                assert!(
                    page.text
                        .contains(&c[c.char_indices().nth(1).map_or(0, |(i, _)| i)..])
                );
            }
            pages += 1;
            with += (!found.is_empty()) as usize;
            if written > 0 {
                assert!(
                    !found.is_empty(),
                    "{}: {written} category links, none found",
                    page.title
                );
            }
        }
        assert!(
            with * 2 > pages,
            "{}: {with} of {pages} pages with categories",
            path.display()
        );
    }
}
