use super::*;

#[test]
fn a_message_says_where_it_went_and_is_counted_at_the_end() {
    let mut view = SteerCount::default();
    let mut out = String::new();
    view.render(
        &RunEvent::SteerReceived {
            iteration: 2,
            id: "i",
            message: "reuse\n  the parser",
            queued: true,
            went: "queued for iteration 2",
        },
        Detail::Normal,
        &mut out,
    );
    let delivered = RunEvent::SteerDelivered {
        iteration: 2,
        id: "i",
        via: SteerVia::Prompt,
        to: "prompt",
    };
    view.render(&delivered, Detail::Normal, &mut out);
    let plain = |s: &str| anstream::adapter::strip_str(s).to_string();
    assert_eq!(
        plain(&out),
        "✉ steer “reuse the parser” → queued for iteration 2\n"
    );
    view.render(&delivered, Detail::Verbose, &mut out);
    assert!(plain(&out).ends_with("into the prompt of iteration 2\n"));
    let mut closing = String::new();
    view.closing(&mut closing);
    assert_eq!(
        plain(&closing),
        "  steering: 1 message (the run's steering.jsonl has them)\n"
    );
}
