use std::sync::Arc;
use std::time::{Duration, Instant, UNIX_EPOCH};

use pretty_assertions::assert_eq;
use ralph_core::steer::{SteerRequest, send_request, take_answer};
use ralph_core::store::RalphDir;

use super::*;
use crate::run::steer_target::SteerTarget;

/// A target that records what it was handed, or refuses everything.
struct Target {
    takes: bool,
    got: Mutex<Vec<String>>,
}

impl SteerTarget for Target {
    fn deliver(&self, message: &str) -> Result<String, ()> {
        if !self.takes {
            return Err(());
        }
        lock(&self.got).push(message.to_owned());
        Ok("test agent mid-turn".to_owned())
    }
}

/// Every run event observed, as JSON.
#[derive(Default)]
struct Seen(Vec<serde_json::Value>);

impl Observer for Seen {
    fn observe(&mut self, event: &RunEvent<'_>) {
        self.0.push(serde_json::to_value(event).expect("JSON"));
    }
}

/// Sends `message` and waits (well past one poll) for the watcher's answer.
fn steer(run: &RunDir, id: &str, message: &str, next: bool) -> SteerAnswer {
    let request = SteerRequest {
        message: message.into(),
        next,
        sent_at_ms: 0,
    };
    send_request(run, id, &request).expect("request");
    let deadline = Instant::now() + ANSWER_WAIT;
    loop {
        if let Some(answer) = take_answer(run, id).expect("answer") {
            return answer;
        }
        assert!(Instant::now() < deadline, "no answer to {id}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A new run in a workspace of its own, with its steering watched from iteration 1.
fn watched_run() -> (tempfile::TempDir, RunDir, Steering) {
    let dir = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(dir.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    let steering = Steering::start(&run, 1);
    (dir, run, steering)
}

fn types(seen: &Seen) -> Vec<&str> {
    seen.0.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

#[test]
fn a_target_in_the_slot_takes_messages_mid_turn_and_a_refusing_one_means_queued() {
    let (_dir, run, mut steering) = watched_run();
    let mut seen = Seen::default();
    assert_eq!(steering.start_iteration(1, &mut seen), Vec::<String>::new());
    let taker = Arc::new(Target {
        takes: true,
        got: Mutex::new(Vec::new()),
    });
    steering.slot().set(taker.clone());
    assert_eq!(
        steer(&run, "1-1-1", "look at src/p.rs", false),
        SteerAnswer::MidTurn {
            iteration: 1,
            to: "test agent mid-turn".into()
        }
    );
    assert_eq!(*lock(&taker.got), vec!["look at src/p.rs".to_owned()]);
    assert_eq!(
        steer(&run, "1-1-2", "after this turn", true),
        SteerAnswer::Queued { iteration: 2 },
        "--next never goes to the agent"
    );
    steering.slot().set(Arc::new(Target {
        takes: false,
        got: Mutex::new(Vec::new()),
    }));
    assert_eq!(
        steer(&run, "1-1-3", "refused by the agent", false),
        SteerAnswer::Queued { iteration: 2 }
    );
    steering.slot().clear();
    steering.news().report(&mut |event| seen.observe(event));
    assert_eq!(
        types(&seen),
        vec![
            "steer_received",
            "steer_delivered",
            "steer_received",
            "steer_received"
        ]
    );
    assert_eq!(seen.0[1]["via"], "mid_turn");
    assert_eq!(seen.0[1]["to"], "test agent mid-turn");
    assert_eq!(seen.0[2]["went"], "queued for iteration 2");
    assert_eq!(
        steering.end_iteration(2),
        IterationSteering {
            in_prompt: 0,
            mid_turn: 1,
            queued: 2
        }
    );

    let mut seen = Seen::default();
    let carried = steering.start_iteration(2, &mut seen);
    assert_eq!(carried, vec!["after this turn", "refused by the agent"]);
    assert_eq!(types(&seen), vec!["steer_delivered", "steer_delivered"]);
    assert_eq!(seen.0[0]["via"], "prompt");
    // The record says it all, in order.
    let log = read_log(&run).unwrap();
    let went: Vec<(Logged, u32)> = log.iter().map(|l| (l.went, l.iteration)).collect();
    assert_eq!(
        went,
        vec![
            (Logged::MidTurn, 1),
            (Logged::Queued, 2),
            (Logged::Queued, 2),
            (Logged::Prompt, 2),
            (Logged::Prompt, 2)
        ]
    );

    // Once the loop is finishing, a message is refused, not queued for nothing.
    send_request(
        &run,
        "9-9-9",
        &SteerRequest {
            message: "too late".into(),
            next: false,
            sent_at_ms: 0,
        },
    )
    .unwrap();
    steering.stop_watching();
    steering.finish(&mut |_| {});
    assert!(matches!(
        take_answer(&run, "9-9-9").unwrap(),
        Some(SteerAnswer::Refused { .. })
    ));
    assert_eq!(steering.tally().received, 3);
}

#[test]
fn a_continued_run_picks_up_what_was_queued() {
    let dir = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(dir.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    {
        let _steering = Steering::start(&run, 1);
        assert_eq!(
            steer(&run, "1-1-1", "keep this", false),
            SteerAnswer::Queued { iteration: 1 }
        );
    }
    let steering = Steering::start(&run, 1);
    let carried = steering.start_iteration(1, &mut Seen::default());
    assert_eq!(carried, vec!["keep this"]);
    drop(steering);
    let steering = Steering::start(&run, 2);
    assert_eq!(
        steering.start_iteration(2, &mut Seen::default()),
        Vec::<String>::new(),
        "consumed once"
    );
}

#[test]
fn what_a_prompt_that_could_not_start_carried_is_queued_again_with_a_notice() {
    let (_dir, run, mut steering) = watched_run();
    let mut seen = Seen::default();
    steering.start_iteration(1, &mut seen);
    assert_eq!(
        steer(&run, "1-1-1", "use the staging database", true),
        SteerAnswer::Queued { iteration: 2 }
    );
    steering.end_iteration(2);
    let mut seen = Seen::default();
    assert_eq!(
        steering.start_iteration(2, &mut seen),
        vec!["use the staging database"]
    );
    // Iteration 2's agent could not be started with the prompt that carried it.
    let mut seen = Seen::default();
    steering.not_started(&mut seen);
    assert_eq!(types(&seen), vec!["notice"]);
    assert_eq!(seen.0[0]["notice"], "steer_requeued");
    assert_eq!(seen.0[0]["id"], "1-1-1");
    assert_eq!(seen.0[0]["iteration"], 2);
    assert_eq!(
        steering.end_iteration(3),
        IterationSteering {
            in_prompt: 0,
            mid_turn: 0,
            queued: 1
        }
    );
    assert_eq!(
        steering.start_iteration(3, &mut Seen::default()),
        vec!["use the staging database"],
        "the next prompt carries it again"
    );
    let went: Vec<(Logged, u32)> = read_log(&run)
        .unwrap()
        .iter()
        .map(|l| (l.went, l.iteration))
        .collect();
    assert_eq!(
        went,
        vec![
            (Logged::Queued, 2),
            (Logged::Prompt, 2),
            (Logged::Requeued, 2),
            (Logged::Prompt, 3)
        ]
    );
    steering.finish(&mut |_| {});
}

/// The watcher hands a message to the agent as its turn ends, and notes it for the loop;
/// the loop is already past its last report of the turn and finds the message unread.
/// The run's events must still say it was received before they say it was not read.
#[test]
fn a_message_handed_over_as_the_turn_ends_is_reported_received_before_unread() {
    let (_dir, run, mut steering) = watched_run();
    steering.start_iteration(1, &mut Seen::default());
    // The agent showed its prompt: what it shows after that is what it read.
    steering.shown_user_message();
    steering.slot().set(Arc::new(Target {
        takes: true,
        got: Mutex::new(Vec::new()),
    }));
    // Answered: the watcher took it, and its note waits for the loop's next report.
    assert_eq!(
        steer(&run, "1-1-1", "one more thing", false),
        SteerAnswer::MidTurn {
            iteration: 1,
            to: "test agent mid-turn".into()
        }
    );
    steering.slot().clear();
    let mut seen = Seen::default();
    steering.after_agent(&IterationOutcome::Succeeded, &mut seen);
    assert_eq!(
        types(&seen),
        vec!["steer_received", "steer_delivered", "notice"]
    );
    assert_eq!(seen.0[2]["notice"], "steer_unread");
    assert_eq!(seen.0[2]["id"], seen.0[0]["id"]);
    steering.finish(&mut |_| {});
}
