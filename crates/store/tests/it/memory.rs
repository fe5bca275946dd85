//! What keeps many versions in memory affordable: texts that versions have in common are held once.

use tapster_domain::RecordKey;
use tapster_i18n::Language;
use tapster_store::{Store, import};
use tempfile::TempDir;

use crate::mini;

#[test]
fn versions_share_the_texts_they_have_in_common() {
    let dir = TempDir::new().unwrap();
    import(dir.path(), &mini()).unwrap();
    let store = Store::open(dir.path()).unwrap();
    let [newer, older] = [0, 1].map(|i| store.versions().nth(i).unwrap());
    let item = RecordKey::parse("10").unwrap();
    fn name<'a>(catalog: &'a tapster_store::Catalog, item: &RecordKey) -> &'a str {
        let key = &catalog.item(item).unwrap().name_key;
        catalog.text(key, Language::SOURCE).unwrap().text
    }
    let (newer, older) = (name(newer, &item), name(older, &item));
    assert_eq!(newer, older);
    assert!(std::ptr::eq(newer.as_ptr(), older.as_ptr()), "the same text is held twice");
}
