//! A Discord message, for the endpoints that are Discord webhooks ([`Kind::Discord`]): Discord
//! checks no signature and reads only its own JSON, so such an endpoint gets a message with one
//! embed made from the event instead of the event itself. Pure: plain text in, the body of
//! Discord's "execute webhook" request out.
//!
//! The message keeps within Discord's limits, which refuse the whole message when one is passed:
//! title 256, description 4096, field name 256, field value 1024, footer 2048, content 2000, at most
//! 25 fields and 6000 in all over the embed's texts. Each text is cut on a character boundary and
//! ends with `…` when cut. Lengths are counted in UTF-16 code units, which are never fewer than the
//! characters Discord counts, so that a text of emoji is not a little over. Nothing in the data can
//! ping anyone: `allowed_mentions` parses no mention, and `@everyone`, `@here` and `<@...>` are
//! broken with a zero-width space so that they do not even look like mentions. Markdown is left as
//! it is: the caller writes the links it means.
//!
//! [`Kind::Discord`]: crate::Kind::Discord

use serde_json::{Map, Value, json};

/// The most characters of each part of a message, as Discord allows them.
pub const MAX_CONTENT: usize = 2000;
pub const MAX_TITLE: usize = 256;
pub const MAX_DESCRIPTION: usize = 4096;
pub const MAX_FIELDS: usize = 25;
pub const MAX_FIELD_NAME: usize = 256;
pub const MAX_FIELD_VALUE: usize = 1024;
pub const MAX_FOOTER: usize = 2048;
/// The most characters of an embed's title, description, fields and footer together.
pub const MAX_EMBED_TOTAL: usize = 6000;

/// A field value at most this long (and on one line) is shown inline, beside its neighbours.
const INLINE_VALUE: usize = 40;

/// Breaks a mention without changing how the text reads.
const ZERO_WIDTH_SPACE: char = '\u{200B}';

/// What a Discord message says, as plain text; [`discord_message`] fits it into Discord's limits.
/// An empty `title`, `url`, `description`, `footer` or `timestamp` is left out of the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscordMessage<'a> {
    /// A short line above the embed: what a notification of the message shows.
    pub content: &'a str,
    /// The embed's title, a link to `url`.
    pub title: &'a str,
    /// An absolute `https` URL.
    pub url: &'a str,
    /// The embed's text; Discord renders its Markdown.
    pub description: &'a str,
    /// The colour of the embed's edge, `0xRRGGBB`.
    pub color: u32,
    /// Name and value of each field, in order; beyond 25, or beyond the embed's total, the rest are
    /// left out.
    pub fields: &'a [(&'a str, &'a str)],
    /// The small text under the embed.
    pub footer: &'a str,
    /// An RFC 3339 time Discord shows beside the footer, in the reader's time zone.
    pub timestamp: &'a str,
}

/// The JSON body of Discord's "execute webhook" request for `message`: `content`, one entry of
/// `embeds`, and `allowed_mentions` that allows none.
pub fn discord_message(message: &DiscordMessage<'_>) -> Vec<u8> {
    let title = fit(&defuse(message.title), MAX_TITLE);
    let footer = fit(&defuse(message.footer), MAX_FOOTER);
    // Title and footer first, then the description within what they leave, then each field while
    // it fits whole: a message with fewer fields beats one refused.
    let mut left = MAX_EMBED_TOTAL - length(&title) - length(&footer);
    let description = fit(&defuse(message.description), MAX_DESCRIPTION.min(left));
    left -= length(&description);
    let mut fields = Vec::new();
    for (name, value) in message.fields.iter().take(MAX_FIELDS) {
        let name = or_blank(fit(&defuse(name), MAX_FIELD_NAME));
        let value = or_blank(fit(&defuse(value), MAX_FIELD_VALUE));
        let size = length(&name) + length(&value);
        if size > left {
            break;
        }
        left -= size;
        let inline = length(&value) <= INLINE_VALUE && !value.contains('\n');
        fields.push(json!({ "name": name, "value": value, "inline": inline }));
    }

    let mut embed = Map::new();
    let mut put = |key: &str, value: String| {
        if !value.is_empty() {
            embed.insert(key.to_owned(), Value::String(value));
        }
    };
    put("title", title);
    put("url", message.url.to_owned());
    put("description", description);
    embed.insert("color".into(), json!(message.color & 0xFF_FF_FF));
    if !fields.is_empty() {
        embed.insert("fields".into(), Value::Array(fields));
    }
    if !footer.is_empty() {
        embed.insert("footer".into(), json!({ "text": footer }));
    }
    if !message.timestamp.is_empty() {
        embed.insert("timestamp".into(), json!(message.timestamp));
    }

    let mut body = Map::new();
    let content = fit(&defuse(message.content), MAX_CONTENT);
    if !content.is_empty() {
        body.insert("content".into(), Value::String(content));
    }
    body.insert("embeds".into(), json!([embed]));
    body.insert("allowed_mentions".into(), json!({ "parse": [] }));
    serde_json::to_vec(&Value::Object(body)).expect("a JSON value always serializes")
}

/// The length of `text` as Discord's limits are held to here: UTF-16 code units.
fn length(text: &str) -> usize {
    text.encode_utf16().count()
}

/// `text`, or when it is longer than `max`, as much of it as fits with `…` after it.
fn fit(text: &str, max: usize) -> String {
    if length(text) <= max {
        return text.to_owned();
    }
    let Some(room) = max.checked_sub(1) else { return String::new() };
    let mut cut = String::with_capacity(text.len().min(max * 4));
    let mut used = 0;
    for c in text.chars() {
        if used + c.len_utf16() > room {
            break;
        }
        used += c.len_utf16();
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// Discord refuses a field with an empty name or value: a zero-width space stands in.
fn or_blank(text: String) -> String {
    if text.trim().is_empty() { ZERO_WIDTH_SPACE.to_string() } else { text }
}

/// `text` with `@everyone`, `@here` and the `<@...>` of user and role mentions broken by a
/// zero-width space after the `@`, so that they read the same and mention no one.
fn defuse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = None;
    for (at, c) in text.char_indices() {
        out.push(c);
        if c == '@' {
            let rest = &text[at + 1..];
            if previous == Some('<') || rest.starts_with("everyone") || rest.starts_with("here") {
                out.push(ZERO_WIDTH_SPACE);
            }
        }
        previous = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message<'a>(fields: &'a [(&'a str, &'a str)]) -> DiscordMessage<'a> {
        DiscordMessage {
            content: "Version v1.2 is out",
            title: "v1.2",
            url: "https://api.example.com/v1/versions/v1.2",
            description: "12 added, 1 removed, 30 modified",
            color: 0xC8_7F_2A,
            fields,
            footer: "Tapster",
            timestamp: "2025-03-14T09:30:00Z",
        }
    }

    fn sent(message: &DiscordMessage<'_>) -> Value {
        serde_json::from_slice(&discord_message(message)).unwrap()
    }

    /// The embed's texts as Discord adds them up for its 6000.
    fn embed_total(embed: &Value) -> usize {
        let text = |v: &Value| v.as_str().map_or(0, length);
        let fields = embed["fields"]
            .as_array()
            .map_or(0, |fields| fields.iter().map(|f| text(&f["name"]) + text(&f["value"])).sum::<usize>());
        text(&embed["title"]) + text(&embed["description"]) + text(&embed["footer"]["text"]) + fields
    }

    #[test]
    fn a_message_is_one_embed_that_mentions_no_one() {
        let fields = [("Honey Mead", "added item"), ("Notes", "a longer value\non two lines")];
        assert_eq!(
            sent(&message(&fields)),
            json!({
                "content": "Version v1.2 is out",
                "embeds": [{
                    "title": "v1.2",
                    "url": "https://api.example.com/v1/versions/v1.2",
                    "description": "12 added, 1 removed, 30 modified",
                    "color": 0xC8_7F_2A,
                    "fields": [
                        { "name": "Honey Mead", "value": "added item", "inline": true },
                        { "name": "Notes", "value": "a longer value\non two lines", "inline": false },
                    ],
                    "footer": { "text": "Tapster" },
                    "timestamp": "2025-03-14T09:30:00Z",
                }],
                "allowed_mentions": { "parse": [] },
            })
        );
    }

    #[test]
    fn empty_parts_are_left_out_and_empty_field_texts_stand_in_blank() {
        let fields = [("", "value"), ("name", "  ")];
        let empty = DiscordMessage {
            content: "",
            title: "",
            url: "",
            description: "",
            color: 0x1_00_00_00,
            fields: &fields,
            footer: "",
            timestamp: "",
        };
        assert_eq!(
            sent(&empty),
            json!({
                "embeds": [{ "color": 0, "fields": [
                    { "name": "\u{200B}", "value": "value", "inline": true },
                    { "name": "name", "value": "\u{200B}", "inline": true },
                ]}],
                "allowed_mentions": { "parse": [] },
            })
        );
    }

    #[test]
    fn mentions_are_broken_and_other_at_signs_kept() {
        let cases = [
            ("@everyone look", "@\u{200B}everyone look"),
            ("hi @here", "hi @\u{200B}here"),
            ("<@123> and <@&456> and <@!789>", "<@\u{200B}123> and <@\u{200B}&456> and <@\u{200B}!789>"),
            ("mail ale@example.com, @someone", "mail ale@example.com, @someone"),
            ("<#42> is a channel", "<#42> is a channel"),
        ];
        for (text, expected) in cases {
            assert_eq!(defuse(text), expected, "{text}");
        }
        let fields = [("@everyone", "<@1>")];
        let pinging = DiscordMessage {
            content: "@everyone",
            title: "@here",
            description: "<@&2>",
            footer: "@everyone",
            ..message(&fields)
        };
        let body = sent(&pinging);
        assert_eq!(body["content"], "@\u{200B}everyone");
        assert_eq!(body["embeds"][0]["title"], "@\u{200B}here");
        assert_eq!(body["embeds"][0]["description"], "<@\u{200B}&2>");
        assert_eq!(
            body["embeds"][0]["fields"][0],
            json!({"name": "@\u{200B}everyone", "value": "<@\u{200B}1>", "inline": true})
        );
        assert_eq!(body["embeds"][0]["footer"]["text"], "@\u{200B}everyone");
        assert_eq!(body["allowed_mentions"], json!({ "parse": [] }));
    }

    #[test]
    fn texts_are_cut_on_characters_with_an_ellipsis() {
        let cases: [(&str, usize, &str); 6] = [
            ("short", 5, "short"),
            ("longer", 5, "long…"),
            ("ééééé", 4, "ééé…"),
            // An emoji is two UTF-16 units: it does not fit in the one left before the ellipsis.
            ("ab😀cd", 4, "ab…"),
            ("ab😀cd", 5, "ab😀…"),
            ("abc", 0, ""),
        ];
        for (text, max, expected) in cases {
            assert_eq!(fit(text, max), expected, "{text} in {max}");
            assert!(length(&fit(text, max)) <= max);
        }
    }

    #[test]
    fn each_part_keeps_within_its_limit() {
        let name = "n".repeat(300);
        let value = "v".repeat(1100);
        let fields = [(name.as_str(), value.as_str())];
        let long = "x".repeat(5000);
        let body = sent(&DiscordMessage {
            content: &long,
            title: &long,
            description: &long,
            footer: &long,
            ..message(&fields)
        });
        let embed = &body["embeds"][0];
        let len = |v: &Value| length(v.as_str().unwrap());
        assert_eq!(len(&body["content"]), MAX_CONTENT);
        assert_eq!(len(&embed["title"]), MAX_TITLE);
        assert_eq!(len(&embed["footer"]["text"]), MAX_FOOTER);
        assert!(embed["title"].as_str().unwrap().ends_with('…'));
        // Title and footer leave 6000 - 256 - 2048 for the description, which takes all of it.
        assert_eq!(len(&embed["description"]), MAX_EMBED_TOTAL - MAX_TITLE - MAX_FOOTER);
        assert!(embed.get("fields").is_none(), "no room is left for a field");
        assert_eq!(embed_total(embed), MAX_EMBED_TOTAL);

        let body = sent(&message(&fields));
        let field = &body["embeds"][0]["fields"][0];
        assert_eq!(len(&field["name"]), MAX_FIELD_NAME);
        assert_eq!(len(&field["value"]), MAX_FIELD_VALUE);
        assert_eq!(field["inline"], false);
    }

    #[test]
    fn fields_stop_at_25_and_at_the_total() {
        let many: Vec<(String, String)> = (0..40).map(|i| (format!("field {i}"), format!("{i}"))).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let body = sent(&message(&many));
        let fields = body["embeds"][0]["fields"].as_array().unwrap();
        assert_eq!(fields.len(), MAX_FIELDS);
        assert_eq!(fields[24]["name"], "field 24");

        // 25 fields of 256 + 1024 would be 32000: they are kept in order while they fit whole.
        let name = "n".repeat(256);
        let value = "v".repeat(1024);
        let big: Vec<(&str, &str)> = vec![(name.as_str(), value.as_str()); 25];
        let body = sent(&DiscordMessage { description: "", ..message(&big) });
        let embed = &body["embeds"][0];
        let kept = embed["fields"].as_array().unwrap().len();
        assert_eq!(kept, (MAX_EMBED_TOTAL - "v1.2".len() - "Tapster".len()) / 1280);
        assert!(embed_total(embed) <= MAX_EMBED_TOTAL);
    }
}
