//! Prices a product as `/v1/items/{key}/price` does, without the server: a dataset imported and read
//! by `tapster-store`, priced by `tapster-pricing`, every step printed.
//!
//! ```sh
//! cargo run -p tapster-store --example price_a_product -- cask-aged-barley-spirit
//! cargo run -p tapster-store --example price_a_product -- pale-ale --data-dir ./data --lang de
//! ```
//!
//! Without `--data-dir` it imports the bundled `fixtures/` into a temporary directory first.

#![allow(clippy::print_stdout, reason = "an example reports on the console")]

use std::fmt::Write as _;
use std::path::PathBuf;

use tapster_domain::{RecordKey, TextKey};
use tapster_i18n::Language;
use tapster_pricing::{Aging, Copper, IngredientChoice, PriceBook, Quality};
use tapster_store::{Catalog, Store};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut slug = None;
    let mut data_dir: Option<PathBuf> = None;
    let mut lang = Language::English;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--data-dir" => data_dir = args.next().map(PathBuf::from),
            "--lang" => lang = Language::parse(&args.next().unwrap_or_default())?,
            _ => slug = Some(arg),
        }
    }
    let slug = slug.ok_or("usage: price_a_product <item slug or id> [--data-dir DIR] [--lang CODE]")?;
    // The store reads an imported database; the bundled dataset is imported into a scratch dir.
    let scratch = tempfile::TempDir::new()?;
    let data_dir = match data_dir {
        Some(dir) => dir,
        None => {
            tapster_store::import(scratch.path(), &fixtures())?;
            scratch.path().to_owned()
        }
    };
    print!("{}", report(&Store::open(&data_dir)?, &slug, lang)?);
    Ok(())
}

/// The bundled dataset of this checkout.
fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// The price of `slug` in the newest version of `store`, step by step, with names in `lang`.
fn report(store: &Store, slug: &str, lang: Language) -> Result<String, Box<dyn std::error::Error>> {
    let catalog = store.latest();
    let item = catalog
        .item(&RecordKey::parse(slug)?)
        .ok_or_else(|| format!("there is no item {slug} in {}", catalog.info.name))?;
    // The store keeps a price book per version; one made here from the records is the same.
    let book = PriceBook::new(&catalog.data);
    let name = |key: &TextKey| text(catalog, key, lang);
    let mut out = format!("{} ({}), {}\n", name(&item.name_key), item.slug, catalog.info.name);
    for choice in IngredientChoice::ALL {
        let breakdown = book.per_serving(item.id, *choice, Aging::None, Quality::Common)?;
        writeln!(out, "\nwith the {} ingredients:", choice.as_str())?;
        writeln!(out, "  base price               {:>12}", breakdown.base.to_string())?;
        for cost in &breakdown.ingredients {
            let chosen = catalog
                .item_by_id(cost.chosen)
                .map_or_else(|| cost.chosen.to_string(), |i| name(&i.name_key));
            writeln!(out, "  {:>3} x {:<20} {:>12}", cost.amount, chosen, cost.total.to_string())?;
        }
        if breakdown.recipe.is_some() {
            let (share, made) = (breakdown.ingredient_share_percent, breakdown.output_amount);
            writeln!(out, "  {share}% of the ingredients, per {made} made")?;
        }
        let value = breakdown.unit_value;
        writeln!(out, "  value of one             {:>12}  ({} copper)", value.to_string(), value.0)?;
        writeln!(
            out,
            "  one of {} servings        {:>12}",
            breakdown.servings,
            breakdown.per_serving.to_string()
        )?;
    }
    if item.can_be_aged {
        writeln!(out, "\nper serving, cheapest ingredients, by aging and quality:")?;
        for aging in Aging::ALL {
            let prices: Vec<String> = Quality::ALL
                .iter()
                .map(|quality| {
                    let price = book.per_serving(item.id, IngredientChoice::Cheapest, *aging, *quality);
                    format!("{}={}", quality.as_str(), price.map_or(Copper(0), |b| b.per_serving))
                })
                .collect();
            writeln!(out, "  {:<14} {}", aging.as_str(), prices.join("  "))?;
        }
    }
    Ok(out)
}

/// The text of `key` in `lang`, in English where it has none.
fn text(catalog: &Catalog, key: &TextKey, lang: Language) -> String {
    catalog.text(key, lang).map_or_else(|| key.as_str().to_owned(), |t| t.text.to_owned())
}

/// Run by `cargo test` (the example is built as a test too): the bundled spirit is priced as the
/// API prices it (docs/pricing.md's worked example, `crates/http/tests/it/prices.rs`).
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_spirit_is_priced_as_the_api_prices_it() {
        let scratch = tempfile::TempDir::new().unwrap();
        tapster_store::import(scratch.path(), &fixtures()).unwrap();
        let store = Store::open(scratch.path()).unwrap();
        let spirit = report(&store, "cask-aged-barley-spirit", Language::German).unwrap();
        assert!(
            spirit.starts_with("Fassgereifter Gerstenbrand (cask-aged-barley-spirit), v0.7.0.0.1"),
            "{spirit}"
        );
        assert!(spirit.contains("(10477 copper)") && spirit.contains("(10547 copper)"), "{spirit}");
        assert!(spirit.contains("grand_reserve  common=2s 27c  fine=2s 61c  superior=3s 6c"), "{spirit}");
        assert!(report(&store, "no-such-item", Language::English).is_err());
    }
}
