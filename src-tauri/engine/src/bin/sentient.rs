//! The `sentient` command: `serve` runs the engine without a window (headless machines,
//! browser mode, tests); `doctor` checks an installation; `node` runs a reference device.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use futures::StreamExt;
use sentient_engine::home::Home;
use sentient_engine::models::checkup::{self, CheckStatus, CheckupLine, CheckupRequest};
use sentient_engine::{Engine, EngineOptions, doctor, logging};
use sentient_node::reference_node;

#[derive(Parser)]
#[command(
    name = "sentient",
    version,
    about = "Sentient, your personal AI assistant"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the engine without a window; prints one JSON line {url, token, home, web_url} when ready.
    Serve {
        /// Home folder (default: SENTIENT_HOME, then ~/.sentient).
        #[arg(long, env = "SENTIENT_HOME")]
        home: Option<PathBuf>,
        /// Port on 127.0.0.1 (default: gateway.port from the settings; 0 picks a free one).
        #[arg(long, env = "SENTIENT_PORT")]
        port: Option<u16>,
        /// Token for the API (default: a new random one each launch).
        #[arg(long, env = "SENTIENT_TOKEN", hide_env_values = true)]
        token: Option<String>,
    },
    /// Check the home folder, the settings, the database and the port.
    Doctor {
        #[arg(long, env = "SENTIENT_HOME")]
        home: Option<PathBuf>,
        #[arg(long, env = "SENTIENT_PORT")]
        port: Option<u16>,
        /// Instead, try every role's model from the saved settings (the model check-up).
        #[arg(long)]
        models: bool,
    },
    /// Run a reference device: pairs with a code, then shows text and notifications here,
    /// answers location with a fixed place, and sends button presses from the keyboard.
    Node(reference_node::NodeOptions),
}

#[tokio::main]
async fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve { home, port, token } => serve(home, port, token).await,
        Command::Doctor {
            home, models: true, ..
        } => run_model_checkup(home).await,
        Command::Doctor { home, port, .. } => run_doctor(home, port).await,
        Command::Node(options) => {
            let input = tokio::io::BufReader::new(tokio::io::stdin());
            match reference_node::run(options, input, |line| println!("{line}")).await {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("{message}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

async fn serve(home: Option<PathBuf>, port: Option<u16>, token: Option<String>) -> ExitCode {
    let home = match Home::resolve(home).and_then(|h| h.ensure_layout().map(|()| h)) {
        Ok(home) => home,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let _logs = logging::init(&home.logs());
    // Tests point outside services at stand-ins with SENTIENT_ENDPOINTS=<json file>.
    let endpoints = match sentient_engine::integrations::Endpoints::from_env() {
        Ok(endpoints) => endpoints,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let options = EngineOptions {
        home: Some(home.root().to_owned()),
        port,
        token,
        endpoints: Some(endpoints),
        ..Default::default()
    };
    let engine = match Engine::start(options).await {
        Ok(engine) => engine,
        Err(error) => {
            tracing::error!(%error, "could not start");
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let ready = serde_json::json!({
        "url": engine.services().url(),
        "token": engine.services().token(),
        "home": engine.services().home().root().display().to_string(),
        "web_url": engine.services().web_url(),
    });
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{ready}");
    let _ = stdout.flush();
    drop(stdout);
    eprintln!(
        "Sentient is running. Open the web_url above in a browser (it holds your token). Press Ctrl+C to stop."
    );

    wait_for_signal().await;
    tracing::info!("shutting down");
    engine.services().shutdown().await;
    ExitCode::SUCCESS
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

async fn run_doctor(home: Option<PathBuf>, port: Option<u16>) -> ExitCode {
    let home = match Home::resolve(home) {
        Ok(home) => home,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let port = port.unwrap_or_else(|| doctor::configured_port(&home));
    let checks = doctor::run(&home, port).await;
    print!("{}", doctor::table(&checks));
    if checks.iter().all(|c| c.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `doctor --models`: the model check-up against the home's saved settings, as a table.
/// Progress goes to stderr; the table to stdout. Exits 1 when any check fails.
async fn run_model_checkup(home: Option<PathBuf>) -> ExitCode {
    let home = match Home::resolve(home).and_then(|h| h.ensure_layout().map(|()| h)) {
        Ok(home) => home,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let options = EngineOptions {
        home: Some(home.root().to_owned()),
        port: Some(0),
        ..Default::default()
    };
    let engine = match Engine::start(options).await {
        Ok(engine) => engine,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let mut finished = None;
    match engine
        .services()
        .models()
        .checkup(CheckupRequest::default())
        .await
    {
        Ok(lines) => {
            let mut lines = std::pin::pin!(lines);
            while let Some(line) = lines.next().await {
                match line {
                    CheckupLine::Step { role, label } => eprintln!("{}: {label}...", role.as_str()),
                    CheckupLine::Done { status, roles } => finished = Some((status, roles)),
                    CheckupLine::Start { .. } | CheckupLine::Role(_) => {}
                }
            }
        }
        Err(error) => eprintln!("{error}"),
    }
    engine.services().shutdown().await;
    let Some((status, roles)) = finished else {
        eprintln!("The model check-up stopped before it finished.");
        return ExitCode::FAILURE;
    };
    print!("{}", checkup::table(status, &roles));
    if status == CheckStatus::Fail {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
