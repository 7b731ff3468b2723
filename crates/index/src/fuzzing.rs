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

    /// The manifest of the copy in `dir`, changed by `edit` and resealed.
    fn forge_manifest(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
        let path = dir.join("MANIFEST");
        let mut m: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        edit(&mut m);
        fs::write(&path, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
        reseal(dir).unwrap();
    }

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_name() != "LOCK")
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, fs::read(e.path()).unwrap())
            })
            .collect();
        files.sort();
        files
    }

    /// Found by `index_files` (testdata/fuzz/index_files/crash-368df121...): a manifest whose
    /// next segment number is one in use verified, and the next commit wrote its new segment
    /// over the committed one (the index was lost). Now the manifest is refused, and a writer
    /// changes nothing.
    #[test]
    fn a_manifest_whose_next_segment_is_in_use_is_refused() {
        for next in [0, 1] {
            let (_tmp, dir) = copy_v2();
            forge_manifest(&dir, |m| m["next_segment"] = next.into());
            let before = files(&dir);
            let what = corrupt(Index::open(&dir));
            assert!(what.contains("next segment"), "{what}");
            assert!(matches!(
                crate::IndexWriter::open(&dir),
                Err(Error::Corrupt { .. })
            ));
            assert_eq!(files(&dir), before);
        }
    }

    /// The parameters in a resealed manifest are checked against the digest the segments
    /// carry: another seed would have made every query miss, silently.
    #[test]
    fn a_manifest_with_other_parameters_is_refused() {
        let (_tmp, dir) = copy_v2();
        forge_manifest(&dir, |m| m["params"]["seed"] = 1123416.into());
        let what = corrupt(Index::open(&dir));
        assert!(what.contains("parameters"), "{what}");
    }

    /// Counts and names a manifest cannot hold: each refused when the index is opened, not
    /// a panic (removed entries above the entries underflowed the statistics) or a wrong
    /// count.
    #[test]
    fn impossible_manifest_entries_are_refused() {
        type Edit = fn(&mut serde_json::Value);
        let edits: [(&str, Edit); 10] = [
            ("no deletion file", |m| {
                m["segments"][0]["deleted"] = serde_json::Value::Null;
            }),
            ("more removed", |m| {
                m["segments"][0]["deleted_entries"] = 56.into();
            }),
            ("more removed", |m| {
                m["segments"][0]["deleted_docs"] = 17.into();
            }),
            ("differs from the manifest", |m| {
                m["segments"][0]["pairs"] = u64::MAX.into();
            }),
            ("differs from the manifest", |m| {
                m["segments"][0]["bytes"] = 1.into();
            }),
            ("exhausted", |m| m["generation"] = u64::MAX.into()),
            ("exhausted", |m| m["next_segment"] = u64::MAX.into()),
            ("listed twice", |m| {
                let s = m["segments"][0].clone();
                m["segments"].as_array_mut().unwrap().push(s);
            }),
            ("not the name of a deletion file", |m| {
                m["segments"][0]["deleted"] = "../seg-000001.del-000002".into();
            }),
            ("not the name of a deletion file", |m| {
                m["segments"][0]["deleted"] = "seg-000001.del-000003".into();
            }),
        ];
        for (want, edit) in edits {
            let (_tmp, dir) = copy_v2();
            forge_manifest(&dir, edit);
            let what = corrupt(Index::open(&dir));
            assert!(what.contains(want), "{want}: {what}");
        }
    }

    /// The count of removed entries, which only the statistics use, is checked by `verify`.
    #[test]
    fn verify_checks_the_count_of_removed_entries() {
        let (_tmp, dir) = copy_v2();
        forge_manifest(&dir, |m| m["segments"][0]["deleted_entries"] = 1.into());
        assert!(Index::open(&dir).is_ok());
        let what = corrupt(Index::verify(&dir));
        assert!(what.contains("removed entries"), "{what}");
    }

    /// Found by `index_structure` (testdata/fuzz/index_structure/crash-9fd077c8...): a
    /// document record whose id changed (resealed) verified, and `contains` did not find the
    /// document that `document` read back (nor could `remove` remove it). Now `verify`
    /// checks each document's id against its hash in the id table.
    #[test]
    fn verify_checks_each_document_against_the_id_table() {
        let (_tmp, dir) = copy_v2();
        let path = dir.join(SEG);
        let mut bytes = fs::read(&path).unwrap();
        // The record of `p10`: flags, the id's length and bytes, the title's.
        let record = b"\x03p10\x0cParagraph 10";
        let at = bytes
            .windows(record.len())
            .position(|w| w == record)
            .unwrap();
        bytes[at + 3] = b'9';
        fs::write(&path, &bytes).unwrap();
        reseal(&dir).unwrap();
        let index = Index::open(&dir).unwrap();
        let p19 = index.document(9).unwrap().unwrap();
        assert_eq!(p19.id.to_string(), "p19");
        assert!(!index.contains(&p19.id).unwrap());
        let what = corrupt(Index::verify(&dir));
        assert!(what.contains("another id's hash"), "{what}");
    }

    /// Found by `index_structure` (testdata/fuzz/index_structure/crash-5f718039...): a
    /// segment header counting no entries and a huge number of hash functions (resealed)
    /// passed the section sizes (no entries, no signatures), and opening it allocated a
    /// signature's worth of zeros by that number (the process aborted). Now the header's
    /// hash functions, bands and signature bytes are checked against the index's parameters
    /// first.
    #[test]
    fn a_huge_count_of_hash_functions_is_refused_before_it_sizes_anything() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut w = crate::IndexWriter::create(dir, crate::Params::new(crate::IndexUnit::Sentence))
            .unwrap();
        w.add(&textreuse_corpus::Document::new("empty", "", ""))
            .unwrap();
        w.commit().unwrap();
        drop(w);
        let path = dir.join(SEG);
        let mut bytes = fs::read(&path).unwrap();
        // Header field 4 (after the magic): hash functions.
        bytes[40..48].copy_from_slice(&(1u64 << 62).to_le_bytes());
        fs::write(&path, &bytes).unwrap();
        reseal(dir).unwrap();
        let what = corrupt(Index::open(dir));
        assert!(what.contains("differs from the manifest"), "{what}");
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
