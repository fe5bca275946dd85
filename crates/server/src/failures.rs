//! The limit on failed authentications per calling address, so that guessing keys earns a `429`
//! instead of thousands of key lookups.
//!
//! Every `/v1` request refused as unauthorized for a well-formed key that opens nothing (unknown or
//! revoked) counts against its address: that is what guessing looks like, and what a client that
//! kept a revoked key sends. A missing key or one that fails its shape or checksum is a mistake,
//! refused without any lookup, so it is answered `401` and does not count. An address may fail [`BURST`] times at once, and the allowance comes back
//! steadily, one failure every [`REFILL`] (20 a minute; GCRA, as the key limiter does it). Over the
//! limit, a request that would fail is answered `429` with `Retry-After` instead of `401`, and one
//! whose key belongs to no known public prefix is refused without the key being looked up; refused
//! requests use up nothing, so a client that keeps failing gets one `401` every few seconds.
//!
//! A valid key from an address over the limit still passes: its public prefix is known, it is looked
//! up as usual (a hash and a map lookup) and admitted. One broken or hostile client behind a NAT or a
//! proxy therefore cannot lock out the others sharing its address, while a guesser, whose prefixes
//! belong to no key, gets nothing but `429`s and costs no lookups.
//!
//! IPv6 addresses are counted by their `/64` network, the block one subscriber usually holds, so that
//! walking through the addresses of one's own network does not reset the count. The state is bounded:
//! an address is forgotten once its allowance is whole again ([`Failures::sweep`], run with the usage
//! flush), and at most [`MAX_ADDRESSES`] are held; past that, new addresses are not tracked until a
//! sweep makes room, so a flood from countless addresses cannot grow memory without end.
//!
//! The time is given, never read, so the tests are exact.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;
use std::time::Duration;

/// Failures an address may have at once.
pub(crate) const BURST: u32 = 20;
/// How long it takes for one failure to be forgiven: 20 a minute.
pub(crate) const REFILL: Duration = Duration::from_secs(3);
/// Addresses tracked at most (a few megabytes).
pub(crate) const MAX_ADDRESSES: usize = 100_000;

/// The failed authentications of each calling address.
#[derive(Debug, Default)]
pub(crate) struct Failures {
    /// Per address (IPv6 by `/64`): the theoretical arrival time of the next failure, in nanoseconds
    /// since the epoch (GCRA); the address is over the limit while it lies beyond `now` plus the
    /// burst's tolerance.
    addresses: Mutex<HashMap<IpAddr, u64>>,
}

impl Failures {
    /// Counts one failed authentication of `peer` at `now`, unless it is over the limit already:
    /// then nothing is counted and the wait until it may fail again is returned.
    pub(crate) fn fail(&self, peer: IpAddr, now: Duration) -> Result<(), Duration> {
        let now = nanos(now);
        let mut addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let address = counted(peer);
        let Some(tat) = addresses.get_mut(&address) else {
            if addresses.len() < MAX_ADDRESSES {
                addresses.insert(address, now + interval());
            }
            return Ok(());
        };
        if let Some(wait) = wait(*tat, now) {
            return Err(wait);
        }
        *tat = (*tat).max(now) + interval();
        Ok(())
    }

    /// Forgets every address whose allowance is whole again at `now`.
    pub(crate) fn sweep(&self, now: Duration) {
        let now = nanos(now);
        self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).retain(|_, tat| *tat > now);
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.addresses.lock().unwrap().len()
    }
}

fn interval() -> u64 {
    u64::try_from(REFILL.as_nanos()).unwrap_or(u64::MAX)
}

/// The wait until a failure is allowed again, when the next one is due at `tat`.
fn wait(tat: u64, now: u64) -> Option<Duration> {
    let tolerance = interval() * u64::from(BURST - 1);
    (tat > now + tolerance).then(|| Duration::from_nanos(tat - tolerance - now))
}

fn nanos(time: Duration) -> u64 {
    u64::try_from(time.as_nanos()).unwrap_or(u64::MAX)
}

/// The address a failure is counted under: IPv4 addresses as they are, IPv6 ones by `/64` network
/// (an IPv4 address mapped into IPv6 as the IPv4 address).
fn counted(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(_) => peer,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from_bits(v6.to_bits() & !u128::from(u64::MAX))),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    const START: Duration = Duration::from_secs(1_795_296_810);
    const PEER: IpAddr = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7));

    fn at(millis: u64) -> Duration {
        START + Duration::from_millis(millis)
    }

    #[test]
    fn twenty_failures_pass_then_the_wait_is_one_refill() {
        let failures = Failures::default();
        for n in 0..BURST {
            assert_eq!(failures.fail(PEER, at(0)), Ok(()), "failure {n}");
        }
        assert_eq!(failures.fail(PEER, at(0)), Err(REFILL));
        assert_eq!(failures.fail(PEER, at(1_000)), Err(Duration::from_secs(2)));
    }

    #[test]
    fn the_allowance_comes_back_one_failure_every_three_seconds() {
        let failures = Failures::default();
        for _ in 0..BURST {
            failures.fail(PEER, at(0)).unwrap();
        }
        // Refused attempts use up nothing: after one refill, exactly one more failure is counted.
        for _ in 0..100 {
            assert!(failures.fail(PEER, at(2_999)).is_err());
        }
        assert_eq!(failures.fail(PEER, at(3_000)), Ok(()));
        assert_eq!(failures.fail(PEER, at(3_000)), Err(REFILL));
        // A minute later, all twenty are back.
        let later = at(63_000);
        assert_eq!((0..30).filter(|_| failures.fail(PEER, later).is_ok()).count(), BURST as usize);
    }

    #[test]
    fn addresses_are_counted_apart_and_ipv6_by_network() {
        let failures = Failures::default();
        for _ in 0..BURST {
            failures.fail(PEER, at(0)).unwrap();
        }
        assert!(failures.fail(PEER, at(0)).is_err());
        assert_eq!(failures.fail("203.0.113.8".parse().unwrap(), at(0)), Ok(()));

        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_network: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let other_network: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        for _ in 0..BURST {
            failures.fail(one, at(0)).unwrap();
        }
        assert!(failures.fail(same_network, at(0)).is_err());
        assert_eq!(failures.fail(other_network, at(0)), Ok(()));
        let mapped: IpAddr = "::ffff:203.0.113.7".parse().unwrap();
        assert!(failures.fail(mapped, at(0)).is_err());
    }

    #[test]
    fn sweeping_forgets_forgiven_addresses_and_the_state_is_bounded() {
        let failures = Failures::default();
        failures.fail(PEER, at(0)).unwrap();
        for _ in 0..5 {
            failures.fail("198.51.100.1".parse().unwrap(), at(0)).unwrap();
        }
        failures.sweep(at(3_000));
        assert_eq!(failures.tracked(), 1, "one failure is forgiven after one refill, five are not");
        failures.sweep(at(15_000));
        assert_eq!(failures.tracked(), 0);

        for n in 0..MAX_ADDRESSES as u32 + 10 {
            failures.fail(IpAddr::V4(Ipv4Addr::from_bits(n)), at(0)).unwrap();
        }
        assert_eq!(failures.tracked(), MAX_ADDRESSES);
        failures.sweep(at(3_000));
        assert_eq!(failures.tracked(), 0);
    }
}
