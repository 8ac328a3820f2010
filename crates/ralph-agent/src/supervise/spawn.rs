//! Starting the child: its own process group (or session: on a PTY, or when asked to have
//! no controlling terminal), death signal tied to
//! ralph, stdin never left open, stdout pipe enlarged, and a marker in its environment.
//!
//! On Linux a pipe-connected agent is started by `vfork.rs` (`clone` with `CLONE_VM`, as
//! `posix_spawn` does), which copies nothing of ralph; a PTY agent, another OS or a kernel
//! without pidfds takes the standard library's `fork` with a `pre_exec` closure.
//!
//! Linux's death signal (`PR_SET_PDEATHSIG`) fires when the *thread* that started the
//! child exits. The child is started by whichever thread polls [`run`](super::run): a
//! tokio worker or a `block_on` thread, which live as long as the runtime. Do not poll
//! `run` from a `spawn_blocking` thread, whose idle exit would kill the agent.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::process::Stdio;
use std::time::Duration;

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::unistd::pipe2;
use tokio::net::unix::pipe;
use tokio::process::Command;

use super::pty::{Pty, PtyReader};
use super::tree::MARKER_VAR;
use super::{SpawnSpec, StdinSource};

/// Size requested for the stdout pipe (`F_SETPIPE_SZ`): fewer wake-ups and context
/// switches than the default 64 KiB when an agent streams hundreds of MB. Failure (e.g. a
/// lower `/proc/sys/fs/pipe-max-size`) is ignored.
pub const STDOUT_PIPE_BYTES: usize = 1024 * 1024;

/// Where the child's stdout is read from.
pub(crate) enum StdoutReader {
    Pipe(pipe::Receiver),
    Pty(PtyReader),
}

impl StdoutReader {
    /// Replaces `buf`'s contents with what is available, up to its capacity; `Ok(0)` at
    /// end of file. Pipes read into the spare capacity without zeroing it first (a fresh
    /// zeroed buffer per run showed up as a memset in the spawn profile). Cancel-safe.
    pub(crate) async fn read(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        buf.clear();
        match self {
            StdoutReader::Pipe(p) => tokio::io::AsyncReadExt::read_buf(p, buf).await,
            StdoutReader::Pty(p) => {
                buf.resize(buf.capacity(), 0);
                let n = p.read(buf).await;
                buf.truncate(*n.as_ref().unwrap_or(&0));
                n
            }
        }
    }
}

/// A started child and its streams.
pub(crate) struct Spawned {
    pub(crate) child: Process,
    pub(crate) pid: i32,
    pub(crate) stdout: StdoutReader,
    /// `None` on a PTY, where stderr shares the terminal with stdout.
    pub(crate) stderr: Option<pipe::Receiver>,
    pub(crate) stdin: Option<pipe::Sender>,
}

/// The agent process, however it was started.
pub(crate) enum Process {
    /// Forked by the standard library (a PTY agent, another OS, or a kernel without
    /// pidfds).
    Forked(tokio::process::Child),
    /// Started by `vfork.rs`, waited on through its pidfd.
    #[cfg(target_os = "linux")]
    Cloned(super::waited::Waited),
}

/// How many times a start refused with "text file busy" is tried again.
const BUSY_RETRIES: u32 = 5;
/// The pause before the first retry; it doubles on each (10 to 160 ms, 310 in all).
const BUSY_PAUSE: Duration = Duration::from_millis(10);

pub(crate) fn spawn(spec: &SpawnSpec, token: &str) -> io::Result<Spawned> {
    // `ETXTBSY`: the program is open for writing somewhere. That is fleeting: a package
    // manager replacing the agent's binary, a hook that just wrote the script a gate
    // runs, or any other thread's fork that still holds a copy of the descriptor it was
    // written through until that child execs (the classic race of a program that writes
    // an executable and runs it while other threads start processes). Trying again a
    // few times, briefly, turns a spurious failure into a slightly later start.
    let mut pause = BUSY_PAUSE;
    for _ in 0..BUSY_RETRIES {
        match spawn_once(spec, token) {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) => std::thread::sleep(pause),
            started => return started,
        }
        pause *= 2;
    }
    spawn_once(spec, token)
}

/// One start, recorded as ralph's own child (the `own_children` module).
fn spawn_once(spec: &SpawnSpec, token: &str) -> io::Result<Spawned> {
    super::own_children::start(|| spawn_unrecorded(spec, token), |s| Some(s.pid))
}

fn spawn_unrecorded(spec: &SpawnSpec, token: &str) -> io::Result<Spawned> {
    #[cfg(target_os = "linux")]
    if !spec.pty && super::vfork::available() {
        return spawn_cloned(spec, token);
    }
    spawn_forked(spec, token)
}

/// The environment the agent gets, whole: ralph's, with `PWD` for its directory, the
/// spec's additions, and the run's marker.
fn environment(spec: &SpawnSpec, token: &str) -> Vec<(OsString, OsString)> {
    let mut env: Vec<_> = std::env::vars_os().collect();
    let mut set = |key: &OsStr, value: &OsStr| match env.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 = value.to_owned(),
        None => env.push((key.to_owned(), value.to_owned())),
    };
    if let Some(dir) = spec.cwd.as_deref().filter(|d| d.is_absolute()) {
        // Some agents take their working directory from `$PWD` rather than from the process
        // (OpenCode 1.18 works, and writes files, there): it must name the directory they run
        // in, not the one ralph was started from. A `PWD` in the caller's env still wins.
        set("PWD".as_ref(), dir.as_os_str());
    }
    for (key, value) in &spec.env {
        set(key, value);
    }
    set(MARKER_VAR.as_ref(), token.as_ref());
    env
}

/// Asks for a larger stdout pipe (see [`STDOUT_PIPE_BYTES`]); a refusal is ignored.
fn enlarge(stdout: impl AsFd) {
    let _ = fcntl(
        stdout.as_fd(),
        FcntlArg::F_SETPIPE_SZ(STDOUT_PIPE_BYTES as libc::c_int),
    );
}

/// Starts the agent through `vfork.rs`: nothing of ralph is copied.
#[cfg(target_os = "linux")]
fn spawn_cloned(spec: &SpawnSpec, token: &str) -> io::Result<Spawned> {
    let piped_stdin = matches!(spec.stdin, StdinSource::Bytes(_) | StdinSource::Live(_));
    let started = super::vfork::start(
        &spec.program,
        &spec.args,
        &environment(spec, token),
        spec.cwd.as_deref(),
        piped_stdin,
        spec.merge_stderr,
        spec.own_session,
    )?;
    enlarge(&started.stdout);
    let pid = started.pid;
    let child = super::waited::Waited::new(pid, started.pidfd)?;
    Ok(Spawned {
        child: Process::Cloned(child),
        pid,
        stdout: StdoutReader::Pipe(pipe::Receiver::from_owned_fd(started.stdout)?),
        stderr: started
            .stderr
            .map(pipe::Receiver::from_owned_fd)
            .transpose()?,
        stdin: started.stdin.map(pipe::Sender::from_owned_fd).transpose()?,
    })
}

/// Starts the agent with the standard library's fork and a `pre_exec` closure.
fn spawn_forked(spec: &SpawnSpec, token: &str) -> io::Result<Spawned> {
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args);
    cmd.env_clear().envs(environment(spec, token));
    if let Some(dir) = &spec.cwd {
        cmd.current_dir(dir);
    }
    cmd.kill_on_drop(true);
    // Both streams' read end, when stderr goes down the stdout pipe.
    let mut merged: Option<OwnedFd> = None;
    let pty = if spec.pty {
        if let StdinSource::Bytes(_) | StdinSource::Live(_) = spec.stdin {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a PTY child cannot receive its prompt on stdin; pass it as an argument",
            ));
        }
        let pty = Pty::open()?;
        cmd.stdin(Stdio::from(pty.slave.try_clone()?));
        cmd.stdout(Stdio::from(pty.slave.try_clone()?));
        cmd.stderr(Stdio::from(pty.slave.try_clone()?));
        Some(pty)
    } else {
        cmd.stdin(match spec.stdin {
            StdinSource::Null => Stdio::null(),
            StdinSource::Bytes(_) | StdinSource::Live(_) => Stdio::piped(),
        });
        if spec.merge_stderr {
            let (read, write) = pipe2(OFlag::O_CLOEXEC)?;
            cmd.stdout(Stdio::from(write.try_clone()?));
            cmd.stderr(Stdio::from(write));
            merged = Some(read);
        } else {
            cmd.stdout(Stdio::piped());
            cmd.stderr(Stdio::piped());
        }
        // Its own group, so a stop reaches its children and never ralph's group; or its
        // own session, which makes it a group's leader too (and `setsid` refuses a
        // process that already leads one).
        if !spec.own_session {
            cmd.process_group(0);
        }
        None
    };
    let parent = std::process::id() as libc::pid_t;
    let terminal = pty.is_some();
    let new_session = terminal || spec.own_session;
    // SAFETY: the closure runs in the forked child before exec and only makes
    // async-signal-safe system calls (prctl, getppid, setsid, ioctl); it allocates nothing.
    unsafe {
        cmd.pre_exec(move || child_setup(parent, new_session, terminal));
    }
    let mut child = cmd.spawn()?;
    // The command holds the parent's copies of the PTY slave; the master only sees end of
    // file once they are closed.
    drop(cmd);
    let pid = child
        .id()
        .and_then(|p| i32::try_from(p).ok())
        .ok_or_else(|| io::Error::other("the child has no pid right after spawn"))?;
    let (stdout, stderr) = match pty {
        Some(Pty { master, slave }) => {
            drop(slave);
            (StdoutReader::Pty(PtyReader::new(master)?), None)
        }
        None => {
            let stdout = match merged {
                Some(read) => read,
                None => child
                    .stdout
                    .take()
                    .ok_or_else(|| io::Error::other("stdout pipe missing"))?
                    .into_owned_fd()?,
            };
            enlarge(&stdout);
            let stdout = pipe::Receiver::from_owned_fd(stdout)?;
            let stderr = match child.stderr.take() {
                Some(e) => Some(pipe::Receiver::from_owned_fd(e.into_owned_fd()?)?),
                None => None,
            };
            (StdoutReader::Pipe(stdout), stderr)
        }
    };
    let stdin = match child.stdin.take() {
        Some(stdin) => Some(pipe::Sender::from_owned_fd(stdin.into_owned_fd()?)?),
        None => None,
    };
    Ok(Spawned {
        child: Process::Forked(child),
        pid,
        stdout,
        stderr,
        stdin,
    })
}

/// Runs in the child between fork and exec: a session of its own when `new_session`,
/// with the PTY on fd 0 as its controlling terminal when `terminal`.
fn child_setup(parent: libc::pid_t, new_session: bool, terminal: bool) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain system calls with integer arguments.
        if unsafe {
            libc::prctl(
                libc::PR_SET_PDEATHSIG,
                libc::SIGKILL as libc::c_ulong,
                0,
                0,
                0,
            )
        } != 0
        {
            return Err(io::Error::last_os_error());
        }
        // If ralph died between fork and prctl, the death signal will never come: do not
        // start an agent nobody supervises.
        // SAFETY: getppid cannot fail.
        if unsafe { libc::getppid() } != parent {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = parent;
    // SAFETY: setsid and TIOCSCTTY on fd 0 (the PTY slave) take no pointers.
    unsafe {
        if new_session && libc::setsid() < 0 {
            return Err(io::Error::last_os_error());
        }
        if terminal && libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "spawn_tests.rs"]
mod tests;
