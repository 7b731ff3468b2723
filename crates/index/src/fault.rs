//! Faults on segment maps: a segment file truncated (or replaced in place) by someone else
//! while it is mapped makes reads past its new end raise SIGBUS, which would kill the
//! process. On Linux a [`Watch`] registers the map's address range with a SIGBUS handler
//! (installed once, before any other the process had, which it still calls for every other
//! fault): a fault inside a watched map gets a page of zeros mapped over it and is recorded;
//! the read goes on with zeros, which fail the block checksums, and the query reports the
//! file as damaged ([`Segment::damage`](crate::segment::Segment::damage)). Elsewhere a
//! `Watch` does nothing and such a fault still ends the process.
pub(crate) use imp::Watch;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod imp {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use memmap2::Mmap;

    /// How many maps can be watched at once (16 segments per index at most, so about 250
    /// open indexes); a map beyond that is simply not watched.
    const SLOTS: usize = 4096;

    struct Slot {
        used: AtomicBool,
        start: AtomicUsize,
        len: AtomicUsize,
        faulted: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Slot = Slot {
        used: AtomicBool::new(false),
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        faulted: AtomicBool::new(false),
    };
    static TABLE: [Slot; SLOTS] = [EMPTY; SLOTS];
    static PAGE: AtomicUsize = AtomicUsize::new(4096);
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
    static INSTALL: Once = Once::new();

    /// The handler: only atomics and `mmap`/`sigaction` system calls (no allocation, no locks).
    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        for slot in &TABLE {
            let start = slot.start.load(Ordering::Acquire);
            if start != 0 && addr >= start && addr - start < slot.len.load(Ordering::Acquire) {
                let page = PAGE.load(Ordering::Relaxed);
                let at = addr & !(page - 1);
                // SAFETY: `at..at + page` lies inside a live read-only map of ours (the slot is
                // cleared before the map is dropped); replacing that page by zeros changes what
                // our reads see, nothing else.
                let p = unsafe {
                    libc::mmap(
                        at as *mut libc::c_void,
                        page,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                        -1,
                        0,
                    )
                };
                if p != libc::MAP_FAILED {
                    slot.faulted.store(true, Ordering::Release);
                    return;
                }
            }
        }
        // Not ours: what the process would have done without us.
        match PREVIOUS.get() {
            Some(old) if old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN => {
                // SAFETY: the previous handler, called as it was registered.
                unsafe {
                    if old.sa_flags & libc::SA_SIGINFO != 0 {
                        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                            std::mem::transmute(old.sa_sigaction);
                        f(sig, info, ctx);
                    } else {
                        let f: extern "C" fn(libc::c_int) = std::mem::transmute(old.sa_sigaction);
                        f(sig);
                    }
                }
            }
            _ => {
                // The default action: restored, the faulting read repeats and ends the process
                // as it would have.
                // SAFETY: plain sigaction call with a zeroed (default) action.
                unsafe {
                    let mut dfl: libc::sigaction = std::mem::zeroed();
                    dfl.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(libc::SIGBUS, &dfl, std::ptr::null_mut());
                }
            }
        }
    }

    fn install() {
        INSTALL.call_once(|| {
            // SAFETY: sysconf and sigaction with valid arguments; the old action is kept.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE.store(page as usize, Ordering::Relaxed);
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                libc::sigemptyset(&mut action.sa_mask);
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGBUS, &action, &mut old) == 0 {
                    let _ = PREVIOUS.set(old);
                }
            }
        });
    }

    /// A map registered with the SIGBUS handler for as long as this lives (drop it before the
    /// map).
    #[derive(Debug)]
    pub(crate) struct Watch {
        slot: Option<usize>,
    }

    impl Watch {
        pub(crate) fn new(map: &Mmap) -> Watch {
            if map.is_empty() {
                return Watch { slot: None };
            }
            install();
            let slot = TABLE.iter().position(|s| {
                s.used
                    .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            });
            if let Some(i) = slot {
                let s = &TABLE[i];
                s.faulted.store(false, Ordering::Relaxed);
                s.len.store(map.len(), Ordering::Release);
                s.start.store(map.as_ptr() as usize, Ordering::Release);
            }
            Watch { slot }
        }

        /// Whether a read of the map faulted.
        pub(crate) fn faulted(&self) -> bool {
            self.slot
                .is_some_and(|i| TABLE[i].faulted.load(Ordering::Acquire))
        }
    }

    impl Drop for Watch {
        fn drop(&mut self) {
            if let Some(i) = self.slot {
                let s = &TABLE[i];
                s.start.store(0, Ordering::Release);
                s.len.store(0, Ordering::Release);
                s.used.store(false, Ordering::Release);
            }
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod imp {
    use memmap2::Mmap;

    /// Does nothing on this platform: a fault on a map ends the process.
    #[derive(Debug)]
    pub(crate) struct Watch;

    impl Watch {
        pub(crate) fn new(_map: &Mmap) -> Watch {
            Watch
        }

        pub(crate) fn faulted(&self) -> bool {
            false
        }
    }
}
