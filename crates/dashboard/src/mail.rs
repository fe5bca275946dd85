//! Sign-in and confirmation mails, and the notice that a webhook endpoint was disabled, made and
//! sent off the request path: a request only queues the
//! address, so the page it answers is the same, in the same time, whether or not the address has an
//! account, has had its share of mails, or the mail server is slow. A worker draws the link's token,
//! stores its hash (the accounts store refuses past three mails per address per 15 minutes) and
//! sends the mail through SMTP, or writes it to the outbox directory and logs its link. The outbox
//! and its mails, which hold sign-in links, are their owner's alone (modes `0700` and `0600`),
//! whatever the umask.

use std::fs::{DirBuilder, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Body, Mailbox};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use tapster_accounts::{AccountId, Accounts, Issued, TOKEN_LIFETIME_SECS};
use tapster_domain::Email;
use tokio::sync::mpsc;

use crate::config::{MailConfig, MailTransport, PublicUrl, check_smtp_url};
use crate::env::{Environment, Secrets};
use crate::{Error, Result};

/// Mails waiting to be made at most; past that, requests for more are dropped (and logged).
const QUEUE: usize = 1024;
/// How long one SMTP delivery may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// A mail to send.
#[derive(Debug)]
pub(crate) enum Request {
    /// A one-time link someone asked for.
    Link {
        to: Email,
        /// Set when a signed-in account asked to confirm `to`; otherwise the link signs in.
        confirming: Option<AccountId>,
    },
    /// The owner's webhook endpoint at `url` was disabled after failing for days.
    WebhookDisabled { to: Email, url: String },
}

impl Request {
    fn to(&self) -> &Email {
        match self {
            Self::Link { to, .. } | Self::WebhookDisabled { to, .. } => to,
        }
    }
}

/// The queue of mails to send.
#[derive(Debug, Clone)]
pub(crate) struct Mailer {
    queue: mpsc::Sender<Request>,
}

impl Mailer {
    /// Starts the worker that makes and sends the mails (on the current tokio runtime).
    pub(crate) fn start(
        config: &MailConfig,
        public_url: PublicUrl,
        accounts: Accounts,
        env: Arc<dyn Environment>,
    ) -> Result<Self> {
        let from: Mailbox = config.from.parse().map_err(|e: lettre::address::AddressError| {
            Error::MailFrom { value: config.from.clone(), reason: e.to_string() }
        })?;
        let transport = match &config.transport {
            MailTransport::Outbox(dir) => {
                // An outbox left from before, with the mails in it, may be open to others: it is
                // narrowed now rather than at the next mail. (A new one is made with the first mail.)
                if dir.exists()
                    && let Err(error) = owner_only_dir(dir)
                {
                    tracing::error!(
                        target: "tapster::dashboard",
                        dir = %dir.display(),
                        error = %error,
                        "the outbox could not be made its owner's alone"
                    );
                }
                Transport::Outbox { dir: dir.clone(), written: AtomicU64::new(0) }
            }
            MailTransport::Smtp(url) => {
                check_smtp_url(url)?;
                Transport::Smtp(
                    AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                        .map_err(|e| Error::SmtpUrl(e.to_string()))?
                        .timeout(Some(SMTP_TIMEOUT))
                        .build(),
                )
            }
        };
        let (queue, requests) = mpsc::channel(QUEUE);
        let worker = Worker { from, transport, public_url, accounts, env };
        tokio::spawn(worker.run(requests));
        Ok(Self { queue })
    }

    /// Queues a mail; never waits.
    pub(crate) fn send(&self, request: Request) {
        if self.queue.try_send(request).is_err() {
            tracing::warn!(target: "tapster::dashboard", "the mail queue is full: a mail was dropped");
        }
    }
}

#[derive(Debug)]
enum Transport {
    Outbox { dir: PathBuf, written: AtomicU64 },
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
}

#[derive(Debug)]
struct Worker {
    from: Mailbox,
    transport: Transport,
    public_url: PublicUrl,
    accounts: Accounts,
    env: Arc<dyn Environment>,
}

impl Worker {
    async fn run(self, mut requests: mpsc::Receiver<Request>) {
        while let Some(request) = requests.recv().await {
            if let Err(error) = self.handle(&request).await {
                tracing::error!(target: "tapster::dashboard", error = %error, "a mail was not sent");
            }
        }
    }

    async fn handle(&self, request: &Request) -> std::result::Result<(), String> {
        let link = match request {
            Request::Link { to, confirming } => {
                let token = self.env.token().map_err(|e| format!("drawing a token: {e}"))?;
                let issued = self
                    .accounts
                    .issue_email_token(to, *confirming, token.hash(), self.env.now())
                    .await
                    .map_err(|e| e.to_string())?;
                if issued == Issued::Throttled {
                    tracing::info!(target: "tapster::dashboard", "no sign-in mail: the address had three in 15 minutes");
                    return Ok(());
                }
                self.public_url.join(&format!("/signin/confirm?token={}", token.expose()))
            }
            Request::WebhookDisabled { .. } => self.public_url.join("/account/webhooks"),
        };
        let message = letter(&self.from, request, &link).map_err(|e| format!("writing the mail: {e}"))?;
        match &self.transport {
            Transport::Smtp(smtp) => {
                smtp.send(message).await.map_err(|e| format!("sending through SMTP: {e}"))?;
            }
            Transport::Outbox { dir, written } => {
                let n = written.fetch_add(1, Ordering::Relaxed);
                let path = write_outbox(dir, &format!("{}-{n}.eml", self.env.now().0), message.formatted())
                    .await
                    .map_err(|e| format!("writing to the outbox {}: {e}", dir.display()))?;
                // What the outbox promises: with no mail server, the log is how a link reaches its reader.
                tracing::info!(
                    target: "tapster::dashboard",
                    to = %request.to(),
                    file = %path.display(),
                    link = %link,
                    "mail written to the outbox (no --smtp-url)"
                );
            }
        }
        Ok(())
    }
}

/// The mail itself: plain text, the link on a line of its own.
fn letter(
    from: &Mailbox,
    request: &Request,
    link: &str,
) -> std::result::Result<Message, lettre::error::Error> {
    let minutes = TOKEN_LIFETIME_SECS / 60;
    let (subject, text) = match request {
        Request::WebhookDisabled { url, .. } => (
            "A Tapster webhook endpoint of yours is disabled",
            format!(
                "Every delivery to your webhook endpoint\n\n\
                 {url}\n\n\
                 failed for 3 days, so Tapster stopped sending to it. The deliveries it\n\
                 tried, with what the endpoint answered, are listed on this page, where\n\
                 you can send a test event and enable the endpoint again once it is mended:\n\n\
                 {link}\n"
            ),
        ),
        Request::Link { confirming: None, .. } => (
            "Your Tapster sign-in link",
            format!(
                "Someone, hopefully you, asked to sign in to Tapster with this address.\n\n\
                 Open this link within {minutes} minutes and press the button on the page\n\
                 it opens to sign in:\n\n\
                 {link}\n\n\
                 The link works once. If you did not ask for it, ignore this mail:\n\
                 nothing happens unless the link is opened and confirmed.\n"
            ),
        ),
        Request::Link { confirming: Some(_), .. } => (
            "Confirm your address for Tapster",
            format!(
                "Someone, hopefully you, asked to confirm this address for their Tapster\n\
                 account. Open this link within {minutes} minutes, in the browser where you\n\
                 are signed in, and press the button on the page it opens:\n\n\
                 {link}\n\n\
                 The link works once. If you did not ask for it, ignore this mail.\n"
            ),
        ),
    };
    let to: Mailbox = request.to().as_str().parse().map_err(|_| lettre::error::Error::MissingTo)?;
    // 7bit keeps the link whole on its line, where quoted-printable would break it at 76 characters
    // (and an outbox file read in an editor would show it broken). 7bit allows lines of up to 998
    // characters of ASCII; the text is that, and were it ever not, quoted-printable it is.
    let seven_bit = text.is_ascii() && text.lines().all(|line| line.len() < 998);
    let body = if seven_bit {
        Body::dangerous_pre_encoded(
            text.replace('\n', "\r\n").into_bytes(),
            ContentTransferEncoding::SevenBit,
        )
    } else {
        Body::new(text)
    };
    Message::builder().from(from.clone()).to(to).subject(subject).header(ContentType::TEXT_PLAIN).body(body)
}

/// Writes `bytes` into `dir/name` whole: into a temporary file first, then renamed, so that nobody
/// reading the outbox ever sees half a mail. The directory is made (or narrowed to) mode `0700` and
/// the file is written with mode `0600`.
async fn write_outbox(dir: &Path, name: &str, bytes: Vec<u8>) -> std::io::Result<PathBuf> {
    let (dir, name) = (dir.to_owned(), name.to_owned());
    tokio::task::spawn_blocking(move || {
        owner_only_dir(&dir)?;
        let (partial, path) = (dir.join(format!(".{name}.partial")), dir.join(name));
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            let mut file = options.mode(0o600).open(&partial)?;
            // The umask may have taken bits of the mode, and a partial file left over keeps its own.
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            file.write_all(&bytes)?;
        }
        #[cfg(not(unix))]
        options.open(&partial)?.write_all(&bytes)?;
        std::fs::rename(&partial, &path)?;
        Ok(path)
    })
    .await
    .map_err(std::io::Error::other)?
}

/// Makes `dir` (and any missing parent) with mode `0700`, or narrows it to that mode when it was
/// there already, whatever the umask. (Elsewhere than on Unix, access is the parent's to decide.)
fn owner_only_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        builder.mode(0o700).create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(not(unix))]
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use tapster_accounts::Token;

    use super::*;

    #[test]
    fn the_letter_holds_the_link_on_a_line_of_its_own() {
        let from: Mailbox = "Tapster <tapster@example.org>".parse().unwrap();
        let request = Request::Link { to: Email::parse("marta@example.org").unwrap(), confirming: None };
        let link =
            format!("https://api.example.org/signin/confirm?token={}", Token::from_random([1; 32]).expose());
        let text = String::from_utf8(letter(&from, &request, &link).unwrap().formatted()).unwrap();
        assert!(text.contains("Subject: Your Tapster sign-in link"), "{text}");
        assert!(text.contains("To: marta@example.org"), "{text}");
        assert!(text.lines().any(|line| line == link), "{text}");
    }

    /// The process's umask is left alone (tests run in parallel threads): the modes are checked to be
    /// exactly `0700` and `0600`, which the usual umask (`022`) would have made `0755` and `0644`.
    #[cfg(unix)]
    #[tokio::test]
    async fn the_outbox_and_its_mails_are_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        let data_dir = tempfile::TempDir::new().unwrap();

        let outbox = data_dir.path().join("outbox");
        let path = write_outbox(&outbox, "1-0.eml", b"Subject: hi\r\n".to_vec()).await.unwrap();
        assert_eq!((mode(&outbox), mode(&path)), (0o700, 0o600));
        assert_eq!(std::fs::read(&path).unwrap(), b"Subject: hi\r\n");
        assert_eq!(std::fs::read_dir(&outbox).unwrap().count(), 1, "no partial file is left");

        // An outbox from before, open to all, and a partial mail left in it: both narrowed.
        let open = data_dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(open.join(".2-0.eml.partial"), "half").unwrap();
        std::fs::set_permissions(open.join(".2-0.eml.partial"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
        let path = write_outbox(&open, "2-0.eml", b"whole".to_vec()).await.unwrap();
        assert_eq!((mode(&open), mode(&path)), (0o700, 0o600));
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
    }
}
