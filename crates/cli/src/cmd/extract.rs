//! `textreuse extract`: the articles of Wikipedia dumps as JSON lines,
//! `{"id":..,"title":..,"paragraphs":[{"section":..,"text":..,"list":true?}, ...]}`.
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;
use textreuse_wikidump::{Article, Cleaner, CleanerBuilder, DumpReader, ReaderBuilder, SiteNames};

use crate::args::max_memory::{self, MaxMemoryArgs};
use crate::exit;
use crate::global::Global;

/// The dump used when no file is given: the sample bundled in the repository's `data/`
/// directory, found relative to this crate's source tree at build time.
pub const DEFAULT_DUMP: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/enwiki-sample-206.xml.bz2"
);

/// Arguments of `textreuse extract`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Dumps to read: .xml or .xml.bz2 (single-stream or multistream), `-` for stdin.
    /// Default: the 206-page sample bundled in the repository (data/enwiki-sample-206.xml.bz2).
    #[arg(value_name = "DUMP")]
    pub dumps: Vec<PathBuf>,
    /// Ignored (accepted so that older command lines still run): stream starts of multistream
    /// dumps are found by scanning the dump, so its `...-index.txt.bz2` is not needed.
    #[arg(long, value_name = "FILE", hide = true)]
    pub index: Option<PathBuf>,
    /// Keep pages of every namespace, not only articles (namespace 0).
    #[arg(long)]
    pub all_namespaces: bool,
    /// Keep redirect pages.
    #[arg(long)]
    pub redirects: bool,
    /// Drop list items instead of keeping them marked `"list": true`.
    #[arg(long)]
    pub no_lists: bool,
    /// Keep the sections dropped by default (See also, References, External links, Further
    /// reading, Notes, Bibliography).
    #[arg(long)]
    pub keep_all_sections: bool,
    /// Skip pages larger than this many MiB of XML (reported on stderr).
    #[arg(long, default_value_t = textreuse_wikidump::DEFAULT_MAX_PAGE_BYTES >> 20, value_name = "MIB")]
    pub max_page_mib: usize,
    #[command(flatten)]
    pub max_memory: MaxMemoryArgs<max_memory::Extract>,
}

#[derive(Serialize)]
struct OutArticle<'a> {
    id: u64,
    title: &'a str,
    paragraphs: OutParagraphs<'a>,
}

/// The paragraphs, serialized straight from the article (a page of millions of list items
/// needs no second copy).
struct OutParagraphs<'a>(&'a Article);

impl Serialize for OutParagraphs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.paragraphs().map(|p| OutParagraph {
            section: p.section,
            text: p.text,
            list: p.list,
        }))
    }
}

#[derive(Serialize)]
struct OutParagraph<'a> {
    section: &'a str,
    text: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    list: bool,
}

/// Runs `textreuse extract`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    if args.index.is_some() {
        global.log("--index is ignored: stream starts are found by scanning the dump itself");
    }
    let mut reader = ReaderBuilder::new();
    reader
        .redirects(args.redirects)
        .max_page_bytes(args.max_page_mib.max(1).saturating_mul(1 << 20));
    if args.all_namespaces {
        reader.namespaces(None);
    }
    if let Some(n) = global.threads {
        reader.threads(n);
    }
    if let Some(bytes) = args.max_memory.bytes()? {
        reader.max_memory(bytes);
        // Checked before any dump is opened; fewer decompression threads may fit.
        let threads = reader.threads_used().context("invalid --max-memory")?;
        global.log(format_args!(
            "--max-memory: {threads} decompression thread(s), pages of up to {} MiB",
            args.max_page_mib.max(1)
        ));
    }
    let mut cleaner = CleanerBuilder::new();
    cleaner.keep_lists(!args.no_lists);
    if args.keep_all_sections {
        cleaner.drop_sections::<&str>(&[]);
    }
    cleaner.build()?; // the options are checked once, before any dump is read
    let default = [PathBuf::from(DEFAULT_DUMP)];
    let dumps: &[PathBuf] = if args.dumps.is_empty() {
        &default
    } else {
        &args.dumps
    };
    let mut out = exit::stdout();
    let mut faults = 0usize;
    for dump in dumps {
        let mut pages = if dump == Path::new("-") {
            reader.from_reader(std::io::stdin())
        } else {
            reader.open(dump)
        }
        .with_context(|| format!("cannot read {}", dump.display()))?;
        // Each dump is cleaned with its wiki's namespace names (its siteinfo): a Ukrainian
        // dump's `[[Категорія:...]]` and `[[Файл:...|міні|...]]` go as English ones do.
        let names = SiteNames::for_site(pages.site_info());
        let dump_cleaner = cleaner.clone().site_names(names).build()?;
        faults += extract_one(dump, pages, &dump_cleaner, global, &mut out)?;
    }
    out.flush()?;
    exit::skipped(faults as u64)
}

/// Writes the articles of one dump; returns the number of errors reported.
fn extract_one(
    dump: &Path,
    mut pages: DumpReader,
    cleaner: &Cleaner,
    global: &Global,
    out: &mut impl Write,
) -> anyhow::Result<usize> {
    let progress = !global.quiet && std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut last_report = started;
    let mut article = Article::new();
    let mut faults = 0;
    let mut written = 0u64;
    while let Some(page) = pages.next() {
        let page = match page {
            Ok(page) => page,
            Err(err) => {
                faults += 1;
                eprintln!("textreuse: {}: {err}", dump.display());
                continue;
            }
        };
        cleaner.clean_into(&page.text, &mut article);
        let record = OutArticle {
            id: page.id,
            title: &page.title,
            paragraphs: OutParagraphs(&article),
        };
        serde_json::to_writer(&mut *out, &record)?;
        out.write_all(b"\n")?;
        written += 1;
        if progress && last_report.elapsed().as_millis() >= 500 {
            last_report = Instant::now();
            report(&pages, written, started, false);
        }
    }
    if progress {
        report(&pages, written, started, true);
    }
    Ok(faults)
}

fn report(pages: &DumpReader, written: u64, started: Instant, last: bool) {
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    let mb = pages.position() as f64 / 1e6;
    eprint!(
        "\rtextreuse: {} pages read, {written} articles, {mb:.0} MB of XML, {:.1} MB/s{}",
        pages.pages_seen(),
        mb / secs,
        if last { "\n" } else { "" }
    );
}
