//! `ralph-mock-llm`: the mock model server as a process. Prints `listening on 127.0.0.1:PORT`
//! as its first stdout line (and writes the port to `--port-file`), logs one line per request on
//! stderr, and serves until it is killed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use ralph_test_support::{
    Builtin, MockError, MockServer, PiOptions, Script, ServerOptions, write_pi_agent_dir,
};

/// Offline mock LLM server (OpenAI Chat Completions, Anthropic Messages, OpenAI Responses,
/// Gemini) on 127.0.0.1, playing scripted conversations. See crates/ralph-test-support/README.md.
#[derive(Debug, Parser)]
#[command(name = "ralph-mock-llm", version)]
struct Args {
    /// Script file (.json, .yaml or .yml): a list of turns, or {default, scenarios, routes}.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Default scenario: overrides the script's `default` (default without a script: tool).
    #[arg(long, value_name = "NAME")]
    scenario: Option<String>,
    /// Port on 127.0.0.1; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Write the bound port (and a newline) to this file once listening.
    #[arg(long, value_name = "FILE")]
    port_file: Option<PathBuf>,
    /// Pause between SSE events, for turns that set none.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    delay_ms: u64,
    /// Write pi's models.json and settings.json for the bound port into DIR.
    #[arg(long, value_name = "DIR")]
    write_pi_agent_dir: Option<PathBuf>,
    /// Do not log requests on stderr.
    #[arg(long)]
    quiet: bool,
    /// Print the built-in scenario names and exit.
    #[arg(long)]
    list_scenarios: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list_scenarios {
        println!("{}", Builtin::names().join("\n"));
        return ExitCode::SUCCESS;
    }
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ralph-mock-llm: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<(), MockError> {
    let mut script = match &args.script {
        Some(path) => Script::load(path)?,
        None => Script::default(),
    };
    if let Some(scenario) = args.scenario {
        script.default = Some(scenario);
    }
    let server = MockServer::start_with(ServerOptions {
        script,
        port: args.port,
        default_delay: Duration::from_millis(args.delay_ms),
        log_to_stderr: !args.quiet,
    })?;
    let port = server.port();
    if let Some(dir) = &args.write_pi_agent_dir {
        write_pi_agent_dir(dir, &server.base_url(), &PiOptions::default())?;
    }
    if let Some(path) = &args.port_file {
        std::fs::write(path, format!("{port}\n")).map_err(|source| MockError::Write {
            path: path.clone(),
            source,
        })?;
    }
    let mut stdout = std::io::stdout().lock();
    // A closed stdout must not stop the server: the port file still tells the port.
    let _ = writeln!(stdout, "listening on 127.0.0.1:{port}");
    let _ = stdout.flush();
    drop(stdout);
    server.serve_forever();
    Ok(())
}
