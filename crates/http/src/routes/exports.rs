//! `/v1/exports`: the bulk exports built at import (see `crate::exports`), listed with their size and
//! checksum, and served whole or in byte ranges for resuming; and a version's pictures in one archive.

use std::collections::BTreeMap;

use bytes::Bytes;
use hyper::header::{
    ACCEPT_RANGES, CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE, HeaderMap, HeaderValue,
};
use sha2::{Digest, Sha256};
use tapster_domain::{AssetPath, VersionSelector};
use tapster_i18n::Language;
use tapster_store::{Catalog, ExportInfo, Store};
use tapster_wire::{Export, PictureEntry, PictureManifest};

use super::{Ctx, Endpoint, Handle, resolve};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::params::NoParams;
use crate::response::{File, LATEST_MAX_AGE, NAMED_VERSION_MAX_AGE, Reply};
use crate::schemas::schema;
use crate::tar::Tar;
use crate::views;

/// The template of one export's download, whose answer is a file rather than JSON (the OpenAPI
/// document describes it so).
pub(crate) const DOWNLOAD: &str = "/v1/exports/{version}/{lang}";
/// The template of a version's pictures in one archive, a file too. It comes before [`DOWNLOAD`]
/// in the table, whose `{lang}` would match `icons` otherwise.
pub(crate) const ICONS: &str = "/v1/exports/{version}/icons";

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
        path: ICONS,
        key: None,
        summary: "Every picture of a game version in one tar archive, at the paths its records name, with `manifest.json` (path, SHA-256, size, URL and items of each); resumable with `Range`",
        example: Some("/v1/exports/latest/icons"),
        handler: &Handle(icons),
        data: schema::<String>,
    },
    Endpoint {
        path: DOWNLOAD,
        key: None,
        summary: "Every record of a game version in one language, as gzip-compressed NDJSON; resumable with `Range`",
        example: Some("/v1/exports/latest/en"),
        handler: &Handle(download),
        data: schema::<String>,
    },
];

/// `GET /v1/exports`: every kept export, newest version first, in the envelope of `/v1/versions`.
fn list(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let store = ctx.store;
    let data: Vec<Export> =
        store.exports().iter().map(|export| views::export(export, ctx.site.url(&path_of(export)))).collect();
    ctx.render(ctx.localizer(store.latest(), Language::SOURCE), data, None)
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

/// `GET /v1/exports/{version}/icons`: the version's pictures in one archive ([`icons_archive`]),
/// built on its first request and kept with the published data, so that a `304`, a `HEAD` or a
/// resumed range costs no more than another file's; its SHA-256 is its `ETag`.
fn icons(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let version = ctx.path_version()?;
    let catalog = resolve(ctx.store, &version)?;
    let archive = ctx.site.icons(ctx.store, catalog)?;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/x-tar"));
    let disposition = format!("attachment; filename=\"tapster-{}-icons.tar\"", catalog.info.name);
    headers.insert(CONTENT_DISPOSITION, header_value(disposition)?);
    headers.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    let max_age =
        if matches!(version, VersionSelector::Exact(_)) { NAMED_VERSION_MAX_AGE } else { LATEST_MAX_AGE };
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(max_age));
    Reply::file(headers, File::in_memory(archive.tag.clone(), archive.bytes.clone()))
}

/// A version's pictures in one tar archive, and its `ETag`.
#[derive(Debug)]
pub(crate) struct IconsArchive {
    pub(crate) bytes: Bytes,
    /// The archive's SHA-256 in hex, quoted.
    pub(crate) tag: String,
}

/// The pictures of `catalog` (a version of `store`) in one archive: `manifest.json` (a
/// `PictureManifest`, its URLs under `origin`), then every picture its items name, as the dataset
/// held it, at `assets/<path>` as in a version folder (so that no path can fall on the manifest).
pub(crate) fn icons_archive(
    store: &Store,
    catalog: &Catalog,
    origin: &str,
) -> Result<IconsArchive, ApiError> {
    let name = &catalog.info.name;
    let mut items_by_path: BTreeMap<&AssetPath, Vec<String>> = BTreeMap::new();
    for item in &catalog.data.items {
        if let Some(icon) = &item.icon {
            items_by_path.entry(icon).or_default().push(item.slug.to_string());
        }
    }
    let loc = Localizer::new(catalog, Language::SOURCE).with_origin(origin);
    let mut manifest = PictureManifest { version: name.to_string(), pictures: Vec::new() };
    let mut files = Vec::new();
    for (path, items) in items_by_path {
        let picture = catalog.picture_of(path).and_then(|sha256| store.picture(sha256)).ok_or_else(|| {
            ApiError::NotFound(format!(
                "no pictures of {name} are kept: the data was imported by a build before pictures; importing it again with `tapster import` keeps them"
            ))
        })?;
        let url = loc.picture_url(path).unwrap_or_default();
        let (sha256, size) = (picture.sha256_hex(), picture.original.len() as u64);
        manifest.pictures.push(PictureEntry { path: path.to_string(), sha256, size, url, items });
        files.push((path, picture.original.clone()));
    }
    let mut tar = Tar::new(u64::try_from(catalog.info.released.unix_seconds()).unwrap_or_default());
    let mut listing = serde_json::to_vec_pretty(&manifest).map_err(|e| ApiError::Internal(Box::new(e)))?;
    listing.push(b'\n');
    tar.file("manifest.json", &listing);
    for (path, bytes) in files {
        tar.file(&format!("assets/{path}"), &bytes);
    }
    let bytes = Bytes::from(tar.finish());
    let tag = format!("\"{}\"", tapster_domain::hex(&Sha256::digest(&bytes)));
    Ok(IconsArchive { bytes, tag })
}

/// Where an export is downloaded from.
fn path_of(export: &ExportInfo) -> String {
    format!("/v1/exports/{}/{}", export.version, export.lang.code())
}

/// A header of version names, language codes and hex digits, which are always valid.
fn header_value(value: String) -> Result<HeaderValue, ApiError> {
    HeaderValue::try_from(value).map_err(|e| ApiError::Internal(Box::new(e)))
}
