//! The threads the whole-slice functions run on.
//!
//! A call made from a thread of a rayon pool (inside `ThreadPool::install`, or from a task
//! of the global pool) runs on that pool, as any rayon code does: that is how a Rust program
//! picks the threads. A call from any other thread (`main`, a thread of the application's
//! own, an OpenMP thread, every C caller) runs on the facade's own pool, whose size is
//!
//! 1. the last [`set_num_threads`] with `n > 0`, else
//! 2. the environment variable `ADN_NUM_THREADS` (a positive decimal number; read once, at
//!    the first call that needs the pool; anything else is ignored), else
//! 3. the number of cores the process may run on ([`std::thread::available_parallelism`]:
//!    the CPU affinity mask, and on Linux the cgroup CPU quota).
//!
//! With one thread nothing is handed to a pool: the call runs on the calling thread. Small
//! inputs also run on the calling thread (see `INLINE_SUM` in the crate root). The bits
//! never depend on any of this.
//!
//! Calls from many threads at once share the one pool: its workers do the work while the
//! callers wait, so at most that many threads compute for reprosum at any time (no
//! oversubscription when, say, every thread of an OpenMP parallel region calls a sum), and
//! no worker ever waits for a caller's thread (no deadlock). Changing the size while calls
//! run is safe: running calls finish on the pool they started on. A child process made by
//! `fork` (Python's `multiprocessing`, a shell-out) starts a pool of its own at its first
//! call (the parent's threads are not in the child).

use crate::Error;
use std::sync::{Arc, Mutex, MutexGuard};

/// The facade pool's settings and the pool itself (built on first use).
struct State {
    /// The size [`set_num_threads`] asked for; 0: the default.
    requested: usize,
    /// `ADN_NUM_THREADS` or the available parallelism, once read.
    default: Option<usize>,
    /// The pool of the current size, when that size is above 1.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The process that started the pool's threads (a child made by `fork` has none of them).
    pid: u32,
}

static STATE: Mutex<State> = Mutex::new(State {
    requested: 0,
    default: None,
    pool: None,
    pid: 0,
});

fn state() -> MutexGuard<'static, State> {
    // A panic while holding the lock cannot leave the state inconsistent (each field is
    // written whole), so a poisoned lock is used as it is.
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// `ADN_NUM_THREADS` if it is a positive decimal number.
fn from_env() -> Option<usize> {
    let v = std::env::var("ADN_NUM_THREADS").ok()?;
    v.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

impl State {
    fn size(&mut self) -> usize {
        if self.requested > 0 {
            return self.requested;
        }
        *self.default.get_or_insert_with(|| {
            from_env().unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        })
    }

    /// The pool of the current size (built if needed); `None` for one thread.
    fn pool(&mut self) -> Result<Option<Arc<rayon::ThreadPool>>, Error> {
        let n = self.size();
        if n <= 1 {
            self.pool = None;
            return Ok(None);
        }
        let pid = std::process::id();
        if self.pid != pid {
            // A child of `fork`: the pool's threads stayed in the parent, and its queues may be
            // in any state. Leak it (dropping would wake threads that do not exist) and start
            // another.
            if let Some(p) = self.pool.take() {
                core::mem::forget(p);
            }
        }
        if let Some(p) = &self.pool {
            if p.current_num_threads() == n {
                return Ok(Some(Arc::clone(p)));
            }
        }
        let p = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("reprosum-{i}"))
            .build()
            // The system refused a thread (or its stack).
            .map_err(|_| Error::OutOfMemory)?;
        let p = Arc::new(p);
        self.pool = Some(Arc::clone(&p));
        self.pid = pid;
        Ok(Some(p))
    }
}

/// Sets the number of threads of the facade's pool: `n > 0` threads (1: the calling thread
/// only), or 0 for the default (`ADN_NUM_THREADS`, else the cores the process may run on).
/// The threads are started here, so that a system that refuses them says so now.
///
/// Which threads a call runs on: a call made from a thread of a rayon pool (inside
/// `ThreadPool::install`, or a task of the global pool) runs on that pool, as any rayon code;
/// a call from any other thread runs on the facade's own pool, of this size, shared by every
/// such caller (callers wait for their own call; no worker waits for a caller). The default
/// is `ADN_NUM_THREADS` (a positive number, read once) or else
/// [`std::thread::available_parallelism`] (the CPU affinity mask and cgroup quota). Small
/// inputs run on the calling thread. A child of `fork` starts its own pool. The bits never
/// depend on any of this.
///
/// # Errors
/// [`Error::OutOfMemory`] if the threads cannot be started; the previous setting is kept.
pub fn set_num_threads(n: usize) -> Result<(), Error> {
    let mut s = state();
    let old = s.requested;
    s.requested = n;
    // `pool` replaces the pool only once a new one is built.
    s.pool().map(|_| ()).inspect_err(|_| s.requested = old)
}

/// The number of threads a call from outside any rayon pool runs on (at least 1): the
/// value [`set_num_threads`] set, else the default.
pub fn num_threads() -> usize {
    state().size()
}

/// Where a call's work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Threads {
    /// On the calling thread only (no rayon call may be made).
    Calling,
    /// On the current rayon pool, of this many threads.
    Pool(usize),
}

/// Runs `f` where the work should run: on the calling thread when `small` (or when the
/// facade pool has one thread), on the current rayon pool when called from one, else on the
/// facade's pool.
///
/// # Errors
/// [`Error::OutOfMemory`] when the pool cannot be started (nothing has run then).
pub(crate) fn run<R: Send>(
    small: bool,
    f: impl FnOnce(Threads) -> Result<R, Error> + Send,
) -> Result<R, Error> {
    if rayon::current_thread_index().is_some() {
        return f(Threads::Pool(rayon::current_num_threads()));
    }
    if small {
        return f(Threads::Calling);
    }
    let pool = state().pool()?;
    match pool {
        None => f(Threads::Calling),
        Some(p) => p.install(|| f(Threads::Pool(rayon::current_num_threads()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test changes the process-wide setting (tests in this binary run in parallel and
    // every other one is indifferent to the size: the bits never depend on it).
    #[test]
    fn size_is_set_read_and_restored() {
        set_num_threads(3).unwrap();
        assert_eq!(num_threads(), 3);
        let seen = run(false, Ok).unwrap();
        assert_eq!(seen, Threads::Pool(3));
        // Small inputs stay on the calling thread.
        assert_eq!(run(true, Ok).unwrap(), Threads::Calling);
        set_num_threads(1).unwrap();
        assert_eq!(num_threads(), 1);
        assert_eq!(run(false, Ok).unwrap(), Threads::Calling);
        // Inside a rayon pool, that pool is used whatever the setting.
        let p = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        assert_eq!(p.install(|| run(false, Ok)).unwrap(), Threads::Pool(2));
        set_num_threads(0).unwrap();
        assert!(num_threads() >= 1);
    }
}
