//! Windows: memory and display adapters from one PowerShell start, NVIDIA cards from
//! `nvidia-smi`.

#[cfg(target_os = "windows")]
use super::*;

/// Memory and display adapters in one PowerShell start (which takes about a second). The
/// registry's 64-bit `qwMemorySize` is read first because WMI's `AdapterRAM` stops at 4 GB.
#[cfg(target_os = "windows")]
const WINDOWS_PROBE: &str = r#"$ErrorActionPreference = 'SilentlyContinue'
'mem|' + (Get-CimInstance Win32_ComputerSystem).TotalPhysicalMemory
Get-ItemProperty 'HKLM:\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}\0*' | ForEach-Object {
  $m = $_.'HardwareInformation.qwMemorySize'
  if (-not $m) { $s = $_.'HardwareInformation.MemorySize'; if ($s -is [byte[]]) { $m = [BitConverter]::ToUInt32($s, 0) } else { $m = $s } }
  'gpu|' + $_.MatchingDeviceId + '|' + $m + '|' + $_.DriverDesc
}"#;

#[cfg(target_os = "windows")]
pub(super) async fn probe_platform() -> Probe {
    let (smi, probe) = tokio::join!(
        nvidia_smi(),
        run(
            "powershell",
            &["-NoProfile", "-NonInteractive", "-Command", WINDOWS_PROBE]
        ),
    );
    let (ram_gb, adapters) = probe
        .as_deref()
        .map(parse_windows_probe)
        .unwrap_or_default();
    Probe {
        ram_gb,
        unified_memory: false,
        gpus: merge_gpus(smi, adapters),
    }
}
