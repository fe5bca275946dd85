//! Name folding: the one text rule that makes matching accent-, case-, width- and kana-insensitive.
//!
//! Names and queries both go through [`fold`], and a query matches a name when the folded query is a
//! substring of the folded name. The steps, applied to each character in turn:
//!
//! 1. compatibility decomposition (NFKD): full-width and half-width forms, ligatures and precomposed
//!    letters become their plain parts, so `ｶﾞ` is `カ` + dakuten and `é` is `e` + acute;
//! 2. lower case;
//! 3. combining marks are dropped where they are accents and kept where they are spelling: dropped after
//!    Latin and Greek letters, dropped after Cyrillic ones except the breve of `й` and `ў`, kept after
//!    every other script (kana dakuten, Thai vowels and tones, Devanagari vowel signs...);
//! 4. the few Latin letters that carry their stroke inside the code point (`ø`, `ł`, `đ`, ...) lose it,
//!    `ß`, `æ`, `œ` are spelled out, `ı` becomes `i` and final `ς` becomes `σ`;
//! 5. katakana become hiragana;
//! 6. whitespace and punctuation become a space, and invisible format characters vanish.
//!
//! Then the text is recomposed (NFC), which puts kana dakuten and Hangul syllables back together, and runs
//! of spaces collapse to one, with none at either end.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Folds `text` into the form in which names and queries are compared.
///
/// A person would say that a query matches a name when `fold(name).contains(&fold(query))`:
/// case, accents, character width and the choice between hiragana and katakana do not matter, and
/// punctuation only separates words. Folding is idempotent.
///
/// ```
/// use tapster_search::fold;
///
/// assert_eq!(fold("Crème Brûlée"), "creme brulee");
/// assert_eq!(fold("Honey-Ale"), fold("honey  ale"));
/// assert_eq!(fold("ﾋﾞｰﾙ"), fold("ビール"));
/// assert_ne!(fold("ビール"), fold("ヒール"));
/// ```
pub fn fold(text: &str) -> String {
    let mut letters = Letters::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            // Mostly-Latin names are mostly ASCII, whose rule is simple.
            letters.push_ascii(c);
        } else if keeps_compatibility_form(c) {
            letters.push(c);
        } else {
            decompose_compatible(c, |part| part.to_lowercase().for_each(|lower| letters.push(lower)));
        }
    }
    let mut folded = String::with_capacity(letters.text.len());
    if letters.may_compose {
        push_collapsed(&mut folded, letters.text.nfc());
    } else {
        push_collapsed(&mut folded, letters.text.chars());
    }
    folded
}

/// Decomposed, lower-cased text on its way to being folded.
#[derive(Debug)]
struct Letters {
    text: String,
    /// What the last letter pushed says about the combining marks that follow it.
    base: Base,
    /// Whether `text` may change under NFC: set by a kept mark or a letter of another script than Latin,
    /// Greek and Cyrillic. Without marks, only Hangul jamo and Kirat Rai vowel signs compose with the
    /// letter before them, so most Latin names skip recomposition, which costs as much as the rest.
    may_compose: bool,
}

/// The script of the letter that combining marks attach to, as far as keeping them goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    /// Latin or Greek, or no letter at all (start of text, a separator): marks are accents, dropped.
    Accented,
    /// Cyrillic: marks are dropped (`ё` is `е`) except the breve, which makes `й` a letter of its own.
    Cyrillic,
    /// Any other script: marks are part of the spelling (kana dakuten, Thai vowels and tones), kept.
    Spelled,
}

const COMBINING_BREVE: char = '\u{0306}';

impl Letters {
    fn with_capacity(capacity: usize) -> Letters {
        Letters { text: String::with_capacity(capacity), base: Base::Accented, may_compose: false }
    }

    /// The same as [`Letters::push`] for an ASCII character, without the table lookups.
    fn push_ascii(&mut self, c: char) {
        self.text.push(fold_ascii(c));
        self.base = Base::Accented;
    }

    /// Pushes one character of decomposed, lower-cased text.
    fn push(&mut self, c: char) {
        if is_invisible(c) {
            return;
        }
        if is_combining_mark(c) {
            let keep = match self.base {
                Base::Accented => false,
                Base::Cyrillic => c == COMBINING_BREVE,
                Base::Spelled => true,
            };
            if keep {
                self.text.push(c);
                self.may_compose = true;
            }
            return;
        }
        if is_separator(c) {
            self.text.push(' ');
            self.base = Base::Accented;
            return;
        }
        self.base = Base::of(c);
        self.may_compose |= self.base == Base::Spelled;
        match c {
            'ß' => self.text.push_str("ss"),
            'æ' => self.text.push_str("ae"),
            'œ' => self.text.push_str("oe"),
            'ø' => self.text.push('o'),
            'ł' => self.text.push('l'),
            'đ' => self.text.push('d'),
            'ħ' => self.text.push('h'),
            'ŧ' => self.text.push('t'),
            'ı' => self.text.push('i'),
            'ς' => self.text.push('σ'),
            _ => self.text.push(to_hiragana(c)),
        }
    }
}

impl Base {
    fn of(letter: char) -> Base {
        match letter {
            // Basic Latin to Greek and Coptic, Phonetic Extensions to Greek Extended, Latin Extended-C,
            // -D and -E.
            '\0'..='\u{03FF}'
            | '\u{1D00}'..='\u{1FFF}'
            | '\u{2C60}'..='\u{2C7F}'
            | '\u{A720}'..='\u{A7FF}'
            | '\u{AB30}'..='\u{AB6F}' => Base::Accented,
            // Cyrillic, Cyrillic Supplement, Extended-C and Extended-B.
            '\u{0400}'..='\u{052F}' | '\u{1C80}'..='\u{1C8F}' | '\u{A640}'..='\u{A69F}' => Base::Cyrillic,
            _ => Base::Spelled,
        }
    }
}

/// The whole folding rule for an ASCII character: letters and digits in lower case, anything else
/// (punctuation, symbols, whitespace, controls) separates words.
fn fold_ascii(c: char) -> char {
    if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { ' ' }
}

/// Katakana to the hiragana 0x60 code points below; everything else, including the long-vowel mark
/// `ー` (which both scripts use), unchanged. Voiced kana arrive decomposed, so the base letters suffice.
fn to_hiragana(c: char) -> char {
    match c {
        // ァ..ヶ are ぁ..ゖ, and the iteration marks ヽヾ are ゝゞ.
        'ァ'..='ヶ' | 'ヽ'..='ヾ' => char::from_u32(c as u32 - 0x60).unwrap_or(c),
        _ => c,
    }
}

/// Thai and Lao SARA AM have a compatibility decomposition (nikhahit + sara aa) that nobody types:
/// keeping them whole keeps Thai and Lao text as written.
fn keeps_compatibility_form(c: char) -> bool {
    matches!(c, '\u{0E33}' | '\u{0EB3}')
}

/// Characters that only separate words. Full-width and half-width forms, and most of the ones that
/// look like others (`‥`, `︰`), are decomposed to these before the question is asked.
fn is_separator(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || c.is_ascii_punctuation()
        || matches!(c,
            // ¡ § « ¶ · » ¿
            '\u{00A1}' | '\u{00A7}' | '\u{00AB}' | '\u{00B6}' | '\u{00B7}' | '\u{00BB}' | '\u{00BF}'
            // General Punctuation: dashes, quotes, bullets, ellipsis; then per mille to the end of the
            // punctuation proper, before the invisible operators.
            | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205E}'
            // CJK: 、。〃, brackets 〈〉《》「」『』【】〔〕〖〗〘〙〚〛, wave dash and quotes 〜〝〞〟.
            | '\u{3001}'..='\u{3003}' | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301F}'
            // Katakana-hiragana double hyphen ゠ and middle dot ・.
            | '\u{30A0}' | '\u{30FB}'
        )
}

/// Format characters that change nothing a reader sees: soft hyphen, zero-width space and joiners,
/// direction marks and isolates, word joiner, byte order mark.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}'
    )
}

/// Appends `chars` to the empty `folded`, with each run of spaces made one and none at either end.
fn push_collapsed(folded: &mut String, chars: impl Iterator<Item = char>) {
    let mut space_pending = false;
    for c in chars {
        if c == ' ' {
            space_pending = true;
        } else {
            if space_pending && !folded.is_empty() {
                folded.push(' ');
            }
            space_pending = false;
            folded.push(c);
        }
    }
}

#[cfg(test)]
mod tests;
