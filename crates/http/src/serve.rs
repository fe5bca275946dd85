//! Accepting connections and serving each with the [`App`] until shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;

use crate::app::App;

/// Serves `app` on `listener` until `shutdown` completes, then lets requests in flight finish
/// (for at most `grace`).
pub async fn serve(
    listener: TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    // Out of descriptors or a connection reset before accept: wait a little and go on.
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let app = Arc::clone(&app);
                let peer: SocketAddr = peer;
                let service = service_fn(move |request: Request<Incoming>| {
                    let response = app.handle(&request, peer.ip());
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
