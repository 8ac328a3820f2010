//! The loop's side of `ralph steer`: a watcher thread that takes steering requests from
//! the run's directory and answers them while the loop does anything else (an agent, a
//! gate, a hook, a rate-limit wait), and what the loop does with them at its boundaries:
//! the next prompt's guidance, the run events, the history's counts.
//!
//! The watcher polls the requests directory every [`POLL_INTERVAL`] rather than asking the
//! kernel to watch it: inotify is Linux's own (macOS would need kqueue, through a crate
//! ralph does not otherwise need), a watch dies with its directory when an agent's
//! `git clean -fdx` deletes the run directory (polling just sees the recreated one), and
//! listing one almost always empty directory ten times a second costs nothing measurable.
//! A person waits at most one interval, well under the [`ANSWER_WAIT`] `ralph steer`
//! allows.
//!
//! What happens to a message is decided by the core's [`SteerBook`], under one lock with
//! the prompt that takes the queue, so an answer `queued for iteration 3` is true: the
//! prompt of iteration 3 carries the message.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use ralph_core::machine::{IterationOutcome, Notice};
use ralph_core::run_event::RunEvent;
use ralph_core::steer::{
    IterationSteering, Logged, SteerAnswer, SteerBook, SteerLogLine, SteerTally, SteerVia,
    append_log, discard_request, pending_requests, read_log, read_request, write_answer,
};
use ralph_core::store::{RunDir, unix_ms};
use tokio::sync::Notify;

use super::lock;
use super::steer_target::SteerSlot;
use crate::diagnostic::diagnostic;
use crate::view::observer::Observer;

/// How often the watcher looks for requests.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// How long `ralph steer` waits for the loop's answer: many polls, and time for a loop
/// whose disk is slow.
pub(crate) const ANSWER_WAIT: Duration = Duration::from_secs(5);
/// The most requests taken per poll: a flood of request files is worked off a slice at a
/// time, and the watcher still stops promptly at the end of the run.
const REQUESTS_PER_POLL: usize = 16;
/// What a prompt-carried message's `steer_delivered` names as its destination.
const TO_PROMPT: &str = "prompt";

/// What the watcher saw, for the loop to report.
#[derive(Debug)]
enum Note {
    Taken {
        id: String,
        message: String,
        answer: SteerAnswer,
    },
    /// A request that could not be taken, or a directory that cannot be read.
    Problem(String),
}

struct Shared {
    run: RunDir,
    book: Mutex<SteerBook>,
    slot: SteerSlot,
    notes: Mutex<Vec<Note>>,
    /// Wakes the loop when a note is added.
    noted: Notify,
    stop: AtomicBool,
    /// The last problem said, so a persistent one (a linked directory) is said once.
    last_problem: Mutex<Option<String>>,
}

impl Shared {
    fn note(&self, note: Note) {
        lock(&self.notes).push(note);
        self.noted.notify_one();
    }

    fn problem(&self, text: String) {
        let mut last = lock(&self.last_problem);
        if last.as_deref() != Some(text.as_str()) {
            *last = Some(text.clone());
            self.note(Note::Problem(text));
        }
    }

    /// One look at the requests directory: each request taken is answered and removed.
    fn poll(&self) {
        let found = match pending_requests(&self.run, REQUESTS_PER_POLL) {
            Ok(found) => found,
            Err(e) => {
                return self.problem(format!(
                    "cannot read the steering requests of run {}: {e}",
                    self.run.id()
                ));
            }
        };
        for (id, path) in found {
            let answer = match read_request(&path) {
                Ok(request) => {
                    let mut book = lock(&self.book);
                    let now = unix_ms(SystemTime::now());
                    let slot = &self.slot;
                    let (answer, line) =
                        book.receive(&id, &request.message, request.next, now, |message| {
                            slot.deliver(message)
                        });
                    // Under the lock: the record's order is the book's.
                    if let Some(line) = line {
                        self.log(&line);
                    }
                    self.note(Note::Taken {
                        id: id.clone(),
                        message: request.message,
                        answer: answer.clone(),
                    });
                    answer
                }
                Err(e) => {
                    let reason = format!("`{}` is not a usable request: {e}", path.display());
                    self.problem(format!("a steering request was refused: {reason}"));
                    SteerAnswer::Refused { reason }
                }
            };
            discard_request(&path);
            if let Err(e) = write_answer(&self.run, &id, &answer) {
                self.problem(format!("cannot answer steering request {id}: {e}"));
            }
        }
    }

    fn log(&self, line: &SteerLogLine) {
        if let Err(e) = append_log(&self.run, line) {
            self.problem(format!("cannot record a steering message: {e}"));
        }
    }
}

/// The loop's steering: the watcher, the book, the slot for mid-turn delivery.
pub(crate) struct Steering {
    news: SteerNews,
    watcher: Option<JoinHandle<()>>,
}

/// What the watcher has taken and not yet shown: for whatever runs while the loop waits
/// on it (the agent, a gate, a hook, a rate-limit wait). Cheap to clone; hooks keep one
/// for the whole run.
#[derive(Clone)]
pub(crate) struct SteerNews {
    shared: Arc<Shared>,
}

impl Steering {
    /// Starts watching `run`'s requests; `next` is the iteration the loop runs next. A
    /// continued run picks up what its `steering.jsonl` left queued.
    pub(crate) fn start(run: &RunDir, next: u32) -> Steering {
        let log = read_log(run).unwrap_or_else(|e| {
            diagnostic(format_args!(
                "warning: cannot read the steering record of run {}: {e}; messages queued \
                 before are not shown again",
                run.id()
            ));
            Vec::new()
        });
        let shared = Arc::new(Shared {
            run: run.clone(),
            book: Mutex::new(SteerBook::resume(next, &log)),
            slot: SteerSlot::default(),
            notes: Mutex::new(Vec::new()),
            noted: Notify::new(),
            stop: AtomicBool::new(false),
            last_problem: Mutex::new(None),
        });
        let watching = Arc::clone(&shared);
        let watcher = std::thread::Builder::new()
            .name("ralph-steer".into())
            .spawn(move || {
                while !watching.stop.load(Ordering::Acquire) {
                    watching.poll();
                    std::thread::park_timeout(POLL_INTERVAL);
                }
            })
            .map_err(|e| {
                diagnostic(format_args!(
                    "warning: cannot watch for `ralph steer` messages: {e}"
                ));
            })
            .ok();
        Steering {
            news: SteerNews { shared },
            watcher,
        }
    }

    /// The slot the launch code fills while an agent that takes messages mid-turn runs.
    pub(crate) fn slot(&self) -> &SteerSlot {
        &self.news.shared.slot
    }

    /// Iteration `number` starts: reports what arrived, and returns (and records as
    /// delivered) the messages its prompt carries.
    pub(crate) fn start_iteration(&self, number: u32, observer: &mut dyn Observer) -> Vec<String> {
        self.news.report(&mut |event| observer.observe(event));
        let carried = {
            let mut book = lock(&self.news.shared.book);
            let carried = book.start_iteration(number);
            let now = unix_ms(SystemTime::now());
            for queued in &carried {
                self.news.shared.log(&SteerLogLine {
                    at_ms: now,
                    id: queued.id.clone(),
                    went: Logged::Prompt,
                    iteration: number,
                    message: None,
                    to: None,
                });
            }
            carried
        };
        self.news.report(&mut |event| observer.observe(event));
        for queued in &carried {
            observer.observe(&RunEvent::SteerDelivered {
                iteration: number,
                id: &queued.id,
                via: SteerVia::Prompt,
                to: TO_PROMPT,
            });
        }
        carried.into_iter().map(|q| q.message).collect()
    }

    /// The running agent showed a user message (its prompt, or a mid-turn message it
    /// read): see [`SteerBook::shown_user_message`].
    pub(crate) fn shown_user_message(&self) {
        lock(&self.news.shared.book).shown_user_message();
    }

    /// The running iteration's agent ended as `outcome` says. A mid-turn message it never
    /// showed it read is queued again for the next prompt, with a `steer_unread` notice.
    /// On a rate or usage limit, the model may never have read the prompt either, nor a
    /// mid-turn message the agent read just before the refused call, and the attempt that
    /// follows is a fresh agent: what the prompt carried and the mid-turn messages the
    /// agent read are queued again for that attempt (once more is better than never), with
    /// a `steer_requeued` notice.
    pub(crate) fn after_agent(&self, outcome: &IterationOutcome, observer: &mut dyn Observer) {
        let limited = matches!(outcome, IterationOutcome::RateLimited { .. });
        self.requeue(limited, observer);
    }

    /// The running iteration's agent could not be started with its prompt: what the
    /// prompt carried is queued again, with a `steer_requeued` notice (its
    /// `steer_delivered` did not come true).
    pub(crate) fn not_started(&self, observer: &mut dyn Observer) {
        self.requeue(true, observer);
    }

    /// Queues again what the running agent never read: its unread mid-turn messages and,
    /// when `carried` (its attempt ended on a limit, or never started), what its prompt
    /// carried and the mid-turn messages it read.
    fn requeue(&self, carried: bool, observer: &mut dyn Observer) {
        let now = unix_ms(SystemTime::now());
        let mut book = lock(&self.news.shared.book);
        let unread = book.requeue_unread(now);
        let carried = if carried {
            book.requeue_carried(now)
        } else {
            Vec::new()
        };
        for line in unread.iter().chain(&carried) {
            self.news.shared.log(line);
        }
        // Taken under the book's lock: every message the watcher took before the requeue
        // looked is said before it. One it handed to the agent as the turn ended (after
        // the loop's last report) is then received before it is unread.
        let taken = self.news.take_notes();
        drop(book);
        show_notes(taken, &mut |event| observer.observe(event));
        report_requeued(unread, carried, observer);
    }

    /// The running iteration ended; `next` is the one the loop runs next. Returns what
    /// steering did in it, for its history record.
    pub(crate) fn end_iteration(&self, next: u32) -> IterationSteering {
        lock(&self.news.shared.book).end_iteration(next)
    }

    /// The run's steering so far.
    pub(crate) fn tally(&self) -> SteerTally {
        lock(&self.news.shared.book).tally()
    }

    /// What the watcher has taken and not yet shown.
    pub(crate) fn news(&self) -> &SteerNews {
        &self.news
    }
}

impl SteerNews {
    /// Reports what the watcher took since the last call: `steer_received` (and, for a
    /// message the agent took, `steer_delivered`); problems go to stderr.
    pub(crate) fn report(&self, observe: &mut dyn FnMut(&RunEvent<'_>)) {
        show_notes(self.take_notes(), observe);
    }

    fn take_notes(&self) -> Vec<Note> {
        std::mem::take(&mut *lock(&self.shared.notes))
    }

    /// Awaits `work` (a wait, a gate, a hook) with `observer` ticked and told of
    /// `ralph steer`'s messages as they come, not once `work` is done.
    pub(crate) async fn watched<T>(
        &self,
        work: impl Future<Output = T>,
        observer: &mut dyn Observer,
    ) -> T {
        // Both go to the observer, in turns on this thread.
        let shared = std::cell::RefCell::new(observer);
        let ticks = shared.borrow().wants_ticks();
        let tick = ticks.then_some(|now| shared.borrow_mut().tick(now));
        self.around(work, tick, |event| shared.borrow_mut().observe(event))
            .await
    }

    /// Awaits `work`, reporting steering as it arrives and calling `tick` (when given)
    /// on every tick of [`super::frame_ticker`].
    pub(crate) async fn around<T>(
        &self,
        work: impl Future<Output = T>,
        mut tick: Option<impl FnMut(Instant)>,
        mut observe: impl FnMut(&RunEvent<'_>),
    ) -> T {
        let mut ticker = super::frame_ticker();
        let mut work = std::pin::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => {
                    self.report(&mut observe);
                    return done;
                }
                () = self.shared.noted.notified() => self.report(&mut observe),
                now = ticker.tick(), if tick.is_some() => {
                    if let Some(tick) = tick.as_mut() {
                        tick(now.into_std());
                    }
                }
            }
        }
    }
}

/// Reports what the watcher took: `steer_received` (and, for a message the agent took,
/// `steer_delivered`); problems go to stderr.
fn show_notes(notes: Vec<Note>, observe: &mut dyn FnMut(&RunEvent<'_>)) {
    for note in notes {
        match note {
            Note::Taken {
                id,
                message,
                answer,
            } => report_taken(&id, &message, &answer, observe),
            Note::Problem(text) => diagnostic(format_args!("warning: {text}")),
        }
    }
}

/// Tells `observer` of the messages queued again: `unread` ones handed over mid-turn
/// and never read, `carried` ones in a prompt, or read mid-turn, in an attempt that ended
/// on a limit (or never started).
fn report_requeued(
    unread: Vec<SteerLogLine>,
    carried: Vec<SteerLogLine>,
    observer: &mut dyn Observer,
) {
    let lines = (unread.into_iter().map(|line| (line, false)))
        .chain(carried.into_iter().map(|line| (line, true)));
    for (line, requeued) in lines {
        let (id, message) = (line.id, line.message.unwrap_or_default());
        let notice = if requeued {
            Notice::SteerRequeued { id, message }
        } else {
            Notice::SteerUnread { id, message }
        };
        observer.observe(&RunEvent::Notice {
            iteration: Some(line.iteration),
            notice: &notice,
        });
    }
}

fn report_taken(
    id: &str,
    message: &str,
    answer: &SteerAnswer,
    observe: &mut dyn FnMut(&RunEvent<'_>),
) {
    let went = answer.to_string();
    match answer {
        SteerAnswer::Queued { iteration } => observe(&RunEvent::SteerReceived {
            iteration: *iteration,
            id,
            message,
            queued: true,
            went: &went,
        }),
        SteerAnswer::MidTurn { iteration, to } => {
            observe(&RunEvent::SteerReceived {
                iteration: *iteration,
                id,
                message,
                queued: false,
                went: &went,
            });
            observe(&RunEvent::SteerDelivered {
                iteration: *iteration,
                id,
                via: SteerVia::MidTurn,
                to,
            });
        }
        SteerAnswer::Refused { reason } => {
            diagnostic(format_args!(
                "warning: a steering message was refused: {reason}"
            ));
        }
    }
}

impl Steering {
    /// The loop decided to stop: no iteration is left to carry a message. Stops the
    /// watcher, answers what is still waiting with a refusal that says so, and reports
    /// what was taken before.
    pub(crate) fn finish(&mut self, observe: &mut dyn FnMut(&RunEvent<'_>)) {
        self.stop_watching();
        if let Ok(found) = pending_requests(&self.news.shared.run, usize::MAX) {
            let answer = SteerAnswer::Refused {
                reason: "the loop is finishing: no iteration is left to carry the message"
                    .to_owned(),
            };
            for (id, path) in found {
                discard_request(&path);
                let _ = write_answer(&self.news.shared.run, &id, &answer);
            }
        }
        self.news.report(observe);
    }

    /// The loop ended; `kept`: `ralph run --continue` can follow it. What is still queued
    /// for a prompt is named in a `steer_undelivered` notice: `ralph steer` answered
    /// "queued for iteration N", and that iteration never came.
    pub(crate) fn report_undelivered(&self, kept: bool, observer: &mut dyn Observer) {
        let notice = {
            let book = lock(&self.news.shared.book);
            let ids: Vec<String> = book.queued().map(|q| q.id.clone()).collect();
            if ids.is_empty() {
                return;
            }
            Notice::SteerUndelivered {
                ids,
                queued_for: book.next(),
                kept,
            }
        };
        observer.observe(&RunEvent::Notice {
            iteration: None,
            notice: &notice,
        });
    }

    fn stop_watching(&mut self) {
        self.news.shared.stop.store(true, Ordering::Release);
        if let Some(watcher) = self.watcher.take() {
            watcher.thread().unpark();
            let _ = watcher.join();
        }
    }
}

impl Drop for Steering {
    fn drop(&mut self) {
        self.stop_watching();
    }
}

#[cfg(test)]
#[path = "steer_tests.rs"]
mod tests;
