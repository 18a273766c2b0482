//! Handing freed heap memory back to the system.

/// glibc keeps freed memory in each thread's arena for later; after start-up's burst (mostly
/// the routes' OpenAPI parts, freed once the router is built) that is megabytes an idle engine
/// never reuses. `malloc_trim` gives the free pages of every arena back. Elsewhere a no-op.
pub fn return_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim only releases pages the allocator holds as free; no live allocation
    // is touched, and it is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
