//! Who a file belongs to, as a warning names them: the user agent-sdk runs as, and another
//! user by name (from the user database) and id.

pub use crate::platform::users::current_user;

/// `` `alice` ``, or `uid 4242` when the user database has no name for it.
pub fn describe(uid: u32) -> String {
    match crate::platform::users::name_of(uid) {
        Some(name) => format!("`{}`", crate::text::untrusted::escape(&name)),
        None => format!("uid {uid}"),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn root_has_a_name_and_an_unknown_id_is_named_by_its_number() {
        assert_eq!(describe(0), "`root`");
        assert_eq!(describe(4_000_000_000), "uid 4000000000");
    }
}
