//! End-to-end tests of the dedup engine: the clustering recall follows the configured S-curve,
//! the outputs do not depend on thread count or memory budget, and the sinks agree.
use std::collections::HashMap;
use std::path::Path;

use textreuse_corpus::{DocId, Document, NoProgress, Source};
use textreuse_dedup::{Cluster, Collect, Dedup, DedupBuilder, MemoryPlan, OutputDir};
use textreuse_minhash::Signer;
use textreuse_shingle::{Normalize, char_shingle_fingerprints, normalize};

/// A small deterministic generator (SplitMix64) so the corpus is the same everywhere.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        textreuse_hash::mix64(self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn word(rng: &mut Rng) -> String {
    let len = 3 + rng.below(6);
    (0..len)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect()
}

/// 700 base sentences of 24 random words, each with two variants in which 0 to 5 words were
/// replaced: related pairs of Jaccard similarity spread over 0.3..1, plus ~2.2 million unrelated
/// pairs near 0.
fn corpus() -> Vec<String> {
    let mut rng = Rng(7);
    let mut out = Vec::new();
    for _ in 0..700 {
        let words: Vec<String> = (0..24).map(|_| word(&mut rng)).collect();
        out.push(format!("{}.", words.join(" ")));
        for _ in 0..2 {
            let mut variant = words.clone();
            for _ in 0..rng.below(6) {
                let i = rng.below(variant.len());
                variant[i] = word(&mut rng);
            }
            out.push(format!("{}.", variant.join(" ")));
        }
    }
    out
}

/// The sorted, de-duplicated shingle fingerprints the pipeline signs.
fn shingle_set(text: &str) -> Vec<u64> {
    let mut n = String::new();
    normalize(text, &Normalize::new(), &mut n);
    let mut fps = Vec::new();
    char_shingle_fingerprints(&n, 12, &mut fps);
    fps.sort_unstable();
    fps.dedup();
    fps
}

/// Exact Jaccard similarity of two sorted sets (a merge).
fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    both as f64 / (a.len() + b.len() - both) as f64
}

/// Per Jaccard bin, the fraction of pairs that share a cluster is at least what the exact S-curve
/// predicts (pairs can also be joined through a third sentence), within 4.5 standard deviations.
#[test]
fn clustering_recall_follows_the_s_curve() {
    let texts = corpus();
    let out = tempfile::tempdir().unwrap();
    let signer = Signer::new();
    let dedup = Dedup::builder().min_shingles(0).build().unwrap();
    let docs: Vec<Document> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(i as u64 + 1, format!("doc {}", i + 1), t.clone()))
        .collect();
    let stats = dedup
        .run_documents(docs, &mut OutputDir::new(out.path()), &NoProgress)
        .unwrap();
    assert_eq!(stats.sentences_kept, texts.len() as u64);

    // doc id -> cluster id
    let mut cluster_of: HashMap<u64, u64> = HashMap::new();
    let clusters = std::fs::read_to_string(out.path().join("clusters.jsonl")).unwrap();
    for line in clusters.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for m in v["members"].as_array().unwrap() {
            cluster_of.insert(m["doc"].as_u64().unwrap(), v["cluster"].as_u64().unwrap());
        }
    }
    let sets: Vec<Vec<u64>> = texts.iter().map(|t| shingle_set(t)).collect();
    // bins of width 0.1: (pairs, joined, sum of predicted p, sum of p(1-p))
    let mut bins = vec![(0u64, 0u64, 0.0f64, 0.0f64); 10];
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            let s = jaccard(&sets[i], &sets[j]);
            let bin = ((s * 10.0) as usize).min(9);
            let p = signer.exact_match_probability(s);
            let joined = match (
                cluster_of.get(&(i as u64 + 1)),
                cluster_of.get(&(j as u64 + 1)),
            ) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            };
            let b = &mut bins[bin];
            b.0 += 1;
            b.1 += joined as u64;
            b.2 += p;
            b.3 += p * (1.0 - p);
        }
    }
    let mut checked = 0;
    for (i, &(n, joined, sum_p, sum_var)) in bins.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let observed = joined as f64 / n as f64;
        let expected = sum_p / n as f64;
        let sigma = sum_var.sqrt() / n as f64;
        eprintln!(
            "J in [{:.1}, {:.1}): {n} pairs, joined {observed:.4}, S-curve {expected:.4}",
            i as f64 / 10.0,
            (i + 1) as f64 / 10.0
        );
        assert!(
            observed >= expected - 4.5 * sigma - 1e-9,
            "bin {i}: observed {observed}, expected at least {expected} - 4.5 * {sigma}"
        );
        if n >= 20 {
            checked += 1;
        }
    }
    // The corpus must actually exercise the curve: several populated bins.
    assert!(checked >= 5, "only {checked} bins with 20+ pairs");
}

/// 900 documents of 40 sentences drawn from 600 base sentences (one in ten with a word replaced),
/// so clusters span about 60 documents, many article pairs tie, and the clustered members
/// (about 36,000) fill more than one of the parallel chunks of stages 6-8.
fn template_corpus() -> Vec<Document> {
    let mut rng = Rng(11);
    let base: Vec<Vec<String>> = (0..600)
        .map(|_| (0..16).map(|_| word(&mut rng)).collect())
        .collect();
    (0..900)
        .map(|d| {
            let sentences: Vec<String> = (0..40)
                .map(|_| {
                    let mut words = base[rng.below(base.len())].clone();
                    if rng.below(10) == 0 {
                        let i = rng.below(words.len());
                        words[i] = word(&mut rng);
                    }
                    format!("{}.", words.join(" "))
                })
                .collect();
            Document::new(1000 + d as u64, format!("Page {d}"), sentences.join("\n\n"))
        })
        .collect()
}

fn run_with(docs: &[Document], threads: usize, mem_budget: u64, out: &Path) {
    let dedup = Dedup::builder()
        .min_shingles(0)
        .mem_budget(mem_budget)
        .max_article_pairs(5_000)
        .build()
        .unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        dedup.run_documents(docs.iter().cloned(), &mut OutputDir::new(out), &NoProgress)
    })
    .unwrap();
}

/// The parallel stages 6-8 write the same bytes for 1 and 3 threads, and `article-pairs.tsv` is
/// the top of a plain recount of the article pairs in `clusters.jsonl` (clusters of at most 200
/// articles, most shared first, ties by document ids).
#[test]
fn parallel_outputs_match_a_plain_recount() {
    let docs = template_corpus();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    run_with(&docs, 1, 64 << 10, a.path());
    run_with(&docs, 3, 1 << 30, b.path());
    for file in ["clusters.jsonl", "article-pairs.tsv"] {
        let x = std::fs::read(a.path().join(file)).unwrap();
        let y = std::fs::read(b.path().join(file)).unwrap();
        assert!(x == y, "{file} differs between 1 and 3 threads");
    }

    let clusters = std::fs::read_to_string(a.path().join("clusters.jsonl")).unwrap();
    let mut counts: HashMap<(u64, u64), u64> = HashMap::new();
    let mut members = 0;
    let mut previous = None;
    for line in clusters.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = v["cluster"].as_u64().unwrap();
        assert!(previous < Some(id), "clusters are in id order");
        previous = Some(id);
        let mut in_cluster: Vec<u64> = v["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["doc"].as_u64().unwrap())
            .collect();
        members += in_cluster.len();
        in_cluster.sort_unstable();
        in_cluster.dedup();
        if in_cluster.len() <= 200 {
            for (i, &x) in in_cluster.iter().enumerate() {
                for &y in &in_cluster[i + 1..] {
                    *counts.entry((x, y)).or_insert(0) += 1;
                }
            }
        }
    }
    assert!(members > 1 << 15, "only {members} members: one chunk");
    let mut ranked: Vec<((u64, u64), u64)> = counts.into_iter().collect();
    ranked.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    // The cut falls inside a run of equal counts, so the tie-break matters.
    assert!(ranked.len() > 5_000 && ranked[4_999].1 == ranked[5_000].1);
    ranked.truncate(5_000);
    let expected: Vec<String> = ranked
        .iter()
        .map(|&((x, y), n)| format!("{n}\t{x}\tPage {}\t{y}\tPage {}", x - 1000, y - 1000))
        .collect();
    let pairs = std::fs::read_to_string(a.path().join("article-pairs.tsv")).unwrap();
    let rows: Vec<&str> = pairs.lines().skip(1).collect();
    assert_eq!(rows, expected);
}

/// The in-memory sinks receive exactly what `OutputDir` writes: the same cluster lines, article
/// pairs and counts.
#[test]
fn collected_results_equal_the_files() {
    let docs = template_corpus();
    let dir = tempfile::tempdir().unwrap();
    run_with(&docs, 2, 1 << 30, dir.path());
    let dedup = Dedup::builder()
        .min_shingles(0)
        .max_article_pairs(5_000)
        .build()
        .unwrap();
    let mut collected = Collect::default();
    let stats = dedup
        .run_documents(docs.iter().cloned(), &mut collected, &NoProgress)
        .unwrap();
    let lines: String = collected
        .clusters
        .iter()
        .map(|c| c.to_json() + "\n")
        .collect();
    assert_eq!(
        lines,
        std::fs::read_to_string(dir.path().join("clusters.jsonl")).unwrap()
    );
    let tsv: Vec<String> = collected.article_pairs.iter().map(|r| r.to_tsv()).collect();
    let file = std::fs::read_to_string(dir.path().join("article-pairs.tsv")).unwrap();
    assert_eq!(tsv, file.lines().skip(1).collect::<Vec<_>>());
    assert_eq!(collected.stats.as_ref().unwrap().clusters, stats.clusters);
    assert_eq!(stats.clusters as usize, collected.clusters.len());

    let mut only_clusters: Vec<Cluster> = Vec::new();
    dedup
        .run_documents(docs.iter().cloned(), &mut only_clusters, &NoProgress)
        .unwrap();
    assert_eq!(only_clusters, collected.clusters);
}

/// Options are checked when the engine is built, each error naming its option.
#[test]
fn builder_rejects_bad_options() {
    let err = |b: &mut textreuse_dedup::DedupBuilder| b.build().unwrap_err().to_string();
    assert!(err(Dedup::builder().max_edit(1.5)).contains("max_edit"));
    assert!(err(Dedup::builder().max_edit(f64::NAN)).contains("max_edit"));
    assert!(err(Dedup::builder().shingle(0)).contains("shingle"));
    assert!(err(Dedup::builder().min_shingles(10).max_shingles(5)).contains("min_shingles"));
    assert!(err(Dedup::builder().mem_budget(10)).contains("budget"));
    assert!(err(Dedup::builder().max_bucket(1)).contains("bucket"));
    assert!(Dedup::builder().max_edit(0.25).build().is_ok());
}

/// 250 exact copies of one sentence make one cluster of 250, whatever `max_bucket` is; with the
/// edit filter (all pairs) the cap leaves sentences out of the check, and says how many.
#[test]
fn no_member_is_lost_to_the_bucket_cap() {
    let sentence =
        "The old mill on the river was built in 1820 and still grinds grain for the village.";
    let docs: Vec<Document> = (0..250)
        .map(|i| Document::new(i, format!("Copy {i}"), sentence))
        .collect();
    let dedup = Dedup::builder()
        .min_shingles(10)
        .max_bucket(100)
        .build()
        .unwrap();
    let mut clusters: Vec<Cluster> = Vec::new();
    let stats = dedup
        .run_documents(docs.clone(), &mut clusters, &NoProgress)
        .unwrap();
    assert_eq!(clusters.len(), 1);
    assert_eq!(clusters[0].len(), 250);
    assert_eq!((stats.buckets_capped, stats.bucket_ids_left_out), (0, 0));

    let checked = Dedup::builder()
        .min_shingles(10)
        .max_bucket(100)
        .max_edit(0.1)
        .build()
        .unwrap();
    let mut clusters: Vec<Cluster> = Vec::new();
    let stats = checked
        .run_documents(docs, &mut clusters, &NoProgress)
        .unwrap();
    // Every band holds the same 250 sentences: 10 buckets, each checking its first 100.
    assert_eq!(
        (stats.buckets_capped, stats.bucket_ids_left_out),
        (10, 1500)
    );
    assert_eq!(clusters.len(), 1);
    assert_eq!(clusters[0].len(), 100);
}

/// On the bundled samples every member is traceable: its dump file, revision and timestamp,
/// and character offsets that cut its text out of the cleaned document.
#[test]
fn members_of_the_bundled_samples_are_traceable() {
    use textreuse_corpus::{Inputs, Source};
    let samples = [
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/enwiki-part-201.xml.bz2"
        ),
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/enwiki-sample-206.xml.bz2"
        ),
    ];
    let mut results = Collect::default();
    Dedup::new()
        .run(Inputs::new(samples), &mut results, &NoProgress)
        .unwrap();
    assert!(results.clusters.len() > 1000);
    // The cleaned text of every document, by (source, revision).
    let cleaner = textreuse_wikidump::Cleaner::new();
    let mut texts = HashMap::new();
    for source in Inputs::new(samples).flatten() {
        let doc = Source::into_document(source, &cleaner);
        let key = (
            doc.origin.source.clone().unwrap(),
            doc.origin.revision.unwrap(),
        );
        texts.insert(key, doc.text.chars().collect::<Vec<char>>());
    }
    let mut sources = std::collections::HashSet::new();
    let mut across = 0;
    for cluster in &results.clusters {
        for m in &cluster.members {
            let source = m
                .origin
                .source
                .clone()
                .expect("every member names its dump");
            let revision = m.origin.revision.expect("and its revision");
            assert!(
                m.origin
                    .timestamp
                    .as_deref()
                    .is_some_and(|t| t.ends_with('Z'))
            );
            let text = &texts[&(source.clone(), revision)];
            let cut: String = text[m.start as usize..m.end as usize].iter().collect();
            assert_eq!(cut, m.text);
            sources.insert(source);
        }
        across += cluster
            .members
            .windows(2)
            .any(|w| w[0].doc == w[1].doc && w[0].origin.source != w[1].origin.source)
            as usize;
    }
    assert_eq!(sources.len(), 2);
    // Most clusters are one sentence in the 2013 and the 2016 revision of a page: now told apart.
    assert!(across > 1000, "{across}");
}

/// Paragraph units: a paragraph shared by two documents is one cluster whatever else the
/// documents hold, found by MinHash, by the weighted paragraph SimHash and by the random
/// projection of its mean word vector alike; its members
/// point at the paragraph's line.
#[test]
fn shared_paragraphs_are_found_by_every_method() {
    use textreuse_dedup::Method;
    use textreuse_shingle::units::Unit;
    let shared = "The river rises in the northern hills and flows south through three market \
                  towns. Fishing was the main trade of the valley for centuries before the mills.";
    let docs = || {
        vec![
            Document::new(
                "a",
                "A",
                format!(
                    "An opening paragraph about something else entirely.\n{shared}\nA closing line that is different."
                ),
            ),
            Document::new(
                "b",
                "B",
                format!(
                    "{shared}\n\nTotally unrelated words follow here, about trains and timetables."
                ),
            ),
            Document::new(
                "c",
                "C",
                "Nothing shared at all in this one, only its own paragraph of text.",
            ),
        ]
    };
    for method in [
        Method::MinHash,
        Method::SimHash { max_hamming: 3 },
        Method::RandomProjection,
    ] {
        let dedup = Dedup::builder()
            .unit(Unit::Paragraph)
            .method(method)
            .build()
            .unwrap();
        let mut clusters: Vec<Cluster> = Vec::new();
        let stats = dedup
            .run_documents(docs(), &mut clusters, &NoProgress)
            .unwrap();
        assert_eq!(stats.sentences, 6, "{method:?}: paragraphs counted");
        assert_eq!(clusters.len(), 1, "{method:?}: {clusters:?}");
        let m = &clusters[0].members;
        assert_eq!((m[0].doc.to_string(), m[0].idx()), ("a".into(), 1));
        assert_eq!((m[1].doc.to_string(), m[1].idx()), ("b".into(), 0));
        assert_eq!(m[0].text, shared);
        // Offsets in characters: after the first line and its newline.
        let first_line = "An opening paragraph about something else entirely.\n"
            .chars()
            .count() as u64;
        assert_eq!(
            (m[0].start, m[0].end),
            (first_line, first_line + shared.chars().count() as u64)
        );
        assert_eq!(clusters[0].duplicates().count(), 1);
    }
}

/// WARC input (testdata/warc/pages.warc.gz, one gzip member per record as Common Crawl ships
/// it): the HTML response's main content and the conversion record's text are documents; the
/// warcinfo, request and image records are skipped.
#[cfg(feature = "warc")]
#[test]
fn warc_records_with_text_are_documents() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/warc/pages.warc.gz");
    let cleaner = textreuse_wikidump::Cleaner::new();
    let docs: Vec<Document> = textreuse_corpus::Inputs::new([&path])
        .map(|s| s.expect("readable").into_document(&cleaner))
        .collect();
    let titles: Vec<&str> = docs.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(
        titles,
        ["https://garden.example/bees", "https://games.example/chess"]
    );
    let page = &docs[0];
    assert_eq!(
        page.id.to_string(),
        "<urn:uuid:00000000-0000-4000-8000-000000000003>"
    );
    assert_eq!(page.origin.record, Some(3));
    assert!(
        page.origin
            .timestamp
            .as_deref()
            .unwrap()
            .starts_with("2026-11-01T10:00:02")
    );
    // The article's paragraphs, separated by blank lines; navigation and footer left out.
    assert!(
        page.text.contains("tens of thousands of workers"),
        "{}",
        page.text
    );
    assert!(page.text.contains("\n\n"), "{}", page.text);
    assert!(!page.text.contains("All rights reserved"), "{}", page.text);
    assert!(!page.text.contains("Contact"), "{}", page.text);
    assert!(docs[1].text.starts_with("Chess is a board game"));
}

/// A WARC stream cut inside a record: the records before it are read, the damage is reported
/// once, and reading stops there.
#[cfg(feature = "warc")]
#[test]
fn a_cut_warc_file_reports_the_damage_once() {
    use std::io::Read;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/warc/pages.warc.gz");
    let mut raw = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let needle = b"Keeping bees in the city</h1>";
    let cut = raw.windows(needle.len()).position(|w| w == needle).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.warc");
    std::fs::write(&file, &raw[..cut]).unwrap();
    let results: Vec<_> = textreuse_corpus::Inputs::new([&file]).collect();
    assert_eq!(results.len(), 1, "one error, nothing else");
    let message = results[0].as_ref().unwrap_err().to_string();
    assert!(message.contains("WARC record 3"), "{message}");
}

/// Meng and Zheng's random projection over word vectors trained on the corpus itself: copies
/// always cluster with their base sentence, one replaced word of 24 mostly does, unrelated
/// sentences never; the outputs are the same for 1 and 3 threads.
#[test]
fn random_projection_over_trained_vectors() {
    use textreuse_dedup::projection::{EmbeddingProjection, Vectors};
    use textreuse_dedup::{Method, Stats};
    use textreuse_embed::Trainer;
    let texts = corpus();
    let docs: Vec<Document> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Document::new(i as u64, "", t.clone()))
        .collect();
    let trainer = Trainer::builder().dim(32).epochs(2).build().unwrap();
    let projection = EmbeddingProjection::builder()
        .vectors(Vectors::Train(trainer))
        .max_hamming(12)
        .build()
        .unwrap();
    let dedup = Dedup::builder()
        .min_shingles(0)
        .method(Method::RandomProjection)
        .projection(projection)
        .build()
        .unwrap();
    let run = |threads| {
        let mut results = Collect::default();
        let stats = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| dedup.run_documents(docs.iter().cloned(), &mut results, &NoProgress))
            .unwrap();
        (results, stats)
    };
    let (one, stats) = run(1);
    let (three, stats3) = run(3);
    let lines = |c: &Collect| c.clusters.iter().map(|c| c.to_json()).collect::<Vec<_>>();
    assert_eq!(lines(&one), lines(&three));
    let without_seconds = |s: &Stats| {
        let mut s = s.clone();
        s.seconds = Default::default();
        if let Some(p) = &mut s.projection {
            p.training_seconds = 0.0;
        }
        s
    };
    assert_eq!(without_seconds(&stats), without_seconds(&stats3));
    assert_eq!(stats.method, "rp-embed");
    let p = stats.projection.as_ref().unwrap();
    assert_eq!((p.vectors.as_str(), p.dim, p.bits), ("trained", 32, 100));
    assert_eq!(p.units_without_vector, 0);
    assert_eq!(p.words_with_vector, p.vocabulary);

    let mut cluster_of = HashMap::new();
    for c in &one.clusters {
        for m in &c.members {
            cluster_of.insert(m.doc.to_string().parse::<usize>().unwrap(), c.id);
        }
    }
    let together = |a: usize, b: usize| {
        cluster_of
            .get(&a)
            .is_some_and(|x| cluster_of.get(&b) == Some(x))
    };
    // Variants by the number of words replaced (a replacement can draw the same word).
    let mut by_changes: HashMap<usize, (usize, usize)> = HashMap::new();
    for i in (0..texts.len()).filter(|i| i % 3 != 0) {
        let base = i / 3 * 3;
        let changed = texts[i]
            .split(' ')
            .zip(texts[base].split(' '))
            .filter(|(x, y)| x != y)
            .count();
        let e = by_changes.entry(changed).or_insert((0, 0));
        e.0 += 1;
        e.1 += usize::from(together(i, base));
    }
    let (copies, found) = by_changes[&0];
    assert_eq!(found, copies, "every copy clusters with its base");
    let (one_word, found) = by_changes[&1];
    assert!(
        found * 10 >= one_word * 6,
        "one word replaced: {found} of {one_word}"
    );
    // No cluster mixes base sentences of different groups.
    for c in &one.clusters {
        let mut groups: Vec<usize> = c
            .members
            .iter()
            .map(|m| m.doc.to_string().parse::<usize>().unwrap() / 3)
            .collect();
        groups.dedup();
        assert_eq!(groups.len(), 1, "{}", c.to_json());
    }
}

/// Every structure that spills under a memory bound gives the files of an unbounded run: with
/// the bound at its minimum and every share at its smallest (the sorts at 4 KiB, the text
/// store's index on disk from its first entry, stage 5's clusters computed on disk, stages 6-8
/// and the output a member at a time), all five files are the same bytes, `stats.json` except
/// its seconds and spilled bytes.
#[test]
fn outputs_under_the_smallest_bound_equal_the_unbounded_run() {
    let mut docs = template_corpus();
    for (i, doc) in docs.iter_mut().enumerate() {
        doc.origin.source = Some("pages.jsonl".into());
        doc.origin.record = Some(i as u64 + 1);
        if i.is_multiple_of(3) {
            doc.id = DocId::from(format!("page-{i}"));
        }
        if i.is_multiple_of(5) {
            doc.origin.timestamp = Some(format!("2020-01-{:02}T00:00:00Z", 1 + i % 28).into());
        }
    }
    let run = |builder: &mut DedupBuilder, out: &Path| {
        run_logged(builder.min_shingles(0).max_article_pairs(5_000), &docs, out)
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (unbounded, log) = run(&mut Dedup::builder(), a.path());
    assert!(!log.contains("computed on disk"), "{log}");
    let (bounded, log) = run(
        Dedup::builder()
            .max_memory(MemoryPlan::MINIMUM)
            .spill_everything(true),
        b.path(),
    );
    // Stage 5's clusters were computed on disk, not by union-find in memory, and stage 8's
    // article pairs and chains were ranked on disk.
    assert!(
        log.contains("connected components were computed on disk"),
        "{log}"
    );
    assert!(log.contains("ranked on disk"), "{log}");
    assert_eq!(unbounded.bytes_spilled, 0);
    assert!(bounded.bytes_spilled > 0, "the sorts must spill");
    assert!(
        bounded.clusters > 100 && bounded.duplicates > 10_000,
        "{} clusters, {} duplicates",
        bounded.clusters,
        bounded.duplicates
    );
    assert_same_outputs(a.path(), b.path(), "between the bounded and unbounded runs");
}

/// SimHash's search and the edit filter under the smallest bound give the files of an
/// unbounded run: SimHash at 3 bits with every structure spilling (the fingerprints in a
/// temporary file, each table of the search sorted by an external sort of 2 KiB), at 0 bits
/// under the bound alone; the edit filter's pairs in a temporary file and their texts loaded a
/// few at a time after SimHash and after MinHash.
#[test]
fn simhash_and_the_edit_filter_under_the_smallest_bound_equal_the_unbounded_run() {
    use textreuse_dedup::Method;
    let mut docs = template_corpus();
    docs.truncate(200);
    for (method, max_edit, spill) in [
        (Method::SimHash { max_hamming: 3 }, None, true),
        (Method::SimHash { max_hamming: 0 }, None, false),
        (Method::SimHash { max_hamming: 3 }, Some(0.02), true),
        (Method::MinHash, Some(0.02), true),
    ] {
        let run = |builder: &mut DedupBuilder, out: &Path| {
            builder
                .min_shingles(0)
                .max_article_pairs(5_000)
                .method(method);
            if let Some(d) = max_edit {
                builder.max_edit(d);
            }
            run_logged(builder, &docs, out)
        };
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (unbounded, _) = run(&mut Dedup::builder(), a.path());
        let (bounded, _) = run(
            Dedup::builder()
                .max_memory(MemoryPlan::MINIMUM)
                .spill_everything(spill),
            b.path(),
        );
        let context = format!("({method:?}, max_edit {max_edit:?}, spilling: {spill})");
        assert_eq!(bounded.bytes_spilled > 0, spill, "{context}");
        assert!(
            unbounded.clusters > 100 && unbounded.candidate_pairs > 1_000,
            "{} clusters, {} pairs {context}",
            unbounded.clusters,
            unbounded.candidate_pairs
        );
        if max_edit.is_some() {
            assert!(
                unbounded.pairs_after_edit_filter < unbounded.candidate_pairs,
                "the filter must drop pairs {context}"
            );
        }
        assert_eq!(
            bounded.candidate_pairs, unbounded.candidate_pairs,
            "{context}"
        );
        assert_same_outputs(a.path(), b.path(), &context);
    }
}

/// Stage 8's article tally and ranking on disk (every sort spilling) give the in-memory
/// ranking's `article-pairs.tsv` and `stats.json` on the bundled samples (the same pages in
/// two dumps: one article at two `seq`s), with their integer ids and with string ids.
#[test]
fn the_article_ranking_on_disk_equals_the_one_in_memory_on_the_samples() {
    use textreuse_corpus::Inputs;
    let samples = [
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/enwiki-part-201.xml.bz2"
        ),
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../data/enwiki-sample-206.xml.bz2"
        ),
    ];
    let cleaner = textreuse_wikidump::Cleaner::new();
    let docs: Vec<Document> = Inputs::new(samples)
        .flatten()
        .map(|s| Source::into_document(s, &cleaner))
        .collect();
    for strings in [false, true] {
        let mut docs = docs.clone();
        if strings {
            for doc in &mut docs {
                doc.id = DocId::from(format!("enwiki:{}", doc.id));
            }
        }
        let run = |builder: &mut DedupBuilder, out: &Path| {
            run_logged(builder.max_article_pairs(2_000), &docs, out)
        };
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (memory, log) = run(&mut Dedup::builder(), a.path());
        assert!(!log.contains("ranked on disk"), "{log}");
        let (disk, log) = run(
            Dedup::builder()
                .max_memory(MemoryPlan::MINIMUM)
                .spill_everything(true),
            b.path(),
        );
        assert!(log.contains("ranked on disk"), "{log}");
        assert!(
            memory.distinct_articles > 50 && memory.article_chains.chains > 2,
            "{} articles, {} chains",
            memory.distinct_articles,
            memory.article_chains.chains
        );
        assert_eq!(disk.distinct_articles, memory.distinct_articles);
        assert_eq!(disk.article_chains, memory.article_chains);
        assert_same_outputs(a.path(), b.path(), &format!("(string ids: {strings})"));
    }
}

/// The log lines of a run.
#[derive(Default)]
struct Logged(std::sync::Mutex<String>);

/// Every output file of two runs is the same bytes, `stats.json` but for its seconds and bytes
/// spilled.
fn assert_same_outputs(a: &Path, b: &Path, context: &str) {
    for file in OutputDir::FILES {
        let x = std::fs::read(a.join(file)).unwrap();
        let y = std::fs::read(b.join(file)).unwrap();
        if *file == "stats.json" {
            let strip = |bytes: &[u8]| {
                let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
                let stats = v.as_object_mut().unwrap();
                stats.remove("seconds").unwrap();
                stats.remove("bytes_spilled").unwrap();
                v
            };
            assert_eq!(strip(&x), strip(&y), "stats.json differs {context}");
        } else {
            assert!(x == y, "{file} differs {context}");
        }
    }
}

/// Runs `builder`'s engine over `docs` into `out`: its stats and what it logged.
fn run_logged(
    builder: &mut DedupBuilder,
    docs: &[Document],
    out: &Path,
) -> (textreuse_dedup::Stats, String) {
    let dedup = builder.build().unwrap();
    let sources = docs.iter().cloned().map(|d| Ok(Source::Text(d)));
    let logged = Logged::default();
    let stats = dedup.run_to_dir(sources, out, &logged).unwrap();
    (stats, logged.0.into_inner().unwrap())
}

impl textreuse_corpus::Progress for Logged {
    fn log(&self, line: &str) {
        let mut log = self.0.lock().unwrap();
        log.push_str(line);
        log.push('\n');
    }
}

/// A bound below the minimum is refused when the engine is built, before any input is read,
/// with the minimum in the error.
#[test]
fn a_bound_below_the_minimum_is_refused() {
    let e = Dedup::builder()
        .max_memory(MemoryPlan::MINIMUM - 1)
        .build()
        .unwrap_err();
    assert!(matches!(
        e,
        textreuse_dedup::Error::MemoryTooSmall { minimum, .. } if minimum == MemoryPlan::MINIMUM
    ));
    assert!(e.to_string().contains(&MemoryPlan::MINIMUM.to_string()));
    let plan = *Dedup::builder()
        .max_memory(1 << 30)
        .build()
        .unwrap()
        .memory();
    assert_eq!(plan.max_memory, Some(1 << 30));
    assert_eq!(
        plan.fixed
            + plan.text_index
            + plan.mapped_texts
            + plan.components
            + plan.article_tally
            + plan.drop_list,
        1 << 30
    );
}
