//! What a player typing into a wiki's search box finds first, on the names of the bundled game version:
//! words in any order, a typo or two, the word being typed, stop words and elisions, kana and width,
//! and English names while browsing in another language. Each case is searched as `/v1/search` does it,
//! in its language and in English; plus the properties every name has: it finds itself first, its
//! words shuffled find it in the top three, and one typo in a word of four letters or more (that
//! leaves it four letters long at least) in the top five.

mod bundled;

use std::sync::OnceLock;

use bundled::{Corpus, Lcg, build, corpus};
use tapster_search::{Hit, Index, fold};

struct Bundled {
    corpus: Corpus,
    index: Index,
}

fn bundled() -> &'static Bundled {
    static BUNDLED: OnceLock<Bundled> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        let corpus = corpus();
        let index = build(&corpus);
        Bundled { corpus, index }
    })
}

impl Bundled {
    fn list(&self, code: &str) -> usize {
        self.corpus.languages.iter().position(|l| l == code).unwrap_or_else(|| panic!("no language {code}"))
    }

    /// The best `limit` hits for `query` in `code` and in English, as `/v1/search` asks for them.
    fn search(&self, query: &str, code: &str, limit: usize) -> Vec<Hit> {
        let lists = [self.list(code), self.list("en")];
        let lists = if code == "en" { &lists[..1] } else { &lists[..] };
        self.index.search(query, lists, |_| true, limit)
    }

    /// The name of `doc` in `code`, if it has one.
    fn name(&self, doc: u32, code: &str) -> Option<&str> {
        self.corpus.names[self.list(code)][doc as usize].as_deref()
    }

    /// Whether `hit` is a document named `name` in `code` or in English.
    fn is_named(&self, hit: &Hit, name: &str, code: &str) -> bool {
        [code, "en"].iter().any(|code| self.name(hit.doc, code) == Some(name))
    }
}

/// The query, the language searched, and the name (in that language or in English) that must come
/// first.
const CASES: &[(&str, &str, &str)] = &[
    // English: words in any order, swapped letters, a typo in each word, the word being typed.
    ("pale ale", "en", "Pale Ale"),
    ("ale pale", "en", "Pale Ale"),
    ("stew rabbit", "en", "Rabbit Stew"),
    ("soup onion", "en", "Onion Soup"),
    ("pael ale", "en", "Pale Ale"),
    ("rabit stew", "en", "Rabbit Stew"),
    ("rabbti setw", "en", "Rabbit Stew"),
    ("omelete mushrom", "en", "Mushroom Omelette"),
    ("pale a", "en", "Pale Ale"),
    ("rabbit st", "en", "Rabbit Stew"),
    ("herring pickled", "en", "Pickled Herring"),
    ("plum harvest", "en", "Plum Harvest Ale"),
    ("harvest ale plum", "en", "Plum Harvest Ale"),
    ("strawbery tart", "en", "Strawberry Tart"),
    ("double bed yew", "en", "Yew Double Bed"),
    // French: elisions and articles never stop a match.
    ("oignon soupe", "fr", "Soupe à l'oignon"),
    ("soupe a l'oignon", "fr", "Soupe à l'oignon"),
    ("soupe oignon", "fr", "Soupe à l'oignon"),
    ("poires tourte", "fr", "Tourte aux poires"),
    ("fromage pate dure", "fr", "Fromage à pâte dure"),
    ("saumon fume", "fr", "Saumon fumé"),
    ("malt amidonnier", "fr", "Malt d'amidonnier"),
    ("fauteuil noyer", "fr", "Fauteuil en noyer"),
    // German.
    ("lachs grill", "de", "Lachs vom Grill"),
    ("zwiebel gehackte", "de", "Gehackte Zwiebel"),
    ("susser teig", "de", "Süßer Teig"),
    ("flusskrebse sud", "de", "Flusskrebse im Sud"),
    // Spanish.
    ("calabaza sopa", "es", "Sopa de calabaza"),
    ("sopa cebolla", "es", "Sopa de cebolla"),
    ("mejillones vapor", "es", "Mejillones al vapor"),
    ("te negro", "es", "Té negro"),
    // Italian.
    ("pomodoro zuppa", "it", "Zuppa di pomodoro"),
    ("pane avena", "it", "Pane d'avena"),
    ("marmelata albicocche", "it", "Marmellata di albicocche"),
    // Brazilian Portuguese.
    ("cedro cadeira", "pt-BR", "Cadeira de cedro"),
    ("groselha preta vinho", "pt-BR", "Vinho de groselha-preta"),
    ("malte ambar", "pt-BR", "Malte âmbar"),
    // Japanese: the other kana script, half-width, parts of names without spaces.
    ("ぽてとすーぷ", "ja", "ポテトスープ"),
    ("ﾎﾟﾃﾄｽｰﾌﾟ", "ja", "ポテトスープ"),
    ("いちごのたると", "ja", "イチゴのタルト"),
    ("ごーるでんらがー へざー", "ja", "ヘザー・ゴールデンラガー"),
    // Chinese.
    ("琥珀艾尔", "zh-CN", "琥珀艾尔"),
    ("小麦啤酒 帚石南", "zh-CN", "帚石南小麦啤酒"),
    // Russian and Polish.
    ("форель копченая", "ru", "Копчёная форель"),
    ("суп свекольный", "ru", "Свекольный суп"),
    ("dorsz wedzony", "pl", "Wędzony dorsz"),
    ("slod zytni", "pl", "Słód żytni"),
    // Korean.
    ("구이 연어", "ko", "연어 구이"),
    // The English name while browsing in another language.
    ("rabbit stew", "de", "Rabbit Stew"),
    ("onion soup", "fr", "Onion Soup"),
    ("pale ale", "ja", "Pale Ale"),
];

/// Fails naming each case whose query does not find the name it must first.
fn assert_first(cases: &[(&str, &str, &str)]) {
    let bundled = bundled();
    let mut wrong = Vec::new();
    for &(query, code, expected) in cases {
        let hits = bundled.search(query, code, 20);
        match hits.first() {
            Some(first) if bundled.is_named(first, expected, code) => {}
            first => wrong.push(format!(
                "{query:?} in {code}: {:?} first, not {expected:?}",
                first.and_then(|hit| bundled.name(hit.doc, code).or(bundled.name(hit.doc, "en")))
            )),
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

#[test]
fn what_players_type_finds_what_they_mean_first() {
    assert_first(CASES);
    let languages: std::collections::HashSet<&str> = CASES.iter().map(|(_, code, _)| *code).collect();
    assert!(CASES.len() >= 40 && languages.len() >= 8);
}

/// Words typed joined that a name has apart, and words typed apart that a name has as one (the
/// compounds of German, Dutch and the Nordic languages), and the name that must come first.
const JOINED_OR_APART: &[(&str, &str, &str)] = &[
    // A space left out, also in the word being typed.
    ("paleale", "en", "Pale Ale"),
    ("rabbitstew", "en", "Rabbit Stew"),
    ("blackberrypie", "en", "Blackberry Pie"),
    ("onionsou", "en", "Onion Soup"),
    ("saumonfume", "fr", "Saumon fumé"),
    ("sopacalabaza", "es", "Sopa de calabaza"),
    // A compound typed as two words, with a typo in one of them.
    ("bernstein malz", "de", "Bernsteinmalz"),
    ("erbsen suppe", "de", "Erbsensuppe"),
    ("bernstien malz", "de", "Bernsteinmalz"),
    ("brandnetel porter", "nl", "Brandnetelporter"),
    ("amber mout", "nl", "Ambermout"),
    ("havre stout", "sv", "Havrestout"),
    ("kanin gryta", "sv", "Kaningryta"),
    ("honning ale", "da", "Honningale"),
];

#[test]
fn words_typed_joined_or_apart_find_the_name() {
    assert_first(JOINED_OR_APART);
}

#[test]
fn an_equal_match_in_the_requested_language_ranks_before_the_english_one() {
    let bundled = bundled();
    // `Brown Ale` is `Brown Ale` in German too: found in German first.
    let hits = bundled.search("brown ale", "de", 5);
    assert_eq!(hits[0].list, 0, "{hits:?}");
}

/// Each name of a language with its documents, deduplicated: names several documents share find
/// one of them.
fn names(code: &str) -> Vec<&'static str> {
    let bundled = bundled();
    let mut names: Vec<&str> =
        bundled.corpus.names[bundled.list(code)].iter().flatten().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// Where among the hits of `query` a document named `name` comes, if it does.
fn place(query: &str, code: &str, name: &str, limit: usize) -> Option<usize> {
    let bundled = bundled();
    bundled.search(query, code, limit).iter().position(|hit| bundled.is_named(hit, name, code))
}

#[test]
fn every_name_finds_itself_first() {
    let bundled = bundled();
    for code in ["en", "fr", "de", "ja", "zh-CN", "ru", "th", "ko"] {
        // Itself, or a name that folds the same (`Poiré` and `Poire` are one query).
        let first_folds_the_same = |name: &&str| {
            bundled.search(name, code, 1).first().is_some_and(|hit| {
                [code, "en"].iter().any(|code| bundled.name(hit.doc, code).map(fold) == Some(fold(name)))
            })
        };
        let lost: Vec<&str> = names(code).into_iter().filter(|name| !first_folds_the_same(name)).collect();
        assert!(lost.is_empty(), "{code}: {lost:?}");
    }
}

#[test]
fn a_name_with_its_words_shuffled_is_in_the_top_three() {
    let mut rng = Lcg(11);
    for code in ["en", "fr", "es", "de", "ru", "pl"] {
        let mut lost = Vec::new();
        for name in names(code) {
            let folded = fold(name);
            let mut words: Vec<&str> = folded.split(' ').collect();
            if words.len() < 2 {
                continue;
            }
            // Turned around: a shuffle that always moves something.
            let by = 1 + rng.below(words.len() - 1);
            words.rotate_left(by);
            let query = words.join(" ");
            if place(&query, code, name, 3).is_none() {
                lost.push(format!("{query:?} for {name:?}"));
            }
        }
        assert!(lost.is_empty(), "{code}: {lost:?}");
    }
}

#[test]
fn one_typo_in_a_word_of_four_letters_or_more_is_in_the_top_five() {
    let mut rng = Lcg(5);
    for code in ["en", "fr", "es", "de", "it", "ru"] {
        let mut lost = Vec::new();
        let mut exempt = 0;
        for name in names(code) {
            let folded = fold(name);
            let mut words: Vec<Vec<char>> = folded.split(' ').map(|w| w.chars().collect()).collect();
            let long: Vec<usize> = (0..words.len()).filter(|&i| words[i].len() >= 4).collect();
            if long.is_empty() {
                continue;
            }
            let word = &mut words[long[rng.below(long.len())]];
            let at = rng.below(word.len() - 1);
            // A letter left out only of a word that keeps four: a three-letter word has no typo.
            match rng.below(4) {
                0 => word[at] = if word[at] == 'x' { 'q' } else { 'x' },
                1 if word.len() > 4 => {
                    word.remove(at);
                }
                1 | 2 => word.insert(at, 'x'),
                _ => word.swap(at, at + 1),
            }
            let query = words.iter().map(|w| w.iter().collect::<String>()).collect::<Vec<_>>().join(" ");
            if place(&query, code, name, 5).is_some() {
                continue;
            }
            // Unless the typo made text that five other names hold as it is (`eria` for `Erica`, inside
            // Italian's many `-eria` words): matches without a typo rightly come first.
            let hits = bundled().search(&query, code, 5);
            if hits.len() == 5 && hits.iter().all(|hit| hit.typos == 0) {
                exempt += 1;
            } else {
                lost.push(format!("{query:?} for {name:?}"));
            }
        }
        assert!(lost.is_empty(), "{code}: {} lost: {lost:?}", lost.len());
        assert!(exempt * 100 <= names(code).len(), "{code}: {exempt} typos made other names' text");
    }
}
