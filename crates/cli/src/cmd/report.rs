//! `textreuse report`: the HTML report of a dedup or reuse run's outputs (`textreuse_report`).
use std::path::{Path, PathBuf};

use textreuse_report::{DedupReport, ReuseReport, Run};

use crate::global::Global;

/// Arguments of `textreuse report` (and the report options of `dedup --report`).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output directory of `textreuse dedup` or of `textreuse reuse` (its --out; a reuse
    /// run is told by its corpus.json or reuse.jsonl); report.html is written there.
    #[arg(value_name = "OUT_DIR")]
    out: PathBuf,
    #[command(flatten)]
    options: Options,
}

/// How much a report shows.
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// Clusters sampled per type (the same ones on every run: those whose ids hash lowest).
    #[arg(long, value_name = "N", default_value_t = textreuse_report::DEFAULT_SAMPLES)]
    samples: usize,
    /// Article pairs listed (for a reuse run: its top pairs).
    #[arg(long, value_name = "N", default_value_t = textreuse_report::DEFAULT_TOP_PAIRS)]
    top_pairs: usize,
    /// Largest clusters shown.
    #[arg(long, value_name = "N", default_value_t = textreuse_report::DEFAULT_LARGEST)]
    largest: usize,
    /// Members shown per cluster.
    #[arg(long, value_name = "N", default_value_t = textreuse_report::DEFAULT_MAX_MEMBERS)]
    max_members: usize,
    /// The link of a member with a dump revision id: {revision} and {title} are filled in
    /// (another wiki: https://de.wikipedia.org/w/index.php?oldid={revision}; "" for no links).
    #[arg(long, value_name = "TEMPLATE", default_value = textreuse_report::DEFAULT_REVISION_URL)]
    revision_url: String,
}

impl Options {
    /// Writes `dir/report.html` and says where.
    pub fn write(&self, dir: &Path, global: &Global) -> anyhow::Result<()> {
        let mut report = DedupReport::new();
        report
            .samples(self.samples)
            .top_pairs(self.top_pairs)
            .largest(self.largest)
            .max_members(self.max_members)
            .revision_url(Some(self.revision_url.as_str()).filter(|t| !t.is_empty()));
        let done = report.write(dir)?;
        global.log(format_args!(
            "report of {} clusters ({} shown) written to {} ({} KiB, {:.2} s)",
            done.clusters,
            done.shown,
            done.path.display(),
            done.bytes.div_ceil(1024),
            done.seconds
        ));
        Ok(())
    }
}

impl Options {
    /// Writes the report of a reuse run, `dir/report.html`, and says where.
    fn write_reuse(&self, dir: &Path, global: &Global) -> anyhow::Result<()> {
        let done = ReuseReport::new().top_pairs(self.top_pairs).write(dir)?;
        global.log(format_args!(
            "report of {} cases between {} articles written to {} ({} KiB, {:.2} s)",
            done.cases,
            done.articles,
            done.path.display(),
            done.bytes.div_ceil(1024),
            done.seconds
        ));
        Ok(())
    }
}

/// Runs `textreuse report`: the reuse report for a reuse run's outputs, else dedup's.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    match Run::of_dir(&args.out) {
        Run::Reuse => args.options.write_reuse(&args.out, global),
        _ => args.options.write(&args.out, global),
    }
}
