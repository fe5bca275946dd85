//! The origins a browser key answers: the web pages (`https://calc.example`) its owner lets call
//! the API with it. A browser names the page a request comes from in its `Origin` header, always in
//! the serialized form of the Fetch standard (scheme and host in lower case, the port only when it is
//! not the scheme's default, nothing after it); an origin is kept in exactly that form, so that
//! comparing it with a request's header is comparing bytes.

use std::fmt;

use crate::{Error, Result};

/// One allowed origin, in the form a browser sends it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin(String);

impl Origin {
    /// Longer than any origin a person would type; a bound for what is stored and compared.
    pub const MAX_LEN: usize = 200;

    /// Reads an origin as a person types it (`https://Calc.Example:443/` is `https://calc.example`).
    /// Refused: another scheme than `http` or `https`, a path, a query, a fragment, a user name,
    /// letters outside ASCII (an internationalized name is written in its `xn--` form, as browsers
    /// send it), and a port out of range.
    pub fn parse(value: &str) -> Result<Self> {
        const PATTERN: &str = "https://host or https://host:port (http:// too), without a path";
        let value = value.trim();
        if value.is_empty() {
            return Err(Error::Empty);
        }
        if value.len() > Self::MAX_LEN {
            return Err(Error::TooLong { max: Self::MAX_LEN });
        }
        let invalid = Error::Pattern { pattern: PATTERN };
        let (scheme, rest) = value.split_once("://").ok_or(invalid.clone())?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "https" => 443,
            "http" => 80,
            _ => {
                return Err(Error::UnknownVariant { allowed: "an origin starting with https:// or http://" });
            }
        };
        // A single trailing slash is what a copied address often ends with; anything more is a path.
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.is_empty() || authority.contains(['/', '?', '#', '@', '\\']) {
            return Err(invalid);
        }
        let (host, port) = split_port(authority).ok_or(invalid.clone())?;
        if !host_is_valid(host) {
            return Err(invalid);
        }
        let host = host.to_ascii_lowercase();
        Ok(Self(match port {
            Some(port) if port != default_port => format!("{scheme}://{host}:{port}"),
            _ => format!("{scheme}://{host}"),
        }))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The host and the port of `authority` (`[::1]:8080`, `calc.example`), when the port is a number.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if authority.starts_with('[') {
        let end = authority.find(']')?;
        let (host, after) = authority.split_at(end + 1);
        match after {
            "" => (host, None),
            _ => (host, Some(after.strip_prefix(':')?)),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let port = match port {
        None => None,
        Some(port) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            Some(port.parse().ok()?)
        }
        Some(_) => return None,
    };
    Some((host, port))
}

/// A DNS name (letters, digits, `-` and `.`, labels not empty), an IPv4 address or a bracketed IPv6
/// one.
fn host_is_valid(host: &str) -> bool {
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<std::net::Ipv6Addr>().is_ok();
    }
    !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// The origins of one browser key: at least one, at most [`Origins::MAX`], each once, in the order
/// given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origins(Vec<Origin>);

impl Origins {
    pub const MAX: usize = 10;

    /// Origins one a line, as a person types them in a form; blank lines are ignored and repeats
    /// kept once. `Ok(None)` when there is none (a key for servers).
    pub fn parse_lines(text: &str) -> std::result::Result<Option<Self>, OriginsError> {
        let mut origins: Vec<Origin> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let origin = Origin::parse(line).map_err(|error| OriginsError::Line {
                line: index + 1,
                value: line.trim().to_owned(),
                error,
            })?;
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        if origins.len() > Self::MAX {
            return Err(OriginsError::TooMany { found: origins.len() });
        }
        Ok((!origins.is_empty()).then_some(Self(origins)))
    }

    /// Origins as they were stored (one a line, each already in its canonical form).
    pub fn from_stored(text: &str) -> Result<Self> {
        let origins = text.lines().map(Origin::parse).collect::<Result<Vec<_>>>()?;
        if origins.is_empty() {
            return Err(Error::Empty);
        }
        Ok(Self(origins))
    }

    /// One a line, as stored and shown in a form.
    pub fn to_lines(&self) -> String {
        self.0.iter().map(Origin::as_str).collect::<Vec<_>>().join("\n")
    }

    /// Whether a request whose `Origin` header is `origin` comes from one of these pages. The header
    /// is compared as a browser writes it, byte for byte.
    pub fn allow(&self, origin: &str) -> bool {
        self.0.iter().any(|allowed| allowed.as_str() == origin)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Origin> {
        self.0.iter()
    }
}

/// Why a list of origins typed in a form was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginsError {
    #[error("line {line} ({value:?}) {error}")]
    Line { line: usize, value: String, error: Error },
    #[error("name at most {max} origins ({found} given)", max = Origins::MAX)]
    TooMany { found: usize },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_kept_as_browsers_send_them() {
        for (typed, kept) in [
            ("https://calc.example", "https://calc.example"),
            ("  HTTPS://Calc.Example/ ", "https://calc.example"),
            ("https://calc.example:443", "https://calc.example"),
            ("https://calc.example:8443", "https://calc.example:8443"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("http://127.0.0.1:80", "http://127.0.0.1"),
            ("http://[::1]:8080", "http://[::1]:8080"),
            ("https://xn--bcher-kva.example", "https://xn--bcher-kva.example"),
        ] {
            assert_eq!(Origin::parse(typed).map(|o| o.to_string()), Ok(kept.to_owned()), "{typed}");
        }
    }

    #[test]
    fn what_is_not_an_origin_is_refused() {
        for bad in [
            "",
            "calc.example",
            "ftp://calc.example",
            "https://",
            "https://calc.example/app",
            "https://calc.example?page",
            "https://calc.example#top",
            "https://user@calc.example",
            "https://calc.example:99999",
            "https://calc.example:",
            "https://bücher.example",
            "https://calc..example",
            "https://-calc.example",
            "https://[::1",
            "https://[not-v6]",
            "*",
            "null",
        ] {
            assert!(Origin::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn a_list_is_read_one_a_line() {
        let origins =
            Origins::parse_lines("https://a.example\n\n  https://b.example:8443 \nhttps://A.example/\n")
                .unwrap()
                .unwrap();
        assert_eq!(origins.to_lines(), "https://a.example\nhttps://b.example:8443");
        assert!(origins.allow("https://a.example"));
        assert!(origins.allow("https://b.example:8443"));
        assert!(!origins.allow("https://b.example"));
        assert!(!origins.allow("https://A.example"), "a browser never sends capitals");
        assert_eq!(Origins::from_stored(&origins.to_lines()), Ok(origins));
        assert_eq!(Origins::parse_lines(" \n\n"), Ok(None));
    }

    #[test]
    fn a_bad_line_or_too_many_is_refused_with_its_place() {
        let error = Origins::parse_lines("https://a.example\nhttps://b.example/app").unwrap_err();
        assert!(error.to_string().starts_with("line 2 (\"https://b.example/app\")"), "{error}");
        let many: String = (0..11).map(|i| format!("https://{i}.example\n")).collect();
        assert_eq!(Origins::parse_lines(&many), Err(OriginsError::TooMany { found: 11 }));
    }
}
