use super::*;

#[test]
fn prompt_at_the_single_argument_limit_is_refused_and_one_byte_less_is_accepted() {
    let fits = "a".repeat(MAX_SINGLE_ARG_BYTES - 1);
    let too_long = "a".repeat(MAX_SINGLE_ARG_BYTES);
    assert_eq!(check_prompt_arg(&fits, false), Ok(()));
    assert_eq!(
        check_prompt_arg(&too_long, false),
        Err(ArgProblem::TooLong {
            bytes: MAX_SINGLE_ARG_BYTES
        })
    );
}

#[test]
fn leading_dash_is_refused_unless_after_a_separator() {
    assert_eq!(
        check_prompt_arg("-fix it", false),
        Err(ArgProblem::StartsWithDash)
    );
    assert_eq!(check_prompt_arg("-fix it", true), Ok(()));
}

#[test]
fn nul_byte_is_refused() {
    assert_eq!(check_prompt_arg("a\0b", true), Err(ArgProblem::ContainsNul));
}
