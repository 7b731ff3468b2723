//! Documents whose texts live on disk: a corpus larger than memory.
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::Mmap;
use textreuse_corpus::{DocId, Document, Link, MAX_LINKS, Origin};

use crate::doc_array::DocArray;

/// Builds a [`DocumentStore`]: each pushed document's text is appended to a temporary file,
/// and its id, title, provenance and links to another; memory keeps 16 bytes per document
/// (where the two are; in a third temporary file past
/// [`DocumentStoreBuilder::max_offsets_memory`]) and each distinct input name once. Links stay on disk like the rest
/// (readers keep at most [`MAX_LINKS`] of a page's): on the real pages of
/// `testdata/web` they take about as many bytes as the pages' texts.
///
/// ```
/// use textreuse_corpus::Document;
/// use textreuse_reuse::DocumentStoreBuilder;
///
/// let mut store = DocumentStoreBuilder::new(None::<&std::path::Path>)?;
/// store.push(Document::new(1, "Bees", "Bees store honey."))?;
/// store.push(Document::new(2, "Wasps", "Wasps build nests."))?;
/// let store = store.finish()?;
/// assert_eq!((store.len(), store.text(1)), (2, "Wasps build nests."));
/// assert_eq!(store.info(1).title, "Wasps");
/// assert_eq!(store.info(1).id, 2);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct DocumentStoreBuilder {
    file: BufWriter<File>,
    path: tempfile::TempPath,
    dir: PathBuf,
    /// Per document: where its text and its information end in their files.
    ends: DocArray<(u64, u64)>,
    text_end: u64,
    info: BufWriter<File>,
    info_end: u64,
    record: Vec<u8>,
    sources: Vec<Arc<str>>,
    source_numbers: HashMap<Arc<str>, u32>,
}

/// Documents with their texts in a file mapped into memory ([`DocumentStoreBuilder`]): the
/// operating system pages texts in as a run reads them and drops them under memory pressure,
/// so the corpus need not fit in memory. The file is deleted when the store is dropped.
///
/// Pages read stay resident (and count in the process's resident memory) until the system
/// needs the memory; [`DocumentStore::release_past`] hands them back sooner, for a run under a
/// memory bound.
#[derive(Debug)]
pub struct DocumentStore {
    map: Option<Mmap>,
    _path: tempfile::TempPath,
    /// Per document: where its text and its information end.
    ends: DocArray<(u64, u64)>,
    info: Option<Mmap>,
    sources: Vec<Arc<str>>,
    /// Bytes of texts and information read since the pages were last handed back.
    read: AtomicU64,
    /// Times the pages were handed back.
    releases: AtomicU64,
}

impl DocumentStoreBuilder {
    /// An empty store in a new temporary file under `dir` (default: the system's).
    pub fn new(dir: Option<impl AsRef<Path>>) -> io::Result<DocumentStoreBuilder> {
        let dir = dir.map_or_else(std::env::temp_dir, |d| d.as_ref().to_path_buf());
        let tmp = tempfile::Builder::new()
            .prefix(".textreuse-docs-")
            .tempfile_in(&dir)
            .map_err(|e| with_path(e, "cannot create the document text file in", &dir))?;
        let (file, path) = tmp.into_parts();
        let info = tempfile::tempfile_in(&dir)
            .map_err(|e| with_path(e, "cannot create the document information file in", &dir))?;
        Ok(DocumentStoreBuilder {
            file: BufWriter::with_capacity(1 << 20, file),
            path,
            dir,
            ends: DocArray::new(u64::MAX),
            text_end: 0,
            info: BufWriter::with_capacity(1 << 16, info),
            info_end: 0,
            record: Vec::new(),
            sources: Vec::new(),
            source_numbers: HashMap::new(),
        })
    }

    /// Keeps the per-document offsets (16 bytes a document) in memory while they take at
    /// most `bytes`, and in a temporary file beside the texts past that (read back by a
    /// positioned read for each text or information read). Default: always in memory.
    /// `textreuse reuse --max-memory` gives the store its share of the bound
    /// ([`MemoryPlan::store_offsets`](crate::MemoryPlan::store_offsets)).
    pub fn max_offsets_memory(&mut self, bytes: u64) -> &mut Self {
        self.ends.set_share(bytes);
        self
    }

    /// Appends a document.
    pub fn push(&mut self, doc: Document) -> io::Result<()> {
        self.file
            .write_all(doc.text.as_bytes())
            .map_err(|e| with_path(e, "cannot write the document texts to", &self.dir))?;
        self.text_end += doc.text.len() as u64;
        let source = doc.origin.source.as_ref().map(|s| {
            let next = self.sources.len() as u32;
            *self.source_numbers.entry(s.clone()).or_insert_with(|| {
                self.sources.push(s.clone());
                next
            })
        });
        self.record.clear();
        encode_info(&doc, source, &mut self.record)?;
        self.info
            .write_all(&self.record)
            .map_err(|e| with_path(e, "cannot write the document information to", &self.dir))?;
        self.info_end += self.record.len() as u64;
        self.ends
            .push((self.text_end, self.info_end), Some(&self.dir))
            .map_err(|e| with_path(e, "cannot write the document offsets to", &self.dir))
    }

    /// Whether the per-document offsets moved to a file
    /// ([`DocumentStoreBuilder::max_offsets_memory`]).
    pub fn offsets_on_disk(&self) -> bool {
        self.ends.on_disk()
    }

    /// The number of documents pushed.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether no document was pushed.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The store, its file mapped into memory.
    pub fn finish(self) -> io::Result<DocumentStore> {
        let file = self.file.into_inner().map_err(|e| {
            with_path(
                e.into_error(),
                "cannot write the document texts to",
                &self.dir,
            )
        })?;
        let map = if self.text_end == 0 {
            None // an empty file cannot be mapped everywhere
        } else {
            // SAFETY: the file is this store's own temporary file, written above and never
            // written again; nothing else is expected to change it while it is mapped.
            let map =
                unsafe { Mmap::map(&file) }.map_err(|e| with_path(e, "cannot map", &self.dir))?;
            // Checked once here, so that `text` need not check on every read.
            if !valid_utf8(&map) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the document text file in {} was changed",
                        self.dir.display()
                    ),
                ));
            }
            Some(map)
        };
        let info = self.info.into_inner().map_err(|e| {
            with_path(
                e.into_error(),
                "cannot write the document information to",
                &self.dir,
            )
        })?;
        let info = if self.ends.is_empty() {
            None
        } else {
            // SAFETY: as for the texts: the store's own temporary file, not written again.
            Some(unsafe { Mmap::map(&info) }.map_err(|e| with_path(e, "cannot map", &self.dir))?)
        };
        Ok(DocumentStore {
            map,
            _path: self.path,
            ends: self.ends,
            info,
            sources: self.sources,
            read: AtomicU64::new(0),
            releases: AtomicU64::new(0),
        })
    }
}

/// Whether the mapped file is UTF-8, checked a window at a time, each window's pages handed
/// back to the operating system once checked (else the check would make the whole file
/// resident at once: the corpus's size in resident memory before the run begins).
fn valid_utf8(map: &Mmap) -> bool {
    const WINDOW: usize = 8 << 20;
    let mut at = 0;
    while at < map.len() {
        let end = (at + WINDOW).min(map.len());
        let checked = match std::str::from_utf8(&map[at..end]) {
            Ok(_) => end,
            // A character cut by the window's end: checked again with the next window.
            Err(e) if e.error_len().is_none() && end < map.len() => at + e.valid_up_to(),
            Err(_) => return false,
        };
        #[cfg(unix)]
        // SAFETY: as in `DocumentStore::release_past`: the file is never written again, so
        // the pages dropped are read again unchanged when touched.
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, at, checked - at)
        };
        at = checked;
    }
    true
}

/// The kernel maps the pages of a file mapping in windows around each page fault (Linux's
/// `fault_around_bytes`, 64 KiB by default), so reading a few bytes makes a window resident.
const FAULT_AROUND: usize = 64 << 10;

/// The bytes of the mapping that reading `start..end` can make resident: the fault-around
/// windows it touches.
fn mapped(start: usize, end: usize) -> u64 {
    let windows = (end.max(start + 1) - 1) / FAULT_AROUND - start / FAULT_AROUND + 1;
    (windows * FAULT_AROUND) as u64
}

fn with_path(e: io::Error, what: &str, dir: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", dir.display()))
}

impl DocumentStore {
    /// The number of documents.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the store has no document.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Whether the per-document offsets are in a file
    /// ([`DocumentStoreBuilder::max_offsets_memory`]).
    pub fn offsets_on_disk(&self) -> bool {
        self.ends.on_disk()
    }

    /// Where document `i`'s text and its information are in their files.
    ///
    /// # Panics
    ///
    /// When the offsets are on disk and their temporary file cannot be read.
    fn spans(&self, i: usize) -> (Range<usize>, Range<usize>) {
        let get = |i| {
            self.ends.get(i).unwrap_or_else(|e| {
                panic!("the document store cannot read its offsets' temporary file: {e}")
            })
        };
        let (start, info_start) = if i == 0 { (0, 0) } else { get(i - 1) };
        let (end, info_end) = get(i);
        (
            start as usize..end as usize,
            info_start as usize..info_end as usize,
        )
    }

    /// The length of document `i`'s text in bytes, without reading the text.
    pub fn text_len(&self, i: usize) -> usize {
        self.spans(i).0.len()
    }

    /// The bytes of the mapping that reading document `i`'s text can make resident: the 64 KiB
    /// windows it touches (see [`DocumentStore::release_past`]).
    pub(crate) fn text_window_bytes(&self, i: usize) -> u64 {
        let span = self.spans(i).0;
        mapped(span.start, span.end)
    }

    /// Hands the mapped pages of the texts and information back to the operating system once
    /// more than `bytes` of them were read ([`DocumentStore::text`], [`DocumentStore::info`];
    /// each read counted as the 64 KiB windows of the file the system maps in around it)
    /// since the last time: a bound on how much of the store stays resident. Texts borrowed
    /// before stay valid (their pages are read again from the file when touched). Does nothing
    /// where the system has no `madvise` (Windows).
    pub fn release_past(&self, bytes: u64) {
        if self.read.load(Ordering::Relaxed) <= bytes {
            return;
        }
        // One thread releases; the others go on reading.
        if self.read.swap(0, Ordering::Relaxed) <= bytes {
            return;
        }
        self.releases.fetch_add(1, Ordering::Relaxed);
        #[cfg(unix)]
        for map in [&self.map, &self.info].into_iter().flatten() {
            // SAFETY: MADV_DONTNEED on a shared, read-only mapping of a file that is never
            // written again drops the pages from this process only: the next read of an
            // address faults the same bytes in again from the file, so every `&str` handed
            // out stays valid and unchanged. A failure only leaves the pages resident.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }

    /// How many times [`DocumentStore::release_past`] handed the pages back.
    pub fn releases(&self) -> u64 {
        self.releases.load(Ordering::Relaxed)
    }

    /// Document `i`'s text.
    ///
    /// # Panics
    ///
    /// When the offsets are on disk ([`DocumentStoreBuilder::max_offsets_memory`]) and their
    /// temporary file cannot be read.
    pub fn text(&self, i: usize) -> &str {
        let Range { start, end } = self.spans(i).0;
        self.read.fetch_add(mapped(start, end), Ordering::Relaxed);
        let bytes = self.map.as_deref().map_or(&[][..], |m| &m[start..end]);
        // SAFETY: the file holds the UTF-8 texts of `String`s back to back, checked whole
        // when it was mapped, and `start..end` is one text's span (so on char boundaries); the
        // file is not written again (see `finish`).
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// Document `i`'s id, title, provenance and links, read from disk (its `text` is empty:
    /// see [`DocumentStore::text`]).
    ///
    /// # Panics
    ///
    /// As [`DocumentStore::text`].
    pub fn info(&self, i: usize) -> Document {
        let Range { start, end } = self.spans(i).1;
        self.read.fetch_add(mapped(start, end), Ordering::Relaxed);
        let bytes = self.info.as_deref().map_or(&[][..], |m| &m[start..end]);
        decode_info(bytes, &self.sources)
            .expect("the store's own information file holds what push wrote")
    }
}

/// A string's length before it (`u32::MAX` for none), then its bytes.
fn put_str(out: &mut Vec<u8>, s: Option<&str>) -> io::Result<()> {
    match s {
        None => out.extend_from_slice(&u32::MAX.to_le_bytes()),
        Some(s) => {
            let len = u32::try_from(s.len())
                .ok()
                .filter(|&n| n < u32::MAX)
                .ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "an id or title of 4 GiB or more",
                    )
                })?;
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
    }
    Ok(())
}

fn put_number(out: &mut Vec<u8>, n: Option<u64>) {
    match n {
        None => out.push(0),
        Some(n) => {
            out.push(1);
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
}

/// A document's id, title and provenance as bytes, its input named by `source`, a number in
/// the store's list of inputs.
fn encode_info(doc: &Document, source: Option<u32>, out: &mut Vec<u8>) -> io::Result<()> {
    match &doc.id {
        DocId::Int(n) => {
            out.push(0);
            out.extend_from_slice(&n.to_le_bytes());
        }
        DocId::Str(s) => {
            out.push(1);
            put_str(out, Some(s))?;
        }
    }
    put_str(out, Some(&doc.title))?;
    out.extend_from_slice(&source.unwrap_or(u32::MAX).to_le_bytes());
    put_number(out, doc.origin.record);
    put_number(out, doc.origin.revision);
    put_str(out, doc.origin.timestamp.as_deref())?;
    put_str(out, doc.origin.url.as_deref())?;
    match &doc.links {
        None => out.extend_from_slice(&u32::MAX.to_le_bytes()),
        Some(links) => {
            // Readers bound a document's links (MAX_LINKS); a program's own may not be.
            let n = u32::try_from(links.len())
                .ok()
                .filter(|&n| n < u32::MAX)
                .ok_or_else(|| {
                    io::Error::new(io::ErrorKind::InvalidInput, "4 billion links or more")
                })?;
            out.extend_from_slice(&n.to_le_bytes());
            for link in links {
                put_str(out, Some(&link.target))?;
                put_number(out, link.span.as_ref().map(|s| s.start as u64));
                put_number(out, link.span.as_ref().map(|s| s.end as u64));
            }
        }
    }
    Ok(())
}

/// What [`encode_info`] wrote (`None` for bytes it did not write).
fn decode_info(mut bytes: &[u8], sources: &[Arc<str>]) -> Option<Document> {
    fn take<'b>(bytes: &mut &'b [u8], n: usize) -> Option<&'b [u8]> {
        let (head, rest) = (bytes.get(..n)?, bytes.get(n..)?);
        *bytes = rest;
        Some(head)
    }
    fn u32_at(bytes: &mut &[u8]) -> Option<u32> {
        Some(u32::from_le_bytes(take(bytes, 4)?.try_into().ok()?))
    }
    fn string<'b>(bytes: &mut &'b [u8]) -> Option<Option<&'b str>> {
        match u32_at(bytes)? {
            u32::MAX => Some(None),
            n => std::str::from_utf8(take(bytes, n as usize)?).ok().map(Some),
        }
    }
    fn number(bytes: &mut &[u8]) -> Option<Option<u64>> {
        match take(bytes, 1)?[0] {
            0 => Some(None),
            _ => Some(Some(u64::from_le_bytes(take(bytes, 8)?.try_into().ok()?))),
        }
    }
    let id = match take(&mut bytes, 1)?[0] {
        0 => DocId::Int(i128::from_le_bytes(take(&mut bytes, 16)?.try_into().ok()?)),
        _ => DocId::from(string(&mut bytes)??),
    };
    let title = string(&mut bytes)??.to_string();
    let source = match u32_at(&mut bytes)? {
        u32::MAX => None,
        n => Some(sources.get(n as usize)?.clone()),
    };
    let record = number(&mut bytes)?;
    let revision = number(&mut bytes)?;
    let timestamp = string(&mut bytes)?.map(Arc::from);
    let url = string(&mut bytes)?.map(Arc::from);
    let links = match u32_at(&mut bytes)? {
        u32::MAX => None,
        n => {
            let mut links = Vec::with_capacity((n as usize).min(MAX_LINKS));
            for _ in 0..n {
                let target = string(&mut bytes)??.to_string();
                let span = match (number(&mut bytes)?, number(&mut bytes)?) {
                    (Some(start), Some(end)) => Some(start as usize..end as usize),
                    _ => None,
                };
                links.push(Link { target, span });
            }
            Some(links)
        }
    };
    Some(Document {
        id,
        title,
        text: String::new(),
        origin: Origin {
            source,
            record,
            revision,
            timestamp,
            url,
        },
        links,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_checked_across_windows() {
        let map = |bytes: &[u8]| {
            let mut f = tempfile::tempfile().unwrap();
            f.write_all(bytes).unwrap();
            unsafe { Mmap::map(&f) }.unwrap()
        };
        // A two-byte character across the first window's end.
        let mut bytes = vec![b'a'; (8 << 20) - 1];
        bytes.extend_from_slice("é and more".as_bytes());
        assert!(valid_utf8(&map(&bytes)));
        bytes.push(0xff);
        assert!(!valid_utf8(&map(&bytes)));
        // Cut at the end of the file.
        assert!(!valid_utf8(&map(&"é".as_bytes()[..1])));
    }

    #[test]
    fn reads_count_the_windows_they_map() {
        assert_eq!(mapped(0, 10), 64 << 10);
        assert_eq!(mapped(10, 10), 64 << 10);
        assert_eq!(mapped((64 << 10) - 1, (64 << 10) + 1), 128 << 10);
        assert_eq!(mapped(0, 64 << 10), 64 << 10);
    }

    #[test]
    fn ids_titles_and_provenance_come_back() {
        let mut docs = vec![
            Document::new(-7i64, "", "first"),
            Document::new("page-x", "Ünïcode title", ""),
            Document::new(u64::MAX, "Bees", "Bees store honey."),
        ];
        let input: Arc<str> = Arc::from("corpus/part-1.jsonl");
        docs[0].origin = Origin {
            source: Some(input.clone()),
            record: Some(3),
            revision: None,
            timestamp: None,
            url: None,
        };
        docs[2].origin = Origin {
            source: Some(input.clone()),
            record: None,
            revision: Some(123_456),
            timestamp: Some(Arc::from("2016-08-01T12:00:00Z")),
            url: Some(Arc::from("https://example.org/bees")),
        };
        docs[2].links = Some(vec![
            Link::new("https://en.wikipedia.org/wiki/Honey_bee"),
            Link {
                target: "https://example.org/".into(),
                span: Some(3..9),
            },
        ]);
        docs[1].links = Some(Vec::new());
        let mut store = DocumentStoreBuilder::new(None::<&Path>).unwrap();
        for d in &docs {
            store.push(d.clone()).unwrap();
        }
        let store = store.finish().unwrap();
        assert_eq!(store.len(), 3);
        // Each input name is kept once.
        assert_eq!(store.sources.len(), 1);
        for (i, d) in docs.iter().enumerate() {
            assert_eq!(store.text(i), d.text);
            let info = store.info(i);
            assert_eq!(
                info,
                Document {
                    text: String::new(),
                    ..d.clone()
                }
            );
        }
        // Shared, not copied per document.
        assert!(Arc::ptr_eq(
            store.info(2).origin.source.as_ref().unwrap(),
            &input
        ));
    }

    /// Past their share the offsets go to a file, and every text and information read gives
    /// what it gave from memory.
    #[test]
    fn offsets_on_disk_read_the_same_documents() {
        let docs: Vec<Document> = (0..300)
            .map(|i| Document::new(i, format!("Title {i}"), "word ".repeat(i as usize % 7)))
            .collect();
        let build = |share: u64| {
            let mut store = DocumentStoreBuilder::new(None::<&Path>).unwrap();
            store.max_offsets_memory(share);
            for d in &docs {
                store.push(d.clone()).unwrap();
            }
            assert_eq!(store.offsets_on_disk(), share < 300 * 16);
            store.finish().unwrap()
        };
        let (memory, partly, disk) = (build(u64::MAX), build(100 * 16), build(0));
        assert!(!memory.offsets_on_disk() && partly.offsets_on_disk() && disk.offsets_on_disk());
        for (i, d) in docs.iter().enumerate() {
            for store in [&memory, &partly, &disk] {
                assert_eq!(store.text(i), d.text);
                assert_eq!(store.text_len(i), d.text.len());
                assert_eq!(store.info(i).title, d.title);
                assert_eq!(store.text_window_bytes(i), memory.text_window_bytes(i));
            }
        }
    }
}
