//! A local web app over the outputs of `textreuse dedup` and `textreuse reuse`: filters over
//! every field and feature they carry, seeded random samples of the rows that pass, a view of
//! each reuse case (both passages side by side, shared words marked, the whole articles around
//! them), each cluster (members with their differing words marked), each contradiction (the
//! conflicting facts side by side), and the corpus view's plots (the directory's report).
//!
//! [`ExplorerBuilder::open`] indexes each JSON Lines output of a directory once ([`TableIndex`]: row
//! offsets, the numeric and category columns, article titles and the rows of each, in files
//! beside the output, mapped into memory), so that opening a large output again takes
//! milliseconds and a filtered sample reads only the columns. [`router`] serves the app and its
//! JSON API (documented in `docs/explore.md`) read-only with axum; [`serve`] binds it.
//!
//! ```
//! use textreuse_explore::{Explorer, Query, Table};
//!
//! // An output directory with one reuse case (as `textreuse reuse` writes them).
//! let dir = tempfile::tempdir()?;
//! std::fs::write(
//!     dir.path().join("reuse.jsonl"),
//!     concat!(
//!         r#"{"suspicious":{"doc":"1","title":"Bee"},"source":{"doc":"2","title":"Wasp"},"#,
//!         r#""suspicious_offset":0,"suspicious_length":300,"source_offset":0,"source_length":290,"#,
//!         r#""score":0.9,"kind":"structure","jaccard_2":0.6,"jaccard_5":0.3,"jaccard_10":0.05,"#,
//!         r#""jaccard_15":0.0,"entity_jaccard":0.1,"suspicious_share":0.4,"source_share":0.5,"#,
//!         r#""suspicious_words":55,"source_words":52}"#,
//!         "\n"
//!     ),
//! )?;
//! let explorer = Explorer::builder().open(dir.path())?;
//! let reuse = explorer.table(Table::Reuse).expect("reuse.jsonl is there");
//! let query = Query::parse(reuse, [("kind", "structure"), ("jaccard_10.max", "0.1")])?;
//! let sample = textreuse_explore::sample(reuse, &query);
//! assert_eq!((sample.rows, sample.matched), (vec![0], 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

mod articles;
mod index;
mod sample;
mod schema;
mod server;
pub mod synthetic;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use articles::{Articles, MAX_CONTEXT, Passage};
pub use index::{MAX_ROWS, Meta, NameIndex, Names, TableIndex};
pub use sample::{
    DEFAULT_SAMPLE, MAX_SAMPLE, MAX_SKIP, MAX_TITLE_QUERY, Permutation, Query, QueryError, Sample,
    sample,
};
pub use schema::{Column, Kind, MAX_CATEGORIES, OTHER_CATEGORY, Table};
pub use server::{
    DEFAULT_HOST, DEFAULT_PORT, MAX_HEADERS, MAX_URI, ServeError, router, serve, serve_blocking,
};

/// Why an output directory cannot be explored; each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    /// A file could not be read or written.
    #[error("could not {what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The directory has none of the outputs.
    #[error(
        "{} holds no reuse.jsonl, clusters.jsonl or contradictions.jsonl: give the --out directory of `textreuse dedup` or `textreuse reuse`",
        dir.display()
    )]
    NothingToExplore {
        /// The directory.
        dir: PathBuf,
    },
    /// An index file does not agree with its meta.
    #[error(
        "the index of {table} is damaged: delete the index directory (.explore) and open again"
    )]
    DamagedIndex {
        /// The table.
        table: &'static str,
    },
    /// The persistent index given could not be opened.
    #[error("could not open the index {}: {source}", dir.display())]
    Index {
        /// Its directory.
        dir: PathBuf,
        /// Why.
        source: textreuse_index::Error,
    },
    /// More rows than the index numbers.
    #[error(
        "{table} has more than 2^32 - 1 rows, more than the explorer indexes: split the output"
    )]
    TooManyRows {
        /// The table.
        table: &'static str,
    },
}

impl ExploreError {
    pub(crate) fn io(what: &'static str, path: &Path, source: std::io::Error) -> ExploreError {
        ExploreError::Io {
            what,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Options of [`Explorer`]: built by [`Explorer::builder`], opened by [`ExplorerBuilder::open`].
#[derive(Debug, Default)]
pub struct ExplorerBuilder {
    index_dir: Option<PathBuf>,
    inputs: Vec<PathBuf>,
    lsh_index: Option<PathBuf>,
    threads: usize,
}

/// Where the index goes by default: this directory inside the output directory.
pub const INDEX_DIR: &str = ".explore";

impl ExplorerBuilder {
    /// Where the index files are kept (default: [`INDEX_DIR`] inside the output directory,
    /// or a temporary directory when that cannot be written).
    pub fn index_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.index_dir = Some(dir.into());
        self
    }

    /// The inputs the output came from (files or directories, read as the run read them):
    /// their texts make the whole articles around passages and members.
    pub fn inputs<P: Into<PathBuf>>(&mut self, inputs: impl IntoIterator<Item = P>) -> &mut Self {
        self.inputs = inputs.into_iter().map(Into::into).collect();
        self
    }

    /// A persistent index (`textreuse index create`) to look up each case's and cluster's
    /// near-duplicates in, opened read-only.
    pub fn lsh_index(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.lsh_index = Some(dir.into());
        self
    }

    /// Threads reading the inputs (default: all cores).
    pub fn threads(&mut self, threads: usize) -> &mut Self {
        self.threads = threads;
        self
    }

    /// Opens `dir`, building the index of each output there that has none or an old one.
    pub fn open(&self, dir: &Path) -> Result<Explorer, ExploreError> {
        self.open_with(dir, &|_, _| {})
    }

    /// [`ExplorerBuilder::open`], telling `progress` of each table's lines as they are indexed.
    pub fn open_with(
        &self,
        dir: &Path,
        progress: &(dyn Fn(Table, u64) + Sync),
    ) -> Result<Explorer, ExploreError> {
        let present: Vec<Table> = Table::ALL
            .into_iter()
            .filter(|t| dir.join(t.file_name()).is_file())
            .collect();
        if present.is_empty() {
            return Err(ExploreError::NothingToExplore {
                dir: dir.to_path_buf(),
            });
        }
        let mut temporary = None;
        let index_dir = match &self.index_dir {
            Some(d) => d.clone(),
            None => {
                let d = dir.join(INDEX_DIR);
                if std::fs::create_dir_all(&d).is_ok() && writable(&d) {
                    d
                } else {
                    let t = tempfile::tempdir()
                        .map_err(|e| ExploreError::io("create a temporary directory", dir, e))?;
                    let path = t.path().to_path_buf();
                    temporary = Some(t);
                    path
                }
            }
        };
        let mut tables = Vec::new();
        for table in present {
            let index = TableIndex::open_or_build(table, dir, &index_dir, &|n| progress(table, n))?;
            tables.push(index);
        }
        let articles = if self.inputs.is_empty() {
            None
        } else {
            Some(Articles::read(&self.inputs, self.threads)?)
        };
        let lsh_index =
            match &self.lsh_index {
                Some(dir) => Some(textreuse_index::Index::open(dir).map_err(|source| {
                    ExploreError::Index {
                        dir: dir.clone(),
                        source,
                    }
                })?),
                None => None,
            };
        let read_json = |name: &str| {
            std::fs::read(dir.join(name))
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        };
        Ok(Explorer {
            dir: dir.to_path_buf(),
            index_dir,
            _temporary: temporary,
            stats: read_json("stats.json"),
            tables,
            articles,
            lsh_index,
            report: OnceLock::new(),
        })
    }
}

fn writable(dir: &Path) -> bool {
    tempfile::tempfile_in(dir).is_ok()
}

/// An output directory opened for exploring: its tables' indexes, its stats, and (when given)
/// the texts of its inputs.
#[derive(Debug)]
pub struct Explorer {
    dir: PathBuf,
    index_dir: PathBuf,
    _temporary: Option<tempfile::TempDir>,
    stats: Option<serde_json::Value>,
    tables: Vec<TableIndex>,
    articles: Option<Articles>,
    lsh_index: Option<textreuse_index::Index>,
    report: OnceLock<Result<String, String>>,
}

impl Explorer {
    /// Options for opening a directory.
    pub fn builder() -> ExplorerBuilder {
        ExplorerBuilder::default()
    }

    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the index files are.
    pub fn index_dir(&self) -> &Path {
        &self.index_dir
    }

    /// The index of `table`, if the directory has its file.
    pub fn table(&self, table: Table) -> Option<&TableIndex> {
        self.tables.iter().find(|t| t.table() == table)
    }

    /// Every table the directory has.
    pub fn tables(&self) -> &[TableIndex] {
        &self.tables
    }

    /// The run's `stats.json`, if it has one that parses.
    pub fn stats(&self) -> Option<&serde_json::Value> {
        self.stats.as_ref()
    }

    /// The persistent index, when one was given.
    pub fn lsh_index(&self) -> Option<&textreuse_index::Index> {
        self.lsh_index.as_ref()
    }

    /// The inputs' texts, when they were given.
    pub fn articles(&self) -> Option<&Articles> {
        self.articles.as_ref()
    }

    /// The directory's report (`textreuse report`'s page: the corpus view's plots for a reuse
    /// run, the cluster statistics for a dedup run), rendered on first use and kept.
    pub fn report(&self) -> Result<&str, &str> {
        self.report
            .get_or_init(|| render_report(&self.dir).map_err(|e| e.to_string()))
            .as_deref()
            .map_err(String::as_str)
    }
}

fn render_report(dir: &Path) -> Result<String, textreuse_report::ReportError> {
    match textreuse_report::Run::of_dir(dir) {
        textreuse_report::Run::Reuse => textreuse_report::ReuseReport::new().render(dir),
        _ => textreuse_report::DedupReport::new().render(dir),
    }
}
