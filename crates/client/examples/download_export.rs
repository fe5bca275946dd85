//! Downloads the bulk export of the newest game version in one language, checks it against the
//! SHA-256 the listing gives, and counts its records by resource: a whole dataset in one request.
//!
//! ```sh
//! TAPSTER_URL=http://127.0.0.1:8080 TAPSTER_KEY=tap_... cargo run -p tapster-client --example download_export -- de
//! ```

#![allow(clippy::print_stdout, reason = "an example reports on the console")]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader};

use sha2::{Digest, Sha256};
use tapster_client::{Client, Lang};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("TAPSTER_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".to_owned());
    let key = std::env::var("TAPSTER_KEY").map_err(|_| "set TAPSTER_KEY to an API key")?;
    let lang = Lang::parse(&std::env::args().nth(1).unwrap_or_else(|| "en".to_owned()));
    let client = Client::builder(url, key).user_agent("tapster-client example download_export").build()?;
    print!("{}", download(&client, &lang).await?);
    Ok(())
}

/// What was downloaded, that it checked out, and its records by resource.
pub(crate) async fn download(client: &Client, lang: &Lang) -> Result<String, Box<dyn std::error::Error>> {
    let exports = client.exports().await?.data;
    // Newest version first: the first export in the language is the newest version's.
    let export = exports.iter().find(|e| &e.lang == lang).ok_or_else(|| format!("no export in {lang}"))?;
    let file = client.export_file(export).await?;
    let sha256: String = Sha256::digest(&file).iter().map(|b| format!("{b:02x}")).collect();
    if sha256 != export.sha256 || file.len() as u64 != export.size {
        return Err(format!("{} does not match its listing: sha256 {sha256}", export.file_name).into());
    }
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for line in BufReader::new(flate2::read::GzDecoder::new(&file[..])).lines() {
        let line: serde_json::Value = serde_json::from_str(&line?)?;
        *counts.entry(line["resource"].as_str().unwrap_or("?").to_owned()).or_default() += 1;
    }
    let mut out = format!("{} ({} bytes): sha256 {sha256} checks out\n", export.file_name, export.size);
    for (resource, count) in counts {
        let _ = writeln!(out, "  {resource:<18} {count:>5}");
    }
    Ok(out)
}
