//! Benches of textreuse-shingle on real Wikipedia prose (`testdata/shingle/wiki-articles.txt`,
//! 168 KB of three articles, CC BY-SA), in MB/s of input text.
//!
//! * `shingle/sentences`: our splitter against unicode-segmentation's UAX #29 sentence bounds.
//! * `shingle/char_shingles`: sentence splitting plus 12-char shingle fingerprints per sentence
//!   (the dedup pipeline's hot path), the same with deduplication, and the naive baseline that
//!   collects every shingle of a sentence as a `String` into a `HashSet`.
//!
//! Run: `cargo bench -p textreuse-benches --bench shingle`. On a shared, loaded machine set
//! `TEXTREUSE_BENCH_CPU_TIME=1` to measure the benchmark thread's CPU time (Linux
//! `CLOCK_THREAD_CPUTIME_ID`) instead of wall time: per-core throughput that does not count
//! the time other processes hold the core.
use std::collections::HashSet;
use std::hint::black_box;

use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, Throughput};
use textreuse_shingle::{
    CharShingles, char_shingle_fingerprints, dedup_fingerprints, sentences, words,
};
use unicode_segmentation::UnicodeSegmentation;

const TEXT: &str = include_str!("../../testdata/shingle/wiki-articles.txt");

fn bench_sentences<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group("shingle/sentences");
    g.throughput(Throughput::Bytes(TEXT.len() as u64));
    g.bench_function(BenchmarkId::new("ours", TEXT.len()), |b| {
        b.iter(|| sentences(black_box(TEXT)).count())
    });
    g.bench_function(BenchmarkId::new("uax29-baseline", TEXT.len()), |b| {
        b.iter(|| black_box(TEXT).unicode_sentences().count())
    });
    g.bench_function(BenchmarkId::new("words", TEXT.len()), |b| {
        b.iter(|| words(black_box(TEXT)).count())
    });
    g.finish();
}

fn bench_char_shingles<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group("shingle/char_shingles");
    g.throughput(Throughput::Bytes(TEXT.len() as u64));
    g.bench_function(
        BenchmarkId::new("sentences+fingerprints-L12", TEXT.len()),
        |b| {
            let mut fps = Vec::with_capacity(1024);
            b.iter(|| {
                let mut total = 0;
                for s in sentences(black_box(TEXT)) {
                    total += char_shingle_fingerprints(s.as_str(), 12, &mut fps);
                }
                total
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("sentences+fingerprints+dedup-L12", TEXT.len()),
        |b| {
            let mut fps = Vec::with_capacity(1024);
            b.iter(|| {
                let mut total = 0;
                for s in sentences(black_box(TEXT)) {
                    char_shingle_fingerprints(s.as_str(), 12, &mut fps);
                    total += dedup_fingerprints(&mut fps);
                }
                total
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("fingerprints-whole-text-L12", TEXT.len()),
        |b| {
            let mut fps = Vec::with_capacity(TEXT.len());
            b.iter(|| char_shingle_fingerprints(black_box(TEXT), 12, &mut fps))
        },
    );
    g.bench_function(BenchmarkId::new("iterator-spans-L12", TEXT.len()), |b| {
        b.iter(|| {
            CharShingles::new(black_box(TEXT), 12)
                .map(|s| s.fingerprint)
                .fold(0u64, |a, f| a ^ f)
        })
    });
    g.bench_function(
        BenchmarkId::new("hashset-string-baseline-L12", TEXT.len()),
        |b| {
            b.iter(|| {
                let mut total = 0;
                for s in sentences(black_box(TEXT)) {
                    let chars: Vec<char> = s.as_str().chars().collect();
                    let set: HashSet<String> =
                        chars.windows(12).map(|w| w.iter().collect()).collect();
                    total += set.len();
                }
                total
            })
        },
    );
    g.finish();
}

textreuse_benches::cpu_or_wall_main!(bench_sentences, bench_char_shingles);
