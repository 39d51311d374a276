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
use crate::runtime::reader::FromRuntime;
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::protocol::{CtxAgent, CtxChannel, CtxSession};

    fn ctx(session: &str) -> Arc<HookCtx> {
        Arc::new(HookCtx {
            session: CtxSession {
                id: session.to_owned(),
                channel_id: "dev".to_owned(),
                mode: "chat".to_owned(),
                purpose: "live".to_owned(),
                auth: (),
                title: None,
            },
            agent: CtxAgent { name: "bot".to_owned() },
            channel: CtxChannel { id: "dev".to_owned(), continuation_token: None },
            state_root: PathBuf::from("/p/.agent-sdk"),
        })
    }

    fn open(lanes: &Lanes, session: &str, slot: &HandlerSlot) -> Lane {
        lanes.open(session, ctx(session), std::sync::mpsc::channel().0, slot)
    }

    /// Running handler `hook` of event `seq`, written in lane record `index` as generation `generation`.
    fn run_in(slot: &HandlerSlot, index: u32, generation: u32, seq: u64, hook: u32) {
        let mut bytes = [0u8; 24];
        bytes[0..4].copy_from_slice(&generation.to_le_bytes());
        bytes[4..8].copy_from_slice(&1u32.to_le_bytes());
        bytes[8..16].copy_from_slice(&(seq as f64).to_le_bytes());
        bytes[16..20].copy_from_slice(&hook.to_le_bytes());
        bytes[20..24].copy_from_slice(&generation.to_le_bytes());
        crate::platform::files::write_all_at(slot.file(), &bytes, u64::from(index) * 24).unwrap();
    }

    #[test]
    fn a_lane_id_is_never_reused_but_its_slot_record_is_the_lowest_free_one() {
        let (lanes, slot) = (Lanes::default(), HandlerSlot::create().unwrap());
        let (a, b, c) = (open(&lanes, "a", &slot), open(&lanes, "b", &slot), open(&lanes, "c", &slot));
        assert_eq!([(a.id, a.slot), (b.id, b.slot), (c.id, c.slot)], [(1, 0), (2, 1), (3, 2)]);
        lanes.close(b.id);
        lanes.close(a.id);
        assert_eq!(lanes.session_of(b.id), None, "a late message of a session that left finds no lane");
        let d = open(&lanes, "d", &slot);
        assert_eq!((d.id, d.slot), (4, 0));
        assert_eq!(lanes.session_of(d.id).as_deref(), Some("d"));
        let e = open(&lanes, "e", &slot);
        assert_eq!((e.id, e.slot), (5, 1));
        let mut open: Vec<u64> = lanes.all().iter().map(|lane| lane.id).collect();
        open.sort_unstable();
        assert_eq!(open, [3, 4, 5]);
    }

    #[test]
    fn a_lane_opened_on_a_record_another_left_running_reads_as_starting() {
        let (lanes, slot) = (Lanes::default(), HandlerSlot::create().unwrap());
        let a = open(&lanes, "a", &slot);
        run_in(&slot, a.slot, 4, 9, 1);
        lanes.close(a.id);
        let b = open(&lanes, "b", &slot);
        assert_eq!(b.slot, a.slot);
        assert_eq!(slot.read_lane(b.slot).state, crate::runtime::slot::RuntimeState::Starting);
    }

    #[test]
    fn the_stuck_handler_is_the_open_lane_s_that_started_last() {
        let (lanes, slot) = (Lanes::default(), HandlerSlot::create().unwrap());
        let (a, b, c) = (open(&lanes, "a", &slot), open(&lanes, "b", &slot), open(&lanes, "c", &slot));
        run_in(&slot, a.slot, 5, 3, 0);
        run_in(&slot, b.slot, 7, 8, 2);
        run_in(&slot, c.slot, 9, 1, 1);
        lanes.close(c.id);
        let (lane, handler) = lanes.latest_running(&slot).unwrap();
        assert_eq!((lane.session_id.as_str(), handler), ("b", RunningHandler { seq: 8, hook: 2, any: false }));
        assert_eq!((lanes.next_generation(), lanes.next_generation()), (1, 2));
    }
}
