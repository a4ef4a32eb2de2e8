//! The `asm` back-end: a hand-written context switch, the analogue of SR's per-architecture assembler routines.
//!
//! A suspended context is just a stack pointer. `switch(from, to)` is an ordinary `extern "C"` call, so the compiler
//! already spills every caller-saved register around it; the routine pushes the callee-saved state the psABI
//! requires a callee to preserve, stores the stack pointer in `*from`, loads `to`, pops the other context's state and
//! `ret`s on the other stack. Entering by `call` and leaving by `ret` keeps the return-stack buffer balanced (no
//! `pop; jmp *reg`), and when both sides switch from the same call site (the usual case: two fibers yielding in a
//! loop, `SwitchPair`) the `ret` target is exactly what the RSB predicts.
//!
//! Floating-point control state is saved too: the x86-64 System V psABI (§3.2.1, "The control bits of the MXCSR
//! register are callee-saved, while the status bits are caller-saved"; likewise the x87 control word) and AAPCS64
//! (FPCR fields are preserved across calls) make rounding mode and exception masks part of the state a callee
//! must preserve, so a fiber that changes its rounding mode must not change its neighbours'. On x86-64 the state
//! is saved on every switch but only reloaded when the incoming context's differs (see the routine): `stmxcsr`
//! alone costs ~4 ns on the AMD EPYC this was measured on, about as much as the rest of the switch, and
//! `ldmxcsr`/`fldcw` would add more. That cost is the price of ABI correctness; `corosensei` does not pay it.

#[cfg(target_arch = "x86_64")]
mod imp {
    // SAFETY (whole block): both routines only touch the stack they are given and the registers listed in the
    // module comment; they are reached solely through `switch` and `init_stack` below, whose contracts guarantee
    // that `to` is a context built by `init_stack` or saved by a previous `switch`.
    core::arch::global_asm!(
        ".pushsection .text.overhead_fiber_switch,\"ax\",@progbits",
        ".globl overhead_fiber_switch",
        ".hidden overhead_fiber_switch",
        ".type overhead_fiber_switch,@function",
        ".p2align 4",
        "overhead_fiber_switch:",
        // rdi = &mut from_sp, rsi = to_sp; the return address into the caller is already on our stack.
        "push rbp",
        "push rbx",
        "push r12",
        "push r13",
        "push r14",
        "push r15",
        "sub rsp, 8",
        "stmxcsr dword ptr [rsp]",
        "fnstcw word ptr [rsp + 4]",
        "mov qword ptr [rdi], rsp",
        "mov eax, dword ptr [rsp]",
        "movzx r8d, word ptr [rsp + 4]",
        "mov rsp, rsi",
        // ldmxcsr/fldcw cost more than the rest of the switch together, so they run only when the incoming
        // context's control state differs from the outgoing one (a predictable branch; usually equal). Compared:
        // MXCSR control bits 6..15 and the whole x87 control word; the MXCSR status flags (bits 0..5) are
        // caller-saved, so carrying the outgoing context's flags over is allowed. The outgoing values are reloaded
        // with loads of the same width as the stores so store-to-load forwarding works (one 8-byte load over the
        // two stores measured 7 ns more per round trip on AMD EPYC). Labels avoid 0/1-only names, which LLVM's
        // Intel-syntax parser can read as binary literals.
        "mov ecx, dword ptr [rsp]",
        "xor ecx, eax",
        "test ecx, 0xFFC0",
        "jnz 2f",
        "cmp r8w, word ptr [rsp + 4]",
        "jne 2f",
        "3:",
        "add rsp, 8",
        "pop r15",
        "pop r14",
        "pop r13",
        "pop r12",
        "pop rbx",
        "pop rbp",
        "ret",
        "2:",
        "ldmxcsr dword ptr [rsp]",
        "fldcw word ptr [rsp + 4]",
        "jmp 3b",
        ".size overhead_fiber_switch, .-overhead_fiber_switch",
        ".popsection",
        // First activation of a context: `switch` "returns" here with r12 = argument, r13 = entry function.
        ".pushsection .text.overhead_fiber_start,\"ax\",@progbits",
        ".globl overhead_fiber_start",
        ".hidden overhead_fiber_start",
        ".type overhead_fiber_start,@function",
        ".p2align 4",
        "overhead_fiber_start:",
        ".cfi_startproc",
        // Backtraces and unwinders stop here instead of walking into the zeroed stack top.
        ".cfi_undefined rip",
        "mov rdi, r12",
        "call r13",
        "ud2",
        ".cfi_endproc",
        ".size overhead_fiber_start, .-overhead_fiber_start",
        ".popsection",
    );

    extern "C" {
        fn overhead_fiber_switch(from: *mut usize, to: usize);
        fn overhead_fiber_start();
    }

    /// Bytes `overhead_fiber_switch` keeps on a suspended stack: MXCSR/x87 CW slot, r15..r12, rbx, rbp, return.
    const FRAME: usize = 8 * 8;

    /// # Safety
    /// `from` must be writable; `to` must come from `init_stack` or a previous `switch` and its context must not
    /// be running. Returns when some other context switches back to the one saved in `*from`.
    #[inline(always)]
    pub(crate) unsafe fn switch(from: *mut usize, to: usize) {
        overhead_fiber_switch(from, to)
    }

    /// Builds the initial frame of a context whose first activation calls `entry(arg)` on the stack below `top`.
    ///
    /// # Safety
    /// `[top - 96, top)` must be writable memory owned by the caller, `top` 16-byte aligned.
    pub(crate) unsafe fn init_stack(top: usize, entry: unsafe extern "C" fn(*mut u8) -> !, arg: *mut u8) -> usize {
        // 16 zero bytes at the very top act as a null frame record for frame-pointer walkers.
        let sp = top - 16 - FRAME;
        let words = sp as *mut usize;
        // Fresh fibers start with the psABI default control state (round-to-nearest, all exceptions masked,
        // x87 double-extended precision), whatever the creator was using.
        let cw: usize = 0x1F80 | (0x037F << 32);
        let init = [cw, 0, 0, entry as usize, arg as usize, 0, 0, overhead_fiber_start as *const () as usize, 0, 0];
        for (i, w) in init.iter().enumerate() {
            words.add(i).write(*w);
        }
        sp
    }
}

#[cfg(target_arch = "aarch64")]
mod imp {
    // SAFETY (whole block): as for x86-64; the routines touch only the given stacks and the AAPCS64 callee-saved
    // state (x19-x29, lr, sp, d8-d15, FPCR).
    core::arch::global_asm!(
        ".pushsection .text.overhead_fiber_switch,\"ax\",%progbits",
        ".globl overhead_fiber_switch",
        ".hidden overhead_fiber_switch",
        ".type overhead_fiber_switch,%function",
        ".p2align 4",
        "overhead_fiber_switch:",
        // x0 = &mut from_sp, x1 = to_sp, x30 = return address (entered by `bl`, left by `ret`: paired for the RSB).
        "sub sp, sp, #176",
        "stp x19, x20, [sp, #0]",
        "stp x21, x22, [sp, #16]",
        "stp x23, x24, [sp, #32]",
        "stp x25, x26, [sp, #48]",
        "stp x27, x28, [sp, #64]",
        "stp x29, x30, [sp, #80]",
        "stp d8, d9, [sp, #96]",
        "stp d10, d11, [sp, #112]",
        "stp d12, d13, [sp, #128]",
        "stp d14, d15, [sp, #144]",
        "mrs x9, fpcr",
        "str x9, [sp, #160]",
        "mov x9, sp",
        "str x9, [x0]",
        "mov sp, x1",
        "ldp x19, x20, [sp, #0]",
        "ldp x21, x22, [sp, #16]",
        "ldp x23, x24, [sp, #32]",
        "ldp x25, x26, [sp, #48]",
        "ldp x27, x28, [sp, #64]",
        "ldp x29, x30, [sp, #80]",
        "ldp d8, d9, [sp, #96]",
        "ldp d10, d11, [sp, #112]",
        "ldp d12, d13, [sp, #128]",
        "ldp d14, d15, [sp, #144]",
        "ldr x9, [sp, #160]",
        "msr fpcr, x9",
        "add sp, sp, #176",
        "ret",
        ".size overhead_fiber_switch, .-overhead_fiber_switch",
        ".popsection",
        ".pushsection .text.overhead_fiber_start,\"ax\",%progbits",
        ".globl overhead_fiber_start",
        ".hidden overhead_fiber_start",
        ".type overhead_fiber_start,%function",
        ".p2align 4",
        "overhead_fiber_start:",
        ".cfi_startproc",
        ".cfi_undefined x30",
        "mov x0, x19",
        "blr x20",
        "brk #1",
        ".cfi_endproc",
        ".size overhead_fiber_start, .-overhead_fiber_start",
        ".popsection",
    );

    extern "C" {
        fn overhead_fiber_switch(from: *mut usize, to: usize);
        fn overhead_fiber_start();
    }

    const FRAME: usize = 176;

    /// # Safety
    /// As for x86-64: `to` must be a suspended context from `init_stack` or `switch`.
    #[inline(always)]
    pub(crate) unsafe fn switch(from: *mut usize, to: usize) {
        overhead_fiber_switch(from, to)
    }

    /// # Safety
    /// `[top - 192, top)` must be writable memory owned by the caller, `top` 16-byte aligned.
    pub(crate) unsafe fn init_stack(top: usize, entry: unsafe extern "C" fn(*mut u8) -> !, arg: *mut u8) -> usize {
        let sp = top - 16 - FRAME;
        let words = sp as *mut usize;
        for i in 0..(FRAME + 16) / 8 {
            words.add(i).write(0);
        }
        words.write(arg as usize); // x19
        words.add(1).write(entry as usize); // x20
        words.add(11).write(overhead_fiber_start as *const () as usize); // x30; x29 (slot 10) stays 0 to end frame chains
                                                                         // FPCR slot (20) stays 0: round-to-nearest, no traps, the AAPCS64 default.
        sp
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    /// # Safety
    /// Never called: `Backend::Asm.available()` is `Err` on this architecture and `run` checks it first.
    pub(crate) unsafe fn switch(_from: *mut usize, _to: usize) {
        unreachable!("asm back-end is not available on this architecture")
    }

    /// # Safety
    /// Never called, see `switch`.
    pub(crate) unsafe fn init_stack(_top: usize, _entry: unsafe extern "C" fn(*mut u8) -> !, _arg: *mut u8) -> usize {
        unreachable!("asm back-end is not available on this architecture")
    }
}

pub(crate) use imp::{init_stack, switch};

/// Whether this architecture has a hand-written switch.
pub(crate) const AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));
