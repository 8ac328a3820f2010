use super::*;
use crate::machine::StreamCap;

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

#[test]
fn undelivered_steering_says_how_many_for_which_iteration_and_whether_continue_carries_them() {
    let undelivered = |ids: &[&str], kept| {
        Notice::SteerUndelivered {
            ids: ids.iter().map(|&id| id.to_owned()).collect(),
            queued_for: 2,
            kept,
        }
        .to_string()
    };
    assert_eq!(
        undelivered(&["s-1"], false),
        "1 steering message queued for iteration 2 was not delivered: the loop ended before \
         that iteration; the run completed, so no prompt will carry it"
    );
    assert_eq!(
        undelivered(&["s-1", "s-2"], true),
        "2 steering messages queued for iteration 2 were not delivered: the loop ended before \
         that iteration; `ralph run --continue` carries them in its first prompt"
    );
}

#[test]
fn a_cut_output_says_the_bytes_kept_not_a_size_rounded_down() {
    let said = |kept_bytes| {
        Notice::AgentOutputCut {
            kept_bytes,
            cap: StreamCap::Iteration,
        }
        .to_string()
    };
    assert!(
        said(16_777_118).contains("(16777118 bytes of record kept)"),
        "{}",
        said(16_777_118)
    );
    // Under 1 MiB kept (a first line longer than the cap, before it was cut to fit) once
    // read "reached 0 MiB".
    assert!(!said(1000).contains("0 MiB"), "{}", said(1000));
    assert!(said(1000).contains("1000 bytes"), "{}", said(1000));
}

/// A cut by the run's cap says so, and that later iterations keep only their start; one
/// read back from an older record (no `cap`) was the iteration's.
#[test]
fn a_cut_says_which_cap_made_it() {
    let cut = |cap| Notice::AgentOutputCut {
        kept_bytes: 65_536,
        cap,
    };
    let by_run = cut(StreamCap::Run).to_string();
    assert!(by_run.contains("in this run reached"), "{by_run}");
    assert!(
        by_run.contains("each later iteration keeps only its start"),
        "{by_run}"
    );
    let by_iteration = cut(StreamCap::Iteration).to_string();
    assert!(by_iteration.contains("of one iteration"), "{by_iteration}");
    let left_out = Notice::AgentOutputLeftOut {
        lines: 3,
        bytes: 30,
        cap: StreamCap::Run,
    };
    assert!(
        left_out.to_string().contains("of the whole run"),
        "{left_out}"
    );

    let json = serde_json::to_value(cut(StreamCap::Run)).unwrap();
    assert_eq!(json["cap"], "run");
    let old: Notice =
        serde_json::from_str(r#"{"notice":"agent_output_cut","kept_bytes":10}"#).unwrap();
    let want = Notice::AgentOutputCut {
        kept_bytes: 10,
        cap: StreamCap::Iteration,
    };
    assert_eq!(old, want);
}

/// One line over the cap is left out whole: "1 line", not "1 lines".
#[test]
fn a_single_line_left_out_reads_singular() {
    let left_out = Notice::AgentOutputLeftOut {
        lines: 1,
        bytes: 1,
        cap: StreamCap::Iteration,
    }
    .to_string();
    assert!(
        left_out.starts_with("left out 1 line (1 byte) of"),
        "{left_out}"
    );
}
