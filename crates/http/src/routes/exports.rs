//! `/v1/exports`: the bulk exports built at import (see `crate::exports`), listed with their size and
//! checksum, and served whole or in byte ranges for resuming.

use bytes::Bytes;
use hyper::header::{
    ACCEPT_RANGES, CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE, HeaderMap, HeaderValue,
};
use tapster_domain::VersionSelector;
use tapster_i18n::Language;
use tapster_store::ExportInfo;
use tapster_wire::Export;

use super::{Ctx, Endpoint, Handle, resolve};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::params::NoParams;
use crate::response::{File, LATEST_MAX_AGE, NAMED_VERSION_MAX_AGE, Reply};
use crate::schemas::schema;
use crate::views;

/// The template of one export's download, whose answer is a file rather than JSON (the OpenAPI
/// document describes it so).
pub(crate) const DOWNLOAD: &str = "/v1/exports/{version}/{lang}";

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/exports",
        key: None,
        summary: "The bulk exports: one file per game version and language, with its size, SHA-256 and URL",
        example: Some("/v1/exports"),
        handler: &Handle(list),
        data: schema::<Vec<Export>>,
    },
    Endpoint {
        path: DOWNLOAD,
        key: None,
        summary: "Every record of a game version in one language, as gzip-compressed NDJSON; resumable with `Range`",
        example: None,
        handler: &Handle(download),
        data: schema::<String>,
    },
];

/// `GET /v1/exports`: every kept export, newest version first, in the envelope of `/v1/versions`.
fn list(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let store = ctx.store;
    let data: Vec<Export> =
        store.exports().iter().map(|export| views::export(export, ctx.site.url(&path_of(export)))).collect();
    ctx.render(Localizer::new(store.latest(), Language::SOURCE), data, None)
}

/// `GET /v1/exports/{version}/{lang}`: the file, with its SHA-256 as its strong `ETag`. The app
/// answers `Range` and the conditional headers from it, and reads only the bytes it sends.
fn download(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let version = ctx.path_version()?;
    let lang = ctx.path_lang()?;
    let catalog = resolve(ctx.store, &version)?;
    let name = &catalog.info.name;
    if !catalog.info.languages.contains(&lang) {
        let languages: Vec<&str> = catalog.info.languages.iter().map(|l| l.code()).collect();
        return Err(ApiError::NotFound(format!(
            "{name} has no texts in {}; its languages are {}",
            lang.code(),
            languages.join(", ")
        )));
    }
    let not_built = || {
        ApiError::NotFound(format!(
            "no export of {name} in {} is kept: the data was imported without exports; importing it with `tapster import` builds them",
            lang.code()
        ))
    };
    let export =
        ctx.store.exports().iter().find(|e| &e.version == name && e.lang == lang).ok_or_else(not_built)?;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/gzip"));
    let disposition = format!("attachment; filename=\"{}\"", export.file_name());
    headers.insert(CONTENT_DISPOSITION, header_value(disposition)?);
    headers.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    let max_age =
        if matches!(version, VersionSelector::Exact(_)) { NAMED_VERSION_MAX_AGE } else { LATEST_MAX_AGE };
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(max_age));
    let (store, name) = (ctx.store.clone(), name.clone());
    // The store lists an export only with its bytes, and never changes under a request.
    let read = move |range| match store.export_part(&name, lang, range)? {
        Some(bytes) => Ok(Bytes::from(bytes)),
        None => Err(ApiError::Internal(format!("the listed export of {name} has no bytes").into())),
    };
    let tag = format!("\"{}\"", export.sha256_hex());
    Reply::file(headers, File { tag, size: export.size, read: Box::new(read) })
}

/// Where an export is downloaded from.
fn path_of(export: &ExportInfo) -> String {
    format!("/v1/exports/{}/{}", export.version, export.lang.code())
}

/// A header of version names, language codes and hex digits, which are always valid.
fn header_value(value: String) -> Result<HeaderValue, ApiError> {
    HeaderValue::try_from(value).map_err(|e| ApiError::Internal(Box::new(e)))
}
