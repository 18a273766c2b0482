//! The per-launch token: `Authorization: Bearer <token>` on `/api/*`, `?token=` on sockets.
//! Compared in constant time so the answer's timing says nothing about the token.

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::Response;
use subtle::ConstantTimeEq;

use crate::Services;
use crate::error::ApiError;

pub fn token_matches(expected: &str, given: &str) -> bool {
    expected.as_bytes().ct_eq(given.as_bytes()).into()
}

/// Refuses a request without the right bearer token (or, for sockets, `?token=`).
pub async fn require_token(
    State(services): State<Services>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let bearer = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let query = request.uri().query().and_then(|q| {
        q.split('&')
            .find_map(|pair| pair.strip_prefix("token="))
            .map(str::to_owned)
    });
    let given = bearer.map(str::to_owned).or(query);
    match given {
        Some(token) if token_matches(services.token(), &token) => Ok(next.run(request).await),
        Some(_) => Err(ApiError::unauthorized(
            "That token is not valid. Use the token Sentient printed when it started.",
        )),
        None => Err(ApiError::unauthorized(
            "This needs Sentient's token: send Authorization: Bearer <token> (sockets: ?token=).",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::token_matches;

    #[test]
    fn only_the_exact_token_matches() {
        assert!(token_matches("abc123", "abc123"));
        assert!(!token_matches("abc123", "abc124"));
        assert!(!token_matches("abc123", "abc12"));
        assert!(!token_matches("abc123", ""));
    }
}
