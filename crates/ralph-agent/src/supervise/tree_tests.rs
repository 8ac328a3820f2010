use super::*;

#[test]
fn stat_fields_are_read_after_the_last_parenthesis() {
    let line = b"4242 (we(i)rd name) S 17 4242 4242 0 -1 4194560 1 0 0 0 3 1 0 0 20 0 1 0 \
                 987654 4096 100";
    assert_eq!(
        parse_stat(4242, line),
        Some(ProcStat {
            pid: 4242,
            ppid: 17,
            pgid: 4242,
            state: b'S',
            tty_nr: 0,
            start_ticks: 987_654,
        })
    );
    assert_eq!(parse_stat(1, b"garbage"), None);
    // Cut before the start time: not a stat line ralph can use.
    assert_eq!(parse_stat(4242, b"4242 (x) S 17 4242 4242 0 -1"), None);
}

#[test]
fn own_process_is_readable_and_alive() {
    let me = getpid().as_raw();
    let stat = read_stat(me).map(|s| (s.pid, s.is_dead()));
    assert_eq!(stat, Some((me, false)));
    assert!(!is_gone(me));
}

#[cfg(target_os = "linux")]
#[test]
fn the_short_cut_past_proc_is_never_taken_while_a_group_member_or_a_child_lives() {
    use std::os::unix::process::CommandExt;
    // A group member alive: its group is not empty.
    let mut leader = crate::supervise::own_children::spawn(
        std::process::Command::new("sleep")
            .arg("30")
            .process_group(0),
    )
    .unwrap();
    let group = leader.id() as i32;
    assert!(!nothing_can_be_left(group));
    leader.kill().unwrap();
    // Killed but not reaped: a zombie still holds the group.
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(!nothing_can_be_left(group));
    leader.wait().unwrap();
    // The group is empty now, but another child of ralph (an orphan it adopted, in a group
    // of its own) may belong to the tree: look.
    let mut adopted = crate::supervise::own_children::spawn(
        std::process::Command::new("sleep")
            .arg("30")
            .process_group(0),
    )
    .unwrap();
    assert!(!nothing_can_be_left(group));
    adopted.kill().unwrap();
    adopted.wait().unwrap();
}

/// A process as `/proc` would show it, alive.
fn proc(pid: i32, ppid: i32, pgid: i32, start_ticks: u64) -> ProcStat {
    ProcStat {
        pid,
        ppid,
        pgid,
        state: b'S',
        tty_nr: 0,
        start_ticks,
    }
}

#[test]
fn members_are_found_by_start_time_wherever_the_pid_counter_has_wrapped_to() {
    // ralph (pid 100) started the agent 5202 at tick 1000. The agent started a detached
    // daemon (pid 6747, its own session, the run's marker) and exited, orphaning it to
    // ralph; then the pid counter went past its maximum and round again past the agent,
    // to 5304, a pid the agent's tree also uses now.
    let ralph = 100;
    let mut tree = AgentTree::new(5202, 5202, "test-run");
    tree.reach = Reach::Live { not_before: 1000 };
    let stats = [
        proc(ralph, 1, ralph, 10),
        // An older process of the user's, with a pid above the agent's.
        proc(6000, 1, 6000, 500),
        proc(6747, ralph, 6747, 1100),
        // The daemon's child, started after the wrap.
        proc(5304, 6747, 6747, 9000),
        // Someone else's process started after the wrap, below the agent's pid.
        proc(400, 1, 400, 8000),
    ];
    let mark = |pid: i32| match pid {
        6747 | 5304 => Mark::ThisRun,
        _ => Mark::None,
    };
    tree.collect_among(&stats, &ralph_with(ralph, &BTreeSet::from([5202])), mark);
    assert_eq!(tree.known(), &BTreeSet::from([5304, 6747]));
}

/// Ralph (`pid`, its own group) having started `started`.
fn ralph_with(pid: i32, started: &BTreeSet<i32>) -> Ralph<'_> {
    Ralph {
        pid,
        group: pid,
        started,
    }
}

#[test]
fn a_child_of_ralph_that_it_did_not_start_is_the_agents_even_without_a_marker() {
    let ralph = 100;
    // The agent 200, started at tick 1000, and a gate 300 ralph started after it.
    let mut tree = AgentTree::new(200, 200, "owner-1");
    tree.reach = Reach::Live { not_before: 1000 };
    let stats = [
        proc(ralph, 1, ralph, 10),
        // `env -i setsid sh -c 'sleep &'`: the sleep, orphaned, in the dead sh's group.
        proc(401, ralph, 400, 1100),
        // Its child.
        proc(402, 401, 400, 1101),
        // A zombie orphan (no environment left to read).
        proc(403, ralph, 403, 1102),
        // The gate ralph started, and an orphan of the gate's tree (its marker).
        proc(300, ralph, 300, 1200),
        proc(301, ralph, 301, 1201),
        // An orphan older than the agent.
        proc(500, ralph, 500, 900),
        // Something ralph runs in its own job (an interactive session).
        proc(600, ralph, ralph, 1300),
    ];
    let mark = |pid: i32| match pid {
        300 | 301 => Mark::OtherRun,
        _ => Mark::None,
    };
    tree.collect_among(
        &stats,
        &ralph_with(ralph, &BTreeSet::from([200, 300])),
        mark,
    );
    assert_eq!(tree.known(), &BTreeSet::from([401, 402, 403]));
}

#[test]
fn the_marker_of_another_run_is_told_from_this_runs_and_from_none() {
    let tree = AgentTree::new(i32::MAX, i32::MAX, "4242-777-3");
    let mark_of = |marker: Option<&str>| {
        let mut cmd = std::process::Command::new("sleep");
        cmd.arg("30").env_remove(MARKER_VAR);
        if let Some(marker) = marker {
            cmd.env(MARKER_VAR, marker);
        }
        let mut child = crate::supervise::own_children::spawn(&mut cmd).unwrap();
        let pid = child.id() as i32;
        // Its environment shows once the kernel has finished setting up the exec.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|e| e.is_empty())
            && std::time::Instant::now() < until
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let mark = Mark::of(pid, &tree.needle, &tree.any_run);
        child.kill().unwrap();
        child.wait().unwrap();
        mark
    };
    assert_eq!(
        [
            mark_of(Some("4242-777-3")),
            mark_of(Some("4242-777-31")),
            mark_of(Some("4242-778-3")),
            mark_of(None),
        ],
        [Mark::ThisRun, Mark::OtherRun, Mark::None, Mark::None]
    );
}
