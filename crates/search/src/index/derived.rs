//! Words typed joined or apart: the queries a typed one may have meant, each pair of neighbouring
//! words as one (`erbsen suppe` for `erbsensuppe`) and each word cut where both halves are words one
//! name holds (`paleale` for `pale ale`), and how a hit of such a query counts the words typed.

use super::{NameList, Prepared, QueryWord, Word};

/// How a query searched was made of the query as typed: as it is, or with the words typed joined or
/// apart that it may have meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Derivation {
    Typed,
    /// Typed words `at` and `at + 1` as one word, at `at`: `erbsen suppe` as `erbsensuppe`.
    Joined {
        at: usize,
    },
    /// Typed word `at` as two, at `at` and `at + 1`, each a word some name has: `paleale` as
    /// `pale ale`. They must be found as whole words next to each other, in order.
    Split {
        at: usize,
    },
}

impl Derivation {
    /// Whether word `i` of the query searched is one of the two a typed word was split into.
    pub(super) fn is_half(self, i: usize) -> bool {
        matches!(self, Derivation::Split { at } if i == at || i == at + 1)
    }

    /// The most typed words (of `words`) a hit with a typo can have found exactly: all but the one
    /// with the typo (a split word's halves have none: they are words of a name as they are), but
    /// none when the whole query is two words joined, which the typo then stands in.
    pub(super) fn most_exact_words_with_a_typo(self, words: usize) -> usize {
        match self {
            Derivation::Joined { .. } if words == 2 => 0,
            _ => words - 1,
        }
    }

    /// The typed words found exactly, from the words of the query searched found exactly (bit `i`:
    /// word `i`): a joined word stands for two, and a split word's halves for one, found exactly
    /// only if both are.
    pub(super) fn exact_words(self, exact: u64) -> u32 {
        let pair = |at: usize| (exact >> at.min(63)) & 0b11;
        match self {
            Derivation::Typed => exact.count_ones(),
            Derivation::Joined { at } => exact.count_ones() + (pair(at) & 1) as u32,
            Derivation::Split { at } => {
                exact.count_ones() - pair(at).count_ones() + u32::from(pair(at) == 0b11)
            }
        }
    }
}

/// Queries made of one typed query by joining or splitting its words, at most: each is one more
/// search, and a query of many words is rarely typed joined or apart everywhere.
const MAX_DERIVED: usize = 8;
/// The fewest characters each half of a typed word split in two has: a word of one or two letters
/// glued to another is more often a slip than a missing space, and a short query word is more
/// often the start of a name's word than two words.
const MIN_HALF_CHARS: usize = 3;

impl Prepared {
    /// The query searched for words `texts`, made of the typed one as `derivation` says.
    fn derived(texts: Vec<&str>, derivation: Derivation) -> Self {
        let mut words: Vec<QueryWord> = texts.iter().copied().map(QueryWord::new).collect();
        // The halves of a split word are words of a name as they are: found whole, with no typo.
        for (i, word) in words.iter_mut().enumerate() {
            if derivation.is_half(i) {
                word.budget = 0;
            }
        }
        Prepared { folded: texts.join(" "), words, derivation }
    }

    /// The queries the typed one may have meant with words typed joined or apart: each pair of
    /// neighbours as one word, and each word that is two words of a name in one of `lists` typed
    /// without the space (the second only the start of one when it is the word being typed).
    pub(super) fn variants<'a>(&self, lists: impl Iterator<Item = &'a NameList> + Clone) -> Vec<Prepared> {
        // Made only for a variant: most queries have none.
        let texts = || -> Vec<&str> { self.words.iter().map(|w| w.text.as_str()).collect() };
        let mut variants = Vec::new();
        for at in 0..self.words.len() - 1 {
            let mut words = texts();
            let joined = [words[at], words[at + 1]].concat();
            words.splice(at..at + 2, [joined.as_str()]);
            variants.push(Prepared::derived(words, Derivation::Joined { at }));
        }
        let last = self.words.len() - 1;
        let mut cuts = Vec::new();
        for (at, word) in self.words.iter().enumerate() {
            cuts.clear();
            for list in lists.clone() {
                list.cuts(&word.text, word.chars.len(), at == last, &mut cuts);
            }
            cuts.sort_unstable();
            cuts.dedup();
            for &cut in &cuts {
                let (first, second) = word.text.split_at(cut);
                let mut words = texts();
                words.splice(at..=at, [first, second]);
                variants.push(Prepared::derived(words, Derivation::Split { at }));
            }
        }
        variants.truncate(MAX_DERIVED);
        variants
    }
}

impl NameList {
    /// Where `word` (of `chars` characters) may be cut into two words that one of the names holds
    /// (the second only the start of one if `typing`), each of [`MIN_HALF_CHARS`] at least, as byte
    /// offsets, added to `cuts`. The sorted words are narrowed to those starting as `word` does, one
    /// character more at a time, so that each search is over the few words the last one left, and
    /// a word that no name's word starts like is given up after the first.
    fn cuts(&self, word: &str, chars: usize, typing: bool, cuts: &mut Vec<usize>) {
        let halves = MIN_HALF_CHARS..=chars.saturating_sub(MIN_HALF_CHARS);
        let mut range = 0..self.words.len();
        for (taken, (cut, _)) in word.char_indices().enumerate().skip(MIN_HALF_CHARS) {
            if !halves.contains(&taken) {
                return;
            }
            let start = &word[..cut];
            let words = &self.words[range.clone()];
            let from = range.start + words.partition_point(|w| self.word_text(w) < start);
            let to =
                from + self.words[from..range.end].partition_point(|w| self.word_text(w).starts_with(start));
            range = from..to;
            if range.is_empty() {
                return;
            }
            // The first word starting as `word` does is that start itself, if it is a word.
            if self.word_text(&self.words[from]) == start && self.held_with(from as u32, &word[cut..], typing)
            {
                cuts.push(cut);
            }
        }
    }

    /// Whether a name holds word `number` and `text` as a word (or the start of one if `typing`). A
    /// start that many words have is taken to be held: comparing every one's names costs more than
    /// the search it would spare.
    fn held_with(&self, number: u32, text: &str, typing: bool) -> bool {
        const MANY: usize = 16;
        let from = self.words.partition_point(|w| self.word_text(w) < text);
        let matching = |w: &&Word| {
            let word = self.word_text(w);
            if typing { word.starts_with(text) } else { word == text }
        };
        let seconds = self.words[from..].iter().take_while(matching).take(MANY + 1).count();
        let holding = self.names_holding(number);
        seconds > MANY
            || (from..from + seconds).any(|second| shares_a_value(holding, self.names_holding(second as u32)))
    }
}

/// Whether `a` and `b`, both ascending, hold a value in common.
fn shares_a_value(a: &[u32], b: &[u32]) -> bool {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => _ = a.next(),
            std::cmp::Ordering::Greater => _ = b.next(),
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}
