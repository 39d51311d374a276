// @ts-check
// The handler slot (fd 6, src/runtime/slot.rs reads it): before each handler of a lane, and
// before the lane goes idle, one pwrite of the lane's record says whose handler runs (the
// layout is at the top of host.mjs).

import { builtin } from './builtin.mjs';

/** @type {typeof import('node:fs')} */
const { writeSync } = builtin('node:fs');

const SLOT_FD = 6;

/** A lane's 24 bytes of the slot, written whole each time. */
const SLOT_BYTES = 24;
const slotBytes = Buffer.alloc(SLOT_BYTES);
const slotView = new DataView(slotBytes.buffer, slotBytes.byteOffset, slotBytes.length);
let slotGeneration = 0;

function writeSlot(lane, kind, seq, hook) {
  slotGeneration = (slotGeneration + 1) >>> 0 || 1;
  slotView.setUint32(0, slotGeneration, true);
  slotView.setUint32(4, kind, true);
  slotView.setFloat64(8, seq, true);
  slotView.setUint32(16, hook, true);
  slotView.setUint32(20, slotGeneration, true);
  try {
    writeSync(SLOT_FD, slotBytes, 0, SLOT_BYTES, lane.slot * SLOT_BYTES);
  } catch {
    // No slot (a runtime started by hand): Rust cannot name a handler that never yields.
  }
}

/** Before each handler: hook `hook`'s handler for event `seq` of `lane` runs (`which` 0: its type's, 1: "*"). */
export function slotRunning(lane, seq, hook, which) {
  writeSlot(lane, which + 1, seq, hook);
}

/** Before a lane goes idle, ahead of the lines that say so. */
export function slotIdle(lane) {
  writeSlot(lane, 0, lane.lastFinished, 0);
}
