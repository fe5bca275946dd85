//! The circuit breakers of the shared limits: after Redis failed to answer for a key, its keys are
//! limited locally for a while without asking it. One breaker for a single node; for a Redis
//! Cluster one per hash slot, so that a master that is down or slow sends only the keys it holds
//! to the local fallback, while the keys on the other masters stay shared.
//!
//! A key's slot is Redis Cluster's: CRC16 (XMODEM) of its hash tag, modulo 16384. Every key's state
//! is one hash named `<prefix>:{<key id>}`, so the hash tag is the key's id.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The hash slots of a Redis Cluster.
pub(crate) const SLOTS: usize = 16_384;

/// What a breaker saw happen: whether the whole set turned, for the log to say once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Turn {
    /// The first breaker of the set tripped: Redis (or part of it) is out of reach.
    FirstTripped,
    /// The last tripped breaker of the set answered again: the limits are all shared again.
    AllClosed,
    Neither,
}

/// Breakers by key: one, or one per hash slot.
pub(crate) struct Breakers {
    /// When the set was made: the origin of `open_until`.
    started: Instant,
    /// How long a breaker stays open after Redis failed.
    open_for: u64,
    /// Until when each breaker's keys are not asked of Redis, in milliseconds since `started`
    /// (atomics: every request reads one).
    open_until: Box<[AtomicU64]>,
    /// Which breakers saw Redis fail and have not yet seen it answer again (their keys may have
    /// been admitted locally, and Redis may have lost their counts).
    tripped: Box<[AtomicBool]>,
    /// The key whose request last tripped each breaker: one to ask Redis about when no other comes.
    tripped_by: Box<[AtomicI64]>,
    /// Which breakers a task is mending (one at a time each).
    mending: Box<[AtomicBool]>,
    /// How many of `tripped` are set.
    tripped_count: AtomicUsize,
}

impl std::fmt::Debug for Breakers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Breakers")
            .field("breakers", &self.open_until.len())
            .field("tripped", &self.tripped())
            .finish_non_exhaustive()
    }
}

impl Breakers {
    /// `count` breakers (1, or [`SLOTS`]), each staying open for `open_for` after a failure.
    pub(crate) fn new(count: usize, open_for: Duration) -> Self {
        Self {
            started: Instant::now(),
            open_for: u64::try_from(open_for.as_millis()).unwrap_or(u64::MAX),
            open_until: (0..count).map(|_| AtomicU64::new(0)).collect(),
            tripped: (0..count).map(|_| AtomicBool::new(false)).collect(),
            tripped_by: (0..count).map(|_| AtomicI64::new(0)).collect(),
            mending: (0..count).map(|_| AtomicBool::new(false)).collect(),
            tripped_count: AtomicUsize::new(0),
        }
    }

    /// How many breakers there are.
    pub(crate) fn len(&self) -> usize {
        self.open_until.len()
    }

    /// The breaker of the API key `key`.
    pub(crate) fn of(&self, key: i64) -> usize {
        if self.len() == 1 { 0 } else { slot(key) % self.len() }
    }

    /// Whether the breaker `index` keeps its keys from Redis now.
    pub(crate) fn is_open(&self, index: usize) -> bool {
        self.elapsed_ms() < self.open_until[index].load(Ordering::Relaxed)
    }

    /// Redis failed for `key`: the keys of its breaker are not asked for a while.
    pub(crate) fn trip(&self, key: i64) -> Turn {
        let index = self.of(key);
        self.open_until[index].store(self.elapsed_ms().saturating_add(self.open_for), Ordering::Relaxed);
        self.tripped_by[index].store(key, Ordering::Relaxed);
        if self.tripped[index].swap(true, Ordering::Relaxed) {
            return Turn::Neither;
        }
        match self.tripped_count.fetch_add(1, Ordering::Relaxed) {
            0 => Turn::FirstTripped,
            _ => Turn::Neither,
        }
    }

    /// Whether the breaker `index` saw Redis fail and has not yet seen it answer again.
    pub(crate) fn is_tripped(&self, index: usize) -> bool {
        self.tripped[index].load(Ordering::Relaxed)
    }

    /// Redis answered for a key of breaker `index`: whether it had tripped (once per outage), and
    /// whether that closed the last tripped one.
    pub(crate) fn answered(&self, index: usize) -> Option<Turn> {
        // A read first: the write is only paid on the way back from an outage.
        if !self.tripped[index].load(Ordering::Relaxed) || !self.tripped[index].swap(false, Ordering::Relaxed)
        {
            return None;
        }
        Some(match self.tripped_count.fetch_sub(1, Ordering::Relaxed) {
            1 => Turn::AllClosed,
            _ => Turn::Neither,
        })
    }

    /// Takes the mending of breaker `index`: `false` when a task is at it already.
    pub(crate) fn claim(&self, index: usize) -> bool {
        self.mending[index].compare_exchange(false, true, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    }

    /// Gives the mending of breaker `index` back.
    pub(crate) fn release(&self, index: usize) {
        self.mending[index].store(false, Ordering::Relaxed);
    }

    /// The breakers that tripped and are no longer open, each with the key that tripped it: those
    /// whose keys may be asked about again, even if none of them calls.
    pub(crate) fn closing(&self) -> Vec<(usize, i64)> {
        if self.tripped() == 0 {
            return Vec::new();
        }
        (0..self.len())
            .filter(|&index| self.is_tripped(index) && !self.is_open(index))
            .map(|index| (index, self.tripped_by[index].load(Ordering::Relaxed)))
            .collect()
    }

    /// How many breakers have tripped and not yet seen Redis answer.
    pub(crate) fn tripped(&self) -> usize {
        self.tripped_count.load(Ordering::Relaxed)
    }

    fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// The Redis Cluster hash slot of the key's state, `<prefix>:{<key>}`: CRC16/XMODEM of the hash tag
/// (the key id's digits), modulo [`SLOTS`]. Written on the stack: it is worked out per request.
pub(crate) fn slot(key: i64) -> usize {
    use std::io::Write;
    let mut digits = [0u8; 20];
    let mut cursor = std::io::Cursor::new(&mut digits[..]);
    // Twenty bytes hold every i64 in decimal.
    let _ = write!(cursor, "{key}");
    let written = usize::try_from(cursor.position()).unwrap_or(0);
    usize::from(crc16(&digits[..written])) % SLOTS
}

/// CRC16/XMODEM (polynomial 0x1021, initial value 0), bit by bit: the checksum Redis Cluster names
/// slots by. A handful of bytes per request; no table needed.
fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &byte in bytes {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_redis_clusters() {
        // The check value of CRC16/XMODEM, which the Redis Cluster specification gives too.
        assert_eq!(crc16(b"123456789"), 0x31C3);
        // `CLUSTER KEYSLOT` of `tapster:{7}`, `x:{123}` and `{1000000}` (redis-cli, Redis 7).
        assert_eq!([slot(7), slot(123), slot(1_000_000)], [1716, 5970, 6148]);
        // The longest ids, every digit hashed.
        assert_eq!(slot(i64::MIN), usize::from(crc16(b"-9223372036854775808")) % SLOTS);
    }

    #[test]
    fn a_breaker_trips_alone_and_the_set_turns_once() {
        let breakers = Breakers::new(SLOTS, Duration::from_secs(60));
        let (a, b) = (breakers.of(7), breakers.of(123));
        assert_ne!(a, b);
        assert_eq!(breakers.trip(7), Turn::FirstTripped);
        assert!(breakers.is_open(a) && !breakers.is_open(b));
        assert_eq!(breakers.trip(7), Turn::Neither);
        assert_eq!(breakers.trip(123), Turn::Neither);
        assert_eq!(breakers.tripped(), 2);
        assert!(breakers.closing().is_empty(), "both are open for a minute");
        assert_eq!(breakers.answered(a), Some(Turn::Neither));
        assert_eq!(breakers.answered(a), None, "once per outage");
        assert_eq!(breakers.answered(b), Some(Turn::AllClosed));
        assert_eq!(breakers.tripped(), 0);
    }

    #[test]
    fn one_breaker_holds_every_key_of_a_single_node() {
        let breakers = Breakers::new(1, Duration::from_secs(60));
        assert_eq!((breakers.of(7), breakers.of(123)), (0, 0));
        breakers.trip(7);
        assert!(breakers.is_open(breakers.of(1_000_000)));
    }

    #[test]
    fn a_breaker_no_longer_open_is_closing_with_the_key_that_tripped_it() {
        let breakers = Breakers::new(SLOTS, Duration::ZERO);
        breakers.trip(123);
        assert_eq!(breakers.closing(), [(slot(123), 123)]);
        breakers.answered(slot(123));
        assert!(breakers.closing().is_empty());
    }

    #[test]
    fn one_task_at_a_time_mends_a_breaker() {
        let breakers = Breakers::new(SLOTS, Duration::ZERO);
        assert!(breakers.claim(5) && !breakers.claim(5) && breakers.claim(6));
        breakers.release(5);
        assert!(breakers.claim(5));
    }
}
