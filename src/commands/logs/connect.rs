//! Which server `logs` talks to and with which token: `--host`/`--token`, then
//! `AGENT_SDK_HOST`/`AGENT_SDK_TOKEN`, then the local `.agent-sdk/dev.json`; and the rule
//! that keeps the token off plain HTTP to a host that is not this machine.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use reqwest::Url;
use reqwest::header::HeaderValue;

use super::Stop;
use crate::state::StateRoot;
use crate::state::dev_file::{DevFile, DevFileError};
use crate::text::untrusted::escape;
use crate::text::uri::without_credentials_of;

/// The bearer token. Its `Debug` never shows it, so it cannot leak into a message.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// The `Authorization` header value, marked sensitive so the HTTP stack never logs it.
    pub fn header_value(&self) -> Result<HeaderValue, Stop> {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", self.0))
            .map_err(|_| Stop::usage("the token has characters an HTTP header cannot carry"))?;
        value.set_sensitive(true);
        Ok(value)
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// One place a host and a token may come from (the flags, or the environment).
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub host: Option<String>,
    pub token: Option<String>,
}

/// The server to read the logs from.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The base URL, e.g. `http://127.0.0.1:7311/`.
    pub host: Url,
    pub token: Option<Token>,
}

impl Endpoint {
    /// The host as it may appear in a message: without any user name or password.
    pub fn display_host(&self) -> String {
        let mut shown = self.host.clone();
        let _ = shown.set_password(None);
        let _ = shown.set_username("");
        shown.as_str().trim_end_matches('/').to_owned()
    }
}

/// `<dir>/.agent-sdk/dev.json`.
pub fn dev_json_path(dir: &Path) -> PathBuf {
    StateRoot::of(dir).dev_file()
}

/// Reads `dev.json`: `None` when there is none (no local server was started).
pub fn read_dev_json(path: &Path) -> Result<Option<DevFile>, Stop> {
    DevFile::read(path).map_err(|error| match error {
        DevFileError::Unreadable(error) => Stop::usage(format!("could not read {}: {error}", path.display())),
        DevFileError::NotDevFile(error) => {
            let dev = format!("{} dev", crate::process::invocation::command());
            Stop::usage(format!("{} is not what `{dev}` writes ({error}); restart `{dev}`", path.display()))
        }
    })
}

/// Picks the host and the token, each from the first place that has one: the flags, the
/// environment, then `dev.json` (read only if needed). The token in `dev.json` belongs to
/// the local server, so it is sent only to that server or another loopback host, never to
/// a host named elsewhere.
pub fn discover(
    flags: &Given,
    env: &Given,
    dev_json: impl FnOnce() -> Result<Option<DevFile>, Stop>,
) -> Result<Endpoint, Stop> {
    let given_host = flags.host.clone().or_else(|| non_empty(&env.host));
    let given_token = flags.token.clone().or_else(|| non_empty(&env.token));
    let local = if given_host.is_none() || given_token.is_none() {
        dev_json()?.unwrap_or_default()
    } else {
        DevFile::default()
    };
    let Some(host_text) = given_host.clone().or_else(|| non_blank(&local.url)) else {
        return Err(Stop::no_server(format!(
            "no dev server found; start one with `{} dev` (or pass --host)",
            crate::process::invocation::command()
        )));
    };
    let host = parse_host(&host_text)?;
    let local_token = non_blank(&local.token).filter(|_| given_host.is_none() || is_loopback(&host));
    let token = given_token.or(local_token).map(|token| Token(token.trim().to_owned()));
    Ok(Endpoint { host, token })
}

fn non_empty(value: &Option<String>) -> Option<String> {
    value.as_deref().and_then(non_blank)
}

fn non_blank(value: &str) -> Option<String> {
    Some(value.trim()).filter(|value| !value.is_empty()).map(str::to_owned)
}

/// `http://127.0.0.1:7311`, or `127.0.0.1:7311` (taken as `http://`), as a base URL.
/// A user name or password in it is refused: it would go out as a second `Authorization`
/// header, in clear text over `http://`; the token has its own flag.
fn parse_host(text: &str) -> Result<Url, Stop> {
    let text = text.trim();
    let with_scheme = if text.contains("://") { text.to_owned() } else { format!("http://{text}") };
    // As given, so with or without a scheme: anything before an `@` in its authority (a user
    // name and password) shown as `…`.
    let shown = escape(&without_credentials_of(text, &[text])).into_owned();
    let bad = |why: &str| Stop::usage(format!("`{shown}` is not a server URL such as http://127.0.0.1:7311 ({why})"));
    let mut url = Url::parse(&with_scheme).map_err(|error| bad(&error.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("only http:// and https:// are supported"));
    }
    if url.host().is_none() {
        return Err(bad("it names no host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Stop::usage(format!(
            "the server URL `{shown}` carries a user name or password, which would be sent as well as the token; remove it and pass the token with --token (or AGENT_SDK_TOKEN)"
        )));
    }
    url.set_query(None);
    url.set_fragment(None);
    Ok(url)
}

/// Refuses to send the token in clear text across a network: plain `http://` is fine
/// for this machine only, unless the user said `--insecure`.
pub fn check_transport(endpoint: &Endpoint, insecure: bool) -> Result<(), Stop> {
    let clear_text = endpoint.host.scheme() == "http" && !is_loopback(&endpoint.host);
    if clear_text && endpoint.token.is_some() && !insecure {
        return Err(Stop::usage(format!(
            "refusing to send the token over plain HTTP to {}, which is not this machine; use https://, or pass --insecure if the network is trusted",
            endpoint.display_host()
        )));
    }
    Ok(())
}

/// `localhost`, 127.0.0.0/8 or `::1` (also as an IPv4-mapped address).
pub fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(ip) => ip.to_canonical().is_loopback(),
        Err(_) => bare.trim_end_matches('.').eq_ignore_ascii_case("localhost"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given(host: Option<&str>, token: Option<&str>) -> Given {
        Given { host: host.map(str::to_owned), token: token.map(str::to_owned) }
    }

    fn no_dev_json() -> Result<Option<DevFile>, Stop> {
        Ok(None)
    }

    fn token(endpoint: &Endpoint) -> Option<&str> {
        endpoint.token.as_ref().map(|token| token.0.as_str())
    }

    #[test]
    fn flags_win_over_env_and_dev_json() {
        let local = || Ok(Some(DevFile { url: "http://127.0.0.1:7311".into(), token: "local".into(), pid: None }));
        let flags = given(Some("http://127.0.0.1:9000"), Some("flag"));
        let env = given(Some("http://127.0.0.1:8000"), Some("env"));
        let endpoint = discover(&flags, &env, local).unwrap();
        assert_eq!(endpoint.host.as_str(), "http://127.0.0.1:9000/");
        assert_eq!(token(&endpoint), Some("flag"));
    }

    #[test]
    fn env_wins_over_dev_json_and_each_value_falls_back_on_its_own() {
        let local = || Ok(Some(DevFile { url: "http://127.0.0.1:7311".into(), token: "local".into(), pid: None }));
        let endpoint =
            discover(&given(None, Some("flag")), &given(Some("http://localhost:8000"), None), local).unwrap();
        assert_eq!(endpoint.host.as_str(), "http://localhost:8000/");
        assert_eq!(token(&endpoint), Some("flag"));
        let endpoint = discover(&Given::default(), &given(None, Some("env")), local).unwrap();
        assert_eq!(endpoint.host.as_str(), "http://127.0.0.1:7311/");
        assert_eq!(token(&endpoint), Some("env"));
    }

    #[test]
    fn dev_json_fills_both_and_empty_env_values_count_as_unset() {
        let local = || Ok(Some(DevFile { url: "http://127.0.0.1:7311".into(), token: "local".into(), pid: None }));
        let endpoint = discover(&Given::default(), &given(Some(""), Some(" ")), local).unwrap();
        assert_eq!(endpoint.host.as_str(), "http://127.0.0.1:7311/");
        assert_eq!(token(&endpoint), Some("local"));
    }

    #[test]
    fn dev_json_is_not_read_when_flags_and_env_say_everything() {
        let unreadable = || Err(Stop::usage("must not be read"));
        let endpoint = discover(&given(Some("https://logs.example.com"), None), &given(None, Some("env")), unreadable);
        assert!(endpoint.is_ok());
    }

    #[test]
    fn the_local_token_is_not_sent_to_a_remote_host() {
        let local = || Ok(Some(DevFile { url: "http://127.0.0.1:7311".into(), token: "local".into(), pid: None }));
        let endpoint = discover(&given(Some("https://logs.example.com"), None), &Given::default(), local).unwrap();
        assert_eq!(token(&endpoint), None);
        let endpoint = discover(&given(Some("localhost:7400"), None), &Given::default(), local).unwrap();
        assert_eq!(token(&endpoint), Some("local"));
    }

    #[test]
    fn no_host_anywhere_is_a_failure_that_says_what_to_do() {
        let stop = discover(&Given::default(), &Given::default(), no_dev_json).unwrap_err();
        assert_eq!(stop.status, crate::exit_status::ExitStatus::Failure);
        assert_eq!(stop.message, "no dev server found; start one with `agent-sdk dev` (or pass --host)");
    }

    #[test]
    fn hosts_without_a_scheme_are_http_and_other_schemes_are_refused() {
        let endpoint = discover(&given(Some("127.0.0.1:7311"), None), &Given::default(), no_dev_json).unwrap();
        assert_eq!(endpoint.host.as_str(), "http://127.0.0.1:7311/");
        for bad in ["ftp://example.com", "http://", "http://exa mple.com"] {
            let stop = discover(&given(Some(bad), None), &Given::default(), no_dev_json).unwrap_err();
            assert_eq!(stop.status, crate::exit_status::ExitStatus::Error, "{bad}");
        }
    }

    #[test]
    fn credentials_in_the_url_are_refused_without_being_quoted() {
        for host in ["http://user:pw@example.com", "https://user@example.com/x", "user:pw@127.0.0.1:7311"] {
            let stop = discover(&given(Some(host), Some("t")), &Given::default(), no_dev_json).unwrap_err();
            assert_eq!(stop.status, crate::exit_status::ExitStatus::Error, "{host}");
            assert!(stop.message.contains("--token") && !stop.message.contains("pw"), "{}", stop.message);
        }
        let stop =
            discover(&given(Some("http://u:pw@exa mple.com"), None), &Given::default(), no_dev_json).unwrap_err();
        assert!(stop.message.contains("`http://…@exa mple.com`"), "{}", stop.message);
        let stop = discover(&given(Some("user:pw@exa mple.com"), None), &Given::default(), no_dev_json).unwrap_err();
        assert!(stop.message.contains("`…@exa mple.com`"), "{}", stop.message);
    }

    #[test]
    fn loopback_hosts() {
        for host in [
            "http://127.0.0.1:1",
            "http://127.8.9.10",
            "http://[::1]:7311",
            "http://LOCALHOST",
            "http://localhost.",
            "http://[::ffff:127.0.0.1]",
        ] {
            assert!(is_loopback(&Url::parse(host).unwrap()), "{host}");
        }
        for host in
            ["http://10.0.0.1", "http://[::2]", "http://localhost.example.com", "http://example.com", "http://0.0.0.0"]
        {
            assert!(!is_loopback(&Url::parse(host).unwrap()), "{host}");
        }
    }

    #[test]
    fn the_token_goes_over_plain_http_only_to_this_machine_unless_insecure() {
        let endpoint = |host: &str, token: Option<&str>| Endpoint {
            host: Url::parse(host).unwrap(),
            token: token.map(|token| Token(token.to_owned())),
        };
        assert!(check_transport(&endpoint("http://127.0.0.1:7311", Some("t")), false).is_ok());
        assert!(check_transport(&endpoint("https://logs.example.com", Some("t")), false).is_ok());
        assert!(check_transport(&endpoint("http://logs.example.com", None), false).is_ok());
        assert!(check_transport(&endpoint("http://logs.example.com", Some("t")), true).is_ok());
        let stop = check_transport(&endpoint("http://user:pw@logs.example.com", Some("secret")), false).unwrap_err();
        assert_eq!(stop.status, crate::exit_status::ExitStatus::Error);
        assert!(
            stop.message.contains("http://logs.example.com") && stop.message.contains("--insecure"),
            "{}",
            stop.message
        );
        assert!(!stop.message.contains("secret") && !stop.message.contains("pw"), "{}", stop.message);
    }

    #[test]
    fn the_token_never_shows_in_debug_output() {
        let endpoint =
            Endpoint { host: Url::parse("http://127.0.0.1").unwrap(), token: Some(Token("secret".to_owned())) };
        assert!(!format!("{endpoint:?}").contains("secret"));
        assert!(Token("a\nb".to_owned()).header_value().is_err());
        assert!(Token("abc123".to_owned()).header_value().unwrap().is_sensitive());
    }

    #[test]
    fn dev_json_is_read_when_present_and_none_when_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dev_json_path(dir.path());
        assert_eq!(read_dev_json(&path).unwrap(), None);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"{"url":"http://127.0.0.1:7311","token":"ab12","pid":1}"#).unwrap();
        assert_eq!(
            read_dev_json(&path).unwrap(),
            Some(DevFile { url: "http://127.0.0.1:7311".into(), token: "ab12".into(), pid: Some(1) })
        );
        std::fs::write(&path, "{").unwrap();
        let stop = read_dev_json(&path).unwrap_err();
        assert_eq!(stop.status, crate::exit_status::ExitStatus::Error);
    }
}
