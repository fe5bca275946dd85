//! A key's requests over the last 30 days as a bar chart, drawn on the server as inline SVG (one
//! `<rect>` per day with a tooltip), so that it needs no script. This module makes the geometry; the
//! template writes the elements.

use tapster_domain::Timestamp;

/// Days shown, today included.
pub(crate) const DAYS: i64 = 30;
/// Each day's slot in the drawing: a bar 3 units wide and a gap of 1.
const SLOT: u32 = 4;
const WIDTH: u32 = DAYS as u32 * SLOT;
const HEIGHT: u32 = 28;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chart {
    /// The drawing's size in SVG units.
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) bars: Vec<Bar>,
    /// What a screen reader says for the whole chart.
    pub(crate) label: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Bar {
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) height: u32,
    /// The tooltip: `2026-11-22: 1,204 requests`.
    pub(crate) title: String,
}

/// The chart of the 30 days that end with `today` (a day number), from `(day, requests)` pairs in
/// any order; days outside the window are left out. The tallest bar fills the height; a day with any
/// request gets at least one unit, so that it can be seen.
pub(crate) fn chart(today: i64, usage: impl IntoIterator<Item = (i64, u32)>) -> Chart {
    let first = today - DAYS + 1;
    let mut days = [0u64; DAYS as usize];
    for (day, requests) in usage {
        if (first..=today).contains(&day) {
            days[(day - first) as usize] += u64::from(requests);
        }
    }
    let (max, total) = (days.iter().copied().max().unwrap_or(0), days.iter().sum::<u64>());
    let bars = days
        .iter()
        .enumerate()
        .filter(|(_, requests)| **requests > 0)
        .map(|(slot, &requests)| {
            let height = u32::try_from((requests * u64::from(HEIGHT)).div_ceil(max)).unwrap_or(HEIGHT).max(1);
            let day = first + slot as i64;
            Bar {
                x: slot as u32 * SLOT,
                y: HEIGHT - height,
                height,
                title: format!("{}: {} {}", date(day), thousands(requests), plural(requests, "request")),
            }
        })
        .collect();
    let label = format!("{} {} in the last {DAYS} days", thousands(total), plural(total, "request"));
    Chart { width: WIDTH, height: HEIGHT, bars, label }
}

/// A day number as `2026-11-22`.
pub(crate) fn date(day: i64) -> String {
    Timestamp(day * 86_400).to_string()[..10].to_owned()
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 { word.to_owned() } else { format!("{word}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_busiest_day_and_every_used_day_shows() {
        let today = 20_779; // 2026-11-22
        let chart =
            chart(today, [(today, 100), (today - 1, 1), (today - 29, 50), (today - 30, 999), (today + 1, 7)]);
        assert_eq!(chart.label, "151 requests in the last 30 days", "days outside the window are left out");
        let bars: Vec<(u32, u32, u32)> = chart.bars.iter().map(|b| (b.x, b.y, b.height)).collect();
        assert_eq!(bars, [(0, 14, 14), (112, 27, 1), (116, 0, 28)]);
        assert_eq!(chart.bars[2].title, "2026-11-22: 100 requests");
        assert_eq!(chart.bars[1].title, "2026-11-21: 1 request");
    }

    #[test]
    fn an_unused_key_has_no_bars() {
        let chart = chart(20_779, []);
        assert!(chart.bars.is_empty());
        assert_eq!(chart.label, "0 requests in the last 30 days");
    }

    #[test]
    fn numbers_and_dates() {
        for (n, text) in [(0, "0"), (999, "999"), (1_000, "1,000"), (1_234_567, "1,234,567")] {
            assert_eq!(thousands(n), text);
        }
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(20_779), "2026-11-22");
    }
}
