//! Helpers shared by the fixture tests.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;
use std::path::PathBuf;

use ralph_stream::AgentEvent;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// Every stream fixture under one directory of tests/fixtures.
pub fn fixtures(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walk(&fixtures_dir().join(dir))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl" || e == "raw"))
        .collect();
    files.sort();
    files
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The events of a stream fed in the given chunks.
pub fn events_in_chunks<'c>(
    format: Option<StreamFormat>,
    chunks: impl IntoIterator<Item = &'c [u8]>,
) -> Vec<AgentEvent<'static>> {
    let mut decoder = StreamDecoder::new(format);
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk, |e| out.push(e.clone().into_owned()));
    }
    decoder.finish(|e| out.push(e.clone().into_owned()));
    out
}

/// A fixture's path relative to tests/fixtures, as a snapshot-friendly name.
pub fn name_of(path: &Path) -> String {
    path.strip_prefix(fixtures_dir())
        .unwrap()
        .to_string_lossy()
        .replace(['/', '.'], "_")
}
