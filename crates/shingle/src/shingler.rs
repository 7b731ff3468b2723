//! Text to the shingle fingerprints every signature is made of: the one recipe.
use crate::{DEFAULT_SHINGLE_CHARS, Normalize, char_shingle_fingerprints, normalize};

/// The shingle fingerprints of normalized text, the way `textreuse dedup` shingles a sentence:
/// [`normalize()`] with [`Normalize::new`] (lowercase, whitespace collapsed), then
/// [`char_shingle_fingerprints`] of `len` characters (default [`DEFAULT_SHINGLE_CHARS`] = 12).
///
/// It owns its buffers, so it allocates nothing per text: keep one per thread. MinHash
/// (`textreuse_minhash::TextSigner`) and SimHash sentence fingerprints are built on it.
///
/// ```
/// use textreuse_hash::fingerprint;
/// use textreuse_shingle::Shingler;
///
/// let mut shingler = Shingler::new();
/// let fps = shingler.fingerprints("The  Old Mill.");
/// // Normalized to "the old mill.": 2 shingles of 12 characters.
/// assert_eq!(fps, &[fingerprint(b"the old mill"), fingerprint(b"he old mill.")]);
/// assert!(shingler.fingerprints("short").is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Shingler {
    len: usize,
    norm: Normalize,
    normalized: String,
    shingles: Vec<u64>,
}

impl Default for Shingler {
    fn default() -> Self {
        Shingler::new()
    }
}

impl Shingler {
    /// 12-character shingles of text normalized by [`Normalize::new`].
    pub fn new() -> Shingler {
        Shingler::with_len(DEFAULT_SHINGLE_CHARS)
    }

    /// `len`-character shingles (a length of 0 is taken as 1).
    pub fn with_len(len: usize) -> Shingler {
        Shingler {
            len: len.max(1),
            norm: Normalize::new(),
            normalized: String::new(),
            shingles: Vec::new(),
        }
    }

    /// The shingle length in characters.
    pub fn shingle_len(&self) -> usize {
        self.len
    }

    /// The fingerprints of the normalized `text`'s shingles, in text order with repeats; empty
    /// when the normalized text is shorter than one shingle. The vector is the shingler's buffer
    /// (sort or de-duplicate it in place if you need a set).
    pub fn fingerprints(&mut self, text: &str) -> &mut Vec<u64> {
        normalize(text, &self.norm, &mut self.normalized);
        char_shingle_fingerprints(&self.normalized, self.len, &mut self.shingles);
        &mut self.shingles
    }

    /// The normalized form of the text last passed to [`Shingler::fingerprints`].
    pub fn normalized(&self) -> &str {
        &self.normalized
    }
}
