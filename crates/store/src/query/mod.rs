//! Lists as callers ask for them: filters, sort orders and pages, computed on a catalog in memory.
//! Sorting always ends on the id, so that pages of one list never repeat or skip a record.
//! One module per area of the API; this one holds what they share.

mod changes;
mod items;
mod prices;
mod progression;
mod recipes;
mod relations;
mod search;
mod world;

pub use changes::{ChangeFilter, ChangesPage, RecordLabel};
pub use items::{ItemFilter, ItemOrder};
pub use prices::{Ranking, RankingQuery, ServingPrices};
pub use progression::ProgressionSet;
pub use recipes::{RecipeFilter, RecipeOrder};
pub use relations::{
    ItemSources, ItemUse, ItemUsePage, TREE_MAX_DEPTH, TREE_MAX_NODES, TreeEntry, TreeGroup, TreeItem, UseVia,
};
pub use search::{Found, MatchTier, SearchHit};
pub use world::{CropFilter, CropOrder, FishFilter};

use std::cmp::Ordering;
use std::collections::BTreeSet;

/// One page of a list, and how many records the whole list has.
#[derive(Debug)]
pub struct Page<'a, T> {
    pub records: Vec<&'a T>,
    pub total: u64,
}

/// Which slice of a list to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub limit: u32,
    pub offset: u32,
}

/// A sort key and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort<K> {
    pub key: K,
    pub descending: bool,
}

/// The records a list starts from, before it is sorted: those `ids` names, each once and in the
/// order first given (an id no record has is left out), or when `ids` is `None` every record of
/// `all`; of either, only those that `passes`.
pub(crate) fn chosen<'a, T>(
    ids: Option<&[i64]>,
    all: &'a [T],
    by_id: impl Fn(i64) -> Option<&'a T>,
    passes: impl Fn(&&'a T) -> bool,
) -> Vec<&'a T> {
    match ids {
        Some(ids) => {
            let mut seen = BTreeSet::new();
            ids.iter().filter(|id| seen.insert(**id)).filter_map(|id| by_id(*id)).filter(passes).collect()
        }
        None => all.iter().filter(passes).collect(),
    }
}

/// Sorts by each key in turn, then by id, so that the order is total and pages are stable.
/// Keys for which `by_name` holds order by `name_rank` (see `Catalog::name_rank`), which is looked
/// up once per record rather than once per comparison; `compare` decides the other keys.
pub(crate) fn sort_by<T, K: Copy>(
    records: &mut Vec<&T>,
    sort: &[Sort<K>],
    id: impl Fn(&T) -> i64,
    by_name: impl Fn(K) -> bool,
    name_rank: impl Fn(&T) -> u32,
    compare: impl Fn(K, &T, &T) -> Ordering,
) {
    let named = sort.iter().any(|s| by_name(s.key));
    let mut keyed: Vec<(u32, &T)> =
        records.iter().map(|record| (if named { name_rank(record) } else { 0 }, *record)).collect();
    keyed.sort_by(|(name_a, a), (name_b, b)| {
        sort.iter()
            .map(|s| {
                let order = if by_name(s.key) { name_a.cmp(name_b) } else { compare(s.key, a, b) };
                if s.descending { order.reverse() } else { order }
            })
            .find(|o| o.is_ne())
            .unwrap_or_else(|| id(a).cmp(&id(b)))
    });
    records.clear();
    records.extend(keyed.into_iter().map(|(_, record)| record));
}

/// The slice of `records` that `window` asks for.
pub(crate) fn page<T>(records: Vec<&T>, window: Window) -> Page<'_, T> {
    let total = records.len() as u64;
    let records = records.into_iter().skip(window.offset as usize).take(window.limit as usize).collect();
    Page { records, total }
}
