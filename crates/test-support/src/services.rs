//! The one rule for a test whose service is missing (the machine's PostgreSQL or Redis, a server of
//! the test's own, nginx, Chromium and its driver): where `TAPSTER_TEST_REQUIRE_SERVICES` is set, as
//! `.ci/run` sets it, the test fails; elsewhere it is skipped, and says so where `cargo test` shows it.
//!
//! libtest has no skip decided while a test runs. `#[ignore]` is fixed when the test is compiled: it
//! would hide the tests on the machines that have the services too, unless run with
//! `--include-ignored`, which runs every other ignored test as well. A test's name is fixed just the
//! same, so a `..._skipped` test would be there whether anything was skipped or not. What a running
//! test does decide is what it writes, and libtest captures only what `print!` and `eprint!` write
//! (shown for a failing test alone). So [`missing`] writes its line straight to the process's
//! standard error, which the harness leaves alone: `SKIPPED <test>: <what is missing>` stands in
//! `cargo test`'s output beside the test's `ok`, with or without `--nocapture`, and a test of this
//! module runs a test in a child process to hold that it does.

use std::io::Write;

/// The variable that makes a missing service a failure.
pub const REQUIRE: &str = "TAPSTER_TEST_REQUIRE_SERVICES";

/// Whether the services are required: [`REQUIRE`] is set to anything but nothing or `0`.
pub fn required() -> bool {
    std::env::var_os(REQUIRE).is_some_and(|value| !value.is_empty() && value != "0")
}

/// Says that `service` (at `address`) is not there, because `why`: a panic where the services are
/// [`required`], and otherwise a `SKIPPED` line on the process's standard error, past the harness's
/// capture, after which the caller returns without testing anything.
pub fn missing(service: &str, address: &str, why: &str) {
    let message = format!("{service} at {address} is not available: {why}");
    assert!(!required(), "{message}; {REQUIRE} is set, so the test fails instead of skipping");
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let line = format!("SKIPPED {test}: {message} (docs/operations.md says how to run it)\n");
    // Not `eprintln!`, which the harness captures: this is the one line a skipped test must show.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    /// Set in the child process this test starts, where the same test plays the skipped test.
    const CHILD: &str = "TAPSTER_TEST_SUPPORT_SKIP_CHILD";
    const NAME: &str = "services::tests::a_skip_shows_in_the_harness_output_and_fails_where_required";

    /// This test's binary running this test alone, as `cargo test` runs it (output captured).
    fn child(require: Option<&str>) -> std::process::Output {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.args([NAME, "--exact"]).env(CHILD, "1").env_remove(REQUIRE);
        if let Some(value) = require {
            command.env(REQUIRE, value);
        }
        command.output().unwrap()
    }

    #[test]
    fn a_skip_shows_in_the_harness_output_and_fails_where_required() {
        if std::env::var_os(CHILD).is_some() {
            missing("a probe service", "nowhere", "the parent test asked for its absence");
            return;
        }
        let skipped = child(None);
        let err = String::from_utf8_lossy(&skipped.stderr);
        assert!(skipped.status.success(), "the skipped test passes: {err}");
        assert!(
            err.contains(&format!("SKIPPED {NAME}: a probe service at nowhere is not available")),
            "the skip is in the harness's output: {err}"
        );
        for value in ["1", "yes"] {
            let failed = child(Some(value));
            let out = String::from_utf8_lossy(&failed.stdout);
            assert!(!failed.status.success(), "{REQUIRE}={value} fails the test: {out}");
            assert!(out.contains(&format!("{REQUIRE} is set, so the test fails")), "{out}");
        }
        for value in ["", "0"] {
            assert!(child(Some(value)).status.success(), "{REQUIRE}={value:?} requires nothing");
        }
    }
}
