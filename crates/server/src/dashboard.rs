//! The dashboard beside the API: its settings as the command line gives them, the clock and the
//! randomness it is given, the console through which its "try it" forms call the API as a signed-in
//! person's key, and the adapter that lets the HTTP server serve it on the paths it claims.

use std::future::Future;
use std::net::IpAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::{CONTENT_TYPE, HeaderMap, HeaderValue};
use hyper::{Request, Response, StatusCode};
use tapster_dashboard::{
    Config, Console, ConsoleAnswer, Dashboard, Environment, MailConfig, MailTransport, PageVisit,
    ProviderConfig, PublicUrl,
};
use tapster_domain::Timestamp;
use tapster_edge::{Answer, Body, BodyError, Refusal, Service, read_body};
use tapster_http::{App, Pages, Verdict, Visit, Visitor};

use crate::access::{Access, timestamp};

/// The dashboard's settings; what is not set has a default that works on one machine. Where
/// browsers reach it is the server's public URL ([`Service::public_url`](crate::Service::public_url)).
#[derive(Debug, Clone, Default)]
pub struct DashboardOptions {
    /// The SMTP server's URL; without one, mails go to `<data-dir>/outbox/`.
    pub smtp_url: Option<String>,
    /// The sender of the mails; by default [`DEFAULT_MAIL_FROM`].
    pub mail_from: Option<String>,
    pub github: Option<ProviderConfig>,
    pub discord: Option<ProviderConfig>,
}

impl DashboardOptions {
    /// The dashboard's configuration for a server reached at `public_url`, with the data dir
    /// `data_dir`, whose webhooks may reach private addresses when `webhooks_allow_private`.
    pub(crate) fn config(
        &self,
        public_url: PublicUrl,
        data_dir: &Path,
        webhooks_allow_private: bool,
    ) -> Config {
        let transport = match &self.smtp_url {
            Some(url) => MailTransport::Smtp(url.clone()),
            None => MailTransport::Outbox(data_dir.join("outbox")),
        };
        let from = self.mail_from.clone().unwrap_or_else(|| DEFAULT_MAIL_FROM.to_owned());
        Config {
            public_url,
            mail: MailConfig { from, transport },
            github: self.github.clone(),
            discord: self.discord.clone(),
            webhooks_allow_private,
        }
    }
}

/// The sender of the mails unless told otherwise.
pub const DEFAULT_MAIL_FROM: &str = "Tapster <tapster@localhost>";

/// The wall clock and the operating system's CSPRNG.
#[derive(Debug)]
pub(crate) struct System;

impl Environment for System {
    fn now(&self) -> Timestamp {
        timestamp()
    }

    fn fill_random(&self, bytes: &mut [u8]) -> std::io::Result<()> {
        getrandom::fill(bytes).map_err(std::io::Error::other)
    }
}

/// The largest request body the dashboard takes: its forms hold a few short fields.
pub(crate) const MAX_FORM_BYTES: usize = 16 * 1024;
/// How long a form may take to arrive whole.
const FORM_TIMEOUT: Duration = Duration::from_secs(10);

/// The dashboard as pages the HTTP server serves beside the API: the edge hands it the requests for
/// its paths, whose forms it reads within [`MAX_FORM_BYTES`] and [`FORM_TIMEOUT`], and the refusals
/// on them, which it renders as pages. An address the operator blocked is refused here as on the API.
#[derive(Debug)]
pub(crate) struct DashboardPages {
    pub(crate) dashboard: Dashboard,
    pub(crate) access: Arc<Access>,
}

impl Service for DashboardPages {
    fn call(self: Arc<Self>, request: Request<Incoming>, caller: IpAddr) -> Answer {
        if self.access.is_blocked(caller) {
            return Answer::Ready(self.dashboard.blocked());
        }
        Answer::Later(Box::pin(async move {
            match read_body(request, MAX_FORM_BYTES, FORM_TIMEOUT).await {
                Ok(request) => self.dashboard.answer(request, caller).await,
                Err(error) => self.unread_form_page(error),
            }
        }))
    }

    fn refused(&self, _: &Request<Incoming>, _: IpAddr, refusal: Refusal) -> Response<Body> {
        self.refusal_page(refusal)
    }
}

impl Pages for DashboardPages {
    fn claims(&self, path: &str) -> bool {
        self.dashboard.claims(path)
    }

    /// The dashboard knows who is signed in: the API's pages wear its header. A browser without a
    /// session cookie, as every program and most visitors are, is signed out at once: no lookup, no
    /// form token drawn, no future.
    fn visit(&self, headers: &HeaderMap, path: &str, caller: IpAddr) -> Visitor {
        if !self.dashboard.sends_session(headers) {
            return Visitor::Now(Visit::SIGNED_OUT);
        }
        let (dashboard, headers, path) = (self.dashboard.clone(), headers.clone(), path.to_owned());
        Visitor::Later(Box::pin(async move { page_visit(dashboard.visit(headers, &path, caller).await) }))
    }
}

/// The dashboard's word on a browser as the API's pages take it: a header only for one who is
/// signed in (the page as rendered for everyone otherwise), and the cookies as header values (the
/// `cookie` crate writes only valid ones; one that were not would be left out, not sent broken).
fn page_visit(visit: PageVisit) -> Visit {
    let PageVisit { nav, set_cookie } = visit;
    let set_cookie = set_cookie.into_iter().filter_map(|cookie| HeaderValue::try_from(cookie).ok()).collect();
    Visit { signed_in: nav.signed_in.then_some(nav), set_cookie }
}

impl DashboardPages {
    /// The dashboard's page for a refusal, in words for the person who sent the request.
    fn refusal_page(&self, refusal: Refusal) -> Response<Body> {
        let (status, why, retry_after) = match refusal {
            Refusal::UriTooLong { length, limit } => (
                StatusCode::URI_TOO_LONG,
                format!("the address is {length} bytes long; at most {limit} are accepted"),
                None,
            ),
            Refusal::HeadersTooLarge { size, limit } => (
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                format!("the request's headers take {size} bytes; at most {limit} are accepted"),
                None,
            ),
            Refusal::OverBudget { retry_after } => (
                StatusCode::SERVICE_UNAVAILABLE,
                "the server was too busy to answer in time; please try again in a moment".to_owned(),
                Some(retry_after),
            ),
            Refusal::TooManyConnections { retry_after } => (
                StatusCode::SERVICE_UNAVAILABLE,
                "the server has too many open connections; please try again in a moment".to_owned(),
                Some(retry_after),
            ),
            Refusal::UnknownCaller { .. } => (
                StatusCode::BAD_REQUEST,
                "the proxy in front of this server did not say who sent the request; its operator \
                 has to mend its settings"
                    .to_owned(),
                None,
            ),
        };
        self.dashboard.refused(status, &why, retry_after)
    }

    /// The dashboard's page for a form it could not read.
    fn unread_form_page(&self, error: BodyError) -> Response<Body> {
        let (status, why) = match error {
            BodyError::TooLarge { limit } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the form is larger than {limit} bytes, more than any form here sends"),
            ),
            BodyError::TimedOut { seconds } => (
                StatusCode::REQUEST_TIMEOUT,
                format!("the form did not arrive within {seconds} seconds; please send it again"),
            ),
            BodyError::Unreadable => {
                (StatusCode::BAD_REQUEST, "the form could not be read; please send it again".to_owned())
            }
        };
        self.dashboard.refused(status, &why, None)
    }
}

/// The dashboard's API console: a `/v1` request answered as a signed-in person's key, named by its
/// id, through this server's gate (so it is checked and counted as any request of the key) and app.
#[derive(Debug)]
pub(crate) struct ApiConsole {
    access: Arc<Access>,
    /// The app, once it is built. It holds the dashboard, which holds this: a weak link, so that
    /// neither keeps the other alive.
    app: OnceLock<Weak<App>>,
}

impl ApiConsole {
    pub(crate) fn new(access: Arc<Access>) -> Self {
        Self { access, app: OnceLock::new() }
    }

    /// The app the console calls, set once it exists.
    pub(crate) fn serve_through(&self, app: &Arc<App>) {
        let _ = self.app.set(Arc::downgrade(app));
    }
}

impl Console for ApiConsole {
    fn call(
        &self,
        key: i64,
        target: String,
        peer: IpAddr,
    ) -> Pin<Box<dyn Future<Output = ConsoleAnswer> + Send>> {
        let verdict = self.access.admit_key(key, peer);
        let app = self.app.get().and_then(Weak::upgrade);
        Box::pin(async move {
            let Some(app) = app else {
                return ConsoleAnswer {
                    status: StatusCode::SERVICE_UNAVAILABLE.as_u16(),
                    content_type: "text/plain".to_owned(),
                    rate_limit: None,
                    body: "the API is not being served".to_owned(),
                };
            };
            let verdict = match verdict {
                Verdict::Now(decided) => decided,
                Verdict::Later(pending) => pending.await,
            };
            let (head, body) = app.answer_as(&target, peer, verdict).into_parts();
            let header = |name| head.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
            // The app's bodies are whole in memory: reading one cannot fail.
            let body = body.collect().await.map(|collected| collected.to_bytes()).unwrap_or_default();
            ConsoleAnswer {
                status: head.status.as_u16(),
                content_type: header(CONTENT_TYPE).unwrap_or_default(),
                rate_limit: header(hyper::header::HeaderName::from_static("ratelimit")),
                body: String::from_utf8_lossy(&body).into_owned(),
            }
        })
    }
}
