//! The last step of alignment: passage boundaries adapted to the kind of reuse the pair shows.
//!
//! - **Copies.** A passage pair whose suspicious words are mostly covered by word n-grams found
//!   in order in the source passage is a copy (verbatim, or nearly). Its boundaries are moved
//!   to where the copied text begins and ends: trimmed to the first and last shared n-gram, then
//!   extended word by word and character by character while both texts agree. Sentence-level
//!   extension overshoots copies that begin or end inside a sentence, and undershoots copies
//!   whose first sentence was too short to seed. A fit whose two sides differ in length is no
//!   copy: shuffled sentences share n-grams out of order.
//! - **Summaries.** When the passages of a pair span much more source text than suspicious text
//!   (a summary condenses its source) and lie close together in the suspicious document (a
//!   summary is one stretch of text), they are one case: merged into one passage pair, whose
//!   source side reaches the start or end of the source document when the passages leave only
//!   a small share of it uncovered there (a summary usually condenses a whole text or section).
//! - **Reworded reuse.** Other passages are trimmed at their edges where their text shares
//!   clearly fewer content words with the other passage than the rest of the passage does,
//!   then grow word by word into the text beside their edges where it shares content words
//!   with the text beside the same edge in the other document: reworded reuse often begins or
//!   ends inside a sentence whose part in it was too short or too changed to seed.
use std::ops::Range;

use ahash::AHashMap;

use crate::text::{Doc, Word, ngram_key};

/// A passage pair as byte ranges with its score.
#[derive(Clone, Debug, Default)]
pub(crate) struct Span {
    pub susp: Range<usize>,
    pub src: Range<usize>,
    pub score: f64,
    /// Made by [`merge_summary`]: its boundaries are final.
    pub summary: bool,
    /// Fitted by [`fit_copy`]: its boundaries are where the copy begins and ends.
    pub copy: bool,
}

impl Span {
    /// Whether fitting already set its boundaries (a summary or a copy): trimming and growing
    /// leave it as it is.
    fn fitted(&self) -> bool {
        self.summary || self.copy
    }
}

/// Word n-gram size for recognizing copies.
const COPY_NGRAM: usize = 4;

/// Words that may differ between two agreeing content words when a copy's edges are extended.
const COPY_SLACK: usize = 4;

/// How many times longer one side of a fitted copy may be than the other (in bytes). A copy's
/// two sides are about as long as each other; reworded text whose sentences were shuffled can
/// share most of its word n-grams with the source and still fit to sides of very different
/// lengths (its first and last n-gram come from one source sentence). Chosen on both halves of
/// the PAN 2013 training corpus from 1.02 to 2.
const COPY_MAX_LENGTH_RATIO: f64 = 1.05;

/// The words of `doc` inside the byte range `r` (whole words only).
fn word_range(doc: &Doc, r: &Range<usize>) -> Range<usize> {
    let first = doc.words.partition_point(|w| (w.start as usize) < r.start);
    let end = doc.words.partition_point(|w| (w.end as usize) <= r.end);
    first..end.max(first)
}

fn gram_key(words: &[Word]) -> u64 {
    ngram_key(words.iter().map(|w| w.term))
}

/// Moves the boundaries of a copied passage pair to where the copy begins and ends, when at
/// least `min_cover` of its suspicious words lie in word n-grams found in the source passage
/// and the fitted sides are about as long as each other ([`COPY_MAX_LENGTH_RATIO`]).
/// Returns the pair unchanged otherwise.
pub(crate) fn fit_copy(
    span: Span,
    susp: &Doc,
    src: &Doc,
    suspicious: &str,
    source: &str,
    min_cover: f64,
) -> Span {
    if span.summary {
        return span;
    }
    let (tw, sw) = (word_range(susp, &span.susp), word_range(src, &span.src));
    let (t, s) = (&susp.words[tw.clone()], &src.words[sw.clone()]);
    if t.len() < COPY_NGRAM || s.len() < COPY_NGRAM {
        return span;
    }
    // Source n-gram -> its first and last word index (within the passage).
    // Words that only match through a synonym are not copied: n-grams with one are left out.
    let mut at: AHashMap<u64, (usize, usize)> = AHashMap::with_capacity(s.len());
    for (j, g) in s.windows(COPY_NGRAM).enumerate() {
        if g.iter().any(|w| w.synonym) {
            continue;
        }
        at.entry(gram_key(g))
            .and_modify(|e| e.1 = j)
            .or_insert((j, j));
    }
    let mut covered = 0usize;
    let mut covered_to = 0usize;
    let mut first: Option<(usize, usize)> = None;
    let mut last: Option<(usize, usize)> = None;
    for (i, g) in t.windows(COPY_NGRAM).enumerate() {
        if let Some(&(j_first, j_last)) = at.get(&gram_key(g)) {
            covered += (i + COPY_NGRAM).saturating_sub(covered_to.max(i));
            covered_to = i + COPY_NGRAM;
            if first.is_none() {
                first = Some((i, j_first));
            }
            last = Some((i + COPY_NGRAM, j_last + COPY_NGRAM));
        }
    }
    let (Some((mut i0, mut j0)), Some((mut i1, mut j1))) = (first, last) else {
        return span;
    };
    if (covered as f64) < min_cover * t.len() as f64 || j1 <= j0 {
        return span;
    }
    // Indices into the documents' word lists.
    i0 += tw.start;
    i1 += tw.start;
    j0 += sw.start;
    j1 += sw.start;
    // Word by word while both documents agree, beyond the passage if need be (see
    // `agreeing_step`): backwards from the starts, forwards from the ends (exclusive).
    let texts = (suspicious, source);
    while let Some((a, b)) = agreeing_step(susp, src, texts, (i0, j0), true) {
        i0 -= a;
        j0 -= b;
    }
    while let Some((a, b)) = agreeing_step(susp, src, texts, (i1, j1), false) {
        i1 += a;
        j1 += b;
    }
    // Then character by character (punctuation, and a word's case or inflection).
    let (mut ts, mut ss) = (susp.words[i0].start as usize, src.words[j0].start as usize);
    let (mut te, mut se) = (
        susp.words[i1 - 1].end as usize,
        src.words[j1 - 1].end as usize,
    );
    let (tb, sb) = (suspicious.as_bytes(), source.as_bytes());
    while ts > 0 && ss > 0 && tb[ts - 1] == sb[ss - 1] && !tb[ts - 1].is_ascii_whitespace() {
        ts -= 1;
        ss -= 1;
    }
    while te < tb.len() && se < sb.len() && tb[te] == sb[se] && !tb[te].is_ascii_whitespace() {
        te += 1;
        se += 1;
    }
    // Stay on char boundaries (equal bytes of multi-byte chars may stop mid-char).
    while !suspicious.is_char_boundary(ts) || !source.is_char_boundary(ss) {
        ts += 1;
        ss += 1;
    }
    while !suspicious.is_char_boundary(te) || !source.is_char_boundary(se) {
        te -= 1;
        se -= 1;
    }
    let (a, b) = (te - ts, se - ss);
    if a.max(b) as f64 > COPY_MAX_LENGTH_RATIO * a.min(b) as f64 {
        return span;
    }
    Span {
        susp: ts..te,
        src: ss..se,
        score: span.score,
        summary: false,
        copy: true,
    }
}

/// No blank line (a paragraph break) between word `k - 1` and word `k` of `doc`.
fn joined(doc: &Doc, text: &str, k: usize) -> bool {
    let gap = &text.as_bytes()[doc.words[k - 1].end as usize..doc.words[k].start as usize];
    !gap.windows(2).any(|w| w == b"\n\n") && !gap.windows(4).any(|w| w == b"\r\n\r\n")
}

/// The next pair of agreeing words beyond a copy's edge, as how many words further each
/// document's is: `back` from the edge words `at` (the first words of the copy), otherwise from
/// `at` (the ends, exclusive). Up to COPY_SLACK words that differ may lie between (an
/// obfuscated copy's edges) when the agreeing word is a content word, never a blank line (a
/// paragraph break) in either document. The nearest such pair, suspicious side first.
fn agreeing_step(
    susp: &Doc,
    src: &Doc,
    (suspicious, source): (&str, &str),
    (i, j): (usize, usize),
    back: bool,
) -> Option<(usize, usize)> {
    // The word `d` words beyond the edge at `x` in a document of `n` words.
    let word = |x: usize, d: usize, n: usize| {
        if back {
            x.checked_sub(d)
        } else {
            Some(x + d - 1).filter(|&k| k < n)
        }
    };
    // Every gap crossed to reach word `k` from the edge at `x`.
    let crossed = |doc: &Doc, text: &str, x: usize, k: usize| {
        if back {
            (k + 1..=x).all(|g| joined(doc, text, g))
        } else {
            (x..=k).all(|g| joined(doc, text, g))
        }
    };
    (1..=COPY_SLACK + 1)
        .flat_map(|a| (1..=COPY_SLACK + 1).map(move |b| (a, b)))
        .filter(|&(a, b)| a == b || a + b <= COPY_SLACK + 2)
        .filter_map(|(a, b)| {
            let (k, l) = (word(i, a, susp.words.len())?, word(j, b, src.words.len())?);
            let (w, v) = (&susp.words[k], &src.words[l]);
            (w.term == v.term
                && !v.synonym
                && (a + b == 2 || !w.stop)
                && crossed(susp, suspicious, i, k)
                && crossed(src, source, j, l))
            .then_some((a, b))
        })
        .min_by_key(|&(a, b)| (a + b, a))
}

/// Least share of the suspicious text from the first passage's start to the last one's end that
/// the passages must cover for [`merge_summary`] to merge them: a summary is one stretch of
/// text, while passages far apart in the suspicious document are separate cases, however far
/// apart their sources are. Chosen on both halves of the PAN 2013 training corpus (0.5 to 0.7
/// score the same; 0.3 and 0.9 lower).
const SUMMARY_MIN_COVER: f64 = 0.5;

/// The length of the union of byte ranges.
fn covered_len<'a>(ranges: impl Iterator<Item = &'a Range<usize>>) -> usize {
    let mut ranges: Vec<&Range<usize>> = ranges.collect();
    ranges.sort_unstable_by_key(|r| r.start);
    let (mut len, mut end) = (0, 0);
    for r in ranges {
        let start = r.start.max(end);
        if r.end > start {
            len += r.end - start;
            end = r.end;
        }
    }
    len
}

/// Merges the passages of a pair into one when together they span at least `ratio` times more
/// source than suspicious text and cover most of the suspicious text they span
/// ([`SUMMARY_MIN_COVER`]), and moves its source edges to the document's edges when less
/// than `snap` of the source length lies beyond them.
pub(crate) fn merge_summary(spans: &mut Vec<Span>, source_len: usize, ratio: f64, snap: f64) {
    let (Some(t0), Some(t1)) = (
        spans.iter().map(|s| s.susp.start).min(),
        spans.iter().map(|s| s.susp.end).max(),
    ) else {
        return;
    };
    let s0 = spans.iter().map(|s| s.src.start).min().unwrap_or(0);
    let s1 = spans.iter().map(|s| s.src.end).max().unwrap_or(0);
    if ((s1 - s0) as f64) < ratio * (t1 - t0) as f64
        || (covered_len(spans.iter().map(|s| &s.susp)) as f64)
            < SUMMARY_MIN_COVER * (t1 - t0) as f64
    {
        return;
    }
    let score = spans.iter().map(|s| s.score).fold(0.0, f64::max);
    let margin = snap * source_len as f64;
    let src = (if (s0 as f64) <= margin { 0 } else { s0 })
        ..(if ((source_len - s1) as f64) <= margin {
            source_len
        } else {
            s1
        });
    spans.clear();
    spans.push(Span {
        susp: t0..t1,
        src,
        score,
        summary: true,
        copy: false,
    });
}

/// Fewest matched content words for [`grow_edges`] to add text at an edge (chosen on both
/// halves of the PAN 2013 training corpus with the window and density).
const EDGE_MIN_MATCHES: usize = 2;

/// The words reachable from the edge at word `x` (exclusive) within `window` words, backwards
/// (`back`) or forwards, without crossing a blank line (a paragraph break).
fn reach(doc: &Doc, text: &str, x: usize, window: usize, back: bool) -> Range<usize> {
    let mut k = x;
    if back {
        while k > 0 && x - k < window && joined(doc, text, k) {
            k -= 1;
        }
        k..x
    } else {
        while k < doc.words.len() && k - x < window && (k == x || joined(doc, text, k)) {
            k += 1;
        }
        x..k
    }
}

/// The sorted, distinct terms of the content words of `words`.
fn content_terms(words: &[Word]) -> Vec<u32> {
    let mut t: Vec<u32> = words.iter().filter(|w| !w.stop).map(|w| w.term).collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// How many words of `r` (counted from the edge, which is its end when `back`) to add to a
/// passage: up to the furthest content word whose term is in `other` (sorted) such that, from
/// there to the edge, at least `density` of the content words are and at least
/// [`EDGE_MIN_MATCHES`].
fn grow_side(words: &[Word], r: Range<usize>, other: &[u32], density: f64, back: bool) -> usize {
    let (mut content, mut matched, mut grow) = (0usize, 0usize, 0usize);
    for d in 0..r.len() {
        let w = &words[if back { r.end - 1 - d } else { r.start + d }];
        if w.stop {
            continue;
        }
        content += 1;
        if other.binary_search(&w.term).is_ok() {
            matched += 1;
            if matched >= EDGE_MIN_MATCHES && matched as f64 >= density * content as f64 {
                grow = d + 1;
            }
        }
    }
    grow
}

/// Grows a passage pair's edges word by word into the text beside them, up to `window` words
/// on each side of each edge, where the words beside the edge in one document share their
/// content words with those beside it in the other (at least `density` of them). Obfuscated
/// reuse often begins or ends with part of a sentence, too short or too changed to seed,
/// which sentence-level extension leaves out. Summaries and fitted copies are left as they are.
pub(crate) fn grow_edges(
    span: Span,
    susp: &Doc,
    src: &Doc,
    (suspicious, source): (&str, &str),
    window: usize,
    density: f64,
) -> Span {
    if span.fitted() {
        return span;
    }
    let (tw, sw) = (word_range(susp, &span.susp), word_range(src, &span.src));
    if tw.is_empty() || sw.is_empty() {
        return span;
    }
    let mut out = span;
    for back in [true, false] {
        let (x, y) = if back {
            (tw.start, sw.start)
        } else {
            (tw.end, sw.end)
        };
        let p = reach(susp, suspicious, x, window, back);
        let q = reach(src, source, y, window, back);
        let a = grow_side(
            &susp.words,
            p.clone(),
            &content_terms(&src.words[q.clone()]),
            density,
            back,
        );
        let b = grow_side(&src.words, q, &content_terms(&susp.words[p]), density, back);
        if back {
            if a > 0 {
                out.susp.start = out.susp.start.min(susp.words[x - a].start as usize);
            }
            if b > 0 {
                out.src.start = out.src.start.min(src.words[y - b].start as usize);
            }
        } else {
            if a > 0 {
                out.susp.end = out.susp.end.max(susp.words[x + a - 1].end as usize);
            }
            if b > 0 {
                out.src.end = out.src.end.max(src.words[y + b - 1].end as usize);
            }
        }
    }
    out
}

/// Text at a passage's edge counts as unrelated to the other passage when it has less than this
/// share of the passage's own rate of content words found in the other passage (chosen on the
/// odd half of the PAN 2013 training corpus with the lead; the even half chose 0.7). Relative,
/// because how many words reuse keeps varies: heavily reworded or shortened text keeps few of
/// its source's words all along, and its edges are no less part of it.
const TRIM_RELATIVE_RATE: f64 = 0.6;

/// The weight of a found content word against an unfound one for [`trim_side`], such that text
/// whose found words are [`TRIM_RELATIVE_RATE`] of `words`' rate (the passage's) breaks even.
fn trim_weight(words: &[Word], other: &[u32]) -> f64 {
    let (mut content, mut found) = (0usize, 0usize);
    for w in words.iter().filter(|w| !w.stop) {
        content += 1;
        found += usize::from(other.binary_search(&w.term).is_ok());
    }
    let rate = TRIM_RELATIVE_RATE * found as f64 / content.max(1) as f64;
    if rate > 0.0 { 1.0 / rate - 1.0 } else { 0.0 }
}

/// How many words of the passage `r` to cut at its start (`from_start`) or its end: the words
/// up to the point where, counting from the edge, the content words whose terms are not in
/// `other` (sorted) most outnumber those that are, each of these counting `weight`, when they
/// do by at least `lead`.
fn trim_side(
    words: &[Word],
    r: Range<usize>,
    other: &[u32],
    from_start: bool,
    lead: usize,
    weight: f64,
) -> usize {
    let (mut score, mut best, mut cut) = (0.0f64, 0.0f64, 0usize);
    for d in 0..r.len() {
        let w = &words[if from_start {
            r.start + d
        } else {
            r.end - 1 - d
        }];
        if w.stop {
            continue;
        }
        if other.binary_search(&w.term).is_ok() {
            score -= weight;
        } else {
            score += 1.0;
            if score > best {
                best = score;
                cut = d + 1;
            }
        }
    }
    if best >= lead as f64 { cut } else { 0 }
}

/// Trims a passage pair's edges to where its text shares content words with the other
/// document's passage: at each edge, the words up to where the content words not found in the
/// other passage most outnumber those found (each found one weighing so much that text with
/// [`TRIM_RELATIVE_RATE`] of the passage's rate of found words breaks even), when they do by at
/// least `lead`. Sentence-level extension takes whole sentences, and reused text often begins
/// or ends inside one. Summaries and fitted copies are left as they are.
pub(crate) fn trim_edges(span: Span, susp: &Doc, src: &Doc, lead: usize) -> Span {
    if span.fitted() {
        return span;
    }
    let (tw, sw) = (word_range(susp, &span.susp), word_range(src, &span.src));
    let (tt, st) = (
        content_terms(&susp.words[tw.clone()]),
        content_terms(&src.words[sw.clone()]),
    );
    let mut out = span;
    for (doc, w, other, side) in [
        (susp, &tw, &st, &mut out.susp),
        (src, &sw, &tt, &mut out.src),
    ] {
        let weight = trim_weight(&doc.words[w.clone()], other);
        let head = trim_side(&doc.words, w.clone(), other, true, lead, weight);
        let tail = trim_side(&doc.words, w.clone(), other, false, lead, weight);
        // A side whose content words are all unmatched stays (both cuts would meet).
        if head + tail < w.len() {
            if head > 0 {
                side.start = doc.words[w.start + head].start as usize;
            }
            if tail > 0 {
                side.end = doc.words[w.end - 1 - tail].end as usize;
            }
        }
    }
    out
}
