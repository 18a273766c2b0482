//! macOS: memory and the chip from `sysctl`; Apple silicon shares its memory with the graphics.

#[cfg(target_os = "macos")]
use super::*;

#[cfg(target_os = "macos")]
pub(super) async fn probe_platform() -> Probe {
    const SYSCTL: &str = "/usr/sbin/sysctl";
    let (memsize, arm64, brand) = tokio::join!(
        run(SYSCTL, &["-n", "hw.memsize"]),
        // Asked at run time, so an Intel build running under Rosetta still sees the M chip.
        run(SYSCTL, &["-n", "hw.optional.arm64"]),
        run(SYSCTL, &["-n", "machdep.cpu.brand_string"]),
    );
    let ram_gb = memsize.as_deref().and_then(parse_bytes_gb);
    let apple_silicon = arm64.as_deref().map(str::trim) == Some("1");
    // Ollama runs only on the processor on Intel Macs, so their graphics aren't listed.
    let gpus = if apple_silicon {
        vec![apple_silicon_gpu(brand.as_deref(), ram_gb)]
    } else {
        Vec::new()
    };
    Probe {
        ram_gb,
        unified_memory: apple_silicon,
        gpus,
    }
}
