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
