//! The figures, drawn as SVG by `plotters`: S-curves, the cluster-size histogram, counts per
//! type, and where reused passages lie in a checked document.
use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;
use textreuse_minhash::{BandScheme, Signer};

use crate::ReportError;

/// The font family of the plots' text; the browser renders it, so no font file is needed.
pub(crate) const FONT: &str = "sans-serif";
pub(crate) const BLUE: RGBColor = RGBColor(31, 95, 191);
const ORANGE: RGBColor = RGBColor(230, 126, 34);
const GREEN: RGBColor = RGBColor(39, 150, 90);
const RED_LINE: RGBColor = RGBColor(200, 40, 40);
pub(crate) const GRID: RGBColor = RGBColor(232, 235, 240);

fn plot_error<E: std::error::Error + Send + Sync>(
    figure: &'static str,
) -> impl Fn(DrawingAreaErrorKind<E>) -> ReportError {
    move |e| ReportError::Plot {
        figure,
        message: e.to_string(),
    }
}

/// Draws into an SVG string of `size` pixels.
pub(crate) fn svg(
    figure: &'static str,
    size: (u32, u32),
    draw: impl FnOnce(
        &DrawingArea<SVGBackend<'_>, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<std::io::Error>>,
) -> Result<String, ReportError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error(figure))?;
        draw(&root).map_err(plot_error(figure))?;
        root.present().map_err(plot_error(figure))?;
    }
    Ok(out)
}

/// The S-curve of a signer: the probability that a pair of Jaccard similarity `s` becomes a
/// candidate, exact (the scheme's own curve) and under the independent-bands approximation
/// `1 - (1 - s^K)^M`, with the threshold marked.
///
/// ```
/// use textreuse_minhash::Signer;
/// use textreuse_report::SCurvePlot;
///
/// let signer = Signer::new();
/// let svg = SCurvePlot::new(&signer).threshold(0.8).svg()?;
/// assert!(svg.starts_with("<svg") && svg.contains("independent"));
/// # Ok::<(), textreuse_report::ReportError>(())
/// ```
#[derive(Clone, Debug)]
pub struct SCurvePlot<'a> {
    signer: &'a Signer,
    threshold: Option<f64>,
    below: Option<f64>,
    min_set: Option<usize>,
}

impl<'a> SCurvePlot<'a> {
    /// The plot of `signer`'s curves, with no threshold marked.
    pub fn new(signer: &'a Signer) -> SCurvePlot<'a> {
        SCurvePlot {
            signer,
            threshold: None,
            below: None,
            min_set: None,
        }
    }

    /// Marks the threshold (a vertical line).
    pub fn threshold(mut self, t: f64) -> Self {
        self.threshold = Some(t).filter(|t| (0.0..=1.0).contains(t));
        self
    }

    /// Marks the similarity at or below which pairs should not become candidates.
    pub fn below(mut self, s: f64) -> Self {
        self.below = Some(s).filter(|s| (0.0..=1.0).contains(s));
        self
    }

    /// Also draws the exact curve of two sets of `n` shingles (OPH's curve depends on set
    /// sizes; the other schemes' do not, and ignore this).
    pub fn min_set(mut self, n: usize) -> Self {
        self.min_set = Some(n).filter(|&n| n > 0);
        self
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String, ReportError> {
        let signer = self.signer;
        let caption = format!(
            "S-curve: {} scheme, N = {}, K = {}, M = {}",
            signer.scheme(),
            signer.hashes(),
            signer.rows(),
            signer.bands()
        );
        let grid = |n: usize| (0..=n).map(move |i| i as f64 / n as f64);
        let exact: Vec<(f64, f64)> = grid(200)
            .map(|s| (s, signer.exact_match_probability(s)))
            .collect();
        let independent: Vec<(f64, f64)> = grid(200)
            .map(|s| (s, signer.independent_approximation(s)))
            .collect();
        let sized: Option<(usize, Vec<(f64, f64)>)> = match (signer.scheme(), self.min_set) {
            (BandScheme::Oph, Some(n)) => Some((
                n,
                grid(40)
                    .skip(1)
                    .map(|s| {
                        let (shared, union) = textreuse_minhash::sized_pair(n, s, false);
                        (
                            shared as f64 / union as f64,
                            signer.match_probability(shared, union),
                        )
                    })
                    .collect(),
            )),
            _ => None,
        };
        svg("the S-curve", (720, 420), |root| {
            let mut chart = ChartBuilder::on(root)
                .caption(caption, (FONT, 17))
                .margin(14)
                .x_label_area_size(42)
                .y_label_area_size(58)
                .build_cartesian_2d(0f64..1f64, 0f64..1.0001f64)?;
            chart
                .configure_mesh()
                .x_desc("Jaccard similarity of a pair")
                .y_desc("probability it becomes a candidate")
                .label_style((FONT, 13))
                .light_line_style(GRID)
                .bold_line_style(GRID)
                .draw()?;
            let name = if signer.scheme() == BandScheme::Oph {
                "exact (large sets)"
            } else {
                "exact"
            };
            chart
                .draw_series(LineSeries::new(exact, BLUE.stroke_width(3)))?
                .label(name)
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], BLUE.stroke_width(3)));
            chart
                .draw_series(DashedLineSeries::new(
                    independent,
                    7,
                    5,
                    ORANGE.stroke_width(2),
                ))?
                .label("independent bands, 1 - (1 - s^K)^M")
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], ORANGE.stroke_width(2))
                });
            if let Some((n, points)) = sized {
                chart
                    .draw_series(LineSeries::new(points, GREEN.stroke_width(2)))?
                    .label(format!("exact, two sets of {n} shingles"))
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], GREEN.stroke_width(2))
                    });
            }
            if let Some(t) = self.threshold {
                chart
                    .draw_series(LineSeries::new(
                        vec![(t, 0.0), (t, 1.0)],
                        RED_LINE.stroke_width(2),
                    ))?
                    .label(format!("threshold {}", short(t)))
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], RED_LINE.stroke_width(2))
                    });
            }
            if let Some(b) = self.below {
                chart
                    .draw_series(DashedLineSeries::new(
                        vec![(b, 0.0), (b, 1.0)],
                        4,
                        4,
                        BLACK.mix(0.5).stroke_width(1),
                    ))?
                    .label(format!("below {}: should not be candidates", short(b)))
                    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], BLACK.mix(0.5)));
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .label_font((FONT, 13))
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.3))
                .draw()?;
            Ok(())
        })
    }
}

/// Colors of the lines of a plot with one line per parameter value.
const PALETTE: [RGBColor; 6] = [
    BLUE,
    ORANGE,
    GREEN,
    RGBColor(142, 68, 173),
    RGBColor(192, 57, 43),
    RGBColor(22, 160, 133),
];

/// The tuning study's figure ([`textreuse_dedup::study`]): the false-positive rate (bad /
/// candidate pairs) and the wall time of each setting against the shingle length, one line per
/// rows `K`, in two panels one above the other.
///
/// ```
/// use textreuse_corpus::{Document, NoProgress};
/// use textreuse_dedup::study::TuningStudy;
/// use textreuse_report::StudyPlot;
///
/// let s = "The old mill on the river was built in 1820 and still grinds grain for the village.";
/// let docs = vec![Document::new(1, "A", s), Document::new(2, "B", s)];
/// let study = TuningStudy::builder().shingles(5..=8).rows([8, 10]).min_shingles(20).build()?;
/// let report = study.run_documents(docs, &NoProgress)?;
/// let svg = StudyPlot::new(&report.rows).svg()?;
/// assert!(svg.starts_with("<svg") && svg.contains("K = 10"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct StudyPlot<'a> {
    rows: &'a [textreuse_dedup::study::StudyRow],
}

impl<'a> StudyPlot<'a> {
    /// The plot of `rows` (any order; one line per distinct `K`).
    pub fn new(rows: &'a [textreuse_dedup::study::StudyRow]) -> StudyPlot<'a> {
        StudyPlot { rows }
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String, ReportError> {
        let mut lines: BTreeMap<usize, Vec<(f64, f64, f64)>> = BTreeMap::new();
        for r in self.rows {
            lines.entry(r.rows).or_default().push((
                r.shingle as f64,
                r.false_positive_rate,
                r.seconds,
            ));
        }
        for points in lines.values_mut() {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let (lo, hi) = self.rows.iter().fold((f64::MAX, f64::MIN), |(lo, hi), r| {
            (lo.min(r.shingle as f64), hi.max(r.shingle as f64))
        });
        let (lo, hi) = if lo > hi {
            (0.0, 1.0)
        } else {
            (lo - 0.5, hi + 0.5)
        };
        let max_rate = self
            .rows
            .iter()
            .map(|r| r.false_positive_rate)
            .fold(0.0, f64::max);
        let max_time = self.rows.iter().map(|r| r.seconds).fold(0.0, f64::max);
        let (n, m) = self.rows.first().map_or((0, 0), |r| (r.hashes, r.bands));
        svg("the tuning study", (720, 640), |root| {
            let root = root.titled(
                &format!("Tuning study: drawn bands, N = {n}, M = {m}, one line per K"),
                (FONT, 17),
            )?;
            let panels = root.split_evenly((2, 1));
            for (panel, (what, top, pick)) in panels.iter().zip([
                (
                    "false-positive rate (bad / candidates)",
                    (max_rate * 1.1).max(0.01),
                    1usize,
                ),
                ("seconds per setting", (max_time * 1.1).max(0.001), 2usize),
            ]) {
                let mut chart = ChartBuilder::on(panel)
                    .margin(14)
                    .x_label_area_size(40)
                    .y_label_area_size(64)
                    .build_cartesian_2d(lo..hi, 0f64..top)?;
                chart
                    .configure_mesh()
                    .x_desc("shingle length L (characters)")
                    .y_desc(what)
                    .label_style((FONT, 13))
                    .light_line_style(GRID)
                    .bold_line_style(GRID)
                    .x_label_formatter(&|v| format!("{v:.0}"))
                    .draw()?;
                for (i, (k, points)) in lines.iter().enumerate() {
                    let color = PALETTE[i % PALETTE.len()];
                    let xy: Vec<(f64, f64)> = points
                        .iter()
                        .map(|p| (p.0, if pick == 1 { p.1 } else { p.2 }))
                        .collect();
                    chart
                        .draw_series(LineSeries::new(xy.clone(), color.stroke_width(2)))?
                        .label(format!("K = {k}"))
                        .legend(move |(x, y)| {
                            PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(2))
                        });
                    chart.draw_series(
                        xy.into_iter()
                            .map(move |p| Circle::new(p, 3, color.filled())),
                    )?;
                }
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::UpperRight)
                    .label_font((FONT, 13))
                    .background_style(WHITE.mix(0.9))
                    .border_style(BLACK.mix(0.3))
                    .draw()?;
            }
            Ok(())
        })
    }
}

/// The seed research's Figure 1: the Jaccard similarity of the character shingle sets of a
/// sentence and its copy against their normalized edit distance `e = E/N`, drawn from the
/// exact bounds ([`textreuse_shingle::edit::localized_substitution_bounds`]: one run of `E`
/// substitutions in a sentence of `N` characters with distinct shingles of length `L`) for
/// relative shingle lengths `l = L/N` (the paper's 0.05 and 0.2), with the limit
/// `(1 - e)/(1 + e)` as `l -> 0` and the edit-distance filter's threshold marked.
///
/// ```
/// use textreuse_report::EditBoundPlot;
///
/// let svg = EditBoundPlot::new().svg()?;
/// assert!(svg.contains("l = 0.05") && svg.contains("l = 0.2"));
/// # Ok::<(), textreuse_report::ReportError>(())
/// ```
#[derive(Clone, Debug)]
pub struct EditBoundPlot {
    len: usize,
    relative: Vec<f64>,
    max_edit: Option<f64>,
}

impl Default for EditBoundPlot {
    fn default() -> Self {
        EditBoundPlot::new()
    }
}

impl EditBoundPlot {
    /// The paper's figure: sentences of 1,000 characters (so `L = lN` is whole for both
    /// curves), `l` = 0.05 and 0.2, the threshold at 0.25.
    pub fn new() -> EditBoundPlot {
        EditBoundPlot {
            len: 1000,
            relative: vec![0.05, 0.2],
            max_edit: Some(0.25),
        }
    }

    /// The sentence length `N` in characters of the exact bounds (at least 1).
    pub fn len(mut self, chars: usize) -> Self {
        self.len = chars.max(1);
        self
    }

    /// The relative shingle lengths `l = L/N` to draw, one pair of bounds each.
    pub fn relative_shingles(mut self, l: impl IntoIterator<Item = f64>) -> Self {
        self.relative = l.into_iter().filter(|l| *l > 0.0 && *l <= 1.0).collect();
        self
    }

    /// Marks this normalized edit distance (a vertical line); `None` for no mark.
    pub fn max_edit(mut self, e: Option<f64>) -> Self {
        self.max_edit = e.filter(|e| (0.0..=1.0).contains(e));
        self
    }

    /// The SVG document.
    pub fn svg(&self) -> Result<String, ReportError> {
        let n = self.len;
        let limit: Vec<(f64, f64)> = (0..=200)
            .map(|i| {
                let e = i as f64 / 400.0;
                (e, (1.0 - e) / (1.0 + e))
            })
            .collect();
        svg("the Jaccard bound", (720, 440), |root| {
            let mut chart = ChartBuilder::on(root)
                .caption(
                    format!("Jaccard similarity vs edit distance (N = {n} characters)"),
                    (FONT, 17),
                )
                .margin(14)
                .x_label_area_size(42)
                .y_label_area_size(58)
                .build_cartesian_2d(0f64..0.5f64, 0f64..1.0001f64)?;
            chart
                .configure_mesh()
                .x_desc("normalized edit distance e = E / N (one run of substitutions)")
                .y_desc("Jaccard similarity of the shingle sets")
                .label_style((FONT, 13))
                .light_line_style(GRID)
                .bold_line_style(GRID)
                .draw()?;
            chart
                .draw_series(LineSeries::new(limit, BLACK.stroke_width(2)))?
                .label("l -> 0: (1 - e) / (1 + e)")
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], BLACK.stroke_width(2))
                });
            for (i, &l) in self.relative.iter().enumerate() {
                let color = PALETTE[(i + 1) % PALETTE.len()];
                let shingle = ((l * n as f64).round() as usize).max(1);
                let edits = (0..=n / 2).step_by((n / 400).max(1));
                let bounds: Vec<(f64, (f64, f64))> = edits
                    .map(|e| {
                        let b =
                            textreuse_shingle::edit::localized_substitution_bounds(n, shingle, e);
                        (e as f64 / n as f64, b)
                    })
                    .collect();
                chart
                    .draw_series(LineSeries::new(
                        bounds.iter().map(|&(e, (_, hi))| (e, hi)),
                        color.stroke_width(2),
                    ))?
                    .label(format!("l = {}: upper bound", short(l)))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(2))
                    });
                chart
                    .draw_series(DashedLineSeries::new(
                        bounds.iter().map(|&(e, (lo, _))| (e, lo)),
                        7,
                        5,
                        color.stroke_width(2),
                    ))?
                    .label(format!("l = {}: lower bound (dashed)", short(l)))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(1))
                    });
            }
            if let Some(e) = self.max_edit {
                chart
                    .draw_series(LineSeries::new(
                        vec![(e, 0.0), (e, 1.0)],
                        RED_LINE.stroke_width(2),
                    ))?
                    .label(format!("edit-distance filter {}", short(e)))
                    .legend(|(x, y)| {
                        PathElement::new(vec![(x, y), (x + 22, y)], RED_LINE.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .label_font((FONT, 13))
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.3))
                .draw()?;
            Ok(())
        })
    }
}

/// `x` with at most 3 decimals and no trailing zeros (0.8, 0.794).
fn short(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// 1, 2, 5, 10, 20, 50, ... within `lo..=hi`: the labelled ticks of a log axis.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    // From the decade of `lo` (0.01 for 0.02), or of 1.
    let mut e = if lo > 0.0 && lo < 1.0 {
        lo.log10().floor() as i32
    } else {
        0
    };
    loop {
        let decade = 10f64.powi(e);
        if decade > hi {
            break;
        }
        for m in [1.0, 2.0, 5.0] {
            let v = m * decade;
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
        e += 1;
    }
    out
}

/// A log axis's tick label: integers as they are, fractions with up to 3 decimals, smaller
/// values in scientific notation.
fn tick_label(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else if v >= 0.001 {
        short(v)
    } else {
        format!("{v:.0e}")
    }
}

/// The cluster-size histogram on log-log axes: one stem per cluster size, as high as the
/// number of clusters of that size.
pub fn cluster_sizes_svg(histogram: &BTreeMap<u64, u64>) -> Result<String, ReportError> {
    let max_size = histogram.keys().copied().max().unwrap_or(2).max(2) as f64;
    let max_count = histogram.values().copied().max().unwrap_or(1).max(1) as f64;
    let x_range = 1.8f64..(max_size * 1.6).max(10.0);
    let y_range = 0.8f64..max_count * 2.0;
    let x_ticks = log_ticks(x_range.start, x_range.end);
    let y_ticks = log_ticks(1.0, y_range.end);
    svg("the cluster-size histogram", (720, 400), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Clusters by size (log-log)", (FONT, 17))
            .margin(14)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(
                x_range.log_scale().with_key_points(x_ticks),
                y_range.log_scale().with_key_points(y_ticks),
            )?;
        chart
            .configure_mesh()
            .x_desc("cluster size (members)")
            .y_desc("clusters")
            .label_style((FONT, 13))
            .light_line_style(GRID)
            .bold_line_style(GRID)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()?;
        chart.draw_series(histogram.iter().map(|(&size, &count)| {
            PathElement::new(
                vec![(size as f64, 0.8), (size as f64, count as f64)],
                BLUE.stroke_width(2),
            )
        }))?;
        chart.draw_series(
            histogram
                .iter()
                .map(|(&size, &count)| Circle::new((size as f64, count as f64), 3, BLUE.filled())),
        )?;
        Ok(())
    })
}

/// Horizontal bars: the number of clusters of each type.
pub fn type_counts_svg(counts: &[(&str, u64)]) -> Result<String, ReportError> {
    bars_svg("the counts per type", "Clusters by type", counts)
}

/// Horizontal bars with their counts, titled `caption`.
pub(crate) fn bars_svg(
    figure: &'static str,
    caption: &str,
    counts: &[(&str, u64)],
) -> Result<String, ReportError> {
    let max = counts.iter().map(|c| c.1).max().unwrap_or(0).max(1);
    let n = counts.len().max(1);
    let names: Vec<String> = counts.iter().map(|c| c.0.to_string()).collect();
    svg(figure, (720, 60 + 34 * n as u32), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, (FONT, 17))
            .margin(14)
            .x_label_area_size(30)
            .y_label_area_size(110)
            .build_cartesian_2d(0u64..max + max / 8 + 1, (0usize..n).into_segmented())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .label_style((FONT, 13))
            .light_line_style(GRID)
            .bold_line_style(GRID)
            .y_label_formatter(&|v| match v {
                SegmentValue::Exact(i) | SegmentValue::CenterOf(i) => {
                    names.get(*i).cloned().unwrap_or_default()
                }
                SegmentValue::Last => String::new(),
            })
            .draw()?;
        chart.draw_series(counts.iter().enumerate().map(|(i, &(_, count))| {
            let mut bar = Rectangle::new(
                [
                    (0, SegmentValue::Exact(i)),
                    (count, SegmentValue::Exact(i + 1)),
                ],
                BLUE.mix(0.8).filled(),
            );
            bar.set_margin(5, 5, 0, 0);
            bar
        }))?;
        chart.draw_series(counts.iter().enumerate().map(|(i, &(_, count))| {
            Text::new(
                count.to_string(),
                (count + max / 100, SegmentValue::CenterOf(i)),
                (FONT, 13).into_font().color(&BLACK),
            )
        }))?;
        Ok(())
    })
}

/// A histogram of Jaccard similarities: `bins` are `(from, to, count)` over `0..=1`; with
/// `split`, a vertical line there, labelled with the counts at most and above it.
pub(crate) fn jaccard_histogram_svg(
    caption: &str,
    x_desc: &str,
    bins: &[(f64, f64, u64)],
    split: Option<(f64, u64, u64)>,
) -> Result<String, ReportError> {
    let max = bins.iter().map(|b| b.2).max().unwrap_or(0).max(1) as f64;
    svg("a similarity histogram", (540, 360), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, (FONT, 20))
            .margin(14)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..1f64, 0f64..max * 1.15)?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("cases")
            .label_style((FONT, 15))
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()?;
        chart.draw_series(bins.iter().map(|&(from, to, count)| {
            let mut bar = Rectangle::new([(from, 0.0), (to, count as f64)], BLUE.mix(0.8).filled());
            bar.set_margin(0, 0, 1, 1);
            bar
        }))?;
        if let Some((at, below, above)) = split {
            chart
                .draw_series(LineSeries::new(
                    vec![(at, 0.0), (at, max * 1.15)],
                    RED_LINE.stroke_width(2),
                ))?
                .label(format!(
                    "split {}: {below} at most, {above} above",
                    short(at)
                ))
                .legend(|(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], RED_LINE.stroke_width(2))
                });
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .label_font((FONT, 15))
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK.mix(0.3))
                .draw()?;
        }
        Ok(())
    })
}

/// A histogram of lengths on a log x axis: `bins` are `(min, max, count)` (values `min..=max`),
/// each bar spanning `min..max + 1`; a bin from 0 starts at 0.5.
pub(crate) fn length_histogram_svg(
    caption: &str,
    x_desc: &str,
    bins: &[(u64, u64, u64)],
) -> Result<String, ReportError> {
    let max = bins.iter().map(|b| b.2).max().unwrap_or(0).max(1) as f64;
    let lo = bins.first().map_or(1.0, |b| (b.0 as f64).max(0.5));
    let hi = bins.last().map_or(10.0, |b| b.1 as f64 + 1.0).max(lo * 4.0);
    let ticks = log_ticks(lo, hi);
    svg("the length histogram", (540, 360), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, (FONT, 20))
            .margin(14)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (lo..hi).log_scale().with_key_points(ticks),
                0f64..max * 1.15,
            )?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("cases")
            .label_style((FONT, 15))
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()?;
        chart.draw_series(bins.iter().map(|&(min, max, count)| {
            let mut bar = Rectangle::new(
                [
                    ((min as f64).max(0.5), 0.0),
                    (max as f64 + 1.0, count as f64),
                ],
                BLUE.mix(0.8).filled(),
            );
            bar.set_margin(0, 0, 1, 1);
            bar
        }))?;
        Ok(())
    })
}

/// Points on log-log axes with stems down to the axis: `points` are `(x, y)` with `x >= 1`
/// and `y > 0` (others are left out).
pub(crate) fn log_log_svg(
    figure: &'static str,
    caption: &str,
    (x_desc, y_desc): (&str, &str),
    points: &[(f64, f64)],
) -> Result<String, ReportError> {
    let points: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|&(x, y)| x >= 1.0 && y > 0.0 && x.is_finite() && y.is_finite())
        .collect();
    let max_x = points.iter().map(|p| p.0).fold(2.0, f64::max);
    let (min_y, max_y) = points
        .iter()
        .fold((1.0f64, 1.0f64), |(lo, hi), p| (lo.min(p.1), hi.max(p.1)));
    let x_range = 0.8f64..(max_x * 1.6).max(10.0);
    let y_range = (min_y * 0.5).min(0.8)..max_y * 2.0;
    let x_ticks = log_ticks(1.0, x_range.end);
    let y_ticks = log_ticks(y_range.start, y_range.end);
    let floor = y_range.start;
    svg(figure, (540, 360), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, (FONT, 20))
            .margin(14)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(
                x_range.log_scale().with_key_points(x_ticks),
                y_range.log_scale().with_key_points(y_ticks),
            )?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .label_style((FONT, 15))
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| tick_label(*v))
            .draw()?;
        chart.draw_series(
            points
                .iter()
                .map(|&(x, y)| PathElement::new(vec![(x, floor), (x, y)], BLUE.stroke_width(2))),
        )?;
        chart.draw_series(
            points
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 3, BLUE.filled())),
        )?;
        Ok(())
    })
}

/// Where a checked document's reused passages lie: one row, the document's characters from
/// left to right, a block per passage colored by its source (`passages` are character ranges
/// with the index of their source among `sources`).
pub fn coverage_svg(
    chars: usize,
    passages: &[(std::ops::Range<usize>, usize)],
) -> Result<String, ReportError> {
    let chars = chars.max(1);
    svg("the coverage strip", (720, 90), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(8)
            .x_label_area_size(28)
            .build_cartesian_2d(0usize..chars, 0f64..1f64)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .x_desc("character of the suspicious document")
            .label_style((FONT, 12))
            .light_line_style(GRID)
            .draw()?;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(0, 0.15), (chars, 0.85)],
            RGBColor(238, 240, 244).filled(),
        )))?;
        chart.draw_series(passages.iter().map(|(range, source)| {
            let color = PALETTE[source % PALETTE.len()];
            let end = range.end.max(range.start + 1).min(chars);
            Rectangle::new(
                [(range.start.min(chars), 0.15), (end, 0.85)],
                color.mix(0.75).filled(),
            )
        }))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s_curve_marks_threshold_and_draws_sized_curve_for_oph() {
        let oph = textreuse_minhash::SignerBuilder::oph().build().unwrap();
        let svg = SCurvePlot::new(&oph)
            .threshold(0.9)
            .below(0.5)
            .min_set(75)
            .svg()
            .unwrap();
        assert!(svg.contains("threshold 0.9"));
        assert!(svg.contains("two sets of 75 shingles"));
        assert!(svg.contains("below 0.5:"));
        // Drawn bands have no sized curve.
        let drawn = SCurvePlot::new(&Signer::new()).min_set(75).svg().unwrap();
        assert!(!drawn.contains("two sets of"));
        assert!(!drawn.contains("threshold"));
    }

    #[test]
    fn study_plot_draws_one_line_per_k_and_the_bound_plot_its_curves() {
        use textreuse_corpus::{Document, NoProgress};
        let s = "The old mill on the river was built in 1820 and still grinds grain here.";
        let docs = vec![Document::new(1, "A", s), Document::new(2, "B", s)];
        let report = textreuse_dedup::study::TuningStudy::builder()
            .shingles(5..=7)
            .rows([8, 9, 10])
            .min_shingles(20)
            .build()
            .unwrap()
            .run_documents(docs, &NoProgress)
            .unwrap();
        let svg = StudyPlot::new(&report.rows).svg().unwrap();
        for k in ["K = 8", "K = 9", "K = 10", "false-positive rate", "seconds"] {
            assert!(svg.contains(k), "{k}");
        }
        assert!(StudyPlot::new(&[]).svg().unwrap().starts_with("<svg"));
        let bound = EditBoundPlot::new().relative_shingles([0.1]).svg().unwrap();
        assert!(bound.contains("l = 0.1: lower bound (dashed)") && bound.contains("filter 0.25"));
        assert!(!bound.contains("l = 0.05"));
    }

    #[test]
    fn log_ticks_are_one_two_five() {
        assert_eq!(log_ticks(1.8, 60.0), [2.0, 5.0, 10.0, 20.0, 50.0]);
        assert_eq!(log_ticks(0.015, 1.5), [0.02, 0.05, 0.1, 0.2, 0.5, 1.0]);
        assert_eq!(tick_label(0.05), "0.05");
        assert_eq!(tick_label(0.0002), "2e-4");
        assert_eq!(short(0.7943282), "0.794");
        assert_eq!(short(0.8), "0.8");
    }

    #[test]
    fn histogram_handles_one_size_and_empty() {
        let one: BTreeMap<u64, u64> = [(2, 5)].into();
        assert!(cluster_sizes_svg(&one).unwrap().contains("<circle"));
        let none = BTreeMap::new();
        assert!(cluster_sizes_svg(&none).unwrap().starts_with("<svg"));
    }

    #[test]
    fn type_bars_label_every_type() {
        let svg = type_counts_svg(&[("identical", 10), ("template", 0), ("other", 3)]).unwrap();
        for name in ["identical", "template", "other"] {
            assert!(svg.contains(name), "{name}");
        }
    }

    #[test]
    fn reuse_figures_draw_their_data() {
        let bins: Vec<(f64, f64, u64)> = (0..20)
            .map(|k| (k as f64 / 20.0, (k + 1) as f64 / 20.0, k as u64))
            .collect();
        let svg = jaccard_histogram_svg("J10", "Jaccard", &bins, Some((0.1, 3, 187))).unwrap();
        assert!(svg.contains("split 0.1: 3 at most, 187 above"), "{svg}");
        assert!(svg.matches("<rect").count() >= 20);
        let none = jaccard_histogram_svg("J2", "Jaccard", &[], None).unwrap();
        assert!(none.starts_with("<svg") && !none.contains("split"));
        let lengths = length_histogram_svg("L", "words", &[(0, 0, 2), (32, 47, 5), (48, 63, 0)]);
        assert!(lengths.unwrap().matches("<rect").count() >= 3);
        assert!(length_histogram_svg("L", "words", &[]).is_ok());
        let ll = log_log_svg(
            "d",
            "D",
            ("degree", "articles"),
            &[(1.0, 10.0), (96.0, 0.02)],
        );
        assert_eq!(ll.unwrap().matches("<circle").count(), 2);
        let empty = log_log_svg("d", "D", ("x", "y"), &[(0.0, 1.0), (3.0, 0.0)]).unwrap();
        assert!(!empty.contains("<circle"));
    }

    #[test]
    fn coverage_clamps_passages_to_the_text() {
        let svg = coverage_svg(100, &[(10..20, 0), (90..150, 1), (5..5, 7)]).unwrap();
        assert!(svg.contains("<rect"));
    }
}
