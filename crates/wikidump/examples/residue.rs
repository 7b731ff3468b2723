//! Markup residue in the cleaner's output: how much of a wiki's link and image markup survives
//! cleaning, per 100,000 characters of clean text, for each dump given.
//!
//! ```sh
//! cargo run --release -p textreuse-wikidump --example residue -- \
//!     testdata/lang/ukwiki-slice.xml.bz2 testdata/lang/ruwiki-sample.xml.bz2 \
//!     data/enwiki-sample-206.xml.bz2
//! ```
//!
//! Every page the reader yields (articles, namespace 0, no redirects) is cleaned and every
//! paragraph it gives (prose and list items) is counted. Residue, in the clean text:
//! - `ns`: a hidden namespace's name followed by `:` (`Категорія:`, `Файл:`, `Category:`,
//!   `Image:`), ignoring case, not preceded by a letter or digit. The names are those of
//!   [`SiteNames::for_site`] for the dump: its siteinfo's media, file and category names, the
//!   aliases of its language and the English ones;
//! - `img`: a `|`-separated piece of a paragraph with a `|` in it that is an image option of
//!   the dump's language or English ([`SiteNames::is_image_option`]: `thumb`, `міні`, `250px`,
//!   `250пкс`, `upright=1.2`, ...);
//! - `[[`, `]]`, `{{`, `}}`: those pairs of characters (non-overlapping);
//! - `|`: every vertical bar.
//!
//! Output: a Markdown table, one row per dump: language (from the siteinfo), articles,
//! paragraphs, characters of clean text, paragraphs with any `ns` residue, then each count and,
//! in parentheses, the count per 100,000 characters. Damage the reader reports is counted in
//! the last column. `--show` also prints each paragraph with residue to standard error, with
//! its page title. `--english` cleans with the English names only (what the cleaner knew before
//! it read the siteinfo); the residue is still measured with the dump's names.
use std::error::Error;

use textreuse_wikidump::{Cleaner, CleanerBuilder, DumpReader, SiteNames};

#[derive(Default)]
struct Counts {
    articles: u64,
    paragraphs: u64,
    ns_paragraphs: u64,
    chars: u64,
    ns: u64,
    img: u64,
    open_link: u64,
    close_link: u64,
    open_tpl: u64,
    close_tpl: u64,
    pipes: u64,
    errors: u64,
}

/// Non-overlapping occurrences of `needle` in `text`.
fn pairs(text: &str, needle: &str) -> u64 {
    text.matches(needle).count() as u64
}

/// Occurrences of `name:` in `lower` (lower-cased text) not preceded by a letter or digit.
fn prefixed(lower: &str, name: &str) -> u64 {
    let needle = format!("{name}:");
    lower
        .match_indices(&needle)
        .filter(|(at, _)| {
            !lower[..*at]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric)
        })
        .count() as u64
}

fn measure(path: &str, english: bool, show: bool) -> Result<(String, Counts), Box<dyn Error>> {
    let mut reader = DumpReader::open(path)?;
    let site = reader.site_info().clone();
    let names = SiteNames::for_site(&site);
    let cleaner = if english {
        Cleaner::new()
    } else {
        cleaner_for(&names)
    };
    let hidden: Vec<&str> = names.hidden_namespaces().collect();
    let mut counts = Counts::default();
    for page in reader {
        let page = match page {
            Ok(page) => page,
            Err(_) => {
                counts.errors += 1;
                continue;
            }
        };
        counts.articles += 1;
        for p in &cleaner.clean(&page.text) {
            let text = p.text;
            counts.paragraphs += 1;
            counts.chars += text.chars().count() as u64;
            let lower = text.to_lowercase();
            let ns: u64 = hidden.iter().map(|name| prefixed(&lower, name)).sum();
            counts.ns += ns;
            counts.ns_paragraphs += u64::from(ns > 0);
            if text.contains('|') {
                counts.img += text
                    .split('|')
                    .filter(|piece| names.is_image_option(piece))
                    .count() as u64;
            }
            if show && (ns > 0 || text.contains(['|', '[', ']', '{', '}'])) {
                eprintln!("{}\t{text}", page.title);
            }
            counts.open_link += pairs(text, "[[");
            counts.close_link += pairs(text, "]]");
            counts.open_tpl += pairs(text, "{{");
            counts.close_tpl += pairs(text, "}}");
            counts.pipes += pairs(text, "|");
        }
    }
    Ok((site.language().unwrap_or("?").to_string(), counts))
}

/// The cleaner for a dump's names.
fn cleaner_for(names: &SiteNames) -> Cleaner {
    CleanerBuilder::new()
        .site_names(names.clone())
        .build()
        .expect("the default options are valid")
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut english = false;
    let mut show = false;
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--english" => english = true,
            "--show" => show = true,
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        return Err("usage: residue [--english] [--show] DUMP...".into());
    }
    println!(
        "| dump | lang | articles | paragraphs | characters | paragraphs with ns | ns | img | \
         `[[` | `]]` | `{{{{` | `}}}}` | `\\|` | damage |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for path in &files {
        let (lang, c) = measure(path, english, show)?;
        let per = |n: u64| {
            if c.chars == 0 {
                format!("{n}")
            } else {
                format!("{n} ({:.1})", n as f64 * 100_000.0 / c.chars as f64)
            }
        };
        let name = std::path::Path::new(path)
            .file_name()
            .map_or_else(|| path.clone(), |n| n.to_string_lossy().into_owned());
        println!(
            "| {name} | {lang} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.articles,
            c.paragraphs,
            c.chars,
            c.ns_paragraphs,
            per(c.ns),
            per(c.img),
            per(c.open_link),
            per(c.close_link),
            per(c.open_tpl),
            per(c.close_tpl),
            per(c.pipes),
            c.errors,
        );
    }
    Ok(())
}
