//! What the assistant may not do in a page on its own: type into secret fields (passwords,
//! cards, one-time codes, ...), type a card number anywhere, get past a CAPTCHA, or click
//! something that buys, sends or deletes without the approval that kind of click needs.

use sentient_agent::tools::Risk;

use crate::snapshot::Element;

/// What a click or a submit would do, as approvals word it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consequence {
    /// Buys or pays: asks in every approval mode (`browser.confirm_purchases`).
    Purchase,
    Sends,
    Deletes,
}

impl Consequence {
    /// The approval card's wording (`risk_label`).
    pub fn label(self) -> &'static str {
        match self {
            Self::Purchase => sentient_agent::approvals::PURCHASE_LABEL,
            Self::Sends => "Sends",
            Self::Deletes => "Deletes",
        }
    }

    pub fn risk(self) -> Risk {
        Risk::Send
    }
}

const PURCHASE_WORDS: [&str; 10] = [
    "buy",
    "pay",
    "place order",
    "checkout",
    "check out",
    "subscribe",
    "transfer",
    "purchase",
    "complete order",
    "confirm purchase",
];
const SEND_WORDS: [&str; 5] = ["send", "post", "publish", "confirm", "submit order"];
const DELETE_WORDS: [&str; 2] = ["delete", "remove"];

/// Whether `text` holds `phrase` as whole words (case ignored): "Pay now" holds "pay",
/// "Paypal" and "repay" don't.
fn has_phrase(text: &str, phrase: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let wanted: Vec<&str> = phrase.split(' ').collect();
    words
        .windows(wanted.len())
        .any(|window| window.iter().zip(&wanted).all(|(w, p)| w == p))
}

/// What the words of an element say it does.
pub fn consequence_of_words(text: &str) -> Option<Consequence> {
    if PURCHASE_WORDS.iter().any(|p| has_phrase(text, p)) {
        Some(Consequence::Purchase)
    } else if SEND_WORDS.iter().any(|p| has_phrase(text, p)) {
        Some(Consequence::Sends)
    } else if DELETE_WORDS.iter().any(|p| has_phrase(text, p)) {
        Some(Consequence::Deletes)
    } else {
        None
    }
}

/// What clicking `element` would do: its words (text, aria label, value), or submitting a
/// form with payment fields.
pub fn click_consequence(element: &Element) -> Option<Consequence> {
    let words = format!(
        "{} {}",
        element.name,
        element.value.as_deref().unwrap_or("")
    );
    consequence_of_words(&words)
        .or_else(|| (element.submits && element.form.payment).then_some(Consequence::Purchase))
}

/// What pressing Enter in (or submitting from) `element` would do: in a payment form, a form
/// whose button sends, posts or buys, or a message box.
pub fn submit_consequence(element: &Element) -> Option<Consequence> {
    if element.form.payment {
        return Some(Consequence::Purchase);
    }
    if let Some(found) = consequence_of_words(&element.form.buttons) {
        return Some(found);
    }
    element.message_box.then_some(Consequence::Sends)
}

/// Which kind of secret a field holds, from its type, autocomplete, name, id and label; `None`
/// for an ordinary field.
pub fn secret_kind(element: &Element) -> Option<&'static str> {
    let kind = element.input_type.to_lowercase();
    if kind == "password" {
        return Some("password");
    }
    let autocomplete = element.autocomplete.to_lowercase();
    if autocomplete.contains("password") {
        return Some("password");
    }
    if autocomplete.starts_with("cc-") || autocomplete.contains(" cc-") {
        return Some("card");
    }
    if autocomplete.contains("one-time-code") {
        return Some("one-time code");
    }
    let hints = format!("{} {}", element.hints, element.name).to_lowercase();
    let squashed: String = hints.chars().filter(|c| c.is_alphanumeric()).collect();
    const KINDS: [(&[&str], &str); 7] = [
        (&["password", "passwd", "passcode"], "password"),
        (
            &[
                "cardnumber",
                "ccnumber",
                "creditcard",
                "debitcard",
                "cardnum",
                "ccnum",
            ],
            "card",
        ),
        (&["cvv", "cvc", "securitycode", "csc"], "card security code"),
        (
            &[
                "onetimecode",
                "otp",
                "verificationcode",
                "2fa",
                "totp",
                "authcode",
                "smscode",
            ],
            "one-time code",
        ),
        (&["pin"], "PIN"),
        (
            &[
                "iban",
                "accountnumber",
                "routingnumber",
                "sortcode",
                "ssn",
                "socialsecurity",
                "aadhaar",
                "passportnumber",
                "nationalid",
                "taxid",
            ],
            "bank or ID number",
        ),
        (
            &[
                "apikey",
                "secretkey",
                "privatekey",
                "accesstoken",
                "seedphrase",
                "recoveryphrase",
            ],
            "secret key",
        ),
    ];
    KINDS.iter().find_map(|(words, name)| {
        words
            .iter()
            .any(|w| {
                if *w == "pin" || *w == "otp" || *w == "csc" || *w == "ssn" {
                    // Short words only as words, so "spinner" or "shipping" are no PIN.
                    has_phrase(&hints, w)
                } else {
                    squashed.contains(w)
                }
            })
            .then_some(*name)
    })
}

/// Whether `text` holds a card number: 13 to 19 digits (spaces or dashes between them) that
/// pass the Luhn check.
pub fn has_card_number(text: &str) -> bool {
    let mut digits: Vec<u32> = Vec::new();
    let check = |digits: &mut Vec<u32>| {
        let found = (13..=19).contains(&digits.len()) && luhn(digits);
        digits.clear();
        found
    };
    for c in text.chars() {
        if let Some(d) = c.to_digit(10) {
            digits.push(d);
        } else if c == ' ' || c == '-' {
            continue;
        } else if check(&mut digits) {
            return true;
        }
    }
    check(&mut digits)
}

fn luhn(digits: &[u32]) -> bool {
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10) && digits.iter().any(|&d| d != 0)
}

/// The sentence a secret field gives the model (`needs_user`).
pub fn secret_field_message(kind: &str) -> String {
    format!(
        "This is a {kind} field. Sentient never types passwords, card details, one-time codes or other secrets. Ask the person to fill it in themselves: they can use Open browser in Sentient, then tell you when it's done."
    )
}

/// Why a run must wait for the person at a secret field (`needs_user`, the reason a paused task
/// run's question gives).
pub fn secret_field_reason(kind: &str) -> String {
    match kind {
        "password" => "the page asks for your password".to_owned(),
        "card" => "the page asks for your card details".to_owned(),
        "card security code" => "the page asks for your card's security code".to_owned(),
        "one-time code" => "the page asks for a one-time code".to_owned(),
        "PIN" => "the page asks for your PIN".to_owned(),
        other => format!("the page asks for a {other}"),
    }
}

/// Why a run waits when the text itself holds a card number.
pub const CARD_TEXT_REASON: &str = "the page needs your card number";

/// Why a run waits on a page that checks for a person.
pub const CAPTCHA_REASON: &str = "the site wants proof that you're a person (a CAPTCHA)";

/// The sentence text with a card number gives the model (`needs_user`).
pub const CARD_TEXT_MESSAGE: &str = "That text holds a card number. Sentient never types card details. Ask the person to enter it themselves: they can use Open browser in Sentient, then tell you when it's done.";

/// The sentence a CAPTCHA page gives the model (`needs_user`).
pub const CAPTCHA_MESSAGE: &str = "This page wants to check that a person is there (a CAPTCHA). Ask the person to solve it: they can use Open browser in Sentient, then tell you when it's done.";

/// Words a page shows when it checks for a person.
pub fn looks_like_captcha(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "verify you are human",
        "verify that you are human",
        "i'm not a robot",
        "i am not a robot",
        "are you a robot",
        "complete the captcha",
        "security check to continue",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::FormFacts;

    fn field(input_type: &str, autocomplete: &str, hints: &str) -> Element {
        Element {
            input_type: input_type.to_owned(),
            autocomplete: autocomplete.to_owned(),
            hints: hints.to_owned(),
            ..Element::default()
        }
    }

    #[test]
    fn secret_fields_are_found_by_type_autocomplete_and_hints() {
        assert_eq!(secret_kind(&field("password", "", "")), Some("password"));
        assert_eq!(secret_kind(&field("text", "cc-number", "")), Some("card"));
        assert_eq!(
            secret_kind(&field("text", "one-time-code", "")),
            Some("one-time code")
        );
        assert_eq!(
            secret_kind(&field("text", "", "card_number Card number")),
            Some("card")
        );
        assert_eq!(
            secret_kind(&field("tel", "", "cvv")),
            Some("card security code")
        );
        assert_eq!(
            secret_kind(&field("text", "", "otp Enter the code")),
            Some("one-time code")
        );
        assert_eq!(secret_kind(&field("text", "", "pin Your PIN")), Some("PIN"));
        assert_eq!(
            secret_kind(&field("text", "", "iban")),
            Some("bank or ID number")
        );
        assert_eq!(
            secret_kind(&field("text", "", "api_key")),
            Some("secret key")
        );
        assert_eq!(
            secret_kind(&field("text", "name", "full_name Your name")),
            None
        );
        assert_eq!(secret_kind(&field("text", "", "shipping spinner")), None);
        assert_eq!(secret_kind(&field("search", "", "q Search")), None);
    }

    #[test]
    fn card_numbers_pass_luhn() {
        assert!(has_card_number("my card is 4111 1111 1111 1111 thanks"));
        assert!(has_card_number("5500-0000-0000-0004"));
        assert!(!has_card_number("4111 1111 1111 1112"));
        assert!(!has_card_number("call 555 0100 please"));
        assert!(!has_card_number("order 0000000000000000"));
    }

    #[test]
    fn words_say_what_a_click_does() {
        assert_eq!(
            consequence_of_words("Place order"),
            Some(Consequence::Purchase)
        );
        assert_eq!(consequence_of_words("Buy now"), Some(Consequence::Purchase));
        assert_eq!(
            consequence_of_words("Pay ₹499"),
            Some(Consequence::Purchase)
        );
        assert_eq!(
            consequence_of_words("Proceed to checkout"),
            Some(Consequence::Purchase)
        );
        assert_eq!(
            consequence_of_words("Send message"),
            Some(Consequence::Sends)
        );
        assert_eq!(consequence_of_words("Post"), Some(Consequence::Sends));
        assert_eq!(
            consequence_of_words("Delete account"),
            Some(Consequence::Deletes)
        );
        assert_eq!(consequence_of_words("PayPal help"), None);
        assert_eq!(consequence_of_words("Sign in"), None);
        assert_eq!(consequence_of_words("Postcode lookup"), None);
    }

    #[test]
    fn a_submit_in_a_payment_form_is_a_purchase() {
        let mut button = Element {
            name: "Continue".to_owned(),
            submits: true,
            ..Element::default()
        };
        assert_eq!(click_consequence(&button), None);
        button.form = FormFacts {
            payment: true,
            buttons: "Continue".to_owned(),
        };
        assert_eq!(click_consequence(&button), Some(Consequence::Purchase));
        let message = Element {
            message_box: true,
            ..Element::default()
        };
        assert_eq!(submit_consequence(&message), Some(Consequence::Sends));
        let search = Element {
            form: FormFacts {
                payment: false,
                buttons: "Search".to_owned(),
            },
            ..Element::default()
        };
        assert_eq!(submit_consequence(&search), None);
    }

    #[test]
    fn captcha_words() {
        assert!(looks_like_captcha(
            "Please verify you are human to continue"
        ));
        assert!(!looks_like_captcha("Welcome to the shop"));
    }
}
