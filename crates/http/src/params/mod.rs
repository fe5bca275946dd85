//! Query parameters, declared once per endpoint with their rule and parsed strictly: a parameter the
//! endpoint does not take, a repeated one, or a value outside its rule is a `422` naming it, so that
//! a typo never passes silently. Each endpoint declares its parameters as a struct
//! ([`query_params!`]) whose fields its handler is given, already checked and typed; the same
//! declaration checks requests and writes the OpenAPI document, so what is documented is what is
//! enforced and what a handler reads.

use std::borrow::Cow;
use std::collections::BTreeSet;

use tapster_domain::{Ident, RecordId, RecordKey, VersionSelector};
use tapster_i18n::Language;

use crate::error::{ApiError, invalid_param};
use crate::value_sets::ValueSet;

mod sets;

pub(crate) use sets::{PictureSide, SearchType};

/// One query parameter an endpoint takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Param {
    pub(crate) name: &'static str,
    pub(crate) rule: Rule,
    pub(crate) description: &'static str,
}

/// What a parameter's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `latest` or a game version name (docs/api.md, "Game versions").
    Version,
    /// One of the game's language codes.
    Lang,
    /// A page size from 1 to `max`.
    Limit { default: u32, max: u32 },
    /// A page start from 0 to 10000.
    Offset,
    /// `true` or `false`.
    Bool,
    /// One of a closed set of spellings, matched exactly.
    Enum(&'static ValueSet),
    /// An integer within bounds.
    Int { min: i64, max: i64 },
    /// A value the game data defines (`^[a-z][a-z0-9_]*$`), checked against the version's data by the handler.
    Ident { max: usize },
    /// A record named by id or slug (docs/api.md, "Parameters": path keys).
    Key,
    /// Comma-separated integer ids, at most 2000 characters.
    Ids,
    /// Comma-separated top-level field names of the record, at most 300 characters.
    Fields(&'static [&'static str]),
    /// Comma-separated sort keys, each optionally prefixed with `-`, at most 60 characters.
    Sort(&'static [&'static str]),
    /// Comma-separated relation names, at most 60 characters.
    Expand(&'static [&'static str]),
    /// Text to search names for: `min` to `max` characters, of which some are not whitespace or
    /// punctuation (which only separate words, and alone search for nothing); a `required` one must
    /// be given.
    SearchText { min: usize, max: usize, required: bool },
}

impl Rule {
    /// Whether a request must give the parameter.
    pub(crate) fn required(self) -> bool {
        matches!(self, Rule::SearchText { required: true, .. })
    }
}

pub(crate) const MAX_OFFSET: u32 = 10_000;
const MAX_IDS_LEN: usize = 2_000;
const MAX_FIELDS_LEN: usize = 300;
const MAX_SORT_LEN: usize = 60;
const MAX_EXPAND_LEN: usize = 60;

pub(crate) const VERSION: Param = Param {
    name: "version",
    rule: Rule::Version,
    description: "Game version: `latest` (the default) or a published version.",
};
pub(crate) const LANG: Param = Param {
    name: "lang",
    rule: Rule::Lang,
    description: "Language of the texts, in any letter case (`pt-br` is `pt-BR`); missing translations fall back \
                  to English.",
};
pub(crate) const OFFSET: Param =
    Param { name: "offset", rule: Rule::Offset, description: "Records to skip, 0 to 10000." };

/// `limit` of list endpoints: 1 to 100, 50 by default.
pub(crate) const LIMIT: Param = Param {
    name: "limit",
    rule: Rule::Limit { default: 50, max: 100 },
    description: "Records per page, 1 to 100.",
};

/// A sort key: its name and whether it is descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SortKey {
    pub(crate) name: &'static str,
    pub(crate) descending: bool,
}

/// A checked value.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    Version(VersionSelector),
    Lang(Language),
    Number(i64),
    Bool(bool),
    Text(String),
    Ident(Ident),
    Key(RecordKey),
    Ids(Vec<RecordId>),
    Names(Vec<&'static str>),
    Sort(Vec<SortKey>),
}

/// The checked query of one request, which the endpoint's [`QueryParams`] are read from.
#[derive(Debug)]
pub(crate) struct Query {
    values: Vec<(&'static str, Value)>,
    /// Each given parameter's value as decoded from the request, in the order the endpoint declares
    /// its parameters: the canonical form of the query (see [`Query::canonical`]).
    given: Vec<(&'static str, String)>,
}

impl Query {
    /// Decodes `raw` and checks it against `params`, reporting every problem at once.
    pub(crate) fn parse(raw: Option<&str>, params: &'static [Param]) -> Result<Self, ApiError> {
        let pairs: Vec<(Cow<'_, str>, Cow<'_, str>)> =
            form_urlencoded::parse(raw.unwrap_or_default().as_bytes()).collect();
        let mut errors = Vec::new();
        let mut values = Vec::new();
        let mut given = Vec::new();
        for (i, (name, value)) in pairs.iter().enumerate() {
            let Some(param) = params.iter().find(|p| p.name == name) else {
                let takes = if params.is_empty() {
                    "this endpoint takes no parameters".to_owned()
                } else {
                    format!(
                        "this endpoint takes {}",
                        params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                    )
                };
                errors.push(invalid_param(
                    name.as_ref(),
                    format!("is not a parameter of this endpoint; {takes}"),
                ));
                continue;
            };
            if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
                if !errors.iter().any(|e| e.parameter == param.name) {
                    errors.push(invalid_param(param.name, "is given more than once; give it once"));
                }
                continue;
            }
            match check(param.rule, value) {
                Ok(checked) => {
                    values.push((param.name, checked));
                    given.push((param.name, value.to_string()));
                }
                Err(detail) => errors.push(invalid_param(param.name, format!("{detail} (given {value:?})"))),
            }
        }
        for param in params.iter().filter(|p| p.rule.required()) {
            if !pairs.iter().any(|(name, _)| name == param.name) {
                errors.push(invalid_param(param.name, "is required"));
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        given.sort_by_key(|(name, _)| params.iter().position(|p| p.name == *name));
        Ok(Self { values, given })
    }

    /// The given parameters with their decoded values, in the endpoint's declared order: requests that
    /// differ only in the order or the encoding of their parameters have the same canonical query,
    /// and so the same pagination links and one entry in the response cache.
    pub(crate) fn canonical(&self) -> impl Iterator<Item = (&'static str, &str)> + Clone {
        self.given.iter().map(|(name, value)| (*name, value.as_str()))
    }

    /// The value of `name` as the request gave it (decoded), if it did.
    #[cfg(test)]
    pub(crate) fn given(&self, name: &str) -> Option<&str> {
        self.given.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// The checked value of `param` as the type `T` reads it; what [`query_params!`] fills each field
    /// with. A rule that `T` does not read is a mistake in the declaration, a `500` that the tests of
    /// every endpoint find.
    pub(crate) fn read<T: FromParam>(&self, param: &Param) -> Result<T, ApiError> {
        let value = self.values.iter().find(|(n, _)| *n == param.name).map(|(_, v)| v);
        let read = match value {
            _ if !T::reads(param.rule) => None,
            Some(value) => T::given(value, param),
            None => T::absent(param),
        };
        read.ok_or_else(|| {
            ApiError::Internal(
                format!("the parameter `{}` is declared with a rule its field does not read", param.name)
                    .into(),
            )
        })
    }
}

/// The query parameters of one endpoint as a struct of checked values: what its handler is given.
/// Declared with [`query_params!`], so that the struct and the list of parameters are one declaration.
pub(crate) trait QueryParams: Sized {
    /// The parameters, in order: what requests are checked against and what the document lists.
    const PARAMS: &'static [Param];

    /// The fields' values from a query checked against [`Self::PARAMS`].
    fn read(query: &Query) -> Result<Self, ApiError>;
}

/// Declares an endpoint's query parameters once, each a field with its type and its [`Param`]: the
/// struct that the handler reads and the [`QueryParams::PARAMS`] that check requests and write the
/// OpenAPI document. A field's type says how its value is read ([`FromParam`]), including what it is
/// when the request leaves the parameter out.
macro_rules! query_params {
    ($(#[$attr:meta])* $vis:vis struct $name:ident { $($field:ident: $ty:ty = $param:expr),+ $(,)? }) => {
        $(#[$attr])*
        #[derive(Debug)]
        $vis struct $name {
            $(pub(crate) $field: $ty,)+
        }

        impl $crate::params::QueryParams for $name {
            const PARAMS: &'static [$crate::params::Param] = &[$($param),+];

            fn read(query: &$crate::params::Query) -> Result<Self, $crate::error::ApiError> {
                Ok(Self { $($field: query.read(&$param)?,)+ })
            }
        }
    };
}
pub(crate) use query_params;

/// What an endpoint without query parameters is given.
#[derive(Debug)]
pub(crate) struct NoParams;

impl QueryParams for NoParams {
    const PARAMS: &'static [Param] = &[];

    fn read(_: &Query) -> Result<Self, ApiError> {
        Ok(Self)
    }
}

query_params! {
    /// The query of the endpoints that take only the version and the language.
    pub(crate) struct VersionLang {
        version: VersionSelector = VERSION,
        lang: Language = LANG,
    }
}

query_params! {
    /// The query of the paged lists that take only the version, the language and the page.
    pub(crate) struct VersionLangPage {
        version: VersionSelector = VERSION,
        lang: Language = LANG,
        limit: u32 = LIMIT,
        offset: u32 = OFFSET,
    }
}

/// A type that a field of [`query_params!`] reads a checked value as.
pub(crate) trait FromParam: Sized {
    /// Whether values of `rule` are read as this type.
    fn reads(rule: Rule) -> bool;

    /// The given value; `None` if it is not of the rule's kind (which [`Query::parse`] rules out).
    fn given(value: &Value, param: &Param) -> Option<Self>;

    /// The value when the parameter is left out; `None` if it must be given.
    fn absent(param: &Param) -> Option<Self>;
}

/// Left out, an optional parameter is `None`.
impl<T: FromParam> FromParam for Option<T> {
    fn reads(rule: Rule) -> bool {
        T::reads(rule)
    }

    fn given(value: &Value, param: &Param) -> Option<Self> {
        T::given(value, param).map(Some)
    }

    fn absent(_: &Param) -> Option<Self> {
        Some(None)
    }
}

/// Left out, `version` is `latest`.
impl FromParam for VersionSelector {
    fn reads(rule: Rule) -> bool {
        rule == Rule::Version
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Version(v) => Some(v.clone()),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        Some(VersionSelector::Latest)
    }
}

/// Left out, `lang` is English.
impl FromParam for Language {
    fn reads(rule: Rule) -> bool {
        rule == Rule::Lang
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Lang(l) => Some(*l),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        Some(Language::SOURCE)
    }
}

/// `limit` (its default when left out) and `offset` (0).
impl FromParam for u32 {
    fn reads(rule: Rule) -> bool {
        matches!(rule, Rule::Limit { .. } | Rule::Offset)
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Number(n) => u32::try_from(*n).ok(),
            _ => None,
        }
    }

    fn absent(param: &Param) -> Option<Self> {
        match param.rule {
            Rule::Limit { default, .. } => Some(default),
            _ => Some(0),
        }
    }
}

/// A small integer that must be given.
impl FromParam for u8 {
    fn reads(rule: Rule) -> bool {
        matches!(rule, Rule::Int { min, max } if u8::try_from(min).is_ok() && u8::try_from(max).is_ok())
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Number(n) => u8::try_from(*n).ok(),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        None
    }
}

/// Left out, a switch is off.
impl FromParam for bool {
    fn reads(rule: Rule) -> bool {
        rule == Rule::Bool
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        Some(false)
    }
}

/// Free text; must be given.
impl FromParam for String {
    fn reads(rule: Rule) -> bool {
        matches!(rule, Rule::SearchText { .. })
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Text(t) => Some(t.clone()),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        None
    }
}

/// A value of a closed set that has no type of its own, as the set spells it; must be given.
impl FromParam for &'static str {
    fn reads(rule: Rule) -> bool {
        matches!(rule, Rule::Enum(_))
    }

    fn given(value: &Value, param: &Param) -> Option<Self> {
        match (value, param.rule) {
            (Value::Text(t), Rule::Enum(set)) => set.values.iter().copied().find(|v| v == t),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        None
    }
}

impl FromParam for RecordKey {
    fn reads(rule: Rule) -> bool {
        rule == Rule::Key
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Key(k) => Some(k.clone()),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        None
    }
}

/// `ids`.
impl FromParam for Vec<RecordId> {
    fn reads(rule: Rule) -> bool {
        rule == Rule::Ids
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Ids(ids) => Some(ids.clone()),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        None
    }
}

/// The names of `fields` or `expand`.
impl FromParam for Vec<&'static str> {
    fn reads(rule: Rule) -> bool {
        matches!(rule, Rule::Fields(_) | Rule::Expand(_))
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Names(names) => Some(names.clone()),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        None
    }
}

/// A value the game data defines (a category, a tag, a recipe group), which the handler checks
/// against the version's data (see [`Named::known_in`]).
impl FromParam for Ident {
    fn reads(rule: Rule) -> bool {
        matches!(rule, Rule::Ident { .. })
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Ident(ident) => Some(ident.clone()),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        None
    }
}

/// The keys of `sort`, in the order given; left out, none (each list has its default order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SortKeys(pub(crate) Vec<SortKey>);

impl SortKeys {
    /// The keys in the store's terms: `key` names the order of each (checked) sort key.
    pub(crate) fn to_store<K>(&self, key: impl Fn(&'static str) -> K) -> Vec<tapster_store::Sort<K>> {
        self.0.iter().map(|s| tapster_store::Sort { key: key(s.name), descending: s.descending }).collect()
    }
}

impl FromParam for SortKeys {
    fn reads(rule: Rule) -> bool {
        matches!(rule, Rule::Sort(_))
    }

    fn given(value: &Value, _: &Param) -> Option<Self> {
        match value {
            Value::Sort(keys) => Some(Self(keys.clone())),
            _ => None,
        }
    }

    fn absent(_: &Param) -> Option<Self> {
        Some(Self::default())
    }
}

/// A value with the name of the parameter that gave it, for the handler's checks against the game
/// data, whose errors must name the parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Named<T> {
    pub(crate) parameter: &'static str,
    pub(crate) value: T,
}

impl<T> Named<T> {
    /// A `422` naming the parameter.
    pub(crate) fn invalid(&self, detail: impl Into<String>) -> ApiError {
        ApiError::invalid(self.parameter, detail)
    }
}

impl Named<Ident> {
    /// The value, which the version must know: an unknown one is a `422` listing the `values` it knows.
    pub(crate) fn known_in(&self, values: &BTreeSet<String>) -> Result<&str, ApiError> {
        let value = self.value.as_str();
        if values.contains(value) {
            return Ok(value);
        }
        Err(self.invalid(format!(
            "has no value {value:?} in this game version; the values are {}",
            values.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
        )))
    }
}

impl<T: FromParam> FromParam for Named<T> {
    fn reads(rule: Rule) -> bool {
        T::reads(rule)
    }

    fn given(value: &Value, param: &Param) -> Option<Self> {
        T::given(value, param).map(|value| Self { parameter: param.name, value })
    }

    fn absent(param: &Param) -> Option<Self> {
        T::absent(param).map(|value| Self { parameter: param.name, value })
    }
}

/// A language code, in the query or the path; an unknown one is told the languages there are.
pub(crate) fn parse_lang(value: &str) -> Result<Language, String> {
    Language::parse(value).map_err(|e| match e {
        tapster_i18n::Error::Unknown { .. } => format!(
            "{e}; the languages are {}",
            Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>().join(", ")
        ),
        _ => e.to_string(),
    })
}

fn check(rule: Rule, value: &str) -> Result<Value, String> {
    let too_long = |max: usize| format!("must be at most {max} characters long");
    match rule {
        Rule::Version => VersionSelector::parse(value).map(Value::Version).map_err(|e| e.to_string()),
        Rule::Lang => parse_lang(value).map(Value::Lang),
        Rule::Limit { max, .. } => integer(value, 1, i64::from(max)).map(Value::Number),
        Rule::Offset => integer(value, 0, i64::from(MAX_OFFSET)).map(Value::Number),
        Rule::Int { min, max } => integer(value, min, max).map(Value::Number),
        Rule::Bool => match value {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err("must be `true` or `false`".into()),
        },
        Rule::Enum(set) => match set.values.iter().find(|a| **a == value) {
            Some(_) => Ok(Value::Text(value.to_owned())),
            None => Err(format!("must be one of {}", spell(set.values))),
        },
        Rule::Ident { max } => {
            if value.len() > max {
                return Err(too_long(max));
            }
            Ident::parse(value).map(Value::Ident).map_err(|e| e.to_string())
        }
        Rule::Key => RecordKey::parse(value).map(Value::Key).map_err(|e| e.to_string()),
        Rule::Ids => {
            if value.len() > MAX_IDS_LEN {
                return Err(too_long(MAX_IDS_LEN));
            }
            value
                .split(',')
                .map(|id| match RecordKey::parse(id.trim()) {
                    Ok(RecordKey::Id(id)) => Ok(id),
                    _ => Err(format!("must be comma-separated integer ids; {id:?} is not one")),
                })
                .collect::<Result<_, _>>()
                .map(Value::Ids)
        }
        Rule::Fields(known) => names(value, known, MAX_FIELDS_LEN, "field").map(Value::Names),
        Rule::Expand(known) => names(value, known, MAX_EXPAND_LEN, "relation").map(Value::Names),
        Rule::Sort(known) => {
            if value.len() > MAX_SORT_LEN {
                return Err(too_long(MAX_SORT_LEN));
            }
            let mut keys: Vec<SortKey> = Vec::new();
            for part in value.split(',') {
                let (name, descending) = match part.strip_prefix('-') {
                    Some(name) => (name, true),
                    None => (part, false),
                };
                let Some(name) = known.iter().find(|k| **k == name) else {
                    return Err(format!("has the unknown sort key {name:?}; the keys are {}", spell(known)));
                };
                if keys.iter().any(|k| k.name == *name) {
                    return Err(format!("names the sort key {name:?} twice"));
                }
                keys.push(SortKey { name, descending });
            }
            Ok(Value::Sort(keys))
        }
        Rule::SearchText { min, max, .. } => {
            let length = value.chars().count();
            if length < min || length > max {
                return Err(format!("must be {min} to {max} characters long"));
            }
            if tapster_search::fold(value).is_empty() {
                return Err(
                    "must hold a letter, a digit or a symbol: whitespace and punctuation only separate \
                    words"
                        .into(),
                );
            }
            Ok(Value::Text(value.to_owned()))
        }
    }
}

fn integer(value: &str, min: i64, max: i64) -> Result<i64, String> {
    let canonical =
        !value.is_empty() && value.strip_prefix('-').unwrap_or(value).bytes().all(|b| b.is_ascii_digit());
    match value.parse::<i64>() {
        Ok(n) if canonical && (min..=max).contains(&n) => Ok(n),
        _ => Err(format!("must be an integer from {min} to {max}")),
    }
}

/// Parses a comma-separated list of known names, each at most once.
fn names(
    value: &str,
    known: &'static [&'static str],
    max: usize,
    what: &str,
) -> Result<Vec<&'static str>, String> {
    if value.len() > max {
        return Err(format!("must be at most {max} characters long"));
    }
    let mut names: Vec<&'static str> = Vec::new();
    for part in value.split(',') {
        let Some(name) = known.iter().find(|k| **k == part) else {
            return Err(format!("has the unknown {what} {part:?}; the {what}s are {}", spell(known)));
        };
        if !names.contains(name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// `a`, `b`, `c`: a list of allowed spellings for an error message.
pub(crate) fn spell(allowed: &[&str]) -> String {
    allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    query_params! {
        struct Sample {
            version: VersionSelector = VERSION,
            lang: Language = LANG,
            limit: u32 = LIMIT,
            offset: u32 = OFFSET,
            kind: Option<tapster_domain::FoodType> =
                Param { name: "kind", rule: Rule::Enum(&crate::value_sets::FoodType::SET), description: "" },
            can_be_sold: Option<bool> = Param { name: "can_be_sold", rule: Rule::Bool, description: "" },
            ids: Option<Vec<RecordId>> = Param { name: "ids", rule: Rule::Ids, description: "" },
            fields: Option<Vec<&'static str>> =
                Param { name: "fields", rule: Rule::Fields(&["id", "name"]), description: "" },
            sort: SortKeys = Param { name: "sort", rule: Rule::Sort(&["id", "name", "price"]), description: "" },
            rarity: Option<u8> = Param { name: "rarity", rule: Rule::Int { min: 0, max: 10 }, description: "" },
        }
    }

    const PARAMS: &[Param] = Sample::PARAMS;

    fn sample(raw: Option<&str>) -> Sample {
        Sample::read(&Query::parse(raw, PARAMS).unwrap()).unwrap()
    }

    #[test]
    fn required_text_must_be_given_within_its_length() {
        const SEARCH: &[Param] = &[Param {
            name: "q",
            rule: Rule::SearchText { min: 2, max: 64, required: true },
            description: "",
        }];
        let refused = |raw: &str| match Query::parse(Some(raw), SEARCH) {
            Err(ApiError::Validation(errors)) => errors.into_iter().map(|e| e.detail).collect::<Vec<_>>(),
            other => panic!("{raw}: {other:?}"),
        };
        assert_eq!(refused(""), ["is required"]);
        assert!(refused("q=a")[0].contains("2 to 64"));
        assert!(refused(&format!("q={}", "é".repeat(65)))[0].contains("2 to 64"));
        for nothing in ["q=%20%20", "q=--", "q=%E3%80%80%E3%80%82", "q=%20.%20'"] {
            assert!(refused(nothing)[0].contains("whitespace and punctuation"), "{nothing}");
        }
        assert!(Query::parse(Some("q=%E2%98%85%20"), SEARCH).is_ok(), "a symbol is searched");
        let q = Query::parse(Some(&format!("q={}", "é".repeat(64))), SEARCH).unwrap();
        assert_eq!(q.read::<String>(&SEARCH[0]).unwrap().chars().count(), 64);
    }

    fn errors(raw: &str) -> Vec<(String, String)> {
        match Query::parse(Some(raw), PARAMS) {
            Ok(_) => Vec::new(),
            Err(ApiError::Validation(errors)) => {
                errors.into_iter().map(|e| (e.parameter, e.detail)).collect()
            }
            Err(other) => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn good_queries_give_typed_values() {
        let q = sample(Some(
            "lang=pt%2DBR&limit=100&offset=10000&kind=drink&can_be_sold=false&ids=3,-1,%2012&sort=-price,name&fields=name&rarity=0",
        ));
        assert_eq!(q.lang, Language::BrazilianPortuguese);
        assert_eq!((q.limit, q.offset), (100, 10_000));
        assert_eq!(q.kind, Some(tapster_domain::FoodType::Drink));
        assert_eq!(q.can_be_sold, Some(false));
        assert_eq!(q.ids.as_deref(), Some(&[3, -1, 12][..]));
        assert_eq!(
            q.sort.0,
            [SortKey { name: "price", descending: true }, SortKey { name: "name", descending: false }]
        );
        assert_eq!(q.fields.as_deref(), Some(&["name"][..]));
        assert_eq!(q.rarity, Some(0));
        let defaults = sample(None);
        assert_eq!((defaults.limit, defaults.offset, defaults.lang), (50, 0, Language::English));
        assert_eq!(defaults.version, VersionSelector::Latest);
    }

    /// A field whose type does not read its declared rule is a `500` naming the parameter, whether
    /// or not the request gives it.
    #[test]
    fn a_field_that_does_not_read_its_rule_is_an_internal_error() {
        query_params! {
            #[expect(dead_code, reason = "never built: reading it fails")]
            struct Mismatched {
                season: Option<tapster_domain::Season> =
                    Param { name: "kind", rule: Rule::Enum(&crate::value_sets::FoodType::SET), description: "" },
            }
        }
        for raw in [None, Some("kind=drink")] {
            match Mismatched::read(&Query::parse(raw, Mismatched::PARAMS).unwrap()) {
                Err(ApiError::Internal(e)) => assert!(e.to_string().contains("`kind`"), "{e}"),
                other => panic!("{raw:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn each_rule_refuses_both_sides_of_its_bounds() {
        let cases = [
            ("limit=0", "limit"),
            ("limit=101", "limit"),
            ("limit=1.5", "limit"),
            ("limit=+5", "limit"),
            ("offset=-1", "offset"),
            ("offset=10001", "offset"),
            ("kind=Drink", "kind"),
            ("can_be_sold=yes", "can_be_sold"),
            ("can_be_sold=True", "can_be_sold"),
            ("ids=1,a", "ids"),
            ("ids=", "ids"),
            ("sort=colour", "sort"),
            ("sort=name,-name", "sort"),
            ("fields=colour", "fields"),
            ("rarity=11", "rarity"),
            ("rarity=-1", "rarity"),
            ("version=v1", "version"),
            ("lang=xx", "lang"),
        ];
        for (raw, parameter) in cases {
            let got = errors(raw);
            assert_eq!(got.len(), 1, "{raw}: {got:?}");
            assert_eq!(got[0].0, parameter, "{raw}");
        }
        let long_ids = format!("ids={}", "1,".repeat(1_000) + "1");
        assert!(errors(&long_ids)[0].1.contains("at most 2000"), "{:?}", errors(&long_ids));
    }

    #[test]
    fn unknown_and_repeated_parameters_are_refused_by_name() {
        let got = errors("lang=de&lnag=fr&lang=es&lang=it");
        assert_eq!(got.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["lnag", "lang"]);
        assert!(got[0].1.contains("takes version, lang, limit"), "{got:?}");
        assert!(got[1].1.contains("more than once"), "{got:?}");
        match Query::parse(Some("x=1"), &[]) {
            Err(ApiError::Validation(errors)) => assert!(errors[0].detail.contains("takes no parameters")),
            other => panic!("{other:?}"),
        }
    }
}
