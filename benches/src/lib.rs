//! Shared helpers of the criterion benches.
//!
//! On a shared, loaded machine wall time says more about the neighbours than about the code. Set
//! `TEXTREUSE_BENCH_CPU_TIME=1` and the benches that use [`cpu_or_wall_main!`] measure the
//! benchmark thread's CPU time (Linux `CLOCK_THREAD_CPUTIME_ID`) instead: per-core throughput
//! that does not count the time other processes hold the core.
//!
//! Thread CPU time does not see work done on other threads (rayon workers). Benches of parallel
//! code measure [`ProcessCpuTime`] instead (the CPU time of all threads of the process): their
//! `main` is `cpu_or_wall_main!(process: ...)`.
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// The calling thread's CPU time in nanoseconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
/// which is exact to the nanosecond, unlike `/proc/thread-self/schedstat` which only advances at
/// scheduler ticks).
pub fn thread_cpu_ns() -> Option<u64> {
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    clock_ns(CLOCK_THREAD_CPUTIME_ID)
}

/// The CPU time of all threads of this process so far, in nanoseconds
/// (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`; threads that have exited still count).
pub fn process_cpu_ns() -> Option<u64> {
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    clock_ns(CLOCK_PROCESS_CPUTIME_ID)
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn clock_ns(clock: i32) -> Option<u64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec (two 64-bit fields on 64-bit Linux), and both
    // clock ids used here exist on every Linux since 2.6.12.
    let rc = unsafe { clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn clock_ns(_clock: i32) -> Option<u64> {
    None
}

/// Criterion measurement of the benchmark thread's CPU time (wall time where unavailable).
#[allow(missing_debug_implementations)] // criterion's WallTime has no Debug
pub struct ThreadCpuTime {
    wall: WallTime,
}

impl Default for ThreadCpuTime {
    fn default() -> Self {
        ThreadCpuTime { wall: WallTime }
    }
}

/// Criterion measurement of the whole process's CPU time, every thread's (wall time where
/// unavailable). For benches whose work runs on rayon workers; the throughput it reports is per
/// CPU-second, not per second on however many cores were used.
#[allow(missing_debug_implementations)] // criterion's WallTime has no Debug
pub struct ProcessCpuTime {
    wall: WallTime,
}

impl Default for ProcessCpuTime {
    fn default() -> Self {
        ProcessCpuTime { wall: WallTime }
    }
}

/// The `Measurement` impl of a CPU-time measurement reading the clock `$clock`.
macro_rules! cpu_measurement {
    ($ty:ty, $clock:path) => {
        impl Measurement for $ty {
            type Intermediate = (Option<u64>, Instant);
            type Value = Duration;

            fn start(&self) -> Self::Intermediate {
                ($clock(), Instant::now())
            }
            fn end(&self, (cpu, wall): Self::Intermediate) -> Duration {
                match (cpu, $clock()) {
                    (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
                    _ => wall.elapsed(),
                }
            }
            fn add(&self, a: &Duration, b: &Duration) -> Duration {
                *a + *b
            }
            fn zero(&self) -> Duration {
                Duration::ZERO
            }
            fn to_f64(&self, value: &Duration) -> f64 {
                value.as_nanos() as f64
            }
            fn formatter(&self) -> &dyn ValueFormatter {
                self.wall.formatter()
            }
        }
    };
}

cpu_measurement!(ThreadCpuTime, thread_cpu_ns);
cpu_measurement!(ProcessCpuTime, process_cpu_ns);

/// `fn main` that runs the given bench functions (each generic over the measurement) with
/// [`ThreadCpuTime`] when `TEXTREUSE_BENCH_CPU_TIME` is set, with wall time otherwise.
/// `cpu_or_wall_main!(process: ...)` uses [`ProcessCpuTime`] instead, for parallel benches.
#[macro_export]
macro_rules! cpu_or_wall_main {
    (process: $($bench:path),+ $(,)?) => {
        $crate::cpu_or_wall_main!(@main $crate::ProcessCpuTime, $($bench),+);
    };
    (@main $cpu:path, $($bench:path),+) => {
        fn main() {
            if std::env::var_os("TEXTREUSE_BENCH_CPU_TIME").is_some() {
                let mut c = criterion::Criterion::default()
                    .with_measurement(<$cpu>::default())
                    .configure_from_args();
                $($bench(&mut c);)+
                c.final_summary();
            } else {
                let mut c = criterion::Criterion::default().configure_from_args();
                $($bench(&mut c);)+
                c.final_summary();
            }
        }
    };
    ($($bench:path),+ $(,)?) => {
        $crate::cpu_or_wall_main!(@main $crate::ThreadCpuTime, $($bench),+);
    };
}
