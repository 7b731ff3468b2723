//! The corpus-scale job end to end on small corpora: what is found, within and against, the
//! output files, and that results do not depend on threads or the memory budget.
use textreuse_corpus::{Document, Progress, Stage};
use textreuse_reuse::{
    ALIGN_BATCH, Candidates, FoundPair, PairResult, PanOutput, Reuse, ReuseBuilder, ReuseOutputDir,
    ReuseSink, ReuseStats,
};

/// A paragraph of made-up words, different for each `i`.
fn paragraph(i: usize, words: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "gu", "zo", "fe", "bi", "ho",
        "ja",
    ];
    let mut state = (i as u64 + 7).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    for _ in 0..words {
        let mut word = String::new();
        for _ in 0..2 + (state >> 62) as usize {
            state ^= state >> 29;
            state = state.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            word.push_str(SYLLABLES[(state >> 60) as usize]);
        }
        out.push(word);
    }
    format!("{}.", out.join(" "))
}

/// The (source, suspicious) document pairs with passages of a run within `docs`, and its
/// statistics.
fn pairs_found(docs: &[Document], job: &mut ReuseBuilder) -> (Vec<(usize, usize)>, ReuseStats) {
    let mut found = Vec::new();
    let stats = job.build().unwrap().run(docs, None, &mut found).unwrap();
    (
        found.iter().map(|p| (p.source, p.suspicious)).collect(),
        stats,
    )
}

/// Documents of three paragraphs; document 4 reuses a paragraph of document 1, document 7 one
/// of document 2 (with a word changed).
fn corpus(n: usize) -> Vec<Document> {
    (0..n)
        .map(|d| {
            let mut paras: Vec<String> = (0..3).map(|p| paragraph(d * 3 + p, 60)).collect();
            if d == 4 {
                paras[1] = paragraph(3 + 2, 60); // document 1's third paragraph
            }
            if d == 7 {
                paras[2] = paragraph(2 * 3, 60).replacen(' ', " extra ", 1); // document 2's first
            }
            Document::new(d as u64, format!("Doc {d}"), paras.join("\n\n"))
        })
        .collect()
}

fn run(docs: &[Document], against: Option<&[Document]>, budget: u64) -> Vec<FoundPair> {
    run_with(Candidates::TfIdf, docs, against, budget)
}

fn run_with(
    method: Candidates,
    docs: &[Document],
    against: Option<&[Document]>,
    budget: u64,
) -> Vec<FoundPair> {
    let mut found = Vec::new();
    Reuse::builder()
        .candidates(method)
        .mem_budget(budget)
        .build()
        .unwrap()
        .run(docs, against, &mut found)
        .unwrap();
    found
}

#[test]
fn finds_the_reused_paragraphs_within_a_corpus() {
    let docs = corpus(12);
    let found = run(&docs, None, 64 << 20);
    let pairs: Vec<(usize, usize)> = found.iter().map(|p| (p.source, p.suspicious)).collect();
    assert_eq!(pairs, [(1, 4), (2, 7)]);
    // The passage covers the reused paragraph in both documents.
    let case = &found[0].cases[0];
    let text: String = docs[4]
        .text
        .chars()
        .skip(case.suspicious.start)
        .take(case.suspicious.len())
        .collect();
    assert!(text.contains(&paragraph(5, 60)[..100]), "{text}");
    assert_eq!(&docs[4].text[case.suspicious_bytes.clone()], text);
}

#[test]
fn against_compares_only_across_the_two_corpora() {
    let docs = corpus(12);
    let (left, right) = docs.split_at(6);
    // Document 4 (left) reuses document 1 (left): not a pair across. Document 7 (right, 1)
    // reuses document 2 (left, 2): the left document is the suspicious side.
    let found = run(right, Some(left), 64 << 20);
    let pairs: Vec<(usize, usize)> = found.iter().map(|p| (p.suspicious, p.source)).collect();
    assert_eq!(pairs, [(1, 6 + 2)]);
}

#[test]
fn both_candidate_methods_find_verbatim_reuse() {
    let docs = corpus(12);
    for method in [Candidates::TfIdf, Candidates::MinHash] {
        let found = run_with(method, &docs, None, 64 << 20);
        let pairs: Vec<(usize, usize)> = found.iter().map(|p| (p.source, p.suspicious)).collect();
        assert_eq!(pairs, [(1, 4), (2, 7)], "{method:?}");
    }
}

/// Every candidate pair as `(suspicious, source)`, aligned or not.
#[derive(Default)]
struct Candidate(Vec<(usize, usize)>);

impl ReuseSink for Candidate {
    fn pair(&mut self, pair: &PairResult<'_>) -> std::io::Result<()> {
        self.0.push((pair.suspicious.0, pair.source.0));
        Ok(())
    }
}

fn candidates(method: Candidates, docs: &[Document]) -> Vec<(usize, usize)> {
    let mut sink = Candidate::default();
    Reuse::builder()
        .candidates(method)
        .align(false)
        .build()
        .unwrap()
        .run(docs, None, &mut sink)
        .unwrap();
    sink.0
}

#[test]
fn tfidf_candidates_survive_reordered_words_minhash_does_not() {
    let mut docs = corpus(12);
    // Document 9 reuses document 5's middle paragraph with each pair of words swapped: no word
    // 2-gram is left, every word is.
    let words: Vec<&str> = docs[5]
        .text
        .split("\n\n")
        .nth(1)
        .unwrap()
        .split(' ')
        .collect();
    let swapped: Vec<&str> = words
        .chunks(2)
        .flat_map(|w| w.iter().rev().copied())
        .collect();
    docs[9] = Document::new(
        9,
        "Doc 9",
        format!("{}\n\n{}", paragraph(100, 60), swapped.join(" ")),
    );
    assert!(candidates(Candidates::TfIdf, &docs).contains(&(9, 5)));
    assert!(!candidates(Candidates::MinHash, &docs).contains(&(9, 5)));
}

#[test]
fn a_minimum_score_keeps_copies_and_drops_weak_candidates() {
    let mut docs = corpus(12);
    // Document 10 shares 10 of a paragraph's 60 words with document 3: a weak candidate.
    let shared: Vec<&str> = docs[3].text.split(' ').take(10).collect();
    let text = format!("{} {}", shared.join(" "), paragraph(200, 50));
    docs[10] = Document::new(10, "Doc 10", format!("{}\n\n{text}", paragraph(201, 60)));
    let candidates = |min_score: f32| {
        let mut sink = Candidate::default();
        // All terms kept: the scores are the chunks' cosines (a copy scores about 1).
        let stats = Reuse::builder()
            .terms(1000)
            .min_score(min_score)
            .align(false)
            .build()
            .unwrap()
            .run(&docs, None, &mut sink)
            .unwrap();
        assert_eq!(stats.candidate_pairs as usize, sink.0.len());
        sink.0
    };
    let all = candidates(0.0);
    assert!(all.contains(&(10, 3)), "{all:?}");
    let strong = candidates(0.5);
    assert_eq!(strong, [(4, 1), (7, 2)]);
}

/// What a run reported: `(stage, total, units advanced)` and the log lines.
#[derive(Default)]
struct Recorded {
    stages: std::cell::RefCell<Vec<(Stage, Option<u64>, u64)>>,
    lines: std::cell::RefCell<Vec<String>>,
}

impl Progress for Recorded {
    fn log(&self, line: &str) {
        self.lines.borrow_mut().push(line.to_string());
    }

    fn start(&self, stage: Stage, total: Option<u64>) {
        self.stages.borrow_mut().push((stage, total, 0));
    }

    fn advance(&self, n: u64) {
        self.stages.borrow_mut().last_mut().unwrap().2 += n;
    }
}

#[test]
fn long_stages_report_progress() {
    let docs = corpus(12);
    let progress = Recorded::default();
    let mut found = Vec::new();
    // The smallest budget: several index blocks, each a pass over the query chunks.
    let stats = Reuse::builder()
        .mem_budget(textreuse_shuffle::MIN_MEM_BUDGET)
        .build()
        .unwrap()
        .run_with_progress(&docs, None, &mut found, &progress)
        .unwrap();
    assert!(stats.index_blocks > 1);
    let stages = progress.stages.borrow();
    assert_eq!(
        *stages,
        [
            (
                Stage::ScoreChunks,
                Some(stats.chunks * stats.index_blocks),
                stats.chunks * stats.index_blocks
            ),
            (
                Stage::AlignPairs,
                Some(stats.candidate_pairs),
                stats.candidate_pairs
            ),
        ]
    );
    let lines = progress.lines.borrow();
    assert!(
        lines[0].contains(&format!("{} candidate pairs", stats.candidate_pairs)),
        "{lines:?}"
    );
}

#[test]
fn results_do_not_depend_on_threads_or_budget() {
    let docs = corpus(40);
    for method in [Candidates::TfIdf, Candidates::MinHash] {
        let reference = run_with(method, &docs, None, 64 << 20);
        let one_thread = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let single = one_thread.install(|| run_with(method, &docs, None, 64 << 20));
        assert_eq!(single, reference, "{method:?}");
        // The smallest budget spills the sorts to disk.
        let small = run_with(method, &docs, None, textreuse_shuffle::MIN_MEM_BUDGET);
        assert_eq!(small, reference, "{method:?}");
    }
}

#[test]
fn output_files_and_pan_detections() {
    let docs = corpus(12);
    let dir = tempfile::tempdir().unwrap();
    let (out, pan) = (dir.path().join("out"), dir.path().join("pan"));
    let stats = Reuse::new()
        .run(
            &docs,
            None,
            &mut (ReuseOutputDir::new(&out), PanOutput::new(&pan)),
        )
        .unwrap();
    assert_eq!(stats.pairs_with_reuse, 2);
    let cases = std::fs::read_to_string(out.join("reuse.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(cases.lines().next().unwrap()).unwrap();
    assert_eq!(first["suspicious"]["title"], "Doc 4");
    assert_eq!(first["source"]["doc"], "1");
    assert!(first["suspicious_length"].as_u64().unwrap() > 300);
    let pairs = std::fs::read_to_string(out.join("pairs.tsv")).unwrap();
    assert_eq!(pairs.lines().count() as u64, 1 + stats.candidate_pairs);
    let documents = std::fs::read_to_string(out.join("documents.tsv")).unwrap();
    assert_eq!(documents.lines().count(), 1 + 4); // documents 1, 2, 4 and 7
    let stats_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats_json["cases"], stats.cases);
    // One detection file per pair with passages, named by the titles (no input files here).
    let mut names: Vec<String> = std::fs::read_dir(&pan)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["Doc 4-Doc 1.xml", "Doc 7-Doc 2.xml"]);
}

#[test]
fn candidates_only_aligns_nothing() {
    let docs = corpus(12);
    let mut found = Vec::new();
    let stats = Reuse::builder()
        .align(false)
        .build()
        .unwrap()
        .run(&docs, None, &mut found)
        .unwrap();
    assert!(stats.candidate_pairs >= 2);
    assert_eq!((stats.cases, found.len()), (0, 0));
}

#[test]
fn bad_parameters_are_errors() {
    let no_ngram = textreuse_shingle::ChunkConfig {
        ngram: 0,
        ..Default::default()
    };
    assert!(Reuse::builder().chunks(no_ngram).build().is_err());
    let no_rows = textreuse_minhash::SignerConfig {
        rows: 0,
        ..textreuse_minhash::SignerConfig::chunks()
    };
    assert!(Reuse::builder().signer(no_rows).build().is_err());
    assert!(Reuse::builder().max_bucket(1).build().is_err());
    assert!(Reuse::builder().terms(0).build().is_err());
    assert!(Reuse::builder().top_docs(0).build().is_err());
    assert!(Reuse::builder().max_postings(1).build().is_err());
    assert!(Reuse::builder().min_score(1.5).build().is_err());
    assert!(Reuse::builder().min_score(f32::NAN).build().is_err());
    assert!("simhash".parse::<Candidates>().is_err());
    assert_eq!("minhash".parse::<Candidates>(), Ok(Candidates::MinHash));
}

#[test]
fn documents_on_disk_give_the_same_files_as_documents_in_memory() {
    use textreuse_reuse::DocumentStoreBuilder;

    let docs = corpus(30);
    let dir = tempfile::tempdir().unwrap();
    let store = |docs: &[Document]| {
        let mut b = DocumentStoreBuilder::new(Some(dir.path())).unwrap();
        for d in docs {
            b.push(d.clone()).unwrap();
        }
        b.finish().unwrap()
    };
    let job = Reuse::new();
    let compare = |corpus: &[Document], other: Option<&[Document]>, name: &str| {
        let (mem, disk) = (
            dir.path().join(name),
            dir.path().join(format!("{name}-disk")),
        );
        let in_memory = job
            .run(corpus, other, &mut ReuseOutputDir::new(&mem))
            .unwrap();
        let (s_corpus, s_other) = (store(corpus), other.map(store));
        let on_disk = job
            .run_stored(
                &s_corpus,
                s_other.as_ref(),
                &mut ReuseOutputDir::new(&disk),
                &textreuse_corpus::NoProgress,
            )
            .unwrap();
        assert_eq!(in_memory.cases, 2, "{name}");
        assert_eq!(in_memory.candidate_pairs, on_disk.candidate_pairs, "{name}");
        for file in ["reuse.jsonl", "pairs.tsv", "documents.tsv"] {
            assert_eq!(
                std::fs::read(mem.join(file)).unwrap(),
                std::fs::read(disk.join(file)).unwrap(),
                "{name}: {file}"
            );
        }
    };
    compare(&docs, None, "within");
    // Documents 4 and 7 reuse documents 1 and 2.
    compare(&docs[3..], Some(&docs[..3]), "against");
    // The stores are dropped: their text files are gone.
    let left = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name();
            name.to_string_lossy().starts_with(".textreuse-docs-")
        })
        .count();
    assert_eq!(left, 0);
}

/// A pair's texts `(suspicious, source)`, titles `(source, suspicious)` and passages.
type AlignedPair = (
    (String, String),
    (String, String),
    Vec<textreuse_reuse::ReuseCase>,
);

/// Every candidate pair as the run aligned it.
#[derive(Default)]
struct Aligned(Vec<AlignedPair>);

impl ReuseSink for Aligned {
    fn pair(&mut self, pair: &PairResult<'_>) -> std::io::Result<()> {
        let (susp, src) = pair.texts;
        let titles = (
            textreuse_reuse::topic_title(pair.source.1).to_string(),
            textreuse_reuse::topic_title(pair.suspicious.1).to_string(),
        );
        self.0
            .push(((susp.into(), src.into()), titles, pair.cases.to_vec()));
        Ok(())
    }
}

/// The run tokenizes each document once, keeps its tokens on disk for later batches of
/// pairs and aligns the pairs from those; each pair's passages are what aligning its two texts alone gives, also when the language
/// is detected per document (German documents among English ones).
#[test]
fn batched_alignment_gives_each_pair_its_own_passages() {
    let mut docs = corpus(60);
    let german = "Die Würde des Menschen ist unantastbar und sie zu achten ist Pflicht. \
        Das Volk bekennt sich zu den unverletzlichen und unveräußerlichen Menschenrechten. \
        Diese Grundrechte binden Gesetzgebung, vollziehende Gewalt und Rechtsprechung.";
    for (i, d) in docs.iter_mut().enumerate().skip(45) {
        d.text = format!("{german}\n\n{}", paragraph(1000 + i, 60));
    }
    // A paragraph every document shares makes every pair a candidate.
    let shared = paragraph(9999, 60);
    for d in &mut docs {
        d.text = format!("{}\n\n{shared}", d.text);
    }
    for detect in [false, true] {
        let job = Reuse::builder()
            .detect_language(detect)
            .min_passage_len(40)
            .top_docs(60)
            .build()
            .unwrap();
        let mut sink = Aligned::default();
        job.run(&docs, None, &mut sink).unwrap();
        // More pairs than a batch: documents of the later batches are read back from disk.
        assert!(sink.0.len() > ALIGN_BATCH, "{}", sink.0.len());
        let with_passages = sink.0.iter().filter(|(_, _, c)| !c.is_empty()).count();
        assert!(with_passages >= 3, "{with_passages}");
        for ((susp, src), titles, cases) in &sink.0 {
            let (src, susp) = (job.prepare(src), job.prepare(susp));
            let titles = Some((titles.0.as_str(), titles.1.as_str()));
            assert_eq!(cases, &job.align_prepared_pair(&src, &susp, titles));
        }
    }
}

/// Document 2 has six short sentences that document 5 rewrote as one long sentence with one
/// word in eight replaced: no sentence pair is similar enough to seed, only shared word
/// 4-grams find it, and only when asked.
#[test]
fn fallback_ngrams_find_reworded_reuse_when_asked() {
    let mut docs = corpus(8);
    let words: Vec<String> = paragraph(500, 48)
        .trim_end_matches('.')
        .split(' ')
        .map(str::to_string)
        .collect();
    let sentences: Vec<String> = words
        .chunks(8)
        .map(|c| format!("{}.", c.join(" ")))
        .collect();
    let replaced = paragraph(501, 6);
    let mut replaced = replaced.trim_end_matches('.').split(' ');
    let reworded: Vec<&str> = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i % 8 == 5 {
                replaced.next().unwrap()
            } else {
                w.as_str()
            }
        })
        .collect();
    docs[2].text = format!("{}\n\n{}", docs[2].text, sentences.join(" "));
    docs[5].text = format!("{}\n\n{}.", docs[5].text, reworded.join(" "));
    let found = |fallback: Option<usize>| {
        let (pairs, stats) = pairs_found(&docs, Reuse::builder().fallback_ngram(fallback));
        assert_eq!(stats.fallback_ngram, fallback);
        pairs
    };
    assert_eq!(found(None), [(1, 4), (2, 7)]);
    assert_eq!(found(Some(4)), [(1, 4), (2, 5), (2, 7)]);
    assert!(Reuse::builder().fallback_ngram(Some(0)).build().is_err());
}

/// A paraphrase that swaps most content words for WordNet synonyms is found with the aligner's
/// synonyms (the default) and not without; `stats.json` says which.
#[test]
fn synonyms_find_paraphrased_reuse() {
    let mut docs = corpus(8);
    docs[1].text = format!(
        "{}\n\nVisitors could purchase tickets at a cheaper price before the journey would \
         begin. Every customer who wanted help found a large car outside the hotel. The guides \
         would build a fire and tell stories about wealthy families.",
        docs[1].text
    );
    docs[6].text = format!(
        "{}\n\nVisitors could buy passes at a cheaper cost before the travel would start. Every \
         client who desired aid found a big automobile outside the inn. The guides would \
         construct a blaze and recount tales about affluent households.",
        docs[6].text
    );
    let found = |synonyms: bool| {
        let (pairs, stats) = pairs_found(&docs, Reuse::builder().synonyms(synonyms));
        assert_eq!(stats.synonyms, synonyms);
        pairs
    };
    let with = found(true);
    assert!(with.contains(&(1, 6)), "{with:?}");
    assert_eq!(
        found(false),
        with.into_iter()
            .filter(|&p| p != (1, 6))
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_memory_bound_below_the_minimum_is_refused_when_built() {
    use textreuse_reuse::{MemoryPlan, ReuseError};

    let err = Reuse::builder()
        .max_memory(MemoryPlan::MINIMUM - 1)
        .build()
        .unwrap_err();
    match &err {
        ReuseError::MemoryTooSmall {
            max_memory,
            minimum,
        } => assert_eq!(
            (*max_memory, *minimum),
            (MemoryPlan::MINIMUM - 1, MemoryPlan::MINIMUM)
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        err.to_string().contains(&MemoryPlan::MINIMUM.to_string()),
        "{err}"
    );
    // The sorts' budget must fit in their share of the bound.
    assert!(matches!(
        Reuse::builder()
            .max_memory(MemoryPlan::MINIMUM)
            .mem_budget(MemoryPlan::MINIMUM)
            .build(),
        Err(ReuseError::Parameter(_))
    ));
    let job = Reuse::builder()
        .max_memory(MemoryPlan::MINIMUM)
        .build()
        .unwrap();
    assert_eq!(job.memory().max_memory, Some(MemoryPlan::MINIMUM));
    assert_eq!(Reuse::new().memory().max_memory, None);
}

/// The output files of a run over `docs` kept on disk, and its statistics.
fn stored_run(
    docs: &[Document],
    against: Option<&[Document]>,
    job: &mut ReuseBuilder,
    out: &std::path::Path,
) -> (Vec<Vec<u8>>, ReuseStats) {
    use textreuse_reuse::DocumentStoreBuilder;

    let job = job.build().unwrap();
    // The stores' offsets get their share of the bound, as `textreuse reuse` gives them.
    let offsets = match against {
        Some(_) => job.memory().store_offsets() / 2,
        None => job.memory().store_offsets(),
    };
    let store = |docs: &[Document]| {
        let mut b = DocumentStoreBuilder::new(None::<&std::path::Path>).unwrap();
        b.max_offsets_memory(offsets);
        for d in docs {
            b.push(d.clone()).unwrap();
        }
        b.finish().unwrap()
    };
    let (corpus, other) = (store(docs), against.map(store));
    let stats = job
        .run_stored(
            &corpus,
            other.as_ref(),
            &mut ReuseOutputDir::new(out),
            &textreuse_corpus::NoProgress,
        )
        .unwrap();
    let files = ["reuse.jsonl", "pairs.tsv", "documents.tsv", "corpus.json"]
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    (files, stats)
}

/// Everything that can spill under a bound does (the sorts and the index blocks, the
/// alignment's parts, the mapped texts, the per-document arrays), and the files are the same
/// bytes as without a bound.
#[test]
fn a_memory_bound_spills_and_gives_the_same_files() {
    use textreuse_reuse::MemoryPlan;

    let docs = corpus(40);
    let dir = tempfile::tempdir().unwrap();
    for method in [Candidates::TfIdf, Candidates::MinHash] {
        for (name, against) in [("within", None), ("against", Some(&docs[..5]))] {
            let corpus = if against.is_some() {
                &docs[5..]
            } else {
                &docs[..]
            };
            let out = dir.path().join(format!("{method:?}-{name}"));
            let (reference, plain) =
                stored_run(corpus, against, Reuse::builder().candidates(method), &out);
            let out = dir.path().join(format!("{method:?}-{name}-bound"));
            let (bounded, stats) = stored_run(
                corpus,
                against,
                Reuse::builder()
                    .candidates(method)
                    .max_memory(MemoryPlan::MINIMUM)
                    .spill_everything(true),
                &out,
            );
            assert!(plain.cases >= 1, "{method:?} {name}");
            assert_eq!(bounded, reference, "{method:?} {name}");
            assert_eq!(stats.cases, plain.cases);
            assert_eq!(
                (
                    plain.bytes_spilled,
                    plain.text_releases,
                    plain.doc_arrays_on_disk
                ),
                (0, 0, 0)
            );
            // The stores' offsets and the tokens' places, and with tf-idf the documents' first
            // chunks and posting counts.
            let arrays = [1, 2][usize::from(against.is_some())]
                + 1
                + [2, 0][usize::from(method == Candidates::MinHash)];
            assert_eq!(stats.doc_arrays_on_disk, arrays, "{method:?} {name}");
            assert!(stats.bytes_spilled > 0, "{method:?} {name}: {stats:?}");
            assert!(stats.text_releases > 0, "{method:?} {name}");
            assert_eq!(
                stats.align_parts, stats.candidate_pairs,
                "{method:?} {name}"
            );
            if method == Candidates::TfIdf {
                assert!(stats.index_blocks > 1, "{name}: {}", stats.index_blocks);
            }
        }
    }
}

/// At the smallest bound, with no test hook, a corpus whose texts pass the mapped texts' share
/// (6 MiB) has their pages handed back, and the files do not change.
#[test]
fn the_smallest_bound_hands_back_the_mapped_texts() {
    use textreuse_reuse::MemoryPlan;

    // 1,000 documents of about 6 KB: 6 MB of text, read in several passes.
    let docs: Vec<Document> = (0..1000)
        .map(|d| {
            let paras: Vec<String> = (0..6).map(|p| paragraph(d * 6 + p, 120)).collect();
            Document::new(d as u64, format!("Doc {d}"), paras.join("\n\n"))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (reference, plain) = stored_run(&docs, None, &mut Reuse::builder(), &dir.path().join("a"));
    let (bounded, stats) = stored_run(
        &docs,
        None,
        Reuse::builder().max_memory(MemoryPlan::MINIMUM),
        &dir.path().join("b"),
    );
    assert_eq!(bounded, reference);
    assert_eq!(stats.candidate_pairs, plain.candidate_pairs);
    assert!(stats.text_releases > 0, "{stats:?}");
}
