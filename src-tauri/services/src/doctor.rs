//! `sentient doctor`: checks the home folder, the settings, the database and the port, and
//! says in plain words what is wrong and what to do.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::SystemClock;
use crate::config::ConfigService;
use crate::home::Home;
use crate::store::Store;

/// One line of the report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
}

fn check(name: &'static str, ok: bool, detail: impl Into<String>) -> Check {
    Check {
        name,
        ok,
        detail: detail.into(),
    }
}

/// The port the engine on `home` would use: its settings' `gateway.port`, else the default.
pub fn configured_port(home: &Home) -> u16 {
    std::fs::read_to_string(home.config_file())
        .ok()
        .and_then(|text| ConfigService::check_file(&text).ok())
        .unwrap_or_default()
        .gateway
        .port
}

/// Runs every check; never fails, each problem is a line.
pub async fn run(home: &Home, port: u16) -> Vec<Check> {
    let mut checks = Vec::new();
    let probe = home.tmp().join(".doctor-probe");
    let writable = std::fs::create_dir_all(home.tmp()).and_then(|()| std::fs::write(&probe, b"ok"));
    let _ = std::fs::remove_file(&probe);
    checks.push(match writable {
        Ok(()) => check("home folder", true, home.root().display().to_string()),
        Err(e) => check(
            "home folder",
            false,
            format!(
                "{} cannot be written ({e}); check its permissions or use --home.",
                home.root().display()
            ),
        ),
    });

    let config_path = home.config_file();
    checks.push(match std::fs::read_to_string(&config_path) {
        Err(_) => check("settings", true, "no config.yaml yet; defaults will be written on start"),
        Ok(text) => match ConfigService::check_file(&text) {
            Ok(_) => check("settings", true, config_path.display().to_string()),
            Err(problem) => check("settings", false, format!("config.yaml cannot be used ({problem}); Sentient will set it aside and use defaults.")),
        },
    });

    let db = home.database();
    if !db.exists() {
        checks.push(check(
            "database",
            true,
            "no sentient.db yet; it is created on start",
        ));
    } else {
        match Store::connect(&db, Arc::new(SystemClock)).await {
            Err(e) => checks.push(check(
                "database",
                false,
                format!("cannot be opened ({e}); is another program holding it?"),
            )),
            Ok(store) => {
                match store.health().await {
                    Ok(h) => {
                        checks.push(check(
                            "database integrity",
                            h.integrity == "ok",
                            h.integrity.clone(),
                        ));
                        let current = h.applied_migrations == h.known_migrations;
                        checks.push(check(
                            "database migrations",
                            current,
                            if current {
                                format!(
                                    "{} of {} applied",
                                    h.applied_migrations, h.known_migrations
                                )
                            } else {
                                format!(
                                    "{} of {} applied; start Sentient once to bring it up to date",
                                    h.applied_migrations, h.known_migrations
                                )
                            },
                        ));
                    }
                    Err(e) => checks.push(check("database integrity", false, e.to_string())),
                }
                store.close().await;
            }
        }
    }
    checks.push(vector_search_check().await);
    checks.push(port_check(port).await);
    checks
}

/// Whether sqlite-vec loads (memory's search by meaning; without it memory can't be changed).
async fn vector_search_check() -> Check {
    let probe = Store::connect(std::path::Path::new(":memory:"), Arc::new(SystemClock)).await;
    match probe {
        Ok(store) => {
            let version = store.vector_extension().map(str::to_owned);
            store.close().await;
            match version {
                Some(v) => check("memory search", true, format!("sqlite-vec {v}")),
                None => check(
                    "memory search",
                    false,
                    format!(
                        "sqlite-vec did not load, so memory searches words only and can't be changed{}.",
                        if std::env::var(crate::store::VECTOR_EXTENSION_ENV)
                            .is_ok_and(|v| v == "off")
                        {
                            format!(" ({} is off)", crate::store::VECTOR_EXTENSION_ENV)
                        } else {
                            "; reinstall Sentient".to_owned()
                        }
                    ),
                ),
            }
        }
        Err(e) => check(
            "memory search",
            false,
            format!("could not be checked ({e})"),
        ),
    }
}

async fn port_check(port: u16) -> Check {
    if port == 0 {
        return check("port", true, "0: a free port is picked on start");
    }
    match tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await {
        Ok(_) => check("port", true, format!("{port} is free")),
        Err(_) => {
            let url = format!("http://127.0.0.1:{port}/api/health");
            let client = reqwest::Client::builder()
                .timeout(Duration::from_secs(2))
                .build();
            let sentient = match client {
                Ok(c) => match c.get(&url).send().await {
                    Ok(r) => r.json::<crate::Health>().await.is_ok(),
                    Err(_) => false,
                },
                Err(_) => false,
            };
            if sentient {
                check(
                    "port",
                    true,
                    format!("{port} is in use by a running Sentient"),
                )
            } else {
                check(
                    "port",
                    false,
                    format!(
                        "{port} is used by another program; pick another with --port or gateway.port"
                    ),
                )
            }
        }
    }
}

/// The report as an aligned table.
pub fn table(checks: &[Check]) -> String {
    let width = checks.iter().map(|c| c.name.len()).max().unwrap_or(0);
    checks
        .iter()
        .map(|c| {
            format!(
                "{:<width$}  {:<4}  {}\n",
                c.name,
                if c.ok { "ok" } else { "FAIL" },
                c.detail
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fresh_home_is_healthy_and_a_busy_port_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        home.ensure_layout().expect("layout");
        let busy = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind");
        let port = busy.local_addr().expect("addr").port();
        let checks = run(&home, port).await;
        assert!(
            checks.iter().filter(|c| c.name != "port").all(|c| c.ok),
            "{checks:?}"
        );
        let port_line = checks.iter().find(|c| c.name == "port").expect("port line");
        assert!(!port_line.ok);
        assert!(table(&checks).contains("FAIL"));
    }

    #[tokio::test]
    async fn a_database_with_pending_migrations_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        home.ensure_layout().expect("layout");
        let store = Store::connect(&home.database(), Arc::new(SystemClock))
            .await
            .expect("db");
        sqlx::query("CREATE TABLE t (x)")
            .execute(store.pool())
            .await
            .expect("create");
        store.close().await;
        let checks = run(&home, 0).await;
        let migrations = checks
            .iter()
            .find(|c| c.name == "database migrations")
            .expect("line");
        assert!(!migrations.ok, "{migrations:?}");
    }
}
