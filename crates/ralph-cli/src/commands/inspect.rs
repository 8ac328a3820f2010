//! `ralph inspect`: summarize a captured agent stream.

use ralph_core::config::{LoadOptions, Overrides, load_pricing};
use ralph_core::store::{RalphDir, STDOUT_FILE};
use ralph_stream::AgentEvent;
use ralph_stream::CostKind;
use ralph_stream::PriceTable;
use ralph_stream::Pricing;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use ralph_stream::Tokens;
use serde::Serialize;

use super::inspect_capture::{self as capture, Capture, Item, Start};
use crate::cli::InspectArgs;
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::input::Input;
use crate::output::JsonLines;
use crate::view::term::AgentView;
use crate::view::term::figures::attempt_part;
use crate::view::term::{count, iteration_cost, line, palette};
use ralph_core::token_count::TokenCount;
use ralph_core::visible::visible;
use std::io::IsTerminal as _;

/// `--view`: the human rendering on a (possibly color-stripping) stdout.
struct View {
    view: AgentView,
    verbose: bool,
    /// Whether an attempt of a capture has begun: the next one is set apart by a blank line.
    started: bool,
    out: std::io::BufWriter<anstream::AutoStream<std::io::StdoutLock<'static>>>,
    text: String,
}

impl View {
    fn new(verbose: bool, color: anstream::ColorChoice) -> Self {
        let stdout = std::io::stdout();
        let color = match color {
            anstream::ColorChoice::Auto => anstream::AutoStream::choice(&stdout),
            other => other,
        };
        View {
            view: AgentView::new(verbose),
            verbose,
            started: false,
            out: std::io::BufWriter::new(anstream::AutoStream::new(stdout.lock(), color)),
            text: String::new(),
        }
    }

    fn write(&mut self, event: &AgentEvent<'_>) -> Result<(), CliError> {
        self.text.clear();
        self.view.render(event, &mut self.text);
        self.flush_text()
    }

    /// An attempt of a capture begins: the agent's view starts anew (its first user
    /// message is this attempt's prompt, not one it read), under a header like the live
    /// view's: `── iteration 2 · attempt 2 · builder · claude ──`.
    fn start(&mut self, start: &Start) -> Result<(), CliError> {
        self.text.clear();
        self.view.finish(&mut self.text);
        self.view = AgentView::new(self.verbose);
        if std::mem::replace(&mut self.started, true) {
            self.text.push('\n');
        }
        let hat = start
            .hat_name
            .as_deref()
            .map(|hat| format!(" · {hat}"))
            .unwrap_or_default();
        let header = format!(
            "── iteration {}{}{hat} · {} ──",
            start.iteration,
            attempt_part(start.attempt),
            start.backend
        );
        line(&mut self.text, palette::HEADER, &header);
        self.flush_text()
    }

    fn flush_text(&mut self) -> Result<(), CliError> {
        use std::io::Write as _;
        self.out
            .write_all(self.text.as_bytes())
            .map_err(CliError::write)
    }

    /// Ends the rendering with the line the live view closes an iteration with: how the
    /// run went, its turns, tokens, cost and model.
    fn finish(&mut self, summary: &SessionSummary) -> Result<(), CliError> {
        use std::io::Write as _;
        self.text.clear();
        self.view.finish(&mut self.text);
        self.text.push_str(&closing_line(summary));
        self.out
            .write_all(self.text.as_bytes())
            .map_err(CliError::write)?;
        self.out.flush().map_err(CliError::write)
    }
}

fn print_pretty(text: &str) -> Result<CommandOutcome, CliError> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{text}").map_err(CliError::write)?;
    Ok(CommandOutcome::Success)
}

/// `✓ succeeded · 3 turns · 12,155 tokens · $0.0159 · model`, styled like the live view's
/// iteration footer.
fn closing_line(summary: &SessionSummary) -> String {
    let (style, mark, verdict) = if summary.succeeded {
        (palette::SUCCESS, "✓", "succeeded")
    } else {
        (palette::ERROR, "✗", "failed")
    };
    let mut line = format!("{mark} {verdict}");
    for part in [
        count(u64::from(summary.turns), "turn", "turns"),
        TokenCount::of(summary.tokens.total(), summary.tokens_known).words(),
        iteration_cost(summary.cost_usd, summary.cost_kind),
    ] {
        line.push_str(" · ");
        line.push_str(&part);
    }
    if let Some(model) = &summary.model {
        line.push_str(" · ");
        line.push_str(&visible(model));
    }
    format!("{}{line}{}\n", style.render(), style.render_reset())
}

/// The summary `ralph inspect` prints: exactly these keys, a documented contract.
#[derive(Debug, Serialize)]
struct Report<'a> {
    agent: Option<&'a str>,
    final_text: Option<&'a str>,
    cost_usd: Option<f64>,
    cost_kind: CostKind,
    tokens: Tokens,
    /// False when the agent reported no token counts: `tokens` is zero, not counted.
    tokens_known: bool,
    turns: u32,
    tool_calls: u32,
    tool_errors: u32,
    errors: &'a [String],
    succeeded: bool,
    /// The run failed on a provider's rate or usage limit: the message, and when it
    /// resets if the agent said.
    rate_limited: Option<&'a ralph_stream::RateLimited>,
    terminal_event: bool,
    lines: u64,
    unknown_events: u64,
    non_json_lines: u64,
    oversize_lines: u64,
}

/// The prices of the config files, assuming `--model` (or else `recorded`, the model the
/// run priced a `--run` transcript as) where the stream names none.
///
/// A run's transcript is priced as the run priced it, so the workspace's prices apply;
/// a config file broken since (an edit in progress) must not make the transcript
/// unreadable: it is priced at the built-in prices, with a warning saying so.
fn pricing(args: &InspectArgs, recorded: Option<String>) -> Result<Pricing, CliError> {
    let cwd = super::enclosing_workspace()?;
    let options = LoadOptions::from_env(cwd, args.config.clone(), Overrides::default());
    let prices = match load_pricing(&options) {
        Ok(prices) => prices,
        Err(e) if args.run.is_some() => {
            diagnostic(format_args!("{e}"));
            diagnostic(format_args!(
                "warning: the config cannot be loaded, so this transcript is priced at the \
                 built-in prices, which may not be those the run used"
            ));
            Vec::new()
        }
        Err(e) => return Err(CliError::Config(e)),
    };
    let table =
        PriceTable::builtin().with_entries(prices.iter().map(|p| (p.model.as_str(), p.price)));
    let pricing = Pricing::new(table);
    Ok(match args.model.clone().or(recorded) {
        Some(model) => pricing.with_default_model(model),
        None => pricing,
    })
}

/// The most bytes read before deciding whose stream it is without a whole first line.
const MAX_HEAD_BYTES: usize = 1 << 20;

/// What a `--run` transcript's `command.json` says of how the run read it.
#[derive(Default)]
struct Recorded {
    /// The model the run priced the stream as.
    model: Option<String>,
    /// The format the run decoded it as.
    format: Option<StreamFormat>,
}

/// What to read: the file (or stdin), or with `--run` an iteration's kept raw stream (its
/// latest attempt's, or `--attempt`'s), with how the run read it.
fn input(args: &InspectArgs) -> Result<(Input, Recorded), CliError> {
    let (Some(id), Some(iteration)) = (&args.run, args.iteration) else {
        return Ok((Input::from_arg(args.file.as_deref()), Recorded::default()));
    };
    let dir = RalphDir::in_workspace(&super::enclosing_workspace()?);
    let run = super::runs::find_run(&dir, id)?;
    let running = super::runs::running_run(&dir).as_deref() == Some(run.id());
    super::inspect_transcript::check_reached(&run, iteration, running)?;
    let transcript = super::inspect_transcript::pick(&run, iteration, args.attempt)?;
    if args.attempt.is_none() {
        super::inspect_transcript::note_earlier_attempts(&run, iteration);
    }
    let path = run.transcript_dir(transcript).join(STDOUT_FILE);
    match run.open_transcript_file(transcript, STDOUT_FILE) {
        Ok(file) => Ok((
            Input::Compressed { path, file },
            Recorded {
                model: super::inspect_transcript::recorded_model(&run, transcript),
                format: super::inspect_transcript::recorded_format(&run, transcript),
            },
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CliError::NoTranscript {
            run: run.id().to_owned(),
            iteration,
            path,
        }),
        Err(e) => Err(CliError::io("open", path, e)),
    }
}

pub(crate) fn run(args: &InspectArgs) -> Result<CommandOutcome, CliError> {
    let (input, recorded) = input(args)?;
    // A kept transcript is read in the format the run read it in, unless `--agent` says
    // otherwise: plain text (a custom backend's) has no look to recognise it by.
    let forced = args.agent.format().or(recorded.format);
    let mut decoder = StreamDecoder::new(forced).with_pricing(pricing(args, recorded.model)?);
    // Calls the agent never priced (Claude Code stopped before its `result`) are shown at
    // ralph's estimate, as the run showed them.
    let mut summary = SessionSummary::default().with_pricing(decoder.pricing().clone());
    let mut recognised = 0u64;
    let mut out = args.events.then(JsonLines::stdout);
    let mut view = args
        .view
        .then(|| View::new(args.verbose, args.color.choice()));
    let mut write_error = None;
    let mut on_item = |item: Item<'_>| {
        let event = match item {
            Item::Event(event) => event,
            Item::Start(start) => {
                // Each attempt is an agent process of its own, with totals of its own.
                summary.begin_session();
                if let Some(view) = view.as_mut().filter(|_| write_error.is_none())
                    && let Err(e) = view.start(start)
                {
                    write_error = Some(e);
                }
                return;
            }
        };
        summary.observe(event);
        if !matches!(
            event,
            AgentEvent::NonJson { .. }
                | AgentEvent::Unknown { .. }
                | AgentEvent::OversizeLine { .. }
        ) {
            recognised += 1;
        }
        if write_error.is_some() {
            return;
        }
        let written = match (out.as_mut(), view.as_mut()) {
            (Some(out), _) => out.write(event),
            (None, Some(view)) => view.write(event),
            (None, None) => Ok(()),
        };
        if let Err(e) = written {
            write_error = Some(e);
        }
    };
    // The first line says whose stream it is: an agent's, or ralph's own capture.
    let mut head: Option<Vec<u8>> = Some(Vec::new());
    let mut capture: Option<Capture> = None;
    input.for_each_chunk(|chunk| {
        let Some(buffer) = head.as_mut() else {
            match capture.as_mut() {
                Some(capture) => capture.feed(chunk, &mut on_item),
                None => decoder.feed(chunk, |event| on_item(Item::Event(event))),
            }
            return Ok(());
        };
        buffer.extend_from_slice(chunk);
        let first_line = match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => &buffer[..end],
            None if buffer.len() < MAX_HEAD_BYTES => return Ok(()),
            None => &buffer[..],
        };
        if capture::is_capture(first_line) {
            capture = Some(Capture::new(args.iteration, args.attempt));
        }
        let buffer = head.take().unwrap_or_default();
        match capture.as_mut() {
            Some(capture) => capture.feed(&buffer, &mut on_item),
            None => decoder.feed(&buffer, |event| on_item(Item::Event(event))),
        }
        Ok(())
    })?;
    if let Some(buffer) = head.take()
        && capture::is_capture(&buffer)
    {
        capture = Some(Capture::new(args.iteration, args.attempt));
    }
    match capture.as_mut() {
        Some(capture) => capture.finish(&mut on_item),
        None => decoder.finish(|event| on_item(Item::Event(event))),
    }
    // An agent's own stream that ended without its terminal event was cut, as a run
    // would have judged it: its tokens are the least it used.
    if capture.is_none()
        && let Some(format) = decoder.format()
    {
        summary.stream_ended(format);
    }
    if args.run.is_none() && args.iteration.is_some() && capture.is_none() {
        return Err(CliError::IterationOfAgentStream {
            input: input.name(),
        });
    }
    if let Some(e) = write_error {
        return Err(e);
    }
    if let Some(view) = view.as_mut() {
        view.finish(&summary)?;
    }

    if let Some(capture) = &capture {
        return capture_report(args, &input, capture, &summary, out);
    }
    let lines = decoder.lines();
    match (decoder.format(), forced) {
        (None, _) => {
            return Err(CliError::NotAStream {
                input: input.name(),
                lines,
            });
        }
        (Some(format), Some(_)) if recognised == 0 => {
            return Err(CliError::NotThatStream {
                input: input.name(),
                agent: format.name(),
                lines,
            });
        }
        _ => {}
    }
    let agent = decoder.format().map(|f| f.name());
    print_report(args, agent, &summary, lines, out)
}

/// Prints the summary (unless `--events` printed the events).
fn print_report(
    args: &InspectArgs,
    agent: Option<&str>,
    summary: &SessionSummary,
    lines: u64,
    out: Option<JsonLines>,
) -> Result<CommandOutcome, CliError> {
    if args.view {
        return Ok(CommandOutcome::Success);
    }
    let mut out = out.unwrap_or_else(JsonLines::stdout);
    if !args.events {
        let report = Report {
            agent,
            final_text: summary.final_text.as_deref(),
            cost_usd: summary.cost_usd,
            cost_kind: summary.cost_kind,
            tokens: summary.tokens,
            tokens_known: summary.tokens_known,
            turns: summary.turns,
            tool_calls: summary.tool_calls,
            tool_errors: summary.tool_errors,
            errors: &summary.errors,
            succeeded: summary.succeeded,
            rate_limited: summary.rate_limited.as_ref(),
            terminal_event: summary.terminal_event,
            lines,
            unknown_events: summary.unknown_events,
            non_json_lines: summary.non_json_lines,
            oversize_lines: summary.oversize_lines,
        };
        // A person at a terminal reads it indented; a pipe gets one JSON line.
        if std::io::stdout().is_terminal() {
            let pretty =
                serde_json::to_string_pretty(&report).map_err(|e| CliError::write(e.into()))?;
            return print_pretty(&pretty);
        }
        out.write(&report)?;
    }
    out.flush()?;
    Ok(CommandOutcome::Success)
}

/// The summary of a ralph capture's agent events.
fn capture_report(
    args: &InspectArgs,
    input: &Input,
    capture: &Capture,
    summary: &SessionSummary,
    out: Option<JsonLines>,
) -> Result<CommandOutcome, CliError> {
    if capture.events == 0 {
        return Err(CliError::NoAgentEvents {
            input: input.name(),
            iteration: args.iteration,
            attempt: args.attempt,
        });
    }
    print_report(
        args,
        capture.backend.as_deref(),
        summary,
        capture.lines,
        out,
    )
}
