use super::*;

#[test]
fn a_second_lock_is_refused_with_the_holders_pid_until_the_first_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(LOCK_FILE);
    let first = lock(&path).unwrap();
    match lock(&path) {
        Err(LockError::Held { pid, path: p }) => {
            assert_eq!((pid, p), (Some(std::process::id()), path.clone()));
        }
        other => panic!("expected Held, got {other:?}"),
    }
    drop(first);
    assert!(lock(&path).is_ok());
}
