use pretty_assertions::assert_eq;
use ralph_stream::CostKind;

use super::*;

/// The spend of one iteration whose agent reported `cost_usd` as `kind`.
fn of(cost_usd: Option<f64>, kind: CostKind) -> Spend {
    let usage = Usage {
        cost_usd,
        cost_kind: kind,
        ..Usage::default()
    };
    Spend::of(&usage, false, false)
}

#[test]
fn an_iteration_with_a_known_part_of_an_unknown_cost_is_partly_priced() {
    let counts = |s: Spend| (s.unpriced_iterations, s.partly_priced_iterations);
    // pi stopped in a model call: the calls that ended were priced.
    assert_eq!(counts(of(Some(0.005), CostKind::Unknown)), (1, 1));
    // Nothing priced, or a 0 ralph takes for unknown (pi's, with tokens): no part.
    assert_eq!(counts(of(None, CostKind::Unknown)), (1, 0));
    assert_eq!(counts(of(Some(0.0), CostKind::Unknown)), (1, 0));
    // A whole cost is neither.
    assert_eq!(counts(of(Some(0.005), CostKind::Reported)), (0, 0));
    // Stopped before the model answered: nothing was spent, so nothing is unknown.
    let usage = Usage {
        cost_usd: Some(0.005),
        cost_kind: CostKind::Unknown,
        ..Usage::default()
    };
    assert_eq!(counts(Spend::of(&usage, true, false)), (0, 0));
    // Runs and hats add them up.
    let mut sum = of(Some(0.005), CostKind::Unknown);
    sum += of(None, CostKind::Unknown);
    sum += of(Some(0.002), CostKind::Unknown);
    assert_eq!(counts(sum), (3, 2));
}
