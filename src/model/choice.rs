//! Which model answers a session's turns (`--model`), and what each turn gives it: the
//! agent's `instructions.md` as the system message, the session's earlier messages as
//! history, and the new message.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use serde_json::Value;

use crate::cli::ModelArgs;
use crate::exit_status::Exit;
use crate::model::ModelStream;
use crate::model::local::{self, LocalModel, Script};
use crate::model::provider::{ChatMessage, ModelSpec, Provider, Role, Settings};
use crate::state::StateStore;
use crate::text::untrusted::escape;

/// The variable that names the model when `--model` does not.
pub const MODEL_VARIABLE: &str = "AGENT_SDK_MODEL";

/// The model that answers.
pub enum ModelChoice {
    /// The embedded model, playing `--script` when one is given.
    Local(Option<Script>),
    Provider(Arc<Provider>),
}

impl ModelChoice {
    /// The model `args` name (else `AGENT_SDK_MODEL`, else `local`), ready to answer.
    /// `lookup` reads a variable from the shell, then from the `.env` files. A model that
    /// cannot be used (unknown, no key, no URL) is a usage error (exit 2).
    pub fn choose(
        args: &ModelArgs,
        script: Option<Script>,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> anyhow::Result<Self> {
        let named = args.model.clone().or_else(|| lookup(MODEL_VARIABLE).filter(|value| !value.trim().is_empty()));
        let spec = match named {
            Some(text) => ModelSpec::parse(&text)?,
            None => ModelSpec::Local,
        };
        match spec {
            ModelSpec::Local => {
                if args.tools.is_some() {
                    return Err(Exit::usage(
                        "--tools offers tools to a real model (--model <provider>:<model>); \
                         the local model calls tools only as a --script says",
                    )
                    .into());
                }
                Ok(Self::Local(script))
            }
            ModelSpec::Remote { provider, model } => {
                if script.is_some() {
                    return Err(Exit::usage(format!(
                        "--script plays the local model's turn; it cannot script `{}`",
                        escape(args.model.as_deref().unwrap_or(&model))
                    ))
                    .into());
                }
                let settings = Settings {
                    base_url: args.base_url.clone(),
                    tools: match &args.tools {
                        Some(path) => read_tools(path)?,
                        None => Vec::new(),
                    },
                    max_steps: args.max_steps,
                    retries: args.model_retries,
                    connect_timeout: args.model_connect_timeout,
                    idle_timeout: args.model_idle_timeout,
                    max_duration: args.model_max_duration,
                };
                Ok(Self::Provider(Arc::new(Provider::connect(provider, &model, settings, lookup)?)))
            }
        }
    }

    /// Why a turn's own `script` cannot be played: only the local model plays scripts.
    pub fn refuses_scripts(&self) -> Option<String> {
        match self {
            ModelChoice::Local(_) => None,
            ModelChoice::Provider(provider) => Some(format!(
                "`script` plays the local model's turn, and this server's model is `{}` \
                 (start dev with --model local to script turns)",
                provider.name()
            )),
        }
    }

    /// The model, as the OpenTelemetry GenAI conventions name it (the local model's
    /// provider is `agent_sdk.local`, its model `local`).
    pub fn gen_ai(&self) -> crate::telemetry::turn_trace::GenAi {
        match self {
            ModelChoice::Local(_) => crate::telemetry::turn_trace::GenAi {
                provider: "agent_sdk.local".to_owned(),
                model: local::LOCAL_MODEL.to_owned(),
            },
            ModelChoice::Provider(provider) => provider.gen_ai(),
        }
    }

    /// Starts a turn answering `message`: the agent's instructions are read now (a `dev`
    /// server sees them change), followed by each mounted extension's (`extra`, SPEC §3a),
    /// and a real model gets the session's history from `store`. `script` (a `dev`
    /// message's own) plays the local model's turn in place of `--script`'s.
    pub fn start_turn(
        &self,
        source_dir: &Path,
        extra: &[String],
        store: &StateStore,
        session_id: &str,
        message: &str,
        script: Option<&Script>,
    ) -> anyhow::Result<Box<dyn ModelStream>> {
        let instructions = system_prompt(std::fs::read_to_string(source_dir.join("instructions.md")).ok(), extra);
        Ok(match self {
            ModelChoice::Local(own) => match script.or(own.as_ref()) {
                Some(script) => Box::new(LocalModel::new(local::play(instructions.as_deref(), message, script))),
                None => Box::new(LocalModel::new(local::local_reply(instructions.as_deref(), message))),
            },
            ModelChoice::Provider(provider) => {
                let mut conversation = Vec::new();
                if let Some(instructions) = instructions.filter(|text| !text.trim().is_empty()) {
                    conversation.push(ChatMessage { role: Role::System, text: instructions });
                }
                let history = store.messages(session_id).context("could not read the session's earlier messages")?;
                conversation.extend(history.into_iter().map(|(from_user, text)| ChatMessage {
                    role: if from_user { Role::User } else { Role::Assistant },
                    text,
                }));
                conversation.push(ChatMessage { role: Role::User, text: message.to_owned() });
                Box::new(provider.start_turn(conversation))
            }
        })
    }
}

/// The agent's own instructions, then each extension's, a blank line between them.
fn system_prompt(own: Option<String>, extra: &[String]) -> Option<String> {
    if extra.is_empty() {
        return own;
    }
    let parts = own.iter().map(|text| text.trim_end()).filter(|text| !text.is_empty());
    let all: Vec<&str> = parts.chain(extra.iter().map(|text| text.trim())).collect();
    Some(all.join("\n\n") + "\n")
}

/// A `--tools` file: an OpenAI `tools` array, each entry a function with a name.
fn read_tools(path: &Path) -> anyhow::Result<Vec<Value>> {
    let shown = escape(&path.display().to_string()).into_owned();
    let text = std::fs::read_to_string(path)
        .map_err(|error| Exit::usage(format!("cannot read --tools file `{shown}`: {error}")))?;
    let tools: Vec<Value> = serde_json::from_str(&text)
        .map_err(|error| Exit::usage(format!("`{shown}` is not an OpenAI tools array (JSON): {error}")))?;
    for (index, tool) in tools.iter().enumerate() {
        if !tool["function"]["name"].is_string() {
            return Err(Exit::usage(format!(
                "`{shown}`: tool {} has no `function.name`; each entry is \
                 {{ \"type\": \"function\", \"function\": {{ \"name\": …, \"parameters\": … }} }}",
                index + 1
            ))
            .into());
        }
    }
    Ok(tools)
}
