//! Choosing a text in the requested language, or in English when the translation is missing.

use crate::Language;

/// A text as served: the words, and the language they are actually in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translated<'a> {
    pub text: &'a str,
    pub language: Language,
}

impl Translated<'_> {
    /// Whether the text stands in for a translation that `requested` lacks.
    pub fn fell_back(&self, requested: Language) -> bool {
        self.language != requested
    }
}

/// Looks a text up in `requested`, then in English. `lookup` gives the text of one language, if it
/// has one; an empty text counts as missing, the way extraction tools leave untranslated cells.
pub fn translate<'a>(
    requested: Language,
    mut lookup: impl FnMut(Language) -> Option<&'a str>,
) -> Option<Translated<'a>> {
    let mut find =
        |language| lookup(language).filter(|t| !t.is_empty()).map(|text| Translated { text, language });
    find(requested).or_else(|| if requested == Language::SOURCE { None } else { find(Language::SOURCE) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(language: Language) -> Option<&'static str> {
        match language {
            Language::English => Some("Honey Ale"),
            Language::German => Some("Honigbier"),
            Language::French => Some(""),
            _ => None,
        }
    }

    #[test]
    fn falls_back_to_english_and_says_so() {
        let cases = [
            (Language::German, "Honigbier", Language::German),
            (Language::English, "Honey Ale", Language::English),
            (Language::French, "Honey Ale", Language::English),
            (Language::Japanese, "Honey Ale", Language::English),
        ];
        for (requested, text, language) in cases {
            let got = translate(requested, table).unwrap();
            assert_eq!((got.text, got.language), (text, language), "{requested}");
            assert_eq!(got.fell_back(requested), language != requested);
        }
    }

    #[test]
    fn a_text_missing_in_english_too_is_missing() {
        assert_eq!(translate(Language::German, |_| None), None);
        assert_eq!(translate(Language::English, |_| Some("")), None);
    }
}
