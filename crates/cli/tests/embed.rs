//! `textreuse dedup --method rp-embed` end to end: the same clusters for any thread count, for a
//! vector file in each format, and from the library in memory; malformed vector files refused
//! with the line that is wrong.
use std::path::Path;

use textreuse::corpus::{Inputs, NoProgress};
use textreuse::dedup::projection::{EmbeddingProjection, Vectors};
use textreuse::dedup::{Collect, Dedup, Method};
use textreuse::embed::{Cleaner, Embeddings, Format, Trainer};

use super::common;

fn sample() -> String {
    common::workspace("data/enwiki-sample-206.xml.bz2")
}

fn read(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap()
}

/// Trained vectors (small, so the test is quick): the same files for 1 and 2 threads, and the
/// same clusters as the library run through the facade.
#[test]
fn trained_vectors_give_the_same_clusters_everywhere() {
    let sample = sample();
    // Small vectors, so that the runs are quick; `extra` adds flags.
    let run = |dir: &Path, extra: &[&str]| {
        let mut args = vec!["--quiet", "dedup", &sample, "--method", "rp-embed"];
        args.extend([
            "--dim",
            "24",
            "--epochs",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ]);
        args.extend(extra);
        common::ok(&args);
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (threads, dir) in [("1", a.path()), ("2", b.path())] {
        run(dir, &["--threads", threads]);
    }
    for file in ["clusters.jsonl", "duplicates.jsonl", "article-pairs.tsv"] {
        assert!(
            read(a.path(), file) == read(b.path(), file),
            "{file} differs"
        );
    }
    let clusters = read(a.path(), "clusters.jsonl");
    // MinHash finds 19 clusters in this sample.
    assert!(clusters.split(|&b| b == b'\n').count() > 19);
    let stats: serde_json::Value = serde_json::from_slice(&read(a.path(), "stats.json")).unwrap();
    assert_eq!(stats["method"], "rp-embed");
    assert_eq!(stats["projection"]["vectors"], "trained");
    assert_eq!(stats["projection"]["dim"], 24);
    assert_eq!(stats["projection"]["bits"], 100);
    assert_eq!(stats["projection"]["seed"], 1123456);
    // --seed reaches the training, the hyperplanes and the permutations.
    let c = tempfile::tempdir().unwrap();
    run(c.path(), &["--seed", "7"]);
    let seeded: serde_json::Value = serde_json::from_slice(&read(c.path(), "stats.json")).unwrap();
    assert_eq!(seeded["projection"]["seed"], 7);
    assert!(
        read(c.path(), "clusters.jsonl") != clusters,
        "another seed, other clusters"
    );

    let projection = EmbeddingProjection::builder()
        .vectors(Vectors::Train(
            Trainer::builder().dim(24).epochs(2).build().unwrap(),
        ))
        .build()
        .unwrap();
    let dedup = Dedup::builder()
        .method(Method::RandomProjection)
        .projection(projection)
        .build()
        .unwrap();
    let mut results = Collect::default();
    let inputs = Inputs::new([sample.as_str()]);
    dedup.run(inputs, &mut results, &NoProgress).unwrap();
    let lines: String = results
        .clusters
        .iter()
        .map(|c| c.to_json() + "\n")
        .collect();
    assert_eq!(lines.as_bytes(), clusters);
}

/// Vectors for every cleaned word of the sample (unstemmed: published files are), made up from
/// the words' fingerprints.
fn made_up_vectors() -> Embeddings {
    let mut e = Embeddings::new(8).unwrap();
    let cleaner = Cleaner::builder().stem(false).build();
    let mut words = Vec::new();
    let mut inputs = Inputs::new([sample().as_str()]);
    for source in inputs.by_ref().flatten() {
        let doc = source.into_document(&textreuse::wikidump::Cleaner::new());
        cleaner.words(&doc.text, &mut words);
        for w in &words {
            let mut x = textreuse::hash::fingerprint(w.as_bytes());
            let v: Vec<f32> = (0..8)
                .map(|_| {
                    x = textreuse::hash::mix64(x);
                    (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
                })
                .collect();
            e.push(w, &v).unwrap();
        }
    }
    e
}

/// One vector file in each format (detected, and named): the same clusters.
#[test]
fn every_vector_format_gives_the_same_clusters() {
    let vectors = made_up_vectors();
    assert!(vectors.len() > 1000);
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for format in Format::ALL {
        let path = dir.path().join(format!("vectors.{format}"));
        let file = std::fs::File::create(&path).unwrap();
        textreuse::embed::write(&vectors, format, std::io::BufWriter::new(file)).unwrap();
        for named in [None, Some(format.as_str())] {
            let out = dir.path().join(format!("out-{format}-{}", named.is_some()));
            let mut args = vec![
                "--quiet",
                "dedup",
                "--method",
                "rp-embed",
                "--no-stem",
                "--vectors",
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ];
            if let Some(name) = named {
                args.extend(["--vectors-format", name]);
            }
            let sample = sample();
            args.push(&sample);
            common::ok(&args);
            outputs.push(read(&out, "clusters.jsonl"));
            let stats: serde_json::Value =
                serde_json::from_slice(&read(&out, "stats.json")).unwrap();
            assert_eq!(stats["projection"]["vectors"], "file");
            assert_eq!(stats["projection"]["dim"], 8);
            assert_eq!(stats["projection"]["stemmed"], false);
        }
    }
    assert!(!outputs[0].is_empty());
    assert!(outputs.iter().all(|o| *o == outputs[0]));
}

/// A malformed vector file stops the run before any input is read, saying which line is wrong.
#[test]
fn malformed_vector_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.vec");
    std::fs::write(&path, "2 3\nriver 0.5 -1 2\nmill 1 two 3\n").unwrap();
    let out = dir.path().join("out");
    let args = [
        "dedup",
        "--method",
        "rp-embed",
        "--vectors",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let output = common::textreuse(&args);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.vec as word2vec"), "{stderr}");
    assert!(
        stderr.contains("line 3 (byte 19): value 2 of \"mill\" is \"two\", not a finite number"),
        "{stderr}"
    );
    assert!(!out.exists());
    let output = common::textreuse(&["dedup", "--method", "rp-embed", "--projection-bits", "0"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("--projection-bits"));
    let output = common::textreuse(&["dedup", "--method", "rp-embed", "--epochs", "0"]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("--epochs"));
}
