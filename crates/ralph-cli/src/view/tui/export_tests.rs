//! What the export writes: the iteration as Markdown, the model's and tools' escape
//! sequences as escapes, never raw, and everything else (Markdown, tabs, newlines) as it
//! was, through no link planted in the run directory.

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

#[test]
fn export_writes_the_iteration_as_markdown() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/thinking.jsonl");
    iteration_started(&mut model, 2, "reviewer", "pi");
    for line in agent_lines(&fixture("pi/anthropic/tools3.jsonl"), 2) {
        model.apply_json(&line);
    }
    gate(&mut model, 2, false);
    let dir = tempfile::tempdir().unwrap();
    let path = export::write(&model, 1, dir.path()).unwrap();
    assert_eq!(path, dir.path().join("exports/iteration-2.md"));
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# Run 20261125-215510-tui1 · iteration 2 · reviewer"));
    let tools = model.iterations[1]
        .entries
        .iter()
        .filter(|e| matches!(e, Entry::Tool(_)))
        .count();
    assert_eq!(text.matches("**Tool `").count(), tools);
    assert!(tools >= 3, "{tools}");
    let gate_line = text
        .lines()
        .find(|l| l.starts_with("**Gate `tests`**: "))
        .expect("the gate's line");
    assert!(gate_line.contains("failed (exit code"), "{gate_line}");
    assert_eq!(gate_line.matches("failed").count(), 1, "{gate_line}");
    let thinking = export::markdown(&model, &model.iterations[0]);
    assert!(thinking.contains("*Thinking:*\n\n> "), "{thinking}");
}

#[test]
fn export_follows_no_link_the_agent_planted_in_the_run_directory() {
    let model = one_iteration("pi", "builder", "pi/anthropic/thinking.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join(".ralph/runs/20261125T215510Z");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, run_dir.join(export::EXPORTS_DIR)).unwrap();
    assert!(export::write(&model, 0, &run_dir).is_err());
    std::fs::remove_file(run_dir.join(export::EXPORTS_DIR)).unwrap();
    std::fs::create_dir(run_dir.join(export::EXPORTS_DIR)).unwrap();
    let planted = outside.join("iteration-1.md");
    std::fs::write(&planted, "mine").unwrap();
    let at = run_dir.join("exports/iteration-1.md");
    std::os::unix::fs::symlink(&planted, &at).unwrap();
    // The link is replaced by the export; the file it named is left as it was.
    assert_eq!(export::write(&model, 0, &run_dir).unwrap(), at);
    assert!(std::fs::symlink_metadata(&at).unwrap().is_file());
    assert_eq!(std::fs::read_to_string(&planted).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
}
