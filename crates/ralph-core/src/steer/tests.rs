use std::os::unix::fs::symlink;
use std::time::UNIX_EPOCH;

use pretty_assertions::assert_eq;

use super::*;
use crate::fsafe;
use crate::store::{RalphDir, RunDir, TEMPORARY_PREFIX};

fn never(_: &str) -> Option<String> {
    None
}

/// The log line the shell writes when message `id` went into iteration `iteration`'s
/// prompt.
/// A book whose message `id` (`text`) iteration 1's prompt carried, and its log.
fn carried_by_iteration_1(id: &str, text: &str) -> (SteerBook, Vec<SteerLogLine>) {
    let mut book = SteerBook::new(1);
    let mut log = Vec::new();
    log.extend(book.receive(id, text, false, 1, never).1);
    assert_eq!(book.start_iteration(1).len(), 1);
    log.push(into_prompt(id, 1));
    (book, log)
}

/// An iteration's steering record where `queued` messages wait for the attempt after,
/// none carried by its prompt or delivered mid-turn.
fn only_queued(queued: u32) -> IterationSteering {
    IterationSteering {
        in_prompt: 0,
        mid_turn: 0,
        queued,
    }
}

fn into_prompt(id: &str, iteration: u32) -> SteerLogLine {
    SteerLogLine {
        at_ms: 2,
        id: id.into(),
        went: Logged::Prompt,
        iteration,
        message: None,
        to: None,
    }
}

#[test]
fn between_iterations_a_message_is_queued_for_the_next_one() {
    let mut book = SteerBook::new(3);
    let (answer, line) = book.receive("a", "use the parser", false, 7, never);
    assert_eq!(answer, SteerAnswer::Queued { iteration: 3 });
    assert_eq!(answer.to_string(), "queued for iteration 3");
    let line = line.expect("logged");
    assert_eq!(
        (line.went, line.iteration, line.at_ms),
        (Logged::Queued, 3, 7)
    );
    assert_eq!(line.message.as_deref(), Some("use the parser"));
}

#[test]
fn while_an_agent_runs_a_taker_gets_it_mid_turn_unless_next_is_asked() {
    let mut book = SteerBook::new(1);
    assert_eq!(book.start_iteration(1), vec![]);
    let (answer, line) = book.receive("a", "stop", false, 1, |m| {
        assert_eq!(m, "stop");
        Some("pi mid-turn".to_owned())
    });
    assert_eq!(
        answer,
        SteerAnswer::MidTurn {
            iteration: 1,
            to: "pi mid-turn".into()
        }
    );
    assert_eq!(answer.to_string(), "delivered to pi mid-turn");
    assert_eq!(line.expect("logged").to.as_deref(), Some("pi mid-turn"));
    let (answer, _) = book.receive("b", "later", true, 2, |_| panic!("--next never asks"));
    assert_eq!(answer, SteerAnswer::Queued { iteration: 2 });
    assert_eq!(
        book.end_iteration(2),
        IterationSteering {
            in_prompt: 0,
            mid_turn: 1,
            queued: 1
        }
    );
}

#[test]
fn a_refusing_agent_means_the_message_is_queued() {
    let mut book = SteerBook::new(1);
    book.start_iteration(1);
    let (answer, _) = book.receive("a", "m", false, 1, never);
    assert_eq!(answer, SteerAnswer::Queued { iteration: 2 });
}

#[test]
fn a_prompt_carries_the_queue_once() {
    let mut book = SteerBook::new(1);
    book.receive("a", "one", false, 1, never);
    book.receive("b", "two", false, 2, never);
    let carried = book.start_iteration(1);
    let texts: Vec<&str> = carried.iter().map(|q| q.message.as_str()).collect();
    assert_eq!(texts, vec!["one", "two"]);
    assert_eq!(book.end_iteration(2).in_prompt, 2);
    assert_eq!(book.start_iteration(2), vec![]);
    assert_eq!(
        book.tally(),
        SteerTally {
            received: 2,
            mid_turn: 0,
            in_prompt: 2,
            pending: 0
        }
    );
}

#[test]
fn a_full_queue_refuses_more_and_logs_nothing() {
    let mut book = SteerBook::new(1);
    for n in 0..MAX_QUEUED_STEERS {
        book.receive(&n.to_string(), "m", false, 1, never);
    }
    let (answer, line) = book.receive("x", "m", false, 1, never);
    assert!(matches!(answer, SteerAnswer::Refused { .. }), "{answer:?}");
    assert!(answer.to_string().contains("already wait for iteration 1"));
    assert_eq!(line, None);
    assert_eq!(book.tally().received, MAX_QUEUED_STEERS as u32);
}

#[test]
fn a_continued_run_keeps_what_no_prompt_carried_yet() {
    let (mut book, mut log) = carried_by_iteration_1("a", "carried");
    log.extend(
        book.receive("b", "mid", false, 3, |_| Some("pi mid-turn".into()))
            .1,
    );
    log.extend(book.receive("c", "waiting", false, 4, never).1);
    let mut resumed = SteerBook::resume(2, &log);
    assert_eq!(resumed.tally(), book.tally());
    let texts: Vec<String> = resumed
        .start_iteration(2)
        .into_iter()
        .map(|q| q.message)
        .collect();
    assert_eq!(texts, vec!["waiting"]);
}

#[test]
fn messages_are_checked() {
    assert!(matches!(check_message(" \n"), Err(RequestError::Empty)));
    let long = "x".repeat(MAX_STEER_MESSAGE_BYTES + 1);
    assert!(matches!(
        check_message(&long),
        Err(RequestError::TooLong(_))
    ));
    assert!(check_message("ok").is_ok());
    assert!(is_request_id("1795676400000-42-1"));
    for bad in ["", "../x", "a.b", &"x".repeat(65)] {
        assert!(!is_request_id(bad), "{bad}");
    }
}

fn run_dir() -> (tempfile::TempDir, RunDir) {
    let dir = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(dir.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    (dir, run)
}

fn request(message: &str) -> SteerRequest {
    SteerRequest {
        message: message.into(),
        next: false,
        sent_at_ms: 1,
    }
}

#[test]
fn a_request_travels_to_the_loop_and_its_answer_back() {
    let (_dir, run) = run_dir();
    assert_eq!(pending_requests(&run, 8).unwrap(), vec![]);
    send_request(&run, "2-1-1", &request("second")).unwrap();
    send_request(&run, "1-1-1", &request("first")).unwrap();
    let found = pending_requests(&run, 8).unwrap();
    let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, vec!["1-1-1", "2-1-1"]);
    assert_eq!(read_request(&found[0].1).unwrap(), request("first"));
    discard_request(&found[0].1);
    assert_eq!(pending_requests(&run, 8).unwrap().len(), 1);
    assert!(withdraw_request(&run, "2-1-1").unwrap());
    assert!(!withdraw_request(&run, "2-1-1").unwrap());

    assert_eq!(take_answer(&run, "1-1-1").unwrap(), None);
    let answer = SteerAnswer::Queued { iteration: 2 };
    write_answer(&run, "1-1-1", &answer).unwrap();
    assert_eq!(take_answer(&run, "1-1-1").unwrap(), Some(answer));
    assert_eq!(take_answer(&run, "1-1-1").unwrap(), None, "read once");
}

#[test]
fn hostile_requests_are_refused_without_blocking_or_reading_them_whole() {
    let (dir, run) = run_dir();
    send_request(&run, "0-0-0", &request("real")).unwrap();
    let requests = run.path().join(STEER_DIR).join(REQUESTS_DIR);
    let secret = dir.path().join("secret.json");
    std::fs::write(
        &secret,
        serde_json::to_vec(&request("from outside")).unwrap(),
    )
    .unwrap();
    ralph_test_support::plant_read_traps(&requests, &secret);
    std::fs::write(requests.join("4-junk.json"), b"{not json").unwrap();
    std::fs::write(requests.join("5-empty.json"), br#"{"message":"  "}"#).unwrap();
    // A temporary file as `store::replace` names one, and a name that only starts alike.
    let writing = format!("{TEMPORARY_PREFIX}0123456789abcdef");
    std::fs::write(requests.join(&writing), b"{").unwrap();
    std::fs::write(requests.join(".tmp-notes"), b"x").unwrap();
    std::fs::write(requests.join("not-a-request.txt"), b"x").unwrap();

    let found = pending_requests(&run, 16).unwrap();
    let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["0-0-0", "1-link", "2-fifo", "3-huge", "4-junk", "5-empty"]
    );
    assert_eq!(read_request(&found[0].1).unwrap().message, "real");
    for (id, path) in &found[1..] {
        let error = read_request(path).expect_err(id);
        assert!(!error.to_string().is_empty());
        discard_request(path);
    }
    assert!(secret.exists(), "a link is removed, not what it points to");
    assert_eq!(pending_requests(&run, 16).unwrap().len(), 1);
    // Junk is swept; a request being written is left to finish.
    assert!(!requests.join("not-a-request.txt").exists());
    assert!(!requests.join(".tmp-notes").exists());
    assert!(requests.join(&writing).exists());
}

#[test]
fn junk_cannot_hide_a_request() {
    let (_dir, run) = run_dir();
    send_request(&run, "0-0-0", &request("first")).unwrap();
    let requests = run.path().join(STEER_DIR).join(REQUESTS_DIR);
    for n in 0..2 * files::MAX_ENTRIES_SCANNED {
        std::fs::write(requests.join(format!("junk{n}")), b"").unwrap();
    }
    send_request(&run, "9-9-9", &request("last")).unwrap();
    let mut seen = Vec::new();
    for _ in 0..4 {
        for (id, path) in pending_requests(&run, 16).unwrap() {
            discard_request(&path);
            seen.push(id);
        }
    }
    seen.sort();
    assert_eq!(seen, vec!["0-0-0", "9-9-9"]);
}

#[test]
fn a_linked_requests_directory_is_not_listed() {
    let (dir, run) = run_dir();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("1-1-1.json"), b"{}").unwrap();
    std::fs::create_dir(run.path().join(STEER_DIR)).unwrap();
    symlink(&elsewhere, run.path().join(STEER_DIR).join(REQUESTS_DIR)).unwrap();
    assert!(pending_requests(&run, 8).is_err());
}

#[test]
fn the_log_reads_back_skipping_damage() {
    let (_dir, run) = run_dir();
    assert_eq!(read_log(&run).unwrap(), vec![]);
    let mut book = SteerBook::new(1);
    let line = book.receive("a", "m", false, 1, never).1.unwrap();
    append_log(&run, &line).unwrap();
    fsafe::append_line(&run.path().join(STEERING_FILE), b"{torn\n").unwrap();
    append_log(&run, &line).unwrap();
    assert_eq!(read_log(&run).unwrap(), vec![line.clone(), line]);
}

#[test]
fn what_a_limited_attempt_carried_is_queued_again_and_survives_continue() {
    let mut book = SteerBook::new(1);
    let mut log = Vec::new();
    log.extend(book.receive("a", "plan B", false, 1, never).1);
    assert_eq!(book.start_iteration(1).len(), 1);
    log.push(into_prompt("a", 1));
    let again = book.requeue_carried(3);
    assert_eq!(
        again
            .iter()
            .map(|l| (l.went, l.iteration))
            .collect::<Vec<_>>(),
        vec![(Logged::Requeued, 1)]
    );
    log.extend(again);
    // The iteration's record counts it as queued, not as carried by its prompt.
    assert_eq!(book.end_iteration(1), only_queued(1));
    assert_eq!(book.tally().pending, 1);
    assert_eq!(SteerBook::resume(1, &log).tally(), book.tally());
    let texts: Vec<String> = book
        .start_iteration(1)
        .into_iter()
        .map(|q| q.message)
        .collect();
    assert_eq!(texts, vec!["plan B"]);
    // Nothing to give back once the iteration has ended normally.
    book.end_iteration(2);
    assert_eq!(book.requeue_carried(4), vec![]);
}

fn taken(_: &str) -> Option<String> {
    Some("pi mid-turn".to_owned())
}

#[test]
fn a_mid_turn_message_the_agent_never_showed_it_read_goes_into_the_next_prompt() {
    let mut book = SteerBook::new(1);
    let mut log = Vec::new();
    book.start_iteration(1);
    // The agent shows its prompt, then takes "a" and "b" and reads only "a".
    assert_eq!(book.shown_user_message(), None);
    log.extend(book.receive("a", "use the parser", false, 1, taken).1);
    log.extend(book.receive("b", "then the docs", false, 2, taken).1);
    assert_eq!(book.shown_user_message().as_deref(), Some("a"));
    let unread = book.requeue_unread(3);
    assert_eq!(
        unread
            .iter()
            .map(|l| (l.id.as_str(), l.went, l.iteration, l.message.as_deref()))
            .collect::<Vec<_>>(),
        vec![("b", Logged::Unread, 1, Some("then the docs"))]
    );
    log.extend(unread);
    let done = book.end_iteration(2);
    assert_eq!((done.mid_turn, done.queued), (1, 1));
    let tally = book.tally();
    assert_eq!((tally.received, tally.mid_turn, tally.pending), (2, 1, 1));
    // `--continue` rebuilds the same queue and counts from the log.
    assert_eq!(SteerBook::resume(2, &log).tally(), tally);
    let carried: Vec<_> = book.start_iteration(2).into_iter().map(|q| q.id).collect();
    assert_eq!(carried, vec!["b"]);
    // Carried by a prompt, it is not "unread" again when that agent ends.
    book.shown_user_message();
    assert_eq!(book.requeue_unread(4), vec![]);
}

#[test]
fn an_agent_that_shows_no_user_messages_is_not_second_guessed() {
    // Claude Code shows neither its prompt nor what it read mid-turn: a message it took
    // stays delivered.
    let mut book = SteerBook::new(1);
    book.start_iteration(1);
    book.receive("a", "stop", false, 1, taken);
    assert_eq!(book.requeue_unread(2), vec![]);
    assert_eq!(book.end_iteration(2).mid_turn, 1);
    assert_eq!((book.tally().mid_turn, book.tally().pending), (1, 0));
}

#[test]
fn more_user_messages_than_were_handed_over_confirm_nothing_ahead() {
    // A user message of the agent's own (an extension's) does not count for a message
    // handed over later.
    let mut book = SteerBook::new(1);
    book.start_iteration(1);
    book.shown_user_message();
    assert_eq!(book.shown_user_message(), None);
    book.receive("a", "stop", false, 1, taken);
    assert_eq!(book.requeue_unread(2).len(), 1);
}

#[test]
fn a_mid_turn_message_read_in_a_limited_attempt_goes_into_the_next_attempts_prompt() {
    // pi read "a" mid-turn, then the next model call was refused on a rate limit: the
    // attempt after is a fresh pi, which knows "a" only if its prompt carries it.
    let (mut book, mut log) = carried_by_iteration_1("q", "plan B");
    assert_eq!(book.shown_user_message(), None);
    log.extend(book.receive("a", "hello during wait", false, 2, taken).1);
    assert_eq!(book.shown_user_message().as_deref(), Some("a"));
    assert_eq!(book.requeue_unread(3), vec![]);
    let again = book.requeue_carried(3);
    assert_eq!(
        again
            .iter()
            .map(|l| (l.id.as_str(), l.went, l.iteration, l.message.as_deref()))
            .collect::<Vec<_>>(),
        vec![
            ("q", Logged::Requeued, 1, Some("plan B")),
            ("a", Logged::Requeued, 1, Some("hello during wait")),
        ]
    );
    log.extend(again);
    // Counted as queued for the attempt after, neither carried nor delivered.
    assert_eq!(book.end_iteration(1), only_queued(2));
    let tally = book.tally();
    assert_eq!((tally.received, tally.mid_turn, tally.pending), (2, 0, 2));
    assert_eq!(SteerBook::resume(1, &log).tally(), tally);
    let texts: Vec<String> = book
        .start_iteration(1)
        .into_iter()
        .map(|q| q.message)
        .collect();
    assert_eq!(texts, vec!["plan B", "hello during wait"]);
    // Read in an attempt that ended normally, it is not given again.
    book.shown_user_message();
    book.receive("b", "later", false, 4, taken);
    book.shown_user_message();
    book.end_iteration(2);
    book.start_iteration(2);
    assert_eq!(book.requeue_carried(5), vec![]);
}
