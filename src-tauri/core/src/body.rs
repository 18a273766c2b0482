//! The JSON body extractor every route uses: an empty body reads as `{}`, and anything that
//! does not fit the request type answers 422 with the contract's `[{loc, msg, type}]`.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::error::{ApiError, FieldError};

pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            let status = rejection.status().as_u16();
            if status == 413 {
                ApiError::new(413, "The request is too large. Send less at once.")
            } else {
                ApiError::bad_request("The request body could not be read. Send it again.")
            }
        })?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        parse(text).map(JsonBody)
    }
}

/// [`JsonBody`] for the routes whose contract answers a body that does not fit with 400 and one
/// sentence, not 422 with a field list (`POST /api/approvals`, `PATCH /api/sessions/{id}`,
/// `POST /api/rule-proposals/{id}`, `PATCH /api/nodes/{id}`).
pub struct PlainBody<T>(pub T);

impl<S, T> FromRequest<S> for PlainBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        JsonBody::from_request(req, state)
            .await
            .map(|JsonBody(body)| PlainBody(body))
            .map_err(ApiError::as_bad_request)
    }
}

/// Reads `bytes` as `T`, naming the field that does not fit.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(&mut de).map_err(|err| {
        let mut loc = vec!["body".to_owned()];
        loc.extend(
            err.path()
                .to_string()
                .split('.')
                .filter(|s| !s.is_empty() && *s != "?")
                .map(str::to_owned),
        );
        let inner = err.into_inner();
        let (msg, kind) = if inner.is_syntax() || inner.is_eof() {
            ("The body is not valid JSON.".to_owned(), "json_invalid")
        } else if inner.to_string().starts_with("missing field") {
            (
                format!("Something required is missing: {inner}."),
                "missing",
            )
        } else {
            (
                format!("A value has the wrong kind: {inner}."),
                "value_error",
            )
        };
        ApiError::validation(vec![FieldError {
            loc,
            msg,
            kind: kind.to_owned(),
        }])
    })
}
