//! SR's synchronisation primitives for fibers of one run: semaphores, asynchronous message passing and
//! rendezvous (`call`/`in`), the operations in Souvatzis's timing table. None of them allocates once warm: wait
//! queues are pre-sized `VecDeque`s and a rendezvous keeps its reply slot on the caller's stack.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::rc::Rc;

use super::{current, make_ready, sched, suspend, Fiber};

/// Wait queues start with room for this many fibers so the usual few-waiter cases never grow them.
const WAITERS_CAPACITY: usize = 8;

/// Parks the current fiber on `waiters` and switches away; returns once something woke it.
fn block_on(waiters: &RefCell<VecDeque<*mut Fiber>>, what: &str) {
    let s = sched(what);
    // SAFETY: live scheduler; `current` checks we are a fiber; the queue borrow ends before the switch.
    unsafe {
        let cur = current(s);
        waiters.borrow_mut().push_back(cur);
        suspend(s);
    }
}

/// Wakes the longest-waiting fiber of `waiters`, if any; never switches.
fn wake_one(waiters: &RefCell<VecDeque<*mut Fiber>>) -> bool {
    let w = waiters.borrow_mut().pop_front();
    match w {
        // SAFETY: fibers in a wait queue are blocked and in no other queue; removing it here makes us the only
        // party that will ever wake it for this wait.
        Some(f) => unsafe {
            make_ready(f);
            true
        },
        None => false,
    }
}

/// Counting semaphore for the fibers of one [`run`](super::run) (not `Send`); clones share the same semaphore.
///
/// SR semantics: `v` hands its permit straight to the longest-waiting fiber (FIFO, no barging) and never
/// switches; `p` only switches when no permit is available.
#[derive(Clone)]
pub struct Semaphore {
    inner: Rc<SemInner>,
}

struct SemInner {
    permits: Cell<usize>,
    waiters: RefCell<VecDeque<*mut Fiber>>,
}

impl Semaphore {
    /// A semaphore holding `permits` permits initially.
    pub fn new(permits: usize) -> Self {
        Semaphore {
            inner: Rc::new(SemInner {
                permits: Cell::new(permits),
                waiters: RefCell::new(VecDeque::with_capacity(WAITERS_CAPACITY)),
            }),
        }
    }

    /// Takes a permit, blocking the current fiber while there is none. Panics if it would block outside a fiber.
    pub fn p(&self) {
        let n = self.inner.permits.get();
        if n > 0 {
            self.inner.permits.set(n - 1);
        } else {
            // The waking `v` transferred its permit to us, so there is nothing to re-check.
            block_on(&self.inner.waiters, "Semaphore::p");
        }
    }

    /// Returns a permit: wakes the longest-waiting fiber (which receives the permit) or increments the count.
    pub fn v(&self) {
        if !wake_one(&self.inner.waiters) {
            self.inner.permits.set(self.inner.permits.get() + 1);
        }
    }
}

/// Unbounded FIFO channel between fibers of one run (SR's asynchronous `send`/`receive`); clones share it.
pub struct Channel<T> {
    inner: Rc<ChanInner<T>>,
}

struct ChanInner<T> {
    queue: RefCell<VecDeque<T>>,
    waiters: RefCell<VecDeque<*mut Fiber>>,
}

impl<T> Clone for Channel<T> {
    fn clone(&self) -> Self {
        Channel { inner: self.inner.clone() }
    }
}

impl<T> Default for Channel<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Channel<T> {
    /// An empty channel (buffer pre-sized for 16 messages; grows when needed).
    pub fn new() -> Self {
        Channel {
            inner: Rc::new(ChanInner {
                queue: RefCell::new(VecDeque::with_capacity(16)),
                waiters: RefCell::new(VecDeque::with_capacity(WAITERS_CAPACITY)),
            }),
        }
    }

    /// Enqueues `value` and makes one waiting receiver ready; never blocks or switches (works outside a fiber).
    pub fn send(&self, value: T) {
        self.inner.queue.borrow_mut().push_back(value);
        wake_one(&self.inner.waiters);
    }

    /// Dequeues the oldest message, blocking the current fiber while the channel is empty. Panics if it would
    /// block outside a fiber.
    pub fn recv(&self) -> T {
        loop {
            if let Some(v) = self.inner.queue.borrow_mut().pop_front() {
                return v;
            }
            // Re-check after waking: a receiver that ran before us may have taken the message.
            block_on(&self.inner.waiters, "Channel::recv");
        }
    }
}

/// Creates a rendezvous point (SR `call` answered by an `in` statement): [`Client::call`] blocks until a fiber
/// holding the [`Server`] has accepted the request and replied. Both ends are `Clone` (several clients and servers).
pub fn rendezvous<Q: 'static, A: 'static>() -> (Client<Q, A>, Server<Q, A>) {
    let inner = Rc::new(RvInner {
        requests: RefCell::new(VecDeque::with_capacity(WAITERS_CAPACITY)),
        servers: RefCell::new(VecDeque::with_capacity(WAITERS_CAPACITY)),
    });
    (Client { inner: inner.clone() }, Server { inner })
}

struct RvInner<Q, A> {
    /// Pending requests with the caller's reply slot (on the caller's stack; the caller stays blocked until it
    /// is filled, so the pointer stays valid).
    requests: RefCell<VecDeque<(Q, *mut Slot<A>)>>,
    servers: RefCell<VecDeque<*mut Fiber>>,
}

enum Answer<A> {
    Pending,
    Answered(A),
    Dropped,
}

struct Slot<A> {
    answer: Answer<A>,
    client: *mut Fiber,
}

/// The calling side of a [`rendezvous`].
pub struct Client<Q, A> {
    inner: Rc<RvInner<Q, A>>,
}

/// The accepting side of a [`rendezvous`].
pub struct Server<Q, A> {
    inner: Rc<RvInner<Q, A>>,
}

/// Obligation to answer one accepted request. Dropping it unanswered makes the blocked [`Client::call`] panic.
pub struct Reply<A> {
    slot: *mut Slot<A>,
    /// Tied to the run's thread like everything else here.
    _not_send: PhantomData<Rc<()>>,
}

impl<Q, A> Clone for Client<Q, A> {
    fn clone(&self) -> Self {
        Client { inner: self.inner.clone() }
    }
}

impl<Q, A> Clone for Server<Q, A> {
    fn clone(&self) -> Self {
        Server { inner: self.inner.clone() }
    }
}

impl<Q, A> Client<Q, A> {
    /// Sends `request` and blocks the current fiber until a server replies; returns the answer. Panics outside a
    /// fiber, or if the server drops the [`Reply`] without answering.
    pub fn call(&self, request: Q) -> A {
        let s = sched("Client::call");
        // SAFETY: live scheduler, current fiber checked. `slot` lives in this frame, which cannot return before
        // the slot is answered or dropped (we loop until then); the server side writes it only through the raw
        // pointer, and we read it only through the same pointer after being switched back to.
        unsafe {
            let mut slot = Slot { answer: Answer::Pending, client: current(s) };
            let p: *mut Slot<A> = &raw mut slot;
            self.inner.requests.borrow_mut().push_back((request, p));
            wake_one(&self.inner.servers);
            loop {
                suspend(s);
                match std::mem::replace(&mut (*p).answer, Answer::Pending) {
                    Answer::Answered(a) => return a,
                    Answer::Dropped => panic!("fiber::Client::call: the server dropped the Reply without answering"),
                    Answer::Pending => {}
                }
            }
        }
    }
}

impl<Q, A> Server<Q, A> {
    /// Takes the oldest pending request, blocking the current fiber while there is none; answer it with
    /// [`Reply::reply`]. Panics if it would block outside a fiber.
    pub fn accept(&self) -> (Q, Reply<A>) {
        loop {
            if let Some((q, slot)) = self.inner.requests.borrow_mut().pop_front() {
                return (q, Reply { slot, _not_send: PhantomData });
            }
            block_on(&self.inner.servers, "Server::accept");
        }
    }
}

impl<A> Reply<A> {
    /// Hands `answer` to the blocked caller and makes it ready; the server keeps running (no switch).
    pub fn reply(self, answer: A) {
        self.finish(Answer::Answered(answer));
        std::mem::forget(self);
    }

    fn finish(&self, answer: Answer<A>) {
        // SAFETY: the caller is blocked in `call` until its slot is filled, so the slot is alive; this Reply is the
        // only handle to it and `finish` runs once (reply forgets self, otherwise Drop calls it).
        unsafe {
            (*self.slot).answer = answer;
            make_ready((*self.slot).client);
        }
    }
}

impl<A> Drop for Reply<A> {
    fn drop(&mut self) {
        self.finish(Answer::Dropped);
    }
}
