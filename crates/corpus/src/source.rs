//! Every input the pipeline reads, as one stream of [`Source`]s: Wikipedia dumps through
//! `textreuse-wikidump`, JSON Lines and plain text through [`crate::input`] (each compressed or
//! not, recognized by content), Parquet files through `crate::parquet` (the `parquet` feature),
//! files, directories or standard input ([`Inputs`]), or documents a program already holds
//! ([`Source::from`] a [`Document`]).
//!
//! Dump pages arrive as raw wikitext ([`Source::Wiki`]) so that the expensive cleaning runs in
//! parallel in stage 1 ([`Source::into_document`]); a cleaned article becomes one document
//! whose text is its prose paragraphs joined by blank lines (list items are left out, as the
//! thesis dropped bullet fragments), so no sentence crosses a paragraph.
//!
//! ```no_run
//! use textreuse_corpus::{Inputs, Source};
//!
//! // Files in order; a damaged dump yields its complete pages and a recoverable error.
//! for source in Inputs::new(["enwiki.xml.bz2", "more.jsonl"]).threads(2) {
//!     match source {
//!         Ok(Source::Wiki { title, .. }) => println!("page {title}"),
//!         Ok(Source::Text(doc)) => println!("document {}", doc.id),
//!         // A bad file or record is reported and skipped; reading goes on.
//!         Err(e) => eprintln!("skipped: {e}"),
//!     }
//! }
//! ```
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use textreuse_wikidump::{Cleaner, DumpReader, SiteNames};

use crate::input::{
    self, Compression, DocId, Document, Format, InputError, JsonFields, JsonLines, Origin,
};

/// One input document before cleaning.
#[derive(Debug)]
pub enum Source {
    /// A ready document (plain text, JSON Lines, or built by a program).
    Text(Document),
    /// A Wikipedia page: id, title and wikitext.
    Wiki {
        /// The page id.
        id: u64,
        /// The page title.
        title: String,
        /// The raw wikitext.
        wikitext: String,
        /// The dump it came from, the revision id and timestamp.
        origin: Origin,
        /// The names of its wiki's file, media and category namespaces and image options, from
        /// its dump's siteinfo ([`SiteNames::for_site`]); `None` when the dump has none, and
        /// the cleaner's own names apply.
        names: Option<Arc<SiteNames>>,
    },
}

impl From<Document> for Source {
    fn from(doc: Document) -> Source {
        Source::Text(doc)
    }
}

impl Source {
    /// The document, cleaning wikitext with `cleaner` and the names of the page's wiki (a
    /// Ukrainian dump's `[[Категорія:...]]` and `[[Файл:...|міні|...]]` go, as English ones do).
    pub fn into_document(self, cleaner: &Cleaner) -> Document {
        match self {
            Source::Text(doc) => doc,
            Source::Wiki {
                id,
                title,
                wikitext,
                origin,
                names,
            } => {
                let article = match &names {
                    Some(names) => cleaner.clean_with_names(&wikitext, names),
                    None => cleaner.clean(&wikitext),
                };
                let mut text = String::with_capacity(wikitext.len() / 2);
                for p in article.paragraphs().filter(|p| !p.list) {
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(p.text);
                }
                Document {
                    id: DocId::from(id),
                    title,
                    text,
                    origin,
                    links: None,
                }
            }
        }
    }
}

/// The sources of a list of inputs, in order: an iterator of `Result<Source, InputError>`.
///
/// Each input is a file, a directory (its files, walked recursively in sorted path order,
/// names starting with `.` skipped) or `-` for standard input. Compression (gzip, zstd,
/// bzip2) and format (dump, JSON Lines, plain text, Parquet) are recognized as
/// [`crate::input`] describes; bzip2 is decoded on [`Inputs::threads`] threads. Dumps are read
/// page by page, JSON Lines line by line and Parquet row by row
/// with the [`JsonFields`] of [`Inputs::fields`], and plain text as one document whose id is its
/// 1-based position among the input files. Parquet is read from uncompressed files only (its
/// footer is read first): a compressed Parquet file, Parquet on standard input, or any Parquet
/// input in a build without the `parquet` feature is an [`InputError::Format`]. A file or
/// record that cannot be read is yielded as an `Err` (naming it) and skipped; the iterator goes
/// on with the next record or file ([`InputError`]).
#[derive(Debug)]
pub struct Inputs {
    pending: VecDeque<PathBuf>,
    /// Input files opened so far (the id of a plain-text document).
    files: u64,
    threads: usize,
    fields: JsonFields,
    include: Include,
    current: Current,
}

/// Which files found in input directories are read: glob patterns (`*.jsonl.gz`,
/// `**/part-*`, `{a,b}/*.txt`) matched against each file's path relative to the directory; a
/// file matching any of them is read. No pattern reads every file. Files named directly are
/// always read.
///
/// ```
/// use std::path::Path;
/// use textreuse_corpus::source::Include;
///
/// let include = Include::new(["*.jsonl", "*.jsonl.gz"])?;
/// assert!(include.matches(Path::new("shard-1/part-0.jsonl.gz")));
/// assert!(!include.matches(Path::new("README.md")));
/// assert!(Include::default().matches(Path::new("anything")));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Include {
    set: Option<globset::GlobSet>,
}

impl Include {
    /// The patterns; an error names a pattern that is not a valid glob.
    pub fn new<S: AsRef<str>>(
        patterns: impl IntoIterator<Item = S>,
    ) -> Result<Include, globset::Error> {
        let mut builder = globset::GlobSetBuilder::new();
        let mut any = false;
        for p in patterns {
            builder.add(globset::Glob::new(p.as_ref())?);
            any = true;
        }
        Ok(Include {
            set: if any { Some(builder.build()?) } else { None },
        })
    }

    /// Whether a file at `relative` (to its input directory) is read.
    pub fn matches(&self, relative: &Path) -> bool {
        self.set.as_ref().is_none_or(|set| set.is_match(relative))
    }
}

/// The start of a revision's permanent link on the wiki whose main page is `base`
/// (`https://en.wikipedia.org/wiki/Main_Page` -> `https://en.wikipedia.org/w/index.php?oldid=`):
/// the script path of Wikimedia's wikis, `/w/index.php`, on the host of an address whose path
/// starts with `/wiki/`; `None` for any other address.
fn revision_link_base(base: &str) -> Option<String> {
    let rest = base
        .strip_prefix("https://")
        .or_else(|| base.strip_prefix("http://"))?;
    let (host, path) = rest.split_once('/')?;
    let scheme = &base[..base.len() - rest.len()];
    (!host.is_empty() && path.starts_with("wiki/"))
        .then(|| format!("{scheme}{host}/w/index.php?oldid="))
}

#[derive(Debug)]
enum Current {
    None,
    /// The path, the name it goes by, the reader, the names of its wiki and the address of its
    /// revisions (from its siteinfo).
    Dump(
        PathBuf,
        Arc<str>,
        DumpReader,
        Option<Arc<SiteNames>>,
        Option<String>,
    ),
    Lines(JsonLines),
    /// Boxed: the Parquet reader is several times larger than the other states.
    #[cfg(feature = "parquet")]
    Parquet(Box<crate::parquet::ParquetDocs>),
    #[cfg(feature = "warc")]
    Warc(Box<crate::warc::WarcDocs>),
}

/// The name standard input goes by in errors.
const STDIN: &str = "<stdin>";

impl Inputs {
    /// The inputs `paths`, read in order with one decompression thread per dump.
    pub fn new<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Inputs {
        Inputs {
            pending: paths
                .into_iter()
                .map(|p| p.as_ref().to_path_buf())
                .collect(),
            files: 0,
            threads: 1,
            fields: JsonFields::default(),
            include: Include::default(),
            current: Current::None,
        }
    }

    /// Which files of input directories are read (default: all of them).
    pub fn include(mut self, include: Include) -> Inputs {
        self.include = include;
        self
    }

    /// Decompression threads for bzip2 input, dumps and any other format (decoded block by
    /// block in parallel, [`textreuse_wikidump::Bz2Decoder`]); default 1.
    pub fn threads(mut self, threads: usize) -> Inputs {
        self.threads = threads.max(1);
        self
    }

    /// The field names of JSON Lines records and Parquet columns (default `id`, `text`,
    /// `title`).
    pub fn fields(mut self, fields: JsonFields) -> Inputs {
        self.fields = fields;
        self
    }

    /// The number of input files read before these (default 0): a plain-text document's id
    /// is its file's 1-based position among all input files, so a driver that reads a list of
    /// files one at a time gives each reader the files before it.
    pub fn files_before(mut self, files: u64) -> Inputs {
        self.files = files;
        self
    }

    /// Opens the next input file (or stdin) and returns its plain-text document, or sets up
    /// `current` for a dump, JSON Lines or Parquet.
    fn open(&mut self, path: PathBuf) -> Result<Option<Source>, InputError> {
        let stdin = path.as_os_str() == "-";
        let shown = if stdin {
            PathBuf::from(STDIN)
        } else {
            path.clone()
        };
        let opened = if stdin {
            input::open_reader_with(Box::new(std::io::stdin()), None, self.threads)
                .map_err(|source| InputError::Io {
                    path: shown.clone(),
                    source,
                })?
                .utf8(&shown)?
        } else {
            input::open_file_with(&path, self.threads)?
        };
        self.files += 1;
        match opened.format {
            Format::Dump => {
                let mut builder = textreuse_wikidump::ReaderBuilder::new();
                builder.threads(self.threads);
                let direct =
                    !stdin && matches!(opened.compression, Compression::None | Compression::Bzip2);
                // A dump file the reader can open itself is decoded in parallel (multistream);
                // stdin and gzip or zstd dumps stream through one decoder.
                let mut reader = if direct {
                    drop(opened);
                    builder.open(&path)
                } else {
                    builder.from_reader(opened.reader)
                }
                .map_err(|source| InputError::Dump {
                    path: shown.clone(),
                    source,
                })?;
                // The wiki's own namespace names, read ahead before the first page; the pages
                // and errors stay those of the dump.
                let site = reader.site_info();
                let names = (!site.is_empty()).then(|| Arc::new(SiteNames::for_site(site)));
                let revisions = site.base.as_deref().and_then(revision_link_base);
                let source = shown.to_string_lossy().into();
                self.current = Current::Dump(shown, source, reader, names, revisions);
                Ok(None)
            }
            Format::JsonLines => {
                self.current =
                    Current::Lines(JsonLines::new(&shown, opened.reader, self.fields.clone()));
                Ok(None)
            }
            Format::Text => {
                let mut doc = input::read_plain_from(&shown, opened.reader, self.files)?;
                if stdin {
                    doc.title = "stdin".into();
                }
                Ok(Some(Source::Text(doc)))
            }
            Format::Warc => self.open_warc(&shown, opened.reader),
            Format::Parquet => {
                let format = |message: &str| InputError::Format {
                    path: shown.clone(),
                    message: message.into(),
                };
                if stdin {
                    return Err(format(
                        "Parquet cannot be read from standard input: its footer is read first; \
                         save it to a file and give the file's path",
                    ));
                }
                if opened.compression != Compression::None {
                    return Err(format(
                        "Parquet must be an uncompressed file: its footer is read first; \
                         decompress it first (gunzip, zstd -d, bunzip2)",
                    ));
                }
                drop(opened);
                self.open_parquet(&path)
            }
        }
    }

    #[cfg(feature = "warc")]
    fn open_warc(
        &mut self,
        shown: &Path,
        reader: Box<dyn std::io::BufRead + Send>,
    ) -> Result<Option<Source>, InputError> {
        self.current = Current::Warc(Box::new(crate::warc::WarcDocs::new(shown, reader)));
        Ok(None)
    }

    #[cfg(not(feature = "warc"))]
    fn open_warc(
        &mut self,
        shown: &Path,
        _reader: Box<dyn std::io::BufRead + Send>,
    ) -> Result<Option<Source>, InputError> {
        Err(InputError::Format {
            path: shown.to_path_buf(),
            message: "a WARC file, but this build of textreuse-corpus lacks the `warc` feature; \
                      build with it"
                .into(),
        })
    }

    #[cfg(feature = "parquet")]
    fn open_parquet(&mut self, path: &Path) -> Result<Option<Source>, InputError> {
        let docs = crate::parquet::ParquetDocs::open(path, &self.fields)?;
        self.current = Current::Parquet(Box::new(docs));
        Ok(None)
    }

    #[cfg(not(feature = "parquet"))]
    fn open_parquet(&mut self, path: &Path) -> Result<Option<Source>, InputError> {
        Err(InputError::Format {
            path: path.to_path_buf(),
            message: "a Parquet file, but this build of textreuse-corpus lacks the `parquet` \
                      feature; build with it, or convert the file to JSON Lines"
                .into(),
        })
    }
}

/// The files under `dir` that `include` matches, recursively, in sorted path order; names
/// starting with `.` skipped: the files [`Inputs`] reads for a directory, in its order.
pub fn walk(dir: &Path, include: &Include) -> Result<Vec<PathBuf>, InputError> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d).map_err(|source| InputError::Io {
            path: d.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| InputError::Io {
                path: d.clone(),
                source,
            })?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if include.matches(path.strip_prefix(dir).unwrap_or(&path)) {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

impl Iterator for Inputs {
    type Item = Result<Source, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match &mut self.current {
                Current::Dump(path, source, reader, names, revisions) => match reader.next() {
                    Some(Ok(page)) => {
                        let url = match (revisions.as_deref(), page.revision_id) {
                            (Some(base), Some(rev)) => Some(Arc::from(format!("{base}{rev}"))),
                            _ => None,
                        };
                        return Some(Ok(Source::Wiki {
                            id: page.id,
                            title: page.title,
                            wikitext: page.text,
                            origin: Origin {
                                source: Some(source.clone()),
                                record: None,
                                revision: page.revision_id,
                                timestamp: page.timestamp.map(Arc::from),
                                url,
                            },
                            names: names.clone(),
                        }));
                    }
                    Some(Err(source)) => {
                        return Some(Err(InputError::Damaged {
                            path: path.clone(),
                            source,
                        }));
                    }
                    None => self.current = Current::None,
                },
                Current::Lines(lines) => match lines.next() {
                    Some(doc) => return Some(doc.map(Source::Text)),
                    None => self.current = Current::None,
                },
                #[cfg(feature = "parquet")]
                Current::Parquet(rows) => match rows.next() {
                    Some(doc) => return Some(doc.map(Source::Text)),
                    None => self.current = Current::None,
                },
                #[cfg(feature = "warc")]
                Current::Warc(records) => match records.next() {
                    Some(doc) => return Some(doc.map(Source::Text)),
                    None => self.current = Current::None,
                },
                Current::None => {
                    let path = self.pending.pop_front()?;
                    if path.as_os_str() != "-" && path.is_dir() {
                        match walk(&path, &self.include) {
                            Ok(files) => {
                                for f in files.into_iter().rev() {
                                    self.pending.push_front(f);
                                }
                            }
                            // The directory is skipped.
                            Err(e) => return Some(Err(e)),
                        }
                        continue;
                    }
                    match self.open(path) {
                        Ok(Some(source)) => return Some(Ok(source)),
                        Ok(None) => {}
                        // The file is skipped.
                        Err(e) => return Some(Err(e)),
                    }
                }
            }
        }
    }
}

impl std::iter::FusedIterator for Inputs {}

#[cfg(test)]
mod tests {
    use std::fs::File;

    use super::*;

    #[test]
    fn plain_ids_are_positions_and_bad_files_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let b = dir.path().join("b.jsonl");
        let c = dir.path().join("c.txt");
        std::fs::write(&a, "A.").unwrap();
        std::fs::write(&b, "{\"id\": 40, \"text\": \"B.\"}\n").unwrap();
        std::fs::write(&c, "C.").unwrap();
        let ids: Vec<String> = Inputs::new([&a, &b, &c])
            .map(|s| match s.unwrap() {
                Source::Text(d) => d.id.to_string(),
                Source::Wiki { id, .. } => id.to_string(),
            })
            .collect();
        assert_eq!(ids, ["1", "40", "3"]);

        // A missing file and a binary file are reported and skipped; the others are read.
        let missing = dir.path().join("missing.txt");
        let binary = dir.path().join("image.png");
        std::fs::write(&binary, b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe").unwrap();
        let mut it = Inputs::new([&missing, &a, &binary, &c]);
        let err = it.next().unwrap().unwrap_err();
        assert_eq!(err.path(), missing);
        assert!(matches!(it.next(), Some(Ok(Source::Text(d))) if d.text == "A."));
        let err = it.next().unwrap().unwrap_err();
        assert!(matches!(err, InputError::NotUtf8 { .. }), "{err}");
        assert!(matches!(it.next(), Some(Ok(Source::Text(d))) if d.text == "C."));
        assert!(it.next().is_none());
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn bzip2(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn texts(inputs: Inputs) -> Vec<(String, String, String)> {
        inputs
            .map(|s| match s.unwrap() {
                Source::Text(d) => (d.id.to_string(), d.title, d.text),
                Source::Wiki { id, title, .. } => (id.to_string(), title, String::new()),
            })
            .collect()
    }

    /// Every format and compression, recognized by content where the name says nothing, in a
    /// directory tree walked in sorted order.
    #[test]
    fn formats_and_compressions_in_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let p = |name: &str| dir.path().join(name);
        let line = |id: u64, text: &str| {
            format!("{{\"id\": {id}, \"title\": \"T{id}\", \"text\": \"{text}\"}}\n")
        };
        std::fs::write(p("a.jsonl.gz"), gzip(line(10, "gzip").as_bytes())).unwrap();
        std::fs::write(p("b.ndjson"), line(11, "ndjson")).unwrap();
        std::fs::write(
            p("c.json.zst"),
            zstd::encode_all(line(12, "zstd").as_bytes(), 1).unwrap(),
        )
        .unwrap();
        std::fs::write(p("d.jsonl.bz2"), bzip2(line(13, "bzip2").as_bytes())).unwrap();
        // No extension: JSON Lines recognized by its first byte, under gzip.
        std::fs::write(
            p("e"),
            gzip(format!("\n{}", line(14, "sniffed")).as_bytes()),
        )
        .unwrap();
        // `.txt` is text even when it starts like JSON.
        std::fs::write(p("g.txt"), "{{Infobox}} plain").unwrap();
        std::fs::create_dir(p("sub")).unwrap();
        std::fs::write(p("sub/f.txt.gz"), gzip(b"compressed plain text")).unwrap();
        std::fs::write(p("sub/.hidden"), "skipped").unwrap();
        // Include patterns select files of the walk by their relative path.
        let only = Include::new(["sub/*", "*.ndjson"]).unwrap();
        let titles: Vec<String> = texts(Inputs::new([dir.path()]).include(only))
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(titles, ["T11", "f"]);
        let got = texts(Inputs::new([dir.path()]));
        let want = [
            ("10", "T10", "gzip"),
            ("11", "T11", "ndjson"),
            ("12", "T12", "zstd"),
            ("13", "T13", "bzip2"),
            ("14", "T14", "sniffed"),
            ("6", "g", "{{Infobox}} plain"),
            ("7", "f", "compressed plain text"),
        ];
        let got: Vec<(&str, &str, &str)> = got
            .iter()
            .map(|(i, t, x)| (i.as_str(), t.as_str(), x.as_str()))
            .collect();
        assert_eq!(got, want);
    }

    /// bzip2 JSON Lines large enough for many blocks: the same documents at one and two
    /// decompression threads; damage in the middle gives the documents before it, then an
    /// error naming the file, at both.
    #[test]
    fn bzip2_json_lines_on_one_and_two_threads() {
        let dir = tempfile::tempdir().unwrap();
        let mut body = String::new();
        for i in 0..30_000u64 {
            let words = ["mill", "river", "stone", "harbour", "tower", "meadow"];
            let text = format!(
                "The {} by the {} {i}.",
                words[(i % 6) as usize],
                words[(i * 7 % 5) as usize]
            );
            body.push_str(&format!("{{\"id\": {i}, \"text\": \"{text}\"}}\n"));
        }
        let sound = dir.path().join("sound.jsonl.bz2");
        let compressed = bzip2(body.as_bytes());
        assert!(
            body.len() > 1_000_000,
            "several 100 kB blocks at level 1: {}",
            body.len()
        );
        std::fs::write(&sound, &compressed).unwrap();
        let one = texts(Inputs::new([&sound]));
        assert_eq!(one.len(), 30_000);
        assert_eq!(texts(Inputs::new([&sound]).threads(2)), one);

        let mut damaged = compressed.clone();
        let mid = damaged.len() / 2;
        damaged[mid] ^= 0x55;
        let bad = dir.path().join("bad.jsonl.bz2");
        std::fs::write(&bad, &damaged).unwrap();
        let mut runs = Vec::new();
        for threads in [1, 2] {
            let mut docs = Vec::new();
            let mut errors = Vec::new();
            for s in Inputs::new([&bad]).threads(threads) {
                match s {
                    Ok(Source::Text(d)) => docs.push(d.id.to_string()),
                    Ok(other) => panic!("{other:?}"),
                    Err(e) => errors.push(e.to_string()),
                }
            }
            assert!(docs.len() > 1000 && docs.len() < 30_000, "{}", docs.len());
            assert_eq!(
                docs[..1000],
                one[..1000].iter().map(|d| d.0.clone()).collect::<Vec<_>>()
            );
            let last = errors.last().expect("the damage is reported");
            assert!(
                last.contains("bad.jsonl.bz2") && last.contains("bzip2"),
                "{last}"
            );
            runs.push((docs, errors));
        }
        assert_eq!(runs[0], runs[1]);
    }

    #[test]
    fn field_names_and_their_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hf.jsonl");
        std::fs::write(
            &path,
            "{\"doc_id\": 5, \"content\": \"Some text.\", \"name\": \"N\"}\n\
             {\"doc_id\": 6, \"content\": [\"One.\", {\"text\": \"Two.\"}]}\n\
             {\"doc_id\": 1.5, \"content\": \"x\"}\n\
             {\"doc_id\": \"abc\", \"content\": \"y\"}\n",
        )
        .unwrap();
        let fields = JsonFields {
            id: "doc_id".into(),
            text: "content".into(),
            title: "name".into(),
        };
        let mut it = Inputs::new([&path]).fields(fields);
        let mut next = || match it.next() {
            Some(Ok(Source::Text(d))) => Ok((d.id.to_string(), d.title, d.text)),
            Some(Err(e)) => Err(e.to_string()),
            other => panic!("{other:?}"),
        };
        assert_eq!(next(), Ok(("5".into(), "N".into(), "Some text.".into())));
        assert_eq!(
            next(),
            Ok(("6".into(), String::new(), "One.\n\nTwo.".into()))
        );
        let err = next().unwrap_err();
        assert!(
            err.contains("hf.jsonl:3") && err.contains("doc_id"),
            "{err}"
        );
        // String ids are kept verbatim, and reading went on after the bad line.
        assert_eq!(next(), Ok(("abc".into(), String::new(), "y".into())));
    }

    /// A Parquet file among JSON Lines files in a directory is read in its sorted place, also
    /// without its extension (recognized by `PAR1`); a gzip-compressed one is reported and
    /// skipped.
    #[cfg(feature = "parquet")]
    #[test]
    fn parquet_among_json_lines() {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/parquet/numbers.parquet"
        );
        let parquet = std::fs::read(fixture).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = |name: &str| dir.path().join(name);
        std::fs::write(p("a.jsonl"), "{\"doc_id\": 1, \"content\": \"first\"}\n").unwrap();
        std::fs::write(p("b.parquet"), &parquet).unwrap();
        std::fs::write(p("c.jsonl"), "{\"doc_id\": 2, \"content\": \"last\"}\n").unwrap();
        std::fs::write(p("d-no-extension"), &parquet).unwrap();
        std::fs::write(p("e.parquet.gz"), gzip(&parquet)).unwrap();
        let fields = JsonFields {
            id: "doc_id".into(),
            text: "content".into(),
            ..JsonFields::default()
        };
        let mut ids = Vec::new();
        let mut errors = Vec::new();
        for source in Inputs::new([dir.path()]).fields(fields) {
            match source {
                Ok(Source::Text(d)) => ids.push(d.id.to_string()),
                Ok(other) => panic!("{other:?}"),
                Err(e) => errors.push(e),
            }
        }
        let numbers: Vec<String> = (101..=110).map(|i: u64| i.to_string()).collect();
        let mut want = vec!["1".to_string()];
        want.extend(numbers.iter().cloned());
        want.push("2".into());
        want.extend(numbers.iter().cloned());
        assert_eq!(ids, want);
        assert_eq!(errors.len(), 1, "{errors:?}");
        let err = &errors[0];
        assert_eq!(err.path(), p("e.parquet.gz"));
        assert!(
            matches!(err, InputError::Format { message, .. }
                if message.contains("Parquet must be an uncompressed file")),
            "{err}"
        );
    }

    /// Without the feature a Parquet input is reported as such and skipped.
    #[cfg(not(feature = "parquet"))]
    #[test]
    fn parquet_without_the_feature() {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/parquet/numbers.parquet"
        );
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("z.txt");
        std::fs::write(&text, "After it.").unwrap();
        let mut it = Inputs::new([std::path::Path::new(fixture), &text]);
        let err = it.next().unwrap().unwrap_err();
        assert!(
            matches!(&err, InputError::Format { message, .. }
                if message.contains("lacks the `parquet` feature")),
            "{err}"
        );
        assert!(matches!(it.next(), Some(Ok(Source::Text(d))) if d.text == "After it."));
    }

    /// A dump is recognized by its content: the bundled sample recompressed with gzip, without
    /// a telling name, yields the same pages as the bzip2 file read directly.
    #[test]
    fn a_gzip_dump_without_extension_is_a_dump() {
        let sample = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/enwiki-sample-206.xml.bz2"
        );
        let mut xml = Vec::new();
        std::io::Read::read_to_end(
            &mut bzip2::read::MultiBzDecoder::new(File::open(sample).unwrap()),
            &mut xml,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("download");
        std::fs::write(&gz, gzip(&xml)).unwrap();
        let direct = texts(Inputs::new([sample]).threads(2));
        let recompressed = texts(Inputs::new([&gz]));
        assert!(direct.len() > 50, "{}", direct.len());
        assert_eq!(direct, recompressed);
    }

    /// A Ukrainian dump read as any input is cleaned with its own namespace names, with the
    /// default cleaner (as every command does): no `Категорія:` line and no `міні|праворуч|`
    /// image options in the documents. Fails on the cleaner that knew the English names only.
    #[test]
    fn dumps_are_cleaned_with_their_wikis_names() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/lang/ukwiki-slice.xml.bz2"
        );
        // Gzip too: a dump the reader does not open itself is read through one decoder.
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("uk.xml.gz");
        let mut xml = Vec::new();
        std::io::Read::read_to_end(
            &mut bzip2::read::BzDecoder::new(File::open(path).unwrap()),
            &mut xml,
        )
        .unwrap();
        std::fs::write(&gz, gzip(&xml)).unwrap();
        let cleaner = Cleaner::new();
        for input in [Path::new(path), gz.as_path()] {
            let docs: Vec<Document> = Inputs::new([input])
                .map(|s| s.unwrap().into_document(&cleaner))
                .collect();
            assert_eq!(docs.len(), 15, "{}", input.display());
            let text: String = docs.iter().map(|d| d.text.as_str()).collect();
            assert!(text.chars().count() > 100_000, "{}", text.len());
            for residue in ["Категорія:", "Файл:", "міні|", "праворуч|", "thumb|", "|"]
            {
                assert!(!text.contains(residue), "{residue} in {}", input.display());
            }
        }
        // The cleaner's own names apply to a dump without a siteinfo.
        let bare = "<mediawiki><page><title>A</title><ns>0</ns><id>1</id><revision>\
                    <text>Текст [[Kategorie:X]] [[Файл:A.jpg|міні|Підпис]] кінець.</text>\
                    </revision></page></mediawiki>";
        let file = dir.path().join("bare.xml");
        std::fs::write(&file, bare).unwrap();
        let de = textreuse_wikidump::CleanerBuilder::new()
            .site_names(SiteNames::for_language("de").unwrap())
            .build()
            .unwrap();
        let doc = Inputs::new([&file])
            .next()
            .unwrap()
            .unwrap()
            .into_document(&de);
        assert_eq!(doc.text, "Текст міні|Підпис кінець.");
    }

    #[test]
    fn dump_pages_link_to_their_revisions() {
        assert_eq!(
            revision_link_base("https://uk.wikipedia.org/wiki/%D0%93"),
            Some("https://uk.wikipedia.org/w/index.php?oldid=".into())
        );
        assert_eq!(revision_link_base("http://localhost/index.php/Main"), None);
        assert_eq!(revision_link_base("wiki/Main_Page"), None);
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../testdata/lang/ukwiki-slice.xml.bz2"
        );
        let doc = Inputs::new([path])
            .next()
            .unwrap()
            .unwrap()
            .into_document(&Cleaner::new());
        let url = doc.origin.url.as_deref().unwrap();
        let rev = doc.origin.revision.unwrap();
        assert_eq!(
            url,
            format!("https://uk.wikipedia.org/w/index.php?oldid={rev}")
        );
        // A dump without a siteinfo gives no link.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("bare.xml");
        std::fs::write(
            &file,
            "<mediawiki><page><title>A</title><ns>0</ns><id>1</id><revision><id>5</id>\
             <text>Text.</text></revision></page></mediawiki>",
        )
        .unwrap();
        let doc = Inputs::new([&file]).next().unwrap().unwrap();
        assert!(doc.into_document(&Cleaner::new()).origin.url.is_none());
    }
}
