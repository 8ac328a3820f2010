use serde_json::json;

use super::*;

#[test]
fn a_message_claude_code_puts_beside_a_tool_result_is_a_new_prompt_its_reminders_are_not() {
    let body = json!({"messages": [
        {"role": "user", "content": [{"type": "text", "text": "Do the task."}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "slept"},
            {"type": "text", "text": "<system-reminder>\nbe nice\n</system-reminder>"},
            {"type": "text", "text": "The user sent a new message while you were working:\nSTEER"},
        ]},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t2", "content": "x"},
            {"type": "text", "text": "<system-reminder>\nonly this\n</system-reminder>"},
        ]},
    ]});
    let conversation = Conversation::read(Wire::AnthropicMessages, "/v1/messages", &body);
    let prompts: Vec<(&str, usize)> = conversation
        .prompts
        .iter()
        .map(|p| (p.text.as_str(), p.assistant_turns_after))
        .collect();
    assert_eq!(
        prompts,
        vec![
            ("Do the task.", 1),
            (
                "The user sent a new message while you were working:\nSTEER",
                1
            ),
        ]
    );
    assert_eq!(conversation.last_tool_result.as_deref(), Some("x"));
    assert_eq!(conversation.assistant_turns, 2);
}
