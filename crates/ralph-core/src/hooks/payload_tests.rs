use serde_json::json;

use super::*;
use crate::machine::LoopState;

fn input<'a>(metadata: &'a Metadata, events: &'a [Event]) -> PayloadInput<'a> {
    PayloadInput {
        phase: HookPhase::PreIterationStart,
        run_id: "20260228T214700Z",
        workspace: "/w",
        pid: 42,
        timestamp_ms: 1_772_315_220_123,
        iteration: 3,
        max_iterations: 10,
        hat: Some("builder"),
        backend: Some("pi"),
        events,
        totals: Totals::of(&LoopState::default()),
        stop: None,
        metadata,
    }
}

#[test]
fn the_payload_has_the_incumbents_fields_and_ralphs() {
    let mut metadata = Metadata::new();
    metadata.insert("risk".into(), json!(0.7));
    let events = [Event {
        topic: "step.ready".into(),
        payload: Some(json!("do it")),
        to: None,
    }];
    let v = build(&input(&metadata, &events));
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["phase"], "pre");
    assert_eq!(v["event"], "iteration.start");
    assert_eq!(v["phase_event"], "pre.iteration.start");
    assert_eq!(v["timestamp"], "2026-02-28T21:47:00.123Z");
    assert_eq!(v["loop"]["id"], "20260228T214700Z");
    assert_eq!(v["loop"]["workspace"], "/w");
    assert_eq!(v["loop"]["pid"], 42);
    assert_eq!(v["iteration"], json!({"current": 3, "max": 10}));
    assert_eq!(v["context"]["active_hat"], "builder");
    assert_eq!(v["context"]["termination_reason"], json!(null));
    assert_eq!(v["metadata"]["accumulated"], json!({"risk": 0.7}));
    assert_eq!(v["run_id"], "20260228T214700Z");
    assert_eq!(v["backend"], "pi");
    assert_eq!(
        v["events"],
        json!([{"topic": "step.ready", "payload": "do it"}])
    );
    assert_eq!(v["totals"]["iterations"], 0);
    assert_eq!(v["stop"], json!(null));
}

#[test]
fn the_end_of_the_loop_says_why() {
    let metadata = Metadata::new();
    let stop = StopReason::MaxIterations { limit: 2 };
    let mut i = input(&metadata, &[]);
    i.phase = HookPhase::PostLoopError;
    i.hat = None;
    i.stop = Some(&stop);
    let v = build(&i);
    assert_eq!(v["phase_event"], "post.loop.error");
    assert_eq!(v["context"]["active_hat"], NO_HAT);
    assert_eq!(v["context"]["termination_reason"], "max_iterations");
    assert_eq!(v["stop"]["reason"], "max_iterations");
    assert_eq!(v["stop"]["outcome"], "limit_reached");
}
