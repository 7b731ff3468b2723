//! The process's file-backed resident memory, measured: what queries under a memory bound
//! compare with their share of mapped pages, since how much one page fault maps depends on the
//! kernel (fault-around of 64 KiB, or a whole large folio of the page cache: 64 to 512 KiB a
//! fault measured on Linux 6.18 with ext4) and no estimate holds on every machine.

/// Reads the file-backed resident bytes of this process (Linux: the third field of
/// `/proc/self/statm`, the pages of file mappings and shared memory; the program's own
/// pages included, so callers compare changes, not the value).
#[derive(Debug)]
pub(crate) struct FileResident {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    statm: std::fs::File,
    #[cfg(any(target_os = "linux", target_os = "android"))]
    page: u64,
}

impl FileResident {
    /// The reader, or `None` where the system does not say (other systems, no `/proc`).
    pub(crate) fn open() -> Option<FileResident> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            let statm = std::fs::File::open("/proc/self/statm").ok()?;
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let reader = FileResident {
                statm,
                page: u64::try_from(page).ok().filter(|&p| p > 0)?,
            };
            reader.bytes().map(|_| reader)
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        None
    }

    /// The file-backed resident bytes now, if they could be read.
    pub(crate) fn bytes(&self) -> Option<u64> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use std::os::unix::fs::FileExt;
            // One positioned read from the start makes procfs write the line afresh.
            let mut buf = [0u8; 128];
            let n = self.statm.read_at(&mut buf, 0).ok()?;
            let line = std::str::from_utf8(&buf[..n]).ok()?;
            let pages: u64 = line.split_ascii_whitespace().nth(2)?.parse().ok()?;
            Some(pages.saturating_mul(self.page))
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn mapping_a_file_and_reading_it_shows() {
        use std::io::Write;
        let resident = FileResident::open().expect("Linux has /proc/self/statm");
        let mut file = tempfile::tempfile().unwrap();
        let size = 8 << 20;
        file.write_all(&vec![7u8; size]).unwrap();
        // SAFETY: the temporary file is this test's alone and not changed while mapped.
        let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
        let before = resident.bytes().unwrap();
        let sum: u64 = map.iter().step_by(4096).map(|&b| u64::from(b)).sum();
        assert_eq!(sum, 7 * (size as u64 / 4096));
        let after = resident.bytes().unwrap();
        assert!(
            after >= before + size as u64 / 2,
            "{before} -> {after} after reading {size} mapped bytes"
        );
        #[cfg(unix)]
        // SAFETY: nothing refers into the map past this point.
        unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) }.unwrap();
        let released = resident.bytes().unwrap();
        assert!(
            released + (size as u64 / 2) <= after,
            "{after} -> {released}"
        );
    }
}
