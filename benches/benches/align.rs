//! `align/pair`: document pairs aligned per second, on the PAN 2013 slice in `testdata/align`.
//!
//! `sentences` is the default aligner (tf-idf sentence seeds, as the PAN 2014 winner); the
//! baseline `word-3grams` seeds with exact word 3-gram matches only (the classic PAN baseline
//! seeding), which is cheaper but misses obfuscated reuse.
//!
//! `align/document`: bytes of text per second made ready for alignment, by tokenizing
//! (`prepare`), or by reading back the bytes `encode` wrote (`decode`), as `textreuse reuse`
//! does for a document in many pairs.
use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use textreuse_align::{Aligner, Prepared};

fn slice() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/align");
    let pairs = std::fs::read_to_string(dir.join("pairs")).expect("testdata/align/pairs");
    pairs
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(susp, src)| {
            let read = |d: &str, f: &str| std::fs::read_to_string(dir.join(d).join(f)).unwrap();
            (read("src", src), read("susp", susp))
        })
        .collect()
}

fn pair(c: &mut Criterion) {
    let pairs = slice();
    let bytes: usize = pairs.iter().map(|(a, b)| a.len() + b.len()).sum();
    let mut g = c.benchmark_group("align/pair");
    g.throughput(Throughput::Elements(pairs.len() as u64));
    let ours = Aligner::new();
    let baseline = Aligner::builder()
        .sentence_seeds(false)
        .ngram(Some(3))
        .build()
        .unwrap();
    for (name, aligner) in [("sentences", &ours), ("word-3grams", &baseline)] {
        g.bench_function(BenchmarkId::new(name, bytes), |b| {
            b.iter(|| {
                let mut n = 0;
                for (src, susp) in &pairs {
                    n += aligner.align(black_box(src), black_box(susp)).len();
                }
                n
            })
        });
    }
    g.finish();
}

fn document(c: &mut Criterion) {
    let pairs = slice();
    let texts: Vec<&str> = pairs
        .iter()
        .flat_map(|(a, b)| [a.as_str(), b.as_str()])
        .collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let aligner = Aligner::new();
    let encoded: Vec<Vec<u8>> = texts
        .iter()
        .map(|t| {
            let mut out = Vec::new();
            aligner.prepare(t).encode(&mut out);
            out
        })
        .collect();
    let mut g = c.benchmark_group("align/document");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("prepare", |b| {
        b.iter(|| {
            let mut n = 0;
            for t in &texts {
                n += aligner.prepare(black_box(t)).text().len();
            }
            n
        })
    });
    g.bench_function("encode", |b| {
        let prepared: Vec<Prepared<'_>> = texts.iter().map(|t| aligner.prepare(t)).collect();
        let mut out = Vec::new();
        b.iter(|| {
            for p in &prepared {
                out.clear();
                black_box(p).encode(&mut out);
            }
            out.len()
        })
    });
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut n = 0;
            for (t, e) in texts.iter().zip(&encoded) {
                n += Prepared::decode(t, black_box(e)).unwrap().text().len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, pair, document);
criterion_main!(benches);
