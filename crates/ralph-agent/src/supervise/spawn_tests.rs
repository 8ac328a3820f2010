use super::*;

/// Everything `spawned` writes on stdout, to its end.
async fn read_all(spawned: &mut Spawned) -> String {
    let mut all = Vec::new();
    let mut buf = Vec::with_capacity(4096);
    while spawned.stdout.read(&mut buf).await.unwrap() > 0 {
        all.extend_from_slice(&buf);
    }
    String::from_utf8(all).unwrap()
}

fn interleaving() -> SpawnSpec {
    let mut spec =
        SpawnSpec::new("sh").args(["-c", "for i in 1 2 3; do echo out$i; echo err$i >&2; done"]);
    spec.merge_stderr = true;
    spec
}

#[tokio::test]
async fn merged_stderr_reads_in_order_on_both_ways_of_starting() {
    let expected = "out1\nerr1\nout2\nerr2\nout3\nerr3\n";
    let spec = interleaving();
    let mut forked = spawn_forked(&spec, "t1").unwrap();
    assert!(forked.stderr.is_none());
    assert_eq!(read_all(&mut forked).await, expected);
    let mut spawned = spawn(&spec, "t2").unwrap();
    assert!(spawned.stderr.is_none());
    assert_eq!(read_all(&mut spawned).await, expected);
    for process in [forked.child, spawned.child] {
        if let Process::Forked(mut child) = process {
            child.wait().await.unwrap();
        }
    }
}

#[tokio::test]
async fn without_merging_stderr_has_its_own_pipe() {
    let mut spec = interleaving();
    spec.merge_stderr = false;
    let mut forked = spawn_forked(&spec, "t3").unwrap();
    assert!(forked.stderr.is_some());
    assert_eq!(read_all(&mut forked).await, "out1\nout2\nout3\n");
    if let Process::Forked(mut child) = forked.child {
        child.wait().await.unwrap();
    }
}

#[tokio::test]
async fn a_program_busy_being_written_is_started_once_its_writer_lets_go() {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;

    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("agent");
    let mut writer = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o755)
        .open(&program)
        .unwrap();
    writer.write_all(b"#!/bin/sh\necho started\n").unwrap();
    // While it is open for writing, the kernel refuses to run it.
    let busy = spawn_once(&SpawnSpec::new(&program), "t4").err();
    assert_eq!(busy.and_then(|e| e.raw_os_error()), Some(libc::ETXTBSY));
    let letting_go = std::thread::spawn(move || {
        std::thread::sleep(BUSY_PAUSE * 3);
        drop(writer);
    });
    let mut spawned = spawn(&SpawnSpec::new(&program), "t5").unwrap();
    assert_eq!(read_all(&mut spawned).await, "started\n");
    letting_go.join().unwrap();
    if let Process::Forked(mut child) = spawned.child {
        child.wait().await.unwrap();
    }
}

/// What a shell started from `spec` says: its group, its session (fields 5 and 6 of
/// `/proc/self/stat`, read by `cut`, its child, which shares both) and its own pid.
async fn group_session_and_pid(spawned: &mut Spawned) -> Vec<String> {
    let out = read_all(spawned).await;
    out.split_whitespace().map(str::to_owned).collect()
}

#[tokio::test]
async fn a_child_asked_for_its_own_session_leads_it_on_both_ways_of_starting() {
    let spec = SpawnSpec::new("sh")
        .args(["-c", "cut -d' ' -f5,6 /proc/self/stat; echo $$"])
        .own_session(true);
    let mut forked = spawn_forked(&spec, "t6").unwrap();
    let mut spawned = spawn(&spec, "t7").unwrap();
    for said in [
        group_session_and_pid(&mut forked).await,
        group_session_and_pid(&mut spawned).await,
    ] {
        // Its own group and its own session, both led by the shell: no terminal.
        assert_eq!(said.len(), 3, "{said:?}");
        assert_eq!(said[0], said[2], "group: {said:?}");
        assert_eq!(said[1], said[2], "session: {said:?}");
    }
    let default = SpawnSpec::new("sh").args(["-c", "cut -d' ' -f5,6 /proc/self/stat; echo $$"]);
    let mut grouped = spawn(&default, "t8").unwrap();
    let said = group_session_and_pid(&mut grouped).await;
    assert_eq!(said[0], said[2], "group: {said:?}");
    assert_ne!(
        said[1], said[2],
        "a default child stays in ralph's session: {said:?}"
    );
    for process in [forked.child, spawned.child, grouped.child] {
        if let Process::Forked(mut child) = process {
            child.wait().await.unwrap();
        }
    }
}
