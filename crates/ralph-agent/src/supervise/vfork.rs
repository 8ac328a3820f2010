//! Starting an agent without copying ralph (Linux): `clone(CLONE_VM | CLONE_VFORK)`, the
//! way `posix_spawn` does, with the child setup ralph needs done in the child.
//!
//! `fork` copies the page tables of the whole process, write-protects every page (the
//! parent then takes a fault on each page it writes while the child lives) and, with
//! other threads running, interrupts their CPUs to flush what they cached of the pages.
//! In `ralph run` (three threads) that was most of ralph's own time per iteration, in
//! the kernel. The standard library spawns with `posix_spawn` only when there is no
//! `pre_exec` closure, and ralph needs one: `posix_spawn` cannot set the death signal
//! (`PR_SET_PDEATHSIG`) that takes the agent down with a SIGKILLed ralph.
//!
//! The child shares ralph's memory and runs on a stack of its own while the calling
//! thread waits (`CLONE_VFORK`) until it has called `execve` or exited. It therefore makes
//! only system calls, on data prepared beforehand (program path, arguments, environment
//! as C strings), and allocates nothing. Signals are blocked around the clone and the
//! child sets every handled signal back to its default before unblocking them, so no
//! handler of ralph's runs on ralph's memory from the child. An `execve` that fails sends
//! its `errno` through a close-on-exec pipe, which the parent reads once it resumes.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// The stack the child runs on until `execve`: the setup uses a few hundred bytes; a
/// margin costs nothing but address space.
const CHILD_STACK_BYTES: usize = 64 * 1024;

/// What the child needs, prepared by the parent (pointers into the parent's memory).
#[repr(C)]
struct Setup {
    path: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    /// `sh` and the script, then the arguments: for a file without `#!`, as `execvp` does.
    sh_argv: *const *const libc::c_char,
    /// Null when the child stays in ralph's directory.
    cwd: *const libc::c_char,
    /// The child's ends, made its 0, 1 and 2.
    stdio: [RawFd; 3],
    /// The write end of the error pipe.
    report: RawFd,
    /// ralph's pid: the child checks it is still its parent after setting the death
    /// signal (a ralph that died before that would never send it).
    parent: libc::pid_t,
    /// A session of its own (no controlling terminal) rather than only a process group.
    own_session: bool,
}

/// A started child: its pid, a pidfd to wait on, and ralph's ends of its streams.
pub(crate) struct Started {
    pub(crate) pid: libc::pid_t,
    pub(crate) pidfd: OwnedFd,
    pub(crate) stdin: Option<OwnedFd>,
    pub(crate) stdout: OwnedFd,
    /// `None` when stderr goes down the stdout pipe.
    pub(crate) stderr: Option<OwnedFd>,
}

/// Whether this kernel has what the launcher needs (`pidfd_open`, Linux 5.3); asked once.
pub(crate) fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| pidfd_open(std::process::id() as libc::pid_t).is_ok())
}

/// Starts `program` with `args`, the environment `env` (the whole of it), in `cwd`, in a
/// process group of its own (leading a session of its own, without a controlling
/// terminal, when `own_session`), with stdin from a pipe (`piped_stdin`) or `/dev/null`,
/// and stderr on a pipe of its own or on stdout's (`merge_stderr`).
pub(crate) fn start(
    program: &OsStr,
    args: &[OsString],
    env: &[(OsString, OsString)],
    cwd: Option<&Path>,
    piped_stdin: bool,
    merge_stderr: bool,
    own_session: bool,
) -> io::Result<Started> {
    let path = resolve(program, env, cwd)?;
    let path = c_string(path.as_os_str().as_bytes())?;
    let mut arg_strings = vec![c_string(program.as_bytes())?];
    for arg in args {
        arg_strings.push(c_string(arg.as_bytes())?);
    }
    let env_strings = env
        .iter()
        .map(|(k, v)| {
            let mut kv = k.clone().into_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            c_string(&kv)
        })
        .collect::<io::Result<Vec<_>>>()?;
    let sh_name = c_string(b"sh")?;
    let argv = pointers(arg_strings.iter());
    let envp = pointers(env_strings.iter());
    let sh_argv = pointers(
        std::iter::once(&sh_name)
            .chain(std::iter::once(&path))
            .chain(arg_strings.iter().skip(1)),
    );
    let cwd = cwd
        .map(|d| c_string(d.as_os_str().as_bytes()))
        .transpose()?;

    let (stdin_child, stdin_parent) = if piped_stdin {
        let (r, w) = pipe()?;
        (r, Some(w))
    } else {
        (open_dev_null()?, None)
    };
    let (stdout_parent, stdout_child) = pipe()?;
    let (stderr_parent, stderr_child) = if merge_stderr {
        (None, stdout_child.try_clone()?)
    } else {
        let (parent, child) = pipe()?;
        (Some(parent), child)
    };
    let (report_read, report_write) = pipe()?;

    let setup = Setup {
        path: path.as_ptr(),
        argv: argv.as_ptr(),
        envp: envp.as_ptr(),
        sh_argv: sh_argv.as_ptr(),
        cwd: cwd.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
        stdio: [
            stdin_child.as_raw_fd(),
            stdout_child.as_raw_fd(),
            stderr_child.as_raw_fd(),
        ],
        report: report_write.as_raw_fd(),
        parent: std::process::id() as libc::pid_t,
        own_session,
    };
    let mut stack = vec![0u8; CHILD_STACK_BYTES];
    let pid = clone_child(&setup, &mut stack)?;
    // The child has called execve (or exited): its ends are ours to close.
    drop((stdin_child, stdout_child, stderr_child, report_write));
    if let Some(errno) = read_report(&report_read) {
        reap(pid);
        return Err(io::Error::from_raw_os_error(errno));
    }
    let pidfd = match pidfd_open(pid) {
        Ok(fd) => fd,
        Err(e) => {
            // SAFETY: plain system calls on the child just started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            reap(pid);
            return Err(e);
        }
    };
    Ok(Started {
        pid,
        pidfd,
        stdin: stdin_parent,
        stdout: stdout_parent,
        stderr: stderr_parent,
    })
}

/// Runs the clone with every signal blocked in the calling thread, and returns the
/// child's pid once it has exec'd or exited.
fn clone_child(setup: &Setup, stack: &mut [u8]) -> io::Result<libc::pid_t> {
    // The stack grows down from its end, aligned to 16 bytes.
    let top = stack.as_mut_ptr().wrapping_add(stack.len());
    let top = top.wrapping_sub(top as usize % 16);
    // SAFETY: sigfillset and pthread_sigmask write into the sets given; clone runs
    // `child_main` on `stack`, which outlives the call (CLONE_VFORK suspends this thread
    // until the child has exec'd or exited), with `setup`, which lives as long.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::clone(
            child_main,
            top.cast(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_ref(setup).cast_mut().cast(),
        );
        let error = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 { Err(error) } else { Ok(pid) }
    }
}

/// The child, between clone and execve: system calls only.
extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `Setup`, alive until this child execs or exits; every
    // call below is an async-signal-safe system call on prepared data.
    unsafe {
        let setup = &*arg.cast::<Setup>();
        let fail = |errno: libc::c_int| -> ! {
            libc::write(
                setup.report,
                std::ptr::from_ref(&errno).cast(),
                std::mem::size_of::<libc::c_int>(),
            );
            libc::_exit(127)
        };
        // Every handled signal back to its default (the handlers are ralph's, on ralph's
        // memory), and SIGPIPE too (Rust's runtime ignores it; agents expect the default).
        for signal in 1..=libc::SIGRTMAX() {
            let mut action: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut action) == 0
                && (action.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
                && action.sa_sigaction != libc::SIG_DFL
            {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(signal, &default, std::ptr::null_mut());
            }
        }
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) != 0
        {
            fail(*libc::__errno_location());
        }
        if libc::getppid() != setup.parent {
            fail(libc::ESRCH);
        }
        // A new session is a new process group too, led by the child.
        let grouped = if setup.own_session {
            libc::setsid() >= 0
        } else {
            libc::setpgid(0, 0) == 0
        };
        if !grouped {
            fail(*libc::__errno_location());
        }
        for (target, &fd) in setup.stdio.iter().enumerate() {
            if libc::dup2(fd, target as libc::c_int) < 0 {
                fail(*libc::__errno_location());
            }
        }
        if !setup.cwd.is_null() && libc::chdir(setup.cwd) != 0 {
            fail(*libc::__errno_location());
        }
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::pthread_sigmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        libc::execve(setup.path, setup.argv, setup.envp);
        let errno = *libc::__errno_location();
        if errno == libc::ENOEXEC {
            // A script without `#!`: the shell runs it, as execvp does.
            libc::execve(c"/bin/sh".as_ptr(), setup.sh_argv, setup.envp);
        }
        fail(errno)
    }
}

/// The `errno` the child reported, if it failed before (or in) execve.
fn read_report(report: &OwnedFd) -> Option<libc::c_int> {
    let mut errno: libc::c_int = 0;
    loop {
        // SAFETY: reads at most the size of `errno` into it.
        let n = unsafe {
            libc::read(
                report.as_raw_fd(),
                std::ptr::from_mut(&mut errno).cast(),
                std::mem::size_of::<libc::c_int>(),
            )
        };
        if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        return (n == std::mem::size_of::<libc::c_int>() as isize).then_some(errno);
    }
}

/// Waits for (and reaps) a child that has exited or is about to: one that failed to
/// start, or one just killed.
pub(super) fn reap(pid: libc::pid_t) {
    let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid), None);
}

/// The program's path as `execvp` finds it: as given when it holds a `/`, else the first
/// executable file of that name in the child's `PATH` (a relative entry relative to the
/// child's directory).
fn resolve(
    program: &OsStr,
    env: &[(OsString, OsString)],
    cwd: Option<&Path>,
) -> io::Result<PathBuf> {
    if program.as_bytes().contains(&b'/') {
        return Ok(PathBuf::from(program));
    }
    if program.is_empty() {
        return Err(io::Error::from_raw_os_error(libc::ENOENT));
    }
    let path = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map_or_else(|| OsString::from("/bin:/usr/bin"), |(_, v)| v.clone());
    let mut denied = false;
    for dir in path.as_bytes().split(|&b| b == b':') {
        let dir = if dir.is_empty() {
            Path::new(".")
        } else {
            Path::new(OsStr::from_bytes(dir))
        };
        let candidate = dir.join(program);
        let on_disk = match cwd {
            Some(cwd) if candidate.is_relative() => cwd.join(&candidate),
            _ => candidate.clone(),
        };
        let Ok(meta) = std::fs::metadata(&on_disk) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let c = c_string(on_disk.as_os_str().as_bytes())?;
        // SAFETY: access reads the NUL-terminated path.
        if unsafe { libc::access(c.as_ptr(), libc::X_OK) } == 0 {
            return Ok(candidate);
        }
        denied = true;
    }
    Err(io::Error::from_raw_os_error(if denied {
        libc::EACCES
    } else {
        libc::ENOENT
    }))
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "an argument or environment variable holds a NUL byte",
        )
    })
}

/// A null-terminated array of pointers to `strings`.
fn pointers<'a>(strings: impl Iterator<Item = &'a CString>) -> Vec<*const libc::c_char> {
    strings
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

/// A close-on-exec pipe: (read end, write end).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (r, w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    Ok((r, w))
}

fn open_dev_null() -> io::Result<OwnedFd> {
    let file = std::fs::File::open("/dev/null")?;
    Ok(file.into())
}

fn pidfd_open(pid: libc::pid_t) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just returned to us and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

#[cfg(test)]
#[path = "vfork_tests.rs"]
mod tests;
