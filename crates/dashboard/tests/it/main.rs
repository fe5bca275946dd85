//! The dashboard driven as a browser drives it: requests with cookies kept between them, forms sent
//! with the page's token and origin, against a real accounts store (SQLite in a temporary data dir),
//! a real SMTP conversation (`SmtpSink`) and a mock OAuth provider over HTTP (`MockProvider`). The
//! clock is the test's, so links and sessions can be made to expire.

mod hostile;
mod keys;
mod providers;
mod signin;
mod try_it;
mod visit;
mod webhooks;

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request};
use tapster_accounts::{Accounts, Location};
use tapster_dashboard::{
    Config, Dashboard, Environment, MailConfig, MailTransport, ProviderConfig, PublicUrl,
};
use tapster_domain::Timestamp;
use tapster_test_support::accounts::T0;
use tapster_test_support::{Flavour, Mail, MockProvider, SmtpSink};
use tempfile::TempDir;

/// Where the dashboard says it is; never contacted, only written into links and checked in `Origin`.
const ORIGIN: &str = "http://dashboard.test";
const HOST: &str = "dashboard.test";

/// A clock the test moves, and randomness from a counter (distinct, not secret), which a test can
/// make fail.
#[derive(Debug)]
struct TestEnv {
    now: AtomicI64,
    counter: AtomicU64,
    random_fails: AtomicBool,
}

impl TestEnv {
    fn advance(&self, seconds: i64) {
        self.now.fetch_add(seconds, Ordering::SeqCst);
    }
}

impl Environment for TestEnv {
    fn now(&self) -> Timestamp {
        Timestamp(self.now.load(Ordering::SeqCst))
    }

    fn fill_random(&self, bytes: &mut [u8]) -> std::io::Result<()> {
        if self.random_fails.load(Ordering::SeqCst) {
            return Err(std::io::Error::other("the test took the randomness away"));
        }
        for chunk in bytes.chunks_mut(8) {
            // SplitMix64 over a counter: every draw differs from every other.
            let mut z = self.counter.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::SeqCst);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

/// A dashboard with its own store, mail sink and providers.
struct Site {
    dashboard: Dashboard,
    accounts: Accounts,
    env: Arc<TestEnv>,
    mail: SmtpSink,
    github: MockProvider,
    discord: MockProvider,
    _dir: TempDir,
}

async fn site() -> Site {
    site_with_smtp(None).await
}

/// A site whose mail goes to `smtp` instead of its own sink.
async fn site_with_smtp(smtp: Option<&str>) -> Site {
    try_site_with(smtp.map(|url| MailTransport::Smtp(url.to_owned()))).await.unwrap()
}

/// A site whose mail goes through `transport` instead of to its own sink, or why the dashboard would
/// not start.
async fn try_site_with(transport: Option<MailTransport>) -> Result<Site, tapster_dashboard::Error> {
    let dir = TempDir::new().unwrap();
    let accounts = Accounts::open(&Location::DataDir(dir.path().to_owned())).await.unwrap();
    let mail = SmtpSink::start();
    let github = MockProvider::start(Flavour::GitHub, "gh-client", "gh-secret");
    let discord = MockProvider::start(Flavour::Discord, "dc-client", "dc-secret");
    let provider = |mock: &MockProvider, id: &str, secret: &str| ProviderConfig {
        client_id: id.into(),
        client_secret: secret.into(),
        authorize_url: mock.authorize_url(),
        token_url: mock.token_url(),
        api_url: mock.api_url(),
    };
    let config = Config {
        public_url: PublicUrl::parse(ORIGIN).unwrap(),
        mail: MailConfig {
            from: "Tapster <tapster@dashboard.test>".into(),
            transport: transport.unwrap_or_else(|| MailTransport::Smtp(mail.url())),
        },
        github: Some(provider(&github, "gh-client", "gh-secret")),
        discord: Some(provider(&discord, "dc-client", "dc-secret")),
        webhooks_allow_private: true,
    };
    let env = Arc::new(TestEnv {
        now: AtomicI64::new(T0.0),
        counter: AtomicU64::new(1),
        random_fails: AtomicBool::new(false),
    });
    let dashboard = Dashboard::new(config, accounts.clone(), Arc::clone(&env) as Arc<dyn Environment>)?;
    Ok(Site { dashboard, accounts, env, mail, github, discord, _dir: dir })
}

impl Site {
    fn browser(&self) -> Browser<'_> {
        self.browser_at("198.51.100.7")
    }

    fn browser_at(&self, peer: &str) -> Browser<'_> {
        Browser { site: self, cookies: BTreeMap::new(), peer: peer.parse().unwrap() }
    }

    /// Waits until `count` mails have arrived in all; returns them all.
    async fn mails(&self, count: usize) -> Vec<Mail> {
        self.mails_within(count, Duration::from_secs(10)).await
    }

    /// Every mail that arrived by the time `count` had, or `timeout` passed.
    async fn mails_within(&self, count: usize, timeout: Duration) -> Vec<Mail> {
        let sink = self.mail.clone();
        tokio::task::spawn_blocking(move || sink.wait_for(count, timeout)).await.unwrap()
    }
}

/// One answer, its body as text.
#[derive(Debug)]
struct Page {
    status: u16,
    headers: HeaderMap,
    body: String,
}

impl Page {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default()
    }

    fn location(&self) -> &str {
        self.header("location")
    }

    /// Where a form's answer sends the browser, with the notice it leaves for that page:
    /// `/account (welcome)`, or just `/account`.
    fn sent_to(&self) -> String {
        let notice = self.headers.get_all("set-cookie").iter().find_map(|cookie| {
            let value = cookie.to_str().ok()?.strip_prefix("tapster_notice=")?.split(';').next()?;
            (!value.is_empty()).then(|| value.to_owned())
        });
        match notice {
            Some(notice) => format!("{} ({notice})", self.location()),
            None => self.location().to_owned(),
        }
    }

    /// The value of the first hidden field `name` of the page.
    fn field(&self, name: &str) -> String {
        let marker = format!("name=\"{name}\" value=\"");
        let start = self.body.find(&marker).unwrap_or_else(|| panic!("no field {name} in {}", self.body))
            + marker.len();
        self.body[start..].split('"').next().unwrap().to_owned()
    }

    fn csrf(&self) -> String {
        self.field("csrf")
    }

    fn contains(&self, text: &str) -> bool {
        self.body.contains(text)
    }

    /// The key shown once on the page that creates it.
    fn new_key(&self) -> String {
        let start = self.body.find("<code id=\"new-key\">").expect("no new key on the page") + 19;
        self.body[start..].split('<').next().unwrap().to_owned()
    }
}

/// A browser: it keeps cookies as they are set, sends them back, and says where its forms come from.
struct Browser<'a> {
    site: &'a Site,
    cookies: BTreeMap<String, String>,
    peer: IpAddr,
}

impl Browser<'_> {
    async fn get(&mut self, path: &str) -> Page {
        self.send(Method::GET, path, &[], Vec::new()).await
    }

    /// Sends a form from one of the dashboard's own pages.
    async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        self.post_with(path, fields, &[("origin", ORIGIN)]).await
    }

    async fn post_with(&mut self, path: &str, fields: &[(&str, &str)], headers: &[(&str, &str)]) -> Page {
        let body = form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish();
        self.send(Method::POST, path, headers, body.into_bytes()).await
    }

    /// The form token this browser's forms hold.
    fn csrf(&self) -> String {
        self.cookies.get("tapster_csrf").cloned().expect("no form token yet: load a page first")
    }

    fn has_session(&self) -> bool {
        self.cookies.contains_key("tapster_session")
    }

    async fn send(&mut self, method: Method, path: &str, headers: &[(&str, &str)], body: Vec<u8>) -> Page {
        let mut request = Request::builder().method(method).uri(path);
        if !self.cookies.is_empty() {
            let cookies: Vec<String> = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
            request = request.header("cookie", cookies.join("; "));
        }
        // A browser names the host it asked for.
        if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
            request = request.header("host", HOST);
        }
        for (name, value) in headers {
            request = request.header(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        let response = self.site.dashboard.answer(request.body(Bytes::from(body)).unwrap(), self.peer).await;
        let (head, body) = response.into_parts();
        for cookie in head.headers.get_all("set-cookie") {
            let cookie = cookie.to_str().unwrap();
            let (pair, attributes) = cookie.split_once(';').unwrap_or((cookie, ""));
            let (name, value) = pair.split_once('=').unwrap();
            if attributes.contains("Max-Age=0") {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        use http_body_util::BodyExt;
        let body = body.collect().await.unwrap().to_bytes();
        Page {
            status: head.status.as_u16(),
            headers: head.headers,
            body: String::from_utf8(body.to_vec()).unwrap(),
        }
    }

    /// Signs in by mail as `email` (the link arrives as mail number `mail`, counted from 1).
    async fn sign_in(&mut self, email: &str, mail: usize) -> Page {
        // Signed in already, the sign-in page sends the browser to its keys: any page sets the token.
        self.get("/signin").await;
        let sent = self.post("/signin", &[("csrf", &self.csrf()), ("email", email)]).await;
        assert_eq!(sent.status, 200, "{}", sent.body);
        let link = link(&self.site.mails(mail).await[mail - 1]);
        let confirm = self.get(&link).await;
        assert_eq!(confirm.status, 200, "{}", confirm.body);
        let done = self
            .post("/signin/confirm", &[("csrf", &confirm.csrf()), ("token", &confirm.field("token"))])
            .await;
        assert_eq!(done.status, 303, "{}", done.body);
        done
    }

    /// Signs in and creates a key; returns it.
    async fn create_key(&mut self, name: &str) -> String {
        let account = self.get("/account").await;
        let created = self
            .post("/account/keys", &[("csrf", &account.csrf()), ("name", name), ("expires_in_days", "")])
            .await;
        assert_eq!(created.status, 200, "{}", created.body);
        created.new_key()
    }
}

/// The sign-in link of a mail, as a path of the dashboard.
fn link(mail: &Mail) -> String {
    let url = mail.line_with("/signin/confirm?token=").unwrap_or_else(|| panic!("no link in {}", mail.data));
    url.strip_prefix(ORIGIN).unwrap_or_else(|| panic!("{url} is not on {ORIGIN}")).to_owned()
}
