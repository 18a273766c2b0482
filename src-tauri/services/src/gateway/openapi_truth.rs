//! The OpenAPI document made true to the answers: what every route can answer besides its own
//! documented statuses, and catch-all paths in OpenAPI's spelling. Checked by the schema-driven
//! fuzzing in the test command (`tests/fuzz/openapi.sh`).
//!
//! - every operation can answer 400 (a path or query value that does not fit, a body that cannot
//!   be read) and 403 (the Host and Origin checks, `origin.rs`);
//! - every operation behind the token answers 401 without it;
//! - every operation with a JSON body answers 422 when the body does not fit, except the four
//!   whose contract answers that with 400 (`PlainBody`);
//! - the file routes answer 422 for a name that could leave the files folder;
//! - axum's catch-all `{*name}` is OpenAPI's `{name}`, with its path parameter.

use utoipa::openapi::path::{Operation, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::{
    ContentBuilder, OpenApi, PathItem, Ref, RefOr, Required, ResponseBuilder, Type,
    schema::ObjectBuilder,
};

/// Routes that answer a body that does not fit with 400, not 422.
const PLAIN_BODY_ROUTES: [(&str, &str); 4] = [
    ("post", "/api/approvals"),
    ("patch", "/api/sessions/{id}"),
    ("post", "/api/rule-proposals/{id}"),
    ("patch", "/api/nodes/{id}"),
];

/// The one route that never asks for a token or a secret (webhooks check their own secret and
/// device uploads a device token, both answering 401 without).
const OPEN_ROUTES: [&str; 1] = ["/api/health"];

fn error_answer(description: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
}

fn operations(item: &mut PathItem) -> Vec<(&'static str, &mut Operation)> {
    [
        ("get", item.get.as_mut()),
        ("put", item.put.as_mut()),
        ("post", item.post.as_mut()),
        ("delete", item.delete.as_mut()),
        ("patch", item.patch.as_mut()),
    ]
    .into_iter()
    .filter_map(|(method, op)| op.map(|op| (method, op)))
    .collect()
}

/// Adds what every route can answer and spells catch-all paths as OpenAPI does.
pub fn complete(doc: &mut OpenApi) {
    let paths = std::mem::take(&mut doc.paths.paths);
    for (path, mut item) in paths {
        let (path, catch_all) = openapi_path(&path);
        for (method, op) in operations(&mut item) {
            let answers = &mut op.responses.responses;
            let mut add = |status: &str, description: &str| {
                answers
                    .entry(status.to_owned())
                    .or_insert_with(|| error_answer(description).into());
            };
            add(
                "400",
                "A path, query or body value that could not be read; `detail` says which.",
            );
            add(
                "403",
                "The request was addressed to another name or came from a foreign page.",
            );
            if !OPEN_ROUTES.contains(&path.as_str()) {
                add(
                    "401",
                    "The token (or the webhook's secret, or the device's token) is missing or wrong.",
                );
            }
            if catch_all.is_some() {
                add(
                    "422",
                    "Not a file name Sentient can use (`detail` says so).",
                );
            }
            if op.request_body.is_some() && !PLAIN_BODY_ROUTES.contains(&(method, path.as_str())) {
                add(
                    "422",
                    "The body does not fit: `detail` lists each field's problem.",
                );
            }
            if let Some(name) = &catch_all {
                let parameters = op.parameters.get_or_insert_with(Vec::new);
                let named = |p: &RefOr<Parameter>, wanted: &str| matches!(p, RefOr::T(p) if p.name == wanted);
                parameters.retain(|p| !named(p, &format!("*{name}")));
                if !parameters.iter().any(|p| named(p, name)) {
                    parameters.push(
                        ParameterBuilder::new()
                            .name(name)
                            .parameter_in(ParameterIn::Path)
                            .required(Required::True)
                            .description(Some("A file name as the files list shows it, e.g. report.pdf or screens/shot.png"))
                            .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
                            .build()
                            .into(),
                    );
                }
            }
        }
        doc.paths.paths.insert(path, item);
    }
}

/// `/api/files/{*name}` → (`/api/files/{name}`, Some("name")).
fn openapi_path(path: &str) -> (String, Option<String>) {
    match path.split_once("{*") {
        Some((before, rest)) => {
            let name = rest.trim_end_matches('}').to_owned();
            (format!("{before}{{{name}}}"), Some(name))
        }
        None => (path.to_owned(), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catch_all_paths_use_openapi_spelling() {
        assert_eq!(
            openapi_path("/api/files/content/{*name}"),
            (
                "/api/files/content/{name}".to_owned(),
                Some("name".to_owned())
            )
        );
        assert_eq!(
            openapi_path("/api/tasks/{id}"),
            ("/api/tasks/{id}".to_owned(), None)
        );
    }
}
