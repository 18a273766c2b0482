//! Linux: memory from `/proc/meminfo`, graphics cards from `nvidia-smi` and `/sys/class/drm`.
//! `scan_drm` is compiled everywhere so its tests run on every platform.

use std::path::Path;

use super::*;

#[cfg(not(any(target_os = "macos", target_os = "windows")))]
pub(super) async fn probe_platform() -> Probe {
    let meminfo = async {
        tokio::fs::read_to_string("/proc/meminfo")
            .await
            .ok()
            .and_then(|text| parse_meminfo(&text))
    };
    let drm = async {
        tokio::task::spawn_blocking(|| scan_drm(Path::new("/sys/class/drm")))
            .await
            .unwrap_or_default()
    };
    let (ram_gb, smi, drm) = tokio::join!(meminfo, nvidia_smi(), drm);
    Probe {
        ram_gb,
        unified_memory: false,
        gpus: merge_gpus(smi, drm),
    }
}

/// Graphics cards under a `/sys/class/drm`-like folder, in card order. Only `cardN` entries
/// are cards; `cardN-DP-1` and the like are its screens' connectors.
pub fn scan_drm(root: &Path) -> Vec<Gpu> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut cards: Vec<(u32, Gpu)> = entries
        .flatten()
        .filter_map(|entry| {
            let file_name = entry.file_name();
            let number: u32 = file_name.to_str()?.strip_prefix("card")?.parse().ok()?;
            let device = entry.path().join("device");
            let vendor = std::fs::read_to_string(device.join("vendor")).ok()?;
            let vram = std::fs::read_to_string(device.join("mem_info_vram_total"))
                .ok()
                .and_then(|text| text.trim().parse::<u64>().ok());
            let mut gpu = classify_drm(&vendor, vram)?;
            // Newer amdgpu drivers say the marketing name; most say nothing.
            if let Ok(product) = std::fs::read_to_string(device.join("product_name")) {
                let product = product.trim();
                if !product.is_empty() {
                    product.clone_into(&mut gpu.name);
                }
            }
            Some((number, gpu))
        })
        .collect();
    cards.sort_by_key(|(number, _)| *number);
    cards.into_iter().map(|(_, gpu)| gpu).collect()
}
