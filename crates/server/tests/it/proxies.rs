//! The binary behind a real nginx (Debian's), as an operator runs it: with `--trust-proxy` and
//! `--client-ip-header`, the caller is the address nginx saw, whatever a client writes into any
//! forwarding header. Clients call from addresses of their own in 127.0.0.0/8; nginx reaches the
//! server from 127.0.0.3, the one trusted proxy.

use std::net::{IpAddr, SocketAddr};

use tapster_test_support::http::{Answer, get_from};
use tapster_test_support::nginx::Nginx;

use crate::cli::tapster;
use crate::{Serving, serve_with};

/// The address nginx calls the server from.
const PROXY: &str = "127.0.0.3";
/// A client whose address the operator blocked.
const BLOCKED: &str = "127.0.0.66";

/// The `server` block of nginx in front of `upstream`, setting or adding to `header` as the
/// operators' guide says.
fn in_front_of(upstream: SocketAddr, header: &str) -> String {
    let set = match header {
        "x-forwarded-for" => "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "forwarded" => "proxy_set_header Forwarded \"for=$remote_addr\";",
        "x-real-ip" => "proxy_set_header X-Real-IP $remote_addr;",
        other => panic!("no nginx setting for {other}"),
    };
    format!(
        "location / {{ proxy_pass http://{upstream}; proxy_bind {PROXY}; proxy_set_header Host $host; {set} }}"
    )
}

/// Forwarding headers as a client may forge them, claiming to be `claimed`.
fn forged(claimed: &str) -> [(&'static str, String); 3] {
    [
        ("X-Forwarded-For", claimed.to_owned()),
        ("Forwarded", format!("for={claimed}")),
        ("X-Real-IP", claimed.to_owned()),
    ]
}

fn call(from: &str, through: SocketAddr, key: &str, headers: &[(&str, String)]) -> Answer {
    let authorization = format!("Bearer {key}");
    let mut fields: Vec<(&str, &str)> = vec![("Authorization", &authorization)];
    fields.extend(headers.iter().map(|(name, value)| (*name, value.as_str())));
    get_from(from.parse::<IpAddr>().unwrap(), through, "/v1/versions", &fields)
}

#[test]
fn behind_nginx_the_caller_is_the_address_nginx_saw_whatever_clients_forge() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let dir = data_dir.path();
    assert!(tapster(&["import", crate::mini().to_str().unwrap()], dir).status.success());
    assert!(tapster(&["addresses", "block", BLOCKED], dir).status.success());
    let trust = ["--trust-proxy", PROXY, "--client-ip-header"];
    let headers = ["x-forwarded-for", "forwarded", "x-real-ip"];
    let servers: Vec<Serving> =
        headers.iter().map(|header| serve_with(dir, &[trust.as_slice(), &[header]].concat())).collect();
    let key = servers[0].first_key().to_owned();
    // A key that opens nothing: what a guesser or a client with an old key sends.
    let created = tapster(&["keys", "create", "--account", "old@example.org", "--name", "old"], dir);
    let stdout = String::from_utf8_lossy(&created.stdout).into_owned();
    let revoked = stdout.lines().last().unwrap().to_owned();
    assert!(tapster(&["keys", "revoke", &revoked], dir).status.success());
    let blocks: Vec<String> = servers.iter().zip(headers).map(|(s, h)| in_front_of(s.addr, h)).collect();
    let Some(nginx) = Nginx::start(&blocks.iter().map(String::as_str).collect::<Vec<_>>()) else { return };
    // The revocation reaches every server within a second (asked directly, from this machine).
    crate::replicas::until_everywhere(&servers, &revoked, 401);

    for (index, (server, header)) in servers.iter().zip(headers).enumerate() {
        let front = nginx.addr(index);
        // The blocked client stays blocked, whatever it claims to be in any header.
        assert_eq!(call(BLOCKED, front, &key, &[]).status, 403, "{header}");
        for forgery in forged("198.51.100.1") {
            let answer = call(BLOCKED, front, &key, std::slice::from_ref(&forgery));
            assert_eq!(answer.status, 403, "{header}: {forgery:?}\n{}", nginx.error_log());
        }
        // Another client is not blocked for claiming to be the blocked one.
        let innocent = format!("127.0.0.{}", 70 + index);
        for forgery in forged(BLOCKED) {
            assert_eq!(
                call(&innocent, front, &key, std::slice::from_ref(&forgery)).status,
                200,
                "{header}: {forgery:?}"
            );
        }

        // A client that fails to authenticate meets the failed-key limit after 20 tries, however it
        // rotates what it claims to be; another client behind the same proxy does not.
        let guesser = format!("127.0.0.{}", 80 + index);
        for attempt in 1..=20 {
            let claimed = format!("198.51.100.{attempt}");
            let forgery = forged(&claimed)[attempt % 3].clone();
            assert_eq!(
                call(&guesser, front, &revoked, &[forgery]).status,
                401,
                "{header}: attempt {attempt}"
            );
        }
        let forgery = forged("198.51.100.99")[index].clone();
        let limited = call(&guesser, front, &revoked, &[forgery]);
        assert_eq!(limited.status, 429, "{header}: {}", limited.text());
        assert_eq!(call(&guesser, front, &key, &[]).status, 200, "a valid key still passes");
        let neighbour = format!("127.0.0.{}", 90 + index);
        assert_eq!(call(&neighbour, front, &revoked, &[]).status, 401, "{header}");

        // The log names the real callers, never the proxy nor a forged address. (Its lines reach the
        // test through a pipe a moment after the answers: it waits for them.)
        let callers = [BLOCKED, innocent.as_str(), guesser.as_str(), neighbour.as_str()];
        let logged = |log: &[String]| {
            callers.iter().all(|caller| {
                let needle = format!("peer={caller}");
                log.iter().any(|line| line.contains("/v1/versions") && line.contains(&needle))
            })
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !logged(&server.log()) {
            assert!(
                std::time::Instant::now() < deadline,
                "{header}: not every caller in {:#?}",
                server.log()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let log = server.log();
        let requests: Vec<&String> = log.iter().filter(|line| line.contains("/v1/versions")).collect();
        for never in [format!("peer={PROXY}"), "peer=198.51.100.".to_owned()] {
            assert!(!requests.iter().any(|line| line.contains(&never)), "{header}: {never} in {requests:#?}");
        }
    }
}
