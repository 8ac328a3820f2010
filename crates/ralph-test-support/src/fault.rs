//! Faults a scripted turn can inject: HTTP errors before any byte of the answer, a connection
//! cut in the middle of the stream, or an SSE error event in the middle of the stream.
//!
//! A fault with `times: K` hits only the first K attempts at its turn (attempts are counted per
//! conversation and turn, so retries of the same turn see the fault go away); without `times` it
//! hits every attempt.

use serde::{Deserialize, Serialize};

/// What goes wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Answer with this HTTP status and the wire's error JSON instead of the turn.
    Http {
        /// The status, e.g. 500, 429, 401, 529.
        status: u16,
        /// `retry-after` header, in whole seconds.
        retry_after_s: Option<u64>,
        /// `retry-after-ms` header (the OpenAI and Anthropic JS SDKs obey it, so a small value
        /// makes SDK-level retries fast in tests).
        retry_after_ms: Option<u64>,
        /// `x-should-retry` header: `false` stops the SDKs' own retries, `true` forces them.
        should_retry: Option<bool>,
        /// The providers' rate-limit headers (`limit_headers.rs`), saying the limit resets
        /// this many seconds after the response.
        limit_reset_s: Option<u64>,
    },
    /// Start streaming, send this many content deltas (text, thinking or tool arguments),
    /// then cut the connection without finishing the HTTP body.
    Drop {
        /// Deltas sent before the cut.
        after_deltas: usize,
    },
    /// Start streaming, send this many content deltas, then the wire's SSE error event
    /// (Anthropic `event: error`, Chat Completions `data: {"error":…}`, Responses
    /// `response.failed`), then end the body cleanly.
    SseError {
        /// Deltas sent before the error event.
        after_deltas: usize,
    },
    /// Answer `200 OK` with a web page (`text/html`) instead of the model's answer: what an
    /// agent gets from a wrong base URL or a captive portal. Agents that read the body as an
    /// (empty) stream take it for an answer that says nothing.
    HtmlPage,
}

/// A fault and how many attempts it hits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "FaultSpec", into = "FaultSpec")]
pub struct Fault {
    /// What goes wrong.
    pub kind: FaultKind,
    /// Only the first this-many attempts at the turn fail; `None` = every attempt.
    pub times: Option<u32>,
    /// The error message sent to the client; a default per kind when `None`.
    pub message: Option<String>,
}

impl Fault {
    /// An HTTP error on every attempt.
    pub fn http(status: u16) -> Self {
        Self {
            kind: FaultKind::Http {
                status,
                retry_after_s: None,
                retry_after_ms: None,
                should_retry: None,
                limit_reset_s: None,
            },
            times: None,
            message: None,
        }
    }

    /// A connection cut after `after_deltas` content deltas, on every attempt.
    pub fn drop_after(after_deltas: usize) -> Self {
        Self {
            kind: FaultKind::Drop { after_deltas },
            times: None,
            message: None,
        }
    }

    /// An SSE error event after `after_deltas` content deltas, on every attempt.
    pub fn sse_error_after(after_deltas: usize) -> Self {
        Self {
            kind: FaultKind::SseError { after_deltas },
            times: None,
            message: None,
        }
    }

    /// A web page instead of the answer, on every attempt.
    pub fn html_page() -> Self {
        Self {
            kind: FaultKind::HtmlPage,
            times: None,
            message: None,
        }
    }

    /// Sets the `retry-after-ms` header of an HTTP fault (no effect on other kinds): the
    /// agents' SDKs obey it, so a small value keeps their own retries fast in tests.
    pub fn retry_after_ms(mut self, ms: u64) -> Self {
        if let FaultKind::Http { retry_after_ms, .. } = &mut self.kind {
            *retry_after_ms = Some(ms);
        }
        self
    }

    /// Limits the fault to the first `times` attempts at its turn.
    pub fn times(mut self, times: u32) -> Self {
        self.times = Some(times);
        self
    }

    /// Whether attempt number `attempt` (0-based) at the turn is hit.
    pub fn hits(&self, attempt: u32) -> bool {
        self.times.is_none_or(|times| attempt < times)
    }

    /// The message sent to the client.
    pub fn message_or_default(&self) -> String {
        if let Some(message) = &self.message {
            return message.clone();
        }
        match &self.kind {
            FaultKind::Http { status, .. } => format!("mock injected HTTP {status}"),
            FaultKind::Drop { .. } => "mock dropped the connection".to_owned(),
            FaultKind::SseError { .. } => "Overloaded (mock mid-stream error)".to_owned(),
            FaultKind::HtmlPage => "Sign in to continue".to_owned(),
        }
    }
}

/// The on-disk shape: exactly one of `http`, `drop_after`, `sse_error_after`, `html_page`,
/// plus options.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FaultSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    http: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    drop_after: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sse_error_after: Option<usize>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    html_page: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    times: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_after: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    should_retry: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    limit_reset: Option<u64>,
}

impl TryFrom<FaultSpec> for Fault {
    type Error = String;

    fn try_from(spec: FaultSpec) -> Result<Self, Self::Error> {
        let http_options = spec.retry_after.is_some()
            || spec.retry_after_ms.is_some()
            || spec.should_retry.is_some()
            || spec.limit_reset.is_some();
        let kind = match (
            spec.http,
            spec.drop_after,
            spec.sse_error_after,
            spec.html_page,
        ) {
            (Some(status), None, None, false) => FaultKind::Http {
                status,
                retry_after_s: spec.retry_after,
                retry_after_ms: spec.retry_after_ms,
                should_retry: spec.should_retry,
                limit_reset_s: spec.limit_reset,
            },
            (None, Some(after_deltas), None, false) if !http_options => {
                FaultKind::Drop { after_deltas }
            }
            (None, None, Some(after_deltas), false) if !http_options => {
                FaultKind::SseError { after_deltas }
            }
            (None, None, None, true) if !http_options => FaultKind::HtmlPage,
            (None, Some(_), None, false)
            | (None, None, Some(_), false)
            | (None, None, None, true) => {
                return Err(
                    "retry_after, retry_after_ms, should_retry and limit_reset only go with `http`"
                        .to_owned(),
                );
            }
            _ => {
                return Err(
                    "a fault needs exactly one of `http: STATUS`, `drop_after: N`, \
                     `sse_error_after: N` or `html_page: true`"
                        .to_owned(),
                );
            }
        };
        Ok(Self {
            kind,
            times: spec.times,
            message: spec.message,
        })
    }
}

impl From<Fault> for FaultSpec {
    fn from(fault: Fault) -> Self {
        let mut spec = FaultSpec {
            times: fault.times,
            message: fault.message,
            ..FaultSpec::default()
        };
        match fault.kind {
            FaultKind::Http {
                status,
                retry_after_s,
                retry_after_ms,
                should_retry,
                limit_reset_s,
            } => {
                spec.http = Some(status);
                spec.retry_after = retry_after_s;
                spec.retry_after_ms = retry_after_ms;
                spec.should_retry = should_retry;
                spec.limit_reset = limit_reset_s;
            }
            FaultKind::Drop { after_deltas } => spec.drop_after = Some(after_deltas),
            FaultKind::SseError { after_deltas } => spec.sse_error_after = Some(after_deltas),
            FaultKind::HtmlPage => spec.html_page = true,
        }
        spec
    }
}
