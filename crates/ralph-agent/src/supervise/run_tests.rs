//! The run loop driven by a scripted child on a fake clock: no process, no runtime and
//! no real waiting, so exact instants can be asserted. The child answers signals as its
//! script says; its output closes when it dies unless the script has a leftover hold it.
//! [`drive`] polls the loop and, whenever nothing is ready, moves the clock to the
//! earliest instant something sleeps until.

use std::collections::{BTreeSet, VecDeque};
use std::io;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use super::*;
use crate::supervise::{ChildStatus, Flow, POST_EXIT_DRAIN, REAP_TIMEOUT, StopController};

const MS: Duration = Duration::from_millis(1);
const KILL_GRACE: Duration = Duration::from_millis(300);
const TERM: ChildStatus = ChildStatus::Signal(libc::SIGTERM);
const KILL: ChildStatus = ChildStatus::Signal(libc::SIGKILL);

/// Deadlines that never fire unless a test sets one.
fn no_deadlines() -> RunDeadlines {
    RunDeadlines {
        kill_grace: KILL_GRACE,
        ..RunDeadlines::none()
    }
}

/// Made-up time, moved on only by [`drive`].
#[derive(Clone)]
struct FakeClock(Arc<Mutex<FakeTime>>);

struct FakeTime {
    now: Instant,
    /// Instants pending sleeps wait for, gathered while the loop is polled.
    sleeping_until: BTreeSet<Instant>,
}

impl FakeClock {
    fn new() -> FakeClock {
        FakeClock(Arc::new(Mutex::new(FakeTime {
            now: Instant::now(),
            sleeping_until: BTreeSet::new(),
        })))
    }

    fn time(&self) -> MutexGuard<'_, FakeTime> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Instant {
        self.time().now
    }

    fn sleep_until(&self, at: Instant) -> impl Future<Output = ()> + Send {
        let clock = self.clone();
        std::future::poll_fn(move |_| {
            let mut time = clock.time();
            if time.now >= at {
                return Poll::Ready(());
            }
            time.sleeping_until.insert(at);
            Poll::Pending
        })
    }
}

/// Something done to a run from outside (a Ctrl-C, a Ctrl-Z) when the clock reaches it.
type Press = Box<dyn FnOnce(&FakeClock)>;

/// A Ctrl-C on `controller`.
fn ctrl_c_on(controller: &StopController) -> Press {
    let controller = controller.clone();
    Box::new(move |clock| {
        controller.interrupt(clock.now());
    })
}

/// Runs `future` to completion on `clock`, with `presses` (instants and what happens
/// then) carried out when the clock reaches them. Panics when everything waits and
/// nothing sleeps: the loop would hang.
fn drive<F: Future>(clock: &FakeClock, future: F, mut presses: Vec<(Instant, Press)>) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        let mut time = clock.time();
        let sleeper = std::mem::take(&mut time.sleeping_until).into_iter().next();
        let press = presses.iter().map(|(at, _)| *at).min();
        let Some(next) = sleeper.into_iter().chain(press).min() else {
            panic!("the loop waits for nothing that can happen: it would hang");
        };
        time.now = next;
        drop(time);
        let (due, later) = presses.into_iter().partition(|(at, _)| *at <= next);
        presses = later;
        due.into_iter()
            .for_each(|(_, press): (_, Press)| press(clock));
    }
}

/// What the scripted agent does when signalled.
#[derive(Clone, Copy, Debug)]
enum OnSignal {
    /// Dies of the signal this long after it.
    DiesAfter(Duration),
    /// Carries on (a TERM handler that ignores it; for SIGKILL, uninterruptible sleep).
    Ignores,
}

/// When a stream reaches end of file.
#[derive(Clone, Copy, Debug)]
enum Closes {
    /// When the agent dies (its last writer).
    WithTheAgent,
    /// At this offset from the start, whether the agent lives or not.
    At(Duration),
    /// Never: a leftover process holds it open.
    Never,
}

/// When and how the agent ends, shared by the child and its streams.
type Death = Arc<Mutex<Option<(Instant, ChildStatus)>>>;

fn death_of(death: &Death) -> Option<(Instant, ChildStatus)> {
    *death.lock().unwrap_or_else(PoisonError::into_inner)
}

struct ScriptedChild {
    clock: FakeClock,
    t0: Instant,
    death: Death,
    on_term: OnSignal,
    on_kill: OnSignal,
    /// Every signal the loop sent, with its offset from the start.
    signals: Vec<(Duration, Signal)>,
}

impl Child for ScriptedChild {
    async fn wait(&mut self) -> Option<ChildStatus> {
        match death_of(&self.death) {
            Some((at, status)) => {
                self.clock.sleep_until(at).await;
                Some(status)
            }
            None => std::future::pending().await,
        }
    }

    fn signal_tree(&mut self, signal: Signal) {
        let now = self.clock.now();
        self.signals.push((now - self.t0, signal));
        let reaction = match signal {
            Signal::SIGKILL => self.on_kill,
            _ => self.on_term,
        };
        if let OnSignal::DiesAfter(delay) = reaction {
            let at = now + delay;
            let mut death = self.death.lock().unwrap_or_else(PoisonError::into_inner);
            if death.is_none_or(|(earlier, _)| at < earlier) {
                *death = Some((at, ChildStatus::Signal(signal as i32)));
            }
        }
    }
}

struct ScriptedOutput {
    clock: FakeClock,
    t0: Instant,
    /// Chunks and the offsets they are written at; a dead agent writes nothing more.
    chunks: VecDeque<(Duration, &'static [u8])>,
    closes: Closes,
    death: Death,
}

impl Output for ScriptedOutput {
    async fn read(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        buf.clear();
        let died = death_of(&self.death).map(|(at, _)| at);
        if let Some(&(offset, bytes)) = self.chunks.front()
            && died.is_none_or(|died| self.t0 + offset < died)
        {
            self.clock.sleep_until(self.t0 + offset).await;
            self.chunks.pop_front();
            buf.extend_from_slice(bytes);
            return Ok(bytes.len());
        }
        let eof = match self.closes {
            Closes::WithTheAgent => died,
            Closes::At(offset) => Some(self.t0 + offset),
            Closes::Never => None,
        };
        match eof {
            Some(at) => {
                self.clock.sleep_until(at).await;
                Ok(0)
            }
            None => std::future::pending().await,
        }
    }
}

/// One scripted agent run.
struct Script {
    deadlines: RunDeadlines,
    stdout: Vec<(Duration, &'static [u8])>,
    stdout_closes: Closes,
    /// `None`: a PTY, no separate stderr.
    stderr_closes: Option<Closes>,
    /// When the agent exits by itself, and how.
    exits: Option<(Duration, ChildStatus)>,
    on_term: OnSignal,
    on_kill: OnSignal,
}

impl Default for Script {
    /// Silent, never exits by itself, dies at once of any signal.
    fn default() -> Script {
        Script {
            deadlines: no_deadlines(),
            stdout: Vec::new(),
            stdout_closes: Closes::WithTheAgent,
            stderr_closes: Some(Closes::WithTheAgent),
            exits: None,
            on_term: OnSignal::DiesAfter(Duration::ZERO),
            on_kill: OnSignal::DiesAfter(Duration::ZERO),
        }
    }
}

/// What the loop did with a script.
#[derive(Debug, PartialEq, Eq)]
struct Played {
    termination: Termination,
    status: Option<ChildStatus>,
    signals: Vec<(Duration, Signal)>,
    /// When the loop stopped waiting.
    ended: Duration,
    stdout_bytes: u64,
    /// As the run's outcome reports it.
    time_to_first_byte: Option<Duration>,
}

/// Runs the loop over `script`, with Ctrl-C pressed at each of `ctrl_c` (offsets from the
/// start).
fn play(script: Script, ctrl_c: &[Duration]) -> Played {
    let presses = |controller: &StopController, t0: Instant| {
        let at = |offset: &Duration| (t0 + *offset, ctrl_c_on(controller));
        ctrl_c.iter().map(at).collect()
    };
    play_into(script, presses, |_| Lines)
}

/// [`play`] with what `presses` does from outside (on the run's controller, from the
/// start `t0`), and the sink `sink` makes on the run's clock.
fn play_into<S: OutputSink>(
    script: Script,
    presses: impl FnOnce(&StopController, Instant) -> Vec<(Instant, Press)>,
    sink: impl FnOnce(&FakeClock) -> S,
) -> Played {
    let clock = FakeClock::new();
    let mut sink = sink(&clock);
    let t0 = clock.now();
    let death: Death = Arc::new(Mutex::new(
        script.exits.map(|(offset, status)| (t0 + offset, status)),
    ));
    let output = |chunks: Vec<_>, closes| ScriptedOutput {
        clock: clock.clone(),
        t0,
        chunks: chunks.into(),
        closes,
        death: Arc::clone(&death),
    };
    let child = ScriptedChild {
        clock: clock.clone(),
        t0,
        death: Arc::clone(&death),
        on_term: script.on_term,
        on_kill: script.on_kill,
        signals: Vec::new(),
    };
    let stdout = output(script.stdout, script.stdout_closes);
    let stderr = script
        .stderr_closes
        .map(|closes| output(Vec::new(), closes));
    let machine = Machine::new(script.deadlines, t0, stderr.is_some());
    let mut run = Supervision::new(machine, child, stdout, stderr, None, clock.clone());
    let (controller, requests) = StopController::new();
    let presses = presses(&controller, t0);
    drive(&clock, run.supervise(&mut sink, requests), presses);
    Played {
        termination: run.machine.termination(),
        status: run.machine.exit().and_then(|e| e.status),
        signals: run.child.signals,
        ended: clock.now() - t0,
        stdout_bytes: run.stdout_bytes,
        time_to_first_byte: run.machine.time_to_first_byte(),
    }
}

/// Answers `Finished` at a `DONE` line, `Stop` at a `STOP` line.
struct Lines;

impl OutputSink for Lines {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        match bytes {
            b"DONE\n" => Flow::Finished,
            b"STOP\n" => Flow::Stop,
            _ => Flow::Continue,
        }
    }
}

fn play_alone(script: Script) -> Played {
    play(script, &[])
}

#[test]
fn idle_deadline_sends_term_and_an_exit_within_the_grace_ends_the_run() {
    let idle = 400 * MS;
    let played = play_alone(Script {
        deadlines: RunDeadlines {
            idle: Some(idle),
            ..no_deadlines()
        },
        stdout: vec![(10 * MS, b"hello\n")],
        on_term: OnSignal::DiesAfter(20 * MS),
        ..Script::default()
    });
    assert_eq!(
        played,
        Played {
            termination: Termination::IdleTimeout,
            status: Some(TERM),
            signals: vec![(10 * MS + idle, Signal::SIGTERM)],
            ended: 10 * MS + idle + 20 * MS,
            stdout_bytes: 6,
            time_to_first_byte: Some(10 * MS),
        }
    );
}

#[test]
fn startup_and_wall_deadlines_are_reported_as_themselves() {
    let startup = play_alone(Script {
        deadlines: RunDeadlines {
            startup: Some(700 * MS),
            idle: Some(100 * MS),
            ..no_deadlines()
        },
        ..Script::default()
    });
    assert_eq!(
        (startup.termination, startup.signals),
        (
            Termination::StartupTimeout,
            vec![(700 * MS, Signal::SIGTERM)]
        )
    );
    // Never idle, always too long.
    let busy: Vec<(Duration, &'static [u8])> =
        (1..100).map(|i| (i * 50 * MS, &b"line\n"[..])).collect();
    let wall = play_alone(Script {
        deadlines: RunDeadlines {
            idle: Some(200 * MS),
            wall: Some(725 * MS),
            ..no_deadlines()
        },
        stdout: busy,
        ..Script::default()
    });
    assert_eq!(
        (wall.termination, wall.signals, wall.stdout_bytes),
        (
            Termination::WallClockTimeout,
            vec![(725 * MS, Signal::SIGTERM)],
            14 * 5
        )
    );
}

/// A silent agent that ignores SIGTERM, stopped by a 100 ms startup deadline.
fn ignoring_term(on_kill: OnSignal) -> Played {
    play_alone(Script {
        deadlines: RunDeadlines {
            startup: Some(100 * MS),
            ..no_deadlines()
        },
        on_term: OnSignal::Ignores,
        on_kill,
        ..Script::default()
    })
}

#[test]
fn term_ignored_is_followed_by_kill_after_the_kill_grace() {
    let term = (100 * MS, Signal::SIGTERM);
    let kill = (100 * MS + KILL_GRACE, Signal::SIGKILL);
    let killed = Played {
        termination: Termination::StartupTimeout,
        status: Some(KILL),
        signals: vec![term, kill],
        ended: kill.0 + MS,
        stdout_bytes: 0,
        time_to_first_byte: None,
    };
    assert_eq!(ignoring_term(OnSignal::DiesAfter(MS)), killed);
    // KILL not honoured either: given up on after the reap timeout, without a status.
    assert_eq!(
        ignoring_term(OnSignal::Ignores),
        Played {
            status: None,
            ended: kill.0 + REAP_TIMEOUT,
            ..killed
        }
    );
}

#[test]
fn finished_agent_that_does_not_exit_is_stopped_after_the_exit_grace() {
    let exit_grace = 250 * MS;
    let played = play_alone(Script {
        deadlines: RunDeadlines {
            idle: Some(100 * MS),
            exit_grace,
            ..no_deadlines()
        },
        stdout: vec![(10 * MS, b"working\n"), (30 * MS, b"DONE\n")],
        ..Script::default()
    });
    // The exit grace, longer than the inactivity deadline, governs after the terminal event.
    assert_eq!(
        (played.termination, played.signals),
        (
            Termination::StoppedAfterFinish,
            vec![(30 * MS + exit_grace, Signal::SIGTERM)]
        )
    );
}

#[test]
fn no_hang_after_the_agent_finished_when_a_leftover_holds_its_output() {
    let played = play_alone(Script {
        stdout: vec![(10 * MS, b"DONE\n")],
        stdout_closes: Closes::Never,
        exits: Some((50 * MS, ChildStatus::Code(0))),
        ..Script::default()
    });
    assert_eq!(
        played,
        Played {
            termination: Termination::Exited { code: 0 },
            status: Some(ChildStatus::Code(0)),
            signals: vec![],
            ended: 50 * MS + POST_EXIT_DRAIN,
            stdout_bytes: 5,
            time_to_first_byte: Some(10 * MS),
        }
    );
}

#[test]
fn the_wait_ends_at_the_exit_or_when_the_last_stream_closes_after_it() {
    let exit = 100 * MS;
    let cases = [
        // Closed before the exit (not an exit in itself): at the exit.
        (Closes::At(20 * MS), Some(Closes::At(30 * MS)), exit),
        // Closed after the exit: when the last one closes.
        (Closes::At(120 * MS), Some(Closes::At(150 * MS)), 150 * MS),
        (Closes::At(150 * MS), Some(Closes::At(120 * MS)), 150 * MS),
        // On a PTY only stdout has to close.
        (Closes::WithTheAgent, None, exit),
        // A leftover holds stderr: at the drain bound.
        (
            Closes::WithTheAgent,
            Some(Closes::Never),
            exit + POST_EXIT_DRAIN,
        ),
    ];
    for (stdout_closes, stderr_closes, ended) in cases {
        let played = play_alone(Script {
            stdout_closes,
            stderr_closes,
            exits: Some((exit, ChildStatus::Code(4))),
            ..Script::default()
        });
        assert_eq!(
            (played.termination, played.ended),
            (Termination::Exited { code: 4 }, ended),
            "stdout {stdout_closes:?}, stderr {stderr_closes:?}"
        );
    }
}

#[test]
fn the_sink_stop_terminates_the_agent() {
    let played = play_alone(Script {
        stdout: vec![(10 * MS, b"STOP\n"), (20 * MS, b"more\n")],
        on_term: OnSignal::DiesAfter(50 * MS),
        ..Script::default()
    });
    // Output written while it is being stopped still reaches the sink.
    assert_eq!(
        (played.termination, played.signals, played.stdout_bytes),
        (
            Termination::StoppedByCaller,
            vec![(10 * MS, Signal::SIGTERM)],
            10
        )
    );
}

#[test]
fn one_ctrl_c_terminates_the_agent() {
    let played = play(
        Script {
            on_term: OnSignal::DiesAfter(10 * MS),
            ..Script::default()
        },
        &[100 * MS],
    );
    assert_eq!(
        (played.termination, played.status, played.signals),
        (
            Termination::Interrupted,
            Some(TERM),
            vec![(100 * MS, Signal::SIGTERM)]
        )
    );
}

#[test]
fn a_second_ctrl_c_kills_an_agent_that_ignores_term() {
    let played = play(
        Script {
            deadlines: RunDeadlines {
                kill_grace: Duration::from_secs(30),
                ..no_deadlines()
            },
            on_term: OnSignal::Ignores,
            ..Script::default()
        },
        &[100 * MS, 300 * MS],
    );
    assert_eq!(
        (played.termination, played.status, played.signals),
        (
            Termination::Interrupted,
            Some(KILL),
            vec![(100 * MS, Signal::SIGTERM), (300 * MS, Signal::SIGKILL)]
        )
    );
}

#[path = "run_live_tests.rs"]
mod live;
#[path = "run_pause_tests.rs"]
mod pause;
#[path = "run_slow_reader_tests.rs"]
mod slow_reader;
