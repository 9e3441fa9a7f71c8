//! Understanding: what the person's words say. The words (a home's compound names joined, the
//! requests a sentence holds), the intent and its language, what the words point at in the
//! home, "here", and what points at nothing. Pure: the registry in, a reading out. The
//! command's reading (`mood::Reading`) is built once per run, its text cut into `pieces` once;
//! a request of several is a run of those pieces, never its text read again.

pub mod capability;
pub mod here;
pub mod intent;
pub mod mood;
pub mod naming;
pub mod parsed;
pub mod pieces;
pub mod target;
pub mod unmatched;
pub mod value;
pub mod words;

pub use capability::{against_the_words, asks_to_toggle};
pub use intent::{Lang, is_cleaning, state_named};
pub use mood::{is_action, is_one_request, is_question, is_single_action, language_of};
pub use target::{Pointing, points_at, translations};
pub use unmatched::{Unmatched, unmatched};
pub use words::join_compounds;
