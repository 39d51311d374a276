//! Environment files for the hook runtime: `<dir>/.env` and each `--env-file`, read the way
//! Node's `--env-file` and the npm `dotenv` package read them, and handed to the Node child
//! only — never set in our own process, where `set_var` is unsafe and racy.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// A variable's name and value.
type Variable = (String, String);

/// A malformed entry: its 1-based line, the variable it sets when its name could be read,
/// and what is wrong with it. Never its value: an env file holds secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Malformed {
    line: usize,
    key: Option<String>,
    problem: Problem,
}

/// The most bytes one variable (`NAME=value` and a NUL) may have for Linux to start a
/// program with it (`MAX_ARG_STRLEN`, 32 pages); past it Node fails to start with
/// "Argument list too long", naming nothing. Other systems limit only the whole environment.
const MAX_VARIABLE_BYTES: Option<usize> = if cfg!(target_os = "linux") { Some(128 * 1024) } else { None };

/// Variables for the hook runtime from `.env` files, and where they came from.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LoadedEnv {
    /// Each variable the shell does not already set, sorted by name; a later file's value wins.
    pub vars: Vec<Variable>,
    /// The files read, in reading order (`<dir>/.env` first), as they were opened.
    pub files: Vec<PathBuf>,
    /// How many names in the files the shell already set: its value wins, so they are not in `vars`.
    pub set_by_shell: usize,
}

impl LoadedEnv {
    /// A variable as agent-sdk itself reads it (a model's key, `AGENT_SDK_MODEL`): the
    /// shell's value, else the files'. An empty value counts as unset.
    pub fn lookup(&self, name: &str) -> Option<String> {
        std::env::var(name)
            .ok()
            .or_else(|| self.vars.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()))
            .filter(|value| !value.is_empty())
    }

    /// The serve-log line, `loaded 3 variables from .env, ../shared.env`, or `None` when no file
    /// was read. It names files, never variables or values: a log is no place for secrets.
    pub fn summary(&self) -> Option<String> {
        if self.files.is_empty() {
            return None;
        }
        let files: Vec<String> = self.files.iter().map(|path| shown(path).display().to_string()).collect();
        let count = self.vars.len();
        let noun = if count == 1 { "variable" } else { "variables" };
        let mut line = format!("loaded {count} {noun} from {}", files.join(", "));
        if self.set_by_shell > 0 {
            line += &format!(" ({} more already set in the shell)", self.set_by_shell);
        }
        Some(line)
    }
}

/// A path as the user would type it: `./.env` is shown as `.env`.
fn shown(path: &Path) -> &Path {
    path.strip_prefix(".").unwrap_or(path)
}

/// Reads `<dir>/.env` when `dotenv` and it exists, then each of `env_files` (which must
/// exist). `shell_has` says whether our own environment sets a name; the shell wins.
pub fn load(
    dir: &Path,
    dotenv: bool,
    env_files: &[PathBuf],
    shell_has: impl Fn(&str) -> bool,
) -> Result<LoadedEnv, EnvFileError> {
    let mut loaded = LoadedEnv::default();
    let mut merged = BTreeMap::new();
    let default = dir.join(".env");
    let default = dotenv.then_some((default.as_path(), false));
    let named = env_files.iter().map(|path| (path.as_path(), true));
    for (path, required) in default.into_iter().chain(named) {
        let Some(bytes) = read(path, required)? else { continue };
        merged.extend(parse_file(path, &bytes)?);
        loaded.files.push(path.to_path_buf());
    }
    let (from_shell, vars): (Vec<_>, Vec<_>) = merged.into_iter().partition(|(name, _)| shell_has(name));
    loaded.vars = vars;
    loaded.set_by_shell = from_shell.len();
    Ok(loaded)
}

/// The file's bytes; `None` for an absent file nobody asked for by name.
fn read(path: &Path, required: bool) -> Result<Option<Vec<u8>>, EnvFileError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if !required && error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(EnvFileError::Unreadable { path: path.to_path_buf(), source }),
    }
}

fn parse_file(path: &Path, bytes: &[u8]) -> Result<Vec<Variable>, EnvFileError> {
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let before = &bytes[..error.valid_up_to()];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1);
        EnvFileError::NotUtf8 {
            path: path.to_path_buf(),
            line: 1 + before.iter().filter(|&&b| b == b'\n').count(),
            key: setting(&before[line_start..]),
        }
    })?;
    parse(text).map_err(|Malformed { line, key, problem }| EnvFileError::Syntax {
        path: path.to_path_buf(),
        line,
        key,
        problem,
    })
}

/// The variable a line sets, when the line's first bad byte is in its value: what is
/// before that byte on the line (`before`) holds a whole name and its `=`.
fn setting(before: &[u8]) -> Option<String> {
    let before = std::str::from_utf8(before).ok()?;
    let (name, _) = before.split_once('=')?;
    variable_name(name).ok()
}

/// Why a line is not `KEY=value`, a `#` comment or blank. None holds the line's text past a
/// variable's name: the rest may be a secret (`DATABASE_URL: postgres://app:secret@…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    NoEquals,
    NoName,
    /// A name that goes wrong: what of it is a name (maybe nothing), and the character
    /// after that, which is neither part of a name nor `=`.
    BadName {
        valid: String,
        then: char,
    },
    Unterminated(char),
    TextAfterQuote(char),
    NulByte,
    /// `NAME=value` is `bytes` long, over [`MAX_VARIABLE_BYTES`] with its NUL.
    TooLong {
        bytes: usize,
        limit: usize,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NOT_SHOWN: &str = "the rest of the line is not shown, as it may hold a secret";
        match self {
            Problem::NoEquals => f.write_str("expected `KEY=value`, a `#` comment or a blank line"),
            Problem::NoName => f.write_str("a variable name is missing before `=`"),
            Problem::BadName { valid, then } => {
                let then = crate::text::untrusted::escape(&then.to_string()).into_owned();
                match valid.as_str() {
                    "" => write!(
                        f,
                        "the line starts with `{then}`, not a variable name (letters, digits, `_`, `.`, `-`); {NOT_SHOWN}"
                    ),
                    valid => write!(
                        f,
                        "`{valid}` is followed by `{then}`, not `=`: a variable name has letters, digits, `_`, `.` and `-`; {NOT_SHOWN}"
                    ),
                }
            }
            Problem::Unterminated(q) => write!(f, "the value opened with {q} is never closed by a {q} at a line's end"),
            Problem::TextAfterQuote(q) => {
                write!(f, "text after the closing {q}: quote it all, or put `#` before a comment")
            }
            Problem::NulByte => f.write_str("the value holds a NUL byte, which no environment variable can"),
            Problem::TooLong { bytes, limit } => write!(
                f,
                "the variable is {bytes} bytes with its name, over the {} KiB Linux allows one variable: Node.js would fail to start with \"Argument list too long\"; read a value this big from a file instead",
                limit / 1024
            ),
        }
    }
}

/// An env file that cannot be used: a usage or environment error.
#[derive(Debug)]
pub enum EnvFileError {
    /// A `--env-file` that does not exist, or any env file that cannot be read.
    Unreadable { path: PathBuf, source: std::io::Error },
    /// A file that is not UTF-8 text; `line` holds the first bad byte, in the value of
    /// `key` when the name before it could be read.
    NotUtf8 { path: PathBuf, line: usize, key: Option<String> },
    /// A line that is not `KEY=value`, a `#` comment or blank; `key` is the variable it
    /// sets, when its name could be read.
    Syntax { path: PathBuf, line: usize, key: Option<String>, problem: Problem },
}

impl fmt::Display for EnvFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvFileError::Unreadable { path, source } => {
                let reason = crate::text::io_error::describe(source);
                write!(f, "env file `{}` cannot be read: {reason}", named(path))
            }
            EnvFileError::NotUtf8 { path, line, key: Some(key) } => {
                write!(f, "{}:{line}: `{key}`: its value is not UTF-8 text; save the env file as UTF-8", named(path))
            }
            EnvFileError::NotUtf8 { path, line, key: None } => {
                write!(f, "{}:{line}: not UTF-8 text; save the env file as UTF-8", named(path))
            }
            EnvFileError::Syntax { path, line, key: Some(key), problem } => {
                write!(f, "{}:{line}: `{key}`: {problem}", named(path))
            }
            EnvFileError::Syntax { path, line, key: None, problem } => write!(f, "{}:{line}: {problem}", named(path)),
        }
    }
}

impl std::error::Error for EnvFileError {}

/// A path as the user typed it, with its control characters shown escaped.
fn named(path: &Path) -> String {
    crate::text::untrusted::escape(&shown(path).display().to_string()).into_owned()
}

/// Each `KEY=value` in file order (a later one overrides an earlier one when merged), or the
/// 1-based line of the first malformed entry. dotenv would skip such a line or keep a stray quote
/// as text; we stop, because either way a variable silently goes missing or wrong.
fn parse(text: &str) -> Result<Vec<Variable>, Malformed> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // dotenv turns every `\r\n` and lone `\r` into `\n` before parsing, quoted values included.
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let (mut entries, mut start, mut line) = (Vec::new(), 0, 1);
    while start < text.len() {
        let (entry, next) = parse_entry(&text, start, line)?;
        entries.extend(entry);
        line += text[start..next].matches('\n').count();
        start = next;
    }
    Ok(entries)
}

/// The entry starting at `start` (none for a blank or comment line), and where the next begins.
fn parse_entry(text: &str, start: usize, line: usize) -> Result<(Option<Variable>, usize), Malformed> {
    let end = line_end(text, start);
    let this = &text[start..end];
    let trimmed = this.trim();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok((None, next_line(text, end)));
    }
    let malformed = |key: Option<&str>, problem| Malformed { line, key: key.map(str::to_owned), problem };
    let equals = this.find('=').ok_or_else(|| malformed(None, Problem::NoEquals))?;
    let name = variable_name(&this[..equals]).map_err(|problem| malformed(None, problem))?;
    let after_equals = &this[equals + 1..];
    let value_start = start + equals + 1 + (after_equals.len() - after_equals.trim_start().len());
    let (value, next) = match text[value_start..end].chars().next() {
        Some(quote @ ('"' | '\'' | '`')) => {
            quoted(text, value_start, quote).map_err(|problem| malformed(Some(&name), problem))?
        }
        _ => (unquoted(&text[value_start..end]).to_owned(), next_line(text, end)),
    };
    if value.contains('\0') {
        return Err(malformed(Some(&name), Problem::NulByte));
    }
    let bytes = name.len() + 1 + value.len();
    if let Some(limit) = MAX_VARIABLE_BYTES.filter(|&limit| bytes + 1 > limit) {
        return Err(malformed(Some(&name), Problem::TooLong { bytes, limit }));
    }
    Ok((Some((name, value)), next))
}

fn line_end(text: &str, from: usize) -> usize {
    text[from..].find('\n').map_or(text.len(), |offset| from + offset)
}

fn next_line(text: &str, end: usize) -> usize {
    (end + 1).min(text.len())
}

/// The name before `=`, without an `export ` prefix (`export=1` still sets `export`).
/// dotenv and Node accept these characters, and every OS accepts them in an environment.
fn variable_name(before_equals: &str) -> Result<String, Problem> {
    let trimmed = before_equals.trim();
    let name = match trimmed.strip_prefix("export") {
        Some(rest) if rest.starts_with(char::is_whitespace) => rest.trim_start(),
        _ => trimmed,
    };
    if name.is_empty() {
        return Err(Problem::NoName);
    }
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    match name.char_indices().find(|&(_, c)| !is_name_char(c)) {
        Some((at, then)) => Err(Problem::BadName { valid: name[..at].to_owned(), then }),
        None => Ok(name.to_owned()),
    }
}

/// An unquoted value ends at the first `#`, even without a space before it, as in dotenv and Node.
fn unquoted(raw: &str) -> &str {
    raw.find('#').map_or(raw, |hash| &raw[..hash]).trim()
}

/// The value opened by the `quote` at `open`, and where the next entry begins. As in dotenv, it
/// closes at the last quote, up to the first unescaped one, that only whitespace or a `#` comment
/// follows on its line: `"a\"b"` is `a\"b` and `"C:\dir\"` is `C:\dir\`; backslashes stay.
/// Each character is looked at a bounded number of times, so a long value reads in linear time.
fn quoted(text: &str, open: usize, quote: char) -> Result<(String, usize), Problem> {
    let (mut close, mut stopped_on_this_line) = (None, false);
    let mut from = open + 1;
    while let Some(offset) = text[from..].find(quote) {
        let at = from + offset;
        if ends_its_line(&text[at + 1..]) {
            close = Some(at);
        }
        if !text[..at].ends_with('\\') {
            stopped_on_this_line = !text[open..at].contains('\n');
            break;
        }
        from = at + 1;
    }
    if let Some(close) = close {
        return Ok((unescape(&text[open + 1..close], quote), next_line(text, line_end(text, close + 1))));
    }
    // dotenv's fallback, which JSON needs: a one-line value wrapped in quotes may hold more of them.
    let end = line_end(text, open);
    if let Some(inner) = unquoted(&text[open..end]).strip_prefix(quote).and_then(|rest| rest.strip_suffix(quote)) {
        return Ok((unescape(inner, quote), next_line(text, end)));
    }
    // dotenv would keep the quote as text; Node would cut the value short. Neither is what was meant.
    Err(if stopped_on_this_line { Problem::TextAfterQuote(quote) } else { Problem::Unterminated(quote) })
}

/// Whether what follows a closing quote (`rest`, up to the end of the text) leaves its line
/// blank or a `#` comment; only the blanks after the quote are read, not the rest of the line.
fn ends_its_line(rest: &str) -> bool {
    let after = rest.trim_start_matches(|c: char| c.is_whitespace() && c != '\n');
    after.is_empty() || after.starts_with(['\n', '#'])
}

/// Only double quotes turn `\n` into a newline, as in Node and dotenv.
fn unescape(inside: &str, quote: char) -> String {
    if quote == '"' { inside.replace("\\n", "\n") } else { inside.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parsed(text: &str) -> Vec<Variable> {
        parse(text).unwrap_or_else(|Malformed { line, problem, .. }| panic!("line {line}: {problem}"))
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<Variable> {
        list.iter().map(|(name, value)| (name.to_string(), value.to_string())).collect()
    }

    fn error_message(text: &[u8]) -> String {
        parse_file(Path::new("./.env"), text).unwrap_err().to_string()
    }

    #[test]
    fn key_value_with_optional_export_prefix() {
        let text = "A=1\nexport B=2\nexport\tC = 3\nexport=4\nA.b-c_1=5\n";
        assert_eq!(parsed(text), pairs(&[("A", "1"), ("B", "2"), ("C", "3"), ("export", "4"), ("A.b-c_1", "5")]));
    }

    #[test]
    fn blank_lines_and_comment_lines_are_skipped() {
        assert_eq!(parsed("\n  \n# A=1\n   # indented\nB=2\n\n"), pairs(&[("B", "2")]));
    }

    #[test]
    fn unquoted_values_are_trimmed_and_end_at_a_hash() {
        let text = "A=  spaced value  \nB=x # comment\nC=http://host/#fragment\nD=#\n";
        assert_eq!(parsed(text), pairs(&[("A", "spaced value"), ("B", "x"), ("C", "http://host/"), ("D", "")]));
    }

    #[test]
    fn empty_values() {
        assert_eq!(parsed("A=\nB=   \nC=\"\"\nD=''"), pairs(&[("A", ""), ("B", ""), ("C", ""), ("D", "")]));
    }

    #[test]
    fn single_double_and_backtick_quotes_keep_what_is_inside() {
        let text = "S=' a # b '\nB=`it's \"so\"`\nC=\"v\" # comment\nH=\"v\"#comment\n";
        let expected = [("S", " a # b "), ("B", "it's \"so\""), ("C", "v"), ("H", "v")];
        assert_eq!(parsed(text), pairs(&expected));
    }

    #[test]
    fn only_double_quotes_turn_backslash_n_into_a_newline() {
        let text = "D=\"a\\nb\\tc\"\nS='a\\nb'\nB=`a\\nb`\nU=a\\nb\n";
        assert_eq!(parsed(text), pairs(&[("D", "a\nb\\tc"), ("S", "a\\nb"), ("B", "a\\nb"), ("U", "a\\nb")]));
    }

    #[test]
    fn quoted_values_span_lines() {
        let text = "KEY=\"-----BEGIN\nabc\n-----END\"\nS='a\n\nb'\nB=`x\ny`\nNEXT=1\n";
        assert_eq!(
            parsed(text),
            pairs(&[("KEY", "-----BEGIN\nabc\n-----END"), ("S", "a\n\nb"), ("B", "x\ny"), ("NEXT", "1")])
        );
    }

    #[test]
    fn a_one_line_value_wrapped_in_quotes_may_hold_more_of_them() {
        let text = "JSON=\"{\"a\":\"b\\nc\"}\"\nS='it's' # comment\nNEXT=1";
        assert_eq!(parsed(text), pairs(&[("JSON", "{\"a\":\"b\nc\"}"), ("S", "it's"), ("NEXT", "1")]));
    }

    #[test]
    fn a_backslash_before_a_quote_is_kept_as_dotenv_does() {
        let text = "A=\"a\\\"b\"\nM=\"say \\\"hi\\\"\nbye\"\nWIN=\"C:\\dir\\\"\nNEXT=\"x\"\n";
        let expected = [("A", "a\\\"b"), ("M", "say \\\"hi\\\"\nbye"), ("WIN", "C:\\dir\\"), ("NEXT", "x")];
        assert_eq!(parsed(text), pairs(&expected));
    }

    #[test]
    fn a_bom_and_crlf_line_endings_are_read() {
        let text = "\u{feff}A=1\r\nB=\"x\r\ny\"\r\nC= 3 \r\n";
        assert_eq!(parsed(text), pairs(&[("A", "1"), ("B", "x\ny"), ("C", "3")]));
    }

    #[test]
    fn malformed_lines_are_errors_with_path_and_line() {
        assert_eq!(error_message(b"A=1\nJUST_A_NAME\n"), ".env:2: expected `KEY=value`, a `#` comment or a blank line");
        assert_eq!(error_message(b"\n=1\n"), ".env:2: a variable name is missing before `=`");
        assert!(error_message(b"A B=1").starts_with(".env:1: `A` is followed by ` `, not `=`"));
        assert!(error_message(b"K\xc3\xa9=1").starts_with(".env:1: `K` is followed by `\u{e9}`, not `=`"));
        assert!(error_message(b"A=\"x\" trailing").starts_with(".env:1: `A`: text after the closing \""));
        assert!(error_message(b"A=1\nB='never closed\nC=2").starts_with(".env:2: `B`: the value opened with '"));
        assert!(error_message(b"A=1\nB=x\0y").starts_with(".env:2: `B`: the value holds a NUL byte"));
    }

    #[test]
    fn a_malformed_line_names_its_key_never_its_value() {
        let message = error_message(b"A=1\nDATABASE_URL: postgres://app:Sup3rS3cret@db/app?sslmode=require\n");
        assert_eq!(
            message,
            ".env:2: `DATABASE_URL` is followed by `:`, not `=`: a variable name has letters, digits, `_`, `.` and `-`; the rest of the line is not shown, as it may hold a secret"
        );
        let message = error_message(b" :Sup3rS3cret=1\n");
        assert!(message.starts_with(".env:1: the line starts with `:`, not a variable name"), "{message}");
        assert!(!message.contains("Sup3r"), "{message}");
        let message = error_message(b"TOKEN=\"Sup3rS3cret\" Sup3rS3cret\n");
        assert!(message.starts_with(".env:1: `TOKEN`: text after the closing \""), "{message}");
        assert!(!message.contains("Sup3r"), "{message}");
    }

    #[test]
    fn escape_and_nul_bytes_in_a_message_are_shown_escaped() {
        let message = error_message(b"A\x1b]0;owned\x07=1\n");
        assert!(message.starts_with(".env:1: `A` is followed by `\\u{1b}`, not `=`"), "{message}");
        let message = error_message(b"\0A=1\n");
        assert!(message.starts_with(".env:1: the line starts with `\\u{0}`"), "{message}");
        let error = EnvFileError::NotUtf8 { path: PathBuf::from("evil\u{1b}[2J.env"), line: 1, key: None };
        assert!(error.to_string().starts_with("evil\\u{1b}[2J.env:1: "), "{error}");
    }

    #[test]
    fn a_long_quoted_value_with_many_quotes_is_read_in_linear_time() {
        // 6 MB of escaped quotes: read in linear time this takes well under a second; looking
        // to each quote's line end, as it once did, took minutes (an 800 KB line: 9 s).
        let value = "\\\"x".repeat(2_000_000);
        let text = format!("A=\"{value}\"\nB=1\n");
        assert_eq!(quoted(&text, 2, '"'), Ok((value, text.len() - "B=1\n".len())));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_variable_over_128_kib_is_named_with_the_limit() {
        let fits = format!("BIG={}\n", "x".repeat(128 * 1024 - "BIG=".len() - 1));
        assert_eq!(parse(&fits).map(|vars| vars[0].1.len()), Ok(128 * 1024 - 5));
        let over = format!("A=1\nBIG=\"{}\"\n", "x".repeat(128 * 1024 - "BIG=".len()));
        let message = error_message(over.as_bytes());
        assert_eq!(
            message,
            ".env:2: `BIG`: the variable is 131072 bytes with its name, over the 128 KiB Linux allows one variable: Node.js would fail to start with \"Argument list too long\"; read a value this big from a file instead"
        );
    }

    #[test]
    fn an_unclosed_quote_is_reported_on_its_own_line_not_where_the_next_quote_is() {
        assert!(
            error_message(b"A=\"open\nB=\"x\"\n").starts_with(".env:1: `A`: the value opened with \" is never closed")
        );
    }

    #[test]
    fn non_utf8_is_an_error_naming_the_line() {
        assert_eq!(
            error_message(b"A=1\nB=\xff\n"),
            ".env:2: `B`: its value is not UTF-8 text; save the env file as UTF-8"
        );
        assert_eq!(
            error_message(b"A=1\nB=ok\xff\n"),
            ".env:2: `B`: its value is not UTF-8 text; save the env file as UTF-8"
        );
        // In the name itself, or on a line with no `=` before it: no name to give.
        assert_eq!(error_message(b"A=1\nK\xff=1\n"), ".env:2: not UTF-8 text; save the env file as UTF-8");
        assert_eq!(error_message(b"\xff\n"), ".env:1: not UTF-8 text; save the env file as UTF-8");
    }

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn shell_beats_a_later_file_which_beats_an_earlier_one() {
        let dir = project(&[(".env", "A=dotenv\nB=dotenv\nC=dotenv\nA=dotenv-again\n"), ("x.env", "B=x\nSHELL_VAR=x")]);
        let x = dir.path().join("x.env");
        let loaded =
            load(dir.path(), true, std::slice::from_ref(&x), |name| name == "SHELL_VAR" || name == "C").unwrap();
        assert_eq!(loaded.vars, pairs(&[("A", "dotenv-again"), ("B", "x")]));
        assert_eq!(loaded.files, [dir.path().join(".env"), x]);
        assert_eq!(loaded.set_by_shell, 2);
    }

    #[test]
    fn an_absent_dotenv_is_fine() {
        let dir = project(&[]);
        assert_eq!(load(dir.path(), true, &[], |_| false).unwrap(), LoadedEnv::default());
    }

    #[test]
    fn a_missing_or_malformed_env_file_is_an_error_naming_it() {
        let dir = project(&[(".env", "A=1"), ("bad.env", "A=1\n\nnope\n")]);
        let (missing, bad) = (dir.path().join("missing.env"), dir.path().join("bad.env"));
        let error = load(dir.path(), true, std::slice::from_ref(&missing), |_| false).unwrap_err();
        assert!(matches!(&error, EnvFileError::Unreadable { path, .. } if *path == missing));
        let expected = format!("env file `{}` cannot be read: it does not exist", missing.display());
        assert!(error.to_string().starts_with(&expected), "{error}");
        let error = load(dir.path(), true, std::slice::from_ref(&bad), |_| false).unwrap_err().to_string();
        assert!(error.starts_with(&format!("{}:3: expected `KEY=value`", bad.display())), "{error}");
    }

    #[test]
    fn no_env_file_reads_nothing_not_even_a_missing_one() {
        let dir = project(&[(".env", "A=1")]);
        let loaded = load(dir.path(), false, &[], |_| false).unwrap();
        assert_eq!(loaded, LoadedEnv::default());
        assert_eq!(loaded.summary(), None);
    }

    #[test]
    fn the_log_line_counts_variables_and_names_files_as_typed() {
        let mut loaded = LoadedEnv {
            vars: pairs(&[("A", "secret"), ("B", "2"), ("C", "3")]),
            files: vec![Path::new(".").join(".env"), PathBuf::from("../shared.env")],
            set_by_shell: 0,
        };
        assert_eq!(loaded.summary().unwrap(), "loaded 3 variables from .env, ../shared.env");
        loaded.vars.truncate(1);
        loaded.set_by_shell = 2;
        let line = loaded.summary().unwrap();
        assert_eq!(line, "loaded 1 variable from .env, ../shared.env (2 more already set in the shell)");
        assert!(!line.contains("secret"));
    }

    /// Pieces that meet at the parser's edges: quotes, escapes, comments, line ends, multi-byte text.
    fn env_like_text() -> impl Strategy<Value = String> {
        const PIECES: &[&str] = &[
            "A", "=", "\"", "'", "`", "#", "\\", "\\n", " ", "\t", "\n", "\r", "\r\n", "export ", "\u{feff}", "é", "\0",
        ];
        proptest::collection::vec(proptest::sample::select(PIECES), 0..48).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = parse_file(Path::new(".env"), &bytes);
        }

        #[test]
        fn env_like_text_never_panics(text in env_like_text()) {
            let _ = parse(&text);
        }

        #[test]
        fn any_value_without_its_quote_survives_single_quotes(name in "[A-Za-z_][A-Za-z0-9_]{0,8}", value in "[^'\r\0]*") {
            let text = format!("{name}='{value}'\nNEXT=1\n");
            prop_assert_eq!(parse(&text), Ok(vec![(name, value), ("NEXT".to_owned(), "1".to_owned())]));
        }
    }
}
