//! The mood of a command and its language: whether it asks or tells, holds one request or
//! several, and which language the words are in when the request carries no tag. Each is
//! decided here, once per reading, by one rule; every stage (the own reading, the questions
//! answered from the registry, the reads, the recogniser's language) asks the reading.

use std::sync::OnceLock;

use crate::lang::{Lang, Lexicon, Words, any_has, lang_having, lang_of_words, leading_phrase};

use crate::text::fold;

use super::intent::{add_item_verb, intent, is_joiner, state_named, words_of};
use super::pieces::{Piece, read};

/// A text split into words once, and what its words say of its mood and language: every
/// question below reads these words, none splits the text again.
#[derive(Debug, Clone)]
pub struct Reading {
    pub text: String,
    pub words: Vec<String>,
    /// The word a `%` followed (see [`words_of`]).
    pub percent_at: Option<usize>,
    /// Where each word came from in the text: a request of several is a run of these.
    pub pieces: Vec<Piece>,
    asks: OnceLock<bool>,
    lang: OnceLock<Lang>,
    /// What the words ask done: every stage asks (the mood, the language, the guards on each
    /// model call), the words never change.
    intent: OnceLock<Option<(crate::lang::Intent, Lang, Vec<usize>)>>,
}

/// The lists of words that open a question, strongest first: a word two languages share is
/// the first list's language ("ist" asks in German before anything else).
const OPENERS: [fn(&Lexicon) -> Words; 6] = [
    |l| l.question_openers,
    |l| l.which,
    |l| l.more_question_openers,
    |l| l.read_openers,
    |l| l.state_verbs,
    |l| l.yes_no_openers,
];

impl Reading {
    pub fn new(text: &str) -> Self {
        let read = read(text);
        Self {
            text: text.to_owned(),
            words: read.words,
            percent_at: read.percent_at,
            pieces: read.pieces,
            asks: OnceLock::new(),
            lang: OnceLock::new(),
            intent: OnceLock::new(),
        }
    }

    /// The text of one of its pieces.
    pub fn piece(&self, i: usize) -> &str {
        self.pieces.get(i).map_or("", |p| &self.text[p.raw.clone()])
    }

    /// The words one of its pieces gave.
    pub fn piece_words(&self, i: usize) -> &[String] {
        self.pieces
            .get(i)
            .map_or(&[], |p| &self.words[p.words.clone()])
    }

    /// A request made of some of its pieces, in their order, said with a space between
    /// them: read from the pieces' words, not from its text again. Its mood and language
    /// are its own, decided when asked.
    pub fn of_pieces(&self, chosen: impl IntoIterator<Item = usize>) -> Self {
        let mut part = Self::empty();
        part.add_pieces(self, chosen);
        part
    }

    /// This request followed by another's words ("turn on" lent to "the hall light").
    pub fn then(&self, next: &Self) -> Self {
        let mut both = self.of_pieces(0..self.pieces.len());
        both.add_pieces(next, 0..next.pieces.len());
        both
    }

    /// A request of folded words, each a piece (the kind words one request lends another).
    pub fn of_words(words: &[&str]) -> Self {
        let mut part = Self::empty();
        for word in words {
            part.add(word, &[(*word).to_owned()], false);
        }
        part
    }

    fn empty() -> Self {
        Self {
            text: String::new(),
            words: Vec::new(),
            percent_at: None,
            pieces: Vec::new(),
            asks: OnceLock::new(),
            lang: OnceLock::new(),
            intent: OnceLock::new(),
        }
    }

    /// `chosen` pieces of `from`, added in their order.
    fn add_pieces(&mut self, from: &Self, chosen: impl IntoIterator<Item = usize>) {
        for i in chosen {
            if let Some(piece) = from.pieces.get(i) {
                self.add(from.piece(i), from.piece_words(i), piece.percent);
            }
        }
    }

    fn add(&mut self, text: &str, words: &[String], percent: bool) {
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        let (start, first) = (self.text.len(), self.words.len());
        self.text.push_str(text);
        self.words.extend_from_slice(words);
        // A `%` written apart ("10 %") names the word before it, as in the text.
        if percent && !self.words.is_empty() {
            self.percent_at = Some(self.words.len() - 1);
        }
        self.pieces.push(Piece {
            raw: start..self.text.len(),
            words: first..self.words.len(),
            comma: false,
            percent,
        });
    }

    /// The same command in other words (compound names joined, "here" put as the room): its
    /// mood and language, where decided already, are the person's words', not decided again.
    pub fn reworded(&self, text: &str) -> Self {
        let reading = Self::new(text);
        if let Some(asks) = self.asks.get() {
            reading.asks.get_or_init(|| *asks);
        }
        if let Some(lang) = self.lang.get() {
            reading.lang.get_or_init(|| *lang);
        }
        reading
    }

    /// The words after a courtesy that opens a question ("please tell me", "sag mir",
    /// "bitte"), and whether that courtesy asks by itself ("tell me …", not a lone "please").
    pub fn after_courtesy(&self) -> (&[String], bool) {
        let words = &self.words;
        match leading_phrase(|l| l.question_courtesy, words) {
            Some((n, _)) if n < words.len() => (&words[n..], n >= 2),
            _ => (words, false),
        }
    }

    /// Whether the person asks rather than tells, the one rule every stage reads: a question
    /// mark, a "tell me …", or a word that opens questions first (after any courtesy).
    pub fn is_question(&self) -> bool {
        *self.asks.get_or_init(|| {
            #[cfg(test)]
            decisions::add(decisions::MOOD);
            let (opening, told_to_tell) = self.after_courtesy();
            self.text.contains('?')
                || told_to_tell
                || opening
                    .first()
                    .is_some_and(|w| OPENERS[..4].iter().any(|list| any_has(*list, w)))
        })
    }

    /// Whether it asks for an action (one intent, not a question), whatever its target.
    pub fn is_action(&self) -> bool {
        if let Some(request) = unwrapped_request(&self.text) {
            return Reading::new(&request).is_action();
        }
        if self.is_question() {
            return false;
        }
        let adds = self
            .words
            .first()
            .is_some_and(|w| add_item_verb(w).is_some());
        adds || self.intent().is_some()
    }

    /// One action and nothing more: no second request joined on, no question.
    pub fn is_single_action(&self) -> bool {
        self.is_action()
            && !crate::text::decimal_points(&self.text).contains(',')
            && !self.words.iter().any(|w| is_joiner(w))
    }

    /// One request, whether or not its words were understood: no second request joined on by
    /// a comma or a joining word, and not a question (unless a polite request).
    pub fn is_one_request(&self) -> bool {
        self.one_request_given(self.is_action(), self.is_question())
    }

    /// [`Reading::is_one_request`], with whether it acts and whether it asks already known.
    pub fn one_request_given(&self, acts: bool, question: bool) -> bool {
        !crate::text::decimal_points(&self.text).contains(',')
            && !self.words.iter().any(|w| is_joiner(w))
            && (acts || !question)
    }

    /// Whether it waits on a condition ("… if it is above 23", "wenn es dunkel ist").
    pub fn is_conditional(&self) -> bool {
        self.words
            .iter()
            .any(|w| any_has(|l| l.conditionals, w) && !any_has(|l| l.stopwords, w))
    }

    /// What its words ask to be done, in which language, and the words that said it.
    pub fn intent(&self) -> Option<(crate::lang::Intent, Lang, Vec<usize>)> {
        self.intent
            .get_or_init(|| intent(&self.words, self.percent_at))
            .clone()
    }

    /// The language the words are in, the one rule every stage reads: a question word's
    /// first ("ist", "czy"), else the intent's words', else an item's verb's ("füge … hinzu"),
    /// else the language of a word that opens a question, else the one most of the words are
    /// in; English when nothing tells.
    pub fn language(&self) -> Lang {
        *self.lang.get_or_init(|| {
            #[cfg(test)]
            decisions::add(decisions::LANGUAGE);
            let (opening, _) = self.after_courtesy();
            let first = opening.first().map_or("", String::as_str);
            let opener = |lists: &[fn(&Lexicon) -> Words]| {
                lists.iter().find_map(|list| lang_having(*list, first))
            };
            opener(&OPENERS[..2])
                .or_else(|| self.intent().map(|(_, lang, _)| lang))
                .or_else(|| add_item_verb(first).map(|(_, lang)| lang))
                .or_else(|| opener(&OPENERS[2..]))
                .or_else(|| lang_of_words(&self.words))
                .unwrap_or(Lang::En)
        })
    }
}

/// How often a mood and a language were decided, per thread, in test builds: a command's
/// are decided once whichever stages read them.
#[cfg(test)]
pub(crate) mod decisions {
    use std::cell::Cell;

    pub(crate) const MOOD: usize = 0;
    pub(crate) const LANGUAGE: usize = 1;

    thread_local! {
        static COUNTS: Cell<[usize; 2]> = const { Cell::new([0; 2]) };
    }

    pub(crate) fn add(what: usize) {
        COUNTS.with(|c| {
            let mut counts = c.get();
            counts[what] += 1;
            c.set(counts);
        });
    }

    /// The counts so far (mood, language), which then start again from zero.
    pub(crate) fn take() -> [usize; 2] {
        COUNTS.with(|c| c.replace([0; 2]))
    }
}

/// Whether the person asks rather than tells (see [`Reading::is_question`]).
pub fn is_question(text: &str) -> bool {
    Reading::new(text).is_question()
}

/// Whether a command asks for an action (see [`Reading::is_action`]).
pub fn is_action(text: &str) -> bool {
    Reading::new(text).is_action()
}

/// One action and nothing more (see [`Reading::is_single_action`]).
pub fn is_single_action(text: &str) -> bool {
    Reading::new(text).is_single_action()
}

/// One request, whether or not its words were understood (see [`Reading::is_one_request`]).
pub fn is_one_request(text: &str) -> bool {
    Reading::new(text).is_one_request()
}

/// A request said politely ("can you …", "could you please …", "kannst du …", "czy możesz
/// …") or as a wish ("I want the light on"): the request itself, when the rest carries an
/// intent; `None` otherwise (a question about ability or state stays a question).
pub fn unwrapped_request(text: &str) -> Option<String> {
    // Word by word as folding sees them: "Peux-tu" is two words, "l'entrée" too.
    let (raw, folded): (Vec<String>, Vec<String>) = text
        .trim()
        .trim_end_matches(['?', '.', '!', ' '])
        .split_whitespace()
        .flat_map(|w| {
            let pieces: Vec<String> = fold(w).split(' ').map(str::to_owned).collect();
            if pieces.len() == 1 {
                vec![(w.to_owned(), pieces[0].clone())]
            } else {
                pieces.into_iter().map(|p| (p.clone(), p)).collect()
            }
        })
        .unzip();
    let raw: Vec<&str> = raw.iter().map(String::as_str).collect();
    if let Some((n, lang)) = leading_phrase(|l| l.desires, &folded) {
        return desired(&raw[n..], lang);
    }
    let Some((skip, _)) = leading_phrase(|l| l.wrappers, &folded) else {
        return stated_last(text, &raw, &folded);
    };
    let rest: Vec<&str> = raw[skip..]
        .iter()
        .zip(&folded[skip..])
        .filter(|(_, f)| !says_please(f))
        .map(|(r, _)| *r)
        .collect();
    let rest = rest.join(" ");
    let (words, percent_at) = words_of(&rest);
    intent(&words, percent_at).map(|_| rest)
}

/// Whether a word, its punctuation aside, is a "please" ("please,", "bitte").
fn says_please(folded: &str) -> bool {
    any_has(
        |l| l.please,
        folded.trim_matches(|c: char| !c.is_alphanumeric()),
    )
}

/// A wish said as the state alone, last ("Hall window closed please", "Küchenfenster zu
/// bitte"): the request it makes, when the words carry no verb, ask nothing and say no "is"
/// ("the garage door is open" tells, it does not ask).
fn stated_last(text: &str, raw: &[&str], folded: &[String]) -> Option<String> {
    let kept: Vec<(&str, &String)> = raw
        .iter()
        .copied()
        .zip(folded)
        .filter(|(_, f)| !says_please(f))
        .collect();
    let (_, last) = kept.last()?;
    if kept.len() < 2
        || state_named(last).is_none()
        || kept.iter().any(|(_, f)| any_has(|l| l.be, f))
        || is_question(text)
    {
        return None;
    }
    let (words, percent_at) = words_of(text);
    if intent(&words, percent_at).is_some() {
        return None;
    }
    let words: Vec<String> = kept.iter().map(|(_, f)| (*f).clone()).collect();
    let lang = lang_of_words(&words).unwrap_or(Lang::En);
    let raw: Vec<&str> = kept.iter().map(|(r, _)| *r).collect();
    desired(&raw, lang)
}

/// The request a wish for a state makes ("the kitchen light on", "światło w kuchni było
/// włączone", "das Küchenlicht an ist"): the state word becomes its verb in the wish's language;
/// `None` when the wish names no state we act on, or asks ("I want to know if …").
fn desired(rest: &[&str], lang: Lang) -> Option<String> {
    let folded: Vec<String> = rest.iter().map(|w| fold(w)).collect();
    if folded.iter().any(|w| any_has(|l| l.asking, w)) {
        return None;
    }
    // "I want to turn on the lights": the wish is already a request.
    let (words, percent_at) = words_of(&rest.join(" "));
    if intent(&words, percent_at).is_some() {
        return Some(rest.join(" "));
    }
    let (at, state) = folded
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, w)| state_named(w).map(|s| (i, s)))?;
    let verb = lang
        .lexicon()
        .wished
        .iter()
        .find(|(s, _)| *s == state)
        .map(|(_, verb)| *verb)?;
    let target: Vec<&str> = rest
        .iter()
        .zip(&folded)
        .enumerate()
        .filter(|(i, (_, f))| *i != at && !any_has(|l| l.be, f))
        .map(|(_, (r, _))| r.trim_end_matches(','))
        .collect();
    let request = format!("{verb} {}", target.join(" "));
    let (words, percent_at) = words_of(&request);
    intent(&words, percent_at).map(|_| request)
}

/// The language a command's question word or intent words are in (see [`Reading::language`]).
pub fn language_of(text: &str) -> Lang {
    Reading::new(text).language()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One rule for the language, whichever stage asks: a question without a question word
    /// is in the language of its other words ("Laufen die Sprinkler?" is German, not English).
    #[test]
    fn the_language_is_the_words_whatever_opens_them() {
        for (text, lang) in [
            ("Laufen die Sprinkler?", Lang::De),
            ("Läuft der Fernseher?", Lang::De),
            ("Spielt die Musik im Wohnzimmer?", Lang::De),
            ("Sag mir, ist das Licht an", Lang::De),
            ("Was steht heute in meinem Kalender?", Lang::De),
            ("Co mam dziś w kalendarzu?", Lang::Pl),
            ("Czy światło w kuchni jest włączone?", Lang::Pl),
            ("Qui est à la maison ?", Lang::Fr),
            ("is the kitchen light on", Lang::En),
            ("turn off the kitchen lights", Lang::En),
            ("Schalte bitte das Licht in der Küche aus", Lang::De),
            ("add milk to the shopping list", Lang::En),
            ("xyzzy", Lang::En),
        ] {
            assert_eq!(Reading::new(text).language(), lang, "{text}");
        }
    }

    /// One rule for "is it a question": a question mark, a "tell me", or a word that opens
    /// questions (after a courtesy); a question is never an action, even with a verb in it.
    #[test]
    fn a_question_is_told_by_its_mark_its_opening_or_a_tell_me() {
        for text in [
            "is the kitchen light on",
            "turn on the light?",
            "tell me the outside temperature",
            "bitte ist das Licht an",
            "who turned on the kitchen light",
            "wer hat das Licht eingeschaltet",
            "kto włączył światło",
            "which lights are on",
            "what's on my shopping list",
        ] {
            let reading = Reading::new(text);
            assert!(reading.is_question(), "{text}");
            assert!(!reading.is_action(), "{text}");
        }
        for text in [
            "turn on the light",
            "please turn on the light",
            "bitte schalte das Licht ein",
            "can you turn on the light",
        ] {
            let reading = Reading::new(text);
            assert!(!reading.is_question() || reading.is_action(), "{text}");
            assert!(reading.is_action(), "{text}");
        }
    }

    /// The same command in other words keeps the mood and language decided for it.
    #[test]
    fn a_reworded_command_keeps_its_mood_and_language() {
        let said = Reading::new("Ist Kitchen Lights an?");
        assert_eq!(said.language(), Lang::De);
        assert!(said.is_question());
        let placed = said.reworded("Ist Kitchen Lights in the attic an");
        decisions::take();
        assert_eq!(placed.language(), Lang::De);
        assert!(placed.is_question());
        assert_eq!(decisions::take(), [0, 0]);
    }
}
