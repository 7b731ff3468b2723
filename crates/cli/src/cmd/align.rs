//! `textreuse align`: reused passages between a source and a suspicious document, or a PAN-format
//! batch over a pairs file.
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use rayon::prelude::*;
use textreuse_align::{Aligner, pan};

use crate::args::align::{AlignerArgs, LangArgs};
use crate::exit;
use crate::global::Global;

/// Find reused passages (PAN text alignment) between two documents or a batch of pairs.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The source document (single-pair mode).
    #[arg(value_name = "SOURCE", required_unless_present = "pairs")]
    pub source: Option<PathBuf>,
    /// The suspicious document (single-pair mode).
    #[arg(value_name = "SUSPICIOUS", required_unless_present = "pairs")]
    pub suspicious: Option<PathBuf>,
    /// Batch mode: a file of lines "suspicious-file source-file" (PAN `pairs`).
    #[arg(long, value_name = "PAIRS", requires_all = ["src", "susp", "out"], conflicts_with_all = ["source", "suspicious"])]
    pub pairs: Option<PathBuf>,
    /// Batch mode: directory of the source documents.
    #[arg(long, value_name = "DIR")]
    pub src: Option<PathBuf>,
    /// Batch mode: directory of the suspicious documents.
    #[arg(long, value_name = "DIR")]
    pub susp: Option<PathBuf>,
    /// Batch mode: output directory for `<susp-stem>-<src-stem>.xml` PAN detection files (a
    /// pairs file in which two pairs would get the same name is refused; a pair listed twice
    /// is aligned once).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Passages shorter than this many bytes on either side are dropped.
    #[arg(long, value_name = "N", default_value_t = textreuse_align::DEFAULT_MIN_PASSAGE_LEN)]
    pub min_length: usize,
    #[command(flatten)]
    pub aligner: AlignerArgs,
    #[command(flatten)]
    pub lang: LangArgs,
}

/// Runs the subcommand.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let aligner = args
        .lang
        .apply(
            args.aligner
                .apply(Aligner::builder().min_passage_len(args.min_length)),
        )
        .build()?;
    match (&args.pairs, &args.source, &args.suspicious) {
        (Some(pairs), _, _) => batch(args, pairs, &aligner, global),
        (None, Some(src), Some(susp)) => single(src, susp, &aligner),
        _ => bail!("give SOURCE and SUSPICIOUS, or --pairs with --src, --susp and --out"),
    }
}

fn read(path: &Path) -> anyhow::Result<String> {
    fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn single(src: &Path, susp: &Path, aligner: &Aligner) -> anyhow::Result<()> {
    let (source, suspicious) = (read(src)?, read(susp)?);
    let passages = aligner.align(&source, &suspicious);
    let mut out = exit::stdout();
    for p in &passages {
        let (s, t) = p.char_ranges(&source, &suspicious);
        let value = serde_json::json!({
            "source_offset": s.start,
            "source_length": s.len(),
            "suspicious_offset": t.start,
            "suspicious_length": t.len(),
            "score": p.score,
            "source_text": &source[p.source.clone()],
            "suspicious_text": &suspicious[p.suspicious.clone()],
        });
        writeln!(out, "{value}")?;
    }
    out.flush()?;
    Ok(())
}

fn stem(name: &str) -> &str {
    name.strip_suffix(".txt").unwrap_or(name)
}

/// The PAN name of a pair's detection file, `<susp-stem>-<src-stem>.xml`
/// (`suspicious-document00004-source-document00420.xml`), which `pan-eval` matches with the
/// truth file of the same name. Two pairs can share one (`a-b` with `c`, `a` with `b-c`): the
/// batch refuses such a pairs file before aligning anything.
fn output_name(susp: &str, src: &str) -> String {
    format!("{}-{}.xml", stem(susp), stem(src))
}

fn batch(args: &Args, pairs: &Path, aligner: &Aligner, global: &Global) -> anyhow::Result<()> {
    let (Some(src_dir), Some(susp_dir), Some(out_dir)) = (&args.src, &args.susp, &args.out) else {
        bail!("--pairs needs --src, --susp and --out");
    };
    let list = read(pairs)?;
    let mut jobs = Vec::new();
    // Output file name -> (line, suspicious, source) of the pair written there.
    let mut names: HashMap<String, (usize, &str, &str)> = HashMap::new();
    for (n, line) in list.lines().enumerate() {
        let mut parts = line.split_whitespace();
        let (susp, src) = match (parts.next(), parts.next(), parts.next()) {
            (None, _, _) => continue,
            (Some(susp), Some(src), None) => (susp, src),
            _ => bail!(
                "{}:{}: expected \"suspicious source\"",
                pairs.display(),
                n + 1
            ),
        };
        let name = output_name(susp, src);
        // Checked before any work: every pair gets its own file directly in --out.
        if name.contains(['/', '\\']) {
            bail!(
                "{}:{}: the output file {name} would not be directly in --out: name the files \
                 of the pairs without directories (--src and --susp give the directories)",
                pairs.display(),
                n + 1
            );
        }
        match names.entry(name) {
            Entry::Occupied(e) => {
                let &(first, first_susp, first_src) = e.get();
                if (first_susp, first_src) == (susp, src) {
                    // The same pair again: aligned once.
                    continue;
                }
                bail!(
                    "{}:{}: \"{susp} {src}\" and line {first} \"{first_susp} {first_src}\" \
                     would both be written to {}: their names joined by '-' are the same; \
                     rename one of the files",
                    pairs.display(),
                    n + 1,
                    e.key()
                );
            }
            Entry::Vacant(e) => {
                let name = e.key().clone();
                e.insert((n + 1, susp, src));
                jobs.push((susp.to_string(), src.to_string(), name));
            }
        }
    }
    fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let start = Instant::now();
    let found = AtomicUsize::new(0);
    jobs.par_iter()
        .try_for_each(|(susp, src, name)| -> anyhow::Result<()> {
            let suspicious = read(&susp_dir.join(susp))?;
            let source = read(&src_dir.join(src))?;
            let detections: Vec<_> = aligner
                .align(&source, &suspicious)
                .iter()
                .map(|p| {
                    let (s, t) = p.char_ranges(&source, &suspicious);
                    (t, s)
                })
                .collect();
            found.fetch_add(detections.len(), Ordering::Relaxed);
            let path = out_dir.join(name);
            let file =
                fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
            let mut w = BufWriter::new(file);
            pan::write_detections(&mut w, susp, src, &detections)?;
            w.flush()?;
            Ok(())
        })?;
    global.log(format_args!(
        "{} pairs aligned, {} passages, in {:.2} s",
        jobs.len(),
        found.load(Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    ));
    Ok(())
}
