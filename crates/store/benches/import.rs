//! How long a full import of the bundled dataset takes, and how big the database gets.
//!
//! Run with `cargo bench -p tapster-store --bench import`. The machine is shared and noisy, so each
//! figure is the median of several runs and is also given as a ratio to a reference measured in the
//! same run: reading and parsing the same files, the least any import has to do.

#![allow(clippy::print_stdout, reason = "a benchmark reports on the console")]

use std::path::Path;
use std::time::{Duration, Instant};

const RUNS: usize = 5;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time(mut run: impl FnMut()) -> Duration {
    median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                run();
                start.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let parse = time(|| {
        tapster_store::read_dataset(&fixtures).expect("the bundled dataset reads");
    });
    let versions = tapster_store::read_dataset(&fixtures).expect("the bundled dataset reads");
    let validate = time(|| {
        for version in &versions {
            assert!(tapster_domain::validate(&version.data).is_empty());
        }
    });
    let mut size = 0;
    let import = time(|| {
        let data_dir = tempfile::TempDir::new().expect("a temporary data dir");
        tapster_store::import(data_dir.path(), &fixtures).expect("the bundled dataset imports");
        size = std::fs::metadata(data_dir.path().join(tapster_store::GAME_DB)).expect("a database").len();
    });
    let records: usize = versions.iter().map(|v| v.data.items.len() + v.data.recipes.len()).sum();

    println!("bundled dataset: {} versions, {records} items and recipes", versions.len());
    println!("{:<34} {:>10} {:>8}", "step (median of 5)", "time", "ratio");
    let row = |name: &str, d: Duration| {
        println!(
            "{name:<34} {:>8.0}ms {:>7.2}x",
            d.as_secs_f64() * 1e3,
            d.as_secs_f64() / parse.as_secs_f64()
        );
    };
    row("read and parse (reference)", parse);
    row("validate", validate);
    row("full import into a new data dir", import);
    println!("database size: {:.1} MiB", size as f64 / (1024.0 * 1024.0));
    println!(
        "target: full import under 30 s: {}",
        if import < Duration::from_secs(30) { "met" } else { "NOT met" }
    );
}
