//! Every exit code against the example Kubernetes Job's `podFailurePolicy`
//! (docs/examples/kubernetes/ralph-job.yaml): what the cluster does with a pod that ended
//! with it.

use serde_json::Value;

use super::*;

/// Every outcome; [`policy_for`]'s match makes a new one a compile error there.
const ALL: [CommandOutcome; 4] = [
    CommandOutcome::Success,
    CommandOutcome::Failed,
    CommandOutcome::LimitReached,
    CommandOutcome::Interrupted,
];

/// What the Job promises for each outcome (`None`: the pod succeeded, no rule applies).
fn policy_for(outcome: CommandOutcome) -> Option<&'static str> {
    match outcome {
        CommandOutcome::Success => None,
        // The same task would fail or hit the same limit again: the index fails.
        CommandOutcome::Failed | CommandOutcome::LimitReached => Some("FailIndex"),
        // Stopped with its state saved: tried again (counted), and the try continues it.
        CommandOutcome::Interrupted => Some("Count"),
    }
}

/// The action of the first rule whose `onExitCodes` matches `code`, as the Job
/// controller picks it; rules on pod conditions say nothing about exit codes.
fn first_matching(rules: &[Value], code: u8) -> Option<String> {
    rules.iter().find_map(|rule| {
        let on = rule.get("onExitCodes")?;
        let listed = on["values"]
            .as_array()?
            .iter()
            .any(|v| v.as_u64() == Some(u64::from(code)));
        let matches = match on["operator"].as_str()? {
            "In" => listed,
            "NotIn" => !listed,
            _ => false,
        };
        matches.then(|| rule["action"].as_str().unwrap_or_default().to_owned())
    })
}

#[test]
fn every_exit_code_gets_the_failure_policy_action_the_job_promises() {
    let manifest = include_str!("../../../docs/examples/kubernetes/ralph-job.yaml");
    let job: Value = serde_saphyr::from_str(manifest).expect("the Job is YAML");
    let rules = job["spec"]["podFailurePolicy"]["rules"]
        .as_array()
        .expect("rules");
    let table: Vec<(u8, Option<String>)> = ALL
        .iter()
        .map(|&outcome| {
            let code = number(outcome);
            // A pod that exited 0 succeeded: the policy is never asked.
            let action = (code != 0).then(|| first_matching(rules, code)).flatten();
            (code, action)
        })
        .collect();
    let want: Vec<(u8, Option<String>)> = ALL
        .iter()
        .map(|&o| (number(o), policy_for(o).map(str::to_owned)))
        .collect();
    assert_eq!(table, want);
    assert_eq!(
        want.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
        [0, 1, 2, 130]
    );
}
