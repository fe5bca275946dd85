//! `GET /docs`: the API reference as a web page for people, rendered from the OpenAPI document this
//! server writes for the data it serves, which is itself written from the endpoint table and the wire
//! types. So the page says exactly what the document says: every route, each parameter with its
//! bounds, pattern and allowed values, the answers it can give, and a real example answer. It looks
//! like every page of the site (the site's layout and style sheet, `tapster-site`; each visitor's
//! header is put in as it is served, `app::pages`). Each keyed route has a
//! "try it" form, filled with its example request, which the dashboard's script (`/static/try.js`)
//! shows to a signed-in person and sends through the dashboard as one of their keys; without the
//! dashboard the forms stay hidden and the page is all there is. After the routes, the webhooks the
//! document describes: each event, the schema of its body, and the headers every delivery carries.

use askama::Template;
use serde_json::Value;
use tapster_site::HeaderSlot;

use crate::markup::escape;
use crate::routes::percent_decode;
use crate::schemas::SCHEMAS;

/// Patterns longer than this are left to the document.
const MAX_SHOWN_PATTERN: usize = 40;

/// The page.
#[derive(Debug, Template)]
#[template(path = "reference.html")]
pub(crate) struct Reference {
    /// Each visitor's header goes here when the page is served.
    nav: HeaderSlot,
    sections: Vec<Section>,
    webhooks: Option<Webhooks>,
}

/// The document's `webhooks`: the events sent to the endpoints accounts register.
#[derive(Debug)]
struct Webhooks {
    description: Html,
    events: Vec<WebhookEvent>,
    /// The headers every delivery carries: name and what it means.
    headers: Vec<(String, Html)>,
    /// What a receiver's answers mean: status and what comes of it.
    responses: Vec<(String, Html)>,
}

#[derive(Debug)]
struct WebhookEvent {
    /// The element id a link to it names: its operation id.
    anchor: String,
    /// The event type, `version.published`.
    name: String,
    /// The name of its body's schema in the document, `VersionPublishedEvent`.
    schema: String,
    summary: Html,
    description: Html,
}

/// The routes of one tag (`items`, `service`...).
#[derive(Debug)]
struct Section {
    tag: String,
    description: Html,
    operations: Vec<Operation>,
}

#[derive(Debug)]
struct Operation {
    /// The element id a link to it names: its operation id.
    anchor: String,
    path: String,
    summary: Html,
    needs_key: bool,
    parameters: Vec<Parameter>,
    /// Each answer it documents: status and what it means.
    responses: Vec<(String, Html)>,
    example: Option<Example>,
}

#[derive(Debug)]
struct Parameter {
    name: String,
    /// `path`, `query` or `header`.
    location: String,
    required: bool,
    /// Its type and bounds in words: `integer, 1 to 100, default 20`.
    shape: Html,
    /// The values it takes, when they are a closed set.
    values: Vec<String>,
    description: Html,
    /// Its value in the route's example request, for the "try it" form.
    prefill: String,
}

#[derive(Debug)]
struct Example {
    summary: String,
    body: String,
    /// The pictures of the records in the answer (an item's `icon_url`), shown beside it: each
    /// record's name and its picture's path on this site.
    pictures: Vec<(String, String)>,
}

/// Pictures shown beside one example, at most.
const MAX_PICTURES: usize = 8;

/// The `(name, icon_url)` of the records in `value` that have a picture, in the order of the
/// answer, each picture once, with `origin` (the document's server) taken off the URLs so that the
/// page loads them from itself.
fn pictures(value: &Value, origin: &str, found: &mut Vec<(String, String)>) {
    match value {
        Value::Object(object) => {
            if let (Some(Value::String(name)), Some(Value::String(url))) =
                (object.get("name"), object.get("icon_url"))
            {
                let path = url.strip_prefix(origin).filter(|p| p.starts_with('/')).unwrap_or(url);
                if found.len() < MAX_PICTURES && !found.iter().any(|(_, known)| known == path) {
                    found.push((name.clone(), path.to_owned()));
                }
            }
            object.values().for_each(|child| pictures(child, origin, found));
        }
        Value::Array(items) => items.iter().for_each(|child| pictures(child, origin, found)),
        _ => {}
    }
}

/// Text that is already HTML: escaped, with the document's `code` spans as `<code>`; the template
/// prints it with `|safe`.
#[derive(Debug)]
struct Html(String);

impl std::fmt::Display for Html {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Reference {
    /// The page of `document` (the OpenAPI document as JSON).
    pub(crate) fn of(document: &Value) -> Self {
        let mut sections: Vec<Section> = document["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|tag| Section {
                tag: tag["name"].as_str().unwrap_or_default().to_owned(),
                description: prose(tag["description"].as_str().unwrap_or_default()),
                operations: Vec::new(),
            })
            .collect();
        for (path, item) in document["paths"].as_object().into_iter().flatten() {
            let op = &item["get"];
            let tag = op["tags"][0].as_str().unwrap_or_default();
            let Some(section) = sections.iter_mut().find(|s| s.tag == tag) else { continue };
            section.operations.push(operation(document, path, op));
        }
        let webhooks = webhooks(document, &sections);
        // A tag of no route (the webhooks') has no section of routes.
        sections.retain(|s| !s.operations.is_empty());
        Self { nav: HeaderSlot, sections, webhooks }
    }
}

/// The webhooks of `document`, described by their tag's words; `None` when it has none.
fn webhooks(document: &Value, sections: &[Section]) -> Option<Webhooks> {
    let hooks = document["webhooks"].as_object().filter(|hooks| !hooks.is_empty())?;
    let mut events = Vec::new();
    let mut tag = "";
    for (name, item) in hooks {
        let op = &item["post"];
        tag = op["tags"][0].as_str().unwrap_or(tag);
        let schema = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .map(|r| r.strip_prefix(SCHEMAS).unwrap_or(r))
            .unwrap_or_default();
        events.push(WebhookEvent {
            anchor: op["operationId"].as_str().unwrap_or_default().to_owned(),
            name: name.clone(),
            schema: schema.to_owned(),
            summary: prose(op["summary"].as_str().unwrap_or_default()),
            description: prose(op["description"].as_str().unwrap_or_default()),
        });
    }
    // Every event carries the same headers and means the same by its answers: the first one says.
    let first = &hooks.values().next()?["post"];
    let headers = first["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let p = resolve(document, p);
            (
                p["name"].as_str().unwrap_or_default().to_owned(),
                prose(p["description"].as_str().unwrap_or_default()),
            )
        })
        .collect();
    let responses = first["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(status, response)| {
            (status.clone(), prose(resolve(document, response)["description"].as_str().unwrap_or_default()))
        })
        .collect();
    let description = match sections.iter().find(|s| s.tag == tag) {
        Some(section) => Html(section.description.0.clone()),
        None => Html(String::new()),
    };
    Some(Webhooks { description, events, headers, responses })
}

fn operation(document: &Value, path: &str, op: &Value) -> Operation {
    let example_target = op["responses"]["200"]["content"]
        .as_object()
        .and_then(|content| {
            content.values().find_map(|media| media["examples"]["bundled"]["summary"].as_str())
        })
        .and_then(|summary| summary.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or(path);
    let parameters = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let p = resolve(document, p);
            let prefill = example_value(path, example_target, p).unwrap_or_default();
            Parameter { prefill, ..parameter(document, p) }
        })
        .collect();
    let responses = op["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(status, response)| {
            let response = resolve(document, response);
            (status.clone(), prose(response["description"].as_str().unwrap_or_default()))
        })
        .collect();
    let example = op["responses"]["200"]["content"].as_object().and_then(|content| {
        let example = content.values().find_map(|media| media.get("examples"))?;
        let bundled = &example["bundled"];
        let body = match &bundled["value"] {
            Value::String(text) => text.clone(),
            value => serde_json::to_string_pretty(value).unwrap_or_default(),
        };
        let mut found = Vec::new();
        let origin = document["servers"][0]["url"].as_str().unwrap_or_default().trim_end_matches('/');
        pictures(&bundled["value"], origin, &mut found);
        let summary = bundled["summary"].as_str().unwrap_or_default().to_owned();
        Some(Example { summary, body, pictures: found })
    });
    Operation {
        anchor: op["operationId"].as_str().unwrap_or_default().to_owned(),
        path: path.to_owned(),
        summary: prose(op["summary"].as_str().unwrap_or_default()),
        needs_key: op["security"].as_array().is_some_and(|s| !s.is_empty()),
        parameters,
        responses,
        example,
    }
}

fn parameter(document: &Value, p: &Value) -> Parameter {
    let schema = resolve(document, &p["schema"]);
    let values: Vec<String> = schema["enum"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let mut shape = schema["type"].as_str().unwrap_or("string").to_owned();
    match (schema["minimum"].as_i64(), schema["maximum"].as_i64()) {
        (Some(min), Some(max)) => shape.push_str(&format!(", {min} to {max}")),
        (Some(min), None) => shape.push_str(&format!(", at least {min}")),
        (None, Some(max)) => shape.push_str(&format!(", at most {max}")),
        (None, None) => {}
    }
    if let Some(max) = schema["maxLength"].as_u64() {
        shape.push_str(&format!(", at most {max} characters"));
    }
    // On the parameter's schema, or on the component it refers to.
    let default =
        [&p["schema"]["default"], &schema["default"]].into_iter().find_map(|default| match default {
            Value::String(text) => Some(text.clone()),
            Value::Number(number) => Some(number.to_string()),
            _ => None,
        });
    if let Some(default) = default {
        shape.push_str(&format!(", default `{default}`"));
    }
    // A short pattern tells a person the shape; a long one (the sort keys' orders) says less than the
    // description, and stays in the document for validators.
    if let Some(pattern) = schema["pattern"].as_str().filter(|p| p.len() <= MAX_SHOWN_PATTERN) {
        shape.push_str(&format!(", matching `{pattern}`"));
    }
    Parameter {
        name: p["name"].as_str().unwrap_or_default().to_owned(),
        location: p["in"].as_str().unwrap_or_default().to_owned(),
        required: p["required"].as_bool().unwrap_or(false),
        shape: prose(&shape),
        values,
        description: prose(p["description"].as_str().unwrap_or_default()),
        prefill: String::new(),
    }
}

/// The value of parameter `p` in the example request `target` of the route `template`: a path
/// segment where the template has `{name}`, or a query value; `latest` for an unnamed version.
fn example_value(template: &str, target: &str, p: &Value) -> Option<String> {
    let name = p["name"].as_str()?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    match p["in"].as_str()? {
        "path" => {
            let slot = format!("{{{name}}}");
            let found = template.split('/').zip(path.split('/')).find(|(part, _)| *part == slot);
            let value = found.and_then(|(_, segment)| percent_decode(segment)).map(|v| v.into_owned());
            value.or_else(|| (name == "version").then(|| "latest".to_owned()))
        }
        "query" => form_urlencoded::parse(query.as_bytes())
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned()),
        _ => None,
    }
}

/// What a `$ref` names in `document`, or `value` itself.
fn resolve<'a>(document: &'a Value, value: &'a Value) -> &'a Value {
    match value["$ref"].as_str().and_then(|r| r.strip_prefix('#')) {
        Some(pointer) => document.pointer(pointer).unwrap_or(value),
        None => value,
    }
}

/// The document's prose as HTML: everything escaped, and each `code span` in `<code>`.
fn prose(text: &str) -> Html {
    let mut html = String::with_capacity(text.len() + 16);
    for (i, part) in text.split('`').enumerate() {
        let escaped = escape(part);
        if i % 2 == 1 {
            html.push_str("<code>");
            html.push_str(&escaped);
            html.push_str("</code>");
        } else {
            html.push_str(&escaped);
        }
    }
    Html(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_is_escaped_and_code_spans_are_code() {
        assert_eq!(prose("a `<b>` & `c`").0, "a <code>&lt;b&gt;</code> &amp; <code>c</code>");
        assert_eq!(prose("<script>").0, "&lt;script&gt;");
    }
}
