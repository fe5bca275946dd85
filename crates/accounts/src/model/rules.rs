//! Every rule that decides who may do what with an account, written once for both backends: pure
//! functions of what a backend read (an account's standing, a link as stored, the account that
//! holds an address, the keys an account holds, the owner of a row an owner names by its number)
//! and of `now`, each answering with a refusal or with the writes to make.
//!
//! A backend (`sqlite`, `postgres`) reads what a rule asks for, calls it, and writes what its answer
//! names, all in one transaction that no other writer interleaves with (SQLite's immediate
//! transactions, PostgreSQL's advisory write lock); it decides nothing itself. Where a rule is a
//! bound (how long sessions live, which links count towards the mail cap, which of an account's
//! keys a rule looks at), it gives the bound and the backend's query filters by it. A deleted
//! account is absent from what a backend reads of accounts (`deleted_at IS NULL`): that is what the
//! database holds, and [`live`] decides what its absence means.

use tapster_domain::{Email, Timestamp};

use super::{
    AccountId, Issued, KeyAction, KeyRecord, MAIL_WINDOW_SECS, MAILS_PER_WINDOW, MAX_ACTIVE_KEYS,
    MAX_WEBHOOKS, PendingLink, Profile, REVOKED_SHOWN_SECS, SESSION_IDLE_SECS, SESSION_MAX_SECS,
    SESSION_TOUCH_SECS, SessionInfo, Suspension, TOKEN_LIFETIME_SECS, WEBHOOK_FAILING_SECS,
    WEBHOOK_RETRY_SECS, WEBHOOK_ROTATION_SECS, WebhookEndpoint,
};
use crate::error::{Error, Result};

// ---- accounts

/// What the rules need to know of an account that is not deleted. A backend reads it as an
/// `Option`: `None` is an account that is gone (deleted, or whose id was never given out).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Standing {
    /// It has a confirmed address.
    pub(crate) confirmed: bool,
    pub(crate) suspension: Option<Suspension>,
}

/// What was read of an account (its [`Standing`], or the [`Account`](super::Account) its owner
/// sees), or [`Error::AccountGone`] for an account that is gone: nobody acts on, for or as a
/// deleted account.
pub(crate) fn live<T>(account: Option<T>) -> Result<T> {
    account.ok_or(Error::AccountGone)
}

/// The account the operator names by an address: the live account whose confirmed address it is
/// (`holder`), or [`Error::NoSuchAccount`].
pub(crate) fn named_account(email: &Email, holder: Option<AccountId>) -> Result<AccountId> {
    holder.ok_or_else(|| Error::NoSuchAccount(email.clone()))
}

// ---- what an owner names by its number

/// A row an owner names by its number, read by that number with the account that owns it (`None`
/// when there is no such row): theirs, or `missing`. Another account's row is refused exactly as
/// one that does not exist, so that no answer tells that it exists.
fn owned<T>(found: Option<(AccountId, T)>, asking: AccountId, missing: Error) -> Result<T> {
    match found {
        Some((owner, row)) if owner == asking => Ok(row),
        _ => Err(missing),
    }
}

/// One of `asking`'s keys, of the key read by its number: [`owned`], else [`Error::NoSuchKey`].
pub(crate) fn owned_key(found: Option<KeyRecord>, asking: AccountId) -> Result<KeyRecord> {
    owned(found.map(|key| (key.account, key)), asking, Error::NoSuchKey)
}

/// Whether the linked sign-in whose owner is `owner` (`None`: there is none) is one of `asking`'s:
/// [`owned`], else [`Error::NoSuchIdentity`].
pub(crate) fn owned_identity(owner: Option<AccountId>, asking: AccountId) -> Result<()> {
    owned(owner.map(|owner| (owner, ())), asking, Error::NoSuchIdentity)
}

/// Whether the session whose owner is `owner` (`None`: there is none) is one of `asking`'s:
/// [`owned`], else [`Error::NoSuchSession`].
pub(crate) fn owned_session(owner: Option<AccountId>, asking: AccountId) -> Result<()> {
    owned(owner.map(|owner| (owner, ())), asking, Error::NoSuchSession)
}

/// Whether one of an account's `identities` linked sign-ins may go: not the last way into it. An
/// account with a confirmed address can always sign in by mail; one without needs a sign-in left.
pub(crate) fn may_unlink(standing: Option<Standing>, identities: usize) -> Result<()> {
    let standing = live(standing)?;
    if !standing.confirmed && identities <= 1 {
        return Err(Error::LastSignIn);
    }
    Ok(())
}

/// The reason stored with an account's suspension: the operator's, while it is suspended; none once
/// it is reinstated.
pub(crate) fn kept_reason(suspended: bool, reason: Option<&str>) -> Option<&str> {
    reason.filter(|_| suspended)
}

// ---- keys

/// Whether a key takes one of its account's [`MAX_ACTIVE_KEYS`]: it is neither revoked nor expired.
/// A suspended key does: it may come back.
fn takes_a_slot(key: &KeyRecord, now: Timestamp) -> bool {
    key.revoked_at.is_none() && !key.expired(now)
}

/// The bound on the keys of an account that the rules on them look at: those not revoked, or revoked
/// after this moment. A key revoked at or before it takes no slot ([`key_allowance`]) and is no
/// longer shown ([`shown_to_owner`]), so a backend reads no older one.
pub(crate) fn keys_revoked_after(now: Timestamp) -> i64 {
    now.0 - REVOKED_SHOWN_SECS
}

/// Whether an account may make a key now, given its standing and the keys it holds (those
/// [`keys_revoked_after`] bounds, or more): it is there,
/// not suspended, confirmed, and holds fewer than [`MAX_ACTIVE_KEYS`] keys that take a slot. The
/// refusals are checked in that order.
pub(crate) fn key_allowance(standing: Option<Standing>, keys: &[KeyRecord], now: Timestamp) -> Result<()> {
    let standing = live(standing)?;
    if let Some(Suspension { reason }) = standing.suspension {
        return Err(Error::AccountSuspended { reason });
    }
    if !standing.confirmed {
        return Err(Error::Unconfirmed);
    }
    if keys.iter().filter(|key| takes_a_slot(key, now)).count() >= MAX_ACTIVE_KEYS {
        return Err(Error::TooManyKeys { max: MAX_ACTIVE_KEYS });
    }
    Ok(())
}

/// Whether its owner still sees a key in their list: all but those revoked more than
/// [`REVOKED_SHOWN_SECS`] ago.
pub(crate) fn shown_to_owner(key: &KeyRecord, now: Timestamp) -> bool {
    key.revoked_at.is_none_or(|at| at.0 > keys_revoked_after(now))
}

/// Whether start-up makes the operator's first key, given whether the store holds any key: only
/// into a store that holds none at all, not even a revoked one, so that a store once given keys is
/// never given another this way.
pub(crate) fn first_key_due(holds_a_key: bool) -> bool {
    !holds_a_key
}

/// The one key an administrator's selector found, of the ids of every key it matched.
pub(crate) fn selected_key(found: &[i64]) -> Result<i64> {
    match found {
        [id] => Ok(*id),
        [] => Err(Error::NoSuchKey),
        _ => Err(Error::AmbiguousKeyPrefix),
    }
}

/// What an administrator's action writes to a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyWrite {
    /// Revoked from now, or from when it was revoked already.
    Revoke,
    /// Its suspension, set or lifted.
    Suspended(bool),
}

/// What `action` writes to the key as it is: a revoked key stays revoked, so revoking it again is
/// all that can be done to it.
pub(crate) fn key_change(current: &KeyRecord, action: KeyAction) -> Result<KeyWrite> {
    if current.revoked_at.is_some() && action != KeyAction::Revoke {
        return Err(Error::KeyRevoked { id: current.id, prefix: current.prefix.clone() });
    }
    Ok(match action {
        KeyAction::Revoke => KeyWrite::Revoke,
        KeyAction::Suspend => KeyWrite::Suspended(true),
        KeyAction::Unsuspend => KeyWrite::Suspended(false),
    })
}

// ---- one-time links

/// Links to an address count towards its [`MAILS_PER_WINDOW`] when issued after this moment.
pub(crate) fn mail_window_start(now: Timestamp) -> i64 {
    now.0 - MAIL_WINDOW_SECS
}

/// When a link issued at `now` expires.
pub(crate) fn link_expires_at(now: Timestamp) -> i64 {
    now.0 + TOKEN_LIFETIME_SECS
}

/// What a link is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LinkPurpose {
    /// To sign in (or up) with the address: nobody signed in asked.
    SignIn,
    /// To confirm the address for an account that asked, with that account's standing (`None`: it
    /// is gone).
    Confirm(Option<Standing>),
}

/// Whether to store a link for an address that had `recent` links mailed within the window, asked
/// for `purpose`: not when it had its share (whatever else holds: nothing is stored, nothing is
/// sent); a link to confirm the address for an account that is gone is refused.
pub(crate) fn link_issue(recent: usize, purpose: LinkPurpose) -> Result<Issued> {
    if recent >= MAILS_PER_WINDOW {
        return Ok(Issued::Throttled);
    }
    if let LinkPurpose::Confirm(standing) = purpose {
        live(standing)?;
    }
    Ok(Issued::Issued)
}

/// A mailed link as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredLink {
    pub(crate) email: String,
    /// The account that asked for it, to confirm the address: spending it does that rather than sign
    /// in to the address's own account.
    pub(crate) account: Option<AccountId>,
    pub(crate) expires_at: i64,
    pub(crate) spent_at: Option<i64>,
}

impl StoredLink {
    /// The link the store holds for a token, or [`Error::TokenUnknown`] when it holds none: a token
    /// never issued (or forgotten) opens nothing.
    pub(crate) fn known(found: Option<Self>) -> Result<Self> {
        found.ok_or(Error::TokenUnknown)
    }

    /// The address the link is for, while it can be spent: it is neither spent nor expired (and
    /// holds an address this build reads).
    fn live(&self, now: Timestamp) -> Result<Email> {
        if self.spent_at.is_some() {
            return Err(Error::TokenSpent);
        }
        if self.expires_at <= now.0 {
            return Err(Error::TokenExpired);
        }
        Email::parse(&self.email).map_err(|_| Error::TokenUnknown)
    }

    /// The address spending the link at `now`, in a browser signed in as `signed_in`, confirms; or
    /// why it cannot be spent. A link that confirms an address for an account is spent only where
    /// that account is signed in, so that nobody is led to confirm their address into someone else's
    /// account.
    pub(crate) fn spendable(&self, signed_in: Option<AccountId>, now: Timestamp) -> Result<Email> {
        let email = self.live(now)?;
        if self.account.is_some_and(|asking| signed_in != Some(asking)) {
            return Err(Error::TokenForAnotherAccount);
        }
        Ok(email)
    }

    /// What the link is for, while it can still be spent; `None` for any other.
    pub(crate) fn pending(&self, now: Timestamp) -> Option<PendingLink> {
        let email = self.live(now).ok()?;
        Some(PendingLink { email, confirms: self.account.is_some() })
    }
}

/// Where spending a link lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkLanding {
    /// In the account that asked for the link, which takes the address (and forgets its pending one)
    /// when `take_address`: when it has none confirmed. One it confirmed meanwhile stays.
    Asking { account: AccountId, take_address: bool },
    /// In the account that holds the address.
    Holder(AccountId),
    /// In a new account whose address is the link's, confirmed.
    NewAccount,
}

/// Where spending a link for `email` lands, given the account that asked for it with its standing
/// (if one did) and the live account that holds the address confirmed (if one does). An account
/// that asked to confirm an address that another has confirmed meanwhile is refused.
pub(crate) fn link_landing(
    email: &Email,
    asking: Option<(AccountId, Option<Standing>)>,
    holder: Option<AccountId>,
) -> Result<LinkLanding> {
    match (asking, holder) {
        (Some((asking, _)), Some(holder)) if asking != holder => Err(Error::AddressTaken(email.clone())),
        (Some((account, standing)), _) => {
            Ok(LinkLanding::Asking { account, take_address: !live(standing)?.confirmed })
        }
        (None, Some(holder)) => Ok(LinkLanding::Holder(holder)),
        (None, None) => Ok(LinkLanding::NewAccount),
    }
}

// ---- sign-ins through a provider

/// The address a provider vouches for: the one it gave, when it says it verified it. Only such an
/// address is ever matched against accounts; any other waits to be confirmed by mail.
pub(crate) fn vouched(profile: &Profile) -> Option<&Email> {
    profile.email.as_ref().filter(|_| profile.email_verified)
}

/// The address an account takes from a provider's profile: the one the provider vouches for, when
/// the account has none confirmed (`confirmed`) and no account holds it (`holder`, the live account
/// whose confirmed address it is).
fn taken_address(profile: &Profile, confirmed: bool, holder: Option<AccountId>) -> Option<&Email> {
    vouched(profile).filter(|_| !confirmed && holder.is_none())
}

/// Where a sign-in through a provider lands, and what it writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProviderSignIn<'a> {
    /// In the account the provider's user is linked to: the login shown is refreshed, and the
    /// account takes `address` when there is one.
    Linked { account: AccountId, address: Option<&'a Email> },
    /// The provider's user is linked to the account that holds the address the provider vouches
    /// for, and lands there.
    Holder(AccountId),
    /// The provider's user is linked to a new account, with the vouched address confirmed (`email`)
    /// or, when the provider vouched for none, with the address it gave (if any) waiting to be
    /// confirmed by mail (`pending`).
    NewAccount { email: Option<&'a Email>, pending: Option<&'a Email> },
}

/// Where a sign-in with `profile` lands, given the account its user is linked to with that
/// account's standing (if it is linked) and the live account that holds the vouched address:
/// - a known user signs in to their account, which takes the vouched address if it has none and
///   nobody holds it; a user linked to an account that is gone is refused ([`live`]: deleting an
///   account unlinks its users, so the store holds no such link, and were one left it would open
///   nothing);
/// - a new user with a vouched address joins the account that holds it, or a new one;
/// - a new user without one gets a new account whose address waits to be confirmed.
pub(crate) fn provider_sign_in<'a>(
    profile: &'a Profile,
    linked: Option<(AccountId, Option<Standing>)>,
    holder: Option<AccountId>,
) -> Result<ProviderSignIn<'a>> {
    Ok(match (linked, holder, vouched(profile)) {
        (Some((account, standing)), ..) => {
            let confirmed = live(standing)?.confirmed;
            ProviderSignIn::Linked { account, address: taken_address(profile, confirmed, holder) }
        }
        (None, Some(holder), Some(_)) => ProviderSignIn::Holder(holder),
        (None, _, Some(email)) => ProviderSignIn::NewAccount { email: Some(email), pending: None },
        (None, _, None) => ProviderSignIn::NewAccount { email: None, pending: profile.email.as_ref() },
    })
}

/// What linking a provider's user to an account writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProviderLink<'a> {
    /// The user is linked to the account already: only the login shown is refreshed.
    pub(crate) known: bool,
    /// The address the account takes, if any.
    pub(crate) address: Option<&'a Email>,
}

/// Whether the provider's user of `profile` may be linked to `account` (with its standing), which a
/// signed-in owner chose, and what that writes; `linked` is the account the user is linked to
/// already, `holder` the live account that holds the vouched address. A user linked to another
/// account is refused; the account takes the vouched address if it has none and nobody holds it.
pub(crate) fn link_provider<'a>(
    profile: &'a Profile,
    account: AccountId,
    standing: Option<Standing>,
    linked: Option<AccountId>,
    holder: Option<AccountId>,
) -> Result<ProviderLink<'a>> {
    let standing = live(standing)?;
    if linked.is_some_and(|owner| owner != account) {
        return Err(Error::IdentityTaken);
    }
    Ok(ProviderLink { known: linked.is_some(), address: taken_address(profile, standing.confirmed, holder) })
}

// ---- sessions

/// At most this much of a browser's `User-Agent` is kept, to tell sessions apart.
const USER_AGENT_CHARS: usize = 200;

/// A browser's `User-Agent` as a session keeps it: without control characters, cut short.
pub(crate) fn kept_user_agent(user_agent: &str) -> String {
    user_agent.chars().filter(|c| !c.is_control()).take(USER_AGENT_CHARS).collect()
}

/// The sessions alive at a moment: those last used after `seen_after` and begun after `created_after`
/// (both in seconds since the epoch). Both backends' lookups, lists and purges ask exactly this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LiveSessions {
    pub(crate) seen_after: i64,
    pub(crate) created_after: i64,
}

impl LiveSessions {
    /// A session is over [`SESSION_IDLE_SECS`] after its last use and [`SESSION_MAX_SECS`] after it
    /// began, whichever comes first.
    pub(crate) fn at(now: Timestamp) -> Self {
        Self { seen_after: now.0 - SESSION_IDLE_SECS, created_after: now.0 - SESSION_MAX_SECS }
    }

    pub(crate) fn hold(self, created_at: i64, last_seen: i64) -> bool {
        last_seen > self.seen_after && created_at > self.created_after
    }
}

/// Whether a session begun at `created_at` and last used at `last_seen` is alive at `now`, and if it
/// is, whether this use is worth noting (it has not been noted for [`SESSION_TOUCH_SECS`]): `None`
/// for a dead session.
pub(crate) fn session_use(created_at: i64, last_seen: i64, now: Timestamp) -> Option<bool> {
    LiveSessions::at(now).hold(created_at, last_seen).then_some(last_seen <= now.0 - SESSION_TOUCH_SECS)
}

/// A browser's session as stored, found by the hash of its id, with whether its account is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoredSession {
    pub(crate) id: i64,
    pub(crate) account: AccountId,
    pub(crate) created_at: i64,
    pub(crate) last_seen: i64,
    pub(crate) account_deleted: bool,
}

impl StoredSession {
    /// How the browser holding the session is signed in by a use at `now`: not at all when the
    /// session is over ([`session_use`]) or its account is deleted (a deleted account has no
    /// session); [`SessionInfo::renewed`] says whether the use is to be written.
    pub(crate) fn used(&self, now: Timestamp) -> Option<SessionInfo> {
        if self.account_deleted {
            return None;
        }
        let renewed = session_use(self.created_at, self.last_seen, now)?;
        Some(SessionInfo {
            account: self.account,
            id: self.id,
            created_at: Timestamp(self.created_at),
            renewed,
        })
    }
}

// ---- upkeep

/// An expired link is forgotten this long after it expired.
const EXPIRED_LINKS_KEPT_SECS: i64 = 86_400;

/// What a purge at a moment forgets: links that expired before `links_expired_before`, and the
/// sessions that are not `live`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Purge {
    pub(crate) links_expired_before: i64,
    pub(crate) live: LiveSessions,
    /// Webhook messages done before this moment go, once no try of theirs is kept.
    pub(crate) messages_done_before: i64,
}

impl Purge {
    pub(crate) fn at(now: Timestamp) -> Self {
        Self {
            links_expired_before: now.0 - EXPIRED_LINKS_KEPT_SECS,
            live: LiveSessions::at(now),
            messages_done_before: now.0 - DONE_MESSAGES_KEPT_SECS,
        }
    }
}

/// How long a delivered or given-up webhook message is kept (then only while its endpoint's log
/// still shows a try of it).
const DONE_MESSAGES_KEPT_SECS: i64 = 30 * 86_400;

// ---- webhooks

/// Whether an account may add a webhook endpoint now, given its standing and how many it holds: it
/// is there, not suspended, confirmed (as for keys), and holds fewer than [`MAX_WEBHOOKS`].
pub(crate) fn webhook_allowance(standing: Option<Standing>, endpoints: usize) -> Result<()> {
    let standing = live(standing)?;
    if let Some(Suspension { reason }) = standing.suspension {
        return Err(Error::AccountSuspended { reason });
    }
    if !standing.confirmed {
        return Err(Error::Unconfirmed);
    }
    if endpoints >= MAX_WEBHOOKS {
        return Err(Error::TooManyWebhooks { max: MAX_WEBHOOKS });
    }
    Ok(())
}

/// One of `asking`'s endpoints, of the one read by its number: [`owned`], else
/// [`Error::NoSuchWebhook`].
pub(crate) fn owned_webhook(found: Option<WebhookEndpoint>, asking: AccountId) -> Result<WebhookEndpoint> {
    owned(found.map(|endpoint| (endpoint.account, endpoint)), asking, Error::NoSuchWebhook)
}

/// Whether a test may be sent to `endpoint`: not while it is disabled, as nothing else is.
pub(crate) fn may_test(endpoint: &WebhookEndpoint) -> Result<()> {
    match endpoint.disabled {
        Some(_) => Err(Error::WebhookDisabled),
        None => Ok(()),
    }
}

/// What asking for a test does, given whether a test of the endpoint is still on its way: one at a
/// time, so that a page's button cannot make Tapster send a stranger's server a stream of requests;
/// a pending one (waiting after a failure, say, while its owner mends the receiver) is tried now
/// instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TestAsked {
    Queue,
    TryPendingNow,
}

pub(crate) fn test_asked(test_pending: bool) -> TestAsked {
    if test_pending { TestAsked::TryPendingNow } else { TestAsked::Queue }
}

/// Until when a secret replaced at `now` still signs.
pub(crate) fn rotated_secret_until(now: Timestamp) -> i64 {
    now.0 + WEBHOOK_ROTATION_SECS
}

/// The first wait before a failed message is tried again, doubled after each try up to
/// [`RETRY_WAIT_MAX_SECS`].
const RETRY_WAIT_SECS: i64 = 10;
const RETRY_WAIT_MAX_SECS: i64 = 3_600;

/// What follows a try of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterAttempt {
    Delivered,
    /// Tried again at this moment (seconds since the epoch).
    RetryAt(i64),
    /// Past [`WEBHOOK_RETRY_SECS`]: never tried again.
    GiveUp,
}

/// What follows a try at `now` of a message made at `created_at` and tried `attempts` times before:
/// an exponential wait from [`RETRY_WAIT_SECS`], capped at an hour, spread by `jitter` (per mille,
/// from the caller's randomness: 0 waits 80 %, 1000 waits 120 %) so that the messages of one
/// outage do not all come back at once; given up once the next try would fall past a day after it
/// was made.
pub(crate) fn after_attempt(
    delivered: bool,
    attempts: u32,
    created_at: Timestamp,
    now: Timestamp,
    jitter: u16,
) -> AfterAttempt {
    if delivered {
        return AfterAttempt::Delivered;
    }
    let wait = RETRY_WAIT_SECS.saturating_mul(1_i64 << attempts.min(20)).min(RETRY_WAIT_MAX_SECS);
    let wait = wait * (800 + i64::from(jitter.min(1_000)) * 400 / 1_000) / 1_000;
    let next = now.0 + wait.max(1);
    if next > created_at.0 + WEBHOOK_RETRY_SECS { AfterAttempt::GiveUp } else { AfterAttempt::RetryAt(next) }
}

/// An endpoint's `failing_since` after a try at `at`: cleared by a delivery, set by the first
/// failure after one.
pub(crate) fn failing_after(delivered: bool, failing_since: Option<i64>, at: Timestamp) -> Option<i64> {
    if delivered { None } else { Some(failing_since.unwrap_or(at.0)) }
}

/// Whether a try at `at` disables its endpoint: it failed, and so has every try since
/// `failing_since` (the endpoint's, after this try), at least [`WEBHOOK_FAILING_SECS`] before. Decided
/// at a failed try, so that an endpoint is never disabled for days nobody tried it.
pub(crate) fn disables(delivered: bool, failing_since: Option<i64>, at: Timestamp) -> bool {
    !delivered && failing_since.is_some_and(|since| at.0 - since >= WEBHOOK_FAILING_SECS)
}

/// Why the worker disabled an endpoint, as its owner reads it.
pub(crate) const FAILING_REASON: &str = "every delivery failed for 3 days";
/// Why an owner's endpoint is disabled when they disabled it.
pub(crate) const OWNER_REASON: &str = "disabled by its owner";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Provider;
    use crate::model::tests::key;

    const NOW: Timestamp = Timestamp(1_000_000_000);

    fn email(value: &str) -> Email {
        Email::parse(value).unwrap()
    }

    fn confirmed() -> Option<Standing> {
        Some(Standing { confirmed: true, suspension: None })
    }

    fn unconfirmed() -> Option<Standing> {
        Some(Standing { confirmed: false, suspension: None })
    }

    fn suspended(reason: Option<&str>) -> Option<Standing> {
        let suspension = Some(Suspension { reason: reason.map(str::to_owned) });
        Some(Standing { confirmed: true, suspension })
    }

    #[test]
    fn only_a_live_account_is_acted_on() {
        assert_eq!(live(confirmed()).unwrap(), confirmed().unwrap());
        assert!(matches!(live::<Standing>(None), Err(Error::AccountGone)));
    }

    #[test]
    fn the_operator_names_a_live_account_by_its_address() {
        let marta = email("marta@example.com");
        assert_eq!(named_account(&marta, Some(AccountId(4))).unwrap(), AccountId(4));
        let Err(Error::NoSuchAccount(named)) = named_account(&marta, None) else {
            panic!("no account holds the address")
        };
        assert_eq!(named, marta);
    }

    #[test]
    fn an_owner_acts_only_on_their_own_and_another_s_is_as_missing() {
        let (me, other) = (AccountId(1), AccountId(2));
        let mine = KeyRecord { account: me, ..key(None, None, false) };
        let theirs = KeyRecord { account: other, ..key(None, None, false) };
        assert_eq!(owned_key(Some(mine.clone()), me).unwrap(), mine);
        for found in [Some(theirs), None] {
            assert_eq!(owned_key(found.clone(), me).map_err(|e| variant(&e)), Err("NoSuchKey"), "{found:?}");
        }
        let cases = [(Some(me), Ok(())), (Some(other), Err(())), (None, Err(()))];
        for (owner, expected) in cases {
            let identity = expected.map_err(|()| "NoSuchIdentity");
            assert_eq!(owned_identity(owner, me).map_err(|e| variant(&e)), identity, "{owner:?}");
            let session = expected.map_err(|()| "NoSuchSession");
            assert_eq!(owned_session(owner, me).map_err(|e| variant(&e)), session, "{owner:?}");
        }
    }

    #[test]
    fn the_first_key_goes_only_into_a_store_without_any() {
        assert!(first_key_due(false));
        assert!(!first_key_due(true), "not even beside revoked keys");
    }

    #[test]
    fn the_last_way_in_stays() {
        let cases = [
            (confirmed(), 0, Ok(())),
            (confirmed(), 1, Ok(())),
            (unconfirmed(), 2, Ok(())),
            (unconfirmed(), 1, Err("LastSignIn")),
            (unconfirmed(), 0, Err("LastSignIn")),
            (None, 3, Err("AccountGone")),
        ];
        for (standing, identities, expected) in cases {
            let got = may_unlink(standing.clone(), identities).map_err(|e| variant(&e));
            assert_eq!(got, expected, "{standing:?} with {identities} sign-ins");
        }
    }

    #[test]
    fn a_reason_is_kept_only_with_a_suspension() {
        assert_eq!(kept_reason(true, Some("spam")), Some("spam"));
        assert_eq!(kept_reason(true, None), None);
        assert_eq!(kept_reason(false, Some("spam")), None);
    }

    /// The name of an error's variant, so that tables of cases read as rows.
    fn variant(error: &Error) -> &'static str {
        match error {
            Error::AccountGone => "AccountGone",
            Error::LastSignIn => "LastSignIn",
            Error::AccountSuspended { .. } => "AccountSuspended",
            Error::Unconfirmed => "Unconfirmed",
            Error::TooManyKeys { .. } => "TooManyKeys",
            Error::NoSuchKey => "NoSuchKey",
            Error::AmbiguousKeyPrefix => "AmbiguousKeyPrefix",
            Error::KeyRevoked { .. } => "KeyRevoked",
            Error::TokenSpent => "TokenSpent",
            Error::TokenExpired => "TokenExpired",
            Error::TokenUnknown => "TokenUnknown",
            Error::TokenForAnotherAccount => "TokenForAnotherAccount",
            Error::AddressTaken(_) => "AddressTaken",
            Error::IdentityTaken => "IdentityTaken",
            Error::NoSuchIdentity => "NoSuchIdentity",
            Error::NoSuchSession => "NoSuchSession",
            Error::NoSuchAccount(_) => "NoSuchAccount",
            other => panic!("no rule answers {other}"),
        }
    }

    #[test]
    fn the_key_cap_counts_keys_neither_revoked_nor_expired() {
        let active = key(None, None, false);
        let later = key(None, Some(NOW.0 + 1), false);
        let suspended_key = key(None, None, true);
        let expired = key(None, Some(NOW.0), false);
        let revoked = key(Some(NOW.0 - 1), None, false);
        let nine = vec![active.clone(); 9];
        let cases = [
            (confirmed(), vec![], Ok(())),
            (confirmed(), nine.clone(), Ok(())),
            (confirmed(), [nine.clone(), vec![later]].concat(), Err("TooManyKeys")),
            (confirmed(), [nine.clone(), vec![suspended_key]].concat(), Err("TooManyKeys")),
            (confirmed(), [nine.clone(), vec![expired, revoked]].concat(), Ok(())),
            (unconfirmed(), vec![], Err("Unconfirmed")),
            (
                Some(Standing { confirmed: false, ..suspended(None).unwrap() }),
                vec![],
                Err("AccountSuspended"),
            ),
            (suspended(Some("spam")), vec![], Err("AccountSuspended")),
            (None, vec![], Err("AccountGone")),
        ];
        for (standing, keys, expected) in cases {
            let got = key_allowance(standing.clone(), &keys, NOW).map_err(|e| variant(&e));
            assert_eq!(got, expected, "{standing:?} holding {} keys", keys.len());
        }
        let Err(Error::AccountSuspended { reason }) = key_allowance(suspended(Some("spam")), &[], NOW) else {
            panic!("a suspended account makes no key")
        };
        assert_eq!(reason.as_deref(), Some("spam"));
    }

    #[test]
    fn the_keys_read_are_every_key_a_rule_looks_at() {
        let bound = keys_revoked_after(NOW);
        assert_eq!(bound, NOW.0 - REVOKED_SHOWN_SECS);
        for revoked_at in [None, Some(NOW.0), Some(bound + 1), Some(bound), Some(bound - 1), Some(0)] {
            for expires_at in [None, Some(NOW.0 - 1), Some(NOW.0 + 1)] {
                let key = key(revoked_at, expires_at, false);
                let read = revoked_at.is_none_or(|at| at > bound);
                if !read {
                    assert!(!shown_to_owner(&key, NOW), "{key:?} is not read, yet shown");
                    assert!(!takes_a_slot(&key, NOW), "{key:?} is not read, yet takes a slot");
                }
            }
        }
        // A key revoked within the bound is read and shown; it takes no slot.
        let lately = key(Some(bound + 1), None, false);
        assert!(shown_to_owner(&lately, NOW) && !takes_a_slot(&lately, NOW));
    }

    #[test]
    fn revoked_keys_are_shown_for_30_days() {
        assert!(shown_to_owner(&key(None, Some(NOW.0 - 1), true), NOW));
        assert!(shown_to_owner(&key(Some(NOW.0 - REVOKED_SHOWN_SECS + 1), None, false), NOW));
        assert!(!shown_to_owner(&key(Some(NOW.0 - REVOKED_SHOWN_SECS), None, false), NOW));
    }

    #[test]
    fn a_selector_names_exactly_one_key() {
        assert_eq!(selected_key(&[4]).unwrap(), 4);
        assert_eq!(selected_key(&[]).map_err(|e| variant(&e)), Err("NoSuchKey"));
        assert_eq!(selected_key(&[4, 5]).map_err(|e| variant(&e)), Err("AmbiguousKeyPrefix"));
    }

    #[test]
    fn a_revoked_key_can_only_be_revoked() {
        let live_key = key(None, None, false);
        let revoked = key(Some(NOW.0), None, false);
        let cases = [
            (&live_key, KeyAction::Revoke, Ok(KeyWrite::Revoke)),
            (&live_key, KeyAction::Suspend, Ok(KeyWrite::Suspended(true))),
            (&live_key, KeyAction::Unsuspend, Ok(KeyWrite::Suspended(false))),
            (&revoked, KeyAction::Revoke, Ok(KeyWrite::Revoke)),
            (&revoked, KeyAction::Suspend, Err("KeyRevoked")),
            (&revoked, KeyAction::Unsuspend, Err("KeyRevoked")),
        ];
        for (key, action, expected) in cases {
            assert_eq!(key_change(key, action).map_err(|e| variant(&e)), expected, "{action:?}");
        }
        let Err(Error::KeyRevoked { id, prefix }) = key_change(&revoked, KeyAction::Suspend) else {
            panic!("a revoked key is not suspended")
        };
        assert_eq!((id, prefix.as_str()), (7, "tap_00000000"));
    }

    #[test]
    fn three_mails_per_window_and_none_for_an_account_gone() {
        assert_eq!(mail_window_start(NOW), NOW.0 - 15 * 60);
        assert_eq!(link_expires_at(NOW), NOW.0 + 15 * 60);
        let cases = [
            (0, LinkPurpose::SignIn, Ok(Issued::Issued)),
            (2, LinkPurpose::SignIn, Ok(Issued::Issued)),
            (2, LinkPurpose::Confirm(unconfirmed()), Ok(Issued::Issued)),
            (3, LinkPurpose::SignIn, Ok(Issued::Throttled)),
            (3, LinkPurpose::Confirm(None), Ok(Issued::Throttled)),
            (0, LinkPurpose::Confirm(None), Err("AccountGone")),
        ];
        for (recent, purpose, expected) in cases {
            let got = link_issue(recent, purpose.clone()).map_err(|e| variant(&e));
            assert_eq!(got, expected, "{recent} recent, for {purpose:?}");
        }
    }

    fn link(account: Option<i64>, expires_at: i64, spent_at: Option<i64>) -> StoredLink {
        StoredLink {
            email: "marta@example.com".into(),
            account: account.map(AccountId),
            expires_at,
            spent_at,
        }
    }

    #[test]
    fn a_link_is_spent_once_before_it_expires_where_its_account_is_signed_in() {
        let (me, other) = (Some(AccountId(1)), Some(AccountId(2)));
        let cases = [
            (link(None, NOW.0 + 1, None), None, Ok(())),
            (link(None, NOW.0 + 1, None), other, Ok(())),
            (link(Some(1), NOW.0 + 1, None), me, Ok(())),
            (link(Some(1), NOW.0 + 1, None), other, Err("TokenForAnotherAccount")),
            (link(Some(1), NOW.0 + 1, None), None, Err("TokenForAnotherAccount")),
            (link(None, NOW.0, None), None, Err("TokenExpired")),
            (link(None, NOW.0 + 1, Some(NOW.0)), None, Err("TokenSpent")),
            (link(None, NOW.0, Some(NOW.0 - 1)), None, Err("TokenSpent")),
            (
                StoredLink { email: "not an address".into(), ..link(None, NOW.0 + 1, None) },
                None,
                Err("TokenUnknown"),
            ),
        ];
        for (link, signed_in, expected) in cases {
            let got = link.spendable(signed_in, NOW).map(drop).map_err(|e| variant(&e));
            assert_eq!(got, expected, "{link:?} in a browser signed in as {signed_in:?}");
        }
        assert_eq!(link(None, NOW.0 + 1, None).spendable(None, NOW).unwrap(), email("marta@example.com"));
    }

    #[test]
    fn a_link_tells_what_it_is_for_while_it_can_be_spent() {
        let pending = |link: StoredLink| link.pending(NOW);
        let marta = email("marta@example.com");
        assert_eq!(
            pending(link(None, NOW.0 + 1, None)),
            Some(PendingLink { email: marta.clone(), confirms: false })
        );
        assert_eq!(
            pending(link(Some(1), NOW.0 + 1, None)),
            Some(PendingLink { email: marta, confirms: true })
        );
        assert_eq!(pending(link(None, NOW.0, None)), None);
        assert_eq!(pending(link(None, NOW.0 + 1, Some(NOW.0))), None);
        assert_eq!(pending(StoredLink { email: "nope".into(), ..link(None, NOW.0 + 1, None) }), None);
    }

    #[test]
    fn a_link_lands_in_the_account_that_asked_or_holds_the_address() {
        let marta = email("marta@example.com");
        let (me, other) = (AccountId(1), AccountId(2));
        let cases = [
            (None, None, Ok(LinkLanding::NewAccount)),
            (None, Some(other), Ok(LinkLanding::Holder(other))),
            (Some((me, unconfirmed())), None, Ok(LinkLanding::Asking { account: me, take_address: true })),
            (Some((me, confirmed())), None, Ok(LinkLanding::Asking { account: me, take_address: false })),
            (Some((me, confirmed())), Some(me), Ok(LinkLanding::Asking { account: me, take_address: false })),
            (Some((me, unconfirmed())), Some(other), Err("AddressTaken")),
            (Some((me, None)), Some(other), Err("AddressTaken")),
            (Some((me, None)), None, Err("AccountGone")),
        ];
        for (asking, holder, expected) in cases {
            let got = link_landing(&marta, asking.clone(), holder).map_err(|e| variant(&e));
            assert_eq!(got, expected, "asking {asking:?}, held by {holder:?}");
        }
    }

    fn profile(address: Option<&str>, verified: bool) -> Profile {
        Profile::new(Provider::GitHub, "583231", "marta", address.map(email), verified).unwrap()
    }

    #[test]
    fn only_a_verified_address_is_vouched_for() {
        assert_eq!(vouched(&profile(Some("marta@example.com"), true)), Some(&email("marta@example.com")));
        assert_eq!(vouched(&profile(Some("marta@example.com"), false)), None);
        assert_eq!(vouched(&profile(None, true)), None);
    }

    #[test]
    fn a_provider_sign_in_lands_by_identity_then_by_vouched_address() {
        let marta = email("marta@example.com");
        let (verified, unverified, none) = (
            profile(Some("marta@example.com"), true),
            profile(Some("marta@example.com"), false),
            profile(None, false),
        );
        let (me, other) = (AccountId(1), AccountId(2));
        let cases = [
            // A linked user signs in to their account, which takes a vouched address nobody holds.
            (
                &verified,
                Some((me, unconfirmed())),
                None,
                ProviderSignIn::Linked { account: me, address: Some(&marta) },
            ),
            (&verified, Some((me, confirmed())), None, ProviderSignIn::Linked { account: me, address: None }),
            (
                &verified,
                Some((me, unconfirmed())),
                Some(other),
                ProviderSignIn::Linked { account: me, address: None },
            ),
            (
                &unverified,
                Some((me, unconfirmed())),
                None,
                ProviderSignIn::Linked { account: me, address: None },
            ),
            // A new user joins the holder of the vouched address, or a new account.
            (&verified, None, Some(other), ProviderSignIn::Holder(other)),
            (&verified, None, None, ProviderSignIn::NewAccount { email: Some(&marta), pending: None }),
            // An address not vouched for is never matched: it waits on a new account.
            (
                &unverified,
                None,
                Some(other),
                ProviderSignIn::NewAccount { email: None, pending: Some(&marta) },
            ),
            (&none, None, None, ProviderSignIn::NewAccount { email: None, pending: None }),
        ];
        for (profile, linked, holder, expected) in cases {
            assert_eq!(
                provider_sign_in(profile, linked.clone(), holder).unwrap(),
                expected,
                "{linked:?}, {holder:?}"
            );
        }
    }

    #[test]
    fn a_user_linked_to_an_account_gone_signs_in_nowhere() {
        let verified = profile(Some("marta@example.com"), true);
        for holder in [None, Some(AccountId(2))] {
            let got =
                provider_sign_in(&verified, Some((AccountId(1), None)), holder).map_err(|e| variant(&e));
            assert_eq!(got, Err("AccountGone"), "held by {holder:?}");
        }
    }

    #[test]
    fn a_provider_user_is_linked_to_one_account() {
        let marta = email("marta@example.com");
        let (verified, unverified) =
            (profile(Some("marta@example.com"), true), profile(Some("marta@example.com"), false));
        let (me, other) = (AccountId(1), AccountId(2));
        let allowed = |known, address| Ok(ProviderLink { known, address });
        let cases = [
            (&verified, unconfirmed(), None, None, allowed(false, Some(&marta))),
            (&verified, unconfirmed(), Some(me), None, allowed(true, Some(&marta))),
            (&verified, confirmed(), None, None, allowed(false, None)),
            (&verified, unconfirmed(), None, Some(other), allowed(false, None)),
            (&unverified, unconfirmed(), None, None, allowed(false, None)),
            (&verified, unconfirmed(), Some(other), None, Err("IdentityTaken")),
            (&verified, None, Some(other), None, Err("AccountGone")),
        ];
        for (profile, standing, linked, holder, expected) in cases {
            let got = link_provider(profile, me, standing.clone(), linked, holder).map_err(|e| variant(&e));
            assert_eq!(got, expected, "{standing:?}, linked to {linked:?}, held by {holder:?}");
        }
    }

    #[test]
    fn user_agents_are_kept_short_and_printable() {
        assert_eq!(kept_user_agent("Firefox\n/128\u{0}"), "Firefox/128");
        assert_eq!(kept_user_agent(&"é".repeat(300)).chars().count(), USER_AGENT_CHARS);
    }

    #[test]
    fn a_session_lives_30_idle_days_and_90_in_all() {
        let day = 86_400;
        let cases = [
            // begun, last seen (seconds before now) -> alive and worth noting
            ((0, 0), Some(false)),
            ((day, SESSION_TOUCH_SECS - 1), Some(false)),
            ((day, SESSION_TOUCH_SECS), Some(true)),
            ((31 * day, 30 * day - 1), Some(true)),
            ((31 * day, 30 * day), None),
            ((90 * day - 1, 0), Some(false)),
            ((90 * day, 0), None),
        ];
        for ((begun, seen), expected) in cases {
            assert_eq!(
                session_use(NOW.0 - begun, NOW.0 - seen, NOW),
                expected,
                "begun {begun}s, seen {seen}s ago"
            );
        }
    }

    #[test]
    fn a_deleted_account_has_no_session() {
        let stored = StoredSession {
            id: 3,
            account: AccountId(1),
            created_at: NOW.0 - 86_400,
            last_seen: NOW.0 - SESSION_TOUCH_SECS,
            account_deleted: false,
        };
        let signed_in = SessionInfo {
            account: AccountId(1),
            id: 3,
            created_at: Timestamp(NOW.0 - 86_400),
            renewed: true,
        };
        assert_eq!(stored.used(NOW), Some(signed_in));
        assert_eq!(
            StoredSession { last_seen: NOW.0 - 1, ..stored }.used(NOW).map(|s| s.renewed),
            Some(false)
        );
        assert_eq!(StoredSession { account_deleted: true, ..stored }.used(NOW), None);
        assert_eq!(StoredSession { last_seen: NOW.0 - SESSION_IDLE_SECS, ..stored }.used(NOW), None);
    }

    #[test]
    fn a_token_the_store_does_not_hold_opens_nothing() {
        let stored = link(None, NOW.0 + 1, None);
        assert_eq!(StoredLink::known(Some(stored.clone())).unwrap(), stored);
        assert_eq!(StoredLink::known(None).map_err(|e| variant(&e)), Err("TokenUnknown"));
    }

    #[test]
    fn a_purge_forgets_links_a_day_after_they_expired_and_dead_sessions() {
        let purge = Purge::at(NOW);
        assert_eq!(purge.links_expired_before, NOW.0 - 86_400);
        assert_eq!(purge.live, LiveSessions::at(NOW));
    }

    #[test]
    fn webhooks_are_for_confirmed_accounts_five_at_most() {
        let standing = |confirmed, suspension| Some(Standing { confirmed, suspension });
        assert!(webhook_allowance(standing(true, None), 4).is_ok());
        assert!(matches!(webhook_allowance(standing(true, None), 5), Err(Error::TooManyWebhooks { max: 5 })));
        assert!(matches!(webhook_allowance(standing(false, None), 0), Err(Error::Unconfirmed)));
        let suspended = Some(Suspension { reason: Some("spam".into()) });
        assert!(matches!(
            webhook_allowance(standing(true, suspended), 0),
            Err(Error::AccountSuspended { .. })
        ));
        assert!(matches!(webhook_allowance(None, 0), Err(Error::AccountGone)));
    }

    #[test]
    fn failed_messages_wait_twice_as_long_each_time_for_a_day() {
        let made = Timestamp(1_000_000);
        let at = |secs| Timestamp(made.0 + secs);
        // The middle of the jitter waits exactly the doubling: 10 s, 20 s, 40 s, ...
        assert_eq!(after_attempt(false, 0, made, at(0), 500), AfterAttempt::RetryAt(made.0 + 10));
        assert_eq!(after_attempt(false, 1, made, at(10), 500), AfterAttempt::RetryAt(made.0 + 30));
        assert_eq!(after_attempt(false, 3, made, at(0), 500), AfterAttempt::RetryAt(made.0 + 80));
        // Spread by 20 % either way.
        assert_eq!(after_attempt(false, 3, made, at(0), 0), AfterAttempt::RetryAt(made.0 + 64));
        assert_eq!(after_attempt(false, 3, made, at(0), 1_000), AfterAttempt::RetryAt(made.0 + 96));
        // Never more than an hour apart, and never past a day after it was made.
        assert_eq!(after_attempt(false, 30, made, at(0), 500), AfterAttempt::RetryAt(made.0 + 3_600));
        assert_eq!(after_attempt(false, 30, made, at(82_800), 500), AfterAttempt::RetryAt(made.0 + 86_400));
        assert_eq!(after_attempt(false, 30, made, at(82_801), 500), AfterAttempt::GiveUp);
        assert_eq!(after_attempt(true, 30, made, at(90_000), 500), AfterAttempt::Delivered);
        // Tried every few minutes at first, about 30 times in the day.
        let (mut now, mut tries) = (made, 0);
        while let AfterAttempt::RetryAt(next) = after_attempt(false, tries, made, now, 500) {
            now = Timestamp(next);
            tries += 1;
        }
        assert!((25..=35).contains(&tries), "{tries} tries");
    }

    #[test]
    fn an_endpoint_fails_from_its_first_failure_after_a_delivery() {
        assert_eq!(failing_after(false, None, Timestamp(5)), Some(5));
        assert_eq!(failing_after(false, Some(3), Timestamp(5)), Some(3));
        assert_eq!(failing_after(true, Some(3), Timestamp(5)), None);
        assert!(!disables(false, Some(7), Timestamp(3 * 86_400 + 6)));
        assert!(disables(false, Some(7), Timestamp(3 * 86_400 + 7)));
        assert!(!disables(true, None, Timestamp(3 * 86_400 + 7)));
        assert_eq!(test_asked(true), TestAsked::TryPendingNow);
        assert_eq!(test_asked(false), TestAsked::Queue);
    }
}
