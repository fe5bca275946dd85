//! The name index of one game version: per language, every folded name in one contiguous string, with a
//! bigram posting list that narrows a query to the few names that can hold it before any string is
//! compared, and the distinct words of the names, through which typos are found (by their forms with
//! one character left out for one typo, by shared bigrams for two).
//!
//! A query is words ([`crate::fold`] splits it at spaces and punctuation). A name matches when each
//! word of the query is found in one of its words, in any order: as the whole word, its start, or
//! inside it (how Chinese, Japanese and Thai names, written without spaces, are searched), or, in a
//! query word long enough, with typos ([`crate::typo`]). A query word that is a stop word of the
//! list's language ([`crate::stop_words`]) may be found nowhere.
//!
//! Words typed joined or apart are tried too, as the search engines people know do: a query word may
//! be two adjacent words of the name typed without the space (`paleale` finds `pale ale`), and two
//! adjacent query words may be one word of the name (`erbsen suppe` finds `erbsensuppe`). Such a query
//! is searched as if typed that way ([`Derivation`]): a joined word with the typo budget of its own
//! length, the halves of a split one as words of a name are, without typos,
//! and its hits rank below the same words matched as typed.
//!
//! Matches rank, best first, by:
//! 1. the number of query words found exactly, as a whole word of the name (the last query word also as
//!    the start of one: it is the word being typed), most first;
//! 2. the typos, fewest first;
//! 3. whether the words were found only typed joined or apart, as typed first;
//! 4. how far the words are from being in the query's order and next to each other (stop words left
//!    out), nearest first;
//! 5. [`Tier`]: the whole name, its start, the start of one of its words, anywhere in it, then the words
//!    found apart (or joined or apart other than as typed);
//! 6. shorter names; 7. the list (the caller puts the requested language before English); 8. the
//!    document number, which the caller assigns in the order ties should break in.
//!
//! A document appears once in the answer, with its best match over every list searched. Typos are
//! tried only when matching without them found fewer hits than asked for that no hit with a typo
//! could pass (those with all words but one found exactly).

use std::cmp::Reverse;

use crate::fold;
use crate::typo::{budget, distance, letters, letters_allow};

mod derived;

use derived::Derivation;

/// How the query sits in the name, as one piece or as words apart; the order is the ranking, best
/// first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// The folded query is the whole folded name.
    Whole,
    /// The folded name starts with the folded query.
    Prefix,
    /// One of the name's words (after the first) starts with the query.
    WordPrefix,
    /// The query is somewhere inside the name, including inside a word.
    Substring,
    /// The words of the query are in the name, but not all in one piece as the query has them (in
    /// another order, with other words between, without a stop word the query has, or typed joined
    /// or apart).
    Words,
    /// Some word of the query is in the name only with typos.
    Typo,
}

/// One document found: which, in which list (as a position in the `lists` asked for), and how well.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub doc: u32,
    /// Position in the `lists` argument of [`Index::search`] of the list whose name matched.
    pub list: usize,
    pub tier: Tier,
    /// Length of the matched folded name, in characters.
    pub chars: u32,
    /// Typos over all the query's words.
    pub typos: u32,
    /// Query words found as a whole word of the name without a typo (the last also as the start of
    /// one: the word being typed), counted as typed: two found joined as one whole word count two,
    /// one found as two whole words counts one.
    exact_words: u32,
    /// Whether the words were found only joined or apart other than as typed ([`Derivation`]).
    derived: bool,
    /// Pairs of successive query words that are not next to each other, in order, in the name.
    apart: u32,
}

impl Hit {
    /// Best first, in the order the module documentation gives.
    fn rank(&self) -> (Reverse<u32>, u32, bool, u32, Tier, u32, usize, u32) {
        let Hit { doc, list, tier, chars, typos, exact_words, derived, apart } = *self;
        (Reverse(exact_words), typos, derived, apart, tier, chars, list, doc)
    }
}

/// Collects names, then builds the [`Index`].
#[derive(Debug, Default)]
pub struct IndexBuilder {
    lists: Vec<Vec<(u32, String)>>,
    stop_words: Vec<Vec<String>>,
}

impl IndexBuilder {
    /// Adds `name` of document `doc` to list `list` (lists are numbered by the caller: one per language).
    /// A name that folds to nothing (only punctuation) is left out: no query can match it.
    pub fn add(&mut self, list: usize, doc: u32, name: &str) {
        let folded = fold(name);
        if folded.is_empty() {
            return;
        }
        self.grow(list);
        self.lists[list].push((doc, folded));
    }

    /// Sets the stop words of list `list`'s language (see [`crate::stop_words`]).
    pub fn stop_words(&mut self, list: usize, words: &[&str]) {
        self.grow(list);
        let mut folded: Vec<String> = words.iter().map(|w| fold(w)).filter(|w| !w.is_empty()).collect();
        folded.sort_unstable();
        folded.dedup();
        self.stop_words[list] = folded;
    }

    fn grow(&mut self, list: usize) {
        if self.lists.len() <= list {
            self.lists.resize_with(list + 1, Vec::new);
            self.stop_words.resize_with(list + 1, Vec::new);
        }
    }

    pub fn build(self) -> Index {
        let lists =
            self.lists.into_iter().zip(self.stop_words).map(|(names, stop)| NameList::new(names, stop));
        Index { lists: lists.collect() }
    }
}

/// Every searchable name of a version, one list per language.
#[derive(Debug, Default)]
pub struct Index {
    lists: Vec<NameList>,
}

/// One language's names.
#[derive(Debug, Default)]
struct NameList {
    /// The folded names, each followed by `\n` (which folded text never holds).
    text: String,
    names: Vec<Name>,
    /// Which names hold each bigram.
    grams: Grams,
    /// The distinct words of the names, each followed by `\n`, sorted.
    words_text: String,
    words: Vec<Word>,
    /// Which words hold each bigram.
    word_grams: Grams,
    /// Each word of 3 to 8 characters under a hash of itself and of each of its forms with one
    /// character left out: a word one typo from a query word of 4 to 7 characters shares one of these
    /// texts with it (see `words_one_typo_from`).
    one_out: ByHash,
    /// For each word (`word_name_starts` has one more element: the end of the last), the positions in
    /// `names` of the names holding it, ascending.
    word_name_starts: Vec<u32>,
    word_names: Vec<u32>,
    /// The language's stop words, folded, sorted.
    stop_words: Vec<String>,
}

#[derive(Debug, Clone, Copy)]
struct Name {
    start: u32,
    end: u32,
    doc: u32,
    chars: u32,
    /// Which of the name's first 32 words are stop words of the list's language (bit `i`: word `i`).
    stop: u32,
}

/// 16 bytes: there is one per distinct word of each language.
#[derive(Debug, Clone, Copy)]
struct Word {
    /// Its [`letters`].
    letters: u64,
    start: u32,
    /// Its length in bytes (a word of a name is far shorter than 64 KiB) and in characters.
    len: u16,
    chars: u16,
}

impl Word {
    fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + usize::from(self.len)
    }
}

/// Bigram postings over numbered strings: for each bigram, the strings holding it.
#[derive(Debug, Default)]
struct Grams {
    /// Distinct bigrams, sorted by their hash ([`gram_hash`]), found through `directory`, with where
    /// each one's postings start in `postings` (`starts` has one more element: the end of the last).
    keys: Vec<u64>,
    directory: Directory,
    starts: Vec<u32>,
    /// For each bigram, the numbers of the strings holding it, ascending.
    postings: Vec<u32>,
}

impl Grams {
    /// From (bigram, string number) pairs, each string's bigrams distinct.
    fn new(mut pairs: Vec<(u64, u32)>) -> Self {
        pairs.sort_unstable_by_key(|&(g, number)| (gram_hash(g), g, number));
        let mut grams = Grams::default();
        for (g, number) in pairs {
            if grams.keys.last() != Some(&g) {
                grams.keys.push(g);
                grams.starts.push(grams.postings.len() as u32);
            }
            grams.postings.push(number);
        }
        grams.starts.push(grams.postings.len() as u32);
        grams.keys.shrink_to_fit();
        grams.starts.shrink_to_fit();
        grams.postings.shrink_to_fit();
        grams.directory = Directory::new(grams.keys.iter().map(|&g| gram_hash(g)));
        grams
    }

    fn get(&self, g: u64) -> &[u32] {
        match self.directory.range(gram_hash(g)).find(|&i| self.keys[i] == g) {
            Some(i) => &self.postings[self.starts[i] as usize..self.starts[i + 1] as usize],
            None => &[],
        }
    }

    /// The strings holding every one of `grams` (not empty), ascending.
    fn holding_all(&self, grams: &[u64]) -> Vec<u32> {
        let mut lists: Vec<&[u32]> = grams.iter().map(|&g| self.get(g)).collect();
        lists.sort_unstable_by_key(|l| l.len());
        let mut found = lists[0].to_vec();
        for other in &lists[1..] {
            if found.len() <= 4 {
                break; // Cheaper to compare the few left than to keep intersecting.
            }
            retain_in(&mut found, other);
        }
        found
    }

    fn heap_bytes(&self) -> usize {
        self.keys.capacity() * size_of::<u64>()
            + self.directory.heap_bytes()
            + self.starts.capacity() * size_of::<u32>()
            + self.postings.capacity() * size_of::<u32>()
    }
}

/// Where each hash starts in a list sorted by 32-bit hashes, by the hash's top bits: a lookup reads
/// two neighbouring entries here and then the few items of the list between them, where a binary
/// search over the whole list would read twenty places in memory. About two items per entry.
#[derive(Debug, Default)]
struct Directory {
    /// For each value of a hash's top `32 - shift` bits, where its items start (one more element:
    /// the end of the last); empty for an empty list.
    starts: Vec<u32>,
    shift: u32,
}

impl Directory {
    /// Over the hashes of a list's items, ascending.
    fn new(hashes: impl ExactSizeIterator<Item = u32>) -> Self {
        let len = hashes.len();
        if len == 0 {
            return Directory::default();
        }
        let bits = (len / 2).max(2).ilog2().min(24);
        let shift = 32 - bits;
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        for (at, hash) in hashes.enumerate() {
            // Every bucket up to this hash's starts here or earlier.
            let bucket = (hash >> shift) as usize;
            while starts.len() <= bucket {
                starts.push(at as u32);
            }
        }
        starts.resize((1 << bits) + 1, len as u32);
        Directory { starts, shift }
    }

    /// The positions in the list of the items whose hash shares `hash`'s top bits.
    fn range(&self, hash: u32) -> std::ops::Range<usize> {
        let bucket = (hash >> self.shift) as usize;
        match self.starts.get(bucket..bucket + 2) {
            Some(&[start, end]) => start as usize..end as usize,
            _ => 0..0,
        }
    }

    fn heap_bytes(&self) -> usize {
        self.starts.capacity() * size_of::<u32>()
    }
}

/// Numbers under 32-bit hashes: the (hash, number) pairs sorted, with a [`Directory`].
#[derive(Debug, Default)]
struct ByHash {
    pairs: Vec<(u32, u32)>,
    directory: Directory,
}

impl ByHash {
    fn new(mut pairs: Vec<(u32, u32)>) -> Self {
        pairs.sort_unstable();
        pairs.dedup();
        pairs.shrink_to_fit();
        let directory = Directory::new(pairs.iter().map(|&(hash, _)| hash));
        ByHash { pairs, directory }
    }

    /// The numbers under `hash`.
    fn get(&self, hash: u32) -> impl Iterator<Item = u32> {
        let pairs = &self.pairs[self.directory.range(hash)];
        pairs.iter().filter(move |&&(h, _)| h == hash).map(|&(_, number)| number)
    }

    fn heap_bytes(&self) -> usize {
        self.pairs.capacity() * size_of::<(u32, u32)>() + self.directory.heap_bytes()
    }
}

/// Keeps in `found` only what `other` also holds, both ascending. Each value is looked for from where
/// the last one was, galloping ahead then halving back: a posting list of a frequent bigram is long,
/// and the values kept are spread over it.
fn retain_in(found: &mut Vec<u32>, other: &[u32]) {
    let mut rest = other;
    found.retain(|&value| {
        let mut step = 1;
        while step < rest.len() && rest[step - 1] < value {
            step *= 2;
        }
        let start = step / 2;
        let end = step.min(rest.len());
        let at = start + rest[start..end].partition_point(|&v| v < value);
        rest = &rest[at..];
        rest.first() == Some(&value)
    });
}

/// Appends `line` and a `\n` to `text`; where `line` starts and ends in it.
fn push_line(text: &mut String, line: &str) -> (u32, u32) {
    let start = text.len() as u32;
    text.push_str(line);
    let end = text.len() as u32;
    text.push('\n');
    (start, end)
}

/// The lengths of the words indexed by their forms with one character left out: those one typo from a
/// query word of 4 to 7 characters (the budget of one).
const ONE_OUT_CHARS: std::ops::RangeInclusive<usize> = 3..=8;

/// Calls `found` with the hash of `chars` and of each text made by leaving one of its characters out.
fn one_out_texts(chars: &[char], mut found: impl FnMut(u32)) {
    found(hash(chars.iter().copied()));
    for out in 0..chars.len() {
        found(hash(chars.iter().enumerate().filter(|&(i, _)| i != out).map(|(_, &c)| c)));
    }
}

/// FNV-1a over the characters: a short text's hash, for the forms with one character left out.
fn hash(chars: impl Iterator<Item = char>) -> u32 {
    chars.fold(0x811c_9dc5, |hash, c| (hash ^ u32::from(c)).wrapping_mul(0x0100_0193))
}

/// Two characters as one key.
fn gram(a: char, b: char) -> u64 {
    (u64::from(u32::from(a)) << 32) | u64::from(u32::from(b))
}

/// A bigram's hash, whose top bits are spread evenly (Fibonacci hashing).
fn gram_hash(g: u64) -> u32 {
    (g.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as u32
}

/// The distinct bigrams of `chars`, sorted.
fn grams_of(chars: &[char]) -> Vec<u64> {
    let mut grams: Vec<u64> = chars.windows(2).map(|w| gram(w[0], w[1])).collect();
    grams.sort_unstable();
    grams.dedup();
    grams
}

/// How one query word was found in a name: its typos, how it sits in the name's word, the word's
/// position (stop words left out) and its place among the name's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Found {
    typos: u32,
    how: Sits,
    position: u32,
    at: usize,
}

/// How a query word sits in a name's word, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Sits {
    Whole,
    Start,
    Inside,
    WithTypos,
}

/// Buffers [`NameList::evaluate`] fills anew for each name.
#[derive(Debug, Default)]
struct Scratch<'a> {
    /// The name's words, each with its position and whether a query word matched it.
    words: Vec<(&'a str, u32, Use)>,
    chars: Vec<char>,
}

/// Whether a name's word already matched a query word. A word found whole or with typos is that query
/// word's own; parts of one word (`小麦` and `啤酒` in `小麦啤酒`) may be found by several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    Free,
    Shared,
    Own,
}

impl NameList {
    fn new(mut entries: Vec<(u32, String)>, stop_words: Vec<String>) -> Self {
        entries.sort_by_key(|(doc, _)| *doc);
        let mut list = NameList {
            text: String::with_capacity(entries.iter().map(|(_, n)| n.len() + 1).sum()),
            stop_words,
            ..NameList::default()
        };
        let mut pairs: Vec<(u64, u32)> = Vec::new();
        let mut chars = Vec::new();
        let mut word_uses: Vec<(&str, u32)> = Vec::new();
        for (position, (doc, folded)) in entries.iter().enumerate() {
            let (start, end) = push_line(&mut list.text, folded);
            chars.clear();
            chars.extend(folded.chars());
            let stop = folded
                .split(' ')
                .take(32)
                .enumerate()
                .filter(|(_, word)| list.is_stop_word(word))
                .fold(0, |stop, (i, _)| stop | 1 << i);
            list.names.push(Name { start, end, doc: *doc, chars: chars.len() as u32, stop });
            pairs.extend(grams_of(&chars).into_iter().map(|g| (g, position as u32)));
            word_uses.extend(folded.split(' ').map(|word| (word, position as u32)));
        }
        list.grams = Grams::new(pairs);

        word_uses.sort_unstable();
        word_uses.dedup();
        let mut word_pairs = Vec::new();
        let mut one_out = Vec::new();
        let mut last_word = None;
        for (word, position) in word_uses {
            if last_word != Some(word) {
                last_word = Some(word);
                let (start, end) = push_line(&mut list.words_text, word);
                chars.clear();
                chars.extend(word.chars());
                let number = list.words.len() as u32;
                word_pairs.extend(grams_of(&chars).into_iter().map(|g| (g, number)));
                if ONE_OUT_CHARS.contains(&chars.len()) {
                    one_out_texts(&chars, |hash| one_out.push((hash, number)));
                }
                list.words.push(Word {
                    letters: letters(&chars),
                    start,
                    len: u16::try_from(end - start).unwrap_or(u16::MAX),
                    chars: u16::try_from(chars.len()).unwrap_or(u16::MAX),
                });
                list.word_name_starts.push(list.word_names.len() as u32);
            }
            list.word_names.push(position);
        }
        list.word_name_starts.push(list.word_names.len() as u32);
        list.word_grams = Grams::new(word_pairs);
        list.one_out = ByHash::new(one_out);
        // Built by pushing, the lists have room to spare; an index lives as long as its version.
        list.text.shrink_to_fit();
        list.names.shrink_to_fit();
        list.words_text.shrink_to_fit();
        list.words.shrink_to_fit();
        list.word_name_starts.shrink_to_fit();
        list.word_names.shrink_to_fit();
        list
    }

    fn name(&self, position: u32) -> (&Name, &str) {
        let name = &self.names[position as usize];
        (name, &self.text[name.start as usize..name.end as usize])
    }

    fn is_stop_word(&self, word: &str) -> bool {
        self.stop_words.binary_search_by(|stop| stop.as_str().cmp(word)).is_ok()
    }

    fn word_text(&self, word: &Word) -> &str {
        &self.words_text[word.range()]
    }

    /// What this list needs of the query, for both passes.
    fn for_query(&self, query: &Prepared) -> ForList {
        // A query of one word is required whatever it is.
        let mut required: Vec<bool> = match query.words.as_slice() {
            [_] => vec![true],
            words => words
                .iter()
                .enumerate()
                .map(|(i, w)| query.derivation.is_half(i) || !self.is_stop_word(&w.text))
                .collect(),
        };
        if !required.contains(&true) {
            required.fill(true);
        }
        let holding = query
            .words
            .iter()
            .zip(&required)
            .map(|(word, &required)| {
                (required && !word.grams.is_empty()).then(|| self.grams.holding_all(&word.grams))
            })
            .collect();
        ForList { required, holding }
    }

    /// The names that may hold every required word, without typos (`typos: false`) or with them;
    /// `None` for every name (when no required word has a bigram to look up).
    fn candidates(&self, query: &Prepared, for_list: &ForList, typos: bool) -> Option<Vec<u32>> {
        let mut found: Option<Vec<u32>> = None;
        let mut near;
        for (i, word) in query.words.iter().enumerate().filter(|&(i, _)| for_list.required[i]) {
            let holding = for_list.holding[i].as_deref();
            let holding = if typos && word.budget > 0 {
                near = self.names_of_words_near(word);
                if let Some(holding) = holding {
                    near.extend_from_slice(holding);
                    near.sort_unstable();
                    near.dedup();
                }
                &near
            } else {
                let Some(holding) = holding else { continue };
                holding
            };
            found = Some(match found {
                None => holding.to_vec(),
                Some(mut found) => {
                    retain_in(&mut found, holding);
                    found
                }
            });
        }
        // Words of one character each (`a b`, a Thai tone and a letter) are not worth every name in
        // any order: such a query is looked for as it is written.
        if found.is_none() && !typos && for_list.required.iter().all(|r| *r) {
            let grams = grams_of(&query.folded.chars().collect::<Vec<_>>());
            if !grams.is_empty() {
                found = Some(self.grams.holding_all(&grams));
            }
        }
        found
    }

    /// The names holding a word within `word`'s typo budget of it, ascending.
    fn names_of_words_near(&self, word: &QueryWord) -> Vec<u32> {
        let mut names: Vec<u32> = self
            .words_near(word)
            .into_iter()
            .flat_map(|(number, _)| self.names_holding(number).iter().copied())
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The words within `word`'s typo budget of it, with their typos.
    fn words_near(&self, word: &QueryWord) -> Vec<(u32, u32)> {
        let candidates =
            if word.budget == 1 { self.words_one_typo_from(word) } else { self.words_sharing_grams(word) };
        let mut chars = Vec::new();
        candidates
            .into_iter()
            .filter_map(|number| {
                let entry = self.words[number as usize];
                chars.clear();
                chars.extend(self.words_text[entry.range()].chars());
                distance(&word.chars, &chars, word.budget).map(|typos| (number, typos))
            })
            .collect()
    }

    /// The positions in `names` of the names holding word `number`, ascending.
    fn names_holding(&self, number: u32) -> &[u32] {
        let start = self.word_name_starts[number as usize] as usize;
        let end = self.word_name_starts[number as usize + 1] as usize;
        &self.word_names[start..end]
    }

    /// The words that may be one typo from `word` (of 4 to 7 characters): those sharing with it a text
    /// of itself or itself with one character left out. A letter replaced leaves both with the same
    /// text once it is left out of each; one added or left out, the longer less it is the shorter;
    /// two swapped, either of them left out of one and the other of the other. Hashes may collide:
    /// the caller checks the distance.
    fn words_one_typo_from(&self, word: &QueryWord) -> Vec<u32> {
        let mut found = Vec::new();
        one_out_texts(&word.chars, |hash| found.extend(self.one_out.get(hash)));
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The words that may be within `word`'s budget of it, by the bigrams they share: each typo takes
    /// away at most three bigram occurrences (a swap of neighbours), so such a word shares all the
    /// word's distinct bigrams but three per typo; and its length and its letters are within the
    /// budget.
    fn words_sharing_grams(&self, word: &QueryWord) -> Vec<u32> {
        let near = |number: u32| {
            let entry = &self.words[number as usize];
            usize::from(entry.chars).abs_diff(word.chars.len()) <= word.budget as usize
                && letters_allow(entry.letters, word.letters, word.budget)
        };
        let needed = word.grams.len().saturating_sub(3 * word.budget as usize);
        if needed == 0 {
            return (0..self.words.len() as u32).filter(|&number| near(number)).collect();
        }
        // Each word is taken when its count reaches `needed`, so the words sharing fewer bigrams are
        // never looked at.
        let mut counts = vec![0u8; self.words.len()];
        let mut found = Vec::new();
        for &g in &word.grams {
            for &number in self.word_grams.get(g) {
                let count = &mut counts[number as usize];
                *count = count.saturating_add(1);
                if usize::from(*count) == needed && near(number) {
                    found.push(number);
                }
            }
        }
        found.sort_unstable();
        found
    }

    /// How the name at `position` matches the query, if it does; with typos only if `typos`.
    /// `scratch` is room for the name's words, kept from one name to the next.
    fn evaluate<'a>(
        &'a self,
        position: u32,
        list: usize,
        query: &Prepared,
        required: &[bool],
        typos: bool,
        scratch: &mut Scratch<'a>,
    ) -> Option<Hit> {
        let (name, text) = self.name(position);
        // One word without typos is one piece: found whole when it starts a word of the name (as a word
        // being typed), and the name need not be cut into words.
        if !typos && let [_] = query.words.as_slice() {
            let tier = tier(text, &query.folded)?;
            let exact = u64::from(tier != Tier::Substring);
            return Some(query.hit(name, list, tier, 0, exact, 0));
        }
        // Without typos, every required word is in the name as it is: most names that are not a match
        // end here. With typos, such a name was judged without them, and a typo would not do better.
        let held =
            query.words.iter().zip(required).all(|(word, &required)| !required || holds(text, &word.text));
        if typos == held {
            return None;
        }
        // Each word with its position among the words that are not stop words (a stop word shares the
        // position of the word after it, so that words around it are next to each other).
        let mut next = 0;
        let words = &mut scratch.words;
        words.clear();
        words.extend(text.split(' ').enumerate().map(|(i, word)| {
            let position = next;
            if i >= 32 || name.stop & 1 << i == 0 {
                next += 1;
            }
            (word, position, Use::Free)
        }));
        let chars = &mut scratch.chars;
        // Bit `i`: query word `i` found exactly.
        let mut exact = 0u64;
        let mut total_typos = 0;
        let mut apart = 0;
        let mut previous: Option<u32> = None;
        // Query words take name words in the query's order, each the best it can still have: a word
        // found whole or with typos is that query word's own (so `ale ale` needs two), parts of one
        // word may serve several. A later query word does not take back a word an earlier one holds.
        let last = query.words.len() - 1;
        for (i, (word, &required)) in query.words.iter().zip(required).enumerate() {
            let mut best: Option<Found> = None;
            for (at, &(name_word, position, used)) in words.iter().enumerate() {
                let found = if name_word == word.text && used == Use::Free {
                    Found { typos: 0, how: Sits::Whole, position, at }
                } else if used == Use::Own {
                    continue;
                } else if begins(name_word.as_bytes(), word.text.as_bytes()) {
                    Found { typos: 0, how: Sits::Start, position, at }
                } else if holds(name_word, &word.text) {
                    Found { typos: 0, how: Sits::Inside, position, at }
                } else if typos && required && word.budget > 0 && used == Use::Free {
                    chars.clear();
                    chars.extend(name_word.chars());
                    match distance(&word.chars, chars, word.budget) {
                        Some(typos) => Found { typos, how: Sits::WithTypos, position, at },
                        None => continue,
                    }
                } else {
                    continue;
                };
                // Among equally good places, the one right after the previous word.
                let follows = |f: &Found| previous.is_some_and(|p| f.position == p + 1);
                let better = match best {
                    None => true,
                    Some(b) => (found.typos, found.how, !follows(&found)) < (b.typos, b.how, !follows(&b)),
                };
                if better {
                    best = Some(found);
                }
            }
            match best {
                Some(found) => {
                    words[found.at].2 = match found.how {
                        Sits::Whole | Sits::WithTypos => Use::Own,
                        Sits::Start | Sits::Inside => Use::Shared,
                    };
                    // The whole word, or the start of one for the word being typed.
                    if found.how == Sits::Whole || (found.how == Sits::Start && i == last) {
                        exact |= 1 << i.min(63);
                    }
                    total_typos += found.typos;
                    if required {
                        if previous.is_some_and(|p| found.position != p + 1) {
                            apart += 1;
                        }
                        previous = Some(found.position);
                    }
                }
                None if required => return None,
                None => {}
            }
        }
        if let Derivation::Split { at } = query.derivation
            && !next_to_each_other(
                words,
                name.stop,
                &query.words[at].text,
                &query.words[at + 1].text,
                at + 1 == last,
            )
        {
            return None;
        }
        let tier =
            if total_typos > 0 { Tier::Typo } else { tier(text, &query.folded).unwrap_or(Tier::Words) };
        Some(query.hit(name, list, tier, total_typos, exact, apart))
    }

    /// Adds to `hits` the names of this list that match the query, without typos or with them.
    fn search(
        &self,
        query: &Prepared,
        for_list: &ForList,
        list: usize,
        typos: bool,
        keep: impl Fn(u32) -> bool,
        hits: &mut Vec<Hit>,
    ) {
        let required = &for_list.required;
        // Only the words that must be found may have typos: a stop word may be missing anyway.
        let may_have_typos = |(word, required): (&QueryWord, &bool)| *required && word.budget > 0;
        if typos && !query.words.iter().zip(required).any(may_have_typos) {
            return;
        }
        if typos && let [word] = query.words.as_slice() {
            // One word with typos: the names holding a word near it, each with its fewest typos (a
            // name holding the word itself was found without typos).
            let mut found: Vec<(u32, u32)> = self
                .words_near(word)
                .into_iter()
                .filter(|&(_, typos)| typos > 0)
                .flat_map(|(number, typos)| {
                    self.names_holding(number).iter().map(move |&position| (position, typos))
                })
                .collect();
            found.sort_unstable();
            found.dedup_by_key(|(position, _)| *position);
            for (position, typos) in found {
                let name = &self.names[position as usize];
                if keep(name.doc) {
                    hits.push(query.hit(name, list, Tier::Typo, typos, 0, 0));
                }
            }
            return;
        }
        let mut scratch = Scratch::default();
        let check = |position: u32| {
            if keep(self.names[position as usize].doc)
                && let Some(hit) = self.evaluate(position, list, query, required, typos, &mut scratch)
                && (!typos || hit.typos > 0)
            {
                hits.push(hit);
            }
        };
        match self.candidates(query, for_list, typos) {
            Some(candidates) => candidates.into_iter().for_each(check),
            None => (0..self.names.len() as u32).for_each(check),
        }
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.names.capacity() * size_of::<Name>()
            + self.grams.heap_bytes()
            + self.words_text.capacity()
            + self.words.capacity() * size_of::<Word>()
            + self.word_grams.heap_bytes()
            + self.one_out.heap_bytes()
            + (self.word_name_starts.capacity() + self.word_names.capacity()) * size_of::<u32>()
            + self.stop_words.capacity() * size_of::<String>()
            + self.stop_words.iter().map(String::capacity).sum::<usize>()
    }
}

/// Whether the halves of a word typed as one, `first` and `second`, are words of a name (`words`,
/// whose stop words are the bits of `stop`) next to each other and in order, with only stop words
/// between: `first` whole, `second` whole or, when it is the word being typed, the start of one.
/// `sopacalabaza` is `sopa de calabaza` and `derbock` `der bock`; `paleale` is not `ale pale`, nor
/// `pale` and the inside of `dale`. Every place of `first` is tried (`pale wheat pale ale`).
fn next_to_each_other(
    words: &[(&str, u32, Use)],
    stop: u32,
    first: &str,
    second: &str,
    typing: bool,
) -> bool {
    let is_stop = |i: usize| i < 32 && stop & 1 << i != 0;
    let follows = |i: usize| {
        for (j, &(word, _, _)) in words.iter().enumerate().skip(i + 1) {
            if word == second || (typing && word.starts_with(second)) {
                return true;
            }
            if !is_stop(j) {
                return false;
            }
        }
        false
    };
    words.iter().enumerate().any(|(i, &(word, _, _))| word == first && follows(i))
}

/// How `name` holds `query` exactly, if it does (both folded).
fn tier(name: &str, query: &str) -> Option<Tier> {
    if name.len() < query.len() {
        return None;
    }
    if name == query {
        return Some(Tier::Whole);
    }
    if name.starts_with(query) {
        return Some(Tier::Prefix);
    }
    // Each occurrence after the start, overlapping ones included, until one starts a word. A plain scan
    // of the bytes: for names this short it beats preparing a searcher, and the bytes of a whole
    // character sequence can only match where a character starts.
    let (name, query) = (name.as_bytes(), query.as_bytes());
    let mut found = None;
    for at in 1..=name.len() - query.len() {
        if begins(&name[at..], query) {
            if name[at - 1] == b' ' {
                return Some(Tier::WordPrefix);
            }
            found = Some(Tier::Substring);
        }
    }
    found
}

/// Whether `word` holds `part`: for the short strings of names, a plain scan beats `str::contains`,
/// which prepares a searcher first.
fn holds(word: &str, part: &str) -> bool {
    let (word, part) = (word.as_bytes(), part.as_bytes());
    word.len() >= part.len() && (0..=word.len() - part.len()).any(|at| begins(&word[at..], part))
}

/// Whether `text` starts with `part`, byte by byte: most tries fail at the first byte, and for the
/// few bytes of a word a loop beats calling `memcmp`.
fn begins(text: &[u8], part: &[u8]) -> bool {
    text.len() >= part.len() && text.iter().zip(part).all(|(a, b)| a == b)
}

/// What one list needs of a query, worked out once for the pass without typos and the one with.
#[derive(Debug)]
struct ForList {
    /// Which query words must be found in a name of the list: all but the list language's stop
    /// words, or all of them when the query has nothing else.
    required: Vec<bool>,
    /// For each required query word with bigrams, the names holding them all, ascending.
    holding: Vec<Option<Vec<u32>>>,
}

/// A query folded once and cut into words, with what every list needs of it.
#[derive(Debug)]
struct Prepared {
    folded: String,
    words: Vec<QueryWord>,
    /// How it was made of the query as typed.
    derivation: Derivation,
}

#[derive(Debug)]
struct QueryWord {
    text: String,
    chars: Vec<char>,
    grams: Vec<u64>,
    /// How many typos it may have.
    budget: u32,
    /// Its [`letters`].
    letters: u64,
}

impl QueryWord {
    fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        QueryWord {
            text: text.to_owned(),
            grams: grams_of(&chars),
            budget: budget(&chars),
            letters: letters(&chars),
            chars,
        }
    }
}

impl Prepared {
    /// `None` when the query folds to nothing.
    fn new(query: &str) -> Option<Self> {
        let folded = fold(query);
        let words = folded.split(' ').filter(|w| !w.is_empty()).map(QueryWord::new).collect::<Vec<_>>();
        (!words.is_empty()).then_some(Prepared { folded, words, derivation: Derivation::Typed })
    }

    /// A hit on `name` found with these words: its exact words counted as typed, and a derived
    /// query's match told as found in words (or with typos), never as the typed query in one piece.
    fn hit(&self, name: &Name, list: usize, tier: Tier, typos: u32, exact: u64, apart: u32) -> Hit {
        let derived = self.derivation != Derivation::Typed;
        Hit {
            doc: name.doc,
            list,
            tier: if derived { tier.max(Tier::Words) } else { tier },
            chars: name.chars,
            typos,
            exact_words: self.derivation.exact_words(exact),
            derived,
            apart,
        }
    }
}

impl Index {
    pub fn builder() -> IndexBuilder {
        IndexBuilder::default()
    }

    /// The best `limit` documents whose name in one of `lists` matches `query`, best first, each once.
    /// `keep` says which documents may be answered (the others are skipped before ranking). A list
    /// number the index does not have holds no names.
    pub fn search(&self, query: &str, lists: &[usize], keep: impl Fn(u32) -> bool, limit: usize) -> Vec<Hit> {
        let Some(typed) = Prepared::new(query) else { return Vec::new() };
        if limit == 0 {
            return Vec::new();
        }
        let searched: Vec<(usize, &NameList)> =
            lists.iter().enumerate().filter_map(|(i, &l)| self.lists.get(l).map(|list| (i, list))).collect();
        let for_lists = |query: &Prepared| -> Vec<ForList> {
            searched.iter().map(|(_, list)| list.for_query(query)).collect()
        };
        let pass = |query: &Prepared, for_lists: &[ForList], typos: bool, hits: &mut Vec<Hit>| {
            for ((position, list), for_list) in searched.iter().zip(for_lists) {
                list.search(query, for_list, *position, typos, &keep, hits);
            }
            best_per_doc(hits);
        };
        let words = typed.words.len();
        let mut queries = vec![(for_lists(&typed), typed)];
        let mut hits = Vec::new();
        pass(&queries[0].1, &queries[0].0, false, &mut hits);

        // Words typed joined or apart rank below every hit with all the words found exactly and no
        // typo: they are looked for only while such hits leave room.
        let complete = hits.iter().filter(|h| h.exact_words as usize == words && h.typos == 0).count();
        if complete < limit {
            for variant in queries[0].1.variants(searched.iter().map(|&(_, list)| list)) {
                let for_variant = for_lists(&variant);
                pass(&variant, &for_variant, false, &mut hits);
                queries.push((for_variant, variant));
            }
        }

        // A hit with a typo has at most all words but one found exactly, and more typos than any hit
        // without: it can only pass hits without typos that have fewer words found exactly.
        let unbeatable = hits.iter().filter(|h| h.exact_words as usize + 1 >= words).count();
        if unbeatable < limit {
            // A document found without typos may still rank better with them (more words exact).
            for (for_lists, query) in &queries {
                // Words joined or apart with a typo rank below every hit with more words found
                // exactly than they can have; the typed query's typos may have found enough such.
                let most = query.derivation.most_exact_words_with_a_typo(words);
                let better = || hits.iter().filter(|h| h.exact_words as usize > most).count();
                if query.words.iter().any(|w| w.budget > 0) && better() < limit {
                    pass(query, for_lists, true, &mut hits);
                }
            }
        }

        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, |a, b| a.rank().cmp(&b.rank()));
            hits.truncate(limit);
        }
        hits.sort_unstable_by_key(Hit::rank);
        hits
    }

    /// Bytes the index holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.lists.capacity() * size_of::<NameList>()
            + self.lists.iter().map(NameList::heap_bytes).sum::<usize>()
    }

    /// How many names the index holds, over every list.
    pub fn len(&self) -> usize {
        self.lists.iter().map(|l| l.names.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Keeps each document's best hit only (in no particular order).
fn best_per_doc(hits: &mut Vec<Hit>) {
    hits.sort_unstable_by(|a, b| a.doc.cmp(&b.doc).then_with(|| a.rank().cmp(&b.rank())));
    hits.dedup_by(|later, first| later.doc == first.doc);
}

#[cfg(test)]
mod tests;
