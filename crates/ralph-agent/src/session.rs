//! One agent run end to end: the supervised process and its parsed output.
//!
//! The supervisor is byte-level and the stream core knows no processes; this is where
//! they meet. Every stdout chunk goes through the stream decoder as it arrives, each event
//! updates the run's [`SessionSummary`] and is handed to the caller, and the agent's
//! terminal event starts the exit grace, so an agent that hangs after finishing is
//! stopped and still counts as a success.

use std::time::Duration;

use ralph_stream::AgentEvent;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use ralph_types::ProcessIdentity;

use crate::supervise::Flow;
use crate::supervise::OutputSink;
use crate::supervise::ProcessOutcome;
use crate::supervise::RunDeadlines;
use crate::supervise::SpawnSpec;
use crate::supervise::StopRequests;
use crate::supervise::run;

/// What the caller wants after seeing an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// Stop the agent now (a cost budget was crossed, say). The run ends as
    /// [`Termination::StoppedByCaller`](crate::Termination::StoppedByCaller).
    Stop,
}

/// How one agent run ended: the process side and the stream side.
#[derive(Debug)]
pub struct AgentRun {
    pub outcome: ProcessOutcome,
    pub summary: SessionSummary,
    /// The format the output was parsed as (`Text` when it was to be recognised and
    /// nothing was).
    pub format: StreamFormat,
    /// Lines of output.
    pub lines: u64,
}

impl AgentRun {
    /// Whether the agent did its job: the process ended well (exit 0, or stopped during
    /// the exit grace after its terminal event) and its stream says the run succeeded.
    /// Both are needed: pi exits 0 when every model call failed, and a killed agent may
    /// have streamed a fine-looking answer.
    pub fn succeeded(&self) -> bool {
        self.outcome.termination.is_success() && self.summary.succeeded
    }
}

/// Runs one agent: spawns `spec`, parses its stdout as `format`, calls `on_event` for
/// every event (with the summary so far, which already includes that event) and returns
/// when the process and everything it started are gone.
pub async fn run_agent(
    spec: SpawnSpec,
    format: StreamFormat,
    deadlines: RunDeadlines,
    stop: StopRequests,
    on_event: impl FnMut(&AgentEvent<'_>, &SessionSummary) -> Control,
) -> AgentRun {
    run_agent_with(
        spec,
        StreamDecoder::new(Some(format)),
        deadlines,
        stop,
        |_| {},
        on_event,
    )
    .await
}

/// Like [`run_agent`], with a decoder set up by the caller (its format, its pricing for
/// agents that report tokens but no cost, its line cap), and `on_spawn` called with the
/// agent as soon as it started (see [`OutputSink::on_spawn`]).
pub async fn run_agent_with(
    spec: SpawnSpec,
    decoder: StreamDecoder,
    deadlines: RunDeadlines,
    stop: StopRequests,
    on_spawn: impl FnOnce(ProcessIdentity),
    on_event: impl FnMut(&AgentEvent<'_>, &SessionSummary) -> Control,
) -> AgentRun {
    run_agent_teed(spec, decoder, deadlines, stop, on_spawn, |_| {}, on_event).await
}

/// Like [`run_agent_with`], with `on_raw` also given every stdout chunk as it arrived,
/// before it is parsed (to keep a transcript of the raw stream without holding it).
pub async fn run_agent_teed(
    spec: SpawnSpec,
    decoder: StreamDecoder,
    deadlines: RunDeadlines,
    stop: StopRequests,
    on_spawn: impl FnOnce(ProcessIdentity),
    on_raw: impl FnMut(&[u8]),
    on_event: impl FnMut(&AgentEvent<'_>, &SessionSummary) -> Control,
) -> AgentRun {
    // A cost budget is checked against the summary as the events come: calls the agent
    // does not price yet (Claude Code's, until its `result`) count at ralph's estimate.
    let summary = SessionSummary::default().with_pricing(decoder.pricing().clone());
    let mut sink = ParsingSink {
        decoder,
        summary,
        on_spawn: Some(on_spawn),
        on_raw,
        on_event,
        stop: false,
    };
    let outcome = run(spec, deadlines, &mut sink, stop).await;
    let ParsingSink {
        mut decoder,
        mut summary,
        mut on_event,
        ..
    } = sink;
    // A last line without a newline, and what a parser still held, arrive now.
    decoder.finish(|event| {
        summary.observe(event);
        let _ = on_event(event, &summary);
    });
    // A decoder left to recognise the format that saw nothing it knew parsed nothing.
    let format = decoder.format().unwrap_or(StreamFormat::Text);
    summary.stream_ended(format);
    AgentRun {
        outcome,
        summary,
        format,
        lines: decoder.lines(),
    }
}

struct ParsingSink<S, R, F> {
    decoder: StreamDecoder,
    summary: SessionSummary,
    /// Taken at the spawn.
    on_spawn: Option<S>,
    on_raw: R,
    on_event: F,
    stop: bool,
}

impl<S, R, F> OutputSink for ParsingSink<S, R, F>
where
    S: FnOnce(ProcessIdentity),
    R: FnMut(&[u8]),
    F: FnMut(&AgentEvent<'_>, &SessionSummary) -> Control,
{
    fn on_spawn(&mut self, agent: ProcessIdentity) {
        if let Some(on_spawn) = self.on_spawn.take() {
            on_spawn(agent);
        }
    }

    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        let ParsingSink {
            decoder,
            summary,
            on_raw,
            on_event,
            stop,
            ..
        } = self;
        on_raw(bytes);
        // The last retry delay the agent announced in this chunk, if nothing followed it.
        let mut quiet = None;
        decoder.feed(bytes, |event| {
            quiet = match event {
                AgentEvent::RetryStarted {
                    delay_ms: Some(ms), ..
                } => Some(Duration::from_millis(*ms)),
                _ => None,
            };
            summary.observe(event);
            if on_event(event, summary) == Control::Stop {
                *stop = true;
            }
        });
        // A stop is followed by the agent's terminal event when its abort command ended
        // the turn: that must still close its input, or it waits for SIGTERM.
        if self.stop && self.summary.terminal_event {
            Flow::FinishedAfterStop
        } else if self.stop {
            Flow::Stop
        } else if self.summary.terminal_event {
            Flow::Finished
        } else if self.decoder.awaiting_retry() {
            Flow::Settling
        } else if let Some(wait) = quiet {
            Flow::Quiet(wait)
        } else {
            Flow::Continue
        }
    }
}
