//! Adding an item to a to-do list: the one command whose target words are not all names.

use serde_json::json;

use super::ask::{MAX_NAMED, which_one};
use super::{Plan, PlannedCall};
use crate::agent::understand::Lang;
use crate::agent::understand::intent::add_item_verb;
use crate::agent::understand::mood::Reading;
use crate::agent::understand::target::covers;
use crate::ha::exposure::ServiceDecision;
use crate::ha::registry::{Entity, Registry};
use crate::ha::search::Query;
use crate::lang::any_has;

/// Words around a list's name that do not name it.
pub(super) fn is_list_filler(word: &str) -> bool {
    any_has(|l| l.list_filler, word)
}

/// Adding an item to a to-do list: the item is the person's own words, the list must be the one
/// named (or the only one); with a few lists and none named, the person is asked which.
pub(super) fn add_item(reading: &Reading, registry: &Registry) -> Option<Plan> {
    // Every command passes here; few add an item: the verb first, then the rest is folded.
    let (preps, lang) = add_item_verb(&reading.piece_words(0).join(" "))?;
    let folded: Vec<String> = (0..reading.pieces.len())
        .map(|i| reading.piece_words(i).join(" "))
        .collect();
    let prep = folded.iter().rposition(|w| preps.contains(&w.as_str()))?;
    if prep < 2 {
        return None;
    }
    // The person's own words, as written between the verb and the list.
    let (first, last) = (&reading.pieces[1], &reading.pieces[prep - 1]);
    let item = reading.text[first.raw.start..last.raw.end]
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_owned();
    if item.is_empty() {
        return None;
    }
    let list_words: Vec<&str> = reading.words[reading.pieces[prep].words.end..]
        .iter()
        .map(String::as_str)
        .filter(|w| !is_list_filler(w))
        .collect();
    let allowed = matches!(
        registry.service_decision("todo", "add_item"),
        Some(ServiceDecision::Allowed)
    );
    if !allowed {
        return None;
    }
    let lists: Vec<&Entity> = registry
        .entities()
        .filter(|e| e.domain() == "todo")
        .collect();
    let several = (2..=MAX_NAMED).contains(&lists.len());
    let chosen: Vec<&Entity> = if list_words.is_empty() {
        if several {
            // "Put milk on the list" with several lists: which one.
            return Some(ask(&lists, &item, registry, lang));
        }
        lists
    } else {
        let query = Query::new(&list_words.join(" "));
        let named: Vec<&Entity> = lists
            .iter()
            .copied()
            .filter(|e| covers(e, &query))
            .collect();
        // "The shopping list" in a home whose lists are "Personal Tasks" and "Trader Joe's":
        // words for a kind of list that name none of them, so which one (never a guess).
        if named.is_empty() && several && list_words.iter().all(|w| any_has(|l| l.lists, w)) {
            return Some(ask(&lists, &item, registry, lang));
        }
        named
    };
    let [list] = chosen.as_slice() else {
        return None;
    };
    Some(Plan::Act {
        calls: vec![adding(list, &item)],
        lang,
    })
}

/// Which list `item` goes on, each answer adding it there.
fn ask(lists: &[&Entity], item: &str, registry: &Registry, lang: Lang) -> Plan {
    Plan::Ask {
        question: which_one(lists, registry, lang),
        options: lists.iter().map(|list| adding(list, item)).collect(),
        lang,
    }
}

fn adding(list: &Entity, item: &str) -> PlannedCall {
    PlannedCall {
        domain: "todo".into(),
        service: "add_item".into(),
        entity_ids: vec![list.entity_id.clone()],
        data: json!({"item": item}),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::home;
    use super::super::{Lang, Plan, plan};

    #[test]
    fn an_item_goes_on_the_list_named_or_the_only_one() {
        let registry = home(&[
            ("todo.personal_tasks", "Personal Tasks", "kitchen"),
            ("todo.trader_joe_s", "Trader Joe'S", "kitchen"),
        ]);
        let planned = |text: &str| match plan(text, &registry) {
            Plan::Act { calls, lang } => {
                Some((calls[0].entity_ids[0].clone(), calls[0].data.clone(), lang))
            }
            _ => None,
        };
        assert_eq!(
            planned("add apples to my trader joe's list"),
            Some((
                "todo.trader_joe_s".into(),
                json!({"item": "apples"}),
                Lang::En
            ))
        );
        // Typed without the apostrophe, the name is the same name.
        assert_eq!(
            planned("put apples on the trader joes list").map(|p| p.0),
            Some("todo.trader_joe_s".into())
        );
        assert_eq!(
            planned("Put history homework on personal tasks list"),
            Some((
                "todo.personal_tasks".into(),
                json!({"item": "history homework"}),
                Lang::En
            ))
        );
        assert_eq!(
            planned("Add clean the kitchen to my tasks"),
            Some((
                "todo.personal_tasks".into(),
                json!({"item": "clean the kitchen"}),
                Lang::En
            ))
        );
        // A list named in another language's words for it ("persönliche Aufgaben").
        for text in [
            "Setze Milch auf meine persönlichen Aufgaben",
            "Füge Milch zu meinen persönlichen Aufgaben hinzu",
        ] {
            assert_eq!(
                planned(text).map(|p| p.0),
                Some("todo.personal_tasks".into()),
                "{text}"
            );
        }
        assert_eq!(
            planned("Dodaj mleko do listy Personal Tasks"),
            Some((
                "todo.personal_tasks".into(),
                json!({"item": "mleko"}),
                Lang::Pl
            ))
        );
        // Two lists and none named, or only words for a kind of list that name neither: which
        // one. A name that is no list's: the model decides.
        for (text, item) in [
            ("put milk on the list", "milk"),
            ("put apples on the shopping list", "apples"),
        ] {
            let Plan::Ask {
                question,
                options,
                lang,
            } = plan(text, &registry)
            else {
                panic!("{text}: not asked");
            };
            assert_eq!(
                question, "Which one do you mean: Personal Tasks or Trader Joe'S?",
                "{text}"
            );
            assert_eq!(lang, Lang::En);
            // Each answer adds the item to the list it names, in the order the question names them.
            let added: Vec<(&str, &serde_json::Value)> = options
                .iter()
                .map(|o| (o.entity_ids[0].as_str(), &o.data["item"]))
                .collect();
            assert_eq!(
                added,
                [
                    ("todo.personal_tasks", &json!(item)),
                    ("todo.trader_joe_s", &json!(item))
                ],
                "{text}"
            );
        }
        assert_eq!(
            plan("put apples on the Costco list", &registry),
            Plan::Model
        );
        let one = home(&[("todo.personal_tasks", "Personal Tasks", "kitchen")]);
        assert!(matches!(
            plan("put milk on the list", &one),
            Plan::Act { .. }
        ));
    }
}
