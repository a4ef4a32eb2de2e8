//! A POSIX interval timer (`timer_create`) whose every expiry interrupts one thread with a signal: the
//! disturbance `timer.stolen` measures. Each event is one hrtimer interrupt, the kernel's expiry
//! processing and one signal delivered to the interrupted thread (handler + `sigreturn`).

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Timer signals handled so far in this process.
static EVENTS: AtomicU64 = AtomicU64::new(0);

/// The signal the timer sends: a real-time signal, so it cannot collide with the ones std, ctrlc or a
/// terminal use. `+ 2` leaves SIGRTMIN itself to anyone who takes "the first" RT signal.
fn timer_signal() -> libc::c_int {
    libc::SIGRTMIN() + 2
}

/// Counts the event and returns: an atomic add is async-signal-safe.
extern "C" fn on_timer(_signal: libc::c_int) {
    EVENTS.fetch_add(1, Ordering::Relaxed);
}

/// Timer signals handled so far in this process (every [`SignalTimer`] counts here).
pub fn events() -> u64 {
    EVENTS.load(Ordering::Relaxed)
}

/// Installs [`on_timer`] for the timer signal once per process. It stays installed: a signal still
/// pending when a timer is disarmed must find the handler, not the default action (termination).
fn install_handler() -> io::Result<()> {
    static INSTALLED: OnceLock<Result<(), i32>> = OnceLock::new();
    let result = INSTALLED.get_or_init(|| {
        // SAFETY: an all-zero sigaction is valid (no flags, empty mask) before the fields are set; the
        // handler has the `fn(c_int)` shape sigaction expects without SA_SIGINFO and only does an
        // atomic add; SA_RESTART resumes any system call the signal interrupts.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_timer as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(timer_signal(), &action, std::ptr::null_mut()) == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error().raw_os_error().unwrap_or(0))
            }
        }
    });
    result.map_err(io::Error::from_raw_os_error)
}

/// A `CLOCK_MONOTONIC` POSIX timer that signals the thread that created it (`SIGEV_THREAD_ID`), so the
/// disturbance lands on the measured thread and its CPU, not on any thread of the process. Deleted on
/// drop. Not `Send`: it belongs to its thread.
pub struct SignalTimer {
    id: libc::timer_t,
    period: libc::timespec,
}

impl SignalTimer {
    /// A disarmed timer with period `period_ns` (> 0) targeting the calling thread.
    ///
    /// Errors: the handler could not be installed, or `timer_create` refused (e.g. EAGAIN: too many
    /// timers).
    pub fn for_current_thread(period_ns: u64) -> io::Result<SignalTimer> {
        install_handler()?;
        // SAFETY: an all-zero sigevent is valid before its fields are set; `gettid` cannot fail;
        // `timer_create` writes the new timer's id into `id`, which lives for the call.
        let id = unsafe {
            let mut event: libc::sigevent = std::mem::zeroed();
            event.sigev_notify = libc::SIGEV_THREAD_ID;
            event.sigev_signo = timer_signal();
            event.sigev_notify_thread_id = libc::gettid();
            let mut id: libc::timer_t = std::ptr::null_mut();
            if libc::timer_create(libc::CLOCK_MONOTONIC, &mut event, &mut id) != 0 {
                return Err(io::Error::last_os_error());
            }
            id
        };
        let period = libc::timespec {
            tv_sec: (period_ns / 1_000_000_000) as libc::time_t,
            tv_nsec: (period_ns % 1_000_000_000) as libc::c_long,
        };
        Ok(SignalTimer { id, period })
    }

    /// Arms the timer (first expiry one period from now, then every period) or disarms it.
    ///
    /// Errors: `timer_settime` refused (only possible for an invalid period).
    pub fn set(&self, armed: bool) -> io::Result<()> {
        let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        let value = if armed { self.period } else { zero };
        let spec = libc::itimerspec { it_interval: value, it_value: value };
        // SAFETY: `self.id` is a live timer (deleted only in drop); `spec` is valid for the call.
        if unsafe { libc::timer_settime(self.id, 0, &spec, std::ptr::null_mut()) } == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

impl Drop for SignalTimer {
    fn drop(&mut self) {
        // SAFETY: `self.id` came from timer_create and is deleted exactly once, here.
        unsafe { libc::timer_delete(self.id) };
    }
}

/// Serialises the tests that arm timers: they all count into the one process-wide [`events`].
#[cfg(test)]
pub static TEST_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(test)]
mod tests {
    use super::*;
    use overhead_clock::clock_gettime_ns;

    fn spin_ms(ms: u64) {
        let end = clock_gettime_ns(libc::CLOCK_MONOTONIC) + ms * 1_000_000;
        while clock_gettime_ns(libc::CLOCK_MONOTONIC) < end {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn armed_timer_signals_this_thread_and_disarmed_one_does_not() {
        let _serial = TEST_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        let timer = SignalTimer::for_current_thread(100_000).unwrap(); // 10 kHz
        let before = events();
        timer.set(true).unwrap();
        spin_ms(30);
        timer.set(false).unwrap();
        let fired = events() - before;
        // ≤ 300 expiries in 30 ms; a loaded VM may merge some (one pending signal per timer), never add.
        assert!((1..=320).contains(&fired), "{fired} signals in 30 ms at 10 kHz");
        spin_ms(2); // a signal pending at disarm arrives now
        let settled = events();
        spin_ms(20);
        assert_eq!(events(), settled, "a disarmed timer kept signalling");
        drop(timer);
    }
}
