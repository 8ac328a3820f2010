use super::*;

const BASE: &str = "20261126T101500Z";

#[test]
fn a_new_run_comes_after_the_highest_number_of_its_second_not_into_a_gap() {
    let next = |names: &[&str]| next_run_number(BASE, names.iter().copied());
    assert_eq!(next(&[]), Some(1));
    assert_eq!(next(&[BASE]), Some(2));
    // The first runs of the second were pruned: the gap below is not reused.
    assert_eq!(next(&["20261126T101500Z-2"]), Some(3));
    assert_eq!(
        next(&["20261126T101500Z-9", "20261126T101500Z-10"]),
        Some(11)
    );
    // Other seconds, and names that are not numbers of this one, do not count.
    assert_eq!(
        next(&[
            "20261126T101501Z-7",
            "20261126T101500Z-+4",
            "20261126T101500Z-",
            "20261126T101500Z-99999999999",
            "20261126T101500Zx",
        ]),
        Some(1)
    );
    assert_eq!(next(&["20261126T101500Z-4294967295"]), None);
}

#[test]
fn the_first_run_of_a_second_is_its_time_alone() {
    assert_eq!(
        [numbered(BASE, 1), numbered(BASE, 2), numbered(BASE, 10)],
        [BASE, "20261126T101500Z-2", "20261126T101500Z-10"]
    );
}
