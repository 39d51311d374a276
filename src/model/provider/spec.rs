//! `--model` read as a provider and a model, and where each provider's key and base URL
//! come from.

use reqwest::Url;

use crate::exit_status::Exit;

/// `--model`: `local`, or `<provider>:<model>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSpec {
    Local,
    Remote { provider: ProviderKind, model: String },
}

/// The model providers agent-sdk speaks to, all over the OpenAI chat-completions API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    OpenAi,
    Xai,
    OpenAiCompatible,
}

/// What `--model` accepts, for error messages.
const ACCEPTED: &str = "`local`, `openai:<model>`, `xai:<model>` or `openai-compatible:<model>`";

impl ProviderKind {
    /// Every provider, in the order error messages list them.
    pub const ALL: [ProviderKind; 3] = [ProviderKind::OpenAi, ProviderKind::Xai, ProviderKind::OpenAiCompatible];

    /// The provider's name in `--model` (`openai`, `xai`, `openai-compatible`).
    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "openai",
            ProviderKind::Xai => "xai",
            ProviderKind::OpenAiCompatible => "openai-compatible",
        }
    }

    fn from_name(name: &str) -> Option<ProviderKind> {
        ProviderKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// The variable the API key is read from.
    ///
    /// `openai-compatible` deliberately reads its own variable, never `OPENAI_API_KEY`: the
    /// base URL of a compatible server can be anything, and an OpenAI key must never be sent
    /// to an arbitrary server because it happens to be set in the shell.
    pub fn key_variable(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "OPENAI_API_KEY",
            ProviderKind::Xai => "XAI_API_KEY",
            ProviderKind::OpenAiCompatible => "OPENAI_COMPATIBLE_API_KEY",
        }
    }

    /// Whether a request without a key is refused before it is sent (a local server
    /// usually needs none; OpenAI and xAI always do).
    fn key_required(self) -> bool {
        !matches!(self, ProviderKind::OpenAiCompatible)
    }

    /// The variable that may give the base URL when `--base-url` does not.
    fn base_url_variable(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi => Some("OPENAI_BASE_URL"),
            ProviderKind::Xai | ProviderKind::OpenAiCompatible => None,
        }
    }

    fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi => Some("https://api.openai.com/v1"),
            ProviderKind::Xai => Some("https://api.x.ai/v1"),
            ProviderKind::OpenAiCompatible => None,
        }
    }
}

impl ModelSpec {
    /// Reads `--model`; anything else than what [`ACCEPTED`] names is a usage error (exit 2).
    pub fn parse(text: &str) -> Result<ModelSpec, anyhow::Error> {
        if text == "local" {
            return Ok(ModelSpec::Local);
        }
        let shown = crate::text::untrusted::escape(text);
        let Some((provider, model)) = text.split_once(':') else {
            let hint = if text.is_empty() { String::new() } else { format!(" (did you mean `openai:{shown}`?)") };
            return Err(Exit::usage(format!("--model `{shown}` names no provider{hint}: use {ACCEPTED}")).into());
        };
        let Some(provider) = ProviderKind::from_name(provider) else {
            let names: Vec<&str> = ProviderKind::ALL.iter().map(|kind| kind.name()).collect();
            return Err(Exit::usage(format!(
                "--model `{shown}`: there is no provider `{}`; the providers are {} (or use `local`)",
                crate::text::untrusted::escape(provider),
                names.join(", ")
            ))
            .into());
        };
        if model.trim().is_empty() {
            return Err(Exit::usage(format!(
                "--model `{shown}` names no model after `{}:`: use {ACCEPTED}",
                provider.name()
            ))
            .into());
        }
        Ok(ModelSpec::Remote { provider, model: model.to_owned() })
    }
}

/// Where one provider's requests go and how they are signed.
#[derive(Clone)]
pub(crate) struct Endpoint {
    /// `<base>/chat/completions`.
    pub chat_completions: Url,
    /// The base URL as it is shown (no trailing `/`).
    pub base_url: String,
    /// The API key, if there is one; never printed.
    pub key: Option<String>,
    pub key_variable: &'static str,
}

impl Endpoint {
    /// The key and URL for `kind:model`, from `--base-url` and the variables `lookup` gives.
    pub fn resolve(
        kind: ProviderKind,
        model: &str,
        base_url_flag: Option<&str>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Endpoint, anyhow::Error> {
        let spec = format!("{}:{}", kind.name(), crate::text::untrusted::escape(model));
        let key_variable = kind.key_variable();
        let key = lookup(key_variable).map(|key| key.trim().to_owned()).filter(|key| !key.is_empty());
        if key.is_none() && kind.key_required() {
            return Err(
                Exit::usage(format!("{spec} needs an API key: set {key_variable} in the shell or in .env")).into()
            );
        }
        if let Some(key) = &key
            && !key.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(Exit::usage(format!(
                "{key_variable} holds characters an API key cannot have (spaces or control characters)"
            ))
            .into());
        }
        let (base_url, source) = base_url_for(kind, base_url_flag, lookup).ok_or_else(|| {
            Exit::usage(format!(
                "{spec} needs --base-url: the URL of the server's OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1"
            ))
        })?;
        let url = parse_base_url(&base_url, &source)?;
        let base_url = url.as_str().trim_end_matches('/').to_owned();
        let mut chat_completions = url;
        let path = format!("{}/chat/completions", chat_completions.path().trim_end_matches('/'));
        chat_completions.set_path(&path);
        Ok(Endpoint { chat_completions, base_url, key, key_variable })
    }
}

/// The base URL and where it came from (`--base-url`, a variable, the default).
fn base_url_for(
    kind: ProviderKind,
    flag: Option<&str>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, String)> {
    if let Some(flag) = flag {
        return Some((flag.trim().to_owned(), "--base-url".to_owned()));
    }
    if let Some(variable) = kind.base_url_variable()
        && let Some(value) = lookup(variable).map(|value| value.trim().to_owned()).filter(|value| !value.is_empty())
    {
        return Some((value, variable.to_owned()));
    }
    kind.default_base_url().map(|url| (url.to_owned(), "the default".to_owned()))
}

/// An http(s) URL with a host and no credentials in it.
fn parse_base_url(text: &str, source: &str) -> Result<Url, anyhow::Error> {
    // A URL with `@` may carry a password: it is never quoted back.
    let shown = if text.contains('@') {
        "the base URL".to_owned()
    } else {
        format!("`{}`", crate::text::untrusted::escape(text))
    };
    let url =
        Url::parse(text).map_err(|error| Exit::usage(format!("{shown} (from {source}) is not a URL: {error}")))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Exit::usage(format!(
            "the base URL (from {source}) carries a user name or password; remove them and give the key in the key variable"
        ))
        .into());
    }
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Exit::usage(format!("{shown} (from {source}) is not an http:// or https:// URL")).into());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(Exit::usage(format!("{shown} (from {source}) has no host")).into());
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit_status::{ExitStatus, status_of};

    fn usage_error(text: &str) -> String {
        let error = ModelSpec::parse(text).unwrap_err();
        assert_eq!(status_of(&error), ExitStatus::Error);
        error.to_string()
    }

    #[test]
    fn specs_that_are_accepted() {
        assert_eq!(ModelSpec::parse("local").unwrap(), ModelSpec::Local);
        let remote = |provider, model: &str| ModelSpec::Remote { provider, model: model.to_owned() };
        assert_eq!(ModelSpec::parse("openai:gpt-4o").unwrap(), remote(ProviderKind::OpenAi, "gpt-4o"));
        assert_eq!(ModelSpec::parse("xai:grok-4").unwrap(), remote(ProviderKind::Xai, "grok-4"));
        assert_eq!(
            ModelSpec::parse("openai-compatible:llama3.1:8b").unwrap(),
            remote(ProviderKind::OpenAiCompatible, "llama3.1:8b")
        );
        assert_eq!(
            ModelSpec::parse("openai-compatible:meta-llama/Llama-3-8B").unwrap(),
            remote(ProviderKind::OpenAiCompatible, "meta-llama/Llama-3-8B")
        );
    }

    #[test]
    fn specs_that_are_refused_say_what_is_accepted() {
        let bare = usage_error("gpt-4o");
        assert!(bare.contains("`openai:gpt-4o`") && bare.contains("xai:<model>"), "{bare}");
        let unknown = usage_error("foo:x");
        assert!(unknown.contains("`foo`") && unknown.contains("openai, xai, openai-compatible"), "{unknown}");
        assert!(usage_error("openai:").contains("names no model"));
        assert!(usage_error("").contains("names no provider"));
        assert!(usage_error("Local").contains("did you mean"));
    }

    fn lookup_from(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| (*value).to_owned())
    }

    fn resolve_error(kind: ProviderKind, flag: Option<&str>, pairs: &'static [(&'static str, &'static str)]) -> String {
        let error = Endpoint::resolve(kind, "m", flag, &lookup_from(pairs)).err().expect("refused");
        assert_eq!(status_of(&error), ExitStatus::Error);
        error.to_string()
    }

    #[test]
    fn keys_and_urls() {
        let openai =
            Endpoint::resolve(ProviderKind::OpenAi, "gpt-4o", None, &lookup_from(&[("OPENAI_API_KEY", "sk-1")]))
                .unwrap();
        assert_eq!(openai.chat_completions.as_str(), "https://api.openai.com/v1/chat/completions");
        assert_eq!(openai.key.as_deref(), Some("sk-1"));
        let from_variable = Endpoint::resolve(
            ProviderKind::OpenAi,
            "m",
            None,
            &lookup_from(&[("OPENAI_API_KEY", "k"), ("OPENAI_BASE_URL", "http://proxy:8080/v1/")]),
        )
        .unwrap();
        assert_eq!(from_variable.chat_completions.as_str(), "http://proxy:8080/v1/chat/completions");
        assert_eq!(from_variable.base_url, "http://proxy:8080/v1");
        let xai = Endpoint::resolve(ProviderKind::Xai, "grok-4", None, &lookup_from(&[("XAI_API_KEY", "x")])).unwrap();
        assert_eq!(xai.chat_completions.as_str(), "https://api.x.ai/v1/chat/completions");
        let compatible = Endpoint::resolve(
            ProviderKind::OpenAiCompatible,
            "m",
            Some("http://127.0.0.1:1234/v1"),
            &lookup_from(&[("OPENAI_API_KEY", "must-not-be-used")]),
        )
        .unwrap();
        assert_eq!(compatible.key, None, "an OpenAI key is never sent to a compatible server");
    }

    #[test]
    fn missing_keys_and_bad_urls_are_usage_errors() {
        assert_eq!(
            Endpoint::resolve(ProviderKind::OpenAi, "gpt-4o", None, &lookup_from(&[("OPENAI_API_KEY", " ")]))
                .err()
                .unwrap()
                .to_string(),
            "openai:gpt-4o needs an API key: set OPENAI_API_KEY in the shell or in .env"
        );
        assert!(resolve_error(ProviderKind::Xai, None, &[]).contains("XAI_API_KEY"));
        assert!(resolve_error(ProviderKind::OpenAiCompatible, None, &[]).contains("--base-url"));
        let credentials = resolve_error(ProviderKind::OpenAiCompatible, Some("http://me:hunter2@host/v1"), &[]);
        assert!(!credentials.contains("hunter2") && credentials.contains("user name or password"), "{credentials}");
        assert!(resolve_error(ProviderKind::OpenAiCompatible, Some("ftp://host/v1"), &[]).contains("http://"));
        assert!(resolve_error(ProviderKind::OpenAiCompatible, Some("localhost:8080"), &[]).contains("not"));
        let unparsable = resolve_error(ProviderKind::OpenAiCompatible, Some("http://a b@c"), &[]);
        assert!(!unparsable.contains("a b"), "{unparsable}");
    }
}
