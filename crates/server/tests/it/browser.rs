//! The dashboard in a real browser: Debian's Chromium, headless, driven over WebDriver (`chromedriver`
//! and `fantoccini`) against the `tapster` binary, with the sign-in providers mocked and mail going
//! to the outbox, as it does on a newcomer's machine. A person's whole way to a key: sign in by mail,
//! open the link, confirm, create a key, read it off the page, call the API with it, revoke it (and
//! see it refused within a second); sign in with GitHub; sign in with Discord with an unverified
//! address and be refused keys until it is confirmed; a key named like a script shown as text; a
//! webhook endpoint added, its secret read off the page once, a test event sent to a receiver and
//! its delivery listed, the secret rotated.
//! Each page is saved as a screenshot under `target/tmp/screenshots/`, the pages' icons among them,
//! and checked by axe-core against the WCAG 2.1 A and AA rules, signed out and signed in; the test
//! fails with every violation found, page by page (rule, impact, elements, what to do). The one
//! requirement axe-core has no rule for, a focus the keyboard can see, is checked by pressing Tab:
//! the skip link first, then a link of the header, and a form's button, each drawn with an outline.
//!
//! axe-core is pinned in `tests/axe/package.json` and its lock, and installed by `npm ci` under
//! `target/tmp/axe-node/` on the first run (and again when the pinned files change), as the project's
//! other npm tools are; npm gives up on the registry within seconds, so a machine offline fails fast.
//! Without Chromium and its driver the test is skipped; without npm or axe-core only the audit is,
//! and the journeys still run. Either says SKIPPED in `cargo test`'s output, so that `cargo test`
//! works on any machine; `.ci/run` installs them and sets `TAPSTER_TEST_REQUIRE_SERVICES=1`, which
//! makes their absence a failure, as for the other services.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use tapster_test_support::{Behaviour, Flavour, MockProvider, User};

use crate::webhooks::Receiver;
use crate::{get_with_key, mini, serve_with};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Where the screenshots go: under `target/`, kept by CI.
fn screenshots() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether the browser is here; its absence fails the test where the services are required, as
/// for every other service a test needs ([`tapster_test_support::services`]).
fn browser_available() -> bool {
    let present = Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists();
    if !present {
        tapster_test_support::services::missing(
            "Chromium and its driver",
            &format!("{CHROMIUM} and {CHROMEDRIVER}"),
            "not installed (apt-get install chromium chromium-driver; .ci/run installs them)",
        );
    }
    present
}

/// The WCAG rules axe-core checks every page against: levels A and AA of WCAG 2.0 and of 2.1.
const WCAG_TAGS: [&str; 4] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/// How long npm waits for the registry per request, in milliseconds, retrying none: an offline
/// machine fails in seconds rather than after npm's five minutes and two retries.
const NPM_FETCH_TIMEOUT_MS: u32 = 20_000;

/// The text of the pinned axe-core's script, installed first when it is not (or another version
/// is); `None`, said as for a missing service (the audit alone is skipped), when npm is not here or
/// cannot install it.
fn axe_script() -> Option<String> {
    let pinned = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/axe");
    let installed = Path::new(env!("CARGO_TARGET_TMPDIR")).join("axe-node");
    let script = installed.join("node_modules/axe-core/axe.min.js");
    let holds_the_pinned = |dir: &Path| {
        ["package.json", "package-lock.json"].iter().all(|name| {
            let wanted = std::fs::read(pinned.join(name)).unwrap();
            std::fs::read(dir.join(name)).is_ok_and(|held| held == wanted)
        })
    };
    if !(script.exists() && holds_the_pinned(&installed)) {
        // Installed beside and then moved into place whole, so that a run stopped halfway leaves
        // nothing that looks installed.
        let staging = installed.with_extension(std::process::id().to_string());
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging).unwrap();
        for name in ["package.json", "package-lock.json"] {
            std::fs::copy(pinned.join(name), staging.join(name)).unwrap();
        }
        // `--prefer-offline`: a package npm's cache holds is not asked of the registry again.
        let npm = Command::new("npm")
            .args([
                "ci",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--prefer-offline",
                "--fetch-retries=0",
            ])
            .arg(format!("--fetch-timeout={NPM_FETCH_TIMEOUT_MS}"))
            .current_dir(&staging)
            .output();
        let failed = match npm {
            Err(error) => {
                Some(format!("npm does not run ({error}): apt-get install npm; .ci/run installs it"))
            }
            Ok(out) if !out.status.success() => {
                Some(format!("npm ci failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
            }
            Ok(_) => None,
        };
        if let Some(why) = failed {
            let _ = std::fs::remove_dir_all(&staging);
            tapster_test_support::services::missing(
                "axe-core (the accessibility audit only: the journeys run without it)",
                &installed.display().to_string(),
                &why,
            );
            return None;
        }
        let _ = std::fs::remove_dir_all(&installed);
        std::fs::rename(&staging, &installed).unwrap();
    }
    Some(std::fs::read_to_string(script).unwrap())
}

/// One violation of a rule, as axe-core reports it and the test prints it.
#[derive(Debug, serde::Deserialize)]
struct Violation {
    id: String,
    impact: Option<String>,
    help: String,
    #[serde(rename = "helpUrl")]
    help_url: String,
    /// The CSS selectors of the elements that break it.
    targets: Vec<String>,
}

/// Runs axe-core (already injected) on the page with the rules of `arguments[0]` and hands back its
/// violations with each element's selector; a failure of axe itself comes back as `{error}`.
const AUDIT: &str = r#"
const done = arguments[arguments.length - 1];
axe.run(document, { runOnly: { type: "tag", values: arguments[0] }, resultTypes: ["violations"] })
  .then((results) => done(results.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
    targets: v.nodes.map((node) => node.target.join(" ")),
  }))))
  .catch((error) => done({ error: String(error) }));
"#;

/// Where the keyboard's focus is, and how the page draws it.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Focus {
    tag: String,
    text: String,
    /// Whether the browser takes the focus as one to show (`:focus-visible`), as it does for Tab.
    focus_visible: bool,
    outline_style: String,
    /// In CSS pixels.
    outline_width: f64,
    /// Where the element is in the window, in CSS pixels: seen only when inside it.
    top: f64,
    bottom: f64,
}

/// Describes `document.activeElement` as [`Focus`].
const FOCUSED: &str = r#"
const element = document.activeElement;
const style = getComputedStyle(element);
const box = element.getBoundingClientRect();
return {
  tag: element.tagName.toLowerCase(), text: element.textContent.trim(),
  focusVisible: element.matches(":focus-visible"),
  outlineStyle: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth) || 0,
  top: box.top, bottom: box.bottom,
};
"#;

/// `chromedriver` on a free port, stopped when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start() -> Self {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting chromedriver");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { child, url: format!("http://127.0.0.1:{port}") }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium with a profile of its own, as the machine's notes say to start it as root.
async fn browser(driver: &Driver, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        "--no-first-run",
        "--window-size=1280,1000",
        &format!("--user-data-dir={}", profile.display()),
    ];
    let capabilities = json!({"goog:chromeOptions": {"binary": CHROMIUM, "args": args}});
    let serde_json::Value::Object(capabilities) = capabilities else { unreachable!() };
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&driver.url)
        .await
        .expect("a Chromium session")
}

/// The browser and what it looks at.
struct Session {
    client: Client,
    addr: SocketAddr,
    outbox: PathBuf,
    /// axe-core's script, injected into each page it checks; `None` when it could not be installed
    /// (and the audit is skipped, as said when the test began).
    axe: Option<String>,
    /// What axe-core found on the pages so far, a line each.
    violations: Mutex<Vec<String>>,
}

impl Session {
    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    async fn goto(&self, path: &str) {
        self.client.goto(&self.url(path)).await.unwrap();
    }

    async fn click(&self, css: &str) {
        self.client
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css}: {e}"))
            .click()
            .await
            .unwrap();
    }

    async fn type_into(&self, css: &str, text: &str) {
        let field = self.client.find(Locator::Css(css)).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(text).await.unwrap();
    }

    async fn text(&self, css: &str) -> String {
        let element =
            self.client.wait().at_most(Duration::from_secs(15)).for_element(Locator::Css(css)).await;
        element.unwrap_or_else(|e| panic!("{css}: {e}")).text().await.unwrap()
    }

    /// Waits until the page's heading starts with `start`: a form's answer has been shown (its
    /// address may be the form's page's own, so the address cannot tell).
    async fn until_heading(&self, start: &str) {
        self.until_text("h1", start).await;
    }

    /// Waits until the first element `css` finds holds text that starts with `start`.
    async fn until_text(&self, css: &str, start: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let text = match self.client.find(Locator::Css(css)).await {
                Ok(element) => element.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            if text.starts_with(start) {
                return;
            }
            assert!(Instant::now() < deadline, "{css} holds {text:?}, not {start:?}…");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The natural widths of the images `css` finds, once every one of them has loaded (each
    /// scrolled into view, as a lazy image waits for); fails when one does not load.
    async fn loaded_images(&self, css: &str) -> Vec<u64> {
        let script = "return Array.from(document.querySelectorAll(arguments[0])).map(function (image) { \
                      image.scrollIntoView(); return image.complete ? image.naturalWidth : -1; });";
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let found = self.client.execute(script, vec![css.into()]).await.unwrap();
            let widths: Vec<i64> = serde_json::from_value(found).unwrap();
            if !widths.is_empty() && widths.iter().all(|w| *w > 0) {
                return widths.into_iter().map(i64::unsigned_abs).collect();
            }
            assert!(Instant::now() < deadline, "{css}: images not loaded, natural widths {widths:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn has(&self, css: &str) -> bool {
        !self.client.find_all(Locator::Css(css)).await.unwrap().is_empty()
    }

    /// Waits until the browser shows the page at `path`.
    async fn arrive(&self, path: &str) {
        let expected = self.url(path);
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let at = self.client.current_url().await.unwrap().to_string();
            if at == expected {
                return;
            }
            assert!(Instant::now() < deadline, "the browser is at {at}, not at {expected}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
    }

    /// The page shown, named `name`: saved as a screenshot and checked by axe-core.
    async fn seen(&self, name: &str) {
        self.screenshot(name).await;
        self.audit(name).await;
    }

    /// Checks the page shown with axe-core against [`WCAG_TAGS`] and keeps what it finds, a line per
    /// rule broken, to fail the test with at its end.
    async fn audit(&self, name: &str) {
        let Some(axe) = &self.axe else { return };
        let present = self.client.execute("return typeof window.axe === 'object';", vec![]).await.unwrap();
        if present != serde_json::Value::Bool(true) {
            self.client.execute(&format!("{axe}\nreturn true;"), vec![]).await.unwrap();
        }
        let found = self.client.execute_async(AUDIT, vec![json!(WCAG_TAGS)]).await.unwrap();
        let violations: Vec<Violation> = serde_json::from_value(found.clone())
            .unwrap_or_else(|_| panic!("axe-core did not run on {name}: {found}"));
        let mut noted = self.violations.lock().unwrap();
        for v in violations {
            let impact = v.impact.as_deref().unwrap_or("unrated");
            let mut targets = v.targets.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
            if v.targets.len() > 5 {
                targets.push_str(&format!(" and {} more", v.targets.len() - 5));
            }
            noted.push(format!("{name}: {} ({impact}): {} at {targets} ({})", v.id, v.help, v.help_url));
        }
    }

    /// Presses Tab where the keyboard's focus is, and tells where it went and how it is drawn.
    async fn tab(&self) -> Focus {
        self.client.active_element().await.unwrap().send_keys(&Key::Tab).await.unwrap();
        let found = self.client.execute(FOCUSED, vec![]).await.unwrap();
        serde_json::from_value(found.clone()).unwrap_or_else(|e| panic!("{e}: {found}"))
    }

    /// The link of the `n`th mail in the outbox (counted from 1), waiting for it to be written.
    async fn mailed_link(&self, n: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let mut mails: Vec<PathBuf> = std::fs::read_dir(&self.outbox)
                .map(|dir| {
                    dir.flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                        .collect()
                })
                .unwrap_or_default();
            mails.sort_by_key(|path| std::fs::metadata(path).and_then(|m| m.modified()).unwrap());
            if let Some(mail) = mails.get(n - 1) {
                let text = std::fs::read_to_string(mail).unwrap();
                let line = text.lines().find(|line| line.contains("/signin/confirm?token=")).unwrap();
                return line.trim().to_owned();
            }
            assert!(Instant::now() < deadline, "no mail number {n} in {}", self.outbox.display());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until the browser shows the page at `path`, saying what the form that led there did.
    async fn arrive_saying(&self, path: &str, notice: &str) {
        self.arrive(path).await;
        // A form may lead back to the page it was on, so the address alone cannot tell.
        self.until_text(".notice", notice).await;
    }

    async fn sign_out(&self) {
        self.click("header form button").await;
        self.arrive_saying("/", "You are signed out.").await;
    }
}

#[test]
fn a_newcomer_gets_a_key_in_a_browser_and_providers_sign_in() {
    if !browser_available() {
        return;
    }
    let axe = axe_script();
    let github = MockProvider::start(Flavour::GitHub, "gh-app", "gh-secret");
    github.set(Behaviour::Consent(User {
        id: 583_231,
        login: "marta-gh".into(),
        email: Some("marta@example.org".into()),
        verified: true,
    }));
    let discord = MockProvider::start(Flavour::Discord, "dc-app", "dc-secret");
    discord.set(Behaviour::Consent(User {
        id: 80_351_110_224_678_912,
        login: "dana".into(),
        email: Some("dana@example.org".into()),
        verified: false,
    }));
    let data_dir = tempfile::TempDir::new().unwrap();
    let (gh_authorize, gh_token, gh_api) = (github.authorize_url(), github.token_url(), github.api_url());
    let (dc_authorize, dc_token, dc_api) = (discord.authorize_url(), discord.token_url(), discord.api_url());
    let fixtures = mini();
    let server = serve_with(
        data_dir.path(),
        &[
            "--fixtures",
            fixtures.to_str().unwrap(),
            "--github-client-id",
            "gh-app",
            "--github-client-secret",
            "gh-secret",
            "--github-authorize-url",
            &gh_authorize,
            "--github-token-url",
            &gh_token,
            "--github-api-url",
            &gh_api,
            "--discord-client-id",
            "dc-app",
            "--discord-client-secret",
            "dc-secret",
            "--discord-authorize-url",
            &dc_authorize,
            "--discord-token-url",
            &dc_token,
            "--discord-api-url",
            &dc_api,
            "--webhooks-allow-private",
        ],
    );
    let receiver = Receiver::start(&[]);
    let profile = tempfile::TempDir::new().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let driver = Driver::start();
        let client = browser(&driver, profile.path()).await;
        let session = Session {
            client: client.clone(),
            addr: server.addr,
            outbox: data_dir.path().join("outbox"),
            axe,
            violations: Mutex::new(Vec::new()),
        };
        // On a task of its own, so that a failed step still leaves the last page's screenshot and
        // a closed browser behind.
        let outcome = tokio::spawn(async move { journeys(&session, &receiver).await }).await;
        if let Ok(png) = client.screenshot().await {
            std::fs::write(screenshots().join("last.png"), png).unwrap();
        }
        let _ = client.close().await;
        drop(driver);
        if let Err(failure) = outcome {
            std::panic::resume_unwind(failure.into_panic());
        }
    });
}

async fn journeys(s: &Session, receiver: &Receiver) {
    the_keyboards_focus_is_visible(s).await;
    pictures_on_the_pages(s).await;
    by_mail_to_a_key_and_back(s).await;
    a_webhook_tested_and_rotated(s, receiver).await;
    s.sign_out().await;
    with_github(s).await;
    s.sign_out().await;
    with_discord_unverified(s).await;
    let violations = s.violations.lock().unwrap();
    assert!(
        violations.is_empty(),
        "axe-core found {} violations of WCAG 2.1 A and AA rules:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

/// A focus the keyboard can see, which WCAG 2.1 asks for (2.4.7) and axe-core has no rule for: Tab
/// from a page's start reaches the skip link first, out of sight until then and shown once it has
/// the focus, then the header's links; Tab from a form's field reaches its button. Each is drawn
/// with the site's outline, wider than the 1 px ring the browser draws by itself.
async fn the_keyboards_focus_is_visible(s: &Session) {
    let drawn = |focus: &Focus, what: &str| {
        assert!(focus.focus_visible, "{what}: the focus is not shown: {focus:?}");
        assert_ne!(focus.outline_style, "none", "{what}: no outline: {focus:?}");
        assert!(focus.outline_width >= 2.0, "{what}: the outline is not the site's: {focus:?}");
    };
    s.goto("/docs").await;
    let hidden = "const box = document.querySelector('a.skip').getBoundingClientRect(); return box.bottom;";
    let bottom = s.client.execute(hidden, vec![]).await.unwrap().as_f64().unwrap();
    assert!(bottom <= 0.0, "the skip link is in sight before it has the focus: bottom at {bottom}");
    let skip = s.tab().await;
    assert_eq!((skip.tag.as_str(), skip.text.as_str()), ("a", "Skip to content"), "{skip:?}");
    assert!(skip.top >= 0.0 && skip.bottom > skip.top, "the skip link stays out of sight: {skip:?}");
    drawn(&skip, "the skip link");
    s.screenshot("focus-skip-link").await;
    let brand = s.tab().await;
    assert_eq!(brand.text, "Tapster", "{brand:?}");
    let link = s.tab().await;
    assert_eq!((link.tag.as_str(), link.text.as_str()), ("a", "API reference"), "{link:?}");
    drawn(&link, "a link of the header");
    s.screenshot("focus-header-link").await;

    s.goto("/signin").await;
    s.client.execute("document.querySelector('#email').focus();", vec![]).await.unwrap();
    let button = s.tab().await;
    assert_eq!(button.tag, "button", "{button:?}");
    drawn(&button, "the sign-in form's button");
    s.screenshot("focus-button").await;
}

/// The records' icons, as a visitor sees them: the changelog shows those of what each version
/// added, and the reference shows an item's icon beside its example answer; every one loads (the
/// pages' `img-src` allows them) at the size the page asks for.
async fn pictures_on_the_pages(s: &Session) {
    s.goto("/changelog").await;
    let widths = s.loaded_images(".added img").await;
    assert!(!widths.is_empty() && widths.iter().all(|w| *w == 32), "{widths:?}");
    let nav = s.text("header.top nav").await;
    assert!(nav.contains("Sign in") && !nav.contains("Your keys"), "{nav}");
    s.seen("changelog-icons").await;

    s.goto("/docs#getItemsByKey").await;
    let open = "document.querySelector('#getItemsByKey .pictures').closest('details').open = true";
    s.client.execute(open, vec![]).await.unwrap();
    let widths = s.loaded_images("#getItemsByKey .pictures img").await;
    assert_eq!(widths, [64], "the example's item, at 64 px");
    s.seen("docs-example-icon").await;
}

async fn by_mail_to_a_key_and_back(s: &Session) {
    // A page that went wrong, to a visitor who is not signed in.
    s.goto("/account/nothing").await;
    s.until_heading("Not found").await;
    s.seen("problem-signed-out").await;

    s.goto("/").await;
    s.seen("landing").await;
    s.click("main a.button").await;
    s.arrive("/signin").await;
    s.seen("signin").await;
    s.type_into("#email", "marta@example.org").await;
    s.click("form.card button[type=submit]").await;
    s.until_heading("Check your mail").await;
    s.seen("signin-sent").await;

    let link = s.mailed_link(1).await;
    s.client.goto(&link).await.unwrap();
    s.until_heading("Finish signing in").await;
    assert!(s.text("main").await.contains("sign in as marta@example.org"));
    s.seen("signin-confirm").await;
    s.click("#confirm").await;
    s.arrive_saying("/account", "Welcome! Your account is ready.").await;
    s.seen("account-new").await;

    s.type_into("#key-name", "wiki bot").await;
    s.client.find(Locator::Css("#key-expiry")).await.unwrap().select_by_value("90").await.unwrap();
    s.click("form[action='/account/keys'] button").await;
    s.until_heading("Your new key “wiki bot”").await;
    let key = s.text("#new-key").await;
    assert!(key.starts_with("tap_") && key.len() == 40, "{key}");
    assert!(s.text(".warning").await.contains("shown only this once"));
    s.seen("key-created").await;

    let answer = get_with_key(s.addr, "/v1/versions", &key);
    assert_eq!(answer.status, 200, "{}", answer.text());

    // A key named like a script is shown as text, and runs nothing.
    s.goto("/account").await;
    let name = "<script>alert(1)</script>";
    s.type_into("#key-name", name).await;
    s.click("form[action='/account/keys'] button").await;
    s.until_heading(&format!("Your new key “{name}”")).await;
    assert!(s.client.get_alert_text().await.is_err(), "an alert opened");
    s.goto("/account").await;
    assert!(s.client.get_alert_text().await.is_err(), "an alert opened");
    let names: Vec<String> = {
        let mut names = Vec::new();
        for cell in s.client.find_all(Locator::Css("#keys td.name")).await.unwrap() {
            names.push(cell.text().await.unwrap());
        }
        names
    };
    assert_eq!(names, [name, "wiki bot"]);
    s.seen("account").await;
    s.client.set_window_size(390, 844).await.unwrap();
    s.seen("account-phone").await;
    s.client.set_window_size(1280, 1000).await.unwrap();

    // The API reference: signed in, each keyed route's form shows, filled with its example request,
    // and sends it as one of the keys through the dashboard.
    s.goto("/docs").await;
    let form = "form.try[data-path='/v1/items/{key}']";
    s.until_text(&format!("{form} legend"), "Try it").await;
    assert!(s.text(".try-note").await.is_empty(), "the sign-in note stays shown");
    s.click(&format!("{form} button")).await;
    s.until_text(&format!("{form} output"), "GET /v1/items/pale-ale?expand=recipes%2Cshops%2Cgroups\n200")
        .await;
    let answer = s.text(&format!("{form} output")).await;
    assert!(answer.contains("RateLimit: \"") && answer.contains("\"slug\": \"pale-ale\""), "{answer}");
    s.seen("docs-try").await;
    // The API's pages wear the header of who is signed in, as the dashboard's do.
    assert!(s.text("header.top nav").await.contains("Sign out"));
    s.goto("/changelog").await;
    let nav = s.text("header.top nav").await;
    assert!(nav.contains("Your keys") && nav.contains("Sign out") && !nav.contains("Sign in"), "{nav}");
    s.seen("changelog-signed-in").await;
    s.goto("/account").await;

    // Revoke "wiki bot" (the second row): a confirmation first, then 401 within a second.
    let revoke = s.client.find_all(Locator::Css("#keys a[href$='/revoke']")).await.unwrap();
    revoke[1].click().await.unwrap();
    s.until_heading("Revoke “wiki bot”").await;
    s.seen("revoke").await;
    assert_eq!(get_with_key(s.addr, "/v1/versions", &key).status, 200, "the confirmation page revoked it");
    s.click("button.danger").await;
    let revoked = Instant::now();
    s.arrive_saying("/account", "The key is revoked: programs that send it now get 401.").await;
    loop {
        let status = get_with_key(s.addr, "/v1/versions", &key).status;
        if status == 401 {
            break;
        }
        assert!(revoked.elapsed() < Duration::from_secs(1), "still {status} after {:?}", revoked.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A webhook endpoint on a receiver of this machine: its secret shown once, a test event sent and
/// signed with it, its delivery listed, and the secret rotated and shown once more.
async fn a_webhook_tested_and_rotated(s: &Session, receiver: &Receiver) {
    s.goto("/account").await;
    s.click("header a[href='/account/webhooks']").await;
    s.arrive("/account/webhooks").await;
    s.type_into("#webhook-url", &receiver.url("/tapster")).await;
    s.type_into("#webhook-description", "wiki import").await;
    s.click("form[action='/account/webhooks'] button[type=submit]").await;
    s.until_heading("Your new endpoint").await;
    let secret = s.text("#new-secret").await;
    assert!(secret.starts_with("whsec_"), "{secret}");
    s.seen("webhook-created").await;

    s.click("main a.button").await;
    s.arrive("/account/webhooks").await;
    assert!(!s.has("#new-secret").await, "the secret is shown once");
    s.click(".endpoint form[action$='/test'] button").await;
    s.arrive_saying("/account/webhooks", "A test event is on its way").await;
    let deadline = Instant::now() + Duration::from_secs(15);
    let test = loop {
        if let Some(test) = receiver.received().into_iter().find(|r| r.json()["type"] == "webhook.test") {
            break test;
        }
        assert!(Instant::now() < deadline, "no test event: {:?}", receiver.received());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let headers = tapster_webhooks::SignedHeaders {
        id: test.header("webhook-id"),
        timestamp: test.header("webhook-timestamp"),
        signature: test.header("webhook-signature"),
    };
    let key = tapster_webhooks::Secret::parse(&secret).unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    tapster_webhooks::verify(&key, &headers, &test.body, now, Duration::from_secs(300))
        .unwrap_or_else(|error| panic!("the test event's signature: {error}"));
    assert_eq!(test.json()["data"]["endpoint"], "wiki import");

    // Its delivery shows in the list once the page is loaded again.
    loop {
        s.goto("/account/webhooks").await;
        if s.has("table.deliveries tr.delivered").await {
            break;
        }
        assert!(Instant::now() < deadline, "no delivery listed");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(s.text("table.deliveries tr.delivered").await.contains("webhook.test"));
    s.seen("webhook-deliveries").await;

    s.click(".endpoint form[action$='/rotate'] button").await;
    s.arrive_saying("/account/webhooks", "The endpoint has a new secret.").await;
    let rotated = s.text("#new-secret").await;
    assert!(rotated.starts_with("whsec_") && rotated != secret, "{rotated}");
    s.seen("webhook-rotated").await;
    s.goto("/account/webhooks").await;
    assert!(!s.has("#new-secret").await, "a rotated secret is shown once");
}

async fn with_github(s: &Session) {
    s.goto("/signin").await;
    s.click("a[href='/auth/github']").await;
    s.arrive("/account").await;
    let methods = s.text("main").await;
    assert!(methods.contains("GitHub: marta-gh"), "{methods}");
    assert!(
        methods.contains("E-mail: marta@example.org (confirmed)"),
        "the verified address joined the mail account"
    );
    s.seen("account-github").await;

    // The two pages a person meets more rarely: the deletion's confirmation, and a failure.
    s.goto("/account/delete").await;
    s.until_heading("Delete the account marta@example.org?").await;
    s.seen("delete").await;
    s.click("a.button.secondary").await;
    s.arrive("/account").await;
    s.goto("/account/keys/999999/revoke").await;
    s.until_heading("That did not work").await;
    assert!(s.text("main").await.contains("Status 404."));
    s.seen("problem").await;
}

async fn with_discord_unverified(s: &Session) {
    s.goto("/signin").await;
    s.click("a[href='/auth/discord']").await;
    s.arrive_saying("/account", "Welcome! Your account is ready.").await;
    assert!(s.has("#create-refused").await, "an unconfirmed account is offered no key");
    assert!(!s.has("#key-name").await);
    s.seen("account-unconfirmed").await;

    // The confirmation form holds the address Discord gave; the mail is the second in the outbox.
    s.click("form[action='/account/email'] button").await;
    s.arrive_saying("/account", "A confirmation link is on its way.").await;
    let link = s.mailed_link(2).await;
    s.client.goto(&link).await.unwrap();
    s.until_heading("Confirm your address").await;
    s.click("#confirm").await;
    s.arrive_saying("/account", "Your address is confirmed: you can create keys now.").await;
    assert!(s.has("#key-name").await);
    s.type_into("#key-name", "discord bot").await;
    s.click("form[action='/account/keys'] button").await;
    s.until_heading("Your new key").await;
    let key = s.text("#new-key").await;
    assert_eq!(get_with_key(s.addr, "/v1/versions", &key).status, 200);
}
