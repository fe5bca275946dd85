//! The wire crate reads what the server writes: every answer of every documented JSON route, and
//! every record of a bulk export, parses into its `tapster-wire` type and writes back as the same
//! JSON. The server writes with those types, so this is the half a client depends on.

use std::collections::BTreeSet;
use std::io::Read;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tapster_wire::*;

use crate::bundled_get;

/// Reads `body` into `T` and writes it back; where the JSON differs, says where.
fn round_trip<T: DeserializeOwned + Serialize>(body: &Value) -> Result<(), String> {
    let parsed: T = serde_json::from_value(body.clone()).map_err(|e| format!("does not parse: {e}"))?;
    let written = serde_json::to_value(&parsed).map_err(|e| e.to_string())?;
    if written == *body { Ok(()) } else { Err(format!("writes back as {written}, not {body}")) }
}

type Check = fn(&Value) -> Result<(), String>;

/// For each documented JSON route, requests whose answers between them hold every shape it has, and
/// the type they read into.
const ROUTES: &[(&str, &[&str], Check)] = &[
    ("/healthz", &["/healthz"], round_trip::<Health>),
    ("/v1/key", &["/v1/key"], round_trip::<Envelope<Key>>),
    ("/v1/exports", &["/v1/exports"], round_trip::<Envelope<Vec<Export>>>),
    ("/v1/versions", &["/v1/versions"], round_trip::<Envelope<Vec<GameVersion>>>),
    ("/v1/versions/{version}", &["/v1/versions/latest"], round_trip::<Envelope<GameVersion>>),
    (
        "/v1/versions/{version}/changes",
        &[
            "/v1/versions/latest/changes?limit=100&lang=ja",
            "/v1/versions/v0.6.4.2.1/changes?from=latest&limit=100",
        ],
        round_trip::<Envelope<Vec<VersionChange>>>,
    ),
    ("/v1/languages", &["/v1/languages?lang=ja"], round_trip::<Envelope<Vec<Language>>>),
    (
        "/v1/items",
        &["/v1/items?limit=100&include_unlisted=true&lang=ja", "/v1/items?kind=drink&limit=100"],
        round_trip::<Envelope<Vec<ItemSummary>>>,
    ),
    (
        "/v1/items/{key}",
        &["/v1/items/pale-ale?expand=recipes,shops,groups&lang=ja", "/v1/items/barley"],
        round_trip::<Envelope<ItemDetail>>,
    ),
    (
        "/v1/items/{key}/price",
        &[
            "/v1/items/cask-aged-barley-spirit/price?aging=grand_reserve&quality=superior&ingredients=expensive",
        ],
        round_trip::<Envelope<ItemPrice>>,
    ),
    ("/v1/items/{key}/used-in", &["/v1/items/barley/used-in?limit=100"], round_trip::<Envelope<Vec<UsedIn>>>),
    (
        "/v1/items/{key}/sources",
        &["/v1/items/barley/sources", "/v1/items/wheat/sources", "/v1/items/pale-ale/sources"],
        round_trip::<Envelope<Sources>>,
    ),
    ("/v1/rankings/products", &["/v1/rankings/products?limit=100"], round_trip::<Envelope<Vec<RankingRow>>>),
    (
        "/v1/recipes",
        &["/v1/recipes?limit=100&include_replaced=true&lang=ja"],
        round_trip::<Envelope<Vec<RecipeSummary>>>,
    ),
    ("/v1/recipes/{key}", &["/v1/recipes/pale-ale"], round_trip::<Envelope<RecipeDetail>>),
    (
        "/v1/recipes/{key}/tree",
        &["/v1/recipes/cask-aged-barley-spirit/tree", "/v1/recipes/pale-ale/tree?ingredients=expensive"],
        round_trip::<Envelope<TreeNode>>,
    ),
    (
        "/v1/ingredient-groups/{key}",
        &["/v1/ingredient-groups/any-hops"],
        round_trip::<Envelope<IngredientGroup>>,
    ),
    ("/v1/crafters", &["/v1/crafters?lang=ja"], round_trip::<Envelope<Vec<CraftingStation>>>),
    ("/v1/crops", &["/v1/crops?limit=100"], round_trip::<Envelope<Vec<Crop>>>),
    ("/v1/crops/{key}", &["/v1/crops/barley"], round_trip::<Envelope<Crop>>),
    ("/v1/shops", &["/v1/shops"], round_trip::<Envelope<Vec<ShopSummary>>>),
    ("/v1/shops/{key}", &["/v1/shops/hollins-general-store"], round_trip::<Envelope<ShopDetail>>),
    ("/v1/npcs", &["/v1/npcs"], round_trip::<Envelope<Vec<Npc>>>),
    ("/v1/fish", &["/v1/fish?limit=100"], round_trip::<Envelope<Vec<Fish>>>),
    ("/v1/quests", &["/v1/quests?limit=100"], round_trip::<Envelope<Vec<Document>>>),
    ("/v1/quests/{key}", &["/v1/quests/Daily.Ale"], round_trip::<Envelope<DocumentDetail>>),
    ("/v1/perks", &["/v1/perks?limit=100"], round_trip::<Envelope<Vec<Document>>>),
    ("/v1/perks/{key}", &["/v1/perks/CRAFT_FINE_WEAVE_1"], round_trip::<Envelope<DocumentDetail>>),
    ("/v1/spells", &["/v1/spells?limit=100"], round_trip::<Envelope<Vec<Document>>>),
    ("/v1/spells/{key}", &["/v1/spells/Spell.Bloom"], round_trip::<Envelope<DocumentDetail>>),
    ("/v1/talents", &["/v1/talents?limit=100"], round_trip::<Envelope<Vec<Document>>>),
    ("/v1/talents/{key}", &["/v1/talents/T_Brewing_Cooper"], round_trip::<Envelope<DocumentDetail>>),
    ("/v1/reputation", &["/v1/reputation?limit=100"], round_trip::<Envelope<Vec<Document>>>),
    ("/v1/reputation/{key}", &["/v1/reputation/Rep_Level_01"], round_trip::<Envelope<DocumentDetail>>),
    ("/v1/missions", &["/v1/missions?limit=100"], round_trip::<Envelope<Vec<Document>>>),
    (
        "/v1/missions/{key}",
        &["/v1/missions/Mission%2001%20-%20Salt%20Road"],
        round_trip::<Envelope<DocumentDetail>>,
    ),
    ("/v1/letters", &["/v1/letters?limit=100"], round_trip::<Envelope<Vec<Document>>>),
    ("/v1/letters/{key}", &["/v1/letters/Letter%20From%20Home"], round_trip::<Envelope<DocumentDetail>>),
    (
        "/v1/search",
        &["/v1/search?q=barley&limit=50", "/v1/search?q=alnut&limit=50", "/v1/search?q=barlei&lang=de"],
        round_trip::<Envelope<Vec<SearchResult>>>,
    ),
];

/// The routes whose answers are not JSON data: documents, a feed, a file, a picture.
const NOT_WIRE: &[&str] = &[
    "/openapi.json",
    "/docs",
    "/changelog",
    "/changelog.rss",
    "/v1/exports/{version}/{lang}",
    "/v1/exports/{version}/icons",
    "/assets/{sha256}/{name}",
];

#[test]
fn every_json_answer_reads_into_its_wire_type_and_back() {
    let document = bundled_get("/openapi.json").json();
    let documented: BTreeSet<&str> = document["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .filter(|p| !NOT_WIRE.contains(p))
        .collect();
    let covered: BTreeSet<&str> = ROUTES.iter().map(|(template, ..)| *template).collect();
    assert_eq!(covered, documented, "each documented JSON route needs its wire type here");
    let mut failures = Vec::new();
    for (_, targets, check) in ROUTES {
        for target in *targets {
            let answer = bundled_get(target);
            assert_eq!(answer.status.as_u16(), 200, "{target}: {:?}", answer.body);
            if let Err(why) = check(&answer.json()) {
                failures.push(format!("{target}: {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every record of every resource, as an export holds them, reads into its type and back.
#[test]
fn every_record_of_an_export_reads_into_its_wire_type_and_back() {
    let answer = bundled_get("/v1/exports/latest/ja");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&answer.body[..]).read_to_string(&mut text).unwrap();
    let mut failures = Vec::new();
    let mut lines = 0;
    for line in text.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        let data = &line["data"];
        let checked = match line["resource"].as_str().unwrap() {
            "versions" => round_trip::<GameVersion>(data),
            "items" => round_trip::<ItemDetail>(data),
            "recipes" => round_trip::<RecipeDetail>(data),
            "ingredient-groups" => round_trip::<IngredientGroup>(data),
            "crafters" => round_trip::<CraftingStation>(data),
            "crops" => round_trip::<Crop>(data),
            "shops" => round_trip::<ShopDetail>(data),
            "npcs" => round_trip::<Npc>(data),
            "fish" => round_trip::<Fish>(data),
            "quests" | "perks" | "spells" | "talents" | "reputation" | "missions" | "letters" => {
                round_trip::<DocumentDetail>(data)
            }
            other => Err(format!("a resource the test does not know: {other}")),
        };
        if let Err(why) = checked {
            failures.push(format!("{}: {why}", line["resource"]));
        }
        lines += 1;
    }
    assert!(lines > 2_000, "{lines}");
    assert!(
        failures.is_empty(),
        "{} of {lines}:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}
