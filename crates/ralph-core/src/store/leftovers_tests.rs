use std::time::UNIX_EPOCH;

use super::*;
use crate::store::RalphDir;

const BOOT: &str = "f5fa6c08-183a-4206-bcc6-6309637765f4";

const RALPH: ProcessIdentity = ProcessIdentity {
    pid: 4242,
    start_ticks: 1000,
};

const AGENT: ProcessIdentity = ProcessIdentity {
    pid: 4250,
    start_ticks: 1010,
};

fn record() -> AgentRecord {
    AgentRecord {
        agent: Some(AGENT),
        ..AgentRecord::new(BOOT.to_owned(), RALPH)
    }
}

fn host(at_ralphs_pid: Option<ProcessIdentity>) -> Host<'static> {
    Host {
        boot_id: Some(BOOT),
        at_ralphs_pid,
        name: None,
    }
}

#[test]
fn a_record_from_another_host_with_the_same_boot_leaves_nothing_to_stop() {
    // Two pods on one node share its boot id; the pid means nothing in the other.
    let elsewhere = AgentRecord {
        host: Some("pod-a-0".to_owned()),
        ..record()
    };
    let here = Host {
        name: Some("pod-a-1"),
        ..host(None)
    };
    assert_eq!(elsewhere.leftovers(&here), None);
    let same = Host {
        name: Some("pod-a-0"),
        ..host(None)
    };
    assert!(elsewhere.leftovers(&same).is_some());
}

#[test]
fn a_dead_ralphs_record_names_it_and_its_agent() {
    let want = Some(Leftovers {
        ralph: RALPH,
        agent: Some(AGENT),
    });
    assert_eq!(record().leftovers(&host(None)), want);
    // Its pid now belongs to another process (a later start): still dead.
    let reused = ProcessIdentity {
        pid: RALPH.pid,
        start_ticks: 5000,
    };
    assert_eq!(record().leftovers(&host(Some(reused))), want);
}

#[test]
fn a_live_ralph_another_boot_or_an_unknown_boot_leaves_nothing_to_stop() {
    assert_eq!(record().leftovers(&host(Some(RALPH))), None);
    let other_boot = Host {
        boot_id: Some("another"),
        ..host(None)
    };
    assert_eq!(record().leftovers(&other_boot), None);
    let unknown = Host {
        boot_id: None,
        ..host(None)
    };
    assert_eq!(record().leftovers(&unknown), None);
}

#[test]
fn implausible_records_name_nothing_that_is_not_theirs() {
    let init = AgentRecord {
        ralph: ProcessIdentity {
            pid: 1,
            start_ticks: 0,
        },
        ..record()
    };
    assert_eq!(init.leftovers(&host(None)), None);
    let other_format = AgentRecord {
        format: AGENT_RECORD_FORMAT + 1,
        ..record()
    };
    assert_eq!(other_format.leftovers(&host(None)), None);
    // An agent that started before its ralph is not its agent: only the ralph's own
    // marked processes remain to look for.
    let older_agent = AgentRecord {
        agent: Some(ProcessIdentity {
            pid: AGENT.pid,
            start_ticks: RALPH.start_ticks - 1,
        }),
        ..record()
    };
    assert_eq!(
        older_agent.leftovers(&host(None)),
        Some(Leftovers {
            ralph: RALPH,
            agent: None
        })
    );
}

#[test]
fn the_record_is_written_read_back_and_cleared() {
    let ws = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(ws.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    assert_eq!(run.agent_record().unwrap(), None);
    run.agent_record_file().write(&record()).unwrap();
    assert_eq!(run.agent_record().unwrap(), Some(record()));
    run.clear_agent_record().unwrap();
    assert_eq!(run.agent_record().unwrap(), None);
    // Clearing twice is fine; a damaged record is an error to report, not a panic.
    run.clear_agent_record().unwrap();
    std::fs::write(run.agent_record_path(), b"{not json").unwrap();
    assert_eq!(
        run.agent_record().unwrap_err().kind(),
        io::ErrorKind::InvalidData
    );
}

#[test]
fn each_record_replaces_the_last_in_place_and_reads_back() {
    use std::os::unix::fs::MetadataExt;
    let ws = tempfile::tempdir().unwrap();
    let run = RalphDir::in_workspace(ws.path())
        .create_run(UNIX_EPOCH)
        .unwrap();
    let mut file = run.agent_record_file();
    let only_ralph = AgentRecord::new(BOOT.to_owned(), RALPH);
    file.write(&only_ralph).unwrap();
    let first = std::fs::metadata(run.agent_record_path()).unwrap();
    assert_eq!(first.len(), AGENT_RECORD_WIDTH as u64);
    for expected in [record(), only_ralph.clone(), record()] {
        file.write(&expected).unwrap();
        assert_eq!(run.agent_record().unwrap(), Some(expected));
        let now = std::fs::metadata(run.agent_record_path()).unwrap();
        // The same file, never shorter or longer: a reader sees one record or the other.
        assert_eq!((now.ino(), now.len()), (first.ino(), first.len()));
    }
    // A record too wide to pad (no host name is this long) is still written whole, and
    // the ones after it too.
    let wide = AgentRecord {
        host: Some("h".repeat(AGENT_RECORD_WIDTH)),
        ..record()
    };
    file.write(&wide).unwrap();
    assert_eq!(run.agent_record().unwrap(), Some(wide));
    file.write(&only_ralph).unwrap();
    assert_eq!(run.agent_record().unwrap(), Some(only_ralph));
}
