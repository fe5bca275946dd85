//! What the client does beyond asking: revalidating what it holds, waiting out a `429` within its
//! budget, telling refusals as problems, reporting the rate limit, and resuming a download.

use std::time::{Duration, Instant};

use tapster_client::*;
use tapster_domain::Limits;

use crate::{client, key_with, server};

#[tokio::test]
async fn a_held_answer_is_revalidated_and_read_from_memory() {
    let server = server();
    let cached = Client::builder(&server.base, &server.key).etag_cache(true).build().unwrap();
    let first = cached.versions().await.unwrap();
    assert!(!first.revalidated && first.etag.is_some());
    let second = cached.versions().await.unwrap();
    assert!(second.revalidated, "the server answered 304 and the body came from the cache");
    assert_eq!((second.data, second.etag), (first.data, first.etag));
    // Without the cache, every answer is read afresh.
    assert!(!client().versions().await.unwrap().revalidated);
    // An answer about this moment (`no-store`) is never kept, so never answered from memory.
    cached.key().await.unwrap();
    let again = cached.key().await.unwrap();
    assert!(!again.revalidated, "/v1/key is no-store");
}

#[tokio::test]
async fn a_429_is_waited_out_within_the_budget_and_told_beyond_it() {
    // One request a second, at most one at once: the probe that saw the key working used it up.
    let key = key_with(Limits::new(60, 1, 10_000).unwrap()).await;
    let base = &server().base;
    let impatient = Client::builder(base, &key).max_wait(Duration::ZERO).build().unwrap();
    match impatient.versions().await {
        Err(Error::RateLimited { retry_after, problem }) => {
            assert!((1..=2).contains(&retry_after), "{retry_after}");
            assert_eq!(problem.violated_policies.as_deref(), Some(&[LimitPolicy::Burst][..]));
        }
        other => panic!("expected a 429, got {other:?}"),
    }
    let patient = Client::builder(base, &key).max_wait(Duration::from_secs(5)).build().unwrap();
    let started = Instant::now();
    patient.versions().await.unwrap();
    patient.versions().await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(900), "it waited for the burst to refill");
    let state = patient.rate_limit().expect("the answer said where the key stands");
    assert_eq!(state.policy, LimitPolicy::Burst);
    assert_eq!(state.remaining, 0);
}

#[tokio::test]
async fn refusals_are_their_problems() {
    let client = client();
    match client.item("no-such-item", &ItemQuery::default()).await {
        Err(Error::Api { problem }) => {
            assert_eq!((problem.status, problem.kind.as_str()), (404, "/errors/not-found"));
            assert!(problem.detail.contains("no-such-item"), "{}", problem.detail);
        }
        other => panic!("expected a 404, got {other:?}"),
    }
    match client.items(&ItemsQuery { limit: Some(0), ..Default::default() }).await {
        Err(Error::Api { problem }) => {
            assert_eq!(problem.status, 422);
            assert_eq!(problem.errors.unwrap()[0].parameter, "limit");
        }
        other => panic!("expected a 422, got {other:?}"),
    }
    let stranger =
        Client::builder(&server().base, "tap_000000000000000000000000000000000000").build().unwrap();
    assert!(matches!(stranger.key().await, Err(Error::Api { problem }) if problem.status == 401));
    assert!(matches!(Client::builder("ftp://example.org", "k").build(), Err(Error::Config(_))));
}

#[tokio::test]
async fn an_export_resumes_where_it_was_cut() {
    let client = client();
    let export = client.exports().await.unwrap().data.into_iter().find(|e| e.lang == Lang::Ja).unwrap();
    let whole = client.export_file(&export).await.unwrap();
    assert_eq!(whole.len() as u64, export.size);
    let rest = client.export_file_from(&export, 1000).await.unwrap();
    assert_eq!(rest, whole.slice(1000..));
    // A listing older than the file: the server would send all of it, which is told, not spliced.
    let stale = Export { sha256: "0".repeat(64), ..export };
    assert!(matches!(client.export_file_from(&stale, 1000).await, Err(Error::Unexpected { .. })));
}

#[tokio::test]
async fn an_icon_url_gives_its_picture_in_the_size_and_format_asked_for() {
    let client = client();
    let item = client.item("pale-ale", &ItemQuery::default()).await.unwrap().data;
    let url = item.summary.icon_url.expect("the small dataset's pale ale has an icon");
    let png = client.picture(&url, &PictureQuery::default()).await.unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // The URL names the bytes: their SHA-256 is the hash in it.
    let hash = tapster_domain::hex(&<sha2::Sha256 as sha2::Digest>::digest(&png));
    assert!(url.contains(&format!("/assets/{hash}/")), "{url}");
    let small = PictureQuery { size: Some(PictureSize::Px32), format: Some(PictureFormat::Webp) };
    let webp = client.picture(&url, &small).await.unwrap();
    assert!(webp.starts_with(b"RIFF") && &webp[8..12] == b"WEBP");
    // The width and height of a lossless WebP, 14 bits each, after its signature byte.
    let bits = u32::from_le_bytes([webp[21], webp[22], webp[23], webp[24]]);
    assert_eq!(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1), (32, 32));

    match client.picture("/v1/items/pale-ale", &PictureQuery::default()).await {
        Err(Error::Config(message)) => assert!(message.contains("not a picture's URL"), "{message}"),
        other => panic!("expected a refusal of the URL, got {other:?}"),
    }
    // Every picture of the version in one archive, its manifest first.
    let archive = client.icons_file("latest").await.unwrap();
    assert_eq!(&archive[..13], b"manifest.json");
    let unknown = url.replace(&hash, &"0".repeat(64));
    match client.picture(&unknown, &PictureQuery::default()).await {
        Err(Error::Api { problem }) => assert_eq!(problem.status, 404),
        other => panic!("expected a 404, got {other:?}"),
    }
}
