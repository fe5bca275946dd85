//! Accepting connections and handing each request to the router.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tapster_store::Store;
use tokio::net::TcpListener;

use crate::response::{Body, problem};
use crate::routes::route;

/// Everything a request may read: the game-data store.
#[derive(Debug)]
pub struct App {
    pub(crate) store: Store,
}

impl App {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Answers one request. Store queries take microseconds, so they run on the runtime's threads.
    fn handle(&self, request: &Request<Incoming>) -> Response<Body> {
        let uri = request.uri();
        route(self, request.method(), uri.path(), uri.query()).unwrap_or_else(|error| {
            if let crate::error::ApiError::Internal(cause) = &error {
                // Only the log sees the cause; the client gets a generic problem.
                log_internal(uri.path(), cause.as_ref());
            }
            problem(&error, uri.path())
        })
    }
}

#[allow(clippy::print_stderr, reason = "structured logging arrives with the hardening issue")]
fn log_internal(path: &str, cause: &dyn std::error::Error) {
    eprintln!("error: {path}: {cause}");
}

/// Serves `app` on `listener` until `shutdown` completes, then lets requests in flight finish
/// (for at most `grace`).
pub async fn serve(
    listener: TcpListener,
    app: App,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    // Out of descriptors or a connection reset before accept: wait a little and go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let app = Arc::clone(&app);
                let service = service_fn(move |request: Request<Incoming>| {
                    let response = app.handle(&request);
                    async move { Ok::<_, Infallible>(response) }
                });
                let connection = graceful.watch(http1::Builder::new().serve_connection(TokioIo::new(stream), service));
                tokio::spawn(connection);
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(grace, graceful.shutdown()).await;
    Ok(())
}
