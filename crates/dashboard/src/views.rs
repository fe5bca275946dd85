//! The pages: one askama template per page (`templates/`) over the site's one layout (`tapster-site`),
//! each with the values it shows. Templates escape everything they print, so a key named `<script>` is text.

use askama::Template;

use crate::chart::Chart;
use crate::forms::{NewKeyInput, WebhookInput};
use tapster_domain::Limits;

/// The header of every page (the site's, from `tapster-site`): whether someone is signed in, and the
/// form token its sign-out button sends, which the pages' own forms send too.
pub(crate) use tapster_site::Nav;

/// A sign-in provider as a link.
#[derive(Debug, Clone)]
pub(crate) struct ProviderLink {
    pub(crate) slug: &'static str,
    pub(crate) label: &'static str,
}

#[derive(Debug, Template)]
#[template(path = "landing.html")]
pub(crate) struct Landing {
    pub(crate) nav: Nav,
    pub(crate) notice: Option<&'static str>,
    pub(crate) api_base: String,
    pub(crate) providers: Vec<ProviderLink>,
    /// What a new key may ask, to say on the page.
    pub(crate) limits: Limits,
}

impl Landing {
    /// The daily allowance as people write it: `20,000`.
    pub(crate) fn per_day(&self) -> String {
        crate::chart::thousands(u64::from(self.limits.per_day))
    }
}

#[derive(Debug, Template)]
#[template(path = "signin.html")]
pub(crate) struct SignIn {
    pub(crate) nav: Nav,
    pub(crate) email: String,
    pub(crate) error: Option<String>,
    pub(crate) providers: Vec<ProviderLink>,
}

#[derive(Debug, Template)]
#[template(path = "signin_sent.html")]
pub(crate) struct SignInSent {
    pub(crate) nav: Nav,
    pub(crate) email: String,
    /// Mail goes to the outbox directory, not to a mail server: say where to look.
    pub(crate) outbox: bool,
    pub(crate) minutes: i64,
}

#[derive(Debug, Template)]
#[template(path = "confirm.html")]
pub(crate) struct Confirm {
    pub(crate) nav: Nav,
    pub(crate) token: String,
    /// The address the link was mailed to.
    pub(crate) email: String,
    /// It confirms the address for the signed-in account, rather than signing in.
    pub(crate) confirms: bool,
}

#[derive(Debug, Template)]
#[template(path = "account.html")]
pub(crate) struct Account {
    pub(crate) nav: Nav,
    /// How the account is named at the top: its address, or a linked sign-in.
    pub(crate) who: String,
    pub(crate) notice: Option<&'static str>,
    /// `Some` when suspended, with the operator's reason if they gave one.
    pub(crate) suspended: Option<Option<String>>,
    pub(crate) confirm: Option<ConfirmAddress>,
    pub(crate) keys: Vec<KeyRow>,
    pub(crate) create: CreateKey,
    pub(crate) email: Option<String>,
    pub(crate) identities: Vec<IdentityRow>,
    pub(crate) link: Vec<ProviderLink>,
    pub(crate) sessions: Vec<SessionRow>,
    pub(crate) api_base: String,
}

/// The form that mails a link to confirm an address, shown to accounts without one.
#[derive(Debug, Clone, Default)]
pub(crate) struct ConfirmAddress {
    pub(crate) email: String,
    pub(crate) error: Option<String>,
}

/// The new-key form, or why the account cannot make one now.
#[derive(Debug, Clone, Default)]
pub(crate) struct CreateKey {
    pub(crate) refused: Option<String>,
    pub(crate) input: NewKeyInput,
    pub(crate) expiries: Vec<u16>,
}

#[derive(Debug, Clone)]
pub(crate) struct KeyRow {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) prefix: String,
    pub(crate) created: String,
    pub(crate) last_used: String,
    pub(crate) expires: String,
    pub(crate) status: &'static str,
    /// For a browser key, the origins whose pages may call with it; empty for a key for servers.
    pub(crate) origins: Vec<String>,
    /// Not revoked yet.
    pub(crate) revocable: bool,
    pub(crate) today: String,
    pub(crate) chart: Chart,
}

#[derive(Debug, Clone)]
pub(crate) struct IdentityRow {
    pub(crate) id: i64,
    pub(crate) provider: &'static str,
    pub(crate) login: String,
    pub(crate) linked: String,
    /// Whether it may go: not while it is the only way in.
    pub(crate) removable: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct SessionRow {
    pub(crate) id: i64,
    pub(crate) browser: String,
    pub(crate) created: String,
    pub(crate) last_seen: String,
    pub(crate) current: bool,
}

/// No `Debug`: it holds a whole key.
#[derive(Template)]
#[template(path = "key_created.html")]
pub(crate) struct KeyCreated {
    pub(crate) nav: Nav,
    pub(crate) name: String,
    pub(crate) key: String,
    pub(crate) expires: Option<String>,
    pub(crate) api_base: String,
    /// For a browser key, the origins whose pages may call with it; empty for a key for servers.
    pub(crate) origins: Vec<String>,
}

#[derive(Debug, Template)]
#[template(path = "revoke.html")]
pub(crate) struct Revoke {
    pub(crate) nav: Nav,
    pub(crate) key: KeyRow,
}

#[derive(Debug, Template)]
#[template(path = "delete.html")]
pub(crate) struct Delete {
    pub(crate) nav: Nav,
    pub(crate) who: String,
    pub(crate) active_keys: usize,
}

#[derive(Debug, Template)]
#[template(path = "problem.html")]
pub(crate) struct Problem {
    pub(crate) nav: Nav,
    pub(crate) status: u16,
    pub(crate) title: &'static str,
    pub(crate) message: String,
    pub(crate) next: Option<(&'static str, &'static str)>,
}

/// No `Debug`: it may hold a secret shown once.
#[derive(Template)]
#[template(path = "webhooks.html")]
pub(crate) struct Webhooks {
    pub(crate) nav: Nav,
    pub(crate) notice: Option<&'static str>,
    /// A secret shown once, after its endpoint's rotation.
    pub(crate) revealed: Option<Revealed>,
    pub(crate) endpoints: Vec<EndpointRow>,
    pub(crate) create: CreateWebhook,
}

/// No `Debug`: it holds a secret.
#[derive(Clone)]
pub(crate) struct Revealed {
    pub(crate) url: String,
    pub(crate) secret: String,
}

/// The new-endpoint form, or why the account cannot add one now.
#[derive(Debug, Clone)]
pub(crate) struct CreateWebhook {
    pub(crate) refused: Option<String>,
    pub(crate) input: WebhookInput,
    /// Each event an endpoint may be told of: its name and how the page says it.
    pub(crate) events: Vec<(&'static str, &'static str)>,
    /// Each kind the form offers beside "as the URL says": its value and label.
    pub(crate) kinds: Vec<(&'static str, &'static str)>,
}

impl CreateWebhook {
    /// Whether the box of `event` is ticked: as typed, or both on an empty form.
    pub(crate) fn checked(&self, event: &str) -> bool {
        let typed = self.input.url_error.is_some()
            || self.input.description_error.is_some()
            || self.input.events_error.is_some()
            || self.input.kind_error.is_some();
        if typed { self.input.events.contains(&event) } else { true }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct EndpointRow {
    pub(crate) id: i64,
    pub(crate) url: String,
    pub(crate) description: String,
    pub(crate) kind: &'static str,
    pub(crate) events: Vec<&'static str>,
    pub(crate) created: String,
    pub(crate) disabled: bool,
    pub(crate) failing: bool,
    /// `active`, `failing since ...` or `disabled on ...: why`.
    pub(crate) state: String,
    /// Until when the secret a rotation replaced still signs, while it does.
    pub(crate) rotated_until: Option<String>,
    pub(crate) deliveries: Vec<DeliveryRow>,
}

#[derive(Debug, Clone)]
pub(crate) struct DeliveryRow {
    pub(crate) at: String,
    pub(crate) event: &'static str,
    pub(crate) message_id: String,
    pub(crate) attempt: u32,
    pub(crate) status: String,
    pub(crate) duration: String,
    pub(crate) delivered: bool,
    /// The first characters of what the receiver answered.
    pub(crate) answer: String,
    /// Why it failed, when it did.
    pub(crate) error: String,
}

/// No `Debug`: it holds a whole secret.
#[derive(Template)]
#[template(path = "webhook_created.html")]
pub(crate) struct WebhookCreated {
    pub(crate) nav: Nav,
    pub(crate) url: String,
    pub(crate) description: String,
    pub(crate) secret: String,
    /// A Discord endpoint: its messages are not signed (Discord cannot check them).
    pub(crate) discord: bool,
}
