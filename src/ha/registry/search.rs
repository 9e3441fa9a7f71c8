//! Finding entities by free-text name, ranked: the tool's search, the prompt's candidates.

use super::{Candidate, Entity, Registry};
use crate::ha::search::Query;

impl Registry {
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
        // Scored first, described after: only the best `limit` become candidates (a word
        // that names a domain scores every entity of it, thousands in a large home).
        let mut scored: Vec<(f64, &Entity)> = self
            .entities()
            .filter(|e| domain.is_none_or(|d| e.domain() == d))
            .filter(|e| area_id.is_none_or(|a| e.area_id.as_deref() == Some(a)))
            .filter_map(|e| {
                // With only filters and no words, every entity in scope is a candidate.
                let score = if query.is_empty() {
                    1.0
                } else {
                    e.haystack.score(&query)
                };
                (score > 0.0).then_some((score, e))
            })
            .collect();
        let best_first = |a: &(f64, &Entity), b: &(f64, &Entity)| {
            b.0.total_cmp(&a.0)
                .then_with(|| a.1.entity_id.cmp(&b.1.entity_id))
        };
        if limit < scored.len() {
            if limit == 0 {
                return Vec::new();
            }
            scored.select_nth_unstable_by(limit - 1, best_first);
            scored.truncate(limit);
        }
        scored.sort_by(best_first);
        scored
            .into_iter()
            .map(|(score, e)| Candidate {
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
            .collect()
    }
}
