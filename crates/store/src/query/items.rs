//! Items: the filters, sort orders and pages of item lists.

use std::collections::BTreeSet;

use tapster_domain::{Item, ItemId, ItemKind, RecordId};
use tapster_i18n::Language;

use super::{Page, Sort, Window, chosen, page, sort_by};
use crate::Catalog;

/// What a list of items can be filtered by; every filter given must hold.
#[derive(Debug, Default)]
pub struct ItemFilter<'a> {
    pub kind: Option<ItemKind>,
    pub category: Option<&'a str>,
    pub tag: Option<&'a str>,
    pub ingredient_type: Option<&'a str>,
    pub can_be_sold: Option<bool>,
    pub can_be_aged: Option<bool>,
    /// Only items this shop sells.
    pub shop: Option<RecordId>,
    /// Only these items, in this order unless a sort is given.
    pub ids: Option<&'a [ItemId]>,
    /// Also items the game hides from its catalogue.
    pub include_unlisted: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemOrder {
    Id,
    /// By name in the requested language, ignoring case and accents.
    Name,
    /// By base price.
    Price,
}

impl Catalog {
    /// A page of the items that pass `filter`, in `sort` order (then by id).
    pub fn items(
        &self,
        filter: &ItemFilter<'_>,
        sort: &[Sort<ItemOrder>],
        lang: Language,
        window: Window,
    ) -> Page<'_, Item> {
        let sold: Option<BTreeSet<ItemId>> = filter.shop.map(|shop| {
            self.data
                .shops
                .iter()
                .filter(|s| s.id == shop)
                .flat_map(|s| s.catalogue.iter().map(|e| e.item))
                .collect()
        });
        let passes = |item: &&Item| {
            (filter.include_unlisted || !item.unlisted)
                && filter.kind.is_none_or(|kind| item.kind == kind)
                && filter.category.is_none_or(|c| item.category.as_str() == c)
                && filter.tag.is_none_or(|t| item.tags.iter().any(|tag| tag.as_str() == t))
                && filter
                    .ingredient_type
                    .is_none_or(|t| item.ingredient_type.as_ref().is_some_and(|it| it.as_str() == t))
                && filter.can_be_sold.is_none_or(|b| item.can_be_sold == b)
                && filter.can_be_aged.is_none_or(|b| item.can_be_aged == b)
                && sold.as_ref().is_none_or(|sold| sold.contains(&item.id))
        };
        let mut records = chosen(filter.ids, &self.data.items, |id| self.item_by_id(id), passes);
        if !sort.is_empty() {
            sort_by(
                &mut records,
                sort,
                |item| item.id,
                |key| key == ItemOrder::Name,
                |item| self.name_rank(&item.name_key, lang),
                |key, a, b| match key {
                    ItemOrder::Id => a.id.cmp(&b.id),
                    ItemOrder::Name => std::cmp::Ordering::Equal, // ordered by name in `sort_by`
                    ItemOrder::Price => a.base_price.cmp(&b.base_price),
                },
            );
        }
        page(records, window)
    }
}
