//! The session event envelope of SPEC §5: `{ type, index, sessionId, turnId?, at, data }`.

use serde::{Deserialize, Serialize};

/// One recorded event of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Envelope {
    #[serde(rename = "type")]
    pub event_type: String,
    /// Counts from 0 across the whole session.
    pub index: u64,
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub turn_id: Option<String>,
    /// RFC 3339 UTC with milliseconds.
    pub at: String,
    pub data: serde_json::Value,
}
