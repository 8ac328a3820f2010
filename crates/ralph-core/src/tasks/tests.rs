use std::time::{Duration, UNIX_EPOCH};

use pretty_assertions::assert_eq;

use super::*;

const SAMPLE: &str = include_str!("../../tests/fixtures/incumbent_tasks.jsonl");

fn task(id: &str, title: &str, priority: u8, created: &str) -> Task {
    Task {
        priority,
        ..Task::new(id.into(), title.into(), created.into())
    }
}

#[test]
fn reads_ralph_orchestrators_file_and_writes_it_back_byte_for_byte() {
    let list = TaskList::parse(SAMPLE.as_bytes());
    let titles: Vec<(&str, TaskStatus)> =
        list.tasks().map(|t| (t.title.as_str(), t.status)).collect();
    assert_eq!(
        titles,
        [
            ("Write the parser", TaskStatus::Closed),
            ("Test it", TaskStatus::Open),
            ("Docs", TaskStatus::Open),
        ]
    );
    assert_eq!(String::from_utf8(list.render()).unwrap(), SAMPLE);
    // Changing the last task rewrites its line only.
    let mut changed = list.clone();
    changed
        .start("887a", "2026-11-26T03:00:00.000000000+00:00")
        .unwrap();
    let text = String::from_utf8(changed.render()).unwrap();
    let (old, new): (Vec<&str>, Vec<&str>) = (SAMPLE.lines().collect(), text.lines().collect());
    assert_eq!((&old[..2], old[2] == new[2]), (&new[..2], false));
    // `ready` as ralph-orchestrator answers it: the blocker is closed.
    let ready: Vec<&str> = list.ready().iter().map(|t| t.title.as_str()).collect();
    assert_eq!(ready, ["Test it", "Docs"]);
}

#[test]
fn unknown_fields_and_damaged_lines_survive_a_rewrite() {
    let text = b"{\"id\":\"task-1-aaaa\",\"title\":\"A\",\"status\":\"open\",\"priority\":2,\"blocked_by\":[],\"created\":\"c\",\"owner\":\"bob\"}\nnot json \xff\n{\"id\":\"task-2-bbbb\"}\n";
    let mut list = TaskList::parse(text);
    assert_eq!(
        list.damaged().iter().map(|d| d.line).collect::<Vec<_>>(),
        [2, 3]
    );
    list.close("aaaa", "now").unwrap();
    let rendered = list.render();
    assert!(rendered.windows(10).any(|w| w == b"not json \xff"));
    let again = TaskList::parse(&rendered);
    assert_eq!(
        again.find("task-1-aaaa").unwrap().status,
        TaskStatus::Closed
    );
    let first = rendered.split(|b| *b == b'\n').next().unwrap();
    let fields: serde_json::Value = serde_json::from_slice(first).unwrap();
    assert_eq!(
        fields["owner"], "bob",
        "a field ralph does not know survives the change"
    );
    assert!(first.ends_with(b",\"owner\":\"bob\"}"));
    assert_eq!(again.damaged().len(), 2);
}

#[test]
fn ids_match_whole_by_prefix_or_by_suffix_and_say_when_ambiguous() {
    let mut list = TaskList::default();
    list.add(task("task-10-abcd", "one", 3, "1")).unwrap();
    list.add(task("task-11-abce", "two", 3, "2")).unwrap();
    assert_eq!(list.find("abcd").unwrap().title, "one");
    assert_eq!(list.find("task-11").unwrap().title, "two");
    assert!(matches!(
        list.find("task-1"),
        Err(TaskError::Ambiguous { .. })
    ));
    assert!(matches!(list.find("zzzz"), Err(TaskError::NotFound { .. })));
}

#[test]
fn ready_is_open_and_unblocked_most_urgent_first() {
    let mut list = TaskList::default();
    let a = list.add(task("task-1-a", "later", 4, "1")).unwrap();
    let b = list.add(task("task-1-b", "urgent", 1, "2")).unwrap();
    let blocked = Task {
        blocked_by: vec![b.clone()],
        ..task("task-1-c", "after urgent", 1, "0")
    };
    list.add(blocked).unwrap();
    list.add(task("task-1-d", "same urgency, newer", 1, "3"))
        .unwrap();
    let titles = |l: &TaskList| {
        l.ready()
            .iter()
            .map(|t| t.title.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(titles(&list), ["urgent", "same urgency, newer", "later"]);
    list.start(&b, "t").unwrap();
    assert_eq!(
        titles(&list),
        ["same urgency, newer", "later"],
        "in progress is not ready"
    );
    list.close(&b, "t").unwrap();
    assert_eq!(
        titles(&list),
        ["after urgent", "same urgency, newer", "later"]
    );
    assert_eq!(list.find(&a).unwrap().status, TaskStatus::Open);
}

#[test]
fn status_changes_stamp_times_and_refuse_what_makes_no_sense() {
    let mut list = TaskList::default();
    let id = list.add(task("task-1-a", "t", 3, "c")).unwrap();
    list.start(&id, "s1").unwrap();
    list.start(&id, "s2").unwrap();
    assert_eq!(list.find(&id).unwrap().started.as_deref(), Some("s1"));
    list.close(&id, "c1").unwrap();
    list.close(&id, "c2").unwrap();
    assert_eq!(list.find(&id).unwrap().closed.as_deref(), Some("c1"));
    assert!(matches!(
        list.start(&id, "x"),
        Err(TaskError::Transition { .. })
    ));
    assert!(matches!(
        list.fail(&id, "x"),
        Err(TaskError::Transition { .. })
    ));
    list.reopen(&id).unwrap();
    assert_eq!(
        (
            list.find(&id).unwrap().status,
            list.find(&id).unwrap().closed.clone()
        ),
        (TaskStatus::Open, None)
    );
    list.fail(&id, "f").unwrap();
    assert_eq!(list.find(&id).unwrap().status, TaskStatus::Failed);
}

#[test]
fn bad_input_is_refused_with_what_to_do() {
    let mut list = TaskList::default();
    assert_eq!(
        list.add(task("t-1", " ", 3, "c")),
        Err(TaskError::EmptyTitle)
    );
    assert_eq!(
        list.add(task("t-1", "x", 9, "c")),
        Err(TaskError::Priority(9))
    );
    let blocked = Task {
        blocked_by: vec!["nope".into()],
        ..task("t-1", "x", 3, "c")
    };
    assert!(matches!(list.add(blocked), Err(TaskError::NotFound { .. })));
    assert!(list.tasks().next().is_none(), "nothing was added");
}

#[test]
fn a_key_names_one_task_whatever_its_status() {
    let keyed = |id: &str| Task {
        key: Some("k1".into()),
        ..task(id, "x", 3, "c")
    };
    let mut list = TaskList::default();
    list.add(keyed("t-1")).unwrap();
    list.close("t-1", "now").unwrap();
    assert_eq!(
        list.add(keyed("t-2")),
        Err(TaskError::KeyTaken {
            key: "k1".into(),
            id: "t-1".into(),
            status: "closed",
        })
    );
    assert_eq!(list.tasks().count(), 1, "nothing was added");
    assert_eq!(list.find("k1").unwrap().id, "t-1");
    // A list written before keys were checked may hold two: the key names neither.
    let two = TaskList::parse(
        b"{\"id\":\"t-1\",\"title\":\"a\",\"key\":\"k1\",\"status\":\"open\",\"priority\":3,\"blocked_by\":[],\"created\":\"c\"}\n\
          {\"id\":\"t-2\",\"title\":\"b\",\"key\":\"k1\",\"status\":\"open\",\"priority\":3,\"blocked_by\":[],\"created\":\"c\"}\n",
    );
    assert_eq!(
        two.find("k1"),
        Err(TaskError::SharedKey {
            key: "k1".into(),
            ids: vec!["t-1".into(), "t-2".into()],
        })
    );
    assert_eq!(two.find("t-2").unwrap().title, "b");
}

#[test]
fn the_runs_unfinished_tasks_include_unowned_ones_but_not_other_runs() {
    let mut list = TaskList::default();
    let mine = Task {
        loop_id: Some("run-1".into()),
        ..task("task-1-a", "mine", 3, "1")
    };
    let other = Task {
        loop_id: Some("run-0".into()),
        ..task("task-1-b", "old run", 3, "2")
    };
    list.add(mine).unwrap();
    list.add(other).unwrap();
    let person = list.add(task("task-1-c", "a person's", 3, "3")).unwrap();
    list.add(task("task-1-d", "done", 3, "4")).unwrap();
    list.close("task-1-d", "t").unwrap();
    let open: Vec<&str> = list
        .unfinished_of_run("run-1")
        .iter()
        .map(|t| t.title.as_str())
        .collect();
    assert_eq!(open, ["mine", "a person's"]);
    list.start(&person, "t").unwrap();
    assert_eq!(
        list.unfinished_of_run("run-1").len(),
        2,
        "in progress is unfinished"
    );
}

#[test]
fn ids_made_at_once_differ_and_have_the_incumbents_form() {
    let now = UNIX_EPOCH + Duration::from_secs(1_795_660_762);
    // 2,000 random ids of 16 bits share about 30 values (the birthday bound), rarely
    // more than 60.
    let ids: std::collections::BTreeSet<String> = (0..2000).map(|_| new_task_id(now)).collect();
    assert!(ids.len() > 1940, "{}", ids.len());
    let id = ids.iter().next().unwrap();
    assert!(id.starts_with("task-1795660762-") && id.len() == "task-1795660762-921a".len());
}

#[test]
fn update_writes_under_the_lock_and_keeps_the_file_on_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = tasks_path(dir.path());
    let id = update(&path, |list| list.add(task("task-1-a", "first", 3, "c"))).unwrap();
    assert!(dir.path().join(".ralph/agent/tasks.jsonl.lock").exists());
    let before = std::fs::read(&path).unwrap();
    let failed = update(&path, |list| list.start("nope", "t"));
    assert!(matches!(
        failed,
        Err(UpdateError::Task(TaskError::NotFound { .. }))
    ));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                update(&path, |list| {
                    list.add(task(&format!("task-2-{i}"), "t", 3, "c"))
                })
                .unwrap()
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(read(&path).unwrap().tasks().count(), 9);
    assert_eq!(read(&path).unwrap().find(&id).unwrap().title, "first");
}

#[test]
fn a_blocker_no_longer_in_the_list_blocks_nothing_and_crlf_lines_read() {
    let list = TaskList::parse(
        b"{\"id\":\"task-1-a\",\"title\":\"waits for a gone task\",\"status\":\"open\",\
          \"blocked_by\":[\"task-gone\"],\"created\":\"1\"}\r\n\
          {\"id\":\"task-1-b\",\"title\":\"waits for a\",\"status\":\"open\",\
          \"blocked_by\":[\"task-1-a\"],\"created\":\"2\"}\n\n  \n",
    );
    assert_eq!(list.damaged(), []);
    let ready: Vec<&str> = list.ready().iter().map(|t| t.title.as_str()).collect();
    assert_eq!(ready, ["waits for a gone task"]);
}

#[test]
fn an_update_that_cannot_use_a_file_names_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = tasks_path(dir.path());
    let lock = dir.path().join(".ralph/agent/tasks.jsonl.lock");
    std::fs::create_dir_all(&lock).unwrap();
    let failed = update(&path, |list| list.add(task("task-1-a", "t", 3, "c")));
    assert!(
        matches!(&failed, Err(UpdateError::Io { what, path, .. })
            if *what == "take the task list's lock" && *path == lock),
        "{failed:?}"
    );
    assert!(!path.exists(), "nothing was written");

    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(other.path().join(".ralph")).unwrap();
    let agent = other.path().join(".ralph/agent");
    std::fs::write(&agent, "a file").unwrap();
    let failed = update(&tasks_path(other.path()), |list| {
        list.add(task("task-1-a", "t", 3, "c"))
    });
    assert!(
        matches!(&failed, Err(UpdateError::Io { path, .. }) if *path == agent),
        "{failed:?}"
    );
}

#[test]
fn a_title_is_shown_as_its_first_line_cut_on_a_character() {
    let titled = |title: String| Task::new("task-1-a".into(), title, "now".into());
    let long = titled("é".repeat(100_000));
    let shown = long.shown_title();
    assert_eq!(shown.chars().count(), TITLE_SHOWN_CHARS);
    assert!(shown.ends_with("é…"), "{shown}");
    assert_eq!(shown.len(), (TITLE_SHOWN_CHARS - 1) * 2 + '…'.len_utf8());
    let exact = titled("x".repeat(TITLE_SHOWN_CHARS));
    assert_eq!(exact.shown_title(), exact.title);
    assert_eq!(
        titled("Write the parser\nthen the docs".into()).shown_title(),
        "Write the parser"
    );
    assert_eq!(titled(String::new()).shown_title(), "");
}

#[test]
fn a_repeated_id_names_the_first_task_and_the_repeat_is_set_aside_and_kept() {
    let first = r#"{"id":"task-5-aaaa","title":"first","status":"open","priority":3,"blocked_by":[],"created":"c"}"#;
    let copy = r#"{"id":"task-5-aaaa","title":"second copy","status":"open","priority":3,"blocked_by":[],"created":"c"}"#;
    let text = format!("{first}\n{copy}\n");
    let mut list = TaskList::parse(text.as_bytes());
    let titles: Vec<&str> = list.tasks().map(|t| t.title.as_str()).collect();
    assert_eq!(titles, ["first"]);
    assert_eq!(list.damaged().len(), 1);
    assert_eq!(list.damaged()[0].line, 2);
    assert!(
        list.damaged()[0]
            .error
            .starts_with("repeats the id `task-5-aaaa` of the task on line 1"),
        "{:?}",
        list.damaged()
    );
    list.close("task-5-aaaa", "now").unwrap();
    // Every reader agrees: nothing of the id is left to do.
    assert_eq!(list.ready(), Vec::<&Task>::new());
    assert_eq!(list.unfinished_of_run("r"), Vec::<&Task>::new());
    assert_eq!(list.view("r"), TasksView::default());
    // The repeat is written back as it was read, and is set aside again next time.
    let rendered = String::from_utf8(list.render()).unwrap();
    assert_eq!(rendered.lines().nth(1), Some(copy));
    assert_eq!(TaskList::parse(rendered.as_bytes()).damaged().len(), 1);
}

#[test]
fn an_update_that_would_take_the_list_past_its_limit_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = tasks_path(dir.path());
    // One closed task whose description fills the file to just under the limit.
    let room = 256;
    let line = |description: &str| {
        format!(
            "{{\"id\":\"task-1-a\",\"title\":\"big\",\"description\":\"{description}\",\
             \"status\":\"closed\",\"created\":\"1\"}}\n"
        )
    };
    let fill = MAX_TASKS_FILE_BYTES as usize - line("").len() - room;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, line(&"x".repeat(fill))).unwrap();
    let before = std::fs::metadata(&path).unwrap().len();

    let failed = update(&path, |list| {
        list.add(Task {
            description: Some("y".repeat(room)),
            ..task("task-2-b", "one too many", 3, "2")
        })
    });
    assert!(
        matches!(&failed, Err(UpdateError::TooLarge { size, limit, .. })
            if *size > *limit && *limit == MAX_TASKS_FILE_BYTES),
        "{failed:?}"
    );
    assert_eq!(std::fs::metadata(&path).unwrap().len(), before);
    // The list stays readable, and a change that fits is still made.
    update(&path, |list| list.add(task("task-3-c", "t", 3, "3"))).unwrap();
    assert_eq!(read(&path).unwrap().tasks().count(), 2);
}
