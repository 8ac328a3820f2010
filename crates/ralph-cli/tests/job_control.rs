//! Ctrl-Z and `fg` in a real terminal: an interactive bash in tmux (a shell with job
//! control, as a person has), a custom agent that counts in a file every 100 ms. While
//! ralph is suspended the agent is stopped too (its state is `T`, its count stands
//! still), after `fg` it goes on, and the idle timeout, shorter than the suspension, does
//! not end it. Needs `tmux` and `bash` (scripts/test.sh installs tmux).

mod common;

use std::time::{Duration, Instant};

use common::tmux::{POLL, Tmux};
use common::{RUN_TIMEOUT, Workspace, ralph_bin, wait_for_pid};
use nix::errno::Errno;
use nix::sys::signal::killpg;
use nix::unistd::Pid;

/// The agent: its pid in `agent.pid`, then a count in `count` every 100 ms and a line of
/// output with it, up to `$1` (forever when 0), then the loop's end.
const AGENT: &str = "echo $$ > agent.pid\n\
                     n=0\n\
                     while [ \"$1\" = 0 ] || [ \"$n\" -lt \"$1\" ]; do\n\
                       n=$((n + 1)); echo \"$n\" > count.tmp; mv count.tmp count\n\
                       echo \"tick $n\"; sleep 0.1\n\
                     done\n\
                     ralph emit LOOP_COMPLETE\n";

/// The same count, done by a tool command in a session of its own, as pi and Claude Code
/// run each one (its pid in `tool.pid`); the agent waits for it.
const AGENT_WITH_TOOL: &str = "echo $$ > agent.pid\n\
                               setsid sh -c 'echo $$ > tool.pid\n\
                                 n=0\n\
                                 while [ \"$n\" -lt \"$1\" ]; do\n\
                                   n=$((n + 1)); echo \"$n\" > count.tmp; mv count.tmp count\n\
                                   echo \"tick $n\"; sleep 0.1\n\
                                 done' tool \"$1\" &\n\
                               wait\n\
                               ralph emit LOOP_COMPLETE\n";

/// The agent's idle timeout: the suspension lasts longer.
const IDLE_SECONDS: u64 = 2;
/// How long the test keeps ralph suspended.
const SUSPENDED: Duration = Duration::from_secs(IDLE_SECONDS + 2);
/// The session's window.
const WINDOW: &str = "t";

/// A workspace whose agent counts to `to` (0: forever), and an interactive bash in a
/// terminal there, waiting for a command line.
fn shell_with_agent(to: u32) -> (Workspace, Tmux) {
    shell_with(AGENT, to)
}

/// [`shell_with_agent`] with the agent `agent` (a script given `to`).
fn shell_with(agent: &str, to: u32) -> (Workspace, Tmux) {
    let ws = Workspace::new(
        &format!(
            "cli:\n  backend: custom\n  command: sh\n  args: [agent.sh, '{to}']\n  \
             idle_timeout_seconds: {IDLE_SECONDS}\nevent_loop:\n  max_iterations: 1\n"
        ),
        "",
    );
    std::fs::write(ws.path().join("agent.sh"), agent).expect("agent.sh");
    let state = ws.path().join(".fake");
    let script = ws.path().join("shell.sh");
    // A login terminal's job-control signals (tmux starts its panes with SIGTTIN and
    // SIGTTOU ignored), and a bash with job control, its prompt plain.
    std::fs::write(
        &script,
        format!(
            "cd '{ws}'\nexport HOME='{state}' XDG_CONFIG_HOME='{state}/config' \
             XDG_CACHE_HOME='{state}/cache' PS1='$ '\n\
             unset NO_COLOR RALPH_EVENTS_FILE RALPH_AGENT_RUN RALPH_CONFIG GITHUB_ACTIONS\n\
             exec env --default-signal=TTIN,TTOU bash --norc --noprofile -i\n",
            ws = ws.path().display(),
            state = state.display(),
        ),
    )
    .expect("shell script");
    let tmux = Tmux::start(ws.path(), WINDOW, &script);
    tmux.wait_for(WINDOW, "the prompt", |s| s.contains("$"));
    (ws, tmux)
}

/// Types `ralph <args>`.
fn type_run(tmux: &Tmux, args: &str) {
    let line = format!("'{}' {args}", ralph_bin());
    tmux.keys(WINDOW, &[&line, "Enter"]);
}

/// The agent's count so far.
fn count(ws: &Workspace) -> u32 {
    std::fs::read_to_string(ws.path().join("count"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// Waits until `holds` of the agent's count.
fn wait_count(ws: &Workspace, what: &str, holds: impl Fn(u32) -> bool) {
    let deadline = Instant::now() + RUN_TIMEOUT;
    while !holds(count(ws)) {
        assert!(Instant::now() < deadline, "the agent's count never {what}");
        std::thread::sleep(POLL);
    }
}

/// `/proc/<pid>/stat`'s state letter, if the process exists.
fn state(pid: i32) -> Option<char> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    text[text.rfind(')')? + 2..].chars().next()
}

/// Waits until the state of `what` (pid `pid`: the agent, or ralph) is stopped (`T`) or,
/// when not `stopped`, anything else.
fn wait_state(what: &str, pid: i32, stopped: bool) {
    wait_state_within(what, pid, stopped, RUN_TIMEOUT);
}

/// [`wait_state`], giving up after `patience`.
fn wait_state_within(what: &str, pid: i32, stopped: bool, patience: Duration) {
    let deadline = Instant::now() + patience;
    while (state(pid) == Some('T')) != stopped {
        assert!(
            Instant::now() < deadline,
            "{what} {pid} is in state {:?}, not {}",
            state(pid),
            if stopped { "stopped" } else { "running" }
        );
        std::thread::sleep(POLL);
    }
}

/// A wait that fails names what it waited for: the agent's pid and ralph's are both
/// waited on, and "the agent" for ralph's sent whoever read it to the wrong process.
#[test]
fn a_failed_wait_for_a_state_names_what_it_waited_for() {
    let mut sleeper = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("sleep");
    let pid = i32::try_from(sleeper.id()).expect("a pid");
    let failed = std::panic::catch_unwind(|| {
        wait_state_within("ralph", pid, true, Duration::from_millis(200));
    });
    sleeper.kill().expect("kill sleep");
    sleeper.wait().expect("reap sleep");
    let payload = failed.expect_err("a running sleep never stops");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(
        message.starts_with(&format!("ralph {pid} is in state")),
        "{message}"
    );
}

/// Ctrl-Z while the agent counts: it stops (state `T`, its count still) and ralph says
/// so; kept so for [`SUSPENDED`]; then `fg`: it counts on. Returns the agent's pid.
fn suspend_and_resume(ws: &Workspace, tmux: &Tmux, said: &str) -> i32 {
    let pid = wait_for_pid(&ws.path().join("agent.pid"), "the agent's pid");
    wait_count(ws, "reached 5", |n| n >= 5);
    tmux.keys(WINDOW, &["C-z"]);
    let screen = tmux.wait_for(WINDOW, "ralph stopped", |s| s.contains("Stopped"));
    assert!(screen.contains(said), "{said:?} in\n{screen}");
    // The shell's screen, whatever view ralph had.
    assert_eq!(tmux.format(WINDOW, "#{alternate_on}"), "0", "{screen}");
    wait_state("the agent", pid, true);
    let at_stop = count(ws);
    std::thread::sleep(SUSPENDED);
    assert_eq!(
        count(ws),
        at_stop,
        "the agent counted on while ralph was stopped"
    );
    assert_eq!(state(pid), Some('T'));
    // Then the exit code of the job, once it ends.
    tmux.keys(WINDOW, &["fg; echo \"ralph-exit=$?\"", "Enter"]);
    wait_state("the agent", pid, false);
    wait_count(ws, "went on after fg", |n| n > at_stop + 3);
    pid
}

/// Nothing of the agent is left: its process group is empty.
fn no_orphans(pid: i32) {
    assert_eq!(killpg(Pid::from_raw(pid), None), Err(Errno::ESRCH));
}

/// The exit code the shell printed, once ralph ended.
fn wait_exit(tmux: &Tmux) -> String {
    let screen = tmux.wait_for(WINDOW, "ralph's end", |s| {
        s.lines().any(|l| l.starts_with("ralph-exit="))
    });
    let line = screen
        .lines()
        .find(|l| l.starts_with("ralph-exit="))
        .expect("the exit line");
    line.trim_start_matches("ralph-exit=").trim().to_owned()
}

#[test]
fn ctrl_z_stops_the_agent_with_ralph_and_fg_resumes_both_past_the_idle_timeout() {
    // About 4 s of counting: the run ends by itself after the suspension.
    let (ws, tmux) = shell_with_agent(40);
    type_run(&tmux, "run -p task");
    let pid = suspend_and_resume(
        &ws,
        &tmux,
        "ralph: paused, and the agent with it; `fg` resumes both",
    );
    let code = wait_exit(&tmux);
    let screen = tmux.screen(WINDOW);
    assert_eq!(code, "0", "{screen}");
    assert_eq!(count(&ws), 40, "{screen}");
    assert!(!screen.contains("idle"), "{screen}");
    no_orphans(pid);
}

#[test]
fn ctrl_z_stops_a_tool_command_the_agent_started_in_a_session_of_its_own() {
    let (ws, tmux) = shell_with(AGENT_WITH_TOOL, 40);
    type_run(&tmux, "run -p task");
    // The count is the tool's: it stands still while ralph is stopped only if the tool
    // was stopped too.
    suspend_and_resume(
        &ws,
        &tmux,
        "ralph: paused, and the agent with it; `fg` resumes both",
    );
    let tool = wait_for_pid(&ws.path().join("tool.pid"), "the tool's pid");
    let code = wait_exit(&tmux);
    let screen = tmux.screen(WINDOW);
    assert_eq!(code, "0", "{screen}");
    assert_eq!(count(&ws), 40, "{screen}");
    no_orphans(tool);
}

#[test]
fn ctrl_c_after_fg_still_stops_the_agent_and_the_loop() {
    let (ws, tmux) = shell_with_agent(0);
    type_run(&tmux, "run -p task");
    let pid = suspend_and_resume(&ws, &tmux, "ralph: paused, and the agent with it");
    tmux.keys(WINDOW, &["C-c"]);
    let code = wait_exit(&tmux);
    let screen = tmux.screen(WINDOW);
    assert_eq!(code, "130", "{screen}");
    assert!(screen.contains("ralph: stopping the agent"), "{screen}");
    no_orphans(pid);
}

#[test]
fn ctrl_z_in_the_full_screen_view_gives_the_terminal_back_and_fg_takes_it_again() {
    let (ws, tmux) = shell_with_agent(40);
    type_run(&tmux, "run --tui -p task");
    let alternate = |tmux: &Tmux| tmux.format(WINDOW, "#{alternate_on}");
    wait_for_pid(&ws.path().join("agent.pid"), "the agent's pid");
    assert_eq!(alternate(&tmux), "1");
    let pid = suspend_and_resume(&ws, &tmux, "ralph: paused, and the agent with it");
    assert_eq!(
        alternate(&tmux),
        "1",
        "the view did not take the screen again"
    );
    // The view stays on its end until `q`.
    tmux.wait_for(WINDOW, "the loop's end", |s| s.contains("q leaves"));
    tmux.keys(WINDOW, &["q"]);
    let code = wait_exit(&tmux);
    assert_eq!(code, "0", "{}", tmux.screen(WINDOW));
    assert_eq!(count(&ws), 40);
    no_orphans(pid);
}

#[test]
fn ctrl_z_in_the_full_screen_view_stops_the_wrapper_that_started_ralph_too() {
    let (ws, tmux) = shell_with_agent(40);
    // A wrapper, as a script, `make` or `npm run` is: the shell sees it, not ralph. The
    // second command keeps bash from becoming ralph by `exec`.
    let line = format!(
        "bash -c \"'{}' run --tui -p task; echo wrapper-went-on\"",
        ralph_bin()
    );
    tmux.keys(WINDOW, &[&line, "Enter"]);
    wait_for_pid(&ws.path().join("agent.pid"), "the agent's pid");
    let pid = suspend_and_resume(&ws, &tmux, "ralph: paused, and the agent with it");
    tmux.wait_for(WINDOW, "the loop's end", |s| s.contains("q leaves"));
    tmux.keys(WINDOW, &["q"]);
    wrapper_went_on(&ws, &tmux, pid);
}

/// The parent's pid of `pid`, from `/proc/<pid>/stat`.
fn parent(pid: i32) -> i32 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("stat");
    let after = &text[text.rfind(')').expect("the name's end") + 2..];
    after
        .split(' ')
        .nth(1)
        .expect("ppid")
        .parse()
        .expect("a pid")
}

/// `ralph <args>` under GNU `timeout --foreground`, which ignores SIGTTIN and SIGTTOU
/// itself: Ctrl-Z, `bg` (ralph, in the background, stops its job again: the full-screen
/// view cannot draw there, the line view writes under `stty tostop`), then `fg`: ralph
/// and the agent go on. Stopped with SIGTTOU, the job left the wrapper running, the shell
/// saw a running job, and `fg` continued nothing. Returns the agent's pid.
fn bg_then_fg_under_a_wrapper(ws: &Workspace, tmux: &Tmux, args: &str) -> i32 {
    let line = format!("timeout --foreground 600 '{}' {args}", ralph_bin());
    tmux.keys(WINDOW, &[&line, "Enter"]);
    let pid = wait_for_pid(&ws.path().join("agent.pid"), "the agent's pid");
    let ralph = parent(pid);
    wait_count(ws, "reached 5", |n| n >= 5);
    tmux.keys(WINDOW, &["C-z"]);
    tmux.wait_for(WINDOW, "ralph stopped", |s| s.contains("Stopped"));
    wait_state("the agent", pid, true);
    tmux.keys(WINDOW, &["bg", "Enter"]);
    tmux.wait_for(WINDOW, "the job continued", |s| {
        s.lines()
            .any(|l| l.trim_end().ends_with(&format!("{args} &")))
    });
    wait_state("ralph", ralph, true);
    let at_stop = count(ws);
    tmux.keys(WINDOW, &["fg; echo \"ralph-exit=$?\"", "Enter"]);
    wait_state("ralph", ralph, false);
    wait_count(ws, "went on after fg", |n| n > at_stop + 3);
    pid
}

#[test]
fn bg_then_fg_under_a_wrapper_that_ignores_sigttou_takes_the_screen_again() {
    let (ws, tmux) = shell_with_agent(40);
    let pid = bg_then_fg_under_a_wrapper(&ws, &tmux, "run --tui -p task");
    assert_eq!(tmux.format(WINDOW, "#{alternate_on}"), "1");
    tmux.wait_for(WINDOW, "the loop's end", |s| s.contains("q leaves"));
    tmux.keys(WINDOW, &["q"]);
    let code = wait_exit(&tmux);
    assert_eq!(code, "0", "{}", tmux.screen(WINDOW));
    no_orphans(pid);
}

#[test]
fn ctrl_z_under_tostop_and_a_wrapper_says_so_and_fg_resumes() {
    let (ws, tmux) = shell_with_agent(40);
    // The shell takes the terminal back once the wrapper stopped, before ralph says it
    // pauses: under `stty tostop` that write raised SIGTTOU, restarted forever (ralph
    // spun, never stopped, and stopped in the foreground after `fg`).
    tmux.keys(WINDOW, &["stty tostop", "Enter"]);
    let line = format!(
        "bash -c \"'{}' run -p task; echo wrapper-went-on\"",
        ralph_bin()
    );
    tmux.keys(WINDOW, &[&line, "Enter"]);
    let pid = wait_for_pid(&ws.path().join("agent.pid"), "the agent's pid");
    let ralph = parent(pid);
    wait_count(&ws, "reached 5", |n| n >= 5);
    tmux.keys(WINDOW, &["C-z"]);
    // Said, maybe after the shell's `Stopped`, and ralph stopped too.
    tmux.wait_for(WINDOW, "ralph stopped, saying so", |s| {
        s.contains("Stopped") && s.contains("ralph: paused, and the agent with it")
    });
    wait_state("ralph", ralph, true);
    wait_state("the agent", pid, true);
    let at_stop = count(&ws);
    tmux.keys(WINDOW, &["fg; echo \"ralph-exit=$?\"", "Enter"]);
    wait_state("the agent", pid, false);
    wait_count(&ws, "went on after fg", |n| n > at_stop + 3);
    wrapper_went_on(&ws, &tmux, pid);
}

#[test]
fn bg_then_fg_of_the_line_view_under_tostop_and_a_wrapper_goes_on() {
    let (ws, tmux) = shell_with_agent(40);
    // In the background the line view's next write stops the job (SIGTTOU): the
    // wrapper, which ignores that signal, must stop too.
    tmux.keys(WINDOW, &["stty tostop", "Enter"]);
    let pid = bg_then_fg_under_a_wrapper(&ws, &tmux, "run -p task");
    let code = wait_exit(&tmux);
    assert_eq!(code, "0", "{}", tmux.screen(WINDOW));
    assert_eq!(count(&ws), 40);
    no_orphans(pid);
}

/// The wrapper's ralph ended with 0 after all 40 of the agent's steps, the wrapper went on
/// after it (it was not left stopped), and nothing of the agent (`pid`) is left.
fn wrapper_went_on(ws: &Workspace, tmux: &Tmux, pid: i32) {
    let code = wait_exit(tmux);
    let screen = tmux.screen(WINDOW);
    assert_eq!(code, "0", "{screen}");
    assert!(screen.contains("wrapper-went-on"), "{screen}");
    assert_eq!(count(ws), 40);
    no_orphans(pid);
}
