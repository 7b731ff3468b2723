//! [`Index`] (a committed snapshot, for queries) and [`IndexWriter`] (adds, removes, commits and
//! compacts, one at a time).
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use textreuse_corpus::files;
use textreuse_corpus::{DocId, Document, Origin};
use textreuse_minhash::Signer;

use crate::plan::MemoryPlan;
use crate::resident::FileResident;

use crate::Error;
use crate::candidates::{
    Candidate, DEFAULT_MAX_QUERY_BUCKET, Hit, Order, Tallied, Tally, count_members,
};
use crate::doc::id_hash;
use crate::params::{Params, Recipe, SignedUnit};
use crate::segment::{Batch, Ident, Layout, Part, Segment, SegmentWriter, Shape, equal_minhashes};
use textreuse_hash::{fingerprint, fingerprint_words};

const MANIFEST: &str = "MANIFEST";
const LOCK: &str = "LOCK";
const FORMAT: &str = "textreuse-index";
/// The format: 2 added the index id, checksums and the segments' identity.
const VERSION: u32 = 2;
const DEL_MAGIC: &[u8; 8] = b"TRIXDEL2";
/// More segments than this after a commit and the writer merges some ([`MERGE_RUN`] adjacent
/// ones, the smallest such run): a query looks in every segment.
pub const MAX_SEGMENTS: usize = 16;
/// How many adjacent segments an automatic merge joins.
pub const MERGE_RUN: usize = 8;
/// The default memory budget of a writer's uncommitted batch (and of the sort that writes
/// it): 1 GiB.
pub const DEFAULT_MEMORY_BUDGET: u64 = 1 << 30;

/// The manifest: the index's parameters and its committed segments. Replaced atomically by
/// every commit; the only file ever rewritten.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Manifest {
    format: String,
    version: u32,
    /// The index's id (16 hex digits), made when it was created: every segment and deletion
    /// file carries it, so a file of another index is recognized.
    id: String,
    params: Params,
    /// The fingerprint of `params` when the index was created (16 hex digits), which every
    /// segment carries.
    params_digest: String,
    /// Incremented by every commit.
    generation: u64,
    next_segment: u64,
    segments: Vec<SegmentEntry>,
    /// The fingerprint of the manifest written with this field empty (16 hex digits).
    checksum: String,
}

impl Manifest {
    /// The manifest as written: pretty JSON with its checksum.
    fn to_bytes(&self) -> Vec<u8> {
        let mut m = self.clone();
        m.checksum = String::new();
        m.checksum = hex(fingerprint(
            &serde_json::to_vec(&m).expect("a manifest serializes"),
        ));
        serde_json::to_vec_pretty(&m).expect("a manifest serializes")
    }

    fn id(&self) -> u64 {
        unhex(&self.id).unwrap_or(0)
    }

    /// Whether what the manifest says is possible, beyond its checksum (which a forged or
    /// resealed manifest passes): the counts within what the files can hold, the names what
    /// the writer makes, and room for the next commit, whose new files must not take the name
    /// of a file in use. The segments themselves are checked against their entries when they
    /// are opened ([`Index::load`]).
    fn check(&self) -> Result<(), String> {
        if unhex(&self.id).is_none() || unhex(&self.params_digest).is_none() {
            return Err("the manifest has no valid index id".into());
        }
        let params = fingerprint(&serde_json::to_vec(&self.params).expect("params serialize"));
        if unhex(&self.params_digest) != Some(params) {
            return Err(
                "the parameters are not those the index was created with (their digest differs)"
                    .into(),
            );
        }
        if self.generation == u64::MAX || self.next_segment == u64::MAX {
            return Err("the manifest's generation or segment counter is exhausted".into());
        }
        let mut numbers = Vec::with_capacity(self.segments.len());
        for s in &self.segments {
            let bad = |what: &str| Err(format!("segment entry {}: {what}", s.name));
            let Some(number) = segment_number(&s.name) else {
                return bad("not a segment name");
            };
            if unhex(&s.digest).is_none() {
                return bad("no valid digest");
            }
            if number >= self.next_segment {
                return bad("numbered at or past the next segment's number");
            }
            numbers.push(number);
            if s.deleted_docs > s.docs || s.deleted_entries > s.entries {
                return bad("more removed documents or entries than it holds");
            }
            match &s.deleted {
                None if s.deleted_docs > 0 || s.deleted_entries > 0 => {
                    return bad("removed documents but no deletion file");
                }
                None => {}
                Some(file) => {
                    let generation = file
                        .strip_prefix(s.name.as_str())
                        .and_then(|rest| rest.strip_prefix(".del-"))
                        .filter(|g| digits(g, 6))
                        .and_then(|g| g.parse::<u64>().ok());
                    if !generation.is_some_and(|g| (1..=self.generation).contains(&g)) {
                        return bad(&format!(
                            "{file} is not the name of a deletion file of it from commit 1 to \
                             {}",
                            self.generation
                        ));
                    }
                }
            }
        }
        numbers.sort_unstable();
        if numbers.windows(2).any(|w| w[0] == w[1]) {
            return Err("a segment is listed twice".into());
        }
        Ok(())
    }

    /// What segment `name` must carry.
    fn ident(&self, name: &str) -> Ident {
        Ident {
            index: self.id(),
            params: unhex(&self.params_digest).unwrap_or(0),
            number: segment_number(name).unwrap_or(u64::MAX),
        }
    }
}

fn hex(v: u64) -> String {
    format!("{v:016x}")
}

fn unhex(s: &str) -> Option<u64> {
    (s.len() == 16).then(|| u64::from_str_radix(s, 16).ok())?
}

/// The number of segment `name` (`seg-000007`: 7).
fn segment_number(name: &str) -> Option<u64> {
    name.strip_prefix("seg-")
        .filter(|n| digits(n, 6))
        .and_then(|n| n.parse().ok())
}

/// A new index id: unique per creation (the time, the process, a counter), not derived from
/// the contents, so two indexes built from the same input still tell their files apart.
fn new_index_id(params: &Params) -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let params = fingerprint(&serde_json::to_vec(params).expect("params serialize"));
    fingerprint_words(&[
        now,
        std::process::id() as u64,
        COUNTER.fetch_add(1, Ordering::Relaxed),
        params,
    ])
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct SegmentEntry {
    name: String,
    docs: u64,
    entries: u64,
    pairs: u64,
    bytes: u64,
    /// The fingerprint of the segment's header (16 hex digits), which covers the whole file
    /// through its checksum table.
    digest: String,
    /// The file listing its removed documents, if any.
    deleted: Option<String>,
    deleted_docs: u64,
    deleted_entries: u64,
}

/// What an index holds ([`Index::stats`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IndexStats {
    /// Documents added and not removed.
    pub documents: u64,
    /// Their entries (units).
    pub entries: u64,
    /// Documents removed but still taking space (until [`IndexWriter::compact`]).
    pub removed_documents: u64,
    /// Committed segments.
    pub segments: usize,
    /// Bytes of the segment files.
    pub bytes: u64,
    /// Band-key records in the segments.
    pub band_key_records: u64,
    /// Commits so far.
    pub generation: u64,
    /// Documents added to a writer and not committed yet.
    pub uncommitted_documents: u64,
}

/// How a query filters and what it returns.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct QueryOptions {
    /// Matches below this Jaccard similarity (estimated, or exact with `verify`) are left out
    /// (default 0: every entry that shares a band key).
    pub min_jaccard: f64,
    /// Compute each match's exact Jaccard similarity from the stored texts (the index must
    /// store texts). Default off.
    pub verify: bool,
    /// At most this many matches per query unit, best first (default: all).
    pub limit: usize,
    /// Return each match's unit text (default off).
    pub text: bool,
}

impl QueryOptions {
    /// The defaults: every candidate, estimated, without texts.
    pub fn new() -> QueryOptions {
        QueryOptions::default()
    }

    /// Leaves out matches below this Jaccard similarity.
    pub fn min_jaccard(mut self, t: f64) -> QueryOptions {
        self.min_jaccard = t;
        self
    }

    /// Verifies matches against the stored texts.
    pub fn verify(mut self, yes: bool) -> QueryOptions {
        self.verify = yes;
        self
    }

    /// At most `n` matches per query unit.
    pub fn limit(mut self, n: usize) -> QueryOptions {
        self.limit = n;
        self
    }

    /// Returns the matched units' texts.
    pub fn text(mut self, yes: bool) -> QueryOptions {
        self.text = yes;
        self
    }
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            min_jaccard: 0.0,
            verify: false,
            limit: usize::MAX,
            text: false,
        }
    }
}

/// An indexed entry that matches a query.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Match {
    /// Its document's id, as the input wrote it.
    pub id: DocId,
    /// Its document's title.
    pub title: String,
    /// Where its document came from.
    pub origin: Origin,
    /// Its document's number, from 0 in the order documents were added (removed documents keep
    /// theirs until a merge drops them and closes the gap).
    pub doc: u64,
    /// Its entry's number, likewise.
    pub entry: u64,
    /// Its unit's span in the document, in characters (`0..0` for a signature inserted
    /// without text).
    pub chars: Range<u64>,
    /// Band keys it shares with the query.
    pub shared_bands: usize,
    /// The share of equal minhashes: the estimated Jaccard similarity.
    pub estimated_jaccard: f64,
    /// The exact Jaccard similarity of the shingle sets, with [`QueryOptions::verify`].
    pub jaccard: Option<f64>,
    /// Its unit's text, with [`QueryOptions::text`] (when texts are stored).
    pub text: Option<String>,
    /// Containment queries ([`Index::query_containment`]): the estimated containment of the
    /// query in this match's document (see [`Candidate::containment`]). `None` otherwise.
    pub estimated_containment: Option<f64>,
    /// Containment queries with [`QueryOptions::verify`]: the exact containment of the query's
    /// shingle set in the document's, `|Q ∩ X| / |Q|`, from the stored texts. `None`
    /// otherwise.
    pub containment: Option<f64>,
}

/// What a top-k query ([`Index::query_top_k`], [`Index::query_documents`]) is given: a text
/// (cut into the index's units and signed) or one signature (`N` minhashes from
/// [`Signer::sign`] with the index's parameters). `&str`, `&String`, `&[u64]` and `&Vec<u64>`
/// convert into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Query<'a> {
    /// A text.
    Text(&'a str),
    /// A signature (it cannot be verified: it has no shingles).
    Signature(&'a [u64]),
}

impl<'a> From<&'a str> for Query<'a> {
    fn from(text: &'a str) -> Query<'a> {
        Query::Text(text)
    }
}

impl<'a> From<&'a String> for Query<'a> {
    fn from(text: &'a String) -> Query<'a> {
        Query::Text(text)
    }
}

impl<'a> From<&'a [u64]> for Query<'a> {
    fn from(mins: &'a [u64]) -> Query<'a> {
        Query::Signature(mins)
    }
}

impl<'a> From<&'a Vec<u64>> for Query<'a> {
    fn from(mins: &'a Vec<u64>) -> Query<'a> {
        Query::Signature(mins)
    }
}

/// A question about whole indexed documents ([`Index::query_documents`],
/// [`Index::query_documents_all`]): the `k` most similar ones, or those containing the query.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum DocumentQuery {
    /// The `k` documents most similar to the query ([`Index::query_top_k`]).
    TopK(usize),
    /// The documents containing at least this share of the query ([`Index::query_containment`]).
    Containment(f64),
}

impl DocumentQuery {
    /// Checks the containment threshold ([`Error::Threshold`] outside `0..=1`).
    pub fn check(&self) -> Result<(), Error> {
        match *self {
            DocumentQuery::Containment(t) if !(0.0..=1.0).contains(&t) => Err(Error::Threshold(t)),
            _ => Ok(()),
        }
    }
}

/// A unit of a query text with its matches.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct UnitMatches {
    /// Its byte span in the query text.
    pub span: Range<usize>,
    /// Its span in characters.
    pub chars: Range<u64>,
    /// Its matches, best first.
    pub matches: Vec<Match>,
}

/// A committed state of an index, memory-mapped: what queries read. Several processes may
/// query one index while a writer adds to it; each sees the commit it opened.
///
/// ```
/// use textreuse_corpus::Document;
/// use textreuse_index::{Index, IndexUnit, IndexWriter, Params, QueryOptions};
///
/// let dir = tempfile::tempdir()?;
/// let mut writer = IndexWriter::create(dir.path(), Params::new(IndexUnit::Document))?;
/// writer.add(&Document::new("a", "", "The old mill on the river was built in 1820 and still grinds grain."))?;
/// writer.add(&Document::new("b", "", "Tomatoes grow best in warm weather with plenty of sun."))?;
/// writer.commit()?;
/// drop(writer);
///
/// let index = Index::open(dir.path())?;
/// let found = index.query_text("The old mill on the river was built in 1820 and still grinds grain!",
///     &QueryOptions::default())?;
/// assert_eq!(found[0].matches[0].id.to_string(), "a");
/// assert!(found[0].matches[0].estimated_jaccard > 0.8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    signer: Signer,
    segments: Vec<Segment>,
    /// Document and entry numbers of each segment's first, and the totals.
    doc_base: Vec<u64>,
    entry_base: Vec<u64>,
    /// How its memory is shared out ([`Index::max_memory`]).
    plan: MemoryPlan,
    /// Under a bound: an estimate of the mapped bytes queries touched since the pages were
    /// last given back, or since the resident pages were last measured ([`Index::note_reads`]).
    touched: std::sync::atomic::AtomicU64,
    /// Under a bound, where the system says: the process's file-backed resident bytes, and
    /// their value when the bound was set (the program's and other maps' pages, which the
    /// segments' share does not count).
    resident: Option<(FileResident, u64)>,
    /// What one page fault of a query is counted as mapping (at least
    /// [`FAULT_BYTES`](crate::plan::FAULT_BYTES); measured under a bound where the system
    /// says).
    fault_bytes: u64,
}

fn read_manifest(dir: &Path) -> Result<Manifest, Error> {
    let path = dir.join(MANIFEST);
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(Error::NotAnIndex(dir.to_path_buf()));
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    // The format and version first, so that another version is named as such.
    #[derive(Deserialize)]
    struct Version {
        format: String,
        version: u32,
    }
    let v: Version = serde_json::from_slice(&bytes)
        .map_err(|e| Error::corrupt(&path, format!("not a manifest: {e}")))?;
    if v.format == FORMAT && v.version < VERSION {
        return Err(Error::OldFormat {
            path,
            version: v.version,
            current: VERSION,
        });
    }
    if v.format != FORMAT || v.version != VERSION {
        return Err(Error::corrupt(
            &path,
            format!(
                "format {} version {}; this build reads {FORMAT} version {VERSION}",
                v.format, v.version
            ),
        ));
    }
    let m: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| Error::corrupt(&path, format!("not a manifest: {e}")))?;
    let mut unsigned = m.clone();
    unsigned.checksum = String::new();
    let sum = fingerprint(&serde_json::to_vec(&unsigned).expect("a manifest serializes"));
    if unhex(&m.checksum) != Some(sum) {
        return Err(Error::corrupt(&path, "the manifest fails its checksum"));
    }
    m.check().map_err(|what| Error::corrupt(&path, what))?;
    Ok(m)
}

/// The bytes of the deletion file of segment `ident` at `generation` listing `docs`:
/// magic, index id, segment number, generation, count, the documents (`u32`), padding to 8
/// bytes, and the fingerprint of everything before it.
fn deletion_file(ident: Ident, generation: u64, docs: &[u32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(48 + 4 * docs.len());
    bytes.extend_from_slice(DEL_MAGIC);
    for v in [ident.index, ident.number, generation, docs.len() as u64] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    for d in docs {
        bytes.extend_from_slice(&d.to_le_bytes());
    }
    bytes.resize(bytes.len().div_ceil(8) * 8, 0);
    let sum = fingerprint(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    bytes
}

/// Reads a deletion file of segment `ident` (of `docs` documents): its checksum, identity and
/// documents are checked.
fn read_deleted(path: &Path, ident: Ident, generation: u64, docs: u64) -> Result<Vec<u32>, Error> {
    let bytes = fs::read(path).map_err(|e| Error::io(path, e))?;
    let bad = |what: &str| Err(Error::corrupt(path, what));
    if bytes.len() >= 8 && &bytes[..8] == b"TRIXDEL1" {
        return bad("a deletion file of the first index format; rebuild the index");
    }
    if bytes.len() < 48 || bytes.len() % 8 != 0 || &bytes[..8] != DEL_MAGIC {
        return bad("not a deletion file");
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    if fingerprint(body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
        return bad("the deletion file fails its checksum");
    }
    let word = |i: usize| u64::from_le_bytes(body[8 + 8 * i..16 + 8 * i].try_into().expect("8"));
    if word(0) != ident.index {
        return bad("a deletion file of another index");
    }
    if word(1) != ident.number {
        return bad(&format!(
            "the deletion file of segment {}, listed for segment {}: files swapped or renamed",
            word(1),
            ident.number
        ));
    }
    if word(2) != generation {
        return bad(&format!(
            "written by commit {}, named for commit {generation}: files swapped or renamed",
            word(2)
        ));
    }
    // A damaged count can be anything: the size it implies is computed without overflow.
    let n = word(3);
    let want = n.checked_mul(4).and_then(|b| b.checked_add(40));
    if want.map(|w| w.div_ceil(8) * 8) != Some(body.len() as u64) {
        return bad("the deletion file's count disagrees with its size");
    }
    let list: Vec<u32> = body[40..40 + 4 * n as usize]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    if list.iter().any(|&d| d as u64 >= docs) || list.windows(2).any(|w| w[0] >= w[1]) {
        return bad("the deletion file lists documents out of range or order");
    }
    Ok(list)
}

/// Makes the checksum of the deletion file `bytes` agree with its contents again, in place;
/// `false` (and `bytes` left as they are) when it is not a deletion file of this format (another
/// magic, or a size a reader refuses before it reads the checksum).
#[cfg(any(test, feature = "fuzzing"))]
fn reseal_deleted(bytes: &mut [u8]) -> bool {
    if bytes.len() < 48 || !bytes.len().is_multiple_of(8) || &bytes[..8] != DEL_MAGIC {
        return false;
    }
    let (body, sum) = bytes.split_at_mut(bytes.len() - 8);
    sum.copy_from_slice(&fingerprint(body).to_le_bytes());
    true
}

/// Recomputes every checksum of the index files in `dir`: each segment's block table, its
/// fingerprint and the header's ([`crate::segment::reseal`]), each deletion file's, and, when
/// the manifest still reads as one, its segments' header fingerprints and its own checksum.
/// Whatever else the files say is left as it is. For [`crate::fuzzing::reseal`].
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn reseal(dir: &Path) -> Result<(), Error> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    let rewrite = |path: &Path, bytes: &[u8], before: &[u8]| {
        if bytes == before {
            Ok(())
        } else {
            fs::write(path, bytes).map_err(|e| Error::io(path, e))
        }
    };
    // Segments first: the manifest keeps their header fingerprints.
    let mut digests = std::collections::HashMap::new();
    for name in names.iter().filter(|n| is_index_file(n)) {
        let path = dir.join(name);
        let before = fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let mut bytes = before.clone();
        match name.strip_suffix(".seg") {
            Some(segment) => {
                if let Some(digest) = crate::segment::reseal(&mut bytes) {
                    digests.insert(segment.to_string(), digest);
                }
            }
            None => {
                reseal_deleted(&mut bytes);
            }
        }
        rewrite(&path, &bytes, &before)?;
    }
    let path = dir.join(MANIFEST);
    let before = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let Ok(mut m) = serde_json::from_slice::<Manifest>(&before) else {
        return Ok(());
    };
    for s in &mut m.segments {
        if let Some(&digest) = digests.get(&s.name) {
            s.digest = hex(digest);
        }
    }
    rewrite(&path, &m.to_bytes(), &before)
}

/// Writes `bytes` to `dir/name` atomically ([`files::write_atomic`]: a temporary file ending in
/// `.tmp`, which [`IndexWriter`]'s garbage collection removes if a crash leaves it, synced,
/// renamed over it, and the directory synced).
fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), Error> {
    let path = dir.join(name);
    files::write_atomic(&path, bytes).map_err(|e| Error::io(&path, e))
}

fn sync_dir(dir: &Path) -> Result<(), Error> {
    files::sync_dir(dir).map_err(|e| Error::io(dir, e))
}

fn char_range(text: &str, chars: &Range<u64>) -> Option<Range<usize>> {
    let mut it = text.char_indices().map(|(i, _)| i).chain([text.len()]);
    let start = it.nth(chars.start as usize)?;
    let end = if chars.end == chars.start {
        start
    } else {
        it.nth((chars.end - chars.start - 1) as usize)?
    };
    Some(start..end)
}

impl Index {
    /// Opens the last commit of the index in `dir` for queries.
    pub fn open(dir: impl AsRef<Path>) -> Result<Index, Error> {
        let dir = dir.as_ref();
        // A writer may compact between our reading the manifest and opening its segments,
        // removing them: read the new manifest and try again.
        let mut tries = 0;
        loop {
            let manifest = read_manifest(dir)?;
            match Index::load(dir, manifest) {
                Err(Error::Missing { .. }) if tries < 20 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => return other,
            }
        }
    }

    fn load(dir: &Path, manifest: Manifest) -> Result<Index, Error> {
        manifest.params.check()?;
        let signer = manifest.params.signer()?;
        let mut segments = Vec::with_capacity(manifest.segments.len());
        let (mut doc_base, mut entry_base) = (vec![0], vec![0]);
        for s in &manifest.segments {
            let path = dir.join(format!("{}.seg", s.name));
            let ident = manifest.ident(&s.name);
            let digest = unhex(&s.digest).unwrap_or(0);
            let layout = Layout {
                hashes: signer.hashes(),
                bands: signer.bands(),
                width: manifest.params.signature_bytes as usize,
            };
            let mut seg = match Segment::open(&path, ident, digest, layout) {
                Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                    return Err(Error::Missing {
                        path: dir.to_path_buf(),
                        file: format!("{}.seg", s.name),
                    });
                }
                other => other?,
            };
            if seg.docs != s.docs
                || seg.entries != s.entries
                || seg.pairs != s.pairs
                || seg.len() != s.bytes
            {
                return Err(Error::corrupt(&path, "differs from the manifest"));
            }
            if let Some(del) = &s.deleted {
                let path = dir.join(del);
                let generation = del
                    .rsplit_once(".del-")
                    .and_then(|(_, g)| g.parse().ok())
                    .unwrap_or(u64::MAX);
                let list = match read_deleted(&path, ident, generation, seg.docs) {
                    Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                        return Err(Error::Missing {
                            path: dir.to_path_buf(),
                            file: del.clone(),
                        });
                    }
                    other => other?,
                };
                if list.len() as u64 != s.deleted_docs {
                    return Err(Error::corrupt(&path, "differs from the manifest"));
                }
                for d in list {
                    seg.delete(d);
                }
            }
            doc_base.push(doc_base.last().copied().unwrap_or(0) + seg.docs);
            entry_base.push(entry_base.last().copied().unwrap_or(0) + seg.entries);
            segments.push(seg);
        }
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest,
            signer,
            segments,
            doc_base,
            entry_base,
            plan: MemoryPlan::unbounded(DEFAULT_MEMORY_BUDGET),
            touched: std::sync::atomic::AtomicU64::new(0),
            resident: None,
            fault_bytes: crate::plan::FAULT_BYTES,
        })
    }

    /// Bounds the peak resident memory of queries through this index ([`Index::query_all`],
    /// [`Index::query_documents_all`]) to about `max_memory` bytes, as [`MemoryPlan`] shares
    /// it out: documents are queried in smaller chunks, and the pages of the mapped segments
    /// that queries touched are given back to the OS whenever they fill half the pages' share
    /// (a reader has no batch and runs no merge: the pages get seven eighths of what is left
    /// after the fixed cost). On Linux that is measured (the process's file-backed resident
    /// memory, read every sixteenth of the share that queries may map, counted with what a
    /// fault maps here, measured once now); elsewhere estimated. Answers are the same with
    /// any bound.
    /// [`Error::MemoryTooSmall`] when the bound is below [`MemoryPlan::MINIMUM`],
    /// [`Error::QueryMemoryTooSmall`] when the pages one query on each thread may touch (a
    /// fault of up to 64 KiB for the directory and one for the band-key records, per band
    /// and segment) do not fit in half the share; nothing is read before that is known.
    pub fn max_memory(&mut self, max_memory: u64) -> Result<&mut Self, Error> {
        let threads = rayon::current_num_threads();
        let plan = MemoryPlan::bounded(max_memory, None)?.for_queries();
        let need = crate::plan::query_pages(
            self.signer.bands(),
            self.segments.len(),
            threads,
            crate::plan::FAULT_BYTES,
        );
        if need.saturating_mul(2) > plan.pages {
            return Err(Error::QueryMemoryTooSmall {
                max_memory,
                minimum: crate::plan::query_minimum(need),
                segments: self.segments.len(),
            });
        }
        self.fault_bytes = self.measure_fault().max(crate::plan::FAULT_BYTES);
        self.set_plan(plan);
        Ok(self)
    }

    /// What a page fault in the band-key records of the largest segment maps on average, by
    /// the process's file-backed resident bytes before and after reading a byte at
    /// [`FAULT_SAMPLES`](crate::plan::FAULT_SAMPLES) places (their pages are given back
    /// after); 0 where the system does not say.
    fn measure_fault(&self) -> u64 {
        let (Some(r), Some(largest)) = (
            FileResident::open(),
            self.segments.iter().max_by_key(|s| s.mapped_bytes()),
        ) else {
            return 0;
        };
        let n = crate::plan::FAULT_SAMPLES;
        largest.release_pages();
        let (Some(before), _, Some(after)) = (r.bytes(), largest.touch_records(n), r.bytes())
        else {
            return 0;
        };
        largest.release_pages();
        after.saturating_sub(before) / n as u64
    }

    /// How this index's memory is shared out (unbounded unless [`Index::max_memory`] was set).
    pub fn memory(&self) -> MemoryPlan {
        self.plan
    }

    fn set_plan(&mut self, plan: MemoryPlan) {
        self.plan = plan;
        self.resident = plan.releases().then(FileResident::open).flatten().map(|r| {
            let base = r.bytes().unwrap_or(0);
            (r, base)
        });
        if plan.releases() {
            // Merges read up to every segment at once: half the pages' share among them.
            let stride = crate::plan::release_stride(plan.pages, self.segments.len());
            for s in &mut self.segments {
                s.pace_reads(stride);
            }
        }
    }

    /// Under a bound, gives the pages of the mapped segments back to the OS when the segments
    /// are larger than their share (queries may have touched any of them).
    pub(crate) fn release_pages(&self) {
        let mapped: u64 = self.segments.iter().map(Segment::mapped_bytes).sum();
        if self.plan.releases() && mapped > self.plan.pages {
            self.touched.store(0, std::sync::atomic::Ordering::Relaxed);
            for s in &self.segments {
                s.release_pages();
            }
        }
    }

    /// Under a bound, counts what looking up the band keys of `units` units reads: a page of
    /// the directory and one of the band-key records per band and segment, and a few more for
    /// the matches; each fault maps up to 16 pages around it (the kernel's fault-around, which
    /// `MADV_RANDOM` does not turn off: measured, 61 MB mapped by 43 sentence queries).
    fn note_lookups(&self, units: usize) {
        let faults = (self.signer.bands() * 2 * (self.segments.len() + 1) + 4) as u64;
        self.note_reads((units as u64).saturating_mul(faults * self.fault_bytes));
    }

    /// Under a bound, counts what resolving one entry a lookup found reads: its record and its
    /// signature, a fault each, scattered over their sections (a chunk query resolves up to
    /// [`DEFAULT_MAX_QUERY_BUCKET`](crate::DEFAULT_MAX_QUERY_BUCKET) entries per band key,
    /// which map most of the signature section if nothing gives them back): counted entry by
    /// entry, so that the pages are given back in the middle of a query.
    fn note_hit(&self) {
        self.note_reads(2 * self.fault_bytes);
    }

    /// Under a bound, counts an estimate of the mapped bytes a query read and gives the pages
    /// back once they may fill half the pages' share (for callers that query one text at a
    /// time, such as the plagiarism checker too). Where the system tells the process's
    /// file-backed resident bytes, they are measured whenever the estimates add up to a
    /// sixteenth of the share (counted with the fault size measured when the bound was set),
    /// and the pages given back when what the process mapped since the bound was set reaches
    /// half the share: a fault maps more than the fault-around estimate on some kernels (a
    /// whole large folio of the page cache: about 275 KiB on average on Linux 6.18 with ext4)
    /// and less on others (pages already mapped). Elsewhere the estimates alone decide.
    fn note_reads(&self, bytes: u64) {
        use std::sync::atomic::Ordering;
        if !self.plan.releases() {
            return;
        }
        let half = self.plan.pages / 2;
        let touched = self.touched.fetch_add(bytes, Ordering::Relaxed) + bytes;
        match &self.resident {
            Some((r, base)) if touched >= self.plan.pages / 16 => {
                self.touched.store(0, Ordering::Relaxed);
                match r.bytes() {
                    Some(now) if now.saturating_sub(*base) < half => {}
                    _ => self.release_pages(),
                }
            }
            Some(_) => {}
            None if touched >= half => self.release_pages(),
            None => {}
        }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The parameters the index was created with.
    pub fn params(&self) -> &Params {
        &self.manifest.params
    }

    /// Its signer.
    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    /// A [`Recipe`] for this index's units (one per thread).
    pub fn recipe(&self) -> Recipe<'_> {
        Recipe::new(&self.manifest.params, &self.signer)
    }

    /// What it holds.
    pub fn stats(&self) -> IndexStats {
        let mut s = IndexStats {
            segments: self.segments.len(),
            generation: self.manifest.generation,
            ..IndexStats::default()
        };
        for e in &self.manifest.segments {
            s.documents += e.docs - e.deleted_docs;
            s.entries += e.entries - e.deleted_entries;
            s.removed_documents += e.deleted_docs;
            s.bytes += e.bytes;
            s.band_key_records += e.pairs;
        }
        s
    }

    /// `result`, unless a segment was found damaged while it was computed (or before): then
    /// [`Error::Corrupt`], since an answer read from damaged data may be wrong.
    fn sound<T>(&self, result: Result<T, Error>) -> Result<T, Error> {
        for seg in &self.segments {
            if let Some(what) = seg.damage() {
                return Err(Error::corrupt(seg.path(), what));
            }
        }
        result
    }

    /// Checks every file of the index in `dir`: the manifest, every segment (each block
    /// against its checksum, then its sections against each other: see `index verify`) and
    /// every deletion file; returns what it holds, or the first problem. Reads every byte
    /// of the index.
    pub fn verify(dir: impl AsRef<Path>) -> Result<IndexStats, Error> {
        let index = Index::open(dir)?;
        index.check()?;
        Ok(index.stats())
    }

    /// What [`Index::verify`] checks after opening: every segment whole, and the manifest's
    /// counts of removed entries.
    fn check(&self) -> Result<(), Error> {
        for (seg, entry) in self.segments.iter().zip(&self.manifest.segments) {
            seg.read_sequentially();
            seg.verify()?;
            // Opening checked the removed documents' count; their entries', which only the
            // statistics use, need the entries read.
            if IndexWriter::entries_of(seg, &seg.deleted_list()) != entry.deleted_entries {
                return Err(Error::corrupt(
                    self.dir.join(MANIFEST),
                    format!(
                        "segment entry {}: the count of removed entries differs from its files",
                        entry.name
                    ),
                ));
            }
        }
        Ok(())
    }

    fn parts(&self) -> Vec<(&dyn Part, u64, u64)> {
        self.segments
            .iter()
            .enumerate()
            .map(|(i, s)| (s as &dyn Part, self.doc_base[i], self.entry_base[i]))
            .collect()
    }

    /// The units of `text` with their matches among the indexed entries.
    pub fn query_text(
        &self,
        text: &str,
        options: &QueryOptions,
    ) -> Result<Vec<UnitMatches>, Error> {
        self.sound(query_text(&self.parts(), self, text, options))
    }

    /// The matches of units signed from `text` with a recipe of this index.
    pub(crate) fn match_units(
        &self,
        text: &str,
        units: &[SignedUnit],
        recipe: &mut Recipe<'_>,
        options: &QueryOptions,
    ) -> Result<Vec<UnitMatches>, Error> {
        self.note_lookups(units.len());
        self.sound(match_units(
            &self.parts(),
            self,
            text,
            units,
            recipe,
            options,
        ))
    }

    /// [`rank_documents`] over this index's parts.
    pub(crate) fn rank_documents(
        &self,
        text: &str,
        units: &[SignedUnit],
        recipe: &mut Recipe<'_>,
        question: DocumentQuery,
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.note_lookups(units.len());
        self.sound(rank_documents(
            &self.parts(),
            self,
            recipe,
            units,
            Some(text),
            question,
            options,
        ))
    }

    /// The entries matching a signature (the `N` minhashes of an item, as
    /// [`Signer::sign`] gives them). Verification needs a text: [`QueryOptions::verify`] is
    /// ignored here.
    pub fn query_signature(
        &self,
        mins: &[u64],
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.sound(query_signature(&self.parts(), self, mins, options))
    }

    /// Whether a document with this id is indexed (and not removed).
    pub fn contains(&self, id: &DocId) -> Result<bool, Error> {
        self.sound(contains(&self.parts(), id))
    }

    /// The document numbered `doc` (see [`Match::doc`]), `None` if there is none or it was
    /// removed. Its text is empty when the index stores none.
    pub fn document(&self, doc: u64) -> Result<Option<Document>, Error> {
        let found = self.sound(document(&self.parts(), doc));
        if let Ok(Some(d)) = &found {
            self.note_reads(d.text.len() as u64 + 16 * 1024);
        }
        found
    }

    /// Chunk indexes: the documents whose chunks share band keys with the chunks of `query`,
    /// ranked and cut to `top` by the same code as [`MemoryIndex::candidates`](crate::MemoryIndex::candidates)
    /// (so `check --index` finds what `check --corpus` finds). Like it with its default cap, band
    /// keys of more than [`DEFAULT_MAX_QUERY_BUCKET`] entries (over all segments, removed documents'
    /// entries included until a compaction) are not counted, so repeated text costs a query
    /// chunk at most bands × that many entries. [`Candidate::doc`] is the document number
    /// ([`Index::document`]); [`Candidate::best_chunk`] an entry number.
    pub fn candidate_documents(&self, query: &str, top: usize) -> Result<Vec<Candidate>, Error> {
        // Its chunks' lookups and the entries they find are counted as they are read.
        self.sound(candidate_documents(&self.parts(), self, query, top))
    }

    /// The `k` indexed documents most similar to `query` (a text, or a signature: [`Query`]),
    /// best first, even when none reaches the index's threshold: what datasketch's
    /// `MinHashLSHForest.query(m, k)` answers. One [`Match`] per document: its entry most
    /// similar to a query unit, whose Jaccard similarity is the document's score (for a
    /// document index, the similarity of the two texts; for sentences or paragraphs, of the
    /// best pair of units).
    ///
    /// Candidates are the documents with an entry sharing a band key with a query unit, as
    /// [`Index::query_text`] finds them (every bucket, whatever its size), tallied per
    /// document ([`Candidate`]); they are ranked by their best estimated Jaccard similarity,
    /// or with [`QueryOptions::verify`] by the exact one (every candidate pair is verified, so
    /// the order is exact among the candidates), ties by lower document number, and cut to
    /// `k` (and to [`QueryOptions::limit`]); [`QueryOptions::min_jaccard`] leaves out
    /// documents whose score is below it and [`QueryOptions::text`] adds the best entry's
    /// text. `k = 0` finds nothing.
    ///
    /// # What it cannot find
    ///
    /// A document none of whose entries shares a band key with a query unit is invisible to
    /// banded LSH: at Jaccard similarity `s` a pair shares one with the probability of the
    /// index's S-curve ([`Signer::exact_match_probability`]: with the sentence defaults 0.83 at
    /// `s = 0.9`, 0.45 at 0.8, 0.008 at 0.5), so below the threshold the top `k` is a sample of
    /// the nearest documents, not all of them, and fewer than `k` may come back. The keys hash
    /// whole bands, so there are no shorter prefixes to widen the search with (as an LSH
    /// Forest's trees have); seeing every document would mean comparing every signature,
    /// which this index does not do. An index planned for a lower threshold
    /// ([`Params::threshold`]) sees further.
    ///
    /// ```
    /// use textreuse_corpus::Document;
    /// use textreuse_index::{Index, IndexUnit, IndexWriter, Params, QueryOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let params = Params::new(IndexUnit::Document).threshold(0.5)?;
    /// let mut writer = IndexWriter::create(dir.path(), params)?;
    /// let text = "The old mill on the river was built in 1820 and still grinds grain for the bakery \
    ///     in the town, and on Sundays visitors come to watch the great wheel turn in the stream.";
    /// let one = text.replace("bakery", "baker");
    /// let two = one.replace("Sundays", "Mondays");
    /// let tomatoes = "Tomatoes grow best in warm weather with plenty of sun.";
    /// for (id, text) in [("one word", &*one), ("tomatoes", tomatoes), ("copy", text), ("two words", &*two)] {
    ///     writer.add(&Document::new(id, "", text))?;
    /// }
    /// writer.commit()?;
    /// drop(writer);
    ///
    /// let index = Index::open(dir.path())?;
    /// let nearest = index.query_top_k(text, 3, &QueryOptions::new().verify(true))?;
    /// let ids: Vec<String> = nearest.iter().map(|m| m.id.to_string()).collect();
    /// assert_eq!(ids, ["copy", "one word", "two words"]);
    /// assert_eq!(nearest[0].jaccard, Some(1.0));
    /// assert!(nearest[1].jaccard > nearest[2].jaccard);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query_top_k<'a>(
        &self,
        query: impl Into<Query<'a>>,
        k: usize,
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.sound(query_documents(
            &self.parts(),
            self,
            query.into(),
            DocumentQuery::TopK(k),
            options,
        ))
    }

    /// The indexed documents that contain at least `threshold` of `text` (from 0 to 1), most
    /// first, ties by lower document number: what datasketch's `MinHashLSHEnsemble` answers
    /// ("which documents contain most of this text"). Containment is `C(Q, X) = |Q ∩ X| /
    /// |Q|`, the share of the query's shingle set `Q` in the document's `X`; a short text
    /// quoted in a long document is contained in it though their Jaccard similarity is small.
    ///
    /// It works through the index's units: the query is cut into units, each finds the
    /// document's units that share a band key with it (as [`Index::query_text`] does), and
    /// the estimate is the share of the query's units covered by the document, each unit
    /// weighted by its length in characters and counted by its estimated containment in its
    /// most similar unit of the document ([`unit_containment`](crate::unit_containment) of
    /// their estimated Jaccard similarity and lengths; see [`Candidate::containment`]), in
    /// [`Match::estimated_containment`]. With [`QueryOptions::verify`] every candidate
    /// document is checked exactly, `|Q ∩ X| / |Q|` over the shingles of the two whole texts
    /// (the index must store texts), in [`Match::containment`], and the threshold and order
    /// apply to that value. Each [`Match`] is the document's entry most similar to a query
    /// unit (its Jaccard similarity estimated, not verified); [`QueryOptions::limit`] caps
    /// the number of documents, [`QueryOptions::text`] adds that entry's text, and
    /// [`QueryOptions::min_jaccard`] is not used.
    ///
    /// Containment needs units about the size of the pieces the query shares with a document:
    /// sentences, paragraphs or chunks. In a document index a long document is one unit whose
    /// Jaccard similarity with a short query is small, so it shares no band key with it and is
    /// not found. The estimate leaves out units the index's recipe drops (shorter than
    /// [`Params::min_shingles`]) and shingles across unit boundaries, which the exact value
    /// counts; and as for [`Index::query_top_k`], a document sharing no band key with any query
    /// unit is not seen. A threshold outside `0..=1` is [`Error::Threshold`].
    ///
    /// ```
    /// use textreuse_corpus::Document;
    /// use textreuse_index::{Index, IndexUnit, IndexWriter, Params, QueryOptions};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut writer = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence))?;
    /// let sentences = [
    ///     "The old mill on the river was built in 1820 and still grinds grain for the bakery in town.",
    ///     "Bees collect nectar and pollen from flowers, and carry pollen from one plant to the next.",
    ///     "The committee met every second week to review the budget and argued about the library.",
    ///     "Chess engines search millions of positions per second and evaluate each with a function.",
    ///     "Volcanoes form where magma reaches the surface, mostly along the edges of tectonic plates.",
    /// ];
    /// writer.add(&Document::new("long", "A long document", sentences.join(" ")))?;
    /// writer.commit()?;
    /// drop(writer);
    ///
    /// let index = Index::open(dir.path())?;
    /// let quote = format!("{} {}", sentences[1], sentences[3]); // two of its five sentences
    /// let found = index.query_containment(&quote, 0.8, &QueryOptions::new().verify(true))?;
    /// assert_eq!(found[0].id.to_string(), "long");
    /// assert_eq!(found[0].estimated_containment, Some(1.0));
    /// // Exactly a little less: the shingles across the two sentences are not in it.
    /// assert!(found[0].containment.unwrap() > 0.9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn query_containment(
        &self,
        text: &str,
        threshold: f64,
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.sound(query_documents(
            &self.parts(),
            self,
            Query::Text(text),
            DocumentQuery::Containment(threshold),
            options,
        ))
    }

    /// [`Index::query_top_k`] or [`Index::query_containment`], as `question` says. A
    /// signature asked for containment is one unit of unknown length (its estimate takes the
    /// units it is compared with as its size: `2J / (1 + J)`) and is never verified.
    pub fn query_documents<'a>(
        &self,
        query: impl Into<Query<'a>>,
        question: DocumentQuery,
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.sound(query_documents(
            &self.parts(),
            self,
            query.into(),
            question,
            options,
        ))
    }
}

/// Resolves `entry` of `part` into a [`Match`].
#[allow(clippy::too_many_arguments)]
fn to_match(
    part: &dyn Part,
    doc_base: u64,
    entry_base: u64,
    entry: u32,
    shared: usize,
    estimate: f64,
    jaccard: Option<f64>,
    want_text: bool,
) -> Result<Match, Error> {
    let [d, start, end] = part.entry(entry);
    let stored = part.doc(d)?;
    let chars = start as u64..end as u64;
    let text = if want_text {
        stored
            .text
            .and_then(|t| char_range(t, &chars).map(|r| t[r].to_string()))
    } else {
        None
    };
    Ok(Match {
        id: stored.id.clone(),
        title: stored.title.to_string(),
        origin: stored.origin(),
        doc: doc_base + d as u64,
        entry: entry_base + entry as u64,
        chars,
        shared_bands: shared,
        estimated_jaccard: estimate,
        jaccard,
        text,
        estimated_containment: None,
        containment: None,
    })
}

/// The candidates of one signed unit: `(part, entry, shared bands, equal minhashes)` of every
/// live entry sharing a band key, in part and entry order. Each entry read is counted against
/// `index`'s pages share.
fn candidates(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    mins: &[u64],
    keys: &[u64],
    width: usize,
) -> Vec<(usize, u32, usize, usize)> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for (p, (part, _, _)) in parts.iter().enumerate() {
        seen.clear();
        for &k in keys {
            part.lookup(k, &mut seen);
        }
        count_members(&mut seen, |e, shared| {
            index.note_hit();
            let [d, _, _] = part.entry(e);
            if !part.deleted(d) {
                let equal = equal_minhashes(part.signature(e), mins, width);
                out.push((p, e, shared, equal));
            }
        });
    }
    out
}

/// The matches of one signed unit (with its text, for verification).
fn unit_matches(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    mins: &[u64],
    keys: &[u64],
    unit_text: Option<&str>,
    recipe: &mut Recipe<'_>,
    options: &QueryOptions,
) -> Result<Vec<Match>, Error> {
    let width = index.manifest.params.signature_bytes as usize;
    let hashes = mins.len() as f64;
    let verify = options.verify && unit_text.is_some();
    if verify && !index.manifest.params.store_text {
        return Err(Error::NoText("verification"));
    }
    let query_set = match (verify, unit_text) {
        (true, Some(t)) => recipe.shingle_set(t),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    for (p, e, shared, equal) in candidates(parts, index, mins, keys, width) {
        let (part, doc_base, entry_base) = parts[p];
        let estimate = equal as f64 / hashes;
        let jaccard = if verify {
            let set = recipe.shingle_set(stored_unit(part, e)?);
            Some(textreuse_shingle::sorted_jaccard(&query_set, &set))
        } else {
            None
        };
        if jaccard.unwrap_or(estimate) < options.min_jaccard {
            continue;
        }
        out.push(to_match(
            part,
            doc_base,
            entry_base,
            e,
            shared,
            estimate,
            jaccard,
            options.text,
        )?);
    }
    out.sort_by(|a, b| {
        let score = |m: &Match| m.jaccard.unwrap_or(m.estimated_jaccard);
        score(b)
            .total_cmp(&score(a))
            .then(a.doc.cmp(&b.doc))
            .then(a.entry.cmp(&b.entry))
    });
    out.truncate(options.limit);
    Ok(out)
}

fn query_text(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    text: &str,
    options: &QueryOptions,
) -> Result<Vec<UnitMatches>, Error> {
    let mut recipe = index.recipe();
    let units = recipe.units(text);
    match_units(parts, index, text, &units, &mut recipe, options)
}

/// The matches of `units`, signed from `text`.
fn match_units(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    text: &str,
    units: &[SignedUnit],
    recipe: &mut Recipe<'_>,
    options: &QueryOptions,
) -> Result<Vec<UnitMatches>, Error> {
    units
        .iter()
        .map(|u| {
            let matches = unit_matches(
                parts,
                index,
                &u.mins,
                &u.keys,
                Some(&text[u.span.clone()]),
                recipe,
                options,
            )?;
            Ok(UnitMatches {
                span: u.span.clone(),
                chars: u.chars.clone(),
                matches,
            })
        })
        .collect()
}

fn query_signature(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    mins: &[u64],
    options: &QueryOptions,
) -> Result<Vec<Match>, Error> {
    let signer = &index.signer;
    if mins.len() != signer.hashes() {
        return Err(Error::SignatureLength {
            expected: signer.hashes(),
            got: mins.len(),
        });
    }
    let mut keys = vec![0; signer.bands()];
    signer.band_keys_into(mins, &mut keys);
    let mut recipe = index.recipe();
    unit_matches(parts, index, mins, &keys, None, &mut recipe, options)
}

fn contains(parts: &[(&dyn Part, u64, u64)], id: &DocId) -> Result<bool, Error> {
    Ok(!find_id(parts, id)?.is_empty())
}

/// The live documents with this id: `(part, doc)`.
fn find_id(parts: &[(&dyn Part, u64, u64)], id: &DocId) -> Result<Vec<(usize, u32)>, Error> {
    let h = id_hash(id);
    let mut found = Vec::new();
    let mut docs = Vec::new();
    for (p, (part, _, _)) in parts.iter().enumerate() {
        docs.clear();
        part.docs_with_id(h, &mut docs);
        for &d in &docs {
            if !part.deleted(d) && part.doc(d)?.id == *id {
                found.push((p, d));
            }
        }
    }
    Ok(found)
}

fn document(parts: &[(&dyn Part, u64, u64)], doc: u64) -> Result<Option<Document>, Error> {
    for (part, base, _) in parts {
        let (docs, _) = part.counts();
        if doc >= *base && doc < base + docs {
            let d = (doc - base) as u32;
            if part.deleted(d) {
                return Ok(None);
            }
            return Ok(Some(part.doc(d)?.to_document()));
        }
    }
    Ok(None)
}

/// Hands the entries of `parts` that share one of `keys` with the current query unit of
/// `tally` to it, resolved by `resolve(part, doc_base, entry_base, entry)`.
fn tally_unit<E>(
    parts: &[(&dyn Part, u64, u64)],
    keys: &[u64],
    tally: &mut Tally,
    seen: &mut Vec<u32>,
    mut resolve: impl FnMut(&dyn Part, u64, u64, u32) -> Result<Option<Hit>, E>,
) -> Result<(), E> {
    for &(part, doc_base, entry_base) in parts {
        seen.clear();
        for &k in keys {
            part.lookup(k, seen);
        }
        tally.try_add(seen, |e| resolve(part, doc_base, entry_base, e))?;
    }
    Ok(())
}

/// The [`Hit`] of a live entry `e` of `part` for a query unit of minhashes `mins` (its score
/// the estimate: the caller may replace it).
fn hit(
    part: &dyn Part,
    doc_base: u64,
    entry_base: u64,
    e: u32,
    mins: &[u64],
    width: usize,
) -> Option<Hit> {
    let [d, start, end] = part.entry(e);
    if part.deleted(d) {
        return None;
    }
    let estimate = equal_minhashes(part.signature(e), mins, width) as f64 / mins.len() as f64;
    Some(Hit {
        doc: (doc_base + d as u64) as usize,
        chunk: (entry_base + e as u64) as usize,
        estimate,
        score: estimate,
        len: end.saturating_sub(start) as u64,
    })
}

fn candidate_documents(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    query: &str,
    top: usize,
) -> Result<Vec<Candidate>, Error> {
    let width = index.manifest.params.signature_bytes as usize;
    let mut recipe = index.recipe();
    let mut tally = Tally::default();
    let mut seen = Vec::new();
    for u in recipe.units(query) {
        index.note_lookups(1);
        tally.unit(u.span.clone(), u.chars.end - u.chars.start);
        // Keys of more than the cap's entries over all parts are skipped.
        let kept: Vec<u64> = u
            .keys
            .iter()
            .copied()
            .filter(|&k| {
                parts
                    .iter()
                    .map(|(part, _, _)| part.key_len(k))
                    .sum::<usize>()
                    <= DEFAULT_MAX_QUERY_BUCKET
            })
            .collect();
        tally_unit(parts, &kept, &mut tally, &mut seen, |part, db, eb, e| {
            index.note_hit();
            Ok::<_, Error>(hit(part, db, eb, e, &u.mins, width))
        })?;
    }
    Ok(tally.candidates(Order::SharedKeys(top)))
}

/// The part holding global entry number `entry`: `(part, doc base, entry base, its number
/// there)`.
fn locate<'p>(parts: &[(&'p dyn Part, u64, u64)], entry: u64) -> (&'p dyn Part, u64, u64, u32) {
    let i = parts.partition_point(|&(_, _, base)| base <= entry) - 1;
    let (part, doc_base, entry_base) = parts[i];
    (part, doc_base, entry_base, (entry - entry_base) as u32)
}

/// The text of a stored unit (empty when the index stores none or it is out of range).
fn stored_unit(part: &dyn Part, e: u32) -> Result<&str, Error> {
    let [d, start, end] = part.entry(e);
    let text = part.doc(d)?.text.unwrap_or_default();
    Ok(char_range(text, &(start as u64..end as u64)).map_or("", |r| &text[r]))
}

/// [`Index::query_documents`] over `parts`.
fn query_documents(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    query: Query<'_>,
    question: DocumentQuery,
    options: &QueryOptions,
) -> Result<Vec<Match>, Error> {
    question.check()?;
    let signer = &index.signer;
    let mut recipe = index.recipe();
    match query {
        Query::Text(t) => {
            let units = recipe.units(t);
            rank_documents(
                parts,
                index,
                &mut recipe,
                &units,
                Some(t),
                question,
                options,
            )
        }
        Query::Signature(mins) => {
            if mins.len() != signer.hashes() {
                return Err(Error::SignatureLength {
                    expected: signer.hashes(),
                    got: mins.len(),
                });
            }
            let mut keys = vec![0; signer.bands()];
            signer.band_keys_into(mins, &mut keys);
            let unit = SignedUnit {
                span: 0..0,
                chars: 0..0,
                mins: mins.to_vec(),
                keys,
            };
            rank_documents(parts, index, &mut recipe, &[unit], None, question, options)
        }
    }
}

/// The documents answering `question` for a query of `units` (signed from `text`, or one
/// signature when `text` is `None`), after [`DocumentQuery::check`].
pub(crate) fn rank_documents(
    parts: &[(&dyn Part, u64, u64)],
    index: &Index,
    recipe: &mut Recipe<'_>,
    units: &[SignedUnit],
    text: Option<&str>,
    question: DocumentQuery,
    options: &QueryOptions,
) -> Result<Vec<Match>, Error> {
    if question == DocumentQuery::TopK(0) {
        return Ok(Vec::new());
    }
    let width = index.manifest.params.signature_bytes as usize;
    let verify = options.verify && text.is_some();
    if verify && !index.manifest.params.store_text {
        return Err(Error::NoText("verification"));
    }
    // Top-k verifies every candidate pair, so that the best pair of a document is the best
    // by exact Jaccard; containment verifies whole documents after the tally.
    let verify_pairs = verify && matches!(question, DocumentQuery::TopK(_));
    let mut tally = Tally::default();
    let mut seen = Vec::new();
    for u in units {
        tally.unit(u.span.clone(), u.chars.end - u.chars.start);
        let query_set = match text {
            Some(t) if verify_pairs => recipe.shingle_set(&t[u.span.clone()]),
            _ => Vec::new(),
        };
        tally_unit(parts, &u.keys, &mut tally, &mut seen, |part, db, eb, e| {
            index.note_hit();
            let Some(mut h) = hit(part, db, eb, e, &u.mins, width) else {
                return Ok(None);
            };
            if verify_pairs {
                let set = recipe.shingle_set(stored_unit(part, e)?);
                h.score = textreuse_shingle::sorted_jaccard(&query_set, &set);
            }
            Ok::<_, Error>(Some(h))
        })?;
    }
    let limit = options.limit;
    let mut found: Vec<(Tallied, Option<f64>)> = match question {
        DocumentQuery::TopK(k) => tally
            .ranked(Order::Nearest(k.min(limit)))
            .into_iter()
            .filter(|t| t.candidate.best_jaccard >= options.min_jaccard)
            .map(|t| (t, None))
            .collect(),
        DocumentQuery::Containment(threshold) => match text {
            Some(text) if verify => {
                let query_set = recipe.shingle_set(text);
                let mut found = Vec::new();
                for t in tally.ranked(Order::Contained(0.0)) {
                    let (part, _, _, e) = locate(parts, t.candidate.best_chunk as u64);
                    let [d, _, _] = part.entry(e);
                    let doc_text = part.doc(d)?.text.unwrap_or_default();
                    let set = recipe.shingle_set(doc_text);
                    let exact = textreuse_shingle::sorted_containment(&query_set, &set);
                    if exact >= threshold {
                        found.push((t, Some(exact)));
                    }
                }
                found.sort_by(|(a, x), (b, y)| {
                    y.unwrap_or_default()
                        .total_cmp(&x.unwrap_or_default())
                        .then(a.candidate.doc.cmp(&b.candidate.doc))
                });
                found
            }
            _ => tally
                .ranked(Order::Contained(threshold))
                .into_iter()
                .map(|t| (t, None))
                .collect(),
        },
    };
    found.truncate(limit);
    found
        .into_iter()
        .map(|(t, exact)| {
            let (part, doc_base, entry_base, e) = locate(parts, t.candidate.best_chunk as u64);
            let mut m = to_match(
                part,
                doc_base,
                entry_base,
                e,
                t.best_shared,
                t.best_estimate,
                verify_pairs.then_some(t.candidate.best_jaccard),
                options.text,
            )?;
            if let DocumentQuery::Containment(_) = question {
                m.estimated_containment = Some(t.candidate.containment);
                m.containment = exact;
            }
            Ok(m)
        })
        .collect()
}

/// Adds to, removes from, commits and compacts one index; the only process writing to it
/// while it lives (a lock on `DIR/LOCK`, released when it is dropped or its process exits).
///
/// Added documents are signed and held in memory until [`IndexWriter::commit`], which writes
/// them as a new segment and then replaces the manifest atomically. A crash (even `kill -9`)
/// leaves the index at its last commit; files of an unfinished commit are deleted when the
/// next writer opens it. A commit also happens by itself when the uncommitted batch reaches
/// half the memory budget ([`IndexWriter::memory_budget`]), and [`IndexWriter::compact`] runs
/// by itself when more than [`MAX_SEGMENTS`] segments pile up (merging [`MERGE_RUN`] of them).
///
/// Queries on a writer see its uncommitted documents and removals too.
///
/// ```
/// use textreuse_corpus::Document;
/// use textreuse_index::{IndexUnit, IndexWriter, Params, QueryOptions};
///
/// let dir = tempfile::tempdir()?;
/// let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Document).threshold(0.7)?)?;
/// let text = "Bees collect nectar and pollen from flowers and carry pollen from plant to plant.";
/// w.add(&Document::new(1, "Bees", text))?;
/// assert!(w.contains(&1u64.into())?);
/// let found = w.query_text(text, &QueryOptions::default())?;
/// assert_eq!(found[0].matches.len(), 1);
/// assert_eq!(w.remove(&1u64.into())?, 1);
/// assert!(w.query_text(text, &QueryOptions::default())?[0].matches.is_empty());
/// w.commit()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct IndexWriter {
    index: Index,
    _lock: File,
    batch: Batch,
    budget: u64,
    /// The batch budget given to [`IndexWriter::memory_budget`], if one was.
    budget_given: Option<u64>,
    /// Segments whose removals are not committed.
    dirty: Vec<bool>,
}

fn lock(dir: &Path) -> Result<File, Error> {
    let path = dir.join(LOCK);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| Error::io(&path, e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(Error::Locked {
                path: dir.to_path_buf(),
                holder: if holder.is_empty() {
                    String::new()
                } else {
                    format!(" ({holder})")
                },
            });
        }
        Err(fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
    }
    let me = format!(
        "pid {}: {}",
        std::process::id(),
        std::env::args().collect::<Vec<_>>().join(" ")
    );
    file.set_len(0).map_err(|e| Error::io(&path, e))?;
    (&file)
        .write_all(me.as_bytes())
        .map_err(|e| Error::io(&path, e))?;
    Ok(file)
}

/// Removes a file when dropped, unless its path was taken out: a segment being written,
/// removed if writing it fails.
struct RemoveOnDrop(Option<PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        if let Some(path) = self.0.take() {
            let _ = fs::remove_file(path);
        }
    }
}

/// Whether `s` is at least `min` ASCII digits and nothing else.
fn digits(s: &str, min: usize) -> bool {
    s.len() >= min && s.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `name` is a committed file's name as [`IndexWriter`] makes them: a segment
/// (`seg-000001.seg`) or a deletion file (`seg-000001.del-000004`, its generation).
fn is_index_file(name: &str) -> bool {
    let segment = |s: &str| s.strip_prefix("seg-").is_some_and(|n| digits(n, 6));
    if let Some(seg) = name.strip_suffix(".seg") {
        return segment(seg);
    }
    name.split_once(".del-")
        .is_some_and(|(seg, generation)| segment(seg) && digits(generation, 6))
}

/// Whether `name` is a temporary file of the index's, which a crash can leave behind: a
/// segment being written (`seg-000001.seg.tmp`), [`write_atomic`]'s
/// (`.MANIFEST.<pid>.tmp`, `.seg-000001.del-000004.<pid>.tmp`), and those of earlier builds
/// (`MANIFEST.tmp`, `seg-000001.del-000004.tmp`). Nothing else in the directory is the
/// index's to delete.
fn is_index_temp(name: &str) -> bool {
    let ours = |file: &str| file == MANIFEST || is_index_file(file);
    let Some(stem) = name.strip_suffix(".tmp") else {
        return false;
    };
    ours(stem)
        || stem
            .strip_prefix('.')
            .and_then(|s| s.rsplit_once('.'))
            .is_some_and(|(file, pid)| digits(pid, 1) && ours(file))
}

/// The names in `dir` other than what an interrupted [`IndexWriter::create`] leaves (the
/// lock, a temporary manifest), sorted.
fn entries_besides_create(dir: &Path) -> Result<Vec<String>, Error> {
    let mut names = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let leftover = name == LOCK || (is_index_temp(&name) && name.contains(MANIFEST));
        if !leftover {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

impl IndexWriter {
    /// Creates an index in `dir` (created if missing). The directory must be empty:
    /// [`Error::Exists`] if it holds an index, [`Error::NotEmpty`] if it holds anything else
    /// (such as the segments of an index whose `MANIFEST` is lost).
    pub fn create(dir: impl AsRef<Path>, params: Params) -> Result<IndexWriter, Error> {
        let dir = dir.as_ref();
        params.check()?;
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        // Checked before locking, so that a refused directory is left as it was (no LOCK). An
        // index there (a MANIFEST) is reported below, once locked, as before.
        if !dir.join(MANIFEST).exists() {
            let names = entries_besides_create(dir)?;
            if !names.is_empty() {
                // A segment, if there is one, says "an index was here" best.
                let segment = |n: &&String| is_index_file(n) && n.ends_with(".seg");
                let example = names.iter().find(segment).unwrap_or(&names[0]).clone();
                return Err(Error::NotEmpty {
                    path: dir.to_path_buf(),
                    entries: names.len(),
                    example,
                });
            }
        }
        let lock = lock(dir)?;
        if dir.join(MANIFEST).exists() {
            return Err(Error::Exists(dir.to_path_buf()));
        }
        let manifest = Manifest {
            format: FORMAT.into(),
            version: VERSION,
            id: hex(new_index_id(&params)),
            params_digest: hex(fingerprint(
                &serde_json::to_vec(&params).expect("params serialize"),
            )),
            params,
            generation: 0,
            next_segment: 1,
            segments: Vec::new(),
            checksum: String::new(),
        };
        write_atomic(dir, MANIFEST, &manifest.to_bytes())?;
        IndexWriter::with_lock(dir, lock)
    }

    /// Opens the index in `dir` for writing; fails with [`Error::Locked`] while another writer
    /// has it.
    pub fn open(dir: impl AsRef<Path>) -> Result<IndexWriter, Error> {
        let dir = dir.as_ref();
        if !dir.join(MANIFEST).exists() {
            return Err(Error::NotAnIndex(dir.to_path_buf()));
        }
        let lock = lock(dir)?;
        IndexWriter::with_lock(dir, lock)
    }

    fn with_lock(dir: &Path, lock: File) -> Result<IndexWriter, Error> {
        let index = Index::load(dir, read_manifest(dir)?)?;
        let p = &index.manifest.params;
        let batch = Batch::new(p.bands, p.signature_bytes as usize);
        let dirty = vec![false; index.segments.len()];
        let w = IndexWriter {
            index,
            _lock: lock,
            batch,
            budget: DEFAULT_MEMORY_BUDGET,
            budget_given: None,
            dirty,
        };
        w.collect_garbage()?;
        Ok(w)
    }

    /// Deletes the files no commit refers to: those of an interrupted commit, and those a
    /// later commit replaced. Only names the index makes ([`is_index_file`],
    /// [`is_index_temp`]) are deleted; anything else in the directory is left alone.
    fn collect_garbage(&self) -> Result<(), Error> {
        let dir = &self.index.dir;
        let mut keep: Vec<String> = vec![MANIFEST.into(), LOCK.into()];
        for s in &self.index.manifest.segments {
            keep.push(format!("{}.seg", s.name));
            keep.extend(s.deleted.clone());
        }
        for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
            let entry = entry.map_err(|e| Error::io(dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let ours = is_index_file(&name) || is_index_temp(&name);
            if ours && !keep.contains(&name) {
                fs::remove_file(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
            }
        }
        Ok(())
    }

    /// The memory budget in bytes (default [`DEFAULT_MEMORY_BUDGET`], at least 1 MiB): the
    /// uncommitted batch is committed when it reaches half of it, and writing it takes about
    /// as much again.
    ///
    /// Under a memory bound ([`IndexWriter::max_memory`]) the batch gets its share of the
    /// bound; a budget given here (before the bound is set) is used instead, and must fit in
    /// that share.
    pub fn memory_budget(&mut self, bytes: u64) -> &mut Self {
        let bytes = bytes.max(1 << 20);
        self.budget_given = Some(bytes);
        self.budget = bytes.min(self.index.plan.batch);
        self
    }

    /// Bounds the peak resident memory of this writer's runs ([`IndexWriter::add_all`],
    /// commits, merges, [`IndexWriter::compact`]) to about `max_memory` bytes, as
    /// [`MemoryPlan`] shares it out: the uncommitted batch gets its share (or the budget given
    /// to [`IndexWriter::memory_budget`], which must fit in it), documents are signed in
    /// smaller chunks, merges whose tables do not fit in their share are put off (and
    /// `compact` refuses with [`Error::MergeTooLarge`]), and the pages of segments read whole
    /// are given back to the OS as they are read. The documents and answers of the index are
    /// the same with any bound (its segments are cut at other places).
    ///
    /// [`Error::MemoryTooSmall`] when the bound is below [`MemoryPlan::MINIMUM`],
    /// [`Error::BatchTooLarge`] when the given budget does not fit; nothing is read before
    /// that is known.
    ///
    /// ```
    /// use textreuse_index::{Error, IndexUnit, IndexWriter, MemoryPlan, Params};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Sentence))?;
    /// assert!(matches!(w.max_memory(1 << 20), Err(Error::MemoryTooSmall { .. })));
    /// w.max_memory(256 << 20)?;
    /// assert!(w.memory().batch <= 128 << 20);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn max_memory(&mut self, max_memory: u64) -> Result<&mut Self, Error> {
        let plan = MemoryPlan::bounded(max_memory, self.budget_given)?;
        self.budget = plan.batch;
        self.index.set_plan(plan);
        Ok(self)
    }

    /// How this writer's memory is shared out (unbounded unless [`IndexWriter::max_memory`]
    /// was set).
    pub fn memory(&self) -> MemoryPlan {
        self.index.plan
    }

    /// The last commit (without the uncommitted batch).
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.index.manifest.params
    }

    /// What the index holds, counting the uncommitted documents (and their entries) and
    /// removals (entries of uncommitted removals of committed documents are counted until the
    /// commit).
    pub fn stats(&self) -> IndexStats {
        let mut s = self.index.stats();
        let removed = self.batch.removed_docs();
        let live = (self.batch.docs() - removed.len()) as u64;
        s.uncommitted_documents = live;
        s.documents += live;
        s.entries += self.batch.entries() as u64 - Self::entries_of(&self.batch, &removed);
        for (seg, e) in self
            .index
            .segments
            .iter()
            .zip(&self.index.manifest.segments)
        {
            let new = seg.deleted_docs - e.deleted_docs;
            s.documents -= new;
            s.removed_documents += new;
        }
        s
    }

    /// Documents added and not removed, committed or not.
    pub fn len(&self) -> u64 {
        self.stats().documents
    }

    /// Whether it holds no document.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The committed segments and the batch (after [`Batch::index_keys`] for queries,
    /// [`Batch::index_ids`] for id lookups).
    fn parts(&self) -> Vec<(&dyn Part, u64, u64)> {
        let mut parts = self.index.parts();
        let doc_base = *self.index.doc_base.last().expect("at least one base");
        let entry_base = *self.index.entry_base.last().expect("at least one base");
        parts.push((&self.batch as &dyn Part, doc_base, entry_base));
        parts
    }

    /// Signs `doc`'s units and adds them (none when it has no unit the index keeps: it is still
    /// recorded, so [`IndexWriter::contains`] finds it). Returns the number of units.
    pub fn add(&mut self, doc: &Document) -> Result<usize, Error> {
        let units = self.index.recipe().units(&doc.text);
        self.add_signed(doc, &units)?;
        Ok(units.len())
    }

    /// Adds a document whose units were signed elsewhere (in parallel, say) with this index's
    /// [`Index::recipe`].
    pub fn add_signed(&mut self, doc: &Document, units: &[SignedUnit]) -> Result<(), Error> {
        // Everything is checked before anything is added: an error leaves the batch as it was.
        let (hashes, bands) = (self.index.signer.hashes(), self.index.signer.bands());
        let mut spans = Vec::with_capacity(units.len());
        for u in units {
            if u.mins.len() != hashes || u.keys.len() != bands {
                return Err(Error::SignatureLength {
                    expected: hashes,
                    got: u.mins.len(),
                });
            }
            let chars = [u.chars.start, u.chars.end].map(u32::try_from);
            match chars {
                [Ok(start), Ok(end)] => spans.push([start, end]),
                _ => return Err(Error::TooLarge("characters in a document")),
            }
        }
        let store_text = self.params().store_text;
        let d = self.batch.push_doc(doc, store_text);
        for (u, span) in units.iter().zip(spans) {
            self.batch.push_entry(d, span, &u.mins, &u.keys);
        }
        self.maybe_commit()
    }

    /// Adds one entry given by its signature (`N` minhashes from [`Signer::sign`], the Python
    /// package or another program using this index's parameters), under document id `id`
    /// with no text.
    pub fn insert_signature(&mut self, id: DocId, mins: &[u64]) -> Result<(), Error> {
        let signer = &self.index.signer;
        if mins.len() != signer.hashes() {
            return Err(Error::SignatureLength {
                expected: signer.hashes(),
                got: mins.len(),
            });
        }
        let mut keys = vec![0; signer.bands()];
        signer.band_keys_into(mins, &mut keys);
        let unit = SignedUnit {
            span: 0..0,
            chars: 0..0,
            mins: mins.to_vec(),
            keys,
        };
        let doc = Document {
            id,
            title: String::new(),
            text: String::new(),
            origin: Origin::default(),
            links: None,
        };
        self.add_signed(&doc, std::slice::from_ref(&unit))
    }

    fn maybe_commit(&mut self) -> Result<(), Error> {
        if self.batch.bytes() >= self.budget / 2 {
            self.commit()?;
        }
        Ok(())
    }

    /// Removes every document with this id; returns how many. The space is reclaimed by
    /// [`IndexWriter::compact`].
    pub fn remove(&mut self, id: &DocId) -> Result<u64, Error> {
        let nsegs = self.index.segments.len();
        self.batch.index_ids();
        let found = {
            let parts = self.parts();
            self.index.sound(find_id(&parts, id))?
        };
        for &(p, d) in &found {
            if p < nsegs {
                self.index.segments[p].delete(d);
                self.dirty[p] = true;
            } else {
                self.batch.deleted[d as usize] = true;
            }
        }
        Ok(found.len() as u64)
    }

    /// Whether a document with this id is held (committed or not) and not removed.
    pub fn contains(&mut self, id: &DocId) -> Result<bool, Error> {
        self.batch.index_ids();
        self.index.sound(contains(&self.parts(), id))
    }

    /// [`Index::query_text`], over the committed and the uncommitted entries.
    pub fn query_text(
        &mut self,
        text: &str,
        options: &QueryOptions,
    ) -> Result<Vec<UnitMatches>, Error> {
        self.batch.index_keys();
        let parts = self.parts();
        self.index
            .sound(query_text(&parts, &self.index, text, options))
    }

    /// [`Index::query_signature`], over the committed and the uncommitted entries.
    pub fn query_signature(
        &mut self,
        mins: &[u64],
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.batch.index_keys();
        let parts = self.parts();
        self.index
            .sound(query_signature(&parts, &self.index, mins, options))
    }

    /// [`Index::query_top_k`], over the committed and the uncommitted entries.
    pub fn query_top_k<'a>(
        &mut self,
        query: impl Into<Query<'a>>,
        k: usize,
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.query_documents(query, DocumentQuery::TopK(k), options)
    }

    /// [`Index::query_containment`], over the committed and the uncommitted entries.
    pub fn query_containment(
        &mut self,
        text: &str,
        threshold: f64,
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.query_documents(text, DocumentQuery::Containment(threshold), options)
    }

    /// [`Index::query_documents`], over the committed and the uncommitted entries.
    pub fn query_documents<'a>(
        &mut self,
        query: impl Into<Query<'a>>,
        question: DocumentQuery,
        options: &QueryOptions,
    ) -> Result<Vec<Match>, Error> {
        self.batch.index_keys();
        let parts = self.parts();
        self.index.sound(query_documents(
            &parts,
            &self.index,
            query.into(),
            question,
            options,
        ))
    }

    /// Entries of the documents in `docs` (ascending) of a part.
    fn entries_of(part: &dyn Part, docs: &[u32]) -> u64 {
        let (_, entries) = part.counts();
        // Entries are in document order: count by binary search on each document's range.
        let first = |d: u32| {
            let (mut lo, mut hi) = (0u64, entries);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if part.entry(mid as u32)[0] < d {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            lo
        };
        docs.iter().map(|&d| first(d + 1) - first(d)).sum()
    }

    /// Makes everything added and removed so far durable: the batch becomes a segment, the
    /// removals deletion files, and a new manifest names them. On success the index on disk is
    /// the new commit; on an error it is still the previous one.
    pub fn commit(&mut self) -> Result<(), Error> {
        let batch_live = self.batch.deleted.iter().any(|d| !d);
        if !batch_live && !self.dirty.iter().any(|d| *d) {
            self.batch = Batch::new(self.batch.bands, self.batch.width);
            return Ok(());
        }
        self.index.sound(Ok(()))?;
        self.fence()?;
        let dir = self.index.dir.clone();
        let mut m = self.index.manifest.clone();
        m.generation += 1;
        // The files this commit writes: removed again if it fails (the next writer's garbage
        // collection would, but a full disk should not stay full until then).
        let mut written: Vec<PathBuf> = Vec::new();
        let result = self.write_commit(&dir, &mut m, &mut written);
        let result = result
            .and_then(|()| sync_dir(&dir))
            .and_then(|()| self.fence());
        if let Err(e) = result {
            for path in written {
                let _ = fs::remove_file(path);
            }
            return Err(e);
        }
        self.publish(m)?;
        self.merge_some()
    }

    /// The files of a commit: deletion files of the segments with new removals, and the batch
    /// as a new segment (with its own deletion file if some of its documents were removed).
    /// Entries in `m`; every file written is pushed to `written`.
    fn write_commit(
        &mut self,
        dir: &Path,
        m: &mut Manifest,
        written: &mut Vec<PathBuf>,
    ) -> Result<(), Error> {
        let generation = m.generation;
        let committed = self.index.manifest.clone();
        let write_deleted = |name: &str, list: &[u32], written: &mut Vec<PathBuf>| {
            let file = format!("{name}.del-{generation:06}");
            let bytes = deletion_file(committed.ident(name), generation, list);
            written.push(dir.join(&file));
            write_atomic(dir, &file, &bytes).map(|()| file)
        };
        let mut deleted = Vec::new();
        for (i, seg) in self.index.segments.iter().enumerate() {
            if self.dirty[i] {
                let list = seg.deleted_list();
                let name = &m.segments[i].name;
                deleted.push((i, write_deleted(name, &list, written)?, list, seg));
            }
        }
        for (i, file, list, seg) in deleted {
            let e = &mut m.segments[i];
            e.deleted_entries = Self::entries_of(seg, &list);
            e.deleted_docs = list.len() as u64;
            e.deleted = Some(file);
        }
        if self.batch.deleted.iter().any(|d| !d) {
            let name = format!("seg-{:06}", m.next_segment);
            m.next_segment += 1;
            let tmp = dir.join(format!(".{name}.seg.{}.tmp", std::process::id()));
            written.push(tmp.clone());
            let info = self
                .batch
                .write(&tmp, self.index.signer.hashes(), m.ident(&name))?;
            self.fence()?;
            let path = dir.join(format!("{name}.seg"));
            fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
            written.push(path);
            let list = self.batch.removed_docs();
            let deleted = if list.is_empty() {
                None
            } else {
                Some(write_deleted(&name, &list, written)?)
            };
            m.segments.push(SegmentEntry {
                name,
                docs: info.docs,
                entries: info.entries,
                pairs: info.pairs,
                bytes: info.bytes,
                digest: hex(info.digest),
                deleted,
                deleted_docs: list.len() as u64,
                deleted_entries: Self::entries_of(&self.batch, &list),
            });
        }
        Ok(())
    }

    /// Checks that this writer still owns the index: its `LOCK` file is the one it locked
    /// (not deleted or replaced, which would let a second writer in) and the manifest on disk
    /// is the commit it started from. Run before a commit writes its segment into place and
    /// before it publishes the manifest.
    fn fence(&self) -> Result<(), Error> {
        let dir = &self.index.dir;
        let lock = dir.join(LOCK);
        let lost = || Error::LockLost {
            path: dir.to_path_buf(),
        };
        let there = match fs::metadata(&lock) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(lost()),
            Err(e) => return Err(Error::io(&lock, e)),
        };
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ours = self._lock.metadata().map_err(|e| Error::io(&lock, e))?;
            if (ours.dev(), ours.ino()) != (there.dev(), there.ino()) {
                return Err(lost());
            }
        }
        #[cfg(not(unix))]
        let _ = there;
        let on_disk = read_manifest(dir)?;
        let ours = &self.index.manifest;
        if on_disk.generation != ours.generation || on_disk.id != ours.id {
            return Err(Error::Conflict {
                path: dir.to_path_buf(),
                expected: ours.generation,
                found: on_disk.generation,
            });
        }
        Ok(())
    }

    /// Writes manifest `m` and switches to it.
    fn publish(&mut self, m: Manifest) -> Result<(), Error> {
        write_atomic(&self.index.dir, MANIFEST, &m.to_bytes())?;
        let plan = self.index.plan;
        self.index = Index::load(&self.index.dir, m)?;
        self.index.set_plan(plan);
        self.batch = Batch::new(self.batch.bands, self.batch.width);
        self.dirty = vec![false; self.index.segments.len()];
        self.collect_garbage()
    }

    /// Commits, then merges every segment into one without the removed documents (their
    /// space is reclaimed). The remaining documents keep their order (their numbers close the
    /// gaps). First checks the whole index as [`Index::verify`] does, even when there is
    /// nothing to merge, and fails with [`Error::Corrupt`] on damage, leaving every file as
    /// it was; then reads the segments once more and writes the merged one as it goes: memory
    /// stays at a few bytes per entry.
    pub fn compact(&mut self) -> Result<(), Error> {
        self.commit()?;
        let segs = &self.index.segments;
        let nothing_to_merge = segs.len() <= 1 && segs.iter().all(|s| s.deleted_docs == 0);
        if !nothing_to_merge && let Err(e) = self.merge_fits(0..segs.len()) {
            return Err(e);
        }
        // A compaction that succeeds has read the index whole: damage is reported, not
        // passed over because there was nothing to merge (or copied when there was).
        self.index.check()?;
        if nothing_to_merge {
            return Ok(());
        }
        self.merge(0..self.index.segments.len(), true)
    }

    /// Whether merging the committed segments `range` fits in the merges' share of the
    /// memory bound; [`Error::MergeTooLarge`] if not.
    fn merge_fits(&self, range: Range<usize>) -> Result<(), Error> {
        let segs = &self.index.segments[range];
        let docs = segs.iter().map(|s| s.docs).sum();
        let entries = segs.iter().map(|s| s.entries).sum();
        let pairs = segs.iter().map(|s| s.pairs).sum();
        let needed = crate::plan::merge_bytes(docs, entries, pairs);
        let share = self.index.plan.merge;
        if needed > share {
            return Err(Error::MergeTooLarge {
                docs,
                needed,
                share,
                bound: crate::plan::bound_for_merge(needed),
            });
        }
        Ok(())
    }

    /// After a commit that left more than [`MAX_SEGMENTS`] segments: merges the run of
    /// [`MERGE_RUN`] adjacent segments with the fewest entries (adjacent, so that documents
    /// keep their order; the smallest, so that each entry is rewritten about log(n) times over
    /// the life of an index, not at every merge).
    fn merge_some(&mut self) -> Result<(), Error> {
        while self.index.segments.len() > MAX_SEGMENTS {
            let sizes: Vec<u64> = self.index.segments.iter().map(|s| s.entries).collect();
            let run = MERGE_RUN.min(sizes.len());
            let start = (0..=sizes.len() - run)
                .min_by_key(|&i| (sizes[i..i + run].iter().sum::<u64>(), Reverse(i)))
                .expect("at least one run");
            // Under a memory bound, a merge too large for its share is put off: the index
            // keeps more segments (queries answer the same), and the smallest run not fitting
            // means no other run would.
            if self.merge_fits(start..start + run).is_err() {
                break;
            }
            self.merge(start..start + run, false)?;
        }
        Ok(())
    }

    /// Merges the committed segments `range` into one, without their removed documents, and
    /// commits. `checked`: the segments were just checked whole ([`Index::check`]).
    fn merge(&mut self, range: Range<usize>, checked: bool) -> Result<(), Error> {
        self.fence()?;
        let segs = &self.index.segments[range.clone()];
        // Nothing damaged is copied: every input is checked whole first (the merge reads
        // all of it anyway).
        for s in segs {
            s.read_sequentially();
            if !checked {
                s.verify()?;
            }
        }
        let p = self.index.manifest.params.clone();
        let (width, hashes, bands) = (
            p.signature_bytes as usize,
            self.index.signer.hashes(),
            p.bands,
        );
        // New numbers of the live documents and entries.
        let (mut docs, mut entries) = (0u64, 0u64);
        let mut new_doc: Vec<Vec<u32>> = Vec::new();
        let mut new_entry: Vec<Vec<u32>> = Vec::new();
        for s in segs {
            let nd: Vec<u32> = (0..s.docs as u32)
                .map(|d| {
                    if Part::deleted(s, d) {
                        u32::MAX
                    } else {
                        docs += 1;
                        (docs - 1) as u32
                    }
                })
                .collect();
            let ne: Vec<u32> = (0..s.entries as u32)
                .map(|e| {
                    s.pace(12);
                    if nd[s.entry(e)[0] as usize] == u32::MAX {
                        u32::MAX
                    } else {
                        entries += 1;
                        (entries - 1) as u32
                    }
                })
                .collect();
            new_doc.push(nd);
            new_entry.push(ne);
        }
        let mut m = self.index.manifest.clone();
        m.generation += 1;
        let mut merged = Vec::new();
        if docs > 0 {
            let name = format!("seg-{:06}", m.next_segment);
            m.next_segment += 1;
            let dir = &self.index.dir;
            let tmp = dir.join(format!(".{name}.seg.{}.tmp", std::process::id()));
            let mut unfinished = RemoveOnDrop(Some(tmp.clone()));
            let pairs = entries * bands as u64;
            let bits = crate::segment::dir_bits(pairs);
            let ident = m.ident(&name);
            let mut w = SegmentWriter::create(
                &tmp,
                ident,
                Shape {
                    docs,
                    entries,
                    pairs,
                    bits,
                    hashes,
                    width,
                    bands,
                },
            )?;
            // k-way merge of the sorted pairs, by (key, new entry).
            let mut iters: Vec<_> = segs.iter().map(|s| s.pairs()).collect();
            let mut heap = BinaryHeap::new();
            let next = |i: usize, it: &mut dyn Iterator<Item = (u64, u32)>| {
                for (k, e) in &mut *it {
                    let ne = new_entry[i][e as usize];
                    if ne != u32::MAX {
                        return Some(Reverse((k, ne, i)));
                    }
                }
                None
            };
            for (i, it) in iters.iter_mut().enumerate() {
                if let Some(x) = next(i, it) {
                    heap.push(x);
                }
            }
            while let Some(Reverse((k, e, i))) = heap.pop() {
                w.pair(k, e)?;
                if let Some(x) = next(i, &mut iters[i]) {
                    heap.push(x);
                }
            }
            w.end_pairs()?;
            let sig_len = hashes * width;
            for (i, s) in segs.iter().enumerate() {
                let sigs = s.signature_bytes();
                for e in 0..s.entries as usize {
                    s.pace(sig_len);
                    if new_entry[i][e] != u32::MAX {
                        w.bytes(&sigs[e * sig_len..(e + 1) * sig_len])?;
                    }
                }
            }
            for (i, s) in segs.iter().enumerate() {
                for e in 0..s.entries as u32 {
                    s.pace(12);
                    if new_entry[i][e as usize] != u32::MAX {
                        let [d, a, b] = s.entry(e);
                        w.entry([new_doc[i][d as usize], a, b])?;
                    }
                }
            }
            let mut ids = Vec::with_capacity(docs as usize);
            for (i, s) in segs.iter().enumerate() {
                let hashes_by_doc = s.ids_by_doc()?;
                for d in 0..s.docs as u32 {
                    let nd = new_doc[i][d as usize];
                    if nd != u32::MAX {
                        let record = s.doc_record(d)?;
                        s.pace(record.len() + 8);
                        w.doc(record)?;
                        ids.push((hashes_by_doc[d as usize], nd));
                    }
                }
            }
            ids.sort_unstable();
            let info = w.finish(&ids)?;
            self.fence()?;
            let path = dir.join(format!("{name}.seg"));
            fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
            unfinished.0 = None;
            sync_dir(dir)?;
            merged.push(SegmentEntry {
                name,
                docs: info.docs,
                entries: info.entries,
                pairs: info.pairs,
                bytes: info.bytes,
                digest: hex(info.digest),
                deleted: None,
                deleted_docs: 0,
                deleted_entries: 0,
            });
        }
        m.segments.splice(range, merged);
        self.publish(m)
    }
}

#[cfg(test)]
mod tests {
    use super::{is_index_file, is_index_temp};

    /// Under a bound, a chunk query counts each entry it resolves (its record and signature,
    /// scattered over the segment) as it reads it, so that the pages are given back in the
    /// middle of a query: `check --corpus` of 100,000 documents peaked at 1.15 times its bound
    /// when only the lookups were counted.
    #[test]
    fn a_chunk_query_counts_the_entries_it_reads() {
        use crate::{Index, IndexUnit, IndexWriter, Params};
        use std::sync::atomic::Ordering;
        use textreuse_corpus::Document;
        let dir = tempfile::tempdir().unwrap();
        let mut w = IndexWriter::create(dir.path(), Params::new(IndexUnit::Chunk)).unwrap();
        let text = "The old mill on the river was built in the year of the great flood and it \
                    still grinds the grain of the farms around the town, while on summer days \
                    visitors come from the city to watch the great wheel turn in the stream \
                    and to buy bread from the bakery beside it.";
        let copies = 40;
        for i in 0..copies {
            w.add(&Document::new(format!("d{i}"), "", text)).unwrap();
        }
        w.commit().unwrap();
        drop(w);
        let mut index = Index::open(dir.path()).unwrap();
        index.max_memory(1 << 30).unwrap();
        let found = index.candidate_documents(text, 10).unwrap();
        assert_eq!(found.len(), 10);
        // One chunk: its lookups (two faults per band and segment, the batch's place
        // included, and four), then each copy's entry once, whatever keys it shares.
        let bands = index.signer().bands() as u64;
        let fault = index.fault_bytes;
        assert!(fault >= crate::plan::FAULT_BYTES);
        let lookups = (bands * 2 * 2 + 4) * fault;
        assert_eq!(
            index.touched.load(Ordering::Relaxed),
            lookups + copies * 2 * fault
        );
    }

    #[test]
    fn the_index_owns_exactly_the_names_it_makes() {
        for name in ["seg-000001.seg", "seg-1234567.seg", "seg-000001.del-000004"] {
            assert!(is_index_file(name), "{name}");
        }
        for name in [
            "seg-000001.seg.tmp",
            ".MANIFEST.4242.tmp",
            ".seg-000001.del-000004.4242.tmp",
            "MANIFEST.tmp",
            "seg-000001.del-000004.tmp",
        ] {
            assert!(is_index_temp(name), "{name}");
        }
        for name in [
            "report.tmp",
            "seg-notes.txt",
            "notes.txt",
            "seg-1.seg",
            "seg-00000a.seg",
            "seg-000001.seg.bak",
            "seg-000001.del-",
            "seg-000001.del-000004.bak",
            ".MANIFEST..tmp",
            ".MANIFEST.pid.tmp",
            ".report.4242.tmp",
            "LOCK",
            "MANIFEST",
        ] {
            assert!(!is_index_file(name) && !is_index_temp(name), "{name}");
        }
    }
}
