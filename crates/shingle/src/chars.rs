//! Character shingles as stable fingerprints, and byte-to-character offset conversion.
//!
//! A character shingle of length `L` is a substring of `L` consecutive `char`s (Unicode scalar
//! values, not bytes, not graphemes), crossing word boundaries and whitespace as they are. A text
//! of `n` chars has `max(0, n - L + 1)` shingles, before deduplication. The fingerprint of a
//! shingle is [`textreuse_hash::fingerprint`] of its UTF-8 bytes, so it is the same on every
//! machine and can be recomputed from the shingle text alone.
use core::iter::FusedIterator;
use core::ops::Range;

use textreuse_hash::{FINGERPRINT_BLOCK, FINGERPRINT_COEFFICIENTS, fingerprint};

/// Width in bytes of the UTF-8 sequence that starts with byte `b` (1 for continuation bytes,
/// which never start a char in a `str`).
#[inline(always)]
fn utf8_width(b: u8) -> usize {
    // 0xxxxxxx and 10xxxxxx -> 1, 110xxxxx -> 2, 1110xxxx -> 3, 11110xxx -> 4; branch-free.
    1 + usize::from(b >= 0xC0) + usize::from(b >= 0xE0) + usize::from(b >= 0xF0)
}

/// The number of character shingles of length `len` in `text`: `max(0, chars - len + 1)`, or 0
/// when `len` is 0.
///
/// ```
/// use textreuse_shingle::char_shingle_count;
/// assert_eq!(char_shingle_count("abcdefghijklm", 12), 2);
/// assert_eq!(char_shingle_count("naïve", 5), 1); // five chars, six bytes
/// assert_eq!(char_shingle_count("short", 12), 0);
/// ```
#[inline]
pub fn char_shingle_count(text: &str, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let chars = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    chars.saturating_sub(len - 1)
}

/// Words per fingerprint block: strings of up to `FP_BLOCK - 1` words (248 bytes) are hashed
/// without chaining, which covers every shingle of up to 62 chars.
const FP_BLOCK: usize = FINGERPRINT_BLOCK;
/// Longest byte string the inlined fingerprint handles; longer ones call `fingerprint`.
const FP_MAX_BYTES: usize = (FP_BLOCK - 1) * 8;

/// The coefficients of `textreuse_hash::fingerprint` (vector multiply-shift), in a static so
/// that the hot loop can inline the whole hash with unaligned word loads instead of copying each
/// shingle. Equality with `fingerprint` is checked by known-answer and property tests.
static COEFFS: [u128; FP_BLOCK + 1] = FINGERPRINT_COEFFICIENTS;

/// `c_0 + c_{words+1}·len` for every byte length `len <= FP_MAX_BYTES` (`words` is
/// `len.div_ceil(8)`): the constant and the length term of the fingerprint, looked up instead of
/// multiplied per shingle.
static LEN_TERMS: [u128; FP_MAX_BYTES + 1] = len_terms();

const fn len_terms() -> [u128; FP_MAX_BYTES + 1] {
    let c = FINGERPRINT_COEFFICIENTS;
    let mut out = [0u128; FP_MAX_BYTES + 1];
    let mut len = 0;
    while len <= FP_MAX_BYTES {
        out[len] = c[0].wrapping_add(c[len.div_ceil(8) + 1].wrapping_mul(len as u128));
        len += 1;
    }
    out
}

/// `c_0 + c_{words+1}·len`, the constant and length terms of a `len`-byte string
/// (`len <= FP_MAX_BYTES`).
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) fn len_term(len: usize) -> u128 {
    LEN_TERMS[len]
}

/// The coefficients `c_1`, `c_2` of the first two words.
#[cfg(target_arch = "x86_64")]
pub(crate) fn word_coefficients() -> (u128, u128) {
    (COEFFS[1], COEFFS[2])
}

/// The little-endian word of the 8 bytes of `chunk`.
#[inline(always)]
fn word(chunk: &[u8]) -> u64 {
    u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]))
}

/// `textreuse_hash::fingerprint(&bytes[start..end])`, inlined. Whole words are read in place;
/// the last partial word is over-read and masked when `bytes` extends far enough, copied
/// otherwise.
#[inline(always)]
fn fingerprint_span(bytes: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    if len > FP_MAX_BYTES {
        return fingerprint(&bytes[start..end]);
    }
    let mut acc = LEN_TERMS[len];
    let mut chunks = bytes[start..end].chunks_exact(8);
    let mut k = 1;
    for chunk in &mut chunks {
        acc = acc.wrapping_add(COEFFS[k].wrapping_mul(word(chunk) as u128));
        k += 1;
    }
    let rest = chunks.remainder().len();
    if rest > 0 {
        let p = end - rest;
        let w = match bytes.get(p..p + 8) {
            Some(chunk) => word(chunk) & ((1u64 << (8 * rest)) - 1),
            None => {
                let mut buf = [0u8; 8];
                buf[..rest].copy_from_slice(&bytes[p..end]);
                u64::from_le_bytes(buf)
            }
        };
        acc = acc.wrapping_add(COEFFS[k].wrapping_mul(w as u128));
    }
    (acc >> 64) as u64
}

/// The fingerprint of `N`-byte windows with the word loop unrolled and the length term constant.
#[derive(Clone, Copy)]
struct Fixed<const N: usize> {
    /// `c_0 + c_{WORDS+1}·N`: the constant and the length word.
    base: u128,
    /// Mask of the valid bytes of the last word (as loaded, `LAST` bytes wide).
    mask: u64,
}

impl<const N: usize> Fixed<N> {
    const WORDS: usize = N.div_ceil(8);
    /// Bytes loaded for the last word: 4 (one `u32` load) when the last word holds 1 to 4 bytes,
    /// else 8.
    const LAST: usize = if N % 8 >= 1 && N % 8 <= 4 { 4 } else { 8 };
    /// Bytes read per window (`N` rounded up to `LAST`, so up to 3 or 7 past the window).
    const SPAN: usize = (Self::WORDS - 1) * 8 + Self::LAST;

    #[inline(always)]
    fn new() -> Self {
        Fixed {
            base: LEN_TERMS[N],
            mask: if N.is_multiple_of(8) {
                u64::MAX
            } else {
                (1u64 << (8 * (N % 8))) - 1
            },
        }
    }

    /// The fingerprint of the first `N` bytes of `window` (`window.len() >= SPAN`).
    #[inline(always)]
    fn at(&self, window: &[u8]) -> u64 {
        let mut acc = self.base;
        for k in 0..Self::WORDS - 1 {
            acc = acc
                .wrapping_add(COEFFS[k + 1].wrapping_mul(word(&window[8 * k..8 * k + 8]) as u128));
        }
        let k = Self::WORDS - 1;
        let last = if Self::LAST == 4 {
            u32::from_le_bytes(window[8 * k..8 * k + 4].try_into().unwrap_or([0; 4])) as u64
        } else {
            word(&window[8 * k..8 * k + 8])
        };
        acc = acc.wrapping_add(COEFFS[k + 1].wrapping_mul((last & self.mask) as u128));
        (acc >> 64) as u64
    }

    /// Pushes the fingerprints of the `N`-byte windows that start at `from..to` (all in bounds:
    /// `to + N - 1 <= bytes.len()`).
    #[inline(always)]
    fn run(&self, bytes: &[u8], from: usize, to: usize, out: &mut Vec<u64>) {
        #[cfg(target_arch = "x86_64")]
        if (9..=16).contains(&N) && to - from >= 4 && crate::ifma::available() {
            let (c1, c2) = word_coefficients();
            // SAFETY: `available` checked the CPU features; `windows` asserts the bounds.
            unsafe { crate::ifma::windows::<N>(bytes, from, to, self.base, c1, c2, out) };
            return;
        }
        // Windows whose `SPAN` bytes are in bounds are hashed in place; `windows` hands out
        // slices of constant length, so the word loads need no bounds checks.
        let fast_to = to
            .min((bytes.len() + 1).saturating_sub(Self::SPAN))
            .max(from);
        if fast_to > from {
            let region = &bytes[from..fast_to + Self::SPAN - 1];
            out.extend(region.windows(Self::SPAN).map(|w| self.at(w)));
        }
        if fast_to < to {
            // The last few windows (fewer than `SPAN - N`): from a zero-padded copy of the tail,
            // which is shorter than `SPAN` bytes.
            let mut buf = [0u8; 64];
            let tail = &bytes[fast_to..];
            buf[..tail.len()].copy_from_slice(tail);
            out.extend((0..to - fast_to).map(|j| self.at(&buf[j..j + Self::SPAN])));
        }
    }
}

/// The index of the first byte at or after `from` that is not ASCII, or `bytes.len()`.
#[inline(always)]
fn next_non_ascii(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from..];
    let mut chunks = rest.chunks_exact(16);
    let mut off = 0;
    for chunk in &mut chunks {
        let x = u128::from_le_bytes(chunk.try_into().unwrap_or([0; 16]));
        let high = x & 0x8080_8080_8080_8080_8080_8080_8080_8080;
        if high != 0 {
            return from + off + (high.trailing_zeros() / 8) as usize;
        }
        off += 16;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b >= 0x80)
        .map_or(bytes.len(), |p| from + off + p)
}

/// Pushes the fingerprints of all `N`-char shingles of `bytes` (valid UTF-8) with two cursors over
/// char starts. A window of `N` bytes is pure ASCII, and so is every following window up to the
/// one that ends at the next non-ASCII byte: such runs (all of an ASCII text) are hashed as
/// fixed-length byte windows; windows with a multi-byte char take the general path.
#[inline(never)]
fn windows<const N: usize>(bytes: &[u8], out: &mut Vec<u64>) {
    let fixed = Fixed::<N>::new();
    let mut start = 0;
    let mut end = 0;
    for _ in 0..N {
        if end >= bytes.len() {
            return;
        }
        end += utf8_width(bytes[end]);
    }
    loop {
        if end - start == N {
            let r = next_non_ascii(bytes, end);
            fixed.run(bytes, start, r + 1 - N, out);
            if r == bytes.len() {
                return;
            }
            // The next window holds the `N - 1` ASCII bytes before `r` and the char at `r`.
            start = r + 1 - N;
            end = r + utf8_width(bytes[r]);
        } else {
            out.push(fingerprint_span(bytes, start, end));
            if end == bytes.len() {
                return;
            }
            start += utf8_width(bytes[start]);
            end += utf8_width(bytes[end]);
        }
    }
}

/// Pushes the fingerprints of the `len`-char shingles of `bytes` (valid UTF-8 with at least
/// `len` chars) with two cursors over char starts.
fn general_windows(bytes: &[u8], len: usize, count: usize, out: &mut Vec<u64>) {
    let mut start = 0;
    let mut end = 0;
    for _ in 0..len {
        end += utf8_width(bytes[end]);
    }
    for k in 0..count {
        out.push(fingerprint_span(bytes, start, end));
        if k + 1 < count {
            start += utf8_width(bytes[start]);
            end += utf8_width(bytes[end]);
        }
    }
}

/// Replaces the contents of `out` with the fingerprints of the character shingles of length
/// `len` of `text`, in text order (duplicates included), and returns how many there are.
///
/// This is the hot path of the near-duplicate pipeline: one pass, no allocation beyond growing
/// `out` (reuse it across calls). For the common lengths (8 to 16), runs of shingles without a
/// multi-byte char (all of an ASCII text) are hashed as fixed-width byte windows with the word
/// loop unrolled; the others take a general path. Each fingerprint equals `textreuse_hash::fingerprint` of the shingle's
/// bytes. A `len` of 0 gives no shingles.
///
/// ```
/// use textreuse_hash::fingerprint;
/// use textreuse_shingle::char_shingle_fingerprints;
///
/// let mut out = Vec::new();
/// let n = char_shingle_fingerprints("the quick brown", 12, &mut out);
/// assert_eq!(n, 4);
/// assert_eq!(out[0], fingerprint(b"the quick br"));
/// assert_eq!(out[3], fingerprint(b" quick brown"));
/// ```
pub fn char_shingle_fingerprints(text: &str, len: usize, out: &mut Vec<u64>) -> usize {
    out.clear();
    let bytes = text.as_bytes();
    if len == 0 || bytes.len() < len {
        return 0;
    }
    // At most one shingle per byte.
    out.reserve(bytes.len() + 1 - len);
    match len {
        8 => windows::<8>(bytes, out),
        9 => windows::<9>(bytes, out),
        10 => windows::<10>(bytes, out),
        11 => windows::<11>(bytes, out),
        12 => windows::<12>(bytes, out),
        13 => windows::<13>(bytes, out),
        14 => windows::<14>(bytes, out),
        15 => windows::<15>(bytes, out),
        16 => windows::<16>(bytes, out),
        _ => {
            let count = char_shingle_count(text, len);
            if count > 0 {
                general_windows(bytes, len, count, out);
            }
        }
    }
    out.len()
}

/// Sorts `fingerprints` and removes repeated values in place, returning the number of distinct
/// fingerprints (the set semantics MinHash wants). No allocation.
///
/// ```
/// use textreuse_shingle::{char_shingle_fingerprints, dedup_fingerprints};
/// let mut fps = Vec::new();
/// char_shingle_fingerprints("abcabcabcabc", 3, &mut fps);
/// assert_eq!(fps.len(), 10);
/// assert_eq!(dedup_fingerprints(&mut fps), 3); // "abc", "bca", "cab"
/// ```
pub fn dedup_fingerprints(fingerprints: &mut Vec<u64>) -> usize {
    fingerprints.sort_unstable();
    fingerprints.dedup();
    fingerprints.len()
}

/// The Jaccard similarity of two sets given as sorted, deduplicated fingerprints (what
/// [`dedup_fingerprints`] leaves): shared / distinct in either; 0.0 when either is empty.
///
/// ```
/// use textreuse_shingle::sorted_jaccard;
///
/// assert_eq!(sorted_jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
/// assert_eq!(sorted_jaccard(&[], &[]), 0.0);
/// ```
pub fn sorted_jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let common = sorted_common(a, b);
    common as f64 / (a.len() + b.len() - common) as f64
}

/// The containment of set `a` in set `b`, both given as sorted, deduplicated fingerprints:
/// the share of `a` that is also in `b`, `|a ∩ b| / |a|` (0.0 when `a` is empty). Unlike
/// Jaccard similarity it is not symmetric: a short text copied into a long one is fully
/// contained in it, though their Jaccard similarity is small.
///
/// ```
/// use textreuse_shingle::{sorted_containment, sorted_jaccard};
///
/// let short = [2, 3];
/// let long = [1, 2, 3, 4, 5, 6, 7, 8];
/// assert_eq!(sorted_containment(&short, &long), 1.0);
/// assert_eq!(sorted_containment(&long, &short), 0.25);
/// assert_eq!(sorted_jaccard(&short, &long), 0.25);
/// assert_eq!(sorted_containment(&[], &long), 0.0);
/// ```
pub fn sorted_containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() {
        return 0.0;
    }
    sorted_common(a, b) as f64 / a.len() as f64
}

/// The number of values in both sorted, deduplicated slices.
fn sorted_common(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// One character shingle: its byte span in the text and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shingle {
    /// Byte range of the shingle in the text (on char boundaries, exactly `len` chars).
    pub span: Range<usize>,
    /// `textreuse_hash::fingerprint` of the shingle's bytes.
    pub fingerprint: u64,
}

/// Iterator over the character shingles of a text with their spans and fingerprints, made by
/// [`CharShingles::new`]. Exact-size: it yields [`char_shingle_count`] items.
///
/// ```
/// use textreuse_shingle::CharShingles;
/// let text = "Zürich, Genève";
/// let spans: Vec<&str> = CharShingles::new(text, 12).map(|s| &text[s.span]).collect();
/// assert_eq!(spans, ["Zürich, Genè", "ürich, Genèv", "rich, Genève"]);
/// ```
#[derive(Clone, Debug)]
pub struct CharShingles<'a> {
    bytes: &'a [u8],
    start: usize,
    end: usize,
    remaining: usize,
}

impl<'a> CharShingles<'a> {
    /// The shingles of length `len` (in chars) of `text`. A `len` of 0 gives no shingles.
    pub fn new(text: &'a str, len: usize) -> Self {
        let bytes = text.as_bytes();
        let remaining = char_shingle_count(text, len);
        // Place `end` after the first `len` chars (or anywhere if there are no shingles).
        let mut end = 0;
        if remaining > 0 {
            for _ in 0..len {
                end += utf8_width(bytes[end]);
            }
        }
        CharShingles {
            bytes,
            start: 0,
            end,
            remaining,
        }
    }
}

impl Iterator for CharShingles<'_> {
    type Item = Shingle;

    #[inline]
    fn next(&mut self) -> Option<Shingle> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let span = self.start..self.end;
        let fp = fingerprint_span(self.bytes, span.start, span.end);
        if self.remaining > 0 {
            self.start += utf8_width(self.bytes[self.start]);
            self.end += utf8_width(self.bytes[self.end]);
        }
        Some(Shingle {
            span,
            fingerprint: fp,
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for CharShingles<'_> {}
impl FusedIterator for CharShingles<'_> {}

/// Bytes per block of the [`CharOffsets`] prefix table.
const BLOCK: usize = 64;

/// Converts byte offsets of one text into character offsets (the PAN corpora count characters),
/// cheaply for many lookups.
///
/// Pure-ASCII text needs no table (a byte offset is a char offset). Otherwise a prefix table keeps
/// the char count at the start of every 64-byte block (one `usize` per block, 1/8 of the text's
/// size on 64-bit machines), and a lookup counts the char starts in at most 63 bytes.
///
/// ```
/// use textreuse_shingle::CharOffsets;
/// let text = "naïve café";
/// let offsets = CharOffsets::new(text);
/// assert_eq!(offsets.to_char(text.find("café").unwrap()), 6);
/// assert_eq!(offsets.to_char(text.len()), 10);
/// assert_eq!(offsets.char_len(), 10);
/// ```
#[derive(Clone, Debug)]
pub struct CharOffsets<'a> {
    bytes: &'a [u8],
    /// Empty for ASCII text; else `blocks[k]` = chars starting before byte `k * BLOCK`.
    blocks: Vec<usize>,
    chars: usize,
}

#[inline]
fn is_char_start(b: u8) -> bool {
    // Continuation bytes are 10xxxxxx.
    (b as i8) >= -0x40
}

impl<'a> CharOffsets<'a> {
    /// Builds the table for `text` (one pass; no allocation for ASCII text).
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        if text.is_ascii() {
            return CharOffsets {
                bytes,
                blocks: Vec::new(),
                chars: bytes.len(),
            };
        }
        let mut blocks = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut count = 0;
        for chunk in bytes.chunks(BLOCK) {
            blocks.push(count);
            count += chunk.iter().filter(|&&b| is_char_start(b)).count();
        }
        CharOffsets {
            bytes,
            blocks,
            chars: count,
        }
    }

    /// The number of chars that start before byte offset `byte`: the char offset of `byte` when
    /// it is a char boundary. Offsets past the end map to [`CharOffsets::char_len`].
    #[inline]
    pub fn to_char(&self, byte: usize) -> usize {
        if byte >= self.bytes.len() {
            return self.chars;
        }
        if self.blocks.is_empty() {
            return byte;
        }
        let block = byte / BLOCK;
        let base = block * BLOCK;
        self.blocks[block]
            + self.bytes[base..byte]
                .iter()
                .filter(|&&b| is_char_start(b))
                .count()
    }

    /// A byte span as a char span.
    #[inline]
    pub fn to_char_span(&self, span: Range<usize>) -> Range<usize> {
        self.to_char(span.start)..self.to_char(span.end)
    }

    /// The number of chars of the text.
    #[inline]
    pub fn char_len(&self) -> usize {
        self.chars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Containment and Jaccard count the same intersection: `C(a, b)·|a| = C(b, a)·|b|`,
        /// and Jaccard is at most either containment.
        #[test]
        fn containment_and_jaccard_agree(
            a in proptest::collection::btree_set(0u64..64, 0..40),
            b in proptest::collection::btree_set(0u64..64, 0..40),
        ) {
            let (a, b): (Vec<u64>, Vec<u64>) = (a.into_iter().collect(), b.into_iter().collect());
            let common = a.iter().filter(|x| b.contains(x)).count() as f64;
            let (ab, ba) = (sorted_containment(&a, &b), sorted_containment(&b, &a));
            if !a.is_empty() {
                proptest::prop_assert_eq!(ab, common / a.len() as f64);
            }
            proptest::prop_assert!((ab * a.len() as f64 - ba * b.len() as f64).abs() < 1e-9);
            let j = sorted_jaccard(&a, &b);
            proptest::prop_assert!(j <= ab + 1e-12 && j <= ba + 1e-12);
            proptest::prop_assert!((0.0..=1.0).contains(&ab));
        }
    }

    #[test]
    fn inlined_fingerprint_equals_hash_crate() {
        let text = "x".repeat(300) + "αβγ";
        let bytes = text.as_bytes();
        for start in [0, 1, 7, 8, 290] {
            for end in start..text.len().min(start + 260) {
                assert_eq!(
                    fingerprint_span(bytes, start, end),
                    fingerprint(&bytes[start..end]),
                    "{start}..{end}"
                );
            }
        }
    }

    #[test]
    fn fast_and_general_paths_agree() {
        let text = "It was the best of times, it was the worst of times; 12.5% more.";
        for len in 1..=20 {
            let mut fast = Vec::new();
            let n = char_shingle_fingerprints(text, len, &mut fast);
            let general: Vec<u64> = CharShingles::new(text, len)
                .map(|s| s.fingerprint)
                .collect();
            assert_eq!(n, general.len());
            assert_eq!(fast, general, "len {len}");
            let naive: Vec<u64> = text.as_bytes().windows(len).map(fingerprint).collect();
            assert_eq!(fast, naive);
        }
    }

    #[test]
    fn shingles_are_chars_not_bytes() {
        let text = "Größe über 9000";
        let got: Vec<&str> = CharShingles::new(text, 12).map(|s| &text[s.span]).collect();
        assert_eq!(
            got,
            [
                "Größe über 9",
                "röße über 90",
                "öße über 900",
                "ße über 9000"
            ]
        );
        let mut out = vec![7];
        assert_eq!(char_shingle_fingerprints(text, 12, &mut out), 4);
        assert_eq!(out[0], fingerprint("Größe über 9".as_bytes()));
        assert_eq!(char_shingle_fingerprints(text, 0, &mut out), 0);
        assert!(out.is_empty());
    }

    #[test]
    fn char_offsets_match_char_indices() {
        let text = "αβγ ascii ".repeat(30) + "末尾";
        let offsets = CharOffsets::new(&text);
        for (ci, (bi, _)) in text.char_indices().enumerate() {
            assert_eq!(offsets.to_char(bi), ci);
        }
        assert_eq!(offsets.to_char(text.len()), text.chars().count());
        assert_eq!(offsets.to_char(usize::MAX), text.chars().count());
    }
}
