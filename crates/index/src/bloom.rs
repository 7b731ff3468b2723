//! Bloom filters per band: "has anything like this been seen?" for streaming deduplication at
//! billions of items, in a fixed number of bits (LSHBloom, datasketch's `MinHashLSHBloom`).
//!
//! A [`BandBloom`] keeps one Bloom filter per band of a banded MinHash. Inserting a signature
//! sets the bits of each band's hash in that band's filter; a query is a duplicate when any
//! band's bits are all set. It cannot say *which* item matched, only that one probably did:
//! the price of a memory footprint that does not grow with the items' keys. Each filter is
//! sized for `capacity` items at false-positive rate `fp` (`m = -n ln fp / ln² 2` bits,
//! `k = m/n ln 2` probes), the probes are double hashing over [`textreuse_hash::mix64`], and a
//! band's hash is [`textreuse_hash::fingerprint_words`] of its values: fixed, so filters saved on
//! one machine answer the same on another.
//!
//! ```
//! use textreuse_index::BandBloom;
//!
//! let mut bloom = BandBloom::new(4, 2, 1000, 0.001)?; // 4 bands of 2 rows
//! let a = [1u64, 2, 3, 4, 5, 6, 7, 8];
//! bloom.insert(&a)?;
//! assert!(bloom.query(&a)?);
//! assert!(bloom.query(&[1, 2, 0, 0, 0, 0, 0, 0])?); // shares the first band
//! assert!(!bloom.query(&[9, 9, 9, 9, 9, 9, 9, 9])?);
//! # Ok::<(), textreuse_index::BloomError>(())
//! ```
use std::path::Path;

use bitvec::prelude::*;

/// Why a [`BandBloom`] cannot be made, saved or loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BloomError {
    /// The parameters cannot make a filter. Recover with `bands >= 1`, `capacity >= 1` and
    /// `0 < fp < 1`.
    #[error("invalid Bloom filter parameters: {0}")]
    Params(String),
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A signature shorter than `bands · rows` values. Recover by passing whole signatures of
    /// the length the filters were made for.
    #[error("a signature of {got} values is shorter than {bands} bands of {rows} rows")]
    Short {
        /// Values given.
        got: usize,
        /// Bands.
        bands: usize,
        /// Rows per band.
        rows: usize,
    },
    /// The file is not a Bloom filter file of this version, or is damaged (its checksum does
    /// not match). Recover by rebuilding the filters from the items.
    #[error("{path}: not a textreuse Bloom filter file, or damaged: {what}")]
    Damaged {
        /// The file.
        path: String,
        /// What is wrong.
        what: &'static str,
    },
}

const MAGIC: &[u8; 8] = b"TRBLOOM1";

/// One Bloom filter per band (the module docs of `bloom.rs` tell more).
#[derive(Clone, Debug, PartialEq)]
pub struct BandBloom {
    rows: usize,
    capacity: u64,
    fp: f64,
    probes: u32,
    filters: Vec<BitVec<u64, Lsb0>>,
}

impl BandBloom {
    /// Empty filters for `bands` bands of `rows` values each (band `i` is values
    /// `i·rows..(i+1)·rows` of a signature), each sized for `capacity` items at false-positive
    /// rate `fp`.
    pub fn new(bands: usize, rows: usize, capacity: u64, fp: f64) -> Result<BandBloom, BloomError> {
        if bands == 0 || rows == 0 {
            return Err(BloomError::Params(
                "bands and rows must be at least 1".into(),
            ));
        }
        if capacity == 0 {
            return Err(BloomError::Params("capacity must be at least 1".into()));
        }
        if !(fp > 0.0 && fp < 1.0) {
            return Err(BloomError::Params(format!(
                "fp must be in (0, 1), got {fp}"
            )));
        }
        let ln2 = std::f64::consts::LN_2;
        let bits = (-(capacity as f64) * fp.ln() / (ln2 * ln2))
            .ceil()
            .max(64.0);
        if bits > (1u64 << 40) as f64 {
            return Err(BloomError::Params(format!(
                "{bits} bits per band is more than 2^40; raise fp or lower capacity"
            )));
        }
        let bits = bits as usize;
        let probes = ((bits as f64 / capacity as f64) * ln2)
            .round()
            .clamp(1.0, 64.0) as u32;
        Ok(BandBloom {
            rows,
            capacity,
            fp,
            probes,
            filters: vec![bitvec![u64, Lsb0; 0; bits]; bands],
        })
    }

    /// The number of bands.
    pub fn bands(&self) -> usize {
        self.filters.len()
    }

    /// The bits of each band's filter.
    pub fn bits(&self) -> usize {
        self.filters[0].len()
    }

    /// The number of probes per item.
    pub fn probes(&self) -> u32 {
        self.probes
    }

    /// The capacity and false-positive rate the filters were sized for.
    pub fn sizing(&self) -> (u64, f64) {
        (self.capacity, self.fp)
    }

    fn positions(&self, band: &[u64]) -> impl Iterator<Item = usize> + use<> {
        let h = textreuse_hash::fingerprint_words(band);
        let h1 = textreuse_hash::mix64(h);
        let h2 = textreuse_hash::mix64(h ^ 0x9E37_79B9_7F4A_7C15) | 1;
        let m = self.bits() as u64;
        (0..self.probes as u64).map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) % m) as usize)
    }

    /// The rows of each band.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The band slices of `values`; values past `bands · rows` are not used.
    fn band_slices<'a>(
        &self,
        values: &'a [u64],
    ) -> Result<std::slice::ChunksExact<'a, u64>, BloomError> {
        let need = self.bands() * self.rows;
        if values.len() < need {
            return Err(BloomError::Short {
                got: values.len(),
                bands: self.bands(),
                rows: self.rows,
            });
        }
        Ok(values[..need].chunks_exact(self.rows))
    }

    /// Sets the bits of each band of the signature `values`.
    pub fn insert(&mut self, values: &[u64]) -> Result<(), BloomError> {
        let bands: Vec<&[u64]> = self.band_slices(values)?.collect();
        for (i, band) in bands.into_iter().enumerate() {
            let positions: Vec<usize> = self.positions(band).collect();
            for p in positions {
                self.filters[i].set(p, true);
            }
        }
        Ok(())
    }

    /// True if some band of the signature `values` has all its bits set: probably a
    /// near-duplicate of an inserted item (or a false positive, at about `fp` per band).
    pub fn query(&self, values: &[u64]) -> Result<bool, BloomError> {
        Ok(self
            .band_slices(values)?
            .enumerate()
            .any(|(i, band)| self.positions(band).all(|p| self.filters[i][p])))
    }

    /// Writes the filters to `path` atomically, with a checksum.
    pub fn save(&self, path: &Path) -> Result<(), BloomError> {
        let mut out = Vec::with_capacity(48 + self.bands() * self.bits() / 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.bands() as u64).to_le_bytes());
        out.extend_from_slice(&(self.rows as u64).to_le_bytes());
        out.extend_from_slice(&(self.bits() as u64).to_le_bytes());
        out.extend_from_slice(&self.capacity.to_le_bytes());
        out.extend_from_slice(&self.fp.to_le_bytes());
        out.extend_from_slice(&(self.probes as u64).to_le_bytes());
        for f in &self.filters {
            for w in f.as_raw_slice() {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        let sum = textreuse_hash::fingerprint(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        textreuse_corpus::files::write_atomic(path, &out).map_err(|source| BloomError::Io {
            path: path.display().to_string(),
            source,
        })
    }

    /// Reads filters written by [`save`](Self::save), checking their checksum.
    pub fn load(path: &Path) -> Result<BandBloom, BloomError> {
        let name = || path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| BloomError::Io {
            path: name(),
            source,
        })?;
        let damaged = |what| BloomError::Damaged { path: name(), what };
        if bytes.len() < 64 || &bytes[..8] != MAGIC {
            return Err(damaged("no TRBLOOM1 header"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if textreuse_hash::fingerprint(body).to_le_bytes() != sum {
            return Err(damaged("checksum mismatch"));
        }
        let word = |i: usize| u64::from_le_bytes(body[8 + 8 * i..16 + 8 * i].try_into().unwrap());
        let (bands, rows, bits, capacity) = (
            word(0) as usize,
            word(1) as usize,
            word(2) as usize,
            word(3),
        );
        let fp = f64::from_bits(word(4));
        let probes = word(5) as u32;
        let words = bits.div_ceil(64);
        let fits = bands
            .checked_mul(words)
            .and_then(|w| w.checked_mul(8))
            .is_some_and(|b| body.len() == 56 + b);
        if bands == 0 || rows == 0 || bits == 0 || probes == 0 || !fits {
            return Err(damaged("sizes do not match the file length"));
        }
        let mut filters = Vec::with_capacity(bands);
        for b in 0..bands {
            let raw: Vec<u64> = (0..words).map(|w| word(6 + b * words + w)).collect();
            let mut f = BitVec::<u64, Lsb0>::from_vec(raw);
            f.truncate(bits);
            filters.push(f);
        }
        Ok(BandBloom {
            rows,
            capacity,
            fp,
            probes,
            filters,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_bad_parameters() {
        assert!(BandBloom::new(0, 1, 10, 0.01).is_err());
        assert!(BandBloom::new(1, 0, 10, 0.01).is_err());
        assert!(BandBloom::new(1, 1, 0, 0.01).is_err());
        assert!(BandBloom::new(1, 1, 10, 1.0).is_err());
        assert!(BandBloom::new(1, 1, 10, 0.0).is_err());
        let bloom = BandBloom::new(2, 3, 10, 0.1).unwrap();
        assert!(matches!(
            bloom.query(&[1; 5]),
            Err(BloomError::Short { got: 5, .. })
        ));
        assert!(
            bloom.query(&[1; 7]).is_ok(),
            "values past bands * rows are not used"
        );
    }

    #[test]
    fn false_positive_rate_is_near_the_target() {
        let n = 2000u64;
        let mut bloom = BandBloom::new(1, 2, n, 0.01).unwrap();
        for i in 0..n {
            bloom.insert(&[i, i + 1]).unwrap();
        }
        for i in 0..n {
            assert!(bloom.query(&[i, i + 1]).unwrap(), "no false negatives");
        }
        let fps = (n..n + 20_000)
            .filter(|&i| bloom.query(&[i, 7]).unwrap())
            .count();
        // 1 % of 20,000 is 200; the sizing formula's rate at capacity, with slack for chance.
        assert!(fps < 400, "{fps} false positives in 20,000");
    }

    #[test]
    fn save_and_load_round_trip_and_detect_damage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.bloom");
        let mut bloom = BandBloom::new(3, 2, 100, 0.01).unwrap();
        bloom.insert(&[1, 2, 3, 4, 5, 6]).unwrap();
        bloom.save(&path).unwrap();
        let back = BandBloom::load(&path).unwrap();
        assert_eq!(back, bloom);
        assert!(back.query(&[0, 0, 3, 4, 0, 0]).unwrap());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[60] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            BandBloom::load(&path),
            Err(BloomError::Damaged {
                what: "checksum mismatch",
                ..
            })
        ));
        std::fs::write(&path, b"junk").unwrap();
        assert!(matches!(
            BandBloom::load(&path),
            Err(BloomError::Damaged { .. })
        ));
    }
}
