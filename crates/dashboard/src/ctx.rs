//! What every handler is given: the dashboard's shared state ([`Inner`]: its settings, the accounts,
//! mail, providers, the per-address count of sign-in mails) and one request as the handlers see it
//! ([`Ctx`]: its parts, the browser's session and form token, the notice it brought, and the cookies
//! its answer must set). Below `routes`, which answers with them, and `app`, which makes them.

use std::net::IpAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use cookie::Cookie;
use hyper::header::{HOST, HeaderMap, ORIGIN, USER_AGENT};
use hyper::{Request, StatusCode};
use tapster_accounts::{Accounts, Provider, SessionInfo, Token, TokenHash};
use tapster_domain::{AddressLimit, Email, Timestamp};

use crate::config::{Config, MailTransport};
use crate::console::Console;
use crate::cookies::{Cookies, Jar};
use crate::env::{Environment, Secrets};
use crate::forms::Form;
use crate::mail::Mailer;
use crate::notice::Notice;
use crate::oauth::{HttpClient, OAuthProvider};
use crate::outbox::Outbox;
use crate::reply::{Failure, Reply};
use crate::views::{Nav, ProviderLink};
use crate::{Result, constant_time_eq};

/// Sign-in mails an address may ask for at once ...
const SIGN_INS_BURST: u32 = 10;
/// ... and how long it takes for one more to be allowed.
const SIGN_INS_REFILL: Duration = Duration::from_secs(90);
/// How often the per-address counts forget addresses that are whole again.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// The dashboard's state, shared by every request.
#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) config: Config,
    pub(crate) accounts: Accounts,
    pub(crate) env: Arc<dyn Environment>,
    mailer: Mailer,
    pub(crate) cookies: Cookies,
    pub(crate) github: Option<OAuthProvider>,
    pub(crate) discord: Option<OAuthProvider>,
    pub(crate) http: HttpClient,
    /// Sign-in mails asked for, per calling address.
    sign_ins: AddressLimit,
    /// What the reference page's "try it" forms are answered through, once the server gives it.
    pub(crate) console: OnceLock<Arc<dyn Console>>,
    /// The webhooks' worker, once the server gives it.
    pub(crate) outbox: OnceLock<Arc<dyn Outbox>>,
}

/// A signed-in browser's session.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Session {
    pub(crate) info: SessionInfo,
    pub(crate) hash: TokenHash,
}

/// One request as the handlers see it. (No `Debug`: it holds the session cookie and the form.)
pub(crate) struct Ctx {
    /// The path asked for, whose link the header marks as the current page.
    path: String,
    pub(crate) query: Option<String>,
    pub(crate) headers: HeaderMap,
    /// `host[:port]` the browser asked for (`Host`, or HTTP/2's `:authority`).
    authority: Option<String>,
    pub(crate) body: Bytes,
    pub(crate) peer: IpAddr,
    pub(crate) now: Timestamp,
    pub(crate) session: Option<Session>,
    /// This browser's form token: the one its cookie holds, or a new one (set by the answer).
    pub(crate) csrf: String,
    /// The browser does not hold `csrf` yet: the answer sets it, and no form is taken with it.
    csrf_is_new: bool,
    /// The session cookie and how long it is to last, when the lookup renewed the session: the
    /// answer renews the cookie too.
    renew_session: Option<(String, i64)>,
    /// The browser sent a session cookie that opens nothing: the answer clears it.
    stale_session: bool,
    /// The handler set or cleared the session cookie; that wins over what [`Ctx::finish`] would do.
    session_cookie_set: bool,
    /// The notice the browser brought, shown by the page and then cleared.
    pub(crate) notice: Option<Notice>,
    notice_sent: bool,
    notice_set: bool,
}

impl Ctx {
    /// The request as the handlers see it: its browser's session looked up, its cookies read.
    pub(crate) async fn load(inner: &Inner, request: Request<Bytes>, peer: IpAddr) -> Result<Self, Failure> {
        let (head, body) = request.into_parts();
        let now = inner.env.now();
        let sent = inner.cookies.read(&head.headers, Jar::Session);
        let (mut session, mut renew_session) = (None, None);
        if let Some(token) = sent.as_deref().and_then(Token::parse) {
            let hash = token.hash();
            if let Some(info) = inner.accounts.session(hash, now).await? {
                session = Some(Session { info, hash });
                renew_session = info.renewed.then(|| (token.expose().to_owned(), info.lasts_secs(now)));
            }
        }
        let authority = head
            .uri
            .authority()
            .map(|authority| authority.as_str().to_owned())
            .or_else(|| head.headers.get(HOST).and_then(|host| host.to_str().ok()).map(str::to_owned));
        let notice_cookie = inner.cookies.read(&head.headers, Jar::Notice);
        let (csrf, csrf_is_new) =
            match inner.cookies.read(&head.headers, Jar::Csrf).filter(|v| Token::parse(v).is_some()) {
                Some(csrf) => (csrf, false),
                None => (inner.env.token().map_err(Failure::internal)?.expose().to_owned(), true),
            };
        Ok(Self {
            path: head.uri.path().to_owned(),
            query: head.uri.query().map(str::to_owned),
            headers: head.headers,
            authority,
            body,
            peer,
            now,
            stale_session: sent.is_some() && session.is_none(),
            session,
            csrf,
            csrf_is_new,
            renew_session,
            session_cookie_set: false,
            notice: notice_cookie.as_deref().and_then(Notice::parse),
            notice_sent: notice_cookie.is_some(),
            notice_set: false,
        })
    }

    pub(crate) fn nav(&self) -> Nav {
        Nav { current: self.path.clone(), signed_in: self.session.is_some(), csrf: self.csrf.clone() }
    }

    pub(crate) fn user_agent(&self) -> &str {
        self.headers.get(USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    /// A query parameter's value.
    pub(crate) fn query_value(&self, name: &str) -> Option<String> {
        let query = self.query.as_deref()?;
        form_urlencoded::parse(query.as_bytes())
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    }

    /// The form of a `POST`, once it is known to come from one of the dashboard's own pages: the
    /// browser says the request is same-origin (`Origin` is the dashboard's; or, where the browser
    /// hides the origin, `Sec-Fetch-Site: same-origin` and a `Host` that is the dashboard's), and
    /// the form repeats this browser's token.
    pub(crate) fn form(&self, inner: &Inner) -> Result<Form, Failure> {
        let forbidden = |message: String| {
            Failure::new(StatusCode::FORBIDDEN, "This form was not sent from here", message)
        };
        let public_url = &inner.config.public_url;
        let ours = public_url.origin();
        let same_origin = self.headers.get("sec-fetch-site").is_some_and(|v| v == "same-origin");
        let asked = self.authority.as_deref().unwrap_or("another address");
        match self.headers.get(ORIGIN).map(|v| v.to_str().unwrap_or("")) {
            Some(origin) if origin == ours => {}
            // Pages that send no referrer (these send none) make browsers send `Origin: null`; they
            // still say in Sec-Fetch-Site whether the page was of the host they asked for.
            Some("null") | None if same_origin && asked.eq_ignore_ascii_case(public_url.authority()) => {}
            Some("null") | None if same_origin => {
                return Err(forbidden(format!(
                    "It was sent to {asked}, but the dashboard is at {ours}. Open the dashboard there and try again."
                )));
            }
            Some(origin) if origin != "null" => {
                return Err(forbidden(format!(
                    "It came from {origin}, but the dashboard is at {ours}. Open the dashboard there and try again."
                )));
            }
            _ => {
                return Err(forbidden(format!(
                    "The browser did not say where it came from. Open the dashboard at {ours} and try again."
                )));
            }
        }
        let form = Form::parse(&self.body)?;
        let token = form.get("csrf").unwrap_or_default();
        if self.csrf_is_new || !constant_time_eq(token.as_bytes(), self.csrf.as_bytes()) {
            return Err(forbidden(
                "The form is out of date (the page was open too long, or cookies are off). Reload the page and try again."
                    .into(),
            ));
        }
        Ok(form)
    }

    /// The signed-in session, or a failure that sends the browser to sign in.
    pub(crate) fn signed_in(&self) -> Result<Session, Failure> {
        self.session.ok_or_else(|| {
            Failure::new(
                StatusCode::FORBIDDEN,
                "Sign in first",
                "Your session has ended, or you never signed in.",
            )
            .next("/signin", "Sign in")
        })
    }

    /// Starts a new session for `account` in the reply; then the browser's old one (if any) ends,
    /// so every sign-in gets a new id.
    pub(crate) async fn start_session(
        &mut self,
        inner: &Inner,
        account: tapster_accounts::AccountId,
        reply: &mut Reply,
    ) -> Result<(), Failure> {
        let token = inner.env.token().map_err(Failure::internal)?;
        let info = inner.accounts.create_session(account, token.hash(), self.user_agent(), self.now).await?;
        reply.set_cookie(&inner.cookies.session(token.expose(), info.lasts_secs(self.now)));
        self.session_cookie_set = true;
        if let Some(old) = self.session.replace(Session { info, hash: token.hash() }) {
            inner.accounts.end_session(old.hash).await?;
        }
        self.renew_csrf(inner)
    }

    /// Gives the browser a new form token with the answer: at every sign-in and sign-out, so that a
    /// token someone planted in the browser, or saw, before is of no use after.
    fn renew_csrf(&mut self, inner: &Inner) -> Result<(), Failure> {
        self.csrf = inner.env.token().map_err(Failure::internal)?.expose().to_owned();
        self.csrf_is_new = true;
        Ok(())
    }

    /// `303` to `path`, with `notice` to say on the page it leads to.
    pub(crate) fn redirect(&mut self, inner: &Inner, path: &str, notice: Notice) -> Reply {
        let mut reply = Reply::see_other(path);
        reply.set_cookie(&inner.cookies.set(Jar::Notice, notice.slug()));
        self.notice_set = true;
        reply
    }

    /// Ends the browser's session, in the store and in the reply.
    pub(crate) async fn end_session(&mut self, inner: &Inner, reply: &mut Reply) -> Result<(), Failure> {
        if let Some(session) = self.session.take() {
            inner.accounts.end_session(session.hash).await?;
        }
        reply.set_cookie(&inner.cookies.clear(Jar::Session));
        self.session_cookie_set = true;
        self.renew_csrf(inner)
    }

    /// The reply with the cookies this request calls for.
    pub(crate) fn finish(&self, inner: &Inner, mut reply: Reply) -> Reply {
        // Every page of the dashboard may hold a form (signing in, a key's name), so a browser
        // without a form token is given one whoever it is.
        for cookie in self.kept_cookies(inner, true) {
            reply.set_cookie(&cookie);
        }
        if self.notice_sent && !self.notice_set {
            reply.set_cookie(&inner.cookies.clear(Jar::Notice));
        }
        reply
    }

    /// The cookies a page of another crate that wears the dashboard's header sets: the header's one
    /// form is a signed-in browser's sign-out button, so only such a browser is given the form token
    /// it lacks; the session is renewed or a dead one's cookie cleared, as on the dashboard's own
    /// pages (without the clearing, a browser would cost a lookup on every page it asks for). A
    /// browser without a session cookie is given nothing, so that its answer is everyone's; a notice
    /// waits for the dashboard's page it was meant for.
    pub(crate) fn header_cookies(&self, inner: &Inner) -> Vec<Cookie<'static>> {
        self.kept_cookies(inner, self.session.is_some())
    }

    /// The cookies that keep the browser's session and form token as this request found them, the
    /// one rule of the dashboard's answers and the header of the API's pages: the form token when it
    /// is new and `gives_form` (the answer shows a form that sends it); the session renewed when the
    /// lookup renewed it, or its cookie cleared when it opened nothing; neither when the handler set
    /// the session cookie itself.
    fn kept_cookies(&self, inner: &Inner, gives_form: bool) -> Vec<Cookie<'static>> {
        let mut cookies = Vec::new();
        if self.csrf_is_new && gives_form {
            cookies.push(inner.cookies.set(Jar::Csrf, &self.csrf));
        }
        if !self.session_cookie_set {
            if let Some((token, secs)) = &self.renew_session {
                cookies.push(inner.cookies.session(token, *secs));
            } else if self.stale_session {
                cookies.push(inner.cookies.clear(Jar::Session));
            }
        }
        cookies
    }
}

impl Inner {
    /// The state of a new dashboard, and the task (on the current tokio runtime, as is the mail
    /// worker) that lets the per-address counts forget addresses that are whole again; the task ends
    /// with the state.
    pub(crate) fn start(config: Config, accounts: Accounts, env: Arc<dyn Environment>) -> Result<Arc<Self>> {
        let provider = |provider, settings: &Option<_>| {
            settings
                .as_ref()
                .map(|settings| OAuthProvider::new(provider, settings, &config.public_url))
                .transpose()
        };
        let github = provider(Provider::GitHub, &config.github)?;
        let discord = provider(Provider::Discord, &config.discord)?;
        let mailer =
            Mailer::start(&config.mail, config.public_url.clone(), accounts.clone(), Arc::clone(&env))?;
        let inner = Arc::new(Self {
            cookies: Cookies::new(config.public_url.https()),
            http: HttpClient::new()?,
            sign_ins: AddressLimit::new(SIGN_INS_BURST, SIGN_INS_REFILL),
            console: OnceLock::new(),
            outbox: OnceLock::new(),
            config,
            accounts,
            env,
            mailer,
            github,
            discord,
        });
        let weak = Arc::downgrade(&inner);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(SWEEP_EVERY);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                inner.sign_ins.sweep(inner.env.now().since_epoch());
            }
        });
        Ok(inner)
    }

    pub(crate) fn provider(&self, provider: Provider) -> Option<&OAuthProvider> {
        match provider {
            Provider::GitHub => self.github.as_ref(),
            Provider::Discord => self.discord.as_ref(),
        }
    }

    /// The configured providers, as links.
    pub(crate) fn provider_links(&self) -> Vec<ProviderLink> {
        Provider::ALL
            .into_iter()
            .filter(|provider| self.provider(*provider).is_some())
            .map(|provider| ProviderLink { slug: provider.as_str(), label: provider.label() })
            .collect()
    }

    /// Queues a mail, unless the calling address asked for too many lately: then, as for an
    /// address that had its share, none is sent and nothing says so.
    pub(crate) fn mail(&self, ctx: &Ctx, request: crate::mail::Request) {
        if self.sign_ins.take(ctx.peer, ctx.now.since_epoch()).is_ok() {
            self.mailer.send(request);
        }
    }

    /// Whether mails go to the outbox directory rather than a mail server.
    pub(crate) fn mails_to_outbox(&self) -> bool {
        matches!(self.config.mail.transport, MailTransport::Outbox(_))
    }

    /// Mails the owner of an endpoint that was disabled; never waits.
    pub(crate) fn mail_webhook_disabled(&self, to: Email, url: String) {
        self.mailer.send(crate::mail::Request::WebhookDisabled { to, url });
    }
}
