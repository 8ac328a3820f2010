use super::*;

/// The quoted parts of `text`.
fn quoted(text: &str) -> Vec<&str> {
    Quotes::of(text)
        .spans
        .iter()
        .map(|span| &text[span.clone()])
        .collect()
}

#[test]
fn a_code_span_ends_at_the_next_run_of_as_many_backticks() {
    assert_eq!(quoted("a `b` c ``d ` e`` f"), ["`b`", "``d ` e``"]);
}

#[test]
fn a_run_with_no_partner_is_text_and_the_runs_after_it_still_pair() {
    assert_eq!(quoted("a `` b `c` d"), ["`c`"]);
    assert_eq!(quoted("it's ` alone"), Vec::<&str>::new());
}

#[test]
fn a_code_span_crosses_lines_but_not_a_blank_line() {
    assert_eq!(quoted("a `b\nc` d"), ["`b\nc`"]);
    assert_eq!(quoted("a `b\n\nc` d"), Vec::<&str>::new());
}

#[test]
fn a_code_span_does_not_reach_into_a_fenced_block() {
    assert_eq!(quoted("a ` b\n```\nx ` y\n```\n"), ["```\nx ` y\n```\n"]);
}

#[test]
fn an_indented_block_starts_after_a_blank_line_a_heading_or_at_the_start() {
    assert_eq!(quoted("    code\ntext"), ["    code\n"]);
    assert_eq!(
        quoted("text\n\n    code\n\n    more\nafter"),
        ["    code\n\n    more\n"]
    );
    assert_eq!(quoted("# Title\n    code\n"), ["    code\n"]);
    assert_eq!(quoted("\tcode\n"), ["\tcode\n"]);
}

#[test]
fn an_indented_line_inside_a_paragraph_continues_it() {
    assert_eq!(quoted("text\n    still text\n"), Vec::<&str>::new());
}

#[test]
fn a_blockquote_line_is_quoted_and_the_next_plain_line_is_not() {
    assert_eq!(quoted("a\n > b\nc\n"), [" > b\n"]);
}

#[test]
fn backticks_followed_by_a_backtick_on_the_line_are_a_code_span_not_a_fence() {
    assert_eq!(quoted("```a`b```\nrest"), ["```a`b```"]);
}
