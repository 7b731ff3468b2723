//! The web study's flags of `reuse`: the revenue model's inputs (`textreuse_reuse::web`).
use std::path::PathBuf;

use anyhow::Context;
use textreuse_reuse::web::{PageViews, RevenueInputs, SiteValues};

/// The revenue model's inputs. Each is optional: `revenue.json` holds the estimates whose
/// inputs are given.
#[derive(Debug, clap::Args)]
pub struct WebArgs {
    /// Web study: a CSV file of website values, `domain,value` in US dollars, for the revenue
    /// estimates over websites (revenue.json).
    #[arg(long, value_name = "CSV")]
    pub site_values: Option<PathBuf>,
    /// Web study: monthly page views of Wikipedia articles, for the page-view estimate: CSV
    /// `title,views`, or Wikimedia pageview dump files (`domain_code page_title count_views
    /// total_response_size`, gzip-compressed or not); views of a title are added up.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub pageviews: Vec<PathBuf>,
    /// Web study: the Wikipedia whose lines of pageview dumps count, by its language code
    /// (desktop and mobile alike).
    #[arg(long, value_name = "CODE", default_value = "en")]
    pub pageviews_wiki: String,
    /// Web study: US dollars per thousand page views (CPM) for the page-view estimate; without
    /// it that estimate is left out (the views are still given).
    #[arg(long, value_name = "USD")]
    pub cpm: Option<f64>,
}

impl WebArgs {
    /// Whether any revenue input is given.
    pub fn any(&self) -> bool {
        self.site_values.is_some() || !self.pageviews.is_empty() || self.cpm.is_some()
    }

    /// The inputs, read and checked now (a bad line is an error naming its file and line,
    /// before the long run).
    pub fn inputs(&self) -> anyhow::Result<RevenueInputs> {
        if let Some(cpm) = self.cpm {
            anyhow::ensure!(
                cpm.is_finite() && cpm >= 0.0,
                "invalid --cpm {cpm}: US dollars per thousand views, at least 0"
            );
            anyhow::ensure!(
                !self.pageviews.is_empty(),
                "--cpm prices page views: give them with --pageviews"
            );
        }
        let site_values = match &self.site_values {
            Some(path) => Some(SiteValues::read(path).context("invalid --site-values")?),
            None => None,
        };
        let page_views = if self.pageviews.is_empty() {
            None
        } else {
            let views = PageViews::new(self.pageviews.clone(), self.pageviews_wiki.clone());
            views.check().context("invalid --pageviews")?;
            Some(views)
        };
        Ok(RevenueInputs {
            site_values,
            page_views,
            cpm: self.cpm,
        })
    }
}
