//! Stop words: the articles, prepositions and elided forms that names are full of in some languages
//! (`Soupe à l'oignon`, `Pastel de nata`, `Ale of the North`) and that a player leaves out or puts in
//! another place. A query word that is one of them may match nothing, and they do not count when
//! words are said to be next to each other. Folded, as [`crate::fold`] leaves them: `l'oignon` folds
//! to `l oignon`, so an elision is a one-letter word.

/// The stop words of the language with this code (as the game spells it: `pt-BR`), folded; none for
/// a language whose names do not use them (Chinese, Japanese, Korean...).
pub fn stop_words(lang: &str) -> &'static [&'static str] {
    match lang {
        "en" => &["a", "an", "and", "for", "in", "of", "on", "the", "with"],
        "fr" => &["a", "au", "aux", "d", "de", "des", "du", "en", "et", "l", "la", "le", "les", "sur"],
        "es" => &["a", "al", "con", "de", "del", "el", "en", "la", "las", "los", "y"],
        "it" => &[
            "a", "al", "alla", "alle", "allo", "con", "d", "di", "del", "dei", "della", "delle", "dello",
            "e", "in", "l",
        ],
        "pt-BR" => &["a", "ao", "com", "da", "das", "de", "do", "dos", "e", "em", "na", "no", "o"],
        "ca" => &["a", "al", "amb", "d", "de", "del", "els", "i", "l", "la", "les", "el"],
        "ro" => &["cu", "de", "din", "la", "si"],
        "nl" => &["de", "en", "het", "met", "van"],
        "de" => &["am", "auf", "das", "der", "die", "im", "mit", "und", "vom", "von", "zum", "zur"],
        "sv" => &["av", "med", "och", "pa"],
        "da" => &["af", "med", "og", "pa"],
        "nb" => &["av", "med", "og", "pa"],
        "pl" => &["i", "w", "z", "ze"],
        "cs" => &["a", "s", "se", "v", "z", "ze"],
        "vi" => &["va", "voi"],
        _ => &[],
    }
}
