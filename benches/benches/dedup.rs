//! `dedup`: stages 2-5 of `textreuse dedup` on 1,000,000 plain sentences held in memory, in
//! sentences per second (issue #5: ">= 400,000 sentences/s on 2 cores").
//!
//! Input: the kept sentences of the two bundled sample dumps (read, cleaned, split and filtered
//! as `textreuse dedup` does with no input: 25,450), drawn with replacement with a fixed
//! seed into N = 1,000,000 sentences, 10% of them with one to three words replaced by words of
//! the first 2,000 sentences (`benches/scripts/synth_corpus.py` makes the 2M/10M corpora of
//! `docs/performance.md` the same way, in documents of 40). Built once, outside the timing.
//!
//! - `dedup/stages2_5/1000000`: per sentence, on rayon workers in batches of 32,768 sentences
//!   (chunks of 2,048 per task, one scratch per task): the sentence filter
//!   ([`SentenceFilter::default`], 75..=600 shingles), normalized 12-character shingle
//!   fingerprints, N = 20 minhashes and M = 10 band keys with the CLI's default signer
//!   (`Signer::new()`, the defaults of `textreuse dedup`, through `TextSigner`), one `(band key, sentence
//!   index)` record per key; each batch's records are pushed in sentence order into a
//!   [`ShuffleBuilder::new`] shuffle (2 GB budget, so nothing spills; buckets capped at 100; star
//!   pairs), then `finish()` and `into_clusters(2)` (stages 3-5). This is the per-document step and the
//!   stages 3-5 of `Dedup::run` in `crates/dedup/src/run.rs` without the I/O around
//!   them (no documents, no sentence splitting, no side file of sentence texts, no progress).
//! - `dedup/stages3_5/1000000`: the same records, prepared outside the timing, through the
//!   shuffle and clustering only.
//! - `dedup/stage2/1000000`: stage 2 only (records made and dropped, not pushed).
//!
//! All three count throughput in input sentences, so they can be compared with each other and
//! with the target. The setup runs stages 2-5 once, prints the record, bucket, pair and cluster
//! counts to stderr and checks that clusters were found.
//!
//! Run: `cargo bench -p textreuse-benches --bench dedup` (1.5-2.5 minutes, 0.7 GB peak RSS).
//! The target is wall time on two cores, so read this bench in wall time on an otherwise idle
//! machine (check `uptime`). With `TEXTREUSE_BENCH_CPU_TIME=1` it measures the CPU time of the
//! whole process (all rayon workers, [`textreuse_benches::ProcessCpuTime`]), not of the benchmark
//! thread: the throughput is then sentences per CPU-second, which holds up on a loaded machine;
//! two idle cores can do at most twice that, and less where the work is serial (in today's
//! shuffle only the sorts run on rayon; the merge, the pairs and the union-find do not).
//! Criterion's "change" line compares with the previous run whichever clock that one used, so
//! compare wall with wall (`--save-baseline` keeps them apart).
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rayon::prelude::*;
use textreuse_corpus::{Inputs, NoProgress};
use textreuse_dedup::pipeline::DocumentPipeline;
use textreuse_minhash::{Signer, TextSigner};
use textreuse_shingle::units::{KeptSentences, SentenceFilter};
use textreuse_shuffle::{ShuffleBuilder, ShuffleStats};
use textreuse_unionfind::Clusters;

/// Sentences of the synthetic input.
const N: usize = 1_000_000;
/// Shingle length in characters (the CLI's default).
const SHINGLE: usize = 12;
/// Sentences per parallel batch, whose records are pushed in order before the next batch starts
/// (the CLI batches 512 documents; 32,768 sentences is about 800 documents of 40 sentences).
const BATCH: usize = 32_768;
/// Sentences per rayon task.
const CHUNK: usize = 2_048;

/// The kept sentences of the bundled sample dumps, in input order: what `textreuse dedup` with
/// no input signs (same reader, cleaner, sentence splitter and filter).
fn sample_sentences() -> Vec<String> {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
    let samples = [
        format!("{data}/enwiki-part-201.xml.bz2"),
        format!("{data}/enwiki-sample-206.xml.bz2"),
    ];
    let filter = SentenceFilter::default();
    let mut kept = Vec::new();
    // enwiki-part-201 is damaged on purpose (see data/README.md); its complete pages still come.
    let counts = DocumentPipeline::new()
        .run(
            Inputs::new(&samples).threads(rayon::current_num_threads()),
            &NoProgress,
            || (),
            |_, seq, doc| {
                KeptSentences::new(&doc.text, seq, &filter)
                    .map(|s| s.text.to_owned())
                    .collect::<Vec<_>>()
            },
            |_, texts| {
                kept.extend(texts);
                Ok(())
            },
        )
        .expect("the bundled sample dumps are readable");
    eprintln!(
        "dedup bench: {} kept sentences in the bundled samples ({} input problems)",
        kept.len(),
        counts.input_problems
    );
    kept
}

/// A uniform index below `n` (multiply-shift: no modulo bias worth speaking of for these `n`).
fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// `n` sentences drawn with replacement from `base` with a fixed seed; 10% get one to three
/// words (split on whitespace) replaced by words of the first 2,000 base sentences.
fn synthetic(base: &[String], n: usize) -> Vec<String> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1123456);
    let vocabulary: Vec<&str> = base
        .iter()
        .take(2000)
        .flat_map(|s| s.split_whitespace())
        .collect();
    (0..n)
        .map(|_| {
            let s = &base[below(&mut rng, base.len())];
            if below(&mut rng, 10) != 0 {
                return s.clone();
            }
            let mut words: Vec<&str> = s.split_whitespace().collect();
            for _ in 0..1 + below(&mut rng, 3) {
                let i = below(&mut rng, words.len());
                words[i] = vocabulary[below(&mut rng, vocabulary.len())];
            }
            words.join(" ")
        })
        .collect()
}

/// Stage 2 of `textreuse dedup` for `chunk`, whose first sentence has index (and id) `first`:
/// the band-key records of its kept sentences, in sentence order.
fn sign_chunk(first: usize, chunk: &[String], s: &mut TextSigner<'_>) -> Vec<(u64, u64)> {
    let filter = SentenceFilter::default();
    let mut records = Vec::with_capacity(chunk.len() * s.signer().bands());
    for (i, text) in chunk.iter().enumerate() {
        if !filter.keeps(text) {
            continue;
        }
        let Some(keys) = s.band_keys(text) else {
            continue; // shorter than one shingle after normalization
        };
        let id = (first + i) as u64;
        records.extend(keys.iter().map(|&k| (k, id)));
    }
    records
}

/// Stage 2 over all sentences: each batch in parallel, then its records handed to `sink` chunk by
/// chunk in sentence order.
fn stage2(sentences: &[String], signer: &Signer, mut sink: impl FnMut(Vec<(u64, u64)>)) {
    for (b, batch) in sentences.chunks(BATCH).enumerate() {
        let outs: Vec<Vec<(u64, u64)>> = batch
            .par_chunks(CHUNK)
            .enumerate()
            .map_init(
                || TextSigner::new(signer).shingle_chars(SHINGLE),
                |s, (c, chunk)| sign_chunk(b * BATCH + c * CHUNK, chunk, s),
            )
            .collect();
        outs.into_iter().for_each(&mut sink);
    }
}

/// Stages 2-5: stage 2 pushing into a default shuffle, then merge, pairs and clusters.
fn stages2_5(sentences: &[String], signer: &Signer) -> (Clusters, ShuffleStats) {
    let mut shuffle = ShuffleBuilder::new().build().expect("default shuffle");
    stage2(sentences, signer, |records| {
        shuffle.push_slice(&records).expect("in-memory push")
    });
    shuffle
        .finish()
        .expect("in-memory shuffle")
        .into_clusters(2)
        .expect("clustering")
}

/// Stages 3-5 on records made beforehand (in push order).
fn stages3_5(records: &[Vec<(u64, u64)>]) -> (Clusters, ShuffleStats) {
    let mut shuffle = ShuffleBuilder::new().build().expect("default shuffle");
    for r in records {
        shuffle.push_slice(r).expect("in-memory push");
    }
    shuffle
        .finish()
        .expect("in-memory shuffle")
        .into_clusters(2)
        .expect("clustering")
}

fn dedup<M: Measurement>(c: &mut Criterion<M>) {
    let sentences = synthetic(&sample_sentences(), N);
    let signer = Signer::new();

    // Records for stages3_5, and a check that the pipeline does real work on this input.
    let mut records: Vec<Vec<(u64, u64)>> = Vec::new();
    stage2(&sentences, &signer, |r| records.push(r));
    let (clusters, stats) = stages2_5(&sentences, &signer);
    let total: usize = records.iter().map(Vec::len).sum();
    eprintln!(
        "dedup bench: {N} sentences -> {} band-key records, {} buckets ({} capped), {} candidate \
         pairs, {} clusters of {} sentences, {} bytes spilled",
        stats.records,
        stats.buckets,
        stats.buckets_capped,
        stats.candidate_pairs,
        clusters.len(),
        clusters.num_members(),
        stats.bytes_spilled,
    );
    assert_eq!(
        stats.records, total as u64,
        "both paths push the same records"
    );
    assert!(
        stats.records >= (N as u64 - N as u64 / 100) * signer.bands() as u64,
        "at least 99% of the sentences are kept and signed"
    );
    assert_eq!(
        stats.bytes_spilled, 0,
        "the default budget holds everything"
    );
    assert!(stats.candidate_pairs > 0 && !clusters.is_empty());
    // Each base sentence is drawn about 40 times, so most sentences have an exact duplicate.
    assert!(
        clusters.num_members() > N / 2,
        "most sentences are clustered"
    );
    drop(clusters);

    let mut group = c.benchmark_group("dedup");
    // One iteration takes seconds: one per sample, ten samples, a single warm-up iteration.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Elements(N as u64));
    group.bench_function(BenchmarkId::new("stages2_5", N), |b| {
        b.iter(|| black_box(stages2_5(black_box(&sentences), &signer)))
    });
    group.bench_function(BenchmarkId::new("stages3_5", N), |b| {
        b.iter(|| black_box(stages3_5(black_box(&records))))
    });
    group.bench_function(BenchmarkId::new("stage2", N), |b| {
        b.iter(|| {
            let mut n = 0;
            stage2(black_box(&sentences), &signer, |r| n += r.len());
            black_box(n)
        })
    });
    group.finish();
}

textreuse_benches::cpu_or_wall_main!(process: dedup);
