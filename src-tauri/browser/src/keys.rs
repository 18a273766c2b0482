//! Key names as the model writes them (`enter`, `esc`, `page down`, `ctrl+a`) turned into the
//! browser's key names and CDP modifier bits.

/// CDP's modifier bits.
const ALT: i64 = 1;
const CTRL: i64 = 2;
const META: i64 = 4;
const SHIFT: i64 = 8;

/// The modifier bits and the key's name (as chromiumoxide's key table spells it).
pub fn parse(typed: &str) -> Result<(i64, String), String> {
    let parts: Vec<String> = typed
        .split('+')
        .map(|p| p.trim().to_lowercase())
        .filter(|p| !p.is_empty())
        .collect();
    let Some((key, modifier_names)) = parts.split_last() else {
        return Err("Say which key to press, such as Enter, Escape or ctrl+a.".to_owned());
    };
    let mut modifiers = 0;
    for name in modifier_names {
        modifiers |= match name.as_str() {
            "ctrl" | "control" => CTRL,
            "alt" | "option" => ALT,
            "shift" => SHIFT,
            "meta" | "cmd" | "command" | "win" | "super" => META,
            other => {
                return Err(format!(
                    "{other} isn't a modifier key. Use ctrl, alt, shift or meta before the key, such as ctrl+a."
                ));
            }
        };
    }
    Ok((modifiers, key_name(key)))
}

fn key_name(key: &str) -> String {
    let squashed: String = key
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '_')
        .collect();
    let named = match squashed.as_str() {
        "enter" | "return" => "Enter",
        "esc" | "escape" => "Escape",
        "tab" => "Tab",
        "space" | "spacebar" => " ",
        "backspace" => "Backspace",
        "delete" | "del" => "Delete",
        "pagedown" | "pgdn" => "PageDown",
        "pageup" | "pgup" => "PageUp",
        "home" => "Home",
        "end" => "End",
        "up" | "arrowup" => "ArrowUp",
        "down" | "arrowdown" => "ArrowDown",
        "left" | "arrowleft" => "ArrowLeft",
        "right" | "arrowright" => "ArrowRight",
        _ => "",
    };
    if !named.is_empty() {
        return named.to_owned();
    }
    if let Some(number) = squashed
        .strip_prefix('f')
        .filter(|n| n.parse::<u8>().is_ok())
    {
        return format!("F{number}");
    }
    // A single character keeps its case only for letters typed as capitals by shift.
    squashed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn friendly_names_become_key_names() {
        assert_eq!(parse("enter"), Ok((0, "Enter".to_owned())));
        assert_eq!(parse("Esc"), Ok((0, "Escape".to_owned())));
        assert_eq!(parse("page down"), Ok((0, "PageDown".to_owned())));
        assert_eq!(parse("ctrl+a"), Ok((CTRL, "a".to_owned())));
        assert_eq!(
            parse("ctrl+shift+Tab"),
            Ok((CTRL | SHIFT, "Tab".to_owned()))
        );
        assert_eq!(parse("f5"), Ok((0, "F5".to_owned())));
        assert!(parse("hyper+a").is_err());
        assert!(parse("").is_err());
    }
}
