//! Restartable sequences (rseq, Linux 4.18): the thread's rseq area that glibc registers (2.35 and later),
//! its `cpu_id`, and a per-CPU counter increment as an rseq critical section (x86-64).
//!
//! The critical section follows the kernel's ABI (include/uapi/linux/rseq.h, and the selftests' rseq-x86.h
//! that librseq grew from): a descriptor `struct rseq_cs` (start, length, abort address) stored into the
//! area's `rseq_cs` before the section; the section reads `cpu_id` and ends in one committing instruction;
//! when the thread is preempted, migrated or signalled inside it, the kernel moves it to the abort address,
//! which must follow the 4-byte signature glibc registered (`RSEQ_SIG`, 0x53053053 on x86), and the abort
//! handler counts the abort and starts again. No crate on crates.io offers this on stable Rust.

use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;

/// The kernel's `struct rseq`, as far as it is read here.
#[repr(C)]
pub struct RseqArea {
    /// `cpu_id_start`.
    pub cpu_id_start: u32,
    /// The CPU the thread runs on (≥ 0 once registered; −1 not yet, −2 registration failed).
    pub cpu_id: u32,
    /// The critical section's descriptor, set by user space.
    pub rseq_cs: u64,
}

/// glibc's `__rseq_offset` (from the thread pointer to the area) when glibc registered an area for every
/// thread, found at run time (the symbols live in ld.so and exist from glibc 2.35 on).
fn rseq_offset() -> Option<isize> {
    static OFFSET: OnceLock<Option<isize>> = OnceLock::new();
    *OFFSET.get_or_init(|| {
        // SAFETY: dlsym with RTLD_DEFAULT and NUL-terminated names; the symbols, when present, are a `ptrdiff_t`
        // and an `unsigned int` that glibc sets before main and never changes.
        unsafe {
            let offset = libc::dlsym(libc::RTLD_DEFAULT, c"__rseq_offset".as_ptr()) as *const isize;
            let size = libc::dlsym(libc::RTLD_DEFAULT, c"__rseq_size".as_ptr()) as *const u32;
            // The area must hold cpu_id and rseq_cs (16 bytes); glibc 2.35+ says 20 or 32.
            (!offset.is_null() && !size.is_null() && *size >= 16).then(|| *offset)
        }
    })
}

/// This thread's rseq area, if glibc registered one and the kernel accepted it.
#[cfg(target_arch = "x86_64")]
pub fn area() -> Option<*mut RseqArea> {
    let offset = rseq_offset()?;
    let thread_pointer: usize;
    // SAFETY: on x86-64 Linux the word at %fs:0 is the thread control block's pointer to itself (the thread
    // pointer); reading it has no side effects.
    unsafe {
        std::arch::asm!("mov {}, qword ptr fs:[0]", out(reg) thread_pointer, options(nostack, readonly, preserves_flags))
    };
    let area = (thread_pointer as isize + offset) as *mut RseqArea;
    // SAFETY: glibc placed this thread's registered area there; cpu_id is a u32 the kernel updates.
    let cpu = unsafe { std::ptr::read_volatile(&(*area).cpu_id) } as i32;
    (cpu >= 0).then_some(area)
}

/// No rseq support on this architecture here.
#[cfg(not(target_arch = "x86_64"))]
pub fn area() -> Option<*mut RseqArea> {
    None
}

/// The CPU this thread runs on, read from its rseq area (what glibc's `sched_getcpu` reads too since 2.35).
///
/// # Safety
/// `area` is this thread's own area, from [`area`] on this thread.
#[inline(always)]
pub unsafe fn cpu_id(area: *const RseqArea) -> u32 {
    // SAFETY: per the contract, a live area of this thread; the kernel writes cpu_id on return to user space.
    unsafe { std::ptr::read_volatile(&(*area).cpu_id) }
}

/// Bytes between two CPUs' counters of [`increment`]: two 64-byte lines, so neighbours share no line or
/// prefetched pair.
pub const SLOT_STRIDE: usize = 128;

/// One CPU's counter: alone on [`SLOT_STRIDE`] bytes.
#[repr(C, align(128))]
#[derive(Default)]
pub struct Slot(pub AtomicU64);

const _: () = assert!(std::mem::size_of::<Slot>() == SLOT_STRIDE);

#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".pushsection .text.overhead_rseq_percpu_inc,\"ax\",@progbits",
    ".globl overhead_rseq_percpu_inc",
    ".type overhead_rseq_percpu_inc,@function",
    ".p2align 4",
    // rdi: the rseq area; rsi: the slots; rdx: the abort counter. Clobbers rax.
    "overhead_rseq_percpu_inc:",
    "2:",
    "  leaq 5f(%rip), %rax",
    "  movq %rax, 8(%rdi)",
    "3:",
    "  movl 4(%rdi), %eax",
    "  shlq $7, %rax",
    "  addq $1, (%rsi,%rax)",
    "4:",
    "  ret",
    // RSEQ_SIG right before the abort address, inside an instruction (ud1) that disassembles cleanly.
    "  .byte 0x0f, 0xb9, 0x3d",
    "  .long 0x53053053",
    "6:",
    "  lock incq (%rdx)",
    "  jmp 2b",
    ".size overhead_rseq_percpu_inc, .-overhead_rseq_percpu_inc",
    ".popsection",
    ".pushsection .data.rel.ro.overhead_rseq_cs,\"aw\",@progbits",
    ".balign 32",
    // struct rseq_cs { u32 version; u32 flags; u64 start_ip; u64 post_commit_offset; u64 abort_ip; }
    "5:",
    "  .long 0, 0",
    "  .quad 3b, 4b - 3b, 6b",
    ".popsection",
    options(att_syntax)
);

#[cfg(target_arch = "x86_64")]
extern "C" {
    fn overhead_rseq_percpu_inc(area: *mut RseqArea, slots: *const Slot, aborts: *const AtomicU64);
}

/// Adds 1 to the slot of the CPU this thread runs on, as one rseq critical section: no atomic instruction,
/// and no update lost to a migration or a preemption between reading the CPU and the add (the kernel
/// restarts the section; each restart adds 1 to `aborts`).
///
/// # Safety
/// `area` is this thread's own registered area ([`area`] on this thread); `slots` has a slot for every CPU id
/// the kernel may report (the machine's possible CPUs).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn increment(area: *mut RseqArea, slots: &[Slot], aborts: &AtomicU64) {
    // SAFETY: per the contract; the function touches only the area's rseq_cs, the slot at cpu_id and
    // `aborts`, and follows the SysV calling convention.
    unsafe { overhead_rseq_percpu_inc(area, slots.as_ptr(), aborts) }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    /// The CPU ids the kernel may report here: every possible CPU (sysconf's configured count).
    fn possible_cpus() -> usize {
        // SAFETY: sysconf has no preconditions.
        (unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) }).max(1) as usize
    }

    #[test]
    fn the_area_gives_the_cpu_sched_getcpu_gives() {
        let Some(area) = area() else { return };
        for _ in 0..100 {
            // SAFETY: this thread's area.
            let ours = unsafe { cpu_id(area) } as i32;
            // SAFETY: sched_getcpu has no preconditions.
            let libc_cpu = unsafe { libc::sched_getcpu() };
            // A migration between the two reads may differ once; most reads agree.
            if ours == libc_cpu {
                return;
            }
        }
        panic!("the rseq area's cpu_id never matched sched_getcpu");
    }

    extern "C" fn ignore(_: libc::c_int) {}

    /// Threads that outnumber the CPUs, move themselves between CPUs every few hundred increments and are
    /// interrupted by signals all the while (a signal inside a section restarts it, as a preemption does)
    /// lose no update: the slots sum to every increment made, and sections were restarted. A section that
    /// read the CPU outside its range, committed in two instructions or restarted past its add would miss or
    /// double some here.
    #[test]
    fn no_update_is_lost_under_migrations_and_restarts() {
        if area().is_none() {
            return;
        }
        // SAFETY: a handler that does nothing, for a signal nothing else in this test binary uses.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = ignore as *const () as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigaction(libc::SIGUSR2, &action, std::ptr::null_mut());
        }
        // A machine too quiet to cut a section in one pass (one CPU, few preemptions) gets more passes.
        let mut restarts = 0;
        for pass in 1..=4 {
            restarts += one_pass(pass);
            if restarts > 0 {
                break;
            }
        }
        assert!(restarts > 0, "no section was restarted: the test did not reach the abort path");
    }

    /// One pass of [`no_update_is_lost_under_migrations_and_restarts`]: `pass` times the base workload; the
    /// sections it restarted.
    fn one_pass(pass: u64) -> u64 {
        let cpus = overhead_machine::allowed_cpus();
        let slots: Arc<Vec<Slot>> = Arc::new((0..possible_cpus()).map(|_| Slot::default()).collect());
        let aborts = Arc::new(AtomicU64::new(0));
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (threads, per_thread) = (2 * cpus.len() + 2, 20_000_000u64 * pass);
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (slots, aborts, cpus, tid_tx) = (slots.clone(), aborts.clone(), cpus.clone(), tid_tx.clone());
                std::thread::spawn(move || {
                    // SAFETY: gettid has no preconditions.
                    tid_tx.send(unsafe { libc::gettid() }).unwrap();
                    let area = area().expect("every thread is registered");
                    for i in 0..per_thread {
                        if i % 100_000 == 0 {
                            let cpu = cpus[(t + (i / 100_000) as usize) % cpus.len()];
                            let _ = overhead_machine::pin_current_thread(cpu);
                        }
                        // SAFETY: this thread's area; a slot for every possible CPU.
                        unsafe { increment(area, &slots, &aborts) };
                    }
                })
            })
            .collect();
        let tids: Vec<libc::pid_t> = (0..threads).map(|_| tid_rx.recv().unwrap()).collect();
        let interrupter = {
            let done = done.clone();
            std::thread::spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    for &tid in &tids {
                        // SAFETY: tgkill to a thread of this process; a thread that has exited gives ESRCH.
                        unsafe { libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, libc::SIGUSR2) };
                    }
                }
            })
        };
        for h in handles {
            h.join().unwrap();
        }
        done.store(true, Ordering::Relaxed);
        interrupter.join().unwrap();
        let total: u64 = slots.iter().map(|s| s.0.load(Ordering::Relaxed)).sum();
        let restarts = aborts.load(Ordering::Relaxed);
        assert_eq!(total, threads as u64 * per_thread, "{restarts} restarts");
        eprintln!("{total} increments, {restarts} sections restarted");
        restarts
    }
}
