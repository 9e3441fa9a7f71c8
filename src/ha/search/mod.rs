//! Free-text matching of entity names: "kitchen light", "światło w kuchni", "Küchenlicht".
//!
//! Pure functions over folded tokens, so ranking is deterministic and unit-testable.
//! Folding lowercases, strips Polish and German diacritics and splits on anything that is not
//! a letter or digit. Word forms are matched by a shared stem-like prefix ("kuchni" ~ "kuchnia",
//! "lights" ~ "light"), and common words for a domain ("lamp", "światło", "Licht") count as a
//! match on that domain.

use std::sync::LazyLock;

use crate::text::tokens;

mod index;

pub use crate::text::word_score;
pub use index::WordIndex;

/// The domain a word names, if any.
pub fn domain_of_word(word: &str) -> Option<&'static str> {
    crate::lang::named_by(|l| l.kinds, word)
}

/// The domains any word names, in one order: an entity's domain is kept as its place here
/// (a [`Kind`]), so a search compares a number per entity, not the domain's text behind a
/// pointer (every entity, for every word of a query).
static NAMED_DOMAINS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut all: Vec<&'static str> = crate::lang::LEXICONS
        .iter()
        .flat_map(|l| l.kinds.iter().map(|(domain, _)| *domain))
        .collect();
    all.sort_unstable();
    all.dedup();
    all
});

/// A domain some word names, or [`Kind::UNNAMED`] for one no word names (no query word then
/// matches an entity by its kind).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Kind(u8);

impl Kind {
    const UNNAMED: Self = Self(0);

    fn of(domain: &str) -> Self {
        NAMED_DOMAINS
            .binary_search(&domain)
            .ok()
            .and_then(|i| u8::try_from(i + 1).ok())
            .map_or(Self::UNNAMED, Self)
    }
}

/// What one entity offers to match against, prepared once per entity: the words of its name,
/// then those of its id and of where it is (its area's name, its floor's) that are not words
/// of its name (readers take any word of the three, so none is kept twice).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Haystack {
    /// Every word, each followed by a space: one allocation per entity, not one per word (a
    /// large home's memory), read in one run by every walk of the home's words.
    words: Box<str>,
    name_len: u16,
    id_len: u16,
    /// The words of the aliases that no other segment holds, last ([`Haystack::with_aliases`]).
    alias_len: u16,
    kind: Kind,
}

/// What a word must share with any word it matches ([`word_score`]): its first four bytes,
/// or the whole of a shorter word (which only matches itself), as one number. Words with
/// different keys never match; two with one key may.
pub fn stem_key(word: &str) -> u32 {
    let bytes = word.as_bytes();
    // A shorter word keeps its length in the high bits, so it never shares a key with a
    // longer word (whose first byte fills them).
    bytes
        .iter()
        .take(4)
        .fold(bytes.len().min(4) as u32, |k, &b| (k << 8) | u32::from(b))
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
        Self::of_words(domain, &name, &object_id, &area)
    }

    /// The haystack of exactly these words.
    fn of_words(domain: &str, name: &[String], object_id: &[String], area: &[String]) -> Self {
        let all = || name.iter().chain(object_id).chain(area);
        let mut words = String::with_capacity(all().map(|w| w.len() + 1).sum());
        for w in all() {
            words.push_str(w);
            words.push(' ');
        }
        // Names of more than 65,535 words are cut there (no name is near it).
        let count = |list: &[String]| u16::try_from(list.len()).unwrap_or(u16::MAX);
        Self {
            words: words.into(),
            name_len: count(name),
            id_len: count(object_id),
            alias_len: 0,
            kind: Kind::of(domain),
        }
    }

    /// The haystack with the words of the entity's aliases that it does not hold yet, as a
    /// last segment: a word of an alias finds the entity as a word of its id or place does
    /// (searches, [`Haystack::words`]); whether an alias is said whole is the entity's
    /// aliases' to say, not these words'.
    #[must_use]
    pub fn with_aliases(self, aliases: &[String]) -> Self {
        let mut added: Vec<String> = Vec::new();
        for word in aliases.iter().flat_map(|a| tokens(a)) {
            if !self.words().any(|w| w == word) && !added.contains(&word) {
                added.push(word);
            }
        }
        if added.is_empty() {
            return self;
        }
        let mut words = String::from(self.words);
        for w in &added {
            words.push_str(w);
            words.push(' ');
        }
        Self {
            words: words.into(),
            alias_len: u16::try_from(added.len()).unwrap_or(u16::MAX),
            ..self
        }
    }

    /// Every word: the name's, the id's, the place's.
    pub fn words(&self) -> impl Iterator<Item = &str> + Clone {
        self.words.split_terminator(' ')
    }

    /// The words of the name, in order.
    pub fn name(&self) -> impl Iterator<Item = &str> + Clone {
        self.words().take(self.name_len.into())
    }

    pub fn name_len(&self) -> usize {
        self.name_len.into()
    }

    /// The words of the name and the id (not of the place).
    pub fn named(&self) -> impl Iterator<Item = &str> + Clone {
        self.words()
            .take(usize::from(self.name_len) + usize::from(self.id_len))
    }

    /// The words of the id and the place that are not words of the name.
    #[cfg(test)]
    fn beside_name(&self) -> impl Iterator<Item = &str> + Clone {
        self.words().skip(self.name_len.into())
    }

    /// The words of the name and the place (not of the id or the aliases).
    pub fn name_and_place(&self) -> impl Iterator<Item = &str> + Clone {
        let place = usize::from(self.name_len) + usize::from(self.id_len);
        let aliases = self.words().count() - usize::from(self.alias_len);
        self.words()
            .enumerate()
            .filter(move |(i, _)| *i < usize::from(self.name_len) || (*i >= place && *i < aliases))
            .map(|(_, w)| w)
    }

    /// Score of a query against this entity; 0 means no match. The rule written plainly, one
    /// entity at a time: searches run it through the [`WordIndex`], which is held to this to
    /// the bit.
    ///
    /// Each query word takes its best match among name, entity-id and area words, or counts as
    /// matched when it names this entity's domain. The total is divided by the number of query
    /// words, so "kitchen light" prefers the kitchen's light over every light. A small bonus
    /// grows with the share of the name the query covers, so the exact name ranks first.
    #[cfg(test)]
    pub(crate) fn score(&self, query: &Query) -> f64 {
        if query.words.is_empty() {
            return 0.0;
        }
        let mut total = 0.0;
        let mut specific = false;
        // Which name words matched (names longer than 64 words only lose the bonus precision).
        let mut name_hits: u64 = 0;
        let named = self.kind != Kind::UNNAMED && query.kinds.contains(&self.kind);
        for (q, q_kind) in query.words.iter().zip(&query.kinds) {
            let mut best = 0.0_f64;
            for (i, w) in self.name().enumerate() {
                let s = word_score(q, w);
                if s > 0.0 && i < 64 {
                    name_hits |= 1 << i;
                }
                best = best.max(s);
            }
            for w in self.beside_name() {
                best = best.max(word_score(q, w));
            }
            if best > 0.0 {
                specific = true;
            } else if named && *q_kind == self.kind {
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
        if self.name_len > 0 {
            // Prefer names the query covers best: "kitchen" ranks "Kitchen Lights" above
            // "Kitchen light 12".
            let covered = f64::from(name_hits.count_ones());
            score += 0.1 * covered / f64::from(self.name_len);
        }
        score
    }
}

/// A query prepared once per search: its words and the domain each word names.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub words: Vec<String>,
    /// The domain each word names ([`Kind::UNNAMED`] for none).
    kinds: Vec<Kind>,
}

impl Query {
    pub fn new(text: &str) -> Self {
        let words = tokens(text);
        let kinds = words
            .iter()
            .map(|w| domain_of_word(w).map_or(Kind::UNNAMED, Kind::of))
            .collect();
        Self { words, kinds }
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
        /// The index is whole: two words that match at all have the same stem key.
        #[test]
        fn words_that_match_share_a_stem_key(a in "[a-eł]{1,9}", b in "[a-eł]{1,9}") {
            if word_score(&a, &b) > 0.0 {
                proptest::prop_assert_eq!(stem_key(&a), stem_key(&b));
            }
        }

        /// Keeping each word once changes no score: the same as the id's and the area's words
        /// in full.
        #[test]
        fn words_kept_once_change_no_score(query in "[a-e]{1,6}( [a-e]{1,6}){0,3}", name in "[a-e]{1,4}( [a-e]{1,4}){0,2}", id in "[a-e]{1,4}(_[a-e]{1,4}){0,2}", area in "[a-e]{1,4}( [a-e]{1,4})?") {
            let hay = Haystack::placed(&format!("light.{id}"), &name, tokens(&area));
            let full = Haystack::of_words("light", &tokens(&name), &tokens(&id.replace('_', " ")), &tokens(&area));
            let query = Query::new(&query);
            proptest::prop_assert_eq!(hay.score(&query).to_bits(), full.score(&query).to_bits());
        }
    }

    #[test]
    fn aliases_add_their_new_words_last_and_are_no_place() {
        let hay = Haystack::new("light.bedroom_lamp", "Bedroom Lamp", Some("Upstairs"))
            .with_aliases(&["Night Light".into(), "night lamp".into(), String::new()]);
        let words: Vec<&str> = hay.words().collect();
        assert_eq!(words, ["bedroom", "lamp", "upstairs", "night", "light"]);
        assert_eq!(hay.name().collect::<Vec<_>>(), ["bedroom", "lamp"]);
        assert_eq!(
            hay.name_and_place().collect::<Vec<_>>(),
            ["bedroom", "lamp", "upstairs"]
        );
        assert!(hay.score(&q("night light")) > 0.0);
        let plain = Haystack::new("light.bedroom_lamp", "Bedroom Lamp", None);
        assert_eq!(plain.clone().with_aliases(&[]), plain);
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
