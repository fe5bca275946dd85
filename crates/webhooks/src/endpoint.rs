//! An endpoint: the URL a person typed for their webhooks, parsed once (as browsers parse it, by
//! the `url` crate) into a value a delivery can use without checking again, and whether it is a
//! Discord webhook (which takes Discord's own JSON and no signature) or a Standard Webhooks receiver.
//!
//! A host given as an IP address is judged here already, so that the person hears at once that
//! `https://10.0.0.1/` cannot be reached; a name is judged by what it resolves to at each delivery.

use std::fmt;
use std::net::IpAddr;

use url::{Host, Position, Url};

use crate::address::refusal;
use crate::{Config, EndpointProblem, Error, Result};

/// What an endpoint receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A receiver of the Standard Webhooks form: our JSON, signed in the `webhook-*` headers.
    StandardWebhooks,
    /// A Discord channel's webhook (`https://discord.com/api/webhooks/{id}/{token}`), which takes a
    /// Discord message and checks no signature: the token in its URL is the secret.
    Discord,
}

/// A checked endpoint URL: `https` (or `http` where the `Config` allows private addresses), with a
/// host, without credentials or fragment, at most [`Endpoint::MAX_LENGTH`] characters long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    url: Url,
    kind: Kind,
}

/// Where an endpoint's host leads: a name to resolve at delivery, or an address as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target<'a> {
    Name(&'a str),
    Address(IpAddr),
}

/// The hosts Discord serves its webhooks on.
const DISCORD_HOSTS: &[&str] = &[
    "discord.com",
    "ptb.discord.com",
    "canary.discord.com",
    "discordapp.com",
    "ptb.discordapp.com",
    "canary.discordapp.com",
];

impl Endpoint {
    /// The longest URL taken, in characters.
    pub const MAX_LENGTH: usize = 2000;

    /// Reads the URL a person typed (spaces around it are ignored).
    pub fn parse(input: &str, config: &Config) -> Result<Self> {
        Self::check(input.trim(), config).map_err(Error::Endpoint)
    }

    fn check(input: &str, config: &Config) -> Result<Self, EndpointProblem> {
        if input.is_empty() {
            return Err(EndpointProblem::Empty);
        }
        if input.chars().count() > Self::MAX_LENGTH {
            return Err(EndpointProblem::TooLong { max: Self::MAX_LENGTH });
        }
        let url = Url::parse(input).map_err(not_a_url)?;
        match url.scheme() {
            "https" => {}
            "http" if config.allow_private => {}
            "http" => return Err(EndpointProblem::PlainHttp),
            _ => return Err(EndpointProblem::NotHttps),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(EndpointProblem::Credentials);
        }
        if url.fragment().is_some() {
            return Err(EndpointProblem::Fragment);
        }
        let refused = match url.host().ok_or(EndpointProblem::NoHost)? {
            Host::Domain(name) => local_name(name).then_some("a loopback address"),
            Host::Ipv4(v4) => refusal(v4.into()),
            Host::Ipv6(v6) => refusal(v6.into()),
        };
        if let Some(block) = refused.filter(|_| !config.allow_private) {
            let host = url.host_str().unwrap_or_default().to_owned();
            return Err(EndpointProblem::NotPublic { host, block });
        }
        let kind = kind(&url)?;
        Ok(Self { url, kind })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The URL as it is kept and shown (normalized: `https://Example.COM` is `https://example.com/`).
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    pub(crate) fn is_https(&self) -> bool {
        self.url.scheme() == "https"
    }

    pub(crate) fn target(&self) -> Target<'_> {
        match self.url.host() {
            Some(Host::Ipv4(v4)) => Target::Address(v4.into()),
            Some(Host::Ipv6(v6)) => Target::Address(v6.into()),
            Some(Host::Domain(name)) => Target::Name(name),
            None => unreachable!("an endpoint has a host: checked when parsed"),
        }
    }

    pub(crate) fn port(&self) -> u16 {
        self.url.port_or_known_default().expect("http and https have default ports")
    }

    /// The `Host` header: the host as written in the URL, with its port unless it is the default.
    pub(crate) fn authority(&self) -> String {
        let host = self.url.host_str().unwrap_or_default();
        match self.url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        }
    }

    /// The request's target: path and query.
    pub(crate) fn path_and_query(&self) -> &str {
        &self.url[Position::BeforePath..Position::AfterQuery]
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a name is the machine itself by definition (`localhost` and names under it).
fn local_name(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    name == "localhost" || name.ends_with(".localhost")
}

/// Discord's webhook URLs (`/api/webhooks/{id}/{token}`, or with an API version `/api/v10/...`);
/// another address on Discord's hosts is refused, since it would receive our JSON as a message.
fn kind(url: &Url) -> Result<Kind, EndpointProblem> {
    let host = url.host_str().unwrap_or_default().trim_end_matches('.');
    if !DISCORD_HOSTS.contains(&host) {
        return Ok(Kind::StandardWebhooks);
    }
    let mut segments: Vec<&str> = url.path_segments().map(Iterator::collect).unwrap_or_default();
    if segments.last() == Some(&"") {
        segments.pop();
    }
    let version =
        |s: &str| s.strip_prefix('v').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let rest = match segments.as_slice() {
        ["api", "webhooks", rest @ ..] => rest,
        ["api", v, "webhooks", rest @ ..] if version(v) => rest,
        _ => return Err(EndpointProblem::NotDiscordWebhook),
    };
    match rest {
        [id, token] if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) && !token.is_empty() => {
            Ok(Kind::Discord)
        }
        _ => Err(EndpointProblem::NotDiscordWebhook),
    }
}

/// A parse failure of the `url` crate in a person's words.
fn not_a_url(error: url::ParseError) -> EndpointProblem {
    use url::ParseError as E;
    match error {
        E::RelativeUrlWithoutBase | E::RelativeUrlWithCannotBeABaseBase | E::SetHostOnCannotBeABaseUrl => {
            EndpointProblem::NotHttps
        }
        E::EmptyHost => EndpointProblem::NoHost,
        E::InvalidPort => EndpointProblem::NotUrl("its port is not a number from 0 to 65535"),
        E::InvalidIpv4Address | E::InvalidIpv6Address => {
            EndpointProblem::NotUrl("its IP address is not valid")
        }
        E::InvalidDomainCharacter | E::IdnaError => EndpointProblem::NotUrl("its host name is not valid"),
        _ => EndpointProblem::NotUrl("it cannot be read"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public() -> Config {
        Config::default()
    }

    fn private() -> Config {
        Config { allow_private: true, ..Config::default() }
    }

    /// A URL as typed, and the URL kept with its kind or why it is refused.
    type Case = (&'static str, Result<(&'static str, Kind), EndpointProblem>);

    #[track_caller]
    fn check(config: &Config, cases: &[Case]) {
        for (input, expected) in cases {
            let got = Endpoint::parse(input, config);
            let got = got.as_ref().map(|e| (e.as_str(), e.kind())).map_err(Clone::clone);
            assert_eq!(got, expected.clone().map_err(Error::Endpoint), "{input}");
        }
    }

    #[test]
    fn public_endpoints() {
        use EndpointProblem as P;
        use Kind::*;
        let not_public = |host: &str, block| Err(P::NotPublic { host: host.to_owned(), block });
        check(
            &public(),
            &[
                ("https://example.com/hooks", Ok(("https://example.com/hooks", StandardWebhooks))),
                ("  https://Example.COM  ", Ok(("https://example.com/", StandardWebhooks))),
                ("https://example.com:8443/a?b=c", Ok(("https://example.com:8443/a?b=c", StandardWebhooks))),
                ("https://8.8.8.8/", Ok(("https://8.8.8.8/", StandardWebhooks))),
                ("https://[2606:4700::1]/", Ok(("https://[2606:4700::1]/", StandardWebhooks))),
                ("https://bücher.example/", Ok(("https://xn--bcher-kva.example/", StandardWebhooks))),
                ("", Err(P::Empty)),
                ("   ", Err(P::Empty)),
                ("example.com/hooks", Err(P::NotHttps)),
                ("example.com:443/hooks", Err(P::NotHttps)),
                ("ftp://example.com/", Err(P::NotHttps)),
                ("file:///etc/passwd", Err(P::NotHttps)),
                ("javascript:alert(1)", Err(P::NotHttps)),
                ("http://example.com/", Err(P::PlainHttp)),
                ("https://", Err(P::NoHost)),
                ("https://user:pw@example.com/", Err(P::Credentials)),
                ("https://user@example.com/", Err(P::Credentials)),
                ("https://example.com/#top", Err(P::Fragment)),
                ("https://example.com/#", Err(P::Fragment)),
                ("https://example.com:99999/", Err(P::NotUrl("its port is not a number from 0 to 65535"))),
                ("https://[::1/", Err(P::NotUrl("its IP address is not valid"))),
                ("https://exa mple.com/", Err(P::NotUrl("its host name is not valid"))),
                ("https://10.0.0.1/", not_public("10.0.0.1", "a private address")),
                ("https://127.0.0.1:8080/", not_public("127.0.0.1", "a loopback address")),
                ("https://2130706433/", not_public("127.0.0.1", "a loopback address")),
                ("https://0x7f.1/", not_public("127.0.0.1", "a loopback address")),
                ("https://[::1]/", not_public("[::1]", "a loopback address")),
                ("https://[::ffff:192.168.0.1]/", not_public("[::ffff:c0a8:1]", "a private address")),
                ("https://169.254.169.254/latest", not_public("169.254.169.254", "a link-local address")),
                ("https://localhost/", not_public("localhost", "a loopback address")),
                ("https://LOCALHOST./", not_public("localhost.", "a loopback address")),
                ("https://api.localhost/", not_public("api.localhost", "a loopback address")),
            ],
        );
    }

    #[test]
    fn private_endpoints_where_the_config_allows_them() {
        use Kind::*;
        check(
            &private(),
            &[
                ("http://127.0.0.1:8080/hook", Ok(("http://127.0.0.1:8080/hook", StandardWebhooks))),
                ("https://10.0.0.1/", Ok(("https://10.0.0.1/", StandardWebhooks))),
                ("http://[::1]:9/", Ok(("http://[::1]:9/", StandardWebhooks))),
                ("http://localhost/", Ok(("http://localhost/", StandardWebhooks))),
                ("ftp://10.0.0.1/", Err(EndpointProblem::NotHttps)),
                ("http://u:p@10.0.0.1/", Err(EndpointProblem::Credentials)),
            ],
        );
    }

    #[test]
    fn the_length_is_bounded() {
        let path = "a".repeat(Endpoint::MAX_LENGTH - "https://example.com/".len());
        let longest = format!("https://example.com/{path}");
        assert_eq!(Endpoint::parse(&longest, &public()).unwrap().as_str(), longest);
        assert_eq!(
            Endpoint::parse(&format!("{longest}a"), &public()),
            Err(Error::Endpoint(EndpointProblem::TooLong { max: Endpoint::MAX_LENGTH }))
        );
    }

    #[test]
    fn discord_webhooks_are_recognised() {
        use EndpointProblem::NotDiscordWebhook;
        use Kind::*;
        let discord = |url: &'static str| (url, Ok((url, Discord)));
        let cases = [
            discord("https://discord.com/api/webhooks/1234567890/abc-DEF_ghi"),
            discord("https://discordapp.com/api/webhooks/1234567890/abc"),
            discord("https://ptb.discord.com/api/webhooks/1/t"),
            discord("https://canary.discord.com/api/webhooks/1/t"),
            discord("https://canary.discordapp.com/api/webhooks/1/t"),
            discord("https://discord.com/api/v10/webhooks/1/t"),
            discord("https://discord.com/api/webhooks/1/t/"),
            discord("https://discord.com/api/webhooks/1/t?wait=true&thread_id=5"),
            ("https://DISCORD.com/api/webhooks/1/t", Ok(("https://discord.com/api/webhooks/1/t", Discord))),
            ("https://discord.com/api/webhooks/1", Err(NotDiscordWebhook)),
            ("https://discord.com/api/webhooks/x/t", Err(NotDiscordWebhook)),
            ("https://discord.com/api/webhooks/1/t/slack", Err(NotDiscordWebhook)),
            ("https://discord.com/channels/1/2", Err(NotDiscordWebhook)),
            ("https://discord.com/api/vx/webhooks/1/t", Err(NotDiscordWebhook)),
            (
                "https://hooks.discord.com/api/webhooks/1/t",
                Ok(("https://hooks.discord.com/api/webhooks/1/t", StandardWebhooks)),
            ),
            (
                "https://example.com/api/webhooks/1/t",
                Ok(("https://example.com/api/webhooks/1/t", StandardWebhooks)),
            ),
        ];
        check(&public(), &cases);
    }

    #[test]
    fn the_parts_a_delivery_uses() {
        let endpoint = Endpoint::parse("https://Example.com:8443/a/b?c=d", &public()).unwrap();
        assert_eq!(endpoint.target(), Target::Name("example.com"));
        assert_eq!((endpoint.port(), endpoint.authority()), (8443, "example.com:8443".to_owned()));
        assert_eq!(endpoint.path_and_query(), "/a/b?c=d");
        assert!(endpoint.is_https());
        let endpoint = Endpoint::parse("http://[::1]/", &private()).unwrap();
        assert_eq!(endpoint.target(), Target::Address("::1".parse().unwrap()));
        assert_eq!((endpoint.port(), endpoint.authority()), (80, "[::1]".to_owned()));
        assert_eq!(endpoint.path_and_query(), "/");
        assert!(!endpoint.is_https());
    }
}
