//! Candidates by tf-idf: each chunk's most weighted terms, pairs scored by their shared terms,
//! each chunk's best documents.
//!
//! 1. Document frequencies of the terms (words of at least three characters, ASCII-lowercased
//!    keys) over both corpora.
//! 2. Each chunk becomes a tf-idf vector, `(1 + ln tf) · ln(1 + N / df)` (a term in every
//!    document still weighs something: two-document corpora work), normalised over all its
//!    terms; its `terms` heaviest entries become `(term, chunk | weight)` records in an external
//!    sort (dedup's [`RecordSorter`](textreuse_dedup::shuffle::RecordSorter)).
//! 3. Each term's postings give chunk pairs (terms in more than `max_postings` chunks are
//!    skipped, as in Elsayed, Lin and Oard's pairwise similarity), whose weight products go
//!    through a second sort keyed by the chunk pair.
//! 4. Summed, the products are the pruned vectors' dot product; each chunk keeps the `top_docs`
//!    documents with its best-scoring chunks, and those chunk-to-document picks are the
//!    candidate document pairs.
//!
//! Every step is a sort or a fold in a fixed order, so the candidates are the same for any
//! thread count and memory budget.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::time::Instant;

use rayon::prelude::*;
use textreuse_align::index::chunk_spans;
use textreuse_dedup::shuffle::{MIN_MEM_BUDGET, ShuffleBuilder};
use textreuse_shingle::words;

use crate::{ReuseError, ReuseStats, SIGN_BATCH};

/// The keys are fingerprints already, so the map uses them as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

type DocFreqs = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

/// The options of the tf-idf stage.
#[derive(Clone, Debug)]
pub(crate) struct TfIdfOptions {
    pub(crate) min_words: usize,
    pub(crate) terms: usize,
    pub(crate) top_docs: usize,
    pub(crate) max_postings: usize,
}

/// The keys of the terms of `text`: its words of at least three characters.
fn term_keys(text: &str, out: &mut Vec<u64>) {
    out.clear();
    out.extend(
        words(text)
            .filter(|w| w.as_str().chars().nth(2).is_some())
            .map(|w| w.key()),
    );
}

/// The pruned, normalised tf-idf vectors of the chunks of `text` (chunks without a weighted
/// term are left out), as `(term, weight)` lists.
fn chunk_vectors(text: &str, df: &DocFreqs, docs: f64, o: &TfIdfOptions) -> Vec<Vec<(u64, f32)>> {
    let mut spans: Vec<Range<usize>> = Vec::new();
    chunk_spans(text, o.min_words, &mut spans);
    let mut keys = Vec::new();
    let mut out = Vec::with_capacity(spans.len());
    for span in spans {
        term_keys(&text[span], &mut keys);
        keys.sort_unstable();
        let mut v: Vec<(u64, f64)> = Vec::new();
        for run in keys.chunk_by(|a, b| a == b) {
            let df = df.get(&run[0]).copied().unwrap_or(1).max(1);
            let w = (1.0 + (run.len() as f64).ln()) * (1.0 + docs / f64::from(df)).ln();
            if w > 0.0 {
                v.push((run[0], w));
            }
        }
        let norm = v.iter().map(|&(_, w)| w * w).sum::<f64>().sqrt();
        if v.is_empty() || norm <= 0.0 {
            continue;
        }
        // Heaviest first, ties by term: the same terms on every machine.
        let by_weight = |a: &(u64, f64), b: &(u64, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if v.len() > o.terms {
            v.select_nth_unstable_by(o.terms - 1, by_weight);
            v.truncate(o.terms);
        }
        out.push(v.into_iter().map(|(t, w)| (t, (w / norm) as f32)).collect());
    }
    out
}

/// Candidate document pairs `(a < b) -> chunks that picked the pair`, filling the tf-idf
/// counts of `stats`. `n_corpus` documents come first; with `against`, only pairs across the
/// two sides count and only the corpus's chunks pick.
pub(crate) fn candidates<'d>(
    total: usize,
    n_corpus: usize,
    against: bool,
    doc: &(dyn Fn(usize) -> &'d str + Sync),
    o: &TfIdfOptions,
    shuffle: &ShuffleBuilder,
    stats: &mut ReuseStats,
) -> Result<BTreeMap<(u32, u32), u32>, ReuseError> {
    // Stage 1: document frequencies.
    let started = Instant::now();
    let mut df = DocFreqs::default();
    for first in (0..total).step_by(SIGN_BATCH) {
        let last = (first + SIGN_BATCH).min(total);
        let batch: Vec<Vec<u64>> = (first..last)
            .into_par_iter()
            .map(|i| {
                let mut keys = Vec::new();
                term_keys(doc(i), &mut keys);
                keys.sort_unstable();
                keys.dedup();
                keys
            })
            .collect();
        for keys in batch {
            for k in keys {
                *df.entry(k).or_default() += 1;
            }
        }
    }
    stats.distinct_terms = df.len() as u64;

    // Two sorts are alive at once (the first read while the second fills): half each.
    let mut half = shuffle.clone();
    half.mem_budget((shuffle.budget() / 2).max(MIN_MEM_BUDGET));

    // Stage 2: chunk vectors -> (term, chunk | weight) records.
    let mut postings = half.build_sorter()?;
    let mut chunk_doc: Vec<u32> = Vec::new();
    let n_docs = total as f64;
    for first in (0..total).step_by(SIGN_BATCH) {
        let last = (first + SIGN_BATCH).min(total);
        let batch: Vec<Vec<Vec<(u64, f32)>>> = (first..last)
            .into_par_iter()
            .map(|i| chunk_vectors(doc(i), &df, n_docs, o))
            .collect();
        for (i, chunks) in (first..last).zip(batch) {
            for v in chunks {
                let Ok(chunk) = u32::try_from(chunk_doc.len()) else {
                    return Err(ReuseError::TooManyChunks);
                };
                chunk_doc.push(i as u32);
                for (term, w) in v {
                    postings.push(term, u64::from(chunk) << 32 | u64::from(w.to_bits()))?;
                }
            }
        }
    }
    drop(df);
    stats.chunks = chunk_doc.len() as u64;
    stats.term_records = postings.len();
    stats.seconds.chunk_and_sign = started.elapsed().as_secs_f64();
    let started = Instant::now();

    // Stage 3: postings -> (chunk pair, weight product | term) records.
    let mut postings = postings.finish()?;
    let mut products = half.build_sorter()?;
    let mut ids = Vec::new();
    let corpus_side = |chunk: u64| (chunk_doc[chunk as usize] as usize) < n_corpus;
    while let Some(term) = postings.next_group(&mut ids)? {
        if ids.len() > o.max_postings {
            stats.terms_over_cap += 1;
            continue;
        }
        for (i, &x) in ids.iter().enumerate() {
            let (a, wa) = (x >> 32, f32::from_bits(x as u32));
            for &y in &ids[i + 1..] {
                let (b, wb) = (y >> 32, f32::from_bits(y as u32));
                if chunk_doc[a as usize] == chunk_doc[b as usize] {
                    continue;
                }
                if against && corpus_side(a) == corpus_side(b) {
                    continue;
                }
                // The term's low bits keep equal products of different terms distinct.
                let id = u64::from((wa * wb).to_bits()) << 32 | (term & 0xffff_ffff);
                // Ids ascend, so `a` is the corpus's chunk when the sides differ.
                products.push(a << 32 | b, id)?;
                if !against {
                    products.push(b << 32 | a, id)?;
                }
            }
        }
    }
    stats.bytes_spilled = postings.bytes_spilled();
    drop(postings);
    stats.chunk_pairs = products.len();

    // Stage 4: each chunk's scores per document -> its best documents.
    let mut products = products.finish()?;
    stats.bytes_spilled += products.bytes_spilled();
    let mut pairs: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let mut current: Option<u64> = None;
    let mut best: Vec<(u32, f64)> = Vec::new();
    let mut pick = |chunk: u64, best: &mut Vec<(u32, f64)>| {
        let own = chunk_doc[chunk as usize];
        let by_score = |x: &(u32, f64), y: &(u32, f64)| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0));
        if best.len() > o.top_docs {
            best.select_nth_unstable_by(o.top_docs - 1, by_score);
            best.truncate(o.top_docs);
        }
        for &(other, _) in best.iter() {
            *pairs.entry((own.min(other), own.max(other))).or_default() += 1;
        }
        best.clear();
    };
    while let Some(key) = products.next_group(&mut ids)? {
        let (a, b) = (key >> 32, key & 0xffff_ffff);
        if current != Some(a) {
            if let Some(c) = current {
                pick(c, &mut best);
            }
            current = Some(a);
        }
        let score: f64 = ids
            .iter()
            .map(|&id| f64::from(f32::from_bits((id >> 32) as u32)))
            .sum();
        // `b` ascends within `a`, so one document's chunks are consecutive.
        let other = chunk_doc[b as usize];
        match best.last_mut() {
            Some((d, s)) if *d == other => *s = s.max(score),
            _ => best.push((other, score)),
        }
    }
    if let Some(c) = current {
        pick(c, &mut best);
    }
    stats.seconds.candidates = started.elapsed().as_secs_f64();
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(terms: usize) -> TfIdfOptions {
        TfIdfOptions {
            min_words: 3,
            terms,
            top_docs: 5,
            max_postings: 200,
        }
    }

    fn freqs(texts: &[&str]) -> DocFreqs {
        let mut df = DocFreqs::default();
        let mut keys = Vec::new();
        for t in texts {
            term_keys(t, &mut keys);
            keys.sort_unstable();
            keys.dedup();
            for &k in &keys {
                *df.entry(k).or_default() += 1;
            }
        }
        df
    }

    #[test]
    fn short_words_are_not_terms_and_case_is_folded() {
        let mut keys = Vec::new();
        term_keys("An owl AND the Owls and a cat", &mut keys);
        let owl = textreuse_shingle::word_key("owl");
        assert_eq!(keys.len(), 6); // an, a dropped
        assert_eq!(keys.iter().filter(|&&k| k == owl).count(), 1);
        assert_eq!(keys[0], owl);
        assert_eq!(keys[1], keys[4]); // AND, and
    }

    #[test]
    fn vectors_are_unit_length_before_pruning_and_keep_the_heaviest_terms() {
        let text = "rare rare words common common common everywhere here";
        let df = freqs(&[text, "common everywhere", "common everywhere here"]);
        let full = chunk_vectors(text, &df, 3.0, &options(100));
        let norm: f64 = full[0].iter().map(|&(_, w)| f64::from(w).powi(2)).sum();
        assert!((norm - 1.0).abs() < 1e-5, "{norm}");
        let pruned = chunk_vectors(text, &df, 3.0, &options(2));
        let mut heaviest = full[0].clone();
        heaviest.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut kept = pruned[0].clone();
        kept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        assert_eq!(kept, heaviest[..2]);
        // "rare" (twice, in one document) outweighs "common" (three times, in all).
        assert_eq!(kept[0].0, textreuse_shingle::word_key("rare"));
    }

    #[test]
    fn terms_of_every_document_still_weigh_something() {
        // Two documents sharing everything: with ln(N / df) every weight would be 0.
        let text = "the same paragraph in both documents of this corpus";
        let df = freqs(&[text, text]);
        let v = chunk_vectors(text, &df, 2.0, &options(20));
        assert_eq!(v.len(), 1);
        assert!(v[0].iter().all(|&(_, w)| w > 0.0));
    }
}
