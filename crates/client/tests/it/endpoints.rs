//! Every typed method against the server, each answer in its wire type with the envelope's `meta`
//! saying what was asked; paged lists walked whole.

use tapster_client::*;

use crate::{assert_all, client, download_export, recipe_tree, wiki_drinks};

#[tokio::test]
async fn every_method_answers_in_its_type() {
    let client = client();
    let de = VersionLang { lang: Some(Lang::De), ..Default::default() };
    assert_eq!(client.health().await.unwrap().status, HealthStatus::Ok);
    let key = client.key().await.unwrap().data;
    assert_eq!(key.limits.len(), 3);
    let versions = client.versions().await.unwrap().data;
    let (newest, oldest) = (&versions[0].version, &versions[versions.len() - 1].version);
    assert_eq!(&client.version("latest").await.unwrap().data.version, newest);
    let changes = ChangesQuery { record_type: Some(ChangeType::Items), ..Default::default() };
    let all_changes = client.changes_pages(newest, &changes).all().await.unwrap();
    assert_all(&all_changes, "changes of items", |c| c.kind == ChangeType::Items);
    let undone = ChangesQuery { from: Some(newest.clone()), limit: Some(5), ..Default::default() };
    assert_eq!(client.changes(oldest, &undone).await.unwrap().data.len(), 5);
    let languages = client.languages(&de).await.unwrap();
    assert_eq!(languages.meta.lang, Lang::De);
    assert_eq!(languages.data.len(), 27);

    let drinks = ItemsQuery { kind: Some(ItemKind::Drink), limit: Some(100), ..Default::default() };
    let all = client.items_pages(&drinks).all().await.unwrap();
    assert_eq!(all.len() as u64, client.items(&drinks).await.unwrap().pagination.unwrap().total);
    assert_all(&all, "drinks", |i| i.kind == ItemKind::Drink);
    let expand = ItemQuery { expand: vec![Expansion::Recipes, Expansion::Shops], ..Default::default() };
    let ale = client.item("pale-ale", &expand).await.unwrap().data;
    assert!(ale.recipes.is_some() && ale.shops.is_some() && ale.groups.is_none());
    let price = PriceQuery { aging: Some(Aging::GrandReserve), ..Default::default() };
    let spirit = client.item_price("cask-aged-barley-spirit", &price).await.unwrap().data;
    assert_eq!(spirit.breakdown.unit_value.copper, 10_477);
    assert!(!client.item_used_in_pages("barley", &PageQuery::default()).all().await.unwrap().is_empty());
    assert!(!client.item_sources("barley", &VersionLang::default()).await.unwrap().data.crops.is_empty());
    let ranked = RankingsQuery { food_type: Some(FoodType::Drink), limit: Some(3), ..Default::default() };
    assert_eq!(client.rankings(&ranked).await.unwrap().data.len(), 3);
    assert!(!client.rankings_pages(&ranked).all().await.unwrap().is_empty());

    let recipes = RecipesQuery { output_kind: Some(ItemKind::Drink), limit: Some(100), ..Default::default() };
    let all_recipes = client.recipes_pages(&recipes).all().await.unwrap();
    assert_eq!(all_recipes.len() as u64, client.recipes(&recipes).await.unwrap().pagination.unwrap().total);
    assert_eq!(client.recipe("pale-ale", &de).await.unwrap().data.slug, "pale-ale");
    assert!(matches!(
        client.recipe_tree("pale-ale", &TreeQuery::default()).await.unwrap().data,
        TreeNode::Item(_)
    ));
    assert_eq!(client.ingredient_group("any-hops", &de).await.unwrap().data.slug, "any-hops");
    assert!(!client.crafters(&de).await.unwrap().data.is_empty());
    let spring = CropsQuery { season: Some(Season::Spring), limit: Some(100), ..Default::default() };
    let crops = client.crops_pages(&spring).all().await.unwrap();
    assert_all(&crops, "spring crops", |c| c.seasons.contains(&Season::Spring));
    assert_eq!(client.crop("barley", &de).await.unwrap().data.slug, "barley");
    let shops = client.shops(&de).await.unwrap().data;
    assert_eq!(client.shop(&shops[0].slug, &de).await.unwrap().data.summary.slug, shops[0].slug);
    assert!(!client.npcs(&de).await.unwrap().data.is_empty());
    let salt = FishQuery { water: Some(Water::SaltWater), limit: Some(100), ..Default::default() };
    assert_all(&client.fish_pages(&salt).all().await.unwrap(), "salt-water fish", |f| {
        f.water == Water::SaltWater
    });
    assert!(!client.fish(&FishQuery::default()).await.unwrap().data.is_empty());

    for kind in [
        DocumentType::Quest,
        DocumentType::Perk,
        DocumentType::Spell,
        DocumentType::Talent,
        DocumentType::Reputation,
        DocumentType::Mission,
        DocumentType::Letter,
    ] {
        let all = client.documents_pages(&kind, &PageQuery::default()).unwrap().all().await.unwrap();
        assert_all(&all, &format!("{kind} documents"), |d| d.kind == kind);
        let first = &client.documents(&kind, &PageQuery::default()).await.unwrap().data[0];
        let detail = client.document(&kind, &first.key, &de).await.unwrap().data;
        assert_eq!(serde_json::to_value(&detail).unwrap()["key"], first.key.as_str(), "{kind}");
    }
    let unknown = DocumentType::Unknown("riddles".into());
    assert!(matches!(client.documents(&unknown, &PageQuery::default()).await, Err(Error::Config(_))));
    let found = SearchQuery { q: "gerste".into(), lang: Some(Lang::De), ..Default::default() };
    assert!(client.search(&found).await.unwrap().data.iter().any(|hit| hit.slug == "barley"));
    let exports = client.exports().await.unwrap().data;
    assert_eq!(exports.len(), versions.len() * 27);
}

#[tokio::test]
async fn the_examples_run_against_the_server() {
    let client = client();
    let table = wiki_drinks::wiki_table(&client).await.unwrap();
    assert!(table.starts_with("{| class=\"wikitable sortable\""), "{table}");
    assert!(table.contains("[[Fassgereifter Gerstenbrand]] || 1s 75c || 1s 76c"), "{table}");
    assert!(table.trim_end().ends_with("|}"));

    let tree = recipe_tree::recipe_tree(&client, "cask-aged-barley-spirit").await.unwrap();
    assert!(tree.starts_with("2 x Cask-Aged Barley Spirit (each 1g 4s 77c, 1 craft(s))"), "{tree}");
    assert!(tree.lines().any(|line| line.starts_with("    ")), "the tree goes down: {tree}");

    let report = download_export::download(&client, &Lang::De).await.unwrap();
    assert!(report.contains("checks out"), "{report}");
    assert!(report.contains("  items"), "{report}");
}
