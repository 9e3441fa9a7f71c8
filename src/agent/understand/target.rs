//! Naming a target: which entities a command's remaining words name or explain, in every
//! language with a lexicon (`crate::lang`).

use super::intent::{LIGHTS, is_cleaning, is_every_room, is_filler, lighting, watering};
use super::mood::Reading;
use crate::ha::registry::{Entity, Registry};
use crate::ha::search::{Query, domain_of_word, word_score};
use crate::lang::{LEXICONS, any_has, named_by};
use crate::text::tokens;

/// The English words a word translates to through any language's lexicon: "w kuchni" finds
/// the "Kitchen" area, "Deckenventilator" the "Ceiling Fan". A home named in Polish or German
/// matches its own words directly.
fn translated(word: &str) -> impl Iterator<Item = &'static str> + '_ {
    LEXICONS
        .iter()
        .flat_map(|l| l.translations.iter())
        .filter(move |(_, forms)| forms.contains(&word))
        .map(|(english, _)| *english)
}

/// Whether a word names `e`: a word of its name, its id or its room.
pub(crate) fn in_hay(e: &Entity, q: &str) -> bool {
    let hay = &e.haystack;
    hay.words().any(|w| word_matches(q, w))
}

/// A query word matches a name word, itself or as the English room word it translates to.
pub(crate) fn word_matches(query: &str, word: &str) -> bool {
    word_score(query, word) > 0.0
        || translated(query).any(|english| word_score(english, word) > 0.0)
}

/// Whether a word names something of this home, itself or as the English word it translates
/// to ("kuchni" names the Kitchen).
pub(crate) fn names_in_home(word: &str, registry: &Registry) -> bool {
    registry.matches_word(word) || translated(word).any(|english| registry.matches_word(english))
}

/// The English words a word of another language translates to ("klimaanlage" → "ac").
pub fn translations(word: &str) -> Vec<&'static str> {
    translated(word).collect()
}

/// A word the tables know: a translated form, the English word it translates to, or a kind.
pub(crate) fn known_word(word: &str) -> bool {
    domain_of_word(word).is_some()
        || LEXICONS
            .iter()
            .flat_map(|l| l.translations.iter())
            .any(|(english, forms)| *english == word || forms.contains(&word))
}

/// A German compound the home does not name as one word, split into two known words:
/// "deckenleuchten" is "decken leuchten", "haustur" is "haus tur". A home that names a device
/// with the compound itself ("Deckenleuchte") matches it whole and is never split.
pub(crate) fn split_compound(word: &str, registry: &Registry) -> Option<[String; 2]> {
    if word.len() < 7 || known_word(word) {
        return None;
    }
    let named_so = registry.entities().any(|e| {
        let hay = &e.haystack;
        hay.words().any(|w| word_score(word, w) > 0.0)
    });
    if named_so {
        return None;
    }
    crate::text::compound_cuts(word, 3, 3)
        .find(|(left, right)| known_word(left) && known_word(right))
        .map(|(left, right)| [left.to_owned(), right.to_owned()])
}

/// Words that say "a floor" ("the first floor", "im ersten Stock"): beside a word that names
/// one of the home's floors they add nothing; alone ("the floor lamp") they are a name.
fn is_floor_word(word: &str) -> bool {
    any_has(|l| l.floor_words, word)
}

/// The words left to name the target, German compounds split, as a search query.
pub(crate) fn query_of(rest: &[&str], registry: &Registry) -> Query {
    let mut words: Vec<String> = rest
        .iter()
        .flat_map(|w| split_compound(w, registry).map_or_else(|| vec![(*w).to_owned()], Vec::from))
        .collect();
    let names_a_floor = |w: &String| {
        !is_floor_word(w)
            && registry
                .floors()
                .any(|f| f.words().iter().any(|named| word_matches(w, named)))
    };
    if words.iter().any(names_a_floor) {
        words.retain(|w| !is_floor_word(w));
    }
    Query::new(&tokens(&words.join(" ")).join(" "))
}

/// Every query word is explained by this entity: a word of its name, id or area, or a word
/// for its kind.
pub(crate) fn covers(entity: &Entity, query: &Query) -> bool {
    let hay = &entity.haystack;
    query.words.iter().all(|q| {
        hay.words().any(|w| word_matches(q, w))
            || domain_of_word(q).is_some_and(|kind| {
                // "Beleuchtung" explains a switch named "Decorative Lights": its name says the
                // kind. It does not *name* it (a kind word never picks one device alone).
                kind == entity.domain()
                    || hay.name().any(|w| word_score(kind, w) > 0.0)
                    // A thermostat shows a temperature and is set to one.
                    || (kind == "sensor"
                        && entity.domain() == "climate"
                        && !["sensor", "czujnik"].contains(&q.as_str()))
            })
            // "The brightness" is a light's, "the song" a player's.
            || named_by(|l| l.about_kinds, q)
                .is_some_and(|kind| kind == entity.domain() && ABOUT_KINDS.contains(&kind))
            || measured_by(q).is_some_and(|class| {
                entity
                    .attributes
                    .get("device_class")
                    .and_then(serde_json::Value::as_str)
                    == Some(class)
            })
    })
}

/// The device class a measure word names.
fn measured_by(word: &str) -> Option<&'static str> {
    // "The CO2 level" is the carbon dioxide sensor's, whatever the home named it.
    named_by(|l| l.measures, word)
}

/// Every word of the entity's name, or of one of its aliases, is in the query.
pub(crate) fn named(entity: &Entity, query: &Query) -> bool {
    let said = |w: &str| query.words.iter().any(|q| word_matches(q, w));
    (entity.haystack.name_len() > 0 && entity.haystack.name().all(said))
        || entity.aliases.iter().any(|alias| {
            let words = tokens(alias);
            !words.is_empty() && words.iter().all(|w| said(w))
        })
}

/// The device class a kind word names within its domain ("the TV" is not any media player,
/// "the garage light" not the garage door).
/// Whether a device of class `class` is of the class a kind word names: a shade is a blind
/// (people say either), a garage door or a curtain is not.
fn of_class(wanted: &str, class: Option<&str>) -> bool {
    wanted.split('|').any(|wanted| match class {
        Some("shade") => matches!(wanted, "blind" | "shade"),
        Some(class) => class == wanted,
        None => false,
    })
}

/// The device classes a kind word names (`|`-joined); in a command (`commanded`), those its
/// language's commands mean by it ([`crate::lang::Lexicon::commanded_classes`]).
fn specific_class(word: &str, commanded: bool) -> Option<&'static str> {
    let commanded_as = |l: &&crate::lang::Lexicon| {
        l.commanded_classes
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, classes)| *classes)
    };
    if commanded && let Some(classes) = LEXICONS.iter().find_map(commanded_as) {
        return Some(classes);
    }
    LEXICONS.iter().find_map(|l| {
        l.specific_kinds
            .iter()
            .find(|(w, _)| *w == word)
            .map(|(_, class)| *class)
    })
}

/// A word for a room or a place, in any of our languages.
fn is_place_word(word: &str) -> bool {
    let place = |w: &str| any_has(|l| l.places, w);
    place(word) || translated(word).any(place)
}

/// The kind words of a request that bound a device's class ("the TV" is a media player of
/// device class tv, or one so named), read once per request rather than once per device: a
/// kind word constrains only its own domain, and a word that says where ("the light in the
/// garage") constrains nothing.
pub(crate) struct KindsSaid<'q> {
    /// Each kind word with the classes it names and the domain it is a kind of.
    said: Vec<(&'q str, &'static str, Option<&'static str>)>,
}

impl<'q> KindsSaid<'q> {
    /// The kinds a question names.
    pub(crate) fn asked(words: &[String], query: &'q Query) -> Self {
        Self::read(words, query, false)
    }

    /// The kinds a command names, where some languages' kind words mean more classes
    /// ([`crate::lang::Lexicon::commanded_classes`]).
    pub(crate) fn commanded(words: &[String], query: &'q Query) -> Self {
        Self::read(words, query, true)
    }

    fn read(words: &[String], query: &'q Query, commanded: bool) -> Self {
        let places = place_words(words);
        let said = query
            .words
            .iter()
            .filter(|q| !places.contains(q))
            .filter_map(|q| {
                let wanted = specific_class(q, commanded)?;
                Some((q.as_str(), wanted, domain_of_word(q)))
            })
            .collect();
        Self { said }
    }

    /// Whether the entity is of every kind said: of its class, of another domain, or so named.
    pub(crate) fn fit(&self, entity: &Entity) -> bool {
        let class = entity
            .attributes
            .get("device_class")
            .and_then(serde_json::Value::as_str);
        self.said.iter().all(|(q, wanted, domain)| {
            *domain != Some(entity.domain())
                || of_class(wanted, class)
                || entity.haystack.name().any(|n| word_matches(q, n))
        })
    }
}

/// Words that say where: the word after "in", "w", "im" or "in der" (an article between
/// allowed).
pub(crate) fn place_words(words: &[String]) -> Vec<String> {
    let mut places = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !any_has(|l| l.place_prepositions, w) {
            continue;
        }
        let next = words[i + 1..].iter().find(|n| !any_has(|l| l.articles, n));
        if let Some(place) = next {
            places.push(place.clone());
        }
    }
    places
}

/// Whether a person's words point at this entity. A model's service call must pass this: held
/// to real ids, a small model otherwise picks a real but unrelated device for one the home
/// does not have ("turn on the sauna" → the air conditioner, "the garage light" → the garage
/// door). The words point at it when
/// - the kinds they name that its name does not say ("light" in "the garage light") include
///   its kind, if they name any; and
/// - of their words that name something in the home, one names it or its room; or, when none
///   does, its kind or a word of its name is named.
pub fn points_at(text: &str, entity: &Entity, registry: &Registry) -> bool {
    Pointing::new(text, registry).at(entity, registry)
}

/// Whether a word opens a request in some language: the first word of a phrase that says what
/// to do ("switch on", "turn off") or a verb whose particle comes later ("schalte … aus").
pub(crate) fn opens_a_request(word: &str) -> bool {
    LEXICONS.iter().any(|l| {
        l.intents
            .iter()
            .any(|(phrase, _)| phrase.len() > 1 && phrase.first() == Some(&word))
            || l.separable.iter().any(|(verbs, _)| verbs.contains(&word))
    })
}

/// The words of a reading that say what to act on: not the intent's own words, a filler, a
/// verb first that the intent did not need ("switch" in "switch the HVAC to heating mode",
/// where "heating mode" says what to do), or the "room" of "every room"; and "lights" where
/// the words ask for light. A word `keep` accepts stays whatever else it is.
pub(crate) fn object_words<'r>(
    reading: &'r Reading,
    keep: impl Fn(&str) -> bool + 'r,
) -> impl Iterator<Item = &'r str> {
    let words = &reading.words;
    let used = reading
        .intent()
        .map(|(_, _, used)| used)
        .unwrap_or_default();
    let verb_first = words.first().is_some_and(|w| opens_a_request(w));
    words
        .iter()
        .enumerate()
        .filter(move |(i, w)| {
            keep(w) || !(used.contains(i) || is_filler(w) || (*i == 0 && verb_first))
        })
        .filter(|(i, _)| !is_every_room(words, *i))
        .map(|(_, w)| w.as_str())
        .chain(lighting(words).then_some(LIGHTS))
}

/// The kinds whose words of what only they have ([`crate::lang::Lexicon::about_kinds`]) bound
/// what the words point at; a list's words ("chores") do not: they name the list, not a kind.
const ABOUT_KINDS: [&str; 2] = ["media_player", "light"];

/// The kinds the words name by what only they have ("the brightness" is a light's).
pub(crate) fn about_kinds(words: &[String]) -> Vec<&'static str> {
    ABOUT_KINDS
        .into_iter()
        .filter(|kind| {
            words
                .iter()
                .any(|w| named_by(|l| l.about_kinds, w) == Some(*kind))
        })
        .collect()
}

/// A person's words parsed once, to ask of many entities whether the words point at them
/// ([`points_at`]): asked of every entity of the home, parsing the words again for each, and
/// scanning the home again for each word, was most of a command's time in a large home.
pub struct Pointing {
    query: Query,
    watering: bool,
    /// The kinds that words of what only they have name ("volume 50", "nächster Titel" are a
    /// player's; "the brightness", "la luminosité" a light's), whatever else the words name.
    about: Vec<&'static str>,
    /// The words say "all", "every": a kind word is then every device of the kind, not the
    /// one device so named.
    every: bool,
    /// The words after "in" (where, even a word that is also a kind).
    places: Vec<String>,
    /// Per word of the query: the domain it is a kind of, if any.
    domains: Vec<Option<&'static str>>,
    /// Per word of the query: the device classes it names in a command, if any.
    classes: Vec<Option<&'static str>>,
    /// Per word of the query, once asked: whether it names anything in this home.
    names_something: Vec<std::sync::OnceLock<bool>>,
    /// Per word of the query, once asked: whether it is the whole name of a device here ("the
    /// HVAC" is the device named "Hvac", not any thermostat).
    whole_names: Vec<std::sync::OnceLock<bool>>,
}

impl Pointing {
    pub fn new(text: &str, registry: &Registry) -> Self {
        // "heat pump" points at the device named "HeatPump".
        Self::of_joined(&super::join_compounds(text, registry), registry)
    }

    /// [`Pointing::new`] for words whose compound names are already joined.
    pub fn of_joined(joined: &str, registry: &Registry) -> Self {
        Self::of_reading(&Reading::new(joined), registry)
    }

    /// [`Pointing::of_joined`] for words read already.
    pub fn of_reading(reading: &Reading, registry: &Registry) -> Self {
        let words = &reading.words;
        // A cleaning verb ("vacuuming") also names the device that cleans.
        let rest: Vec<&str> = object_words(reading, is_cleaning).collect();
        let query = query_of(&rest, registry);
        let domains: Vec<Option<&'static str>> =
            query.words.iter().map(|q| domain_of_word(q)).collect();
        // A class is a kind word's: only words of a kind are looked up.
        let classes = query
            .words
            .iter()
            .zip(&domains)
            .map(|(q, domain)| domain.and_then(|_| specific_class(q, true)))
            .collect();
        let names_something = vec![std::sync::OnceLock::new(); query.words.len()];
        let whole_names = vec![std::sync::OnceLock::new(); query.words.len()];
        Self {
            watering: watering(words),
            about: about_kinds(words),
            every: words.iter().any(|w| any_has(|l| l.every, w)),
            places: place_words(words),
            query,
            domains,
            classes,
            names_something,
            whole_names,
        }
    }

    /// Whether the words say anything of which device: a name, a room, a kind, songs or
    /// water. "Pause" alone says nothing of it (and so points at nothing in particular).
    pub fn says_which(&self) -> bool {
        !self.query.words.is_empty() || self.watering || !self.about.is_empty()
    }

    /// Whether a word names one of the home's rooms, itself or translated ("the kitchen light",
    /// "w kuchni"): a kind in a room is, as Home Assistant reads it, every such device there.
    pub fn names_a_room(&self, registry: &Registry) -> bool {
        !self.places.is_empty()
            || registry.areas().any(|a| {
                std::iter::once(&a.name).chain(&a.aliases).any(|n| {
                    tokens(n)
                        .iter()
                        .any(|w| self.query.words.iter().any(|q| word_matches(q, w)))
                })
            })
    }

    /// How many of the words an entity's name, id or room explains: between devices the words
    /// point at, the one they fit best.
    pub fn fit(&self, entity: &Entity) -> usize {
        self.query
            .words
            .iter()
            .filter(|q| in_hay(entity, q))
            .count()
    }

    /// Whether the words mean one device: no "all" or "every", and no kind said in the
    /// plural ("the lights"). A kind word no lexicon lists as singular counts as plural, so
    /// that a question of "which one?" is only asked when one was meant.
    pub fn means_one(&self) -> bool {
        !self.every
            && self
                .query
                .words
                .iter()
                .zip(&self.domains)
                .all(|(w, domain)| {
                    domain.is_none()
                        || any_has(|l| l.singular, w)
                        || any_has(|l| l.same_in_plural, w)
                })
    }

    /// Whether the words point at `entity` (see [`points_at`]).
    pub fn at(&self, entity: &Entity, registry: &Registry) -> bool {
        let query = &self.query;
        let hay = &entity.haystack;
        let in_name = |q: &str| hay.named().any(|w| word_matches(q, w));
        let device_class = entity
            .attributes
            .get("device_class")
            .and_then(serde_json::Value::as_str);
        let of_kind = |word: &str, domain: &str, class: Option<&str>| {
            // A measure ("temperature", "humidity") is a sensor's, and a thermostat's too: it
            // shows the temperature and is set to one.
            let measured = domain == "sensor"
                && entity.domain() == "climate"
                && !["sensor", "czujnik"].contains(&word);
            let kind = measured
                || domain == entity.domain()
                || hay.name().any(|w| word_score(domain, w) > 0.0);
            kind && class.is_none_or(|class| of_class(class, device_class))
        };
        // Each kind said and not in the name, with the classes it names.
        let mut kinds: Vec<(&str, &str, Option<&str>)> = query
            .words
            .iter()
            .enumerate()
            .filter(|(_, q)| !in_name(q))
            .filter_map(|(i, q)| {
                let domain = self.domains[i].or(is_cleaning(q).then_some("vacuum"));
                domain.map(|d| (q.as_str(), d, self.classes[i]))
            })
            .collect();
        // "Water the garden" asks for a valve, whatever else is called "garden"; a kind named
        // by what only it has names no class.
        if self.watering {
            kinds.push(("water", "valve", None));
        }
        for kind in &self.about {
            if !kinds.iter().any(|(_, d, _)| d == kind) {
                kinds.push((kind, kind, None));
            }
        }
        if !kinds.is_empty() && !kinds.iter().any(|(w, d, c)| of_kind(w, d, *c)) {
            return false;
        }
        // Words that name something in this home (a device or a room): one of them must name
        // this entity or its room ("the desk lamp" is not the floor lamp). Words naming nothing
        // here ("please", "sauna") say nothing either way.
        let names_something = |i: usize| self.names_something(i, entity, registry);
        let whole_name = |i: usize| self.whole_name(i, registry);
        let informative: Vec<&String> = query
            .words
            .iter()
            .enumerate()
            .filter(|(i, q)| {
                self.domains[*i].is_none()
                    || self.places.contains(q)
                    || (!self.every && whole_name(*i))
            })
            .filter(|(i, _)| names_something(*i))
            .map(|(_, q)| q)
            .collect();
        // A room or place the words name that nothing here is in ("the bathroom window" in a
        // home without a bathroom): the person meant a place this home does not have.
        let missing_place = query
            .words
            .iter()
            .enumerate()
            .any(|(i, q)| is_place_word(q) && !names_something(i));
        if missing_place {
            return false;
        }
        if !informative.is_empty() {
            return informative.iter().any(|q| in_hay(entity, q));
        }
        query.words.iter().any(|q| in_name(q)) || !kinds.is_empty()
    }

    /// Whether word `i` names anything here: `entity` first (the usual case, and then no scan
    /// of the home is needed), then every other, once per word.
    fn names_something(&self, i: usize, entity: &Entity, registry: &Registry) -> bool {
        let q = self.query.words[i].as_str();
        in_hay(entity, q) || *self.names_something[i].get_or_init(|| names_in_home(q, registry))
    }

    /// Whether word `i` is the whole name of a device here, once per word.
    fn whole_name(&self, i: usize, registry: &Registry) -> bool {
        let q = self.query.words[i].as_str();
        *self.whole_names[i].get_or_init(|| registry.is_whole_name(q))
    }
}
