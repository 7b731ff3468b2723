/// The size partitions of LSH Ensemble (Zhu, Nargesian, Pu and Miller, "LSH Ensemble:
/// Internet-Scale Domain Search", VLDB 2016): split the indexed sets by size into `parts`
/// contiguous ranges so that the expected number of false positives is smallest.
///
/// A partition `[l, u]` of sizes answers containment queries as if every set had the upper
/// size `u`; a set of size `x` then costs `(u - x) / u` false positives per query (the "real"
/// count of the paper, datasketch's `_compute_nfp_real`). [`optimal_partitions`] minimizes the
/// sum over partitions by dynamic programming over the distinct sizes, in
/// `O(parts · n²)` time for `n` distinct sizes with prefix sums for each partition's cost
/// (datasketch's Python takes `O(n³)` for the cost table alone).
///
/// ```
/// use textreuse_index::optimal_partitions;
///
/// // Sizes 1..=4, ten sets of each; two partitions.
/// let parts = optimal_partitions(&[1, 2, 3, 4], &[10, 10, 10, 10], 2);
/// assert_eq!(parts.len(), 2);
/// assert_eq!((parts[0].0, parts[1].1), (1, 4)); // they cover the sizes in order
/// ```
///
/// Returns the partitions of `sizes` (distinct, ascending) with `counts` sets each into at
/// most `parts` ranges `(lower, upper)` of sizes, ascending and covering every size. With
/// `parts < 2` one range; with at least as many parts as sizes, one range per size. Ties go to
/// the smallest split point, as datasketch's `min` over `(cost, index)` tuples. Empty `sizes`
/// give no ranges.
pub fn optimal_partitions(sizes: &[u64], counts: &[u64], parts: usize) -> Vec<(u64, u64)> {
    let n = sizes.len().min(counts.len());
    let sizes = &sizes[..n];
    if n == 0 {
        return Vec::new();
    }
    if parts < 2 {
        return vec![(sizes[0], sizes[n - 1])];
    }
    if parts >= n {
        return sizes.iter().map(|&s| (s, s)).collect();
    }
    // nfp(l, u) = Σ_{i=l..=u} (s_u - s_i) / s_u · c_i = C(l, u) - SC(l, u) / s_u.
    let mut c = vec![0f64; n + 1];
    let mut sc = vec![0f64; n + 1];
    for i in 0..n {
        c[i + 1] = c[i] + counts[i] as f64;
        sc[i + 1] = sc[i] + sizes[i] as f64 * counts[i] as f64;
    }
    let nfp = |l: usize, u: usize| -> f64 {
        let su = sizes[u] as f64;
        (c[u + 1] - c[l]) - (sc[u + 1] - sc[l]) / su
    };
    // cost[p][u]: the least cost of sizes 0..=u in p + 1 partitions; split[p][u] the last
    // split point (the first partition ends there).
    let mut cost = vec![vec![f64::INFINITY; n]; parts];
    let mut split = vec![vec![0usize; n]; parts];
    for (u, slot) in cost[0].iter_mut().enumerate() {
        *slot = nfp(0, u);
    }
    for p in 1..parts {
        let (done, rest) = cost.split_at_mut(p);
        let previous = &done[p - 1];
        for u in p..n {
            let mut best = (f64::INFINITY, 0usize);
            for (u1, &before) in previous.iter().enumerate().take(u).skip(p - 1) {
                let total = before + nfp(u1 + 1, u);
                if total < best.0 {
                    best = (total, u1);
                }
            }
            rest[0][u] = best.0;
            split[p][u] = best.1;
        }
    }
    let mut out = Vec::with_capacity(parts);
    let mut u = n - 1;
    for p in (1..parts).rev() {
        let u1 = split[p][u];
        out.push((sizes[u1 + 1], sizes[u]));
        u = u1;
    }
    out.push((sizes[0], sizes[u]));
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cost(sizes: &[u64], counts: &[u64], parts: &[(u64, u64)]) -> f64 {
        parts
            .iter()
            .map(|&(lo, hi)| {
                sizes
                    .iter()
                    .zip(counts)
                    .filter(|(s, _)| (lo..=hi).contains(*s))
                    .map(|(&s, &c)| (hi - s) as f64 / hi as f64 * c as f64)
                    .sum::<f64>()
            })
            .sum()
    }

    #[test]
    fn edge_cases() {
        assert!(optimal_partitions(&[], &[], 3).is_empty());
        assert_eq!(optimal_partitions(&[2, 5], &[1, 1], 1), vec![(2, 5)]);
        assert_eq!(
            optimal_partitions(&[2, 5], &[1, 1], 4),
            vec![(2, 2), (5, 5)]
        );
    }

    #[test]
    fn a_skewed_distribution_isolates_the_big_sizes() {
        // Many small sets and a few huge ones: the huge ones get their own partition.
        let parts = optimal_partitions(&[1, 2, 3, 1000], &[100, 100, 100, 1], 2);
        assert_eq!(parts, vec![(1, 3), (1000, 1000)]);
    }

    proptest! {
        /// The partitions cover the sizes in order, and no 2-way split is cheaper than the
        /// DP's when parts = 2 (checked exhaustively).
        #[test]
        fn optimal_and_covering(
            raw in proptest::collection::btree_map(1u64..500, 1u64..50, 3..30),
            parts in 2usize..6,
        ) {
            let sizes: Vec<u64> = raw.keys().copied().collect();
            let counts: Vec<u64> = raw.values().copied().collect();
            let got = optimal_partitions(&sizes, &counts, parts);
            prop_assert_eq!(got.len(), parts.min(sizes.len()));
            prop_assert_eq!(got[0].0, sizes[0]);
            prop_assert_eq!(got.last().unwrap().1, *sizes.last().unwrap());
            for w in got.windows(2) {
                let next = sizes.iter().position(|&s| s == w[0].1).unwrap() + 1;
                prop_assert_eq!(w[1].0, sizes[next]);
            }
            if parts == 2 {
                let best = (0..sizes.len() - 1)
                    .map(|u| cost(&sizes, &counts, &[(sizes[0], sizes[u]), (sizes[u + 1], *sizes.last().unwrap())]))
                    .fold(f64::INFINITY, f64::min);
                prop_assert!((cost(&sizes, &counts, &got) - best).abs() < 1e-9);
            }
        }
    }
}
