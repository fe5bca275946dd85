//! End-to-end tests of the `tapster` binary as a user runs it: `serve` on an empty data dir imports
//! the bundled dataset and answers over TCP; `import` refuses a broken dataset and says where.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

const TAPSTER: &str = env!("CARGO_BIN_EXE_tapster");

/// A `tapster serve` process, killed when dropped.
struct Serving {
    child: Child,
    addr: String,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(data_dir: &Path) -> Serving {
    let mut child = Command::new(TAPSTER)
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .env_remove("TAPSTER_FIXTURES")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut lines = stderr.lines();
    let addr = loop {
        let line = lines.next().expect("tapster serve exited before listening").unwrap();
        if let Some((_, addr)) = line.split_once(" on http://") {
            break addr.trim().to_owned();
        }
    };
    // Keep draining stderr so that the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    Serving { child, addr }
}

/// A plain HTTP/1.1 GET over TCP; returns the status code and the JSON body.
fn get(addr: &str, path: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}")))
}

#[test]
fn serve_on_an_empty_data_dir_imports_the_bundled_dataset_and_answers() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let server = serve(data_dir.path());

    let (status, versions) = get(&server.addr, "/v1/versions");
    assert_eq!(status, 200);
    let names: Vec<&str> =
        versions["data"].as_array().unwrap().iter().map(|v| v["version"].as_str().unwrap()).collect();
    assert_eq!(names, ["v0.7.0.0.1", "v0.6.5.0.3", "v0.6.4.2.1"]);
    assert_eq!(versions["meta"]["game_version"], "v0.7.0.0.1");

    for version in names {
        let (status, languages) = get(&server.addr, &format!("/v1/languages?version={version}&lang=fr"));
        assert_eq!(status, 200);
        assert_eq!(languages["data"].as_array().unwrap().len(), 27, "{version}");
        assert_eq!(languages["meta"]["game_version"], version);
    }
    let (status, problem) = get(&server.addr, "/v1/languages?version=v0.1.0.0.0");
    assert_eq!((status, problem["type"].as_str()), (404, Some("/errors/not-found")));
}

#[test]
fn import_refuses_a_broken_dataset_naming_the_place_and_exits_non_zero() {
    let data_dir = tempfile::TempDir::new().unwrap();
    let dataset = tempfile::TempDir::new().unwrap();
    let version = dataset.path().join("v1.0.0.0.1");
    let mini = Path::new(env!("CARGO_MANIFEST_DIR")).join("../store/tests/data/mini/v1.0.0.0.1");
    std::fs::create_dir_all(version.join("localization")).unwrap();
    for entry in
        std::fs::read_dir(&mini).unwrap().chain(std::fs::read_dir(mini.join("localization")).unwrap())
    {
        let path = entry.unwrap().path();
        if path.is_file() {
            let relative = path.strip_prefix(&mini).unwrap();
            std::fs::copy(&path, version.join(relative)).unwrap();
        }
    }
    let recipes = version.join("recipes.json");
    let text = std::fs::read_to_string(&recipes).unwrap().replacen("\"station\": 2", "\"station\": 9", 1);
    std::fs::write(&recipes, text).unwrap();

    let output = Command::new(TAPSTER)
        .arg("import")
        .arg(dataset.path())
        .arg("--data-dir")
        .arg(data_dir.path())
        .output()
        .unwrap();
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
    let output = Command::new(TAPSTER)
        .arg("import")
        .arg(dataset.path())
        .arg("--data-dir")
        .arg(data_dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("v1.0.0.0.1 (build 100): Added"));
}
