//! `reuse_view/add`: the corpus view of `textreuse reuse` (`textreuse_reuse::CorpusView`) given
//! 200,000 pairs with one passage each over 1,000,000 documents (pairs of neighbours, as in
//! `benches/scripts/synth_pairs.py`, and one pair in ten joining two random documents), then
//! summarized as `corpus.json` is.
//!
//! * `memory`: the article graph in memory (no bound).
//! * `disk`: the article graph in a temporary file from the first article (a bound of 0 bytes),
//!   as under `--max-memory` once the graph passes its share.
//!
//! Run with `cargo bench -p textreuse-benches --bench reuse_view`.
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use textreuse_corpus::Document;
use textreuse_hash::mix64;
use textreuse_reuse::{CaseView, CorpusView, ReuseKind};

const DOCUMENTS: u64 = 1_000_000;
const PAIRS: u64 = 200_000;

/// The pairs, reproducible: `(2i, 2i + 1)`, and every tenth between two random documents.
fn pairs() -> Vec<(usize, usize)> {
    (0..PAIRS)
        .map(|i| {
            if i % 10 == 9 {
                let h = mix64(i ^ 0x5eed);
                ((h % DOCUMENTS) as usize, ((h >> 32) % DOCUMENTS) as usize)
            } else {
                (2 * i as usize, 2 * i as usize + 1)
            }
        })
        .filter(|(a, b)| a != b)
        .collect()
}

fn view(c: &mut Criterion) {
    let pairs = pairs();
    let doc = |n: usize| Document::new(n as u64, format!("Article number {n}"), "");
    let case = |n: usize| CaseView {
        suspicious: 0..200 + n % 100,
        source: 0..200 + n % 100,
        kind: ReuseKind::Structure,
        words: 40,
        jaccard_2: 0.8,
        jaccard_10: 0.5,
    };
    let dir = std::env::temp_dir();
    let mut group = c.benchmark_group("reuse_view");
    group.sample_size(10);
    group.throughput(Throughput::Elements(pairs.len() as u64));
    for (name, bound) in [("memory", u64::MAX), ("disk", 0)] {
        group.bench_function(format!("add/{name}"), |b| {
            b.iter_batched(
                || {
                    CorpusView::builder()
                        .articles_memory(bound)
                        .tmp_dir(Some(dir.clone()))
                        .build()
                },
                |mut view| {
                    for &(a, b) in &pairs {
                        view.add((a, &doc(a)), (b, &doc(b)), [case(a)]).unwrap();
                    }
                    view.summary().unwrap()
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, view);
criterion_main!(benches);
