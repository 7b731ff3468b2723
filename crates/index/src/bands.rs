use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// Why a [`BandTables`] operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BandError {
    /// An entry has one band per table; this one had another number. Recover by cutting the
    /// signature into as many bands as there are tables.
    #[error("expected {expected} bands, got {got}")]
    Bands {
        /// The number of tables.
        expected: usize,
        /// The number of bands given.
        got: usize,
    },
    /// The id is already in the tables. Recover by removing it first or using a new id.
    #[error("id {id} is already in the tables")]
    Duplicate {
        /// The id.
        id: u32,
    },
    /// [`KeyedBandTables`](crate::KeyedBandTables) holds at most 2^32 keys. Recover by
    /// splitting the keys over several tables.
    #[error("the tables hold 2^32 keys already")]
    Full,
    /// A batch's keys `first`, `first + 1`, ... would pass `u64::MAX`. Recover by starting
    /// the batch at a smaller key.
    #[error("keys from {first} for {count} rows exceed the maximum key")]
    KeyRange {
        /// The first key of the batch.
        first: u64,
        /// The number of rows.
        count: usize,
    },
}

/// A `Hasher` over [`textreuse_hash::fingerprint`]: fixed keys, the same buckets everywhere.
#[derive(Default)]
pub(crate) struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0 = textreuse_hash::mix64(self.0 ^ textreuse_hash::fingerprint(bytes));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// One entry's band bytes, shared with the bucket keys.
type EntryBands = Box<[Arc<[u8]>]>;

type Buckets = HashMap<Arc<[u8]>, Vec<u32>, BuildHasherDefault<FingerprintHasher>>;

/// In-memory banded LSH tables over raw band bytes: the core of datasketch's `MinHashLSH` and
/// `MinHashLSHForest` (the Python package's `textreuse.compat.datasketch`).
///
/// Where [`Index`](crate::Index) and [`MemoryIndex`](crate::MemoryIndex) sign texts themselves
/// and keep 64-bit band keys, [`BandTables`] takes each band of a signature as the bytes the
/// caller made of it (datasketch: the band's hash values, byte-swapped) and keeps, per table, a
/// map from those bytes to the ids of the entries that have them. Entries are numbered by the
/// caller (`u32` ids); the tables keep each entry's band bytes, so removal needs only the id.
/// [`BandTables::sort`] makes the tables searchable by prefix ([`BandTables::prefix_query`]):
/// the sorted arrays of datasketch's LSH Forest, which answer top-k queries by shortening the
/// prefix until enough entries share it.
///
/// Buckets are hashed with [`textreuse_hash::fingerprint`] (fixed, not randomly keyed), so
/// iteration order is the same on every machine and run.
///
/// ```
/// use textreuse_index::BandTables;
///
/// let mut tables = BandTables::new(2);
/// tables.insert(0, &[b"ab", b"cd"])?;
/// tables.insert(1, &[b"ab", b"xy"])?;
/// tables.insert(2, &[b"zz", b"xy"])?;
/// assert_eq!(tables.query(&[b"ab", b"xy"]), vec![0, 1, 2]);
/// tables.remove(1);
/// assert_eq!(tables.query(&[b"ab", b"xy"]), vec![0, 2]);
///
/// tables.sort(); // prefix search: entries whose first band starts with "a"
/// assert_eq!(tables.prefix_query(0, b"a").collect::<Vec<_>>(), vec![0]);
/// # Ok::<(), textreuse_index::BandError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct BandTables {
    tables: Vec<Buckets>,
    /// Each id's band bytes (shared with the bucket keys), `None` once removed.
    entries: Vec<Option<EntryBands>>,
    len: usize,
    /// The sorted bucket keys of each table as of the last `sort` (prefix queries see only
    /// those, as datasketch's forest sees only what its `index()` sorted).
    sorted: Vec<Vec<Arc<[u8]>>>,
}

impl BandTables {
    /// Empty tables, `tables` of them (one per band).
    pub fn new(tables: usize) -> BandTables {
        BandTables {
            tables: (0..tables).map(|_| Buckets::default()).collect(),
            entries: Vec::new(),
            len: 0,
            sorted: vec![Vec::new(); tables],
        }
    }

    /// The number of tables.
    pub fn tables(&self) -> usize {
        self.tables.len()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True if `id` is in the tables.
    pub fn contains(&self, id: u32) -> bool {
        matches!(self.entries.get(id as usize), Some(Some(_)))
    }

    /// Adds entry `id` with one band (as bytes) per table.
    pub fn insert<B: AsRef<[u8]>>(&mut self, id: u32, bands: &[B]) -> Result<(), BandError> {
        if bands.len() != self.tables.len() {
            return Err(BandError::Bands {
                expected: self.tables.len(),
                got: bands.len(),
            });
        }
        if self.contains(id) {
            return Err(BandError::Duplicate { id });
        }
        let mut keys = Vec::with_capacity(bands.len());
        for (table, band) in self.tables.iter_mut().zip(bands) {
            let band = band.as_ref();
            match table.get_key_value(band) {
                Some((key, _)) => {
                    let key = Arc::clone(key);
                    table.get_mut(band).expect("present").push(id);
                    keys.push(key);
                }
                None => {
                    let key: Arc<[u8]> = Arc::from(band);
                    table.insert(Arc::clone(&key), vec![id]);
                    keys.push(key);
                }
            }
        }
        let slot = id as usize;
        if self.entries.len() <= slot {
            self.entries.resize(slot + 1, None);
        }
        self.entries[slot] = Some(keys.into_boxed_slice());
        self.len += 1;
        Ok(())
    }

    /// Removes entry `id`; returns false if it was not there. Buckets left empty are dropped.
    pub fn remove(&mut self, id: u32) -> bool {
        let Some(keys) = self.entries.get_mut(id as usize).and_then(Option::take) else {
            return false;
        };
        for (table, key) in self.tables.iter_mut().zip(keys.iter()) {
            if let Some(ids) = table.get_mut(&key[..]) {
                ids.retain(|&x| x != id);
                if ids.is_empty() {
                    table.remove(&key[..]);
                }
            }
        }
        self.len -= 1;
        true
    }

    /// The ids sharing at least one band with the query (one band per table), each once, in
    /// the order first met (table by table, bucket order within a table).
    pub fn query<B: AsRef<[u8]>>(&self, bands: &[B]) -> Vec<u32> {
        self.query_tables(bands, self.tables.len())
    }

    /// [`query`](Self::query) over the first `tables` tables only (datasketch's `_query_b`,
    /// which LSH Ensemble uses to trade bands for recall).
    pub fn query_tables<B: AsRef<[u8]>>(&self, bands: &[B], tables: usize) -> Vec<u32> {
        let mut seen =
            std::collections::HashSet::<u32, BuildHasherDefault<FingerprintHasher>>::default();
        let mut out = Vec::new();
        for (table, band) in self.tables.iter().zip(bands).take(tables) {
            if let Some(ids) = table.get(band.as_ref()) {
                for &id in ids {
                    if seen.insert(id) {
                        out.push(id);
                    }
                }
            }
        }
        out
    }

    /// The bucket of `band` in table `table`: the ids that have it, in insertion order.
    pub fn bucket(&self, table: usize, band: &[u8]) -> Option<&[u32]> {
        self.tables.get(table)?.get(band).map(Vec::as_slice)
    }

    /// The buckets of table `table`: (band bytes, ids), in the tables' fixed hash order.
    pub fn buckets(&self, table: usize) -> impl Iterator<Item = (&[u8], &[u32])> {
        self.tables
            .get(table)
            .into_iter()
            .flat_map(|t| t.iter().map(|(k, v)| (&k[..], v.as_slice())))
    }

    /// The number of buckets of table `table`.
    pub fn bucket_count(&self, table: usize) -> usize {
        self.tables.get(table).map_or(0, HashMap::len)
    }

    /// The band bytes entry `id` was inserted with, one per table.
    pub fn entry(&self, id: u32) -> Option<impl Iterator<Item = &[u8]>> {
        self.entries
            .get(id as usize)?
            .as_ref()
            .map(|keys| keys.iter().map(|k| &k[..]))
    }

    /// The ids of all entries, ascending.
    pub fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_some())
            .map(|(i, _)| i as u32)
    }

    /// Sorts every table's bucket keys, making the entries inserted so far visible to
    /// [`prefix_query`](Self::prefix_query) (datasketch's `MinHashLSHForest.index()`).
    pub fn sort(&mut self) {
        for (sorted, table) in self.sorted.iter_mut().zip(&self.tables) {
            *sorted = table.keys().cloned().collect();
            sorted.sort_unstable();
        }
    }

    /// The ids in table `table` whose band starts with `prefix`, as of the last
    /// [`sort`](Self::sort): buckets in ascending byte order, ids in insertion order. Entries
    /// removed since are skipped.
    pub fn prefix_query<'a>(
        &'a self,
        table: usize,
        prefix: &'a [u8],
    ) -> impl Iterator<Item = u32> + 'a {
        let sorted: &[Arc<[u8]>] = self.sorted.get(table).map_or(&[], Vec::as_slice);
        let start = sorted.partition_point(|k| &k[..prefix.len().min(k.len())] < prefix);
        sorted[start..]
            .iter()
            .take_while(move |k| k.starts_with(prefix))
            .flat_map(move |k| self.bucket(table, k).unwrap_or(&[]).iter().copied())
    }

    /// Adds every entry of `other`, renumbered by `map` (which must give ids not in `self`).
    pub fn merge(&mut self, other: &BandTables, map: impl Fn(u32) -> u32) -> Result<(), BandError> {
        for id in other.ids() {
            let bands: Vec<&[u8]> = other.entry(id).expect("listed").collect();
            self.insert(map(id), &bands)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn insert_query_remove() {
        let mut t = BandTables::new(3);
        t.insert(5, &[b"a", b"b", b"c"]).unwrap();
        t.insert(7, &[b"a", b"x", b"y"]).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.query(&[b"a", b"q", b"q"]), vec![5, 7]);
        assert_eq!(t.query(&[b"q", b"q", b"y"]), vec![7]);
        assert_eq!(t.query_tables(&[b"q", b"q", b"y"], 2), Vec::<u32>::new());
        assert_eq!(t.bucket(0, b"a"), Some(&[5, 7][..]));
        assert_eq!(
            t.insert(5, &[b"a", b"b", b"c"]),
            Err(BandError::Duplicate { id: 5 })
        );
        assert_eq!(
            t.insert(9, &[b"a"]),
            Err(BandError::Bands {
                expected: 3,
                got: 1
            })
        );
        assert!(t.remove(5));
        assert!(!t.remove(5));
        assert_eq!(t.bucket(1, b"b"), None, "empty buckets are dropped");
        assert_eq!(t.bucket(0, b"a"), Some(&[7][..]));
        assert_eq!(
            t.entry(7).unwrap().collect::<Vec<_>>(),
            vec![b"a", b"x", b"y"]
        );
        assert_eq!(t.ids().collect::<Vec<_>>(), vec![7]);
    }

    #[test]
    fn prefix_queries_see_what_was_sorted() {
        let mut t = BandTables::new(1);
        t.insert(0, &[b"abc"]).unwrap();
        t.insert(1, &[b"abd"]).unwrap();
        t.insert(2, &[b"b00"]).unwrap();
        assert_eq!(t.prefix_query(0, b"ab").count(), 0, "not sorted yet");
        t.sort();
        assert_eq!(t.prefix_query(0, b"ab").collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(t.prefix_query(0, b"abd").collect::<Vec<_>>(), vec![1]);
        assert_eq!(t.prefix_query(0, b"").collect::<Vec<_>>(), vec![0, 1, 2]);
        t.remove(0);
        assert_eq!(t.prefix_query(0, b"ab").collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn merge_renumbers() {
        let mut a = BandTables::new(1);
        a.insert(0, &[b"x"]).unwrap();
        let mut b = BandTables::new(1);
        b.insert(0, &[b"x"]).unwrap();
        a.merge(&b, |id| id + 10).unwrap();
        assert_eq!(a.query(&[b"x"]), vec![0, 10]);
    }

    proptest! {
        /// A query returns exactly the live entries sharing a band, whatever was removed.
        #[test]
        fn query_is_exact(
            entries in proptest::collection::vec(proptest::collection::vec(0u8..4, 2), 1..40),
            removed in proptest::collection::vec(any::<bool>(), 40),
            query in proptest::collection::vec(0u8..4, 2),
        ) {
            let mut t = BandTables::new(2);
            for (id, bands) in entries.iter().enumerate() {
                let bands: Vec<[u8; 1]> = bands.iter().map(|&b| [b]).collect();
                t.insert(id as u32, &bands).unwrap();
            }
            for (id, &r) in removed.iter().enumerate().take(entries.len()) {
                if r { t.remove(id as u32); }
            }
            let q: Vec<[u8; 1]> = query.iter().map(|&b| [b]).collect();
            let mut got = t.query(&q);
            got.sort_unstable();
            let want: Vec<u32> = entries.iter().enumerate()
                .filter(|(id, bands)| !removed[*id] && bands.iter().zip(&query).any(|(a, b)| a == b))
                .map(|(id, _)| id as u32)
                .collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(t.len(), entries.len() - removed.iter().take(entries.len()).filter(|&&r| r).count());
        }
    }
}
