use super::*;

#[test]
fn the_message_names_what_is_paused_with_ralph() {
    assert_eq!(
        pause_message(Some(Running::Gate)),
        "paused, and the gate with it; `fg` resumes both"
    );
    assert_eq!(pause_message(None), "paused; `fg` resumes");
}

#[test]
fn only_the_terminals_stop_signals_are_job_control() {
    assert_eq!(
        JOB_STOPS,
        [Signal::SIGTSTP, Signal::SIGTTIN, Signal::SIGTTOU]
    );
}
