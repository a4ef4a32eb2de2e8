//! The `asm` back-end: a hand-written context switch, the analogue of SR's per-architecture assembler routines.
//!
//! A suspended context is just a stack pointer, and the switch never stores it: `switch(to, word)` suspends the
//! running context on its own stack, resumes `to`, and hands the suspended context's sp and one payload word to
//! the resumed one in registers, as the [`Transfer`] its own `switch` call returns (Boost.Context's `jump_fcontext`
//! and `transfer_t`; corosensei also hands the sp over, but its values travel through memory). The resumed side
//! records the sp wherever it belongs: the fiber scheduler hands the address of the suspending fiber's sp slot
//! over as the word and the resumed side stores into it (`fiber::asm_switch`); the `SwitchPair` ping-pong keeps
//! it in a register and hands its loop count over as the word. A fresh context receives both as its entry
//! function's second and third arguments.
//!
//! # x86-64: inline switch
//! `switch(to)` is an `asm!` block inlined at every switch site. It pushes rbp and rbx (the two callee-saved
//! registers that cannot be named as clobbers: LLVM reserves them) and the address where this context resumes (a
//! label at the end of the block), copies rsp to rax (the hand-off), loads `to` into rsp, pops the incoming
//! context's resume address and jumps there; the incoming context pops its rbx and rbp and leaves *its* block with
//! our sp in rax. Every other callee-saved GPR (r12-r15) and all caller-saved state (`clobber_abi("C")`: the other
//! GPRs, all vector, mask, MMX and x87 registers, flags) is declared clobbered, so the compiler spills only what is
//! live at that site, usually much less than a full callee-saved frame. Memory is not `nomem`, so values in memory
//! that another fiber may change are reloaded after the switch. Eleven instructions, three stores (the pushes).
//!
//! Branch prediction: the switch executes no `call` and no `ret`, so it leaves the return-stack buffer exactly as
//! the program's own calls and returns left it: every return the program executes stays paired with its call in
//! the RSB, in every context. The transfer itself is one indirect `jmp`, predicted by the indirect-branch
//! predictor (at a given switch site the target is usually the same resume label, as in `SwitchPair` or fibers
//! yielding in a loop). This replaced a `call`/`ret` pair per switch (a `call` into a 3-instruction routine whose
//! `ret` landed on the other stack): same prediction in the common case, but two taken branches per switch
//! instead of one. A bare `push label; ret` switch was never an option: it pops RSB entries it never pushed and
//! mispredicts every time.
//!
//! Why hand sp and word over in registers: a round trip is only about seven core cycles, and anything a loop
//! carries through memory across a switch (a saved sp read back by the other side, a counter spilled and reloaded)
//! adds a store-to-load forward to that loop-carried path. On an AMD EPYC (Zen 4, KVM) guest
//! the raw round trip (`SwitchPair`, control loop subtracted) was 1.5-2.7 ns with the sp stored into `*from`
//! (depending on build layout), 1.83 ns with the hand-off and the loop count kept on the stack, and 1.62-1.79 ns
//! with the count handed over as the word; corosensei, whose values always travel through memory, 1.9-2.6 ns.
//!
//! A fresh context (`init_stack`) holds the address of `overhead_fiber_start` where a suspended one holds its
//! resume address, followed by the entry function and its argument; `start` passes the handed-over sp as the
//! entry's second argument, clears rbp, aligns the stack and calls the entry, which never returns.
//!
//! # Floating-point control state (MXCSR and x87 control word; FPCR on aarch64)
//! Rust and LLVM assume the default floating-point environment (round-to-nearest, all exceptions masked), so code
//! that changes it by hand is outside Rust's FP model. The run time therefore makes the per-fiber FP environment
//! explicit: `fiber::set_fp_control` sets the register *and* records the value in the running fiber's control
//! block, and on every switch the scheduler compares the outgoing and incoming contexts' recorded values (two
//! ordinary loads) and executes `ldmxcsr`/`fldcw` (`msr fpcr`) only when they differ, which they normally do not.
//! The switch itself never reads or writes the FP control registers: `stmxcsr` alone cost ~4 ns per switch on the
//! AMD EPYC this was measured on, more than the whole switch now costs. A change made any other way (a raw
//! `ldmxcsr`, `fesetround` through FFI) is not recorded and therefore not preserved: it stays in the register for
//! whichever context runs next until a switch between contexts with different recorded values reloads it.

/// A context's entry function: `entry(arg, prev_sp, word)`, where `prev_sp` and `word` are what the `switch` that
/// started this context handed over (what it would have returned to a suspended context). Never returns.
pub type Entry = unsafe extern "C" fn(*mut u8, usize, usize) -> !;

/// What a `switch` hands to the context it resumes: the sp the switching context suspended at, and one word of
/// payload (Boost.Context's `transfer_t`). `repr(C)` so the aarch64 routine returns it in x0/x1.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Transfer {
    /// The suspended context's stack pointer, to be recorded by whoever will resume it.
    pub sp: usize,
    /// The payload word (0 where the switching side has nothing to say).
    pub word: usize,
}

#[cfg(target_arch = "x86_64")]
mod imp {
    use super::{Entry, Transfer};
    // SAFETY (whole block): `overhead_fiber_start` only reads the frame `init_stack` built; it is reached solely
    // through `switch` below, whose contract guarantees that `to` is a context built by `init_stack` or saved by a
    // previous `switch`.
    core::arch::global_asm!(
        // First activation of a context: `switch` jumps here with rsp pointing at [entry, arg], the suspended
        // context's sp in rax and the handed-over word in rdi: entry(arg, sp, word).
        ".pushsection .text.overhead_fiber_start,\"ax\",@progbits",
        ".globl overhead_fiber_start",
        ".hidden overhead_fiber_start",
        ".type overhead_fiber_start,@function",
        ".p2align 4",
        "overhead_fiber_start:",
        ".cfi_startproc",
        // Backtraces and unwinders stop here instead of walking into the zeroed stack top.
        ".cfi_undefined rip",
        "mov rdx, rdi",
        "mov rsi, rax",
        "mov rax, qword ptr [rsp]",
        "mov rdi, qword ptr [rsp + 8]",
        "xor ebp, ebp",
        "and rsp, -16",
        "call rax",
        "ud2",
        ".cfi_endproc",
        ".size overhead_fiber_start, .-overhead_fiber_start",
        ".popsection",
    );

    extern "C" {
        fn overhead_fiber_start();
    }

    /// Suspends the running context on its own stack and resumes `to`, handing it `word`. Returns, when some other
    /// context switches back to this one, the stack pointer that other context suspended at and the word it handed
    /// over, so the caller can record the sp where it belongs: Boost.Context's `jump_fcontext` convention, a pure
    /// register hand-off. The switch never stores the suspended context's sp: it travels to the resumed context in
    /// rax, the word in rdi.
    ///
    /// # Safety
    /// `to` must come from `init_stack` or be an sp some `switch` returned, and that context must not be running.
    #[inline(always)]
    pub unsafe fn switch(to: usize, word: usize) -> Transfer {
        let sp: usize;
        let got: usize;
        // SAFETY: see the module comment. rbp, rbx and the resume address are pushed by the block; the incoming
        // context pops its own three words (a fresh one enters `overhead_fiber_start` instead). rcx (scratch for the
        // jump), r12-r15 and, through clobber_abi("C"), every caller-saved register are declared clobbered, because
        // whatever runs until we are resumed may change them; rax and rdi are outputs (what the resumer handed
        // over). The stack is used (no `nostack`), so no red-zone data is live below rsp. Memory may be read and
        // written by other contexts meanwhile (no `nomem`/`readonly`).
        unsafe {
            core::arch::asm!(
                "push rbp",
                "push rbx",
                "lea rax, [rip + 2f]",
                "push rax",
                "mov rax, rsp",
                "mov rsp, rsi",
                "pop rcx",
                "jmp rcx",
                "2:",
                "pop rbx",
                "pop rbp",
                in("rsi") to,
                inlateout("rdi") word => got,
                lateout("rax") sp,
                out("r12") _,
                out("r13") _,
                out("r14") _,
                out("r15") _,
                clobber_abi("C"),
            )
        };
        Transfer { sp, word: got }
    }

    /// Builds the initial frame of a context whose first activation calls `entry(arg)` on the stack below `top`.
    ///
    /// # Safety
    /// `[top - 48, top)` must be writable memory owned by the caller, `top` 16-byte aligned.
    pub unsafe fn init_stack(top: usize, entry: Entry, arg: *mut u8) -> usize {
        // 16 zero bytes at the very top act as a null frame record for frame-pointer walkers; below them the
        // "return address" `swap` pops, then entry and argument for `overhead_fiber_start`.
        let sp = top - 48;
        let init = [overhead_fiber_start as *const () as usize, entry as usize, arg as usize, 0, 0, 0];
        let words = sp as *mut usize;
        for (i, w) in init.iter().enumerate() {
            words.add(i).write(*w);
        }
        sp
    }

    /// The FP control state in the form the scheduler records: MXCSR control bits (status flags 0..5 cleared) in
    /// the low half, x87 control word in bits 32..48.
    pub type FpControl = u64;

    /// Packs MXCSR and the x87 control word; the MXCSR status flags are caller-saved state and not recorded.
    #[inline]
    pub fn fp_pack(mxcsr: u32, x87_cw: u16) -> FpControl {
        u64::from(mxcsr & !0x3F) | (u64::from(x87_cw) << 32)
    }

    /// Reads the thread's current FP control state.
    pub fn fp_read() -> FpControl {
        let mut m: u32 = 0;
        let mut cw: u16 = 0;
        // SAFETY: stmxcsr / fnstcw write 4 and 2 bytes to live locals and change nothing else.
        unsafe {
            core::arch::asm!(
                "stmxcsr [{m}]",
                "fnstcw [{cw}]",
                m = in(reg) &mut m,
                cw = in(reg) &mut cw,
                options(nostack, preserves_flags)
            )
        };
        fp_pack(m, cw)
    }

    /// Loads a recorded FP control state into MXCSR and the x87 control word.
    ///
    /// # Safety
    /// Changes the floating-point environment: see `fiber::set_fp_control`.
    #[inline]
    pub unsafe fn fp_load(v: FpControl) {
        let m = v as u32;
        let cw = (v >> 32) as u16;
        // SAFETY: ldmxcsr / fldcw read 4 and 2 bytes from live locals; the values came from `fp_pack`, so no
        // reserved MXCSR bit is set (that would fault). The caller owns the FP-environment consequences.
        unsafe {
            core::arch::asm!(
                "ldmxcsr [{m}]",
                "fldcw [{cw}]",
                m = in(reg) &m,
                cw = in(reg) &cw,
                options(nostack, preserves_flags, readonly)
            )
        };
    }
}

#[cfg(target_arch = "aarch64")]
mod imp {
    use super::{Entry, Transfer};
    // SAFETY (whole block): as for x86-64; the routines touch only the given stacks and the AAPCS64 callee-saved
    // state (x19-x29, lr, sp, d8-d15). FPCR is not touched: it is handled by the scheduler like MXCSR on x86-64.
    // (This is still the out-of-line routine that saves every callee-saved register; only x86-64 was rewritten.)
    core::arch::global_asm!(
        ".pushsection .text.overhead_fiber_switch,\"ax\",%progbits",
        ".globl overhead_fiber_switch",
        ".hidden overhead_fiber_switch",
        ".type overhead_fiber_switch,%function",
        ".p2align 4",
        "overhead_fiber_switch:",
        // x0 = to_sp, x1 = word, x30 = return address (entered by `bl`, left by `ret`: paired for the RSB). The
        // resumed context returns {x0: our sp, x1: the word}, x1 untouched on the way.
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
        // x9 keeps the suspended context's sp; the resumed context returns it below (the hand-off).
        "mov x9, sp",
        "mov sp, x0",
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
        "add sp, sp, #176",
        "mov x0, x9",
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
        // x0 holds the suspended context's sp and x1 the handed-over word: entry(arg, sp, word).
        "mov x2, x1",
        "mov x1, x0",
        "mov x0, x19",
        "blr x20",
        "brk #1",
        ".cfi_endproc",
        ".size overhead_fiber_start, .-overhead_fiber_start",
        ".popsection",
    );

    extern "C" {
        fn overhead_fiber_switch(to: usize, word: usize) -> Transfer;
        fn overhead_fiber_start();
    }

    const FRAME: usize = 176;

    /// # Safety
    /// As for x86-64: `to` must be a suspended context from `init_stack` or an sp some `switch` returned.
    /// Returns the sp of the context that switched back to this one and the word it handed over (the switch stores
    /// nothing).
    #[inline(always)]
    pub unsafe fn switch(to: usize, word: usize) -> Transfer {
        overhead_fiber_switch(to, word)
    }

    /// # Safety
    /// `[top - 192, top)` must be writable memory owned by the caller, `top` 16-byte aligned.
    pub unsafe fn init_stack(top: usize, entry: Entry, arg: *mut u8) -> usize {
        let sp = top - 16 - FRAME;
        let words = sp as *mut usize;
        for i in 0..(FRAME + 16) / 8 {
            words.add(i).write(0);
        }
        words.write(arg as usize); // x19
        words.add(1).write(entry as usize); // x20
                                            // x30; x29 (slot 10) stays 0 to end frame chains. Slots 20-21 are padding (16-byte alignment).
        words.add(11).write(overhead_fiber_start as *const () as usize);
        sp
    }

    /// The FP control state as the scheduler records it: the FPCR value.
    pub type FpControl = u64;

    /// Reads FPCR.
    pub fn fp_read() -> FpControl {
        let v: u64;
        // SAFETY: reading FPCR has no side effects.
        unsafe { core::arch::asm!("mrs {}, fpcr", out(reg) v, options(nomem, nostack, preserves_flags)) };
        v
    }

    /// Loads a recorded FPCR value.
    ///
    /// # Safety
    /// Changes the floating-point environment: see `fiber::set_fp_control`.
    #[inline]
    pub unsafe fn fp_load(v: FpControl) {
        // SAFETY: writes FPCR only; the caller owns the FP-environment consequences.
        unsafe { core::arch::asm!("msr fpcr, {}", in(reg) v, options(nomem, nostack, preserves_flags)) };
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    use super::{Entry, Transfer};
    /// # Safety
    /// Never called: `Backend::Asm.available()` is `Err` on this architecture and `run` checks it first.
    pub unsafe fn switch(_to: usize, _word: usize) -> Transfer {
        unreachable!("asm back-end is not available on this architecture")
    }

    /// # Safety
    /// Never called, see `switch`.
    pub unsafe fn init_stack(_top: usize, _entry: Entry, _arg: *mut u8) -> usize {
        unreachable!("asm back-end is not available on this architecture")
    }

    /// No FP control state is tracked on this architecture.
    pub type FpControl = u64;

    pub fn fp_read() -> FpControl {
        0
    }

    /// # Safety
    /// Nothing to load; kept for the common interface.
    pub unsafe fn fp_load(_v: FpControl) {}
}

#[cfg(target_arch = "x86_64")]
pub use imp::fp_pack;
pub use imp::{fp_load, fp_read, init_stack, switch, FpControl};

/// Switches from the running context to `to` like `switch`, first loading `to_fp` into the FP control registers
/// if it differs from `from_fp` (the recorded states of the outgoing and incoming contexts, see the module
/// comment). The load happens on the outgoing stack just before the switch; no FP code runs in between.
///
/// # Safety
/// As for `switch`; `from_fp` must be the state currently in the registers (as recorded) and `to_fp` the incoming
/// context's recorded state.
#[inline(always)]
pub unsafe fn switch_fp(to: usize, word: usize, from_fp: FpControl, to_fp: FpControl) -> Transfer {
    if from_fp != to_fp {
        fp_load(to_fp);
    }
    switch(to, word)
}

/// Whether this architecture has a hand-written switch.
pub const AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));
