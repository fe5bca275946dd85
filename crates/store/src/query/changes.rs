//! The changes between versions: a page of them as a reader of one language sees them, and the
//! names of changed records.

use std::borrow::Cow;
use std::collections::HashMap;

use tapster_domain::{
    ChangeKind, GameData, Letter, Mission, Perk, Quest, RecordKey, RecordType, ReputationMilestone, Slug,
    Spell, Talent, TextKey,
};
use tapster_i18n::Language;

use super::{Page, ProgressionSet, Window, page};
use crate::{Catalog, Change};

/// What a list of a version's changes can be filtered by; every filter given must hold.
#[derive(Debug, Default, Clone, Copy)]
pub struct ChangeFilter {
    pub kind: Option<RecordType>,
    pub change: Option<ChangeKind>,
}

/// How a changed record is named: its slug when it has one, and the text key of its name.
#[derive(Debug, Clone, Copy)]
pub struct RecordLabel<'a> {
    pub slug: Option<&'a Slug>,
    pub name_key: &'a TextKey,
}

/// A page of changes: those of the window, owned (they may be made for the request's language), and
/// how many pass the filter in all.
#[derive(Debug)]
pub struct ChangesPage {
    pub records: Vec<Change>,
    pub total: u64,
}

/// The names the stored changes give a text field, after its `*_key` field (`name` for `name_key`).
const TEXT_FIELDS: &[&str] = &["name", "description", "title"];

/// How changes name a record within its type, and order it: by id, or by key for progression records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Name<'a> {
    Id(i64),
    Key(&'a str),
}

impl<'a> Name<'a> {
    fn of(change: &'a Change) -> Self {
        match change.record_key.parse() {
            Ok(id) if !change.kind.is_progression() => Self::Id(id),
            _ => Self::Key(&change.record_key),
        }
    }

    fn record_key(self) -> String {
        match self {
            Self::Id(id) => id.to_string(),
            Self::Key(key) => key.to_owned(),
        }
    }
}

/// Every text the records of a version show, by record and text field.
#[derive(Default)]
struct TextFields<'a>(HashMap<(RecordType, Name<'a>, &'static str), &'a TextKey>);

impl<'a> TextFields<'a> {
    fn of(data: &'a GameData) -> Self {
        let mut texts = Self::default();
        for r in &data.items {
            texts.add(RecordType::Item, Name::Id(r.id), "name", Some(&r.name_key));
            texts.add(RecordType::Item, Name::Id(r.id), "description", r.description_key.as_ref());
        }
        for r in &data.recipes {
            texts.add(RecordType::Recipe, Name::Id(r.id), "name", Some(&r.name_key));
        }
        for r in &data.ingredient_groups {
            texts.add(RecordType::IngredientGroup, Name::Id(r.id), "name", Some(&r.name_key));
        }
        for r in &data.crafting_stations {
            texts.add(RecordType::CraftingStation, Name::Id(r.id), "name", Some(&r.name_key));
            texts.add(RecordType::CraftingStation, Name::Id(r.id), "description", r.description_key.as_ref());
        }
        for r in &data.crops {
            texts.add(RecordType::Crop, Name::Id(r.id), "name", Some(&r.name_key));
        }
        for r in &data.shops {
            texts.add(RecordType::Shop, Name::Id(r.id), "name", Some(&r.name_key));
        }
        for r in &data.shopkeepers {
            texts.add(RecordType::Shopkeeper, Name::Id(r.id), "name", Some(&r.name_key));
            texts.add(RecordType::Shopkeeper, Name::Id(r.id), "title", Some(&r.title_key));
        }
        // A fish has no text of its own: it is named by its item.
        texts.progression::<Quest>(data);
        texts.progression::<Perk>(data);
        texts.progression::<Spell>(data);
        texts.progression::<Talent>(data);
        texts.progression::<ReputationMilestone>(data);
        texts.progression::<Mission>(data);
        texts.progression::<Letter>(data);
        texts
    }

    fn add(&mut self, kind: RecordType, name: Name<'a>, field: &'static str, key: Option<&'a TextKey>) {
        if let Some(key) = key {
            self.0.insert((kind, name, field), key);
        }
    }

    fn progression<R: ProgressionSet>(&mut self, data: &'a GameData) {
        for r in R::records(data) {
            let name = Name::Key(r.key().as_str());
            self.add(R::TYPE, name, "name", Some(r.name_key()));
            self.add(R::TYPE, name, "description", Some(r.description_key()));
        }
    }
}

impl Catalog {
    /// A page of the changes from version `from` to this one that pass `filter`, in the stored order
    /// (by type in the data format's order, then by id or key), as a reader of `lang` sees them: a text
    /// field is listed when the text served in `lang` changed (a new, changed or withdrawn
    /// translation, or a changed English text that `lang` falls back to). From a later version, the
    /// changes run in reverse (what going back undoes: its additions are removals); from this version
    /// itself, there are none.
    pub fn changes_page(
        &self,
        from: &Catalog,
        lang: Language,
        filter: ChangeFilter,
        window: Window,
    ) -> ChangesPage {
        let english: Cow<'_, [Change]> = if let Some(forward) = self.changes_from(&from.info.name) {
            Cow::Borrowed(forward)
        } else if let Some(backward) = from.changes_from(&self.info.name) {
            Cow::Owned(backward.iter().map(Change::reversed).collect())
        } else {
            Cow::Owned(Vec::new()) // the same version
        };
        let changes = match lang {
            Language::SOURCE => english,
            _ => Cow::Owned(self.changes_in(from, &english, lang)),
        };
        let matching: Vec<&Change> = changes
            .iter()
            .filter(|c| filter.kind.is_none_or(|kind| c.kind == kind))
            .filter(|c| filter.change.is_none_or(|change| c.change == change))
            .collect();
        let Page { records, total } = page(matching, window);
        ChangesPage { records: records.into_iter().cloned().collect(), total }
    }

    /// The changes from `earlier` (or from a later version, reversed), which compare English texts,
    /// with each record's text fields compared in `lang` instead. Made per request: it reads every text of both versions once (about 2 ms for
    /// the bundled data, against 0.5 ms for English), which is cheaper than keeping a list per
    /// language and pair of versions.
    fn changes_in(&self, from: &Catalog, english: &[Change], lang: Language) -> Vec<Change> {
        let before = TextFields::of(&from.data);
        let mut texts_changed: HashMap<(RecordType, Name<'_>), Vec<&'static str>> = HashMap::new();
        for ((kind, name, field), key) in TextFields::of(&self.data).0 {
            let Some(old_key) = before.0.get(&(kind, name, field)) else { continue };
            let old = from.text(old_key, lang).map(|t| t.text);
            if self.text(key, lang).map(|t| t.text) != old {
                texts_changed.entry((kind, name)).or_default().push(field);
            }
        }
        let mut changes = Vec::with_capacity(english.len());
        for stored in english {
            let mut change = stored.clone();
            if change.change == ChangeKind::Modified {
                change.fields.retain(|field| !TEXT_FIELDS.contains(&field.as_str()));
                let fields = texts_changed.remove(&(stored.kind, Name::of(stored))).unwrap_or_default();
                change.fields.extend(fields.into_iter().map(String::from));
                if change.fields.is_empty() {
                    continue;
                }
                change.fields.sort();
            }
            changes.push(change);
        }
        // Records whose only change is a text in this language.
        for ((kind, name), mut fields) in texts_changed {
            fields.sort_unstable();
            let fields = fields.into_iter().map(String::from).collect();
            changes.push(Change {
                kind,
                record_key: name.record_key(),
                change: ChangeKind::Modified,
                fields,
            });
        }
        changes.sort_by(|a, b| (a.kind, Name::of(a)).cmp(&(b.kind, Name::of(b))));
        changes
    }

    /// The slug and name of the record of `kind` that changes call `record_key` (an id in decimal, or
    /// a progression key); a fish is named by the item it gives.
    pub fn record_label(&self, kind: RecordType, record_key: &str) -> Option<RecordLabel<'_>> {
        fn keyed<'a, R: ProgressionSet>(data: &'a GameData, key: &str) -> Option<RecordLabel<'a>> {
            R::records(data)
                .iter()
                .find(|r| r.key().as_str() == key)
                .map(|r| RecordLabel { slug: None, name_key: r.name_key() })
        }
        fn label<'a>(slug: &'a Slug, name_key: &'a TextKey) -> RecordLabel<'a> {
            RecordLabel { slug: Some(slug), name_key }
        }
        let id = || record_key.parse::<i64>().ok().map(RecordKey::Id);
        match kind {
            RecordType::Item => self.item(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Recipe => self.recipe(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::IngredientGroup => self.group(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::CraftingStation => self.station(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Crop => self.crop(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Shop => self.shop(&id()?).map(|r| label(&r.slug, &r.name_key)),
            RecordType::Shopkeeper => {
                let id = record_key.parse::<i64>().ok()?;
                self.shopkeeper_by_id(id).map(|r| label(&r.slug, &r.name_key))
            }
            RecordType::Fish => {
                let id = record_key.parse::<i64>().ok()?;
                let fish = self.data.fish.iter().find(|r| r.id == id)?;
                self.item_by_id(fish.item).map(|item| RecordLabel { slug: None, name_key: &item.name_key })
            }
            RecordType::Quest => keyed::<Quest>(&self.data, record_key),
            RecordType::Perk => keyed::<Perk>(&self.data, record_key),
            RecordType::Spell => keyed::<Spell>(&self.data, record_key),
            RecordType::Talent => keyed::<Talent>(&self.data, record_key),
            RecordType::Reputation => keyed::<ReputationMilestone>(&self.data, record_key),
            RecordType::Mission => keyed::<Mission>(&self.data, record_key),
            RecordType::Letter => keyed::<Letter>(&self.data, record_key),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use serde::Serialize;
    use serde_json::Value;

    use super::*;

    /// The text fields of `records` as the stored changes find them: every `*_key` field of the body.
    fn key_fields<R: Serialize>(kind: RecordType, records: &[R], found: &mut BTreeSet<String>) {
        for record in records {
            let Value::Object(body) = serde_json::to_value(record).unwrap() else {
                panic!("a record is an object")
            };
            let name =
                body.get("id").map_or_else(|| body["key"].as_str().unwrap().to_owned(), ToString::to_string);
            for field in body.keys().filter_map(|f| f.strip_suffix("_key")) {
                found.insert(format!("{kind} {name} {field}"));
            }
        }
    }

    #[test]
    fn every_text_field_the_stored_changes_compare_is_compared_per_language() {
        let dataset = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mini");
        for version in crate::read_dataset(&dataset).unwrap() {
            let data = &version.data;
            let mut stored = BTreeSet::new();
            key_fields(RecordType::Item, &data.items, &mut stored);
            key_fields(RecordType::Recipe, &data.recipes, &mut stored);
            key_fields(RecordType::IngredientGroup, &data.ingredient_groups, &mut stored);
            key_fields(RecordType::CraftingStation, &data.crafting_stations, &mut stored);
            key_fields(RecordType::Crop, &data.crops, &mut stored);
            key_fields(RecordType::Shop, &data.shops, &mut stored);
            key_fields(RecordType::Shopkeeper, &data.shopkeepers, &mut stored);
            key_fields(RecordType::Fish, &data.fish, &mut stored);
            key_fields(RecordType::Quest, &data.quests, &mut stored);
            key_fields(RecordType::Perk, &data.perks, &mut stored);
            key_fields(RecordType::Spell, &data.spells, &mut stored);
            key_fields(RecordType::Talent, &data.talents, &mut stored);
            key_fields(RecordType::Reputation, &data.reputation, &mut stored);
            key_fields(RecordType::Mission, &data.missions, &mut stored);
            key_fields(RecordType::Letter, &data.letters, &mut stored);
            let compared: BTreeSet<String> = TextFields::of(data)
                .0
                .into_keys()
                .map(|(kind, name, field)| format!("{kind} {} {field}", name.record_key()))
                .collect();
            assert_eq!(compared, stored);
            assert!(stored.iter().all(|f| TEXT_FIELDS.contains(&f.rsplit(' ').next().unwrap())));
        }
    }
}
