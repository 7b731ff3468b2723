//! The index of one output file: built once beside it, then opened by mapping its files.
//!
//! Files of table `T` (all little-endian) in the index directory:
//!
//! - `T.offsets`: `u64` × 2 × rows, where each indexed line starts and ends in the output
//!   file;
//! - `T.rows`: per row, its columns' values in [`Table::columns`] order (`f64` for reals,
//!   `u32` for counts, a `u32` bit set for categories);
//! - for the article titles and the websites (registered domains of the documents' URLs) the
//!   rows involve, each a [`Names`] set: `T.titles`, `T.title_ends` (the distinct names, in the
//!   order first seen, and where each ends, `u64`), `T.title_postings`, `T.title_posting_ends`
//!   (each name's rows, `u32` ascending, and where each name's list ends); the same with
//!   `website` for websites;
//! - `T.meta.json`, written last: the row and name counts, category names, the lines that
//!   could not be read, and the output file's length and modification time. An index whose
//!   meta does not match its output file (or this version) is built again.
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::ExploreError;
use crate::schema::{Kind, MAX_CATEGORIES, OTHER_CATEGORY, Parsed, Table, Value};

/// The format of the index files; a different one is built again.
const VERSION: u32 = 3;

/// Bytes of the output file parsed as one batch (in parallel, then merged in order).
const CHUNK_BYTES: usize = 16 << 20;

/// Lines that could not be read kept, with their line numbers, in the meta (all are counted).
const BAD_LINES_KEPT: usize = 20;

/// Most rows an index holds: row numbers are `u32` in the postings.
pub const MAX_ROWS: u64 = u32::MAX as u64;

/// What the index knows about its table besides the rows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    version: u32,
    table: String,
    /// Rows indexed (the lines that could be read).
    pub rows: u64,
    /// Distinct article titles.
    pub titles: u64,
    /// Distinct websites.
    pub websites: u64,
    /// Per column, the names of its categories in bit order (empty for other kinds).
    pub categories: Vec<Vec<String>>,
    /// Per column, how many rows have each category.
    pub category_rows: Vec<Vec<u64>>,
    /// Per column, the smallest and largest value (None where no row has one).
    pub ranges: Vec<Option<(f64, f64)>>,
    /// Lines that could not be read: how many.
    pub bad_lines: u64,
    /// The first of them: line number (from 1) and why.
    pub bad_line_examples: Vec<(u64, String)>,
    source_len: u64,
    source_modified: (u64, u32),
}

/// One table's index, its files mapped into memory.
#[derive(Debug)]
pub struct TableIndex {
    table: Table,
    meta: Meta,
    data: Bytes,
    offsets: Bytes,
    rows: Bytes,
    titles: NameIndex,
    websites: NameIndex,
    layout: Vec<usize>,
    width: usize,
}

/// A mapped file, or nothing for an empty one (an empty file cannot be mapped).
#[derive(Debug)]
enum Bytes {
    Map(Mmap),
    Empty,
}

impl Bytes {
    fn open(path: &Path) -> io::Result<Bytes> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(Bytes::Empty);
        }
        // SAFETY: the explorer maps files it only reads; its own index files are written
        // under temporary names and renamed into place, never changed after. An output file
        // changed by another program while it is mapped can show changed bytes (every read
        // is bounds-checked against the length mapped) or end the process with SIGBUS if it
        // is truncated; the meta's length and time stamp catch a change made before opening.
        Ok(Bytes::Map(unsafe { Mmap::map(&file)? }))
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Empty => &[],
        }
    }
}

/// A set of names the rows involve, each with its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// Article titles (both sides of a reuse case; every member of a cluster, every statement
    /// of a contradiction).
    Title,
    /// Websites: the registered domains (`psl`) of the documents' URLs (a dump revision's
    /// permanent link, a web page's address), where the output records them.
    Website,
}

impl Names {
    fn stem(self) -> &'static str {
        match self {
            Names::Title => "title",
            Names::Website => "website",
        }
    }
}

/// One [`Names`] set of a table's index: the distinct names and each one's rows.
#[derive(Debug)]
pub struct NameIndex {
    count: u64,
    names: Bytes,
    ends: Bytes,
    postings: Bytes,
    posting_ends: Bytes,
}

impl NameIndex {
    fn open(dir: &Path, table: Table, set: Names, count: u64) -> Result<NameIndex, ExploreError> {
        let file = |ext: &str| -> Result<Bytes, ExploreError> {
            let path = dir.join(format!("{}.{}{ext}", table.name(), set.stem()));
            Bytes::open(&path).map_err(|e| ExploreError::io("open the index file", &path, e))
        };
        Ok(NameIndex {
            count,
            names: file("s")?,
            ends: file("_ends")?,
            postings: file("_postings")?,
            posting_ends: file("_posting_ends")?,
        })
    }

    /// The files' sizes agree with the count.
    fn is_whole(&self) -> bool {
        let n = self.count as usize;
        self.ends.as_slice().len() == n * 8
            && self.posting_ends.as_slice().len() == n * 8
            && u64_at(self.ends.as_slice(), n.saturating_sub(1))
                <= self.names.as_slice().len() as u64
            && u64_at(self.posting_ends.as_slice(), n.saturating_sub(1)) * 4
                <= self.postings.as_slice().len() as u64
    }

    /// Distinct names.
    pub fn len(&self) -> u64 {
        self.count
    }

    /// Whether no row has a name of this set.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The name numbered `id`.
    pub fn name(&self, id: u32) -> &str {
        let ends = self.ends.as_slice();
        let id = id as usize;
        let start = if id == 0 { 0 } else { u64_at(ends, id - 1) } as usize;
        let end = u64_at(ends, id) as usize;
        std::str::from_utf8(self.names.as_slice().get(start..end).unwrap_or(&[])).unwrap_or("")
    }

    /// The numbers of the names that contain `query` (ignoring case), or equal it if `exact`.
    pub fn matching(&self, query: &str, exact: bool) -> Vec<u32> {
        let needle = query.to_lowercase();
        let mut lowered = String::new();
        (0..self.count as u32)
            .filter(|&id| {
                let name = self.name(id);
                if exact {
                    return name == query;
                }
                if name.is_ascii() && needle.is_ascii() {
                    let (h, n) = (name.as_bytes(), needle.as_bytes());
                    return n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n));
                }
                lowered.clear();
                lowered.extend(name.chars().flat_map(char::to_lowercase));
                lowered.contains(&needle)
            })
            .collect()
    }

    /// The rows a name appears in, ascending.
    pub fn rows_of(&self, id: u32) -> impl ExactSizeIterator<Item = u64> + '_ {
        let ends = self.posting_ends.as_slice();
        let id = id as usize;
        let start = if id == 0 { 0 } else { u64_at(ends, id - 1) } as usize;
        let end = u64_at(ends, id) as usize;
        let bytes = self
            .postings
            .as_slice()
            .get(start * 4..end * 4)
            .unwrap_or(&[]);
        bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as u64)
    }
}

/// Builds a [`NameIndex`]: the names as they come, each row's name numbers in a temporary
/// file, then the postings by a counting sort.
struct NameBuilder {
    set: Names,
    table: Table,
    dir: PathBuf,
    ids: HashMap<String, u32>,
    rows: Vec<u64>,
    bytes: u64,
    names: Part,
    ends: Part,
    row_ids_path: PathBuf,
    row_ids: BufWriter<File>,
}

impl NameBuilder {
    fn create(dir: &Path, table: Table, set: Names) -> Result<NameBuilder, ExploreError> {
        let row_ids_path = dir.join(format!("{}.{}_rows.tmp", table.name(), set.stem()));
        let row_ids = BufWriter::new(
            File::create(&row_ids_path)
                .map_err(|e| ExploreError::io("create", &row_ids_path, e))?,
        );
        Ok(NameBuilder {
            set,
            table,
            dir: dir.to_path_buf(),
            ids: HashMap::new(),
            rows: Vec::new(),
            bytes: 0,
            names: Part::create(dir, table, &format!("{}s", set.stem()))?,
            ends: Part::create(dir, table, &format!("{}_ends", set.stem()))?,
            row_ids_path,
            row_ids,
        })
    }

    /// The next row's names (distinct).
    fn add_row<'n>(
        &mut self,
        names: impl ExactSizeIterator<Item = &'n str>,
    ) -> Result<(), ExploreError> {
        let path = &self.row_ids_path;
        let write_err = |e| ExploreError::io("write", path, e);
        self.row_ids
            .write_all(&(names.len() as u32).to_le_bytes())
            .map_err(write_err)?;
        for name in names {
            let id = match self.ids.get(name) {
                Some(&id) => id,
                None => {
                    let id = self.ids.len() as u32;
                    self.bytes += name.len() as u64;
                    self.names.write(name.as_bytes())?;
                    self.ends.write(&self.bytes.to_le_bytes())?;
                    self.rows.push(0);
                    self.ids.insert(name.to_string(), id);
                    id
                }
            };
            self.rows[id as usize] += 1;
            self.row_ids
                .write_all(&id.to_le_bytes())
                .map_err(write_err)?;
        }
        Ok(())
    }

    /// Writes the postings of `n_rows` rows; the count of distinct names.
    fn finish(self, n_rows: u64) -> Result<u64, ExploreError> {
        let NameBuilder {
            set,
            table,
            dir,
            ids,
            rows,
            names,
            ends,
            row_ids_path,
            row_ids,
            ..
        } = self;
        drop(ids);
        row_ids
            .into_inner()
            .map_err(|e| ExploreError::io("write", &row_ids_path, e.into_error()))?;
        let stem = set.stem();
        let mut posting_ends = Part::create(&dir, table, &format!("{stem}_posting_ends"))?;
        let mut cursor = Vec::with_capacity(rows.len());
        let mut total = 0u64;
        for &n in &rows {
            cursor.push(total);
            total += n;
            posting_ends.write(&total.to_le_bytes())?;
        }
        let postings_tmp = dir.join(format!("{}.{stem}_postings.tmp", table.name()));
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&postings_tmp)
            .map_err(|e| ExploreError::io("create", &postings_tmp, e))?;
        file.set_len(total * 4)
            .map_err(|e| ExploreError::io("write", &postings_tmp, e))?;
        if total > 0 {
            // SAFETY: a file this process just created under a temporary name, mapped once.
            let mut map = unsafe { MmapMut::map_mut(&file) }
                .map_err(|e| ExploreError::io("map", &postings_tmp, e))?;
            let mut input = io::BufReader::new(
                File::open(&row_ids_path)
                    .map_err(|e| ExploreError::io("open", &row_ids_path, e))?,
            );
            let read_err = |e| ExploreError::io("read", &row_ids_path, e);
            let mut word = [0u8; 4];
            for row in 0..n_rows {
                input.read_exact(&mut word).map_err(read_err)?;
                for _ in 0..u32::from_le_bytes(word) {
                    input.read_exact(&mut word).map_err(read_err)?;
                    let id = u32::from_le_bytes(word) as usize;
                    let at = cursor[id] as usize * 4;
                    map[at..at + 4].copy_from_slice(&(row as u32).to_le_bytes());
                    cursor[id] += 1;
                }
            }
            map.flush()
                .map_err(|e| ExploreError::io("write", &postings_tmp, e))?;
        }
        drop(file);
        let _ = fs::remove_file(&row_ids_path);
        fs::rename(
            &postings_tmp,
            dir.join(format!("{}.{stem}_postings", table.name())),
        )
        .map_err(|e| ExploreError::io("rename", &postings_tmp, e))?;
        for part in [names, ends, posting_ends] {
            part.finish()?;
        }
        Ok(rows.len() as u64)
    }
}

fn u64_at(bytes: &[u8], i: usize) -> u64 {
    bytes
        .get(i * 8..i * 8 + 8)
        .map_or(0, |b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
}

impl TableIndex {
    /// Opens the index of `table` in `index_dir` for the output file in `out_dir`, building
    /// it first if it is missing or out of date. `progress` hears of the build's lines.
    pub fn open_or_build(
        table: Table,
        out_dir: &Path,
        index_dir: &Path,
        progress: &dyn Fn(u64),
    ) -> Result<TableIndex, ExploreError> {
        let source = out_dir.join(table.file_name());
        let stamp = stamp(&source)?;
        let meta_path = index_dir.join(format!("{}.meta.json", table.name()));
        let fresh = fs::read(&meta_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Meta>(&b).ok())
            .filter(|m| {
                m.version == VERSION
                    && m.table == table.name()
                    && (m.source_len, m.source_modified) == stamp
            });
        let meta = match fresh {
            Some(meta) => meta,
            None => build(table, &source, index_dir, stamp, progress)?,
        };
        let file = |ext: &str| -> Result<Bytes, ExploreError> {
            let path = index_dir.join(format!("{}.{ext}", table.name()));
            Bytes::open(&path).map_err(|e| ExploreError::io("open the index file", &path, e))
        };
        let data = Bytes::open(&source).map_err(|e| ExploreError::io("open", &source, e))?;
        let (layout, width) = layout(table);
        let index = TableIndex {
            table,
            data,
            offsets: file("offsets")?,
            rows: file("rows")?,
            titles: NameIndex::open(index_dir, table, Names::Title, meta.titles)?,
            websites: NameIndex::open(index_dir, table, Names::Website, meta.websites)?,
            layout,
            width,
            meta,
        };
        index.check()?;
        Ok(index)
    }

    /// The sizes of the files agree with the meta (a damaged or half-copied index is an
    /// error, not wrong answers).
    fn check(&self) -> Result<(), ExploreError> {
        let rows = self.meta.rows as usize;
        let ok = self.offsets.as_slice().len() == rows * 16
            && self.rows.as_slice().len() == rows * self.width
            && u64_at(self.offsets.as_slice(), (2 * rows).saturating_sub(1))
                <= self.data.as_slice().len() as u64
            && self.titles.is_whole()
            && self.websites.is_whole();
        if ok {
            Ok(())
        } else {
            Err(ExploreError::DamagedIndex {
                table: self.table.name(),
            })
        }
    }

    /// The table.
    pub fn table(&self) -> Table {
        self.table
    }

    /// Row count, titles, categories, ranges and unreadable lines.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Rows indexed.
    pub fn len(&self) -> u64 {
        self.meta.rows
    }

    /// Whether no row was indexed.
    pub fn is_empty(&self) -> bool {
        self.meta.rows == 0
    }

    /// The JSON line of `row` as the output file has it (without its line break).
    pub fn line(&self, row: u64) -> &[u8] {
        let offsets = self.offsets.as_slice();
        let at = 2 * row as usize;
        let (start, end) = (u64_at(offsets, at), u64_at(offsets, at + 1));
        let data = self.data.as_slice();
        let line = data.get(start as usize..end as usize).unwrap_or(&[]);
        line.strip_suffix(b"\n").unwrap_or(line)
    }

    fn cell(&self, row: u64, column: usize) -> &[u8] {
        let start = row as usize * self.width + self.layout[column];
        let width = self.table.columns()[column].width();
        self.rows
            .as_slice()
            .get(start..start + width)
            .expect("row and column within the index (checked at open)")
    }

    /// The value of a real or count column (NaN where the row has none).
    pub fn number(&self, row: u64, column: usize) -> f64 {
        let cell = self.cell(row, column);
        match self.table.columns()[column].kind {
            Kind::Real => f64::from_le_bytes(cell.try_into().expect("8 bytes")),
            Kind::Id => u64::from_le_bytes(cell.try_into().expect("8 bytes")) as f64,
            Kind::Count | Kind::Category => {
                match u32::from_le_bytes(cell.try_into().expect("4 bytes")) {
                    u32::MAX => f64::NAN,
                    n => n as f64,
                }
            }
        }
    }

    /// The value of an id column.
    pub fn id(&self, row: u64, column: usize) -> u64 {
        u64::from_le_bytes(self.cell(row, column).try_into().expect("8 bytes"))
    }

    /// The category bits of a category column.
    pub fn categories(&self, row: u64, column: usize) -> u32 {
        u32::from_le_bytes(self.cell(row, column).try_into().expect("4 bytes"))
    }

    /// The names of a set.
    pub fn names(&self, set: Names) -> &NameIndex {
        match set {
            Names::Title => &self.titles,
            Names::Website => &self.websites,
        }
    }

    /// Where `column` is among the table's columns.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.table.columns().iter().position(|c| c.name == name)
    }
}

/// Each column's byte offset in a row, and the row's width.
fn layout(table: Table) -> (Vec<usize>, usize) {
    let mut at = 0;
    let offsets = table
        .columns()
        .iter()
        .map(|c| {
            let here = at;
            at += c.width();
            here
        })
        .collect();
    (offsets, at)
}

fn stamp(path: &Path) -> Result<(u64, (u64, u32)), ExploreError> {
    let meta = fs::metadata(path).map_err(|e| ExploreError::io("read", path, e))?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or((0, 0), |d| (d.as_secs(), d.subsec_nanos()));
    Ok((meta.len(), modified))
}

/// A file of the index written under a temporary name, renamed into place by `finish`.
struct Part {
    tmp: PathBuf,
    path: PathBuf,
    out: BufWriter<File>,
}

impl Part {
    fn create(dir: &Path, table: Table, ext: &str) -> Result<Part, ExploreError> {
        let path = dir.join(format!("{}.{ext}", table.name()));
        let tmp = dir.join(format!("{}.{ext}.tmp", table.name()));
        let file = File::create(&tmp).map_err(|e| ExploreError::io("create", &tmp, e))?;
        Ok(Part {
            tmp,
            path,
            out: BufWriter::with_capacity(1 << 20, file),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), ExploreError> {
        self.out
            .write_all(bytes)
            .map_err(|e| ExploreError::io("write", &self.tmp, e))
    }

    fn finish(self) -> Result<(), ExploreError> {
        let Part { tmp, path, out } = self;
        out.into_inner()
            .map_err(|e| ExploreError::io("write", &tmp, e.into_error()))?;
        fs::rename(&tmp, &path).map_err(|e| ExploreError::io("rename", &tmp, e))
    }
}

/// One parsed row between the parallel parse and the ordered merge: where its line is, and
/// its values, titles and websites as ranges of its [`Batch`]'s shared buffers (no allocation
/// per row).
struct Row {
    start: u64,
    end: u64,
    values: Range<u32>,
    titles: Range<u32>,
    websites: Range<u32>,
}

/// A value of a [`Row`]; a category's texts are a range of the batch's spans.
enum Val {
    Id(u64),
    Real(f64),
    Count(u32),
    Category(Range<u32>),
}

/// The rows of one part of the output, parsed; the unreadable lines (index in the part, why).
#[derive(Default)]
struct Batch {
    rows: Vec<Row>,
    values: Vec<Val>,
    /// Every text the rows hold (titles, websites, categories), one after the other.
    text: String,
    /// Ranges of `text`.
    spans: Vec<Range<u32>>,
    bad: Vec<(u64, String)>,
}

impl Batch {
    fn push_text(&mut self, t: &str) {
        let start = self.text.len() as u32;
        self.text.push_str(t);
        self.spans.push(start..self.text.len() as u32);
    }

    fn span(&self, i: u32) -> &str {
        let r = &self.spans[i as usize];
        &self.text[r.start as usize..r.end as usize]
    }

    fn spans(&self, r: &Range<u32>) -> impl ExactSizeIterator<Item = &str> {
        r.clone().map(|i| self.span(i))
    }
}

fn parse_batch(table: Table, data: &[u8], start: usize, end: usize) -> Batch {
    let mut batch = Batch::default();
    let mut parsed = Parsed::default();
    let mut at = start;
    let mut line_no = 0;
    while at < end {
        let stop = memchr::memchr(b'\n', &data[at..end]).map_or(end, |i| at + i + 1);
        let line = &data[at..stop];
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        if !text.iter().all(u8::is_ascii_whitespace) {
            match table.parse(text, &mut parsed) {
                Ok(()) => {
                    let values_start = batch.values.len() as u32;
                    for v in parsed.values.drain(..) {
                        let v = match v {
                            Value::Real(x) => Val::Real(x),
                            Value::Id(x) => Val::Id(x),
                            Value::Count(n) => Val::Count(n),
                            Value::Category(c) => {
                                let first = batch.spans.len() as u32;
                                for t in &c {
                                    batch.push_text(t);
                                }
                                Val::Category(first..batch.spans.len() as u32)
                            }
                        };
                        batch.values.push(v);
                    }
                    let values = values_start..batch.values.len() as u32;
                    let first = batch.spans.len() as u32;
                    for t in parsed.titles.drain(..) {
                        batch.push_text(&t);
                    }
                    let titles = first..batch.spans.len() as u32;
                    let first = batch.spans.len() as u32;
                    for w in parsed.websites.drain(..) {
                        batch.push_text(&w);
                    }
                    let websites = first..batch.spans.len() as u32;
                    batch.rows.push(Row {
                        start: at as u64,
                        end: stop as u64,
                        values,
                        titles,
                        websites,
                    });
                }
                Err(e) if line.last() != Some(&b'\n') => batch
                    .bad
                    .push((line_no, format!("the last line is cut short ({e})"))),
                Err(e) => batch.bad.push((line_no, e)),
            }
        }
        line_no += 1;
        at = stop;
    }
    batch
}

/// Builds the index of `table` from `source` into `dir` and returns its meta.
fn build(
    table: Table,
    source: &Path,
    dir: &Path,
    stamp: (u64, (u64, u32)),
    progress: &dyn Fn(u64),
) -> Result<Meta, ExploreError> {
    fs::create_dir_all(dir).map_err(|e| ExploreError::io("create the index directory", dir, e))?;
    let data = Bytes::open(source).map_err(|e| ExploreError::io("open", source, e))?;
    let data = data.as_slice();
    let columns = table.columns();
    let mut offsets = Part::create(dir, table, "offsets")?;
    let mut rows_out = Part::create(dir, table, "rows")?;
    let mut titles = NameBuilder::create(dir, table, Names::Title)?;
    let mut websites = NameBuilder::create(dir, table, Names::Website)?;

    // Batches end at line breaks.
    let mut bounds = vec![0usize];
    while *bounds.last().expect("one") < data.len() {
        let from = bounds.last().expect("one") + CHUNK_BYTES;
        let end = if from >= data.len() {
            data.len()
        } else {
            memchr::memchr(b'\n', &data[from..]).map_or(data.len(), |i| from + i + 1)
        };
        bounds.push(end);
    }
    let mut dictionaries: Vec<HashMap<String, u32>> = vec![HashMap::new(); columns.len()];
    let mut categories: Vec<Vec<String>> = vec![Vec::new(); columns.len()];
    let mut category_rows: Vec<Vec<u64>> = vec![Vec::new(); columns.len()];
    let mut ranges: Vec<Option<(f64, f64)>> = vec![None; columns.len()];
    let mut n_rows = 0u64;
    let mut bad_lines = 0u64;
    let mut bad_examples = Vec::new();
    let mut lines_before = 0u64;
    let threads = rayon::current_num_threads().max(1);
    let mut row_bytes = Vec::new();
    for group in bounds.windows(2).collect::<Vec<_>>().chunks(threads * 2) {
        let batches: Vec<(Batch, u64)> = group
            .par_iter()
            .map(|w| {
                let lines = memchr::memchr_iter(b'\n', &data[w[0]..w[1]]).count() as u64
                    + u64::from(w[1] > w[0] && data[w[1] - 1] != b'\n');
                (parse_batch(table, data, w[0], w[1]), lines)
            })
            .collect();
        for (mut batch, lines) in batches {
            bad_lines += batch.bad.len() as u64;
            for (line, why) in std::mem::take(&mut batch.bad) {
                if bad_examples.len() < BAD_LINES_KEPT {
                    bad_examples.push((lines_before + line + 1, why));
                }
            }
            lines_before += lines;
            for row in &batch.rows {
                if n_rows >= MAX_ROWS {
                    return Err(ExploreError::TooManyRows {
                        table: table.name(),
                    });
                }
                row_bytes.clear();
                let values = &batch.values[row.values.start as usize..row.values.end as usize];
                for (c, value) in values.iter().enumerate() {
                    match value {
                        Val::Id(x) => row_bytes.extend_from_slice(&x.to_le_bytes()),
                        Val::Real(x) => {
                            row_bytes.extend_from_slice(&x.to_le_bytes());
                            widen(&mut ranges[c], *x);
                        }
                        Val::Count(n) => {
                            row_bytes.extend_from_slice(&n.to_le_bytes());
                            if *n != u32::MAX {
                                widen(&mut ranges[c], *n as f64);
                            }
                        }
                        Val::Category(texts) => {
                            let mut bits = 0u32;
                            for v in batch.spans(texts) {
                                let next = dictionaries[c].len() as u32;
                                let bit = match dictionaries[c].get(v) {
                                    Some(&b) => b,
                                    None if (next as usize) < MAX_CATEGORIES => {
                                        dictionaries[c].insert(v.to_string(), next);
                                        categories[c].push(v.to_string());
                                        category_rows[c].push(0);
                                        next
                                    }
                                    None => {
                                        if categories[c].len() == MAX_CATEGORIES {
                                            categories[c].push(OTHER_CATEGORY.to_string());
                                            category_rows[c].push(0);
                                        }
                                        MAX_CATEGORIES as u32
                                    }
                                };
                                if bits & (1 << bit) == 0 {
                                    category_rows[c][bit as usize] += 1;
                                }
                                bits |= 1 << bit;
                            }
                            row_bytes.extend_from_slice(&bits.to_le_bytes());
                        }
                    }
                }
                debug_assert_eq!(row_bytes.len(), layout(table).1);
                rows_out.write(&row_bytes)?;
                offsets.write(&row.start.to_le_bytes())?;
                offsets.write(&row.end.to_le_bytes())?;
                titles.add_row(batch.spans(&row.titles))?;
                websites.add_row(batch.spans(&row.websites))?;
                n_rows += 1;
            }
            progress(lines_before);
        }
    }
    let n_titles = titles.finish(n_rows)?;
    let n_websites = websites.finish(n_rows)?;
    for part in [offsets, rows_out] {
        part.finish()?;
    }
    let meta = Meta {
        version: VERSION,
        table: table.name().to_string(),
        rows: n_rows,
        titles: n_titles,
        websites: n_websites,
        categories,
        category_rows,
        ranges: ranges
            .into_iter()
            .zip(columns)
            .map(|(r, c)| match c.kind {
                Kind::Real | Kind::Count => r,
                Kind::Category | Kind::Id => None,
            })
            .collect(),
        bad_lines,
        bad_line_examples: bad_examples,
        source_len: stamp.0,
        source_modified: stamp.1,
    };
    let meta_path = dir.join(format!("{}.meta.json", table.name()));
    let json = serde_json::to_vec_pretty(&meta).expect("meta serializes");
    let tmp = dir.join(format!("{}.meta.json.tmp", table.name()));
    fs::write(&tmp, json).map_err(|e| ExploreError::io("write", &tmp, e))?;
    fs::rename(&tmp, &meta_path).map_err(|e| ExploreError::io("rename", &tmp, e))?;
    Ok(meta)
}

fn widen(range: &mut Option<(f64, f64)>, x: f64) {
    if x.is_nan() {
        return;
    }
    *range = Some(match *range {
        None => (x, x),
        Some((lo, hi)) => (lo.min(x), hi.max(x)),
    });
}
