//! The changes between game versions: which records were added, removed or modified, and for a
//! modified record which fields. Computed at import for every pair of an earlier and a later
//! version, from the stored record bodies and English texts, so that serving only reads them; the
//! texts of other languages are compared when asked for (`query::changes`), from the same stored list.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rusqlite::{Transaction, params};
use serde_json::Value;
use tapster_domain::{ChangeKind, RecordType, SOURCE_LANGUAGE};

use crate::Result;

/// How a record is ordered within a diff: by type in the data format's order, then by id or key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Name {
    Id(i64),
    Key(String),
}

type Snapshot = BTreeMap<(RecordType, Name), (String, Value)>;

/// One changed record.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) kind: RecordType,
    pub(crate) record_key: String,
    pub(crate) change: ChangeKind,
    /// Changed fields of a modified record, in the data format's names; a `*_key` text reference
    /// whose English text changed is reported by the text's name (`name` for `name_key`).
    pub(crate) fields: Vec<String>,
}

/// Replaces every stored change with those between each pair of versions, earlier to later.
pub(crate) fn recompute(tx: &Transaction<'_>) -> Result<()> {
    tx.execute("DELETE FROM changes", [])?;
    let versions: Vec<i64> = tx
        .prepare("SELECT id FROM versions ORDER BY build_id")?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut snapshots = Vec::with_capacity(versions.len());
    for &id in &versions {
        snapshots.push((snapshot(tx, id)?, english(tx, id)?));
    }
    let mut insert = tx.prepare(
        "INSERT INTO changes (version_id, from_version_id, seq, type, record_key, change, fields)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (later, (new, new_texts)) in snapshots.iter().enumerate() {
        for (earlier, (old, old_texts)) in snapshots[..later].iter().enumerate() {
            for (seq, change) in diff(old, old_texts, new, new_texts).into_iter().enumerate() {
                insert.execute(params![
                    versions[later],
                    versions[earlier],
                    seq as i64,
                    change.kind.plural(),
                    change.record_key,
                    change.change.as_str(),
                    serde_json::to_string(&change.fields)?,
                ])?;
            }
        }
    }
    Ok(())
}

fn snapshot(tx: &Transaction<'_>, version_id: i64) -> Result<Snapshot> {
    let mut stmt = tx.prepare("SELECT type, record_key, id, body FROM records WHERE version_id = ?1")?;
    let mut rows = stmt.query([version_id])?;
    let mut snapshot = Snapshot::new();
    while let Some(row) = rows.next()? {
        let kind: String = row.get(0)?;
        let Some(kind) = RecordType::parse(&kind) else { continue };
        let record_key: String = row.get(1)?;
        let name = match row.get::<_, Option<i64>>(2)? {
            Some(id) => Name::Id(id),
            None => Name::Key(record_key.clone()),
        };
        let body: Value = serde_json::from_str(&row.get::<_, String>(3)?)?;
        snapshot.insert((kind, name), (record_key, body));
    }
    Ok(snapshot)
}

fn english(tx: &Transaction<'_>, version_id: i64) -> Result<HashMap<String, String>> {
    let mut stmt = tx.prepare("SELECT key, text FROM texts WHERE version_id = ?1 AND lang = ?2")?;
    let texts = stmt
        .query_map(params![version_id, SOURCE_LANGUAGE], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(texts)
}

fn diff(
    old: &Snapshot,
    old_texts: &HashMap<String, String>,
    new: &Snapshot,
    new_texts: &HashMap<String, String>,
) -> Vec<Change> {
    let names: BTreeSet<&(RecordType, Name)> = old.keys().chain(new.keys()).collect();
    let mut changes = Vec::new();
    for name in names {
        let kind = name.0;
        match (old.get(name), new.get(name)) {
            (Some((key, _)), None) => changes.push(Change {
                kind,
                record_key: key.clone(),
                change: ChangeKind::Removed,
                fields: Vec::new(),
            }),
            (None, Some((key, _))) => changes.push(Change {
                kind,
                record_key: key.clone(),
                change: ChangeKind::Added,
                fields: Vec::new(),
            }),
            (Some((key, before)), Some((_, after))) => {
                let fields = changed_fields(before, old_texts, after, new_texts);
                if !fields.is_empty() {
                    changes.push(Change {
                        kind,
                        record_key: key.clone(),
                        change: ChangeKind::Modified,
                        fields,
                    });
                }
            }
            (None, None) => {}
        }
    }
    changes
}

fn changed_fields(
    before: &Value,
    old_texts: &HashMap<String, String>,
    after: &Value,
    new_texts: &HashMap<String, String>,
) -> Vec<String> {
    let (Value::Object(before), Value::Object(after)) = (before, after) else {
        return if before == after { Vec::new() } else { vec!["(record)".into()] };
    };
    let mut names: Vec<&String> = before.keys().chain(after.keys()).collect();
    names.sort();
    names.dedup();
    let mut fields = Vec::new();
    for name in names {
        let (old, new) = (before.get(name), after.get(name));
        if old != new {
            fields.push(name.clone());
        }
        if let (Some(text_field), Some(Value::String(old_key)), Some(Value::String(new_key))) =
            (name.strip_suffix("_key"), old, new)
            && old_texts.get(old_key) != new_texts.get(new_key)
        {
            fields.push(text_field.to_owned());
        }
    }
    fields.sort();
    fields
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn snapshot(records: &[(RecordType, i64, Value)]) -> Snapshot {
        records.iter().map(|(k, id, body)| ((*k, Name::Id(*id)), (id.to_string(), body.clone()))).collect()
    }

    fn texts(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn reports_added_removed_and_modified_fields_with_renames_by_text() {
        let old = snapshot(&[
            (RecordType::Item, 1, json!({"id": 1, "name_key": "i1", "base_price": 10})),
            (RecordType::Item, 2, json!({"id": 2, "name_key": "i2", "base_price": 20})),
            (RecordType::Item, 3, json!({"id": 3, "name_key": "i3", "base_price": 30})),
            (RecordType::Recipe, 1, json!({"id": 1, "name_key": "r1"})),
        ]);
        let new = snapshot(&[
            (RecordType::Item, 1, json!({"id": 1, "name_key": "i1", "base_price": 12})),
            (RecordType::Item, 3, json!({"id": 3, "name_key": "i3", "base_price": 30, "unlisted": true})),
            (RecordType::Item, 4, json!({"id": 4, "name_key": "i4", "base_price": 40})),
            (RecordType::Recipe, 1, json!({"id": 1, "name_key": "r1"})),
        ]);
        let old_texts = texts(&[("i1", "Ale"), ("i2", "Mead"), ("i3", "Rye"), ("r1", "Brew")]);
        let new_texts = texts(&[("i1", "Pale Ale"), ("i3", "Rye"), ("i4", "Cider"), ("r1", "Brew")]);
        let got: Vec<String> = diff(&old, &old_texts, &new, &new_texts)
            .iter()
            .map(|c| format!("{} {} {} {:?}", c.kind, c.record_key, c.change, c.fields))
            .collect();
        assert_eq!(
            got,
            [
                r#"items 1 modified ["base_price", "name"]"#,
                "items 2 removed []",
                r#"items 3 modified ["unlisted"]"#,
                "items 4 added []",
            ]
        );
    }
}
