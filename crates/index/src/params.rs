//! What an index compares and how: its unit, its shingles and its MinHash parameters, fixed when
//! it is created and kept in its manifest.
use std::ops::Range;

use serde::{Deserialize, Serialize};
use textreuse_minhash::{BandScheme, Signer, SignerConfig, Target, TextSigner, plan};
use textreuse_shingle::units::Unit;
use textreuse_shingle::units::{KeptSentences, SentenceFilter};
use textreuse_shingle::{ChunkConfig, chunk_spans, word_shingles};

use crate::Error;

/// The unit an index holds one entry for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum IndexUnit {
    /// Sentences, as `textreuse dedup` cuts them (the default).
    #[default]
    Sentence,
    /// Paragraphs: the non-blank lines of a text.
    Paragraph,
    /// The whole text.
    Document,
    /// The paragraph chunks of the plagiarism checker (`textreuse check`), shingled as word
    /// n-grams ([`textreuse_shingle::chunk_spans`], [`textreuse_shingle::word_shingles`]), as
    /// a [`MemoryIndex`](crate::MemoryIndex) cuts and signs them.
    Chunk,
}

impl IndexUnit {
    /// Its name: `sentence`, `paragraph`, `document` or `chunk`.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexUnit::Sentence => "sentence",
            IndexUnit::Paragraph => "paragraph",
            IndexUnit::Document => "document",
            IndexUnit::Chunk => "chunk",
        }
    }

    /// The unit of that name.
    pub fn parse(name: &str) -> Option<IndexUnit> {
        Some(match name {
            "sentence" => IndexUnit::Sentence,
            "paragraph" => IndexUnit::Paragraph,
            "document" => IndexUnit::Document,
            "chunk" => IndexUnit::Chunk,
            _ => return None,
        })
    }

    /// The dedup unit it equals, `None` for [`IndexUnit::Chunk`].
    pub fn dedup_unit(self) -> Option<Unit> {
        match self {
            IndexUnit::Sentence => Some(Unit::Sentence),
            IndexUnit::Paragraph => Some(Unit::Paragraph),
            IndexUnit::Document => Some(Unit::Document),
            IndexUnit::Chunk => None,
        }
    }
}

impl From<Unit> for IndexUnit {
    fn from(unit: Unit) -> IndexUnit {
        match unit {
            Unit::Paragraph => IndexUnit::Paragraph,
            Unit::Document => IndexUnit::Document,
            _ => IndexUnit::Sentence,
        }
    }
}

/// The parameters of an index, fixed at creation ([`crate::IndexWriter::create`]) and stored in
/// its manifest. Build them with [`Params::new`] (the defaults of a unit) and the setters.
///
/// For sentence, paragraph and document units the recipe is `textreuse dedup`'s: the units of
/// [`KeptSentences::with_unit`] whose shingle count is within `min_shingles..=max_shingles`,
/// signed by [`TextSigner`] (normalized text, `shingle`-character shingles). For chunks it is
/// `textreuse check`'s ([`MemoryIndex`](crate::MemoryIndex)'s): chunks of at least `min_words` words,
/// `shingle`-word n-grams.
///
/// ```
/// use textreuse_index::{IndexUnit, Params};
///
/// let p = Params::new(IndexUnit::Document).threshold(0.7)?;
/// assert_eq!(p.unit, IndexUnit::Document);
/// assert!(p.signer()?.threshold_estimate() < 0.75);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Params {
    /// The unit.
    pub unit: IndexUnit,
    /// Shingle length: characters (sentence, paragraph, document) or words (chunk).
    pub shingle: usize,
    /// Smallest shingle count of an indexed unit (not for chunks).
    pub min_shingles: usize,
    /// Largest shingle count of an indexed unit (not for chunks; `usize::MAX` for no bound).
    pub max_shingles: usize,
    /// Chunks: paragraphs are merged until a chunk holds this many words.
    pub min_words: usize,
    /// How bands are drawn (in the manifest by its name: `drawn`, `disjoint` or `oph`).
    pub scheme: BandScheme,
    /// Hash functions `N`.
    pub hashes: usize,
    /// Rows `K` per band.
    pub rows: usize,
    /// Bands `M`.
    pub bands: usize,
    /// Output bits of each hash function.
    pub bits: u32,
    /// Seed of the hash functions and bands.
    pub seed: u64,
    /// Bytes kept of each minhash for estimating Jaccard similarity: 1, 2, 4 or 8. Two different
    /// minhashes look equal with probability `2^-(8·bytes)`; 2 bytes (the default) add at most
    /// 0.00002 to an estimate. `8` keeps them whole (chunk indexes, which `check` ranks by them).
    pub signature_bytes: u8,
    /// Whether document texts are stored: needed to verify candidates (exact Jaccard), to show
    /// matched text, and for `check --index`. Default: stored.
    pub store_text: bool,
}

impl Params {
    /// The defaults of `unit`: for sentences, paragraphs and documents those of
    /// `textreuse dedup` ([`Unit::default_filter`] and [`SignerConfig::for_unit`]: the Weissman
    /// preset for sentences, the OPH preset for paragraphs and documents, seed 1123456); for
    /// chunks those of `textreuse check` ([`ChunkConfig::default`]: word 2-grams, chunks of 20
    /// words; [`SignerConfig::chunks`]: 30 disjoint bands of 2 rows; whole minhashes kept).
    pub fn new(unit: IndexUnit) -> Params {
        let chunks = ChunkConfig::default();
        let config = match unit.dedup_unit() {
            Some(u) => SignerConfig::for_unit(u),
            None => SignerConfig::chunks(),
        };
        let signer = config.build().expect("the presets are valid");
        let base = Params {
            unit,
            shingle: textreuse_shingle::DEFAULT_SHINGLE_CHARS,
            min_shingles: 0,
            max_shingles: usize::MAX,
            min_words: chunks.min_words,
            scheme: signer.scheme(),
            hashes: signer.hashes(),
            rows: signer.rows(),
            bands: signer.bands(),
            bits: signer.bits(),
            seed: signer.seed(),
            signature_bytes: DEFAULT_SIGNATURE_BYTES,
            store_text: true,
        };
        match unit.dedup_unit() {
            Some(u) => {
                let f = u.default_filter();
                Params {
                    shingle: f.shingle,
                    min_shingles: f.min_shingles,
                    max_shingles: f.max_shingles,
                    ..base
                }
            }
            None => Params {
                shingle: chunks.ngram,
                signature_bytes: 8,
                ..base
            },
        }
    }

    /// These parameters with the MinHash part of `config` (`N` resolved: `K·M` for disjoint
    /// and OPH bands, 20 for drawn bands when not given), or why `config` is invalid.
    pub fn with_signer(mut self, config: SignerConfig) -> Result<Params, Error> {
        let signer = config.build().map_err(|e| Error::Params(e.to_string()))?;
        self.scheme = signer.scheme();
        self.hashes = signer.hashes();
        self.rows = signer.rows();
        self.bands = signer.bands();
        self.bits = signer.bits();
        self.seed = signer.seed();
        Ok(self)
    }

    /// The MinHash part of these parameters.
    pub fn signer_config(&self) -> SignerConfig {
        SignerConfig {
            scheme: self.scheme,
            hashes: Some(self.hashes),
            rows: self.rows,
            bands: self.bands,
            bits: self.bits,
            seed: self.seed,
        }
    }

    /// The scheme, rows and bands for a similarity threshold, picked like
    /// `textreuse dedup --threshold` does: the cheapest configuration that finds 99% of pairs at
    /// or above the threshold and makes at most 1% of clearly different pairs candidates
    /// ([`textreuse_minhash::plan`] of [`Params::target`]).
    pub fn threshold(self, threshold: f64) -> Result<Params, Error> {
        let target = self.target(threshold);
        self.plan(&target)
    }

    /// The planner's default target for a threshold and these parameters: [`Target::new`] for
    /// units as short as this index keeps (`min_shingles`, or `min_words` for chunks), with
    /// these bits and seed. Adjust it (schemes, recall ...) and pass it to [`Params::plan`].
    pub fn target(&self, threshold: f64) -> Target {
        let smallest = if self.unit == IndexUnit::Chunk {
            self.min_words
        } else {
            self.min_shingles
        };
        Target {
            min_set: smallest.clamp(1, 10_000),
            bits: self.bits,
            seed: self.seed,
            ..Target::new(threshold)
        }
    }

    /// The scheme, rows and bands [`textreuse_minhash::plan`] picks for `target` (its bits and
    /// seed are used too).
    pub fn plan(mut self, target: &Target) -> Result<Params, Error> {
        let p = plan(target).map_err(|e| Error::Params(e.to_string()))?;
        self.scheme = p.scheme;
        self.hashes = p.hashes;
        self.rows = p.rows;
        self.bands = p.bands;
        self.bits = target.bits;
        self.seed = target.seed;
        Ok(self)
    }

    /// Sets the scheme with its preset hashes, rows and bands ([`SignerConfig::preset`]),
    /// keeping the bits and seed.
    pub fn preset(mut self, scheme: BandScheme) -> Params {
        let preset = SignerConfig::preset(scheme)
            .build()
            .expect("the presets are valid");
        self.scheme = scheme;
        (self.hashes, self.rows, self.bands) = (preset.hashes(), preset.rows(), preset.bands());
        self
    }

    /// The signer these parameters describe. `hashes` is passed on for drawn bands only (for
    /// disjoint and OPH bands it is `K·M`, which [`Params`]'s check compares).
    pub fn signer(&self) -> Result<Signer, Error> {
        let config = SignerConfig {
            hashes: (self.scheme == BandScheme::Drawn).then_some(self.hashes),
            ..self.signer_config()
        };
        config.build().map_err(|e| Error::Params(e.to_string()))
    }

    /// Checks what the signer does not.
    pub(crate) fn check(&self) -> Result<(), Error> {
        if ![1, 2, 4, 8].contains(&self.signature_bytes) {
            return Err(Error::Params(format!(
                "signature bytes must be 1, 2, 4 or 8, not {}",
                self.signature_bytes
            )));
        }
        if self.shingle == 0 {
            return Err(Error::Params(
                "the shingle length must be at least 1".into(),
            ));
        }
        if self.min_shingles > self.max_shingles {
            return Err(Error::Params(format!(
                "min shingles {} is above max shingles {}",
                self.min_shingles, self.max_shingles
            )));
        }
        let signer = self.signer()?;
        if signer.hashes() != self.hashes {
            return Err(Error::Params(format!(
                "{} hash functions do not fit {} bands of {} rows with {} bands",
                self.hashes, self.bands, self.rows, self.scheme
            )));
        }
        Ok(())
    }

    fn filter(&self) -> SentenceFilter {
        SentenceFilter {
            shingle: self.shingle,
            min_shingles: self.min_shingles,
            max_shingles: self.max_shingles,
        }
    }
}

/// The default [`Params::signature_bytes`] of sentence, paragraph and document indexes.
pub const DEFAULT_SIGNATURE_BYTES: u8 = 2;

/// One signed unit of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedUnit {
    /// Its byte span in the text.
    pub span: Range<usize>,
    /// Its span in characters (what outputs give).
    pub chars: Range<u64>,
    /// Its `N` minhashes.
    pub mins: Vec<u64>,
    /// Its `M` band keys.
    pub keys: Vec<u64>,
}

/// Cuts texts into units and signs them with an index's [`Params`]. One per thread.
#[derive(Debug)]
pub struct Recipe<'s> {
    params: Params,
    signer: TextSigner<'s>,
    filter: SentenceFilter,
    spans: Vec<Range<usize>>,
    words: Vec<u64>,
    shingles: Vec<u64>,
}

impl<'s> Recipe<'s> {
    /// A recipe for `params`, signing with `signer` (which must be `params.signer()`).
    pub fn new(params: &Params, signer: &'s Signer) -> Recipe<'s> {
        let text_signer = TextSigner::new(signer).shingle_chars(params.shingle);
        Recipe {
            params: params.clone(),
            signer: text_signer,
            filter: params.filter(),
            spans: Vec::new(),
            words: Vec::new(),
            shingles: Vec::new(),
        }
    }

    /// The signed units of `text`, in text order.
    pub fn units(&mut self, text: &str) -> Vec<SignedUnit> {
        let mut out = Vec::new();
        let signer = self.signer.signer();
        match self.params.unit.dedup_unit() {
            Some(unit) => {
                for s in KeptSentences::with_unit(text, 0, &self.filter, unit) {
                    if let Some(mins) = self.signer.minhashes(s.text) {
                        let mins = mins.to_vec();
                        let mut keys = vec![0; signer.bands()];
                        signer.band_keys_into(&mins, &mut keys);
                        out.push(SignedUnit {
                            span: s.span,
                            chars: s.chars,
                            mins,
                            keys,
                        });
                    }
                }
            }
            None => {
                chunk_spans(text, self.params.min_words, &mut self.spans);
                let mut counted = (0usize, 0u64);
                for span in &self.spans {
                    let unit = &text[span.clone()];
                    if !word_shingles(
                        unit,
                        self.params.shingle,
                        &mut self.words,
                        &mut self.shingles,
                    ) {
                        continue;
                    }
                    let mut mins = vec![0; signer.hashes()];
                    if signer.sign_into(&self.shingles, &mut mins).is_err() {
                        continue;
                    }
                    let mut keys = vec![0; signer.bands()];
                    signer.band_keys_into(&mins, &mut keys);
                    let start = counted.1 + text[counted.0..span.start].chars().count() as u64;
                    let end = start + unit.chars().count() as u64;
                    counted = (span.end, end);
                    out.push(SignedUnit {
                        span: span.clone(),
                        chars: start..end,
                        mins,
                        keys,
                    });
                }
            }
        }
        out
    }

    /// The sorted, distinct shingles of a unit's text (for exact Jaccard).
    pub fn shingle_set(&mut self, unit: &str) -> Vec<u64> {
        let mut set = match self.params.unit.dedup_unit() {
            Some(_) => self.signer.shingles(unit).clone(),
            None => {
                if !word_shingles(
                    unit,
                    self.params.shingle,
                    &mut self.words,
                    &mut self.shingles,
                ) {
                    return Vec::new();
                }
                self.shingles.clone()
            }
        };
        set.sort_unstable();
        set.dedup();
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_is_stored_by_its_name() {
        for (unit, name) in [
            (IndexUnit::Sentence, "drawn"),
            (IndexUnit::Paragraph, "oph"),
            (IndexUnit::Chunk, "disjoint"),
        ] {
            let params = Params::new(unit);
            let json = serde_json::to_value(&params).unwrap();
            assert_eq!(json["scheme"], name);
            let back: Params = serde_json::from_value(json).unwrap();
            assert_eq!(back, params);
        }
        let mut json = serde_json::to_value(Params::new(IndexUnit::Sentence)).unwrap();
        json["scheme"] = "banded".into();
        assert!(serde_json::from_value::<Params>(json).is_err());
    }

    #[test]
    fn chunk_params_are_the_memory_index_presets() {
        let p = Params::new(IndexUnit::Chunk);
        let chunks = ChunkConfig::default();
        assert_eq!((p.shingle, p.min_words), (chunks.ngram, chunks.min_words));
        let signer = p.signer().unwrap();
        assert_eq!(
            signer.config(),
            SignerConfig::chunks().build().unwrap().config()
        );
        assert_eq!(p.signer_config().build().unwrap().config(), signer.config());
    }
}
