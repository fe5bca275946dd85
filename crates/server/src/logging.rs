//! Where the server's `tracing` events go: one line per event, as text or as JSON, kept or dropped
//! by target and level (`info`, or `warn,tapster::request=info`). Each request leaves one `info`
//! event of target `tapster::request` (see `tapster_http::App`); `--log-level warn` silences them.
//!
//! The filter decides per call site, once: a silenced event costs a check of a cached flag, and is
//! never formatted.

use std::str::FromStr;

use tracing::Subscriber;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;

/// How each event is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// `2026-02-01T12:00:00.000000Z  INFO tapster::request: request method=GET path=/v1/items ...`
    Text,
    /// One JSON object per line, the event's fields at the top level beside `timestamp`, `level`,
    /// `target` and `message`.
    Json,
}

impl FromStr for LogFormat {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value.to_ascii_lowercase().as_str() {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            _ => Err(format!("{value:?} is not a log format: use text or json")),
        }
    }
}

/// Which events are written: a default level and levels per target, as `warn,tapster::request=info`;
/// levels are `off`, `error`, `warn`, `info`, `debug` and `trace`.
#[derive(Debug, Clone)]
pub struct LogLevel(Targets);

impl FromStr for LogLevel {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let refused = |why: String| {
            format!(
                "{value:?} is not a log level ({why}): give a level such as info, or a level and targets \
                 with theirs such as warn,tapster::request=info"
            )
        };
        // A bare word would be taken for a target with every level on: only levels stand alone.
        for directive in value.split(',').map(str::trim).filter(|d| !d.contains('=')) {
            if directive.is_empty() {
                return Err(refused("an empty directive".to_owned()));
            }
            directive.parse::<LevelFilter>().map_err(|e| refused(format!("{directive:?}: {e}")))?;
        }
        value.parse::<Targets>().map(Self).map_err(|e| refused(e.to_string()))
    }
}

/// The subscriber that writes the events `level` keeps, in `format`, to `writer` (stderr for the
/// server; a buffer in tests).
pub fn log_subscriber<W>(format: LogFormat, level: LogLevel, writer: W) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'w> MakeWriter<'w> + Send + Sync + 'static,
{
    let text = tracing_subscriber::fmt::layer().with_ansi(false).with_writer(writer);
    let registry = tracing_subscriber::registry().with(level.0);
    match format {
        LogFormat::Text => Box::new(registry.with(text)),
        LogFormat::Json => Box::new(registry.with(text.json().flatten_event(true))),
    }
}

#[cfg(test)]
mod tests {
    use tapster_test_support::LogBuffer;

    use super::*;

    /// What the subscriber of `format` and `level` writes for one request event and one warning.
    fn written(format: LogFormat, level: &str) -> String {
        let buffer = LogBuffer::default();
        let subscriber = log_subscriber(format, level.parse().unwrap(), buffer.clone());
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(target: "tapster::request", path = "/v1/items", status = 200u16, "request");
            tracing::warn!(doing = "reloading keys", "failed");
        });
        buffer.text()
    }

    #[test]
    fn json_lines_carry_the_fields_at_the_top_level() {
        let out = written(LogFormat::Json, "info");
        let lines: Vec<serde_json::Value> =
            out.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[0]["target"], "tapster::request");
        assert_eq!(lines[0]["level"], "INFO");
        assert_eq!(lines[0]["message"], "request");
        assert_eq!(lines[0]["path"], "/v1/items");
        assert_eq!(lines[0]["status"], 200);
        assert_eq!(lines[1]["doing"], "reloading keys");
    }

    #[test]
    fn text_lines_name_the_level_the_target_and_the_fields() {
        let out = written(LogFormat::Text, "info");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert!(lines[0].contains(" INFO tapster::request: request path=\"/v1/items\" status=200"), "{out}");
        assert!(!out.contains('\u{1b}'), "no colour codes: {out:?}");
    }

    #[test]
    fn levels_filter_by_target() {
        assert_eq!(written(LogFormat::Text, "warn").lines().count(), 1);
        assert_eq!(written(LogFormat::Text, "off").lines().count(), 0);
        let requests_only = written(LogFormat::Text, "off,tapster::request=info");
        assert!(requests_only.lines().all(|line| line.contains("tapster::request")), "{requests_only}");
        assert_eq!(requests_only.lines().count(), 1);
    }

    #[test]
    fn bad_formats_and_levels_are_refused_with_what_to_give() {
        assert_eq!("JSON".parse::<LogFormat>(), Ok(LogFormat::Json));
        assert!("yaml".parse::<LogFormat>().unwrap_err().contains("text or json"));
        for bad in ["loud", "infoo", "warn,tapster::request=loud", "", "info,"] {
            assert!(bad.parse::<LogLevel>().unwrap_err().contains("is not a log level"), "{bad:?}");
        }
        for good in ["debug", "OFF", "warn,tapster::request=info", "tapster::request=info"] {
            assert!(good.parse::<LogLevel>().is_ok(), "{good:?}");
        }
    }
}
