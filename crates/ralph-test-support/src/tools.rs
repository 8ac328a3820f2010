//! Maps a generic tool call (`shell`, `write`, `read`) onto the tool the client actually offers,
//! so one script drives pi (`bash`, `write`, `read`), Claude Code (`Bash`, `Write`, `Read`, which
//! want absolute paths) and Codex (`exec_command`). A client without a write or read tool gets
//! the equivalent shell command.

use serde_json::{Value, json};

use crate::turn::Call;

/// The `description` Claude Code's `Bash` tool asks for.
const BASH_DESCRIPTION: &str = "Run the scripted command";

/// Shell tools in order of preference, with how each takes a command.
const SHELL_TOOLS: [(&str, ShellArgs); 6] = [
    ("bash", ShellArgs::Command),
    ("Bash", ShellArgs::CommandWithDescription),
    ("exec_command", ShellArgs::Cmd),
    ("shell_command", ShellArgs::Command),
    ("shell", ShellArgs::Argv),
    ("run_shell_command", ShellArgs::Command),
];

/// How a shell tool takes its command.
#[derive(Debug, Clone, Copy)]
enum ShellArgs {
    /// `{command}`: pi, Codex's `shell_command`, Gemini.
    Command,
    /// `{command, description}`: Claude Code.
    CommandWithDescription,
    /// `{cmd}`: Codex's `exec_command`.
    Cmd,
    /// `{command: ["bash", "-lc", cmd]}`: Codex's older `shell`.
    Argv,
}

/// The tool name and arguments object for `call`, given the offered tools and the agent's cwd.
pub(crate) fn concrete_call(call: &Call, offered: &[String], cwd: Option<&str>) -> (String, Value) {
    let offers = |name: &str| offered.iter().any(|offered| offered == name);
    match call {
        Call::Shell(command) => shell_call(command, offered),
        Call::Write(args) if offers("write") => (
            "write".to_owned(),
            json!({"path": args.path, "content": args.content}),
        ),
        Call::Write(args) if offers("Write") => (
            "Write".to_owned(),
            json!({"file_path": absolute(&args.path, cwd), "content": args.content}),
        ),
        Call::Write(args) => {
            let path = quote(&args.path);
            let command = format!(
                "mkdir -p \"$(dirname {path})\" && printf '%s' {} > {path}",
                quote(&args.content)
            );
            shell_call(&command, offered)
        }
        Call::Read(args) if offers("read") => ("read".to_owned(), json!({"path": args.path})),
        Call::Read(args) if offers("Read") => (
            "Read".to_owned(),
            json!({"file_path": absolute(&args.path, cwd)}),
        ),
        Call::Read(args) => shell_call(&format!("cat {}", quote(&args.path)), offered),
        Call::Tool(tool) => (tool.name.clone(), tool.input.clone()),
    }
}

fn shell_call(command: &str, offered: &[String]) -> (String, Value) {
    let known = SHELL_TOOLS
        .iter()
        .find(|(name, _)| offered.iter().any(|offered| offered == name));
    let (name, shape) = match known {
        Some((name, shape)) => ((*name).to_owned(), *shape),
        None => {
            // Anything that looks like a shell tool; else pi's name, so the agent's error
            // ("tool not found") shows what went wrong.
            let lookalike = offered.iter().find(|name| {
                let lower = name.to_lowercase();
                lower.contains("shell") || lower.contains("bash")
            });
            let name = lookalike.map_or("bash", String::as_str).to_owned();
            (name, ShellArgs::Command)
        }
    };
    let args = match shape {
        ShellArgs::Command => json!({"command": command}),
        ShellArgs::CommandWithDescription => {
            json!({"command": command, "description": BASH_DESCRIPTION})
        }
        ShellArgs::Cmd => json!({"cmd": command}),
        ShellArgs::Argv => json!({"command": ["bash", "-lc", command]}),
    };
    (name, args)
}

/// `path` made absolute against `cwd` when it is relative and the cwd is known.
fn absolute(path: &str, cwd: Option<&str>) -> String {
    match cwd {
        Some(cwd) if !path.starts_with('/') => format!("{}/{path}", cwd.trim_end_matches('/')),
        _ => path.to_owned(),
    }
}

/// `text` as one single-quoted POSIX shell word.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
