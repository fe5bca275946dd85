//! Game versions: the published version names (`v0.6.4.2.1`), their build ids and release dates, and
//! the selector a caller uses to pick one (`latest` or a version name).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

use crate::{Error, Result};

/// The game's own build number; it grows with every release, so it orders versions.
pub type BuildId = i64;

/// A game version name: `v` and two to five dot-separated numbers. Published versions, as the
/// manifest of a game update names them, always have five (`v0.6.4.2.1`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct GameVersion(String);

impl GameVersion {
    pub const MAX_LEN: usize = 32;
    pub const PATTERN: &'static str = r"^v\d+(\.\d+){1,4}$";
    pub const PUBLISHED_PATTERN: &'static str = r"^v\d+\.\d+\.\d+\.\d+\.\d+$";

    /// Parses any version name a caller may send (docs/api.md, "Game versions").
    pub fn parse(value: &str) -> Result<Self> {
        if value.is_empty() {
            return Err(Error::Empty);
        }
        if value.len() > Self::MAX_LEN {
            return Err(Error::TooLong { max: Self::MAX_LEN });
        }
        let parts =
            value.strip_prefix('v').map(|rest| rest.split('.').collect::<Vec<_>>()).unwrap_or_default();
        let numeric = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        if !(2..=5).contains(&parts.len()) || !parts.iter().all(numeric) {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        Ok(Self(value.to_owned()))
    }

    /// Parses the name of a published version, which has exactly five numbers.
    pub fn parse_published(value: &str) -> Result<Self> {
        let version = Self::parse(value).map_err(|_| Error::Pattern { pattern: Self::PUBLISHED_PATTERN })?;
        if version.0.split('.').count() != 5 {
            return Err(Error::Pattern { pattern: Self::PUBLISHED_PATTERN });
        }
        Ok(version)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for GameVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        GameVersion::parse_published(&raw)
            .map_err(|e| serde::de::Error::custom(format!("game version {raw:?} {e}")))
    }
}

/// Which game version a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionSelector {
    /// The published version with the highest build id.
    Latest,
    Exact(GameVersion),
}

impl VersionSelector {
    pub const PATTERN: &'static str = r"^(latest|v\d+(\.\d+){1,4})$";

    pub fn parse(value: &str) -> Result<Self> {
        if value == "latest" {
            return Ok(Self::Latest);
        }
        GameVersion::parse(value).map(Self::Exact).map_err(|e| match e {
            Error::Pattern { .. } => Error::Pattern { pattern: Self::PATTERN },
            other => other,
        })
    }
}

/// A calendar date, `YYYY-MM-DD`, as release dates are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReleaseDate {
    year: u16,
    month: u8,
    day: u8,
}

impl ReleaseDate {
    pub const PATTERN: &'static str = "YYYY-MM-DD, a real calendar date";

    pub fn parse(value: &str) -> Result<Self> {
        let invalid = Error::Pattern { pattern: Self::PATTERN };
        let bytes = value.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return Err(invalid);
        }
        let number = |range: std::ops::Range<usize>| {
            let text = &value[range];
            text.bytes().all(|b| b.is_ascii_digit()).then(|| text.parse::<u16>().ok()).flatten()
        };
        let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10)) else {
            return Err(invalid);
        };
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let days_in_month = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return Err(invalid),
        };
        if !(1..=days_in_month).contains(&day) {
            return Err(invalid);
        }
        Ok(Self { year, month: month as u8, day: day as u8 })
    }

    /// Seconds from 1970-01-01 to the start of the day, UTC: the time a file of the release
    /// carries in an archive.
    pub fn unix_seconds(&self) -> i64 {
        // Days from the civil calendar, counting years from March so that the leap day comes last.
        let (month, day) = (i64::from(self.month), i64::from(self.day));
        let year = i64::from(self.year) - i64::from(month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        (era * 146_097 + day_of_era - 719_468) * 86_400
    }
}

impl fmt::Display for ReleaseDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Serialize for ReleaseDate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ReleaseDate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        ReleaseDate::parse(&raw).map_err(|e| serde::de::Error::custom(format!("date {raw:?} {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_day_starts_at_its_unix_second() {
        let seconds = |text: &str| ReleaseDate::parse(text).unwrap().unix_seconds();
        assert_eq!(seconds("1970-01-01"), 0);
        assert_eq!(seconds("2000-03-01"), 951_868_800);
        assert_eq!(seconds("2026-01-20"), 1_768_867_200);
        assert_eq!(seconds("2024-02-29") + 86_400, seconds("2024-03-01"));
    }

    #[test]
    fn selectors() {
        assert_eq!(VersionSelector::parse("latest"), Ok(VersionSelector::Latest));
        for good in ["v1.2", "v0.6.4.2.1", "v10.0.0", "v1.2.3.4"] {
            assert_eq!(
                VersionSelector::parse(good),
                Ok(VersionSelector::Exact(GameVersion(good.into()))),
                "{good}"
            );
        }
        for bad in ["", "Latest", "v1", "1.2", "v1.2.3.4.5.6", "v1..2", "v1.2.", "v1.a", "v.1.2", " v1.2"] {
            assert!(VersionSelector::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            VersionSelector::parse(&format!("v1.{}", "1".repeat(31))),
            Err(Error::TooLong { max: 32 })
        );
    }

    #[test]
    fn published_versions_have_five_numbers() {
        assert!(GameVersion::parse_published("v0.6.4.2.1").is_ok());
        for bad in ["v0.6.4.2", "v0.6", "latest", "v0.6.4.2.1.0"] {
            assert!(GameVersion::parse_published(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn release_dates_are_calendar_dates() {
        assert_eq!(ReleaseDate::parse("2026-02-28").unwrap().to_string(), "2026-02-28");
        assert!(ReleaseDate::parse("2028-02-29").is_ok());
        for bad in
            ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026/01/01", "2026-04-31"]
        {
            assert!(ReleaseDate::parse(bad).is_err(), "{bad}");
        }
    }
}
