use std::collections::VecDeque;

use proptest::prelude::*;

use super::*;

/// Naive connected components by breadth-first search: for every node, the smallest node of its
/// component.
fn bfs_components(n: usize, edges: &[(u32, u32)]) -> Vec<u32> {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges {
        adj[a as usize].push(b);
        adj[b as usize].push(a);
    }
    let mut comp = vec![u32::MAX; n];
    for start in 0..n {
        if comp[start] != u32::MAX {
            continue;
        }
        // Nodes are visited in increasing start order, so `start` is the component's minimum.
        comp[start] = start as u32;
        let mut queue = VecDeque::from([start]);
        while let Some(x) = queue.pop_front() {
            for &y in &adj[x] {
                if comp[y as usize] == u32::MAX {
                    comp[y as usize] = start as u32;
                    queue.push_back(y as usize);
                }
            }
        }
    }
    comp
}

/// The canonical cluster list from a component labelling, mapped through `ids`.
fn naive_clusters(comp: &[u32], ids: &[u64], min_size: usize) -> Vec<(u64, Vec<u64>)> {
    let mut groups: std::collections::BTreeMap<u32, Vec<u64>> = Default::default();
    for (i, &c) in comp.iter().enumerate() {
        groups.entry(c).or_default().push(ids[i]);
    }
    let mut out: Vec<(u64, Vec<u64>)> = groups
        .into_values()
        .filter(|m| m.len() >= min_size.max(1))
        .map(|mut m| {
            m.sort_unstable();
            (m[0], m)
        })
        .collect();
    out.sort();
    out
}

fn listed(clusters: &Clusters) -> Vec<(u64, Vec<u64>)> {
    clusters
        .iter()
        .map(|c| (c.id(), c.members().to_vec()))
        .collect()
}

fn graph() -> impl Strategy<Value = (usize, Vec<(u32, u32)>)> {
    (1usize..120).prop_flat_map(|n| {
        let edge = (0..n as u32, 0..n as u32);
        (Just(n), proptest::collection::vec(edge, 0..200))
    })
}

proptest! {
    #[test]
    fn dense_matches_bfs((n, edges) in graph(), min_size in 0usize..4) {
        let mut uf = UnionFind::new(n as u32);
        for &(a, b) in &edges {
            uf.union(a, b);
        }
        let comp = bfs_components(n, &edges);
        for i in 0..n as u32 {
            for j in [0, i / 2, n as u32 - 1] {
                prop_assert_eq!(uf.connected(i, j), comp[i as usize] == comp[j as usize]);
            }
        }
        let distinct: std::collections::BTreeSet<u32> = comp.iter().copied().collect();
        prop_assert_eq!(uf.num_sets(), distinct.len());
        let ids: Vec<u64> = (0..n as u64).collect();
        prop_assert_eq!(listed(&uf.clusters(min_size)), naive_clusters(&comp, &ids, min_size));
    }

    #[test]
    fn sparse_matches_bfs((n, edges) in graph(), salt in any::<u64>(), min_size in 0usize..4) {
        // Distinct sparse ids in an order unrelated to the dense order.
        let ids: Vec<u64> = (0..n as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ salt)
            .collect();
        let mut c = Clustering::new();
        for &id in &ids {
            c.insert(id).unwrap();
        }
        for &(a, b) in &edges {
            c.union(ids[a as usize], ids[b as usize]).unwrap();
        }
        let comp = bfs_components(n, &edges);
        let got = listed(&c.clusters(min_size));
        prop_assert_eq!(got, naive_clusters(&comp, &ids, min_size));
    }

    #[test]
    fn order_of_unions_does_not_matter((_n, mut edges) in graph(), seed in any::<u64>()) {
        let mut first = Clustering::new();
        for &(a, b) in &edges {
            first.union(a as u64 * 3, b as u64 * 3).unwrap();
        }
        // A deterministic shuffle, and each pair flipped.
        let mut s = seed | 1;
        for i in (1..edges.len()).rev() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            edges.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let mut second = Clustering::new();
        for &(a, b) in &edges {
            second.union(b as u64 * 3, a as u64 * 3).unwrap();
        }
        prop_assert_eq!(first.clusters(1), second.clusters(1));
    }

    #[test]
    fn id_map_round_trips(ids in proptest::collection::vec(any::<u64>(), 0..100)) {
        let mut map = IdMap::new();
        for &id in &ids {
            let d = map.insert(id).unwrap();
            prop_assert_eq!(map.sparse(d), Some(id));
            prop_assert_eq!(map.get(id), Some(d));
        }
        let distinct: std::collections::BTreeSet<u64> = ids.iter().copied().collect();
        prop_assert_eq!(map.len(), distinct.len());
    }
}

#[test]
fn set_sizes_and_counts() {
    let mut uf = UnionFind::with_capacity(4);
    for _ in 0..6 {
        uf.push().unwrap();
    }
    assert!(uf.union(0, 1));
    assert!(uf.union(2, 3));
    assert!(uf.union(1, 3));
    assert!(!uf.union(0, 2));
    assert_eq!(uf.set_size(2), 4);
    assert_eq!(uf.num_sets(), 3);
    assert_eq!(uf.root(3), uf.find(0));
    let clusters = uf.clusters(2);
    assert_eq!(listed(&clusters), vec![(0, vec![0, 1, 2, 3])]);
    assert_eq!(clusters.num_members(), 4);
    assert_eq!(uf.clusters(0).len(), 3);
}

#[test]
fn long_chain_stays_shallow() {
    // A path 0-1-2-...: union by size keeps every find short even before halving.
    let n = 100_000u32;
    let mut uf = UnionFind::new(n);
    for i in 1..n {
        uf.union(i - 1, i);
    }
    let depth = |uf: &UnionFind, mut x: u32| {
        let mut d = 0;
        while uf.parent[x as usize] != x {
            x = uf.parent[x as usize];
            d += 1;
        }
        d
    };
    assert!((0..n).map(|x| depth(&uf, x)).max().unwrap() <= 17);
    assert_eq!(uf.num_sets(), 1);
}

/// Known answer: cluster ids and order are pinned (the smallest member, ascending ids).
#[test]
fn known_answer_cluster_ids() {
    let mut c = Clustering::new();
    let pairs = [
        (5u64 << 32 | 7, 2u64 << 32 | 1),
        (9, 5u64 << 32 | 7),
        (3, 4),
        (4, 3),
    ];
    for (a, b) in pairs {
        c.union(a, b).unwrap();
    }
    c.insert(1).unwrap();
    let got = listed(&c.clusters(0));
    assert_eq!(
        got,
        vec![
            (1, vec![1]),
            (3, vec![3, 4]),
            (9, vec![9, 2 << 32 | 1, 5 << 32 | 7]),
        ]
    );
    assert!(c.connected(9, 2 << 32 | 1));
    assert!(!c.connected(9, 12345));
}

#[test]
#[should_panic(expected = "out of range")]
fn out_of_range_panics() {
    UnionFind::new(3).find(3);
}

/// Clusters pushed one by one are the list union-find makes of the same components.
#[test]
fn pushed_clusters_equal_listed_ones() {
    let mut c = Clustering::new();
    for (a, b) in [(40, 2), (2, 7), (9, 11), (100, 50)] {
        c.union(a, b).unwrap();
    }
    let listed = c.clusters(2);
    let mut pushed = Clusters::new();
    pushed.push(&[9, 11]);
    pushed.clear();
    for members in [&[2, 7, 40][..], &[9, 11], &[50, 100]] {
        pushed.push(members);
    }
    assert_eq!(pushed, listed);
    assert_eq!(pushed.num_members(), 7);
}

#[test]
#[should_panic(expected = "ascending id order")]
fn pushing_clusters_out_of_order_panics() {
    let mut clusters = Clusters::new();
    clusters.push(&[5, 6]);
    clusters.push(&[3, 8]);
}

#[test]
fn peak_bytes_grows_with_the_ids() {
    let mut last = 0;
    for ids in [0, 1, 5, 8, 100, 1 << 20] {
        let bytes = Clustering::peak_bytes(ids);
        assert!(bytes > last && bytes >= ids as u64 * 48, "{ids}: {bytes}");
        last = bytes;
    }
}
