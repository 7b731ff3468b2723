//! [`KeyedBandTables`]: banded LSH tables over the caller's 64-bit keys.
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::BuildHasherDefault;

use crate::bands::{BandError, BandTables, FingerprintHasher};

type Fixed = BuildHasherDefault<FingerprintHasher>;

/// Banded LSH tables over the caller's 64-bit keys: the tables of rensa's `RMinHashLSH` (the
/// Python package's `textreuse.compat.rensa`).
///
/// [`KeyedBandTables`] keeps [`BandTables`] and numbers the caller's keys for it. Inserting a
/// key that is already there replaces its bands (the key moves to the end of its new buckets),
/// and queries return keys in the order first met: table by table, each bucket in insertion
/// order. Ids of removed keys are reused, so memory follows the live keys, not the history.
///
/// ```
/// use textreuse_index::KeyedBandTables;
///
/// let mut tables = KeyedBandTables::new(2);
/// tables.insert(100, &[b"ab", b"cd"])?;
/// tables.insert(7, &[b"ab", b"xy"])?;
/// assert_eq!(tables.query(&[b"zz", b"xy"]), vec![7]);
/// assert_eq!(tables.query(&[b"ab", b"xy"]), vec![100, 7]);
/// tables.insert(100, &[b"ab", b"xy"])?; // replaces key 100's bands; it now comes after 7
/// assert_eq!(tables.query(&[b"ab", b"xy"]), vec![7, 100]);
///
/// // A batch of rows flagged when they share a band with another row or an indexed key.
/// let rows = [[b"qq", b"rr"], [b"qq", b"ss"], [b"tt", b"cd"]];
/// assert_eq!(tables.duplicate_flags(&rows), vec![true, true, false]);
/// # Ok::<(), textreuse_index::BandError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct KeyedBandTables {
    tables: BandTables,
    /// Key -> the id it has in `tables`.
    ids: HashMap<u64, u32, Fixed>,
    /// Id -> (key, insertion stamp); meaningful while the id is in `tables`.
    slots: Vec<(u64, u64)>,
    /// Ids of removed keys, for reuse.
    free: Vec<u32>,
    next_stamp: u64,
}

impl KeyedBandTables {
    /// Empty tables, `tables` of them (one per band).
    pub fn new(tables: usize) -> KeyedBandTables {
        KeyedBandTables {
            tables: BandTables::new(tables),
            ..KeyedBandTables::default()
        }
    }

    /// The number of tables.
    pub fn tables(&self) -> usize {
        self.tables.tables()
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True if there are no keys.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// True if `key` is in the tables.
    pub fn contains(&self, key: u64) -> bool {
        self.ids.contains_key(&key)
    }

    /// Adds `key` with one band (as bytes) per table, replacing the bands it had. On an error
    /// the tables are unchanged.
    pub fn insert<B: AsRef<[u8]>>(&mut self, key: u64, bands: &[B]) -> Result<(), BandError> {
        if bands.len() != self.tables() {
            return Err(BandError::Bands {
                expected: self.tables(),
                got: bands.len(),
            });
        }
        self.remove(key);
        let id = match self.free.pop() {
            Some(id) => id,
            None => u32::try_from(self.slots.len()).map_err(|_| BandError::Full)?,
        };
        self.tables.insert(id, bands)?;
        let slot = (key, self.next_stamp);
        self.next_stamp += 1;
        match self.slots.get_mut(id as usize) {
            Some(s) => *s = slot,
            None => self.slots.push(slot),
        }
        self.ids.insert(key, id);
        Ok(())
    }

    /// Removes `key`; false if it was not there.
    pub fn remove(&mut self, key: u64) -> bool {
        let Some(id) = self.ids.remove(&key) else {
            return false;
        };
        self.tables.remove(id);
        self.free.push(id);
        true
    }

    /// The keys sharing at least one band with the query (one band per table), each once, in
    /// the order first met: table by table, each bucket in insertion order.
    pub fn query<B: AsRef<[u8]>>(&self, bands: &[B]) -> Vec<u64> {
        self.tables
            .query(bands)
            .into_iter()
            .map(|id| self.key(id))
            .collect()
    }

    /// The keys of bucket `band` of table `table`, in insertion order (empty if none).
    pub fn bucket(&self, table: usize, band: &[u8]) -> impl Iterator<Item = u64> + '_ {
        self.tables
            .bucket(table, band)
            .unwrap_or(&[])
            .iter()
            .map(|&id| self.key(id))
    }

    fn key(&self, id: u32) -> u64 {
        self.slots[id as usize].0
    }

    /// Every key with its bands, in the order the keys were (last) inserted: inserting them
    /// again in this order into empty tables rebuilds these tables, bucket order included.
    pub fn entries(&self) -> Vec<(u64, Vec<&[u8]>)> {
        let mut live: Vec<(u64, u64, u32)> = self
            .ids
            .iter()
            .map(|(&key, &id)| (self.slots[id as usize].1, key, id))
            .collect();
        live.sort_unstable();
        live.into_iter()
            .map(|(_, key, id)| {
                let bands = self.tables.entry(id).expect("a live id").collect();
                (key, bands)
            })
            .collect()
    }

    /// Flags for a batch of rows (each one band per table), without inserting them: a row is
    /// flagged when one of its bands is in the tables or in another row of the batch.
    pub fn duplicate_flags<R, B>(&self, rows: &[R]) -> Vec<bool>
    where
        R: AsRef<[B]>,
        B: AsRef<[u8]>,
    {
        let mut flags = vec![false; rows.len()];
        let mut first: HashMap<&[u8], usize, Fixed> = HashMap::default();
        for table in 0..self.tables() {
            first.clear();
            for (i, row) in rows.iter().enumerate() {
                let Some(band) = row.as_ref().get(table).map(AsRef::as_ref) else {
                    continue;
                };
                if self.tables.bucket(table, band).is_some() {
                    flags[i] = true;
                }
                match first.entry(band) {
                    Entry::Vacant(e) => {
                        e.insert(i);
                    }
                    Entry::Occupied(e) => {
                        flags[i] = true;
                        flags[*e.get()] = true;
                    }
                }
            }
        }
        flags
    }

    /// Inserts a batch of rows under the keys `first_key`, `first_key + 1`, ... (replacing
    /// those keys' bands) and flags each row that shares a bucket with another key while the
    /// batch is inserted: a key already there when the row comes, or a later row of the batch.
    ///
    /// Rows are checked (band counts, the key range) before anything is inserted.
    pub fn insert_flagged<R, B>(
        &mut self,
        first_key: u64,
        rows: &[R],
    ) -> Result<Vec<bool>, BandError>
    where
        R: AsRef<[B]>,
        B: AsRef<[u8]>,
    {
        if let Some(bad) = rows.iter().find(|r| r.as_ref().len() != self.tables()) {
            return Err(BandError::Bands {
                expected: self.tables(),
                got: bad.as_ref().len(),
            });
        }
        if !rows.is_empty() && first_key.checked_add(rows.len() as u64 - 1).is_none() {
            return Err(BandError::KeyRange {
                first: first_key,
                count: rows.len(),
            });
        }
        let mut flags = vec![false; rows.len()];
        for (i, row) in rows.iter().enumerate() {
            let key = first_key + i as u64;
            self.remove(key);
            for (table, band) in row.as_ref().iter().enumerate() {
                let mut members = self.bucket(table, band.as_ref());
                if let Some(member) = members.next() {
                    flags[i] = true;
                    // An earlier row alone in the bucket learns of its duplicate now; one that
                    // met another key already was flagged then.
                    if members.next().is_none() && member >= first_key && member < key {
                        flags[(member - first_key) as usize] = true;
                    }
                }
            }
            self.insert(key, row.as_ref())?;
        }
        Ok(flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn replace_remove_and_reuse() {
        let mut t = KeyedBandTables::new(2);
        t.insert(u64::MAX, &[b"a", b"b"]).unwrap();
        t.insert(0, &[b"a", b"c"]).unwrap();
        assert_eq!(t.query(&[b"a", b"z"]), vec![u64::MAX, 0]);
        t.insert(u64::MAX, &[b"a", b"d"]).unwrap();
        assert_eq!(t.query(&[b"a", b"z"]), vec![0, u64::MAX]);
        assert_eq!(
            t.query(&[b"z", b"b"]),
            Vec::<u64>::new(),
            "old bands are gone"
        );
        assert_eq!(t.len(), 2);
        assert!(t.remove(0));
        assert!(!t.remove(0));
        t.insert(5, &[b"a", b"c"]).unwrap();
        assert_eq!(t.slots.len(), 2, "the removed id is reused");
        assert_eq!(t.bucket(0, b"a").collect::<Vec<_>>(), vec![u64::MAX, 5]);
        assert_eq!(
            t.insert(9, &[b"a"]),
            Err(BandError::Bands {
                expected: 2,
                got: 1
            })
        );
        assert_eq!(t.len(), 2);
        let entries = t.entries();
        assert_eq!(entries[0], (u64::MAX, vec![&b"a"[..], b"d"]));
        assert_eq!(entries[1], (5, vec![&b"a"[..], b"c"]));
    }

    #[test]
    fn insert_flagged_sees_keys_present_at_the_time() {
        // rensa's regression: key 12 is already indexed and equal to row 0; row 2 replaces it.
        let mut t = KeyedBandTables::new(1);
        t.insert(12, &[b"shared"]).unwrap();
        let rows = [[b"shared"], [b"row1__"], [b"row2__"]];
        assert_eq!(
            t.insert_flagged(10, &rows).unwrap(),
            vec![true, false, false]
        );
        assert_eq!(t.query(&[b"shared"]), vec![10]);
        // Rows sharing with each other.
        let mut t = KeyedBandTables::new(2);
        let rows = [[b"x", b"1"], [b"y", b"1"], [b"y", b"2"], [b"z", b"3"]];
        assert_eq!(
            t.insert_flagged(0, &rows).unwrap(),
            vec![true, true, true, false]
        );
        assert_eq!(
            t.insert_flagged(u64::MAX, &rows[..2]),
            Err(BandError::KeyRange {
                first: u64::MAX,
                count: 2
            })
        );
        assert_eq!(t.len(), 4, "nothing inserted on an error");
        assert_eq!(t.insert_flagged(u64::MAX, &rows[3..]).unwrap(), vec![true]);
    }

    #[test]
    fn duplicate_flags_leave_the_tables_alone() {
        let mut t = KeyedBandTables::new(2);
        t.insert(1, &[b"a", b"b"]).unwrap();
        let rows = [[b"a", b"x"], [b"c", b"d"], [b"e", b"d"], [b"f", b"g"]];
        assert_eq!(t.duplicate_flags(&rows), vec![true, true, true, false]);
        assert_eq!(t.len(), 1);
    }

    proptest! {
        /// Entries rebuild the same tables (the same answers, in the same order), and queries
        /// find exactly the live keys sharing a band.
        #[test]
        fn entries_rebuild_and_queries_are_exact(
            ops in proptest::collection::vec((0u64..12, proptest::collection::vec(0u8..3, 2), any::<bool>()), 1..60),
            query in proptest::collection::vec(0u8..3, 2),
        ) {
            let mut t = KeyedBandTables::new(2);
            let mut model: Vec<(u64, Vec<u8>)> = Vec::new(); // insertion order
            for (key, bands, remove) in &ops {
                model.retain(|(k, _)| k != key);
                if *remove {
                    t.remove(*key);
                } else {
                    let b: Vec<[u8; 1]> = bands.iter().map(|&x| [x]).collect();
                    t.insert(*key, &b).unwrap();
                    model.push((*key, bands.clone()));
                }
            }
            let q: Vec<[u8; 1]> = query.iter().map(|&x| [x]).collect();
            let mut want = Vec::new();
            for table in 0..2 {
                for (k, b) in &model {
                    if b[table] == query[table] && !want.contains(k) {
                        want.push(*k);
                    }
                }
            }
            prop_assert_eq!(t.query(&q), want.clone());
            let mut rebuilt = KeyedBandTables::new(2);
            for (key, bands) in t.entries() {
                rebuilt.insert(key, &bands).unwrap();
            }
            prop_assert_eq!(rebuilt.query(&q), want);
        }
    }
}
