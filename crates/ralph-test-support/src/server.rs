//! The server handle: binds 127.0.0.1 (port 0 = a free port) before returning, serves on its
//! own thread and tokio runtime (so sync and async tests use it alike), exposes the request log,
//! and shuts down when dropped.

use std::net::{Ipv4Addr, SocketAddr, TcpListener as StdListener};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::error::MockError;
use crate::handler::{Shared, State, handle};
use crate::record::RecordedRequest;
use crate::script::Script;

/// Worker threads of the server's runtime: the machine has 2 cores shared with the agents
/// under test, and the mock does little work per request.
const WORKER_THREADS: usize = 2;

/// How to run the server.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// The scenarios to play.
    pub script: Script,
    /// The port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Pause between SSE events for turns that set none (and no `[[delay_ms:N]]`).
    pub default_delay: Duration,
    /// Print one line per request on stderr.
    pub log_to_stderr: bool,
}

impl ServerOptions {
    /// A free port, no delay, no stderr log.
    pub fn new(script: Script) -> Self {
        Self {
            script,
            port: 0,
            default_delay: Duration::ZERO,
            log_to_stderr: false,
        }
    }
}

/// A running mock model server. Dropping it stops the server and cuts open connections.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Starts a server for `script` on a free port of 127.0.0.1.
    pub fn start(script: Script) -> Result<Self, MockError> {
        Self::start_with(ServerOptions::new(script))
    }

    /// Starts a server with `options`.
    pub fn start_with(options: ServerOptions) -> Result<Self, MockError> {
        options.script.validate()?;
        let requested = SocketAddr::from((Ipv4Addr::LOCALHOST, options.port));
        let bind_error = |source| MockError::Bind {
            addr: requested.to_string(),
            source,
        };
        let listener = StdListener::bind(requested).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let addr = listener.local_addr().map_err(bind_error)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKER_THREADS)
            .thread_name("ralph-mock-llm")
            .enable_all()
            .build()
            .map_err(|source| MockError::Runtime { source })?;
        let shared = Arc::new(Shared {
            script: options.script,
            default_delay: options.default_delay,
            log_to_stderr: options.log_to_stderr,
            state: Mutex::new(State::default()),
        });
        let (shutdown, shutdown_received) = oneshot::channel();
        let serving = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("ralph-mock-llm-accept".to_owned())
            .spawn(move || runtime.block_on(serve(listener, serving, shutdown_received)))
            .map_err(|source| MockError::Runtime { source })?;
        Ok(Self {
            addr,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash (Anthropic clients add `/v1/messages`;
    /// OpenAI clients want `…/v1` as their base URL).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.state().log.clone()
    }

    /// The model requests so far (those with a [`crate::Routed`]), in arrival order.
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        let state = self.shared.state();
        state
            .log
            .iter()
            .filter(|request| request.routed.is_some())
            .cloned()
            .collect()
    }

    /// Forgets the request log and the attempt counters (like `POST /__reset`).
    pub fn reset(&self) {
        let mut state = self.shared.state();
        state.log.clear();
        state.attempts.clear();
    }

    /// Serves until the process ends (for the binary).
    pub fn serve_forever(mut self) {
        if let Some(thread) = self.thread.take() {
            // The accept loop only ends on shutdown, which nothing sends here.
            let _ = thread.join();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(listener: StdListener, shared: Arc<Shared>, mut shutdown: oneshot::Receiver<()>) {
    let listener = match TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("ralph-mock-llm: cannot listen: {error}");
            return;
        }
    };
    loop {
        tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let service = service_fn(move |request| handle(Arc::clone(&shared), request));
                    // Errors here are clients hanging up and the mock's own cut streams.
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        }
    }
}
