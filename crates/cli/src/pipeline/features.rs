//! Per-sentence features, computed one way for every command: the sentence filter, the
//! normalized shingle fingerprints, and the 64-bit SimHash of a sentence.
//!
//! Stage 2 of [`super::dedup`] and `textreuse simhash` both call these, so a sentence's
//! features are defined once (the integration tests also check that the two commands find the
//! same clusters).
use textreuse_minhash::Signer;
use textreuse_shingle::{Normalize, char_shingle_count, char_shingle_fingerprints, normalize};
use textreuse_simhash::SimHasher;

/// Which sentences are kept: those whose shingle count, on the sentence as written (before
/// normalization), is within `min_shingles..=max_shingles`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentenceFilter {
    /// Shingle length in characters (default 12).
    pub shingle: usize,
    /// Smallest shingle count kept (default 75).
    pub min_shingles: usize,
    /// Largest shingle count kept (default 600; `usize::MAX` for no bound).
    pub max_shingles: usize,
}

impl Default for SentenceFilter {
    fn default() -> Self {
        SentenceFilter {
            shingle: 12,
            min_shingles: 75,
            max_shingles: 600,
        }
    }
}

impl SentenceFilter {
    /// Whether `sentence` passes the filter.
    pub fn keeps(&self, sentence: &str) -> bool {
        let count = char_shingle_count(sentence, self.shingle);
        count >= self.min_shingles && count <= self.max_shingles
    }
}

/// Reusable buffers for [`sentence_shingles`], [`sentence_band_keys`] and [`sentence_simhash`];
/// one per worker, so the hot path does not allocate per sentence.
#[derive(Clone, Debug, Default)]
pub struct FeatureScratch {
    normalized: String,
    shingles: Vec<u64>,
    mins: Vec<u64>,
    keys: Vec<u64>,
}

impl FeatureScratch {
    /// Empty buffers.
    pub fn new() -> FeatureScratch {
        FeatureScratch::default()
    }
}

/// The `shingle`-character shingle fingerprints of `sentence` normalized under `norm`, in text
/// order with duplicates (what MinHash signs). Empty when the normalized sentence is shorter
/// than one shingle. The slice lives in `scratch`.
pub fn sentence_shingles<'s>(
    sentence: &str,
    shingle: usize,
    norm: &Normalize,
    scratch: &'s mut FeatureScratch,
) -> &'s mut Vec<u64> {
    normalize(sentence, norm, &mut scratch.normalized);
    char_shingle_fingerprints(&scratch.normalized, shingle, &mut scratch.shingles);
    &mut scratch.shingles
}

/// The MinHash band keys of `sentence` as stage 2 of `textreuse dedup` computes them: the
/// sentence is normalized under `norm` (the pipeline uses [`Normalize::new`]), its
/// `shingle`-character shingle fingerprints are signed by `signer` and the signature is cut into
/// `signer.bands()` keys. `None` when the normalized sentence is shorter than one shingle. The
/// slice lives in `scratch`.
pub fn sentence_band_keys<'s>(
    sentence: &str,
    shingle: usize,
    norm: &Normalize,
    signer: &Signer,
    scratch: &'s mut FeatureScratch,
) -> Option<&'s [u64]> {
    normalize(sentence, norm, &mut scratch.normalized);
    char_shingle_fingerprints(&scratch.normalized, shingle, &mut scratch.shingles);
    scratch.mins.resize(signer.hashes(), 0);
    scratch.keys.resize(signer.bands(), 0);
    signer
        .sign_into(&scratch.shingles, &mut scratch.mins)
        .ok()?;
    signer.band_keys_into(&scratch.mins, &mut scratch.keys);
    Some(&scratch.keys)
}

/// The 64-bit SimHash of `sentence` as `textreuse dedup --method simhash` computes it: the
/// sentence is normalized under `norm` (the pipeline uses [`Normalize::new`]), its
/// `shingle`-character shingle fingerprints are taken as a set (sorted, duplicates removed, as
/// MinHash sees them) and fingerprinted unweighted by `hasher` (the pipeline uses
/// [`SimHasher::new`]). `None` when the normalized sentence is shorter than one shingle.
pub fn sentence_simhash(
    sentence: &str,
    shingle: usize,
    norm: &Normalize,
    hasher: &SimHasher,
    scratch: &mut FeatureScratch,
) -> Option<u64> {
    let shingles = sentence_shingles(sentence, shingle, norm, scratch);
    if shingles.is_empty() {
        return None;
    }
    shingles.sort_unstable();
    shingles.dedup();
    Some(hasher.fingerprint_unweighted(shingles.iter().copied()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_hash::fingerprint;

    #[test]
    fn filter_counts_shingles_of_the_text_as_written() {
        let f = SentenceFilter {
            shingle: 4,
            min_shingles: 2,
            max_shingles: 3,
        };
        assert!(!f.keeps("abcd")); // 1 shingle
        assert!(f.keeps("abcde")); // 2
        assert!(f.keeps("ABCDEF")); // 3
        assert!(!f.keeps("abcdefg")); // 4
    }

    #[test]
    fn simhash_is_of_the_normalized_shingle_set() {
        let (norm, hasher) = (Normalize::new(), SimHasher::new());
        let mut s = FeatureScratch::new();
        let text = "The  Old Mill stands beside the river; the old mill stands beside the river.";
        let fp = sentence_simhash(text, 12, &norm, &hasher, &mut s).unwrap();
        // By hand: normalize, shingle, set, fingerprint.
        let mut normalized = String::new();
        normalize(text, &norm, &mut normalized);
        let chars: Vec<(usize, char)> = normalized.char_indices().collect();
        let mut set: Vec<u64> = (0..=chars.len() - 12)
            .map(|i| {
                let end = chars.get(i + 12).map_or(normalized.len(), |c| c.0);
                fingerprint(&normalized.as_bytes()[chars[i].0..end])
            })
            .collect();
        set.sort_unstable();
        set.dedup();
        assert_eq!(fp, hasher.fingerprint_unweighted(set.iter().copied()));
        // Case and spacing are normalized away; a set ignores repetition order.
        let same = "the old mill stands beside the river; the old mill stands beside the river.";
        assert_eq!(sentence_simhash(same, 12, &norm, &hasher, &mut s), Some(fp));
        assert_eq!(sentence_simhash("short", 12, &norm, &hasher, &mut s), None);
    }
}
