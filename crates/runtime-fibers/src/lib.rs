//! Green threads on one OS thread: a uniprocessor run time in the style of SR/MPD (Souvatzis, Souvatzis, "A
//! machine-independent port of the SR language run time system to NetBSD"), with the context switch implemented
//! three ways so `overhead` can reproduce the study's table of run-time operation costs per switch primitive.
//!
//! # Model
//! [`run`] turns the calling thread into the only processor: `main` becomes the first fiber, more are created with
//! [`spawn`], and the scheduler is a FIFO ready queue. Fibers switch only at blocking points ([`yield_now`],
//! [`JoinHandle::join`], [`Semaphore::p`], [`Channel::recv`], [`Client::call`], [`Server::accept`]); operations that
//! never block ([`Semaphore::v`], [`Channel::send`], [`Reply::reply`], `spawn`) only move fibers onto the ready queue.
//! Every fiber runs on its own `mmap`ed [`STACK_SIZE`] stack with a `PROT_NONE` guard page below it; stacks and
//! fiber control blocks are pooled per thread (and kept across runs), so once warm no hot path maps memory or
//! allocates (spawn allocates the closure's single `Rc` box).
//!
//! # Back-ends ([`Backend`])
//! * `asm`: our own switch (x86-64 System V, AAPCS64). On x86-64 it is an inline `asm!` block that pushes only
//!   rbp/rbx and lets the compiler spill whatever else is live at the switch site; on aarch64 an out-of-line
//!   routine saving the callee-saved registers. Fibers switch directly to each other (symmetric transfer).
//! * `ucontext`: glibc `swapcontext`, one `rt_sigprocmask` system call per switch (the study's "SVR4" column).
//!   Also symmetric.
//! * `corosensei`: the `corosensei` crate's asymmetric coroutines, the peer to beat. A coroutine can only suspend
//!   to whoever resumed it, so every blocking operation goes fiber → scheduler loop → next fiber (two stack
//!   switches where the others use one); that is the price of its model, measured as such.
//!
//! Fiber exit goes through the scheduler's own context (on the thread stack) for all back-ends, because a fiber
//! cannot return its stack to the pool while still running on it.
//!
//! # Floating-point control state (MXCSR and x87 control word / FPCR)
//! Rust and LLVM assume the default floating-point environment (round-to-nearest, all exceptions masked, x87
//! double-extended precision); changing MXCSR, the x87 control word or FPCR by hand is outside Rust's FP model.
//! The per-fiber FP environment is therefore explicit: [`set_fp_control`] sets the hardware register and records
//! the value in the running fiber's control block. Policy, the same for every back-end:
//! * FP control state is per fiber **when set through [`set_fp_control`]**: each fiber sees only the values it set
//!   itself. Every fiber starts with the state the thread had when [`run`] started (normally the default), and
//!   when `run` returns the thread has that state again.
//! * The scheduler keeps it that way cheaply: on a switch it compares the outgoing and incoming contexts' recorded
//!   values (ordinary memory loads, no `stmxcsr`/`fnstcw`/`mrs`) and loads the incoming value only when they
//!   differ. `asm` does that around its own switch; for `corosensei`, whose switch leaves FP control state alone
//!   (thread-wide), the scheduler loop does it around each coroutine resume and after each suspend.
//! * Changing the state any other way (raw `ldmxcsr`/`fldcw`/`msr fpcr`, `fesetround` via FFI) is not recorded,
//!   so it is NOT preserved under `asm` and `corosensei`: it stays in the register and is seen by whichever context
//!   runs next, until a switch between contexts with different recorded values overwrites it. `ucontext` preserves
//!   it anyway, because glibc saves and restores MXCSR and the x87 environment (`fpregs`) on every switch.
//!
//! # Panics and errors
//! A panic in a fiber is caught on that fiber (`catch_unwind` in its entry, so nothing unwinds across a switch) and
//! handed to [`JoinHandle::join`]; a panic in `main` is re-raised by `run`. `run` panics if every remaining fiber
//! is blocked (deadlock: there are no other event sources on a uniprocessor run time), if called inside a fiber,
//! or if the back-end is unavailable. Blocking operations panic outside a run. Stack overflow hits the guard page
//! and kills the process with SIGSEGV (Rust's overflow handler only recognises thread stacks).
#![warn(clippy::undocumented_unsafe_blocks)]

mod arch;
pub mod fan_out;
mod pair;
mod plugin;
mod primitives;
mod stack;
mod sync;
#[cfg(test)]
mod tests;
mod uctx;
mod wake_all;
mod yield_round;

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::rc::Rc;

use corosensei::{Coroutine, CoroutineResult, Yielder};

/// Why a construct that spreads over CPUs has no fiber cell.
const ONE_THREAD: &str = "the fibers share one kernel thread";

pub use pair::SwitchPair;
pub use plugin::{FiberRuntime, FIBER_ASM, FIBER_COROSENSEI, FIBER_UCONTEXT};
pub use sync::{rendezvous, Channel, Client, Reply, Semaphore, Server};

use stack::FiberStack;

/// Usable stack size of every fiber, in bytes, excluding the guard page below it (256 KiB).
pub const STACK_SIZE: usize = 256 * 1024;

/// Fiber control blocks (with their stacks) a thread keeps for later runs; more are unmapped when a run ends.
const POOL_KEEP: usize = 128;

/// Initial ready-queue capacity, so that typical benchmarks never grow it on the hot path.
const READY_CAPACITY: usize = 256;

/// Number of fiber stacks this thread has `mmap`ed so far (all runs, all back-ends, [`SwitchPair`]s included).
///
/// Diagnostic for benchmarks and tests: after a warm-up it must stop growing, proving spawn reuses pooled stacks.
pub fn stack_mmap_count() -> u64 {
    stack::mmap_count()
}

/// A context-switch primitive, the study's three implementations of the SR run time's switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Hand-written switch (inline `asm!` on x86-64, a `global_asm!` routine on aarch64) that hands the suspended
    /// sp and one word over in registers; FP control state is kept per fiber by the scheduler (see `arch`).
    Asm,
    /// glibc `getcontext`/`makecontext`/`swapcontext` (a signal-mask system call per switch); Linux/glibc only.
    Ucontext,
    /// The `corosensei` crate's stackful coroutines (asymmetric: every switch goes through the scheduler loop).
    Corosensei,
}

impl Backend {
    /// Every back-end, in the order of the study's table columns (assembler, then library/system-call based).
    pub const ALL: [Backend; 3] = [Backend::Asm, Backend::Ucontext, Backend::Corosensei];

    /// Short stable name for reports and command lines: `"asm"`, `"ucontext"` or `"corosensei"`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Asm => "asm",
            Backend::Ucontext => "ucontext",
            Backend::Corosensei => "corosensei",
        }
    }

    /// `Ok` if this back-end can run on the current target, otherwise `Err` with a human-readable reason
    /// (e.g. `asm` on an architecture without a hand-written switch, `ucontext` without glibc).
    pub fn available(self) -> Result<(), String> {
        match self {
            Backend::Asm if arch::AVAILABLE => Ok(()),
            Backend::Asm => Err(format!("no hand-written context switch for {}", std::env::consts::ARCH)),
            Backend::Ucontext => uctx::AVAILABLE.map_err(String::from),
            Backend::Corosensei => Ok(()),
        }
    }
}

type Coro = Coroutine<(), (), (), FiberStack>;

/// A fiber control block. Boxed and never moved while in use (ucontext's `fpregs` points into `uc`); recycled
/// through the pool together with its stack.
struct Fiber {
    /// Saved stack pointer (`asm`).
    sp: usize,
    /// FP control state recorded by `set_fp_control` (all back-ends), loaded when this fiber is switched to.
    fp: arch::FpControl,
    /// Saved context (`ucontext`).
    uc: uctx::Context,
    /// The coroutine owning the stack while the fiber lives (`corosensei`); taken by the scheduler while resumed.
    coro: Option<Coro>,
    /// Where a `corosensei` fiber suspends to; valid while its coroutine runs.
    yielder: *const Yielder<(), ()>,
    /// The stack, whenever no coroutine owns it.
    stack: Option<FiberStack>,
    /// What to run; taken on first activation.
    task: Option<Rc<dyn Runnable>>,
    /// The run that spawned it (see `Sched::epoch`).
    epoch: u64,
}

impl Fiber {
    fn new() -> std::io::Result<Box<Fiber>> {
        Ok(Box::new(Fiber {
            sp: 0,
            fp: 0,
            uc: uctx::zeroed(),
            coro: None,
            yielder: ptr::null(),
            stack: Some(FiberStack::new()?),
            task: None,
            epoch: 0,
        }))
    }
}

/// Per-run scheduler state; lives in a `Box` that `SCHED` points to for the duration of `run`. Accessed only
/// through raw pointers and never borrowed across a switch, because other fibers mutate it in between.
struct Sched {
    backend: Backend,
    /// Distinguishes runs on this thread, so a sync object that outlived a deadlocked run cannot wake one of its
    /// leaked fibers into a later run.
    epoch: u64,
    ready: VecDeque<*mut Fiber>,
    /// The running fiber; null while the scheduler loop itself runs.
    current: *mut Fiber,
    /// The scheduler loop's own context (on the thread's stack): `asm` and `ucontext` representations.
    root_sp: usize,
    root_uc: uctx::Context,
    /// The thread's FP control state when `run` started: every fiber's initial state and the scheduler loop's own.
    root_fp: arch::FpControl,
    /// A fiber that has finished and switched to the scheduler, whose stack can be reused now that it is idle.
    zombie: *mut Fiber,
    /// Fibers spawned and not yet finished.
    live: usize,
    /// Boxed because contexts point into their fiber block, which must not move when the pool reallocates.
    #[allow(clippy::vec_box)]
    pool: Vec<Box<Fiber>>,
}

thread_local! {
    static SCHED: Cell<*mut Sched> = const { Cell::new(ptr::null_mut()) };
    static EPOCH: Cell<u64> = const { Cell::new(0) };
    #[allow(clippy::vec_box)] // as in `Sched::pool`
    static POOL: RefCell<Vec<Box<Fiber>>> = const { RefCell::new(Vec::new()) };
}

/// The running scheduler; panics (naming `what`) outside `run`.
#[inline]
fn sched(what: &str) -> *mut Sched {
    let s = SCHED.with(Cell::get);
    if s.is_null() {
        no_run(what);
    }
    s
}

#[cold]
#[inline(never)]
fn no_run(what: &str) -> ! {
    panic!("fiber::{what} called outside fiber::run")
}

/// The running fiber.
///
/// # Safety
/// `s` must be the live scheduler of this thread.
#[inline]
unsafe fn current(s: *mut Sched) -> *mut Fiber {
    let c = (*s).current;
    assert!(!c.is_null(), "fiber: blocking operation outside a fiber");
    c
}

/// Appends a blocked fiber to the ready queue (no switch).
///
/// # Safety
/// `f` must be a live fiber of the running scheduler that is blocked and in no other queue.
#[inline]
unsafe fn make_ready(f: *mut Fiber) {
    let s = sched("wake-up");
    assert!((*f).epoch == (*s).epoch, "fiber: a synchronisation object woke a fiber of an earlier run");
    (*s).ready.push_back(f);
}

/// Gives the processor away. The caller has already recorded the current fiber wherever it will be woken from
/// (ready queue, wait queue) or nowhere if it must not run again. Returns when it is switched back to.
///
/// # Safety
/// `s` must be the live scheduler and the caller a fiber (`current` non-null).
#[inline]
unsafe fn suspend(s: *mut Sched) {
    let cur = (*s).current;
    debug_assert!(!cur.is_null());
    match (*s).backend {
        Backend::Asm => asm_switch_to_next(s, cur),
        Backend::Ucontext => match (*s).ready.pop_front() {
            Some(next) if next == cur => {}
            Some(next) => {
                (*s).current = next;
                uctx::switch(&raw mut (*cur).uc, &raw const (*next).uc);
            }
            None => {
                (*s).current = ptr::null_mut();
                uctx::switch(&raw mut (*cur).uc, &raw const (*s).root_uc);
            }
        },
        Backend::Corosensei => {
            (*(*cur).yielder).suspend(());
        }
    }
}

/// Runs a fiber's task. Panics are contained here so nothing ever unwinds across a switch.
///
/// # Safety
/// `f` must be the running fiber, activated for the first time.
unsafe fn fiber_body(f: *mut Fiber) {
    let task = (*f).task.take().expect("fiber started without a task");
    task.run();
    // Dropping the last reference may drop an unjoined result whose Drop could panic; contain that too.
    if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(task))) {
        std::mem::forget(payload);
    }
    (*sched("exit")).live -= 1;
}

/// The `asm` switch as the scheduler uses it: suspends the running context, whose sp belongs in `*slot` (its
/// fiber's `sp` or the scheduler's `root_sp`), and resumes `to` (loading `to_fp` first if it differs from
/// `from_fp`). The switch stores nothing: it hands the suspended sp to the resumed context in a register, and
/// `slot` travels with it as the payload word, so the resumed side stores the one into the other (`arrive`), as
/// Boost.Context's users do with `transfer_t`. Returns when this context is resumed.
///
/// # Safety
/// `s` must be the live scheduler; `slot` must stay valid until the resumed side has stored into it; `to` a
/// suspended `asm` context (fresh, or whose sp `arrive` stored); `from_fp` the running context's recorded FP
/// state and `to_fp` the incoming one's.
#[inline(always)]
unsafe fn asm_switch(s: *mut Sched, slot: *mut usize, to: usize, from_fp: arch::FpControl, to_fp: arch::FpControl) {
    // The slot's provenance is exposed here and picked up again in `arrive`: it crosses the switch as an integer.
    let back = arch::switch_fp(to, slot.expose_provenance(), from_fp, to_fp);
    arrive(s, back);
}

/// `asm`: switches from the fiber `from` to the next ready fiber, or to the scheduler loop when none is ready (which
/// then finds the queue empty: finished, or a deadlock it reports). Returns when `from` is resumed, at once if
/// `from` is itself the next ready fiber.
///
/// # Safety
/// `s` must be the live scheduler and `from` the running fiber.
#[inline(always)]
unsafe fn asm_switch_to_next(s: *mut Sched, from: *mut Fiber) {
    match (*s).ready.pop_front() {
        Some(next) if next == from => {}
        Some(next) => {
            (*s).current = next;
            asm_switch(s, &raw mut (*from).sp, (*next).sp, (*from).fp, (*next).fp);
        }
        None => {
            (*s).current = ptr::null_mut();
            asm_switch(s, &raw mut (*from).sp, (*s).root_sp, (*from).fp, (*s).root_fp);
        }
    }
}

/// What every `asm` context does first when it is resumed (or started): stores the sp handed over by the context
/// that just suspended into the slot that context handed over with it (`asm_switch`), then returns the fiber that
/// finished and switched away (if any) to the pool, its stack being idle now that another context runs. Reaping
/// here lets a finishing fiber switch straight to the next ready one instead of through the scheduler loop: one
/// switch fewer per fiber life (spawn + join is three switches otherwise).
///
/// # Safety
/// `s` must be the live scheduler, `back` what the switch handed over (from `asm_switch`, so its word is a valid
/// slot), and the caller must not be running on the zombie's stack.
#[inline(always)]
unsafe fn arrive(s: *mut Sched, back: arch::Transfer) {
    // SAFETY: the word is the slot the suspending side exposed in `asm_switch` (a live `Fiber.sp` or
    // `Sched.root_sp`), and only the context resumed by that switch, which is us, writes it.
    *ptr::with_exposed_provenance_mut::<usize>(back.word) = back.sp;
    reap(s);
}

/// Returns the fiber that finished and switched away (if any) to the pool (see `arrive`).
///
/// # Safety
/// `s` must be the live scheduler, and the caller must not be running on the zombie's stack.
#[inline]
unsafe fn reap(s: *mut Sched) {
    let z = std::mem::replace(&mut (*s).zombie, ptr::null_mut());
    if !z.is_null() {
        (*s).pool.push(Box::from_raw(z));
    }
}

/// First activation of a fiber under `asm`: `arg` is the `*mut Fiber`; `sp` and `slot` are what the `asm_switch`
/// that started it handed over.
unsafe extern "C" fn asm_entry(arg: *mut u8, sp: usize, slot: usize) -> ! {
    let f = arg.cast::<Fiber>();
    let s = sched("start");
    arrive(s, arch::Transfer { sp, word: slot });
    fiber_body(f);
    // Our stack can only be reused once nothing runs on it: whoever runs next recycles it (`arrive`).
    (*s).zombie = f;
    asm_switch_to_next(s, f);
    // A finished fiber is never switched to again.
    std::process::abort()
}

/// First activation of a fiber under `ucontext`; `arg` is the `*mut Fiber`.
unsafe extern "C" fn uc_entry(arg: *mut u8) -> ! {
    let f = arg.cast::<Fiber>();
    let s = sched("start");
    fiber_body(f);
    (*s).zombie = f;
    (*s).current = ptr::null_mut();
    uctx::switch(&raw mut (*f).uc, &raw const (*s).root_uc);
    // A finished fiber is never switched to again.
    std::process::abort()
}

/// The scheduler loop, on the thread's own stack: runs ready fibers until none is left, recycling finished ones.
///
/// # Safety
/// `s` must be the live scheduler of this thread and the caller not a fiber.
unsafe fn root_loop(s: *mut Sched) {
    while let Some(f) = (*s).ready.pop_front() {
        (*s).current = f;
        match (*s).backend {
            Backend::Asm => asm_switch(s, &raw mut (*s).root_sp, (*f).sp, (*s).root_fp, (*f).fp),
            Backend::Ucontext => uctx::switch(&raw mut (*s).root_uc, &raw const (*f).uc),
            Backend::Corosensei => {
                // Resumed in place: the `&mut` spans the switch but covers only the `coro` field, which the fiber
                // itself never touches (it reaches its block only through the raw pointer, for other fields).
                // corosensei's switch leaves FP control state alone, so apply the fiber's recorded state around the
                // resume (compared, not read from the hardware; equal in the common case).
                if (*f).fp != (*s).root_fp {
                    arch::fp_load((*f).fp);
                }
                let co = (*f).coro.as_mut().expect("ready corosensei fiber without coroutine");
                let res = co.resume(());
                if (*f).fp != (*s).root_fp {
                    arch::fp_load((*s).root_fp);
                }
                if let CoroutineResult::Return(()) = res {
                    let co = (*f).coro.take().expect("just resumed");
                    (*f).stack = Some(co.into_stack());
                    (*s).zombie = f;
                }
            }
        }
        (*s).current = ptr::null_mut();
        let z = std::mem::replace(&mut (*s).zombie, ptr::null_mut());
        if !z.is_null() {
            (*s).pool.push(Box::from_raw(z));
        }
    }
}

/// Uninstalls the scheduler when `run` ends, normally or by panic, and hands the pool back to the thread.
/// Blocked fibers (deadlock) are deliberately leaked: their stacks may hold objects other fibers point to.
struct RunGuard(*mut Sched);

impl Drop for RunGuard {
    fn drop(&mut self) {
        SCHED.with(|c| c.set(ptr::null_mut()));
        // SAFETY: `self.0` came from Box::into_raw in `run` and is no longer reachable through SCHED.
        let sched = unsafe { Box::from_raw(self.0) };
        let mut pool = sched.pool;
        pool.truncate(POOL_KEEP);
        POOL.with(|p| *p.borrow_mut() = pool);
    }
}

/// Runs `main` as the first fiber on the calling thread with the given back-end and returns its result once
/// `main` and every fiber it spawned have finished.
///
/// Panics if called inside a fiber (runs do not nest), if `backend` is unavailable on this target (see
/// [`Backend::available`]), or on deadlock (fibers remain but all are blocked). A panic in `main` propagates out of
/// `run` (after the other fibers have finished).
pub fn run<T: 'static>(backend: Backend, main: impl FnOnce() -> T + 'static) -> T {
    if let Err(why) = backend.available() {
        panic!("fiber::run: back-end {} unavailable: {why}", backend.name());
    }
    if !SCHED.with(Cell::get).is_null() {
        panic!("fiber::run called inside a fiber (runs do not nest)");
    }
    let pool = POOL.with(|p| std::mem::take(&mut *p.borrow_mut()));
    let epoch = EPOCH.with(|e| {
        e.set(e.get() + 1);
        e.get()
    });
    let s = Box::into_raw(Box::new(Sched {
        backend,
        epoch,
        ready: VecDeque::with_capacity(READY_CAPACITY),
        current: ptr::null_mut(),
        root_sp: 0,
        root_uc: uctx::zeroed(),
        root_fp: arch::fp_read(),
        zombie: ptr::null_mut(),
        live: 0,
        pool,
    }));
    SCHED.with(|c| c.set(s));
    let guard = RunGuard(s);
    let handle = spawn(main);
    // SAFETY: `s` is installed as this thread's scheduler and we are on the thread's own stack, not a fiber.
    let live = unsafe {
        root_loop(s);
        (*s).live
    };
    if live != 0 {
        panic!("fiber::run: deadlock: {live} fiber(s) blocked and none ready");
    }
    drop(guard);
    match handle.join() {
        Ok(v) => v,
        Err(payload) => resume_unwind(payload),
    }
}

/// A spawned closure and its result slot in one allocation; seen by the fiber as `dyn Runnable` and by the
/// `JoinHandle` as `dyn Joinable<T>`.
struct Task<F, T> {
    f: Cell<Option<F>>,
    join: JoinState<T>,
}

struct JoinState<T> {
    result: Cell<Option<std::thread::Result<T>>>,
    done: Cell<bool>,
    /// The fiber blocked in `join`, if any.
    joiner: Cell<*mut Fiber>,
}

trait Runnable {
    fn run(&self);
}

trait Joinable<T> {
    fn state(&self) -> &JoinState<T>;
}

impl<F: FnOnce() -> T, T> Runnable for Task<F, T> {
    fn run(&self) {
        let f = self.f.take().expect("task run twice");
        self.join.result.set(Some(catch_unwind(AssertUnwindSafe(f))));
        self.join.done.set(true);
        let j = self.join.joiner.replace(ptr::null_mut());
        if !j.is_null() {
            // SAFETY: the joiner registered itself and is blocked in `join` until we wake it, exactly once.
            unsafe { make_ready(j) };
        }
    }
}

impl<F, T> Joinable<T> for Task<F, T> {
    fn state(&self) -> &JoinState<T> {
        &self.join
    }
}

/// The `corosensei` form of a fiber: one closure type for every task, so this is monomorphised once.
fn coroutine_for(fib: *mut Fiber, stack: FiberStack) -> Coro {
    Coroutine::with_stack(stack, move |y: &Yielder<(), ()>, ()| {
        // SAFETY: `fib` stays allocated until the scheduler sees this coroutine return; the yielder lives on this
        // coroutine's stack for as long as the coroutine runs, which is as long as anyone uses `(*fib).yielder`.
        unsafe {
            (*fib).yielder = y;
            fiber_body(fib);
        }
    })
}

/// Inside [`run`]: creates a fiber running `f`, appended to the ready queue; the caller keeps running.
///
/// Reuses a pooled control block and stack when one is free (otherwise maps a new [`STACK_SIZE`] stack); the only
/// allocation is the `Rc` holding `f` and its result. Panics outside `run` or if a stack cannot be mapped.
pub fn spawn<T: 'static>(f: impl FnOnce() -> T + 'static) -> JoinHandle<T> {
    let s = sched("spawn");
    let task = Rc::new(Task {
        f: Cell::new(Some(f)),
        join: JoinState { result: Cell::new(None), done: Cell::new(false), joiner: Cell::new(ptr::null_mut()) },
    });
    // SAFETY: `s` is the live scheduler; the fiber block comes from the pool or is fresh, is idle (no context runs
    // on its stack) and is leaked into a raw pointer that the ready queue owns until it finishes.
    unsafe {
        let fib = match (*s).pool.pop() {
            Some(b) => b,
            None => Fiber::new().unwrap_or_else(|e| panic!("fiber::spawn: cannot map a fiber stack: {e}")),
        };
        let fib = Box::into_raw(fib);
        (*fib).task = Some(task.clone());
        (*fib).epoch = (*s).epoch;
        (*fib).fp = (*s).root_fp;
        match (*s).backend {
            Backend::Asm => {
                let top = (*fib).stack.as_ref().expect("pooled fiber has a stack").top();
                (*fib).sp = arch::init_stack(top, asm_entry, fib.cast());
            }
            Backend::Ucontext => {
                let stack = (*fib).stack.as_ref().expect("pooled fiber has a stack");
                uctx::make(&raw mut (*fib).uc, stack, uc_entry, fib.cast());
                // getcontext captured the spawning fiber's FP state; start from the run's, like the other back-ends.
                uctx::set_fp(&raw mut (*fib).uc, (*s).root_fp);
            }
            Backend::Corosensei => {
                let stack = (*fib).stack.take().expect("pooled fiber has a stack");
                (*fib).coro = Some(coroutine_for(fib, stack));
            }
        }
        (*s).live += 1;
        (*s).ready.push_back(fib);
    }
    JoinHandle { task }
}

/// Sets the FP control state (MXCSR and the x87 control word) of the calling fiber: loads both registers and records
/// the value in the fiber's control block, so that it is this fiber's own and survives its switches on every
/// back-end (see "Floating-point control state" in the module docs). The MXCSR status flags (bits 0..5) are not
/// recorded: they are caller-saved scratch. Outside a fiber (no run, or from the thread before/after `run`) it only
/// sets the thread's registers, which the next `run` then gives to all its fibers.
///
/// Panics if `mxcsr` has a reserved bit (16..32) set, which would fault.
///
/// # Safety
/// Rust and LLVM assume the default FP environment (round-to-nearest, all exceptions masked): compile-time
/// evaluation and optimisation may disagree with a different rounding mode, and unmasked exceptions turn ordinary
/// float operations into `SIGFPE`. The caller must ensure that the code running under a non-default state is
/// written for it, and restore the default before running code that is not.
#[cfg(target_arch = "x86_64")]
pub unsafe fn set_fp_control(mxcsr: u32, x87_cw: u16) {
    assert!(mxcsr <= 0xFFFF, "fiber::set_fp_control: reserved MXCSR bits set in {mxcsr:#x}");
    record_fp(arch::fp_pack(mxcsr, x87_cw));
}

/// Sets the FP control state (FPCR) of the calling fiber: writes the register and records the value in the fiber's
/// control block, so that it is this fiber's own on every back-end (see "Floating-point control state" in the module
/// docs). Outside a fiber it only sets the thread's register, which the next `run` gives to all its fibers.
///
/// # Safety
/// As for the x86-64 version: Rust assumes the default FP environment, so the code running under a non-default
/// state must be written for it, and the default restored before running code that is not.
#[cfg(target_arch = "aarch64")]
pub unsafe fn set_fp_control(fpcr: u64) {
    record_fp(fpcr);
}

/// Loads `v` and records it for the running fiber, if any.
///
/// # Safety
/// As for `set_fp_control`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
unsafe fn record_fp(v: arch::FpControl) {
    arch::fp_load(v);
    let s = SCHED.with(Cell::get);
    if !s.is_null() && !(*s).current.is_null() {
        (*(*s).current).fp = v;
    }
}

/// Inside [`run`]: moves the current fiber to the back of the ready queue and runs the next one (returns at once
/// if no other fiber is ready). Panics outside a fiber.
pub fn yield_now() {
    let s = sched("yield_now");
    // SAFETY: `s` is the live scheduler; `current` checks we are a fiber; the fiber is queued before suspending.
    unsafe {
        let cur = current(s);
        (*s).ready.push_back(cur);
        suspend(s);
    }
}

/// Handle to a spawned fiber's result.
pub struct JoinHandle<T> {
    task: Rc<dyn Joinable<T>>,
}

impl<T> JoinHandle<T> {
    /// Blocks the current fiber until the target finishes and returns its result, or `Err(payload)` if it panicked
    /// (the panic is caught on the target's own stack and handed over here, never lost and never unwinding across a
    /// switch). Returns without switching if the target already finished. Panics if it would block outside a fiber.
    pub fn join(self) -> Result<T, Box<dyn Any + Send>> {
        let st = self.task.state();
        if !st.done.get() {
            let s = sched("JoinHandle::join");
            // SAFETY: live scheduler, current fiber checked; the task wakes the registered joiner exactly once.
            unsafe {
                st.joiner.set(current(s));
                while !st.done.get() {
                    suspend(s);
                }
            }
        }
        st.result.take().expect("fiber result already taken")
    }
}
