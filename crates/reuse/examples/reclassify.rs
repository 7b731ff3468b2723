//! Classifies the cases of a `reuse.jsonl` again by the current rules, without aligning again:
//! the tuning loop of the reuse-class study (`studies/reuse`), about a second for a run of the
//! study where `textreuse reuse` takes minutes.
//!
//! ```sh
//! textreuse reuse ... --passage-texts --out RUN
//! cargo run --release -p textreuse-reuse --example reclassify < RUN/reuse.jsonl > again.jsonl
//! python3 studies/reuse/evaluate.py again.jsonl --split dev
//! ```
//!
//! An argument names the classifier (`rules`, `learned`, `thesis` for H1/H2, or `default`, the
//! default).
//!
//! Reads the run's passage texts (`--passage-texts`) and titles; each document's length is
//! recovered from the passage's length and its share, which gives the run's kinds exactly on
//! the study's runs. Each line is written back with `kind` replaced and a `profile` object of
//! the measures the rules read (containment, shared 4-grams, figure shares, frame words, what
//! the titles say) and `features`, the measures `learned` reads
//! (`ReuseProfile::features`, which `studies/reuse/fit.py` fits the model to).
use std::io::{BufRead, Write};

use serde_json::{Value, json};
use textreuse_reuse::Classifier;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let classifier: Classifier = match std::env::args().nth(1) {
        Some(name) => name.parse()?,
        None => Classifier::default(),
    };
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (i, line) in stdin.lock().lines().enumerate() {
        let mut case: Value = serde_json::from_str(&line?)?;
        let text = |side: &str| -> Result<String, String> {
            case[format!("{side}_text")]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("line {}: no {side}_text (run with --passage-texts)", i + 1))
        };
        let (source, suspicious) = (text("source")?, text("suspicious")?);
        let document_len = |passage: &str, side: &str| {
            let share = case[format!("{side}_share")].as_f64().unwrap_or(1.0);
            if share > 0.0 {
                (passage.len() as f64 / share).round() as usize
            } else {
                passage.len()
            }
        };
        let title = |side: &str| case[side]["title"].as_str().unwrap_or("").to_owned();
        let (source_title, suspicious_title) = (title("source"), title("suspicious"));
        let p = classifier.profile_titled(
            &source,
            &suspicious,
            document_len(&source, "source"),
            document_len(&suspicious, "suspicious"),
            Some((&source_title, &suspicious_title)),
        );
        case["kind"] = json!(p.kind.as_str());
        case["features"] = json!(p.features().to_vec());
        case["profile"] = json!({
            "containment": p.containment,
            "shared_4grams": p.shared_4grams,
            "figure_share": [p.figure_share.0, p.figure_share.1],
            "frame_2grams": p.frame_2grams,
            "words": [p.words.0, p.words.1],
            "topics": p.topics.map(|t| json!({
                "same_subject": t.same_subject,
                "subject_within": t.subject_within,
                "aspects": t.aspects,
                "siblings": t.siblings,
                "framed": t.framed,
                "related": t.related(),
            })),
        });
        writeln!(out, "{case}")?;
    }
    Ok(())
}
