//! `simhash/fingerprint`: SimHash fingerprints of sparse features, against a naive per-bit hash.
//! `simhash/paragraph`: Wang, Liu and Jia's paragraph fingerprint sets of the bundled sample
//! dumps' documents (cleaned as `textreuse docsim` reads them), against the weighted method and
//! against hashing the same bytes once; `simhash/sets`: every pair of those documents with
//! `S >= 0.8`. Throughput in bytes of document text (fingerprints) and documents (search).
//! `simhash/search`: all pairs within k = 3 bits among 10^6 fingerprints (exact tables, sliding
//! window), against brute force on 2*10^4 (quadratic, so it is run smaller; all throughputs are
//! in pairs of the all-pairs problem, n(n-1)/2, so they compare directly).

use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, Throughput};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use std::hint::black_box;
use textreuse_corpus::{Inputs, NoProgress};
use textreuse_dedup::pipeline::DocumentPipeline;
use textreuse_hash::{Family, FamilyKind, mix64};
use textreuse_simhash::{
    FingerprintSet, ParagraphFingerprinter, ParagraphScratch, Projection, SetSearch, SimHasher,
    TableSearch, WindowSearch, brute_force_pairs,
};

/// The naive implicit-hyperplane SimHash: one multiply-add-shift hash per (feature, bit) decides
/// the sign, i.e. 64 hash evaluations per feature instead of one mixed key.
fn naive_fingerprint(family: &Family, features: &[u64]) -> u64 {
    let mut acc = [0i32; 64];
    for &f in features {
        for (j, a) in acc.iter_mut().enumerate() {
            *a += if family.hash(j, f) == 1 { 1 } else { -1 };
        }
    }
    acc.iter()
        .enumerate()
        .fold(0, |out, (j, &a)| out | (((a > 0) as u64) << j))
}

fn fingerprint<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("simhash/fingerprint");
    // 1000 "sentences" of 20 word features each (a typical sentence length).
    let lists: Vec<Vec<u64>> = (0..1000u64)
        .map(|s| (0..20).map(|w| mix64(s * 1000 + w)).collect())
        .collect();
    let weighted: Vec<Vec<(u64, f32)>> = lists
        .iter()
        .map(|l| l.iter().map(|&f| (f, 1.0 + (f % 7) as f32)).collect())
        .collect();
    let features = 20_000u64;
    group.throughput(Throughput::Elements(features));
    let sign = SimHasher::new();
    let gauss = SimHasher::builder()
        .projection(Projection::Gaussian)
        .build()
        .unwrap();
    group.bench_function(BenchmarkId::new("sign-unweighted-batch", features), |b| {
        b.iter(|| black_box(sign.fingerprint_lists(black_box(&lists))))
    });
    group.bench_function(BenchmarkId::new("sign-weighted", features), |b| {
        b.iter(|| {
            let mut x = 0;
            for l in &weighted {
                x ^= sign.fingerprint(black_box(l).iter().copied());
            }
            x
        })
    });
    group.bench_function(BenchmarkId::new("gaussian-weighted", features), |b| {
        b.iter(|| {
            let mut x = 0;
            for l in &weighted {
                x ^= gauss.fingerprint(black_box(l).iter().copied());
            }
            x
        })
    });
    let family = Family::new(FamilyKind::MultiplyAddShift, 64, 1, 1123456).unwrap();
    group.bench_function(BenchmarkId::new("naive-per-bit-hash", features), |b| {
        b.iter(|| {
            let mut x = 0;
            for l in &lists {
                x ^= naive_fingerprint(&family, black_box(l));
            }
            x
        })
    });
    group.finish();
}

/// `n` fingerprints: random ones with near-duplicates planted (one in 20 is a copy of an earlier
/// one with 0-3 bits flipped), the shape dedup sees.
fn fingerprints(n: usize) -> Vec<u64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut out: Vec<u64> = Vec::with_capacity(n);
    while out.len() < n {
        if out.len() > 10 && rng.next_u64() % 20 == 0 {
            let mut x = out[(rng.next_u64() % out.len() as u64) as usize];
            for _ in 0..rng.next_u64() % 4 {
                x ^= 1 << (rng.next_u64() % 64);
            }
            out.push(x);
        } else {
            out.push(rng.next_u64());
        }
    }
    out
}

fn all_pairs(n: usize) -> u64 {
    (n as u64) * (n as u64 - 1) / 2
}

fn search<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("simhash/search");
    group.sample_size(10);
    let small = fingerprints(20_000);
    let big = fingerprints(1_000_000);
    group.throughput(Throughput::Elements(all_pairs(small.len())));
    group.bench_function(BenchmarkId::new("brute-force-k3", small.len()), |b| {
        b.iter(|| black_box(brute_force_pairs(black_box(&small), 3).unwrap()))
    });
    let table = TableSearch::new(3).unwrap();
    group.bench_function(BenchmarkId::new("table-k3", small.len()), |b| {
        b.iter(|| black_box(table.pairs(black_box(&small)).unwrap()))
    });
    group.throughput(Throughput::Elements(all_pairs(big.len())));
    group.bench_function(BenchmarkId::new("table-k3", big.len()), |b| {
        b.iter(|| black_box(table.pairs(black_box(&big)).unwrap()))
    });
    let window = WindowSearch::builder().max_hamming(3).build().unwrap();
    group.bench_function(BenchmarkId::new("window-q10-b10-k3", big.len()), |b| {
        b.iter(|| black_box(window.pairs(black_box(&big)).unwrap()))
    });
    group.finish();
}

/// The documents of the bundled sample dumps, in input order, as `textreuse docsim` reads them
/// (same reader and cleaner).
fn sample_texts() -> Vec<String> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
    let samples = [
        format!("{data}/enwiki-part-201.xml.bz2"),
        format!("{data}/enwiki-sample-206.xml.bz2"),
    ];
    let mut texts = Vec::new();
    // enwiki-part-201 is damaged on purpose (see data/README.md); its complete pages still come.
    DocumentPipeline::new()
        .run(
            Inputs::new(&samples).threads(rayon::current_num_threads()),
            &NoProgress,
            || (),
            |_, _, doc| doc.text,
            |_, text| {
                texts.push(text);
                Ok(())
            },
        )
        .expect("the bundled sample dumps are readable");
    texts
}

fn paragraph<M: Measurement>(c: &mut Criterion<M>) {
    let texts = sample_texts();
    let bytes: u64 = texts.iter().map(|t| t.len() as u64).sum();
    eprintln!(
        "simhash/paragraph: {} documents, {bytes} bytes of text",
        texts.len()
    );
    let mut group = c.benchmark_group("simhash/paragraph");
    group.throughput(Throughput::Bytes(bytes));
    let wang = ParagraphFingerprinter::wang();
    let weighted = ParagraphFingerprinter::new();
    let mut scratch = ParagraphScratch::default();
    group.bench_function(BenchmarkId::new("wang-k11-m9-b32", bytes), |b| {
        b.iter(|| {
            let mut n = 0;
            for t in &texts {
                n += wang.fingerprint_set_with(black_box(t), &mut scratch).len();
            }
            n
        })
    });
    let mut out = Vec::new();
    group.bench_function(BenchmarkId::new("weighted-k5-m3-b64", bytes), |b| {
        b.iter(|| {
            let mut n = 0;
            for t in &texts {
                weighted.fingerprint_text_with(black_box(t), &mut scratch, &mut out);
                n += out.len();
            }
            n
        })
    });
    // The floor: one pass of the stable hash over the same bytes.
    group.bench_function(BenchmarkId::new("hash-bytes", bytes), |b| {
        b.iter(|| {
            let mut x = 0;
            for t in &texts {
                x ^= textreuse_hash::fingerprint(black_box(t).as_bytes());
            }
            x
        })
    });
    group.finish();

    let sets: Vec<FingerprintSet> = texts.iter().map(|t| wang.fingerprint_set(t)).collect();
    let mut group = c.benchmark_group("simhash/sets");
    group.throughput(Throughput::Elements(sets.len() as u64));
    let search = SetSearch::new();
    group.bench_function(BenchmarkId::new("pairs-r0.8", sets.len()), |b| {
        b.iter(|| black_box(search.pairs(black_box(&sets)).unwrap().len()))
    });
    group.finish();
}

textreuse_benches::cpu_or_wall_main!(fingerprint, search, paragraph);
