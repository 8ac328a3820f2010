//! Which of a run's transcript directories: an iteration's, or an earlier attempt at it
//! that ended on a provider's limit.

/// A transcript directory under `iterations/`.
///
/// An attempt that ends on a provider's limit and runs again (`on_rate_limit: wait` or
/// `failover`) keeps its iteration's number. When the next attempt starts, the limited
/// one is set aside as `<n>-limited-<k>` (`k` counting the iteration's attempts from 1),
/// so `<n>` always holds the latest attempt and no attempt's output is written over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TranscriptId {
    pub iteration: u32,
    pub attempt: Attempt,
}

/// Which attempt at an iteration a transcript holds. Ordered as they ran: the limited
/// attempts by number, then the latest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Attempt {
    /// The `k`th attempt, which ended on a limit and was run again: `<n>-limited-<k>`.
    Limited(u32),
    /// The latest attempt (for most iterations the only one): `<n>`.
    Latest,
}

/// Between the iteration and the attempt in a set-aside attempt's directory name.
const LIMITED_INFIX: &str = "-limited-";

impl TranscriptId {
    /// Iteration `iteration`'s latest attempt: `iterations/<n>/`.
    pub fn latest(iteration: u32) -> Self {
        TranscriptId {
            iteration,
            attempt: Attempt::Latest,
        }
    }

    /// Iteration `iteration`'s `attempt`th attempt, which ended on a limit and was set
    /// aside: `iterations/<n>-limited-<k>/`.
    pub fn limited(iteration: u32, attempt: u32) -> Self {
        TranscriptId {
            iteration,
            attempt: Attempt::Limited(attempt),
        }
    }

    /// The directory's name under `iterations/`.
    pub fn dir_name(&self) -> String {
        match self.attempt {
            Attempt::Latest => self.iteration.to_string(),
            Attempt::Limited(k) => format!("{}{LIMITED_INFIX}{k}", self.iteration),
        }
    }

    /// The transcript a directory name under `iterations/` names, if it is one that
    /// ralph writes: numbers in their plain decimal form only, so that no two names (`7`,
    /// `07`, `+7`) stand for one transcript.
    pub fn parse(name: &str) -> Option<Self> {
        let number = |s: &str| s.parse::<u32>().ok().filter(|n| n.to_string() == s);
        let id = match name.split_once(LIMITED_INFIX) {
            Some((n, k)) => TranscriptId::limited(number(n)?, number(k)?),
            None => TranscriptId::latest(number(name)?),
        };
        Some(id)
    }
}
