//! The features the contradictions' confidence reads (`drift::features`), for each cluster of a
//! `clusters.jsonl`: the input of `studies/types/fit.py`.
//!
//! ```sh
//! cargo run --release -p textreuse-dedup --example drift_features < RUN/clusters.jsonl > features.jsonl
//! ```
//!
//! Each output line is `{"cluster", "features", "probability"}`.
use std::io::{BufRead, Write};

use serde::Deserialize;
use serde_json::json;
use textreuse_dedup::classify::{Difference, Evidence, Rule};
use textreuse_dedup::contradictions::drift;

#[derive(Deserialize)]
struct Line {
    cluster: u64,
    rule: Rule,
    #[serde(default)]
    groups: Option<Vec<Vec<usize>>>,
    #[serde(default)]
    differences: Option<Vec<Difference>>,
    members: Vec<MemberLine>,
}

#[derive(Deserialize)]
struct MemberLine {
    title: String,
    text: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let c: Line = serde_json::from_str(&line?)?;
        // `clusters.jsonl` leaves out the one group of a cluster of equal texts.
        let groups = c
            .groups
            .unwrap_or_else(|| vec![(0..c.members.len()).collect()]);
        let evidence = Evidence {
            rule: c.rule,
            groups,
            differences: c.differences.unwrap_or_default(),
        };
        let members: Vec<(&str, &str)> = c
            .members
            .iter()
            .map(|m| (m.title.as_str(), m.text.as_str()))
            .collect();
        let f = drift::features(&evidence, &members);
        let p = drift::probability(&f);
        let line = json!({"cluster": c.cluster, "features": f.to_vec(), "probability": p});
        writeln!(out, "{line}")?;
    }
    Ok(())
}
