//! What every request is held to before the service sees it: the server's limits (target length
//! `414`, header size `431`, its time budget `503`), and whose address it comes from: the TCP peer,
//! or behind trusted proxies the address they wrote into the one header the operator named, read
//! from the right (`400` when that entry cannot be read).
//!
//! # The time budget
//!
//! Answers are made on the runtime's threads and a cached one takes microseconds, so the budget does
//! not wrap handling in a timer or move it to another thread: a request that is handled at all is
//! handled at full speed. Instead, the budget runs from the moment the request's bytes arrived at
//! the connection (when the socket woke the connection's task, or when a read found them waiting;
//! see `conn`), and is checked once, when handling starts. A request that waited past its budget
//! (behind slow answers on its connection, pipelined HTTP/1.1 requests or multiplexed HTTP/2 streams,
//! or in the runtime's queue when the server is overloaded) is refused `503` with `Retry-After` at
//! once, without work, so an overloaded server sheds the requests whose clients have waited too
//! long instead of serving everyone late. The cost on the hot path is one clock read per request.
//! Work already started is not interrupted: answers come from memory, with no IO to cancel.
//!
//! # Limits checked here, below hyper's own
//!
//! hyper refuses oversized heads itself, but with a bare status and no body. The server sets hyper's
//! ceilings well above [`Screen`]'s limits, so that a client over a limit gets the service's answer
//! naming it; only a head past the ceiling (or with more than 100 header fields) meets hyper's bare
//! `431`/`414`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use hyper::Request;
use hyper::header::{HeaderMap, HeaderValue};
use tapster_domain::AddressBlock;

use crate::service::Refusal;

/// Seconds a client is asked to wait before retrying a `503`.
pub(crate) const RETRY_SECONDS: u64 = 1;

/// The limits every request is held to, and the proxies whose word on the calling address is
/// believed.
#[derive(Debug, Clone)]
pub(crate) struct Screen {
    pub(crate) max_uri_bytes: usize,
    pub(crate) max_header_bytes: usize,
    pub(crate) budget: Duration,
    pub(crate) proxies: Option<TrustedProxies>,
}

impl Screen {
    /// Checks a request whose bytes arrived `waited` ago: first its time budget, then its head.
    pub(crate) fn check<B>(&self, request: &Request<B>, waited: Duration) -> Result<(), Refusal> {
        if waited > self.budget {
            return Err(Refusal::OverBudget { retry_after: RETRY_SECONDS });
        }
        let length = request.uri().path_and_query().map_or(0, |target| target.as_str().len());
        if length > self.max_uri_bytes {
            return Err(Refusal::UriTooLong { length, limit: self.max_uri_bytes });
        }
        let size = header_bytes(request.headers());
        if size > self.max_header_bytes {
            return Err(Refusal::HeadersTooLarge { size, limit: self.max_header_bytes });
        }
        Ok(())
    }

    /// The calling address of a request from the TCP peer `peer`: the peer, unless it is a trusted
    /// proxy (see [`TrustedProxies::caller`]).
    pub(crate) fn caller(&self, peer: IpAddr, headers: &HeaderMap) -> Result<IpAddr, Refusal> {
        self.proxies.as_ref().map_or(Ok(peer), |proxies| proxies.caller(peer, headers))
    }
}

/// The size of a header block as sent in HTTP/1.1: each field's name and value, `: ` and CRLF.
fn header_bytes(headers: &HeaderMap) -> usize {
    headers.iter().map(|(name, value)| name.as_str().len() + value.len() + 4).sum()
}

/// The one header the proxies in front of the server write the calling address into
/// (`--client-ip-header`). Only that header is read; every other one a client may send is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientIpHeader {
    /// `X-Forwarded-For: client, proxy1, ...` (nginx's `$proxy_add_x_forwarded_for`, HAProxy's
    /// `option forwardfor`, Envoy, cloud load balancers).
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
    /// `X-Real-IP: client` (nginx's `proxy_set_header X-Real-IP $remote_addr`).
    XRealIp,
}

impl ClientIpHeader {
    /// Every header, by the name it is chosen with.
    pub const ALL: [Self; 3] = [Self::XForwardedFor, Self::Forwarded, Self::XRealIp];

    /// The header's name, in lower case as HTTP/2 writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::XForwardedFor => "x-forwarded-for",
            Self::Forwarded => "forwarded",
            Self::XRealIp => "x-real-ip",
        }
    }

    /// The header named `name`, in any case.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|header| header.name().eq_ignore_ascii_case(name.trim()))
    }
}

impl std::fmt::Display for ClientIpHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The proxies in front of the server (`--trust-proxy`) and the one header they write the calling
/// address into (`--client-ip-header`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedProxies {
    pub header: ClientIpHeader,
    pub proxies: Vec<AddressBlock>,
}

impl TrustedProxies {
    fn trusts(&self, address: IpAddr) -> bool {
        self.proxies.iter().any(|block| block.contains(address))
    }

    /// The calling address of a request from the TCP peer `peer`: the peer itself, unless it is a
    /// trusted proxy. Then the proxy's header is read from the right, entry by entry, and the first
    /// address that is not a trusted proxy is the caller; the entries left of it, which whoever sent
    /// the request to the first proxy may have written, are never read. When every entry is a
    /// trusted proxy, the leftmost is where the request began. An entry that does not give an
    /// address (unreadable, `unknown`, an obfuscated name) before the caller is found, or a header
    /// that is missing, leaves the caller unknown: the request is refused rather than attributed to
    /// the proxy, which would put every client behind it under one address's blocks and limits.
    pub(crate) fn caller(&self, peer: IpAddr, headers: &HeaderMap) -> Result<IpAddr, Refusal> {
        if !self.trusts(peer) {
            return Ok(peer);
        }
        let unknown =
            |reason: String| Refusal::UnknownCaller { header: self.header.name(), proxy: peer, reason };
        let fields: Vec<&HeaderValue> = headers.get_all(self.header.name()).iter().collect();
        if fields.is_empty() {
            return Err(unknown(format!("the proxy sent no {} header", self.header)));
        }
        let mut first = None;
        // Bytes, not text: an entry left of the caller's may hold anything, and is never read.
        for field in fields.into_iter().rev() {
            for entry in field.as_bytes().rsplit(|&byte| byte == b',') {
                let Ok(entry) = std::str::from_utf8(entry) else {
                    return Err(unknown("an entry is not text".into()));
                };
                let address = match self.header {
                    ClientIpHeader::XForwardedFor | ClientIpHeader::XRealIp => node(entry.trim()),
                    ClientIpHeader::Forwarded => forwarded_for(entry),
                };
                match address {
                    Node::Address(address) if self.trusts(address) => first = Some(address),
                    Node::Address(address) => return Ok(address),
                    Node::Hidden => {
                        return Err(unknown(format!("an entry hides its address: {}", shown(entry))));
                    }
                    Node::Unreadable => {
                        return Err(unknown(format!("an entry is not an address: {}", shown(entry))));
                    }
                }
            }
        }
        // Every entry is a trusted proxy: the request began at the first of them.
        Ok(first.unwrap_or(peer))
    }
}

/// What one entry of a forwarding header gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    Address(IpAddr),
    /// `unknown`, an obfuscated name (`_hidden`, RFC 7239 section 6.3), or a `Forwarded` element
    /// without `for=`.
    Hidden,
    Unreadable,
}

/// The `for=` of one element of a `Forwarded` field (RFC 7239): `for=192.0.2.1;proto=https`.
fn forwarded_for(element: &str) -> Node {
    let mut found = Node::Hidden;
    for pair in element.split(';') {
        let Some((name, value)) = pair.trim().split_once('=') else { return Node::Unreadable };
        if name.trim().eq_ignore_ascii_case("for") {
            let Some(value) = unquote(value.trim()) else { return Node::Unreadable };
            found = node(value);
        }
    }
    found
}

fn unquote(value: &str) -> Option<&str> {
    match value.strip_prefix('"') {
        Some(quoted) => quoted.strip_suffix('"'),
        None => Some(value),
    }
}

/// A node of a forwarding header: `192.0.2.1`, `192.0.2.1:4711`, `[2001:db8::1]`,
/// `[2001:db8::1]:4711` or a bare IPv6 address (an IPv4 address mapped into IPv6 as the IPv4
/// address); `unknown` and obfuscated names (`_hidden`) hide it.
fn node(value: &str) -> Node {
    if value.eq_ignore_ascii_case("unknown") || value.starts_with('_') {
        return Node::Hidden;
    }
    let address = value.parse::<IpAddr>().ok().or_else(|| match value.strip_prefix('[') {
        Some(bracketed) => {
            let (host, rest) = bracketed.split_once(']')?;
            if !rest.is_empty() {
                port(rest.strip_prefix(':')?)?;
            }
            host.parse::<Ipv6Addr>().ok().map(IpAddr::V6)
        }
        None => {
            let (host, rest) = value.rsplit_once(':')?;
            port(rest)?;
            host.parse::<Ipv4Addr>().ok().map(IpAddr::V4)
        }
    });
    address.map_or(Node::Unreadable, |address| Node::Address(address.to_canonical()))
}

/// A port is digits (or an obfuscated `_name`, RFC 7239 section 6.3).
fn port(value: &str) -> Option<()> {
    let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) && value.len() <= 5;
    (digits || value.starts_with('_')).then_some(())
}

/// An entry as a refusal quotes it: trimmed, at most 64 characters, in backticks.
fn shown(entry: &str) -> String {
    let entry = entry.trim();
    match entry.char_indices().nth(64) {
        Some((cut, _)) => format!("`{}...`", &entry[..cut]),
        None => format!("`{entry}`"),
    }
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderName;
    use proptest::prelude::*;

    use super::*;

    fn proxies(header: ClientIpHeader) -> TrustedProxies {
        let proxies =
            ["10.0.0.0/8", "2001:db8::/32"].iter().map(|c| AddressBlock::parse(c).unwrap()).collect();
        TrustedProxies { header, proxies }
    }

    fn headers(fields: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in fields {
            headers.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        headers
    }

    fn ip(value: &str) -> IpAddr {
        value.parse().unwrap()
    }

    /// The caller as a case states it: an address, or `-` for a refusal.
    fn outcome(result: &Result<IpAddr, Refusal>) -> String {
        match result {
            Ok(address) => address.to_string(),
            Err(Refusal::UnknownCaller { .. }) => "-".into(),
            Err(other) => panic!("not a refusal of the caller: {other:?}"),
        }
    }

    /// Header fields as (name, value).
    type Fields = &'static [(&'static str, &'static str)];

    use ClientIpHeader::{Forwarded, XForwardedFor, XRealIp};

    /// (the header the proxies write, peer, headers, the caller or `-` for a `400`), with
    /// `10.0.0.0/8` and `2001:db8::/32` trusted.
    const CASES: &[(ClientIpHeader, &str, Fields, &str)] = &[
        // An untrusted peer is the caller, whatever it sends.
        (XForwardedFor, "203.0.113.5", &[("x-forwarded-for", "198.51.100.7")], "203.0.113.5"),
        (Forwarded, "203.0.113.5", &[("forwarded", "for=198.51.100.7")], "203.0.113.5"),
        (XRealIp, "203.0.113.5", &[("x-real-ip", "garbage")], "203.0.113.5"),
        // Only the chosen header is read: the others are a client's, and ignored.
        (
            XForwardedFor,
            "10.0.0.1",
            &[("forwarded", "for=1.2.3.4"), ("x-forwarded-for", "198.51.100.7")],
            "198.51.100.7",
        ),
        (
            XForwardedFor,
            "10.0.0.1",
            &[("x-real-ip", "1.2.3.4"), ("x-forwarded-for", "198.51.100.7")],
            "198.51.100.7",
        ),
        (
            Forwarded,
            "10.0.0.1",
            &[("x-forwarded-for", "1.2.3.4"), ("forwarded", "for=198.51.100.7")],
            "198.51.100.7",
        ),
        (XRealIp, "10.0.0.1", &[("forwarded", "for=1.2.3.4"), ("x-real-ip", "198.51.100.7")], "198.51.100.7"),
        // A trusted peer that does not send the chosen header: the caller is unknown, not the proxy.
        (XForwardedFor, "10.0.0.1", &[], "-"),
        (XForwardedFor, "10.0.0.1", &[("forwarded", "for=198.51.100.7")], "-"),
        (XRealIp, "10.0.0.1", &[("x-forwarded-for", "198.51.100.7")], "-"),
        // Read from the right: the first address that is not a trusted proxy.
        (
            XForwardedFor,
            "10.0.0.1",
            &[("x-forwarded-for", "1.2.3.4, 198.51.100.7, 10.0.0.2")],
            "198.51.100.7",
        ),
        (
            XForwardedFor,
            "10.0.0.1",
            &[("x-forwarded-for", "1.2.3.4"), ("x-forwarded-for", "198.51.100.7")],
            "198.51.100.7",
        ),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "198.51.100.7:4711")], "198.51.100.7"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "2001:db8::1, 2a00::5")], "2a00::5"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "[2a00::5]:443")], "2a00::5"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "::ffff:198.51.100.7")], "198.51.100.7"),
        // Entries left of the caller are never read, however broken.
        (
            XForwardedFor,
            "10.0.0.1",
            &[("x-forwarded-for", "not-an-address, ,unknown, 198.51.100.7")],
            "198.51.100.7",
        ),
        (
            XForwardedFor,
            "10.0.0.1",
            &[("x-forwarded-for", "_hidden"), ("x-forwarded-for", "198.51.100.7, 10.9.9.9")],
            "198.51.100.7",
        ),
        (
            Forwarded,
            "10.0.0.1",
            &[("forwarded", "for=unknown, for=\"[garbage\", for=198.51.100.7")],
            "198.51.100.7",
        ),
        // Every entry trusted: the first one, where the request began.
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "10.1.1.1, 10.2.2.2")], "10.1.1.1"),
        // An unreadable or hidden entry before the caller: unknown.
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "198.51.100.7, not-an-address")], "-"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "198.51.100.7, unknown")], "-"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "")], "-"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "1.2.3.4,,10.0.0.5")], "-"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "198.51.100.7:http")], "-"),
        (XForwardedFor, "10.0.0.1", &[("x-forwarded-for", "300.1.1.1")], "-"),
        // Forwarded, with quoting, ports, IPv6 and other parameters.
        (
            Forwarded,
            "10.0.0.1",
            &[("forwarded", "for=1.2.3.4, for=198.51.100.7;proto=https")],
            "198.51.100.7",
        ),
        (Forwarded, "10.0.0.1", &[("forwarded", r#"For="[2a00::5]:4711";by=10.0.0.1"#)], "2a00::5"),
        (Forwarded, "10.0.0.1", &[("forwarded", r#"for="198.51.100.7:80", for=10.0.0.9"#)], "198.51.100.7"),
        (Forwarded, "10.0.0.1", &[("forwarded", "for=198.51.100.7, for=unknown")], "-"),
        (Forwarded, "10.0.0.1", &[("forwarded", "for=_hidden")], "-"),
        (Forwarded, "10.0.0.1", &[("forwarded", "proto=https")], "-"),
        (Forwarded, "10.0.0.1", &[("forwarded", "for")], "-"),
        (Forwarded, "10.0.0.1", &[("forwarded", r#"for="198.51.100.7"#)], "-"),
        (Forwarded, "10.0.0.1", &[("forwarded", "for=[2a00::5")], "-"),
        // X-Real-IP: one address, the last field's when a client's came first.
        (XRealIp, "10.0.0.1", &[("x-real-ip", "198.51.100.7")], "198.51.100.7"),
        (XRealIp, "10.0.0.1", &[("x-real-ip", "1.2.3.4"), ("x-real-ip", "198.51.100.7")], "198.51.100.7"),
        (XRealIp, "10.0.0.1", &[("x-real-ip", "unknown")], "-"),
        // A trusted IPv6 peer, and an IPv4 proxy seen through an IPv6 socket.
        (XForwardedFor, "2001:db8::9", &[("x-forwarded-for", "198.51.100.7")], "198.51.100.7"),
        (XForwardedFor, "::ffff:10.0.0.1", &[("x-forwarded-for", "198.51.100.7")], "198.51.100.7"),
    ];

    #[test]
    fn the_calling_address_is_read_from_the_right_of_the_one_header_the_proxies_write() {
        for &(header, peer, fields, expected) in CASES {
            let caller = proxies(header).caller(ip(peer), &headers(fields));
            assert_eq!(outcome(&caller), expected, "{header} from {peer}: {fields:?}");
        }
    }

    #[test]
    fn without_trusted_proxies_the_peer_is_the_caller() {
        let screen = Screen { max_uri_bytes: 1, max_header_bytes: 1, budget: Duration::ZERO, proxies: None };
        let fields = headers(&[("x-forwarded-for", "198.51.100.7"), ("forwarded", "for=198.51.100.8")]);
        assert_eq!(screen.caller(ip("10.0.0.1"), &fields), Ok(ip("10.0.0.1")));
    }

    #[test]
    fn a_refusal_names_the_header_the_proxy_and_the_entry() {
        let refusal = proxies(XForwardedFor)
            .caller(ip("10.0.0.1"), &headers(&[("x-forwarded-for", "198.51.100.7, _secret")]))
            .unwrap_err();
        assert_eq!(
            refusal,
            Refusal::UnknownCaller {
                header: "x-forwarded-for",
                proxy: ip("10.0.0.1"),
                reason: "an entry hides its address: `_secret`".into(),
            }
        );
        assert_eq!(shown(&"x".repeat(100)), format!("`{}...`", "x".repeat(64)));
    }

    #[test]
    fn bytes_that_are_not_text_matter_only_where_the_caller_is_read() {
        let mut fields = HeaderMap::new();
        fields.append("x-forwarded-for", HeaderValue::from_bytes(b"\xff\xfe, 198.51.100.7").unwrap());
        assert_eq!(proxies(XForwardedFor).caller(ip("10.0.0.1"), &fields), Ok(ip("198.51.100.7")));
        fields.append("x-forwarded-for", HeaderValue::from_bytes(b"\xff").unwrap());
        assert_eq!(outcome(&proxies(XForwardedFor).caller(ip("10.0.0.1"), &fields)), "-");
    }

    #[test]
    fn header_names_are_chosen_in_any_case() {
        assert_eq!(ClientIpHeader::parse("X-Forwarded-For"), Some(XForwardedFor));
        assert_eq!(ClientIpHeader::parse("forwarded"), Some(Forwarded));
        assert_eq!(ClientIpHeader::parse("X-REAL-IP"), Some(XRealIp));
        assert_eq!(ClientIpHeader::parse("x-client-ip"), None);
    }

    #[test]
    fn header_size_counts_names_values_and_separators() {
        assert_eq!(header_bytes(&headers(&[("host", "a"), ("x-long", "bbbb")])), (4 + 1 + 4) + (6 + 4 + 4));
    }

    /// A header value a client could send: visible ASCII, with the separators and words forwarding
    /// headers are made of, and some bytes that are not ASCII at all.
    fn hostile_value() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b",".to_vec()),
            Just(b";".to_vec()),
            Just(b"=".to_vec()),
            Just(b"\"".to_vec()),
            Just(b"for=".to_vec()),
            Just(b"unknown".to_vec()),
            Just(b"_x".to_vec()),
            Just(b"[".to_vec()),
            Just(b"]".to_vec()),
            Just(b":".to_vec()),
            Just(b"10.0.0.3".to_vec()),
            Just(b"203.0.113.9".to_vec()),
            Just(b"2001:db8::7".to_vec()),
            Just(b" ".to_vec()),
            Just(vec![0xff, 0xfe]),
            "[ -~]{0,8}".prop_map(String::into_bytes),
        ];
        prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
    }

    fn header_choice() -> impl Strategy<Value = ClientIpHeader> {
        prop_oneof![Just(XForwardedFor), Just(Forwarded), Just(XRealIp)]
    }

    proptest! {
        /// Whatever a client sends in any header, the address the last proxy appended for it is its
        /// caller: what is left of that entry, in the same header or an earlier field, is never read.
        #[test]
        fn what_a_client_writes_never_changes_the_caller_its_proxy_wrote(
            header in header_choice(),
            sent in prop::collection::vec((header_choice(), hostile_value()), 0..4),
            client in any::<[u8; 4]>().prop_filter("not trusted", |octets| octets[0] != 10),
        ) {
            let client = IpAddr::from(client);
            let mut fields = HeaderMap::new();
            for (name, value) in &sent {
                if let Ok(value) = HeaderValue::from_bytes(value) {
                    fields.append(name.name(), value);
                }
            }
            let appended = match header {
                Forwarded => format!("for={client}"),
                XForwardedFor | XRealIp => client.to_string(),
            };
            // As a proxy appends: to the client's last field of the header, or as a field of its own.
            let name = header.name();
            let mut values: Vec<Vec<u8>> = fields.get_all(name).iter().map(|v| v.as_bytes().to_vec()).collect();
            match values.last_mut() {
                Some(last) if header != XRealIp => last.extend_from_slice(format!(", {appended}").as_bytes()),
                _ => values.push(appended.into_bytes()),
            }
            fields.remove(name);
            for value in values {
                fields.append(name, HeaderValue::from_bytes(&value).unwrap());
            }
            prop_assert_eq!(proxies(header).caller(ip("10.0.0.1"), &fields), Ok(client));
        }

        /// Whatever a trusted proxy forwards, the caller is an address its header names or the
        /// request is refused: never the proxy itself, and never a panic.
        #[test]
        fn the_caller_behind_a_proxy_is_never_the_proxy(
            header in header_choice(),
            values in prop::collection::vec(hostile_value(), 0..4),
        ) {
            let mut fields = HeaderMap::new();
            for value in &values {
                if let Ok(value) = HeaderValue::from_bytes(value) {
                    fields.append(header.name(), value);
                }
            }
            let proxy = ip("10.255.255.254");
            if let Ok(caller) = proxies(header).caller(proxy, &fields) {
                prop_assert_ne!(caller, proxy);
                let written = fields.get_all(header.name()).iter().any(|value| {
                    String::from_utf8_lossy(value.as_bytes()).contains(&caller.to_string())
                });
                prop_assert!(written, "{} is not in {:?}", caller, fields);
            }
        }
    }
}
