//! The alignment algorithm: sentence tf-idf vectors, seeding, extension by recursive gap
//! clustering with validation, and filtering.
use std::ops::{Range, RangeInclusive};

use crate::Language;
use crate::refine::{self, Span};
use crate::text::{Doc, Prepared, Vectors, ngram_key, pair_terms};
use crate::{Aligner, Passage};

/// A seed: a pair of similar sentences (suspicious sentence, source sentence, cosine).
type Seed = (u32, u32, f32);

/// Rounds of splitting (alternating sides) after which the gap clustering gives a part up: it
/// becomes no passage. Each round sorts the part's seeds again, so this bounds the clustering
/// to `MAX_CLUSTER_ROUNDS` sorts of the seeds per extension. No pair of the PAN 2013 training
/// corpus needs more than 4 rounds with the default settings; seeds laid out as a spiral (each
/// seed bridging the gap that the previous ones leave on one side) need one round per seed.
pub(crate) const MAX_CLUSTER_ROUNDS: u32 = 32;

/// What one alignment did, counted, so that tests can bound the work on hostile inputs without
/// timing it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Work {
    /// Sentences of the suspicious and of the source document.
    pub sentences: (u64, u64),
    /// Term occurrences in the suspicious document's sentence vectors (after the postings cap).
    pub susp_terms: u64,
    /// Terms dropped because they occur in more source sentences than the postings cap.
    pub terms_over_cap: u64,
    /// Inverted-index postings visited while seeding (terms and n-grams).
    pub postings: u64,
    /// Sentence pairs whose similarity was computed while seeding.
    pub candidates: u64,
    /// Seeds left after the per-sentence caps.
    pub seeds: u64,
    /// Seeds sorted by the gap clustering, summed over its rounds and extensions.
    pub cluster_steps: u64,
    /// Parts the clustering gave up after [`MAX_CLUSTER_ROUNDS`] rounds.
    pub clusters_abandoned: u64,
    /// The most rounds one clustering took.
    pub cluster_rounds: u32,
    /// Terms summed by validation (cosines of passage pairs).
    pub validation_terms: u64,
}

/// Everything the algorithm needs about one document pair.
struct Pair<'a> {
    aligner: &'a Aligner,
    susp: &'a Doc,
    src: &'a Doc,
    susp_vec: Vectors,
    src_vec: Vectors,
    /// Terms `0..susp_terms` are the suspicious document's; the source's others come after.
    susp_terms: usize,
    /// Dense scratch accumulators of vocabulary size.
    acc_a: Vec<f64>,
    acc_b: Vec<f64>,
    touched: Vec<u32>,
    work: Work,
}

impl Aligner {
    /// Finds the passages of `suspicious` reused from `source`, sorted by their start in
    /// `suspicious`. Ranges are byte offsets on `char` boundaries of the respective texts.
    pub fn align(&self, source: &str, suspicious: &str) -> Vec<Passage> {
        self.align_counted(source, suspicious).0
    }

    /// The language a pair is aligned in: the configured one ([`AlignerBuilder::language`]), or
    /// the suspicious document's detected language when [`AlignerBuilder::detect_language`] is
    /// on and detection is sure.
    ///
    /// [`AlignerBuilder::language`]: crate::AlignerBuilder::language
    /// [`AlignerBuilder::detect_language`]: crate::AlignerBuilder::detect_language
    pub fn language_of(&self, suspicious: &str) -> Language {
        if self.detect_language {
            Language::detect(suspicious).unwrap_or(self.language)
        } else {
            self.language
        }
    }

    /// Tokenizes `text` for [`Aligner::align_prepared`], in the language it would be aligned
    /// in as the suspicious document ([`Aligner::language_of`]). A prepared source in another
    /// language than its suspicious document's is tokenized again for that pair.
    ///
    /// ```
    /// use textreuse_align::Aligner;
    ///
    /// let aligner = Aligner::builder().min_passage_len(40).build()?;
    /// let source = aligner.prepare("Honey bees build combs of wax. They store honey and \
    ///     pollen in the cells of the comb. A queen lays the eggs.");
    /// for text in ["Wasps are not bees. Honey bees store honey and pollen in the cells of \
    ///     the comb. A queen lays the eggs.", "Nothing in common here at all."] {
    ///     let suspicious = aligner.prepare(text);
    ///     let passages = aligner.align_prepared(&source, &suspicious);
    ///     assert_eq!(passages, aligner.align(source.text(), text));
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prepare<'t>(&self, text: &'t str) -> Prepared<'t> {
        let mut prepared = Prepared::cached(
            text,
            self.language_of(text),
            self.min_sentence_words,
            self.cache_forms,
        );
        prepared.settings = Some(self.tokenizing());
        prepared
    }

    /// The settings that decide how [`Aligner::prepare`] tokenizes a text.
    fn tokenizing(&self) -> (usize, Language, bool) {
        (self.min_sentence_words, self.language, self.detect_language)
    }

    /// [`Aligner::align`] on documents prepared by [`Aligner::prepare`] (of this aligner or
    /// one with the same [`min_sentence_words`](crate::AlignerBuilder::min_sentence_words)
    /// and language settings; others are tokenized again): the same passages, without
    /// tokenizing the texts again.
    pub fn align_prepared(&self, source: &Prepared<'_>, suspicious: &Prepared<'_>) -> Vec<Passage> {
        self.align_prepared_counted(source, suspicious).0
    }

    /// [`Aligner::align`], with the work it did.
    pub(crate) fn align_counted(&self, source: &str, suspicious: &str) -> (Vec<Passage>, Work) {
        let suspicious = self.prepare(suspicious);
        let source = Prepared::cached(
            source,
            suspicious.language,
            self.min_sentence_words,
            self.cache_forms,
        );
        self.align_prepared_counted(&source, &suspicious)
    }

    /// [`Aligner::align_prepared`], with the work it did.
    fn align_prepared_counted(
        &self,
        source: &Prepared<'_>,
        suspicious: &Prepared<'_>,
    ) -> (Vec<Passage>, Work) {
        let msw = self.min_sentence_words;
        let again;
        let suspicious = if suspicious.settings == Some(self.tokenizing()) {
            suspicious
        } else {
            again = self.prepare(suspicious.text);
            &again
        };
        let again;
        let source = if source.min_sentence_words == msw && source.language == suspicious.language {
            source
        } else {
            again = Prepared::cached(source.text, suspicious.language, msw, self.cache_forms);
            &again
        };
        let mut work = Work::default();
        let (src_doc, map, n) = pair_terms(suspicious, source, self.synonyms);
        let suspicious_terms = suspicious.terms();
        let (susp, src) = (&suspicious.doc, &src_doc);
        if susp.sentences.is_empty() || src.sentences.is_empty() {
            return (Vec::new(), work);
        }
        // Term counts per sentence, on the pair's numbering (the suspicious document's own).
        let mut susp_vec = suspicious.counts.clone();
        let mut src_vec = source.counts.renumbered(&map);
        let (suspicious, source) = (suspicious.text, source.text);
        // Terms in more source sentences than the postings cap are left out of both documents'
        // vectors, like stopwords: seeding visits each term's source sentences, so this bounds
        // its work per suspicious word.
        let mut df = vec![0u32; n];
        for &t in &src_vec.terms {
            df[t as usize] += 1;
        }
        let over = |t: u32| df[t as usize] as usize > self.max_postings;
        work.terms_over_cap = (0..n as u32).filter(|&t| over(t)).count() as u64;
        if work.terms_over_cap > 0 {
            susp_vec.retain_terms(|t| !over(t));
            src_vec.retain_terms(|t| !over(t));
        }
        // idf over the sentences of both documents.
        df.iter_mut().for_each(|d| *d = 0);
        for &t in susp_vec.terms.iter().chain(&src_vec.terms) {
            df[t as usize] += 1;
        }
        let total = (susp_vec.len() + src_vec.len()) as f64;
        let idf: Vec<f64> = df
            .iter()
            .map(|&d| if d == 0 { 0.0 } else { (total / d as f64).ln() })
            .collect();
        for v in [&mut susp_vec, &mut src_vec] {
            for (w, &t) in v.weights.iter_mut().zip(&v.terms) {
                *w *= idf[t as usize];
            }
            v.norms = (0..v.rows.len() - 1)
                .map(|i| {
                    v.weights[v.rows[i]..v.rows[i + 1]]
                        .iter()
                        .map(|w| w * w)
                        .sum::<f64>()
                        .sqrt()
                })
                .collect();
        }
        let mut pair = Pair {
            aligner: self,
            susp,
            src,
            susp_vec,
            src_vec,
            susp_terms: suspicious_terms,
            acc_a: vec![0.0; n],
            acc_b: vec![0.0; n],
            touched: Vec::new(),
            work,
        };
        pair.work.sentences = (pair.susp_vec.len() as u64, pair.src_vec.len() as u64);
        pair.work.susp_terms = pair.susp_vec.terms.len() as u64;
        let (mut seeds, mut fallback) = pair.seeds();
        if self.best_ratio > 0.0 {
            // Seeds much weaker than the best seed of their suspicious sentence are dropped:
            // they mostly stretch passages over neighbouring sentences of similar wording.
            let mut best = vec![0f32; pair.susp.sentences.len()];
            for seeds in [&mut seeds, &mut fallback] {
                best.iter_mut().for_each(|b| *b = 0.0);
                for s in seeds.iter() {
                    best[s.0 as usize] = best[s.0 as usize].max(s.2);
                }
                let r = self.best_ratio as f32;
                seeds.retain(|s| s.2 >= r * best[s.0 as usize]);
            }
        }
        if seeds.is_empty() && fallback.is_empty() {
            return (Vec::new(), pair.work);
        }
        let mut frags = pair.extend_all(
            &seeds,
            self.max_gap,
            self.max_gap,
            self.validation_threshold,
        );
        if !fallback.is_empty() {
            // Fallback passages may only add where the first extension found nothing. Passages
            // run from a sentence's start to a sentence's end, so two overlap exactly when they
            // share a sentence: the seeds in sentences the first passages cover, on either
            // side, are left out, and so is a fallback passage over such a sentence.
            let in_susp = covered(pair.susp, frags.iter().map(|f| &f.susp));
            let in_src = covered(pair.src, frags.iter().map(|f| &f.src));
            fallback.retain(|&(i, j, _)| !in_susp[i as usize] && !in_src[j as usize]);
            if !fallback.is_empty() && fallback != seeds {
                let free = |doc: &Doc, c: &[bool], r: &Range<usize>| {
                    !c[sentence_range(doc, r)].contains(&true)
                };
                let mut extra: Vec<Frag> = pair
                    .extend_all(
                        &fallback,
                        self.max_gap,
                        self.max_gap,
                        self.validation_threshold,
                    )
                    .into_iter()
                    .filter(|e| {
                        free(pair.susp, &in_susp, &e.susp) && free(pair.src, &in_src, &e.src)
                    })
                    .collect();
                if !extra.is_empty() {
                    frags.append(&mut extra);
                    frags.sort_by_key(|f| (f.susp.start, f.src.start));
                }
            }
        }
        if let Some(gap) = self.summary_max_gap {
            // Summary-like passages (much longer in the source) from a run with the large gap
            // replace the passages of the normal run that they overlap.
            let mut summary = pair.extend_all(&seeds, gap, gap, self.summary_validation_threshold);
            summary.retain(|f| f.src.len() as f64 >= self.summary_ratio * f.susp.len() as f64);
            if !summary.is_empty() {
                // Both lists are sorted by their start in the suspicious document.
                let mut j = 0;
                frags.retain(|f| {
                    while j < summary.len() && summary[j].susp.end <= f.susp.start {
                        j += 1;
                    }
                    !(j < summary.len() && overlaps(&summary[j].susp, &f.susp))
                });
                frags.extend(summary);
                frags.sort_by_key(|f| (f.susp.start, f.src.start));
            }
        }
        let mut spans: Vec<Span> = frags
            .into_iter()
            .map(|f| Span {
                susp: f.susp,
                src: f.src,
                score: f.score,
                summary: false,
                copy: false,
            })
            .collect();
        if let (Some(_), Some(snap)) = (self.summary_max_gap, self.summary_snap) {
            refine::merge_summary(&mut spans, source.len(), self.summary_ratio, snap);
        }
        if let Some(cover) = self.copy_cover {
            for span in &mut spans {
                *span = refine::fit_copy(
                    std::mem::take(span),
                    pair.susp,
                    pair.src,
                    suspicious,
                    source,
                    cover,
                );
            }
        }
        if let Some(lead) = self.edge_trim {
            for span in &mut spans {
                *span = refine::trim_edges(std::mem::take(span), pair.susp, pair.src, lead);
            }
        }
        if let Some(window) = self.edge_window {
            for span in &mut spans {
                *span = refine::grow_edges(
                    std::mem::take(span),
                    pair.susp,
                    pair.src,
                    (suspicious, source),
                    window,
                    self.edge_density,
                );
            }
        }
        // Fitting, trimming and growing moved the edges: the minimum length applies again.
        spans.retain(|s| {
            s.susp.len() >= self.min_passage_len && s.src.len() >= self.min_passage_len
        });
        spans.sort_by_key(|s| (s.susp.start, s.src.start));
        let best = spans.iter().map(|s| s.score).fold(0.0, f64::max);
        spans.retain(|s| s.score >= self.best_passage_ratio * best);
        let passages = spans
            .into_iter()
            .map(|s| Passage {
                source: s.src,
                suspicious: s.susp,
                score: s.score,
            })
            .collect();
        (passages, pair.work)
    }
}

/// The sentences of `doc` that the byte range `r` overlaps.
fn sentence_range(doc: &Doc, r: &Range<usize>) -> Range<usize> {
    let first = doc.sentences.partition_point(|s| s.span.end <= r.start);
    let end = doc.sentences.partition_point(|s| s.span.start < r.end);
    first..end.max(first)
}

/// Which sentences of `doc` the byte ranges overlap, in time linear in their number and the
/// sentences' (the ranges may overlap one another).
fn covered<'a>(doc: &Doc, ranges: impl Iterator<Item = &'a Range<usize>>) -> Vec<bool> {
    let mut starts = vec![0i32; doc.sentences.len() + 1];
    for r in ranges {
        let s = sentence_range(doc, r);
        starts[s.start] += 1;
        starts[s.end] -= 1;
    }
    let mut open = 0;
    starts[..doc.sentences.len()]
        .iter()
        .map(|d| {
            open += d;
            open > 0
        })
        .collect()
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// A candidate passage pair: sentence ranges, byte ranges and the validation similarity.
#[derive(Clone, Debug)]
struct Frag {
    susp_sents: RangeInclusive<u32>,
    susp: Range<usize>,
    src: Range<usize>,
    score: f64,
}

/// The source sentences of each word n-gram of the source, and the suspicious document's
/// n-grams in order, for n-gram seeds.
struct Grams {
    /// The bit marking a source sentence that shares one of these n-grams.
    bit: u8,
    /// The source's n-grams as a hash table with chaining: `head[slot]` is the last entry
    /// put in that slot, each entry (n-gram hash, source sentence, the slot's entry before).
    /// One entry per n-gram and sentence; no allocation per n-gram.
    head: Vec<u32>,
    entries: Vec<(u64, u32, u32)>,
    bits: u32,
    /// (n-gram hash, sentence of its first word), in document order.
    susp: Vec<(u64, u32)>,
    next: usize,
}

/// No entry.
const END: u32 = u32::MAX;

impl Grams {
    /// The `k`-grams of all normalized words, or of the stopwords only when `stop_only`. Only
    /// n-grams whose terms are all `shared` by both documents can match: the others are left
    /// out (most of them, between unrelated documents).
    fn new(src: &Doc, susp: &Doc, k: usize, stop_only: bool, bit: u8, shared: &[bool]) -> Grams {
        let k = k.max(1);
        let grams = |doc: &Doc| -> Vec<(u64, u32)> {
            let mut out = Vec::new();
            // The last (up to k) consecutive shared words: (term, sentence).
            let mut run: Vec<(u32, u32)> = Vec::with_capacity(k);
            for (si, s) in doc.sentences.iter().enumerate() {
                for w in &doc.words[s.words.clone()] {
                    if stop_only && !w.stop {
                        continue;
                    }
                    if !shared[w.term as usize] {
                        run.clear();
                        continue;
                    }
                    if run.len() == k {
                        run.remove(0);
                    }
                    run.push((w.term, si as u32));
                    if run.len() == k {
                        out.push((ngram_key(run.iter().map(|x| x.0)), run[0].1));
                    }
                }
            }
            out
        };
        let src = grams(src);
        // At least twice as many slots as n-grams.
        let bits = (src.len().max(1) * 2).next_power_of_two().trailing_zeros();
        let mut g = Grams {
            bit,
            head: vec![END; 1 << bits],
            entries: Vec::with_capacity(src.len()),
            bits,
            susp: grams(susp),
            next: 0,
        };
        for (h, s) in src {
            // Sentences come in order: an n-gram repeated within one sentence is kept once.
            if g.postings(h).next() == Some(s) {
                continue;
            }
            let slot = g.slot(h);
            g.entries.push((h, s, g.head[slot]));
            g.head[slot] = (g.entries.len() - 1) as u32;
        }
        g
    }

    fn slot(&self, h: u64) -> usize {
        // The n-gram hash's high bits, mixed (its low bits depend on the terms' low bits only).
        (h.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.bits)) as usize
    }

    /// The source sentences that have the n-gram `h`, the last first.
    fn postings(&self, h: u64) -> Postings<'_> {
        Postings {
            grams: self,
            hash: h,
            at: self.head[self.slot(h)],
        }
    }
}

/// The source sentences of one n-gram ([`Grams::postings`]).
struct Postings<'a> {
    grams: &'a Grams,
    hash: u64,
    at: u32,
}

impl Iterator for Postings<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        while self.at != END {
            let (h, s, before) = self.grams.entries[self.at as usize];
            self.at = before;
            if h == self.hash {
                return Some(s);
            }
        }
        None
    }
}

impl Pair<'_> {
    /// The seeds, sorted by suspicious then source sentence: sentence pairs with cosine (tf-idf)
    /// and Dice (term sets) above the thresholds, found through an inverted index of the source
    /// sentences, and sentence pairs sharing a word n-gram when enabled. Each sentence, on
    /// either side, keeps its `max_seeds` most similar seeds. Second, the fallback seeds (empty
    /// unless [`AlignerBuilder::fallback_ngram`](crate::AlignerBuilder::fallback_ngram) is set):
    /// the same, with the sentence pairs sharing a fallback n-gram, capped alike.
    fn seeds(&mut self) -> (Vec<Seed>, Vec<Seed>) {
        let a = self.aligner;
        let n = self.acc_a.len();
        // Inverted index: term -> (source sentence, weight), as CSR. Terms over the postings
        // cap are already gone from the vectors.
        let mut starts = vec![0usize; n + 1];
        for &t in &self.src_vec.terms {
            starts[t as usize + 1] += 1;
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut post = vec![(0u32, 0.0f64); self.src_vec.terms.len()];
        for s in 0..self.src_vec.len() {
            let (terms, weights) = self.src_vec.row(s);
            for (&t, &w) in terms.iter().zip(weights) {
                post[fill[t as usize]] = (s as u32, w);
                fill[t as usize] += 1;
            }
        }
        drop(fill);
        // Mark bits: 1 touched, 2 shares a seeding n-gram, 4 shares a fallback n-gram.
        let kinds: Vec<(usize, bool, u8)> = [
            (a.ngram, false, 2),
            (a.stopword_ngram, true, 2),
            (a.fallback_ngram, false, 4),
        ]
        .into_iter()
        .filter_map(|(k, stop, bit)| k.map(|k| (k, stop, bit)))
        .collect();
        let mut grams: Vec<Grams> = Vec::with_capacity(kinds.len());
        if !kinds.is_empty() {
            // Terms in both documents: the suspicious document's terms a source word has.
            let mut in_both = vec![false; n];
            for w in &self.src.words {
                if (w.term as usize) < self.susp_terms {
                    in_both[w.term as usize] = true;
                }
            }
            grams.extend(
                kinds
                    .into_iter()
                    .map(|(k, stop, bit)| Grams::new(self.src, self.susp, k, stop, bit, &in_both)),
            );
        }
        let m = self.src_vec.len();
        let mut dot = vec![0.0f64; m];
        let mut shared = vec![0u32; m];
        let mut mark = vec![0u8; m];
        let mut touched: Vec<u32> = Vec::new();
        // The source sentences of one n-gram.
        let mut hits: Vec<u32> = Vec::new();
        let mut row: Vec<Seed> = Vec::new();
        let mut fallback_row: Vec<Seed> = Vec::new();
        let mut seeds: Vec<Seed> = Vec::new();
        let mut fallback: Vec<Seed> = Vec::new();
        let best_first = |x: &Seed, y: &Seed| y.2.total_cmp(&x.2).then((x.0, x.1).cmp(&(y.0, y.1)));
        for i in 0..self.susp_vec.len() {
            let (terms, weights) = self.susp_vec.row(i);
            let norm_i = self.susp_vec.norms[i];
            if norm_i > 0.0 {
                for (&t, &w) in terms.iter().zip(weights) {
                    let list = &post[starts[t as usize]..starts[t as usize + 1]];
                    self.work.postings += list.len() as u64;
                    for &(s, v) in list {
                        let su = s as usize;
                        if mark[su] == 0 {
                            mark[su] = 1;
                            touched.push(s);
                        }
                        shared[su] += 1;
                        dot[su] += w * v;
                    }
                }
            }
            for g in &mut grams {
                while let Some(&(h, si)) = g.susp.get(g.next) {
                    if si as usize != i {
                        break;
                    }
                    g.next += 1;
                    // One walk of the chain, stopped one past the cap.
                    hits.clear();
                    hits.extend(g.postings(h).take(a.max_postings.saturating_add(1)));
                    if hits.is_empty() || hits.len() > a.max_postings {
                        continue;
                    }
                    self.work.postings += hits.len() as u64;
                    for &s in &hits {
                        let su = s as usize;
                        if mark[su] == 0 {
                            touched.push(s);
                        }
                        mark[su] |= 1 | g.bit;
                    }
                }
            }
            let len_i = terms.len();
            self.work.candidates += touched.len() as u64;
            for &s in &touched {
                let su = s as usize;
                let norm_s = self.src_vec.norms[su];
                let len_s = self.src_vec.rows[su + 1] - self.src_vec.rows[su];
                let cos = if norm_i > 0.0 && norm_s > 0.0 {
                    dot[su] / (norm_i * norm_s)
                } else {
                    0.0
                };
                let similar = a.sentence_seeds && cos > a.cosine_threshold && {
                    let dice = 2.0 * shared[su] as f64 / (len_i + len_s) as f64;
                    dice > a.dice_threshold
                };
                let seed = (i as u32, s, cos as f32);
                if similar || mark[su] & 2 != 0 {
                    row.push(seed);
                }
                if mark[su] & 4 != 0
                    || (a.fallback_ngram.is_some() && (similar || mark[su] & 2 != 0))
                {
                    fallback_row.push(seed);
                }
                dot[su] = 0.0;
                shared[su] = 0;
                mark[su] = 0;
            }
            touched.clear();
            for (row, out) in [(&mut row, &mut seeds), (&mut fallback_row, &mut fallback)] {
                if row.len() > a.max_seeds {
                    row.select_nth_unstable_by(a.max_seeds - 1, best_first);
                    row.truncate(a.max_seeds);
                }
                out.append(row);
            }
        }
        // The same cap per source sentence.
        for seeds in [&mut seeds, &mut fallback] {
            seeds.sort_unstable_by(|x, y| x.1.cmp(&y.1).then(best_first(x, y)));
            let mut run = (u32::MAX, 0);
            seeds.retain(|s| {
                if s.1 != run.0 {
                    run = (s.1, 0);
                }
                run.1 += 1;
                run.1 <= a.max_seeds
            });
            seeds.sort_unstable_by_key(|s| (s.0, s.1));
        }
        self.work.seeds = seeds.len() as u64;
        (seeds, fallback)
    }

    /// Extension of all seeds: recursive gap clustering, validation with decreasing gaps,
    /// overlap resolution and the length filter.
    fn extend_all(
        &mut self,
        seeds: &[Seed],
        susp_gap: usize,
        src_gap: usize,
        threshold: f64,
    ) -> Vec<Frag> {
        let mut frags = Vec::new();
        self.extend(seeds.to_vec(), susp_gap, src_gap, threshold, &mut frags);
        self.resolve_overlaps(frags)
    }

    /// Clusters `seeds` and keeps the clusters whose passages' cosine exceeds `threshold`;
    /// the others are clustered again with smaller gaps.
    fn extend(
        &mut self,
        seeds: Vec<Seed>,
        susp_gap: usize,
        src_gap: usize,
        threshold: f64,
        out: &mut Vec<Frag>,
    ) {
        let mut clusters = Vec::new();
        cluster(seeds, susp_gap, src_gap, &mut clusters, &mut self.work);
        for c in clusters {
            if c.len() < self.aligner.min_seeds {
                continue;
            }
            let susp =
                c.iter().map(|s| s.0).min().unwrap_or(0)..=c.iter().map(|s| s.0).max().unwrap_or(0);
            let src =
                c.iter().map(|s| s.1).min().unwrap_or(0)..=c.iter().map(|s| s.1).max().unwrap_or(0);
            let score = self.fragment_cosine(&susp, &src);
            if score > threshold {
                out.push(self.frag(susp, src, score));
            } else if susp_gap.max(src_gap) > self.aligner.min_gap {
                let (a, b) = (
                    susp_gap.saturating_sub(1).max(self.aligner.min_gap),
                    src_gap.saturating_sub(1).max(self.aligner.min_gap),
                );
                self.extend(c, a, b, threshold, out);
            }
        }
    }

    fn frag(
        &self,
        susp_sents: RangeInclusive<u32>,
        src_sents: RangeInclusive<u32>,
        score: f64,
    ) -> Frag {
        let span = |doc: &Doc, r: &RangeInclusive<u32>| {
            doc.sentences[*r.start() as usize].span.start..doc.sentences[*r.end() as usize].span.end
        };
        Frag {
            susp: span(self.susp, &susp_sents),
            src: span(self.src, &src_sents),
            susp_sents,
            score,
        }
    }

    /// Cosine between the summed tf-idf vectors of two sentence ranges.
    fn fragment_cosine(&mut self, susp: &RangeInclusive<u32>, src: &RangeInclusive<u32>) -> f64 {
        for i in susp.clone() {
            let (t, w) = self.susp_vec.row(i as usize);
            self.work.validation_terms += t.len() as u64;
            for (&t, &w) in t.iter().zip(w) {
                if self.acc_a[t as usize] == 0.0 && self.acc_b[t as usize] == 0.0 {
                    self.touched.push(t);
                }
                self.acc_a[t as usize] += w;
            }
        }
        for i in src.clone() {
            let (t, w) = self.src_vec.row(i as usize);
            self.work.validation_terms += t.len() as u64;
            for (&t, &w) in t.iter().zip(w) {
                if self.acc_a[t as usize] == 0.0 && self.acc_b[t as usize] == 0.0 {
                    self.touched.push(t);
                }
                self.acc_b[t as usize] += w;
            }
        }
        let (mut dot, mut na, mut nb) = (0.0, 0.0, 0.0);
        for &t in &self.touched {
            let (a, b) = (self.acc_a[t as usize], self.acc_b[t as usize]);
            dot += a * b;
            na += a * a;
            nb += b * b;
            self.acc_a[t as usize] = 0.0;
            self.acc_b[t as usize] = 0.0;
        }
        self.touched.clear();
        if na == 0.0 || nb == 0.0 {
            0.0
        } else {
            dot / (na.sqrt() * nb.sqrt())
        }
    }

    /// Drops fragments shorter than the minimum and, of fragments overlapping in the suspicious
    /// document, keeps the more similar one (the longer one on a tie).
    fn resolve_overlaps(&self, mut frags: Vec<Frag>) -> Vec<Frag> {
        let min = self.aligner.min_passage_len;
        frags.retain(|f| f.susp.len() >= min && f.src.len() >= min);
        frags.sort_by(|a, b| {
            a.susp
                .start
                .cmp(&b.susp.start)
                .then(b.susp.end.cmp(&a.susp.end))
                .then(a.src.start.cmp(&b.src.start))
        });
        let mut kept: Vec<Frag> = Vec::with_capacity(frags.len());
        for f in frags {
            match kept.last_mut() {
                Some(last) if f.susp_sents.start() <= last.susp_sents.end() => {
                    let better = f.score > last.score
                        || f.score == last.score && f.susp.len() > last.susp.len();
                    if better {
                        *last = f;
                    }
                }
                _ => kept.push(f),
            }
        }
        kept
    }
}

/// Recursive gap clustering (Sanchez-Perez et al. 2014): split the seeds where consecutive
/// seeds are more than `gap` sentences apart on one side, then split each part on the other side,
/// alternating until no part splits. A part still splitting after [`MAX_CLUSTER_ROUNDS`] rounds
/// is dropped.
fn cluster(
    seeds: Vec<Seed>,
    susp_gap: usize,
    src_gap: usize,
    out: &mut Vec<Vec<Seed>>,
    work: &mut Work,
) {
    let key = |x: &Seed, src_side: bool| if src_side { (x.1, x.0) } else { (x.0, x.1) };
    let mut stack = vec![(seeds, false, false, 0u32)];
    while let Some((mut s, src_side, again, round)) = stack.pop() {
        work.cluster_steps += s.len() as u64;
        work.cluster_rounds = work.cluster_rounds.max(round + 1);
        s.sort_unstable_by_key(|x| key(x, src_side));
        let gap = if src_side { src_gap } else { susp_gap } as u32;
        let mut parts = Vec::new();
        let mut start = 0;
        for i in 1..=s.len() {
            if i == s.len() || key(&s[i], src_side).0 - key(&s[i - 1], src_side).0 > gap + 1 {
                parts.push(s[start..i].to_vec());
                start = i;
            }
        }
        if parts.len() <= 1 && again {
            out.extend(parts);
        } else if round + 1 >= MAX_CLUSTER_ROUNDS {
            work.clusters_abandoned += parts.len() as u64;
        } else {
            for p in parts.into_iter().rev() {
                stack.push((p, !src_side, true, round + 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeds laid out as a spiral with gap 4: each new seed bridges the gap between the previous
    /// ones on one side and lies 6 sentences beyond them on the other, so each clustering round
    /// splits one seed off.
    fn spiral(n: usize) -> Vec<Seed> {
        let mut seeds = vec![(0u32, 0u32, 1.0f32), (6, 0, 1.0)];
        let (mut x, mut y) = (6, 0);
        while seeds.len() < n {
            if seeds.len() % 2 == 0 {
                y += 6;
                seeds.push((x - 3, y, 1.0));
            } else {
                x += 6;
                seeds.push((x, y - 3, 1.0));
            }
        }
        seeds
    }

    #[test]
    fn clustering_rounds_are_capped() {
        let mut out = Vec::new();
        let mut work = Work::default();
        cluster(spiral(12), 4, 4, &mut out, &mut work);
        // Settles: one round per seed, every seed in a part of its own.
        assert_eq!(out.len(), 12);
        assert!(work.cluster_rounds >= 11, "{work:?}");
        assert_eq!(work.clusters_abandoned, 0);
        let (mut out, mut work) = (Vec::new(), Work::default());
        let n = 1000;
        cluster(spiral(n), 4, 4, &mut out, &mut work);
        assert_eq!(work.cluster_rounds, MAX_CLUSTER_ROUNDS);
        assert!(work.clusters_abandoned > 0);
        // Each round sorts the remaining seeds once: without the cap about n^2 / 2.
        assert!(
            work.cluster_steps <= u64::from(MAX_CLUSTER_ROUNDS) * n as u64,
            "{work:?}"
        );
    }
}
