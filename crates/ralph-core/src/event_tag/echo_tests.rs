use super::*;
use crate::event::Event;
use crate::event_tag::read_tags;

const INSTRUCTIONS: &str = "You are the builder. End your answer with \
                            <event topic=\"build.done\">what you built</event>\n";

fn in_prompt(topic: &str) -> Tag {
    Err(RefusedTag {
        topic: topic.into(),
        why: Refusal::InPrompt,
    })
}

#[test]
fn a_prompt_printed_back_publishes_nothing() {
    let prompt = format!("## Task\n\nBuild it.\n\n## Your role\n\n{INSTRUCTIONS}");
    // `cat`: the output is the prompt, less its last line break.
    assert_eq!(
        read_tags_past_prompt(prompt.trim_end(), &prompt),
        [in_prompt("build.done")]
    );
    // A wrapper that logs its command line first (`set -x`).
    let logged = format!("+ agent '{}'\nworking…\n", prompt.trim_end());
    assert_eq!(
        read_tags_past_prompt(&logged, &prompt),
        [in_prompt("build.done")]
    );
}

#[test]
fn a_tag_of_the_agents_own_after_the_echo_is_read() {
    let output = format!(
        "{INSTRUCTIONS}\nBuilt the parser.\n<event topic=\"build.done\">the parser</event>\n"
    );
    assert_eq!(
        read_tags_past_prompt(&output, INSTRUCTIONS),
        [
            in_prompt("build.done"),
            Ok(Event::with_text("build.done", "the parser"))
        ]
    );
}

#[test]
fn the_example_written_again_after_the_echo_is_the_agents() {
    // The prompt holds the tag once: the second copy is more than an echo accounts for.
    let output = format!("{INSTRUCTIONS}Done.\n<event topic=\"build.done\">what you built</event>");
    assert_eq!(
        read_tags_past_prompt(&output, INSTRUCTIONS),
        [
            in_prompt("build.done"),
            Ok(Event::with_text("build.done", "what you built"))
        ]
    );
}

#[test]
fn a_tag_the_prompt_only_quotes_is_not_taken_for_an_echo() {
    // In the prompt the example sits in a code block, so it was never read there: the
    // agent's copy outside one is its own.
    let prompt = "End with:\n```\n<event topic=\"review.done\">ok</event>\n```\n";
    let output = "Looks good.\n<event topic=\"review.done\">ok</event>";
    assert_eq!(
        read_tags_past_prompt(output, prompt),
        [Ok(Event::with_text("review.done", "ok"))]
    );
}

#[test]
fn without_a_tag_in_the_prompt_every_tag_is_read_as_before() {
    let output = "<event topic=\"a\">1</event> <event topic=\"b topic\">2</event>";
    assert_eq!(
        read_tags_past_prompt(output, "No tags here."),
        read_tags(output)
    );
}
