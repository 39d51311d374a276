//! Session ids from outside (`run --session`, `logs --session`, a `dev` URL): what one may
//! be, said once for every place one enters.

/// How many characters of a session id a log line shows (its end: ids share their start).
const SESSION_TAG_LEN: usize = 8;

/// The tag a log line gives a session, `43c2d23a` for `ses_5d64730643c2d23a`, as `logs` and
/// `dev`'s stderr print it: ids made on one machine share their start, so the end is what
/// tells them apart (escaped: an id read from a server is not trusted).
pub fn session_tag(id: &str) -> String {
    let chars: Vec<char> = id.chars().collect();
    crate::text::untrusted::escape(&chars[chars.len().saturating_sub(SESSION_TAG_LEN)..].iter().collect::<String>())
        .into_owned()
}

/// The longest session id accepted from outside.
pub const SESSION_ID_MAX_LEN: usize = 128;

/// Checks a session id given from outside (`run --session`, `logs --session`, a `dev`
/// URL): it names a folder of `ctx.host.files` under the state root, so it is 1 to 128 of
/// `A-Z a-z 0-9 _ -` and can never be `..`, a path or an absolute one.
pub fn check_session_id(id: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if (1..=SESSION_ID_MAX_LEN).contains(&id.len()) && id.chars().all(allowed) {
        return Ok(());
    }
    Err(format!(
        "`{}` is not a session id: use 1 to {SESSION_ID_MAX_LEN} letters, digits, `_` or `-` (such as ses_0193a1b2c3d4e5f6)",
        crate::text::untrusted::escape(id)
    ))
}

/// A session id flag's value, checked by [`check_session_id`].
pub fn parse_session_id(text: &str) -> Result<String, String> {
    check_session_id(text).map(|()| text.to_owned())
}
