//! Free-text matching of entity names: "kitchen light", "światło w kuchni", "Küchenlicht".
//!
//! Pure functions over folded tokens, so ranking is deterministic and unit-testable.
//! Folding lowercases, strips Polish and German diacritics and splits on anything that is not
//! a letter or digit. Word forms are matched by a shared stem-like prefix ("kuchni" ~ "kuchnia",
//! "lights" ~ "light"), and common words for a domain ("lamp", "światło", "Licht") count as a
//! match on that domain.

use crate::text::tokens;
pub use crate::text::word_score;

/// The domain a word names, if any.
pub fn domain_of_word(word: &str) -> Option<&'static str> {
    crate::lang::named_by(|l| l.kinds, word)
}

/// What one entity offers to match against, prepared once per entity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Haystack {
    pub name: Vec<String>,
    /// The words of the entity id and of where it is (its area's name, its floor's) that are
    /// not words of its name: readers take any word of the three, so none is kept twice.
    pub object_id: Vec<String>,
    pub area: Vec<String>,
    pub domain: String,
    /// The [`stem_bit`]s of all those words: a query word whose bit is not among them
    /// matches none of them, so a search skips this entity's words for it without comparing
    /// any (most entities, for most words of a command).
    stems: u128,
}

/// One bit of 128 for what a word must share with any word it matches ([`word_score`]): its
/// first four bytes, or the whole of a shorter word (which only matches itself). Words that
/// differ there never match; two that share a bit only may (a false "maybe", never a false
/// "no").
pub fn stem_bit(word: &str) -> u128 {
    let bytes = word.as_bytes();
    let key = bytes
        .iter()
        .take(4)
        .fold(bytes.len().min(4) as u32, |k, &b| (k << 8) | u32::from(b));
    1 << (key.wrapping_mul(0x9E37_79B9) >> 25)
}

impl Haystack {
    pub fn new(entity_id: &str, name: &str, area_name: Option<&str>) -> Self {
        Self::placed(entity_id, name, area_name.map(tokens).unwrap_or_default())
    }

    /// An entity in a place said by `area` words (its area's name, its floor's).
    pub fn placed(entity_id: &str, name: &str, area: Vec<String>) -> Self {
        let (domain, object_id) = entity_id.split_once('.').unwrap_or(("", entity_id));
        let name = tokens(name);
        // A word of the id or the area that is a word of the name already adds nothing to a
        // match (every reader takes any word of name, id and area), and ids mostly spell the
        // name: each is compared once.
        let object_id: Vec<String> = tokens(&object_id.replace('_', " "))
            .into_iter()
            .filter(|w| !name.contains(w))
            .collect();
        let area: Vec<String> = area.into_iter().filter(|w| !name.contains(w)).collect();
        let stems = name
            .iter()
            .chain(&object_id)
            .chain(&area)
            .fold(0, |set, w| set | stem_bit(w));
        Self {
            name,
            object_id,
            area,
            domain: domain.to_owned(),
            stems,
        }
    }

    /// Whether any of this entity's words may match a word whose [`stem_bit`]s are `bits`:
    /// `false` is certain (no word of it matches), `true` only a maybe.
    pub fn may_match(&self, bits: u128) -> bool {
        self.stems & bits != 0
    }

    /// Score of a query against this entity; 0 means no match.
    ///
    /// Each query word takes its best match among name, entity-id and area words, or counts as
    /// matched when it names this entity's domain. The total is divided by the number of query
    /// words, so "kitchen light" prefers the kitchen's light over every light. A small bonus
    /// grows with the share of the name the query covers, so the exact name ranks first.
    pub fn score(&self, query: &Query) -> f64 {
        if query.words.is_empty() {
            return 0.0;
        }
        let mut total = 0.0;
        let mut specific = false;
        // Which name words matched (names longer than 64 words only lose the bonus precision).
        let mut name_hits: u64 = 0;
        // Most entities share no stem with any query word and are of no kind it names.
        if self.stems & query.stems == 0 && !query.domains.contains(&Some(self.domain.as_str())) {
            return 0.0;
        }
        for ((q, q_domain), q_stem) in query.words.iter().zip(&query.domains).zip(&query.bits) {
            let mut best = 0.0_f64;
            if self.stems & q_stem != 0 {
                for (i, w) in self.name.iter().enumerate() {
                    let s = word_score(q, w);
                    if s > 0.0 && i < 64 {
                        name_hits |= 1 << i;
                    }
                    best = best.max(s);
                }
                for w in self.object_id.iter().chain(&self.area) {
                    best = best.max(word_score(q, w));
                }
            }
            if best > 0.0 {
                specific = true;
            } else if *q_domain == Some(self.domain.as_str()) {
                best = 0.9;
            }
            total += best;
        }
        if total == 0.0 {
            return 0.0;
        }
        let mut score = total / query.words.len() as f64;
        if !specific {
            // Only the domain matched ("lights"): a candidate, but below any named match.
            score *= 0.5;
        }
        if !self.name.is_empty() {
            // Prefer names the query covers best: "kitchen" ranks "Kitchen Lights" above
            // "Kitchen light 12".
            let covered = f64::from(name_hits.count_ones());
            score += 0.1 * covered / self.name.len() as f64;
        }
        score
    }
}

/// A query prepared once per search: its words and the domain each word names.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub words: Vec<String>,
    domains: Vec<Option<&'static str>>,
    /// Each word's [`stem_bit`], and all of them together.
    bits: Vec<u128>,
    stems: u128,
}

impl Query {
    pub fn new(text: &str) -> Self {
        let words = tokens(text);
        let domains = words.iter().map(|w| domain_of_word(w)).collect();
        let bits: Vec<u128> = words.iter().map(|w| stem_bit(w)).collect();
        let stems = bits.iter().fold(0, |all, b| all | b);
        Self {
            words,
            domains,
            bits,
            stems,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Query {
        Query::new(text)
    }

    proptest::proptest! {
        /// The skip is safe: two words that match at all have the same stem bit.
        #[test]
        fn words_that_match_share_a_stem_bit(a in "[a-eł]{1,9}", b in "[a-eł]{1,9}") {
            if word_score(&a, &b) > 0.0 {
                proptest::prop_assert_eq!(stem_bit(&a), stem_bit(&b));
            }
        }

        /// Keeping each word once changes no score: the same as the id's and the area's words
        /// in full.
        #[test]
        fn words_kept_once_change_no_score(query in "[a-e]{1,6}( [a-e]{1,6}){0,3}", name in "[a-e]{1,4}( [a-e]{1,4}){0,2}", id in "[a-e]{1,4}(_[a-e]{1,4}){0,2}", area in "[a-e]{1,4}( [a-e]{1,4})?") {
            let hay = Haystack::placed(&format!("light.{id}"), &name, tokens(&area));
            let full = Haystack {
                object_id: tokens(&id.replace('_', " ")),
                area: tokens(&area),
                ..hay.clone()
            };
            let query = Query::new(&query);
            proptest::prop_assert_eq!(hay.score(&query).to_bits(), full.score(&query).to_bits());
        }

        /// Skipping by stem bits changes no score: the same as comparing every word.
        #[test]
        fn the_skip_changes_no_score(query in "[a-e]{1,6}( [a-e]{1,6}){0,3}", name in "[a-e]{1,6}( [a-e]{1,6}){0,3}") {
            let hay = Haystack::new("light.x", &name, Some("abc"));
            let all = Haystack { stems: u128::MAX, ..hay.clone() };
            let query = Query::new(&query);
            proptest::prop_assert_eq!(hay.score(&query).to_bits(), all.score(&query).to_bits());
        }
    }

    #[test]
    fn word_forms_share_a_stem() {
        assert_eq!(word_score("kuchni", "kuchnia"), 0.8);
        assert_eq!(word_score("lights", "light"), 0.8);
        assert_eq!(word_score("bed", "bedroom"), 0.0);
        assert_eq!(word_score("kitchen", "kitchen"), 1.0);
    }

    #[test]
    fn kitchen_light_prefers_the_kitchen_lights_over_other_lights() {
        let kitchen = Haystack::new("light.kitchen_lights", "Kitchen Lights", None);
        let bed = Haystack::new("light.bed_light", "Bed Light", None);
        let window = Haystack::new("cover.kitchen_window", "Kitchen Window", None);
        let query = q("kitchen light");
        let (k, b, w) = (
            kitchen.score(&query),
            bed.score(&query),
            window.score(&query),
        );
        assert!(k > b && k > w, "kitchen {k}, bed {b}, window {w}");
        assert!(b > 0.0 && w > 0.0);
    }

    #[test]
    fn polish_and_german_names_match_through_area_and_domain_words() {
        let in_kitchen = Haystack::new("light.sufit", "Sufit", Some("Kuchnia"));
        let elsewhere = Haystack::new("light.lampka", "Lampka nocna", Some("Sypialnia"));
        let query = q("światło w kuchni");
        assert!(in_kitchen.score(&query) > elsewhere.score(&query));
        let german = Haystack::new("light.kuche", "Küche Decke", None);
        assert!(german.score(&q("Licht Küche")) > 0.9);
    }

    #[test]
    fn unrelated_queries_do_not_match() {
        let bed = Haystack::new("light.bed_light", "Bed Light", None);
        assert_eq!(bed.score(&q("garage door")), 0.0);
        assert_eq!(bed.score(&Query::default()), 0.0);
    }
}
