//! HomeClaw's own sentences — its questions back, refusals, approvals and what it did or read —
//! as data: one file per language, `says/<tag>.yaml`. A translator edits that file, no Rust.
//!
//! A text is a template whose `{placeholders}` the code fills; [`TEXTS`] says which each text
//! gets (`{To_do}` is `{to_do}` with its first letter in upper case). A text that depends on a
//! count is a table by the language's plural category (`one`, `few`, `many`, as
//! [`super::Lexicon::plural`] decides for the count). A text a language's file lacks is taken
//! from English rather than left out; the tests hold every shipped file to every text of
//! English, with the same placeholders. Words for Home Assistant's values (colours, modes,
//! weather) come from the language's own file only: a value it has no word for is not said in
//! English inside a sentence of another language.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::{Held, Lang, NotRun, Plural, Ways};

mod file;

pub use file::{Error, Node, Texts, at, category, fill, placeholders, read};

/// Every language's file, by its tag: the four with a lexicon have every text; Dutch,
/// Spanish and Italian (answered with Home Assistant's own sentences) only the question before
/// a held action, which Home Assistant ships no sentence for.
pub const FILES: [(&str, &str); 7] = [
    ("en", include_str!("says/en.yaml")),
    ("pl", include_str!("says/pl.yaml")),
    ("de", include_str!("says/de.yaml")),
    ("fr", include_str!("says/fr.yaml")),
    ("nl", include_str!("says/nl.yaml")),
    ("es", include_str!("says/es.yaml")),
    ("it", include_str!("says/it.yaml")),
];

/// What a text is to a person: a whole sentence (it ends as one), or a part of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Sentence,
    Part,
}

/// The placeholders of a held action's texts: its targets' names, what it would do (an
/// infinitive, [`Says::to_do`]) and the same as a noun (`doing`, where a language has one).
const HELD: &[&str] = &["names", "to_do", "doing"];
const HELD_COUNTED: &[&str] = &["names", "to_do", "doing", "left"];

/// Every text, by its path in the file (`*` is any one key), with the placeholders HomeClaw
/// fills in it.
pub const TEXTS: &[(&str, &[&str], Role)] = {
    use Role::{Part, Sentence};
    &[
        ("nothing_changed", &[], Sentence),
        ("conditional", &[], Sentence),
        ("condition_unmet", &["seen"], Sentence),
        ("nothing_matches", &["words"], Sentence),
        ("nothing_to_answer", &["words"], Sentence),
        ("no_room_here", &[], Sentence),
        ("not_exposed", &["name"], Sentence),
        ("filtered_out", &["name"], Sentence),
        ("did.*", &["names"], Sentence),
        ("set_value", &["names", "value"], Sentence),
        ("colours.*", &[], Part),
        ("modes.*", &[], Part),
        ("added", &["item", "list"], Sentence),
        ("to_do.*", &["names"], Part),
        ("doing.*", &["names"], Part),
        ("dry_run", HELD, Sentence),
        ("not_confirmed", &["names", "seen"], Sentence),
        ("unfinished_nothing_changed", &[], Sentence),
        ("unfinished", &[], Sentence),
        ("stuck", &[], Sentence),
        ("reset", &[], Sentence),
        ("ask_approval.*", HELD, Sentence),
        (
            "ask_approval_by_service",
            &["names", "action", "act"],
            Sentence,
        ),
        ("approval_title", &[], Part),
        ("approval_notice.*", HELD, Sentence),
        ("approval_buttons", &[], Part),
        ("declined.default", HELD, Sentence),
        ("declined.*", HELD, Sentence),
        ("declined.*.*", HELD, Sentence),
        ("pin_missing", HELD, Sentence),
        ("pin_cancelled", HELD, Sentence),
        ("pin_wrong.*", HELD_COUNTED, Sentence),
        ("pin_required_here.*", HELD, Sentence),
        ("not_run.*", &[], Sentence),
        ("which_device", &[], Sentence),
        ("do_you_mean", &["name"], Sentence),
        ("which_of", &["first", "last"], Sentence),
        ("another", &[], Part),
        ("in_room", &["name", "area"], Part),
        ("could_not_answer", &[], Sentence),
        ("could_not_read", &["name"], Sentence),
        ("items.empty", &["name"], Sentence),
        ("items.named_list", &["name"], Sentence),
        ("items.list_word", &[], Part),
        ("items.*", &["name", "count", "items"], Sentence),
        ("weekdays", &[], Part),
        ("months", &[], Part),
        ("date", &["weekday", "day", "month"], Part),
        ("today", &[], Part),
        ("tomorrow", &[], Part),
        ("rest_of_today", &[], Part),
        ("next_7_days", &[], Part),
        ("nothing_on", &["calendar", "window"], Sentence),
        ("at_place", &["place"], Part),
        ("all_day", &[], Part),
        (
            "events_counted",
            &["count", "calendar", "window", "events"],
            Sentence,
        ),
        ("conditions.*", &[], Part),
        ("humidity", &["percent"], Part),
        ("wind", &[], Part),
        ("no_forecast", &["name"], Sentence),
        ("chance_of_rain", &["percent"], Part),
    ]
};

/// Texts a language may have that English does not need: a noun for a held action (Polish
/// "odblokowanie"), its own way to decline one key, a list whose name already says "list".
pub const OPTIONAL: &[&str] = &[
    "doing.*",
    "declined.*",
    "declined.*.*",
    "items.named_list",
    "items.list_word",
    "ask_approval_by_service",
];

/// Lists and how many entries each must have.
pub const LISTS: &[(&str, usize)] = &[("weekdays", 7), ("months", 12), ("approval_buttons", 2)];

/// Texts chosen by a count: their keys are plural categories.
pub const COUNTED: &[&str] = &["pin_wrong", "items"];

/// The texts of a language tag (`nl`, `de-CH`: its language's), read once; `None` where
/// HomeClaw has no file for it. A file that does not read (the tests keep that from
/// shipping) is logged and left out, so its language's texts are English's.
pub fn texts(tag: &str) -> Option<&'static Texts> {
    static READ: OnceLock<Vec<(&str, Texts)>> = OnceLock::new();
    let read = READ.get_or_init(|| {
        FILES
            .iter()
            .filter_map(|(tag, yaml)| match read(yaml) {
                Ok(texts) => Some((*tag, texts)),
                Err(error) => {
                    tracing::error!(tag, %error, "HomeClaw's sentences for this language do not read; English is said instead");
                    None
                }
            })
            .collect()
    });
    let primary = super::primary_tag(tag);
    read.iter()
        .find(|(t, _)| t.eq_ignore_ascii_case(primary))
        .map(|(_, texts)| texts)
}

/// HomeClaw's question before a held action in a language it has no lexicon for, around Home
/// Assistant's name for the service (`{action}`, `{act}` in lower case); `None` where the
/// language's file has no such sentence.
pub fn ask_approval_by_service(tag: &str, action: &str, names: &str) -> Option<String> {
    let Some(Node::Text(template)) = at(texts(tag)?, &["ask_approval_by_service"]) else {
        return None;
    };
    if names.trim().is_empty() {
        return None;
    }
    let act = action.to_lowercase();
    Some(fill(
        template,
        &[("names", names), ("action", action), ("act", &act)],
    ))
}

/// A language's texts, ready to say: each method is one text, filled.
#[derive(Clone, Copy)]
pub struct Says {
    lang: Lang,
    own: &'static Texts,
    english: &'static Texts,
}

impl Says {
    pub fn of(lang: Lang) -> Self {
        static EMPTY: Texts = BTreeMap::new();
        Self {
            lang,
            own: texts(lang.lexicon().tag).unwrap_or(&EMPTY),
            english: texts("en").unwrap_or(&EMPTY),
        }
    }

    /// The first text of these paths in the language's file, else in English's; a text
    /// neither has is empty.
    fn first(&self, paths: &[&[&str]]) -> &'static str {
        [self.own, self.english]
            .iter()
            .flat_map(|texts| paths.iter().map(move |path| at(texts, path)))
            .find_map(|node| match node {
                Some(Node::Text(text)) => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or_default()
    }

    fn text(&self, key: &str) -> &'static str {
        self.first(&[&[key]])
    }

    fn filled(&self, key: &str, args: &[(&str, &str)]) -> String {
        fill(self.text(key), args)
    }

    /// A word of the language's own for a Home Assistant value (`colours`, `modes`,
    /// `conditions`).
    fn own_word(&self, table: &str, key: &str) -> Option<&'static str> {
        match at(self.own, &[table, key]) {
            Some(Node::Text(word)) => Some(word),
            _ => None,
        }
    }

    fn list(&self, key: &str, i: usize) -> &'static str {
        [self.own, self.english]
            .iter()
            .find_map(|texts| match at(texts, &[key]) {
                Some(Node::List(items)) => items.get(i).map(String::as_str),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The text of a table chosen by a count.
    fn counted(&self, key: &str, n: u64) -> &'static str {
        let category = category((self.lang.lexicon().plural)(n));
        self.first(&[&[key, category], &[key, "many"], &[key, "one"]])
    }

    /// A held action's placeholders, filled in `template`.
    fn held(&self, template: &str, held: &Held, more: &[(&str, &str)]) -> String {
        let to_do = self.to_do(held.key, held.names);
        let doing = fill(
            self.first_own(&[&["doing", held.key], &["doing", "default"]])
                .unwrap_or("{to_do}"),
            &[("names", held.names), ("to_do", &to_do)],
        );
        let mut args = vec![
            ("names", held.names),
            ("to_do", to_do.as_str()),
            ("doing", doing.as_str()),
        ];
        args.extend_from_slice(more);
        fill(template, &args)
    }

    fn first_own(&self, paths: &[&[&str]]) -> Option<&'static str> {
        paths.iter().find_map(|path| match at(self.own, path) {
            Some(Node::Text(text)) => Some(text.as_str()),
            _ => None,
        })
    }

    // --- Actions ---

    pub fn nothing_changed(&self) -> &'static str {
        self.text("nothing_changed")
    }

    /// A request on a condition: nothing changed, and why.
    pub fn conditional(&self) -> &'static str {
        self.text("conditional")
    }

    /// A condition that does not hold: the states that decided it.
    pub fn condition_unmet(&self, seen: &str) -> String {
        self.filled("condition_unmet", &[("seen", seen)])
    }

    /// Nothing in the home matches the person's words: for a request, and for a question.
    pub fn nothing_matches(&self, words: &str) -> String {
        self.filled("nothing_matches", &[("words", words)])
    }

    pub fn nothing_to_answer(&self, words: &str) -> String {
        self.filled("nothing_to_answer", &[("words", words)])
    }

    /// "Here" said where HomeClaw cannot tell the room.
    pub fn no_room_here(&self) -> &'static str {
        self.text("no_room_here")
    }

    /// A device Home Assistant keeps from Assist, and one HomeClaw's own settings exclude.
    pub fn not_exposed(&self, name: &str) -> String {
        self.filled("not_exposed", &[("name", name)])
    }

    pub fn filtered_out(&self, name: &str) -> String {
        self.filled("filtered_out", &[("name", name)])
    }

    /// What a service did (by its key: a service, "open", "close"; else "done") to the names.
    pub fn did(&self, key: &str, names: &str) -> String {
        let template = self.first(&[&["did", key], &["did", "done"]]);
        fill(template, &[("names", names)])
    }

    /// "Set Kitchen to 30%."
    pub fn set_value(&self, names: &str, value: &str) -> String {
        self.filled("set_value", &[("names", names), ("value", value)])
    }

    /// A CSS colour's name, an HVAC mode's, a weather condition's, in this language.
    pub fn colour(&self, css: &str) -> Option<&'static str> {
        self.own_word("colours", css)
    }

    pub fn mode(&self, mode: &str) -> Option<&'static str> {
        self.own_word("modes", mode)
    }

    pub fn condition(&self, condition: &str) -> Option<&'static str> {
        self.own_word("conditions", condition)
    }

    /// An item added to a list.
    pub fn added(&self, item: &str, list: &str) -> String {
        self.filled("added", &[("item", item), ("list", list)])
    }

    /// What a call would do, to follow "to" or "would": by its key (`turn_on`, `unlock`,
    /// `open`, `run`, …; anything else changes the device) → "unlock Front Door".
    pub fn to_do(&self, key: &str, names: &str) -> String {
        let template = self.first(&[&["to_do", key], &["to_do", "default"]]);
        fill(template, &[("names", names)])
    }

    /// A dry run: what it would have done.
    pub fn dry_run(&self, key: &str, names: &str) -> String {
        let held = Held {
            key,
            names,
            many: false,
        };
        self.held(self.text("dry_run"), &held, &[])
    }

    /// Accepted but not seen to take effect: the names, what Home Assistant showed.
    pub fn not_confirmed(&self, names: &str, seen: &str) -> String {
        self.filled("not_confirmed", &[("names", names), ("seen", seen)])
    }

    /// A run the model could not finish: with nothing changed; and the lead before what ran.
    pub fn unfinished_nothing_changed(&self) -> &'static str {
        self.text("unfinished_nothing_changed")
    }

    pub fn unfinished(&self) -> &'static str {
        self.text("unfinished")
    }

    /// A guard stopped the run: a question back instead of a dead end.
    pub fn stuck(&self) -> &'static str {
        self.text("stuck")
    }

    /// The conversation had to start over (the provider rejected it).
    pub fn reset(&self) -> &'static str {
        self.text("reset")
    }

    // --- Approvals ---

    /// The question a held action asks, naming only the ways to approve it there are.
    pub fn ask_approval(&self, held: &Held, ways: Ways) -> String {
        let way = match (ways.by_voice, ways.phone) {
            (true, true) => "voice_and_phone",
            (true, false) => "voice",
            (false, true) => "phone",
            (false, false) => "panel",
        };
        self.held(self.first(&[&["ask_approval", way]]), held, &[])
    }

    pub fn approval_title(&self) -> &'static str {
        self.text("approval_title")
    }

    /// A notification for a held action: on a phone with its buttons (`true`), or in Home
    /// Assistant's notifications, which have none (so it says where to answer).
    pub fn approval_notice(&self, held: &Held, buttons: bool) -> String {
        let way = if buttons { "buttons" } else { "panel" };
        self.held(self.first(&[&["approval_notice", way]]), held, &[])
    }

    /// The phone's Approve and Deny buttons; the same words as the panel's.
    pub fn approval_buttons(&self) -> [&'static str; 2] {
        [
            self.list("approval_buttons", 0),
            self.list("approval_buttons", 1),
        ]
    }

    /// A declined (or cancelled) action: what stays as it was.
    pub fn declined(&self, held: &Held) -> String {
        let many = category(if held.many { Plural::Many } else { Plural::One });
        let template = self
            .first_own(&[
                &["declined", held.key, many],
                &["declined", held.key],
                &["declined", "default"],
            ])
            .unwrap_or_else(|| self.first(&[&["declined", "default"]]));
        self.held(template, held, &[])
    }

    pub fn pin_missing(&self, held: &Held) -> String {
        self.held(self.text("pin_missing"), held, &[])
    }

    pub fn pin_cancelled(&self, held: &Held) -> String {
        self.held(self.text("pin_cancelled"), held, &[])
    }

    /// A wrong PIN: the held action, attempts left.
    pub fn pin_wrong(&self, held: &Held, left: u32) -> String {
        let n = left.to_string();
        self.held(
            self.counted("pin_wrong", left.into()),
            held,
            &[("left", &n)],
        )
    }

    /// Approving by voice needs a PIN here; where else it can be approved (`true`: a phone
    /// has the buttons too).
    pub fn pin_required_here(&self, held: &Held, phone: bool) -> String {
        let way = if phone { "phone" } else { "panel" };
        self.held(self.first(&[&["pin_required_here", way]]), held, &[])
    }

    /// An approved action that did not run, and why.
    pub fn not_run(&self, why: NotRun) -> &'static str {
        let key = match why {
            NotRun::Expired => "expired",
            NotRun::AlreadyAnswered => "already_answered",
            NotRun::Unknown => "unknown",
            NotRun::Denied => "denied",
            NotRun::Failed => "failed",
        };
        self.first(&[&["not_run", key]])
    }

    // --- Questions back ---

    pub fn which_device(&self) -> &'static str {
        self.text("which_device")
    }

    pub fn do_you_mean(&self, name: &str) -> String {
        self.filled("do_you_mean", &[("name", name)])
    }

    /// All names but the last (joined), the last.
    pub fn which_of(&self, first: &str, last: &str) -> String {
        self.filled("which_of", &[("first", first), ("last", last)])
    }

    /// The last choice of a list cut short ("… or another one?").
    pub fn another(&self) -> &'static str {
        self.text("another")
    }

    /// A device's name with its room, to tell apart two of the same name.
    pub fn in_room(&self, name: &str, area: &str) -> String {
        self.filled("in_room", &[("name", name), ("area", area)])
    }

    pub fn could_not_answer(&self) -> &'static str {
        self.text("could_not_answer")
    }

    // --- Reads ---

    pub fn could_not_read(&self, name: &str) -> String {
        self.filled("could_not_read", &[("name", name)])
    }

    /// A to-do list's open items: the list, how many, the items joined. An empty list whose
    /// name already says it is one ("Lista zakupów") is not called a list twice.
    pub fn items(&self, name: &str, n: usize, items: &str) -> String {
        let template = if n > 0 {
            self.counted("items", n as u64)
        } else {
            let word = self.first_own(&[&["items", "list_word"]]);
            let named = word.is_some_and(|w| name.to_lowercase().starts_with(&w.to_lowercase()));
            named
                .then(|| self.first_own(&[&["items", "named_list"]]))
                .flatten()
                .unwrap_or_else(|| self.first(&[&["items", "empty"]]))
        };
        let count = n.to_string();
        fill(
            template,
            &[("name", name), ("count", &count), ("items", items)],
        )
    }

    /// A weekday's name, Monday first; a month's, January first.
    pub fn weekday(&self, monday_zero: usize) -> &'static str {
        self.list("weekdays", monday_zero)
    }

    pub fn month(&self, january_zero: usize) -> &'static str {
        self.list("months", january_zero)
    }

    /// A date: weekday, day of month, month.
    pub fn date(&self, weekday: &str, day: i64, month: &str) -> String {
        let day = day.to_string();
        self.filled(
            "date",
            &[("weekday", weekday), ("day", &day), ("month", month)],
        )
    }

    pub fn today(&self) -> &'static str {
        self.text("today")
    }

    pub fn tomorrow(&self) -> &'static str {
        self.text("tomorrow")
    }

    pub fn rest_of_today(&self) -> &'static str {
        self.text("rest_of_today")
    }

    pub fn next_7_days(&self) -> &'static str {
        self.text("next_7_days")
    }

    /// A calendar: its name, the window.
    pub fn nothing_on(&self, calendar: &str, window: &str) -> String {
        self.filled("nothing_on", &[("calendar", calendar), ("window", window)])
    }

    /// An event's place, after its summary.
    pub fn at_place(&self, place: &str) -> String {
        self.filled("at_place", &[("place", place)])
    }

    pub fn all_day(&self) -> &'static str {
        self.text("all_day")
    }

    /// How many events match, the calendar, the window, the events.
    pub fn events_counted(
        &self,
        count: usize,
        calendar: &str,
        window: &str,
        events: &str,
    ) -> String {
        let count = count.to_string();
        self.filled(
            "events_counted",
            &[
                ("count", &count),
                ("calendar", calendar),
                ("window", window),
                ("events", events),
            ],
        )
    }

    pub fn humidity(&self, percent: &str) -> String {
        self.filled("humidity", &[("percent", percent)])
    }

    pub fn wind(&self) -> &'static str {
        self.text("wind")
    }

    pub fn no_forecast(&self, name: &str) -> String {
        self.filled("no_forecast", &[("name", name)])
    }

    pub fn chance_of_rain(&self, percent: &str) -> String {
        self.filled("chance_of_rain", &[("percent", percent)])
    }
}

#[cfg(test)]
mod tests;
