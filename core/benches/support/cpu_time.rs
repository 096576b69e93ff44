//! CPU time of the calling thread (Linux `CLOCK_THREAD_CPUTIME_ID`), for timing on a shared
//! machine: time the thread spent waiting for a CPU while other processes ran is not
//! counted, which wall-clock time would add to every sample. On an idle machine the two
//! agree. Declared by hand because the core has no `libc` dependency, not even for benches.

use std::time::Duration;

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

/// The thread's CPU time so far.
pub fn now() -> Duration {
    let mut time = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `time` is a valid, writable timespec of the C layout on x86_64/aarch64 Linux.
    let status = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if status != 0 {
        panic!("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    }
    Duration::new(time.tv_sec as u64, time.tv_nsec as u32)
}
