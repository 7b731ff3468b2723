//! `minhash/sign`: signing ready-made shingle fingerprints, in sentences per second;
//! `minhash/sign_text` and `minhash/stage2` start from sentence text.
//! `TEXTREUSE_BENCH_CPU_TIME=1` measures thread CPU time instead of wall time (see the lib).
//!
//! Sentence lengths span Wikipedia's 75..=600 shingles (the median kept sentence has about 150),
//! N spans the research's 20 up to 128. `naive` is the obvious scalar loop (one pass over the
//! shingles per hash function) for comparison.
use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use textreuse_minhash::{BandScheme, SignerBuilder};

fn shingles(len: usize, salt: u64) -> Vec<u64> {
    (0..len as u64)
        .map(|i| textreuse_hash::mix64(i ^ (salt << 32)))
        .collect()
}

fn sign<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("minhash/sign");
    for n in [20usize, 64, 128] {
        let signer = SignerBuilder::new().hashes(n).build().unwrap();
        for len in [75usize, 150, 300, 600] {
            let input = shingles(len, 1);
            let mut out = vec![0u64; n];
            group.throughput(Throughput::Elements(1));
            group.bench_with_input(
                BenchmarkId::new(format!("n{n}"), len),
                &input,
                |b, input| b.iter(|| signer.sign_into(black_box(input), &mut out).unwrap()),
            );
            if len == 150 {
                let family = signer
                    .family()
                    .expect("drawn bands hash with a family")
                    .clone();
                group.bench_with_input(
                    BenchmarkId::new(format!("naive-n{n}"), len),
                    &input,
                    |b, input| {
                        b.iter(|| {
                            for (i, o) in out.iter_mut().enumerate() {
                                *o = black_box(input)
                                    .iter()
                                    .map(|&x| family.hash(i, x))
                                    .min()
                                    .unwrap();
                            }
                        })
                    },
                );
            }
        }
    }
    group.finish();
}

/// Real Wikipedia sentences of 75..=600 shingles (`testdata/shingle/wiki-articles.txt`).
fn wiki_sentences() -> Vec<&'static str> {
    const TEXT: &str = include_str!("../../testdata/shingle/wiki-articles.txt");
    textreuse_shingle::sentences(TEXT)
        .map(|s| s.as_str())
        .filter(|s| (75..=600).contains(&textreuse_shingle::char_shingle_count(s, 12)))
        .collect()
}

/// `minhash/sign_text`: from raw sentence text to a signature (12-character shingle
/// fingerprints, then N = 20 minhashes), over every kept sentence of three real articles.
fn sign_text<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("minhash/sign_text");
    let sentences = wiki_sentences();
    let signer = SignerBuilder::new().build().unwrap();
    let mut shingles = Vec::new();
    let mut out = vec![0u64; signer.hashes()];
    group.throughput(Throughput::Elements(sentences.len() as u64));
    group.bench_function(BenchmarkId::new("n20-l12", sentences.len()), |b| {
        b.iter(|| {
            for s in &sentences {
                textreuse_shingle::char_shingle_fingerprints(black_box(s), 12, &mut shingles);
                signer.sign_into(&shingles, &mut out).unwrap();
            }
        })
    });
    group.finish();
}

/// `minhash/stage2`: what stage 2 of `textreuse dedup --method minhash` does per kept sentence
/// (`cli::pipeline::dedup::process`), cumulatively, so each step's cost is the difference to the
/// previous id: normalize (`Normalize::new`), 12-character shingle fingerprints of the normalized
/// text, N = 20 minhashes, M = 10 band keys. Same sentences as `minhash/sign_text`.
fn stage2<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("minhash/stage2");
    let sentences = wiki_sentences();
    let signer = SignerBuilder::new().build().unwrap();
    let norm = textreuse_shingle::Normalize::new();
    let mut normalized = String::new();
    let mut shingles = Vec::new();
    let mut mins = vec![0u64; signer.hashes()];
    let mut keys = vec![0u64; signer.bands()];
    group.throughput(Throughput::Elements(sentences.len() as u64));
    for steps in 1..=4 {
        let id = ["normalize", "+shingles", "+sign", "+band_keys"][..steps].concat();
        group.bench_function(BenchmarkId::new(id, sentences.len()), |b| {
            b.iter(|| {
                for s in &sentences {
                    textreuse_shingle::normalize(black_box(s), &norm, &mut normalized);
                    if steps >= 2 {
                        textreuse_shingle::char_shingle_fingerprints(
                            &normalized,
                            12,
                            &mut shingles,
                        );
                    }
                    if steps >= 3 {
                        signer.sign_into(&shingles, &mut mins).unwrap();
                    }
                    if steps >= 4 {
                        signer.band_keys_into(&mins, &mut keys);
                    }
                }
                black_box((&normalized, &shingles, &mins, &keys));
            })
        });
    }
    group.finish();
}

/// `minhash/scheme`: the same sentences signed by each scheme, in sentences per second. `weissman`
/// is the research's N = 20 drawn functions; `oph-k11-m13` one-permutation hashing into 143
/// bins (the curve that finds 99% of pairs at J = 0.9); `oph-k10-m10` 100 bins;
/// `disjoint-k11-m13` classic MinHash with 143 functions, the same curve the slow way.
fn scheme<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("minhash/scheme");
    let build = |scheme, k, m| {
        let mut b = SignerBuilder::new();
        b.scheme(scheme).rows(k).bands(m);
        b.build().unwrap()
    };
    let signers = [
        ("weissman-n20", SignerBuilder::new().build().unwrap()),
        ("oph-k11-m13", build(BandScheme::Oph, 11, 13)),
        ("oph-k10-m10", build(BandScheme::Oph, 10, 10)),
        ("disjoint-k11-m13", build(BandScheme::Disjoint, 11, 13)),
    ];
    for len in [75usize, 150, 300, 600] {
        let input = shingles(len, 3);
        for (name, signer) in &signers {
            let mut out = vec![0u64; signer.hashes()];
            group.throughput(Throughput::Elements(1));
            group.bench_with_input(BenchmarkId::new(*name, len), &input, |b, input| {
                b.iter(|| signer.sign_into(black_box(input), &mut out).unwrap())
            });
        }
    }
    group.finish();
}

fn band_keys<M: Measurement>(c: &mut Criterion<M>) {
    let mut group = c.benchmark_group("minhash/band_keys");
    for (name, scheme, k, m) in [
        ("n20-k10-m10", BandScheme::Drawn, 10, 10),
        ("oph-k11-m13", BandScheme::Oph, 11, 13),
    ] {
        let signer = SignerBuilder::new()
            .scheme(scheme)
            .rows(k)
            .bands(m)
            .build()
            .unwrap();
        let sig = signer.sign(shingles(150, 2)).unwrap();
        let mut keys = vec![0u64; signer.bands()];
        group.throughput(Throughput::Elements(1));
        group.bench_function(name, |b| {
            b.iter(|| signer.band_keys_into(black_box(sig.as_slice()), &mut keys))
        });
    }
    group.finish();
}

textreuse_benches::cpu_or_wall_main!(sign, sign_text, stage2, scheme, band_keys);
