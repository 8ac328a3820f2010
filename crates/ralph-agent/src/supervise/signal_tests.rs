use super::*;

#[test]
fn own_group_own_pid_parent_and_init_are_never_signalled() {
    let me = getpid().as_raw();
    let my_group = getpgrp().as_raw();
    let parent = getppid().as_raw();
    for pgid in [my_group, me, 0, 1, -1] {
        assert_eq!(
            signal_group(pgid, Some(Signal::SIGKILL)),
            Err(SignalError::Protected(pgid))
        );
    }
    for pid in [me, parent, 0, 1, -1] {
        assert_eq!(
            signal_pid(pid, Some(Signal::SIGKILL)),
            Err(SignalError::Protected(pid))
        );
    }
}
