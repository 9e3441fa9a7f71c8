//! Text folding and tokenising shared by entity search, tool selection and the honesty checks:
//! one definition of what a "word" is in every language HomeClaw speaks, so that a name the
//! search finds is also a word the other parts recognise.

/// Lowercase, strip the diacritics of Latin letters, keep letters and digits, one space between
/// words. An apostrophe joins ("Trader Joe's" is "trader joes", as people say and type it),
/// except after a lone letter or "qu", where it marks a word cut short ("l'entrée" is "l
/// entree", "I'd" is "i d").
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let mapped: &str = match c {
            'ą' | 'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
            'ć' | 'ç' => "c",
            'ę' | 'è' | 'é' | 'ê' | 'ë' => "e",
            'ì' | 'í' | 'î' | 'ï' => "i",
            'ł' => "l",
            'ń' | 'ñ' => "n",
            'ó' | 'ö' | 'ò' | 'ô' | 'õ' => "o",
            'ś' => "s",
            'ù' | 'ú' | 'û' | 'ü' => "u",
            'ý' | 'ÿ' => "y",
            'ź' | 'ż' => "z",
            'ß' => "ss",
            'œ' => "oe",
            'æ' => "ae",
            _ => "",
        };
        if !mapped.is_empty() {
            out.push_str(mapped);
        } else if c == '\'' || c == '\u{2019}' {
            let word = out.rsplit(' ').next().unwrap_or_default();
            if word.len() == 1 || word == "qu" {
                out.push(' ');
            }
        } else if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with(' ') && !out.is_empty() {
            out.push(' ');
        }
    }
    out.trim_end().to_owned()
}

/// Folded words with every language's stopwords removed.
pub fn tokens(text: &str) -> Vec<String> {
    fold(text)
        .split(' ')
        .filter(|w| !w.is_empty() && !crate::lang::any_has(|l| l.stopwords, w))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_strips_diacritics_and_punctuation() {
        assert_eq!(fold("Światło w KUCHNI!"), "swiatlo w kuchni");
        assert_eq!(fold("Küchen-Licht  (groß)"), "kuchen licht gross");
        assert_eq!(fold("Trader Joe’s"), fold("trader joes"));
        assert_eq!(fold("Joe's 'bar'"), "joes bar");
        assert_eq!(
            fold("Éteins l'éclairage d’entrée"),
            "eteins l eclairage d entree"
        );
        assert_eq!(
            fold("Qu'est-ce que c'est, aujourd'hui ?"),
            "qu est ce que c est aujourdhui"
        );
        assert_eq!(fold("I'd like it, don't"), "i d like it dont");
        assert_eq!(
            tokens("turn on the kitchen light"),
            vec!["turn", "kitchen", "light"]
        );
    }
}
