//! Document-level dedup end to end (`--unit document`): planted near-duplicate documents are
//! found as often as the S-curve of the parameters says, `duplicates.jsonl` names them with
//! their ids as written, and `--write-deduplicated` writes exactly the input minus them.
use std::collections::{HashMap, HashSet};

use serde_json::Value;
use textreuse::minhash::{Signer, TextSigner};

use super::common;

/// splitmix64: a small deterministic generator for the corpus.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn word(&mut self) -> String {
        let len = 3 + self.below(6);
        (0..len)
            .map(|_| (b'a' + self.below(26) as u8) as char)
            .collect()
    }
}

/// The sizes of the intersection and the union of two texts' normalized shingle sets, as the
/// engine sees them.
fn overlap(signer: &mut TextSigner<'_>, a: &str, b: &str) -> (usize, usize) {
    let mut set = |t: &str| -> HashSet<u64> { signer.shingles(t).iter().copied().collect() };
    let (a, b) = (set(a), set(b));
    (a.intersection(&b).count(), a.union(&b).count())
}

/// `pairs` base documents, each followed by one copy with a random share (0-10 %) of its words
/// replaced: ids `b<i>` and `c<i>`, and the shared and union shingle counts of each pair.
fn corpus(pairs: usize) -> (String, Vec<(usize, usize)>) {
    let signer = Signer::new();
    let mut ts = TextSigner::new(&signer);
    let mut rng = Rng(20261123);
    let (mut jsonl, mut similarity) = (String::new(), Vec::new());
    for i in 0..pairs {
        let words: Vec<String> = (0..120).map(|_| rng.word()).collect();
        let mut copy = words.clone();
        let changes = rng.below(13); // up to 10 % of 120 words
        for _ in 0..changes {
            let at = rng.below(copy.len());
            copy[at] = rng.word();
        }
        let (a, b) = (words.join(" ") + ".", copy.join(" ") + ".");
        similarity.push(overlap(&mut ts, &a, &b));
        for (id, text) in [(format!("b{i}"), a), (format!("c{i}"), b)] {
            jsonl.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
            jsonl.push('\n');
        }
    }
    (jsonl, similarity)
}

#[test]
fn recall_follows_the_s_curve_and_the_copy_is_the_input_minus_the_duplicates() {
    let long = std::env::var_os("TEXTREUSE_LONG_TESTS").is_some();
    let pairs = if long { 4000 } else { 600 };
    let (jsonl, similarity) = corpus(pairs);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    std::fs::write(&input, &jsonl).unwrap();
    let (out, copy) = (dir.path().join("out"), dir.path().join("copy"));
    common::ok(&[
        "--quiet",
        "dedup",
        "--unit",
        "document",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--write-deduplicated",
        copy.to_str().unwrap(),
    ]);

    // Which copies were found: `c<i>` listed as a duplicate of `b<i>` (the first seen).
    let duplicates =
        common::json_lines(&std::fs::read_to_string(out.join("duplicates.jsonl")).unwrap());
    let mut found = HashSet::new();
    for d in &duplicates {
        let (id, of) = (
            d["doc"].as_str().unwrap(),
            d["duplicate_of"]["doc"].as_str().unwrap(),
        );
        assert_eq!(id.strip_prefix('c'), of.strip_prefix('b'), "{d}");
        assert_eq!(d["source"], Value::from(input.to_str().unwrap()));
        let similarity = d["similarity"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&similarity), "{d}");
        found.insert(id.to_string());
    }

    // Recall per similarity bin against the exact S-curve of the documents' default signer (the
    // OPH preset, whose curve depends on the sets' sizes): within four standard deviations of
    // the mean match probability.
    let signer =
        textreuse::minhash::SignerBuilder::for_unit(textreuse::shingle::units::Unit::Document)
            .build()
            .unwrap();
    assert_eq!(signer.scheme(), textreuse::minhash::BandScheme::Oph);
    let jaccard = |i: usize| similarity[i].0 as f64 / similarity[i].1 as f64;
    let mut bins = 0;
    for bin in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9] {
        let members: Vec<usize> = (0..pairs)
            .filter(|&i| jaccard(i) >= bin && jaccard(i) < bin + 0.1)
            .collect();
        if members.len() < 20 {
            continue;
        }
        bins += 1;
        let n = members.len() as f64;
        let expected: f64 = members
            .iter()
            .map(|&i| signer.match_probability(similarity[i].0, similarity[i].1))
            .sum::<f64>()
            / n;
        let observed = members
            .iter()
            .filter(|&&i| found.contains(&format!("c{i}")))
            .count() as f64
            / n;
        let sigma = (expected * (1.0 - expected) / n).sqrt();
        assert!(
            (observed - expected).abs() <= 4.0 * sigma + 0.01,
            "bin {bin}: recall {observed:.3} of {n} pairs, the S-curve says {expected:.3}"
        );
    }
    assert!(bins >= 4, "only {bins} bins had 20 pairs");

    // The copy is the input without exactly the lines duplicates.jsonl names.
    let dropped: HashSet<u64> = duplicates
        .iter()
        .map(|d| d["record"].as_u64().unwrap())
        .collect();
    let expected: String = jsonl
        .lines()
        .enumerate()
        .filter(|(i, _)| !dropped.contains(&(*i as u64 + 1)))
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let written =
        std::fs::read_to_string(textreuse::dedup::rewrite::copy_path(&copy, &input)).unwrap();
    assert_eq!(written, expected);
    let stats: HashMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["unit"], "document");
    assert_eq!(stats["duplicates"].as_u64(), Some(dropped.len() as u64));
}

/// `--threshold` picks K and M with the tuner and records them; explicit -k/-m win.
#[test]
fn threshold_picks_rows_and_bands() {
    let (jsonl, _) = corpus(20);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    std::fs::write(&input, &jsonl).unwrap();
    let run = |extra: &[&str]| -> Value {
        let out = dir.path().join("out");
        let args = [
            &[
                "--quiet",
                "dedup",
                "--unit",
                "document",
                input.to_str().unwrap(),
            ][..],
            extra,
            &["--out", out.to_str().unwrap()],
        ]
        .concat();
        common::ok(&args);
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).unwrap()).unwrap()
    };
    let planned = run(&["--threshold", "0.8"]);
    let target = textreuse::minhash::Target {
        min_set: 20,
        ..textreuse::minhash::Target::new(0.8)
    };
    let best = textreuse::minhash::plan(&target).unwrap();
    assert_eq!(planned["threshold"], 0.8);
    assert_eq!(
        (planned["rows"].as_u64(), planned["bands"].as_u64()),
        (Some(best.rows as u64), Some(best.bands as u64))
    );
    assert_eq!(planned["scheme"], best.scheme.as_str());
    // Without a threshold, documents get the OPH preset.
    let preset = run(&[]);
    assert_eq!(
        (
            &preset["scheme"],
            preset["rows"].as_u64(),
            preset["bands"].as_u64()
        ),
        (&Value::from("oph"), Some(11), Some(13))
    );
    // A scheme limits the plan; --hashes is the budget of disjoint bands.
    let disjoint = run(&[
        "--threshold",
        "0.8",
        "--scheme",
        "disjoint",
        "--hashes",
        "300",
    ]);
    let target = textreuse::minhash::Target {
        schemes: vec![textreuse::minhash::BandScheme::Disjoint],
        hashes: 300,
        max_hashes: 300,
        ..target
    };
    let best = textreuse::minhash::plan(&target).unwrap();
    assert_eq!(
        (disjoint["rows"].as_u64(), disjoint["bands"].as_u64()),
        (Some(best.rows as u64), Some(best.bands as u64))
    );
    assert!(best.rows * best.bands <= 300);
    let explicit = run(&["--threshold", "0.5", "-k", "4", "-m", "6"]);
    assert_eq!(
        (explicit["rows"].as_u64(), explicit["bands"].as_u64()),
        (Some(4), Some(6))
    );
    // --verify drops members below the threshold from the duplicates, and reports the exact
    // Jaccard of each.
    let verified = run(&["--threshold", "0.9", "--verify"]);
    assert_eq!(verified["verified"], true);
    let out = dir.path().join("out");
    for d in common::json_lines(&std::fs::read_to_string(out.join("duplicates.jsonl")).unwrap()) {
        assert!(d["jaccard"].as_f64().unwrap() >= 0.9, "{d}");
    }
    // A usage error: refused while the flags are read.
    let out = common::textreuse(&["dedup", "--threshold", "1.5", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threshold"));
}

#[test]
fn a_deduplicated_copy_inside_out_is_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("docs.jsonl");
    std::fs::write(
        &input,
        "{\"id\":\"a\",\"text\":\"The old mill on the river was built in 1820 and still grinds grain.\"}\n",
    )
    .unwrap();
    let out = dir.path().join("o");
    for copy in [out.join("clean"), out.clone(), out.join("x/../y")] {
        let (_, stderr) = common::status(
            &[
                "dedup",
                "--unit",
                "document",
                input.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--write-deduplicated",
                copy.to_str().unwrap(),
            ],
            1,
        );
        assert!(stderr.contains("is inside --out"), "{stderr}");
        assert!(!out.exists(), "nothing is written");
    }
    // Beside --out is fine.
    let copy = dir.path().join("clean");
    common::status(
        &[
            "dedup",
            "--unit",
            "document",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--write-deduplicated",
            copy.to_str().unwrap(),
        ],
        0,
    );
    // The copy holds the one input document, under the input's path.
    fn texts(dir: &std::path::Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                texts(&path, out);
            } else {
                out.push(std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut copied = Vec::new();
    texts(&copy, &mut copied);
    assert_eq!(copied, vec![std::fs::read_to_string(&input).unwrap()]);
}

#[test]
fn a_damaged_compressed_input_does_not_stop_the_deduplicated_copy() {
    // testdata/damaged: good.jsonl is whole; padded.jsonl.gz has junk after its gzip stream.
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/damaged");
    let dir = tempfile::tempdir().unwrap();
    let good = std::path::Path::new(data).join("good.jsonl");
    let padded = std::path::Path::new(data).join("padded.jsonl.gz");
    let out = dir.path().join("out");
    let copy = dir.path().join("clean");
    let (_, stderr) = common::status(
        &[
            "dedup",
            "--unit",
            "document",
            good.to_str().unwrap(),
            padded.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--write-deduplicated",
            copy.to_str().unwrap(),
        ],
        3,
    );
    assert!(stderr.contains("padded.jsonl.gz"), "{stderr}");
    assert!(
        out.join("stats.json").exists(),
        "the run's outputs are written"
    );
    // Both files are copied; the damaged one with the lines read before its damage.
    let mut copied = Vec::new();
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    walk(&copy, &mut copied);
    let names: Vec<String> = copied
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"good.jsonl".to_string()), "{names:?}");
    let gz_copy = copied
        .iter()
        .find(|p| p.file_name().unwrap() == "padded.jsonl.gz")
        .expect("the damaged input's copy");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(gz_copy).unwrap()),
        &mut text,
    )
    .unwrap();
    let mut expected = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&padded).unwrap()),
        &mut expected,
    )
    .unwrap();
    assert_eq!(expected.lines().count(), 3);
    assert_eq!(text, expected);
}
