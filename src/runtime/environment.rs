//! Which environment a Node runtime starts with. `run`, `dev` and `test` run the user's
//! hooks as the user asked: the shell's environment and the `.env` files. The static
//! commands (`validate`, `info`, the editor) run only what an extension mount needs to say
//! what it mounts, and that code may come from the pull request being checked: their Node
//! gets a minimal environment, the allow-list below and the variables named with
//! `--pass-env`, never the job's secrets nor `.env`.

use std::ffi::{OsStr, OsString};

/// The environment a runtime starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Environment {
    /// The command's own, plus the runtime config's variables (`.env`).
    #[default]
    Inherited,
    /// Only [`ALLOWED`] (and `LC_*`) from the command's own, plus the runtime config's
    /// variables (what `--pass-env` names).
    Minimal,
}

/// What a Node process needs to start and behave as the user's shell would, and nothing
/// that holds a credential: where programs and the home folder are, the locale and time
/// zone, the temporary folder, and the variables Node itself documents for its own
/// behaviour (not `NODE_AUTH_TOKEN`, which npm's publishing set-up keeps a token in).
pub const ALLOWED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "NODE_COMPILE_CACHE",
    "NODE_DEBUG",
    "NODE_DEBUG_NATIVE",
    "NODE_DISABLE_COLORS",
    "NODE_DISABLE_COMPILE_CACHE",
    "NODE_ENV",
    "NODE_EXTRA_CA_CERTS",
    "NODE_ICU_DATA",
    "NODE_NO_WARNINGS",
    "NODE_OPTIONS",
    "NODE_PATH",
    "NODE_PENDING_DEPRECATION",
    "NODE_PRESERVE_SYMLINKS",
    "NODE_REDIRECT_WARNINGS",
    "NODE_SKIP_PLATFORM_CHECK",
    "NODE_USE_SYSTEM_CA",
    "NODE_V8_COVERAGE",
    "UV_THREADPOOL_SIZE",
    // Which module hooks the runtime installs (the test matrix sets it).
    "AGENT_SDK_MODULE_HOOKS",
];

/// Whether the variable `name` goes into a minimal environment.
pub fn is_allowed(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else { return false };
    ALLOWED.contains(&name) || name.starts_with("LC_")
}

/// The command's variables that a minimal environment keeps, from `vars` (the process's).
pub fn minimal(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    vars.into_iter().filter(|(name, _)| is_allowed(name)).collect()
}

/// `vars` with each of `set` in place of a variable of its name (the last of a name wins).
pub fn with_set(
    mut vars: Vec<(OsString, OsString)>,
    set: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    for (name, value) in set {
        vars.retain(|(kept, _)| *kept != name);
        vars.push((name, value));
    }
    vars
}

/// What `--pass-env` names, with the values the command has (a name it has not is left out).
pub fn passed(names: &[String], lookup: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    names.iter().filter_map(|name| lookup(name).map(|value| (name.clone(), value))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(vars: &[(&str, &str)]) -> Vec<String> {
        let vars = vars.iter().map(|(name, value)| (OsString::from(name), OsString::from(value)));
        minimal(vars).into_iter().map(|(name, _)| name.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn a_minimal_environment_keeps_what_node_needs_and_no_credential() {
        let kept = names(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/home/ci"),
            ("LC_ALL", "C.UTF-8"),
            ("NODE_OPTIONS", "--max-old-space-size=4096"),
            ("NODE_AUTH_TOKEN", "npm_secret"),
            ("GITHUB_TOKEN", "ghs_secret"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("HTTPS_PROXY", "http://user:pass@proxy:3128"),
        ]);
        assert_eq!(kept, ["PATH", "HOME", "LC_ALL", "NODE_OPTIONS"]);
    }

    #[test]
    fn a_variable_set_replaces_the_one_of_its_name_and_the_last_set_wins() {
        let pair = |name: &str, value: &str| (OsString::from(name), OsString::from(value));
        let vars = vec![pair("PATH", "/usr/bin"), pair("TOKEN", "shell"), pair("HOME", "/root")];
        let set = [pair("TOKEN", "env-file"), pair("NEW", "1"), pair("NEW", "2")];
        let all = with_set(vars, set);
        assert_eq!(all, [pair("PATH", "/usr/bin"), pair("HOME", "/root"), pair("TOKEN", "env-file"), pair("NEW", "2")]);
    }

    #[test]
    fn pass_env_names_what_the_command_has() {
        let lookup = |name: &str| (name == "BUILDKITE_TOKEN").then(|| "bk".to_owned());
        let names = ["BUILDKITE_TOKEN".to_owned(), "UNSET".to_owned()];
        assert_eq!(passed(&names, lookup), [("BUILDKITE_TOKEN".to_owned(), "bk".to_owned())]);
    }
}
