//! Opening under `.ralph/` with one `openat2` (Linux 5.6): every name from `.ralph` on
//! is resolved by the kernel refusing links, in the same call that opens the file.

use super::*;

/// Opens `inside` (from `.ralph` on) under `workspace` with `how`, refusing a link
/// at every name; `None` when `openat2` cannot be used here (another answer than a
/// refusal), and the caller goes its own way.
#[cfg(target_os = "linux")]
fn openat2_under(
    workspace: &Path,
    inside: &Path,
    how: nix::fcntl::OpenHow,
) -> Option<nix::Result<std::os::fd::OwnedFd>> {
    use nix::errno::Errno;
    use nix::fcntl::{ResolveFlag, openat2};
    use nix::sys::stat::Mode;
    use std::sync::atomic::Ordering;
    if NO_OPENAT2.load(Ordering::Relaxed) {
        return None;
    }
    // The workspace itself may be reached through links (a home directory moved
    // elsewhere): only what lies under it is ralph's to check.
    let dir = match nix::fcntl::open(
        workspace,
        OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    ) {
        Ok(dir) => dir,
        Err(e) => return Some(Err(e)),
    };
    match openat2(&dir, inside, how.resolve(ResolveFlag::RESOLVE_NO_SYMLINKS)) {
        Err(Errno::ENOSYS | Errno::E2BIG) => {
            NO_OPENAT2.store(true, Ordering::Relaxed);
            None
        }
        // A seccomp filter may answer EPERM for a call it does not know: the usual
        // way tells a refusal from that.
        Err(Errno::EPERM) => None,
        opened => Some(opened),
    }
}

/// Opens `path` refusing a link at every name from `.ralph` on, in one system call;
/// `None` when that cannot be done here (another system, `openat2` unavailable, a
/// followed link, a path without `.ralph`), and the caller opens it its own way.
#[cfg(target_os = "linux")]
pub(super) fn open(path: &Path, access: &Access, links: Links) -> Option<io::Result<File>> {
    use nix::errno::Errno;
    use nix::fcntl::OpenHow;
    use nix::sys::stat::Mode;
    if links != Links::Refuse {
        return None;
    }
    let (workspace, inside) = split_at_ralph(path)?;
    let oflags = access.oflags() | OFlag::from_bits_truncate(flags(links));
    // openat2 refuses a mode without O_CREAT; 0666 less the umask is what
    // `File::create` makes.
    let mode = if oflags.contains(OFlag::O_CREAT) {
        Mode::from_bits_truncate(0o666)
    } else {
        Mode::empty()
    };
    let how = OpenHow::new().flags(oflags).mode(mode);
    Some(match openat2_under(workspace, inside, how)? {
        Ok(fd) => Ok(File::from(fd)),
        // A link, or something else than a directory, on the way: name it as the
        // check does, or, if it is gone already, report what the open met.
        Err(e @ (Errno::ELOOP | Errno::ENOTDIR | Errno::ENXIO)) => {
            let error = io::Error::from(e);
            match check_ralph_dirs(path) {
                Err(refused) => Err(refused),
                Ok(()) if e == Errno::ENOTDIR => Err(error),
                Ok(()) => Err(explain(path, error, links)),
            }
        }
        Err(e) => Err(e.into()),
    })
}

#[cfg(not(target_os = "linux"))]
pub(super) fn open(_: &Path, _: &Access, _: Links) -> Option<io::Result<File>> {
    None
}

/// Opens the directory that holds `path` with `flags`, by one `openat2` that refuses a
/// link at every name from `.ralph` on: what is then done in it by name (`mkdirat`,
/// `renameat`) stays in it, whatever link is swapped in on the way afterwards. `None`
/// when that cannot be done here, as for [`open`].
#[cfg(target_os = "linux")]
pub(super) fn parent(path: &Path, flags: OFlag) -> Option<io::Result<std::os::fd::OwnedFd>> {
    use nix::errno::Errno;
    use nix::fcntl::OpenHow;
    let (workspace, inside) = split_at_ralph(path)?;
    let how = OpenHow::new().flags(flags | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC);
    Some(match openat2_under(workspace, inside.parent()?, how)? {
        Ok(fd) => Ok(fd),
        // Named as the check names it, if it still finds the link.
        Err(e @ (Errno::ELOOP | Errno::ENOTDIR | Errno::ENXIO)) => {
            check_ralph_dirs(path).and(Err(e.into()))
        }
        Err(e) => Err(e.into()),
    })
}

#[cfg(not(target_os = "linux"))]
pub(super) fn parent(_: &Path, _: OFlag) -> Option<io::Result<std::os::fd::OwnedFd>> {
    None
}
