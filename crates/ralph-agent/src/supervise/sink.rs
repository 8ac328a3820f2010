//! Where the child's output goes. The supervisor hands over raw bytes as they arrive and
//! knows nothing of their format; the sink (the stream parser) tells it when the agent has
//! finished or must be stopped.

/// What the supervisor should do after a chunk of output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// The agent emitted its terminal event: give it the exit grace, then stop it (which
    /// counts as success).
    Finished,
    /// Stop the agent now (e.g. a cost budget was crossed).
    Stop,
    /// The terminal event came after a stop was asked for (the abort command ended the
    /// turn), or with it: the stop's reason stands, and the turn is over as with
    /// `Finished` (a live stdin closes, so pi and Claude Code exit instead of waiting for
    /// their next command until SIGTERM).
    FinishedAfterStop,
    /// The agent's turn ended in a failure it may still retry by itself (pi in RPC mode);
    /// if it says nothing more for [`RETRY_SETTLE`](super::RETRY_SETTLE), its turn is
    /// over: treated as `Finished` (its live stdin closes). Only with a live stdin.
    Settling,
    /// The agent announced that it waits this long before it goes on (a failed model
    /// call's retry delay, which a provider's `retry-after` can make minutes): its silence
    /// until then is not inactivity. Otherwise as `Continue`.
    Quiet(std::time::Duration),
}

/// Receives the child's output. Every byte written to the child's stdout reaches
/// `on_stdout`, in order, including bytes read after a stop was decided (then the return
/// value is ignored).
pub trait OutputSink {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow;

    /// Stderr as it arrives (also kept as a bounded tail in the outcome). Ignored by default.
    fn on_stderr(&mut self, _bytes: &[u8]) {}

    /// The child was just started (`agent.pid` is also its process group), before any of
    /// its output: the run shell records it, so that a later ralph can stop what it
    /// leaves if this one is killed. Ignored by default.
    fn on_spawn(&mut self, _agent: ralph_types::ProcessIdentity) {}
}

/// A sink that drops everything (version probes, benchmarks of the supervisor alone).
#[derive(Clone, Copy, Debug, Default)]
pub struct DiscardOutput;

impl OutputSink for DiscardOutput {
    fn on_stdout(&mut self, _bytes: &[u8]) -> Flow {
        Flow::Continue
    }
}
