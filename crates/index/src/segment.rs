//! Segments: the immutable, memory-mapped files an index is made of, the in-memory batch that
//! becomes the next one, and the writer both go through.
//!
//! A segment file is little-endian, every section 8-byte aligned:
//!
//! | section | contents |
//! |---|---|
//! | header | magic `TRIXSEG2`, then 22 `u64`: docs, entries, pairs, directory bits `b`, hashes, signature bytes, bands, the offsets of the 8 sections below, of the checksum table and the file length, the index id, the fingerprint of its parameters, the segment's number, the table's fingerprint and the header's (of the bytes before it); zeros to 4 KiB |
//! | directory | `2^b + 1` `u32`: where each bucket of band keys starts among the pairs; zeros to the next 4 KiB |
//! | pairs | one `u64` per (entry, band): bits 16..48 of the band key above, the entry below; sorted |
//! | signatures | per entry, its `N` minhashes, each cut to its low `signature bytes` |
//! | entries | per entry, `u32` document, `u32` start and end (characters) |
//! | documents | the records of `doc.rs`, then `docs + 1` `u64` offsets |
//! | ids | the documents' id hashes, sorted `u64`; then the document of each, `u32` |
//! | checksums | the [`fingerprint`](textreuse_hash::fingerprint) of every 4 KiB block from the directory to here (see [`blocks`](crate::blocks)) |
//!
//! The header names the index and the segment, so a file of another index, another
//! segment's file or one written with other parameters is refused when opened; the manifest
//! holds each segment's header fingerprint, which covers the whole file through the table.
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
use crate::blocks::{BLOCK, Blocks, table_sum};
use crate::doc::{self, StoredDoc};
use textreuse_hash::fingerprint;

const MAGIC: &[u8; 8] = b"TRIXSEG2";
/// The magic of the segments of the first format (no checksums, no identity).
const MAGIC_V1: &[u8; 8] = b"TRIXSEG1";
const HEADER_FIELDS: usize = 22;
const HEADER_LEN: u64 = 8 + 8 * HEADER_FIELDS as u64;
/// Where the checksummed data (the directory first) starts: the header has a block of its own.
const DATA_START: u64 = BLOCK as u64;
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

/// The sizes the index's parameters give each entry of every segment: checked in a segment's
/// header before anything is sized by them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Minhashes per signature.
    pub hashes: usize,
    /// Band keys per entry.
    pub bands: usize,
    /// Bytes kept of each minhash.
    pub width: usize,
}

/// What makes a segment file this index's: written into its header, checked when it is
/// opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ident {
    /// The index's id (made when it was created).
    pub index: u64,
    /// The fingerprint of its parameters.
    pub params: u64,
    /// The segment's number (`seg-000007.seg`: 7).
    pub number: u64,
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
    pub(crate) fn write(
        &self,
        path: &Path,
        hashes: usize,
        ident: Ident,
    ) -> Result<SegmentInfo, Error> {
        let pairs = self.keys.len() as u64;
        let bits = dir_bits(pairs);
        let mut w = SegmentWriter::create(
            path,
            ident,
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
    /// The header's fingerprint (the manifest keeps it).
    pub digest: u64,
}

/// Writes one segment file, section by section (pairs in sorted order first).
pub(crate) struct SegmentWriter {
    path: PathBuf,
    out: BufWriter<File>,
    shape: Shape,
    ident: Ident,
    /// The checksums of the blocks written so far after the directory, and the block being
    /// filled.
    sums: Vec<u64>,
    block: Vec<u8>,
    dir: Vec<u32>,
    pairs_written: u64,
    last_pair: (u64, u32),
    offsets: [u64; 8],
    pos: u64,
    doc_offs: Vec<u64>,
    docs_start: u64,
}

impl SegmentWriter {
    pub(crate) fn create(path: &Path, ident: Ident, shape: Shape) -> Result<SegmentWriter, Error> {
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
        // Header and directory are written last; reserve them. The pairs start on a block, so
        // that the directory's blocks and the streamed ones are checksummed separately.
        let pairs_start = DATA_START + pad_block(dir_len);
        out.seek(SeekFrom::Start(pairs_start)).map_err(io)?;
        let mut offsets = [0; 8];
        offsets[0] = DATA_START;
        offsets[1] = pairs_start;
        Ok(SegmentWriter {
            path: path.to_path_buf(),
            out,
            shape,
            ident,
            sums: Vec::new(),
            block: Vec::with_capacity(BLOCK),
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
        let mut rest = bytes;
        while !rest.is_empty() {
            let take = (BLOCK - self.block.len()).min(rest.len());
            self.block.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.block.len() == BLOCK {
                self.sums.push(fingerprint(&self.block));
                self.block.clear();
            }
        }
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
        if !self.block.is_empty() {
            self.sums.push(fingerprint(&self.block));
        }
        let sums_at = self.pos;
        for i in 1..self.dir.len() {
            self.dir[i] += self.dir[i - 1];
        }
        // The directory's blocks (zeros after it up to the pairs), then the streamed ones.
        let mut dir = Vec::with_capacity((self.offsets[1] - DATA_START) as usize);
        for d in &self.dir {
            dir.extend_from_slice(&d.to_le_bytes());
        }
        dir.resize((self.offsets[1] - DATA_START) as usize, 0);
        let mut sums = crate::blocks::block_sums(&dir);
        dir.truncate(self.dir.len() * 4);
        sums.append(&mut self.sums);
        let mut table = Vec::with_capacity(sums.len() * 8);
        for v in &sums {
            table.extend_from_slice(&v.to_le_bytes());
        }
        let path = self.path.clone();
        let io = |e| Error::io(&path, e);
        self.out.write_all(&table).map_err(io)?;
        let len = sums_at + table.len() as u64;
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
        .chain([
            sums_at,
            len,
            self.ident.index,
            self.ident.params,
            self.ident.number,
            table_sum(&sums),
        ]) {
            header.extend_from_slice(&v.to_le_bytes());
        }
        let digest = fingerprint(&header);
        header.extend_from_slice(&digest.to_le_bytes());
        debug_assert_eq!(header.len() as u64, HEADER_LEN);
        self.out.seek(SeekFrom::Start(0)).map_err(io)?;
        self.out.write_all(&header).map_err(io)?;
        self.out.seek(SeekFrom::Start(DATA_START)).map_err(io)?;
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
            digest,
        })
    }
}

fn pad8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

fn pad_block(n: u64) -> u64 {
    n.div_ceil(BLOCK as u64) * BLOCK as u64
}

/// Makes the checksums of the segment file `bytes` agree with its contents again, in place:
/// the block table where the header puts it (when a reader would read it there: the header's
/// table offset in the file and the table's size what its blocks need), the table's
/// fingerprint and the header's. Every other header field is left as it is, right or wrong.
/// Returns the header's new fingerprint (what the manifest keeps), or `None` when `bytes` is
/// not a segment of this format (too short for a header, or another magic).
///
/// For [`crate::fuzzing::reseal`]: changed bytes then reach the checks behind the checksums.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn reseal(bytes: &mut [u8]) -> Option<u64> {
    if bytes.len() < DATA_START as usize || &bytes[..8] != MAGIC {
        return None;
    }
    let len = bytes.len();
    let sums_at = le_u64(&bytes[8..], 15);
    if (DATA_START..=len as u64).contains(&sums_at) {
        let sums_at = sums_at as usize;
        let sums = crate::blocks::block_sums(&bytes[DATA_START as usize..sums_at]);
        if len - sums_at == 8 * sums.len() {
            for (i, s) in sums.iter().enumerate() {
                bytes[sums_at + 8 * i..sums_at + 8 * i + 8].copy_from_slice(&s.to_le_bytes());
            }
            let at = 8 + 8 * 20;
            bytes[at..at + 8].copy_from_slice(&table_sum(&sums).to_le_bytes());
        }
    }
    let at = HEADER_LEN as usize - 8;
    let digest = fingerprint(&bytes[..at]);
    bytes[at..at + 8].copy_from_slice(&digest.to_le_bytes());
    Some(digest)
}

/// A committed segment, memory-mapped.
#[derive(Debug)]
pub(crate) struct Segment {
    path: PathBuf,
    /// Reports a fault on the map (the file truncated while mapped); dropped before the map.
    watch: crate::fault::Watch,
    map: Mmap,
    pub docs: u64,
    pub entries: u64,
    pub pairs: u64,
    bits: u32,
    pub hashes: usize,
    pub width: usize,
    /// Where each section starts in the file, and where the checksummed data ends.
    off: [usize; 9],
    /// The data's block checksums, which blocks were checked, and the damage found.
    blocks: Blocks,
    /// What a damaged signature reads as.
    zeros: Box<[u8]>,
    /// One bit per document: removed.
    deleted: Vec<u64>,
    pub deleted_docs: u64,
    /// Under a memory bound: bytes read whole since its pages were last given back, and how
    /// many are read before they are ([`Segment::pace`]); `None` without a bound.
    paced: Option<(std::sync::atomic::AtomicUsize, usize)>,
}

impl Segment {
    /// Maps the segment file `path`, which the manifest lists as `ident` with header
    /// fingerprint `digest`, and checks its header and checksum table (the data is checked a
    /// block at a time as it is read).
    pub(crate) fn open(
        path: &Path,
        ident: Ident,
        digest: u64,
        layout: Layout,
    ) -> Result<Segment, Error> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: segment files are never modified after they are committed (a new segment or
        // deletion file is written instead), so the map's contents cannot change under us
        // through this library. A file truncated by someone else while mapped makes reads
        // fault: `fault::Watch` turns that fault into zeros and a damage report instead of
        // SIGBUS (Unix), and the blocks' checksums catch any other change.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        // Queries read a few scattered pages: no read-ahead, no mapping of the pages around a
        // fault (which would read and map most of a large index after a few thousand queries).
        // Only advice: an error changes nothing but speed.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let watch = crate::fault::Watch::new(&map);
        let bad = |what: &str| Error::corrupt(path, what);
        if map.len() >= 8 && &map[..8] == MAGIC_V1 {
            return Err(bad(
                "a segment of the first index format (without checksums); this build reads \
                 the second: rebuild the index with this version",
            ));
        }
        if map.len() < DATA_START as usize || &map[..8] != MAGIC {
            return Err(bad("not a segment file (bad magic)"));
        }
        let h: Vec<u64> = (0..HEADER_FIELDS).map(|i| le_u64(&map[8..], i)).collect();
        if fingerprint(&map[..HEADER_LEN as usize - 8]) != h[21]
            || map[HEADER_LEN as usize..DATA_START as usize]
                .iter()
                .any(|&b| b != 0)
        {
            return Err(bad("the header fails its checksum"));
        }
        let (docs, entries, pairs, bits, hashes, width, bands) =
            (h[0], h[1], h[2], h[3] as u32, h[4], h[5], h[6]);
        let (sums_at, len) = (h[15], h[16]);
        let found = Ident {
            index: h[17],
            params: h[18],
            number: h[19],
        };
        if found.index != ident.index {
            return Err(bad(&format!(
                "belongs to another index (id {:016x}; this one is {:016x}): a file copied in \
                 from elsewhere",
                found.index, ident.index
            )));
        }
        if found.params != ident.params {
            return Err(bad(
                "written with other parameters (seed, hash functions or bands) than the index's",
            ));
        }
        // Before the sizes are used (a damaged count of hash functions sized a buffer).
        let found_layout = Layout {
            hashes: hashes as usize,
            bands: bands as usize,
            width: width as usize,
        };
        if found_layout != layout {
            let show = |l: Layout| {
                format!(
                    "{} minhashes of {} bytes and {} band keys per entry",
                    l.hashes, l.width, l.bands
                )
            };
            return Err(bad(&format!(
                "differs from the manifest: it holds {}, the index's parameters make {}",
                show(found_layout),
                show(layout)
            )));
        }
        if found.number != ident.number {
            return Err(bad(&format!(
                "holds segment {} but the manifest lists it as segment {}: files swapped or \
                 renamed",
                found.number, ident.number
            )));
        }
        if h[21] != digest {
            return Err(bad(
                "is not the file the manifest committed (its header differs): replaced by \
                 another",
            ));
        }
        if len != map.len() as u64 {
            return Err(bad(
                "truncated or extended (its length differs from the header)",
            ));
        }
        if !(MIN_DIR_BITS..=MAX_DIR_BITS).contains(&bits)
            || ![1, 2, 4, 8].contains(&width)
            || (entries > 0 && docs == 0)
            || !(DATA_START..=len).contains(&sums_at)
        {
            return Err(bad("bad header"));
        }
        let blocks = (sums_at - DATA_START).div_ceil(BLOCK as u64);
        if len - sums_at != blocks * 8 {
            return Err(bad("the checksum table's size disagrees with the header"));
        }
        let sums: Vec<u64> = (0..blocks as usize)
            .map(|i| le_u64(&map[sums_at as usize..], i))
            .collect();
        if table_sum(&sums) != h[20] {
            return Err(bad("the checksum table fails its checksum"));
        }
        let mut off = [0usize; 9];
        for i in 0..8 {
            off[i] = h[7 + i] as usize;
        }
        off[8] = sums_at as usize;
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
        if off[0] != DATA_START as usize {
            return Err(bad("section sizes disagree with the header"));
        }
        for i in 0..8 {
            if off[i] > off[i + 1]
                || need[i].is_none_or(|need| ((off[i + 1] - off[i]) as u64) < need)
            {
                return Err(bad("section sizes disagree with the header"));
            }
        }
        let seg = Segment {
            path: path.to_path_buf(),
            watch,
            map,
            docs,
            entries,
            pairs,
            bits,
            hashes: hashes as usize,
            width: width as usize,
            off,
            blocks: Blocks::new(DATA_START as usize, sums),
            zeros: vec![0; (hashes * width) as usize].into_boxed_slice(),
            deleted: vec![0; (docs as usize).div_ceil(64)],
            deleted_docs: 0,
            paced: None,
        };
        if seg.dir(1 << bits) as u64 != pairs {
            return Err(seg.damage_error("the directory does not add up to the pairs"));
        }
        Ok(seg)
    }

    /// The file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// The first damage a reader found, if any: a block that failed its checksum, a value out
    /// of range, or the file changing under the map.
    pub(crate) fn damage(&self) -> Option<String> {
        if self.watch.faulted() {
            return Some(
                "the file was truncated or replaced while in use (a read faulted)".to_string(),
            );
        }
        self.blocks.damage().map(str::to_string)
    }

    /// [`Error::Corrupt`] with the damage found, or `what` if none was recorded.
    pub(crate) fn damage_error(&self, what: &str) -> Error {
        Error::corrupt(
            &self.path,
            self.damage().unwrap_or_else(|| what.to_string()),
        )
    }

    /// Records damage found by a reader.
    fn damaged(&self, what: impl FnOnce() -> String) {
        self.blocks.record(what());
    }

    /// Whether bytes `start..end` of the file are in blocks that pass their checksums.
    #[inline]
    fn sound(&self, start: usize, end: usize) -> bool {
        let data = &self.map[DATA_START as usize..self.off[8]];
        let base = DATA_START as usize;
        self.blocks.check(data, start - base, end - base)
    }

    /// Value `i` of `N` bytes in section `sec`, or zeros when it is past the section or in a
    /// damaged block (the damage is recorded).
    #[inline]
    fn value<const N: usize>(&self, sec: usize, i: usize) -> [u8; N] {
        self.bytes_at(sec, N * i)
    }

    /// The `N` bytes at byte `at` of section `sec`, or zeros when they are past the section or
    /// in a damaged block (the damage is recorded).
    #[inline]
    fn bytes_at<const N: usize>(&self, sec: usize, at: usize) -> [u8; N] {
        let start = self.off[sec] + at;
        if start + N > self.off[sec + 1] {
            self.damaged(|| format!("a read past section {sec}"));
            return [0; N];
        }
        if !self.sound(start, start + N) {
            return [0; N];
        }
        self.map[start..start + N].try_into().expect("N bytes")
    }

    #[inline]
    fn u32_at(&self, sec: usize, i: usize) -> u32 {
        u32::from_le_bytes(self.value::<4>(sec, i))
    }

    #[inline]
    fn u64_at(&self, sec: usize, i: usize) -> u64 {
        u64::from_le_bytes(self.value::<8>(sec, i))
    }

    /// Checks every block of the data against its checksum, and then that the sections agree
    /// with each other: the directory counts up to the pairs, pairs are sorted and name
    /// existing entries, entries name existing documents in order, every document record
    /// decodes, the id table is sorted and names every document once, under its id's hash.
    /// What `index verify` and a merge (before it copies anything) run.
    pub(crate) fn verify(&self) -> Result<(), Error> {
        let data = &self.map[DATA_START as usize..self.off[8]];
        if let Some((_, stride)) = self.paced {
            // A stride at a time, giving the pages back as it goes.
            for start in (0..data.len()).step_by(stride) {
                if !self
                    .blocks
                    .check(data, start, (start + stride).min(data.len()))
                {
                    let what = self.blocks.damage().unwrap_or("damaged").to_string();
                    return Err(Error::corrupt(&self.path, what));
                }
                self.pace(stride);
            }
        } else {
            self.blocks
                .check_all(data)
                .map_err(|e| Error::corrupt(&self.path, e))?;
        }
        let bad = |what: String| Err(Error::corrupt(&self.path, what));
        let mut last = 0u32;
        for b in 0..=(1usize << self.bits) {
            let d = self.dir(b);
            if d < last || d as u64 > self.pairs {
                return bad(format!("directory entry {b} is out of order"));
            }
            last = d;
        }
        self.pace(4 << self.bits);
        for b in 0..1usize << self.bits {
            let mut prev = None;
            self.pace(8 * self.dir(b + 1).saturating_sub(self.dir(b)) as usize);
            for p in self.bucket_pairs(b) {
                if (p as u32) as u64 >= self.entries {
                    return bad(format!("a band-key record names entry {}", p as u32));
                }
                if prev.is_some_and(|q| q >= p) {
                    return bad(format!("the band-key records of bucket {b} are not sorted"));
                }
                prev = Some(p);
            }
        }
        let mut prev_doc = 0;
        for e in 0..self.entries as usize {
            self.pace(12);
            let [d, a, b] = [0, 1, 2].map(|k| self.u32_at(3, 3 * e + k));
            if d as u64 >= self.docs || d < prev_doc || a > b {
                return bad(format!("entry {e} is out of range or order"));
            }
            prev_doc = d;
        }
        // The id table: sorted, every document once, each under its id's hash (which
        // `contains` and `remove` look it up by).
        let mut hash_of: Vec<Option<u64>> = vec![None; self.docs as usize];
        let mut prev_hash = 0;
        for i in 0..self.docs as usize {
            self.pace(12);
            let (h, d) = (self.u64_at(6, i), self.u32_at(7, i) as usize);
            if h < prev_hash || hash_of.get(d).is_none_or(Option::is_some) {
                return bad(format!("the id table is out of order at {i}"));
            }
            hash_of[d] = Some(h);
            prev_hash = h;
        }
        for (d, hash) in hash_of.into_iter().enumerate() {
            let record = self.doc(d as u32)?;
            self.pace(16 + record.text.map_or(0, str::len) + record.title.len());
            if hash != Some(doc::id_hash(&record.id)) {
                return bad(format!(
                    "the id table files document {d} under another id's hash"
                ));
            }
        }
        match self.damage() {
            Some(d) => Err(Error::corrupt(&self.path, d)),
            None => Ok(()),
        }
    }

    /// Under a memory bound: reading the segment whole (a merge, a check) gives its pages
    /// back every `stride` bytes ([`Segment::pace`]).
    pub(crate) fn pace_reads(&mut self, stride: usize) {
        self.paced = Some((std::sync::atomic::AtomicUsize::new(0), stride));
    }

    /// Counts `bytes` read of the map and, under a memory bound, gives its pages back once
    /// its stride was read since the last time.
    #[inline]
    pub(crate) fn pace(&self, bytes: usize) {
        use std::sync::atomic::Ordering;
        if let Some((read, stride)) = &self.paced
            && read.fetch_add(bytes, Ordering::Relaxed) + bytes >= *stride
        {
            read.store(0, Ordering::Relaxed);
            self.release_pages();
        }
    }

    /// Gives the pages of the map back to the OS: they stop counting as this process's
    /// resident memory and stay in the OS's file cache, so reading them again costs a minor
    /// fault, not a disk read.
    pub(crate) fn release_pages(&self) {
        // SAFETY: MADV_DONTNEED on a read-only private file mapping drops the process's page
        // table entries only; the next access maps the same file bytes again (segment files
        // are never modified after they are committed, see `open`). References into the map
        // stay valid.
        #[cfg(unix)]
        let _ = unsafe {
            self.map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
        };
    }

    /// Reads one byte at each of `n` places spread evenly over the band-key records (the
    /// section queries read most, at random), mapping the pages a fault there maps; for
    /// measuring how much that is ([`Index::max_memory`](crate::Index::max_memory)).
    pub(crate) fn touch_records(&self, n: usize) {
        let (start, end) = (self.off[1], self.off[2].min(self.map.len()));
        let len = end.saturating_sub(start);
        for i in 0..n {
            let at = start + len / n.max(1) * i;
            if at < end {
                std::hint::black_box(self.map[at]);
            }
        }
    }

    /// Bytes of the map.
    pub(crate) fn mapped_bytes(&self) -> u64 {
        self.map.len() as u64
    }

    /// Tells the OS the segment is about to be read from start to end (a merge).
    pub(crate) fn read_sequentially(&self) {
        #[cfg(unix)]
        let _ = self.map.advise(memmap2::Advice::Sequential);
    }

    fn dir(&self, b: usize) -> u32 {
        self.u32_at(0, b)
    }

    /// The positions in the pair section of the pairs under band key `key` (pairs are sorted by
    /// key, then entry). Buckets hold about 4 pairs, but repeated text puts thousands under one
    /// key: binary searches keep a lookup logarithmic in the bucket.
    fn key_range(&self, key: u64) -> std::ops::Range<usize> {
        let b = bucket(key, self.bits);
        let want = (key >> 16) & 0xFFFF_FFFF;
        // The bucket's start and end, read at once. A damaged directory may point anywhere:
        // clamped, and checked against the blocks.
        let ends: [u8; 8] = self.bytes_at(0, 4 * b);
        let [start, end] =
            [0, 4].map(|i| u32::from_le_bytes(ends[i..i + 4].try_into().expect("4")));
        let hi = (end as usize).min(self.pairs as usize);
        let lo = (start as usize).min(hi);
        let start = self.off[1];
        if !self.sound(start + 8 * lo, start + 8 * hi) {
            return 0..0;
        }
        let pairs = &self.map[start..self.off[2]];
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
        let hi = (self.dir(b + 1) as usize).min(self.pairs as usize);
        let lo = (self.dir(b) as usize).min(hi);
        (lo..hi).map(move |i| self.u64_at(1, i))
    }

    /// Every pair as `(key48, entry)`, in order.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        (0..1usize << self.bits).flat_map(move |b| {
            self.pace(4 + 8 * self.dir(b + 1).saturating_sub(self.dir(b)) as usize);
            let high = (b as u64) << (64 - self.bits);
            self.bucket_pairs(b)
                .map(move |p| (high | (p >> 32) << 16, p as u32))
        })
    }

    /// Every signature, in entry order (for a merge, after [`Segment::verify`]).
    pub(crate) fn signature_bytes(&self) -> &[u8] {
        let n = self.entries as usize * self.hashes * self.width;
        if !self.sound(self.off[2], self.off[2] + n) {
            return &[];
        }
        &self.map[self.off[2]..self.off[2] + n]
    }

    pub(crate) fn doc_record(&self, d: u32) -> Result<&[u8], Error> {
        if d as u64 >= self.docs {
            return Err(Error::corrupt(&self.path, "document number out of range"));
        }
        let (a, b) = (self.u64_at(5, d as usize), self.u64_at(5, d as usize + 1));
        let (start, end) = (self.off[4], self.off[5]);
        let range =
            (a <= b && b <= (end - start) as u64).then(|| start + a as usize..start + b as usize);
        match range {
            Some(r) if self.sound(r.start, r.end) => Ok(&self.map[r]),
            _ => Err(self.damage_error("document offsets out of range")),
        }
    }

    /// The id hashes with their documents, in document order.
    pub(crate) fn ids_by_doc(&self) -> Result<Vec<u64>, Error> {
        let mut out = vec![0; self.docs as usize];
        for i in 0..self.docs as usize {
            self.pace(12);
            let d = self.u32_at(7, i) as usize;
            *out.get_mut(d)
                .ok_or_else(|| self.damage_error("the id table names a missing document"))? =
                self.u64_at(6, i);
        }
        match self.damage() {
            Some(d) => Err(Error::corrupt(&self.path, d)),
            None => Ok(out),
        }
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
        let pairs = &self.map[self.off[1]..self.off[2]];
        for i in self.key_range(key) {
            let e = le_u64(pairs, i) as u32;
            if (e as u64) < self.entries {
                out.push(e);
            } else {
                self.damaged(|| format!("a band-key record names entry {e}"));
            }
        }
    }

    fn key_len(&self, key: u64) -> usize {
        self.key_range(key).len()
    }

    fn signature(&self, entry: u32) -> &[u8] {
        let n = self.hashes * self.width;
        let start = self.off[2] + entry as usize * n;
        if (entry as u64) < self.entries && self.sound(start, start + n) {
            &self.map[start..start + n]
        } else {
            self.damaged(|| format!("signature of entry {entry} out of range"));
            &self.zeros
        }
    }

    fn entry(&self, entry: u32) -> [u32; 3] {
        let bytes: [u8; 12] = self.value(3, entry as usize);
        let e = [0, 4, 8].map(|k| u32::from_le_bytes(bytes[k..k + 4].try_into().expect("4")));
        if (e[0] as u64) < self.docs && e[1] <= e[2] {
            e
        } else {
            self.damaged(|| format!("entry {entry} is out of range"));
            [0; 3]
        }
    }

    fn deleted(&self, doc: u32) -> bool {
        self.deleted
            .get(doc as usize / 64)
            .is_none_or(|w| w & (1 << (doc % 64)) != 0)
    }

    fn doc(&self, d: u32) -> Result<StoredDoc<'_>, Error> {
        let record = self.doc_record(d)?;
        doc::decode(record).ok_or_else(|| Error::corrupt(&self.path, "bad document record"))
    }

    fn docs_with_id(&self, hash: u64, out: &mut Vec<u32>) {
        let n = self.docs as usize;
        // First index with hash >= `hash`.
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.u64_at(6, mid) < hash {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        while lo < n && self.u64_at(6, lo) == hash {
            let d = self.u32_at(7, lo);
            if (d as u64) < self.docs {
                out.push(d);
            } else {
                self.damaged(|| format!("the id table names document {d}"));
            }
            lo += 1;
        }
    }

    fn counts(&self) -> (u64, u64) {
        (self.docs, self.entries)
    }
}
