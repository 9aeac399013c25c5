//! Reading `dqview report`'s page in the tests: sections, table cells, rows and pictures.

use base64::prelude::{BASE64_STANDARD, Engine as _};

/// The sections every report has, by their `id`, in page order: what matters first.
pub const SECTIONS: [&str; 10] = [
    "summary",
    "worst-regions",
    "recommendations",
    "volume",
    "flips",
    "influences",
    "blend-fit",
    "scales",
    "checks",
    "timing",
];

/// The text of the table cell after the header `key` (rows written by the report as `<th>key</th><td>value</td>`).
pub fn cell(html: &str, key: &str) -> String {
    let start = format!("<th>{key}</th><td>");
    let at = html
        .find(&start)
        .unwrap_or_else(|| panic!("no row `{key}`"))
        + start.len();
    let rest = &html[at..];
    rest[..rest.find("</td>").expect("cell end")].to_string()
}

/// The two percentages after a blend-fit row's label.
pub fn fit_row(html: &str, label: &str) -> (f64, f64) {
    let start = format!("<tr><td>{label}</td><td class=\"n\">");
    let at = html
        .find(&start)
        .unwrap_or_else(|| panic!("no fit row {label}"))
        + start.len();
    let mut numbers = html[at..].split("%").take(2).map(|s| {
        s.rsplit('>')
            .next()
            .unwrap_or(s)
            .trim()
            .parse::<f64>()
            .expect("a percentage")
    });
    (numbers.next().expect("max"), numbers.next().expect("mean"))
}

/// The (region, ratio in `mode`) rows of `mode`'s table under the heading starting `which`
/// (`Loses the most` or `Grows the most`) in the worst regions section.
pub fn worst_rows(html: &str, mode: &str, which: &str) -> Vec<(String, f64)> {
    let worst = section(html, "worst-regions");
    let column = ["LBS", "DQS", "Hybrid", "CoR"]
        .iter()
        .position(|m| mode.starts_with(m))
        .expect("a mode");
    let at = worst
        .find(&format!("<h3>{mode}</h3>"))
        .unwrap_or_else(|| panic!("no {mode} heading"));
    let table = &worst[at..];
    let at = table
        .find(&format!("<h4>{which}"))
        .unwrap_or_else(|| panic!("no {which} under {mode}"));
    let table = &table[at..];
    let end = table[4..].find("<h").map_or(table.len(), |e| e + 4);
    table[..end]
        .split("<tr><td>")
        .skip(1)
        .map(|row| {
            let name = row.split('<').next().expect("name").to_string();
            let ratio = row
                .split("<td class=\"n")
                .nth(2 + column)
                .and_then(|c| c.split('>').nth(1))
                .and_then(|c| c.split('<').next())
                .and_then(|c| c.parse::<f64>().ok())
                .unwrap_or_else(|| panic!("a ratio in {row}"));
            (name, ratio)
        })
        .collect()
}

/// The page's text between the `id` of section `from` and that of the next section.
pub fn section<'a>(html: &'a str, from: &str) -> &'a str {
    let k = SECTIONS.iter().position(|s| *s == from).expect("a section");
    let start = html.find(&format!("id=\"{from}\"")).expect("section");
    let end = SECTIONS
        .get(k + 1)
        .and_then(|next| html.find(&format!("id=\"{next}\"")))
        .unwrap_or(html.len());
    &html[start..end]
}

/// Width and height of the PNG in a `data:image/png;base64,` URI that starts `text`.
pub fn png_size(text: &str) -> (u32, u32) {
    let data = text
        .split("data:image/png;base64,")
        .nth(1)
        .and_then(|d| d.split('"').next())
        .expect("a PNG data URI");
    // The IHDR's width and height are bytes 16..24: the first 32 base64 characters hold them.
    let bytes = BASE64_STANDARD
        .decode(&data.as_bytes()[..32])
        .expect("base64 PNG data");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}
