//! Adding, changing and deleting browser profiles (`/api/browser/profiles`). A profile is a
//! setting; a launch profile's folder holds its sign-ins, so a rename moves the folder (and the
//! tasks that name it), and a delete removes it. The open profile is closed first.

use serde::Deserialize;

use sentient_core::config::{BrowserProfile, BrowserProfileKind};

use crate::profiles::{self, DEFAULT_PROFILE};
use crate::service::{BrowserService, ProfileList};

/// What `POST /api/browser/open` opens: a page (default: the one the assistant was on) in a
/// profile (default: the open one, else `default`).
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, specta::Type)]
#[serde(default, deny_unknown_fields)]
pub struct OpenRequest {
    pub url: Option<String>,
    pub profile: Option<String>,
}

/// `POST /api/browser/profiles`.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, specta::Type)]
#[serde(default, deny_unknown_fields)]
pub struct NewProfile {
    pub name: String,
    /// `launch` (default) or `attach`.
    pub kind: Option<String>,
    pub engine: Option<String>,
    pub endpoint: Option<String>,
    pub notes: Option<String>,
}

/// `PATCH /api/browser/profiles/{name}`: any of these.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, specta::Type)]
#[serde(default, deny_unknown_fields)]
pub struct ProfileChange {
    pub name: Option<String>,
    pub engine: Option<String>,
    pub endpoint: Option<String>,
    pub notes: Option<String>,
}

/// Why a profile change was refused (409 over HTTP), in plain words.
pub type Refusal = String;

const ENGINES: [&str; 5] = ["", "auto", "msedge", "chrome", "chromium"];

fn check_engine(engine: &str) -> Result<String, Refusal> {
    let engine = engine.trim().to_lowercase();
    if ENGINES.contains(&engine.as_str()) {
        Ok(engine)
    } else {
        Err(format!(
            "{engine} isn't a browser Sentient can use. Pick auto, msedge, chrome or chromium, or leave it empty."
        ))
    }
}

impl BrowserService {
    fn unknown_profile(&self, name: &str) -> Refusal {
        self.resolve_profile(Some(name))
            .err()
            .unwrap_or_else(|| format!("There is no browser profile called {name}."))
    }

    async fn save_profiles(
        &self,
        change: impl FnOnce(&mut std::collections::BTreeMap<String, BrowserProfile>),
    ) -> Result<(), Refusal> {
        self.config()
            .update(|config| change(&mut config.browser.profiles))
            .await
            .map(|_| ())
            .map_err(|e| match e {
                sentient_core::config::ConfigError::Invalid(fields) => fields
                    .first()
                    .map(|f| f.msg.clone())
                    .unwrap_or_else(|| "Those profile settings are not valid.".to_owned()),
                other => format!("The profile could not be saved: {other}"),
            })
    }

    /// Adds a profile; its name is normalized ("X growth" → `x-growth`).
    pub async fn add_profile(&self, new: NewProfile) -> Result<ProfileList, Refusal> {
        let name = profiles::normalize_name(&new.name)
            .ok_or_else(|| profiles::bad_name_message(&new.name))?;
        if name == DEFAULT_PROFILE || self.settings().browser.profiles.contains_key(&name) {
            return Err(format!("You already have a browser profile called {name}."));
        }
        let kind = match new.kind.as_deref().map(str::trim).unwrap_or("launch") {
            "launch" | "" => BrowserProfileKind::Launch,
            "attach" => BrowserProfileKind::Attach,
            other => {
                return Err(format!(
                    "{other} isn't a kind of profile. Use launch (Sentient starts the browser) or attach (connect to one you started)."
                ));
            }
        };
        let endpoint = match kind {
            BrowserProfileKind::Attach => {
                profiles::normalize_endpoint(new.endpoint.as_deref().unwrap_or(""))?
            }
            BrowserProfileKind::Launch => String::new(),
        };
        let profile = BrowserProfile {
            kind,
            engine: check_engine(new.engine.as_deref().unwrap_or(""))?,
            endpoint,
            notes: new.notes.unwrap_or_default().trim().to_owned(),
        };
        self.save_profiles(|all| {
            all.insert(name, profile);
        })
        .await?;
        Ok(self.profiles().await)
    }

    /// Changes a profile: a new name moves its folder and its tasks; changing the open
    /// profile's name, browser or address closes it first.
    pub async fn change_profile(
        &self,
        name: &str,
        change: ProfileChange,
    ) -> Result<ProfileList, Refusal> {
        let config = self.settings();
        let exists = name == DEFAULT_PROFILE || config.browser.profiles.contains_key(name);
        if !exists {
            return Err(self.unknown_profile(name));
        }
        let mut profile = config
            .browser
            .profiles
            .get(name)
            .cloned()
            .unwrap_or_default();
        let new_name = match change
            .name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
        {
            Some(typed) => {
                let normalized = profiles::normalize_name(typed)
                    .ok_or_else(|| profiles::bad_name_message(typed))?;
                if normalized != name && name == DEFAULT_PROFILE {
                    return Err("The default profile can't be renamed.".to_owned());
                }
                if normalized != name
                    && (normalized == DEFAULT_PROFILE
                        || config.browser.profiles.contains_key(&normalized))
                {
                    return Err(format!(
                        "You already have a browser profile called {normalized}."
                    ));
                }
                normalized
            }
            None => name.to_owned(),
        };
        let mut closes = new_name != name;
        if let Some(engine) = &change.engine {
            let engine = check_engine(engine)?;
            closes |= engine != profile.engine;
            profile.engine = engine;
        }
        if let Some(endpoint) = &change.endpoint {
            if profile.kind == BrowserProfileKind::Attach {
                let endpoint = profiles::normalize_endpoint(endpoint)?;
                closes |= endpoint != profile.endpoint;
                profile.endpoint = endpoint;
            } else if !endpoint.trim().is_empty() {
                return Err("Only a connected (attach) profile has an address.".to_owned());
            }
        }
        if let Some(notes) = change.notes {
            profile.notes = notes.trim().to_owned();
        }
        if closes && self.active_profile().await.as_deref() == Some(name) {
            self.close().await;
        }
        if new_name != name && profile.kind == BrowserProfileKind::Launch {
            let root = self.home().root().join("browser");
            let from = profiles::folder(&root, name);
            let to = profiles::folder(&root, &new_name);
            if from.exists() {
                std::fs::rename(&from, &to).map_err(|e| {
                    format!("The profile's folder is in use or could not be moved ({e}). Close the browser and try again.")
                })?;
            }
        }
        let (old, renamed) = (name.to_owned(), new_name.clone());
        self.save_profiles(move |all| {
            all.remove(&old);
            all.insert(renamed, profile);
        })
        .await?;
        if new_name != name {
            self.tasks().rename_profile(name, &new_name).await;
        }
        Ok(self.profiles().await)
    }

    /// Deletes a profile: closed first if open; a launch profile's folder (its sign-ins) goes.
    /// Returns the list and the names of the tasks that still name it.
    pub async fn delete_profile(&self, name: &str) -> Result<(ProfileList, Vec<String>), Refusal> {
        if name == DEFAULT_PROFILE {
            return Err("The default profile can't be deleted.".to_owned());
        }
        let Some(profile) = self.settings().browser.profiles.get(name).cloned() else {
            return Err(self.unknown_profile(name));
        };
        if self.active_profile().await.as_deref() == Some(name) {
            self.close().await;
        }
        if profile.kind == BrowserProfileKind::Launch {
            let folder = profiles::folder(&self.home().root().join("browser"), name);
            if folder.exists() {
                std::fs::remove_dir_all(&folder).map_err(|e| {
                    format!("The profile's folder is in use or could not be deleted ({e}). Close the browser and try again.")
                })?;
            }
        }
        let gone = name.to_owned();
        self.save_profiles(move |all| {
            all.remove(&gone);
        })
        .await?;
        let using = self.tasks().tasks_using(name).await;
        Ok((self.profiles().await, using))
    }
}
