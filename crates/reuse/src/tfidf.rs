//! Candidates by tf-idf: each chunk's most weighted terms, pairs scored by their shared terms,
//! each chunk's best documents.
//!
//! 1. Document frequencies of the terms (words of at least three characters, ASCII-lowercased
//!    keys) over both corpora.
//! 2. Each chunk becomes a tf-idf vector, `(1 + ln tf) · ln(1 + N / df)` (a term in every
//!    document still weighs something: two-document corpora work), normalised over all its
//!    terms, of which the `terms` heaviest are kept. A first pass counts each term's chunks
//!    (its postings); terms in more than `max_postings` chunks are skipped from then on, as in
//!    Elsayed, Lin and Oard's pairwise similarity (they weigh little and would cost the most).
//! 3. The index side (all chunks, or the other corpus's) is cut into blocks of documents whose
//!    postings fit the memory budget. For each block an inverted index is built, and every
//!    query chunk (all chunks, or the corpus's) accumulates its weight products with the
//!    block's chunks: the dot products of the pruned vectors. Vectors are recomputed from the
//!    text for each pass rather than stored.
//! 4. Each query chunk keeps the `top_docs` documents with its best-scoring chunks (merged over
//!    blocks: a document's best chunk is in some block, where it makes that block's list), and
//!    those chunk-to-document picks are the candidate document pairs.
//!
//! Sums run in a fixed term order and ties break by document number, so the candidates are the
//! same for any thread count, memory budget and number of blocks.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use textreuse_shingle::chunk_spans;
use textreuse_shingle::words;

use textreuse_corpus::{Progress, Stage};
use textreuse_shuffle::{RecordSorter, ShuffleBuilder};

use crate::candidates::{CandidateList, CandidateWriter};
use crate::doc_array::DocArray;
use crate::{ReuseError, ReuseStats, SIGN_BATCH};

/// Bytes of memory a posting costs while its block's index is built (the sort buffer and the
/// index): the unit of the block budget.
const POSTING_BYTES: u64 = 32;
/// Bytes of a block's chunk (its document's number), also counted in the block budget.
const CHUNK_DOC_BYTES: u64 = 4;

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

/// The terms' counts (document frequencies, or postings): a hash map, or under a memory bound
/// sorted arrays built by an external sort (12 bytes a term instead of the map's 20 to 40,
/// and no map to grow), or only the terms over the postings cap.
enum TermCounts {
    Map(DocFreqs),
    Sorted {
        keys: Vec<u64>,
        counts: Vec<u32>,
    },
    /// The terms whose count passed the cap, ascending (their counts are not kept).
    OverCap(Vec<u64>),
}

impl TermCounts {
    /// The count of `term`, if known (not for [`TermCounts::OverCap`]).
    fn get(&self, term: u64) -> Option<u32> {
        match self {
            TermCounts::Map(map) => map.get(&term).copied(),
            TermCounts::Sorted { keys, counts } => {
                keys.binary_search(&term).ok().map(|i| counts[i])
            }
            TermCounts::OverCap(_) => None,
        }
    }

    /// Whether `term`'s count is above `cap`.
    fn over(&self, term: u64, cap: usize) -> bool {
        match self {
            TermCounts::OverCap(over) => over.binary_search(&term).is_ok(),
            _ => self.get(term).is_some_and(|n| n as usize > cap),
        }
    }

    /// The number of terms whose count is above `cap`.
    fn count_over(&self, cap: usize) -> u64 {
        match self {
            TermCounts::Map(map) => map.values().filter(|&&n| n as usize > cap).count() as u64,
            TermCounts::Sorted { counts, .. } => {
                counts.iter().filter(|&&n| n as usize > cap).count() as u64
            }
            TermCounts::OverCap(over) => over.len() as u64,
        }
    }
}

/// Counts `(term, item)` records (distinct) by term, as sorted arrays: with a `cap`, only the
/// terms whose count is above it; without one, the terms counted more than once (a term
/// missing from the counts counts once: [`TermCounts::get`]'s callers read it as 1), and the
/// number of distinct terms beside them.
fn sorted_counts(
    sorter: textreuse_shuffle::RecordSorter,
    cap: Option<usize>,
    stats: &mut ReuseStats,
) -> Result<(TermCounts, u64), ReuseError> {
    let mut sorted = sorter.finish()?;
    let (mut keys, mut counts, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    let mut distinct = 0u64;
    while let Some(term) = sorted.next_group(&mut ids)? {
        distinct += 1;
        let kept = match cap {
            Some(cap) => ids.len() > cap,
            None => ids.len() > 1,
        };
        if kept {
            keys.push(term);
            counts.push(u32::try_from(ids.len()).unwrap_or(u32::MAX));
        }
    }
    stats.bytes_spilled += sorted.bytes_spilled();
    keys.shrink_to_fit();
    counts.shrink_to_fit();
    let counts = match cap {
        Some(_) => TermCounts::OverCap(keys),
        None => TermCounts::Sorted { keys, counts },
    };
    Ok((counts, distinct))
}

/// The options of the tf-idf stage.
#[derive(Clone, Debug)]
pub(crate) struct TfIdfOptions {
    pub(crate) min_words: usize,
    pub(crate) terms: usize,
    pub(crate) top_docs: usize,
    pub(crate) max_postings: usize,
    pub(crate) min_score: f32,
    /// Bytes of postings per index block.
    pub(crate) budget: u64,
    /// Under a memory bound: the terms' counts are sorted on disk (within `budget`) instead of
    /// counted in hash maps.
    pub(crate) bounded: bool,
    /// The budget and spill directory of the sorts of nominations and pairs.
    pub(crate) sorter: ShuffleBuilder,
    /// Bytes of the documents' first chunk numbers kept in memory (past it, in a file).
    pub(crate) first_chunk_share: u64,
    /// Bytes of the documents' posting counts kept in memory (past it, in a file).
    pub(crate) postings_share: u64,
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

/// The distinct term keys of `text`, ascending: what its document frequencies count.
pub(crate) fn document_terms(text: &str) -> Vec<u64> {
    let mut keys = Vec::new();
    term_keys(text, &mut keys);
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The pruned, normalised tf-idf vectors of the chunks of `text` (chunks without a weighted
/// term are left out), as `(term, weight)` lists; `df` gives a term's document frequency among
/// `docs` documents (0 or an unknown term counts as 1).
pub(crate) fn chunk_vectors(
    text: &str,
    df: impl Fn(u64) -> u32,
    docs: f64,
    min_words: usize,
    terms: usize,
) -> Vec<Vec<(u64, f32)>> {
    let mut spans: Vec<Range<usize>> = Vec::new();
    chunk_spans(text, min_words, &mut spans);
    let mut keys = Vec::new();
    let mut out = Vec::with_capacity(spans.len());
    for span in spans {
        term_keys(&text[span], &mut keys);
        keys.sort_unstable();
        let mut v: Vec<(u64, f64)> = Vec::new();
        for run in keys.chunk_by(|a, b| a == b) {
            let df = df(run[0]).max(1);
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
        if v.len() > terms {
            v.select_nth_unstable_by(terms - 1, by_weight);
            v.truncate(terms);
        }
        out.push(v.into_iter().map(|(t, w)| (t, (w / norm) as f32)).collect());
    }
    out
}

/// The postings of one block: the terms' chunks and weights, by term, and the documents of
/// its chunks.
struct Block {
    terms: Vec<u64>,
    starts: Vec<usize>,
    postings: Vec<(u32, f32)>,
    /// The block's first chunk: its chunks are numbered `first..first + chunk_doc.len()`.
    first: u32,
    /// The document of each of the block's chunks.
    chunk_doc: Vec<u32>,
}

impl Block {
    /// The block of `(term, chunk, weight)` entries sorted by term and chunk, whose chunks
    /// from `first` on are in the documents `chunk_doc`.
    fn from_sorted(entries: Vec<(u64, u32, f32)>, first: u32, chunk_doc: Vec<u32>) -> Block {
        let mut block = Block {
            terms: Vec::new(),
            starts: Vec::new(),
            postings: Vec::with_capacity(entries.len()),
            first,
            chunk_doc,
        };
        for (t, chunk, w) in entries {
            if block.terms.last() != Some(&t) {
                block.terms.push(t);
                block.starts.push(block.postings.len());
            }
            block.postings.push((chunk, w));
        }
        block.starts.push(block.postings.len());
        block
    }

    fn postings(&self, term: u64) -> &[(u32, f32)] {
        match self.terms.binary_search(&term) {
            Ok(i) => &self.postings[self.starts[i]..self.starts[i + 1]],
            Err(_) => &[],
        }
    }

    /// The document of one of the block's chunks.
    #[inline]
    fn doc(&self, chunk: u32) -> u32 {
        self.chunk_doc[(chunk - self.first) as usize]
    }
}

/// What a pass over documents needs: the texts, the frequencies and the options.
struct Pass<'a, 'd> {
    doc: &'a (dyn Fn(usize) -> &'d str + Sync),
    df: &'a TermCounts,
    docs: f64,
    o: &'a TfIdfOptions,
}

impl Pass<'_, '_> {
    /// The chunk vectors of document `i`.
    fn chunk_vectors(&self, i: usize) -> Vec<Vec<(u64, f32)>> {
        let df = |t| self.df.get(t).unwrap_or(1);
        chunk_vectors((self.doc)(i), df, self.docs, self.o.min_words, self.o.terms)
    }

    /// The chunk vectors of documents `range`, computed in parallel, in document order.
    fn vectors(&self, range: Range<usize>) -> Vec<Vec<Vec<(u64, f32)>>> {
        range
            .into_par_iter()
            .map(|i| self.chunk_vectors(i))
            .collect()
    }
}

/// A query chunk's best documents in `block`, as `(doc, score)`: its weight products with the
/// block's chunks summed per chunk (in the query's term order), the best chunk per document,
/// the `top_docs` best documents of at least `min_score` (ties by number). `acc` and `best`
/// are scratch space; only the kept documents are allocated for the result.
fn best_documents(
    query: &[(u64, f32)],
    own_doc: u32,
    block: &Block,
    o: &TfIdfOptions,
    (acc, best): &mut Scratch,
) -> Picks {
    acc.clear();
    for &(term, wq) in query {
        for &(chunk, w) in block.postings(term) {
            if block.doc(chunk) != own_doc {
                acc.push((chunk, wq * w));
            }
        }
    }
    // Stable: each chunk's products stay in the query's term order.
    acc.sort_by_key(|&(chunk, _)| chunk);
    let scored = rank(acc, |chunk| block.doc(chunk), o, best);
    // Kept for the whole run, one list per query chunk: no spare capacity.
    (scored, best.to_vec())
}

/// Ranks the documents of a query chunk's weight products `acc` (sorted by chunk, each chunk's
/// products in the query's term order) into `best`: each chunk's score is the sum of its
/// products, a document's score its best chunk's, and the `top_docs` best documents of at least
/// `min_score` are kept (ties by number; chunks must ascend with their documents). Returns the
/// number of chunks scored.
fn rank(
    acc: &[(u32, f32)],
    chunk_doc: impl Fn(u32) -> u32,
    o: &TfIdfOptions,
    best: &mut Vec<(u32, f32)>,
) -> u64 {
    best.clear();
    let mut scored = 0u64;
    for run in acc.chunk_by(|a, b| a.0 == b.0) {
        scored += 1;
        let score = run.iter().map(|&(_, p)| f64::from(p)).sum::<f64>() as f32;
        // Chunks ascend, so one document's chunks are consecutive.
        let doc = chunk_doc(run[0].0);
        match best.last_mut() {
            Some((d, s)) if *d == doc => *s = s.max(score),
            _ => best.push((doc, score)),
        }
    }
    best.retain(|&(_, score)| score >= o.min_score);
    keep_best(best, o.top_docs);
    scored
}

/// One weight product of a query chunk with another chunk, as a distributed engine joins them:
/// the other chunk (any number that orders a document's chunks together and documents by
/// number), its document, the shared term and `query weight * weight`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChunkMatch {
    /// The other chunk.
    pub chunk: u64,
    /// Its document's number.
    pub doc: u32,
    /// The shared term.
    pub term: u64,
    /// The product of the two weights.
    pub product: f32,
}

/// [`best_documents`] from one query chunk's products in any order: sorted by chunk and term
/// (the query's term order) and ranked alike, so the picks are the same.
pub(crate) fn pick_documents(
    matches: &mut [ChunkMatch],
    o: &TfIdfOptions,
    (acc, best): &mut Scratch,
) -> Picks {
    matches.sort_unstable_by_key(|m| (m.chunk, m.term));
    acc.clear();
    let mut docs: Vec<u32> = Vec::new();
    for run in matches.chunk_by(|a, b| a.chunk == b.chunk) {
        let local = docs.len() as u32;
        docs.push(run[0].doc);
        acc.extend(run.iter().map(|m| (local, m.product)));
    }
    let scored = rank(acc, |chunk| docs[chunk as usize], o, best);
    (scored, best.to_vec())
}

/// `best_documents`' scratch space: the weight products, the documents' best scores.
type Scratch = (Vec<(u32, f32)>, Vec<(u32, f32)>);

/// A query chunk's scored chunk pairs and best documents `(doc, score)`.
type Picks = (u64, Vec<(u32, f32)>);

/// Keeps the `k` highest scores, ties by document number.
fn keep_best(best: &mut Vec<(u32, f32)>, k: usize) {
    let order = |x: &(u32, f32), y: &(u32, f32)| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0));
    if best.len() > k {
        best.select_nth_unstable_by(k - 1, order);
        best.truncate(k);
    }
    best.sort_by(order);
}

/// Candidate document pairs `(a < b)` with the number of chunks that picked the pair,
/// ascending, filling the tf-idf counts of `stats`. `n_corpus` documents come first; with `against`, only the corpus's chunks
/// pick, and only documents of the other side.
pub(crate) fn candidates<'d>(
    total: usize,
    n_corpus: usize,
    against: bool,
    doc: &(dyn Fn(usize) -> &'d str + Sync),
    o: &TfIdfOptions,
    stats: &mut ReuseStats,
    progress: &dyn Progress,
) -> Result<CandidateList, ReuseError> {
    // Stage 1: document frequencies.
    let started = Instant::now();
    // Under a bound the terms' counts go through sorts that have the index blocks' budget
    // (no block is built yet).
    let term_sorter = || {
        let mut b = o.sorter.clone();
        b.mem_budget(o.budget.max(textreuse_shuffle::MIN_MEM_BUDGET));
        b.build_sorter()
    };
    let mut df_map = DocFreqs::default();
    let mut df_sort = o.bounded.then(term_sorter).transpose()?;
    for first in (0..total).step_by(SIGN_BATCH) {
        let last = (first + SIGN_BATCH).min(total);
        let batch: Vec<Vec<u64>> = (first..last)
            .into_par_iter()
            .map(|i| document_terms(doc(i)))
            .collect();
        for (i, keys) in (first..last).zip(batch) {
            for k in keys {
                match &mut df_sort {
                    Some(sorter) => sorter.push(k, i as u64)?,
                    None => *df_map.entry(k).or_default() += 1,
                }
            }
        }
    }
    // A term of one document weighs as if its count were 1 when it is missing, so the counts
    // keep only the terms of several documents: outputs are the same, and on real text most
    // distinct terms (names, numbers, typos) occur once.
    let (df, distinct) = match df_sort {
        Some(sorter) => sorted_counts(sorter, None, stats)?,
        None => {
            let distinct = df_map.len() as u64;
            df_map.retain(|_, n| *n > 1);
            df_map.shrink_to_fit();
            (TermCounts::Map(df_map), distinct)
        }
    };
    stats.distinct_terms = distinct;
    let pass = Pass {
        doc,
        df: &df,
        docs: total as f64,
        o,
    };

    // Stage 2: chunk numbers, postings per term, postings per document. The two arrays per
    // document go to files past their shares of the memory bound; the stages after read them
    // a batch of documents at a time.
    let dir = o.sorter.spill_parent();
    let arrays = |e| ReuseError::Arrays {
        dir: dir.map_or_else(std::env::temp_dir, Path::to_path_buf),
        source: e,
    };
    let mut n_chunks = 0u32;
    // Per document its first chunk's number (and one past the last document: the chunks).
    let mut first_chunk: DocArray<u32> = DocArray::new(o.first_chunk_share);
    let mut postings_of_doc: DocArray<u64> = DocArray::new(o.postings_share);
    let mut postings_map = DocFreqs::default();
    let mut postings_sort = o.bounded.then(term_sorter).transpose()?;
    for first in (0..total).step_by(SIGN_BATCH) {
        let last = (first + SIGN_BATCH).min(total);
        for chunks in pass.vectors(first..last) {
            first_chunk.push(n_chunks, dir).map_err(arrays)?;
            let mut entries = 0u64;
            for v in chunks {
                if n_chunks == u32::MAX {
                    return Err(ReuseError::TooManyChunks);
                }
                let chunk = n_chunks;
                n_chunks += 1;
                entries += v.len() as u64;
                for (term, _) in v {
                    match &mut postings_sort {
                        Some(sorter) => sorter.push(term, u64::from(chunk))?,
                        None => *postings_map.entry(term).or_default() += 1,
                    }
                }
            }
            postings_of_doc.push(entries, dir).map_err(arrays)?;
            stats.term_records += entries;
        }
    }
    first_chunk.push(n_chunks, dir).map_err(arrays)?;
    stats.chunks = u64::from(n_chunks);
    stats.doc_arrays_on_disk +=
        u64::from(first_chunk.on_disk()) + u64::from(postings_of_doc.on_disk());
    let postings_of_term = match postings_sort {
        Some(sorter) => sorted_counts(sorter, Some(o.max_postings), stats)?.0,
        None => TermCounts::Map(postings_map),
    };
    stats.terms_over_cap = postings_of_term.count_over(o.max_postings);
    stats.seconds.chunk_and_sign = started.elapsed().as_secs_f64();

    // Stage 3: blocks of the index side, each queried by every query chunk.
    let started = Instant::now();
    let indexed = if against { n_corpus..total } else { 0..total };
    let queries = if against { 0..n_corpus } else { 0..total };
    // A block holds its postings and the document of each of its chunks.
    let (mut postings, mut firsts) = (Vec::new(), Vec::new());
    let mut blocks: Vec<Range<usize>> = Vec::new();
    let mut start = indexed.start;
    let mut size = 0u64;
    for first in indexed.clone().step_by(SIGN_BATCH) {
        let last = (first + SIGN_BATCH).min(indexed.end);
        postings_of_doc
            .read_range(first..last, &mut postings)
            .map_err(arrays)?;
        first_chunk
            .read_range(first..last + 1, &mut firsts)
            .map_err(arrays)?;
        for (k, d) in (first..last).enumerate() {
            let chunks = u64::from(firsts[k + 1] - firsts[k]);
            let cost = postings[k] * POSTING_BYTES + chunks * CHUNK_DOC_BYTES;
            if size > 0 && size + cost > o.budget {
                blocks.push(start..d);
                (start, size) = (d, 0);
            }
            size += cost;
        }
    }
    blocks.push(start..indexed.end);
    stats.index_blocks = blocks.len() as u64;
    let chunk_at = |d: usize| first_chunk.get(d).map_err(arrays);
    let q_chunks = (chunk_at(queries.end)? - chunk_at(queries.start)?) as usize;
    // With one block each query chunk's picks are final and go straight to the pairs; with
    // more, each block's picks `(doc << 32 | chunk, doc << 32 | score bits)` are sorted by
    // chunk (a chunk's document numbers ascend with it) and merged afterwards. Both sorts
    // spill beyond the budget, so nothing here grows with the corpus.
    let mut pairs = o.sorter.build_sorter()?;
    let mut picks = match blocks.len() {
        1 => None,
        _ => Some(o.sorter.build_sorter()?),
    };
    let skip = |term: &u64| postings_of_term.over(*term, o.max_postings);
    // What is searched of a vector: its terms under the cap, by term. The weights are not
    // scaled up again: a chunk left with few terms would match anything sharing one.
    let searchable = |v: &mut Vec<(u64, f32)>| {
        v.retain(|(t, _)| !skip(t));
        v.sort_unstable_by_key(|&(t, _)| t);
    };
    progress.start(
        Stage::ScoreChunks,
        Some(q_chunks as u64 * blocks.len() as u64),
    );
    for docs in blocks {
        // Allocated once at their largest (entries over the postings cap are left out), not
        // grown by doubling: the block's memory stays within POSTING_BYTES per posting and
        // CHUNK_DOC_BYTES per chunk.
        let mut most = 0u64;
        for first in docs.clone().step_by(SIGN_BATCH) {
            let last = (first + SIGN_BATCH).min(docs.end);
            postings_of_doc
                .read_range(first..last, &mut postings)
                .map_err(arrays)?;
            most += postings.iter().sum::<u64>();
        }
        let base = chunk_at(docs.start)?;
        let mut entries: Vec<(u64, u32, f32)> = Vec::with_capacity(most as usize);
        let mut chunk_doc: Vec<u32> = Vec::with_capacity((chunk_at(docs.end)? - base) as usize);
        for first in docs.clone().step_by(SIGN_BATCH) {
            let last = (first + SIGN_BATCH).min(docs.end);
            first_chunk
                .read_range(first..last, &mut firsts)
                .map_err(arrays)?;
            for ((i, chunks), &fc) in (first..last).zip(pass.vectors(first..last)).zip(&firsts) {
                for (c, mut v) in chunks.into_iter().enumerate() {
                    let chunk = fc + c as u32;
                    chunk_doc.push(i as u32);
                    searchable(&mut v);
                    entries.extend(v.into_iter().map(|(t, w)| (t, chunk, w)));
                }
            }
        }
        entries.par_sort_unstable_by_key(|&(t, chunk, _)| (t, chunk));
        let block = Block::from_sorted(entries, base, chunk_doc);

        for first in queries.clone().step_by(SIGN_BATCH) {
            let last = (first + SIGN_BATCH).min(queries.end);
            first_chunk
                .read_range(first..last, &mut firsts)
                .map_err(arrays)?;
            let found: Vec<Vec<Picks>> = (first..last)
                .into_par_iter()
                .map_init(Default::default, |scratch, i| {
                    let mut chunks = pass.chunk_vectors(i);
                    chunks
                        .iter_mut()
                        .map(|v| {
                            searchable(v);
                            best_documents(v, i as u32, &block, o, scratch)
                        })
                        .collect()
                })
                .collect();
            for ((i, chunks), &fc) in (first..last).zip(found).zip(&firsts) {
                progress.advance(chunks.len() as u64);
                for (c, (scored, docs)) in chunks.into_iter().enumerate() {
                    stats.chunk_pairs += scored;
                    let chunk = u64::from(fc) + c as u64;
                    match &mut picks {
                        None => nominate(&mut pairs, chunk, i as u32, &docs)?,
                        Some(sorter) => {
                            let key = (i as u64) << 32 | chunk;
                            for (d, score) in docs {
                                sorter
                                    .push(key, u64::from(d) << 32 | u64::from(score.to_bits()))?;
                            }
                        }
                    }
                }
            }
        }
    }

    progress.finish();

    // Stage 4: the picks merged over blocks, then counted per document pair.
    let mut ids = Vec::new();
    if let Some(sorter) = picks {
        let mut sorted = sorter.finish()?;
        let mut best: Vec<(u32, f32)> = Vec::new();
        while let Some(key) = sorted.next_group(&mut ids)? {
            let (own, chunk) = ((key >> 32) as u32, key & 0xffff_ffff);
            best.clear();
            best.extend(
                ids.iter()
                    .map(|&v| ((v >> 32) as u32, f32::from_bits(v as u32))),
            );
            keep_best(&mut best, o.top_docs);
            nominate(&mut pairs, chunk, own, &best)?;
        }
        stats.bytes_spilled += sorted.bytes_spilled();
    }
    let mut sorted = pairs.finish()?;
    stats.bytes_spilled += sorted.bytes_spilled();
    let mut list = CandidateWriter::new(o.sorter.spill_parent())?;
    while let Some(pair) = sorted.next_group(&mut ids)? {
        list.push(((pair >> 32) as u32, pair as u32), ids.len() as u32)?;
    }
    stats.seconds.candidates = started.elapsed().as_secs_f64();
    list.finish()
}

/// Records the picks of query chunk `chunk` of document `own` as `(pair, chunk)` records: a
/// pair's records are the chunks that picked it.
fn nominate(
    pairs: &mut RecordSorter,
    chunk: u64,
    own: u32,
    docs: &[(u32, f32)],
) -> Result<(), ReuseError> {
    for &(other, _) in docs {
        let (a, b) = (own.min(other), own.max(other));
        pairs.push(u64::from(a) << 32 | u64::from(b), chunk)?;
    }
    Ok(())
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
            min_score: 0.0,
            budget: 1 << 20,
            bounded: false,
            sorter: ShuffleBuilder::new(),
            first_chunk_share: u64::MAX,
            postings_share: u64::MAX,
        }
    }

    fn vectors(text: &str, df: &DocFreqs, docs: f64, terms: usize) -> Vec<Vec<(u64, f32)>> {
        chunk_vectors(text, |t| df.get(&t).copied().unwrap_or(1), docs, 3, terms)
    }

    fn freqs(texts: &[&str]) -> DocFreqs {
        let mut df = DocFreqs::default();
        for t in texts {
            for k in document_terms(t) {
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
        let full = vectors(text, &df, 3.0, 100);
        let norm: f64 = full[0].iter().map(|&(_, w)| f64::from(w).powi(2)).sum();
        assert!((norm - 1.0).abs() < 1e-5, "{norm}");
        let pruned = vectors(text, &df, 3.0, 2);
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
        let v = vectors(text, &df, 2.0, 20);
        assert_eq!(v.len(), 1);
        assert!(v[0].iter().all(|&(_, w)| w > 0.0));
    }

    proptest::proptest! {
        /// The distributed path (products in any order, chunks under any numbers that keep
        /// documents in order) picks what the inverted-index path picks.
        #[test]
        fn pick_documents_agrees_with_best_documents(
            query in proptest::collection::btree_map(0u64..40, 0.01f32..1.0, 1..12),
            chunks in proptest::collection::vec(
                (0u32..6, proptest::collection::btree_map(0u64..40, 0.01f32..1.0, 1..12)),
                1..30,
            ),
            top_docs in 1usize..4,
            min_score in proptest::sample::select(vec![0.0f32, 0.05, 0.2]),
            shuffle_seed in proptest::prelude::any::<u64>(),
        ) {
            let mut o = options(20);
            o.top_docs = top_docs;
            o.min_score = min_score;
            // Chunks numbered in document order, as the one-machine run numbers them.
            let mut chunks = chunks;
            chunks.sort_by_key(|(doc, _)| *doc);
            let own_doc = 99;
            let chunk_doc: Vec<u32> = chunks.iter().map(|(d, _)| *d).collect();
            let mut entries: Vec<(u64, u32, f32)> = chunks
                .iter()
                .enumerate()
                .flat_map(|(c, (_, v))| v.iter().map(move |(&t, &w)| (t, c as u32, w)))
                .collect();
            entries.sort_by_key(|&(t, c, _)| (t, c));
            let block = Block::from_sorted(entries, 0, chunk_doc.clone());
            let query: Vec<(u64, f32)> = query.into_iter().collect();
            let expected = best_documents(&query, own_doc, &block, &o, &mut Default::default());

            // The same products as a join gives them: unordered, chunks under other numbers.
            let mut matches: Vec<ChunkMatch> = Vec::new();
            for &(term, wq) in &query {
                for &(c, w) in block.postings(term) {
                    matches.push(ChunkMatch {
                        chunk: (u64::from(chunk_doc[c as usize]) << 32) | (u64::from(c) * 7),
                        doc: chunk_doc[c as usize],
                        term,
                        product: wq * w,
                    });
                }
            }
            let mut state = shuffle_seed | 1;
            for i in (1..matches.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                matches.swap(i, (state % (i as u64 + 1)) as usize);
            }
            let got = pick_documents(&mut matches, &o, &mut Default::default());
            proptest::prop_assert_eq!(got, expected);
        }
    }
}
