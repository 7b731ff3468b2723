//! Documents as sets of paragraph fingerprints: the similarity `S(M, N)` of Wang, Liu and Jia
//! and the search for every pair of documents with `S >= r`.
//!
//! `S(M, N) = |M ∩ N| / sqrt(|M| · |N|)` is the cosine of the two sets seen as binary vectors
//! over all fingerprints. *Reading:* the paper compares fingerprints as set elements, so two
//! paragraphs match when their fingerprints are equal ([`set_similarity`], the default). A
//! tolerance of `h` bits ([`set_similarity_within`], [`SetSearchBuilder::max_hamming`]) is our
//! extension: a fingerprint of `M` then matches one of `N` within `h` bits, each used at most
//! once, and `|M ∩ N|` becomes the size of a maximum such matching (so the measure stays
//! symmetric and `S(M, M) = 1`).

use crate::search::TableSearch;
use crate::{HammingPair, SimHashError};

/// The default threshold `r` of [`SetSearch`]: 0.8, the paper's.
pub const DEFAULT_SET_THRESHOLD: f64 = 0.8;

/// A document as the set of its paragraph fingerprints: sorted ascending, each once.
///
/// ```
/// use textreuse_simhash::FingerprintSet;
/// let set: FingerprintSet = [7u64, 3, 7, 1].into_iter().collect();
/// assert_eq!(set.as_slice(), [1, 3, 7]);
/// assert!(set.contains(3));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FingerprintSet {
    fingerprints: Vec<u64>,
}

impl FingerprintSet {
    /// The set of the fingerprints given (sorted, duplicates dropped).
    pub fn from_fingerprints(fingerprints: impl IntoIterator<Item = u64>) -> FingerprintSet {
        let mut fingerprints: Vec<u64> = fingerprints.into_iter().collect();
        fingerprints.sort_unstable();
        fingerprints.dedup();
        FingerprintSet { fingerprints }
    }

    /// The fingerprints, ascending.
    pub fn as_slice(&self) -> &[u64] {
        &self.fingerprints
    }

    /// The number of distinct fingerprints `|M|`.
    pub fn len(&self) -> usize {
        self.fingerprints.len()
    }

    /// Whether the set is empty (a document without a fingerprinted paragraph).
    pub fn is_empty(&self) -> bool {
        self.fingerprints.is_empty()
    }

    /// Whether the set holds `fingerprint`.
    pub fn contains(&self, fingerprint: u64) -> bool {
        self.fingerprints.binary_search(&fingerprint).is_ok()
    }

    /// `|self ∩ other|`, by one merge of the sorted lists.
    pub fn intersection_len(&self, other: &FingerprintSet) -> usize {
        let (a, b) = (&self.fingerprints, &other.fingerprints);
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        n
    }
}

impl FromIterator<u64> for FingerprintSet {
    fn from_iter<I: IntoIterator<Item = u64>>(iter: I) -> Self {
        FingerprintSet::from_fingerprints(iter)
    }
}

/// `shared / sqrt(a · b)`, 0 when either set is empty. Exactly symmetric (the product
/// commutes), and exactly 1 when `shared = a = b` (the square root of a square below `2^53` is
/// exact).
fn cosine(shared: usize, a: usize, b: usize) -> f64 {
    if a == 0 || b == 0 {
        return 0.0;
    }
    shared as f64 / ((a as f64) * (b as f64)).sqrt()
}

/// The paper's similarity `S(M, N) = |M ∩ N| / sqrt(|M| · |N|)` of two documents' fingerprint
/// sets: 1 for equal non-empty sets, 0 when they share nothing or either is empty; symmetric.
///
/// ```
/// use textreuse_simhash::{FingerprintSet, set_similarity};
/// let m = FingerprintSet::from_fingerprints([1, 2, 3, 4]);
/// let n = FingerprintSet::from_fingerprints([3, 4, 5]);
/// assert_eq!(set_similarity(&m, &n), 2.0 / 12f64.sqrt());
/// ```
pub fn set_similarity(m: &FingerprintSet, n: &FingerprintSet) -> f64 {
    cosine(m.intersection_len(n), m.len(), n.len())
}

/// `S(M, N)` where a fingerprint matches one within `max_hamming` bits: the shared count is the
/// size of a maximum one-to-one matching between `M` and `N` under that relation (equal to
/// `|M ∩ N|` for `max_hamming = 0`). Symmetric, in `[0, 1]`, 1 for equal non-empty sets. Costs
/// `|M| · |N|` distance computations plus the matching.
///
/// ```
/// use textreuse_simhash::{FingerprintSet, set_similarity_within};
/// let m = FingerprintSet::from_fingerprints([0b0000, 0b1111]);
/// let n = FingerprintSet::from_fingerprints([0b0001, 0b1111]);
/// assert_eq!(set_similarity_within(&m, &n, 0), 0.5);
/// assert_eq!(set_similarity_within(&m, &n, 1), 1.0);
/// ```
pub fn set_similarity_within(m: &FingerprintSet, n: &FingerprintSet, max_hamming: u32) -> f64 {
    if max_hamming == 0 {
        return set_similarity(m, n);
    }
    cosine(
        max_matching(m.as_slice(), n.as_slice(), max_hamming),
        m.len(),
        n.len(),
    )
}

/// The size of a maximum matching between `a` and `b` where `x` and `y` may be matched when
/// they differ in at most `h` bits (Kuhn's augmenting paths, with an explicit stack).
fn max_matching(a: &[u64], b: &[u64], h: u32) -> usize {
    let adj: Vec<Vec<u32>> = a
        .iter()
        .map(|&x| {
            (0..b.len() as u32)
                .filter(|&j| (x ^ b[j as usize]).count_ones() <= h)
                .collect()
        })
        .collect();
    let mut match_b: Vec<Option<u32>> = vec![None; b.len()];
    let mut visited = vec![false; b.len()];
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut via: Vec<u32> = Vec::new();
    let mut matched = 0;
    for i in 0..a.len() as u32 {
        if adj[i as usize].is_empty() {
            continue;
        }
        visited.iter_mut().for_each(|v| *v = false);
        stack.clear();
        via.clear();
        stack.push((i, 0));
        'search: while let Some(top) = stack.last_mut() {
            let (node, edge) = (top.0 as usize, top.1);
            if edge == adj[node].len() {
                stack.pop();
                via.pop();
                continue;
            }
            top.1 += 1;
            let j = adj[node][edge];
            if visited[j as usize] {
                continue;
            }
            visited[j as usize] = true;
            via.push(j);
            match match_b[j as usize] {
                None => {
                    // Augment: every node on the stack takes the `b` it reached through.
                    for (k, &(node, _)) in stack.iter().enumerate() {
                        match_b[via[k] as usize] = Some(node);
                    }
                    matched += 1;
                    break 'search;
                }
                Some(owner) => stack.push((owner, 0)),
            }
        }
    }
    matched
}

/// A pair of documents with `S >= r`: indices into the input (`a < b` in a search within one
/// corpus; `a` the query and `b` the corpus document in [`SetSearch::pairs_between`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetPair {
    /// The first document.
    pub a: u32,
    /// The second document.
    pub b: u32,
    /// `|M ∩ N|` (with a Hamming tolerance, the size of the maximum matching).
    pub shared: u32,
    /// `S(M, N)`.
    pub similarity: f64,
}

/// Finds the pairs of documents whose fingerprint sets have `S(M, N) >= r`.
///
/// Documents are indexed by fingerprint (sorted `(fingerprint, document)` postings, no hash
/// map), and each document is compared only with the documents that share a fingerprint with it
/// (or, with a Hamming tolerance `h > 0`, hold one within `h` bits of one of its own: the pairs
/// of distinct fingerprints within `h` bits come from the exact [`TableSearch`]). So the cost
/// follows the pairs of documents that share something, `sum over fingerprints of (postings)^2`,
/// not `n^2`; a fingerprint shared by very many documents (a boilerplate paragraph) still makes
/// all their pairs candidates. The result depends only on the input sets, in the input order.
///
/// ```
/// use textreuse_simhash::{FingerprintSet, SetSearch};
/// let sets = [
///     FingerprintSet::from_fingerprints([1, 2, 3, 4, 5]),
///     FingerprintSet::from_fingerprints([1, 2, 3, 4, 6]),
///     FingerprintSet::from_fingerprints([7, 8]),
/// ];
/// let pairs = SetSearch::new().pairs(&sets)?; // r = 0.8
/// assert_eq!(pairs.len(), 1);
/// assert_eq!((pairs[0].a, pairs[0].b, pairs[0].shared), (0, 1, 4));
/// assert_eq!(pairs[0].similarity, 0.8);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SetSearch {
    threshold: f64,
    max_hamming: u32,
}

impl Default for SetSearch {
    fn default() -> Self {
        SetSearch::new()
    }
}

/// Builds a [`SetSearch`].
#[derive(Clone, Copy, Debug)]
pub struct SetSearchBuilder {
    threshold: f64,
    max_hamming: u32,
}

impl Default for SetSearchBuilder {
    fn default() -> Self {
        SetSearchBuilder {
            threshold: DEFAULT_SET_THRESHOLD,
            max_hamming: 0,
        }
    }
}

impl SetSearchBuilder {
    /// The threshold `r`: pairs with `S >= r` are reported (in `(0, 1]`; default 0.8).
    pub fn threshold(&mut self, r: f64) -> &mut Self {
        self.threshold = r;
        self
    }

    /// Fingerprints within this many bits count as equal (default 0, the paper's exact
    /// equality; at most 64, the table search's limit).
    pub fn max_hamming(&mut self, h: u32) -> &mut Self {
        self.max_hamming = h;
        self
    }

    /// Checks the parameters.
    ///
    /// # Errors
    ///
    /// [`SimHashError::InvalidSimilarityThreshold`] for `r` outside `(0, 1]`,
    /// [`SimHashError::InvalidThreshold`] for a tolerance the table search cannot do.
    pub fn build(&self) -> Result<SetSearch, SimHashError> {
        let r = self.threshold;
        if !(r > 0.0 && r <= 1.0) {
            return Err(SimHashError::InvalidSimilarityThreshold { threshold: r });
        }
        if self.max_hamming > 0 {
            // The same check the neighbour search makes later.
            TableSearch::new(self.max_hamming)?;
        }
        Ok(SetSearch {
            threshold: r,
            max_hamming: self.max_hamming,
        })
    }
}

impl SetSearch {
    /// `r = 0.8`, exact fingerprint equality.
    pub fn new() -> SetSearch {
        SetSearchBuilder::default()
            .build()
            .expect("the defaults are valid")
    }

    /// A builder starting from the defaults.
    pub fn builder() -> SetSearchBuilder {
        SetSearchBuilder::default()
    }

    /// The threshold `r`.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The Hamming tolerance (0: exact equality).
    pub fn max_hamming(&self) -> u32 {
        self.max_hamming
    }

    /// Every pair `a < b` of `sets` with `S >= r`, sorted by `(a, b)`.
    ///
    /// # Errors
    ///
    /// [`SimHashError::TooManySignatures`] for more than `2^32` sets (results carry `u32`
    /// indices).
    pub fn pairs(&self, sets: &[FingerprintSet]) -> Result<Vec<SetPair>, SimHashError> {
        self.search(sets, sets, true)
    }

    /// Every pair of a query (`a`, an index into `queries`) and a corpus document (`b`, an index
    /// into `corpus`) with `S >= r`, sorted by `(a, b)`.
    ///
    /// # Errors
    ///
    /// [`SimHashError::TooManySignatures`] for more than `2^32` sets on either side.
    pub fn pairs_between(
        &self,
        queries: &[FingerprintSet],
        corpus: &[FingerprintSet],
    ) -> Result<Vec<SetPair>, SimHashError> {
        self.search(queries, corpus, false)
    }

    fn search(
        &self,
        left: &[FingerprintSet],
        right: &[FingerprintSet],
        within: bool,
    ) -> Result<Vec<SetPair>, SimHashError> {
        for n in [left.len(), right.len()] {
            if n > u32::MAX as usize {
                return Err(SimHashError::TooManySignatures { n });
            }
        }
        let index = Postings::new(left, right, within, self.max_hamming)?;
        let mut out = Vec::new();
        let mut candidates: Vec<u32> = Vec::new();
        for (a, m) in left.iter().enumerate() {
            let a = a as u32;
            candidates.clear();
            for &fp in m.as_slice() {
                let u = index.key_index(fp);
                let mut add = |v: u32| {
                    let docs = index.docs(v);
                    // Within one corpus each pair is found from its smaller document.
                    let from = if within {
                        docs.partition_point(|&d| d <= a)
                    } else {
                        0
                    };
                    candidates.extend_from_slice(&docs[from..]);
                };
                if self.max_hamming == 0 {
                    add(u);
                } else {
                    index.near(u).iter().for_each(|&v| add(v));
                }
            }
            candidates.sort_unstable();
            let mut k = 0;
            while k < candidates.len() {
                let b = candidates[k];
                let run = candidates[k..].iter().take_while(|&&d| d == b).count();
                k += run;
                let n = &right[b as usize];
                let shared = if self.max_hamming == 0 {
                    run
                } else {
                    max_matching(m.as_slice(), n.as_slice(), self.max_hamming)
                };
                let similarity = cosine(shared, m.len(), n.len());
                if similarity >= self.threshold {
                    out.push(SetPair {
                        a,
                        b,
                        shared: shared as u32,
                        similarity,
                    });
                }
            }
        }
        Ok(out)
    }
}

/// The postings of the right-hand sets by fingerprint, over the sorted distinct fingerprints of
/// both sides, with each fingerprint's neighbours within the tolerance (itself first).
struct Postings {
    /// Distinct fingerprints of both sides, ascending.
    keys: Vec<u64>,
    /// `docs[doc_offsets[u]..doc_offsets[u + 1]]`: the right-hand documents holding `keys[u]`,
    /// ascending.
    doc_offsets: Vec<usize>,
    docs: Vec<u32>,
    /// With a tolerance: `near[near_offsets[u]..near_offsets[u + 1]]`, the keys within it of
    /// `keys[u]`, itself first. Empty without one.
    near_offsets: Vec<usize>,
    near: Vec<u32>,
}

impl Postings {
    fn new(
        left: &[FingerprintSet],
        right: &[FingerprintSet],
        within: bool,
        max_hamming: u32,
    ) -> Result<Postings, SimHashError> {
        let mut records: Vec<(u64, u32)> = right
            .iter()
            .enumerate()
            .flat_map(|(d, s)| s.as_slice().iter().map(move |&fp| (fp, d as u32)))
            .collect();
        records.sort_unstable();
        let mut keys: Vec<u64> = records.iter().map(|r| r.0).collect();
        if !within {
            keys.extend(left.iter().flat_map(|s| s.as_slice().iter().copied()));
            keys.sort_unstable();
        }
        keys.dedup();
        let mut doc_offsets = Vec::with_capacity(keys.len() + 1);
        let mut at = 0;
        for &key in &keys {
            doc_offsets.push(at);
            while at < records.len() && records[at].0 == key {
                at += 1;
            }
        }
        doc_offsets.push(at);
        let docs = records.iter().map(|r| r.1).collect();
        let (mut near_offsets, mut near) = (Vec::new(), Vec::new());
        if max_hamming > 0 {
            if keys.len() > u32::MAX as usize {
                return Err(SimHashError::TooManySignatures { n: keys.len() });
            }
            let pairs: Vec<HammingPair> = TableSearch::new(max_hamming)?.pairs(&keys)?;
            let mut degree = vec![1usize; keys.len()];
            for p in &pairs {
                degree[p.a as usize] += 1;
                degree[p.b as usize] += 1;
            }
            near_offsets.reserve(keys.len() + 1);
            let mut total = 0;
            for d in &degree {
                near_offsets.push(total);
                total += d;
            }
            near_offsets.push(total);
            near = vec![0u32; total];
            let mut fill: Vec<usize> = near_offsets[..keys.len()].to_vec();
            for (u, f) in fill.iter_mut().enumerate() {
                near[*f] = u as u32;
                *f += 1;
            }
            for p in &pairs {
                near[fill[p.a as usize]] = p.b;
                fill[p.a as usize] += 1;
                near[fill[p.b as usize]] = p.a;
                fill[p.b as usize] += 1;
            }
        }
        Ok(Postings {
            keys,
            doc_offsets,
            docs,
            near_offsets,
            near,
        })
    }

    /// The index of a fingerprint of either side among the keys.
    fn key_index(&self, fp: u64) -> u32 {
        self.keys
            .binary_search(&fp)
            .expect("every fingerprint of both sides is a key") as u32
    }

    /// With a tolerance: the keys that count as equal to key `u` (itself first).
    fn near(&self, u: u32) -> &[u32] {
        &self.near[self.near_offsets[u as usize]..self.near_offsets[u as usize + 1]]
    }

    /// The right-hand documents holding key `u`, ascending.
    fn docs(&self, u: u32) -> &[u32] {
        &self.docs[self.doc_offsets[u as usize]..self.doc_offsets[u as usize + 1]]
    }
}
