//! Who agent-sdk runs as, and a user's name from the user database.

/// The user agent-sdk runs as (its effective id).
pub fn current_user() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The name of user `uid`, if the user database has one.
pub fn name_of(uid: u32) -> Option<String> {
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
    fn root_is_named_and_an_unknown_id_is_not() {
        assert_eq!(name_of(0).as_deref(), Some("root"));
        assert_eq!(name_of(4_000_000_000), None);
    }
}
