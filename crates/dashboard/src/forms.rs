//! Forms as typed values. A body is parsed once into its fields (a field sent twice is refused:
//! nothing should guess which one counted; only a field of checkboxes, [`REPEATED`], is a list), and
//! each form into a value whose fields are checked, or into the messages to show beside the fields
//! that are not.

use hyper::StatusCode;
use tapster_accounts::{KeyName, Token, WebhookDescription, WebhookEvent, WebhookKind};
use tapster_domain::{Email, Origin, Origins};
use tapster_webhooks::{Endpoint, Kind};

use crate::reply::Failure;

/// The most fields a form may send; the dashboard's have seven at most.
const MAX_FIELDS: usize = 16;
/// The fields a form may send more than once: the checkboxes of a list.
const REPEATED: &[&str] = &["events"];

/// The fields of an `application/x-www-form-urlencoded` body.
#[derive(Debug)]
pub(crate) struct Form {
    fields: Vec<(String, String)>,
}

impl Form {
    pub(crate) fn parse(body: &[u8]) -> Result<Self, Failure> {
        let mut fields: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(body) {
            if fields.len() == MAX_FIELDS {
                return Err(Failure::bad_request(format!("A form sends at most {MAX_FIELDS} fields.")));
            }
            if fields.iter().any(|(seen, _)| *seen == name) && !REPEATED.contains(&name.as_ref()) {
                return Err(Failure::bad_request(format!("The form sent the field {name:?} twice.")));
            }
            fields.push((name.into_owned(), value.into_owned()));
        }
        Ok(Self { fields })
    }

    /// The field `name`, when it is sent (once, unless it is one of [`REPEATED`]: then the first).
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.fields.iter().find(|(field, _)| field == name).map(|(_, value)| value.as_str())
    }

    /// Every value of the field `name`, in the order sent.
    pub(crate) fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.fields.iter().filter(move |(field, _)| field == name).map(|(_, value)| value.as_str())
    }
}

/// An e-mail field as typed, to show again beside what is wrong with it.
#[derive(Debug, Clone)]
pub(crate) struct EmailInput {
    pub(crate) typed: String,
    pub(crate) error: String,
}

/// An e-mail address as a form gives it, or the field to show again with its message.
pub(crate) fn email(form: &Form) -> Result<Email, EmailInput> {
    let field = form.get("email").unwrap_or_default();
    let refused = |error: String| EmailInput { typed: field.chars().take(Email::MAX_LEN).collect(), error };
    let value = field.trim();
    if value.is_empty() {
        return Err(refused("Enter your e-mail address.".into()));
    }
    if value.len() > Email::MAX_LEN {
        return Err(refused(format!("An e-mail address is at most {} characters.", Email::MAX_LEN)));
    }
    let email = Email::parse(value)
        .map_err(|_| refused("That is not an e-mail address (name@example.org).".to_owned()))?;
    // What the mailer cannot address is no address for us either.
    if email.as_str().parse::<lettre::Address>().is_err() {
        return Err(refused("We cannot send mail to that address; check it for typing mistakes.".into()));
    }
    Ok(email)
}

/// A one-time link's token, which only ever comes from a link the dashboard mailed.
pub(crate) fn token(value: Option<&str>) -> Result<Token, Failure> {
    value.and_then(Token::parse).ok_or_else(|| {
        Failure::new(
            StatusCode::BAD_REQUEST,
            "This link is not valid",
            "The link is incomplete or was changed. Open it exactly as it arrived, or ask for a new one.",
        )
        .next("/signin", "Ask for a new link")
    })
}

/// What a new key is to be: its name and how many days it lives (`None`: until revoked).
#[derive(Debug)]
pub(crate) struct NewKey {
    pub(crate) name: KeyName,
    pub(crate) days: Option<u16>,
    /// For a browser key, the origins whose pages may call with it.
    pub(crate) origins: Option<Origins>,
}

/// The new-key form as typed, to show again beside its messages.
#[derive(Debug, Default, Clone)]
pub(crate) struct NewKeyInput {
    pub(crate) name: String,
    pub(crate) expiry: String,
    pub(crate) origins: String,
    pub(crate) name_error: Option<String>,
    pub(crate) expiry_error: Option<String>,
    pub(crate) origins_error: Option<String>,
}

/// The days a key may live, as the form offers them; the empty choice is "never".
pub(crate) const EXPIRIES: [u16; 3] = [30, 90, 365];

pub(crate) fn new_key(form: &Form) -> Result<NewKey, Box<NewKeyInput>> {
    let mut input = NewKeyInput {
        name: form.get("name").unwrap_or_default().chars().take(200).collect(),
        expiry: form.get("expires_in_days").unwrap_or_default().chars().take(10).collect(),
        origins: form.get("origins").unwrap_or_default().chars().take(ORIGINS_TYPED).collect(),
        ..NewKeyInput::default()
    };
    // Cut short, the last line could read as another origin: a field this long is refused whole.
    let too_long = form.get("origins").unwrap_or_default().chars().count() > ORIGINS_TYPED;
    let name = KeyName::parse(&input.name)
        .map_err(|e| input.name_error = Some(crate::reply::capitalized(&e.to_string())))
        .ok();
    let days = match input.expiry.as_str() {
        "" => Some(None),
        days => days.parse::<u16>().ok().filter(|d| EXPIRIES.contains(d)).map(Some),
    };
    if days.is_none() {
        input.expiry_error = Some("Choose when the key expires: never, or after 30, 90 or 365 days.".into());
    }
    let origins = match too_long {
        true => {
            input.origins_error = Some(format!("Name at most {} origins, one a line.", Origins::MAX));
            None
        }
        false => Origins::parse_lines(&input.origins)
            .map_err(|e| input.origins_error = Some(crate::reply::capitalized(&e.to_string())))
            .ok(),
    };
    match (name, days, origins) {
        (Some(name), Some(days), Some(origins)) => Ok(NewKey { name, days, origins }),
        _ => Err(Box::new(input)),
    }
}

/// What is kept of the origins field as typed: ten origins of the longest kind, one a line.
const ORIGINS_TYPED: usize = (Origin::MAX_LEN + 2) * Origins::MAX;

/// A new webhook endpoint, as the form gives it.
#[derive(Debug)]
pub(crate) struct NewWebhook {
    pub(crate) url: Endpoint,
    pub(crate) description: WebhookDescription,
    pub(crate) events: Vec<WebhookEvent>,
    /// How it is spoken to, when the form chose; else as its URL says.
    pub(crate) chosen: Option<WebhookKind>,
}

impl NewWebhook {
    /// How the endpoint is spoken to: as the form chose (a relay in front of Discord, say), or else
    /// Discord messages for a Discord webhook's URL and signed JSON for any other.
    pub(crate) fn kind(&self) -> WebhookKind {
        self.chosen.unwrap_or(match self.url.kind() {
            Kind::Discord => WebhookKind::Discord,
            Kind::StandardWebhooks => WebhookKind::Standard,
        })
    }
}

/// The kinds the form offers beside "as the URL says" (the empty value): value and label.
pub(crate) const KINDS: [(&str, &str); 2] =
    [("standard", "Signed JSON (Standard Webhooks)"), ("discord", "A Discord message")];

/// The new-endpoint form as typed, to show again beside its messages.
#[derive(Debug, Default, Clone)]
pub(crate) struct WebhookInput {
    pub(crate) url: String,
    pub(crate) description: String,
    pub(crate) events: Vec<&'static str>,
    /// `standard`, `discord`, or empty for "as the URL says".
    pub(crate) kind: String,
    pub(crate) url_error: Option<String>,
    pub(crate) description_error: Option<String>,
    pub(crate) events_error: Option<String>,
    pub(crate) kind_error: Option<String>,
}

/// The new-endpoint form: a URL the webhooks crate accepts (`https` on a public address, unless
/// `allow_private`), a description, and at least one event to be told of.
pub(crate) fn new_webhook(form: &Form, allow_private: bool) -> Result<NewWebhook, Box<WebhookInput>> {
    let mut input = WebhookInput {
        url: form.get("url").unwrap_or_default().chars().take(Endpoint::MAX_LENGTH + 1).collect(),
        description: form.get("description").unwrap_or_default().chars().take(200).collect(),
        kind: form.get("kind").unwrap_or_default().chars().take(20).collect(),
        ..WebhookInput::default()
    };
    let chosen = match input.kind.as_str() {
        "" => Some(None),
        kind => WebhookKind::parse(kind).map(Some),
    };
    if chosen.is_none() {
        input.kind_error = Some(
            "Choose how the endpoint is sent events: as its URL says, signed JSON, or a Discord message."
                .into(),
        );
    }
    let config = tapster_webhooks::Config { allow_private, ..tapster_webhooks::Config::default() };
    let url = match input.url.trim() {
        "" => {
            input.url_error = Some("Enter the URL the events are sent to.".into());
            None
        }
        url => Endpoint::parse(url, &config)
            .map_err(|e| input.url_error = Some(crate::reply::capitalized(&e.to_string())))
            .ok(),
    };
    let description = WebhookDescription::parse(&input.description)
        .map_err(|e| input.description_error = Some(crate::reply::capitalized(&e.to_string())))
        .ok();
    let mut events = Vec::new();
    let mut unknown = false;
    for value in form.all("events") {
        match WebhookEvent::SUBSCRIBED.into_iter().find(|event| event.as_str() == value) {
            Some(event) if !events.contains(&event) => events.push(event),
            Some(_) => {}
            None => unknown = true,
        }
    }
    input.events = events.iter().map(|event| event.as_str()).collect();
    if unknown || events.is_empty() {
        input.events_error =
            Some("Choose what the endpoint is told of: a version published, a key expiring, or both.".into());
    }
    match (url, description, chosen) {
        (Some(url), Some(description), Some(chosen)) if input.events_error.is_none() => {
            Ok(NewWebhook { url, description, events, chosen })
        }
        _ => Err(Box::new(input)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(body: &str) -> Form {
        Form::parse(body.as_bytes()).unwrap()
    }

    #[test]
    fn fields_are_decoded_and_never_sent_twice() {
        let parsed = form("email=marta%40example.org&name=wiki+bot&empty=");
        assert_eq!(parsed.get("email"), Some("marta@example.org"));
        assert_eq!(parsed.get("name"), Some("wiki bot"));
        assert_eq!(parsed.get("empty"), Some(""));
        assert_eq!(parsed.get("missing"), None);
        assert_eq!(Form::parse(b"a=1&a=2").unwrap_err().status, StatusCode::BAD_REQUEST);
        let many: Vec<String> = (0..17).map(|n| format!("f{n}=x")).collect();
        assert_eq!(Form::parse(many.join("&").as_bytes()).unwrap_err().status, StatusCode::BAD_REQUEST);
    }

    #[test]
    fn e_mail_addresses() {
        assert_eq!(email(&form("email=+Marta%40Example.org+")).unwrap().as_str(), "marta@example.org");
        let long = format!("email={}%40example.org", "a".repeat(250));
        for (body, message) in [
            ("", "Enter your e-mail address."),
            ("email=", "Enter your e-mail address."),
            ("email=marta", "That is not an e-mail address (name@example.org)."),
            ("email=a%40b%40c", "That is not an e-mail address (name@example.org)."),
            (long.as_str(), "An e-mail address is at most 254 characters."),
            (
                "email=m%22arta%40example.org",
                "We cannot send mail to that address; check it for typing mistakes.",
            ),
        ] {
            assert_eq!(email(&form(body)).unwrap_err().error, message, "{body}");
        }
    }

    #[test]
    fn new_keys() {
        let key = new_key(&form("name=wiki+bot&expires_in_days=90")).unwrap();
        assert_eq!((key.name.as_str(), key.days), ("wiki bot", Some(90)));
        assert_eq!(new_key(&form("name=x&expires_in_days=")).unwrap().days, None);

        let refused = new_key(&form(&format!("name={}&expires_in_days=7", "x".repeat(65)))).unwrap_err();
        assert_eq!(refused.name_error.as_deref(), Some("A key's name is at most 64 characters."));
        assert!(refused.expiry_error.is_some());
        assert_eq!(refused.expiry, "7", "the input is shown again as typed");
        assert_eq!(
            new_key(&form("expires_in_days=30")).unwrap_err().name_error.as_deref(),
            Some("A key's name is required.")
        );
        assert!(token(Some("nonsense")).is_err());
        assert!(token(Some(&"ab".repeat(32))).is_ok());
    }

    #[test]
    fn a_key_for_browsers_names_its_origins() {
        let key = new_key(&form("name=calc&expires_in_days=&origins=https%3A%2F%2FCalc.example%2F%0D%0Ahttp%3A%2F%2Flocalhost%3A3000"))
            .unwrap();
        assert_eq!(key.origins.unwrap().to_lines(), "https://calc.example\nhttp://localhost:3000");
        assert_eq!(new_key(&form("name=bot&expires_in_days=&origins=+%0D%0A")).unwrap().origins, None);
        assert_eq!(new_key(&form("name=bot&expires_in_days=")).unwrap().origins, None);
        let refused = new_key(&form("name=calc&expires_in_days=&origins=calc.example")).unwrap_err();
        assert_eq!(
            refused.origins_error.as_deref(),
            Some(
                "Line 1 (\"calc.example\") must match the pattern https://host or https://host:port (http:// too), without a path."
            )
        );
        assert_eq!(refused.origins, "calc.example", "kept to show again");
        let padded =
            format!("name=calc&expires_in_days=&origins=https%3A%2F%2Fcalc.example{}", "%0A".repeat(3_000));
        assert!(
            new_key(&form(&padded))
                .unwrap_err()
                .origins_error
                .unwrap()
                .starts_with("Name at most 10 origins")
        );
    }

    #[test]
    fn a_webhook_names_its_url_and_the_events_it_is_told_of() {
        let made = new_webhook(
            &form("url=https%3A%2F%2Fhooks.example%2Ftapster&description=wiki&events=version.published&events=key.expiring"),
            false,
        )
        .unwrap();
        assert_eq!(made.url.as_str(), "https://hooks.example/tapster");
        assert_eq!(made.events, [WebhookEvent::VersionPublished, WebhookEvent::KeyExpiring]);
        assert_eq!(made.kind(), WebhookKind::Standard);
        let discord = new_webhook(
            &form("url=https%3A%2F%2Fdiscord.com%2Fapi%2Fwebhooks%2F1%2Fabc&description=&events=version.published"),
            false,
        )
        .unwrap();
        assert_eq!(discord.kind(), WebhookKind::Discord);
        // A kind chosen in the form wins over the URL's (a relay in front of Discord, say).
        let relayed = new_webhook(
            &form("url=https%3A%2F%2Frelay.example%2Fdiscord&kind=discord&events=version.published"),
            false,
        )
        .unwrap();
        assert_eq!(relayed.kind(), WebhookKind::Discord);
        let refused = new_webhook(
            &form("url=https%3A%2F%2Frelay.example%2F&kind=slack&events=version.published"),
            false,
        );
        assert!(refused.unwrap_err().kind_error.is_some());

        for (body, field) in [
            ("url=&description=&events=version.published", "url"),
            ("url=http%3A%2F%2F127.0.0.1%3A9%2F&description=&events=version.published", "url"),
            ("url=https%3A%2F%2Fhooks.example%2F&description=&events=webhook.test", "events"),
            ("url=https%3A%2F%2Fhooks.example%2F&description=", "events"),
        ] {
            let refused = new_webhook(&form(body), false).unwrap_err();
            let error = match field {
                "url" => refused.url_error,
                _ => refused.events_error,
            };
            assert!(error.is_some(), "{body}");
        }
        // A field of checkboxes may come more than once; no other field may.
        assert!(Form::parse(b"events=a&events=b").is_ok());
        assert_eq!(Form::parse(b"url=a&url=b").unwrap_err().status, StatusCode::BAD_REQUEST);
        // Private addresses are for tests and closed networks, when the operator says so.
        assert!(
            new_webhook(&form("url=http%3A%2F%2F127.0.0.1%3A9%2F&description=&events=key.expiring"), true)
                .is_ok()
        );
    }
}
