//! One command, parsed once per run. Whether it asks or tells, which language it is answered
//! in, whether it is about the home, what its words point at: every module of the run (the
//! planner, the guards, the composer, the prompt) asks this value for these, so none decides
//! them differently.
//!
//! The raw text stays private: what is not a field is a method here, computed when first
//! asked (the words' candidates, the verb a call must not undo). The words are split once,
//! into a [`Reading`] that the mood, the language, the guards and the planner's first stages
//! read; the planner still splits a request made of several ("… and …") part by part, and
//! words with a compound name joined or "here" placed are read once more (as they differ).

use crate::agent::model::prompt::candidates_joined;
use std::sync::OnceLock;

use super::here::{self, Here};
use super::mood::Reading;
use super::naming::about_the_home;
use super::target::covers;
use super::{
    Lang, Pointing, Unmatched, against_the_words, asks_to_toggle, join_compounds, unmatched,
};
use crate::agent::plan::{self, ReadState};
use crate::agent::say::honesty::needs_tools;
use crate::ha::registry::{Entity, Registry};

/// What the words say of the home.
#[derive(Clone, Copy)]
struct Home {
    named: bool,
    wants_tools: bool,
}

/// The person's command, as HomeClaw understood it.
pub(crate) struct Parsed {
    /// What the person said, split into words once; read by nothing outside this module.
    reading: Reading,
    /// The words with a home's compound names joined ("heat pump" → "heatpump") and "here"
    /// placed: the person's own reading when neither changed a word.
    joined: Reading,
    /// The language the person is answered in: the request's tag, else the words'.
    pub lang: Lang,
    /// The person's language tag, when the request carried one.
    tag: Option<String>,
    /// A request for a change (one intent, not a question), whatever its target.
    pub acts: bool,
    /// Asked, not told: a question mark or a question word first.
    pub question: bool,
    /// One request: no second one joined on, not a question unless a polite request.
    pub one_request: bool,
    /// A request that waits on a condition ("… if it is above 23"): nothing may change for it.
    pub conditional: bool,
    /// Whether the words name the home, and whether the run needs a tool from its first round
    /// (see [`Parsed::about_home`]): asked only on the model path, which the fast path spares.
    home: OnceLock<Home>,
    /// What the words point at, asked of many entities.
    pointing: OnceLock<Pointing>,
    /// "Here" said where HomeClaw cannot tell the room: the words point at nothing, so no
    /// call of the model's can act on a device anywhere in the home.
    unplaced: bool,
    /// Whether the words said "here" and it was placed: the speaker's area bounds them.
    here_said: bool,
    /// The area of the device the person spoke to, said or not: the room Home Assistant
    /// prefers for a device the words do not name, and the one "here" is.
    speaker_area: Option<String>,
    /// The words with "here" put as the room (the person's own words otherwise), for what is
    /// quoted back: "lights in Attic" when the attic has none; and the words without "here",
    /// for Home Assistant's recogniser (the speaking device names the room there).
    placed: Option<(String, String)>,
    /// The command before this one: "turn it off" names what it named.
    before: Option<String>,
    /// What HomeClaw answered the command before, when this command came right after it: a
    /// "which one?" this command may answer.
    asked: Option<String>,
    pointing_before: OnceLock<Option<Pointing>>,
    /// The command this one answers HomeClaw's question about (see [`Parsed::against`]).
    answered: OnceLock<Option<Reading>>,
    /// The entities the words point at best, as the model is shown them.
    candidates: OnceLock<Vec<String>>,
}

impl Parsed {
    /// Parses `text`, said to `device` (a satellite: "here" is its room), answered in `tag`'s
    /// language when the request carries one.
    pub(crate) fn new(
        text: &str,
        tag: Option<&str>,
        device: Option<&str>,
        registry: &Registry,
    ) -> Self {
        let joined = join_compounds(text, registry);
        let (joined, unplaced, placed, here_said) =
            match here::place(&joined, registry, device, tag) {
                Here::Unsaid => (joined, false, None, false),
                Here::Placed { words, .. } => {
                    let placed = match here::place(text, registry, device, tag) {
                        Here::Placed {
                            words: own, unsaid, ..
                        } => Some((own, unsaid)),
                        _ => None,
                    };
                    (words, false, placed, true)
                }
                Here::Unplaced(_) => (joined, true, None, false),
            };
        // The words, split once: the mood, the language and the condition read them.
        let reading = Reading::new(text);
        let (acts, question) = (reading.is_action(), reading.is_question());
        let lang = tag.map_or_else(|| reading.language(), Lang::from_tag);
        let joined = if joined == text {
            reading.clone()
        } else {
            reading.reworded(&joined)
        };
        Self {
            lang,
            tag: tag.map(str::to_owned),
            acts,
            question,
            one_request: reading.one_request_given(acts, question),
            conditional: reading.is_conditional(),
            home: OnceLock::new(),
            pointing: OnceLock::new(),
            joined,
            unplaced,
            here_said,
            speaker_area: device
                .and_then(|d| registry.device_area(d))
                .map(str::to_owned),
            placed,
            reading,
            before: None,
            asked: None,
            pointing_before: OnceLock::new(),
            answered: OnceLock::new(),
            candidates: OnceLock::new(),
        }
    }

    /// With the command said before this one, which the model's calls may also act on, and
    /// what HomeClaw answered it (when this command came right after).
    pub(crate) fn after(mut self, before: Option<String>, asked: Option<String>) -> Self {
        self.before = before;
        self.asked = asked;
        self
    }

    /// Whether this is the command `text` (a message that joined the turn is another one).
    pub(crate) fn is(&self, text: &str) -> bool {
        self.reading.text == text
    }

    /// A question that is not a polite request: nothing may be changed for it.
    pub(crate) fn only_asks(&self) -> bool {
        self.question && !self.acts
    }

    fn home(&self, registry: &Registry) -> Home {
        *self.home.get_or_init(|| {
            let joined = about_the_home(&self.joined, registry);
            Home {
                named: joined || about_the_home(&self.reading, registry),
                wants_tools: self.acts || needs_tools(&self.joined.text, registry) || joined,
            }
        })
    }

    /// The words name something of this home (a kind, an area, a name in another language) or
    /// ask about a state.
    pub(crate) fn about_home(&self, registry: &Registry) -> bool {
        self.home(registry).named
    }

    /// The run needs a tool from its first round: it acts, or names the home.
    pub(crate) fn wants_tools(&self, registry: &Registry) -> bool {
        self.home(registry).wants_tools
    }

    /// Whether "here" lets `entity` be acted on: it is in the room the person speaks in, or
    /// the words did not say "here". Holds on every path, whatever else matched the words (a
    /// name Home Assistant's recogniser matched too).
    pub(crate) fn here_allows(&self, entity: &Entity) -> bool {
        !self.unplaced && (!self.here_said || entity.area_id == self.speaker_area)
    }

    /// The request's language tag, when it carried one.
    pub(crate) fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// The area of the device the person spoke to.
    pub(crate) fn speaker_area(&self) -> Option<&str> {
        self.speaker_area.as_deref()
    }

    /// Whether the words point at `entity` (its name, room or kind).
    pub(crate) fn points_at(&self, entity: &Entity, registry: &Registry) -> bool {
        self.here_allows(entity) && self.pointed(entity, registry)
    }

    /// Whether the words say anything of which device ("pause" alone does not).
    pub(crate) fn says_which(&self, registry: &Registry) -> bool {
        self.pointing(registry).says_which()
    }

    /// The devices of `entity`'s kind that these words, meant for one device, fit as well as
    /// they fit `entity` (none when the words single it out, say several, name a room — a kind
    /// in a room is all of it there, as Home Assistant reads it — or say nothing of which): a
    /// call on `entity` would be a pick among them, which only the person may make.
    pub(crate) fn rivals<'r>(&self, entity: &Entity, registry: &'r Registry) -> Vec<&'r Entity> {
        let pointing = self.pointing(registry);
        if !self.acts
            || !pointing.says_which()
            || !pointing.means_one()
            || pointing.names_a_room(registry)
            || !self.points_at(entity, registry)
        {
            return Vec::new();
        }
        let fit = pointing.fit(entity);
        // Among what the model was shown: the words' best candidates.
        self.candidates(registry)
            .iter()
            .filter_map(|id| registry.get(id))
            .filter(|e| {
                e.entity_id != entity.entity_id
                    && e.domain() == entity.domain()
                    && self.points_at(e, registry)
                    && pointing.fit(e) >= fit
            })
            .collect()
    }

    /// Whether the words mean one device (see [`Pointing::means_one`]).
    pub(crate) fn means_one(&self, registry: &Registry) -> bool {
        self.pointing(registry).means_one()
    }

    /// What the words alone point at, "here" aside.
    fn pointed(&self, entity: &Entity, registry: &Registry) -> bool {
        self.pointing(registry).at(entity, registry)
    }

    /// What the words point at, worked out at the first question and kept for the run.
    fn pointing(&self, registry: &Registry) -> &Pointing {
        self.pointing
            .get_or_init(|| Pointing::of_reading(&self.joined, registry))
    }

    /// Whether this command or the one before it points at `entity`.
    pub(crate) fn named(&self, entity: &Entity, registry: &Registry) -> bool {
        self.here_allows(entity)
            && (self.pointed(entity, registry)
                || self
                    .pointing_before
                    .get_or_init(|| self.before.as_deref().map(|t| Pointing::new(t, registry)))
                    .as_ref()
                    .is_some_and(|p| p.at(entity, registry)))
    }

    /// Whether the person asked to toggle (a model's toggle is refused otherwise).
    pub(crate) fn asks_to_toggle(&self) -> bool {
        asks_to_toggle(&self.reading)
    }

    /// What the person asked for, when `service` would undo it ("lock it" is never an
    /// unlock).
    pub(crate) fn against(&self, service: &str) -> Option<&'static str> {
        against_the_words(&self.reading, service).or_else(|| {
            let before = self.answered.get_or_init(|| {
                self.answers_a_question()
                    .then(|| self.before.as_deref().map(Reading::new))
                    .flatten()
            });
            before.as_ref().and_then(|b| against_the_words(b, service))
        })
    }

    /// Words without a verb of their own right after HomeClaw asked a question ("the kitchen
    /// one" after "Which one do you mean …?"): the command before says what to do.
    pub(crate) fn answers_a_question(&self) -> bool {
        !self.acts
            && !self.question
            && self
                .asked
                .as_deref()
                .is_some_and(|a| a.trim_end().ends_with('?'))
    }

    /// The answer to this question from `reads`, in the person's language.
    pub(crate) fn answer_from(&self, reads: &[ReadState<'_>]) -> String {
        plan::answer_from_reads(&self.reading.text, reads, self.lang)
    }

    /// The entities the words point at best (searched once per run): those this command or
    /// the one before it names, when the search finds any.
    pub(crate) fn candidates(&self, registry: &Registry) -> &[String] {
        self.candidates.get_or_init(|| {
            candidates_joined(registry, &self.joined.text, |id| {
                registry.get(id).is_some_and(|e| self.named(e, registry))
            })
        })
    }

    /// Whether the model is shown `service` among the likely targets' services: none for a
    /// question (it reads, it changes nothing), and none that would undo what the words ask
    /// ("unlock" for "lock the door"): its calls could not use them.
    pub(crate) fn shows_service(&self, service: &str) -> bool {
        !self.only_asks() && self.against(service).is_none()
    }

    /// A command in a language HomeClaw has no words for: its words cannot tell small talk
    /// from a request. Known by the person's language tag, else by letters none of the
    /// lexicons writes (ñ, å, Cyrillic, …) in the command or in `reply`.
    pub(crate) fn unknown_language(&self, reply: &str) -> bool {
        match self.tag.as_deref() {
            Some(tag) => Lang::known(tag).is_none(),
            None => self
                .reading
                .text
                .chars()
                .chain(reply.chars())
                .flat_map(char::to_lowercase)
                .any(|c| {
                    c.is_alphabetic()
                        && !c.is_ascii()
                        && !crate::lang::LEXICONS.iter().any(|l| l.letters.contains(c))
                }),
        }
    }

    /// The sentence for Home Assistant's recogniser: the person's words, without "here" when
    /// they said it (the speaking device, sent along, names the room; "here" in Home
    /// Assistant's sentences would be an area it does not know).
    /// `command` is the sentence being run; another one (a note the run added) is left as it is.
    pub(crate) fn for_recogniser<'a>(&'a self, command: &'a str) -> &'a str {
        match &self.placed {
            Some((_, unsaid)) if self.reading.text == command => unsaid,
            _ => command,
        }
    }

    /// What a trace adds when the recogniser read `words` as the person said them, "here"
    /// included (asked without it first, Home Assistant read less than the whole sentence).
    pub(crate) fn as_said_note(&self, words: &str) -> &'static str {
        if self.for_recogniser(words) == words {
            ""
        } else {
            " (the words as said, \"here\" included)"
        }
    }

    /// Why the command acts on nothing the home has, when it plainly does not.
    pub(crate) fn unmatched(&self, registry: &Registry) -> Option<Unmatched> {
        let placed;
        let command = match &self.placed {
            Some((own, _)) => {
                placed = self.reading.reworded(own);
                &placed
            }
            None => &self.reading,
        };
        unmatched(command, self.before.as_deref(), registry)
    }

    /// The request's condition, read from the registry (see [`plan::condition`]).
    pub(crate) fn checked_condition(
        &self,
        registry: &Registry,
        device_id: Option<&str>,
    ) -> Option<plan::condition::Checked> {
        plan::condition::checked(&self.joined.text, registry, device_id)
    }

    /// The fast path's plan for the words, for a person speaking to `device_id`: what they
    /// say, or which of the devices HomeClaw just asked about they chose.
    pub(crate) fn plan(&self, registry: &Registry, device_id: Option<&str>) -> plan::Plan {
        // Answered in the request's language when HomeClaw speaks it, whatever the words'.
        let answer_in = self.tag.as_deref().and_then(Lang::known);
        let own = plan::plan_reading_in(&self.joined, registry, device_id, answer_in);
        if !matches!(own, plan::Plan::Model) || !self.answers_a_question() {
            return own;
        }
        self.as_choice(registry, device_id, answer_in)
            .unwrap_or(own)
    }

    /// The words as the answer to HomeClaw's "which one?" about the command before: that
    /// command is planned again, and the question it asks must be the one HomeClaw asked
    /// (else the home changed in between, or the question was another), so that the answer
    /// chooses only among the calls that question offered.
    fn as_choice(
        &self,
        registry: &Registry,
        device_id: Option<&str>,
        answer_in: Option<Lang>,
    ) -> Option<plan::Plan> {
        let (before, asked) = (self.before.as_deref()?, self.asked.as_deref()?);
        let again = plan::plan_joined_in(
            &join_compounds(before, registry),
            registry,
            device_id,
            answer_in,
        );
        let plan::Plan::Ask {
            question,
            options,
            lang,
        } = again
        else {
            return None;
        };
        if crate::text::ends_once(&question) != crate::text::ends_once(asked) {
            return None;
        }
        let points_at = |e: &Entity| self.points_at(e, registry);
        let words = crate::ha::search::Query::new(&self.joined.text);
        let covers = |e: &Entity| !words.is_empty() && self.here_allows(e) && covers(e, &words);
        let answer = plan::chosen::Answer {
            covers: &covers,
            points_at: &points_at,
        };
        plan::chosen::chosen(options, &answer, registry, lang)
    }
}
