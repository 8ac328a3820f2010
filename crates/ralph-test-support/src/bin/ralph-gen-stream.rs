//! Writes a generated agent stream to a file, for benchmark scripts.
//!
//! Usage: ralph-gen-stream pi|claude small|medium|large OUTPUT
//! Prints what a correct parser must report (final text length, cost, turns) on stderr.

use std::process::ExitCode;

use ralph_test_support::streamgen;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [agent, size, output] = args.as_slice() else {
        eprintln!("usage: ralph-gen-stream pi|claude small|medium|large OUTPUT");
        return ExitCode::from(2);
    };
    let generated = match (agent.as_str(), size.as_str()) {
        ("pi", "small") => streamgen::pi_stream(&streamgen::PiSpec::small()),
        ("pi", "medium") => streamgen::pi_stream(&streamgen::PiSpec::medium()),
        ("pi", "large") => streamgen::pi_stream(&streamgen::PiSpec::large()),
        ("claude", "medium") => streamgen::claude_stream(&streamgen::ClaudeSpec::medium()),
        ("claude", "large") => streamgen::claude_stream(&streamgen::ClaudeSpec::large()),
        _ => {
            eprintln!("ralph-gen-stream: unknown stream `{agent} {size}`");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = std::fs::write(output, &generated.bytes) {
        eprintln!("ralph-gen-stream: cannot write {output}: {e}");
        return ExitCode::FAILURE;
    }
    let e = &generated.expect;
    eprintln!(
        "{{\"bytes\":{},\"text_deltas\":{},\"turns\":{},\"tool_calls\":{},\"cost_usd\":{},\"final_text_len\":{}}}",
        generated.bytes.len(),
        e.text_deltas,
        e.turns,
        e.tool_calls,
        e.cost_usd,
        e.final_text.len()
    );
    ExitCode::SUCCESS
}
