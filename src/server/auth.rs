//! Who a request comes from, as the vendor's hosts tell callers apart: the bearer token of
//! `.agent-sdk/dev.json` (the default, what `logs` sends), the secret `--bearer-token`
//! gives, or nobody, where `--allow-anonymous` lets callers in without a token. A session
//! started over the hosting API belongs to its caller; another gets 403 on it.

use crate::server::token::tokens_match;

/// How the server lets callers in.
pub struct Auth {
    /// The token of `.agent-sdk/dev.json`.
    pub dev_token: String,
    /// `--bearer-token`: a secret of the user's, taken beside the dev token.
    pub bearer_token: Option<String>,
    /// `--allow-anonymous`: a request without a token is let in (a wrong token still is not).
    pub allow_anonymous: bool,
}

/// Who a request that was let in comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Principal {
    DevToken,
    BearerToken,
    Anonymous,
}

impl Principal {
    /// As the store keeps it with the sessions this caller started.
    pub fn as_str(self) -> &'static str {
        match self {
            Principal::DevToken => "dev-token",
            Principal::BearerToken => "bearer-token",
            Principal::Anonymous => "anonymous",
        }
    }
}

impl Auth {
    /// Who presents `authorization` (the request's header, if it has one); `None`: the
    /// request is not let in.
    pub fn principal(&self, authorization: Option<&str>) -> Option<Principal> {
        let Some(header) = authorization else {
            return self.allow_anonymous.then_some(Principal::Anonymous);
        };
        let presented = bearer_token(header)?;
        if tokens_match(presented, &self.dev_token) {
            return Some(Principal::DevToken);
        }
        self.bearer_token.as_deref().filter(|secret| tokens_match(presented, secret)).map(|_| Principal::BearerToken)
    }

    /// What a refused caller is told.
    pub fn refusal(&self) -> &'static str {
        if self.bearer_token.is_some() {
            "missing or wrong bearer token (the one --bearer-token gave, or the one in .agent-sdk/dev.json)"
        } else {
            "missing or wrong bearer token (see .agent-sdk/dev.json)"
        }
    }
}

/// The token of an `Authorization: Bearer <token>` header. The scheme is case-insensitive
/// (RFC 9110 §11.1: `bearer`, `BEARER`), and spaces or tabs around and between the two are
/// allowed.
fn bearer_token(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once([' ', '\t'])?;
    let token = token.trim_start();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_spaces_are_tolerated() {
        for header in ["Bearer abc", "bearer abc", "BEARER abc", "  Bearer   abc  ", "Bearer\t abc"] {
            assert_eq!(bearer_token(header), Some("abc"), "{header:?}");
        }
        for header in ["Basic abc", "Bearer", "Bearer ", "Bearerabc", "abc"] {
            assert_eq!(bearer_token(header), None, "{header:?}");
        }
    }

    #[test]
    fn each_token_is_a_caller_and_anonymous_callers_need_the_flag() {
        let auth = Auth { dev_token: "dev".into(), bearer_token: Some("secret".into()), allow_anonymous: false };
        assert_eq!(auth.principal(Some("Bearer dev")), Some(Principal::DevToken));
        assert_eq!(auth.principal(Some("Bearer secret")), Some(Principal::BearerToken));
        assert_eq!(auth.principal(Some("Bearer wrong")), None);
        assert_eq!(auth.principal(None), None);
        let open = Auth { allow_anonymous: true, bearer_token: None, ..auth };
        assert_eq!(open.principal(None), Some(Principal::Anonymous));
        assert_eq!(open.principal(Some("Bearer wrong")), None, "a wrong token is not anonymous");
        assert_eq!(open.principal(Some("Bearer secret")), None);
    }
}
