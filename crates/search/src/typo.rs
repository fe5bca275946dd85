//! One typo: whether a name holds a query with one edit (a character inserted, deleted or replaced),
//! where the edit falls in a query word long enough for a typo to be a typo rather than another word.
//!
//! A transposition (`bakrey` for `bakery`) is two edits, not one: Levenshtein, not Damerau. A query word of
//! fewer than [`MIN_TYPO_WORD_CHARS`] characters never tolerates an edit, so `bred` does not find `bread`.

/// The shortest query word, in characters, that tolerates one edit.
pub const MIN_TYPO_WORD_CHARS: usize = 5;

/// A folded query prepared for typo matching: its characters, and which of them lie in a word long enough
/// to tolerate an edit.
#[derive(Debug)]
pub(crate) struct Typo {
    chars: Vec<char>,
    long: Vec<bool>,
}

impl Typo {
    /// `None` when no word of the folded `query` tolerates an edit.
    pub(crate) fn new(query: &[char]) -> Option<Typo> {
        let mut long = vec![false; query.len()];
        let mut start = 0;
        for (i, c) in query.iter().chain([&' ']).enumerate() {
            if *c == ' ' {
                if i - start >= MIN_TYPO_WORD_CHARS {
                    long[start..i].fill(true);
                }
                start = i + 1;
            }
        }
        long.contains(&true).then(|| Typo { chars: query.to_vec(), long })
    }
}

/// Whether some part of `name` is the query with at most one edit, in one of its long words.
///
/// For each place the query could start in the name, the query is compared up to the first difference
/// (at query position `i`); the only edits worth trying are there, since one elsewhere would leave the
/// difference in place (and trying them in a run of one repeated letter gives the same answer).
pub(crate) fn within_one_edit(typo: &Typo, name: &[char]) -> bool {
    let q = typo.chars.as_slice();
    let m = q.len();
    for s in 0..name.len() {
        let rest = &name[s..];
        let i = q.iter().zip(rest).take_while(|(a, b)| a == b).count();
        if i == m {
            return true;
        }
        // Replaced: q[i] is another letter in the name.
        if typo.long[i] && rest.len() >= m && rest[i + 1..m] == q[i + 1..] {
            return true;
        }
        // Extra in the query: q[i] is not in the name.
        if typo.long[i] && rest.len() + 1 >= m && rest[i..m - 1] == q[i + 1..] {
            return true;
        }
        // Missing from the query: the name has a letter before q[i] (inside the query, not at its ends,
        // where the query is simply part of the name).
        if i > 0 && (typo.long[i - 1] || typo.long[i]) && rest.len() > m && rest[i + 1..m + 1] == q[i..] {
            return true;
        }
    }
    false
}
