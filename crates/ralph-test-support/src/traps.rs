//! Files that hang or mislead a reader of a directory that anyone may write to (a run's
//! steering requests): tests plant them and check that ralph neither blocks nor follows
//! them.

use std::path::Path;

/// The apparent size of the sparse trap: far more than a reader may hold in memory.
pub const HUGE_TRAP_BYTES: u64 = 1 << 40;

/// Plants in `dir` `1-link.json`, a symbolic link to `outside`; `2-fifo.json`, a FIFO no
/// one writes (opening it to read blocks); and `3-huge.json`, a sparse file of
/// [`HUGE_TRAP_BYTES`] (read whole, it exhausts memory).
pub fn plant_read_traps(dir: &Path, outside: &Path) {
    std::os::unix::fs::symlink(outside, dir.join("1-link.json")).expect("the link trap");
    nix::unistd::mkfifo(
        &dir.join("2-fifo.json"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .expect("the FIFO trap");
    let huge = std::fs::File::create(dir.join("3-huge.json")).expect("the huge trap");
    huge.set_len(HUGE_TRAP_BYTES).expect("the huge trap's size");
}
