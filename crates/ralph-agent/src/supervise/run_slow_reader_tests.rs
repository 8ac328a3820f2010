//! A reader of ralph's own stdout that does not read (`ralph run | less`) blocks the
//! loop, not the agent: the time ralph spends on a chunk is not the agent's silence.

use super::*;

/// [`Lines`], but each `SLOW` line takes it a second: ralph's own stdout is blocked by
/// a reader that does not read (`ralph run | less`), so the loop reads nothing meanwhile.
struct SlowReader(FakeClock);

impl OutputSink for SlowReader {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        if bytes == b"SLOW\n" {
            self.0.time().now += Duration::from_secs(1);
        }
        Lines.on_stdout(bytes)
    }
}

#[test]
fn time_ralph_spends_on_a_chunk_is_not_the_agents_silence() {
    // The agent writes a line every 10 ms; each `SLOW` one keeps ralph a second, well
    // past the idle limit, while the agent's next lines wait in the pipe.
    let idle = 400 * MS;
    let mut stdout: Vec<(Duration, &'static [u8])> = (1..=8u32)
        .map(|i| (i * 10 * MS, b"SLOW\n".as_slice()))
        .collect();
    stdout.push((90 * MS, b"DONE\n"));
    let played = play_into(
        Script {
            deadlines: RunDeadlines {
                idle: Some(idle),
                ..no_deadlines()
            },
            stdout,
            // Its last line is read about eight seconds in: it exits soon after.
            exits: Some((8200 * MS, ChildStatus::Code(0))),
            ..Script::default()
        },
        |_, _| Vec::new(),
        |clock| SlowReader(clock.clone()),
    );
    assert_eq!(
        (played.termination, played.signals, played.stdout_bytes),
        (Termination::Exited { code: 0 }, vec![], 8 * 5 + 5)
    );
}
