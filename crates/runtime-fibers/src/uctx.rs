//! The `ucontext` back-end: glibc `getcontext`/`makecontext`/`swapcontext`, Souvatzis's "SVR4 system calls" column.
//!
//! glibc's `swapcontext` saves and restores the signal mask with an `rt_sigprocmask` system call on every switch;
//! that kernel round trip is exactly the cost the study measured, so it is deliberately not avoided. It also saves
//! the x87 environment (`fnstenv`) and MXCSR in the context's `fpregs`, so floating-point control state is per
//! context, like the `asm` back-end.

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod imp {
    use super::super::stack::FiberStack;

    /// A saved machine context. Boxed by its owners: glibc's `uc_mcontext.fpregs` points into the struct itself,
    /// so it must not move after `getcontext`.
    pub type Context = libc::ucontext_t;

    /// An all-zero context; only meaningful as the `from` side of a switch or after `make`.
    pub fn zeroed() -> Context {
        // SAFETY: ucontext_t is plain old data (integers, arrays and raw pointers); all-zero is a valid value.
        unsafe { std::mem::zeroed() }
    }

    /// Prepares `ctx` to call `entry(arg)` on `stack` when first switched to.
    ///
    /// # Safety
    /// `ctx` must not move afterwards and must not be running; `stack` must outlive every use of `ctx`.
    pub unsafe fn make(ctx: *mut Context, stack: &FiberStack, entry: unsafe extern "C" fn(*mut u8) -> !, arg: *mut u8) {
        if libc::getcontext(ctx) != 0 {
            panic!("getcontext failed: {}", std::io::Error::last_os_error());
        }
        (*ctx).uc_stack.ss_sp = stack.bottom() as *mut libc::c_void;
        (*ctx).uc_stack.ss_size = stack.top() - stack.bottom();
        (*ctx).uc_stack.ss_flags = 0;
        // Entry functions never return (they switch away), so no successor context is needed.
        (*ctx).uc_link = std::ptr::null_mut();
        // makecontext only promises to pass `int` arguments, so the entry and argument pointers are split into
        // 32-bit halves and reassembled in the trampoline.
        let e = entry as usize as u64;
        let a = arg as usize as u64;
        // SAFETY: trampoline has the C ABI and takes exactly the four ints announced by argc = 4; transmuting to
        // the untyped `extern "C" fn()` is how makecontext is specified to be used.
        let f: extern "C" fn() = std::mem::transmute::<extern "C" fn(u32, u32, u32, u32), extern "C" fn()>(trampoline);
        libc::makecontext(ctx, f, 4, e as u32, (e >> 32) as u32, a as u32, (a >> 32) as u32);
    }

    extern "C" fn trampoline(e_lo: u32, e_hi: u32, a_lo: u32, a_hi: u32) {
        let e = (e_lo as u64 | ((e_hi as u64) << 32)) as usize;
        let a = (a_lo as u64 | ((a_hi as u64) << 32)) as usize;
        // SAFETY: `make` split exactly these two pointers; `e` is an `unsafe extern "C" fn(*mut u8) -> !`.
        unsafe {
            let entry: unsafe extern "C" fn(*mut u8) -> ! =
                std::mem::transmute::<usize, unsafe extern "C" fn(*mut u8) -> !>(e);
            entry(a as *mut u8)
        }
    }

    /// # Safety
    /// `from` writable and not moved while suspended; `to` a context prepared by `make` or saved by `switch`
    /// that is not running.
    #[inline(always)]
    pub unsafe fn switch(from: *mut Context, to: *const Context) {
        if libc::swapcontext(from, to) != 0 {
            // Only fails for invalid arguments, which would be a runtime bug; continuing would corrupt state.
            std::process::abort();
        }
    }

    /// Sets the FP control state a prepared context starts with (x86-64: the MXCSR control bits and x87 control
    /// word glibc's `getcontext` stored in `fpregs`; elsewhere a no-op, so fibers start with the creator's state).
    ///
    /// # Safety
    /// `ctx` must have been prepared by `make` and not moved since (its `fpregs` points into itself).
    pub unsafe fn set_fp(ctx: *mut Context, fp: super::super::arch::FpControl) {
        #[cfg(target_arch = "x86_64")]
        {
            let regs = (*ctx).uc_mcontext.fpregs;
            (*regs).mxcsr = ((*regs).mxcsr & 0x3F) | (fp as u32 & !0x3F);
            (*regs).cwd = (fp >> 32) as u16;
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (ctx, fp);
    }

    pub const AVAILABLE: Result<(), &str> = Ok(());
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod imp {
    use super::super::stack::FiberStack;

    /// Placeholder so the scheduler compiles; never used because `available()` is `Err`.
    pub type Context = ();

    pub fn zeroed() -> Context {}

    /// # Safety
    /// Never called.
    pub unsafe fn make(_: *mut Context, _: &FiberStack, _: unsafe extern "C" fn(*mut u8) -> !, _: *mut u8) {
        unreachable!("ucontext back-end is not available on this target")
    }

    /// # Safety
    /// Never called.
    pub unsafe fn switch(_: *mut Context, _: *const Context) {
        unreachable!("ucontext back-end is not available on this target")
    }

    /// # Safety
    /// Never called.
    pub unsafe fn set_fp(_: *mut Context, _: super::super::arch::FpControl) {
        unreachable!("ucontext back-end is not available on this target")
    }

    pub const AVAILABLE: Result<(), &str> = Err("ucontext back-end needs glibc's getcontext/makecontext/swapcontext");
}

pub use imp::{make, set_fp, switch, zeroed, Context, AVAILABLE};
