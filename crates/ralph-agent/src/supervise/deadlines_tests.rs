use super::*;

const S: Duration = Duration::from_secs(1);

fn deadlines() -> RunDeadlines {
    RunDeadlines {
        startup: Some(10 * S),
        idle: Some(5 * S),
        wall: Some(100 * S),
        exit_grace: 2 * S,
        kill_grace: S,
    }
}

#[test]
fn startup_governs_until_the_first_byte_then_inactivity_resets_on_every_byte() {
    let t0 = Instant::now();
    let mut clock = DeadlineClock::new(deadlines(), t0);
    assert_eq!(clock.next(), Some((t0 + 10 * S, Expiry::Startup)));
    clock.on_output(t0 + 3 * S);
    assert_eq!(clock.next(), Some((t0 + 8 * S, Expiry::Idle)));
    clock.on_output(t0 + 7 * S);
    assert_eq!(clock.next(), Some((t0 + 12 * S, Expiry::Idle)));
    assert_eq!(clock.time_to_first_byte(), Some(3 * S));
}

#[test]
fn a_pause_before_the_first_byte_is_not_in_the_time_to_it_and_one_after_changes_nothing() {
    let t0 = Instant::now();
    let mut clock = DeadlineClock::new(deadlines(), t0);
    // Ctrl-Z for a minute, 1 s in; the agent writes 2 s after `fg`.
    clock.shift(60 * S);
    clock.on_output(t0 + 63 * S);
    assert_eq!(clock.time_to_first_byte(), Some(3 * S));
    clock.shift(60 * S);
    clock.on_output(t0 + 130 * S);
    assert_eq!(clock.time_to_first_byte(), Some(3 * S));
}

#[test]
fn without_a_startup_deadline_inactivity_counts_from_spawn() {
    let t0 = Instant::now();
    let d = RunDeadlines {
        startup: None,
        ..deadlines()
    };
    assert_eq!(
        DeadlineClock::new(d, t0).next(),
        Some((t0 + 5 * S, Expiry::Idle))
    );
}

#[test]
fn after_the_terminal_event_only_exit_grace_and_wall_remain() {
    let t0 = Instant::now();
    let mut clock = DeadlineClock::new(deadlines(), t0);
    clock.on_output(t0 + S);
    clock.on_finished(t0 + 2 * S);
    clock.on_finished(t0 + 3 * S);
    assert_eq!(clock.next(), Some((t0 + 4 * S, Expiry::ExitGrace)));
}

#[test]
fn wall_clock_wins_when_it_is_earlier() {
    let t0 = Instant::now();
    let d = RunDeadlines {
        wall: Some(3 * S),
        ..deadlines()
    };
    assert_eq!(
        DeadlineClock::new(d, t0).next(),
        Some((t0 + 3 * S, Expiry::Wall))
    );
    assert_eq!(DeadlineClock::new(RunDeadlines::none(), t0).next(), None);
}

/// The supervisor once had its own defaults (an inactivity deadline of 10 minutes
/// where the docs say 15); its defaults must be the documented ones.
#[test]
fn the_default_run_deadlines_are_the_documented_defaults() {
    const DOCUMENTED_IDLE: Duration = Duration::from_secs(900);
    const DOCUMENTED_STARTUP: Duration = Duration::from_secs(120);
    const DOCUMENTED_ITERATION: Duration = Duration::from_secs(3600);
    let d = RunDeadlines::default();
    assert_eq!(
        (d.startup, d.idle, d.wall),
        (
            Some(DOCUMENTED_STARTUP),
            Some(DOCUMENTED_IDLE),
            Some(DOCUMENTED_ITERATION)
        )
    );
}

#[test]
fn a_deadline_past_what_the_clock_holds_is_a_century_off_not_a_panic() {
    let t0 = Instant::now();
    let d = RunDeadlines {
        startup: Some(Duration::MAX),
        idle: Some(Duration::MAX),
        wall: None,
        exit_grace: Duration::MAX,
        kill_grace: S,
    };
    let mut clock = DeadlineClock::new(d, t0);
    assert_eq!(clock.next(), Some((t0 + NEVER, Expiry::Startup)));
    clock.on_output(t0 + S);
    assert_eq!(clock.next(), Some((t0 + S + NEVER, Expiry::Idle)));
    clock.on_finished(t0 + 2 * S);
    assert_eq!(clock.next(), Some((t0 + 2 * S + NEVER, Expiry::ExitGrace)));
    let wall = RunDeadlines {
        wall: Some(Duration::from_secs(u64::MAX)),
        ..d
    };
    assert_eq!(
        DeadlineClock::new(wall, t0).next(),
        Some((t0 + NEVER, Expiry::Wall))
    );
}

#[test]
fn an_announced_wait_holds_off_inactivity_until_it_ends_and_no_further_than_the_cap() {
    let t0 = Instant::now();
    let mut clock = DeadlineClock::new(deadlines(), t0);
    clock.on_output(t0 + S);
    // A retry in 40 s: silence until then is not inactivity.
    clock.quiet_for(t0 + S, 40 * S);
    assert_eq!(clock.next(), Some((t0 + 46 * S, Expiry::Idle)));
    // Output during the wait does not bring the deadline forward, nor a shorter wait.
    clock.on_output(t0 + 10 * S);
    clock.quiet_for(t0 + 10 * S, S);
    assert_eq!(clock.next(), Some((t0 + 46 * S, Expiry::Idle)));
    // Output after the wait counts as before.
    clock.on_output(t0 + 50 * S);
    assert_eq!(clock.next(), Some((t0 + 55 * S, Expiry::Idle)));
    // A wait of a day is held to the cap; the wall clock still comes first here.
    let d = RunDeadlines {
        wall: None,
        ..deadlines()
    };
    let mut clock = DeadlineClock::new(d, t0);
    clock.on_output(t0);
    clock.quiet_for(t0, 24 * 60 * 60 * S);
    assert_eq!(
        clock.next(),
        Some((t0 + MAX_ANNOUNCED_WAIT + 5 * S, Expiry::Idle))
    );
}
