//! Text to signature and band keys: the one recipe every front end uses.
use textreuse_shingle::Shingler;

use crate::{SignError, Signature, Signer};

/// Signs text the way `textreuse dedup` signs a sentence: the text is normalized
/// ([`Normalize::new`](textreuse_shingle::Normalize::new): lowercase, whitespace collapsed), cut into `shingle`-character shingle
/// fingerprints ([`Shingler`], default [`DEFAULT_SHINGLE_CHARS`](textreuse_shingle::DEFAULT_SHINGLE_CHARS) = 12), signed
/// by the [`Signer`], and the signature cut into the signer's band keys.
///
/// It owns its buffers, so signing allocates nothing per text: keep one per thread. The
/// dedup pipeline, `textreuse sentences --band-keys`, the Python package and the benches all
/// sign through this type, so a signature or band key computed by any of them is the same.
///
/// ```
/// use textreuse_minhash::{Signer, TextSigner};
///
/// let signer = Signer::new();
/// let mut text_signer = TextSigner::new(&signer);
/// let a: Vec<u64> = text_signer
///     .band_keys("The old mill on the river was built in 1820 and still grinds grain.")
///     .ok_or("too short")?
///     .to_vec();
/// // Case and spacing are normalized away: the same keys.
/// let b = text_signer
///     .band_keys("the old  mill on the river was built in 1820 and still grinds grain.")
///     .ok_or("too short")?;
/// assert_eq!(a, b);
/// assert_eq!(a.len(), signer.bands());
/// // Shorter than one shingle after normalization: nothing to sign.
/// assert!(text_signer.band_keys("too short").is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct TextSigner<'s> {
    signer: &'s Signer,
    shingler: Shingler,
    mins: Vec<u64>,
    keys: Vec<u64>,
}

impl<'s> TextSigner<'s> {
    /// A text signer for `signer` with 12-character shingles ([`DEFAULT_SHINGLE_CHARS`](textreuse_shingle::DEFAULT_SHINGLE_CHARS)).
    pub fn new(signer: &'s Signer) -> TextSigner<'s> {
        TextSigner {
            signer,
            shingler: Shingler::new(),
            mins: vec![0; signer.hashes()],
            keys: vec![0; signer.bands()],
        }
    }

    /// Uses `chars`-character shingles instead of 12. A length of 0 is taken as 1 (a shingle
    /// has at least one character).
    pub fn shingle_chars(mut self, chars: usize) -> TextSigner<'s> {
        self.shingler = Shingler::with_len(chars);
        self
    }

    /// The shingle length in characters.
    pub fn shingle_len(&self) -> usize {
        self.shingler.shingle_len()
    }

    /// The shingler (for other fingerprints of the same shingles, such as SimHash).
    pub fn shingler(&mut self) -> &mut Shingler {
        &mut self.shingler
    }

    /// The signer.
    pub fn signer(&self) -> &'s Signer {
        self.signer
    }

    /// The shingle fingerprints of the normalized `text`, in text order with repeats (what is
    /// signed; MinHash ignores repeats). Empty when the normalized text is shorter than one
    /// shingle.
    pub fn shingles(&mut self, text: &str) -> &mut Vec<u64> {
        self.shingler.fingerprints(text)
    }

    /// The `N` minhashes of `text`, or `None` when the normalized text is shorter than one
    /// shingle (the pipeline skips such sentences).
    #[inline]
    pub fn minhashes(&mut self, text: &str) -> Option<&[u64]> {
        let shingles = self.shingler.fingerprints(text);
        self.signer.sign_into(shingles, &mut self.mins).ok()?;
        Some(&self.mins)
    }

    /// The `M` band keys of `text` (what `textreuse dedup` buckets sentences by), or `None` when
    /// the normalized text is shorter than one shingle.
    #[inline]
    pub fn band_keys(&mut self, text: &str) -> Option<&[u64]> {
        let shingles = self.shingler.fingerprints(text);
        self.signer.sign_into(shingles, &mut self.mins).ok()?;
        self.signer.band_keys_into(&self.mins, &mut self.keys);
        Some(&self.keys)
    }
}

impl Signer {
    /// The [`Signature`] of `text` as [`TextSigner`] computes it (normalized, 12-character
    /// shingles). Allocates; sign many texts with a [`TextSigner`].
    ///
    /// Returns [`SignError::Empty`] when the normalized text is shorter than one shingle.
    ///
    /// ```
    /// use textreuse_minhash::Signer;
    ///
    /// let signer = Signer::new();
    /// let a = signer.sign_text("The old mill on the river was built in 1820 and still grinds grain.")?;
    /// let b = signer.sign_text("An old mill on the river was built in 1820 and still grinds grain.")?;
    /// assert!(a.jaccard(&b) > 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sign_text(&self, text: &str) -> Result<Signature, SignError> {
        let mut ts = TextSigner::new(self);
        let mins = ts.minhashes(text).ok_or(SignError::Empty)?;
        Ok(Signature::from_mins(mins.to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_hash::fingerprint;

    /// The recipe spelled out by hand: lowercase, collapse spaces, 12-byte windows (ASCII text),
    /// fingerprint, sign, band keys.
    #[test]
    fn equals_the_recipe_by_hand() {
        let signer = Signer::new();
        let text = "The  Old Mill stands BESIDE the river, as it has since 1820.";
        let normalized = "the old mill stands beside the river, as it has since 1820.";
        let shingles: Vec<u64> = normalized.as_bytes().windows(12).map(fingerprint).collect();
        let by_hand = signer.sign(shingles).unwrap();
        let mut ts = TextSigner::new(&signer);
        assert_eq!(ts.minhashes(text).unwrap(), by_hand.as_slice());
        let keys: Vec<u64> = signer.band_keys(&by_hand).collect();
        assert_eq!(ts.band_keys(text).unwrap(), keys.as_slice());
        assert_eq!(signer.sign_text(text).unwrap(), by_hand);
    }

    #[test]
    fn short_texts_and_shingle_length() {
        let signer = Signer::new();
        let mut ts = TextSigner::new(&signer).shingle_chars(0);
        assert_eq!(ts.shingle_len(), 1);
        assert!(ts.band_keys("").is_none());
        assert!(ts.band_keys("x").is_some());
        assert_eq!(signer.sign_text("short"), Err(SignError::Empty));
    }
}
