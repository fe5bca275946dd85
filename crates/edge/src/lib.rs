//! The network edge of the service: accepting connections (plain HTTP or HTTPS, HTTP/1.1 and
//! HTTP/2), their timeouts and the connection limit, the limits every request is held to (target
//! length, header size, the time budget) and the calling address behind trusted proxies. What passes
//! is handed to a [`Service`]; what does not is handed to it too, as a [`Refusal`] to render, so
//! that this crate knows nothing of the answers' format, routes or metrics.

mod conn;
mod screen;
mod serve;
mod service;
mod tls;

pub use screen::{ClientIpHeader, TrustedProxies};
pub use serve::{ServeConfig, StrictTransport, serve, serve_on_threads};
pub use service::{Answer, Body, BodyError, Refusal, Service, read_body};
pub use tls::{TlsConfig, TlsError};
