//! The dashboard beside the API: its settings as the command line gives them, the clock and the
//! randomness it is given, and the adapter that lets the HTTP server serve it on the paths it claims.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use hyper::Request;
use tapster_dashboard::{
    Config, Dashboard, Environment, MailConfig, MailTransport, ProviderConfig, PublicUrl,
};
use tapster_domain::Timestamp;
use tapster_http::{PageFuture, Pages};

use crate::access::{Access, timestamp};

/// The dashboard's settings; what is not set has a default that works on one machine.
#[derive(Debug, Clone, Default)]
pub struct DashboardOptions {
    /// Where browsers reach the server; by default `http://` (or `https://`) and the bound address.
    pub public_url: Option<PublicUrl>,
    /// The SMTP server's URL; without one, mails go to `<data-dir>/outbox/`.
    pub smtp_url: Option<String>,
    /// The sender of the mails; by default [`DEFAULT_MAIL_FROM`].
    pub mail_from: Option<String>,
    pub github: Option<ProviderConfig>,
    pub discord: Option<ProviderConfig>,
}

impl DashboardOptions {
    /// The dashboard's configuration for a server on `addr` with the data dir `data_dir`.
    pub(crate) fn config(&self, addr: SocketAddr, https: bool, data_dir: &Path) -> anyhow::Result<Config> {
        let public_url = self.public_url(addr, https)?;
        let transport = match &self.smtp_url {
            Some(url) => MailTransport::Smtp(url.clone()),
            None => MailTransport::Outbox(data_dir.join("outbox")),
        };
        let from = self.mail_from.clone().unwrap_or_else(|| DEFAULT_MAIL_FROM.to_owned());
        Ok(Config {
            public_url,
            mail: MailConfig { from, transport },
            github: self.github.clone(),
            discord: self.discord.clone(),
        })
    }

    /// The public URL given, or else the one of a server listening on `addr`.
    pub fn public_url(&self, addr: SocketAddr, https: bool) -> anyhow::Result<PublicUrl> {
        match &self.public_url {
            Some(url) => Ok(url.clone()),
            None => default_public_url(addr, https),
        }
    }
}

/// The sender of the mails unless told otherwise.
pub const DEFAULT_MAIL_FROM: &str = "Tapster <tapster@localhost>";

/// `http://` or `https://` and the address the server listens on; an unspecified address (`0.0.0.0`,
/// `::`) becomes the loopback one, which a browser on the same machine can open.
fn default_public_url(addr: SocketAddr, https: bool) -> anyhow::Result<PublicUrl> {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    let scheme = if https { "https" } else { "http" };
    Ok(PublicUrl::parse(&format!("{scheme}://{}", SocketAddr::new(ip, addr.port())))?)
}

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

/// The dashboard as pages the HTTP server serves beside the API; an address the operator blocked
/// is refused here as on the API.
#[derive(Debug)]
pub(crate) struct DashboardPages {
    pub(crate) dashboard: Dashboard,
    pub(crate) access: Arc<Access>,
}

impl Pages for DashboardPages {
    fn claims(&self, path: &str) -> bool {
        self.dashboard.claims(path)
    }

    fn answer(&self, request: Request<Bytes>, peer: IpAddr) -> PageFuture<'_> {
        if self.access.is_blocked(peer) {
            return Box::pin(std::future::ready(self.dashboard.blocked()));
        }
        Box::pin(self.dashboard.answer(request, peer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_public_url_is_one_a_browser_here_can_open() {
        let cases = [
            ("127.0.0.1:8080", false, "http://127.0.0.1:8080"),
            ("0.0.0.0:8080", false, "http://127.0.0.1:8080"),
            ("[::]:443", true, "https://[::1]"),
            ("192.0.2.7:9000", true, "https://192.0.2.7:9000"),
        ];
        for (addr, https, url) in cases {
            assert_eq!(default_public_url(addr.parse().unwrap(), https).unwrap().origin(), url, "{addr}");
        }
    }
}
