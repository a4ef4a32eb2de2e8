//! Fresh memory for one measurement, first touched by a thread pinned to a chosen CPU: Linux places an
//! anonymous page on the NUMA node of the CPU that first writes it, and the first write also leaves its
//! lines in that CPU's caches. So a cache-line ping-pong between CPUs `a` and `b` on a page `a` touched
//! involves no third core's cache and no third node's memory (Ben-Asher & Feitelson 1991 §3: every variable "in the
//! memory of" a chosen processor; core-to-core-latency allocates per pair the same way).

use std::io;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

use overhead_machine::pin_current_thread;

/// Bytes between the lines handed out by [`FirstTouchPage::line`]: two 64-byte lines, so that the
/// adjacent-line prefetcher of x86 cores (which fetches 128-byte pairs) never couples two of them; the
/// same spacing as `crossbeam_utils::CachePadded` on x86-64.
pub const LINE_STRIDE: usize = 128;

/// What a point whose shared line sits on a [`FirstTouchPage`] (`mem.contention`, `mem.mix`) reports beside
/// its median (its `extra`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FirstTouchResult {
    /// The CPU that first touched the page, so the node whose memory holds it.
    pub first_touch_cpu: f64,
}

/// An anonymous private mapping of whole pages, every page written first by a thread pinned to one CPU.
/// Unmapped on drop. Shared between threads only through the atomics [`FirstTouchPage::line`] hands out.
#[derive(Debug)]
pub struct FirstTouchPage {
    ptr: NonNull<u8>,
    len: usize,
    /// The CPU the touching thread ran on when it wrote the pages (from `sched_getcpu`).
    touched_on: usize,
}

// SAFETY: the mapping is plain memory owned by this value; other threads reach it only through `&AtomicU64`
// (line), whose accesses are atomic, or through raw pointers whose users promise the same.
unsafe impl Send for FirstTouchPage {}
// SAFETY: as for Send: no method hands out a non-atomic reference.
unsafe impl Sync for FirstTouchPage {}

impl FirstTouchPage {
    /// Maps at least `bytes` (whole pages, at least one) and writes every page from a thread pinned to
    /// `cpu`, which then exits.
    ///
    /// Errors: the mapping failed (`mmap`'s error), or the kernel refused to pin the touching thread to
    /// `cpu` (then nothing is mapped: a page placed by an unpinned thread is not what was asked for).
    pub fn on_cpu(cpu: usize, bytes: usize) -> io::Result<FirstTouchPage> {
        let page = page_size();
        let len = bytes.max(1).div_ceil(page) * page;
        // SAFETY: an anonymous private mapping with no address hint; the result is checked for MAP_FAILED.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(raw.cast::<u8>()).expect("mmap returned null without MAP_FAILED");
        let mut mapping = FirstTouchPage { ptr, len, touched_on: usize::MAX };
        let address = ptr.as_ptr() as usize;
        let touched = std::thread::scope(|s| {
            s.spawn(move || -> io::Result<usize> {
                pin_current_thread(cpu).map_err(|e| io::Error::other(format!("CPU {cpu} not pinned: {e}")))?;
                for offset in (0..len).step_by(page) {
                    // SAFETY: `offset < len`, inside the mapping made above, which nothing else uses yet;
                    // a volatile write so that the first touch happens here, on this CPU.
                    unsafe { std::ptr::write_volatile((address + offset) as *mut u8, 0) };
                }
                Ok(current_cpu())
            })
            .join()
            .expect("first-touch thread panicked")
        })?;
        mapping.touched_on = touched;
        Ok(mapping)
    }

    /// The CPU that wrote the pages first.
    pub fn touched_on(&self) -> usize {
        self.touched_on
    }

    /// Length of the mapping in bytes (whole pages, at least one).
    pub fn bytes(&self) -> usize {
        self.len
    }

    /// How many lines [`FirstTouchPage::line`] can hand out.
    pub fn lines(&self) -> usize {
        self.len / LINE_STRIDE
    }

    /// The 8-byte word at the start of line `index` (`index × LINE_STRIDE` bytes in), as an atomic.
    ///
    /// Panics if `index ≥ self.lines()`.
    pub fn line(&self, index: usize) -> &AtomicU64 {
        assert!(index < self.lines(), "line {index} of a {}-line mapping", self.lines());
        // SAFETY: the offset is inside the mapping (checked above), page-aligned plus a multiple of 128, so
        // aligned for AtomicU64; the memory lives as long as `&self` and is only ever accessed atomically.
        unsafe { &*self.ptr.as_ptr().add(index * LINE_STRIDE).cast::<AtomicU64>() }
    }

    /// The start of the mapping, for experiments that walk it with their own (volatile or atomic)
    /// accesses.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The NUMA node the kernel placed the first page on (`move_pages(2)` asked with no target nodes).
    ///
    /// Errors: the kernel has no NUMA support (`ENOSYS`) or refused the query.
    pub fn numa_node(&self) -> Result<usize, String> {
        let mut pages = [self.ptr.as_ptr().cast::<libc::c_void>()];
        let mut status = [-1 as libc::c_int];
        // SAFETY: move_pages(pid 0 = this process, 1 page, its address, nodes NULL = only report, status
        // out, flags 0) reads `pages` and writes `status`, both arrays of one element that outlive the call.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0,
                1usize,
                pages.as_mut_ptr(),
                std::ptr::null::<libc::c_int>(),
                status.as_mut_ptr(),
                0,
            )
        };
        if rc != 0 {
            return Err(format!("move_pages: {}", io::Error::last_os_error()));
        }
        usize::try_from(status[0]).map_err(|_| format!("move_pages: page status {}", status[0]))
    }
}

impl Drop for FirstTouchPage {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `on_cpu`; no reference into it outlives `self`.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// The page size (bytes).
fn page_size() -> usize {
    // SAFETY: sysconf only reads a system constant.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
}

/// The CPU the calling thread runs on.
pub fn current_cpu() -> usize {
    // SAFETY: sched_getcpu takes no arguments and only reads which CPU the caller runs on.
    let cpu = unsafe { libc::sched_getcpu() };
    usize::try_from(cpu).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::*;
    use overhead_machine::{allowed_cpus, Topology};

    #[test]
    fn the_first_touch_is_on_the_intended_cpu_and_node() {
        let topology = Topology::detect();
        for cpu in allowed_cpus().into_iter().take(4) {
            let page = FirstTouchPage::on_cpu(cpu, 1).unwrap();
            assert_eq!(page.touched_on(), cpu, "the touching thread ran where it was pinned");
            assert_eq!(page.bytes() % page_size(), 0);
            match page.numa_node() {
                Ok(node) => {
                    assert_eq!(Some(node), topology.cpu(cpu).map(|c| c.numa_node), "page of CPU {cpu}")
                }
                // A kernel without NUMA support cannot say; the touch above still happened on `cpu`.
                Err(e) => assert!(e.contains("move_pages"), "{e}"),
            }
        }
    }

    #[test]
    fn lines_are_apart_zeroed_and_bounded() {
        let page = FirstTouchPage::on_cpu(allowed_cpus()[0], 1).unwrap();
        assert_eq!(page.lines(), page.bytes() / LINE_STRIDE);
        let (a, b) = (page.line(0), page.line(1));
        assert_eq!(b as *const _ as usize - a as *const _ as usize, LINE_STRIDE);
        assert_eq!(a.load(Ordering::Relaxed), 0);
        b.store(7, Ordering::Relaxed);
        assert_eq!((a.load(Ordering::Relaxed), b.load(Ordering::Relaxed)), (0, 7));
        let past = std::panic::catch_unwind(|| page.line(page.lines()).load(Ordering::Relaxed));
        assert!(past.is_err(), "a line past the mapping must panic, not read outside it");
    }

    #[test]
    fn a_refused_pinning_maps_nothing() {
        let err = FirstTouchPage::on_cpu(overhead_machine::MAX_CPU_INDEX + 1, 1).unwrap_err();
        assert!(err.to_string().contains("not pinned"), "{err}");
    }
}
