//! The fiber runtime's hot paths allocate nothing once warm. Lives in its own test
//! binary because it needs a counting global allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use overhead::runtime_fibers::{self as rt, Backend};

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counter is a const-initialised thread-local without destructor,
// so touching it cannot allocate or re-enter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

/// Runs `body` twice (warm-up, then measured) and returns the allocations of the measured pass.
fn measured(mut body: impl FnMut()) -> u64 {
    body();
    let before = allocs();
    body();
    allocs() - before
}

#[test]
fn hot_paths_do_not_allocate_once_warm() {
    for b in Backend::ALL {
        let counts = rt::run(b, || {
            let mut counts = Vec::with_capacity(8);
            // yield between two fibers
            let other = rt::spawn(|| {
                for _ in 0..2_000 {
                    rt::yield_now();
                }
            });
            counts.push(("yield", measured(|| (0..500).for_each(|_| rt::yield_now()))));
            other.join().unwrap();

            // semaphore requiring a switch
            let (s1, s2) = (rt::Semaphore::new(0), rt::Semaphore::new(0));
            let (a, c) = (s1.clone(), s2.clone());
            let peer = rt::spawn(move || {
                for _ in 0..1_000 {
                    a.p();
                    c.v();
                }
            });
            counts.push((
                "semaphore",
                measured(|| {
                    for _ in 0..500 {
                        s1.v();
                        s2.p();
                    }
                }),
            ));
            peer.join().unwrap();

            // message passing requiring a switch
            let (req, resp) = (rt::Channel::<u64>::new(), rt::Channel::<u64>::new());
            let (r, w) = (req.clone(), resp.clone());
            let peer = rt::spawn(move || {
                for _ in 0..1_000 {
                    w.send(r.recv() + 1);
                }
            });
            counts.push((
                "channel",
                measured(|| {
                    for i in 0..500 {
                        req.send(i);
                        assert_eq!(resp.recv(), i + 1);
                    }
                }),
            ));
            peer.join().unwrap();

            // rendezvous
            let (client, server) = rt::rendezvous::<u64, u64>();
            let peer = rt::spawn(move || {
                for _ in 0..1_000 {
                    let (q, reply) = server.accept();
                    reply.reply(q * 2);
                }
            });
            counts.push(("rendezvous", measured(|| (0..500).for_each(|i| assert_eq!(client.call(i), i * 2)))));
            peer.join().unwrap();

            // spawn + join: exactly the task's one Rc allocation per spawn, no stack mapping
            let maps = rt::stack_mmap_count();
            counts.push((
                "spawn (per fiber)",
                measured(|| (0..100).for_each(|_| rt::spawn(|| ()).join().unwrap())) / 100,
            ));
            assert_eq!(rt::stack_mmap_count(), maps);
            counts
        });
        for (what, n) in counts {
            let allowed = if what.starts_with("spawn") { 1 } else { 0 };
            assert_eq!(n, allowed, "{}: {what} allocated {n} times", b.name());
        }
    }
}
