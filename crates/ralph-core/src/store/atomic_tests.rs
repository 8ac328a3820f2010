use super::*;

#[test]
fn replace_swaps_the_content_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    replace(&path, b"one", Durability::Atomic).unwrap();
    replace(&path, b"two", Durability::Durable).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, vec!["state.json"]);
}
