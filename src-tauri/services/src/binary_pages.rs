//! Handing back the pages of the engine's own binary that start-up mapped.
//!
//! Start-up runs code an idle engine does not run again (the migrations' and the settings'
//! checks, building the routes), and the kernel maps every page it touches together with its
//! neighbours (fault-around, 64 KB at a time): about 15 MB of the release binary's code and 4 MB
//! of its read-only data stay mapped after start, most of it never used again. Unmapping the
//! parts of the binary that were never written hands them back. The pages stay in the page
//! cache, so code that runs later maps what it needs again on first touch (a minor fault).
//!
//! The same happens after use: answering the window's first requests maps 13 MB of code
//! again. So once the engine has gone quiet after work that mapped more of its pages
//! (`QuietWatch`), they are handed back again, as desktop programs on other systems trim their
//! working set when idle.
//! An idle engine is not woken for this: the watch starts at a request (`worked`) or, for work
//! that came without one (a scheduled run), at a check once a minute.

use std::path::Path;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// While watching, how often the engine looks whether it has gone quiet.
const QUIET_CHECK: Duration = Duration::from_secs(1);
/// CPU time within one check under which the engine counts as quiet: 1% of a core. Idle, the
/// engine uses microseconds; the desktop app, whose window keeps asking, a few milliseconds.
const QUIET_CPU: Duration = Duration::from_millis(10);
/// Growth of the process's file-backed pages since the last hand-back that makes another worth
/// it. Work that maps nothing new (a window asking the same thing again) hands nothing back, so
/// pages in steady use are not dropped and mapped again every second.
const WORTH_HANDING_BACK_KB: u64 = 1024;
/// How often an engine no request reached looks whether it worked anyway.
const BACKGROUND_CHECK: Duration = Duration::from_secs(60);

/// Set by every request the gateway answers; wakes the watch.
static WORKED: Notify = Notify::const_new();

/// Marks that the engine is working (a request came in), so its pages are handed back once it
/// goes quiet again.
pub fn worked() {
    WORKED.notify_one();
}

/// The process at one moment: its CPU time so far and its mapped file pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reading {
    cpu: Duration,
    file_kb: u64,
}

impl Reading {
    fn now() -> Option<Self> {
        Some(Self {
            cpu: process_cpu_time()?,
            file_kb: mapped_file_kb()?,
        })
    }
}

/// What one check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    /// Still working: look again.
    Working,
    /// Quiet, with pages mapped since the last hand-back: hand them back.
    HandBack,
    /// Quiet, and too little mapped since the last hand-back to be worth another.
    Quiet,
}

/// Decides, one check at a time, when the engine hands its pages back: at the first quiet check
/// after work mapped more of them.
#[derive(Debug)]
struct QuietWatch {
    cpu_at_last_check: Duration,
    file_kb_after_hand_back: u64,
}

impl QuietWatch {
    /// Watching from `after`, the process just after its pages were handed back.
    fn new(after: Reading) -> Self {
        Self {
            cpu_at_last_check: after.cpu,
            file_kb_after_hand_back: after.file_kb,
        }
    }

    /// The pages were handed back; `after` is read after, so the hand-back's own work is not
    /// counted.
    fn handed_back(&mut self, after: Reading) {
        *self = Self::new(after);
    }

    /// What a check finds.
    fn check(&mut self, now: Reading) -> Check {
        let quiet = now.cpu.saturating_sub(self.cpu_at_last_check) < QUIET_CPU;
        self.cpu_at_last_check = now.cpu;
        if !quiet {
            Check::Working
        } else if now.file_kb >= self.file_kb_after_hand_back + WORTH_HANDING_BACK_KB {
            Check::HandBack
        } else {
            Check::Quiet
        }
    }
}

/// Hands back the binary's pages and the allocator's free memory; then, until `shutdown`,
/// again whenever the engine goes quiet after work that mapped more of them.
pub async fn hand_back_now_and_when_quiet(shutdown: CancellationToken) {
    hand_back().await;
    let Some(after) = Reading::now() else {
        return;
    };
    let mut watch = QuietWatch::new(after);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = WORKED.notified() => {}
            () = tokio::time::sleep(BACKGROUND_CHECK) => {}
        }
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(QUIET_CHECK) => {}
            }
            let Some(now) = Reading::now() else {
                return;
            };
            match watch.check(now) {
                Check::Working => {}
                Check::HandBack => {
                    hand_back().await;
                    if let Some(after) = Reading::now() {
                        watch.handed_back(after);
                    }
                    break;
                }
                Check::Quiet => break,
            }
        }
    }
}

/// Off the async workers: reading `smaps` and trimming the arenas take up to a few
/// milliseconds in a process with many mappings, which a request waiting on a worker would feel.
async fn hand_back() {
    let returned = tokio::task::spawn_blocking(|| {
        crate::heap::return_free_pages();
        return_binary_pages()
    })
    .await
    .unwrap_or(0);
    tracing::debug!(returned, "the binary's pages handed back");
}

/// The process's resident file-backed pages (`RssFile` in `/proc/self/status`), in kB.
fn mapped_file_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    rss_file_kb(&status)
}

fn rss_file_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|line| line.strip_prefix("RssFile:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()
}

/// The CPU time the whole process has used (every thread, user and system).
fn process_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    #[allow(unsafe_code)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
        // SAFETY: getrusage writes a whole `rusage` into the pointer it is given and returns 0,
        // or returns -1 and writes nothing, in which case the value is never read.
        let usage = unsafe {
            if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
                return None;
            }
            usage.assume_init()
        };
        let time = |t: libc::timeval| {
            Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
                + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
        };
        Some(time(usage.ru_utime) + time(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// A part of the binary's address space, `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// Unmaps the binary's never-written pages; returns the bytes of address space advised. Linux
/// only; elsewhere nothing is done.
pub fn return_binary_pages() -> usize {
    #[cfg(target_os = "linux")]
    {
        let Ok(binary) = std::fs::read_link("/proc/self/exe") else {
            return 0;
        };
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
            return 0;
        };
        let spans = droppable(&smaps, &binary);
        spans.iter().map(|span| drop_span(*span)).sum()
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn drop_span(span: Span) -> usize {
    let len = span.end - span.start;
    // SAFETY: `span` is a whole private, read-only mapping of the binary file holding no page of
    // the process's own (`droppable`), so MADV_DONTNEED only removes page-table entries: the next
    // access reads the very same bytes from the file again. Nothing in the engine makes such a
    // mapping writable, so it cannot gain a page of its own between the check and this call.
    let advised =
        unsafe { libc::madvise(span.start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
    if advised == 0 { len } else { 0 }
}

/// The mappings of `binary` in `smaps` (the text of `/proc/self/smaps`) that can be dropped:
/// readable, not writable, private, and with no anonymous page. A read-only mapping with
/// anonymous pages is one the loader wrote before making it read-only (the relocated pointers);
/// those pages exist nowhere else, so it is kept, as is every writable mapping.
fn droppable(smaps: &str, binary: &Path) -> Vec<Span> {
    let binary = binary.to_string_lossy();
    let mut found = Vec::new();
    // A mapping that qualifies so far, waiting for its `Anonymous:` line.
    let mut candidate = None;
    for line in smaps.lines() {
        if let Some((span, perms, path)) = mapping_header(line) {
            let read_only_private = perms.starts_with('r')
                && perms.as_bytes().get(1) == Some(&b'-')
                && perms.ends_with('p');
            candidate = (read_only_private && path == binary).then_some(span);
        } else if let Some(anonymous) = line.strip_prefix("Anonymous:")
            && let Some(span) = candidate.take()
            && anonymous.trim() == "0 kB"
        {
            found.push(span);
        }
    }
    found
}

/// `start-end perms offset dev inode path` as the span, the permissions and the path (empty for
/// anonymous memory); `None` for a field line such as `Rss:   4 kB`.
fn mapping_header(line: &str) -> Option<(Span, &str, &str)> {
    let mut fields = line.splitn(6, ' ');
    let (start, end) = fields.next()?.split_once('-')?;
    let span = Span {
        start: usize::from_str_radix(start, 16).ok()?,
        end: usize::from_str_radix(end, 16).ok()?,
    };
    let perms = fields.next()?;
    // offset, device and inode.
    for _ in 0..3 {
        fields.next()?;
    }
    Some((span, perms, fields.next().unwrap_or("").trim_start()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
55e1a2fc2000-55e1a3c6b000 r--p 00000000 fe:00 5327532                    /opt/sentient/sentient
Rss:                3968 kB
Anonymous:             0 kB
55e1a3c6b000-55e1a50fd000 r-xp 00ca8000 fe:00 5327532                    /opt/sentient/sentient
Rss:               14992 kB
Anonymous:             0 kB
55e1a50fd000-55e1a5336000 r--p 02139000 fe:00 5327532                    /opt/sentient/sentient
Rss:                2256 kB
Anonymous:          2256 kB
55e1a5336000-55e1a5340000 rw-p 02372000 fe:00 5327532                    /opt/sentient/sentient
Rss:                  40 kB
Anonymous:             0 kB
7f4e1e2f9000-7f4e1e44f000 r-xp 00026000 fe:00 326279                     /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                1176 kB
Anonymous:             0 kB
7f4e08000000-7f4e0849b000 rw-p 00000000 00:00 0 
Rss:                 984 kB
Anonymous:           984 kB
7f4e1e600000-7f4e1e700000 r--s 00000000 fe:00 5327532                    /opt/sentient/sentient
Rss:                   4 kB
Anonymous:             0 kB
";

    #[test]
    fn only_the_binarys_never_written_private_mappings_are_dropped() {
        let spans = droppable(SMAPS, Path::new("/opt/sentient/sentient"));
        assert_eq!(
            spans,
            vec![
                Span {
                    start: 0x55e1a2fc2000,
                    end: 0x55e1a3c6b000
                },
                Span {
                    start: 0x55e1a3c6b000,
                    end: 0x55e1a50fd000
                },
            ],
            "the read-only data and the code; not the relocated pointers (anonymous pages), the \
             writable data, a shared mapping, a library or anonymous memory"
        );
        assert!(droppable(SMAPS, Path::new("/usr/bin/other")).is_empty());
    }

    #[test]
    fn a_header_without_a_path_is_anonymous_memory() {
        let (span, perms, path) =
            mapping_header("7f4e08000000-7f4e0849b000 rw-p 00000000 00:00 0 ").expect("a header");
        assert_eq!((span.end - span.start, perms, path), (0x49b000, "rw-p", ""));
        assert!(mapping_header("Rss:                 984 kB").is_none());
        assert!(mapping_header("VmFlags: rd ex mr mw me dw sd").is_none());
    }

    #[test]
    fn pages_go_back_at_the_first_quiet_check_after_work_mapped_more_of_them() {
        let at = |ms: u64, file_kb: u64| Reading {
            cpu: Duration::from_millis(ms),
            file_kb,
        };
        let mut watch = QuietWatch::new(at(100, 4_000));
        // (CPU ms so far, file pages kB, what the check finds, why); None: handed back then.
        let steps = [
            (101, 4_000, Some(Check::Quiet), "nothing new mapped"),
            (150, 9_000, Some(Check::Working), "49 ms in this check"),
            (180, 17_000, Some(Check::Working), "still working"),
            (
                181,
                17_000,
                Some(Check::HandBack),
                "quiet, 13 MB more mapped",
            ),
            (183, 4_200, None, "the hand-back's own work is not counted"),
            (
                185,
                4_400,
                Some(Check::Quiet),
                "a window asking again maps little",
            ),
            (
                191,
                5_300,
                Some(Check::HandBack),
                "6 ms is quiet; 1.1 MB more",
            ),
            (192, 4_300, None, "handed back"),
            (
                203,
                9_000,
                Some(Check::Working),
                "11 ms in one check is work",
            ),
            (204, 9_000, Some(Check::HandBack), "then quiet"),
        ];
        for (ms, file_kb, expected, why) in steps {
            match expected {
                Some(expected) => assert_eq!(watch.check(at(ms, file_kb)), expected, "{why}"),
                None => watch.handed_back(at(ms, file_kb)),
            }
        }
    }

    #[test]
    fn the_file_pages_are_read_from_the_status_file() {
        let status = "Name:\tsentient\nVmRSS:\t   10240 kB\nRssAnon:\t    6144 kB\nRssFile:\t    3968 kB\nRssShmem:\t     128 kB\n";
        assert_eq!(rss_file_kb(status), Some(3968));
        assert_eq!(rss_file_kb("Name:\tsentient\n"), None);
        assert!(
            mapped_file_kb().is_some_and(|kb| kb > 0),
            "this process maps its binary"
        );
    }

    #[test]
    fn the_process_cpu_time_grows_with_work() {
        let before = process_cpu_time().expect("getrusage");
        // Work until 20 ms of CPU time show, however busy the machine is; bounded by the clock.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut spin = 0u64;
        let mut now = before;
        while now < before + Duration::from_millis(20) && std::time::Instant::now() < deadline {
            for _ in 0..100_000 {
                spin = std::hint::black_box(spin.wrapping_add(1));
            }
            now = process_cpu_time().expect("getrusage");
        }
        assert!(
            now >= before + Duration::from_millis(20),
            "{before:?} to {now:?}"
        );
    }

    /// The running test binary's own pages: mapped before, fewer after, and the code still runs.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_running_binarys_pages_are_handed_back_and_come_back_on_use() {
        fn mapped_kb() -> u64 {
            let binary = std::fs::read_link("/proc/self/exe").expect("exe");
            let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
            let spans = droppable(&smaps, &binary);
            let mut total = 0;
            let mut counting = false;
            for line in smaps.lines() {
                if let Some((span, _, _)) = mapping_header(line) {
                    counting = spans.contains(&span);
                } else if counting && let Some(rss) = line.strip_prefix("Rss:") {
                    total += rss
                        .trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .expect("kB");
                }
            }
            total
        }
        let before = mapped_kb();
        assert!(before > 0, "the test binary's code is mapped while it runs");
        assert!(
            return_binary_pages() > 0,
            "its code and read-only data are advised"
        );
        let after = mapped_kb();
        assert!(
            after < before,
            "fewer of the binary's pages are mapped after ({after} kB, was {before} kB)"
        );
        // Code and constants come back from the file as they are used.
        assert_eq!(format!("{:?}", SMAPS.lines().count()), "21");
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let binary = std::fs::read_link("/proc/self/exe").expect("exe");
        assert!(
            !droppable(&smaps, &binary).is_empty(),
            "the dropped code runs again: it still finds the binary's mappings"
        );
    }
}
