//! The documents about the API itself, outside `/v1` and without a key: `/openapi.json`, the same
//! as a page for people (`/docs`), and the changelog of the game data as a page for people (`/changelog`) and as a feed (`/changelog.rss`)
//! whose links open that page.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use askama::Template;
use bytes::Bytes;
use hyper::StatusCode;
use hyper::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderMap, HeaderValue, X_CONTENT_TYPE_OPTIONS};
use tapster_domain::{ChangeKind, GameVersion, ProgressionRecord, RecordType, TextKey, VersionSelector};
use tapster_i18n::Language;
use tapster_site::HeaderSlot;
use tapster_store::Catalog;

use super::{Ctx, Endpoint, Handle};
use crate::envelope::Localizer;
use crate::error::ApiError;
use crate::markup::escape;
use crate::params::NoParams;
use crate::response::{Page, Reply};
use crate::schemas::{document_schema, schema};

pub(super) const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/openapi.json",
        key: None,
        summary: "The OpenAPI 3.1 description of this interface (no key needed)",
        example: None,
        handler: &Handle(openapi),
        data: document_schema,
    },
    Endpoint {
        path: "/docs",
        key: None,
        summary: "This reference as a web page: every route, parameter, bound, allowed value and an example answer (no key needed)",
        example: None,
        handler: &Handle(reference_page),
        data: schema::<String>,
    },
    Endpoint {
        path: "/changelog",
        key: None,
        summary: "The published game versions and what each changed, newest first, as a web page (no key needed)",
        example: Some("/changelog"),
        handler: &Handle(changelog_page),
        data: schema::<String>,
    },
    Endpoint {
        path: "/changelog.rss",
        key: None,
        summary: "RSS 2.0 feed of the published game versions and what each changed, newest first (no key needed)",
        example: Some("/changelog.rss"),
        handler: &Handle(changelog),
        data: schema::<String>,
    },
];

/// Names listed in one feed item, at most.
const MAX_NAMES: usize = 10;

/// `GET /openapi.json`.
fn openapi(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    Ok(reply("application/json", ctx.site.openapi(ctx.store, ctx.metrics)))
}

/// `GET /docs`. Beside the site's style sheet it loads the dashboard's script for the "try it"
/// forms, which talks to the dashboard on this origin and nothing else.
fn reference_page(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let mut headers = page_headers();
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; \
             form-action 'self'; frame-ancestors 'none'",
        ),
    );
    Ok(Reply::page(headers, ctx.site.reference(ctx.store, ctx.metrics)?))
}

/// One published version as the changelog tells it.
#[derive(Debug)]
struct Entry {
    version: String,
    build_id: i64,
    released: String,
    summary: String,
    /// The items it added that have an icon, at most [`MAX_ICONS`], for the page to show.
    added: Vec<Pictured>,
    /// How many more items with an icon it added than `added` holds.
    more_added: usize,
}

/// An item as the changelog page shows it: its English name and its icon's URL (relative, so that
/// the page's `img-src 'self'` allows it wherever the service is reached).
#[derive(Debug)]
struct Pictured {
    name: String,
    icon_url: String,
}

/// Icons shown per version on the changelog page, at most: a patch adds a few dozen items, the first
/// version everything.
const MAX_ICONS: usize = 48;

/// The items `catalog` added since `before` (every item of the first version) that have an icon, in
/// id order, at most [`MAX_ICONS`], with their English names and the URLs of their 32 px icons; and
/// how many more there are.
fn added_items(catalog: &Catalog, before: Option<&Catalog>) -> (Vec<Pictured>, usize) {
    let added: Option<HashSet<i64>> = before.map(|before| {
        let changes = catalog.changes_from(&before.info.name).unwrap_or_default();
        changes
            .iter()
            .filter(|c| c.kind == RecordType::Item && c.change == ChangeKind::Added)
            .filter_map(|c| c.record_key.parse().ok())
            .collect()
    });
    let loc = Localizer::new(catalog, Language::SOURCE);
    let mut pictured = catalog.data.items.iter().filter(|item| {
        !item.unlisted
            && added.as_ref().is_none_or(|ids| ids.contains(&item.id))
            && item.icon.as_ref().is_some_and(|icon| catalog.picture_of(icon).is_some())
    });
    let shown = pictured
        .by_ref()
        .take(MAX_ICONS)
        .filter_map(|item| {
            let icon_url = loc.picture_url(item.icon.as_ref()?)?;
            let name = catalog.text(&item.name_key, Language::SOURCE)?.text.to_owned();
            Some(Pictured { name, icon_url: format!("{icon_url}?size=32") })
        })
        .collect();
    (shown, pictured.count())
}

/// The published versions, newest first, each with what it changed since the one before it.
fn entries(store: &tapster_store::Store) -> Vec<Entry> {
    let previous = |name: &GameVersion| store.resolve(&VersionSelector::Exact(name.clone()));
    store
        .versions()
        .map(|catalog| {
            let before = catalog.info.previous.as_ref().and_then(previous);
            let (added, more_added) = added_items(catalog, before);
            Entry {
                version: catalog.info.name.to_string(),
                build_id: catalog.info.build_id,
                released: catalog.info.released.to_string(),
                summary: summary(catalog, before),
                added,
                more_added,
            }
        })
        .collect()
}

/// `GET /changelog`, rendered on its first request for the data served.
fn changelog_page(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let page = ctx.site.changelog(&|| {
        let feed_url = ctx.site.url("/changelog.rss");
        let page = ChangelogPage { nav: HeaderSlot, entries: &entries(ctx.store), feed_url: &feed_url };
        Page::new("/changelog", &page.render().map_err(|e| ApiError::Internal(Box::new(e)))?)
    })?;
    Ok(Reply::page(page_headers(), page))
}

/// `GET /changelog.rss`.
fn changelog(ctx: &Ctx<'_>, _: NoParams) -> Result<Reply, ApiError> {
    let feed = feed(&entries(ctx.store), &ctx.site.url("/changelog"));
    Ok(reply("application/rss+xml; charset=utf-8", feed.into()))
}

fn reply(content_type: &'static str, body: Bytes) -> Reply {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    Reply::new(StatusCode::OK, headers, body)
}

/// The headers of a page of the site: it runs nothing and loads nothing but the site's style sheet
/// and the records' pictures, and its one form (the header's sign-out button) posts only here.
fn page_headers() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'",
        ),
    );
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers
}

/// The feed of `entries` (newest first); each item links to its section of the page at `page_url`.
fn feed(entries: &[Entry], page_url: &str) -> String {
    let mut xml =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel>\n");
    let _ = writeln!(xml, "<title>Tapster: game data versions</title>\n<link>{}</link>", escape(page_url));
    xml.push_str(
        "<description>Each published game version and what it changed in the game data. \
         Unofficial: not affiliated with or endorsed by the game's publisher.</description>\n<language>en</language>\n",
    );
    for (i, entry) in entries.iter().enumerate() {
        let date = rfc822(&entry.released);
        if i == 0 {
            let _ = writeln!(xml, "<lastBuildDate>{date}</lastBuildDate>");
        }
        let version = escape(&entry.version);
        let _ = write!(
            xml,
            "<item>\n<title>Game version {version} (build {})</title>\n<link>{}#{version}</link>\n\
             <guid isPermaLink=\"false\">{version}</guid>\n<pubDate>{date}</pubDate>\n<description>{}</description>\n</item>\n",
            entry.build_id,
            escape(page_url),
            escape(&entry.summary),
        );
    }
    xml.push_str("</channel>\n</rss>\n");
    xml
}

/// The changelog as a web page: one section per version, its id the version's name, so that the
/// feed's links (`/changelog#v0.7.0.0.1`) open at it.
#[derive(Debug, Template)]
#[template(path = "changelog.html")]
struct ChangelogPage<'a> {
    /// Each visitor's header goes here when the page is served.
    nav: HeaderSlot,
    entries: &'a [Entry],
    feed_url: &'a str,
}

/// What a version changed, in English: counts per record type, then some names.
fn summary(catalog: &Catalog, before: Option<&Catalog>) -> String {
    let Some(before) = before else {
        let counts: Vec<String> = catalog
            .info
            .counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(kind, n)| format!("{n} {}", label(*kind)))
            .collect();
        return format!("First published version: {}.", counts.join(", "));
    };
    let changes = catalog.changes_from(&before.info.name).unwrap_or_default();
    if changes.is_empty() {
        return format!("No changes to the game data since {}.", before.info.name);
    }
    let mut counts: BTreeMap<RecordType, [u64; 3]> = BTreeMap::new();
    let mut added = Vec::new();
    let mut renamed = Vec::new();
    for change in changes {
        let slot = match change.change {
            ChangeKind::Added => 0,
            ChangeKind::Removed => 1,
            ChangeKind::Modified => 2,
        };
        counts.entry(change.kind).or_default()[slot] += 1;
        if slot == 0 {
            added.extend(english_name(catalog, change.kind, &change.record_key));
        } else if slot == 2 && change.fields.iter().any(|f| f == "name") {
            let old = english_name(before, change.kind, &change.record_key);
            let new = english_name(catalog, change.kind, &change.record_key);
            if let (Some(old), Some(new)) = (old, new) {
                renamed.push(format!("{old} \u{2192} {new}"));
            }
        }
    }
    let mut text = format!("Changes since {}: ", before.info.name);
    let parts: Vec<String> = counts
        .iter()
        .map(|(kind, [a, r, m])| {
            let what: Vec<String> = [(a, "added"), (r, "removed"), (m, "modified")]
                .into_iter()
                .filter(|(n, _)| **n > 0)
                .map(|(n, word)| format!("{n} {word}"))
                .collect();
            format!("{}: {}", label(*kind), what.join(", "))
        })
        .collect();
    text.push_str(&parts.join("; "));
    text.push('.');
    // Renames first, but leave room for additions.
    let renames_shown = if added.is_empty() { MAX_NAMES } else { MAX_NAMES / 2 };
    let shown_renames = renamed.len().min(renames_shown);
    for (heading, names, budget) in
        [("Renamed", &renamed, renames_shown), ("Added", &added, MAX_NAMES - shown_renames)]
    {
        if names.is_empty() {
            continue;
        }
        let shown: Vec<&str> = names.iter().take(budget).map(String::as_str).collect();
        let _ = write!(text, " {heading}: {}", shown.join(", "));
        if names.len() > shown.len() {
            let _ = write!(text, " and {} more", names.len() - shown.len());
        }
        text.push('.');
    }
    text
}

/// The record type as a reader would name it (`ingredient groups`).
fn label(kind: RecordType) -> String {
    kind.plural().replace('_', " ")
}

/// The English name of a record named as changes name it: its id in decimal, or its progression key.
fn english_name(catalog: &Catalog, kind: RecordType, record_key: &str) -> Option<String> {
    let id = record_key.parse::<i64>().ok();
    let data = &catalog.data;
    let key: Option<&TextKey> = match kind {
        RecordType::Item => data.items.iter().find(|r| Some(r.id) == id).map(|r| &r.name_key),
        RecordType::Recipe => data.recipes.iter().find(|r| Some(r.id) == id).map(|r| &r.name_key),
        RecordType::IngredientGroup => {
            data.ingredient_groups.iter().find(|r| Some(r.id) == id).map(|r| &r.name_key)
        }
        RecordType::CraftingStation => {
            data.crafting_stations.iter().find(|r| Some(r.id) == id).map(|r| &r.name_key)
        }
        RecordType::Crop => data.crops.iter().find(|r| Some(r.id) == id).map(|r| &r.name_key),
        RecordType::Shop => data.shops.iter().find(|r| Some(r.id) == id).map(|r| &r.name_key),
        RecordType::Shopkeeper => data.shopkeepers.iter().find(|r| Some(r.id) == id).map(|r| &r.name_key),
        // A fish is named by the item a catch gives.
        RecordType::Fish => data
            .fish
            .iter()
            .find(|r| Some(r.id) == id)
            .and_then(|r| catalog.item_by_id(r.item))
            .map(|r| &r.name_key),
        RecordType::Quest => progression_name(&data.quests, record_key),
        RecordType::Perk => progression_name(&data.perks, record_key),
        RecordType::Spell => progression_name(&data.spells, record_key),
        RecordType::Talent => progression_name(&data.talents, record_key),
        RecordType::Reputation => progression_name(&data.reputation, record_key),
        RecordType::Mission => progression_name(&data.missions, record_key),
        RecordType::Letter => progression_name(&data.letters, record_key),
    };
    catalog.text(key?, Language::SOURCE).map(|t| t.text.to_owned())
}

fn progression_name<'a, T: ProgressionRecord>(records: &'a [T], key: &str) -> Option<&'a TextKey> {
    records.iter().find(|r| r.key().as_str() == key).map(ProgressionRecord::name_key)
}

/// `2026-02-01` as an RFC 822 date (with a four-digit year, as RSS readers expect): `Sun, 01 Feb 2026 00:00:00 GMT`.
fn rfc822(date: &str) -> String {
    let number =
        |range: std::ops::Range<usize>| date.get(range).and_then(|s| s.parse::<u32>().ok()).unwrap_or(1);
    let (year, month, day) = (number(0..4), number(5..7).clamp(1, 12), number(8..10));
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    // Sakamoto's day-of-week method.
    const OFFSETS: [u32; 12] = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4];
    let y = if month < 3 { year.saturating_sub(1) } else { year };
    let weekday = (y + y / 4 - y / 100 + y / 400 + OFFSETS[month as usize - 1] + day) % 7;
    format!("{}, {day:02} {} {year:04} 00:00:00 GMT", DAYS[weekday as usize], MONTHS[month as usize - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc_822() {
        let cases = [
            ("2026-02-01", "Sun, 01 Feb 2026 00:00:00 GMT"),
            ("2026-01-01", "Thu, 01 Jan 2026 00:00:00 GMT"),
            ("2024-02-29", "Thu, 29 Feb 2024 00:00:00 GMT"),
            ("2000-03-01", "Wed, 01 Mar 2000 00:00:00 GMT"),
            ("2025-12-31", "Wed, 31 Dec 2025 00:00:00 GMT"),
        ];
        for (date, expected) in cases {
            assert_eq!(rfc822(date), expected, "{date}");
        }
    }
}
