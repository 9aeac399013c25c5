//! The guard before a report page is written: no number on it may read NaN or infinity.
//!
//! Rust prints a non-finite float as `NaN`, `inf` or `-inf`; the page is scanned for those
//! words standing alone (in text, in an SVG coordinate, in `inf..-inf`), so whatever section
//! computed one, the report is refused instead of showing it.

/// The first non-finite number written on `html`, with some text around it; `None` when there is none.
#[must_use]
pub fn non_finite_text(html: &str) -> Option<String> {
    let bytes = html.as_bytes();
    let part_of_word = |i: Option<usize>| {
        i.and_then(|i| bytes.get(i))
            // Base64 picture data holds `+`, `/` and `=`: a run of it is one word.
            .is_some_and(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'+' | b'/' | b'=')
            })
    };
    for word in ["NaN", "inf"] {
        for (at, _) in html.match_indices(word) {
            let end = at + word.len();
            if part_of_word(at.checked_sub(1)) || part_of_word(Some(end)) {
                continue;
            }
            let from = html.floor_char_boundary(at.saturating_sub(40));
            let to = html.ceil_char_boundary((end + 40).min(html.len()));
            return Some(html.get(from..to).unwrap_or(word).replace('\n', " "));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_numbers_are_found_and_words_are_not() {
        assert_eq!(
            non_finite_text(
                "<p>Left inflates; Info: infinite, NaNa, mixamorig:inf</p><img src=\"data:image/png;base64,AB+inf/NaN=\">"
            ),
            None
        );
        for page in [
            "<td>NaN%</td>",
            "ratio inf..-inf",
            "<line x1=\"NaN\" x2=\"3\"/>",
            "<text>-inf</text>",
        ] {
            assert!(non_finite_text(page).is_some(), "{page}");
        }
        assert_eq!(
            non_finite_text(&format!("a {:.2} b", f64::NAN)).as_deref(),
            Some("a NaN b")
        );
    }
}
