//! The outcome of a form, said on the page it redirects to. It travels in a cookie that lives a
//! minute and is read once, so that the redirect goes to the plain address (`/account`, `/`) and a
//! link can never put words into a page: only these fixed texts are ever shown.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notice {
    Welcome,
    Confirmed,
    Revoked,
    ConfirmationSent,
    SignedOutElsewhere,
    SessionEnded,
    Linked,
    Unlinked,
    Deleted,
    SignedOut,
    WebhookTestQueued,
    WebhookSecretRotated,
    WebhookDisabled,
    WebhookEnabled,
    WebhookDeleted,
}

impl Notice {
    const ALL: [Self; 15] = [
        Self::Welcome,
        Self::Confirmed,
        Self::Revoked,
        Self::ConfirmationSent,
        Self::SignedOutElsewhere,
        Self::SessionEnded,
        Self::Linked,
        Self::Unlinked,
        Self::Deleted,
        Self::SignedOut,
        Self::WebhookTestQueued,
        Self::WebhookSecretRotated,
        Self::WebhookDisabled,
        Self::WebhookEnabled,
        Self::WebhookDeleted,
    ];

    /// The cookie's value.
    pub(crate) fn slug(self) -> &'static str {
        match self {
            Self::Welcome => "welcome",
            Self::Confirmed => "confirmed",
            Self::Revoked => "revoked",
            Self::ConfirmationSent => "confirmation-sent",
            Self::SignedOutElsewhere => "signed-out-elsewhere",
            Self::SessionEnded => "session-ended",
            Self::Linked => "linked",
            Self::Unlinked => "unlinked",
            Self::Deleted => "deleted",
            Self::SignedOut => "signed-out",
            Self::WebhookTestQueued => "webhook-test-queued",
            Self::WebhookSecretRotated => "webhook-secret-rotated",
            Self::WebhookDisabled => "webhook-disabled",
            Self::WebhookEnabled => "webhook-enabled",
            Self::WebhookDeleted => "webhook-deleted",
        }
    }

    pub(crate) fn parse(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|notice| notice.slug() == slug)
    }

    pub(crate) fn text(self) -> &'static str {
        match self {
            Self::Welcome => "Welcome! Your account is ready.",
            Self::Confirmed => "Your address is confirmed: you can create keys now.",
            Self::Revoked => "The key is revoked: programs that send it now get 401.",
            Self::ConfirmationSent => {
                "A confirmation link is on its way. Open it in this browser, within 15 minutes, while signed in."
            }
            Self::SignedOutElsewhere => "Every other session is signed out.",
            Self::SessionEnded => "That session is signed out.",
            Self::Linked => "The sign-in is linked: you can use it to sign in to this account.",
            Self::Unlinked => "The sign-in is unlinked.",
            Self::Deleted => "Your account is deleted, and its keys no longer work.",
            Self::SignedOut => "You are signed out.",
            Self::WebhookTestQueued => {
                "A test event is on its way: its delivery shows below within seconds (reload the page)."
            }
            Self::WebhookSecretRotated => {
                "The endpoint has a new secret. For the next 24 hours each event is signed with the old one too."
            }
            Self::WebhookDisabled => "The endpoint is disabled: nothing is sent to it until you enable it.",
            Self::WebhookEnabled => "The endpoint is enabled again.",
            Self::WebhookDeleted => "The endpoint is deleted.",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_notice_round_trips_and_nothing_else_parses() {
        for notice in Notice::ALL {
            assert_eq!(Notice::parse(notice.slug()), Some(notice));
        }
        assert_eq!(Notice::parse("<b>hello</b>"), None);
    }
}
