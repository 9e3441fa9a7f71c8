//! Saying: every sentence the person hears. Built from what HomeClaw knows happened (the
//! verified actions, what was read), in the person's language; the model's own words are
//! held to the same facts by the honesty guards.

pub mod honesty;
pub mod reading;
pub mod reply;
pub mod speak;
