//! Finding entities by free-text name, ranked (the tool's search, the prompt's candidates), and the
//! word index behind it, kept in step with the visible entities.

use super::{Candidate, Registry};
use crate::ha::search::{Query, WordIndex};

/// Up to this many candidates are picked by [`BestFew`]; more by a partition. Above the
/// prompt's 25 searched candidates, so that the search every command makes streams too.
const FEW: usize = 32;

/// The first `limit` of what is offered in `order`, kept in order while reading each once:
/// most are not better than the last kept and cost one comparison (many entities score alike
/// — every "kitchen light N" for "kitchen light" — and a partition compares their ids again
/// and again).
struct BestFew<T, O> {
    kept: Vec<T>,
    limit: usize,
    order: O,
}

impl<T: Copy, O: Fn(&T, &T) -> std::cmp::Ordering> BestFew<T, O> {
    fn new(limit: usize, order: O) -> Self {
        Self {
            kept: Vec::with_capacity(limit + 1),
            limit,
            order,
        }
    }

    fn offer(&mut self, item: T) {
        let order = &self.order;
        if self.kept.len() == self.limit
            && self
                .kept
                .last()
                .is_none_or(|last| order(&item, last).is_ge())
        {
            return;
        }
        let at = self.kept.partition_point(|k| order(k, &item).is_le());
        self.kept.insert(at, item);
        self.kept.truncate(self.limit);
    }
}

impl Registry {
    /// Whether the name of a visible entity holds `word` (folded) as one of its words.
    pub fn names_word(&self, word: &str) -> bool {
        self.index.names_word(word)
    }

    /// Whether a word of a visible entity (of its name, id or place) is `word` or a form of it
    /// (folded; the search's rule for "the same word").
    pub fn matches_word(&self, word: &str) -> bool {
        self.index.matches_word(word)
    }

    /// Whether `word` (folded) is the whole name of a visible entity ("Sonos").
    pub fn is_whole_name(&self, word: &str) -> bool {
        self.index.is_whole_name(word)
    }

    /// Builds the word index again when most of it is of entities gone (each rename or
    /// removal leaves its words behind in the index's text).
    pub(super) fn compact_index(&mut self) {
        if !self.index.is_mostly_garbage() {
            return;
        }
        self.index = WordIndex::default();
        for entity in self.entities.values_mut().filter(|e| e.visible) {
            entity.search_slot = self.index.add(&entity.entity_id, &entity.haystack);
        }
    }

    /// Every visible entity the query's words score, with its score; with no words, every
    /// visible entity alike (only the filters choose).
    fn each_scored<'s>(&'s self, query: &Query, mut visit: impl FnMut(f64, &'s str)) {
        if query.is_empty() {
            self.entities()
                .for_each(|e| visit(1.0, e.entity_id.as_str()));
        } else {
            self.index.each_score(query, visit);
        }
    }

    /// Ranked candidates for a free-text name, optionally within a domain and an area.
    pub fn search(
        &self,
        query: &str,
        domain: Option<&str>,
        area: Option<&str>,
        limit: usize,
    ) -> Vec<Candidate> {
        let query = Query::new(query);
        let area_id = match area {
            Some(text) => match self.resolve_area(text) {
                Some(a) => Some(a.area_id.as_str()),
                None => return Vec::new(),
            },
            None => None,
        };
        let of_domain =
            |id: &str| domain.is_none_or(|d| id.split_once('.').is_some_and(|(of, _)| of == d));
        let in_area = |id: &str| {
            area_id
                .is_none_or(|a| self.entities.get(id).and_then(|e| e.area_id.as_deref()) == Some(a))
        };
        // Scored first, described after: only the best `limit` become candidates (a word
        // that names a domain scores every entity of it, thousands in a large home).
        let in_scope = |id: &str| of_domain(id) && in_area(id);
        let best_first =
            |a: &(f64, &str), b: &(f64, &str)| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1));
        let mut scored: Vec<(f64, &str)> = if limit <= FEW {
            let mut best = BestFew::new(limit, best_first);
            self.each_scored(&query, |score, id| {
                if in_scope(id) {
                    best.offer((score, id));
                }
            });
            best.kept
        } else {
            let mut scored = Vec::new();
            self.each_scored(&query, |score, id| {
                if in_scope(id) {
                    scored.push((score, id));
                }
            });
            if limit < scored.len() {
                scored.select_nth_unstable_by(limit - 1, best_first);
                scored.truncate(limit);
            }
            scored
        };
        scored.sort_by(best_first);
        scored
            .into_iter()
            .filter_map(|(score, id)| {
                let e = self.entities.get(id)?;
                Some(Candidate {
                    entity_id: e.entity_id.clone(),
                    name: e.name.clone(),
                    area: e
                        .area_id
                        .as_deref()
                        .and_then(|a| self.areas.get(a))
                        .map(|a| a.name.clone()),
                    state: e.state.clone(),
                    score,
                })
            })
            .collect()
    }
}
