//! `unionfind/union`: 10^7 random unions over 10^7 elements.
//!
//! * `dense`: `UnionFind::union` (union by size, path halving) on `u32` indices.
//! * `naive`: the textbook baseline without balancing or path compression (link the first root
//!   below the second, walk to the root on every find).
//! * `sparse`: `Clustering::union` on sparse `u64` ids (hash-map lookups into dense indices), the
//!   way the dedup pipeline calls it with packed sentence ids.
//!
//! Run with `cargo bench -p textreuse-benches --bench unionfind`.
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use textreuse_hash::mix64;
use textreuse_unionfind::{Clustering, UnionFind};

const N: u32 = 10_000_000;
const UNIONS: usize = 10_000_000;

/// Random pairs of indices `< N`, reproducible.
fn pairs() -> Vec<(u32, u32)> {
    (0..UNIONS as u64)
        .map(|i| {
            let h = mix64(i ^ 0x5eed);
            ((h as u32) % N, ((h >> 32) as u32) % N)
        })
        .collect()
}

/// The baseline: no union by size, no path compression.
struct Naive {
    parent: Vec<u32>,
}

impl Naive {
    fn find(&self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            x = self.parent[x as usize];
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent[ra as usize] = rb;
        }
        ra != rb
    }
}

fn union(c: &mut Criterion) {
    let pairs = pairs();
    let mut group = c.benchmark_group("unionfind/union");
    group.sample_size(10);
    group.throughput(Throughput::Elements(UNIONS as u64));
    let id = |name: &str| BenchmarkId::new(name, UNIONS);

    group.bench_function(id("dense"), |b| {
        b.iter_batched_ref(
            || UnionFind::new(N),
            |uf| pairs.iter().filter(|&&(x, y)| uf.union(x, y)).count(),
            BatchSize::PerIteration,
        )
    });
    group.bench_function(id("naive"), |b| {
        b.iter_batched_ref(
            || Naive {
                parent: (0..N).collect(),
            },
            |uf| pairs.iter().filter(|&&(x, y)| uf.union(x, y)).count(),
            BatchSize::PerIteration,
        )
    });
    // Sparse ids spread like packed (doc << 32 | idx) sentence ids.
    let sparse: Vec<(u64, u64)> = pairs
        .iter()
        .map(|&(x, y)| {
            let id = |v: u32| ((v / 40) as u64) << 32 | (v % 40) as u64;
            (id(x), id(y))
        })
        .collect();
    group.bench_function(id("sparse"), |b| {
        b.iter_batched_ref(
            Clustering::new,
            |c| {
                sparse
                    .iter()
                    .filter(|&&(x, y)| c.union(x, y).unwrap_or(false))
                    .count()
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, union);
criterion_main!(benches);
