//! JSON files as Node, npm and tsc read them (package.json, tsconfig.json): a UTF-8 byte
//! order mark at the start, which PowerShell and some editors write, is not part of the
//! text; and a value nested deep is read, up to [`DEEPEST`] levels (serde_json's own limit
//! is 128; Node's `JSON.parse` has none).

use serde::Deserialize;

/// The deepest nesting read. The resolver modules are loaded through (oxc_resolver, which
/// reads package.json with simd-json) reads no deeper, so a deeper file would fail there
/// with less clear words; and a bound keeps every later walk of the value (dropping it,
/// writing it back) well within any thread's stack.
pub const DEEPEST: usize = 1024;

/// The nesting serde_json reads on the calling thread's stack, its default limit: deeper
/// values are read on a thread with [`DEEP_STACK`].
const SHALLOW: usize = 128;

/// The stack a deep value is read on: serde_json recurses a few frames per level. Address
/// space, touched only as deep as the value goes.
const DEEP_STACK: usize = 64 * 1024 * 1024;

/// Why the text of a JSON file was not read.
#[derive(Debug)]
pub enum JsonError {
    /// It is not JSON (serde_json's words, with the line and column).
    Invalid(serde_json::Error),
    /// It nests deeper than [`DEEPEST`] levels: where it goes past them (1-based).
    TooDeep { line: usize, column: usize },
    /// No thread with a stack for its depth could be started.
    NoThread,
}

impl JsonError {
    /// What is wrong with the file, as the end of a sentence whose subject is the file:
    /// "`package.json` is not valid JSON (…)".
    pub fn clause(&self) -> String {
        match self {
            JsonError::Invalid(_) | JsonError::NoThread => format!("is not valid JSON ({self})"),
            JsonError::TooDeep { .. } => format!("is {self}"),
        }
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::Invalid(error) => error.fmt(f),
            JsonError::TooDeep { line, column } => write!(
                f,
                "nested more than {DEEPEST} levels deep (at line {line} column {column}), deeper than agent-sdk reads"
            ),
            JsonError::NoThread => f.write_str("no thread could be started to read it"),
        }
    }
}

impl std::error::Error for JsonError {}

/// `text` without a leading UTF-8 byte order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The JSON value of a file's `text`, a byte order mark at its start ignored.
pub fn parse(text: &str) -> Result<serde_json::Value, JsonError> {
    let text = without_bom(text);
    let depth = deepest(text)?;
    let read = || {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        deserializer.disable_recursion_limit();
        let value = serde_json::Value::deserialize(&mut deserializer)?;
        deserializer.end().map(|()| value)
    };
    let value = if depth <= SHALLOW {
        read()
    } else {
        std::thread::scope(|scope| {
            let thread = std::thread::Builder::new().stack_size(DEEP_STACK).spawn_scoped(scope, read);
            thread.ok().and_then(|thread| thread.join().ok()).ok_or(JsonError::NoThread)
        })?
    };
    value.map_err(JsonError::Invalid)
}

/// How deep `text` nests its arrays and objects (brackets in strings are not counted), or
/// where it goes past [`DEEPEST`]. One pass, no recursion: a hostile file costs its length.
fn deepest(text: &str) -> Result<usize, JsonError> {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for (at, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > DEEPEST {
                    let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
                    let line = text[..at].matches('\n').count() + 1;
                    return Err(JsonError::TooDeep { line, column: text[line_start..=at].chars().count() });
                }
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(deepest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_json() {
        assert_eq!(parse("\u{feff}{ \"type\": \"module\" }").unwrap()["type"], "module");
        assert_eq!(parse("{}").unwrap(), serde_json::json!({}));
        assert_eq!(without_bom("\u{feff}{}"), "{}");
        // Only at the start: anywhere else it is a character like any other.
        assert!(parse("{}\u{feff}").is_err());
    }

    fn nested(depth: usize) -> String {
        format!("{{\"name\":\"x\",\"deep\":{}1{}}}", "[".repeat(depth - 1), "]".repeat(depth - 1))
    }

    #[test]
    fn values_nest_as_deep_as_the_bound_and_no_deeper() {
        assert_eq!(deepest(&nested(DEEPEST)).unwrap(), DEEPEST);
        assert_eq!(parse(&nested(DEEPEST)).unwrap()["name"], "x");
        let error = parse(&nested(DEEPEST + 1)).unwrap_err();
        assert!(matches!(error, JsonError::TooDeep { line: 1, column: 1043 }), "{error:?}");
        assert_eq!(
            error.clause(),
            "is nested more than 1024 levels deep (at line 1 column 1043), deeper than agent-sdk reads"
        );
        // A hostile file costs one pass, and the same words.
        let hostile = format!("\n{}", "{\"a\":".repeat(1_000_000));
        assert!(matches!(parse(&hostile), Err(JsonError::TooDeep { line: 2, column: 5121 })));
    }

    #[test]
    fn brackets_in_strings_do_not_nest() {
        let text = format!("{{\"a\":\"{}\\\"{}\"}}", "[".repeat(5000), "{".repeat(5000));
        assert_eq!(deepest(&text).unwrap(), 1);
        assert_eq!(parse(&text).unwrap()["a"].as_str().unwrap().len(), 10_001);
        assert_eq!(
            parse("{ name: x }").unwrap_err().clause(),
            "is not valid JSON (key must be a string at line 1 column 3)"
        );
    }

    /// A value [`DEEPEST`] levels deep is dropped and written back (as `sdk` and `init` edit
    /// package.json) on the stack of an async runtime's worker (2 MiB), a quarter of the
    /// main thread's. (A debug build needs about 1 KiB a level to write it out pretty.)
    #[test]
    fn the_deepest_value_is_dropped_and_written_on_a_small_stack() {
        let value = parse(&nested(DEEPEST)).unwrap();
        let written = std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(move || {
                let text = serde_json::to_string_pretty(&value).unwrap();
                drop(value);
                text
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(written.matches('[').count(), DEEPEST - 1);
    }
}
