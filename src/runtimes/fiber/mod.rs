//! TEMPORARY stub of the fiber runtime's API until the real one lands.
#![allow(missing_docs, dead_code, clippy::new_without_default)]
use std::marker::PhantomData;
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Asm,
    Ucontext,
    Corosensei,
}
impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Asm, Backend::Ucontext, Backend::Corosensei];
    pub fn name(self) -> &'static str {
        match self {
            Backend::Asm => "asm",
            Backend::Ucontext => "ucontext",
            Backend::Corosensei => "corosensei",
        }
    }
    pub fn available(self) -> Result<(), String> {
        Err("stub".into())
    }
}
pub fn run<T: 'static>(_backend: Backend, _main: impl FnOnce() -> T + 'static) -> T {
    unimplemented!()
}
pub fn spawn<T: 'static>(_f: impl FnOnce() -> T + 'static) -> JoinHandle<T> {
    unimplemented!()
}
pub fn yield_now() {}
pub struct JoinHandle<T>(PhantomData<T>);
impl<T> JoinHandle<T> {
    pub fn join(self) -> Result<T, Box<dyn std::any::Any + Send>> {
        unimplemented!()
    }
}
#[derive(Clone)]
pub struct Semaphore;
impl Semaphore {
    pub fn new(_permits: usize) -> Self {
        Semaphore
    }
    pub fn p(&self) {}
    pub fn v(&self) {}
}
pub struct Channel<T>(PhantomData<T>);
impl<T> Clone for Channel<T> {
    fn clone(&self) -> Self {
        Channel(PhantomData)
    }
}
impl<T> Channel<T> {
    pub fn new() -> Self {
        Channel(PhantomData)
    }
    pub fn send(&self, _value: T) {}
    pub fn recv(&self) -> T {
        unimplemented!()
    }
}
pub struct Client<Q, A>(PhantomData<(Q, A)>);
pub struct Server<Q, A>(PhantomData<(Q, A)>);
pub struct Reply<A>(PhantomData<A>);
pub fn rendezvous<Q: 'static, A: 'static>() -> (Client<Q, A>, Server<Q, A>) {
    unimplemented!()
}
impl<Q, A> Client<Q, A> {
    pub fn call(&self, _request: Q) -> A {
        unimplemented!()
    }
}
impl<Q, A> Server<Q, A> {
    pub fn accept(&self) -> (Q, Reply<A>) {
        unimplemented!()
    }
}
impl<A> Reply<A> {
    pub fn reply(self, _answer: A) {}
}
pub struct SwitchPair;
impl SwitchPair {
    pub fn new(_backend: Backend) -> std::io::Result<SwitchPair> {
        unimplemented!()
    }
    pub fn round_trips(&mut self, _n: u64) {}
}
pub const STACK_SIZE: usize = 256 * 1024;
