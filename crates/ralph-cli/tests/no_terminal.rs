//! What ralph runs for itself (a gate, a hook) asking a question on the terminal while
//! ralph runs in a real one (tmux): they run without a terminal, so the question fails
//! at once and ralph says the command asked for input, instead of the kernel stopping
//! the command (a background read of ralph's terminal) until its deadline, minutes later,
//! with nothing on the screen.
//!
//! Needs `tmux` (scripts/test.sh installs it).

mod common;

use std::path::Path;
use std::time::Duration;

use common::Workspace;
use common::tmux::run_in_login_terminal;

/// The most ralph may take here: the question fails as it is asked. A command that
/// could wait would hold ralph for its deadline ([`DEADLINE`]).
const ENDS_WITHIN: Duration = Duration::from_secs(30);
/// The asking command's own deadline: far past [`ENDS_WITHIN`].
const DEADLINE: &str = "600";

/// A command that asks on the terminal, as `sudo`, ssh's passphrase prompt or
/// commitizen do.
const ASKING: &str = "exec < /dev/tty; printf 'password? ' > /dev/tty; read -r answer; \
    echo \"got $answer\"";

/// Runs `ralph <command>` in a terminal (its stdout and stderr to `out.txt` and
/// `err.txt`) until it ends: the screen, and what it wrote.
fn in_terminal(ws: &Workspace, command: &str) -> (String, String) {
    let screen = run_in_login_terminal(
        ws,
        "asks",
        &format!("{command} > out.txt 2> err.txt"),
        ENDS_WITHIN,
        || read(ws.path(), "err.txt"),
    );
    let said = format!(
        "{}{}",
        read(ws.path(), "out.txt"),
        read(ws.path(), "err.txt")
    );
    assert!(!screen.contains("password?"), "it asked:\n{screen}");
    (screen, said)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

#[test]
fn a_gate_asking_on_the_terminal_fails_at_once_and_says_it_asked() {
    let config = format!(
        "cli:\n  backend: pi\ngates:\n  - name: asks\n    run: {ASKING:?}\n    \
         timeout_seconds: {DEADLINE}\n"
    );
    let ws = Workspace::new(&config, "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n");
    let (screen, said) = in_terminal(&ws, "gates");
    assert!(screen.contains("asks-exit=1"), "{screen}\n{said}");
    assert!(
        said.contains("the gate `asks` asked for input on the terminal"),
        "{said}"
    );
}

#[test]
fn a_hook_asking_on_the_terminal_fails_at_once_and_says_it_asked() {
    let config = format!(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 2\nhooks:\n  enabled: true\n  \
         events:\n    pre.loop.start:\n      - {{name: asks, command: {ASKING:?}, \
         on_error: block, timeout_seconds: {DEADLINE}}}\n"
    );
    let ws = Workspace::new(&config, "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n");
    let (screen, said) = in_terminal(&ws, "run -p x");
    assert!(screen.contains("asks-exit=1"), "{screen}\n{said}");
    assert!(
        said.contains("the hook `asks` asked for input on the terminal"),
        "{said}"
    );
}

#[test]
fn an_agents_tool_asking_on_the_terminal_fails_at_once_and_the_agent_goes_on() {
    // A custom agent whose "tool" asks, then reports what it got: the question fails, the
    // agent goes on and the loop ends well inside the idle timeout.
    let config = format!(
        "cli:\n  backend: custom\n  command: sh\n  args: [\"-c\", {:?}]\n  \
         idle_timeout_seconds: {DEADLINE}\nevent_loop:\n  max_iterations: 1\n",
        format!("({ASKING}) || echo 'the tool failed: no terminal'; echo done")
    );
    let ws = Workspace::new(&config, "");
    let (screen, said) = in_terminal(&ws, "run -p x");
    assert!(
        said.contains("the tool failed: no terminal"),
        "{screen}\n{said}"
    );
    assert!(!said.contains("got "), "{said}");
}
