//! The article graph of the corpus view ([`CorpusView`](crate::CorpusView)): per article
//! (document with a case) its degree, case count, union-find entry and where its id and title
//! are in the view's names, held in memory while it fits its share of a memory bound
//! ([`MemoryPlan::articles`](crate::MemoryPlan::articles)) and past it in a file indexed by
//! document number, read and written by positioned reads.
//!
//! In memory the articles are numbered in the order they are first seen (a hash map from the
//! document number), so that the graph grows with the articles, not with the documents:
//! 35 to 70 bytes an article (24 in arrays, 9 a bucket in the map, at the capacities they grow
//! to). On disk the file has one 24-byte entry per document number up to the
//! largest article's; the entries of documents without a case are never written, so they take
//! no disk space where the file system keeps holes (sparse files), and they are not resident
//! memory either way. A pair then costs a few positioned reads and writes, against the
//! alignment it comes from. The summary walks the articles in document order both ways and
//! depends only on the graph, not on where it was kept: the same `corpus.json`.
use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use textreuse_unionfind::UnionFind;

use crate::doc_array::{read_at, temp_file, write_at};

/// What the summary reads of an article.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Article {
    /// Pairs with a case it is in.
    pub(crate) degree: u32,
    /// Cases it is in (on either side).
    pub(crate) cases: u32,
    /// Where its id and title start in the view's names.
    pub(crate) name: u64,
}

/// Bytes of memory per article besides the hash map: degree, case count, the union-find's
/// parent and size, and where its names start.
const VEC_BYTES: u64 = 4 + 4 + 4 + 4 + 8;
/// Bytes of the hash map per bucket: the key, the slot and a control byte.
const MAP_BUCKET_BYTES: u64 = 4 + 4 + 1;

/// The articles, in memory or on disk (see the module docs).
#[derive(Debug)]
pub(crate) enum ArticleGraph {
    Memory(InMemory),
    Disk(OnDisk),
}

/// The articles in memory, numbered (slots) in the order they are first seen.
#[derive(Debug, Default)]
pub(crate) struct InMemory {
    /// The slot of each article's document number.
    slots: HashMap<u32, u32>,
    /// Per slot.
    degree: Vec<u32>,
    /// Per slot.
    cases: Vec<u32>,
    /// Per slot: where its names start.
    names: Vec<u64>,
    /// Over the slots.
    components: UnionFind,
}

/// The articles in a file of [`DiskEntry`]s by document number.
#[derive(Debug)]
pub(crate) struct OnDisk {
    file: File,
    /// Entries the file covers: one past the largest document number written.
    len: u64,
    /// Articles.
    articles: u64,
    /// Articles when the graph moved here.
    moved_at: u64,
    tmp_dir: Option<PathBuf>,
}

/// One document number's entry on disk; all zero for a document without a case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct DiskEntry {
    /// The union-find parent's document number plus one (0: not an article).
    parent: u32,
    /// The set's size, at a root.
    size: u32,
    degree: u32,
    cases: u32,
    /// Where the names start, plus one.
    name: u64,
}

const DISK_ENTRY: usize = 24;
/// Entries read at once when the summary walks the file.
const SCAN_ENTRIES: usize = 2048;

impl DiskEntry {
    fn put(self, out: &mut [u8]) {
        out[0..4].copy_from_slice(&self.parent.to_le_bytes());
        out[4..8].copy_from_slice(&self.size.to_le_bytes());
        out[8..12].copy_from_slice(&self.degree.to_le_bytes());
        out[12..16].copy_from_slice(&self.cases.to_le_bytes());
        out[16..24].copy_from_slice(&self.name.to_le_bytes());
    }

    fn take(b: &[u8]) -> DiskEntry {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        DiskEntry {
            parent: u32_at(0),
            size: u32_at(4),
            degree: u32_at(8),
            cases: u32_at(12),
            name: u64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
        }
    }

    fn article(self) -> Article {
        Article {
            degree: self.degree,
            cases: self.cases,
            name: self.name - 1,
        }
    }
}

impl Default for ArticleGraph {
    fn default() -> Self {
        ArticleGraph::Memory(InMemory::default())
    }
}

impl ArticleGraph {
    /// Makes room for the articles of a pair, `a` and `b`: when those of them not seen yet
    /// would take the memory past `budget`, the graph moves to a file in `tmp_dir`. Called
    /// before the pair is counted, so that both its keys are of the same kind.
    pub(crate) fn make_room(
        &mut self,
        [a, b]: [u32; 2],
        budget: u64,
        tmp_dir: Option<&Path>,
    ) -> io::Result<()> {
        if let ArticleGraph::Memory(m) = self {
            let new = usize::from(!m.slots.contains_key(&a))
                + usize::from(a != b && !m.slots.contains_key(&b));
            if new > 0 && m.bytes_with(new) > budget {
                *self = ArticleGraph::Disk(m.move_to_disk(tmp_dir)?);
            }
        }
        Ok(())
    }

    /// Counts a pair with `cases` cases for article `d` (names given by `name` the first time
    /// it is seen); returns its key for [`ArticleGraph::union`] and [`ArticleGraph::name`].
    pub(crate) fn count(
        &mut self,
        d: u32,
        cases: u32,
        name: impl FnOnce() -> io::Result<u64>,
    ) -> io::Result<u32> {
        match self {
            ArticleGraph::Memory(m) => {
                let slot = match m.slots.get(&d) {
                    Some(&slot) => slot,
                    None => {
                        let names = name()?;
                        let slot = m.components.push().map_err(io::Error::other)?;
                        m.slots.insert(d, slot);
                        m.names.push(names);
                        m.degree.push(0);
                        m.cases.push(0);
                        slot
                    }
                };
                let s = slot as usize;
                m.degree[s] = m.degree[s].saturating_add(1);
                m.cases[s] = m.cases[s].saturating_add(cases);
                Ok(slot)
            }
            ArticleGraph::Disk(disk) => {
                let mut e = disk.read(d)?;
                if e.parent == 0 {
                    e = DiskEntry {
                        parent: d + 1,
                        size: 1,
                        name: name()? + 1,
                        ..e
                    };
                    disk.articles += 1;
                }
                e.degree = e.degree.saturating_add(1);
                e.cases = e.cases.saturating_add(cases);
                disk.write(d, e)?;
                Ok(d)
            }
        }
    }

    /// Joins the components of two articles (keys of [`ArticleGraph::count`]).
    pub(crate) fn union(&mut self, a: u32, b: u32) -> io::Result<()> {
        match self {
            ArticleGraph::Memory(m) => {
                m.components.union(a, b);
                Ok(())
            }
            ArticleGraph::Disk(disk) => disk.union(a, b),
        }
    }

    /// Where the names of an article (a key of [`ArticleGraph::count`]) start.
    pub(crate) fn name(&self, key: u32) -> io::Result<u64> {
        match self {
            ArticleGraph::Memory(m) => Ok(m.names[key as usize]),
            ArticleGraph::Disk(disk) => Ok(disk.read(key)?.name - 1),
        }
    }

    /// The number of articles when the graph moved to disk, if it did.
    pub(crate) fn moved_at(&self) -> Option<u64> {
        match self {
            ArticleGraph::Memory(_) => None,
            ArticleGraph::Disk(disk) => Some(disk.moved_at),
        }
    }

    /// Calls `f(d, article, root)` for every article in ascending document number; `root`
    /// names its component (the same for all its members, different between components, and
    /// below [`ArticleGraph::roots`]).
    pub(crate) fn for_each(
        &self,
        mut f: impl FnMut(u32, Article, u32) -> io::Result<()>,
    ) -> io::Result<()> {
        match self {
            ArticleGraph::Memory(m) => {
                let mut by_number: Vec<(u32, u32)> =
                    m.slots.iter().map(|(&d, &s)| (d, s)).collect();
                by_number.sort_unstable();
                for (d, slot) in by_number {
                    let s = slot as usize;
                    let article = Article {
                        degree: m.degree[s],
                        cases: m.cases[s],
                        name: m.names[s],
                    };
                    f(d, article, m.components.root(slot))?;
                }
                Ok(())
            }
            ArticleGraph::Disk(disk) => {
                let mut bytes = vec![0u8; SCAN_ENTRIES * DISK_ENTRY];
                let mut first = 0u64;
                while first < disk.len {
                    let n = (disk.len - first).min(SCAN_ENTRIES as u64) as usize;
                    let chunk = &mut bytes[..n * DISK_ENTRY];
                    read_at(&disk.file, chunk, first * DISK_ENTRY as u64)?;
                    for (i, b) in chunk.chunks_exact(DISK_ENTRY).enumerate() {
                        let e = DiskEntry::take(b);
                        if e.parent != 0 {
                            let d = (first + i as u64) as u32;
                            f(d, e.article(), disk.root(d)?)?;
                        }
                    }
                    first += n as u64;
                }
                Ok(())
            }
        }
    }

    /// Sums per component, keyed as [`ArticleGraph::for_each`] names them.
    pub(crate) fn roots(&self) -> io::Result<RootSums> {
        Ok(match self {
            ArticleGraph::Memory(m) => RootSums::Memory(vec![[0; 4]; m.degree.len()]),
            ArticleGraph::Disk(disk) => RootSums::Disk {
                file: temp_file(disk.tmp_dir.as_deref())?,
                len: 0,
            },
        })
    }
}

impl InMemory {
    /// The bytes the articles would take in memory with `more` more (the vectors and the
    /// hash map at the capacity they grow to).
    fn bytes_with(&self, more: usize) -> u64 {
        let grown = |len: usize, cap: usize| -> u64 {
            if len + more <= cap {
                cap as u64
            } else {
                (2 * cap).max(len + more).max(4) as u64
            }
        };
        let vecs = grown(self.degree.len(), self.degree.capacity()) * VEC_BYTES;
        let items = grown(self.slots.len(), self.slots.capacity());
        // The map keeps its buckets at most 7/8 full, in a power of two.
        let buckets = (items * 8 / 7).next_power_of_two();
        vecs + buckets * MAP_BUCKET_BYTES
    }

    /// Writes every article to a new file by document number (each one's parent its
    /// component's root) and frees the memory.
    fn move_to_disk(&mut self, tmp_dir: Option<&Path>) -> io::Result<OnDisk> {
        let m = std::mem::take(self);
        let mut number = vec![0u32; m.degree.len()];
        for (&d, &slot) in &m.slots {
            number[slot as usize] = d;
        }
        drop(m.slots);
        let mut sizes = vec![0u32; m.degree.len()];
        let roots: Vec<u32> = (0..m.degree.len() as u32)
            .map(|s| m.components.root(s))
            .collect();
        for &r in &roots {
            sizes[r as usize] += 1;
        }
        let mut disk = OnDisk {
            file: temp_file(tmp_dir)?,
            len: 0,
            articles: m.degree.len() as u64,
            moved_at: m.degree.len() as u64,
            tmp_dir: tmp_dir.map(Path::to_path_buf),
        };
        for (s, &d) in number.iter().enumerate() {
            let root = roots[s] as usize;
            let entry = DiskEntry {
                parent: number[root] + 1,
                size: if root == s { sizes[s] } else { 0 },
                degree: m.degree[s],
                cases: m.cases[s],
                name: m.names[s] + 1,
            };
            disk.write(d, entry)?;
        }
        Ok(disk)
    }
}

impl OnDisk {
    fn read(&self, d: u32) -> io::Result<DiskEntry> {
        if u64::from(d) >= self.len {
            return Ok(DiskEntry::default());
        }
        let mut b = [0u8; DISK_ENTRY];
        read_at(&self.file, &mut b, u64::from(d) * DISK_ENTRY as u64)?;
        Ok(DiskEntry::take(&b))
    }

    fn write(&mut self, d: u32, e: DiskEntry) -> io::Result<()> {
        let mut b = [0u8; DISK_ENTRY];
        e.put(&mut b);
        write_at(&self.file, &b, u64::from(d) * DISK_ENTRY as u64)?;
        self.len = self.len.max(u64::from(d) + 1);
        Ok(())
    }

    /// The root of `d`'s component, without changing the file.
    fn root(&self, mut d: u32) -> io::Result<u32> {
        loop {
            let p = self.read(d)?.parent - 1;
            if p == d {
                return Ok(d);
            }
            d = p;
        }
    }

    /// The root of `d`'s component, halving the path (each entry on it re-pointed to its
    /// grandparent).
    fn find(&mut self, mut d: u32) -> io::Result<(u32, DiskEntry)> {
        loop {
            let mut e = self.read(d)?;
            let p = e.parent - 1;
            if p == d {
                return Ok((d, e));
            }
            let pe = self.read(p)?;
            if pe.parent - 1 == p {
                return Ok((p, pe));
            }
            e.parent = pe.parent;
            self.write(d, e)?;
            d = pe.parent - 1;
        }
    }

    /// Union by size, as [`UnionFind::union`]: the smaller set below the larger (ties: `b`'s
    /// root below `a`'s).
    fn union(&mut self, a: u32, b: u32) -> io::Result<()> {
        let (mut ra, mut ea) = self.find(a)?;
        let (mut rb, mut eb) = self.find(b)?;
        if ra == rb {
            return Ok(());
        }
        if ea.size < eb.size {
            std::mem::swap(&mut ra, &mut rb);
            std::mem::swap(&mut ea, &mut eb);
        }
        ea.size += eb.size;
        eb.size = 0;
        eb.parent = ra + 1;
        self.write(rb, eb)?;
        self.write(ra, ea)
    }
}

/// Per component: its articles, the sum of their degrees (twice its edges), the sum of their
/// case counts (twice its cases) and its smallest document number; by root.
#[derive(Debug)]
pub(crate) enum RootSums {
    Memory(Vec<[u64; 4]>),
    Disk { file: File, len: u64 },
}

const SUMS_ENTRY: usize = 32;

impl RootSums {
    /// Adds article `d` of component `root`; articles must come in ascending document number
    /// (the first one of a component is its smallest).
    pub(crate) fn add(&mut self, root: u32, d: u32, a: Article) -> io::Result<()> {
        let add = |s: &mut [u64; 4]| {
            if s[0] == 0 {
                s[3] = u64::from(d);
            }
            s[0] += 1;
            s[1] += u64::from(a.degree);
            s[2] += u64::from(a.cases);
        };
        match self {
            RootSums::Memory(sums) => add(&mut sums[root as usize]),
            RootSums::Disk { file, len } => {
                let at = u64::from(root) * SUMS_ENTRY as u64;
                let mut s = [0u64; 4];
                if u64::from(root) < *len {
                    let mut b = [0u8; SUMS_ENTRY];
                    read_at(file, &mut b, at)?;
                    for (v, c) in s.iter_mut().zip(b.chunks_exact(8)) {
                        *v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
                    }
                }
                add(&mut s);
                let mut b = [0u8; SUMS_ENTRY];
                for (v, c) in s.iter().zip(b.chunks_exact_mut(8)) {
                    c.copy_from_slice(&v.to_le_bytes());
                }
                write_at(file, &b, at)?;
                *len = (*len).max(u64::from(root) + 1);
            }
        }
        Ok(())
    }

    /// Calls `f(root, [articles, degree sum, cases sum, smallest])` for every component.
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32, [u64; 4])) -> io::Result<()> {
        match self {
            RootSums::Memory(sums) => {
                for (root, &s) in sums.iter().enumerate() {
                    if s[0] > 0 {
                        f(root as u32, s);
                    }
                }
            }
            RootSums::Disk { file, len } => {
                let mut bytes = vec![0u8; SCAN_ENTRIES * SUMS_ENTRY];
                let mut first = 0u64;
                while first < *len {
                    let n = (*len - first).min(SCAN_ENTRIES as u64) as usize;
                    let chunk = &mut bytes[..n * SUMS_ENTRY];
                    read_at(file, chunk, first * SUMS_ENTRY as u64)?;
                    for (i, b) in chunk.chunks_exact(SUMS_ENTRY).enumerate() {
                        let mut s = [0u64; 4];
                        for (v, c) in s.iter_mut().zip(b.chunks_exact(8)) {
                            *v = u64::from_le_bytes(c.try_into().expect("8 bytes"));
                        }
                        if s[0] > 0 {
                            f((first + i as u64) as u32, s);
                        }
                    }
                    first += n as u64;
                }
            }
        }
        Ok(())
    }
}
