//! The stopping signals on Unix (SIGINT, SIGTERM, SIGHUP), delivered by signal-hook to a
//! thread, or to tokio as streams.

/// The thread that will call `handler` with the number of each of `signals` received, started
/// now; the signals keep their default action until [`PreparedSignals::arm`] (a thread's
/// start, some 0.3 ms here, is then paid where nothing waits for it).
pub fn prepare_signals(
    signals: &[i32],
    mut handler: impl FnMut(i32) + Send + 'static,
) -> std::io::Result<PreparedSignals> {
    let mut delivered = signal_hook::iterator::Signals::new::<[i32; 0], i32>([])?;
    let handle = delivered.handle();
    std::thread::Builder::new().name("agent-sdk-signals".to_owned()).spawn(move || {
        for signal in delivered.forever() {
            handler(signal);
        }
    })?;
    Ok(PreparedSignals { handle, signals: signals.to_vec() })
}

/// Signals whose thread is waiting for them (see [`prepare_signals`]).
pub struct PreparedSignals {
    handle: signal_hook::iterator::Handle,
    signals: Vec<i32>,
}

impl PreparedSignals {
    /// The signals go to the thread from now on, in place of their default action.
    pub fn arm(&self) -> std::io::Result<()> {
        self.signals.iter().try_for_each(|signal| self.handle.add_signal(*signal))
    }
}

/// Ctrl-C (SIGINT) as a stream, for one listener that lasts a whole command.
pub struct Interrupts(tokio::signal::unix::Signal);

impl Interrupts {
    /// Listens from now on (in a tokio runtime).
    pub fn listen() -> std::io::Result<Self> {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).map(Self)
    }

    /// The next Ctrl-C.
    pub async fn recv(&mut self) {
        self.0.recv().await;
    }
}

/// Ctrl-C, SIGTERM or SIGHUP (a closed terminal), whichever comes first.
pub async fn stop_requested() {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = tokio::signal::ctrl_c();
    let (Ok(mut terminate), Ok(mut hang_up)) = (signal(SignalKind::terminate()), signal(SignalKind::hangup())) else {
        let _ = interrupt.await;
        return;
    };
    tokio::select! {
        _ = interrupt => {}
        _ = terminate.recv() => {}
        _ = hang_up.recv() => {}
    }
}
