//! The one thing a `.usda` layer's text is checked for: how deep its brackets nest.
//!
//! The crate's text parser recurses once per nested prim, dictionary, array or variant, and a
//! stack overflow aborts the process: 100,000 nested dictionaries in `customLayerData` aborted
//! `dqview inspect`. The load runs on a thread whose stack holds [`USD_MAX_NESTING`] levels
//! (`load_thread.rs`), so text nesting deeper than that is refused before it is parsed. Real
//! files nest a few dozen levels (prims in prims, plus metadata); Pixar opens a 10,000-deep prim
//! chain, and so does dqview.

use super::quantity;
use crate::scene::usd_load::USD_MAX_NESTING;

/// Refuses text whose brackets nest more than [`USD_MAX_NESTING`] deep, not counting brackets
/// in comments, strings, asset paths (`@a.usdz[b.usd]@`) and path literals (`</A{v=x}B>`).
pub(super) fn check_text(bytes: &[u8]) -> Result<(), String> {
    let mut depth = 0_usize;
    let mut line = 1;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        // Where the construct starting here ends (exclusive), for those skipped whole.
        let skip_to = |end: &[u8], from: usize| {
            bytes[from.min(bytes.len())..]
                .windows(end.len())
                .position(|w| w == end)
                .map_or(bytes.len(), |p| from + p + end.len())
        };
        let next = match byte {
            b'#' => skip_to(b"\n", i) - 1,
            b'"' | b'\'' if bytes[i..].starts_with(&[byte; 3]) => skip_to(&[byte; 3], i + 3),
            b'"' | b'\'' => string_end(bytes, i),
            b'@' if bytes[i..].starts_with(b"@@@") => skip_to(b"@@@", i + 3),
            b'@' => skip_to(b"@", i + 1),
            b'<' => skip_to(b">", i + 1),
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > USD_MAX_NESTING {
                    return Err(format!(
                        "USDA text nests brackets more than {} deep (line {line}): past dqview's bound USD_MAX_NESTING, the depth its USD loading thread has stack for (the text parser recurses once per level)",
                        quantity(USD_MAX_NESTING as u64),
                    ));
                }
                i + 1
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i + 1
            }
            _ => i + 1,
        };
        line += bytes[i..next.max(i + 1).min(bytes.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        i = next.max(i + 1);
    }
    Ok(())
}

/// The end (exclusive) of the one-line string opening at `start`, backslash escapes honoured.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'\n' => return i,
            _ if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `levels` nested dictionaries in the layer's metadata.
    fn nested(levels: usize) -> String {
        format!(
            "#usda 1.0\n(\n    customLayerData = {{\n{}{}    }}\n)\n",
            "dictionary a = {\n".repeat(levels),
            "}\n".repeat(levels)
        )
    }

    #[test]
    fn nesting_is_bounded() {
        // The layer's metadata and `customLayerData` are two levels; the bound is 20,000.
        assert_eq!(check_text(nested(USD_MAX_NESTING - 2).as_bytes()), Ok(()));
        let err = check_text(nested(USD_MAX_NESTING - 1).as_bytes()).unwrap_err();
        assert!(
            err.contains("more than 20,000 deep (line 20002): past dqview's bound USD_MAX_NESTING"),
            "{err}"
        );
    }

    #[test]
    fn brackets_in_strings_comments_and_paths_do_not_count() {
        let opens = "(".repeat(USD_MAX_NESTING + 1);
        for text in [
            format!("# {opens}\n"),
            format!("string s = \"{opens}\"\n"),
            format!("string s = '{opens}\\'{opens}'\n"),
            format!("string s = \"\"\"\n{opens}\n\"\"\"\n"),
            format!("asset a = @./{opens}.usd@\n"),
            format!("asset a = @@@./{opens}.usd@@@\n"),
            format!("rel r = </A{{{opens}}}B>\n"),
        ] {
            assert_eq!(check_text(text.as_bytes()), Ok(()), "{text}");
        }
        let err = check_text(format!("\"\"\n{opens}").as_bytes()).unwrap_err();
        assert!(err.contains("(line 2)"), "{err}");
    }
}
