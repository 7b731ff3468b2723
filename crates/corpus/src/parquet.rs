//! Parquet files: documents read from three columns ([`ParquetDocs`]), and a copy of a file
//! without some of its rows ([`write_without_rows`]). Only with the `parquet` feature.
//!
//! The columns are named by [`JsonFields`] (default `id`, `text`, `title`):
//!
//! * the id: any integer type (kept as [`DocId::Int`]) or a string type (`string`,
//!   `large_string`, `string_view`, or a dictionary of one of them; kept as [`DocId::Str`]);
//! * the text: a string type;
//! * the title: a string type, optional: without that column every title is empty, and a null
//!   title is empty too.
//!
//! Only these columns are decoded, a batch of up to 8192 rows at a time, so memory stays
//! bounded by a row group's share of them. Each document's [`Origin`] names the file and its
//! 1-based row.
//!
//! ```no_run
//! use std::path::Path;
//! use textreuse_corpus::JsonFields;
//! use textreuse_corpus::parquet::{ParquetDocs, write_without_rows};
//!
//! let fields = JsonFields {
//!     id: "doc_id".into(),
//!     text: "content".into(),
//!     ..JsonFields::default()
//! };
//! let shard = Path::new("shard-0.parquet");
//! for doc in ParquetDocs::open(shard, &fields)? {
//!     match doc {
//!         Ok(doc) => println!("{} ({} bytes)", doc.id, doc.text.len()),
//!         // A null id or text: that row is skipped, reading goes on.
//!         Err(e) => eprintln!("skipped: {e}"),
//!     }
//! }
//! // The same file without rows 2 and 5.
//! let rows = write_without_rows(shard, Path::new("clean-0.parquet"), &[2, 5])?;
//! println!("{rows} rows kept");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, BooleanArray, LargeStringArray, StringArray, StringViewArray};
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::{ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder};
use parquet::arrow::arrow_writer::ArrowWriter;
use parquet::arrow::{ARROW_SCHEMA_META_KEY, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::metadata::{KeyValue, ParquetMetaData};
use parquet::file::properties::WriterProperties;

use crate::input::{DocId, Document, InputError, JsonFields, Origin};

/// Rows decoded at a time.
const BATCH_ROWS: usize = 8192;

/// The documents of a Parquet file, in row order: an iterator of `Result<Document,
/// InputError>` made by [`ParquetDocs::open`].
///
/// A row whose id or text is null yields an [`InputError::Line`] naming the file and the
/// 1-based row, and reading goes on with the next row. A file that cannot be read on (damaged
/// data) yields an [`InputError::Format`] and ends the iterator.
pub struct ParquetDocs {
    path: PathBuf,
    source: Arc<str>,
    fields: JsonFields,
    /// `None` once the file is read or failed.
    reader: Option<ParquetRecordBatchReader>,
    batch: Option<Batch>,
    /// Rows before the current batch.
    rows_before: u64,
}

impl std::fmt::Debug for ParquetDocs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetDocs")
            .field("path", &self.path)
            .field("fields", &self.fields)
            .field("rows_before", &self.rows_before)
            .finish_non_exhaustive()
    }
}

/// A column of strings, whichever Arrow type holds them.
enum Strings {
    Utf8(StringArray),
    Large(LargeStringArray),
    View(StringViewArray),
    /// A dictionary (which knows the rows' validity), each row's index into `values`
    /// (arbitrary but in range where the row is null), and the values.
    Dict {
        array: ArrayRef,
        keys: Vec<usize>,
        values: Box<Strings>,
    },
}

impl Strings {
    /// Whether a column of type `ty` can be read as strings.
    fn accepts(ty: &DataType) -> bool {
        match ty {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
            DataType::Dictionary(_, values) => Strings::accepts(values),
            _ => false,
        }
    }

    /// `array` as strings; `None` when its type is not one [`Strings::accepts`].
    fn new(array: &ArrayRef) -> Option<Strings> {
        Some(match array.data_type() {
            DataType::Utf8 => Strings::Utf8(array.as_string::<i32>().clone()),
            DataType::LargeUtf8 => Strings::Large(array.as_string::<i64>().clone()),
            DataType::Utf8View => Strings::View(array.as_string_view().clone()),
            DataType::Dictionary(..) => {
                let dict = array.as_any_dictionary();
                Strings::Dict {
                    array: array.clone(),
                    keys: dict.normalized_keys(),
                    values: Box::new(Strings::new(dict.values())?),
                }
            }
            _ => return None,
        })
    }

    /// Row `i`, `None` when null.
    fn get(&self, i: usize) -> Option<&str> {
        match self {
            Strings::Utf8(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Large(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::View(a) => a.is_valid(i).then(|| a.value(i)),
            Strings::Dict {
                array,
                keys,
                values,
            } => array.is_valid(i).then(|| values.get(keys[i])).flatten(),
        }
    }
}

/// A column of document ids.
enum Ids {
    Int(Vec<Option<i128>>),
    Str(Strings),
}

impl Ids {
    /// Whether a column of type `ty` can hold ids.
    fn accepts(ty: &DataType) -> bool {
        ty.is_integer() || Strings::accepts(ty)
    }

    /// `array` as ids; `None` when its type is not one [`Ids::accepts`].
    fn new(array: &ArrayRef) -> Option<Ids> {
        fn ints<T: ArrowPrimitiveType>(array: &ArrayRef) -> Ids
        where
            T::Native: Into<i128>,
        {
            Ids::Int(
                array
                    .as_primitive::<T>()
                    .iter()
                    .map(|v| v.map(Into::into))
                    .collect(),
            )
        }
        Some(match array.data_type() {
            DataType::Int8 => ints::<Int8Type>(array),
            DataType::Int16 => ints::<Int16Type>(array),
            DataType::Int32 => ints::<Int32Type>(array),
            DataType::Int64 => ints::<Int64Type>(array),
            DataType::UInt8 => ints::<UInt8Type>(array),
            DataType::UInt16 => ints::<UInt16Type>(array),
            DataType::UInt32 => ints::<UInt32Type>(array),
            DataType::UInt64 => ints::<UInt64Type>(array),
            _ => Ids::Str(Strings::new(array)?),
        })
    }

    /// Row `i`, `None` when null.
    fn get(&self, i: usize) -> Option<DocId> {
        match self {
            Ids::Int(ints) => ints[i].map(DocId::Int),
            Ids::Str(strings) => strings.get(i).map(DocId::from),
        }
    }
}

/// The decoded columns of one record batch and the next row to yield.
struct Batch {
    ids: Ids,
    texts: Strings,
    titles: Option<Strings>,
    len: usize,
    next: usize,
}

/// The flag that names the column of `role`.
fn flag(role: &str) -> &'static str {
    match role {
        "id" => "--id-field",
        "text" => "--text-field",
        _ => "--title-field",
    }
}

/// The names of `schema`'s columns, quoted, for messages.
/// Checks that every column chunk the footer describes lies inside the file and that the row
/// counts add up: the `parquet` crate asserts that offsets and sizes are not negative (a panic
/// on a damaged footer) and trusts them otherwise.
fn check_chunks(metadata: &ParquetMetaData, file_len: u64) -> Result<(), String> {
    // The reader adds the row groups' row counts up (with overflow checks in test builds).
    let mut rows = 0u64;
    for (g, group) in metadata.row_groups().iter().enumerate() {
        rows = u64::try_from(group.num_rows())
            .ok()
            .and_then(|n| rows.checked_add(n))
            .filter(|&total| i64::try_from(total).is_ok())
            .ok_or_else(|| {
                format!(
                    "damaged footer: row group {g} claims {} rows",
                    group.num_rows()
                )
            })?;
        for column in group.columns() {
            let start = column
                .dictionary_page_offset()
                .unwrap_or(column.data_page_offset());
            let len = column.compressed_size();
            let inside = u64::try_from(start)
                .ok()
                .zip(u64::try_from(len).ok())
                .and_then(|(s, l)| s.checked_add(l))
                .is_some_and(|end| end <= file_len);
            if !inside {
                return Err(format!(
                    "damaged footer: column \"{}\" of row group {g} claims bytes {start} to \
                     {start}+{len} of a {file_len}-byte file",
                    column.column_path()
                ));
            }
        }
    }
    Ok(())
}

fn column_list(schema: &Schema) -> String {
    let names: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("\"{}\"", f.name()))
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

impl ParquetDocs {
    /// Opens the Parquet file `path` and checks its columns: `fields.id` and `fields.text` must
    /// exist, and they and `fields.title` (if it exists) must be of the types the [module
    /// docs](self) name.
    ///
    /// # Errors
    ///
    /// [`InputError::Io`] if the file cannot be opened; [`InputError::Format`] if it is not a
    /// readable Parquet file or a column is missing or of the wrong type (the message names the
    /// columns the file has and the flag that names a column).
    pub fn open(path: &Path, fields: &JsonFields) -> Result<ParquetDocs, InputError> {
        let format = |message: String| InputError::Format {
            path: path.to_path_buf(),
            message,
        };
        let file = File::open(path).map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let file_len = file.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
        let builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| e.to_string())
            .and_then(|b| check_chunks(b.metadata(), file_len).map(|()| b))
            .map_err(|e| {
                format(format!(
                    "not a readable Parquet file ({e}); the file is skipped: check that it is \
                     complete, or export it again"
                ))
            })?;
        let schema = builder.schema().clone();
        let mut roots = Vec::with_capacity(3);
        for (role, name, required) in [
            ("id", &fields.id, true),
            ("text", &fields.text, true),
            ("title", &fields.title, false),
        ] {
            let Ok(index) = schema.index_of(name) else {
                if required {
                    return Err(format(format!(
                        "no column \"{name}\" for the document {role}; the columns are {}: \
                         name the {role} column with {}",
                        column_list(&schema),
                        flag(role)
                    )));
                }
                continue;
            };
            let ty = schema.field(index).data_type();
            let accepted = if role == "id" {
                Ids::accepts(ty)
            } else {
                Strings::accepts(ty)
            };
            if !accepted {
                let wanted = if role == "id" {
                    "an integer or a string"
                } else {
                    "a string"
                };
                return Err(format(format!(
                    "column \"{name}\" holds {ty}, but the document {role} must be {wanted}; \
                     the columns are {}: name the {role} column with {}",
                    column_list(&schema),
                    flag(role)
                )));
            }
            roots.push(index);
        }
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
        let reader = builder
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| {
                format(format!(
                    "cannot read the columns ({e}); the file is skipped: check that it is \
                     complete, or export it again"
                ))
            })?;
        Ok(ParquetDocs {
            path: path.to_path_buf(),
            source: path.to_string_lossy().into(),
            fields: fields.clone(),
            reader: Some(reader),
            batch: None,
            rows_before: 0,
        })
    }

    /// The next record batch's columns; `Ok(None)` at the end of the file.
    fn next_batch(&mut self) -> Result<Option<Batch>, String> {
        let Some(reader) = &mut self.reader else {
            return Ok(None);
        };
        // The `parquet` crate panics on some damaged pages (definition levels past the page,
        // found by the `dedup_parquet` fuzz target) instead of returning an error: such a panic
        // is this file's damage, reported like any other, and the reader is not used again.
        let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next()));
        let batch = match next {
            Ok(None) => return Ok(None),
            Ok(Some(batch)) => batch.map_err(|e| e.to_string())?,
            Err(_) => {
                self.reader = None;
                return Err("the Parquet decoder failed on damaged data".into());
            }
        };
        let column = |name: &str| {
            batch
                .column_by_name(name)
                .ok_or_else(|| format!("column \"{name}\" is missing from a record batch"))
        };
        let mistyped = |name: &str| format!("column \"{name}\" changed its type in the file");
        let ids = Ids::new(column(&self.fields.id)?).ok_or_else(|| mistyped(&self.fields.id))?;
        let texts =
            Strings::new(column(&self.fields.text)?).ok_or_else(|| mistyped(&self.fields.text))?;
        let titles = match batch.column_by_name(&self.fields.title) {
            None => None,
            Some(array) => Some(Strings::new(array).ok_or_else(|| mistyped(&self.fields.title))?),
        };
        Ok(Some(Batch {
            ids,
            texts,
            titles,
            len: batch.num_rows(),
            next: 0,
        }))
    }
}

impl Iterator for ParquetDocs {
    type Item = Result<Document, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let batch = match &mut self.batch {
                Some(batch) if batch.next < batch.len => batch,
                _ => {
                    if let Some(done) = self.batch.take() {
                        self.rows_before += done.len as u64;
                    }
                    match self.next_batch() {
                        Ok(Some(batch)) => {
                            self.batch = Some(batch);
                            continue;
                        }
                        Ok(None) => {
                            self.reader = None;
                            return None;
                        }
                        Err(cause) => {
                            self.reader = None;
                            return Some(Err(InputError::Format {
                                path: self.path.clone(),
                                message: format!(
                                    "cannot read on after row {} (the rest of the file is \
                                     skipped): {cause}; check that the file is complete, or \
                                     export it again",
                                    self.rows_before
                                ),
                            }));
                        }
                    }
                }
            };
            let i = batch.next;
            batch.next += 1;
            let row = self.rows_before + i as u64 + 1;
            let null = |role: &str, name: &str| {
                Some(Err(InputError::Line {
                    path: self.path.clone(),
                    line: row,
                    message: format!(
                        "the {role} (column \"{name}\") is null in this row; row skipped"
                    ),
                }))
            };
            let Some(id) = batch.ids.get(i) else {
                return null("id", &self.fields.id);
            };
            let Some(text) = batch.texts.get(i) else {
                return null("text", &self.fields.text);
            };
            let title = batch
                .titles
                .as_ref()
                .and_then(|t| t.get(i))
                .unwrap_or_default();
            return Some(Ok(Document {
                id,
                title: title.to_owned(),
                text: text.to_owned(),
                origin: Origin {
                    source: Some(self.source.clone()),
                    record: Some(row),
                    ..Origin::default()
                },
                links: None,
            }));
        }
    }
}

impl std::iter::FusedIterator for ParquetDocs {}

/// Why [`write_without_rows`] failed. The destination is left as it was in every case (the
/// copy is written to a temporary file beside it and moved into place only when complete).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The source cannot be read as Parquet: missing, unreadable, not Parquet, damaged, or
    /// compressed with a codec this build lacks. Recover by checking the path, or by exporting
    /// the file again.
    #[error("cannot read {} as Parquet", path.display())]
    Read {
        /// The source file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The copy cannot be written: its directory is missing or not writable, the disk is full,
    /// or a column cannot be encoded. Recover by pointing the destination at a writable
    /// directory with space.
    #[error("cannot write {}", path.display())]
    Write {
        /// The destination file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The row numbers to drop are not in ascending order (at `index` in the slice). Recover by
    /// sorting them.
    #[error("the rows to drop are not sorted (row {row} at index {index} follows a larger one)")]
    Unsorted {
        /// The position in the slice of the first row smaller than the one before it.
        index: usize,
        /// That row number.
        row: u64,
    },
}

/// Checks that row numbers come in ascending order, and remembers the first that does not.
#[derive(Default)]
struct Ascending {
    last: Option<u64>,
    taken: usize,
    unsorted: Option<(usize, u64)>,
}

impl Ascending {
    /// `row` when it is not smaller than the one before, else `None` (and it is recorded).
    fn check(&mut self, row: u64) -> Option<u64> {
        if self.last.is_some_and(|last| row < last) {
            self.unsorted = Some((self.taken, row));
            return None;
        }
        self.last = Some(row);
        self.taken += 1;
        Some(row)
    }
}

/// Copies the Parquet file `src` to `dst` without the rows whose 1-based row numbers are in
/// `drop` (sorted ascending; duplicates and numbers past the last row are allowed), and returns
/// the number of rows written.
///
/// The copy keeps every column, the schema with its metadata, the file's key-value metadata,
/// the compression codec of the source's first column chunk (zstd when the source has none, or
/// one this crate cannot write), and the source's largest row-group size (in rows). Other
/// writer settings (encodings, statistics, page sizes) are the `parquet` crate's defaults. It
/// is written to a temporary file in `dst`'s directory with `src`'s permissions and renamed to
/// `dst` when complete, so `dst` is either the old file or the whole copy. `src` and `dst` may
/// be the same file.
///
/// # Errors
///
/// [`WriteError`]: `src` unreadable, `dst` unwritable, or `drop` unsorted.
pub fn write_without_rows(src: &Path, dst: &Path, drop: &[u64]) -> Result<u64, WriteError> {
    if let Some(index) = drop.windows(2).position(|w| w[0] > w[1]) {
        return Err(WriteError::Unsorted {
            index: index + 1,
            row: drop[index + 1],
        });
    }
    write_without_sorted_rows(src, dst, drop.iter().copied())
}

/// [`write_without_rows`] with the row numbers as an iterator (ascending), read as the copy
/// goes, so that a long list need not be in memory: from a file, say.
///
/// # Errors
///
/// As [`write_without_rows`]; a row smaller than the one before it is found when the copy
/// reaches it, and `dst` is then left as it was.
///
/// ```no_run
/// use std::path::Path;
/// use textreuse_corpus::parquet::write_without_sorted_rows;
///
/// // Every tenth row left out.
/// let rows = (1..).step_by(10).take(1000);
/// write_without_sorted_rows(Path::new("in.parquet"), Path::new("out.parquet"), rows)?;
/// # Ok::<(), textreuse_corpus::parquet::WriteError>(())
/// ```
pub fn write_without_sorted_rows(
    src: &Path,
    dst: &Path,
    drop: impl IntoIterator<Item = u64>,
) -> Result<u64, WriteError> {
    let read_error = |source: Box<dyn std::error::Error + Send + Sync>| WriteError::Read {
        path: src.to_path_buf(),
        source,
    };
    let write_error = |source: Box<dyn std::error::Error + Send + Sync>| WriteError::Write {
        path: dst.to_path_buf(),
        source,
    };
    let file = File::open(src).map_err(|e| read_error(e.into()))?;
    let file_meta = file.metadata().map_err(|e| read_error(e.into()))?;
    let permissions = file_meta.permissions();
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| read_error(e.into()))?;
    check_chunks(builder.metadata(), file_meta.len()).map_err(|e| read_error(e.into()))?;
    let metadata = builder.metadata().clone();
    let compression = metadata
        .row_groups()
        .first()
        .and_then(|group| group.columns().first())
        .map(|column| column.compression())
        .filter(|codec| !matches!(codec, Compression::LZO))
        .unwrap_or(Compression::ZSTD(Default::default()));
    let group_rows = metadata
        .row_groups()
        .iter()
        .map(|group| group.num_rows())
        .max()
        .and_then(|rows| usize::try_from(rows).ok())
        .filter(|&rows| rows > 0);
    // The file's key-value metadata (pandas', Spark's, the user's) as it was; the writer adds
    // the Arrow schema (with the schema's metadata) itself.
    let key_values: Vec<KeyValue> = metadata
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter(|kv| kv.key != ARROW_SCHEMA_META_KEY)
        .cloned()
        .collect();
    let mut properties = WriterProperties::builder()
        .set_compression(compression)
        .set_key_value_metadata((!key_values.is_empty()).then_some(key_values));
    if let Some(rows) = group_rows {
        properties = properties.set_max_row_group_row_count(Some(rows));
    }
    let schema = builder.schema().clone();
    let reader = builder
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| read_error(e.into()))?;

    let dir = match dst.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| write_error(e.into()))?;
    let (file, tmp) = tmp.into_parts();
    let mut writer = ArrowWriter::try_new(
        BufWriter::with_capacity(1 << 20, file),
        schema,
        Some(properties.build()),
    )
    .map_err(|e| write_error(e.into()))?;
    // The rows still to drop, checked to be ascending as they are taken.
    let mut order = Ascending::default();
    let mut rows = drop
        .into_iter()
        .map_while(|row| order.check(row))
        .peekable();
    let mut read = 0u64;
    let mut written = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| read_error(e.into()))?;
        let len = batch.num_rows() as u64;
        // This batch holds rows read + 1 ..= read + len.
        let batch = if rows.peek().is_some_and(|&r| r <= read + len) {
            let keep: Vec<bool> = (read + 1..=read + len)
                .map(|row| {
                    let mut kept = true;
                    while let Some(r) = rows.next_if(|&r| r <= row) {
                        kept &= r != row;
                    }
                    kept
                })
                .collect();
            arrow_select::filter::filter_record_batch(&batch, &BooleanArray::from(keep))
                .map_err(|e| write_error(e.into()))?
        } else {
            batch
        };
        read += len;
        written += batch.num_rows() as u64;
        writer.write(&batch).map_err(|e| write_error(e.into()))?;
    }
    // Rows past the last one are allowed, but still checked for their order.
    rows.for_each(|_| ());
    if let Some((index, row)) = order.unsorted {
        return Err(WriteError::Unsorted { index, row });
    }
    let out = writer.into_inner().map_err(|e| write_error(e.into()))?;
    let file = out
        .into_inner()
        .map_err(|e| write_error(e.into_error().into()))?;
    file.sync_all().map_err(|e| write_error(e.into()))?;
    // Closed before the rename.
    std::mem::drop(file);
    std::fs::set_permissions(&tmp, permissions).map_err(|e| write_error(e.into()))?;
    tmp.persist(dst).map_err(|e| write_error(e.error.into()))?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::StringDictionaryBuilder;
    use arrow_array::types::Int32Type;
    use arrow_array::{RecordBatch, UInt64Array};
    use parquet::file::reader::{FileReader, SerializedFileReader};

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata/parquet")
            .join(name)
    }

    fn numbers_fields() -> JsonFields {
        JsonFields {
            id: "doc_id".into(),
            text: "content".into(),
            ..JsonFields::default()
        }
    }

    /// The whole file as one batch (all columns), with the schema's metadata (which the
    /// reader's batches leave out).
    fn read_all(path: &Path) -> RecordBatch {
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
        let schema = builder.schema().clone();
        let reader = builder.build().unwrap();
        let batches: Vec<RecordBatch> = reader.map(Result::unwrap).collect();
        arrow_select::concat::concat_batches(&schema, &batches).unwrap()
    }

    /// The codec of each column chunk and the rows of each row group.
    fn layout(path: &Path) -> (Vec<Compression>, Vec<i64>) {
        let reader = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
        let groups = reader.metadata().row_groups();
        let codecs = groups
            .iter()
            .flat_map(|g| g.columns().iter().map(|c| c.compression()))
            .collect();
        (codecs, groups.iter().map(|g| g.num_rows()).collect())
    }

    #[test]
    fn string_ids_titles_rows_and_a_null_text() {
        let path = fixture("docs.parquet");
        let got: Vec<_> = ParquetDocs::open(&path, &JsonFields::default())
            .unwrap()
            .collect();
        assert_eq!(got.len(), 11);
        let ok: Vec<&Document> = got.iter().filter_map(|d| d.as_ref().ok()).collect();
        let ids: Vec<String> = ok.iter().map(|d| d.id.to_string()).collect();
        assert_eq!(
            ids,
            [
                "mill-a",
                "lighthouse",
                "railway",
                "orchard",
                "mill-b",
                "choir",
                "market",
                "bridge",
                "lighthouse-2",
                "archive"
            ]
        );
        assert!(ok.iter().all(|d| matches!(d.id, DocId::Str(_))));
        let rows: Vec<u64> = ok.iter().map(|d| d.origin.record.unwrap()).collect();
        assert_eq!(rows, [1, 2, 3, 4, 5, 6, 7, 9, 10, 11]);
        let source = path.to_string_lossy();
        assert!(
            ok.iter()
                .all(|d| d.origin.source.as_deref() == Some(&*source))
        );
        assert_eq!(ok[4].title, "Mill (copy)");
        // A null title is an empty one.
        assert_eq!(ok[6].title, "");
        assert!(
            ok[0]
                .text
                .starts_with("The old mill on the river Wend was built in 1820")
        );
        // Row 8 has a null text: reported with its row, skipped, and reading went on.
        match &got[7] {
            Err(InputError::Line {
                path: p,
                line,
                message,
            }) => {
                assert_eq!((p, *line), (&path, 8));
                assert!(message.contains("\"text\") is null"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn integer_ids_other_column_names_no_title() {
        let path = fixture("numbers.parquet");
        let docs: Vec<Document> = ParquetDocs::open(&path, &numbers_fields())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let ids: Vec<DocId> = docs.iter().map(|d| d.id.clone()).collect();
        let want: Vec<DocId> = (101..=110).map(DocId::Int).collect();
        assert_eq!(ids, want);
        assert!(docs.iter().all(|d| d.title.is_empty()));
        assert_eq!(docs[9].origin.record, Some(10));
        assert!(docs.iter().all(|d| d.text.len() >= 100));
    }

    #[test]
    fn missing_and_mistyped_columns_name_the_flag() {
        let path = fixture("numbers.parquet");
        let err = ParquetDocs::open(&path, &JsonFields::default()).unwrap_err();
        let InputError::Format { message, .. } = &err else {
            panic!("{err:?}")
        };
        assert!(
            message.contains("no column \"id\"")
                && message.contains("\"doc_id\", \"content\"")
                && message.contains("--id-field"),
            "{message}"
        );
        let fields = JsonFields {
            id: "doc_id".into(),
            ..JsonFields::default()
        };
        let err = ParquetDocs::open(&path, &fields).unwrap_err().to_string();
        assert!(
            err.contains("no column \"text\"") && err.contains("--text-field"),
            "{err}"
        );
        // Integers cannot be the text, or the title.
        let fields = JsonFields {
            id: "doc_id".into(),
            text: "doc_id".into(),
            ..JsonFields::default()
        };
        let err = ParquetDocs::open(&path, &fields).unwrap_err().to_string();
        assert!(
            err.contains("holds Int64") && err.contains("--text-field"),
            "{err}"
        );
        let fields = JsonFields {
            title: "doc_id".into(),
            ..numbers_fields()
        };
        let err = ParquetDocs::open(&path, &fields).unwrap_err().to_string();
        assert!(err.contains("--title-field"), "{err}");
    }

    #[test]
    fn damaged_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = std::fs::read(fixture("docs.parquet")).unwrap();
        let cut = dir.path().join("cut.parquet");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let err = ParquetDocs::open(&cut, &JsonFields::default()).unwrap_err();
        assert!(
            matches!(&err, InputError::Format { message, .. } if message.contains("not a readable Parquet file")),
            "{err:?}"
        );
        // Damage inside a column chunk: the footer reads, the data does not.
        let mut broken = bytes.clone();
        for b in &mut broken[200..1200] {
            *b = 0xAA;
        }
        let broken_path = dir.path().join("broken.parquet");
        std::fs::write(&broken_path, &broken).unwrap();
        let results: Vec<_> = ParquetDocs::open(&broken_path, &JsonFields::default())
            .unwrap()
            .collect();
        let err = results.last().unwrap().as_ref().unwrap_err();
        assert!(
            matches!(err, InputError::Format { message, .. } if message.contains("cannot read on")),
            "{err:?}"
        );
        let err = ParquetDocs::open(&dir.path().join("none.parquet"), &JsonFields::default())
            .unwrap_err();
        assert!(matches!(err, InputError::Io { .. }), "{err:?}");
    }

    /// Found by the `dedup_parquet` fuzz target: a footer whose column chunk has a negative
    /// offset made the `parquet` crate panic while reading; it is a damaged file now, for
    /// reading and for `write_without_rows`.
    #[test]
    fn negative_column_offsets_are_a_damaged_file() {
        let path = fixture("fuzz-negative-column-offset.parquet");
        let err = ParquetDocs::open(&path, &JsonFields::default()).unwrap_err();
        assert!(
            matches!(&err, InputError::Format { message, .. } if message.contains("damaged footer")),
            "{err:?}"
        );
        let dir = tempfile::tempdir().unwrap();
        let dst = dir.path().join("copy.parquet");
        assert!(write_without_rows(&path, &dst, &[]).is_err());
        assert!(!dst.exists());
    }

    /// Found by the `dedup_parquet` fuzz target: row groups whose row counts overflow their
    /// sum (the `parquet` crate's reader panicked in `build` with overflow checks on).
    #[test]
    fn row_counts_that_overflow_are_a_damaged_file() {
        let path = fixture("fuzz-row-count-overflow.parquet");
        let err = ParquetDocs::open(&path, &JsonFields::default()).unwrap_err();
        assert!(
            matches!(&err, InputError::Format { message, .. } if message.contains("damaged footer")),
            "{err:?}"
        );
    }

    /// Found by the `dedup_parquet` fuzz target: a data page whose definition levels run past
    /// it makes the `parquet` crate panic while decoding; the reader reports the damage after
    /// the rows before it and stops.
    #[test]
    fn a_panicking_decoder_is_a_damaged_file() {
        let path = fixture("fuzz-definition-levels.parquet");
        let results: Vec<_> = ParquetDocs::open(&path, &JsonFields::default())
            .unwrap()
            .collect();
        let err = results.last().unwrap().as_ref().unwrap_err();
        assert!(
            matches!(err, InputError::Format { message, .. } if message.contains("decoder failed on damaged data")),
            "{err:?}"
        );
    }

    /// A file written by the `parquet` crate itself: dictionary-encoded string ids with a null,
    /// large-string texts, a string-view title, and more rows than one batch.
    #[test]
    fn a_file_written_here_with_other_string_types() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("made.parquet");
        let rows = BATCH_ROWS + 10;
        let mut ids = StringDictionaryBuilder::<Int32Type>::new();
        for i in 0..rows {
            if i == 3 {
                ids.append_null();
            } else {
                ids.append_value(format!("k{}", i % 7));
            }
        }
        let texts: LargeStringArray = (0..rows).map(|i| Some(format!("text {i}"))).collect();
        let titles: StringViewArray = (0..rows)
            .map(|i| (i % 2 == 0).then(|| format!("title {i}")))
            .collect();
        let batch = RecordBatch::try_from_iter([
            ("id", Arc::new(ids.finish()) as ArrayRef),
            ("text", Arc::new(texts) as ArrayRef),
            ("title", Arc::new(titles) as ArrayRef),
        ])
        .unwrap();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(3000))
            .build();
        let mut writer =
            ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), Some(props))
                .unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();

        let got: Vec<_> = ParquetDocs::open(&path, &JsonFields::default())
            .unwrap()
            .collect();
        assert_eq!(got.len(), rows);
        let err = got[3].as_ref().unwrap_err().to_string();
        assert!(err.contains(":4:") && err.contains("the id"), "{err}");
        let docs: Vec<&Document> = got.iter().filter_map(|d| d.as_ref().ok()).collect();
        assert_eq!(docs.len(), rows - 1);
        let last = docs.last().unwrap();
        assert_eq!(last.id, DocId::from(format!("k{}", (rows - 1) % 7)));
        assert_eq!(last.text, format!("text {}", rows - 1));
        assert_eq!(last.origin.record, Some(rows as u64));
        assert_eq!(last.title, "");
        assert_eq!(docs[0].title, "title 0");
    }

    /// Unsigned ids above `i64::MAX` stay verbatim.
    #[test]
    fn large_unsigned_ids() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("u64.parquet");
        let batch = RecordBatch::try_from_iter([
            (
                "id",
                Arc::new(UInt64Array::from(vec![u64::MAX, 0])) as ArrayRef,
            ),
            (
                "text",
                Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef,
            ),
        ])
        .unwrap();
        let mut writer =
            ArrowWriter::try_new(File::create(&path).unwrap(), batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let ids: Vec<DocId> = ParquetDocs::open(&path, &JsonFields::default())
            .unwrap()
            .map(|d| d.unwrap().id)
            .collect();
        assert_eq!(ids, [DocId::from(u64::MAX), DocId::from(0u64)]);
    }

    /// The copy is the source minus the dropped rows, with the same schema (and metadata),
    /// codec and row-group size.
    #[test]
    fn write_without_rows_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let src = fixture("docs.parquet");
        let dst = dir.path().join("out.parquet");
        // Row 8 is the null text; 40 is past the end; 5 is listed twice.
        let drop = [2, 5, 5, 8, 11, 40];
        assert_eq!(write_without_rows(&src, &dst, &drop).unwrap(), 7);
        let source = read_all(&src);
        let keep: Vec<bool> = (1..=source.num_rows() as u64)
            .map(|row| !drop.contains(&row))
            .collect();
        let want =
            arrow_select::filter::filter_record_batch(&source, &BooleanArray::from(keep)).unwrap();
        let got = read_all(&dst);
        assert_eq!(got, want);
        assert_eq!(
            got.schema().metadata().get("source").map(String::as_str),
            Some("testdata/parquet/make.py")
        );
        // The file's own key-value metadata too (for readers that do not decode the Arrow
        // schema).
        let keys = |path: &Path| {
            let reader = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
            let mut keys: Vec<String> = reader
                .metadata()
                .file_metadata()
                .key_value_metadata()
                .unwrap()
                .iter()
                .map(|kv| kv.key.clone())
                .collect();
            keys.sort();
            keys
        };
        assert_eq!(keys(&dst), keys(&src));
        assert_eq!(keys(&dst), ["ARROW:schema", "source"]);
        let (codecs, groups) = layout(&dst);
        assert!(
            codecs.iter().all(|c| matches!(c, Compression::ZSTD(_))),
            "{codecs:?}"
        );
        assert_eq!(groups, [4, 3]);
        // The copy reads as documents: the null row is gone.
        let ids: Vec<String> = ParquetDocs::open(&dst, &JsonFields::default())
            .unwrap()
            .map(|d| d.unwrap().id.to_string())
            .collect();
        assert_eq!(
            ids,
            [
                "mill-a",
                "railway",
                "orchard",
                "choir",
                "market",
                "bridge",
                "lighthouse-2"
            ]
        );

        // Snappy stays snappy; nothing dropped is a copy; the source may be the destination.
        let numbers = dir.path().join("numbers.parquet");
        std::fs::copy(fixture("numbers.parquet"), &numbers).unwrap();
        let before = read_all(&numbers);
        assert_eq!(write_without_rows(&numbers, &numbers, &[]).unwrap(), 10);
        assert_eq!(read_all(&numbers), before);
        assert_eq!(write_without_rows(&numbers, &numbers, &[1, 10]).unwrap(), 8);
        let (codecs, groups) = layout(&numbers);
        assert!(
            codecs.iter().all(|c| *c == Compression::SNAPPY),
            "{codecs:?}"
        );
        assert_eq!(groups, [5, 3]);
        let ids: Vec<DocId> = ParquetDocs::open(&numbers, &numbers_fields())
            .unwrap()
            .map(|d| d.unwrap().id)
            .collect();
        assert_eq!(ids, (102..=109).map(DocId::Int).collect::<Vec<_>>());
    }

    #[test]
    fn write_without_rows_errors_leave_the_destination() {
        let dir = tempfile::tempdir().unwrap();
        let dst = dir.path().join("out.parquet");
        std::fs::write(&dst, "old").unwrap();
        let err = write_without_rows(&fixture("docs.parquet"), &dst, &[3, 2]).unwrap_err();
        assert!(
            matches!(err, WriteError::Unsorted { index: 1, row: 2 }),
            "{err}"
        );
        let not_parquet = dir.path().join("notes.txt");
        std::fs::write(&not_parquet, "just text").unwrap();
        let err = write_without_rows(&not_parquet, &dst, &[]).unwrap_err();
        assert!(matches!(err, WriteError::Read { .. }), "{err}");
        assert!(err.to_string().contains("notes.txt"), "{err}");
        let err = write_without_rows(
            &fixture("docs.parquet"),
            &dir.path().join("no/such/dir/out.parquet"),
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, WriteError::Write { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&dst).unwrap(), "old");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }
}
