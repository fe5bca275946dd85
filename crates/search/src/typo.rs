//! Typos: how far a query word may be from a name word and still match it, and how far it is.
//!
//! Distance is Damerau's (optimal string alignment): a character inserted, deleted or replaced, or two
//! neighbours swapped (`pael` for `pale`), is one typo. Each query word has its own budget, by its
//! length in characters: none up to three (`rye` is not `rey`: short words are other words), one from
//! four, two from [`TWO_TYPOS_FROM_CHARS`]; none in a word written with Chinese characters, where one
//! character replaced is another food, not a slip of the finger.

/// The shortest query word, in characters, that may have a typo.
pub const MIN_TYPO_WORD_CHARS: usize = 4;
/// The shortest query word, in characters, that may have two typos.
pub const TWO_TYPOS_FROM_CHARS: usize = 8;

/// How many typos a query word may have.
pub(crate) fn budget(word: &[char]) -> u32 {
    if word.iter().any(|&c| is_han(c)) {
        return 0;
    }
    match word.len() {
        0..MIN_TYPO_WORD_CHARS => 0,
        MIN_TYPO_WORD_CHARS..TWO_TYPOS_FROM_CHARS => 1,
        _ => 2,
    }
}

/// Whether `c` is a Chinese character (CJK unified and compatibility ideographs, all planes).
fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{3134F}')
}

/// The Damerau distance between `a` and `b` if it is at most `most`; `None` when it is more.
pub(crate) fn distance(a: &[char], b: &[char], most: u32) -> Option<u32> {
    if a.len().abs_diff(b.len()) > most as usize {
        return None;
    }
    match most {
        0 => (a == b).then_some(0),
        1 => within_one(a, b),
        // Most words that reach the table are far from each other, and their letters say so sooner.
        _ if !letters_allow(letters(a), letters(b), most) => None,
        _ => table(a, b, most as usize),
    }
}

/// Which letters `word` has, each as one of 64 bits (letters whose code points are 64 apart share
/// one). An edit changes at most two bits: a letter replaced may leave the word and another come
/// in; one added or left out changes one; two swapped, none. So words `d` edits apart differ in at
/// most `2d` bits (see [`letters_allow`]).
pub(crate) fn letters(word: &[char]) -> u64 {
    word.iter().fold(0, |letters, &c| letters | 1 << (u32::from(c) % 64))
}

/// Whether words with these [`letters`] may be `most` typos apart: a test far cheaper than the
/// distance, which turns away most words that only share a bigram or two.
pub(crate) fn letters_allow(a: u64, b: u64, most: u32) -> bool {
    (a ^ b).count_ones() <= 2 * most
}

/// [`distance`] for a budget of one, without the table: past the common start, what is left must
/// be the same but for one letter replaced, added or left out, or two neighbours swapped.
fn within_one(a: &[char], b: &[char]) -> Option<u32> {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if same == a.len() && same == b.len() {
        return Some(0);
    }
    let (a, b) = (&a[same..], &b[same..]);
    let one = match a.len().cmp(&b.len()) {
        std::cmp::Ordering::Equal => {
            a[1..] == b[1..] || (a.len() >= 2 && a[0] == b[1] && a[1] == b[0] && a[2..] == b[2..])
        }
        std::cmp::Ordering::Less => a == &b[1..],
        std::cmp::Ordering::Greater => &a[1..] == b,
    };
    one.then_some(1)
}

/// The edit table, for budgets over one; only the band of cells within `most` of the diagonal is
/// worked out, the others stand at `most + 1` (more than the budget: never part of an answer).
fn table(a: &[char], b: &[char], most: usize) -> Option<u32> {
    let over = most + 1;
    // Three rows of the edit table: two back (for swaps), the last, and the one being filled. On the
    // stack for the words of names; a longer one takes the heap.
    let width = b.len() + 1;
    let mut stack = [0usize; 3 * 33];
    let mut heap = Vec::new();
    let rows: &mut [usize] = if 3 * width <= stack.len() {
        &mut stack[..3 * width]
    } else {
        heap.resize(3 * width, 0);
        &mut heap
    };
    rows.fill(over);
    for (j, cell) in rows[width..2 * width].iter_mut().enumerate() {
        *cell = j.min(over);
    }
    for i in 1..=a.len() {
        let (older, rest) = rows.split_at_mut(width);
        let (last, current) = rest.split_at_mut(width);
        current.fill(over);
        current[0] = i.min(over);
        let mut least = current[0];
        for j in i.saturating_sub(most).max(1)..=(i + most).min(b.len()) {
            let replace = last[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut cell = replace.min(last[j] + 1).min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cell = cell.min(older[j - 2] + 1);
            }
            current[j] = cell.min(over);
            least = least.min(current[j]);
        }
        if least > most {
            return None;
        }
        rows.rotate_left(width);
    }
    let found = rows[width + b.len()];
    (found <= most).then_some(found as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    /// The optimal string alignment distance by the whole table, as the textbook has it.
    fn whole_table(a: &[char], b: &[char]) -> Option<u32> {
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        Some(d[a.len()][b.len()] as u32)
    }

    #[test]
    fn a_swap_of_neighbours_is_one_typo_like_any_other_edit() {
        let cases = [
            ("pale", "pale", Some(0)),
            ("pael", "pale", Some(1)),
            ("pal", "pale", Some(1)),
            ("paale", "pale", Some(1)),
            ("bale", "pale", Some(1)),
            ("plae", "pale", Some(1)),
            ("epal", "pale", Some(2)),
            ("bakrey", "bakery", Some(1)),
            ("brihgtleaf", "brightleaf", Some(1)),
            ("brihgtlaef", "brightleaf", Some(2)),
            ("ぶらいとりふ", "ぶらいとりーふ", Some(1)),
            ("", "ab", Some(2)),
        ];
        for (a, b, expected) in cases {
            let expected = expected.filter(|&d| d <= 2);
            assert_eq!(distance(&chars(a), &chars(b), 2), expected, "{a} / {b}");
            assert_eq!(distance(&chars(b), &chars(a), 2), expected, "{b} / {a}");
        }
        assert_eq!(distance(&chars("bakrey"), &chars("bakery"), 0), None);
        for (a, b, _) in cases {
            let (a, b) = (chars(a), chars(b));
            assert_eq!(within_one(&a, &b), table(&a, &b, 1), "{a:?} / {b:?}");
        }
        // The band gives what the whole table gives, on every pair of some short words.
        let words =
            ["", "a", "ab", "ba", "abc", "acb", "bca", "abcd", "abdc", "badc", "xbcdx", "abcdef", "fedcba"];
        for a in words {
            for b in words {
                let (a, b) = (chars(a), chars(b));
                assert_eq!(table(&a, &b, 2), whole_table(&a, &b).filter(|&d| d <= 2), "{a:?} / {b:?}");
            }
        }
        assert_eq!(distance(&chars("abcdef"), &chars("ghijkl"), 2), None);
        // Letters the other word lacks do not turn away words within the budget.
        assert_eq!(distance(&chars("abcdefgh"), &chars("abxdefyh"), 2), Some(2));
        assert_eq!(distance(&chars("abcdefgh"), &chars("abcdefghyz"), 2), Some(2));
        assert_eq!(distance(&chars("abcdefgh"), &chars("abcdefghxyz"), 3), Some(3));
        assert_eq!(distance(&chars("abcdefgh"), &chars("abxdefyz"), 2), None);
    }

    proptest::proptest! {
        /// What `distance` answers (with its shortcuts: the letters, the band, the budget of one)
        /// is what the whole table says, for words of letters that share bits (`a` and `!`).
        #[test]
        fn every_shortcut_answers_as_the_whole_table(
            a in "[ab!cx]{0,10}",
            b in "[ab!cx]{0,10}",
            most in 0u32..4,
        ) {
            let (a, b) = (chars(&a), chars(&b));
            proptest::prop_assert_eq!(distance(&a, &b, most), whole_table(&a, &b).filter(|&d| d <= most));
        }
    }

    #[test]
    fn the_budget_grows_with_the_word_but_chinese_has_none() {
        let budgets: Vec<u32> = (1..=9).map(|n| budget(&vec!['a'; n])).collect();
        assert_eq!(budgets, [0, 0, 0, 1, 1, 1, 1, 2, 2]);
        assert_eq!(budget(&chars("ぶらいとりふ")), 1);
        assert_eq!(budget(&chars("蜂蜜啤酒")), 0);
        assert_eq!(budget(&chars("エンマー小麦")), 0);
    }
}
