//! What the fuzz targets need beyond the public API (feature `fuzzing`; not a supported API).
//!
//! Every file of an index carries checksums, so a changed byte is caught before anything reads
//! it: a fuzz target that changes bytes only ever meets the checksums. [`reseal`] recomputes
//! them after the change, so that the target reaches the checks behind them (entry and
//! document numbers in range, sorted pairs and ids, document records, deletion lists, the
//! manifest's counts), which must hold on their own: a file forged with valid checksums is
//! still refused, never a panic.
use std::path::Path;

use crate::Error;

/// Recomputes every checksum of every file of the index in `dir`, in place: each segment's
/// block table, the table's fingerprint and the header's; each deletion file's checksum; the
/// manifest's fingerprints of the segment headers and its own checksum. Nothing else is
/// changed. A file it cannot read as one of the index's (a segment or deletion file with
/// another magic or an impossible size, a manifest that is not the manifest's JSON) is left
/// as it is: its reader refuses it before any checksum. Fails only when a file cannot be read
/// or written.
pub fn reseal(dir: &Path) -> Result<(), Error> {
    crate::index::reseal(dir)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::reseal;
    use crate::{Error, Index};

    /// A copy of the reference index `testdata/index/v2` (see its README).
    fn copy_v2() -> (tempfile::TempDir, PathBuf) {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/index/v2");
        let dir = tempfile::tempdir().unwrap();
        for e in fs::read_dir(&from).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
        }
        let path = dir.path().to_path_buf();
        (dir, path)
    }

    fn corrupt(r: Result<impl std::fmt::Debug, Error>) -> String {
        match r {
            Err(Error::Corrupt { what, .. }) => what,
            other => panic!("not damage: {other:?}"),
        }
    }

    const SEG: &str = "seg-000001.seg";
    const DEL: &str = "seg-000001.del-000002";

    #[test]
    fn resealing_a_sound_index_changes_nothing() {
        let (_tmp, dir) = copy_v2();
        let before: Vec<Vec<u8>> = [SEG, DEL, "MANIFEST"]
            .iter()
            .map(|n| fs::read(dir.join(n)).unwrap())
            .collect();
        reseal(&dir).unwrap();
        for (n, b) in [SEG, DEL, "MANIFEST"].iter().zip(&before) {
            assert_eq!(&fs::read(dir.join(n)).unwrap(), b, "{n}");
        }
    }

    /// A changed letter of a stored text fails its block's checksum; resealed, the index
    /// verifies and reads the changed text: the checksums were all that stood in the way.
    #[test]
    fn a_resealed_change_gets_past_every_checksum() {
        let (_tmp, dir) = copy_v2();
        let path = dir.join(SEG);
        let mut bytes = fs::read(&path).unwrap();
        let text = b"selected Huntsville";
        let at = bytes.windows(text.len()).position(|w| w == text).unwrap();
        bytes[at] = b'S';
        fs::write(&path, &bytes).unwrap();
        assert!(corrupt(Index::verify(&dir)).contains("checksum"));
        reseal(&dir).unwrap();
        Index::verify(&dir).unwrap();
        let index = Index::open(&dir).unwrap();
        let p1 = index.document(0).unwrap().unwrap();
        assert!(p1.text.contains("Selected Huntsville"), "{}", p1.text);
    }

    /// A resealed deletion file whose list is out of range or out of order is refused by
    /// what it says, not by its checksum.
    #[test]
    fn resealed_deletion_lists_out_of_range_or_order_are_refused() {
        for list in [&[16u32][..], &[u32::MAX], &[3, 3], &[5, 2]] {
            let (_tmp, dir) = copy_v2();
            let path = dir.join(DEL);
            let mut bytes = fs::read(&path).unwrap();
            // Magic, index id, segment, generation, count; the list; padding; checksum.
            bytes.truncate(40);
            bytes[32..40].copy_from_slice(&(list.len() as u64).to_le_bytes());
            for d in list {
                bytes.extend_from_slice(&d.to_le_bytes());
            }
            bytes.resize(bytes.len().div_ceil(8) * 8 + 8, 0);
            fs::write(&path, &bytes).unwrap();
            assert!(corrupt(Index::open(&dir)).contains("checksum"));
            reseal(&dir).unwrap();
            let what = corrupt(Index::open(&dir));
            assert!(what.contains("out of range or order"), "{list:?}: {what}");
        }
    }

    /// A resealed manifest passes its checksum and is checked against the segments.
    #[test]
    fn a_resealed_manifest_is_checked_against_its_files() {
        let (_tmp, dir) = copy_v2();
        let path = dir.join("MANIFEST");
        let m = fs::read_to_string(&path).unwrap();
        fs::write(&path, m.replace("\"docs\": 16", "\"docs\": 17")).unwrap();
        assert!(corrupt(Index::open(&dir)).contains("checksum"));
        reseal(&dir).unwrap();
        let what = corrupt(Index::open(&dir));
        assert!(what.contains("differs from the manifest"), "{what}");
    }
}
