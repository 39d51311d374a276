//! `agent-sdk dev`: serve the agent locally over HTTP until Ctrl-C, SIGTERM or SIGHUP.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use anyhow::Context;

use crate::cli::DevArgs;
use crate::exit_status::{Exit, ExitStatus};
use crate::model::choice::ModelChoice;
use crate::printer::Printer;
use crate::runtime::node_version::{NodeUse, end_of_life_warning, probe_node};
use crate::server::agent::{Agent, Described, HookSet};
use crate::server::auth::Auth;
use crate::server::logs::Followers;
use crate::server::sessions::Sessions;
use crate::server::token::load_or_create_token;
use crate::server::{Server, connections, is_loopback, router, watch};
use crate::session::{self, Started};
use crate::state::StateRoot;
use crate::state::dev_file::{DevFile, DevFileLease};
use crate::state::log_record::{Level, Record};

/// Checks the hooks, then serves until stopped; exits 0 after a clean stop.
pub fn dev(args: &DevArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let address = SocketAddr::new(args.host, args.port());
    if !is_loopback(&address) && !args.allow_remote {
        anyhow::bail!(
            "refusing to listen on {address}: that exposes the agent to the network; pass --allow-remote if you mean it"
        );
    }
    let options = session::Options {
        dir: &args.dir.dir,
        env: args.env.files(),
        hook_timeout: args.hook_timeout,
        mount_as: "dev",
        refused: "the server did not start",
    };
    let started = session::start(&options, printer, |_, _| Ok(()))?;
    let node = probe_node(&started.setup.node, &started.setup.env, NodeUse::Hooks)?;
    let model = ModelChoice::choose(&args.model, None, &|name| started.env.lookup(name))?;
    // First of the start-up lines, and in the serve log, so `logs` and the playground say
    // it too; taken here, no session's runtime says it again.
    let startup_lines: Vec<Record> = end_of_life_warning(node)
        .map(|warning| Record::new(Level::Warn, warning))
        .into_iter()
        .chain(started.startup_lines(&model))
        .collect();
    let described = Described::of(&started.checked, &started.setup.project.dir);
    let Started { setup, plan, .. } = started;
    let state_root = setup.state_root.clone();
    let token = load_or_create_token(&state_root, args.rotate_token)?;
    let (log_cursor, _) = tokio::sync::watch::channel(0);
    let (events_recorded, _) = tokio::sync::watch::channel(0);
    let agent = Arc::new(Agent {
        setup,
        model,
        stopping: AtomicBool::new(false),
        session_idle: args.session_idle,
        log_format: args.log_format,
        quiet: printer.is_quiet(),
        hooks: RwLock::new(HookSet { generation: 0, plan }),
        log_cursor: Arc::new(log_cursor),
        events_recorded: Arc::new(events_recorded),
        described: RwLock::new(Arc::new(described)),
        runtime: Mutex::default(),
    });
    // Listening, and taking dev.json, come before the first line of the serve log: a server
    // that cannot start writes nothing into the log of the one that holds the port.
    let listener = listen(address)?;
    let url = format!("http://{}", listener.local_addr().context("could not serve the socket")?);
    let (lease, first) = match claim_dev_file(&state_root, args)? {
        Claim::Taken(mut lease) => {
            lease.write(&DevFile { url: url.clone(), token: token.clone(), pid: Some(std::process::id()) })?;
            (Some(lease), None)
        }
        Claim::Beside(first) => (None, Some(first)),
    };
    let log = agent.serve_log(None)?;
    if let Some(first) = &first {
        let pid = first.pid.map_or_else(|| "pid unknown".to_owned(), |pid| format!("pid {pid}"));
        log.warn(format!(
            "another agent-sdk dev at {} serves this project too ({pid}) and keeps .agent-sdk/dev.json: `logs` finds this one with --host {url}",
            first.url
        ));
    }
    startup_lines.into_iter().for_each(|record| log.write(record));
    if !is_loopback(&address) {
        log.warn(format!(
            "listening on {address}, which is reachable from the network: anyone with the token can use the agent"
        ));
    }

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let sessions = Arc::new(Sessions::new(Arc::clone(&agent), args.max_sessions as usize));
    let (stop_sender, stopping) = tokio::sync::watch::channel(false);
    let server = Server {
        agent: Arc::clone(&agent),
        sessions: Arc::clone(&sessions),
        followers: Arc::new(Followers::new(agent.project().dir.clone())),
        auth: Arc::new(Auth {
            dev_token: token.clone(),
            bearer_token: args.bearer_token.clone(),
            allow_anonymous: args.allow_anonymous,
        }),
        url: Arc::new(url.clone()),
        allow_remote: args.allow_remote,
        stopping,
    };
    let stop_watching = Arc::new(AtomicBool::new(false));
    let watcher = watch::spawn(Arc::clone(&agent), Arc::clone(&stop_watching));

    runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener).context("could not serve the socket")?;
        log.info(format!("serving {} on {url} (token in .agent-sdk/dev.json)", agent.project().name));
        // The token is in this line: it goes to the terminal, not into the log or an export.
        let playground = format!("playground: {url}/playground#token={token} (open it in a browser)");
        log.terminal_only(&Record::new(Level::Info, playground));
        log.info(format!(
            "talk to it: `{} chat`, or POST {url}/v1/session {{\"message\": \"…\"}} (the hosting API; {url}/ lists the routes)",
            crate::process::invocation::command()
        ));
        let stopping_agent = Arc::clone(&agent);
        connections::serve(listener, router(server), async move {
            crate::platform::signals::stop_requested().await;
            stopping_agent.stopping.store(true, Ordering::SeqCst);
            let _ = stop_sender.send(true);
        })
        .await;
        anyhow::Ok(())
    })?;
    log.info("stopping: finishing what was recorded");
    stop_watching.store(true, Ordering::SeqCst);
    sessions.shut_down();
    let _ = watcher.join();
    drop(runtime);
    if let Some(telemetry) = &agent.setup.telemetry {
        telemetry.shutdown().into_iter().for_each(|warning| log.warn(warning));
    }
    log.info("stopped");
    // Held until here: dev.json names this server for as long as it runs.
    drop(lease);
    Ok(ExitStatus::Success)
}

/// Whether this server writes `dev.json`.
enum Claim {
    /// It does: no other server of the project runs.
    Taken(DevFileLease),
    /// Another server of the project runs (this one has a port of its own): it keeps the file.
    Beside(DevFile),
}

/// Takes `dev.json`, unless another server of the project runs: then this one is refused
/// (naming the other: its URL and pid), unless it was given a port of its own (it then runs
/// beside the other, which keeps the file), and never with `--rotate-token` (the other
/// would keep serving with the old token, and nothing would say the new one).
fn claim_dev_file(root: &StateRoot, args: &DevArgs) -> anyhow::Result<Claim> {
    let first = match DevFileLease::take(root)? {
        Ok(lease) => return Ok(Claim::Taken(lease)),
        Err(first) => first.unwrap_or(DevFile { url: "an unknown URL".to_owned(), token: String::new(), pid: None }),
    };
    let running = format!(
        "{} dev already serves this project at {} ({})",
        crate::process::invocation::command(),
        first.url,
        who(&first)
    );
    if args.rotate_token {
        return Err(
            Exit::usage(format!("{running}; --rotate-token would change the token it uses: stop it first")).into()
        );
    }
    match args.port {
        Some(port) if port != 0 => Ok(Claim::Beside(first)),
        _ => Err(Exit::usage(format!(
            "{running}; use it (`{} logs` follows it), stop it, or pass a --port other than its own to run another beside it",
            crate::process::invocation::command()
        ))
        .into()),
    }
}

/// The server `dev.json` names, as `/proc` tells of the process on its port (its pid, where
/// and how it was started), else by the pid the file holds.
fn who(dev: &DevFile) -> String {
    let port = reqwest::Url::parse(&dev.url).ok().and_then(|url| url.port_or_known_default());
    match port.and_then(crate::server::port_owner::agent_sdk_on) {
        Some(owner) => owner.to_string(),
        None => dev.pid.map_or_else(|| "pid unknown".to_owned(), |pid| format!("pid {pid}")),
    }
}

/// The socket the server will serve, bound now; when the port is taken, who holds it (another
/// agent-sdk server: its pid, where and how it was started) and what to do.
fn listen(address: SocketAddr) -> anyhow::Result<std::net::TcpListener> {
    let listener = match std::net::TcpListener::bind(address) {
        Ok(listener) => listener,
        Err(problem) if problem.kind() == std::io::ErrorKind::AddrInUse => {
            let who = match crate::server::port_owner::agent_sdk_on(address.port()) {
                Some(other) => format!("another agent-sdk server holds it ({other})"),
                None => format!("{problem}"),
            };
            anyhow::bail!(
                "could not listen on {address}: {who}; pass --port 0 for a free port (the URL goes to .agent-sdk/dev.json), or stop that server"
            );
        }
        Err(problem) => return Err(anyhow::Error::new(problem).context(format!("could not listen on {address}"))),
    };
    listener.set_nonblocking(true).context("could not serve the socket")?;
    Ok(listener)
}
