//! A new game version imported into the data dir of a running `tapster serve`, while clients keep
//! asking: it is served within seconds, without a restart, and every answer during the switch is
//! whole and comes from one data set, the old or the new, never a mix, never a failure.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::{Answer, TAPSTER, get_with_key, serve};

const URLS: &[&str] = &[
    "/v1/versions",
    "/v1/items/pale-ale",
    "/v1/items?limit=20&lang=de",
    "/v1/search?q=ale&lang=fr",
    "/v1/versions/v0.6.4.2.1",
    "/v1/crops/barley?version=v0.6.4.2.1",
];

fn fixtures(version: &str) -> std::path::PathBuf {
    tapster_test_support::fixtures().join(version)
}

fn tapster(args: &[&str], data_dir: &Path) -> String {
    let output =
        std::process::Command::new(TAPSTER).args(args).arg("--data-dir").arg(data_dir).output().unwrap();
    assert!(output.status.success(), "tapster {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Which data set an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Old,
    New,
    /// The answer is the same in both.
    Both,
}

#[test]
fn an_import_into_a_running_server_is_served_without_a_failed_or_mixed_answer() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let dir = data_dir.path();
    for version in ["v0.6.4.2.1", "v0.6.5.0.3"] {
        tapster(&["import", fixtures(version).to_str().unwrap()], dir);
    }
    let created = tapster(
        &["keys", "create", "--account", "live@example.com", "--name", "load"]
            .into_iter()
            .chain(["--per-minute", "1000000000", "--burst", "1000000000", "--per-day", "1000000000"])
            .collect::<Vec<_>>(),
        dir,
    );
    let key = Arc::new(created.lines().last().unwrap().to_owned());
    let server = serve(dir);
    let addr = server.addr;

    let old: Vec<Answer> = URLS.iter().map(|url| get_with_key(addr, url, &key)).collect();
    assert!(old.iter().all(|answer| answer.status == 200), "{old:?}");

    // Clients keep asking, each on its own thread, in order, noting what they got.
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..3)
        .map(|client| {
            let (key, stop) = (Arc::clone(&key), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut answers = Vec::new();
                let mut i = client;
                while !stop.load(Ordering::Relaxed) {
                    let url = URLS[i % URLS.len()];
                    answers.push((url, get_with_key(addr, url, &key)));
                    i += 1;
                }
                answers
            })
        })
        .collect();

    std::thread::sleep(Duration::from_millis(300));
    tapster(&["import", fixtures("v0.7.0.0.1").to_str().unwrap()], dir);
    let imported = Instant::now();
    loop {
        let versions = get_with_key(addr, "/v1/versions", &key).json();
        if versions["meta"]["game_version"] == "v0.7.0.0.1" {
            break;
        }
        assert!(imported.elapsed() < Duration::from_secs(60), "the import was not served: {versions}");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    let answers: Vec<Vec<(&str, Answer)>> = clients.into_iter().map(|c| c.join().unwrap()).collect();

    let new: Vec<Answer> = URLS.iter().map(|url| get_with_key(addr, url, &key)).collect();
    assert_eq!(new[0].json()["data"].as_array().unwrap().len(), 3);
    let seen = |url: &str, answer: &Answer| {
        let i = URLS.iter().position(|u| *u == url).unwrap();
        let matches = |known: &Answer| {
            known.status == answer.status
                && known.body == answer.body
                && known.header("etag") == answer.header("etag")
        };
        match (matches(&old[i]), matches(&new[i])) {
            (true, true) => Seen::Both,
            (true, false) => Seen::Old,
            (false, true) => Seen::New,
            (false, false) => panic!("{url} answered neither the old nor the new data: {answer:?}"),
        }
    };
    // Answers pinned to an old version did not change, so neither did their tags; `latest` ones did.
    for (i, url) in URLS.iter().enumerate() {
        let pinned = url.contains("v0.6.4.2.1");
        assert_eq!(old[i].header("etag") == new[i].header("etag"), pinned, "{url}");
    }
    for client in &answers {
        assert!(client.iter().all(|(_, answer)| answer.status == 200));
        // Once a client has seen the new data, it never sees the old again.
        let order: Vec<Seen> = client.iter().map(|(url, answer)| seen(url, answer)).collect();
        let first_new = order.iter().position(|s| *s == Seen::New).unwrap_or(order.len());
        assert!(!order[first_new..].contains(&Seen::Old), "old data after new: {order:?}");
    }
    let total: usize = answers.iter().map(Vec::len).sum();
    assert!(total >= URLS.len() * 3, "the clients barely ran: {total} answers");
}
