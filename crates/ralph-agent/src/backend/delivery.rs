//! How a prompt reaches an agent, and the operating-system limits that decide which way is
//! safe.
//!
//! Stdin is preferred wherever the agent reads its prompt from there: it has no size limit,
//! and no argument parser gets a chance to read a prompt that starts with `-`, `@` or `/` as
//! an option, a file or a command. Argument delivery is checked against the kernel's limit
//! for one argument so a large prompt is a typed error, never a silent `E2BIG` at spawn.

/// Where the prompt goes on the agent's command line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PromptDelivery {
    /// Written to the agent's stdin, which is then closed.
    Stdin,
    /// The last argument.
    Arg,
    /// The last argument, after a `--` separator, so a leading `-` is not read as an option.
    ArgAfterSeparator,
    /// The argument after this flag (e.g. `-p <prompt>`).
    Flag(String),
}

/// Linux refuses a single argument longer than this (`MAX_ARG_STRLEN`: 32 pages of 4 KiB,
/// terminating NUL included) with `E2BIG`, whatever the total argument space is.
pub const MAX_SINGLE_ARG_BYTES: usize = 32 * 4096;

/// Why a prompt cannot travel as a command-line argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArgProblem {
    TooLong { bytes: usize },
    ContainsNul,
    StartsWithDash,
}

/// Checks a prompt that is about to become one argument. `leading_dash_ok` is true when
/// the agent sees it after `--`, where an option-like prompt is safe.
pub(crate) fn check_prompt_arg(prompt: &str, leading_dash_ok: bool) -> Result<(), ArgProblem> {
    // The kernel counts the terminating NUL as part of the argument.
    if prompt.len() + 1 > MAX_SINGLE_ARG_BYTES {
        return Err(ArgProblem::TooLong {
            bytes: prompt.len(),
        });
    }
    if prompt.as_bytes().contains(&0) {
        return Err(ArgProblem::ContainsNul);
    }
    if !leading_dash_ok && prompt.starts_with('-') {
        return Err(ArgProblem::StartsWithDash);
    }
    Ok(())
}

#[cfg(test)]
#[path = "delivery_tests.rs"]
mod tests;
