//! What this computer can run (`GET /api/system/hardware`, contract section 3): memory,
//! graphics cards, and the local model from [`LOCAL_MODEL_TIERS`] that fits.
//!
//! Detection never fails. Every source (`/proc/meminfo`, `nvidia-smi`, `/sys/class/drm`,
//! `sysctl`, PowerShell, Ollama's `/api/ps`) is best effort: what can't be read becomes `None`,
//! and a machine where nothing could be read gets the summary "unknown" and today's default
//! model. The work is split so it can be tested without the hardware: pure functions turn raw
//! text into numbers ([`parse_meminfo`], [`parse_nvidia_smi`], [`classify_drm`], ...) and into the
//! answer ([`assemble`], [`recommend`], [`summarize`]); only [`detect`] touches the machine.
//!
//! Sizes are GiB (what the operating system and `nvidia-smi` count in) rounded to one decimal
//! and called "GB" in sentences, as people do: an "8 GB" card reports 8188 MiB, which rounds to
//! 8.0 and so meets the 8 GB row. The tier rows compare the rounded figure for the same reason.
//! No field is a 64-bit integer, because the TypeScript binding generator refuses them.

use std::process::Stdio;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

/// How a recommended local model is written in the model settings (Ollama's chat route).
pub const OLLAMA_CHAT_PREFIX: &str = "ollama_chat/";

/// The model and length used when nothing could be read; they are `ModelsConfig`'s defaults,
/// so an unknown machine is told to keep what it already has.
pub const DEFAULT_LOCAL_MODEL: &str = "qwen3:8b";
pub const DEFAULT_CONTEXT_LENGTH: u32 = 8192;

/// Apple silicon shares one memory between processor and graphics; macOS lets the graphics
/// side wire about two thirds of it, so that much counts as graphics memory.
const UNIFIED_GRAPHICS_SHARE: f64 = 2.0 / 3.0;

/// AMD chips with less memory of their own than this are built-in graphics that borrow a small
/// slice of system memory; Ollama gains nothing from them.
const AMD_MIN_USABLE_GB: f64 = 2.0;

/// `nvidia-smi` can take a few seconds while the driver wakes the card; a hung driver must not
/// hold up onboarding for longer than this.
const PROGRAM_TIMEOUT: Duration = Duration::from_secs(5);

/// Ollama answers `/api/ps` at once when it runs; when it doesn't, we don't wait for it.
const OLLAMA_TIMEOUT: Duration = Duration::from_secs(2);

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

// ------------------------------------------------------------------------------------ types

/// The operating system, as the contract spells it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Windows,
    Macos,
    Linux,
}

impl Os {
    /// The system this build runs on; other Unix systems read like Linux (their sources are
    /// simply missing, which detection already handles).
    pub fn current() -> Self {
        if cfg!(target_os = "windows") {
            Self::Windows
        } else if cfg!(target_os = "macos") {
            Self::Macos
        } else {
            Self::Linux
        }
    }
}

/// Who made a graphics chip.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum GpuVendor {
    Nvidia,
    Amd,
    Intel,
    Apple,
    Other,
}

/// Where the recommended model would run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RunsOn {
    Graphics,
    Processor,
    Unknown,
}

/// One graphics chip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Gpu {
    /// The chip's name, e.g. "NVIDIA GeForce RTX 4060 Laptop GPU".
    pub name: String,
    pub vendor: GpuVendor,
    /// Its own memory in GB; for Apple silicon the share of memory the graphics may use.
    pub vram_gb: Option<f64>,
    /// Whether local models can run on it (built-in Intel graphics and small AMD chips can't).
    pub usable: bool,
}

/// The local model that fits this computer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Recommendation {
    /// The row of the tier table this computer met, e.g. "gpu_8", "cpu_8", "small", "unknown".
    pub tier: String,
    /// The model as the settings write it, e.g. "ollama_chat/qwen3:8b".
    pub model: String,
    /// The model's Ollama name, e.g. "qwen3:8b".
    pub name: String,
    /// How many tokens the model should read at a time on this computer.
    pub context_length: u32,
    pub runs_on: RunsOn,
    /// A cloud model is the real recommendation; `model` is only a chat-only fallback.
    pub cloud_first: bool,
    /// A plain sentence, e.g. "qwen3:8b, reading 8,192 tokens at a time".
    pub summary: String,
    /// Why this model, in a plain sentence.
    pub note: String,
}

/// `GET /api/system/hardware`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Hardware {
    pub os: Os,
    /// Memory in GB, or null when it couldn't be read.
    pub ram_gb: Option<f64>,
    /// Processor and graphics share one memory (Apple silicon).
    pub unified_memory: bool,
    /// Graphics memory local models can use, summed over usable chips; null when none was found.
    pub usable_vram_gb: Option<f64>,
    /// Graphics memory the models loaded in Ollama use right now; null when Ollama didn't answer.
    pub ollama_vram_gb: Option<f64>,
    pub gpus: Vec<Gpu>,
    /// A plain sentence, or "unknown" when nothing could be read.
    pub summary: String,
    pub recommendation: Recommendation,
}

// ------------------------------------------------------------------------------- tier table

/// What a computer must have to meet a row of [`LOCAL_MODEL_TIERS`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TierFloor {
    /// At least this much usable graphics memory (GB); the model runs on the graphics.
    GraphicsMemory(f64),
    /// At least this much memory (GB); the model runs on the processor.
    Memory(f64),
}

/// One row of the tier table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalModelTier {
    pub id: &'static str,
    pub floor: TierFloor,
    /// The Ollama model name.
    pub name: &'static str,
    pub context_length: u32,
    /// A cloud model is recommended instead; the local one is only offered as a labelled
    /// chat-only fallback, never picked for the user.
    pub cloud_first: bool,
    pub note: &'static str,
}

/// What each computer should run locally; the first row the computer meets wins.
///
/// The sizes keep the whole model and its context on the graphics card with room to spare
/// (Ollama's own estimate adds about 1.5 GB of working space; a desktop takes some too):
/// qwen3:30b-a3b (19 GB, and only 3B parameters active per token, so it is quick) with 16,384
/// tokens fills a 24 GB card to about 22 GB; qwen3:14b (9.3 GB) with 16,384 tokens fills a
/// 16 GB card to about 13.5 GB; on 12 GB qwen3:14b would leave no room for a useful context, so
/// qwen3:8b (5.2 GB) gets twice the usual length instead; and qwen3:8b with 8,192 tokens keeps
/// about 90% on an 8 GB card, which the check-up accepts.
pub const LOCAL_MODEL_TIERS: [LocalModelTier; 6] = [
    LocalModelTier {
        id: "gpu_24",
        floor: TierFloor::GraphicsMemory(24.0),
        name: "qwen3:30b-a3b",
        context_length: 16384,
        cloud_first: false,
        note: "A large model that still fits on the graphics card, so replies stay quick.",
    },
    LocalModelTier {
        id: "gpu_16",
        floor: TierFloor::GraphicsMemory(16.0),
        name: "qwen3:14b",
        context_length: 16384,
        cloud_first: false,
        note: "Fits on the graphics card with room for long conversations, so replies stay quick.",
    },
    LocalModelTier {
        id: "gpu_12",
        floor: TierFloor::GraphicsMemory(12.0),
        name: "qwen3:8b",
        context_length: 16384,
        cloud_first: false,
        note: "Fits on the graphics card with room for long conversations, so replies stay quick.",
    },
    LocalModelTier {
        id: "gpu_8",
        floor: TierFloor::GraphicsMemory(8.0),
        name: "qwen3:8b",
        context_length: 8192,
        cloud_first: false,
        note: "Fits on the graphics card, so replies stay quick.",
    },
    LocalModelTier {
        id: "cpu_8",
        floor: TierFloor::Memory(8.0),
        name: "qwen3:8b",
        context_length: 8192,
        cloud_first: false,
        note: "Runs on the processor because there is no graphics card it fits on, so replies are slow; a cloud model answers much faster.",
    },
    LocalModelTier {
        id: "small",
        floor: TierFloor::Memory(0.0),
        name: "qwen3:4b",
        context_length: 4096,
        cloud_first: true,
        note: "This computer has too little memory for a local model that uses tools well, so a cloud model is recommended; qwen3:4b is only a chat-only fallback.",
    },
];

/// The row for a computer where nothing could be read: today's defaults.
pub const UNKNOWN_TIER: LocalModelTier = LocalModelTier {
    id: "unknown",
    floor: TierFloor::Memory(0.0),
    name: DEFAULT_LOCAL_MODEL,
    context_length: DEFAULT_CONTEXT_LENGTH,
    cloud_first: false,
    note: "Sentient couldn't tell what this computer has, so this is the usual starting model.",
};

/// Apple silicon has no separate card, so the graphics rows speak of shared memory there.
const UNIFIED_NOTE: &str = "Fits in the memory the graphics share, so replies stay quick.";

impl LocalModelTier {
    /// Whether a computer with this much usable graphics memory and memory meets the row.
    /// Both are compared rounded to one decimal, as they are shown.
    pub fn met_by(&self, usable_vram_gb: Option<f64>, ram_gb: Option<f64>) -> bool {
        match self.floor {
            TierFloor::GraphicsMemory(min) => usable_vram_gb.is_some_and(|gb| round1(gb) >= min),
            TierFloor::Memory(min) => ram_gb.is_some_and(|gb| round1(gb) >= min),
        }
    }

    /// The row as the answer's recommendation.
    pub fn recommendation(&self, unified: bool) -> Recommendation {
        let runs_on = if self.id == UNKNOWN_TIER.id {
            RunsOn::Unknown
        } else {
            match self.floor {
                TierFloor::GraphicsMemory(_) => RunsOn::Graphics,
                TierFloor::Memory(_) => RunsOn::Processor,
            }
        };
        let note = if unified && runs_on == RunsOn::Graphics {
            UNIFIED_NOTE
        } else {
            self.note
        };
        // The chat-only label goes in the sentence too, so no screen shows the fallback
        // without it.
        let label = if self.cloud_first { " (chat only)" } else { "" };
        Recommendation {
            tier: self.id.to_owned(),
            model: format!("{OLLAMA_CHAT_PREFIX}{}", self.name),
            name: self.name.to_owned(),
            context_length: self.context_length,
            runs_on,
            cloud_first: self.cloud_first,
            summary: format!(
                "{}{label}, reading {} tokens at a time",
                self.name,
                thousands(self.context_length)
            ),
            note: note.to_owned(),
        }
    }
}

/// The first row of [`LOCAL_MODEL_TIERS`] the computer meets. `unified` (Apple silicon) counts
/// two thirds of the memory as graphics memory when no graphics figure is given; with neither
/// figure known the answer is the "unknown" row.
pub fn recommend(
    usable_vram_gb: Option<f64>,
    ram_gb: Option<f64>,
    unified: bool,
) -> Recommendation {
    let vram = usable_vram_gb.or_else(|| {
        if unified {
            ram_gb.map(|gb| gb * UNIFIED_GRAPHICS_SHARE)
        } else {
            None
        }
    });
    LOCAL_MODEL_TIERS
        .iter()
        .find(|tier| tier.met_by(vram, ram_gb))
        .unwrap_or(&UNKNOWN_TIER)
        .recommendation(unified)
}

// --------------------------------------------------------------------- pure parsing helpers

/// `MemTotal` from `/proc/meminfo`, in GB.
pub fn parse_meminfo(text: &str) -> Option<f64> {
    let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let amount: f64 = words.next()?.parse().ok()?;
    // The kernel has written "kB" (meaning KiB) for decades; anything else is not what we know.
    let bytes = match words.next() {
        Some("kB") | None => amount * 1024.0,
        Some(_) => return None,
    };
    positive_gb(bytes)
}

/// A byte count as printed by `sysctl -n hw.memsize` or PowerShell, in GB.
pub fn parse_bytes_gb(text: &str) -> Option<f64> {
    let bytes: u64 = text.trim().parse().ok()?;
    positive_gb(bytes as f64)
}

/// Cards from `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader,nounits`
/// (one "name, MiB" line each). A card whose memory reads `[N/A]` is kept with no figure.
pub fn parse_nvidia_smi(text: &str) -> Vec<Gpu> {
    text.lines()
        .filter_map(|line| {
            // The memory is the last field; splitting from the right keeps a name with a comma.
            let (name, mib) = line.rsplit_once(',')?;
            let name = name.trim();
            if name.is_empty() {
                return None;
            }
            let vram_gb = mib
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(|mib| positive_gb(mib * 1024.0 * 1024.0));
            Some(Gpu {
                name: name.to_owned(),
                vendor: GpuVendor::Nvidia,
                vram_gb,
                // nvidia-smi answering means the driver works, which is all Ollama needs.
                usable: true,
            })
        })
        .collect()
}

/// A card from `/sys/class/drm/cardN/device`: its `vendor` file (e.g. "0x1002") and, for AMD,
/// `mem_info_vram_total` in bytes. `None` for virtual and server display chips, which only
/// draw a screen.
pub fn classify_drm(vendor_id: &str, vram_bytes: Option<u64>) -> Option<Gpu> {
    let hex = vendor_id.trim();
    let hex = hex
        .strip_prefix("0x")
        .or_else(|| hex.strip_prefix("0X"))
        .unwrap_or(hex);
    let vendor = u32::from_str_radix(hex, 16).ok()?;
    classify_pci(vendor, None, vram_bytes)
}

/// A graphics chip by PCI vendor id, with the name the system gave it if any.
pub fn classify_pci(vendor_id: u32, name: Option<&str>, vram_bytes: Option<u64>) -> Option<Gpu> {
    // Virtual machines' and servers' management display chips: listing them would only
    // suggest a card that isn't there.
    const DISPLAY_ONLY: [u32; 7] = [0x1af4, 0x15ad, 0x1234, 0x1a03, 0x1414, 0x80ee, 0x102b];
    if DISPLAY_ONLY.contains(&vendor_id) {
        return None;
    }
    let vram_gb = vram_bytes.and_then(|bytes| positive_gb(bytes as f64));
    let (vendor, default_name, usable) = match vendor_id {
        // Without nvidia-smi (where the memory comes from) the driver is most likely missing,
        // so a card with no memory figure can't be counted on.
        0x10de => (GpuVendor::Nvidia, "NVIDIA graphics", vram_gb.is_some()),
        0x1002 => (
            GpuVendor::Amd,
            "AMD graphics",
            vram_gb.is_some_and(|gb| gb >= AMD_MIN_USABLE_GB),
        ),
        // Ollama doesn't run models on Intel graphics, built in or not.
        0x8086 => (GpuVendor::Intel, "Intel graphics", false),
        _ => (GpuVendor::Other, "Graphics chip", false),
    };
    let name = name
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or(default_name);
    Some(Gpu {
        name: name.to_owned(),
        vendor,
        vram_gb,
        usable,
    })
}

/// The graphics side of an Apple silicon chip, which may use two thirds of the memory.
pub fn apple_silicon_gpu(chip: Option<&str>, ram_gb: Option<f64>) -> Gpu {
    let name = chip
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or("Apple silicon");
    Gpu {
        name: name.to_owned(),
        vendor: GpuVendor::Apple,
        vram_gb: ram_gb.map(|gb| round1(gb * UNIFIED_GRAPHICS_SHARE)),
        usable: true,
    }
}

/// The PowerShell probe's output on Windows: `mem|<bytes>` and one
/// `gpu|<MatchingDeviceId>|<bytes>|<DriverDesc>` per display adapter in the registry.
/// Returns the memory in GB and the adapters.
pub fn parse_windows_probe(text: &str) -> (Option<f64>, Vec<Gpu>) {
    let mut ram_gb = None;
    let mut gpus = Vec::new();
    for line in text.lines() {
        let mut fields = line.trim().splitn(4, '|');
        match fields.next() {
            Some("mem") => ram_gb = fields.next().and_then(parse_bytes_gb),
            Some("gpu") => {
                let device = fields.next().unwrap_or_default().to_ascii_lowercase();
                let bytes = fields.next().and_then(|b| b.trim().parse::<u64>().ok());
                let name = fields.next();
                // "pci\ven_10de&dev_2860..."; adapters that aren't PCI (remote desktop, the basic
                // display driver) have no vendor and aren't graphics cards.
                let vendor = device
                    .split_once("ven_")
                    .and_then(|(_, rest)| rest.get(..4))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok());
                if let Some(gpu) = vendor.and_then(|v| classify_pci(v, name, bytes)) {
                    gpus.push(gpu);
                }
            }
            _ => {}
        }
    }
    (ram_gb, gpus)
}

/// Graphics memory used by the models loaded in Ollama, from `/api/ps`'s answer.
pub fn parse_ollama_ps(body: &str) -> Option<f64> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let models = value.get("models")?.as_array()?;
    let bytes: f64 = models
        .iter()
        .filter_map(|model| model.get("size_vram").and_then(serde_json::Value::as_f64))
        .sum();
    Some(round1(bytes / GIB))
}

/// Cards from `nvidia-smi` replace the same cards seen elsewhere (sysfs, the registry),
/// because only `nvidia-smi` knows their memory for sure.
pub fn merge_gpus(nvidia_smi: Vec<Gpu>, others: Vec<Gpu>) -> Vec<Gpu> {
    if nvidia_smi.is_empty() {
        return others;
    }
    let mut gpus = nvidia_smi;
    gpus.extend(
        others
            .into_iter()
            .filter(|gpu| gpu.vendor != GpuVendor::Nvidia),
    );
    gpus
}

// ------------------------------------------------------------------------- the answer

/// One plain sentence about the machine, or "unknown" when nothing could be read.
pub fn summarize(gpus: &[Gpu], ram_gb: Option<f64>, unified: bool) -> String {
    if gpus.is_empty() && ram_gb.is_none() {
        return "unknown".to_owned();
    }
    // Apple silicon's graphics have no memory of their own to name, so the one memory is
    // the whole sentence.
    if unified
        && let (Some(chip), Some(ram)) = (
            gpus.iter().find(|gpu| gpu.vendor == GpuVendor::Apple),
            ram_gb,
        )
    {
        return format!(
            "{} with {} GB of memory shared with its graphics",
            chip.name,
            gb(ram)
        );
    }
    let mut parts: Vec<String> = Vec::new();
    if gpus.is_empty() {
        parts.push("No graphics card found".to_owned());
    }
    for gpu in gpus {
        parts.push(match gpu.vram_gb {
            _ if !gpu.usable => format!("{} (not used by local models)", gpu.name),
            Some(vram) => format!("{} with {} GB of graphics memory", gpu.name, gb(vram)),
            None => format!("{} (graphics memory unknown)", gpu.name),
        });
    }
    match ram_gb {
        Some(ram) => parts.push(format!("{} GB of memory", gb(ram))),
        None => parts.push("memory unknown".to_owned()),
    }
    parts.join(", ")
}

/// Puts what detection read together into the answer.
///
/// `usable_vram_gb` sums the usable chips whose memory is known. When no card was found, what
/// Ollama has loaded on the graphics right now is still proof of at least that much graphics
/// memory (the contract's "lower bound"), so the recommendation may use it.
pub fn assemble(
    os: Os,
    ram_gb: Option<f64>,
    unified_memory: bool,
    gpus: Vec<Gpu>,
    ollama_vram_gb: Option<f64>,
) -> Hardware {
    let known: Vec<f64> = gpus
        .iter()
        .filter(|gpu| gpu.usable)
        .filter_map(|gpu| gpu.vram_gb)
        .collect();
    let usable_vram_gb = if known.is_empty() {
        None
    } else {
        Some(round1(known.iter().sum()))
    };
    let lower_bound = ollama_vram_gb.filter(|gb| *gb > 0.0);
    let recommendation = recommend(usable_vram_gb.or(lower_bound), ram_gb, unified_memory);
    Hardware {
        os,
        ram_gb,
        unified_memory,
        usable_vram_gb,
        ollama_vram_gb,
        summary: summarize(&gpus, ram_gb, unified_memory),
        gpus,
        recommendation,
    }
}

// --------------------------------------------------------------------------- detection

/// Looks at this computer. Never fails and never takes much longer than the slowest source's
/// timeout (5 s for programs, 2 s for Ollama), since they are asked side by side.
/// `ollama_base` is Ollama's address, e.g. `http://localhost:11434`.
pub async fn detect(ollama_base: &str) -> Hardware {
    let (probe, ollama_vram_gb) = tokio::join!(probe_platform(), ollama_vram(ollama_base));
    let hardware = assemble(
        Os::current(),
        probe.ram_gb,
        probe.unified_memory,
        probe.gpus,
        ollama_vram_gb,
    );
    tracing::info!(
        summary = %hardware.summary,
        tier = %hardware.recommendation.tier,
        "hardware detected"
    );
    hardware
}

mod linux;
mod macos;
mod windows;

#[cfg(not(any(target_os = "macos", target_os = "windows")))]
use linux::probe_platform;
pub use linux::scan_drm;
#[cfg(target_os = "macos")]
use macos::probe_platform;
#[cfg(target_os = "windows")]
use windows::probe_platform;

/// What the operating system told us.
#[derive(Debug, Default)]
struct Probe {
    ram_gb: Option<f64>,
    unified_memory: bool,
    gpus: Vec<Gpu>,
}

/// NVIDIA cards, or none when `nvidia-smi` is missing, fails or hangs.
#[cfg(not(target_os = "macos"))] // NVIDIA has shipped no macOS driver since 2019
async fn nvidia_smi() -> Vec<Gpu> {
    run(
        "nvidia-smi",
        &[
            "--query-gpu=name,memory.total",
            "--format=csv,noheader,nounits",
        ],
    )
    .await
    .map(|out| parse_nvidia_smi(&out))
    .unwrap_or_default()
}

/// Graphics memory of the models Ollama has loaded, or `None` when it doesn't answer.
pub async fn ollama_vram(ollama_base: &str) -> Option<f64> {
    let url = format!("{}/api/ps", ollama_base.trim_end_matches('/'));
    let client = match reqwest::Client::builder().timeout(OLLAMA_TIMEOUT).build() {
        Ok(client) => client,
        Err(err) => {
            tracing::debug!(error = %err, "no HTTP client for Ollama");
            return None;
        }
    };
    let response = match client.get(&url).send().await {
        Ok(response) if response.status().is_success() => response,
        Ok(response) => {
            tracing::debug!(status = %response.status(), %url, "Ollama refused /api/ps");
            return None;
        }
        Err(err) => {
            tracing::debug!(error = %err, %url, "Ollama did not answer");
            return None;
        }
    };
    let body = response.text().await.ok()?;
    parse_ollama_ps(&body)
}

/// A program's output, or `None` when it is missing, fails or takes longer than
/// [`PROGRAM_TIMEOUT`] (it is killed then, not left behind).
async fn run(program: &str, args: &[&str]) -> Option<String> {
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    // A desktop app must not flash a console window for each program it asks.
    #[cfg(target_os = "windows")]
    command.creation_flags(0x0800_0000); // CREATE_NO_WINDOW
    match tokio::time::timeout(PROGRAM_TIMEOUT, command.output()).await {
        Ok(Ok(output)) if output.status.success() => {
            Some(String::from_utf8_lossy(&output.stdout).into_owned())
        }
        Ok(Ok(output)) => {
            tracing::debug!(program, status = %output.status, "hardware probe failed");
            None
        }
        Err(_) => {
            tracing::warn!(program, "hardware probe timed out");
            None
        }
        Ok(Err(err)) => {
            tracing::debug!(program, error = %err, "hardware probe not available");
            None
        }
    }
}

// ------------------------------------------------------------------------------ cache

/// The hardware, detected once and kept: cards and memory don't change while Sentient runs,
/// and detection starts programs. `get(true)` looks again (after plugging in an eGPU, say).
#[derive(Debug)]
pub struct HardwareCache {
    ollama_base: String,
    // A tokio lock held across detection, so callers arriving meanwhile wait for that answer
    // instead of starting their own.
    slot: Mutex<Option<Hardware>>,
}

impl HardwareCache {
    /// `ollama_base` is Ollama's address, e.g. `http://localhost:11434`.
    pub fn new(ollama_base: impl Into<String>) -> Self {
        Self {
            ollama_base: ollama_base.into(),
            slot: Mutex::new(None),
        }
    }

    /// The detected hardware; detects on the first call and whenever `refresh` is set.
    pub async fn get(&self, refresh: bool) -> Hardware {
        let mut slot = self.slot.lock().await;
        if !refresh && let Some(hardware) = slot.as_ref() {
            return hardware.clone();
        }
        let hardware = detect(&self.ollama_base).await;
        *slot = Some(hardware.clone());
        hardware
    }

    /// The hardware if it was detected already, without detecting.
    pub async fn cached(&self) -> Option<Hardware> {
        self.slot.lock().await.clone()
    }
}

// ---------------------------------------------------------------------------- helpers

fn round1(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// Bytes as GB rounded to one decimal; zero or nonsense reads as unknown.
fn positive_gb(bytes: f64) -> Option<f64> {
    let gb = round1(bytes / GIB);
    (gb.is_finite() && gb > 0.0).then_some(gb)
}

/// "8" for 8.0 and "15.3" for 15.3, as people write sizes.
fn gb(value: f64) -> String {
    let value = round1(value);
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

/// 8192 as "8,192".
fn thousands(value: u32) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nvidia(name: &str, vram_gb: f64) -> Gpu {
        Gpu {
            name: name.to_owned(),
            vendor: GpuVendor::Nvidia,
            vram_gb: Some(vram_gb),
            usable: true,
        }
    }

    fn tier(vram: Option<f64>, ram: Option<f64>) -> String {
        recommend(vram, ram, false).tier
    }

    // ---- parsing

    #[test]
    fn meminfo_reads_mem_total() {
        let text = "MemTotal:       16013488 kB\nMemFree:        20129472 kB\n";
        assert_eq!(parse_meminfo(text), Some(15.3));
        assert_eq!(parse_meminfo("MemTotal: 24684096 kB"), Some(23.5));
        assert_eq!(parse_meminfo("MemFree: 1 kB"), None);
        assert_eq!(parse_meminfo("MemTotal: lots kB"), None);
        assert_eq!(parse_meminfo("MemTotal: 0 kB"), None);
        assert_eq!(parse_meminfo(""), None);
    }

    #[test]
    fn byte_counts_read_as_gb() {
        assert_eq!(parse_bytes_gb("17179869184\n"), Some(16.0));
        assert_eq!(parse_bytes_gb(""), None);
        assert_eq!(parse_bytes_gb("-5"), None);
    }

    #[test]
    fn nvidia_smi_lists_two_cards() {
        let out = "NVIDIA GeForce RTX 4090, 24564\nNVIDIA GeForce RTX 3060, 12288\n";
        let gpus = parse_nvidia_smi(out);
        assert_eq!(
            gpus,
            vec![
                nvidia("NVIDIA GeForce RTX 4090", 24.0),
                nvidia("NVIDIA GeForce RTX 3060", 12.0)
            ]
        );
        let hardware = assemble(Os::Linux, Some(62.7), false, gpus, None);
        assert_eq!(hardware.usable_vram_gb, Some(36.0));
        assert_eq!(hardware.recommendation.tier, "gpu_24");
        assert_eq!(
            hardware.summary,
            "NVIDIA GeForce RTX 4090 with 24 GB of graphics memory, NVIDIA GeForce RTX 3060 with 12 GB of graphics memory, 62.7 GB of memory"
        );
    }

    #[test]
    fn nvidia_smi_odd_lines() {
        let gpus = parse_nvidia_smi("NVIDIA GB10, [N/A]\n\ngarbage\n, 8188\n");
        assert_eq!(gpus.len(), 1);
        assert_eq!(gpus[0].vram_gb, None);
        assert!(gpus[0].usable);
        assert!(parse_nvidia_smi("").is_empty());
    }

    #[test]
    fn drm_classifies_by_vendor_and_memory() {
        let amd = classify_drm("0x1002\n", Some(17_163_091_968)).expect("amd");
        assert_eq!(
            (amd.vendor, amd.vram_gb, amd.usable),
            (GpuVendor::Amd, Some(16.0), true)
        );
        // An APU's small carve-out is not a graphics card; 2 GB is the line.
        let apu = classify_drm("0x1002", Some(512 * 1024 * 1024)).expect("apu");
        assert!(!apu.usable);
        let just = classify_drm("0x1002", Some(2 * 1024 * 1024 * 1024)).expect("2 GB");
        assert!(just.usable);
        let under = classify_drm("0x1002", Some(1_990 * 1024 * 1024)).expect("1.9 GB");
        assert!(!under.usable);
        assert!(!classify_drm("0x1002", None).expect("no figure").usable);

        let intel = classify_drm("0x8086", None).expect("intel");
        assert_eq!((intel.vendor, intel.usable), (GpuVendor::Intel, false));
        let nouveau = classify_drm("0x10de", None).expect("nvidia");
        assert_eq!((nouveau.vendor, nouveau.usable), (GpuVendor::Nvidia, false));
        let other = classify_drm("0x1ed5", None).expect("other");
        assert_eq!((other.vendor, other.usable), (GpuVendor::Other, false));

        assert_eq!(classify_drm("0x1af4", None), None, "virtio display");
        assert_eq!(classify_drm("0x1a03", None), None, "ASPEED BMC");
        assert_eq!(classify_drm("not hex", None), None);
    }

    #[test]
    fn intel_built_in_graphics_is_not_usable() {
        let intel = classify_drm("0x8086", Some(128 * 1024 * 1024)).expect("intel");
        let hardware = assemble(Os::Linux, Some(15.3), false, vec![intel], None);
        assert_eq!(hardware.usable_vram_gb, None);
        assert_eq!(hardware.recommendation.tier, "cpu_8");
        assert_eq!(hardware.recommendation.runs_on, RunsOn::Processor);
        assert_eq!(
            hardware.summary,
            "Intel graphics (not used by local models), 15.3 GB of memory"
        );
    }

    #[test]
    fn drm_scan_reads_cards_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let card = |name: &str, files: &[(&str, &str)]| {
            let device = dir.path().join(name).join("device");
            std::fs::create_dir_all(&device).expect("mkdir");
            for (file, text) in files {
                std::fs::write(device.join(file), text).expect("write");
            }
        };
        card(
            "card1",
            &[
                ("vendor", "0x1002\n"),
                ("mem_info_vram_total", "17163091968\n"),
                ("product_name", "AMD Radeon RX 7800 XT\n"),
            ],
        );
        card("card0", &[("vendor", "0x8086\n")]);
        card("card1-DP-1", &[("vendor", "0x1002\n")]);
        card("renderD128", &[("vendor", "0x1002\n")]);
        card("card2", &[]); // simpledrm: no vendor file

        let gpus = scan_drm(dir.path());
        let names: Vec<&str> = gpus.iter().map(|gpu| gpu.name.as_str()).collect();
        assert_eq!(names, ["Intel graphics", "AMD Radeon RX 7800 XT"]);
        assert_eq!(gpus[1].vram_gb, Some(16.0));
        assert!(scan_drm(&dir.path().join("missing")).is_empty());
    }

    #[test]
    fn nvidia_smi_cards_replace_other_sightings() {
        let drm = vec![
            classify_drm("0x10de", None).expect("nvidia"),
            classify_drm("0x8086", None).expect("intel"),
        ];
        let merged = merge_gpus(vec![nvidia("NVIDIA GeForce RTX 4060", 8.0)], drm.clone());
        let vendors: Vec<GpuVendor> = merged.iter().map(|gpu| gpu.vendor).collect();
        assert_eq!(vendors, [GpuVendor::Nvidia, GpuVendor::Intel]);
        assert_eq!(merged[0].vram_gb, Some(8.0));
        assert_eq!(merge_gpus(Vec::new(), drm.clone()), drm);
    }

    #[test]
    fn windows_probe_reads_memory_and_adapters() {
        let out = "mem|17025441792\r\n\
                   gpu|pci\\ven_10de&dev_28e0&subsys_0b701028|8589934592|NVIDIA GeForce RTX 4060 Laptop GPU\r\n\
                   gpu|pci\\ven_8086&dev_a7a0|134217728|Intel(R) Iris(R) Xe Graphics\r\n\
                   gpu|root\\basicrender||Microsoft Basic Render Driver\r\n\
                   gpu|pci\\ven_1002&dev_73bf||AMD Radeon RX 6800 | XT\r\n";
        let (ram, gpus) = parse_windows_probe(out);
        assert_eq!(ram, Some(15.9));
        assert_eq!(gpus.len(), 3);
        assert_eq!(gpus[0].vram_gb, Some(8.0));
        assert!(gpus[0].usable);
        assert_eq!(gpus[1].vendor, GpuVendor::Intel);
        assert!(!gpus[1].usable);
        assert_eq!(gpus[2].name, "AMD Radeon RX 6800 | XT");
        assert!(!gpus[2].usable, "no memory figure");
        assert_eq!(parse_windows_probe(""), (None, Vec::new()));
    }

    #[test]
    fn ollama_ps_sums_graphics_memory() {
        let body = r#"{"models":[{"name":"qwen3:8b","size":6654289920,"size_vram":5988860928},
                       {"name":"nomic-embed-text","size":849203200,"size_vram":849203200}]}"#;
        assert_eq!(parse_ollama_ps(body), Some(6.4));
        assert_eq!(parse_ollama_ps(r#"{"models":[]}"#), Some(0.0));
        assert_eq!(parse_ollama_ps("not json"), None);
        assert_eq!(parse_ollama_ps("{}"), None);
    }

    // ---- tiers

    #[test]
    fn graphics_tiers_start_at_their_floor() {
        let ram = Some(64.0);
        assert_eq!(tier(Some(48.0), ram), "gpu_24");
        assert_eq!(tier(Some(24.0), ram), "gpu_24");
        assert_eq!(tier(Some(23.9), ram), "gpu_16");
        assert_eq!(tier(Some(16.0), ram), "gpu_16");
        assert_eq!(tier(Some(15.9), ram), "gpu_12");
        assert_eq!(tier(Some(12.0), ram), "gpu_12");
        assert_eq!(tier(Some(11.9), ram), "gpu_8");
        assert_eq!(tier(Some(8.0), ram), "gpu_8");
        assert_eq!(tier(Some(7.9), ram), "cpu_8");
        // An "8 GB" card reports 8188 MiB (7.996 GB), which is still the 8 GB row.
        assert_eq!(tier(Some(8188.0 / 1024.0), ram), "gpu_8");
    }

    #[test]
    fn memory_tiers_start_at_their_floor() {
        assert_eq!(tier(None, Some(8.0)), "cpu_8");
        assert_eq!(tier(Some(4.0), Some(8.0)), "cpu_8");
        let small = recommend(None, Some(7.9), false);
        assert_eq!(small.tier, "small");
        assert!(small.cloud_first);
        assert_eq!(small.model, "ollama_chat/qwen3:4b");
        assert_eq!(small.runs_on, RunsOn::Processor);
        assert!(small.summary.contains("chat only"), "{}", small.summary);
        assert!(small.note.contains("chat-only fallback"), "{}", small.note);

        let cpu = recommend(None, Some(15.3), false);
        assert_eq!(
            (
                cpu.name.as_str(),
                cpu.context_length,
                cpu.runs_on,
                cpu.cloud_first
            ),
            ("qwen3:8b", 8192, RunsOn::Processor, false)
        );
        assert!(cpu.note.contains("slow") && cpu.note.contains("cloud model"));
    }

    #[test]
    fn gpu_8_is_the_contracts_example() {
        let rec = recommend(Some(8.0), Some(15.3), false);
        assert_eq!(rec.tier, "gpu_8");
        assert_eq!(rec.model, "ollama_chat/qwen3:8b");
        assert_eq!(rec.name, "qwen3:8b");
        assert_eq!(rec.context_length, 8192);
        assert_eq!(rec.runs_on, RunsOn::Graphics);
        assert!(!rec.cloud_first);
        assert_eq!(rec.summary, "qwen3:8b, reading 8,192 tokens at a time");
        assert_eq!(
            rec.note,
            "Fits on the graphics card, so replies stay quick."
        );
    }

    #[test]
    fn unreadable_machine_is_unknown() {
        let hardware = assemble(Os::Linux, None, false, Vec::new(), None);
        assert_eq!(hardware.summary, "unknown");
        assert_eq!(hardware.usable_vram_gb, None);
        let rec = hardware.recommendation;
        assert_eq!(rec.tier, "unknown");
        assert_eq!(rec.runs_on, RunsOn::Unknown);
        assert_eq!(
            (rec.name.as_str(), rec.context_length),
            (DEFAULT_LOCAL_MODEL, DEFAULT_CONTEXT_LENGTH)
        );
        assert!(!rec.cloud_first);
        // A small card but no memory figure can't decide between the processor rows.
        assert_eq!(tier(Some(4.0), None), "unknown");
    }

    #[test]
    fn apple_silicon_counts_two_thirds_as_graphics() {
        let gpu = apple_silicon_gpu(Some("Apple M2 Pro\n"), Some(16.0));
        assert_eq!(gpu.vram_gb, Some(10.7));
        let hardware = assemble(Os::Macos, Some(16.0), true, vec![gpu], None);
        assert!(hardware.unified_memory);
        assert_eq!(hardware.usable_vram_gb, Some(10.7));
        assert_eq!(hardware.recommendation.tier, "gpu_8");
        assert_eq!(hardware.recommendation.runs_on, RunsOn::Graphics);
        assert!(
            hardware
                .recommendation
                .note
                .contains("memory the graphics share")
        );
        assert_eq!(
            hardware.summary,
            "Apple M2 Pro with 16 GB of memory shared with its graphics"
        );

        assert_eq!(recommend(None, Some(36.0), true).tier, "gpu_24");
        assert_eq!(recommend(None, Some(24.0), true).tier, "gpu_16");
        // 8 GB Macs: 5.3 GB for graphics is under every graphics row.
        assert_eq!(recommend(None, Some(8.0), true).tier, "cpu_8");
    }

    #[test]
    fn ollama_use_is_a_lower_bound_without_a_card() {
        let hardware = assemble(Os::Windows, Some(31.9), false, Vec::new(), Some(8.3));
        assert_eq!(hardware.usable_vram_gb, None);
        assert_eq!(hardware.recommendation.tier, "gpu_8");
        let idle = assemble(Os::Windows, Some(31.9), false, Vec::new(), Some(0.0));
        assert_eq!(idle.recommendation.tier, "cpu_8");
    }

    #[test]
    fn table_is_ordered_from_biggest_to_smallest() {
        let floors: Vec<(u8, f64)> = LOCAL_MODEL_TIERS
            .iter()
            .map(|tier| match tier.floor {
                TierFloor::GraphicsMemory(gb) => (0, gb),
                TierFloor::Memory(gb) => (1, gb),
            })
            .collect();
        assert!(
            floors
                .windows(2)
                .all(|pair| pair[0].0 < pair[1].0
                    || (pair[0].0 == pair[1].0 && pair[0].1 > pair[1].1))
        );
        assert_eq!(
            LOCAL_MODEL_TIERS
                .iter()
                .filter(|tier| tier.cloud_first)
                .count(),
            1
        );
    }

    // ---- sentences

    #[test]
    fn summaries_are_plain_sentences() {
        assert_eq!(
            summarize(&[], Some(23.5), false),
            "No graphics card found, 23.5 GB of memory"
        );
        let unknown_vram = Gpu {
            vram_gb: None,
            ..nvidia("NVIDIA GB10", 0.0)
        };
        assert_eq!(
            summarize(&[unknown_vram], None, false),
            "NVIDIA GB10 (graphics memory unknown), memory unknown"
        );
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(4096), "4,096");
        assert_eq!(thousands(32768), "32,768");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(gb(8.0), "8");
        assert_eq!(gb(15.34), "15.3");
    }

    #[test]
    fn answer_matches_the_contract_example() {
        let gpus = parse_nvidia_smi("NVIDIA GeForce RTX 4060 Laptop GPU, 8188\n");
        let hardware = assemble(Os::Linux, Some(15.3), false, gpus, None);
        let json = serde_json::to_value(&hardware).expect("json");
        let expected = serde_json::json!({
            "os": "linux", "ram_gb": 15.3, "unified_memory": false, "usable_vram_gb": 8.0,
            "ollama_vram_gb": null,
            "gpus": [{"name": "NVIDIA GeForce RTX 4060 Laptop GPU", "vendor": "nvidia", "vram_gb": 8.0, "usable": true}],
            "summary": "NVIDIA GeForce RTX 4060 Laptop GPU with 8 GB of graphics memory, 15.3 GB of memory",
            "recommendation": {"tier": "gpu_8", "model": "ollama_chat/qwen3:8b", "name": "qwen3:8b",
                "context_length": 8192, "runs_on": "graphics", "cloud_first": false,
                "summary": "qwen3:8b, reading 8,192 tokens at a time",
                "note": "Fits on the graphics card, so replies stay quick."}
        });
        assert_eq!(json, expected);
        let back: Hardware = serde_json::from_value(json).expect("round trip");
        assert_eq!(back, hardware);
    }

    // ---- the machine

    /// An address nothing listens on, so the tests don't depend on a running Ollama.
    async fn closed_address() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        drop(listener);
        format!("http://{address}")
    }

    #[tokio::test]
    async fn ollama_ps_over_http() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.expect("accept");
            let mut request = vec![0u8; 4096];
            let read = socket.read(&mut request).await.expect("read");
            let body = r#"{"models":[{"name":"qwen3:8b","size_vram":8589934592}]}"#;
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(reply.as_bytes()).await.expect("write");
            String::from_utf8_lossy(&request[..read]).into_owned()
        });
        assert_eq!(ollama_vram(&format!("http://{address}/")).await, Some(8.0));
        let request = server.await.expect("server");
        assert!(request.starts_with("GET /api/ps "), "{request}");

        assert_eq!(ollama_vram(&closed_address().await).await, None);
    }

    #[tokio::test]
    async fn detect_on_this_machine() {
        let hardware = detect(&closed_address().await).await;
        assert_eq!(hardware.os, Os::Linux);
        assert!(!hardware.summary.is_empty());
        assert!(!hardware.recommendation.tier.is_empty());
        assert!(
            hardware
                .recommendation
                .model
                .starts_with(OLLAMA_CHAT_PREFIX)
        );
        assert_eq!(hardware.ollama_vram_gb, None);
    }

    #[tokio::test]
    async fn cache_detects_once_until_refreshed() {
        let cache = HardwareCache::new(closed_address().await);
        assert_eq!(cache.cached().await, None);
        let first = cache.get(false).await;
        assert_eq!(cache.cached().await.as_ref(), Some(&first));
        assert_eq!(cache.get(false).await, first);
        assert_eq!(cache.get(true).await.os, first.os);
    }
}
