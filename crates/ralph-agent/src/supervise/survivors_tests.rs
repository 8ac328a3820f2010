use super::*;

fn survivors(count: i32) -> Survivors {
    Survivors {
        program: "sh".into(),
        processes: (1..=count).map(|i| (100 + i, format!("p{i}"))).collect(),
    }
}

#[test]
fn survivors_are_named_with_their_pids_and_the_rest_counted() {
    assert_eq!(
        survivors(1).to_string(),
        "1 process that `sh` started did not stop even on SIGKILL and still runs: \
         pid 101 (p1); stop them with `kill -9 <pid>` once they can be stopped"
    );
    let many = survivors(SURVIVORS_NAMED as i32 + 2).to_string();
    assert!(
        many.starts_with("7 processes that `sh` started did not stop even on SIGKILL and still run: pid 101 (p1), pid 102 (p2),"),
        "{many}"
    );
    assert!(many.contains("pid 105 (p5) and 2 more;"), "{many}");
}

#[test]
fn a_survivor_whose_name_is_unknown_is_named_by_its_pid() {
    let unnamed = Survivors {
        program: "gate".into(),
        processes: vec![(7, String::new())],
    };
    assert!(unnamed.to_string().contains("still runs: pid 7;"));
}
