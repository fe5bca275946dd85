//! The tapster server: key checks and rate limits (`access`; `limits`, the rules every limiter
//! decides by, below `limiter` in memory and `shared` in Redis; and `failures`, the limit on
//! failed authentications per address), where the logs go (`logging`), the administrative commands
//! on accounts, keys and addresses (`admin`), the dashboard's settings, clock and randomness
//! (`dashboard`), and the wiring of store, gate, dashboard and HTTP interface into a running service
//! (`run`), which publishes newly imported game data while it serves (`reload`); the game data on
//! disk, imported with its bulk exports and those written out for mirrors (`game_data`); the
//! bundled dataset the binary carries (`bundled`, in the format of `archive`), which `serve` imports
//! into an empty data dir unless told another; and game data published once for every replica,
//! which each `serve` follows (`published`); and the webhooks' worker, which announces new versions
//! and expiring keys and delivers the outbox (`webhooks`). The binary in `main.rs` is only its
//! command line.

mod access;
mod admin;
mod archive;
mod bundled;
mod dashboard;
mod failures;
mod game_data;
mod limiter;
mod limits;
mod logging;
mod published;
mod reload;
mod run;
mod shared;
mod webhooks;

pub use access::{Access, Clock};
pub use admin::{Admin, LOCAL_ACCOUNT, NewKey, format_keys};
pub use dashboard::{DEFAULT_MAIL_FROM, DashboardOptions};
pub use game_data::{export, import_with_exports};
pub use limiter::InProcess;
pub use limits::{Checked, Decision, Limiter, Remaining, Status, Subject};
pub use logging::{LogFormat, LogLevel, log_subscriber};
pub use published::{format_generations, megabytes, publish};
pub use run::{Layout, Service, ServiceBuilder, Sharing};
pub use shared::{DEFAULT_TIMEOUT as DEFAULT_REDIS_TIMEOUT, RedisLimits, RedisServers, RedisTls, Shared};
pub use webhooks::{CertificateDer, WebhookSettings};
