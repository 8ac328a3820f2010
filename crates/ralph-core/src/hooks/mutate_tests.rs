use serde_json::json;

use super::*;

#[test]
fn the_metadata_object_is_merged_and_later_keys_win() {
    let mut m = Metadata::new();
    apply_answer(&mut m, br#"{"metadata": {"a": 1, "b": "x"}}"#, false, 100).unwrap();
    apply_answer(&mut m, br#"{"metadata": {"b": "y"}}"#, false, 100).unwrap();
    assert_eq!(json!(m), json!({"a": 1, "b": "y"}));
}

#[test]
fn empty_output_changes_nothing() {
    let mut m = Metadata::new();
    apply_answer(&mut m, b"  \n", false, 100).unwrap();
    assert!(m.is_empty());
}

#[test]
fn an_unusable_answer_fails_and_changes_nothing() {
    let mut m = Metadata::new();
    m.insert("keep".into(), json!(true));
    for (bytes, truncated) in [
        (&b"not json"[..], false),
        (&b"[1]"[..], false),
        (&br#"{"other": 1}"#[..], false),
        (&br#"{"metadata": 3}"#[..], false),
        (&br#"{"metadata": {"a": 1}}"#[..], true),
    ] {
        assert!(apply_answer(&mut m, bytes, truncated, 100).is_err());
        assert_eq!(json!(m), json!({"keep": true}));
    }
}

#[test]
fn metadata_cannot_grow_past_its_bound() {
    let mut m = Metadata::new();
    let big = "x".repeat(MAX_METADATA_BYTES);
    let answer = json!({"metadata": {"big": big}}).to_string();
    assert_eq!(
        apply_answer(&mut m, answer.as_bytes(), false, u64::MAX),
        Err(MutateError::TooLarge)
    );
    assert!(m.is_empty());
}

#[test]
fn the_prompt_section_lists_each_key() {
    assert_eq!(prompt_section(&Metadata::new()), "");
    let mut m = Metadata::new();
    m.insert("risk".into(), json!(0.5));
    m.insert("ticket".into(), json!("ABC-1"));
    let section = prompt_section(&m);
    assert!(section.contains("## Notes from hooks"), "{section}");
    assert!(
        section.contains("- risk: 0.5\n- ticket: ABC-1\n"),
        "{section}"
    );
}
