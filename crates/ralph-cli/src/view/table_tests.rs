use super::*;

#[test]
fn cells_in_cjk_line_up_by_the_columns_they_take() {
    let table = text_table(
        ["hat", "n", "topic"],
        vec![
            [
                "建造者".to_owned(),
                "12".to_owned(),
                "build.done".to_owned(),
            ],
            ["planner".to_owned(), "3".to_owned(), "plan".to_owned()],
        ],
        &[1],
    );
    assert_eq!(
        table,
        "hat       n  topic\n建造者   12  build.done\nplanner   3  plan\n"
    );
}
