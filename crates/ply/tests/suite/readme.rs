//! README.md's transcripts, and those of every page in docs/, are run and
//! compared, so they cannot drift (docs/python.md's Python is run by the
//! Python suite, crates/ply-py/tests/test_docs.py): in
//! each ``` block, a line `$ COMMAND` is run with bash (the `ply` built
//! here first on the PATH, in a scratch folder that is also the database
//! folder, shown as `/tmp/readme-db`), and the lines after it, up to the
//! next `$` or the end of the block, are what it must print (stdout, then
//! stderr). A line `...` stands for any
//! lines (none too), and `...` inside a line for any text: the README
//! elides long output that way for its readers.
//!
//! A command ending in `&` is started and left running until its block
//! ends. Commands that build with cargo are not run here (they build this
//! workspace again); they are listed in [`NOT_RUN`] and counted.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The database folder as the README shows it; each block runs in a
/// scratch folder of its own, named so in commands and output.
const SHOWN_DIR: &str = "/tmp/readme-db";

/// Commands not run here, by prefix: the examples build with cargo.
const NOT_RUN: &[&str] = &["cargo run"];

/// One `$` command of a block and the stdout it shows.
struct Transcript {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The transcripts of every ``` block, block by block.
fn blocks(readme: &str) -> Vec<Vec<Transcript>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Transcript>> = None;
    for (number, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            match current.take() {
                Some(block) => blocks.push(block),
                None => current = Some(Vec::new()),
            }
            continue;
        }
        let Some(block) = current.as_mut() else {
            continue;
        };
        if let Some(command) = line.strip_prefix("$ ") {
            block.push(Transcript {
                line: number + 1,
                command: command.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(last) = block.last_mut() {
            last.expected.push(line.to_string());
        }
    }
    blocks
}

/// Whether `line` matches `pattern`, whose `...` stand for any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("...").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    if !line.ends_with(last) {
        return false;
    }
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `lines` match `patterns`, where a pattern `...` alone stands
/// for any run of lines.
fn lines_match(patterns: &[String], lines: &[&str]) -> bool {
    match patterns.split_first() {
        None => lines.is_empty(),
        Some((p, rest)) if p == "..." => {
            (0..=lines.len()).any(|skip| lines_match(rest, &lines[skip..]))
        }
        Some((p, rest)) => lines
            .split_first()
            .is_some_and(|(l, more)| line_matches(p, l) && lines_match(rest, more)),
    }
}

/// A scratch folder, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn bash(command: &str, dir: &Path, path: &str) -> Command {
    let mut bash = Command::new("bash");
    bash.args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env("PLY_DB_DIR", dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    bash
}

#[test]
fn every_readme_transcript_prints_what_it_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // README.md, then docs/*.md in name order.
    let mut pages = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .map(|path| Path::new("docs").join(path.file_name().expect("a file name")))
        .collect();
    docs.sort();
    assert!(docs.iter().any(|d| d.ends_with("python.md")), "{docs:?}");
    pages.extend(docs);
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_ply"));
    let path = format!(
        "{}:{}",
        binary.parent().expect("the binary's folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (mut run, mut skipped, mut failures) = (0, 0, Vec::new());
    for page in &pages {
        let text = std::fs::read_to_string(root.join(page)).expect("the page reads");
        let (r, s, f) = check_page(&page.display().to_string(), &text, &path);
        run += r;
        skipped += s;
        failures.extend(f);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(run > 30, "only {run} commands were run");
    assert_eq!(
        skipped, 2,
        "the cargo examples are the only commands not run"
    );
}

/// Runs the transcripts of one page (`name` in messages) with `path` as
/// PATH: how many commands ran, how many were skipped, and the failures.
fn check_page(name: &str, text: &str, path: &str) -> (usize, usize, Vec<String>) {
    let blocks = blocks(text);
    let (mut run, mut skipped, mut failures) = (0, 0, Vec::new());
    for (b, block) in blocks.iter().enumerate() {
        // Named after the page too: tests run side by side in one process.
        let page: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let scratch = Scratch(
            std::env::temp_dir().join(format!("ply-readme-{}-{page}-{b}", std::process::id())),
        );
        std::fs::create_dir_all(&scratch.0).expect("scratch folder");
        let mut background: Vec<Child> = Vec::new();
        for t in block {
            if NOT_RUN.iter().any(|p| t.command.starts_with(p)) {
                skipped += 1;
                continue;
            }
            run += 1;
            let shown = t
                .command
                .replace(SHOWN_DIR, &scratch.0.display().to_string());
            if let Some(command) = shown.trim_end().strip_suffix('&') {
                let child = bash(command, &scratch.0, path)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("bash runs");
                background.push(child);
                continue;
            }
            let command = t
                .command
                .replace(SHOWN_DIR, &scratch.0.display().to_string());
            let output = bash(&command, &scratch.0, path)
                .output()
                .expect("bash runs");
            // What a reader sees: stdout, then stderr (errors, notes).
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )
            .replace(&scratch.0.display().to_string(), SHOWN_DIR);
            // Trailing blanks (a prompt's) do not survive in Markdown.
            let lines: Vec<&str> = printed.lines().map(str::trim_end).collect();
            let mut expected = t.expected.clone();
            while expected.last().is_some_and(|l| l.is_empty()) {
                expected.pop();
            }
            if !lines_match(&expected, &lines) {
                failures.push(format!(
                    "{name} line {}: $ {}\n--- shown\n{}\n--- printed\n{printed}",
                    t.line,
                    t.command,
                    expected.join("\n"),
                ));
            }
        }
        for mut child in background {
            let _ = child.wait();
        }
    }
    (run, skipped, failures)
}

#[test]
fn the_matcher_elides_lines_and_text_and_nothing_else() {
    let p = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
    assert!(lines_match(&p("a\n...\nd"), &["a", "b", "c", "d"]));
    assert!(lines_match(&p("a\n...\nd"), &["a", "d"]));
    assert!(!lines_match(&p("a\n...\nd"), &["a", "b"]));
    assert!(!lines_match(&p("a\nb"), &["a", "b", "c"]));
    assert!(line_matches("{\"x\":1,...]}", "{\"x\":1,\"y\":[2,3]}"));
    assert!(line_matches("a...b...c", "a-b-c"));
    assert!(!line_matches("a...b...c", "a-c-b"));
    assert!(!line_matches("ab...ba", "aba"));
}

#[test]
fn a_page_whose_transcript_differs_fails() {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_ply"));
    let path = format!(
        "{}:{}",
        binary.parent().expect("the binary's folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let right = "```\n$ ply solve euler:3x3 X../.../...\ngame      euler:3x3\n...\n```\n";
    let wrong = "```\n$ ply solve euler:3x3 X../.../...\ngame      euler:4x4\n...\n```\n";
    assert_eq!(check_page("right.md", right, &path), (1, 0, Vec::new()));
    let (run, skipped, failures) = check_page("wrong.md", wrong, &path);
    assert_eq!((run, skipped, failures.len()), (1, 0, 1), "{failures:?}");
    assert!(failures[0].starts_with("wrong.md line 2:"), "{failures:?}");
}
