//! `textreuse pan-eval`: the PAN text-alignment measures of a detection directory against a truth
//! directory.
use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use textreuse_align::pan::{self, Evaluation};

use crate::util::{self, Global};

/// Score PAN detections (precision, recall, granularity, plagdet).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directory of PAN truth XML files (searched recursively, so a corpus root with one
    /// sub-directory per category works). Each file is one document pair.
    #[arg(long, value_name = "DIR")]
    pub truth: PathBuf,
    /// Directory of PAN detection XML files (searched recursively).
    #[arg(long, value_name = "DIR")]
    pub detections: PathBuf,
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
    for path in xml_files(&args.detections)? {
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
    let mut out = util::stdout();
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
