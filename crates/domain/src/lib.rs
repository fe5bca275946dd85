//! The model of Tapster: identifiers, the records of one game version and the rules that make a game
//! version whole (every reference resolves, no recipe feeds itself), and the values that govern
//! access (API keys, e-mail addresses, address blocks, limits, timestamps, attempts per address).
//!
//! Everything here is pure: no IO, no clock, no environment. The serde form of the records ([`GameData`]) *is* the
//! on-disk game-data format described in `docs/data-format.md`; the JSON shapes of the API live in
//! `tapster-wire`, and `tapster-http` builds them from these types, never the reverse.

mod access;
mod address_limit;
mod api_key;
mod error;
mod game;
mod hex;
#[cfg(test)]
mod hostile_input;
mod key;
mod origin;
mod records;
mod validate;
mod version;

pub use access::{AddressBlock, Email, Limits, Timestamp, url_without_password};
pub use address_limit::{AddressLimit, MAX_ADDRESSES};
pub use api_key::ApiKey;
pub use error::{Error, Result};
pub use game::{FORMAT, GameData, Manifest, SOURCE_LANGUAGE, TextTable};
pub use hex::{hex, sha256_from_hex};
pub use key::{AssetPath, Ident, ItemId, MAX_KEY_LEN, ProgressionKey, RecordId, RecordKey, Slug, TextKey};
pub use origin::{Origin, Origins, OriginsError};
pub use records::{
    AgingDays, Bait, CatalogueEntry, ChangeKind, CraftingStation, Crop, Fish, FoodType, GameDay,
    GatherMethod, Gathering, Harvest, Ingredient, IngredientGroup, Input, Item, ItemAmount, ItemKind, Letter,
    LetterTrigger, Mission, Perk, ProgressionRecord, Quest, Rarity, Recipe, RecordType, ReputationMilestone,
    Rewards, Season, Shop, Shopkeeper, Spell, Talent, Unlock, Water,
};
pub use validate::{Problem, validate};
pub use version::{BuildId, GameVersion, ReleaseDate, VersionSelector};
