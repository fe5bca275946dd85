//! What typical requests cost inside the process, endpoint by endpoint, on the bundled dataset: no
//! socket, just routing, the gate, the catalog and rendering, once with the response cache and once
//! without it (every answer rendered afresh).
//!
//! Run with `cargo bench -p tapster-http --bench requests`. The machine is shared and noisy, so each
//! figure is a median over many batches and is also given as a ratio to the first row (`/healthz`
//! from the cached app, the cheapest route through the same stack), measured in the same run.

#![allow(clippy::print_stdout, reason = "a benchmark reports on the console")]

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::Request;
use tapster_domain::ApiKey;
use tapster_http::{Admission, App, CallingKey, Credentials, Gate, Quota, Refusal, Verdict};
use tapster_test_support::DataDir;
use tapster_test_support::ready;

/// Requests per batch, and batches per request kind.
const BATCH: u32 = 200;
const BATCHES: usize = 15;

/// Admits every well-formed key without limits, as one key described once (as the real gate
/// describes each key once): the gate's own cost is the server crate's to measure.
#[derive(Debug)]
struct Open(Arc<CallingKey>);

impl Open {
    fn new() -> Self {
        Self(Arc::new(CallingKey {
            prefix: "tap_benchmrk".to_owned(),
            name: "bench".to_owned(),
            expires_at: None,
        }))
    }
}

impl Gate for Open {
    fn admit(&self, _: IpAddr, credentials: &Credentials, _: Option<&str>) -> Verdict {
        let decided = match credentials {
            Credentials::Key(_) => Ok(Admission {
                key: Arc::clone(&self.0),
                quota: Quota::default(),
                requests_today: 0,
                allowed_origin: None,
            }),
            _ => Err(Refusal::MissingKey),
        };
        decided.into()
    }
}

const REQUESTS: &[&str] = &[
    "/healthz",
    "/v1/versions",
    "/v1/versions/latest",
    "/v1/languages?lang=de",
    "/v1/items/pale-ale",
    "/v1/items/3002?lang=ja&expand=recipes,shops,groups",
    "/v1/items?limit=100",
    "/v1/items?limit=100&lang=fr&sort=name",
    "/v1/items?kind=drink&can_be_aged=true&sort=-price&limit=20",
    "/v1/items?ids=1000,3002,4104,5138&fields=id,name",
    "/v1/recipes?limit=100&include_replaced=true",
    "/v1/recipes/pale-ale?lang=de",
    "/v1/ingredient-groups/any-malt?lang=fr",
    "/v1/crafters",
    "/v1/crops?season=winter&sort=name&lang=ja",
    "/v1/shops",
    "/v1/shops/hollins-general-store",
    "/v1/npcs?lang=ko",
    "/v1/fish?water=SaltWater&limit=100",
    "/v1/quests?limit=100&lang=ru",
    "/v1/quests/Daily.Bread?lang=de",
    "/v1/reputation?limit=100",
    "/v1/versions/latest/changes?limit=100",
];

fn main() {
    let store = tapster_store::Store::open(DataDir::bundled().path()).expect("the store opens");
    let cached = App::new(store.clone(), Open::new());
    let uncached = App::new(store, Open::new()).with_cache_budget(0);
    let key = ApiKey::generate(|| 7);
    let authorization = format!("Bearer {}", key.expose());
    let peer = IpAddr::V4(Ipv4Addr::LOCALHOST);

    let mut reference = None;
    println!(
        "{:<60} {:>10} {:>8} {:>10} {:>8} {:>9}",
        "request (median of batches)", "cached µs", "ratio", "fresh µs", "ratio", "bytes"
    );
    // `cargo bench -p tapster-http --bench requests -- sort=name` measures only the requests that
    // contain it (and `/healthz`, the reference).
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wanted = |path: &&&str| *path == &"/healthz" || only.iter().all(|part| path.contains(part.as_str()));
    for path in REQUESTS.iter().filter(wanted) {
        let request =
            Request::get(*path).header("authorization", &authorization).body(()).expect("a request");
        let response = ready(uncached.handle(&request, peer));
        assert!(response.status().is_success(), "{path} answered {}", response.status());
        let size = hyper::body::Body::size_hint(response.body()).exact().unwrap_or_default();
        let hit = median(|| ready(cached.handle(&request, peer)));
        let fresh = median(|| ready(uncached.handle(&request, peer)));
        let reference = *reference.get_or_insert(hit);
        let ratio = |d: Duration| d.as_secs_f64() / reference.as_secs_f64();
        println!(
            "{path:<60} {:>10.1} {:>7.1}x {:>10.1} {:>7.1}x {size:>9}",
            hit.as_secs_f64() * 1e6,
            ratio(hit),
            fresh.as_secs_f64() * 1e6,
            ratio(fresh)
        );
    }
}

/// The median over batches of the time one call of `answer` takes.
fn median<T>(mut answer: impl FnMut() -> T) -> Duration {
    let mut batches: Vec<Duration> = (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..BATCH {
                std::hint::black_box(answer());
            }
            start.elapsed() / BATCH
        })
        .collect();
    batches.sort();
    batches[BATCHES / 2]
}
