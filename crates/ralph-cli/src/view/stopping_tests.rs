use super::*;

#[test]
fn the_message_names_what_is_stopped_or_says_the_loop_just_ends() {
    let said = |level, what| stop_message(level, what, "again: kill");
    assert_eq!(
        said(StopLevel::Graceful, Some(Running::Agent)).as_deref(),
        Some("stopping the agent and ending the loop (again: kill)")
    );
    assert_eq!(
        said(StopLevel::Graceful, Some(Running::Gate)).as_deref(),
        Some("stopping the gate and ending the loop (again: kill)")
    );
    assert_eq!(
        said(StopLevel::Immediate, Some(Running::Hook)).as_deref(),
        Some("killing the hook now")
    );
    // A wait, or the loop between its steps: nothing to stop, nothing to kill.
    assert_eq!(
        said(StopLevel::Graceful, None).as_deref(),
        Some("ending the loop")
    );
    assert_eq!(said(StopLevel::Immediate, None), None);
    assert_eq!(said(StopLevel::None, Some(Running::Agent)), None);
}
