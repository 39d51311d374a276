//! The handler slot: a small file the runtime overwrites before each handler it runs (and
//! when it goes idle), and agent-sdk reads only when it needs to know whose handler runs:
//! to name one that never yields, the one a crash cut off, or whose child printed a line.
//! A write costs Node one `pwrite` and agent-sdk nothing, where a protocol line before
//! every handler cost a pipe write and a wake-up of two threads here.
//!
//! The file has no name (only the two processes hold it) and lives in memory where the
//! kernel has `memfd_create` (`platform::files::anonymous_file`). It holds a
//! record of 24 bytes for each session lane (`run` has one, at offset 0; a `dev` runtime
//! one for each session it serves), little-endian: `u32` generation (one counter for every
//! lane, so the running record with the highest started last), `u32` kind (0 idle, 1 the
//! handler for the event's type, 2 its `"*"` handler), `f64` the event's `seq` (idle: the
//! last event finished, -1 none), `u32` hook index, `u32` the generation again. A read that
//! finds the two generations different caught a write half done and reads again.

use std::fs::File;
use std::sync::Arc;

/// The size of a lane's record.
const SLOT_BYTES: usize = 24;

/// What the runtime is doing, as it last said.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlotReading {
    /// Grows with every write: a handler run twice is two generations.
    pub generation: u32,
    pub state: RuntimeState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeState {
    /// Nothing written yet (the runtime is loading hooks).
    Starting,
    /// Waiting for work; every event up to `through` (if any) went through its hooks.
    Idle { through: Option<u64> },
    /// A handler runs (or awaits): every event before `seq` went through its hooks.
    Running(RunningHandler),
}

/// The handler that runs: hook `hook`'s handler for event `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunningHandler {
    pub seq: u64,
    pub hook: usize,
    /// The `"*"` handler, rather than the one for the event's type.
    pub any: bool,
}

/// agent-sdk's handle on a runtime's slot (shared by the threads that read it).
#[derive(Debug, Clone)]
pub struct HandlerSlot {
    file: Arc<File>,
}

impl HandlerSlot {
    /// A new, empty slot: an anonymous file in memory, which only the two processes hold and
    /// nothing of which reaches a disk, nor is left behind.
    pub fn create() -> std::io::Result<Self> {
        let file = crate::platform::files::anonymous_file(c"agent-sdk-handler-slot")?;
        crate::platform::files::write_all_at(&file, &[0; SLOT_BYTES], 0)?;
        Ok(Self { file: Arc::new(file) })
    }

    /// The descriptor the runtime gets (as fd 6).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// What the runtime last wrote; `Starting` until it writes, or when the slot cannot be read.
    pub fn read(&self) -> SlotReading {
        self.read_lane(0)
    }

    /// What the runtime last wrote in lane record `index`.
    pub fn read_lane(&self, index: u32) -> SlotReading {
        let starting = SlotReading { generation: 0, state: RuntimeState::Starting };
        let offset = u64::from(index) * SLOT_BYTES as u64;
        let mut bytes = [0; SLOT_BYTES];
        for _ in 0..100 {
            if crate::platform::files::read_exact_at(&self.file, &mut bytes, offset).is_err() {
                return starting;
            }
            if let Some(reading) = decode(&bytes) {
                return reading;
            }
            std::thread::yield_now();
        }
        starting
    }

    /// Of the lane records `indexes`, the one whose handler started last (the highest
    /// generation that reads as running): the one a runtime that stopped yielding is stuck in
    /// when its handler never yielded from the start.
    pub fn latest_running(&self, indexes: impl IntoIterator<Item = u32>) -> Option<(u32, RunningHandler)> {
        indexes
            .into_iter()
            .filter_map(|index| match self.read_lane(index) {
                SlotReading { generation, state: RuntimeState::Running(handler) } => Some((generation, index, handler)),
                _ => None,
            })
            .max_by_key(|(generation, ..)| *generation)
            .map(|(_, index, handler)| (index, handler))
    }

    /// Makes lane record `index` read as `Starting` (a lane given to a new session).
    pub fn clear_lane(&self, index: u32) {
        let _ =
            crate::platform::files::write_all_at(&self.file, &[0; SLOT_BYTES], u64::from(index) * SLOT_BYTES as u64);
    }
}

/// The slot's bytes, or `None` for a write caught half done.
fn decode(bytes: &[u8; SLOT_BYTES]) -> Option<SlotReading> {
    let word = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let generation = word(0);
    if generation != word(20) {
        return None;
    }
    let seq = f64::from_le_bytes(bytes[8..16].try_into().ok()?);
    let seq = (seq >= 0.0).then_some(seq as u64);
    let state = match (generation, word(4)) {
        (0, _) => RuntimeState::Starting,
        (_, 0) => RuntimeState::Idle { through: seq },
        (_, kind) => RuntimeState::Running(RunningHandler { seq: seq?, hook: word(16) as usize, any: kind == 2 }),
    };
    Some(SlotReading { generation, state })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(generation: u32, kind: u32, seq: f64, hook: u32, again: u32) -> [u8; SLOT_BYTES] {
        let mut bytes = [0; SLOT_BYTES];
        bytes[0..4].copy_from_slice(&generation.to_le_bytes());
        bytes[4..8].copy_from_slice(&kind.to_le_bytes());
        bytes[8..16].copy_from_slice(&seq.to_le_bytes());
        bytes[16..20].copy_from_slice(&hook.to_le_bytes());
        bytes[20..24].copy_from_slice(&again.to_le_bytes());
        bytes
    }

    #[test]
    fn the_slot_reads_as_what_the_runtime_wrote_and_a_half_write_does_not_read() {
        let running = |seq, hook, any| RuntimeState::Running(RunningHandler { seq, hook, any });
        assert_eq!(decode(&[0; SLOT_BYTES]).unwrap().state, RuntimeState::Starting);
        assert_eq!(decode(&bytes(3, 1, 7.0, 2, 3)).unwrap().state, running(7, 2, false));
        assert_eq!(decode(&bytes(4, 2, 7.0, 2, 4)).unwrap().state, running(7, 2, true));
        assert_eq!(decode(&bytes(5, 0, 7.0, 0, 5)).unwrap().state, RuntimeState::Idle { through: Some(7) });
        assert_eq!(decode(&bytes(6, 0, -1.0, 0, 6)).unwrap().state, RuntimeState::Idle { through: None });
        assert_eq!(decode(&bytes(7, 1, 8.0, 0, 6)), None);
    }

    #[test]
    fn a_new_slot_reads_as_starting_then_as_written() {
        let slot = HandlerSlot::create().unwrap();
        assert_eq!(slot.read().state, RuntimeState::Starting);
        crate::platform::files::write_all_at(slot.file(), &bytes(9, 2, 12.0, 1, 9), 0).unwrap();
        assert_eq!(
            slot.read(),
            SlotReading { generation: 9, state: RuntimeState::Running(RunningHandler { seq: 12, hook: 1, any: true }) }
        );
    }
}
