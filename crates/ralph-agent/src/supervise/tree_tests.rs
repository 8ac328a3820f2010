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
