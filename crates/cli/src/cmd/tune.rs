//! `textreuse tune`: the S-curve of a MinHash configuration, or the cheapest configuration that
//! meets a target; with `--study CORPUS...`, the tuning study of the seed research's first
//! paper over a corpus (`textreuse_dedup::study`); `--bound-svg` draws its Figure 1.
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use serde::Serialize;
use textreuse_dedup::study::{
    DEFAULT_STUDY_MAX_EDIT, DEFAULT_STUDY_ROWS, DEFAULT_STUDY_SHINGLES, StudyReport, TuningStudy,
};
use textreuse_minhash::{BuildError, Plan, Signer, SignerConfig, Target};
use textreuse_report::{EditBoundPlot, SCurvePlot, StudyPlot};
use textreuse_shuffle::DEFAULT_MAX_BUCKET;

use crate::args::input::{InputArgs, bundled_samples};
use crate::args::signer::{SignerArgs, signer_error};
use crate::args::values::{fraction, open_fraction};
use crate::exit;
use crate::global::Global;
use crate::progress::Bars;

/// Arguments of `textreuse tune`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    signer: SignerArgs,
    /// Plan for this Jaccard threshold: the cheapest scheme (or the --scheme given), K and M that
    /// find --recall of the pairs at or above it and make at most --candidate-rate of the pairs
    /// at or below --below candidates.
    #[arg(long, value_name = "T", value_parser = open_fraction)]
    threshold: Option<f64>,
    /// Sets of this many shingles: the smallest the plan must hold for, and the size of the
    /// `sized` column (OPH's curve depends on it). At most 1048576 (larger sets follow the
    /// `exact` curve).
    #[arg(long, default_value_t = 75, value_name = "N", value_parser = set_size)]
    min_set: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also draw the S-curves (exact, independent-bands approximation, and for OPH the curve
    /// of two --min-set sets) with the threshold marked, as an SVG file; with --study, the
    /// study's false-positive rate and time against the shingle length, one line per K.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Also draw the seed research's Figure 1, the Jaccard similarity of shingle sets against
    /// the normalized edit distance from its exact bounds, as an SVG file.
    #[arg(long, value_name = "FILE")]
    bound_svg: Option<PathBuf>,
    /// Run the tuning study of the seed research's first paper over the CORPUS inputs (those
    /// of `textreuse dedup`; default: the bundled sample dumps): for each shingle length and
    /// K, sign every sentence dedup keeps, take the pairs that share a band key, and count
    /// those within --max-edit (good) and beyond (bad). The other signer flags (--hashes,
    /// --bands, --bits, --seed, --scheme) apply to every setting.
    #[arg(long)]
    study: bool,
    /// With --study: the inputs (files, directories or - for stdin).
    #[arg(value_name = "CORPUS", requires = "study")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    input: InputArgs,
    /// With --study: the shingle lengths, as FIRST-LAST or a comma-separated list.
    #[arg(long, value_name = "LIST", default_value_t = NumberList(DEFAULT_STUDY_SHINGLES.collect()), value_parser = number_list, requires = "study")]
    study_shingles: NumberList,
    /// With --study: the rows K per band, as FIRST-LAST or a comma-separated list.
    #[arg(long, value_name = "LIST", default_value_t = NumberList(DEFAULT_STUDY_ROWS.to_vec()), value_parser = number_list, requires = "study")]
    study_rows: NumberList,
    /// With --study: a pair is good when its normalized edit distance (Levenshtein distance of
    /// the normalized texts over the longer length) is at most this.
    #[arg(long, value_name = "D", default_value_t = DEFAULT_STUDY_MAX_EDIT, value_parser = fraction, requires = "study")]
    max_edit: f64,
    /// With --study: a bucket larger than this gives only the pairs of its first N sentences
    /// (as `dedup --max-edit` does); what is left out is counted per setting.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_BUCKET, requires = "study")]
    max_bucket: usize,
}

/// A list of numbers (`5-15` or `8,9,10`), kept as parsed.
#[derive(Debug, Clone)]
struct NumberList(Vec<usize>);

impl std::fmt::Display for NumberList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A run of three or more consecutive numbers as FIRST-LAST, as it is written.
        match self.0.as_slice() {
            [a, .., b] if self.0.len() > 2 && self.0.windows(2).all(|w| w[1] == w[0] + 1) => {
                write!(f, "{a}-{b}")
            }
            list => {
                let parts: Vec<String> = list.iter().map(|n| n.to_string()).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

/// Parses `FIRST-LAST` or `A,B,C` (at most 64 numbers, each at least 1).
fn number_list(text: &str) -> Result<NumberList, String> {
    let parse = |t: &str| -> Result<usize, String> {
        match t.trim().parse::<usize>() {
            Ok(0) => Err("each number must be at least 1".into()),
            Ok(n) => Ok(n),
            Err(e) => Err(format!("{t:?}: {e}")),
        }
    };
    let list: Vec<usize> = match text.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (parse(a)?, parse(b)?);
            if a > b {
                return Err(format!("{a}-{b} is empty (write the smaller number first)"));
            }
            (a..=b).collect()
        }
        None => text.split(',').map(parse).collect::<Result<_, _>>()?,
    };
    if list.len() > 64 {
        return Err(format!("{} numbers: at most 64", list.len()));
    }
    Ok(NumberList(list))
}

#[derive(Serialize)]
struct Params {
    hashes: usize,
    bits: u32,
    rows: usize,
    bands: usize,
    seed: u64,
    scheme: String,
}

#[derive(Serialize)]
struct Point {
    s: f64,
    /// The exact curve (for OPH: of large sets).
    exact: f64,
    independent: f64,
    /// The exact curve for two sets of `min_set` shingles (the closest similarity at or below
    /// `s` that such sets can have).
    sized: f64,
}

#[derive(Serialize)]
struct Choice {
    scheme: String,
    hashes: usize,
    rows: usize,
    bands: usize,
    recall: f64,
    candidate_rate: f64,
    cost_ns: f64,
}

#[derive(Serialize)]
struct Planned {
    threshold: f64,
    recall: f64,
    below: f64,
    candidate_rate: f64,
    min_set: usize,
    /// The cheapest configuration of each scheme that meets the target.
    schemes: Vec<Choice>,
    /// The schemes none of whose configurations meets it.
    unreachable: Vec<String>,
}

#[derive(Serialize)]
struct Output {
    params: Params,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<Planned>,
    min_set: usize,
    curve: Vec<Point>,
}

/// Runs `textreuse tune`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    if let Some(path) = &args.bound_svg {
        let svg = EditBoundPlot::new().max_edit(Some(args.max_edit)).svg()?;
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
        global.log(format_args!(
            "Jaccard-vs-edit-distance bounds drawn in {}",
            path.display()
        ));
    }
    if args.study {
        return study(args, global);
    }
    let (signer, plan) = match args.threshold {
        Some(t) if !args.signer.explicit_bands() => {
            let target = args.signer.target(t, args.min_set);
            global.log(format_args!(
                "planning for recall {} at J >= {t}, candidate rate {} at J <= {:.3}, sets of {} \
                 shingles and more",
                target.recall, target.candidate_rate, target.below, target.min_set
            ));
            let (best, schemes, unreachable) = per_scheme(&target)?;
            // The plan over all schemes is the cheapest of the per-scheme plans.
            let best = best
                .ok_or(BuildError::Unreachable {
                    threshold: target.threshold,
                    recall: target.recall,
                    below: target.below,
                    candidate_rate: target.candidate_rate,
                })
                .map_err(signer_error)?;
            let planned = Planned {
                threshold: t,
                recall: target.recall,
                below: target.below,
                candidate_rate: target.candidate_rate,
                min_set: target.min_set,
                schemes,
                unreachable,
            };
            let signer = best.builder().build().map_err(signer_error)?;
            (signer, Some(planned))
        }
        _ => (
            args.signer
                .build(textreuse_shingle::units::Unit::Sentence)?,
            None,
        ),
    };
    if let Some(path) = &args.svg {
        let mut plot = SCurvePlot::new(&signer).min_set(args.min_set);
        if let Some(p) = &plan {
            plot = plot.threshold(p.threshold).below(p.below);
        } else if let Some(t) = args.threshold {
            plot = plot.threshold(t);
        }
        std::fs::write(path, plot.svg()?).with_context(|| format!("writing {}", path.display()))?;
        global.log(format_args!("S-curves drawn in {}", path.display()));
    }
    let output = Output {
        params: params(&signer),
        plan,
        min_set: args.min_set,
        curve: curve(&signer, args.min_set),
    };
    let mut out = exit::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &output)?;
        writeln!(out)?;
    } else {
        write_table(&mut out, &output)?;
    }
    out.flush()?;
    Ok(())
}

/// `tune --study`: builds the study from the flags, runs it, prints the table or JSON and
/// draws the plot.
fn study(args: &Args, global: &Global) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.signer.rows.is_none(),
        "--rows does not apply to --study: give the rows to study with --study-rows"
    );
    anyhow::ensure!(
        args.threshold.is_none(),
        "--threshold does not apply to --study"
    );
    let o = args.signer.options();
    let mut config = match o.scheme {
        Some(scheme) => SignerConfig::preset(scheme),
        None => SignerConfig::weissman(),
    };
    config.hashes = o.hashes.or(config.hashes);
    config.bands = o.bands.unwrap_or(config.bands);
    config.bits = o.bits;
    config.seed = o.seed;
    let study = TuningStudy::builder()
        .shingles(args.study_shingles.0.iter().copied())
        .rows(args.study_rows.0.iter().copied())
        .signer(config)
        .max_edit(args.max_edit)
        .max_bucket(args.max_bucket)
        .build()?;
    let files = if args.files.is_empty() {
        bundled_samples()
    } else {
        args.files.clone()
    };
    global.log(format_args!(
        "tuning study: {} settings (shingle lengths {}, K {})",
        study.settings().len(),
        args.study_shingles,
        args.study_rows
    ));
    let report = study.run(
        args.input.inputs(&files, rayon::current_num_threads())?,
        &Bars::labelled(global, "tuning study"),
    )?;
    if let Some(path) = &args.svg {
        let svg = StudyPlot::new(&report.rows).svg()?;
        std::fs::write(path, svg).with_context(|| format!("writing {}", path.display()))?;
        global.log(format_args!("study plot drawn in {}", path.display()));
    }
    let mut out = exit::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_study_table(&mut out, &report)?;
    }
    out.flush()?;
    exit::skipped(report.input_problems)
}

/// The study as a table: one line per setting.
fn write_study_table(out: &mut impl Write, r: &StudyReport) -> std::io::Result<()> {
    let first = r.rows.first();
    writeln!(
        out,
        "{} documents, {} sentences, {} kept ({}..={} shingles of {} chars); {} scheme, N = {}, \
         M = {}, {} bits, seed {}; good: normalized edit distance <= {}; buckets capped at {}",
        r.documents,
        r.sentences,
        r.kept,
        r.min_shingles,
        r.max_shingles,
        r.filter_shingle,
        r.scheme,
        first.map_or(0, |f| f.hashes),
        first.map_or(0, |f| f.bands),
        r.bits,
        r.seed,
        r.max_edit,
        r.max_bucket
    )?;
    writeln!(
        out,
        "{:>3}  {:>3}  {:>11}  {:>10}  {:>10}  {:>8}  {:>9}",
        "L", "K", "candidates", "good", "bad", "FP rate", "seconds"
    )?;
    for row in &r.rows {
        writeln!(
            out,
            "{:>3}  {:>3}  {:>11}  {:>10}  {:>10}  {:>8.4}  {:>9.3}",
            row.shingle,
            row.rows,
            row.candidates,
            row.good,
            row.bad,
            row.false_positive_rate,
            row.seconds
        )?;
    }
    let capped: u64 = r.rows.iter().map(|row| row.buckets_capped).sum();
    if capped > 0 {
        let left: u64 = r.rows.iter().map(|row| row.bucket_ids_left_out).sum();
        writeln!(
            out,
            "{capped} buckets over all settings had more than {} sentences: {left} sentences in \
             them gave no pairs (raise --max-bucket)",
            r.max_bucket
        )?;
    }
    Ok(())
}

/// `--min-set`: at most [`textreuse_minhash::MAX_SET_SIZE`], the largest set whose OPH curve
/// is computed.
fn set_size(text: &str) -> Result<usize, String> {
    let max = textreuse_minhash::MAX_SET_SIZE;
    match text.parse::<usize>() {
        Ok(n) if n > max => Err(format!(
            "must be at most {max}: the oph curve of larger sets is not computed (they follow \
             the exact curve)"
        )),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// What [`per_scheme`] finds.
type PerScheme = (Option<Plan>, Vec<Choice>, Vec<String>);

/// The cheapest configuration of each scheme of the target (cheapest first), the schemes that
/// have none, and the cheapest of all; an error when the target itself is invalid.
fn per_scheme(target: &Target) -> anyhow::Result<PerScheme> {
    let (mut plans, mut unreachable) = (Vec::new(), Vec::new());
    for &scheme in &target.schemes {
        let one = Target {
            schemes: vec![scheme],
            ..target.clone()
        };
        match textreuse_minhash::plan(&one) {
            Ok(p) => plans.push(p),
            Err(BuildError::Unreachable { .. }) => unreachable.push(scheme.to_string()),
            Err(e) => return Err(signer_error(e)),
        }
    }
    // Stable: among equal costs the scheme listed first wins, as in one plan over all.
    plans.sort_by(|a, b| a.cost_ns.total_cmp(&b.cost_ns));
    let met = plans
        .iter()
        .map(|p| Choice {
            scheme: p.scheme.to_string(),
            hashes: p.hashes,
            rows: p.rows,
            bands: p.bands,
            recall: p.recall,
            candidate_rate: p.candidate_rate,
            cost_ns: p.cost_ns,
        })
        .collect();
    Ok((plans.into_iter().next(), met, unreachable))
}

fn params(signer: &Signer) -> Params {
    Params {
        hashes: signer.hashes(),
        bits: signer.bits(),
        rows: signer.rows(),
        bands: signer.bands(),
        seed: signer.seed(),
        scheme: signer.scheme().to_string(),
    }
}

/// The curve at s = 0.05, 0.10, ..., 1.00 (computed as i/20 so the values print exactly).
fn curve(signer: &Signer, min_set: usize) -> Vec<Point> {
    (1..=20)
        .map(|i| {
            let s = i as f64 / 20.0;
            // The most similar pair of min_set-shingle sets at or below s.
            let (shared, union) = textreuse_minhash::sized_pair(min_set, s, false);
            Point {
                s,
                exact: signer.exact_match_probability(s),
                independent: signer.independent_approximation(s),
                sized: signer.match_probability(shared, union),
            }
        })
        .collect()
}

fn write_table(out: &mut impl Write, o: &Output) -> std::io::Result<()> {
    let p = &o.params;
    if let Some(plan) = &o.plan {
        writeln!(
            out,
            "cheapest configuration with recall >= {} at J >= {} and candidate rate <= {} at \
             J <= {:.3} (sets of {} shingles and more):",
            plan.recall, plan.threshold, plan.candidate_rate, plan.below, plan.min_set
        )?;
        writeln!(
            out,
            "{:>9}  {:>5}  {:>3}  {:>3}  {:>8}  {:>8}  {:>10}",
            "scheme", "N", "K", "M", "recall", "cand.", "ns/150sh"
        )?;
        for c in &plan.schemes {
            writeln!(
                out,
                "{:>9}  {:>5}  {:>3}  {:>3}  {:>8.5}  {:>8.5}  {:>10.0}",
                c.scheme, c.hashes, c.rows, c.bands, c.recall, c.candidate_rate, c.cost_ns
            )?;
        }
        for scheme in &plan.unreachable {
            writeln!(out, "{scheme:>9}  (no configuration meets the target)")?;
        }
    }
    writeln!(
        out,
        "N = {} hashes of {} bits, K = {} rows, M = {} bands, seed {}, {} scheme",
        p.hashes, p.bits, p.rows, p.bands, p.seed, p.scheme
    )?;
    writeln!(
        out,
        "{:>6}  {:>10}  {:>12}  {:>12}",
        "s",
        "exact",
        "independent",
        format!("sized({})", o.min_set)
    )?;
    for point in &o.curve {
        writeln!(
            out,
            "{:>6.2}  {:>10.6}  {:>12.6}  {:>12.6}",
            point.s, point.exact, point.independent, point.sized
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_lists_parse_ranges_and_lists() {
        assert_eq!(number_list("5-15").unwrap().0, (5..=15).collect::<Vec<_>>());
        assert_eq!(number_list("8,9,10").unwrap().0, [8, 9, 10]);
        assert_eq!(number_list("12").unwrap().0, [12]);
        assert!(number_list("0,1").is_err());
        assert!(number_list("9-5").is_err());
        assert!(number_list("1-100").is_err());
        assert!(number_list("a").is_err());
        assert_eq!(number_list("5-15").unwrap().to_string(), "5-15");
        assert_eq!(number_list("8,9").unwrap().to_string(), "8,9");
    }
}
