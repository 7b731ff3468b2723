//! `textreuse explore`: a local web app over a dedup or reuse output directory
//! (`textreuse_explore`).
use std::path::PathBuf;
use std::sync::Arc;

use textreuse_explore::{DEFAULT_HOST, DEFAULT_PORT, Explorer};

use crate::global::Global;

/// Arguments of `textreuse explore`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The output directory of `textreuse dedup` or `textreuse reuse` (its --out).
    #[arg(value_name = "OUT_DIR")]
    dir: PathBuf,
    /// The port to listen on (0: any free one).
    #[arg(long, value_name = "PORT", default_value_t = DEFAULT_PORT)]
    port: u16,
    /// The address to listen on. The default answers only this machine; another address lets
    /// others on the network read the outputs (and inputs) served.
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_HOST)]
    host: String,
    /// The inputs the output was made from (as given to the run): the whole articles around
    /// passages are shown from them.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    inputs: Vec<PathBuf>,
    /// A persistent index (`textreuse index create`): each case's, cluster's and
    /// contradiction's near-duplicates in it are looked up from their views.
    #[arg(long = "index", value_name = "INDEX_DIR")]
    lsh_index: Option<PathBuf>,
    /// Where the index of the output is kept (default: OUT_DIR/.explore, or a temporary
    /// directory when OUT_DIR cannot be written).
    #[arg(long, value_name = "DIR")]
    index_dir: Option<PathBuf>,
}

/// Runs `textreuse explore`: indexes the directory (once), then serves until interrupted.
pub fn run(args: &Args, global: &Global) -> anyhow::Result<()> {
    let mut builder = Explorer::builder();
    builder.inputs(args.inputs.iter().cloned());
    if let Some(dir) = &args.index_dir {
        builder.index_dir(dir);
    }
    if let Some(dir) = &args.lsh_index {
        builder.lsh_index(dir);
    }
    if let Some(threads) = global.threads {
        builder.threads(threads);
    }
    let started = std::time::Instant::now();
    let explorer = builder.open_with(&args.dir, &|table, lines| {
        if lines > 0 && lines % 1_000_000 < 100_000 {
            global.log(format_args!(
                "indexing {}: {lines} lines",
                table.file_name()
            ));
        }
    })?;
    for index in explorer.tables() {
        let meta = index.meta();
        global.log(format_args!(
            "{}: {} rows, {} articles",
            index.table().file_name(),
            meta.rows,
            meta.titles
        ));
        if meta.bad_lines > 0 {
            let (line, why) = &meta.bad_line_examples[0];
            global.log(format_args!(
                "{}: {} lines could not be read and are not shown (line {line}: {why})",
                index.table().file_name(),
                meta.bad_lines
            ));
        }
    }
    if let Some(articles) = explorer.articles() {
        global.log(format_args!("inputs: {} documents", articles.len()));
        for problem in articles.problems() {
            global.log(format_args!("inputs: skipped: {problem}"));
        }
    }
    global.log(format_args!(
        "opened in {:.2} s; index in {}",
        started.elapsed().as_secs_f64(),
        explorer.index_dir().display()
    ));
    let threads = global.threads.unwrap_or(0);
    textreuse_explore::serve_blocking(
        Arc::new(explorer),
        &args.host,
        args.port,
        threads,
        |addr| {
            // The address goes to stdout even with --quiet: scripts read it.
            println!("http://{addr}/");
            global.log("serving read-only; Ctrl-C stops");
        },
    )?;
    Ok(())
}
