//! `minhash/sign`: signing ready-made shingle fingerprints, in sentences per second.
//!
//! Sentence lengths span Wikipedia's 75..=600 shingles (the median kept sentence has about 150),
//! N spans the research's 20 up to 128. `naive` is the obvious scalar loop (one pass over the
//! shingles per hash function) for comparison.
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use textreuse_minhash::SignerBuilder;

fn shingles(len: usize, salt: u64) -> Vec<u64> {
    (0..len as u64)
        .map(|i| textreuse_hash::mix64(i ^ (salt << 32)))
        .collect()
}

fn sign(c: &mut Criterion) {
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
                let family = signer.family().clone();
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

fn band_keys(c: &mut Criterion) {
    let mut group = c.benchmark_group("minhash/band_keys");
    let signer = SignerBuilder::new().build().unwrap();
    let sig = signer.sign(shingles(150, 2)).unwrap();
    let mut keys = vec![0u64; signer.bands()];
    group.throughput(Throughput::Elements(1));
    group.bench_function("n20-k10-m10", |b| {
        b.iter(|| signer.band_keys_into(black_box(sig.as_slice()), &mut keys))
    });
    group.finish();
}

criterion_group!(benches, sign, band_keys);
criterion_main!(benches);
