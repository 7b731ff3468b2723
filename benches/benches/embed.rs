//! `embed/sentence_vectors`: sentence vectors (mean of 100-dimensional word vectors, centered)
//! and their random projection onto D = 100 and 256 hyperplanes, one sentence at a time on one
//! thread, against the row-by-row dot products the projection did before it signed column by
//! column. `embed/clean`: the paper's cleaning (stop words, non-words, Snowball stems) of
//! sentences of the bundled sample. Throughput in sentences.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use textreuse_embed::{Cleaner, Corpus, Embeddings};
use textreuse_hash::mix64;
use textreuse_simhash::Hyperplanes;

const DIM: usize = 100;
const SENTENCES: usize = 10_000;

/// 50,000 words with pseudo-random vectors, and 10,000 sentences of 12 words (ids skewed
/// towards frequent words, as text is).
fn setup() -> (Embeddings, Corpus) {
    let mut e = Embeddings::new(DIM).unwrap();
    let mut v = vec![0f32; DIM];
    for w in 0..50_000u64 {
        for (i, x) in v.iter_mut().enumerate() {
            *x = (mix64(w << 8 | i as u64) >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
        }
        e.push(&format!("w{w}"), &v).unwrap();
    }
    let mut corpus = Corpus::new();
    let mut words = Vec::new();
    for s in 0..SENTENCES as u64 {
        words.clear();
        for k in 0..12 {
            let r = mix64(s << 8 | k);
            // Squaring a uniform draw skews it towards small ids.
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            words.push(format!("w{}", (u * u * 50_000.0) as u64));
        }
        corpus.push(&words);
    }
    (e, corpus)
}

/// The projection as it was: one dot product per hyperplane.
fn row_major(planes: &Hyperplanes, v: &[f64], out: &mut [u64]) {
    out.fill(0);
    for b in 0..planes.bits() as usize {
        let mut s = 0.0;
        for (&p, &x) in planes.plane(b).unwrap().iter().zip(v) {
            s += x * p;
        }
        if s > 0.0 {
            out[b / 64] |= 1 << (b % 64);
        }
    }
}

fn sentence_vectors(c: &mut Criterion) {
    let (embeddings, corpus) = setup();
    let encoder = embeddings.encoder(corpus.vocabulary()).centered(&corpus);
    let mut group = c.benchmark_group("embed/sentence_vectors");
    group.throughput(Throughput::Elements(SENTENCES as u64));
    let mut mean = vec![0.0f64; DIM];
    group.bench_function(BenchmarkId::new("mean-100d", SENTENCES), |b| {
        b.iter(|| {
            let mut known = 0;
            for i in 0..corpus.len() {
                known += encoder
                    .mean_into(black_box(corpus.sentence(i)), &mut mean)
                    .unwrap();
            }
            known
        })
    });
    for bits in [100u32, 256] {
        let planes = Hyperplanes::new(DIM, bits, 1123456).unwrap();
        let mut sig = vec![0u64; planes.words()];
        group.bench_function(
            BenchmarkId::new(format!("mean+project-100d-D{bits}"), SENTENCES),
            |b| {
                b.iter(|| {
                    let mut x = 0;
                    for i in 0..corpus.len() {
                        encoder
                            .mean_into(black_box(corpus.sentence(i)), &mut mean)
                            .unwrap();
                        planes.sign_into(&mean, &mut sig).unwrap();
                        x ^= sig[0];
                    }
                    x
                })
            },
        );
        group.bench_function(
            BenchmarkId::new(format!("mean+rows-baseline-100d-D{bits}"), SENTENCES),
            |b| {
                b.iter(|| {
                    let mut x = 0;
                    for i in 0..corpus.len() {
                        encoder
                            .mean_into(black_box(corpus.sentence(i)), &mut mean)
                            .unwrap();
                        row_major(&planes, &mean, &mut sig);
                        x ^= sig[0];
                    }
                    x
                })
            },
        );
    }
    group.finish();
}

fn clean(c: &mut Criterion) {
    // Plain sentences of a fixed text, so the bench needs no input file.
    let text = "The old mill on the river was built in 1820 and still grinds grain for the \
                village bakery, whose ovens were rebuilt after the great flood of 1911 destroyed \
                the lower town and most of its bridges.";
    let sentences: Vec<String> = (0..1000).map(|i| format!("{text} Number {i}.")).collect();
    let cleaner = Cleaner::new();
    let mut words = Vec::new();
    let mut group = c.benchmark_group("embed/clean");
    group.throughput(Throughput::Elements(sentences.len() as u64));
    group.bench_function(BenchmarkId::new("stem", sentences.len()), |b| {
        b.iter(|| {
            let mut n = 0;
            for s in &sentences {
                cleaner.words(black_box(s), &mut words);
                n += words.len();
            }
            n
        })
    });
    group.finish();
}

criterion_group!(benches, sentence_vectors, clean);
criterion_main!(benches);
