//! A page as the model reads it: a `Page:`/`URL:`/`Scroll:` header, one line per element it
//! can act on (`[e12] button "Sign in"`), then the page's readable text, capped. The refs come
//! from `collector.js`, which marks each element in the page (measured against the CDP
//! accessibility tree, it is one round trip where that is one per node).

use std::collections::HashMap;

use serde::Deserialize;

/// The script that marks the elements and returns [`PageFacts`] as JSON text.
pub const COLLECTOR: &str = include_str!("collector.js");

/// The form an element belongs to, as far as safety needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct FormFacts {
    /// The form has card fields.
    pub payment: bool,
    /// The words of its buttons, `|` between them.
    pub buttons: String,
}

/// One element the model can act on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Element {
    #[serde(rename = "ref")]
    pub reference: String,
    pub role: String,
    /// What a person reads on or beside it (aria label, label, text, placeholder).
    pub name: String,
    pub value: Option<String>,
    pub options: Vec<String>,
    pub href: Option<String>,
    pub checked: bool,
    pub disabled: bool,
    pub focused: bool,
    /// An input's `type` (`textarea` for a text area), empty for other elements.
    pub input_type: String,
    pub autocomplete: String,
    /// Its name, id, placeholder and label, for recognising secret fields.
    pub hints: String,
    /// A button that submits its form.
    pub submits: bool,
    pub form: FormFacts,
    /// A text area for a message, reply or post.
    pub message_box: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Scroll {
    pub y: i64,
    pub height: i64,
    pub view: i64,
}

impl Scroll {
    pub fn more_below(&self) -> bool {
        self.y + self.view < self.height - 2
    }

    fn describe(&self) -> String {
        if self.height <= self.view {
            return "the whole page is in view".to_owned();
        }
        let reach = self.height - self.view;
        let percent = (self.y.clamp(0, reach) * 100) / reach.max(1);
        match (self.y <= 0, self.more_below()) {
            (true, _) => "top of the page, more below".to_owned(),
            (false, true) => format!("{percent}% down, more below"),
            (false, false) => "bottom of the page".to_owned(),
        }
    }
}

/// What the collector reports about a page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct PageFacts {
    pub title: String,
    pub url: String,
    pub scroll: Scroll,
    pub elements: Vec<Element>,
    pub text: String,
    /// A CAPTCHA widget is on the page.
    pub captcha: bool,
}

/// A snapshot as the tool returns it, and the elements its refs name.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub url: String,
    pub title: String,
    pub text: String,
    pub truncated: bool,
    pub elements: HashMap<String, Element>,
    pub captcha: bool,
}

/// One element's line: `[e4] textbox "Search" value=""`.
pub fn element_line(e: &Element) -> String {
    let mut line = format!("[{}] {} {}", e.reference, e.role, quoted(&e.name));
    if let Some(value) = &e.value {
        line.push_str(&format!(" value={}", quoted(value)));
    }
    if !e.options.is_empty() {
        line.push_str(" options: ");
        line.push_str(&e.options.join(" | "));
    }
    if let Some(href) = e.href.as_deref().filter(|h| !h.is_empty()) {
        line.push_str(" -> ");
        line.push_str(href);
    }
    for (on, flag) in [
        (e.checked, "checked"),
        (e.disabled, "disabled"),
        (e.focused, "focused"),
    ] {
        if on {
            line.push(' ');
            line.push_str(flag);
        }
    }
    line
}

fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "'"))
}

/// Blank lines collapsed and each line's spaces tidied.
pub fn tidy_text(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut blank = false;
    for line in text.lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push(String::new());
            blank = false;
        }
        out.push(line);
    }
    out.join("\n")
}

/// The model's text for `facts`, capped at `max_chars` characters.
pub fn build(mut facts: PageFacts, max_chars: usize) -> Snapshot {
    // What the person typed into a secret field (a code, a card number) never reaches the model.
    for element in &mut facts.elements {
        if crate::safety::secret_kind(element).is_some()
            && let Some(value) = element.value.as_mut()
            && !value.is_empty()
        {
            *value = "••••".to_owned();
        }
    }
    let mut text = format!(
        "Page: {}\nURL: {}\nScroll: {}\n",
        facts.title,
        facts.url,
        facts.scroll.describe()
    );
    for element in &facts.elements {
        text.push_str(&element_line(element));
        text.push('\n');
    }
    let readable = tidy_text(&facts.text);
    if !readable.is_empty() {
        text.push('\n');
        text.push_str(&readable);
    }
    let truncated = text.chars().count() > max_chars;
    if truncated {
        text = text.chars().take(max_chars).collect();
    }
    let captcha = facts.captcha || crate::safety::looks_like_captcha(&facts.text);
    Snapshot {
        url: facts.url,
        title: facts.title,
        text,
        truncated,
        elements: facts
            .elements
            .into_iter()
            .map(|e| (e.reference.clone(), e))
            .collect(),
        captcha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(reference: &str, role: &str, name: &str) -> Element {
        Element {
            reference: reference.to_owned(),
            role: role.to_owned(),
            name: name.to_owned(),
            ..Element::default()
        }
    }

    #[test]
    fn element_lines_read_as_the_contract_shows() {
        assert_eq!(
            element_line(&element("e12", "button", "Sign in")),
            "[e12] button \"Sign in\""
        );
        let mut search = element("e4", "textbox", "Search");
        search.value = Some(String::new());
        assert_eq!(element_line(&search), "[e4] textbox \"Search\" value=\"\"");
        let mut country = element("e7", "combobox", "Country");
        country.value = Some("India".to_owned());
        country.options = vec!["India".to_owned(), "Japan".to_owned()];
        assert_eq!(
            element_line(&country),
            "[e7] combobox \"Country\" value=\"India\" options: India | Japan"
        );
        let mut docs = element("e3", "link", "Docs");
        docs.href = Some("/docs".to_owned());
        assert_eq!(element_line(&docs), "[e3] link \"Docs\" -> /docs");
        let mut flags = element("e9", "checkbox", "Remember me");
        flags.checked = true;
        flags.disabled = true;
        flags.focused = true;
        assert_eq!(
            element_line(&flags),
            "[e9] checkbox \"Remember me\" checked disabled focused"
        );
    }

    #[test]
    fn the_text_has_the_header_the_elements_then_the_page_text_and_is_capped() {
        let facts = PageFacts {
            title: "Shop".to_owned(),
            url: "http://127.0.0.1/shop".to_owned(),
            scroll: Scroll {
                y: 0,
                height: 3000,
                view: 800,
            },
            elements: vec![element("e1", "button", "Buy")],
            text: "Welcome\n\n\n  to   the shop \n".to_owned(),
            captcha: false,
        };
        let snapshot = build(facts.clone(), 10_000);
        assert_eq!(
            snapshot.text,
            "Page: Shop\nURL: http://127.0.0.1/shop\nScroll: top of the page, more below\n[e1] button \"Buy\"\n\nWelcome\n\nto the shop"
        );
        assert!(!snapshot.truncated);
        assert!(snapshot.elements.contains_key("e1"));
        let capped = build(facts, 20);
        assert!(capped.truncated);
        assert_eq!(capped.text.chars().count(), 20);
    }

    #[test]
    fn scroll_says_where_the_view_is() {
        assert_eq!(
            Scroll {
                y: 0,
                height: 500,
                view: 800
            }
            .describe(),
            "the whole page is in view"
        );
        assert_eq!(
            Scroll {
                y: 1100,
                height: 3000,
                view: 800
            }
            .describe(),
            "50% down, more below"
        );
        assert_eq!(
            Scroll {
                y: 2200,
                height: 3000,
                view: 800
            }
            .describe(),
            "bottom of the page"
        );
    }
}
