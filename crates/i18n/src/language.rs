//! The languages the game is translated into, with their codes and names.

use std::fmt;

use crate::{Error, Result};

macro_rules! languages {
    ($($variant:ident = $code:literal, $english:literal, $native:literal;)+) => {
        /// A language the game ships in.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Language {
            $($variant),+
        }

        impl Language {
            /// Every language, English first, in the order the game lists them.
            pub const ALL: &'static [Language] = &[$(Language::$variant),+];

            /// The codes of [`Self::ALL`], in the same order.
            pub const CODES: &'static [&'static str] = &[$($code),+];

            /// The code callers use (`en`, `pt-BR`, `zh-TW`).
            pub fn code(self) -> &'static str {
                match self {
                    $(Language::$variant => $code),+
                }
            }

            /// The language's name in English.
            pub fn english_name(self) -> &'static str {
                match self {
                    $(Language::$variant => $english),+
                }
            }

            /// The language's name in itself.
            pub fn native_name(self) -> &'static str {
                match self {
                    $(Language::$variant => $native),+
                }
            }
        }
    };
}

languages! {
    English = "en", "English", "English";
    German = "de", "German", "Deutsch";
    French = "fr", "French", "Français";
    Spanish = "es", "Spanish", "Español";
    Italian = "it", "Italian", "Italiano";
    BrazilianPortuguese = "pt-BR", "Portuguese (Brazil)", "Português (Brasil)";
    Russian = "ru", "Russian", "Русский";
    Polish = "pl", "Polish", "Polski";
    Turkish = "tr", "Turkish", "Türkçe";
    Ukrainian = "uk", "Ukrainian", "Українська";
    Dutch = "nl", "Dutch", "Nederlands";
    Swedish = "sv", "Swedish", "Svenska";
    Danish = "da", "Danish", "Dansk";
    Finnish = "fi", "Finnish", "Suomi";
    NorwegianBokmal = "nb", "Norwegian Bokmål", "Norsk bokmål";
    Czech = "cs", "Czech", "Čeština";
    Hungarian = "hu", "Hungarian", "Magyar";
    Romanian = "ro", "Romanian", "Română";
    Bulgarian = "bg", "Bulgarian", "Български";
    Greek = "el", "Greek", "Ελληνικά";
    Japanese = "ja", "Japanese", "日本語";
    Korean = "ko", "Korean", "한국어";
    SimplifiedChinese = "zh-CN", "Chinese (Simplified)", "简体中文";
    TraditionalChinese = "zh-TW", "Chinese (Traditional)", "繁體中文";
    Thai = "th", "Thai", "ไทย";
    Vietnamese = "vi", "Vietnamese", "Tiếng Việt";
    Catalan = "ca", "Catalan", "Català";
}

impl Language {
    /// The language's position in [`Language::ALL`], for tables indexed by language.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The language every text exists in, and the one missing translations fall back to.
    pub const SOURCE: Language = Language::English;

    pub const MAX_LEN: usize = 16;
    pub const PATTERN: &'static str = "^[A-Za-z]{2,3}(-[A-Za-z]{2,4})?$";

    /// Parses a language code. As BCP 47 says, letter case does not matter (`pt-br` is `pt-BR`); the
    /// language's [`code`](Language::code) is its canonical spelling. A well-formed code the game does
    /// not ship is refused, with the game's code for the same language suggested when it has one
    /// (`pt` or `pt-PT`: `pt-BR`).
    pub fn parse(code: &str) -> Result<Self> {
        if code.len() > Self::MAX_LEN {
            return Err(Error::TooLong { max: Self::MAX_LEN });
        }
        if !well_formed(code) {
            return Err(Error::Pattern { pattern: Self::PATTERN });
        }
        if let Some(&language) = Self::ALL.iter().find(|l| l.code().eq_ignore_ascii_case(code)) {
            return Ok(language);
        }
        let primary = |code: &str| code.split('-').next().unwrap_or_default().to_ascii_lowercase();
        let suggestion = Self::ALL.iter().find(|l| primary(l.code()) == primary(code)).map(|l| l.code());
        Err(Error::Unknown { suggestion })
    }
}

fn well_formed(code: &str) -> bool {
    let (primary, region) = match code.split_once('-') {
        Some((primary, region)) => (primary, Some(region)),
        None => (code, None),
    };
    let letters = |s: &str, range: std::ops::RangeInclusive<usize>| {
        range.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphabetic())
    };
    letters(primary, 2..=3) && region.is_none_or(|r| letters(r, 2..=4))
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_ships_27_languages_with_distinct_codes() {
        assert_eq!(Language::ALL.len(), 27);
        let codes: std::collections::HashSet<_> = Language::ALL.iter().map(|l| l.code()).collect();
        assert_eq!(codes.len(), 27);
        assert_eq!(Language::ALL[0], Language::SOURCE);
        for (i, language) in Language::ALL.iter().enumerate() {
            assert_eq!(Language::parse(language.code()), Ok(*language));
            assert_eq!(language.index(), i);
        }
    }

    #[test]
    fn codes_are_matched_whatever_their_case_and_unknown_ones_get_the_same_language_suggested() {
        let cases: &[(&str, Result<Language>)] = &[
            ("de", Ok(Language::German)),
            ("pt-BR", Ok(Language::BrazilianPortuguese)),
            ("zh-TW", Ok(Language::TraditionalChinese)),
            ("pt-br", Ok(Language::BrazilianPortuguese)),
            ("PT-BR", Ok(Language::BrazilianPortuguese)),
            ("DE", Ok(Language::German)),
            ("zh-tw", Ok(Language::TraditionalChinese)),
            ("pt", Err(Error::Unknown { suggestion: Some("pt-BR") })),
            ("pt-PT", Err(Error::Unknown { suggestion: Some("pt-BR") })),
            ("zh", Err(Error::Unknown { suggestion: Some("zh-CN") })),
            ("en-GB", Err(Error::Unknown { suggestion: Some("en") })),
            ("NO", Err(Error::Unknown { suggestion: None })),
            ("xx", Err(Error::Unknown { suggestion: None })),
            ("e", Err(Error::Pattern { pattern: Language::PATTERN })),
            ("en_US", Err(Error::Pattern { pattern: Language::PATTERN })),
            ("en-", Err(Error::Pattern { pattern: Language::PATTERN })),
            ("en-USAAA", Err(Error::Pattern { pattern: Language::PATTERN })),
            ("", Err(Error::Pattern { pattern: Language::PATTERN })),
            ("abcdefgh-ijklmnopq", Err(Error::TooLong { max: 16 })),
        ];
        for (code, expected) in cases {
            assert_eq!(&Language::parse(code), expected, "{code:?}");
        }
    }
}
