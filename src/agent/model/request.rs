//! One request to the model: the system text (the same for every request of a home, so a
//! prompt cache serves it), the history within its budget, the tools, the reply's schema, and
//! what belongs to this command alone (the speaking device, the entities its words point at).

use super::prompt::{device_entities, grounding, speaker_line, system_prompt};
use super::schema::{self, Shared};
use super::truncate::budget_history;
use crate::agent::home::with_registry;
use crate::agent::state::{Agent, newest_command};
use crate::agent::understand::parsed::Parsed;
use crate::llm::{ChatRequest, Message, ToolChoice};

impl Agent<'_> {
    /// The request for the current history, outside a run (the warm-up, the benchmarks): the
    /// newest command is parsed for its grounding.
    pub fn build_request(&self, history: &[Message], choice: ToolChoice) -> ChatRequest {
        let said = with_registry(self.home, |r| {
            Parsed::new(
                newest_command(history).unwrap_or_default(),
                self.language.as_deref(),
                self.device_id.as_deref(),
                r,
            )
        });
        self.request_for(history, choice, &said, &mut Shared::default())
    }

    /// The request for the current history of the run answering `said`.
    pub(crate) fn request_for(
        &self,
        history: &[Message],
        choice: ToolChoice,
        said: &Parsed,
        shared: &mut Shared,
    ) -> ChatRequest {
        // A message that joined the turn is a command of its own: grounded on its own words.
        let newest = newest_command(history);
        let joined = newest.filter(|c| !said.is(c)).map(|c| {
            with_registry(self.home, |r| {
                Parsed::new(c, self.language.as_deref(), self.device_id.as_deref(), r)
            })
        });
        let said = joined.as_ref().unwrap_or(said);
        // The system text is the same for every request of this home (a prompt cache serves
        // it); what belongs to this command goes into `context`, rendered after it.
        let (system, tools, reply_schema, mut context) = with_registry(self.home, |r| {
            let mut context = String::new();
            let mut ids: Vec<&str> = Vec::new();
            if let Some(device) = self.device_id.as_deref()
                && let Some(line) = speaker_line(r, device)
            {
                context.push_str(&line);
                ids.extend(device_entities(r, device));
            }
            let found = if self.cfg.grounding && newest.is_some() {
                said.candidates(r)
            } else {
                &[]
            };
            if let Some(lines) = grounding(r, found, |service| said.shows_service(service)) {
                context.push_str(&lines);
            }
            ids.extend(
                found
                    .iter()
                    .filter_map(|id| r.get(id))
                    .map(|e| e.entity_id.as_str()),
            );
            ids.sort_unstable();
            ids.dedup();
            let schema = if self.model.uses_reply_schema() {
                shared.reply(&choice, &ids, || {
                    schema::reply_schema(self.tools, r, &choice, &ids)
                })
            } else {
                None
            };
            let system = shared.system(|| system_prompt(r));
            (
                system,
                shared.tools(|| self.tools.definitions(r)),
                schema,
                context,
            )
        });
        if let Some(language) = &self.language {
            context.push_str(&format!(
                "\nThe user speaks the language tagged {language}: write your reply in it."
            ));
        }
        ChatRequest {
            system: Some(system),
            messages: budget_history(history, self.cfg.truncation.history_budget_chars),
            tools,
            tool_choice: choice,
            max_tokens: None,
            temperature: None,
            reply_schema,
            context: (!context.is_empty()).then_some(context),
        }
    }
}
