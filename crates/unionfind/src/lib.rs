//! Union-find (disjoint sets) for clustering candidate pairs, with deterministic cluster listing.
//!
//! The dedup pipeline ends with a stream of candidate pairs of sentence ids; the clusters are the
//! connected components of that graph. This crate builds them in near-linear time and lists them
//! the same way on every run: a cluster's id is its smallest member, clusters are ordered by id,
//! and members are sorted, whatever order the pairs arrived in.
//!
//! ```
//! use textreuse_unionfind::Clustering;
//!
//! // Sparse u64 ids, such as packed (document << 32 | sentence index) ids.
//! let mut clustering = Clustering::new();
//! clustering.union(30, 10)?;
//! clustering.union(10, 20)?;
//! clustering.union(7, 99)?;
//! clustering.insert(5)?; // a singleton
//!
//! let clusters = clustering.clusters(2); // only clusters of at least two members
//! assert_eq!(clusters.len(), 2);
//! let first = clusters.get(0).unwrap();
//! assert_eq!((first.id(), first.members()), (7, &[7, 99][..]));
//! let second = clusters.get(1).unwrap();
//! assert_eq!((second.id(), second.members()), (10, &[10, 20, 30][..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Overview
//!
//! * [`UnionFind`]: dense disjoint sets over `u32` indices `0..len`, union by size and path
//!   halving. [`UnionFind::union`] and [`UnionFind::find`] take `O(α(n))` amortized time.
//! * [`IdMap`]: a bijection between sparse `u64` ids and dense `u32` indices, assigned in
//!   first-seen order.
//! * [`Clustering`]: the two together, for a streaming `union(a, b)` over sparse ids, then
//!   [`Clustering::clusters`] to list the components.
//! * [`Clusters`] stores every listed cluster in three flat arrays (no allocation per cluster);
//!   [`Clusters::iter`] yields [`Cluster`] views.
//!
//! Cluster ids and order depend only on the set of unions, never on their order or on which
//! element became a root: that is what makes the pipeline's output byte-identical across thread
//! counts and memory budgets.
//!
//! # Performance
//!
//! A dense union costs two `find`s over `u32` arrays (8 bytes of state per element). A sparse
//! union adds two hash-map lookups (about 24 bytes per distinct id, plus the `u64` back-map),
//! which dominate its cost. Listing clusters is one `find` per element, a counting pass and a sort
//! of each cluster's members: `O(n log s)` for clusters of size `s`. See `docs/performance.md` for
//! measured numbers (`cargo bench -p textreuse-benches --bench unionfind`).
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

use std::iter::FusedIterator;

/// The most elements a [`UnionFind`] (and so an [`IdMap`] or a [`Clustering`]) can hold: indices
/// are `u32` and `u32::MAX` is kept free as a sentinel.
pub const MAX_ELEMENTS: usize = u32::MAX as usize;

/// The error type of this crate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnionFindError {
    /// More than [`MAX_ELEMENTS`] distinct elements were inserted. Recover by clustering the input
    /// in independent parts (for instance one connected batch of documents at a time); English
    /// Wikipedia's 135.8M sentences are far below the limit.
    #[error("union-find is full: at most {limit} distinct elements are supported")]
    TooManyElements {
        /// The limit that was hit ([`MAX_ELEMENTS`]).
        limit: usize,
    },
}

/// Dense disjoint sets over the indices `0..len`, with union by size and path halving.
///
/// Indices out of range are a caller bug and panic, like slice indexing; every method that takes
/// an index documents it.
///
/// ```
/// use textreuse_unionfind::UnionFind;
///
/// let mut uf = UnionFind::new(5);
/// assert!(uf.union(0, 3));
/// assert!(uf.union(3, 4));
/// assert!(!uf.union(4, 0)); // already joined
/// assert!(uf.connected(0, 4));
/// assert_eq!(uf.set_size(4), 3);
/// assert_eq!(uf.num_sets(), 3); // {0, 3, 4}, {1}, {2}
/// ```
#[derive(Clone, Debug, Default)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
    sets: usize,
}

impl UnionFind {
    /// `n` singleton sets `{0}, {1}, ..., {n - 1}`.
    pub fn new(n: u32) -> UnionFind {
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n as usize],
            sets: n as usize,
        }
    }

    /// An empty structure with room for `n` elements before reallocating.
    pub fn with_capacity(n: usize) -> UnionFind {
        UnionFind {
            parent: Vec::with_capacity(n),
            size: Vec::with_capacity(n),
            sets: 0,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The number of disjoint sets.
    pub fn num_sets(&self) -> usize {
        self.sets
    }

    /// Adds a new singleton element and returns its index.
    ///
    /// Fails once [`MAX_ELEMENTS`] elements exist.
    pub fn push(&mut self) -> Result<u32, UnionFindError> {
        let index = self.parent.len();
        if index >= MAX_ELEMENTS {
            return Err(UnionFindError::TooManyElements {
                limit: MAX_ELEMENTS,
            });
        }
        let index = index as u32;
        self.parent.push(index);
        self.size.push(1);
        self.sets += 1;
        Ok(index)
    }

    /// The representative of `x`'s set, halving the path on the way (every visited node is
    /// re-pointed to its grandparent).
    ///
    /// # Panics
    ///
    /// If `x >= len`.
    #[inline]
    pub fn find(&mut self, mut x: u32) -> u32 {
        let parent = &mut self.parent;
        assert!((x as usize) < parent.len(), "union-find index out of range");
        loop {
            let p = parent[x as usize];
            if p == x {
                return x;
            }
            let gp = parent[p as usize];
            parent[x as usize] = gp;
            x = gp;
        }
    }

    /// The representative of `x`'s set, without changing the structure.
    ///
    /// # Panics
    ///
    /// If `x >= len`.
    pub fn root(&self, mut x: u32) -> u32 {
        loop {
            let p = self.parent[x as usize];
            if p == x {
                return x;
            }
            x = p;
        }
    }

    /// Joins the sets of `a` and `b`; returns whether they were different sets.
    ///
    /// The smaller set is attached below the larger one (ties: `b`'s root below `a`'s), so trees
    /// stay `O(log n)` deep even without path halving.
    ///
    /// # Panics
    ///
    /// If `a` or `b` is `>= len`.
    #[inline]
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let mut ra = self.find(a);
        let mut rb = self.find(b);
        if ra == rb {
            return false;
        }
        if self.size[ra as usize] < self.size[rb as usize] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb as usize] = ra;
        self.size[ra as usize] += self.size[rb as usize];
        self.sets -= 1;
        true
    }

    /// Whether `a` and `b` are in the same set.
    ///
    /// # Panics
    ///
    /// If `a` or `b` is `>= len`.
    pub fn connected(&mut self, a: u32, b: u32) -> bool {
        self.find(a) == self.find(b)
    }

    /// The number of elements in `x`'s set.
    ///
    /// # Panics
    ///
    /// If `x >= len`.
    pub fn set_size(&mut self, x: u32) -> u32 {
        let r = self.find(x);
        self.size[r as usize]
    }

    /// Lists the sets with at least `min_size` elements (`0` and `1` both mean all), members as
    /// indices. A set's id is its smallest index; sets are ordered by id, members ascending.
    pub fn clusters(&mut self, min_size: usize) -> Clusters {
        list_clusters(self, min_size, |i| i as u64)
    }
}

/// A bijection between sparse `u64` ids and dense `u32` indices `0..len`, assigned in first-seen
/// order.
///
/// ```
/// use textreuse_unionfind::IdMap;
///
/// let mut map = IdMap::new();
/// assert_eq!(map.insert(1 << 40)?, 0);
/// assert_eq!(map.insert(17)?, 1);
/// assert_eq!(map.insert(1 << 40)?, 0); // already known
/// assert_eq!(map.get(17), Some(1));
/// assert_eq!(map.sparse(0), Some(1 << 40));
/// assert_eq!(map.get(18), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct IdMap {
    dense: ahash::AHashMap<u64, u32>,
    sparse: Vec<u64>,
}

impl IdMap {
    /// An empty map.
    pub fn new() -> IdMap {
        IdMap::default()
    }

    /// An empty map with room for `n` ids before reallocating.
    pub fn with_capacity(n: usize) -> IdMap {
        IdMap {
            dense: ahash::AHashMap::with_capacity(n),
            sparse: Vec::with_capacity(n),
        }
    }

    /// The number of distinct ids.
    pub fn len(&self) -> usize {
        self.sparse.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.sparse.is_empty()
    }

    /// The dense index of `id`, assigning the next free one if `id` is new.
    ///
    /// Fails once [`MAX_ELEMENTS`] ids exist.
    #[inline]
    pub fn insert(&mut self, id: u64) -> Result<u32, UnionFindError> {
        let next = self.sparse.len();
        match self.dense.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => Ok(*e.get()),
            std::collections::hash_map::Entry::Vacant(e) => {
                if next >= MAX_ELEMENTS {
                    return Err(UnionFindError::TooManyElements {
                        limit: MAX_ELEMENTS,
                    });
                }
                e.insert(next as u32);
                self.sparse.push(id);
                Ok(next as u32)
            }
        }
    }

    /// The dense index of `id`, if it was inserted.
    #[inline]
    pub fn get(&self, id: u64) -> Option<u32> {
        self.dense.get(&id).copied()
    }

    /// The sparse id of dense index `index`, if `index < len`.
    #[inline]
    pub fn sparse(&self, index: u32) -> Option<u64> {
        self.sparse.get(index as usize).copied()
    }

    /// All sparse ids, indexed by their dense index.
    pub fn ids(&self) -> &[u64] {
        &self.sparse
    }
}

/// Streaming clustering over sparse `u64` ids: an [`IdMap`] plus a [`UnionFind`].
///
/// Feed it `union(a, b)` for every candidate pair (and `insert(id)` for ids that should appear
/// as singletons), then list the clusters with [`Clustering::clusters`].
#[derive(Clone, Debug, Default)]
pub struct Clustering {
    ids: IdMap,
    sets: UnionFind,
}

impl Clustering {
    /// An empty clustering.
    pub fn new() -> Clustering {
        Clustering::default()
    }

    /// An empty clustering with room for `n` distinct ids before reallocating.
    pub fn with_capacity(n: usize) -> Clustering {
        Clustering {
            ids: IdMap::with_capacity(n),
            sets: UnionFind::with_capacity(n),
        }
    }

    /// Adds `id` as an element (a singleton if it is new) and returns its dense index.
    ///
    /// Fails once [`MAX_ELEMENTS`] distinct ids exist.
    #[inline]
    pub fn insert(&mut self, id: u64) -> Result<u32, UnionFindError> {
        let index = self.ids.insert(id)?;
        if index as usize == self.sets.len() {
            self.sets.push()?;
        }
        Ok(index)
    }

    /// Joins the clusters of `a` and `b` (inserting them if new); returns whether they were in
    /// different clusters.
    ///
    /// Fails once [`MAX_ELEMENTS`] distinct ids exist.
    #[inline]
    pub fn union(&mut self, a: u64, b: u64) -> Result<bool, UnionFindError> {
        let a = self.insert(a)?;
        let b = self.insert(b)?;
        Ok(self.sets.union(a, b))
    }

    /// Whether `a` and `b` are known and in the same cluster.
    pub fn connected(&mut self, a: u64, b: u64) -> bool {
        match (self.ids.get(a), self.ids.get(b)) {
            (Some(a), Some(b)) => self.sets.connected(a, b),
            _ => false,
        }
    }

    /// The number of distinct ids seen.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no id was seen.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The number of clusters, singletons included.
    pub fn num_sets(&self) -> usize {
        self.sets.num_sets()
    }

    /// The id map (sparse id <-> dense index).
    pub fn id_map(&self) -> &IdMap {
        &self.ids
    }

    /// The dense union-find over the id map's indices.
    pub fn union_find(&mut self) -> &mut UnionFind {
        &mut self.sets
    }

    /// The id map and the union-find, for a caller that walks both (for instance to write each
    /// id's root out when the clustering moves to disk).
    pub fn into_parts(self) -> (IdMap, UnionFind) {
        (self.ids, self.sets)
    }

    /// An upper estimate of the bytes a clustering of `ids` distinct ids made by
    /// [`Clustering::with_capacity`]`(ids)` holds at its peak, which is while
    /// [`Clustering::clusters`] lists it: the id map's hash table (16 bytes an entry and a
    /// control byte, at most 7/8 full, rounded up to a power of two), the back-map and the
    /// union-find arrays (16 bytes an id), and the listing's arrays (about 32 bytes an id: the
    /// smallest member and root of each id, the kept roots, the cluster ids and offsets, the
    /// members). Callers under a memory budget size the clustering with it and move to an
    /// out-of-core path when it is full (`textreuse-shuffle`'s `BoundedClustering`).
    ///
    /// ```
    /// use textreuse_unionfind::Clustering;
    ///
    /// assert!(Clustering::peak_bytes(1_000_000) < 100 << 20);
    /// assert!(Clustering::peak_bytes(2_000) > Clustering::peak_bytes(1_000));
    /// ```
    pub fn peak_bytes(ids: usize) -> u64 {
        // The table's buckets for `ids` entries, as the standard library's hash map sizes them.
        let buckets = if ids < 4 {
            4
        } else if ids < 8 {
            8
        } else {
            (ids as u64 * 8 / 7).next_power_of_two()
        };
        let table = buckets * 17 + 16;
        table + ids as u64 * (16 + 32)
    }

    /// Lists the clusters with at least `min_size` members (`0` and `1` both mean all). A
    /// cluster's id is its smallest member; clusters are ordered by id, members ascending.
    pub fn clusters(&mut self, min_size: usize) -> Clusters {
        let Clustering { ids, sets } = self;
        let sparse = ids.ids();
        list_clusters(sets, min_size, |i| sparse[i as usize])
    }
}

/// Lists the sets of `uf` with at least `min_size` members, members mapped through `sparse`
/// (which must be injective), in the canonical order.
fn list_clusters(uf: &mut UnionFind, min_size: usize, sparse: impl Fn(u32) -> u64) -> Clusters {
    let n = uf.len();
    let min_size = min_size.max(1);
    // Smallest sparse member per root.
    let mut min_id = vec![u64::MAX; n];
    let mut roots = Vec::with_capacity(n);
    for i in 0..n as u32 {
        let r = uf.find(i);
        roots.push(r);
        let id = sparse(i);
        let m = &mut min_id[r as usize];
        if id < *m {
            *m = id;
        }
    }
    // The kept roots, in cluster-id order.
    let mut kept: Vec<u32> = (0..n as u32)
        .filter(|&r| roots[r as usize] == r && uf.size[r as usize] as usize >= min_size)
        .collect();
    kept.sort_unstable_by_key(|&r| min_id[r as usize]);
    // Root -> write cursor into `members`, reusing the min_id array once each id is recorded.
    let mut ids = Vec::with_capacity(kept.len());
    let mut offsets = Vec::with_capacity(kept.len() + 1);
    offsets.push(0usize);
    let mut cursor = min_id;
    let mut total = 0usize;
    for &r in &kept {
        ids.push(cursor[r as usize]);
        cursor[r as usize] = total as u64;
        total += uf.size[r as usize] as usize;
        offsets.push(total);
    }
    let keep = |r: u32| uf.size[r as usize] as usize >= min_size;
    let mut members = vec![0u64; total];
    for i in 0..n as u32 {
        let r = roots[i as usize];
        if keep(r) {
            let c = &mut cursor[r as usize];
            members[*c as usize] = sparse(i);
            *c += 1;
        }
    }
    for w in offsets.windows(2) {
        members[w[0]..w[1]].sort_unstable();
    }
    Clusters {
        ids,
        offsets,
        members,
    }
}

/// A list of clusters in canonical order, stored flat: ids, member offsets, members.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clusters {
    ids: Vec<u64>,
    offsets: Vec<usize>,
    members: Vec<u64>,
}

impl Clusters {
    /// An empty list, to be filled with [`Clusters::push`].
    pub fn new() -> Clusters {
        Clusters::default()
    }

    /// Appends a cluster: `members` ascending and distinct (its id is the first), after every
    /// cluster already listed (its id above theirs). Out-of-core producers of clusters, such as
    /// `textreuse-shuffle`'s connected components, list them with it a batch at a time.
    ///
    /// # Panics
    ///
    /// If `members` is empty or not strictly ascending, or its id is not above the last
    /// cluster's (a caller bug: the list would not be in the canonical order).
    ///
    /// ```
    /// use textreuse_unionfind::Clusters;
    ///
    /// let mut clusters = Clusters::new();
    /// clusters.push(&[3, 8]);
    /// clusters.push(&[5, 6, 9]);
    /// assert_eq!(clusters.ids(), &[3, 5]);
    /// assert_eq!(clusters.get(1).unwrap().members(), &[5, 6, 9]);
    /// assert_eq!(clusters.num_members(), 5);
    /// ```
    pub fn push(&mut self, members: &[u64]) {
        let id = *members.first().expect("a cluster has a member");
        assert!(
            members.windows(2).all(|w| w[0] < w[1]),
            "cluster members must be strictly ascending"
        );
        assert!(
            self.ids.last().is_none_or(|&last| last < id),
            "clusters must be pushed in ascending id order"
        );
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.ids.push(id);
        self.members.extend_from_slice(members);
        self.offsets.push(self.members.len());
    }

    /// Removes every cluster, keeping the allocations.
    pub fn clear(&mut self) {
        self.ids.clear();
        self.offsets.clear();
        self.members.clear();
    }

    /// The number of clusters.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are no clusters.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The `i`-th cluster (in id order), if `i < len`.
    pub fn get(&self, i: usize) -> Option<Cluster<'_>> {
        let id = *self.ids.get(i)?;
        Some(Cluster {
            id,
            members: &self.members[self.offsets[i]..self.offsets[i + 1]],
        })
    }

    /// The clusters in id order.
    pub fn iter(&self) -> ClustersIter<'_> {
        ClustersIter {
            clusters: self,
            next: 0,
        }
    }

    /// The total number of members over all clusters.
    pub fn num_members(&self) -> usize {
        self.members.len()
    }

    /// The cluster ids (each the smallest member), ascending.
    pub fn ids(&self) -> &[u64] {
        &self.ids
    }
}

impl<'a> IntoIterator for &'a Clusters {
    type Item = Cluster<'a>;
    type IntoIter = ClustersIter<'a>;

    fn into_iter(self) -> ClustersIter<'a> {
        self.iter()
    }
}

/// One cluster: its id (the smallest member) and its members, ascending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cluster<'a> {
    id: u64,
    members: &'a [u64],
}

impl<'a> Cluster<'a> {
    /// The cluster id: its smallest member.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The members, ascending (the first is the id).
    pub fn members(&self) -> &'a [u64] {
        self.members
    }

    /// The number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Always false: listed clusters have at least one member.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// Iterator over [`Clusters`], returned by [`Clusters::iter`].
#[derive(Clone, Debug)]
pub struct ClustersIter<'a> {
    clusters: &'a Clusters,
    next: usize,
}

impl<'a> Iterator for ClustersIter<'a> {
    type Item = Cluster<'a>;

    fn next(&mut self) -> Option<Cluster<'a>> {
        let c = self.clusters.get(self.next)?;
        self.next += 1;
        Some(c)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.clusters.len() - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for ClustersIter<'_> {}
impl FusedIterator for ClustersIter<'_> {}

#[cfg(test)]
mod tests;
