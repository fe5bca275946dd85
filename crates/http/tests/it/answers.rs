//! The answers themselves, pinned: a broad sample of requests on the bundled data (every route, with
//! each language sample, enumerated value, sort key, page, field list and expansion, and their
//! refusals), each with the status and a SHA-256 of its content type and body, in
//! `tests/data/answers.txt`. A change that alters any of them fails here, naming the request; a
//! change meant to alter answers rewrites the file (`TAPSTER_BLESS_ANSWERS=1 cargo test -p
//! tapster-http --test it answers`) and the diff of that file shows which answers it changed. A
//! refactoring that leaves the file as it is serves the API byte for byte as before.

use std::fmt::Write as _;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::bundled_get;

fn answers_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/answers.txt")
}

/// `status sha256 target` for the answer to `target`.
fn pin(target: &str) -> String {
    let answer = bundled_get(target);
    let mut hasher = Sha256::new();
    hasher.update(answer.content_type().as_bytes());
    hasher.update(b"\n");
    hasher.update(&answer.body);
    let digest = hasher.finalize().iter().fold(String::new(), |mut hex, byte| {
        let _ = write!(hex, "{byte:02x}");
        hex
    });
    format!("{} {digest} {target}", answer.status.as_u16())
}

#[test]
fn the_sampled_answers_are_the_pinned_ones() {
    let text = std::fs::read_to_string(answers_file()).unwrap();
    let pinned: Vec<&str> = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert!(pinned.len() > 400, "{} pinned answers", pinned.len());
    let mut lines = Vec::with_capacity(pinned.len());
    let mut changed = Vec::new();
    for line in &pinned {
        let target =
            line.splitn(3, ' ').nth(2).unwrap_or_else(|| panic!("not `status sha256 target`: {line}"));
        let now = pin(target);
        if now != *line {
            changed.push(format!("{target}\n  pinned {line}\n  now    {now}"));
        }
        lines.push(now);
    }
    if std::env::var_os("TAPSTER_BLESS_ANSWERS").is_some() {
        let header: String =
            text.lines().take_while(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect();
        std::fs::write(answers_file(), header + &lines.join("\n") + "\n").unwrap();
        return;
    }
    assert!(changed.is_empty(), "{} answers changed:\n{}", changed.len(), changed.join("\n"));
}
