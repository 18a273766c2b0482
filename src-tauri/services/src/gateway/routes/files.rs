//! Files over HTTP (contract section 2, "Files").

use axum::Json;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, FieldError};
use crate::files::{FileInfo, FilesError, MAX_UPLOAD_BYTES, UploadSource};
use crate::{OkReply, Services};

pub fn routes() -> OpenApiRouter<Services> {
    // Uploads get a larger body limit than the rest of the API (the inner limit wins).
    let uploads = OpenApiRouter::new()
        .routes(routes!(upload, list))
        .layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES + 64 * 1024));
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(content))
        .routes(routes!(delete))
}

fn field_error(field: &str, msg: &str) -> ApiError {
    ApiError::validation(vec![FieldError::new(&["body", field], msg, "value_error")])
}

/// Uploads one file (multipart field `file`; optional field `source`: upload or screen).
#[utoipa::path(post, path = "/api/files", tag = "files",
    request_body(content_type = "multipart/form-data", description = "file, source?"),
    responses((status = 200, body = FileInfo), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn upload(
    State(services): State<Services>,
    mut form: Multipart,
) -> Result<Json<FileInfo>, ApiError> {
    let mut file: Option<(String, Vec<u8>)> = None;
    let mut source = UploadSource::Upload;
    loop {
        let field = match form.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) if e.status().as_u16() == 413 => return Err(FilesError::TooLarge.into()),
            Err(_) => {
                return Err(field_error(
                    "file",
                    "The upload could not be read. Try again.",
                ));
            }
        };
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or_default().to_owned();
                let bytes = field.bytes().await.map_err(|e| {
                    if e.status().as_u16() == 413 {
                        FilesError::TooLarge.into()
                    } else {
                        field_error("file", "The upload could not be read. Try again.")
                    }
                })?;
                file = Some((name, bytes.to_vec()));
            }
            Some("source") => {
                let text = field.text().await.unwrap_or_default();
                source = UploadSource::parse(Some(&text))?;
            }
            _ => {}
        }
    }
    let (name, bytes) = file.ok_or_else(|| field_error("file", "Attach a file to upload."))?;
    Ok(Json(services.files().save(&name, &bytes, source).await?))
}

/// Every stored file, newest first.
#[utoipa::path(get, path = "/api/files", tag = "files", responses((status = 200, body = Vec<FileInfo>)))]
pub async fn list(State(services): State<Services>) -> Result<Json<Vec<FileInfo>>, ApiError> {
    Ok(Json(services.files().list().await?))
}

/// A file's bytes.
#[utoipa::path(get, path = "/api/files/content/{*name}", tag = "files",
    responses((status = 200, description = "The file"), (status = 404, body = crate::error::ErrorBody)))]
pub async fn content(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let (bytes, mime) = services.files().read(&name).await?;
    Ok(([(CONTENT_TYPE, mime)], Body::from(bytes)).into_response())
}

/// Deletes a file.
#[utoipa::path(delete, path = "/api/files/{*name}", tag = "files",
    responses((status = 200, body = OkReply), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete(
    State(services): State<Services>,
    Path(name): Path<String>,
) -> Result<Json<OkReply>, ApiError> {
    services.files().delete(&name).await?;
    Ok(Json(OkReply::yes()))
}
