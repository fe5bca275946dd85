//! The service's counters, served at `GET /metrics` in the Prometheus text format (version 0.0.4):
//! requests by route template and status, a latency histogram, response-cache hits and misses,
//! rate-limit refusals, authentication failures by reason and the number of published game versions.
//!
//! Every counter is a relaxed atomic in memory laid out once, when the [`App`](crate::App) is made:
//! a request adds to its route-and-status counter, its latency bucket, the latency sum and, for a
//! `/v1` data answer, the cache hit or miss counter; nothing locks and nothing allocates. Route labels
//! are the templates of the fixed endpoint table (`/v1/items/{key}`, `/metrics`), `pages` for the
//! pages served beside the API, and one shared label for everything else, so the set of series is
//! bounded whatever clients ask for.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hyper::StatusCode;
use hyper::header::{CONTENT_TYPE, HeaderMap, HeaderValue};

use crate::gate::Refusal;
use crate::response::Reply;

/// The media type of the Prometheus text format.
const TEXT_FORMAT: HeaderValue = HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");

/// The route label of every request to the pages served beside the API (the dashboard).
const PAGES_LABEL: &str = "pages";
/// The route label shared by every path that matches no endpoint.
const UNMATCHED_LABEL: &str = "unmatched";

/// Statuses are counted from 100 to 599, one slot each. The service never answers outside that
/// range (hyper's `StatusCode` reaches 999); such a status would be counted as 599.
const FIRST_STATUS: u16 = 100;
const LAST_STATUS: u16 = 599;
const STATUS_SLOTS: usize = (LAST_STATUS - FIRST_STATUS + 1) as usize;

/// Upper bounds of the latency buckets, in nanoseconds and as the `le` label writes them. Answers
/// from the cache take microseconds, rendered ones up to milliseconds.
const BUCKETS: [(u64, &str); 19] = [
    (10_000, "0.00001"),
    (25_000, "0.000025"),
    (50_000, "0.00005"),
    (100_000, "0.0001"),
    (250_000, "0.00025"),
    (500_000, "0.0005"),
    (1_000_000, "0.001"),
    (2_500_000, "0.0025"),
    (5_000_000, "0.005"),
    (10_000_000, "0.01"),
    (25_000_000, "0.025"),
    (50_000_000, "0.05"),
    (100_000_000, "0.1"),
    (250_000_000, "0.25"),
    (500_000_000, "0.5"),
    (1_000_000_000, "1"),
    (2_500_000_000, "2.5"),
    (5_000_000_000, "5"),
    (10_000_000_000, "10"),
];

/// Why a `/v1` request failed authentication (answered `401`), as the `reason` label names it.
const AUTH_FAILURES: [&str; 5] =
    ["missing_key", "malformed_key", "unknown_key", "revoked_key", "expired_key"];
/// Which limit refused a request (answered `429`), as the `limit` label names it.
const RATE_LIMITS: [&str; 2] = ["key", "failed_authentications"];

/// Which route label a request is counted under: an index into [`Metrics`]' labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Route(usize);

/// Whether a `/v1` data answer came from the response cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Served from the cache.
    Hit,
    /// Looked up, not found, rendered now.
    Miss,
    /// Not looked up: the cache is off, or the request has no canonical form.
    Bypass,
}

/// The counters of one [`App`](crate::App).
#[derive(Debug)]
pub(crate) struct Metrics {
    /// The endpoint templates in table order, then [`METRICS_LABEL`], [`PAGES_LABEL`] and
    /// [`UNMATCHED_LABEL`].
    labels: Vec<&'static str>,
    /// `labels.len() * STATUS_SLOTS` counters: route-major, then status.
    requests: Box<[AtomicU64]>,
    /// Requests per latency bucket, not cumulative; the last one is above every bound (`+Inf`).
    buckets: [AtomicU64; BUCKETS.len() + 1],
    latency_nanos: AtomicU64,
    cache_hits: AtomicU64,
    cache_misses: AtomicU64,
    auth_failures: [AtomicU64; AUTH_FAILURES.len()],
    rate_limited: [AtomicU64; RATE_LIMITS.len()],
    /// The stores the service depends on beyond its own memory (the shared accounts, Redis).
    dependencies: Vec<Dependency>,
    /// The generation of published game data served, and its SHA-256, when the server follows them.
    generation: Option<Served>,
}

/// How to ask which generation of published game data is served: its number and SHA-256 in hex.
struct Served(Box<dyn Fn() -> Option<(i64, String)> + Send + Sync>);

impl std::fmt::Debug for Served {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Served").finish_non_exhaustive()
    }
}

/// A store the service depends on, and how to ask whether it works around its absence now.
pub(crate) struct Dependency {
    pub(crate) name: &'static str,
    /// Why the service is degraded without it, while it is; `None` while it answers.
    pub(crate) trouble: Box<dyn Fn() -> Option<String> + Send + Sync>,
}

impl std::fmt::Debug for Dependency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dependency").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Metrics {
    /// Counters for the endpoints whose templates are `templates`, in the order routing numbers them.
    pub(crate) fn new(templates: impl IntoIterator<Item = &'static str>) -> Self {
        let mut labels: Vec<&'static str> = templates.into_iter().collect();
        labels.extend([PAGES_LABEL, UNMATCHED_LABEL]);
        let requests = (0..labels.len() * STATUS_SLOTS).map(|_| AtomicU64::new(0)).collect();
        Self {
            labels,
            requests,
            buckets: Default::default(),
            latency_nanos: AtomicU64::new(0),
            cache_hits: AtomicU64::new(0),
            cache_misses: AtomicU64::new(0),
            auth_failures: Default::default(),
            rate_limited: Default::default(),
            dependencies: Vec::new(),
            generation: None,
        }
    }

    /// Reports on `dependency` in `/metrics` and `/healthz` from now on.
    pub(crate) fn depend_on(&mut self, dependency: Dependency) {
        self.dependencies.push(dependency);
    }

    /// Reports the generation of published game data served in `/metrics` and `/healthz` from now on.
    pub(crate) fn serve_generation(&mut self, served: Box<dyn Fn() -> Option<(i64, String)> + Send + Sync>) {
        self.generation = Some(Served(served));
    }

    /// The generation of published game data served now, and its SHA-256.
    pub(crate) fn generation(&self) -> Option<(i64, String)> {
        self.generation.as_ref().and_then(|served| (served.0)())
    }

    /// The dependencies the service works around now, by name, with why.
    pub(crate) fn troubles(&self) -> Vec<(&'static str, String)> {
        self.dependencies.iter().filter_map(|d| Some((d.name, (d.trouble)()?))).collect()
    }

    /// The route of the endpoint at `index` in the table; out of range, the unmatched route.
    pub(crate) fn endpoint(&self, index: usize) -> Route {
        if index < self.labels.len() - 2 { Route(index) } else { self.unmatched() }
    }

    /// The route of every request to the pages.
    pub(crate) fn pages_route(&self) -> Route {
        Route(self.labels.len() - 2)
    }

    /// The route shared by every path that matches no endpoint.
    pub(crate) fn unmatched(&self) -> Route {
        Route(self.labels.len() - 1)
    }

    /// The route's label: its template, `pages` or `unmatched`.
    pub(crate) fn label(&self, route: Route) -> &'static str {
        self.labels[route.0]
    }

    /// Counts one answered request and how long it took.
    pub(crate) fn record(&self, route: Route, status: StatusCode, elapsed: Duration) {
        let status = status.as_u16().clamp(FIRST_STATUS, LAST_STATUS);
        let slot = route.0 * STATUS_SLOTS + usize::from(status - FIRST_STATUS);
        self.requests[slot].fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let bucket = BUCKETS.partition_point(|(bound, _)| *bound < nanos);
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.latency_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// Counts whether a `/v1` data answer came from the response cache.
    pub(crate) fn lookup(&self, lookup: Lookup) {
        match lookup {
            Lookup::Hit => self.cache_hits.fetch_add(1, Ordering::Relaxed),
            Lookup::Miss => self.cache_misses.fetch_add(1, Ordering::Relaxed),
            Lookup::Bypass => return,
        };
    }

    /// Counts a request the gate refused: authentication failures and rate limits have their own
    /// counters; forbidden keys, accounts and addresses show only in the requests by status.
    pub(crate) fn refused(&self, refusal: &Refusal) {
        let counter = match refusal {
            Refusal::MissingKey => &self.auth_failures[0],
            Refusal::MalformedKey { .. } => &self.auth_failures[1],
            Refusal::UnknownKey => &self.auth_failures[2],
            Refusal::RevokedKey => &self.auth_failures[3],
            Refusal::ExpiredKey => &self.auth_failures[4],
            Refusal::RateLimited { .. } => &self.rate_limited[0],
            Refusal::TooManyFailures { .. } => &self.rate_limited[1],
            Refusal::SuspendedKey
            | Refusal::SuspendedAccount
            | Refusal::UnconfirmedAccount
            | Refusal::BlockedAddress
            | Refusal::OriginNotAllowed { .. } => return,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The body of `GET /metrics`, never cached; `game_versions` is the number published now.
    pub(crate) fn answer(&self, game_versions: usize) -> Reply {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, TEXT_FORMAT);
        Reply::new(StatusCode::OK, headers, self.render(game_versions)).private()
    }

    /// Every counter in the Prometheus text format; `game_versions` is the number published now.
    /// Request series appear once their count is above zero.
    pub(crate) fn render(&self, game_versions: usize) -> String {
        let mut out = String::with_capacity(4096);
        header(
            &mut out,
            "tapster_http_requests_total",
            "counter",
            "Requests answered, by route template and status.",
        );
        for (route, label) in self.labels.iter().enumerate() {
            let counters = &self.requests[route * STATUS_SLOTS..(route + 1) * STATUS_SLOTS];
            for (slot, counter) in counters.iter().enumerate() {
                let count = counter.load(Ordering::Relaxed);
                if count > 0 {
                    let status = FIRST_STATUS as usize + slot;
                    let _ = writeln!(
                        out,
                        "tapster_http_requests_total{{route=\"{}\",status=\"{status}\"}} {count}",
                        escape(label)
                    );
                }
            }
        }

        let name = "tapster_http_request_duration_seconds";
        header(
            &mut out,
            name,
            "histogram",
            "Time from a request's arrival in the service to its answer, in seconds.",
        );
        let mut cumulative = 0;
        for ((_, le), counter) in BUCKETS.iter().zip(&self.buckets) {
            cumulative += counter.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{le}\"}} {cumulative}");
        }
        cumulative += self.buckets[BUCKETS.len()].load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {cumulative}");
        let seconds = self.latency_nanos.load(Ordering::Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "{name}_sum {seconds}");
        let _ = writeln!(out, "{name}_count {cumulative}");

        for (name, help, counter) in [
            (
                "tapster_response_cache_hits_total",
                "/v1 answers served from the response cache.",
                &self.cache_hits,
            ),
            (
                "tapster_response_cache_misses_total",
                "/v1 answers looked up in the response cache, not found and rendered.",
                &self.cache_misses,
            ),
        ] {
            header(&mut out, name, "counter", help);
            let _ = writeln!(out, "{name} {}", counter.load(Ordering::Relaxed));
        }

        let name = "tapster_http_auth_failures_total";
        header(&mut out, name, "counter", "/v1 requests refused as unauthorized (401), by reason.");
        for (reason, counter) in AUTH_FAILURES.iter().zip(&self.auth_failures) {
            let _ = writeln!(out, "{name}{{reason=\"{reason}\"}} {}", counter.load(Ordering::Relaxed));
        }
        let name = "tapster_http_rate_limited_total";
        header(
            &mut out,
            name,
            "counter",
            "/v1 requests refused with 429, by limit: a key's rate limits, or the failed authentications of an address.",
        );
        for (limit, counter) in RATE_LIMITS.iter().zip(&self.rate_limited) {
            let _ = writeln!(out, "{name}{{limit=\"{limit}\"}} {}", counter.load(Ordering::Relaxed));
        }

        let name = "tapster_game_versions";
        header(&mut out, name, "gauge", "Game versions published now.");
        let _ = writeln!(out, "{name} {game_versions}");

        if let Some((number, sha256)) = self.generation() {
            let name = "tapster_game_data_generation";
            header(
                &mut out,
                name,
                "gauge",
                "The generation of published game data served, labelled by its SHA-256.",
            );
            let _ = writeln!(out, "{name}{{sha256=\"{}\"}} {number}", escape(&sha256));
        }

        if !self.dependencies.is_empty() {
            let name = "tapster_dependency_up";
            header(
                &mut out,
                name,
                "gauge",
                "1 while a store the service shares with other replicas answers; 0 while it works around its absence.",
            );
            for dependency in &self.dependencies {
                let up = u8::from((dependency.trouble)().is_none());
                let _ = writeln!(out, "{name}{{dependency=\"{}\"}} {up}", escape(dependency.name));
            }
        }
        out
    }
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A label value as the text format quotes it: backslash, double quote and line feed escaped.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Quota;

    fn metrics() -> Metrics {
        Metrics::new(["/healthz", "/v1/items/{key}", "/metrics"])
    }

    /// The value of the sample line `series` (name and labels exactly as written).
    fn sample(text: &str, series: &str) -> Option<f64> {
        text.lines().find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn requests_are_counted_by_route_and_status() {
        let metrics = metrics();
        let item = metrics.endpoint(1);
        metrics.record(item, StatusCode::OK, Duration::from_micros(3));
        metrics.record(item, StatusCode::OK, Duration::from_micros(3));
        metrics.record(item, StatusCode::NOT_FOUND, Duration::from_micros(3));
        metrics.record(metrics.unmatched(), StatusCode::NOT_FOUND, Duration::from_micros(3));
        metrics.record(metrics.endpoint(99), StatusCode::NOT_FOUND, Duration::from_micros(3));
        let text = metrics.render(3);
        let count = |route: &str, status: u16| {
            sample(&text, &format!("tapster_http_requests_total{{route=\"{route}\",status=\"{status}\"}}"))
        };
        assert_eq!(count("/v1/items/{key}", 200), Some(2.0));
        assert_eq!(count("/v1/items/{key}", 404), Some(1.0));
        assert_eq!(count("unmatched", 404), Some(2.0));
        assert_eq!(count("/healthz", 200), None, "series without requests are left out");
        assert_eq!(metrics.label(metrics.endpoint(2)), "/metrics");
        assert_eq!(sample(&text, "tapster_game_versions"), Some(3.0));
    }

    #[test]
    fn latencies_fall_in_cumulative_buckets_with_their_sum_and_count() {
        let metrics = metrics();
        let route = metrics.endpoint(0);
        for micros in [5, 10, 11, 300, 20_000_000] {
            metrics.record(route, StatusCode::OK, Duration::from_micros(micros));
        }
        let text = metrics.render(1);
        let bucket =
            |le: &str| sample(&text, &format!("tapster_http_request_duration_seconds_bucket{{le=\"{le}\"}}"));
        // The bounds are inclusive: 10 µs falls in the 10 µs bucket.
        assert_eq!(bucket("0.00001"), Some(2.0));
        assert_eq!(bucket("0.000025"), Some(3.0));
        assert_eq!(bucket("0.00025"), Some(3.0));
        assert_eq!(bucket("0.0005"), Some(4.0));
        assert_eq!(bucket("10"), Some(4.0));
        assert_eq!(bucket("+Inf"), Some(5.0));
        assert_eq!(sample(&text, "tapster_http_request_duration_seconds_count"), Some(5.0));
        let sum = sample(&text, "tapster_http_request_duration_seconds_sum").unwrap();
        assert!((sum - 20.000326).abs() < 1e-9, "{sum}");
    }

    #[test]
    fn refusals_and_cache_lookups_have_their_counters() {
        let metrics = metrics();
        let quota = Quota::default();
        for refusal in [
            Refusal::MissingKey,
            Refusal::MissingKey,
            Refusal::MalformedKey { detail: "x" },
            Refusal::UnknownKey,
            Refusal::RevokedKey,
            Refusal::ExpiredKey,
            Refusal::RateLimited { quota: Box::new(quota), retry_after: 1 },
            Refusal::TooManyFailures { retry_after: 3 },
            Refusal::SuspendedKey,
            Refusal::BlockedAddress,
        ] {
            metrics.refused(&refusal);
        }
        for lookup in [Lookup::Hit, Lookup::Hit, Lookup::Miss, Lookup::Bypass] {
            metrics.lookup(lookup);
        }
        let text = metrics.render(1);
        let expected = [
            ("tapster_http_auth_failures_total{reason=\"missing_key\"}", 2.0),
            ("tapster_http_auth_failures_total{reason=\"malformed_key\"}", 1.0),
            ("tapster_http_auth_failures_total{reason=\"unknown_key\"}", 1.0),
            ("tapster_http_auth_failures_total{reason=\"revoked_key\"}", 1.0),
            ("tapster_http_auth_failures_total{reason=\"expired_key\"}", 1.0),
            ("tapster_http_rate_limited_total{limit=\"key\"}", 1.0),
            ("tapster_http_rate_limited_total{limit=\"failed_authentications\"}", 1.0),
            ("tapster_response_cache_hits_total", 2.0),
            ("tapster_response_cache_misses_total", 1.0),
        ];
        for (series, value) in expected {
            assert_eq!(sample(&text, series), Some(value), "{series}\n{text}");
        }
    }

    #[test]
    fn every_series_is_declared_once_before_its_samples() {
        let metrics = metrics();
        metrics.record(metrics.endpoint(1), StatusCode::OK, Duration::from_micros(40));
        let text = metrics.render(2);
        let mut declared: Vec<&str> = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').unwrap();
                assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
                assert!(!declared.contains(&name), "{name} declared twice");
                declared.push(name);
                continue;
            }
            if line.starts_with("# HELP ") {
                continue;
            }
            let name = line.split(['{', ' ']).next().unwrap();
            let family = declared.last().unwrap();
            assert!(
                name == *family
                    || ["_bucket", "_sum", "_count"].iter().any(|s| name == format!("{family}{s}")),
                "{line} is not of {family}"
            );
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(escape("/v1/items/{key}"), "/v1/items/{key}");
    }
}
