//! Configuration that points a real agent at the mock, in an isolated HOME: pi's agent dir
//! (`models.json` with a priced and a free model on both wires, `settings.json` with fast
//! retries) and Claude Code's environment. Nothing outside the given root is touched.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::builtin::Builtin;
use crate::error::MockError;
use crate::handler::DEFAULT_MODEL_ID;

/// Prices of the priced mock models, USD per million tokens (a Claude Sonnet list price), so
/// pi reports a non-zero cost: cost = tokens × price / 1e6.
pub const PRICE_INPUT: f64 = 3.0;
/// Output price, USD per million tokens.
pub const PRICE_OUTPUT: f64 = 15.0;
/// Cache-read price, USD per million tokens.
pub const PRICE_CACHE_READ: f64 = 0.3;
/// Cache-write price, USD per million tokens.
pub const PRICE_CACHE_WRITE: f64 = 3.75;
/// A model with every price zero: the agent cannot report a cost.
pub const FREE_MODEL_ID: &str = "mock-free";
/// pi's provider for the Chat Completions wire (`openai-completions`).
pub const PI_PROVIDER_OPENAI: &str = "mock";
/// pi's provider for the Anthropic wire (`anthropic-messages`).
pub const PI_PROVIDER_ANTHROPIC: &str = "mock-anthropic";
/// pi's `retry.baseDelayMs` for tests (pi's own default is 2 s, doubling per retry, so a run
/// whose every attempt fails would spend most of its time waiting).
pub const TEST_RETRY_BASE_DELAY_MS: u64 = 10;
/// pi's `retry.maxRetries` (pi's default).
pub const PI_MAX_RETRIES: u32 = 3;
/// `CLAUDE_CODE_MAX_RETRIES` for tests (with Claude's default a persistent error takes minutes).
pub const TEST_CLAUDE_MAX_RETRIES: u32 = 2;
/// The API key both agents are given; the mock ignores it.
pub const DUMMY_API_KEY: &str = "dummy";
/// Context window and output limit of the mock models in `models.json`.
const CONTEXT_WINDOW: u64 = 200_000;
const MAX_OUTPUT_TOKENS: u64 = 8192;

/// Variables that would send a client elsewhere or change its mode; [`PiSetup::apply`] and
/// [`ClaudeSetup::apply`] remove them from the child's environment.
const INTERFERING_ENV: [&str; 12] = [
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CONFIG_DIR",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "HTTP_PROXY",
    "HTTPS_PROXY",
];
/// Keeps any remaining proxy configuration away from the mock.
const NO_PROXY: &str = "127.0.0.1,localhost";

/// Which pi provider (wire) is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PiProvider {
    /// Chat Completions (`mock`).
    OpenAiCompletions,
    /// Anthropic Messages (`mock-anthropic`).
    AnthropicMessages,
}

impl PiProvider {
    /// The provider name in `models.json` (what `--provider` takes).
    pub fn name(self) -> &'static str {
        match self {
            PiProvider::OpenAiCompletions => PI_PROVIDER_OPENAI,
            PiProvider::AnthropicMessages => PI_PROVIDER_ANTHROPIC,
        }
    }
}

/// What goes into pi's `settings.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiOptions {
    /// `defaultProvider`.
    pub provider: PiProvider,
    /// `defaultModel`.
    pub model: String,
    /// `retry.baseDelayMs`.
    pub retry_base_delay_ms: u64,
    /// `retry.maxRetries`.
    pub max_retries: u32,
    /// `retry.provider.maxRetries`: the SDK's own retries (pi ≥ 0.7x; older pi ignores it).
    /// `None` keeps the SDK's default.
    pub provider_max_retries: Option<u32>,
}

impl Default for PiOptions {
    fn default() -> Self {
        Self {
            provider: PiProvider::OpenAiCompletions,
            model: DEFAULT_MODEL_ID.to_owned(),
            retry_base_delay_ms: TEST_RETRY_BASE_DELAY_MS,
            max_retries: PI_MAX_RETRIES,
            provider_max_retries: None,
        }
    }
}

/// pi's `models.json` for a mock at `base_url` (`http://127.0.0.1:PORT`): providers
/// [`PI_PROVIDER_OPENAI`] and [`PI_PROVIDER_ANTHROPIC`], each with the priced `mock-model`, one
/// priced model per built-in scenario (so `--model mock/flaky` picks it), and the free
/// [`FREE_MODEL_ID`].
pub fn pi_models_json(base_url: &str) -> Value {
    let priced = json!({"input": PRICE_INPUT, "output": PRICE_OUTPUT,
                        "cacheRead": PRICE_CACHE_READ, "cacheWrite": PRICE_CACHE_WRITE});
    let free = json!({"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0});
    let model = |id: &str, cost: &Value| {
        json!({"id": id, "name": id, "reasoning": true, "input": ["text"],
               "contextWindow": CONTEXT_WINDOW, "maxTokens": MAX_OUTPUT_TOKENS, "cost": cost})
    };
    let mut models = vec![
        model(DEFAULT_MODEL_ID, &priced),
        model(FREE_MODEL_ID, &free),
    ];
    models.extend(Builtin::names().into_iter().map(|id| model(id, &priced)));
    json!({"providers": {
        PI_PROVIDER_OPENAI: {
            "baseUrl": format!("{base_url}/v1"),
            "api": "openai-completions",
            "apiKey": DUMMY_API_KEY,
            // The system prompt goes out as role `system`, as most compatible servers expect.
            "compat": {"supportsDeveloperRole": false},
            "models": models,
        },
        PI_PROVIDER_ANTHROPIC: {
            "baseUrl": base_url,
            "api": "anthropic-messages",
            "apiKey": DUMMY_API_KEY,
            "models": models,
        },
    }})
}

/// pi's `settings.json`.
pub fn pi_settings_json(options: &PiOptions) -> Value {
    let mut retry = json!({"enabled": true, "maxRetries": options.max_retries,
                           "baseDelayMs": options.retry_base_delay_ms});
    if let Some(max_retries) = options.provider_max_retries {
        retry["provider"] = json!({"maxRetries": max_retries});
    }
    json!({"defaultProvider": options.provider.name(), "defaultModel": options.model,
           "quietStartup": true, "enableInstallTelemetry": false, "retry": retry})
}

/// Writes `models.json` and `settings.json` into `dir` (created if missing).
pub fn write_pi_agent_dir(
    dir: &Path,
    base_url: &str,
    options: &PiOptions,
) -> Result<(), MockError> {
    create_dir(dir)?;
    write_json(&dir.join("models.json"), &pi_models_json(base_url))?;
    write_json(&dir.join("settings.json"), &pi_settings_json(options))
}

/// An isolated HOME and pi agent dir pointing at the mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiSetup {
    /// `ROOT/home`, the child's HOME.
    pub home: PathBuf,
    /// `ROOT/pi-agent`, the child's `PI_CODING_AGENT_DIR`.
    pub agent_dir: PathBuf,
}

impl PiSetup {
    /// Creates `root/home` and `root/pi-agent` with pi's configuration for `base_url`.
    pub fn write(root: &Path, base_url: &str, options: &PiOptions) -> Result<Self, MockError> {
        let setup = Self {
            home: root.join("home"),
            agent_dir: root.join("pi-agent"),
        };
        create_dir(&setup.home)?;
        write_pi_agent_dir(&setup.agent_dir, base_url, options)?;
        Ok(setup)
    }

    /// The variables to set: `HOME`, `PI_CODING_AGENT_DIR`, `PI_OFFLINE=1` (no update check, no
    /// telemetry), `NO_PROXY`.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            ("HOME".to_owned(), self.home.display().to_string()),
            (
                "PI_CODING_AGENT_DIR".to_owned(),
                self.agent_dir.display().to_string(),
            ),
            ("PI_OFFLINE".to_owned(), "1".to_owned()),
            ("NO_PROXY".to_owned(), NO_PROXY.to_owned()),
        ]
    }

    /// Sets [`Self::env`] on `command` and removes the variables that would interfere.
    pub fn apply(&self, command: &mut Command) {
        apply_env(command, self.env());
    }
}

/// Claude Code's settings for a run against the mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeOptions {
    /// `CLAUDE_CODE_MAX_RETRIES`.
    pub max_retries: u32,
    /// `ANTHROPIC_MODEL`; `None` keeps the CLI's default model (it is echoed back by the mock,
    /// and Claude prices the run by that name).
    pub model: Option<String>,
}

impl Default for ClaudeOptions {
    fn default() -> Self {
        Self {
            max_retries: TEST_CLAUDE_MAX_RETRIES,
            model: None,
        }
    }
}

/// An isolated HOME and the environment that points Claude Code at the mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaudeSetup {
    /// `ROOT/home`, the child's HOME (Claude keeps its state in `HOME/.claude*`).
    pub home: PathBuf,
    /// The mock's base URL.
    pub base_url: String,
    /// The options.
    pub options: ClaudeOptions,
}

impl ClaudeSetup {
    /// Creates `root/home`.
    pub fn write(root: &Path, base_url: &str, options: ClaudeOptions) -> Result<Self, MockError> {
        let setup = Self {
            home: root.join("home"),
            base_url: base_url.to_owned(),
            options,
        };
        create_dir(&setup.home)?;
        Ok(setup)
    }

    /// The variables to set. `IS_SANDBOX=1` lets `--dangerously-skip-permissions` run as root
    /// (CI runs as root; without it Claude exits 1 at once). The `DISABLE_*` variables keep it
    /// from dialing anything but the mock.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env = vec![
            ("HOME".to_owned(), self.home.display().to_string()),
            ("ANTHROPIC_BASE_URL".to_owned(), self.base_url.clone()),
            ("ANTHROPIC_API_KEY".to_owned(), DUMMY_API_KEY.to_owned()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".to_owned(),
                "1".to_owned(),
            ),
            ("DISABLE_AUTOUPDATER".to_owned(), "1".to_owned()),
            ("DISABLE_TELEMETRY".to_owned(), "1".to_owned()),
            ("DISABLE_ERROR_REPORTING".to_owned(), "1".to_owned()),
            ("IS_SANDBOX".to_owned(), "1".to_owned()),
            (
                "CLAUDE_CODE_MAX_RETRIES".to_owned(),
                self.options.max_retries.to_string(),
            ),
            ("NO_PROXY".to_owned(), NO_PROXY.to_owned()),
        ];
        if let Some(model) = &self.options.model {
            env.push(("ANTHROPIC_MODEL".to_owned(), model.clone()));
        }
        env
    }

    /// Sets [`Self::env`] on `command` and removes the variables that would interfere.
    pub fn apply(&self, command: &mut Command) {
        apply_env(command, self.env());
    }
}

fn apply_env(command: &mut Command, env: Vec<(String, String)>) {
    for name in INTERFERING_ENV {
        command.env_remove(name);
    }
    command.envs(env);
}

fn create_dir(dir: &Path) -> Result<(), MockError> {
    std::fs::create_dir_all(dir).map_err(|source| MockError::Write {
        path: dir.to_owned(),
        source,
    })
}

fn write_json(path: &Path, value: &Value) -> Result<(), MockError> {
    // Pretty JSON of a `Value` cannot fail to serialize.
    let text = serde_json::to_string_pretty(value).unwrap_or_default() + "\n";
    std::fs::write(path, text).map_err(|source| MockError::Write {
        path: path.to_owned(),
        source,
    })
}
