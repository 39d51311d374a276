//! One serve-log record (SPEC §9): what the serve log writes, the state store keeps with a
//! cursor, and `/v1/logs` serves.

use serde::Serialize;

use crate::time::clock::now_rfc3339;

/// How serious a record is: the one level of the serve log, its store, `/v1/logs?level=`
/// and `logs --level` (the least serious shown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Debug,
    Info,
    Warn,
    Error,
}

impl Level {
    /// Every level, least serious first.
    pub const ALL: [Level; 4] = [Level::Debug, Level::Info, Level::Warn, Level::Error];

    /// `warn` (any case); `None` for what is not a level.
    pub fn parse(text: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|level| level.as_str().eq_ignore_ascii_case(text))
    }

    /// The level as the store and `/v1/logs` spell it (`warn`, never `WARN`); `None` for
    /// anything else, such as a level from a newer server.
    pub fn from_stored(text: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|level| level.as_str() == text)
    }

    /// This level and every more serious one.
    pub fn and_above(self) -> impl Iterator<Item = Level> {
        Level::ALL.into_iter().filter(move |level| *level >= self)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }

    /// The level as the text log shows it, padded to one width (`INFO `, `ERROR`).
    pub fn label(self) -> &'static str {
        match self {
            Level::Debug => "DEBUG",
            Level::Info => "INFO ",
            Level::Warn => "WARN ",
            Level::Error => "ERROR",
        }
    }
}

/// One serve-log record (SPEC §9's `{ at, level, message, sessionId?, turnId?, hook?, event? }`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub at: String,
    pub level: Level,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
}

impl Record {
    pub fn new(level: Level, message: impl Into<String>) -> Self {
        Self {
            at: now_rfc3339(),
            level,
            message: message.into(),
            session_id: None,
            turn_id: None,
            hook: None,
            event: None,
        }
    }

    pub fn hook(mut self, hook: &str) -> Self {
        self.hook = Some(hook.to_owned());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_takes_a_level_in_any_case_and_the_store_only_as_it_spells_it() {
        assert_eq!(Level::parse("WARN"), Some(Level::Warn));
        assert_eq!(Level::from_stored("warn"), Some(Level::Warn));
        assert_eq!(Level::from_stored("WARN"), None);
        assert_eq!(Level::from_stored("notice"), None);
        assert_eq!(Level::Info.and_above().collect::<Vec<_>>(), [Level::Info, Level::Warn, Level::Error]);
    }
}
