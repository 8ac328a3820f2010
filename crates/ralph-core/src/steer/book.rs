//! Where each steering message goes, decided without I/O: the queue for the next prompt,
//! which iteration that is, and the counts the history and the summary show.

use std::collections::VecDeque;

use super::{IterationSteering, Logged, MAX_QUEUED_STEERS, SteerAnswer, SteerLogLine, SteerTally};

/// A message waiting for the next prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Queued {
    pub id: String,
    pub message: String,
}

/// The loop's steering state.
#[derive(Clone, Debug)]
pub struct SteerBook {
    queue: VecDeque<Queued>,
    /// The iteration whose agent runs now, if one does.
    running: Option<u32>,
    /// The iteration whose prompt a message queued now lands in.
    next: u32,
    this_iteration: IterationSteering,
    tally: SteerTally,
    /// What the running iteration's prompt carried, in case the agent never read it.
    carried: Vec<Queued>,
    /// Messages handed to the running agent mid-turn that it has not shown it read,
    /// oldest first (an agent reads them in the order they came).
    unread: VecDeque<Queued>,
    /// Mid-turn messages the running agent showed it read, oldest first: should its
    /// attempt end on a limit, the attempt after is a fresh agent that has them only if
    /// its prompt carries them.
    read: Vec<Queued>,
    /// User messages the running agent showed (pi's `message_end` of role `user`, Claude
    /// Code's replayed ones): the first is its prompt, each later one a mid-turn message it
    /// read. None at all: the agent does not show them, and what it read cannot be told.
    shown: u32,
}

impl SteerBook {
    /// A run whose next iteration is `next`, with nothing received yet.
    pub fn new(next: u32) -> SteerBook {
        SteerBook {
            queue: VecDeque::new(),
            running: None,
            next,
            this_iteration: IterationSteering::default(),
            tally: SteerTally::default(),
            carried: Vec::new(),
            unread: VecDeque::new(),
            read: Vec::new(),
            shown: 0,
        }
    }

    /// A continued run: the queue and counts as `steering.jsonl` left them (a queued
    /// message no prompt carried yet is still queued).
    pub fn resume(next: u32, log: &[SteerLogLine]) -> SteerBook {
        let mut book = SteerBook::new(next);
        // A message requeued after a limit was counted where it went first: mid-turn for
        // these, else in a prompt.
        let mut mid_turn: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for line in log {
            match line.went {
                Logged::Queued => {
                    book.tally.received += 1;
                    if let Some(message) = &line.message {
                        book.queue.push_back(Queued {
                            id: line.id.clone(),
                            message: message.clone(),
                        });
                    }
                }
                Logged::MidTurn => {
                    book.tally.received += 1;
                    book.tally.mid_turn += 1;
                    mid_turn.insert(&line.id);
                }
                Logged::Prompt => {
                    let before = book.queue.len();
                    book.queue.retain(|q| q.id != line.id);
                    if book.queue.len() < before {
                        book.tally.in_prompt += 1;
                    }
                }
                Logged::Requeued | Logged::Unread => {
                    if let Some(message) = &line.message {
                        // Counted where it went first, it goes to a prompt instead.
                        let went_mid_turn =
                            line.went == Logged::Unread || mid_turn.remove(line.id.as_str());
                        let counted = match went_mid_turn {
                            true => &mut book.tally.mid_turn,
                            false => &mut book.tally.in_prompt,
                        };
                        *counted = counted.saturating_sub(1);
                        book.queue.push_back(Queued {
                            id: line.id.clone(),
                            message: message.clone(),
                        });
                    }
                }
            }
        }
        book
    }

    /// Takes a message: hands it to the running agent through `deliver` (which returns
    /// where it went, or `None` when the agent cannot take it) unless `next` asks to wait,
    /// else queues it for the next prompt. Returns the answer and, unless refused, the
    /// line for `steering.jsonl`.
    pub fn receive(
        &mut self,
        id: &str,
        message: &str,
        next: bool,
        now_ms: u64,
        deliver: impl FnOnce(&str) -> Option<String>,
    ) -> (SteerAnswer, Option<SteerLogLine>) {
        let line = |went, iteration, to: Option<&str>| SteerLogLine {
            at_ms: now_ms,
            id: id.to_owned(),
            went,
            iteration,
            message: Some(message.to_owned()),
            to: to.map(str::to_owned),
        };
        if let Some(iteration) = self.running.filter(|_| !next)
            && let Some(to) = deliver(message)
        {
            // Until the agent shows it read it (`shown_user_message`).
            self.unread.push_back(Queued {
                id: id.to_owned(),
                message: message.to_owned(),
            });
            self.tally.received += 1;
            self.tally.mid_turn += 1;
            self.this_iteration.mid_turn += 1;
            let logged = line(Logged::MidTurn, iteration, Some(&to));
            return (SteerAnswer::MidTurn { iteration, to }, Some(logged));
        }
        if self.queue.len() >= MAX_QUEUED_STEERS {
            let reason = format!(
                "{MAX_QUEUED_STEERS} messages already wait for iteration {}; send more once \
                 it has started",
                self.next
            );
            return (SteerAnswer::Refused { reason }, None);
        }
        self.queue.push_back(Queued {
            id: id.to_owned(),
            message: message.to_owned(),
        });
        self.tally.received += 1;
        if self.running.is_some() {
            self.this_iteration.queued += 1;
        }
        let iteration = self.next;
        (
            SteerAnswer::Queued { iteration },
            Some(line(Logged::Queued, iteration, None)),
        )
    }

    /// Iteration `number` starts: its prompt carries (and consumes) every queued message;
    /// what arrives from now on is for the one after it.
    pub fn start_iteration(&mut self, number: u32) -> Vec<Queued> {
        self.running = Some(number);
        self.unread.clear();
        self.read.clear();
        self.shown = 0;
        self.next = number.saturating_add(1);
        let carried: Vec<Queued> = self.queue.drain(..).collect();
        self.carried.clone_from(&carried);
        let count = u32::try_from(carried.len()).unwrap_or(u32::MAX);
        self.this_iteration = IterationSteering {
            in_prompt: count,
            ..IterationSteering::default()
        };
        self.tally.in_prompt += count;
        carried
    }

    /// The running attempt ended on a rate or usage limit, or its agent could not be
    /// started with its prompt: the model may never have read what the prompt carried,
    /// nor a mid-turn message the agent took (the call that would answer it may be the
    /// one that was refused), and the attempt that runs next is a fresh agent in any
    /// case. Both go back into the queue, for that attempt's prompt, and count as queued,
    /// not as carried or delivered. Returns the lines for `steering.jsonl` (`requeued`).
    pub fn requeue_carried(&mut self, now_ms: u64) -> Vec<SteerLogLine> {
        let carried = std::mem::take(&mut self.carried);
        let read = std::mem::take(&mut self.read);
        let (in_prompt, mid_turn) = (count(carried.len()), count(read.len()));
        self.tally.in_prompt = self.tally.in_prompt.saturating_sub(in_prompt);
        self.tally.mid_turn = self.tally.mid_turn.saturating_sub(mid_turn);
        let this = &mut self.this_iteration;
        this.in_prompt = this.in_prompt.saturating_sub(in_prompt);
        this.mid_turn = this.mid_turn.saturating_sub(mid_turn);
        this.queued = this
            .queued
            .saturating_add(in_prompt.saturating_add(mid_turn));
        self.queue_again(carried.into_iter().chain(read), Logged::Requeued, now_ms)
    }

    /// The running agent showed a user message (see `shown`): its
    /// prompt first, then each mid-turn message it read, in the order they were handed
    /// to it. Returns the id of the message this one shows read, if any.
    pub fn shown_user_message(&mut self) -> Option<String> {
        self.shown = self.shown.saturating_add(1);
        if self.shown == 1 {
            return None;
        }
        let read = self.unread.pop_front()?;
        let id = read.id.clone();
        self.read.push(read);
        Some(id)
    }

    /// The running agent ended. The mid-turn messages it never showed it read (handed
    /// over just as its turn ended: pi took them, but no model call followed) go into the
    /// queue for the next prompt, when the agent shows what it reads; an agent that
    /// showed nothing (not even its prompt) is not second-guessed. Returns the lines for
    /// `steering.jsonl`.
    pub fn requeue_unread(&mut self, now_ms: u64) -> Vec<SteerLogLine> {
        let unread = std::mem::take(&mut self.unread);
        if self.shown == 0 {
            return Vec::new();
        }
        let count = count(unread.len());
        self.tally.mid_turn = self.tally.mid_turn.saturating_sub(count);
        let this = &mut self.this_iteration;
        this.mid_turn = this.mid_turn.saturating_sub(count);
        this.queued = this.queued.saturating_add(count);
        self.queue_again(unread, Logged::Unread, now_ms)
    }

    /// Puts `messages` back in the queue for the next prompt; returns their lines for
    /// `steering.jsonl` (`went`, with their text, so `--continue` can queue them too).
    fn queue_again(
        &mut self,
        messages: impl IntoIterator<Item = Queued>,
        went: Logged,
        now_ms: u64,
    ) -> Vec<SteerLogLine> {
        let iteration = self.running.unwrap_or(self.next);
        messages
            .into_iter()
            .map(|queued| {
                let line = SteerLogLine {
                    at_ms: now_ms,
                    id: queued.id.clone(),
                    went,
                    iteration,
                    message: Some(queued.message.clone()),
                    to: None,
                };
                self.queue.push_back(queued);
                line
            })
            .collect()
    }

    /// The running iteration ended; `next` is the number the loop hands out next. Returns
    /// what steering did in it.
    pub fn end_iteration(&mut self, next: u32) -> IterationSteering {
        self.carried.clear();
        self.unread.clear();
        self.read.clear();
        self.shown = 0;
        self.running = None;
        self.next = next;
        std::mem::take(&mut self.this_iteration)
    }

    /// The messages queued for the next prompt, oldest first.
    pub fn queued(&self) -> impl Iterator<Item = &Queued> {
        self.queue.iter()
    }

    /// The iteration whose prompt carries what is queued now.
    pub fn next(&self) -> u32 {
        self.next
    }

    /// The iteration whose agent runs now.
    pub fn running(&self) -> Option<u32> {
        self.running
    }

    pub fn tally(&self) -> SteerTally {
        SteerTally {
            pending: u32::try_from(self.queue.len()).unwrap_or(u32::MAX),
            ..self.tally
        }
    }
}

/// A number of messages, as the counts keep it.
fn count(messages: usize) -> u32 {
    u32::try_from(messages).unwrap_or(u32::MAX)
}
