//! What can stop the dashboard from starting: a setting that cannot work, named with its value. What
//! goes wrong while it answers is a page ([`crate::reply::Failure`]), not an error of its callers.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the public URL {value:?} {reason}")]
    PublicUrl { value: String, reason: String },
    #[error("the sender address {value:?} is not a mailbox: {reason}")]
    MailFrom { value: String, reason: String },
    /// The SMTP URL is not one lettre can use (it is not shown: it may hold a password).
    #[error("the SMTP URL is not usable: {0}")]
    SmtpUrl(String),
    /// A plain `smtp://` URL to another machine: mail, and the password, would cross the network in
    /// clear.
    #[error(
        "the SMTP URL sends mail in clear to {host}, which is not this machine: use smtps:// (TLS), or \
         smtp://...?tls=required (STARTTLS)"
    )]
    SmtpInClear { host: String },
    /// A provider's authorize, token or API URL.
    #[error("the {provider} {which} URL {value:?} {reason}")]
    ProviderUrl { provider: &'static str, which: &'static str, value: String, reason: String },
    /// The TLS set-up of the client that calls the providers.
    #[error("TLS for the sign-in providers: {0}")]
    Tls(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
