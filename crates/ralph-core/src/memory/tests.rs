use super::*;

#[test]
fn ids_have_the_form_ralph_orchestrator_reads() {
    assert!(is_valid_id("mem-1795660762-7768"));
    for bad in [
        "mem-1-ABCD",
        "mem-1-abc",
        "mem--abcd",
        "mem-x-abcd",
        "task-1-abcd",
        "mem-1-abcde",
    ] {
        assert!(!is_valid_id(bad), "{bad}");
    }
}

#[test]
fn queries_and_tags_ignore_case() {
    let m = Memory {
        id: "mem-1-abcd".into(),
        memory_type: MemoryType::Fix,
        content: "Use MEMCHR".into(),
        tags: vec!["Perf".into()],
        created: String::new(),
    };
    assert!(m.matches("memchr") && m.matches("perf") && !m.matches("saphyr"));
    assert!(m.has_any_tag(&["perf".into()]) && !m.has_any_tag(&["parser".into()]));
    assert_eq!(split_tags(" a, ,b "), ["a", "b"]);
    assert_eq!(
        MemoryType::from_name("DECISION"),
        Some(MemoryType::Decision)
    );
}

#[test]
fn case_is_ignored_for_ascii_and_other_queries() {
    assert!(contains_ignoring_case("Use MEMCHR here", "memchr"));
    assert!(contains_ignoring_case("Ärger mit Öl", "öl"));
    assert!(contains_ignoring_case("anything", ""));
    assert!(!contains_ignoring_case("memc hr", "memchr"));
    assert!(!contains_ignoring_case("ab", "abc"));
}
