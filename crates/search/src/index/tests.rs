//! Tests of the name index: what a query finds, in what order, which typos it forgives, and the
//! properties that make every name findable by itself and by any part of it.

use proptest::prelude::*;

use super::*;
use crate::MIN_TYPO_WORD_CHARS;

/// An index of one list holding `names`, document `i` being `names[i]`.
fn index(names: &[&str]) -> Index {
    let mut builder = Index::builder();
    for (doc, name) in names.iter().enumerate() {
        builder.add(0, doc as u32, name);
    }
    builder.build()
}

/// The names `query` finds among `names`, best first.
fn found<'a>(names: &[&'a str], query: &str) -> Vec<&'a str> {
    index(names).search(query, &[0], |_| true, 50).iter().map(|h| names[h.doc as usize]).collect()
}

#[test]
fn finds_names_whatever_their_accents_case_width_or_kana() {
    let cases = [
        ("Crème Brûlée", "creme brulee"),
        ("Crème Brûlée", "CRÈME"),
        ("Crème Brûlée", "brul"),
        ("Färberwaid", "farber"),
        ("Hähnchen", "hahnchen"),
        ("Straßenbier", "strassen"),
        ("Smørrebrød", "smorre"),
        ("Honey-Ale", "honey ale"),
        ("Honey Ale", "honey-ale"),
        ("Μέλι", "μελι"),
        ("Мёд", "мед"),
        ("ブライトリーフ・ホップ", "ほっぷ"),
        ("ブライトリーフ・ホップ", "ﾎｯﾌﾟ"),
        ("はちみつ酒", "ハチミツ"),
        ("エンマー小麦", "小麦"),
        ("蜂蜜啤酒", "啤酒"),
        ("蜂蜜啤酒", "蜜啤"),
        ("ฮอปส์ไบรต์ลีฟ", "ไบรต์"),
        ("ข้าวโพด", "โพด"),
        ("맥주", "맥주"),
    ];
    for (name, query) in cases {
        assert_eq!(found(&[name, "Other"], query), [name], "{query:?} in {name:?}");
    }
}

#[test]
fn does_not_find_what_only_looks_alike() {
    let cases = [
        ("ビール", "ひーる"),     // dakuten is spelling
        ("ป้า", "ป่า"),             // Thai tone marks
        ("Honey Ale", "honyale"), // a missing space and a missing letter: two edits
        ("Rye", "rey"),
        ("Barley", "ab"),
        ("Barley", "!!"),
    ];
    for (name, query) in cases {
        assert_eq!(found(&[name], query), Vec::<&str>::new(), "{query:?} in {name:?}");
    }
}

#[test]
fn ranks_whole_then_prefix_then_word_prefix_then_substring_then_typo() {
    let names = ["Dark Ale", "Pale Ale", "Ale Cask", "Ale", "Stale Bread", "Alex"];
    assert_eq!(found(&names, "ale"), ["Ale", "Alex", "Ale Cask", "Dark Ale", "Pale Ale", "Stale Bread"]);
    let names = ["Wheat Beer", "Buckwheat", "Wheat", "Wheats", "Whaet"];
    // `wheat` whole, prefix, word prefix, substring, and last `whaet`, a swap of neighbours: one typo.
    assert_eq!(found(&names, "wheat"), ["Wheat", "Wheats", "Wheat Beer", "Buckwheat", "Whaet"]);
    let names = ["Bakery Bun", "Bread", "Baker", "Bakers Dozen"];
    // `bakr` is too short to forgive; `bakery` finds `Bakery Bun` exactly, `Baker`/`Bakers` with one edit.
    assert_eq!(found(&names, "bakery"), ["Bakery Bun", "Baker", "Bakers Dozen"]);
}

#[test]
fn ties_break_by_shorter_name_then_document() {
    let names = ["Rye Ale", "Oat Ale", "Ale of Rye", "Ale"];
    assert_eq!(found(&names, "ale"), ["Ale", "Ale of Rye", "Rye Ale", "Oat Ale"]);
    let hits = index(&["Rye Ale", "Oat Ale"]).search("ale", &[0], |_| true, 10);
    assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>(), [0, 1], "same tier and length: by document");
}

#[test]
fn each_query_word_has_its_own_typo_budget_by_its_length() {
    let cases: &[(&str, &str, bool)] = &[
        // Four to seven letters: one letter inserted, left out, replaced, or two neighbours swapped.
        ("Bakery", "bakry", true),
        ("Bakery", "bakeery", true),
        ("Bakery", "bakary", true),
        ("Bakery", "bakrey", true),
        ("Bakery", "bkary", false), // two typos in five letters
        ("Bread", "bred", true),
        ("Bread", "brad", true),
        ("Mead", "maed", true),
        ("Sourdough Bread", "sourdough braed", true),
        ("Sourdough Bread", "sourdugh braed", true), // one in each word
        ("Sourdough Bread", "sordugh", false),       // two typos in seven letters
        ("Wheat Beer", "whaet beer", true),
        ("Honey Ale", "honeey ale", true),
        ("Honey Ale", "honey ael", false), // three letters never have a typo
        ("Rye Ale", "rey ale", false),
        ("Pumpkin Soup", "pumpkn soup", true),
        ("Pumpkin Soup", "pumpkin sop", false),
        // Eight letters or more: two typos.
        ("Brightleaf Hops", "brihgtleaf", true),
        ("Brightleaf Hops", "brihgtlaef", true),
        ("Brightleaf Hops", "bihgtlaef", false), // three
        ("Sourdough Bread", "suordogh", true),
        // A space left out is not a typo: it is words typed joined, whose halves are words of a name
        // as they are.
        ("Honey Ale", "honeyale", true),
        ("Honey Ale", "honeyael", false),
        // Kana and CJK count characters.
        ("ブライトリーフ", "ぶらいとりふ", true),
        ("ブライトリーフ", "ぶらいと", true),
        ("ブライトリーフ", "ぶらいとりーぷ", true),
        // One Chinese character for another is another word.
        ("蜂蜜啤酒", "蜂x啤酒", false),
        ("蜂蜜啤酒", "蜂蜜啤", true),
    ];
    for &(name, query, expected) in cases {
        let hits = index(&[name]).search(query, &[0], |_| true, 10);
        assert_eq!(!hits.is_empty(), expected, "{query:?} in {name:?}: {hits:?}");
    }
}

#[test]
fn typos_rank_below_every_exact_match_and_are_tried_only_to_fill_the_page() {
    let names = ["Bakery Bun", "Baker", "Bakers Dozen", "Old Bakery"];
    let hits = index(&names).search("bakery", &[0], |_| true, 10);
    let tiers: Vec<Tier> = hits.iter().map(|h| h.tier).collect();
    assert_eq!(tiers, [Tier::Prefix, Tier::WordPrefix, Tier::Typo, Tier::Typo]);
    let full_page = index(&names).search("bakery", &[0], |_| true, 2);
    assert!(full_page.iter().all(|h| h.tier != Tier::Typo), "{full_page:?}");
}

#[test]
fn each_document_comes_once_with_its_best_match_over_the_lists() {
    let mut builder = Index::builder();
    builder.add(0, 1, "Honigbier");
    builder.add(1, 1, "Honey Beer");
    builder.add(0, 2, "Bierkrug");
    builder.add(1, 2, "Beer Mug");
    builder.add(1, 3, "Honey");
    let index = builder.build();
    let hits = index.search("honey", &[0, 1], |_| true, 10);
    assert_eq!(
        hits.iter().map(|h| (h.doc, h.list, h.tier)).collect::<Vec<_>>(),
        [(3, 1, Tier::Whole), (1, 1, Tier::Prefix)]
    );
    // The best match of document 1 is in the first list (`bier` starts `Bierkrug`, and is inside
    // `Honigbier`), of document 2 in the first list too.
    let hits = index.search("bier", &[0, 1], |_| true, 10);
    assert_eq!(
        hits.iter().map(|h| (h.doc, h.list, h.tier)).collect::<Vec<_>>(),
        [(2, 0, Tier::Prefix), (1, 0, Tier::Substring)]
    );
    // `keep` leaves documents out before ranking; unknown lists hold nothing.
    assert_eq!(index.search("honey", &[0, 1], |doc| doc != 3, 10).len(), 1);
    assert!(index.search("honey", &[7], |_| true, 10).is_empty());
    assert!(index.search("honey", &[1], |_| true, 0).is_empty());
}

#[test]
fn words_are_found_in_any_order_and_rank_by_whole_words_then_closeness() {
    let names = ["Stewed Rabbit", "Rabbit Stew", "Rabbit and Carrot Stew", "Pale Ale", "Ale"];
    // Both words whole beats `stew` only starting `Stewed`; among those, next to each other first.
    assert_eq!(found(&names, "stew rabbit"), ["Rabbit Stew", "Rabbit and Carrot Stew", "Stewed Rabbit"]);
    // Last, `stew` may be a word still being typed: `Stewed` then counts as whole, and the shorter
    // name comes first.
    assert_eq!(found(&names, "rabbit stew"), ["Rabbit Stew", "Stewed Rabbit", "Rabbit and Carrot Stew"]);
    let hits = index(&names).search("ale pale", &[0], |_| true, 10);
    assert_eq!((hits[0].doc, hits[0].tier), (3, Tier::Words));
    // The last word is the one being typed: its start counts as whole.
    assert_eq!(found(&names, "pale a"), ["Pale Ale"]);
    // Every word must be found.
    assert!(found(&names, "rabbit soup").is_empty());
}

#[test]
fn stop_words_may_be_missing_and_do_not_keep_words_apart() {
    let mut builder = Index::builder();
    builder.stop_words(0, crate::stop_words("fr"));
    for (doc, name) in ["Soupe à l'oignon", "Oignons au vinaigre", "Soupe de poisson"].iter().enumerate() {
        builder.add(0, doc as u32, name);
    }
    let index = builder.build();
    let first = |query: &str| index.search(query, &[0], |_| true, 10).first().map(|hit| hit.doc);
    assert_eq!(first("oignon soupe"), Some(0));
    assert_eq!(first("soupe de l'oignon"), Some(0), "`de` is nowhere in the name, and may not be");
    assert_eq!(first("soupe a oignon"), Some(0));
    // `à l'` between them keeps no words apart: `soupe oignon` is as close as it gets.
    let hit = index.search("soupe oignon", &[0], |_| true, 10)[0];
    assert_eq!((hit.doc, hit.tier), (0, Tier::Words));
    assert_eq!(hit.apart, 0, "{hit:?}");
    // A query of stop words only must find them.
    assert_eq!(first("de"), Some(2));
}

#[test]
fn words_typed_joined_or_apart_are_found_below_the_same_words_as_typed() {
    let names =
        ["Weizenbier", "Weizen Bier", "Pale Ale", "Paleale", "Ale Pale", "Pale Dale", "Pale Alehouse"];
    // Two words typed apart, one word in the name: below the name with the two words.
    assert_eq!(found(&names, "weizen bier"), ["Weizen Bier", "Weizenbier"]);
    // One word typed, two words in the name: below the name with the one word, and only as two
    // words next to each other, in order (not `Ale Pale`, nor `Pale` and inside `Dale`); the second
    // may be the start of a word when it is the word being typed, as `pale ale` finds `Pale Alehouse`.
    assert_eq!(found(&names, "paleale"), ["Paleale", "Pale Ale", "Pale Alehouse"]);
    assert_eq!(found(&names, "palealeh"), ["Pale Alehouse", "Paleale"]);
    // Halves of three characters at least: `paleal` is `Paleale` being typed, not `pale al`.
    assert_eq!(found(&names, "paleal"), ["Paleale"]);
    // Not typing it, whole words only: `ale` only starts `Alehouse`.
    assert!(found(&["Pale Alehouse"], "paleale house").is_empty());
    // Every place of the first half is tried; letters past ASCII are cut where characters start.
    assert_eq!(found(&["Pale Wheat Pale Ale"], "paleale"), ["Pale Wheat Pale Ale"]);
    assert_eq!(found(&["Crème Brûlée"], "crèmebrûlée"), ["Crème Brûlée"]);
    // Said to be found in words, whatever the piece the derived query is of the name.
    let hits = index(&names).search("paleale", &[0], |_| true, 10);
    assert_eq!((hits[1].doc, hits[1].tier, hits[1].exact_words), (2, Tier::Words, 1));
    let hits = index(&names).search("weizen bier", &[0], |_| true, 10);
    assert_eq!((hits[1].doc, hits[1].tier, hits[1].exact_words), (0, Tier::Words, 2));
    // Cut where both halves are words of a name (`pale stout`, not `palest out`), and found only in
    // a name that has them together.
    assert_eq!(found(&["Pale Stout", "Brown Ale"], "palestout"), ["Pale Stout"]);
    assert!(found(&["Pale Stout", "Brown Ale"], "paleale").is_empty());
}

#[test]
fn words_typed_joined_or_apart_keep_the_typo_budget_of_each_word_searched() {
    let names = ["Weizenbier", "Bier"];
    // `bir` typed alone has no typo to spare, `weizenbir` (nine letters) has two.
    assert_eq!(found(&names, "weizen bir"), ["Weizenbier"]);
    let hits = index(&names).search("weizen bir", &[0], |_| true, 10);
    assert_eq!((hits[0].tier, hits[0].typos), (Tier::Typo, 1));
    // A typo the joined word can have, but neither of its parts typed alone.
    assert_eq!(found(&["Oxbier"], "ox bir"), ["Oxbier"]);
    // Cut words are words of a name as they are: `paleael` is no cut of `pale ale`.
    assert!(found(&["Pale Ale"], "paleael").is_empty());
}

#[test]
fn a_word_typed_as_one_may_be_cut_next_to_stop_words() {
    let mut builder = Index::builder();
    builder.stop_words(0, crate::stop_words("de"));
    for (doc, name) in ["Der Bock", "Bock und Bier", "Ale im Fass", "Ale aus dem Fass"].iter().enumerate() {
        builder.add(0, doc as u32, name);
    }
    let index = builder.build();
    let docs =
        |query: &str| index.search(query, &[0], |_| true, 10).iter().map(|hit| hit.doc).collect::<Vec<_>>();
    // The first half a stop word, or stop words between the halves; other words may not stand there.
    assert_eq!(docs("derbock"), [0]);
    assert_eq!(docs("bockbier"), [1]);
    assert_eq!(docs("alefass"), [2]);
}

/// With more hits than asked for, the first `limit` are the first of a longer answer: the passes
/// left out to save time (typos, words joined or apart) could not have changed them.
#[test]
fn a_shorter_answer_is_the_start_of_a_longer_one() {
    let names = [
        "Weizenbier",
        "Weizen Bier",
        "Weizenbierglas",
        "Pale Ale",
        "Pale Alehouse",
        "Paleale",
        "Bier",
        "Bierkrug",
        "Dunkles Weizenbier",
        "Pale Wheat Ale",
        "Weizen Pale Ale",
        "Alte Weizen",
        "Ale Weizen Bier",
    ];
    let index = index(&names);
    for query in
        ["weizen bier", "weizen bir", "paleale", "pale ale", "weizn bier ale", "bier weizen pale", "ale"]
    {
        let long = index.search(query, &[0], |_| true, 50);
        for limit in 1..long.len() {
            let short = index.search(query, &[0], |_| true, limit);
            assert_eq!(short, long[..limit], "{query:?}, limit {limit}");
        }
    }
}

#[test]
fn an_equal_match_in_an_earlier_list_ranks_first() {
    let mut builder = Index::builder();
    builder.add(0, 5, "Brown Ale");
    builder.add(1, 2, "Brown Ale");
    let hits = builder.build().search("brown ale", &[0, 1], |_| true, 10);
    assert_eq!(hits.iter().map(|h| (h.doc, h.list)).collect::<Vec<_>>(), [(5, 0), (2, 1)]);
}

#[test]
fn one_character_queries_still_search() {
    // `q` has two characters at least, but one may fold away (`é!`).
    assert_eq!(found(&["Mead", "Oat", "Ale"], "é!"), ["Ale", "Mead"]);
}

#[test]
fn overlapping_occurrences_are_all_seen() {
    // The first `a a` (at 1) hides the one that starts a word (at 3) from a non-overlapping search.
    let hits = index(&["xa a a"]).search("a a", &[0], |_| true, 10);
    assert_eq!(hits[0].tier, Tier::WordPrefix);
}

/// Names as the game has them: words of Latin letters with accents, kana, CJK ideographs, Thai, Cyrillic.
fn name() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        "[A-Za-zéèüöäßøñç]{1,9}",
        "[ァ-ヶー]{1,6}",
        "[ぁ-ゖ]{1,6}",
        "[一-龥]{1,4}",
        "[ก-ฮ]([ก-ฮ][่-๋]?){0,5}",
        "[А-Яа-яЁё]{1,8}",
    ];
    proptest::collection::vec(word, 1..4).prop_map(|words| words.join(" "))
}

proptest! {
    #[test]
    fn a_name_always_finds_itself(names in proptest::collection::vec(name(), 1..20), pick in any::<prop::sample::Index>()) {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let doc = pick.index(names.len());
        let hits = index(&refs).search(&names[doc], &[0], |_| true, names.len());
        let hit = hits.iter().find(|h| fold(&names[h.doc as usize]) == fold(&names[doc]));
        prop_assert!(hit.is_some_and(|h| h.tier == Tier::Whole), "{:?}: {:?}", names[doc], hits);
    }

    #[test]
    fn any_part_of_a_folded_name_finds_it(name in name(), from in any::<prop::sample::Index>(), len in 2usize..12) {
        let folded: Vec<char> = fold(&name).chars().collect();
        prop_assume!(folded.len() >= 2);
        let start = from.index(folded.len() - 1);
        let end = (start + len).min(folded.len());
        let part: String = folded[start..end].iter().collect();
        prop_assume!(part.chars().count() >= 2);
        // A part cut inside a letter (a Thai tone mark without its consonant) or at a space is not
        // text a person types; a part is what stays itself when folded.
        prop_assume!(fold(&part) == part);
        let hits = index(&["Unrelated", &name]).search(&part, &[0], |_| true, 50);
        prop_assert!(hits.iter().any(|h| h.doc == 1 && h.tier != Tier::Typo), "{part:?} in {name:?}: {hits:?}");
    }

    #[test]
    fn one_edit_in_a_long_word_still_finds_it(word in "[a-z]{5,10}", at in any::<prop::sample::Index>(), c in "[a-z]", edit in 0..3u8) {
        let mut chars: Vec<char> = word.chars().collect();
        let i = at.index(chars.len());
        let c = c.chars().next().unwrap_or('x');
        match edit {
            0 => chars[i] = c,
            1 => { chars.remove(i); }
            _ => chars.insert(i, c),
        }
        let query: String = chars.into_iter().collect();
        prop_assume!(query.chars().count() >= MIN_TYPO_WORD_CHARS);
        let name = format!("Old {word} Cask");
        prop_assert!(!index(&[&name]).search(&query, &[0], |_| true, 10).is_empty(), "{query:?} in {name:?}");
    }
}

proptest! {
    #[test]
    fn intersecting_posting_lists_keeps_exactly_the_shared_values(
        found in proptest::collection::btree_set(0u32..300, 0..60),
        other in proptest::collection::btree_set(0u32..300, 0..200),
    ) {
        let expected: Vec<u32> = found.intersection(&other).copied().collect();
        let mut found: Vec<u32> = found.into_iter().collect();
        retain_in(&mut found, &other.into_iter().collect::<Vec<_>>());
        prop_assert_eq!(found, expected);
    }

    #[test]
    fn the_directory_finds_every_hash_it_holds(hashes in proptest::collection::vec(any::<u32>(), 0..500), probe: u32) {
        let pairs: Vec<(u32, u32)> = hashes.iter().enumerate().map(|(i, &h)| (h, i as u32)).collect();
        let by_hash = ByHash::new(pairs.clone());
        for probe in hashes.iter().copied().chain([probe, 0, u32::MAX]) {
            let mut found: Vec<u32> = by_hash.get(probe).collect();
            found.sort_unstable();
            let expected: Vec<u32> = pairs.iter().filter(|&&(h, _)| h == probe).map(|&(_, i)| i).collect();
            prop_assert_eq!(found, expected);
        }
    }
}
