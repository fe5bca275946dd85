//! The name index of one game version: per language, every folded name in one contiguous string, with a
//! bigram posting list that narrows a query to the few names that can hold it before any string is compared.
//!
//! A query matches a name when its folded form is part of the folded name ([`crate::fold`]). Matches rank,
//! best first, by [`Tier`] (the whole name, its start, the start of one of its words, anywhere in it, then
//! with one typo), then shorter names first, then by document number, which the caller assigns in the order
//! ties should break in. A document appears once in the answer, with its best match over every list
//! searched.
//!
//! Typos are tried only when exact matching found fewer hits than asked for, and only on names that share
//! enough bigrams with the query to be one edit away from holding it (see [`MIN_TYPO_WORD_CHARS`](crate::MIN_TYPO_WORD_CHARS)).

use crate::fold;
use crate::typo::{Typo, within_one_edit};

/// How well a name matched a query; the order is the ranking, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// The folded query is the whole folded name.
    Whole,
    /// The folded name starts with the folded query.
    Prefix,
    /// One of the name's words (after the first) starts with the query.
    WordPrefix,
    /// The query is somewhere inside the name, including inside a word (how Chinese, Japanese and Thai
    /// names, written without spaces, are searched).
    Substring,
    /// The name holds the query with one edit, in a query word of at least
    /// [`MIN_TYPO_WORD_CHARS`](crate::MIN_TYPO_WORD_CHARS) characters.
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
}

impl Hit {
    /// Best first: tier, shorter name, document, then the earlier list.
    fn rank(&self) -> (Tier, u32, u32, usize) {
        (self.tier, self.chars, self.doc, self.list)
    }
}

/// Collects names, then builds the [`Index`].
#[derive(Debug, Default)]
pub struct IndexBuilder {
    lists: Vec<Vec<(u32, String)>>,
}

impl IndexBuilder {
    /// Adds `name` of document `doc` to list `list` (lists are numbered by the caller: one per language).
    /// A name that folds to nothing (only punctuation) is left out: no query can match it.
    pub fn add(&mut self, list: usize, doc: u32, name: &str) {
        let folded = fold(name);
        if folded.is_empty() {
            return;
        }
        if self.lists.len() <= list {
            self.lists.resize_with(list + 1, Vec::new);
        }
        self.lists[list].push((doc, folded));
    }

    pub fn build(self) -> Index {
        Index { lists: self.lists.into_iter().map(NameList::new).collect() }
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
    /// Distinct bigrams of the names, sorted, with where each one's postings start in `postings`
    /// (`gram_starts` has one more element: the end of the last).
    grams: Vec<u64>,
    gram_starts: Vec<u32>,
    /// For each bigram, the positions in `names` of the names holding it, ascending.
    postings: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct Name {
    start: u32,
    end: u32,
    doc: u32,
    chars: u32,
}

/// Two characters as one sortable key.
fn gram(a: char, b: char) -> u64 {
    (u64::from(u32::from(a)) << 32) | u64::from(u32::from(b))
}

/// The distinct bigrams of `chars`, sorted.
fn grams_of(chars: &[char]) -> Vec<u64> {
    let mut grams: Vec<u64> = chars.windows(2).map(|w| gram(w[0], w[1])).collect();
    grams.sort_unstable();
    grams.dedup();
    grams
}

impl NameList {
    fn new(mut entries: Vec<(u32, String)>) -> Self {
        entries.sort_by_key(|(doc, _)| *doc);
        let mut list = NameList {
            text: String::with_capacity(entries.iter().map(|(_, n)| n.len() + 1).sum()),
            ..NameList::default()
        };
        let mut pairs: Vec<(u64, u32)> = Vec::new();
        let mut chars = Vec::new();
        for (position, (doc, folded)) in entries.iter().enumerate() {
            let start = list.text.len() as u32;
            list.text.push_str(folded);
            let end = list.text.len() as u32;
            list.text.push('\n');
            chars.clear();
            chars.extend(folded.chars());
            list.names.push(Name { start, end, doc: *doc, chars: chars.len() as u32 });
            pairs.extend(grams_of(&chars).into_iter().map(|g| (g, position as u32)));
        }
        pairs.sort_unstable();
        for (g, position) in pairs {
            if list.grams.last() != Some(&g) {
                list.grams.push(g);
                list.gram_starts.push(list.postings.len() as u32);
            }
            list.postings.push(position);
        }
        list.gram_starts.push(list.postings.len() as u32);
        list.text.shrink_to_fit();
        list
    }

    fn name(&self, position: u32) -> (&Name, &str) {
        let name = &self.names[position as usize];
        (name, &self.text[name.start as usize..name.end as usize])
    }

    /// The names holding bigram `g`.
    fn postings(&self, g: u64) -> &[u32] {
        match self.grams.binary_search(&g) {
            Ok(i) => &self.postings[self.gram_starts[i] as usize..self.gram_starts[i + 1] as usize],
            Err(_) => &[],
        }
    }

    /// Calls `found` with each name that holds `query` exactly, and how.
    fn exact(&self, query: &Prepared, mut found: impl FnMut(&Name, Tier)) {
        let check = |position: u32| {
            let (name, text) = self.name(position);
            if let Some(tier) = tier(text, &query.folded) {
                found(name, tier);
            }
        };
        if query.grams.is_empty() {
            // A one-character query has no bigram: look at every name.
            (0..self.names.len() as u32).for_each(check);
            return;
        }
        let mut lists: Vec<&[u32]> = query.grams.iter().map(|&g| self.postings(g)).collect();
        lists.sort_unstable_by_key(|l| l.len());
        let mut candidates: Vec<u32> = lists[0].to_vec();
        for other in &lists[1..] {
            if candidates.len() <= 4 {
                break; // Cheaper to compare the few left than to keep intersecting.
            }
            candidates.retain(|c| other.binary_search(c).is_ok());
        }
        candidates.into_iter().for_each(check);
    }

    /// Calls `found` with each name that holds `query` with one edit, skipping names `skip` says.
    fn typos(
        &self,
        query: &Prepared,
        typo: &Typo,
        skip: impl Fn(&Name) -> bool,
        mut found: impl FnMut(&Name),
    ) {
        // Count-filter lemma: one edit destroys at most two of the query's bigrams, so a name holding
        // the query with one edit holds all but two of its distinct bigrams, and at least one (a query
        // of five characters or more keeps two of its four bigram occurrences at least).
        let needed = query.grams.len().saturating_sub(2).max(1);
        let min_chars = query.chars.len().saturating_sub(1) as u32;
        let mut buffer = Vec::new();
        let mut check = |position: u32| {
            let (name, text) = self.name(position);
            if name.chars < min_chars || skip(name) {
                return;
            }
            buffer.clear();
            buffer.extend(text.chars());
            if within_one_edit(typo, &buffer) {
                found(name);
            }
        };
        let mut counts = vec![0u8; self.names.len()];
        for &g in &query.grams {
            for &position in self.postings(g) {
                counts[position as usize] = counts[position as usize].saturating_add(1);
            }
        }
        for (position, &count) in counts.iter().enumerate() {
            if usize::from(count) >= needed {
                check(position as u32);
            }
        }
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.names.capacity() * size_of::<Name>()
            + self.grams.capacity() * size_of::<u64>()
            + self.gram_starts.capacity() * size_of::<u32>()
            + self.postings.capacity() * size_of::<u32>()
    }
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
    let mut from = name.chars().next().map_or(1, char::len_utf8);
    let mut found = None;
    // Each occurrence, overlapping ones included, until one starts a word.
    while let Some(at) = name.get(from..).and_then(|rest| rest.find(query)) {
        let at = from + at;
        if name.as_bytes()[at - 1] == b' ' {
            return Some(Tier::WordPrefix);
        }
        found = Some(Tier::Substring);
        from = at + name[at..].chars().next().map_or(1, char::len_utf8);
    }
    found
}

/// A query folded once, with what every list needs of it.
#[derive(Debug)]
struct Prepared {
    folded: String,
    chars: Vec<char>,
    grams: Vec<u64>,
}

impl Index {
    pub fn builder() -> IndexBuilder {
        IndexBuilder::default()
    }

    /// The best `limit` documents whose name in one of `lists` matches `query`, best first, each once.
    /// `keep` says which documents may be answered (the others are skipped before ranking). A list
    /// number the index does not have holds no names.
    pub fn search(&self, query: &str, lists: &[usize], keep: impl Fn(u32) -> bool, limit: usize) -> Vec<Hit> {
        let folded = fold(query);
        if folded.is_empty() || limit == 0 {
            return Vec::new();
        }
        let chars: Vec<char> = folded.chars().collect();
        let query = Prepared { grams: grams_of(&chars), chars, folded };
        let searched: Vec<(usize, &NameList)> =
            lists.iter().enumerate().filter_map(|(i, &l)| self.lists.get(l).map(|list| (i, list))).collect();

        let mut hits = Vec::new();
        for &(position, list) in &searched {
            list.exact(&query, |name, tier| {
                if keep(name.doc) {
                    hits.push(Hit { doc: name.doc, list: position, tier, chars: name.chars });
                }
            });
        }
        best_per_doc(&mut hits);

        if hits.len() < limit
            && let Some(typo) = Typo::new(&query.chars)
        {
            let mut found: Vec<u32> = hits.iter().map(|h| h.doc).collect();
            found.sort_unstable();
            let mut typos = Vec::new();
            for &(position, list) in &searched {
                list.typos(
                    &query,
                    &typo,
                    |name| found.binary_search(&name.doc).is_ok() || !keep(name.doc),
                    |name| {
                        typos.push(Hit { doc: name.doc, list: position, tier: Tier::Typo, chars: name.chars })
                    },
                );
            }
            best_per_doc(&mut typos);
            hits.extend(typos);
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
