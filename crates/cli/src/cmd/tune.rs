//! `textreuse tune`: the S-curve of a MinHash configuration, or the cheapest configuration that
//! meets a target.
use std::io::Write;

use anyhow::Context;
use serde::Serialize;
use textreuse_minhash::{BuildError, Plan, Signer, Target};
use textreuse_report::SCurvePlot;

use crate::args::signer::{SignerArgs, signer_error};
use crate::args::values::open_fraction;
use crate::exit;
use crate::global::Global;

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
    /// of two --min-set sets) with the threshold marked, as an SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<std::path::PathBuf>,
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
