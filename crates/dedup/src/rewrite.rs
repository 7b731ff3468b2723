//! A deduplicated copy of the inputs: every input record except the duplicates a document-level
//! run found, in the input's own format and compression.
//!
//! [`DropList`] is a [`Sink`] that collects the [duplicates](Cluster::duplicates) of each
//! cluster by input and record; [`write_deduplicated`] then reads the inputs again and writes
//! each one under the output directory without those records:
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
//! let written = write_deduplicated([&input], &Include::default(), &drop, &out)?;
//! assert_eq!((written.records_kept, written.records_dropped), (2, 1));
//! let copy = std::fs::read_to_string(out.join(input.strip_prefix("/")?))?;
//! assert!(copy.contains("\"id\": 1") && !copy.contains("\"id\": 2"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Component, Path, PathBuf};

use crate::cluster::Cluster;
use crate::sink::Sink;
use textreuse_corpus::InputError;
use textreuse_corpus::input::{self, Compression, Format};
use textreuse_corpus::source::Include;

/// The duplicate records of a run, by input (a [`Sink`]). Units without a source (documents a
/// program built) are not listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DropList {
    /// Source (as given) -> the records to drop: line numbers (JSON Lines), row numbers
    /// (Parquet), or 0 for a whole plain-text file.
    by_source: BTreeMap<String, BTreeSet<u64>>,
    units: u64,
}

impl DropList {
    /// Adds the duplicates of `cluster`.
    pub fn add(&mut self, cluster: &Cluster) {
        for m in cluster.duplicates() {
            self.add_record(&m.origin);
        }
    }

    /// Adds the record of a document known to be a duplicate from elsewhere (of a document in a
    /// persistent index, say); nothing for a document without a source.
    pub fn add_record(&mut self, origin: &textreuse_corpus::Origin) {
        if let Some(source) = &origin.source {
            let record = origin.record.unwrap_or(0);
            if self
                .by_source
                .entry(source.to_string())
                .or_default()
                .insert(record)
            {
                self.units += 1;
            }
        }
    }

    /// The number of records to drop.
    pub fn len(&self) -> u64 {
        self.units
    }

    /// Whether nothing is dropped.
    pub fn is_empty(&self) -> bool {
        self.units == 0
    }

    /// The records to drop from `source` (as given).
    pub fn records(&self, source: &str) -> Option<&BTreeSet<u64>> {
        self.by_source.get(source)
    }
}

impl Sink for DropList {
    type Error = Infallible;
    fn cluster(&mut self, cluster: Cluster) -> Result<(), Infallible> {
        self.add(&cluster);
        Ok(())
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
    drop: &DropList,
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
            let records = drop.records(&file.to_string_lossy());
            copy_one(&file, records, &copy_path(out, &file), &mut done)?;
        }
    }
    Ok(done)
}

/// Copies one input file without `drop`'s records.
fn copy_one(
    file: &Path,
    drop: Option<&BTreeSet<u64>>,
    dst: &Path,
    done: &mut Rewritten,
) -> Result<(), RewriteError> {
    let empty = BTreeSet::new();
    let drop = drop.unwrap_or(&empty);
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
            let dropped = drop.contains(&0);
            if dropped {
                done.records_dropped += 1;
                return Ok(());
            }
            let tmp = Tmp::create(dst).map_err(write_error)?;
            let mut writer = Encoder::new(tmp.file, opened.compression).map_err(write_error)?;
            let mut reader = opened.reader;
            // Damage in the input (a cut or padded compressed stream) is the input's problem,
            // reported and skipped like every damaged input; only writing can stop the copy.
            let mut text = Vec::new();
            if let Err(e) = std::io::Read::read_to_end(&mut reader, &mut text) {
                done.problems.push(InputError::Format {
                    path: file.to_path_buf(),
                    message: format!("{e}: the file is damaged and is not copied"),
                });
                return Ok(());
            }
            writer.write_all(&text).map_err(write_error)?;
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
                if drop.contains(&line) {
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
    drop: &BTreeSet<u64>,
    dst: &Path,
    compression: Compression,
    done: &mut Rewritten,
) -> Result<(), RewriteError> {
    use textreuse_corpus::parquet::{WriteError, write_without_rows};
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
    let rows: Vec<u64> = drop.iter().copied().collect();
    match write_without_rows(file, dst, &rows) {
        Ok(kept) => {
            done.files += 1;
            done.records_kept += kept;
            done.records_dropped += rows.len() as u64;
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
    _drop: &BTreeSet<u64>,
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
            &DropList::default(),
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
