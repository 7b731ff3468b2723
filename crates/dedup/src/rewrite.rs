//! A deduplicated copy of the inputs: every input record except the duplicates a document-level
//! run found, in the input's own format and compression.
//!
//! [`DropList`] is a [`Sink`] that collects the [duplicates](Cluster::duplicates) of each
//! cluster by input and record (on disk past its memory budget); [`DropList::finish`] sorts them
//! into a [`Dropped`], and [`write_deduplicated`] then reads the inputs again and writes each
//! one under the output directory without those records:
//!
//! * JSON Lines: the other lines, byte for byte (blank and malformed lines included), compressed
//!   as the input was (gzip, zstd, bzip2 or not at all);
//! * plain text: the file as it is, unless the whole document is a duplicate;
//! * Parquet: the other rows, same schema and codec (crate feature `parquet`).
//!
//! Wikipedia dumps and standard input cannot be copied this way: dumps are skipped with an
//! [`InputError::Format`] naming the file, and standard input cannot be read twice.
//!
//! ```
//! use textreuse_dedup::rewrite::{DropList, write_deduplicated};
//! use textreuse_corpus::source::Include;
//! use textreuse_corpus::{Inputs, NoProgress};
//! use textreuse_dedup::Dedup;
//! use textreuse_shingle::units::Unit;
//!
//! let dir = tempfile::tempdir()?;
//! let input = dir.path().join("docs.jsonl");
//! let text = "The old mill on the river was built in 1820 and still grinds grain for the bakery.";
//! std::fs::write(&input, format!(
//!     "{{\"id\": 1, \"text\": \"{text}\"}}\n{{\"id\": 2, \"text\": \"{text}\"}}\n{{\"id\": 3, \"text\": \"Something else entirely, with nothing in common.\"}}\n"
//! ))?;
//! let dedup = Dedup::builder().unit(Unit::Document).build()?;
//! let mut drop = DropList::default();
//! dedup.run(Inputs::new([&input]), &mut drop, &NoProgress)?;
//! let out = dir.path().join("clean");
//! let drop = drop.finish()?;
//! let written = write_deduplicated([&input], &Include::default(), &drop, &out)?;
//! assert_eq!((written.records_kept, written.records_dropped), (2, 1));
//! let copy = std::fs::read_to_string(out.join(input.strip_prefix("/")?))?;
//! assert!(copy.contains("\"id\": 1") && !copy.contains("\"id\": 2"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Component, Path, PathBuf};

use crate::cluster::Cluster;
use crate::sink::Sink;
use textreuse_corpus::InputError;
use textreuse_corpus::input::{self, Compression, Format};
use textreuse_corpus::source::Include;
use textreuse_shuffle::{MIN_MEM_BUDGET, RecordSorter, ShuffleBuilder, ShuffleError};

/// The duplicate records of a run, by input (a [`Sink`]). Units without a source (documents a
/// program built) are not listed.
///
/// The records are `(input, record)` pairs in an external sort ([`RecordSorter`]): past the
/// budget of [`DropList::with_budget`] they go to sorted runs in a temporary directory, so a run
/// that drops millions of records stays within its memory bound (`--max-memory`). What stays
/// in memory is each input's name, once. [`DropList::finish`] sorts them into a [`Dropped`],
/// which [`write_deduplicated`] reads.
#[derive(Debug)]
pub struct DropList {
    /// Input (as given) -> its number, in the order first seen.
    ids: HashMap<String, u32>,
    /// `(input number, record)`: line numbers (JSON Lines), row numbers (Parquet), or 0 for a
    /// whole plain-text file.
    records: RecordSorter,
    tmp_dir: Option<PathBuf>,
}

impl Default for DropList {
    /// No budget: the records stay in memory.
    fn default() -> DropList {
        DropList::with_budget(u64::MAX, None::<PathBuf>)
    }
}

impl DropList {
    /// A list that keeps at most about `budget` bytes of records in memory (16 bytes a record;
    /// at least [`MIN_MEM_BUDGET`]) and writes sorted runs
    /// past it to a private directory under `tmp_dir` (default: the system temporary directory).
    ///
    /// ```
    /// use textreuse_dedup::Dedup;
    /// use textreuse_dedup::rewrite::DropList;
    ///
    /// let dedup = Dedup::builder().max_memory(256 << 20).build()?;
    /// // The share of the run's memory plan, and its temporary directory.
    /// let drop = DropList::with_budget(dedup.memory().drop_list, dedup.tmp_dir());
    /// assert!(drop.is_empty());
    /// # Ok::<(), textreuse_dedup::Error>(())
    /// ```
    pub fn with_budget<P: Into<PathBuf>>(budget: u64, tmp_dir: Option<P>) -> DropList {
        let tmp_dir = tmp_dir.map(Into::into);
        let mut shuffle = ShuffleBuilder::new();
        shuffle.mem_budget(budget.max(MIN_MEM_BUDGET));
        if let Some(dir) = &tmp_dir {
            shuffle.tmp_dir(dir);
        }
        DropList {
            ids: HashMap::new(),
            records: shuffle
                .build_sorter()
                .expect("a budget of at least the minimum"),
            tmp_dir,
        }
    }

    /// Adds the duplicates of `cluster`.
    ///
    /// # Errors
    ///
    /// Writing a sorted run failed (see [`ShuffleError`] for how to recover).
    pub fn add(&mut self, cluster: &Cluster) -> Result<(), ShuffleError> {
        for m in cluster.duplicates() {
            self.add_record(&m.origin)?;
        }
        Ok(())
    }

    /// Adds the record of a document known to be a duplicate from elsewhere (of a document in a
    /// persistent index, say); nothing for a document without a source. A record added twice is
    /// dropped once.
    ///
    /// # Errors
    ///
    /// Writing a sorted run failed (see [`ShuffleError`] for how to recover).
    pub fn add_record(&mut self, origin: &textreuse_corpus::Origin) -> Result<(), ShuffleError> {
        if let Some(source) = &origin.source {
            let next = self.ids.len() as u32;
            let id = match self.ids.get(&**source) {
                Some(&id) => id,
                None => *self.ids.entry(source.to_string()).or_insert(next),
            };
            self.records
                .push(u64::from(id), origin.record.unwrap_or(0))?;
        }
        Ok(())
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Sorted runs written so far (0 while the records fit in the budget).
    pub fn runs(&self) -> u64 {
        self.records.runs()
    }

    /// Sorts the records (each once) into a temporary file, by input and record, for
    /// [`write_deduplicated`].
    ///
    /// # Errors
    ///
    /// Reading the runs or writing the file failed (see [`ShuffleError`] for how to recover).
    pub fn finish(self) -> Result<Dropped, ShuffleError> {
        let parent = self.tmp_dir.unwrap_or_else(std::env::temp_dir);
        let spill = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ShuffleError::Spill { path, source }
        };
        let file = tempfile::Builder::new()
            .prefix("textreuse-dropped-")
            .tempfile_in(&parent)
            .map_err(|source| ShuffleError::TempDir {
                path: parent.clone(),
                source,
            })?;
        let (file, path) = file.into_parts();
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let mut ranges = vec![(0u64, 0u64); self.ids.len()];
        let mut written = 0u64;
        for record in self.records.finish()? {
            let (id, record) = record?;
            let range = &mut ranges[id as usize];
            if range.1 == 0 {
                range.0 = written;
            }
            range.1 += 1;
            out.write_all(&record.to_le_bytes()).map_err(spill(&path))?;
            written += 1;
        }
        let file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .map_err(spill(&path))?;
        let sources = self
            .ids
            .into_iter()
            .map(|(name, id)| (name, ranges[id as usize]))
            .collect();
        Ok(Dropped {
            sources,
            len: written,
            file,
            _path: path,
        })
    }
}

impl Sink for DropList {
    type Error = ShuffleError;
    fn cluster(&mut self, cluster: Cluster) -> Result<(), ShuffleError> {
        self.add(&cluster)
    }
}

/// The records to drop, sorted by input and record ([`DropList::finish`]), in a temporary file
/// deleted when this is dropped.
#[derive(Debug)]
pub struct Dropped {
    /// Input (as given) -> (first record's position in the file, records).
    sources: HashMap<String, (u64, u64)>,
    len: u64,
    file: File,
    _path: tempfile::TempPath,
}

impl Dropped {
    /// The number of records to drop (each once).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing is dropped.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The records to drop from `source` (as given), ascending: line numbers (JSON Lines), row
    /// numbers (Parquet), or 0 for a whole plain-text file.
    pub fn records(&self, source: &str) -> DroppedRecords<'_> {
        let (start, count) = self.sources.get(source).copied().unwrap_or((0, 0));
        DroppedRecords {
            file: &self.file,
            next: start,
            end: start + count,
            buf: Vec::new(),
            pos: 0,
            error: None,
        }
    }
}

/// The records [`Dropped::records`] lists for one input, read from its file a block at a time.
/// A read error ends the iteration early and is kept ([`DroppedRecords::error`]).
#[derive(Debug)]
pub struct DroppedRecords<'a> {
    file: &'a File,
    /// The next record's position in the file (in records), and the end of the input's.
    next: u64,
    end: u64,
    buf: Vec<u8>,
    pos: usize,
    error: Option<std::io::Error>,
}

impl DroppedRecords<'_> {
    /// Records read per block.
    const BLOCK: u64 = 8192;

    /// The error that ended the iteration early, if one did.
    pub fn error(&mut self) -> Option<std::io::Error> {
        self.error.take()
    }
}

impl Iterator for DroppedRecords<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.pos == self.buf.len() {
            if self.next == self.end || self.error.is_some() {
                return None;
            }
            let n = (self.end - self.next).min(Self::BLOCK) as usize;
            self.buf.resize(n * 8, 0);
            self.pos = 0;
            if let Err(e) = self.file.read_exact_at(&mut self.buf, self.next * 8) {
                self.buf.clear();
                self.error = Some(e);
                return None;
            }
            self.next += n as u64;
        }
        let bytes = self.buf[self.pos..self.pos + 8]
            .try_into()
            .expect("8 bytes");
        self.pos += 8;
        Some(u64::from_le_bytes(bytes))
    }
}

/// What [`write_deduplicated`] wrote.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Rewritten {
    /// Files written.
    pub files: u64,
    /// Records copied: non-blank lines (malformed ones included), rows, text files.
    pub records_kept: u64,
    /// Records left out.
    pub records_dropped: u64,
    /// Inputs that could not be copied (reported in `problems`), and were skipped.
    pub problems: Vec<InputError>,
}

/// Why a deduplicated copy could not be written. Recover by pointing it at a writable directory
/// with space.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the deduplicated copy {}", path.display())]
pub struct RewriteError {
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

impl RewriteError {
    /// The file that could not be written.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Where the copy of `input` goes under `out`: its path as given, without its root and `..`
/// components (`data/a.jsonl` -> `out/data/a.jsonl`, `/srv/x.jsonl` -> `out/srv/x.jsonl`).
pub fn copy_path(out: &Path, input: &Path) -> PathBuf {
    let mut path = out.to_path_buf();
    for c in input.components() {
        if let Component::Normal(part) = c {
            path.push(part);
        }
    }
    path
}

/// Writes a copy of each input (files, directories walked as [`Inputs`](textreuse_corpus::Inputs) walks
/// them, with the same `include` patterns) under `out` ([`copy_path`]) without the records in `drop`. An input that cannot be
/// copied (unreadable, a dump, standard input) is reported in [`Rewritten::problems`] and
/// skipped; an output that cannot be written stops with an error.
pub fn write_deduplicated<P: AsRef<Path>>(
    inputs: impl IntoIterator<Item = P>,
    include: &Include,
    drop: &Dropped,
    out: &Path,
) -> Result<Rewritten, RewriteError> {
    let mut done = Rewritten::default();
    for input in inputs {
        let input = input.as_ref();
        if input.as_os_str() == "-" {
            done.problems.push(InputError::Format {
                path: input.to_path_buf(),
                message: "standard input cannot be read a second time for the deduplicated \
                          copy; write it to a file first"
                    .into(),
            });
            continue;
        }
        let files = if input.is_dir() {
            match textreuse_corpus::source::walk(input, include) {
                Ok(files) => files,
                Err(e) => {
                    done.problems.push(e);
                    continue;
                }
            }
        } else {
            vec![input.to_path_buf()]
        };
        for file in files {
            let mut records = drop.records(&file.to_string_lossy());
            let dst = copy_path(out, &file);
            copy_one(&file, &mut records, &dst, &mut done)?;
            if let Some(source) = records.error() {
                // The list of records to drop could not be read: the copy may hold some.
                return Err(RewriteError { path: dst, source });
            }
        }
    }
    Ok(done)
}

/// Copies one input file without the records of `drop` (ascending).
fn copy_one(
    file: &Path,
    drop: &mut DroppedRecords<'_>,
    dst: &Path,
    done: &mut Rewritten,
) -> Result<(), RewriteError> {
    let opened = match input::open_file(file) {
        Ok(opened) => opened,
        Err(e) => {
            done.problems.push(e);
            return Ok(());
        }
    };
    let write_error = |source| RewriteError {
        path: dst.to_path_buf(),
        source,
    };
    match opened.format {
        Format::Dump => {
            done.problems.push(InputError::Format {
                path: file.to_path_buf(),
                message: "a Wikipedia dump cannot be copied without its duplicates; \
                          duplicates.jsonl lists them"
                    .into(),
            });
            Ok(())
        }
        Format::Warc => {
            done.problems.push(InputError::Format {
                path: file.to_path_buf(),
                message: "a WARC file cannot be copied without its duplicates; \
                          duplicates.jsonl lists them by record id"
                    .into(),
            });
            Ok(())
        }
        Format::Parquet => {
            // The Parquet writer opens the file itself (it reads the footer first).
            std::mem::drop(opened.reader);
            copy_parquet(file, drop, dst, opened.compression, done)
        }
        Format::Text => {
            let dropped = drop.next() == Some(0);
            if dropped {
                done.records_dropped += 1;
                return Ok(());
            }
            let tmp = Tmp::create(dst).map_err(write_error)?;
            let mut writer = Encoder::new(tmp.file, opened.compression).map_err(write_error)?;
            let mut reader = opened.reader;
            // Damage in the input (a cut or padded compressed stream) is the input's problem,
            // reported and skipped like every damaged input (the part copied is deleted); only
            // writing can stop the copy. The file streams through a buffer, whatever its size.
            let mut buf = vec![0; 1 << 16];
            loop {
                let n = match std::io::Read::read(&mut reader, &mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        done.problems.push(InputError::Format {
                            path: file.to_path_buf(),
                            message: format!("{e}: the file is damaged and is not copied"),
                        });
                        return Ok(());
                    }
                };
                writer.write_all(&buf[..n]).map_err(write_error)?;
            }
            let file = writer.finish().map_err(write_error)?;
            Tmp::persist(tmp.path, file, dst).map_err(write_error)?;
            done.files += 1;
            done.records_kept += 1;
            Ok(())
        }
        Format::JsonLines => {
            let tmp = Tmp::create(dst).map_err(write_error)?;
            let mut writer = Encoder::new(tmp.file, opened.compression).map_err(write_error)?;
            let mut reader = opened.reader;
            let (mut line, mut buf) = (0u64, Vec::new());
            let mut drop = drop.peekable();
            loop {
                buf.clear();
                // Damage in the input (a cut or padded compressed stream) is reported, and the
                // copy keeps the lines before it, as the first reading used them.
                let n = match reader.read_until(b'\n', &mut buf) {
                    Ok(n) => n,
                    Err(e) => {
                        done.problems.push(InputError::Line {
                            path: file.to_path_buf(),
                            line: line + 1,
                            message: format!(
                                "{e}: the input is damaged here; the copy holds the {line} \
                                 lines before it"
                            ),
                        });
                        break;
                    }
                };
                if n == 0 {
                    break;
                }
                line += 1;
                // Blank lines hold no record; they are copied like any other line that is
                // not a duplicate.
                // Records ascend; one below this line (a record 0 of a file read as plain
                // text before, say) names no line and is passed over.
                while drop.next_if(|&r| r < line).is_some() {}
                if drop.next_if_eq(&line).is_some() {
                    done.records_dropped += 1;
                } else {
                    if !buf.trim_ascii().is_empty() {
                        done.records_kept += 1;
                    }
                    writer.write_all(&buf).map_err(write_error)?;
                }
            }
            let file = writer.finish().map_err(write_error)?;
            Tmp::persist(tmp.path, file, dst).map_err(write_error)?;
            done.files += 1;
            Ok(())
        }
        // A format textreuse-corpus learns to read later: not copied until it is taught here.
        _ => {
            done.problems.push(InputError::Format {
                path: file.to_path_buf(),
                message: "this input format cannot be copied without its duplicates; \
                          duplicates.jsonl lists them"
                    .into(),
            });
            Ok(())
        }
    }
}

/// Copies a Parquet file without the rows in `drop`.
#[cfg(feature = "parquet")]
fn copy_parquet(
    file: &Path,
    drop: &mut DroppedRecords<'_>,
    dst: &Path,
    compression: Compression,
    done: &mut Rewritten,
) -> Result<(), RewriteError> {
    use textreuse_corpus::parquet::{WriteError, write_without_sorted_rows};
    if compression != Compression::None {
        done.problems.push(InputError::Format {
            path: file.to_path_buf(),
            message: "compressed Parquet is not read (its footer comes first); decompress it"
                .into(),
        });
        return Ok(());
    }
    if let Some(dir) = dst.parent() {
        std::fs::create_dir_all(dir).map_err(|source| RewriteError {
            path: dst.to_path_buf(),
            source,
        })?;
    }
    let mut dropped = 0u64;
    let rows = drop.inspect(|_| dropped += 1);
    match write_without_sorted_rows(file, dst, rows) {
        Ok(kept) => {
            done.files += 1;
            done.records_kept += kept;
            done.records_dropped += dropped;
            Ok(())
        }
        Err(WriteError::Write { source, .. }) => Err(RewriteError {
            path: dst.to_path_buf(),
            source: std::io::Error::other(source),
        }),
        Err(e) => {
            done.problems.push(InputError::Format {
                path: file.to_path_buf(),
                message: e.to_string(),
            });
            Ok(())
        }
    }
}

/// Without the `parquet` feature Parquet inputs are reported, not copied.
#[cfg(not(feature = "parquet"))]
fn copy_parquet(
    file: &Path,
    _drop: &mut DroppedRecords<'_>,
    _dst: &Path,
    _compression: Compression,
    done: &mut Rewritten,
) -> Result<(), RewriteError> {
    done.problems.push(InputError::Format {
        path: file.to_path_buf(),
        message: "this build has no Parquet support (crate feature `parquet`)".into(),
    });
    Ok(())
}

/// A temporary file beside the destination, renamed into place when complete.
struct Tmp {
    file: File,
    path: tempfile::TempPath,
}

impl Tmp {
    fn create(dst: &Path) -> std::io::Result<Tmp> {
        let dir = dst.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let (file, path) = tempfile::NamedTempFile::new_in(dir)?.into_parts();
        Ok(Tmp { file, path })
    }

    fn persist(path: tempfile::TempPath, file: File, dst: &Path) -> std::io::Result<()> {
        file.sync_all()?;
        drop(file);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644))?;
        path.persist(dst).map_err(|e| e.error)
    }
}

/// A writer that compresses as the input was compressed.
enum Encoder {
    None(BufWriter<File>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
    Bzip2(bzip2::write::BzEncoder<BufWriter<File>>),
}

impl Encoder {
    fn new(file: File, compression: Compression) -> std::io::Result<Encoder> {
        let w = BufWriter::with_capacity(1 << 16, file);
        Ok(match compression {
            Compression::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::default(),
            )),
            Compression::Zstd => Encoder::Zstd(zstd::stream::write::Encoder::new(w, 3)?),
            Compression::Bzip2 => Encoder::Bzip2(bzip2::write::BzEncoder::new(
                w,
                bzip2::Compression::default(),
            )),
            _ => Encoder::None(w),
        })
    }

    fn finish(self) -> std::io::Result<File> {
        let w = match self {
            Encoder::None(w) => w,
            Encoder::Gzip(e) => e.finish()?,
            Encoder::Zstd(e) => e.finish()?,
            Encoder::Bzip2(e) => e.finish()?,
        };
        w.into_inner().map_err(|e| e.into_error())
    }
}

impl Write for Encoder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Encoder::None(w) => w.write(buf),
            Encoder::Gzip(w) => w.write(buf),
            Encoder::Zstd(w) => w.write(buf),
            Encoder::Bzip2(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Encoder::None(w) => w.flush(),
            Encoder::Gzip(w) => w.flush(),
            Encoder::Zstd(w) => w.flush(),
            Encoder::Bzip2(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_corpus::{Inputs, NoProgress};
    use textreuse_shingle::units::Unit;

    use crate::Dedup;
    use std::io::Read;

    fn line(id: &str, text: &str) -> String {
        format!("{{\"id\": \"{id}\", \"text\": \"{text}\"}}\n")
    }

    /// Each compression is kept, the duplicates (and only they) are dropped, blank and
    /// malformed lines are copied as they were.
    #[test]
    fn copies_keep_compression_and_drop_exactly_the_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let a =
            "The old mill on the river was built in 1820 and still grinds grain for the bakery.";
        let b =
            "A completely different document about trains, stations and timetables of the line.";
        let body = [
            line("x1", a),
            "\n".into(),
            line("x2", b),
            "{oops\n".into(),
            line("x3", a),
            line("x4", b),
        ]
        .concat();
        let plain = dir.path().join("in/a.jsonl");
        std::fs::create_dir_all(plain.parent().unwrap()).unwrap();
        std::fs::write(&plain, &body).unwrap();
        let gz = dir.path().join("in/b.jsonl.gz");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(body.as_bytes()).unwrap();
        std::fs::write(&gz, e.finish().unwrap()).unwrap();
        let zst = dir.path().join("in/c.jsonl.zst");
        std::fs::write(&zst, zstd::encode_all(body.as_bytes(), 1).unwrap()).unwrap();
        let inputs = [dir.path().join("in")];

        let dedup = Dedup::builder().unit(Unit::Document).build().unwrap();
        let mut drop = DropList::default();
        let stats = dedup
            .run(Inputs::new(&inputs), &mut drop, &NoProgress)
            .unwrap();
        // Three files of four documents: two texts, six copies of each.
        assert_eq!(stats.clusters, 2);
        let drop = drop.finish().unwrap();
        assert_eq!(drop.len(), 10);
        let out = dir.path().join("out");
        let done = write_deduplicated(&inputs, &Include::default(), &drop, &out).unwrap();
        // Kept: two documents and the three malformed lines.
        assert_eq!(
            (done.files, done.records_kept, done.records_dropped),
            (3, 5, 10)
        );
        assert!(done.problems.is_empty());

        // The first copies (file a, lines 1 and 3) are kept; everything else is a duplicate.
        let kept = [line("x1", a), "\n".into(), line("x2", b), "{oops\n".into()].concat();
        let removed = ["\n", "{oops\n"].concat();
        let read = |p: &Path| {
            let opened = input::open_file(p).unwrap();
            assert_eq!(
                opened.compression,
                input::open_file(&inputs[0].join(p.file_name().unwrap()))
                    .unwrap()
                    .compression
            );
            let mut s = String::new();
            { opened.reader }.read_to_string(&mut s).unwrap();
            s
        };
        assert_eq!(read(&copy_path(&out, &plain)), kept);
        assert_eq!(read(&copy_path(&out, &gz)), removed);
        assert_eq!(read(&copy_path(&out, &zst)), removed);
    }

    fn origin(source: &str, record: u64) -> textreuse_corpus::Origin {
        textreuse_corpus::Origin {
            source: Some(source.into()),
            record: Some(record),
            ..Default::default()
        }
    }

    proptest::proptest! {
        /// Whatever the budget (down to the smallest, 64 records a run), every input lists
        /// the records added for it, each once and ascending, as a set in memory would.
        #[test]
        fn the_records_are_the_same_at_any_budget(
            adds in proptest::collection::vec((0..5u8, 0..300u64), 0..2000),
            budget in proptest::sample::select(vec![MIN_MEM_BUDGET, 4096, u64::MAX]),
        ) {
            let tmp = tempfile::tempdir().unwrap();
            let mut list = DropList::with_budget(budget, Some(tmp.path()));
            let mut model: std::collections::BTreeMap<String, std::collections::BTreeSet<u64>> =
                Default::default();
            for &(source, record) in &adds {
                let name = format!("in-{source}.jsonl");
                list.add_record(&origin(&name, record)).unwrap();
                model.entry(name).or_default().insert(record);
            }
            // A document without a source is not listed.
            list.add_record(&textreuse_corpus::Origin::default()).unwrap();
            if budget == MIN_MEM_BUDGET && adds.len() > 64 {
                proptest::prop_assert!(list.runs() > 0);
            }
            let dropped = list.finish().unwrap();
            let total: usize = model.values().map(|set| set.len()).sum();
            proptest::prop_assert_eq!(dropped.len(), total as u64);
            for source in 0..6u8 {
                let name = format!("in-{source}.jsonl");
                let mut records = dropped.records(&name);
                let got: Vec<u64> = records.by_ref().collect();
                proptest::prop_assert!(records.error().is_none());
                let want: Vec<u64> =
                    model.get(&name).map(|set| set.iter().copied().collect()).unwrap_or_default();
                proptest::prop_assert_eq!(got, want);
            }
        }
    }

    /// A copy made with the smallest budget (the duplicates in sorted runs on disk) is the
    /// same bytes as one made with the records in memory, for JSON Lines and plain text.
    #[test]
    fn a_copy_is_the_same_whether_the_duplicates_were_spilled() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        std::fs::create_dir_all(&input).unwrap();
        // 43 unrelated texts: twenty words each, drawn from a small vocabulary.
        let words = [
            "harbour",
            "ships",
            "grain",
            "timber",
            "merchants",
            "river",
            "castle",
            "bishop",
            "railway",
            "station",
            "market",
            "winter",
            "orchard",
            "quarry",
            "bridge",
            "mill",
            "council",
            "school",
            "chapel",
            "forest",
            "meadow",
            "fishermen",
            "lighthouse",
            "tannery",
            "brewery",
            "abbey",
            "garrison",
            "weavers",
            "canal",
            "granary",
        ];
        let texts: Vec<String> = (0..43u64)
            .map(|i| {
                let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                let mut text = String::from("The");
                for _ in 0..20 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    text.push(' ');
                    text.push_str(words[(x % words.len() as u64) as usize]);
                }
                text + "."
            })
            .collect();
        // 400 lines: each text ten times, so 360 duplicates over several runs of 64.
        let body: String = (0..400)
            .map(|n| line(&format!("d{n}"), &texts[n * 7 % 40]))
            .collect();
        std::fs::write(input.join("a.jsonl"), &body).unwrap();
        for (i, text) in texts[40..].iter().enumerate() {
            std::fs::write(input.join(format!("t{i}.txt")), text).unwrap();
            std::fs::write(input.join(format!("u{i}.txt")), text).unwrap();
        }
        let inputs = [input];
        let dedup = Dedup::builder().unit(Unit::Document).build().unwrap();
        let mut copies = Vec::new();
        for budget in [MIN_MEM_BUDGET, u64::MAX] {
            let mut drop = DropList::with_budget(budget, Some(dir.path()));
            dedup
                .run(Inputs::new(&inputs), &mut drop, &NoProgress)
                .unwrap();
            assert_eq!(drop.runs() > 0, budget == MIN_MEM_BUDGET);
            let drop = drop.finish().unwrap();
            let out = dir.path().join(format!("out-{budget}"));
            let done = write_deduplicated(&inputs, &Include::default(), &drop, &out).unwrap();
            assert_eq!((done.records_kept, done.records_dropped), (40 + 3, 360 + 3));
            let mut files = Vec::new();
            for name in [
                "a.jsonl", "t0.txt", "t1.txt", "t2.txt", "u0.txt", "u1.txt", "u2.txt",
            ] {
                files.push(std::fs::read(copy_path(&out, &inputs[0].join(name))).ok());
            }
            copies.push(files);
        }
        assert_eq!(copies[0], copies[1]);
        // One of each pair of equal text files is kept.
        assert_eq!(copies[0].iter().filter(|f| f.is_some()).count(), 4);
    }

    #[test]
    fn dumps_and_stdin_are_reported_not_copied() {
        let dir = tempfile::tempdir().unwrap();
        let sample = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/enwiki-sample-206.xml.bz2"
        );
        let done = write_deduplicated(
            [sample, "-"],
            &Include::default(),
            &DropList::default().finish().unwrap(),
            dir.path(),
        )
        .unwrap();
        assert_eq!(done.files, 0);
        let messages: Vec<String> = done.problems.iter().map(|e| e.to_string()).collect();
        assert!(messages[0].contains("Wikipedia dump"), "{messages:?}");
        assert!(messages[1].contains("standard input"), "{messages:?}");
    }

    #[test]
    fn copy_paths_drop_roots_and_parents() {
        let out = Path::new("out");
        assert_eq!(
            copy_path(out, Path::new("/srv/a.jsonl")),
            Path::new("out/srv/a.jsonl")
        );
        assert_eq!(
            copy_path(out, Path::new("../x/./b.txt")),
            Path::new("out/x/b.txt")
        );
    }
}
