//! One HTTP request in, one response out: control endpoints, probes, the model list, token
//! counting, and model requests of every wire format, which are routed to a scenario turn,
//! hit with its fault if any, and answered as SSE or JSON. Every request except the control
//! endpoints is recorded before the answer goes out.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use tokio_stream::wrappers::ReceiverStream;

use crate::builtin::Builtin;
use crate::conversation::{Conversation, Wire};
use crate::fault::FaultKind;
use crate::gemini_request;
use crate::record::{RecordedRequest, ReplyOutcome, Routed};
use crate::reply::Reply;
use crate::routing::{AttemptKey, Selected, select};
use crate::script::Script;
use crate::sse::split_bytes;
use crate::turn::Turn;
use crate::wire::{self, StreamEnd, StreamFault};

/// The model id the agent configurations use by default.
pub const DEFAULT_MODEL_ID: &str = "mock-model";
/// What a scenario answers once it has no turn left.
pub const EXHAUSTED_TEXT: &str = "(mock: this scenario has no more turns)";
/// Headers not worth recording.
const UNRECORDED_HEADERS: [&str; 3] = ["host", "content-length", "connection"];
/// SSE events buffered ahead of the socket.
const STREAM_BUFFER_EVENTS: usize = 16;
/// Before cutting a stream: how often to check that hyper took every frame, and how long to
/// let it flush them to the socket (it writes when the body has nothing more for it).
const CUT_POLL: Duration = Duration::from_millis(1);
const CUT_GRACE: Duration = Duration::from_millis(20);
/// `count_tokens` answers the body's bytes divided by this.
const BYTES_PER_COUNTED_TOKEN: usize = 4;

pub(crate) type Body = BoxBody<Bytes, std::io::Error>;

/// Server-wide settings and state shared by all connections.
pub(crate) struct Shared {
    pub script: Script,
    pub default_delay: Duration,
    pub log_to_stderr: bool,
    pub state: Mutex<State>,
}

#[derive(Default)]
pub(crate) struct State {
    pub log: Vec<RecordedRequest>,
    pub attempts: HashMap<AttemptKey, u32>,
    pub next_seq: u64,
}

impl Shared {
    /// The state; a panic while it was held cannot leave it inconsistent (every update is a
    /// single push or insert), so a poisoned lock is used as is.
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Serves one request.
pub(crate) async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let (parts, body) = request.into_parts();
    // A body that fails to arrive is treated as empty; the request is still recorded.
    let raw = body
        .collect()
        .await
        .map(|collected| collected.to_bytes())
        .unwrap_or_default();
    let method = parts.method.clone();
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or_else(|| parts.uri.path().to_owned(), |pq| pq.as_str().to_owned());
    let path = parts.uri.path().trim_end_matches('/').to_owned();
    match (&method, path.as_str()) {
        (&Method::GET, "/__log") => {
            let log = json!(shared.state().log);
            return Ok(json_response(StatusCode::OK, &log));
        }
        (&Method::POST, "/__reset") => {
            let mut state = shared.state();
            state.log.clear();
            state.attempts.clear();
            return Ok(json_response(StatusCode::OK, &json!({"ok": true})));
        }
        _ => {}
    }
    let body: Option<Value> = serde_json::from_slice(&raw).ok();
    let mut record = RecordedRequest {
        seq: 0,
        method: method.to_string(),
        path: path_and_query,
        headers: parts
            .headers
            .iter()
            .filter(|(name, _)| !UNRECORDED_HEADERS.contains(&name.as_str()))
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str().to_owned(), value)
            })
            .collect(),
        body: body.clone(),
        routed: None,
    };
    let wire = match (&method, path.as_str()) {
        (&Method::POST, p) if p.ends_with("/messages/count_tokens") => None,
        (&Method::POST, p) if p.ends_with("/chat/completions") => Some(Wire::ChatCompletions),
        (&Method::POST, p) if p.ends_with("/messages") => Some(Wire::AnthropicMessages),
        (&Method::POST, p) if p.ends_with("/responses") => Some(Wire::Responses),
        (&Method::POST, p) if gemini_request::is_model_request(p) => Some(Wire::Gemini),
        _ => None,
    };
    let Some(wire) = wire else {
        push_record(&shared, record);
        return Ok(plain_route(&shared, &method, &path, raw.len()));
    };
    let Some(body) = body else {
        push_record(&shared, record);
        let error = wire::error_body(wire, 400, "mock: the request body is not JSON");
        return Ok(json_response(StatusCode::BAD_REQUEST, &error));
    };
    let conversation = Conversation::read(wire, &path, &body);
    let plan = plan(&shared, &conversation);
    let seq = {
        let mut state = shared.state();
        let attempt = match &plan.key {
            Some(key) => {
                let count = state.attempts.entry(key.clone()).or_insert(0);
                *count += 1;
                *count - 1
            }
            None => 0,
        };
        state.next_seq += 1;
        let seq = state.next_seq;
        let outcome = plan.outcome(attempt, conversation.stream);
        record.seq = seq;
        record.routed = Some(Routed {
            wire,
            scenario: plan.scenario.clone(),
            turn: plan.turn_index,
            attempt,
            outcome,
        });
        state.log.push(record.clone());
        seq
    };
    if shared.log_to_stderr {
        log_line(&record);
    }
    let routed = record.routed.as_ref();
    let attempt = routed.map_or(0, |routed| routed.attempt);
    Ok(answer(wire, &conversation, &plan, attempt, seq))
}

fn push_record(shared: &Shared, mut record: RecordedRequest) {
    let mut state = shared.state();
    state.next_seq += 1;
    record.seq = state.next_seq;
    if shared.log_to_stderr {
        log_line(&record);
    }
    state.log.push(record);
}

fn log_line(record: &RecordedRequest) {
    let routed = record.routed.as_ref().map(|routed| {
        format!(
            " {:?} scenario={} turn={} attempt={} -> {:?}",
            routed.wire,
            routed.scenario.as_deref().unwrap_or("-"),
            routed.turn,
            routed.attempt,
            routed.outcome
        )
    });
    eprintln!(
        "[ralph-mock-llm] #{} {} {}{}",
        record.seq,
        record.method,
        record.path,
        routed.unwrap_or_default()
    );
}

/// The turn to play and how it was chosen.
struct Plan {
    scenario: Option<String>,
    turn_index: usize,
    turn: Turn,
    key: Option<AttemptKey>,
    default_deltas: Option<usize>,
    delay: Duration,
    answer: Answer,
}

/// What kind of answer a plan gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    /// A scenario's turn.
    Scripted,
    /// The side text, to a request that offers no tools.
    Side,
    /// The scenario has no turn this late.
    Exhausted,
    /// No scenario could be chosen.
    Unrouted,
}

impl Plan {
    fn outcome(&self, attempt: u32, stream: bool) -> ReplyOutcome {
        let fault = self.turn.fault.as_ref().filter(|fault| fault.hits(attempt));
        let delivered = if stream {
            ReplyOutcome::Streamed
        } else {
            ReplyOutcome::Json
        };
        match self.answer {
            Answer::Side => ReplyOutcome::Side,
            Answer::Exhausted => ReplyOutcome::Exhausted,
            Answer::Unrouted => ReplyOutcome::Unrouted,
            Answer::Scripted => match fault.map(|fault| &fault.kind) {
                Some(FaultKind::Http { status, .. }) => ReplyOutcome::HttpError { status: *status },
                Some(FaultKind::Drop { .. }) if stream => ReplyOutcome::Dropped,
                Some(FaultKind::SseError { .. }) if stream => ReplyOutcome::SseError,
                Some(FaultKind::HtmlPage) => ReplyOutcome::HtmlPage,
                // Stream faults do not touch a non-streaming answer.
                Some(FaultKind::Drop { .. } | FaultKind::SseError { .. }) | None => delivered,
            },
        }
    }
}

fn plan(shared: &Shared, conversation: &Conversation) -> Plan {
    let script = &shared.script;
    let (selected, knobs) = select(script, conversation);
    let mut plan = Plan {
        scenario: None,
        turn_index: 0,
        turn: Turn::default(),
        key: None,
        default_deltas: knobs.deltas,
        delay: shared.default_delay,
        answer: Answer::Scripted,
    };
    if conversation.tools.is_empty() {
        let side = conversation.json_side_answer.as_deref();
        plan.turn = Turn::text(side.unwrap_or(script.side_text()));
        plan.answer = Answer::Side;
        return plan;
    }
    match selected {
        Selected::Scenario {
            name,
            turn_index,
            turn,
            key,
        } => {
            plan.scenario = Some(name);
            plan.turn_index = turn_index;
            match turn {
                Some(turn) => {
                    plan.key = Some(key);
                    plan.turn = *turn;
                }
                None => {
                    plan.turn = Turn::text(EXHAUSTED_TEXT);
                    plan.answer = Answer::Exhausted;
                }
            }
        }
        Selected::UnknownMarker { name } => {
            plan.turn = Turn::text(format!(
                "(mock: no scenario is called `{name}`; built in: {})",
                Builtin::names().join(", ")
            ));
            plan.answer = Answer::Unrouted;
        }
        Selected::Unrouted => {
            plan.turn = Turn::text(
                "(mock: no [[scenario:NAME]] marker, route or model id picked a scenario, and \
                 the script has no default)",
            );
            plan.answer = Answer::Unrouted;
        }
    }
    let delay_ms = plan.turn.delay_ms.or(knobs.delay_ms);
    if let Some(delay_ms) = delay_ms {
        plan.delay = Duration::from_millis(delay_ms);
    }
    plan
}

fn answer(
    wire: Wire,
    conversation: &Conversation,
    plan: &Plan,
    attempt: u32,
    seq: u64,
) -> Response<Body> {
    let turn = &plan.turn;
    let reply = Reply::build(
        turn,
        plan.turn_index,
        plan.default_deltas,
        seq,
        conversation,
    );
    let fault = turn.fault.as_ref().filter(|fault| fault.hits(attempt));
    let message = fault
        .map(|fault| fault.message_or_default())
        .unwrap_or_default();
    let stream_fault = match fault.map(|fault| &fault.kind) {
        Some(FaultKind::Http {
            status,
            retry_after_s,
            retry_after_ms,
            should_retry,
            limit_reset_s,
        }) => {
            let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response =
                json_response(status, &wire::error_body(wire, status.as_u16(), &message));
            let headers = response.headers_mut();
            let values = [
                ("retry-after", retry_after_s.map(|s| s.to_string())),
                ("retry-after-ms", retry_after_ms.map(|ms| ms.to_string())),
                (
                    "x-should-retry",
                    should_retry.map(|retry| retry.to_string()),
                ),
            ];
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let limits = limit_reset_s
                .map(|reset_in| crate::limit_headers::limit_headers(wire, now, reset_in))
                .unwrap_or_default()
                .into_iter()
                .map(|(name, value)| (name, Some(value)));
            for (name, value) in values.into_iter().chain(limits) {
                if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
                    headers.insert(name, value);
                }
            }
            add_request_id(&mut response, seq);
            return response;
        }
        Some(FaultKind::HtmlPage) => {
            let mut response = html_page(&message);
            add_request_id(&mut response, seq);
            return response;
        }
        Some(FaultKind::Drop { after_deltas }) => Some(StreamFault::Drop {
            after_deltas: *after_deltas,
        }),
        Some(FaultKind::SseError { after_deltas }) => Some(StreamFault::SseError {
            after_deltas: *after_deltas,
            message: &message,
        }),
        None => None,
    };
    if !conversation.stream {
        let mut response = json_response(StatusCode::OK, &wire::json(wire, &reply));
        add_request_id(&mut response, seq);
        return response;
    }
    let (events, end) = wire::stream(wire, &reply, conversation.include_usage, stream_fault);
    let (sender, receiver) = tokio::sync::mpsc::channel(STREAM_BUFFER_EVENTS);
    let delay = plan.delay;
    let chunk_bytes = turn.chunk_bytes;
    tokio::spawn(async move {
        for (index, event) in events.into_iter().enumerate() {
            if index > 0 && !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let pieces = match chunk_bytes {
                Some(max) => split_bytes(&event.bytes, max),
                None => vec![event.bytes],
            };
            for piece in pieces {
                if sender.send(Ok(Frame::data(piece))).await.is_err() {
                    return; // the client went away
                }
            }
        }
        if end == StreamEnd::Cut {
            // An error from the body makes hyper abort the connection without the final chunk,
            // but it also discards what it has not yet written. Wait until hyper has taken every
            // frame (the channel is empty again), then give it a moment to flush them.
            while sender.capacity() < STREAM_BUFFER_EVENTS && !sender.is_closed() {
                tokio::time::sleep(CUT_POLL).await;
            }
            tokio::time::sleep(CUT_GRACE).await;
            let cut = std::io::Error::other("mock fault: connection cut mid-stream");
            let _ = sender.send(Err(cut)).await;
        }
    });
    let body = StreamBody::new(ReceiverStream::new(receiver)).boxed();
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    headers.insert("cache-control", HeaderValue::from_static("no-cache"));
    add_request_id(&mut response, seq);
    response
}

fn add_request_id(response: &mut Response<Body>, seq: u64) {
    if let Ok(value) = HeaderValue::from_str(&format!("req_mock_{seq}")) {
        response.headers_mut().insert("request-id", value.clone());
        response.headers_mut().insert("x-request-id", value);
    }
}

/// Everything that is not a model request.
fn plain_route(shared: &Shared, method: &Method, path: &str, body_len: usize) -> Response<Body> {
    match (method, path) {
        (&Method::HEAD, _) => {
            let mut response = Response::new(empty());
            *response.status_mut() = StatusCode::OK;
            response
        }
        (&Method::GET, "" | "/health") => json_response(StatusCode::OK, &json!({"ok": true})),
        (&Method::GET, p) if p.ends_with("/models") => {
            let models: Vec<Value> = model_ids(&shared.script)
                .iter()
                .map(|id| model(id))
                .collect();
            let first = models
                .first()
                .map(|m| m["id"].clone())
                .unwrap_or(Value::Null);
            let last = models
                .last()
                .map(|m| m["id"].clone())
                .unwrap_or(Value::Null);
            json_response(
                StatusCode::OK,
                &json!({"object": "list", "data": models, "has_more": false,
                        "first_id": first, "last_id": last, "models": []}),
            )
        }
        (&Method::GET, p) if p.contains("/models/") => {
            let id = p.rsplit('/').next().unwrap_or(DEFAULT_MODEL_ID);
            json_response(StatusCode::OK, &model(id))
        }
        (&Method::POST, p) if p.ends_with("/messages/count_tokens") => json_response(
            StatusCode::OK,
            &json!({"input_tokens": body_len / BYTES_PER_COUNTED_TOKEN}),
        ),
        (&Method::POST, p) if p.ends_with(gemini_request::COUNT_TOKENS_METHOD) => json_response(
            StatusCode::OK,
            &json!({"totalTokens": body_len / BYTES_PER_COUNTED_TOKEN}),
        ),
        _ => json_response(
            StatusCode::NOT_FOUND,
            &json!({"type": "error", "error": {"type": "not_found_error",
                    "message": format!("mock: no route for {method} {path}")}}),
        ),
    }
}

/// The default model, then every scenario name (each is also a model id).
fn model_ids(script: &Script) -> Vec<String> {
    let mut ids = vec![DEFAULT_MODEL_ID.to_owned()];
    ids.extend(script.scenarios.keys().cloned());
    ids.extend(Builtin::names().into_iter().map(str::to_owned));
    ids
}

/// A model object in both the OpenAI and the Anthropic shape.
fn model(id: &str) -> Value {
    json!({"id": id, "object": "model", "created": wire::MOCK_CREATED, "owned_by": "mock",
           "type": "model", "display_name": id, "created_at": "2023-11-14T22:13:20Z"})
}

fn empty() -> Body {
    Full::new(Bytes::new())
        .map_err(|never| match never {})
        .boxed()
}

/// `200 OK` with a small web page titled `title`, as a captive portal or a web server at a
/// wrong base URL answers: not JSON, not SSE.
fn html_page(title: &str) -> Response<Body> {
    let page = format!(
        "<!DOCTYPE html>\n<html><head><title>{title}</title></head>\
         <body><h1>{title}</h1></body></html>\n"
    );
    let mut response = Response::new(
        Full::new(Bytes::from(page))
            .map_err(|never| match never {})
            .boxed(),
    );
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    let body = Full::new(Bytes::from(value.to_string()))
        .map_err(|never| match never {})
        .boxed();
    let mut response = Response::new(body);
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}
