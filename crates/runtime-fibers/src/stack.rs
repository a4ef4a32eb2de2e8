//! Fiber stacks: one anonymous mapping per stack with a `PROT_NONE` guard page at its low end, so running off the
//! bottom faults (SIGSEGV) instead of silently overwriting a neighbouring allocation.

use std::cell::Cell;
use std::io;
use std::ptr::NonNull;

use super::STACK_SIZE;

thread_local! {
    /// Stack mappings created by this thread; lets tests and benchmarks prove that a warm pool never maps.
    static MMAPS: Cell<u64> = const { Cell::new(0) };
}

/// Number of stack mappings (`mmap` calls) this thread has made so far.
pub fn mmap_count() -> u64 {
    MMAPS.with(Cell::get)
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions; _SC_PAGESIZE is always supported on Linux.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p <= 0 {
        4096
    } else {
        p as usize
    }
}

/// An owned `mmap`ed stack: `[base, base + guard)` is `PROT_NONE`, `[base + guard, base + len)` is usable.
pub struct FiberStack {
    base: NonNull<u8>,
    len: usize,
    guard: usize,
}

impl FiberStack {
    /// Maps `STACK_SIZE` usable bytes plus one guard page.
    pub fn new() -> io::Result<FiberStack> {
        let guard = page_size();
        let usable = STACK_SIZE.div_ceil(guard) * guard;
        let len = usable + guard;
        // SAFETY: anonymous private mapping with no address hint; the kernel picks a fresh range that aliases
        // nothing. MAP_NORESERVE because most of a fiber stack is never touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        MMAPS.with(|c| c.set(c.get() + 1));
        // SAFETY: `p` is the start of the mapping we own; protecting its first page changes no Rust-visible memory.
        if unsafe { libc::mprotect(p, guard, libc::PROT_NONE) } != 0 {
            let e = io::Error::last_os_error();
            // SAFETY: unmapping the mapping created above, which nothing else references yet.
            unsafe { libc::munmap(p, len) };
            return Err(e);
        }
        Ok(FiberStack { base: NonNull::new(p.cast()).expect("mmap returned null"), len, guard })
    }

    /// Highest address (exclusive), 16-byte aligned because the mapping is page aligned: where the stack starts.
    pub fn top(&self) -> usize {
        self.base.as_ptr() as usize + self.len
    }

    /// Lowest usable address (just above the guard page).
    pub fn bottom(&self) -> usize {
        self.base.as_ptr() as usize + self.guard
    }

    /// Lowest address of the whole mapping, guard page included.
    pub fn limit(&self) -> usize {
        self.base.as_ptr() as usize
    }
}

impl Drop for FiberStack {
    fn drop(&mut self) {
        // SAFETY: we own the mapping; whoever dropped us guarantees no context is still running on it.
        unsafe { libc::munmap(self.base.as_ptr().cast(), self.len) };
    }
}

// SAFETY: base() and limit() bound a mapping we own exclusively for the stack's lifetime; both are page aligned
// and therefore STACK_ALIGNMENT (16) aligned; limit() includes the guard page as the trait requires.
unsafe impl corosensei::stack::Stack for FiberStack {
    fn base(&self) -> corosensei::stack::StackPointer {
        corosensei::stack::StackPointer::new(self.top()).expect("stack top is non-zero")
    }

    fn limit(&self) -> corosensei::stack::StackPointer {
        corosensei::stack::StackPointer::new(self.limit()).expect("stack limit is non-zero")
    }
}
