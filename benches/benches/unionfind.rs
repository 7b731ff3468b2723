//! `unionfind/union`: 10^7 random unions over 10^7 elements.
//!
//! * `dense`: `UnionFind::union` (union by size, path halving) on `u32` indices.
//! * `bfs`: the offline baseline, connected components by breadth-first search over a CSR
//!   adjacency list built from all pairs (what the property tests use as the reference). The
//!   textbook union-find without balancing or path compression was tried first and did not finish
//!   10^7 random unions in several minutes, so it is not a useful baseline at this size.
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

/// The baseline: connected-component labels by breadth-first search over a CSR adjacency list;
/// returns the number of components.
fn bfs_components(n: u32, pairs: &[(u32, u32)]) -> usize {
    let n = n as usize;
    let mut start = vec![0u32; n + 1];
    for &(a, b) in pairs {
        start[a as usize + 1] += 1;
        start[b as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut adj = vec![0u32; 2 * pairs.len()];
    for &(a, b) in pairs {
        adj[fill[a as usize] as usize] = b;
        fill[a as usize] += 1;
        adj[fill[b as usize] as usize] = a;
        fill[b as usize] += 1;
    }
    let mut label = vec![u32::MAX; n];
    let mut queue = Vec::new();
    let mut components = 0;
    for s in 0..n {
        if label[s] != u32::MAX {
            continue;
        }
        components += 1;
        label[s] = s as u32;
        queue.push(s as u32);
        while let Some(x) = queue.pop() {
            let x = x as usize;
            for &y in &adj[start[x] as usize..start[x + 1] as usize] {
                if label[y as usize] == u32::MAX {
                    label[y as usize] = s as u32;
                    queue.push(y);
                }
            }
        }
    }
    components
}

fn union(c: &mut Criterion) {
    let pairs = pairs();
    let mut group = c.benchmark_group("unionfind/union");
    group.sample_size(10);
    group.measurement_time(std::time::Duration::from_secs(20));
    group.throughput(Throughput::Elements(UNIONS as u64));
    let id = |name: &str| BenchmarkId::new(name, UNIONS);

    group.bench_function(id("dense"), |b| {
        b.iter_batched_ref(
            || UnionFind::new(N),
            |uf| pairs.iter().filter(|&&(x, y)| uf.union(x, y)).count(),
            BatchSize::PerIteration,
        )
    });
    group.bench_function(id("bfs"), |b| b.iter(|| bfs_components(N, &pairs)));
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
