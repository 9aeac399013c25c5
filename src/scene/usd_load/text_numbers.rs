//! The number spellings of Pixar's `.usda` grammar that the crate's lexer does not take,
//! rewritten into ones it does before it parses a text layer.
//!
//! Pixar's lexer reads `-?[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?`, `-?\.[0-9]+([eE][+-]?[0-9]+)?`,
//! `inf`, `-inf` and `nan`; the crate's needs a digit after a dot, and before one unless a sign
//! leads. So `1.` becomes `1 ` and `1.e5` `1e5 ` (same length), and `.01` becomes `0.01`, taking
//! the place of a space before it where one is free (else one byte longer). Strings, asset
//! paths, path references, identifiers and comments are copied as they are, and no line break
//! moves, so the crate's errors still name the file's own line.

use std::borrow::Cow;

/// The layer's text with every Pixar-only number spelling rewritten; borrowed when none occurs.
pub(super) fn normalize_numbers(text: &[u8]) -> Cow<'_, [u8]> {
    if !needs_rewrite(text) {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut i = 0;
    while i < text.len() {
        let skip = opaque_end(text, i);
        if skip > i {
            out.extend_from_slice(&text[i..skip]);
            i = skip;
            continue;
        }
        let c = text[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let end = run(text, i, |b| {
                b.is_ascii_alphanumeric() || b == b'_' || b == b':'
            });
            out.extend_from_slice(&text[i..end]);
            i = end;
        } else if c.is_ascii_digit() {
            i = number(text, i, &mut out);
        } else if c == b'.' && text.get(i + 1).is_some_and(u8::is_ascii_digit) {
            leading_dot(&mut out);
            out.push(b'.');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// Whether any dot has a non-digit on one side: only then can a number need rewriting.
fn needs_rewrite(text: &[u8]) -> bool {
    text.iter().enumerate().any(|(i, &c)| {
        c == b'.'
            && !(i > 0
                && text[i - 1].is_ascii_digit()
                && text.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// The end of a comment, string, asset path or path reference starting at `i` (`i` if none does).
fn opaque_end(text: &[u8], i: usize) -> usize {
    let rest = &text[i..];
    let until = |from: usize, close: &[u8]| {
        text[from..]
            .windows(close.len())
            .position(|w| w == close)
            .map_or(text.len(), |p| from + p + close.len())
    };
    match rest {
        [b'#', ..] => run(text, i, |b| b != b'\n' && b != b'\r'),
        [b'/', b'*', ..] => until(i + 2, b"*/"),
        [b'"', b'"', b'"', ..] => until(i + 3, b"\"\"\""),
        [b'\'', b'\'', b'\'', ..] => until(i + 3, b"'''"),
        [b'@', b'@', b'@', ..] => until(i + 3, b"@@@"),
        [q @ (b'"' | b'\''), ..] => quoted_end(text, i + 1, *q),
        [b'@', ..] => until(i + 1, b"@"),
        [b'<', ..] => until(i + 1, b">"),
        _ => i,
    }
}

/// The end of a quoted string whose body starts at `from`, backslash escapes skipped.
fn quoted_end(text: &[u8], from: usize, quote: u8) -> usize {
    let mut j = from;
    while j < text.len() {
        match text[j] {
            b'\\' => j += 2,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    text.len()
}

/// The end of the run of bytes from `i` that `keep` accepts.
fn run(text: &[u8], i: usize, keep: impl Fn(u8) -> bool) -> usize {
    text[i..]
        .iter()
        .position(|&b| !keep(b))
        .map_or(text.len(), |p| i + p)
}

/// Copies the number starting with a digit at `i`, a bare trailing dot moved after it as a space;
/// returns where it ends.
fn number(text: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let digits = run(text, i, |b| b.is_ascii_digit());
    out.extend_from_slice(&text[i..digits]);
    let mut end = digits;
    let mut bare_dot = false;
    if text.get(end) == Some(&b'.') {
        if text.get(end + 1).is_some_and(u8::is_ascii_digit) {
            let fraction = run(text, end + 1, |b| b.is_ascii_digit());
            out.extend_from_slice(&text[end..fraction]);
            end = fraction;
        } else {
            bare_dot = true;
            end += 1;
        }
    }
    let exponent = exponent_end(text, end);
    out.extend_from_slice(&text[end..exponent]);
    if bare_dot {
        out.push(b' ');
    }
    exponent
}

/// The end of an exponent (`e`, optional sign, digits) at `i`, or `i` when none starts there.
fn exponent_end(text: &[u8], i: usize) -> usize {
    if !matches!(text.get(i), Some(b'e' | b'E')) {
        return i;
    }
    let mut j = i + 1;
    if matches!(text.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    let digits = run(text, j, |b| b.is_ascii_digit());
    if digits > j { digits } else { i }
}

/// Before a `.D` number: a `0`, in place of a free space before it when there is one. A sign
/// before the dot needs nothing (the crate reads `-.5`).
fn leading_dot(out: &mut Vec<u8>) {
    let token_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
    match out.as_slice() {
        [.., b'-' | b'+'] => {}
        [.., before, b' ' | b'\t'] if !token_char(*before) => {
            out.pop();
            out.push(b'0');
        }
        _ => out.push(b'0'),
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_numbers;

    /// The rewritten text as a string.
    fn norm(text: &str) -> String {
        String::from_utf8(normalize_numbers(text.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn pixar_spellings_become_the_crates() {
        assert_eq!(norm("metersPerUnit = .01\n"), "metersPerUnit =0.01\n");
        assert_eq!(norm("[.5,.25, -.5]"), "[0.5,0.25, -.5]");
        assert_eq!(norm("(1., 2.e3, 1.5e-3, 4)"), "(1 , 2e3 , 1.5e-3, 4)");
        assert_eq!(norm("{ .5: 1., }"), "{0.5: 1 , }");
        assert_eq!(norm("1e-3 1E+3 inf -inf nan"), "1e-3 1E+3 inf -inf nan");
    }

    #[test]
    fn strings_paths_comments_and_names_are_kept() {
        let kept = "#usda 1.0\n# see .5 and 1.\nasset a = @./x.5.usda@\nstring s = \"v .5 1.\"\nrel r = </A.b>\n/* .7 */ float3 x.y\n";
        assert_eq!(norm(kept), kept);
        assert!(matches!(
            normalize_numbers(b"float x = 1.5"),
            std::borrow::Cow::Borrowed(_)
        ));
        // No line break moves.
        let text = "a = .5\nb = [.5,.5]\nc = 1.\n";
        assert_eq!(norm(text).matches('\n').count(), 3);
        assert_eq!(norm(text).find("c ="), Some(text.find("c =").unwrap() + 2));
    }
}
