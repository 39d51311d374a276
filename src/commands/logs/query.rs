//! The `GET /v1/logs` request: the filters the user gave, checked before anything is sent,
//! and the URL of a first request or of a resumed one.

use reqwest::Url;

use super::Stop;
use crate::state::log_record::Level;
use crate::time::since::validate_since;

/// What to ask the server for. Only the filters the user gave are sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    pub follow: bool,
    pub since: Option<String>,
    pub session: Option<String>,
    pub level: Option<&'static str>,
    pub tail: Option<u64>,
    /// Only these hooks' lines (none: every line).
    pub hooks: Vec<String>,
}

impl Query {
    /// Checks `--since` and `--level` (a bad one is a usage error, exit 2).
    pub fn new(
        follow: bool,
        since: Option<&str>,
        session: Option<&str>,
        level: Option<&str>,
        tail: Option<u64>,
    ) -> Result<Self, Stop> {
        if let Some(since) = since {
            validate_since(since).map_err(Stop::usage)?;
        }
        let level = level.map(parse_level).transpose()?;
        Ok(Self {
            follow,
            since: since.map(str::to_owned),
            session: session.map(str::to_owned),
            level,
            tail,
            hooks: Vec::new(),
        })
    }

    /// The same, with only the lines of `hooks`.
    pub fn of_hooks(self, hooks: &[String]) -> Self {
        Self { hooks: hooks.to_vec(), ..self }
    }

    /// What the filters ask for, as `logs` says it found none: `` session `43c2d23a`, hook
    /// `audit/usage` ``, or `None` when nothing narrows the log.
    pub fn narrowed_to(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(session) = &self.session {
            parts.push(format!("session `{session}`"));
        }
        match self.hooks.as_slice() {
            [] => {}
            [one] => parts.push(format!("hook `{}`", crate::text::untrusted::escape(one))),
            many => parts.push(format!(
                "hooks {}",
                many.iter()
                    .map(|hook| format!("`{}`", crate::text::untrusted::escape(hook)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }

    /// `{host}/v1/logs?…`. A resumed request (`Last-Event-ID` set) leaves out `since` and
    /// `tail`: the cursor already says where to start, and a `tail` or a relative `since`
    /// applied again after an outage would skip the lines written during it.
    pub fn url(&self, host: &Url, resuming: bool) -> Url {
        let mut url = host.clone();
        let path = format!("{}/v1/logs", url.path().trim_end_matches('/'));
        url.set_path(&path);
        {
            let mut pairs = url.query_pairs_mut();
            pairs.append_pair("follow", if self.follow { "true" } else { "false" });
            if let (Some(since), false) = (&self.since, resuming) {
                pairs.append_pair("since", since);
            }
            if let Some(session) = &self.session {
                pairs.append_pair("session", session);
            }
            if let Some(level) = self.level {
                pairs.append_pair("level", level);
            }
            for hook in &self.hooks {
                pairs.append_pair("hook", hook);
            }
            if let (Some(tail), false) = (self.tail, resuming) {
                pairs.append_pair("tail", &tail.to_string());
            }
        }
        url
    }
}

/// `--level`: one of debug, info, warn, error, in any case.
fn parse_level(value: &str) -> Result<&'static str, Stop> {
    Level::parse(value).map(Level::as_str).ok_or_else(|| {
        let levels: Vec<&str> = Level::ALL.into_iter().map(Level::as_str).collect();
        Stop::usage(format!("`--level {value}` is not a level; use one of {}", levels.join(", ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit_status::ExitStatus;

    fn host(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn levels_are_checked_and_lowercased() {
        assert_eq!(Query::new(false, None, None, Some("WARN"), None).unwrap().level, Some("warn"));
        for level in Level::ALL.map(Level::as_str) {
            assert_eq!(Query::new(false, None, None, Some(level), None).unwrap().level, Some(level));
        }
        let stop = Query::new(false, None, None, Some("warning"), None).unwrap_err();
        assert_eq!(stop.status, ExitStatus::Error);
        assert_eq!(stop.message, "`--level warning` is not a level; use one of debug, info, warn, error");
    }

    #[test]
    fn a_bad_since_is_a_usage_error() {
        let stop = Query::new(false, Some("10 fortnights"), None, None, None).unwrap_err();
        assert_eq!(stop.status, ExitStatus::Error);
        assert!(Query::new(false, Some("10m"), None, None, None).is_ok());
        assert!(Query::new(false, Some("10 minutes"), None, None, None).is_ok());
    }

    #[test]
    fn only_the_given_parameters_are_sent() {
        let query = Query::new(false, None, None, None, None).unwrap();
        assert_eq!(
            query.url(&host("http://127.0.0.1:7311"), false).as_str(),
            "http://127.0.0.1:7311/v1/logs?follow=false"
        );
        let query =
            Query::new(true, Some("2026-11-30T05:52:01+01:00"), Some("ses_1 2"), Some("info"), Some(20)).unwrap();
        assert_eq!(
            query.url(&host("http://127.0.0.1:7311/"), false).as_str(),
            "http://127.0.0.1:7311/v1/logs?follow=true&since=2026-11-30T05%3A52%3A01%2B01%3A00&session=ses_1+2&level=info&tail=20"
        );
    }

    #[test]
    fn a_resumed_request_drops_since_and_tail_but_keeps_the_filters() {
        let query = Query::new(true, Some("10m"), Some("ses_1"), Some("warn"), Some(5)).unwrap();
        assert_eq!(
            query.url(&host("https://example.com/agent/"), true).as_str(),
            "https://example.com/agent/v1/logs?follow=true&session=ses_1&level=warn"
        );
    }
}
