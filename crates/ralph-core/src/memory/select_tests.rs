use super::*;
use crate::memory::parse::parse;

fn memories() -> Vec<Memory> {
    let text = "# Memories\n\n## Patterns\n\n\
        ### mem-100-0001\n> old pattern\n<!-- tags: parser | created: 2026-01-01 -->\n\n\
        ### mem-300-0003\n> new pattern\n<!-- tags: builder | created: 2026-11-20 -->\n\n\
        ## Fixes\n\n\
        ### mem-200-0002\n> middle fix\n<!-- tags:  | created: 2026-06-01 -->\n";
    parse(text).memories().cloned().collect()
}

fn today() -> i64 {
    date::parse_ymd("2026-11-26").unwrap()
}

fn ids(ranked: &[&Memory]) -> Vec<String> {
    ranked.iter().map(|m| m.id.clone()).collect()
}

#[test]
fn newest_first_and_the_preferred_tags_before_them() {
    let all = memories();
    let plain = Prime {
        today: today(),
        ..Prime::default()
    };
    assert_eq!(
        ids(&rank(&all, &plain)),
        ["mem-300-0003", "mem-200-0002", "mem-100-0001"]
    );
    let parser = ["parser".to_owned()];
    let hat = Prime {
        prefer_tags: &parser,
        ..plain.clone()
    };
    assert_eq!(
        ids(&rank(&all, &hat)),
        ["mem-100-0001", "mem-300-0003", "mem-200-0002"]
    );
}

#[test]
fn filters_by_type_tag_and_age() {
    let all = memories();
    let fixes = [MemoryType::Fix];
    let builder = ["BUILDER".to_owned()];
    let base = Prime {
        today: today(),
        ..Prime::default()
    };
    assert_eq!(
        ids(&rank(
            &all,
            &Prime {
                types: &fixes,
                ..base.clone()
            }
        )),
        ["mem-200-0002"]
    );
    assert_eq!(
        ids(&rank(
            &all,
            &Prime {
                tags: &builder,
                ..base.clone()
            }
        )),
        ["mem-300-0003"]
    );
    let week = Prime {
        recent_days: Some(7),
        ..base.clone()
    };
    assert_eq!(ids(&rank(&all, &week)), ["mem-300-0003"]);
    let one_day = Prime {
        recent_days: Some(1),
        ..base
    };
    assert!(rank(&all, &one_day).is_empty());
}

#[test]
fn the_budget_holds_whole_memories_and_says_what_it_left_out() {
    let all = memories();
    let unlimited = prime(
        &all,
        &Prime {
            today: today(),
            ..Prime::default()
        },
    );
    assert_eq!((unlimited.shown, unlimited.left_out), (3, 0));
    assert!(
        unlimited
            .text
            .starts_with("# Memories\n\n## Patterns\n\n### mem-300-0003\n")
    );
    let whole_tokens = unlimited.text.chars().count().div_ceil(CHARS_PER_TOKEN);
    for budget in [0, 10, 30, 50, 65, whole_tokens - 1] {
        let fitted = prime(
            &all,
            &Prime {
                budget_tokens: Some(budget),
                today: today(),
                ..Prime::default()
            },
        );
        assert!(
            fitted.text.chars().count() <= budget * CHARS_PER_TOKEN,
            "{budget}: {}",
            fitted.text
        );
        assert_eq!(fitted.shown + fitted.left_out, 3);
        if fitted.left_out > 0 && !fitted.text.is_empty() {
            assert!(
                fitted.text.ends_with(&left_out_note(fitted.left_out)),
                "{}",
                fitted.text
            );
        }
        // Never half a memory.
        assert_eq!(fitted.text.matches("### ").count(), fitted.shown);
    }
    let some = prime(
        &all,
        &Prime {
            budget_tokens: Some(50),
            today: today(),
            ..Prime::default()
        },
    );
    assert!(some.shown >= 1 && some.left_out >= 1, "{some:?}");
    assert!(
        some.text.contains("mem-300-0003"),
        "the newest comes first: {}",
        some.text
    );
}
