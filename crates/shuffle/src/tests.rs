use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;

use super::*;

/// Everything a shuffle run produces: the pairs, the clusters (id, members) and the counts.
#[derive(Debug, PartialEq, Eq)]
struct Output {
    pairs: Vec<(u64, u64)>,
    clusters: Vec<(u64, Vec<u64>)>,
    stats: ShuffleStats,
}

impl Output {
    /// The output without the counts that legitimately depend on the budget.
    fn budget_independent(mut self) -> Output {
        self.stats.runs = 0;
        self.stats.bytes_spilled = 0;
        self
    }
}

fn run(records: &[(u64, u64)], budget: u64, max_bucket: usize, mode: PairMode) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut shuffle = ShuffleBuilder::new()
        .mem_budget(budget)
        .max_bucket(max_bucket)
        .pair_mode(mode)
        .tmp_dir(dir.path())
        .build()
        .unwrap();
    // Half one by one, half as a slice: both paths.
    let (a, b) = records.split_at(records.len() / 2);
    for &(k, v) in a {
        shuffle.push(k, v).unwrap();
    }
    shuffle.push_slice(b).unwrap();
    let mut stream = shuffle.finish().unwrap();
    let mut pairs = Vec::new();
    let mut clustering = textreuse_unionfind::Clustering::new();
    while let Some((x, y)) = stream.next_pair().unwrap() {
        pairs.push((x, y));
        clustering.union(x, y).unwrap();
    }
    let stats = stream.stats();
    drop(stream);
    // The spill directory is removed with the stream.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    let clusters = clustering
        .clusters(2)
        .iter()
        .map(|c| (c.id(), c.members().to_vec()))
        .collect();
    Output {
        pairs,
        clusters,
        stats,
    }
}

/// The reference: maps and sets, breadth-first components.
fn naive(records: &[(u64, u64)], max_bucket: usize, mode: PairMode) -> Output {
    let mut buckets: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    for &(k, v) in records {
        buckets.entry(k).or_default().insert(v);
    }
    let mut stats = ShuffleStats {
        records: records.len() as u64,
        buckets: buckets.len() as u64,
        ..ShuffleStats::default()
    };
    let mut pairs = BTreeSet::new();
    for ids in buckets.values() {
        // Only all-pairs buckets are capped; the ids left out are counted.
        let cap = if mode == PairMode::All {
            max_bucket
        } else {
            usize::MAX
        };
        if ids.len() > cap {
            stats.buckets_capped += 1;
            stats.bucket_ids_left_out += (ids.len() - cap) as u64;
        }
        let ids: Vec<u64> = ids.iter().copied().take(cap).collect();
        for i in 0..ids.len() {
            for j in i + 1..ids.len() {
                if mode == PairMode::All || i == 0 {
                    pairs.insert((ids[i], ids[j]));
                    stats.pairs_emitted += 1;
                }
            }
        }
    }
    stats.candidate_pairs = pairs.len() as u64;
    // Components by breadth-first search; a component's id is its smallest member.
    let mut adj: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(a, b) in &pairs {
        adj.entry(a).or_default().push(b);
        adj.entry(b).or_default().push(a);
    }
    let mut seen = BTreeSet::new();
    let mut clusters = Vec::new();
    for &start in adj.keys() {
        if !seen.insert(start) {
            continue;
        }
        let mut members = vec![start];
        let mut queue = vec![start];
        while let Some(x) = queue.pop() {
            for &y in &adj[&x] {
                if seen.insert(y) {
                    members.push(y);
                    queue.push(y);
                }
            }
        }
        members.sort_unstable();
        clusters.push((members[0], members));
    }
    Output {
        pairs: pairs.into_iter().collect(),
        clusters,
        stats,
    }
}

/// Random records with many shared keys and some exact duplicate records.
fn records() -> impl Strategy<Value = Vec<(u64, u64)>> {
    proptest::collection::vec((0u64..40, 0u64..300), 0..1500).prop_map(|v| {
        // Spread small keys over the whole u64 range like real band keys, keeping collisions.
        v.into_iter()
            .map(|(k, id)| (textreuse_hash::mix64(k + 1), id))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn spilled_equals_in_memory_equals_naive(
        records in records(),
        max_bucket in 2usize..12,
        all in any::<bool>(),
    ) {
        let mode = if all { PairMode::All } else { PairMode::Star };
        let big = run(&records, 1 << 30, max_bucket, mode);
        prop_assert_eq!(big.stats.runs, 0);
        // 1 KiB = 64 records per run: many runs, and more than 64 force a merge pass.
        let tiny = run(&records, MIN_MEM_BUDGET, max_bucket, mode);
        if records.len() > 64 {
            prop_assert!(tiny.stats.runs > 0 && tiny.stats.bytes_spilled > 0);
        }
        let expected = naive(&records, max_bucket, mode);
        prop_assert_eq!(&big, &expected);
        prop_assert_eq!(tiny.budget_independent(), expected);
    }

    /// Stars (never capped) cluster exactly like uncapped all-pairs buckets, whatever the cap.
    #[test]
    fn star_and_all_pairs_give_the_same_clusters(records in records(), max_bucket in 2usize..12) {
        let star = run(&records, 4096, max_bucket, PairMode::Star);
        let all = run(&records, 4096, usize::MAX, PairMode::All);
        prop_assert_eq!(star.clusters, all.clusters);
        prop_assert!(star.stats.candidate_pairs <= all.stats.candidate_pairs);
        prop_assert_eq!((star.stats.buckets_capped, star.stats.bucket_ids_left_out), (0, 0));
    }

    #[test]
    fn sorter_sorts_and_dedups(records in proptest::collection::vec(any::<(u64, u64)>(), 0..3000)) {
        let mut sorter = ShuffleBuilder::new().mem_budget(2048).build_sorter().unwrap();
        sorter.push_slice(&records).unwrap();
        prop_assert_eq!(sorter.len(), records.len() as u64);
        let got: Vec<(u64, u64)> = sorter.finish().unwrap().map(Result::unwrap).collect();
        let want: Vec<(u64, u64)> = records.iter().copied().collect::<BTreeSet<_>>().into_iter().collect();
        prop_assert_eq!(got, want);
    }
}

/// A range of partitions with many more pairs than a round hands over (all keys in the first
/// partition: 200,000 pairs) gives them over several rounds, and the same pairs and clusters
/// as in memory.
#[test]
fn a_range_of_many_pairs_is_handed_over_in_rounds() {
    let records: Vec<(u64, u64)> = (0..300_000u64)
        .map(|id| (textreuse_hash::mix64(id / 3) >> 8, id))
        .collect();
    let spilled = run(&records, 1 << 20, usize::MAX, PairMode::Star);
    assert!(spilled.stats.runs > 0);
    assert!(spilled.stats.candidate_pairs > 3 * super::pairs::round_pairs(1 << 20) as u64);
    let in_memory = run(&records, 1 << 30, usize::MAX, PairMode::Star);
    assert_eq!(in_memory.stats.runs, 0);
    assert_eq!(spilled.budget_independent(), in_memory);
}

#[test]
fn shuffle_through_merge_passes_matches_naive() {
    // 12,000 records in runs of 64: 188 runs, so merge passes write runs of their own (with
    // partition bounds) before the partition ranges are merged in parallel.
    let records: Vec<(u64, u64)> = (0..12_000u64)
        .map(|i| {
            (
                textreuse_hash::mix64(i % 3_000),
                textreuse_hash::mix64(i) % 5_000,
            )
        })
        .collect();
    for mode in [PairMode::Star, PairMode::All] {
        let tiny = run(&records, MIN_MEM_BUDGET, 6, mode);
        assert!(tiny.stats.runs > MAX_FAN_IN as u64);
        assert_eq!(tiny.budget_independent(), naive(&records, 6, mode));
    }
}

#[test]
fn many_runs_need_a_merge_pass() {
    // 20,000 records in runs of 64: 313 runs, merged 64 at a time before the final merge.
    let records: Vec<(u64, u64)> = (0..20_000u64)
        .map(|i| (textreuse_hash::mix64(i % 997), i))
        .collect();
    let tiny = run(&records, MIN_MEM_BUDGET, 100, PairMode::Star);
    assert!(tiny.stats.runs > 313, "{:?}", tiny.stats);
    let big = run(&records, 1 << 30, 100, PairMode::Star);
    assert_eq!(tiny.budget_independent(), big.budget_independent());
}

#[test]
fn groups_come_in_key_order_with_sorted_ids() {
    let mut sorter = ShuffleBuilder::new()
        .mem_budget(1024)
        .build_sorter()
        .unwrap();
    for (k, v) in [(5, 3), (1, 9), (5, 1), (5, 3), (2, 2), (1, 4)] {
        sorter.push(k, v).unwrap();
    }
    let mut sorted = sorter.finish().unwrap();
    let mut ids = Vec::new();
    let mut groups = Vec::new();
    while let Some(key) = sorted.next_group(&mut ids).unwrap() {
        groups.push((key, ids.clone()));
    }
    assert_eq!(groups, vec![(1, vec![4, 9]), (2, vec![2]), (5, vec![1, 3])]);
    assert_eq!(sorted.next_group(&mut ids).unwrap(), None);
}

#[test]
fn cap_keeps_the_smallest_ids_and_is_counted() {
    // Key 7: ten ids; key 8: two ids; key 9: a singleton.
    let mut records: Vec<(u64, u64)> = (0..10).rev().map(|i| (7, 100 + i)).collect();
    records.extend([(8, 500), (8, 109), (9, 1)]);
    // Stars are not capped: all ten ids of key 7 are clustered, with 109 and 500.
    let out = run(&records, 1 << 20, 3, PairMode::Star);
    let star_pairs: Vec<(u64, u64)> = (101..110).map(|b| (100, b)).chain([(109, 500)]).collect();
    assert_eq!(out.pairs, star_pairs);
    assert_eq!(out.stats.buckets, 3);
    assert_eq!(
        (out.stats.buckets_capped, out.stats.bucket_ids_left_out),
        (0, 0)
    );
    let mut members: Vec<u64> = (100..110).collect();
    members.push(500);
    assert_eq!(out.clusters, vec![(100, members)]);
    // All pairs: key 7 is capped to its first three ids, and the seven left out are counted.
    let all = run(&records, 1 << 20, 3, PairMode::All);
    assert_eq!(
        all.pairs,
        vec![(100, 101), (100, 102), (101, 102), (109, 500)]
    );
    assert_eq!(
        (all.stats.buckets_capped, all.stats.bucket_ids_left_out),
        (1, 7)
    );
    // A bucket of exactly the cap is not capped.
    let exact = run(&records, 1 << 20, 10, PairMode::All).stats;
    assert_eq!((exact.buckets_capped, exact.bucket_ids_left_out), (0, 0));
}

/// 250 exact copies of one sentence (the same key in every band) make one cluster of 250, not
/// of the cap.
#[test]
fn a_huge_bucket_is_clustered_whole() {
    let records: Vec<(u64, u64)> = (0..10u64)
        .flat_map(|band| (0..250u64).map(move |id| (band, id)))
        .collect();
    let out = run(&records, 1 << 20, 100, PairMode::Star);
    assert_eq!(out.clusters.len(), 1);
    assert_eq!(out.clusters[0].1.len(), 250);
}

#[test]
fn pairs_shared_by_bands_are_counted_once() {
    let records = [(1, 10), (1, 20), (2, 10), (2, 20), (3, 20), (3, 10)];
    let out = run(&records, 1 << 20, 100, PairMode::Star);
    assert_eq!(out.pairs, vec![(10, 20)]);
    assert_eq!((out.stats.pairs_emitted, out.stats.candidate_pairs), (3, 1));
}

#[test]
fn same_result_for_any_thread_count() {
    let records: Vec<(u64, u64)> = (0..30_000u64)
        .map(|i| {
            (
                textreuse_hash::mix64(i % 4001),
                textreuse_hash::mix64(i) >> 20,
            )
        })
        .collect();
    let with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| run(&records, 64 << 10, 50, PairMode::Star))
    };
    let one = with(1);
    assert!(one.stats.runs > 0);
    assert_eq!(one, with(2));
    assert_eq!(one, with(3));
}

#[test]
fn bad_options_are_errors() {
    assert!(matches!(
        ShuffleBuilder::new().mem_budget(100).build(),
        Err(ShuffleError::BudgetTooSmall { budget: 100, .. })
    ));
    assert!(matches!(
        ShuffleBuilder::new().max_bucket(1).build(),
        Err(ShuffleError::InvalidMaxBucket { max_bucket: 1 })
    ));
    let err = ShuffleBuilder::new()
        .mem_budget(1024)
        .tmp_dir("/nonexistent/textreuse/spill")
        .build()
        .unwrap();
    let mut shuffle = err;
    let result = (0..1000).try_for_each(|i| shuffle.push(i, i));
    assert!(matches!(result, Err(ShuffleError::TempDir { .. })));
}

#[test]
fn empty_input() {
    let out = run(&[], 1 << 20, 100, PairMode::Star);
    assert_eq!(out, naive(&[], 100, PairMode::Star));
    assert_eq!(out.stats.buckets, 0);
}

#[test]
fn into_clusters_matches_streaming() {
    let records: Vec<(u64, u64)> = (0..5000u64).map(|i| (i % 700, i % 1300)).collect();
    let mut shuffle = ShuffleBuilder::new().mem_budget(4096).build().unwrap();
    shuffle.push_slice(&records).unwrap();
    let (clusters, stats) = shuffle.finish().unwrap().into_clusters(2).unwrap();
    let expected = naive(&records, 100, PairMode::Star);
    let got: Vec<(u64, Vec<u64>)> = clusters
        .iter()
        .map(|c| (c.id(), c.members().to_vec()))
        .collect();
    assert_eq!(got, expected.clusters);
    assert_eq!(stats.candidate_pairs, expected.stats.candidate_pairs);
}
