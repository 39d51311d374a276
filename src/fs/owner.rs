//! Who a file belongs to, as a warning names them: the user agent-sdk runs as, and another
//! user by name (from the user database) and id.

/// The user agent-sdk runs as (its effective id).
pub fn current_user() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// `` `alice` ``, or `uid 4242` when the user database has no name for it.
pub fn describe(uid: u32) -> String {
    match name_of(uid) {
        Some(name) => format!("`{}`", crate::untrusted::escape(&name)),
        None => format!("uid {uid}"),
    }
}

/// The name of user `uid`, if the user database has one.
fn name_of(uid: u32) -> Option<String> {
    let mut buffer = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: an all-zero `passwd` is a valid value (null pointers, zero ids); getpwuid_r
    // fills it with pointers into `buffer`, which outlives every read of them below.
    let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    let code = unsafe { libc::getpwuid_r(uid, &mut entry, buffer.as_mut_ptr(), buffer.len(), &mut found) };
    if code != 0 || found.is_null() || entry.pw_name.is_null() {
        return None;
    }
    // SAFETY: getpwuid_r succeeded, so `pw_name` is a NUL-terminated string in `buffer`.
    let name = unsafe { std::ffi::CStr::from_ptr(entry.pw_name) };
    Some(name.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_has_a_name_and_an_unknown_id_is_named_by_its_number() {
        assert_eq!(describe(0), "`root`");
        assert_eq!(describe(4_000_000_000), "uid 4000000000");
    }
}
