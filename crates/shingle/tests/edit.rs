//! Property tests of `edit`: the bit-parallel Levenshtein against the textbook dynamic
//! program, and the Jaccard-vs-edit-distance bounds against real edit distances and real
//! shingle sets of random strings.
use std::collections::BTreeSet;

use proptest::prelude::*;
use textreuse_shingle::edit::{
    Levenshtein, jaccard_lower_bound, levenshtein, localized_substitution_bounds,
};

/// The textbook dynamic program over chars.
fn reference(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut diag = row[0];
        row[0] = i;
        for j in 1..=b.len() {
            let next = (diag + usize::from(a[i - 1] != b[j - 1]))
                .min(row[j] + 1)
                .min(row[j - 1] + 1);
            diag = row[j];
            row[j] = next;
        }
    }
    row[b.len()]
}

/// The set of `n`-character shingles of `s` (empty when shorter than `n`).
fn shingle_set(s: &[char], n: usize) -> BTreeSet<&[char]> {
    s.windows(n).collect()
}

fn jaccard(a: &BTreeSet<&[char]>, b: &BTreeSet<&[char]>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// One edit: (kind, position as a fraction of the length, character).
fn edits(alphabet: &'static str, max: usize) -> impl Strategy<Value = Vec<(u8, f64, char)>> {
    let chars: Vec<char> = alphabet.chars().collect();
    proptest::collection::vec(
        (0u8..3, 0.0f64..1.0, proptest::sample::select(chars)),
        0..=max,
    )
}

/// Applies `ops` to `x`: 0 substitutes, 1 inserts, 2 deletes.
fn apply(x: &[char], ops: &[(u8, f64, char)]) -> Vec<char> {
    let mut y = x.to_vec();
    for &(kind, at, c) in ops {
        let i = (at * y.len() as f64) as usize;
        match kind {
            0 if i < y.len() => y[i] = c,
            1 => y.insert(i.min(y.len()), c),
            2 if i < y.len() => {
                y.remove(i);
            }
            _ => {}
        }
    }
    y
}

fn text(alphabet: &'static str, len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<char>> {
    let chars: Vec<char> = alphabet.chars().collect();
    proptest::collection::vec(proptest::sample::select(chars), len)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Distances of random strings (ASCII and multi-byte characters, lengths across word
    /// boundaries of the bit vectors) equal the dynamic program's, bounded or not.
    #[test]
    fn levenshtein_equals_the_dynamic_program(
        x in text("abcé€x ", 0..200),
        ops in edits("abcdé€🦀 ", 40),
        max in 0usize..60,
    ) {
        let y = apply(&x, &ops);
        let want = reference(&x, &y);
        let (xs, ys): (String, String) = (x.iter().collect(), y.iter().collect());
        let mut lev = Levenshtein::new();
        prop_assert_eq!(lev.distance(&xs, &ys), want);
        prop_assert_eq!(lev.distance(&ys, &xs), want);
        prop_assert_eq!(lev.bounded(&xs, &ys, max), Some(want).filter(|&d| d <= max));
        let len = x.len().max(y.len());
        let within = len == 0 || want as f64 / len as f64 <= 0.25;
        prop_assert_eq!(lev.normalized_within(&xs, &ys, 0.25), within);
    }

    /// Unrelated random strings, the case an edit-distance filter rejects most.
    #[test]
    fn levenshtein_of_unrelated_strings(x in text("abcd", 0..150), y in text("abcd", 0..150)) {
        let (xs, ys): (String, String) = (x.iter().collect(), y.iter().collect());
        prop_assert_eq!(levenshtein(&xs, &ys), reference(&x, &y));
    }

    /// J(A, B) >= (m - n·d) / (m + n·d) with m the larger shingle set, d the true edit
    /// distance, on strings over three letters (many repeated shingles) after random edits.
    #[test]
    fn jaccard_is_at_least_the_bound(
        x in text("abc", 0..80),
        ops in edits("abcd", 12),
        n in 1usize..9,
    ) {
        let y = apply(&x, &ops);
        let d = reference(&x, &y);
        let (a, b) = (shingle_set(&x, n), shingle_set(&y, n));
        let bound = jaccard_lower_bound(a.len().max(b.len()), n, d);
        prop_assert!(jaccard(&a, &b) >= bound - 1e-12, "J {} < bound {bound}", jaccard(&a, &b));
    }

    /// The corollary for strings of length L with distinct shingles: J >= (S - n·d)/(S + n·d)
    /// with S = L - n + 1.
    #[test]
    fn jaccard_bound_with_distinct_shingles(
        x in text("abcdefghijklmnopqrstuvwxyz", 10..120),
        ops in edits("abcdefghijklmnopqrstuvwxyz", 12),
        n in 3usize..10,
    ) {
        let s = x.len() - n + 1;
        let a = shingle_set(&x, n);
        prop_assume!(a.len() == s);
        let y = apply(&x, &ops);
        let d = reference(&x, &y);
        let b = shingle_set(&y, n);
        prop_assert!(jaccard(&a, &b) >= jaccard_lower_bound(s, n, d) - 1e-12);
    }

    /// The paper's bounds for one run of E substitutions by characters the string lacks: the
    /// edit distance is E, and J lies between the bounds, wherever the run is.
    #[test]
    fn one_run_of_substitutions_lies_within_the_papers_bounds(
        x in text("abcdefghijklmnopqrstuvwxyz", 20..150),
        shingle in 3usize..16,
        edits in 0usize..40,
        at in 0.0f64..1.0,
    ) {
        prop_assume!(x.len() >= shingle && edits <= x.len());
        let a = shingle_set(&x, shingle);
        prop_assume!(a.len() == x.len() - shingle + 1);
        let start = (at * (x.len() - edits + 1) as f64) as usize;
        let start = start.min(x.len() - edits);
        let mut y = x.clone();
        for (i, c) in y[start..start + edits].iter_mut().enumerate() {
            // Greek capitals: never in x, all different.
            *c = char::from_u32(0x391 + i as u32).unwrap();
        }
        prop_assert_eq!(reference(&x, &y), edits);
        prop_assert_eq!(Levenshtein::new().distance(&x.iter().collect::<String>(), &y.iter().collect::<String>()), edits);
        let j = jaccard(&a, &shingle_set(&y, shingle));
        let (lo, hi) = localized_substitution_bounds(x.len(), shingle, edits);
        prop_assert!(lo - 1e-12 <= j && j <= hi + 1e-12, "{lo} <= {j} <= {hi}");
        // And the general bound holds too.
        prop_assert!(j >= jaccard_lower_bound(a.len(), shingle, edits) - 1e-12);
    }
}

/// Repeated shingles are why the bound takes the set size: with S alone it fails.
#[test]
fn the_bound_needs_the_set_size_when_shingles_repeat() {
    let x: Vec<char> = "aaaaaaaaaaaaaaaaaaaa".chars().collect();
    let y: Vec<char> = "aaaaaaaaabaaaaaaaaaa".chars().collect();
    let n = 3;
    let (a, b) = (shingle_set(&x, n), shingle_set(&y, n));
    let j = jaccard(&a, &b);
    assert_eq!(j, 0.25); // {aaa} against {aaa, aab, aba, baa}
    let s = x.len() - n + 1;
    assert!(j < jaccard_lower_bound(s, n, 1)); // 15/21 from S = 18
    assert!(j >= jaccard_lower_bound(a.len().max(b.len()), n, 1)); // 1/7 from m = 4
}
