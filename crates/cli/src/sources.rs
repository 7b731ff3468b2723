//! Every input the pipeline reads, as one stream of documents: Wikipedia dumps (`.xml`,
//! `.xml.bz2`, `.bz2`) through `textreuse-wikidump`, and plain text or JSON Lines through
//! [`crate::input`].
//!
//! Dump pages arrive as raw wikitext ([`Source::Wiki`]) so that the expensive cleaning can run in
//! parallel in the caller ([`Source::into_document`]); a cleaned article becomes one document
//! whose text is its prose paragraphs joined by blank lines (list items are left out, as the
//! thesis dropped bullet fragments), so no sentence crosses a paragraph.
use std::path::{Path, PathBuf};

use textreuse_wikidump::{Cleaner, DumpReader};

use crate::input::{self, Document};

/// The bundled sample dumps (see `data/README.md`), used when no input is given.
pub fn bundled_samples() -> Vec<PathBuf> {
    let data = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data"));
    ["enwiki-part-201.xml.bz2", "enwiki-sample-206.xml.bz2"]
        .iter()
        .map(|f| data.join(f))
        .collect()
}

/// Whether `path` is read as a Wikipedia XML dump.
pub fn is_dump(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".xml") || name.ends_with(".xml.bz2") || name.ends_with(".bz2")
}

/// One input document before cleaning.
#[derive(Debug)]
pub enum Source {
    /// A ready document (plain text or JSON Lines).
    Text(Document),
    /// A Wikipedia page: id, title and wikitext.
    Wiki {
        /// The page id.
        id: u64,
        /// The page title.
        title: String,
        /// The raw wikitext.
        wikitext: String,
    },
}

impl Source {
    /// The document, cleaning wikitext with `cleaner`.
    pub fn into_document(self, cleaner: &Cleaner) -> Document {
        match self {
            Source::Text(doc) => doc,
            Source::Wiki {
                id,
                title,
                wikitext,
            } => {
                let article = cleaner.clean(&wikitext);
                let mut text = String::with_capacity(wikitext.len() / 2);
                for p in article.paragraphs.iter().filter(|p| !p.list) {
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(&p.text);
                }
                Document { id, title, text }
            }
        }
    }
}

/// What went wrong with an input, without stopping the stream: damaged dumps still deliver
/// every complete page.
#[derive(Debug)]
pub struct InputProblem {
    /// The file.
    pub path: PathBuf,
    /// The cause, one line.
    pub message: String,
}

/// Reads every path in order: dumps page by page, other files through [`input::documents`].
/// Problems are handed to `on_problem` and reading goes on (a damaged dump still yields its
/// complete pages); an input that cannot be opened at all is an error.
pub fn read_all(
    paths: &[PathBuf],
    threads: usize,
    mut on_source: impl FnMut(Source) -> anyhow::Result<()>,
    mut on_problem: impl FnMut(InputProblem),
) -> anyhow::Result<()> {
    for (position, path) in paths.iter().enumerate() {
        if is_dump(path) {
            let reader = textreuse_wikidump::ReaderBuilder::new()
                .threads(threads.max(1))
                .open(path)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            read_dump(path, reader, &mut on_source, &mut on_problem)?;
        } else {
            for doc in input::documents(std::slice::from_ref(path)) {
                let mut doc = doc?;
                if !input::is_json_lines(path) {
                    // A plain-text document's id is its position in the whole argument list.
                    doc.id = position as u64 + 1;
                }
                on_source(Source::Text(doc))?;
            }
        }
    }
    Ok(())
}

fn read_dump(
    path: &Path,
    reader: DumpReader,
    on_source: &mut impl FnMut(Source) -> anyhow::Result<()>,
    on_problem: &mut impl FnMut(InputProblem),
) -> anyhow::Result<()> {
    for page in reader {
        match page {
            Ok(page) => on_source(Source::Wiki {
                id: page.id,
                title: page.title,
                wikitext: page.text,
            })?,
            Err(e) => on_problem(InputProblem {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
        }
    }
    Ok(())
}
