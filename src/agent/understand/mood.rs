//! The mood of a command and its language: whether it asks or tells, holds one request or
//! several, and which language the words are in when the request carries no tag.

use crate::lang::{Lang, Lexicon, Words, any_has, lang_having, lang_of_words, leading_phrase};

use crate::text::fold;

use super::intent::{add_item_verb, intent, is_joiner, is_question_word, state_named, words_of};

/// A text split into words once, and what its words say of its mood and language: every
/// question below reads these words, none splits the text again.
#[derive(Debug, Clone)]
pub struct Reading {
    pub text: String,
    pub words: Vec<String>,
    /// The word a `%` followed (see [`words_of`]).
    pub percent_at: Option<usize>,
}

impl Reading {
    pub fn new(text: &str) -> Self {
        let (words, percent_at) = words_of(text);
        Self {
            text: text.to_owned(),
            words,
            percent_at,
        }
    }

    /// Whether the person asks rather than tells: a question mark, or a question word first.
    pub fn is_question(&self) -> bool {
        if self.text.trim_end().ends_with('?') {
            return true;
        }
        let words = &self.words;
        // "Tell me the outside temperature" asks, politely (a lone "please" asks nothing).
        let told_to_tell = leading_phrase(|l| l.question_courtesy, words)
            .is_some_and(|(n, _)| n >= 2 && n < words.len());
        told_to_tell
            || words
                .first()
                .is_some_and(|w| is_question_word(w) || any_has(|l| l.more_question_openers, w))
    }

    /// Whether it asks for an action (one intent, not a question), whatever its target.
    pub fn is_action(&self) -> bool {
        if let Some(request) = unwrapped_request(&self.text) {
            return Reading::new(&request).is_action();
        }
        if self.text.trim().ends_with('?') {
            return false;
        }
        let words = &self.words;
        let question = words.first().is_some_and(|w| is_question_word(w));
        let adds = words.first().is_some_and(|w| add_item_verb(w).is_some());
        !question && (adds || intent(words, self.percent_at).is_some())
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
        intent(&self.words, self.percent_at)
    }

    /// The language its question word or intent words are in (English when none is
    /// recognised).
    pub fn language(&self) -> Lang {
        let words = &self.words;
        if let Some(first) = words.first().filter(|w| is_question_word(w)) {
            return question_lang(first);
        }
        if let Some((_, lang, _)) = intent(words, self.percent_at) {
            return lang;
        }
        words
            .first()
            .and_then(|w| add_item_verb(w))
            .map_or(Lang::En, |(_, lang)| lang)
    }
}

/// Whether the person asks rather than tells (see [`Reading::is_question`]).
pub fn is_question(text: &str) -> bool {
    Reading::new(text).is_question()
}

/// The language a question is in: its first word's, else the one most of its words are in.
pub(crate) fn question_lang_in(words: &[String]) -> Lang {
    match words.first() {
        Some(first) if is_question_word(first) || any_has(|l| l.which, first) => {
            question_lang(first)
        }
        _ => lang_of_words(words).unwrap_or_else(|| question_lang(words.first().map_or("", |w| w))),
    }
}

/// The language a question is in, from its first word.
pub(crate) fn question_lang(first: &str) -> Lang {
    let lists: [fn(&Lexicon) -> Words; 4] = [
        |l| l.question_openers,
        |l| l.which,
        |l| l.state_verbs,
        |l| l.yes_no_openers,
    ];
    lists
        .iter()
        .find_map(|list| lang_having(*list, first))
        .unwrap_or(Lang::En)
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
    let (skip, _) = leading_phrase(|l| l.wrappers, &folded)?;
    let rest: Vec<&str> = raw[skip..]
        .iter()
        .zip(&folded[skip..])
        .filter(|(_, f)| !any_has(|l| l.please, f.trim_matches(|c: char| !c.is_alphanumeric())))
        .map(|(r, _)| *r)
        .collect();
    let rest = rest.join(" ");
    let (words, percent_at) = words_of(&rest);
    intent(&words, percent_at).map(|_| rest)
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
