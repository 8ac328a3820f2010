use std::io::Read;

use super::*;

fn env_with_path(path: &str) -> Vec<(OsString, OsString)> {
    vec![("PATH".into(), path.into())]
}

/// Runs `program` to its end; returns its stdout and exit code.
fn run(
    program: &str,
    args: &[&str],
    env: &[(OsString, OsString)],
    cwd: Option<&Path>,
) -> (String, i32) {
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let started = start(program.as_ref(), &args, env, cwd, false, false, false).unwrap();
    let mut out = String::new();
    std::fs::File::from(started.stdout)
        .read_to_string(&mut out)
        .unwrap();
    let status = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(started.pid), None).unwrap();
    let code = match status {
        nix::sys::wait::WaitStatus::Exited(_, code) => code,
        other => panic!("{other:?}"),
    };
    (out, code)
}

#[test]
fn a_program_on_the_child_s_path_runs_with_its_arguments_environment_and_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mut env = env_with_path("/usr/bin:/bin");
    env.push(("GREETING".into(), "hello".into()));
    let (out, code) = run(
        "sh",
        &[
            "-c",
            "echo \"$GREETING $1\" && pwd && exit 3",
            "sh",
            "there",
        ],
        &env,
        Some(dir.path()),
    );
    assert_eq!(code, 3);
    let canonical = dir.path().canonicalize().unwrap();
    assert_eq!(out, format!("hello there\n{}\n", canonical.display()));
}

#[test]
fn the_child_has_its_own_group_a_death_signal_and_stdin_at_end_of_file() {
    // Field 5 of /proc/self/stat is the group; PR_GET_PDEATHSIG is not readable from a
    // shell, but a group of its own and an empty stdin are.
    let (out, _) = run(
        "sh",
        &[
            "-c",
            "read -r line; echo \"read:$?\"; cut -d' ' -f5 /proc/self/stat; echo $$",
        ],
        &env_with_path("/usr/bin:/bin"),
        None,
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "read:1");
    // `cut` is a child of the shell, in the shell's group: the group is the shell's pid.
    assert_eq!(lines[1], lines[2]);
}

/// Why `program` with `args` does not start, on the usual `PATH`.
fn start_error(program: &str, args: &[OsString]) -> io::Error {
    let env = env_with_path("/usr/bin:/bin");
    start(program.as_ref(), args, &env, None, false, false, false)
        .err()
        .expect("it does not start")
}

#[test]
fn a_missing_program_is_not_found_and_a_directory_is_not_run() {
    let error = start_error("no-such-agent-anywhere", &[]);
    assert_eq!(error.kind(), io::ErrorKind::NotFound);
    let error = start_error("/", &[]);
    assert_eq!(error.raw_os_error(), Some(libc::EACCES));
}

#[test]
fn a_script_without_a_shebang_runs_in_the_shell_as_execvp_would() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("agent");
    std::fs::write(&script, "echo from-script \"$1\"\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", dir.path().display());
    let (out, code) = run("agent", &["x"], &env_with_path(&path), None);
    assert_eq!((out.as_str(), code), ("from-script x\n", 0));
}

#[test]
fn a_nul_byte_in_an_argument_is_refused_before_anything_starts() {
    let error = start_error("sh", &[OsString::from("a\0b")]);
    assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn the_death_signal_kills_the_child_when_the_thread_that_started_it_ends() {
    // PR_SET_PDEATHSIG fires when the parent *thread* exits: a thread that starts a long
    // sleep and ends stands for a ralph killed with SIGKILL.
    let pid = std::thread::spawn(|| {
        let started = start(
            "sleep".as_ref(),
            &[OsString::from("30")],
            &env_with_path("/usr/bin:/bin"),
            None,
            false,
            false,
            false,
        )
        .unwrap();
        started.pid
    })
    .join()
    .unwrap();
    let status = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid), None).unwrap();
    assert_eq!(
        status,
        nix::sys::wait::WaitStatus::Signaled(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
            false
        )
    );
}

#[test]
fn merged_stderr_comes_down_the_stdout_pipe_in_the_order_written() {
    let args: Vec<OsString> = ["-c", "for i in 1 2 3; do echo out$i; echo err$i >&2; done"]
        .iter()
        .map(OsString::from)
        .collect();
    let env = env_with_path("/usr/bin:/bin");
    let started = start("sh".as_ref(), &args, &env, None, false, true, false).unwrap();
    assert!(started.stderr.is_none());
    let mut out = String::new();
    std::fs::File::from(started.stdout)
        .read_to_string(&mut out)
        .unwrap();
    nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(started.pid), None).unwrap();
    assert_eq!(out, "out1\nerr1\nout2\nerr2\nout3\nerr3\n");
}
