use std::time::Duration;

use ralph_types::Invocation;

use super::*;

fn hook(on_error: OnError, suspend_mode: SuspendMode) -> HookSpec {
    HookSpec {
        name: "h".into(),
        command: Invocation::Argv(vec!["true".into()]),
        cwd: None,
        env: Vec::new(),
        timeout: Duration::from_secs(1),
        max_output_bytes: 10,
        on_error,
        suspend_mode,
        mutate: false,
    }
}

#[test]
fn warn_and_block_ignore_the_suspend_mode() {
    for mode in SuspendMode::ALL {
        assert_eq!(
            after_failure(&hook(OnError::Warn, mode), 1),
            AfterFailure::Warn
        );
        assert_eq!(
            after_failure(&hook(OnError::Block, mode), 1),
            AfterFailure::Block
        );
    }
}

#[test]
fn suspend_waits_for_resume_with_or_without_a_rerun() {
    assert_eq!(
        after_failure(&hook(OnError::Suspend, SuspendMode::WaitForResume), 1),
        AfterFailure::WaitForResume { retry: false }
    );
    assert_eq!(
        after_failure(&hook(OnError::Suspend, SuspendMode::WaitThenRetry), 7),
        AfterFailure::WaitForResume { retry: true }
    );
}

#[test]
fn retry_backoff_follows_the_schedule_then_blocks() {
    let h = hook(OnError::Suspend, SuspendMode::RetryBackoff);
    let decisions: Vec<_> = (1..=5).map(|n| after_failure(&h, n)).collect();
    assert_eq!(
        decisions,
        [
            AfterFailure::Retry {
                delay: RETRY_BACKOFF[0]
            },
            AfterFailure::Retry {
                delay: RETRY_BACKOFF[1]
            },
            AfterFailure::Retry {
                delay: RETRY_BACKOFF[2]
            },
            AfterFailure::Block,
            AfterFailure::Block,
        ]
    );
    assert!(RETRY_BACKOFF.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn only_exit_code_zero_passes() {
    use ralph_types::Termination as T;
    assert_eq!(failure_of(&T::Exited { code: 0 }), None);
    assert_eq!(failure_of(&T::Exited { code: 3 }), Some(HookFailure::Exit));
    assert_eq!(failure_of(&T::WallClockTimeout), Some(HookFailure::Timeout));
    assert_eq!(failure_of(&T::Interrupted), Some(HookFailure::Interrupted));
    assert_eq!(
        failure_of(&T::Signaled { signal: 9 }),
        Some(HookFailure::Signal)
    );
}
