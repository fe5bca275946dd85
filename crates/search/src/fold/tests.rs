//! Tests of name folding: what names fold to, which ones fold together and which stay apart, and the
//! properties that make folded queries safe to search with.

use proptest::prelude::*;

use unicode_normalization::char::is_public_assigned;

use super::{Letters, fold};

#[test]
fn folds_to_the_expected_text() {
    let cases = [
        // Accents, case, width, ligatures.
        ("Crème Brûlée", "creme brulee"),
        ("Straße", "strasse"),
        ("STRAẞE", "strasse"),
        ("ＡＬＥ", "ale"),
        ("Ｐｉｌｓ ２０２４", "pils 2024"),
        ("ﬁne ﬂower", "fine flower"),
        ("Señor Niño", "senor nino"),
        ("Ça Façon", "ca facon"),
        ("São João", "sao joao"),
        ("Kőrösi Über", "korosi uber"),
        ("Phở bò", "pho bo"),
        ("Żurek", "zurek"),
        ("Smørrebrød", "smorrebrod"),
        ("Łódź", "lodz"),
        ("Đồng", "dong"),
        ("Ærø Œuvre", "aero oeuvre"),
        ("Ħamrun", "hamrun"),
        // Turkish i, with and without dot, in either case.
        ("İzmir", "izmir"),
        ("IZMIR", "izmir"),
        ("ızmır", "izmir"),
        // Greek: accents and dialytika go, final sigma is sigma.
        ("Μέλι", "μελι"),
        ("ΜΈΛΙ", "μελι"),
        ("Ἀθῆναι", "αθηναι"),
        ("Ζύθος", "ζυθοσ"),
        ("ΪΫ ΐ", "ιυ ι"),
        // Cyrillic: ё is е, й stays й.
        ("Ёлка", "елка"),
        ("Мёд", "мед"),
        ("Йогурт", "йогурт"),
        ("Чай с мёдом, пожалуйста!", "чай с медом пожалуйста"),
        ("Ўзбек", "ўзбек"),
        // Kana: katakana, half-width katakana and hiragana fold to hiragana; ー stays.
        ("ビール", "びーる"),
        ("ﾋﾞｰﾙ", "びーる"),
        ("びーる", "びーる"),
        ("ﾊﾟﾝ", "ぱん"),
        ("ヴァイツェン", "ゔぁいつぇん"),
        ("ハチミツ酒", "はちみつ酒"),
        ("いすゞ", "いすゞ"),
        ("ヽヾ", "ゝゞ"),
        // Scripts without case pass through as written.
        ("맥주", "맥주"),
        ("蜂蜜酒", "蜂蜜酒"),
        ("เบียร์", "เบียร์"),
        ("น้ำผึ้ง", "น้ำผึ้ง"),
        ("बीयर", "बीयर"),
        // Separators: runs become one space, none at either end.
        ("Honey-Ale", "honey ale"),
        ("honey  ale", "honey ale"),
        ("  Honey Ale  ", "honey ale"),
        ("Bell's Two Hearted", "bell s two hearted"),
        ("Bell’s “Best”", "bell s best"),
        ("St. Bernardus, Abt 12", "st bernardus abt 12"),
        ("Honey·Ale", "honey ale"),
        ("ハチミツ・ビール", "はちみつ びーる"),
        ("ハチミツ\u{3000}ビール", "はちみつ びーる"),
        ("「生」ビール。", "生 びーる"),
        ("Pale\u{00A0}Ale\t\n", "pale ale"),
        ("...", ""),
        ("", ""),
        // Invisible format characters vanish without splitting the word.
        ("Hon\u{00AD}ey\u{200B}Ale\u{FEFF}", "honeyale"),
    ];
    for (text, expected) in cases {
        assert_eq!(fold(text), expected, "fold({text:?})");
    }
}

#[test]
fn folds_together() {
    let groups: &[&[&str]] = &[
        &["ビール", "ﾋﾞｰﾙ", "びーる", "ﾋﾞｰﾙ"],
        &["ハチミツ酒", "はちみつ酒", "ﾊﾁﾐﾂ酒"],
        &["İzmir", "IZMIR", "ızmır", "izmir", "Izmir"],
        &["Μέλι", "μελι", "ΜΕΛΙ", "μέλι"],
        &["Ёлка", "елка", "ЕЛКА", "ёлка"],
        &["Żurek", "zurek", "ŻUREK"],
        &["Smørrebrød", "smorrebrod", "SMØRREBRØD"],
        &["Phở bò", "pho bo", "PHỞ BÒ"],
        &["Straße", "strasse", "STRASSE", "STRAẞE"],
        &["Honey-Ale", "honey  ale", "Honey Ale", " honey·ale. ", "ＨＯＮＥＹ　ＡＬＥ"],
        // Precomposed and decomposed spellings of the same text.
        &["Crème", "Cre\u{0300}me"],
        &["ビール", "ヒ\u{3099}ール"],
        &["맥주", "\u{1106}\u{1162}\u{11A8}\u{110C}\u{116E}"],
    ];
    for group in groups {
        let first = fold(group[0]);
        for text in &group[1..] {
            assert_eq!(fold(text), first, "fold({text:?}) against fold({:?})", group[0]);
        }
    }
}

#[test]
fn keeps_apart_what_spelling_distinguishes() {
    let pairs = [
        // Dakuten and handakuten are spelling: beer is not heel, bread is not a seal.
        ("ビール", "ヒール"),
        ("ﾋﾞｰﾙ", "ﾋｰﾙ"),
        ("パン", "ハン"),
        ("パン", "バン"),
        // The Cyrillic short i is a letter of its own.
        ("бой", "бои"),
        ("ЙОГУРТ", "ИОГУРТ"),
        // Thai tone marks: pa (aunt) and pa (forest).
        ("ป้า", "ป่า"),
        // Hindi vowel signs.
        ("बीयर", "बयर"),
    ];
    for (one, other) in pairs {
        assert_ne!(fold(one), fold(other), "{one:?} and {other:?} must stay apart");
    }
}

#[test]
fn every_assigned_character_folds_stably() {
    let assigned = (0..=u32::from(char::MAX)).filter_map(char::from_u32).filter(|&c| is_public_assigned(c));
    for c in assigned {
        let folded = fold(c.encode_utf8(&mut [0; 4]));
        assert_folded_shape(&folded);
        assert_eq!(fold(&folded), folded, "fold is not idempotent on U+{:04X}", u32::from(c));
    }
}

#[test]
fn ascii_shortcut_agrees_with_the_full_rules() {
    for c in (0..=0x7F).map(char::from) {
        let (mut short, mut full) = (Letters::with_capacity(1), Letters::with_capacity(1));
        short.push_ascii(c);
        full.push(c.to_ascii_lowercase());
        assert_eq!((short.text, short.base), (full.text, full.base), "{c:?}");
    }
}

/// The shape every folded text has: composed (NFC), nothing left with a lower case of its own, and single
/// spaces only between words. (`char::is_uppercase` is not the test: it holds for a few symbols, such as the
/// negative circled `🅐`, that have no lower case to fold to.)
fn assert_folded_shape(folded: &str) {
    assert!(unicode_normalization::is_nfc(folded), "{folded:?} is not composed");
    for c in folded.chars() {
        assert!(c.to_lowercase().eq([c]), "{folded:?} has {c:?}, which has a lower case");
    }
    assert!(!folded.contains("  "), "{folded:?} has a double space");
    assert!(!folded.starts_with(' ') && !folded.ends_with(' '), "{folded:?} is not trimmed");
}

/// Characters where folding has rules, mixed into arbitrary text so that the rules meet each other:
/// marks with and without a base of each kind, kana and their voicing marks in every width, Hangul jamo,
/// the Cyrillic breve, Thai SARA AM and its parts, special letters, separators and invisible characters.
const RULED: &str = concat!(
    "AeIİıßẞΣςάøÆﬁ\u{0301}\u{0308}\u{0306}\u{0345}",
    "ийЁ",
    "カかｶﾞﾟ\u{3099}\u{309A}゛ーｰヽヾヷゟヿ",
    "\u{1100}\u{1161}\u{11A8}가ㄱㅏ",
    "ำํา่酒\u{16D63}\u{16D67}",
    " -・\u{3000}.\u{00AD}\u{200B}\u{200D}\u{FE0F}🅐Ⓐ",
);

fn text() -> impl Strategy<Value = String> {
    let c = prop_oneof![any::<char>(), proptest::sample::select(RULED.chars().collect::<Vec<_>>())];
    proptest::collection::vec(c, 0..16).prop_map(String::from_iter)
}

proptest! {
    #[test]
    fn folding_is_idempotent(text in text()) {
        let folded = fold(&text);
        prop_assert_eq!(fold(&folded), folded);
    }

    #[test]
    fn folded_text_has_no_upper_case_and_single_spaces(text in text()) {
        assert_folded_shape(&fold(&text));
    }

    /// Cutting a name at separators cuts its folded form at spaces: a query made of some of a name's
    /// words, separated as in the name, always matches the name.
    #[test]
    fn a_name_matches_any_run_of_its_words(
        words in proptest::collection::vec(
            (text(), proptest::sample::select(&[" ", "-", "・", "\u{3000}", ", ", "'", " - "][..])),
            1..6,
        ),
        from in any::<proptest::sample::Index>(),
        len in any::<proptest::sample::Index>(),
    ) {
        let name: String = words.iter().flat_map(|(word, separator)| [word.as_str(), separator]).collect();
        let from = from.index(words.len());
        let to = from + len.index(words.len() - from);
        let mut query = String::new();
        for (word, separator) in &words[from..to] {
            query.push_str(word);
            query.push_str(separator);
        }
        query.push_str(&words[to].0);
        let (name, query) = (fold(&name), fold(&query));
        prop_assert!(name.contains(&query), "{:?} does not contain {:?}", name, query);
    }
}
