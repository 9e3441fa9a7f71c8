//! Understanding: what the person's words say, read once per command. The words (a home's
//! compound names joined, the requests a sentence holds), the intent and its language, what
//! the words point at in the home, "here", and what points at nothing. Pure: the registry in,
//! a reading out; the later stages (planning, acting, saying) read this, not the text.

pub mod here;
pub mod intent;
pub mod naming;
pub mod parsed;
pub mod target;
pub mod unmatched;
pub mod words;

pub use intent::{
    Lang, against_the_words, asks_to_toggle, is_action, is_cleaning, is_one_request, is_question,
    is_single_action, language_of, service_for, state_named,
};
pub use target::{Pointing, points_at, translations};
pub use unmatched::{Unmatched, unmatched};
pub use words::join_compounds;
