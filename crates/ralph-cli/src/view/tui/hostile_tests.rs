//! `ralph watch` reads a file the agent can write into: every value of a real run's
//! record bent to an extreme (numbers at their limits and past them, huge and odd text,
//! missing values) must be read, drawn and browsed without a panic.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;

use super::app::App;
use super::draw;
use super::model::RunModel;
use super::theme::Theme;

/// A real pi run's record: `scripts/demo.sh`'s three iterations (plan, build, test).
const RECORD: &str = include_str!("../../../../../tests/fixtures/ralph/run-events-pi-demo.jsonl");

/// What each number of the record is replaced with, in turn.
fn extreme_numbers() -> Vec<Value> {
    vec![
        Value::from(0),
        Value::from(-1),
        Value::from(u64::from(u32::MAX)),
        Value::from(u64::MAX),
        Value::from(i64::MIN),
        Value::from(1e300),
        Value::from(-1e300),
    ]
}

/// What each string of the record is replaced with, in turn.
fn extreme_strings() -> Vec<Value> {
    vec![
        Value::from(""),
        Value::from("\u{0}\u{1b}[2J\r\n\t"),
        Value::from("界".repeat(3000)),
        Value::from("e\u{301}\u{200d}".repeat(500)),
        Value::from("x".repeat(20_000)),
    ]
}

/// Every leaf of `value`, as a path of keys and indexes.
fn leaves(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                path.push(Step::Key(k.clone()));
                leaves(v, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                path.push(Step::Index(i));
                leaves(v, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn at<'v>(value: &'v mut Value, path: &[Step]) -> &'v mut Value {
    path.iter().fold(value, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

/// Reads `lines` into a fresh model, draws it at a few sizes and walks it with keys.
fn show(lines: &[Value]) {
    let mut model = RunModel::default();
    for line in lines {
        model.apply_json(&serde_json::to_vec(line).unwrap());
    }
    let mut app = App::new(true);
    for (width, height) in [(80, 24), (12, 4)] {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        for key in [KeyCode::Enter, KeyCode::End] {
            app.key(KeyEvent::new(key, KeyModifiers::NONE), &mut model);
            terminal
                .draw(|f| draw::frame(f, &model, &mut app, Theme { color: true }, u64::MAX))
                .unwrap();
        }
    }
}

#[test]
fn every_value_of_a_real_record_bent_to_an_extreme_is_shown_without_a_panic() {
    let record: Vec<Value> = RECORD
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    show(&record);
    for (n, line) in record.iter().enumerate() {
        let mut paths = Vec::new();
        leaves(line, &mut Vec::new(), &mut paths);
        for path in paths {
            let original = at(&mut line.clone(), &path).clone();
            let bends = match original {
                Value::Number(_) => extreme_numbers(),
                Value::String(_) => extreme_strings(),
                _ => vec![Value::from(1)],
            };
            for bent in bends.into_iter().chain([Value::Null]) {
                let mut lines = record.clone();
                *at(&mut lines[n], &path) = bent;
                show(&lines);
            }
        }
    }
}
