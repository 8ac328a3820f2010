//! `ralph runs land NAME [--check CMD]`: the worktree loop's branch rebased onto its
//! base, checked in its worktree, and the base fast-forwarded to it. Never a merge
//! commit: the base only ever moves forward to a commit that has it as an ancestor.
//!
//! One landing at a time (the landing lock); the short repository lock is taken only
//! for the fast-forward, which first makes sure the base did not move during the check
//! (if it did, the landing starts over on the new base). A conflict aborts the rebase,
//! a failed check stops there: the branch and worktree stay for `ralph run --continue`
//! in the worktree (or a hand's fix), the record says `needs-rebase` or `check-failed`,
//! and the command exits 1. Refused or stopped after its rebase for any other reason, it
//! puts the branch back where it was (`put_back.rs`). The worktree's loop lock is held
//! throughout (`held.rs`): no loop runs there while its branch is rebased and checked.
//! Nor may one run in the checkout the base moves in (`base_loops.rs`).

use std::path::Path;
use std::time::Duration;

use ralph_agent::StopController;
use ralph_agent::command::{CommandRequest, run_command};
use ralph_agent::terminal_asked::asked_terminal_note;
use ralph_core::config::Overrides;
use ralph_core::store::{
    GITIGNORE_FILE, HeldBy, Landing, LandingOutcome, RalphDir, WorktreeRecord,
};
use ralph_types::Invocation;

use super::git::hookless;
use super::put_back::Tips;
use super::{Git, Repo, base_loops, held, in_progress, lock, now_ms, onto};
use crate::cli_runs::LandArgs;
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::gates::GateRun;
use crate::run::leftovers::Record;
use crate::view::term::Detail;
use crate::view::text::{TextObserver, TextOptions};

/// How long `--check` may run.
const CHECK_TIMEOUT: Duration = Duration::from_secs(60 * 60);
/// How often a landing starts over because the base moved while it checked.
const MAX_ATTEMPTS: u32 = 3;
/// The directories git keeps while a rebase is in progress (merge and apply backends).
const REBASE_STATE_DIRS: [&str; 2] = ["rebase-merge", "rebase-apply"];
/// Commit ids as shown.
const SHORT: usize = 12;

pub(crate) fn land(cwd: &Path, args: &LandArgs) -> Result<CommandOutcome, CliError> {
    let repo = Repo::here(cwd)?;
    let mut record = repo.record(&args.name)?;
    let name = record.name.clone();
    let base = onto::target(&repo, &record, args.onto.as_deref())?;
    let tree = record.path.clone();
    if !tree.is_dir() {
        return Err(CliError::Worktree(format!(
            "the worktree of `{name}` (`{}`) is gone; `ralph runs rm {name}` forgets it",
            tree.display()
        )));
    }
    // Git rewrites the branch and moves the base: a Ctrl-C or SIGTERM must stop the
    // running git (its hooks) or check with its process group, not end ralph with them
    // left running and a rebase half done; and end a wait for a lock.
    repo.git.stop_on_signals("ralph runs land")?;
    let _landing = lock::take(
        &repo.common_dir,
        lock::LAND_LOCK,
        "another landing",
        repo.git.stop(),
    )?;
    // The worktree's loop locks (its own, and those of the directories in it where a
    // loop ran), taken as a loop takes them and held to the end: a loop running there
    // refuses the landing, and none can start there (`ralph run --continue` typed in
    // the worktree) while its branch is rebased and checked under it.
    let loops = held::hold_all(&tree, HeldBy::Land).map_err(|busy| {
        let refusal = busy.refusal(&tree, &format!("the loop of `{name}`"));
        CliError::Worktree(match busy.by {
            HeldBy::Loop => format!("{refusal}, or land it once it has finished"),
            _ => refusal,
        })
    })?;
    // A loop killed there (`kill -9` of its ralph) may have left its agent's processes
    // running in the worktree: the rebase and the check would change the files under
    // them (a watcher rebuilding halfway through the rebase), and what they write would
    // count as uncommitted changes. Stopped first, as `ralph run --continue` there would:
    // only those ralph's marks lead to (nothing is deleted, so what the user started
    // there is not looked for), and the killed ralph's record stays for that `--continue`.
    held::stop_leftovers(loops.iter(), None, Record::Keep)?;
    let own_gitignore = refuse_unready(&repo, &record, &tree)?;
    in_progress::refuse(&repo, &base)?;
    // Said now rather than after the check; looked at again for the fast-forward.
    drop(base_loops::hold_for(&repo, &base)?);
    if own_gitignore {
        // ralph writes it again below: the rebase takes the branch's version meanwhile.
        let path = format!("{}/{}", ralph_core::store::RALPH_DIR, GITIGNORE_FILE);
        repo.git.ok(&tree, &["checkout", "--", &path])?;
    }
    let mut tips = Tips::new(head_of(&repo, &tree)?);
    let mut landing_head = None;
    let landed = attempts(
        &repo,
        &mut record,
        &base,
        &tree,
        args,
        &mut tips,
        &mut landing_head,
    );
    let landed = match landed {
        Err(_) if repo.git.stopped() => Err(after_stop(
            &repo,
            &mut record,
            &base,
            &tree,
            &tips,
            landing_head.as_deref(),
        )),
        Err(e) => Err(put_back_after(e, &repo, &record, &base, &tree, &tips)),
        landed => landed,
    };
    if own_gitignore {
        // Left as ralph left it, unless the branch now has ralph's list or one of the
        // user's own. A failure is not the landing's: the next run writes it.
        let _ = RalphDir::in_workspace(&tree).ensure_gitignore();
    }
    landed
}

/// `failed`, the error that ended a landing, with the loop's branch put back where it
/// was if a rebase moved it and nothing landed (`put_back.rs`), and said so.
fn put_back_after(
    failed: CliError,
    repo: &Repo,
    record: &WorktreeRecord,
    base: &str,
    tree: &Path,
    tips: &Tips,
) -> CliError {
    // Landed all the same (the record could not be saved after the move): the branch is
    // on the base now, and stays.
    if tips
        .rebased
        .as_deref()
        .is_some_and(|head| base_at(&repo.git, &repo.top, base, head))
    {
        return failed;
    }
    let Some(said) = tips.put_back(&repo.git, tree, &record.branch) else {
        return failed;
    };
    match failed {
        CliError::Worktree(message) => CliError::Worktree(format!("{message}\n{said}")),
        other => {
            diagnostic(format_args!("{said}"));
            other
        }
    }
}

/// Rebases, checks and fast-forwards, starting over (up to [`MAX_ATTEMPTS`] times) when
/// the base moves during the check. `landing_head` is set to the commit the base is
/// moved to once that move starts.
fn attempts(
    repo: &Repo,
    record: &mut WorktreeRecord,
    base: &str,
    tree: &Path,
    args: &LandArgs,
    tips: &mut Tips,
    landing_head: &mut Option<String>,
) -> Result<CommandOutcome, CliError> {
    let name = record.name.clone();
    let tree = tree.to_path_buf();
    let base = base.to_owned();
    for _ in 0..MAX_ATTEMPTS {
        let onto = repo.git.ok(&repo.top, &["rev-parse", "--verify", &base])?;
        let onto = onto.trim().to_owned();
        let rebase = repo.git.run(&tree, &["rebase", &onto])?;
        if !rebase.ok() {
            let conflicts = repo
                .git
                .ok(&tree, &["diff", "--name-only", "--diff-filter=U"])
                .unwrap_or_default();
            // A rebase that failed before it started (a pre-rebase hook refusing, a stale
            // `index.lock`) has nothing to abort; one that stopped on anything but a
            // conflict (signing, no identity, a hook) is not the branch's to fix. Either
            // way git's own words say why, and the branch does not need a rebase.
            let started = rebase_in_progress(&repo.git, &tree)?;
            if started {
                repo.git.ok(&tree, &["rebase", "--abort"])?;
            }
            if conflicts.trim().is_empty() {
                return Err(CliError::Worktree(format!(
                    "`git rebase {}` failed in `{}`{}{}:\n{}",
                    short(&onto),
                    tree.display(),
                    rebase
                        .code
                        .map(|c| format!(" (exit {c})"))
                        .unwrap_or_default(),
                    match started {
                        true => ", not on a conflict; it was aborted and the branch is as it was",
                        false => " before it started; the branch is as it was",
                    },
                    rebase.tail.trim_end()
                )));
            }
            // An earlier attempt's rebase (onto a base that moved since) is undone too:
            // the branch is said to be as it was.
            if let Some(said) = tips.put_back(&repo.git, &tree, &record.branch) {
                diagnostic(format_args!("{said}"));
            }
            let head = head_of(repo, &tree)?;
            mark(repo, record, LandingOutcome::NeedsRebase, head)?;
            let files: Vec<&str> = conflicts.lines().collect();
            diagnostic(format_args!(
                "`{name}` does not rebase cleanly onto {} (conflicts in {}); the rebase was \
                 aborted and {} is as it was. Resolve it in `{}` (or `ralph run --continue` \
                 there), then land again",
                branch_name(&base),
                files.join(", "),
                record.branch,
                tree.display()
            ));
            return Ok(CommandOutcome::Failed);
        }
        let head = head_of(repo, &tree)?;
        tips.rebased = Some(head.clone());
        let passed = check(&tree, args.check.as_deref(), repo.git.stop())?;
        if repo.git.stopped() {
            return Err(CliError::WorktreeInterrupted(
                "the check was stopped".to_owned(),
            ));
        }
        if !passed {
            mark(repo, record, LandingOutcome::CheckFailed, head)?;
            diagnostic(format_args!(
                "`{name}`'s check failed on {} rebased onto {}: nothing landed; the branch and \
                 `{}` are kept",
                record.branch,
                branch_name(&base),
                tree.display()
            ));
            return Ok(CommandOutcome::Failed);
        }
        let _lock = repo.lock()?;
        let now = repo.git.ok(&repo.top, &["rev-parse", "--verify", &base])?;
        if now.trim() != onto {
            diagnostic(format_args!(
                "{} moved during the check: rebasing `{name}` again",
                branch_name(&base)
            ));
            continue;
        }
        *landing_head = Some(head.clone());
        if let Err(e) = fast_forward(repo, &base, &onto, &head) {
            // What git runs after moving the base (a post-merge hook, whose exit code git
            // ignores, so that only the deadline stops one that hangs; a
            // reference-transaction hook) can fail the command once the move is made: the
            // branch has landed all the same, and the record must say so.
            if repo.git.stopped() || !base_at(&repo.git, &repo.top, &base, &head) {
                return Err(e);
            }
            diagnostic(format_args!(
                "{} moved to {} ({}), but the command that moved it then failed, most likely                  in one of the repository's hooks (post-merge, reference-transaction): {e}\n\
                 The landing stands; check what that hook should have done",
                branch_name(&base),
                record.branch,
                short(&head)
            ));
        }
        let ahead = repo
            .git
            .line(
                &repo.top,
                &["rev-list", "--count", &format!("{onto}..{head}")],
            )?
            .unwrap_or_default();
        // What it lands on from now on (`ahead`, `rm`'s check), also after `--onto`.
        record.base_ref = base.clone();
        mark(repo, record, LandingOutcome::Landed, head.clone())?;
        super::report(format_args!(
            "landed `{name}`: {} moved from {} to {} ({ahead} commit(s))",
            branch_name(&base),
            short(&onto),
            short(&head)
        ));
        return Ok(CommandOutcome::Success);
    }
    Err(CliError::Worktree(format!(
        "{} kept moving while `{name}` was checked; land it again",
        branch_name(&base)
    )))
}

/// Where a landing stopped by Ctrl-C or SIGTERM left things, after undoing a rebase it
/// interrupted (with git commands no signal stops: an abort is short, and leaving the
/// worktree mid-rebase would make the next landing refuse it as on a detached HEAD).
/// When the base had already been moved to the branch, the landing is recorded.
fn after_stop(
    repo: &Repo,
    record: &mut WorktreeRecord,
    base: &str,
    tree: &Path,
    tips: &Tips,
    landing_head: Option<&str>,
) -> CliError {
    let name = record.name.clone();
    let mut said = Vec::new();
    let git = match Git::new() {
        Ok(git) => git,
        Err(e) => return e,
    };
    if rebasing(&git, tree) {
        // Without the repository's hooks: the abort also checks the branch out again,
        // and the hook just stopped (a hung post-checkout) would hang it in turn.
        said.push(match git.ok(tree, &hookless(&["rebase", "--abort"])) {
            Ok(_) => format!("the rebase was aborted and {} is as it was", record.branch),
            Err(e) => format!(
                "the rebase could not be aborted ({e}); run `git rebase --abort` in `{}`",
                tree.display()
            ),
        });
    }
    let moved = landing_head.is_some_and(|head| base_at(&git, &repo.top, base, head));
    match (moved, landing_head) {
        (true, Some(head)) => {
            record.base_ref = base.to_owned();
            let saved = mark(repo, record, LandingOutcome::Landed, head.to_owned());
            said.push(format!(
                "{} had already moved to {} ({}): landed{}",
                branch_name(base),
                record.branch,
                short(head),
                saved
                    .err()
                    .map(|e| format!(", but {e}"))
                    .unwrap_or_default()
            ));
        }
        _ => {
            said.push(format!(
                "nothing landed; `ralph runs land {name}` starts it again"
            ));
            said.extend(tips.put_back(&git, tree, &record.branch));
        }
    }
    CliError::WorktreeInterrupted(format!(
        "`ralph runs land {name}` was stopped: {}",
        said.join("; ")
    ))
}

/// Whether the ref `base` points at commit `head`.
fn base_at(git: &Git, top: &Path, base: &str, head: &str) -> bool {
    git.line(top, &["rev-parse", "--verify", "-q", base]).ok() == Some(Some(head.to_owned()))
}

/// Whether the checkout at `tree` is in the middle of a rebase, when git can say.
fn rebasing(git: &Git, tree: &Path) -> bool {
    rebase_in_progress(git, tree).unwrap_or(false)
}

/// Refuses a worktree whose checkout is not on its branch, or that has uncommitted
/// changes (a rebase would refuse them, or take them along). Whether ralph's own rewrite
/// of `.ralph/.gitignore` is there (no one's change, but git's rebase refuses it too).
fn refuse_unready(repo: &Repo, record: &WorktreeRecord, tree: &Path) -> Result<bool, CliError> {
    let on = repo.git.line(tree, &["symbolic-ref", "-q", "HEAD"])?;
    let expected = format!("refs/heads/{}", record.branch);
    if on.as_deref() != Some(expected.as_str()) {
        return Err(CliError::Worktree(format!(
            "`{}` is not on {} (it is on {}); check the branch out there, then land again",
            tree.display(),
            record.branch,
            on.as_deref().unwrap_or("a detached HEAD")
        )));
    }
    let changes = repo.changes(tree, false)?;
    if !changes.is_empty() {
        return Err(CliError::Worktree(format!(
            "`{}` has uncommitted changes ({}); commit or discard them, then land again",
            tree.display(),
            changes.named()
        )));
    }
    Ok(changes.own_gitignore)
}

/// Whether a rebase is in progress in the checkout at `tree` (git's state directory
/// for one is there, in the checkout's own git directory).
fn rebase_in_progress(git: &Git, tree: &Path) -> Result<bool, CliError> {
    let git_dir = git.git_dir(tree)?;
    Ok(REBASE_STATE_DIRS
        .iter()
        .any(|dir| git_dir.join(dir).is_dir()))
}

fn head_of(repo: &Repo, tree: &Path) -> Result<String, CliError> {
    Ok(repo
        .git
        .ok(tree, &["rev-parse", "--verify", "HEAD"])?
        .trim()
        .to_owned())
}

fn mark(
    repo: &Repo,
    record: &mut WorktreeRecord,
    outcome: LandingOutcome,
    head: String,
) -> Result<(), CliError> {
    record.landing = Some(Landing {
        outcome,
        head,
        at_ms: now_ms(),
    });
    repo.records
        .save(record)
        .map_err(|e| CliError::io("save the worktree record in", repo.records.path(), e))
}

/// Runs `--check` (or, without one, the gates of the worktree's configuration) in the
/// worktree: whether it passed. Its output goes to stderr.
fn check(tree: &Path, command: Option<&str>, stop: &StopController) -> Result<bool, CliError> {
    let runtime = crate::commands::runtime()?;
    let env: Vec<_> = crate::run::worktree_env(tree).into_iter().collect();
    if let Some(command) = command {
        let request = CommandRequest {
            invocation: Invocation::Shell(command.to_owned()),
            cwd: tree.to_path_buf(),
            env,
            stdin: None,
            timeout: CHECK_TIMEOUT,
            keep_stdout: 0,
            // As git and the gates: a check that asks on `/dev/tty` fails at once.
            own_session: true,
        };
        let mut err = std::io::stderr();
        let ran = runtime.block_on(run_command(request, Some(&mut err), stop.requests()));
        if ran.asked_for_terminal() {
            diagnostic(format_args!(
                "{}",
                asked_terminal_note(&format!("the check `{command}`"))
            ));
        }
        return Ok(ran.passed());
    }
    let config = super::super::load_config(tree, None, Overrides::default())?;
    if config.gates.is_empty() {
        diagnostic(format_args!(
            "no --check and no gates in the worktree's configuration: landing unchecked"
        ));
        return Ok(true);
    }
    let ralph_dir = RalphDir::in_workspace(tree);
    let mut observer =
        TextObserver::stdout(TextOptions::for_stdout(Detail::Normal, false)).pausing(stop);
    runtime.block_on(async {
        let gates = GateRun {
            runtime: None,
            workspace: tree,
            iteration: None,
            env: &env,
            stop,
            steering: None,
        };
        let mut passed = true;
        for gate in &config.gates {
            if gates.stopping() {
                break;
            }
            let log = ralph_dir.gate_log(&gate.name);
            passed &= gates.run(gate, None, log, &mut observer).await.passed();
        }
        Ok(passed)
    })
}

/// Moves `base` from `old` to `new`: in the checkout that has it checked out (which must
/// be clean), else the ref alone.
fn fast_forward(repo: &Repo, base: &str, old: &str, new: &str) -> Result<(), CliError> {
    // Checked again: one may have started during the check.
    in_progress::refuse(repo, base)?;
    match base_loops::checkout_of(repo, base)? {
        Some(path) => {
            // No loop runs there (but the asker's own), and none starts, while it moves.
            let _loops = base_loops::hold(&path, base)?;
            let changes = repo.changes_outside_ralph(&path)?;
            if !changes.is_empty() {
                return Err(CliError::Worktree(format!(
                    "{} is checked out in `{}`, which has uncommitted changes ({}): nothing \
                     landed. Commit or stash them, then land again",
                    base.trim_start_matches("refs/heads/"),
                    path.display(),
                    changes.named()
                )));
            }
            repo.git
                .ok(&path, &["merge", "--ff-only", "--quiet", new])?;
        }
        None => {
            repo.git.ok(
                &repo.top,
                &["update-ref", "-m", "ralph runs land", base, new, old],
            )?;
        }
    }
    Ok(())
}

/// A branch as people name it: `main` for `refs/heads/main`.
fn branch_name(full: &str) -> &str {
    full.strip_prefix("refs/heads/").unwrap_or(full)
}

pub(super) fn short(commit: &str) -> &str {
    &commit[..commit.len().min(SHORT)]
}
