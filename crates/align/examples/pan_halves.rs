//! Honest tuning on a PAN text-alignment corpus: aligns every pair with each setting asked for
//! and scores the odd- and even-numbered suspicious documents separately, per obfuscation
//! category, so a setting chosen on one half is reported on the other.
//!
//! ```sh
//! cargo run --release -p textreuse-align --example pan_halves -- ../shared/eval/pan13-train \
//!     default copy_cover=none summary_snap=none copy_cover=0.3,summary_snap=0.5
//! ```
//!
//! Each setting is `default` or comma-separated `name=value` changes to the defaults, where
//! name is one of copy_cover, summary_snap, summary_ratio, summary_max_gap (value `none` turns
//! the step off), cosine_threshold, dice_threshold, validation_threshold,
//! summary_validation_threshold, max_gap, best_ratio, best_passage_ratio, min_passage_len,
//! edge_trim, edge_window, edge_density, min_sentence_words, fallback_ngram, ngram, stopword_ngram,
//! synonyms (`none` off, `1` on).
//! Output: one line per setting, half and category with plagdet, recall, precision and
//! granularity. With `PAN_HALVES_DETECTIONS=DIR` set, each
//! setting's detections are also written to `DIR/SETTING.tsv`, a line per detection: category,
//! suspicious and source file names, suspicious offset and length and source offset and
//! length in characters, then the passage's score.
use std::collections::BTreeMap;
use std::path::Path;

use textreuse_align::pan::{Annotation, CASE_FEATURE, Evaluation, Scores, parse_annotations};
use textreuse_align::{Aligner, AlignerBuilder};

struct PairData {
    category: String,
    odd: bool,
    susp_name: String,
    src_name: String,
    susp: String,
    src: String,
    truth: Vec<Annotation>,
}

fn setting(spec: &str) -> Result<Aligner, String> {
    let mut b = AlignerBuilder::new();
    if spec != "default" {
        for change in spec.split(',') {
            let (name, value) = change
                .split_once('=')
                .ok_or_else(|| format!("{change}: expected name=value"))?;
            let opt = |v: &str| -> Result<Option<f64>, String> {
                if v == "none" {
                    Ok(None)
                } else {
                    v.parse().map(Some).map_err(|e| format!("{change}: {e}"))
                }
            };
            match name {
                "copy_cover" => b.copy_cover(opt(value)?),
                "summary_snap" => b.summary_snap(opt(value)?),
                "summary_ratio" => b.summary_ratio(opt(value)?.unwrap_or(f64::INFINITY)),
                "summary_max_gap" => b.summary_max_gap(opt(value)?.map(|g| g as usize)),
                "cosine_threshold" => b.cosine_threshold(opt(value)?.unwrap_or(0.0)),
                "dice_threshold" => b.dice_threshold(opt(value)?.unwrap_or(0.0)),
                "validation_threshold" => b.validation_threshold(opt(value)?.unwrap_or(0.0)),
                "summary_validation_threshold" => {
                    b.summary_validation_threshold(opt(value)?.unwrap_or(0.0))
                }
                "max_gap" => b.max_gap(opt(value)?.map_or(0, |g| g as usize)),
                "best_ratio" => b.best_ratio(opt(value)?.unwrap_or(0.0)),
                "best_passage_ratio" => b.best_passage_ratio(opt(value)?.unwrap_or(0.0)),
                "min_passage_len" => b.min_passage_len(opt(value)?.map_or(0, |n| n as usize)),
                "min_sentence_words" => b.min_sentence_words(opt(value)?.map_or(0, |n| n as usize)),
                "fallback_ngram" => b.fallback_ngram(opt(value)?.map(|n| n as usize)),
                "ngram" => b.ngram(opt(value)?.map(|n| n as usize)),
                "stopword_ngram" => b.stopword_ngram(opt(value)?.map(|n| n as usize)),
                "synonyms" => b.synonyms(opt(value)?.is_some()),
                "edge_trim" => b.edge_trim(opt(value)?.map(|n| n as usize)),
                "edge_window" => b.edge_window(opt(value)?.map(|n| n as usize)),
                "edge_density" => b.edge_density(opt(value)?.unwrap_or(0.0)),
                _ => return Err(format!("unknown setting {name}")),
            };
        }
    }
    b.build().map_err(|e| e.to_string())
}

fn load(root: &Path) -> std::io::Result<Vec<PairData>> {
    let mut out = Vec::new();
    let mut categories: Vec<_> = std::fs::read_dir(root)?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("pairs").is_file())
        .map(|e| e.path())
        .collect();
    categories.sort();
    for dir in categories {
        let category = dir.file_name().unwrap().to_string_lossy().into_owned();
        for line in std::fs::read_to_string(dir.join("pairs"))?.lines() {
            let Some((susp, src)) = line.split_once(' ') else {
                continue;
            };
            let number: u32 = susp
                .trim_start_matches("suspicious-document")
                .trim_end_matches(".txt")
                .parse()
                .unwrap_or(0);
            let name = format!(
                "{}-{}.xml",
                susp.trim_end_matches(".txt"),
                src.trim_end_matches(".txt")
            );
            let truth = std::fs::read_to_string(dir.join(&name))?;
            out.push(PairData {
                category: category.clone(),
                odd: number % 2 == 1,
                susp_name: susp.to_string(),
                src_name: src.to_string(),
                susp: std::fs::read_to_string(root.join("susp").join(susp))?,
                src: std::fs::read_to_string(root.join("src").join(src))?,
                truth: parse_annotations(&truth, CASE_FEATURE)
                    .map_err(|e| std::io::Error::other(e.to_string()))?,
            });
        }
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let root = args.next().ok_or("usage: pan_halves PAN_DIR SETTING...")?;
    let pairs = load(Path::new(&root))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for spec in args {
        let aligner = setting(&spec)?;
        // (half, category) -> evaluation; "all" for every category together.
        let mut evals: BTreeMap<(&str, String), Evaluation> = BTreeMap::new();
        let chunk = pairs.len().div_ceil(threads);
        let found: Vec<Vec<(Annotation, f64)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = pairs
                .chunks(chunk.max(1))
                .map(|part| {
                    let aligner = &aligner;
                    scope.spawn(move || {
                        part.iter()
                            .map(|p| {
                                aligner
                                    .align(&p.src, &p.susp)
                                    .iter()
                                    .map(|d| {
                                        let (s, t) = d.char_ranges(&p.src, &p.susp);
                                        let a = Annotation {
                                            this_reference: p.susp_name.clone(),
                                            this_offset: t.start,
                                            this_length: t.len(),
                                            source_reference: p.src_name.clone(),
                                            source_offset: s.start,
                                            source_length: s.len(),
                                        };
                                        (a, d.score)
                                    })
                                    .collect()
                            })
                            .collect::<Vec<Vec<(Annotation, f64)>>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("alignment thread"))
                .collect()
        });
        if let Some(dir) = std::env::var_os("PAN_HALVES_DETECTIONS") {
            let mut tsv = String::new();
            for (p, detections) in pairs.iter().zip(&found) {
                for (d, score) in detections {
                    tsv.push_str(&format!(
                        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{score:.4}\n",
                        p.category,
                        p.susp_name,
                        p.src_name,
                        d.this_offset,
                        d.this_length,
                        d.source_offset,
                        d.source_length
                    ));
                }
            }
            std::fs::create_dir_all(&dir)?;
            std::fs::write(Path::new(&dir).join(format!("{spec}.tsv")), tsv)?;
        }
        for (p, detections) in pairs.iter().zip(found) {
            let half = if p.odd { "odd" } else { "even" };
            for key in [(half, p.category.clone()), (half, "all".to_string())] {
                evals
                    .entry(key)
                    .or_default()
                    .add_cases(p.truth.iter().cloned())
                    .add_detections(detections.iter().map(|(d, _)| d.clone()));
            }
        }
        for ((half, category), eval) in &evals {
            let Scores {
                plagdet,
                recall,
                precision,
                granularity,
                detections,
                ..
            } = eval.scores();
            println!(
                "{spec}\t{half}\t{category}\t{plagdet:.5}\t{recall:.5}\t{precision:.5}\t{granularity:.5}\t{detections}"
            );
        }
    }
    Ok(())
}
