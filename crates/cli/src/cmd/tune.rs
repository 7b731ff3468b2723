//! `textreuse tune`: the S-curve of a MinHash configuration, or a recommended (K, M).
use std::io::Write;

use anyhow::Context;
use serde::Serialize;
use textreuse_minhash::{BandScheme, Signer, SignerBuilder, TuneOptions};

use crate::util::{self, Global};

/// Arguments of `textreuse tune`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Number of hash functions N (for `--scheme disjoint`: defaults to K*M).
    #[arg(long, value_name = "N")]
    hashes: Option<usize>,
    /// Output bits of each hash function.
    #[arg(long, default_value_t = textreuse_minhash::DEFAULT_BITS)]
    bits: u32,
    /// Rows K: minhashes per band.
    #[arg(long, short = 'k', default_value_t = textreuse_minhash::DEFAULT_ROWS)]
    rows: usize,
    /// Bands M: band keys per item.
    #[arg(long, short = 'm', default_value_t = textreuse_minhash::DEFAULT_BANDS)]
    bands: usize,
    /// Seed of the hash functions and of the drawn band subsets.
    #[arg(long, default_value_t = textreuse_minhash::DEFAULT_SEED)]
    seed: u64,
    /// How bands are formed: `drawn` (K-subsets of N drawn from the seed) or `disjoint`.
    #[arg(long, value_enum, default_value_t = Scheme::Drawn)]
    scheme: Scheme,
    /// Recommend (K, M) for this Jaccard threshold instead of using --rows/--bands.
    #[arg(long, value_name = "T")]
    threshold: Option<f64>,
    /// Weight of false positives (area under the curve below the threshold) when recommending.
    #[arg(long, default_value_t = 0.5, requires = "threshold")]
    false_positive_weight: f64,
    /// Weight of false negatives (area above the curve beyond the threshold) when recommending.
    #[arg(long, default_value_t = 0.5, requires = "threshold")]
    false_negative_weight: f64,
    /// Largest M the recommendation considers for the drawn scheme.
    #[arg(long, default_value_t = 16, requires = "threshold")]
    max_bands: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Scheme {
    Drawn,
    Disjoint,
}

impl From<Scheme> for BandScheme {
    fn from(s: Scheme) -> BandScheme {
        match s {
            Scheme::Drawn => BandScheme::Drawn,
            Scheme::Disjoint => BandScheme::Disjoint,
        }
    }
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
    exact: f64,
    independent: f64,
}

#[derive(Serialize)]
struct Recommended {
    threshold: f64,
    false_positive_weight: f64,
    false_negative_weight: f64,
    false_positive: f64,
    false_negative: f64,
}

#[derive(Serialize)]
struct Output {
    params: Params,
    #[serde(skip_serializing_if = "Option::is_none")]
    recommendation: Option<Recommended>,
    curve: Vec<Point>,
}

/// Runs `textreuse tune`.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let scheme = BandScheme::from(args.scheme);
    let (mut rows, mut bands) = (args.rows, args.bands);
    let mut recommendation = None;
    if let Some(threshold) = args.threshold {
        let options = TuneOptions {
            scheme,
            hashes: args.hashes.unwrap_or(match scheme {
                BandScheme::Drawn => 20,
                _ => rows * bands,
            }),
            max_bands: args.max_bands,
            bits: args.bits,
            seed: args.seed,
            false_positive_weight: args.false_positive_weight,
            false_negative_weight: args.false_negative_weight,
        };
        global.log(format_args!(
            "searching (K, M) for threshold {threshold} with {} bands",
            options.scheme
        ));
        let best =
            textreuse_minhash::tune(threshold, &options).context("cannot recommend parameters")?;
        rows = best.rows;
        bands = best.bands;
        recommendation = Some(Recommended {
            threshold,
            false_positive_weight: args.false_positive_weight,
            false_negative_weight: args.false_negative_weight,
            false_positive: best.false_positive,
            false_negative: best.false_negative,
        });
    }
    let mut builder = SignerBuilder::new();
    builder
        .bits(args.bits)
        .rows(rows)
        .bands(bands)
        .seed(args.seed)
        .scheme(scheme);
    // A recommendation for disjoint bands uses K*M of the N functions.
    if let Some(n) = args
        .hashes
        .filter(|_| scheme == BandScheme::Drawn || args.threshold.is_none())
    {
        builder.hashes(n);
    }
    let signer = builder.build().context("invalid MinHash parameters")?;
    let output = Output {
        params: params(&signer),
        recommendation,
        curve: curve(&signer),
    };
    let mut out = util::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &output)?;
        writeln!(out)?;
    } else {
        write_table(&mut out, &output)?;
    }
    out.flush()?;
    Ok(())
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
fn curve(signer: &Signer) -> Vec<Point> {
    (1..=20)
        .map(|i| {
            let s = i as f64 / 20.0;
            Point {
                s,
                exact: signer.exact_match_probability(s),
                independent: signer.independent_approximation(s),
            }
        })
        .collect()
}

fn write_table(out: &mut impl Write, o: &Output) -> std::io::Result<()> {
    let p = &o.params;
    if let Some(r) = &o.recommendation {
        writeln!(
            out,
            "recommended for threshold {}: K = {}, M = {} (false-positive area {:.4}, \
             false-negative area {:.4}, weights {}/{})",
            r.threshold,
            p.rows,
            p.bands,
            r.false_positive,
            r.false_negative,
            r.false_positive_weight,
            r.false_negative_weight
        )?;
    }
    writeln!(
        out,
        "N = {} hashes of {} bits, K = {} rows, M = {} bands, seed {}, {} bands",
        p.hashes, p.bits, p.rows, p.bands, p.seed, p.scheme
    )?;
    writeln!(out, "{:>6}  {:>10}  {:>12}", "s", "exact", "independent")?;
    for point in &o.curve {
        writeln!(
            out,
            "{:>6.2}  {:>10.6}  {:>12.6}",
            point.s, point.exact, point.independent
        )?;
    }
    Ok(())
}
