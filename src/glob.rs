//! Service and entity id globs (`*` any run, `?` one character), the only pattern language in
//! settings: exposure lists and high-risk rules share it, so one validator says what is allowed.

/// Checks that a glob uses only what [`glob_match`] understands; `Err` says what is allowed.
pub fn validate_glob(glob: &str) -> Result<(), String> {
    let ok = !glob.is_empty()
        && glob.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '.' | '*' | '?')
        });
    if ok {
        Ok(())
    } else {
        Err("a non-empty glob of lowercase letters, digits, '_', '.', '*' and '?'".into())
    }
}

/// Glob match where `*` is any run of characters and `?` is one character. Asked for every
/// candidate service of every request, so ids (ASCII, as Home Assistant writes them) are matched
/// byte by byte without copying; other text character by character.
pub fn glob_match(glob: &str, text: &str) -> bool {
    if glob.is_ascii() && text.is_ascii() {
        matches(glob.as_bytes(), text.as_bytes(), b'*', b'?')
    } else {
        let (g, t): (Vec<char>, Vec<char>) = (glob.chars().collect(), text.chars().collect());
        matches(&g, &t, '*', '?')
    }
}

fn matches<T: Copy + PartialEq>(g: &[T], t: &[T], star: T, one: T) -> bool {
    let (mut gi, mut ti) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while ti < t.len() {
        if gi < g.len() && (g[gi] == one || g[gi] == t[ti]) {
            gi += 1;
            ti += 1;
        } else if gi < g.len() && g[gi] == star {
            backtrack = Some((gi, ti));
            gi += 1;
        } else if let Some((at, matched)) = backtrack {
            gi = at + 1;
            ti = matched + 1;
            backtrack = Some((at, matched + 1));
        } else {
            return false;
        }
    }
    g[gi..].iter().all(|&c| c == star)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_shell_globs() {
        assert!(glob_match("*", "light.kitchen"));
        assert!(glob_match("light.*", "light.kitchen"));
        assert!(!glob_match("light.*", "switch.light"));
        assert!(glob_match("*.kitchen_*", "cover.kitchen_window"));
        assert!(glob_match("lock.?ront_door", "lock.front_door"));
        assert!(!glob_match("lock.front", "lock.front_door"));
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("a*b*c", "axxbyy"));
        // `?` is one character, not one byte, in text that is not ASCII.
        assert!(glob_match("sensor.?_temp", "sensor.é_temp"));
        assert!(!glob_match("sensor.??_temp", "sensor.é_temp"));
    }

    #[test]
    fn glob_validation_rejects_what_the_matcher_cannot_mean() {
        assert!(validate_glob("light.*").is_ok());
        assert!(validate_glob("Light.*").is_err());
        assert!(validate_glob("").is_err());
        assert!(validate_glob("light.[ab]").is_err());
    }
}
