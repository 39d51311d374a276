//! The docs run: every ```console block of README.md and docs/ is executed with trycmd and
//! its output compared, so the docs cannot drift from the binary.
//!
//! Where a page runs: a page with a `<page>.in` beside it runs in a copy of what that link
//! names (and `<page>.out/` makes it a sandbox, so nothing is written into the repository);
//! every other page runs from the repository's root and only reads. README.md's sandbox would
//! have to sit beside it in the root, so the suite reads it through `tests/docs/README.md`, a
//! link to it with `README.in` and `README.out/` beside the link (trycmd looks for them beside
//! the path it is given, and `TRYCMD=overwrite` writes through the link into README.md).
//! Blocks that cannot run offline are ```text and say so. `TRYCMD=overwrite cargo test --test
//! it -- docs::` rewrites the outputs; read each before committing it.

#[test]
fn docs_examples_run() {
    trycmd::TestCases::new()
        .register_bin("agent-sdk", std::path::PathBuf::from(env!("CARGO_BIN_EXE_agent-sdk")))
        .register_bin("bdk", std::path::PathBuf::from(env!("CARGO_BIN_EXE_bdk")))
        .default_bin_name("agent-sdk")
        // What a user without these set sees: the local model, no colour forced, no CI.
        .env("AGENT_SDK_MODEL", "local")
        .env("FORCE_COLOR", "")
        .env("CLICOLOR_FORCE", "")
        .env("GITHUB_ACTIONS", "false")
        // The same output on every Node the suite runs on: Node 20 would add its
        // end-of-life warning to the `run` example (docs/install.md says when it is said).
        .env(crate::common::NO_NODE_WARNING, "1")
        .case("tests/docs/README.md")
        .case("docs/*.md")
        .case("docs/commands/*.md");
}

/// How a message of the binary begins when a page quotes it inline: the prefixes of its
/// stderr lines and of the serve log's levels, and a hook's own lines.
const MESSAGE_STARTS: [&str; 7] = ["error: ", "warning: ", "note: ", "ERROR ", "WARN  ", "INFO  ", "hook \""];

/// Quoted messages no snapshot or test of a real run shows: the coverage notes of Node
/// 20.6–22.7, which the suite's Nodes (20.20, 22.23, 24, 26) say only in part, and which
/// `commands::test::coverage`'s unit tests check against each version instead; and the dev
/// serve log's session line as `logs` prints it with its tag. The check below keeps this list
/// honest both ways: a listed quote that is seen fails it too.
const NOT_YET_SEEN: [(&str, &str); 3] = [
    ("docs/commands/test.md", "note: … measures coverage on the compiled JavaScript"),
    ("docs/commands/test.md", "note: … cannot leave files out"),
    ("docs/commands/test.md", "note: … inexactly"),
];

/// Every message of the binary a page quotes inline (outside the console blocks, which
/// `docs_examples_run` runs) is output the suite has seen: a committed insta snapshot, a
/// console block's output, or the text a test asserts of a real run. A quote's variable
/// parts match anything (see [`quote_pattern`]); its words must be the binary's.
#[test]
fn messages_quoted_in_the_docs_are_the_binary_s() {
    let seen = verified_output();
    let mut quotes = 0;
    let mut drifted = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(crate::common::root().join(&page)).unwrap();
        for (line, span) in code_spans(&text) {
            if !is_message(&span) {
                continue;
            }
            quotes += 1;
            let is_seen = quote_pattern(&span).is_match(&seen);
            let known = NOT_YET_SEEN.iter().any(|(listed, quote)| *listed == page && span.starts_with(quote));
            if is_seen == known {
                let why = if known { "is seen now: take it off NOT_YET_SEEN" } else { "drifted" };
                drifted.push(format!("{page}:{line}: `{span}` {why}"));
            }
        }
    }
    // A parser that found nothing would pass everything.
    assert!(quotes >= 40, "only {quotes} quoted messages found");
    assert!(
        drifted.is_empty(),
        "these quoted messages are in no snapshot, console block or test of a real run: correct the quote, or test the message\n{}",
        drifted.join("\n")
    );
}

/// The check tells a drifted quote from a true one.
#[test]
fn a_quote_with_a_changed_word_is_not_the_binary_s() {
    let seen = verified_output();
    let quote = "error: 7 warnings, more than --max-warnings 5 allows";
    assert!(quote_pattern(quote).is_match(&seen));
    assert!(!quote_pattern("error: 7 warnings, more than --max-warnings 5 allowed").is_match(&seen));
    assert!(!quote_pattern("error: 7 warnings, over --max-warnings 5").is_match(&seen));
}

/// The pages the docs tests read, relative to the repository's root.
fn pages() -> Vec<String> {
    let root = crate::common::root();
    let mut pages = vec!["README.md".to_owned()];
    for folder in ["docs", "docs/commands"] {
        let mut found: Vec<String> = std::fs::read_dir(root.join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".md"))
            .map(|name| format!("{folder}/{name}"))
            .collect();
        found.sort();
        pages.extend(found);
    }
    pages
}

fn is_message(span: &str) -> bool {
    MESSAGE_STARTS.iter().any(|start| span.strip_prefix(start).is_some_and(|rest| rest.trim().len() > 1))
}

/// The inline code spans of a Markdown page, outside fenced blocks, with the line each
/// starts on: a span ends at the next run of as many backticks as opened it, so
/// ``` ``a `b` c`` ``` is one span, and a span may go on over a line break (a space then).
fn code_spans(page: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut paragraph: Vec<(usize, &str)> = Vec::new();
    let mut fenced = false;
    for (index, line) in page.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        if fence {
            fenced = !fenced;
        }
        if fence || fenced || line.trim().is_empty() {
            spans.extend(spans_of(&paragraph));
            paragraph.clear();
        } else {
            paragraph.push((index + 1, line));
        }
    }
    spans.extend(spans_of(&paragraph));
    spans
}

fn spans_of(paragraph: &[(usize, &str)]) -> Vec<(usize, String)> {
    let text: String = paragraph.iter().map(|(_, line)| *line).collect::<Vec<_>>().join("\n");
    let line_at = |offset: usize| {
        let breaks = text[..offset].matches('\n').count();
        paragraph[breaks].0
    };
    let bytes = text.as_bytes();
    let run_at = |at: usize| bytes[at..].iter().take_while(|&&byte| byte == b'`').count();
    let mut spans = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let opening = run_at(at);
        let mut close = at + opening;
        let end = loop {
            match text[close..].find('`') {
                None => break None,
                Some(found) => {
                    let start = close + found;
                    let run = run_at(start);
                    if run == opening {
                        break Some(start);
                    }
                    close = start + run;
                }
            }
        };
        let Some(end) = end else {
            at += opening;
            continue;
        };
        let content = text[at + opening..end].replace('\n', " ");
        let content = match content.strip_prefix(' ').and_then(|inner| inner.strip_suffix(' ')) {
            Some(inner) if !inner.trim().is_empty() => inner.to_owned(),
            _ => content,
        };
        spans.push((line_at(at), content));
        at = end + opening;
    }
    spans
}

/// A quote as a regex over the suite's output: `…` and `<placeholder>`s match anything,
/// numbers, names in backticks or double quotes (a hook's, a span's), session ids and
/// their `[tag]`s, and paths or URLs match any one of their kind (a doc's
/// `pid 31833` is a snapshot's `pid [PID]`), and a line break or a run of spaces any
/// whitespace; every other word must be there as written.
fn quote_pattern(quote: &str) -> regex::Regex {
    let parts = regex::Regex::new(
        r#"`[^`]*`|"[^"\s]*"|…|<[^<>\s][^<>]*>|\[[0-9a-f]{8}\]|ses_[0-9A-Za-z]+|\s+|\S*/\S*|\d+(?:\.\d+)*"#,
    )
    .unwrap();
    let mut pattern = String::new();
    let mut last = 0;
    for part in parts.find_iter(quote) {
        pattern.push_str(&regex::escape(&quote[last..part.start()]));
        let text = part.as_str();
        pattern.push_str(match text.chars().next().unwrap() {
            '`' => r"`[^`\n]*`",
            '"' => r#""[^"\n]*""#,
            '[' => r"\[\S+\]",
            '…' | '<' => r".*?",
            c if c.is_whitespace() => r"\s+",
            _ => r"\S+",
        });
        last = part.end();
    }
    pattern.push_str(&regex::escape(&quote[last..]));
    regex::Regex::new(&pattern).unwrap()
}

/// What the suite has seen the binary print: every committed insta snapshot, the console
/// blocks of the pages, and the string literals of the tests (the inline snapshots and the
/// text each asserts of a real run), with Rust's escapes undone.
fn verified_output() -> String {
    let root = crate::common::root();
    let mut seen = String::new();
    for entry in walkdir::WalkDir::new(root.join("tests")) {
        let entry = entry.unwrap();
        let path = entry.path();
        let text = || std::fs::read_to_string(path).unwrap();
        match path.extension().and_then(|extension| extension.to_str()) {
            Some("snap") => seen.push_str(&text()),
            // Not this file: its own quotes would vouch for themselves.
            Some("rs") if path.starts_with(root.join("tests/it")) && !path.ends_with("tests/it/docs.rs") => {
                for literal in string_literals(&text()) {
                    seen.push_str(&literal);
                    seen.push('\n');
                }
            }
            _ => {}
        }
    }
    let console = regex::Regex::new(r"(?s)```console\n(.*?)```").unwrap();
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).unwrap();
        console.captures_iter(&text).for_each(|block| seen.push_str(&block[1]));
    }
    seen
}

/// The string literals of Rust source, raw ones as they are and others with `\"`, `\n`,
/// `\t`, `\\` and line continuations undone.
fn string_literals(source: &str) -> Vec<String> {
    let literal = regex::Regex::new(r##"(?s)r(#*)"(.*?)"|"((?:[^"\\]|\\.)*)""##).unwrap();
    let continuation = regex::Regex::new(r"\\\n\s*").unwrap();
    // A `'"'` would start a string that is not there.
    let source = source.replace("'\"'", "' '").replace("'\\\"'", "' '");
    let source = source.as_str();
    let mut literals = Vec::new();
    let mut at = 0;
    while let Some(found) = literal.captures_at(source, at) {
        let whole = found.get(0).unwrap();
        let text = match (found.get(1), found.get(3)) {
            // A raw string ends at `"` and as many `#` as it opened with.
            (Some(hashes), _) => {
                let closing = format!("\"{}", hashes.as_str());
                let body = whole.start() + 2 + hashes.len();
                let end = source[body..].find(&closing).map_or(source.len(), |end| body + end);
                at = (end + closing.len()).min(source.len());
                literals.push(source[body..end].to_owned());
                continue;
            }
            (None, Some(escaped)) => continuation
                .replace_all(escaped.as_str(), "")
                .replace("\\\"", "\"")
                .replace("\\n", "\n")
                .replace("\\t", "\t")
                .replace("\\\\", "\\"),
            _ => String::new(),
        };
        literals.push(text);
        at = whole.end();
    }
    literals
}
