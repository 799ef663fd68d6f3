//! The report's SVG plots, drawn with plotters' SVG backend into strings: a bar chart per
//! metric, the distribution of tokens per query of each run, and NDCG@k curves.

use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::RangedCoordusize;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{Error, Result};
use crate::harness::{Comparison, StoredRetrieval};
use crate::report::input::ReportRun;
use crate::report::layout::metric_title;

/// One colour per run (or retrieval result), cycled; the first is the baseline's.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x4c, 0x72, 0xb0),
    RGBColor(0xdd, 0x84, 0x52),
    RGBColor(0x55, 0xa8, 0x68),
    RGBColor(0xc4, 0x4e, 0x52),
    RGBColor(0x81, 0x72, 0xb3),
    RGBColor(0x93, 0x78, 0x60),
    RGBColor(0xda, 0x8b, 0xc3),
    RGBColor(0x8c, 0x8c, 0x8c),
];

/// The colour of the `i`-th series.
pub(crate) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The colour of the `i`-th series as CSS (`#rrggbb`), for the tables' keys.
pub(crate) fn css_colour(i: usize) -> String {
    let RGBColor(r, g, b) = colour(i);
    format!("#{r:02x}{g:02x}{b:02x}")
}

const FONT: &str = "sans-serif";
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = std::result::Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// Draws one SVG of `size` pixels into a string.
fn svg(plot: &str, size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Drawn) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        let drawn = root
            .fill(&WHITE)
            .map_err(Into::into)
            .and_then(|()| draw(&root))
            .and_then(|()| root.present().map_err(Into::into));
        drawn.map_err(|source| Error::Plot {
            plot: plot.to_owned(),
            source,
        })?;
    }
    Ok(out)
}

/// A run's short label on an axis: `#ID name`, cut to fit.
fn run_label(id: i64, name: &str) -> String {
    let name: String = name.chars().take(18).collect();
    format!("#{id} {name}")
}

/// One bar chart per metric that some run has a value of, named by metric.
pub(crate) fn metric_charts(comparison: &Comparison) -> Result<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    for metric in &comparison.metrics {
        let values: Vec<(String, f64)> = comparison
            .runs
            .iter()
            .filter_map(|r| {
                let v = r.values.get(metric).copied().flatten()?;
                v.is_finite().then(|| (run_label(r.id, &r.name), v))
            })
            .collect();
        if values.is_empty() {
            continue;
        }
        let chart = svg(&format!("metric-{metric}"), (440, 300), |root| {
            bars(root, metric_title(metric), &values)
        })?;
        out.push((*metric, chart));
    }
    Ok(out)
}

fn bars(root: &Area<'_>, title: &str, values: &[(String, f64)]) -> Drawn {
    let max = values.iter().map(|(_, v)| *v).fold(0.0_f64, f64::max);
    let min = values.iter().map(|(_, v)| *v).fold(0.0_f64, f64::min);
    let top = if max > 0.0 { max * 1.15 } else { 1.0 };
    let bottom = if min < 0.0 { min * 1.15 } else { 0.0 };
    let n = values.len();
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(56)
        .build_cartesian_2d(segments(n), bottom..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => values.get(*i).map(|(l, _)| l.clone()).unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&|v| short_number(*v))
        .light_line_style(WHITE)
        .label_style((FONT, 12))
        .draw()?;
    chart.draw_series(values.iter().enumerate().map(|(i, (_, v))| {
        let mut bar = Rectangle::new(
            [
                (SegmentValue::Exact(i), 0.0),
                (SegmentValue::Exact(i + 1), *v),
            ],
            colour(i).filled(),
        );
        bar.set_margin(0, 0, 14, 14);
        bar
    }))?;
    chart.draw_series(values.iter().enumerate().map(|(i, (_, v))| {
        Text::new(
            short_number(*v),
            (SegmentValue::CenterOf(i), *v),
            (FONT, 12)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Bottom)),
        )
    }))?;
    Ok(())
}

/// `n` categories on an axis, one segment each (plotters' segmented `0..n` has `n + 1`).
fn segments(n: usize) -> SegmentedCoord<RangedCoordusize> {
    (0..n.saturating_sub(1)).into_segmented()
}

/// A value as a bar's label: whole when large, else two decimals.
fn short_number(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The tokens of each query of each run: a box (quartiles) per run with every query as a dot.
/// `None` when no run has a result.
pub(crate) fn token_distribution(runs: &[ReportRun]) -> Result<Option<String>> {
    let series: Vec<(String, Vec<f32>)> = runs
        .iter()
        .filter(|r| !r.results.is_empty())
        .map(|r| {
            (
                run_label(r.run.id.0, &r.run.name),
                // Token counts stay far below f32's 2^24 exact integers per query.
                r.results.iter().map(|x| x.scores.tokens as f32).collect(),
            )
        })
        .collect();
    if series.is_empty() {
        return Ok(None);
    }
    svg("tokens", (640, 340), |root| token_boxes(root, &series)).map(Some)
}

fn token_boxes(root: &Area<'_>, series: &[(String, Vec<f32>)]) -> Drawn {
    let max = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0_f32, f32::max);
    let top = if max > 0.0 { max * 1.1 } else { 1.0 };
    let n = series.len();
    let mut chart = ChartBuilder::on(root)
        .caption("Tokens per query", (FONT, 18))
        .margin(12)
        .x_label_area_size(34)
        .y_label_area_size(64)
        .build_cartesian_2d(segments(n), 0.0_f32..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => series.get(*i).map(|(l, _)| l.clone()).unwrap_or_default(),
            _ => String::new(),
        })
        .y_desc("tokens")
        .y_label_formatter(&|v| short_number(f64::from(*v)))
        .light_line_style(WHITE)
        .label_style((FONT, 12))
        .draw()?;
    chart.draw_series(series.iter().enumerate().map(|(i, (_, tokens))| {
        let quartiles = Quartiles::new(tokens);
        Boxplot::new_vertical(SegmentValue::CenterOf(i), &quartiles)
            .width(40)
            .whisker_width(0.5)
            .style(colour(i))
    }))?;
    for (i, (_, tokens)) in series.iter().enumerate() {
        chart.draw_series(tokens.iter().map(|t| {
            Circle::new(
                (SegmentValue::CenterOf(i), *t),
                3,
                colour(i).mix(0.6).filled(),
            )
        }))?;
    }
    Ok(())
}

/// NDCG@k for k = 1.. of every stored retrieval result, one line each. `None` when there are
/// none.
pub(crate) fn ndcg_curves(results: &[StoredRetrieval]) -> Result<Option<String>> {
    let curves: Vec<(String, &[f64])> = results
        .iter()
        .filter(|r| !r.result.ndcg.is_empty())
        .map(|r| (retrieval_label(r), r.result.ndcg.as_slice()))
        .collect();
    if curves.is_empty() {
        return Ok(None);
    }
    svg("retrieval-ndcg", (640, 380), |root| lines(root, &curves)).map(Some)
}

/// A retrieval result's legend entry: `#ID dataset / method / docs`.
pub(crate) fn retrieval_label(r: &StoredRetrieval) -> String {
    format!(
        "#{} {} / {} / {}",
        r.id,
        r.result.dataset,
        r.result.method,
        r.result
            .doc_version
            .as_ref()
            .map_or_else(|| "original".to_owned(), ToString::to_string)
    )
}

fn lines(root: &Area<'_>, curves: &[(String, &[f64])]) -> Drawn {
    let k_max = curves.iter().map(|(_, c)| c.len()).max().unwrap_or(1);
    let mut chart = ChartBuilder::on(root)
        .caption("Retrieval: NDCG@k", (FONT, 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.5_f64..(k_max as f64 + 0.5), 0.0_f64..100.0)?;
    chart
        .configure_mesh()
        .x_labels(k_max)
        .x_label_formatter(&|k| format!("{k:.0}"))
        .x_desc("k")
        .y_desc("NDCG@k (%)")
        .light_line_style(WHITE)
        .label_style((FONT, 12))
        .draw()?;
    for (i, (label, curve)) in curves.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(
                LineSeries::new(
                    curve.iter().enumerate().map(|(k, v)| (k as f64 + 1.0, *v)),
                    c.stroke_width(2),
                )
                .point_size(3),
            )?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font((FONT, 12))
        .draw()?;
    Ok(())
}
