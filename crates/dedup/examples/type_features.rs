//! The features the cluster-type model reads (`classify::learned::features`), for each cluster
//! of a `clusters.jsonl`: the input of `studies/types/fit.py`.
//!
//! ```sh
//! cargo run --release -p textreuse-dedup --example type_features < RUN/clusters.jsonl > features.jsonl
//! ```
//!
//! Each output line is `{"cluster", "features", "rule_type", "probabilities"}`: the rules' type
//! (`type` of a file written before the model typed clusters) and the six types' probabilities
//! by the model of this build.
use std::io::{BufRead, Write};

use serde::Deserialize;
use serde_json::json;
use textreuse_dedup::classify::{ClusterType, Difference, Evidence, Member, Rule, learned};

#[derive(Deserialize)]
struct Line {
    cluster: u64,
    rule: Rule,
    /// Files written before the model: the rules' type is `type`.
    #[serde(default)]
    rule_type: Option<ClusterType>,
    #[serde(rename = "type")]
    kind: ClusterType,
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
            rule_type: c.rule_type.unwrap_or(c.kind),
            groups,
            differences: c.differences.unwrap_or_default(),
        };
        let members: Vec<Member<'_>> = c
            .members
            .iter()
            .map(|m| Member {
                // The features read titles and texts only.
                doc: 0,
                position: 0,
                title: &m.title,
                text: &m.text,
                categories: &[],
            })
            .collect();
        let f = learned::features(&evidence, &members);
        let p = learned::probabilities(&f);
        let line = json!({
            "cluster": c.cluster,
            "features": f.to_vec(),
            "rule_type": evidence.rule_type.as_str(),
            "probabilities": p.to_vec(),
        });
        writeln!(out, "{line}")?;
    }
    Ok(())
}
