//! `GET /docs`: the reference page says what the OpenAPI document says, route by route, escaped.

use hyper::{Method, StatusCode};

use crate::{bundled_get, request_with};

#[test]
fn the_reference_page_shows_every_route_with_its_parameters_and_an_example() {
    let answer = request_with(Method::GET, "/docs", &[]);
    assert_eq!(answer.status, StatusCode::OK, "no key is needed");
    assert_eq!(answer.content_type(), "text/html; charset=utf-8");
    let csp = answer.headers["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("default-src 'none'") && csp.contains("script-src 'self'"), "{csp}");
    assert!(csp.contains("style-src 'self';"), "the site's style sheet, and no style of its own: {csp}");
    // Without pages beside the API nobody is signed in: the answer is the same for every cookie.
    assert!(!answer.headers.contains_key("vary"), "{:?}", answer.headers);

    let page = String::from_utf8(bundled_get("/docs").body.to_vec()).unwrap();
    // The site's layout: its title, language, style sheet, and header, over the page's own content.
    assert!(page.starts_with("<!doctype html>\n<html lang=\"en\">"), "{page:.200}");
    assert!(page.contains("<title>API reference · Tapster</title>"));
    assert!(page.contains(r#"<link rel="stylesheet" href="/static/style.css">"#));
    assert!(!page.contains("<style"), "page-specific rules belong in the style sheet");
    assert_eq!(page.matches("<header class=\"top\">").count(), 1);
    assert!(page.contains(r#"<a href="/docs" aria-current="page">API reference</a>"#));
    assert!(page.contains(r#"<a href="/signin">Sign in</a>"#) && !page.contains("Your keys"));
    // Nothing on the page scrolls sideways (its tables and answers wrap, see the style sheet), so
    // nothing needs a tab stop of its own to be scrolled: the keyboard goes from link to link.
    let stops: Vec<&str> = page.lines().filter(|line| line.contains("tabindex")).collect();
    assert!(stops.is_empty(), "tab stops of their own: {stops:#?}");
    let at = |text: &str| page.find(text).unwrap_or_else(|| panic!("no {text}"));
    assert!(
        at("</header>") < at("<main id=\"main\">") && at("<main id=\"main\">") < at("<h1>API reference</h1>")
    );
    let document = bundled_get("/openapi.json").json();
    for (path, item) in document["paths"].as_object().unwrap() {
        let id = item["get"]["operationId"].as_str().unwrap();
        assert!(page.contains(&format!("<article class=\"op\" id=\"{id}\">")), "{id}");
        assert!(page.contains(&format!("<h3><code>GET {path}</code></h3>")), "{path}");
    }
    // `/v1/items`: bounds, defaults and allowed values, as the document gives them.
    let items = &page[page.find("id=\"getItems\"").unwrap()..page.find("id=\"getItemsByKey\"").unwrap()];
    assert!(items.contains("<code>limit</code>"), "{items}");
    assert!(items.contains("integer, 1 to 100, default <code>50</code>"), "{items}");
    assert!(items.contains("one of <code>ingredient</code><code>material</code>"), "{items}");
    assert!(items.contains("(needs an API key)"));
    assert!(items.contains("<summary>Answers: 200, 304, 400, 401, 403"), "{items}");
    // The example answer, escaped inside its block.
    assert!(items.contains("<pre><code>{\n  &#34;data&#34;: ["), "{items}");
    // The document's prose keeps its code spans as code and nothing as markup.
    assert!(page.contains("<code>Authorization: Bearer tap_...</code>"));
    assert!(!page.contains("<key>"));
    // Each keyed route has a "try it" form, hidden until the dashboard's script shows it, filled with
    // the route's example request.
    assert!(items.contains(r#"<form class="try" data-path="/v1/items" hidden>"#), "{items}");
    assert!(items.contains(r#"<option selected>drink</option>"#), "{items}");
    assert!(items.contains(r#"<input name="limit" data-in="query" value="2">"#), "{items}");
    let item =
        &page[page.find("id=\"getItemsByKey\"").unwrap()..page.find("id=\"getItemsByKeyUsedIn\"").unwrap()];
    assert!(item.contains(r#"<input name="key" data-in="path" value="pale-ale" required>"#), "{item}");
    assert!(page.contains(r#"<script src="/static/try.js" defer></script>"#));
    let health = &page[page.find("id=\"getHealthz\"").unwrap()..page.find("id=\"getOpenapiJson\"").unwrap()];
    assert!(!health.contains("<form"), "public routes need no key to try: {health}");
    assert!(!health.contains("(needs an API key)"), "{health}");
}

/// The webhooks have one section after the routes: each event with its body's schema and what it
/// tells, and the headers every delivery carries, escaped as the rest of the page is.
#[test]
fn the_reference_page_lists_the_webhooks() {
    let page = String::from_utf8(bundled_get("/docs").body.to_vec()).unwrap();
    let document = bundled_get("/openapi.json").json();
    assert_eq!(page.matches("<h2>webhooks</h2>").count(), 1, "one section, no empty one of routes");
    let section = &page[page.find("<section id=\"tag-webhooks\">").expect("the webhooks' section")..];
    for (name, item) in document["webhooks"].as_object().unwrap() {
        let op = &item["post"];
        let id = op["operationId"].as_str().unwrap();
        assert!(
            page.contains(&format!("<a href=\"#{id}\"><code>POST {name}</code></a>")),
            "{name} in the contents"
        );
        assert!(section.contains(&format!("<tr id=\"{id}\">\n<td><code>{name}</code></td>")), "{name}");
        let schema = op["requestBody"]["content"]["application/json"]["schema"]["$ref"].as_str().unwrap();
        let schema = schema.rsplit('/').next().unwrap();
        assert!(section.contains(&format!("<td><code>{schema}</code></td>")), "{name}: {schema}");
    }
    assert!(section.contains(
        "<summary>Headers of every delivery: webhook-id, webhook-timestamp, webhook-signature</summary>"
    ));
    assert!(section.contains("<code>{webhook-id}.{webhook-timestamp}.{body}</code>"), "{section}");
    assert!(section.contains("<summary>Answers: 2XX, default</summary>"), "{section}");
    // The tag's words, their quotes escaped.
    assert!(section.contains("docs/api.md, &quot;Webhooks&quot;."), "{section}");
}
