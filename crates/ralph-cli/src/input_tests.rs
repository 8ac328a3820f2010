use std::io::Write;

use super::*;

/// Bytes that differ from chunk to chunk, so a lost, doubled or reordered chunk shows.
fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i % 251) as u8 ^ (i / READ_CHUNK) as u8)
        .collect()
}

fn read_all(input: &Input) -> Result<(Vec<u8>, usize), CliError> {
    let mut all = Vec::new();
    let mut chunks = 0;
    input.for_each_chunk(|chunk| {
        all.extend_from_slice(chunk);
        chunks += 1;
        Ok(())
    })?;
    Ok((all, chunks))
}

#[test]
fn a_file_of_many_chunks_arrives_whole_and_in_order() {
    let data = pattern(5 * READ_CHUNK + READ_CHUNK / 3);
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&data).unwrap();
    let (all, chunks) = read_all(&Input::File(file.path().to_owned())).unwrap();
    assert!(chunks >= 6, "{chunks} chunks");
    assert!(all == data, "{} bytes read of {}", all.len(), data.len());
}

#[test]
fn a_zstd_file_is_read_decompressed_and_anything_else_as_it_is() {
    let data = pattern(2 * READ_CHUNK + 5);
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&zstd::encode_all(&data[..], 1).unwrap())
        .unwrap();
    let (all, _) = read_all(&Input::File(file.path().to_owned())).unwrap();
    assert!(all == data, "{} bytes read of {}", all.len(), data.len());
    // Only the whole magic number counts: shorter or different starts are text.
    for head in [
        &ZSTD_MAGIC[..3],
        &[0x28, 0xB5, 0x2F, 0xFE],
        b"{\"type\":1}\n",
    ] {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(head).unwrap();
        let (all, _) = read_all(&Input::File(file.path().to_owned())).unwrap();
        assert_eq!(all, head);
    }
    // A broken frame is a read error naming the file, not garbage parsed.
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&ZSTD_MAGIC).unwrap();
    file.write_all(b"not a frame").unwrap();
    let err = read_all(&Input::File(file.path().to_owned())).unwrap_err();
    assert!(matches!(err, CliError::Read { .. }), "{err:?}");
}

#[test]
fn an_empty_file_calls_nothing() {
    let file = tempfile::NamedTempFile::new().unwrap();
    let (all, chunks) = read_all(&Input::File(file.path().to_owned())).unwrap();
    assert_eq!((all.len(), chunks), (0, 0));
}

#[test]
fn a_kept_stream_is_decompressed() {
    let data = pattern(3 * READ_CHUNK);
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&zstd::encode_all(&data[..], 3).unwrap())
        .unwrap();
    let input = Input::Compressed {
        path: file.path().to_owned(),
        file: File::open(file.path()).unwrap(),
    };
    let (all, _) = read_all(&input).unwrap();
    assert!(all == data, "{} bytes read of {}", all.len(), data.len());
}

#[test]
fn an_error_from_the_callback_stops_the_reading_and_is_returned() {
    // Larger than every buffer in flight together: a reader that did not stop would
    // block forever on a full channel, and this test would hang.
    let data = pattern(4 * (CHUNKS_IN_FLIGHT + 2) * READ_CHUNK);
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&data).unwrap();
    let mut calls = 0;
    let result = Input::File(file.path().to_owned()).for_each_chunk(|_| {
        calls += 1;
        Err(CliError::Write(io::Error::other("stdout closed")))
    });
    assert!(matches!(result, Err(CliError::Write(_))), "{result:?}");
    assert_eq!(calls, 1);
}

#[test]
fn a_read_error_names_the_input() {
    let dir = tempfile::tempdir().unwrap();
    // Opening a directory succeeds on Linux; reading it fails (EISDIR).
    let result = read_all(&Input::File(dir.path().to_owned()));
    match result {
        Err(CliError::Read { path, .. }) => assert_eq!(path, dir.path()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_failing_callback_does_not_wait_for_a_writer_that_stays_open() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("stream");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let (close_writer, writer_may_close) = std::sync::mpsc::channel::<()>();
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut writer = std::fs::OpenOptions::new()
            .write(true)
            .open(writer_path)
            .unwrap();
        writer.write_all(b"{\"type\":\"agent_start\"}\n").unwrap();
        // Stays open, like an agent that is still running, until the test ends.
        let _ = writer_may_close.recv();
    });
    let (done, returned) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = Input::File(fifo)
            .for_each_chunk(|_| Err(CliError::Write(io::Error::other("stdout closed"))));
        let _ = done.send(result);
    });
    let result = returned.recv_timeout(std::time::Duration::from_secs(30));
    close_writer.send(()).unwrap();
    writer.join().unwrap();
    assert!(
        matches!(result, Ok(Err(CliError::Write(_)))),
        "for_each_chunk waited for the reader: {result:?}"
    );
}

#[test]
fn a_fifo_of_many_chunks_arrives_whole_and_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("stream");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let data = pattern(3 * READ_CHUNK + 17);
    let writer = {
        let (fifo, data) = (fifo.clone(), data.clone());
        std::thread::spawn(move || {
            let mut writer = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            writer.write_all(&data).unwrap();
        })
    };
    let (all, _) = read_all(&Input::File(fifo)).unwrap();
    writer.join().unwrap();
    assert!(all == data, "{} bytes read of {}", all.len(), data.len());
}
