//! A limit on attempts per calling address (GCRA: a burst, then one attempt back every refill
//! interval), for whatever a stranger may try too often: failed authentications on the API, sign-in
//! mails in the dashboard.
//!
//! IPv6 addresses are counted by their `/64` network, the block one subscriber usually holds, so that
//! walking through the addresses of one's own network does not reset the count. The state is bounded
//! without ever letting an address go uncounted: an address is forgotten once its allowance is whole
//! again ([`AddressLimit::sweep`]), and at most [`MAX_ADDRESSES`] are held. A new address that finds
//! the table full makes room: first every address whose allowance is whole again is forgotten, and if
//! that leaves less than a tenth of the table free, the addresses closest to being forgiven (the
//! lowest theoretical arrival times) are let go until a tenth is free. Making room costs one pass over
//! the table and buys at least a tenth of it in new addresses, so each attempt pays O(1) amortized;
//! a flood from countless addresses neither grows memory nor stops the counting, and an address that
//! is over its limit is let go only after nine in ten tracked addresses owe more than it does.
//!
//! The time is given, never read, so the tests are exact.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;
use std::time::Duration;

/// Addresses tracked at most (a few megabytes).
pub const MAX_ADDRESSES: usize = 100_000;
/// Addresses a full table keeps at most once it has made room: a tenth of it is then free.
const KEPT_WHEN_FULL: usize = MAX_ADDRESSES - MAX_ADDRESSES / 10;

/// The attempts of each calling address.
#[derive(Debug)]
pub struct AddressLimit {
    /// Attempts an address may make at once.
    burst: u32,
    /// How long it takes for one attempt to come back, in nanoseconds.
    interval: u64,
    /// Per address (IPv6 by `/64`): the theoretical arrival time of the next attempt, in nanoseconds
    /// since the epoch (GCRA); the address is over the limit while it lies beyond `now` plus the
    /// burst's tolerance.
    addresses: Mutex<HashMap<IpAddr, u64>>,
}

impl AddressLimit {
    /// `burst` attempts at once (at least one), then one more every `refill`.
    pub fn new(burst: u32, refill: Duration) -> Self {
        Self {
            burst: burst.max(1),
            interval: u64::try_from(refill.as_nanos()).unwrap_or(u64::MAX),
            addresses: Mutex::default(),
        }
    }

    /// Counts one attempt of `peer` at `now` (time since the Unix epoch), unless it is over the limit
    /// already: then nothing is counted and the wait until it may try again is returned.
    pub fn take(&self, peer: IpAddr, now: Duration) -> Result<(), Duration> {
        let now = nanos(now);
        let mut addresses = self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let address = counted(peer);
        let Some(tat) = addresses.get_mut(&address) else {
            if addresses.len() >= MAX_ADDRESSES {
                make_room(&mut addresses, now);
            }
            addresses.insert(address, now + self.interval);
            return Ok(());
        };
        if let Some(wait) = self.wait(*tat, now) {
            return Err(wait);
        }
        *tat = (*tat).max(now) + self.interval;
        Ok(())
    }

    /// Forgets every address whose allowance is whole again at `now`.
    pub fn sweep(&self, now: Duration) {
        let now = nanos(now);
        self.addresses.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).retain(|_, tat| *tat > now);
    }

    /// The wait until an attempt is allowed again, when the next one is due at `tat`.
    fn wait(&self, tat: u64, now: u64) -> Option<Duration> {
        let tolerance = self.interval.saturating_mul(u64::from(self.burst - 1));
        (tat > now.saturating_add(tolerance)).then(|| Duration::from_nanos(tat - tolerance - now))
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.addresses.lock().unwrap().len()
    }
}

/// Frees at least a tenth of a full table at `now`: forgets the addresses whose allowance is whole
/// again, then, if too few were, the ones closest to it (found in linear time, not sorted).
fn make_room(addresses: &mut HashMap<IpAddr, u64>, now: u64) {
    addresses.retain(|_, tat| *tat > now);
    if addresses.len() <= KEPT_WHEN_FULL {
        return;
    }
    let excess = addresses.len() - KEPT_WHEN_FULL;
    let mut by_tat: Vec<(u64, IpAddr)> = addresses.iter().map(|(address, tat)| (*tat, *address)).collect();
    by_tat.select_nth_unstable_by_key(excess - 1, |(tat, _)| *tat);
    for (_, address) in &by_tat[..excess] {
        addresses.remove(address);
    }
}

fn nanos(time: Duration) -> u64 {
    u64::try_from(time.as_nanos()).unwrap_or(u64::MAX)
}

/// The address an attempt is counted under: IPv4 addresses as they are, IPv6 ones by `/64` network
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

    /// The API's limit on failed authentications: 20 at once, one back every 3 s.
    const BURST: u32 = 20;
    const REFILL: Duration = Duration::from_secs(3);
    const START: Duration = Duration::from_secs(1_795_296_810);
    const PEER: IpAddr = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7));

    fn at(millis: u64) -> Duration {
        START + Duration::from_millis(millis)
    }

    #[test]
    fn twenty_failures_pass_then_the_wait_is_one_refill() {
        let failures = AddressLimit::new(BURST, REFILL);
        for n in 0..BURST {
            assert_eq!(failures.take(PEER, at(0)), Ok(()), "failure {n}");
        }
        assert_eq!(failures.take(PEER, at(0)), Err(REFILL));
        assert_eq!(failures.take(PEER, at(1_000)), Err(Duration::from_secs(2)));
    }

    #[test]
    fn the_allowance_comes_back_one_failure_every_three_seconds() {
        let failures = AddressLimit::new(BURST, REFILL);
        for _ in 0..BURST {
            failures.take(PEER, at(0)).unwrap();
        }
        // Refused attempts use up nothing: after one refill, exactly one more failure is counted.
        for _ in 0..100 {
            assert!(failures.take(PEER, at(2_999)).is_err());
        }
        assert_eq!(failures.take(PEER, at(3_000)), Ok(()));
        assert_eq!(failures.take(PEER, at(3_000)), Err(REFILL));
        // A minute later, all twenty are back.
        let later = at(63_000);
        assert_eq!((0..30).filter(|_| failures.take(PEER, later).is_ok()).count(), BURST as usize);
    }

    #[test]
    fn addresses_are_counted_apart_and_ipv6_by_network() {
        let failures = AddressLimit::new(BURST, REFILL);
        for _ in 0..BURST {
            failures.take(PEER, at(0)).unwrap();
        }
        assert!(failures.take(PEER, at(0)).is_err());
        assert_eq!(failures.take("203.0.113.8".parse().unwrap(), at(0)), Ok(()));

        let one: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_network: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let other_network: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        for _ in 0..BURST {
            failures.take(one, at(0)).unwrap();
        }
        assert!(failures.take(same_network, at(0)).is_err());
        assert_eq!(failures.take(other_network, at(0)), Ok(()));
        let mapped: IpAddr = "::ffff:203.0.113.7".parse().unwrap();
        assert!(failures.take(mapped, at(0)).is_err());
    }

    #[test]
    fn sweeping_forgets_forgiven_addresses() {
        let failures = AddressLimit::new(BURST, REFILL);
        failures.take(PEER, at(0)).unwrap();
        for _ in 0..5 {
            failures.take("198.51.100.1".parse().unwrap(), at(0)).unwrap();
        }
        failures.sweep(at(3_000));
        assert_eq!(failures.tracked(), 1, "one failure is forgiven after one refill, five are not");
        failures.sweep(at(15_000));
        assert_eq!(failures.tracked(), 0);
    }

    const NEWCOMER: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));

    /// The `n`th address of a flood: never [`PEER`] nor [`NEWCOMER`].
    fn flooder(n: usize) -> IpAddr {
        IpAddr::V4(Ipv4Addr::from_bits(0x0a00_0000 + u32::try_from(n).unwrap()))
    }

    /// One failure at `when` of each address of the flood numbered in `range`.
    fn flood(failures: &AddressLimit, range: std::ops::Range<usize>, when: Duration) {
        for n in range {
            assert_eq!(failures.take(flooder(n), when), Ok(()), "flooder {n}");
        }
    }

    #[test]
    fn a_full_table_still_counts_every_address_and_keeps_the_guessers() {
        let failures = AddressLimit::new(BURST, REFILL);
        for _ in 0..BURST {
            failures.take(PEER, at(0)).unwrap();
        }
        assert!(failures.take(PEER, at(0)).is_err());

        // Twice the table's size in new addresses, none of them forgiven yet.
        flood(&failures, 0..2 * MAX_ADDRESSES, at(1_000));
        assert!(failures.tracked() <= MAX_ADDRESSES, "{} tracked", failures.tracked());
        assert!(failures.take(PEER, at(1_000)).is_err(), "the guesser was let go in the flood");

        // A newcomer after the flood is counted like any address: its burst runs out.
        for n in 0..BURST {
            assert_eq!(failures.take(NEWCOMER, at(1_000)), Ok(()), "failure {n}");
        }
        assert_eq!(failures.take(NEWCOMER, at(1_000)), Err(REFILL));
        assert!(failures.tracked() <= MAX_ADDRESSES, "{} tracked", failures.tracked());
    }

    #[test]
    fn a_full_table_forgets_the_forgiven_before_anyone_else() {
        let failures = AddressLimit::new(BURST, REFILL);
        failures.take(PEER, at(0)).unwrap();
        failures.take(PEER, at(0)).unwrap();
        flood(&failures, 0..MAX_ADDRESSES - 1, at(0));
        assert_eq!(failures.tracked(), MAX_ADDRESSES);
        // One refill later every address of the flood is forgiven, the one that failed twice is not:
        // the next new address makes room by forgetting the flood and nothing else.
        failures.take(NEWCOMER, at(3_000)).unwrap();
        assert_eq!(failures.tracked(), 2);
        // PEER kept its count: of its 2 failures one is forgiven, so 19 more pass and no more.
        assert_eq!((0..30).filter(|_| failures.take(PEER, at(3_000)).is_ok()).count(), 19);
    }

    #[test]
    fn a_full_table_lets_go_of_the_tenth_closest_to_forgiven() {
        let failures = AddressLimit::new(BURST, REFILL);
        let tenth = MAX_ADDRESSES / 10;
        // Every address of the flood fails once, all but the first tenth twice.
        flood(&failures, 0..MAX_ADDRESSES, at(0));
        flood(&failures, tenth..MAX_ADDRESSES, at(0));
        assert_eq!(failures.tracked(), MAX_ADDRESSES);

        failures.take(NEWCOMER, at(0)).unwrap();
        assert_eq!(failures.tracked(), MAX_ADDRESSES - tenth + 1);
        let addresses = failures.addresses.lock().unwrap();
        assert!((0..tenth).all(|n| !addresses.contains_key(&flooder(n))), "the first tenth is let go");
        assert!((tenth..MAX_ADDRESSES).all(|n| addresses.contains_key(&flooder(n))), "the rest stay");
    }
}
