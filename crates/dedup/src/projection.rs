//! Meng and Zheng's random projection over word embeddings, as a candidate method of a dedup
//! run ([`Method::RandomProjection`](crate::Method::RandomProjection)), and as building blocks
//! for other drivers.
//!
//! Each kept unit is cleaned into words ([`textreuse_embed::Cleaner`]: lowercase, stop words,
//! numbers and non-words out, Snowball stems); the words of all units form a
//! [`Corpus`]; word vectors are read from a file or trained on that corpus
//! ([`textreuse_embed::Trainer`]); each unit's vector is the mean of its known words' vectors;
//! `D` random hyperplanes ([`Hyperplanes`]) turn it into a `D`-bit signature; the
//! sliding-window search over `Q` random bit permutations ([`WindowSearch`]) pairs signatures
//! within `T` bits, and the run clusters the pairs with union-find as it does MinHash pairs.
//!
//! ```
//! use textreuse_dedup::projection::EmbeddingProjection;
//! use textreuse_embed::Corpus;
//!
//! let projection = EmbeddingProjection::builder().bits(128).max_hamming(8).build()?;
//! let mut corpus = Corpus::new();
//! let mut words = Vec::new();
//! for text in [
//!     "The old mill on the river was built in 1820 and still grinds grain.",
//!     "The old mill on the river was built in 1822 and still grinds grain.",
//!     "Railway timetables change every winter for the mountain lines.",
//! ] {
//!     projection.words(text, &mut words);
//!     corpus.push(&words);
//! }
//! let vectors = projection.embeddings(&corpus)?; // trained on the corpus
//! let signatures = projection.signatures(&corpus, &vectors)?;
//! assert_eq!(signatures.len(), 3);
//! let pairs = projection.pairs(&signatures)?;
//! assert_eq!((pairs[0].a, pairs[0].b, pairs[0].distance), (0, 1, 0)); // the same words
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::borrow::Cow;
use std::sync::Arc;

use rayon::prelude::*;
use textreuse_embed::{Cleaner, Corpus, EmbedError, Embeddings, Encoder, Trainer, Vocabulary};
use textreuse_simhash::{
    DEFAULT_DENSE_BITS, DEFAULT_PERMUTATIONS, DEFAULT_SEED, DEFAULT_WINDOW,
    DEFAULT_WINDOW_MAX_HAMMING, HammingPair, Hyperplanes, SimHashError, WindowSearch,
};

use crate::Error;

/// The widest signature this method takes, in bits (the window search compares signatures
/// word by word; 4096 bits is 64 words, far beyond the paper's 60 and 100).
pub const MAX_PROJECTION_BITS: u32 = 4096;

/// Sentences per parallel chunk when signing.
const CHUNK: usize = 4096;

/// Where the word vectors come from.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Vectors {
    /// Trained on the run's own units with this trainer (the default: skip-gram with
    /// [`textreuse_embed::defaults`]).
    Train(Trainer),
    /// Given (read from a file by the caller: [`textreuse_embed::read`]).
    Given(Arc<Embeddings>),
}

impl Vectors {
    /// `trained` or `file`, as `stats.json` records it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Vectors::Train(_) => "trained",
            Vectors::Given(_) => "file",
        }
    }
}

/// The options of the method (see the [module docs](self)); [`EmbeddingProjection::new`] gives
/// the defaults: the paper's cleaning, vectors trained on the corpus, `D = 100` bits
/// ([`DEFAULT_DENSE_BITS`]), `Q = 10` permutations, window `B = 10`, threshold `T = 5` bits,
/// seed 1123456.
#[derive(Clone, Debug)]
pub struct EmbeddingProjection {
    cleaner: Cleaner,
    center: bool,
    vectors: Vectors,
    bits: u32,
    seed: u64,
    search: WindowSearch,
}

/// Builds an [`EmbeddingProjection`].
#[derive(Clone, Debug)]
pub struct EmbeddingProjectionBuilder {
    stem: bool,
    center: bool,
    vectors: Vectors,
    bits: u32,
    permutations: u32,
    window: u32,
    max_hamming: u32,
    seed: u64,
}

impl Default for EmbeddingProjection {
    fn default() -> Self {
        EmbeddingProjection::new()
    }
}

impl EmbeddingProjectionBuilder {
    /// Whether words are stemmed (default true, as in the paper; see
    /// [`textreuse_embed::CleanerBuilder::stem`]).
    pub fn stem(&mut self, yes: bool) -> &mut Self {
        self.stem = yes;
        self
    }

    /// Whether the corpus's mean word vector is subtracted from every unit's vector before it
    /// is projected (default true; see [`Encoder::centered`](textreuse_embed::Encoder::centered)).
    /// Without it, units' mean vectors share a common direction that puts most of them within
    /// a few bits of each other: on the bundled samples, with vectors trained on them, one
    /// cluster of 20,519 of the 25,450 sentences.
    pub fn center(&mut self, yes: bool) -> &mut Self {
        self.center = yes;
        self
    }

    /// Where the word vectors come from (default: trained with [`Trainer::new`]).
    pub fn vectors(&mut self, vectors: Vectors) -> &mut Self {
        self.vectors = vectors;
        self
    }

    /// The signature width `D` (default 100; 1 to [`MAX_PROJECTION_BITS`]).
    pub fn bits(&mut self, bits: u32) -> &mut Self {
        self.bits = bits;
        self
    }

    /// The number of bit permutations `Q` (default 10).
    pub fn permutations(&mut self, q: u32) -> &mut Self {
        self.permutations = q;
        self
    }

    /// The window `B` (default 10).
    pub fn window(&mut self, b: u32) -> &mut Self {
        self.window = b;
        self
    }

    /// The Hamming threshold `T` (default 5; at most `D` and 255). Two units whose vectors are
    /// at angle `theta` differ in about `D·theta/pi` bits, so `T` bits is a cosine of about
    /// `cos(pi·T/D)` ([`textreuse_simhash::hamming_for_cosine`] goes the other way).
    pub fn max_hamming(&mut self, t: u32) -> &mut Self {
        self.max_hamming = t;
        self
    }

    /// The seed of the hyperplanes and of the permutations (default 1123456).
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.seed = seed;
        self
    }

    /// Checks the options.
    pub fn build(&self) -> Result<EmbeddingProjection, Error> {
        if self.bits == 0 || self.bits > MAX_PROJECTION_BITS {
            return Err(Error::InvalidOption {
                option: "bits",
                message: format!("must be 1 to {MAX_PROJECTION_BITS}, got {}", self.bits),
            });
        }
        let search = WindowSearch::builder()
            .bits(self.bits)
            .permutations(self.permutations)
            .window(self.window)
            .max_hamming(self.max_hamming)
            .seed(self.seed)
            .build()?;
        if let Vectors::Given(e) = &self.vectors {
            // Checks the dimension now, not after reading the input.
            Hyperplanes::new(e.dim(), self.bits, self.seed)?;
        }
        Ok(EmbeddingProjection {
            cleaner: Cleaner::builder().stem(self.stem).build(),
            center: self.center,
            vectors: self.vectors.clone(),
            bits: self.bits,
            seed: self.seed,
            search,
        })
    }
}

/// The signatures of a corpus's units that have a vector: `words_per` words each, flat, and
/// the index in the corpus of each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signatures {
    /// Words per signature, `ceil(D / 64)`.
    pub words_per: usize,
    /// The signatures, flat.
    pub words: Vec<u64>,
    /// The corpus index of each signature's unit, ascending.
    pub sentences: Vec<u32>,
}

impl Signatures {
    /// The number of signatures.
    pub fn len(&self) -> usize {
        self.sentences.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty()
    }

    /// Signature `i` (panics if `i >= len()`).
    pub fn get(&self, i: usize) -> &[u64] {
        &self.words[i * self.words_per..][..self.words_per]
    }
}

impl EmbeddingProjection {
    /// The defaults (see the type's docs).
    pub fn new() -> EmbeddingProjection {
        EmbeddingProjection::builder()
            .build()
            .expect("the defaults are valid")
    }

    /// A builder starting from the defaults.
    pub fn builder() -> EmbeddingProjectionBuilder {
        EmbeddingProjectionBuilder {
            stem: true,
            center: true,
            vectors: Vectors::Train(Trainer::new()),
            bits: DEFAULT_DENSE_BITS,
            permutations: DEFAULT_PERMUTATIONS,
            window: DEFAULT_WINDOW,
            max_hamming: DEFAULT_WINDOW_MAX_HAMMING,
            seed: DEFAULT_SEED,
        }
    }

    /// The signature width `D`.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Whether unit vectors are centered.
    pub fn centers(&self) -> bool {
        self.center
    }

    /// Whether words are stemmed.
    pub fn stems(&self) -> bool {
        self.cleaner.stems()
    }

    /// The seed of the hyperplanes and the permutations.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The window search (its `Q`, `B`, `T` and seed).
    pub fn search(&self) -> &WindowSearch {
        &self.search
    }

    /// Where the vectors come from.
    pub fn vectors(&self) -> &Vectors {
        &self.vectors
    }

    /// Replaces the contents of `out` with the cleaned words of `text`.
    pub fn words(&self, text: &str, out: &mut Vec<String>) {
        self.cleaner.words(text, out);
    }

    /// The word vectors: the given ones, or vectors trained on `corpus` (on the current rayon
    /// pool; the same for any thread count).
    pub fn embeddings(&self, corpus: &Corpus) -> Result<Cow<'_, Embeddings>, EmbedError> {
        match &self.vectors {
            Vectors::Given(e) => Ok(Cow::Borrowed(e)),
            Vectors::Train(trainer) => trainer.train(corpus).map(Cow::Owned),
        }
    }

    /// The hyperplanes for vectors of dimension `dim`.
    pub fn hyperplanes(&self, dim: usize) -> Result<Hyperplanes, SimHashError> {
        Hyperplanes::new(dim, self.bits, self.seed)
    }

    /// The signatures of the units of `corpus` that have a vector (at least one word with a
    /// vector in `embeddings`), in corpus order, computed in parallel.
    pub fn signatures(
        &self,
        corpus: &Corpus,
        embeddings: &Embeddings,
    ) -> Result<Signatures, Error> {
        let planes = self.hyperplanes(embeddings.dim())?;
        let mut encoder = embeddings.encoder(corpus.vocabulary());
        if self.center {
            encoder = encoder.centered(corpus);
        }
        sign_units(&encoder, &planes, corpus)
    }

    /// What a distributed run's tasks need to sign units ([`UnitSigner`]): the vectors of
    /// `vocabulary`'s words (the whole run's vocabulary, with the counts and in the order a
    /// [`Corpus`] of all kept units gives: [`Vocabulary::from_counts`] builds it from parts),
    /// the center those counts give when the method centers, and the hyperplanes. A part's
    /// units signed with it get the signatures [`EmbeddingProjection::signatures`] gives them
    /// in the whole corpus.
    pub fn unit_signer(
        &self,
        vocabulary: &Vocabulary,
        embeddings: &Embeddings,
    ) -> Result<UnitSigner, Error> {
        let planes = self.hyperplanes(embeddings.dim())?;
        let center = if self.center {
            let encoder = embeddings.encoder(vocabulary).centered_on(vocabulary);
            encoder.center().map(<[f64]>::to_vec)
        } else {
            None
        };
        let mut known = Embeddings::new(embeddings.dim())?;
        for id in 0..vocabulary.len() as u32 {
            let word = vocabulary.word(id);
            if let Some(v) = embeddings.get(word) {
                known.push(word, v)?;
            }
        }
        Ok(UnitSigner {
            embeddings: known,
            center,
            planes,
        })
    }

    /// The pairs of signatures the window search finds, as corpus indices `a < b` with their
    /// Hamming distance, sorted.
    ///
    /// Units with equal signatures are grouped first: each group's later members are paired
    /// with its first (distance 0, a star), and the window search runs over the distinct
    /// signatures only, its pairs reported between the groups' first members. Otherwise a
    /// run of more than `B` equal signatures (common: the same sentence in many articles, or
    /// sentences whose cleaned words are the same) would keep two of its members out of each
    /// other's window in every permutation, ties being ordered by index, and copies would go
    /// unpaired.
    pub fn pairs(&self, signatures: &Signatures) -> Result<Vec<HammingPair>, Error> {
        let w = signatures.words_per;
        let mut order: Vec<u32> = (0..signatures.len() as u32).collect();
        order.sort_by(|&x, &y| {
            signatures
                .get(x as usize)
                .cmp(signatures.get(y as usize))
                .then(x.cmp(&y))
        });
        let mut out = Vec::new();
        let mut distinct: Vec<u64> = Vec::with_capacity(signatures.words.len());
        let mut first: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < order.len() {
            let head = order[start] as usize;
            let mut end = start + 1;
            while end < order.len() && signatures.get(order[end] as usize) == signatures.get(head) {
                end += 1;
            }
            // Members of a group are in index order, so the first is the smallest.
            let a = signatures.sentences[head];
            for &other in &order[start + 1..end] {
                out.push(HammingPair {
                    a,
                    b: signatures.sentences[other as usize],
                    distance: 0,
                });
            }
            distinct.extend_from_slice(&signatures.words[head * w..][..w]);
            first.push(a);
            start = end;
        }
        for p in self.search.pairs(&distinct)? {
            let (a, b) = (first[p.a as usize], first[p.b as usize]);
            out.push(HammingPair {
                a: a.min(b),
                b: a.max(b),
                distance: p.distance,
            });
        }
        out.sort_unstable();
        Ok(out)
    }
}

/// The signatures of `corpus`'s units with a vector, by `encoder` and `planes`, in parallel
/// chunks.
fn sign_units(
    encoder: &Encoder<'_>,
    planes: &Hyperplanes,
    corpus: &Corpus,
) -> Result<Signatures, Error> {
    let words_per = planes.words();
    let chunks: Vec<(Vec<u64>, Vec<u32>)> = (0..corpus.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| -> Result<_, Error> {
            let range = c * CHUNK..((c + 1) * CHUNK).min(corpus.len());
            let mut mean = vec![0.0f64; encoder.dim()];
            let (mut words, mut sentences) = (Vec::new(), Vec::new());
            for i in range {
                if encoder.mean_into(corpus.sentence(i), &mut mean)? == 0 {
                    continue; // no known word: no direction to project
                }
                let start = words.len();
                words.resize(start + words_per, 0);
                planes.sign_into(&mean, &mut words[start..])?;
                sentences.push(i as u32);
            }
            Ok((words, sentences))
        })
        .collect::<Result<_, Error>>()?;
    let mut out = Signatures {
        words_per,
        ..Signatures::default()
    };
    for (w, s) in chunks {
        out.words.extend_from_slice(&w);
        out.sentences.extend_from_slice(&s);
    }
    Ok(out)
}

/// The signing step of [`EmbeddingProjection`] for the tasks of a distributed run, made once
/// from the whole run's vocabulary ([`EmbeddingProjection::unit_signer`]) and shipped to them as
/// bytes ([`UnitSigner::to_bytes`], [`UnitSigner::from_bytes`]): the vectors of the run's words
/// that have one, the center, the hyperplanes. Each task signs its own units
/// ([`UnitSigner::signatures`]) and gets the signatures the single-machine run gives them.
///
/// ```
/// use textreuse_dedup::projection::{EmbeddingProjection, UnitSigner};
/// use textreuse_embed::Corpus;
///
/// let projection = EmbeddingProjection::builder().bits(64).build()?;
/// let texts = [
///     "The old mill on the river was built in 1820 and still grinds grain.",
///     "Railway timetables change every winter for the mountain lines.",
///     "The mill by the river grinds grain for the village.",
/// ];
/// let mut corpus = Corpus::new();
/// let mut words = Vec::new();
/// for text in texts {
///     projection.words(text, &mut words);
///     corpus.push(&words);
/// }
/// let vectors = projection.embeddings(&corpus)?;
/// let whole = projection.signatures(&corpus, &vectors)?;
/// // A task holding only the third unit, with the signer made from the whole vocabulary.
/// let signer = UnitSigner::from_bytes(
///     &projection.unit_signer(corpus.vocabulary(), &vectors)?.to_bytes(),
/// )?;
/// let mut part = Corpus::new();
/// projection.words(texts[2], &mut words);
/// part.push(&words);
/// assert_eq!(signer.signatures(&part)?.get(0), whole.get(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct UnitSigner {
    /// The run's words that have a vector, in vocabulary order.
    embeddings: Embeddings,
    center: Option<Vec<f64>>,
    planes: Hyperplanes,
}

/// The first bytes of [`UnitSigner::to_bytes`].
const SIGNER_MAGIC: &[u8; 8] = b"TRUSIGN1";

impl UnitSigner {
    /// The signatures of `corpus`'s units that have a vector, in corpus order, in parallel
    /// (`corpus` is any set of units: its vocabulary only maps its own words).
    pub fn signatures(&self, corpus: &Corpus) -> Result<Signatures, Error> {
        let encoder = self
            .embeddings
            .encoder(corpus.vocabulary())
            .with_center(self.center.clone())?;
        sign_units(&encoder, &self.planes, corpus)
    }

    /// How many of the run's words have a vector.
    pub fn known_words(&self) -> usize {
        self.embeddings.len()
    }

    /// The dimension of the word vectors.
    pub fn dim(&self) -> usize {
        self.embeddings.dim()
    }

    /// Words per signature, `ceil(D / 64)`.
    pub fn words_per(&self) -> usize {
        self.planes.words()
    }

    /// The signer as bytes: a header (width, seed, dimension, the center), then the vectors in
    /// the word2vec binary format (`f32` values as they are: nothing is rounded).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = SIGNER_MAGIC.to_vec();
        out.extend_from_slice(&self.planes.bits().to_le_bytes());
        out.extend_from_slice(&self.planes.seed().to_le_bytes());
        out.extend_from_slice(&(self.dim() as u64).to_le_bytes());
        out.push(self.center.is_some() as u8);
        for x in self.center.iter().flatten() {
            out.extend_from_slice(&x.to_le_bytes());
        }
        textreuse_embed::write(
            &self.embeddings,
            textreuse_embed::Format::Word2VecBinary,
            out,
        )
        .expect("writing to memory does not fail")
    }

    /// The signer [`UnitSigner::to_bytes`] wrote. Fails on other bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<UnitSigner, Error> {
        let bad = |what: &str| Error::InvalidOption {
            option: "unit signer",
            message: format!("not the bytes of UnitSigner::to_bytes: {what}"),
        };
        let rest = bytes
            .strip_prefix(SIGNER_MAGIC.as_slice())
            .ok_or_else(|| bad("no header"))?;
        if rest.len() < 21 {
            return Err(bad("the header is cut short"));
        }
        let bits = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes"));
        let seed = u64::from_le_bytes(rest[4..12].try_into().expect("8 bytes"));
        let dim = u64::from_le_bytes(rest[12..20].try_into().expect("8 bytes")) as usize;
        let mut rest = &rest[21..];
        let center = match bytes[SIGNER_MAGIC.len() + 20] {
            0 => None,
            1 => {
                let n = dim.checked_mul(8).filter(|&n| n <= rest.len());
                let n = n.ok_or_else(|| bad("the center is cut short"))?;
                let center = rest[..n]
                    .chunks_exact(8)
                    .map(|x| f64::from_le_bytes(x.try_into().expect("8 bytes")))
                    .collect();
                rest = &rest[n..];
                Some(center)
            }
            _ => return Err(bad("a bad center flag")),
        };
        let embeddings = textreuse_embed::read(rest, textreuse_embed::Format::Word2VecBinary)?;
        if embeddings.dim() != dim {
            return Err(bad("the vectors' dimension differs from the header's"));
        }
        Ok(UnitSigner {
            embeddings,
            center,
            planes: Hyperplanes::new(dim, bits, seed)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{EmbeddingProjection, Vectors};
    use textreuse_embed::{Corpus, Embeddings};

    #[test]
    fn given_vectors_and_unknown_words() {
        let mut e = Embeddings::new(3).unwrap();
        e.push("mill", &[1.0, 0.0, 0.0]).unwrap();
        e.push("river", &[0.0, 1.0, 0.0]).unwrap();
        e.push("train", &[0.0, 0.0, 1.0]).unwrap();
        let p = EmbeddingProjection::builder()
            .vectors(Vectors::Given(Arc::new(e.clone())))
            .bits(256)
            .max_hamming(20)
            .build()
            .unwrap();
        let mut c = Corpus::new();
        for words in [
            &["mill", "river"][..],
            &["zzz"],
            &["river", "mill", "yyy"],
            &["train"],
        ] {
            c.push(words);
        }
        let vectors = p.embeddings(&c).unwrap();
        let sigs = p.signatures(&c, &vectors).unwrap();
        // Sentence 1 has no known word and no signature.
        assert_eq!(sigs.sentences, [0, 2, 3]);
        assert_eq!((sigs.words_per, sigs.words.len()), (4, 12));
        // Sentences 0 and 2 have the same mean vector.
        assert_eq!(sigs.get(0), sigs.get(1));
        let pairs = p.pairs(&sigs).unwrap();
        assert_eq!(pairs.len(), 1);
        assert_eq!((pairs[0].a, pairs[0].b, pairs[0].distance), (0, 2, 0));
        // Forty copies of one sentence among other sentences: every copy is paired, although
        // a window of 10 would not reach from the first to the last.
        let mut c = Corpus::new();
        for i in 0..200 {
            c.push(match i % 5 {
                0 => &["mill", "river"][..],
                1 => &["train"],
                2 => &["river", "train"],
                3 => &["mill", "train", "river"],
                _ => &["mill"],
            });
        }
        let sigs = p.signatures(&c, &vectors).unwrap();
        let pairs = p.pairs(&sigs).unwrap();
        let copies: Vec<u32> = pairs
            .iter()
            .filter(|q| q.a == 0 && q.distance == 0)
            .map(|q| q.b)
            .collect();
        assert_eq!(copies, (1..40).map(|k| k * 5).collect::<Vec<u32>>());
        // The groups' first members are paired by the window search where within T bits.
        assert!(pairs.iter().all(|q| q.a < q.b && q.distance <= 20));
        assert!(EmbeddingProjection::builder().bits(0).build().is_err());
        assert!(EmbeddingProjection::builder().bits(4097).build().is_err());
        assert!(
            EmbeddingProjection::builder()
                .bits(60)
                .max_hamming(61)
                .build()
                .is_err()
        );
    }

    /// Units signed in parts with a [`UnitSigner`] made from the whole vocabulary (counted in
    /// parts, in first-seen order) get the whole corpus's signatures, trained or given
    /// vectors, centered or not.
    #[test]
    fn unit_signer_in_parts_equals_the_whole() {
        use super::UnitSigner;
        use textreuse_embed::Vocabulary;
        let texts: Vec<String> = (0..300)
            .map(|i| {
                format!(
                    "The {} mill on river {} grinds {} grain for the {} village bakers.",
                    ["old", "new", "red", "tall"][i % 4],
                    ["Aare", "Rhine", "Thames"][i % 3],
                    ["wheat", "rye", "barley", "oat", "corn"][i % 5],
                    ["upper", "lower"][i % 2]
                )
            })
            .collect();
        for (given, center) in [(false, true), (false, false), (true, true)] {
            let mut builder = EmbeddingProjection::builder();
            builder.center(center).bits(130);
            if given {
                let mut e = Embeddings::new(4).unwrap();
                for (k, w) in ["mill", "river", "grain", "wheat", "rye", "old", "rhine"]
                    .iter()
                    .enumerate()
                {
                    let k = k as f32;
                    e.push(w, &[k, 1.0 - k, k * k - 3.0, 0.5]).unwrap();
                }
                builder.vectors(Vectors::Given(Arc::new(e)));
            }
            let p = builder.build().unwrap();
            let mut corpus = Corpus::new();
            let mut words = Vec::new();
            for t in &texts {
                p.words(t, &mut words);
                corpus.push(&words);
            }
            let vectors = p.embeddings(&corpus).unwrap();
            let whole = p.signatures(&corpus, &vectors).unwrap();
            // The vocabulary as a distributed run counts it.
            let v = corpus.vocabulary();
            let counted =
                Vocabulary::from_counts((0..v.len() as u32).map(|i| (v.word(i), v.count(i))))
                    .unwrap();
            let signer = p.unit_signer(&counted, &vectors).unwrap();
            let signer = UnitSigner::from_bytes(&signer.to_bytes()).unwrap();
            assert_eq!(signer.words_per(), 3);
            let mut got = Vec::new();
            for part in texts.chunks(37) {
                let mut c = Corpus::new();
                for t in part.iter().rev() {
                    p.words(t, &mut words);
                    c.push(&words);
                }
                let sigs = signer.signatures(&c).unwrap();
                // Pushed backwards: read backwards.
                for k in (0..sigs.len()).rev() {
                    got.push(sigs.get(k).to_vec());
                }
                assert_eq!(sigs.len(), part.len());
            }
            let want: Vec<Vec<u64>> = (0..whole.len()).map(|i| whole.get(i).to_vec()).collect();
            assert_eq!(got, want, "given {given}, center {center}");
        }
        assert!(UnitSigner::from_bytes(b"TRUSIGN1").is_err());
        assert!(UnitSigner::from_bytes(b"nothing").is_err());
    }
}
