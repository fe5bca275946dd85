//! A mock OAuth 2.0 provider on `127.0.0.1`, speaking as GitHub or as Discord: the authorize step
//! (which consents at once, or is denied, as the test chose), the token endpoint (which checks the
//! client secret, the redirect URI, that the code is used once, and the PKCE verifier against the
//! `S256` challenge), and the user endpoints (GitHub's `/user` and `/user/emails`, Discord's
//! `/users/@me`). Each test chooses what the next sign-in meets: a user, a denied consent, garbage,
//! or a provider that is down.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, LOCATION};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::json;
use sha2::{Digest, Sha256};

/// Which provider the mock speaks as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    GitHub,
    Discord,
}

/// A user of the provider, as its API will describe them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// GitHub's numeric `id`, or Discord's snowflake.
    pub id: u64,
    pub login: String,
    pub email: Option<String>,
    pub verified: bool,
}

/// What the next sign-ins meet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behaviour {
    /// Consent is given at once, and the user is this one.
    Consent(User),
    /// The person declines: the browser comes back with `error=access_denied`.
    Deny,
    /// Consent, but the token endpoint answers HTML.
    GarbageToken,
    /// Consent and a token, but the user endpoints answer something that is not their JSON.
    GarbageProfile(User),
    /// Consent, then every endpoint answers `503`.
    Down,
}

/// The mock provider: running until the process ends.
#[derive(Debug, Clone)]
pub struct MockProvider {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    flavour: Flavour,
    client_id: String,
    client_secret: String,
    behaviour: Behaviour,
    /// Codes given out: their PKCE challenge, redirect URI, user, and whether they were used.
    codes: HashMap<String, Grant>,
    /// Access tokens given out, and whose they are.
    tokens: HashMap<String, User>,
    issued: u64,
    /// Token exchanges that succeeded.
    exchanges: usize,
}

#[derive(Debug, Clone)]
struct Grant {
    challenge: String,
    redirect_uri: String,
    behaviour: Behaviour,
    used: bool,
}

impl MockProvider {
    pub fn start(flavour: Flavour, client_id: &str, client_secret: &str) -> Self {
        let state = Arc::new(Mutex::new(State {
            flavour,
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
            behaviour: Behaviour::Deny,
            codes: HashMap::new(),
            tokens: HashMap::new(),
            issued: 0,
            exchanges: 0,
        }));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binding the mock provider");
        listener.set_nonblocking(true).expect("a non-blocking listener");
        let addr = listener.local_addr().expect("the mock provider's address");
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
                while let Ok((stream, _)) = listener.accept().await {
                    let state = Arc::clone(&shared);
                    tokio::spawn(async move {
                        let service = service_fn(move |request| {
                            let state = Arc::clone(&state);
                            async move { Ok::<_, Infallible>(answer(&state, request).await) }
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
            });
        });
        Self { addr, state }
    }

    /// Sets what the next sign-ins meet.
    pub fn set(&self, behaviour: Behaviour) {
        self.state.lock().unwrap().behaviour = behaviour;
    }

    pub fn authorize_url(&self) -> String {
        format!("http://{}/authorize", self.addr)
    }

    pub fn token_url(&self) -> String {
        format!("http://{}/token", self.addr)
    }

    pub fn api_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// How many codes were exchanged for a token.
    pub fn exchanges(&self) -> usize {
        self.state.lock().unwrap().exchanges
    }
}

async fn answer(state: &Mutex<State>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let (head, body) = request.into_parts();
    let body = body.collect().await.map(|body| body.to_bytes()).unwrap_or_default();
    let query: HashMap<String, String> =
        form_urlencoded::parse(head.uri.query().unwrap_or_default().as_bytes()).into_owned().collect();
    let mut state = state.lock().unwrap();
    let flavour = state.flavour;
    match (&head.method, head.uri.path(), flavour) {
        (&Method::GET, "/authorize", _) => authorize(&mut state, &query),
        (&Method::POST, "/token", _) => {
            let basic = head.headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
            token(&mut state, basic.as_deref(), &body)
        }
        (&Method::GET, path @ ("/user" | "/user/emails"), Flavour::GitHub)
        | (&Method::GET, path @ "/users/@me", Flavour::Discord) => {
            let bearer = head.headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok()).unwrap_or_default();
            let Some(user) =
                bearer.strip_prefix("Bearer ").and_then(|token| state.tokens.get(token)).cloned()
            else {
                return json_answer(StatusCode::UNAUTHORIZED, &json!({"message": "Bad credentials"}));
            };
            match state.behaviour {
                Behaviour::Down => return text(StatusCode::SERVICE_UNAVAILABLE, "down for maintenance"),
                Behaviour::GarbageProfile(_) => return text(StatusCode::OK, "<html>surprise</html>"),
                _ => {}
            }
            json_answer(StatusCode::OK, &profile(path, &user))
        }
        _ => text(StatusCode::NOT_FOUND, "no such endpoint"),
    }
}

/// The consent step, given (or refused) at once: back to the redirect URI with a code or an error.
fn authorize(state: &mut State, query: &HashMap<String, String>) -> Response<Full<Bytes>> {
    let get = |name: &str| query.get(name).cloned().unwrap_or_default();
    if get("client_id") != state.client_id || get("response_type") != "code" {
        return text(StatusCode::BAD_REQUEST, "unknown client or response type");
    }
    if get("code_challenge_method") != "S256" || get("code_challenge").len() != 43 {
        return text(StatusCode::BAD_REQUEST, "PKCE with S256 is required");
    }
    let (redirect, client_state) = (get("redirect_uri"), get("state"));
    if redirect.is_empty() || client_state.is_empty() {
        return text(StatusCode::BAD_REQUEST, "redirect_uri and state are required");
    }
    let back = match state.behaviour.clone() {
        Behaviour::Deny => format!("{redirect}?error=access_denied&state={client_state}"),
        behaviour => {
            state.issued += 1;
            let code = format!("code{}", state.issued);
            let grant = Grant {
                challenge: get("code_challenge"),
                redirect_uri: redirect.clone(),
                behaviour,
                used: false,
            };
            state.codes.insert(code.clone(), grant);
            format!("{redirect}?code={code}&state={client_state}")
        }
    };
    let mut response = text(StatusCode::FOUND, "");
    response.headers_mut().insert(LOCATION, back.parse().expect("a redirect"));
    response
}

/// The token endpoint: client authentication (HTTP Basic, as RFC 6749 prefers, or form fields), the
/// code once, the same redirect URI, and the verifier whose SHA-256 is the challenge.
fn token(state: &mut State, basic: Option<&str>, body: &[u8]) -> Response<Full<Bytes>> {
    let form: HashMap<String, String> = form_urlencoded::parse(body).into_owned().collect();
    let field = |name: &str| form.get(name).cloned().unwrap_or_default();
    let credentials = match basic.and_then(|value| value.strip_prefix("Basic ")) {
        Some(encoded) => STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .and_then(|pair| pair.split_once(':').map(|(id, secret)| (decode(id), decode(secret)))),
        None => Some((field("client_id"), field("client_secret"))),
    };
    let flavour = state.flavour;
    if credentials != Some((state.client_id.clone(), state.client_secret.clone())) {
        return refusal(flavour, StatusCode::UNAUTHORIZED, "invalid_client");
    }
    let invalid_grant = || refusal(flavour, StatusCode::BAD_REQUEST, "invalid_grant");
    if field("grant_type") != "authorization_code" {
        return refusal(flavour, StatusCode::BAD_REQUEST, "unsupported_grant_type");
    }
    let Some(grant) = state.codes.get_mut(&field("code")) else { return invalid_grant() };
    let verifier_hash = URL_SAFE_NO_PAD.encode(Sha256::digest(field("code_verifier").as_bytes()));
    if grant.used || grant.redirect_uri != field("redirect_uri") || verifier_hash != grant.challenge {
        return invalid_grant();
    }
    grant.used = true;
    let user = match grant.behaviour.clone() {
        Behaviour::Down => return text(StatusCode::SERVICE_UNAVAILABLE, "down for maintenance"),
        Behaviour::GarbageToken => return text(StatusCode::OK, "<html>not a token</html>"),
        Behaviour::Consent(user) | Behaviour::GarbageProfile(user) => user,
        Behaviour::Deny => return invalid_grant(),
    };
    state.issued += 1;
    let access = format!("token{}", state.issued);
    state.tokens.insert(access.clone(), user);
    state.exchanges += 1;
    json_answer(StatusCode::OK, &json!({"access_token": access, "token_type": "bearer", "scope": "read"}))
}

/// The token endpoint's refusal. Discord answers as RFC 6749 says (a `4xx` and the error); GitHub
/// answers `200` with the error in the body, and calls a bad code `bad_verification_code`.
fn refusal(flavour: Flavour, status: StatusCode, error: &str) -> Response<Full<Bytes>> {
    match flavour {
        Flavour::Discord => json_answer(status, &json!({"error": error})),
        Flavour::GitHub => {
            let error = if error == "invalid_grant" { "bad_verification_code" } else { error };
            json_answer(
                StatusCode::OK,
                &json!({"error": error, "error_description": "The code passed is incorrect or expired."}),
            )
        }
    }
}

/// A user as the endpoint at `path` describes them.
fn profile(path: &str, user: &User) -> serde_json::Value {
    match path {
        "/user" => json!({"id": user.id, "login": user.login, "name": null}),
        "/user/emails" => match &user.email {
            Some(email) => json!([
                {"email": "old@example.net", "primary": false, "verified": true, "visibility": null},
                {"email": email, "primary": true, "verified": user.verified, "visibility": "private"}
            ]),
            None => json!([]),
        },
        _ => json!({
            "id": user.id.to_string(),
            "username": user.login,
            "global_name": null,
            "email": user.email,
            "verified": user.verified,
        }),
    }
}

/// The form-encoding RFC 6749 applies to the client id and secret inside HTTP Basic.
fn decode(value: &str) -> String {
    form_urlencoded::parse(format!("v={value}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

fn text(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    response
}

fn json_answer(status: StatusCode, body: &serde_json::Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, "application/json".parse().expect("a media type"));
    response
}
