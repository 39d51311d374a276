//! Who a `dev` session is, as its creator said (`POST /v1/sessions`): kept in the store, so
//! a session brought back from rest, or served by a restarted server, gives its hooks the
//! same `ctx.session`.

use clap::ValueEnum;

/// `ctx.session.purpose`: a real conversation, or an evaluation (hooks that meter or page
/// skip those). Also what `dev`'s `POST /v1/sessions` takes (`"purpose": "eval"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    #[default]
    Live,
    Eval,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Live => "live",
            Purpose::Eval => "eval",
        }
    }
}

/// `ctx.session.mode`: a conversation, or a task run to its end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Chat,
    Task,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Chat => "chat",
            Mode::Task => "task",
        }
    }
}

/// The most characters a session's title may have.
pub const MAX_TITLE_CHARS: usize = 1_000;

/// A session's purpose, mode and title; a session nobody described is `live`, `chat`,
/// untitled.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionInfo {
    #[serde(default)]
    pub purpose: Purpose,
    #[serde(default)]
    pub mode: Mode,
    #[serde(default)]
    pub title: Option<String>,
}

impl SessionInfo {
    /// Why this description cannot be taken, if it cannot.
    pub fn problem(&self) -> Option<String> {
        let title = self.title.as_deref()?;
        let chars = title.chars().count();
        (chars > MAX_TITLE_CHARS)
            .then(|| format!("`title` has {chars} characters; a session's title may have at most {MAX_TITLE_CHARS}"))
    }

    /// As the serve log says it: `purpose eval, mode task, title "Nightly eval"`.
    pub fn describe(&self) -> String {
        let mut said = format!("purpose {}, mode {}", self.purpose.as_str(), self.mode.as_str());
        if let Some(title) = &self.title {
            said.push_str(&format!(", title \"{}\"", crate::text::untrusted::escape(title)));
        }
        said
    }

    /// Read back from the store's text.
    pub(crate) fn from_stored(purpose: &str, mode: &str, title: Option<String>) -> Self {
        Self {
            purpose: if purpose == "eval" { Purpose::Eval } else { Purpose::Live },
            mode: if mode == "task" { Mode::Task } else { Mode::Chat },
            title,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_names_only_known_fields_with_known_values() {
        let parsed: SessionInfo = serde_json::from_str(r#"{"purpose":"eval","mode":"task","title":"t"}"#).unwrap();
        assert_eq!(parsed, SessionInfo { purpose: Purpose::Eval, mode: Mode::Task, title: Some("t".to_owned()) });
        assert_eq!(serde_json::from_str::<SessionInfo>("{}").unwrap(), SessionInfo::default());
        for bad in [r#"{"purpose":"evaluation"}"#, r#"{"mode":"Task"}"#, r#"{"titel":"t"}"#, r#"{"title":3}"#] {
            assert!(serde_json::from_str::<SessionInfo>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_title_is_bounded_and_said_escaped() {
        let long = SessionInfo { title: Some("x".repeat(MAX_TITLE_CHARS + 1)), ..Default::default() };
        assert!(long.problem().unwrap().contains("at most 1000"));
        let info = SessionInfo { title: Some("a\u{1b}[2Jb".to_owned()), ..Default::default() };
        assert_eq!(info.problem(), None);
        assert!(!info.describe().contains('\u{1b}'), "{}", info.describe());
    }
}
