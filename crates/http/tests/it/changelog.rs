//! The changelog page and feed, and the public address they and the OpenAPI document name.

use std::net::{IpAddr, Ipv4Addr};

use http_body_util::BodyExt;
use hyper::{Request, StatusCode};
use serde_json::Value;
use tapster_http::App;
use tapster_store::Store;

use crate::{OneKey, bundled_data_dir};

/// Status, content type and body of `path` answered by `app`, without a socket.
fn answer(app: &App, path: &str) -> (StatusCode, String, String) {
    let request = Request::get(path).body(http_body_util::Empty::<bytes::Bytes>::new()).unwrap();
    let response = tapster_test_support::ready(app.handle(&request, IpAddr::V4(Ipv4Addr::LOCALHOST)));
    let status = response.status();
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let body = runtime.block_on(response.into_body().collect()).unwrap().to_bytes();
    (status, content_type, String::from_utf8(body.to_vec()).unwrap())
}

/// Every `<tag>...</tag>` text of `xml`, in order.
fn texts<'x>(xml: &'x str, tag: &str) -> Vec<&'x str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    xml.split(&open).skip(1).filter_map(|rest| rest.split(&close).next()).collect()
}

/// Text with the character references that XML and HTML escaping write turned back into characters.
fn unescape(text: &str) -> String {
    [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&apos;", "'"),
        ("&#x27;", "'"),
        ("&#39;", "'"),
        ("&#34;", "\""),
    ]
    .iter()
    .fold(text.to_owned(), |text, (reference, character)| text.replace(reference, character))
    .replace("&amp;", "&")
}

#[test]
fn the_feed_links_to_the_page_section_of_each_version_at_the_public_address() {
    let store = Store::open(bundled_data_dir()).unwrap();
    let versions: Vec<String> = store.versions().map(|c| c.info.name.to_string()).collect();
    let app = App::new(store, OneKey::default()).with_public_url("https://api.example.com/");

    let (status, content_type, feed) = answer(&app, "/changelog.rss");
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "application/rss+xml; charset=utf-8"));
    let links = texts(&feed, "link");
    let expected: Vec<String> = std::iter::once("https://api.example.com/changelog".to_owned())
        .chain(versions.iter().map(|v| format!("https://api.example.com/changelog#{v}")))
        .collect();
    assert_eq!(links, expected);

    // The page, which needs no key, has a section for each link's fragment, newest first.
    let (status, content_type, page) = answer(&app, "/changelog");
    assert_eq!((status, content_type.as_str()), (StatusCode::OK, "text/html; charset=utf-8"));
    let ids: Vec<&str> =
        page.split("<section id=\"").skip(1).filter_map(|rest| rest.split('"').next()).collect();
    assert_eq!(ids, versions.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(page.contains("href=\"https://api.example.com/changelog.rss\""), "{page}");
    // The site's layout, as `/` and `/docs` have it: title, style sheet, header, no style of its own.
    assert!(page.contains("<title>Game data versions · Tapster</title>"), "{page:.600}");
    assert!(page.contains(r#"<link rel="stylesheet" href="/static/style.css">"#), "{page:.600}");
    assert!(!page.contains("<style"), "page-specific rules belong in the style sheet");
    assert!(page.contains(r#"<a href="/changelog" aria-current="page">Changelog</a>"#), "{page:.1200}");
    assert!(page.contains(r#"<a href="/signin">Sign in</a>"#), "{page:.1200}");
    // Every feed item's summary is on the page too (each document escapes it its own way).
    let page_text = unescape(&page);
    for description in texts(&feed, "description").iter().skip(1) {
        assert!(page_text.contains(&unescape(description)), "{description}");
    }

    let (_, _, document) = answer(&app, "/openapi.json");
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!(document["servers"][0]["url"], "https://api.example.com");
}

#[test]
fn without_a_public_address_links_are_relative() {
    let store = Store::open(bundled_data_dir()).unwrap();
    let latest = store.latest().info.name.to_string();
    let app = App::new(store, OneKey::default());
    let (_, _, feed) = answer(&app, "/changelog.rss");
    assert_eq!(texts(&feed, "link")[..2], ["/changelog".to_owned(), format!("/changelog#{latest}")]);
    let (_, _, document) = answer(&app, "/openapi.json");
    let document: Value = serde_json::from_str(&document).unwrap();
    assert_eq!(document["servers"][0]["url"], "/");
}
