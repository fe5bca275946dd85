//! How fast the name index answers realistic queries, and how much memory it takes, on the real names of
//! the bundled game version (items and recipes in 27 languages, read straight from the fixture files).
//!
//! Run with `cargo bench -p tapster-search --bench search`. Queries: short English prefixes, unaccented
//! German, French and Spanish words, Japanese kana in the other script, Chinese and Thai substrings, typos
//! and misses, each searched in its language and in English as `/v1/search` does. The machine is shared
//! and noisy, so besides the times the report gives ratios to two references measured in the same run:
//! folding the query once (the least any search does), and a naive scan testing every folded name of the
//! two languages with `str::contains` (exact matching only, no ranking).

#![allow(clippy::print_stdout, reason = "a benchmark reports on the console")]

use std::hint::black_box;
use std::time::{Duration, Instant};

use tapster_search::fold;

#[path = "../tests/bundled/mod.rs"]
mod bundled;

use bundled::{Corpus, Lcg, VERSION, build, corpus};

const ROUNDS: usize = 30;
const LIMIT: usize = 20;

/// A query, the list of its language, and what kind of query it is.
struct Query {
    text: String,
    list: usize,
    kind: &'static str,
}

fn queries(corpus: &Corpus) -> Vec<Query> {
    let list =
        |code: &str| corpus.languages.iter().position(|l| l == code).unwrap_or_else(|| panic!("no {code}"));
    let names = |code: &str| -> Vec<Vec<char>> {
        corpus.names[list(code)].iter().flatten().map(|n| fold(n).chars().collect()).collect()
    };
    let mut rng = Lcg(7);
    let mut queries = Vec::new();
    let mut push = |text: String, code: &str, kind| queries.push(Query { text, list: list(code), kind });
    let part = |rng: &mut Lcg, name: &[char], len: usize| -> String {
        let len = len.min(name.len());
        let start = rng.below(name.len() - len + 1);
        name[start..start + len].iter().collect()
    };

    let english = names("en");
    for _ in 0..80 {
        let name = &english[rng.below(english.len())];
        let len = 2 + rng.below(3);
        push(name.iter().take(len).collect(), "en", "English prefix");
    }
    for code in ["de", "fr", "es"] {
        let accented: Vec<&str> =
            corpus.names[list(code)].iter().flatten().map(String::as_str).filter(|n| !n.is_ascii()).collect();
        for _ in 0..30 {
            let name = accented[rng.below(accented.len())];
            let word = name.split(' ').max_by_key(|w| w.len()).unwrap_or(name);
            push(fold(word), code, "unaccented word");
        }
    }
    let japanese = corpus.names[list("ja")].iter().flatten().collect::<Vec<_>>();
    for _ in 0..40 {
        // The other kana script: hiragana for katakana names, as a player would type.
        let name: Vec<char> = fold(japanese[rng.below(japanese.len())]).chars().collect();
        let len = 2 + rng.below(3);
        push(part(&mut rng, &name, len), "ja", "kana substring");
    }
    for (code, kind) in [("zh-CN", "Chinese substring"), ("th", "Thai substring")] {
        let names = names(code);
        for _ in 0..30 {
            let name = &names[rng.below(names.len())];
            let len = 2 + rng.below(2);
            push(part(&mut rng, name, len), code, kind);
        }
    }
    for _ in 0..40 {
        let long: Vec<&Vec<char>> = english.iter().filter(|n| n.len() >= 7).collect();
        let mut name: Vec<char> = long[rng.below(long.len())].iter().take(9).copied().collect();
        while name.last() == Some(&' ') {
            name.pop();
        }
        let at = 1 + rng.below(name.len() - 2);
        match rng.below(3) {
            0 => name[at] = 'q',
            1 => {
                name.remove(at);
            }
            _ => name.insert(at, 'x'),
        }
        push(name.into_iter().collect(), "en", "typo");
    }
    for miss in [
        "zzqx",
        "qwertyuiop",
        "xylophone",
        "жжж",
        "ぬぬぬ",
        "ซซซ",
        "kkkkk",
        "zebra stripes",
        "quux",
        "vvvvvv",
    ] {
        for code in ["en", "fr", "ja"] {
            push(miss.into(), code, "miss");
        }
    }
    queries
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let corpus = corpus();
    let started = Instant::now();
    let index = build(&corpus);
    let build_time = started.elapsed();
    let english = corpus.languages.iter().position(|l| l == "en").expect("English");
    let queries = queries(&corpus);
    let folded: Vec<Vec<String>> =
        corpus.names.iter().map(|names| names.iter().flatten().map(|n| fold(n)).collect()).collect();

    let mut search = Vec::new();
    let mut fold_only = Vec::new();
    let mut naive = Vec::new();
    let mut per_kind: Vec<(&str, Vec<Duration>, usize)> = Vec::new();
    for round in 0..=ROUNDS {
        for query in &queries {
            let lists = if query.list == english { vec![english] } else { vec![query.list, english] };
            let start = Instant::now();
            let hits = black_box(index.search(black_box(&query.text), &lists, |_| true, LIMIT));
            let searched = start.elapsed();
            let start = Instant::now();
            black_box(fold(black_box(&query.text)));
            let folding = start.elapsed();
            let start = Instant::now();
            let q = fold(black_box(&query.text));
            let found =
                lists.iter().flat_map(|&l| folded[l].iter()).filter(|n| n.contains(q.as_str())).count();
            black_box(found);
            let scanning = start.elapsed();
            if round == 0 {
                continue; // warm-up
            }
            search.push(searched);
            fold_only.push(folding);
            naive.push(scanning);
            match per_kind.iter_mut().find(|(k, ..)| *k == query.kind) {
                Some((_, times, found)) => {
                    times.push(searched);
                    *found += hits.len();
                }
                None => per_kind.push((query.kind, vec![searched], hits.len())),
            }
        }
    }
    for samples in [&mut search, &mut fold_only, &mut naive] {
        samples.sort();
    }
    let names: usize = corpus.names.iter().map(|n| n.iter().flatten().count()).sum();
    println!(
        "{VERSION}: {} documents, {names} names in {} languages; {} queries x {ROUNDS} rounds, limit {LIMIT}",
        corpus.names[english].len(),
        corpus.languages.len(),
        queries.len()
    );
    println!(
        "index build: {build_time:?}; index memory: {:.1} KiB ({} bytes)",
        index.heap_bytes() as f64 / 1024.0,
        index.heap_bytes()
    );
    println!("{:<20} {:>10} {:>10} {:>10}", "per query", "median", "p99", "max");
    for (label, samples) in
        [("search", &search), ("fold (reference)", &fold_only), ("naive scan (ref.)", &naive)]
    {
        println!(
            "{label:<20} {:>10.1?} {:>10.1?} {:>10.1?}",
            percentile(samples, 0.5),
            percentile(samples, 0.99),
            samples[samples.len() - 1]
        );
    }
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "search / fold: median {:.1}x, p99 {:.1}x; search / naive scan: median {:.2}x, p99 {:.2}x",
        ratio(percentile(&search, 0.5), percentile(&fold_only, 0.5)),
        ratio(percentile(&search, 0.99), percentile(&fold_only, 0.99)),
        ratio(percentile(&search, 0.5), percentile(&naive, 0.5)),
        ratio(percentile(&search, 0.99), percentile(&naive, 0.99)),
    );
    println!("{:<20} {:>8} {:>10} {:>10} {:>12}", "by kind", "queries", "median", "p99", "hits/query");
    for (kind, mut times, found) in per_kind {
        times.sort();
        println!(
            "{kind:<20} {:>8} {:>10.1?} {:>10.1?} {:>12.1}",
            times.len() / ROUNDS,
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            found as f64 / times.len() as f64
        );
    }
}
