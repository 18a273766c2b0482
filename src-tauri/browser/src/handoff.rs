//! Handing a page to the person (beyond the contract; every peer's users ask for it): when a
//! page needs something only they may do (a password, a one-time code, a CAPTCHA), the
//! moment is the status's `needs_you`, which the window and paired phones show. They see the
//! page live and tap and type into it ([`PersonInput`], sent as CDP input events, never
//! written to a transcript, a log or the model's context). When the page moves on (the field
//! filled, the CAPTCHA gone, the address changed), a task run that paused for it carries on by
//! itself.

use serde::Deserialize;

use sentient_core::domain::browser::NeedsYou;

/// How long a hand-off waits for the person before it is dropped (the run stays paused).
pub const HANDOFF_LIMIT: std::time::Duration = std::time::Duration::from_secs(30 * 60);
/// The most text one input may carry.
const MAX_TEXT: usize = 1000;

/// One thing the person did in the live view.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, specta::Type)]
#[serde(default, deny_unknown_fields)]
pub struct PersonInput {
    /// `tap`, `text` or `key`.
    pub kind: String,
    /// For a tap: where, as a share of the picture's width and height (0 to 1).
    pub x: Option<f64>,
    pub y: Option<f64>,
    /// For `text`: typed into the focused field as it is.
    pub text: Option<String>,
    /// For `key`: a key such as enter, backspace or tab.
    pub key: Option<String>,
}

/// A checked [`PersonInput`].
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Tap { x: f64, y: f64 },
    Text(String),
    Key(String),
}

impl PersonInput {
    /// The input, or a sentence saying what is wrong with it.
    pub fn check(self) -> Result<Input, String> {
        match self.kind.as_str() {
            "tap" => {
                let share = |v: Option<f64>| v.filter(|v| v.is_finite() && (0.0..=1.0).contains(v));
                match (share(self.x), share(self.y)) {
                    (Some(x), Some(y)) => Ok(Input::Tap { x, y }),
                    _ => Err("A tap needs x and y between 0 and 1 (a share of the picture's width and height).".to_owned()),
                }
            }
            "text" => match self.text {
                Some(text) if !text.is_empty() && text.chars().count() <= MAX_TEXT => {
                    Ok(Input::Text(text))
                }
                Some(text) if !text.is_empty() => {
                    Err(format!("Type at most {MAX_TEXT} characters at a time."))
                }
                _ => Err("Say what to type in text.".to_owned()),
            },
            "key" => match self.key.as_deref().map(str::trim) {
                Some(key) if !key.is_empty() => {
                    crate::keys::parse(key)?;
                    Ok(Input::Key(key.to_owned()))
                }
                _ => Err("Say which key to press, such as enter.".to_owned()),
            },
            _ => Err("kind must be tap, text or key.".to_owned()),
        }
    }
}

/// An open hand-off: what the status shows, and what tells that the page moved on.
#[derive(Debug, Clone)]
pub(crate) struct Handoff {
    pub needs_you: NeedsYou,
    /// The ref of the field the assistant was refused, if it was a field.
    pub field: Option<String>,
}

/// What the page looks like now, for telling whether it moved on.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub(crate) struct PageNow {
    pub url: String,
    /// How many characters the refused field holds; `None` when it is gone.
    pub field_length: Option<usize>,
    pub captcha: bool,
}

/// The script that reads [`PageNow`]; the field's length only, never its text.
pub(crate) fn page_now_script(field: Option<&str>) -> String {
    let selector = field
        .map(|r| serde_json::to_string(&format!("[data-sentient-ref=\"{r}\"]")).unwrap_or_default())
        .unwrap_or_else(|| "null".to_owned());
    format!(
        "(() => {{ const sel = {selector}; const f = sel ? document.querySelector(sel) : null; \
         const text = document.body ? document.body.innerText.slice(0, 5000) : ''; \
         const marked = !!document.querySelector('iframe[src*=\"recaptcha\"], iframe[src*=\"hcaptcha\"], iframe[src*=\"challenges.cloudflare.com\"], .g-recaptcha, .h-captcha, .cf-turnstile'); \
         return JSON.stringify({{ url: location.href, field_length: sel ? (f ? String(f.value || f.textContent || '').length : null) : 0, captcha_marked: marked, text }}); }})()"
    )
}

/// Reads the script's answer.
pub(crate) fn read_page_now(value: &serde_json::Value) -> PageNow {
    PageNow {
        url: value["url"].as_str().unwrap_or_default().to_owned(),
        field_length: value["field_length"]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok()),
        captcha: value["captcha_marked"].as_bool().unwrap_or(false)
            || crate::safety::looks_like_captcha(value["text"].as_str().unwrap_or_default()),
    }
}

/// Whether the page moved on from `handoff`: another address, the refused field gone or
/// filled and left alone for a moment (`steady` checks in a row), or the CAPTCHA gone.
pub(crate) fn moved_on(handoff: &Handoff, now: &PageNow, steady: u32) -> bool {
    if now.url != handoff.needs_you.url {
        return true;
    }
    match &handoff.field {
        Some(_) => match now.field_length {
            None => true,
            Some(length) => length > 0 && steady >= 3,
        },
        None => !now.captcha,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handoff(field: Option<&str>) -> Handoff {
        Handoff {
            needs_you: NeedsYou {
                id: "h".into(),
                reason: "the page asks for a one-time code".into(),
                url: "http://127.0.0.1:1/login".into(),
                title: "Log in".into(),
                task_id: None,
                run_id: None,
                since: chrono::Utc::now(),
            },
            field: field.map(str::to_owned),
        }
    }

    #[test]
    fn inputs_are_checked() {
        let tap = PersonInput {
            kind: "tap".into(),
            x: Some(0.5),
            y: Some(1.0),
            ..Default::default()
        };
        assert_eq!(tap.check(), Ok(Input::Tap { x: 0.5, y: 1.0 }));
        let outside = PersonInput {
            kind: "tap".into(),
            x: Some(1.5),
            y: Some(0.1),
            ..Default::default()
        };
        assert!(outside.check().is_err());
        let empty = PersonInput {
            kind: "text".into(),
            text: Some(String::new()),
            ..Default::default()
        };
        assert_eq!(empty.check(), Err("Say what to type in text.".to_owned()));
        let key = PersonInput {
            kind: "key".into(),
            key: Some("enter".into()),
            ..Default::default()
        };
        assert_eq!(key.check(), Ok(Input::Key("enter".into())));
        let strange = PersonInput {
            kind: "swipe".into(),
            ..Default::default()
        };
        assert!(strange.check().is_err());
    }

    #[test]
    fn the_page_moves_on_when_the_field_is_filled_and_left() {
        let waiting = handoff(Some("e3"));
        let mut now = PageNow {
            url: waiting.needs_you.url.clone(),
            field_length: Some(0),
            captcha: false,
        };
        assert!(!moved_on(&waiting, &now, 5));
        now.field_length = Some(6);
        assert!(!moved_on(&waiting, &now, 1), "still typing");
        assert!(moved_on(&waiting, &now, 3));
        now.field_length = None;
        assert!(moved_on(&waiting, &now, 0), "the field went away");
        let mut elsewhere = PageNow {
            url: "http://127.0.0.1:1/welcome".into(),
            ..Default::default()
        };
        assert!(moved_on(&waiting, &elsewhere, 0));
        // A CAPTCHA: moved on once it is gone.
        let captcha = handoff(None);
        elsewhere.url = captcha.needs_you.url.clone();
        elsewhere.captcha = true;
        assert!(!moved_on(&captcha, &elsewhere, 9));
        elsewhere.captcha = false;
        assert!(moved_on(&captcha, &elsewhere, 0));
    }

    #[test]
    fn the_page_is_read_without_the_fields_text() {
        let script = page_now_script(Some("e3"));
        assert!(
            script.contains("[data-sentient-ref=\\\"e3\\\"]"),
            "{script}"
        );
        assert!(script.contains(".length"));
        let read = read_page_now(&serde_json::json!({
            "url": "http://x/", "field_length": 4, "captcha_marked": false,
            "text": "Please verify you are human"
        }));
        assert_eq!(read.field_length, Some(4));
        assert!(read.captcha);
    }
}

#[cfg(feature = "browser")]
mod live {
    use std::time::Duration;

    use sentient_agent::tools::ToolCtx;
    use sentient_core::domain::browser::NeedsYou;

    use super::{HANDOFF_LIMIT, Handoff, Input, moved_on, page_now_script, read_page_now};
    use crate::service::BrowserService;
    use crate::session::Session;

    /// How often an open hand-off looks at the page.
    const LOOK_EVERY: Duration = Duration::from_millis(500);

    impl BrowserService {
        /// A tool result said only the person can go on (`needs_user`): the page is handed
        /// to them until it moves on. `field` is the ref the assistant was refused.
        pub(crate) async fn begin_handoff(
            &self,
            session: &Session,
            reason: &str,
            field: Option<String>,
            ctx: &ToolCtx,
        ) {
            let (url, title) = match session.page() {
                Ok(page) => (
                    page.url().await.ok().flatten().unwrap_or_default(),
                    crate::session::title_of(page).await,
                ),
                Err(_) => return,
            };
            let run = ctx.run.as_ref().and_then(|r| r.task_run());
            let needs_you = NeedsYou {
                id: sentient_core::store::new_id(),
                reason: reason.to_owned(),
                url,
                title,
                task_id: run.as_ref().map(|(t, _)| t.clone()),
                run_id: run.map(|(_, r)| r),
                since: chrono::Utc::now(),
            };
            let id = needs_you.id.clone();
            if let Ok(mut cell) = self.handoff_cell().lock() {
                *cell = Some(Handoff { needs_you, field });
            }
            let status = self.status_with(Some(session)).await;
            self.publish_status(status);
            self.send_frame(session, None).await;
            let service = self.clone();
            tokio::spawn(async move { service.watch_handoff(&id).await });
        }

        /// Looks at the page twice a second until it moved on (then a paused task run carries
        /// on), the hand-off ended otherwise, or the person took too long.
        async fn watch_handoff(&self, id: &str) {
            let started = std::time::Instant::now();
            let (mut steady, mut last_length) = (0u32, None);
            loop {
                tokio::time::sleep(LOOK_EVERY).await;
                let Some(handoff) = self.current_handoff(id) else {
                    return;
                };
                if started.elapsed() > HANDOFF_LIMIT {
                    self.drop_handoff();
                    self.publish_status(self.status().await);
                    return;
                }
                // A call holding the browser (the live view's input) is waited for next time.
                let Ok(session) =
                    tokio::time::timeout(Duration::from_secs(2), self.session_cell().lock()).await
                else {
                    continue;
                };
                let Some(open) = session.as_ref().filter(|s| s.alive()) else {
                    drop(session);
                    self.drop_handoff();
                    return;
                };
                let Ok(value) = open
                    .evaluate(&page_now_script(handoff.field.as_deref()))
                    .await
                else {
                    continue;
                };
                let now = read_page_now(&value);
                steady = if now.field_length.is_some() && now.field_length == last_length {
                    steady + 1
                } else {
                    0
                };
                last_length = now.field_length;
                if !moved_on(&handoff, &now, steady) {
                    continue;
                }
                if self.current_handoff(id).is_none() {
                    return;
                }
                self.drop_handoff();
                let status = self.status_with(Some(open)).await;
                drop(session);
                self.publish_status(status);
                tracing::info!("the page moved on after the person's step");
                if let (Some(task_id), Some(run_id)) =
                    (&handoff.needs_you.task_id, &handoff.needs_you.run_id)
                {
                    self.resume_when_paused(task_id, run_id).await;
                }
                return;
            }
        }

        /// The run pauses just after the call that asked; a person quicker than that waits
        /// for the pause (up to 30 s).
        async fn resume_when_paused(&self, task_id: &str, run_id: &str) {
            for _ in 0..60 {
                if self.tasks().resume_run(task_id, run_id).await {
                    return;
                }
                tokio::time::sleep(LOOK_EVERY).await;
            }
            tracing::warn!(
                task_id,
                run_id,
                "the paused run could not be resumed after the person's step"
            );
        }

        fn current_handoff(&self, id: &str) -> Option<Handoff> {
            self.handoff_cell()
                .lock()
                .ok()
                .and_then(|h| h.clone())
                .filter(|h| h.needs_you.id == id)
        }

        /// What the person did in the live view, sent to the page as input events. Only while
        /// a page waits for them; the text is never logged.
        pub async fn person_input(&self, input: Input) -> Result<(), String> {
            if self.needs_you().is_none() {
                return Err("Nothing in the browser is waiting for you now.".to_owned());
            }
            let session = self.session_cell().lock().await;
            let open = session
                .as_ref()
                .filter(|s| s.alive())
                .ok_or_else(|| "The browser isn't running.".to_owned())?;
            match input {
                Input::Tap { x, y } => open.tap(x, y).await?,
                Input::Text(text) => open.insert_text(&text).await?,
                Input::Key(key) => open.press(&key).await?,
            }
            // The window's live view follows `browser.frame`.
            self.send_frame(open, None).await;
            Ok(())
        }

        /// A picture of the page waiting for the person (JPEG, quality 55), for a paired
        /// phone's live view; `Err` when nothing waits.
        pub async fn live_frame(&self) -> Result<Vec<u8>, String> {
            if self.needs_you().is_none() {
                return Err("Nothing in the browser is waiting for you now.".to_owned());
            }
            self.screenshot_jpeg().await
        }
    }
}

#[cfg(not(feature = "browser"))]
impl crate::service::BrowserService {
    /// This build has no browser, so nothing waits for the person.
    pub async fn person_input(&self, _input: Input) -> Result<(), String> {
        Err("Nothing in the browser is waiting for you now.".to_owned())
    }

    pub async fn live_frame(&self) -> Result<Vec<u8>, String> {
        Err("Nothing in the browser is waiting for you now.".to_owned())
    }
}
