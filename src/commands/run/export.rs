//! The end of `run`'s export: what is pending reaches the collector however the run ends
//! (done, a failed turn, a hook that threw, Ctrl-C, an error), within the flush bound.

use std::sync::Arc;

use crate::state::serve_log::ServeLog;
use crate::telemetry::Telemetry;

/// Flushes the exporters once: when told to, else when the run returns by any path.
pub struct FlushAtEnd<'l> {
    telemetry: Option<Arc<Telemetry>>,
    log: &'l ServeLog,
}

impl<'l> FlushAtEnd<'l> {
    pub fn new(telemetry: Option<Arc<Telemetry>>, log: &'l ServeLog) -> Self {
        Self { telemetry, log }
    }

    /// Flushes now (after the last line it exports); what failed is a warning of the log.
    pub fn now(&mut self) {
        if let Some(telemetry) = self.telemetry.take() {
            telemetry.shutdown().into_iter().for_each(|warning| self.log.warn(warning));
        }
    }
}

impl Drop for FlushAtEnd<'_> {
    fn drop(&mut self) {
        self.now();
    }
}
