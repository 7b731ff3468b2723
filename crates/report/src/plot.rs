//! The figures, drawn as SVG by `plotters`: S-curves, the cluster-size histogram, counts per
//! type, and where reused passages lie in a checked document.
use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::prelude::*;
use textreuse_minhash::{BandScheme, Signer};

use crate::ReportError;

/// The font family of the plots' text; the browser renders it, so no font file is needed.
const FONT: &str = "sans-serif";
const BLUE: RGBColor = RGBColor(31, 95, 191);
const ORANGE: RGBColor = RGBColor(230, 126, 34);
const GREEN: RGBColor = RGBColor(39, 150, 90);
const RED_LINE: RGBColor = RGBColor(200, 40, 40);
const GRID: RGBColor = RGBColor(232, 235, 240);

fn plot_error<E: std::error::Error + Send + Sync>(
    figure: &'static str,
) -> impl Fn(DrawingAreaErrorKind<E>) -> ReportError {
    move |e| ReportError::Plot {
        figure,
        message: e.to_string(),
    }
}

/// Draws into an SVG string of `size` pixels.
fn svg(
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

/// `x` with at most 3 decimals and no trailing zeros (0.8, 0.794).
fn short(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// 1, 2, 5, 10, 20, 50, ... within `lo..=hi`: the labelled ticks of a log axis.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut decade = 1.0;
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * decade;
            if v >= lo && v <= hi {
                out.push(v);
            }
        }
        decade *= 10.0;
    }
    out
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
    let max = counts.iter().map(|c| c.1).max().unwrap_or(0).max(1);
    let n = counts.len().max(1);
    let names: Vec<String> = counts.iter().map(|c| c.0.to_string()).collect();
    svg("the counts per type", (720, 60 + 34 * n as u32), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Clusters by type", (FONT, 17))
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

/// Where a checked document's reused passages lie: one row, the document's characters from
/// left to right, a block per passage colored by its source (`passages` are character ranges
/// with the index of their source among `sources`).
pub fn coverage_svg(
    chars: usize,
    passages: &[(std::ops::Range<usize>, usize)],
) -> Result<String, ReportError> {
    const PALETTE: [RGBColor; 6] = [
        BLUE,
        ORANGE,
        GREEN,
        RGBColor(142, 68, 173),
        RGBColor(192, 57, 43),
        RGBColor(22, 160, 133),
    ];
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
    fn log_ticks_are_one_two_five() {
        assert_eq!(log_ticks(1.8, 60.0), [2.0, 5.0, 10.0, 20.0, 50.0]);
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
    fn coverage_clamps_passages_to_the_text() {
        let svg = coverage_svg(100, &[(10..20, 0), (90..150, 1), (5..5, 7)]).unwrap();
        assert!(svg.contains("<rect"));
    }
}
