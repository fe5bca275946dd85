//! The routes: one table of (path, methods, handler) that routes every request, answers `405` with
//! the `Allow` of the path asked, and says which paths are the dashboard's; and one small handler per
//! page or form in the modules below (parse the form, call the accounts store, render or redirect).
//! The table is the one `docs/dashboard.md` describes; a test holds the two to the same paths and methods.
//!
//! A route names its handlers as a [`Handler`], and [`answer`] matches each name to its function in
//! one place. The handlers are async and differ in what they take (a path parameter parsed as a
//! number or a provider, the request to read or to change); a table of boxed futures would need a
//! wrapper of one shape around each and an allocation per request, while a `match` calls each as it
//! is and does not compile until every name has its function.

mod account;
mod keys;
mod providers;
mod signin;
mod try_it;
mod webhooks;

use hyper::{Method, StatusCode};
use tapster_accounts::Provider;
use tapster_domain::Limits;

use crate::ctx::{Ctx, Inner};
use crate::notice::Notice;
use crate::reply::{Failure, Reply};
use crate::views;

const COPY_SCRIPT: &str = include_str!("../../static/copy.js");
const TRY_SCRIPT: &str = include_str!("../../static/try.js");

/// What answers a request: one name per handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Handler {
    Landing,
    /// A static file; served before the request's cookies are read (see `app`).
    Asset,
    SignInPage,
    SendLink,
    ConfirmPage,
    Confirm,
    SignOut,
    ProviderStart,
    ProviderCallback,
    Account,
    ConfirmAddress,
    CreateKey,
    TryKeys,
    TryCall,
    RevokePage,
    Revoke,
    EndOtherSessions,
    EndSession,
    Unlink,
    DeletePage,
    Delete,
    WebhooksPage,
    CreateWebhook,
    TestWebhook,
    RotateWebhook,
    DisableWebhook,
    EnableWebhook,
    DeleteWebhook,
}

use Handler::*;

/// One path of the dashboard and what answers it: `get` also answers `HEAD`; `post` answers the
/// path's form. Made only by [`Route::read`], [`Route::form`] and [`Route::read_and_form`], so every
/// route answers some method.
#[derive(Debug)]
pub(crate) struct Route {
    /// Segments after `/`: literal, or a `{name}` that matches any one segment.
    pub(crate) path: &'static str,
    get: Option<Handler>,
    post: Option<Handler>,
}

/// Every path of the dashboard. A literal route is listed before a parameter that would match it too:
/// the first route whose path matches is the one asked.
pub(crate) static ROUTES: &[Route] = &[
    Route::read("/", Landing),
    Route::read("/static/{file}", Asset),
    Route::read_and_form("/signin", SignInPage, SendLink),
    Route::read_and_form("/signin/confirm", ConfirmPage, Confirm),
    Route::form("/signout", SignOut),
    Route::read("/auth/{provider}", ProviderStart),
    Route::read("/auth/{provider}/callback", ProviderCallback),
    Route::read("/account", Account),
    Route::form("/account/email", ConfirmAddress),
    Route::form("/account/keys", CreateKey),
    Route::read("/account/keys.json", TryKeys),
    Route::form("/account/try", TryCall),
    Route::read_and_form("/account/keys/{id}/revoke", RevokePage, Revoke),
    Route::form("/account/sessions/others/end", EndOtherSessions),
    Route::form("/account/sessions/{id}/end", EndSession),
    Route::form("/account/sign-ins/{id}/unlink", Unlink),
    Route::read_and_form("/account/delete", DeletePage, Delete),
    Route::read_and_form("/account/webhooks", WebhooksPage, CreateWebhook),
    Route::form("/account/webhooks/{id}/test", TestWebhook),
    Route::form("/account/webhooks/{id}/rotate", RotateWebhook),
    Route::form("/account/webhooks/{id}/disable", DisableWebhook),
    Route::form("/account/webhooks/{id}/enable", EnableWebhook),
    Route::form("/account/webhooks/{id}/delete", DeleteWebhook),
];

impl Route {
    /// A page: `GET` and `HEAD`.
    const fn read(path: &'static str, get: Handler) -> Self {
        Self { path, get: Some(get), post: None }
    }

    /// A form's target: `POST` only.
    const fn form(path: &'static str, post: Handler) -> Self {
        Self { path, get: None, post: Some(post) }
    }

    /// A page and its form on one path.
    const fn read_and_form(path: &'static str, get: Handler, post: Handler) -> Self {
        Self { path, get: Some(get), post: Some(post) }
    }

    /// The handler of `method` on this path, if it takes it.
    pub(crate) fn handler(&self, method: &Method) -> Option<Handler> {
        match *method {
            Method::GET | Method::HEAD => self.get,
            Method::POST => self.post,
            _ => None,
        }
    }

    /// The path with a sample value for each parameter, for the tests that walk the table.
    #[cfg(test)]
    pub(crate) fn sample(&self) -> String {
        self.path.replace("{id}", "1").replace("{provider}", "github").replace("{file}", "style.css")
    }

    /// The methods this path takes, as `Allow` says them.
    fn allow(&self) -> &'static str {
        match (self.get, self.post) {
            (Some(_), Some(_)) => "GET, HEAD, POST",
            (Some(_), None) => "GET, HEAD",
            (None, _) => "POST",
        }
    }

    /// The values of this route's parameters in `path`, when `path` is this route's.
    fn matches<'a>(&self, path: &'a str) -> Option<Params<'a>> {
        let mut params = Params(Vec::new());
        let mut pattern = self.path.split('/');
        let mut segments = path.split('/');
        loop {
            match (pattern.next(), segments.next()) {
                (None, None) => return Some(params),
                (Some(expected), Some(segment)) => {
                    match expected.strip_prefix('{').and_then(|name| name.strip_suffix('}')) {
                        Some(name) => params.0.push((name, segment)),
                        None if expected == segment => {}
                        None => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    /// The first segment of the path when it is a literal one (`account` of `/account/delete`); the
    /// start page `/` has none.
    fn section(&self) -> Option<&'static str> {
        let first = self.path.strip_prefix('/')?.split('/').next()?;
        (!first.is_empty() && !first.starts_with('{')).then_some(first)
    }
}

/// The values of a route's `{name}` segments in the path asked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Params<'a>(Vec<(&'static str, &'a str)>);

impl<'a> Params<'a> {
    fn get(&self, name: &str) -> Option<&'a str> {
        self.0.iter().find(|(key, _)| *key == name).map(|(_, value)| *value)
    }
}

/// What the table says of a request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Found<'a> {
    /// The handler of the path and method, with the path's parameters.
    Route(Handler, Params<'a>),
    /// A path of the table asked with a method it does not take: the `Allow` that says which it takes.
    NotAllowed(&'static str),
    /// No path of the table.
    Nothing,
}

/// The route of `method` on `path`.
pub(crate) fn find<'a>(method: &Method, path: &'a str) -> Found<'a> {
    let Some((route, params)) = ROUTES.iter().find_map(|route| Some((route, route.matches(path)?))) else {
        return Found::Nothing;
    };
    match route.handler(method) {
        Some(handler) => Found::Route(handler, params),
        None => Found::NotAllowed(route.allow()),
    }
}

/// Whether `path` is the dashboard's: a path of the table, or under the first segment of one
/// (`/account/nothing`, so that it gets the dashboard's `404` page). `/` claims only itself.
pub(crate) fn claims(path: &str) -> bool {
    ROUTES.iter().any(|route| {
        route.matches(path).is_some()
            || route.section().is_some_and(|section| {
                path.strip_prefix('/')
                    .and_then(|rest| rest.strip_prefix(section))
                    .is_some_and(|rest| rest.starts_with('/'))
            })
    })
}

/// The answer to what [`find`] found: the handler's, or the failure that says why there is none.
pub(crate) async fn answer(found: Found<'_>, inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    let (handler, params) = match found {
        Found::Route(handler, params) => (handler, params),
        Found::NotAllowed(allow) => return Err(Failure::method_not_allowed(allow)),
        Found::Nothing => return Err(Failure::not_found()),
    };
    match handler {
        Landing => landing(inner, ctx),
        Asset => asset(&params).ok_or_else(Failure::not_found),
        SignInPage => signin::page(inner, ctx),
        SendLink => signin::send_link(inner, ctx),
        ConfirmPage => signin::confirm_page(inner, ctx).await,
        Confirm => signin::confirm(inner, ctx).await,
        SignOut => signout(inner, ctx).await,
        ProviderStart => providers::start(inner, ctx, provider_named(&params)?),
        ProviderCallback => providers::callback(inner, ctx, provider_named(&params)?).await,
        Account => account::page(inner, ctx).await,
        ConfirmAddress => account::confirm_address(inner, ctx).await,
        CreateKey => keys::create(inner, ctx).await,
        TryKeys => try_it::keys(inner, ctx).await,
        TryCall => try_it::call(inner, ctx).await,
        RevokePage => keys::revoke_page(inner, ctx, number(&params)?).await,
        Revoke => keys::revoke(inner, ctx, number(&params)?).await,
        EndOtherSessions => account::end_other_sessions(inner, ctx).await,
        EndSession => account::end_session(inner, ctx, number(&params)?).await,
        Unlink => account::unlink(inner, ctx, number(&params)?).await,
        DeletePage => account::delete_page(inner, ctx).await,
        Delete => account::delete(inner, ctx).await,
        WebhooksPage => webhooks::page(inner, ctx).await,
        CreateWebhook => webhooks::create(inner, ctx).await,
        TestWebhook => webhooks::test(inner, ctx, number(&params)?).await,
        RotateWebhook => webhooks::rotate(inner, ctx, number(&params)?).await,
        DisableWebhook => webhooks::disable(inner, ctx, number(&params)?, true).await,
        EnableWebhook => webhooks::disable(inner, ctx, number(&params)?, false).await,
        DeleteWebhook => webhooks::delete(inner, ctx, number(&params)?).await,
    }
}

/// The static file `{file}` names, if there is one.
pub(crate) fn asset(params: &Params<'_>) -> Option<Reply> {
    match params.get("file")? {
        // The site's one style sheet, which the API's own pages use too.
        "style.css" => Some(Reply::asset("text/css; charset=utf-8", tapster_site::STYLE)),
        "copy.js" => Some(Reply::asset("text/javascript; charset=utf-8", COPY_SCRIPT)),
        // The API reference's "try it" forms (`/docs`, served beside the dashboard).
        "try.js" => Some(Reply::asset("text/javascript; charset=utf-8", TRY_SCRIPT)),
        _ => None,
    }
}

/// The provider `{provider}` names; any other names no page.
fn provider_named(params: &Params<'_>) -> Result<Provider, Failure> {
    params.get("provider").and_then(Provider::parse).ok_or_else(Failure::not_found)
}

/// The record's number `{id}` names; anything else names no page.
fn number(params: &Params<'_>) -> Result<i64, Failure> {
    let segment = params.get("id").unwrap_or_default();
    segment.parse().ok().filter(|n: &i64| *n > 0 && segment.len() <= 19).ok_or_else(Failure::not_found)
}

fn landing(inner: &Inner, ctx: &Ctx) -> Result<Reply, Failure> {
    Reply::page(
        StatusCode::OK,
        &views::Landing {
            nav: ctx.nav(),
            notice: ctx.notice.map(Notice::text),
            api_base: inner.config.public_url.origin().to_owned(),
            providers: inner.provider_links(),
            limits: Limits::DEFAULT,
        },
    )
}

async fn signout(inner: &Inner, ctx: &mut Ctx) -> Result<Reply, Failure> {
    ctx.form(inner)?;
    let mut reply = ctx.redirect(inner, "/", Notice::SignedOut);
    ctx.end_session(inner, &mut reply).await?;
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    /// The routes of the table in `docs/dashboard.md` ("## Routes"), each path with the methods the
    /// doc names for it. A cell lists `METHOD /path` spans, a bare `METHOD` span sharing the path of
    /// the span after it (`GET`, `POST /account/delete`); a query (`?token=`) is dropped, and so is
    /// what stands in parentheses (the form's fields).
    fn documented_routes(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
        let table = doc.split_once("\n## Routes\n").expect("docs/dashboard.md has a Routes section").1;
        let rows =
            table.lines().skip_while(|line| !line.starts_with('|')).take_while(|line| line.starts_with('|'));
        let mut routes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for row in rows.skip(2) {
            let cell = row.split('|').nth(1).unwrap_or_else(|| panic!("a row without cells: {row}"));
            let mut outside = String::new();
            let mut depth = 0usize;
            for c in cell.chars() {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.checked_sub(1).unwrap_or_else(|| panic!("an unopened ) in {row}")),
                    _ if depth == 0 => outside.push(c),
                    _ => {}
                }
            }
            let mut waiting: Vec<&str> = Vec::new();
            for span in outside.split('`').skip(1).step_by(2) {
                let (method, path) = match span.split_once(' ') {
                    Some((method, path)) => (method, Some(path)),
                    None => (span, None),
                };
                assert!(["GET", "POST"].contains(&method), "{method} in {row}");
                waiting.push(method);
                if let Some(path) = path {
                    let path = path.split_once('?').map_or(path, |(path, _)| path);
                    routes.entry(path.to_owned()).or_default().extend(waiting.drain(..).map(str::to_owned));
                }
            }
            assert!(waiting.is_empty(), "a method without a path in {row}");
        }
        routes
    }

    #[test]
    fn the_table_is_the_one_the_doc_describes() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/dashboard.md");
        let doc = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let table: BTreeMap<String, BTreeSet<String>> = ROUTES
            .iter()
            .map(|route| {
                let methods = [("GET", route.get), ("POST", route.post)];
                let takes = methods.iter().filter(|(_, handler)| handler.is_some());
                (route.path.to_owned(), takes.map(|(method, _)| (*method).to_owned()).collect())
            })
            .collect();
        assert_eq!(table.len(), ROUTES.len(), "a path is in the table twice");
        assert_eq!(documented_routes(&doc), table, "docs/dashboard.md against ROUTES");
    }

    #[test]
    fn the_table_finds_handlers_parameters_and_the_ways_a_path_is_asked() {
        let params = |pairs: &[(&'static str, &'static str)]| Params(pairs.to_vec());
        let cases = [
            (Method::GET, "/", Found::Route(Landing, params(&[]))),
            (Method::HEAD, "/account", Found::Route(Account, params(&[]))),
            (Method::GET, "/static/try.js", Found::Route(Asset, params(&[("file", "try.js")]))),
            (Method::POST, "/signin/confirm", Found::Route(Confirm, params(&[]))),
            (
                Method::GET,
                "/auth/discord/callback",
                Found::Route(ProviderCallback, params(&[("provider", "discord")])),
            ),
            (Method::POST, "/account/keys/12/revoke", Found::Route(Revoke, params(&[("id", "12")]))),
            // A literal wins over a parameter listed after it.
            (Method::POST, "/account/sessions/others/end", Found::Route(EndOtherSessions, params(&[]))),
            (Method::POST, "/account/sessions/3/end", Found::Route(EndSession, params(&[("id", "3")]))),
            // A parameter takes any one segment; its handler decides what it names.
            (Method::GET, "/account/keys/abc/revoke", Found::Route(RevokePage, params(&[("id", "abc")]))),
            (Method::PUT, "/signin/confirm", Found::NotAllowed("GET, HEAD, POST")),
            (Method::PUT, "/account/delete", Found::NotAllowed("GET, HEAD, POST")),
            (Method::POST, "/account", Found::NotAllowed("GET, HEAD")),
            (Method::POST, "/static/nothing.css", Found::NotAllowed("GET, HEAD")),
            (Method::GET, "/signout", Found::NotAllowed("POST")),
            (Method::GET, "/nothing", Found::Nothing),
            (Method::GET, "/account/", Found::Nothing),
            (Method::GET, "/auth/github/extra/segments", Found::Nothing),
            (Method::GET, "/static/../Cargo.toml", Found::Nothing),
            (Method::GET, "*", Found::Nothing),
        ];
        for (method, path, found) in cases {
            assert_eq!(find(&method, path), found, "{method} {path}");
        }
    }

    #[test]
    fn the_dashboard_claims_its_paths_and_the_sections_they_are_in() {
        for route in ROUTES {
            assert!(claims(&route.sample()), "{}", route.path);
        }
        let cases = [
            ("/", true),
            ("/account/nothing", true),
            ("/signin/", true),
            ("/signout/more", true),
            ("/auth/", true),
            ("/static/nothing.css", true),
            // Only the paths under these are pages; the sections themselves are not.
            ("/auth", false),
            ("/static", false),
            ("//", false),
            ("/signinx", false),
            ("/nothing", false),
            ("/v1/items", false),
            ("/docs", false),
        ];
        for (path, claimed) in cases {
            assert_eq!(claims(path), claimed, "{path}");
        }
    }
}
