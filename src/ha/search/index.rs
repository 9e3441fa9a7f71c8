//! The home's words, each pointing at the entities it is a word of.
//!
//! A ranked search scored every entity of the home against every query word; in a home of
//! thousands that walk (and a pointer chased per word of each name) was most of the agent's
//! own time per command. Here a query word reads only the words sharing its [`stem_key`] —
//! the only words it can match — and the entities those words belong to, plus, for a word
//! naming a kind ("lights"), the entities of that kind. The scores are those of
//! [`Haystack::score`] to the bit (a property test holds the two together); only the walk is
//! shorter.
//!
//! Invariant: an entity is in the index exactly while it is visible in the registry, under
//! the slot the registry keeps on it; its words are its [`Haystack`]'s.

use std::cell::RefCell;
use std::collections::HashMap;

use super::{Haystack, Kind, Query, stem_key, word_score};

/// Where in an entity a word stands: a word of its name by position (the name's first 64
/// earn the bonus for covering the name), or a word of its id or place.
const NAME_BEYOND_BITS: u8 = 64;
const NOT_NAME: u8 = u8::MAX;

/// A piece of the index's text: a word or an entity id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u32,
}

/// One word of one entity.
#[derive(Debug, Clone, Copy)]
struct Posting {
    word: Span,
    slot: u32,
    at: u8,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    entity_id: Span,
    /// Words in the entity's name (the cover bonus divides by it).
    name_len: u32,
}

/// What a search has gathered for one entity so far.
#[derive(Debug, Clone, Copy, Default)]
struct Tally {
    total: f64,
    /// The best match of the current query word, and which word that is (1-based; 0: none
    /// yet this search).
    best: f64,
    word: usize,
    name_hits: u64,
    specific: bool,
    touched: bool,
}

thread_local! {
    /// One tally per slot, reused by every search on this thread and left zeroed after each.
    static TALLIES: RefCell<Vec<Tally>> = const { RefCell::new(Vec::new()) };
}

/// Words and ids are kept in one text, so a word costs its bytes, not an allocation of its
/// own: the index adds little to a large home's memory.
#[derive(Debug, Default)]
pub struct WordIndex {
    text: String,
    /// Bytes of `text` of entities taken out: an upper bound (a word written once for a run
    /// of entities counts for each of them), so a rebuild may come early, never late.
    garbage: usize,
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    /// Each word of every entity, by [`stem_key`]: all the words a query word may match are
    /// under its key.
    postings: HashMap<u32, Vec<Posting>>,
    /// The entities of each kind a word names, by slot.
    kinds: HashMap<Kind, Vec<u32>>,
}

impl WordIndex {
    /// Adds an entity's words; the slot returned is how it is removed. `None` (the entity is
    /// then not found by searches) only past 4 GiB of words or 2^32 entities.
    pub fn add(&mut self, entity_id: &str, hay: &Haystack) -> Option<u32> {
        let room = hay.words().map(str::len).sum::<usize>() + entity_id.len();
        if u32::try_from(self.text.len() + room).is_err()
            || u32::try_from(self.slots.len()).is_err()
        {
            return None;
        }
        let slot = Slot {
            entity_id: write(&mut self.text, entity_id),
            name_len: u32::try_from(hay.name_len()).unwrap_or(u32::MAX),
        };
        let at = match self.free.pop() {
            Some(at) => {
                self.slots[at as usize] = Some(slot);
                at
            }
            None => {
                self.slots.push(Some(slot));
                // Checked above.
                (self.slots.len() - 1) as u32
            }
        };
        for (word, place) in placed_words(hay) {
            let group = self.postings.entry(stem_key(word)).or_default();
            // A word like the group's last ("light" after "light") is not written again: runs
            // of one word are then told by their place in the text, not by comparing it.
            let span = match group.last() {
                Some(last) if read(&self.text, last.word) == word => last.word,
                _ => write(&mut self.text, word),
            };
            group.push(Posting {
                word: span,
                slot: at,
                at: place,
            });
        }
        if hay.kind != Kind::UNNAMED {
            self.kinds.entry(hay.kind).or_default().push(at);
        }
        Some(at)
    }

    /// Takes out the entity added under `slot` with these words.
    pub fn remove(&mut self, slot: u32, hay: &Haystack) {
        for (word, _) in placed_words(hay) {
            let key = stem_key(word);
            if let Some(group) = self.postings.get_mut(&key) {
                group.retain(|p| {
                    let gone = p.slot == slot;
                    if gone {
                        self.garbage += p.word.len as usize;
                    }
                    !gone
                });
                if group.is_empty() {
                    self.postings.remove(&key);
                }
            }
        }
        if let Some(of_kind) = self.kinds.get_mut(&hay.kind) {
            of_kind.retain(|&s| s != slot);
        }
        if let Some(held) = self.slots.get_mut(slot as usize).and_then(Option::take) {
            self.garbage += held.entity_id.len as usize;
            self.free.push(slot);
        }
    }

    /// Whether most of the text is of entities no longer here (the registry then builds the
    /// index again).
    pub fn is_mostly_garbage(&self) -> bool {
        self.garbage > 4096 && self.garbage * 2 > self.text.len()
    }

    /// Whether `word` (folded) is a word of some entity's name.
    pub fn names_word(&self, word: &str) -> bool {
        self.postings.get(&stem_key(word)).is_some_and(|group| {
            group
                .iter()
                .any(|p| p.at != NOT_NAME && self.read(p.word) == word)
        })
    }

    /// Whether some entity has a word that `word` matches ([`word_score`] above 0).
    pub fn matches_word(&self, word: &str) -> bool {
        self.postings.get(&stem_key(word)).is_some_and(|group| {
            group
                .iter()
                .any(|p| word_score(word, self.read(p.word)) > 0.0)
        })
    }

    /// Whether `word` (folded) is the whole name of some entity.
    pub fn is_whole_name(&self, word: &str) -> bool {
        self.postings.get(&stem_key(word)).is_some_and(|group| {
            group.iter().any(|p| {
                p.at == 0
                    && self.slots[p.slot as usize].is_some_and(|s| s.name_len == 1)
                    && self.read(p.word) == word
            })
        })
    }

    /// Every entity the query matches, with its [`Haystack::score`] (> 0), in no order.
    pub fn scores(&self, query: &Query) -> Vec<(f64, &str)> {
        let mut all = Vec::new();
        self.each_score(query, |score, id| all.push((score, id)));
        all
    }

    /// [`Self::scores`] handed to `visit` one by one: a search that keeps the best few need
    /// not hold every entity of a kind the query names (thousands in a large home).
    pub fn each_score<'s>(&'s self, query: &Query, mut visit: impl FnMut(f64, &'s str)) {
        TALLIES.with_borrow_mut(|tallies| {
            if tallies.len() < self.slots.len() {
                tallies.resize(self.slots.len(), Tally::default());
            }
            let mut touched: Vec<u32> = Vec::new();
            for (i, (q, kind)) in query.words.iter().zip(&query.kinds).enumerate() {
                self.tally_word(i + 1, q, *kind, tallies, &mut touched);
            }
            let n = query.words.len() as f64;
            for &slot in &touched {
                let tally = std::mem::take(&mut tallies[slot as usize]);
                let Some(held) = self.slots[slot as usize] else {
                    continue;
                };
                if tally.total > 0.0 {
                    visit(finish(&tally, n, held.name_len), self.read(held.entity_id));
                }
            }
        });
    }

    /// Adds query word `word` (1-based) to the tallies: its best match in each entity that
    /// has one, else 0.9 for each entity of the kind it names.
    fn tally_word(
        &self,
        word: usize,
        q: &str,
        kind: Kind,
        tallies: &mut [Tally],
        touched: &mut Vec<u32>,
    ) {
        let mut matched: Vec<u32> = Vec::new();
        // Postings of one word mostly come in runs ("light" of every light), written once:
        // its score is worked out once per run.
        let mut last: Option<(Span, f64)> = None;
        for p in self.postings.get(&stem_key(q)).into_iter().flatten() {
            let s = match last {
                Some((span, s)) if span == p.word => s,
                _ => {
                    let s = word_score(q, self.read(p.word));
                    last = Some((p.word, s));
                    s
                }
            };
            if s <= 0.0 {
                continue;
            }
            let tally = &mut tallies[p.slot as usize];
            if !tally.touched {
                tally.touched = true;
                touched.push(p.slot);
            }
            if tally.word != word {
                tally.word = word;
                tally.best = 0.0;
                matched.push(p.slot);
            }
            tally.best = tally.best.max(s);
            if p.at < NAME_BEYOND_BITS {
                tally.name_hits |= 1 << p.at;
            }
        }
        for slot in matched {
            let tally = &mut tallies[slot as usize];
            tally.total += tally.best;
            tally.specific = true;
        }
        if kind == Kind::UNNAMED {
            return;
        }
        for &slot in self.kinds.get(&kind).into_iter().flatten() {
            let tally = &mut tallies[slot as usize];
            if tally.word == word {
                continue;
            }
            if !tally.touched {
                tally.touched = true;
                touched.push(slot);
            }
            tally.word = word;
            tally.total += 0.9;
        }
    }

    fn read(&self, span: Span) -> &str {
        read(&self.text, span)
    }
}

/// Appends `piece` to the index's text; `add` checked that the text stays under 4 GiB.
fn write(text: &mut String, piece: &str) -> Span {
    let span = Span {
        start: text.len() as u32,
        len: piece.len() as u32,
    };
    text.push_str(piece);
    span
}

fn read(text: &str, span: Span) -> &str {
    &text[span.start as usize..(span.start + span.len) as usize]
}

/// [`Haystack::score`]'s last steps, on what the index gathered.
fn finish(tally: &Tally, words: f64, name_len: u32) -> f64 {
    let mut score = tally.total / words;
    if !tally.specific {
        score *= 0.5;
    }
    if name_len > 0 {
        let covered = f64::from(tally.name_hits.count_ones());
        score += 0.1 * covered / f64::from(name_len);
    }
    score
}

/// Each word of an entity with where it stands.
fn placed_words(hay: &Haystack) -> impl Iterator<Item = (&str, u8)> {
    let name = hay.name_len();
    hay.words().enumerate().map(move |(i, w)| {
        let at = if i < name {
            u8::try_from(i).map_or(NAME_BEYOND_BITS, |i| i.min(NAME_BEYOND_BITS))
        } else {
            NOT_NAME
        };
        (w, at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::tokens;

    /// A home of `names` (entity ids `<domain>.e<i>`), indexed, and its haystacks.
    fn indexed(names: &[(String, String, String)]) -> (WordIndex, Vec<(String, Haystack)>) {
        let mut index = WordIndex::default();
        let hays: Vec<(String, Haystack)> = names
            .iter()
            .enumerate()
            .map(|(i, (domain, name, area))| {
                let id = format!("{domain}.e{i}_{}", name.replace(' ', "_"));
                let hay = Haystack::placed(&id, name, tokens(area));
                (id, hay)
            })
            .collect();
        for (id, hay) in &hays {
            index.add(id, hay).unwrap();
        }
        (index, hays)
    }

    fn by_scan(hays: &[(String, Haystack)], query: &Query) -> Vec<(u64, String)> {
        let mut all: Vec<(u64, String)> = hays
            .iter()
            .map(|(id, hay)| (hay.score(query), id))
            .filter(|(s, _)| *s > 0.0)
            .map(|(s, id)| (s.to_bits(), id.clone()))
            .collect();
        all.sort();
        all
    }

    fn by_index(index: &WordIndex, query: &Query) -> Vec<(u64, String)> {
        let mut all: Vec<(u64, String)> = index
            .scores(query)
            .into_iter()
            .map(|(s, id)| (s.to_bits(), id.to_owned()))
            .collect();
        all.sort();
        all
    }

    proptest::proptest! {
        /// The index scores what the scan of every entity scores, to the bit, for the same
        /// entities: kinds named ("light", "lampe"), stems shared ("kitche" ~ "kitchen"),
        /// repeated words, entities taken out and put back.
        #[test]
        fn the_index_scores_as_the_scan(
            home in proptest::collection::vec(
                ("(light|switch|cover|vacuum)", "(kitchen|kitchens|lamp|light|ab|abcd|abcde|abcdef)( (kitchen|lamp|lights|ab|abcde|x1|x12)){0,3}", "(hall|kitchen|ab|abcdef)?"),
                0..12,
            ),
            query in "(kitchen|kitche|lights|light|lampe|lamp|ab|abcd|abcdefg|the|switch|x1|hall)( (kitchen|lights|lamp|ab|abcde|abcd|covers|vacuum|hall|x12)){0,4}",
            removed in proptest::collection::vec(0usize..12, 0..4),
        ) {
            let (mut index, hays) = indexed(&home);
            let mut kept: Vec<(String, Haystack)> = Vec::new();
            for (slot, (id, hay)) in hays.iter().enumerate() {
                if removed.contains(&slot) {
                    index.remove(u32::try_from(slot).unwrap(), hay);
                } else {
                    kept.push((id.clone(), hay.clone()));
                }
            }
            let query = Query::new(&query);
            proptest::prop_assert_eq!(by_index(&index, &query), by_scan(&kept, &query));
            // Put back under new slots: the same as never taken out.
            for (slot, (id, hay)) in hays.iter().enumerate() {
                if removed.contains(&slot) {
                    index.add(id, hay);
                }
            }
            proptest::prop_assert_eq!(by_index(&index, &query), by_scan(&hays, &query));
        }
    }

    #[test]
    fn a_word_is_named_while_an_entity_holding_it_is_indexed() {
        let hay = Haystack::placed("light.a", "Reading Lamp", tokens("Study"));
        let mut index = WordIndex::default();
        let slot = index.add("light.a", &hay).unwrap();
        assert!(index.names_word("lamp") && index.names_word("reading"));
        // A word of the place is not a word of the name.
        assert!(!index.names_word("study"));
        index.remove(slot, &hay);
        assert!(!index.names_word("lamp"));
        assert!(index.scores(&Query::new("reading lamp")).is_empty());
    }
}
