//! Pages served beside the API on the same listener: the dashboard (`tapster-dashboard`), which this
//! crate knows only as a [`Pages`] that claims some paths. Their requests pass the same edge as the
//! API's (`tapster-edge`: the target and header limits, the time budget, the trusted proxies), but
//! they may `POST` a small form, which is read whole here (bounded in size and time) before the
//! pages see it; they get no CORS headers, and no path of the API's is ever theirs (nothing under
//! `/v1`, none of its public routes), so a session cookie never opens the API and an API key never
//! opens a page.

use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_LENGTH;
use hyper::{Request, Response};

use crate::app::App;
use crate::error::ApiError;
use crate::response::Body;

/// The largest request body a page accepts: its forms hold a few short fields.
pub const MAX_FORM_BYTES: usize = 16 * 1024;
/// How long a page's request body may take to arrive whole.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// A page's answer, made while the request waits.
pub type PageFuture<'a> = Pin<Box<dyn Future<Output = Response<Full<Bytes>>> + Send + 'a>>;

/// HTML pages served beside the API.
pub trait Pages: Send + Sync + std::fmt::Debug + 'static {
    /// Whether `path` is one of the pages'. Paths the API answers are never asked about.
    fn claims(&self, path: &str) -> bool;

    /// Answers one request, whose body has been read whole; `peer` is the calling address (behind
    /// a trusted proxy, the address it forwarded for).
    fn answer(&self, request: Request<Bytes>, peer: IpAddr) -> PageFuture<'_>;
}

impl App {
    /// Whether the request is for the pages rather than the API: a path the API answers (anything
    /// under `/v1`, its public routes, `/metrics`) is never the pages'. The pages are asked first,
    /// so that the API's requests are not matched against the endpoint table here as well.
    pub(crate) fn is_page(&self, path: &str) -> bool {
        self.pages().is_some_and(|pages| pages.claims(path) && !App::owns(path))
    }

    /// Answers a request for the pages, from `caller`, once its form is read; counted under the
    /// pages' route label.
    pub(crate) async fn answer_page(&self, request: Request<Incoming>, caller: IpAddr) -> Response<Body> {
        let started = Instant::now();
        let (method, path) = (request.method().clone(), request.uri().path().to_owned());
        let response = match (self.pages(), declared_size(&request)) {
            (Some(pages), Ok(())) => match read_body(request).await {
                Ok(request) => pages.answer(request, caller).await,
                Err(error) => error.reply(&path).into_response(),
            },
            (None, _) => ApiError::NotFound("no such page".into()).reply(&path).into_response(),
            (_, Err(error)) => error.reply(&path).into_response(),
        };
        self.answered_page(&method, &path, caller, response.status(), started);
        response
    }
}

/// Refuses a body whose declared length is over [`MAX_FORM_BYTES`] before reading any of it.
fn declared_size(request: &Request<Incoming>) -> Result<(), ApiError> {
    let declared = request.headers().get(CONTENT_LENGTH).and_then(|length| length.to_str().ok());
    if declared
        .and_then(|length| length.trim().parse::<u64>().ok())
        .is_some_and(|n| n > MAX_FORM_BYTES as u64)
    {
        return Err(ApiError::BodyTooLarge { limit: MAX_FORM_BYTES });
    }
    Ok(())
}

/// The request with its body read whole: at most [`MAX_FORM_BYTES`], within [`BODY_TIMEOUT`].
async fn read_body(request: Request<Incoming>) -> Result<Request<Bytes>, ApiError> {
    let (head, body) = request.into_parts();
    let collected = tokio::time::timeout(BODY_TIMEOUT, Limited::new(body, MAX_FORM_BYTES).collect()).await;
    let bytes = match collected {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
            return Err(ApiError::BodyTooLarge { limit: MAX_FORM_BYTES });
        }
        // The client broke the body off (or its HTTP framing was wrong).
        Ok(Err(_)) => return Err(ApiError::UnreadableBody),
        Err(_) => return Err(ApiError::BodyTimeout { seconds: BODY_TIMEOUT.as_secs() }),
    };
    Ok(Request::from_parts(head, bytes))
}
