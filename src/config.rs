//! The project's settings: `agent-sdk.json` or `agent-sdk.jsonc` (either is JSON with comments
//! and trailing commas) or the `"agentSdk"` key of a `package.json`, the nearest found from the project folder up to the
//! repository's or workspace's root (as cascading-config tools stop), and only if its owner
//! is one to trust. Rule severities, `denyWarnings`, extra ignore globs for discovery, and
//! the defaults of `test`. `validate`, `run`, `dev`, `test` and the language server all read
//! it through [`find`]; a problem in it is a located `config::invalid` error, never a silent
//! default.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use jsonc_parser::ast::{Object, ObjectProp, Value};
use jsonc_parser::common::Ranged;

use crate::diagnostics::{Code, Diagnostic, Severity, SourceFile};

/// The settings file's names, the one that wins when a folder holds both first: `.json` was
/// the only name before `.jsonc`, so a folder that has both keeps the settings it had (Biome
/// reads `biome.json` before `biome.jsonc` the same way).
pub const FILE_NAMES: [&str; 2] = ["agent-sdk.json", "agent-sdk.jsonc"];
/// The key of a `package.json` that holds the same settings.
pub const PACKAGE_KEY: &str = "agentSdk";
/// The published schema (`$schema` may name it; editors then complete and check the file), at
/// the release's tag: the schema of `main` may list codes this version does not know, which
/// it would refuse as `config::invalid`.
pub const SCHEMA_URL: &str =
    concat!(env!("CARGO_PKG_REPOSITORY"), "/raw/v", env!("CARGO_PKG_VERSION"), "/agent-sdk.schema.json");

/// The settings in effect for one project.
#[derive(Debug, Default)]
pub struct Config {
    /// Where they were read from; `None` when no file holds any (every default applies).
    pub source: Option<Source>,
    /// Each configured code and what it is now.
    pub rules: HashMap<Code, Level>,
    /// Warnings fail `validate`, as with `--deny-warnings`.
    pub deny_warnings: bool,
    /// `validate` and `info` run no code, as with `--no-exec`: extension mounts are not run.
    pub no_exec: bool,
    /// Paths under the hooks folder, relative to the project folder, that discovery skips.
    pub ignore: Option<GlobSet>,
    /// Where `ignore`'s value is in the file (for a finding about it).
    pub ignore_at: Option<(u32, u32)>,
    pub test: TestSettings,
    /// What is wrong with the file, located in it (`config::invalid`).
    pub diagnostics: Vec<Diagnostic>,
}

/// The file the settings came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub path: PathBuf,
    /// As diagnostics name it: relative to the project folder (`agent-sdk.json`,
    /// `../../package.json`).
    pub display_path: String,
    /// The `"agentSdk"` key of this package.json, not an `agent-sdk.json`.
    pub in_package_json: bool,
    pub text: String,
    /// How many folders above the project folder it is (0: in it).
    pub depth: usize,
}

impl Source {
    /// Whether the file is in a folder above the project's (every command says so).
    pub fn is_from_above(&self) -> bool {
        self.depth > 0
    }
}

/// What a rule is set to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Off,
    On(Severity),
}

/// `test`'s defaults; its flags win over them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TestSettings {
    /// `--env-file`s, resolved from the settings file's folder.
    pub env_files: Vec<PathBuf>,
    /// `--coverage`.
    pub coverage: bool,
    /// Arguments for Node after `--` (`["--test-timeout=5000"]`).
    pub node_args: Vec<String>,
}

/// The top-level keys, as the schema has them.
const KEYS: [&str; 6] = ["$schema", "rules", "denyWarnings", "noExec", "ignore", "test"];
const TEST_KEYS: [&str; 3] = ["envFile", "coverage", "nodeArgs"];
const LEVELS: [&str; 4] = ["off", "advice", "warning", "error"];

impl Config {
    /// Applies the rule severities to `diagnostics`: a rule `off` removes its findings, any
    /// other level becomes theirs.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if self.rules.is_empty() {
            return;
        }
        diagnostics.retain_mut(|diagnostic| match self.rules.get(&diagnostic.code) {
            Some(Level::Off) => false,
            Some(Level::On(severity)) => {
                diagnostic.severity = *severity;
                true
            }
            None => true,
        });
    }

    /// Whether discovery skips the path `relative` (to the project folder, with `/`).
    pub fn ignores(&self, relative: &str) -> bool {
        self.ignore.as_ref().is_some_and(|globs| globs.is_match(relative))
    }
}

/// The settings of the project at `project_dir`: from the nearest `agent-sdk.json`,
/// `agent-sdk.jsonc`, or `package.json` with an `"agentSdk"` key, among the [`candidates`]
/// (in one folder, the first of these that exists wins; the others are not read). A file owned by another user (see
/// [`trusted_owner`]) is not used: the defaults apply, with a `config::not-owned` warning.
pub fn find(project_dir: &Path) -> Config {
    let project_owner =
        std::fs::metadata(project_dir).ok().and_then(|metadata| crate::platform::files::owner(&metadata));
    for (depth, path) in candidates(project_dir) {
        // The owner and the text of one open file, so that neither can change in between.
        let Ok(mut file) = std::fs::File::open(&path) else { continue };
        let mut text = String::new();
        if std::io::Read::read_to_string(&mut file, &mut text).is_err() {
            continue;
        }
        let owner = file.metadata().ok().and_then(|metadata| crate::platform::files::owner(&metadata));
        let up = "../".repeat(depth);
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        let config = if FILE_NAMES.contains(&name) {
            let display_path = format!("{up}{name}");
            read(Source { path, display_path, in_package_json: false, text, depth })
        } else if text.contains(&format!("\"{PACKAGE_KEY}\"")) {
            let display_path = format!("{up}package.json");
            let config = read(Source { path, display_path, in_package_json: true, text, depth });
            // A package.json whose `agentSdk` key is only in a string is not a settings file.
            if config.source.is_none() {
                continue;
            }
            config
        } else {
            continue;
        };
        return match owner {
            Some(owner) if !trusted_owner(owner, project_owner) => not_owned(config, owner),
            _ => config,
        };
    }
    Config::default()
}

/// Whether a settings file owned by `owner` may apply to a project whose folder is owned by
/// `project_owner`: when it is the user running agent-sdk's, root's (who could change
/// anything anyway), or the project folder's owner's (whose hooks `run` would run anyway).
/// Anyone else's could have been put in a folder above the project by whoever may write there.
pub fn trusted_owner(owner: u32, project_owner: Option<u32>) -> bool {
    owner == crate::fs::owner::current_user() || owner == 0 || Some(owner) == project_owner
}

/// The defaults, and a warning that the settings in `refused` (owned by `owner`) are not used.
fn not_owned(refused: Config, owner: u32) -> Config {
    let Some(source) = refused.source else { return refused };
    let mut config = Config::default();
    let diagnostic = Diagnostic::new(
        Code::SettingsNotOwned,
        format!(
            "this settings file is owned by {}, not by you ({}) nor by the project folder's owner, so its settings are not used",
            crate::fs::owner::describe(owner),
            crate::fs::owner::describe(crate::fs::owner::current_user()),
        ),
        "if you trust it, give it to yourself or the project's owner (`chown`); otherwise remove it (anyone who can write a folder above the project could have put it there). Until then the defaults apply",
    );
    config.diagnostics.push(diagnostic.with_path(source.display_path));
    config
}

/// Every file that could hold the settings of the project at `project_dir`, nearest first,
/// each with how many folders up it is: `agent-sdk.json`, `agent-sdk.jsonc`, then
/// `package.json`, of each of
/// the [`searched_folders`] (`dev` watches them all, so a settings file made or changed
/// anywhere there re-checks the hooks).
pub fn candidates(project_dir: &Path) -> Vec<(usize, PathBuf)> {
    let start = project_dir.canonicalize().unwrap_or_else(|_| project_dir.to_path_buf());
    searched_folders(&start)
        .into_iter()
        .enumerate()
        .flat_map(|(depth, folder)| {
            FILE_NAMES.into_iter().chain(["package.json"]).map(move |name| (depth, folder.join(name)))
        })
        .collect()
}

/// The folders whose settings may apply to the project at `start`, nearest first: the
/// project folder and each one above it up to the repository's root (the first with a
/// `.git`, a folder or a worktree's file) or a workspace's root (a package.json with
/// `"workspaces"`, or a `pnpm-workspace.yaml`), whichever comes first. With neither, only the
/// project folder: a folder above a project outside any repository (a shared temporary
/// folder) is nobody's in particular.
fn searched_folders(start: &Path) -> Vec<&Path> {
    let mut folders = Vec::new();
    for folder in start.ancestors() {
        folders.push(folder);
        if is_repository_or_workspace_root(folder) {
            return folders;
        }
    }
    vec![start]
}

/// Whether `folder` holds a `.git` (a folder, or the file of a worktree or submodule), or is
/// the root of an npm, yarn or pnpm workspace.
pub(crate) fn is_repository_or_workspace_root(folder: &Path) -> bool {
    if folder.join(".git").symlink_metadata().is_ok() || folder.join("pnpm-workspace.yaml").is_file() {
        return true;
    }
    let Ok(text) = std::fs::read_to_string(folder.join("package.json")) else { return false };
    if !text.contains("\"workspaces\"") {
        return false;
    }
    let text = crate::fs::json::without_bom(&text);
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|package| package.get("workspaces").is_some())
}

/// Reads the settings in `source`.
fn read(source: Source) -> Config {
    let mut config = Config::default();
    let text = crate::fs::json::without_bom(&source.text);
    let offset = (source.text.len() - text.len()) as u32;
    let file = SourceFile::new(&source.display_path, &source.text);
    let folder = source.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut reader = Reader { file: &file, folder, offset, config: &mut config };
    match jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default()) {
        Err(error) => {
            let range = error.range();
            reader.invalid(
                (range.start, range.end),
                "not JSON",
                format!("{} cannot be read: {}", file_name(&source.path), error.kind()),
                "fix the syntax at the place shown (comments and trailing commas are allowed)",
            );
        }
        Ok(parsed) => match (parsed.value, source.in_package_json) {
            (Some(Value::Object(root)), false) => reader.settings(&root),
            (Some(Value::Object(package)), true) => match package.get(PACKAGE_KEY) {
                Some(ObjectProp { value: Value::Object(settings), .. }) => reader.settings(settings),
                Some(prop) => reader.not_an_object(&prop.value, PACKAGE_KEY),
                None => return Config::default(),
            },
            (Some(value), _) => reader.not_an_object(&value, "the file"),
            (None, true) => return Config::default(),
            (None, false) => {}
        },
    }
    config.source = Some(source);
    config
}

/// Reads one settings object into `config`, reporting what it cannot take.
struct Reader<'r> {
    file: &'r SourceFile<'r>,
    /// The folder of the file being read: relative paths in it are from there.
    folder: PathBuf,
    /// Where the parsed text starts in the file (after a byte order mark).
    offset: u32,
    config: &'r mut Config,
}

impl Reader<'_> {
    fn settings(&mut self, settings: &Object) {
        for prop in &settings.properties {
            match prop.name.as_str() {
                "$schema" => {
                    if prop.value.as_string_lit().is_none() {
                        self.wrong_type(&prop.value, "`$schema`", "a string (the schema's URL)");
                    }
                }
                "rules" => self.rules(&prop.value),
                "denyWarnings" => self.config.deny_warnings = self.boolean(&prop.value, "`denyWarnings`"),
                "noExec" => self.config.no_exec = self.boolean(&prop.value, "`noExec`"),
                "ignore" => self.ignore(&prop.value),
                "test" => self.test(&prop.value),
                other => self.unknown_key(prop, other, &KEYS, "a setting"),
            }
        }
    }

    fn rules(&mut self, value: &Value) {
        let Value::Object(rules) = value else { return self.not_an_object(value, "`rules`") };
        for prop in &rules.properties {
            let name = prop.name.as_str();
            let Some(code) = Code::from_name(name).or_else(|| Code::from_name(&format!("hooks::{name}"))) else {
                let names = Code::ALL.iter().map(|code| code.as_str());
                let suggestion = crate::diagnostics::suggest::nearest(name, names).or_else(|| {
                    crate::diagnostics::suggest::nearest(
                        &format!("hooks::{name}"),
                        Code::ALL.iter().map(|code| code.as_str()),
                    )
                });
                let help = match suggestion {
                    Some(code) => format!("did you mean `{code}`?"),
                    None => "name a code as `validate` prints it (docs/codes.md lists them); the `hooks::` prefix may be left out".to_owned(),
                };
                self.invalid(range_of(&prop.name), "not a code", format!("`{name}` is not a diagnostic code"), help);
                continue;
            };
            let Some(level) = prop.value.as_string_lit().map(|level| level.value.as_ref()) else {
                self.wrong_type(
                    &prop.value,
                    &format!("the level of `{}`", code.as_str()),
                    "one of \"off\", \"advice\", \"warning\", \"error\"",
                );
                continue;
            };
            let level = match level {
                "off" => Level::Off,
                "advice" => Level::On(Severity::Advice),
                "warning" => Level::On(Severity::Warning),
                "error" => Level::On(Severity::Error),
                other => {
                    let help = match crate::diagnostics::suggest::nearest(other, LEVELS) {
                        Some(level) => format!(
                            "did you mean \"{level}\"? (a level is one of \"off\", \"advice\", \"warning\", \"error\")"
                        ),
                        None => "a level is one of \"off\", \"advice\", \"warning\", \"error\"".to_owned(),
                    };
                    self.invalid(range_of(&prop.value), "not a level", format!("\"{other}\" is not a level"), help);
                    continue;
                }
            };
            if code.severity() == Severity::Error && code.stops_loading() && level != Level::On(Severity::Error) {
                self.invalid(
                    range_of(&prop.value),
                    "an error cannot be lowered",
                    format!("`{}` is an error: what it finds keeps a hook from loading, so it cannot be turned off or lowered", code.as_str()),
                    "remove this rule; fix what the error finds instead",
                );
                continue;
            }
            self.config.rules.insert(code, level);
        }
    }

    fn ignore(&mut self, value: &Value) {
        let Value::Array(globs) = value else { return self.wrong_type(value, "`ignore`", "an array of glob patterns") };
        let (start, end) = range_of(value);
        self.config.ignore_at = Some((start as u32 + self.offset, end as u32 + self.offset));
        let mut set = GlobSetBuilder::new();
        for element in &globs.elements {
            let Some(pattern) = element.as_string_lit() else {
                self.wrong_type(element, "an `ignore` pattern", "a string");
                continue;
            };
            match Glob::new(&pattern.value) {
                Ok(glob) => {
                    set.add(glob);
                }
                Err(error) => self.invalid(
                    range_of(element),
                    "not a glob",
                    format!("`{}` is not a glob pattern: {}", pattern.value, error.kind()),
                    "write a glob relative to the project folder, e.g. \"bot/hooks/experimental/**\"",
                ),
            }
        }
        self.config.ignore = set.build().ok();
    }

    fn test(&mut self, value: &Value) {
        let Value::Object(test) = value else { return self.not_an_object(value, "`test`") };
        for prop in &test.properties {
            match prop.name.as_str() {
                "envFile" => {
                    let files = self.strings(&prop.value, "`test.envFile`");
                    self.config.test.env_files = files.into_iter().map(|file| self.folder.join(file)).collect();
                }
                "coverage" => self.config.test.coverage = self.boolean(&prop.value, "`test.coverage`"),
                "nodeArgs" => self.config.test.node_args = self.strings(&prop.value, "`test.nodeArgs`"),
                other => self.unknown_key(prop, other, &TEST_KEYS, "a setting of `test`"),
            }
        }
    }

    fn boolean(&mut self, value: &Value, what: &str) -> bool {
        match value {
            Value::BooleanLit(boolean) => boolean.value,
            _ => {
                self.wrong_type(value, what, "true or false");
                false
            }
        }
    }

    fn strings(&mut self, value: &Value, what: &str) -> Vec<String> {
        let Value::Array(array) = value else {
            self.wrong_type(value, what, "an array of strings");
            return Vec::new();
        };
        let mut strings = Vec::new();
        for element in &array.elements {
            match element.as_string_lit() {
                Some(string) => strings.push(string.value.to_string()),
                None => self.wrong_type(element, &format!("an element of {what}"), "a string"),
            }
        }
        strings
    }

    fn unknown_key(&mut self, prop: &ObjectProp, name: &str, known: &[&'static str], what: &str) {
        let help = match crate::diagnostics::suggest::nearest(name, known.iter().copied()) {
            Some(key) => format!("did you mean `{key}`? (the settings are {})", crate::printer::code_list(known)),
            None => format!("the settings are {} (see docs/configuration.md)", crate::printer::code_list(known)),
        };
        self.invalid(range_of(&prop.name), "unknown key", format!("`{name}` is not {what}"), help);
    }

    fn not_an_object(&mut self, value: &Value, what: &str) {
        self.wrong_type(value, what, "an object");
    }

    fn wrong_type(&mut self, value: &Value, what: &str, expected: &str) {
        self.invalid(
            range_of(value),
            "wrong type",
            format!("{what} must be {expected}"),
            format!("write {what} as {expected} (see docs/configuration.md)"),
        );
    }

    fn invalid(&mut self, (start, end): (usize, usize), label: &str, message: String, help: impl Into<String>) {
        let span = (start as u32 + self.offset, end as u32 + self.offset);
        self.config.diagnostics.push(self.file.diagnostic(Code::InvalidConfig, span, label, message, help));
    }
}

/// The name of the settings file at `path`, as a message names it.
fn file_name(path: &Path) -> std::borrow::Cow<'_, str> {
    path.file_name().map_or("the settings file".into(), |name| name.to_string_lossy())
}

fn range_of(node: &impl Ranged) -> (usize, usize) {
    let range = node.range();
    (range.start, range.end)
}

/// The JSON Schema of the settings file (draft 2020-12), with every code's rule and summary
/// from the registry: `agent-sdk.schema.json` at the repository's root is this, and a test
/// fails when they differ (`UPDATE_SCHEMA=1 cargo test --lib config::` writes it again).
pub fn schema() -> serde_json::Value {
    use serde_json::json;
    let mut rules = serde_json::Map::new();
    for code in Code::ALL {
        let levels: Vec<&str> =
            if code.severity() == Severity::Error && code.stops_loading() { vec!["error"] } else { LEVELS.to_vec() };
        let rule = json!({
            "description": format!("{} (by default: {})", code.summary(), code.severity().as_str()),
            "enum": levels,
        });
        if let Some(short) = code.as_str().strip_prefix("hooks::") {
            rules.insert(short.to_owned(), rule.clone());
        }
        rules.insert(code.as_str().to_owned(), rule);
    }
    let strings = json!({ "type": "array", "items": { "type": "string" } });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_URL,
        "title": "agent-sdk settings",
        "description": "agent-sdk.json or agent-sdk.jsonc, or the \"agentSdk\" key of a package.json: read by validate, run, dev, test and the language server. See docs/configuration.md.",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "$schema": { "type": "string", "description": "This schema's URL, for editors." },
            "rules": {
                "type": "object",
                "description": "The level of each diagnostic code (with or without its `hooks::` prefix): off, advice, warning or error. An error cannot be lowered.",
                "additionalProperties": false,
                "properties": rules,
            },
            "denyWarnings": { "type": "boolean", "description": "Warnings fail `validate`, as with --deny-warnings." },
            "noExec": { "type": "boolean", "description": "`validate` and `info` run no code, as with --no-exec: extension mounts are checked statically, each with an `extensions::not-run` note." },
            "ignore": {
                "description": "Glob patterns, relative to the project folder, of paths under the hooks folder that discovery skips (e.g. \"bot/hooks/experimental/**\").",
                "type": "array",
                "items": { "type": "string" },
            },
            "test": {
                "type": "object",
                "description": "Defaults of `agent-sdk test`; its flags win over them.",
                "additionalProperties": false,
                "properties": {
                    "envFile": { "description": "Files of variables for the tests (as --env-file), relative to this file's folder.", "type": strings["type"], "items": strings["items"] },
                    "coverage": { "type": "boolean", "description": "Measure coverage (as --coverage)." },
                    "nodeArgs": { "description": "Arguments for Node's test runner, used when none follow `--` (e.g. [\"--test-timeout=5000\"]).", "type": strings["type"], "items": strings["items"] },
                },
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Config {
        read(Source {
            path: PathBuf::from("/p/agent-sdk.json"),
            display_path: FILE_NAMES[0].into(),
            in_package_json: false,
            text: text.into(),
            depth: 0,
        })
    }

    #[test]
    fn the_published_schema_is_generated_from_the_codes() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("agent-sdk.schema.json");
        let generated = format!("{}\n", serde_json::to_string_pretty(&schema()).unwrap());
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "agent-sdk.schema.json is out of date: UPDATE_SCHEMA=1 cargo test --lib config::"
        );
    }

    #[test]
    fn rules_take_a_code_with_or_without_its_prefix_and_apply_their_level() {
        let config = read_text(
            r#"{ "rules": { "unknown-event": "off", "hooks::dynamic-events": "warning", "hooks::parse-error": "error" } }"#,
        );
        assert!(config.diagnostics.is_empty(), "{:?}", config.diagnostics);
        assert_eq!(config.rules[&Code::UnknownEvent], Level::Off);
        let mut diagnostics = vec![
            Diagnostic::new(Code::UnknownEvent, "", ""),
            Diagnostic::new(Code::DynamicEvents, "", ""),
            Diagnostic::new(Code::EmptyEvents, "", ""),
        ];
        config.apply(&mut diagnostics);
        let left: Vec<(Code, Severity)> = diagnostics.iter().map(|d| (d.code, d.severity)).collect();
        assert_eq!(left, [(Code::DynamicEvents, Severity::Warning), (Code::EmptyEvents, Severity::Warning)]);
    }

    #[test]
    fn comments_trailing_commas_and_a_byte_order_mark_are_read() {
        let config = read_text(
            "\u{feff}{\n  // why\n  \"denyWarnings\": true, /* and */\n  \"ignore\": [\"bot/hooks/x/**\",],\n}\n",
        );
        assert!(config.diagnostics.is_empty(), "{:?}", config.diagnostics);
        assert!(config.deny_warnings && config.ignores("bot/hooks/x/a.ts") && !config.ignores("bot/hooks/a.ts"));
    }

    #[test]
    fn every_problem_is_located_and_nothing_panics() {
        for text in [
            "",
            "[]",
            "{",
            "{\"rules\": 1}",
            "{\"test\": {\"envFile\": [1]}}",
            "{\"ignore\": [\"a[\"]}",
            "\u{feff}{\"x\": 1}",
        ] {
            let config = read_text(text);
            assert!(!config.diagnostics.is_empty() || text.is_empty(), "{text:?}");
            for diagnostic in &config.diagnostics {
                let label = diagnostic.label.as_ref().unwrap();
                assert!(label.end as usize <= text.len(), "{text:?}");
            }
        }
    }

    #[test]
    fn folders_are_searched_up_to_the_repository_or_workspace_root_and_only_the_project_s_without() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let project = root.join("repo/packages/agent");
        std::fs::create_dir_all(&project).unwrap();
        let searched = |project: &Path| -> Vec<PathBuf> {
            let mut folders: Vec<PathBuf> = candidates(project).into_iter().map(|(_, path)| path).collect();
            folders.retain(|path| path.ends_with(FILE_NAMES[0]));
            folders.into_iter().map(|path| path.parent().unwrap().to_path_buf()).collect()
        };
        // No `.git` anywhere above a temporary folder's project: the project folder alone.
        if !root.ancestors().any(|folder| folder.join(".git").exists()) {
            assert_eq!(searched(&project), std::slice::from_ref(&project));
        }
        std::fs::write(root.join("repo/.git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(searched(&project), [project.clone(), root.join("repo/packages"), root.join("repo")]);
        std::fs::write(root.join("repo/packages/package.json"), "{ \"workspaces\": [\"*\"] }").unwrap();
        assert_eq!(searched(&project), [project.clone(), root.join("repo/packages")]);
        // A package.json that only mentions the word is not a workspace's.
        std::fs::write(root.join("repo/packages/package.json"), "{ \"description\": \"\\\"workspaces\\\"\" }").unwrap();
        assert_eq!(searched(&project).len(), 3);
    }

    #[test]
    fn agent_sdk_jsonc_is_read_and_in_one_folder_json_wins_then_jsonc_then_package_json() {
        let project = tempfile::tempdir().unwrap();
        let project = project.path();
        let write = |name: &str, text: &str| std::fs::write(project.join(name), text).unwrap();
        let read_from = |project: &Path| {
            let config = find(project);
            assert!(config.diagnostics.is_empty(), "{:?}", config.diagnostics);
            (config.source.unwrap().display_path, config.rules)
        };
        write("package.json", r#"{ "agentSdk": { "rules": { "unknown-event": "advice" } } }"#);
        write(
            "agent-sdk.jsonc",
            "{\n  // comments, as in agent-sdk.json\n  \"rules\": { \"unknown-event\": \"off\", },\n}\n",
        );
        let (from, rules) = read_from(project);
        assert_eq!(from, "agent-sdk.jsonc");
        assert_eq!(rules[&Code::UnknownEvent], Level::Off);
        write("agent-sdk.json", r#"{ "rules": { "unknown-event": "warning" } }"#);
        let (from, rules) = read_from(project);
        assert_eq!(from, "agent-sdk.json");
        assert_eq!(rules[&Code::UnknownEvent], Level::On(Severity::Warning));
        let names: Vec<String> = candidates(project)
            .into_iter()
            .filter(|(depth, _)| *depth == 0)
            .map(|(_, path)| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["agent-sdk.json", "agent-sdk.jsonc", "package.json"]);
    }

    #[test]
    fn a_syntax_error_names_the_file_it_is_in() {
        let source = |name: &str| Source {
            path: PathBuf::from("/p").join(name),
            display_path: name.into(),
            in_package_json: name == "package.json",
            text: "{ \"agentSdk\": ".into(),
            depth: 0,
        };
        for name in ["agent-sdk.json", "agent-sdk.jsonc", "package.json"] {
            let config = read(source(name));
            let message = &config.diagnostics[0].message;
            assert!(message.starts_with(&format!("{name} cannot be read: ")), "{message}");
        }
    }

    #[test]
    fn the_schema_url_names_this_version_s_tag() {
        let version = env!("CARGO_PKG_VERSION");
        let repository = env!("CARGO_PKG_REPOSITORY");
        assert_eq!(SCHEMA_URL, format!("{repository}/raw/v{version}/agent-sdk.schema.json"));
        assert_eq!(schema()["$id"], SCHEMA_URL);
    }

    #[test]
    fn a_file_is_trusted_when_it_is_the_user_s_root_s_or_the_project_owner_s() {
        let me = crate::fs::owner::current_user();
        assert!(trusted_owner(me, None) && trusted_owner(0, Some(me)) && trusted_owner(4242, Some(4242)));
        assert!(me == 4242 || !trusted_owner(4242, Some(me)));
    }

    #[test]
    fn test_settings_are_read_from_the_files_folder() {
        let config = read_text(
            r#"{ "test": { "envFile": ["test.env"], "coverage": true, "nodeArgs": ["--test-timeout=5000"] } }"#,
        );
        assert_eq!(config.test.env_files, [PathBuf::from("/p/test.env")]);
        assert!(config.test.coverage);
        assert_eq!(config.test.node_args, ["--test-timeout=5000"]);
    }
}
