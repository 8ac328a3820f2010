//! Turns a backend, its config and a prompt into the exact program, arguments and stdin
//! bytes to run. Pure: nothing is spawned or looked up here.

use std::ffi::OsString;

use ralph_stream::StreamFormat;

use crate::BackendKind;
use crate::backend::delivery::{ArgProblem, check_prompt_arg};
use crate::backend::{
    BackendProfile, CustomSettings, LiveInput, MAX_SINGLE_ARG_BYTES, PromptDelivery, PromptMode,
    Steering,
};
use crate::supervise::{SpawnSpec, StdinSource};

/// A headless command line, ready to be supervised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// The prompt bytes for stdin, `Null`, or the live input (`Live`) of a steered run.
    pub stdin: StdinSource,
    pub output_format: StreamFormat,
    pub pty: bool,
    /// The handle for steering the agent while it runs (the same input as `stdin`), when
    /// it is run to take steering mid-turn.
    pub live: Option<LiveInput>,
}

impl CommandLine {
    /// The spawn description for the supervisor, with the caller's environment additions
    /// and working directory.
    pub fn into_spawn_spec(
        self,
        env: Vec<(OsString, OsString)>,
        cwd: Option<std::path::PathBuf>,
    ) -> SpawnSpec {
        SpawnSpec {
            program: self.program,
            args: self.args,
            env,
            cwd,
            stdin: self.stdin,
            pty: self.pty,
            // An agent's stdout is its event stream: stderr stays apart.
            merge_stderr: false,
            // Headless: nothing an agent runs may ask on ralph's terminal. In a process
            // group of ralph's session, a tool that opened /dev/tty (sudo, an ssh
            // passphrase, a git hook's question) was stopped by the kernel on its read
            // and the agent waited on it, silent, until the idle timeout; with no
            // terminal the open fails at once and the agent sees the error.
            own_session: true,
        }
    }
}

/// An interactive command line (`ralph plan`): the prompt is always an argument because
/// stdin belongs to the user's terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteractiveCommand {
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// Why a command line could not be built. Each names the backend and says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("the custom backend needs a command: set `cli.command` in ralph.yml")]
    CustomWithoutCommand,
    #[error(
        "the prompt is {bytes} bytes, but `{backend}` takes it as a command-line argument and Linux limits one argument to {limit} bytes; shorten the prompt, or use a backend that reads stdin (for a custom command: `prompt_mode: stdin`)"
    )]
    PromptTooLongForArgv {
        backend: BackendKind,
        bytes: usize,
        limit: usize,
    },
    #[error(
        "the prompt contains a NUL byte, which cannot be passed to `{backend}` as a command-line argument; remove it or deliver the prompt on stdin"
    )]
    PromptContainsNul { backend: BackendKind },
    #[error(
        "the prompt starts with `-`, which `{backend}` would read as an option when given as an argument; start it with another character, or deliver it on stdin"
    )]
    PromptStartsWithDash { backend: BackendKind },
}

/// Builds command lines for one backend. Extra arguments accumulate in call order
/// (backend-level config first, then the hat's), after the backend's own arguments.
#[derive(Clone, Debug)]
pub struct CommandBuilder<'a> {
    kind: BackendKind,
    profile: BackendProfile,
    command_override: Option<&'a str>,
    extra_args: Vec<&'a str>,
    custom: Option<&'a CustomSettings>,
    /// Run headless on a terminal although the backend does not need one (`cli.pty`).
    pty: bool,
    /// Run it to take steering messages mid-turn where it can (`cli.steering`).
    steering: bool,
}

impl<'a> CommandBuilder<'a> {
    pub fn new(kind: BackendKind) -> Self {
        CommandBuilder {
            kind,
            profile: BackendProfile::of(kind),
            command_override: None,
            extra_args: Vec::new(),
            custom: None,
            pty: false,
            steering: false,
        }
    }

    /// Runs this program instead of the backend's binary (`cli.command`), keeping the
    /// backend's arguments and delivery.
    pub fn command_override(mut self, command: Option<&'a str>) -> Self {
        self.command_override = command;
        self
    }

    /// Appends arguments from the config (per backend or per hat).
    pub fn extra_args(mut self, args: &'a [String]) -> Self {
        self.extra_args.extend(args.iter().map(String::as_str));
        self
    }

    /// The settings of a custom backend (ignored for the others).
    pub fn custom(mut self, settings: &'a CustomSettings) -> Self {
        self.custom = Some(settings);
        self
    }

    /// Runs headless iterations on a pseudo-terminal even when the backend works on pipes,
    /// for an agent that misbehaves without a terminal. The terminal is then the agent's
    /// stdin, so a prompt the backend reads from stdin becomes its last argument instead
    /// (and is checked like any argument).
    pub fn pty(mut self, pty: bool) -> Self {
        self.pty = pty;
        self
    }

    /// Runs the agent so that it takes steering messages during its turn, where it can
    /// ([`Self::live_steering`]); otherwise this changes nothing.
    pub fn steering(mut self, steering: bool) -> Self {
        self.steering = steering;
        self
    }

    /// How a headless run takes steering mid-turn: asked for, the backend has a way
    /// (pi, Claude Code; never a custom program, whose input is unknown), and its stdin is
    /// a pipe, not a terminal.
    pub fn live_steering(&self) -> Option<Steering> {
        let custom = self.kind == BackendKind::Custom;
        (self.steering && !custom && !self.headless_pty())
            .then_some(self.profile.steering)
            .flatten()
    }

    /// The command line of one headless iteration.
    pub fn headless(&self, prompt: &str) -> Result<CommandLine, BuildError> {
        if let Some(steering) = self.live_steering() {
            // The prompt is the first command on the live stdin: no size limit, no
            // option parsing.
            let (program, args) = self.program_and_base_args(steering.headless_args)?;
            let live = LiveInput::start(steering.protocol, prompt);
            return Ok(CommandLine {
                program,
                args,
                stdin: live.stdin_source(),
                output_format: self.output_format(),
                pty: false,
                live: Some(live),
            });
        }
        let (program, mut args) = self.program_and_base_args(self.profile.headless_args)?;
        let delivery = self.headless_delivery();
        let stdin = match self.place_prompt(&mut args, &delivery, prompt)? {
            Placed::OnStdin => StdinSource::Bytes(prompt.as_bytes().to_vec()),
            Placed::InArgs => StdinSource::Null,
        };
        Ok(CommandLine {
            program,
            args,
            stdin,
            output_format: self.output_format(),
            pty: self.headless_pty(),
            live: None,
        })
    }

    /// The command line of an interactive session started with `prompt`.
    pub fn interactive(&self, prompt: &str) -> Result<InteractiveCommand, BuildError> {
        let (program, mut args) = self.program_and_base_args(self.profile.interactive_args)?;
        let delivery = match self.kind {
            BackendKind::Custom => match self.custom.and_then(|c| c.prompt_flag.clone()) {
                Some(flag) => PromptDelivery::Flag(flag),
                None => PromptDelivery::Arg,
            },
            _ => self.profile.interactive_delivery.clone(),
        };
        // The terminal is the session's stdin, so a stdin delivery becomes an argument.
        let delivery = match delivery {
            PromptDelivery::Stdin => PromptDelivery::Arg,
            other => other,
        };
        self.place_prompt(&mut args, &delivery, prompt)?;
        Ok(InteractiveCommand { program, args })
    }

    /// How the prompt is delivered headless, custom settings and the terminal applied.
    pub fn headless_delivery(&self) -> PromptDelivery {
        let delivery = match (self.kind, self.custom) {
            (BackendKind::Custom, Some(c)) => match (c.prompt_mode, &c.prompt_flag) {
                (PromptMode::Stdin, _) => PromptDelivery::Stdin,
                (PromptMode::Arg, Some(flag)) => PromptDelivery::Flag(flag.clone()),
                (PromptMode::Arg, None) => PromptDelivery::Arg,
            },
            _ => self.profile.headless_delivery.clone(),
        };
        match delivery {
            // The terminal is the agent's stdin: nothing else can be written there. The
            // configuration refuses `prompt_mode: stdin` with `pty: true`, so this only
            // serves callers that build a command line without it.
            PromptDelivery::Stdin if self.headless_pty() => PromptDelivery::Arg,
            other => other,
        }
    }

    /// Whether a headless run gets a terminal: asked for, or needed by the backend.
    fn headless_pty(&self) -> bool {
        self.pty || self.profile.needs_pty
    }

    /// What the command writes on stdout, custom settings applied.
    pub fn output_format(&self) -> StreamFormat {
        match self.kind {
            BackendKind::Custom => self
                .custom
                .and_then(|c| c.output_format)
                .unwrap_or(self.profile.output_format),
            _ => self.profile.output_format,
        }
    }

    fn program_and_base_args(
        &self,
        base: &'static [&'static str],
    ) -> Result<(OsString, Vec<OsString>), BuildError> {
        // `cli.command` wins; a custom backend may also carry its command in its settings.
        let custom_command = match self.kind {
            BackendKind::Custom => self.custom.and_then(|c| c.command.as_deref()),
            _ => None,
        };
        let program = self
            .command_override
            .or(custom_command)
            .or(self.profile.binary)
            .ok_or(BuildError::CustomWithoutCommand)?;
        let mut args: Vec<OsString> = base.iter().map(OsString::from).collect();
        if let (BackendKind::Custom, Some(c)) = (self.kind, self.custom) {
            args.extend(c.args.iter().map(OsString::from));
        }
        args.extend(self.extra_args.iter().map(OsString::from));
        Ok((OsString::from(program), args))
    }

    fn place_prompt(
        &self,
        args: &mut Vec<OsString>,
        delivery: &PromptDelivery,
        prompt: &str,
    ) -> Result<Placed, BuildError> {
        let problem = |p: ArgProblem| match p {
            ArgProblem::TooLong { bytes } => BuildError::PromptTooLongForArgv {
                backend: self.kind,
                bytes,
                limit: MAX_SINGLE_ARG_BYTES - 1,
            },
            ArgProblem::ContainsNul => BuildError::PromptContainsNul { backend: self.kind },
            ArgProblem::StartsWithDash => BuildError::PromptStartsWithDash { backend: self.kind },
        };
        match delivery {
            PromptDelivery::Stdin => return Ok(Placed::OnStdin),
            PromptDelivery::Arg => {
                check_prompt_arg(prompt, false).map_err(problem)?;
            }
            PromptDelivery::ArgAfterSeparator => {
                check_prompt_arg(prompt, true).map_err(problem)?;
                args.push(OsString::from("--"));
            }
            PromptDelivery::Flag(flag) => {
                check_prompt_arg(prompt, false).map_err(problem)?;
                args.push(OsString::from(flag));
            }
        }
        args.push(OsString::from(prompt));
        Ok(Placed::InArgs)
    }
}

enum Placed {
    OnStdin,
    InArgs,
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
