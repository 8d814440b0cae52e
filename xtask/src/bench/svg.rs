// SPDX-License-Identifier: MIT OR Apache-2.0
//! Standalone SVG plots, written by hand: line plots (linear or
//! logarithmic axes, several series with a legend, a Q1-Q3 band around
//! each, an optional grey reference line such as the ideal speedup) and
//! the mesh heatmap (one cell per tile, x to the right and y up as on the
//! chip, coloured by a value printed in the cell).
//!
//! Each series has its own colour, marker and dash pattern ([`style`]),
//! and markers are drawn hollow, so that series lying on top of each
//! other stay visible. A base-2 axis reads 1, 4, 16, ..., 1K, 4K, 1M
//! (binary prefixes); other axes read 10k, 1M (decimal ones).
//!
//! Why by hand rather than with a plotting crate: the files hold SVG
//! `<text>` that the viewer lays out, so nothing here measures glyphs.
//! plotters, the usual choice, lays text out itself, and so needs a font:
//! the system's, through fontconfig (a C library CI would have to
//! install), or one bundled and registered. These two plot kinds need a
//! few hundred lines of plain string writing, tested below.

use std::fmt::Write as _;

/// How an axis maps values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Evenly spaced values.
    Linear,
    /// Powers of the base evenly spaced (values must be positive).
    Log(f64),
}

impl Scale {
    fn map(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log(b) => v.max(f64::MIN_POSITIVE).ln() / b.ln(),
        }
    }
}

/// One point of a series; `lo`/`hi` bound its band (Q1 and Q3, say).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Where on the x axis.
    pub x: f64,
    /// The value.
    pub y: f64,
    /// The band's lower edge, if any.
    pub lo: Option<f64>,
    /// The band's upper edge, if any.
    pub hi: Option<f64>,
}

/// One line of a plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Its name in the legend.
    pub name: String,
    /// Its points, in x order.
    pub points: Vec<Point>,
}

/// A line plot.
#[derive(Debug, Clone, PartialEq)]
pub struct LinePlot {
    /// Above the plot.
    pub title: String,
    /// Under the x axis.
    pub x_label: String,
    /// Beside the y axis.
    pub y_label: String,
    /// The x axis.
    pub x_scale: Scale,
    /// The y axis.
    pub y_scale: Scale,
    /// The lines.
    pub series: Vec<Series>,
    /// A reference line drawn under them, grey and dashed, without markers
    /// or band (its points' bands are ignored), such as the ideal speedup.
    pub reference: Option<Series>,
}

/// The shape drawn at each point of a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// ○
    Circle,
    /// □
    Square,
    /// △
    TriangleUp,
    /// ◇
    Diamond,
    /// ▽
    TriangleDown,
    /// ×
    Cross,
    /// +
    Plus,
    /// ✳: a plus and a cross.
    Star,
}

/// How one series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Line, band and marker colour.
    pub colour: &'static str,
    /// The marker.
    pub marker: Marker,
    /// The line's `stroke-dasharray`; empty for a solid line.
    pub dash: &'static str,
    /// Whether the marker is filled (from the ninth series on) or hollow.
    pub filled: bool,
}

const MARKERS: [Marker; 8] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
    Marker::Star,
];

const DASHES: [&str; 8] = [
    "",
    "8 4",
    "2 3",
    "10 3 2 3",
    "14 4",
    "5 2 1 2 1 2",
    "4 6",
    "12 3 2 3 2 3",
];

/// The style of series `i`: the first eight differ from each other in
/// colour, marker and dash pattern each; the next eight repeat the
/// colours and markers, filled, each with another dash pattern than the
/// series of its colour.
pub fn style(i: usize) -> Style {
    Style {
        colour: PALETTE[i % PALETTE.len()],
        marker: MARKERS[i % MARKERS.len()],
        dash: DASHES[(i + i / DASHES.len()) % DASHES.len()],
        filled: (i / MARKERS.len()) % 2 == 1,
    }
}

/// `marker` centred on (x, y), about 9 pixels across, as an SVG element.
fn marker(style: Style, x: f64, y: f64) -> String {
    const R: f64 = 4.5;
    let (colour, fill) = (
        style.colour,
        if style.filled { style.colour } else { "none" },
    );
    let paint = format!(r#"fill="{fill}" stroke="{colour}" stroke-width="1.5""#);
    let lines = format!(r#"fill="none" stroke="{colour}" stroke-width="1.8""#);
    let d = R * 0.8;
    match style.marker {
        Marker::Circle => format!(r#"<circle cx="{x:.1}" cy="{y:.1}" r="{R}" {paint}/>"#),
        Marker::Square => format!(
            r#"<rect x="{:.1}" y="{:.1}" width="{}" height="{}" {paint}/>"#,
            x - d,
            y - d,
            2.0 * d,
            2.0 * d
        ),
        Marker::TriangleUp | Marker::TriangleDown => {
            let s = if style.marker == Marker::TriangleUp {
                1.0
            } else {
                -1.0
            };
            format!(
                r#"<path d="M{x:.1},{:.1}L{:.1},{:.1}L{:.1},{:.1}Z" {paint}/>"#,
                y - s * R * 1.1,
                x - R,
                y + s * R * 0.7,
                x + R,
                y + s * R * 0.7
            )
        }
        Marker::Diamond => format!(
            r#"<path d="M{x:.1},{:.1}L{:.1},{y:.1}L{x:.1},{:.1}L{:.1},{y:.1}Z" {paint}/>"#,
            y - R * 1.2,
            x + R,
            y + R * 1.2,
            x - R
        ),
        Marker::Cross => format!(
            r#"<path d="M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" {lines}/>"#,
            x - d,
            y - d,
            x + d,
            y + d,
            x - d,
            y + d,
            x + d,
            y - d
        ),
        Marker::Plus => format!(
            r#"<path d="M{:.1},{y:.1}H{:.1}M{x:.1},{:.1}V{:.1}" {lines}/>"#,
            x - R,
            x + R,
            y - R,
            y + R
        ),
        Marker::Star => format!(
            r#"<path d="M{:.1},{y:.1}H{:.1}M{x:.1},{:.1}V{:.1}M{:.1},{:.1}L{:.1},{:.1}M{:.1},{:.1}L{:.1},{:.1}" {lines}/>"#,
            x - R,
            x + R,
            y - R,
            y + R,
            x - d,
            y - d,
            x + d,
            y + d,
            x - d,
            y + d,
            x + d,
            y - d
        ),
    }
}

/// ` stroke-dasharray="..."` for a dashed style, nothing for a solid one.
fn dash_attribute(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    }
}

const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];
const W: f64 = 820.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 300.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

/// Text made safe inside SVG.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A number as a tick label: integers whole, others with up to 3
/// significant decimals, large ones with k/M/G.
pub fn label(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    if (scaled - scaled.round()).abs() < 1e-9 {
        format!("{}{suffix}", scaled.round())
    } else {
        let text = format!("{scaled:.3}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        format!("{text}{suffix}")
    }
}

/// A number with a binary prefix, for a base-2 axis: 512, 1K, 32K, 1M,
/// 1.5K; below 1024 as [`label`] writes it.
pub fn binary_label(v: f64) -> String {
    const UNITS: [(f64, &str); 4] = [
        (1_099_511_627_776.0, "T"),
        (1_073_741_824.0, "G"),
        (1_048_576.0, "M"),
        (1024.0, "K"),
    ];
    match UNITS.iter().find(|(u, _)| v.abs() >= *u) {
        Some(&(unit, prefix)) => {
            let text = format!("{:.3}", v / unit);
            let text = text.trim_end_matches('0').trim_end_matches('.');
            format!("{text}{prefix}")
        }
        None => label(v),
    }
}

/// A tick label on an axis of `scale`.
fn tick_label(scale: Scale, v: f64) -> String {
    match scale {
        Scale::Log(2.0) => binary_label(v),
        _ => label(v),
    }
}

/// Tick values for a range: powers of the base for a log axis (every
/// power, or every n-th one, the exponents multiples of n, for at most
/// 12 ticks), 1-2-5 steps for a linear one.
fn ticks(scale: Scale, lo: f64, hi: f64) -> Vec<f64> {
    match scale {
        Scale::Log(b) => {
            let (a, z) = (scale.map(lo).floor() as i32, scale.map(hi).ceil() as i32);
            let step = ((z - a + 10) / 11).max(1);
            let first = a.div_euclid(step) * step;
            (first..=z)
                .step_by(step as usize)
                .map(|e| b.powi(e))
                .collect()
        }
        Scale::Linear => {
            let span = (hi - lo).max(f64::MIN_POSITIVE);
            let raw = span / 5.0;
            let mag = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * mag)
                .find(|s| span / s <= 6.0)
                .unwrap_or(10.0 * mag);
            let first = (lo / step).floor() as i64;
            let last = (hi / step).ceil() as i64;
            (first..=last).map(|i| i as f64 * step).collect()
        }
    }
}

/// The plot as an SVG document.
pub fn line_plot(plot: &LinePlot) -> String {
    let points = plot
        .series
        .iter()
        .chain(&plot.reference)
        .flat_map(|s| &s.points);
    let xs: Vec<f64> = points.clone().map(|p| p.x).collect();
    let ys: Vec<f64> = plot
        .series
        .iter()
        .flat_map(|s| &s.points)
        .flat_map(|p| [Some(p.y), p.lo, p.hi])
        .flatten()
        .chain(
            plot.reference
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.y)),
        )
        .filter(|v| v.is_finite())
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        (LEFT + W - RIGHT) / 2.0,
        escape(&plot.title)
    );
    if xs.is_empty() || ys.is_empty() {
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle">no data</text></svg>"#,
            W / 2.0,
            H / 2.0
        );
        return out;
    }
    let range = |v: &[f64], scale: Scale, zero: bool| {
        let mut lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let mut hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if scale == Scale::Linear && zero {
            lo = lo.min(0.0);
        }
        if hi <= lo {
            hi = lo + if lo == 0.0 { 1.0 } else { lo.abs() };
        }
        let t = ticks(scale, lo, hi);
        match scale {
            Scale::Linear if zero => (t[0].min(lo), t[t.len() - 1].max(hi)),
            Scale::Linear => (lo, hi),
            Scale::Log(_) => (t[0].min(lo), t[t.len() - 1].max(hi)),
        }
    };
    let (x0, x1) = range(&xs, plot.x_scale, false);
    let (y0, y1) = range(&ys, plot.y_scale, true);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let sx = |v: f64| {
        let (a, b) = (plot.x_scale.map(x0), plot.x_scale.map(x1));
        LEFT + (plot.x_scale.map(v) - a) / (b - a) * pw
    };
    let sy = |v: f64| {
        let (a, b) = (plot.y_scale.map(y0), plot.y_scale.map(y1));
        TOP + ph - (plot.y_scale.map(v) - a) / (b - a) * ph
    };
    // Axes, grid and ticks.
    let _ = writeln!(
        out,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##
    );
    for t in ticks(plot.x_scale, x0, x1)
        .into_iter()
        .filter(|t| (x0..=x1).contains(t))
    {
        let x = sx(t);
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{}" stroke="#ddd"/><text x="{x:.1}" y="{}" text-anchor="middle">{}</text>"##,
            TOP + ph,
            TOP + ph + 16.0,
            tick_label(plot.x_scale, t)
        );
    }
    for t in ticks(plot.y_scale, y0, y1)
        .into_iter()
        .filter(|t| (y0..=y1).contains(t))
    {
        let y = sy(t);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            y + 4.0,
            tick_label(plot.y_scale, t)
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        LEFT + pw / 2.0,
        H - 18.0,
        escape(&plot.x_label)
    );
    let _ = writeln!(
        out,
        r#"<text transform="translate(18 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + ph / 2.0,
        escape(&plot.y_label)
    );
    // The reference line, then bands, lines, markers, legend.
    let legend_y = |i: usize| TOP + 10.0 + 18.0 * i as f64;
    let lx = W - RIGHT + 12.0;
    if let Some(r) = &plot.reference {
        let line: Vec<String> = r
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", sx(p.x), sy(p.y)))
            .collect();
        let _ = writeln!(
            out,
            r##"<polyline points="{}" fill="none" stroke="#777" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
            line.join(" ")
        );
    }
    for (i, s) in plot.series.iter().enumerate() {
        let style = style(i);
        let colour = style.colour;
        let band: Vec<&Point> = s
            .points
            .iter()
            .filter(|p| p.lo.is_some() && p.hi.is_some())
            .collect();
        if band.len() >= 2 {
            let upper = band.iter().map(|p| (sx(p.x), sy(p.hi.unwrap_or(p.y))));
            let lower = band
                .iter()
                .rev()
                .map(|p| (sx(p.x), sy(p.lo.unwrap_or(p.y))));
            let path: Vec<String> = upper
                .chain(lower)
                .map(|(x, y)| format!("{x:.1},{y:.1}"))
                .collect();
            let _ = writeln!(
                out,
                r#"<polygon points="{}" fill="{colour}" fill-opacity="0.12" stroke="none"/>"#,
                path.join(" ")
            );
        } else {
            // A single point: its band as an error bar.
            for p in &band {
                let (x, lo, hi) = (sx(p.x), sy(p.lo.unwrap_or(p.y)), sy(p.hi.unwrap_or(p.y)));
                let _ = writeln!(
                    out,
                    r#"<path d="M{:.1},{lo:.1}H{:.1}M{x:.1},{lo:.1}V{hi:.1}M{:.1},{hi:.1}H{:.1}" stroke="{colour}"/>"#,
                    x - 4.0,
                    x + 4.0,
                    x - 4.0,
                    x + 4.0
                );
            }
        }
    }
    for (i, s) in plot.series.iter().enumerate() {
        let style = style(i);
        let colour = style.colour;
        let dash = dash_attribute(style.dash);
        let line: Vec<String> = s
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", sx(p.x), sy(p.y)))
            .collect();
        let _ = writeln!(
            out,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.8"{dash}/>"#,
            line.join(" ")
        );
        for p in &s.points {
            let _ = writeln!(out, "{}", marker(style, sx(p.x), sy(p.y)));
        }
        let ly = legend_y(i);
        let _ = writeln!(
            out,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{colour}" stroke-width="1.8"{dash}/>{}<text x="{}" y="{}">{}</text>"#,
            lx + 28.0,
            marker(style, lx + 14.0, ly),
            lx + 34.0,
            ly + 4.0,
            escape(&s.name)
        );
    }
    let mut extra = plot.series.len();
    if let Some(r) = &plot.reference {
        let ly = legend_y(extra);
        let _ = writeln!(
            out,
            r##"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="#777" stroke-width="1.5" stroke-dasharray="6 4"/><text x="{}" y="{}">{}</text>"##,
            lx + 28.0,
            lx + 34.0,
            ly + 4.0,
            escape(&r.name)
        );
        extra += 1;
    }
    let has_band = plot
        .series
        .iter()
        .any(|s| s.points.iter().any(|p| p.lo.is_some()));
    if has_band {
        let ly = legend_y(extra) + 6.0;
        let _ = writeln!(
            out,
            r##"<rect x="{lx}" y="{}" width="28" height="10" fill="#888" fill-opacity="0.3"/><text x="{}" y="{}">Q1-Q3</text>"##,
            ly - 5.0,
            lx + 34.0,
            ly + 4.0
        );
    }
    out += "</svg>\n";
    out
}

/// A value per tile of a mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// Above the grid.
    pub title: String,
    /// Tiles along x.
    pub width: usize,
    /// Tiles along y.
    pub height: usize,
    /// One value per tile, index `x + width * y`.
    pub values: Vec<u64>,
    /// Labels drawn on tiles, `(x, y, text)`: the memory controllers.
    pub marks: Vec<(usize, usize, String)>,
    /// What the values are, under the grid.
    pub legend: String,
}

/// Bytes with a binary unit: `512 B`, `1.5 KiB`, `3.2 MiB`.
pub fn bytes(v: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = v as f64;
    let mut u = 0;
    while x >= 1024.0 && u < UNITS.len() - 1 {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// The heatmap as an SVG document: white for 0 to dark red for the largest
/// value, each cell showing its tile, value and marks.
pub fn heatmap(map: &Heatmap) -> String {
    const CELL_W: f64 = 110.0;
    const CELL_H: f64 = 80.0;
    const MARGIN: f64 = 50.0;
    let w = MARGIN * 2.0 + CELL_W * map.width as f64;
    let h = MARGIN + 40.0 + CELL_H * map.height as f64 + 50.0;
    let max = map.values.iter().copied().max().unwrap_or(0).max(1) as f64;
    let colour = |v: u64| {
        let t = (v as f64 / max).clamp(0.0, 1.0);
        // White (255,255,255) to dark red (150,0,0).
        let r = 255.0 - t * 105.0;
        let gb = 255.0 * (1.0 - t);
        (format!("rgb({:.0},{:.0},{:.0})", r, gb, gb), t > 0.55)
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        w / 2.0,
        escape(&map.title)
    );
    let top = MARGIN + 10.0;
    // Top row first: y grows upwards, as on the chip.
    for y in (0..map.height).rev() {
        let py = top + CELL_H * (map.height - 1 - y) as f64;
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{:.1}" text-anchor="end">y={y}</text>"#,
            MARGIN - 6.0,
            py + CELL_H / 2.0 + 4.0
        );
        for x in 0..map.width {
            let px = MARGIN + CELL_W * x as f64;
            let tile = x + map.width * y;
            let v = map.values.get(tile).copied().unwrap_or(0);
            let (fill, dark) = colour(v);
            let ink = if dark { "white" } else { "black" };
            let _ = writeln!(
                out,
                r##"<rect x="{px}" y="{py}" width="{CELL_W}" height="{CELL_H}" fill="{fill}" stroke="#555"/>"##
            );
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" fill="{ink}" font-size="10">tile {tile}</text>"#,
                px + 5.0,
                py + 13.0
            );
            let _ = writeln!(
                out,
                r#"<text x="{}" y="{}" fill="{ink}" text-anchor="middle" font-size="14">{}</text>"#,
                px + CELL_W / 2.0,
                py + CELL_H / 2.0 + 5.0,
                bytes(v)
            );
            let marks: Vec<&str> = map
                .marks
                .iter()
                .filter(|(mx, my, _)| (*mx, *my) == (x, y))
                .map(|(_, _, m)| m.as_str())
                .collect();
            if !marks.is_empty() {
                let _ = writeln!(
                    out,
                    r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#0050c8" stroke-width="3"/><text x="{}" y="{}" fill="{ink}" text-anchor="end" font-weight="bold" font-size="11">{}</text>"##,
                    px + 2.0,
                    py + 2.0,
                    CELL_W - 4.0,
                    CELL_H - 4.0,
                    px + CELL_W - 6.0,
                    py + CELL_H - 8.0,
                    escape(&marks.join(" "))
                );
            }
        }
    }
    let bottom = top + CELL_H * map.height as f64;
    for x in 0..map.width {
        let _ = writeln!(
            out,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">x={x}</text>"#,
            MARGIN + CELL_W * (x as f64 + 0.5),
            bottom + 16.0
        );
    }
    let _ = writeln!(
        out,
        r#"<text x="{MARGIN}" y="{}">{} (largest {})</text>"#,
        bottom + 38.0,
        escape(&map.legend),
        bytes(max as u64)
    );
    out += "</svg>\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_ticks_are_round() {
        assert_eq!(label(1024.0), "1024");
        assert_eq!(label(65536.0), "65.536k", "on a decimal axis");
        assert_eq!(label(2.5), "2.5");
        assert_eq!(label(1_000_000.0), "1M");
        assert_eq!(ticks(Scale::Log(2.0), 1.0, 8.0), [1.0, 2.0, 4.0, 8.0]);
        // 1 B to 1 MiB: every other power, landing on 1K and 1M.
        let sizes = ticks(Scale::Log(2.0), 1.0, 1_048_576.0);
        let labels: Vec<String> = sizes.iter().map(|&t| binary_label(t)).collect();
        assert_eq!(
            labels,
            [
                "1", "4", "16", "64", "256", "1K", "4K", "16K", "64K", "256K", "1M"
            ]
        );
        assert_eq!(
            ticks(Scale::Log(10.0), 3.0, 200.0),
            [1.0, 10.0, 100.0, 1000.0]
        );
        assert_eq!(
            ticks(Scale::Linear, 0.0, 10.0),
            [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
        );
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
    }

    #[test]
    fn powers_of_two_read_with_binary_prefixes() {
        let read = |v: f64| binary_label(v);
        assert_eq!(read(1024.0), "1K");
        assert_eq!(read(4096.0), "4K");
        assert_eq!(read(32_768.0), "32K");
        assert_eq!(read(262_144.0), "256K");
        assert_eq!(read(1_048_576.0), "1M");
        assert_eq!(read(1_073_741_824.0), "1G");
        assert_eq!(read(512.0), "512");
        assert_eq!(read(1536.0), "1.5K");
        assert_eq!(read(0.5), "0.5");
        assert_eq!(tick_label(Scale::Log(2.0), 32_768.0), "32K");
        assert_eq!(tick_label(Scale::Log(10.0), 1e6), "1M");
        assert_eq!(tick_label(Scale::Linear, 20_000.0), "20k");
        // A plot over 1 B to 1 MiB shows no decimal "k" on its x axis.
        let svg = line_plot(&LinePlot {
            title: "sizes".into(),
            x_label: "bytes".into(),
            y_label: "us".into(),
            x_scale: Scale::Log(2.0),
            y_scale: Scale::Linear,
            series: vec![Series {
                name: "s".into(),
                points: [1.0, 32_768.0, 1_048_576.0]
                    .map(|x| Point {
                        x,
                        y: 1.0,
                        lo: None,
                        hi: None,
                    })
                    .to_vec(),
            }],
            reference: None,
        });
        for tick in [">1K<", ">4K<", ">256K<", ">1M<"] {
            assert!(svg.contains(tick), "{tick}");
        }
        assert!(!svg.contains("k</text>") && !svg.contains("32.768"));
    }

    #[test]
    fn every_series_has_its_own_marker_and_dash_pattern() {
        let first: Vec<Style> = (0..8).map(style).collect();
        for (i, a) in first.iter().enumerate() {
            for b in &first[i + 1..] {
                assert_ne!(a.marker, b.marker);
                assert_ne!(a.dash, b.dash);
                assert_ne!(a.colour, b.colour);
            }
        }
        let all: Vec<Style> = (0..16).map(style).collect();
        for (i, a) in all.iter().enumerate() {
            assert!(!all[i + 1..].contains(a), "series {i} repeats");
        }
        for i in 8..16 {
            assert_ne!(all[i].dash, all[i - 8].dash, "series {i} and {}", i - 8);
            assert!(all[i].filled && !all[i - 8].filled);
        }
        // Seven series on one line, as put-bw's overlapping ones: each is
        // drawn with its own dash pattern and marker, hollow.
        let series: Vec<Series> = (0..7)
            .map(|i| Series {
                name: format!("s{i}"),
                points: vec![
                    Point {
                        x: 1.0,
                        y: 1.0,
                        lo: None,
                        hi: None,
                    },
                    Point {
                        x: 2.0,
                        y: 2.0,
                        lo: None,
                        hi: None,
                    },
                ],
            })
            .collect();
        let svg = line_plot(&LinePlot {
            title: "t".into(),
            x_label: String::new(),
            y_label: String::new(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series,
            reference: None,
        });
        for dash in &DASHES[1..7] {
            assert!(
                svg.contains(&format!("stroke-dasharray=\"{dash}\"")),
                "{dash}"
            );
        }
        assert_eq!(
            svg.matches("<circle").count(),
            3,
            "two points and the legend"
        );
        assert_eq!(
            svg.matches("<rect x=").count(),
            1 + 3,
            "the frame and squares"
        );
        assert!(!svg.contains("fill=\"#1f77b4\" stroke"), "hollow markers");
    }

    #[test]
    fn a_reference_line_is_drawn_grey_and_named() {
        let p = |x: f64, y: f64| Point {
            x,
            y,
            lo: None,
            hi: None,
        };
        let svg = line_plot(&LinePlot {
            title: "speedup".into(),
            x_label: "processes".into(),
            y_label: "speedup".into(),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: vec![Series {
                name: "run".into(),
                points: vec![p(1.0, 1.0), p(4.0, 2.0)],
            }],
            reference: Some(Series {
                name: "ideal".into(),
                points: vec![p(1.0, 1.0), p(4.0, 4.0)],
            }),
        });
        assert!(svg.contains(">ideal</text>"));
        assert_eq!(svg.matches("stroke=\"#777\"").count(), 2, "line and legend");
        // The y axis reaches the ideal line's 4: its end is at the top.
        let line = svg
            .lines()
            .find(|l| l.starts_with("<polyline") && l.contains("#777"))
            .unwrap();
        assert!(line.contains(&format!(",{TOP:.1}\"")), "{line}");
    }

    #[test]
    fn a_line_plot_has_every_series_its_band_and_a_legend() {
        let p = |x: f64, y: f64| Point {
            x,
            y,
            lo: Some(y - 1.0),
            hi: Some(y + 1.0),
        };
        let svg = line_plot(&LinePlot {
            title: "put <latency>".into(),
            x_label: "size (bytes)".into(),
            y_label: "latency (us)".into(),
            x_scale: Scale::Log(2.0),
            y_scale: Scale::Linear,
            series: vec![
                Series {
                    name: "fence".into(),
                    points: vec![p(1.0, 2.0), p(1024.0, 10.0)],
                },
                Series {
                    name: "pscw".into(),
                    points: vec![p(1.0, 3.0)],
                },
            ],
            reference: None,
        });
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>\n"));
        assert!(svg.contains("put &lt;latency&gt;"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<polygon").count(), 1, "the two-point band");
        assert!(svg.contains(">fence</text>") && svg.contains(">pscw</text>"));
        assert!(svg.contains(">Q1-Q3</text>"));
        assert!(svg.contains(">1K</text>"), "a log2 tick");
        let empty = line_plot(&LinePlot {
            series: vec![],
            ..LinePlot {
                title: "t".into(),
                x_label: String::new(),
                y_label: String::new(),
                x_scale: Scale::Linear,
                y_scale: Scale::Linear,
                series: vec![],
                reference: None,
            }
        });
        assert!(empty.contains("no data"));
    }

    #[test]
    fn the_heatmap_puts_y_up_and_marks_tiles() {
        let svg = heatmap(&Heatmap {
            title: "mesh".into(),
            width: 2,
            height: 2,
            values: vec![0, 10, 20, 2048],
            marks: vec![(1, 1, "MC0".into())],
            legend: "bytes".into(),
        });
        // Tile 2 (0,1) is drawn in the top row, tile 0 (0,0) in the bottom one.
        let top = svg.find(">tile 2<").unwrap();
        let bottom = svg.find(">tile 0<").unwrap();
        assert!(top < bottom);
        assert!(svg.contains(">2.0 KiB<") && svg.contains(">MC0<"));
        assert!(svg.contains("rgb(150,0,0)"), "the largest is darkest");
    }
}
