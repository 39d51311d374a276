// Appends one record per turn to `memory/journal.jsonl` in the deployment files: a journal
// shared by every session, which the `## Memory` section of instructions.md points the
// model to. Delete this file (and that section) to opt out.
import { memoryHook } from "{sdk}/memory";

export default memoryHook();
