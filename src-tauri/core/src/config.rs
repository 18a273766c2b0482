//! Settings: one typed [`Config`] (in `config/schema.rs`), saved as YAML in `config.yaml`,
//! changed through PUT/PATCH with the contract's merge rules, and watched by services so a
//! change applies at once without a restart.

mod merge;
mod schema;
mod validate;

use crate::sync::MutexExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::watch;

pub use merge::{FREE_FORM_MAPS, merge_patch};
pub use schema::*;
pub use validate::is_valid_timezone;

use crate::bus::{DomainEvent, EventBus};
use crate::error::{ApiError, FieldError};
use crate::home::write_atomically;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("Some settings are not valid.")]
    Invalid(Vec<FieldError>),
    #[error("the settings file {path} could not be written: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the settings could not be turned into YAML: {0}")]
    Encode(String),
}

impl From<ConfigError> for ApiError {
    fn from(err: ConfigError) -> Self {
        match err {
            ConfigError::Invalid(fields) => ApiError::validation(fields),
            other => ApiError::internal(&other),
        }
    }
}

/// `PUT /api/config`'s answer.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Saved {
    pub saved: bool,
}

/// `PATCH /api/config`'s answer: the settings as saved.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SavedConfig {
    pub saved: bool,
    #[schema(value_type = Object)]
    pub config: Config,
}

/// A change to the settings: the new settings made from the ones before it.
type Change = Box<dyn FnOnce(&Config) -> Result<Config, ConfigError> + Send>;

/// One change waiting to be saved: how to make the new settings from the ones before it, and
/// where its caller waits for its own answer.
struct PendingChange {
    change: Change,
    answer: tokio::sync::oneshot::Sender<Result<Arc<Config>, ConfigError>>,
}

struct Inner {
    path: PathBuf,
    tx: watch::Sender<Arc<Config>>,
    bus: EventBus,
    /// Changes waiting for the writer. Whoever holds `saving` takes them all and saves them as
    /// one write (group commit), so 50 clients wait for one or two flushes, not fifty.
    pending: std::sync::Mutex<Vec<PendingChange>>,
    /// One writer at a time, so no change is lost between read and write.
    saving: tokio::sync::Mutex<()>,
}

/// The settings service; cheap to clone.
#[derive(Clone)]
pub struct ConfigService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ConfigService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConfigService")
            .field("path", &self.inner.path)
            .finish()
    }
}

impl ConfigService {
    /// Reads `config.yaml`, or writes the defaults when there is none. A file that cannot be
    /// read as settings is kept beside it as `config.yaml.broken-<time>` and defaults are used,
    /// so a bad edit never stops Sentient from starting and never loses the user's text.
    pub fn load(path: &Path, bus: EventBus) -> Result<Self, ConfigError> {
        let config = match std::fs::read_to_string(path) {
            Ok(text) => match read_at_start(path, &text) {
                Ok(config) => config,
                Err(problem) => {
                    let aside = path.with_extension(format!(
                        "yaml.broken-{}",
                        chrono::Utc::now().format("%Y%m%dT%H%M%S")
                    ));
                    tracing::warn!(%problem, kept_as = %aside.display(), "settings file could not be read; using defaults");
                    std::fs::rename(path, &aside).map_err(|source| ConfigError::Write {
                        path: aside.clone(),
                        source,
                    })?;
                    let config = Config::default();
                    write_yaml(path, &config)?;
                    config
                }
            },
            Err(_) => {
                let config = Config::default();
                write_yaml(path, &config)?;
                config
            }
        };
        let (tx, _) = watch::channel(Arc::new(config));
        Ok(Self {
            inner: Arc::new(Inner {
                path: path.to_owned(),
                tx,
                bus,
                pending: std::sync::Mutex::new(Vec::new()),
                saving: tokio::sync::Mutex::new(()),
            }),
        })
    }

    /// `text` as settings, or why it cannot be used (for `sentient doctor`).
    pub fn check_file(text: &str) -> Result<Config, String> {
        parse_yaml(text)
    }

    /// The settings now.
    pub fn current(&self) -> Arc<Config> {
        self.inner.tx.borrow().clone()
    }

    /// A receiver that sees every saved change; services hold one to apply changes live.
    pub fn watch(&self) -> watch::Receiver<Arc<Config>> {
        self.inner.tx.subscribe()
    }

    /// The JSON schema the Settings screen is generated from.
    pub fn schema() -> Value {
        Config::json_schema().clone()
    }

    /// Replaces every setting (`PUT /api/config`).
    pub async fn put(&self, body: Value) -> Result<Arc<Config>, ConfigError> {
        self.submit(move |_| parse_request(body)).await
    }

    /// Deep-merges `patch` into the current settings (`PATCH /api/config`).
    pub async fn patch(&self, patch: Value) -> Result<Arc<Config>, ConfigError> {
        if !patch.is_object() {
            return Err(ConfigError::Invalid(vec![FieldError::new(
                &["body"],
                "Send the settings to change as a JSON object.",
                "type_error",
            )]));
        }
        self.submit(move |before| {
            let mut merged = to_json(before)?;
            merge_patch(&mut merged, patch);
            parse_request(merged)
        })
        .await
    }

    /// [`ConfigService::patch`] answered the way both doors answer it.
    pub async fn patch_saved(&self, patch: Value) -> Result<SavedConfig, ConfigError> {
        let config = self.patch(patch).await?;
        Ok(SavedConfig {
            saved: true,
            config: (*config).clone(),
        })
    }

    /// Changes settings from inside the engine (onboarding, accepted rules, ...). Not queued:
    /// it saves what waits first, then its own change, while holding the writer.
    pub async fn update(
        &self,
        change: impl FnOnce(&mut Config),
    ) -> Result<Arc<Config>, ConfigError> {
        let _saving = self.inner.saving.lock().await;
        let batch = std::mem::take(&mut *self.lock_pending());
        if !batch.is_empty() {
            self.save_batch(batch);
        }
        let before = self.current();
        let mut config = (*before).clone();
        change(&mut config);
        let problems = config.problems();
        if !problems.is_empty() {
            return Err(ConfigError::Invalid(problems));
        }
        let config = Arc::new(config);
        self.commit(&before, &config, 1)?;
        Ok(self.current())
    }

    /// Queues `change` and saves it with every other change waiting then. Each change applies
    /// to the settings as the one before it left them; one that is not valid is refused alone.
    async fn submit(
        &self,
        change: impl FnOnce(&Config) -> Result<Config, ConfigError> + Send + 'static,
    ) -> Result<Arc<Config>, ConfigError> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.lock_pending().push(PendingChange {
            change: Box::new(change),
            answer,
        });
        {
            let _saving = self.inner.saving.lock().await;
            // Nothing below awaits, so a caller that goes away cannot drop a batch half-saved.
            let batch = std::mem::take(&mut *self.lock_pending());
            if !batch.is_empty() {
                self.save_batch(batch);
            }
        }
        // The writer before us may have saved our change already; either way it is answered.
        answered.await.unwrap_or_else(|_| {
            Err(ConfigError::Encode(
                "the settings writer stopped".to_owned(),
            ))
        })
    }

    fn lock_pending(&self) -> std::sync::MutexGuard<'_, Vec<PendingChange>> {
        self.inner.pending.lock_unpoisoned()
    }

    /// Applies `batch` in order and writes the result once: one file write, one watcher wake-up
    /// and one `config.updated` for the sections that changed. Nothing changed, nothing written.
    fn save_batch(&self, batch: Vec<PendingChange>) {
        let before = self.current();
        let mut working = before.clone();
        let mut answers = Vec::with_capacity(batch.len());
        for PendingChange { change, answer } in batch {
            let result = change(&working).map(Arc::new);
            if let Ok(config) = &result {
                working = config.clone();
            }
            answers.push((answer, result));
        }
        let saved = self.commit(&before, &working, answers.len());
        for (answer, result) in answers {
            let result = match (&saved, result) {
                (Err(e), Ok(_)) => Err(e.duplicate()),
                (_, result) => result,
            };
            // A caller that went away no longer needs its answer.
            let _ = answer.send(result);
        }
    }
}

impl ConfigService {
    /// Saves `after` in place of `before` when they differ: one file write, one watcher
    /// wake-up and one `config.updated` for the sections that changed.
    fn commit(
        &self,
        before: &Config,
        after: &Arc<Config>,
        changes: usize,
    ) -> Result<(), ConfigError> {
        let sections = changed_sections(&to_json(before)?, &to_json(after)?);
        if sections.is_empty() {
            // Nothing changed: no write, no event, no wake-up for watchers.
            return Ok(());
        }
        write_yaml(&self.inner.path, after)?;
        self.inner.tx.send_replace(after.clone());
        tracing::info!(?sections, changes, "settings saved");
        self.inner
            .bus
            .publish(DomainEvent::ConfigUpdated { sections });
        Ok(())
    }
}

impl ConfigError {
    /// The same failure for another waiting caller (the write failed for the whole batch).
    fn duplicate(&self) -> Self {
        match self {
            Self::Invalid(fields) => Self::Invalid(fields.clone()),
            Self::Write { path, source } => Self::Write {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            Self::Encode(text) => Self::Encode(text.clone()),
        }
    }
}

fn to_json(config: &Config) -> Result<Value, ConfigError> {
    serde_json::to_value(config).map_err(|e| ConfigError::Encode(e.to_string()))
}

/// Writes settings that passed every check (every save checks them first, and the defaults
/// pass), under the line that says so.
fn write_yaml(path: &Path, config: &Config) -> Result<(), ConfigError> {
    let body = serde_saphyr::to_string(config).map_err(|e| ConfigError::Encode(e.to_string()))?;
    let text = checked_line(&body) + &body;
    write_atomically(path, text.as_bytes()).map_err(|source| ConfigError::Write {
        path: path.to_owned(),
        source,
    })
}

/// The first line of a settings file whose text passed every check: the version that checked
/// it and a hash of the text below it. Start-up does not check such a file again (the range
/// check builds the settings' whole JSON schema, most of a start's time on its settings); an
/// edit changes the hash, and another version checks the file afresh.
const CHECKED_MARK: &str = "# Checked by Sentient ";

fn checked_line(body: &str) -> String {
    let hash = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, body.as_bytes());
    format!(
        "{CHECKED_MARK}{} ({}); an edit is checked at the next start.\n",
        env!("CARGO_PKG_VERSION"),
        hex::encode(&hash.as_ref()[..16])
    )
}

/// `text` split into its checked line, when it starts with one, and the settings below it.
fn split_checked_line(text: &str) -> (Option<&str>, &str) {
    match text.split_once('\n') {
        Some((first, body)) if first.starts_with(CHECKED_MARK) => (Some(first), body),
        _ => (None, text),
    }
}

/// The settings file read at start: taken as it is when its checked line vouches for it,
/// otherwise checked in full and, when it passes, marked so the next start need not.
fn read_at_start(path: &Path, text: &str) -> Result<Config, String> {
    let (line, body) = split_checked_line(text);
    if line.is_some_and(|line| checked_line(body).strip_suffix('\n') == Some(line)) {
        return read_yaml(text);
    }
    let config = parse_yaml(text)?;
    // The user's own text stays as written; only the line above it changes.
    let marked = checked_line(body) + body;
    if let Err(error) = write_atomically(path, marked.as_bytes()) {
        tracing::debug!(%error, "the settings file could not be marked as checked");
    }
    Ok(config)
}

/// `text` as settings, every check included.
fn parse_yaml(text: &str) -> Result<Config, String> {
    let config = read_yaml(text)?;
    let problems = config.problems();
    if problems.is_empty() {
        Ok(config)
    } else {
        Err(problems
            .into_iter()
            .map(|p| p.msg)
            .collect::<Vec<_>>()
            .join(" "))
    }
}

/// `text` as settings, without the checks of their values.
fn read_yaml(text: &str) -> Result<Config, String> {
    if text.trim().is_empty() {
        return Ok(Config::default());
    }
    let value: Value = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    let mut value = if value.is_null() {
        Value::Object(Default::default())
    } else {
        value
    };
    normalize(&mut value);
    serde_path_to_error::deserialize(&value).map_err(|e| e.to_string())
}

/// Turns a request body into settings, or the list of every problem in it.
fn parse_request(mut value: Value) -> Result<Config, ConfigError> {
    normalize(&mut value);
    let config: Config = match serde_path_to_error::deserialize(&value) {
        Ok(config) => config,
        Err(err) => {
            let mut loc = vec!["body".to_owned()];
            loc.extend(
                err.path()
                    .to_string()
                    .split('.')
                    .filter(|s| !s.is_empty() && *s != "?")
                    .map(str::to_owned),
            );
            let msg = format!("This setting has the wrong kind of value: {}.", err.inner());
            return Err(ConfigError::Invalid(vec![FieldError {
                loc,
                msg,
                kind: "value_error".to_owned(),
            }]));
        }
    };
    let mut problems = unknown_keys(&value, &to_json(&config)?, &mut vec!["body".to_owned()]);
    problems.extend(config.problems());
    if problems.is_empty() {
        Ok(config)
    } else {
        Err(ConfigError::Invalid(problems))
    }
}

/// Rule keys are trimmed and rule values lower-cased on save (contract section 2).
fn normalize(value: &mut Value) {
    let Some(rules) = value
        .pointer_mut("/tools/approvals/rules")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let entries = std::mem::take(rules);
    for (key, rule) in entries {
        let rule = match rule {
            Value::String(s) => Value::String(s.trim().to_lowercase()),
            other => other,
        };
        rules.insert(key.trim().to_owned(), rule);
    }
}

/// Keys in `input` that the typed settings dropped: names Sentient does not have.
fn unknown_keys(input: &Value, known: &Value, loc: &mut Vec<String>) -> Vec<FieldError> {
    let (Value::Object(input), Value::Object(known)) = (input, known) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (key, value) in input {
        loc.push(key.clone());
        match known.get(key) {
            None => problems.push(FieldError {
                loc: loc.clone(),
                msg: format!("Sentient has no setting called {key}."),
                kind: "extra_forbidden".to_owned(),
            }),
            Some(inner) => problems.extend(unknown_keys(value, inner, loc)),
        }
        loc.pop();
    }
    problems
}

fn changed_sections(old: &Value, new: &Value) -> Vec<String> {
    let (Value::Object(old), Value::Object(new)) = (old, new) else {
        return Vec::new();
    };
    new.iter()
        .filter(|(key, value)| old.get(*key) != Some(*value))
        .map(|(key, _)| key.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::clock::SystemClock;

    fn service(dir: &Path) -> (ConfigService, EventBus) {
        let bus = EventBus::new(Arc::new(SystemClock));
        (
            ConfigService::load(&dir.join("config.yaml"), bus.clone()).expect("load"),
            bus,
        )
    }

    #[test]
    fn first_load_writes_defaults_that_load_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (svc, _) = service(dir.path());
        assert_eq!(*svc.current(), Config::default());
        let text = std::fs::read_to_string(dir.path().join("config.yaml")).expect("file");
        assert_eq!(parse_yaml(&text).expect("parses"), Config::default());
    }

    /// The settings file after `text` was started on, and whether it was kept aside.
    fn started_on(text: &str) -> (Config, String, bool) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("config.yaml");
        std::fs::write(&path, text).expect("write");
        let (svc, _) = service(dir.path());
        let kept_aside = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().contains("broken"));
        let after = std::fs::read_to_string(&path).expect("file");
        ((*svc.current()).clone(), after, kept_aside)
    }

    #[test]
    fn written_settings_say_they_were_checked_and_an_edit_is_checked_again() {
        let dir = tempfile::tempdir().expect("tempdir");
        service(dir.path());
        let written = std::fs::read_to_string(dir.path().join("config.yaml")).expect("file");
        let (line, body) = split_checked_line(&written);
        assert!(
            line.is_some_and(|line| line.starts_with(CHECKED_MARK)),
            "the defaults are written under the line that says they passed: {written:.80}"
        );

        // An edit keeps the old line, whose hash no longer matches: checked, and out of range.
        let edited = written.replace("max_tools_local: ", "max_tools_local: 9000 #");
        assert_ne!(edited, written);
        let (config, _, kept_aside) = started_on(&edited);
        assert!(
            kept_aside,
            "the edited value is out of range, so the file is kept aside"
        );
        assert_eq!(config, Config::default());

        // A line that vouches for exactly this text is taken at its word: no check runs.
        let body_out_of_range = body.replace("max_tools_local: ", "max_tools_local: 9000 #");
        let vouched = checked_line(&body_out_of_range) + &body_out_of_range;
        let (config, after, kept_aside) = started_on(&vouched);
        assert!(!kept_aside);
        assert_eq!(config.chat.max_tools_local, 9000);
        assert_eq!(after, vouched, "nothing is rewritten");
    }

    #[test]
    fn a_hand_written_file_that_passes_is_marked_with_its_text_kept() {
        let text = "# my own notes\nchat:\n  max_tools_local: 40\n";
        let (config, after, kept_aside) = started_on(text);
        assert!(!kept_aside);
        assert_eq!(config.chat.max_tools_local, 40);
        let (line, body) = split_checked_line(&after);
        assert_eq!(
            body, text,
            "the person's text, comments included, is below the line"
        );
        assert_eq!(line.map(|l| format!("{l}\n")), Some(checked_line(text)));
        // Marked again (a newer version's line replaces the old one, not stacked above it).
        let (_, again, _) = started_on(&after.replacen(env!("CARGO_PKG_VERSION"), "0.0.1", 1));
        assert_eq!(again, after);
    }

    #[test]
    fn a_broken_file_is_kept_aside_and_defaults_are_used() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("config.yaml"), "ui: [not, a, map\n").expect("write");
        let (svc, _) = service(dir.path());
        assert_eq!(*svc.current(), Config::default());
        let kept: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().contains("broken"))
            .collect();
        assert_eq!(kept.len(), 1);
    }

    #[tokio::test]
    async fn patch_merges_publishes_and_notifies_watchers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (svc, bus) = service(dir.path());
        let mut events = bus.subscribe();
        let mut watcher = svc.watch();
        let saved = svc
            .patch(json!({"ui": {"theme": "light"}}))
            .await
            .expect("patch");
        assert_eq!(to_json(&saved).expect("json")["ui"]["theme"], "light");
        assert!(watcher.has_changed().expect("open"));
        assert_eq!(watcher.borrow_and_update().ui, saved.ui);
        let ev = events.recv().await.expect("event");
        assert_eq!(
            ev.event,
            DomainEvent::ConfigUpdated {
                sections: vec!["ui".into()]
            }
        );
        let reloaded = service(dir.path()).0;
        assert_eq!(reloaded.current().ui, saved.ui);
    }

    /// Changes that wait behind the writer are saved together: one write and one event, each
    /// caller answered with the settings its own change made, a bad change refused alone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn waiting_saves_are_merged_into_one_write() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (svc, bus) = service(dir.path());
        let mut events = bus.subscribe();
        let writer = svc.inner.saving.lock().await;
        let callers: Vec<_> = (0..50)
            .map(|i| {
                let svc = svc.clone();
                tokio::spawn(async move {
                    let patch = if i == 25 {
                        json!({"ui": {"theme": 5}})
                    } else {
                        json!({"assistant": {"location": format!("City {i}")}, "ui": {"theme": "light"}})
                    };
                    svc.patch(patch).await
                })
            })
            .collect();
        while svc.lock_pending().len() < 50 {
            tokio::task::yield_now().await;
        }
        drop(writer);
        for (i, caller) in callers.into_iter().enumerate() {
            let answer = caller.await.expect("joined");
            if i == 25 {
                assert!(matches!(answer, Err(ConfigError::Invalid(_))), "{answer:?}");
            } else {
                let config = answer.expect("saved");
                assert_eq!(
                    config.assistant.location,
                    format!("City {i}"),
                    "its own answer"
                );
            }
        }
        let ev = events.recv().await.expect("event");
        assert_eq!(
            ev.event,
            DomainEvent::ConfigUpdated {
                sections: vec!["assistant".into(), "ui".into()]
            }
        );
        assert!(events.try_recv().is_err(), "one save, one event");
        // The changes apply in the order they queued (not the order they were spawned): what is
        // on disk is the settings the last of them made, which is also what the service holds.
        let saved = service(dir.path()).0.current();
        assert_eq!(
            *saved,
            *svc.current(),
            "one write, and it is the final state"
        );
        assert!(
            saved.assistant.location.starts_with("City ") && saved.assistant.location != "City 25",
            "{}",
            saved.assistant.location
        );
    }

    #[tokio::test]
    async fn a_patch_that_changes_nothing_publishes_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (svc, bus) = service(dir.path());
        let mut events = bus.subscribe();
        let theme = to_json(&svc.current()).expect("json")["ui"]["theme"].clone();
        svc.patch(json!({"ui": {"theme": theme}}))
            .await
            .expect("patch");
        svc.patch(json!({"ui": {"theme": "light"}}))
            .await
            .expect("patch");
        // The first event is the real change; the no-op made none.
        let ev = events.recv().await.expect("event");
        assert_eq!(
            ev.event,
            DomainEvent::ConfigUpdated {
                sections: vec!["ui".into()]
            }
        );
        assert!(events.try_recv().is_err());
    }

    #[tokio::test]
    async fn rules_are_trimmed_and_lowercased_and_bad_ones_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (svc, _) = service(dir.path());
        let saved = svc
            .patch(json!({"tools": {"approvals": {"rules": {"  gmail ": "NEVER"}}}}))
            .await
            .expect("patch");
        let wire = to_json(&saved).expect("json");
        assert_eq!(wire["tools"]["approvals"]["rules"]["gmail"], "never");

        let err = svc
            .patch(json!({"tools": {"approvals": {"rules": {"slack": "sometimes"}}}}))
            .await
            .expect_err("refused");
        let ConfigError::Invalid(fields) = err else {
            panic!("expected a validation error")
        };
        assert_eq!(fields[0].loc[..4], ["body", "tools", "approvals", "rules"]);
        assert!(!svc.current().tools.approvals.rules.contains_key("slack"));
    }

    #[tokio::test]
    async fn unknown_settings_are_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (svc, _) = service(dir.path());
        let err = svc
            .patch(json!({"ui": {"colour": "red"}}))
            .await
            .expect_err("refused");
        let ConfigError::Invalid(fields) = err else {
            panic!("expected a validation error")
        };
        assert_eq!(fields[0].loc, ["body", "ui", "colour"]);
        assert_eq!(fields[0].kind, "extra_forbidden");
    }

    #[test]
    fn every_field_in_the_schema_has_a_description() {
        let schema = ConfigService::schema();
        let defs = schema.get("$defs").cloned().unwrap_or(Value::Null);
        let mut missing = Vec::new();
        check_descriptions(&schema, &defs, "", &mut missing, 0);
        assert!(
            missing.is_empty(),
            "fields without a description: {missing:?}"
        );
    }

    fn check_descriptions(
        node: &Value,
        defs: &Value,
        at: &str,
        missing: &mut Vec<String>,
        depth: usize,
    ) {
        if depth > 12 {
            return;
        }
        let node = match node.get("$ref").and_then(Value::as_str) {
            Some(r) => r
                .rsplit('/')
                .next()
                .and_then(|name| defs.get(name))
                .unwrap_or(node),
            None => node,
        };
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                let path = format!("{at}.{name}");
                let has = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|d| !d.trim().is_empty());
                if !has {
                    missing.push(path.clone());
                }
                check_descriptions(prop, defs, &path, missing, depth + 1);
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(list) = node.get(key).and_then(Value::as_array) {
                for item in list {
                    check_descriptions(item, defs, at, missing, depth + 1);
                }
            }
        }
    }
}
