//! The pictures records name: kept once per content for every version, with every size and format
//! made at import, named per version by their path; and data imported before pictures were kept.

use std::io::Cursor;

use rusqlite::Connection;
use tapster_domain::AssetPath;
use tapster_store::{GAME_DB, Outcome, PICTURE_SIDES, PictureFormat, Store, import};
use tempfile::TempDir;

use crate::{copy_tree, mini};

fn path(text: &str) -> AssetPath {
    AssetPath::parse(text).unwrap()
}

/// The SHA-256 the version `name` of `store` keeps for `asset`.
fn picture_of(store: &Store, name: &str, asset: &str) -> Option<[u8; 32]> {
    let catalog = store.versions().find(|c| c.info.name.as_str() == name).unwrap();
    catalog.picture_of(&path(asset)).copied()
}

/// The width and height a PNG's header states, after decoding it whole.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    let mut reader = png::Decoder::new(Cursor::new(bytes)).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buffer).unwrap();
    (frame.width, frame.height)
}

fn webp_size(bytes: &[u8]) -> (u32, u32) {
    let mut decoder = image_webp::WebPDecoder::new(Cursor::new(bytes)).unwrap();
    let mut buffer = vec![0; decoder.output_buffer_size().unwrap()];
    decoder.read_image(&mut buffer).unwrap();
    decoder.dimensions()
}

#[test]
fn a_picture_is_kept_once_and_each_version_names_its_own() {
    let dir = TempDir::new().unwrap();
    let report = import(dir.path(), &mini()).unwrap();
    assert!(report.versions.iter().all(|v| v.pictures == 2), "{report:?}");
    let store = Store::open(dir.path()).unwrap();

    // Barley is drawn alike in both versions: one picture. Pale Ale was repainted: two.
    let barley = picture_of(&store, "v1.0.0.0.1", "Sprites/Items/Barley.png").unwrap();
    assert_eq!(picture_of(&store, "v1.0.1.0.0", "Sprites/Items/Barley.png"), Some(barley));
    let old_ale = picture_of(&store, "v1.0.0.0.1", "Sprites/Items/Pale Ale.png").unwrap();
    let new_ale = picture_of(&store, "v1.0.1.0.0", "Sprites/Items/Pale Ale.png").unwrap();
    assert_ne!(old_ale, new_ale);
    assert_eq!(store.pictures().count(), 3);
    assert_eq!(picture_of(&store, "v1.0.1.0.0", "Sprites/Items/Hops.png"), None);

    let file = std::fs::read(mini().join("v1.0.1.0.0/assets/Sprites/Items/Pale Ale.png")).unwrap();
    let picture = store.picture(&new_ale).unwrap();
    assert_eq!(picture.original, file, "the file is kept as it came");
    assert!(picture.is_named("Pale Ale.png"));
    assert!(!picture.is_named("Barley.png"));
    for side in PICTURE_SIDES {
        let png = picture.variant(side, PictureFormat::Png).unwrap();
        assert_eq!(png_size(&png.body), (side, side));
        let webp = picture.variant(side, PictureFormat::Webp).unwrap();
        assert_eq!(webp_size(&webp.body), (side, side));
        assert_ne!(png.sha256, webp.sha256);
    }
    // At the size it was drawn in, the PNG is the file itself.
    assert_eq!(picture.variant(128, PictureFormat::Png).unwrap().body, file);
    assert!(picture.variant(48, PictureFormat::Png).is_none());
}

#[test]
fn a_picture_no_version_names_any_more_is_forgotten() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini()).unwrap();
    let store = Store::open(dir.path()).unwrap();
    let new_ale = picture_of(&store, "v1.0.1.0.0", "Sprites/Items/Pale Ale.png").unwrap();

    // The second version is imported again with Pale Ale drawn as it was in the first.
    let dataset = TempDir::new().unwrap();
    copy_tree(&mini().join("v1.0.1.0.0"), dataset.path());
    let ale = "assets/Sprites/Items/Pale Ale.png";
    std::fs::copy(mini().join("v1.0.0.0.1").join(ale), dataset.path().join(ale)).unwrap();
    let report = import(dir.path(), dataset.path()).unwrap();
    assert_eq!(report.versions[0].outcome, Outcome::Replaced);

    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.pictures().count(), 2);
    assert!(store.picture(&new_ale).is_none());
    let conn = Connection::open(dir.path().join(GAME_DB)).unwrap();
    let variants: i64 = conn.query_row("SELECT count(*) FROM picture_variants", [], |r| r.get(0)).unwrap();
    assert_eq!(variants, 2 * 6);
}

/// Data imported by a build before pictures (layout generation 3) is served without them; the next
/// import of the same folders, whose hash now covers the pictures, brings them.
#[test]
fn data_from_before_pictures_is_served_and_the_next_import_adds_them() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini()).unwrap();
    {
        let conn = Connection::open(dir.path().join(GAME_DB)).unwrap();
        conn.execute_batch(
            "DROP TABLE assets; DROP TABLE picture_variants; DROP TABLE pictures;
             UPDATE versions SET source_sha256 = 'hashed without its pictures';
             PRAGMA user_version = 3;",
        )
        .unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.pictures().count(), 0);
    assert_eq!(picture_of(&store, "v1.0.1.0.0", "Sprites/Items/Barley.png"), None);

    let report = import(dir.path(), &mini()).unwrap();
    assert!(report.versions.iter().all(|v| v.outcome == Outcome::Replaced), "{report:?}");
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.pictures().count(), 3);
    assert!(picture_of(&store, "v1.0.1.0.0", "Sprites/Items/Barley.png").is_some());
}

/// A database whose picture lacks one of its sizes (copied in part, or edited by hand) is refused
/// when opened, naming what is missing, rather than failing a request later.
#[test]
fn a_picture_without_one_of_its_sizes_is_refused_when_opened() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini()).unwrap();
    {
        let conn = Connection::open(dir.path().join(GAME_DB)).unwrap();
        let removed = conn
            .execute("DELETE FROM picture_variants WHERE side = 64 AND format = 'webp' AND rowid = (SELECT min(rowid) FROM picture_variants WHERE side = 64 AND format = 'webp')", [])
            .unwrap();
        assert_eq!(removed, 1);
    }
    let error = Store::open(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("without its 64 px webp") && error.contains("import the game data again"),
        "{error}"
    );
}
