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
