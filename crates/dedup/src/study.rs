//! The tuning study of the seed research's first paper: for each shingle length `L` and rows
//! `K` of a grid, how many candidate pairs MinHash makes of a corpus's sentences, and how many
//! of them are near-duplicates by edit distance.
//!
//! The paper (Ayhan, Bradley and Weissman, "Similar Article Detection Using Minhash Technique
//! on Wikipedia", 2013, section "False positives") ran its pipeline on 1 GB of Wikipedia for
//! `K` in {8, 9, 10} and `5 <= L <= 15`, holding the number of signatures fixed at 10 (its
//! "N = 10"; our `M`) and the hash family at 20 functions of 60 bits (its scripts' `nHash =
//! 20`), and split the pairs into good (normalized edit distance at most 0.25) and bad.
//! [`TuningStudy`] does the same on any corpus `textreuse dedup` reads:
//!
//! 1. the corpus's sentences are read once, exactly as [`Dedup`](crate::Dedup) keeps them
//!    (its sentence filter: 75..=600 shingles of 12 characters on the text as written), and
//!    kept normalized in memory;
//! 2. for each setting, every sentence is signed with `L`-character shingles and the
//!    Weissman preset's drawn bands with `K` rows (`N = 20`, `M = 10`, seed 1123456, unless
//!    [`TuningStudyBuilder::signer`] says otherwise), and the band keys go through the shuffle
//!    of `textreuse-shuffle` as in `dedup --max-edit`: every pair of a bucket is a candidate,
//!    buckets capped at their first [`DEFAULT_MAX_BUCKET`] sentences (counted in
//!    [`StudyRow::buckets_capped`]), pairs de-duplicated under the memory budget;
//! 3. each distinct candidate pair is good when the Levenshtein distance of the normalized
//!    texts over the longer length is at most [`DEFAULT_STUDY_MAX_EDIT`]
//!    ([`textreuse_shingle::edit::Levenshtein::normalized_within`]), bad otherwise;
//! 4. a [`StudyRow`] per setting: candidates, good, bad, false-positive rate `bad /
//!    candidates`, and the wall time of steps 2-3.
//!
//! ```
//! use textreuse_corpus::{Document, NoProgress};
//! use textreuse_dedup::study::TuningStudy;
//!
//! let s = "The old mill on the river was built in 1820 and still grinds grain for the village bakery.";
//! let docs = vec![
//!     Document::new(1, "Mill", s),
//!     Document::new(2, "River", s.replace("1820", "1822")),
//! ];
//! let study = TuningStudy::builder().shingles(8..=12).rows([8, 10]).min_shingles(20).build()?;
//! let report = study.run_documents(docs, &NoProgress)?;
//! assert_eq!(report.rows.len(), 2 * 5);
//! assert_eq!(report.kept, 2);
//! for row in &report.rows {
//!     assert_eq!(row.good + row.bad, row.candidates);
//!     assert_eq!(row.bad, 0); // the only possible pair is one edit apart
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Memory: the normalized text of every kept sentence (plus 8 bytes each), the shuffle's budget
//! ([`TuningStudyBuilder::mem_budget`]), and a batch of pairs being verified. The study is for
//! samples of a corpus (the paper's was 1 GB of a 40 GB dump), not for a whole dump.
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use textreuse_corpus::{Document, InputError, Progress, Source, Stage};
use textreuse_minhash::{Signer, SignerConfig, TextSigner};
use textreuse_shingle::edit::Levenshtein;
use textreuse_shingle::units::{KeptSentences, SentenceFilter, Unit};
use textreuse_shingle::{Normalize, normalize};
use textreuse_shuffle::{self as shuffle, PairMode, ShuffleBuilder};

use crate::Error;
use crate::pipeline::{DEFAULT_BATCH, DocumentPipeline};

#[cfg(doc)]
use textreuse_shuffle::DEFAULT_MAX_BUCKET;

/// The shingle lengths of the paper's grid, in characters.
pub const DEFAULT_STUDY_SHINGLES: RangeInclusive<usize> = 5..=15;

/// The rows `K` of the paper's grid.
pub const DEFAULT_STUDY_ROWS: [usize; 3] = [8, 9, 10];

/// A candidate pair is good when its normalized edit distance is at most this (the paper's
/// threshold).
pub const DEFAULT_STUDY_MAX_EDIT: f64 = 0.25;

/// Sentences signed per parallel batch, and pairs verified per parallel batch.
const BATCH: usize = 1 << 14;

/// The options of a [`TuningStudy`]; [`TuningStudyBuilder::new`] gives the paper's grid.
#[derive(Clone, Debug)]
pub struct TuningStudyBuilder {
    shingles: Vec<usize>,
    rows: Vec<usize>,
    signer: SignerConfig,
    filter: SentenceFilter,
    max_edit: f64,
    max_bucket: usize,
    mem_budget: u64,
    tmp_dir: Option<PathBuf>,
    batch: usize,
}

impl Default for TuningStudyBuilder {
    fn default() -> Self {
        TuningStudyBuilder::new()
    }
}

impl TuningStudyBuilder {
    /// The paper's study: shingle lengths [`DEFAULT_STUDY_SHINGLES`], rows
    /// [`DEFAULT_STUDY_ROWS`], the other signer parameters of the Weissman preset
    /// ([`SignerConfig::weissman`]: `N = 20` drawn functions of 60 bits, `M = 10`, seed
    /// 1123456), dedup's sentence filter ([`Unit::default_filter`]), good pairs within
    /// [`DEFAULT_STUDY_MAX_EDIT`], buckets capped as dedup caps them
    /// ([`shuffle::DEFAULT_MAX_BUCKET`]) and dedup's shuffle budget.
    pub fn new() -> TuningStudyBuilder {
        TuningStudyBuilder {
            shingles: DEFAULT_STUDY_SHINGLES.collect(),
            rows: DEFAULT_STUDY_ROWS.to_vec(),
            signer: SignerConfig::weissman(),
            filter: Unit::Sentence.default_filter(),
            max_edit: DEFAULT_STUDY_MAX_EDIT,
            max_bucket: shuffle::DEFAULT_MAX_BUCKET,
            mem_budget: shuffle::DEFAULT_MEM_BUDGET,
            tmp_dir: None,
            batch: DEFAULT_BATCH,
        }
    }

    /// The shingle lengths `L` to sign with (each at least 1; repeats are dropped, the order is
    /// ascending).
    pub fn shingles(&mut self, lengths: impl IntoIterator<Item = usize>) -> &mut Self {
        self.shingles = lengths.into_iter().collect();
        self
    }

    /// The rows `K` per band to sign with (repeats dropped, ascending).
    pub fn rows(&mut self, rows: impl IntoIterator<Item = usize>) -> &mut Self {
        self.rows = rows.into_iter().collect();
        self
    }

    /// The signer parameters other than `K` (its `rows` is replaced by each of
    /// [`TuningStudyBuilder::rows`]). Default: the Weissman preset.
    pub fn signer(&mut self, config: SignerConfig) -> &mut Self {
        self.signer = config;
        self
    }

    /// Keep sentences with at least this many 12-character shingles, counted on the text as
    /// written (default 75, dedup's). The filter does not change with the shingle length
    /// studied: every setting signs the same sentences.
    pub fn min_shingles(&mut self, n: usize) -> &mut Self {
        self.filter.min_shingles = n;
        self
    }

    /// Keep sentences with at most this many 12-character shingles (default 600, dedup's;
    /// `usize::MAX` for no bound).
    pub fn max_shingles(&mut self, n: usize) -> &mut Self {
        self.filter.max_shingles = n;
        self
    }

    /// A pair is good when its normalized edit distance is at most `d` (0..=1; default
    /// [`DEFAULT_STUDY_MAX_EDIT`]).
    pub fn max_edit(&mut self, d: f64) -> &mut Self {
        self.max_edit = d;
        self
    }

    /// A bucket with more sentences contributes only the pairs of its first `n` (by input
    /// order) (default [`shuffle::DEFAULT_MAX_BUCKET`], dedup's; at least 2; `usize::MAX` for
    /// no cap). What it leaves out is counted in each row.
    pub fn max_bucket(&mut self, n: usize) -> &mut Self {
        self.max_bucket = n;
        self
    }

    /// The shuffle's memory budget in bytes (default dedup's, 2 GiB; at least 1 KiB).
    pub fn mem_budget(&mut self, bytes: u64) -> &mut Self {
        self.mem_budget = bytes;
        self
    }

    /// Where the shuffle's spill files go (default: the system temporary directory).
    pub fn tmp_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.tmp_dir = Some(dir.into());
        self
    }

    /// Documents per parallel batch when reading (default 512; at least 1).
    pub fn batch(&mut self, documents: usize) -> &mut Self {
        self.batch = documents;
        self
    }

    /// Checks the options and builds every setting's signer. [`Error::InvalidOption`] names
    /// the option to change.
    pub fn build(&self) -> Result<TuningStudy, Error> {
        let invalid = |option, message: String| Err(Error::InvalidOption { option, message });
        let mut shingles = self.shingles.clone();
        shingles.sort_unstable();
        shingles.dedup();
        let mut rows = self.rows.clone();
        rows.sort_unstable();
        rows.dedup();
        if shingles.is_empty() || shingles[0] == 0 {
            return invalid(
                "shingles",
                "give at least one shingle length, each at least 1 character".into(),
            );
        }
        if rows.is_empty() {
            return invalid("rows", "give at least one number of rows K".into());
        }
        if self.filter.min_shingles > self.filter.max_shingles {
            return invalid(
                "min_shingles",
                format!(
                    "{} is above max_shingles {}: nothing would be kept",
                    self.filter.min_shingles, self.filter.max_shingles
                ),
            );
        }
        if !(0.0..=1.0).contains(&self.max_edit) {
            return invalid(
                "max_edit",
                format!("must be between 0 and 1, got {}", self.max_edit),
            );
        }
        if self.batch == 0 {
            return invalid("batch", "must be at least 1 document".into());
        }
        let mut signers = Vec::with_capacity(rows.len());
        for &k in &rows {
            let config = SignerConfig {
                rows: k,
                ..self.signer
            };
            let signer = config.build().map_err(|e| Error::InvalidOption {
                option: "rows",
                message: format!("K = {k}: {e}"),
            })?;
            signers.push(signer);
        }
        let mut shuffle = ShuffleBuilder::new();
        shuffle
            .mem_budget(self.mem_budget)
            .max_bucket(self.max_bucket)
            // Every pair that shares a band is a candidate, as with dedup's edit filter.
            .pair_mode(PairMode::All);
        if let Some(dir) = &self.tmp_dir {
            shuffle.tmp_dir(dir);
        }
        shuffle.check()?;
        Ok(TuningStudy {
            shingles,
            signers,
            filter: self.filter,
            max_edit: self.max_edit,
            max_bucket: self.max_bucket,
            shuffle,
            batch: self.batch,
        })
    }
}

/// The tuning study (see the [module docs](self)), built by [`TuningStudyBuilder`].
#[derive(Clone, Debug)]
pub struct TuningStudy {
    shingles: Vec<usize>,
    /// One signer per K, ascending.
    signers: Vec<Signer>,
    filter: SentenceFilter,
    max_edit: f64,
    max_bucket: usize,
    shuffle: ShuffleBuilder,
    batch: usize,
}

/// One setting of the study: its parameters and what it found.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StudyRow {
    /// Shingle length `L` in characters.
    pub shingle: usize,
    /// Hash functions `N`.
    pub hashes: usize,
    /// Rows `K` per band.
    pub rows: usize,
    /// Bands `M`.
    pub bands: usize,
    /// Sentences signed (those whose normalized text has at least one shingle).
    pub signed: u64,
    /// Distinct candidate pairs: sentences sharing at least one band key (within the bucket
    /// cap).
    pub candidates: u64,
    /// Candidate pairs within the edit distance.
    pub good: u64,
    /// Candidate pairs beyond it (`candidates - good`).
    pub bad: u64,
    /// `bad / candidates` (0 without candidates).
    pub false_positive_rate: f64,
    /// Buckets larger than the cap.
    pub buckets_capped: u64,
    /// Sentences those buckets left out (beyond their first `max_bucket`).
    pub bucket_ids_left_out: u64,
    /// Wall time of the setting: signing, shuffle, pairs and their edit distances, in seconds.
    pub seconds: f64,
}

impl StudyRow {
    /// The row of a setting from its counts: `bad = candidates - good` and the false-positive
    /// rate `bad / candidates` (0 when there are no candidates).
    fn new(signer: &Signer, shingle: usize, signed: u64, candidates: u64, good: u64) -> StudyRow {
        let bad = candidates - good;
        StudyRow {
            shingle,
            hashes: signer.hashes(),
            rows: signer.rows(),
            bands: signer.bands(),
            signed,
            candidates,
            good,
            bad,
            false_positive_rate: if candidates == 0 {
                0.0
            } else {
                bad as f64 / candidates as f64
            },
            buckets_capped: 0,
            bucket_ids_left_out: 0,
            seconds: 0.0,
        }
    }
}

/// What a [`TuningStudy`] found: the corpus it read and one row per setting.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StudyReport {
    /// Documents read.
    pub documents: u64,
    /// Input problems reported and skipped.
    pub input_problems: u64,
    /// Sentences seen.
    pub sentences: u64,
    /// Sentences kept by the filter (the ones every setting signs).
    pub kept: u64,
    /// The filter's bounds (shingles of `filter_shingle` characters on the text as written).
    pub min_shingles: usize,
    /// See [`StudyReport::min_shingles`].
    pub max_shingles: usize,
    /// See [`StudyReport::min_shingles`].
    pub filter_shingle: usize,
    /// The good-pair threshold on the normalized edit distance.
    pub max_edit: f64,
    /// The bucket cap.
    pub max_bucket: usize,
    /// Output bits of the hash functions.
    pub bits: u32,
    /// The seed.
    pub seed: u64,
    /// The band scheme.
    pub scheme: String,
    /// Seconds spent reading and normalizing the corpus (once for all settings).
    pub read_seconds: f64,
    /// One row per setting, by `K`, then `L`.
    pub rows: Vec<StudyRow>,
}

/// The kept sentences, normalized, in one string with their end offsets.
#[derive(Debug, Default)]
struct Sentences {
    text: String,
    ends: Vec<usize>,
}

impl Sentences {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

impl TuningStudy {
    /// A builder with the paper's grid ([`TuningStudyBuilder::new`]).
    pub fn builder() -> TuningStudyBuilder {
        TuningStudyBuilder::new()
    }

    /// The study with the paper's grid.
    pub fn new() -> TuningStudy {
        TuningStudyBuilder::new()
            .build()
            .expect("the default options are valid")
    }

    /// The settings, `(L, K)` in the order of the rows.
    pub fn settings(&self) -> Vec<(usize, usize)> {
        self.signers
            .iter()
            .flat_map(|s| self.shingles.iter().map(move |&l| (l, s.rows())))
            .collect()
    }

    /// Reads `sources` (as [`Dedup::run`](crate::Dedup::run) does: input problems are
    /// reported to `progress` and skipped) and runs every setting on their sentences. `progress`
    /// gets the reading stage, then per setting the merge and pair stages and a log line.
    pub fn run<I>(&self, sources: I, progress: &dyn Progress) -> Result<StudyReport, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
    {
        let started = Instant::now();
        let mut sentences = Sentences::default();
        let mut seen = 0u64;
        let filter = self.filter;
        let read = DocumentPipeline::new().batch(self.batch).run(
            sources,
            progress,
            Normalize::new,
            |norm, seq, doc| {
                let mut kept = KeptSentences::with_unit(&doc.text, seq, &filter, Unit::Sentence);
                let (mut text, mut lens) = (String::new(), Vec::new());
                let mut one = String::new();
                for s in kept.by_ref() {
                    normalize(s.text, norm, &mut one);
                    text.push_str(&one);
                    lens.push(one.len());
                }
                (kept.sentences_seen(), text, lens)
            },
            |_seq, (n, text, lens): (u64, String, Vec<usize>)| {
                seen += n;
                let mut end = sentences.text.len();
                sentences.text.push_str(&text);
                for len in lens {
                    end += len;
                    sentences.ends.push(end);
                }
                Ok(())
            },
        )?;
        let read_seconds = started.elapsed().as_secs_f64();
        progress.log(&format!(
            "read {} documents, {} sentences, {} kept in {read_seconds:.1}s",
            read.documents,
            seen,
            sentences.len()
        ));
        let rows = self.settings_over(&sentences, progress)?;
        let first = &self.signers[0];
        Ok(StudyReport {
            documents: read.documents,
            input_problems: read.input_problems,
            sentences: seen,
            kept: sentences.len() as u64,
            min_shingles: self.filter.min_shingles,
            max_shingles: self.filter.max_shingles,
            filter_shingle: self.filter.shingle,
            max_edit: self.max_edit,
            max_bucket: self.max_bucket,
            bits: first.bits(),
            seed: first.seed(),
            scheme: first.scheme().to_string(),
            read_seconds,
            rows,
        })
    }

    /// [`TuningStudy::run`] over documents a program holds.
    pub fn run_documents(
        &self,
        documents: impl IntoIterator<Item = Document>,
        progress: &dyn Progress,
    ) -> Result<StudyReport, Error> {
        self.run(documents.into_iter().map(|d| Ok(Source::Text(d))), progress)
    }

    /// Every setting over the kept sentences.
    fn settings_over(
        &self,
        sentences: &Sentences,
        progress: &dyn Progress,
    ) -> Result<Vec<StudyRow>, Error> {
        let mut rows = Vec::new();
        for signer in &self.signers {
            for &shingle in &self.shingles {
                let row = self.setting(signer, shingle, sentences, progress)?;
                progress.log(&format!(
                    "L = {:>2}, K = {:>2}: {} candidate pairs, {} good, {} bad (false-positive \
                     rate {:.4}) in {:.2}s",
                    row.shingle,
                    row.rows,
                    row.candidates,
                    row.good,
                    row.bad,
                    row.false_positive_rate,
                    row.seconds
                ));
                rows.push(row);
            }
        }
        Ok(rows)
    }

    /// One setting: sign, shuffle, verify the pairs.
    fn setting(
        &self,
        signer: &Signer,
        shingle: usize,
        sentences: &Sentences,
        progress: &dyn Progress,
    ) -> Result<StudyRow, Error> {
        let started = Instant::now();
        let mut shuffle = self.shuffle.build()?;
        let mut signed = 0u64;
        let n = sentences.len();
        for start in (0..n).step_by(BATCH) {
            let end = (start + BATCH).min(n);
            let records: Vec<Vec<(u64, u64)>> = (start..end)
                .into_par_iter()
                .with_min_len(256)
                .map_init(
                    || TextSigner::new(signer).shingle_chars(shingle),
                    |text_signer, i| {
                        text_signer
                            .band_keys(sentences.get(i))
                            .map_or_else(Vec::new, |keys| {
                                keys.iter().map(|&k| (k, i as u64)).collect()
                            })
                    },
                )
                .collect();
            for r in &records {
                signed += u64::from(!r.is_empty());
                shuffle.push_slice(r)?;
            }
        }
        progress.start(Stage::MergeRecords, Some(shuffle.len()));
        let mut stream = shuffle.finish_with_progress(&mut |k| progress.advance(k))?;
        progress.finish();
        progress.start(Stage::ClusterPairs, None);
        let (mut candidates, mut good) = (0u64, 0u64);
        let mut batch: Vec<(u64, u64)> = Vec::with_capacity(BATCH);
        loop {
            let next = stream.next_pair()?;
            if let Some(pair) = next {
                batch.push(pair);
            }
            if batch.len() == BATCH || (next.is_none() && !batch.is_empty()) {
                good += batch
                    .par_iter()
                    .with_min_len(64)
                    .map_init(Levenshtein::new, |lev, &(a, b)| {
                        let (a, b) = (sentences.get(a as usize), sentences.get(b as usize));
                        u64::from(lev.normalized_within(a, b, self.max_edit))
                    })
                    .sum::<u64>();
                candidates += batch.len() as u64;
                progress.advance(batch.len() as u64);
                batch.clear();
            }
            if next.is_none() {
                break;
            }
        }
        progress.finish();
        let stats = stream.stats();
        let mut row = StudyRow::new(signer, shingle, signed, candidates, good);
        row.buckets_capped = stats.buckets_capped;
        row.bucket_ids_left_out = stats.bucket_ids_left_out;
        row.seconds = started.elapsed().as_secs_f64();
        Ok(row)
    }
}

impl Default for TuningStudy {
    fn default() -> Self {
        TuningStudy::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_corpus::NoProgress;

    const BASE: &str = "The old mill on the river was built in 1820 and still grinds grain \
                        for the bakery of the village.";

    /// Three copies of one sentence, two of them edited a little, one rewritten beyond the
    /// threshold, and an unrelated sentence.
    fn corpus() -> Vec<Document> {
        let close = BASE.replace("1820", "1821");
        let closer = BASE.replace("bakery", "bakers");
        // Shares a long run with BASE, but more than a quarter of it differs.
        let far = format!(
            "{} and nothing else of that kind happened in the whole valley since.",
            &BASE[..60]
        );
        vec![
            Document::new(1, "A", BASE),
            Document::new(2, "B", close),
            Document::new(3, "C", closer),
            Document::new(4, "D", far),
            Document::new(
                5,
                "E",
                "Quantum chromodynamics describes the strong interaction between quarks and gluons.",
            ),
        ]
    }

    fn study(shingles: RangeInclusive<usize>, rows: &[usize]) -> TuningStudy {
        TuningStudy::builder()
            .shingles(shingles)
            .rows(rows.iter().copied())
            .min_shingles(10)
            .build()
            .unwrap()
    }

    /// The brute-force answer: every pair of the corpus's normalized sentences that shares a
    /// band key, split by edit distance.
    fn brute_force(signer: &Signer, shingle: usize, texts: &[String]) -> (u64, u64) {
        let mut ts = TextSigner::new(signer).shingle_chars(shingle);
        let keys: Vec<Vec<u64>> = texts
            .iter()
            .map(|t| ts.band_keys(t).unwrap().to_vec())
            .collect();
        let (mut candidates, mut good) = (0, 0);
        for i in 0..texts.len() {
            for j in i + 1..texts.len() {
                if keys[i].iter().zip(&keys[j]).any(|(a, b)| a == b) {
                    candidates += 1;
                    let d = textreuse_shingle::edit::levenshtein(&texts[i], &texts[j]);
                    let len = texts[i].chars().count().max(texts[j].chars().count());
                    good += u64::from(d as f64 / len as f64 <= 0.25);
                }
            }
        }
        (candidates, good)
    }

    #[test]
    fn rows_add_up_and_match_brute_force() {
        // The paper's grid, and K = 1 and 2, which make bad pairs of this corpus too.
        let study = study(5..=15, &[1, 2, 8, 9, 10]);
        let report = study.run_documents(corpus(), &NoProgress).unwrap();
        assert_eq!((report.documents, report.kept), (5, 5));
        assert_eq!(report.rows.len(), 55);
        assert!(report.rows.iter().any(|r| r.bad > 0));
        assert!(report.rows.iter().any(|r| r.good > 0));
        let texts: Vec<String> = corpus()
            .iter()
            .map(|d| {
                let mut out = String::new();
                normalize(&d.text, &Normalize::new(), &mut out);
                out
            })
            .collect();
        for (row, (l, k)) in report.rows.iter().zip(study.settings()) {
            assert_eq!((row.shingle, row.rows), (l, k));
            assert_eq!((row.hashes, row.bands, row.signed), (20, 10, 5));
            assert_eq!(row.good + row.bad, row.candidates);
            let signer = SignerConfig {
                rows: k,
                ..SignerConfig::weissman()
            }
            .build()
            .unwrap();
            assert_eq!(
                brute_force(&signer, l, &texts),
                (row.candidates, row.good),
                "L = {l}, K = {k}"
            );
        }
    }

    #[test]
    fn rates_on_a_corpus_worked_out_by_hand() {
        // Copies up to case share every band key; the unrelated sentence shares none.
        let docs = vec![
            Document::new(1, "A", BASE),
            Document::new(2, "B", BASE),
            Document::new(3, "C", BASE.to_uppercase()),
            Document::new(
                4,
                "D",
                "Quantum chromodynamics describes the strong interaction between quarks and gluons.",
            ),
        ];
        let report = study(12..=12, &[10])
            .run_documents(docs, &NoProgress)
            .unwrap();
        let row = &report.rows[0];
        // A, B and C normalize to one text: 3 pairs, all good.
        assert_eq!((row.candidates, row.good, row.bad), (3, 3, 0));
        assert_eq!(row.false_positive_rate, 0.0);
        let by_hand = StudyRow::new(&Signer::new(), 12, 4, 8, 6);
        assert_eq!((by_hand.bad, by_hand.false_positive_rate), (2, 0.25));
        let none = StudyRow::new(&Signer::new(), 12, 4, 0, 0);
        assert_eq!(none.false_positive_rate, 0.0);
    }

    #[test]
    fn a_bad_pair_counts_as_bad() {
        // Two sentences with a shared half: with K = 1 row and 10 bands, they surely share a
        // key (J is far above 0), yet their edit distance is far above 0.25.
        let half = "the river mill was built in 1820 and grinds grain for bakeries";
        let a = format!("{half} of the valley, the town and the villages around them.");
        let b = format!("{half}; elsewhere, quite different things were built by other people.");
        let report = TuningStudy::builder()
            .shingles([5])
            .rows([1])
            .min_shingles(10)
            .build()
            .unwrap()
            .run_documents(
                vec![
                    Document::new(1, "A", a.clone()),
                    Document::new(2, "B", b.clone()),
                ],
                &NoProgress,
            )
            .unwrap();
        let row = &report.rows[0];
        assert!(!Levenshtein::new().normalized_within(&a, &b, 0.25));
        assert_eq!((row.candidates, row.good, row.bad), (1, 0, 1));
        assert_eq!(row.false_positive_rate, 1.0);
    }

    #[test]
    fn sentences_are_those_dedup_keeps() {
        // The same filter as dedup's: the kept count equals dedup's sentences_kept.
        let docs: Vec<Document> = (0..20)
            .map(|i| {
                Document::new(
                    i,
                    "",
                    format!(
                        "Short one. {BASE} Another sentence {i} that is long enough to pass the \
                         filter of seventy-five shingles, surely, with some words added. Tiny."
                    ),
                )
            })
            .collect();
        let report = TuningStudy::new()
            .run_documents(docs.clone(), &NoProgress)
            .unwrap();
        let mut clusters: Vec<crate::Cluster> = Vec::new();
        let stats = crate::Dedup::new()
            .run_documents(docs, &mut clusters, &NoProgress)
            .unwrap();
        assert_eq!(report.kept, stats.sentences_kept);
        assert_eq!(report.sentences, stats.sentences);
        assert!(report.kept > 0);
    }

    #[test]
    fn options_are_checked() {
        assert!(TuningStudy::builder().shingles([]).build().is_err());
        assert!(TuningStudy::builder().shingles([0, 5]).build().is_err());
        assert!(TuningStudy::builder().rows([]).build().is_err());
        // Drawn bands: K at most N = 20.
        assert!(TuningStudy::builder().rows([21]).build().is_err());
        assert!(TuningStudy::builder().max_edit(1.5).build().is_err());
        assert!(TuningStudy::builder().max_bucket(1).build().is_err());
        let study = TuningStudy::builder()
            .shingles([7, 5, 7])
            .rows([10, 8])
            .build()
            .unwrap();
        assert_eq!(study.settings(), [(5, 8), (7, 8), (5, 10), (7, 10)]);
    }

    #[test]
    fn bucket_cap_is_counted() {
        // 5 copies, cap 3: the bucket's first 3 give 3 pairs, 2 ids are left out per bucket.
        let docs: Vec<Document> = (0..5).map(|i| Document::new(i, "", BASE)).collect();
        let report = TuningStudy::builder()
            .shingles([12])
            .rows([10])
            .min_shingles(10)
            .max_bucket(3)
            .build()
            .unwrap()
            .run_documents(docs, &NoProgress)
            .unwrap();
        let row = &report.rows[0];
        assert_eq!(row.candidates, 3);
        assert_eq!(row.buckets_capped, 10);
        assert_eq!(row.bucket_ids_left_out, 20);
    }
}
