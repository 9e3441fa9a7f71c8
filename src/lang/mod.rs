//! Each language's words, as data. A command is understood by looking its words up here, and
//! the fast path's answers are written from the texts of [`says`]; the engine holds no
//! language's words. A language is one file ([`en`], [`pl`], [`de`], [`fr`]) filling a
//! [`Lexicon`], registered in [`Lang`] and [`LEXICONS`], and one file of its sentences
//! (`says/<tag>.yaml`): the compiler checks every lexicon has every entry, and the tests check
//! none is empty, no two lists fight over a word and every sentences file has every text.
//!
//! Words are folded as [`crate::text::fold`] folds them (lowercase, no diacritics, `ß` → `ss`).
//! English is the pivot of [`Lexicon::translations`]: homes are most often named in English, so
//! other languages say which English word of a name each of their words stands for.

mod de;
mod en;
mod fr;
pub mod ha_replies;
pub mod kind_words;
mod pl;
pub mod says;

pub use says::Says;

/// A language HomeClaw understands and answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Pl,
    De,
    Fr,
}

/// Every lexicon, in the order the fast path tries their phrases.
pub const LEXICONS: [&Lexicon; 4] = [&en::LEXICON, &pl::LEXICON, &de::LEXICON, &fr::LEXICON];

impl Lang {
    /// The language of a tag such as `pl` or `de-DE`; English for anything else.
    pub fn from_tag(tag: &str) -> Self {
        Self::known(tag).unwrap_or(Self::En)
    }

    /// The language a tag names, when HomeClaw has words for it.
    pub fn known(tag: &str) -> Option<Self> {
        let prefix = tag.get(..2)?.to_ascii_lowercase();
        LEXICONS.iter().find(|l| l.tag == prefix).map(|l| l.lang)
    }

    /// What HomeClaw says in this language ([`says`]).
    pub fn says(self) -> Says {
        Says::of(self)
    }

    /// This language's words.
    pub fn lexicon(self) -> &'static Lexicon {
        match self {
            Self::En => &en::LEXICON,
            Self::Pl => &pl::LEXICON,
            Self::De => &de::LEXICON,
            Self::Fr => &fr::LEXICON,
        }
    }
}

/// What a command asks to be done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    On,
    Off,
    Open,
    Close,
    Lock,
    Unlock,
    Start,
    Dock,
    Pause,
    Resume,
    Next,
    /// Back a track ("previous song", "go back").
    Previous,
    Mute,
    Toggle,
    Stop,
    /// Brighter or dimmer by a step ("turn up the lights", "jaśniej"); louder or quieter when
    /// the words are about the volume.
    Brighter,
    Dimmer,
    Louder,
    Quieter,
    Percent(u8),
    /// A target temperature, in tenths of the home's own unit (195: 19.5°), as said: Home
    /// Assistant reads "19,5" exactly, and so does HomeClaw.
    Degrees(u16),
    /// A climate device's HVAC mode.
    Mode(HvacMode),
    /// A light's colour, by the CSS name Home Assistant's `color_name` takes.
    Color(&'static str),
    /// A light's white, by its colour temperature in kelvin ("warm white", "zimne białe").
    White(u16),
}

/// The HVAC modes a person names ("heat mode", "tryb chłodzenia", "auf Heizen").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HvacMode {
    Heat,
    Cool,
    Auto,
    Dry,
}

impl HvacMode {
    /// Home Assistant's name for the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Heat => "heat",
            Self::Cool => "cool",
            Self::Auto => "auto",
            Self::Dry => "dry",
        }
    }
}

/// Words, each folded.
pub type Words = &'static [&'static str];
/// Phrases of contiguous folded words.
pub type Phrases = &'static [&'static [&'static str]];
/// A separable verb's forms and its particles with what each makes it mean.
pub type Separable = (Words, &'static [(&'static str, Intent)]);
/// A key (a domain, a state, an English word, a CSS colour …) and the words that say it.
pub type Named = &'static [(&'static str, Words)];

/// The plural category of a count, as far as our languages tell them apart (CLDR's cardinal
/// categories: English and German say "one" for 1 only, French for 0 and 1, Polish also has
/// "few" for 2–4, 22–24, … but not 12–14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plural {
    One,
    Few,
    Many,
}

/// A word in each plural category: one, few, many (a language without "few" repeats "many").
pub type Forms<'a> = [&'a str; 3];

impl Plural {
    /// The form of `forms` for this category.
    pub fn of(self, [one, few, many]: Forms<'_>) -> &str {
        match self {
            Self::One => one,
            Self::Few => few,
            Self::Many => many,
        }
    }
}

/// One language: every word the fast path understands (what it answers with is [`Says`]).
pub struct Lexicon {
    pub lang: Lang,
    /// The language tag's first two letters.
    pub tag: &'static str,
    /// The plural category a count takes: every counted word in `Says` agrees with it.
    pub plural: fn(u64) -> Plural,

    // --- Requests ---
    /// Contiguous words that name an intent, tried in order (a longer phrase before the
    /// shorter one inside it).
    pub intents: &'static [(&'static [&'static str], Intent)],
    /// Verbs whose particle comes later and says what they do ("schalte … aus").
    pub separable: &'static [Separable],
    /// A last word that alone says what to do ("kitchen light off", "Garagentor zu").
    pub trailing: &'static [(&'static str, Intent)],
    /// A word that is a whole command when said alone ("next", "weiter", "pauza"): a player's,
    /// acted on by the players' states. Not an intent inside a sentence ("the light next to").
    pub alone: &'static [(&'static str, Intent)],
    /// Verbs before a trailing word ("switch the lights on").
    pub trailing_verbs: Words,
    /// Words after the request that add nothing ("please", "now").
    pub after: Words,
    /// Words that carry the request's shape but name no device.
    pub filler: Words,
    /// A part of a command made only of these is no request ("…, please").
    pub courtesy: Words,
    /// Openings that make a request polite ("can you", "czy możesz").
    pub wrappers: Phrases,
    /// "Please", wherever it stands in a polite request.
    pub please: Words,
    /// Openings of a wish for a state ("I want", "make sure", "chcę, żeby").
    pub desires: Phrases,
    /// Verbs of being that tie a wish to its state ("be", "było", "ist").
    pub be: Words,
    /// Words that turn a wish into a question ("I want to know if …").
    pub asking: Words,
    /// The request a wished-for state makes: state (as Home Assistant writes it) → verb.
    pub wished: &'static [(&'static str, &'static str)],
    /// Words that join two requests ("and", "then").
    pub joiners: Words,
    /// A word before two joined targets that adds nothing ("both").
    pub both: Words,
    /// Words that make a request wait on a condition ("if it is above 23", "wenn"): HomeClaw
    /// cannot check one before acting, so such a request changes nothing.
    pub conditionals: Words,
    /// The conditionals HomeClaw can check ("if", "wenn"; not "unless" or "whenever"), the
    /// words that end a condition said first ("then"), and the words that compare a number
    /// with it ("above", "über"; "below", "unter").
    pub if_words: Words,
    pub then_words: Words,
    pub above: Words,
    pub below: Words,
    /// Words that make a kind-only command mean every device of the kind.
    pub every: Words,
    /// "Room" said after [`Lexicon::every`] ("in every room", "in all the rooms"): the whole
    /// home, no room's name.
    pub any_room: Words,
    /// Words for every device in a place ("everything in the kitchen").
    pub everything: Words,
    /// Words that except part of a request ("all the lights except the kitchen").
    pub except: Words,
    /// Words that open a clause about what is meant ("everything that is on": "that", "co").
    pub relatives: Words,
    /// A closing or opening "with a key" locks or unlocks ("na klucz").
    pub with_a_key: Words,
    /// Verbs that water: only a valve answers them, when they open the command.
    pub watering: Words,
    /// Nouns for the water supply, and the words after them that make it an appliance.
    pub water: Words,
    pub water_appliances: Words,
    /// Words for cleaning: only a vacuum cleans.
    pub cleaning: Words,
    /// Verbs that give light ("illuminate"): only a light answers them, and they name lights
    /// when nothing else names a kind ("Illuminate the whole house").
    pub lighting: Words,
    /// Verbs that open a cover and, where some of the language's speakers live, turn on
    /// anything else (Québec's "ouvre la lumière"): said of a place alone ("ouvre le premier
    /// étage"), they do not say whether its covers open or its lights come on.
    pub open_or_on: Words,
    /// State words that say a thing gives light ("co świeci", "that is lit"): everything in
    /// that state is the lights that are on, never an appliance that is on.
    pub lit: Words,
    /// Words that ask for a joke, and the jokes HomeClaw tells: a small model asked in
    /// German, Polish or French declined or made one up that was no joke at all.
    pub joke_words: Words,
    pub jokes: Words,
    /// Words that name what a level is of ("volume", "brightness", "dim"): a number said with
    /// one is a share ("Dimme das Licht auf 11").
    pub level_of: Words,
    /// The words that say a media player's volume.
    pub volume: Words,
    /// Levels said in words ("half", "zero").
    pub levels: &'static [(&'static str, u8)],
    pub percent_units: Words,
    pub degree_units: Words,
    /// Words for a temperature to set: "set the target temperature to 22" needs no unit.
    pub temperature_words: Words,
    /// Verbs that only say which way a temperature goes ("heat", "podgrzej").
    pub temperature_verbs: Words,
    /// CSS colour → its words.
    pub colours: Named,
    /// Fan speeds said in words ("low", "hoch") and the percentage each means.
    pub speeds: &'static [(&'static str, u8)],
    /// Words that say a speed is meant ("speed", "Stufe").
    pub speed_words: Words,
    /// "add X to L": the verb and the prepositions before the list's name.
    pub add_item: &'static [(&'static str, Words)],
    /// Words around a list's name that do not name it ("my", "the list").
    pub list_filler: Words,

    // --- Devices and places ---
    /// Home Assistant domain → the words for its kind of device.
    pub kinds: Named,
    /// Words that name one sort of device within a domain, with the device class that says it
    /// (several joined by `|`: a "Tor" is a garage door or a gate).
    pub specific_kinds: &'static [(&'static str, &'static str)],
    /// Kind words whose command means more device classes than their question: Home
    /// Assistant's German commands move every shading cover by "Rollo", "Jalousie",
    /// "Rollladen" or "Vorhang" alike (its questions tell Rollos apart). Classes joined by `|`;
    /// never a class the word does not belong with (a garage door is no Rollo).
    pub commanded_classes: &'static [(&'static str, &'static str)],
    /// Kind words for one device of the kind ("the light"): with several, which one.
    pub singular: Words,
    /// Kind words alike in both numbers, singular only after one of [`Lexicon::singular_articles`].
    pub same_in_plural: Words,
    pub singular_articles: Words,
    /// English word of a name → this language's words for it.
    pub translations: Named,
    /// Words for rooms and places (in English: the pivot the translations name).
    pub places: Words,
    /// "Here": the room the person speaks in ("in here", "in this room"), longest first; the
    /// speaking device's area takes its place, and without one nothing is acted on.
    pub here: Phrases,
    /// Words before a place ("in", "w", "im"), and articles between.
    pub place_prepositions: Words,
    pub articles: Words,
    /// Words that say "a floor" ("floor", "Stock").
    pub floor_words: Words,
    /// Device class → the words for what a sensor of it measures.
    pub measures: Named,

    // --- Questions ---
    /// Words that open a question about the home (no action).
    pub question_openers: Words,
    /// More words that open a question (who, where, when …).
    pub more_question_openers: Words,
    /// Openers of a yes/no question ("is", "czy", "ist").
    pub yes_no_openers: Words,
    /// Verbs that say a state and may open a yes/no question ("läuft").
    pub state_verbs: Words,
    /// State (as Home Assistant writes it) → the words that ask about it.
    pub states: Named,
    /// Question words and verbs around them, which name nothing in the home.
    pub question_filler: Words,
    /// Courtesy before a question ("tell me").
    pub question_courtesy: Phrases,
    /// "How many" (anywhere), "which" (first), "any" (anywhere).
    pub how_many: Phrases,
    /// "What time is …", "when is …": a question after the time of something, read from the
    /// calendar when it names nothing of the home ("what time is the dentist?").
    pub when_is: Phrases,
    /// Words that name a calendar itself ("my calendar", "Kalender"): asked of a home without
    /// one, the answer is that it is not found, at once.
    pub calendar_words: Words,
    pub which: Words,
    pub any: Words,
    /// "Low", of a battery.
    pub low: Words,

    // --- Answers ---
    pub yes: &'static str,
    pub no: &'static str,
    /// State (as Home Assistant writes it) → how this language says it in an answer.
    pub state_words: &'static [(&'static str, &'static str)],
    /// "Kitchen Lights is off": a name and its value (state, with its unit).
    pub state_line: fn(&str, &str) -> String,
    /// "2 of 6 are on: …": how many, of how many, the state, and the names (may be empty).
    pub counted: fn(usize, usize, &str, &str) -> String,
    /// A thermostat's "set to" and "currently".
    pub set_to: &'static str,
    pub currently: &'static str,

    // --- Conversation ---
    /// Answers to an approval question: the words that approve, and those that decline.
    pub approve: Words,
    pub decline: Words,
    /// Small words only this language has, to tell what language a model's sentence is in.
    pub own_words: Words,
    /// Letters beyond a–z this language writes: a text with letters none of the languages
    /// writes is in a language HomeClaw has no words for.
    pub letters: &'static str,
    /// Words that carry no meaning for matching names.
    pub stopwords: Words,
    /// Words that stand for a device named earlier, or for everything ("it", "them").
    pub stand_ins: Words,
    /// Words for what a kind of device does or holds beyond its kind words ("song", "chores"):
    /// domain → words.
    pub about_kinds: Named,
    /// Unit words people and models spell out, and the unit symbol they stand for.
    pub unit_words: &'static [(&'static str, &'static str)],
    /// Words before a yes or no that change nothing ("oh", "well").
    pub answer_lead: Words,
    /// Digit words, as speech-to-text may write a spoken PIN.
    pub digits: &'static [(&'static str, char)],
    /// Claims of having done or seen something (regular expressions over the raw reply).
    pub claims: &'static [(Claim, &'static str)],
    /// Commands that clearly act or ask about live state (regular expressions).
    pub needs_tools: Words,
    /// Verbs that advise calling a service instead of calling it ("call", "use").
    pub advice_verbs: Words,

    // --- Questions answered by reading a list, a calendar or the weather ---
    /// Words that open such a question besides the question openers.
    pub read_openers: Words,
    pub weather: Words,
    /// "Outside", and the measures asked of the weather there.
    pub outside: Words,
    pub weather_measures: Words,
    pub lists: Words,
    /// Needs that live on a list when no agenda word says otherwise ("who do I need to call").
    pub needs: Words,
    pub agenda: Words,
    pub today_words: Words,
    pub tomorrow_words: Words,
    /// Words of a "how many" question that name nothing counted.
    pub count_aside: Words,
}

/// What a claim says was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// "I turned on…": needs a verified action behind it.
    Action,
    /// "I checked…", "the temperature is…": needs a successful read behind it.
    Observation,
}

/// A held action as a sentence needs it: what it would do and to what.
#[derive(Debug, Clone, Copy)]
pub struct Held<'a> {
    /// The `to_do` key of its service (`unlock`, `open`, `disarm`, `run`, …).
    pub key: &'a str,
    /// Its targets' names, joined.
    pub names: &'a str,
    /// More than one target: the verb agrees.
    pub many: bool,
}

/// Why an approved action did not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRun {
    Expired,
    AlreadyAnswered,
    /// Unknown: from before a restart, or never held.
    Unknown,
    /// HomeClaw's settings deny the service now.
    Denied,
    /// Home Assistant refused or could not be reached.
    Failed,
}

/// The ways a held action can be approved from where it was asked, so that a question names
/// only ways there are: a "yes" in the conversation (`approval.confirm_in_conversation`), a
/// phone's buttons (only with `approval.notify_service`); HomeClaw's panel always.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ways {
    pub by_voice: bool,
    pub phone: bool,
}

/// The language of a tag without its region: `de-CH`, `pt_BR` → `de`, `pt`.
pub fn primary_tag(tag: &str) -> &str {
    tag.trim().split(['-', '_']).next().unwrap_or_default()
}

/// The text with its first letter in upper case: a phrase that opens a sentence.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// Whether any language's list holds the word.
pub fn any_has(list: fn(&Lexicon) -> Words, word: &str) -> bool {
    LEXICONS.iter().any(|l| list(l).contains(&word))
}

/// The first language whose list holds the word.
pub fn lang_having(list: fn(&Lexicon) -> Words, word: &str) -> Option<Lang> {
    LEXICONS
        .iter()
        .find(|l| list(l).contains(&word))
        .map(|l| l.lang)
}

/// The key a word says in any language's named list ("aus" → "off" in `states`).
pub fn named_by(list: fn(&Lexicon) -> Named, word: &str) -> Option<&'static str> {
    LEXICONS
        .iter()
        .flat_map(|l| list(l).iter())
        .find(|(_, words)| words.contains(&word))
        .map(|(key, _)| *key)
}

/// Whether any language's phrase list holds a phrase that the words start with; its length.
pub fn leading_phrase(list: fn(&Lexicon) -> Phrases, words: &[String]) -> Option<(usize, Lang)> {
    LEXICONS.iter().find_map(|l| {
        list(l)
            .iter()
            .find(|p| p.len() <= words.len() && p.iter().zip(words).all(|(a, b)| a == b))
            .map(|p| (p.len(), l.lang))
    })
}

/// The language most of the words belong to, by each language's small and common words
/// (articles, fillers, kinds, rooms); `None` when none stands out. For a word several
/// languages share ("pause", a number with "%"), the rest of the command says whose it is.
pub fn lang_of_words(words: &[String]) -> Option<Lang> {
    let lists: [fn(&Lexicon) -> Words; 8] = [
        |l| l.filler,
        |l| l.stopwords,
        |l| l.own_words,
        |l| l.question_filler,
        |l| l.place_prepositions,
        |l| l.courtesy,
        |l| l.which,
        |l| l.question_openers,
    ];
    let named: [fn(&Lexicon) -> Named; 3] = [|l| l.kinds, |l| l.translations, |l| l.states];
    let mut scores: Vec<(usize, Lang)> = LEXICONS
        .iter()
        .map(|l| {
            let score = words
                .iter()
                .filter(|w| {
                    lists.iter().any(|list| list(l).contains(&w.as_str()))
                        || named.iter().any(|list| {
                            list(l).iter().any(|(_, forms)| forms.contains(&w.as_str()))
                        })
                })
                .count();
            (score, l.lang)
        })
        .collect();
    scores.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    let ((best, lang), (second, _)) = (scores[0], scores[1]);
    (best > second).then_some(lang)
}

#[cfg(test)]
mod fr_tests;
#[cfg(test)]
mod tests;
