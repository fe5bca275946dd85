//! `/assets/{sha256}/{name}`: the pictures records show (an item's `icon_url`), public since an
//! `<img>` sends no key. A URL names a picture by the SHA-256 of its file, so its answer never
//! changes and is cacheable forever; every size and format was made at import, so an answer is a
//! lookup, with its own strong `ETag`, `304` and `HEAD`, as a file answer has them.

use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderMap, HeaderValue};
use tapster_store::PictureFormat;

use super::{Ctx, Endpoint, Handle};
use crate::error::ApiError;
use crate::params::{Param, PictureSide, Rule, query_params};
use crate::response::{File, Reply};
use crate::schemas::schema;
use crate::value_sets;

/// The template of a picture, whose answer is an image rather than JSON (the OpenAPI document
/// describes it so).
pub(crate) const PICTURE: &str = "/assets/{sha256}/{name}";

/// `Cache-Control` of a picture: its URL names its content, so it never changes.
const FOREVER: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");

pub(super) const ENDPOINTS: &[Endpoint] = &[Endpoint {
    path: PICTURE,
    key: None,
    summary: "A picture a record shows (an item's `icon_url`), as PNG or lossless WebP, 32, 64 or 128 pixels square; cacheable forever",
    example: None,
    handler: &Handle(picture),
    data: schema::<String>,
}];

query_params! {
    /// The query of `GET /assets/{sha256}/{name}`.
    struct PictureParams {
        size: PictureSide = Param {
            name: "size",
            rule: Rule::Enum(&value_sets::PictureSize::SET),
            description: "The side of the square, in pixels: `32`, `64` or `128` (the default). The picture is fitted into it, its aspect kept.",
        },
        format: PictureFormat = Param {
            name: "format",
            rule: Rule::Enum(&value_sets::PictureFormat::SET),
            description: "`png` (the default) or `webp` (lossless).",
        },
    }
}

/// `GET /assets/{sha256}/{name}`: the picture whose file has that SHA-256, when a record names it
/// under a path ending in `name`; any other name is `404`, so that a URL names one picture for good.
fn picture(ctx: &Ctx<'_>, p: PictureParams) -> Result<Reply, ApiError> {
    let (sha256, name) = ctx.path_picture()?;
    let picture = ctx.store.picture(sha256).filter(|picture| picture.is_named(name)).ok_or_else(|| {
        ApiError::NotFound(format!(
            "there is no picture at {}; a picture's URL is the `icon_url` of the record that shows it",
            ctx.path
        ))
    })?;
    let missing = || {
        let what =
            format!("the picture {} has no {}px {}", picture.sha256_hex(), p.size.0, p.format.as_str());
        ApiError::Internal(what.into())
    };
    let variant = picture.variant(p.size.0, p.format).ok_or_else(missing)?;
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(p.format.media_type()));
    headers.insert(CACHE_CONTROL, FOREVER);
    let tag = format!("\"{}\"", variant.sha256_hex());
    Reply::file(headers, File::in_memory(tag, variant.body.clone()))
}
