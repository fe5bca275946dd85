//! The pictures a version's records name (today the items' icons), kept once per content for every
//! version that names it: the file as the dataset held it, and each size and format Tapster serves,
//! made when the picture is first imported, so that serving one is a lookup in memory and never
//! work per request. Which picture a version's path names is kept per version, since a patch may
//! repaint an icon under the same path.

use std::collections::{BTreeMap, HashMap};

use bytes::Bytes;
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use sha2::{Digest, Sha256};
use tapster_domain::AssetPath;

use crate::picture::{self, Rgba};
use crate::{Error, Result};

/// The sides, in pixels, of the squares a picture is served in; the last is the one served unless
/// another is asked for.
pub const PICTURE_SIDES: [u32; 3] = [32, 64, 128];
/// The side a picture's URL serves by itself.
pub const DEFAULT_PICTURE_SIDE: u32 = 128;

/// The formats a picture is served in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PictureFormat {
    Png,
    /// Lossless WebP.
    Webp,
}

impl PictureFormat {
    pub const ALL: [Self; 2] = [Self::Png, Self::Webp];

    /// The name a request gives it (`png`, `webp`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Webp => "webp",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|format| format.as_str() == name)
    }

    /// Its media type, as `Content-Type` says it.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Webp => "image/webp",
        }
    }
}

/// One picture, whatever versions and paths name it.
#[derive(Debug)]
pub struct Picture {
    /// The SHA-256 of the file as the dataset held it, which names the picture.
    pub sha256: [u8; 32],
    /// That file.
    pub original: Bytes,
    /// The file names its URLs may end in ([`picture_file_name`] of each path that names it).
    names: Vec<String>,
    variants: Vec<PictureVariant>,
}

/// A picture in one size and format, as it is served.
#[derive(Debug)]
pub struct PictureVariant {
    pub side: u32,
    pub format: PictureFormat,
    pub body: Bytes,
    /// The SHA-256 of `body`, its entity tag.
    pub sha256: [u8; 32],
}

impl PictureVariant {
    /// The SHA-256 of its bytes in lowercase hex.
    pub fn sha256_hex(&self) -> String {
        tapster_domain::hex(&self.sha256)
    }
}

impl Picture {
    /// The picture in a square of `side` pixels (one of [`PICTURE_SIDES`]) and `format`.
    pub fn variant(&self, side: u32, format: PictureFormat) -> Option<&PictureVariant> {
        self.variants.iter().find(|v| v.side == side && v.format == format)
    }

    /// Whether a URL of the picture may end in `name`: the file name of a path that names it.
    pub fn is_named(&self, name: &str) -> bool {
        self.names.iter().any(|known| known == name)
    }

    /// Its SHA-256 in lowercase hex, as its URL holds it.
    pub fn sha256_hex(&self) -> String {
        tapster_domain::hex(&self.sha256)
    }
}

/// The file name a URL of the picture at `path` ends in: the last name of the path, ending in
/// `.png` whatever the game called it (`Sprites/Items/Pale Ale.png` is `Pale Ale.png`,
/// `icons/1204` is `1204.png`), since what is served is always a picture of that format unless
/// another is asked for.
pub fn picture_file_name(path: &AssetPath) -> String {
    let last = path.as_str().rsplit('/').next().unwrap_or_default();
    let stem = match last.len().checked_sub(4) {
        Some(cut) if last.is_char_boundary(cut) && last[cut..].eq_ignore_ascii_case(".png") => &last[..cut],
        _ => last,
    };
    format!("{stem}.png")
}

/// Every picture of an opened database, by its SHA-256.
#[derive(Debug, Default)]
pub(crate) struct Pictures {
    by_hash: HashMap<[u8; 32], Picture>,
}

/// Which picture each asset path names, per version id.
pub(crate) type AssetsByVersion = HashMap<i64, HashMap<AssetPath, [u8; 32]>>;

impl Pictures {
    /// The pictures of the database `conn` has open and which each version's paths name; none in a
    /// layout generation before pictures.
    pub(crate) fn load(conn: &Connection, generation: i64) -> Result<(Self, AssetsByVersion)> {
        if generation < 4 {
            return Ok(Default::default());
        }
        let corrupt = |what: &str| Error::Conflict(format!("a stored {what}; import the game data again"));
        let mut assets = AssetsByVersion::new();
        let mut names: HashMap<[u8; 32], Vec<String>> = HashMap::new();
        let mut stmt = conn.prepare("SELECT version_id, path, picture FROM assets")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let path: String = row.get(1)?;
            let path = AssetPath::parse(&path).map_err(|_| corrupt("asset path that is none"))?;
            let sha256 = hash(row.get(2)?).ok_or_else(|| corrupt("picture hash that is none"))?;
            let file_names = names.entry(sha256).or_default();
            let name = picture_file_name(&path);
            if !file_names.contains(&name) {
                file_names.push(name);
            }
            assets.entry(row.get(0)?).or_default().insert(path, sha256);
        }
        let mut by_hash = HashMap::new();
        let mut stmt = conn.prepare("SELECT sha256, body FROM pictures")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let sha256 = hash(row.get(0)?).ok_or_else(|| corrupt("picture hash that is none"))?;
            let original = Bytes::from(row.get::<_, Vec<u8>>(1)?);
            let names = names.remove(&sha256).unwrap_or_default();
            by_hash.insert(sha256, Picture { sha256, original, names, variants: Vec::new() });
        }
        let mut stmt = conn.prepare("SELECT picture, side, format, sha256, body FROM picture_variants")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let picture = hash(row.get(0)?).and_then(|sha256| by_hash.get_mut(&sha256));
            let format: String = row.get(2)?;
            let (Some(picture), Some(format), Some(sha256)) =
                (picture, PictureFormat::parse(&format), hash(row.get(3)?))
            else {
                return Err(corrupt("picture variant that belongs to no picture"));
            };
            let body = Bytes::from(row.get::<_, Vec<u8>>(4)?);
            picture.variants.push(PictureVariant { side: row.get(1)?, format, body, sha256 });
        }
        // Every picture has every size and format, so that serving one never finds one missing.
        for picture in by_hash.values() {
            for (side, format) in
                PICTURE_SIDES.into_iter().flat_map(|side| PictureFormat::ALL.map(|f| (side, f)))
            {
                if picture.variant(side, format).is_none() {
                    let what =
                        format!("picture {} without its {side} px {}", picture.sha256_hex(), format.as_str());
                    return Err(corrupt(&what));
                }
            }
        }
        Ok((Self { by_hash }, assets))
    }

    pub(crate) fn get(&self, sha256: &[u8; 32]) -> Option<&Picture> {
        self.by_hash.get(sha256)
    }

    /// Every picture, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Picture> {
        self.by_hash.values()
    }
}

fn hash(bytes: Vec<u8>) -> Option<[u8; 32]> {
    bytes.try_into().ok()
}

/// Keeps the pictures of the version `version_id` (each path with its file, checked when the
/// dataset was read): a picture already kept for another version (by its hash) is only named, a new
/// one is stored with every size and format made from it.
pub(crate) fn write(
    tx: &Transaction<'_>,
    version_id: i64,
    assets: &BTreeMap<AssetPath, Vec<u8>>,
) -> Result<usize> {
    let mut name = tx.prepare("INSERT INTO assets (version_id, path, picture) VALUES (?1, ?2, ?3)")?;
    let mut kept = tx.prepare("SELECT 1 FROM pictures WHERE sha256 = ?1")?;
    let mut insert = tx.prepare("INSERT INTO pictures (sha256, body) VALUES (?1, ?2)")?;
    let mut insert_variant = tx.prepare(
        "INSERT INTO picture_variants (picture, side, format, sha256, body) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (path, bytes) in assets {
        let sha256: [u8; 32] = Sha256::digest(bytes).into();
        if kept.query_row([&sha256[..]], |_| Ok(())).optional()?.is_none() {
            let image = picture::decode(bytes).map_err(|why| {
                Error::Conflict(format!("the picture of {path} {why}, though it was read before"))
            })?;
            let made = variants(bytes, &image).map_err(|why| {
                Error::Conflict(format!("the picture of {path} could not be made smaller: {why}"))
            })?;
            insert.execute(params![&sha256[..], bytes])?;
            for (side, format, body) in made {
                let tag: [u8; 32] = Sha256::digest(&body).into();
                insert_variant.execute(params![&sha256[..], side, format.as_str(), &tag[..], body])?;
            }
        }
        name.execute(params![version_id, path.as_str(), &sha256[..]])?;
    }
    Ok(assets.len())
}

/// Forgets the pictures no version names any more (those of versions replaced by an import).
pub(crate) fn forget_unnamed(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(
        "DELETE FROM picture_variants WHERE picture NOT IN (SELECT picture FROM assets);
         DELETE FROM pictures WHERE sha256 NOT IN (SELECT picture FROM assets);",
    )?;
    Ok(())
}

/// Every size and format of the picture whose file is `original`, decoded as `image`. A file that is
/// already a PNG of a size served is served as it is at that size.
fn variants(original: &[u8], image: &Rgba) -> Result<Vec<(u32, PictureFormat, Vec<u8>)>, String> {
    let mut made = Vec::with_capacity(PICTURE_SIDES.len() * PictureFormat::ALL.len());
    for side in PICTURE_SIDES {
        let fitted = (image.width != side || image.height != side).then(|| picture::fit(image, side));
        let pixels = fitted.as_ref().unwrap_or(image);
        let png = if picture::is_square_png_of(original, side) {
            original.to_vec()
        } else {
            picture::encode_png(pixels)?
        };
        made.push((side, PictureFormat::Png, png));
        made.push((side, PictureFormat::Webp, picture::encode_webp(pixels)?));
    }
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_the_file_as_a_png() {
        let name = |path: &str| picture_file_name(&AssetPath::parse(path).unwrap());
        assert_eq!(name("Sprites/Items/Pale Ale.png"), "Pale Ale.png");
        assert_eq!(name("Sprites/Items/barley.PNG"), "barley.png");
        assert_eq!(name("icons/1204"), "1204.png");
        assert_eq!(name("a"), "a.png");
        assert_eq!(name("UI/item_-3.v2.png"), "item_-3.v2.png");
    }

    #[test]
    fn formats_read_back_their_names() {
        for format in PictureFormat::ALL {
            assert_eq!(PictureFormat::parse(format.as_str()), Some(format));
        }
        assert_eq!(PictureFormat::parse("gif"), None);
    }
}
