//! The report's plots, as inline SVG drawn with plotters' SVG backend: text stays text (the
//! browser sets it, no font is embedded or needed at build time), and the file opens offline.
//! Every plot is wrapped in a `<figure class="plot" data-marks="N">`, N the data marks drawn
//! (points, bars, curves), so a reader — and the browser test — can tell an empty plot from a
//! drawn one.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A plot that could not be drawn: plotters' error in words (it only fails on a range it
/// cannot lay out, which the callers avoid; the report shows the words instead of the plot).
pub(crate) type PlotError = String;

const BLUE_: RGBColor = RGBColor(31, 119, 180);
const ORANGE_: RGBColor = RGBColor(255, 127, 14);
/// Curve colours (the Tableau 10 palette: distinct for the colour-blind too).
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn figure(svg: String, marks: usize, caption: &str) -> String {
    figure_with(svg, marks, "", caption)
}

/// [`figure`] with HTML between the plot and its caption (a legend).
fn figure_with(svg: String, marks: usize, between: &str, caption: &str) -> String {
    format!(
        "<figure class=\"plot\" data-marks=\"{marks}\">{svg}{between}<figcaption>{}</figcaption></figure>",
        super::html::escape(caption)
    )
}

/// Gives the `n`-th `<circle …/>` of `svg` (the points, drawn in order: the mesh has none) a
/// `<title>`: the browser shows it when the pointer rests on the point.
fn titled_circles(svg: &str, titles: &[String]) -> String {
    let mut out =
        String::with_capacity(svg.len() + titles.iter().map(|t| t.len() + 20).sum::<usize>());
    let mut rest = svg;
    let mut titles = titles.iter();
    while let Some(at) = rest.find("<circle") {
        let Some(end) = rest[at..].find("/>").map(|e| at + e) else {
            break;
        };
        out.push_str(&rest[..end]);
        match titles.next() {
            Some(t) => {
                out.push_str("><title>");
                out.push_str(&super::html::escape(t));
                out.push_str("</title></circle>");
            }
            None => out.push_str("/>"),
        }
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

fn draw(
    size: (u32, u32),
    paint: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), PlotError>,
) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        paint(&root)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// A tick of a log axis: `1`, `10`, `1 000`, `0.01` (not `10.0`).
fn log_tick(x: &f64) -> String {
    if *x >= 1.0 {
        super::html::group(x.round() as u64)
    } else {
        format!("{x}")
    }
}

/// A tick of a linear axis of counts: whole numbers only (a tick between two is left
/// blank, so a small range does not read `0 0 1 1 2`).
fn count_tick(x: &f64) -> String {
    if (x - x.round()).abs() < 1e-9 && *x >= 0.0 {
        super::html::group(x.round() as u64)
    } else {
        String::new()
    }
}

/// The upper end of a log axis holding `max`: the next power of ten (at least 10).
fn log_top(max: f64) -> f64 {
    10f64.powf(max.max(1.0).log10().floor() + 1.0).max(10.0)
}

/// A log-log scatter of `(x, y)` points (each above 0), e.g. one point per site, each titled
/// with its name (shown when the pointer rests on it).
pub(crate) fn scatter(
    points: &[(f64, f64)],
    names: &[String],
    x_desc: &str,
    y_desc: &str,
    caption: &str,
) -> Result<String, PlotError> {
    let xmax = log_top(points.iter().map(|p| p.0).fold(1.0, f64::max));
    let ymax = log_top(points.iter().map(|p| p.1).fold(1.0, f64::max));
    let svg = draw((520, 380), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((1f64..xmax).log_scale(), (1f64..ymax).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&log_tick)
            .y_label_formatter(&log_tick)
            .max_light_lines(0)
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| Circle::new(p, 3, BLUE_.mix(0.6).filled())),
            )
            .map_err(|e| e.to_string())?;
        Ok(())
    })?;
    Ok(figure(titled_circles(&svg, names), points.len(), caption))
}

/// A bar per level: pages at each level, level 0 first.
pub(crate) fn levels(pages: &[u64], caption: &str) -> Result<String, PlotError> {
    let svg = level_bars((420, 260), &[pages])?;
    Ok(figure(svg, pages.len(), caption))
}

/// In- and out-degree distributions on log-log axes: `(degree, pages)` points of each.
pub(crate) fn degrees(
    in_deg: &[(f64, f64)],
    out_deg: &[(f64, f64)],
    caption: &str,
) -> Result<String, PlotError> {
    let all = in_deg.iter().chain(out_deg);
    let xmax = log_top(all.clone().map(|p| p.0).fold(1.0, f64::max));
    let ymax = log_top(all.map(|p| p.1).fold(1.0, f64::max));
    // Binned counts (a mean per degree) can fall below 1.
    let ymin = in_deg
        .iter()
        .chain(out_deg)
        .map(|p| p.1)
        .fold(1.0, f64::min)
        .max(1e-6);
    let ymin = 10f64.powf(ymin.log10().floor());
    let svg = draw((420, 300), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d((1f64..xmax).log_scale(), (ymin..ymax).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .x_desc("links (degree)")
            // Above 100 a point is a bin's mean: pages per degree, which can be below 1.
            .y_desc("pages per degree")
            .x_label_formatter(&log_tick)
            .y_label_formatter(&log_tick)
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(in_deg.iter().map(|&p| Circle::new(p, 3, BLUE_.filled())))
            .map_err(|e| e.to_string())?
            .label("in")
            .legend(|(x, y)| Circle::new((x, y), 3, BLUE_.filled()));
        chart
            .draw_series(
                out_deg
                    .iter()
                    .map(|&p| TriangleMarker::new(p, 4, ORANGE_.filled())),
            )
            .map_err(|e| e.to_string())?
            .label("out")
            .legend(|(x, y)| TriangleMarker::new((x, y), 4, ORANGE_.filled()));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| e.to_string())?;
        Ok(())
    })?;
    Ok(figure(svg, in_deg.len() + out_deg.len(), caption))
}

/// Cumulative curves, one per named series, e.g. each site's reward against pages fetched
/// (the BeeBot yield curves), on a log y axis (one rich site does not flatten the others;
/// a curve starts where it reaches 1). A legend below the plot, where it covers no curve,
/// when there are few enough to tell apart.
pub(crate) fn curves(
    series: &[(String, Vec<(u64, u64)>)],
    x_desc: &str,
    y_desc: &str,
    caption: &str,
) -> Result<String, PlotError> {
    let xmax = series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let ymax = log_top(
        series
            .iter()
            .flat_map(|s| s.1.iter().map(|p| p.1))
            .max()
            .unwrap_or(1) as f64,
    );
    let svg = draw((620, 400), |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..xmax, (1f64..ymax).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&count_tick)
            // Powers of ten only: plotters' log ticks 2…9 crowd a short axis.
            .y_label_formatter(&|y: &f64| {
                if (y.log10() - y.log10().round()).abs() < 1e-9 {
                    log_tick(y)
                } else {
                    String::new()
                }
            })
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, (_, points)) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(
                    points
                        .iter()
                        .filter(|p| p.1 >= 1)
                        .map(|&(x, y)| (x as f64, y as f64)),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    })?;
    let legend = legend(series.iter().map(|(name, _)| name.as_str()));
    Ok(figure_with(svg, series.len(), &legend, caption))
}

/// Bars of pages per level, a group per level with a bar per series (in palette order).
fn level_bars(size: (u32, u32), series: &[&[u64]]) -> Result<String, PlotError> {
    let levels = series.iter().map(|v| v.len()).max().unwrap_or(0).max(1);
    // One site's bars carry their counts: the first levels of a big site are a few pages
    // beside tens of thousands, too low to see (issue 68).
    let counted = series.len() == 1 && levels <= MAX_COUNTED_LEVELS;
    let top = series
        .iter()
        .flat_map(|v| v.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1) as f64
        * if counted { 1.16 } else { 1.08 };
    let width = 0.76 / series.len().max(1) as f64;
    draw(size, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .x_labels(levels.clamp(2, 16))
            .x_label_formatter(&count_tick)
            .y_label_formatter(&count_tick)
            .x_desc("level")
            .y_desc("pages")
            .draw()
            .map_err(|e| e.to_string())?;
        for (s, pages) in series.iter().enumerate() {
            let color = PALETTE[s % PALETTE.len()];
            chart
                .draw_series(pages.iter().enumerate().map(|(l, &c)| {
                    let x = l as f64 - 0.38 + width * s as f64;
                    Rectangle::new([(x, 0.0), (x + width, c as f64)], color.filled())
                }))
                .map_err(|e| e.to_string())?;
        }
        if counted {
            let style = ("sans-serif", 10)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Bottom));
            chart
                .draw_series(series[0].iter().enumerate().map(|(l, &c)| {
                    Text::new(
                        super::html::group(c),
                        (l as f64, c as f64 + top * 0.01),
                        style.clone(),
                    )
                }))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    })
}

/// Levels up to which one site's bars are labelled with their counts (more would crowd).
const MAX_COUNTED_LEVELS: usize = 20;

/// A legend naming each series in its palette colour (none past the palette's ten).
fn legend<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    if names.len() > PALETTE.len() {
        return String::new();
    }
    let items: String = names
        .enumerate()
        .map(|(i, name)| {
            let RGBColor(r, g, b) = PALETTE[i];
            format!(
                "<li><span style=\"background:rgb({r},{g},{b})\"></span>{}</li>",
                super::html::escape(name)
            )
        })
        .collect();
    format!("<ul class=\"legend\">{items}</ul>")
}

/// Pages per level of several crawls side by side: a group of bars per level, a bar per
/// crawl in its palette colour, level 0 first.
pub(crate) fn levels_side_by_side(
    series: &[(String, Vec<u64>)],
    caption: &str,
) -> Result<String, PlotError> {
    let bars: Vec<&[u64]> = series.iter().map(|(_, v)| v.as_slice()).collect();
    let svg = level_bars((560, 280), &bars)?;
    let marks = series.iter().map(|(_, v)| v.len()).sum();
    let legend = legend(series.iter().map(|(name, _)| name.as_str()));
    Ok(figure_with(svg, marks, &legend, caption))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_points_carry_their_names_and_curves_a_legend_below() {
        let names = vec!["a.test: 3 pages".to_owned(), "b & c".to_owned()];
        let html = scatter(&[(3.0, 5.0), (40.0, 90.0)], &names, "pages", "links", "c").unwrap();
        assert_eq!(html.matches("<title>").count(), 2, "{html}");
        assert!(html.contains("<title>a.test: 3 pages</title></circle>"));
        assert!(html.contains("<title>b &amp; c</title>"));
        let series = vec![
            ("rich".to_owned(), vec![(0, 0), (10, 5_000)]),
            ("poor".to_owned(), vec![(0, 0), (1, 1), (10, 3)]),
        ];
        let html = curves(&series, "pages", "reward", "c").unwrap();
        assert!(html.contains("<ul class=\"legend\"><li>"), "{html}");
        assert!(
            html.contains("rgb(255,127,14)\"></span>poor</li>"),
            "{html}"
        );
        assert!(html.contains("data-marks=\"2\""));
    }
}
