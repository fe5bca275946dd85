//! The closed sets of values the API's answers hold and its parameters take: a season, a language, an
//! item kind... Each is an enum whose JSON is the value's spelling and whose schema is one named
//! component of the OpenAPI document. Every enum keeps a value it does not know as `Unknown`, so
//! that a client built against this crate still reads the answers of a newer server that added one.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What every set offers besides its own variants, for code that handles them alike (the server's
/// parameter checks, the OpenAPI document).
pub trait ValueSet: Sized {
    /// The name of its schema in the OpenAPI document.
    const NAME: &'static str;
    /// What its values are, in words.
    const DESCRIPTION: &'static str;
    /// Every value this crate knows, as the API spells them.
    const VALUES: &'static [&'static str];
}

macro_rules! value_sets {
    ($($(#[doc = $doc:literal])+ $name:ident { $($variant:ident = $text:literal),+ $(,)? })+) => {
        $(
            $(#[doc = $doc])+
            #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #[non_exhaustive]
            pub enum $name {
                $(
                    #[doc = concat!("`", $text, "`")]
                    $variant,
                )+
                /// A value this crate does not know yet, as the server spelled it.
                Unknown(String),
            }

            impl ValueSet for $name {
                const NAME: &'static str = stringify!($name);
                const DESCRIPTION: &'static str = concat!($($doc),+);
                const VALUES: &'static [&'static str] = &[$($text),+];
            }

            impl $name {
                /// The value as the API spells it.
                pub fn as_str(&self) -> &str {
                    match self {
                        $(Self::$variant => $text,)+
                        Self::Unknown(value) => value,
                    }
                }

                /// The value spelled `value`; one this crate does not know is kept as `Unknown`.
                pub fn parse(value: &str) -> Self {
                    match value {
                        $($text => Self::$variant,)+
                        other => Self::Unknown(other.to_owned()),
                    }
                }
            }

            impl fmt::Display for $name {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str(self.as_str())
                }
            }

            impl Serialize for $name {
                fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    serializer.serialize_str(self.as_str())
                }
            }

            impl<'de> Deserialize<'de> for $name {
                fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let value = Cow::<'de, str>::deserialize(deserializer)?;
                    Ok(Self::parse(&value))
                }
            }

            impl JsonSchema for $name {
                fn schema_name() -> Cow<'static, str> {
                    Cow::Borrowed(Self::NAME)
                }

                fn json_schema(_: &mut SchemaGenerator) -> Schema {
                    json_schema!({
                        "type": "string",
                        "enum": Self::VALUES,
                        "description": Self::DESCRIPTION.trim(),
                    })
                }
            }
        )+
    };
}

value_sets! {
    /// A language code, as the game names its languages.
    Lang {
        En = "en", De = "de", Fr = "fr", Es = "es", It = "it", PtBr = "pt-BR", Ru = "ru", Pl = "pl",
        Tr = "tr", Uk = "uk", Nl = "nl", Sv = "sv", Da = "da", Fi = "fi", Nb = "nb", Cs = "cs",
        Hu = "hu", Ro = "ro", Bg = "bg", El = "el", Ja = "ja", Ko = "ko", ZhCn = "zh-CN",
        ZhTw = "zh-TW", Th = "th", Vi = "vi", Ca = "ca",
    }
    /// A season of the game's calendar.
    Season { Spring = "spring", Summer = "summer", Autumn = "autumn", Winter = "winter" }
    /// Where a fish lives.
    Water { FreshWater = "FreshWater", SaltWater = "SaltWater", MineWater = "MineWater" }
    /// What a fish bites on.
    Bait { Meat = "Meat", Larva = "Larva", Worm = "Worm", Seafood = "Seafood", Artificial = "Artificial" }
    /// How an item is gathered in the world.
    GatherMethod { Foraging = "foraging", Mining = "mining", Animal = "animal" }
    /// What an item is, the coarsest way to browse the catalogue.
    ItemKind {
        Ingredient = "ingredient", Material = "material", Food = "food", Drink = "drink", Seed = "seed",
        Fish = "fish", Tool = "tool", Furniture = "furniture",
    }
    /// How a tavern serves a product.
    FoodType { Food = "food", Drink = "drink", Dessert = "dessert", Snack = "snack" }
    /// How a recipe is unlocked: `default` (known from the start) or by the kind of progression record
    /// that unlocks it.
    UnlockKind {
        Default = "default", Reputation = "reputation", Perk = "perk", Quest = "quest", Talent = "talent",
        Mission = "mission",
    }
    /// A type of game record, plural as in the data files.
    ChangeType {
        Items = "items", Recipes = "recipes", IngredientGroups = "ingredient_groups",
        CraftingStations = "crafting_stations", Crops = "crops", Shops = "shops",
        Shopkeepers = "shopkeepers", Fish = "fish", Quests = "quests", Perks = "perks",
        Spells = "spells", Talents = "talents", Reputation = "reputation", Missions = "missions",
        Letters = "letters",
    }
    /// What happened to a record between two game versions.
    ChangeKind { Added = "added", Removed = "removed", Modified = "modified" }
    /// Which member fills each ingredient group, all the way down the recipe chain.
    IngredientChoice { Cheapest = "cheapest", Expensive = "expensive" }
    /// How long a product was aged in the cellar.
    Aging { None = "none", Young = "young", Aged = "aged", Reserve = "reserve", GrandReserve = "grand_reserve" }
    /// How well a product was made.
    Quality { Common = "common", Fine = "fine", Superior = "superior" }
    /// The kind of record a search hit is.
    HitType { Item = "item", Recipe = "recipe" }
    /// The kind of a progression record, singular.
    DocumentType {
        Quest = "quest", Perk = "perk", Spell = "spell", Talent = "talent", Reputation = "reputation",
        Mission = "mission", Letter = "letter",
    }
    /// A rate limit of a key, as `RateLimit-Policy` names it: `burst` (requests in a row, refilled at
    /// the minute's rate), `minute` or `day` (UTC); a browser key's burst and minute apply to each
    /// calling address on its own, as `burst-per-address` and `minute-per-address`.
    LimitPolicy {
        Burst = "burst", Minute = "minute", Day = "day", BurstPerAddress = "burst-per-address",
        MinutePerAddress = "minute-per-address",
    }
    /// How the service stands: `ok` once the game data is loaded; `degraded` while a store shared with
    /// other replicas is out of reach and the service works around it (it still answers, `200`).
    HealthStatus { Ok = "ok", Degraded = "degraded" }
    /// The format a picture is served in: PNG, or lossless WebP.
    PictureFormat { Png = "png", Webp = "webp" }
    /// The side, in pixels, of the square a picture is served in.
    PictureSize { Px32 = "32", Px64 = "64", Px128 = "128" }
    /// What a webhook event tells: `version.published` (a game version was published),
    /// `key.expiring` (one of the account's keys stops working in 7 days) or `webhook.test` (sent
    /// from the dashboard, to try an endpoint).
    WebhookEventType { VersionPublished = "version.published", KeyExpiring = "key.expiring", Test = "webhook.test" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_and_write_as_spelled_and_unknown_ones_are_kept() {
        let season: Season = serde_json::from_str("\"autumn\"").unwrap();
        assert_eq!(season, Season::Autumn);
        assert_eq!(serde_json::to_string(&Lang::PtBr).unwrap(), "\"pt-BR\"");
        let newer: Season = serde_json::from_str("\"monsoon\"").unwrap();
        assert_eq!(newer, Season::Unknown("monsoon".to_owned()));
        assert_eq!(serde_json::to_string(&newer).unwrap(), "\"monsoon\"");
        // A record of a kind this crate does not know still reads.
        let newer: crate::DocumentDetail =
            serde_json::from_str(r#"{"type": "riddle", "key": "R1", "name": "?"}"#).unwrap();
        assert_eq!(newer, crate::DocumentDetail::Unknown);
        for value in Aging::VALUES {
            assert_eq!(Aging::parse(value).as_str(), *value);
            assert!(!matches!(Aging::parse(value), Aging::Unknown(_)), "{value}");
        }
    }
}
