//! The notes HomeClaw writes into the model's history: what the model said or did that the
//! record does not back, and what the run did about it. They start with `[HomeClaw]`, so
//! neither the person's commands nor a reply ever takes one for the person's words.

pub const CORRECTIVE_NOTE: &str = "[HomeClaw] You said you did or checked something, but you \
made no tool call for this request. Nothing has been done or checked. Use the tools now to \
actually do or check it, or say plainly that you did not.";

pub const CALL_AS_TEXT_NOTE: &str = "[HomeClaw] You wrote a tool call (or advice to make one) \
as your answer. Nothing was done. Make the call with the tool now, or answer the user plainly.";

pub const AUDIT_NOTE: &str = "[HomeClaw] Warning: the conversation was just compacted and you \
stated something about the home without checking it with a tool. Check it with the tools now, \
or say plainly that you did not.";

pub const RESET_NOTE: &str = "[HomeClaw] The conversation was reset: the model provider \
rejected its history even after it was summarised. Earlier messages are no longer in context.";

pub const CALL_FAILED_NOTE: &str = "[HomeClaw] Nothing was done: the call above failed. Read \
its error, then make the corrected call now: the entity the user named (see the likely targets), \
a service its domain offers, and only the data that service takes.";
