//! Charts drawn on this computer with `plotters`: the spec a model writes (checked field by
//! field so a bad one is refused with the field's name), and the drawing, once as a PNG for the
//! chat and once as an SVG. Text uses DejaVu Sans embedded in the binary, so a chart looks the
//! same on every machine and needs no system fonts.

use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::element::Pie;
use plotters::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Every chart's size in pixels.
pub const WIDTH: u32 = 1000;
pub const HEIGHT: u32 = 600;
const MAX_SERIES: usize = 12;
const MAX_POINTS: usize = 500;
const FONT: &str = "sans-serif";

/// What `charts_create` takes.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChartSpec {
    /// bar, line, pie or scatter.
    pub kind: ChartKind,
    /// The chart's title, such as "Spending by month".
    pub title: String,
    /// One or more named series of [x, y] points; x is a label ("Jan") or a number, y a number.
    /// A pie chart takes one series whose x are the slices' names.
    pub series: Vec<Series>,
    /// What the x axis shows.
    pub x_label: Option<String>,
    /// What the y axis shows.
    pub y_label: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChartKind {
    Bar,
    Line,
    Pie,
    Scatter,
}

#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// The series' name, shown in the legend.
    pub name: String,
    /// [x, y] pairs.
    pub points: Vec<(Xvalue, f64)>,
}

/// An x value: a label or a number.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Xvalue {
    Number(f64),
    Label(String),
}

impl Xvalue {
    fn label(&self) -> String {
        match self {
            Self::Label(text) => text.clone(),
            Self::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
            Self::Number(n) => format!("{n}"),
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Self::Number(n) => Some(*n),
            Self::Label(_) => None,
        }
    }
}

/// A drawn chart.
#[derive(Debug, Clone)]
pub struct RenderedChart {
    pub png: Vec<u8>,
    pub svg: String,
    pub width: u32,
    pub height: u32,
}

/// Why a chart was refused or not drawn, as the sentence the tool answers with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartError {
    /// The spec is wrong; the sentence names the field and what it must be.
    #[error("{0}")]
    Invalid(String),
    #[error("The chart could not be drawn. Try again with simpler data.")]
    NotDrawn,
}

/// Reads and checks a spec; the error names the field that is wrong.
pub fn parse(args: &Value) -> Result<ChartSpec, ChartError> {
    let spec: ChartSpec = serde_path_to_error::deserialize(args.clone()).map_err(|error| {
        let path = error.path().to_string();
        let field = match path.as_str() {
            "." => "chart".to_owned(),
            // A point is [x, y]: its second item is its y.
            _ => match path.strip_suffix("[1]").filter(|p| p.ends_with(']')) {
                Some(point) => format!("{point} y"),
                None => match path.strip_suffix("[0]").filter(|p| p.ends_with(']')) {
                    Some(point) => format!("{point} x"),
                    None => path,
                },
            },
        };
        ChartError::Invalid(format!(
            "The chart's {field} {}.",
            problem(&error.inner().to_string())
        ))
    })?;
    check(&spec)?;
    Ok(spec)
}

/// serde's message, in words a model can act on.
fn problem(inner: &str) -> String {
    if inner.contains("expected f64") {
        "must be a number".to_owned()
    } else if inner.contains("unknown variant") {
        "must be bar, line, pie or scatter".to_owned()
    } else if let Some(field) = inner
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        format!("needs `{field}`")
    } else if inner.contains("invalid length") || inner.contains("expected a tuple") {
        "must be a pair [x, y]".to_owned()
    } else if inner.contains("did not match any variant") {
        "must be a label or a number".to_owned()
    } else {
        format!("is not right: {inner}")
    }
}

fn check(spec: &ChartSpec) -> Result<(), ChartError> {
    if spec.title.trim().is_empty() {
        return Err(ChartError::Invalid(
            "The chart's title is empty; give it one.".to_owned(),
        ));
    }
    if spec.series.is_empty() {
        return Err(ChartError::Invalid(
            "The chart's series is empty; give at least one series with points.".to_owned(),
        ));
    }
    if spec.series.len() > MAX_SERIES {
        return Err(ChartError::Invalid(format!(
            "The chart's series has {} series; a chart shows at most {MAX_SERIES}.",
            spec.series.len()
        )));
    }
    for (i, series) in spec.series.iter().enumerate() {
        if series.points.is_empty() {
            return Err(ChartError::Invalid(format!(
                "The chart's series[{i}].points is empty; give it [x, y] pairs."
            )));
        }
        if series.points.len() > MAX_POINTS {
            return Err(ChartError::Invalid(format!(
                "The chart's series[{i}].points has {} points; a series takes at most {MAX_POINTS}.",
                series.points.len()
            )));
        }
        for (j, (x, y)) in series.points.iter().enumerate() {
            if !y.is_finite() {
                return Err(ChartError::Invalid(format!(
                    "The chart's series[{i}].points[{j}] y must be a finite number."
                )));
            }
            if spec.kind == ChartKind::Scatter && x.number().is_none_or(|n| !n.is_finite()) {
                return Err(ChartError::Invalid(format!(
                    "The chart's series[{i}].points[{j}] x must be a number in a scatter chart."
                )));
            }
            if spec.kind == ChartKind::Pie && *y < 0.0 {
                return Err(ChartError::Invalid(format!(
                    "The chart's series[{i}].points[{j}] y can't be negative in a pie chart."
                )));
            }
        }
    }
    if spec.kind == ChartKind::Pie {
        if spec.series.len() != 1 {
            return Err(ChartError::Invalid(
                "The chart's series must be exactly one series for a pie chart.".to_owned(),
            ));
        }
        if spec.series[0].points.iter().map(|(_, y)| y).sum::<f64>() <= 0.0 {
            return Err(ChartError::Invalid(
                "The chart's series[0].points add up to nothing; a pie needs some positive values."
                    .to_owned(),
            ));
        }
    }
    Ok(())
}

/// A file name for a chart: its title in lower-case words and the time it was drawn.
pub fn file_stem(title: &str, at: chrono::DateTime<chrono::Utc>) -> String {
    let mut slug = String::new();
    for c in title.trim().to_lowercase().chars() {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.chars().count() >= 40 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "chart" } else { slug };
    format!("{slug}-{}", at.format("%Y%m%d-%H%M%S%3f"))
}

static FONT_ONCE: Once = Once::new();

fn register_font() {
    FONT_ONCE.call_once(|| {
        for (style, bytes) in [
            (FontStyle::Normal, dejavu::sans::regular()),
            (FontStyle::Bold, dejavu::sans::bold()),
        ] {
            if plotters::style::register_font(FONT, style, bytes).is_err() {
                tracing::error!("the embedded chart font could not be read");
            }
        }
    });
}

/// Draws a checked spec as a PNG and an SVG of [`WIDTH`] × [`HEIGHT`].
pub fn render(spec: &ChartSpec) -> Result<RenderedChart, ChartError> {
    check(spec)?;
    register_font();
    let mut pixels = vec![0u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, spec)?;
        root.present().map_err(failed)?;
    }
    let image =
        image::RgbImage::from_raw(WIDTH, HEIGHT, pixels).ok_or_else(|| failed("buffer size"))?;
    let mut png = Vec::new();
    image
        .write_to(
            &mut std::io::Cursor::new(&mut png),
            image::ImageOutputFormat::Png,
        )
        .map_err(failed)?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, spec)?;
        root.present().map_err(failed)?;
    }
    Ok(RenderedChart {
        png,
        svg,
        width: WIDTH,
        height: HEIGHT,
    })
}

fn failed(error: impl std::fmt::Debug) -> ChartError {
    tracing::warn!(?error, "a chart could not be drawn");
    ChartError::NotDrawn
}

/// Calm colours that tell series apart and keep white text readable on pie slices.
const COLOURS: [RGBColor; 8] = [
    RGBColor(37, 99, 235),
    RGBColor(234, 88, 12),
    RGBColor(22, 163, 74),
    RGBColor(147, 51, 234),
    RGBColor(220, 38, 38),
    RGBColor(13, 148, 136),
    RGBColor(202, 138, 4),
    RGBColor(219, 39, 119),
];
const INK: RGBColor = RGBColor(31, 41, 55);

fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
) -> Result<(), ChartError> {
    root.fill(&WHITE).map_err(failed)?;
    match spec.kind {
        ChartKind::Pie => pie(root, spec),
        ChartKind::Bar => bars(root, spec),
        ChartKind::Line | ChartKind::Scatter => xy(root, spec),
    }
}

/// The x labels of every series in the order they first appear.
fn categories(spec: &ChartSpec) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for (x, _) in spec.series.iter().flat_map(|s| &s.points) {
        let label = x.label();
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    labels
}

/// The y axis' range: every value with a margin, from zero for bars.
fn y_range(spec: &ChartSpec, from_zero: bool) -> std::ops::Range<f64> {
    let values = spec
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|(_, y)| *y));
    let (mut lo, mut hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    if from_zero {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
    let low = if from_zero && lo >= 0.0 {
        0.0
    } else {
        lo - span * 0.08
    };
    low..hi + span * 0.08
}

/// Axis numbers as people write them: "500", "2.5".
fn number_label(value: &f64) -> String {
    Xvalue::Number((value * 1000.0).round() / 1000.0).label()
}

fn label_at(labels: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() > 0.01 || i < 0.0 {
        return String::new();
    }
    labels.get(i as usize).cloned().unwrap_or_default()
}

fn bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
) -> Result<(), ChartError> {
    let labels = categories(spec);
    let count = labels.len();
    let mut chart = ChartBuilder::on(root)
        .caption(spec.title.trim(), (FONT, 28).into_font().color(&INK))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..(count as f64 - 0.5), y_range(spec, true))
        .map_err(failed)?;
    let formatter = |x: &f64| label_at(&labels, *x);
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh()
        .x_labels(count + 1)
        .x_label_formatter(&formatter);
    axis_words(&mut mesh, spec);
    mesh.draw().map_err(failed)?;
    let width = 0.8 / spec.series.len() as f64;
    for (s, series) in spec.series.iter().enumerate() {
        let fill = colour(s);
        let rectangles = series.points.iter().filter_map(|(x, y)| {
            let at = labels.iter().position(|l| *l == x.label())? as f64;
            let left = at - 0.4 + s as f64 * width;
            Some(Rectangle::new(
                [(left, 0.0), (left + width * 0.92, *y)],
                fill.filled(),
            ))
        });
        chart
            .draw_series(rectangles)
            .map_err(failed)?
            .label(series.name.trim())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], fill.filled()));
    }
    legend(&mut chart, spec)
}

fn xy<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
) -> Result<(), ChartError> {
    let numeric = spec
        .series
        .iter()
        .flat_map(|s| &s.points)
        .all(|(x, _)| x.number().is_some_and(f64::is_finite));
    let labels = if numeric {
        Vec::new()
    } else {
        categories(spec)
    };
    let position = |x: &Xvalue| -> Option<f64> {
        if numeric {
            x.number()
        } else {
            labels
                .iter()
                .position(|l| *l == x.label())
                .map(|i| i as f64)
        }
    };
    let x_range = if numeric {
        let xs = spec
            .series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|(x, _)| x.number()));
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        let pad = if hi > lo { (hi - lo) * 0.05 } else { 1.0 };
        lo - pad..hi + pad
    } else {
        -0.5..(labels.len() as f64 - 0.5)
    };
    let mut chart = ChartBuilder::on(root)
        .caption(spec.title.trim(), (FONT, 28).into_font().color(&INK))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(x_range, y_range(spec, false))
        .map_err(failed)?;
    let formatter = |x: &f64| {
        if numeric {
            number_label(x)
        } else {
            label_at(&labels, *x)
        }
    };
    let mut mesh = chart.configure_mesh();
    if !numeric {
        mesh.x_labels(labels.len() + 1);
    }
    mesh.x_label_formatter(&formatter);
    axis_words(&mut mesh, spec);
    mesh.draw().map_err(failed)?;
    for (s, series) in spec.series.iter().enumerate() {
        let stroke = colour(s);
        let points: Vec<(f64, f64)> = series
            .points
            .iter()
            .filter_map(|(x, y)| Some((position(x)?, *y)))
            .collect();
        let drawn = if spec.kind == ChartKind::Line {
            chart
                .draw_series(LineSeries::new(points.clone(), stroke.stroke_width(3)))
                .map_err(failed)?;
            chart
                .draw_series(points.iter().map(|p| Circle::new(*p, 4, stroke.filled())))
                .map_err(failed)?
        } else {
            chart
                .draw_series(
                    points
                        .iter()
                        .map(|p| Circle::new(*p, 6, stroke.mix(0.8).filled())),
                )
                .map_err(failed)?
        };
        drawn
            .label(series.name.trim())
            .legend(move |(x, y)| Circle::new((x + 7, y), 6, stroke.filled()));
    }
    legend(&mut chart, spec)
}

/// What every chart's axes say and how they look: the axis names, plain numbers, a light grid.
fn axis_words<DB: DrawingBackend>(
    mesh: &mut plotters::chart::MeshStyle<'_, '_, RangedCoordf64, RangedCoordf64, DB>,
    spec: &ChartSpec,
) {
    mesh.x_desc(spec.x_label.clone().unwrap_or_default())
        .y_desc(spec.y_label.clone().unwrap_or_default())
        .y_label_formatter(&number_label)
        .light_line_style(RGBColor(243, 244, 246))
        .label_style((FONT, 16).into_font().color(&INK))
        .axis_desc_style((FONT, 18).into_font().color(&INK));
}

fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    spec: &ChartSpec,
) -> Result<(), ChartError> {
    if spec.series.len() < 2 {
        return Ok(());
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(INK.mix(0.3))
        .label_font((FONT, 16).into_font().color(&INK))
        .draw()
        .map_err(failed)
}

fn pie<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    spec: &ChartSpec,
) -> Result<(), ChartError> {
    let area = root
        .margin(16, 16, 16, 16)
        .titled(spec.title.trim(), (FONT, 28).into_font().color(&INK))
        .map_err(failed)?;
    let (width, height) = area.dim_in_pixel();
    let center = (width as i32 / 2, height as i32 / 2);
    let radius = f64::from(width.min(height)) * 0.38;
    let points = &spec.series[0].points;
    let sizes: Vec<f64> = points.iter().map(|(_, y)| *y).collect();
    let labels: Vec<String> = points.iter().map(|(x, _)| x.label()).collect();
    let colours: Vec<RGBColor> = (0..points.len()).map(colour).collect();
    let mut pie = Pie::new(&center, &radius, &sizes, &colours, &labels);
    pie.start_angle(-90.0);
    pie.label_style((FONT, 18).into_font().color(&INK));
    pie.percentages((FONT, 16).into_font().color(&WHITE));
    area.draw(&pie).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(kind: &str, series: Value) -> Value {
        json!({"kind": kind, "title": "Spending by month", "series": series, "x_label": "Month", "y_label": "€"})
    }

    /// Decodes the PNG and counts the colours in it: a blank chart has one.
    fn colours_in(png: &[u8]) -> (u32, u32, usize) {
        let image = image::load_from_memory_with_format(png, image::ImageFormat::Png)
            .expect("should work")
            .to_rgb8();
        let mut seen = std::collections::HashSet::new();
        for pixel in image.pixels() {
            seen.insert(pixel.0);
        }
        (image.width(), image.height(), seen.len())
    }

    #[test]
    fn each_kind_draws_a_picture_of_the_right_size() {
        let months = json!([
            {"name": "2025", "points": [["Jan", 420.5], ["Feb", 380], ["Mar", 510]]},
            {"name": "2026", "points": [["Jan", 400], ["Feb", 450], ["Mar", 300]]}
        ]);
        let scatter = json!([{"name": "Runs", "points": [[1.5, 20], [3, 35.5], [5, 41], [-2, 3]]}]);
        let slices =
            json!([{"name": "Share", "points": [["Rent", 1200], ["Food", 450], ["Fun", 200]]}]);
        for (kind, series) in [
            ("bar", &months),
            ("line", &months),
            ("scatter", &scatter),
            ("pie", &slices),
        ] {
            let chart = render(&parse(&spec(kind, series.clone())).expect("should work"))
                .expect("should work");
            let (width, height, colours) = colours_in(&chart.png);
            assert_eq!((width, height), (WIDTH, HEIGHT), "{kind}");
            assert!(colours > 20, "{kind} drew only {colours} colours");
            assert!(
                chart.svg.starts_with("<svg") && chart.svg.contains("Spending by month"),
                "{kind}"
            );
            // The chart's own colours are in the picture, not only text and axes.
            assert!(
                chart.svg.contains("#2563EB") || chart.svg.contains("#2563eb"),
                "{kind}"
            );
        }
    }

    #[test]
    fn bad_data_is_refused_naming_the_field() {
        let refused = |value: Value| parse(&value).expect_err("should be refused").to_string();
        assert_eq!(
            refused(spec(
                "bar",
                json!([{"name": "a", "points": [["Jan", "lots"]]}])
            )),
            "The chart's series[0].points[0] y must be a number."
        );
        assert!(
            refused(spec("donut", json!([])))
                .starts_with("The chart's kind must be bar, line, pie or scatter")
        );
        assert_eq!(
            refused(spec("line", json!([{"name": "a", "points": []}]))),
            "The chart's series[0].points is empty; give it [x, y] pairs."
        );
        assert!(
            refused(spec(
                "scatter",
                json!([{"name": "a", "points": [["Jan", 1]]}])
            ))
            .contains("series[0].points[0] x must be a number")
        );
        assert!(
            refused(spec("pie", json!([{"name": "a", "points": [["x", -1]]}])))
                .contains("can't be negative")
        );
        assert!(refused(json!({"kind": "bar", "series": []})).contains("needs `title`"));
        assert!(
            refused(spec("bar", json!([{"name": "a", "points": [["Jan"]]}])))
                .contains("series[0].points[0]")
        );
    }

    #[test]
    fn file_names_come_from_the_title() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-12-02T10:20:30.456Z")
            .expect("should work")
            .to_utc();
        assert_eq!(
            file_stem("Spending by month (€)!", at),
            "spending-by-month-20261202-102030456"
        );
        assert_eq!(file_stem("../../", at), "chart-20261202-102030456");
    }
}
