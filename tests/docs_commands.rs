//! The README and `docs/` stay true and navigable.
//!
//! - Every fenced block of README.md and docs/*.md marked `runnable` after its language
//!   (```` ```sh runnable ````) is run with the dqview binary cargo built, each block in a fresh
//!   temporary folder; every command must exit 0, and output shown after a `$ ` prompt must appear
//!   in what the command prints. The rules for such blocks are in docs/README.md ("Runnable
//!   commands").
//! - Every command block that mentions dqview says `runnable` or `example`.
//! - README.md has at most [`README_MAX_LINES`] lines.
//! - Every relative link points to a file (and a `#fragment` to one of its headings).
//!
//! Blocks naming the shared test data (`../shared/testdata/...`) read it through the `DQVIEW_*`
//! variables and print SKIPPED without them, unless `DQVIEW_REQUIRE_DATA=1`. GPU commands print
//! SKIPPED without an adapter, unless `DQVIEW_REQUIRE_GPU=1`; `xvfb-run` blocks without xvfb-run,
//! unless `DQVIEW_REQUIRE_DISPLAY=1`.

mod support;

use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The README is the front page; reference material goes to docs/.
const README_MAX_LINES: usize = 260;

/// Pages other engineers are writing now, which the README and the index already link to.
/// Remove each entry once its file exists (the link test says so when it does).
const PENDING_PAGES: &[&str] = &[];

/// Shared test data folders beside the clone, as the docs write them, and the variable the tests read each from.
const DATA_FOLDERS: &[(&str, &str)] = &[
    ("../shared/testdata/models", "DQVIEW_SAMPLES"),
    ("../shared/testdata/characters", "DQVIEW_CHARACTERS"),
    ("../shared/testdata/fbx", "DQVIEW_FBX"),
    ("../shared/testdata/golden", "DQVIEW_GOLDEN"),
    ("../shared/testdata/gltf-validator", "DQVIEW_VALIDATOR"),
];

/// A command that runs this long is hung (the slowest documented one takes seconds); it is killed and fails.
const HANG_GUARD: Duration = Duration::from_secs(600);

/// The repository root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, as paths relative to the root, docs in name order.
fn markdown_files() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ folder")
        .map(|entry| entry.expect("docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| {
            path.strip_prefix(root())
                .expect("under the root")
                .to_path_buf()
        })
        .collect();
    docs.sort();
    let mut files = vec![PathBuf::from("README.md")];
    files.extend(docs);
    files
}

/// One fenced code block of a Markdown file.
#[derive(Debug)]
struct Block {
    /// The file, relative to the root.
    file: PathBuf,
    /// 1-based line of the opening fence.
    line: usize,
    /// The info string after the fence, split into words (language first).
    info: Vec<String>,
    /// The lines between the fences, each with its 1-based line number.
    body: Vec<(usize, String)>,
}

impl Block {
    /// Where the block starts, for messages.
    fn at(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }

    /// Whether a word after the language is `marker`.
    fn is_marked(&self, marker: &str) -> bool {
        self.info.iter().skip(1).any(|w| w == marker)
    }
}

/// The opening fence of `line`: its character, its length and the info string.
fn opening_fence(line: &str) -> Option<(char, usize, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let fence_char = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == fence_char).count();
    if len < 3 {
        return None;
    }
    let info = rest[len..].trim();
    if fence_char == '`' && info.contains('`') {
        return None;
    }
    Some((fence_char, len, info.to_string()))
}

/// Whether `line` closes a fence of `fence_char` repeated `len` times.
fn closes_fence(line: &str, fence_char: char, len: usize) -> bool {
    let trimmed = line.trim();
    trimmed.len() >= len && trimmed.chars().all(|c| c == fence_char)
}

/// Every fenced code block of `text` (CommonMark fences; an unclosed one runs to the end).
fn fenced_blocks(file: &Path, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<(char, usize, Block)> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        match open.take() {
            Some((fence_char, len, block)) if closes_fence(line, fence_char, len) => {
                blocks.push(block);
            }
            Some((fence_char, len, mut block)) => {
                block.body.push((number, line.to_string()));
                open = Some((fence_char, len, block));
            }
            None => {
                if let Some((fence_char, len, info)) = opening_fence(line) {
                    let block = Block {
                        file: file.to_path_buf(),
                        line: number,
                        info: info.split_whitespace().map(str::to_string).collect(),
                        body: Vec::new(),
                    };
                    open = Some((fence_char, len, block));
                }
            }
        }
    }
    if let Some((_, _, block)) = open {
        blocks.push(block);
    }
    blocks
}

/// Every fenced block of every Markdown file.
fn all_blocks() -> Vec<Block> {
    markdown_files()
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(root().join(file)).expect("read markdown");
            fenced_blocks(file, &text)
        })
        .collect()
}

/// Splits one shell command line into words: quotes and backslashes as in sh, `#` starts a
/// comment. Anything a shell would expand or redirect is an error, since no shell runs it.
fn shell_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(q) => word.push(q),
                        None => return Err(format!("unterminated ' in `{line}`")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                            Some(e) => {
                                word.push('\\');
                                word.push(e);
                            }
                            None => return Err(format!("unterminated \" in `{line}`")),
                        },
                        Some(q @ ('$' | '`')) => {
                            return Err(format!("`{q}` needs a shell, in `{line}`"));
                        }
                        Some(q) => word.push(q),
                        None => return Err(format!("unterminated \" in `{line}`")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(e) = chars.next() {
                    word.push(e);
                }
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '[' => {
                return Err(format!(
                    "`{c}` needs a shell (or is placeholder notation), in `{line}`"
                ));
            }
            '~' if !in_word => return Err(format!("`~` needs a shell, in `{line}`")),
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// One command of a runnable block and the output lines the block shows for it.
#[derive(Debug)]
struct Step {
    /// 1-based line of the command.
    line: usize,
    /// The command's words.
    words: Vec<String>,
    /// Output lines shown after a `$ ` command (empty for blocks without prompts).
    shown: Vec<String>,
}

/// The commands of a block: with `$ ` prompts, the prompt lines (the rest is their output);
/// without, every line. A trailing `\` joins the next line.
fn steps(block: &Block) -> Result<Vec<Step>, String> {
    let prompts = block.body.iter().any(|(_, l)| l.starts_with("$ "));
    let mut steps: Vec<Step> = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (number, text) in &block.body {
        let command_text = match pending.take() {
            Some((start, mut joined)) => {
                joined.push(' ');
                joined.push_str(text.trim());
                Some((start, joined))
            }
            None if prompts => match text.strip_prefix("$ ") {
                Some(command) => Some((*number, command.to_string())),
                None => {
                    match steps.last_mut() {
                        Some(step) => step.shown.push(text.trim_end().to_string()),
                        None => {
                            return Err(format!("output before the first `$ ` at line {number}"));
                        }
                    }
                    None
                }
            },
            None if text.trim().is_empty() => None,
            None => Some((*number, text.trim().to_string())),
        };
        let Some((start, command)) = command_text else {
            continue;
        };
        match command.strip_suffix('\\') {
            Some(head) => pending = Some((start, head.trim_end().to_string())),
            None => {
                let words = shell_words(&command)?;
                if !words.is_empty() {
                    steps.push(Step {
                        line: start,
                        words,
                        shown: Vec::new(),
                    });
                }
            }
        }
    }
    if let Some((start, _)) = pending {
        return Err(format!("line {start} ends in `\\` with nothing after it"));
    }
    Ok(steps)
}

/// Where the shown lines fail to appear in `output`, or `None` when every run of them (runs are
/// split at `...` lines) appears line for line, each after the one before.
fn missing_run(shown: &[String], output: &[String]) -> Option<String> {
    let mut from = 0;
    for run in shown.split(|l| l.trim() == "...") {
        if run.is_empty() {
            continue;
        }
        let found = (from..output.len().saturating_sub(run.len() - 1)).find(|&start| {
            run.iter()
                .zip(&output[start..])
                .all(|(want, got)| want.trim_end() == got.trim_end())
        });
        match found {
            Some(start) => from = start + run.len(),
            None => return Some(run.join("\n")),
        }
    }
    None
}

/// Whether an environment variable is set to 1.
fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// Writes a line straight to stderr (the harness hides `eprintln!` of passing tests).
fn loud(message: &str) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// How one block went.
enum Outcome {
    /// Every command exited 0 and printed what the block shows.
    Passed,
    /// Something it needs is missing here (for GPU commands: those commands only); the reason was printed.
    Skipped,
}

/// A command ready to run: program, arguments, and the data folders it reads (real path, doc prefix).
struct Prepared {
    program: PathBuf,
    args: Vec<String>,
    data: Vec<(String, &'static str)>,
}

/// Maps a step's words to the binary and the data folders; `Ok(None)` when it must be skipped.
fn prepare(block: &Block, step: &Step, cwd: &Path) -> Result<Option<Prepared>, String> {
    let at = format!("{}:{}", block.file.display(), step.line);
    let words = &step.words;
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_dqview"));
    let (program, mut args): (PathBuf, Vec<String>) = match words.as_slice() {
        ["dqview", rest @ ..] | ["cargo", "run", "--release", "--", rest @ ..] => {
            (binary.clone(), rest.iter().map(|w| w.to_string()).collect())
        }
        ["xvfb-run", rest @ ..] => {
            let Some(k) = rest.iter().position(|w| *w == "dqview") else {
                return Err(format!("{at}: xvfb-run runs no `dqview`"));
            };
            if support::skip_without_xvfb(&at) {
                return Ok(None);
            }
            let mut args: Vec<String> = rest[..k].iter().map(|w| w.to_string()).collect();
            args.push(binary.display().to_string());
            args.extend(rest[k + 1..].iter().map(|w| w.to_string()));
            (PathBuf::from("xvfb-run"), args)
        }
        _ => {
            return Err(format!(
                "{at}: a runnable command starts with `dqview`, `cargo run --release --` or `xvfb-run`: {words:?}"
            ));
        }
    };
    let mut data = Vec::new();
    for arg in &mut args {
        let mut mapped = false;
        for (prefix, var) in DATA_FOLDERS {
            if arg.contains(prefix) {
                let Some(folder) = support::data_dir(var, &at) else {
                    return Ok(None);
                };
                let folder = folder.display().to_string();
                *arg = arg.replace(prefix, &folder);
                data.push((folder, *prefix));
                mapped = true;
            }
        }
        if mapped || *arg == binary.display().to_string() {
            continue;
        }
        let path = arg.split_once('=').map_or(arg.as_str(), |(_, value)| value);
        if path.starts_with('/')
            || Path::new(path)
                .components()
                .any(|c| c == Component::ParentDir)
        {
            return Err(format!(
                "{at}: `{arg}`: runnable commands use paths inside the repository (or the shared data), never absolute or `..` ones"
            ));
        }
        // An output such as assets/twist_split.png lands in the temp folder; make its folder.
        if !arg.starts_with('-')
            && !arg.contains(':')
            && arg.contains('/')
            && let Some(parent) = Path::new(arg.as_str()).parent()
        {
            std::fs::create_dir_all(cwd.join(parent)).map_err(|e| format!("{at}: {e}"))?;
        }
    }
    Ok(Some(Prepared {
        program,
        args,
        data,
    }))
}

/// Runs a command in `cwd` until it exits (or the hang guard kills it): exit success, stdout, stderr.
fn run_in(prepared: &Prepared, cwd: &Path) -> Result<(bool, String, String), String> {
    let out_path = cwd.join(".stdout");
    let err_path = cwd.join(".stderr");
    let out = std::fs::File::create(&out_path).map_err(|e| e.to_string())?;
    let err = std::fs::File::create(&err_path).map_err(|e| e.to_string())?;
    let mut child = Command::new(&prepared.program)
        .args(&prepared.args)
        .current_dir(cwd)
        .env("DQVIEW_CACHE_DIR", cwd.join(".cache"))
        .env("XDG_CONFIG_HOME", cwd.join(".config"))
        // winit 0.30 panics instead of falling back to X11 when these point nowhere.
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("start {}: {e}", prepared.program.display()))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if started.elapsed() > HANG_GUARD => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still running after {HANG_GUARD:?}, killed"));
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    Ok((status.success(), read(&out_path), read(&err_path)))
}

/// Runs every command of a runnable block in a fresh folder.
fn run_block(block: &Block, index: usize) -> Result<Outcome, String> {
    let steps = steps(block).map_err(|e| format!("{}: {e}", block.at()))?;
    if steps.is_empty() {
        return Err(format!(
            "{}: a runnable block without a command",
            block.at()
        ));
    }
    let cwd = support::scratch_dir(&format!("docs_commands/{index:02}"));
    let mut outcome = Outcome::Passed;
    for step in &steps {
        let at = format!("{}:{}", block.file.display(), step.line);
        let Some(prepared) = prepare(block, step, &cwd)? else {
            return Ok(Outcome::Skipped);
        };
        let (ok, stdout, stderr) = run_in(&prepared, &cwd).map_err(|e| format!("{at}: {e}"))?;
        let command = step.words.join(" ");
        // The CLI says "no GPU adapter"; the viewer, failing to make its surface, "no GPU driver?".
        let no_gpu = stderr.contains("no GPU adapter") || stderr.contains("no GPU driver");
        if !ok && no_gpu && !required("DQVIEW_REQUIRE_GPU") {
            let why = stderr.lines().find(|l| l.contains("no GPU")).unwrap_or("");
            loud(&format!("SKIPPED {at}: {why}"));
            // The block's other commands still run: none reads what a GPU command writes.
            outcome = Outcome::Skipped;
            continue;
        }
        if !ok {
            return Err(format!(
                "{at}: `{command}` failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
            ));
        }
        // Outputs name the data as the docs do, so shown paths compare.
        let mut printed = format!("{stdout}\n{stderr}");
        for (folder, prefix) in &prepared.data {
            printed = printed.replace(folder.as_str(), prefix);
        }
        let lines: Vec<String> = printed.lines().map(str::to_string).collect();
        if let Some(run) = missing_run(&step.shown, &lines) {
            return Err(format!(
                "{at}: `{command}` did not print the lines the docs show:\n{run}\n--- it printed:\n{printed}"
            ));
        }
    }
    Ok(outcome)
}

/// The language of a block (first info word) names a shell or nothing.
fn is_shell_block(block: &Block) -> bool {
    matches!(
        block.info.first().map(String::as_str),
        None | Some("sh" | "shell" | "bash" | "console" | "text")
    )
}

/// Whether a block's lines run dqview.
fn mentions_dqview(block: &Block) -> bool {
    block.body.iter().any(|(_, line)| {
        let line = line.trim_start();
        let line = line.strip_prefix("$ ").unwrap_or(line);
        line.starts_with("dqview ")
            || line == "dqview"
            || line.starts_with("cargo run")
            || line.starts_with("xvfb-run")
    })
}

#[test]
fn runnable_blocks_run_and_print_what_they_show() {
    let blocks: Vec<Block> = all_blocks()
        .into_iter()
        .filter(|b| b.is_marked("runnable"))
        .collect();
    assert!(
        blocks.iter().any(|b| b.file == Path::new("README.md")),
        "README.md has no runnable block: the marker or the parser broke"
    );
    let mut failures = Vec::new();
    let (mut passed, mut skipped) = (0, 0);
    for (index, block) in blocks.iter().enumerate() {
        match run_block(block, index) {
            Ok(Outcome::Passed) => passed += 1,
            Ok(Outcome::Skipped) => skipped += 1,
            Err(e) => failures.push(e),
        }
    }
    loud(&format!(
        "docs_commands: {} runnable blocks, {passed} passed, {skipped} skipped, {} failed",
        blocks.len(),
        failures.len()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_command_block_says_runnable_or_example() {
    let mut unmarked = Vec::new();
    for block in all_blocks() {
        if matches!(
            block.info.first().map(String::as_str),
            Some("runnable" | "example")
        ) {
            unmarked.push(format!(
                "{}: the marker goes after the language (```sh runnable)",
                block.at()
            ));
        } else if is_shell_block(&block)
            && mentions_dqview(&block)
            && !block.is_marked("runnable")
            && !block.is_marked("example")
        {
            unmarked.push(format!(
                "{}: a command block without `runnable` or `example`",
                block.at()
            ));
        }
    }
    assert!(unmarked.is_empty(), "{}", unmarked.join("\n"));
}

#[test]
fn readme_stays_a_front_page() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = text.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move reference material to docs/"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn heading_slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code blocks), with GitHub's `-1`, `-2` for repeats.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for line in prose_lines(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug = heading_slug(heading.trim_end_matches('#'));
        let repeats = seen
            .iter()
            .filter(|s| {
                **s == slug
                    || s.strip_prefix(&format!("{slug}-"))
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .count();
        seen.push(if repeats == 0 {
            slug
        } else {
            format!("{slug}-{repeats}")
        });
    }
    seen
}

/// The lines of `text` outside fenced code blocks, with inline code spans removed.
fn prose_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for line in text.lines() {
        match fence {
            Some((c, len)) => {
                if closes_fence(line, c, len) {
                    fence = None;
                }
            }
            None => match opening_fence(line) {
                Some((c, len, _)) => fence = Some((c, len)),
                None => lines.push(without_code_spans(line)),
            },
        }
    }
    lines
}

/// `line` without its backtick code spans.
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|c| *c == '`').count();
        let after = &rest[start + ticks..];
        let closing = "`".repeat(ticks);
        match after.find(&closing) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The targets of the inline links and images of `text` (`[..](target)`), outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            targets.push(target.to_string());
            rest = &after[end..];
        }
    }
    targets
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[test]
fn relative_links_point_to_files_and_headings() {
    let mut broken = Vec::new();
    let mut links = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(root().join(&file)).expect("read markdown");
        let folder = file.parent().unwrap_or(Path::new(""));
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            links += 1;
            let (path, fragment) = target.split_once('#').unwrap_or((target.as_str(), ""));
            let linked = if path.is_empty() {
                file.clone()
            } else {
                normalize(&folder.join(path))
            };
            let pending = PENDING_PAGES.iter().any(|p| Path::new(p) == linked);
            if !root().join(&linked).exists() {
                if !pending {
                    broken.push(format!(
                        "{}: ({target}): no file {}",
                        file.display(),
                        linked.display()
                    ));
                }
                continue;
            }
            if pending {
                loud(&format!(
                    "NOTE: {} exists now; remove it from PENDING_PAGES in tests/docs_commands.rs",
                    linked.display()
                ));
            }
            if !fragment.is_empty() && linked.extension().is_some_and(|e| e == "md") {
                let linked_text =
                    std::fs::read_to_string(root().join(&linked)).expect("read linked markdown");
                if !anchors(&linked_text).iter().any(|a| a == fragment) {
                    broken.push(format!(
                        "{}: ({target}): {} has no heading #{fragment}",
                        file.display(),
                        linked.display()
                    ));
                }
            }
        }
    }
    assert!(links > 0, "no relative links found: the link parser broke");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn output_check_wants_shown_lines_in_order_and_together() {
    let output: Vec<String> = ["file x", "a 1", "b 2", "c 3", "done"]
        .map(String::from)
        .to_vec();
    let shown = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert_eq!(missing_run(&shown(&["a 1", "b 2"]), &output), None);
    assert_eq!(missing_run(&shown(&["a 1", "...", "c 3"]), &output), None);
    // A line left out without `...` is a difference.
    assert!(missing_run(&shown(&["a 1", "c 3"]), &output).is_some());
    assert!(missing_run(&shown(&["c 3", "...", "a 1"]), &output).is_some());
    assert!(missing_run(&shown(&["a 2"]), &output).is_some());
}

#[test]
fn commands_split_like_a_shell_and_refuse_what_needs_one() {
    assert_eq!(
        shell_words(r#"xvfb-run -a -s "-screen 0 1280x720x24" dqview x  # comment"#),
        Ok([
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1280x720x24",
            "dqview",
            "x"
        ]
        .map(String::from)
        .to_vec())
    );
    assert!(shell_words("dqview inspect a.glb | head").is_err());
    assert!(shell_words("dqview export --out a.obj [--gpu]").is_err());
    let block = Block {
        file: PathBuf::from("x.md"),
        line: 1,
        info: vec!["console".into(), "runnable".into()],
        body: vec![
            (2, "$ dqview render a \\".into()),
            (3, "    --out b.png".into()),
            (4, "wrote b.png".into()),
        ],
    };
    let steps = steps(&block).expect("steps");
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].words, ["dqview", "render", "a", "--out", "b.png"]);
    assert_eq!(steps[0].shown, ["wrote b.png"]);
}
