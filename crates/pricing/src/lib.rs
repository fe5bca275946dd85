//! Money in the game's coinage and the rules that price products: whole copper and its display in
//! gold, silver and copper; the value of a product from what goes into it, through the whole recipe
//! chain; and the effect of aging and quality. Pure integer arithmetic: no floating point ever touches
//! a price, and nothing here reads a file, a clock or a database.
//!
//! `docs/pricing.md` states the rules in words; the tests here check them with hand-computed cases.

mod book;
mod copper;
mod error;
mod modifiers;

pub use book::{Breakdown, INGREDIENT_SHARE_PERCENT, IngredientCost, PriceBook, UnitValues};
pub use copper::Copper;
pub use error::{Error, Result};
pub use modifiers::{Aging, IngredientChoice, Quality};
