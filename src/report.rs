//! Errors as one line for the user, shared by the edges of the program.
//!
//! The library reports errors as `thiserror` enums; `main`, `cli` and `app`
//! (the edges, which already use `anyhow`) wrap them with context and show them
//! to the user. The formatting lives here, below both `app` and `cli`, so the
//! viewer needs nothing from the command line; it is the one place outside the
//! edges that names `anyhow`, and only the edges call it.

/// One line for the user: the error and its causes, leaving out causes a message already quotes.
#[must_use]
pub fn error_message(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_join_with_colons_and_quoted_ones_are_left_out() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(io).context("cannot load rig.glb");
        assert_eq!(error_message(&e), "cannot load rig.glb: no such file");
        let quoted = anyhow::anyhow!("bad value").context("reading x: bad value");
        assert_eq!(error_message(&quoted), "reading x: bad value");
    }
}
