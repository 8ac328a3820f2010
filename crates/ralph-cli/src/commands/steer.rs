//! `ralph steer "MESSAGE" [--next]`: guidance for the running loop, from another terminal,
//! a script or a hook. The message is written as a request into the current run's
//! directory, the loop's watcher (`run/steer.rs`) decides where it goes and answers, and
//! this prints the answer: `delivered to pi mid-turn` or `queued for iteration 3`.

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use ralph_core::steer::{
    SteerAnswer, SteerRequest, check_message, send_request, take_answer, withdraw_request,
};
use ralph_core::store::{RalphDir, unix_ms};
use ralph_core::visible::visible;

use crate::cli::SteerArgs;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::steer::ANSWER_WAIT;

/// How often the answer is looked for.
const ANSWER_POLL: Duration = Duration::from_millis(20);

pub(crate) fn run(args: &SteerArgs) -> Result<CommandOutcome, CliError> {
    check_message(&args.message)?;
    let dir = RalphDir::in_workspace(&workspace()?);
    let running = |dir: &RalphDir| {
        dir.loop_running()
            .map_err(|e| CliError::io("check for a running loop in", dir.path(), e))
    };
    let no_loop = || CliError::NoLoopForSteer(dir.path().to_path_buf());
    if !running(&dir)? {
        return Err(no_loop());
    }
    let run = dir
        .current_run()
        .map_err(|e| CliError::io("read the current run of", dir.path(), e))?
        .ok_or_else(no_loop)?;
    let now = SystemTime::now();
    let sent_at_ms = unix_ms(now);
    // Sorts by time; the pid and the clock's finer digits keep two senders apart.
    let nanos = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() % 1_000_000);
    let id = format!("{sent_at_ms:013}-{}-{nanos:06}", std::process::id());
    let request = SteerRequest {
        message: args.message.clone(),
        next: args.next,
        sent_at_ms,
    };
    let path = send_request(&run, &id, &request)
        .map_err(|e| CliError::io("write the steering request into", run.path(), e))?;
    let started = Instant::now();
    let answer = |run| {
        take_answer(run, &id).map_err(|e| CliError::io("read the loop's answer in", run.path(), e))
    };
    let withdraw = || withdraw_request(&run, &id).map_err(|e| CliError::io("withdraw", &path, e));
    loop {
        if let Some(answer) = answer(&run)? {
            return said(answer);
        }
        if !running(&dir)? {
            // Withdrawn: it was never taken. Taken: the answer was written before the
            // loop let go of its lock.
            if !withdraw()?
                && let Some(answer) = answer(&run)?
            {
                return said(answer);
            }
            return Err(CliError::SteerLoopEnded);
        }
        if started.elapsed() >= ANSWER_WAIT {
            return Err(CliError::SteerUnconfirmed {
                secs: ANSWER_WAIT.as_secs(),
                withdrawn: withdraw()?,
            });
        }
        std::thread::sleep(ANSWER_POLL);
    }
}

/// Prints where the message went; a refusal is an error.
fn said(answer: SteerAnswer) -> Result<CommandOutcome, CliError> {
    if let SteerAnswer::Refused { reason } = answer {
        return Err(CliError::SteerRefused(reason));
    }
    // The answer lies in the workspace, where an agent can write: nothing in it may act on
    // the terminal. A closed stdout does not undo the delivery.
    let shown = format!("{}\n", visible(&answer.to_string()));
    let _ = std::io::Write::write_all(&mut std::io::stdout(), shown.as_bytes());
    Ok(CommandOutcome::Success)
}

/// The workspace to steer (see [`super::enclosing_workspace`]).
fn workspace() -> Result<PathBuf, CliError> {
    super::enclosing_workspace()
}
