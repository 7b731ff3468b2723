//! Per-unit features of a dedup run, computed one way for every front end: the signer its
//! options describe ([`SignerOptions`]) and the 64-bit SimHash of a unit. The units themselves,
//! the filter and the kept units of a document with their ids are
//! [`textreuse_shingle::units`]; MinHash band keys come from [`textreuse_minhash::TextSigner`],
//! the one text -> band keys recipe.
//!
//! Stage 1-2 of the pipeline, `textreuse sentences`, `textreuse simhash`, the benches and the
//! Python package all go through [`KeptSentences`] and these functions, so a sentence's id and
//! features are defined once.
//!
//! ```
//! use textreuse_minhash::{Signer, TextSigner};
//! use textreuse_shingle::units::{KeptSentences, SentenceFilter};
//!
//! let text = "Short one. The old mill on the river was built in 1820 and still grinds grain today.";
//! let filter = SentenceFilter { min_shingles: 40, ..SentenceFilter::default() };
//! let signer = Signer::new();
//! let mut text_signer = TextSigner::new(&signer);
//! let mut kept = KeptSentences::new(text, 7, &filter);
//! let s = kept.next().ok_or("no sentence kept")?;
//! assert_eq!((s.idx, s.id), (1, 7 << 32 | 1)); // sentence 0 is too short
//! let keys = text_signer.band_keys(s.text).ok_or("too short")?;
//! assert_eq!(keys.len(), 10);
//! assert!(kept.next().is_none());
//! assert_eq!(kept.sentences_seen(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use textreuse_minhash::{
    BandScheme, BuildError, Signer, SignerBuilder, SignerConfig, Target, plan,
};
use textreuse_shingle::Shingler;
#[cfg(doc)]
use textreuse_shingle::units::KeptSentences;
use textreuse_shingle::units::Unit;
use textreuse_simhash::{ParagraphFingerprinter, SimHasher};

/// The MinHash options of a dedup run as its front ends take them (`textreuse dedup`'s
/// `--scheme --hashes --rows --bands --bits --seed` and, with `--threshold`, `--recall --below
/// --candidate-rate`), and the one rule that turns them into a signer, shared by the command
/// line and the Spark job so that the same options give the same band keys.
///
/// It is a partial [`SignerConfig`] plus the planner's target, not a `SignerConfig`, because
/// an unset field means something a value cannot say: "the unit's preset" (the scheme, rows
/// and bands of [`SignerConfig::for_unit`], which differ between sentences and paragraphs) or
/// "planned" (with a threshold). Without a threshold the signer is
/// [`SignerOptions::config`]: the scheme's preset ([`SignerConfig::preset`], the unit's
/// [`SignerConfig::for_unit`] when no scheme is given) with the options that were given. With a
/// threshold and neither rows nor bands given, [`textreuse_minhash::plan`] picks the cheapest
/// scheme (or the given one), `K` and `M` that meet [`SignerOptions::target`]. The defaults
/// of `bits`, `seed`, `recall` and `candidate_rate` are [`Target::new`]'s (the minhash
/// crate's [`DEFAULT_BITS`](textreuse_minhash::DEFAULT_BITS) and
/// [`DEFAULT_SEED`](textreuse_minhash::DEFAULT_SEED)).
///
/// ```
/// use textreuse_dedup::features::SignerOptions;
/// use textreuse_shingle::units::Unit;
/// use textreuse_minhash::BandScheme;
///
/// let options = SignerOptions::default();
/// let paragraphs = options.signer(Unit::Paragraph, None, 20)?;
/// assert_eq!((paragraphs.scheme(), paragraphs.rows(), paragraphs.bands()), (BandScheme::Oph, 11, 13));
/// let planned = options.signer(Unit::Sentence, Some(0.8), 75)?;
/// assert!(planned.rows() * planned.bands() > 0);
/// let bad = SignerOptions { rows: Some(0), ..SignerOptions::default() };
/// assert!(bad.signer(Unit::Sentence, None, 75).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SignerOptions {
    /// The band scheme (default: the unit's; with a threshold, the cheapest of all).
    pub scheme: Option<BandScheme>,
    /// `N` of drawn bands (default 20; `K·M` for disjoint and OPH). With a threshold: `N`, or
    /// the budget `K·M` of disjoint bands.
    pub hashes: Option<usize>,
    /// `K`, minhashes per band (default: the scheme's, or planned for a threshold).
    pub rows: Option<usize>,
    /// `M`, bands (default: the scheme's, or planned for a threshold).
    pub bands: Option<usize>,
    /// Output bits of each hash function.
    pub bits: u32,
    /// Seed of the hash functions and band subsets.
    pub seed: u64,
    /// With a threshold: the probability of finding a pair at or above it.
    pub recall: f64,
    /// With a threshold: pairs at or below this similarity (default `max(T - 0.4, T / 6)`)...
    pub below: Option<f64>,
    /// ... become candidates with at most this probability.
    pub candidate_rate: f64,
}

impl Default for SignerOptions {
    fn default() -> Self {
        let target = Target::new(0.5);
        SignerOptions {
            scheme: None,
            hashes: None,
            rows: None,
            bands: None,
            bits: target.bits,
            seed: target.seed,
            recall: target.recall,
            below: None,
            candidate_rate: target.candidate_rate,
        }
    }
}

impl SignerOptions {
    /// Whether rows or bands were given (they win over a threshold's plan).
    pub fn explicit_bands(&self) -> bool {
        self.rows.is_some() || self.bands.is_some()
    }

    /// What the planner must meet for `threshold`, for units of at least `min_set` shingles:
    /// these options' recall, below, candidate rate, scheme (all schemes when none is given),
    /// `N`, bits and seed.
    pub fn target(&self, threshold: f64, min_set: usize) -> Target {
        let mut t = Target::new(threshold);
        t.recall = self.recall;
        t.candidate_rate = self.candidate_rate;
        if let Some(b) = self.below {
            t.below = b;
        }
        t.min_set = min_set.max(1);
        if let Some(s) = self.scheme {
            t.schemes = vec![s];
        }
        if let Some(n) = self.hashes {
            // N of drawn bands, the budget K*M of disjoint ones.
            t.hashes = n;
            t.max_hashes = n;
        }
        t.bits = self.bits;
        t.seed = self.seed;
        t
    }

    /// The parameters these options describe for `unit`, without a threshold: the scheme's
    /// preset (the unit's default scheme when none is given) with the options that were given.
    ///
    /// ```
    /// use textreuse_dedup::features::SignerOptions;
    /// use textreuse_minhash::SignerConfig;
    /// use textreuse_shingle::units::Unit;
    ///
    /// let options = SignerOptions { bands: Some(12), ..SignerOptions::default() };
    /// let want = SignerConfig { bands: 12, ..SignerConfig::oph() };
    /// assert_eq!(options.config(Unit::Paragraph), want);
    /// ```
    pub fn config(&self, unit: Unit) -> SignerConfig {
        let preset = match self.scheme {
            None => SignerConfig::for_unit(unit),
            Some(s) => SignerConfig::preset(s),
        };
        SignerConfig {
            scheme: preset.scheme,
            hashes: self.hashes.or(preset.hashes),
            rows: self.rows.unwrap_or(preset.rows),
            bands: self.bands.unwrap_or(preset.bands),
            bits: self.bits,
            seed: self.seed,
        }
    }

    /// The builder of [`SignerOptions::config`].
    pub fn builder(&self, unit: Unit) -> SignerBuilder {
        SignerBuilder::from_config(self.config(unit))
    }

    /// The signer of a run over `unit` with an optional similarity `threshold`, for units of
    /// at least `min_set` shingles (the filter's minimum): planned when there is a threshold
    /// and neither rows nor bands were given, else [`SignerOptions::builder`]'s. The error
    /// names the parameter to change ([`BuildError`]).
    pub fn signer(
        &self,
        unit: Unit,
        threshold: Option<f64>,
        min_set: usize,
    ) -> Result<Signer, BuildError> {
        match threshold {
            Some(t) if !self.explicit_bands() => plan(&self.target(t, min_set))?.config().build(),
            _ => self.config(unit).build(),
        }
    }
}

/// The 64-bit SimHash of `sentence` as `textreuse dedup --method simhash` computes it: the
/// sentence's normalized shingle fingerprints ([`Shingler`]) taken as a set (sorted, duplicates
/// removed, as MinHash sees them) and fingerprinted unweighted by `hasher` (the pipeline uses
/// [`SimHasher::new`]). `None` when the normalized sentence is shorter than one shingle.
pub fn sentence_simhash(
    sentence: &str,
    shingler: &mut Shingler,
    hasher: &SimHasher,
) -> Option<u64> {
    let shingles = shingler.fingerprints(sentence);
    if shingles.is_empty() {
        return None;
    }
    shingles.sort_unstable();
    shingles.dedup();
    Some(hasher.fingerprint_unweighted(shingles.iter().copied()))
}

/// The 64-bit SimHash fingerprint of a unit as `textreuse dedup --method simhash` and
/// `textreuse simhash` compute it: a sentence by [`sentence_simhash`] (its shingle set), a
/// paragraph or a document by the weighted paragraph fingerprint of `paragraphs` (the pipeline
/// uses [`ParagraphFingerprinter::new`]: the unit's longest sentences, weighted by keyword
/// frequency, length and position, after Wang, Liu and Jia). `None` when the unit is too short
/// (shorter than one shingle; no sentence of at least the fingerprinter's minimum words).
///
/// ```
/// use textreuse_dedup::features::unit_simhash;
/// use textreuse_shingle::units::Unit;
/// use textreuse_shingle::Shingler;
/// use textreuse_simhash::{ParagraphFingerprinter, SimHasher};
///
/// let (mut shingler, hasher, paragraphs) = (Shingler::new(), SimHasher::new(), ParagraphFingerprinter::new());
/// let text = "The river rises in the northern hills. It flows south through three market towns.";
/// let mut fp = |unit, text| unit_simhash(unit, text, &mut shingler, &hasher, &paragraphs);
/// assert_eq!(fp(Unit::Paragraph, text), paragraphs.fingerprint_paragraph(text));
/// assert_ne!(fp(Unit::Sentence, text), fp(Unit::Paragraph, text));
/// ```
pub fn unit_simhash(
    unit: Unit,
    text: &str,
    shingler: &mut Shingler,
    hasher: &SimHasher,
    paragraphs: &ParagraphFingerprinter,
) -> Option<u64> {
    match unit {
        Unit::Sentence => sentence_simhash(text, shingler, hasher),
        // Paragraphs, documents, and any longer unit to come.
        _ => paragraphs.fingerprint_paragraph(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_hash::fingerprint;
    use textreuse_shingle::{Normalize, normalize};

    #[test]
    fn simhash_is_of_the_normalized_shingle_set() {
        let (mut shingler, hasher) = (Shingler::new(), SimHasher::new());
        let text = "The  Old Mill stands beside the river; the old mill stands beside the river.";
        let fp = sentence_simhash(text, &mut shingler, &hasher).unwrap();
        // By hand: normalize, shingle, set, fingerprint.
        let mut normalized = String::new();
        normalize(text, &Normalize::new(), &mut normalized);
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
        assert_eq!(sentence_simhash(same, &mut shingler, &hasher), Some(fp));
        assert_eq!(sentence_simhash("short", &mut shingler, &hasher), None);
    }
}
