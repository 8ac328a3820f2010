//! Telling, from what a command printed, that it failed because it asked for input on the
//! terminal. The commands ralph runs for itself (gates, hooks, `runs land --check`, git
//! under the worktree commands) run with no controlling terminal
//! ([`SpawnSpec::own_session`](crate::SpawnSpec::own_session)): opening `/dev/tty` fails
//! at once (`ENXIO`) instead of the kernel stopping the command, unseen, until its
//! deadline. Each program says so its own way; these are the ways recognised, so that
//! ralph's message can name the cause instead of a bare exit code.

/// Whether `output` (a failed command's, stdout and stderr) says that something in it
/// wanted the terminal: a shell's redirection, Python, Node or ssh failing to open
/// `/dev/tty`, sudo refusing to ask for a password without one, Python's `getpass`
/// warning that it cannot hide what is typed, git unable to ask for credentials.
pub fn asked_for_terminal(output: &str) -> bool {
    output.lines().any(|line| {
        (line.contains("/dev/tty")
            && (line.contains("No such device or address") || line.contains("ENXIO")))
            // sudo's words (1.8.x and later, then older): it never opens /dev/tty itself.
            || line.contains("sudo: a terminal is required")
            || line.contains("sudo: no tty present")
            // Python's getpass with no terminal warns, then reads stdin (at its end).
            || line.contains("GetPassWarning: Can not control echo on the terminal")
            // git asking for credentials: it opened /dev/tty, and names the question.
            || ((line.contains("could not read Username") || line.contains("could not read Password"))
                && line.contains("No such device or address"))
    })
}

/// The note added to the failure of `what` (`the gate \`tests\``) when it asked for
/// input on the terminal: what happened, why ralph does it, what to do.
pub fn asked_terminal_note(what: &str) -> String {
    format!(
        "{what} asked for input on the terminal (`/dev/tty`): ralph runs it without one, \
         so that it fails at once instead of waiting for an answer nobody sees. Make it run \
         unattended (a flag or variable that skips the question, its input from a file, an \
         askpass helper)"
    )
}

#[cfg(test)]
#[path = "terminal_asked_tests.rs"]
mod tests;
