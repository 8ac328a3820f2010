use super::*;

#[test]
fn a_command_that_could_not_open_the_terminal_is_told_from_other_failures() {
    for wanted in [
        ".git/hooks/prepare-commit-msg: 3: cannot open /dev/tty: No such device or address",
        ".git/hooks/pre-commit: line 2: /dev/tty: No such device or address",
        "OSError: [Errno 6] No such device or address: '/dev/tty'",
        "Error: ENXIO: no such device or address, open '/dev/tty'",
        "read_passphrase: can't open /dev/tty: No such device or address",
        "sudo: a terminal is required to read the password; either use the -S option",
        "sudo: no tty present and no askpass program specified",
        "/usr/lib/python3.12/getpass.py:91: GetPassWarning: Can not control echo on the terminal.",
        "fatal: could not read Username for 'https://github.com': No such device or address",
        "fatal: could not read Password for 'https://me@github.com': No such device or address",
    ] {
        assert!(
            asked_for_terminal(&format!("error: it failed\n{wanted}\n")),
            "{wanted}"
        );
    }
    for other in [
        "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
        "error: 'prepare-commit-msg' hook failed",
        "test result: FAILED. 3 passed; 1 failed",
    ] {
        assert!(!asked_for_terminal(other), "{other}");
    }
}
