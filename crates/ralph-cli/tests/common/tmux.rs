//! A tmux server of the test's own (its socket in the workspace), for the tests that
//! watch ralph in a real terminal. Needs `tmux` (scripts/test.sh installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use super::{RUN_TIMEOUT, Workspace, fake_agents, fixtures, ralph_bin};

/// How often the screen is read while waiting for something to appear.
pub const POLL: Duration = Duration::from_millis(50);
/// The window's size: wide enough for the status line, small enough to page.
pub const COLUMNS: &str = "100";
pub const ROWS: &str = "30";

/// Writes `<name>.sh` in the workspace: a shell script that runs `ralph <command>` there
/// with the fake agents (the environment [`Workspace::command`] sets), then the shell
/// lines `after` (`$?` is ralph's exit code), then waits. A trap keeps the shell alive
/// through Ctrl-C.
pub fn session_script(ws: &Workspace, name: &str, command: &str, after: &str) -> PathBuf {
    let state = ws.path().join(".fake");
    let path = ws.path().join(format!("{name}.sh"));
    std::fs::write(
        &path,
        format!(
            "trap ':' INT\ncd '{ws}'\nexport PATH='{fake}':\"$PATH\" HOME='{state}' \
             XDG_CONFIG_HOME='{state}/config' XDG_CACHE_HOME='{state}/cache' \
             FAKE_STATE='{state}' FAKE_PLAN='{state}/plan' FAKE_FIXTURES='{fixtures}'\n\
             unset NO_COLOR RALPH_EVENTS_FILE\n'{ralph}' {command}\n{after}\nexec sleep 600\n",
            ws = ws.path().display(),
            fake = fake_agents().display(),
            state = state.display(),
            fixtures = fixtures().display(),
            ralph = ralph_bin(),
        ),
    )
    .expect("script");
    path
}

/// Runs `ralph <command>` (with the shell redirections it carries) in a terminal until it
/// ends, and returns the screen, which then shows `<name>-exit=<ralph's exit code>`. The
/// terminal's job-control signals are as a login terminal has them: tmux starts its
/// panes with SIGTTIN and SIGTTOU ignored, where a background read of the terminal fails
/// at once instead of stopping the reader, so a command that asks there would not freeze
/// as it does for a user. Fails when ralph still runs after `within`, showing the screen
/// and `context()` (what ralph wrote to a file, say).
pub fn run_in_login_terminal(
    ws: &Workspace,
    name: &str,
    command: &str,
    within: Duration,
    context: impl Fn() -> String,
) -> String {
    let marker = format!("{name}-exit=");
    let script = session_script(ws, name, command, &format!("echo \"{marker}$?\""));
    let terminal = ws.path().join(format!("{name}-terminal.sh"));
    std::fs::write(
        &terminal,
        format!(
            "exec env --default-signal=TTIN,TTOU sh '{}'\n",
            script.display()
        ),
    )
    .expect("terminal script");
    let tmux = Tmux::start(ws.path(), name, &terminal);
    let started = Instant::now();
    loop {
        let screen = tmux.screen(&format!("{name}:0"));
        if screen.contains(&marker) {
            return screen;
        }
        assert!(
            started.elapsed() < within,
            "ralph {command} still runs after {within:?}:\n{screen}\n{}",
            context()
        );
        std::thread::sleep(POLL);
    }
}

/// The server; killed (with whatever still runs in it) when dropped.
pub struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    /// Starts the server with session `session` running `sh script` in a
    /// `COLUMNS`×`ROWS` window (its target is `<session>:0`).
    pub fn start(dir: &Path, session: &str, script: &Path) -> Tmux {
        let tmux = Tmux {
            socket: dir.join("tmux.sock"),
        };
        let started = tmux.tmux(&[
            "new-session",
            "-d",
            "-s",
            session,
            "-x",
            COLUMNS,
            "-y",
            ROWS,
            "sh",
            &script.display().to_string(),
        ]);
        assert!(
            started.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&started.stderr)
        );
        tmux
    }

    pub fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux is needed for this test: apt-get install tmux")
    }

    /// The visible screen of `target`, one string per row, trailing blanks trimmed.
    pub fn screen(&self, target: &str) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", target]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// `target`'s value of a tmux format (`#{alternate_on}`, `#{cursor_flag}`, …).
    pub fn format(&self, target: &str, format: &str) -> String {
        let out = self.tmux(&["display-message", "-p", "-t", target, format]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Reads `target`'s screen until `ready` holds, and returns it (fails after the run
    /// timeout, showing the last screen).
    pub fn wait_for(&self, target: &str, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + RUN_TIMEOUT;
        loop {
            let screen = self.screen(target);
            if ready(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "{target} never showed {what}:\n{screen}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Types `keys` (tmux key names) into `target`.
    pub fn keys(&self, target: &str, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", target];
        args.extend_from_slice(keys);
        assert!(self.tmux(&args).status.success());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}
