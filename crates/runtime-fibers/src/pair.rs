//! Souvatzis's `csloop`: the bare switch primitive measured without any scheduler.

use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::stack::FiberStack;
use super::{arch, uctx, Backend};

/// Two bare contexts (the caller's and a partner on its own guard-paged stack) that switch back and forth with a
/// back-end's raw primitive and no scheduler: Souvatzis's `csloop`, the "pure context switch time" row.
///
/// The partner is an endless loop that immediately switches back; one round trip is two switches. Not `Send`:
/// the partner context belongs to the creating thread.
pub struct SwitchPair {
    imp: Imp,
}

enum Imp {
    Asm {
        /// The partner's sp while it is suspended between `round_trips` calls.
        partner_sp: usize,
        _stack: FiberStack,
    },
    /// The state is a raw pointer from `Box::into_raw` (freed in `Drop`): the suspended partner holds a pointer to
    /// it too, which a `Box` reborrow on every `round_trips` would formally invalidate.
    Ucontext { state: *mut UcState, _stack: FiberStack },
    /// Resumed and suspended with `()`: corosensei passes every value through memory (its encoded value is a
    /// pointer to the value on the sender's stack), so handing the count over as `asm_loop` does would put a
    /// store-to-load forward on its round trip; the count stays in the resuming loop instead (measured: 2.5 ns per
    /// round trip with the count handed over against 1.9 ns without, on an AMD EPYC (Zen 4) KVM guest).
    Corosensei { co: Coroutine<(), (), (), FiberStack> },
}

/// Boxed: glibc contexts point into themselves and must not move.
struct UcState {
    main: uctx::Context,
    partner: uctx::Context,
}

// Both contexts run the same loop function, so every switch is called from the same instruction and its `ret` on
// the other stack lands exactly where the return-stack buffer predicts (the symmetric-switch analogue of a
// matched call/return). With different call sites each `ret` would be a guaranteed misprediction.

/// `n` round trips from this context to the partner whose sp is `to` and back; returns the partner's sp at its
/// last suspension. Nothing the loop needs is kept in memory across a switch: each side's sp travels in a register
/// (the value `switch` hands over) and so does the count of round trips left, which the partner hands back
/// unchanged. A count kept on the stack instead would put a store-to-load forward on the loop-carried path of
/// every round trip, and the loop would time that forward as much as the switch (1.83 ns against 1.62 ns per round
/// trip on an AMD EPYC (Zen 4) KVM guest). Each back-end's loop is written in the form fastest for it: see
/// `Imp::Corosensei` for why corosensei's keeps its count in the loop.
///
/// # Safety
/// `to` must be the partner's sp as last handed over, the partner suspended in `asm_partner` (or not yet started).
#[inline(never)]
unsafe fn asm_loop(mut to: usize, n: u64) -> usize {
    let mut left = n;
    while left != 0 {
        let back = arch::switch(to, left as usize);
        to = back.sp;
        left = back.word as u64 - 1;
    }
    to
}

/// # Safety
/// As for `asm_loop`.
#[inline(never)]
unsafe fn uc_loop(from: *mut uctx::Context, to: *const uctx::Context, n: u64) {
    for _ in 0..n {
        uctx::switch(from, to);
    }
}

/// The partner's entry: started by main's first switch, which hands over main's sp and its count; every switch
/// back hands the count back unchanged.
unsafe extern "C" fn asm_partner(_arg: *mut u8, mut main_sp: usize, mut word: usize) -> ! {
    loop {
        let back = arch::switch(main_sp, word);
        main_sp = back.sp;
        word = back.word;
    }
}

unsafe extern "C" fn uc_partner(arg: *mut u8) -> ! {
    let st = arg.cast::<UcState>();
    loop {
        uc_loop(&raw mut (*st).partner, &raw const (*st).main, u64::MAX);
    }
}

impl SwitchPair {
    /// Creates the partner context for `backend`, mapping its stack ([`STACK_SIZE`](super::STACK_SIZE) plus a guard
    /// page). Errors: the `mmap` failure, or `Unsupported` if the back-end is unavailable on this target.
    pub fn new(backend: Backend) -> std::io::Result<SwitchPair> {
        backend.available().map_err(|why| std::io::Error::new(std::io::ErrorKind::Unsupported, why))?;
        let stack = FiberStack::new()?;
        let imp = match backend {
            Backend::Asm => {
                // SAFETY: the stack is ours and idle; the partner needs no state of its own.
                let partner_sp = unsafe { arch::init_stack(stack.top(), asm_partner, std::ptr::null_mut()) };
                Imp::Asm { partner_sp, _stack: stack }
            }
            Backend::Ucontext => {
                let state = Box::into_raw(Box::new(UcState { main: uctx::zeroed(), partner: uctx::zeroed() }));
                // SAFETY: the heap context never moves and the stack is kept alive next to it in `Imp`.
                unsafe { uctx::make(&raw mut (*state).partner, &stack, uc_partner, state.cast()) };
                Imp::Ucontext { state, _stack: stack }
            }
            Backend::Corosensei => Imp::Corosensei {
                co: Coroutine::with_stack(stack, |y: &Yielder<(), ()>, ()| loop {
                    y.suspend(());
                }),
            },
        };
        Ok(SwitchPair { imp })
    }

    /// Performs `n` round trips: switch to the partner and back, `n` times (`2 * n` switches). The back-end is
    /// dispatched once per call, so the loop itself is monomorphic.
    pub fn round_trips(&mut self, n: u64) {
        match &mut self.imp {
            Imp::Asm { partner_sp, .. } => {
                // SAFETY: the partner is suspended in `asm_loop` (or not yet started) on its own live stack.
                *partner_sp = unsafe { asm_loop(*partner_sp, n) };
            }
            Imp::Ucontext { state, .. } => {
                let st = *state;
                // SAFETY: as for asm; both contexts are on the heap and never move.
                unsafe { uc_loop(&raw mut (*st).main, &raw const (*st).partner, n) };
            }
            Imp::Corosensei { co } => {
                for _ in 0..n {
                    match co.resume(()) {
                        CoroutineResult::Yield(()) => {}
                        CoroutineResult::Return(()) => unreachable!("csloop partner never returns"),
                    }
                }
            }
        }
    }
}

impl Drop for SwitchPair {
    fn drop(&mut self) {
        // The partner is abandoned mid-loop: its frame owns nothing with a destructor, so freeing its state and
        // unmapping its stack (the `_stack` field, dropped after this) is all the cleanup needed.
        match &mut self.imp {
            Imp::Asm { .. } => {}
            // SAFETY: from Box::into_raw in `new`; the partner never runs again.
            Imp::Ucontext { state, .. } => drop(unsafe { Box::from_raw(*state) }),
            // SAFETY: the closure captures nothing, so skipping corosensei's forced unwind leaks nothing.
            Imp::Corosensei { co } => unsafe { co.force_reset() },
        }
    }
}
