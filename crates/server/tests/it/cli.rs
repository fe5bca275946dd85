//! The `tapster` binary as a user runs it: `serve` on an empty data dir imports the bundled dataset
//! the binary carries (wherever the binary was copied to), prints a first key and answers over TCP;
//! `import` refuses a broken dataset and says where; the key commands print what they did, never a whole key.

use std::path::Path;
use std::process::{Command, Output};

use crate::{Serving, TAPSTER, get, get_with_key, serve, serve_with};

pub(crate) fn tapster(args: &[&str], data_dir: &Path) -> Output {
    Command::new(TAPSTER).args(args).arg("--data-dir").arg(data_dir).output().unwrap()
}

#[test]
fn serve_on_an_empty_data_dir_imports_the_bundled_dataset_and_answers() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let server = serve(data_dir.path());

    assert_eq!(get(server.addr, "/v1/versions", &[]).status, 401);
    let answer = get_with_key(server.addr, "/v1/versions", server.first_key());
    assert_eq!(answer.status, 200);
    let versions = answer.json();
    let names: Vec<&str> =
        versions["data"].as_array().unwrap().iter().map(|v| v["version"].as_str().unwrap()).collect();
    assert_eq!(names, ["v0.7.0.0.1", "v0.6.5.0.3", "v0.6.4.2.1"]);
    assert_eq!(versions["meta"]["game_version"], "v0.7.0.0.1");

    for version in names {
        let answer = get_with_key(
            server.addr,
            &format!("/v1/languages?version={version}&lang=fr"),
            server.first_key(),
        );
        assert_eq!(answer.status, 200);
        let languages = answer.json();
        assert_eq!(languages["data"].as_array().unwrap().len(), 27, "{version}");
        assert_eq!(languages["meta"]["game_version"], version);
    }
    let answer = get_with_key(server.addr, "/v1/languages?version=v0.1.0.0.0", server.first_key());
    assert_eq!((answer.status, answer.json()["type"].as_str()), (404, Some("/errors/not-found")));

    // Without --public-url, the document and the feed name no address: relative ones work from
    // wherever the server is reached, and the default address is loopback.
    let document = get(server.addr, "/openapi.json", &[]).json();
    assert_eq!(document["servers"][0]["url"], "/");

    // The first key is printed once: a second start on the same data dir creates none.
    drop(server);
    let listed = tapster(&["keys", "list"], data_dir.path());
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert_eq!(listed.lines().count(), 2, "{listed}");
    assert!(listed.contains("local@localhost"), "{listed}");
}

/// The names of the versions `/v1/versions` lists, newest first.
fn versions_served(server: &Serving) -> Vec<String> {
    let answer = get_with_key(server.addr, "/v1/versions", server.first_key());
    assert_eq!(answer.status, 200);
    let versions = answer.json();
    versions["data"].as_array().unwrap().iter().map(|v| v["version"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_copied_binary_serves_the_data_it_carries_from_a_directory_of_its_own() {
    // The binary alone in an empty directory, which is also its home and where it runs: nothing
    // of the checkout is in reach but by an absolute path, which the binary does not hold (below).
    let home = tempfile::TempDir::new().unwrap();
    let copied = home.path().join("tapster");
    // A link where the file system allows it: the same bytes, without copying a debug binary's
    // hundreds of megabytes.
    if std::fs::hard_link(TAPSTER, &copied).is_err() {
        std::fs::copy(TAPSTER, &copied).unwrap();
    }
    let mut command = Command::new(&copied);
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir", "data"])
        .env_remove("TAPSTER_FIXTURES")
        .env_remove("TAPSTER_DATA_DIR")
        .env("HOME", home.path())
        .current_dir(home.path());
    let server = crate::serve_command(command);
    assert!(server.first_key().starts_with("tap_"));
    assert_eq!(versions_served(&server), ["v0.7.0.0.1", "v0.6.5.0.3", "v0.6.4.2.1"]);
    // The dataset was unpacked inside the data dir for the import, and is gone after it.
    let kept: Vec<String> = std::fs::read_dir(home.path().join("data"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(kept.contains(&"game.sqlite".to_owned()), "{kept:?}");
    assert!(!kept.iter().any(|name| name.starts_with(".bundled")), "{kept:?}");
}

#[test]
fn the_binary_holds_no_path_to_the_checkouts_fixtures() {
    let binary = std::fs::read(TAPSTER).unwrap();
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = manifest_dir.join("../../fixtures");
    for path in [fixtures.clone(), fixtures.canonicalize().unwrap()] {
        let path = path.to_str().unwrap().as_bytes();
        assert!(memchr::memmem::find(&binary, path).is_none(), "{}", String::from_utf8_lossy(path));
    }
}

#[test]
fn serve_refuses_a_fixtures_folder_that_is_not_there_and_says_what_to_do() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let nowhere = data_dir.path().join("no-such-fixtures");
    let started = Command::new(TAPSTER)
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir.path())
        .arg("--fixtures")
        .arg(&nowhere)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(!started.status.success());
    let stderr = String::from_utf8_lossy(&started.stderr);
    let told = [
        nowhere.to_str().unwrap(),
        "--fixtures",
        "TAPSTER_FIXTURES",
        "the bundled dataset",
        "tapster import DIR",
    ];
    for told in told {
        assert!(stderr.contains(told), "{told}: {stderr}");
    }
    // Nothing was left half made: without --fixtures, the data dir is served the bundled dataset.
    let server = crate::serve(data_dir.path());
    assert_eq!(versions_served(&server).len(), 3);
}

#[test]
fn import_refuses_a_broken_dataset_naming_the_place_and_exits_non_zero() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let dataset = tempfile::TempDir::new().unwrap();
    let version = dataset.path().join("v1.0.0.0.1");
    let mini = crate::mini().join("v1.0.0.0.1");
    tapster_test_support::copy_tree(&mini, &version);
    let recipes = version.join("recipes.json");
    let text = std::fs::read_to_string(&recipes).unwrap().replacen("\"station\": 2", "\"station\": 9", 1);
    std::fs::write(&recipes, text).unwrap();

    let output = tapster(&["import", dataset.path().to_str().unwrap()], data_dir.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "recipes.json, record id 101 (pale-wort), field `station`: no crafting station with id 9"
        ),
        "{stderr}"
    );
    assert!(!data_dir.path().join("game.sqlite").exists());

    std::fs::write(&recipes, std::fs::read(mini.join("recipes.json")).unwrap()).unwrap();
    let output = tapster(&["import", dataset.path().to_str().unwrap()], data_dir.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("v1.0.0.0.1 (build 100): Added"));
}

#[test]
fn key_commands_print_what_they_did_and_never_a_whole_key() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let created = tapster(
        &[
            "keys",
            "create",
            "--account",
            "Marta@Example.org",
            "--name",
            "wiki bot",
            "--per-minute",
            "120",
            "--burst",
            "20",
            "--per-day",
            "5000",
        ],
        data_dir.path(),
    );
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let stdout = String::from_utf8_lossy(&created.stdout);
    let key = stdout.lines().last().unwrap();
    assert!(tapster_domain::ApiKey::parse(key).is_ok(), "the last line is not a key: {stdout}");

    let listed = tapster(&["keys", "list", "--account", "marta@example.org"], data_dir.path());
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains(&key[..12]) && !listed.contains(&key[12..]), "{listed}");
    assert!(
        listed.contains("wiki bot") && listed.contains("120/20/5000") && listed.contains("active"),
        "{listed}"
    );

    for (args, state) in [
        (["keys", "suspend"], "suspended"),
        (["keys", "unsuspend"], "active"),
        (["keys", "revoke"], "revoked"),
    ] {
        let output = tapster(&[args[0], args[1], &key[..12]], data_dir.path());
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(String::from_utf8_lossy(&output.stdout).contains(state), "{args:?}");
    }
    let refused = tapster(&["keys", "unsuspend", "1"], data_dir.path());
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("stays revoked"));

    let bad = tapster(&["keys", "create", "--account", "not-an-email", "--name", "x"], data_dir.path());
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("name@domain"));
    let blocked = tapster(&["addresses", "block", "203.0.113.9/24"], data_dir.path());
    assert_eq!(String::from_utf8_lossy(&blocked.stdout).trim(), "203.0.113.0/24 is blocked");
    let suspended = tapster(&["accounts", "suspend", "nobody@example.org"], data_dir.path());
    assert!(String::from_utf8_lossy(&suspended.stderr).contains("there is no account nobody@example.org"));
}

#[test]
fn backup_copies_both_databases_while_the_server_runs_and_never_overwrites() {
    let data_dir = tempfile::TempDir::new().unwrap();
    assert!(tapster(&["import", crate::mini().to_str().unwrap()], data_dir.path()).status.success());
    let server = serve(data_dir.path());
    let key = server.first_key().to_owned();
    assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);

    let dest = tempfile::TempDir::new().unwrap();
    let backup_dir = dest.path().join("nightly");
    let backup_arg = backup_dir.to_str().unwrap();
    let written = tapster(&["backup", backup_arg], data_dir.path());
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    drop(server);

    // The copy is a data dir of its own: the same key works against it.
    let restored = serve(&backup_dir);
    assert!(restored.key.is_none(), "the backup lost the keys");
    let versions = get_with_key(restored.addr, "/v1/versions", &key);
    assert_eq!(versions.status, 200, "{}", versions.text());
    assert_eq!(versions.json()["data"].as_array().unwrap().len(), 2);

    let again = tapster(&["backup", backup_arg], data_dir.path());
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
}

#[test]
fn sigterm_stops_serving_writes_the_usage_counts_and_exits_zero() {
    let data_dir = tempfile::TempDir::new().unwrap();
    assert!(tapster(&["import", crate::mini().to_str().unwrap()], data_dir.path()).status.success());
    let mut server = serve(data_dir.path());
    let key = server.first_key().to_owned();
    for _ in 0..3 {
        assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);
    }
    // Usage is written every 5 s; stopping at once leaves it to the shutdown.
    terminate(&mut server);

    let listed = tapster(&["keys", "list"], data_dir.path());
    let listed = String::from_utf8_lossy(&listed.stdout);
    let local = listed.lines().find(|line| line.contains(&key[..12])).unwrap();
    assert!(!local.contains("never"), "the usage was not written at shutdown: {local}");
}

/// `tapster import` keeps the bulk exports; `tapster export` writes them out, with sums that
/// `sha256sum -c` checks, byte for byte what `serve` answers for them.
#[test]
fn export_writes_the_files_the_server_serves_with_their_checksums() {
    let data_dir = tempfile::TempDir::new().unwrap();
    assert!(tapster(&["import", crate::mini().to_str().unwrap()], data_dir.path()).status.success());
    let mirror = tempfile::TempDir::new().unwrap();
    let dest = mirror.path().join("exports");
    let exported = tapster(&["export", dest.to_str().unwrap()], data_dir.path());
    assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
    let printed = String::from_utf8_lossy(&exported.stdout);
    // Two versions in three languages, and the sums.
    assert_eq!(printed.lines().count(), 7, "{printed}");
    let checked = Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(&dest)
        .output()
        .unwrap();
    assert!(checked.status.success(), "{}", String::from_utf8_lossy(&checked.stdout));

    let server = serve(data_dir.path());
    let key = server.first_key().to_owned();
    let listing = get_with_key(server.addr, "/v1/exports", &key).json();
    let sums = std::fs::read_to_string(dest.join("SHA256SUMS")).unwrap();
    for export in listing["data"].as_array().unwrap() {
        let line =
            format!("{}  {}", export["sha256"].as_str().unwrap(), export["file_name"].as_str().unwrap());
        assert!(sums.lines().any(|l| l == line), "{line} not in\n{sums}");
    }
    let first = &listing["data"][0];
    let served = get_with_key(server.addr, first["url"].as_str().unwrap(), &key);
    assert_eq!(served.status, 200);
    assert_eq!(served.body, std::fs::read(dest.join(first["file_name"].as_str().unwrap())).unwrap());

    // A data dir without data says so, and writes nothing.
    let empty = tempfile::TempDir::new().unwrap();
    let refused = tapster(&["export", mirror.path().join("none").to_str().unwrap()], empty.path());
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("no game data"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(!mirror.path().join("none").exists());
}

/// Sends SIGTERM to `server` and waits for it to exit, successfully, and stop listening.
fn terminate(server: &mut Serving) {
    let killed = Command::new("kill").args(["-TERM", &server.child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "serve did not stop after SIGTERM");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "serve exited with {status}");
    assert!(std::net::TcpStream::connect(server.addr).is_err(), "still listening");
}

/// `--metrics-addr`: `/metrics` on its own address, counting the API's requests, and `404` beside
/// the API; both addresses close on SIGTERM.
#[test]
fn metrics_apart_are_answered_on_their_own_address_until_the_server_stops() {
    let data_dir = tempfile::TempDir::new().unwrap();
    assert!(tapster(&["import", crate::mini().to_str().unwrap()], data_dir.path()).status.success());
    // A free port: bound, read and let go, for the server to bind again.
    let metrics = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let mut server = serve_with(data_dir.path(), &["--metrics-addr", &metrics.to_string()]);
    let key = server.first_key().to_owned();
    assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);
    assert_eq!(get(server.addr, "/metrics", &[]).status, 404);
    let scraped = get(metrics, "/metrics", &[]);
    assert_eq!(scraped.status, 200);
    assert!(
        scraped.text().contains("tapster_http_requests_total{route=\"/v1/versions\",status=\"200\"} 1"),
        "{}",
        scraped.text()
    );
    assert_eq!(get(metrics, "/v1/versions", &[]).status, 404);
    // A load balancer's health check, which no proxy's header comes with, is answered there too.
    assert_eq!(get(metrics, "/healthz", &[]).status, 200);

    terminate(&mut server);
    assert!(std::net::TcpStream::connect(metrics).is_err(), "the metrics address is still listening");
}

/// `--public-url` is the address clients reach the service at: the OpenAPI document's server, and
/// the base of the changelog feed's links, which open the changelog page.
#[test]
fn the_public_url_is_the_documents_server_and_the_feeds_base() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let server = serve_with(data_dir.path(), &["--public-url", "https://api.example.org"]);
    let document = get(server.addr, "/openapi.json", &[]).json();
    assert_eq!(document["servers"][0]["url"], "https://api.example.org");
    let feed = get(server.addr, "/changelog.rss", &[]);
    let feed = feed.text();
    assert!(feed.contains("<link>https://api.example.org/changelog</link>"), "{feed}");
    assert!(feed.contains("<link>https://api.example.org/changelog#v0.7.0.0.1</link>"), "{feed}");
    let page = get(server.addr, "/changelog", &[]);
    assert_eq!(page.status, 200);
    assert!(page.text().contains("<section id=\"v0.7.0.0.1\">"), "{}", page.text());
    // Reached over HTTPS (a proxy ends TLS), every answer tells browsers to keep to it.
    for path in ["/openapi.json", "/", "/v1/versions", "/no-such-page"] {
        assert_eq!(
            get(server.addr, path, &[]).header("strict-transport-security"),
            "max-age=31536000",
            "{path}"
        );
    }
}

/// `--help` shows which variables hold the services' URLs, never their values: a password inside
/// one would land in a terminal's scrollback or a support ticket.
#[test]
fn help_never_prints_a_secret_from_the_environment() {
    let secrets = [
        ("TAPSTER_ACCOUNTS_URL", "postgres://tapster:hunter2-accounts@db.internal/tapster"),
        ("TAPSTER_REDIS_URL", "rediss://:hunter2-redis@cache.internal:6380"),
        ("TAPSTER_REDIS_CLUSTER", "rediss://:hunter2-cluster@cache-1.internal:6380"),
        ("TAPSTER_SMTP_URL", "smtps://keys:hunter2-smtp@smtp.example.org"),
        ("TAPSTER_GITHUB_CLIENT_SECRET", "hunter2-github"),
        ("TAPSTER_DISCORD_CLIENT_SECRET", "hunter2-discord"),
    ];
    for command in [&["serve", "--help"][..], &["keys", "list", "--help"], &["import", "--help"]] {
        let output = Command::new(TAPSTER).args(command).envs(secrets).output().unwrap();
        assert!(output.status.success(), "{command:?}");
        let help = String::from_utf8_lossy(&output.stdout);
        assert!(!help.contains("hunter2"), "{command:?} shows a secret:\n{help}");
        assert!(help.contains("TAPSTER_ACCOUNTS_URL"), "{command:?}:\n{help}");
    }
}

/// The data dir is one flag of the whole command line (`--data-dir`, or `TAPSTER_DATA_DIR`), and
/// every subcommand takes it both ways, after its name, as docs/operations.md writes the commands: run
/// one after another on one data dir, each finds what the one before left there, and none touches
/// the default `./data`. Every subcommand's `--help` documents it.
#[test]
fn every_subcommand_takes_the_data_dir_from_its_flag_and_from_the_environment() {
    let mini = crate::mini();
    let mini = mini.to_str().unwrap();
    for by_flag in [true, false] {
        // The commands run here, where a `./data` would appear if one of them missed the data dir.
        let here = tempfile::TempDir::new().unwrap();
        let data_dir = tempfile::TempDir::new().unwrap();
        let command = |args: &[&str]| {
            let mut command = Command::new(TAPSTER);
            command.args(args).current_dir(here.path()).env_remove("TAPSTER_ACCOUNTS_URL");
            match by_flag {
                true => command.arg("--data-dir").arg(data_dir.path()).env_remove("TAPSTER_DATA_DIR"),
                false => command.env("TAPSTER_DATA_DIR", data_dir.path()),
            };
            command
        };
        let run = |args: &[&str]| {
            let output = command(args).output().unwrap();
            let (stdout, stderr) =
                (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
            assert!(output.status.success(), "{args:?} (by flag: {by_flag}) failed:\n{stderr}");
            stdout.into_owned()
        };
        run(&["import", mini]);
        let created = run(&["keys", "create", "--account", "marta@example.org", "--name", "bot"]);
        let key = created.lines().last().unwrap().to_owned();
        assert!(run(&["keys", "list"]).contains(&key[..12]), "by flag: {by_flag}");
        assert!(run(&["keys", "suspend", &key]).contains("suspended"));
        assert!(run(&["keys", "unsuspend", &key]).contains("active"));
        run(&["accounts", "suspend", "marta@example.org"]);
        run(&["accounts", "unsuspend", "marta@example.org"]);
        run(&["addresses", "block", "192.0.2.1"]);
        assert!(run(&["addresses", "unblock", "192.0.2.1"]).contains("is no longer blocked"));
        let copies = tempfile::TempDir::new().unwrap();
        assert!(run(&["export", copies.path().join("exports").to_str().unwrap()]).contains("SHA256SUMS"));
        assert!(run(&["backup", copies.path().join("backup").to_str().unwrap()]).contains("game.sqlite"));
        // Publishing needs the accounts in PostgreSQL: refused as such, not as a usage error.
        for args in [&["publish", mini][..], &["published"]] {
            let output = command(args).output().unwrap();
            assert_eq!(
                output.status.code(),
                Some(1),
                "{args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let mut serve = command(&["serve", "--addr", "127.0.0.1:0"]);
        serve.env_remove("TAPSTER_FIXTURES");
        let server = crate::serve_command(serve);
        assert_eq!(server.key, None, "serve found no key in the data dir (by flag: {by_flag})");
        assert_eq!(get_with_key(server.addr, "/v1/versions", &key).status, 200);
        assert!(run(&["keys", "revoke", &key]).contains("revoked"));
        drop(server);
        assert!(!here.path().join("data").exists(), "a command used ./data (by flag: {by_flag})");
    }
    let subcommands: &[&[&str]] = &[
        &["serve"],
        &["import"],
        &["publish"],
        &["published"],
        &["export"],
        &["backup"],
        &["keys", "create"],
        &["keys", "list"],
        &["keys", "revoke"],
        &["keys", "suspend"],
        &["keys", "unsuspend"],
        &["accounts", "suspend"],
        &["accounts", "unsuspend"],
        &["addresses", "block"],
        &["addresses", "unblock"],
    ];
    for subcommand in subcommands {
        let output = Command::new(TAPSTER)
            .args(*subcommand)
            .arg("--help")
            .env_remove("TAPSTER_DATA_DIR")
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&output.stdout);
        for documented in [
            "--data-dir",
            "Where Tapster keeps its databases",
            "TAPSTER_DATA_DIR",
            "./data",
            "--accounts-url",
        ] {
            assert!(help.contains(documented), "{subcommand:?} --help does not say {documented}:\n{help}");
        }
    }
}
