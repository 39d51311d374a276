//! The session lanes of a runtime that serves many sessions (`dev`): which sessions are
//! open on it, each with its lane id (never reused: a late call of a session that left is
//! refused, not answered into another's store), its record in the handler slot (reused),
//! its `ctx`, and where what Node says about it is handed on. The runtime's reader routes
//! by them; a restarted runtime opens them all again.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::protocol::HookCtx;
use crate::runtime::host::FromRuntime;
use crate::runtime::slot::{HandlerSlot, RunningHandler};

/// What Node said about a lane, tagged with the generation of the runtime that said it
/// (the first runtime is 1, each restart the next).
pub type Routed = (u64, FromRuntime);

/// One open lane.
#[derive(Debug, Clone)]
pub struct Lane {
    pub id: u64,
    pub session_id: String,
    /// Its record in the handler slot.
    pub slot: u32,
    pub ctx: Arc<HookCtx>,
    pub sender: Sender<Routed>,
}

#[derive(Debug, Default)]
struct Table {
    next_id: u64,
    open: HashMap<u64, Lane>,
    /// Slot records given back by lanes that closed, lowest first.
    free_slots: BTreeSet<u32>,
    next_slot: u32,
}

/// The lanes of one shared runtime, shared by its sessions and its reader threads.
#[derive(Debug, Default)]
pub struct Lanes {
    table: Mutex<Table>,
    generation: AtomicU64,
}

impl Lanes {
    fn table(&self) -> MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The generation of the next runtime started (1 for the first).
    pub fn next_generation(&self) -> u64 {
        self.generation.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Opens a lane for `session_id` (its slot record cleared in `slot`, the current
    /// runtime's), and returns it.
    pub fn open(&self, session_id: &str, ctx: Arc<HookCtx>, sender: Sender<Routed>, slot: &HandlerSlot) -> Lane {
        let mut table = self.table();
        table.next_id += 1;
        let id = table.next_id;
        let index = match table.free_slots.pop_first() {
            Some(index) => index,
            None => {
                table.next_slot += 1;
                table.next_slot - 1
            }
        };
        slot.clear_lane(index);
        let lane = Lane { id, session_id: session_id.to_owned(), slot: index, ctx, sender };
        table.open.insert(id, lane.clone());
        lane
    }

    /// Closes lane `id`: its slot record goes back.
    pub fn close(&self, id: u64) {
        let mut table = self.table();
        if let Some(lane) = table.open.remove(&id) {
            table.free_slots.insert(lane.slot);
        }
    }

    /// Every open lane.
    pub fn all(&self) -> Vec<Lane> {
        self.table().open.values().cloned().collect()
    }

    /// The session of lane `id`, while it is open.
    pub fn session_of(&self, id: u64) -> Option<String> {
        self.table().open.get(&id).map(|lane| lane.session_id.clone())
    }

    /// Where lane `id`'s messages go, while it is open.
    pub fn sender_of(&self, id: u64) -> Option<Sender<Routed>> {
        self.table().open.get(&id).map(|lane| lane.sender.clone())
    }

    /// The open lane whose handler started last, as `slot` says, with that handler.
    pub fn latest_running(&self, slot: &HandlerSlot) -> Option<(Lane, RunningHandler)> {
        let lanes = self.all();
        let (index, handler) = slot.latest_running(lanes.iter().map(|lane| lane.slot))?;
        let lane = lanes.into_iter().find(|lane| lane.slot == index)?;
        Some((lane, handler))
    }
}
