use super::*;

#[test]
fn an_unread_steering_message_is_named_by_its_first_line_cut_short() {
    let said = |message: &str| {
        Notice::SteerUnread {
            id: "s-1".into(),
            message: message.into(),
        }
        .to_string()
    };
    assert!(said("Check the tests first.").contains("“Check the tests first.”"));
    assert!(said("Check the tests.\nThen the docs.").contains("“Check the tests.…”"));
    let long = "é".repeat(EXCERPT_CHARS + 5);
    let shown = format!("“{}…”", "é".repeat(EXCERPT_CHARS));
    assert!(said(&long).contains(&shown), "{}", said(&long));
}
