//! The limit on failed authentications per calling address, so that guessing keys earns a `429`
//! instead of thousands of key lookups.
//!
//! Every `/v1` request refused as unauthorized for a well-formed key that opens nothing (unknown,
//! revoked or expired) counts against its address: that is what guessing looks like, and what a
//! client that kept an old key sends. A missing key or one that fails its shape or checksum is a
//! mistake, refused without any lookup, so it is answered `401` and does not count. An address may
//! fail [`BURST`] times at once, and the allowance comes back steadily, one failure every [`REFILL`]
//! (20 a minute; GCRA, as the key limiter does it). Over the
//! limit, a request that would fail is answered `429` with `Retry-After` instead of `401`, and one
//! whose key belongs to no known public prefix is refused without the key being looked up; refused
//! requests use up nothing, so a client that keeps failing gets one `401` every few seconds.
//!
//! A valid key from an address over the limit still passes: its public prefix is known, it is looked
//! up as usual (a hash and a map lookup) and admitted. One broken or hostile client behind a NAT or a
//! proxy therefore cannot lock out the others sharing its address, while a guesser, whose prefixes
//! belong to no key, gets nothing but `429`s and costs no lookups.
//!
//! The counting itself (GCRA per address, IPv6 by `/64`, bounded memory) is [`AddressLimit`]'s.

use std::time::Duration;

use tapster_domain::AddressLimit;

/// Failures an address may have at once.
const BURST: u32 = 20;
/// How long it takes for one failure to be forgiven: 20 a minute.
const REFILL: Duration = Duration::from_secs(3);

/// The failed authentications of each calling address.
pub(crate) fn failures() -> AddressLimit {
    AddressLimit::new(BURST, REFILL)
}
