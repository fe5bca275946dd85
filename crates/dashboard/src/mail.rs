//! Sign-in and confirmation mails, made and sent off the request path: a request only queues the
//! address, so the page it answers is the same, in the same time, whether or not the address has an
//! account, has had its share of mails, or the mail server is slow. A worker draws the link's token,
//! stores its hash (the accounts store refuses past three mails per address per 15 minutes) and
//! sends the mail through SMTP, or writes it to the outbox directory and logs its link.

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

/// A mail someone asked for.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) to: Email,
    /// Set when a signed-in account asked to confirm `to`; otherwise the link signs in.
    pub(crate) confirming: Option<AccountId>,
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
            MailTransport::Outbox(dir) => Transport::Outbox { dir: dir.clone(), written: AtomicU64::new(0) },
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
            tracing::warn!(target: "tapster::dashboard", "the mail queue is full: a sign-in mail was dropped");
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
                tracing::error!(target: "tapster::dashboard", error = %error, "a sign-in mail was not sent");
            }
        }
    }

    async fn handle(&self, request: &Request) -> std::result::Result<(), String> {
        let token = self.env.token().map_err(|e| format!("drawing a token: {e}"))?;
        let issued = self
            .accounts
            .issue_email_token(&request.to, request.confirming, token.hash(), self.env.now())
            .await
            .map_err(|e| e.to_string())?;
        if issued == Issued::Throttled {
            tracing::info!(target: "tapster::dashboard", "no sign-in mail: the address had three in 15 minutes");
            return Ok(());
        }
        let link = self.public_url.join(&format!("/signin/confirm?token={}", token.expose()));
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
                // The contract of the outbox: with no mail server, the log is how a link reaches its reader.
                tracing::info!(
                    target: "tapster::dashboard",
                    to = %request.to,
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
    let (subject, text) = match request.confirming {
        None => (
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
        Some(_) => (
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
    let to: Mailbox = request.to.as_str().parse().map_err(|_| lettre::error::Error::MissingTo)?;
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
/// reading the outbox ever sees half a mail.
async fn write_outbox(dir: &Path, name: &str, bytes: Vec<u8>) -> std::io::Result<PathBuf> {
    let (dir, name) = (dir.to_owned(), name.to_owned());
    tokio::task::spawn_blocking(move || {
        std::fs::create_dir_all(&dir)?;
        let (partial, path) = (dir.join(format!(".{name}.partial")), dir.join(name));
        std::fs::write(&partial, bytes)?;
        std::fs::rename(&partial, &path)?;
        Ok(path)
    })
    .await
    .map_err(std::io::Error::other)?
}

#[cfg(test)]
mod tests {
    use tapster_accounts::Token;

    use super::*;

    #[test]
    fn the_letter_holds_the_link_on_a_line_of_its_own() {
        let from: Mailbox = "Tapster <tapster@example.org>".parse().unwrap();
        let request = Request { to: Email::parse("marta@example.org").unwrap(), confirming: None };
        let link =
            format!("https://api.example.org/signin/confirm?token={}", Token::from_random([1; 32]).expose());
        let text = String::from_utf8(letter(&from, &request, &link).unwrap().formatted()).unwrap();
        assert!(text.contains("Subject: Your Tapster sign-in link"), "{text}");
        assert!(text.contains("To: marta@example.org"), "{text}");
        assert!(text.lines().any(|line| line == link), "{text}");
    }
}
