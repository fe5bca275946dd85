//! How the dashboard is reached and what it talks to: its public address, how mail leaves, and the
//! external sign-in providers. The binary assembles it from flags; nothing here reads them.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;

use crate::{Error, Result};

/// The dashboard's configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub public_url: PublicUrl,
    pub mail: MailConfig,
    pub github: Option<ProviderConfig>,
    pub discord: Option<ProviderConfig>,
    /// Whether webhook endpoints may be on loopback and private addresses, over plain `http` too
    /// (`--webhooks-allow-private`: tests and closed networks).
    pub webhooks_allow_private: bool,
}

/// The address browsers reach the dashboard at (`https://api.example.org`): links in mails, OAuth
/// redirect URIs and the origin every form must come from derive from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// `scheme://host[:port]`, as a browser's `Origin` header writes it.
    origin: String,
    https: bool,
}

impl PublicUrl {
    /// An `http` or `https` URL with nothing after the host and port but an optional `/`.
    pub fn parse(value: &str) -> Result<Self> {
        let bad = |why: &str| Error::PublicUrl { value: value.to_owned(), reason: why.to_owned() };
        let url = url::Url::parse(value).map_err(|e| bad(&format!("is not a URL: {e}")))?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            _ => return Err(bad("must start with http:// or https://")),
        };
        if url.host_str().is_none_or(str::is_empty) {
            return Err(bad("has no host"));
        }
        if url.path() != "/"
            || url.query().is_some()
            || url.fragment().is_some()
            || !url.username().is_empty()
        {
            return Err(bad("must be only a scheme, a host and a port: the dashboard is served from /"));
        }
        Ok(Self { origin: url.origin().ascii_serialization(), https })
    }

    /// `scheme://host[:port]`, without a trailing slash.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// `host[:port]`, as a browser's `Host` header writes it for this URL.
    pub fn authority(&self) -> &str {
        self.origin.split_once("://").map_or(&self.origin, |(_, authority)| authority)
    }

    pub fn https(&self) -> bool {
        self.https
    }

    /// The absolute URL of `path` (which starts with `/`).
    pub fn join(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }
}

/// How sign-in mails leave the server.
#[derive(Debug, Clone)]
pub struct MailConfig {
    /// The sender, as `Tapster <tapster@example.org>` or a bare address.
    pub from: String,
    pub transport: MailTransport,
}

#[derive(Clone)]
pub enum MailTransport {
    /// Each mail is written to this directory as an `.eml` file and its link is logged: the set-up
    /// that works with no mail server.
    Outbox(PathBuf),
    /// An SMTP server: `smtps://user:pass@host` (TLS), `smtp://user:pass@host?tls=required` (STARTTLS)
    /// or, to this machine only, `smtp://localhost:port` (plain).
    Smtp(String),
}

/// An SMTP URL the dashboard may send through: one that encrypts (`smtps://`, or `smtp://` with
/// `?tls=required`, STARTTLS or nothing), or plain `smtp://` to this machine, so that the links in
/// the mails and the password in the URL never cross a network in clear. (`?tls=opportunistic`
/// falls back to plain text when STARTTLS is not offered, which anyone on the way can arrange.) What
/// the SMTP client cannot use at all (not a URL, another scheme, another `tls`) is left for it to
/// refuse, with its reasons.
pub(crate) fn check_smtp_url(value: &str) -> Result<()> {
    let Ok(url) = url::Url::parse(value) else { return Ok(()) };
    // The SMTP client reads the first `tls` parameter and no other.
    let tls = url.query_pairs().find(|(name, _)| name == "tls").map(|(_, value)| value);
    let in_clear = url.scheme() == "smtp" && matches!(tls.as_deref(), None | Some("opportunistic"));
    if in_clear && !on_this_machine(&url) {
        return Err(Error::SmtpInClear { host: url.host_str().unwrap_or_default().to_owned() });
    }
    Ok(())
}

/// Whether `url`'s host is this machine: `localhost` or a loopback address (also as the text of a URL
/// whose scheme does not say what its host is, as `smtp://127.0.0.1`).
pub(crate) fn on_this_machine(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => {
            name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Never prints an SMTP URL whole: it may hold a password.
impl fmt::Debug for MailTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Outbox(dir) => f.debug_tuple("Outbox").field(dir).finish(),
            Self::Smtp(url) => {
                let shown = url::Url::parse(url).map_or_else(
                    |_| "(unparsable)".to_owned(),
                    |mut url| {
                        if url.password().is_some() {
                            let _ = url.set_password(Some("***"));
                        }
                        url.to_string()
                    },
                );
                f.debug_tuple("Smtp").field(&shown).finish()
            }
        }
    }
}

/// One OAuth 2.0 provider's application and endpoints.
#[derive(Clone)]
pub struct ProviderConfig {
    pub client_id: String,
    pub client_secret: String,
    pub authorize_url: String,
    pub token_url: String,
    /// GitHub's REST API (`/user`, `/user/emails`) or Discord's (`/users/@me`).
    pub api_url: String,
}

/// Never prints the client secret.
impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("client_id", &self.client_id)
            .field("client_secret", &"***")
            .field("authorize_url", &self.authorize_url)
            .field("token_url", &self.token_url)
            .field("api_url", &self.api_url)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_urls() {
        let cases = [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080", false),
            ("https://api.example.org/", "https://api.example.org", true),
            ("https://API.Example.org:443", "https://api.example.org", true),
            ("http://[::1]:8080", "http://[::1]:8080", false),
        ];
        for (input, origin, https) in cases {
            let url = PublicUrl::parse(input).unwrap();
            assert_eq!((url.origin(), url.https()), (origin, https), "{input}");
        }
        assert_eq!(PublicUrl::parse("http://h:1").unwrap().join("/signin"), "http://h:1/signin");
        assert_eq!(PublicUrl::parse("https://h:443").unwrap().authority(), "h");
        assert_eq!(PublicUrl::parse("http://[::1]:8080").unwrap().authority(), "[::1]:8080");
        for bad in [
            "",
            "127.0.0.1:8080",
            "ftp://h",
            "https://h/tapster",
            "https://h/?x=1",
            "https://u:p@h",
            "http://",
        ] {
            assert!(PublicUrl::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn smtp_urls_encrypt_or_stay_on_this_machine() {
        let cases = [
            ("smtps://user:pass@smtp.example.org", true),
            ("smtps://smtp.example.org:2465", true),
            ("smtp://user:pass@smtp.example.org?tls=required", true),
            ("smtp://smtp.example.org:2587/client.example.org?tls=required", true),
            ("smtp://localhost:25", true),
            ("smtp://LOCALHOST", true),
            ("smtp://127.0.0.1:2525", true),
            ("smtp://127.8.9.10", true),
            ("smtp://[::1]:25", true),
            ("smtp://user:pass@smtp.example.org", false),
            ("smtp://smtp.example.org:25", false),
            ("smtp://smtp.example.org?tls=opportunistic", false),
            ("smtp://smtp.example.org?tls=opportunistic&tls=required", false),
            ("smtp://10.0.0.5:25", false),
            ("smtp://[2001:db8::25]", false),
            ("smtp://localhost.example.org", false),
            ("smtp://127.0.0.1.example.org", false),
        ];
        for (url, allowed) in cases {
            assert_eq!(check_smtp_url(url).is_ok(), allowed, "{url}");
        }
        let refused = check_smtp_url("smtp://user:secret@smtp.example.org").unwrap_err().to_string();
        assert!(refused.contains("smtp.example.org") && refused.contains("smtps://"), "{refused}");
        assert!(refused.contains("?tls=required") && !refused.contains("secret"), "{refused}");
    }
}
