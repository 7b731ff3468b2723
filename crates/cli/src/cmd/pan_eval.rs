//! `textreuse pan-eval`: the PAN text-alignment measures of a detection directory against a truth
//! directory.
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use textreuse_align::pan::{self, Evaluation};

use crate::exit;
use crate::global::Global;

/// Score PAN detections (precision, recall, granularity, plagdet), or the candidate pairs of a
/// `reuse` run (candidate recall per category).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory of PAN truth XML files (searched recursively, so a corpus root with one
    /// sub-directory per category works). Each file is one document pair; a directory without
    /// any is an error.
    #[arg(long, value_name = "DIR")]
    pub truth: PathBuf,
    /// Directory of PAN detection XML files (searched recursively).
    #[arg(long, value_name = "DIR", required_unless_present = "candidates")]
    pub detections: Option<PathBuf>,
    /// Instead of detections, a `textreuse reuse --out` directory: the share of truth pairs
    /// among its candidate pairs (pairs.tsv; titles are the file stems for PAN's .txt files),
    /// per truth sub-directory (PAN's obfuscation categories), and candidates per document.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["detections", "all_detections"])]
    pub candidates: Option<PathBuf>,
    /// Also count detection files whose name matches no truth file (by default they are
    /// ignored, so a whole-corpus detection directory can be scored one category at a time).
    #[arg(long)]
    pub all_detections: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let truth_files = xml_files(&args.truth)?;
    // Nothing to score against would make every measure vacuous (plagdet 1 with no cases).
    anyhow::ensure!(
        !truth_files.is_empty(),
        "--truth {}: no truth files (*.xml) in it or below; give the directory of a PAN corpus \
         (or one of its category sub-directories)",
        args.truth.display()
    );
    let detections = match (&args.candidates, &args.detections) {
        (Some(dir), _) => return candidate_recall(args, dir, &truth_files),
        (None, Some(dir)) => dir,
        (None, None) => anyhow::bail!("give --detections DIR or --candidates DIR"),
    };
    let mut names = BTreeSet::new();
    let mut eval = Evaluation::new();
    for path in &truth_files {
        let xml =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let cases = pan::parse_annotations(&xml, pan::CASE_FEATURE)
            .with_context(|| format!("parsing {}", path.display()))?;
        eval.add_cases(cases);
        names.insert(file_name(path));
    }
    let mut used = 0usize;
    let mut ignored = 0usize;
    for path in xml_files(detections)? {
        if !args.all_detections && !names.contains(&file_name(&path)) {
            ignored += 1;
            continue;
        }
        used += 1;
        let xml =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let dets = pan::parse_annotations(&xml, pan::DETECTION_FEATURE)
            .with_context(|| format!("parsing {}", path.display()))?;
        eval.add_detections(dets);
    }
    global.log(format_args!(
        "{} truth files, {used} detection files scored, {ignored} without a truth file ignored",
        truth_files.len()
    ));
    let s = eval.scores();
    let mut out = exit::stdout();
    if args.json {
        let value = serde_json::json!({
            "plagdet": s.plagdet,
            "recall": s.recall,
            "precision": s.precision,
            "granularity": s.granularity,
            "cases": s.cases,
            "detections": s.detections,
            "detected_cases": s.detected_cases,
            "truth_files": truth_files.len(),
            "detection_files": used,
        });
        writeln!(out, "{value}")?;
    } else {
        writeln!(out, "plagdet     {:.5}", s.plagdet)?;
        writeln!(out, "recall      {:.5}", s.recall)?;
        writeln!(out, "precision   {:.5}", s.precision)?;
        writeln!(out, "granularity {:.5}", s.granularity)?;
        writeln!(
            out,
            "cases {}  detections {}  detected cases {}",
            s.cases, s.detections, s.detected_cases
        )?;
    }
    out.flush()?;
    Ok(())
}

/// `--candidates`: candidate recall per truth category.
fn candidate_recall(args: &Args, dir: &Path, truth_files: &[PathBuf]) -> anyhow::Result<()> {
    let pairs_path = dir.join("pairs.tsv");
    let pairs = fs::read_to_string(&pairs_path).with_context(|| {
        format!(
            "reading {} (run `textreuse reuse --out DIR` first)",
            pairs_path.display()
        )
    })?;
    let mut candidates = HashSet::new();
    for (i, line) in pairs.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        anyhow::ensure!(
            fields.len() >= 4,
            "{} line {}: expected the columns of `reuse`'s pairs.tsv",
            pairs_path.display(),
            i + 1
        );
        candidates.insert(format!("{}-{}.xml", fields[1], fields[3]));
    }
    let stats_path = dir.join("stats.json");
    let stats: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(&stats_path)
            .with_context(|| format!("reading {}", stats_path.display()))?,
    )
    .with_context(|| format!("parsing {}", stats_path.display()))?;
    let documents = stats["documents"].as_u64().unwrap_or(0);
    // Per category (the truth file's directory below --truth): (truth pairs, found).
    let mut per: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for path in truth_files {
        let category = path
            .parent()
            .and_then(|p| p.strip_prefix(&args.truth).ok())
            .map(|p| p.display().to_string())
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| ".".into());
        let e = per.entry(category).or_default();
        e.0 += 1;
        e.1 += u64::from(candidates.contains(&file_name(path)));
    }
    let per_doc = candidates.len() as f64 / documents.max(1) as f64;
    let mut out = exit::stdout();
    if args.json {
        let categories: serde_json::Map<String, serde_json::Value> = per
            .iter()
            .map(|(c, &(n, found))| {
                let recall = found as f64 / n as f64;
                (
                    c.clone(),
                    serde_json::json!({"truth_pairs": n, "found": found, "recall": recall}),
                )
            })
            .collect();
        let value = serde_json::json!({
            "categories": categories,
            "candidate_pairs": candidates.len(),
            "documents": documents,
            "candidates_per_document": per_doc,
        });
        writeln!(out, "{value}")?;
    } else {
        let width = per.keys().map(String::len).max().unwrap_or(0).max(8);
        writeln!(out, "{:width$}  truth pairs  found  recall", "category")?;
        for (c, &(n, found)) in &per {
            writeln!(
                out,
                "{c:width$}  {n:>11}  {found:>5}  {:.3}",
                found as f64 / n as f64
            )?;
        }
        writeln!(
            out,
            "{} candidate pairs, {documents} documents, {per_doc:.1} per document",
            candidates.len()
        )?;
    }
    out.flush()?;
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// All `*.xml` files under `dir`, recursively, sorted (so results do not depend on the order the
/// file system lists them in).
fn xml_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).with_context(|| format!("listing {}", d.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "xml") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}
