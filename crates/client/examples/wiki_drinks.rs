//! Prints a MediaWiki table of every drink of the newest game version, in German, with the price of
//! one serving under each ingredient choice: what a wiki editor pastes into a page.
//!
//! ```sh
//! TAPSTER_URL=http://127.0.0.1:8080 TAPSTER_KEY=tap_... cargo run -p tapster-client --example wiki_drinks
//! ```

#![allow(clippy::print_stdout, reason = "an example reports on the console")]

use std::fmt::Write as _;

use tapster_client::{Client, ItemKind, ItemsQuery, Lang};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("TAPSTER_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".to_owned());
    let key = std::env::var("TAPSTER_KEY").map_err(|_| "set TAPSTER_KEY to an API key")?;
    let client = Client::builder(url, key).user_agent("tapster-client example wiki_drinks").build()?;
    print!("{}", wiki_table(&client).await?);
    Ok(())
}

/// The table, sorted by the price of a serving made of the cheapest ingredients, dearest first.
pub(crate) async fn wiki_table(client: &Client) -> tapster_client::Result<String> {
    let query = ItemsQuery {
        kind: Some(ItemKind::Drink),
        sort: Some("-price,name".to_owned()),
        lang: Some(Lang::De),
        limit: Some(100),
        ..Default::default()
    };
    let drinks = client.items_pages(&query).all().await?;
    let mut table = String::from(
        "{| class=\"wikitable sortable\"\n! Getränk !! Preis pro Portion (günstigste Zutaten) !! Preis pro Portion (teuerste Zutaten)\n",
    );
    for drink in drinks {
        let Some(prices) = drink.price_per_serving else { continue };
        let _ = write!(
            table,
            "|-\n| [[{}]] || {} || {}\n",
            drink.name, prices.cheapest.display, prices.expensive.display
        );
    }
    table.push_str("|}\n");
    Ok(table)
}
