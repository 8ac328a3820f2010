use super::*;
use serde_json::json;

/// `event` as read from a line that names no sender.
fn unsent(event: Event) -> Sent {
    Sent {
        event,
        sender: None,
    }
}

#[test]
fn lines_round_trip_text_json_and_empty_payloads() {
    let events = vec![
        Event::with_text("build.done", "wrote \"a\"\nand b"),
        Event {
            topic: "review.approved".into(),
            payload: Some(json!({"files": ["a.rs"], "ok": true})),
            to: None,
        },
        Event::new("LOOP_COMPLETE"),
    ];
    let read: Vec<_> = events
        .iter()
        .map(|e| {
            let line = encode_line(e, 1_764_000_000_000, None);
            assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
            parse_line(line.trim_end().as_bytes())
        })
        .collect();
    let expected: Vec<_> = events.into_iter().map(|e| Some(Ok(unsent(e)))).collect();
    assert_eq!(read, expected);
}

#[test]
fn foreign_lines_read_when_they_carry_a_topic() {
    let upstream =
        br#"{"topic":"build.done","payload":"ok","ts":"2026-01-01T00:00:00Z","extra":1}"#;
    assert_eq!(
        parse_line(upstream),
        Some(Ok(unsent(Event::with_text("build.done", "ok"))))
    );
    assert_eq!(
        parse_line(br#"{"topic":"x","payload":null}"#),
        Some(Ok(unsent(Event::new("x"))))
    );
    assert_eq!(parse_line(b"  \t"), None);
}

#[test]
fn invalid_lines_say_why() {
    let cases: Vec<(&[u8], InvalidLine)> = vec![
        (b"\xff\xfe", InvalidLine::NotUtf8),
        (br#"{"payload":"x"}"#, InvalidLine::NoTopic),
        (br#"{"topic":3}"#, InvalidLine::NoTopic),
        (
            br#"{"topic":"a b"}"#,
            InvalidLine::BadTopic {
                topic: "a b".into(),
                reason: TopicError::BadChar(' ').to_string(),
            },
        ),
    ];
    for (line, expected) in cases {
        assert_eq!(parse_line(line), Some(Err(expected)));
    }
    assert!(matches!(
        parse_line(b"hello"),
        Some(Err(InvalidLine::NotJson { .. }))
    ));
    assert!(matches!(
        parse_line(b"[1,2]"),
        Some(Err(InvalidLine::NotJson { .. }))
    ));
}

#[test]
fn emit_arguments_are_checked() {
    assert_eq!(
        event_from_args("build.done", Some("{\"a\": 1}"), false),
        Ok(Event::with_text("build.done", "{\"a\": 1}"))
    );
    assert_eq!(
        event_from_args("build.done", Some("{\"a\": 1}"), true),
        Ok(Event {
            topic: "build.done".into(),
            payload: Some(json!({"a": 1})),
            to: None,
        })
    );
    assert_eq!(
        event_from_args("build done", None, false),
        Err(EmitError::Topic {
            topic: "build done".into(),
            reason: TopicError::BadChar(' ')
        })
    );
    assert!(matches!(
        event_from_args("t", Some("{oops"), true),
        Err(EmitError::Json { .. })
    ));
    let big = "x".repeat(MAX_PAYLOAD_BYTES + 1);
    assert_eq!(
        event_from_args("t", Some(&big), false),
        Err(EmitError::TooLarge {
            len: MAX_PAYLOAD_BYTES + 1
        })
    );
}

#[test]
fn a_json_payload_with_an_integer_no_64_bit_number_holds_is_refused() {
    let err = event_from_args(
        "t",
        Some(r#"{"id": 12345678901234567890123, "s": "99999999999999999999999"}"#),
        true,
    )
    .unwrap_err();
    assert_eq!(
        err,
        EmitError::InexactNumber {
            number: "12345678901234567890123".into()
        }
    );
    // Within 64 bits (signed or not), in strings, and floats are kept as JSON keeps them.
    for ok in [
        r#"{"n": 18446744073709551615, "m": -9223372036854775808}"#,
        r#"["12345678901234567890123", "a\"1e999999999999999999999"]"#,
        r#"{"f": 1.5e300, "g": 0.1}"#,
    ] {
        assert!(event_from_args("t", Some(ok), true).is_ok(), "{ok}");
    }
}

#[test]
fn payloads_nested_past_the_limit_are_refused_by_emit_and_the_inbox() {
    let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
    assert_eq!(depth(&json!("text")), 0);
    assert_eq!(depth(&json!({"a": [1, {"b": []}], "c": 2})), 4);
    let limit = nested(MAX_PAYLOAD_DEPTH);
    assert!(event_from_args("t", Some(&limit), true).is_ok());
    let over = nested(MAX_PAYLOAD_DEPTH + 1);
    assert_eq!(
        event_from_args("t", Some(&over), true),
        Err(EmitError::TooDeep {
            depth: MAX_PAYLOAD_DEPTH + 1
        })
    );
    // As text, it is one string: no depth at all.
    assert!(event_from_args("t", Some(&over), false).is_ok());
    let line = format!(r#"{{"topic":"t","payload":{over}}}"#);
    assert_eq!(
        parse_line(line.as_bytes()),
        Some(Err(InvalidLine::TooDeep {
            depth: MAX_PAYLOAD_DEPTH + 1
        }))
    );
    let line = format!(r#"{{"topic":"t","payload":{limit}}}"#);
    assert!(matches!(parse_line(line.as_bytes()), Some(Ok(_))));
}

#[test]
fn a_line_names_its_sender_and_one_without_reads_as_sent_by_nobody() {
    let event = Event::with_text("plan.ready", "notes.txt");
    let line = encode_line(&event, 1, Some("4242-100-7"));
    assert_eq!(
        line,
        "{\"topic\":\"plan.ready\",\"payload\":\"notes.txt\",\"ts\":1,\"sender\":\"4242-100-7\"}\n"
    );
    assert_eq!(
        parse_line(line.trim_end().as_bytes()),
        Some(Ok(Sent {
            event: event.clone(),
            sender: Some("4242-100-7".into())
        }))
    );
    // A line from before ralph recorded senders, or with a sender that is no string.
    for old in [
        &br#"{"topic":"plan.ready","payload":"notes.txt","ts":1}"#[..],
        br#"{"topic":"plan.ready","payload":"notes.txt","sender":7}"#,
    ] {
        assert_eq!(parse_line(old), Some(Ok(unsent(event.clone()))));
    }
}
