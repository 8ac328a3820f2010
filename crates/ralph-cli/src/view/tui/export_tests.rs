//! What the export writes: the model's and tools' escape sequences as escapes, never raw,
//! and everything else (Markdown, tabs, newlines) as it was.

use ralph_stream::AgentEvent;

use super::*;

/// Sequences a terminal acts on: window title (OSC 0), clipboard write (OSC 52), a link
/// (OSC 8), screen clear, the alternate screen, a DCS string, BEL, a backspace, C1's
/// one-character CSI, and a right-to-left override.
const HOSTILE: &str = "\u{1b}]0;owned\u{7} \u{1b}]52;c;cm0gLXJmIH4=\u{7} \
    \u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\ \u{1b}[2J \u{1b}[?1049h \
    \u{1b}P1$r\u{1b}\\ \u{7}\u{8} \u{9b}31m \u{202e}txt.exe";

#[test]
fn the_export_writes_escape_sequences_as_escapes_and_keeps_the_markdown() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    let text = format!("**Bold** and `code`\n\tindented {HOSTILE}\n");
    agent(
        &mut model,
        &AgentEvent::ThinkingDelta {
            text: format!("think {HOSTILE}").into(),
        },
    );
    agent(&mut model, &AgentEvent::TextDelta { text: text.into() });
    bash_call(&mut model, "t1", &format!("echo {HOSTILE}"));
    agent(
        &mut model,
        &AgentEvent::ToolCallFinished {
            id: "t1".into(),
            name: None,
            output: format!("out\n{HOSTILE}\n").into(),
            is_error: false,
        },
    );

    let dir = tempfile::tempdir().unwrap();
    let written = std::fs::read_to_string(export::write(&model, 0, dir.path()).unwrap()).unwrap();
    let raw: Vec<char> = written
        .chars()
        .filter(|&c| (c.is_control() && c != '\n' && c != '\t') || c == '\u{202e}')
        .collect();
    assert!(raw.is_empty(), "raw {raw:?} in:\n{written}");
    // Each place the model's text goes shows what was there.
    assert_eq!(written.matches("\\u{1b}]52;c;").count(), 4, "{written}");
    assert_eq!(written.matches("\\u{9b}31m").count(), 4, "{written}");
    assert_eq!(written.matches("\\u{202e}txt").count(), 4, "{written}");
    assert!(
        written.contains("**Bold** and `code`\n\tindented "),
        "{written}"
    );
    assert!(written.contains("*Thinking:*\n\n> think "), "{written}");
    assert!(
        written.contains("**Tool `bash`** (ok): `echo "),
        "{written}"
    );
    assert!(written.contains("```\nout\n"), "{written}");
}
