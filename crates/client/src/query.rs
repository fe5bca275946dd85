//! The parameters of each kind of request, as structs whose fields are the documented parameters:
//! every field is optional and left out of the query when `None` (or empty, or `false` for a filter
//! that only narrows), so `..Default::default()` asks for the server's defaults.
//!
//! Each struct is declared once, by the macro `query!`: per field, the [`Parameter`] it is written
//! as, and how. From that one declaration come the struct, its writer, and its `PARAMETERS`, the
//! table of the names it writes and what the server accepts of each ([`Bounds`]). The client's tests hold every
//! table to the parameters of the server's OpenAPI document, name for name and bound for bound; and
//! since the writer takes each name from the very entry the table lists, the table cannot say one
//! thing while the query string says another.
//!
//! ```
//! use tapster_client::{ItemsQuery, Lang, ItemKind};
//! let drinks = ItemsQuery { kind: Some(ItemKind::Drink), lang: Some(Lang::De), ..Default::default() };
//! ```

use std::fmt::Display;

use tapster_wire::{
    Aging, Bait, ChangeKind, ChangeType, FoodType, HitType, IngredientChoice, ItemKind, Lang, PictureFormat,
    PictureSize, Quality, Season, UnlockKind, ValueSet, Water,
};

/// What the server accepts for a parameter, as its OpenAPI document bounds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Bounds {
    /// Text of `min_len` to `max_len` characters (a pattern or the game data may narrow it further:
    /// the server checks those).
    Text { min_len: u32, max_len: u32 },
    /// An integer from `min` to `max`.
    Integer { min: i64, max: i64 },
    /// `true` or `false`.
    Bool,
    /// One value of the set the document names so: a wire set's [`ValueSet::NAME`].
    OneOf(&'static str),
}

impl Bounds {
    /// One value of the wire set `S`.
    const fn one_of<S: ValueSet>() -> Self {
        Self::OneOf(S::NAME)
    }
}

/// One query parameter a query struct writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    /// Its name in the query string.
    pub name: &'static str,
    pub bounds: Bounds,
    /// Whether every request must give it.
    pub required: bool,
}

impl Parameter {
    const fn new(name: &'static str, bounds: Bounds) -> Self {
        Self { name, bounds, required: false }
    }
}

/// The longest version name the server takes (`latest` or a name such as `v0.6.4.2.1`).
const VERSION_LEN: u32 = 32;
/// The longest identifier the game data defines (a category, a tag, a recipe group...).
const IDENT_LEN: u32 = 48;
/// The longest record key (an id or a slug).
const KEY_LEN: u32 = 120;
/// The longest list of sort keys or relations.
const NAMES_LEN: u32 = 60;

const VERSION: Parameter = Parameter::new("version", Bounds::Text { min_len: 0, max_len: VERSION_LEN });
const LANG: Parameter = Parameter::new("lang", Bounds::one_of::<Lang>());
const LIMIT: Parameter = Parameter::new("limit", Bounds::Integer { min: 1, max: 100 });
const OFFSET: Parameter = Parameter::new("offset", Bounds::Integer { min: 0, max: 10_000 });
const SORT: Parameter = Parameter::new("sort", Bounds::Text { min_len: 0, max_len: NAMES_LEN });
const IDS: Parameter = Parameter::new("ids", Bounds::Text { min_len: 0, max_len: 2_000 });
const INGREDIENTS: Parameter = Parameter::new("ingredients", Bounds::one_of::<IngredientChoice>());
const AGING: Parameter = Parameter::new("aging", Bounds::one_of::<Aging>());
const QUALITY: Parameter = Parameter::new("quality", Bounds::one_of::<Quality>());
const SEASON: Parameter = Parameter::new("season", Bounds::one_of::<Season>());

/// A parameter that names something the game data defines (`category`, `tag`, `group`...).
const fn ident(name: &'static str) -> Parameter {
    Parameter::new(name, Bounds::Text { min_len: 0, max_len: IDENT_LEN })
}

/// A parameter that names a record by id or slug (`shop`, `crafter`).
const fn key(name: &'static str) -> Parameter {
    Parameter::new(name, Bounds::Text { min_len: 0, max_len: KEY_LEN })
}

/// A parameter that is `true` or `false`.
const fn boolean(name: &'static str) -> Parameter {
    Parameter::new(name, Bounds::Bool)
}

/// A query string as it is built: name and value pairs, encoded when it is written.
#[derive(Debug, Default)]
pub(crate) struct QueryString(Vec<(&'static str, String)>);

impl QueryString {
    /// The value, when there is one.
    fn opt(&mut self, param: &Parameter, value: &Option<impl Display>) {
        if let Some(value) = value {
            self.0.push((param.name, value.to_string()));
        }
    }

    /// The value, always (a required parameter).
    fn always(&mut self, param: &Parameter, value: &impl Display) {
        self.0.push((param.name, value.to_string()));
    }

    /// `true` when on; nothing (the server's `false`) when off.
    fn flag(&mut self, param: &Parameter, on: &bool) {
        if *on {
            self.0.push((param.name, "true".to_owned()));
        }
    }

    /// The values joined by commas, when there are any.
    fn list(&mut self, param: &Parameter, values: &[impl Display]) {
        if !values.is_empty() {
            let joined: Vec<String> = values.iter().map(ToString::to_string).collect();
            self.0.push((param.name, joined.join(",")));
        }
    }

    /// `?a=1&b=x` (nothing when there are no pairs).
    pub(crate) fn finish(&self) -> String {
        if self.0.is_empty() {
            return String::new();
        }
        let mut serializer = form_urlencoded::Serializer::for_suffix(String::from("?"), 1);
        for (name, value) in &self.0 {
            serializer.append_pair(name, value);
        }
        serializer.finish()
    }
}

/// What every query ends with.
pub(crate) trait Query {
    fn write(&self, query: &mut QueryString);

    fn to_query(&self) -> String {
        let mut query = QueryString::default();
        self.write(&mut query);
        query.finish()
    }
}

/// The query of a method that takes none.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoQuery;

impl NoQuery {
    pub(crate) const PARAMETERS: &'static [Parameter] = &[];
}

impl Query for NoQuery {
    fn write(&self, _: &mut QueryString) {}
}

/// Declares a query struct from one line per field: `field: Type => how PARAMETER`, where `how` is
/// the [`QueryString`] method that writes it (`opt`, `always`, `flag` or `list`). The struct, its
/// [`Query`] writer and its `PARAMETERS` table all come from those lines.
macro_rules! query {
    ($(#[$doc:meta])* $name:ident { $($(#[$field_doc:meta])* $field:ident: $ty:ty => $how:ident $param:expr),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq)]
        pub struct $name {
            $($(#[$field_doc])* pub $field: $ty,)+
        }

        impl $name {
            /// The parameters this query writes, in the order it writes them, with what the server
            /// accepts of each.
            pub const PARAMETERS: &'static [Parameter] = &[$($param),+];
        }

        impl Query for $name {
            fn write(&self, q: &mut QueryString) {
                $(q.$how(&$param, &self.$field);)+
            }
        }
    };
}

query! {
    /// The game version (`latest`, or a name such as `v0.6.4.2.1`) and the language of the texts.
    VersionLang {
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
    }
}

query! {
    /// A page of a list: [`VersionLang`], with `limit` (records per page) and `offset`.
    PageQuery {
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
        limit: Option<u32> => opt LIMIT,
        offset: Option<u32> => opt OFFSET,
    }
}

query! {
    /// `GET /v1/items`: filters, sort keys (`-price,name`), and the page.
    ItemsQuery {
        kind: Option<ItemKind> => opt Parameter::new("kind", Bounds::one_of::<ItemKind>()),
        category: Option<String> => opt ident("category"),
        tag: Option<String> => opt ident("tag"),
        ingredient_type: Option<String> => opt ident("ingredient_type"),
        can_be_sold: Option<bool> => opt boolean("can_be_sold"),
        can_be_aged: Option<bool> => opt boolean("can_be_aged"),
        /// A shop's id or slug: only what it sells.
        shop: Option<String> => opt key("shop"),
        ids: Vec<i64> => list IDS,
        include_unlisted: bool => flag boolean("include_unlisted"),
        /// Sort keys, `-` for descending: `id`, `name`, `price`.
        sort: Option<String> => opt SORT,
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
        limit: Option<u32> => opt LIMIT,
        offset: Option<u32> => opt OFFSET,
    }
}

/// A relation `GET /v1/items/{key}` can add with `expand`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Expansion {
    /// The recipes that make the item.
    Recipes,
    /// The shops that sell it, with their prices.
    Shops,
    /// The ingredient groups it fills.
    Groups,
}

impl Display for Expansion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Recipes => "recipes",
            Self::Shops => "shops",
            Self::Groups => "groups",
        })
    }
}

query! {
    /// `GET /v1/items/{key}`.
    ItemQuery {
        expand: Vec<Expansion> => list Parameter::new("expand", Bounds::Text { min_len: 0, max_len: NAMES_LEN }),
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
    }
}

query! {
    /// `GET /v1/items/{key}/price`: how the product is made, aged and refined.
    PriceQuery {
        ingredients: Option<IngredientChoice> => opt INGREDIENTS,
        aging: Option<Aging> => opt AGING,
        quality: Option<Quality> => opt QUALITY,
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
    }
}

query! {
    /// `GET /v1/rankings/products`.
    RankingsQuery {
        food_type: Option<FoodType> => opt Parameter::new("food_type", Bounds::one_of::<FoodType>()),
        ingredients: Option<IngredientChoice> => opt INGREDIENTS,
        aging: Option<Aging> => opt AGING,
        quality: Option<Quality> => opt QUALITY,
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
        limit: Option<u32> => opt LIMIT,
        offset: Option<u32> => opt OFFSET,
    }
}

query! {
    /// `GET /v1/recipes`.
    RecipesQuery {
        group: Option<String> => opt ident("group"),
        page_name: Option<String> => opt ident("page_name"),
        unlock: Option<UnlockKind> => opt Parameter::new("unlock", Bounds::one_of::<UnlockKind>()),
        output_kind: Option<ItemKind> => opt Parameter::new("output_kind", Bounds::one_of::<ItemKind>()),
        /// A crafting station's id or slug.
        crafter: Option<String> => opt key("crafter"),
        ids: Vec<i64> => list IDS,
        include_replaced: bool => flag boolean("include_replaced"),
        /// Sort keys, `-` for descending: `id`, `name`, `time`.
        sort: Option<String> => opt SORT,
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
        limit: Option<u32> => opt LIMIT,
        offset: Option<u32> => opt OFFSET,
    }
}

query! {
    /// `GET /v1/recipes/{key}/tree`.
    TreeQuery {
        ingredients: Option<IngredientChoice> => opt INGREDIENTS,
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
    }
}

query! {
    /// `GET /v1/crops`.
    CropsQuery {
        season: Option<Season> => opt SEASON,
        reusable: Option<bool> => opt boolean("reusable"),
        /// Sort keys, `-` for descending: `id`, `name`, `days`.
        sort: Option<String> => opt SORT,
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
        limit: Option<u32> => opt LIMIT,
        offset: Option<u32> => opt OFFSET,
    }
}

query! {
    /// `GET /v1/fish`.
    FishQuery {
        season: Option<Season> => opt SEASON,
        water: Option<Water> => opt Parameter::new("water", Bounds::one_of::<Water>()),
        bait: Option<Bait> => opt Parameter::new("bait", Bounds::one_of::<Bait>()),
        /// 0 (everywhere) to 10 (legendary).
        rarity: Option<u8> => opt Parameter::new("rarity", Bounds::Integer { min: 0, max: 10 }),
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
        limit: Option<u32> => opt LIMIT,
        offset: Option<u32> => opt OFFSET,
    }
}

query! {
    /// `GET /v1/versions/{version}/changes`: since `from` (the version before by default; a later one
    /// gives what an upgrade undoes).
    ChangesQuery {
        from: Option<String> => opt Parameter::new("from", Bounds::Text { min_len: 0, max_len: VERSION_LEN }),
        record_type: Option<ChangeType> => opt Parameter::new("type", Bounds::one_of::<ChangeType>()),
        change: Option<ChangeKind> => opt Parameter::new("change", Bounds::one_of::<ChangeKind>()),
        lang: Option<Lang> => opt LANG,
        limit: Option<u32> => opt LIMIT,
        offset: Option<u32> => opt OFFSET,
    }
}

query! {
    /// `GET /v1/search`: `q` is required.
    SearchQuery {
        q: String => always Parameter {
            name: "q",
            bounds: Bounds::Text { min_len: 2, max_len: 64 },
            required: true,
        },
        record_type: Option<HitType> => opt Parameter::new("type", Bounds::one_of::<HitType>()),
        limit: Option<u32> => opt Parameter::new("limit", Bounds::Integer { min: 1, max: 50 }),
        version: Option<String> => opt VERSION,
        lang: Option<Lang> => opt LANG,
    }
}

query! {
    /// `GET /assets/{sha256}/{name}`: the side of the square (128 px unless told) and the format (PNG
    /// unless told).
    PictureQuery {
        size: Option<PictureSize> => opt Parameter::new("size", Bounds::one_of::<PictureSize>()),
        format: Option<PictureFormat> => opt Parameter::new("format", Bounds::one_of::<PictureFormat>()),
    }
}

/// Decodes the `%XX` escapes of a path segment; `None` for a broken escape or bytes that are not
/// UTF-8.
pub(crate) fn decode_segment(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = segment.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A path segment with everything but the unreserved characters percent-encoded: keys may hold
/// spaces and quotes (`Mission 01 - Salt Road`).
pub(crate) fn segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_leave_out_what_is_not_asked_and_encode_the_rest() {
        assert_eq!(ItemsQuery::default().to_query(), "");
        let query = ItemsQuery {
            kind: Some(ItemKind::Drink),
            ids: vec![1, 2],
            include_unlisted: true,
            sort: Some("-price,name".into()),
            lang: Some(Lang::PtBr),
            ..Default::default()
        };
        assert_eq!(
            query.to_query(),
            "?kind=drink&ids=1%2C2&include_unlisted=true&sort=-price%2Cname&lang=pt-BR"
        );
        let search = SearchQuery { q: "pale ale & co".into(), ..Default::default() };
        assert_eq!(search.to_query(), "?q=pale+ale+%26+co");
        assert_eq!(segment("Marta's Letter 01"), "Marta%27s%20Letter%2001");
    }

    /// The names a query writes, in order.
    fn names(query: &impl Query) -> Vec<&'static str> {
        let mut written = QueryString::default();
        query.write(&mut written);
        written.0.iter().map(|(name, _)| *name).collect()
    }

    fn table(parameters: &[Parameter]) -> Vec<&'static str> {
        parameters.iter().map(|p| p.name).collect()
    }

    #[test]
    fn a_query_with_every_field_set_writes_its_table_in_order() {
        let items = ItemsQuery {
            kind: Some(ItemKind::Food),
            category: Some("ale".into()),
            tag: Some("cold".into()),
            ingredient_type: Some("malt".into()),
            can_be_sold: Some(false),
            can_be_aged: Some(true),
            shop: Some("mill".into()),
            ids: vec![3],
            include_unlisted: true,
            sort: Some("id".into()),
            version: Some("latest".into()),
            lang: Some(Lang::De),
            limit: Some(1),
            offset: Some(0),
        };
        assert_eq!(names(&items), table(ItemsQuery::PARAMETERS));
        let search = SearchQuery {
            q: "ale".into(),
            record_type: Some(HitType::Item),
            limit: Some(5),
            version: Some("latest".into()),
            lang: Some(Lang::Ja),
        };
        assert_eq!(names(&search), table(SearchQuery::PARAMETERS));
        assert_eq!(names(&SearchQuery::default()), ["q"], "a required parameter is always written");
        assert!(names(&ItemsQuery::default()).is_empty());
    }
}
