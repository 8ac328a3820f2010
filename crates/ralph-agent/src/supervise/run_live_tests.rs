//! The run loop with a live stdin, driven like the other scripted runs: a scripted agent
//! that reads commands, answers the abort command by ending its turn and exits at end of
//! file (as pi's RPC mode and Claude Code's stream-json input do), or ignores them.

use std::pin::Pin;
use std::task::{Context, Poll};

use super::*;
use crate::supervise::{ABORT_GRACE, LiveStdin};

const ABORT: &[u8] = b"ABORT\n";
const STEER: &[u8] = b"STEER\n";

/// How the scripted agent treats its input.
#[derive(Clone, Copy)]
struct Reacts {
    /// Ends its turn (writes `DONE`) this long after reading the abort command.
    to_abort: Option<Duration>,
    /// Exits with 0 this long after end of file.
    to_eof: Option<Duration>,
}

/// What the agent read and when its input ended, shared by its stdin and its stdout.
struct Agent {
    clock: FakeClock,
    t0: Instant,
    reacts: Reacts,
    death: Death,
    /// Output still to be written, at instants.
    chunks: VecDeque<(Instant, Vec<u8>)>,
    read: Vec<(Duration, Vec<u8>)>,
    eof: Option<Duration>,
}

type Shared = Arc<Mutex<Agent>>;

fn agent(shared: &Shared) -> MutexGuard<'_, Agent> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The agent's stdin: records each frame, reacts to the abort command and to its end.
struct Stdin(Shared);

impl tokio::io::AsyncWrite for Stdin {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut agent = agent(&self.0);
        let now = agent.clock.now();
        let offset = now - agent.t0;
        agent.read.push((offset, buf.to_vec()));
        if let (ABORT, Some(delay)) = (buf, agent.reacts.to_abort) {
            agent.chunks.push_back((now + delay, b"DONE\n".to_vec()));
            // Nothing wakes a read already polled on this fake clock: the answer's instant
            // is where the clock must stop next.
            agent.clock.time().sleeping_until.insert(now + delay);
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl Drop for Stdin {
    fn drop(&mut self) {
        let mut agent = agent(&self.0);
        let now = agent.clock.now();
        agent.eof = Some(now - agent.t0);
        if let Some(delay) = agent.reacts.to_eof {
            let mut death = agent.death.lock().unwrap_or_else(PoisonError::into_inner);
            if death.is_none_or(|(at, _)| now + delay < at) {
                *death = Some((now + delay, ChildStatus::Code(0)));
            }
        }
    }
}

/// The agent's stdout: what it was scripted to write and what it writes in answer,
/// looked at afresh on every poll (an answer can be queued while a read waits); it closes
/// when the agent dies.
struct Stdout(Shared);

impl Output for Stdout {
    fn read(&mut self, buf: &mut Vec<u8>) -> impl Future<Output = io::Result<usize>> + Send {
        buf.clear();
        std::future::poll_fn(move |_| {
            let mut agent = agent(&self.0);
            let now = agent.clock.now();
            let died = death_of(&agent.death).map(|(at, _)| at);
            let next = agent.chunks.front().map(|(at, _)| *at);
            match next.filter(|at| died.is_none_or(|died| *at < died)) {
                Some(at) if at <= now => {
                    let bytes = agent.chunks.pop_front().map(|(_, b)| b).unwrap_or_default();
                    buf.extend_from_slice(&bytes);
                    Poll::Ready(Ok(bytes.len()))
                }
                Some(at) => {
                    agent.clock.time().sleeping_until.insert(at);
                    Poll::Pending
                }
                None => match died {
                    Some(at) if at <= now => Poll::Ready(Ok(0)),
                    Some(at) => {
                        agent.clock.time().sleeping_until.insert(at);
                        Poll::Pending
                    }
                    None => Poll::Pending,
                },
            }
        })
    }
}

/// Answers `Finished` at `DONE`, `Stop` at `STOP`, and queues a steering frame at `ASK`.
struct Steering(LiveStdin);

impl OutputSink for Steering {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        match bytes {
            b"DONE\n" => Flow::Finished,
            b"STOP\n" => Flow::Stop,
            b"ASK\n" => {
                assert!(self.0.send(STEER.to_vec()));
                Flow::Continue
            }
            _ => Flow::Continue,
        }
    }
}

struct LiveScript {
    deadlines: RunDeadlines,
    /// `None`: the backend has no abort command.
    abort: Option<&'static [u8]>,
    stdout: Vec<(Duration, &'static [u8])>,
    reacts: Reacts,
    on_term: OnSignal,
}

impl Default for LiveScript {
    /// Aborts within 20 ms, exits 5 ms after end of file, dies at once of SIGTERM.
    fn default() -> LiveScript {
        LiveScript {
            deadlines: no_deadlines(),
            abort: Some(ABORT),
            stdout: Vec::new(),
            reacts: Reacts {
                to_abort: Some(20 * MS),
                to_eof: Some(5 * MS),
            },
            on_term: OnSignal::DiesAfter(Duration::ZERO),
        }
    }
}

#[derive(Debug, PartialEq, Eq)]
struct LivePlayed {
    termination: Termination,
    signals: Vec<(Duration, Signal)>,
    /// What the agent read, and when.
    read: Vec<(Duration, Vec<u8>)>,
    /// When its stdin ended.
    eof: Option<Duration>,
    ended: Duration,
}

fn play_live(script: LiveScript, ctrl_c: &[Duration]) -> (LivePlayed, LiveStdin) {
    let clock = FakeClock::new();
    let t0 = clock.now();
    let death: Death = Arc::new(Mutex::new(None));
    let shared = Arc::new(Mutex::new(Agent {
        clock: clock.clone(),
        t0,
        reacts: script.reacts,
        death: Arc::clone(&death),
        chunks: script
            .stdout
            .iter()
            .map(|(offset, bytes)| (t0 + *offset, bytes.to_vec()))
            .collect(),
        read: Vec::new(),
        eof: None,
    }));
    let input = LiveStdin::new(script.abort.map(<[u8]>::to_vec));
    assert!(input.send(b"PROMPT\n".to_vec()));
    let child = ScriptedChild {
        clock: clock.clone(),
        t0,
        death,
        on_term: script.on_term,
        on_kill: OnSignal::DiesAfter(Duration::ZERO),
        signals: Vec::new(),
    };
    let machine = Machine::new(script.deadlines, t0, false).with_live_stdin(input.can_abort());
    let writer: StdinWrite = Box::pin(write_live(Stdin(Arc::clone(&shared)), input.clone()));
    let mut run = Supervision::new(
        machine,
        child,
        Stdout(Arc::clone(&shared)),
        None::<Stdout>,
        Some(writer),
        clock.clone(),
    );
    run.live = Some(input.clone());
    let (controller, requests) = StopController::new();
    let presses = ctrl_c
        .iter()
        .map(|offset| (t0 + *offset, ctrl_c_on(&controller)))
        .collect();
    let mut sink = Steering(input.clone());
    drive(&clock, run.supervise(&mut sink, requests), presses);
    let ended = clock.now() - t0;
    drop(run.stdin.take());
    let agent = agent(&shared);
    let played = LivePlayed {
        termination: run.machine.termination(),
        signals: run.child.signals,
        read: agent.read.clone(),
        eof: agent.eof,
        ended,
    };
    (played, input)
}

fn frames(list: &[(Duration, &[u8])]) -> Vec<(Duration, Vec<u8>)> {
    list.iter().map(|(at, f)| (*at, f.to_vec())).collect()
}

#[test]
fn frames_reach_the_agent_in_order_and_its_terminal_event_ends_its_input() {
    let (played, input) = play_live(
        LiveScript {
            stdout: vec![(10 * MS, b"ASK\n"), (40 * MS, b"DONE\n")],
            ..LiveScript::default()
        },
        &[],
    );
    assert_eq!(
        played,
        LivePlayed {
            termination: Termination::Exited { code: 0 },
            signals: vec![],
            read: frames(&[(Duration::ZERO, b"PROMPT\n"), (10 * MS, STEER)]),
            eof: Some(40 * MS),
            ended: 45 * MS,
        }
    );
    assert!(!input.is_open());
    assert!(!input.send(STEER.to_vec()));
}

#[test]
fn a_budget_stop_aborts_and_an_agent_that_ends_its_turn_exits_without_a_signal() {
    let (played, _) = play_live(
        LiveScript {
            stdout: vec![(10 * MS, b"STOP\n")],
            ..LiveScript::default()
        },
        &[],
    );
    assert_eq!(
        played,
        LivePlayed {
            termination: Termination::StoppedByCaller,
            signals: vec![],
            read: frames(&[(Duration::ZERO, b"PROMPT\n"), (10 * MS, ABORT)]),
            eof: Some(30 * MS),
            ended: 35 * MS,
        }
    );
}

#[test]
fn an_ignored_abort_is_followed_by_term_after_the_abort_grace_with_stdin_closed_first() {
    let (played, input) = play_live(
        LiveScript {
            reacts: Reacts {
                to_abort: None,
                to_eof: None,
            },
            ..LiveScript::default()
        },
        &[100 * MS],
    );
    let term_at = 100 * MS + ABORT_GRACE;
    assert_eq!(
        played,
        LivePlayed {
            termination: Termination::Interrupted,
            signals: vec![(term_at, Signal::SIGTERM)],
            read: frames(&[(Duration::ZERO, b"PROMPT\n"), (100 * MS, ABORT)]),
            eof: Some(term_at),
            ended: term_at,
        }
    );
    assert!(!input.is_open());
}

#[test]
fn a_second_ctrl_c_while_aborting_kills_and_a_deadline_aborts_too() {
    let (played, _) = play_live(
        LiveScript {
            reacts: Reacts {
                to_abort: None,
                to_eof: None,
            },
            on_term: OnSignal::Ignores,
            ..LiveScript::default()
        },
        &[100 * MS, 300 * MS],
    );
    assert_eq!(
        (played.signals, played.eof),
        (vec![(300 * MS, Signal::SIGKILL)], Some(300 * MS))
    );
    let (idle, _) = play_live(
        LiveScript {
            deadlines: RunDeadlines {
                idle: Some(200 * MS),
                ..no_deadlines()
            },
            stdout: vec![(10 * MS, b"working\n")],
            ..LiveScript::default()
        },
        &[],
    );
    assert_eq!(
        (idle.termination, idle.signals, idle.read.last()),
        (
            Termination::IdleTimeout,
            vec![],
            Some(&(210 * MS, ABORT.to_vec()))
        )
    );
}

#[test]
fn without_an_abort_command_stdin_closes_right_before_term() {
    let (played, _) = play_live(
        LiveScript {
            abort: None,
            on_term: OnSignal::DiesAfter(10 * MS),
            reacts: Reacts {
                to_abort: None,
                to_eof: None,
            },
            ..LiveScript::default()
        },
        &[100 * MS],
    );
    assert_eq!(
        (played.signals, played.eof, played.read.len()),
        (vec![(100 * MS, Signal::SIGTERM)], Some(100 * MS), 1)
    );
}

#[test]
fn an_agent_that_stays_after_its_input_ended_is_stopped_after_the_exit_grace_unaborted() {
    let exit_grace = 250 * MS;
    let (played, _) = play_live(
        LiveScript {
            deadlines: RunDeadlines {
                exit_grace,
                ..no_deadlines()
            },
            stdout: vec![(30 * MS, b"DONE\n")],
            reacts: Reacts {
                to_abort: Some(MS),
                to_eof: None,
            },
            ..LiveScript::default()
        },
        &[],
    );
    assert_eq!(
        played,
        LivePlayed {
            termination: Termination::StoppedAfterFinish,
            signals: vec![(30 * MS + exit_grace, Signal::SIGTERM)],
            read: frames(&[(Duration::ZERO, b"PROMPT\n")]),
            eof: Some(30 * MS),
            ended: 30 * MS + exit_grace,
        }
    );
}
