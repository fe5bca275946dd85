//! [`Dashboard`]: the way of every request through it: its route found in the table (which also
//! says which paths are the dashboard's), the browser's cookies read (its session, its form token),
//! the route's handler called, and the answer finished (a new form token set, a dead session's cookie
//! cleared, a failure drawn as a page).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use tapster_accounts::{Accounts, WebhookEndpoint};
use tapster_domain::Email;

use crate::Result;
use crate::config::Config;
use crate::console::Console;
use crate::cookies::Jar;
use crate::ctx::{Ctx, Inner};
use crate::env::Environment;
use crate::outbox::Outbox;
use crate::reply::{Failure, Reply, allow_header, capitalized};
use crate::routes::{self, Found, Handler};
use crate::views::{Nav, Problem};

/// How long the header of another crate's page waits for the browser's session to be looked up,
/// before it shows the visitor signed out. The accounts store bounds its own waits (on PostgreSQL
/// 5 s for a pooled connection and 3 s to make one; on SQLite 30 s for a pooled connection and 5 s
/// for a lock), which suits a page that needs the answer; a page that is whole without it, and
/// answered from memory otherwise, should not wait seconds for a header.
const VISIT_LOOKUP: Duration = Duration::from_secs(1);

/// Who a browser is, for the header of a page another crate serves beside the dashboard: the header
/// the dashboard's own pages show it, and the cookies (`Set-Cookie` values) that keep its session
/// and the header's form token as the dashboard's own answers would.
#[derive(Debug, Clone)]
pub struct PageVisit {
    pub nav: Nav,
    pub set_cookie: Vec<String>,
}

/// The developer dashboard. Cheap to clone; every clone serves the same accounts.
#[derive(Debug, Clone)]
pub struct Dashboard {
    inner: Arc<Inner>,
}

impl Dashboard {
    /// Starts the dashboard on the current tokio runtime (its mail worker runs there).
    pub fn new(config: Config, accounts: Accounts, env: Arc<dyn Environment>) -> Result<Self> {
        Ok(Self { inner: Inner::start(config, accounts, env)? })
    }

    /// The dashboard's address, as browsers reach it.
    pub fn url(&self) -> &str {
        self.inner.config.public_url.origin()
    }

    /// The page for a calling address the operator blocked.
    pub fn blocked(&self) -> Response<Full<Bytes>> {
        let failure = Failure::new(
            StatusCode::FORBIDDEN,
            "Requests from your address are blocked",
            "The operator of this service blocked the network you are on. If you think this is a mistake, \
             write to them.",
        );
        failure_reply(&self.inner, &Nav::signed_out(""), failure).into_response()
    }

    /// The page for a request refused before the dashboard saw it whole, by the limits of the server
    /// it is served on: its `status` and a sentence saying `why`; a `503` also says when to come back.
    pub fn refused(&self, status: StatusCode, why: &str, retry_after: Option<u64>) -> Response<Full<Bytes>> {
        let title = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "That was too much to send",
            StatusCode::REQUEST_TIMEOUT => "That took too long",
            StatusCode::SERVICE_UNAVAILABLE => "Too busy right now",
            StatusCode::URI_TOO_LONG | StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => {
                "That request was too large"
            }
            _ => "That did not work",
        };
        let mut failure = Failure::new(status, title, capitalized(why)).next("/", "Go to the start page");
        failure.retry_after = retry_after;
        failure_reply(&self.inner, &Nav::signed_out(""), failure).into_response()
    }

    /// Whether `path` is one of the dashboard's: a path of its route table, or any path under the
    /// first segment of one (`/account/...`, `/auth/...`), so that a mistyped page is answered by
    /// the dashboard's `404` page. The start page `/` claims only itself.
    pub fn claims(&self, path: &str) -> bool {
        routes::claims(path)
    }

    /// Gives the reference page's "try it" forms the console they are answered through; the first
    /// one given is kept. Without one, `/account/try` says the forms are not available here.
    pub fn set_console(&self, console: Arc<dyn Console>) {
        let _ = self.inner.console.set(console);
    }

    /// Gives the webhook pages the worker that delivers what they queue; the first one given is
    /// kept. Without one, a test event cannot be sent.
    pub fn set_outbox(&self, outbox: Arc<dyn Outbox>) {
        let _ = self.inner.outbox.set(outbox);
    }

    /// Tells the owner of `endpoint` (at `to`) by mail that it was disabled after failing for days.
    pub fn mail_webhook_disabled(&self, to: Email, endpoint: &WebhookEndpoint) {
        self.inner.mail_webhook_disabled(to, endpoint.url.clone());
    }

    /// Whether the browser that sent `headers` holds a session cookie (exactly one, as it is read):
    /// only such a browser can be signed in, or be told its session ended, so only its
    /// [`Dashboard::visit`] looks anything up. Reads the headers only.
    pub fn sends_session(&self, headers: &HeaderMap) -> bool {
        self.inner.cookies.read(headers, Jar::Session).is_some()
    }

    /// Who the browser that sent `headers` from `peer` is, for the header of a page of another
    /// crate's served beside the dashboard (the API's `/docs` and `/changelog`) at `path`: signed in
    /// or not, as the dashboard's own pages say, with the cookies its answer sets for that header's
    /// form. A browser whose session cannot be looked up now (the accounts out of reach, or slower
    /// than a second) is shown as signed out, so that the page still answers, and the operator is
    /// told why.
    pub async fn visit(&self, headers: HeaderMap, path: &str, peer: IpAddr) -> PageVisit {
        let inner = &*self.inner;
        let mut request = Request::new(Bytes::new());
        *request.headers_mut() = headers;
        let signed_out = || PageVisit { nav: Nav::signed_out(path), set_cookie: Vec::new() };
        let ctx = match tokio::time::timeout(VISIT_LOOKUP, Ctx::load(inner, request, peer)).await {
            Ok(Ok(ctx)) => ctx,
            Ok(Err(failure)) => {
                tracing::warn!(
                    target: "tapster::dashboard",
                    path,
                    status = failure.status.as_u16(),
                    reason = %failure.message,
                    "a page's header shows its visitor signed out: the session could not be looked up"
                );
                return signed_out();
            }
            Err(_) => {
                tracing::warn!(
                    target: "tapster::dashboard",
                    path,
                    waited = ?VISIT_LOOKUP,
                    "a page's header shows its visitor signed out: the session lookup took too long"
                );
                return signed_out();
            }
        };
        let nav = Nav { current: path.to_owned(), ..ctx.nav() };
        let set_cookie = ctx.header_cookies(inner).iter().map(ToString::to_string).collect();
        PageVisit { nav, set_cookie }
    }

    /// Answers one request from `peer` (the calling address).
    pub async fn answer(&self, request: Request<Bytes>, peer: IpAddr) -> Response<Full<Bytes>> {
        let inner = &*self.inner;
        let path = request.uri().path().to_owned();
        let found = routes::find(request.method(), &path);
        // Static files are the same for everyone and cacheable: no session, no cookies.
        if let Found::Route(Handler::Asset, params) = &found
            && let Some(asset) = routes::asset(params)
        {
            return asset.into_response();
        }
        let mut ctx = match Ctx::load(inner, request, peer).await {
            Ok(ctx) => ctx,
            Err(failure) => return failure_reply(inner, &Nav::signed_out(&path), failure).into_response(),
        };
        let reply = match routes::answer(found, inner, &mut ctx).await {
            Ok(reply) => reply,
            Err(failure) => failure_reply(inner, &ctx.nav(), failure),
        };
        ctx.finish(inner, reply).into_response()
    }
}

fn problem(nav: &Nav, failure: &Failure) -> Problem {
    Problem {
        nav: nav.clone(),
        status: failure.status.as_u16(),
        title: failure.title,
        message: failure.message.clone(),
        next: failure.next,
    }
}

/// The page of a failure, whole: its status and words, the `Allow` of a `405` and the clearing of the
/// cookie it ends. The one place a [`Failure`] becomes an answer; when even its page cannot be made,
/// a short `500` in plain text.
fn failure_reply(inner: &Inner, nav: &Nav, failure: Failure) -> Reply {
    let mut reply = Reply::page(failure.status, &problem(nav, &failure))
        .unwrap_or_else(|_| Reply::text(StatusCode::INTERNAL_SERVER_ERROR, "The page could not be made."));
    if let Some(allow) = failure.allow {
        let (name, value) = allow_header(allow);
        reply.set_header(name, value);
    }
    if let Some(jar) = failure.clears {
        reply.set_cookie(&inner.cookies.clear(jar));
    }
    if let Some(seconds) = failure.retry_after {
        reply.set_header(RETRY_AFTER, HeaderValue::from(seconds));
    }
    reply
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use bytes::Bytes;
    use hyper::{Method, Request, StatusCode};
    use tapster_accounts::{Accounts, Location};
    use tapster_domain::Timestamp;

    use super::*;
    use crate::config::{MailConfig, MailTransport, PublicUrl};
    use crate::routes::ROUTES;

    /// Every method the walk asks each path with: the two the dashboard takes and the ones it takes nowhere.
    const METHODS: [Method; 7] = [
        Method::GET,
        Method::HEAD,
        Method::POST,
        Method::PUT,
        Method::DELETE,
        Method::PATCH,
        Method::OPTIONS,
    ];

    /// A fixed clock and randomness from a counter (distinct, not secret).
    #[derive(Debug)]
    struct Fixed(AtomicU64);

    impl Environment for Fixed {
        fn now(&self) -> Timestamp {
            Timestamp(1_795_000_000)
        }

        fn fill_random(&self, bytes: &mut [u8]) -> std::io::Result<()> {
            for byte in bytes {
                *byte = self.0.fetch_add(1, Ordering::Relaxed).to_le_bytes()[0] ^ 0x5a;
            }
            Ok(())
        }
    }

    #[tokio::test]
    async fn every_path_answers_405_with_exactly_its_methods() {
        let dir = tempfile::TempDir::new().unwrap();
        let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
        let config = Config {
            public_url: PublicUrl::parse("http://dashboard.test").unwrap(),
            mail: MailConfig {
                from: "Tapster <tapster@dashboard.test>".into(),
                transport: MailTransport::Outbox(dir.path().join("outbox")),
            },
            github: None,
            discord: None,
            webhooks_allow_private: false,
        };
        let dashboard = Dashboard::new(config, accounts, Arc::new(Fixed(AtomicU64::new(1)))).unwrap();
        for route in ROUTES {
            let path = route.sample();
            let takes: Vec<&Method> =
                METHODS.iter().filter(|method| route.handler(method).is_some()).collect();
            let allow = takes.iter().map(|method| method.as_str()).collect::<Vec<_>>().join(", ");
            for method in &METHODS {
                let request = Request::builder()
                    .method(method.clone())
                    .uri(&path)
                    .header("host", "dashboard.test")
                    .body(Bytes::new())
                    .unwrap();
                let answer = dashboard.answer(request, "198.51.100.7".parse().unwrap()).await;
                let header = answer.headers().get("allow").map(|v| v.to_str().unwrap());
                if takes.contains(&method) {
                    assert_ne!(answer.status(), StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
                    assert_eq!(header, None, "{method} {path}");
                } else {
                    assert_eq!(
                        (answer.status(), header),
                        (StatusCode::METHOD_NOT_ALLOWED, Some(allow.as_str())),
                        "{method} {path}"
                    );
                }
            }
        }
    }
}
