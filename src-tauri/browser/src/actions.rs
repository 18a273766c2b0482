//! What each browser tool does in the page, with the checks that run at call time: addresses
//! against the site lists (also after redirects), secret fields and card numbers refused, a
//! click that now buys or sends refused unless approvals rated it so, CAPTCHAs handed to the
//! person.

use serde_json::Value;

use sentient_agent::tools::ToolCtx;

use crate::service::BrowserService;
use crate::tools::{Op, read_args};

/// Runs one browser tool call: `Ok` is the tool's result (which may be `{error, needs_user}`),
/// `Err` a sentence for the model.
pub(crate) async fn run(
    service: &BrowserService,
    op: Op,
    args: Value,
    ctx: &ToolCtx,
) -> Result<Value, String> {
    let args = read_args(op, args)?;
    #[cfg(feature = "browser")]
    {
        in_page::run(service, op, args, ctx).await
    }
    #[cfg(not(feature = "browser"))]
    {
        let _ = (op, args, ctx);
        Err(service
            .unavailable_reason()
            .unwrap_or_else(|| "This build of Sentient has no browser.".to_owned()))
    }
}

/// The paragraphs of `text` most related to `question` (shared words), in page order, within
/// `max_chars`; the whole text when the question has no usable words.
pub fn related_paragraphs(text: &str, question: &str, max_chars: usize) -> String {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() > 2)
            .map(str::to_lowercase)
            .collect()
    };
    let wanted = words(question);
    if wanted.is_empty() {
        return text.to_owned();
    }
    let paragraphs: Vec<&str> = text
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .collect();
    let mut scored: Vec<(usize, usize)> = paragraphs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let own = words(p);
            (i, wanted.iter().filter(|w| own.contains(w)).count())
        })
        .filter(|(_, score)| *score > 0)
        .collect();
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut kept = Vec::new();
    let mut used = 0;
    for (i, _) in scored {
        let size = paragraphs[i].chars().count() + 2;
        if used + size > max_chars && !kept.is_empty() {
            break;
        }
        used += size;
        kept.push(i);
    }
    kept.sort_unstable();
    kept.iter()
        .map(|&i| paragraphs[i])
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(feature = "browser")]
mod in_page {
    use std::time::Duration;

    use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
    use serde_json::{Value, json};

    use sentient_agent::tools::{Risk, ToolCtx};
    use sentient_core::config::ApprovalMode;

    use crate::safety::{self, Consequence};
    use crate::service::{BrowserService, LastSnapshot, tab_list};
    use crate::session::Session;
    use crate::snapshot::{self, Element};
    use crate::tools::{Args, Op, needs_user};

    /// How long an acting tool waits for a new tab or a download to start.
    const SETTLE: Duration = Duration::from_millis(300);

    pub(super) async fn run(
        service: &BrowserService,
        op: Op,
        args: Args,
        ctx: &ToolCtx,
    ) -> Result<Value, String> {
        let _busy = service.downloads().busy();
        if op == Op::Close {
            service.close().await;
            let mut result = json!({"ok": true, "message": "The browser is closed. It opens again on the next browser call."});
            service.downloads().report().add_to(&mut result);
            return Ok(result);
        }
        let asked = match &args {
            Args::Open { profile, .. } | Args::Tabs(profile) => Some(profile.trim().to_owned()),
            _ => None,
        }
        .filter(|p| !p.is_empty());
        let run_profile = ctx.browser_profile.lock().ok().and_then(|p| p.clone());
        let profile = service.resolve_profile(asked.as_deref().or(run_profile.as_deref()))?;
        if asked.is_some()
            && let Ok(mut cell) = ctx.browser_profile.lock()
        {
            *cell = Some(profile.clone());
        }
        let settings = service.settings().browser.clone();
        let mode_off = service.settings().tools.approvals.mode == ApprovalMode::Off;
        let outputs = service.home().outputs();
        let service_for_work = service.clone();
        let open_profile = profile.clone();
        let acting = matches!(
            op,
            Op::Open | Op::Click | Op::Type | Op::Select | Op::Press | Op::Scroll | Op::Back
        );
        let field = match &args {
            Args::Type { reference, .. } => Some(reference.clone()),
            _ => None,
        };
        // The assistant acts in the page again, so whatever waited for the person is over.
        if service.drop_handoff().is_some() {
            service.publish_status(service.status().await);
        }
        service
            .with_session(&open_profile, async move |session: &mut Session| {
                let service = service_for_work;
                let pictures = if acting {
                    service.frames_during(session, ctx).await
                } else {
                    None
                };
                let mut result = act(
                    &service, session, op, args, ctx, &settings, mode_off, &outputs, &profile,
                )
                .await;
                drop(pictures);
                if acting && result.is_ok() {
                    service.send_frame(session, Some(ctx)).await;
                }
                if let Ok(value) = &mut result {
                    service.downloads().report().add_to(value);
                    if let Some(reason) = value.get("needs_user").and_then(Value::as_str) {
                        service.begin_handoff(session, reason, field, ctx).await;
                    }
                }
                result
            })
            .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn act(
        service: &BrowserService,
        session: &mut Session,
        op: Op,
        args: Args,
        ctx: &ToolCtx,
        settings: &sentient_core::config::BrowserConfig,
        mode_off: bool,
        outputs: &std::path::Path,
        profile: &str,
    ) -> Result<Value, String> {
        // Acting tools give a download 0.3 s to start.
        let since = service.downloads().begun();
        match args {
            Args::Open { url, .. } => {
                crate::urls::check(&url, settings)?;
                // An address that downloads a file never finishes loading as a page.
                let downloads = service.downloads();
                let went = tokio::select! {
                    went = session.goto(&url) => went,
                    () = downloads.wait_for_begin(since) => Ok(()),
                };
                settle(service, session, since).await;
                let downloaded = downloads.begun() > since;
                match went {
                    Err(_) if downloaded => {}
                    Err(failed) => return Err(failed),
                    Ok(()) => check_where_it_landed(session, settings).await?,
                }
                let mut result = snapshot_result(service, session, settings).await?;
                result["profile"] = json!(profile);
                Ok(result)
            }
            Args::None if op == Op::Snapshot => snapshot_result(service, session, settings).await,
            Args::Ref(reference) => {
                let cover = Cover {
                    approved: ctx.approved_risk,
                    mode_off,
                };
                click(service, session, &reference, cover, since).await
            }
            Args::Type {
                reference,
                text,
                submit,
            } => {
                type_text(
                    service,
                    session,
                    &reference,
                    &text,
                    submit,
                    Cover {
                        approved: ctx.approved_risk,
                        mode_off,
                    },
                    since,
                )
                .await
            }
            Args::Select { reference, option } => {
                select(service, session, &reference, &option, since).await
            }
            Args::Press(key) => {
                let cover = Cover {
                    approved: ctx.approved_risk,
                    mode_off,
                };
                press(service, session, &key, cover, since).await
            }
            Args::Scroll(direction) => scroll(session, &direction).await,
            Args::None if op == Op::Back => {
                if !session.back().await? {
                    return Err("There is no earlier page in this tab.".to_owned());
                }
                settle(service, session, since).await;
                check_where_it_landed(session, settings).await?;
                let (url, title) = where_now(session).await;
                Ok(json!({"ok": true, "url": url, "title": title}))
            }
            Args::Tabs(_) => {
                session.pick_up_new_tabs().await;
                let (tabs, active) = session.tabs().await;
                Ok(json!({"profile": profile, "tabs": tab_list(tabs, active)}))
            }
            Args::Switch(index) => {
                let (tabs, before) = session.tabs().await;
                let (url, title) = tabs
                            .get(index)
                            .cloned()
                            .ok_or_else(|| format!("There is no tab {index}. browser_tabs lists the open tabs, counting from 0."))?;
                if url.starts_with("http") {
                    crate::urls::check(&url, settings)?;
                }
                session.switch_to(index).inspect_err(|_e| {
                    let _ = session.switch_to(before);
                })?;
                service.set_last_snapshot(LastSnapshot::default());
                Ok(json!({"ok": true, "index": index, "url": url, "title": title}))
            }
            Args::Extract(question) => {
                let html = session.html().await?;
                let (url, page_title) = where_now(session).await;
                let (title, text) = sentient_agent::tools::web::readable_text(&html, &url);
                let max = settings.max_extract_chars as usize;
                let question = question.trim().to_owned();
                let content = if question.is_empty() {
                    text
                } else {
                    super::related_paragraphs(&text, &question, max)
                };
                let truncated = content.chars().count() > max;
                let content: String = content.chars().take(max).collect();
                let mut result = json!({
                    "url": url,
                    "title": if title.is_empty() { page_title } else { title },
                    "content": content,
                });
                if !question.is_empty() {
                    result["question"] = json!(question);
                }
                if truncated {
                    result["truncated"] = json!(true);
                }
                Ok(result)
            }
            Args::None if op == Op::Screenshot => {
                let png = session
                    .screenshot(CaptureScreenshotFormat::Png, None)
                    .await?;
                let folder = outputs.join("browser");
                std::fs::create_dir_all(&folder)
                    .map_err(|e| format!("The screenshot could not be saved: {e}"))?;
                let name = format!(
                    "screenshot-{}.png",
                    chrono::Utc::now().format("%Y%m%d-%H%M%S-%3f")
                );
                std::fs::write(folder.join(&name), png)
                    .map_err(|e| format!("The screenshot could not be saved: {e}"))?;
                let (url, title) = where_now(session).await;
                Ok(json!({"file": format!("outputs/browser/{name}"), "url": url, "title": title}))
            }
            Args::None => Err("That browser tool takes no arguments here.".to_owned()),
        }
    }

    async fn where_now(session: &Session) -> (String, String) {
        let Ok(page) = session.page() else {
            return (String::new(), String::new());
        };
        (
            page.url().await.ok().flatten().unwrap_or_default(),
            crate::session::title_of(page).await,
        )
    }

    /// The site lists apply to where a page ended up (after redirects) too: a page that
    /// landed on a refused site is left at once.
    async fn check_where_it_landed(
        session: &Session,
        settings: &sentient_core::config::BrowserConfig,
    ) -> Result<(), String> {
        let (url, _) = where_now(session).await;
        if url.starts_with("http")
            && let Err(refused) = crate::urls::check(&url, settings)
        {
            let _ = session.goto("about:blank").await;
            return Err(format!("The page went on to another site. {refused}"));
        }
        Ok(())
    }

    async fn snapshot_result(
        service: &BrowserService,
        session: &mut Session,
        settings: &sentient_core::config::BrowserConfig,
    ) -> Result<Value, String> {
        let facts = session.facts().await?;
        let snapshot = snapshot::build(facts, settings.max_snapshot_chars as usize);
        service.set_last_snapshot(LastSnapshot {
            url: snapshot.url.clone(),
            elements: snapshot.elements.clone(),
        });
        let mut result =
            json!({"url": snapshot.url, "title": snapshot.title, "text": snapshot.text});
        if snapshot.truncated {
            result["truncated"] = json!(true);
        }
        if snapshot.captcha {
            result["needs_user"] = json!(safety::CAPTCHA_REASON);
            result["message"] = json!(safety::CAPTCHA_MESSAGE);
        }
        Ok(result)
    }

    /// The element `reference` named in the last snapshot, if the page is still that page.
    async fn known_element(
        service: &BrowserService,
        session: &Session,
        reference: &str,
    ) -> Result<Element, String> {
        let last = service.last_snapshot();
        let element = last.elements.get(reference.trim()).cloned().ok_or_else(|| {
            format!("There is no element {reference} in the latest snapshot. Call browser_snapshot and use its refs.")
        })?;
        let (url, _) = where_now(session).await;
        if url != last.url {
            return Err(format!(
                "The page changed since the last snapshot (it is now {url}). Call browser_snapshot and use the new refs."
            ));
        }
        Ok(element)
    }

    /// The element as the page shows it now (its words and form may have changed since the
    /// snapshot), for the checks made at call time.
    async fn element_now(session: &Session, known: &Element) -> Result<Element, String> {
        let facts = session
            .on_element(
                &known.reference,
                "function() { const clean = (t) => (t || '').replace(/\\s+/g, ' ').trim(); const form = this.form || this.closest('form'); const pay = !!form && Array.from(form.elements || []).some((f) => /^cc-| cc-/.test((f.getAttribute('autocomplete') || '').toLowerCase()) || /cardnumber|ccnumber|creditcard|cvv|cvc|securitycode/.test(((f.name || '') + (f.id || '')).toLowerCase().replace(/[^a-z]/g, ''))); const buttons = form ? Array.from(form.querySelectorAll('button, input[type=submit]')).map((b) => clean(b.innerText || b.value)).join(' | ') : ''; const label = this.labels && this.labels.length ? clean(Array.from(this.labels).map((l) => l.innerText).join(' ')) : ''; return { name: clean(this.getAttribute('aria-label')) || clean(this.innerText) || clean(this.value) || label, value: this.tagName === 'INPUT' && ['submit', 'button'].includes((this.type || '').toLowerCase()) ? clean(this.value) : null, input_type: this.tagName === 'INPUT' ? (this.getAttribute('type') || 'text').toLowerCase() : '', autocomplete: this.getAttribute('autocomplete') || '', hints: clean([this.getAttribute('name'), this.id, this.getAttribute('placeholder'), label, this.getAttribute('aria-label')].filter(Boolean).join(' ')), submits: (this.tagName === 'BUTTON' && (this.getAttribute('type') || 'submit').toLowerCase() === 'submit' && !!this.form) || (this.tagName === 'INPUT' && ['submit', 'image'].includes((this.type || '').toLowerCase())), form: { payment: pay, buttons } }; }",
            )
            .await?;
        let mut now: Element = serde_json::from_value(facts).unwrap_or_default();
        now.reference = known.reference.clone();
        now.role = known.role.clone();
        now.message_box = known.message_box;
        Ok(now)
    }

    /// What approvals said of this call: the risk they rated it at (none when no approval
    /// step ran) and whether approvals are off.
    #[derive(Clone, Copy)]
    struct Cover {
        approved: Option<Risk>,
        mode_off: bool,
    }

    /// A click, Enter or submit that buys, sends or deletes runs only when approvals rated the
    /// call send (or no approval step ran and approvals are off).
    fn approved_for(consequence: Consequence, cover: Cover, what: &str) -> Result<(), String> {
        let covered = match cover.approved {
            Some(risk) => risk >= Risk::Send,
            None => cover.mode_off,
        };
        if covered {
            return Ok(());
        }
        let does = match consequence {
            Consequence::Purchase => "buys or pays for something",
            Consequence::Sends => "sends or posts something",
            Consequence::Deletes => "deletes something",
        };
        Err(format!(
            "{what} {does}, and that was not approved (the page may have changed since the snapshot). Call browser_snapshot, then try again so the person can be asked."
        ))
    }

    /// After an action: up to 0.3 s for a new tab or a download to start (a download that
    /// starts and ends in that time is reported now), then picks up new tabs.
    async fn settle(service: &BrowserService, session: &mut Session, since: u64) -> bool {
        service.downloads().settle(since, SETTLE).await;
        session.pick_up_new_tabs().await
    }

    async fn click(
        service: &BrowserService,
        session: &mut Session,
        reference: &str,
        cover: Cover,
        since: u64,
    ) -> Result<Value, String> {
        let known = known_element(service, session, reference).await?;
        let now = element_now(session, &known).await?;
        let consequence = safety::click_consequence(&now);
        if let Some(consequence) = consequence {
            approved_for(consequence, cover, &format!("Clicking \"{}\"", now.name))?;
        }
        session.accept_confirms(consequence.is_some());
        let clicked = session.click(&known.reference).await;
        let new_tab = settle(service, session, since).await;
        session.accept_confirms(false);
        clicked?;
        let (url, _) = where_now(session).await;
        let mut result = json!({
            "ok": true,
            "clicked": known.name,
            "url": url,
            "message": format!("Clicked \"{}\". Call browser_snapshot to see the page now.", known.name),
        });
        if new_tab {
            result["new_tab"] = json!(true);
        }
        let dialogs = session.take_dialogs();
        if !dialogs.is_empty() {
            result["dialogs"] = json!(dialogs);
        }
        Ok(result)
    }

    async fn type_text(
        service: &BrowserService,
        session: &mut Session,
        reference: &str,
        text: &str,
        submit: bool,
        cover: Cover,
        since: u64,
    ) -> Result<Value, String> {
        let known = known_element(service, session, reference).await?;
        let now = element_now(session, &known).await?;
        if let Some(kind) = safety::secret_kind(&now).or_else(|| safety::secret_kind(&known)) {
            return Ok(needs_user(
                &safety::secret_field_message(kind),
                &safety::secret_field_reason(kind),
            ));
        }
        if safety::has_card_number(text) {
            return Ok(needs_user(
                safety::CARD_TEXT_MESSAGE,
                safety::CARD_TEXT_REASON,
            ));
        }
        let mut submit_as = known.clone();
        submit_as.form = now.form.clone();
        if submit && let Some(consequence) = safety::submit_consequence(&submit_as) {
            approved_for(consequence, cover, "Pressing Enter in this form")?;
        }
        session.type_into(&known.reference, text).await?;
        if submit {
            session.press("Enter").await?;
        }
        settle(service, session, since).await;
        let (url, _) = where_now(session).await;
        Ok(json!({"ok": true, "typed_into": known.name, "submitted": submit, "url": url}))
    }

    async fn select(
        service: &BrowserService,
        session: &mut Session,
        reference: &str,
        option: &str,
        since: u64,
    ) -> Result<Value, String> {
        let known = known_element(service, session, reference).await?;
        let wanted = serde_json::to_string(option.trim()).unwrap_or_default();
        let picked = session
            .on_element(
                &known.reference,
                &format!(
                    "function() {{ const want = {wanted}; if (this.tagName !== 'SELECT') return null; const opts = Array.from(this.options); const norm = (t) => (t || '').replace(/\\s+/g, ' ').trim().toLowerCase(); let o = opts.find((x) => norm(x.label || x.text) === norm(want)) || opts.find((x) => x.value === want); if (!o && /^\\d+$/.test(want)) o = opts[Number(want)]; if (!o) return {{ missing: opts.map((x) => (x.label || x.text).trim()) }}; this.value = o.value; o.selected = true; this.dispatchEvent(new Event('input', {{bubbles: true}})); this.dispatchEvent(new Event('change', {{bubbles: true}})); return {{ selected: (o.label || o.text).trim() }}; }}"
                ),
            )
            .await?;
        if picked.is_null() {
            return Err(format!(
                "{reference} isn't a list to pick from. Use browser_click for other elements."
            ));
        }
        if let Some(missing) = picked.get("missing").and_then(Value::as_array) {
            let names: Vec<&str> = missing.iter().filter_map(Value::as_str).collect();
            return Err(format!(
                "\"{option}\" isn't one of the options. They are: {}.",
                names.join(" | ")
            ));
        }
        settle(service, session, since).await;
        let (url, _) = where_now(session).await;
        Ok(json!({"ok": true, "selected": picked["selected"], "in": known.name, "url": url}))
    }

    async fn press(
        service: &BrowserService,
        session: &mut Session,
        key: &str,
        cover: Cover,
        since: u64,
    ) -> Result<Value, String> {
        let (modifiers, name) = crate::keys::parse(key)?;
        if modifiers == 0 && name == "Enter" {
            let focused = service
                .last_snapshot()
                .elements
                .into_values()
                .find(|e| e.focused);
            if let Some(focused) = focused {
                let now = element_now(session, &focused)
                    .await
                    .unwrap_or(focused.clone());
                let mut as_now = focused.clone();
                as_now.form = now.form;
                if let Some(consequence) = safety::submit_consequence(&as_now) {
                    approved_for(consequence, cover, "Pressing Enter here")?;
                }
            }
        }
        session.press(key).await?;
        settle(service, session, since).await;
        let (url, _) = where_now(session).await;
        Ok(json!({"ok": true, "pressed": key, "url": url}))
    }

    async fn scroll(session: &Session, direction: &str) -> Result<Value, String> {
        let direction = direction.trim().to_lowercase();
        let step = match direction.as_str() {
            "down" => "window.scrollBy(0, window.innerHeight * 0.8)",
            "up" => "window.scrollBy(0, -window.innerHeight * 0.8)",
            "top" => "window.scrollTo(0, 0)",
            "bottom" => "window.scrollTo(0, document.documentElement.scrollHeight)",
            "left" => "window.scrollBy(-window.innerWidth * 0.8, 0)",
            "right" => "window.scrollBy(window.innerWidth * 0.8, 0)",
            other => {
                return Err(format!(
                    "{other} isn't a direction. Use down, up, top, bottom, left or right."
                ));
            }
        };
        let facts = session
            .evaluate(&format!(
                "(() => {{ {step}; const r = document.documentElement; return JSON.stringify({{ y: Math.round(window.scrollY), more: window.scrollY + window.innerHeight < r.scrollHeight - 2 }}); }})()"
            ))
            .await?;
        Ok(json!({
            "ok": true,
            "scrolled": direction,
            "from_top": facts.get("y").and_then(Value::as_i64).unwrap_or(0),
            "more_below": facts.get("more").and_then(Value::as_bool).unwrap_or(false),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_keeps_the_related_paragraphs_in_page_order() {
        let text = "Opening hours are 9 to 5.\n\nParking is free on Sundays.\n\nThe museum shop sells posters.\n\nSunday opening hours are 10 to 4.";
        let kept = related_paragraphs(text, "When is it open on Sunday? opening hours", 10_000);
        assert_eq!(
            kept,
            "Opening hours are 9 to 5.\n\nSunday opening hours are 10 to 4."
        );
        assert_eq!(related_paragraphs(text, "", 10_000), text);
        let small = related_paragraphs(text, "opening hours sunday", 30);
        assert_eq!(small, "Sunday opening hours are 10 to 4.");
    }
}
