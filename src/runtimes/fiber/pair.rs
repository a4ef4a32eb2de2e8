//! Seed 004's `csloop`: the bare switch primitive measured without any scheduler.

use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::stack::FiberStack;
use super::{arch, uctx, Backend};

/// Two bare contexts (the caller's and a partner on its own guard-paged stack) that switch back and forth with a
/// back-end's raw primitive and no scheduler: seed 004's `csloop`, the "pure context switch time" row.
///
/// The partner is an endless loop that immediately switches back; one round trip is two switches. Not `Send`:
/// the partner context belongs to the creating thread.
pub struct SwitchPair {
    imp: Imp,
}

enum Imp {
    /// States are raw pointers from `Box::into_raw` (freed in `Drop`): the suspended partner holds a pointer to
    /// them too, which a `Box` reborrow on every `round_trips` would formally invalidate.
    Asm {
        state: *mut AsmState,
        _stack: FiberStack,
    },
    Ucontext {
        state: *mut UcState,
        _stack: FiberStack,
    },
    Corosensei {
        co: Coroutine<(), (), (), FiberStack>,
    },
}

struct AsmState {
    main_sp: usize,
    partner_sp: usize,
}

/// Boxed: glibc contexts point into themselves and must not move.
struct UcState {
    main: uctx::Context,
    partner: uctx::Context,
}

// Both contexts run the same loop function, so every switch is called from the same instruction and its `ret` on
// the other stack lands exactly where the return-stack buffer predicts (the symmetric-switch analogue of a
// matched call/return). With different call sites each `ret` would be a guaranteed misprediction.

/// `n` switches from this context (saved in `*from`) to the partner whose saved sp is `to`; returns the partner's
/// sp at its last suspension. The partner's sp travels in a register (the value `switch` returns), not through
/// memory, so no switch waits on a store-to-load forward of the other side's sp (corosensei does the same).
///
/// # Safety
/// `from` must point into a live pair state; `to` must be the partner's current saved sp, the partner suspended in
/// this same loop (or not yet started).
#[inline(never)]
unsafe fn asm_loop(from: *mut usize, mut to: usize, n: u64) -> usize {
    for _ in 0..n {
        to = arch::switch(from, to);
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

unsafe extern "C" fn asm_partner(arg: *mut u8) -> ! {
    let st = arg.cast::<AsmState>();
    // Started by main's first switch, which saved main's sp just before; afterwards every switch hands it over.
    let mut main_sp = (*st).main_sp;
    loop {
        main_sp = asm_loop(&raw mut (*st).partner_sp, main_sp, u64::MAX);
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
                let state = Box::into_raw(Box::new(AsmState { main_sp: 0, partner_sp: 0 }));
                // SAFETY: the stack is ours and idle; `state` is freed only in Drop, so it outlives the partner.
                unsafe { (*state).partner_sp = arch::init_stack(stack.top(), asm_partner, state.cast()) };
                Imp::Asm { state, _stack: stack }
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
            Imp::Asm { state, .. } => {
                let st = *state;
                // SAFETY: the partner is suspended in `asm_loop` (or not yet started) on its own live stack.
                unsafe { (*st).partner_sp = asm_loop(&raw mut (*st).main_sp, (*st).partner_sp, n) };
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
            // SAFETY: from Box::into_raw in `new`; the partner never runs again.
            Imp::Asm { state, .. } => drop(unsafe { Box::from_raw(*state) }),
            // SAFETY: as above.
            Imp::Ucontext { state, .. } => drop(unsafe { Box::from_raw(*state) }),
            // SAFETY: the closure captures nothing, so skipping corosensei's forced unwind leaks nothing.
            Imp::Corosensei { co } => unsafe { co.force_reset() },
        }
    }
}
