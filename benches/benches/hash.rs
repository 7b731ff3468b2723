//! `hash/multiply_shift` (keys per second through a family of N functions) and
//! `hash/fingerprint` (bytes per second of the stable string fingerprint).
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hash::{BuildHasher, Hasher};
use std::hint::black_box;
use textreuse_hash::{Family, FamilyKind, fingerprint};

fn multiply_shift(c: &mut Criterion) {
    let mut group = c.benchmark_group("hash/multiply_shift");
    let keys: Vec<u64> = (0..1024u64).map(textreuse_hash::mix64).collect();
    for n in [20usize, 64, 128] {
        let family = Family::new(FamilyKind::MultiplyAddShift, n, 60, 1123456).unwrap();
        let mut out = vec![0u64; n];
        group.throughput(Throughput::Elements((keys.len() * n) as u64));
        group.bench_with_input(BenchmarkId::new("hash_all", n), &keys, |b, keys| {
            b.iter(|| {
                for &k in keys {
                    family.hash_all(black_box(k), &mut out);
                    black_box(&out);
                }
            })
        });
    }
    group.finish();
}

fn fingerprint_bytes(c: &mut Criterion) {
    let mut group = c.benchmark_group("hash/fingerprint");
    let text = "The quick brown fox jumps over the lazy dog. ".repeat(40);
    for len in [12usize, 48, 1024] {
        let input = &text.as_bytes()[..len];
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(
            BenchmarkId::new("vector-multiply-shift", len),
            input,
            |b, i| b.iter(|| fingerprint(black_box(i))),
        );
        // Baseline: std's SipHash-1-3 (randomly keyed, so not usable for stable keys).
        let state = std::collections::hash_map::RandomState::new();
        group.bench_with_input(BenchmarkId::new("std-siphash", len), input, |b, i| {
            b.iter(|| {
                let mut h = state.build_hasher();
                h.write(black_box(i));
                h.finish()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, multiply_shift, fingerprint_bytes);
criterion_main!(benches);
