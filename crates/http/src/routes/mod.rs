//! The routes: one table of endpoints (path template, key rule, handler, whose parameter struct
//! declares the query it takes), each area's part in its own module with the small handlers that
//! read their checked parameters, ask the catalog, and render. `router` matches a request to its
//! endpoint, `ctx` is what a handler is given. The OpenAPI document is written from the same table
//! (all of it but the operators' routes, `/metrics`), so every route is documented as it behaves.

mod assets;
mod changes;
mod ctx;
mod docs;
mod exports;
mod items;
mod meta;
mod prices;
mod progression;
mod recipes;
mod relations;
mod router;
mod search;
mod world;

use schemars::{Schema, SchemaGenerator};

use crate::error::ApiError;
use crate::params::{Param, QueryParams};
use crate::response::Reply;
pub(crate) use assets::PICTURE;
pub(crate) use ctx::{Ctx, Documents, resolve};
pub(crate) use exports::{DOWNLOAD, ICONS, IconsArchive, icons_archive};
pub(crate) use router::{Matched, bind, find, no_endpoint, percent_decode, route};

/// One endpoint: its path template (`{name}` marks a path parameter), what it takes, who answers,
/// and the shape of its `data` (of the whole body for the public routes outside `/v1`).
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub(crate) path: &'static str,
    pub(crate) summary: &'static str,
    /// What the path's `{key}` names, on the routes that have one: the router checks the segment by
    /// this rule before the handler runs, and the document describes it by the same rule.
    pub(crate) key: Option<KeyRule>,
    /// A request target of the bundled data: its answer is the document's example of this
    /// endpoint's answer (but for a file), and its path segments the examples of the path's
    /// parameters, so that a console or a fuzzer starts from a real record. `None` for
    /// `/openapi.json`, which would hold itself, and for a picture, which its hash names.
    pub(crate) example: Option<&'static str>,
    /// The handler, whose parameters' type declares what the endpoint's query takes.
    pub(crate) handler: &'static dyn Handler,
    pub(crate) data: fn(&mut SchemaGenerator) -> Schema,
}

impl Endpoint {
    /// The query parameters the endpoint takes, declared by its handler's parameters' type.
    pub(crate) fn params(&self) -> &'static [Param] {
        self.handler.params()
    }

    /// Whether its `200` is a file (an export, a version's pictures, a picture) rather than JSON or
    /// a page, read only when served.
    pub(crate) fn answers_file(&self) -> bool {
        [DOWNLOAD, ICONS, PICTURE].contains(&self.path)
    }

    /// The rule of the path parameter `name`: `{version}` is a version, `{lang}` a language,
    /// `{sha256}` and `{name}` a picture's hash and file name, `{key}` what [`Self::key`] says.
    pub(crate) fn path_rule(&self, name: &str) -> PathRule {
        match (name, self.key) {
            ("version", _) => PathRule::Version,
            ("lang", _) => PathRule::Lang,
            ("sha256", _) => PathRule::PictureHash,
            ("name", _) => PathRule::FileName,
            (_, Some(KeyRule::Progression)) => PathRule::ProgressionKey,
            _ => PathRule::RecordKey,
        }
    }
}

/// A handler of the table, whatever the type of its parameters.
pub(crate) trait Handler: Sync + std::fmt::Debug {
    /// The query parameters it takes.
    fn params(&self) -> &'static [Param];

    /// Reads its parameters from the request's checked query and answers.
    fn answer(&self, ctx: &Ctx<'_>) -> Result<Reply, ApiError>;

    /// Reads its parameters from a checked query without answering: a declaration whose field type
    /// does not read its rule fails here.
    #[cfg(test)]
    fn read(&self, query: &crate::params::Query) -> Result<(), ApiError>;
}

/// A handler function and, through its second argument, the parameters it takes: the table's
/// entries write `handler: &Handle(list)`, and `list`'s signature decides what the query may hold.
#[derive(Debug)]
pub(crate) struct Handle<P>(pub(crate) fn(&Ctx<'_>, P) -> Result<Reply, ApiError>);

impl<P: QueryParams + std::fmt::Debug> Handler for Handle<P> {
    fn params(&self) -> &'static [Param] {
        P::PARAMS
    }

    fn answer(&self, ctx: &Ctx<'_>) -> Result<Reply, ApiError> {
        (self.0)(ctx, P::read(&ctx.query)?)
    }

    #[cfg(test)]
    fn read(&self, query: &crate::params::Query) -> Result<(), ApiError> {
        P::read(query).map(drop)
    }
}

/// What a `{key}` segment names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyRule {
    /// A record by its integer id or its slug (docs/api.md, "Parameters": path keys).
    Record,
    /// A progression record by the key the game gives it.
    Progression,
}

/// What a path parameter must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathRule {
    Version,
    Lang,
    RecordKey,
    ProgressionKey,
    /// A picture's SHA-256, 64 lowercase hex digits.
    PictureHash,
    /// The file name a picture's URL ends in: any text, compared with the names the picture has.
    FileName,
}

/// Every endpoint: the documented ones, then `/metrics`, which is for operators and their scrapers
/// and in Prometheus' format rather than JSON, so the OpenAPI document leaves it out (docs/api.md).
/// Routes under `/v1` pass the gate first (see `App`).
pub(crate) fn endpoints() -> impl Iterator<Item = &'static Endpoint> {
    documented().chain(OPERATORS)
}

/// The endpoints for operators: beside the API, or alone on an address of their own.
pub(crate) const OPERATORS: &[Endpoint] = meta::OPERATORS;

/// Every endpoint the OpenAPI document describes, each area's table in turn.
pub(crate) fn documented() -> impl Iterator<Item = &'static Endpoint> {
    [
        meta::ENDPOINTS,
        items::ENDPOINTS,
        docs::ENDPOINTS,
        assets::ENDPOINTS,
        exports::ENDPOINTS,
        changes::ENDPOINTS,
        relations::ENDPOINTS,
        prices::ENDPOINTS,
        recipes::ENDPOINTS,
        world::ENDPOINTS,
        progression::ENDPOINTS,
        search::ENDPOINTS,
    ]
    .into_iter()
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::{Query, Rule};

    /// A value the rule accepts, for each value of a closed set in turn (`round`).
    fn valid(rule: Rule, round: usize) -> Option<String> {
        let nth = |values: &[&str]| values.get(round).map(|v| (*v).to_owned());
        let first = |value: &str| (round == 0).then(|| value.to_owned());
        match rule {
            Rule::Enum(set) => nth(set.values),
            Rule::Fields(names) | Rule::Expand(names) | Rule::Sort(names) => nth(names),
            Rule::Version => first("latest"),
            Rule::Lang => first("de"),
            Rule::Limit { .. } | Rule::Key | Rule::Ids => first("1"),
            Rule::Offset => first("0"),
            Rule::Bool => first("true"),
            Rule::Int { min, .. } => first(&min.to_string()),
            Rule::Ident { .. } => first("ale"),
            Rule::SearchText { min, .. } => first(&"a".repeat(min)),
        }
    }

    /// Every parameter of every endpoint, with every value of its set, is read by the field its
    /// declaration gives it, and so is a query that leaves every optional parameter out.
    #[test]
    fn every_endpoint_reads_every_parameter_it_declares() {
        for endpoint in endpoints() {
            for round in 0..32 {
                for param in endpoint.params() {
                    let required: Vec<String> = endpoint
                        .params()
                        .iter()
                        .filter(|p| p.rule.required() && p.name != param.name)
                        .map(|p| format!("{}={}", p.name, valid(p.rule, 0).unwrap()))
                        .collect();
                    let Some(value) = valid(param.rule, round) else { continue };
                    let raw =
                        [format!("{}={value}", param.name)].into_iter().chain(required).collect::<Vec<_>>();
                    let query = Query::parse(Some(&raw.join("&")), endpoint.params()).unwrap();
                    let read = endpoint.handler.read(&query);
                    assert!(read.is_ok(), "{}?{}: {read:?}", endpoint.path, raw.join("&"));
                }
            }
            let required: Vec<String> = endpoint
                .params()
                .iter()
                .filter(|p| p.rule.required())
                .map(|p| format!("{}={}", p.name, valid(p.rule, 0).unwrap()))
                .collect();
            let query = Query::parse(Some(&required.join("&")), endpoint.params()).unwrap();
            assert!(endpoint.handler.read(&query).is_ok(), "{} with defaults", endpoint.path);
        }
    }
}
