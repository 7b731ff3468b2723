//! Segments: the immutable, memory-mapped files an index is made of, the in-memory batch that
//! becomes the next one, and the writer both go through.
//!
//! A segment file is little-endian, every section 8-byte aligned:
//!
//! | section | contents |
//! |---|---|
//! | header | magic `TRIXSEG1`, then 16 `u64`: docs, entries, pairs, directory bits `b`, hashes, signature bytes, bands, the offsets of the sections below, file length |
//! | directory | `2^b + 1` `u32`: where each bucket of band keys starts among the pairs |
//! | pairs | one `u64` per (entry, band): bits 16..48 of the band key above, the entry below; sorted |
//! | signatures | per entry, its `N` minhashes, each cut to its low `signature bytes` |
//! | entries | per entry, `u32` document, `u32` start and end (characters) |
//! | documents | the records of `doc.rs`, then `docs + 1` `u64` offsets |
//! | ids | the documents' id hashes, sorted `u64`; then the document of each, `u32` |
//!
//! A band key's bucket is its top `b` bits (`b >= 16`), so the directory and the pair's 32
//! bits together hold the key's top 48 bits: two keys are the same key when those agree. A
//! wrong match needs two of the `2^48` prefixes to meet, about `pairs / 2^48` per lookup (below
//! `10^-5` even for a billion pairs), and then only adds a candidate of low estimated
//! similarity.
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use ahash::RandomState;
use memmap2::Mmap;
use textreuse_corpus::Document;

use crate::Error;
use crate::doc::{self, StoredDoc};

const MAGIC: &[u8; 8] = b"TRIXSEG1";
const HEADER_FIELDS: usize = 16;
const HEADER_LEN: u64 = 8 + 8 * HEADER_FIELDS as u64;
/// The smallest directory: 2^16 buckets (256 KiB), so a bucket and a pair's 32 bits always
/// cover the key's top 48 bits.
const MIN_DIR_BITS: u32 = 16;
const MAX_DIR_BITS: u32 = 30;
/// Bits of a band key that identify it.
pub(crate) const KEY_MASK: u64 = !0xFFFF;

/// The directory bits of a segment of `pairs` pairs: about 4 pairs per bucket.
pub(crate) fn dir_bits(pairs: u64) -> u32 {
    let log = 64 - (pairs / 4).max(1).leading_zeros() - 1;
    log.clamp(MIN_DIR_BITS, MAX_DIR_BITS)
}

fn bucket(key48: u64, bits: u32) -> usize {
    (key48 >> (64 - bits)) as usize
}

/// The first `i` in `0..n` where `pred(i)` is false (`pred` true on a prefix, false after).
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn le_u32(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"))
}

/// Whether two signatures cut to `width` bytes per minhash agree, minhash by minhash: the
/// number of equal minhashes.
pub(crate) fn equal_minhashes(stored: &[u8], mins: &[u64], width: usize) -> usize {
    stored
        .chunks_exact(width)
        .zip(mins)
        .filter(|(s, m)| *s == &m.to_le_bytes()[..width])
        .count()
}

/// What a query reads of an entry's home: a committed [`Segment`] or the uncommitted [`Batch`].
pub(crate) trait Part {
    /// Appends the entries under band key `key` to `out`.
    fn lookup(&self, key: u64, out: &mut Vec<u32>);
    /// How many entries are under band key `key` (removed documents' entries included until
    /// a compaction drops them), without reading them.
    fn key_len(&self, key: u64) -> usize;
    /// The stored signature of `entry`.
    fn signature(&self, entry: u32) -> &[u8];
    /// The document, start and end of `entry`.
    fn entry(&self, entry: u32) -> [u32; 3];
    /// Whether document `doc` was removed.
    fn deleted(&self, doc: u32) -> bool;
    /// The record of `doc`.
    fn doc(&self, doc: u32) -> Result<StoredDoc<'_>, Error>;
    /// The documents whose id hash is `hash`.
    fn docs_with_id(&self, hash: u64, out: &mut Vec<u32>);
    /// Documents and entries.
    fn counts(&self) -> (u64, u64);
}

/// The uncommitted entries of a writer: what the next commit writes as a segment.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    pub bands: usize,
    pub width: usize,
    /// `bands` band keys per entry.
    pub keys: Vec<u64>,
    /// `hashes × width` bytes per entry.
    pub sigs: Vec<u8>,
    pub ents: Vec<[u32; 3]>,
    pub doc_bytes: Vec<u8>,
    /// Start of each document's record in `doc_bytes`, and the end.
    pub doc_offs: Vec<u64>,
    pub id_hashes: Vec<u64>,
    pub deleted: Vec<bool>,
    /// Band key -> entries, built when the batch is first queried and kept up to date after.
    lookup: Option<HashMap<u64, Vec<u32>, RandomState>>,
    /// Id hash -> documents, likewise.
    ids: Option<HashMap<u64, Vec<u32>, RandomState>>,
}

impl Batch {
    pub(crate) fn new(bands: usize, width: usize) -> Batch {
        Batch {
            bands,
            width,
            doc_offs: vec![0],
            ..Batch::default()
        }
    }

    pub(crate) fn docs(&self) -> usize {
        self.id_hashes.len()
    }

    pub(crate) fn entries(&self) -> usize {
        self.ents.len()
    }

    /// Bytes held in memory.
    pub(crate) fn bytes(&self) -> u64 {
        let maps = |m: &Option<HashMap<u64, Vec<u32>, RandomState>>| {
            m.as_ref().map_or(0, |m| m.len() as u64 * 48)
        };
        (self.keys.len() * 8
            + self.sigs.len()
            + self.ents.len() * 12
            + self.doc_bytes.len()
            + self.doc_offs.len() * 8
            + self.id_hashes.len() * 9) as u64
            + maps(&self.lookup)
            + maps(&self.ids)
    }

    /// Adds the record of `doc` (with its text when `text` is true), encoded in place; returns
    /// its number in the batch.
    pub(crate) fn push_doc(&mut self, doc: &Document, text: bool) -> u32 {
        let id_hash = doc::id_hash(&doc.id);
        let d = self.id_hashes.len() as u32;
        doc::encode(doc, text, &mut self.doc_bytes);
        self.doc_offs.push(self.doc_bytes.len() as u64);
        self.id_hashes.push(id_hash);
        self.deleted.push(false);
        if let Some(ids) = &mut self.ids {
            ids.entry(id_hash).or_default().push(d);
        }
        d
    }

    /// The removed documents of the batch, ascending.
    pub(crate) fn removed_docs(&self) -> Vec<u32> {
        (0..self.docs() as u32)
            .filter(|&d| self.deleted[d as usize])
            .collect()
    }

    /// Adds an entry of document `doc`.
    pub(crate) fn push_entry(&mut self, doc: u32, chars: [u32; 2], mins: &[u64], keys: &[u64]) {
        let entry = self.ents.len() as u32;
        self.ents.push([doc, chars[0], chars[1]]);
        for m in mins {
            self.sigs.extend_from_slice(&m.to_le_bytes()[..self.width]);
        }
        self.keys.extend_from_slice(keys);
        if let Some(lookup) = &mut self.lookup {
            for &k in keys {
                lookup.entry(k & KEY_MASK).or_default().push(entry);
            }
        }
    }

    /// Builds the band-key lookup map, for queries (once; kept up to date after).
    pub(crate) fn index_keys(&mut self) {
        if self.lookup.is_none() {
            let mut lookup: HashMap<u64, Vec<u32>, RandomState> = HashMap::default();
            for (i, k) in self.keys.iter().enumerate() {
                lookup
                    .entry(k & KEY_MASK)
                    .or_default()
                    .push((i / self.bands) as u32);
            }
            self.lookup = Some(lookup);
        }
    }

    /// Builds the id lookup map, for `contains` and `remove` (once; kept up to date after).
    pub(crate) fn index_ids(&mut self) {
        if self.ids.is_none() {
            let mut ids: HashMap<u64, Vec<u32>, RandomState> = HashMap::default();
            for (d, &h) in self.id_hashes.iter().enumerate() {
                ids.entry(h).or_default().push(d as u32);
            }
            self.ids = Some(ids);
        }
    }

    /// The band-key pairs sorted as a segment stores them, as `(key48, entry)` in order, for a
    /// segment of `bits` directory bits. Counting sort by bucket, then each bucket sorted.
    fn sorted_pairs(&self, bits: u32) -> (Vec<u32>, Vec<u64>) {
        let mut starts = vec![0u32; (1usize << bits) + 1];
        for &k in &self.keys {
            starts[bucket(k, bits) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut pos = starts.clone();
        let mut pairs = vec![0u64; self.keys.len()];
        for (i, &k) in self.keys.iter().enumerate() {
            let b = bucket(k, bits);
            pairs[pos[b] as usize] = ((k >> 16) & 0xFFFF_FFFF) << 32 | (i / self.bands) as u64;
            pos[b] += 1;
        }
        drop(pos);
        for b in 0..starts.len() - 1 {
            pairs[starts[b] as usize..starts[b + 1] as usize].sort_unstable();
        }
        (starts, pairs)
    }

    /// Writes the batch as a segment at `path`.
    pub(crate) fn write(&self, path: &Path, hashes: usize) -> Result<SegmentInfo, Error> {
        let pairs = self.keys.len() as u64;
        let bits = dir_bits(pairs);
        let mut w = SegmentWriter::create(
            path,
            Shape {
                docs: self.docs() as u64,
                entries: self.entries() as u64,
                pairs,
                bits,
                hashes,
                width: self.width,
                bands: self.bands,
            },
        )?;
        let (starts, sorted) = self.sorted_pairs(bits);
        for b in 0..starts.len() - 1 {
            let high = (b as u64) << (64 - bits);
            for &p in &sorted[starts[b] as usize..starts[b + 1] as usize] {
                w.pair(high | (p >> 32) << 16, p as u32)?;
            }
        }
        drop(sorted);
        w.end_pairs()?;
        w.bytes(&self.sigs)?;
        for e in &self.ents {
            w.entry(*e)?;
        }
        for d in 0..self.docs() {
            w.doc(&self.doc_bytes[self.doc_offs[d] as usize..self.doc_offs[d + 1] as usize])?;
        }
        let mut ids: Vec<(u64, u32)> = self
            .id_hashes
            .iter()
            .enumerate()
            .map(|(d, &h)| (h, d as u32))
            .collect();
        ids.sort_unstable();
        w.finish(&ids)
    }
}

impl Part for Batch {
    fn lookup(&self, key: u64, out: &mut Vec<u32>) {
        let lookup = self
            .lookup
            .as_ref()
            .expect("Batch::index_keys before queries");
        if let Some(v) = lookup.get(&(key & KEY_MASK)) {
            out.extend_from_slice(v);
        }
    }

    fn key_len(&self, key: u64) -> usize {
        let lookup = self
            .lookup
            .as_ref()
            .expect("Batch::index_keys before queries");
        lookup.get(&(key & KEY_MASK)).map_or(0, Vec::len)
    }

    fn signature(&self, entry: u32) -> &[u8] {
        let n = self.sigs.len() / self.ents.len().max(1);
        &self.sigs[entry as usize * n..(entry as usize + 1) * n]
    }

    fn entry(&self, entry: u32) -> [u32; 3] {
        self.ents[entry as usize]
    }

    fn deleted(&self, doc: u32) -> bool {
        self.deleted[doc as usize]
    }

    fn doc(&self, d: u32) -> Result<StoredDoc<'_>, Error> {
        let (a, b) = (self.doc_offs[d as usize], self.doc_offs[d as usize + 1]);
        Ok(doc::decode(&self.doc_bytes[a as usize..b as usize]).expect("records we encoded"))
    }

    fn docs_with_id(&self, hash: u64, out: &mut Vec<u32>) {
        let ids = self.ids.as_ref().expect("Batch::index_ids before lookups");
        if let Some(v) = ids.get(&hash) {
            out.extend_from_slice(v);
        }
    }

    fn counts(&self) -> (u64, u64) {
        (self.docs() as u64, self.entries() as u64)
    }
}

/// The sizes fixed when a segment file is started.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub docs: u64,
    pub entries: u64,
    pub pairs: u64,
    pub bits: u32,
    pub hashes: usize,
    pub width: usize,
    pub bands: usize,
}

/// What a written segment holds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SegmentInfo {
    pub docs: u64,
    pub entries: u64,
    pub pairs: u64,
    pub bytes: u64,
}

/// Writes one segment file, section by section (pairs in sorted order first).
pub(crate) struct SegmentWriter {
    path: PathBuf,
    out: BufWriter<File>,
    shape: Shape,
    dir: Vec<u32>,
    pairs_written: u64,
    last_pair: (u64, u32),
    offsets: [u64; 8],
    pos: u64,
    doc_offs: Vec<u64>,
    docs_start: u64,
}

impl SegmentWriter {
    pub(crate) fn create(path: &Path, shape: Shape) -> Result<SegmentWriter, Error> {
        let io = |e| Error::io(path, e);
        if shape.docs >= u32::MAX as u64 {
            return Err(Error::TooLarge("documents"));
        }
        if shape.entries >= u32::MAX as u64 {
            return Err(Error::TooLarge("entries"));
        }
        if shape.pairs >= u32::MAX as u64 {
            return Err(Error::TooLarge("band-key records"));
        }
        let file = File::create(path).map_err(io)?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let dir_len = ((1u64 << shape.bits) + 1) * 4;
        let dir_start = HEADER_LEN;
        // Header and directory are written last; reserve them.
        out.seek(SeekFrom::Start(dir_start + pad8(dir_len)))
            .map_err(io)?;
        let mut offsets = [0; 8];
        offsets[0] = dir_start;
        offsets[1] = dir_start + pad8(dir_len);
        Ok(SegmentWriter {
            path: path.to_path_buf(),
            out,
            shape,
            dir: vec![0; (1usize << shape.bits) + 1],
            pairs_written: 0,
            last_pair: (0, 0),
            offsets,
            pos: offsets[1],
            doc_offs: Vec::new(),
            docs_start: 0,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.out
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        self.pos += bytes.len() as u64;
        Ok(())
    }

    fn align(&mut self) -> Result<(), Error> {
        let pad = pad8(self.pos) - self.pos;
        self.write(&[0u8; 8][..pad as usize])
    }

    /// The next pair, in `(key48, entry)` order.
    pub(crate) fn pair(&mut self, key48: u64, entry: u32) -> Result<(), Error> {
        debug_assert!(self.pairs_written == 0 || (key48, entry) > self.last_pair);
        self.last_pair = (key48, entry);
        self.dir[bucket(key48, self.shape.bits) + 1] += 1;
        self.pairs_written += 1;
        let v = ((key48 >> 16) & 0xFFFF_FFFF) << 32 | entry as u64;
        self.write(&v.to_le_bytes())
    }

    pub(crate) fn end_pairs(&mut self) -> Result<(), Error> {
        assert_eq!(self.pairs_written, self.shape.pairs, "pairs written");
        self.offsets[2] = self.pos;
        Ok(())
    }

    /// Signature bytes, in entry order.
    pub(crate) fn bytes(&mut self, b: &[u8]) -> Result<(), Error> {
        self.write(b)
    }

    /// Starts the entries section, once (after the signatures).
    fn start_entries(&mut self) -> Result<(), Error> {
        if self.offsets[3] == 0 {
            self.align()?;
            self.offsets[3] = self.pos;
        }
        Ok(())
    }

    /// Starts the documents section, once (after the entries).
    fn start_docs(&mut self) -> Result<(), Error> {
        self.start_entries()?;
        if self.doc_offs.is_empty() {
            self.align()?;
            self.docs_start = self.pos;
            self.offsets[4] = self.pos;
            self.doc_offs.push(0);
        }
        Ok(())
    }

    /// The next entry (the signatures are all written before the first).
    pub(crate) fn entry(&mut self, e: [u32; 3]) -> Result<(), Error> {
        self.start_entries()?;
        let mut b = [0u8; 12];
        for (i, v) in e.iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        self.write(&b)
    }

    /// The next document record (the entries are all written before the first).
    pub(crate) fn doc(&mut self, record: &[u8]) -> Result<(), Error> {
        self.start_docs()?;
        self.write(record)?;
        self.doc_offs.push(self.pos - self.docs_start);
        Ok(())
    }

    /// Writes the offsets, the id table, the directory and the header, and syncs the file.
    pub(crate) fn finish(mut self, ids: &[(u64, u32)]) -> Result<SegmentInfo, Error> {
        self.start_docs()?;
        self.align()?;
        self.offsets[5] = self.pos;
        let offs = std::mem::take(&mut self.doc_offs);
        assert_eq!(offs.len() as u64, self.shape.docs + 1, "documents written");
        for o in &offs {
            self.write(&o.to_le_bytes())?;
        }
        self.offsets[6] = self.pos;
        for (h, _) in ids {
            self.write(&h.to_le_bytes())?;
        }
        self.offsets[7] = self.pos;
        for (_, d) in ids {
            self.write(&d.to_le_bytes())?;
        }
        self.align()?;
        let len = self.pos;
        for i in 1..self.dir.len() {
            self.dir[i] += self.dir[i - 1];
        }
        let path = self.path.clone();
        let io = |e| Error::io(&path, e);
        let mut header = Vec::with_capacity(HEADER_LEN as usize);
        header.extend_from_slice(MAGIC);
        let s = self.shape;
        for v in [
            s.docs,
            s.entries,
            s.pairs,
            s.bits as u64,
            s.hashes as u64,
            s.width as u64,
            s.bands as u64,
        ]
        .into_iter()
        .chain(self.offsets)
        .chain([len])
        {
            header.extend_from_slice(&v.to_le_bytes());
        }
        debug_assert_eq!(header.len() as u64, HEADER_LEN);
        let mut dir = Vec::with_capacity(self.dir.len() * 4);
        for d in &self.dir {
            dir.extend_from_slice(&d.to_le_bytes());
        }
        self.out.seek(SeekFrom::Start(0)).map_err(io)?;
        self.out.write_all(&header).map_err(io)?;
        self.out.write_all(&dir).map_err(io)?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&path, e.into_error()))?;
        file.sync_all().map_err(io)?;
        Ok(SegmentInfo {
            docs: s.docs,
            entries: s.entries,
            pairs: s.pairs,
            bytes: len,
        })
    }
}

fn pad8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

/// A committed segment, memory-mapped.
#[derive(Debug)]
pub(crate) struct Segment {
    path: PathBuf,
    map: Mmap,
    pub docs: u64,
    pub entries: u64,
    pub pairs: u64,
    bits: u32,
    pub hashes: usize,
    pub width: usize,
    pub bands: usize,
    off: [usize; 9],
    /// One bit per document: removed.
    deleted: Vec<u64>,
    pub deleted_docs: u64,
}

impl Segment {
    /// Maps the segment file `path`.
    pub(crate) fn open(path: &Path) -> Result<Segment, Error> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: segment files are never modified after they are committed (a new segment or
        // deletion file is written instead), so the map's contents cannot change under us. A
        // user truncating the file by hand would make reads fault, as with any mapped file.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        // Queries read a few scattered pages: no read-ahead, no mapping of the pages around a
        // fault (which would read and map most of a large index after a few thousand queries).
        // Only advice: an error changes nothing but speed.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let bad = |what: &str| Error::corrupt(path, what);
        if map.len() < HEADER_LEN as usize || &map[..8] != MAGIC {
            return Err(bad("not a segment file (bad magic)"));
        }
        let h: Vec<u64> = (0..HEADER_FIELDS).map(|i| le_u64(&map[8..], i)).collect();
        let (docs, entries, pairs, bits, hashes, width, bands) =
            (h[0], h[1], h[2], h[3] as u32, h[4], h[5], h[6]);
        if h[15] != map.len() as u64 {
            return Err(bad("truncated (length differs from the header)"));
        }
        if !(MIN_DIR_BITS..=MAX_DIR_BITS).contains(&bits) || ![1, 2, 4, 8].contains(&width) {
            return Err(bad("bad header"));
        }
        let mut off = [0usize; 9];
        for i in 0..8 {
            off[i] = h[7 + i] as usize;
        }
        off[8] = map.len();
        // Damaged counts can be anything: the sizes they imply are computed without overflow
        // (None: larger than any file).
        let need = [
            Some(((1u64 << bits) + 1) * 4),
            pairs.checked_mul(8),
            entries
                .checked_mul(hashes)
                .and_then(|n| n.checked_mul(width)),
            entries.checked_mul(12),
            Some(0),
            docs.checked_add(1).and_then(|n| n.checked_mul(8)),
            docs.checked_mul(8),
            docs.checked_mul(4),
        ];
        for i in 0..8 {
            if off[i] > off[i + 1]
                || need[i].is_none_or(|need| ((off[i + 1] - off[i]) as u64) < need)
            {
                return Err(bad("section sizes disagree with the header"));
            }
        }
        let seg = Segment {
            path: path.to_path_buf(),
            map,
            docs,
            entries,
            pairs,
            bits,
            hashes: hashes as usize,
            width: width as usize,
            bands: bands as usize,
            off,
            deleted: vec![0; (docs as usize).div_ceil(64)],
            deleted_docs: 0,
        };
        if seg.dir(1 << bits) as u64 != pairs {
            return Err(bad("directory does not add up to the pairs"));
        }
        Ok(seg)
    }

    /// Tells the OS the segment is about to be read from start to end (a merge).
    pub(crate) fn read_sequentially(&self) {
        #[cfg(unix)]
        let _ = self.map.advise(memmap2::Advice::Sequential);
    }

    fn section(&self, i: usize) -> &[u8] {
        &self.map[self.off[i]..self.off[i + 1]]
    }

    fn dir(&self, b: usize) -> u32 {
        le_u32(self.section(0), b)
    }

    /// The positions in the pair section of the pairs under band key `key` (pairs are sorted by
    /// key, then entry). Buckets hold about 4 pairs, but repeated text puts thousands under one
    /// key: binary searches keep a lookup logarithmic in the bucket.
    fn key_range(&self, key: u64) -> std::ops::Range<usize> {
        let b = bucket(key, self.bits);
        let want = (key >> 16) & 0xFFFF_FFFF;
        // A damaged directory may point anywhere: clamped, it gives wrong answers, not a panic.
        let hi = (self.dir(b + 1) as usize).min(self.pairs as usize);
        let lo = (self.dir(b) as usize).min(hi);
        let pairs = self.section(1);
        let below = |i: usize, inclusive: bool| {
            let k = le_u64(pairs, i) >> 32;
            k < want || (inclusive && k == want)
        };
        let first = lo + partition_point(hi - lo, |i| below(lo + i, false));
        let end = first + partition_point(hi - first, |i| below(first + i, true));
        first..end
    }

    /// The pairs of bucket `b` (as stored).
    fn bucket_pairs(&self, b: usize) -> impl Iterator<Item = u64> + '_ {
        let (lo, hi) = (self.dir(b) as usize, self.dir(b + 1) as usize);
        let pairs = self.section(1);
        (lo..hi.min(self.pairs as usize)).map(move |i| le_u64(pairs, i))
    }

    /// Every pair as `(key48, entry)`, in order.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        (0..1usize << self.bits).flat_map(move |b| {
            let high = (b as u64) << (64 - self.bits);
            self.bucket_pairs(b)
                .map(move |p| (high | (p >> 32) << 16, p as u32))
        })
    }

    pub(crate) fn signature_bytes(&self) -> &[u8] {
        &self.section(2)[..(self.entries as usize * self.hashes * self.width)]
    }

    pub(crate) fn doc_record(&self, d: u32) -> Result<&[u8], Error> {
        let offs = self.section(5);
        let (a, b) = (le_u64(offs, d as usize), le_u64(offs, d as usize + 1));
        let docs = self.section(4);
        docs.get(a as usize..b as usize)
            .ok_or_else(|| Error::corrupt(&self.path, "document offsets out of range"))
    }

    /// The id hashes with their documents, in document order.
    pub(crate) fn ids_by_doc(&self) -> Vec<u64> {
        let mut out = vec![0; self.docs as usize];
        let (h, d) = (self.section(6), self.section(7));
        for i in 0..self.docs as usize {
            out[le_u32(d, i) as usize] = le_u64(h, i);
        }
        out
    }

    /// Marks `doc` removed; returns whether it was live.
    pub(crate) fn delete(&mut self, doc: u32) -> bool {
        let (w, b) = (doc as usize / 64, doc % 64);
        let live = self.deleted[w] & (1 << b) == 0;
        if live {
            self.deleted[w] |= 1 << b;
            self.deleted_docs += 1;
        }
        live
    }

    /// The removed documents, ascending.
    pub(crate) fn deleted_list(&self) -> Vec<u32> {
        (0..self.docs as u32)
            .filter(|&d| Part::deleted(self, d))
            .collect()
    }
}

impl Part for Segment {
    fn lookup(&self, key: u64, out: &mut Vec<u32>) {
        let pairs = self.section(1);
        out.extend(self.key_range(key).map(|i| le_u64(pairs, i) as u32));
    }

    fn key_len(&self, key: u64) -> usize {
        self.key_range(key).len()
    }

    fn signature(&self, entry: u32) -> &[u8] {
        let n = self.hashes * self.width;
        &self.section(2)[entry as usize * n..(entry as usize + 1) * n]
    }

    fn entry(&self, entry: u32) -> [u32; 3] {
        let s = self.section(3);
        let i = entry as usize * 3;
        [le_u32(s, i), le_u32(s, i + 1), le_u32(s, i + 2)]
    }

    fn deleted(&self, doc: u32) -> bool {
        self.deleted[doc as usize / 64] & (1 << (doc % 64)) != 0
    }

    fn doc(&self, d: u32) -> Result<StoredDoc<'_>, Error> {
        let record = self.doc_record(d)?;
        doc::decode(record).ok_or_else(|| Error::corrupt(&self.path, "bad document record"))
    }

    fn docs_with_id(&self, hash: u64, out: &mut Vec<u32>) {
        let (h, d) = (self.section(6), self.section(7));
        let n = self.docs as usize;
        // First index with hash >= `hash`.
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if le_u64(h, mid) < hash {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        while lo < n && le_u64(h, lo) == hash {
            out.push(le_u32(d, lo));
            lo += 1;
        }
    }

    fn counts(&self) -> (u64, u64) {
        (self.docs, self.entries)
    }
}
