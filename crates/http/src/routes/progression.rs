//! The progression records: `/v1/{quests,perks,spells,talents,reputation,missions,letters}` and `/{key}`.
//! One generic pair of handlers serves every type; each route is still its own entry of the table.

use schemars::{Schema, SchemaGenerator};
use tapster_domain::{Letter, Mission, Perk, Quest, ReputationMilestone, Spell, Talent};
use tapster_store::Window;
use tapster_wire::{Document, DocumentDetail};

use super::{Ctx, Endpoint, Handle, KeyRule};
use crate::error::ApiError;
use crate::params::{VersionLang, VersionLangPage};
use crate::response::Reply;
use crate::schemas::{branch_of, schema};
use crate::views::{self, Documented, noun};

/// A list and a single-record endpoint for each segment: the record type, a record's key in the
/// bundled data (percent-encoded, for the document's examples), and how its summaries read.
macro_rules! progression_endpoints {
    ($($segment:literal => $record:ty, $example:literal, $list:literal, $single:literal;)+) => {
        &[$(
            Endpoint {
                path: concat!("/v1/", $segment),
                key: None,
                summary: $list,
                example: Some(concat!("/v1/", $segment, "?limit=2")),
                handler: &Handle(list::<$record>),
                data: schema::<Vec<Document>>,
            },
            Endpoint {
                path: concat!("/v1/", $segment, "/{key}"),
                key: Some(KeyRule::Progression),
                summary: $single,
                example: Some(concat!("/v1/", $segment, "/", $example)),
                handler: &Handle(detail::<$record>),
                data: detail_schema::<$record>,
            },
        )+]
    };
}

pub(super) const ENDPOINTS: &[Endpoint] = progression_endpoints! {
    "quests" => Quest, "Daily.Ale", "Quests, by key", "One quest by key, with its giver, objectives and rewards";
    "perks" => Perk, "CRAFT_FINE_WEAVE_1", "Perks, by tier then key", "One perk by key, with its tier, cost and requirements";
    "spells" => Spell, "Spell.Bloom", "Spells, by key", "One spell by key, with its school, mana cost and cooldown";
    "talents" => Talent, "T_Brewing_Cooper", "Talents, by key", "One talent by key, with its tree, ranks and requirements";
    "reputation" => ReputationMilestone, "Rep_Level_01", "Reputation milestones, by level", "One reputation milestone by key, with its level, points and rewards";
    "missions" => Mission, "Mission%2001%20-%20Salt%20Road", "Missions, by key", "One mission by key, with its duration, reputation needed and rewards";
    "letters" => Letter, "Letter%20From%20Home", "Letters, by key", "One letter by key, with its sender, trigger and attachments";
};

/// The schema of one kind's detail: its branch of the [`DocumentDetail`] union
/// (`QuestDocumentDetail`), so that a client of `/v1/quests/{key}` gets a quest's type, not the
/// union of all seven.
fn detail_schema<R: Documented>(generator: &mut SchemaGenerator) -> Schema {
    branch_of::<DocumentDetail>(generator, R::TYPE.singular())
}

/// `GET /v1/<segment>`: a page of the records of type `R` in their default order.
fn list<R: Documented>(ctx: &Ctx<'_>, p: VersionLangPage) -> Result<Reply, ApiError> {
    let catalog = ctx.catalog(&p.version)?;
    let window = Window { limit: p.limit, offset: p.offset };
    let page = catalog.progression_page::<R>(window);
    let mut loc = ctx.localizer(catalog, p.lang);
    let data = loc.list(page.records.iter().copied(), views::document);
    ctx.render_page(loc, data, None, window, page.total)
}

/// `GET /v1/<segment>/{key}`: one record of type `R` by its progression key.
fn detail<R: Documented>(ctx: &Ctx<'_>, p: VersionLang) -> Result<Reply, ApiError> {
    let key = ctx.path_progression_key()?;
    let catalog = ctx.catalog(&p.version)?;
    let record = catalog.progression_record::<R>(key).ok_or_else(|| {
        ApiError::NotFound(format!("there is no {} {key} in {}", noun(R::TYPE), catalog.info.name))
    })?;
    let mut loc = ctx.localizer(catalog, p.lang);
    let detail = views::document_detail(&mut loc, record);
    ctx.render(loc, detail, None)
}
