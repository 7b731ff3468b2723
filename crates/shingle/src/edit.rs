//! Edit distance between texts, and what it says about the Jaccard similarity of their
//! character shingle sets.
//!
//! [`Levenshtein`] computes the Levenshtein distance (insertions, deletions and substitutions
//! of Unicode scalar values, each costing 1) with Myers' bit-parallel algorithm in Hyyrö's
//! block form: 64 cells of a column per word operation, so two sentences of 600 characters
//! take 10 words × 600 steps. It strips the common prefix and suffix first (near-duplicates
//! are mostly that), refuses pairs whose lengths differ by more than the bound, and stops as
//! soon as the bound can no longer be met. It keeps its buffers, so a worker that reuses one
//! allocates nothing per pair.
//!
//! ```
//! use textreuse_shingle::edit::Levenshtein;
//!
//! let mut lev = Levenshtein::new();
//! assert_eq!(lev.distance("kitten", "sitting"), 3);
//! assert_eq!(lev.bounded("kitten", "sitting", 2), None);
//! // 1 edit in 10 characters: normalized distance 0.1.
//! assert!(lev.normalized_within("abcdefghij", "abcdefghiX", 0.1));
//! assert!(!lev.normalized_within("abcdefghij", "abcdefghiX", 0.05));
//! ```
//!
//! # Jaccard similarity against edit distance
//!
//! MinHash estimates the Jaccard similarity of shingle sets, while what makes two sentences
//! near-duplicates is closer to their edit distance. Two bounds connect them.
//!
//! **Any edits** ([`jaccard_lower_bound`]). Let `A` and `B` be the sets of `n`-character
//! shingles of strings `x` and `y` at Levenshtein distance `d`. Then
//!
//! ```text
//! J(A, B) >= (m - n·d) / (m + n·d),   m = max(|A|, |B|)   (and J >= 0 when n·d >= m).
//! ```
//!
//! *Proof sketch.* Take an optimal edit script from `x` to `y`. A window (shingle occurrence)
//! of `x` that contains no substituted or deleted character and spans no insertion point
//! reappears unchanged in `y`. A substitution or deletion lies in at most `n` windows of `x`,
//! an insertion point inside at most `n - 1`, so at most `n·d` windows of `x` are changed, and
//! a shingle of `A` missing from `B` occurs only in changed windows: `|A \ B| <= n·d`. The
//! reverse script gives `|B \ A| <= n·d`. With `a = |A \ B|` and `b = |B \ A|`,
//! `J = (|A| - a) / (|A| + b) >= (|A| - n·d) / (|A| + n·d)`, and the same with `B`; the
//! function `t -> (t - c) / (t + c)` grows with `t`, so the larger set gives the better bound.
//! When all `S = L - n + 1` shingles of a string of length `L` are distinct (long sentences of
//! prose, almost always), `m >= S` and `J >= (S - n·d) / (S + n·d)`. With repeated shingles
//! the bound on `S` alone fails (`"aaaaaaaa"` against `"aaaabaaa"`: one set has one shingle),
//! which is why the function takes the set size. `crates/shingle/tests/edit.rs` checks the
//! bound with proptest on random strings over a three-letter alphabet (many repeated shingles)
//! after random edits, with their true edit distances.
//!
//! **One run of substitutions** ([`localized_substitution_bounds`], the seed research's
//! Figure 1). For a string of `N` characters whose `S = N - L + 1` shingles of length `L` are
//! distinct, changed in one run of `E` consecutive characters into characters it does not
//! contain, the run touches `T` windows, `min(S, E) <= T <= min(S, E + L - 1)` (`E` at either
//! end of the string, `E + L - 1` inside it); the untouched `S - T` shingles are shared and the
//! touched ones are distinct on both sides, so `J = (S - T) / (S + T)` and
//!
//! ```text
//! (N - 2L - E + 2) / (N + E)  <=  J  <=  (N - L - E + 1) / (N - L + E + 1),
//! ```
//!
//! which is, with `l = L/N` and `e = E/N`, `(1 - 2l - e)/(1 + e) <= J <= (1 - l - e)/(1 - l + e)`
//! up to the `+1` terms, and tends to `(1 - e)/(1 + e)` as `l -> 0`. (The paper states the
//! assumptions as "edits localized so that no shingle overlaps more than one edit", but its
//! count of touched shingles, at most `E + L - 1`, is that of one run.) At `e = 0.25` and
//! `l -> 0` the Jaccard similarity is at most 0.6: pairs the edit-distance filter keeps lie far
//! down the S-curve of the Weissman preset, which is why that filter follows the MinHash
//! stage rather than replacing it.

/// Levenshtein distance on Unicode scalar values, bounded or not, with reusable buffers (see
/// the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Levenshtein {
    a: Vec<char>,
    b: Vec<char>,
    /// Per ASCII character: its slot in `peq` (0: not in the pattern).
    ascii: [u32; 128],
    /// The other characters of the pattern with their slots, sorted by character.
    other: Vec<(char, u32)>,
    /// `slots × words` match masks; slot 0 is all zeros.
    peq: Vec<u64>,
    vp: Vec<u64>,
    vn: Vec<u64>,
}

impl Default for Levenshtein {
    fn default() -> Self {
        Levenshtein::new()
    }
}

impl Levenshtein {
    /// A calculator with empty buffers.
    pub fn new() -> Levenshtein {
        Levenshtein {
            a: Vec::new(),
            b: Vec::new(),
            ascii: [0; 128],
            other: Vec::new(),
            peq: Vec::new(),
            vp: Vec::new(),
            vn: Vec::new(),
        }
    }

    /// The Levenshtein distance of `a` and `b` in characters.
    pub fn distance(&mut self, a: &str, b: &str) -> usize {
        self.bounded(a, b, usize::MAX)
            .expect("every distance is at most usize::MAX")
    }

    /// The Levenshtein distance of `a` and `b` if it is at most `max`, else `None` (found
    /// without computing the distance when the lengths differ by more than `max`, and
    /// stopping early once the bound cannot be met).
    pub fn bounded(&mut self, a: &str, b: &str, max: usize) -> Option<usize> {
        self.a.clear();
        self.a.extend(a.chars());
        self.b.clear();
        self.b.extend(b.chars());
        self.bounded_chars(max)
    }

    /// Whether the normalized Levenshtein distance of `a` and `b`, the distance over the
    /// longer length in characters, is at most `max_edit` (two empty texts: distance 0).
    pub fn normalized_within(&mut self, a: &str, b: &str, max_edit: f64) -> bool {
        self.a.clear();
        self.a.extend(a.chars());
        self.b.clear();
        self.b.extend(b.chars());
        let len = self.a.len().max(self.b.len());
        if len == 0 {
            return max_edit >= 0.0;
        }
        match max_edits(len, max_edit) {
            Some(k) => self.bounded_chars(k).is_some(),
            None => false,
        }
    }

    /// [`Levenshtein::bounded`] of the decoded `self.a` and `self.b`.
    fn bounded_chars(&mut self, max: usize) -> Option<usize> {
        let (a, b) = (&self.a[..], &self.b[..]);
        if a.len().abs_diff(b.len()) > max {
            return None;
        }
        // The common prefix and suffix cost nothing.
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let (a, b) = (&a[prefix..], &b[prefix..]);
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
        // The shorter string is the pattern (the bit vectors), the longer one the text.
        let (pattern, text) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        if pattern.is_empty() {
            return Some(text.len()).filter(|&d| d <= max);
        }
        myers(
            pattern,
            text,
            max,
            &mut self.ascii,
            &mut self.other,
            &mut self.peq,
            &mut self.vp,
            &mut self.vn,
        )
    }
}

/// The largest number of edits `d` with `d / len <= max_edit` in `f64` (`None` when not even
/// 0 is: a negative or NaN bound).
fn max_edits(len: usize, max_edit: f64) -> Option<usize> {
    let within = |d: usize| d as f64 / len as f64 <= max_edit;
    if !within(0) {
        return None;
    }
    let mut k = (max_edit * len as f64).floor().clamp(0.0, len as f64) as usize;
    while k > 0 && !within(k) {
        k -= 1;
    }
    while k < len && within(k + 1) {
        k += 1;
    }
    Some(k)
}

/// Myers' bit-vector algorithm, Hyyrö's multi-word form: the last row of the dynamic
/// programming matrix of `pattern` (non-empty) against `text`, one column per character of
/// `text`, 64 rows per word.
#[allow(clippy::too_many_arguments)]
fn myers(
    pattern: &[char],
    text: &[char],
    max: usize,
    ascii: &mut [u32; 128],
    other: &mut Vec<(char, u32)>,
    peq: &mut Vec<u64>,
    vp: &mut Vec<u64>,
    vn: &mut Vec<u64>,
) -> Option<usize> {
    let m = pattern.len();
    let words = m.div_ceil(64);
    // Slots: 0 for characters not in the pattern, then one per distinct character.
    other.clear();
    let mut slots = 1u32;
    for &c in pattern {
        if (c as u32) < 128 {
            if ascii[c as usize] == 0 {
                ascii[c as usize] = slots;
                slots += 1;
            }
        } else if !other.iter().any(|&(o, _)| o == c) {
            other.push((c, slots));
            slots += 1;
        }
    }
    other.sort_unstable();
    let slot = |ascii: &[u32; 128], c: char| -> usize {
        if (c as u32) < 128 {
            ascii[c as usize] as usize
        } else {
            other
                .binary_search_by_key(&c, |&(o, _)| o)
                .map_or(0, |i| other[i].1 as usize)
        }
    };
    peq.clear();
    peq.resize(slots as usize * words, 0);
    for (i, &c) in pattern.iter().enumerate() {
        peq[slot(ascii, c) * words + i / 64] |= 1 << (i % 64);
    }
    vp.clear();
    vp.resize(words, !0);
    vn.clear();
    vn.resize(words, 0);
    let last = 1u64 << ((m - 1) % 64);
    let mut score = m;
    let mut result = None;
    let n = text.len();
    for (j, &c) in text.iter().enumerate() {
        let masks = &peq[slot(ascii, c) * words..][..words];
        // The horizontal differences entering the top of the column: +1 in row 0.
        let (mut hp_carry, mut hn_carry) = (1u64, 0u64);
        for w in 0..words {
            let x = masks[w] | hn_carry;
            let (v_p, v_n) = (vp[w], vn[w]);
            let d0 = ((x & v_p).wrapping_add(v_p) ^ v_p) | x | v_n;
            let h_p = v_n | !(d0 | v_p);
            let h_n = d0 & v_p;
            if w == words - 1 {
                score += usize::from(h_p & last != 0);
                score -= usize::from(h_n & last != 0);
            }
            let h_p_shifted = (h_p << 1) | hp_carry;
            let h_n_shifted = (h_n << 1) | hn_carry;
            hp_carry = h_p >> 63;
            hn_carry = h_n >> 63;
            vp[w] = h_n_shifted | !(d0 | h_p_shifted);
            vn[w] = h_p_shifted & d0;
        }
        // The last row falls by at most 1 per remaining column.
        if score.saturating_sub(n - j - 1) > max {
            break;
        }
        if j == n - 1 {
            result = Some(score).filter(|&d| d <= max);
        }
    }
    // Leave the ASCII table clean for the next pattern.
    for &c in pattern {
        if (c as u32) < 128 {
            ascii[c as usize] = 0;
        }
    }
    result
}

/// The Levenshtein distance of `a` and `b` in characters (a one-off [`Levenshtein`]; keep one
/// for many pairs).
///
/// ```
/// assert_eq!(textreuse_shingle::edit::levenshtein("Fischer–Tropsch", "Fischer-Tropsch"), 1);
/// ```
pub fn levenshtein(a: &str, b: &str) -> usize {
    Levenshtein::new().distance(a, b)
}

/// The lower bound on the Jaccard similarity of the `n`-character shingle sets of two strings
/// at Levenshtein distance `edits`, the larger of the two sets holding `shingles` shingles:
/// `(shingles - n·edits) / (shingles + n·edits)`, or 0 when `n·edits >= shingles` (proof in
/// the [module docs](self)).
///
/// ```
/// use textreuse_shingle::edit::jaccard_lower_bound;
///
/// // A sentence of 150 characters, 12-character shingles (139 of them), 2 edits.
/// assert!((jaccard_lower_bound(139, 12, 2) - 115.0 / 163.0).abs() < 1e-12);
/// assert_eq!(jaccard_lower_bound(139, 12, 0), 1.0);
/// assert_eq!(jaccard_lower_bound(139, 12, 20), 0.0);
/// ```
pub fn jaccard_lower_bound(shingles: usize, n: usize, edits: usize) -> f64 {
    let changed = n.saturating_mul(edits);
    if changed >= shingles {
        return 0.0;
    }
    (shingles - changed) as f64 / (shingles + changed) as f64
}

/// The seed research's bounds (its Figure 1) on the Jaccard similarity of the `shingle`-
/// character shingle sets of a string of `len` characters with distinct shingles and the same
/// string with one run of `edits` consecutive characters substituted by characters it does not
/// contain: `(lower, upper)` =
/// `((N - 2L - E + 2) / (N + E), (N - L - E + 1) / (N - L + E + 1))`, each at least 0
/// (derivation in the [module docs](self)). `(0, 0)` when the string is shorter than one
/// shingle.
///
/// ```
/// use textreuse_shingle::edit::localized_substitution_bounds;
///
/// // 100 characters, 5-character shingles, 20 substitutions in a row.
/// let (lo, hi) = localized_substitution_bounds(100, 5, 20);
/// assert_eq!((lo, hi), (72.0 / 120.0, 76.0 / 116.0));
/// ```
pub fn localized_substitution_bounds(len: usize, shingle: usize, edits: usize) -> (f64, f64) {
    let shingle = shingle.max(1);
    if len < shingle {
        return (0.0, 0.0);
    }
    let s = (len - shingle + 1) as f64;
    let ratio = |touched: f64| ((s - touched) / (s + touched)).max(0.0);
    let e = edits as f64;
    (ratio(e + shingle as f64 - 1.0), ratio(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook dynamic program, the reference.
    fn reference(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
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

    #[test]
    fn known_distances() {
        let mut lev = Levenshtein::new();
        for (a, b, d) in [
            ("", "", 0),
            ("", "abc", 3),
            ("abc", "", 3),
            ("kitten", "sitting", 3),
            ("flaw", "lawn", 2),
            ("größe", "grösse", 2),
            ("naïve café", "naive cafe", 2),
        ] {
            assert_eq!(lev.distance(a, b), d, "{a:?} {b:?}");
            assert_eq!(reference(a, b), d);
        }
    }

    #[test]
    fn long_patterns_cross_word_boundaries() {
        // Patterns of 63 to 300 characters: one, two and several words, with the edits on
        // either side of a word boundary.
        let mut lev = Levenshtein::new();
        let base: String = (0..300)
            .map(|i| (b'a' + (i * 7 % 26) as u8) as char)
            .collect();
        for len in [63, 64, 65, 127, 128, 129, 200, 300] {
            let a = &base[..len];
            for cut in [0, 1, 62, 63, 64, 65, len - 1] {
                let cut = cut.min(len - 1);
                let mut b: Vec<char> = a.chars().collect();
                b[cut] = 'Z';
                b.insert(cut / 2, 'Y');
                b.remove(len / 3 + 1);
                let b: String = b.into_iter().collect();
                let want = reference(a, &b);
                assert_eq!(lev.distance(a, &b), want, "len {len} cut {cut}");
                // Prefix and suffix stripping cannot hide the edits: reverse the strings too.
                let (ra, rb): (String, String) =
                    (a.chars().rev().collect(), b.chars().rev().collect());
                assert_eq!(lev.distance(&ra, &rb), want);
            }
        }
    }

    #[test]
    fn bounded_stops_at_the_bound() {
        let mut lev = Levenshtein::new();
        assert_eq!(lev.bounded("abcdef", "abcxyz", 3), Some(3));
        assert_eq!(lev.bounded("abcdef", "abcxyz", 2), None);
        // Lengths differing by more than the bound.
        assert_eq!(lev.bounded("a", "abcdef", 4), None);
        assert_eq!(lev.bounded("abcdef", "abcdef", 0), Some(0));
    }

    #[test]
    fn normalized_threshold_is_inclusive() {
        let mut lev = Levenshtein::new();
        // 1 edit in 4 characters is exactly 0.25.
        assert!(lev.normalized_within("abcd", "abcx", 0.25));
        assert!(!lev.normalized_within("abcd", "abxx", 0.25));
        assert!(lev.normalized_within("", "", 0.0));
        assert!(!lev.normalized_within("a", "b", -0.1));
        assert_eq!(max_edits(10, 0.25), Some(2));
        assert_eq!(max_edits(100, 0.25), Some(25));
        assert_eq!(max_edits(3, 1.0), Some(3));
        assert_eq!(max_edits(3, f64::NAN), None);
    }

    #[test]
    fn bounds_of_the_paper() {
        // Figure 1's normalized curves are the limits of the exact ones.
        let (lo, hi) = localized_substitution_bounds(10_000, 500, 2000);
        let (l, e) = (0.05, 0.2);
        assert!((lo - (1.0 - 2.0 * l - e) / (1.0 + e)).abs() < 1e-3);
        assert!((hi - (1.0 - l - e) / (1.0 - l + e)).abs() < 1e-3);
        assert_eq!(localized_substitution_bounds(10, 12, 1), (0.0, 0.0));
        assert_eq!(localized_substitution_bounds(50, 5, 0).1, 1.0);
    }
}
