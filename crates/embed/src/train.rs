//! Skip-gram with negative sampling (Mikolov et al. 2013), deterministic for any thread count.

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rayon::prelude::*;
use textreuse_hash::mix64;

use crate::math::{sigmoid, unit};
use crate::{Corpus, EmbedError, Embeddings};

/// The training defaults, defined here once (the CLI and `textreuse-dedup` read them).
///
/// Small and few on purpose: the vectors only have to place a corpus's near-duplicate sentences
/// close together, and training runs before every `textreuse dedup --method rp-embed` that is
/// given no vector file.
pub mod defaults {
    /// Vector dimension (the paper used 400-dimensional pretrained word2vec vectors; 100 is
    /// word2vec's own default and keeps projection fast).
    pub const DIM: usize = 100;
    /// Context window: up to this many words on each side, shrunk at random per word as
    /// word2vec does (so nearer words count more).
    pub const WINDOW: usize = 5;
    /// Negative samples per (word, context) pair, drawn from the unigram distribution raised to
    /// the power 0.75.
    pub const NEGATIVE: usize = 5;
    /// Passes over the corpus.
    pub const EPOCHS: usize = 5;
    /// Words seen fewer times get no vector (1: every word has one).
    pub const MIN_COUNT: u64 = 1;
    /// The starting learning rate, decayed linearly to 1/10,000 of it over the training.
    pub const LEARNING_RATE: f32 = 0.025;
    /// Sentences whose updates are computed in parallel against the same weights and then
    /// applied in sentence order. Part of the result (a different batch gives different
    /// vectors); the thread count is not. Updates of a word in many sentences of one batch add
    /// up, so large batches overshoot on frequent words: on a 16-word toy vocabulary 16
    /// converges and 64 diverges; 1 is word2vec's plain sequential SGD.
    pub const BATCH: usize = 16;
    /// The seed of the initial vectors, the window shrinks and the negative samples.
    pub const SEED: u64 = 1123456;
}

/// Trains word vectors on a [`Corpus`] with skip-gram and negative sampling.
///
/// word2vec's skip-gram as in its C code: for each word and each context word within a window
/// (shrunk by a random amount per word), the context word's input vector is moved towards the
/// word's output vector and away from `negative` sampled words' output vectors; input vectors
/// start uniform in `±0.5/dim`, output vectors at 0; the learning rate falls linearly. Two
/// departures make it deterministic, the same vectors for any thread count:
///
/// * Every random draw of a sentence comes from a generator seeded by `(seed, epoch, sentence)`,
///   not from a shared stream.
/// * Instead of Hogwild's racing updates, sentences go in batches of `batch`: each sentence's
///   update is computed in parallel against the weights at the batch's start (plain SGD within
///   the sentence), and the updates are added in sentence order. The learning rate is set per
///   batch from the words before it.
///
/// The logistic function is computed from `+ - * /` only (no platform `exp`), so the vectors are
/// also the same on every machine. No subsampling of frequent words (stop words are already
/// gone) and no hierarchical softmax.
///
/// ```
/// use textreuse_embed::{Corpus, Trainer};
///
/// let mut corpus = Corpus::new();
/// corpus.push(&["old", "mill", "river"]);
/// corpus.push(&["mill", "grain", "bakeri"]);
/// let trainer = Trainer::builder().dim(8).build()?;
/// let vectors = trainer.train(&corpus)?;
/// assert_eq!((vectors.len(), vectors.dim()), (5, 8));
/// assert_eq!(vectors, trainer.train(&corpus)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Trainer {
    dim: usize,
    window: usize,
    negative: usize,
    epochs: usize,
    min_count: u64,
    learning_rate: f32,
    batch: usize,
    seed: u64,
}

/// Builds a [`Trainer`]; starts from [`defaults`].
#[derive(Clone, Debug)]
pub struct TrainerBuilder {
    inner: Trainer,
}

impl TrainerBuilder {
    /// Vector dimension (default [`defaults::DIM`]; 1 to 4096).
    pub fn dim(&mut self, dim: usize) -> &mut Self {
        self.inner.dim = dim;
        self
    }

    /// Context window (default [`defaults::WINDOW`]; 1 to 100).
    pub fn window(&mut self, window: usize) -> &mut Self {
        self.inner.window = window;
        self
    }

    /// Negative samples (default [`defaults::NEGATIVE`]; 1 to 100).
    pub fn negative(&mut self, negative: usize) -> &mut Self {
        self.inner.negative = negative;
        self
    }

    /// Passes over the corpus (default [`defaults::EPOCHS`]; 1 to 1000).
    pub fn epochs(&mut self, epochs: usize) -> &mut Self {
        self.inner.epochs = epochs;
        self
    }

    /// Minimum count of a word with a vector (default [`defaults::MIN_COUNT`]; at least 1).
    pub fn min_count(&mut self, n: u64) -> &mut Self {
        self.inner.min_count = n;
        self
    }

    /// Starting learning rate (default [`defaults::LEARNING_RATE`]; finite, positive, at most 1).
    pub fn learning_rate(&mut self, rate: f32) -> &mut Self {
        self.inner.learning_rate = rate;
        self
    }

    /// Sentences per parallel batch (default [`defaults::BATCH`]; 1 to 65536).
    pub fn batch(&mut self, sentences: usize) -> &mut Self {
        self.inner.batch = sentences;
        self
    }

    /// The seed (default [`defaults::SEED`]).
    pub fn seed(&mut self, seed: u64) -> &mut Self {
        self.inner.seed = seed;
        self
    }

    /// Checks the parameters.
    pub fn build(&self) -> Result<Trainer, EmbedError> {
        let t = &self.inner;
        let check = |name, ok: bool, range: &str, value: String| {
            if ok {
                Ok(())
            } else {
                Err(EmbedError::InvalidParameter {
                    name,
                    message: format!("must be {range}, got {value}"),
                })
            }
        };
        check(
            "dim",
            (1..=4096).contains(&t.dim),
            "1 to 4096",
            t.dim.to_string(),
        )?;
        check(
            "window",
            (1..=100).contains(&t.window),
            "1 to 100",
            t.window.to_string(),
        )?;
        let negative = t.negative;
        check(
            "negative",
            (1..=100).contains(&negative),
            "1 to 100",
            negative.to_string(),
        )?;
        check(
            "epochs",
            (1..=1000).contains(&t.epochs),
            "1 to 1000",
            t.epochs.to_string(),
        )?;
        check(
            "min_count",
            t.min_count >= 1,
            "at least 1",
            t.min_count.to_string(),
        )?;
        let rate = t.learning_rate;
        check(
            "learning_rate",
            rate.is_finite() && rate > 0.0 && rate <= 1.0,
            "finite, positive and at most 1",
            rate.to_string(),
        )?;
        check(
            "batch",
            (1..=65536).contains(&t.batch),
            "1 to 65536",
            t.batch.to_string(),
        )?;
        Ok(t.clone())
    }
}

impl Default for Trainer {
    fn default() -> Self {
        Trainer::new()
    }
}

/// One sentence's update: rows touched (sorted) and the change of each.
struct Update {
    in_rows: Vec<u32>,
    in_delta: Vec<f32>,
    out_rows: Vec<u32>,
    out_delta: Vec<f32>,
}

/// Per-task buffers.
#[derive(Default)]
struct Scratch {
    rows: Vec<u32>,
    /// `(context row, first target, end of targets)`.
    events: Vec<(u32, u32, u32)>,
    /// `(target row, label)`.
    targets: Vec<(u32, bool)>,
    neu1e: Vec<f32>,
}

impl Trainer {
    /// The defaults of [`defaults`].
    pub fn new() -> Trainer {
        Trainer {
            dim: defaults::DIM,
            window: defaults::WINDOW,
            negative: defaults::NEGATIVE,
            epochs: defaults::EPOCHS,
            min_count: defaults::MIN_COUNT,
            learning_rate: defaults::LEARNING_RATE,
            batch: defaults::BATCH,
            seed: defaults::SEED,
        }
    }

    /// A builder starting from [`defaults`].
    pub fn builder() -> TrainerBuilder {
        TrainerBuilder {
            inner: Trainer::new(),
        }
    }

    /// The vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The number of passes.
    pub fn epochs(&self) -> usize {
        self.epochs
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Trains vectors for the words of `corpus` seen at least `min_count` times (in vocabulary
    /// order), on the current rayon pool. The result depends on the corpus, the parameters and
    /// the seed only.
    pub fn train(&self, corpus: &Corpus) -> Result<Embeddings, EmbedError> {
        let vocab = corpus.vocabulary();
        let dim = self.dim;
        // Vocabulary id -> row, for the words that get a vector.
        let mut row_of = vec![u32::MAX; vocab.len()];
        let mut rows = 0u32;
        let mut weights = Vec::new();
        for id in 0..vocab.len() as u32 {
            if vocab.count(id) >= self.min_count {
                row_of[id as usize] = rows;
                rows += 1;
                // count^0.75 from square roots, which are exactly rounded everywhere.
                let c = vocab.count(id) as f64;
                weights.push(c.sqrt() * c.sqrt().sqrt());
            }
        }
        let n = rows as usize;
        let mut cumulative = Vec::with_capacity(n);
        let mut total = 0.0;
        for w in &weights {
            total += w;
            cumulative.push(total);
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.seed);
        let mut w_in: Vec<f32> = (0..n * dim)
            .map(|_| ((unit(rng.next_u64()) - 0.5) / dim as f64) as f32)
            .collect();
        let mut w_out = vec![0f32; n * dim];
        let sentences = corpus.len();
        let tokens_total = (corpus.tokens() * self.epochs).max(1) as f64;
        let mut done = 0usize;
        let mut diverged = None;
        for epoch in 0..self.epochs {
            let mut start = 0;
            while start < sentences {
                let end = (start + self.batch).min(sentences);
                let progress = done as f64 / tokens_total;
                let lr = (self.learning_rate as f64 * (1.0 - progress).max(1e-4)) as f32;
                let (w_in_ref, w_out_ref) = (&w_in, &w_out);
                let updates: Vec<Update> = (start..end)
                    .into_par_iter()
                    .map_init(Scratch::default, |s, i| {
                        s.rows.clear();
                        s.rows.extend(
                            corpus
                                .sentence(i)
                                .iter()
                                .map(|&id| row_of[id as usize])
                                .filter(|&r| r != u32::MAX),
                        );
                        let seed = mix64(self.seed ^ mix64((epoch as u64) << 40 ^ i as u64));
                        self.sentence_update(s, seed, lr, w_in_ref, w_out_ref, &cumulative)
                    })
                    .collect();
                for u in updates {
                    apply(&mut w_in, dim, &u.in_rows, &u.in_delta);
                    apply(&mut w_out, dim, &u.out_rows, &u.out_delta);
                }
                done += (start..end)
                    .map(|i| corpus.sentence(i).len())
                    .sum::<usize>();
                start = end;
            }
            if diverged.is_none() && !w_in.iter().all(|x| x.is_finite()) {
                diverged = Some(epoch + 1);
                break;
            }
        }
        if let Some(epoch) = diverged {
            return Err(EmbedError::Diverged { epoch });
        }
        let mut out = Embeddings::new(dim)?;
        for id in 0..vocab.len() as u32 {
            let r = row_of[id as usize];
            if r != u32::MAX {
                out.push(vocab.word(id), &w_in[r as usize * dim..][..dim])?;
            }
        }
        Ok(out)
    }

    /// Plain SGD over one sentence (rows in `s.rows`) against a private copy of the rows it
    /// touches; returns the change of each.
    fn sentence_update(
        &self,
        s: &mut Scratch,
        seed: u64,
        lr: f32,
        w_in: &[f32],
        w_out: &[f32],
        cumulative: &[f64],
    ) -> Update {
        let dim = self.dim;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let total = cumulative.last().copied().unwrap_or(0.0);
        s.events.clear();
        s.targets.clear();
        let words = &s.rows;
        for (i, &word) in words.iter().enumerate() {
            let shrink = (rng.next_u64() % self.window as u64) as usize;
            let reach = self.window - shrink;
            let lo = i.saturating_sub(reach);
            let hi = (i + reach).min(words.len() - 1);
            for (j, &context) in words.iter().enumerate().take(hi + 1).skip(lo) {
                if j == i {
                    continue;
                }
                let first = s.targets.len() as u32;
                s.targets.push((word, true));
                for _ in 0..self.negative {
                    let u = unit(rng.next_u64()) * total;
                    let t = cumulative
                        .partition_point(|&c| c <= u)
                        .min(cumulative.len() - 1) as u32;
                    if t != word {
                        s.targets.push((t, false));
                    }
                }
                s.events.push((context, first, s.targets.len() as u32));
            }
        }
        let mut in_rows: Vec<u32> = s.events.iter().map(|e| e.0).collect();
        in_rows.sort_unstable();
        in_rows.dedup();
        let mut out_rows: Vec<u32> = s.targets.iter().map(|t| t.0).collect();
        out_rows.sort_unstable();
        out_rows.dedup();
        let gather = |rows: &[u32], w: &[f32]| -> Vec<f32> {
            let mut v = Vec::with_capacity(rows.len() * dim);
            for &r in rows {
                v.extend_from_slice(&w[r as usize * dim..][..dim]);
            }
            v
        };
        let mut local_in = gather(&in_rows, w_in);
        let mut local_out = gather(&out_rows, w_out);
        s.neu1e.clear();
        s.neu1e.resize(dim, 0.0);
        for &(context, first, end) in &s.events {
            let ci = in_rows.binary_search(&context).expect("gathered");
            let l1 = &mut local_in[ci * dim..][..dim];
            s.neu1e.fill(0.0);
            for &(target, label) in &s.targets[first as usize..end as usize] {
                let ti = out_rows.binary_search(&target).expect("gathered");
                let o = &mut local_out[ti * dim..][..dim];
                let f: f32 = dot(l1, o);
                let g = (if label { 1.0 } else { 0.0 } - sigmoid(f)) * lr;
                for ((e, o), &x) in s.neu1e.iter_mut().zip(o.iter_mut()).zip(l1.iter()) {
                    *e += g * *o;
                    *o += g * x;
                }
            }
            for (x, e) in l1.iter_mut().zip(&s.neu1e) {
                *x += e;
            }
        }
        let delta = |local: &mut Vec<f32>, rows: &[u32], w: &[f32]| {
            for (k, &r) in rows.iter().enumerate() {
                for (l, &x) in local[k * dim..][..dim]
                    .iter_mut()
                    .zip(&w[r as usize * dim..][..dim])
                {
                    *l -= x;
                }
            }
        };
        delta(&mut local_in, &in_rows, w_in);
        delta(&mut local_out, &out_rows, w_out);
        Update {
            in_rows,
            in_delta: local_in,
            out_rows,
            out_delta: local_out,
        }
    }
}

/// A dot product summed in index order.
#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        s += x * y;
    }
    s
}

fn apply(w: &mut [f32], dim: usize, rows: &[u32], delta: &[f32]) {
    for (k, &r) in rows.iter().enumerate() {
        for (x, d) in w[r as usize * dim..][..dim]
            .iter_mut()
            .zip(&delta[k * dim..][..dim])
        {
            *x += d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Trainer;
    use crate::{Corpus, EmbedError};

    /// Sentences drawn from two topics that share no word.
    fn topics(sentences: usize) -> Corpus {
        let a = [
            "river", "mill", "water", "grain", "wheel", "bank", "stream", "flood",
        ];
        let b = [
            "train", "rail", "station", "ticket", "platform", "engin", "track", "carriag",
        ];
        let mut c = Corpus::new();
        let mut x = 12345u64;
        for i in 0..sentences {
            let topic = if i % 2 == 0 { &a } else { &b };
            let words: Vec<&str> = (0..8)
                .map(|_| {
                    x = textreuse_hash::mix64(x);
                    topic[(x % 8) as usize]
                })
                .collect();
            c.push(&words);
        }
        c
    }

    fn cosine(a: &[f32], b: &[f32]) -> f64 {
        let d: f64 = a.iter().zip(b).map(|(x, y)| (x * y) as f64).sum();
        let n = |v: &[f32]| v.iter().map(|x| (x * x) as f64).sum::<f64>().sqrt();
        d / (n(a) * n(b))
    }

    #[test]
    fn same_vectors_for_any_thread_count() {
        let corpus = topics(600);
        let trainer = Trainer::builder().dim(24).epochs(2).build().unwrap();
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| trainer.train(&corpus).unwrap())
        };
        let one = run(1);
        let bits =
            |e: &crate::Embeddings| e.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&one), bits(&run(2)));
        assert_eq!(bits(&one), bits(&run(5)));
        // The seed matters.
        let other = Trainer::builder()
            .dim(24)
            .epochs(2)
            .seed(7)
            .build()
            .unwrap();
        assert_ne!(bits(&one), bits(&other.train(&corpus).unwrap()));
    }

    #[test]
    fn words_of_a_topic_end_up_closer() {
        let corpus = topics(2000);
        // The default batch (16) converges even on this 16-word vocabulary; batches of 64
        // sentences diverge on it (every word is in every other sentence) and say so.
        let e = Trainer::builder()
            .dim(32)
            .build()
            .unwrap()
            .train(&corpus)
            .unwrap();
        let v = |w: &str| e.get(w).unwrap().to_vec();
        let within = [
            ("river", "mill"),
            ("water", "wheel"),
            ("rail", "ticket"),
            ("station", "track"),
        ];
        let across = [
            ("river", "rail"),
            ("mill", "ticket"),
            ("water", "station"),
            ("wheel", "track"),
        ];
        let mean = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|&(a, b)| cosine(&v(a), &v(b)))
                .sum::<f64>()
                / pairs.len() as f64
        };
        let (w, a) = (mean(&within), mean(&across));
        assert!(w > a + 0.3, "within {w}, across {a}");
        let diverged = Trainer::builder()
            .dim(32)
            .batch(256)
            .build()
            .unwrap()
            .train(&corpus);
        assert!(
            matches!(diverged, Err(EmbedError::Diverged { .. })),
            "{diverged:?}"
        );
    }

    #[test]
    fn min_count_and_parameters() {
        let mut c = Corpus::new();
        c.push(&["a", "b", "a"]);
        c.push(&["c"]);
        let e = Trainer::builder()
            .dim(4)
            .min_count(2)
            .build()
            .unwrap()
            .train(&c)
            .unwrap();
        assert_eq!((e.len(), e.word(0)), (1, "a"));
        let empty = Trainer::builder()
            .dim(4)
            .build()
            .unwrap()
            .train(&Corpus::new())
            .unwrap();
        assert!(empty.is_empty());
        for bad in [
            Trainer::builder().dim(0).build(),
            Trainer::builder().window(0).build(),
            Trainer::builder().negative(0).build(),
            Trainer::builder().epochs(0).build(),
            Trainer::builder().min_count(0).build(),
            Trainer::builder().learning_rate(f32::NAN).build(),
            Trainer::builder().batch(0).build(),
        ] {
            assert!(matches!(bad, Err(EmbedError::InvalidParameter { .. })));
        }
    }
}
