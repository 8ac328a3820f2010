//! A pseudo-terminal for agents that need one: the child gets the slave side as stdin,
//! stdout and stderr in a new session (it becomes the controlling terminal), ralph reads
//! the master side. Bytes are passed on unchanged (`\r\n` included: the framer strips the
//! `\r`). Reading the master fails with `EIO` once every slave descriptor is closed; that
//! is the PTY's end of file.

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};

use nix::fcntl::{FcntlArg, OFlag, fcntl, open};
use nix::pty::{grantpt, posix_openpt, ptsname_r, unlockpt};
use nix::sys::stat::Mode;
use tokio::io::unix::AsyncFd;

/// Terminal size given to PTY children. Wide, so agents that format for the terminal
/// width wrap as little as possible.
pub const PTY_COLUMNS: u16 = 200;
pub const PTY_ROWS: u16 = 50;

/// Both sides of a fresh PTY. Every descriptor is close-on-exec; the child receives
/// duplicates of the slave as its standard streams.
pub(crate) struct Pty {
    pub(crate) master: OwnedFd,
    pub(crate) slave: OwnedFd,
}

impl Pty {
    pub(crate) fn open() -> io::Result<Pty> {
        let master = posix_openpt(OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC)?;
        grantpt(&master)?;
        unlockpt(&master)?;
        let name = ptsname_r(&master)?;
        let slave = open(
            name.as_str(),
            OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC,
            Mode::empty(),
        )?;
        let size = libc::winsize {
            ws_row: PTY_ROWS,
            ws_col: PTY_COLUMNS,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCSWINSZ reads one `winsize` from the pointer, which is valid for the
        // duration of the call; the descriptor is open.
        let rc = unsafe { libc::ioctl(slave.as_raw_fd(), libc::TIOCSWINSZ, &size) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Pty {
            master: master.into(),
            slave,
        })
    }
}

/// The non-blocking, tokio-registered master side.
pub(crate) struct PtyReader {
    fd: AsyncFd<OwnedFd>,
}

impl PtyReader {
    pub(crate) fn new(master: OwnedFd) -> io::Result<PtyReader> {
        let flags = OFlag::from_bits_truncate(fcntl(master.as_fd(), FcntlArg::F_GETFL)?);
        fcntl(master.as_fd(), FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
        // SAFETY: `master` is an owned, open descriptor that the AsyncFd owns from here
        // on; nothing else closes or replaces it.
        let fd = unsafe { AsyncFd::register(master)? };
        Ok(PtyReader { fd })
    }

    /// Reads what is available; `Ok(0)` at end of file (`EIO`). Cancel-safe.
    pub(crate) async fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut guard = self.fd.readable().await?;
            match guard.try_io(|fd| nix::unistd::read(fd.get_ref(), buf).map_err(io::Error::from)) {
                Ok(Ok(n)) => return Ok(n),
                Ok(Err(e)) if e.raw_os_error() == Some(libc::EIO) => return Ok(0),
                Ok(Err(e)) => return Err(e),
                Err(_would_block) => continue,
            }
        }
    }
}
