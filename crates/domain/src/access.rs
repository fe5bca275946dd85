//! The values that govern access: account e-mail addresses, blocks of calling addresses, per-key
//! limits, and timestamps as they are recorded for accounts and keys.

use std::fmt;
use std::net::IpAddr;

use crate::{Error, Result};

/// An account's e-mail address, its ASCII letters lower-cased so that one person has one account.
/// Only ASCII is folded: Unicode's lower-casing maps distinct characters together (the Kelvin
/// sign `K` to `k`), which would let one address stand for another.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Email(String);

impl Email {
    pub const MAX_LEN: usize = 254;

    pub fn parse(value: &str) -> Result<Self> {
        let value = value.trim();
        if value.len() > Self::MAX_LEN {
            return Err(Error::TooLong { max: Self::MAX_LEN });
        }
        let well_formed = value.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !value.chars().any(|c| c.is_whitespace() || c.is_control())
        });
        if !well_formed {
            return Err(Error::Pattern { pattern: "name@domain" });
        }
        Ok(Self(value.to_ascii_lowercase()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A blocked range of calling addresses: one address (`203.0.113.7`) or a CIDR block (`203.0.113.0/24`,
/// `2001:db8::/32`). Stored and shown in its canonical form, with the host bits cleared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AddressBlock {
    network: IpAddr,
    prefix: u8,
}

impl AddressBlock {
    pub fn parse(value: &str) -> Result<Self> {
        let invalid = Error::Pattern { pattern: "an IPv4 or IPv6 address, optionally with /prefix-length" };
        let (address, prefix) = match value.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (value.trim(), None),
        };
        let address: IpAddr = address.parse().map_err(|_| invalid.clone())?;
        let max = if address.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                p.parse::<u8>().ok().filter(|&p| p <= max).ok_or(Error::OutOfRange {
                    reason: "the prefix length is at most 32 for IPv4 and 128 for IPv6",
                })?
            }
            Some(_) => return Err(invalid),
        };
        Ok(Self { network: mask(address, prefix), prefix })
    }

    pub fn contains(&self, address: IpAddr) -> bool {
        let address = match (self.network, address) {
            // An IPv4 client seen through an IPv6 socket is still that IPv4 client.
            (IpAddr::V4(_), IpAddr::V6(v6)) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(address),
            _ => address,
        };
        address.is_ipv4() == self.network.is_ipv4() && mask(address, self.prefix) == self.network
    }
}

fn mask(address: IpAddr, prefix: u8) -> IpAddr {
    match address {
        IpAddr::V4(v4) => {
            let bits = u32::from(v4) & u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V4(bits.into())
        }
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            IpAddr::V6(bits.into())
        }
    }
}

impl fmt::Display for AddressBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = if self.network.is_ipv4() { 32 } else { 128 };
        if self.prefix == whole {
            write!(f, "{}", self.network)
        } else {
            write!(f, "{}/{}", self.network, self.prefix)
        }
    }
}

/// How much one key may ask: a burst, a steady rate per minute, and a daily allowance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    pub per_minute: u32,
    pub burst: u32,
    pub per_day: u32,
}

impl Limits {
    /// The limits of spec section 8.
    pub const DEFAULT: Self = Self { per_minute: 300, burst: 60, per_day: 20_000 };

    pub fn new(per_minute: u32, burst: u32, per_day: u32) -> Result<Self> {
        if per_minute == 0 || burst == 0 || per_day == 0 {
            return Err(Error::OutOfRange { reason: "every limit is at least 1" });
        }
        Ok(Self { per_minute, burst, per_day })
    }
}

/// A moment in UTC with second precision, as recorded for accounts and keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The UTC calendar day, counted from 1970-01-01.
    pub fn day(self) -> i64 {
        self.0.div_euclid(86_400)
    }

    /// The time since the Unix epoch (zero for moments before it).
    pub fn since_epoch(self) -> std::time::Duration {
        std::time::Duration::from_secs(u64::try_from(self.0).unwrap_or(0))
    }
}

/// RFC 3339 in UTC: `2026-11-21T21:34:00Z`.
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = civil_from_days(self.day());
        let seconds = self.0.rem_euclid(86_400);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
    }
}

/// The proleptic Gregorian date of a day number (days since 1970-01-01), by Howard Hinnant's
/// `civil_from_days` algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert_eq!(Email::parse(" Marta@Example.org ").unwrap().as_str(), "marta@example.org");
        // Only ASCII folds: the Kelvin sign is not a `k`.
        assert_eq!(Email::parse("\u{212A}im@example.org").unwrap().as_str(), "\u{212A}im@example.org");
        for bad in ["", "marta", "@example.org", "marta@", "a b@example.org", "a@b@c", "marta@.org"] {
            assert!(Email::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn address_blocks() {
        /// Input, canonical form, and addresses with whether the block holds them.
        type Case = (&'static str, &'static str, &'static [(&'static str, bool)]);
        let cases: &[Case] = &[
            ("203.0.113.7", "203.0.113.7", &[("203.0.113.7", true), ("203.0.113.8", false)]),
            ("203.0.113.77/24", "203.0.113.0/24", &[("203.0.113.200", true), ("203.0.114.1", false)]),
            ("0.0.0.0/0", "0.0.0.0/0", &[("198.51.100.1", true), ("::1", false)]),
            ("2001:db8::1/32", "2001:db8::/32", &[("2001:db8:ffff::1", true), ("2001:db9::1", false)]),
            ("10.0.0.0/8", "10.0.0.0/8", &[("::ffff:10.1.2.3", true), ("::ffff:11.1.2.3", false)]),
        ];
        for (input, canonical, probes) in cases {
            let block = AddressBlock::parse(input).unwrap();
            assert_eq!(block.to_string(), *canonical);
            for (address, inside) in *probes {
                assert_eq!(block.contains(address.parse().unwrap()), *inside, "{input} {address}");
            }
        }
        for bad in ["", "10.0.0.0/33", "::/129", "10.0.0/8", "10.0.0.0/", "10.0.0.0/x", "example.org"] {
            assert!(AddressBlock::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let cases = [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_795_296_840, "2026-11-21T21:34:00Z"),
            (-1, "1969-12-31T23:59:59Z"),
        ];
        for (seconds, text) in cases {
            assert_eq!(Timestamp(seconds).to_string(), text);
        }
    }
}

/// A service URL (`postgres://user:password@host/db`, `redis://:password@host`) as messages and logs
/// may show it: the user kept, the password left out.
pub fn url_without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info.split_once(':').map_or(user_info, |(user, _)| user);
            format!("{scheme}://{user}@{host}{path}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod url_tests {
    use super::url_without_password;

    #[test]
    fn a_url_is_shown_without_its_password() {
        let cases = [
            ("postgres://app:s3cret@db:5432/tapster", "postgres://app@db:5432/tapster"),
            ("postgres://app@db/tapster", "postgres://app@db/tapster"),
            ("postgresql://db:5433/t", "postgresql://db:5433/t"),
            ("redis://:s3cret@cache:6379/0", "redis://@cache:6379/0"),
            ("not a url", "not a url"),
        ];
        for (url, shown) in cases {
            assert_eq!(url_without_password(url), shown, "{url}");
        }
    }
}
