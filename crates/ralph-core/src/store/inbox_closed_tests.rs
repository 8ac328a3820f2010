use std::time::UNIX_EPOCH;

use super::*;

#[test]
fn the_loop_that_closed_the_inbox_is_finishing_another_is_starting() {
    let ws = tempfile::tempdir().unwrap();
    let dir = RalphDir::in_workspace(ws.path());
    let run = dir.create_run(UNIX_EPOCH).unwrap();
    assert_eq!(dir.inbox_listener(&run).unwrap(), InboxListener::NoLoop);
    let lock = dir.lock().unwrap();
    assert_eq!(dir.inbox_listener(&run).unwrap(), InboxListener::Loop);

    // This process holds the lock and closes the inbox: the loop is finishing.
    run.close_inbox().unwrap();
    assert_eq!(
        run.inbox_closed_by().unwrap().0.map(|by| by.pid),
        Some(std::process::id())
    );
    assert_eq!(dir.inbox_listener(&run).unwrap(), InboxListener::Finishing);

    // Closed by another ralph (one that ended): the lock's holder is a new loop.
    std::fs::write(run.inbox_closed_path(), "1 elsewhere\n").unwrap();
    assert_eq!(dir.inbox_listener(&run).unwrap(), InboxListener::Starting);
    // A mark that names no one is still a mark.
    std::fs::write(run.inbox_closed_path(), "").unwrap();
    assert_eq!(run.inbox_closed_by(), Some(ClosedBy(None)));
    assert_eq!(dir.inbox_listener(&run).unwrap(), InboxListener::Starting);

    run.reopen_inbox().unwrap();
    run.reopen_inbox().unwrap();
    assert_eq!(run.inbox_closed_by(), None);
    assert_eq!(dir.inbox_listener(&run).unwrap(), InboxListener::Loop);
    drop(lock);
    assert_eq!(dir.inbox_listener(&run).unwrap(), InboxListener::NoLoop);
}
