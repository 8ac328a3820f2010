use super::*;

#[test]
fn a_spawn_failure_hints_at_the_usual_causes() {
    let program = OsStr::new("agent");
    let hint = |error: io::Error| SpawnFailure::new(program, &error).message;
    assert!(
        hint(io::ErrorKind::NotFound.into()).ends_with("(not found on PATH; is it installed?)")
    );
    assert!(
        hint(io::ErrorKind::PermissionDenied.into())
            .ends_with("(not executable; check its permissions)")
    );
    assert!(
        hint(io::ErrorKind::ArgumentListTooLong.into())
            .ends_with("(the command line or environment is too large)")
    );
    assert_eq!(hint(io::Error::other("odd")), "odd");
}

#[test]
fn a_command_that_timed_out_names_its_own_limit_not_an_iterations() {
    let timeout = Termination::WallClockTimeout;
    assert_eq!(
        timeout.command_end(Duration::from_secs(3), Some("timeout_seconds")),
        "timed out after 3s (timeout_seconds)"
    );
    assert_eq!(
        timeout.command_end(Duration::from_millis(500), None),
        "timed out after 0.5s"
    );
    let exited = Termination::Exited { code: 2 };
    assert_eq!(
        exited.command_end(Duration::from_secs(3), Some("timeout_seconds")),
        exited.to_string()
    );
}

#[test]
fn a_missing_working_directory_is_not_a_missing_program() {
    let program = OsStr::new("git");
    let missing = std::path::Path::new("/nonexistent/ralph-test/dir");
    let enoent: io::Error = io::ErrorKind::NotFound.into();
    let failure = SpawnFailure::in_dir(program, missing, &enoent);
    assert_eq!(failure.kind, io::ErrorKind::NotFound);
    assert!(
        failure.message.contains("/nonexistent/ralph-test/dir")
            && !failure.message.contains("PATH"),
        "{}",
        failure.message
    );
    // In a directory that is there, ENOENT is the program's: the PATH hint stays.
    let here = std::env::temp_dir();
    let failure = SpawnFailure::in_dir(program, &here, &enoent);
    assert!(
        failure
            .message
            .ends_with("(not found on PATH; is it installed?)")
    );
    let denied: io::Error = io::ErrorKind::PermissionDenied.into();
    let failure = SpawnFailure::in_dir(program, missing, &denied);
    assert!(
        failure
            .message
            .ends_with("(not executable; check its permissions)")
    );
}

#[test]
fn a_program_that_is_there_but_cannot_run_is_not_sent_to_path() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("crlf.sh", "#!/bin/sh\r\necho hi\r\n");
    write("nointerp.sh", "#!/nonexistent/interp -x\necho hi\n");
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    let enoent: io::Error = io::ErrorKind::NotFound.into();
    let denied: io::Error = io::ErrorKind::PermissionDenied.into();
    let said = |program: &str, error: &io::Error| {
        SpawnFailure::in_dir(OsStr::new(program), dir.path(), error).message
    };
    let crlf = said("./crlf.sh", &enoent);
    assert!(
        crlf.contains("`#!/bin/sh\\r` ends with a carriage return") && !crlf.contains("PATH"),
        "{crlf}"
    );
    let missing = said("./nointerp.sh", &enoent);
    assert!(
        missing.ends_with("(its interpreter `/nonexistent/interp` was not found)"),
        "{missing}"
    );
    // An absolute path, started without a directory.
    let absolute = dir.path().join("nointerp.sh");
    let missing = SpawnFailure::new(absolute.as_os_str(), &enoent).message;
    assert!(missing.contains("its interpreter"), "{missing}");
    assert!(said("./gone.sh", &enoent).ends_with("(no such file)"));
    assert!(said("./adir", &denied).ends_with("(a directory, not a program)"));
    assert!(said("adir", &enoent).ends_with("(not found on PATH; is it installed?)"));
}
