//! The unit-filter flags (`--min-shingles`, `--max-shingles`, `--shingle`).
use textreuse_shingle::DEFAULT_SHINGLE_CHARS;
use textreuse_shingle::units::{SentenceFilter, Unit};

/// The unit-filter flags of every command that reads sentences (`dedup`, `sentences`,
/// `simhash`), with the library's defaults per unit; `--max-shingles 0` means no upper bound
/// everywhere.
#[derive(Debug, clap::Args)]
pub struct FilterArgs {
    /// Keep units with at least this many shingles (0 keeps the short ones too) [default: 75 for
    /// sentences, 20 for paragraphs and documents].
    #[arg(long, value_name = "N")]
    pub min_shingles: Option<usize>,
    /// Keep units with at most this many shingles (0: no upper bound) [default: 600 for
    /// sentences, no bound for paragraphs and documents].
    #[arg(long, value_name = "N")]
    pub max_shingles: Option<usize>,
    /// Shingle length in characters.
    #[arg(long, default_value_t = DEFAULT_SHINGLE_CHARS as u16, value_name = "CHARS", value_parser = clap::value_parser!(u16).range(1..))]
    pub shingle: u16,
}

impl FilterArgs {
    /// The sentence filter these flags describe.
    pub fn filter(&self) -> anyhow::Result<SentenceFilter> {
        self.filter_for(Unit::Sentence)
    }

    /// The filter of `unit` these flags describe: the unit's defaults
    /// ([`Unit::default_filter`]) where a flag is not given, `--max-shingles 0` as
    /// `usize::MAX`; an error when `--min-shingles` is above `--max-shingles`, which would keep
    /// nothing.
    pub fn filter_for(&self, unit: Unit) -> anyhow::Result<SentenceFilter> {
        let defaults = unit.default_filter();
        let filter = SentenceFilter {
            shingle: self.shingle as usize,
            min_shingles: self.min_shingles.unwrap_or(defaults.min_shingles),
            max_shingles: match self.max_shingles {
                Some(0) => usize::MAX,
                Some(n) => n,
                None => defaults.max_shingles,
            },
        };
        anyhow::ensure!(
            filter.min_shingles <= filter.max_shingles,
            "--min-shingles {} is above --max-shingles {}: nothing would be kept",
            filter.min_shingles,
            filter.max_shingles
        );
        Ok(filter)
    }

    /// The sentence filter for log lines: `75..=600 shingles of 12 chars` (`inf` for no upper
    /// bound).
    pub fn describe(&self) -> String {
        self.filter()
            .map_or_else(|e| e.to_string(), |f| describe(&f))
    }
}

/// A filter for log lines: `75..=600 shingles of 12 chars` (`inf` for no upper bound).
pub fn describe(filter: &SentenceFilter) -> String {
    let max = if filter.max_shingles == usize::MAX {
        "inf".to_string()
    } else {
        filter.max_shingles.to_string()
    };
    format!(
        "{}..={max} shingles of {} chars",
        filter.min_shingles, filter.shingle
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        filter: FilterArgs,
    }

    fn parse(args: &[&str]) -> Result<FilterArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("textreuse").chain(args.iter().copied()))
            .map(|cli| cli.filter)
    }

    #[test]
    fn filter_args_default_to_dedups_filter() {
        let f = parse(&[]).unwrap();
        assert_eq!(f.filter().unwrap(), SentenceFilter::default());
        assert_eq!(f.describe(), "75..=600 shingles of 12 chars");
    }

    #[test]
    fn filter_args_max_zero_is_unbounded_and_shingle_zero_is_refused() {
        let f = parse(&[
            "--max-shingles",
            "0",
            "--min-shingles",
            "3",
            "--shingle",
            "8",
        ])
        .unwrap();
        let want = SentenceFilter {
            shingle: 8,
            min_shingles: 3,
            max_shingles: usize::MAX,
        };
        assert_eq!(f.filter().unwrap(), want);
        assert!(parse(&["--min-shingles", "700"]).unwrap().filter().is_err());
        assert_eq!(f.describe(), "3..=inf shingles of 8 chars");
        assert!(parse(&["--shingle", "0"]).is_err());
    }
}
