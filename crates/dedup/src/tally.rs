//! Stage 8's article tally and ranking under a share of the memory bound
//! ([`MemoryPlan::article_tally`](crate::MemoryPlan::article_tally)).
//!
//! As the clusters are delivered, [`ArticleTally`] keeps each clustered article (document id)
//! once with the `seq` of its first member in output order, and per cluster that counts (at
//! most [`MAX_CLUSTER_ARTICLES`] articles) its articles. At the end it numbers the articles in
//! id order and ranks the article pairs ([`top_article_pairs`]) and the article chains
//! ([`article_chains`]) from those lists.
//!
//! In memory (what an unbounded run always does) the tally is a lookup from id to article
//! number and the lists as numbers, and the ranking is the in-memory one. When the estimated
//! memory of the tally and of its ranking passes the share, the tally is written out as
//! occurrence records `(document id, cluster order, seq, list)` and everything after is done by
//! external sorts in the run's temporary directory:
//!
//! 1. the occurrences sorted by `(id, cluster order)` ([`OccurrenceSorter`], which holds string
//!    ids too) number the articles in id order (rank), give each its first `seq` (a
//!    [`SpillArray`] by rank, which finds the id and title in the text store again) and each
//!    list's `(list, rank)` records;
//! 2. those sorted by list are the lists, ranks ascending; each list's pairs `(a << 32 | b,
//!    list)` go to a sort whose groups are the pair counts (the top `k` kept), each list's
//!    `(rank, list)` to a sort that counts each article's clusters, and `(first, rank)` to a
//!    [`BoundedClustering`] whose components are the chains;
//! 3. the components' `(rank, head)` joined with the articles' cluster counts by rank give the
//!    largest chains' cluster counts and members.
//!
//! Both paths give the same rows and chains (a proptest compares them).
use std::cmp::Reverse;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use textreuse_corpus::DocId;
use textreuse_shuffle::{BoundedClustering, ClusterList, RecordSorter, ShuffleBuilder};

use crate::article_pairs::{ArticlePair, MAX_CLUSTER_ARTICLES, TopPairs, article_pair_rows};
use crate::cluster::Member;
use crate::sink::ArticlePairRow;
use crate::spill::SpillArray;
use crate::summaries::{
    ArticleChains, CHAIN_ARTICLES, Chain, ChainArticle, LARGEST_CHAINS, article_chains,
};
use crate::{Error, Stats};

/// A list number that marks an occurrence in a cluster that does not count (more than
/// [`MAX_CLUSTER_ARTICLES`] articles), kept for the article's first `seq`.
const NO_LIST: u32 = u32::MAX;

/// Bytes the in-memory tally and its ranking take per article beyond its id's text: in the
/// tally its id, first `seq` and lookup entry (about 56 bytes), in the ranking its order,
/// rank, reference and the pair counting's offsets and per-worker count (about 40 bytes).
const ARTICLE_BYTES: u64 = 96;

/// Bytes per article of a cluster (a list entry): its number in the tally, its rank and its
/// place in the pair counting's occurrence lists in the ranking.
const ENTRY_BYTES: u64 = 24;

/// Bytes per counted cluster: its bound in the lists.
const LIST_BYTES: u64 = 8;

/// The heap bytes of an id beyond the [`DocId`] itself.
fn id_heap_bytes(id: &DocId) -> u64 {
    match id {
        DocId::Int(_) => 0,
        DocId::Str(s) => s.len().next_multiple_of(16) as u64 + 16,
    }
}

/// Stage 8's tally of the delivered clusters' articles (see the module docs).
pub(crate) struct ArticleTally {
    share: u64,
    tmp_dir: Option<PathBuf>,
    memory: Option<MemoryTally>,
    disk: Option<DiskTally>,
    /// The estimated bytes of the in-memory tally and its ranking.
    estimate: u64,
    /// Clusters delivered so far (their order).
    clusters: u64,
    /// Counted clusters so far (lists).
    lists: u64,
    /// Clusters of more than [`MAX_CLUSTER_ARTICLES`] articles, left out of the lists.
    left_out: u64,
    /// Articles when the tally moved to disk.
    moved_at: Option<u64>,
}

/// The in-memory tally: each distinct article once, and per counted cluster its articles as
/// numbers (first-seen order).
struct MemoryTally {
    /// The distinct articles in first-seen order.
    ids: Vec<DocId>,
    /// Per article: `seq` of its first member in output order (whose title is written).
    first_seq: Vec<u32>,
    /// A hash of an article's id -> its number. The hash only finds the article (the ranking
    /// orders by id); an id whose hash an earlier, different id has goes to `collided`.
    by_hash: ahash::AHashMap<u64, u32>,
    collided: HashMap<DocId, u32>,
    hasher: ahash::RandomState,
    /// The distinct articles of each cluster that counts, flat, with bounds.
    pair_docs: Vec<u32>,
    pair_bounds: Vec<usize>,
}

/// The tally on disk: the occurrences of articles in clusters, sorted externally.
struct DiskTally {
    occurrences: OccurrenceSorter,
}

impl MemoryTally {
    fn new() -> MemoryTally {
        MemoryTally {
            ids: Vec::new(),
            first_seq: Vec::new(),
            by_hash: ahash::AHashMap::new(),
            collided: HashMap::new(),
            // Fixed seeds: the map is only looked up, never iterated into an output.
            hasher: ahash::RandomState::with_seeds(1, 2, 3, 4),
            pair_docs: Vec::new(),
            pair_bounds: vec![0],
        }
    }

    /// The number of article `id`, whose member `seq` is delivered now (a new article's is
    /// recorded), and whether it is new.
    fn article(&mut self, id: &DocId, seq: u32) -> (u32, bool) {
        let hash = self.hasher.hash_one(id);
        let found = match self.by_hash.entry(hash) {
            Entry::Vacant(e) => {
                e.insert(self.ids.len() as u32);
                None
            }
            Entry::Occupied(e) => {
                let n = *e.get();
                if self.ids[n as usize] == *id {
                    return (n, false);
                }
                self.collided.get(id).copied()
            }
        };
        if let Some(n) = found {
            return (n, false);
        }
        let n = u32::try_from(self.ids.len()).expect("at most 2^32 documents (checked in stage 1)");
        if self.by_hash[&hash] != n {
            // Another id has this hash.
            self.collided.insert(id.clone(), n);
        }
        self.ids.push(id.clone());
        self.first_seq.push(seq);
        (n, true)
    }
}

/// The distinct documents of `members` (sorted by document) with the `seq` of each one's first
/// member.
fn distinct_docs(members: &[Member]) -> impl Iterator<Item = (&DocId, u32)> {
    let mut last: Option<&DocId> = None;
    members.iter().filter_map(move |m| {
        if last == Some(&m.doc) {
            return None;
        }
        last = Some(&m.doc);
        Some((&m.doc, m.seq()))
    })
}

impl ArticleTally {
    /// An empty tally whose in-memory form (and ranking) may take `share` bytes (`u64::MAX`:
    /// always in memory), spilling under `tmp_dir` beyond it.
    pub(crate) fn new(share: u64, tmp_dir: Option<PathBuf>) -> ArticleTally {
        ArticleTally {
            share,
            tmp_dir,
            memory: Some(MemoryTally::new()),
            disk: None,
            estimate: 0,
            clusters: 0,
            lists: 0,
            left_out: 0,
            moved_at: None,
        }
    }

    /// The bytes of the tally's share held in memory before it moves to disk: the rest is
    /// for the occurrence sort's buffer while the tally is written out.
    fn memory_limit(&self) -> u64 {
        if self.share == u64::MAX {
            u64::MAX
        } else {
            self.share / 4 * 3
        }
    }

    /// Articles when the tally moved to disk, if it did.
    pub(crate) fn moved_at(&self) -> Option<u64> {
        self.moved_at
    }

    /// Counts a delivered cluster (its members sorted by document, as [`Cluster::new`] sorts
    /// them).
    ///
    /// [`Cluster::new`]: crate::Cluster::new
    pub(crate) fn cluster(&mut self, members: &[Member]) -> Result<(), Error> {
        let order = self.clusters;
        self.clusters += 1;
        if let Some(tally) = &mut self.memory {
            let before = tally.pair_docs.len();
            for (doc, seq) in distinct_docs(members) {
                let (article, new) = tally.article(doc, seq);
                if new {
                    self.estimate += ARTICLE_BYTES + id_heap_bytes(doc);
                }
                tally.pair_docs.push(article);
            }
            let entries = tally.pair_docs.len() - before;
            if entries <= MAX_CLUSTER_ARTICLES {
                tally.pair_bounds.push(tally.pair_docs.len());
                self.lists += 1;
                self.estimate += entries as u64 * ENTRY_BYTES + LIST_BYTES;
            } else {
                tally.pair_docs.truncate(before);
                self.left_out += 1;
            }
            if self.estimate > self.memory_limit() {
                return self.move_to_disk();
            }
            return Ok(());
        }
        let disk = self
            .disk
            .as_mut()
            .expect("the tally is in memory or on disk");
        let counts = distinct_docs(members).count() <= MAX_CLUSTER_ARTICLES;
        let list = if counts {
            let list = u32::try_from(self.lists).expect("at most 2^32 clusters");
            self.lists += 1;
            list
        } else {
            self.left_out += 1;
            NO_LIST
        };
        for (doc, seq) in distinct_docs(members) {
            disk.occurrences.push(Occurrence {
                doc: doc.clone(),
                // After the records of the tally written out (orders 0 and 1).
                order: order + 2,
                seq,
                list,
            })?;
        }
        Ok(())
    }

    /// Writes the in-memory tally out as occurrences and frees it: each article's first `seq`
    /// (order 0) and its lists (order 1); later clusters come after them.
    #[cold]
    fn move_to_disk(&mut self) -> Result<(), Error> {
        let tally = self.memory.take().expect("in memory");
        self.moved_at = Some(tally.ids.len() as u64);
        let MemoryTally {
            ids,
            first_seq,
            by_hash,
            collided,
            pair_docs,
            pair_bounds,
            ..
        } = tally;
        drop((by_hash, collided));
        let mut occurrences = OccurrenceSorter::new(self.share / 4, self.tmp_dir.clone());
        for (doc, &seq) in ids.iter().zip(&first_seq) {
            occurrences.push(Occurrence {
                doc: doc.clone(),
                order: 0,
                seq,
                list: NO_LIST,
            })?;
        }
        drop(first_seq);
        for (list, w) in pair_bounds.windows(2).enumerate() {
            for &a in &pair_docs[w[0]..w[1]] {
                occurrences.push(Occurrence {
                    doc: ids[a as usize].clone(),
                    order: 1,
                    seq: 0,
                    list: list as u32,
                })?;
            }
        }
        self.disk = Some(DiskTally { occurrences });
        Ok(())
    }

    /// Stage 8's ranking: the `k` article pairs that share the most clusters and the article
    /// chains (in `stats`, with the distinct articles and the bytes spilled). `meta` gives the
    /// id and title of the document at a `seq`.
    pub(crate) fn rank(
        self,
        k: usize,
        meta: impl Fn(u32) -> Result<(DocId, String), Error>,
        stats: &mut Stats,
    ) -> Result<Vec<ArticlePairRow>, Error> {
        match (self.memory, self.disk) {
            (Some(tally), _) => rank_in_memory(tally, self.left_out, k, meta, stats),
            (None, Some(disk)) => rank_on_disk(
                disk,
                self.share,
                self.tmp_dir.as_deref(),
                self.left_out,
                k,
                meta,
                stats,
            ),
            (None, None) => unreachable!("the tally is in memory or on disk"),
        }
    }
}

/// The ranking of the in-memory tally: articles in id order, lists mapped to ranks,
/// [`article_chains`] and [`article_pair_rows`].
fn rank_in_memory(
    tally: MemoryTally,
    left_out: u64,
    k: usize,
    meta: impl Fn(u32) -> Result<(DocId, String), Error>,
    stats: &mut Stats,
) -> Result<Vec<ArticlePairRow>, Error> {
    let MemoryTally {
        ids,
        first_seq,
        by_hash,
        collided,
        hasher: _,
        pair_docs,
        pair_bounds,
    } = tally;
    // The lookup is done with; free it before the ranking's arrays are made.
    drop((by_hash, collided));
    // The ranking numbers articles in id order.
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| ids[a as usize].cmp(&ids[b as usize]));
    let mut rank = vec![0u32; ids.len()];
    for (r, &a) in order.iter().enumerate() {
        rank[a as usize] = r as u32;
    }
    let articles: Vec<&DocId> = order.iter().map(|&a| &ids[a as usize]).collect();
    stats.distinct_articles = articles.len() as u64;
    let lists: Vec<u32> = pair_docs.iter().map(|&a| rank[a as usize]).collect();
    drop(pair_docs);
    drop(rank);
    // Titles are read back from the text store; the first read error is returned.
    let failed: std::cell::RefCell<Option<Error>> = std::cell::RefCell::new(None);
    let seq = |doc: &DocId| {
        let r = articles.binary_search(&doc).expect("a ranked article");
        first_seq[order[r] as usize]
    };
    let title = |doc: &DocId| match meta(seq(doc)) {
        Ok((_, title)) => title,
        Err(e) => {
            failed.borrow_mut().get_or_insert(e);
            String::new()
        }
    };
    stats.article_chains = article_chains(&articles, &lists, &pair_bounds, left_out, title);
    let rows = article_pair_rows(&articles, &lists, &pair_bounds, k, title);
    match failed.into_inner() {
        Some(e) => Err(e),
        None => Ok(rows),
    }
}

/// A record sorter of `budget` bytes (at least the sorter's minimum) spilling under `tmp_dir`.
fn sorter(budget: u64, tmp_dir: Option<&Path>) -> Result<RecordSorter, Error> {
    let mut builder = ShuffleBuilder::new();
    builder.mem_budget(budget.max(textreuse_shuffle::MIN_MEM_BUDGET));
    if let Some(dir) = tmp_dir {
        builder.tmp_dir(dir);
    }
    Ok(builder.build_sorter()?)
}

/// The ranking of the tally on disk (see the module docs); the same rows and chains as
/// [`rank_in_memory`].
fn rank_on_disk(
    disk: DiskTally,
    share: u64,
    tmp_dir: Option<&Path>,
    left_out: u64,
    k: usize,
    meta: impl Fn(u32) -> Result<(DocId, String), Error>,
    stats: &mut Stats,
) -> Result<Vec<ArticlePairRow>, Error> {
    let dir = tmp_dir.map_or_else(std::env::temp_dir, Path::to_path_buf);
    let mut spilled = 0u64;
    // 1. Articles in id order: each one's first `seq`, and the lists' `(list, rank)`.
    let mut occurrences = disk.occurrences.finish()?;
    let mut first_seq = SpillArray::<4>::new(share / 8, &dir);
    let mut entries = sorter(share / 4, tmp_dir)?;
    let mut last: Option<DocId> = None;
    let mut articles = 0u64;
    while let Some(o) = occurrences.next()? {
        if last.as_ref() != Some(&o.doc) {
            first_seq.push(o.seq.to_le_bytes())?;
            articles += 1;
            last = Some(o.doc);
        }
        if o.list != NO_LIST {
            entries.push(u64::from(o.list), articles - 1)?;
        }
    }
    spilled += occurrences.bytes_spilled;
    drop(occurrences);
    stats.distinct_articles = articles;
    let first_seq = first_seq.into_reader()?;
    // 2. The lists (ranks ascending): their pairs, their articles, the chains' edges.
    let mut lists = entries.finish()?;
    let mut pairs = sorter(share / 4, tmp_dir)?;
    let mut in_lists = sorter(share / 8, tmp_dir)?;
    let mut chains = BoundedClustering::new(share / 4, 0, tmp_dir.map(Path::to_path_buf))?;
    let mut list = Vec::new();
    while let Some(n) = lists.next_group(&mut list)? {
        if list.len() < 2 {
            continue;
        }
        let first = list[0];
        for (i, &a) in list.iter().enumerate() {
            // The list number, and whether the article is its first (the chain's clusters
            // are counted at their first article).
            in_lists.push(a, n << 1 | u64::from(i == 0))?;
            if i > 0 {
                chains.union(first, a)?;
            }
            for &b in &list[i + 1..] {
                pairs.push(a << 32 | b, n)?;
            }
        }
    }
    spilled += lists.bytes_spilled();
    drop(lists);
    // The pair counts: a pair's records (one per list that holds it) are consecutive.
    let mut sorted = pairs.finish()?;
    let mut top = TopPairs::new(k);
    let mut current: Option<(u64, u32)> = None;
    while let Some((key, _)) = sorted.next_record()? {
        match &mut current {
            Some((k, shared)) if *k == key => *shared = shared.saturating_add(1),
            _ => {
                if let Some((key, shared)) = current {
                    top.offer(pair(key, shared));
                }
                current = Some((key, 1));
            }
        }
    }
    if let Some((key, shared)) = current {
        top.offer(pair(key, shared));
    }
    spilled += sorted.bytes_spilled();
    drop(sorted);
    let top = top.into_sorted();
    // 3. The chains: their sizes, the largest ones, and each article's chain.
    let mut chain_stats = ArticleChains {
        clusters_left_out: left_out,
        ..ArticleChains::default()
    };
    let mut heads: Vec<(Reverse<u64>, u64)> = Vec::new(); // (size, smallest article)
    let mut member_head = sorter(share / 4, tmp_dir)?;
    let mut component = |members: &[u64]| -> Result<(), Error> {
        let (size, head) = (members.len() as u64, members[0]);
        chain_stats.chains += 1;
        chain_stats.articles += size;
        *chain_stats.size_histogram.entry(size as usize).or_insert(0) += 1;
        keep_smallest(&mut heads, (Reverse(size), head), LARGEST_CHAINS);
        for &a in members {
            member_head.push(a, head)?;
        }
        Ok(())
    };
    match chains.finish()? {
        ClusterList::Memory(clusters) => {
            for c in &clusters {
                component(c.members())?;
            }
        }
        ClusterList::Disk(mut stream) => {
            let mut members = Vec::new();
            while stream.next_cluster(&mut members)? {
                component(&members)?;
            }
            spilled += stream.bytes_spilled();
        }
    }
    // Per largest chain: its clusters and its articles in the most clusters.
    let mut largest: Vec<(u64, Vec<ByClusters>)> = vec![(0, Vec::new()); heads.len()];
    let mut by_rank = member_head.finish()?;
    let mut counts = in_lists.finish()?;
    let mut pending = counts.next_record()?;
    while let Some((a, head)) = by_rank.next_record()? {
        let (mut clusters, mut firsts) = (0u64, 0u64);
        while let Some((b, n)) = pending
            && b <= a
        {
            // Every article in a list of two or more is in a chain (b == a).
            if b == a {
                clusters += 1;
                firsts += n & 1;
            }
            pending = counts.next_record()?;
        }
        if let Some(i) = heads.iter().position(|&(_, h)| h == head) {
            largest[i].0 += firsts;
            keep_smallest(&mut largest[i].1, (Reverse(clusters), a), CHAIN_ARTICLES);
        }
    }
    spilled += by_rank.bytes_spilled() + counts.bytes_spilled();
    drop((by_rank, counts));
    // Ids and titles from the text store, by each article's first `seq`.
    let article = |rank: u64| -> Result<(DocId, String), Error> {
        let seq = u32::from_le_bytes(first_seq.get(rank)?);
        meta(seq)
    };
    for ((Reverse(size), _), (clusters, members)) in heads.into_iter().zip(largest) {
        let members = members
            .into_iter()
            .map(|(Reverse(clusters), a)| {
                let (doc, title) = article(a)?;
                Ok(ChainArticle {
                    doc,
                    title,
                    clusters,
                })
            })
            .collect::<Result<_, Error>>()?;
        chain_stats.largest.push(Chain {
            articles: size,
            clusters,
            members,
        });
    }
    stats.article_chains = chain_stats;
    stats.bytes_spilled += spilled;
    top.iter()
        .map(|row| {
            let (doc_a, title_a) = article(u64::from(row.a))?;
            let (doc_b, title_b) = article(u64::from(row.b))?;
            Ok(ArticlePairRow {
                shared_clusters: u64::from(row.shared),
                doc_a,
                title_a,
                doc_b,
                title_b,
            })
        })
        .collect()
}

/// An article (rank) in the order of a chain's members: in the most clusters first.
type ByClusters = (Reverse<u64>, u64);

/// The pair of a pair-sort key `a << 32 | b`.
fn pair(key: u64, shared: u32) -> ArticlePair {
    ArticlePair {
        shared,
        a: (key >> 32) as u32,
        b: key as u32,
    }
}

/// Keeps the `n` smallest items of `items` and `item`, sorted.
fn keep_smallest<T: Ord>(items: &mut Vec<T>, item: T, n: usize) {
    if items.len() == n && items.last().is_some_and(|last| item >= *last) {
        return;
    }
    let at = items.partition_point(|x| *x < item);
    items.insert(at, item);
    items.truncate(n);
}

/// An article's occurrence in a delivered cluster, or (order 0) its first `seq` and (order 1)
/// its place in a list, of a tally moved to disk.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Occurrence {
    doc: DocId,
    /// The cluster's place in output order (plus 2; 0 and 1 for the records of the tally
    /// written out).
    order: u64,
    /// The `seq` of the document's first member in the cluster.
    seq: u32,
    /// The list (counted cluster), or [`NO_LIST`].
    list: u32,
}

impl Occurrence {
    /// Bytes it takes in the sorter's buffer.
    fn bytes(&self) -> u64 {
        std::mem::size_of::<Occurrence>() as u64 + id_heap_bytes(&self.doc)
    }

    fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        match &self.doc {
            DocId::Int(i) => {
                out.write_all(&[0])?;
                out.write_all(&i.to_le_bytes())?;
            }
            DocId::Str(s) => {
                out.write_all(&[1])?;
                out.write_all(&(s.len() as u64).to_le_bytes())?;
                out.write_all(s.as_bytes())?;
            }
        }
        out.write_all(&self.order.to_le_bytes())?;
        out.write_all(&self.seq.to_le_bytes())?;
        out.write_all(&self.list.to_le_bytes())
    }

    /// The next record of a run, `None` at its end.
    fn read(input: &mut impl Read) -> std::io::Result<Option<Occurrence>> {
        let mut tag = [0u8; 1];
        if input.read(&mut tag)? == 0 {
            return Ok(None);
        }
        let mut b8 = [0u8; 8];
        let doc = match tag[0] {
            0 => {
                let mut b16 = [0u8; 16];
                input.read_exact(&mut b16)?;
                DocId::Int(i128::from_le_bytes(b16))
            }
            _ => {
                input.read_exact(&mut b8)?;
                let mut text = vec![0u8; u64::from_le_bytes(b8) as usize];
                input.read_exact(&mut text)?;
                let text = String::from_utf8(text)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
                DocId::from(text)
            }
        };
        input.read_exact(&mut b8)?;
        let order = u64::from_le_bytes(b8);
        let mut b4 = [0u8; 4];
        input.read_exact(&mut b4)?;
        let seq = u32::from_le_bytes(b4);
        input.read_exact(&mut b4)?;
        let list = u32::from_le_bytes(b4);
        Ok(Some(Occurrence {
            doc,
            order,
            seq,
            list,
        }))
    }
}

/// Runs merged at once; more are merged in passes first.
const MAX_FAN_IN: usize = 64;

/// The buffer of a run being written or read.
const RUN_BUFFER: usize = 32 << 10;

/// An external sort of [`Occurrence`]s (ids of any length) under a memory budget: sorted runs
/// in a temporary directory, merged back in order.
struct OccurrenceSorter {
    buf: Vec<Occurrence>,
    bytes: u64,
    budget: u64,
    tmp_dir: Option<PathBuf>,
    dir: Option<tempfile::TempDir>,
    runs: Vec<PathBuf>,
    written: u64,
    bytes_spilled: u64,
}

fn io_error<'a>(dir: &'a Path, what: &'static str) -> impl FnOnce(std::io::Error) -> Error + 'a {
    move |source| Error::ArticleTally {
        what,
        dir: dir.to_path_buf(),
        source,
    }
}

impl OccurrenceSorter {
    fn new(budget: u64, tmp_dir: Option<PathBuf>) -> OccurrenceSorter {
        OccurrenceSorter {
            buf: Vec::new(),
            bytes: 0,
            budget,
            tmp_dir,
            dir: None,
            runs: Vec::new(),
            written: 0,
            bytes_spilled: 0,
        }
    }

    fn push(&mut self, o: Occurrence) -> Result<(), Error> {
        self.bytes += o.bytes();
        self.buf.push(o);
        if self.bytes > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    fn dir(&mut self) -> Result<PathBuf, Error> {
        if self.dir.is_none() {
            let parent = self.tmp_dir.clone().unwrap_or_else(std::env::temp_dir);
            let dir = tempfile::Builder::new()
                .prefix("textreuse-tally-")
                .tempdir_in(&parent)
                .map_err(io_error(
                    &parent,
                    "cannot create a directory for spill files",
                ))?;
            self.dir = Some(dir);
        }
        Ok(self.dir.as_ref().expect("made above").path().to_path_buf())
    }

    /// A new run file's path.
    fn next_path(&mut self) -> Result<PathBuf, Error> {
        let path = self.dir()?.join(format!("tally-{:06}.bin", self.written));
        self.written += 1;
        Ok(path)
    }

    /// Writes `records` (sorted) as a run.
    fn write_run(
        &mut self,
        records: impl Iterator<Item = Result<Occurrence, Error>>,
    ) -> Result<PathBuf, Error> {
        let path = self.next_path()?;
        let dir = path.parent().expect("in the directory").to_path_buf();
        let file = File::create(&path).map_err(io_error(&dir, "cannot create a spill file"))?;
        let mut out = BufWriter::with_capacity(RUN_BUFFER, file);
        let mut bytes = 0u64;
        let mut counter = CountingWriter {
            out: &mut out,
            bytes: &mut bytes,
        };
        for r in records {
            r?.write(&mut counter)
                .map_err(io_error(&dir, "cannot write a spill file"))?;
        }
        out.flush()
            .map_err(io_error(&dir, "cannot write a spill file"))?;
        self.bytes_spilled += bytes;
        Ok(path)
    }

    /// Sorts the buffer and writes it as a run; merges the oldest runs into one when there are
    /// too many to merge at once.
    fn spill(&mut self) -> Result<(), Error> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.sort_unstable();
        self.bytes = 0;
        let path = self.write_run(buf.into_iter().map(Ok))?;
        self.runs.push(path);
        if self.runs.len() >= MAX_FAN_IN {
            let runs: Vec<PathBuf> = std::mem::take(&mut self.runs);
            let mut merge = Merge::new(&runs)?;
            let path = self.write_run(std::iter::from_fn(|| merge.next().transpose()))?;
            drop(merge);
            for run in runs {
                std::fs::remove_file(&run).map_err(io_error(
                    run.parent().expect("in the directory"),
                    "cannot remove a spill file",
                ))?;
            }
            self.runs.push(path);
        }
        Ok(())
    }

    /// The records in order.
    fn finish(mut self) -> Result<SortedOccurrences, Error> {
        if self.runs.is_empty() {
            let mut buf = std::mem::take(&mut self.buf);
            buf.sort_unstable();
            return Ok(SortedOccurrences {
                source: Sorted::Memory(buf.into_iter()),
                bytes_spilled: 0,
                _dir: self.dir.take(),
            });
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        Ok(SortedOccurrences {
            source: Sorted::Merge(Merge::new(&self.runs)?),
            bytes_spilled: self.bytes_spilled,
            _dir: self.dir.take(),
        })
    }
}

/// A writer that counts the bytes written through it.
struct CountingWriter<'a, W: Write> {
    out: &'a mut W,
    bytes: &'a mut u64,
}

impl<W: Write> Write for CountingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        *self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The sorted records of an [`OccurrenceSorter`]; its spill files go with it.
struct SortedOccurrences {
    source: Sorted,
    bytes_spilled: u64,
    _dir: Option<tempfile::TempDir>,
}

enum Sorted {
    Memory(std::vec::IntoIter<Occurrence>),
    Merge(Merge),
}

impl SortedOccurrences {
    fn next(&mut self) -> Result<Option<Occurrence>, Error> {
        match &mut self.source {
            Sorted::Memory(records) => Ok(records.next()),
            Sorted::Merge(merge) => merge.next(),
        }
    }
}

/// A k-way merge of sorted runs.
struct Merge {
    readers: Vec<(BufReader<File>, PathBuf)>,
    heap: std::collections::BinaryHeap<Reverse<(Occurrence, usize)>>,
}

impl Merge {
    fn new(runs: &[PathBuf]) -> Result<Merge, Error> {
        let mut merge = Merge {
            readers: Vec::with_capacity(runs.len()),
            heap: std::collections::BinaryHeap::with_capacity(runs.len()),
        };
        for (i, path) in runs.iter().enumerate() {
            let dir = path.parent().expect("in the directory");
            let file = File::open(path).map_err(io_error(dir, "cannot open a spill file"))?;
            merge
                .readers
                .push((BufReader::with_capacity(RUN_BUFFER, file), path.clone()));
            merge.refill(i)?;
        }
        Ok(merge)
    }

    fn refill(&mut self, i: usize) -> Result<(), Error> {
        let (reader, path) = &mut self.readers[i];
        let dir = path.parent().expect("in the directory");
        if let Some(o) =
            Occurrence::read(reader).map_err(io_error(dir, "cannot read a spill file"))?
        {
            self.heap.push(Reverse((o, i)));
        }
        Ok(())
    }

    fn next(&mut self) -> Result<Option<Occurrence>, Error> {
        let Some(Reverse((o, i))) = self.heap.pop() else {
            return Ok(None);
        };
        self.refill(i)?;
        Ok(Some(o))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::cluster::Cluster;

    /// A document pool: `seq` -> id (some ids at several `seq`s, as a page in two dumps), ints
    /// and strings mixed.
    fn doc_of(seq: u32, strings: bool) -> DocId {
        let n = seq % 97;
        if strings && n.is_multiple_of(3) {
            DocId::from(format!("page-{}", n * 7 % 31))
        } else {
            DocId::from(u64::from(n))
        }
    }

    /// The rows and `stats.json` summaries of a tally of `clusters` (each a list of member
    /// `seq`s) under `share`.
    fn ranked(
        clusters: &[Vec<u32>],
        strings: bool,
        share: u64,
        k: usize,
    ) -> (Vec<ArticlePairRow>, u64, ArticleChains, bool) {
        let dir = tempfile::tempdir().unwrap();
        let mut tally = ArticleTally::new(share, Some(dir.path().to_path_buf()));
        for (c, seqs) in clusters.iter().enumerate() {
            let members = seqs
                .iter()
                .enumerate()
                .map(|(i, &seq)| {
                    let id = u64::from(seq) << 32 | (c * 1000 + i) as u64;
                    Member::new(id, doc_of(seq, strings), "", "text")
                })
                .collect();
            let cluster = Cluster::new(c as u64, members);
            tally.cluster(&cluster.members).unwrap();
        }
        let moved = tally.moved_at().is_some();
        let mut stats = Stats::default();
        let meta = |seq: u32| Ok((doc_of(seq, strings), format!("Title {seq}")));
        let rows = tally.rank(k, meta, &mut stats).unwrap();
        // The spill files went with the tally.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        (rows, stats.distinct_articles, stats.article_chains, moved)
    }

    /// Clusters of 2-12 member `seq`s (ties in pair counts: few documents), now and then one of
    /// more than [`MAX_CLUSTER_ARTICLES`] articles.
    fn clusters() -> impl Strategy<Value = Vec<Vec<u32>>> {
        let small = prop::collection::btree_set(0u32..400, 2..12)
            .prop_map(|s| s.into_iter().collect::<Vec<u32>>());
        let giant = (0u32..200).prop_map(|start| (start..start + 300).collect::<Vec<u32>>());
        prop::collection::vec(prop_oneof![20 => small, 1 => giant], 0..80)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// On disk from the first cluster, or moved there midway, the tally ranks as in memory.
        #[test]
        fn the_disk_ranking_equals_the_memory_ranking(
            clusters in clusters(),
            strings in any::<bool>(),
            k in 0usize..60,
        ) {
            let memory = ranked(&clusters, strings, u64::MAX, k);
            prop_assert!(!memory.3);
            for share in [0, 4 << 10, 64 << 10] {
                let disk = ranked(&clusters, strings, share, k);
                prop_assert_eq!(&disk.0, &memory.0, "rows, share {}", share);
                prop_assert_eq!(disk.1, memory.1);
                prop_assert_eq!(&disk.2, &memory.2, "chains, share {}", share);
                if share == 0 && !clusters.is_empty() {
                    prop_assert!(disk.3);
                }
            }
        }
    }

    /// Many ties at the cut of `k`, and one chain of many articles, with every sort spilling.
    #[test]
    fn ties_and_a_long_chain_on_disk() {
        // Overlapping windows: one chain over 0..260, every pair inside a window shared alike.
        let clusters: Vec<Vec<u32>> = (0..250u32)
            .step_by(5)
            .flat_map(|s| [(s..s + 10).collect(), (s..s + 10).collect::<Vec<u32>>()])
            .collect();
        for strings in [false, true] {
            for k in [1, 7, 45, 1000] {
                let memory = ranked(&clusters, strings, u64::MAX, k);
                let disk = ranked(&clusters, strings, 0, k);
                assert_eq!(disk.0, memory.0, "k = {k}");
                assert_eq!((disk.1, &disk.2), (memory.1, &memory.2));
                assert!(disk.3);
            }
        }
    }

    /// The occurrence sort merges in passes when there are more runs than it reads at once.
    #[test]
    fn occurrences_come_back_sorted_through_merge_passes() {
        let dir = tempfile::tempdir().unwrap();
        let mut sorter = OccurrenceSorter::new(0, Some(dir.path().to_path_buf()));
        let mut all = Vec::new();
        for i in 0..500u64 {
            let doc = if i.is_multiple_of(2) {
                DocId::from(i * 7919 % 1000)
            } else {
                DocId::from(format!("d{}", i * 31 % 200))
            };
            let o = Occurrence {
                doc,
                order: i % 13,
                seq: i as u32,
                list: (i % 5) as u32,
            };
            all.push(o.clone());
            sorter.push(o).unwrap();
        }
        assert!(sorter.written > MAX_FAN_IN as u64);
        let mut sorted = sorter.finish().unwrap();
        assert!(sorted.bytes_spilled > 0);
        let mut got = Vec::new();
        while let Some(o) = sorted.next().unwrap() {
            got.push(o);
        }
        all.sort();
        assert_eq!(got, all);
        drop(sorted);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
