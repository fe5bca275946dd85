//! Sign-in through GitHub and Discord: OAuth 2.0's authorization code flow with PKCE (`S256`), done
//! by the `oauth2` crate over an HTTP client of our own (hyper with rustls and ring, which follows no
//! redirect and gives each call a time limit and a size limit). The provider's user is read once and
//! the access token dropped with the request.
//!
//! An identity is the pair (provider, the provider's numeric user id); the address comes from
//! GitHub's `/user/emails` (the `primary` entry, trusted only if `verified`) or Discord's
//! `/users/@me` (`email` with its `verified` flag).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use oauth2::basic::{BasicClient, BasicErrorResponse};
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet, EndpointSet,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tapster_accounts::{Profile, Provider, Token};
use tapster_domain::Email;

use crate::config::{ProviderConfig, PublicUrl, on_this_machine};
use crate::{Error, Result};

/// How long one call to a provider may take, answer included.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer read from a provider.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

type OAuthClient = BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// One configured provider.
#[derive(Debug)]
pub(crate) struct OAuthProvider {
    pub(crate) provider: Provider,
    client: OAuthClient,
    api_url: String,
}

/// Why a provider sign-in failed after the provider sent the browser back.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProviderFailure {
    /// The provider refused to exchange the code (expired, used, or the PKCE verifier did not match).
    #[error("{provider} did not accept the sign-in: {reason}")]
    Refused { provider: &'static str, reason: String },
    /// The provider could not be reached, timed out, or answered an error.
    #[error("{provider} could not be reached: {reason}")]
    Unreachable { provider: &'static str, reason: String },
    /// The provider answered something its API does not document.
    #[error("{provider} answered something unexpected: {reason}")]
    Garbage { provider: &'static str, reason: String },
}

impl OAuthProvider {
    pub(crate) fn new(provider: Provider, config: &ProviderConfig, public_url: &PublicUrl) -> Result<Self> {
        let label = provider.label();
        for (which, value) in
            [("authorize", &config.authorize_url), ("token", &config.token_url), ("API", &config.api_url)]
        {
            if let Err(reason) = provider_url(value) {
                return Err(Error::ProviderUrl { provider: label, which, value: value.clone(), reason });
            }
        }
        let callback = public_url.join(&format!("/auth/{}/callback", provider.as_str()));
        let bad = |which, value: &str, e: oauth2::url::ParseError| Error::ProviderUrl {
            provider: label,
            which,
            value: value.to_owned(),
            reason: e.to_string(),
        };
        let client = BasicClient::new(ClientId::new(config.client_id.clone()))
            .set_client_secret(ClientSecret::new(config.client_secret.clone()))
            .set_auth_uri(
                AuthUrl::new(config.authorize_url.clone())
                    .map_err(|e| bad("authorize", &config.authorize_url, e))?,
            )
            .set_token_uri(
                TokenUrl::new(config.token_url.clone()).map_err(|e| bad("token", &config.token_url, e))?,
            )
            .set_redirect_uri(RedirectUrl::new(callback.clone()).map_err(|e| bad("callback", &callback, e))?);
        Ok(Self { provider, client, api_url: config.api_url.trim_end_matches('/').to_owned() })
    }

    /// Where to send the browser: the provider's consent page for this sign-in.
    pub(crate) fn authorize_url(&self, state: &Token, verifier: &Token) -> String {
        let verifier = PkceCodeVerifier::new(verifier.expose().to_owned());
        let scopes = match self.provider {
            Provider::GitHub => ["read:user", "user:email"],
            Provider::Discord => ["identify", "email"],
        };
        let (url, _) = self
            .client
            .authorize_url(|| CsrfToken::new(state.expose().to_owned()))
            .add_scopes(scopes.map(|scope| Scope::new(scope.to_owned())))
            .set_pkce_challenge(PkceCodeChallenge::from_code_verifier_sha256(&verifier))
            .url();
        url.into()
    }

    /// Exchanges `code` for an access token, reads the user with it, and lets the token go.
    pub(crate) async fn profile(
        &self,
        http: &HttpClient,
        code: &str,
        verifier: &Token,
    ) -> Result<Profile, ProviderFailure> {
        let provider = self.provider.label();
        let token = self
            .client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .set_pkce_verifier(PkceCodeVerifier::new(verifier.expose().to_owned()))
            .request_async(http)
            .await
            .map_err(|error| match error {
                RequestTokenError::ServerResponse(response) => {
                    ProviderFailure::Refused { provider, reason: response.error().to_string() }
                }
                RequestTokenError::Request(e) => {
                    ProviderFailure::Unreachable { provider, reason: e.to_string() }
                }
                // GitHub answers a refused code with `200` and an error body, which `oauth2` reads
                // as a token answer that failed to parse; read it again as the refusal it is.
                RequestTokenError::Parse(e, body) => {
                    match serde_json::from_slice::<BasicErrorResponse>(&body) {
                        Ok(refusal) => {
                            ProviderFailure::Refused { provider, reason: refusal.error().to_string() }
                        }
                        Err(_) => ProviderFailure::Garbage { provider, reason: e.to_string() },
                    }
                }
                RequestTokenError::Other(e) => ProviderFailure::Garbage { provider, reason: e },
            })?;
        let access = token.access_token().secret();
        match self.provider {
            Provider::GitHub => self.github_profile(http, access).await,
            Provider::Discord => self.discord_profile(http, access).await,
        }
    }

    async fn github_profile(&self, http: &HttpClient, access: &str) -> Result<Profile, ProviderFailure> {
        #[derive(Deserialize)]
        struct User {
            id: u64,
            login: String,
        }
        #[derive(Deserialize)]
        struct Address {
            email: String,
            primary: bool,
            verified: bool,
        }
        let user: User = self.get(http, "/user", access).await?;
        let addresses: Vec<Address> = self.get(http, "/user/emails", access).await?;
        let primary = addresses.iter().find(|address| address.primary);
        let email = primary.and_then(|address| Email::parse(&address.email).ok());
        let verified = primary.is_some_and(|address| address.verified);
        Profile::new(Provider::GitHub, &user.id.to_string(), &user.login, email, verified)
            .ok_or_else(|| self.garbage("a user id that is not a number"))
    }

    async fn discord_profile(&self, http: &HttpClient, access: &str) -> Result<Profile, ProviderFailure> {
        #[derive(Deserialize)]
        struct User {
            id: String,
            username: String,
            email: Option<String>,
            verified: Option<bool>,
        }
        let user: User = self.get(http, "/users/@me", access).await?;
        let email = user.email.as_deref().and_then(|email| Email::parse(email).ok());
        Profile::new(Provider::Discord, &user.id, &user.username, email, user.verified == Some(true))
            .ok_or_else(|| self.garbage("a user id that is not a number"))
    }

    /// `GET` on the provider's API with the access token, read as `T`.
    async fn get<T: DeserializeOwned>(
        &self,
        http: &HttpClient,
        path: &str,
        access: &str,
    ) -> Result<T, ProviderFailure> {
        let provider = self.provider.label();
        let accept = match self.provider {
            Provider::GitHub => "application/vnd.github+json",
            Provider::Discord => "application/json",
        };
        let request = oauth2::http::Request::get(format!("{}{path}", self.api_url))
            .header(oauth2::http::header::AUTHORIZATION, format!("Bearer {access}"))
            .header(oauth2::http::header::ACCEPT, accept)
            // GitHub refuses requests without one.
            .header(oauth2::http::header::USER_AGENT, "tapster")
            .body(Vec::new())
            .map_err(|e| ProviderFailure::Garbage { provider, reason: e.to_string() })?;
        let response = http
            .send(request)
            .await
            .map_err(|e| ProviderFailure::Unreachable { provider, reason: e.to_string() })?;
        if !response.status().is_success() {
            return Err(ProviderFailure::Unreachable {
                provider,
                reason: format!("{path} answered {}", response.status()),
            });
        }
        serde_json::from_slice(response.body()).map_err(|e| self.garbage(&format!("{path}: {e}")))
    }

    fn garbage(&self, reason: &str) -> ProviderFailure {
        ProviderFailure::Garbage { provider: self.provider.label(), reason: reason.to_owned() }
    }
}

/// A provider's URL is `https`, or `http` to this machine only (a local mock or proxy): the client
/// secret and the users' access tokens never cross a network in clear.
fn provider_url(value: &str) -> std::result::Result<(), String> {
    let url = url::Url::parse(value).map_err(|e| format!("is not a URL: {e}"))?;
    match url.scheme() {
        "https" => Ok(()),
        "http" if on_this_machine(&url) => Ok(()),
        "http" => Err("is plain http to another machine: use https".to_owned()),
        _ => Err("must start with https://".to_owned()),
    }
}

/// The HTTP client the providers are called with: HTTPS through rustls (Mozilla's roots), plain HTTP
/// for a provider on a private network or in tests; no redirect followed; each call bounded.
#[derive(Debug, Clone)]
pub(crate) struct HttpClient {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum HttpError {
    #[error("{0}")]
    Connect(#[from] hyper_util::client::legacy::Error),
    #[error("no answer within {} seconds", CALL_TIMEOUT.as_secs())]
    Timeout,
    #[error("the answer could not be read whole, or is larger than {MAX_ANSWER_BYTES} bytes")]
    Body,
    #[error("it answered {0}")]
    Failing(hyper::StatusCode),
}

/// What `oauth2` calls to exchange a code. (A closure would do, but its future's lifetime is then
/// too general for the compiler to see that a page's future is `Send`.)
impl<'c> oauth2::AsyncHttpClient<'c> for HttpClient {
    type Error = HttpError;
    type Future =
        Pin<Box<dyn Future<Output = std::result::Result<oauth2::HttpResponse, HttpError>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let response = self.send(request).await?;
            // A failing server, not an answer about the sign-in: `oauth2` would try to read it as one.
            if response.status().is_server_error() {
                return Err(HttpError::Failing(response.status()));
            }
            Ok(response)
        })
    }
}

impl HttpClient {
    pub(crate) fn new() -> Result<Self> {
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(rustls::crypto::ring::default_provider())
            .map_err(|e| Error::Tls(e.to_string()))?
            .https_or_http()
            .enable_http1()
            .build();
        Ok(Self { client: Client::builder(TokioExecutor::new()).build(connector) })
    }

    /// One call, its answer read whole.
    pub(crate) async fn send(
        &self,
        request: oauth2::HttpRequest,
    ) -> std::result::Result<oauth2::HttpResponse, HttpError> {
        let (head, body) = request.into_parts();
        let request = hyper::Request::from_parts(head, Full::new(Bytes::from(body)));
        let call = async {
            let response = self.client.request(request).await?;
            let (head, body) = response.into_parts();
            let body = Limited::new(body, MAX_ANSWER_BYTES).collect().await.map_err(|_| HttpError::Body)?;
            Ok(hyper::Response::from_parts(head, body.to_bytes().to_vec()))
        };
        tokio::time::timeout(CALL_TIMEOUT, call).await.map_err(|_| HttpError::Timeout)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_urls_are_https_or_local() {
        for good in [
            "https://github.com/login/oauth/authorize",
            "http://127.0.0.1:9000/token",
            "http://localhost/x",
            "http://[::1]:1/",
        ] {
            assert_eq!(provider_url(good), Ok(()), "{good}");
        }
        for bad in ["http://api.github.com", "http://10.0.0.5/token", "ftp://github.com", "github.com"] {
            assert!(provider_url(bad).is_err(), "{bad}");
        }
    }
}
