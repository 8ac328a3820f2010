use super::*;
use crate::event::MAX_PAYLOAD_BYTES;
use crate::topic::TopicError;

/// The events of the tags in `text`, panicking on a refused one.
fn events(text: &str) -> Vec<Event> {
    read_tags(text)
        .into_iter()
        .map(|tag| tag.expect("an accepted tag"))
        .collect()
}

#[test]
fn a_tag_at_the_end_of_an_answer_is_an_event_with_its_payload_trimmed() {
    let text = "Done with A.\n<event topic=\"x.done\">\n  legacy payload\n</event>\n";
    assert_eq!(events(text), [Event::with_text("x.done", "legacy payload")]);
}

#[test]
fn single_quotes_other_attributes_and_spaces_around_the_equals_sign_are_read() {
    let text = "<event target='b' topic = 'review.done'>ok</event>";
    assert_eq!(events(text), [Event::with_text("review.done", "ok")]);
}

#[test]
fn an_empty_payload_is_no_payload() {
    let text = "<event topic=\"LOOP_COMPLETE\"></event> and <event topic=\"a\">  \n </event>";
    assert_eq!(events(text), [Event::new("LOOP_COMPLETE"), Event::new("a")]);
}

#[test]
fn several_tags_are_read_in_the_order_written() {
    let text = "<event topic=\"one\">1</event> text <event topic='two'>2</event>\n\
                more\n<event topic=\"three\">3</event>";
    let topics: Vec<String> = events(text).into_iter().map(|e| e.topic).collect();
    assert_eq!(topics, ["one", "two", "three"]);
}

#[test]
fn a_tag_inside_a_fenced_code_block_is_an_example_not_an_event() {
    let text = concat!(
        "Print it like this:\n```xml\n<event topic=\"quoted\">no</event>\n```\n",
        "~~~~\n<event topic=\"tilde\">no</event>\n~~~~\n",
        "   ```\n<event topic=\"indented\">no</event>\n   ```\n",
        "<event topic=\"real\">yes</event>\n"
    );
    assert_eq!(events(text), [Event::with_text("real", "yes")]);
}

#[test]
fn a_fence_closes_only_with_its_own_character_and_at_least_its_length() {
    // ```` is not closed by ``` nor by ~~~~: the tag after them is still inside.
    let text = "````\n```\n~~~~\n<event topic=\"inside\">no</event>\n````\n\
                <event topic=\"after\">yes</event>";
    assert_eq!(events(text), [Event::with_text("after", "yes")]);
}

#[test]
fn an_unclosed_fence_runs_to_the_end_of_the_message() {
    let text = "<event topic=\"before\">yes</event>\n```\n<event topic=\"inside\">no</event>";
    assert_eq!(events(text), [Event::with_text("before", "yes")]);
}

#[test]
fn a_tag_whose_payload_holds_a_code_block_still_counts() {
    let text = "<event topic=\"build.done\">\nRan:\n```\ncargo test\n```\n</event>";
    assert_eq!(
        events(text),
        [Event::with_text("build.done", "Ran:\n```\ncargo test\n```")]
    );
}

#[test]
fn a_four_space_indent_makes_no_fence() {
    // An indented code block's content, not a fence: the tag after it is outside.
    let text = "    ```\n<event topic=\"a\">yes</event>";
    assert_eq!(events(text), [Event::with_text("a", "yes")]);
}

#[test]
fn malformed_tags_are_not_events() {
    for text in [
        "<event>no topic</event>",
        "<event topic=unquoted>x</event>",
        "<event topic=\"unterminated>x</event>",
        "<event topic=\"self.closing\"/>",
        "<event topic=\"self.closing\" /> later </event>",
        "<event topic=\"never.closed\">payload",
        "<events topic=\"plural\">x</events>",
        "<eventtopic=\"x\">x</event>",
        "<event topic=\"a\" topic=\"b\">two topics</event>",
        "<event topic=\"a\" =\"b\">stray</event>",
        "<EVENT topic=\"upper\">x</EVENT>",
        "< event topic=\"spaced\">x</event>",
    ] {
        assert_eq!(read_tags(text), [], "{text}");
    }
}

#[test]
fn an_unclosed_tag_before_a_whole_one_leaves_the_whole_one_alone() {
    let text = "<event topic=\"lost\">oops\n<event topic=\"kept\">fine</event>";
    assert_eq!(events(text), [Event::with_text("kept", "fine")]);
}

#[test]
fn an_opening_tag_longer_than_any_topic_allows_is_no_tag() {
    let padding = " ".repeat(MAX_OPENING_BYTES);
    let text = format!("<event{padding}topic=\"a\">x</event>");
    assert_eq!(read_tags(&text), []);
}

#[test]
fn a_topic_ralph_emit_refuses_is_refused_with_its_reason() {
    let text = "<event topic=\"bad topic!\">x</event><event topic=\"\">y</event>\
                <event topic=\"build.*\">z</event><event topic=\"ok\">fine</event>";
    let read = read_tags(text);
    let reasons: Vec<Option<TopicError>> = read
        .iter()
        .map(|tag| match tag {
            Err(RefusedTag {
                why: Refusal::Emit(EmitError::Topic { reason, .. }),
                ..
            }) => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        [
            Some(TopicError::BadChar(' ')),
            Some(TopicError::Empty),
            Some(TopicError::Wildcard),
            None
        ]
    );
    assert_eq!(read[3], Ok(Event::with_text("ok", "fine")));
    assert_eq!(
        read[0].as_ref().map_err(|r| r.topic.as_str()),
        Err("bad topic!")
    );
}

#[test]
fn a_long_refused_topic_is_kept_cut() {
    let topic = "t".repeat(500);
    let read = read_tags(&format!("<event topic=\"{topic}\">x</event>"));
    let kept = read[0].as_ref().map(|_| ()).unwrap_err();
    assert_eq!(kept.topic, format!("{}…", "t".repeat(REFUSED_TOPIC_CHARS)));
    assert!(matches!(
        kept.why,
        Refusal::Emit(EmitError::Topic {
            reason: TopicError::TooLong(500),
            ..
        })
    ));
}

#[test]
fn a_payload_over_ralph_emits_limit_is_refused_and_one_at_it_is_taken() {
    let at_limit = "a".repeat(MAX_PAYLOAD_BYTES);
    let over = "b".repeat(MAX_PAYLOAD_BYTES + 1);
    let text =
        format!("<event topic=\"big\">{over}</event>\n<event topic=\"fits\">{at_limit}</event>");
    let read = read_tags(&text);
    assert_eq!(
        read,
        [
            Err(RefusedTag {
                topic: "big".into(),
                why: Refusal::Emit(EmitError::TooLarge {
                    len: MAX_PAYLOAD_BYTES + 1
                })
            }),
            Ok(Event::with_text("fits", at_limit))
        ]
    );
}

#[test]
fn a_payload_is_text_even_when_it_looks_like_json() {
    let text = "<event topic=\"a\">{\"n\": 1}</event>";
    assert_eq!(events(text), [Event::with_text("a", "{\"n\": 1}")]);
}

#[test]
fn a_tag_opened_inside_inline_code_is_an_example_not_an_event() {
    let text = concat!(
        "I won't send `<event topic=\"build.done\">` yet, nor ",
        "`<event topic=\"inline.code\">ic</event>` nor ``a `<event topic=\"double\">d</event>``.\n",
        "Nor across lines: `see\n<event topic=\"wrapped\">w</event>`."
    );
    assert_eq!(read_tags(text), []);
}

#[test]
fn a_real_tag_after_inline_code_elsewhere_in_the_message_still_counts() {
    let text = concat!(
        "Ran `cargo test`; the `<event topic=\"build.done\">` tag goes last.\n",
        "An unpaired ` backtick changes nothing.\n\n",
        "<event topic=\"build.done\">tests pass</event>\n"
    );
    assert_eq!(events(text), [Event::with_text("build.done", "tests pass")]);
}

#[test]
fn a_payload_may_quote_a_tag_in_inline_code() {
    // The quoted opening inside the payload neither ends the tag nor starts another.
    let text = "<event topic=\"fix.done\">fixed the `<event topic=\"x\">` parser</event>";
    assert_eq!(
        events(text),
        [Event::with_text(
            "fix.done",
            "fixed the `<event topic=\"x\">` parser"
        )]
    );
}

#[test]
fn a_tag_in_an_indented_code_block_is_an_example_not_an_event() {
    let text = concat!(
        "Print it like this:\n\n",
        "    <event topic=\"indented.code\">ind</event>\n\n",
        "\t<event topic=\"tabbed\">t</event>\n",
        "<event topic=\"real\">yes</event>\n"
    );
    assert_eq!(events(text), [Event::with_text("real", "yes")]);
}

#[test]
fn an_indented_tag_inside_a_paragraph_still_counts() {
    // Without a blank line before it, an indented line continues the paragraph.
    let text = "Done.\n    <event topic=\"x.done\">ok</event>";
    assert_eq!(events(text), [Event::with_text("x.done", "ok")]);
}

#[test]
fn a_tag_on_a_blockquote_line_is_a_quotation_not_an_event() {
    let text = concat!(
        "The instructions say:\n",
        "> <event topic=\"quoted.md\">q</event>\n",
        "   >> End with <event topic=\"nested\">n</event>\n",
        "<event topic=\"real\">yes</event>\n"
    );
    assert_eq!(events(text), [Event::with_text("real", "yes")]);
}
