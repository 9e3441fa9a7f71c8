//! The words that name a kind of device in a language HomeClaw has no lexicon for: not enough
//! to read a command, enough to hold Home Assistant's reading of one to what its words say.
//! Home Assistant 2025.4's Italian rules list "climatizzatore" as a fan as well as a
//! thermostat, and "spegni in soggiorno il climatizzatore" came back the living room's fan.
//!
//! A language is one row of `kinds.json` (domain → its words, folded as
//! [`crate::text::fold`] folds them); a word belongs to one domain only (the tests check).

use std::collections::BTreeMap;
use std::sync::OnceLock;

type Kinds = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn table() -> &'static Kinds {
    static TABLE: OnceLock<Kinds> = OnceLock::new();
    // Checked in and read by the tests: a broken file is a build defect they catch.
    TABLE.get_or_init(|| serde_json::from_str(include_str!("kinds.json")).unwrap_or_default())
}

/// The domains the words (folded) name in the language of `tag` (`it`, `it-IT`), where it has
/// a row; none otherwise.
pub fn domains_named(tag: &str, words: &[String]) -> Vec<&'static str> {
    let tag = tag.trim().to_ascii_lowercase().replace('_', "-");
    let Some(row) = table().get(super::primary_tag(&tag)) else {
        return Vec::new();
    };
    row.iter()
        .filter(|(_, said)| said.iter().any(|w| words.contains(w)))
        .map(|(domain, _)| domain.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_reads_and_no_word_names_two_kinds() {
        let raw: Kinds = serde_json::from_str(include_str!("kinds.json")).expect("kinds.json");
        assert!(!raw.is_empty());
        for (tag, row) in &raw {
            let mut seen = std::collections::BTreeSet::new();
            for (domain, words) in row {
                for w in words {
                    assert_eq!(
                        crate::text::fold(w),
                        *w,
                        "{tag} {domain}: {w} is not folded"
                    );
                    assert!(seen.insert(w), "{tag}: {w} names two kinds");
                }
            }
        }
    }

    #[test]
    fn the_words_name_their_kinds_in_their_language_only() {
        let words = |s: &str| crate::text::tokens(s);
        assert_eq!(
            domains_named("it-IT", &words("spegni in soggiorno il climatizzatore")),
            ["climate"]
        );
        assert!(domains_named("it", &words("spegni tutto")).is_empty());
        assert!(domains_named("es", &words("apaga el climatizzatore")).is_empty());
    }
}
