//! Query parameters, declared once per endpoint with their rule and parsed strictly: a parameter the
//! endpoint does not take, a repeated one, or a value outside its rule is a `422` naming it, so that
//! a typo never passes silently. The same declarations write the OpenAPI document, so what is
//! documented is what is enforced. Handlers only ever see checked values.

use std::borrow::Cow;

use tapster_domain::{RecordId, RecordKey, VersionSelector};
use tapster_i18n::Language;

use crate::error::{ApiError, InvalidParam};
use crate::value_sets::ValueSet;

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
    /// `latest` or a game version name (spec 2.4).
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
    /// A record named by id or slug (spec 2.4).
    Key,
    /// Comma-separated integer ids, at most 2000 characters.
    Ids,
    /// Comma-separated top-level field names of the record, at most 300 characters.
    Fields(&'static [&'static str]),
    /// Comma-separated sort keys, each optionally prefixed with `-`, at most 60 characters.
    Sort(&'static [&'static str]),
    /// Comma-separated relation names, at most 60 characters.
    Expand(&'static [&'static str]),
    /// Free text of `min` to `max` characters; a `required` one must be given.
    Text { min: usize, max: usize, required: bool },
}

impl Rule {
    /// Whether a request must give the parameter.
    pub(crate) fn required(self) -> bool {
        matches!(self, Rule::Text { required: true, .. })
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
    description: "Language of the texts; missing translations fall back to English.",
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
enum Value {
    Version(VersionSelector),
    Lang(Language),
    Number(i64),
    Bool(bool),
    Text(String),
    Key(RecordKey),
    Ids(Vec<RecordId>),
    Names(Vec<&'static str>),
    Sort(Vec<SortKey>),
}

/// The checked query of one request.
#[derive(Debug)]
pub(crate) struct Query {
    values: Vec<(&'static str, Value)>,
    /// Each given parameter's value as decoded from the request, in the order the endpoint declares
    /// its parameters: the canonical form of the query (see [`Query::canonical`]).
    given: Vec<(&'static str, String)>,
    params: &'static [Param],
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
                errors.push(InvalidParam::new(
                    name.as_ref(),
                    format!("is not a parameter of this endpoint; {takes}"),
                ));
                continue;
            };
            if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
                if !errors.iter().any(|e| e.parameter == param.name) {
                    errors.push(InvalidParam::new(param.name, "is given more than once; give it once"));
                }
                continue;
            }
            match check(param.rule, value) {
                Ok(checked) => {
                    values.push((param.name, checked));
                    given.push((param.name, value.to_string()));
                }
                Err(detail) => {
                    errors.push(InvalidParam::new(param.name, format!("{detail} (given {value:?})")))
                }
            }
        }
        for param in params.iter().filter(|p| p.rule.required()) {
            if !pairs.iter().any(|(name, _)| name == param.name) {
                errors.push(InvalidParam::new(param.name, "is required"));
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        given.sort_by_key(|(name, _)| params.iter().position(|p| p.name == *name));
        Ok(Self { values, given, params })
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

    fn value(&self, name: &str) -> Option<&Value> {
        self.values.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// `version`, or `latest` when it is left out.
    pub(crate) fn version(&self) -> VersionSelector {
        self.version_of("version").unwrap_or(VersionSelector::Latest)
    }

    /// A version-valued parameter, such as `from` of the version changes.
    pub(crate) fn version_of(&self, name: &str) -> Option<VersionSelector> {
        match self.value(name) {
            Some(Value::Version(v)) => Some(v.clone()),
            _ => None,
        }
    }

    pub(crate) fn lang(&self) -> Language {
        match self.value("lang") {
            Some(Value::Lang(l)) => *l,
            _ => Language::SOURCE,
        }
    }

    /// `limit`, or the endpoint's default.
    pub(crate) fn limit(&self) -> u32 {
        match (self.value("limit"), self.params.iter().find(|p| p.name == "limit").map(|p| p.rule)) {
            (Some(Value::Number(n)), _) => *n as u32,
            (None, Some(Rule::Limit { default, .. })) => default,
            _ => 0,
        }
    }

    pub(crate) fn offset(&self) -> u32 {
        match self.value("offset") {
            Some(Value::Number(n)) => *n as u32,
            _ => 0,
        }
    }

    pub(crate) fn bool(&self, name: &str) -> Option<bool> {
        match self.value(name) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn int(&self, name: &str) -> Option<i64> {
        match self.value(name) {
            Some(Value::Number(n)) => Some(*n),
            _ => None,
        }
    }

    /// The value of a text, identifier or enumerated parameter.
    pub(crate) fn text(&self, name: &str) -> Option<&str> {
        match self.value(name) {
            Some(Value::Text(t)) => Some(t),
            _ => None,
        }
    }

    pub(crate) fn key(&self, name: &str) -> Option<&RecordKey> {
        match self.value(name) {
            Some(Value::Key(k)) => Some(k),
            _ => None,
        }
    }

    pub(crate) fn ids(&self) -> Option<&[RecordId]> {
        match self.value("ids") {
            Some(Value::Ids(ids)) => Some(ids),
            _ => None,
        }
    }

    /// The names of a `fields` or `expand` parameter.
    pub(crate) fn names(&self, name: &str) -> Option<&[&'static str]> {
        match self.value(name) {
            Some(Value::Names(names)) => Some(names),
            _ => None,
        }
    }

    pub(crate) fn sort(&self) -> &[SortKey] {
        match self.value("sort") {
            Some(Value::Sort(keys)) => keys,
            _ => &[],
        }
    }

    /// `sort` in the store's terms: `key` names the order of each (checked) sort key.
    pub(crate) fn sort_with<K>(&self, key: impl Fn(&'static str) -> K) -> Vec<tapster_store::Sort<K>> {
        self.sort()
            .iter()
            .map(|s| tapster_store::Sort { key: key(s.name), descending: s.descending })
            .collect()
    }

    /// The page `limit` and `offset` ask for.
    pub(crate) fn window(&self) -> tapster_store::Window {
        tapster_store::Window { limit: self.limit(), offset: self.offset() }
    }
}

fn check(rule: Rule, value: &str) -> Result<Value, String> {
    let too_long = |max: usize| format!("must be at most {max} characters long");
    match rule {
        Rule::Version => VersionSelector::parse(value).map(Value::Version).map_err(|e| e.to_string()),
        Rule::Lang => Language::parse(value).map(Value::Lang).map_err(|e| match e {
            tapster_i18n::Error::Unknown { .. } => format!(
                "{e}; the languages are {}",
                Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>().join(", ")
            ),
            _ => e.to_string(),
        }),
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
            tapster_domain::Ident::parse(value)
                .map(|_| Value::Text(value.to_owned()))
                .map_err(|e| e.to_string())
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
        Rule::Text { min, max, .. } => {
            let length = value.chars().count();
            if length < min || length > max {
                return Err(format!("must be {min} to {max} characters long"));
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

    const PARAMS: &[Param] = &[
        VERSION,
        LANG,
        LIMIT,
        OFFSET,
        Param { name: "kind", rule: Rule::Enum(&crate::value_sets::FoodType::SET), description: "" },
        Param { name: "can_be_sold", rule: Rule::Bool, description: "" },
        Param { name: "ids", rule: Rule::Ids, description: "" },
        Param { name: "fields", rule: Rule::Fields(&["id", "name"]), description: "" },
        Param { name: "sort", rule: Rule::Sort(&["id", "name", "price"]), description: "" },
        Param { name: "rarity", rule: Rule::Int { min: 0, max: 10 }, description: "" },
    ];

    #[test]
    fn required_text_must_be_given_within_its_length() {
        const SEARCH: &[Param] =
            &[Param { name: "q", rule: Rule::Text { min: 2, max: 64, required: true }, description: "" }];
        let refused = |raw: &str| match Query::parse(Some(raw), SEARCH) {
            Err(ApiError::Validation(errors)) => errors.into_iter().map(|e| e.detail).collect::<Vec<_>>(),
            other => panic!("{raw}: {other:?}"),
        };
        assert_eq!(refused(""), ["is required"]);
        assert!(refused("q=a")[0].contains("2 to 64"));
        assert!(refused(&format!("q={}", "é".repeat(65)))[0].contains("2 to 64"));
        let q = Query::parse(Some(&format!("q={}", "é".repeat(64))), SEARCH).unwrap();
        assert_eq!(q.text("q").map(|t| t.chars().count()), Some(64));
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
        let q = Query::parse(
            Some("lang=pt%2DBR&limit=100&offset=10000&kind=drink&can_be_sold=false&ids=3,-1,%2012&sort=-price,name&fields=name&rarity=0"),
            PARAMS,
        )
        .unwrap();
        assert_eq!(q.lang(), Language::BrazilianPortuguese);
        assert_eq!((q.limit(), q.offset()), (100, 10_000));
        assert_eq!(q.text("kind"), Some("drink"));
        assert_eq!(q.bool("can_be_sold"), Some(false));
        assert_eq!(q.ids(), Some(&[3, -1, 12][..]));
        assert_eq!(
            q.sort(),
            [SortKey { name: "price", descending: true }, SortKey { name: "name", descending: false }]
        );
        assert_eq!(q.names("fields"), Some(&["name"][..]));
        assert_eq!(q.int("rarity"), Some(0));
        let defaults = Query::parse(None, PARAMS).unwrap();
        assert_eq!((defaults.limit(), defaults.offset(), defaults.lang()), (50, 0, Language::English));
        assert_eq!(defaults.version(), VersionSelector::Latest);
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
