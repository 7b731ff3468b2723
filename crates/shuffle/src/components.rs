//! Connected components under a memory budget: union-find in memory while it fits
//! ([`BoundedClustering`]), else passes of the external sort over the edges on disk
//! ([`Components`]), with the same clusters either way.
//!
//! The out-of-core path is the alternating algorithm of Kiveris, Lattanzi, Mirrokni, Rastogi
//! and Vassilvitskii ("Connected Components in MapReduce and Beyond", SoCC 2014). The edges are
//! kept in both directions in a [`RecordSorter`], so that its merged output lists each node with
//! its neighbours ascending; each pass reads that grouping once and writes the next edge set
//! into a new sorter:
//!
//! * *large star*: a node `u` joins each of its larger neighbours to the smallest of `u` and its
//!   neighbours;
//! * *small star*: a node `u` joins itself and its smaller neighbours to the smallest of them.
//!
//! Neither changes the connected components, and the edge count never grows. The passes
//! alternate until the edges form a star around the smallest node of each component (checked
//! during a large-star pass, which then writes its input back unchanged); the paper proves that
//! this takes `O(log^2 n)` rounds, and the candidate pairs of `textreuse dedup` (stars of the
//! buckets already) take a few. The final sorter's groups are then the clusters, in the
//! canonical order of [`textreuse_unionfind::Clusters`]: a component's root is its smallest
//! node, listed with its neighbours (every other member) ascending; the groups of the other
//! nodes (one smaller neighbour, the root) are skipped. Every step depends only on the set of
//! edges, so the clusters are the same whatever the budget or the order of the edges.
//!
//! Memory: each pass holds the sorter being read (its unspilled tail) and the sorter being
//! written, each under its budget (their buffers are freed at each spill: the passes push keys
//! in about ascending order, which fill other partitions run after run), plus the merge's read
//! buffers; disk: 32 bytes per edge per pass (both directions), written once and read once.
use textreuse_unionfind::{Clustering, Clusters};

use super::*;

/// The connected components of a graph given edge by edge, on disk (see the module docs).
///
/// ```
/// use textreuse_shuffle::Components;
///
/// let mut components = Components::new(1 << 10, None)?;
/// for (a, b) in [(30, 10), (10, 20), (7, 99), (20, 40)] {
///     components.push(a, b)?;
/// }
/// let mut stream = components.finish()?;
/// let mut members = Vec::new();
/// assert!(stream.next_cluster(&mut members)?);
/// assert_eq!(members, [7, 99]);
/// assert!(stream.next_cluster(&mut members)?);
/// assert_eq!(members, [10, 20, 30, 40]);
/// assert!(!stream.next_cluster(&mut members)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Components {
    edges: RecordSorter,
    /// The budget of each of the (at most two) sorters alive at once.
    budget: u64,
    tmp_dir: Option<PathBuf>,
    max_id: u64,
}

impl Components {
    /// An empty graph whose sorters get `budget` bytes each (at least [`MIN_MEM_BUDGET`]; two
    /// are alive during a pass) and spill under `tmp_dir` (default: the system temporary
    /// directory).
    pub fn new(budget: u64, tmp_dir: Option<PathBuf>) -> Result<Components, ShuffleError> {
        if budget < MIN_MEM_BUDGET {
            return Err(ShuffleError::BudgetTooSmall {
                budget,
                min: MIN_MEM_BUDGET,
            });
        }
        Ok(Components {
            // Ids can be anything yet: partition on the top byte.
            edges: RecordSorter::with_budget(budget, tmp_dir.clone(), u64::BITS).releasing(),
            budget,
            tmp_dir,
            max_id: 0,
        })
    }

    /// Adds the edge `a - b`. A loop (`a == b`) adds nothing: every listed component has at
    /// least two members.
    #[inline]
    pub fn push(&mut self, a: u64, b: u64) -> Result<(), ShuffleError> {
        if a != b {
            self.max_id = self.max_id.max(a).max(b);
            self.edges.push(a, b)?;
            self.edges.push(b, a)?;
        }
        Ok(())
    }

    /// Runs the passes (see the module docs) and returns the components as a stream of
    /// clusters in canonical order.
    pub fn finish(self) -> Result<ComponentStream, ShuffleError> {
        let Components {
            edges,
            budget,
            tmp_dir,
            max_id,
        } = self;
        // From the second sorter on, node ids (the keys) are known to be at most `max_id`.
        let id_bits = (u64::BITS - max_id.leading_zeros()).max(1);
        let sorter = || RecordSorter::with_budget(budget, tmp_dir.clone(), id_bits).releasing();
        let mut spilled = 0u64;
        let mut rounds = 0u32;
        let mut current = edges.finish()?;
        let mut neighbours = Vec::new();
        loop {
            // Large star, checking whether the edges are stars around their roots already.
            rounds += 1;
            let mut next = sorter();
            let mut stars = true;
            while let Some(u) = current.next_group(&mut neighbours)? {
                let m = u.min(neighbours[0]);
                let larger = neighbours.partition_point(|&v| v < u);
                // A root has only larger neighbours; a leaf one smaller neighbour and no other.
                stars &= larger == 0 || (larger == 1 && neighbours.len() == 1);
                for &v in &neighbours[larger..] {
                    next.push(v, m)?;
                    next.push(m, v)?;
                }
            }
            spilled += current.bytes_spilled();
            drop(current);
            current = next.finish()?;
            if stars {
                // A large star over stars writes them back as they were: these are the clusters.
                break;
            }
            // Small star.
            let mut next = sorter();
            while let Some(u) = current.next_group(&mut neighbours)? {
                let smaller = neighbours.partition_point(|&v| v < u);
                if smaller == 0 {
                    continue;
                }
                let m = neighbours[0];
                for &v in neighbours[1..smaller].iter().chain([&u]) {
                    next.push(v, m)?;
                    next.push(m, v)?;
                }
            }
            spilled += current.bytes_spilled();
            drop(current);
            current = next.finish()?;
        }
        Ok(ComponentStream {
            bytes_spilled: spilled + current.bytes_spilled(),
            records: current,
            neighbours,
            scratch: Vec::new(),
            rounds,
            clusters: 0,
            members: 0,
        })
    }
}

/// The clusters of [`Components::finish`] (or of a [`BoundedClustering`] that moved to disk):
/// ids are smallest members, clusters ascend by id, members ascend. The spill files are deleted
/// when it is dropped.
#[derive(Debug)]
pub struct ComponentStream {
    records: SortedRecords,
    neighbours: Vec<u64>,
    /// A cluster's members for [`ComponentStream::next_clusters`].
    scratch: Vec<u64>,
    rounds: u32,
    bytes_spilled: u64,
    clusters: u64,
    members: u64,
}

impl ComponentStream {
    /// Replaces `members` with the next cluster's (ascending; the first is its id), or returns
    /// false at the end.
    pub fn next_cluster(&mut self, members: &mut Vec<u64>) -> Result<bool, ShuffleError> {
        while let Some(u) = self.records.next_group(&mut self.neighbours)? {
            // Only a root's neighbours are larger than itself.
            if self.neighbours[0] > u {
                members.clear();
                members.push(u);
                members.extend_from_slice(&self.neighbours);
                self.clusters += 1;
                self.members += members.len() as u64;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Replaces `out` with the next clusters: at least one, and more while they hold fewer than
    /// `max_members` members in all. Returns false (and leaves `out` empty) at the end.
    pub fn next_clusters(
        &mut self,
        max_members: usize,
        out: &mut Clusters,
    ) -> Result<bool, ShuffleError> {
        out.clear();
        let mut members = std::mem::take(&mut self.scratch);
        let mut result = Ok(());
        while out.is_empty() || out.num_members() < max_members {
            match self.next_cluster(&mut members) {
                Ok(true) => out.push(&members),
                Ok(false) => break,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.scratch = members;
        result.map(|()| !out.is_empty())
    }

    /// The passes run (a large star and a small star make two; the last is a large star).
    pub fn passes(&self) -> u32 {
        2 * self.rounds - 1
    }

    /// Bytes written to spill files by every pass.
    pub fn bytes_spilled(&self) -> u64 {
        self.bytes_spilled
    }

    /// Clusters read so far.
    pub fn clusters_read(&self) -> u64 {
        self.clusters
    }

    /// Members of the clusters read so far.
    pub fn members_read(&self) -> u64 {
        self.members
    }
}

/// Clustering of sparse `u64` ids pair by pair under a memory budget: in memory
/// ([`Clustering`]) while its peak ([`Clustering::peak_bytes`]) fits in the budget, then on disk
/// ([`Components`]), starting from each id joined to its root. The clusters are the same either
/// way ([`ClusterList`]).
///
/// ```
/// use textreuse_shuffle::{BoundedClustering, ClusterList};
///
/// // 2 KiB hold a few ids: the rest of the pairs go to disk.
/// let mut clustering = BoundedClustering::new(2 << 10, 0, None)?;
/// for i in 0..100u64 {
///     clustering.union(i, i + 1000)?;
///     clustering.union(i, (i + 1) % 100)?;
/// }
/// let ClusterList::Disk(mut stream) = clustering.finish()? else {
///     panic!("the ids pass the budget");
/// };
/// let mut members = Vec::new();
/// assert!(stream.next_cluster(&mut members)?);
/// assert_eq!(members.len(), 200);
/// assert!(!stream.next_cluster(&mut members)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct BoundedClustering {
    memory: Clustering,
    /// The most distinct ids held in memory.
    limit: usize,
    budget: u64,
    tmp_dir: Option<PathBuf>,
    disk: Option<Components>,
    /// Ids held in memory when the clustering moved to disk.
    moved: usize,
}

impl BoundedClustering {
    /// A clustering under `budget` bytes (`u64::MAX`: in memory whatever it holds), with room
    /// for `capacity` ids before it reallocates (at most what the budget holds). On disk its
    /// sorters get a quarter of the budget each and spill under `tmp_dir`.
    pub fn new(
        budget: u64,
        capacity: usize,
        tmp_dir: Option<PathBuf>,
    ) -> Result<BoundedClustering, ShuffleError> {
        let limit = if budget == u64::MAX {
            usize::MAX
        } else {
            // The most ids whose peak fits in the budget.
            let (mut lo, mut hi) = (0usize, (budget / 48) as usize);
            while lo < hi {
                let mid = lo + (hi - lo).div_ceil(2);
                if Clustering::peak_bytes(mid) <= budget {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            lo
        };
        Ok(BoundedClustering {
            memory: Clustering::with_capacity(capacity.min(limit)),
            limit,
            budget,
            tmp_dir,
            disk: None,
            moved: 0,
        })
    }

    /// The most ids held in memory before the clustering moves to disk.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Joins the clusters of `a` and `b`.
    #[inline]
    pub fn union(&mut self, a: u64, b: u64) -> Result<(), ShuffleError> {
        match &mut self.disk {
            Some(components) => components.push(a, b),
            None => {
                self.memory.union(a, b)?;
                if self.memory.len() > self.limit {
                    self.move_to_disk()?;
                }
                Ok(())
            }
        }
    }

    /// Writes each id joined to its root (the same components as the unions so far) to the
    /// disk path and frees the memory.
    #[cold]
    fn move_to_disk(&mut self) -> Result<(), ShuffleError> {
        // Two sorters are alive during a pass, and union-find while it is written out.
        let budget = (self.budget / 4).max(MIN_MEM_BUDGET);
        let mut components = Components::new(budget, self.tmp_dir.clone())?;
        let (ids, mut sets) = std::mem::take(&mut self.memory).into_parts();
        self.moved = ids.len();
        for (i, &id) in ids.ids().iter().enumerate() {
            let root = sets.find(i as u32);
            if root != i as u32 {
                components.push(id, ids.ids()[root as usize])?;
            }
        }
        self.disk = Some(components);
        Ok(())
    }

    /// Distinct ids held in memory when the clustering moved to disk, if it did.
    pub fn moved_at(&self) -> Option<usize> {
        self.disk.as_ref().map(|_| self.moved)
    }

    /// Distinct ids seen, while in memory (`None` once on disk).
    pub fn len(&self) -> Option<usize> {
        self.disk.is_none().then(|| self.memory.len())
    }

    /// Whether no pair was joined.
    pub fn is_empty(&self) -> bool {
        self.disk.is_none() && self.memory.is_empty()
    }

    /// Lists the clusters: in memory ([`Clustering::clusters`] of at least two members), or
    /// the components computed on disk as a stream.
    pub fn finish(self) -> Result<ClusterList, ShuffleError> {
        match self.disk {
            Some(components) => Ok(ClusterList::Disk(components.finish()?)),
            None => {
                let mut memory = self.memory;
                Ok(ClusterList::Memory(memory.clusters(2)))
            }
        }
    }
}

/// The clusters of a [`BoundedClustering`], in canonical order either way.
#[derive(Debug)]
pub enum ClusterList {
    /// Listed in memory.
    Memory(Clusters),
    /// Computed on disk, read a cluster or a batch at a time.
    Disk(ComponentStream),
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn in_memory(edges: &[(u64, u64)]) -> Vec<Vec<u64>> {
        let mut clustering = Clustering::new();
        for &(a, b) in edges {
            if a != b {
                clustering.union(a, b).unwrap();
            }
        }
        let clusters = clustering.clusters(2);
        clusters.iter().map(|c| c.members().to_vec()).collect()
    }

    fn on_disk(edges: &[(u64, u64)], budget: u64) -> (Vec<Vec<u64>>, u32) {
        let dir = tempfile::tempdir().unwrap();
        let mut components = Components::new(budget, Some(dir.path().into())).unwrap();
        for &(a, b) in edges {
            components.push(a, b).unwrap();
        }
        let mut stream = components.finish().unwrap();
        let mut out = Vec::new();
        let mut members = Vec::new();
        while stream.next_cluster(&mut members).unwrap() {
            out.push(members.clone());
        }
        assert_eq!(stream.clusters_read(), out.len() as u64);
        let passes = stream.passes();
        drop(stream);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        (out, passes)
    }

    fn bounded(edges: &[(u64, u64)], budget: u64) -> (Vec<Vec<u64>>, bool) {
        let dir = tempfile::tempdir().unwrap();
        let mut clustering = BoundedClustering::new(budget, 16, Some(dir.path().into())).unwrap();
        for &(a, b) in edges {
            if a != b {
                clustering.union(a, b).unwrap();
            }
        }
        match clustering.finish().unwrap() {
            ClusterList::Memory(clusters) => (
                clusters.iter().map(|c| c.members().to_vec()).collect(),
                false,
            ),
            ClusterList::Disk(mut stream) => {
                let mut out = Vec::new();
                let mut batch = Clusters::new();
                // Batches of at least one cluster and about seven members.
                while stream.next_clusters(7, &mut batch).unwrap() {
                    let last = batch.get(batch.len() - 1).unwrap().len();
                    assert!(batch.num_members() - last < 7);
                    out.extend(batch.iter().map(|c| c.members().to_vec()));
                }
                assert!(batch.is_empty());
                (out, true)
            }
        }
    }

    /// Random graphs over a few ids (so that components join), spread over the id space.
    fn graph() -> impl Strategy<Value = Vec<(u64, u64)>> {
        (1u64..150, any::<u64>()).prop_flat_map(|(n, salt)| {
            let id = move |i: u64| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt) >> 1;
            proptest::collection::vec((0..n, 0..n), 0..250).prop_map(move |edges| {
                edges
                    .into_iter()
                    .map(|(a, b)| (id(a), id(b)))
                    .collect::<Vec<_>>()
            })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The components on disk are union-find's, at a budget that spills every few edges
        /// and at one that holds everything.
        #[test]
        fn disk_components_equal_union_find(edges in graph()) {
            let expected = in_memory(&edges);
            for budget in [MIN_MEM_BUDGET, 1 << 20] {
                prop_assert_eq!(&on_disk(&edges, budget).0, &expected);
            }
        }

        /// Whenever the bounded clustering moves to disk, its clusters are the same.
        #[test]
        fn bounded_clustering_equals_union_find(edges in graph(), budget in 0u64..8192) {
            let expected = in_memory(&edges);
            let (got, _) = bounded(&edges, budget);
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn a_long_path_converges() {
        // A path visited in a scrambled order, the worst shape for label propagation.
        let n = 5_000u64;
        let order = |i: u64| i * 7919 % n;
        let edges: Vec<(u64, u64)> = (1..n).map(|i| (order(i - 1), order(i))).collect();
        let (clusters, passes) = on_disk(&edges, MIN_MEM_BUDGET);
        assert_eq!(clusters, vec![(0..n).collect::<Vec<u64>>()]);
        assert!(passes < 60, "{passes} passes");
    }

    #[test]
    fn the_budget_decides_memory_or_disk() {
        let edges: Vec<(u64, u64)> = (0..1000).map(|i| (i, i + 5000)).collect();
        let (a, on_disk) = bounded(&edges, 1 << 30);
        assert!(!on_disk);
        let (b, on_disk) = bounded(&edges, 0);
        assert!(on_disk);
        assert_eq!(a, b);
        assert_eq!(a.len(), 1000);
        let unbounded = BoundedClustering::new(u64::MAX, 0, None).unwrap();
        assert_eq!(unbounded.limit(), usize::MAX);
    }

    #[test]
    fn no_edges_no_clusters() {
        assert!(on_disk(&[], MIN_MEM_BUDGET).0.is_empty());
        assert!(on_disk(&[(3, 3)], MIN_MEM_BUDGET).0.is_empty());
        assert!(Components::new(MIN_MEM_BUDGET - 1, None).is_err());
    }
}
