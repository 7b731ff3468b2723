//! Progress bars on stderr for the stages of a run.
use std::cell::RefCell;
use std::io::IsTerminal;

use textreuse_corpus::{Progress, Stage};

use crate::global::Global;

/// Progress bars on stderr, one stage at a time, when it is a terminal and `--quiet` is off;
/// log lines print above the bar.
pub struct Bars<'a> {
    global: &'a Global,
    /// What the bar says instead of the dedup stage names (`index add`: "indexing").
    label: Option<&'static str>,
    draw: bool,
    bar: RefCell<Option<indicatif::ProgressBar>>,
}

impl<'a> Bars<'a> {
    /// Bars that name what is done with `label` instead of dedup's stages.
    pub fn labelled(global: &'a Global, label: &'static str) -> Bars<'a> {
        Bars {
            label: Some(label),
            ..Bars::new(global)
        }
    }

    /// Bars for `global`: drawn when stderr is a terminal and `--quiet` is off.
    pub fn new(global: &'a Global) -> Bars<'a> {
        Bars {
            global,
            label: None,
            draw: !global.quiet && std::io::stderr().is_terminal(),
            bar: RefCell::new(None),
        }
    }

    /// The run's global options.
    pub fn global(&self) -> &Global {
        self.global
    }

    /// Replaces the current bar by a new one (a spinner without a total), if bars are drawn.
    fn begin(&self, total: Option<u64>, template: &str) {
        self.finish();
        if !self.draw {
            return;
        }
        let bar = match total {
            Some(n) => indicatif::ProgressBar::new(n),
            None => indicatif::ProgressBar::new_spinner(),
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .expect("valid template")
                .progress_chars("=> "),
        );
        // Redraw even while a stage reports nothing for a while (the sort before the merge).
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        *self.bar.borrow_mut() = Some(bar);
    }
}

impl Progress for Bars<'_> {
    fn log(&self, line: &str) {
        match &*self.bar.borrow() {
            Some(bar) => bar.suspend(|| self.global.log(line)),
            None => self.global.log(line),
        }
    }

    fn start(&self, stage: Stage, total: Option<u64>) {
        let name = match stage {
            _ if self.label.is_some() => self.label.unwrap_or_default(),
            Stage::ReadDocuments => "stages 1-2:",
            Stage::MergeRecords => "stage 3: merging",
            Stage::ClusterPairs => "stages 4-5: clustering",
            Stage::WriteClusters => "stages 6-8: writing",
            Stage::ScoreChunks => "candidates:",
            Stage::AlignPairs => "aligning",
            _ => "working on",
        };
        let unit = stage.unit();
        let template = match total {
            Some(_) => format!(
                "{{bar:30}} {name} {{human_pos}}/{{human_len}} {unit} ({{per_sec:0}}, {{eta}} left)"
            ),
            None => format!("{{spinner}} {name} {{human_pos}} {unit} ({{per_sec:0}}) {{elapsed}}"),
        };
        self.begin(total, &template);
    }

    fn advance(&self, n: u64) {
        if let Some(bar) = &*self.bar.borrow() {
            bar.inc(n);
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.borrow_mut().take() {
            bar.finish_and_clear();
        }
    }
}
