//! What a webhook call's body becomes in its item: JSON as it was sent, forms (urlencoded or
//! multipart) as an object of fields, text as a string, nothing as `null`. Multipart files are
//! described, never kept: `{filename, content_type, size}`.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Multipart, Request};
use serde_json::{Map, Value};

/// Why a body could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    /// The body says it is JSON and it is not.
    InvalidJson,
    /// A form that could not be read.
    InvalidForm,
}

/// True for `application/json` and any `+json` type.
pub fn is_json(content_type: &str) -> bool {
    let essence = essence(content_type);
    essence == "application/json" || essence.ends_with("+json")
}

/// The media type without its parameters, lower case.
pub fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Reads `bytes` the way `content_type` says.
pub async fn parse(content_type: Option<&str>, bytes: Bytes) -> Result<Value, BodyError> {
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    let Some(content_type) = content_type else {
        return Ok(text(&bytes));
    };
    if is_json(content_type) {
        return serde_json::from_slice(&bytes).map_err(|_| BodyError::InvalidJson);
    }
    match essence(content_type).as_str() {
        "application/x-www-form-urlencoded" => urlencoded(&bytes),
        "multipart/form-data" => multipart(content_type, bytes).await,
        _ => Ok(text(&bytes)),
    }
}

fn text(bytes: &[u8]) -> Value {
    Value::String(String::from_utf8_lossy(bytes).into_owned())
}

fn urlencoded(bytes: &[u8]) -> Result<Value, BodyError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded_pairs(bytes).ok_or(BodyError::InvalidForm)?;
    let mut fields = Map::new();
    for (name, value) in pairs {
        add(&mut fields, name, Value::String(value));
    }
    Ok(Value::Object(fields))
}

/// `a=1&b=2` as pairs, through axum's own form reader.
fn serde_urlencoded_pairs(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    let uri: axum::http::Uri = format!("/?{}", std::str::from_utf8(bytes).ok()?.trim())
        .parse()
        .ok()?;
    axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&uri)
        .ok()
        .map(|q| q.0)
}

/// The query string's pairs without `secret`, as an object (a repeated name becomes a list).
pub fn query_object(pairs: Vec<(String, String)>) -> Value {
    let mut fields = Map::new();
    for (name, value) in pairs {
        if name != "secret" {
            add(&mut fields, name, Value::String(value));
        }
    }
    Value::Object(fields)
}

async fn multipart(content_type: &str, bytes: Bytes) -> Result<Value, BodyError> {
    let request = Request::builder()
        .method("POST")
        .header(axum::http::header::CONTENT_TYPE, content_type)
        .body(Body::from(bytes))
        .map_err(|_| BodyError::InvalidForm)?;
    let mut form = Multipart::from_request(request, &())
        .await
        .map_err(|_| BodyError::InvalidForm)?;
    let mut fields = Map::new();
    while let Some(field) = form
        .next_field()
        .await
        .map_err(|_| BodyError::InvalidForm)?
    {
        let name = field.name().unwrap_or_default().to_owned();
        let filename = field.file_name().map(str::to_owned);
        let content_type = field.content_type().map(str::to_owned);
        let data = field.bytes().await.map_err(|_| BodyError::InvalidForm)?;
        let value = match filename {
            Some(filename) => serde_json::json!({
                "filename": filename,
                "content_type": content_type,
                "size": data.len(),
            }),
            None => text(&data),
        };
        add(&mut fields, name, value);
    }
    Ok(Value::Object(fields))
}

/// Adds a field; a name seen again turns its value into a list.
fn add(fields: &mut Map<String, Value>, name: String, value: Value) {
    match fields.get_mut(&name) {
        None => {
            fields.insert(name, value);
        }
        Some(Value::Array(list)) => list.push(value),
        Some(existing) => {
            let first = existing.take();
            *existing = Value::Array(vec![first, value]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reads_each_kind_of_body() {
        let json = parse(Some("application/json"), Bytes::from(r#"{"a":1}"#)).await;
        assert_eq!(json, Ok(serde_json::json!({"a": 1})));
        let bad = parse(Some("application/json; charset=utf-8"), Bytes::from("{")).await;
        assert_eq!(bad, Err(BodyError::InvalidJson));
        let form = parse(
            Some("application/x-www-form-urlencoded"),
            Bytes::from("a=1&b=two+words&a=3"),
        )
        .await;
        assert_eq!(
            form,
            Ok(serde_json::json!({"a": ["1", "3"], "b": "two words"}))
        );
        let text = parse(Some("text/plain"), Bytes::from("hello")).await;
        assert_eq!(text, Ok(Value::String("hello".into())));
        assert_eq!(
            parse(Some("application/json"), Bytes::new()).await,
            Ok(Value::Null)
        );
    }

    #[test]
    fn the_secret_never_reaches_the_query_object() {
        let q = query_object(vec![
            ("secret".into(), "s3cr3t".into()),
            ("run".into(), "42".into()),
        ]);
        assert_eq!(q, serde_json::json!({"run": "42"}));
    }
}
