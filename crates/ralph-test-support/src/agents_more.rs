//! Configuration that points Codex, Gemini CLI, OpenCode and Copilot at the mock, in an
//! isolated root: each gets `ROOT/home` as HOME (and the XDG directories under it),
//! `ROOT/tmp` as TMPDIR, its own config files there, and the environment that keeps it
//! offline. The facts come from `shared/realworld/<agent>/README.md` and were checked again
//! with `strace -e connect,sendto`: with these settings each connects to 127.0.0.1 only.
//!
//! - **Codex** (0.169.0): a `[model_providers.mock]` in `CODEX_HOME/config.toml` on the
//!   Responses wire (`OPENAI_BASE_URL` is ignored by the built-in provider, which dials a
//!   WebSocket instead), no update check, no analytics, and no plugins: Codex otherwise syncs
//!   its curated plugin list at every start (`git ls-remote` on github.com, then
//!   api.github.com, then chatgpt.com).
//! - **Gemini CLI** (0.61.0): `GOOGLE_GEMINI_BASE_URL` with API-key auth, usage statistics,
//!   telemetry and update checks off in `~/.gemini/settings.json`, the workspace trusted.
//! - **OpenCode** (1.18.33): an `@ai-sdk/openai-compatible` provider in
//!   `XDG_CONFIG_HOME/opencode/opencode.json`, models.dev fetch, LSP downloads, sharing and
//!   auto-update off. OpenCode also runs `npm install @opencode-ai/plugin` in every config
//!   directory that lacks it (a registry query at each start); a `node_modules/` and a
//!   `package-lock.json` that already lists the plugin make it skip that.
//! - **Copilot** (1.0.102): BYOK mode (`COPILOT_PROVIDER_*`) with `COPILOT_OFFLINE=true`,
//!   which turns off GitHub auth, telemetry, web tools and auto-update.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::agents::{
    DUMMY_API_KEY, PRICE_CACHE_READ, PRICE_CACHE_WRITE, PRICE_INPUT, PRICE_OUTPUT,
};
use crate::error::MockError;
use crate::handler::DEFAULT_MODEL_ID;

/// The model Codex is configured with: a slug Codex 0.169.0 knows (an unknown one works but
/// adds a "Model metadata not found" error item to every run).
pub const CODEX_MODEL: &str = "gpt-5.5";
/// The model Gemini CLI is configured with (a fixed one: `auto` adds a routing request).
pub const GEMINI_MODEL: &str = "gemini-2.5-pro";
/// The model Copilot is configured with: `gpt-4.1` gets the `bash`/`create`/`view` tools
/// (`gpt-5.x` gets an `apply_patch` tool instead).
pub const COPILOT_MODEL: &str = "gpt-4.1";
/// OpenCode's provider id for the mock.
pub const OPENCODE_PROVIDER: &str = "mock";
/// Gemini CLI's `general.maxAttempts` for tests: one retry, so a persistent error fails fast.
pub const TEST_GEMINI_MAX_ATTEMPTS: u32 = 2;

/// Variables that would send one of these agents elsewhere, authenticate it for real, or move
/// its configuration out of the isolated root; [`AgentSetup::apply`] removes them.
const INTERFERING_ENV: [&str; 24] = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GEMINI_MODEL",
    "OPENCODE_CONFIG",
    "OPENCODE_CONFIG_DIR",
    "OPENCODE_CONFIG_CONTENT",
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "COPILOT_PROVIDER_BEARER_TOKEN",
    "COPILOT_PROVIDER_API_KEY_COMMAND",
    "COPILOT_ALLOW_ALL",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];
/// Keeps any remaining proxy configuration away from the mock.
const NO_PROXY: &str = "127.0.0.1,localhost";

/// Codex's settings for a run against the mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexOptions {
    /// `model` in `config.toml`.
    pub model: String,
    /// The provider's `request_max_retries` and `stream_max_retries` (Codex's defaults turn
    /// one persistent 500 into 30 requests over 24 s).
    pub retries: u32,
}

impl Default for CodexOptions {
    fn default() -> Self {
        Self {
            model: CODEX_MODEL.to_owned(),
            retries: 0,
        }
    }
}

/// Gemini CLI's settings for a run against the mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiOptions {
    /// `model.name` in `settings.json`.
    pub model: String,
    /// `general.maxAttempts`.
    pub max_attempts: u32,
}

impl Default for GeminiOptions {
    fn default() -> Self {
        Self {
            model: GEMINI_MODEL.to_owned(),
            max_attempts: TEST_GEMINI_MAX_ATTEMPTS,
        }
    }
}

/// Copilot's settings for a run against the mock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopilotOptions {
    /// `COPILOT_MODEL`.
    pub model: String,
    /// `COPILOT_PROVIDER_WIRE_API`: `completions` or `responses`.
    pub wire_api: String,
}

impl Default for CopilotOptions {
    fn default() -> Self {
        Self {
            model: COPILOT_MODEL.to_owned(),
            wire_api: "completions".to_owned(),
        }
    }
}

/// An isolated root set up for one agent, and the environment that runs it there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSetup {
    /// `ROOT/home`, the child's HOME.
    pub home: PathBuf,
    /// `ROOT/tmp`, the child's TMPDIR (Gemini CLI drops crash reports there).
    pub tmp: PathBuf,
    env: Vec<(String, String)>,
}

impl AgentSetup {
    /// Codex: `ROOT/home/.codex/config.toml` with a `mock` provider at `base_url/v1`.
    pub fn codex(root: &Path, base_url: &str, options: &CodexOptions) -> Result<Self, MockError> {
        let mut setup = Self::base(root)?;
        let codex_home = setup.home.join(".codex");
        create_dir(&codex_home)?;
        let config = format!(
            "model = {model:?}\nmodel_provider = \"mock\"\ncheck_for_update_on_startup = false\n\n\
             [model_providers.mock]\nname = \"Mock\"\nbase_url = \"{base_url}/v1\"\n\
             env_key = \"MOCK_API_KEY\"\nwire_api = \"responses\"\n\
             request_max_retries = {retries}\nstream_max_retries = {retries}\n\n\
             [analytics]\nenabled = false\n\n[features]\nplugins = false\n",
            model = options.model,
            retries = options.retries,
        );
        write_text(&codex_home.join("config.toml"), &config)?;
        setup.set("CODEX_HOME", codex_home.display().to_string());
        setup.set("MOCK_API_KEY", DUMMY_API_KEY);
        Ok(setup)
    }

    /// Gemini CLI: `ROOT/home/.gemini/settings.json` and `GOOGLE_GEMINI_BASE_URL`.
    pub fn gemini(root: &Path, base_url: &str, options: &GeminiOptions) -> Result<Self, MockError> {
        let mut setup = Self::base(root)?;
        let dir = setup.home.join(".gemini");
        create_dir(&dir)?;
        let settings = json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "model": {"name": options.model},
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false,
                        "maxAttempts": options.max_attempts},
        });
        write_json(&dir.join("settings.json"), &settings)?;
        setup.set("GEMINI_API_KEY", DUMMY_API_KEY);
        setup.set("GOOGLE_GEMINI_BASE_URL", base_url);
        setup.set("GEMINI_CLI_TRUST_WORKSPACE", "true");
        // Without a terminal Gemini CLI warns about colours; the warnings are harmless.
        setup.set("TERM", "dumb");
        Ok(setup)
    }

    /// OpenCode: `XDG_CONFIG_HOME/opencode/opencode.json` with provider
    /// [`OPENCODE_PROVIDER`] at `base_url/v1`, its model [`DEFAULT_MODEL_ID`] priced at the
    /// mock's prices (so OpenCode reports a cost), and the plugin install pre-empted.
    pub fn opencode(root: &Path, base_url: &str) -> Result<Self, MockError> {
        let mut setup = Self::base(root)?;
        let dir = setup.home.join(".config/opencode");
        create_dir(&dir.join("node_modules"))?;
        write_json(
            &dir.join("package-lock.json"),
            &json!({"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}),
        )?;
        write_json(&dir.join("opencode.json"), &opencode_json(base_url))?;
        for (name, value) in [
            ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
            ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
            ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
            ("OPENCODE_DISABLE_SHARE", "1"),
            ("TERM", "dumb"),
        ] {
            setup.set(name, value);
        }
        Ok(setup)
    }

    /// Copilot: BYOK at `base_url/v1`, offline.
    pub fn copilot(
        root: &Path,
        base_url: &str,
        options: &CopilotOptions,
    ) -> Result<Self, MockError> {
        let mut setup = Self::base(root)?;
        let copilot_home = setup.home.join(".copilot");
        create_dir(&copilot_home)?;
        setup.set("COPILOT_HOME", copilot_home.display().to_string());
        for (name, value) in [
            ("COPILOT_OFFLINE", "true"),
            ("COPILOT_AUTO_UPDATE", "false"),
            ("COPILOT_PROVIDER_TYPE", "openai"),
            ("COPILOT_PROVIDER_API_KEY", DUMMY_API_KEY),
            ("NO_COLOR", "1"),
            ("TERM", "dumb"),
        ] {
            setup.set(name, value);
        }
        setup.set("COPILOT_PROVIDER_BASE_URL", format!("{base_url}/v1"));
        setup.set("COPILOT_PROVIDER_WIRE_API", options.wire_api.clone());
        setup.set("COPILOT_MODEL", options.model.clone());
        Ok(setup)
    }

    /// `ROOT/home` and `ROOT/tmp`, and the variables every agent gets.
    fn base(root: &Path) -> Result<Self, MockError> {
        let home = root.join("home");
        let tmp = root.join("tmp");
        create_dir(&home)?;
        create_dir(&tmp)?;
        let mut setup = Self {
            env: Vec::new(),
            home: home.clone(),
            tmp: tmp.clone(),
        };
        setup.set("HOME", home.display().to_string());
        setup.set("TMPDIR", tmp.display().to_string());
        for (name, dir) in [
            ("XDG_CONFIG_HOME", ".config"),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_STATE_HOME", ".local/state"),
            ("XDG_CACHE_HOME", ".cache"),
        ] {
            setup.set(name, home.join(dir).display().to_string());
        }
        setup.set("NO_PROXY", NO_PROXY);
        Ok(setup)
    }

    fn set(&mut self, name: &str, value: impl Into<String>) {
        self.env.push((name.to_owned(), value.into()));
    }

    /// The variables to set.
    pub fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// Sets [`Self::env`] on `command` and removes the variables that would interfere.
    pub fn apply(&self, command: &mut Command) {
        for name in INTERFERING_ENV {
            command.env_remove(name);
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
    }
}

/// OpenCode's config for a mock at `base_url`.
pub fn opencode_json(base_url: &str) -> Value {
    json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {OPENCODE_PROVIDER: {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Mock",
            "options": {"baseURL": format!("{base_url}/v1"), "apiKey": DUMMY_API_KEY},
            "models": {DEFAULT_MODEL_ID: {
                "name": "Mock Model",
                "tool_call": true,
                "cost": {"input": PRICE_INPUT, "output": PRICE_OUTPUT,
                         "cache_read": PRICE_CACHE_READ, "cache_write": PRICE_CACHE_WRITE},
            }},
        }},
        "model": format!("{OPENCODE_PROVIDER}/{DEFAULT_MODEL_ID}"),
        "autoupdate": false,
        "share": "disabled",
    })
}

fn create_dir(dir: &Path) -> Result<(), MockError> {
    std::fs::create_dir_all(dir).map_err(|source| MockError::Write {
        path: dir.to_owned(),
        source,
    })
}

fn write_text(path: &Path, text: &str) -> Result<(), MockError> {
    std::fs::write(path, text).map_err(|source| MockError::Write {
        path: path.to_owned(),
        source,
    })
}

fn write_json(path: &Path, value: &Value) -> Result<(), MockError> {
    // Pretty JSON of a `Value` cannot fail to serialize.
    write_text(
        path,
        &(serde_json::to_string_pretty(value).unwrap_or_default() + "\n"),
    )
}
