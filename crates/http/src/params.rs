//! Query parameters, parsed strictly and once: a parameter the endpoint does not take, a repeated
//! one, or a value outside its rule is a `422` naming it, so that a typo never passes silently.
//! Handlers only ever see typed values.

use std::borrow::Cow;

use tapster_domain::VersionSelector;
use tapster_i18n::Language;

use crate::error::{ApiError, InvalidParam};

/// The decoded query string of one request, checked against the parameters its endpoint takes.
#[derive(Debug)]
pub(crate) struct Query<'a> {
    pairs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

impl<'a> Query<'a> {
    /// Decodes `raw` and refuses every parameter not in `accepted` and every repeated one, all at once.
    pub(crate) fn parse(raw: Option<&'a str>, accepted: &[&str]) -> Result<Self, ApiError> {
        let pairs: Vec<_> = form_urlencoded::parse(raw.unwrap_or_default().as_bytes()).collect();
        let mut errors = Vec::new();
        for (i, (name, _)) in pairs.iter().enumerate() {
            if !accepted.contains(&name.as_ref()) {
                let takes = if accepted.is_empty() {
                    "this endpoint takes no parameters".to_owned()
                } else {
                    format!("this endpoint takes {}", accepted.join(", "))
                };
                errors.push(InvalidParam::new(
                    name.as_ref(),
                    format!("is not a parameter of this endpoint; {takes}"),
                ));
            } else if pairs[..i].iter().any(|(earlier, _)| earlier == name)
                && !errors.iter().any(|e| e.parameter == name.as_ref())
            {
                errors.push(InvalidParam::new(name.as_ref(), "is given more than once; give it once"));
            }
        }
        if errors.is_empty() { Ok(Self { pairs }) } else { Err(ApiError::Validation(errors)) }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_ref())
    }

    /// The value of `name` parsed by `parse`, or `default` when the request leaves it out.
    pub(crate) fn parse_or<T>(
        &self,
        name: &str,
        default: T,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Result<T, InvalidParam> {
        match self.get(name) {
            None => Ok(default),
            Some(value) => parse(value).map_err(|detail| InvalidParam::new(name, detail)),
        }
    }
}

/// `version`: `latest` (the default) or a game version name.
pub(crate) fn version(value: &str) -> Result<VersionSelector, String> {
    VersionSelector::parse(value).map_err(|e| format!("{e} (given {value:?})"))
}

/// `lang`: one of the game's language codes (English by default).
pub(crate) fn lang(value: &str) -> Result<Language, String> {
    Language::parse(value).map_err(|e| match e {
        tapster_i18n::Error::Unknown { .. } => format!(
            "{e} (given {value:?}); the languages are {}",
            Language::ALL.iter().map(|l| l.code()).collect::<Vec<_>>().join(", ")
        ),
        _ => format!("{e} (given {value:?})"),
    })
}

/// The two parameters every data endpoint takes.
#[derive(Debug)]
pub(crate) struct VersionLang {
    pub(crate) version: VersionSelector,
    pub(crate) lang: Language,
}

impl VersionLang {
    pub(crate) const NAMES: &'static [&'static str] = &["version", "lang"];

    pub(crate) fn from_query(query: &Query<'_>) -> Result<Self, ApiError> {
        let version = query.parse_or("version", VersionSelector::Latest, version);
        let lang = query.parse_or("lang", Language::SOURCE, lang);
        match (version, lang) {
            (Ok(version), Ok(lang)) => Ok(Self { version, lang }),
            (version, lang) => {
                Err(ApiError::Validation(version.err().into_iter().chain(lang.err()).collect()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(raw: &str, accepted: &[&str]) -> Vec<(String, String)> {
        match Query::parse(Some(raw), accepted) {
            Ok(_) => Vec::new(),
            Err(ApiError::Validation(errors)) => {
                errors.into_iter().map(|e| (e.parameter, e.detail)).collect()
            }
            Err(other) => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn unknown_and_repeated_parameters_are_refused_by_name() {
        assert!(errors("version=latest&lang=de", &["version", "lang"]).is_empty());
        assert!(errors("", &[]).is_empty());
        let got = errors("lang=de&lnag=fr&lang=es&lang=it", &["version", "lang"]);
        assert_eq!(got.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["lnag", "lang"]);
        assert!(got[0].1.contains("takes version, lang"), "{got:?}");
        assert!(got[1].1.contains("more than once"), "{got:?}");
        assert!(errors("x=1", &[])[0].1.contains("takes no parameters"));
    }

    #[test]
    fn values_are_percent_decoded() {
        let query = Query::parse(Some("lang=pt%2DBR&version=v0.6.4.2.1"), VersionLang::NAMES).unwrap();
        let parsed = VersionLang::from_query(&query).unwrap();
        assert_eq!(parsed.lang, Language::BrazilianPortuguese);
    }

    #[test]
    fn every_bad_value_is_reported_at_once() {
        let query = Query::parse(Some("lang=xx&version=1.0"), VersionLang::NAMES).unwrap();
        let Err(ApiError::Validation(errors)) = VersionLang::from_query(&query) else { panic!() };
        assert_eq!(errors.iter().map(|e| e.parameter.as_str()).collect::<Vec<_>>(), ["version", "lang"]);
    }
}
