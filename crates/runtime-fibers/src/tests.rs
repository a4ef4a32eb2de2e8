//! Souvatzis's `cctest` for every back-end, plus the run time's primitives.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use super::*;

fn each_backend(mut f: impl FnMut(Backend)) {
    for b in Backend::ALL {
        b.available().unwrap_or_else(|e| panic!("{} unavailable: {e}", b.name()));
        f(b);
    }
}

#[test]
fn names_and_availability() {
    let names: Vec<_> = Backend::ALL.iter().map(|b| b.name()).collect();
    assert_eq!(names, ["asm", "ucontext", "corosensei"]);
    each_backend(|_| {});
}

#[test]
fn run_returns_main_result_and_spawn_order_is_fifo() {
    each_backend(|b| {
        let log = run(b, || {
            let log = Rc::new(RefCell::new(Vec::new()));
            let hs: Vec<_> = (0..3)
                .map(|id| {
                    let log = log.clone();
                    spawn(move || {
                        for i in 0..3 {
                            log.borrow_mut().push((id, i));
                            yield_now();
                        }
                        id * 10
                    })
                })
                .collect();
            let results: Vec<i32> = hs.into_iter().map(|h| h.join().unwrap()).collect();
            assert_eq!(results, [0, 10, 20]);
            let v = log.borrow().clone();
            v
        });
        let expected: Vec<(i32, i32)> = (0..3).flat_map(|i| (0..3).map(move |id| (id, i))).collect();
        assert_eq!(log, expected, "{}", b.name());
    });
}

#[test]
fn yield_alone_and_join_finished_fiber_do_not_block() {
    each_backend(|b| {
        let r = run(b, || {
            yield_now();
            let h = spawn(|| 7u8);
            yield_now(); // lets it finish
            h.join().unwrap()
        });
        assert_eq!(r, 7);
    });
}

/// Called from inside the register-checking asm block; the switch happens in here.
#[cfg(target_arch = "x86_64")]
extern "C" fn yield_trampoline() {
    yield_now();
}

/// Loads `seed + i` into rbx, r12..r15, yields (switching to other fibers that load their own values) and returns
/// what those registers hold afterwards.
#[cfg(target_arch = "x86_64")]
fn yield_with_callee_saved(seed: u64) -> [u64; 5] {
    let mut out = [0u64; 5];
    // SAFETY: the block saves and restores rbx and r12-r15 itself (they are callee-saved and rbx cannot be an
    // operand), keeps the stack 16-byte aligned for the call (six pushes; without `nostack` rsp is call-aligned on
    // entry) and declares every caller-saved register clobbered through clobber_abi("C"). `out` outlives the block.
    unsafe {
        std::arch::asm!(
            "push rbx",
            "push r12",
            "push r13",
            "push r14",
            "push r15",
            "push rdi",
            "mov rbx, rsi",
            "lea r12, [rsi + 1]",
            "lea r13, [rsi + 2]",
            "lea r14, [rsi + 3]",
            "lea r15, [rsi + 4]",
            "call {f}",
            "pop rdi",
            "mov [rdi], rbx",
            "mov [rdi + 8], r12",
            "mov [rdi + 16], r13",
            "mov [rdi + 24], r14",
            "mov [rdi + 32], r15",
            "pop r15",
            "pop r14",
            "pop r13",
            "pop r12",
            "pop rbx",
            f = sym yield_trampoline,
            inout("rdi") out.as_mut_ptr() => _,
            inout("rsi") seed => _,
            clobber_abi("C"),
        );
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[test]
fn callee_saved_registers_survive_switch() {
    each_backend(|b| {
        run(b, move || {
            let hs: Vec<_> = (0..4u64)
                .map(|id| {
                    spawn(move || {
                        for i in 0..200u64 {
                            let seed = (id << 40) | (i << 8);
                            let got = yield_with_callee_saved(seed);
                            let want = [seed, seed + 1, seed + 2, seed + 3, seed + 4];
                            assert_eq!(got, want, "{}: fiber {id} iteration {i}", b.name());
                        }
                    })
                })
                .collect();
            for h in hs {
                h.join().unwrap();
            }
        });
    });
}

/// Rounding-mode codes and accessors for the FP control register (MXCSR.RC on x86-64, FPCR.RMode on aarch64).
/// `set` goes through `set_fp_control` (recorded, per fiber); `set_raw` writes the register behind the run
/// time's back (outside the documented policy: only `ucontext` preserves it).
#[cfg(target_arch = "x86_64")]
mod fpmode {
    pub const NEAREST: u32 = 0;
    pub const UP: u32 = 2;
    pub const ZERO: u32 = 3;

    fn mxcsr() -> u32 {
        let mut m: u32 = 0;
        // SAFETY: stmxcsr writes 4 bytes to a live local.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut m, options(nostack, preserves_flags)) };
        m
    }

    pub fn get() -> u32 {
        (mxcsr() >> 13) & 3
    }

    pub fn set(mode: u32) {
        let m = (mxcsr() & !(3 << 13)) | (mode << 13);
        // SAFETY: changes MXCSR's rounding-control field only; the tests' float-free code does not depend on it.
        unsafe { super::set_fp_control(m, super::x87_cw()) };
    }

    pub fn set_raw(mode: u32) {
        let m = (mxcsr() & !(3 << 13)) | (mode << 13);
        // SAFETY: as for `set`, but bypassing the run time (which is what the test demonstrates).
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &m, options(nostack, preserves_flags)) };
    }
}

#[cfg(target_arch = "aarch64")]
mod fpmode {
    pub const NEAREST: u32 = 0;
    pub const UP: u32 = 1;
    pub const ZERO: u32 = 3;

    fn fpcr() -> u64 {
        let v: u64;
        // SAFETY: reading FPCR has no side effects.
        unsafe { std::arch::asm!("mrs {}, fpcr", out(reg) v, options(nomem, nostack, preserves_flags)) };
        v
    }

    pub fn get() -> u32 {
        ((fpcr() >> 22) & 3) as u32
    }

    pub fn set(mode: u32) {
        // SAFETY: changes FPCR.RMode only; the tests' float-free code does not depend on it.
        unsafe { super::set_fp_control((fpcr() & !(3 << 22)) | ((mode as u64) << 22)) };
    }

    pub fn set_raw(mode: u32) {
        let v = (fpcr() & !(3 << 22)) | ((mode as u64) << 22);
        // SAFETY: as for `set`, but bypassing the run time.
        unsafe { std::arch::asm!("msr fpcr, {}", in(reg) v, options(nomem, nostack, preserves_flags)) };
    }
}

/// Two fibers set different rounding modes with `set_fp_control` and yield; returns (B's mode at start, A's mode
/// after yielding, B's mode after yielding).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn two_fibers_with_modes(b: Backend, set: fn(u32)) -> (u32, u32, u32) {
    use fpmode::{NEAREST, UP, ZERO};
    run(b, move || {
        let seen = Rc::new(Cell::new((9, 9, 9)));
        let s1 = seen.clone();
        let a = spawn(move || {
            assert_eq!(fpmode::get(), NEAREST);
            set(ZERO);
            yield_now();
            let got = fpmode::get();
            s1.set((s1.get().0, got, s1.get().2));
            set(NEAREST);
        });
        let s2 = seen.clone();
        let bf = spawn(move || {
            let first = fpmode::get();
            set(UP);
            yield_now();
            let after = fpmode::get();
            s2.set((first, s2.get().1, after));
            set(NEAREST);
        });
        a.join().unwrap();
        bf.join().unwrap();
        seen.get()
    })
}

/// The documented policy: set through `set_fp_control`, the rounding mode is per fiber on every back-end.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn rounding_mode_set_through_set_fp_control_is_per_fiber() {
    use fpmode::{NEAREST, UP, ZERO};
    each_backend(|b| {
        assert_eq!(fpmode::get(), NEAREST);
        assert_eq!(two_fibers_with_modes(b, fpmode::set), (NEAREST, ZERO, UP), "{b:?}");
        assert_eq!(fpmode::get(), NEAREST);
    });
}

/// Outside the policy: a raw register write is preserved per fiber only by `ucontext` (glibc `fpregs`); under
/// `asm` and `corosensei` it stays in the register and the next fiber to run sees it.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn raw_rounding_mode_changes_are_preserved_only_by_ucontext() {
    use fpmode::{NEAREST, UP, ZERO};
    each_backend(|b| {
        let got = two_fibers_with_modes(b, fpmode::set_raw);
        fpmode::set_raw(NEAREST);
        match b {
            Backend::Ucontext => assert_eq!(got, (NEAREST, ZERO, UP), "{b:?}"),
            Backend::Asm | Backend::Corosensei => assert_eq!(got, (ZERO, UP, NEAREST), "{b:?}"),
        }
    });
}

#[cfg(target_arch = "x86_64")]
fn x87_cw() -> u16 {
    let mut cw: u16 = 0;
    // SAFETY: fnstcw writes 2 bytes to a live local.
    unsafe { std::arch::asm!("fnstcw [{}]", in(reg) &mut cw, options(nostack, preserves_flags)) };
    cw
}

#[cfg(target_arch = "x86_64")]
fn set_x87_cw(cw: u16) {
    let mut m: u32 = 0;
    // SAFETY: stmxcsr writes 4 bytes to a live local; set_fp_control then changes only the x87 control word (no
    // x87 code of ours runs while it is non-default).
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut m, options(nostack, preserves_flags));
        set_fp_control(m, cw);
    }
}

/// The x87 control word set through `set_fp_control` is per fiber on every back-end.
#[cfg(target_arch = "x86_64")]
#[test]
fn x87_control_word_is_per_fiber() {
    const DEFAULT: u16 = 0x037F;
    const ROUND_ZERO: u16 = 0x0F7F;
    each_backend(|b| {
        let (other_saw, mine_after) = run(b, || {
            let a = spawn(|| {
                set_x87_cw(ROUND_ZERO);
                yield_now();
                let after = x87_cw();
                set_x87_cw(DEFAULT);
                after
            });
            let other = spawn(x87_cw);
            let mine_after = a.join().unwrap();
            (other.join().unwrap(), mine_after)
        });
        assert_eq!((other_saw, mine_after), (DEFAULT, ROUND_ZERO), "{b:?}");
        assert_eq!(x87_cw(), DEFAULT);
    });
}

/// Fibers start with the thread's state at `run` time, and `run` hands it back even if a fiber finishes with
/// another one set.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn fibers_start_with_and_run_restores_the_threads_fp_control_state() {
    use fpmode::{NEAREST, UP, ZERO};
    each_backend(|b| {
        run(b, || fpmode::set(ZERO));
        assert_eq!(fpmode::get(), NEAREST, "{b:?}");
        fpmode::set(UP);
        let seen = run(b, || {
            let first = fpmode::get();
            let h = spawn(|| {
                let m = fpmode::get();
                fpmode::set(ZERO);
                yield_now();
                m
            });
            yield_now();
            let after = fpmode::get();
            (first, h.join().unwrap(), after)
        });
        assert_eq!(seen, (UP, UP, UP), "{b:?}");
        assert_eq!(fpmode::get(), UP, "{b:?}");
        fpmode::set(NEAREST);
    });
}

/// Recurses with 1 KiB frames until `limit` and returns the bytes of stack used (address span of the frames).
#[inline(never)]
fn recurse(depth: u64, limit: u64, top: usize) -> usize {
    let mut buf = [0u8; 1024];
    buf[(depth as usize) % 1024] = depth as u8;
    std::hint::black_box(&mut buf);
    let here = buf.as_ptr() as usize;
    if depth >= limit {
        return top - here;
    }
    let used = recurse(depth + 1, limit, if depth == 0 { here } else { top });
    // Keeps the frame live across the call, so it is neither a tail call nor shrunk.
    std::hint::black_box(&buf);
    used
}

#[test]
fn deep_recursion_on_fiber_stack() {
    each_backend(|b| {
        let used = run(b, || spawn(|| recurse(0, 100, 0)).join().unwrap());
        assert!((100 * 1024..STACK_SIZE).contains(&used), "{}: used {used} bytes", b.name());
    });
}

const OVERFLOW_ENV: &str = "OVERHEAD_FIBER_OVERFLOW_CHILD";

/// Child half of the guard-page test: a no-op unless the parent re-executed us with the env var naming a back-end.
#[test]
fn overflow_child() {
    let Ok(name) = std::env::var(OVERFLOW_ENV) else { return };
    let b = Backend::ALL.into_iter().find(|b| b.name() == name).expect("known back-end");
    run(b, || {
        spawn(|| recurse(0, std::hint::black_box(u64::MAX), 0)).join().ok();
    });
    // Reaching this means the overflow went unnoticed.
    std::process::exit(3);
}

#[test]
fn stack_overflow_hits_guard_page_and_dies_of_sigsegv() {
    use std::os::unix::process::ExitStatusExt;
    // The harness names tests by module path without the crate name.
    let path = module_path!().split_once("::").map_or(module_path!(), |(_, rest)| rest);
    let exe = std::env::current_exe().unwrap();
    each_backend(|b| {
        let out = std::process::Command::new(&exe)
            .args([&format!("{path}::overflow_child"), "--exact", "--nocapture", "--test-threads=1"])
            .env(OVERFLOW_ENV, b.name())
            .output()
            .unwrap();
        let status = out.status;
        assert_eq!(
            status.signal(),
            Some(libc::SIGSEGV),
            "{}: child should die of SIGSEGV, got {status:?}\nstdout: {}\nstderr: {}",
            b.name(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // A SIGSEGV from Rust's thread-stack overflow handler would also print this; ours must be a plain fault.
        assert!(!String::from_utf8_lossy(&out.stderr).contains("has overflowed its stack"));
    });
}

#[test]
fn panic_in_fiber_is_reported_to_joiner() {
    each_backend(|b| {
        let msg = run(b, || {
            let h = spawn(|| -> u32 { panic!("boom in fiber") });
            let other = spawn(|| 5u32);
            let err = h.join().unwrap_err();
            assert_eq!(other.join().unwrap(), 5);
            err.downcast_ref::<&str>().map(|s| s.to_string())
        });
        assert_eq!(msg.as_deref(), Some("boom in fiber"), "{}", b.name());
    });
}

#[test]
fn panic_in_main_propagates_out_of_run_after_others_finish() {
    each_backend(|b| {
        let finished = Rc::new(Cell::new(false));
        let f2 = finished.clone();
        let r = catch_unwind(AssertUnwindSafe(|| {
            run(b, move || {
                spawn(move || {
                    yield_now();
                    f2.set(true);
                });
                panic!("main fails");
            })
        }));
        let payload = r.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"main fails"));
        assert!(finished.get(), "{}: other fibers still run to completion", b.name());
        // The thread is usable for another run afterwards.
        assert_eq!(run(b, || 1), 1);
    });
}

#[test]
fn deadlock_and_nested_run_panic() {
    each_backend(|b| {
        let r = catch_unwind(|| run(b, || Semaphore::new(0).p()));
        let payload = r.unwrap_err();
        let msg = payload.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(msg.contains("deadlock"), "{}: {msg}", b.name());
        let nested = run(b, move || catch_unwind(|| run(b, || ())).is_err());
        assert!(nested);
        assert!(catch_unwind(yield_now).is_err(), "yield_now outside run panics");
        // A semaphore whose waiter was leaked by a deadlocked run cannot wake it into a later run.
        let sem = Semaphore::new(0);
        let s2 = sem.clone();
        assert!(catch_unwind(AssertUnwindSafe(|| run(b, move || s2.p()))).is_err());
        let s3 = sem.clone();
        let r = catch_unwind(AssertUnwindSafe(|| run(b, move || s3.v())));
        let payload = r.unwrap_err();
        let msg = payload.downcast_ref::<&str>().copied().unwrap_or_default();
        assert!(msg.contains("earlier run"), "{msg}");
    });
}

#[test]
fn million_switches_keep_every_fibers_state() {
    const FIBERS: u64 = 100;
    const YIELDS: u64 = 10_000;
    fn checksum(id: u64, i: u64, acc: u64) -> u64 {
        acc.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(i ^ (id << 17))
    }
    each_backend(|b| {
        let total = run(b, || {
            let switches = Rc::new(Cell::new(0u64));
            let hs: Vec<_> = (0..FIBERS)
                .map(|id| {
                    let switches = switches.clone();
                    spawn(move || {
                        let (mut count, mut acc) = (0u64, id);
                        for i in 0..YIELDS {
                            count += 1;
                            acc = checksum(id, i, acc);
                            yield_now();
                            switches.set(switches.get() + 1);
                        }
                        (count, acc)
                    })
                })
                .collect();
            for (id, h) in (0..FIBERS).zip(hs) {
                let (count, acc) = h.join().unwrap();
                assert_eq!(count, YIELDS);
                assert_eq!(acc, (0..YIELDS).fold(id, |a, i| checksum(id, i, a)), "fiber {id}");
            }
            switches.get()
        });
        assert_eq!(total, FIBERS * YIELDS, "{}", b.name());
    });
}

#[test]
fn semaphore_blocks_wakes_fifo_and_counts() {
    each_backend(|b| {
        let log = run(b, || {
            let log = Rc::new(RefCell::new(Vec::<String>::new()));
            let sem = Semaphore::new(0);
            let hs: Vec<_> = (0..3)
                .map(|id| {
                    let (sem, log) = (sem.clone(), log.clone());
                    spawn(move || {
                        log.borrow_mut().push(format!("wait{id}"));
                        sem.p();
                        log.borrow_mut().push(format!("got{id}"));
                    })
                })
                .collect();
            yield_now(); // all three block in p
            log.borrow_mut().push("v".into());
            sem.v();
            sem.v();
            sem.v();
            log.borrow_mut().push("after v".into()); // v never switches
            for h in hs {
                h.join().unwrap();
            }
            // Counting: two permits are taken without blocking, the third p would block.
            let counting = Semaphore::new(2);
            counting.p();
            counting.p();
            let c2 = counting.clone();
            let blocked = Rc::new(Cell::new(true));
            let bl = blocked.clone();
            let h = spawn(move || {
                c2.p();
                bl.set(false);
            });
            yield_now();
            assert!(blocked.get());
            counting.v();
            h.join().unwrap();
            assert!(!blocked.get());
            let v = log.borrow().clone();
            v
        });
        assert_eq!(log, ["wait0", "wait1", "wait2", "v", "after v", "got0", "got1", "got2"], "{}", b.name());
    });
}

#[test]
fn channel_is_fifo_send_never_blocks_recv_blocks() {
    each_backend(|b| {
        let got = run(b, || {
            let ch = Channel::<u32>::new();
            let order = Rc::new(RefCell::new(Vec::new()));
            let (rx, o) = (ch.clone(), order.clone());
            let receiver = spawn(move || {
                o.borrow_mut().push("recv waits");
                let mut got = Vec::new();
                for _ in 0..100 {
                    got.push(rx.recv());
                }
                got
            });
            yield_now(); // receiver blocks on the empty channel
            order.borrow_mut().push("sending");
            for i in 0..100 {
                ch.send(i); // buffered, no switch (grows past the initial capacity)
            }
            order.borrow_mut().push("sent");
            let got = receiver.join().unwrap();
            assert_eq!(*order.borrow(), ["recv waits", "sending", "sent"]);
            // Several receivers: each message goes to exactly one of them.
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    let rx = ch.clone();
                    spawn(move || rx.recv() + rx.recv())
                })
                .collect();
            yield_now();
            for i in 0..8 {
                ch.send(i);
            }
            let sum: u32 = hs.into_iter().map(|h| h.join().unwrap()).sum();
            assert_eq!(sum, (0..8).sum::<u32>());
            got
        });
        assert_eq!(got, (0..100).collect::<Vec<_>>(), "{}", b.name());
    });
}

#[test]
fn rendezvous_call_blocks_until_reply() {
    each_backend(|b| {
        let answers = run(b, || {
            let (client, server) = rendezvous::<u32, String>();
            let log = Rc::new(RefCell::new(Vec::<String>::new()));
            let slog = log.clone();
            let srv = spawn(move || {
                for _ in 0..6 {
                    let (q, reply) = server.accept();
                    slog.borrow_mut().push(format!("accept {q}"));
                    reply.reply(format!("answer {}", q * 2));
                    slog.borrow_mut().push(format!("replied {q}"));
                }
                // A dropped Reply makes the caller's call panic instead of hanging.
                let (_q, reply) = server.accept();
                drop(reply);
            });
            let clients: Vec<_> = (0..3u32)
                .map(|id| {
                    let (client, log) = (client.clone(), log.clone());
                    spawn(move || {
                        let mut v = Vec::new();
                        for k in 0..2 {
                            let q = id * 10 + k;
                            log.borrow_mut().push(format!("call {q}"));
                            v.push(client.call(q));
                            log.borrow_mut().push(format!("back {q}"));
                        }
                        v
                    })
                })
                .collect();
            let answers: Vec<Vec<String>> = clients.into_iter().map(|h| h.join().unwrap()).collect();
            let dropped = spawn(move || client.call(99)).join();
            assert!(dropped.is_err());
            srv.join().unwrap();
            // Each call returns only after its reply; the server runs on after replying (no switch in reply).
            let log = log.borrow();
            for q in [0, 1, 10, 11, 20, 21] {
                let pos = |s: String| log.iter().position(|l| *l == s).unwrap();
                assert!(pos(format!("call {q}")) < pos(format!("accept {q}")));
                assert!(pos(format!("accept {q}")) < pos(format!("replied {q}")));
                assert!(pos(format!("replied {q}")) < pos(format!("back {q}")));
            }
            answers
        });
        let want: Vec<Vec<String>> =
            (0..3u32).map(|id| (0..2).map(|k| format!("answer {}", (id * 10 + k) * 2)).collect()).collect();
        assert_eq!(answers, want, "{}", b.name());
    });
}

#[test]
fn stacks_are_pooled_and_reused() {
    each_backend(|b| {
        let start = stack_mmap_count();
        run(b, move || {
            spawn(|| ()).join().unwrap();
            let warm = stack_mmap_count();
            for i in 0..100 {
                assert_eq!(spawn(move || i).join().unwrap(), i);
            }
            assert_eq!(stack_mmap_count(), warm, "{}: spawn after exit reuses a pooled stack", b.name());
            // Ten live at once need at most ten stacks, reused by the next ten.
            let hs: Vec<_> = (0..10).map(|_| spawn(yield_now)).collect();
            hs.into_iter().for_each(|h| h.join().unwrap());
            let ten = stack_mmap_count();
            let hs: Vec<_> = (0..10).map(|_| spawn(yield_now)).collect();
            hs.into_iter().for_each(|h| h.join().unwrap());
            assert_eq!(stack_mmap_count(), ten);
        });
        // main + 10 concurrent children at most; a second run starts warm.
        assert!(stack_mmap_count() - start <= 11, "{}", b.name());
        let warm = stack_mmap_count();
        run(b, || spawn(|| ()).join().unwrap());
        assert_eq!(stack_mmap_count(), warm, "{}: pool survives across runs", b.name());
    });
}

#[test]
fn switch_pair_round_trips() {
    each_backend(|b| {
        let mut pair = SwitchPair::new(b).unwrap();
        pair.round_trips(1);
        pair.round_trips(10_000);
        drop(pair);
        let mut again = SwitchPair::new(b).unwrap();
        again.round_trips(3);
        // Resumed from a deeper stack than last time: the partner must switch back to the sp handed over by the
        // latest switch, not one it remembered (a stale sp would return into a dead frame and crash or corrupt).
        fn deeper(pair: &mut SwitchPair, depth: u32) -> u64 {
            let pad = std::hint::black_box([depth as u8; 512]);
            if depth == 0 {
                pair.round_trips(5);
                u64::from(pad[0])
            } else {
                deeper(pair, depth - 1) + u64::from(pad[511])
            }
        }
        assert_eq!(deeper(&mut again, 8), (1..=8).sum::<u64>());
        again.round_trips(2);
    });
}

/// The raw `asm` switch hands its payload word and the suspended context's sp to the resumed context, also to a
/// fresh one (its entry's arguments): a lost word or a wrong sp would fail the checks or crash on the next switch.
#[test]
fn asm_switch_hands_over_sp_and_word() {
    if !arch::AVAILABLE {
        return;
    }
    /// Answers every word with `3 * word + 1`, on the partner's stack.
    unsafe extern "C" fn answer(arg: *mut u8, mut main_sp: usize, mut word: usize) -> ! {
        let first = arg.cast::<[usize; 2]>();
        (*first)[0] = main_sp;
        (*first)[1] = word;
        loop {
            let back = arch::switch(main_sp, 3 * word + 1);
            main_sp = back.sp;
            word = back.word;
        }
    }
    let stack = stack::FiberStack::new().unwrap();
    let mut first = [0usize; 2];
    let here = &raw const first as usize;
    // SAFETY: the stack is ours and idle; `first` outlives every switch below, and the abandoned partner owns nothing.
    let mut partner = unsafe { arch::init_stack(stack.top(), answer, (&raw mut first).cast()) };
    for word in [7usize, 0, usize::MAX / 4, 12345] {
        // SAFETY: the partner is fresh or suspended in `answer`'s switch.
        let back = unsafe { arch::switch(partner, word) };
        assert_eq!(back.word, 3 * word + 1, "word handed back");
        assert!(back.sp < stack.top() && back.sp > stack.top() - STACK_SIZE, "partner sp {:#x} off its stack", back.sp);
        partner = back.sp;
    }
    assert_eq!(first[1], 7, "a fresh context receives the first word as its entry's third argument");
    // Our sp at the first switch lies just below a local of this frame, on this thread's stack.
    assert!(first[0] < here && here - first[0] < 4096, "handed-over sp {:#x} vs local at {here:#x}", first[0]);
}
