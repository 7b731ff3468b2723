//! Stage 6's store: kept sentence texts and their documents' metadata in a temporary file,
//! addressed by sentence id and document `seq`.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use textreuse_corpus::{DocId, Origin};

use crate::Error;
use crate::spill::{SpillArray, SpillReader};

/// What stages 6-8 need of a document: its id, title and origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DocMeta {
    pub(crate) id: DocId,
    pub(crate) title: String,
    pub(crate) origin: Origin,
}

/// Kept sentence texts and their documents' metadata on disk, addressed by sentence id and
/// document `seq`.
///
/// The file holds, per document in input order, its [`DocMeta`] then the texts of its kept
/// units. The index is two-level so that a lookup touches a few records, not a binary search
/// over every kept sentence: per document `seq` (16 bytes) the position of its first kept unit
/// and the offset of its metadata; per kept unit (12 bytes) its index in the document (`idx`,
/// ascending within the document) and its offset. The two index arrays are [`SpillArray`]s:
/// in memory within their shares of the budget, in temporary files beyond.
pub(crate) struct TextStore {
    file: BufWriter<File>,
    path: tempfile::TempPath,
    dir: PathBuf,
    /// Per kept unit, in push order (ascending id): `idx` (u32) and file offset (u64).
    units: SpillArray<UNIT_ENTRY>,
    /// Per document `seq`: the position of its first kept unit (u64) and the offset of its
    /// metadata (u64).
    docs: SpillArray<DOC_ENTRY>,
    last_id: Option<u64>,
    len: u64,
    scratch: Vec<u8>,
}

const UNIT_ENTRY: usize = 12;
const DOC_ENTRY: usize = 16;

impl TextStore {
    /// An empty store in a new temporary file under `dir` (default: the system's), whose index
    /// keeps up to `index_share` bytes in memory (the rest spills next to the file).
    pub(crate) fn new(dir: Option<&Path>, index_share: u64) -> Result<TextStore, Error> {
        let dir = dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let tmp = tempfile::NamedTempFile::new_in(&dir).map_err(|source| Error::TextStore {
            what: "cannot create the sentence text file",
            dir: dir.clone(),
            source,
        })?;
        let (file, path) = tmp.into_parts();
        // Units outnumber documents; the split follows the entry sizes of one unit a document.
        let unit_share = index_share / (UNIT_ENTRY + DOC_ENTRY) as u64 * UNIT_ENTRY as u64;
        Ok(TextStore {
            file: BufWriter::with_capacity(1 << 20, file),
            path,
            units: SpillArray::new(unit_share, &dir),
            docs: SpillArray::new(index_share - unit_share, &dir),
            dir,
            last_id: None,
            len: 0,
            scratch: Vec::new(),
        })
    }

    fn error(&self, what: &'static str, source: std::io::Error) -> Error {
        Error::TextStore {
            what,
            dir: self.dir.clone(),
            source,
        }
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if let Err(e) = self.file.write_all(bytes) {
            return Err(self.error("cannot write the sentence text file", e));
        }
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Starts document `seq` (the next one: documents come in input order, each once) with its
    /// metadata; its kept units follow with [`TextStore::push`].
    pub(crate) fn push_doc(
        &mut self,
        seq: u64,
        id: &DocId,
        title: &str,
        origin: &Origin,
    ) -> Result<(), Error> {
        assert_eq!(
            seq,
            self.docs.len(),
            "document {seq} was stored out of order"
        );
        let mut entry = [0u8; DOC_ENTRY];
        entry[..8].copy_from_slice(&self.units.len().to_le_bytes());
        entry[8..].copy_from_slice(&self.len.to_le_bytes());
        self.docs.push(entry)?;
        let mut bytes = std::mem::take(&mut self.scratch);
        bytes.clear();
        encode_meta(id, title, origin, &mut bytes);
        let written = self.write(&bytes);
        self.scratch = bytes;
        written
    }

    /// Appends the text of unit `id` of the current document and its character span in the
    /// document; ids must be pushed in ascending order (the pipeline does: documents in input
    /// order, units by index). The span is written after the text (16 bytes, so reading it back
    /// cuts it off without moving the text).
    pub(crate) fn push(
        &mut self,
        id: u64,
        text: &str,
        chars: std::ops::Range<u64>,
    ) -> Result<(), Error> {
        assert!(
            self.last_id.is_none_or(|last| last < id) && (id >> 32) + 1 == self.docs.len(),
            "sentence {id:#x} was stored out of order"
        );
        self.last_id = Some(id);
        let mut entry = [0u8; UNIT_ENTRY];
        entry[..4].copy_from_slice(&(id as u32).to_le_bytes());
        entry[4..].copy_from_slice(&self.len.to_le_bytes());
        self.units.push(entry)?;
        let mut header = [0u8; SPAN_BYTES];
        header[..8].copy_from_slice(&chars.start.to_le_bytes());
        header[8..].copy_from_slice(&chars.end.to_le_bytes());
        self.write(text.as_bytes())?;
        self.write(&header)
    }

    /// True when an index array has moved to disk.
    pub(crate) fn spilled(&self) -> bool {
        self.units.spilled() || self.docs.spilled()
    }

    /// The read side: the file memory-mapped when it is at most `mapped_share` bytes, else read
    /// with positioned reads ([`TextReader`]).
    pub(crate) fn into_reader(mut self, mapped_share: u64) -> Result<TextReader, Error> {
        // The sentinel: where the document after the last one would start.
        let mut doc = [0u8; DOC_ENTRY];
        doc[..8].copy_from_slice(&self.units.len().to_le_bytes());
        doc[8..].copy_from_slice(&self.len.to_le_bytes());
        self.docs.push(doc)?;
        let dir = self.dir.clone();
        let file = self.file.into_inner().map_err(|e| Error::TextStore {
            what: "cannot write the sentence text file",
            dir: dir.clone(),
            source: e.into_error(),
        })?;
        let map = if self.len == 0 || self.len > mapped_share {
            None
        } else {
            // SAFETY: the file is this run's own temporary file (created private, in the
            // run's directory), complete and never written again; it is removed only when
            // the reader is dropped, which unmaps it first (field order).
            Some(
                unsafe { memmap2::Mmap::map(&file) }.map_err(|source| Error::TextStore {
                    what: "cannot map the sentence text file",
                    dir: dir.clone(),
                    source,
                })?,
            )
        };
        Ok(TextReader {
            map,
            file,
            _path: self.path,
            dir,
            units: self.units.into_reader()?,
            docs: self.docs.into_reader()?,
        })
    }
}

/// Bytes of the character span written after each text.
const SPAN_BYTES: usize = 16;

/// A stored unit: its text and its character span in its document.
pub(crate) struct StoredUnit {
    pub(crate) text: String,
    pub(crate) chars: std::ops::Range<u64>,
}

/// The read side of [`TextStore`]. Reads take `&self`, so workers share it.
///
/// A file within its share of the memory bound ([`MemoryPlan::mapped_texts`]) is mapped into
/// memory, so a read is a copy from the page cache without a system call; its pages then count
/// in the process's resident memory, at most the file's size. A larger file is read with
/// positioned reads: a memory map bounded below the file's size would have to hand its pages
/// back and fault them in again, which costs more than the reads on the random order in which
/// clusters visit their members.
///
/// [`MemoryPlan::mapped_texts`]: crate::MemoryPlan::mapped_texts
pub(crate) struct TextReader {
    // Unmapped before the file is removed (fields drop in order).
    map: Option<memmap2::Mmap>,
    file: File,
    _path: tempfile::TempPath,
    dir: PathBuf,
    units: SpillReader<UNIT_ENTRY>,
    docs: SpillReader<DOC_ENTRY>,
}

fn le64(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
}

impl TextReader {
    fn error(&self, what: &'static str, source: std::io::Error) -> Error {
        Error::TextStore {
            what,
            dir: self.dir.clone(),
            source,
        }
    }

    fn changed(&self, e: Box<dyn std::error::Error + Send + Sync>) -> Error {
        self.error(
            "the sentence text file was changed while it was read",
            std::io::Error::new(std::io::ErrorKind::InvalidData, e),
        )
    }

    /// Document `seq`'s entry and the next one's: (first unit, metadata offset) of each.
    fn doc_entries(&self, seq: u64) -> Result<[(u64, u64); 2], Error> {
        // `docs` ends with a sentinel, so `seq + 1` is in bounds for every stored document.
        assert!(seq + 1 < self.docs.len(), "document {seq} was not stored");
        let mut buf = Vec::new();
        let entries = self.docs.slice(seq, seq + 2, &mut buf)?;
        let entry = |at: usize| (le64(&entries[at..]), le64(&entries[at + 8..]));
        Ok([entry(0), entry(DOC_ENTRY)])
    }

    /// `read` of bytes `start..end` of the file: from the map, or read into a buffer without
    /// one.
    fn with_bytes<R>(
        &self,
        start: u64,
        end: u64,
        read: impl FnOnce(&[u8]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let Some(len) = end.checked_sub(start) else {
            return Err(self.changed("an index entry points backwards".into()));
        };
        let Some(map) = &self.map else {
            let mut buf = vec![0u8; len as usize];
            self.file
                .read_exact_at(&mut buf, start)
                .map_err(|e| self.error("cannot read the sentence text file", e))?;
            return read(&buf);
        };
        match (usize::try_from(start), usize::try_from(end)) {
            (Ok(from), Ok(to)) if to <= map.len() => read(&map[from..to]),
            _ => Err(self.changed("an index entry points past the file".into())),
        }
    }

    /// The text and character span of unit `id`. Every clustered id was stored in stage 1, so
    /// a missing one is a bug.
    pub(crate) fn get(&self, id: u64) -> Result<StoredUnit, Error> {
        let [(first, _), (end, next_meta)] = self.doc_entries(id >> 32)?;
        let mut buf = Vec::new();
        let entries = self.units.slice(first, end, &mut buf)?;
        let idx = |i: usize| u32::from_le_bytes(entries[i * UNIT_ENTRY..][..4].try_into().unwrap());
        let offset = |i: usize| le64(&entries[i * UNIT_ENTRY + 4..]);
        let n = (end - first) as usize;
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if idx(mid) < id as u32 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        assert!(
            lo < n && idx(lo) == id as u32,
            "sentence {id:#x} has no stored text"
        );
        // A unit ends where the next one starts, the document's last one where the next
        // document's metadata starts.
        let unit_end = if lo + 1 < n {
            offset(lo + 1)
        } else {
            next_meta
        };
        self.with_bytes(offset(lo), unit_end, |record| {
            let Some(at) = record.len().checked_sub(SPAN_BYTES) else {
                return Err(self.changed("a record is shorter than its span".into()));
            };
            let start = le64(&record[at..]);
            let end = le64(&record[at + 8..]);
            let text = std::str::from_utf8(&record[..at]).map_err(|e| self.changed(Box::new(e)))?;
            Ok(StoredUnit {
                text: text.to_owned(),
                chars: start..end,
            })
        })
    }

    /// The metadata of document `seq`.
    pub(crate) fn doc(&self, seq: u64) -> Result<DocMeta, Error> {
        let [(first, meta), (end, next_meta)] = self.doc_entries(seq)?;
        // The metadata ends where the document's first unit starts, or without units where the
        // next document's metadata starts.
        let meta_end = if first < end {
            le64(&self.units.get(first)?[4..])
        } else {
            next_meta
        };
        self.with_bytes(meta, meta_end, |bytes| {
            decode_meta(bytes).ok_or_else(|| self.changed("a document record is damaged".into()))
        })
    }
}

/// Writes `meta` as bytes: the id (tag 0 and 16 bytes of integer, or tag 1 and a string), the
/// title, then a byte of flags for the origin's fields present and those fields.
fn encode_meta(id: &DocId, title: &str, origin: &Origin, out: &mut Vec<u8>) {
    fn string(s: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    match id {
        DocId::Int(n) => {
            out.push(0);
            out.extend_from_slice(&n.to_le_bytes());
        }
        DocId::Str(s) => {
            out.push(1);
            string(s, out);
        }
    }
    string(title, out);
    let o = origin;
    let flags = u8::from(o.source.is_some())
        | u8::from(o.record.is_some()) << 1
        | u8::from(o.revision.is_some()) << 2
        | u8::from(o.timestamp.is_some()) << 3
        | u8::from(o.url.is_some()) << 4;
    out.push(flags);
    if let Some(s) = &o.source {
        string(s, out);
    }
    if let Some(n) = o.record {
        out.extend_from_slice(&n.to_le_bytes());
    }
    if let Some(n) = o.revision {
        out.extend_from_slice(&n.to_le_bytes());
    }
    if let Some(s) = &o.timestamp {
        string(s, out);
    }
    if let Some(s) = &o.url {
        string(s, out);
    }
}

/// The inverse of [`encode_meta`]; `None` for bytes it did not write.
fn decode_meta(mut bytes: &[u8]) -> Option<DocMeta> {
    fn take<'a>(bytes: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, tail) = bytes.split_at_checked(n)?;
        *bytes = tail;
        Some(head)
    }
    fn u64_(bytes: &mut &[u8]) -> Option<u64> {
        Some(u64::from_le_bytes(take(bytes, 8)?.try_into().ok()?))
    }
    fn string<'a>(bytes: &mut &'a [u8]) -> Option<&'a str> {
        let n = usize::try_from(u64_(bytes)?).ok()?;
        std::str::from_utf8(take(bytes, n)?).ok()
    }
    let id = match take(&mut bytes, 1)?[0] {
        0 => DocId::Int(i128::from_le_bytes(take(&mut bytes, 16)?.try_into().ok()?)),
        1 => DocId::Str(string(&mut bytes)?.into()),
        _ => return None,
    };
    let title = string(&mut bytes)?.to_string();
    let flags = take(&mut bytes, 1)?[0];
    let mut origin = Origin::default();
    if flags & 1 != 0 {
        origin.source = Some(string(&mut bytes)?.into());
    }
    if flags & 2 != 0 {
        origin.record = Some(u64_(&mut bytes)?);
    }
    if flags & 4 != 0 {
        origin.revision = Some(u64_(&mut bytes)?);
    }
    if flags & 8 != 0 {
        origin.timestamp = Some(string(&mut bytes)?.into());
    }
    if flags & 16 != 0 {
        origin.url = Some(string(&mut bytes)?.into());
    }
    bytes.is_empty().then_some(DocMeta { id, title, origin })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(seq: u64) -> DocMeta {
        DocMeta {
            id: if seq.is_multiple_of(2) {
                DocId::from(seq * 10)
            } else {
                DocId::from(format!("doc-{seq}"))
            },
            title: format!("Title {seq}"),
            origin: Origin {
                source: Some("a/file.jsonl".into()),
                record: Some(seq),
                revision: (seq == 3).then_some(77),
                timestamp: (seq == 5).then(|| "2020-01-01T00:00:00Z".into()),
                url: None,
            },
        }
    }

    #[test]
    fn texts_and_documents_come_back_in_memory_and_spilled() {
        let ids = [0u64, 3, 2 << 32 | 1, 2 << 32 | 7, 5 << 32];
        // Index in memory and spilled; the file read and mapped (mapped up to its size).
        for (share, mapped) in [(0, 0), (40, u64::MAX), (1 << 20, 10), (1 << 20, 1 << 20)] {
            let mut store = TextStore::new(None, share).unwrap();
            for seq in 0..7u64 {
                let m = meta(seq);
                store.push_doc(seq, &m.id, &m.title, &m.origin).unwrap();
                for &id in ids.iter().filter(|&&id| id >> 32 == seq) {
                    store
                        .push(id, &format!("text of {id}"), id..id + 3)
                        .unwrap();
                }
            }
            assert_eq!(store.spilled(), share < 1 << 20);
            let reader = store.into_reader(mapped).unwrap();
            assert_eq!(reader.map.is_some(), mapped > 10);
            for &id in ids.iter().rev() {
                let unit = reader.get(id).unwrap();
                assert_eq!(unit.text, format!("text of {id}"));
                assert_eq!(unit.chars, id..id + 3);
            }
            for seq in (0..7u64).rev() {
                assert_eq!(reader.doc(seq).unwrap(), meta(seq));
            }
        }
    }

    #[test]
    fn an_empty_store_reads_its_documents() {
        let mut store = TextStore::new(None, 1 << 20).unwrap();
        let reader = store.into_reader(0).unwrap();
        drop(reader);
        store = TextStore::new(None, 1 << 20).unwrap();
        let m = meta(0);
        store.push_doc(0, &m.id, &m.title, &m.origin).unwrap();
        let reader = store.into_reader(0).unwrap();
        assert_eq!(reader.doc(0).unwrap(), meta(0));
    }
}
